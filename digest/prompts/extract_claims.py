"""The claim-extraction prompt and its output models (instructor TOOLS mode fills `Extraction`).

The model judges and quotes; it never computes dates. Time words go back verbatim in `when` and a plain
function (factledger.digest.when) resolves them against the turn's said-at time.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from factledger.ledger import ClaimVersion, Predicate

from ..model import JournalEntry

INSTRUCTIONS = """\
You extract durable facts about people from a conversation, for a long-term memory ledger.

Read ONLY the turn marked NEW for facts; earlier turns are context for understanding it. Extract a fact
only when the speaker states it as true (not a question, wish, plan, hypothetical or joke). The user is
the subject "user"; other people are named subjects (e.g. "user's sister" or their name).

For each fact give:
- op: "add" for a new fact; "supersede" when it replaces a value the ledger holds (moving city, new job,
  a correction); "retract" when a held fact stopped being true ("I sold my car") or was never true.
- predicate: reuse a registered predicate when one fits (list below); otherwise a short snake_case name
  with its cardinality ("one": at most one value at a time, like lives_in; "many": like likes) and a
  sentence template using {subject} and {value}.
- value: short and canonical ("Lisbon", "Acme Corp", "jazz"); for a retract of a whole slot, leave it empty.
- replaces: for a supersede in a "many" slot, the held value it replaces.
- when: the exact time words from the turn ("last March", "since 2019", "until Friday", "from 2015 to
  2019"), or empty when the turn gives none. Do not compute dates. never_true: the speaker says it was
  never true.
- quote: the exact words of the NEW turn that state the fact, copied verbatim.
Return an empty list when the turn states no durable fact. Small talk is not a fact.
"""


class ExtractedClaim(BaseModel):
    """One fact the NEW turn states."""

    op: Literal["add", "supersede", "retract"] = Field(
        description="add a new fact; supersede a value the ledger holds; retract a held fact that ended or was never true"
    )
    subject: str = Field(description='who the fact is about: "user" for the speaker, else a short name')
    predicate: str = Field(description="snake_case relation, reusing a registered predicate when one fits (e.g. lives_in)")
    cardinality: Literal["one", "many"] | None = Field(
        default=None, description='for a NEW predicate: "one" if it holds one value at a time, else "many"; null when registered'
    )
    template: str | None = Field(
        default=None, description="for a NEW predicate: a sentence with {subject} and {value}, e.g. '{subject} plays {value}'"
    )
    value: str | None = Field(default=None, description="the value, short and canonical; null only for a retract of the whole slot")
    replaces: str | None = Field(default=None, description='for a supersede in a "many" slot: the held value being replaced')
    when: str = Field(default="", description="the time words exactly as said (e.g. 'last March', 'since 2019'), or empty")
    never_true: bool = Field(default=False, description="true when the speaker says the fact was never true (retract all valid time)")
    quote: str = Field(description="the exact words of the NEW turn that state this fact, copied verbatim")

    @field_validator("subject", "predicate", "quote")
    @classmethod
    def _not_blank(cls, text: str) -> str:
        if not text or not text.strip():
            raise ValueError("must not be empty")
        return text.strip()


class Extraction(BaseModel):
    """Every durable fact the NEW turn states (possibly none)."""

    claims: list[ExtractedClaim] = Field(default_factory=list, description="the facts, in the order stated; empty when none")


def _claim_line(c: ClaimVersion) -> str:
    end = c.valid_to[:10] if c.valid_to else "now"
    return f"- {c.subject} {c.predicate} = {c.value!r} (valid {c.valid_from[:10]} .. {end})"


def build_messages(
    entry: JournalEntry, recent: list[JournalEntry], current: list[ClaimVersion], predicates: list[Predicate]
) -> list[dict[str, str]]:
    """The chat messages for one NEW turn."""
    registry = "\n".join(f"- {p.name} ({p.cardinality}): {p.template}" for p in predicates) or "- (none yet)"
    held = "\n".join(_claim_line(c) for c in current[:60]) or "- (nothing yet)"
    context = "\n".join(f"[{t.role} at {t.said_at[:16]}] {t.text}" for t in recent) or "(no earlier turns)"
    user = (
        f"Registered predicates:\n{registry}\n\n"
        f"What the ledger currently holds in this scope:\n{held}\n\n"
        f"Earlier turns (context only):\n{context}\n\n"
        f"NEW turn ({entry.role}, said at {entry.said_at}):\n{entry.text}"
    )
    return [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": user}]
