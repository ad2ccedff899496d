#!/usr/bin/env bash
# The project scan at command start (issue 13, item 7): `wicket run -- true` in a project of
# 100,000 files with a `.env` three folders deep and a team `denyPaths` of `**/private.txt`,
# against the same run in an empty project, warm (the tree is in the page cache after the
# warm-up runs), with medians and the ratio (target <= 2x). The scan's own cost is the
# difference between the two projects with `--no-sandbox` (the exec policy, and so the scan,
# is computed there too; nothing else differs).
#
#   bash bench/sandbox_scan.sh       # needs hyperfine and bwrap; also run by bench/sandbox.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p wicket
bin="$PWD/target/release/wicket"
# Not in /tmp: the home must not sit inside a writable temp folder, as it never does for real.
mkdir -p target/bench
work="$(mktemp -d -p "$PWD/target/bench")"
trap 'rm -rf "$work"' EXIT
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
"$bin" run --root "$big" -- true   # probe once, so the cached probe is what is measured

cmds=("$bin run --root $big -- true" "$bin run --root $empty -- true"
      "$bin run --no-sandbox --root $big -- true" "$bin run --no-sandbox --root $empty -- true")
hyperfine -N --warmup 10 --runs 100 --export-json "$work/t.json" "${cmds[@]}" >/dev/null
python3 - "$work/t.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
med = [x["median"] * 1e3 for x in r]
names = ["wicket run -- true, 100,000-file project", "wicket run -- true, empty project",
         "  --no-sandbox, 100,000-file project", "  --no-sandbox, empty project"]
for n, m in zip(names, med):
    print(f"{n:45s} median {m:8.2f} ms")
print(f"100,000 files / empty: {med[0] / med[1]:.2f}x (target <= 2x)")
print(f"the scan alone (no-sandbox difference): {med[2] - med[3]:.2f} ms")
PY
