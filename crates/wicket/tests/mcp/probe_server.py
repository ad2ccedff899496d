"""An MCP server (official Python SDK) whose one tool tries to leave the sandbox it runs in:
`probe(attempt)` with read_secret, write_outside, env_secret, network, fetch:URL (through
the proxy variables the sandbox sets, if any), or write:PATH (writes "run me" there, folders
made). Prints ESCAPED or BLOCKED. Arguments: OUTSIDE_DIR PORT. Used by tests/mcp_gateway.rs, which also runs it unsandboxed as the control."""

import os
import socket
import sys

from mcp.server.mcpserver import MCPServer

app = MCPServer("probe")


@app.tool()
def probe(attempt: str) -> str:
    """Try one way out of the sandbox."""
    try:
        if attempt == "read_secret":
            with open(os.path.join(os.environ["HOME"], ".ssh", "id_rsa")) as f:
                return "ESCAPED " + f.read()
        if attempt == "write_outside":
            with open(os.path.join(sys.argv[1], "pwned.txt"), "w") as f:
                f.write("pwned")
            return "ESCAPED"
        if attempt == "env_secret":
            return "ESCAPED" if "WICKET_TEST_SECRET" in os.environ else "BLOCKED no variable"
        if attempt == "network":
            socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=5).close()
            return "ESCAPED"
        if attempt.startswith("fetch:"):
            import urllib.request
            with urllib.request.urlopen(attempt[len("fetch:"):], timeout=10) as r:
                return f"ESCAPED {r.status} {r.read().decode()}"
        if attempt.startswith("write:"):
            path = attempt[len("write:"):]
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("run me")
            return "ESCAPED"
        return "unknown attempt"
    except Exception as e:
        return f"BLOCKED {type(e).__name__} {e}"


app.run()
