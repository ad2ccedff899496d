#!/usr/bin/env bash
# How often the gate asks: the everyday agent calls of bench/corpus/agent_calls.jsonl (written by
# bench/corpus/make_corpus.py; none is an attack) decided by `wicket check --jsonl` in a small
# Rust + Node + Python + Go project, and the asks and denies per 100 calls printed for:
#   no settings, and the careful allow list of bench/corpus/careful.json (user settings);
#   each on the host (`--no-sandbox`), sandboxed (`--sandboxed`), and sandboxed in accept-edits.
#
#   bash bench/asks.sh                   # builds the release binary first
#   WICKET_BIN=target/debug/wicket bash bench/asks.sh   # another build, not rebuilt
#   VERBOSE=1 bash bench/asks.sh         # also every call that was not allowed, with the reason
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
if [ -n "${WICKET_BIN:-}" ]; then
  bin="$(realpath "$WICKET_BIN")"
else
  cargo build --release -q -p wicket
  bin="$repo/target/release/wicket"
fi
mkdir -p target/bench
work="$(mktemp -d -p "$repo/target/bench")"
trap 'rm -rf "$work"' EXIT
p="$work/proj"
mkdir -p "$p"/{src/utils,tests/fixtures,app,go/cmd/server,web/src,crates/core/src,crates/cli/src,docs,.github/workflows,templates,dir,out,scripts}
cd "$p"
git init -q && git config user.email a@example.com && git config user.name a
printf '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n' > Cargo.toml
: > Cargo.lock
for f in src/main.rs src/lib.rs src/parser.rs src/a.rs src/b.rs src/old.rs src/utils/mod.rs crates/core/src/lib.rs crates/cli/src/main.rs; do echo 'fn main() {}' > "$f"; done
printf '[package]\nname = "core"\n' > crates/core/Cargo.toml; printf '[package]\nname = "cli"\n' > crates/cli/Cargo.toml
echo '{"name":"app","version":"1.0.0","scripts":{"test":"vitest","build":"tsc"},"dependencies":{}}' > package.json
cp package.json web/package.json
echo '{}' > tsconfig.json
for f in src/server.ts src/old.ts web/src/App.tsx web/src/index.ts web/src/api.ts; do echo 'export {}' > "$f"; done
for f in app/main.py app/models.py app/views.py tests/test_api.py tests/test_models.py scripts/seed.py manage.py; do echo 'pass' > "$f"; done
printf 'package main\nfunc main() {}\n' > go/main.go; echo 'module example.com/app' > go/go.mod
printf 'test:\n\ttrue\n' > Makefile; echo 'FROM scratch' > Dockerfile
echo 'requests' > requirements.txt; echo '[project]' > pyproject.toml; echo '# App' > README.md; echo '# Changes' > CHANGELOG.md
echo '# Guide' > docs/guide.md; echo 'on: push' > .github/workflows/ci.yml; echo 'log' > out.log
printf 'target/\nnode_modules/\n.env\n' > .gitignore
echo 'API_KEY=sk-live-not-a-real-key' > .env; echo 'API_KEY=' > .env.example
echo 'x' > templates/t.txt; echo 'x' > dir/a.txt; printf 'b\na\n' > names.txt; echo 'a,b' > data.csv; echo a > a.txt; echo b > b.txt
echo '#!/bin/sh' > scripts/build.sh; echo 'node' > scripts/gen.js
git add -A && git commit -qm init
export HOME="$work/home" WICKET_HOME="$work/home/.wicket"
mkdir -p "$WICKET_HOME" "$HOME/.ssh" "$HOME/.cargo/bin"
echo 'ssh-ed25519 AAAA test' > "$HOME/.ssh/id_ed25519.pub"
python3 - "$bin" "$repo/bench/corpus/agent_calls.jsonl" "$repo/bench/corpus/careful.json" "$WICKET_HOME" "${VERBOSE:-}" <<'PY'
import collections, json, shutil, subprocess, sys
bin_, corpus, careful, home, verbose = sys.argv[1:6]
calls = open(corpus).read().splitlines()
runs = [
    ("no settings", None, ["--no-sandbox"]),
    ("no settings", None, ["--sandboxed"]),
    ("no settings", None, ["--sandboxed", "--mode", "accept-edits"]),
    ("careful allow list", careful, ["--no-sandbox"]),
    ("careful allow list", careful, ["--sandboxed"]),
    ("careful allow list", careful, ["--sandboxed", "--mode", "accept-edits"]),
]
where = {"--no-sandbox": "host", "--sandboxed": "sandboxed"}
print(f"== asks and denies per 100 of {len(calls)} everyday agent calls (wicket check --jsonl) ==")
print(f"{'settings':<20} {'where':<28} {'asks/100':>9} {'denies/100':>11}")
for name, settings, flags in runs:
    s = f"{home}/settings.json"
    if settings:
        shutil.copy(settings, s)
    else:
        open(s, "w").write("{}")
    out = subprocess.run([bin_, "check", "--jsonl", "--no-audit", *flags], input="\n".join(calls) + "\n",
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(calls), f"{len(out)} answers to {len(calls)} calls"
    got = [json.loads(o) for o in out]
    n = collections.Counter(g["decision"] for g in got)
    label = where[flags[0]] + (" accept-edits" if "accept-edits" in flags else "")
    print(f"{name:<20} {label:<28} {n['ask'] * 100 / len(calls):>9.1f} {n['deny'] * 100 / len(calls):>11.1f}")
    if verbose:
        for c, g in zip(calls, got):
            if g["decision"] != "allow":
                print(f"    {g['decision']:<4} {json.loads(c)['input']!s:.110} -- {g.get('reason','')[:150]}")
PY
