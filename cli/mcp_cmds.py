"""`factledger mcp`: serve the ledger to MCP clients (stdio by default; streamable HTTP on loopback)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from .app import AppContext, CliError, pass_app
from .ui_cmds import _is_loopback


class HttpGate:
    """The page's rules in front of the streamable HTTP app: the Host header must name this server (DNS
    rebinding sends another name) and every request carries the token (`Authorization: Bearer …`)."""

    def __init__(self, app: Any, *, token: str, hosts: frozenset[str]):
        from .ui.security import Guard

        self.app = app
        self.guard = Guard(token=token, principal="agent:mcp")
        self.hosts = hosts

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            from starlette.responses import PlainTextResponse

            from .ui.security import allowed_host

            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            refusal = None
            if not allowed_host(headers.get("host"), self.hosts):
                refusal = PlainTextResponse("host: this server answers only to its own names", status_code=421)
            else:
                scheme, _, presented = headers.get("authorization", "").partition(" ")
                if scheme.lower() != "bearer" or not self.guard.token_ok(presented.strip() or None):
                    refusal = PlainTextResponse("authorization: give the server's token as a Bearer token", status_code=401,
                                                headers={"WWW-Authenticate": "Bearer"})
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


@click.command("mcp")
@click.option("--scope", "scopes", multiple=True, required=True, metavar="SCOPE",
              help="A scope this server serves (repeat for more; the first is where writes go). A client can name"
              " no other.")
@click.option("--agent", default="mcp", show_default=True, metavar="NAME",
              help="Who the model is in the audit trail: its writes are recorded as agent:NAME (never an operator,"
              " so it can never accept its own proposals).")
@click.option("--journal/--no-journal", default=False, show_default=True,
              help="Offer the journal tool: the client sends conversation turns, which become episodes and are digested.")
@click.option("--http", "http", is_flag=True, help="Serve streamable HTTP (at /mcp) instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --http: the address to bind (loopback unless you mean it).")
@click.option("--port", default=8766, show_default=True, type=click.IntRange(1, 65535), help="With --http: the TCP port.")
@click.option("--token-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="With --http: read the token clients must send from this file (mode 0600). Default: make one and"
              " print it once.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="With --http: also answer requests addressed to NAME (as the page does). Repeat for more.")
@pass_app
def mcp_cmd(app: AppContext, scopes: tuple[str, ...], agent: str, journal: bool, http: bool, host: str, port: int,
            token_file: Path | None, allow_hosts: tuple[str, ...]) -> None:
    """Serve memory to MCP clients (Claude Desktop, Claude Code, Cursor, Hermes): search, current, as_of,
    history, remember, forget, profile and the recalled prompt, over stdio (standard input and output).

    Writes go through the same review policy as the Hermes tools and are recorded as agent:NAME. The
    digest model comes from FACTLEDGER_DIGEST_* (the offline rules without one). See docs/mcp.md.
    """
    try:
        from factledger.digest import DigestConfig
        from factledger.mcp_server.server import ServerOptions, build_server
    except ImportError as exc:  # the mcp extra is not installed
        raise CliError(f"the MCP server needs the mcp extra: pip install 'factledger[mcp]' ({exc.name} is missing)") from None
    if not http and (token_file is not None or allow_hosts):
        raise CliError("token-file: --token-file and --allow-host apply only with --http")
    options = ServerOptions(scopes=scopes, principal=f"agent:{agent}", journal=journal,
                            digest=DigestConfig.from_env(os.environ))
    app.principal = options.principal  # nothing this process writes is an operator's
    db = app.database(create=True)
    if not http:
        build_server(db, options).run("stdio")
        return
    _serve_http(db, options, host=host, port=port, token_file=token_file, allow_hosts=allow_hosts)


def _serve_http(db: Any, options: Any, *, host: str, port: int, token_file: Path | None, allow_hosts: tuple[str, ...]) -> None:
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from factledger.mcp_server.server import build_server

    from .ui.security import TokenFileError, new_token, page_hosts, read_token_file

    if not _is_loopback(host):
        click.echo(f"warning: binding {host}: anyone who can reach it and has the token can use this memory", err=True)
    if token_file is not None:
        try:
            token = read_token_file(token_file)
        except TokenFileError as exc:
            raise CliError(f"token-file: {exc}") from None
    else:
        token = new_token()
        click.echo(f"token (shown once; clients send it as 'Authorization: Bearer …'): {token}", err=True)
    # The Host and token rules are the gate's (the page's); the SDK's own Host check would be a second list.
    server = build_server(db, options, host=host, port=port,
                          transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    gate = HttpGate(server.streamable_http_app(), token=token, hosts=page_hosts((host, *allow_hosts)))
    click.echo(f"factledger mcp on http://{host}:{port}/mcp as {options.principal}, scopes {', '.join(options.scopes)}", err=True)
    uvicorn.run(gate, host=host, port=port, log_level="warning")


COMMANDS = [mcp_cmd]
