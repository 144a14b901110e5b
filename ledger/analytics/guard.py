"""Parse first, then refuse anything that is not one read-only query.

The checks run on sqlglot's tokens and tree, before DuckDB sees the text:
- exactly one statement (a trailing semicolon is fine; a second statement is refused where it starts);
- it starts like a query (SELECT, WITH, FROM, a parenthesis) and parses to one;
- nowhere inside is a write, DDL, session or file statement (a CTE holding a DELETE, SELECT … INTO);
- table references are tables or views by name: no file paths ('data.csv', "x/y.parquet"), and table
  functions only from a short list (range, unnest, the audit helpers);
- no function that reads files, environment or other databases (read_*, *_scan, glob, sqlite_*, query…).

DuckDB is locked down as well (no external access, configuration locked), so a gap here is not a hole.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from .dialect import TemporalClause, parse_statements, tokenize
from .errors import QueryRefused, SqlSyntaxError, position

_WRITE_STARTS = {"INSERT", "UPDATE", "DELETE", "ERASE"}
QUERY_START = {TokenType.SELECT, TokenType.WITH, TokenType.FROM, TokenType.L_PAREN}
# sqlglot parses and prints recursively: a query nested deeper than this is refused where the nesting
# goes too deep, before the parser would exhaust Python's stack. Real queries stay far below it.
MAX_NESTING = 64
_OPENERS = {TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE}
_CLOSERS = {TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE}
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")

# Nodes that never belong in a read-only query, wherever they sit in the tree.
_FORBIDDEN_NAMES = (
    "DML", "DDL", "Insert", "Update", "Delete", "Merge", "Create", "Drop", "Alter", "TruncateTable",
    "Command", "Copy", "Set", "Pragma", "Attach", "Detach", "Use", "Install", "Export", "Into",
    "Transaction", "Commit", "Rollback", "Describe", "Summarize", "Show", "Analyze", "Grant", "Revoke",
    "Refresh", "Cache", "Uncache", "LoadData", "Comment", "Kill", "Lock",
)
FORBIDDEN_NODES: tuple[type, ...] = tuple(getattr(exp, n) for n in _FORBIDDEN_NAMES if hasattr(exp, n))

# The catalog name under which DuckDB attaches a PostgreSQL ledger (and a SQLite snapshot's private copy,
# while it loads). Analysts read the ledger through the views; a name through the attached catalog would
# pass them by, and with them the rule that no query reads the ledger's secret (the key of the
# tombstones' hashes: with it a guessed erased value could be confirmed).
LEDGER_CATALOG = "ledger_file"
SECRET_TABLES = {"ledger_secret"}

# Table functions a query may call in FROM: generators, DuckDB's duckdb_* catalog functions, and the
# audit helpers (views.MACROS adds them).
SAFE_TABLE_FUNCTIONS = {"range", "generate_series", "unnest"}

# Functions that reach outside the ledger: files, other databases, the environment, arbitrary SQL.
DENIED_FUNCTIONS = {
    "glob", "getenv", "query", "query_table", "sqlite_attach", "sqlite_query", "sqlite_scan",
    "parquet_metadata", "parquet_schema", "parquet_file_metadata", "parquet_kv_metadata",
    "parquet_bloom_probe", "read_text", "read_blob", "load_extension", "duckdb_secrets", "which_secret",
    "checkpoint", "force_checkpoint", "export_database", "import_database", "pragma",
}
DENIED_PREFIXES = ("read_", "sqlite_", "postgres_", "mysql_", "iceberg_", "delta_", "parquet_", "pragma_")
DENIED_SUFFIXES = ("_scan", "_attach")


def function_name(node: exp.Func) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    return node.sql_name().lower()


def _denied(name: str) -> bool:
    return name in DENIED_FUNCTIONS or name.startswith(DENIED_PREFIXES) or name.endswith(DENIED_SUFFIXES)


def node_offset(node: exp.Expression, default: int) -> int:
    """The character offset where `node` starts: its own position, else its earliest descendant's."""
    starts = [n.meta["start"] for n in node.walk() if isinstance(n, exp.Expression) and "start" in n.meta]
    return min(starts) if starts else default


class Guard:
    """Checks one query text; `check` returns its parsed tree or raises QueryRefused / SqlSyntaxError."""

    def __init__(self, sql: str, *, table_functions: set[str], reserved_names: set[str]):
        self.sql = sql
        self.table_functions = SAFE_TABLE_FUNCTIONS | {f.lower() for f in table_functions}
        self.reserved_names = {n.lower() for n in reserved_names}

    # -- errors ---------------------------------------------------------------------------------

    def refuse(self, reason: str, offset: int, text: str) -> QueryRefused:
        line, column = position(self.sql, offset)
        return QueryRefused(reason, line=line, column=column, text=text)

    def refuse_node(self, reason: str, node: exp.Expression, statement_start: int, *, keyword: bool = False) -> QueryRefused:
        offset = node_offset(node, statement_start)
        text = node.sql(dialect="duckdb") if not isinstance(node, TemporalClause) else ""
        if keyword and text:
            # Statement nodes (DELETE …, INTO …) carry no position of their own: point at their
            # keyword, the last one before their first positioned part.
            word = text.split()[0].upper()
            found = self.sql.upper().rfind(word, statement_start, offset + 1)
            if found >= 0:
                offset = found
        return self.refuse(reason, offset, _shorten(text))

    # -- checks ---------------------------------------------------------------------------------

    def one_statement(self, what: str = "one SELECT") -> list[Token]:
        """The tokens of the only statement (a trailing semicolon is fine); refuses none or several."""
        statements = self._statements()
        if not statements:
            raise self.refuse(f"empty query: write {what}", 0, "")
        if len(statements) > 1:
            second = statements[1][0]
            raise self.refuse("one statement only; a second statement starts here", second.start, _token_text(statements[1]))
        return statements[0]

    def check(self) -> exp.Expression:
        tokens = self.one_statement()
        first = tokens[0]
        if first.token_type not in QUERY_START:
            hint = " (a write to claims goes with --write)" if first.text.upper() in _WRITE_STARTS else ""
            raise self.refuse(f"only read-only queries (SELECT, WITH, FROM …) are allowed{hint}", first.start, _token_text(tokens))
        tree = self.parse()
        if not isinstance(tree, exp.Query):
            raise self.refuse("only read-only queries are allowed", first.start, _token_text(tokens))
        self._check_tree(tree, first.start)
        return tree

    def _statements(self) -> list[list[Token]]:
        try:
            tokens = tokenize(self.sql)
        except TokenError as exc:
            raise SqlSyntaxError(str(exc).split("\n")[0], line=1, column=1, text="") from None
        statements: list[list[Token]] = [[]]
        depth = 0
        for token in tokens:
            if token.token_type in _OPENERS:
                depth += 1
                if depth > MAX_NESTING:
                    raise self.refuse(f"nested deeper than {MAX_NESTING} levels", token.start, token.text)
            elif token.token_type in _CLOSERS:
                depth = max(0, depth - 1)
            if token.token_type == TokenType.SEMICOLON:
                statements.append([])
            else:
                statements[-1].append(token)
        return [s for s in statements if s]

    def parse(self) -> exp.Expression | None:
        """The parsed statement (None unless exactly one), or SqlSyntaxError with its position."""
        try:
            parsed = [p for p in parse_statements(self.sql) if p is not None]
        except ParseError as exc:
            detail = exc.errors[0] if exc.errors else {}
            line = int(detail.get("line") or 1)
            highlight = str(detail.get("highlight") or "")
            # sqlglot reports the column where the offending token ends.
            column = max(1, int(detail.get("col") or 1) - len(highlight) + 1) if "\n" not in highlight else 1
            reason = _TOKEN_REPR.sub(_describe_token, str(detail.get("description") or exc).split("\n")[0])
            raise SqlSyntaxError(reason, line=line, column=column, text=highlight) from None
        except RecursionError:  # a long flat chain (1 + 1 + … + 1) still nests in the tree
            raise self.refuse("the query is too deeply nested to parse", 0, "") from None
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
            # sqlglot fails this way on some malformed input ('{ :'): still a syntax error of the query.
            raise SqlSyntaxError(f"cannot parse the query ({type(exc).__name__} in the parser)", line=1, column=1, text="") from None
        return parsed[0] if len(parsed) == 1 else None

    def _check_tree(self, tree: exp.Expression, start: int) -> None:
        for node in tree.walk():
            if isinstance(node, FORBIDDEN_NODES):
                raise self.refuse_node(
                    f"{type(node).__name__.upper()} is not allowed in a read-only query", node, start, keyword=True
                )
            if isinstance(node, TemporalClause) and node.args.get("kind") == "PORTION":
                raise self.refuse_node("FOR PORTION OF belongs to UPDATE and DELETE (with --write); a query reads FOR VALID_TIME FROM … TO …", node, start)
            if isinstance(node, exp.CTE) and node.alias_or_name.lower() in self.reserved_names:
                raise self.refuse_node(f"a WITH query may not be named {node.alias_or_name!r}: it is a ledger view", node, start)
            if isinstance(node, exp.Table):
                self._check_table(node, start)
            elif isinstance(node, exp.Func):
                name = function_name(node)
                if _denied(name):
                    raise self.refuse_node(f"function {name} reaches outside the ledger and is not allowed", node, start)

    def _check_table(self, table: exp.Table, start: int) -> None:
        target = table.this
        if isinstance(target, exp.Func):
            name = function_name(target)
            # DuckDB's catalog functions (duckdb_tables(), duckdb_columns(), …) only describe.
            catalog = name.startswith("duckdb_") and not _denied(name)
            if name not in self.table_functions and not catalog:
                raise self.refuse_node(
                    f"table function {name} is not allowed (allowed: {', '.join(sorted(self.table_functions))})",
                    target,
                    start,
                )
            return
        if isinstance(target, exp.Literal) or (isinstance(target, exp.Identifier) and _looks_like_path(target.name)):
            raise self.refuse_node("files cannot be read here: name a ledger view", table, start)
        for part in (table.args.get("db"), table.args.get("catalog")):
            if isinstance(part, exp.Identifier) and _looks_like_path(part.name):
                raise self.refuse_node("files cannot be read here: name a ledger view", table, start)
            if isinstance(part, exp.Identifier) and part.name.lower() == LEDGER_CATALOG:
                raise self.refuse_node(
                    f"the ledger is read through its views (claims, transactions, …), not through {LEDGER_CATALOG}",
                    table, start,
                )
        if table.name.lower() in SECRET_TABLES:
            raise self.refuse_node(f"{table.name} keys the tombstones' hashes: no query reads it", table, start)


_TOKEN_REPR = re.compile(r"<Token token_type: TokenType\.(\w+), text: ([^,]*),[^>]*>")


def _describe_token(match: re.Match) -> str:
    return "the end of the query" if match.group(1) == "SENTINEL" else repr(match.group(2))


def _looks_like_path(name: str) -> bool:
    return any(ch in name for ch in "./\\:~") or name.lower().startswith(("http", "s3"))


def _token_text(tokens: list[Token]) -> str:
    return " ".join(t.text for t in tokens[:2])


def _shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Reads that describe a query's result rather than return it. Each is written before a query (or, for
# DESCRIBE / SUMMARIZE, a view name); the query itself goes through every check above.
DESCRIBING = ("DESCRIBE", "DESC", "SUMMARIZE", "EXPLAIN")
_EXPLAIN_ANALYZE = re.compile(r"\s*ANALYZE\b", re.IGNORECASE)


def describing_prefix(sql: str) -> tuple[str, str] | None:
    """For `DESCRIBE|SUMMARIZE|EXPLAIN [ANALYZE] <query or view>` and `SHOW TABLES`: (the command, the
    query text with the command blanked to spaces, so positions in errors stay those of `sql`). A bare
    view name becomes DuckDB's `FROM view`. None for anything else."""
    if not isinstance(sql, str):
        return None
    try:
        tokens = [t for t in tokenize(sql) if t.token_type != TokenType.SEMICOLON]
    except TokenError:
        return None
    if not tokens:
        return None
    words = [t.text.upper() for t in tokens]
    if words == ["SHOW", "TABLES"] or words == ["DESCRIBE"]:
        return "SHOW TABLES", ""
    if words[0] not in DESCRIBING or len(tokens) < 2:
        return None
    command = "DESCRIBE" if words[0] == "DESC" else words[0]
    start = tokens[1].start
    if command == "EXPLAIN":
        start = tokens[0].end + 1
        # sqlglot's tokenizer reads the rest of an EXPLAIN as one string token: find the query's start.
        rest = _EXPLAIN_ANALYZE.match(sql, start)
        if rest is not None:
            command, start = "EXPLAIN ANALYZE", rest.end()
        start += len(sql[start:]) - len(sql[start:].lstrip())
    blank = "".join(ch if ch == "\n" else " " for ch in sql[:start])
    inner = sql[start:]
    try:
        first = tokenize(inner)[0].token_type if inner.strip() else None
    except TokenError:
        first = None
    if first not in QUERY_START and not command.startswith("EXPLAIN"):
        blank = "FROM" + blank[4:]  # a view name: DESCRIBE/DESC/SUMMARIZE are at least as long as FROM
    return command, blank + inner


def check_query(sql: str, *, table_functions: set[str] = frozenset(), reserved_names: set[str] = frozenset()) -> exp.Expression:
    """Parse `sql` and return its tree if it is one read-only query; else raise with the position."""
    if not isinstance(sql, str):
        raise QueryRefused("the query must be text", line=1, column=1, text="")
    bad = _LONE_SURROGATE.search(sql)
    if bad:
        line, column = position(sql, bad.start())
        raise SqlSyntaxError(f"a lone surrogate (U+{ord(bad.group()):04X}) is not text", line=line, column=column, text="")
    return Guard(sql, table_functions=set(table_functions), reserved_names=set(reserved_names)).check()


def read_names(tree: exp.Expression, ledger_names: set[str]) -> set[str] | None:
    """The tables, views and table functions a checked query reads, its own WITH names left out unless
    one is also the name of a ledger view (`ledger_names`: it may then read both), or None when it names
    something by a schema or catalog path (information_schema, …): then it may read anything."""
    defined = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)} - ledger_names
    names: set[str] = set()
    for table in tree.find_all(exp.Table):
        if table.args.get("db") is not None or table.args.get("catalog") is not None:
            return None
        target = table.this
        name = function_name(target) if isinstance(target, exp.Func) else table.name.lower()
        if name not in defined:
            names.add(name)
    return names
