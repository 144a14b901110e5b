"""Attacks on a SQLite ledger's history as its file's owner would try them, and what `verify` says.

Each attack starts from the same small ledger (2024 writes, an erase, a last add) and is a raw client
with the triggers off (SQLite's own shell, `.dbconfig enable_trigger off`: no trace in the schema) that
knows the chain's algorithm, or a file operation (a restored backup, another ledger put in place). Each
is then verified as `factledger verify` would: alone, and against the head kept before the attack
(where this code has heads). Printed: refused (the write did not happen), detected (verify fails),
undetected (verify passes).

Runs on this checkout and on an older one (it looks for the keyed chain and heads and reports "n/a"
without them), which is how RELIABILITY's "before" column was measured:

    .venv/bin/python evals/tamper_attacks.py [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

from factledger.digest import Journal, Turn
from factledger.ledger import Ledger, chain
from factledger.ledger.backup import backup
from factledger.ledger.verify import verify_ledger

try:  # the keyed chain and signed heads (issue 21)
    from factledger.ledger.head import take_head

    HEADS = True
except ImportError:  # an older checkout
    HEADS = False


def lit(value) -> str:
    return "NULL" if value is None else "'" + str(value).replace("'", "''") + "'"


def untriggered(path: Path, statements: list[str], *, checks_off: bool = False) -> None:
    pragma = "PRAGMA ignore_check_constraints = ON;\n" if checks_off else ""
    script = ".bail on\n.dbconfig enable_trigger off\n" + pragma + "BEGIN;\n" + "".join(f"{s};\n" for s in statements) + "COMMIT;\n"
    done = subprocess.run(["sqlite3", str(path)], input=script, capture_output=True, text=True, timeout=60)
    if done.returncode:
        raise RuntimeError(done.stderr)


def build(path: Path, *, before_erase: Path | None = None) -> None:
    """Five transactions in 2024; a backup to `before_erase` (when given) just before the erase (4)."""
    days = iter(range(11, 31))
    with Ledger.open(path, clock=lambda: f"2024-01-{next(days)}T00:00:00.000000Z") as ledger:
        with ledger.transaction(principal="import:seed", tx_time="2024-01-10") as tx:
            tx.define("lives_in", "one")
            tx.add("home", "Ann", "lives_in", "Paris", valid_from="2023-01-01")
        with ledger.transaction(principal="agent:hermes") as tx:  # 2
            tx.add("home", "Ann", "likes", "jazz")
        with ledger.transaction(principal="operator:alice") as tx:  # 3
            tx.add("home", "Ann", "treated_at", "Vexmoor Clinic")
        if before_erase is not None:
            backup(ledger, before_erase)
        ledger.erase(scope="home", subject="Ann", predicate="treated_at", principal="operator:dpo", reason="asked")  # 4
        with ledger.transaction(principal="agent:hermes") as tx:  # 5
            tx.add("home", "Ann", "likes", "opera")
        Journal(ledger).append(Turn(scope="home", text="I like opera", said_at="2024-01-20T10:00:00Z"))


def recomputed(path: Path, claim_id: int, value: str, *, unkey: bool = False) -> list[str]:
    """The forger's statements: the value rewritten, its content hash and every link recomputed with
    the public (unkeyed) algorithm, and with `unkey` (where there is one) the chain's keying cleared."""
    statements = [f"UPDATE claims SET value = {lit(value)}, value_key = {lit(value.lower())} WHERE id = {claim_id}"]
    with Ledger.open(path, read_only=True) as ledger:
        recorder = ledger.recorder
        hashes = {h.claim_id: h for h in recorder.version_hashes()}
        version = ledger.claim(claim_id)
        forged = type(version)(**{**version.__dict__, "value": value, "value_key": value.lower()})
        new_hash = chain.version_hash(forged, hashes[claim_id].salt)
        statements.append(f"UPDATE version_hashes SET content_hash = {lit(new_hash)} WHERE claim_id = {claim_id}")
        hashes[claim_id] = type(hashes[claim_id])(**{**hashes[claim_id].__dict__, "content_hash": new_hash})
        opened, closed, erased = {}, {}, {}
        for h in hashes.values():
            opened.setdefault(h.opened_by, []).append((h.claim_id, h.content_hash))
            if h.closed_by is not None:
                closed.setdefault(h.closed_by, []).append(h.claim_id)
            if h.erased_by is not None:
                erased.setdefault(h.erased_by, []).append(h.claim_id)
        # A checkout with v2 rows (erase's reason hashes) links the reason's salted hash: public as well.
        texts = recorder.chain_texts() if hasattr(recorder, "chain_texts") else {}
        redacted: dict[int, list[int]] = {}
        for tx_id, t in texts.items():
            if t.redacted_by is not None:
                redacted.setdefault(t.redacted_by, []).append(tx_id)
        previous = chain.GENESIS
        for tx in recorder.transactions():
            t = texts.get(tx.id)
            extra = {} if t is None else {"text": t.text_hash, "redacted": redacted.get(tx.id, ())}
            previous = chain.link_hash(previous, tx, opened.get(tx.id, ()), closed.get(tx.id, ()), erased.get(tx.id, ()), **extra)
            statements.append(f"UPDATE tx_chain SET chain_hash = {lit(previous)} WHERE tx_id = {tx.id}")
        if unkey and ledger.storage.one("SELECT 1 FROM sqlite_master WHERE name = 'chain_keying'"):
            statements.append("UPDATE chain_keying SET keyed_from = NULL, key_id = NULL, secret_mac = NULL")
    return statements


def truncation(path: Path, keep: int) -> list[str]:
    conn = sqlite3.connect(path)
    (first_gone,) = conn.execute("SELECT tx_time FROM transactions WHERE id = ?", (keep + 1,)).fetchone()
    conn.close()
    n = keep + 1
    return [
        f"DELETE FROM claim_provenance WHERE tx_id >= {n}", f"DELETE FROM erased_texts WHERE erase_tx >= {n}",
        f"DELETE FROM tombstones WHERE erased_at >= {lit(first_gone)}", f"DELETE FROM claims WHERE opened_by >= {n}",
        f"DELETE FROM version_hashes WHERE opened_by >= {n}",
        f"UPDATE claims SET tx_to = NULL, closed_by = NULL WHERE closed_by >= {n}",
        f"UPDATE version_hashes SET closed_by = NULL WHERE closed_by >= {n}",
        f"DELETE FROM tx_chain WHERE tx_id >= {n}", f"DELETE FROM transactions WHERE id >= {n}",
    ]


def attack(name: str, folder: Path) -> dict:
    path = folder / "ledger.db"
    build(path, before_erase=folder / "before-erase.db")
    head = None
    if HEADS:
        with Ledger.open(path, read_only=True) as ledger:
            head = take_head(ledger.storage, ledger.chain_key)
    refused = False
    if name == "rewrite a 2024 value, recompute its hash and every link":
        untriggered(path, recomputed(path, 1, "Lima"))
    elif name == "the same, and clear the chain's keying (a downgrade)":
        untriggered(path, recomputed(path, 1, "Lima", unkey=True))
    elif name == "truncate the last three transactions (an erase among them)":
        untriggered(path, truncation(path, 2))
    elif name == "restore a backup taken before the erase":
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(folder / "before-erase.db", path)
    elif name == "put another ledger (file and key) in its place":
        other = folder / "other"
        other.mkdir()
        build(other / "ledger.db")
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(other / "ledger.db", path)
        if Path(f"{other}/ledger.db.chain-key").exists():
            shutil.copyfile(f"{other}/ledger.db.chain-key", f"{path}.chain-key")
    elif name == "edit the erase's tombstone":
        untriggered(path, [f"UPDATE tombstones SET content_hash = {lit('0' * 64)}"])
    elif name == "replace the ledger secret":
        untriggered(path, [f"UPDATE ledger_secret SET secret = {lit('a' * 64)}"])
    elif name == "break a CHECK constraint (checks and triggers off)":
        untriggered(path, ["UPDATE journal SET role = 'system'"], checks_off=True)  # CHECK (role IN ('user', 'assistant'))
    elif name == "edit a value with the triggers on":
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            conn.execute("UPDATE claims SET value = 'Lima' WHERE id = 1")
        except sqlite3.Error:
            refused = True
        conn.close()
    if refused:
        return {"attack": name, "alone": "refused", "against_head": "refused"}
    with Ledger.open(path, read_only=True) as ledger:
        alone = verify_ledger(ledger)
        against = verify_ledger(ledger, against=head) if head is not None else None
    result = {"attack": name, "alone": "detected" if not alone.ok else "undetected",
              "alone_failed": [c.name for c in alone.failed]}
    if against is None:
        result["against_head"] = "n/a (no heads)"
    else:
        result["against_head"] = "detected" if not against.ok else "undetected"
        result["against_failed"] = [c.name for c in against.failed]
    return result


ATTACKS = [
    "edit a value with the triggers on",
    "rewrite a 2024 value, recompute its hash and every link",
    "the same, and clear the chain's keying (a downgrade)",
    "truncate the last three transactions (an erase among them)",
    "restore a backup taken before the erase",
    "put another ledger (file and key) in its place",
    "edit the erase's tombstone",
    "replace the ledger secret",
    "break a CHECK constraint (checks and triggers off)",
]


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = []
    root = Path(tempfile.mkdtemp(prefix="factledger-tamper-"))
    try:
        for n, name in enumerate(ATTACKS):
            folder = root / f"a{n}"
            folder.mkdir()
            results.append(attack(name, folder))
    finally:
        shutil.rmtree(root)
    if args.json:
        print(json.dumps(results))
    else:
        for r in results:
            print(f"{r['attack']}: alone {r['alone']} {r.get('alone_failed', '')}; against the kept head {r['against_head']} {r.get('against_failed', '')}")
    return results


if __name__ == "__main__":
    main()
