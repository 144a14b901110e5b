"""`factledger demo` runs the real code paths and shows what each part answers."""

from __future__ import annotations

import json

from click.testing import CliRunner

from factledger.cli.main import cli


def test_demo_tells_the_story(tmp_path):
    result = CliRunner().invoke(cli, ["demo", "--dir", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    out = result.output
    # bitemporal: the as-of answer changed with the correction, both beliefs kept
    assert "as believed on 2024-07-01: Lisbon" in out and "as known now:              Berlin" in out
    # digest: relative time resolved, provenance kept, rejection memory holds
    assert "user lives in Porto  (since 2025-05-01; from journal:2)" in out
    assert "1 proposal(s) marked rejected_again, works_at still empty" in out
    # recall: current value only, and nothing for noise
    assert "- Maya lives in Berlin (since 2024-04-15)" in out and "Lisbon (since" not in out
    assert "matches nothing ('qwzx 7f3a9c1e'): (empty)" in out
    # sql: the belief of 2024-07-01 through DuckDB
    assert "Maya | lives_in | Lisbon" in out


def test_demo_json_and_rerun_starts_fresh(tmp_path):
    runner = CliRunner()
    for _ in range(2):
        result = runner.invoke(cli, ["demo", "--dir", str(tmp_path / "demo"), "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["transactions"] == 5
        assert [v["value"] for v in data["as_of"]["known_at_2024_07_01"]] == ["Lisbon"]
