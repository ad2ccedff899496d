"""Drive an MCP server with the official Python MCP SDK client (used by tests/mcp_gateway.rs).

    python driver.py SCENARIO.py

Environment: CMD, the server command as a JSON list (e.g. `wicket mcp … -- node …`); CAPS, the
client capabilities to declare (comma list of elicitation, sampling, roots); ANSWERS, a JSON
list of answers to wicket's own questions (once, session, always, deny, decline). The scenario
file defines `async def scenario(s)` and returns something JSON; the driver prints
{"out", "asked", "server_elicits", "sampled", "notes"} as one JSON line.
"""

import json
import os
import sys

import anyio
import mcp.types as t
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

CAPS = set(filter(None, os.environ.get("CAPS", "").split(",")))
ANSWERS = json.loads(os.environ.get("ANSWERS", "[]"))
asked = []
server_elicits = []
sampled = []
notes = []


def dump(x):
    return x.model_dump(mode="json", by_alias=True, exclude_none=True)


async def elicit(ctx, params):
    if params.message.startswith("wicket:"):
        asked.append({"message": params.message, "schema": params.requested_schema})
        answer = ANSWERS.pop(0) if ANSWERS else "deny"
        if answer == "decline":
            return t.ElicitResult(action="decline")
        return t.ElicitResult(action="accept", content={"decision": answer})
    server_elicits.append(params.message)
    return t.ElicitResult(action="decline")


async def sample(ctx, params):
    sampled.append(params.messages[0].content.text)
    return t.CreateMessageResult(role="assistant", content=t.TextContent(type="text", text="sampled!"), model="m")


async def roots(ctx):
    return t.ListRootsResult(roots=[t.Root(uri="file:///wicket-test-root", name="wicket-test-root")])


async def handler(message):
    if isinstance(message, Exception):
        notes.append("exception: " + str(message))
    else:
        notes.append(getattr(message, "method", type(message).__name__))


async def call(s, name, args):
    """A tool call's outcome: the text, whether it is a tool error, or the JSON-RPC error."""
    try:
        r = await s.call_tool(name, args)
    except Exception as e:  # a JSON-RPC error answer
        return {"rpc_error": str(e)}
    text = "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text")
    return {"is_error": bool(r.is_error), "text": text}


async def main():
    env = dict(os.environ)
    cmd = json.loads(env["CMD"])
    kwargs = {"message_handler": handler}
    if "elicitation" in CAPS:
        kwargs["elicitation_callback"] = elicit
    if "sampling" in CAPS:
        kwargs["sampling_callback"] = sample
    if "roots" in CAPS:
        kwargs["list_roots_callback"] = roots
    scope = {"call": call, "dump": dump}
    with open(sys.argv[1]) as f:
        exec(f.read(), scope)
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=env.get("CWD"))
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w, **kwargs) as s:
            out = await scope["scenario"](s)
    print(json.dumps({"out": out, "asked": asked, "server_elicits": server_elicits, "sampled": sampled, "notes": notes}))


anyio.run(main)
