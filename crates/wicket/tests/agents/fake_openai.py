"""A scripted stand-in for an OpenAI-compatible API (chat completions, streamed or not).

Usage: fake_openai.py SCRIPT LOG. Prints the port it listens on (127.0.0.1) on its first line.
SCRIPT is a JSON list of steps, {"tool": NAME, "input": {...}} (the model calls the first
declared tool whose name is NAME, or ends with NAME after a separator; NAME itself when none is)
or {"text": "..."}. A request whose `tools` declare the script's first tool gets step n, where n
is the number of tool results its messages already hold; past the script's end, text. Side
requests (a title, a summary: no tools, or tools without that one) get a short text. GET /models (and /v1/models) lists one
model. Every request is appended to LOG as one JSON line: {"method", "path", "body"}.
Qwen Code, OpenCode, Kilo, Factory Droid and GitHub Copilot CLI are all pointed at it through
their own "bring your own model" settings.
"""
import json, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

script = json.load(open(sys.argv[1]))
log = open(sys.argv[2], "a", buffering=1)


def declared(body):
    names = []
    for t in body.get("tools") or []:
        if isinstance(t, dict):
            f = t.get("function") if isinstance(t.get("function"), dict) else t
            names.append(f.get("name", ""))
    return names


def resolve(name, names):
    """The declared tool NAME, or one that ends in NAME after a separator (an MCP tool's server
    prefix: `mcp__fs__`, `fs___`, `fs-`, `fs_`)."""
    return next((x for x in names if x == name), None) or next(
        (x for x in names if x.endswith(name) and x[-len(name) - 1] in "_-."), None)


def results(body):
    n = 0
    for m in body.get("messages") or []:
        if isinstance(m, dict) and m.get("role") == "tool":
            n += 1
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            n += 1
    return n


def step_for(body):
    names = declared(body)
    # The main conversation offers the script's first tool (tools an agent loads on demand,
    # such as deferred MCP tools, may be offered only later).
    first = next((s["tool"] for s in script if "tool" in s), None)
    if not names or (first is not None and not resolve(first, names)):
        return None, names
    n = results(body)
    return (script[n] if n < len(script) else {"text": "done"}), names


def chat(body):
    step, names = step_for(body)
    model = body.get("model", "fake")
    if step is not None and "tool" in step:
        call = {"id": "call_fake_%d" % results(body), "type": "function",
                "function": {"name": resolve(step["tool"], names) or step["tool"], "arguments": json.dumps(step.get("input", {}))}}
        message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
    else:
        text = step["text"] if step is not None else "ok"
        message, finish = {"role": "assistant", "content": text}, "stop"
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    if not body.get("stream"):
        return json.dumps({"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
                           "model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                           "usage": usage}), "application/json"

    def chunk(delta, finish_reason=None, with_usage=False):
        c = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
        if with_usage:
            c["usage"] = usage
        return "data: " + json.dumps(c) + "\n\n"
    out = [chunk({"role": "assistant", "content": ""})]
    if "tool_calls" in message:
        tc = dict(message["tool_calls"][0], index=0)
        out.append(chunk({"tool_calls": [tc]}))
    else:
        out.append(chunk({"content": message["content"]}))
    out.append(chunk({}, finish, True))
    out.append("data: [DONE]\n\n")
    return "".join(out), "text/event-stream"


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def record(self, body):
        log.write(json.dumps({"method": self.command, "path": self.path, "body": body}) + "\n")

    def do_POST(self):
        n = int(self.headers.get("content-length") or "0")
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        self.record(body)
        path = self.path.split("?")[0]
        if path.endswith("/chat/completions") and isinstance(body, dict):
            text, ctype = chat(body)
            return self.send(text, ctype)
        return self.send("{}")

    def do_GET(self):
        self.record(None)
        path = self.path.split("?")[0]
        if path.endswith("/models"):
            return self.send(json.dumps({"object": "list", "data": [
                {"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}]}))
        self.send("{}")

    def send(self, text, ctype="application/json"):
        b = text.encode()
        self.send_response(200)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
