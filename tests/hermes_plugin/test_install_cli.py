"""`factledger hermes install` and `factledger hermes doctor`."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from factledger.hermes_plugin.install import DISCOVERY_WINDOW, SHIM_TEXT

from .conftest import run_cli


def install(home: Path, *extra: str):
    return run_cli("hermes", "install", "--hermes-home", str(home), *extra)


def doctor(home: Path) -> tuple[int, dict]:
    result = run_cli("hermes", "doctor", "--hermes-home", str(home), "--json")
    return result.exit_code, json.loads(result.output)


def failing(report: dict) -> set[str]:
    return {c["name"] for c in report["checks"] if not c["ok"]}


def test_install_writes_a_shim_hermes_discovers(tmp_path: Path):
    result = install(tmp_path, "--json")
    assert result.exit_code == 0, result.output
    shim = tmp_path / "plugins" / "factledger" / "__init__.py"
    head = shim.read_text()[:DISCOVERY_WINDOW]
    assert "register_memory_provider" in head
    assert "from factledger.hermes_plugin.provider import" in head
    assert (tmp_path / "factledger" / "config.yaml").exists()
    assert not (tmp_path / "config.yaml").exists()  # not selected unless asked
    again = json.loads(install(tmp_path, "--json").output)
    assert again["written"] == [] and len(again["unchanged"]) == 3  # __init__.py, plugin.yaml, cli.py


def test_set_provider_keeps_every_other_key(tmp_path: Path):
    (tmp_path / "config.yaml").write_text(
        "model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\nmemory:\n  provider: holographic\n  memory_enabled: true\n"
    )
    report = json.loads(install(tmp_path, "--set-provider", "--json").output)
    assert report["provider_set"] and report["previous_provider"] == "holographic"
    config = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert config == {
        "model": {"provider": "custom", "base_url": "http://127.0.0.1:9/v1"},
        "memory": {"provider": "factledger", "memory_enabled": True},
    }


def test_a_foreign_plugin_is_not_overwritten_and_nothing_is_written(tmp_path: Path):
    plugin = tmp_path / "plugins" / "factledger"
    plugin.mkdir(parents=True)
    (plugin / "__init__.py").write_text("# someone else's plugin\n")
    result = install(tmp_path, "--set-provider")
    assert result.exit_code == 2
    assert "error: plugin_dir:" in result.output and "--force" in result.output
    assert (plugin / "__init__.py").read_text() == "# someone else's plugin\n"
    assert not (tmp_path / "config.yaml").exists() and not (tmp_path / "factledger").exists()
    assert install(tmp_path, "--force").exit_code == 0
    assert (plugin / "__init__.py").read_text() == SHIM_TEXT


def test_a_malformed_config_is_refused_and_left_alone(tmp_path: Path):
    (tmp_path / "config.yaml").write_text("memory: [not, a, mapping]\n")
    result = install(tmp_path, "--set-provider")
    assert result.exit_code == 2 and "error: memory:" in result.output
    assert (tmp_path / "config.yaml").read_text() == "memory: [not, a, mapping]\n"
    assert not (tmp_path / "plugins").exists()


def test_doctor_says_why_hermes_would_not_load_it(tmp_path: Path):
    code, report = doctor(tmp_path)
    assert code == 1 and not report["would_load"]
    assert failing(report) == {"plugin", "config"}

    install(tmp_path)
    code, report = doctor(tmp_path)
    assert failing(report) == {"config"}
    fix = next(c["fix"] for c in report["checks"] if c["name"] == "config")
    assert "--set-provider" in fix

    (tmp_path / "plugins" / "factledger" / "__init__.py").write_text("def register(ctx):\n    pass\n")
    code, report = doctor(tmp_path)
    assert {"plugin", "shim"} <= failing(report)


def test_doctor_loads_it_through_hermes_own_loader(tmp_path: Path):
    install(tmp_path, "--set-provider")
    code, report = doctor(tmp_path)
    assert code == 0 and report["would_load"], report
    loader = next(c for c in report["checks"] if c["name"] == "hermes loader")
    assert loader["detail"].endswith("factledger.hermes_plugin.provider.FactledgerMemoryProvider")


def test_doctor_reports_malformed_settings(tmp_path: Path):
    install(tmp_path, "--set-provider")
    (tmp_path / "factledger" / "config.yaml").write_text("digest:\n  policy: sometimes\n")
    code, report = doctor(tmp_path)
    # Hermes would skip the provider (is_available() False, the same reason), so both checks fail.
    assert code == 1 and failing(report) == {"available", "settings"}
    for name in ("available", "settings"):
        assert "digest.policy" in next(c["detail"] for c in report["checks"] if c["name"] == name)

    (tmp_path / "factledger" / "config.yaml").write_text("recall:\n  configuration: fastest\n")
    code, report = doctor(tmp_path)
    assert failing(report) == {"settings"}

    # a key that would be silently ignored (a typo) fails doctor too, naming it
    (tmp_path / "factledger" / "config.yaml").write_text("exclude:\n  platform: [discord]\n")
    code, report = doctor(tmp_path)
    assert code == 1 and failing(report) == {"available", "settings"}
    assert "exclude.platform: 'platform' is not a setting; did you mean 'platforms'?" in next(
        c["detail"] for c in report["checks"] if c["name"] == "settings")


def test_doctor_reads_the_ledger_without_creating_or_changing_it(tmp_path: Path):
    install(tmp_path, "--set-provider")
    code, report = doctor(tmp_path)
    assert "will be created" in next(c["detail"] for c in report["checks"] if c["name"] == "state")
    assert not (tmp_path / "factledger" / "ledger.db").exists()
    (tmp_path / "factledger" / "ledger.db").write_text("not a database")
    code, report = doctor(tmp_path)
    assert code == 1 and failing(report) == {"state"}


def test_doctor_reads_the_database_url_ledger(tmp_path: Path, postgres_url: str):
    from factledger.ledger import Ledger

    install(tmp_path)
    settings = tmp_path / "factledger" / "config.yaml"
    settings.write_text(settings.read_text().replace('database_url: ""', f"database_url: '{postgres_url}'"))
    with Ledger.open(postgres_url) as ledger:
        with ledger.transaction(principal="operator:test") as tx:
            tx.define("lives_in", "one")
            tx.add("s", "user", "lives_in", "Paris", valid_from="2024-01-01")
        with ledger.transaction(principal="operator:test") as tx:
            tx.supersede("s", "user", "lives_in", "Rome", valid_from="2024-06-01")
    code, report = doctor(tmp_path)
    state = next(c for c in report["checks"] if c["name"] == "state")
    with Ledger.open(postgres_url) as ledger:
        assert ledger.version_count() == len(ledger.history(subject="user", predicate="lives_in")) == 3  # Paris (closed), Paris to June, Rome
    assert state["ok"] and state["detail"].endswith("3 claim versions"), state
    assert not (tmp_path / "factledger" / "ledger.db").exists()

    settings.write_text("database_url: 'postgresql://me:hunter2@/none?host=/nonexistent-factledger-socket'\n")
    code, report = doctor(tmp_path)
    state = next(c for c in report["checks"] if c["name"] == "state")
    assert not state["ok"] and "hunter2" not in json.dumps(report)
