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
if command -v hyperfine >/dev/null 2>&1; then
  # hyperfine subtracts the shell's own start-up, so the redirection costs neither side.
  hyperfine --warmup 20 --runs 300 --export-json times.json \
    "$bin check --no-sandbox --no-audit < call.json" "cat < call.json" >/dev/null
  python3 - <<'PY'
import json
r = json.load(open("times.json"))["results"]
w, c = r[0]["median"], r[1]["median"]
print(f"wicket check median {w*1e3:.2f} ms, cat median {c*1e3:.2f} ms, ratio {w/c:.2f}x (target <= 2.5x)")
PY
else
  n=300
  t0=$(date +%s%N); for _ in $(seq $n); do "$bin" check --no-sandbox --no-audit < call.json >/dev/null; done; t1=$(date +%s%N)
  for _ in $(seq $n); do cat < call.json >/dev/null; done; t2=$(date +%s%N)
  python3 -c "w=($t1-$t0)/$n/1e6; c=($t2-$t1)/$n/1e6; print(f'wicket check {w:.2f} ms, cat {c:.2f} ms, ratio {w/c:.2f}x (target <= 2.5x; loop timing, install hyperfine for medians)')"
fi

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
