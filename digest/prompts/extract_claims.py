"""The claim-extraction prompt and its output models (instructor TOOLS mode fills `Extraction`).

One call reads a window of consecutive NEW turns (numbered T1, T2, …) with a few earlier turns as
context. The model judges and quotes; it never computes dates. Each fact names the NEW turn it comes from
and quotes that turn; time words go back verbatim in `when` and plain functions
(factledger.ledger.when) resolve them against that turn's said-at time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from factledger.ledger import ClaimVersion, Predicate

from ..model import JournalEntry

INSTRUCTIONS = """\
You extract facts about people from a conversation, for a long-term memory ledger.

The NEW turns are numbered T1, T2, ...; extract facts ONLY from NEW turns spoken by the user. Assistant
turns and the earlier turns are context for understanding them. Extract a fact only when the speaker
states it as true (not a question, wish, hypothetical or joke). The user is the subject "user"; other
people are named subjects (their name, or e.g. "user's sister" when unnamed).

Two kinds of fact:
- durable attributes (where someone lives or works, what they like or have, relationships);
- dated events the speaker states: something done at a stated time ("I went to the pottery class
  yesterday", "I ran a 10k race last Saturday") uses predicate "did" with the value in the past tense
  WITHOUT the date ("went to the pottery class"); a scheduled one ("my sister's wedding is on June 3")
  uses predicate "has_event" with the value naming it ("sister's wedding") and upcoming = true.
  Put the time words in `when`; do not compute dates.

For each fact give:
- turn: the number n of the NEW turn Tn that states it.
- op: "add" for a new fact; "supersede" when it replaces a value the ledger holds (moving city, new job,
  a correction); "retract" when a held fact stopped being true ("I sold my car") or was never true.
- predicate: reuse a registered predicate when one fits (list below); otherwise a short snake_case name
  with its cardinality ("one": at most one value at a time, like lives_in; "many": like likes) and a
  sentence template using {subject} and {value}.
- value: short and canonical ("Lisbon", "Acme Corp", "jazz"); for a retract of a whole slot, leave it empty.
- replaces: for a supersede in a "many" slot, the held value it replaces.
- when: the exact time words from that turn ("last March", "since 2019", "until Friday", "yesterday",
  "on June 3"), or empty when it gives none. never_true: the speaker says it was never true.
- quote: the exact words of turn Tn that state the fact, copied verbatim (never words of another turn).
Return an empty list when the NEW user turns state no fact. Small talk is not a fact.
"""


class ExtractedClaim(BaseModel):
    """One fact a NEW user turn states."""

    turn: int = Field(ge=1, description="the number n of the NEW turn Tn that states this fact (a user turn)")
    op: Literal["add", "supersede", "retract"] = Field(
        description="add a new fact; supersede a value the ledger holds; retract a held fact that ended or was never true"
    )
    subject: str = Field(description='who the fact is about: "user" for the speaker, else a short name')
    predicate: str = Field(
        description='snake_case relation, reusing a registered predicate when one fits (e.g. lives_in); "did" for a dated '
        'event that happened, "has_event" for a scheduled one'
    )
    cardinality: Literal["one", "many"] | None = Field(
        default=None, description='for a NEW predicate: "one" if it holds one value at a time, else "many"; null when registered'
    )
    template: str | None = Field(
        default=None, description="for a NEW predicate: a sentence with {subject} and {value}, e.g. '{subject} plays {value}'"
    )
    value: str | None = Field(
        default=None,
        description="the value, short and canonical (for an event: what happened, without its date); null only for a retract of the whole slot",
    )
    replaces: str | None = Field(default=None, description='for a supersede in a "many" slot: the held value being replaced')
    when: str = Field(default="", description="the time words exactly as said (e.g. 'last March', 'since 2019', 'yesterday'), or empty")
    upcoming: bool = Field(default=False, description="for an event: true when it has not happened yet (scheduled, planned for a date)")
    never_true: bool = Field(default=False, description="true when the speaker says the fact was never true (retract all valid time)")
    quote: str = Field(description="the exact words of turn Tn that state this fact, copied verbatim")

    @field_validator("subject", "predicate", "quote")
    @classmethod
    def _not_blank(cls, text: str) -> str:
        if not text or not text.strip():
            raise ValueError("must not be empty")
        return text.strip()


class Extraction(BaseModel):
    """Every fact the NEW user turns state (possibly none), each naming its turn."""

    claims: list[ExtractedClaim] = Field(default_factory=list, description="the facts, in the order stated; empty when none")


def _claim_line(c: ClaimVersion) -> str:
    end = c.valid_to[:10] if c.valid_to else "now"
    return f"- {c.subject} {c.predicate} = {c.value!r} (valid {c.valid_from[:10]} .. {end})"


def _speaker(t: JournalEntry) -> str:
    name = getattr(t, "speaker", None)  # the speaker's name, when the journal knows it
    return f"{t.role} {name}" if name else t.role


def build_messages(
    entries: Sequence[JournalEntry], recent: Sequence[JournalEntry], held: Sequence[ClaimVersion], predicates: Sequence[Predicate]
) -> list[dict[str, str]]:
    """The chat messages for one window of NEW turns (numbered from 1). `held`: the held facts the
    window talks about, most relevant first, already bounded (digest/held.py), shown as given."""
    registry = "\n".join(f"- {p.name} ({p.cardinality}): {p.template}" for p in predicates) or "- (none yet)"
    facts = "\n".join(_claim_line(c) for c in held) or "- (nothing relevant held)"
    context = "\n".join(f"[{_speaker(t)} at {t.said_at[:16]}] {t.text}" for t in recent) or "(no earlier turns)"
    new = "\n".join(f"[T{n} {_speaker(t)}, said at {t.said_at}] {t.text}" for n, t in enumerate(entries, start=1))
    user = (
        f"Registered predicates:\n{registry}\n\n"
        f"What the ledger holds that these turns may touch (most relevant first):\n{facts}\n\n"
        f"Earlier turns (context only):\n{context}\n\n"
        f"NEW turns (extract from the user turns only; name each fact's turn):\n{new}"
    )
    return [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": user}]
