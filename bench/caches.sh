#!/usr/bin/env bash
# The cost of the package cache layers (issue 13, item 5): a warm `cargo build --offline` of a
# small crate with dependencies already in the registry, and a warm `npm ci --offline`, inside
# `wicket run` (the caches are overlays over the host's, writes land in the project's layer) and
# outside, interleaved, with medians. The home is a copy made for the bench (the registry index
# and crate files are copied from ~/.cargo; npm fills its cache once from the registry), so the
# real home is never written.
#
#   bash bench/caches.sh [ROUNDS]     # default 7 rounds; needs cargo (rustup), npm, bwrap
#   WICKET_BIN=target/debug/wicket bash bench/caches.sh   # measure another build
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-7}"
if [ -n "${WICKET_BIN:-}" ]; then
  bin="$(realpath "$WICKET_BIN")"
else
  cargo build --release -q -p wicket
  bin="$PWD/target/release/wicket"
fi
mkdir -p target/bench
work="$(mktemp -d -p "$PWD/target/bench")"
trap 'rm -rf "$work"' EXIT
home="$work/home"
mkdir -p "$home/.cargo/registry" "$home/.npm" "$home/.cache"
cp -a "${CARGO_HOME:-$HOME/.cargo}/registry/index" "${CARGO_HOME:-$HOME/.cargo}/registry/cache" "$home/.cargo/registry/"
# The toolchain's own cargo and rustc (rustup's proxy would look for its home in the bench home).
toolchain="$(rustc --print sysroot)"
export PATH="$toolchain/bin:$PATH" HOME="$home" WICKET_HOME="$home/.wicket"
unset CARGO_HOME RUSTUP_HOME CARGO_TARGET_DIR

for side in in out; do
  p="$work/crate-$side"
  mkdir -p "$p/src"
  cat > "$p/Cargo.toml" <<'TOML'
[package]
name = "cachebench"
version = "0.1.0"
edition = "2021"

[workspace]

[dependencies]
itoa = "1"
memchr = "2"
smallvec = "1"
once_cell = "1"
TOML
  echo 'fn main() { let mut b = itoa::Buffer::new(); println!("{} {:?}", b.format(7), memchr::memchr(b"x"[0], b"axb")); }' > "$p/src/main.rs"
  n="$work/npm-$side"
  mkdir -p "$n"
  printf '{"name":"cachebench","version":"1.0.0","private":true,"dependencies":{"lodash":"4.17.21","ms":"2.1.3","kleur":"4.1.5","semver":"7.6.3"}}\n' > "$n/package.json"
done
# Warm-up outside: the lock files, the registry's sources extracted, npm's cache filled (network).
(cd "$work/crate-out" && cargo generate-lockfile --offline -q && cargo build --offline -q)
cp "$work/crate-out/Cargo.lock" "$work/crate-in/"
(cd "$work/npm-out" && npm install --silent --no-audit --no-fund >/dev/null && rm -rf node_modules && npm ci --offline --silent --no-audit --no-fund >/dev/null)
cp "$work/npm-out/package-lock.json" "$work/npm-in/"
(cd "$work/crate-in" && "$bin" run -- cargo build --offline -q)
(cd "$work/npm-in" && "$bin" run -- npm ci --offline --silent --no-audit --no-fund >/dev/null)

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
python3 - "$bin" "$work" "$rounds" <<'PY'
import os, shutil, statistics, subprocess, sys, time
bin, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
bare = dict(os.environ, HOME=f"{work}/bare-home")
os.makedirs(bare["HOME"], exist_ok=True)
def run(cwd, argv, inside, env=None):
    cmd = [bin, "run", "--"] + argv if inside else argv
    t = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed in {cwd}: {r.stderr.decode()[-2000:]}")
    return dt * 1e3
def cargo(side):
    d = f"{work}/crate-{side}"
    # The crate is rebuilt, its dependencies are checked (their sources in the registry read).
    os.utime(f"{d}/src/main.rs")
    return run(d, ["cargo", "build", "--offline", "-q"], side == "in")
def cargo_clean(side):
    d = f"{work}/crate-{side}"
    shutil.rmtree(f"{d}/target", ignore_errors=True)
    return run(d, ["cargo", "build", "--offline", "-q"], side == "in")
def npm(side):
    d = f"{work}/npm-{side}"
    shutil.rmtree(f"{d}/node_modules", ignore_errors=True)
    return run(d, ["npm", "ci", "--offline", "--no-audit", "--no-fund", "--silent"], side == "in")
def true(side):
    return run(f"{work}/crate-{side}", ["true"], side == "in")
def layers(side):
    # "out": the same sandboxed run with a home that has no caches (nothing to layer).
    return run(f"{work}/crate-in", ["true"], True, None if side == "in" else bare)
for name, f in [("wicket run -- true (the sandbox alone)", true),
                ("wicket run -- true, home with 3 caches vs none", layers),
                ("warm cargo build (crate rebuilt, 4 deps checked)", cargo),
                ("warm cargo build from a clean target (4 deps compiled)", cargo_clean),
                ("warm npm ci --offline (4 packages, ~1,100 files)", npm)]:
    t = {"in": [], "out": []}
    for _ in range(rounds):
        for side in ("out", "in"):
            t[side].append(f(side))
    i, o = statistics.median(t["in"]), statistics.median(t["out"])
    if f is layers:
        print(f"{name:56s} no caches {o:8.1f} ms   3 layers {i:8.1f} ms   cost {i - o:+7.1f} ms")
        continue
    if f is true:
        base = i - o
        print(f"{name:56s} outside {o:8.1f} ms   inside {i:8.1f} ms   cost {i - o:+7.1f} ms")
        continue
    print(f"{name:56s} outside {o:8.1f} ms   inside {i:8.1f} ms   cost {i - o:+7.1f} ms ({i / o:.2f}x), "
          f"{i - o - base:+7.1f} ms beyond the sandbox's start")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "layers: $(du -sh "$WICKET_HOME/layers" | cut -f1) in $WICKET_HOME/layers"
