#!/usr/bin/env bash
# What OTLP export adds to a hook call: `wicket hook claude` (one Read call per process, in a
# git repository) with export off, with export on while an exporter is running (an agent's
# burst: the hook only tries the exporter's lock), and with export on when no exporter runs
# (the hook starts one after its answer), interleaved call by call so all three see the same
# machine. The collector is a local HTTP sink that answers 200 to every POST. Prints the median,
# the quartiles and the spread of each, and the differences of the medians.
#
#   bash bench/otel_hook.sh            # builds the release binary first
#   PAIRS=1000 bash bench/otel_hook.sh
#   BASELINE=/path/to/older/wicket bash bench/otel_hook.sh   # also that binary, export off
#
# With BASELINE, a fourth column runs another wicket binary (e.g. one built before the
# exporter existed) with export off, interleaved with the rest: what the export code costs a
# hook call when export is off.
#
# Uses temporary WICKET_HOMEs and HOME: nothing touches the real home.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${BENCH_BUILT:-}" ] || cargo build --release -q -p wicket
bin="$PWD/target/release/wicket"
work="$(mktemp -d)"
sink_pid=
trap '[ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/repo/src" "$work/off" "$work/warm" "$work/cold" "$work/base"
git -C "$work/repo" init -q
echo 'fn main() {}' > "$work/repo/src/main.rs"
export HOME="$work"
python3 - "$work/port" <<'PY' &
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class Sink(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
s = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
sink_pid=$!
while [ ! -s "$work/port" ]; do sleep 0.05; done
port=$(cat "$work/port")
for h in warm cold; do
  printf '{"telemetry":{"otlp":{"enabled":true,"endpoint":"http://127.0.0.1:%s"}}}\n' "$port" > "$work/$h/settings.json"
done
python3 - "$bin" "$work" "${PAIRS:-600}" "${BASELINE:-}" <<'PY'
import fcntl, json, os, statistics, subprocess, sys, time
bin, work, pairs, baseline = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
root = os.path.join(work, "repo")
payload = json.dumps({"session_id": "bench", "cwd": root, "hook_event_name": "PreToolUse",
    "tool_name": "Read", "tool_input": {"file_path": "src/main.rs"}, "tool_use_id": "t"}).encode()
def exporter_running(home):
    try:
        with open(os.path.join(home, "otel", "lock"), "w") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return False
            except BlockingIOError:
                return True
    except FileNotFoundError:
        return False
def once(home, linger):
    env = dict(os.environ, WICKET_HOME=os.path.join(work, home), WICKET_OTEL_LINGER_MS=linger)
    exe = baseline if home == "base" else bin
    t = time.perf_counter()
    p = subprocess.run([exe, "hook", "claude"], input=payload, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=root)
    dt = time.perf_counter() - t
    assert b'"allow"' in p.stdout, p.stdout
    return dt
times = {"off": [], "warm": [], "cold": []}
if baseline:
    times["base"] = []
for i in range(pairs + 20):
    # cold: no exporter runs when the call starts (wait for the last one to leave), so this
    # call starts one; warm: one lingers (30 s, the default) from the call before.
    while exporter_running(os.path.join(work, "cold")):
        time.sleep(0.005)
    order = [("off", "30000"), ("warm", "30000"), ("cold", "0")] + ([("base", "0")] if baseline else [])
    if i % 2:
        order.reverse()
    for name, linger in order:
        dt = once(name, linger)
        if i >= 20:
            times[name].append(dt)
def q(xs, p):
    xs = sorted(xs)
    return xs[int(p * (len(xs) - 1))]
med = {k: statistics.median(v) for k, v in times.items()}
for k, v in times.items():
    print(f"{k:>4}: median {med[k]*1e3:.3f} ms, quartiles {q(v,.25)*1e3:.3f}-{q(v,.75)*1e3:.3f} ms "
          f"(spread {(q(v,.75)-q(v,.25))*1e3:.3f} ms), p90 {q(v,.9)*1e3:.3f} ms, n={len(v)}")
print(f"export on, exporter running, minus off: {(med['warm']-med['off'])*1e3:+.3f} ms")
print(f"export on, exporter started by the call, minus off: {(med['cold']-med['off'])*1e3:+.3f} ms")
if baseline:
    print(f"export off, this binary minus the baseline binary: {(med['off']-med['base'])*1e3:+.3f} ms")
for h in ("warm", "cold"):
    home = os.path.join(work, h)
    while exporter_running(home):
        time.sleep(0.05)
    d = os.path.join(home, "otel", "exported")
    sent = sum(json.load(open(os.path.join(d, f)))["seq"] for f in os.listdir(d)) if os.path.isdir(d) else 0
    audit = os.path.join(home, "audit")
    local = sum(sum(1 for _ in open(os.path.join(audit, p, f))) for p in os.listdir(audit) for f in os.listdir(os.path.join(audit, p)) if f.endswith(".jsonl"))
    print(f"{h}: {local} local lines, {sent} acknowledged by the sink")
PY
