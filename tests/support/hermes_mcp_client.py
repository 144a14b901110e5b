"""Drive `factledger mcp` through Hermes Agent's own MCP client, as Hermes configures it (config.yaml's
`mcp_servers`), in a process of its own (Hermes keeps its MCP connections in module state).

usage: python hermes_mcp_client.py HERMES_HOME FACTLEDGER LEDGER; prints one JSON object: the tools Hermes
registered and what its tool dispatch answered for a few calls."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


EXPECTED = ("search", "current", "as_of", "history", "remember", "forget", "profile")


def main() -> None:
    home, factledger, ledger = sys.argv[1:4]
    os.environ["HERMES_HOME"] = home
    config = {"mcp_servers": {"factledger": {
        "command": factledger, "args": ["--db", ledger, "mcp", "--scope", "alice", "--agent", "hermes"], "timeout": 60,
    }}}
    Path(home, "config.yaml").write_text(json.dumps(config), "utf-8")  # JSON is YAML

    from tools.mcp_tool import discover_mcp_tools, mcp_prefixed_tool_name, shutdown_mcp_servers
    from tools.registry import registry

    def tool(name: str) -> str:
        return mcp_prefixed_tool_name("factledger", name)

    try:
        names = discover_mcp_tools()
        calls = {
            "current": registry.dispatch(tool("current"), {"subject": "user", "predicate": "lives_in"}),
            "remember": registry.dispatch(tool("remember"), {"subject": "user", "predicate": "likes",
                                                                      "value": "sailing"}),
            "other_scope": registry.dispatch(tool("current"), {"scope": "bob"}),
        }
    finally:
        shutdown_mcp_servers()
    print(json.dumps({"tools": sorted(names), "expected": [tool(t) for t in EXPECTED], "calls": calls}))


if __name__ == "__main__":
    main()
