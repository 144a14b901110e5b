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
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from factledger.ledger import EraseResult, Ledger, ScopeFamily
from factledger.ledger.erasure import mention_spans, only_redactions, redact

from .journal import erase_journal, journal_ids, turn_hash
from .model import Turn

# Columns that are identifiers or fixed vocabularies, never free text a value could sit in.
_NOT_TEXT = {"hash", "scope", "session", "role", "said_at", "appended_at", "digested_at", "extractor", "redactions",
             "op", "status", "decision", "policy", "cardinality", "created_at", "decided_at", "decided_by",
             "rejected_at", "rejected_by", "lifted_at", "lifted_by", "confirmed_at", "confirmed_by", "content_hash",
             "sources", "predicate"}


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
    first_seen: str | None = None  # when the earliest copy removed here was written (for exports)

    def to_dict(self) -> dict:
        return asdict(self)


def _redacted(row, values: Sequence[Sequence[str]]) -> dict[str, str]:
    """The row's free-text columns that mention a value, redacted."""
    changed = {}
    for column in row.keys():
        text = row[column]
        if column in _NOT_TEXT or not isinstance(text, str) or not text:
            continue
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
    storage = ledger.storage
    where, params = family.where("scope")
    counts: dict[str, object] = dict.fromkeys(MentionsErased.__dataclass_fields__, 0)
    seen = [v.tx_from for v in erased.erased]
    with storage.atomic():
        ids = journal_ids(erased.sources)
        if ids:
            row = storage.one("SELECT MIN(appended_at) FROM journal WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),))
            seen += [row[0]] if row and row[0] else []
        counts["source_turns_deleted"] = erase_journal(ledger, erased.sources)
        for row in storage.query(f"SELECT * FROM journal WHERE {where} ORDER BY id", params):
            changed = _redacted(row, values)
            if not changed:
                continue
            seen.append(row["appended_at"])
            storage.execute("DELETE FROM journal WHERE id = ?", (row["id"],))
            text = changed.get("text", row["text"])
            if only_redactions(text):
                counts["turns_deleted"] += 1
                continue
            record = {**{k: row[k] for k in row.keys()}, **changed}
            record["hash"] = turn_hash(Turn(scope=row["scope"], text=text, role=row["role"], session=row["session"], said_at=row["said_at"]))
            kinds = sorted(set(json.loads(row["redactions"] or "[]")) | {"erased"})
            record["redactions"] = json.dumps(kinds)
            columns = list(record)
            storage.execute(
                f"INSERT INTO journal ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
                " ON CONFLICT(hash) DO NOTHING",  # an identical redacted turn already stands for it
                [record[c] for c in columns],
            )
            counts["turns_redacted"] += 1
        for row in storage.query(f"SELECT * FROM proposals WHERE {where} ORDER BY id", params):
            if _mentions(row["value"], values) or _mentions(row["value_key"], values):
                seen.append(row["created_at"])
                storage.execute("DELETE FROM proposals WHERE id = ?", (row["id"],))
                counts["proposals_deleted"] += 1
            elif changed := _redacted(row, values):
                seen.append(row["created_at"])
                _update(ledger, "proposals", row["id"], changed)
                counts["proposals_redacted"] += 1
        for row in storage.query(f"SELECT * FROM rejections WHERE {where} ORDER BY id", params):
            changed = _redacted(row, values)
            if _mentions(row["value"], values) or _mentions(row["value_key"], values):
                changed.update(value="", value_key="")
            if changed:
                _update(ledger, "rejections", row["id"], changed)
                counts["rejections_redacted"] += 1
        for row in storage.query(f"SELECT * FROM confirmations WHERE {where} ORDER BY id", params):
            if _mentions(row["value"], values) or _mentions(row["value_key"], values):
                storage.execute("DELETE FROM confirmations WHERE id = ?", (row["id"],))
                counts["confirmations_deleted"] += 1
            elif changed := _redacted(row, values):
                _update(ledger, "confirmations", row["id"], changed)
                counts["confirmations_redacted"] += 1
    counts["first_seen"] = min(seen) if seen else None
    return MentionsErased(**counts)  # type: ignore[arg-type]


def _update(ledger: Ledger, table: str, row_id: int, changed: dict[str, str]) -> None:
    sets = ", ".join(f"{column} = ?" for column in changed)
    ledger.storage.execute(f"UPDATE {table} SET {sets} WHERE id = ?", [*changed.values(), row_id])
