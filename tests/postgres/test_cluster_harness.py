"""The harness's promise: without PostgreSQL the tests skip with the reason, except under CI=true,
where they fail; with it, the cluster runs on its own socket and is gone after stop()."""

from __future__ import annotations

import pytest

from tests.support.postgres_cluster import ClusterUnavailable, find_bindir, unavailable


def test_an_absent_server_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("FACTLEDGER_PG_BINDIR", str(tmp_path))
    with pytest.raises(ClusterUnavailable, match=f"FACTLEDGER_PG_BINDIR={tmp_path}"):
        find_bindir()


@pytest.mark.parametrize(("ci", "outcome"), [(None, pytest.skip.Exception), ("false", pytest.skip.Exception),
                                             ("true", pytest.fail.Exception)])
def test_absent_server_skips_except_under_ci(monkeypatch, ci, outcome):
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="initdb not found"):
        unavailable("initdb not found")


def test_the_cluster_answers_on_its_socket(postgres_cluster):
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(postgres_cluster.dsn()) as conn:
        version = conn.execute("SHOW server_version_num").fetchone()[0]
        socket_dir = conn.execute("SHOW unix_socket_directories").fetchone()[0]
        listen = conn.execute("SHOW listen_addresses").fetchone()[0]
    assert int(version) >= 150000
    assert socket_dir == str(postgres_cluster.socket_dir)
    assert listen == ""
