#!/usr/bin/env bash
# What holding code-running files costs a run (issue 34, items 2 and 4): before each run wicket
# keeps every code-running file of the project (`package.json`, `Makefile` ...), after it
# compares them. Measured inside wicket (`WICKET_SCAN_TIMING=1`) on a project of 2 such files
# and on a monorepo of 100 packages with a `package.json` each and a `Makefile` in each of their
# 10 modules (1,100 files), warm, cached scan; medians.
#
#   bash bench/held.sh [RUNS]   # needs bwrap
set -euo pipefail
. "$(dirname "$0")/common.sh" "$0" "$@"
runs="${1:-30}"
small="$work/small" mono="$work/mono"
mkdir -p "$small" "$work/home/.wicket"
export WICKET_HOME="$work/home/.wicket" HOME="$work/home"
printf '{"permissions":{"allow":["bash(true)"]}}' > "$WICKET_HOME/settings.json"
echo '{}' > "$small/package.json" && printf 'all:\n' > "$small/Makefile"
python3 - "$mono" <<'PY'
import os, sys
root = sys.argv[1]
for a in range(100):
    os.makedirs(f"{root}/p{a}")
    open(f"{root}/p{a}/package.json", "w").write('{"name":"p%d","scripts":{"test":"jest"}}\n' % a)
    for b in range(10):
        os.makedirs(f"{root}/p{a}/m{b}")
        open(f"{root}/p{a}/m{b}/Makefile", "w").write("all:\n\techo hi\n" * 20)
        for f in range(10):
            open(f"{root}/p{a}/m{b}/f{f}.ts", "w").close()
PY
sleep 3   # past the scan cache's racy window
for p in "$small" "$mono"; do
  "$bin" run --root "$p" -- true 2>/dev/null
  for i in $(seq "$runs"); do WICKET_SCAN_TIMING=1 "$bin" run --root "$p" -- true 2>&1 | grep 'held:'; done > "$work/t.txt"
  python3 - "$work/t.txt" "$p" <<'PY'
import re, statistics, sys
lines = open(sys.argv[1]).read().splitlines()
kept = [float(re.search(r"in ([0-9.]+) ms", l).group(1)) for l in lines if "kept in" in l]
after = [float(re.search(r"in ([0-9.]+) ms", l).group(1)) for l in lines if "after the run" in l]
n = re.search(r"held: (\d+)", lines[0]).group(1)
print(f"{sys.argv[2].rsplit('/', 1)[1]:6s} {n:>5s} code-running files: kept before the run, median {statistics.median(kept):.2f} ms; "
      f"compared after it, median {statistics.median(after):.2f} ms ({len(kept)} runs)")
PY
done
