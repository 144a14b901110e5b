"""What every command shares: the typed context (which ledger, which principal), error translation and
output helpers. Commands stay thin: open the store, call one library method, print the result."""

from __future__ import annotations

import importlib
import inspect
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from factledger.ledger.chain_key import ChainKey, default_heads_path
from factledger.ledger.engines import default_principal, describe_location, ledger_exists
from factledger.ledger.store import DEFAULT_KEY
from factledger.ledger import BUSY_TIMEOUT, Ledger, LedgerError
from factledger.ledger.times import display

if TYPE_CHECKING:  # the front door pulls in recall and the digest: only commands that use it load it
    from factledger.database import Database

DEFAULT_DB = Path(".factledger") / "ledger.db"
INDEX_DIR_HELP = "The vector index folder. Default: <ledger file>.lance beside the ledger."

# What every option taking a time accepts (one parser: ledger.times.parse_time), said the same way on each.
TIMES = "an ISO date (midnight UTC) or datetime; without an offset it is UTC"

# A database URL rather than a file: scheme "://" (two letters at least, so a Windows drive is a path).
_DATABASE_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+)://")
_POSTGRES_SCHEMES = {"postgres", "postgresql"}


class LedgerLocation(click.Path):
    """--db / FACTLEDGER_DB: a SQLite file path, or a `postgres://` / `postgresql://` URL selecting the
    PostgreSQL engine (kept as text; every message names it through `redact_url`, so a password is never
    echoed). Any other URL is refused before anything is opened or created (as a path, `mysql://…` would
    become a SQLite file under a folder named `mysql:`); only its scheme is echoed."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = str(value)
        match = _DATABASE_URL.match(text)
        if match:
            if match.group(1).lower() in _POSTGRES_SCHEMES:
                return text
            self.fail(
                f"{match.group(1)}://… is a URL factledger does not read; give the path of a SQLite ledger file"
                " or a postgresql:// URL",
                param,
                ctx,
            )
        return super().convert(value, param, ctx)


def is_database_url(location: str | Path) -> bool:
    return isinstance(location, str) and _DATABASE_URL.match(location) is not None


@dataclass
class AppContext:
    """Settings resolved once per invocation (never at import time)."""

    db_path: Path | str  # a SQLite file, or a postgresql:// URL (text; name it with `where`)
    principal: str
    strict_predicates: bool = False
    busy_timeout: float = BUSY_TIMEOUT
    chain_key_file: Path | None = None  # --chain-key FILE
    chain_key_env: str | None = None  # --chain-key-env NAME: the variable holding the key
    _database: Database | None = field(default=None, repr=False)
    _created: bool = field(default=False, repr=False)

    def database(self, *, create: bool = False) -> Database:
        """The ledger through the Python front door (factledger.open). A missing file is refused unless
        the command is one that may create a ledger (create=True: apply, journal add, import); then it
        says so on stderr, so a mistyped --db is noticed at once."""
        if self._database is None:
            self.require_ledger(create=create)
            if self._created:
                click.echo(f"factledger: created a new ledger at {self.where}", err=True)
            from factledger.database import Database

            self._database = Database(self.db_path, principal=self.principal, strict_predicates=self.strict_predicates,
                                      busy_timeout=self.busy_timeout, chain_key=self.chain_key())
        return self._database

    def chain_key(self) -> ChainKey | object:
        """The chain key the caller named (--chain-key FILE, or --chain-key-env NAME, read now), else the
        ledger's default (the key file beside a SQLite ledger). A bad key is an error (exit 2)."""
        if self.chain_key_env is not None and self.chain_key_file is not None:
            raise CliError("chain-key: give --chain-key FILE or --chain-key-env NAME, not both")
        if self.chain_key_env is not None:
            return ChainKey.from_env(self.chain_key_env)
        if self.chain_key_file is not None:
            return ChainKey.from_file(self.chain_key_file)
        return DEFAULT_KEY

    def heads_path(self, explicit: Path | None = None) -> Path | None:
        """Where heads are recorded and read: the file given, else `<ledger>.heads` beside a SQLite ledger."""
        return explicit if explicit is not None else default_heads_path(self.db_path)

    @property
    def where(self) -> str:
        """The ledger as messages name it (a URL's password masked)."""
        return describe_location(self.db_path)

    @property
    def is_postgres(self) -> bool:
        return is_database_url(self.db_path)

    def require_ledger(self, *, create: bool = False) -> None:
        """Refuse a missing ledger unless the command may create one. For a URL the ledger exists when the
        database is reachable and migrated; an unreachable server is an error whatever the command."""
        if ledger_exists(self.db_path):
            return
        if not create:
            raise CliError(
                f"no ledger at {self.where} (from --db, FACTLEDGER_DB or the default); check the "
                + ("URL, or migrate the database with `factledger apply`, `factledger journal add` or `factledger import`"
                   if self.is_postgres else
                   "path, or create one with `factledger apply`, `factledger journal add`, `factledger import` "
                   "or `factledger demo`")
            )
        self._created = True

    def ledger(self, *, create: bool = False) -> Ledger:
        return self.database(create=create).ledger

    def close(self) -> None:
        if self._database is not None:
            self._database.close()
            self._database = None


# Row ids and counts on the command line: SQLite's INTEGER range (a larger number was an OverflowError
# from the driver: a traceback).
MAX_ROW_ID = 2**63 - 1
ROW_ID = click.IntRange(min=0, max=MAX_ROW_ID)


def count(minimum: int = 0) -> click.IntRange:
    """A count option (--limit N): at least `minimum`, at most what the database can hold."""
    return click.IntRange(min=minimum, max=MAX_ROW_ID)


class Seconds(click.ParamType):
    """A finite number of seconds, at least 0 (`NaN` and `inf` passed FloatRange and ended in tracebacks)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float) and value == value and value not in (float("inf"), float("-inf")) and value >= 0:
            return value
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if number != number or number in (float("inf"), float("-inf")):
            self.fail(f"{value!r} is not a finite number of seconds", param, ctx)
        if number < 0:
            self.fail(f"{value!r} is negative; give 0 or more seconds", param, ctx)
        return number


SECONDS = Seconds()


class CliError(click.ClickException):
    """A library error shown to the user: 'error: <field>: <message>', exit status 2."""

    exit_code = 2

    def format_message(self) -> str:
        return self.message

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


class FactledgerGroup(click.Group):
    """Turns library errors raised anywhere in a command into CLI errors with exit status 2.

    `lazy_commands` names commands by where they live (`name -> "module:attribute"` under
    factledger.cli), imported when first asked for: a command pays only for its own imports (`sql` needs
    DuckDB, not recall's numpy and the digest), and `--help` still lists every command."""

    def __init__(self, *args: Any, lazy_commands: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lazy = dict(lazy_commands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self._lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self._lazy:
            module, _, attribute = self._lazy[cmd_name].partition(":")
            command = getattr(importlib.import_module(f"factledger.cli.{module}"), attribute)
            if command.help and not command.short_help:
                command.short_help = first_sentence(command.help)
            complete_short_help(command)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def every_command(self) -> dict[str, click.Command]:
        """Every command, imported (for tests and docs that walk the whole tree)."""
        ctx = click.Context(self)
        return {name: command for name in self.list_commands(ctx) if (command := self.get_command(ctx, name))}

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except LedgerError as exc:
            raise CliError(str(exc)) from None


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def first_sentence(text: str) -> str:
    """The first sentence of a help text's first paragraph, whole (click would cut it at 45 characters
    or the terminal's width, often mid-sentence, with "...")."""
    paragraph = " ".join(inspect.cleandoc(text).split("\n\n", 1)[0].split())
    end = _SENTENCE_END.search(paragraph)
    return paragraph[: end.end()] if end else paragraph


def complete_short_help(command: click.Command) -> None:
    """Give every command below `command` (a group) a short help that is a whole sentence, so the
    commands listing of every group reads `name  First sentence.` however wide the terminal is."""
    for sub in getattr(command, "commands", {}).values():
        if sub.help and not sub.short_help:
            sub.short_help = first_sentence(sub.help)
        complete_short_help(sub)


def pass_app(func: Any) -> Any:
    return click.pass_obj(func)


def warn_undeclared(names: Sequence[str], *, how: str = "as 'many' with the default template", refuse: str = "refuse such lines") -> None:
    """One stderr warning per predicate a write registered only because it named it."""
    for name in names:
        click.echo(f"warning: predicate {name!r} was never defined: registered {how}"
                   f" (define it first, or pass --strict-predicates to {refuse})", err=True)


CARDINALITY_WORDS = {"one": "one value at a time", "many": "any number of values at once"}


def note_defined(app: AppContext, names: Sequence[str], *, by: str) -> None:
    """One stderr note per predicate a digest or an accept defined because the proposal came with its
    definition (nobody had defined it before): what it now means, in words, since there is nothing the
    operator must do ("note: 'name' is new to this ledger; this accept defined it as the proposal gives
    it: one value at a time, shown as '{subject}'s name is {value}'")."""
    if not names:
        return
    ledger = app.ledger()
    for name in dict.fromkeys(names):
        predicate = ledger.predicate(name)
        meaning = (f": {CARDINALITY_WORDS.get(predicate.cardinality, predicate.cardinality)}, shown as {predicate.template!r}"
                   if predicate is not None else "")
        click.echo(f"note: {name!r} is new to this ledger; {by} defined it as the proposal gives it{meaning}"
                   " (`factledger predicates` lists every definition)", err=True)


def note_unknown(app: AppContext, found: Sequence[Any], **names: Any) -> list[str]:
    """After a read came back empty: say on stderr which of the names it was given (scopes, subject,
    predicate) the ledger has never seen, with the closest known name ("note: no predicate 'lives'; did
    you mean lives_in?"), whether the output is a table or JSON. Returns the notes, for JSON objects
    that carry them as a field. Nothing is looked up when the read found something."""
    if found:
        return []
    notes = app.database().unknown_names(**names)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    return notes


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, sort_keys=False))


def emit_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, title: str | None = None) -> None:
    """A plain aligned table: readable in a terminal and stable in a pipe."""
    rows = [["" if c is None else str(c) for c in row] for row in rows]
    if title:
        click.echo(title)
    if not rows:
        click.echo("  (none)")
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()
    click.echo(line)
    click.echo("  ".join("-" * w for w in widths))
    for row in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


def interval(start: str | None, end: str | None) -> str:
    return f"[{display(start)}, {display(end)})"


def iter_input(path: str) -> Iterator[str]:
    """Lines of FILE as `read_input` gives them, read as they are consumed (a file of any size in flat
    memory); each call reads the file anew. Not for '-': standard input can be read once only."""
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}") from None
    with handle:
        try:
            for number, raw in enumerate(handle, start=1):
                if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                if raw.endswith(b"\n"):
                    raw = raw[:-1]
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise CliError(f"line {number}: line: not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})") from None
                yield line[:-1] if line.endswith("\r") else line
        except OSError as exc:
            raise CliError(f"cannot read {path}: {exc.strerror}") from None


def spool_stdin(folder: str | None = None) -> Path:
    """Standard input copied to a temporary file (the caller removes it), so it can be read twice."""
    handle = tempfile.NamedTemporaryFile(prefix="factledger-stdin-", suffix=".jsonl", dir=folder, delete=False)
    with handle:
        shutil.copyfileobj(sys.stdin.buffer, handle, 1 << 20)
    return Path(handle.name)


def read_input(path: str) -> list[str]:
    """Lines of FILE, or of standard input for '-': UTF-8 (a leading BOM is dropped), split on LF only
    (JSON text may hold U+2028 and the like, which str.splitlines would split on)."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise CliError(f"line {line}: line: not valid UTF-8 (byte 0x{data[exc.start]:02x} at column {column})") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]
