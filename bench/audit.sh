#!/usr/bin/env bash
# The audit log as the command line pays for it: the cost of the locked append per hook call
# (`wicket hook claude` with and without the log, interleaved call by call), `wicket check
# --jsonl` over 200,000 mixed calls with and without the log, and `wicket audit verify` of a
# 1,000,000-line chain across files. The library-level numbers come from
# `cargo bench -p wicket-audit --bench audit`.
#
#   bash bench/audit.sh            # builds the release binary first
#   bash bench/audit.sh hook       # only the hook pairs (also: check, verify)
#   PAIRS=4000 bash bench/audit.sh hook
set -euo pipefail
what="${1:-all}"
want() { [[ "$what" == all || "$what" == "$1" ]]; }
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
if want hook; then
echo "== wicket hook claude, one Read call per process: with the log vs --no-audit, interleaved =="
# Alternate the two, call by call, so both see the same machine load; the difference of the
# medians is what the locked append (lock, head, newest line, append, head) adds to a call.
# Twice: in a plain folder, and in a git repository (where each call also asks git for its
# configuration, two child processes). CPU time is the hook's own plus its children's, from
# wait4(2).
mkdir -p "$work/repo/src" && git -C "$work/repo" init -q
python3 - "$bin" "$work/proj" "$work/repo" "${PAIRS:-2000}" <<'PY'
import json, os, statistics, sys, time
bin, roots, pairs = sys.argv[1], sys.argv[2:4], int(sys.argv[4])
def bench(root):
    payload = json.dumps({"session_id": "bench-session", "cwd": root, "hook_event_name": "PreToolUse",
        "tool_name": "Read", "tool_input": {"file_path": "src/main.rs"}, "tool_use_id": "t"}).encode()
    path = os.path.join(root, ".payload.json")
    with open(path, "wb") as f:
        f.write(payload)
    os.chdir(root)
    def once(args):
        fd = os.open(path, os.O_RDONLY)
        t = time.perf_counter()
        pid = os.posix_spawn(bin, [bin, "hook", "claude", *args], os.environ,
            file_actions=[(os.POSIX_SPAWN_DUP2, fd, 0), (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0)])
        _, status, ru = os.wait4(pid, 0)
        wall = time.perf_counter() - t
        os.close(fd)
        if status != 0:
            sys.exit(f"hook failed: {status}")
        return wall, ru.ru_utime + ru.ru_stime
    for _ in range(50):
        once([]); once(["--no-audit"])
    on, off, con, coff = [], [], [], []
    for i in range(pairs):
        order = [([], on, con), (["--no-audit"], off, coff)]
        if i % 2:
            order.reverse()
        for args, walls, cpus in order:
            w, c = once(args)
            walls.append(w); cpus.append(c)
    m, mean = statistics.median, statistics.fmean
    kind = "git repository" if os.path.isdir(os.path.join(root, ".git")) else "plain folder"
    print(f"{kind}: wall {m(on)*1e3:.3f} against {m(off)*1e3:.3f} ms (medians of {pairs:,} each), "
          f"the log adds {(m(on)-m(off))*1e3:+.3f} ms; CPU {mean(con)*1e3:.3f} against {mean(coff)*1e3:.3f} ms "
          f"(means), {(mean(con)-mean(coff))*1e3:+.3f} ms; load average {os.getloadavg()[0]:.2f}")
for root in roots:
    bench(root)
PY
fi

if want check; then
echo "== wicket check --jsonl, 200,000 calls =="
run "--no-audit" "" "--no-audit"
run "audit (default)" "" ""

fi

if want verify; then
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
fi
