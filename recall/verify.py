"""`verify`, recall side: the derived indexes agree with the ledger they are derived from.

- the vector outbox is drained (every change the ledger committed reached the vector companion);
- the vector companion holds one row per claim version and per episode, with the ledger's tx_to (a
  closed version still matters to as-of search), and nothing else;
- the lexical indexes (recall_fts, recall_episode_fts) hold one row per claim version / episode, with its
  text, and no row of an item that is not there (an erased one).

Functions take a Recall and return factledger.ledger.verify.Check records; the CLI adds them to the
ledger's VerifyReport.
"""

from __future__ import annotations

from factledger.ledger.verify import Check, Finding

from .engine import Recall


_NAMES = {"fact": "claim version", "episode": "episode (journal turn)"}
# The outbox each kind's changes wait in (what findings name).
_OUTBOXES = {"fact": "recall_outbox", "episode": "recall_episode_outbox"}
_LEXICAL = {
    "missing": "no lexical row for this {name}",
    "differs": "lexical row's text differs from the {name}'s",
    "extra": "lexical row of no {name} (an erased value's words?)",
    "ahead": "lexical row of a {name} past the lexical watermark (recall_lanes_through moved back by a client outside factledger)",
}


def check_outbox(recall: Recall) -> Check:
    findings = [
        Finding(_OUTBOXES[e.kind], e.seq, f"{e.change} of {_NAMES[e.kind]} {e.item} not yet in the vector companion")
        for e in recall.recorder.outbox_entries()
    ]
    return Check.of(
        "outbox_drained",
        findings,
        "the vector outboxes are drained",
        "{n} change(s) wait in the outboxes (the next search, or `factledger index repair`, drains them)",
    )


def check_lexical(recall: Recall) -> Check:
    findings = [
        Finding(f.table, f.id, _LEXICAL[f.problem].format(name=_NAMES[f.kind])) for f in recall.recorder.lexical_faults()
    ]
    return Check.of(
        "lexical_index",
        findings,
        "one lexical row per claim version and per episode, with its text",
        "{n} lexical row(s) out of step with the ledger: the ledger's own triggers write them, so a client"
        " outside factledger changed them; no command rewrites the lexical index (`index rebuild` writes the"
        " vector index only): restore the ledger from a copy `factledger backup` made",
    )


def check_vectors(recall: Recall) -> Check:
    """The vector companion against the ledger's ids and tx_to. An absent companion is in step: it is
    built from the ledger on first use (and a lexical-only configuration never builds one)."""
    if not recall.uses_vectors:
        return Check("vector_index", True, "not used by this configuration (lexical only)")
    try:
        if recall.index.meta() is None:
            return Check("vector_index", True, "not built yet: the first search or `factledger index rebuild` builds it")
        indexed = recall.index.rows_state()
    except Exception as exc:  # any failure to read the folder is the finding: it is rebuildable from the ledger
        return Check("vector_index", False, f"cannot be read ({type(exc).__name__}: {exc}); `factledger index rebuild` recovers")
    findings = []
    expected: set[tuple[str, int]] = set()
    for kind in _NAMES:
        ledger_rows = recall.recorder.items_tx_to(kind)
        expected |= {(kind, i) for i in ledger_rows}
        for item, tx_to in sorted(ledger_rows.items()):
            key = (kind, item)
            if key not in indexed:
                findings.append(Finding("vector_index", item, f"{_NAMES[kind]} has no vector row"))
            elif indexed[key] != tx_to:
                findings.append(Finding("vector_index", item, f"vector row has tx_to {indexed[key]}, the ledger {tx_to}"))
    findings += [
        Finding("vector_index", item, f"vector row of no {_NAMES[kind]}") for kind, item in sorted(set(indexed) - expected)
    ]
    return Check.of(
        "vector_index",
        findings,
        f"{len(indexed)} vector rows, one per claim version and episode, tx_to as in the ledger",
        "{n} vector row(s) out of step with the ledger (`factledger index repair`)",
    )


def verify_recall(recall: Recall) -> list[Check]:
    """Every recall-side check, over one committed snapshot of the ledger. A ledger this process may
    write gets its pending lexical rows first (SQLite, migration 0027); on a read-only one they are
    pending, not missing."""
    recall.ledger.catch_up_lanes()
    with recall.ledger.storage.snapshot():
        return [check_outbox(recall), check_lexical(recall), check_vectors(recall)]
