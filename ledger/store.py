"""The ledger: predicates, transactions, claim versions; the three operations and the reads.

Writes run inside `Ledger.transaction()`: one database transaction, all or nothing. Operations are settled
in memory per slot (see portion.py) and written when the transaction ends, closes before inserts, so the
database constraints see only the final state and no empty-lived version is ever written. Every statement
goes through the ledger recorder (ledger/recorder.py; one module per engine); the erase methods below
delegate to ledger/erasure.py, whose statements are the erase recorder's (ledger/erase_recorder.py).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property, lru_cache
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from . import chain
from . import portion as algebra
from .chain_key import DEFAULT_KEY, ChainKey, KeyFile, default_key_path
from .erasure import EraseResult, Erasure, ScopeFamily, redact_spans
from .errors import ErasedError, LedgerError, StorageError, ValidationError
from .keys import key, predicate_key
from .model import ClaimVersion, HistoryEntry, OpResult, Predicate, Transaction, TxResult
from .engines import AnyStorage, ledger_recorder, open_storage
from .recorder import NewVersion, SlotQuery
from .storage import BUSY_TIMEOUT
from .times import END_OF_TIME, parse_optional, parse_time, to_datetime, utc_now
from .values import check_identifier, check_principal, check_scope, check_value

DEFAULT_TEMPLATE = "{subject} {predicate} {value}"
# How far an explicit (import) tx_time may lie ahead of the clock. A later one would make every write
# dated by the clock land after it (tx time only increases). 0006_integrity.sql holds the same bound.
MAX_CLOCK_SKEW = timedelta(minutes=5)

SlotKey = tuple[str, str, str]  # (scope, subject_key, predicate)


def _sources(source: object, field_name: str = "source") -> tuple[str, ...]:
    if source is None or (type(source) is list and not source):
        return ()
    if isinstance(source, str):
        return (check_identifier(source, field_name),) if source else ()
    if isinstance(source, (list, tuple)) and all(isinstance(s, str) for s in source):
        return tuple(check_identifier(s, field_name) for s in source if s)
    raise ValidationError("must be a string or a list of strings", field=field_name)


@dataclass
class _Slot:
    scope: str
    subject_key: str
    predicate: Predicate
    original: list[algebra.Span]
    current: list[algebra.Span]


class LedgerTx:
    """One open ledger transaction. Obtain it from `Ledger.transaction()`."""

    def __init__(
        self, ledger: "Ledger", tx_id: int, tx_time: str, principal: str, reason: str, *, strict_predicates: bool = False,
        has_tombstones: bool | None = None,
    ):
        self.ledger = ledger
        self.strict_predicates = strict_predicates
        self._undeclared: list[str] = []  # predicates this transaction registered because a write named them
        self.id = tx_id
        self.tx_time = tx_time
        self.principal = principal
        self.reason = reason
        self._slots: dict[SlotKey, _Slot] = {}
        self._read_ahead: dict[SlotKey, list[algebra.Span]] = {}  # slots read_slots read, not yet touched
        self._defined: dict[str, Predicate] = {}
        self._ops: list[OpResult] = []
        self._provenance: list[tuple[int, int, str]] = []  # (claim id, tx id, source) for no-op writes
        self._erasing: list[int] = []  # versions this (erase) transaction removes, named in its chain row
        self._redacting: list[int] = []  # transactions whose reasons this (erase) transaction redacts
        self._has_erasures = ledger.recorder.has_tombstones() if has_tombstones is None else has_tombstones
        self.result: TxResult | None = None

    # -- predicates -----------------------------------------------------------------------------

    def predicate(self, name: str) -> Predicate | None:
        key_ = predicate_key(name)
        # The registry was brought up to date when the transaction began (Ledger._sync_predicates).
        return self._defined.get(key_) or self.ledger._load_predicates().get(key_)

    def define(
        self,
        predicate: str,
        cardinality: str = "many",
        *,
        template: str | None = None,
        description: str | None = None,
    ) -> Predicate:
        """Register a predicate, or update its template and description. Cardinality is fixed once set."""
        predicate = check_value(predicate, "predicate")
        name = predicate_key(predicate)
        if cardinality not in ("one", "many"):
            raise ValidationError(f"{cardinality!r} is not a cardinality; use 'one' or 'many'", field="cardinality")
        if template is not None:
            template = check_value(template, "template")
            _check_template(template)
        if description is not None:
            description = check_value(description, "description")
        existing = self.predicate(name)
        if existing is not None and existing.cardinality != cardinality:
            raise ValidationError(
                f"predicate {name!r} is already registered with cardinality {existing.cardinality!r}",
                field="cardinality",
            )
        new = Predicate(
            name=name,
            display=predicate.strip() if existing is None else existing.display,
            cardinality=cardinality,  # type: ignore[arg-type]
            description=description if description is not None else (existing.description if existing else ""),
            template=template if template is not None else (existing.template if existing else DEFAULT_TEMPLATE),
        )
        self.ledger.recorder.define_predicate(new, self.tx_time)
        self._defined[name] = new
        return new

    def _predicate_for_write(self, predicate: object) -> Predicate:
        name = predicate_key(predicate)
        found = self.predicate(name)
        if found is None:  # unknown predicates are registered as `many` unless declared (DESIGN §3) ...
            if self.strict_predicates:  # ... or refused, when the writer asked for strict predicates
                raise ValidationError(
                    f"no predicate {name!r}{self.ledger.suggest_predicate(name)}; define it first"
                    " (op define, with its cardinality), or write without strict predicates",
                    field="predicate",
                )
            found = self.define(str(predicate), "many")
            self._undeclared.append(found.name)
        return found

    # -- slots ----------------------------------------------------------------------------------

    def _slot(self, scope: object, subject: object, predicate: object) -> _Slot:
        scope = check_scope(scope)
        subject_key = key(subject, "subject")
        pred = self._predicate_for_write(predicate)
        slot_key = (scope, subject_key, pred.name)
        slot = self._slots.get(slot_key)
        if slot is None:
            spans = self._open_spans(slot_key)
            slot = _Slot(scope, subject_key, pred, spans, list(spans))
            self._slots[slot_key] = slot
        return slot

    def read_slots(self, slots: Iterable[tuple[object, object, object]]) -> None:
        """Read the current versions of these (scope, subject, predicate) slots in one statement, so the
        operations that follow find them read (a batch names its slots up front; on PostgreSQL a slot read
        is a round trip). Slots already read, texts the value policy refuses and predicates not registered
        are left to the operations themselves, which read or refuse them as they would anyway."""
        wanted: dict[tuple[str, str, str], None] = {}
        for scope, subject, predicate in slots:
            try:
                pred = self.predicate(predicate_key(_checked(predicate, "predicate")))
                if pred is None:
                    continue
                slot_key = (check_scope(scope), key(_checked(subject, "subject"), "subject"), pred.name)
            except LedgerError:
                continue
            if slot_key not in self._slots and slot_key not in self._read_ahead:
                wanted[slot_key] = None
        if not wanted:
            return
        found = self.ledger.recorder.open_spans_of(list(wanted))
        # Kept aside until an operation first touches the slot: slots are written in the order the
        # operations first touched them (claim ids and the lexical windows follow it), whatever was read.
        for slot_key in wanted:
            self._read_ahead[slot_key] = found.get(slot_key, [])

    def _open_spans(self, slot_key: tuple[str, str, str]) -> list[algebra.Span]:
        spans = self._read_ahead.pop(slot_key, None)
        return self.ledger.recorder.open_spans(*slot_key) if spans is None else spans

    def held(self, scope: str, subject: str, predicate: str) -> tuple[str, list[algebra.Span]] | None:
        """The slot's current versions as this transaction sees them (its own writes included), with the
        predicate's cardinality; None when the predicate is not registered (the slot holds nothing, and
        nothing is registered by asking)."""
        found = self.predicate(predicate_key(predicate))
        if found is None:
            return None
        slot_key = (check_scope(scope), key(subject, "subject"), found.name)
        slot = self._slots.get(slot_key)
        if slot is None:  # read once: the operations that follow find it here (_slot)
            spans = self._open_spans(slot_key)
            slot = _Slot(slot_key[0], slot_key[1], found, spans, list(spans))
            self._slots[slot_key] = slot
        return found.cardinality, list(slot.current)

    def _check_not_erased(self, slot: _Slot, value_key: str) -> None:
        if self._has_erasures and self.ledger._erased(slot.scope, slot.subject_key, slot.predicate.name, value_key):
            raise ErasedError("this value was erased by an operator and cannot be written again", field="value")

    def _apply(self, slot: _Slot, new_spans: list[algebra.Span], op: str) -> OpResult:
        settled = algebra.settle(slot.original, new_spans)
        current = slot.current
        # The same versions (objects), whatever their order; sets of different sizes never are.
        noop = len(settled) == len(current) and {id(s) for s in settled} == {id(s) for s in current}
        slot.current = settled
        result = OpResult(op=op, slot=(slot.scope, slot.subject_key, slot.predicate.name), noop=noop)
        self._ops.append(result)
        return result

    # -- the three operations -------------------------------------------------------------------

    def add(
        self,
        scope: str,
        subject: str,
        predicate: str,
        value: str,
        *,
        valid_from: object = None,
        valid_to: object = None,
        source: object = None,
    ) -> OpResult:
        """Assert `value` in the slot over [valid_from, valid_to). valid_from defaults to the tx time."""
        subject, predicate, value = _fact_text(subject, predicate, value)
        slot = self._slot(scope, subject, predicate)
        value_key = key(value, "value")
        self._check_not_erased(slot, value_key)
        span = algebra.Portion(parse_optional(valid_from, "valid_from") or self.tx_time, parse_optional(valid_to, "valid_to"))
        refs = _sources(source)
        spans = algebra.add(slot.current, slot.predicate.cardinality, value_key, value.strip(), span, refs, subject.strip())
        return self._keep_provenance(slot, self._apply(slot, spans, "add"), value_key, span, refs)

    def supersede(
        self,
        scope: str,
        subject: str,
        predicate: str,
        value: str,
        *,
        valid_from: object = None,
        valid_to: object = None,
        replaces: str | None = None,
        source: object = None,
    ) -> OpResult:
        """Within [valid_from, valid_to) the slot now holds `value` (for `many`, in place of `replaces`)."""
        subject, predicate, value = _fact_text(subject, predicate, value)
        if replaces is not None:
            replaces = _checked(replaces, "replaces")
        slot = self._slot(scope, subject, predicate)
        value_key = key(value, "value")
        replaces_key = None if replaces is None else key(replaces, "replaces")
        self._check_not_erased(slot, value_key)
        span = algebra.Portion(parse_optional(valid_from, "valid_from") or self.tx_time, parse_optional(valid_to, "valid_to"))
        refs = _sources(source)
        spans = algebra.supersede(
            slot.current,
            slot.predicate.cardinality,
            value_key,
            value.strip(),
            span,
            replaces_key,
            refs,
            subject.strip(),
        )
        return self._keep_provenance(slot, self._apply(slot, spans, "supersede"), value_key, span, refs)

    def _keep_provenance(
        self, slot: _Slot, result: OpResult, value_key: str, portion: algebra.Portion, refs: tuple[str, ...]
    ) -> OpResult:
        """A write that changed no version still says who said it again, and where (DESIGN §3: a no-op
        that only adds provenance). Erase follows these references."""
        if not result.noop or not refs:
            return result
        for i, held in enumerate(slot.current):
            if held.value_key == value_key and algebra.covers(held, portion):
                if held.row_id is None:  # opened by this transaction: not written yet, so merge the refs in
                    slot.current[i] = dataclasses.replace(held, source=tuple(dict.fromkeys(held.source + refs)))
                else:
                    self._provenance.extend((held.row_id, self.id, ref) for ref in refs)
                break
        return result

    def retract(
        self,
        scope: str,
        subject: str,
        predicate: str,
        value: str | None = None,
        *,
        valid_from: object = None,
        valid_to: object = None,
        all_valid_time: bool = False,
        source: object = None,
    ) -> OpResult:
        """Within the portion the value is no longer held. all_valid_time: it was never true."""
        subject, predicate, value = _fact_text(subject, predicate, value)
        slot = self._slot(scope, subject, predicate)
        value_key = None if value is None else key(value, "value")
        if all_valid_time:
            if valid_from is not None or valid_to is not None:
                raise ValidationError("all_valid_time cannot be combined with valid_from/valid_to", field="all_valid_time")
            span = algebra.Portion(None, None)
        else:
            span = algebra.Portion(
                parse_optional(valid_from, "valid_from") or self.tx_time, parse_optional(valid_to, "valid_to")
            )
        _sources(source)  # validated; a retraction writes only remainders, which keep their own source
        return self._apply(slot, algebra.retract(slot.current, value_key, span), "retract")

    def record_erasure(self, claim_ids: Iterable[int]) -> None:
        """Name the versions this transaction erases (Ledger.erase): its chain row records them, and the
        schema lets exactly these be deleted, right after, in the same SQLite transaction."""
        self._erasing.extend(claim_ids)

    def record_redaction(self, tx_ids: Iterable[int]) -> None:
        """Name the transactions whose reasons and sources this one (an erase) redacts: its chain row
        records them, and the schema lets exactly their texts change, right after."""
        self._redacting.extend(tx_ids)

    # -- commit ---------------------------------------------------------------------------------

    def _flush(self) -> TxResult:
        recorder = self.ledger.recorder
        closes: list[int] = []
        inserts: list[NewVersion] = []
        for slot in self._slots.values():
            change = algebra.diff(slot.original, slot.current)
            closes.extend(s.row_id for s in change.closed if s.row_id is not None)
            inserts.extend(
                NewVersion(
                    scope=slot.scope,
                    subject_key=slot.subject_key,
                    subject=s.subject,
                    predicate=slot.predicate.name,
                    cardinality=slot.predicate.cardinality,
                    value=s.value,
                    value_key=s.value_key,
                    valid_from=s.valid_from,
                    valid_to=s.valid_to,
                    source=s.source,
                )
                for s in change.opened
            )
        if closes and (self._provenance or not inserts):
            recorder.close_versions(self.id, self.tx_time, closes)
            closing: list[int] = []
        else:  # closed by the insert's statement, first (one round trip on PostgreSQL)
            closing = closes
        if self._provenance:
            recorder.add_provenance(self._provenance)
        opened = recorder.insert_versions(self.id, self.tx_time, inserts, closing) if inserts else []
        return TxResult(
            id=self.id,
            tx_time=self.tx_time,
            principal=self.principal,
            reason=self.reason,
            opened=opened,
            closed=closes,
            defined=list(self._defined),
            ops=self._ops,
            undeclared=list(self._undeclared),
        )


def _fact_text(subject: object, predicate: object, value: object) -> tuple[str, str, str | None]:
    """The value policy (values.py) on a fact's three texts; `value` may be None (a retract)."""
    return (
        _checked(subject, "subject"),
        _checked(predicate, "predicate"),
        None if value is None else _checked(value, "value"),
    )


def _checked(text: object, field: str) -> str:
    # check_value is a pure function of its text, and its credential patterns cost tens of microseconds
    # a call; subjects, predicates and values repeat. Only texts are cached (a refusal is never cached:
    # it raises).
    return _checked_text(text, field) if type(text) is str else check_value(text, field)


@lru_cache(maxsize=65536)
def _checked_text(text: str, field: str) -> str:
    return check_value(text, field)


def _check_template(template: object) -> None:
    if not isinstance(template, str):
        raise ValidationError("must be a string", field="template")
    try:
        template.format(subject="s", predicate="p", value="v")
    except (KeyError, IndexError, ValueError) as exc:
        raise ValidationError(
            f"{template!r} is not a valid template ({exc}); use {{subject}}, {{predicate}} and {{value}}",
            field="template",
        ) from None


class Ledger:
    """The bitemporal claim store over one SQLite file or PostgreSQL database."""

    def __init__(
        self, storage: AnyStorage, *, clock: Callable[[], str] = utc_now, strict_predicates: bool = False,
        chain_key: ChainKey | KeyFile | None = DEFAULT_KEY,
    ):
        self.storage = storage
        self.recorder = ledger_recorder(storage)
        # Refuse writes that name an unregistered predicate instead of registering it as `many`.
        self.strict_predicates = strict_predicates
        # Every stored timestamp has one form (the schema checks it): an injected clock's text is normalised.
        self.clock = clock if clock is utc_now else (lambda: parse_time(clock(), "clock"))
        self._predicates: dict[str, Predicate] | None = None
        self._change_token: object = None
        chain.backfill(self.recorder)  # a ledger from before the chain is hashed once, as it stands
        self.chain_key_problem = ""  # why the default key file could not be used ("" when it could)
        self.chain_key = self._resolve_key(chain_key)
        if self.chain_key is not None:
            chain.key_chain(self.recorder, self.chain_key, lambda: self.secret)  # once per ledger: keyed from here on

    def _resolve_key(self, chain_key: ChainKey | KeyFile | None) -> ChainKey | None:
        """The chain key this ledger writes with: the one given, or (by default) the key file beside a
        SQLite ledger, created 0600 when a writer opens a ledger whose chain is not keyed yet."""
        if not isinstance(chain_key, KeyFile):
            return chain_key
        path = chain_key.path
        if path is None and self.storage.engine == "sqlite":
            path = default_key_path(self.storage.path)
        if path is None:
            return None
        try:
            if path.exists() or path.is_symlink():
                return ChainKey.from_file(path)
            keying = self.recorder.chain_keying()
            if self.storage.read_only or keying is None or keying.keyed:
                return None  # a keyed ledger whose key is elsewhere: never replace its key with a new one
            try:
                return ChainKey.create(path)
            except ValidationError:
                if path.exists():  # another process made it first: use that one
                    return ChainKey.from_file(path)
                raise
        except ValidationError as exc:
            self.chain_key_problem = exc.message
            return None

    @classmethod
    def open(
        cls, location: str | Path, *, read_only: bool = False, clock: Callable[[], str] = utc_now,
        strict_predicates: bool = False, timeout: float = BUSY_TIMEOUT,
        chain_key: ChainKey | KeyFile | None = DEFAULT_KEY,
    ) -> "Ledger":
        """Open (and migrate) the ledger: a SQLite file path, or a `postgresql://` URL. A write waits up
        to `timeout` seconds for its turn (then BusyError). `chain_key` keys the hash chain (DESIGN §8):
        by default the key file `<ledger>.chain-key` beside a SQLite ledger (made on first write), none
        for a URL; a ChainKey (ChainKey.from_file / from_env); or None for none."""
        storage = open_storage(location, read_only=read_only, timeout=timeout)
        try:
            return cls(storage, clock=clock, strict_predicates=strict_predicates, chain_key=chain_key)
        except BaseException:
            storage.close()
            raise

    def close(self) -> None:
        """Close the connection, after writing recall's pending lexical rows (SQLite, when this process
        may write and no other writer holds the file: the tail is bounded, and the next writer or
        search writes it otherwise; nothing of the ledger itself is pending)."""
        try:
            if not self.storage.read_only and not self.storage.in_transaction:
                self.catch_up_lanes(wait=False)
        except StorageError:
            pass
        finally:
            self.storage.close()

    def catch_up_lanes(self, *, wait: bool = True) -> int:
        """Write recall's pending lexical rows now (SQLite defers them past a watermark, migration 0027),
        in one transaction of their own; returns how many transactions were pending (0: nothing to do,
        a read-only ledger, or inside an open transaction or snapshot, whose readers scan the tail)."""
        if self.storage.read_only or self.storage.in_transaction:
            return 0
        pending = self.recorder.lanes_tail()
        if not pending:
            return 0
        with self.storage.atomic(wait=wait):
            self.recorder.catch_up_lanes()
        return pending

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- predicates -----------------------------------------------------------------------------

    def _load_predicates(self) -> dict[str, Predicate]:
        if self._predicates is None:
            self._predicates = self.recorder.load_predicates()
        return self._predicates

    def _sync_predicates(self, token: object = None) -> None:
        """Drop the cached registry when another connection has committed since it was read: several
        instances may share one ledger, and a predicate one of them registers must be honoured by all.
        `token`: the change token when the caller has just read it (a write's turn)."""
        if token is None:
            token = self.recorder.change_token()
        if token != self._change_token:
            self._predicates = None
            self._change_token = token

    def predicate(self, name: str) -> Predicate | None:
        self._sync_predicates()
        return self._load_predicates().get(predicate_key(name))

    def held(self, scope: str, subject: str, predicate: str) -> tuple[str, list[algebra.Span]] | None:
        """The slot's committed current versions with the predicate's cardinality (None: no such predicate),
        as `LedgerTx.held` sees them outside a transaction (a dry run of an SQL write reads these)."""
        found = self.predicate(predicate)
        if found is None:
            return None
        return found.cardinality, self.recorder.open_spans(check_scope(scope), key(subject, "subject"), found.name)

    def held_slots(
        self, scope: str | None = None, subject: str | None = None, predicate: str | None = None
    ) -> list[tuple[str, str, str]]:
        """(scope, subject key, predicate) of every slot that holds a current version, narrowed by the keys
        given: the slots an SQL write's WHERE names when it leaves a key out."""
        return self.recorder.held_slots(
            None if scope is None else check_scope(scope),
            None if subject is None else key(subject, "subject"),
            None if predicate is None else predicate_key(predicate),
        )

    def predicates(self) -> list[Predicate]:
        self._sync_predicates()
        return sorted(self._load_predicates().values(), key=lambda p: p.name)

    def suggest_predicate(self, name: str) -> str:
        """"; did you mean lives_in?" for a name close to a registered predicate's, else ""."""
        close = difflib.get_close_matches(predicate_key(name), [p.name for p in self.predicates()], n=1, cutoff=0.6)
        return f"; did you mean {close[0]}?" if close else ""

    def unknown_names(self, *, subject: str | None = None, predicate: str | None = None) -> list[str]:
        """Why a read naming a subject or predicate may be empty: one message per name the ledger has never
        seen ("no predicate 'lives'; did you mean lives_in?"). [] when both are known."""
        notes = []
        if predicate is not None and self.predicate(predicate) is None:
            notes.append(f"no predicate {predicate_key(predicate)!r}{self.suggest_predicate(predicate)}")
        if subject is not None:
            subject_key = key(subject, "subject")
            # Any scope: a skip-scan of the slot index per scope would be faster, but this runs only after
            # a read came back empty.
            if not self.recorder.subject_exists(subject_key):
                notes.append(f"no subject {subject_key!r} in any scope")
        return notes

    # -- writes ---------------------------------------------------------------------------------

    def last_tx_time(self) -> str | None:
        return self.recorder.last_tx_time()

    @contextmanager
    def transaction(
        self,
        *,
        principal: str,
        reason: str = "",
        sources: Iterable[str] = (),
        tx_time: object = None,
        strict_predicates: bool | None = None,
    ) -> Iterator[LedgerTx]:
        """Open one ledger transaction; everything done in the block commits together or not at all.

        strict_predicates (default: the ledger's setting) refuses a write naming an unregistered predicate;
        otherwise it is registered as `many` and listed in the result's `undeclared`."""
        strict = self.strict_predicates if strict_predicates is None else strict_predicates
        check_principal(principal)
        reason = _checked(reason, "reason")
        # A lone string is one reference, not a sequence of one-character references.
        refs = _sources(sources if isinstance(sources, str) else list(sources), "sources")
        with self.storage.atomic():
            # The write turn first: what follows reads the latest state.
            if tx_time is not None:
                turn = self.recorder.begin_write_turn()
                stamp = self._explicit_tx_time(tx_time, principal, turn.last_tx_time)
                tx_id = self.recorder.insert_transaction(stamp, principal, reason, refs)
            else:
                # The clock's time, or one microsecond after the latest transaction's when the wall clock
                # stepped back or stood still: the turn and the transaction row together (on PostgreSQL the
                # row's INSERT is what takes the turn).
                turn, tx_id, stamp = self.recorder.begin_transaction(self.clock(), principal, reason, refs)
            self._sync_predicates(turn.change_token)
            tx = LedgerTx(self, tx_id, stamp, principal, reason, strict_predicates=strict, has_tombstones=turn.has_tombstones)
            try:
                yield tx
                tx.result = tx._flush()
                record = Transaction(tx_id, stamp, principal, reason, refs)
                chain.record(self.recorder, record, tx.result.opened, tx.result.closed, tx._erasing, tx._redacting,
                             self.chain_key, key_note=self.chain_key_problem, state=turn.chain)
                self.recorder.lanes_after_write(tx_id, len(tx.result.opened))
            except BaseException:
                self._predicates = None  # definitions made in the failed transaction are gone
                raise
        if tx._defined:
            self._predicates = None
        elif self._change_token == turn.change_token and not self.storage.in_transaction:
            # Committed (not a savepoint an outer block may still roll back): the registry read at the
            # turn's token is still the database's (this transaction held the write turn and defined
            # nothing), so this commit alone does not force the next transaction to re-read it.
            self._change_token = self.recorder.token_after_commit(tx_id, turn.change_token)

    def _explicit_tx_time(self, tx_time: object, principal: str, last: str | None) -> str:
        """DESIGN §2 and §8: explicit tx times are for imports, increase, and do not run ahead of the clock."""
        if not principal.startswith("import:"):
            raise ValidationError(
                f"an explicit tx_time is only for imports (principal import:<source>), not {principal}; "
                "leave it out and the ledger dates the transaction",
                field="tx_time",
            )
        stamp = parse_time(tx_time, "tx_time")
        if last is not None and stamp <= last:
            raise ValidationError(
                f"{stamp} is not later than the last transaction ({last}); explicit tx times must increase."
                " To load a history, import it into a fresh ledger before anything else is written:"
                " `factledger --db NEW.db import FILE` applies its transactions in tx-time order",
                field="tx_time",
            )
        now = self.clock()
        if to_datetime(stamp) > to_datetime(now) + MAX_CLOCK_SKEW:
            raise ValidationError(
                f"{stamp} is ahead of the clock ({now}) by more than {int(MAX_CLOCK_SKEW.total_seconds() // 60)} minutes",
                field="tx_time",
            )
        return stamp

    # -- reads ----------------------------------------------------------------------------------

    def scopes(self) -> list[str]:
        """Every scope with claims."""
        return self.recorder.scopes()

    def _scope_list(self, scopes: Sequence[str] | None) -> list[str]:
        if scopes is None:
            return self.scopes()
        if isinstance(scopes, str):
            scopes = [scopes]
        return [check_scope(s) for s in scopes]

    def visible_sql(self) -> str:
        """The one visibility predicate (alias c; the engine's placeholders for scopes, valid_at and
        known_at; pass `scope_param(scopes)` for scopes)."""
        return self.recorder.visible_sql()

    def scope_param(self, scopes: Sequence[str] | None) -> object:
        """The value of the visibility predicate's scopes parameter (None: every scope)."""
        return self.recorder.scope_param(self._scope_list(scopes))

    def as_of(
        self,
        scopes: Sequence[str] | None = None,
        *,
        valid_at: object = None,
        known_at: object = None,
        subject: str | None = None,
        predicate: str | None = None,
    ) -> list[ClaimVersion]:
        """Versions valid at `valid_at` (default: now) as the ledger knew them at `known_at` (default: its
        latest knowledge, every committed transaction, even one whose tx time is ahead of the clock)."""
        now = self.clock()
        scope_list = self._scope_list(scopes)
        known = parse_optional(known_at, "known_at") or END_OF_TIME
        query = SlotQuery(
            scopes=scope_list,
            valid_at=parse_optional(valid_at, "valid_at") or now,
            known_at=known,
            subject_key=None if subject is None else key(subject, "subject"),
            predicate=None if predicate is None else predicate_key(predicate),
            latest=known == END_OF_TIME,
        )
        return self.recorder.as_of(query)

    def current(
        self, scopes: Sequence[str] | None = None, *, subject: str | None = None, predicate: str | None = None
    ) -> list[ClaimVersion]:
        """Current truth: valid now, as the ledger knows it latest (every committed transaction, even one
        whose tx time is ahead of the wall clock: after the clock stepped back, or an import)."""
        return self.as_of(scopes, subject=subject, predicate=predicate)

    def history(
        self, scopes: Sequence[str] | None = None, *, subject: str, predicate: str
    ) -> list[HistoryEntry]:
        """Every version of a slot, in transaction order, with the transactions that opened and closed it."""
        return self.recorder.history(self._scope_list(scopes), key(subject, "subject"), predicate_key(predicate))

    def slots(
        self, scopes: Sequence[str] | None = None, *, subject: str | None = None, search: str | None = None, limit: int = 200
    ) -> list[dict[str, object]]:
        """Slots for browsing (the review page): scope, subject (key and display text), predicate, how many
        versions it has and how many are believed now. `subject` picks one subject; `search` matches
        subject, predicate or a believed value, case-insensitively."""
        like = None
        if search:
            like = "%" + search.strip().casefold().replace("%", "").replace("_", "") + "%"
        return self.recorder.slots(
            self._scope_list(scopes),
            subject_key=None if subject is None else key(subject, "subject"),
            like=like,
            limit=int(limit),
        )

    def transaction_versions(self, tx_id: int) -> tuple[list[ClaimVersion], list[ClaimVersion]]:
        """The versions a transaction opened and the versions it closed."""
        return self.recorder.transaction_versions(tx_id)

    def transaction_record(self, tx_id: int) -> Transaction | None:
        return self.recorder.transaction(tx_id)

    def claim(self, claim_id: int) -> ClaimVersion | None:
        return self.recorder.claim(claim_id)

    def version_count(self) -> int:
        """How many claim versions the ledger stores (every state of every fact, but erased ones)."""
        return self.recorder.version_count()

    # -- erase (ledger/erasure.py) ---------------------------------------------------------------

    @cached_property
    def _erasure(self) -> Erasure:
        return Erasure(self)

    def erase(
        self,
        *,
        scope: str,
        subject: str,
        predicate: str,
        value: str | None = None,
        principal: str,
        reason: str = "",
        family: ScopeFamily | None = None,
    ) -> EraseResult:
        """Hard removal for privacy (operator only): every version of the value, in every transaction, in
        `scope` and in every other scope of the same `family` (the person's other scopes) that holds it.

        Leaves a keyed tombstone per erased (scope, value) so nothing can write it back, and a keyed guard
        of the value's words for the whole family, so it cannot come back through free text either. Tables
        of other parts that hold copies (journal, FTS, vectors) are cleaned by their owners, following
        `EraseResult.sources` and `EraseResult.value_words`. The reason is kept in an append-only
        transaction, so a reason that mentions the value is refused.
        """
        return self._erasure.erase(
            scope=scope, subject=subject, predicate=predicate, value=value, principal=principal, reason=reason,
            family=family,
        )

    def scrub(self, *, wait: float = 2.0):
        """Leave no stale copy of erased rows in the store's files (see the engine's erase recorder)."""
        return self._erasure.recorder.scrub(wait=wait)

    @property
    def secret(self) -> str:
        """The per-ledger secret keying every content hash (migration 0007)."""
        return self._erasure.secret

    def content_key(self, scope: str, subject_key: str, predicate: str, value_key: str) -> str:
        """The keyed hash of normalised (scope, subject, predicate, value): tombstones, rejections and
        confirmations are keyed on it."""
        return self._erasure.content_key(scope, subject_key, predicate, value_key)

    def _erased(self, scope: str, subject_key: str, predicate: str, value_key: str) -> bool:
        """A tombstone for this (scope, slot, value), or for a scope prefix of a family `scope` is in (a
        Hermes scratch scope of the person opened after the erase)."""
        return self._erasure.erased(scope, subject_key, predicate, value_key)

    def erased_spans(self, scope: str, text: str) -> list[tuple[int, int]]:
        """Where `text` mentions a value erased for a family that `scope` belongs to: every word n-gram
        (n up to erasure.MAX_GUARD_WORDS) is hashed with the secret and looked up in the guard."""
        return self._erasure.erased_spans(scope, text)

    def redact_erased(self, scope: str, text: str) -> tuple[str, int]:
        """`text` with every value erased for `scope`'s family replaced by erasure.REDACTED, and the count."""
        spans = self.erased_spans(scope, text)
        return (redact_spans(text, spans), len(spans)) if spans else (text, 0)

    def is_erased(self, scope: str, subject: str, predicate: str, value: str) -> bool:
        return self._erased(scope, key(subject, "subject"), predicate_key(predicate), key(value, "value"))
