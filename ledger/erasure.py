"""Following an erased value through free text: word-level normalised matching, redaction, scope families.

A value is matched as a run of words, each word normalised like every key (NFKC, casefold): "Lisbon"
matches "LISBON", "Ｌｉｓｂｏｎ" and "lisbon's"; "Acme Robotics" matches "acme  robotics" across any
spacing or punctuation between the two words. Scripts written without spaces (CJK, kana, Hangul) are
split into single characters, so "東京" matches inside "東京に住んでいる".

`Erasure` is the ledger's erase family (Ledger.erase, the secret, keyed content hashes, tombstones and
the erased-text guard); `Ledger` keeps thin methods that delegate here. Its reads and writes go through
the engine's erase recorder (ledger/erase_recorder.py); no SQL here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from .engines import erase_recorder
from .erase_recorder import GuardRow, Recorder, TombstoneRow
from .errors import NotFoundError, PermissionDenied, StorageError, ValidationError
from .keys import content_hash, key, keyed_hash, normalise, predicate_key
from .model import ClaimVersion, Transaction
from .values import check_principal, check_scope

if TYPE_CHECKING:
    from .store import Ledger

REDACTED = "[erased]"
# The erased-text guard tests word n-grams of an incoming text up to this length; a longer value is
# guarded by its first MAX_GUARD_WORDS words (which redacts it wherever it appears whole).
MAX_GUARD_WORDS = 64

# Letters, digits and combining marks (so a decomposed "é" stays one word).
_WORD = re.compile(r"(?:\w|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f])+")
# Scripts without spaces between words: every character is a word of its own.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]")

Word = tuple[str, int, int]  # (normalised word, start, end) in the original text


_SEGMENT = re.compile(f"{_UNSPACED.pattern}|(?:(?!{_UNSPACED.pattern}).)+", re.DOTALL)


def text_words(text: str) -> list[Word]:
    """The normalised words of `text` with their spans in the original."""
    found: list[Word] = []
    for match in _WORD.finditer(text):
        for segment in _SEGMENT.finditer(match.group()):
            start, end = match.start() + segment.start(), match.start() + segment.end()
            # NFKC may turn one character into several words ("¼" -> "1⁄4"): all keep the segment's span.
            for word in _WORD.findall(normalise(segment.group())):
                found.append((word, start, end))
    return found


def value_words(value: str) -> tuple[str, ...]:
    """The words a value is matched by (its normalised words, at most MAX_GUARD_WORDS)."""
    words = tuple(w for w, _, _ in text_words(value))
    if not words:
        raise ValidationError("has no letters or digits to match in text", field="value")
    return words[:MAX_GUARD_WORDS]


def mention_spans(text: str, values: Iterable[Sequence[str]]) -> list[tuple[int, int]]:
    """Spans of `text` where any of the word sequences occurs, merged and in order."""
    words = text_words(text)
    spans: list[tuple[int, int]] = []
    for wanted in values:
        n = len(wanted)
        if n == 0:
            continue
        for i in range(len(words) - n + 1):
            if words[i][0] == wanted[0] and tuple(w[0] for w in words[i : i + n]) == tuple(wanted):
                spans.append((words[i][1], words[i + n - 1][2]))
    return merge_spans(spans)


def redact_spans(text: str, spans: Sequence[tuple[int, int]]) -> str:
    out, position = [], 0
    for start, end in spans:
        out.append(text[position:start])
        out.append(REDACTED)
        position = end
    out.append(text[position:])
    return "".join(out)


def redact(text: str, values: Iterable[Sequence[str]]) -> tuple[str, int]:
    """`text` with every mention of the values replaced by REDACTED, and how many were replaced."""
    spans = mention_spans(text, values)
    return (redact_spans(text, spans), len(spans)) if spans else (text, 0)


def only_redactions(text: str) -> bool:
    """True when nothing but redaction markers (and punctuation) is left."""
    return not _WORD.search(text.replace(REDACTED, " "))


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@dataclass(frozen=True)
class ScopeFamily:
    """The scopes that belong to one person: exact scopes, and every scope beginning with a prefix.

    The ledger treats scopes as opaque; whoever composes scopes (the Hermes plugin) says which belong
    together, and erase follows the value into all of them.
    """

    exact: tuple[str, ...]
    prefixes: tuple[str, ...] = ()

    @classmethod
    def of(cls, scope: str) -> "ScopeFamily":
        return cls(exact=(scope,))

    def __post_init__(self) -> None:
        for item in (*self.exact, *self.prefixes):
            if not isinstance(item, str) or not item:
                raise ValidationError("scope family members must be non-empty strings", field="scope")

    def contains(self, scope: str) -> bool:
        return scope in self.exact or any(scope.startswith(p) for p in self.prefixes)

    def rules(self) -> list[tuple[str, str]]:
        """(match, scope) pairs as the erased-text guard stores them."""
        return [("exact", s) for s in self.exact] + [("prefix", p) for p in self.prefixes]

    def where(self, column: str = "scope") -> tuple[str, list[str]]:
        """A SQL condition on `column` selecting the family's scopes, with its parameters."""
        parts, params = [], []
        if self.exact:
            parts.append(f"{column} IN ({', '.join('?' for _ in self.exact)})")
            params.extend(self.exact)
        for prefix in self.prefixes:
            parts.append(f"substr({column}, 1, ?) = ?")
            params.extend([len(prefix), prefix])
        return "(" + " OR ".join(parts) + ")", params


def prefix_scope(prefix: str) -> str:
    """How a family prefix is spelled inside a tombstone's hashed tuple (never a real scope: those are
    matched exactly)."""
    return "prefix:" + prefix


@dataclass(frozen=True)
class EraseResult:
    erased: list[ClaimVersion]
    tombstones: list[str]
    tx: int
    repeated_sources: tuple[str, ...] = ()  # from writes that repeated the value without a new version
    family: ScopeFamily | None = None  # the scopes the value was followed into
    # The erased values' normalised words, for the parts that follow them into free text. In memory only:
    # neither stored nor printed.
    value_words: tuple[tuple[str, ...], ...] = field(default=(), repr=False)
    # Transactions whose reason or sources mentioned the value: redacted (their chain rows hash a salted
    # hash of the text, kept), or kept as written (a chain row that hashes the text itself: see chain.py).
    reasons_redacted: tuple[int, ...] = ()
    reasons_kept: tuple[int, ...] = ()

    @property
    def scopes(self) -> list[str]:
        return sorted({v.scope for v in self.erased})

    @property
    def sources(self) -> list[str]:
        """Every provenance reference of the erased value: its versions' and its repetitions'."""
        refs: list[str] = []
        for version in self.erased:
            refs.extend(r for r in version.source if r not in refs)
        refs.extend(r for r in self.repeated_sources if r not in refs)
        return refs

    def to_dict(self) -> dict:
        return {
            "tx": self.tx,
            "erased": [v.id for v in self.erased],
            "scopes": self.scopes,
            "tombstones": self.tombstones,
            "sources": self.sources,
            "reasons_redacted": list(self.reasons_redacted),
            "reasons_kept": list(self.reasons_kept),
        }


class Erasure:
    """One ledger's erase family, over its engine's erase recorder."""

    def __init__(self, ledger: "Ledger"):
        self.ledger = ledger
        self.recorder: Recorder = erase_recorder(ledger.storage)

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
        """See Ledger.erase."""
        ledger, recorder = self.ledger, self.recorder
        check_principal(principal)
        if not principal.startswith("operator:"):
            raise PermissionDenied("only an operator may erase", field="principal")
        scope = check_scope(scope)
        if not isinstance(reason, str):
            raise ValidationError("must be a string", field="reason")
        family = family or ScopeFamily.of(scope)
        if not family.contains(scope):
            raise ValidationError("the scope family must contain the erased scope", field="scope")
        subject_key = key(subject, "subject")
        pred = predicate_key(predicate)
        value_key = None if value is None else key(value, "value")
        with ledger.storage.atomic():
            rows = recorder.slot_versions(scope, subject_key, pred, value_key)
            if not rows:
                raise NotFoundError("nothing to erase: no version matches", field="value" if value else "subject")
            value_keys = sorted({r.value_key for r in rows})
            others = [s for s in ledger.scopes() if s != scope and family.contains(s)]
            if others:
                rows += recorder.family_versions(others, subject_key, pred, value_keys)
            words = tuple(dict.fromkeys(value_words(v) for v in value_keys))
            if mention_spans(reason, words):
                raise ValidationError(
                    "must not contain the erased value (the reason is kept in an append-only transaction)",
                    field="reason",
                )
            ids = [r.id for r in rows]
            redacted, kept = self._mentioning_texts(words, family)
            # A tombstone for every scope that held the value, every exact scope of the family, and every
            # prefix of it (so a scope of the person opened later is covered too).
            members = {r.scope for r in rows} | set(family.exact) | {prefix_scope(p) for p in family.prefixes}
            hashes = sorted({self.content_key(m, subject_key, pred, v) for m in members for v in value_keys})
            with ledger.transaction(principal=principal, reason=f"erase: {reason}".strip()) as tx:
                tx.record_erasure(ids)
                # Its chain row names the transactions whose reasons it redacts (ledger/chain.py, v2) ...
                tx.record_redaction([t.id for t in redacted])
                # ... and, inside the transaction, before its chain row, the redacted texts, its tombstones
                # and guard rules are written, so a keyed link covers them too (the schema lets only the
                # latest transaction, an operator's, drop a reason's salt and rewrite it: this one).
                if redacted:
                    ledger.recorder.redact_texts(tx.id, [t.id for t in redacted], redacted)
                recorder.add_tombstones([TombstoneRow(h, tx.tx_time, principal, reason) for h in hashes])
                recorder.add_guards(
                    [
                        GuardRow(match, member, len(w), keyed_hash(self.secret, " ".join(w)), tx.id)
                        for match, member in family.rules()
                        for w in words
                    ]
                )
            repeated = recorder.delete_versions(tx.id, principal, ids)
        return EraseResult(
            erased=rows, tombstones=hashes, tx=tx.id, repeated_sources=tuple(repeated), family=family, value_words=words,
            reasons_redacted=tuple(t.id for t in redacted), reasons_kept=tuple(kept),
        )

    def _mentioning_texts(
        self, words: Sequence[Sequence[str]], family: ScopeFamily
    ) -> tuple[list[Transaction], list[int]]:
        """The transactions whose reason or sources mention the value and that wrote in the person's scopes
        (or wrote no version at all), redacted: those whose chain row hashes a salted hash of the text
        (chain.py, v2), and the ids of the rest (v1 rows hash the text itself: it stays, and is named)."""
        ledger_recorder = self.ledger.recorder
        found: dict[int, Transaction] = {}
        for tx in ledger_recorder.transactions():
            reason, n = redact(tx.reason, words)
            sources = [redact(src, words) for src in tx.sources]
            if n or any(c for _, c in sources):
                found[tx.id] = Transaction(tx.id, tx.tx_time, tx.principal, reason, tuple(t for t, _ in sources))
        if not found:
            return [], []
        scopes = ledger_recorder.transaction_scopes(list(found))
        mine = [i for i in found if not scopes.get(i) or any(family.contains(sc) for sc in scopes[i])]
        texts = ledger_recorder.chain_texts()
        redactable = [found[i] for i in mine if i in texts and texts[i].salt is not None]
        kept = [i for i in mine if not (i in texts and texts[i].salt is not None)]
        return redactable, kept

    # -- keyed hashes and the erased-text guard -------------------------------------------------

    @cached_property
    def secret(self) -> str:
        found = self.recorder.secret()
        if found is None:
            raise StorageError("this ledger has no secret yet: open it once without read_only to migrate it")
        return found

    def content_key(self, scope: str, subject_key: str, predicate: str, value_key: str) -> str:
        return content_hash(self.secret, scope, subject_key, predicate, value_key)

    def erased(self, scope: str, subject_key: str, predicate: str, value_key: str) -> bool:
        prefixes = self.recorder.prefix_scopes_covering(scope)
        digests = [self.content_key(s, subject_key, predicate, value_key) for s in (scope, *map(prefix_scope, prefixes))]
        return self.recorder.any_tombstone(digests)

    def erased_spans(self, scope: str, text: str) -> list[tuple[int, int]]:
        guards: dict[int, set[str]] = {}
        for words_n, text_hash in self.recorder.guards_for(scope):
            guards.setdefault(words_n, set()).add(text_hash)
        if not guards:
            return []
        words = text_words(text)
        spans = []
        for n, hashes in guards.items():
            for i in range(len(words) - n + 1):
                if keyed_hash(self.secret, " ".join(w[0] for w in words[i : i + n])) in hashes:
                    spans.append((words[i][1], words[i + n - 1][2]))
        return merge_spans(spans)
