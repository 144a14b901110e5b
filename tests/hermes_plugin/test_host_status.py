"""`hermes memory status` (Hermes's own cmd_status) shows factledger's ledger, counts, backlog, reviews
and index health, read without opening a session and without writing anything."""

from __future__ import annotations

from types import SimpleNamespace

from factledger.digest import Digester, Journal, RulesExtractor, Turn
from factledger.hermes_plugin.paths import HermesPaths
from factledger.ledger import Ledger
from factledger.recall import Recall


def hermes_status(capsys) -> dict[str, str]:
    from hermes_cli.memory_setup import cmd_status

    cmd_status(SimpleNamespace())
    out = capsys.readouterr().out
    assert "Provider:  factledger" in out
    assert "Plugin:    installed ✓" in out
    section = out.split("factledger config:", 1)[1].split("\n\n", 1)[0]
    lines = {}
    for line in section.strip().splitlines():
        key, _, value = line.strip().partition(": ")
        lines[key] = value
    return lines


def seed(paths: HermesPaths) -> None:
    paths.state_dir.mkdir(parents=True, exist_ok=True)
    with Ledger.open(paths.ledger_path) as ledger:
        journal = Journal(ledger)
        journal.append(Turn(scope="s", text="I live in Paris.", session="a"))
        Digester(ledger, RulesExtractor(), policy="auto").run()
        journal.append(Turn(scope="s", text="I work at Initech.", session="a"))
        Digester(ledger, RulesExtractor(), policy="strict").run()  # held for review
        journal.append(Turn(scope="s", text="I like tea.", session="a"))  # not digested yet
        Recall(ledger).sync()


def test_status_shows_the_ledger_counts_backlog_reviews_and_index(hermes_runtime, hermes_home: HermesPaths, capsys):
    before = hermes_status(capsys)
    assert before["ledger"] == str(hermes_home.ledger_path)
    assert before["state"].startswith("no ledger yet")
    assert before["digest_model"].startswith("rules extractor")
    assert not hermes_home.ledger_path.exists()  # status created nothing

    seed(hermes_home)
    lines = hermes_status(capsys)
    assert lines["claims_current"] == "1"
    assert lines["episodes"] == "3"
    assert lines["digest_backlog"] == "1"
    assert lines["pending_reviews"] == "1"
    assert lines["index"].startswith("ok (") and str(hermes_home.index_dir) in lines["index"]


def test_status_reports_a_broken_settings_file_and_a_missing_key(hermes_runtime, hermes_home: HermesPaths, capsys, monkeypatch):
    hermes_home.settings_path.write_text("digest:\n  policy: sometimes\n")
    assert "digest.policy" in hermes_status(capsys)["settings_error"]
    hermes_home.settings_path.write_text(
        "digest:\n  model:\n    base_url: http://127.0.0.1:9/v1\n    name: small\n    api_key_env: FL_TEST_KEY\n"
    )
    monkeypatch.delenv("FL_TEST_KEY", raising=False)
    assert hermes_status(capsys)["digest_model"] == "small at http://127.0.0.1:9/v1, key from $FL_TEST_KEY (NOT set)"


def test_the_status_line_the_guide_quotes_is_the_one_hermes_prints(hermes_runtime, hermes_home: HermesPaths, capsys):
    from pathlib import Path

    from hermes_cli.memory_setup import cmd_status

    cmd_status(SimpleNamespace())
    out = capsys.readouterr().out
    line = "factledger  (API key / local) ← active"
    assert f"• {line}" in out
    root = Path(__file__).resolve().parents[2]
    assert f'"{line}"' in (root / "docs" / "hermes.md").read_text("utf-8")
