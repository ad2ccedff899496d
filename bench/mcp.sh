#!/usr/bin/env bash
# Measures what `wicket mcp` adds to a tools/call: the round trip of `echo` calls to
# @modelcontextprotocol/server-everything, one at a time over stdio, directly and through the
# gateway (in the OS sandbox, decided by an allow rule, audit line written), interleaved in
# rounds. Prints both medians and the added median (issue 8 target: <= 1 ms added).
#
#   bash bench/mcp.sh            # builds the release binary; installs the peers (.ci/mcp-peers.sh)
#
# The client is a bare JSON-RPC loop in Python (no SDK), so its own cost is small and the same on
# both sides. Uses a temporary WICKET_HOME and HOME: nothing touches the real home.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p wicket
.ci/mcp-peers.sh target/mcp-peers >/dev/null
bin="$PWD/target/release/wicket"
server="$PWD/target/mcp-peers/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proj" "$work/home"
export WICKET_HOME="$work/home/.wicket" HOME="$work/home"
cd "$work/proj"
python3 - "$bin" "$server" <<'PY'
import json, statistics, subprocess, sys, time
bin, server = sys.argv[1], sys.argv[2]
direct = ["node", server, "stdio"]
gateway = [bin, "mcp", "--name", "ev", "--allow", "mcp__ev__echo", "--", *direct]

class Peer:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.id = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.request("tools/list", {})
    def send(self, m):
        self.p.stdin.write((json.dumps(m) + "\n").encode()); self.p.stdin.flush()
    def request(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        while True:
            m = json.loads(self.p.stdout.readline())
            if m.get("id") == self.id and "method" not in m:
                return m
    def call(self):
        t = time.perf_counter()
        r = self.request("tools/call", {"name": "echo", "arguments": {"message": "hello"}})
        dt = time.perf_counter() - t
        assert r["result"]["content"][0]["text"] == "Echo: hello", r
        return dt
    def close(self):
        self.p.stdin.close(); self.p.wait(timeout=20)

d, g = Peer(direct), Peer(gateway)
for _ in range(200):
    d.call(); g.call()
ds, gs = [], []
for _ in range(20):
    ds += [d.call() for _ in range(100)]
    gs += [g.call() for _ in range(100)]
d.close(); g.close()
dm, gm = statistics.median(ds), statistics.median(gs)
p90 = lambda xs: sorted(xs)[int(len(xs) * 0.9)]
print(f"direct : median {dm*1e3:.3f} ms, p90 {p90(ds)*1e3:.3f} ms ({len(ds)} calls)")
print(f"gateway: median {gm*1e3:.3f} ms, p90 {p90(gs)*1e3:.3f} ms ({len(gs)} calls, sandboxed, audit on)")
print(f"added  : median {(gm-dm)*1e3:.3f} ms per tools/call (target <= 1 ms)")
PY
lines=$(cat "$WICKET_HOME"/audit/*/*.jsonl | wc -l)
echo "audit lines written during the run: $lines"
