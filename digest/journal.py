"""The journal: sanitised conversation turns, appended cheaply on the hot path, digested later."""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import uuid
from dataclasses import dataclass
from datetime import timedelta
from collections.abc import Iterable, Sequence

from factledger.ledger import Ledger, ValidationError, check_scope
from factledger.ledger.values import check_identifier, clean_turn_text
from factledger.ledger.erasure import only_redactions
from factledger.ledger.times import format_time, parse_time, to_datetime

from .model import AppendOutcome, JournalEntry, Turn
from .recorder import recorder_for
from .sanitise import Sanitised, sanitise

_REF = re.compile(r"^journal:(\d+)$")
MAX_TITLE_CHARS = 120  # a session title names a conversation on one line of a listing


@dataclass(frozen=True)
class PendingTurn:
    """A turn ready to store: sanitised text, its hash, the kinds of text removed, and why it was
    redacted (None: it was not)."""

    turn: Turn
    hash: str
    redactions: list[str]
    redacted: str | None


def turn_hash(turn: Turn) -> str:
    payload = json.dumps([turn.scope, turn.session, turn.role, turn.said_at, turn.text], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class Journal:
    """Append and read journal entries. Appending is one INSERT: no model call, no digest."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self.storage = ledger.storage
        self.recorder = recorder_for(ledger.storage)

    def append(self, turn: Turn) -> AppendOutcome:
        prepared = self._prepare(turn)
        if isinstance(prepared, AppendOutcome):
            return prepared
        # One statement on the common path; a duplicate (same scope, session, role, time and text) is
        # reported with the id it already has.
        entry_id = self.recorder.append_turn(
            prepared.turn, hash=prepared.hash, redactions=prepared.redactions, appended_at=self.ledger.clock()
        )
        return self._outcome(prepared, entry_id)

    def _prepare(self, turn: Turn) -> "AppendOutcome | PendingTurn":
        """What `append` would store for `turn` (checked, sanitised, erased values removed), or its outcome
        when nothing is stored."""
        turn = turn.checked(self.ledger.clock())
        cleaned, text, erased = self._cleaned(turn.scope, turn.text)
        if cleaned.action == "skip":
            return AppendOutcome(None, "skipped", cleaned.reason)
        if cleaned.action == "refuse":
            return AppendOutcome(None, "refused", cleaned.reason)
        if erased and only_redactions(text):
            return AppendOutcome(None, "skipped", "nothing left once erased values are removed")
        kinds = [*cleaned.kinds, *(["erased"] if erased else [])]
        stored = Turn(scope=turn.scope, text=text, role=turn.role, session=turn.session, said_at=turn.said_at,
                      speaker=turn.speaker)
        reasons = [cleaned.reason] if cleaned.action == "redact" else []
        reasons += [f"{erased} mention(s) of an erased value removed"] if erased else []
        return PendingTurn(stored, turn_hash(stored), sorted(set(kinds)), "; ".join(reasons) if reasons else None)

    def _outcome(self, prepared: "PendingTurn", entry_id: int | None) -> AppendOutcome:
        if entry_id is None:
            existing_id = self.recorder.entry_with_hash(prepared.hash)
            return AppendOutcome(existing_id, "skipped", f"duplicate of journal entry {existing_id}")
        if prepared.redacted is not None:
            return AppendOutcome(entry_id, "redacted", prepared.redacted)
        return AppendOutcome(entry_id, "stored", "")

    def _cleaned(self, scope: str, text: str) -> tuple[Sanitised, str, int]:
        """The sanitiser's verdict on `text`, the text to store, and how many erased mentions it lost."""
        cleaned = sanitise(text)
        if cleaned.action in ("skip", "refuse"):
            return cleaned, "", 0
        # A value an operator erased for this person does not come back by being said again (DESIGN §8).
        stored, erased = self.ledger.redact_erased(scope, cleaned.text)
        return cleaned, stored, erased

    def stored_text(self, scope: str, text: str) -> str | None:
        """The text `append` would keep for `text` said in `scope` (None: it would keep nothing), so a
        host's copy of a turn can be matched with its entry."""
        cleaned, stored, erased = self._cleaned(scope, text)
        if cleaned.action in ("skip", "refuse") or (erased and only_redactions(stored)):
            return None
        return stored

    def name_session(self, scope: str, session: str, title: object) -> str | None:
        """Record the title the host gives a session (it may rename it later: the latest one is kept).
        User-controlled text, so it is sanitised like a turn (secrets redacted, erased values removed),
        then kept on one line and at most MAX_TITLE_CHARS. Returns the title stored (None: nothing to
        store, or refused); one statement, and none when the title is unchanged."""
        check_scope(scope)
        check_identifier(session, "session")
        if not isinstance(title, str):
            raise ValidationError(f"expected text, got {type(title).__name__}", field="title")
        cleaned, text, _ = self._cleaned(scope, title)
        if cleaned.action == "refuse":
            return None
        if cleaned.action == "skip":  # a trivial text ("thanks") is no turn, but may well be a title
            text, _ = self.ledger.redact_erased(scope, clean_turn_text(title))
        line = " ".join(text.split())
        if len(line) > MAX_TITLE_CHARS:
            line = line[: MAX_TITLE_CHARS - 1].rstrip() + "…"
        if not line or only_redactions(line):
            return None
        with self.storage.atomic():
            self.recorder.set_session_title(scope=scope, session=session, title=line, at=self.ledger.clock())
        return line

    def session_titles(self, sessions: Iterable[str | None], *, scope: str | None = None) -> dict[str, str]:
        """The recorded titles of these sessions, by session (sessions without one are left out)."""
        wanted = sorted({s for s in sessions if s})
        return self.recorder.session_titles(scope=scope, sessions=wanted) if wanted else {}

    def recent_session_titles(self, limit: int = 5) -> list[tuple[str, str]]:
        """(session, title) of the conversations titled most recently, newest first."""
        return self.recorder.recent_session_titles(limit)

    def append_many(self, turns: Iterable[Turn]) -> list[AppendOutcome]:
        """Append turns in one transaction, each checked before any is stored (a bad turn raises and
        writes nothing). The turns go in as one batch: on SQLite their episode lanes are written once
        for the batch (migration 0024), not once per turn."""
        prepared = [self._prepare(t) for t in turns]
        pending = [p for p in prepared if isinstance(p, PendingTurn)]
        if not pending:
            return [p for p in prepared if isinstance(p, AppendOutcome)]
        with self.storage.atomic():
            ids = iter(self.recorder.append_turns(
                [(p.turn, p.hash, p.redactions) for p in pending], appended_at=self.ledger.clock()
            ))
            return [p if isinstance(p, AppendOutcome) else self._outcome(p, next(ids)) for p in prepared]

    # -- reads ----------------------------------------------------------------------------------

    def entry(self, entry_id: int) -> JournalEntry | None:
        return self.recorder.entry(entry_id)

    def backlog(self, *, scopes: Sequence[str] | None = None, limit: int | None = None) -> list[JournalEntry]:
        """Undigested entries, oldest first."""
        return self.recorder.backlog(scopes=scopes, limit=limit)

    def backlog_size(self, *, scopes: Sequence[str] | None = None) -> int:
        return self.recorder.backlog_size(scopes=scopes)

    def recent(self, entry: JournalEntry, count: int) -> list[JournalEntry]:
        """Up to `count` turns said before `entry` in the same scope and session, oldest first."""
        if count <= 0:
            return []
        return self.recorder.recent(entry, count)

    def entries(self, *, scope: str | None = None, limit: int = 100) -> list[JournalEntry]:
        return self.recorder.entries(scope=scope, limit=limit)


def lease(ledger: Ledger, entries: Sequence[JournalEntry], holder: str, seconds: float) -> list[JournalEntry]:
    """The entries this digest run may extract: those still undigested that no other live run holds,
    now leased to `holder` for `seconds`. One write transaction, so two runs never both get an entry."""
    if not entries:
        return []
    now = ledger.clock()
    until = format_time(to_datetime(now) + timedelta(seconds=seconds))
    ids = [e.id for e in entries]
    with ledger.storage.atomic():
        recorder = recorder_for(ledger.storage)
        for other in recorder.lease_holders(ids):
            if other != holder and holder_is_gone(other):  # a run cut off mid-digest (a CLI that exited)
                recorder.release(ids, holder=other)
        held = recorder.lease(ids, holder=holder, now=now, until=until)
    return [e for e in entries if e.id in held]


def new_holder() -> str:
    """A digest run's name on its leases: `host:pid:run` (holder_is_gone reads the host and pid back)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def holder_is_gone(holder: str) -> bool:
    """Whether a lease's holder (`host:pid:run`, from `new_holder`) is a process of this host
    that has ended. Hermes's CLI exits with its last digest unfinished (it waits only
    `digest.exit_wait_seconds`), and the next session should not wait out that run's lease. Holders on
    other hosts, and processes that still run (or whose state this process cannot see), keep theirs."""
    host, _, rest = holder.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit() or int(pid_text) == os.getpid():
        return False
    try:
        os.kill(int(pid_text), 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return True
    except OSError:  # PermissionError: it exists, as another user's process
        return False
    return False


def release(ledger: Ledger, entries: Sequence[JournalEntry], holder: str) -> None:
    """End `holder`'s leases on these entries (committed, or given up)."""
    if entries:
        with ledger.storage.atomic():
            recorder_for(ledger.storage).release([e.id for e in entries], holder=holder)


def prune_said_before(ledger: Ledger, before: object, *, scopes: Sequence[str] | None = None) -> int:
    """Retention: remove the turns said before `before` that the digest is done with (undigested ones
    wait for it). Their episodes leave recall with them (the journal's triggers drop the FTS rows and
    queue the vector deletions); the facts they became stay, citing `journal:<id>` as their source,
    and so do the proposals (the review record). Returns turns removed. Erase, not retention, is how a
    value leaves everything."""
    cutoff = parse_time(before, "before")
    with ledger.storage.atomic():
        return recorder_for(ledger.storage).prune_digested(said_before=cutoff, scopes=scopes)


def journal_ids(refs: Iterable[str]) -> list[int]:
    """The journal entry ids among provenance references ('journal:<id>'); other refs are ignored."""
    ids: list[int] = []
    for ref in refs:
        if not isinstance(ref, str):
            raise ValidationError("references must be strings", field="refs")
        match = _REF.match(ref.strip())
        if match and int(match.group(1)) not in ids:
            ids.append(int(match.group(1)))
    return ids


def erase_journal(ledger: Ledger, refs: Iterable[str]) -> int:
    """Hard-delete the journal entries named by `journal:<id>` refs (following an erase's provenance),
    with the proposals derived from them (they quote the erased text). Returns entries removed."""
    ids = journal_ids(refs)
    if not ids:
        return 0
    recorder = recorder_for(ledger.storage)
    removed = 0
    with ledger.storage.atomic():
        for entry_id in ids:
            recorder.delete_derived_proposals(entry_id)
            removed += recorder.delete_entry(entry_id)
    return removed
