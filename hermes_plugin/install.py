"""Install factledger into a Hermes home, and tell whether Hermes would load it (and why not).

Hermes finds user memory providers only as directories under $HERMES_HOME/plugins/ (not through pip
entry points), and imports one only when the first 8192 characters of its __init__.py mention
`MemoryProvider` or `register_memory_provider`. So the install writes a small shim that imports the
installed package: upgrading factledger never needs the shim rewritten.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from factledger.ledger import LedgerError

from .paths import PROVIDER_NAME, HermesPaths
from .settings import DEFAULT_SETTINGS_TEXT, ProviderSettings

SHIM_MARKER = "factledger-hermes-shim"
SHIM_VERSION = 1
SUPPORTED_HERMES = "0.19.0"
DISCOVERY_WINDOW = 8192  # Hermes reads this many characters of __init__.py when deciding
DISCOVERY_WORDS = ("register_memory_provider", "MemoryProvider")

SHIM_TEXT = f'''"""factledger memory provider for Hermes Agent ({SHIM_MARKER} v{SHIM_VERSION}).

Written by `factledger hermes install`. The MemoryProvider itself lives in the installed factledger
package (factledger.hermes_plugin); this file only hands it to Hermes via register_memory_provider.
Check it with `factledger hermes doctor`.
"""


def register(ctx):
    from factledger.hermes_plugin.provider import FactledgerMemoryProvider

    ctx.register_memory_provider(FactledgerMemoryProvider())
'''

# Hermes imports `cli.py` of the active memory provider on every start (to list `hermes <provider> ...`);
# ours builds the parser with argparse alone and hands a command, when one runs, to factledger's own CLI
# (factledger.cli.hermes_host), so each command has one implementation and a start pays for none of it.
CLI_SHIM_TEXT = f'''"""`hermes factledger` commands ({SHIM_MARKER} v{SHIM_VERSION}): written by `factledger hermes install`."""


def register_cli(subparser):
    from factledger.hermes_plugin.host_commands import add_arguments

    add_arguments(subparser, factledger_command)


def factledger_command(args):
    from factledger.cli.hermes_host import factledger_command as run

    run(args)
'''

# Hermes 0.19.0 reads `pip_dependencies` (an import name each: `hermes memory setup` and the web UI install
# what does not import) and `requires_env` (none: the rules extractor needs no key). No config_schema.py is
# shipped: the web UI's generic panel stores into $HERMES_HOME/factledger/config.json, a file the provider
# does not read, so every value set there would be silently ignored; `hermes memory setup factledger`
# edits config.yaml itself.
PLUGIN_YAML_TEXT = f"""name: {PROVIDER_NAME}
version: "{SHIM_VERSION}"
description: "factledger: bitemporal, ledger-first long-term memory (current and as-of recall, history, review)."
kind: exclusive
pip_dependencies:
  - factledger
requires_env: []
hooks:
  - on_session_end
  - on_pre_compress
  - on_memory_write
"""


class HermesSetupError(LedgerError):
    """The Hermes home cannot be set up as asked (a foreign plugin in the way, a malformed config)."""


@dataclass
class InstallReport:
    hermes_home: str
    plugin_dir: str
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    provider_set: bool = False
    previous_provider: str | None = None
    state_dir: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_config(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise HermesSetupError(f"cannot read {path}: {exc}", field="config.yaml") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise HermesSetupError(f"{path} is not a mapping", field="config.yaml")
    return data


def configured_provider(paths: HermesPaths) -> str | None:
    memory = _read_config(paths.config_yaml).get("memory")
    if isinstance(memory, dict):
        value = memory.get("provider")
        return str(value) if value else None
    return None


def _is_our_shim(path: Path) -> bool:
    try:
        return SHIM_MARKER in path.read_text("utf-8", errors="replace")[:DISCOVERY_WINDOW]
    except OSError:
        return False


def _check_installable(paths: HermesPaths, *, force: bool) -> None:
    """Refuse a home whose plugin folder holds a foreign shim (unless forced) or whose settings are
    malformed; reads only."""
    if paths.shim.exists() and not _is_our_shim(paths.shim) and not force:
        raise HermesSetupError(
            f"{paths.shim} exists and was not written by factledger; pass --force to replace it",
            field="plugin_dir",
        )
    if paths.settings_path.exists():
        ProviderSettings.load(paths.settings_path)  # refuse to install over malformed settings


def install_plugin(paths: HermesPaths, *, set_provider: bool = False, force: bool = False,
                   settings_text: str = DEFAULT_SETTINGS_TEXT) -> InstallReport:
    """Write the shim (and plugin.yaml), create the state folder, optionally select us in config.yaml.
    A home with no settings file gets `settings_text` (the commented defaults, or a parent's file).

    Everything is checked before anything is written, so a refusal changes nothing.
    """
    config: dict[str, Any] | None = None
    if set_provider:
        config = _read_config(paths.config_yaml)
        memory = config.get("memory")
        if memory is not None and not isinstance(memory, dict):
            raise HermesSetupError(f"'memory' in {paths.config_yaml} is not a mapping", field="memory")
    _check_installable(paths, force=force)

    report = InstallReport(hermes_home=str(paths.home), plugin_dir=str(paths.plugin_dir), state_dir=str(paths.state_dir))
    for path, text in ((paths.shim, SHIM_TEXT), (paths.plugin_yaml, PLUGIN_YAML_TEXT), (paths.cli_shim, CLI_SHIM_TEXT)):
        if path.exists() and path.read_text("utf-8", errors="replace") == text:
            report.unchanged.append(str(path))
        else:
            _write_atomic(path, text)
            report.written.append(str(path))
    paths.state_dir.mkdir(parents=True, exist_ok=True)
    if not paths.settings_path.exists():
        _write_atomic(paths.settings_path, settings_text)
        report.written.append(str(paths.settings_path))

    if config is not None:
        memory = dict(config.get("memory") or {})
        report.previous_provider = str(memory["provider"]) if memory.get("provider") else None
        if memory.get("provider") != PROVIDER_NAME:
            memory["provider"] = PROVIDER_NAME
            config["memory"] = memory
            _write_atomic(paths.config_yaml, yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
            report.written.append(str(paths.config_yaml))
        report.provider_set = True
    return report


# -- profiles -----------------------------------------------------------------------------------
#
# `hermes profile create NAME --clone` copies config.yaml (so `memory.provider: factledger`) but not
# plugins/, and Hermes skips a configured provider it cannot find without a word: the clone runs with no
# memory. Install and doctor therefore look at every profile of the Hermes root.


def hermes_root(paths: HermesPaths) -> Path:
    """The default home whose profiles/ holds the named profiles (Hermes: `<root>/profiles/<name>`)."""
    home = paths.home
    return home.parent.parent if home.parent.name == "profiles" else home


def profile_homes(paths: HermesPaths) -> list[HermesPaths]:
    """The root home and every named profile beside it, root first, then by name."""
    root = hermes_root(paths)
    homes = [HermesPaths(root)]
    folder = root / "profiles"
    if folder.is_dir():
        homes += [HermesPaths(p) for p in sorted(folder.iterdir()) if p.is_dir() and (p / "config.yaml").exists()]
    return homes


def profile_name(paths: HermesPaths) -> str:
    return "default" if paths.home == hermes_root(paths) else paths.home.name


def profiles_without_plugin(paths: HermesPaths) -> list[HermesPaths]:
    """Profiles whose config.yaml selects factledger but whose plugins/ lacks our shim."""
    missing = []
    for home in profile_homes(paths):
        try:
            selected = configured_provider(home)
        except HermesSetupError:
            continue  # a profile with a malformed config.yaml is its own doctor's finding
        if selected == PROVIDER_NAME and not (home.shim.exists() and _is_our_shim(home.shim)):
            missing.append(home)
    return missing


def install_all_profiles(paths: HermesPaths, *, force: bool = False, inherit: bool = True) -> list[InstallReport]:
    """Install into this home and into every profile that selects factledger without the plugin.
    A profile with no settings file of its own inherits this home's (`hermes profile create --clone`
    copies config.yaml but not factledger/config.yaml, and Hermes records no parent: the home the
    operator installs from is the parent); `inherit=False` gives it the defaults instead.
    Every target is checked before anything is written, so one refusal changes nothing."""
    targets = [paths] + [p for p in profiles_without_plugin(paths) if p.home != paths.home]
    for target in targets:
        _check_installable(target, force=force)
    parent = DEFAULT_SETTINGS_TEXT
    if inherit and paths.settings_path.exists():
        parent = paths.settings_path.read_text("utf-8")  # checked by _check_installable(paths) above
    return [install_plugin(target, force=force, settings_text=parent if target.home != paths.home else DEFAULT_SETTINGS_TEXT)
            for target in targets]


def _profiles_check(paths: HermesPaths) -> Check | None:
    """None when the root has no named profiles (nothing to say)."""
    homes = profile_homes(paths)
    if len(homes) == 1:
        return None
    missing = profiles_without_plugin(paths)
    if not missing:
        return Check("profiles", True, f"every profile that selects factledger has the plugin ({len(homes)} profiles)")
    names = ", ".join(profile_name(p) for p in missing)
    return Check("profiles", False,
                 f"selects factledger but has no plugin, so Hermes runs it without memory: {names}",
                 f"factledger hermes install --all-profiles --hermes-home {hermes_root(paths)}", about_this_home=False)


# -- doctor -------------------------------------------------------------------------------------


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    about_this_home: bool = True  # False: a finding about another profile; it does not decide would_load


@dataclass
class DoctorReport:
    hermes_home: str
    checks: list[Check]

    @property
    def would_load(self) -> bool:
        """Hermes would load factledger in this home."""
        return all(c.ok for c in self.checks if c.about_this_home)

    @property
    def ok(self) -> bool:
        """Nothing to fix here nor in another profile of this Hermes (doctor's exit status)."""
        return all(c.ok for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {"hermes_home": self.hermes_home, "would_load": self.would_load, "ok": self.ok,
                "checks": [asdict(c) for c in self.checks]}


def _hermes_version() -> str | None:
    try:
        return importlib.metadata.version("hermes-agent")
    except importlib.metadata.PackageNotFoundError:
        return None


def diagnose(paths: HermesPaths, *, load_with_hermes: bool = True) -> DoctorReport:
    """Every reason Hermes would not load factledger from this home, in the order Hermes meets them."""
    checks: list[Check] = []
    install_fix = f"factledger hermes install --hermes-home {paths.home}"

    version = _hermes_version()
    if version is None:
        checks.append(Check("hermes-agent", False, f"hermes-agent is not installed in {sys.executable}",
                            f"pip install 'hermes-agent=={SUPPORTED_HERMES}' (factledger must live in Hermes's environment)"))
    else:
        checks.append(Check("hermes-agent", version == SUPPORTED_HERMES,
                            f"hermes-agent {version} (factledger is built for {SUPPORTED_HERMES})",
                            "" if version == SUPPORTED_HERMES else f"pip install 'hermes-agent=={SUPPORTED_HERMES}'"))

    checks.append(Check("hermes home", paths.home.is_dir(), f"{paths.home} {'exists' if paths.home.is_dir() else 'does not exist'}",
                        "" if paths.home.is_dir() else install_fix))

    if version is not None:
        bundled = _bundled_provider_dir()
        clash = bundled is not None and (bundled / PROVIDER_NAME).is_dir()
        checks.append(Check("name", not clash,
                            "a bundled Hermes provider is also named factledger and would win" if clash
                            else "no bundled provider is named factledger"))

    if not paths.shim.exists():
        checks.append(Check("plugin", False, f"{paths.shim} is missing", install_fix))
    else:
        head = paths.shim.read_text("utf-8", errors="replace")[:DISCOVERY_WINDOW]
        discoverable = any(word in head for word in DISCOVERY_WORDS)
        checks.append(Check("plugin", discoverable,
                            f"{paths.shim} " + ("mentions register_memory_provider within its first 8192 characters"
                                                if discoverable else "does not mention MemoryProvider in its first 8192 characters, so Hermes skips it"),
                            "" if discoverable else f"{install_fix} --force"))
        ours = SHIM_MARKER in head
        checks.append(Check("shim", ours, "written by factledger" if ours else "not written by factledger",
                            "" if ours else f"{install_fix} --force"))

    try:
        selected = configured_provider(paths)
        selected_ok = selected == PROVIDER_NAME
        checks.append(Check("config", selected_ok,
                            f"memory.provider is {selected!r} in {paths.config_yaml}",
                            "" if selected_ok else f"{install_fix} --set-provider  (or: hermes config set memory.provider {PROVIDER_NAME})"))
    except HermesSetupError as exc:
        checks.append(Check("config", False, str(exc), f"fix {paths.config_yaml} by hand"))

    try:
        module = importlib.import_module("factledger.hermes_plugin.provider")
        provider = module.FactledgerMemoryProvider()
        checks.append(Check("import", True, f"factledger.hermes_plugin.provider imports from {Path(module.__file__).parent}"))
        reason = provider.unavailable_reason(paths)
        checks.append(Check("available", reason is None, "is_available() is True" if reason is None
                            else f"is_available() is False: {reason}", "" if reason is None else f"fix {paths.settings_path}"))
    except Exception as exc:  # the import failing is exactly what doctor must report, whatever it is
        checks.append(Check("import", False, f"cannot import the provider: {type(exc).__name__}: {exc}",
                            "pip install factledger into the Python environment Hermes runs in"))

    settings = None
    try:
        settings = ProviderSettings.load(paths.settings_path)
        where = str(paths.settings_path) if paths.settings_path.exists() else "defaults (no settings file)"
        if settings.recall_configuration:
            from factledger.recall import RecallConfig  # heavy (numpy, lancedb): only when named

            RecallConfig.preset(settings.recall_configuration)
        checks.append(Check("settings", True, f"{where}: policy {settings.policy}, "
                            + (f"model {settings.model.name} at {settings.model.base_url}" if settings.model.configured
                               else "no model named: the offline rules extractor, unless FACTLEDGER_DIGEST_MODEL is set for Hermes")))
    except LedgerError as exc:
        checks.append(Check("settings", False, str(exc), f"fix {paths.settings_path}"))

    checks.append(_state_check(paths, settings.database_url if settings is not None else ""))

    if load_with_hermes and all(c.ok for c in checks):
        checks.append(_load_through_hermes(paths))
    profiles = _profiles_check(paths)
    if profiles is not None:
        checks.append(profiles)
    return DoctorReport(hermes_home=str(paths.home), checks=checks)


def _state_check(paths: HermesPaths, database_url: str = "") -> Check:
    """The ledger (the state folder's file, or the settings' database_url), read-only: doctor never
    creates or migrates anything."""
    from factledger.ledger.pg_storage import redact_url

    where = redact_url(database_url) if database_url else str(paths.ledger_path)
    if not database_url and not paths.ledger_path.exists():
        return Check("state", True, f"{paths.ledger_path} will be created by the first Hermes session")
    try:
        from factledger.ledger import Ledger

        with Ledger.open(database_url or paths.ledger_path, read_only=True) as ledger:
            version = ledger.storage.schema_version
            versions = ledger.version_count()
        return Check("state", True, f"{where}: schema {version}, {versions} claim versions")
    except LedgerError as exc:
        fix = ("check the server and the URL; the first Hermes session migrates an empty database" if database_url
               else "move the file aside; the next session starts a new one")
        return Check("state", False, f"cannot read {where}: {exc}", fix)


def _bundled_provider_dir() -> Path | None:
    try:
        spec = importlib.util.find_spec("plugins.memory")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _load_through_hermes(paths: HermesPaths) -> Check:
    """Ask Hermes's own loader for the provider, under this home (a context-local override, no env change)."""
    try:
        from hermes_constants import reset_hermes_home_override, set_hermes_home_override
    except Exception as exc:
        return Check("hermes loader", False, f"cannot import Hermes: {exc}")
    token = set_hermes_home_override(paths.home)  # before importing the loader: its import reads the home
    try:
        from plugins.memory import load_memory_provider

        provider = load_memory_provider(PROVIDER_NAME)
    except Exception as exc:
        return Check("hermes loader", False, f"Hermes's loader raised {type(exc).__name__}: {exc}")
    finally:
        reset_hermes_home_override(token)
    if provider is None:
        return Check("hermes loader", False, "Hermes's loader returned no provider (its import failed silently)",
                     "run `python -c 'import factledger.hermes_plugin.provider'` in Hermes's environment")
    kind = type(provider)
    ok = kind.__module__ == "factledger.hermes_plugin.provider" and provider.name == PROVIDER_NAME
    return Check("hermes loader", ok, f"Hermes's loader returned {kind.__module__}.{kind.__name__}")


