"""Hermes commands: install the memory provider into a Hermes home, and diagnose why it would not load."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import click

from factledger.hermes_plugin.install import diagnose, install_all_profiles, install_plugin, profile_name
from factledger.hermes_plugin.paths import HermesPaths

from .app import emit_json, emit_table

home_option = click.option(
    "--hermes-home",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The Hermes home. Default: $HERMES_HOME, else ~/.hermes.",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


@click.group("hermes")
def hermes_group() -> None:
    """Use factledger as Hermes Agent's long-term memory."""


@hermes_group.command("install")
@home_option
@click.option("--set-provider", is_flag=True, help="Also select factledger in config.yaml (memory.provider).")
@click.option("--force", is_flag=True, help="Replace a plugins/factledger/__init__.py that factledger did not write.")
@click.option("--all-profiles", is_flag=True,
              help="Also install into every Hermes profile whose config selects factledger but has no plugin "
                   "(`hermes profile create --clone` copies the config, not plugins/). Such a profile "
                   "inherits this home's factledger settings.")
@click.option("--fresh-settings", is_flag=True,
              help="With --all-profiles: give those profiles the default settings instead of this home's.")
@json_option
def install_cmd(hermes_home: Path | None, set_provider: bool, force: bool, all_profiles: bool, fresh_settings: bool,
                as_json: bool) -> None:
    """Write the plugin directory Hermes discovers ($HERMES_HOME/plugins/factledger/).

    The files only import the installed factledger package: install factledger into the Python
    environment Hermes runs in. State (ledger, vector index, settings) lives in $HERMES_HOME/factledger/.
    """
    paths = HermesPaths.resolve(hermes_home)
    if fresh_settings and not all_profiles:
        raise click.UsageError("--fresh-settings is for the profiles --all-profiles installs into")
    if all_profiles:
        if set_provider:
            raise click.UsageError("--set-provider selects factledger in one home; run it without --all-profiles")
        reports = install_all_profiles(paths, force=force, inherit=not fresh_settings)
        if as_json:
            emit_json({"profiles": [dict(r.to_dict(), profile=profile_name(HermesPaths(Path(r.hermes_home))))
                                    for r in reports]})
            return
        for r in reports:
            name = profile_name(HermesPaths(Path(r.hermes_home)))
            state = f"wrote {len(r.written)} files" if r.written else "already installed"
            click.echo(f"{name:<12} {r.hermes_home}: {state}")
        return
    report = install_plugin(paths, set_provider=set_provider, force=force)
    if as_json:
        emit_json(report.to_dict())
        return
    for path in report.written:
        click.echo(f"wrote      {path}")
    for path in report.unchanged:
        click.echo(f"unchanged  {path}")
    if report.provider_set:
        previous = f" (was {report.previous_provider})" if report.previous_provider else ""
        click.echo(f"memory.provider is factledger{previous}")
    else:
        click.echo("memory.provider unchanged: select factledger with --set-provider or `hermes config set memory.provider factledger`")
    click.echo(f"state in   {report.state_dir}")


@hermes_group.command("doctor")
@home_option
@json_option
def doctor_cmd(hermes_home: Path | None, as_json: bool) -> None:
    """Tell whether Hermes would load factledger from this home (and from every profile that selects it),
    and why not. Exit status 1 when there is anything to fix, here or in another profile."""
    report = diagnose(HermesPaths.resolve(hermes_home))
    if as_json:
        emit_json(report.to_dict())
    else:
        emit_table(
            ["check", "ok", "detail"],
            [[c.name, "yes" if c.ok else "NO", c.detail] for c in report.checks],
            title=f"Hermes home: {report.hermes_home}",
        )
        for check in report.checks:
            if check.fix:
                click.echo(f"fix {check.name}: {check.fix}")
        if not report.would_load:
            click.echo("Hermes would NOT load factledger.")
        elif not report.ok:
            click.echo("Hermes would load factledger here, but not in every profile that selects it.")
        else:
            click.echo("Hermes would load factledger.")
    if not report.ok:
        raise SystemExit(1)


@click.command("status")
@home_option
@json_option
def status_cmd(hermes_home: Path | None, as_json: bool) -> None:
    """What factledger holds for a Hermes home: settings, digest model, ledger, review queue, index.

    The same lines as `hermes memory status` and `hermes factledger status`, read from files only (the
    ledger opened read-only; nothing is created or migrated). Exit status 1 when a line reports an error."""
    from factledger.hermes_plugin.status import memory_status

    lines = memory_status(HermesPaths.resolve(hermes_home))
    if as_json:
        emit_json(lines)
    else:
        for name, value in lines.items():
            click.echo(f"{name}: {value}")
    if any(name.endswith("_error") for name in lines):
        raise SystemExit(1)


@hermes_group.command("demo")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("factledger-demo"),
    show_default=True,
    help="Folder for the demo's Hermes home (its hermes-home/ is recreated on each run).",
)
@json_option
def demo_cmd(directory: Path, as_json: bool) -> None:
    """A scripted Hermes conversation with factledger as memory: real Hermes turns, no API key."""
    from factledger.hermes_plugin.demo import run_hermes_demo  # imports Hermes: only when asked

    if as_json:
        with contextlib.redirect_stdout(io.StringIO()):  # Hermes prints tool progress; keep the JSON clean
            report = run_hermes_demo(directory, echo=lambda line: None)
        emit_json(report.to_dict())
    else:
        run_hermes_demo(directory, echo=click.echo)


COMMANDS = [hermes_group, status_cmd]
