"""One query in a process of its own, held to its memory and time limits whatever it builds.

DuckDB's `memory_limit` bounds its buffer manager, not every allocation: `SELECT len(range(150000000))`
builds one list vector outside it (3.4 GB resident under a 1GB limit, measured) and
`repeat('x', 2000000000)` one 2 GB string (4.0 GB), and `connection.interrupt()` is only looked at
between vectors, so neither stopped at a 2 s timeout (9 and 18 s). No setting of DuckDB or thread of
ours can stop one allocation inside the process; the kernel can. So `run_bounded` runs the query in a
process of its own, forked for it by a process the caller starts once (`_Forker`, started as
`python -m` this module, so the caller's own `__main__` never runs again). The forker imported the query
engine and checked the scanner extensions' signatures once (extensions.py) and holds no ledger
connection and no DuckDB instance, so a query's process starts in milliseconds instead of the ~0.9 s a
new interpreter took (measured 2026-12: a one-row query 0.14 s against 0.9 s). Then:

- the query's process caps its own address space (RLIMIT_AS) at what it maps at start plus the memory
  limit plus ADDRESS_HEADROOM, so an allocation past it fails inside DuckDB or Python (an out-of-memory
  error it reports) instead of growing the machine's memory;
- the caller watches its resident size (/proc) and stops it past the same bound plus HEADROOM (a second
  line, for memory the address-space limit does not count the same way), and stops it at the time limit
  plus GRACE when its own DuckDB interrupt did not end the query first;
- every copy of ledger rows it makes (feed.py's scratch files, a snapshot's copy) lives in a private
  folder the caller removes after it ends, killed or not.

The caller receives the rows (at most `max_rows`) or the error, as data; a watcher between the forker
and the query's process reports its exit status, so a query killed at the cap is told apart from a bug.
`factledger sql` and `factledger.open(...).sql()` run every query so. `Analytics` itself stays
in-process (relations live in the caller's DuckDB): its limits are DuckDB's and the interrupt timer
(docs/ARCHITECTURE.md, "Limits on analyst SQL").
"""

from __future__ import annotations

import atexit
import os
import pickle
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factledger.ledger.pg_storage import is_postgres_url
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
    """Run one read-only query over the ledger at `location` in a process of its own held to the limits
    (None: no limit of that kind). Raises the errors `Analytics` raises, and SqlExecutionError naming
    the limit when the query's process was stopped at one."""
    limit_bytes = None if memory_limit is None else memory_bytes(memory_limit)
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0):
        raise ValidationError(f"{timeout!r} is not a positive number of seconds", field="timeout")
    scratch = Path(tempfile.mkdtemp(prefix="factledger-query-", dir=_scratch_base()))
    request = {"location": str(location), "query": query, "params": params, "mode": mode, "memory_limit": memory_limit,
               "limit_bytes": limit_bytes, "timeout": timeout, "max_rows": max_rows, "arrow": arrow, "scratch": str(scratch),
               "engine": "postgres" if is_postgres_url(str(location)) else "sqlite",
               "cwd": os.getcwd(), "environment": dict(os.environ)}
    try:
        try:
            results = _submit(request["engine"], pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError as exc:  # this interpreter cannot be started again (a path this user may not execute)
            return _in_process(request, f"the query ran in this process ({sys.executable} could not be started:"
                               f" {exc.strerror}): only DuckDB's own memory limit and the interrupt bound it")
        try:
            message = _wait(results, limit_bytes, memory_limit, timeout)
        finally:
            results.close()
        if message[0] == "died":
            message = ("died", message[1], _tail(scratch / "stderr"))
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


class _Forker:
    """The process this one starts once (again only if it ended) to fork every query's process from.

    It imported the query engine and checked the scanners' signatures (extensions.py) once, so a query's
    process starts in a few milliseconds instead of the ~0.9 s of a new interpreter. It holds no ledger
    connection and no DuckDB instance. Requests come over a Unix socket, each with two pipes of its own:
    the query in, the answer out, so concurrent queries of one caller never share a stream.
    """

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", __name__, "--serve", str(theirs.fileno())],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, pass_fds=(theirs.fileno(),), close_fds=True,
                start_new_session=True, env={**os.environ, "MALLOC_ARENA_MAX": "2"},
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.control = ours
        self.owner = os.getpid()
        self.lock = threading.Lock()

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.process.poll() is None

    def submit(self, engine: str, body: bytes) -> _Answers:
        """Hand the forker one request; the stream its query's process answers on."""
        request_in, request_out = os.pipe()
        answer_in, answer_out = os.pipe()
        try:
            with self.lock:
                socket.send_fds(self.control, [engine.encode("ascii")], [request_in, answer_out])
        except OSError:
            for fd in (request_out, answer_in):
                os.close(fd)
            raise
        finally:
            os.close(request_in)
            os.close(answer_out)
        answers = _Answers(answer_in)
        try:
            with open(request_out, "wb") as stream:  # the query's process reads it whole before anything else
                stream.write(body)
        except BrokenPipeError:  # it ended before reading: its exit status comes on the answer stream
            pass
        return answers

    def close(self) -> None:
        self.control.close()  # the forker ends when its socket does
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_forker: _Forker | None = None
_forker_lock = threading.Lock()


def _submit(engine: str, body: bytes) -> _Answers:
    global _forker
    for attempt in range(2):
        with _forker_lock:
            if _forker is None or not _forker.alive():
                if _forker is not None and _forker.owner == os.getpid():
                    _forker.close()
                _forker = _Forker()
            forker = _forker
        try:
            return forker.submit(engine, body)
        except OSError:  # the forker ended between the check and the send: start another, once
            with _forker_lock:
                if _forker is forker:
                    forker.close()
                    _forker = None
            if attempt:
                raise
    raise AssertionError("unreachable")


@atexit.register
def _stop_forker() -> None:
    if _forker is not None and _forker.owner == os.getpid():
        _forker.close()


class _Answers:
    """Length-prefixed pickles from a query's process (and its watcher's exit status), read without
    blocking past a poll."""

    def __init__(self, fd: int):
        self.fd = fd
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

    def close(self) -> None:
        os.close(self.fd)


class _QueryProcess:
    """The process a query runs in, named by a pidfd where Linux has them, so a signal never reaches
    another process that took the number after it ended."""

    def __init__(self, pid: int):
        self.pid = pid
        self.fd: int | None = None
        try:
            self.fd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pass

    def kill(self) -> None:
        try:
            if self.fd is not None:
                signal.pidfd_send_signal(self.fd, signal.SIGKILL)
            else:
                os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)


def _wait(answers: _Answers, limit_bytes: int | None, memory_limit: str | None, timeout: float | None) -> tuple[Any, ...]:
    deadline = None if timeout is None else time.monotonic() + timeout + GRACE
    process: _QueryProcess | None = None
    base: int | None = None  # the query process's resident size when it reported in
    try:
        while True:
            message = answers.next(POLL)
            if message is False:
                return ("died", None)
            if message is not None:
                if message[0] == "pid":
                    process = _QueryProcess(message[1])
                elif message[0] == "started":
                    base = message[1]
                elif message[0] == "exit":
                    return ("died", message[1])
                else:
                    return message
            stop = None
            if limit_bytes is not None and base is not None and process is not None:
                rss = _resident(process.pid)
                if rss is not None and rss > base + limit_bytes + HEADROOM:
                    stop = ("error", "SqlExecutionError", memory_message(memory_limit), None, "query")
            if stop is None and deadline is not None and time.monotonic() > deadline:
                stop = ("error", "SqlExecutionError", time_message(timeout), None, "query")
            if stop is not None:
                if process is not None:
                    process.kill()
                _drain(answers)
                return stop
    finally:
        if process is not None:
            process.close()


def _drain(answers: _Answers) -> None:
    """Wait (briefly) for a stopped query's process to be gone, so its scratch copies are not in use."""
    end = time.monotonic() + 5
    while time.monotonic() < end:
        message = answers.next(POLL)
        if message is False or (message is not None and message[0] == "exit"):
            return


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


# -- the forker and a query's process ------------------------------------------------------------------

def _send(fd: int, message: tuple[Any, ...]) -> None:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(len(body).to_bytes(8, "big") + body)
    while view:
        view = view[os.write(fd, view):]


def _serve(control_fd: int) -> None:
    """The forker: import the engine once, then fork a watcher per request until the socket closes.

    The watcher forks the query's process and waits for it, then sends its exit status on the answer
    stream (a process killed at the memory cap sends nothing itself). The forker never waits for
    either: it ignores SIGCHLD, so the kernel reaps its watchers."""
    from . import extensions
    from .engine import Analytics, scanner_path  # noqa: F401 - imported once here, not in every query's process

    control = socket.socket(fileno=control_fd)
    checked: set[str] = set()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    while True:
        try:
            said, fds, _, _ = socket.recv_fds(control, 16, 2)
        except (ConnectionResetError, OSError):
            return
        if len(fds) != 2:  # the caller closed its end (an empty read) or sent something else
            for fd in fds:
                os.close(fd)
            if not fds:
                return
            continue
        request_fd, answer_fd = fds
        engine = said.decode("ascii", "replace")
        if engine not in checked:
            try:
                extensions.check(scanner_path(engine))  # once; the query's own LOAD names any failure
            except Exception:  # noqa: BLE001
                pass
            checked.add(engine)
        if os.fork() == 0:
            try:
                control.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                _watch(request_fd, answer_fd)
            finally:
                os._exit(0)
        os.close(request_fd)
        os.close(answer_fd)


def _watch(request_fd: int, answer_fd: int) -> None:
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            _query(request_fd, answer_fd)
        except BaseException:  # noqa: BLE001 - nothing may escape into the forker's loop
            code = 1
        finally:
            os._exit(code)
    os.close(request_fd)
    try:
        _send(answer_fd, ("pid", pid))
    except OSError:
        pass
    _, status = os.waitpid(pid, 0)
    try:
        _send(answer_fd, ("exit", os.waitstatus_to_exitcode(status)))
    except OSError:  # the caller stopped reading (it had its answer)
        pass


def _query(request_fd: int, answer_fd: int) -> None:
    with open(request_fd, "rb") as stream:
        request = pickle.loads(stream.read())
    stderr = os.open(os.path.join(request["scratch"], "stderr"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(stderr, 2)
    os.close(stderr)
    os.environ.clear()
    os.environ.update(request["environment"])
    os.chdir(request["cwd"])
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
        _send(answer_fd, ("started", _resident(os.getpid()) or 0))
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
        _send(answer_fd, message)
    except MemoryError:  # the answer itself does not fit under the limit
        _send(answer_fd, ("error", "SqlExecutionError", memory_message(memory_limit), None, "query"))


def _address_space() -> int | None:
    try:
        with open("/proc/self/statm", "rb") as stream:
            return int(stream.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        _serve(int(sys.argv[2]))
