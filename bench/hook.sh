#!/usr/bin/env bash
# Measures `wicket hook claude` per call (process start to answer, audit log included)
# against `cat` of the same payload, and prints the ratio (issue 8 target: <= 2.5x).
#
#   bash bench/hook.sh           # builds the release binary first
#
# Needs hyperfine (apt-get install -y hyperfine) and python3. Uses a temporary WICKET_HOME
# and HOME: nothing touches the real home.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p wicket
bin="$PWD/target/release/wicket"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proj/src" "$work/home"
export WICKET_HOME="$work/home/.wicket" HOME="$work/home"
cd "$work/proj"
echo 'fn main() {}' > src/main.rs
python3 - "$work/proj" <<'PY'
import json, sys
root = sys.argv[1]
env = {"session_id": "8c35adc1-5c0e-4c7a-9f55-0d7b8a2f4e11", "transcript_path": "/tmp/t.jsonl",
       "cwd": root, "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_use_id": "toolu_01ABC123"}
payloads = {
    "bash": {"tool_name": "Bash", "tool_input": {"command": "git status && cargo test --all 2>&1 | tail -n 20",
                                                  "description": "Run tests", "timeout": 120000}},
    "read": {"tool_name": "Read", "tool_input": {"file_path": root + "/src/main.rs"}},
}
for name, p in payloads.items():
    with open(f"{name}.json", "w") as f:
        f.write(json.dumps({**env, **p}) + "\n")
PY
# hyperfine 1.15 has no --input, and with a shell its start-up correction leaves `cat` at
# ~0 ms; so both sides are spawned directly with the payload file as stdin, interleaved, and
# timed from spawn to exit. hyperfine (when there) cross-checks `cat` alone without a shell.
for name in bash read; do
  python3 - "$bin" "$name" <<'PY'
import statistics, subprocess, sys, time
bin, name = sys.argv[1], sys.argv[2]
def once(argv):
    with open(f"{name}.json", "rb") as f:
        t = time.perf_counter()
        subprocess.run(argv, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        return time.perf_counter() - t
for _ in range(20):
    once([bin, "hook", "claude"]); once(["cat"])
w, c = [], []
for _ in range(300):
    w.append(once([bin, "hook", "claude"])); c.append(once(["cat"]))
wm, cm = statistics.median(w), statistics.median(c)
p99 = sorted(w)[int(len(w) * 0.99) - 1]
print(f"{name}: wicket hook claude median {wm*1e3:.2f} ms (p99 {p99*1e3:.2f} ms), "
      f"cat median {cm*1e3:.2f} ms, ratio {wm/cm:.2f}x (target <= 2.5x)")
PY
done
if command -v hyperfine >/dev/null 2>&1; then
  hyperfine -N --warmup 20 --runs 300 "cat bash.json" 2>/dev/null | grep -E "Time \(mean" | sed 's/^/cross-check, cat without a shell: /'
fi
lines=$(cat "$WICKET_HOME"/audit/*/*.jsonl | wc -l)
echo "audit lines written during the run: $lines"
