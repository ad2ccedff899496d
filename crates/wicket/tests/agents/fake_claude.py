"""A scripted stand-in for the Anthropic Messages API: answers Claude Code's model requests.

Usage: fake_claude.py SCRIPT LOG. Prints the port it listens on (127.0.0.1) on its first line.
SCRIPT is a JSON list of steps, {"tool": NAME, "input": {...}} (the model calls that tool) or
{"text": "..."} (the model answers and the turn ends). A request to the main conversation (its
`tools` are not empty and declare every tool the script calls) gets step n, where n is the
number of tool_result blocks its messages already hold; past the script's end, text. Side
requests (a title, a topic, a quota check: any request without tools or whose tools lack the
scripted ones) get a short text. Anything else (count_tokens, /api/..., GET, HEAD) gets a
harmless JSON answer. Both `stream: true` (server-sent events) and plain answers are served.
Every request is appended to LOG as one JSON line: {"method", "path", "body"}.
"""
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

script = json.load(open(sys.argv[1]))
log = open(sys.argv[2], "a", buffering=1)
scripted_tools = {s["tool"] for s in script if "tool" in s}


def tool_results(body):
    n = 0
    for m in body.get("messages") or []:
        content = m.get("content")
        if isinstance(content, list):
            n += sum(1 for c in content if isinstance(c, dict) and c.get("type") == "tool_result")
    return n


def step_for(body):
    """The script's step for this request, or None for a side request."""
    declared = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    if not declared or not scripted_tools <= declared:
        return None
    n = tool_results(body)
    return script[n] if n < len(script) else {"text": "done"}


def blocks(step, n):
    """The content blocks of the answer to one request, and its stop reason."""
    if step is not None and "tool" in step:
        return [{"type": "tool_use", "id": "toolu_fake_%d" % n, "name": step["tool"],
                 "input": step.get("input", {})}], "tool_use"
    text = step["text"] if step is not None else "ok"
    return [{"type": "text", "text": text}], "end_turn"


USAGE = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def message(body, content, stop):
    return {"id": "msg_fake", "type": "message", "role": "assistant", "model": body.get("model", "claude-fake"),
            "content": content, "stop_reason": stop, "stop_sequence": None, "usage": USAGE}


def sse(body, content, stop):
    def event(name, data):
        return "event: %s\ndata: %s\n\n" % (name, json.dumps(data))
    out = [event("message_start", {"type": "message_start", "message": message(body, [], None)})]
    for i, b in enumerate(content):
        if b["type"] == "text":
            out.append(event("content_block_start", {"type": "content_block_start", "index": i,
                                                     "content_block": {"type": "text", "text": ""}}))
            out.append(event("content_block_delta", {"type": "content_block_delta", "index": i,
                                                     "delta": {"type": "text_delta", "text": b["text"]}}))
        else:
            start = dict(b, input={})
            out.append(event("content_block_start", {"type": "content_block_start", "index": i, "content_block": start}))
            out.append(event("content_block_delta", {"type": "content_block_delta", "index": i,
                                                     "delta": {"type": "input_json_delta",
                                                               "partial_json": json.dumps(b["input"])}}))
        out.append(event("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                       "usage": {"output_tokens": 5}}))
    out.append(event("message_stop", {"type": "message_stop"}))
    return "".join(out)


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
        if path.endswith("/count_tokens"):
            return self.send(json.dumps({"input_tokens": 10}))
        if not path.endswith("/v1/messages") or not isinstance(body, dict):
            return self.send("{}")
        content, stop = blocks(step_for(body), tool_results(body))
        if body.get("stream"):
            return self.send(sse(body, content, stop), "text/event-stream")
        return self.send(json.dumps(message(body, content, stop)))

    def do_GET(self):
        self.record(None)
        self.send("{}")

    def do_HEAD(self):
        self.record(None)
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def send(self, text, ctype="application/json"):
        b = text.encode()
        self.send_response(200)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(b)))
        self.send_header("request-id", "req_fake")
        self.end_headers()
        self.wfile.write(b)


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
