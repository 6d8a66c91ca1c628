"""A minimal stdio MCP server for the conformance trees: one tool named after ``argv[1]``.

Newline-delimited JSON-RPC (what Claude Code and Codex speak over stdio): ``initialize``,
``tools/list``, empty resource and prompt lists, an error for anything else. A tree copies this
file in and names it in its ``.mcp.json`` or ``.codex/config.toml``; the tool's name in the
request body shows that the CLI started the server.
"""

import json
import sys

TOOL = sys.argv[1] if len(sys.argv) > 1 else "probe"


def answer(msg: dict) -> dict:
    method = msg.get("method")
    if method == "initialize":
        version = (msg.get("params") or {}).get("protocolVersion", "2024-11-05")
        info = {"name": "probe", "version": "1.0"}
        return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
    if method == "tools/list":
        schema = {"type": "object", "properties": {}}
        return {"tools": [{"name": TOOL, "description": f"probe {TOOL}", "inputSchema": schema}]}
    if method == "resources/list":
        return {"resources": []}
    if method == "prompts/list":
        return {"prompts": []}
    raise LookupError(method)


for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if not isinstance(msg, dict) or "id" not in msg:
        continue
    try:
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": answer(msg)}
    except LookupError:
        reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
