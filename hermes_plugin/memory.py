"""One provider instance's memory: the ledger, journal, digest and recall composed for one Hermes identity.

Connections to the ledger file: `reader` serves the history tool, the process's shared Recall (see
shared_recall.py) serves prefetch and search, `writer` serves the journal, explicit writes and the
background digest. SQLite lets one
writer in at a time across every connection and process (BEGIN IMMEDIATE with a busy timeout), and WAL
keeps readers from waiting on it, so a digest batch never stalls a prefetch. On PostgreSQL (the
`database_url` setting) all three draw from one pool per process: each transaction holds its own
connection, writers queue on the ledger's head row, and readers never wait for them.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import logging
import os
import shutil
import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from factledger.digest import (
    DigestConfig, Digester, Journal, JournalEntry, Turn, UndoResult, build_extractor, erase_journal, forget,
    prune_said_before, remember, session_turns, undo_entries,
)
from factledger.digest.journal import MAX_TITLE_CHARS
from factledger.ledger import LedgerError, ValidationError
from factledger.ledger.chain_key import KeyFile
from factledger.ledger.head import Head, last_recorded_head, take_head
from factledger.ledger.head import record_head as record_head_file
from factledger.ledger.times import format_time, to_datetime
from factledger.recall import RecallConfig
from factledger.recall.render import one_line

from . import shared_recall
from .notices import Notices
from .paths import HermesPaths
from .scope import HermesIdentity, ScopeSet, derive_scopes
from .settings import ProviderSettings
from .transcript import HostMessage, SessionState, read_session
from .tools import (
    FORGET, HISTORY, PROFILE, REMEMBER, SEARCH, ForgetArgs, HistoryArgs, ProfileArgs, RememberArgs, SearchArgs, parse_arguments,
)
from .worker import DigestWorker

logger = logging.getLogger(__name__)

# The vector lane (LanceDB and the embedder: ~1-4 s to load, CPU that Hermes's own start-up competes for) is
# loaded from this prefetch on: a one-question process (`hermes chat -q`) never pays for it, and its exit
# never waits for it; the outbox keeps the session's changes for the next process that loads it.
WARM_AT_PREFETCH = 2
SESSION_END_WAIT = 30.0  # seconds `digest_pending(wait=True)` waits for a library caller
# An exit digest still running after this long is told on the user's screen, with the wait it may take.
SLOW_EXIT_NOTICE = 1.0
# Hermes journals a finished turn (sync_turn) on its background worker, and runs the next turn's
# prefetch on another thread without waiting for it: prefetch waits at most this long for the turns
# owed, so what was just said is in the block ("said since"), never longer (a turn Hermes does not sync,
# an empty one, is not waited for again).
SYNC_WAIT = 1.0
DELEGATION_TASK_CHARS = 300  # the task is context for the result, not evidence itself
PROFILE_LINE_CHARS = 300  # one fact of the profile list; the value policy caps values, this caps the line
MEMORY_WRITE_WORDS = {"add": "Noted in", "replace": "Updated in", "remove": "Removed from"}


def _same_words(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def undone_entries(entries: Sequence[JournalEntry], host: Sequence[HostMessage],
                   stored_text: Callable[[str], str | None]) -> list[JournalEntry]:
    """The entries of one session (oldest first) whose turn an /undo took back, given the host's user
    messages of that session in order, undone ones included (`host`). User entries are matched in order
    with the messages whose journaled form (`stored_text`; None: a message journaled as nothing) has
    the same words; an entry matched with an undone message is undone, with the entries after it up to
    the next user entry (the answer). An entry with no match stays (pure)."""
    forms: dict[int, str | None] = {}
    position, taking, undone = 0, False, []
    for entry in entries:
        if entry.role == "user":
            taking = False
            for i in range(position, len(host)):
                if i not in forms:
                    forms[i] = stored_text(host[i].text)
                form = forms[i]
                if form is not None and _same_words(form, entry.text):
                    position, taking = i + 1, not host[i].active
                    break
        if taking:
            undone.append(entry)
    return undone


def digest_config(settings: ProviderSettings, environ: Mapping[str, str], notices: Notices | None = None) -> DigestConfig:
    """The settings file's model when it names one, else the digest's own FACTLEDGER_DIGEST_* variables
    (read now, at session start); the policy always comes from the settings file."""
    model = settings.model
    if model.from_hermes:  # the profile's own model, resolved now; none usable: the rules extractor
        from .setup import hermes_profile_model

        host = hermes_profile_model()
        if host is None:
            (notices or Notices()).warn("the Hermes profile has no OpenAI-compatible model; digesting with the offline rules")
            return DigestConfig.from_env({}, policy=settings.policy)
        return DigestConfig(base_url=host.base_url, model=host.name, api_key=host.api_key or None, policy=settings.policy)  # type: ignore[arg-type]
    if not model.configured:
        return DigestConfig.from_env(environ, policy=settings.policy)
    return DigestConfig(base_url=model.base_url, model=model.name, api_key=model.api_key(environ) or None,
                        policy=settings.policy)  # type: ignore[arg-type]


def digest_batch(digester: Digester, ledger: Any, settings: ProviderSettings, scopes: Sequence[str], notices: Notices) -> int:
    """One batch of the backlog of `scopes` (the in-process worker's, and the digest after exit's), then
    the journal's retention. Returns the entries digested (0: none left)."""
    report = digester.run(limit=settings.batch_size, scopes=scopes)
    if report.errors:
        logger.warning("factledger: digest left %d entries undigested: %s", report.backlog, "; ".join(report.errors[:3]))
        notices.warn(f"some turns could not be digested ({report.errors[0]}); they stay in the journal "
                     "and are retried", key="digest-errors")
    if settings.retention_days > 0:
        cutoff = to_datetime(ledger.clock()) - timedelta(days=settings.retention_days)
        prune_said_before(ledger, format_time(cutoff), scopes=scopes)
    return report.entries_digested


def record_head(paths: HermesPaths, location: Path | str, ledger: Any, notices: Notices) -> Head | None:
    """Append the ledger's signed head to the heads file beside the settings (when it moved since the
    last one recorded there), so a later `factledger verify` proves the ledger still extends it."""
    path = paths.heads_path(location)
    try:
        head = take_head(ledger.storage, ledger.chain_key)
        last = last_recorded_head(path)
        if last is not None and (last.ledger_id, last.tx, last.chain_hash) == (head.ledger_id, head.tx, head.chain_hash):
            return None
        record_head_file(path, head)
        return head
    except (LedgerError, OSError) as exc:
        notices.warn(f"the ledger's head could not be recorded in {path}: {exc}", key="head-not-recorded")
        return None


def _forget_legacy_index(paths: HermesPaths, recall: Any) -> None:
    """Earlier versions kept the provider's vectors in $HERMES_HOME/factledger/lancedb while the CLI used
    `<ledger>.lance`, so an operator's erase never reached them. The index is derived data: the folder
    the ledger records is rebuilt from the ledger, and the old one goes."""
    legacy = paths.legacy_index_dir
    if legacy.exists() and legacy.resolve() != recall.index_dir.resolve():
        shutil.rmtree(legacy, ignore_errors=True)
        logger.info("factledger: removed the old vector folder %s (the index lives in %s)", legacy, recall.index_dir)


class MemorySession:
    """Everything one provider instance does; owns its connections and its worker thread."""

    _recall_released = False  # set at close: a drain still running must not use the released recall
    _vectors_wanted = False  # set at the WARM_AT_PREFETCH-th prefetch: the worker then loads the vector lane
    _prefetches = 0
    _exit_handed_over = False  # the exit left this session's backlog to the digest after exit

    def __init__(self, paths: HermesPaths, identity: HermesIdentity, settings: ProviderSettings,
                 environ: Mapping[str, str] | None = None, *, clock: Callable[[], str] | None = None,
                 notices: Notices | None = None):
        self.paths = paths
        self.notices = notices or Notices()
        self._exit_deadline: float | None = None  # set by the first of on_session_end / shutdown
        self.settings = settings
        self._lock = threading.Lock()  # guards identity/scopes (switch_session) and the written-scope set
        self._identity = self._with_session(identity)
        self._scopes = self._derive(self._identity)
        self._written: set[str] = set()
        self._titles: dict[str, str] = {}  # the host's title last recorded, by session (as Hermes gave it)
        # What the last few prefetches showed: still in the conversation's context, so not repeated
        # (`recall.repeat_after_turns`); cleared when the context is compressed or the session changes.
        self._recently_shown: collections.deque[set[tuple[str, int]]] = collections.deque(
            maxlen=settings.repeat_after_turns
        )
        # An operator-excluded chat or platform: no journal, no recall, no tools (settings `exclude`).
        self.excluded = settings.excludes(self._identity.platform, self._identity.chat_id)
        self.prefetch_failures = 0  # counted (and logged): Hermes itself would only log them at DEBUG
        # Turns Hermes started and turns it synced (sync_turn calls), for prefetch's wait (SYNC_WAIT).
        self._turns = threading.Condition()
        self._turns_started: int | None = None
        self._turns_synced = 0
        config = digest_config(settings, os.environ if environ is None else environ, self.notices)
        recall_config = RecallConfig.preset(settings.recall_configuration) if settings.recall_configuration else None
        paths.state_dir.mkdir(parents=True, exist_ok=True)
        with contextlib.ExitStack() as undo:  # on any failure below, close what was opened
            location = settings.ledger_location(paths.ledger_path)  # the database_url setting, else ledger.db
            # On PostgreSQL both draw from the process's pool (shared_recall.open_ledger).
            # The chain key beside the settings (ledger.db.chain-key; chain.key for a database URL): made on
            # first use, it keys the ledger's hash chain; heads are recorded beside it when a session ends.
            self._location = location
            key = KeyFile(paths.chain_key_path(location))
            self.writer = shared_recall.open_ledger(location, clock=clock, chain_key=key)
            undo.callback(shared_recall.close_ledger, self.writer)
            self.reader = shared_recall.open_ledger(location, clock=clock, chain_key=key)
            undo.callback(shared_recall.close_ledger, self.reader)
            self.recall = shared_recall.acquire(location, recall_config, clock=clock)
            undo.callback(shared_recall.release, self.recall)
            _forget_legacy_index(paths, self.recall)
            self.journal = Journal(self.writer)
            undo.pop_all()
        # The extractor (the rules' patterns: ~0.5 s of CPU to import; a model's client) is built by the
        # first digest, on the worker: a session that digests nothing in this process never loads it.
        self._digest_config = config
        self._digester: Digester | None = None
        self._digester_lock = threading.Lock()
        self.handed_over: Any = None  # the digest after exit's process (after_exit.hand_over), once started
        if self.excluded:
            self._purge_excluded_backlog()
        self.worker = DigestWorker(
            self._digest_batch,
            batch_size=settings.batch_size,
            max_delay=settings.max_delay_seconds,
            name=f"factledger-digest-{self._identity.session_id[:12]}",
            after_drain=self._sync_index,
            on_failure=lambda error: self.notices.warn(
                f"digesting this session's turns failed ({error}); they stay in the journal and are retried",
                key="digest-failed"),
        )
        # No warm-up here: the vector lane loads from the WARM_AT_PREFETCH-th prefetch (want_vectors).
        self._digest_left_behind()

    @classmethod
    def open(cls, paths: HermesPaths, identity: HermesIdentity, *, environ: Mapping[str, str] | None = None,
             clock: Callable[[], str] | None = None, notices: Notices | None = None) -> "MemorySession":
        return cls(paths, identity, ProviderSettings.load(paths.settings_path), environ, clock=clock, notices=notices)

    @staticmethod
    def _with_session(identity: HermesIdentity) -> HermesIdentity:
        if identity.session_id:
            return identity
        # No session id (Hermes always gives one; a host embedding us might not): a private scratch scope.
        return dataclasses.replace(identity, session_id=f"anonymous-{uuid.uuid4().hex}")

    def _derive(self, identity: HermesIdentity) -> ScopeSet:
        """The identity's scopes under the operator's settings: the alias map and the group-chat switch."""
        scopes = derive_scopes(identity, self.settings.aliases)
        recalls = self.settings.recalls_long_term(identity.platform, identity.chat_id, identity.chat_type)
        return scopes if recalls else dataclasses.replace(scopes, recalls_long_term=False)

    @property
    def digester(self) -> Digester:
        """This session's digester, built on first use (see __init__)."""
        with self._digester_lock:
            if self._digester is None:
                config = self._digest_config
                self._digester = Digester(self.writer, build_extractor(config), policy=config.policy,
                                          context_turns=config.context_turns)
            return self._digester

    @property
    def identity(self) -> HermesIdentity:
        return self._identity

    @property
    def scopes(self) -> ScopeSet:
        return self._scopes

    # -- lifecycle --------------------------------------------------------------------------------

    def forget_shown(self) -> None:
        """The context that held the recently shown items is gone (compressed, or a new session)."""
        with self._lock:
            self._recently_shown.clear()

    def switch_session(self, session_id: str, *, reset: bool, reason: str = "") -> None:
        """Hermes rotated the session id. A new conversation (/new, reset) or a resumed one gets that
        session's scratch scope; compression and /branch continue this conversation, so its scratch
        stays (only the journal's session label changes)."""
        self.worker.flush(wait=False)
        self.forget_shown()  # the conversation's context was rebuilt or replaced
        with self._lock:
            self._identity = dataclasses.replace(self._identity, session_id=session_id)
            if reset or reason in ("new_session", "resume"):
                self._scopes = self._derive(self._identity)

    def _exit_time_left(self) -> float:
        """What is left of the one wait (`digest.exit_wait_seconds`) that session end and shutdown
        share: Hermes calls both on exit, and an earlier version waited 30 s in each."""
        with self._lock:
            if self._exit_deadline is None:
                self._exit_deadline = time.monotonic() + self.settings.exit_wait_seconds
            return max(0.0, self._exit_deadline - time.monotonic())

    def _digest_left_behind(self) -> None:
        """Turns an earlier process journaled in this conversation's scope and did not digest (its exit
        did not wait for them, or it ended first) are digested now, on the worker: the session's start
        and first turn do not wait for them, and their episodes are in recall already."""
        if self.excluded or not self._identity.is_primary:
            return
        left = self.journal.backlog_size(scopes=[self._scopes.turns])
        if left:
            logger.info("factledger: digesting %d journal entries an earlier session left", left)
            self.worker.flush(wait=False)

    def end_session(self) -> bool:
        """Hermes's on_session_end: digest what is pending, waiting at most what is left of the exit wait.
        True when everything was digested. What is not stays in the journal: the worker goes on (a
        gateway process lives on), or the next session digests it (the CLI exits). A digest still
        running after SLOW_EXIT_NOTICE seconds is told on the screen, so a waiting exit is explained.
        At Hermes's CLI exit a digest that would load its extractor (or call a model) goes to a process
        of its own instead (`_hand_over_at_exit`), and this returns False at once."""
        if self._hand_over_at_exit():
            return False
        self.worker.flush(wait=False)
        left = self._exit_time_left()
        if left <= SLOW_EXIT_NOTICE:  # a wait this short is told only if it ends undone (close)
            return self.worker.wait(left)
        if self.worker.wait(SLOW_EXIT_NOTICE):
            return True
        self.notices.warn(f"the last digest is slow; exit waits for it up to {self.settings.exit_wait_seconds:g} s in all "
                          "(digest.exit_wait_seconds); what it does not finish stays in the journal and "
                          "the next session digests it", key="slow-exit-digest")
        return self.worker.wait(self._exit_time_left())

    def record_head(self) -> Head | None:
        """Append the ledger's signed head to the heads file beside the settings (module `record_head`)."""
        return record_head(self.paths, self._location, self.writer, self.notices)

    def _hand_over_at_exit(self) -> bool:
        """At Hermes's CLI exit (after_exit.host_is_exiting), the turns this session left undigested are
        digested by a detached process when digesting them here would cost the exit the extractor's
        import (nothing digested yet in this process) or a model's calls; this process's worker then
        ends without digesting. True when handed over (now or earlier). The turns are committed in the
        journal already; if the process cannot start, the next session digests them as it opens."""
        if self._exit_handed_over:
            return True
        from . import after_exit  # standard library only

        if not after_exit.host_is_exiting() or self.excluded or not self._identity.is_primary:
            return False
        if self.worker.busy:  # a digest is under way in this process: let it finish within the exit wait
            return False
        with self._digester_lock:
            digester = self._digester
        if digester is not None and not self._digest_config.uses_model:
            return False  # the rules are loaded: digesting the last turns here takes milliseconds
        scopes = self._digest_scopes()
        left = self.journal.backlog_size(scopes=scopes)
        if not left:
            return False
        self._exit_handed_over = True
        self.worker.stop(timeout=1.0, drain=False)
        process = after_exit.hand_over(self.paths.home, scopes)
        if process is None:
            return True  # the worker has stopped; the next session digests them
        self.handed_over = process
        logger.info("factledger: the exit handed the digest of %d journal entries to process %d (log: %s)",
                    left, process.pid, after_exit.log_path(self.paths.home))
        return True

    def close(self) -> None:
        self._hand_over_at_exit()
        stopped = self.worker.stop(timeout=self._exit_time_left())
        if stopped:
            self.record_head()
        self._recall_released = True
        shared_recall.release(self.recall)
        shared_recall.close_ledger(self.reader)
        if stopped:
            shared_recall.close_ledger(self.writer)
        elif self.settings.exit_wait_seconds == 0:  # the operator chose an exit that waits for no digest
            logger.info("factledger: exit left the digest running; the next session digests what it does not finish")
        else:  # the worker still uses the writer; its entries stay in the journal for the next session
            self.notices.warn(f"the last digest did not finish within {self.settings.exit_wait_seconds:g} s; "
                              "its turns stay in the journal and the next session digests them")

    # -- the turn ---------------------------------------------------------------------------------

    def turn_started(self, turn_number: int) -> None:
        """Hermes's on_turn_start: turn `turn_number` (counted from 1, resumed conversations included)
        begins, so every turn before it finished and its sync_turn is on Hermes's worker."""
        with self._turns:
            if self._turns_started is None:  # the first turn this instance sees: nothing owed before it
                self._turns_synced = turn_number - 1
            self._turns_started = turn_number

    def turn_synced(self) -> None:
        with self._turns:
            self._turns_synced += 1
            self._turns.notify_all()

    def _wait_for_owed_turns(self) -> None:
        """Until the turns before this one are journaled (at most SYNC_WAIT)."""
        with self._turns:
            started = self._turns_started
            if started is None:
                return
            if not self._turns.wait_for(lambda: self._turns_synced >= started - 1, timeout=SYNC_WAIT):
                self._turns_synced = started - 1  # not coming (a turn Hermes did not sync): not again

    def prefetch(self, query: str) -> str:
        """The recall block for this turn's message ('' when nothing relevant clears the gate). The
        previous turns are journaled first (their episodes count at once: "said since")."""
        if self.excluded or not query or not query.strip():
            return ""
        self._wait_for_owed_turns()
        self._prefetches += 1
        if self._prefetches >= WARM_AT_PREFETCH:
            self.want_vectors()
        try:
            # Never wait for the vector lane inside the turn (Hermes drops a prefetch after 8 s): until
            # the worker has loaded it, the lexical and exact lanes answer alone.
            with self._lock:
                shown = set().union(*self._recently_shown)
            block = self.recall.prompt(query, self._scopes.readable, vectors="if_ready", leave_out=shown)
            with self._lock:
                self._recently_shown.append({hit.key for hit in block.hits})
            return block.text
        except Exception:  # recall must never break a turn
            self.prefetch_failures += 1
            logger.warning("factledger: prefetch failed", exc_info=True)
            self.notices.warn("recall failed for this turn; see Hermes's log", key="prefetch-failed")
            return ""

    def _speaker(self, role: str) -> str | None:
        if role == "user":
            return self._identity.user_name or None
        return self.settings.assistant_name or None

    def _append(self, scope: str, text: str, role: str) -> int:
        """1 when the text was journaled as a new entry, else 0."""
        return 0 if self._append_entry(scope, text, role) is None else 1

    def _append_entry(self, scope: str, text: str, role: str) -> int | None:
        """The new journal entry's id (None: blank, skipped, refused or a duplicate)."""
        if not text or not text.strip():
            return None
        outcome = self.journal.append(
            Turn(scope=scope, text=text, role=role, session=self._identity.session_id, speaker=self._speaker(role))  # type: ignore[arg-type]
        )
        return outcome.entry_id if outcome.status in ("stored", "redacted") else None

    def record_turn(self, user_content: str, assistant_content: str) -> None:
        """Journal the finished turn (two INSERTs) and let the worker digest it later."""
        identity, scopes = self._identity, self._scopes
        if not identity.is_primary or self.excluded:
            return  # cron, subagent and flush contexts (and excluded chats) must not write memory
        # Hermes titles a session after its first answer and may rename it: read it as it is now
        # (before the turn, so a turn in the journal has its conversation's title beside it).
        host = read_session(self.paths, identity.session_id, messages=False)
        if host is not None and host.title:
            self.name_conversation(host.title)
        ids = [i for i in (self._append_entry(scopes.turns, user_content, "user"),
                           self._append_entry(scopes.turns, assistant_content, "assistant")) if i is not None]
        with self._lock:
            self._exit_deadline = None  # the conversation went on after a session end (gateway): a new wait
        self._note_written(scopes.turns, len(ids))

    def name_conversation(self, title: object) -> None:
        """Record the title Hermes gives this session (initialize's `session_title`, or state.db's), so
        its episodes can name the conversation. Sanitised and kept on one line by the journal."""
        identity, scopes = self._identity, self._scopes
        if not identity.is_primary or self.excluded or not isinstance(title, str) or not title.strip():
            return
        with self._lock:
            if self._titles.get(identity.session_id) == title:
                return
        try:
            self.journal.name_session(scopes.turns, identity.session_id, title)
        except LedgerError as exc:
            logger.warning("factledger: the session title was not recorded: %s", exc)
            return
        with self._lock:
            self._titles[identity.session_id] = title

    def undo_rewound(self, host: SessionState) -> UndoResult | None:
        """Hermes rewound this session (/undo in the CLI or the gateway): the turns it took back leave
        memory: their entries and episodes, the facts only they support, their pending proposals
        (digest.undo_entries: one transaction). None when no journaled turn was taken back."""
        identity, scopes = self._identity, self._scopes
        if not identity.is_primary or self.excluded:
            return None
        entries = session_turns(self.writer, scope=scopes.turns, session=identity.session_id)
        undone = undone_entries(entries, host.user_messages, lambda text: self.journal.stored_text(scopes.turns, text))
        if not undone:
            return None
        refs = [e.ref for e in undone]
        who = identity.user_name or identity.user_id or "the user"
        result = undo_entries(self.writer, refs, principal=identity.principal,
                              reason=f"/undo by {who} in Hermes session {identity.session_id}")
        self.forget_shown()  # the blocks shown during the undone turns left the context with them
        logger.info("factledger: /undo took back %d journal entries: %s", len(refs), result.summary())
        return result

    def record_memory_write(self, action: str, target: str, content: str) -> None:
        """Hermes's built-in memory tool wrote a note: keep it as evidence (an assistant turn)."""
        identity, scopes = self._identity, self._scopes
        if not identity.is_primary or self.excluded or action not in MEMORY_WRITE_WORDS or not content:
            return
        text = f"{MEMORY_WRITE_WORDS[action]} Hermes memory ({target}): {content}"
        self._note_written(scopes.turns, self._append(scopes.turns, text, "assistant"))

    def record_delegation(self, task: str, result: str) -> None:
        """A subagent finished: what it returned is evidence, journaled as the assistant's turn that says so."""
        if not self._identity.is_primary or self.excluded or not result or not result.strip():
            return
        text = f"A subagent I delegated to (task: {one_line(task, DELEGATION_TASK_CHARS)}) returned: {result}"
        self._note_written(self._scopes.turns, self._append(self._scopes.turns, text, "assistant"))

    def _purge_excluded_backlog(self) -> None:
        """An excluded chat's undigested turns in its own scope go (they were journaled before the
        exclusion); turns already digested are facts now, and erase is how those leave."""
        entries = self.journal.backlog(scopes=[self._scopes.scratch])
        if entries:
            removed = erase_journal(self.writer, [f"journal:{e.id}" for e in entries])
            logger.info("factledger: removed %d undigested turns of an excluded chat", removed)

    def _note_written(self, scope: str, stored: int) -> None:
        if stored:
            with self._lock:
                self._written.add(scope)
            self.worker.notify(stored)

    def digest_pending(self, *, wait: bool) -> bool:
        """Digest what this session left (on the worker's thread). With wait, until done or the timeout."""
        return self.worker.flush(wait=wait, timeout=SESSION_END_WAIT)

    # -- background -------------------------------------------------------------------------------

    def _digest_scopes(self) -> list[str]:
        with self._lock:
            return sorted(self._written | {self._scopes.turns})

    def _digest_batch(self) -> int:
        scopes = self._digest_scopes()
        with self._digester_lock:
            built = self._digester is not None
        if not built and not self.journal.backlog_size(scopes=scopes):
            return 0  # nothing to digest: the extractor is not loaded for nothing
        return digest_batch(self.digester, self.writer, self.settings, scopes, self.notices)

    def want_vectors(self) -> None:
        """Load the vector lane (and drain the index outbox) on the worker, off the turn's thread."""
        if not self._vectors_wanted:
            self._vectors_wanted = True
            self.worker.upkeep()

    def _sync_index(self) -> None:
        """After a drain: write the vector index's outbox into LanceDB, when this process has the vector
        lane loaded or wants it (and is not exiting). Otherwise the outbox keeps the changes (lexical
        recall already sees them) and the next process that loads the lane drains it."""
        if self._recall_released:  # the session ended while this drain ran on: the next session syncs
            return
        if not self.recall.vectors_ready and (not self._vectors_wanted or self._exit_deadline is not None):
            return
        self.recall.sync()

    # -- tools ------------------------------------------------------------------------------------

    def call_tool(self, tool: str, raw_args: Any) -> dict[str, Any]:
        args = parse_arguments(tool, raw_args)
        if self.excluded:
            raise ValidationError("this chat is excluded from memory by the operator (factledger settings: exclude)", field="tool")
        if tool == SEARCH:
            return self._search(args)  # type: ignore[arg-type]
        if tool == HISTORY:
            return self._history(args)  # type: ignore[arg-type]
        if tool == REMEMBER:
            return self._remember(args)  # type: ignore[arg-type]
        if tool == FORGET:
            return self._forget(args)  # type: ignore[arg-type]
        if tool == PROFILE:
            return self._profile(args)  # type: ignore[arg-type]
        raise ValidationError(f"{tool!r} is not a factledger tool", field="tool")

    def _label(self, scope: str) -> str:
        return "long_term" if scope == self._scopes.durable else "this_chat"

    def _search(self, args: SearchArgs) -> dict[str, Any]:
        hits = self.recall.search(args.query, self._scopes.readable, valid_at=args.valid_at, known_at=args.known_at,
                                  limit=args.limit)
        titles = Journal(self.reader).session_titles(h.episode.session for h in hits if h.claim is None)
        return {
            "as_of": {"valid_at": args.valid_at or "now", "known_at": args.known_at or "now"},
            "results": [self._result(hit, titles) for hit in hits],
        }

    def _result(self, hit: Any, titles: Mapping[str, str]) -> dict[str, Any]:
        if hit.claim is None:  # an episode: what was said, evidence rather than a fact
            episode = hit.episode
            title = titles.get(episode.session or "")
            return {
                "kind": "said",
                "excerpt": hit.sentence,
                "speaker": episode.speaker,
                "said_at": episode.said_at,
                "conversation": one_line(title, MAX_TITLE_CHARS) if title else None,  # the host's session title
                "memory": self._label(episode.scope),
            }
        return {
            "kind": "fact",
            "fact": hit.sentence,
            "subject": hit.claim.subject,
            "predicate": hit.claim.predicate,
            "value": hit.claim.value,
            "valid_from": hit.claim.valid_from,
            "valid_to": hit.claim.valid_to,
            "memory": self._label(hit.claim.scope),
            "claim_id": hit.claim.id,
        }

    def _history(self, args: HistoryArgs) -> dict[str, Any]:
        entries = self.reader.history(list(self._scopes.readable), subject=args.subject, predicate=args.predicate)
        versions = []
        for entry in entries:
            v = entry.version
            versions.append(
                {
                    "value": v.value,
                    "valid_from": v.valid_from,
                    "valid_to": v.valid_to,
                    "known_from": v.tx_from,
                    "known_to": v.tx_to,
                    "current_belief": v.tx_to is None,
                    "memory": self._label(v.scope),
                    "recorded_by": {"principal": entry.opened.principal, "at": entry.opened.tx_time, "reason": entry.opened.reason},
                    "superseded_by": None if entry.closed is None else
                    {"principal": entry.closed.principal, "at": entry.closed.tx_time, "reason": entry.closed.reason},
                }
            )
        return {"subject": args.subject, "predicate": args.predicate, "versions": versions}

    def _profile(self, args: ProfileArgs) -> dict[str, Any]:
        """The current facts of this user's readable scopes, about the user first, one line each, in the
        words the recall block uses: each predicate's template ("user's name is Noor", not "user name Noor")."""
        from factledger.recall.text import sentence

        facts = self.reader.current(list(self._scopes.readable))
        facts.sort(key=lambda c: (c.subject != "user", c.subject, c.predicate, c.valid_from))
        predicates = {p.name: p for p in self.reader.predicates()}

        def words(c: Any) -> str:
            predicate = predicates.get(c.predicate)
            return predicate.render(c.subject, c.value) if predicate else f"{c.subject} {c.predicate.replace('_', ' ')} {c.value}"

        shown = [
            {"fact": sentence(one_line(words(c), PROFILE_LINE_CHARS), c.valid_from, c.valid_to, c.tx_from),
             "memory": self._label(c.scope), "claim_id": c.id}
            for c in facts[: args.limit]
        ]
        return {"facts": shown, "total": len(facts), "more": max(0, len(facts) - args.limit)}

    def _check_may_write(self) -> None:
        if not self._identity.is_primary:
            raise ValidationError(
                f"this agent context ({self._identity.agent_context}) may read memory but not change it", field="tool"
            )

    def _source(self) -> str:
        return f"hermes:session:{self._identity.session_id}"

    def _remember(self, args: RememberArgs) -> dict[str, Any]:
        self._check_may_write()
        scope = self._scopes.for_keep(args.keep)
        result = remember(
            self.writer, scope=scope, subject=args.subject, predicate=args.predicate, value=args.value,
            principal=self._identity.principal, valid_from=args.valid_from, valid_to=args.valid_to,
            cardinality=args.cardinality, reason=args.reason, source=self._source(),
        )
        self._index_soon(result.tx)
        return {**result.to_dict(), "memory": args.keep}

    def _forget(self, args: ForgetArgs) -> dict[str, Any]:
        self._check_may_write()
        scope = self._scopes.for_keep(args.keep)
        result = forget(
            self.writer, scope=scope, subject=args.subject, predicate=args.predicate, value=args.value,
            principal=self._identity.principal, valid_from=args.valid_from, all_valid_time=args.all_valid_time,
            reason=args.reason,
        )
        self._index_soon(result.tx)
        return {**result.to_dict(), "memory": args.keep}

    def _index_soon(self, tx: int | None) -> None:
        """An applied write queued vector rows: index them on the worker, not in the next prefetch."""
        if tx is not None:
            self.worker.flush(wait=False)
