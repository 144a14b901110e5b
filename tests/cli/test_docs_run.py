"""The docs cannot rot: every ```python block of README.md and the guides in docs/ runs, every `factledger …`
line of a ```bash block parses as a command of the CLI, and the `apply` example of docs/ledger.md applies
as pasted.

Python blocks of one file run in order, each in its own interpreter, in one temporary folder that holds
the ledger that `apply` example wrote at the CLI's default path (.factledger/ledger.db)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import click
from click.testing import CliRunner

from factledger.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
SHELL_STOPS = {"|", "<", ">", ">>", "&&", "||", ";", "&"}


def blocks(path: Path, language: str) -> list[tuple[int, str]]:
    text = path.read_text("utf-8")
    return [(text.count("\n", 0, m.start()) + 1, m.group(2)) for m in FENCE.finditer(text) if m.group(1) == language]


def factledger_commands(block: str) -> list[list[str]]:
    """The `factledger …` commands of a shell block: quoted arguments may span lines; comments, pipes and
    redirections end a command."""
    commands, pending = [], ""
    for line in block.splitlines():
        if not pending and not line.lstrip().startswith("factledger "):
            continue
        pending = f"{pending}\n{line}" if pending else line.strip()
        try:
            words = shlex.split(pending, comments=True)
        except ValueError:  # an open quote: the argument continues on the next line
            continue
        pending = ""
        cut = next((i for i, w in enumerate(words) if w in SHELL_STOPS), len(words))
        commands.append(words[1:cut])
    assert not pending, f"unterminated command: {pending!r}"
    return commands


APPLY_EXAMPLE = ROOT / "docs" / "ledger.md"  # its first ```json block


def apply_example() -> str:
    return blocks(APPLY_EXAMPLE, "json")[0][1]


def test_every_guide_the_readme_links_is_checked_here():
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)\)", (ROOT / "README.md").read_text("utf-8")))
    assert linked, "the README links no guide"
    assert {f"docs/{path.name}" for path in DOCS[1:]} >= linked


def test_the_apply_example_applies_as_pasted(tmp_path):
    db = tmp_path / "ledger.db"
    result = CliRunner().invoke(cli, ["--db", str(db), "apply", "-"], input=apply_example())
    assert result.exit_code == 0, result.output
    current = json.loads(CliRunner().invoke(cli, ["--db", str(db), "current", "--json"]).stdout)
    assert sorted((v["predicate"], v["value"]) for v in current) == [("likes", "blues")]  # moved away, cat never was


SHELL = [(path, line, block) for path in DOCS for line, block in blocks(path, "bash")]


@pytest.mark.parametrize("path,line,block", SHELL, ids=[f"{p.name}:{n}" for p, n, _ in SHELL])
def test_every_factledger_line_of_a_shell_block_parses(path, line, block):
    for args in factledger_commands(block):
        # --help is eager: the options before it are parsed (an unknown one fails) and nothing runs.
        result = CliRunner().invoke(cli, [*args, "--help"])
        assert result.exit_code == 0, f"{path.name}:{line}: `factledger {shlex.join(args)}`: {result.output}"


def test_the_command_finder_reads_multiline_quotes_and_stops_at_shell_syntax():
    block = 'factledger sql "SELECT 1\n  FROM claims"  # a comment\nls\nfactledger current | head -3\n'
    assert factledger_commands(block) == [["sql", "SELECT 1\n  FROM claims"], ["current"]]
    assert CliRunner().invoke(cli, ["current", "--no-such-option", "--help"]).exit_code == 2


PYTHON = [path for path in DOCS if blocks(path, "python")]


@pytest.mark.parametrize("path", PYTHON, ids=[p.name for p in PYTHON])
def test_every_python_block_runs(path, tmp_path):
    seeded = CliRunner().invoke(cli, ["--db", str(tmp_path / ".factledger" / "ledger.db"), "apply", "-"],
                                input=apply_example())
    assert seeded.exit_code == 0, seeded.output
    for line, code in blocks(path, "python"):
        run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, f"{path.name}:{line}:\n{run.stderr}"


INLINE = re.compile(r"`factledger ([^`\n]+)`")


def unknown_options(words: list[str]) -> list[str]:
    """The `--options` of an inline `factledger …` span that its command (or the group above it) does not
    take. Placeholders, brackets and `…` are not parsed: the words that name subcommands choose the
    command, and each option that takes a value skips the word after it."""
    command, ctx, unknown = cli, click.Context(cli), []
    options = {opt: param for param in cli.get_params(ctx) for opt in [*param.opts, *param.secondary_opts]}
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        flag = re.sub(r"[^\w-].*$", "", word.split("=", 1)[0]) if word.startswith("--") else ""
        if flag:
            param = options.get(flag)
            if param is None:
                unknown.append(flag)
            elif not getattr(param, "is_flag", False) and not getattr(param, "count", False) and "=" not in word:
                skip = True
        elif isinstance(command, click.Group) and (sub := command.get_command(ctx, word)) is not None:
            command, ctx = sub, click.Context(sub, parent=ctx)
            options.update({opt: p for p in sub.get_params(ctx) for opt in [*p.opts, *p.secondary_opts]})
    return unknown


INLINE_SPANS = [(path, m.group(1)) for path in DOCS for m in INLINE.finditer(path.read_text("utf-8"))]


def test_every_option_an_inline_command_names_exists():
    wrong = [f"{path.name}: `factledger {span}`: {flag}" for path, span in INLINE_SPANS
             for flag in unknown_options(span.split())]
    assert not wrong, "options the CLI does not have:\n" + "\n".join(wrong)


def test_the_inline_check_finds_a_wrong_option():
    assert unknown_options("sql --write --dry-run --reason R".split()) == []
    assert unknown_options("--db FILE erase --user local --value Paris".split()) == []
    assert unknown_options("review accept 12 --no-such-flag".split()) == ["--no-such-flag"]
