"""Named fusion configurations: how the lanes are weighted, fused and gated.

A configuration is one typed, frozen object chosen by name (`RecallConfig.preset("balanced")`), so a
deployment, an evaluation and a test all say which fusion they mean instead of setting loose flags.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from factledger.ledger import ValidationError


@dataclass(frozen=True)
class RecallConfig:
    """Fusion and gating of the lexical, exact and vector lanes.

    Fusion is weighted reciprocal-rank fusion (RRF): a claim's fused score is the sum over lanes of
    weight / (rrf_k + rank). Ranks, not raw scores, are fused because BM25 and cosine live on scales
    that do not compare; a per-lane weight then says how much each lane is trusted.
    """

    name: str = "balanced"
    # Candidates each lane contributes before fusion.
    lane_depth: int = 60
    rrf_k: float = 20.0
    lexical_weight: float = 1.0
    vector_weight: float = 0.3
    exact_weight: float = 2.0
    # BM25 column weights: the claim's own sentence, and its window neighbours' words.
    body_weight: float = 1.0
    context_weight: float = 0.5
    # Ranking cost bound: query terms are kept rarest first while their summed document frequency
    # stays within this many claim versions (0 = no bound). Terms beyond it carry little BM25 weight.
    lexical_budget: int = 5000
    # Searched scopes holding at most this many visible items of a kind (a gateway user's own, among
    # every other user's) are searched from those items: their ids restrict the lexical lookups and
    # their vectors are compared in process, instead of searching indexes that hold every scope's
    # rows. The same hits and scores, found in a fraction of the time. 0 = always the indexes.
    local_scan_items: int = 400
    # A claim whose subject the query names gets this much more fused score (0 = off).
    subject_boost: float = 0.3
    # A query naming a subject that facts are about gets only that subject's facts in the prompt block
    # ("the sister's favourite team" is not answered by the user's favourite food). The ranked search
    # keeps them, and episodes are never filtered so: the other speaker's turn is often the evidence.
    named_subject_facts_only: bool = True
    # Window smoothing: a claim gains this share of its best window neighbour's fused score, because
    # an answer often sits next to the turn that shares the question's words.
    neighbour_share: float = 0.15
    # Negative gating of hits that only the vector lane supports: cosine similarity at least
    # `vector_floor`, and at least `vector_margin` above the query's background (the mean similarity
    # of its vector candidates), so flat, meaningless neighbourhoods return nothing.
    vector_floor: float = 0.45
    vector_margin: float = 0.12
    # ... and at least this share of the query's content words must be whole words the embedder knows
    # (when the embedder can tell), because mash and ids shred into word pieces with arbitrary vectors.
    vector_min_known_share: float = 0.5
    # ... and when the query names a subject, the query without the subject's words must be this near
    # too, or the hit is near only through the name (every sentence of a one-user store has "user").
    vector_topic_floor: float = 0.35
    # Episodes (what was said) against facts: their fused score is multiplied by this, so at equal
    # evidence a fact (what is held true) ranks first.
    episode_weight: float = 0.9
    # The prompt block: a handful of facts, then a few excerpts of past conversation, within a character
    # budget; items must reach this share of the best item's fused score of their kind. A question about
    # the present that facts answer gets at most `prompt_episode_items_present` excerpts.
    prompt_items: int = 5
    prompt_episode_items: int = 3
    prompt_episode_items_present: int = 0
    prompt_excerpt_chars: int = 240
    prompt_chars: int = 1600
    prompt_relative_floor: float = 0.35
    # "Said since": beside each fact shown, at most this many later turns in scope that mention its slot
    # or its value (the user's first; an assistant turn only beside the user turn it answers). 0 = off,
    # which hides newer evidence behind older facts: only for measuring what it changes.
    prompt_since_items: int = 2
    prompt_since_chars: int = 160
    # An excerpt of the assistant's is held back (shown only beside the user turn it answers) when a
    # user turn matched as well: its fused score at least this share of the assistant turn's (1.0: as
    # well or better; lower holds back more of the assistant's turns).
    prompt_user_tie: float = 1.0

    def __post_init__(self) -> None:
        for name in ("lexical_budget", "local_scan_items"):
            if getattr(self, name) < 0:
                raise ValidationError("must not be negative", field=name)
        for name in ("lane_depth", "prompt_items", "prompt_chars", "prompt_excerpt_chars", "prompt_since_chars"):
            if getattr(self, name) < 1:
                raise ValidationError("must be at least 1", field=name)
        for name in (
            "rrf_k", "lexical_weight", "vector_weight", "exact_weight", "body_weight", "context_weight",
            "subject_boost", "neighbour_share", "vector_margin", "prompt_relative_floor", "episode_weight",
            "prompt_episode_items", "prompt_episode_items_present", "prompt_since_items", "prompt_user_tie",
        ):
            if getattr(self, name) < 0:
                raise ValidationError("must not be negative", field=name)

    @classmethod
    def preset(cls, name: str) -> "RecallConfig":
        try:
            return PRESETS[name]
        except KeyError:
            raise ValidationError(
                f"{name!r} is not a recall configuration; use one of {', '.join(sorted(PRESETS))}", field="config"
            ) from None

    def but(self, **changes: Any) -> "RecallConfig":
        """A copy with some fields changed (named `<name>+custom` so reports do not mislabel it)."""
        name = changes.pop("name", None) or (self.name if self.name.endswith("+custom") else f"{self.name}+custom")
        return replace(self, name=name, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


PRESETS: dict[str, RecallConfig] = {
    # The default: every lane, tuned on the LoCoMo dev split (evals/locomo_retrieval.py).
    "balanced": RecallConfig(),
    # Lexical and exact lanes only: no embedder is loaded; for hosts that cannot spare the memory.
    "lexical": RecallConfig(name="lexical", vector_weight=0.0),
    # Stricter gating and a smaller prompt block, for hosts that prefer silence to a weak match.
    "precise": RecallConfig(name="precise", vector_floor=0.55, vector_margin=0.18, prompt_items=3,
                            prompt_episode_items=2, prompt_relative_floor=0.5),
}
