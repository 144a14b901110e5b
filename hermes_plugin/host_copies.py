"""Copies of an erased value in the Hermes host's own files, which factledger does not own and does not edit.

Hermes keeps every conversation in `$HERMES_HOME/state.db` (its session store: `session_search` reads its
FTS5 index), the CLI's input history in `.hermes_history`, and logs in `logs/` (agent.log, errors.log,
gateway.log); sessions/ and memories/ hold more of its own state. docs/HERMES.md verifies none of their
formats as safe for another program to rewrite (a running Hermes holds state.db open in WAL mode and
keeps its own FTS triggers), so erase does not change them: it looks for the value in each file's bytes
(word-level, normalised as every key is) and names every file that holds it with the command that
reaches it: Hermes's own `hermes sessions delete <id> --yes` for each session whose messages mention it
(found by reading every session's messages with the host's SessionDB, read-only: its FTS search is off
on a read-only handle) followed by `hermes sessions optimize` (merges FTS5 segments and VACUUMs), and for
the history and the logs, which no Hermes command edits, the file to edit or delete while Hermes is
stopped.

With the operator's word (`factledger erase … --hermes-sessions delete`), the sessions that mention the
value are deleted through the host's own SessionDB (`delete_session`, what `hermes sessions delete` runs:
the messages, the transcript files under sessions/) and its store vacuumed (`vacuum`, what `hermes
sessions optimize` runs: FTS5 segments merged, freed pages dropped). Hermes has no call that redacts one
message, so a whole session goes; the rest is named as before.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from factledger.ledger.erasure import mention_spans

from .paths import HermesPaths

# A file larger than this is not read whole; it is named as possibly holding the value.
MAX_SCAN_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class HostCopy:
    path: Path
    what: str
    command: str

    def to_dict(self) -> dict:
        return {"kind": "hermes", "path": str(self.path), "what": self.what, "command": self.command}


def hermes_home_of(ledger_file: str | Path) -> HermesPaths | None:
    """The Hermes home whose ledger this is (`$HERMES_HOME/factledger/ledger.db`), or None."""
    path = Path(ledger_file)
    if path.name != "ledger.db" or path.parent.name != "factledger":
        return None
    paths = HermesPaths(path.parent.parent)
    if paths.ledger_path != path:
        return None
    return paths if (paths.home / "state.db").exists() or paths.config_yaml.exists() else None


def _files(paths: HermesPaths) -> Iterator[tuple[Path, str]]:
    home = paths.home
    for name in ("state.db", "state.db-wal"):
        yield home / name, "Hermes's session store"
    yield home / ".hermes_history", "the Hermes CLI's input history"
    for folder, what in (("logs", "a Hermes log"), ("sessions", "Hermes's session files"), ("memories", "Hermes's built-in memory")):
        base = home / folder
        if base.is_dir():
            for item in sorted(base.rglob("*")):
                if item.is_file():
                    yield item, what


def _holds(path: Path, words: Sequence[Sequence[str]]) -> bool:
    try:
        size = path.stat().st_size
        if size > MAX_SCAN_BYTES:
            return True  # not read: named, on the safe side
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return True  # unreadable: it may hold it
    return bool(mention_spans(text, words))


def _sessions(paths: HermesPaths, words: Sequence[Sequence[str]]) -> list[str]:
    """Ids of the sessions whose messages mention the value, read with the host's SessionDB read-only
    (its FTS search is off on a read-only handle, so every session's messages are read and matched)."""
    try:
        from hermes_state import SessionDB  # the host's module; absent when factledger runs without Hermes

        from .transcript import message_text

        db = SessionDB(paths.home / "state.db", read_only=True)
    except Exception:
        return []
    found: list[str] = []
    try:
        sessions = db.list_sessions_rich(limit=1_000_000, include_children=True, include_archived=True,
                                         project_compression_tips=False, compact_rows=True)
        for session in sessions:
            sid = session.get("id")
            if not sid:
                continue
            for message in db.get_messages(sid, include_inactive=True):
                texts = [message_text(message.get(k)) for k in ("content", "api_content", "reasoning", "tool_calls")]
                if any(t and mention_spans(t, words) for t in texts):
                    found.append(sid)
                    break
    except Exception:
        return found
    finally:
        db.close()
    return found


def host_copies(paths: HermesPaths, words: Sequence[Sequence[str]]) -> list[HostCopy]:
    """Every file of the Hermes home that holds the value, with the command that reaches it."""
    if not words:
        return []
    copies: list[HostCopy] = []
    store_named = False
    hermes = f"HERMES_HOME={shlex.quote(str(paths.home))} hermes"
    for path, what in _files(paths):
        if not path.exists() or not _holds(path, words):
            continue
        if path.name.startswith("state.db"):
            if store_named:
                continue
            store_named = True
            sessions = _sessions(paths, words)
            steps = [f"{hermes} sessions delete {shlex.quote(s)} --yes" for s in sessions]
            if not sessions:
                steps = [f"{hermes} sessions list  # then: {hermes} sessions delete ID --yes for each session that mentions it"]
            command = " && ".join([*steps, f"{hermes} sessions optimize"])
            copies.append(HostCopy(paths.home / "state.db", what, command))
        else:
            command = f"no Hermes command edits it: with Hermes stopped, remove the lines that mention it from {shlex.quote(str(path))} (or delete the file)"
            copies.append(HostCopy(path, what, command))
    return copies


def delete_sessions(paths: HermesPaths, words: Sequence[Sequence[str]]) -> list[str]:
    """Delete, through the host's SessionDB, every session whose messages mention the value, then vacuum
    the store; returns the ids deleted ([] when none, or when Hermes is not importable here)."""
    found = _sessions(paths, words) if words and (paths.home / "state.db").exists() else []
    if not found:
        return []
    from hermes_state import SessionDB  # the host's module (found above, so importable)

    db = SessionDB(paths.home / "state.db")
    try:
        deleted = [sid for sid in found if db.delete_session(sid, sessions_dir=paths.home / "sessions")]
        db.vacuum()
    finally:
        db.close()
    return deleted
