#!/usr/bin/env bash
# The fixed cost of `wicket run -- true` (issue #37): this build, and any other wicket binaries
# given (a baseline: a copy of an earlier build, with its wicket-shim beside it), against bare
# bubblewrap (`bwrap --ro-bind / / --dev /dev --proc /proc --bind P P --unshare-net
# --unshare-pid true`), interleaved run by run in a small git project; then the phases of each
# (WICKET_TRACE_PHASES, medians from the spawn of wicket), side by side.
#
#   bash bench/fixed_cost.sh [RUNS] [OTHER_WICKET…]              # default 60 runs
#   BACKEND=landlock bash bench/fixed_cost.sh                    # the fallback's phases
#   BENCH_USER=wicketci bash bench/fixed_cost.sh 60 /srv/base/wicket   # as root: then as that user
#
# Other binaries must be reachable by the user who measures (not under a 0700 home).
set -euo pipefail
. "$(dirname "$0")/common.sh" "$0" "$@"
runs="${1:-60}"
shift || true
mkdir -p "$work/proj" "$work/home/.wicket"
export WICKET_HOME="$work/home/.wicket" HOME="$work/home"
printf '{"permissions":{"allow":["bash(true)"]}}' > "$WICKET_HOME/settings.json"
cd "$work/proj"
git init -q . && echo a > a
for b in "$bin" "$@"; do
  "$b" run -- true
done
# Git's answer and the folders' listings are kept once what they depend on is two seconds old.
sleep 2.1
python3 - "$runs" "${BACKEND:-bwrap}" "$bin" "$@" <<'PY'
import os, statistics, subprocess, sys, time
runs, backend, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
proj = os.getcwd()
names = ["this build"] + [b for b in bins[1:]]
null = os.open(os.devnull, os.O_RDWR)
bare = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", proj, proj,
        "--unshare-net", "--unshare-pid", "true"]
env = {**os.environ, "WICKET_SANDBOX_BACKEND": backend}
walls = {n: [] for n in ["bare bubblewrap"] + names}
phases = {n: {} for n in names}

def timed(argv, extra):
    r, w = os.pipe()
    t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    pid = os.posix_spawnp(argv[0], argv, {**env, **extra},
                          file_actions=[(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1),
                                        (os.POSIX_SPAWN_DUP2, w, 2), (os.POSIX_SPAWN_CLOSE, r)])
    os.close(w)
    chunks = []
    while (b := os.read(r, 65536)):
        chunks.append(b)
    _, status = os.waitpid(pid, 0)
    t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    os.close(r)
    text = b"".join(chunks).decode(errors="replace")
    if status != 0:
        sys.exit(f"{' '.join(argv)} failed (wait status {status}): {text[-400:]}")
    return t0, t1, text

for i in range(runs + 5):
    for name, argv in [("bare bubblewrap", bare)] + [(n, [b, "run", "--", "true"]) for n, b in zip(names, bins)]:
        # Timed without the phase stamps (each is a write to stderr), then once more with them.
        t0, t1, _ = timed(argv, {})
        if i >= 5:
            walls[name].append(t1 - t0)
        if name in phases:
            t0, _, text = timed(argv, {"WICKET_TRACE_PHASES": "1"})
            seen = {}
            for line in text.splitlines():
                parts = line.split(" ", 3)
                if len(parts) == 4 and parts[:2] == ["wicket:", "phase"]:
                    seen.setdefault(parts[3], int(parts[2]) - t0)
            if i >= 5:
                for k, v in seen.items():
                    phases[name].setdefault(k, []).append(v)
m = {k: statistics.median(v) / 1000 for k, v in walls.items()}
print(f"== `wicket run -- true` ({backend}), median of {runs} interleaved runs, load {os.getloadavg()[0]:.1f}")
for k, v in m.items():
    ratio = "" if k == "bare bubblewrap" else f"  {v / m['bare bubblewrap']:.2f}x bare bubblewrap"
    print(f"  {v:7.2f} ms  {k}{ratio}")
print(f"== phases, ms from the spawn of wicket (medians)")
labels = {}
for n in names:
    for k, v in phases[n].items():
        labels.setdefault(k, []).append(statistics.median(v))
print(f"  {'':44s}" + "".join(f"{n[-12:]:>14s}" for n in names))
for k in sorted(labels, key=lambda k: min(labels[k])):
    row = "".join(f"{statistics.median(phases[n][k]) / 1000:14.2f}" if k in phases[n] else " " * 14 for n in names)
    print(f"  {k[:44]:44s}{row}")
PY
