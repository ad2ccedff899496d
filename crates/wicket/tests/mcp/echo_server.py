"""A minimal MCP server on stdio (standard library only): `initialize`, `tools/list` (the tools
named on the command line, each taking any arguments) and `tools/call`, which answers with
ECHOED and the arguments it got. For tests that only need to see whether a call came through."""

import json
import sys

TOOLS = sys.argv[1:] or ["read_text_file"]


def reply(id_, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    method, id_ = msg.get("method"), msg.get("id")
    if id_ is None:
        continue
    if method == "initialize":
        reply(id_, {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "echo", "version": "1"}})
    elif method == "tools/list":
        reply(id_, {"tools": [{"name": t, "inputSchema": {"type": "object"}} for t in TOOLS]})
    elif method == "tools/call":
        text = "ECHOED " + json.dumps(msg.get("params", {}).get("arguments", {}))
        reply(id_, {"content": [{"type": "text", "text": text}]})
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "no such method"}}) + "\n")
        sys.stdout.flush()
