"""One query in a process of its own, held to its memory and time limits whatever it builds.

DuckDB's `memory_limit` bounds its buffer manager, not every allocation: `SELECT len(range(150000000))`
builds one list vector outside it (3.4 GB resident under a 1GB limit, measured) and
`repeat('x', 2000000000)` one 2 GB string (4.0 GB), and `connection.interrupt()` is only looked at
between vectors, so neither stopped at a 2 s timeout (9 and 18 s). No setting of DuckDB or thread of
ours can stop one allocation inside the process; the kernel can. So `run_bounded` runs the query in a
child process (forked from multiprocessing's fork server: a clean process that imported this package
once, holds no ledger connection and no thread, so the fork inherits neither SQLite's locks nor a
DuckDB instance) and:

- the child caps its own address space (RLIMIT_AS) at what it uses at start plus the memory limit plus
  HEADROOM, so an allocation past it fails inside DuckDB or Python (an out-of-memory error the child
  reports) instead of growing the machine's memory;
- the parent watches the child's resident size (/proc) and stops it past the same bound (a second
  line, for memory the address-space limit does not count the same way), and stops it at the time limit
  plus GRACE when the child's own DuckDB interrupt did not end the query first;
- every copy of ledger rows the child makes (feed.py's scratch files, a snapshot's copy) lives in a
  private folder the parent removes after the child ends, killed or not.

The parent receives the rows (at most `max_rows`) or the error, as data. `factledger sql` and
`factledger.open(...).sql()` run every query so. `Analytics` itself stays in-process (relations live in
the caller's DuckDB): its limits are DuckDB's and the interrupt timer (docs/ARCHITECTURE.md, "Limits on
analyst SQL").
"""

from __future__ import annotations

import os
import pickle
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factledger.ledger.errors import LedgerError, NotFoundError, StorageError, ValidationError

from .engine import QueryResult, check_memory_limit
from .errors import QueryRefused, SqlError, SqlExecutionError, SqlSyntaxError, memory_message, time_message

MB = 1024 * 1024
# Resident bytes beyond the memory limit (what the child holds at start is added too): DuckDB's threads,
# Python's objects, the result being sent.
HEADROOM = 256 * MB
# Address space beyond the limit and what the child maps at start: a session reserves ~350 MB it never
# touches (thread stacks, malloc's arenas, kept at 2 by MALLOC_ARENA_MAX: each reserves 64 MB), and each
# DuckDB thread a stack; measured 2026-12 (docs/ARCHITECTURE.md, "Limits on analyst SQL").
ADDRESS_HEADROOM = 512 * MB + 16 * MB * (os.cpu_count() or 1)
GRACE = 1.0  # seconds past the time limit before the parent stops a child whose query did not stop
POLL = 0.02  # seconds between the parent's looks at the child
_UNITS = {"b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
          "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4}
_ERRORS: dict[str, type[LedgerError]] = {
    cls.__name__: cls for cls in (LedgerError, NotFoundError, StorageError, ValidationError, SqlExecutionError)
}
_SQL_ERRORS: dict[str, type[SqlError]] = {cls.__name__: cls for cls in (SqlError, SqlSyntaxError, QueryRefused)}


def memory_bytes(text: str) -> int:
    """Bytes of a memory size as DuckDB reads it ("512MB", "2GiB")."""
    text = check_memory_limit(text).replace(" ", "")
    number = text.rstrip("BKMGTiIbkmgt")
    return int(float(number) * _UNITS[text[len(number):].lower()])


@dataclass(frozen=True)
class BoundedResult:
    """What the child answered: the rows (or an Arrow table), and the mode the session read in."""

    result: QueryResult | None
    table: Any = None  # a pyarrow Table when asked for (`arrow=True`)
    mode: str | None = None
    mode_note: str = ""
    note: str = ""  # set when the query ran in this process (no child could start): its limits are weaker


def run_bounded(
    location: str | Path,
    query: str,
    params: Any = None,
    *,
    mode: str | None = None,
    memory_limit: str | None,
    timeout: float | None,
    max_rows: int | None,
    arrow: bool = False,
) -> BoundedResult:
    """Run one read-only query over the ledger at `location` in a child process held to the limits
    (None: no limit of that kind). Raises the errors `Analytics` raises, and SqlExecutionError naming
    the limit when the child was stopped at one."""
    limit_bytes = None if memory_limit is None else memory_bytes(memory_limit)
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0):
        raise ValidationError(f"{timeout!r} is not a positive number of seconds", field="timeout")
    scratch = Path(tempfile.mkdtemp(prefix="factledger-query-", dir=_scratch_base()))
    request = {"location": str(location), "query": query, "params": params, "mode": mode, "memory_limit": memory_limit,
               "limit_bytes": limit_bytes, "timeout": timeout, "max_rows": max_rows, "arrow": arrow, "scratch": str(scratch)}
    errors = scratch / "stderr"
    try:
        try:
            with errors.open("wb") as stderr:
                child = subprocess.Popen(
                    [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                    close_fds=True, start_new_session=True, env={**os.environ, "MALLOC_ARENA_MAX": "2"},
                )
        except OSError as exc:  # this interpreter cannot be started again (a path this user may not execute)
            return _in_process(request, f"the query ran in this process ({sys.executable} could not be started:"
                               f" {exc.strerror}): only DuckDB's own memory limit and the interrupt bound it")
        try:
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write(pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL))
            child.stdin.close()
            message = _wait(child, limit_bytes, memory_limit, timeout)
        finally:
            if child.poll() is None:
                child.kill()
            child.wait()
            if child.stdout is not None:
                child.stdout.close()
        if message[0] == "died":
            message = ("died", child.returncode, _tail(errors))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return _answer(message, memory_limit, timeout)


def _in_process(request: dict[str, Any], note: str) -> BoundedResult:
    from .engine import Analytics

    query, params = request["query"], request["params"]
    with Analytics(request["location"], mode=request["mode"], first_query=query, memory_limit=request["memory_limit"],
                   timeout=request["timeout"], max_rows=request["max_rows"]) as analytics:
        if request["arrow"]:
            return BoundedResult(None, analytics.arrow(query, params), analytics.mode, analytics.mode_note, note)
        return BoundedResult(analytics.run(query, params), None, analytics.mode, analytics.mode_note, note)


# -- the parent ---------------------------------------------------------------------------------------

def _scratch_base() -> str | None:
    from .feed import scratch_base

    return scratch_base()


class _Frames:
    """Length-prefixed pickles from the child's standard output, read without blocking past a poll."""

    def __init__(self, stream: Any):
        self.fd = stream.fileno()
        self.buffer = bytearray()

    def next(self, wait: float) -> tuple[Any, ...] | None | bool:
        """A message; None when none came within `wait`; False at the end of the stream."""
        while True:
            if len(self.buffer) >= 8:
                size = int.from_bytes(self.buffer[:8], "big")
                if len(self.buffer) >= 8 + size:
                    body = bytes(self.buffer[8 : 8 + size])
                    del self.buffer[: 8 + size]
                    return pickle.loads(body)
            ready, _, _ = select.select([self.fd], [], [], wait)
            if not ready:
                return None
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                return False
            self.buffer += chunk
            wait = POLL


def _wait(child: subprocess.Popen, limit_bytes: int | None, memory_limit: str | None, timeout: float | None) -> tuple[Any, ...]:
    frames = _Frames(child.stdout)
    deadline = None if timeout is None else time.monotonic() + timeout + GRACE
    base: int | None = None  # the child's resident size when it reported in
    while True:
        message = frames.next(POLL)
        if message is False:
            return ("died",)
        if message is not None:
            if message[0] != "started":
                return message
            base = message[1]
        if limit_bytes is not None and base is not None:
            rss = _resident(child.pid)
            if rss is not None and rss > base + limit_bytes + HEADROOM:
                child.kill()
                return ("error", "SqlExecutionError", memory_message(memory_limit), None, "query")
        if deadline is not None and time.monotonic() > deadline:
            child.kill()
            return ("error", "SqlExecutionError", time_message(timeout), None, "query")


def _tail(path: Path) -> str:
    try:
        lines = path.read_text("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1] if lines else ""


def _resident(pid: int | None) -> int | None:
    try:
        with open(f"/proc/{pid}/statm", "rb") as stream:
            return int(stream.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _answer(message: tuple[Any, ...], memory_limit: str | None, timeout: float | None) -> BoundedResult:
    kind = message[0]
    if kind == "ok":
        _, result, table, mode, note = message
        return BoundedResult(result, table, mode, note)
    if kind == "error":
        _, name, text, where, field = message
        if where is not None:
            raise _SQL_ERRORS.get(name, SqlError)(where["reason"], line=where["line"], column=where["column"], text=where["text"])
        cls = _ERRORS.get(name, LedgerError)
        if cls is SqlExecutionError:
            raise SqlExecutionError(text)
        raise cls(text, field=field)
    if kind == "died":
        _, code, said = message
        if memory_limit is not None and code in (-signal.SIGKILL, -signal.SIGABRT, -signal.SIGSEGV, -signal.SIGBUS):
            # an allocation past RLIMIT_AS can end C++ code that cannot throw in an abort
            raise SqlExecutionError(memory_message(memory_limit, said))
        raise SqlExecutionError(f"the query's process ended unexpectedly (exit status {code}){': ' + said if said else ''}")
    # "crash": a bug of ours in the child; its traceback, not a clean error
    raise RuntimeError(f"the query's process failed:\n{message[1]}")


# -- the child ----------------------------------------------------------------------------------------

def _send(message: tuple[Any, ...]) -> None:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    out = sys.stdout.buffer
    out.write(len(body).to_bytes(8, "big") + body)
    out.flush()


def _child() -> None:
    request = pickle.loads(sys.stdin.buffer.read())
    memory_limit, limit_bytes = request["memory_limit"], request["limit_bytes"]
    try:
        from . import feed
        from .engine import Analytics

        feed.SCRATCH_PARENT = request["scratch"]
        tempfile.tempdir = request["scratch"]  # a snapshot's private copy too
        if limit_bytes is not None:
            size = _address_space()
            if size is not None:
                cap = size + limit_bytes + ADDRESS_HEADROOM
                resource.setrlimit(resource.RLIMIT_AS, (cap, resource.getrlimit(resource.RLIMIT_AS)[1]))
        _send(("started", _resident(os.getpid()) or 0))
        query, params = request["query"], request["params"]
        with Analytics(request["location"], mode=request["mode"], first_query=query, memory_limit=memory_limit,
                       timeout=request["timeout"], max_rows=request["max_rows"]) as analytics:
            if request["arrow"]:
                message: tuple[Any, ...] = ("ok", None, analytics.arrow(query, params), analytics.mode, analytics.mode_note)
            else:
                message = ("ok", analytics.run(query, params), None, analytics.mode, analytics.mode_note)
    except SqlError as exc:
        message = ("error", type(exc).__name__, str(exc),
                   {"reason": exc.reason, "line": exc.line, "column": exc.column, "text": exc.text}, "query")
    except LedgerError as exc:
        message = ("error", type(exc).__name__, exc.message, None, exc.field)
    except MemoryError:
        message = ("error", "SqlExecutionError", memory_message(memory_limit), None, "query")
    except BaseException:  # noqa: BLE001 - a bug: its traceback goes to the parent
        message = ("crash", traceback.format_exc())
    try:
        _send(message)
    except MemoryError:  # the answer itself does not fit under the limit
        _send(("error", "SqlExecutionError", memory_message(memory_limit), None, "query"))


def _address_space() -> int | None:
    try:
        with open("/proc/self/statm", "rb") as stream:
            return int(stream.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


if __name__ == "__main__":
    _child()
