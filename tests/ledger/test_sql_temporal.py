"""Temporal clauses on claims: every form, in both orders, against a small reference, live and snapshot."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from factledger.ledger import Ledger
from factledger.ledger.analytics import Analytics

from .sql_fixtures import NOW, Clause, all_versions, build_history, reference_ids


def c(text: str) -> str:
    """Canonical form of the test's times (dates, or datetimes with Z)."""
    if len(text) == 10:
        return f"{text}T00:00:00.000000Z"
    return text.replace("Z", ".000000Z") if "." not in text else text


VALID_FORMS: list[tuple[str, Clause | None]] = [
    ("", None),
    ("FOR VALID_TIME AS OF '2024-03-01'", Clause("AS OF", (c("2024-03-01"),))),
    ("FOR VALID_TIME AS OF TIMESTAMP '2024-06-15 12:00:00'", Clause("AS OF", ("2024-06-15T12:00:00.000000Z",))),
    ("for valid_time as of '2024-06-15T14:00:00+02:00'", Clause("AS OF", ("2024-06-15T12:00:00.000000Z",))),
    ("FOR VALID_TIME FROM '2024-02-01' TO '2024-02-15'", Clause("FROM", (c("2024-02-01"), c("2024-02-15")))),
    ("FOR VALID_TIME BETWEEN '2024-02-01' AND '2024-02-15'", Clause("BETWEEN", (c("2024-02-01"), c("2024-02-15")))),
    ("FOR VALID_TIME FROM '2024-07-01' TO '2024-07-01'", Clause("FROM", (c("2024-07-01"), c("2024-07-01")))),
    ("FOR ALL VALID_TIME", Clause("ALL")),
    ("FOR VALID_TIME ALL", Clause("ALL")),
]

SYSTEM_FORMS: list[tuple[str, Clause | None]] = [
    ("", None),
    ("FOR SYSTEM_TIME AS OF '2024-06-01T10:00:00Z'", Clause("AS OF", ("2024-06-01T10:00:00.000000Z",))),
    ("FOR SYSTEM_TIME AS OF TIMESTAMP '2024-03-15'", Clause("AS OF", (c("2024-03-15"),))),
    ("FOR SYSTEM_TIME FROM '2024-03-01' TO '2024-10-01'", Clause("FROM", (c("2024-03-01"), c("2024-10-01")))),
    ("FOR SYSTEM_TIME BETWEEN '2024-03-01' AND '2024-10-01'", Clause("BETWEEN", (c("2024-03-01"), c("2024-10-01")))),
    ("FOR ALL SYSTEM_TIME", Clause("ALL")),
    ("FOR SYSTEM_TIME ALL", Clause("ALL")),
]

COMBINATIONS = list(itertools.product(VALID_FORMS, SYSTEM_FORMS))


def ids(analytics: Analytics, query: str) -> list[int]:
    return sorted(row[0] for row in analytics.fetch(query)[1])


@pytest.mark.parametrize(("valid", "system"), COMBINATIONS, ids=[f"{v[0] or '-'} | {s[0] or '-'}" for v, s in COMBINATIONS])
def test_each_form_matches_the_reference_in_both_orders(analytics: Analytics, history_path: Path, valid, system) -> None:
    (valid_sql, valid_clause), (system_sql, system_clause) = valid, system
    expected = reference_ids(all_versions(history_path), valid_clause, system_clause)
    assert ids(analytics, f"SELECT id FROM claims {valid_sql} {system_sql}") == expected
    assert ids(analytics, f"SELECT id FROM claims {system_sql} {valid_sql}") == expected
    # After an alias too, and through a view over claims.
    assert ids(analytics, f"SELECT k.id FROM claims {valid_sql} {system_sql} AS k") == expected
    versions = analytics.fetch(f"SELECT sum(versions) FROM slots {system_sql} {valid_sql}")[1][0][0]
    assert (versions or 0) == len(expected)


def test_the_table_is_not_trivial(history_path: Path) -> None:
    """The forms above must tell versions apart, or the table-driven test could not fail."""
    versions = all_versions(history_path)
    answers = {tuple(reference_ids(versions, v[1], s[1])) for v, s in COMBINATIONS}
    assert len(answers) >= 15
    assert () in answers and tuple(v.id for v in versions) in answers


def test_default_is_current_truth(analytics: Analytics, history_path: Path) -> None:
    ledger = Ledger.open(history_path, read_only=True, clock=lambda: NOW)
    try:
        current = sorted(v.id for v in ledger.current())
    finally:
        ledger.close()
    assert current == [9, 12]  # valid now (Rome since April, Initech since November), as known now
    assert ids(analytics, "SELECT id FROM claims") == current
    assert ids(analytics, "FROM claims SELECT id") == current
    explicit = f"FOR VALID_TIME AS OF '{NOW}' FOR SYSTEM_TIME AS OF '{NOW}'"
    assert ids(analytics, f"SELECT id FROM claims {explicit}") == current


def test_boundaries_are_closed_open_and_closed(analytics: Analytics) -> None:
    # Version 10 (Oslo) starts at 2024-02-15; version 4 (Paris) ends at 2024-02-01.
    base = "SELECT id FROM claims FOR ALL SYSTEM_TIME FOR VALID_TIME"
    assert 10 not in ids(analytics, f"{base} FROM '2024-02-01' TO '2024-02-15'")
    assert 10 in ids(analytics, f"{base} BETWEEN '2024-02-01' AND '2024-02-15'")
    assert 4 not in ids(analytics, f"{base} BETWEEN '2024-02-01' AND '2024-02-15'")
    assert ids(analytics, f"{base} FROM '2024-03-01' TO '2024-02-01'") == []


def test_time_expressions_are_evaluated(analytics: Analytics) -> None:
    literal = ids(analytics, "SELECT id FROM claims FOR ALL SYSTEM_TIME FOR VALID_TIME FROM '2024-02-01' TO '2024-02-15'")
    computed = ids(
        analytics,
        "SELECT id FROM claims FOR ALL SYSTEM_TIME"
        " FOR VALID_TIME FROM TIMESTAMP '2024-02-01' TO TIMESTAMP '2024-02-01' + INTERVAL 14 DAY",
    )
    assert computed == literal
    latest = ids(analytics, "SELECT id FROM claims FOR SYSTEM_TIME AS OF (SELECT max(tx_time) FROM transactions)")
    assert latest == ids(analytics, "SELECT id FROM claims")


def test_several_references_take_their_own_clauses(analytics: Analytics) -> None:
    # What Ann was believed to live in on 2024-03-15 (as of then), next to what we know now.
    rows = analytics.fetch(
        "SELECT b.value AS believed, k.value AS known"
        " FROM claims FOR SYSTEM_TIME AS OF '2024-03-15' FOR VALID_TIME AS OF '2024-03-15' AS b"
        " JOIN claims FOR VALID_TIME AS OF '2024-03-15' AS k USING (scope, subject_key, predicate)"
        " WHERE predicate = 'lives_in'"
    )[1]
    assert rows == [("Rome", "Oslo")]


def test_claims_columns_are_typed_with_display_texts(analytics: Analytics) -> None:
    relation = analytics.sql("SELECT * FROM claims WHERE predicate = 'lives_in' AND valid_to IS NULL")
    types = dict(zip(relation.columns, (str(t) for t in relation.types)))
    assert types["valid_from"] == "TIMESTAMP WITH TIME ZONE" and types["tx_to"] == "TIMESTAMP WITH TIME ZONE"
    assert types["source"] == "VARCHAR[]"
    row = dict(zip(relation.columns, relation.fetchone()))
    assert (row["subject"], row["value"], row["statement"]) == ("Ann", "Rome", "Ann lives in Rome")
    assert row["source"] == ["turn:7"]


def test_clauses_inside_ctes_subqueries_and_unions(analytics: Analytics) -> None:
    everything = ids(analytics, "SELECT id FROM claims FOR ALL VALID_TIME FOR ALL SYSTEM_TIME")
    assert everything == list(range(1, 13))
    assert ids(analytics, "WITH v AS (SELECT * FROM claims FOR ALL SYSTEM_TIME FOR ALL VALID_TIME) SELECT id FROM v") == everything
    assert ids(analytics, "SELECT id FROM (SELECT id FROM claims FOR SYSTEM_TIME ALL FOR VALID_TIME ALL) AS x") == everything
    union = ids(
        analytics,
        "SELECT id FROM claims UNION SELECT id FROM claims FOR VALID_TIME AS OF '2024-03-01' FOR SYSTEM_TIME AS OF '2024-03-15'",
    )
    assert union == [2, 3, 5, 9, 12]  # jazz, Acme and Rome as believed in March, with current truth


def test_relation_converts_to_arrow(analytics: Analytics) -> None:
    table = analytics.sql("SELECT id, valid_from FROM claims ORDER BY id").to_arrow_table()
    assert table.column("id").to_pylist() == [9, 12]
    assert str(table.schema.field("valid_from").type) == "timestamp[us, tz=UTC]"


def test_default_sees_the_latest_knowledge_even_ahead_of_the_clock(tmp_path: Path) -> None:
    """Current truth includes a transaction stamped after `now` (an import, a clock that stepped back)."""
    path = tmp_path / "ledger.db"
    build_history(path)
    ledger = Ledger.open(path, clock=lambda: NOW)
    try:
        with ledger.transaction(principal="import:later", tx_time="2025-01-01T00:04:00Z") as tx:  # within the clock skew
            tx.supersede("work", "Bob", "works_at", "Globex", valid_from="2024-12-01")
        current = sorted(v.id for v in ledger.current())
    finally:
        ledger.close()
    with Analytics(path, clock=lambda: NOW) as analytics:
        assert ids(analytics, "SELECT id FROM claims") == current
        assert analytics.fetch("SELECT value FROM claims WHERE predicate = 'works_at'")[1] == [("Globex",)]
        as_of_now = analytics.fetch(f"SELECT value FROM claims FOR SYSTEM_TIME AS OF '{NOW}' WHERE predicate = 'works_at'")
        assert as_of_now[1] == [("Initech",)]
