"""`factledger sql` and Analytics have a memory limit, a timeout and a row cap, each adjustable."""

from __future__ import annotations

import pytest

from factledger.ledger import ValidationError
from factledger.ledger.analytics import Analytics, SqlExecutionError
from tests.fuzz_strategies import invoke_cli

HUGE = "SELECT * FROM generate_series(1, 100000000)"
ENDLESS = "SELECT count(*) FROM generate_series(1, 100000000000)"


@pytest.fixture
def db(fresh_ledger, ledger_path):
    with fresh_ledger.transaction(principal="operator:t") as tx:
        tx.add("s", "Ann", "likes", "jazz")
    return ledger_path


def test_rows_are_capped_and_the_cut_is_said(db) -> None:
    with Analytics(db, max_rows=5) as analytics:
        result = analytics.run(HUGE)
    assert len(result.rows) == 5 and result.truncated
    with Analytics(db, max_rows=5) as analytics:
        assert not analytics.run("SELECT * FROM generate_series(1, 5)").truncated
    cli = invoke_cli(["--db", str(db), "sql", HUGE, "--max-rows", "3", "--format", "csv"])
    assert cli.exit_code == 0 and cli.output.splitlines()[:4] == ["generate_series", "1", "2", "3"]
    assert "more rows were cut at --max-rows 3" in cli.output


def test_a_long_query_is_stopped_by_the_timeout(db) -> None:
    with Analytics(db, timeout=0.5) as analytics:
        with pytest.raises(SqlExecutionError, match="ran longer than 0.5 s"):
            analytics.run(ENDLESS)
        assert analytics.run("SELECT 1").rows == [(1,)]  # the connection is usable after the interrupt
    cli = invoke_cli(["--db", str(db), "sql", ENDLESS, "--timeout", "0.5"])
    assert cli.exit_code == 2 and "--timeout" in cli.output


def test_memory_beyond_the_limit_is_a_clear_error(db) -> None:
    query = "SELECT list(i) FROM generate_series(1, 50000000) t(i)"
    with Analytics(db, memory_limit="20MB") as analytics:
        with pytest.raises(SqlExecutionError, match="than the limit of 20MB"):
            analytics.run(query)
    cli = invoke_cli(["--db", str(db), "sql", query, "--memory-limit", "20MB"])
    assert cli.exit_code == 2 and "--memory-limit" in cli.output


@pytest.mark.parametrize(("kwargs", "field"), [({"memory_limit": "lots"}, "memory_limit"), ({"timeout": 0}, "timeout"),
                                               ({"max_rows": 0}, "max_rows")])
def test_bad_limits_are_named(db, kwargs, field) -> None:
    with pytest.raises(ValidationError) as caught:
        Analytics(db, **kwargs)
    assert caught.value.field == field
