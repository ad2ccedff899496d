#!/usr/bin/env bash
# The cost of the recursive-read walk (issue 15, class 4): `wicket check` on `grep -r x src`
# over a tree of N files, against `grep x ONE_FILE` (no walk). Usage: bash bench/recursive.sh [N]
# (default 10000; the walk stops at 20,000 entries). Needs hyperfine and a built binary.
set -euo pipefail
N=${1:-10000}
BIN=${WICKET_BIN:-$(cd "$(dirname "$0")/.." && pwd)/target/debug/wicket}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/proj/.git" "$tmp/home"
dirs=$(( (N + 99) / 100 ))
for d in $(seq 1 "$dirs"); do
  mkdir -p "$tmp/proj/src/d$d"
  (cd "$tmp/proj/src/d$d" && touch $(seq -f 'f%g.rs' 1 100))
done
call() { printf '{"tool":"bash","input":{"command":"%s"}}' "$1" > "$tmp/$2.json"; }
call 'grep -r x src' walk
call 'grep x src/d1/f1.rs' plain
export WICKET_HOME="$tmp/home" HOME="$tmp/home"
run() { echo "$BIN check --root $tmp/proj --no-audit --no-sandbox --allow 'bash(grep *)' < $tmp/$1.json"; }
hyperfine --warmup 3 --runs 30 "$(run plain)" "$(run walk)"
