#!/usr/bin/env bash
# The project scan at command start (issue 13, item 7): `wicket run -- true` in a project of
# 100,000 files with a `.env` three folders deep and a team `denyPaths` of `**/private.txt`,
# against the same run in an empty project, warm (the tree is in the page cache after the
# warm-up runs), with medians and the ratio (target <= 2x). The tree is left to age past the
# scan cache's racy window (2 s) before the first run, as a real project is not made two
# seconds before each command; the first run walks and caches, the measured ones check the
# cache. Also measured: the same run with the cache removed before each run (the walk), and,
# from `WICKET_SCAN_TIMING=1`, the walk alone, the cache's check alone, and the check for
# new git repositories after the run alone (inside wicket).
#
#   bash bench/sandbox_scan.sh [RUNS]   # needs hyperfine and bwrap; also run by bench/sandbox.sh
set -euo pipefail
. "$(dirname "$0")/common.sh" "$0" "$@"
big="$work/big" empty="$work/empty"
mkdir -p "$empty" "$work/home/.wicket"
export WICKET_HOME="$work/home/.wicket" HOME="$work/home"
# 100 packages x 10 modules x 10 folders x 10 files: 100,000 files in 11,100 folders (about ten
# entries a folder, as in a real source tree).
python3 - "$big" <<'PY'
import os, sys
root = sys.argv[1]
for a in range(100):
    for b in range(10):
        for c in range(10):
            d = f"{root}/p{a}/m{b}/c{c}"
            os.makedirs(d)
            for f in range(10):
                open(f"{d}/f{f}.ts", "w").close()
open(f"{root}/p1/m2/c3/.env", "w").write("TOKEN=x\n")
open(f"{root}/p7/m0/private.txt", "w").write("x\n")
PY
echo "files: $(find "$big" -type f | wc -l), folders: $(find "$big" -type d | wc -l)"
printf '{"denyPaths":["**/private.txt"]}' > "$WICKET_HOME/policy.json"
printf '{"permissions":{"allow":["bash(true)"]}}' > "$WICKET_HOME/settings.json"
sleep 3   # past the racy window
"$bin" run --root "$big" -- true   # probe once and cache the scan, so both are what is measured
runs="${1:-100}"
cache="$WICKET_HOME/cache/scan"
cmds=("$bin run --root $big -- true" "$bin run --root $empty -- true"
      "$bin run --no-sandbox --root $big -- true" "$bin run --no-sandbox --root $empty -- true")
hyperfine -N --warmup 10 --runs "$runs" --export-json "$work/t.json" "${cmds[@]}" >/dev/null
hyperfine -N --warmup 3 --runs "$(( runs / 5 + 5 ))" --prepare "rm -rf $cache" --export-json "$work/w.json" \
  "$bin run --root $big -- true" >/dev/null
"$bin" run --root "$big" -- true 2>/dev/null
for i in $(seq 30); do WICKET_SCAN_TIMING=1 "$bin" run --root "$big" -- true 2>&1 | grep -o 'checked in [0-9.]*'; done \
  | awk '{print $3}' > "$work/check.txt"
for i in $(seq 30); do WICKET_SCAN_TIMING=1 "$bin" run --root "$big" -- true 2>&1 | grep -o 'after the run in [0-9.]*'; done \
  | awk '{print $5}' > "$work/after.txt"
for i in $(seq 10); do rm -rf "$cache"; WICKET_SCAN_TIMING=1 "$bin" run --root "$big" -- true 2>&1 \
  | grep -o 'walked in [0-9.]*'; done | awk '{print $3}' > "$work/walk.txt"
python3 - "$work" <<'PY'
import json, statistics, sys
work = sys.argv[1]
r = json.load(open(f"{work}/t.json"))["results"]
med = [x["median"] * 1e3 for x in r]
names = ["wicket run -- true, 100,000-file project", "wicket run -- true, empty project",
         "  --no-sandbox, 100,000-file project", "  --no-sandbox, empty project"]
for n, m in zip(names, med):
    print(f"{n:45s} median {m:8.2f} ms")
print(f"100,000 files / empty: {med[0] / med[1]:.2f}x (target <= 2x)")
w = json.load(open(f"{work}/w.json"))["results"][0]["median"] * 1e3
print(f"{'  the same, cache removed before each run':45s} median {w:8.2f} ms ({w / med[1]:.2f}x)")
walk = [float(x) for x in open(f"{work}/walk.txt")]
check = [float(x) for x in open(f"{work}/check.txt")]
print(f"the walk alone (inside wicket, {len(walk)} runs): median {statistics.median(walk):.2f} ms")
print(f"the cache's check alone (inside wicket, {len(check)} runs, overlapped with bwrap's start): "
      f"median {statistics.median(check):.2f} ms")
after = [float(x) for x in open(f"{work}/after.txt")]
print(f"the check for new repositories after the run alone (inside wicket, {len(after)} runs): "
      f"median {statistics.median(after):.2f} ms")
PY
