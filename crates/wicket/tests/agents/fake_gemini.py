"""A scripted stand-in for the Gemini API: answers Gemini CLI's model requests from a script.

Usage: fake_gemini.py SCRIPT LOG. Prints the port it listens on (127.0.0.1). SCRIPT is a JSON
list; the n-th streaming request gets step n: {"call": NAME_OR_SUFFIX, "args": {...}} (a function
call; the first declared tool whose name equals it or ends with "_" + it) or {"text": "..."}.
Past the script's end, and for every non-streaming request, the answer is text. Every request
body is appended to LOG, one JSON line each.
"""
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

script = json.load(open(sys.argv[1]))
log = open(sys.argv[2], "a", buffering=1)
step = [0]

def declared(body):
    names = []
    for t in body.get("tools") or []:
        for f in t.get("functionDeclarations") or []:
            names.append(f.get("name", ""))
    return names

def response(parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}

class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        n = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(n) or b"{}")
        log.write(json.dumps({"path": self.path, "body": body}) + "\n")
        if "countTokens" in self.path:
            return self.send(json.dumps({"totalTokens": 10}))
        parts = [{"text": "{\"next_speaker\": \"user\", \"reasoning\": \"done\"}"}]
        if "streamGenerateContent" in self.path:
            parts = [{"text": "done"}]
            if step[0] < len(script):
                s = script[step[0]]
                step[0] += 1
                if "call" in s:
                    names = declared(body)
                    name = next((x for x in names if x == s["call"] or x.endswith("_" + s["call"])), s["call"])
                    parts = [{"functionCall": {"name": name, "args": s.get("args", {})}}]
                else:
                    parts = [{"text": s["text"]}]
            data = "data: " + json.dumps(response(parts)) + "\r\n\r\n"
            return self.send(data, "text/event-stream")
        return self.send(json.dumps(response(parts)))

    def do_GET(self):
        self.send(json.dumps({"models": []}))

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
