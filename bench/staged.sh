#!/usr/bin/env bash
# Staged runs against unstaged ones, interleaved (hyperfine): `true` in a small git project, and
# `cargo test` of a small crate (its target folder inside the project, as usual, so the copy
# includes it). Prints the medians and the ratios.
#
#   bash bench/staged.sh            # needs hyperfine, bwrap and cargo; RUNS=N to change the count
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p wicket
bin="$PWD/target/release/wicket"
runs="${RUNS:-30}"
# Not in /tmp: the project must not sit inside a writable temp folder.
mkdir -p target/bench
work="$(mktemp -d -p "$PWD/target/bench")"
trap 'rm -rf "$work"' EXIT
export WICKET_HOME="$work/wicket-home"
proj="$work/proj"
mkdir -p "$proj/src"
cd "$proj"
git init -q .
cat > Cargo.toml <<'EOF'
[package]
name = "tiny"
version = "0.1.0"
edition = "2021"

[workspace]
EOF
for n in $(seq 1 40); do echo "pub fn f$n(x: u32) -> u32 { x + $n }" >> src/lib.rs; done
cat >> src/lib.rs <<'EOF'
#[cfg(test)]
mod tests {
    #[test]
    fn adds() { assert_eq!(super::f1(1), 2); }
}
EOF
git add -A && git -c user.email=b@b -c user.name=b commit -qm init
"$bin" run --unattended -- cargo test -q --offline >/dev/null 2>&1   # build once: the test runs are incremental
"$bin" run --unattended -- true
files=$(find "$proj" | wc -l)
size=$(du -sh "$proj" | cut -f1)
echo "project: $files files and folders, $size (target/ included)"

json="$work/true.json"
hyperfine -N --warmup 3 --runs "$runs" --export-json "$json" \
  "$bin run --unattended -- true" \
  "$bin run --unattended --staged -- true" >/dev/null
json2="$work/cargo.json"
hyperfine --warmup 1 --runs "$(( runs < 10 ? runs : 10 ))" --export-json "$json2" \
  "$bin run --unattended -- cargo test -q --offline >/dev/null 2>&1" \
  "$bin run --unattended --staged -- cargo test -q --offline >/dev/null 2>&1" >/dev/null
python3 - "$json" "$json2" <<'EOF'
import json, sys
for path, what in ((sys.argv[1], "true"), (sys.argv[2], "cargo test")):
    r = json.load(open(path))["results"]
    plain, staged = r[0]["median"] * 1000, r[1]["median"] * 1000
    print(f"{what:10}  unstaged {plain:8.1f} ms   staged {staged:8.1f} ms   ratio {staged / plain:.2f}x")
EOF
# Nothing was kept: every staged run here changes nothing but what the build writes.
"$bin" staged list | wc -l | sed 's/^/stages kept by the cargo test runs: /'
