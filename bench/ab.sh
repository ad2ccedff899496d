#!/usr/bin/env bash
# Two builds of wicket compared on `wicket run -- true`, interleaved round by round with bare
# bubblewrap (issue 37): the build of REV (default HEAD~1, from a git worktree) against the
# working tree's. Both binaries are copied, with their shims, to target/bench/ab/{a,b}: where a
# binary lies changes what it costs (under /tmp, which the sandbox replaces, a run took 0.8 ms
# more), so both must lie in the same kind of place. The project is a small fresh git project
# (or PROJECT=DIR, e.g. this repository), the home is outside /tmp (so the scan cache is used),
# and each pass prints the medians of ROUNDS `posix_spawn`-to-`waitpid` times and the ratios to
# bare bubblewrap (`bwrap --ro-bind / / --dev /dev --proc /proc --bind P P --unshare-net
# --unshare-pid true`). Three passes, so the spread shows.
#
#   bash bench/ab.sh [REV] [ROUNDS]             # default HEAD~1, 200 rounds a pass
#   PROJECT=$PWD bash bench/ab.sh 037f557 60    # a real project
#   BENCH_USER=wicketci bash bench/ab.sh        # as root: build, then measure as that user
set -euo pipefail
rev="${1:-HEAD~1}"
rounds="${2:-200}"
cd "$(dirname "$0")/.."
repo="$PWD"
ab="$repo/target/bench/ab"
if [ -z "${BENCH_BUILT:-}" ]; then
  mkdir -p "$ab/a" "$ab/b"
  commit="$(git rev-parse --verify "$rev^{commit}")"
  src="$ab/src-$commit"
  [ -d "$src" ] || git worktree add -q --detach "$src" "$commit"
  (cd "$src" && cargo build --release -q -p wicket --target-dir "$ab/target-old")
  cargo build --release -q -p wicket
  for b in wicket wicket-shim; do
    cp "$ab/target-old/release/$b" "$ab/a/$b"
    cp "$repo/target/release/$b" "$ab/b/$b"
  done
  echo "a: $rev ($commit)   b: the working tree"
fi
if [ -n "${BENCH_USER:-}" ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$ab/user" && chown "$BENCH_USER" "$ab/user"
  home="$(getent passwd "$BENCH_USER" | cut -d: -f6)"
  exec setpriv --reuid="$BENCH_USER" --regid="$BENCH_USER" --init-groups \
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" USER="$BENCH_USER" BENCH_BUILT=1 \
    BENCH_DIR="$ab/user" PROJECT="${PROJECT:-}" bash "$repo/bench/ab.sh" "$rev" "$rounds"
fi
work="$(mktemp -d -p "${BENCH_DIR:-$ab}")"
trap 'rm -rf "$work"' EXIT
project="${PROJECT:-}"
if [ -z "$project" ]; then
  project="$work/proj"
  mkdir -p "$project/src"
  (cd "$project" && git init -q && echo 'fn main() {}' > src/main.rs && echo 'API_KEY=x' > .env)
fi
export HOME="$work/home" WICKET_HOME="$work/home/.wicket"
mkdir -p "$WICKET_HOME"
for b in a b; do (cd "$project" && "$ab/$b/wicket" run -- true); done
echo "as $(id -un), load $(cut -d' ' -f1-3 /proc/loadavg), project $project"
python3 - "$project" "$rounds" "$ab/a/wicket" "$ab/b/wicket" <<'PY'
import os, statistics, sys, time
project, rounds, a, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
null = os.open(os.devnull, os.O_RDWR)
bwrap = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", project, project,
         "--unshare-net", "--unshare-pid", "true"]
rows = {"a": [a, "run", "--", "true"], "b": [b, "run", "--", "true"], "bare bubblewrap": bwrap}
os.chdir(project)
def once(argv):
    t0 = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, dict(os.environ),
                          file_actions=[(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1),
                                        (os.POSIX_SPAWN_DUP2, null, 2)])
    _, status = os.waitpid(pid, 0)
    if status != 0:
        sys.exit(f"{' '.join(argv)} failed: {status}")
    return (time.perf_counter() - t0) * 1000
for p in range(3):
    got = {k: [] for k in rows}
    for i in range(rounds + 3):
        for k, argv in rows.items():
            t = once(argv)
            if i >= 3:
                got[k].append(t)
    med = {k: statistics.median(v) for k, v in got.items()}
    bare = med["bare bubblewrap"]
    print(f"pass {p + 1}: " + "   ".join(f"{k} {m:6.2f} ms" + ("" if k == "bare bubblewrap" else f" ({m / bare:.2f}x)")
                                       for k, m in med.items()))
PY
