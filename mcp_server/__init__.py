"""factledger.mcp_server: factledger as a Model Context Protocol server (`factledger mcp`), for any MCP
client (Claude Desktop, Claude Code, Cursor, Codex, Hermes's own MCP client).

Glue only, like the Hermes provider: every tool is one call into the front door (factledger.database)
or the digest's explicit writes (the same value, rejection and review policies as the Hermes tools).
Importing this package imports nothing from the `mcp` SDK: `server.build_server` does. See
docs/ARCHITECTURE.md, "MCP server", and docs/mcp.md.
"""
