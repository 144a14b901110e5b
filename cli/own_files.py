"""The files a ledger keeps, as the CLI (the one place that composes the parts) knows them: the ledger's
own layout (ledger/outputs.py: its chain key and heads file among them), the chain key file and heads
file the command was given (--chain-key, the heads file beside the ledger), the vector folder recall
records in the ledger (it may have been moved), and the provider's settings, chain key and heads beside a
Hermes home's ledger. Output paths (`sql -o`, `backup`, `export`)
are checked against them before anything is written."""

from __future__ import annotations

from pathlib import Path

from factledger.ledger import LedgerError
from factledger.ledger.outputs import check_output, ledger_own_paths

from .app import AppContext, CliError


def own_files(app: AppContext) -> list[Path]:
    paths = ledger_own_paths(app.db_path)
    if not app.is_postgres:
        ledger_file = Path(app.db_path)
        if ledger_file.name == "ledger.db" and ledger_file.parent.name == "factledger":
            from factledger.hermes_plugin.paths import HermesPaths

            hermes = HermesPaths(ledger_file.parent.parent)
            if hermes.ledger_path == ledger_file:
                paths += [hermes.settings_path, hermes.chain_key_path(ledger_file), hermes.heads_path(ledger_file)]
    if app.chain_key_file is not None:
        paths.append(Path(app.chain_key_file))
    heads = app.heads_path()
    if heads is not None:
        paths.append(heads)
    try:
        from factledger.recall import Recall

        recall = Recall(app.ledger())
        try:
            paths.append(recall.index_dir)
        finally:
            recall.close()
    except LedgerError:
        pass  # no ledger (the command reports that itself) or none readable: its default layout stands
    return paths


def checked_output(app: AppContext, path: Path, *, field: str, what: str) -> Path:
    """`path` when a command may write there; else a CLI error (exit status 2) naming it."""
    try:
        return check_output(path, own_files(app), field=field, what=what)
    except LedgerError as exc:
        raise CliError(str(exc)) from None
