#!/usr/bin/env bash
# Measures the `wicket check` command line against `cat` of the same input, and the
# throughput of `wicket check --jsonl --no-audit`, and prints the ratios.
#
#   bash bench/cli.sh            # builds the release binary first
#
# Needs hyperfine for the start-up comparison (apt-get install -y hyperfine); the throughput
# part needs only bash and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p wicket
bin="$PWD/target/release/wicket"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proj/src" "$work/home"
export WICKET_HOME="$work/home" HOME="$work/home"
cd "$work/proj"
echo 'fn main() {}' > src/main.rs
call='{"tool":"bash","input":{"command":"git status && cargo test --all 2>&1 | tail -n 20"}}'
printf '%s\n' "$call" > call.json

echo "== one call: wicket check vs cat =="
# Both are started the same way (no shell), with the call file on stdin; medians of 300 runs,
# interleaved so that load on the machine affects both alike.
python3 - "$bin" call.json <<'PY'
import statistics, subprocess, sys, time
bin_, call = sys.argv[1], sys.argv[2]
def once(argv):
    with open(call, "rb") as f:
        t = time.perf_counter()
        subprocess.run(argv, stdin=f, stdout=subprocess.DEVNULL, check=False)
        return time.perf_counter() - t
w, c = [], []
for _ in range(300):
    w.append(once([bin_, "check", "--no-sandbox", "--no-audit"]))
    c.append(once(["cat"]))
wm, cm = statistics.median(w) * 1e3, statistics.median(c) * 1e3
print(f"wicket check median {wm:.2f} ms, cat median {cm:.2f} ms, ratio {wm / cm:.2f}x (target <= 2.5x)")
PY

echo "== throughput: wicket check --jsonl --no-audit =="
python3 - "$work/calls.jsonl" <<'PY'
import json, sys
calls = [
    {"tool": "read_file", "input": {"path": "src/main.rs"}},
    {"tool": "bash", "input": {"command": "cargo test --all 2>&1 | tail -n 20"}},
    {"tool": "write_file", "input": {"path": "src/lib.rs", "content": "x"}},
    {"tool": "bash", "input": {"command": "git status"}},
    {"tool": "web_fetch", "input": {"url": "https://docs.rs/serde"}},
    {"tool": "read_file", "input": {"path": ".env"}},
    {"tool": "bash", "input": {"command": "npm test && rm -rf /"}},
    {"tool": "mcp__github__get_issue", "input": {"number": 1}},
]
with open(sys.argv[1], "w") as f:
    for i in range(200_000):
        f.write(json.dumps(calls[i % len(calls)]) + "\n")
PY
start=$(date +%s%N)
lines=$("$bin" check --jsonl --no-audit --no-sandbox --allow 'bash(cargo test*)' < "$work/calls.jsonl" | wc -l)
end=$(date +%s%N)
python3 -c "s=($end-$start)/1e9; print(f'{$lines} decisions in {s:.2f} s = {$lines/s:,.0f} decisions/s (target >= 50,000/s)')"
