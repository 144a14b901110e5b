"""The SQL:2011 conformance table (sql2011_table.py) on both engines, and every statement form an
analyst coming from PostgreSQL or MariaDB types first: carried out, or refused with a position and a
reason (never a traceback, exit status 2 at the CLI).

One ledger per engine holds the whole table (each case has a slot of its own), so the table costs a
few transactions per case, not a database."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger import Ledger, LedgerError
from factledger.ledger.analytics import QueryRefused, SqlError, execute_write, plan_write
from factledger.ledger.times import format_time, parse_time, to_datetime

from .sql2011_table import CASES, Case, Refusal

SCOPE = "conf"
PREDICATES = {"one": "p_one", "many": "p_many"}
NOW = "2025-06-15T12:00:00.000000Z"


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def conformance_ledger(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """One ledger per engine for the whole table, dated by a fixed clock (tx times step by 1 µs)."""
    if request.param == "sqlite":
        location: str | Path = tmp_path_factory.mktemp("sql2011") / "ledger.db"
        drop = None
    else:
        from tests.conftest import _drop_postgres_database, _fresh_postgres_database

        cluster = request.getfixturevalue("postgres_cluster")
        name = _fresh_postgres_database(cluster, request.getfixturevalue("postgres_template"))
        location, drop = cluster.url(name), (cluster, name)
    ledger = Ledger.open(location, clock=lambda: NOW)
    with ledger.transaction(principal="operator:setup") as tx:
        tx.define("p_one", "one")
        tx.define("p_many", "many")
    yield ledger
    ledger.close()
    if drop is not None:
        _drop_postgres_database(*drop)


def _time(text: str | None, tx_time: str | None) -> str | None:
    if text is None:
        return None
    if text in ("tx", "today", "tx-7d"):
        assert tx_time is not None, "a row dated by the transaction needs one"
        moment = to_datetime(tx_time)
        if text == "today":
            moment = moment.replace(hour=0, minute=0, second=0, microsecond=0)
        elif text == "tx-7d":
            moment -= timedelta(days=7)
        return format_time(moment)
    return parse_time(text, "case")


def coalesced(rows, tx_time: str | None = None) -> list[tuple[str, str, str | None]]:
    """Rows as the ledger stores them: per value, adjacent or overlapping periods merged."""
    by_value: dict[str, list[tuple[str, str | None]]] = {}
    for value, start, end in rows:
        by_value.setdefault(value, []).append((_time(start, tx_time), _time(end, tx_time)))  # type: ignore[arg-type]
    out = []
    for value, periods in by_value.items():
        periods.sort()
        merged: list[list] = []
        for start, end in periods:
            if merged and (merged[-1][1] is None or start <= merged[-1][1]):
                if merged[-1][1] is not None and (end is None or end > merged[-1][1]):
                    merged[-1][1] = end
                continue
            merged.append([start, end])
        out.extend((value, start, end) for start, end in merged)
    return sorted(out, key=lambda r: (r[1], r[0]))


def held_rows(ledger: Ledger, subject: str, predicate: str) -> list[tuple[str, str, str | None]]:
    found = ledger.held(SCOPE, subject, predicate)
    spans = [] if found is None else found[1]
    return coalesced([(s.value, s.valid_from, s.valid_to) for s in spans])


def _transactions(ledger: Ledger) -> int:
    return ledger.storage.query("SELECT count(*) FROM transactions")[0][0]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_conformance(conformance_ledger: Ledger, case: Case) -> None:
    ledger = conformance_ledger
    subject = "case " + str(CASES.index(case))
    predicate = PREDICATES[case.cardinality]
    if case.initial:
        with ledger.transaction(principal="operator:setup") as tx:
            for value, start, end in case.initial:
                tx.add(SCOPE, subject, predicate, value, valid_from=start, valid_to=end)
    before = held_rows(ledger, subject, predicate)
    assert before == coalesced(case.initial)
    sql = case.statement.format(
        slot=f"scope = '{SCOPE}' AND subject = '{subject}' AND predicate = '{predicate}'",
        key=f"'{SCOPE}', '{subject}', '{predicate}'",
        subject_where=f"scope = '{SCOPE}' AND subject = '{subject}'",
    )
    count = _transactions(ledger)
    want = case.want
    if isinstance(want, Refusal):
        with pytest.raises(LedgerError) as caught:
            execute_write(ledger, sql, principal="operator:t")
        assert type(caught.value).__name__ == want.error, caught.value
        assert want.says in str(caught.value)
        assert held_rows(ledger, subject, predicate) == before and _transactions(ledger) == count
        return
    outcome = execute_write(ledger, sql, principal="operator:t")
    assert outcome.rows == case.want_rows
    tx_time = outcome.result.tx_time if outcome.result is not None else None
    assert held_rows(ledger, subject, predicate) == coalesced(want, tx_time)
    if outcome.rows == 0:  # a no-op writes no transaction
        assert outcome.result is None and _transactions(ledger) == count


def test_every_difference_on_purpose_says_why() -> None:
    for case in CASES:
        assert (case.ledger is None) == (case.why == ""), case.name


# -- statement forms: carried out, or refused with a position -----------------------------------------

SLOT = "scope = 's' AND subject = 'a' AND predicate = 'p'"
PORTION = "FOR PORTION OF VALID_TIME FROM '2000-01-01' TO '2001-01-01'"

REFUSED = [
    (f"UPDATE t {PORTION} SET value = '1' WHERE {SLOT}", "t", "writes go to claims, not t"),
    (f"UPDATE main.claims {PORTION} SET value = '1' WHERE {SLOT}", "main.claims", "not main.claims"),
    (f"UPDATE IGNORE claims {PORTION} SET value = '1' WHERE {SLOT}", "IGNORE", "all or nothing"),
    (f"DELETE FROM t {PORTION} WHERE {SLOT}", "t", "writes go to claims"),
    (f"ERASE FROM claims {PORTION} WHERE {SLOT}", "FOR", "no time clause"),
    (f"DELETE FROM claims {PORTION} WHERE {SLOT} RETURNING *", "RETURNING", "RETURNING cannot be expressed"),
    (f"WITH x AS (SELECT 1) UPDATE claims {PORTION} SET value = '1' WHERE {SLOT}", "x AS", "WITH cannot be expressed"),
    (f"UPDATE claims FOR PORTION OF valid_at FROM '2000-01-01' SET value = '1' WHERE {SLOT}", "valid_at", "VALID_TIME"),
    (f"UPDATE claims {PORTION} SET subject = 'b' WHERE {SLOT}", "subject", "DELETE it here and INSERT it there"),
    (f"UPDATE claims SET valid_from = '2001-01-01' WHERE {SLOT}", "valid_from", "to move a period"),
    (f"UPDATE claims {PORTION} SET value = '1' FROM other WHERE {SLOT}", "FROM other", "FROM cannot be expressed"),
    (f"DELETE FROM claims {PORTION} USING other WHERE {SLOT}", "other", "USING cannot be expressed"),
    ("REPLACE INTO claims (scope, subject, predicate, value) VALUES ('s', 'a', 'p', 'v')", "REPLACE", "SUPERSEDE"),
    ("INSERT INTO claims (scope, subject, predicate, value) VALUES ('s', 'a', 'p', 'v') ON CONFLICT DO NOTHING",
     "INSERT", "CONFLICT cannot be expressed"),
    (f"ERASE FROM claims WHERE scope = 's' AND predicate = 'p'", "WHERE", "must name subject"),
    (f"SUPERSEDE claims {PORTION} SET value = 'x' WHERE scope = 's' AND subject IN ('a', 'b') AND predicate = 'p'", "WHERE", "one slot"),
    (f"DELETE FROM claims {PORTION} WHERE {SLOT} OR value = 'v'", "scope", "OR joins conditions on one column"),
    (f"UPDATE claims FOR PORTION OF VALID_TIME FROM (SELECT max(valid_from) FROM claims) SET value = '1' WHERE {SLOT}",
     "SELECT", "constant time"),
    (f"UPDATE claims FOR PORTION OF VALID_TIME FROM valid_from SET value = '1' WHERE {SLOT}", "valid_from", "constant time"),
    (f"UPDATE claims FOR PORTION OF VALID_TIME FROM 'infinity' - INTERVAL 1 DAY SET value = '1' WHERE {SLOT}", "'infinity'", "unbounded"),
    (f"UPDATE claims FOR PORTION OF VALID_TIME ('[2000-01-01,2001-01-01]') SET value = '1' WHERE {SLOT}", "'[2000", "closed-open"),
    (f"SUPERSEDE claims {PORTION} SET value = value || '*' WHERE {SLOT}", "value", "text literal"),
    (f"UPDATE claims {PORTION} SET value = upper(value) WHERE {SLOT}", "UPPER", "text literal"),
    ("TRUNCATE claims", "TRUNCATE", "not taken"),
    ("INSERT OR REPLACE INTO claims (scope, subject, predicate, value) VALUES ('s', 'a', 'p', 'v')", "OR REPLACE", "SUPERSEDE"),
    (f"UPDATE claims {PORTION} SET value = $1 WHERE {SLOT}", "$1", "no value for parameter 1 (give --param 1="),
    (f"UPDATE claims {PORTION} SET value = 'x' WHERE scope = 's' AND subject = ? AND predicate = 'p'", "?", "no value for parameter 1"),
    (f"DELETE FROM claims {PORTION} WHERE {SLOT} ORDER BY 1 LIMIT 1", "ORDER", "ORDER cannot be expressed"),
]


@pytest.mark.parametrize(("sql", "text", "says"), REFUSED, ids=[r[0][:48] for r in REFUSED])
def test_refused_forms_name_position_and_reason(sql: str, text: str, says: str) -> None:
    with pytest.raises(SqlError) as caught:
        plan_write(sql)
    error = caught.value
    assert says in error.reason, error
    assert error.line == 1 and sql[error.column - 1 :].upper().startswith(text.upper()), (error.column, error.text)


@pytest.mark.parametrize(
    "sql",
    [
        f"UPDATE claims FOR PORTION OF VALID_TIME (tstzrange('2000-01-01', '2001-01-01')) SET value = 'x' WHERE {SLOT}",
        f"UPDATE claims FOR PORTION OF VALID_TIME ('[2000-01-01,2001-01-01)') SET value = 'x' WHERE {SLOT}",
        f"UPDATE claims FOR PORTION OF VALID_TIME (daterange('2000-01-01', '2001-01-01', '[)')) SET value = 'x' WHERE {SLOT}",
        f"UPDATE claims {PORTION} SET value = $1 WHERE {SLOT}",
        f"UPDATE claims AS c {PORTION} SET value = 'x' WHERE c.scope = 's' AND c.subject = 'a' AND c.predicate = 'p'",
        f"DELETE FROM claims {PORTION} WHERE scope = 's' AND subject IN ('a', 'b') AND (predicate = 'p' OR predicate = 'q')",
        f"DELETE FROM claims {PORTION} WHERE scope = 's' AND predicate = 'p'",
        f"UPDATE claims {PORTION} SET value = 'x'",
    ],
)
def test_peer_forms_are_taken(sql: str) -> None:
    plan = plan_write(sql, ["x"] if "$1" in sql else None)
    assert plan.statement in ("UPDATE", "DELETE")


def test_direct_target_and_in_lists_write_the_same_as_from_to(conformance_ledger: Ledger) -> None:
    """PostgreSQL 19's (tstzrange(a, b)) is FROM a TO b; subject IN (…) writes each slot, in one transaction."""
    ledger = conformance_ledger
    with ledger.transaction(principal="operator:setup") as tx:
        for subject in ("target a", "target b"):
            tx.add(SCOPE, subject, "p_one", "ten", valid_from="2018-01-01", valid_to="2020-01-01")
    outcome = execute_write(
        ledger,
        f"UPDATE claims FOR PORTION OF VALID_TIME (tstzrange('2019-01-01', NULL)) SET value = 'new'"
        f" WHERE scope = '{SCOPE}' AND subject IN ('target a', 'target b', 'target c') AND predicate = 'p_one'",
        principal="operator:t",
    )
    assert outcome.rows == 2 and outcome.result is not None
    assert len({v.opened_by for v in outcome.result.opened}) == 1 and len(outcome.result.opened) == 4
    for subject in ("target a", "target b"):
        assert held_rows(ledger, subject, "p_one") == coalesced(
            [("ten", "2018-01-01", "2019-01-01"), ("new", "2019-01-01", "2020-01-01")]
        )


def test_a_where_that_leaves_a_key_out_writes_every_slot_it_names(conformance_ledger: Ledger) -> None:
    ledger = conformance_ledger
    with ledger.transaction(principal="operator:setup") as tx:
        for subject in ("Wide A", "Wide B"):
            tx.add("wide", subject, "p_one", "ten", valid_from="2018-01-01", valid_to="2020-01-01")
        tx.add("wide", "Wide A", "p_many", "jazz", valid_from="2018-01-01", valid_to="2020-01-01")
        tx.add("narrow", "Wide A", "p_one", "ten", valid_from="2018-01-01", valid_to="2020-01-01")
    outcome = execute_write(
        ledger, "UPDATE claims FOR PORTION OF VALID_TIME FROM '2019-01-01' SET value = 'new' WHERE scope = 'wide' AND predicate = 'p_one'",
        principal="operator:t",
    )
    assert outcome.rows == 2 and outcome.result is not None
    assert {v.subject for v in outcome.result.opened if v.value == "new"} == {"Wide A", "Wide B"}  # display text kept
    leftovers = [("ten", "2018-01-01", "2019-01-01"), ("new", "2019-01-01", "2020-01-01")]
    for subject in ("Wide A", "Wide B"):
        found = ledger.held("wide", subject, "p_one")
        assert found is not None and coalesced([(s.value, s.valid_from, s.valid_to) for s in found[1]]) == coalesced(leftovers)
    assert [s.value for s in ledger.held("narrow", "Wide A", "p_one")[1]] == ["ten"]  # type: ignore[index]
    assert [s.value for s in ledger.held("wide", "Wide A", "p_many")[1]] == ["jazz"]  # type: ignore[index]


def test_no_where_is_every_slot_in_one_transaction(tmp_path: Path) -> None:
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        with ledger.transaction(principal="operator:t") as tx:
            tx.define("p", "one")
            for scope, subject in (("a", "x"), ("a", "y"), ("b", "x")):
                tx.add(scope, subject, "p", "ten", valid_from="2018-01-01", valid_to="2020-01-01")
        outcome = execute_write(ledger, "DELETE FROM claims FOR PORTION OF VALID_TIME FROM NULL TO NULL", principal="operator:t")
        assert outcome.rows == 3 and outcome.result is not None and len(outcome.result.closed) == 3
        assert ledger.held_slots() == []


def test_a_declared_period_name_reads_as_valid_time(conformance_ledger: Ledger) -> None:
    """PostgreSQL's tables name their period (valid_at), MariaDB's too (apptime): declared, it is VALID_TIME."""
    ledger = conformance_ledger
    with ledger.transaction(principal="operator:setup") as tx:
        tx.add(SCOPE, "period", "p_one", "ten", valid_from="2018-01-01", valid_to="2020-01-01")
    where = f"WHERE scope = '{SCOPE}' AND subject = 'period' AND predicate = 'p_one'"
    sql = f"DELETE FROM claims FOR PORTION OF valid_at FROM '2019-01-01' TO NULL {where}"
    with pytest.raises(QueryRefused, match="declare valid_at") as caught:
        execute_write(ledger, sql, principal="operator:t")
    assert sql[caught.value.column - 1 :].startswith("valid_at")
    outcome = execute_write(ledger, sql, principal="operator:t", period="valid_at")
    assert outcome.rows == 1 and held_rows(ledger, "period", "p_one") == coalesced([("ten", "2018-01-01", "2019-01-01")])
    with pytest.raises(QueryRefused, match="declare apptime"):
        plan_write(sql.replace("valid_at", "apptime"), period="valid_at")


def test_a_dry_run_resolves_against_the_ledger_and_writes_nothing(conformance_ledger: Ledger) -> None:
    ledger = conformance_ledger
    with ledger.transaction(principal="operator:setup") as tx:
        tx.add(SCOPE, "dry", "p_one", "ten", valid_from="2018-01-01", valid_to="2020-01-01")
    count = _transactions(ledger)
    sql = f"UPDATE claims FOR PORTION OF VALID_TIME FROM '2015-01-01' TO '2019-01-01' SET value = 'new' WHERE scope = '{SCOPE}' AND subject = 'dry' AND predicate = 'p_one'"
    outcome = execute_write(ledger, sql, principal="operator:t", dry_run=True)
    assert outcome.rows == 1 and outcome.result is None and _transactions(ledger) == count
    assert outcome.lines() == [{
        "op": "supersede", "scope": SCOPE, "subject": "dry", "predicate": "p_one", "value": "new",
        "valid_from": "2018-01-01T00:00:00.000000Z", "valid_to": "2019-01-01T00:00:00.000000Z", "replaces": "ten",
    }]


def test_cli_reports_rows_and_refuses_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        with ledger.transaction(principal="operator:t") as tx:
            tx.define("name", "one")
            tx.add("s", "1", "name", "ten", valid_from="2018-01-01", valid_to="2020-01-01")
    runner = CliRunner()
    where = "WHERE scope = 's' AND subject = '1' AND predicate = 'name'"
    refused = runner.invoke(cli, ["--db", str(path), "sql", "--write", "--dry-run",
                                  f"UPDATE t {PORTION} SET value = '1' {where}"], catch_exceptions=False)
    assert refused.exit_code == 2 and "writes go to claims, not t" in refused.stderr and "^" in refused.stderr
    nothing = runner.invoke(cli, ["--db", str(path), "sql", "--write",
                                  f"DELETE FROM claims FOR PORTION OF VALID_TIME FROM '2021-01-01' TO '2021-01-01' {where}"],
                            catch_exceptions=False)
    assert nothing.exit_code == 0 and nothing.stdout.startswith("DELETE 0"), nothing.output
    done = runner.invoke(cli, ["--db", str(path), "sql", "--write", "--json",
                               f"UPDATE claims FOR PORTION OF VALID_TIME FROM '2015-01-01' TO '2019-01-01' SET value = 'new' {where}"],
                         catch_exceptions=False)
    assert done.exit_code == 0, done.output
    import json

    report = json.loads(done.stdout)
    assert report["rows"] == 1 and report["operations"][0]["valid_from"] == "2018-01-01T00:00:00.000000Z"
    insert = ("INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to)\n"
              "  VALUES ('s', '1', 'name', 'ten', '2019-06-01', '2021-01-01')")
    overlap = runner.invoke(cli, ["--db", str(path), "sql", "--write", insert], catch_exceptions=False)
    assert overlap.exit_code == 2 and "line 2, column 10" in overlap.stderr and "WITHOUT OVERLAPS" in overlap.stderr
    assert overlap.stderr.splitlines()[-1] == " " * 11 + "^", overlap.stderr  # under the row, refused in the transaction
    table = runner.invoke(cli, ["--db", str(path), "sql", "SELECT value, valid_from, valid_to FROM claims FOR ALL VALID_TIME ORDER BY 2"],
                          catch_exceptions=False)
    # the count is the table's last line on stdout (a viewer joining stdout and stderr cannot run it into a row)
    assert table.exit_code == 0 and table.stdout.splitlines()[-2:] == ["ten    2019-01-01  2020-01-01", "(2 rows)"], table.output


def test_a_refusal_raised_after_the_transaction_began_writes_nothing(conformance_ledger: Ledger) -> None:
    """A bound relative to now is checked at the transaction time: refused there, rolled back."""
    ledger = conformance_ledger
    with ledger.transaction(principal="operator:setup") as tx:
        tx.add(SCOPE, "late", "p_one", "ten", valid_from="2018-01-01")
    count = _transactions(ledger)
    with pytest.raises(QueryRefused, match="before its start"):
        execute_write(
            ledger, f"DELETE FROM claims FOR PORTION OF VALID_TIME FROM now() TO now() - INTERVAL 1 DAY"
            f" WHERE scope = '{SCOPE}' AND subject = 'late' AND predicate = 'p_one'", principal="operator:t")
    sql = f"DELETE FROM claims FOR PORTION OF VALID_TIME FROM '0001-01-01' - INTERVAL 1 DAY WHERE scope = '{SCOPE}' AND subject = 'late'"
    with pytest.raises(QueryRefused, match="outside the years 0001–9999") as caught:
        execute_write(ledger, sql, principal="operator:t")
    assert sql[caught.value.column - 1 :].startswith("'0001-01-01' - INTERVAL")
    assert _transactions(ledger) == count


def test_no_combination_of_peer_phrases_ends_in_a_traceback(tmp_path: Path) -> None:
    """Heads, targets, clauses, SET and WHERE forms the peers accept, combined: each statement is carried
    out (here: dry-run against a ledger) or refused as an SqlError / LedgerError, never anything else.
    By default every head × clause × WHERE, with the tables and SET forms taken in turn (≈0.5 s); the
    whole product (≈26k statements, ≈30–90 s) with FACTLEDGER_HYPOTHESIS=thorough."""
    import itertools
    import os

    heads = ["UPDATE {t} {c} SET {s} {w}", "DELETE FROM {t} {c} {w}", "SUPERSEDE {t} {c} SET {s} {w}",
             "ERASE FROM {t} {c} {w}", "UPDATE IGNORE {t} {c} SET {s} {w}", "DELETE {t} {c} {w}"]
    tables = ["claims", "t", "main.claims", "claims AS c", "claims c"]
    clauses = ["", "FOR PORTION OF VALID_TIME FROM '2019-01-01' TO '2020-01-01'", "FOR PORTION OF valid_at FROM NULL TO NULL",
               "FOR PORTION OF VALID_TIME (daterange('2019-01-01', '2020-01-01'))", "FOR PORTION OF VALID_TIME ('[2019-01-01,)')",
               "FOR PORTION OF VALID_TIME FROM now() - INTERVAL '1 year 2 months' TO current_date + INTERVAL 1 DAY",
               "FOR ALL VALID_TIME", "FOR VALID_TIME AS OF '2019-01-01'", "FOR SYSTEM_TIME AS OF '2019-01-01'",
               "FOR PORTION OF VALID_TIME FROM 'x' TO 1", "FOR PORTION OF VALID_TIME FROM MAXVALUE TO MINVALUE",
               "FOR PORTION OF VALID_TIME FROM TIMESTAMP '9999-12-31' + INTERVAL 1 YEAR TO now() + INTERVAL 99999999999 DAY"]
    sets = ["value = 'x'", "value = value || '*'", "value = $1", "subject = 'b'", "valid_from = '2001-01-01'",
            "value = 'x', source = 'chat'", "value = NULL", "(value) = ('x')", "value = DEFAULT"]
    wheres = ["", f"WHERE {SLOT}", "WHERE scope = 's' AND subject IN ('a', 'b') AND predicate = 'p'", "WHERE value = 'ten' OR value = 'x'",
              f"WHERE {SLOT} RETURNING *", "WHERE subject = (SELECT 1)", "WHERE scope LIKE 's%'", "WHERE NOT scope = 's'"]
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        with ledger.transaction(principal="operator:t") as tx:
            tx.define("p", "one")
            tx.add("s", "a", "p", "ten", valid_from="2018-01-01")
        count = _transactions(ledger)
        if os.environ.get("FACTLEDGER_HYPOTHESIS") == "thorough":
            combos = list(itertools.product(heads, tables, clauses, sets, wheres))
        else:
            combos = [(h, tables[i % len(tables)], c, sets[i % len(sets)], w)
                      for i, (h, c, w) in enumerate(itertools.product(heads, clauses, wheres))]
        for head, table, clause, assign, where in combos:
            sql = " ".join(head.format(t=table, c=clause, s=assign, w=where).split())
            try:
                execute_write(ledger, sql, principal="operator:t", dry_run=True, params=["x"] if "$1" in sql else None)
            except SqlError as exc:
                assert exc.line >= 1 and exc.column >= 1 and exc.reason, sql
            except LedgerError:
                pass
        assert _transactions(ledger) == count


def test_an_overlapping_insert_points_at_its_row_dry_run_or_not(conformance_ledger: Ledger) -> None:
    """SQL's INSERT refuses what its WITHOUT OVERLAPS key already holds (the dry run too), pointing at the
    row; `apply add` of the same row extends the version (a value stated again)."""
    ledger = conformance_ledger
    with ledger.transaction(principal="operator:setup") as tx:
        tx.add(SCOPE, "again", "p_many", "jazz", valid_from="2018-01-01", valid_to="2020-01-01")
    count = _transactions(ledger)
    sql = (f"INSERT INTO claims (scope, subject, predicate, value, valid_from) VALUES ('{SCOPE}', 'again', 'p_many', 'folk', '2019-01-01'),"
           f" ('{SCOPE}', 'again', 'p_many', 'jazz', '2019-06-01')")
    for dry_run in (True, False):
        with pytest.raises(QueryRefused, match="row 2 .* overlaps 'jazz'") as caught:
            execute_write(ledger, sql, principal="operator:t", dry_run=dry_run)
        assert sql[caught.value.column - 1 :].startswith(f"('{SCOPE}', 'again', 'p_many', 'jazz'")
    assert _transactions(ledger) == count and held_rows(ledger, "again", "p_many") == coalesced([("jazz", "2018-01-01", "2020-01-01")])
    with ledger.transaction(principal="operator:t") as tx:
        tx.add(SCOPE, "again", "p_many", "jazz", valid_from="2019-06-01")
    assert held_rows(ledger, "again", "p_many") == coalesced([("jazz", "2018-01-01", None)])
