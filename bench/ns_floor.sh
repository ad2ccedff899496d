#!/usr/bin/env bash
# What a sandbox without bubblewrap could cost (issue 37): bench/ns_floor.c (the namespaces and
# mounts of bare bubblewrap's line made by one process with the new mount API, then `true`)
# against bare bubblewrap and `wicket run -- true`, interleaved run by run in a small git
# project; as the caller, or as BENCH_USER when set.
#
#   bash bench/ns_floor.sh [RUNS]                      # default 60
#   BENCH_USER=wicketci bash bench/ns_floor.sh 60      # run as root: measures as that user
set -euo pipefail
. "$(dirname "$0")/common.sh" "$0" "$@"
runs="${1:-60}"
probe="$work/ns_floor"
cc -O2 -o "$probe" "$repo/bench/ns_floor.c"
mkdir -p "$work/proj" "$work/home/.wicket"
export WICKET_HOME="$work/home/.wicket" HOME="$work/home"
printf '{"permissions":{"allow":["bash(true)"]}}' > "$WICKET_HOME/settings.json"
cd "$work/proj"
git init -q . && echo a > a
"$bin" run -- true
"$probe" "$PWD" true
sleep 2.1
python3 - "$runs" "$bin" "$probe" <<'PY'
import os, statistics, subprocess, sys, time
runs, wicket, probe = int(sys.argv[1]), sys.argv[2], sys.argv[3]
p = os.getcwd()
cmds = {
    "bare bubblewrap": ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", p, p,
                        "--unshare-net", "--unshare-pid", "true"],
    "the same, no bubblewrap (ns_floor.c)": [probe, p, "true"],
    "wicket run -- true": [wicket, "run", "--", "true"],
    "true": ["true"],
}
t = {k: [] for k in cmds}
for i in range(runs + 5):
    for k, c in cmds.items():
        t0 = time.perf_counter()
        subprocess.run(c, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if i >= 5:
            t[k].append(time.perf_counter() - t0)
m = {k: statistics.median(v) * 1000 for k, v in t.items()}
who = "root" if os.geteuid() == 0 else f"uid {os.geteuid()}"
print(f"== as {who}, median of {runs} interleaved runs, load {os.getloadavg()[0]:.1f}")
for k, v in m.items():
    print(f"  {v:7.2f} ms  {k}  ({v / m['bare bubblewrap']:.2f}x bare bubblewrap)")
PY
