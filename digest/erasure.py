"""Erase in the digest's tables: the value follows into every turn, proposal, rejection and confirmation
of the person's scopes that mentions it, not only those its claims cite as their source.

- The turns the erased versions cite as their source are deleted, with their proposals (`erase_journal`).
- Other journal turns that mention the value are redacted: the value's words become `[erased]`, and the
  row's `hash` is recomputed over the redacted text (the old one hashed the value). The row is deleted
  and inserted again under its id, so triggers on journal INSERT/DELETE (episodes' FTS and vectors)
  follow the change. A turn that is nothing but the value is deleted.
- Proposals whose value is the erased one are deleted (they are about it); others that mention it (a
  correction's `replaces`, a quote, a reason) are redacted in place.
- Rejections keep only their keyed hash (the tombstone keeps the value out now): value and value_key
  are emptied, the reason redacted. Confirmations of the value are deleted (there is nothing left to
  confirm); others' reasons are redacted.
- Session titles that mention it are redacted in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from factledger.ledger import EraseResult, Ledger, ScopeFamily
from factledger.ledger.erasure import mention_spans, only_redactions, redact

from .journal import erase_journal, journal_ids, turn_hash
from .model import TextRow, Turn
from .recorder import recorder_for

@dataclass(frozen=True)
class MentionsErased:
    source_turns_deleted: int = 0  # the turns the erased versions cite (with their proposals)
    turns_redacted: int = 0
    turns_deleted: int = 0
    proposals_deleted: int = 0
    proposals_redacted: int = 0
    rejections_redacted: int = 0
    confirmations_deleted: int = 0
    confirmations_redacted: int = 0
    titles_redacted: int = 0
    first_seen: str | None = None  # when the earliest copy removed here was written (for exports)

    def to_dict(self) -> dict:
        return asdict(self)


def _redacted(row: TextRow, values: Sequence[Sequence[str]]) -> dict[str, str]:
    """The row's free-text columns that mention a value, redacted."""
    changed = {}
    for column, text in row.texts.items():
        new, count = redact(text, values)
        if count:
            changed[column] = new
    return changed


def _mentions(text: object, values: Sequence[Sequence[str]]) -> bool:
    return isinstance(text, str) and bool(mention_spans(text, values))


def erase_mentions(ledger: Ledger, erased: EraseResult) -> MentionsErased:
    """Follow an erase into the digest's tables: the turns its versions cite are deleted (`erase_journal`),
    then every turn, proposal, rejection and confirmation of the family's scopes that mentions an erased
    value is redacted or deleted. Runs in the caller's transaction (one with the ledger's erase)."""
    values = erased.value_words
    family = erased.family or ScopeFamily(exact=tuple(erased.scopes))
    recorder = recorder_for(ledger.storage)
    counts: dict[str, object] = dict.fromkeys(MentionsErased.__dataclass_fields__, 0)
    seen = [v.tx_from for v in erased.erased]
    with ledger.storage.atomic():
        ids = journal_ids(erased.sources)
        if ids:
            first = recorder.first_appended(ids)
            seen += [first] if first else []
        counts["source_turns_deleted"] = erase_journal(ledger, erased.sources)
        for row in recorder.text_rows("journal", family):
            changed = _redacted(row, values)
            if not changed:
                continue
            seen.append(row.written_at)
            text = changed.get("text", row.texts.get("text", ""))
            if only_redactions(text):
                recorder.delete_entry(row.id)
                counts["turns_deleted"] += 1
                continue
            entry = recorder.entry(row.id)
            assert entry is not None
            digest = turn_hash(Turn(scope=entry.scope, text=text, role=entry.role, session=entry.session, said_at=entry.said_at))
            kinds = sorted(set(row.redactions) | {"erased"})
            recorder.replace_entry(row.id, texts=changed, hash=digest, redactions=kinds)
            counts["turns_redacted"] += 1
        for row in recorder.text_rows("proposals", family):
            if _mentions(row.texts.get("value"), values) or _mentions(row.texts.get("value_key"), values):
                seen.append(row.written_at)
                recorder.delete_row("proposals", row.id)
                counts["proposals_deleted"] += 1
            elif changed := _redacted(row, values):
                seen.append(row.written_at)
                recorder.redact_row("proposals", row.id, changed)
                counts["proposals_redacted"] += 1
        for row in recorder.text_rows("rejections", family):
            changed = _redacted(row, values)
            if _mentions(row.texts.get("value"), values) or _mentions(row.texts.get("value_key"), values):
                changed.update(value="", value_key="")
            if changed:
                recorder.redact_row("rejections", row.id, changed)
                counts["rejections_redacted"] += 1
        for row in recorder.text_rows("confirmations", family):
            if _mentions(row.texts.get("value"), values) or _mentions(row.texts.get("value_key"), values):
                recorder.delete_row("confirmations", row.id)
                counts["confirmations_deleted"] += 1
            elif changed := _redacted(row, values):
                recorder.redact_row("confirmations", row.id, changed)
                counts["confirmations_redacted"] += 1
        for row in recorder.text_rows("session_titles", family):  # a title naming the value keeps the rest
            if changed := _redacted(row, values):
                seen.append(row.written_at)
                recorder.redact_row("session_titles", row.id, changed)
                counts["titles_redacted"] += 1
    counts["first_seen"] = min(seen) if seen else None
    return MentionsErased(**counts)  # type: ignore[arg-type]
