"""Recall commands: search (one query or a JSON Lines batch), memories, recall (the prompt block), index."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from factledger.digest import Journal
from factledger.ledger import LedgerError, ValidationError
from factledger.ledger.ops import decode_json_line
from factledger.ledger.times import display
from factledger.recall import KINDS, PRESETS, Hit, Recall, RecallConfig
from factledger.recall.text import flat

from .app import TIMES, AppContext, CliError, count, note_unknown, emit_json, emit_table, interval, pass_app, read_input

index_dir_option = click.option(
    "--index-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="FACTLEDGER_INDEX_DIR",
    default=None,
    help="The vector index folder, for a ledger that has none yet (then recorded in the ledger; every process"
    " uses the recorded one). Default: <ledger file>.lance beside the ledger. Also FACTLEDGER_INDEX_DIR.",
)
config_option = click.option(
    "--config",
    "config_name",
    type=click.Choice(sorted(PRESETS)),
    default="balanced",
    show_default=True,
    help="Named fusion configuration (see docs/ARCHITECTURE.md, Recall).",
)
time_options = [
    click.option("--valid-at", default=None, help=f"Valid-time instant: {TIMES}. Default: now."),
    click.option("--known-at", default=None, help=f"Transaction-time instant, what the ledger believed then: {TIMES}. Default: now."),
]


def _with_time(func):
    for option in reversed(time_options):
        func = option(func)
    return func


def _recall(app: AppContext, index_dir: Path | None, config_name: str = "balanced") -> Recall:
    return Recall(app.ledger(), index_dir, config=RecallConfig.preset(config_name))


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def _batch_id(data: object, number: int) -> object:
    """The line's `id` to echo back (any JSON value without a lone surrogate, which cannot be printed);
    the line number when the line has none."""
    if not isinstance(data, dict) or "id" not in data:
        return number
    try:
        json.dumps(data["id"], ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError(f"line {number}: holds a lone surrogate (\\ud800-\\udfff), which cannot be echoed back",
                              field="id") from None
    return data["id"]


def _batch_line(recall: Recall, text: str, number: int) -> dict:
    try:
        data = decode_json_line(text)
    except ValidationError as exc:
        raise ValidationError(f"line {number}: {exc.message}", field="line") from None
    if not isinstance(data, dict):
        raise ValidationError(f"line {number}: each line must be a JSON object", field="line")
    line_id = _batch_id(data, number)
    unknown = set(data) - {"id", "query", "scope", "scopes", "limit", "valid_at", "known_at"}
    if unknown:
        raise ValidationError(f"line {number}: unknown field", field=sorted(unknown)[0])
    scopes = data.get("scopes", data.get("scope"))
    if isinstance(scopes, str):
        scopes = [scopes]
    if not isinstance(scopes, list) or not scopes:
        raise ValidationError(f"line {number}: required (a scope name or a list of them)", field="scope")
    hits = recall.search(
        data.get("query"), scopes, valid_at=data.get("valid_at"), known_at=data.get("known_at"),
        limit=data.get("limit", 10),
    )
    return {"id": line_id, "results": [h.to_dict() for h in hits]}


@click.command("search")
@click.argument("query", required=False)
@click.option("--scope", "scopes", multiple=True, help="Scope to search (repeatable; required for a single query).")
@_with_time
@click.option("--limit", type=count(1), default=10, show_default=True, help="At most this many results.")
@click.option("--kind", "kinds", type=click.Choice(KINDS), multiple=True,
              help="Search only facts (claim versions) or only episodes (what was said). Default: both.")
@click.option("--batch", "batch", default=None, help='JSON Lines file (or - for stdin) of {"id","query","scope","limit"}.')
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@index_dir_option
@config_option
@pass_app
def search_cmd(
    app: AppContext, query: str | None, scopes: tuple[str, ...], valid_at: str | None, known_at: str | None,
    limit: int, kinds: tuple[str, ...], batch: str | None, as_json: bool, index_dir: Path | None, config_name: str,
) -> None:
    """Search facts and episodes: lexical, exact and vector lanes fused, under the visibility predicate.

    Each result says its kind: a fact (a claim version, with its valid interval) or an episode (a
    journal turn: who said what, when). With --batch, each input line is one query; one JSON line is
    printed per query with its id and results (or its error), and the models and indexes are loaded once.
    """
    recall = _recall(app, index_dir, config_name)
    if batch is not None:
        if query is not None:
            raise CliError("give either QUERY or --batch, not both")
        failures = 0
        for number, text in enumerate(read_input(batch), start=1):
            if not text.strip():
                continue
            try:
                emit_json(_batch_line(recall, text, number))
            except LedgerError as exc:
                failures += 1
                line_id: object = number
                try:
                    line_id = _batch_id(decode_json_line(text), number)
                except ValidationError:
                    pass
                emit_json({"id": line_id, "error": str(exc)})
        if failures:
            raise CliError(f"{failures} batch line(s) failed; see their error objects")
        return
    if query is None:
        raise CliError("give a QUERY (or --batch FILE)")
    if not scopes:
        raise CliError("scope: name at least one --scope to search")
    hits = recall.search(query, list(scopes), valid_at=valid_at, known_at=known_at, limit=limit, kinds=kinds or KINDS)
    note_unknown(app, hits, scopes=list(scopes))
    if as_json:
        emit_json([h.to_dict() for h in hits])
        return
    emit_table(
        ["kind", "id", "who / subject", "what", "when", "source", "lexical", "exact", "vector", "fused"],
        [[*_hit_columns(h), _score(h.scores.lexical), _score(h.scores.exact), _score(h.scores.vector),
          f"{h.scores.fused:.4f}"] for h in hits],
    )


def _hit_columns(hit: Hit) -> list[object]:
    if hit.episode is not None:
        e = hit.episode
        return ["episode", e.id, e.speaker, flat(e.text), display(e.said_at), e.ref]
    c = hit.claim
    assert c is not None
    return ["fact", c.id, c.subject, f"{c.predicate}: {c.value}", interval(c.valid_from, c.valid_to), ",".join(c.source)]


@click.command("recall")
@click.argument("query")
@click.option("--scope", "scopes", multiple=True, required=True, help="Scope to search (repeatable).")
@_with_time
@click.option("--json", "as_json", is_flag=True, help='Print JSON for scripts: {"text", "facts", "changed", "episodes"} with each hit shown ("changed": facts a later turn says changed).')
@index_dir_option
@config_option
@pass_app
def recall_cmd(
    app: AppContext, query: str, scopes: tuple[str, ...], valid_at: str | None, known_at: str | None,
    as_json: bool, index_dir: Path | None, config_name: str,
) -> None:
    """Print the prompt block the host would get for QUERY (nothing when nothing clears the gate)."""
    block = _recall(app, index_dir, config_name).prompt(query, list(scopes), valid_at=valid_at, known_at=known_at)
    unknown = note_unknown(app, block.facts + block.changed + block.episodes, scopes=list(scopes))
    if as_json:
        emit_json({"text": block.text, "facts": [h.to_dict() for h in block.facts],
                   "changed": [h.to_dict() for h in block.changed],
                   "episodes": [h.to_dict() for h in block.episodes], "unknown": unknown})
    elif block.text:
        click.echo(block.text)


@click.command("memories")
@click.option("--scope", "scopes", multiple=True, required=True, help="Scope to read (repeatable).")
@_with_time
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def memories_cmd(app: AppContext, scopes: tuple[str, ...], valid_at: str | None, known_at: str | None, as_json: bool) -> None:
    """Free-text memories: one sentence per visible claim, with its valid time."""
    memories = Recall(app.ledger(), config=RecallConfig.preset("lexical")).memories(
        list(scopes), valid_at=valid_at, known_at=known_at
    )
    note_unknown(app, memories, scopes=list(scopes))
    if as_json:
        emit_json([m.to_dict() for m in memories])
        return
    for memory in memories:
        click.echo(f"[{memory.claim.id}] {memory.sentence}")


@click.command("episodes")
@click.option("--scope", "scopes", multiple=True, required=True, help="Scope to read (repeatable).")
@click.option("--session", default=None, help="Only this conversation session.")
@_with_time
@click.option("--limit", type=count(1), default=None, help="Only the latest N turns.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def episodes_cmd(
    app: AppContext, scopes: tuple[str, ...], session: str | None, valid_at: str | None, known_at: str | None,
    limit: int | None, as_json: bool,
) -> None:
    """What was said: the journal's turns as episodes (evidence, not current truth), oldest first."""
    episodes = Recall(app.ledger(), config=RecallConfig.preset("lexical")).episodes(
        list(scopes), session=session, valid_at=valid_at, known_at=known_at, limit=limit
    )
    note_unknown(app, episodes, scopes=list(scopes))
    titles = Journal(app.ledger()).session_titles(e.session for e in episodes)  # the host's names of the sessions
    if as_json:
        emit_json([{**e.to_dict(), "conversation": titles.get(e.session or "")} for e in episodes])
        return
    emit_table(
        ["id", "said at", "session", "conversation", "speaker", "text"],
        [[e.id, display(e.said_at), flat(e.session or ""), flat(titles.get(e.session or "", "")), e.speaker, flat(e.text)]
         for e in episodes],
    )


@click.group("index")
def index_group() -> None:
    """The vector companion (LanceDB): status, rebuild, repair. It is always rebuildable from the ledger."""


@index_group.command("status")
@index_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def index_status_cmd(app: AppContext, index_dir: Path | None, as_json: bool) -> None:
    """Where the index is, which embedder filled it, how far behind the ledger it is."""
    status = _recall(app, index_dir).status()
    if as_json:
        emit_json(status.to_dict())
        return
    emit_table(["field", "value"], [[k, v] for k, v in status.to_dict().items()])


@index_group.command("rebuild")
@index_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def index_rebuild_cmd(app: AppContext, index_dir: Path | None, as_json: bool) -> None:
    """Write the vector index again from the ledger."""
    recall = _recall(app, index_dir)
    status = recall.status()
    total = status.claim_versions + status.episodes
    # Progress goes to stderr so --json output on stdout stays one clean object.
    with click.progressbar(length=max(total, 1), label="embedding facts and episodes", file=sys.stderr) as bar:
        last = [0]

        def progress(done: int, _total: int) -> None:
            bar.update(done - last[0])
            last[0] = done

        written = recall.rebuild(progress)
    status = recall.status()
    if as_json:
        emit_json({"written": written, **status.to_dict()})
    else:
        click.echo(f"rebuilt {status.folder}: {written} facts and episodes with {status.embedder}")


@index_group.command("move")
@click.argument("destination", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def index_move_cmd(app: AppContext, destination: Path, as_json: bool) -> None:
    """Rebuild the vector index in DESTINATION, record it in the ledger as its one index, remove the old folder."""
    recall = _recall(app, None)
    old = recall.index_dir
    written = recall.move_index(destination)
    if as_json:
        emit_json({"from": str(old), "to": str(recall.index_dir), "written": written})
    else:
        click.echo(f"moved the vector index from {old} to {recall.index_dir} ({written} facts and episodes)")


@index_group.command("repair")
@index_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def index_repair_cmd(app: AppContext, index_dir: Path | None, as_json: bool) -> None:
    """Make the index agree with the ledger row by row and clear the repair flag."""
    report = _recall(app, index_dir).repair()
    if as_json:
        emit_json(report.to_dict())
    elif report.rebuilt:
        click.echo("the index was missing or built by another embedder: rebuilt it")
    else:
        click.echo(f"repaired: {report.upserted} rows written, {report.deleted} rows removed")


COMMANDS = [search_cmd, recall_cmd, memories_cmd, episodes_cmd, index_group]
