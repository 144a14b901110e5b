"""Hermes profiles: `hermes profile create NAME --clone` copies config.yaml (which selects factledger) but
not plugins/, and Hermes then runs the clone without memory and without a word. Doctor and status name
such profiles; `factledger hermes install --all-profiles` installs into them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from factledger.hermes_plugin.paths import HermesPaths

from .conftest import run_cli


def hermes_cli(home: Path, *args: str) -> str:
    """Hermes's own command line, with this test's home (and a HOME of its own: no wrapper scripts)."""
    env = dict(os.environ, HERMES_HOME=str(home), HOME=str(home.parent))
    done = subprocess.run([str(Path(sys.executable).parent / "hermes"), *args], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def loads_in(home: Path) -> bool:
    """Whether Hermes's own loader finds factledger under this home."""
    from hermes_constants import reset_hermes_home_override, set_hermes_home_override

    token = set_hermes_home_override(home)
    try:
        from plugins.memory import load_memory_provider

        return load_memory_provider("factledger") is not None
    finally:
        reset_hermes_home_override(token)


def doctor(home: Path) -> tuple[int, dict]:
    result = run_cli("hermes", "doctor", "--hermes-home", str(home), "--json")
    return result.exit_code, json.loads(result.output)


def check(report: dict, name: str) -> dict:
    return next(c for c in report["checks"] if c["name"] == name)


def test_a_cloned_profile_is_found_and_installed(hermes_runtime, tmp_path: Path, monkeypatch):
    root = tmp_path / "hermes"
    root.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(root))
    assert run_cli("hermes", "install", "--hermes-home", str(root), "--set-provider").exit_code == 0
    code, report = doctor(root)
    assert code == 0 and "profiles" not in {c["name"] for c in report["checks"]}  # no profiles yet: nothing said
    parent_settings = "# the parent's own file\ndigest:\n  policy: strict   # review everything\n"
    HermesPaths(root).settings_path.write_text(parent_settings)

    hermes_cli(root, "profile", "create", "coder", "--clone", "--no-alias")
    clone = root / "profiles" / "coder"
    assert "provider: factledger" in (clone / "config.yaml").read_text()
    assert loads_in(root) and not loads_in(clone)  # the defect: the clone would run without memory

    code, report = doctor(root)
    assert code == 1 and report["would_load"] and not report["ok"]  # this home loads; a profile does not
    assert not check(report, "profiles")["ok"] and check(report, "profiles")["detail"].endswith(": coder")
    assert "--all-profiles" in check(report, "profiles")["fix"]
    code, report = doctor(clone)
    assert code == 1 and not check(report, "plugin")["ok"]
    status = hermes_cli(root, "memory", "status")
    assert "profiles_without_plugin: coder (fix: factledger hermes install --all-profiles)" in status

    result = run_cli("hermes", "install", "--all-profiles", "--hermes-home", str(root), "--json")
    assert result.exit_code == 0, result.output
    installed = {p["profile"]: p for p in json.loads(result.output)["profiles"]}
    assert set(installed) == {"default", "coder"} and installed["coder"]["written"]
    assert loads_in(clone)
    code, report = doctor(root)
    assert code == 0 and check(report, "profiles")["ok"]
    assert "profiles_without_plugin" not in hermes_cli(root, "memory", "status")
    assert HermesPaths(clone).state_dir.is_dir()  # the clone's memory is its own, next to its config
    assert HermesPaths(clone).settings_path.read_text() == parent_settings  # ... with its parent's settings


def test_all_profiles_refuses_a_foreign_plugin_and_writes_nothing(tmp_path: Path):
    root = tmp_path / "hermes"
    for name in ("a", "b"):
        profile = root / "profiles" / name
        profile.mkdir(parents=True)
        (profile / "config.yaml").write_text("memory:\n  provider: factledger\n")
    foreign = root / "profiles" / "b" / "plugins" / "factledger" / "__init__.py"
    foreign.parent.mkdir(parents=True)
    foreign.write_text("# someone else's plugin\n")

    result = run_cli("hermes", "install", "--all-profiles", "--hermes-home", str(root))
    assert result.exit_code == 2 and "--force" in result.output
    assert not (root / "plugins").exists() and not (root / "profiles" / "a" / "plugins").exists()
    assert foreign.read_text() == "# someone else's plugin\n"
    assert run_cli("hermes", "install", "--all-profiles", "--set-provider", "--hermes-home", str(root)).exit_code == 2


def test_fresh_settings_gives_the_profiles_the_defaults(tmp_path: Path):
    from factledger.hermes_plugin.settings import DEFAULT_SETTINGS_TEXT

    root = tmp_path / "hermes"
    (root / "profiles" / "a").mkdir(parents=True)
    (root / "profiles" / "a" / "config.yaml").write_text("memory:\n  provider: factledger\n")
    HermesPaths(root).settings_path.parent.mkdir(parents=True)
    HermesPaths(root).settings_path.write_text("digest:\n  policy: strict\n")
    assert run_cli("hermes", "install", "--fresh-settings", "--hermes-home", str(root)).exit_code == 2
    result = run_cli("hermes", "install", "--all-profiles", "--fresh-settings", "--hermes-home", str(root))
    assert result.exit_code == 0, result.output
    assert HermesPaths(root / "profiles" / "a").settings_path.read_text() == DEFAULT_SETTINGS_TEXT
    assert HermesPaths(root).settings_path.read_text() == "digest:\n  policy: strict\n"
