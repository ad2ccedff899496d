#!/usr/bin/env bash
# The audit log as the command line pays for it: `wicket check --jsonl` over 200,000 mixed
# calls with and without the log (and with checkpoints), then `wicket audit verify` of the
# lines written. The library-level numbers come from `cargo bench -p wicket-audit`.
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
unset WICKET_AUDIT_MANDATORY WICKET_AUDIT_CHECKPOINT
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
echo "== wicket check --jsonl, 200,000 calls =="
run "--no-audit" "" "--no-audit"
run "audit (default)" "" ""
run "audit + checkpoints" "WICKET_AUDIT_CHECKPOINT=1" ""

echo "== wicket audit verify =="
lines=$(cat "$WICKET_HOME"/audit/*/*.jsonl | wc -l)
start=$(date +%s%N)
"$bin" audit verify >/dev/null
end=$(date +%s%N)
python3 -c "s=($end-$start)/1e9; print(f'{$lines} lines in 2 files verified in {s:.2f} s = {$lines/s:,.0f} lines/s')"
