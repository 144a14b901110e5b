"""What the MCP tools answer: typed, described objects (the SDK turns each into the tool's output schema
and its structured content). Built from the library's own row types, never from a driver's rows."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from factledger.ledger import ClaimVersion, HistoryEntry, Transaction
from factledger.recall import Episode
from factledger.recall.render import one_line


class Fact(BaseModel):
    """A claim version: what the ledger holds true over a valid-time interval."""

    kind: Literal["fact"] = "fact"
    fact: str = Field(description="The fact as a sentence, with the time it holds.")
    subject: str
    predicate: str
    value: str
    valid_from: str = Field(description="When it became true (UTC).")
    valid_to: str | None = Field(description="When it stopped being true (UTC); null: still true.")
    known_from: str = Field(description="When memory learned it (UTC).")
    scope: str
    claim_id: int

    @classmethod
    def of(cls, claim: ClaimVersion, sentence: str) -> "Fact":
        return cls(fact=one_line(sentence), subject=claim.subject, predicate=claim.predicate, value=claim.value,
                   valid_from=claim.valid_from, valid_to=claim.valid_to, known_from=claim.tx_from, scope=claim.scope,
                   claim_id=claim.id)


class Said(BaseModel):
    """An episode: what was said in a conversation. Evidence, never current truth."""

    kind: Literal["said"] = "said"
    excerpt: str = Field(description="The words said (with their session neighbours when that helps).")
    speaker: str
    role: str
    said_at: str = Field(description="When it was said (UTC).")
    session: str | None
    scope: str
    entry_id: int

    @classmethod
    def of(cls, episode: Episode, excerpt: str) -> "Said":
        return cls(excerpt=excerpt, speaker=one_line(episode.speaker), role=episode.role, said_at=episode.said_at,
                   session=episode.session, scope=episode.scope, entry_id=episode.id)


class SearchAnswer(BaseModel):
    valid_at: str = Field(description="The valid time searched ('now' when not given).")
    known_at: str = Field(description="The knowledge time searched ('now' when not given).")
    results: list[Annotated[Fact | Said, Field(discriminator="kind")]] = Field(
        description="Best first: facts (kind 'fact') and conversation excerpts (kind 'said')."
    )


class FactsAnswer(BaseModel):
    valid_at: str
    known_at: str
    facts: list[Fact]
    total: int = Field(description="How many facts matched (facts lists at most `limit`).")
    notes: list[str] = Field(default_factory=list, description="Why nothing matched: names memory never saw.")


class Change(BaseModel):
    """The ledger transaction that opened or closed a version: who, when, why."""

    principal: str
    at: str
    reason: str

    @classmethod
    def of(cls, tx: Transaction) -> "Change":
        return cls(principal=tx.principal, at=tx.tx_time, reason=one_line(tx.reason))


class Version(BaseModel):
    value: str
    valid_from: str
    valid_to: str | None
    known_from: str
    known_to: str | None = Field(description="When memory stopped believing this version; null: believed now.")
    current_belief: bool
    scope: str
    recorded_by: Change
    superseded_by: Change | None

    @classmethod
    def of(cls, entry: HistoryEntry) -> "Version":
        v = entry.version
        return cls(value=v.value, valid_from=v.valid_from, valid_to=v.valid_to, known_from=v.tx_from, known_to=v.tx_to,
                   current_belief=v.tx_to is None, scope=v.scope, recorded_by=Change.of(entry.opened),
                   superseded_by=None if entry.closed is None else Change.of(entry.closed))


class HistoryAnswer(BaseModel):
    subject: str
    predicate: str
    versions: list[Version] = Field(description="Every version the slot has had, in the order memory wrote them.")


class WriteAnswer(BaseModel):
    status: Literal["applied", "held", "rejected"] = Field(
        description="applied: saved now; held: waits for a person's review; rejected: refused (message says why)."
    )
    message: str
    proposal_id: int | None = Field(description="The proposal a reviewer sees (factledger review, the page).")
    tx: int | None = Field(description="The ledger transaction, when applied.")
    scope: str


class ProfileAnswer(BaseModel):
    facts: list[Fact]
    total: int
    more: int = Field(description="How many more facts there are than listed.")


class JournalAnswer(BaseModel):
    status: Literal["stored", "skipped", "redacted", "refused"] = Field(
        description="stored; redacted (a secret was masked first); skipped (trivial); refused (a secret)."
    )
    reason: str
    entry_id: int | None
    scope: str
    digested: int = Field(description="Journal turns the digest turned into proposals during this call.")
    proposals: dict[str, int] = Field(description="The digest's proposals by status (applied, pending, ...).")
