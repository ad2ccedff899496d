"""A tiny npm registry on loopback: a stand-in for registry.npmjs.org in wicket's network tests.

    python3 npm_registry.py PORT_FILE [TARBALL_HOST]

Serves two packages. `wicket-demo` (1.0.0) has its tarball on this registry; `wicket-exfil`
(1.0.0) names a tarball on TARBALL_HOST (default evil.example.net), which the proxy must refuse.
Listens on 127.0.0.1, port chosen by the kernel, written to PORT_FILE once listening. Every
request is printed to stdout (method, Host header, path)."""

import gzip
import io
import json
import sys
import tarfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def tarball(name):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        files = {
            "package/package.json": json.dumps({"name": name, "version": "1.0.0", "main": "index.js"}),
            "package/index.js": "module.exports = 'hello from %s';\n" % name,
        }
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue())


class Registry(BaseHTTPRequestHandler):
    def do_GET(self):
        host = self.headers.get("Host", "")
        print("GET", host, self.path, flush=True)
        base = "http://%s" % host
        other = "http://%s:%d" % (TARBALL_HOST, self.server.server_port)
        packs = {
            "/wicket-demo": ("wicket-demo", base),
            "/wicket-exfil": ("wicket-exfil", other),
        }
        if self.path in packs:
            name, where = packs[self.path]
            doc = {
                "name": name,
                "dist-tags": {"latest": "1.0.0"},
                "versions": {
                    "1.0.0": {
                        "name": name,
                        "version": "1.0.0",
                        "dist": {"tarball": "%s/%s/-/%s-1.0.0.tgz" % (where, name, name)},
                    }
                },
            }
            self.send(200, "application/json", json.dumps(doc).encode())
        elif self.path.endswith(".tgz"):
            name = self.path.strip("/").split("/")[0]
            self.send(200, "application/octet-stream", tarball(name))
        else:
            self.send(404, "application/json", b'{"error":"not found"}')

    def send(self, code, kind, body):
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


TARBALL_HOST = sys.argv[2] if len(sys.argv) > 2 else "evil.example.net"
server = ThreadingHTTPServer(("127.0.0.1", 0), Registry)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(server.server_port))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
server.serve_forever()
