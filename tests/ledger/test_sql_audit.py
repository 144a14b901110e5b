"""Audit helpers (slot_history, changes_between, activity) and the plain views, on the fixed history;
views for tables added by later migrations are registered when (and only when) those tables exist."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from factledger.ledger import Ledger
from factledger.ledger.analytics import Analytics, SqlExecutionError

from .sql_fixtures import NOW, all_versions


def records(analytics: Analytics, query: str) -> list[dict]:
    columns, rows = analytics.fetch(query)
    return [dict(zip(columns, row)) for row in rows]


def test_slot_history_names_who_and_why(analytics: Analytics) -> None:
    rows = records(analytics, "SELECT * FROM slot_history(' ANN ', 'Lives In')")  # keys are normalised
    assert [(r["id"], r["value"], r["opened_principal"], r["closed_principal"]) for r in rows] == [
        (1, "Paris", "import:crm", "digest:rules"),
        (4, "Paris", "digest:rules", None),
        (5, "Rome", "digest:rules", "operator:alice"),
        (8, "Rome", "operator:alice", None),  # the correction: Rome until Oslo,
        (10, "Oslo", "operator:alice", None),  # Oslo from mid-February to April,
        (9, "Rome", "operator:alice", None),  # Rome again from April (tx order, then valid order)
    ]
    assert rows[2]["opened_reason"] == "moved" and rows[2]["closed_reason"] == "correction"
    assert rows[2]["source"] == ["turn:7"]
    assert records(analytics, "SELECT * FROM slot_history('ann', 'lives_in', in_scope := 'work')") == []


def _visible(version, at: str) -> bool:
    return version.tx_from <= at and (version.tx_to is None or version.tx_to > at)


@pytest.mark.parametrize(("then", "now"), [("2024-03-01", "2024-10-01"), ("2024-10-01", "2024-03-01"), ("2024-01-01", "2025-01-01")])
def test_changes_between_two_knowledge_times(analytics: Analytics, history_path: Path, then: str, now: str) -> None:
    t1, t2 = f"{then}T00:00:00.000000Z", f"{now}T00:00:00.000000Z"
    versions = all_versions(history_path)
    expected = sorted(
        [("appeared", v.id) for v in versions if _visible(v, t2) and not _visible(v, t1)]
        + [("disappeared", v.id) for v in versions if _visible(v, t1) and not _visible(v, t2)]
    )
    rows = records(analytics, f"SELECT * FROM changes_between('{then}', '{now}')")
    assert sorted((r["change"], r["id"]) for r in rows) == expected
    assert expected  # the pairs above do change something
    low, high = min(t1, t2), max(t1, t2)
    for r in rows:  # each change names the transaction between the two times that made it
        assert low < r["tx_time"].strftime("%Y-%m-%dT%H:%M:%S.%fZ") <= high


def test_changes_between_names_the_transaction(analytics: Analytics) -> None:
    rows = records(analytics, "SELECT * FROM changes_between('2024-09-15', TIMESTAMP '2024-10-02')")
    assert {(r["change"], r["id"], r["principal"], r["reason"]) for r in rows} == {
        ("disappeared", 5, "operator:alice", "correction"),
        ("appeared", 8, "operator:alice", "correction"),
        ("appeared", 9, "operator:alice", "correction"),
        ("appeared", 10, "operator:alice", "correction"),
    }


def test_activity_per_principal(analytics: Analytics) -> None:
    rows = records(analytics, "SELECT * FROM activity('2024-01-01', '2025-01-01')")
    summary = {r["principal"]: (r["transactions"], r["versions_opened"], r["versions_closed"], r["changes"]) for r in rows}
    assert summary == {
        "digest:rules": (3, 5, 3, 3),
        "import:crm": (1, 3, 0, 0),
        "operator:alice": (1, 3, 1, 1),
        "agent:hermes": (1, 1, 0, 0),
    }
    assert rows[0]["principal"] == "digest:rules" and rows[0]["principal_kind"] == "digest"


def test_activity_period_is_closed_open_and_honours_offsets(analytics: Analytics) -> None:
    # 2024-03-01T01:00+01:00 is the digest's transaction instant (midnight UTC): included; 09-01 excluded.
    rows = records(analytics, "SELECT principal, transactions FROM activity('2024-03-01T01:00:00+01:00', '2024-09-01')")
    assert {r["principal"]: r["transactions"] for r in rows} == {"digest:rules": 1, "agent:hermes": 1}


def test_transactions_and_predicates_views(analytics: Analytics) -> None:
    rows = records(analytics, "SELECT * FROM transactions ORDER BY id")
    assert len(rows) == 6
    assert rows[2]["tx_time"] == datetime(2024, 6, 1, 10, 0, tzinfo=timezone.utc)  # 12:00+02:00, in UTC (timezone-aware)
    assert (rows[2]["principal"], rows[2]["principal_kind"], rows[2]["reason"]) == ("agent:hermes", "agent", "summer")
    assert rows[0]["sources"] == []
    predicates = records(analytics, "SELECT name, cardinality, template FROM predicates ORDER BY name")
    assert [(p["name"], p["cardinality"]) for p in predicates] == [("likes", "many"), ("lives_in", "one"), ("works_at", "one")]


def test_slots_view_groups_values(analytics: Analytics) -> None:
    rows = records(
        analytics,
        "SELECT subject, predicate, \"values\" FROM slots FOR VALID_TIME AS OF '2024-06-15' ORDER BY predicate",
    )
    assert [(r["subject"], r["predicate"], r["values"]) for r in rows] == [
        ("Ann", "likes", ["jazz", "blues"]),
        ("Ann", "lives_in", ["Rome"]),
        ("Bob", "works_at", ["Acme"]),
    ]


def test_describe_lists_views_and_macros(analytics: Analytics) -> None:
    names = {item["name"] for item in analytics.describe()}
    assert {"claims", "slots", "claim_versions", "transactions", "predicates", "slot_history", "changes_between", "activity"} <= names
    # The digest's tables (migration 0002) get their views.
    assert {"journal", "proposals", "rejections", "confirmations"} <= names


def test_views_follow_the_tables_that_exist(tmp_path: Path) -> None:
    """A table another part owns gets its view with text timestamps typed; a missing one gets none."""
    path = tmp_path / "ledger.db"
    ledger = Ledger.open(path, clock=lambda: NOW)
    try:
        ledger.storage.execute(
            "INSERT INTO journal (scope, role, text, said_at, hash, appended_at)"
            " VALUES ('s', 'user', 'I moved to Rome', '2024-02-01T09:00:00.000000Z', 'h1', ?)",
            (NOW,),
        )
        ledger.storage.execute("DROP TABLE confirmations")
    finally:
        ledger.close()
    with Analytics(path, clock=lambda: NOW) as analytics:
        names = {item["name"] for item in analytics.describe()}
        assert "journal" in names and "confirmations" not in names
        relation = analytics.sql("SELECT id, scope, text, said_at, digested_at FROM journal")
        types = dict(zip(relation.columns, (str(t) for t in relation.types)))
        assert types["said_at"] == "TIMESTAMP WITH TIME ZONE" and types["text"] == "VARCHAR"
        assert relation.fetchall() == [(1, "s", "I moved to Rome", datetime(2024, 2, 1, 9, 0, tzinfo=timezone.utc), None)]
        with pytest.raises(SqlExecutionError):
            analytics.sql("SELECT * FROM confirmations")


def test_a_with_query_cannot_stand_in_for_the_helpers_tables(analytics: Analytics) -> None:
    shadowed = records(
        analytics,
        "WITH transactions AS (SELECT 1 AS id), claim_versions AS (SELECT 1 AS id)"
        " SELECT principal, transactions FROM activity('2024-01-01', '2025-01-01') ORDER BY principal",
    )
    assert {r["principal"]: r["transactions"] for r in shadowed}["digest:rules"] == 3
    assert len(records(analytics, "WITH claim_versions AS (SELECT 1 AS id) SELECT id FROM claims")) == 2
