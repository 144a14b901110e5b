"""The keyed chain and signed heads (DESIGN §8, issue 21 "Tamper evidence"), on both engines.

Each attack is a raw client with the triggers switched off the way each engine allows without leaving a
trace in the schema: SQLite's own shell with `.dbconfig enable_trigger off`, PostgreSQL's
`session_replication_role = replica`. The attacker knows the chain's algorithm (it is public) and
recomputes what it can; what it cannot write is a keyed link, a signed head, or the secret's HMAC.
On main every one of these attacks passed `verify`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from factledger.ledger import Ledger, ValidationError
from factledger.ledger import chain
from factledger.ledger.chain_key import ChainKey
from factledger.ledger.head import Head, take_head
from factledger.ledger.model import Transaction
from factledger.ledger.verify import VerifyReport, verify_ledger

pytestmark = pytest.mark.both_engines


# -- a raw client with the triggers off ------------------------------------------------------------


def untriggered(location, statements: list[str]) -> None:
    """Run `statements` in one transaction as a client that switched the triggers off."""
    if str(location).startswith("postgresql://"):
        import psycopg

        with psycopg.connect(str(location)) as conn:
            conn.execute("SET session_replication_role = replica")  # no triggers, no foreign-key checks
            for statement in statements:
                conn.execute(statement)
        return
    script = ".bail on\n.dbconfig enable_trigger off\nBEGIN;\n" + "".join(f"{s};\n" for s in statements) + "COMMIT;\n"
    done = subprocess.run(["sqlite3", str(location)], input=script, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def lit(value) -> str:
    return "NULL" if value is None else "'" + str(value).replace("'", "''") + "'"


# -- the ledger under attack -----------------------------------------------------------------------


@pytest.fixture
def key(tmp_path: Path) -> ChainKey:
    return ChainKey.create(tmp_path / "chain.key")


def build(location, key: ChainKey) -> None:
    """2024: Ann lives in Paris, then Rome; likes jazz; a phone number written then erased; a last add."""
    days = iter(range(11, 31))
    with Ledger.open(location, chain_key=key, clock=lambda: f"2024-01-{next(days)}T00:00:00.000000Z") as ledger:
        with ledger.transaction(principal="import:seed", tx_time="2024-01-10") as tx:
            tx.define("lives_in", "one")
            tx.add("home", "Ann", "lives_in", "Paris", valid_from="2023-01-01")
            tx.add("home", "Ann", "likes", "jazz", valid_from="2023-01-01")
        with ledger.transaction(principal="agent:hermes") as tx:  # 2
            tx.supersede("home", "Ann", "lives_in", "Rome", valid_from="2024-02-01")
        with ledger.transaction(principal="agent:hermes") as tx:  # 3
            tx.add("home", "Ann", "likes", "chess")
        with ledger.transaction(principal="operator:alice") as tx:  # 4
            tx.add("home", "Ann", "phone", "555-0100")
        ledger.erase(scope="home", subject="Ann", predicate="phone", principal="operator:dpo", reason="asked")  # 5
        with ledger.transaction(principal="agent:hermes") as tx:  # 6
            tx.add("home", "Ann", "likes", "opera")


def verify(location, key: ChainKey | None, head: Head | None = None) -> VerifyReport:
    with Ledger.open(location, read_only=True, chain_key=key) as ledger:
        return verify_ledger(ledger, against=head)


def failed(report: VerifyReport) -> dict[str, set[tuple[str, object]]]:
    return {c.name: {(f.table, f.row) for f in c.rows} for c in report.checks if not c.ok}


def head_of(location, key: ChainKey) -> Head:
    with Ledger.open(location, read_only=True, chain_key=key) as ledger:
        return take_head(ledger.storage, key)


def rows(location, sql: str) -> list[tuple]:
    with Ledger.open(location, read_only=True, chain_key=None) as ledger:
        return [tuple(r) for r in ledger.storage.query(sql)]


def recompute_unkeyed(
    location, rewritten: dict[int, tuple[str, str]], redact: dict[int, tuple[int, str]] | None = None
) -> list[str]:
    """What a forger who knows the (public) algorithm but not the key writes: the rewritten versions'
    content hashes and every chain link recomputed as sha256 from the first changed transaction on. With
    `redact` ({tx: (erase tx, new reason)}), reasons redacted as if that erase had: salt dropped,
    `redacted_by` set, the text rewritten."""
    statements = []
    with Ledger.open(location, read_only=True, chain_key=None) as ledger:
        recorder = ledger.recorder
        hashes = {h.claim_id: h for h in recorder.version_hashes()}
        for claim_id, (value, value_key) in rewritten.items():
            version = ledger.claim(claim_id)
            forged = type(version)(**{**version.__dict__, "value": value, "value_key": value_key})
            statements.append(f"UPDATE claims SET value = {lit(value)}, value_key = {lit(value_key)} WHERE id = {claim_id}")
            new_hash = chain.version_hash(forged, hashes[claim_id].salt)
            statements.append(f"UPDATE version_hashes SET content_hash = {lit(new_hash)} WHERE claim_id = {claim_id}")
            hashes[claim_id] = type(hashes[claim_id])(**{**hashes[claim_id].__dict__, "content_hash": new_hash})
        opened: dict[int, list] = {}
        closed: dict[int, list] = {}
        erased: dict[int, list] = {}
        for h in hashes.values():
            opened.setdefault(h.opened_by, []).append((h.claim_id, h.content_hash))
            if h.closed_by is not None:
                closed.setdefault(h.closed_by, []).append(h.claim_id)
            if h.erased_by is not None:
                erased.setdefault(h.erased_by, []).append(h.claim_id)
        texts = recorder.chain_texts()  # v2 rows: the link hashes the reason's salted hash (public too)
        for tx_id, (by, reason) in (redact or {}).items():
            texts[tx_id] = type(texts[tx_id])(None, texts[tx_id].text_hash, by)
            statements.append(f"UPDATE tx_chain SET text_salt = NULL, redacted_by = {by} WHERE tx_id = {tx_id}")
            statements.append(f"UPDATE transactions SET reason = {lit(reason)} WHERE id = {tx_id}")
        redacted: dict[int, list[int]] = {}
        for tx_id, t in texts.items():
            if t.redacted_by is not None:
                redacted.setdefault(t.redacted_by, []).append(tx_id)
        previous = chain.GENESIS
        for tx in recorder.transactions():
            t = texts.get(tx.id)
            previous = chain.link_hash(previous, tx, opened.get(tx.id, ()), closed.get(tx.id, ()), erased.get(tx.id, ()),
                                       text=None if t is None else t.text_hash, redacted=redacted.get(tx.id, ()))
            statements.append(f"UPDATE tx_chain SET chain_hash = {lit(previous)} WHERE tx_id = {tx.id}")
    return statements


# -- the attacks -----------------------------------------------------------------------------------


def test_a_clean_keyed_ledger_verifies_and_says_which_part_is_keyed(ledger_location, key: ChainKey) -> None:
    build(ledger_location, key)
    report = verify(ledger_location, key)
    assert report.ok, report.to_dict()
    assert report.keyed_part == f"transactions 1-6 keyed (HMAC-SHA256, key {key.key_id})"
    checks = {c.name: c for c in report.checks}
    assert checks["chain_key"].ok and checks["ledger_secret"].ok and checks["check_constraints"].ok
    # The links are not the public sha256 chain: nobody without the key can compute them.
    assert rows(ledger_location, "SELECT chain_hash FROM tx_chain WHERE tx_id = 1")[0][0] != chain.link_hash(
        chain.GENESIS, *_first_link_inputs(ledger_location))


def _first_link_inputs(location):
    with Ledger.open(location, read_only=True, chain_key=None) as ledger:
        tx = ledger.transaction_record(1)
        pairs, closed = ledger.recorder.hashes_of_transaction(1)
    return tx, pairs, closed, ()


def test_a_2024_value_rewritten_and_the_chain_recomputed_is_found(ledger_location, key: ChainKey) -> None:
    build(ledger_location, key)
    paris = rows(ledger_location, "SELECT id FROM claims WHERE value = 'Paris' AND tx_to IS NULL")[0][0]
    untriggered(ledger_location, recompute_unkeyed(ledger_location, {paris: ("Lima", "lima")}))
    assert rows(ledger_location, "SELECT value FROM claims WHERE id = %d" % paris) == [("Lima",)]
    report = verify(ledger_location, key)
    assert not report.ok
    # Every keyed link the forger rewrote is refused; the content hash alone no longer gives it away.
    assert ("tx_chain", 1) in failed(report)["hash_chain"]
    assert "claims" not in {t for t, _ in failed(report)["hash_chain"]}


def test_a_rewrite_that_also_removes_the_keying_is_found(ledger_location, key: ChainKey) -> None:
    """The downgrade: the keying row cleared, every link recomputed as the public unkeyed chain."""
    build(ledger_location, key)
    paris = rows(ledger_location, "SELECT id FROM claims WHERE value = 'Paris' AND tx_to IS NULL")[0][0]
    statements = ["UPDATE chain_keying SET keyed_from = NULL, key_id = NULL, secret_mac = NULL"]
    untriggered(ledger_location, statements + recompute_unkeyed(ledger_location, {paris: ("Lima", "lima")}))
    report = verify(ledger_location, key)
    assert not report.ok
    assert "chain is not keyed" in {c.name: c for c in report.checks}["chain_key"].details


def test_truncating_the_last_three_transactions_an_erase_among_them(ledger_location, key: ChainKey) -> None:
    """Undetected by self-consistency (stated in RELIABILITY); detected against a kept head."""
    build(ledger_location, key)
    kept = head_of(ledger_location, key)
    assert kept.tx == 6 and kept.signed
    t4 = rows(ledger_location, "SELECT tx_time FROM transactions WHERE id = 4")[0][0]
    statements = [
        "DELETE FROM claim_provenance WHERE tx_id >= 4",
        "DELETE FROM erased_texts WHERE erase_tx >= 4",
        f"DELETE FROM tombstones WHERE erased_at >= {lit(t4)}",
        "DELETE FROM claims WHERE opened_by >= 4",
        "DELETE FROM version_hashes WHERE opened_by >= 4",
        "UPDATE claims SET tx_to = NULL, closed_by = NULL WHERE closed_by >= 4",
        "UPDATE version_hashes SET closed_by = NULL WHERE closed_by >= 4",
        "DELETE FROM tx_chain WHERE tx_id >= 4",
        "DELETE FROM transactions WHERE id >= 4",
    ]
    if str(ledger_location).startswith("postgresql://"):
        t3 = rows(ledger_location, "SELECT tx_time FROM transactions WHERE id = 3")[0][0]
        statements.append(f"UPDATE ledger_head SET tx_id = 3, tx_time = {lit(t3)}")
    untriggered(ledger_location, statements)
    alone = verify(ledger_location, key)
    assert alone.ok and alone.transactions == 3, alone.to_dict()  # a consistent prefix: what a head is for
    report = verify(ledger_location, key, kept)
    assert not report.ok
    (against,) = [c for c in report.checks if c.name == "against_head"]
    assert [(f.table, f.row) for f in against.rows] == [("transactions", 6)]
    assert "ends at transaction 3" in against.rows[0].problem and "3 transaction(s) are gone" in against.rows[0].problem


def test_another_ledger_in_its_place_is_named(new_ledger_location, key: ChainKey) -> None:
    first, second = new_ledger_location(), new_ledger_location()
    build(first, key)
    build(second, key)  # the same writes, the same key: only the ledger's id tells them apart
    report = verify(second, key, head_of(first, key))
    (against,) = [c for c in report.checks if c.name == "against_head"]
    # PostgreSQL test databases are copies of one template (CREATE DATABASE ... TEMPLATE copies the id, as a
    # restored dump would): there the chain hash tells them apart.
    assert not against.ok and ("another ledger" in against.rows[0].problem or "another copy" in against.rows[0].problem)


def test_a_head_forged_or_altered_is_refused(ledger_location, key: ChainKey, tmp_path: Path) -> None:
    build(ledger_location, key)
    head = head_of(ledger_location, key)
    assert verify(ledger_location, key, head).ok
    moved = Head(head.ledger_id, head.tx, head.chain_hash, head.tx_time, "2030-01-01T00:00:00.000000Z", head.key_id, head.mac)
    report = verify(ledger_location, key, moved)
    assert "MAC does not verify" in failed_problem(report, "against_head")
    other = ChainKey.create(tmp_path / "other.key")
    report = verify(ledger_location, key, head.signed_with(other))
    assert f"signed with key {other.key_id}" in failed_problem(report, "against_head")


def failed_problem(report: VerifyReport, check: str) -> str:
    (found,) = [c for c in report.checks if c.name == check]
    assert not found.ok, report.to_dict()
    return " ".join(f.problem for f in found.rows) or found.details


@pytest.mark.parametrize("how", ["edited", "deleted"])
def test_a_tombstone_edited_or_deleted_is_found(ledger_location, key: ChainKey, how: str) -> None:
    """On main only a deleted *last* tombstone of an erase was found (by its time), an edited one never."""
    build(ledger_location, key)
    (stone,) = [r[0] for r in rows(ledger_location, "SELECT content_hash FROM tombstones")]
    change = (f"UPDATE tombstones SET content_hash = {lit('0' * 64)}" if how == "edited" else "DELETE FROM tombstones")
    untriggered(ledger_location, [f"{change} WHERE content_hash = {lit(stone)}"])
    report = verify(ledger_location, key)
    assert ("tx_chain", 5) in failed(report)["hash_chain"]  # the erase's keyed link covers its tombstones


def test_a_tombstone_forged_later_is_found(ledger_location, key: ChainKey) -> None:
    build(ledger_location, key)
    t6 = rows(ledger_location, "SELECT tx_time FROM transactions WHERE id = 6")[0][0]
    untriggered(ledger_location, [
        f"INSERT INTO tombstones (content_hash, erased_at, principal, reason) VALUES ({lit('f' * 64)}, {lit(t6)}, 'operator:mallory', '')"
    ])
    assert ("tombstones", "f" * 64) in failed(verify(ledger_location, key))["hash_chain"]


def test_the_ledger_secret_replaced_is_found(ledger_location, key: ChainKey) -> None:
    build(ledger_location, key)
    untriggered(ledger_location, [f"UPDATE ledger_secret SET secret = {lit('a' * 64)}"])
    report = verify(ledger_location, key)
    assert "differs from the secret the chain was keyed with" in failed_problem(report, "ledger_secret")


def test_writers_without_the_key_are_refused_and_write_nothing(ledger_location, key: ChainKey, tmp_path: Path) -> None:
    build(ledger_location, key)
    before = rows(ledger_location, "SELECT COUNT(*) FROM transactions")
    for given in (None, ChainKey.create(tmp_path / "wrong.key")):
        with Ledger.open(ledger_location, chain_key=given) as ledger:
            with pytest.raises(ValidationError) as refused:
                with ledger.transaction(principal="agent:hermes") as tx:
                    tx.add("home", "Ann", "likes", "tea")
        assert refused.value.field == "chain_key" and key.key_id in refused.value.message
        assert rows(ledger_location, "SELECT COUNT(*) FROM transactions") == before
    report = verify(ledger_location, None)
    assert "no chain key was given" in failed_problem(report, "chain_key")


def test_an_unkeyed_ledger_is_keyed_from_the_migration_point_on(request, ledger_engine, tmp_path: Path, key, monkeypatch) -> None:
    """A ledger written before the keyed chain's migration (SQLite 0022, PostgreSQL 0012: every link
    unkeyed, v2 rows since erase's 0021 / 0011) keeps verifying; opened with a key, it
    is keyed from its next transaction on, and verify says which part is which."""
    from factledger import schema
    from factledger.ledger import pg_recorder, pg_storage, sqlite_recorder, storage

    location = tmp_path / "old.db" if ledger_engine == "sqlite" else request.getfixturevalue("empty_postgres_url")
    keyed = next(m.version for m in schema.migrations(ledger_engine) if m.name == "keyed_chain")
    older = [m for m in schema.migrations(ledger_engine) if m.version < keyed]
    monkeypatch.setattr(storage, "migrations", lambda engine="sqlite": older)
    monkeypatch.setattr(pg_storage, "migrations", lambda engine="postgres": older)
    for recorder in (sqlite_recorder.SqliteLedgerRecorder, pg_recorder.PostgresLedgerRecorder):  # the old writer
        monkeypatch.setattr(recorder, "chain_state", lambda self: (self.last_chain_hash(), None))
        monkeypatch.setattr(recorder, "chain_keying", lambda self: None)
    with Ledger.open(location, chain_key=None) as ledger:
        for value in ("tea", "jazz"):
            with ledger.transaction(principal="agent:hermes") as tx:
                tx.add("home", "Ann", "likes", value)
    monkeypatch.undo()
    with Ledger.open(location, chain_key=key) as ledger:  # the keyed chain's migration runs, the chain is keyed
        assert ledger.recorder.chain_keying().keyed_from == 3
        with ledger.transaction(principal="agent:hermes") as tx:
            tx.add("home", "Ann", "likes", "chess")
    report = verify(location, key)
    assert report.ok, report.to_dict()
    assert report.keyed_part == (
        f"transactions 1-2 unkeyed (sha256, before the chain was keyed), 3-3 keyed (HMAC-SHA256, key {key.key_id})"
    )


@pytest.mark.sqlite_only
def test_a_check_constraint_broken_with_the_checks_off_is_found(ledger_path: Path, key: ChainKey) -> None:
    """SQLite keeps no CHECK constraints in the schema of a read-only connection, so the integrity_check
    verify runs on one passes them; verify now evaluates each one."""
    from factledger.digest import Journal, Turn

    build(ledger_path, key)
    with Ledger.open(ledger_path, chain_key=key) as ledger:
        Journal(ledger).append(Turn(scope="home", text="I like opera", said_at="2024-01-20T10:00:00Z"))
    done = subprocess.run(
        ["sqlite3", str(ledger_path)],
        input=".dbconfig enable_trigger off\nPRAGMA ignore_check_constraints = ON;\nUPDATE journal SET role = 'system';\n",
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = verify(ledger_path, key)
    assert failed(report) == {"check_constraints": {("journal", 1)}}  # nothing else looks at a turn's role
    assert {c.name: c for c in report.checks}["integrity_check"].ok  # what verify relied on before


def test_a_head_reads_back_from_its_text_and_json(ledger_location, key: ChainKey) -> None:
    build(ledger_location, key)
    head = head_of(ledger_location, key)
    assert Head.parse(head.to_text()) == head == Head.parse(json.dumps(head.to_dict()))
    assert head.mac_ok(key)
    for bad in ("hello", head.to_text().replace("tx=6", "tx=six"), '{"format": "x"}', head.to_text()[:-5]):
        with pytest.raises(ValidationError):
            Head.parse(bad)


def test_a_link_is_cheap_to_key() -> None:
    """The keyed link is one HMAC over the same payload: no extra statement per transaction."""
    key = ChainKey(b"k" * 32)
    keying = chain.ChainKeying("0" * 32, 1, key.key_id, "0" * 64)
    tx = Transaction(1, "2024-01-01T00:00:00.000000Z", "agent:a", "", ())
    assert chain.keyed_link(key, keying, chain.GENESIS, tx, [(1, "a" * 64)], [], []) != chain.link_hash(chain.GENESIS, tx, [(1, "a" * 64)], [], [])


# -- the keyed chain over erase's v2 rows (a reason's salted hash, the reasons an erase redacted) ---------


def test_an_erase_that_redacts_reasons_verifies_under_the_keyed_chain(ledger_location, key: ChainKey) -> None:
    """Erase redacts a reason and a source that name the value (their chain rows hash a salted hash of the
    text, not the text) and drops their salts; its own keyed link names the transactions it redacted and
    covers its tombstones; verify, with the key, passes."""
    with Ledger.open(ledger_location, chain_key=key) as ledger:
        with ledger.transaction(principal="operator:nurse", reason="Ann said she is treated at Vexmoor Clinic",
                                sources=["chat: Ann mentioned Vexmoor Clinic"]) as tx:
            tx.add("home", "Ann", "treated_at", "Vexmoor Clinic")
        with ledger.transaction(principal="agent:hermes") as tx:
            tx.add("home", "Ann", "likes", "jazz")
        result = ledger.erase(scope="home", subject="Ann", predicate="treated_at", principal="operator:dpo", reason="asked")
    assert result.reasons_redacted == (1,) and result.reasons_kept == ()
    ((reason, sources),) = rows(ledger_location, "SELECT reason, sources FROM transactions WHERE id = 1")
    assert "Vexmoor" not in reason + sources and "[erased]" in reason
    assert rows(ledger_location, "SELECT text_salt, redacted_by FROM tx_chain WHERE tx_id = 1") == [(None, 3)]
    report = verify(ledger_location, key)
    assert report.ok, report.to_dict()
    assert report.keyed_part == f"transactions 1-3 keyed (HMAC-SHA256, key {key.key_id})"
    # The erase's stored link is the keyed one over the redaction and its tombstones, not the public v2 link.
    with Ledger.open(ledger_location, read_only=True, chain_key=None) as ledger:
        (erase_link,) = [r[0] for r in ledger.storage.query("SELECT chain_hash FROM tx_chain WHERE tx_id = 3")]
        keying = ledger.recorder.chain_keying()
        texts = ledger.recorder.chain_texts()
        tx3 = ledger.transaction_record(3)
        previous = [r[0] for r in ledger.storage.query("SELECT chain_hash FROM tx_chain WHERE tx_id = 2")][0]
        erased_ids = [h.claim_id for h in ledger.recorder.version_hashes() if h.erased_by == 3]
        stones, guards = ledger.recorder.erase_marks(3, tx3.tx_time)
    assert stones and erased_ids
    args = (previous, tx3, [], [], erased_ids)
    left = [(1, chain.redacted_text_hash(reason, json.loads(sources)))]  # tx 1's text as the erase left it
    assert erase_link == chain.keyed_link(key, keying, *args, stones, guards, text=texts[3].text_hash, redacted=left)
    assert erase_link != chain.keyed_link(key, keying, *args, stones, guards, text=texts[3].text_hash)  # it names tx 1
    assert erase_link != chain.keyed_link(key, keying, *args, [], [], text=texts[3].text_hash, redacted=left)


def test_a_redaction_forged_outside_erase_is_found(ledger_location, key: ChainKey) -> None:
    """A raw client makes a reason look redacted by the erase (salt dropped, redacted_by set, the text
    rewritten) and recomputes every link with the public algorithm: the erase's keyed link, which names
    the transactions it redacted, no longer matches."""
    build(ledger_location, key)
    untriggered(ledger_location, recompute_unkeyed(ledger_location, {}, redact={2: (5, "[erased]")}))
    assert rows(ledger_location, "SELECT reason FROM transactions WHERE id = 2") == [("[erased]",)]
    report = verify(ledger_location, key)
    assert ("tx_chain", 5) in failed(report)["hash_chain"]


def test_a_redacted_reason_rewritten_afterwards_is_found(ledger_location, key: ChainKey) -> None:
    """Once redacted, a reason has no salt, so its own row no longer confirms its text; the erase's keyed
    link covers the text it left, so a later rewrite (with the triggers on, while the erase is the latest
    transaction; or off) is found at the erase."""
    with Ledger.open(ledger_location, chain_key=key) as ledger:
        with ledger.transaction(principal="operator:nurse", reason="Ann said she is treated at Vexmoor Clinic") as tx:
            tx.add("home", "Ann", "treated_at", "Vexmoor Clinic")
        ledger.erase(scope="home", subject="Ann", predicate="treated_at", principal="operator:dpo", reason="asked")
    assert verify(ledger_location, key).ok
    untriggered(ledger_location, ["UPDATE transactions SET reason = 'Ann is treated at Elsewhere Clinic' WHERE id = 1"])
    report = verify(ledger_location, key)
    assert ("tx_chain", 2) in failed(report)["hash_chain"]
