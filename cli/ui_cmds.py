"""`factledger ui`: serve the reviewer's page on this machine."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import click

from .app import AppContext, CliError, pass_app


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.command("ui")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback unless you mean it).")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port to listen on (0: any free port, printed at start).")
@click.option("--token-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Read the operator token from this file (mode 0600). Default: make one and print it once.")
@click.option("--read-only", is_flag=True, help="No token: nobody can write through the page.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Also answer requests addressed to NAME (the page answers only as 127.0.0.1, localhost, [::1]"
              " and --host: a foreign name is DNS rebinding). Repeat for more.")
@pass_app
def ui_cmd(app: AppContext, host: str, port: int, token_file: Path | None, read_only: bool, allow_hosts: tuple[str, ...]) -> None:
    """Serve the reviewer's page: slot timelines, "as known at", subjects, the review queue.

    Writes (accept, reject, lift, confirm) need the operator token and are recorded as --principal.
    """
    try:
        import uvicorn

        from .ui.app import create_app
        from .ui.security import Guard, TokenFileError, new_token, read_token_file
    except ImportError as exc:  # the ui extra is not installed
        raise CliError(f"the page needs the ui extra: pip install 'factledger[ui]' ({exc.name} is missing)") from None
    if read_only and token_file is not None:
        raise CliError("token-file: --read-only takes no token")
    if not _is_loopback(host):
        click.echo(f"warning: binding {host}: anyone who can reach it can read the ledger", err=True)
    token: str | None = None
    if not read_only:
        if token_file is not None:
            try:
                token = read_token_file(token_file)
            except TokenFileError as exc:
                raise CliError(f"token-file: {exc}") from None
        else:
            token = new_token()
            click.echo(f"operator token (shown once): {token}", err=True)
    app.ledger()  # open (and migrate) before serving, so a bad --db fails here, not on the first request
    guard = Guard(token=token, principal=app.principal)
    if not guard.writable and not read_only:
        click.echo(f"note: {app.principal} is not an operator: the page is read-only", err=True)
    click.echo(f"factledger ui on http://{host}:{port}/ as {app.principal}", err=True)
    uvicorn.run(create_app(app.db_path, guard=guard, hosts=(host, *allow_hosts)), host=host, port=port, log_level="warning")


COMMANDS = [ui_cmd]
