"""`verify`, recall side: the derived indexes agree with the ledger they are derived from.

- the vector outbox is drained (every change the ledger committed reached the vector companion);
- the vector companion holds one row per claim version, with the ledger's tx_to (a closed version still
  matters to as-of search), and nothing else;
- the lexical index (recall_fts) holds one row per claim version, with the version's sentence, and no
  row of a version that is not there (an erased one).

Functions take a Recall and return factledger.ledger.verify.Check records; the CLI adds them to the
ledger's VerifyReport.
"""

from __future__ import annotations

from factledger.ledger.verify import Check, Finding

from .engine import Recall


def check_outbox(recall: Recall) -> Check:
    rows = recall.ledger.storage.query("SELECT seq, claim_id, change FROM recall_outbox ORDER BY seq")
    return Check.of(
        "outbox_drained",
        [Finding("recall_outbox", r["seq"], f"{r['change']} of claim {r['claim_id']} not yet in the vector companion") for r in rows],
        "the vector outbox is drained",
        "{n} change(s) wait in the outbox (`factledger index sync` drains them)",
    )


def check_lexical(recall: Recall) -> Check:
    storage = recall.ledger.storage
    missing = storage.query(
        "SELECT t.id, f.body IS NULL AS absent FROM recall_claim_text t LEFT JOIN recall_fts f ON f.rowid = t.id"
        " WHERE f.rowid IS NULL OR f.body IS NOT t.text"
    )
    extra = storage.query("SELECT rowid FROM recall_fts WHERE rowid NOT IN (SELECT id FROM claims)")
    findings = [
        Finding("recall_fts", r["id"], "no lexical row for this claim version" if r["absent"] else "lexical row's text differs from the version's sentence")
        for r in missing
    ]
    findings += [Finding("recall_fts", r[0], "lexical row of no claim version (an erased value's words?)") for r in extra]
    return Check.of(
        "lexical_index",
        findings,
        "one lexical row per claim version, with its sentence",
        "{n} lexical row(s) out of step with the ledger (`factledger index rebuild` rewrites them)",
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
    ledger_rows = {r["id"]: r["tx_to"] for r in recall.ledger.storage.query("SELECT id, tx_to FROM claims")}
    findings = []
    for claim_id, tx_to in sorted(ledger_rows.items()):
        if claim_id not in indexed:
            findings.append(Finding("vector_index", claim_id, "claim version has no vector row"))
        elif indexed[claim_id] != tx_to:
            findings.append(Finding("vector_index", claim_id, f"vector row has tx_to {indexed[claim_id]}, the ledger {tx_to}"))
    findings += [
        Finding("vector_index", claim_id, "vector row of no claim version") for claim_id in sorted(set(indexed) - set(ledger_rows))
    ]
    return Check.of(
        "vector_index",
        findings,
        f"{len(indexed)} vector rows, one per claim version, tx_to as in the ledger",
        "{n} vector row(s) out of step with the ledger (`factledger index repair`)",
    )


def verify_recall(recall: Recall) -> list[Check]:
    """Every recall-side check, over one committed snapshot of the ledger."""
    with recall.ledger.storage.snapshot():
        return [check_outbox(recall), check_lexical(recall), check_vectors(recall)]
