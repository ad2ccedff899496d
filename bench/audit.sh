#!/usr/bin/env bash
# The audit log as the command line pays for it: the cost of the locked append per hook call
# (`wicket hook claude` with and without the log, interleaved call by call), `wicket check
# --jsonl` over 200,000 mixed calls with and without the log, and `wicket audit verify` of a
# 1,000,000-line chain across files. The library-level numbers come from
# `cargo bench -p wicket-audit --bench audit`.
#
#   bash bench/audit.sh            # builds the release binary first
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p wicket
bin="$PWD/target/release/wicket"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proj/src" "$work/home"
export WICKET_HOME="$work/home" HOME="$work/home"
unset WICKET_AUDIT_MANDATORY WICKET_AUDIT_CHECKPOINT WICKET_AUDIT_ROTATE_BYTES
cd "$work/proj"
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
# label, then the environment and flags that differ
run() {
  local label="$1" envs="$2" flags="$3" start end lines
  start=$(date +%s%N)
  lines=$(env $envs "$bin" check --jsonl --no-sandbox --allow 'bash(cargo test*)' $flags < "$work/calls.jsonl" | wc -l)
  end=$(date +%s%N)
  python3 -c "s=($end-$start)/1e9; print(f'{\"$label\":<26} {$lines} decisions in {s:.2f} s = {$lines/s:,.0f} decisions/s')"
}
echo "== wicket hook claude, one Read call per process: with the log vs --no-audit, interleaved =="
# Alternate the two, call by call, so both see the same machine load; the difference of the
# medians is what the locked append (lock, head, newest line, append, head) adds to a call.
python3 - "$bin" "$work/proj" <<'PY'
import json, statistics, subprocess, sys, time
bin, root = sys.argv[1], sys.argv[2]
payload = json.dumps({"session_id": "bench-session", "cwd": root, "hook_event_name": "PreToolUse",
    "tool_name": "Read", "tool_input": {"file_path": "src/main.rs"}, "tool_use_id": "t"}).encode()
def once(args):
    t = time.perf_counter()
    subprocess.run([bin, "hook", "claude", *args], input=payload, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t
for _ in range(50):
    once([]); once(["--no-audit"])
on, off = [], []
for i in range(2000):
    if i % 2:
        on.append(once([])); off.append(once(["--no-audit"]))
    else:
        off.append(once(["--no-audit"])); on.append(once([]))
m_on, m_off = statistics.median(on), statistics.median(off)
print(f"with the log {m_on*1e3:.3f} ms, --no-audit {m_off*1e3:.3f} ms (medians of 2,000 each): "
      f"the locked append adds {(m_on-m_off)*1e3:.3f} ms a call")
PY

echo "== wicket check --jsonl, 200,000 calls =="
run "--no-audit" "" "--no-audit"
run "audit (default)" "" ""

echo "== wicket audit verify, one chain of 1,000,000 lines across files =="
rm -rf "$WICKET_HOME/audit"
head -n 1000000 "$work/calls.jsonl" > "$work/calls-1m.jsonl" || true
while [ "$(wc -l < "$work/calls-1m.jsonl")" -lt 1000000 ]; do cat "$work/calls.jsonl" >> "$work/calls-1m.jsonl"; done
head -n 1000000 "$work/calls-1m.jsonl" > "$work/calls-1m.tmp" && mv "$work/calls-1m.tmp" "$work/calls-1m.jsonl"
"$bin" check --jsonl --no-sandbox < "$work/calls-1m.jsonl" > /dev/null
lines=$(cat "$WICKET_HOME"/audit/*/*.jsonl | wc -l)
files=$(ls "$WICKET_HOME"/audit/*/*.jsonl | wc -l)
start=$(date +%s%N)
"$bin" audit verify >/dev/null
end=$(date +%s%N)
python3 -c "s=($end-$start)/1e9; print(f'{$lines} lines in $files files verified in {s:.2f} s = {$lines/s:,.0f} lines/s')"
