"""Typed records of the digest: turns, journal entries, proposals and the reports the digest returns."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from factledger.ledger import ValidationError, check_scope
from factledger.ledger.times import parse_time, utc_now
from factledger.ledger.values import check_identifier

Role = Literal["user", "assistant"]
Op = Literal["add", "supersede", "retract"]
ProposalStatus = Literal["pending", "applied", "rejected", "rejected_again", "dropped"]
ROLES = ("user", "assistant")
OPS = ("add", "supersede", "retract")


SPEAKER_MAX = 80
_SPEAKER_BAD = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff<>]")


def check_speaker(speaker: object) -> str | None:
    """A speaker's display name: one short line of text (it is shown in recalled excerpts), or None."""
    if speaker is None:
        return None
    if not isinstance(speaker, str):
        raise ValidationError(f"must be a string, got {type(speaker).__name__}", field="speaker")
    cleaned = " ".join(_SPEAKER_BAD.sub(" ", unicodedata.normalize("NFKC", speaker)).split())
    if len(cleaned) > SPEAKER_MAX:
        raise ValidationError(f"at most {SPEAKER_MAX} characters", field="speaker")
    return cleaned or None


@dataclass(frozen=True)
class Turn:
    """One conversation turn offered to the journal."""

    scope: str
    text: str
    role: Role = "user"
    session: str | None = None
    said_at: str | None = None  # ISO; None means now
    speaker: str | None = None  # who spoke, when known (a display name); the role says the rest

    def checked(self, now: str | None = None) -> "Turn":
        """A copy with every field validated and said_at in canonical UTC form."""
        check_scope(self.scope)
        if not isinstance(self.text, str):
            raise ValidationError(f"expected text, got {type(self.text).__name__}", field="text")
        if self.role not in ROLES:
            raise ValidationError(f"{self.role!r} is not a role; use 'user' or 'assistant'", field="role")
        if self.session is not None and not isinstance(self.session, str):
            raise ValidationError("must be a string", field="session")
        if self.session is not None:
            check_identifier(self.session, "session")
        said_at = parse_time(self.said_at, "said_at") if self.said_at is not None else (now or utc_now())
        return Turn(scope=self.scope, text=self.text, role=self.role, session=self.session or None, said_at=said_at,
                    speaker=check_speaker(self.speaker))

    @classmethod
    def from_dict(cls, data: object) -> "Turn":
        """A turn from a decoded JSON object; unknown or mistyped fields are named in the error."""
        if not isinstance(data, dict):
            raise ValidationError("each line must be a JSON object", field="line")
        allowed = {"scope", "session", "role", "text", "said_at", "speaker"}
        for name in data:
            if name not in allowed:
                raise ValidationError(f"unknown field (allowed: {', '.join(sorted(allowed))})", field=name)
        for name in ("scope", "text"):
            if data.get(name) in (None, ""):
                raise ValidationError("required", field=name)
        for name in ("scope", "text", "role", "session", "said_at", "speaker"):
            if data.get(name) is not None and not isinstance(data[name], str):
                raise ValidationError(f"must be a string, got {type(data[name]).__name__}", field=name)
        return cls(
            scope=data["scope"],
            text=data["text"],
            role=data.get("role") or "user",
            session=data.get("session"),
            said_at=data.get("said_at"),
            speaker=data.get("speaker"),
        ).checked()


@dataclass(frozen=True)
class AppendOutcome:
    """What the journal did with a turn."""

    entry_id: int | None
    status: Literal["stored", "skipped", "redacted", "refused"]
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class JournalEntry:
    id: int
    scope: str
    session: str | None
    role: Role
    text: str
    said_at: str
    digested_at: str | None = None
    speaker: str | None = None
    extractor: str | None = None
    attempts: int = 0
    last_error: str = ""

    @property
    def ref(self) -> str:
        return f"journal:{self.id}"

    @classmethod
    def from_row(cls, row: Any) -> "JournalEntry":
        return cls(
            id=row["id"],
            scope=row["scope"],
            session=row["session"],
            role=row["role"],
            text=row["text"],
            said_at=row["said_at"],
            digested_at=row["digested_at"],
            extractor=row["extractor"],
            attempts=row["attempts"],
            last_error=row["last_error"],
            speaker=row["speaker"] if "speaker" in row.keys() else None,
        )

    @property
    def speaker_label(self) -> str:
        """The name to show for who said it: the speaker when known, else the role."""
        return self.speaker or self.role

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Draft:
    """A proposal as an extractor returns it: valid times already resolved to canonical UTC text."""

    op: Op
    subject: str
    predicate: str
    value: str | None
    quote: str
    cardinality: Literal["one", "many"] | None = None
    template: str | None = None
    replaces: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    all_valid_time: bool = False
    time_phrase: str = ""
    note: str = ""  # a reason the extractor wants the reviewer to see (e.g. an unresolved time phrase)
    hold: bool = False  # the extractor itself asks for review (e.g. it could not resolve a time)
    drop_reason: str = ""  # the extractor's receipt for something it cannot propose (stored as dropped)
    # When the statement was news (its turn's said-at; a stored proposal's creation): where an undated
    # assertion that must replace another value starts.
    news_at: str | None = None


@dataclass(frozen=True)
class Proposal:
    """A stored proposal (one row of the `proposals` table)."""

    id: int
    scope: str
    entry_id: int | None
    sources: tuple[str, ...]
    extractor: str
    op: Op
    subject: str
    predicate: str
    cardinality: str | None
    template: str | None
    value: str | None
    replaces: str | None
    valid_from: str | None
    valid_to: str | None
    all_valid_time: bool
    time_phrase: str
    quote: str
    status: ProposalStatus
    decision: str
    policy: str
    reason: str
    rejection_id: int | None
    tx: int | None
    created_at: str
    decided_at: str | None
    decided_by: str | None
    review_reason: str

    @classmethod
    def from_row(cls, row: Any) -> "Proposal":
        return cls(
            id=row["id"],
            scope=row["scope"],
            entry_id=row["entry_id"],
            sources=tuple(json.loads(row["sources"])),
            extractor=row["extractor"],
            op=row["op"],
            subject=row["subject"],
            predicate=row["predicate"],
            cardinality=row["cardinality"],
            template=row["template"],
            value=row["value"],
            replaces=row["replaces"],
            valid_from=row["valid_from"],
            valid_to=row["valid_to"],
            all_valid_time=bool(row["all_valid_time"]),
            time_phrase=row["time_phrase"],
            quote=row["quote"],
            status=row["status"],
            decision=row["decision"],
            policy=row["policy"],
            reason=row["reason"],
            rejection_id=row["rejection_id"],
            tx=row["tx"],
            created_at=row["created_at"],
            decided_at=row["decided_at"],
            decided_by=row["decided_by"],
            review_reason=row["review_reason"],
        )

    def describe(self) -> str:
        what = f"{self.subject} {self.predicate} {self.value!r}" if self.value is not None else f"{self.subject} {self.predicate}"
        if self.replaces:
            what += f" (replacing {self.replaces!r})"
        return f"{self.op} {what}"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["sources"] = list(self.sources)
        return data


class _TableRow:
    """A record read back from one of the digest's tables, column for field."""

    @classmethod
    def from_row(cls, row: Any) -> Any:
        return cls(*(row[name] for name in cls.__dataclass_fields__))  # type: ignore[attr-defined]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]


@dataclass(frozen=True)
class Rejection(_TableRow):
    id: int
    scope: str
    subject_key: str
    predicate: str
    value_key: str
    value: str
    proposal_id: int | None
    rejected_by: str
    rejected_at: str
    reason: str
    lifted_at: str | None
    lifted_by: str | None


@dataclass(frozen=True)
class Confirmation(_TableRow):
    id: int
    scope: str
    subject_key: str
    predicate: str
    value_key: str
    value: str
    claim_id: int | None
    confirmed_by: str
    confirmed_at: str
    reason: str
    lifted_at: str | None
    lifted_by: str | None


@dataclass(frozen=True)
class ExplicitWrite:
    """What `remember` / `forget` did."""

    status: Literal["applied", "held", "rejected"]
    message: str
    proposal_id: int | None = None
    tx: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class DigestReport:
    """What one digest run did. `complete` is False when entries were left undigested by a failure."""

    extractor: str
    policy: str
    entries_seen: int = 0
    entries_digested: int = 0
    entries_failed: int = 0
    entries_leased_elsewhere: int = 0  # left to another run (process) that was digesting them
    backlog: int = 0  # undigested entries left after the run
    proposals: dict[str, int] = field(default_factory=dict)  # status -> count
    applied_txs: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    stopped_early: bool = False
    undeclared: list[str] = field(default_factory=list)  # predicates nobody had defined that applied proposals registered

    @property
    def complete(self) -> bool:
        return self.entries_failed == 0 and not self.stopped_early

    def count(self, status: str) -> None:
        self.proposals[status] = self.proposals.get(status, 0) + 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "extractor": self.extractor,
            "policy": self.policy,
            "entries_seen": self.entries_seen,
            "entries_digested": self.entries_digested,
            "entries_failed": self.entries_failed,
            "entries_leased_elsewhere": self.entries_leased_elsewhere,
            "backlog": self.backlog,
            "proposals": {s: self.proposals.get(s, 0) for s in ("applied", "pending", "rejected_again", "dropped")},
            "applied_txs": list(self.applied_txs),
            "undeclared_predicates": list(self.undeclared),
            "errors": list(self.errors),
            "stopped_early": self.stopped_early,
            "complete": self.complete,
        }


# == What the digest hands its recorder (digest/recorder.py) ==========================================


def sources_json(refs: list[str] | tuple[str, ...]) -> str:
    """Provenance refs as the JSON array text both engines store (written as given, never reordered)."""
    return json.dumps(list(refs), ensure_ascii=False)


@dataclass(frozen=True)
class NewProposal:
    """A proposal row to insert: every column the digest writes (the id is the recorder's answer)."""

    scope: str
    entry_id: int | None
    ordinal: int
    sources: tuple[str, ...]
    extractor: str
    op: str
    subject: str
    subject_key: str
    predicate: str
    cardinality: str | None
    template: str | None
    value: str | None
    value_key: str | None
    replaces: str | None
    valid_from: str | None
    valid_to: str | None
    all_valid_time: bool
    time_phrase: str
    quote: str
    status: str
    decision: str
    policy: str
    reason: str
    rejection_id: int | None
    created_at: str
    decided_at: str | None
    decided_by: str | None


@dataclass(frozen=True)
class StatusChange:
    """A decision on a stored proposal: its new status and decided_at always; each other field only
    when given (None leaves the column as it is)."""

    status: str
    decided_at: str | None
    reason: str | None = None
    decision: str | None = None
    tx: int | None = None
    decided_by: str | None = None
    review_reason: str | None = None
    rejection_id: int | None = None

    def given(self) -> dict[str, object]:
        """The columns to set, in a fixed order."""
        optional = {
            "reason": self.reason, "decision": self.decision, "tx": self.tx, "decided_by": self.decided_by,
            "review_reason": self.review_reason, "rejection_id": self.rejection_id,
        }
        return {"status": self.status, "decided_at": self.decided_at, **{k: v for k, v in optional.items() if v is not None}}


DigestTable = Literal["journal", "proposals", "rejections", "confirmations"]

# Each table's free-text columns: where a value's words can sit (erase redacts them). Identifiers, fixed
# vocabularies and times are never free text.
FREE_TEXT: dict[str, tuple[str, ...]] = {
    "journal": ("text", "speaker", "last_error"),
    "proposals": ("subject", "subject_key", "template", "value", "value_key", "replaces", "time_phrase", "quote",
                  "reason", "review_reason"),
    "rejections": ("subject_key", "value_key", "value", "reason"),
    "confirmations": ("subject_key", "value_key", "value", "reason"),
    "session_titles": ("title",),
}


# The column a table's rows were written at (what erase reports as the first copy's time).
WRITTEN_AT: dict[str, str | None] = {"journal": "appended_at", "proposals": "created_at", "rejections": None, "confirmations": None,
                                     "session_titles": "titled_at"}


def checked_columns(table: str, columns: Sequence[str]) -> None:
    """Refuse a table or column outside FREE_TEXT (recorders write their names into statements)."""
    allowed = FREE_TEXT.get(table)
    if allowed is None or any(c not in allowed for c in columns):
        raise ValueError(f"not free text of a digest table: {table} {list(columns)}")


@dataclass(frozen=True)
class TextRow:
    """One row's free-text columns (those holding text), with when the row was written (journal:
    appended_at, proposals: created_at; None for review memory)."""

    id: int
    texts: dict[str, str]
    written_at: str | None = None
    redactions: tuple[str, ...] = ()  # the journal's kinds of text removed so far


def text_row(table: str, row: Any) -> TextRow:
    """A TextRow from a row of `table` readable by column name."""
    texts = {c: row[c] for c in FREE_TEXT[table] if isinstance(row[c], str) and row[c]}
    kinds = tuple(json.loads(row["redactions"] or "[]")) if table == "journal" else ()
    written = WRITTEN_AT[table]
    return TextRow(row["id"], texts, row[written] if written else None, kinds)


@dataclass(frozen=True)
class QueueFilter:
    """Which proposals a review queue shows (digest/queue.py): every field None means any. Keys are
    already normalised (subject_key, predicate); `search` and `reason` match case-insensitively
    anywhere in the text (search: subject, predicate, value, quote and the policy's reason)."""

    statuses: tuple[str, ...] | None = None
    scope: str | None = None
    subject_key: str | None = None
    predicate: str | None = None
    session: str | None = None
    extractor: str | None = None
    policy: str | None = None
    reason: str | None = None
    search: str | None = None

    def without_statuses(self) -> "QueueFilter":
        return replace(self, statuses=None)
