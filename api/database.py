"""`factledger.open(path)`: one object with the everyday verbs over one ledger file.

It composes the parts (ledger, recall, digest, analytics) and adds no logic of its own: every verb is one
call into a part, so the front door, the CLI and the Hermes provider behave the same.

Time values: **out**, every timestamp is the ledger's canonical UTC string
(`2024-06-01T08:00:00.000000Z`; fixed width, so comparing strings compares times), in claim versions,
transactions, episodes and SQL rows alike (DuckDB's TIMESTAMP values are converted in `sql`). **In**,
every time argument takes text — that string, an ISO date (`2024-06-01`, midnight UTC), an ISO datetime
with an offset (`2024-06-01T10:00:00+02:00`, `…Z`) or without one, which is UTC as on every other input
path (CLI, JSON Lines, SQL) — a timezone-aware `datetime` or a `date`. A naive `datetime` object is
refused (ValidationError naming the argument): Python's naive datetimes are local time by convention, so
reading one as UTC would shift `datetime.now()` by the machine's offset unnoticed.
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factledger.digest import AppendOutcome, DigestConfig, DigestReport, Digester, Journal, Turn, build_extractor
from factledger.ledger import (
    BUSY_TIMEOUT,
    ClaimVersion,
    HistoryEntry,
    Ledger,
    LedgerTx,
    NotFoundError,
    Predicate,
    TxResult,
    ValidationError,
)
from factledger.ledger.chain_key import ChainKey
from factledger.ledger.engines import default_principal, describe_location, ledger_exists
from factledger.ledger.store import DEFAULT_KEY
from factledger.ledger.times import format_time
from factledger.recall import KINDS, Episode, Hit, Memory, PromptBlock, Recall, RecallConfig

if TYPE_CHECKING:
    from factledger.ledger.analytics.engine import QueryResult

TimeLike = str | datetime | Any  # str, aware datetime or date: see the module docstring
Scopes = Sequence[str] | str


class UndeclaredPredicateWarning(UserWarning):
    """A write named a predicate that was never defined; it was registered as 'many' with the default
    template. Define it first, or open with strict_predicates=True to refuse such writes."""


def _canonical(value: Any) -> Any:
    """A SQL value with DuckDB's TIMESTAMP (naive, in UTC) as the canonical string the rest of the API uses."""
    if isinstance(value, datetime):
        return format_time(value if value.tzinfo else value.replace(tzinfo=timezone.utc))
    return value


class Database:
    """A ledger file with the everyday verbs: write facts, read them now or as of any time, search them,
    journal conversation turns and digest them, run SQL. Use it as a context manager or call `close()`.

    Obtain one with `factledger.open(path)`. A write naming a predicate never defined registers it as
    'many' and lists it in the result's `undeclared`; strict_predicates=True refuses it instead (a
    ValidationError that suggests the closest defined name). Each write verb (`define`, `add`, `supersede`, `retract`) is
    one ledger transaction; `transaction()` groups several into one. The parts stay reachable for what
    the verbs do not cover: `.ledger` (factledger.ledger.Ledger) and `.recall` (factledger.recall.Recall).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        principal: str | None = None,
        create: bool = True,
        read_only: bool = False,
        index_dir: str | Path | None = None,
        recall_config: RecallConfig | str = "balanced",
        strict_predicates: bool = False,
        busy_timeout: float = BUSY_TIMEOUT,
        chain_key: ChainKey | None | object = DEFAULT_KEY,
    ):
        # A URL is kept whole (the engine needs it); messages and repr use `location`, password masked.
        self.path = str(path)
        self.location = describe_location(path)
        exists = ledger_exists(path)
        if (read_only or not create) and not exists:
            raise NotFoundError(
                f"no ledger at {self.location}; check the path (a new ledger is created only by a write: "
                "factledger.open(path), or `factledger apply` / `journal add` / `import` / `demo`)",
                field="path",
            )
        self.created = not exists and self.path != ":memory:"
        self.principal = principal or default_principal()
        self.ledger = Ledger.open(path, read_only=read_only, strict_predicates=strict_predicates, timeout=busy_timeout,
                                  chain_key=chain_key)  # type: ignore[arg-type]
        self._index_dir = Path(index_dir) if index_dir is not None else None
        self._recall_config = RecallConfig.preset(recall_config) if isinstance(recall_config, str) else recall_config
        self._recall: Recall | None = None

    # -- lifetime ---------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the vector index and the ledger file. Idempotent."""
        if self._recall is not None:
            self._recall.close()
            self._recall = None
        self.ledger.close()

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<factledger.Database {self.location!r} as {self.principal}>"

    @property
    def recall(self) -> Recall:
        """Search and the prompt block (loaded on first use: the vector lane costs about a second)."""
        if self._recall is None:
            self._recall = Recall(self.ledger, self._index_dir, config=self._recall_config)
        return self._recall

    # -- writes -----------------------------------------------------------------------------------

    @contextmanager
    def transaction(self, *, reason: str = "", sources: Iterable[str] = (), tx_time: TimeLike | None = None) -> Iterator[LedgerTx]:
        """Several operations as one ledger transaction: all commit together or none does.

        >>> with db.transaction(reason="moved") as tx:
        ...     tx.supersede("s", "user", "lives_in", "Berlin", valid_from="2024-06-01")
        ...     tx.add("s", "user", "works_at", "Acme")

        The result is `tx.result` (a TxResult) once the block has ended. tx_time is for imports only
        (principal import:<source>), later than every earlier transaction.
        """
        with self._write(reason=reason, sources=sources, tx_time=tx_time) as tx:
            yield tx
        _warn_undeclared(tx.result, stacklevel=4)  # the with block's line: past this generator and contextlib

    def _write(self, *, reason: str = "", sources: Iterable[str] = (), tx_time: TimeLike | None = None) -> Any:
        return self.ledger.transaction(principal=self.principal, reason=reason, sources=sources, tx_time=tx_time)

    def define(
        self, predicate: str, cardinality: str = "many", *, template: str | None = None, description: str | None = None
    ) -> Predicate:
        """Register a predicate with its cardinality ('one': a slot holds one value at a time; 'many'), or
        update its template ("{subject} lives in {value}") and description. Cardinality is fixed once set."""
        with self._write(reason=f"define {predicate}") as tx:
            return tx.define(predicate, cardinality, template=template, description=description)

    def add(
        self,
        scope: str,
        subject: str,
        predicate: str,
        value: str,
        *,
        valid_from: TimeLike | None = None,
        valid_to: TimeLike | None = None,
        source: str | Sequence[str] | None = None,
        reason: str = "",
    ) -> TxResult:
        """Assert `value` in the slot (scope, subject, predicate) over [valid_from, valid_to); valid_from
        defaults to now. In a 'one' slot a different overlapping value is a ConflictError."""
        with self._write(reason=reason) as tx:
            tx.add(scope, subject, predicate, value, valid_from=valid_from, valid_to=valid_to, source=source)
        return _warn_undeclared(tx.result, stacklevel=3)

    def supersede(
        self,
        scope: str,
        subject: str,
        predicate: str,
        value: str,
        *,
        valid_from: TimeLike | None = None,
        valid_to: TimeLike | None = None,
        replaces: str | None = None,
        source: str | Sequence[str] | None = None,
        reason: str = "",
    ) -> TxResult:
        """Within [valid_from, valid_to) the slot now holds `value`; what it held there is cut out (kept in
        history). For a 'many' predicate name the value it replaces."""
        with self._write(reason=reason) as tx:
            tx.supersede(
                scope, subject, predicate, value, valid_from=valid_from, valid_to=valid_to, replaces=replaces, source=source
            )
        return _warn_undeclared(tx.result, stacklevel=3)

    def retract(
        self,
        scope: str,
        subject: str,
        predicate: str,
        value: str | None = None,
        *,
        valid_from: TimeLike | None = None,
        valid_to: TimeLike | None = None,
        all_valid_time: bool = False,
        reason: str = "",
    ) -> TxResult:
        """Within [valid_from, valid_to) the value (or, without one, the slot's value) is no longer held;
        all_valid_time=True says it was never true. Nothing is deleted: history keeps what was believed."""
        with self._write(reason=reason) as tx:
            tx.retract(scope, subject, predicate, value, valid_from=valid_from, valid_to=valid_to, all_valid_time=all_valid_time)
        return _warn_undeclared(tx.result, stacklevel=3)

    # -- reads ------------------------------------------------------------------------------------

    def predicates(self) -> list[Predicate]:
        """The predicate registry, by name."""
        return self.ledger.predicates()

    def scopes(self) -> list[str]:
        """Every scope that holds claims."""
        return self.ledger.scopes()

    def current(
        self, scopes: Scopes | None = None, *, subject: str | None = None, predicate: str | None = None
    ) -> list[ClaimVersion]:
        """Current truth: the versions valid now, as the ledger knows it now (every scope by default)."""
        return self.ledger.current(scopes, subject=subject, predicate=predicate)

    def as_of(
        self,
        scopes: Scopes | None = None,
        *,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        subject: str | None = None,
        predicate: str | None = None,
    ) -> list[ClaimVersion]:
        """What was true at `valid_at` (default now), as the ledger believed it at `known_at` (default: its
        latest knowledge)."""
        return self.ledger.as_of(scopes, valid_at=valid_at, known_at=known_at, subject=subject, predicate=predicate)

    def history(self, subject: str, predicate: str, *, scopes: Scopes | None = None) -> list[HistoryEntry]:
        """Every version of the slot ever written, in transaction order, with the transactions (who, when,
        why) that opened and closed it."""
        return self.ledger.history(scopes, subject=subject, predicate=predicate)

    def search(
        self,
        query: str,
        scopes: Scopes,
        *,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        limit: int = 10,
        kinds: Sequence[str] | str = KINDS,
    ) -> list[Hit]:
        """Facts and episodes in `scopes` that answer `query`, best first (lexical, exact and vector lanes
        fused). `kinds`: "fact", "episode" or both. Each Hit has `.kind`, `.sentence`, `.claim` or
        `.episode`, and per-lane `.scores`."""
        return self.recall.search(query, scopes, valid_at=valid_at, known_at=known_at, limit=limit, kinds=kinds)

    def prompt_block(
        self, query: str, scopes: Scopes, *, valid_at: TimeLike | None = None, known_at: TimeLike | None = None
    ) -> PromptBlock:
        """The small block a host puts in its prompt for `query`: `.text` ("" when nothing clears the
        gate), and the `.facts`, `.changed` (held before, a later turn says changed) and `.episodes` it shows."""
        return self.recall.prompt(query, scopes, valid_at=valid_at, known_at=known_at)

    def memories(
        self, scopes: Scopes, *, valid_at: TimeLike | None = None, known_at: TimeLike | None = None
    ) -> list[Memory]:
        """Every visible claim as a sentence with its valid time ("user lives in Berlin (since 2024-06-01)")."""
        return self.recall.memories(scopes, valid_at=valid_at, known_at=known_at)

    def episodes(
        self,
        scopes: Scopes,
        *,
        session: str | None = None,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        limit: int | None = None,
    ) -> list[Episode]:
        """What was said in `scopes` (journal turns as episodes), oldest first; `limit`: the latest N."""
        return self.recall.episodes(scopes, session=session, valid_at=valid_at, known_at=known_at, limit=limit)

    def unknown_names(
        self,
        *,
        scopes: Scopes | None = None,
        subject: str | None = None,
        predicate: str | None = None,
    ) -> list[str]:
        """Why a read naming these may have come back empty: one message per name the ledger has never
        seen ("no predicate 'lives'; did you mean lives_in?", "no scope 'dmo' holds claims or
        conversation turns; did you mean demo?"); [] when every name is known. Call it after an empty
        read: it looks each name up (cheap, but not free)."""
        notes = self.ledger.unknown_names(subject=subject, predicate=predicate)
        journal = Journal(self.ledger)
        if scopes is not None:
            claim_scopes = self.ledger.scopes()
            missing = [s for s in ([scopes] if isinstance(scopes, str) else scopes)
                       if s not in claim_scopes and not journal.entries(scope=s, limit=1)]
            if missing:
                # Suggestions from the claim scopes and the recent journal's (listing every journal scope
                # would read the whole journal).
                known = sorted(set(claim_scopes) | {e.scope for e in journal.entries(limit=1000)})
                notes.extend(f"no scope {s!r} holds claims or conversation turns{_did_you_mean(s, known)}" for s in missing)
        return notes

    # -- journal and digest -----------------------------------------------------------------------

    def journal(
        self,
        scope: str,
        text: str,
        *,
        role: str = "user",
        session: str | None = None,
        said_at: TimeLike | None = None,
        speaker: str | None = None,
    ) -> AppendOutcome:
        """Append one conversation turn to the journal (an episode at once; `digest` may make facts of it).
        Secrets are redacted or the turn refused, trivial turns skipped: `.status` says which."""
        return self.journal_many([Turn(scope=scope, text=text, role=role, session=session,  # type: ignore[arg-type]
                                       said_at=_time_text(said_at), speaker=speaker)])[0]

    def journal_many(self, turns: Iterable[Turn | Mapping[str, Any]]) -> list[AppendOutcome]:
        """Append several turns (Turn objects or dicts with scope, text, role, session, said_at, speaker)
        in one transaction: each is checked before any is stored."""
        checked = [t if isinstance(t, Turn) else Turn.from_dict(dict(t)) for t in turns]
        with self.ledger.storage.atomic():
            return Journal(self.ledger).append_many(checked)

    def digest(self, *, limit: int | None = None, policy: str = "auto", config: DigestConfig | None = None) -> DigestReport:
        """Digest the journal's backlog into proposals and claims: the offline rules extractor unless
        `config` names a model. policy 'auto' applies grounded proposals (holding changes to values an
        operator confirmed); 'strict' holds everything for review. Resumable and idempotent per turn."""
        config = config or DigestConfig(policy=policy)  # type: ignore[arg-type]
        digester = Digester(self.ledger, build_extractor(config), policy=config.policy, context_turns=config.context_turns)
        return digester.run(limit=limit)

    # -- SQL --------------------------------------------------------------------------------------

    def sql(
        self, query: str, *, max_rows: int | None = 10000, timeout: float | None = 60, memory_limit: str | None = "1GB"
    ) -> "QueryResult":
        """One read-only query in DuckDB over the ledger file, with the temporal clauses of
        `factledger sql` (`FOR VALID_TIME AS OF '2024-03-01'`, …). Returns `.columns`, `.rows` and
        `.truncated`; TIMESTAMP values come back as canonical strings, like every time in this API."""
        from factledger.ledger.analytics.bounded import run_bounded
        from factledger.ledger.analytics.engine import QueryResult

        if self.path == ":memory:":
            raise ValidationError("SQL needs a ledger file or database; this one is in memory", field="path")
        # In a process of its own, held to memory_limit and timeout whatever the query builds (bounded.py).
        result = run_bounded(self.path, query, max_rows=max_rows, timeout=timeout, memory_limit=memory_limit).result
        assert result is not None
        rows = [tuple(_canonical(v) for v in row) for row in result.rows]
        return QueryResult(result.columns, rows, result.truncated)


def _did_you_mean(name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def _warn_undeclared(result: TxResult | None, *, stacklevel: int) -> TxResult:
    """Warn (at the caller's line) about each predicate the write registered only because it named it."""
    assert result is not None
    for name in result.undeclared:
        warnings.warn(
            f"predicate {name!r} was never defined: registered as 'many' with the default template"
            " (define it first, or open with strict_predicates=True to refuse such writes)",
            UndeclaredPredicateWarning,
            stacklevel=stacklevel,
        )
    return result


def _time_text(value: TimeLike | None) -> str | None:
    """Turn.said_at is text; a datetime or date is normalised here (the journal checks the string)."""
    if value is None or isinstance(value, str):
        return value
    from factledger.ledger.times import parse_time

    return parse_time(value, "said_at")
