"""Write docs/cli.md, the CLI reference, from the click commands: every command and subcommand with its
usage, its help text and a table of its options, in the order `factledger --help` lists them.

    python scripts/write_cli_reference.py           # rewrite docs/cli.md
    python scripts/write_cli_reference.py --check   # exit 1 when docs/cli.md is not what it would write

tests/cli/test_docs.py runs the check, so a command or option changed without rerunning this fails there.
The text comes from the commands' own help, so it is rendered independently of the terminal's width."""

from __future__ import annotations

import argparse
import inspect
import re
import sys
import textwrap
from pathlib import Path

import click

from factledger.cli.main import cli

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "docs" / "cli.md"
PROGRAM = "factledger"


def commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    """Every visible command under `group`, depth first, each with its path of names."""
    found = []
    ctx = click.Context(group, info_name=PROGRAM)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        found.append((prefix + (name,), command))
        if isinstance(command, click.Group):
            found.extend(commands(command, prefix + (name,)))
    return found


def context(path: tuple[str, ...], command: click.Command) -> click.Context:
    """A context whose info names make the usage line read `factledger PATH …`."""
    ctx = click.Context(cli, info_name=PROGRAM)
    for name in path[:-1]:
        ctx = click.Context(ctx.command.get_command(ctx, name), parent=ctx, info_name=name)  # type: ignore[union-attr]
    return click.Context(command, parent=ctx, info_name=path[-1]) if path else ctx


def markdown_text(text: str) -> str:
    """Plain help text as Markdown: `<…>` placeholders escaped, `|` escaped for table cells, and click's
    bound of an unbounded integer range (`1<=x<=9223372036854775807`) left out."""
    text = re.sub(r"<=9223372036854775807", "", text)
    return text.replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def help_paragraphs(command: click.Command) -> list[str]:
    """The command's help as Markdown paragraphs: click's `\\b` blocks (kept as written) become code."""
    text = inspect.cleandoc(command.help or "").split("\f", 1)[0]
    paragraphs = []
    for block in re.split(r"\n\s*\n", text):
        if not block.strip():
            continue
        if block.startswith("\b"):
            paragraphs.append("```text\n" + block[1:].strip("\n") + "\n```")
        else:
            words = " ".join(line.strip() for line in block.splitlines())
            paragraphs.append(textwrap.fill(markdown_text(words).replace("\\|", "|"), width=110, break_on_hyphens=False))
    return paragraphs


def anchor(path: tuple[str, ...]) -> str:
    """The heading's anchor as GitHub makes it from `factledger PATH`."""
    return "-".join((PROGRAM, *path)).lower()


def section(path: tuple[str, ...], command: click.Command) -> str:
    ctx = context(path, command)
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    lines = [f"## {' '.join((PROGRAM, *path))}", "", f"`{usage}`", ""]
    for paragraph in help_paragraphs(command):
        lines += [paragraph, ""]
    options = [
        record
        for param in command.get_params(ctx)
        if isinstance(param, click.Option) and "--help" not in param.opts and (record := param.get_help_record(ctx))
    ]
    if options:
        lines += ["| option | what it does |", "|---|---|"]
        lines += [f"| `{decl.replace('|', chr(92) + '|')}` | {markdown_text(text)} |" for decl, text in options]
        lines.append("")
    if isinstance(command, click.Group):
        sub = [(name, command.get_command(ctx, name)) for name in command.list_commands(ctx)]
        lines += ["Commands: " + ", ".join(f"[{name}](#{anchor(path + (name,))})" for name, c in sub if c and not c.hidden) + ".", ""]
    return "\n".join(lines)


def render() -> str:
    found = commands(cli)
    top = [
        "# CLI reference",
        "",
        "Written by `scripts/write_cli_reference.py` from the commands' own help (`factledger COMMAND --help`",
        "says the same); do not edit by hand. How the commands fit together: [ledger.md](ledger.md) and the",
        "guides it links.",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    for path, command in found:
        summary = markdown_text(command.get_short_help_str(limit=120))
        top.append(f"| [`{' '.join((PROGRAM, *path))}`](#{anchor(path)}) | {summary} |")
    body = [section((), cli)] + [section(path, command) for path, command in found]
    return "\n".join(top) + "\n\n" + "\n".join(body).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/cli.md is out of date; write nothing")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if REFERENCE.read_text("utf-8") != text:
            print(f"{REFERENCE.relative_to(ROOT)} is out of date: run python scripts/write_cli_reference.py", file=sys.stderr)
            return 1
        return 0
    REFERENCE.write_text(text, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
