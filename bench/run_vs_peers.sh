#!/usr/bin/env bash
# `wicket run -- true` against its peers, interleaved round by round (medians, ratios): bare
# bubblewrap (`bwrap --ro-bind / / --dev /dev --proc /proc --bind P P --unshare-net
# --unshare-pid true`), bubblewrap with wicket's own namespaces and mounts (what wicket prints
# with WICKET_PRINT_BWRAP=1, run in a twin of the project where the placeholders stand for
# good), `codex sandbox -- true` and `srt -c true` when installed; then where one wicket run
# spends its time (WICKET_TRACE_PHASES) and how many execve, statx, getdents64 calls it makes.
# As root, the same again as an unprivileged user (BENCH_USER, default wicketci when it exists).
#
#   bash bench/run_vs_peers.sh [ROUNDS]                 # default 60 rounds
#   BENCH_DIR=/opt/wbench bash bench/run_vs_peers.sh    # the project's parent (default target/bench)
#   CODEX=/path/to/codex SRT=/path/to/srt bash bench/run_vs_peers.sh
#
# Codex: `codex` on PATH, else target/agents (.ci/agents.sh); its npm launcher is a node script,
# so the native binary it starts is timed. srt: on PATH, else target/bench-tools (installed there
# with npm when missing and the registry answers; it needs ripgrep and socat).
set -euo pipefail
rounds="${1:-60}"
cd "$(dirname "$0")/.."
repo="$PWD"
if [ -z "${BENCH_BUILT:-}" ]; then
  cargo build --release -q -p wicket
fi
bin="$repo/target/release/wicket"
parent="${BENCH_DIR:-$repo/target/bench}"
mkdir -p "$parent"
work="$(mktemp -d -p "$parent")"
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

# The peers, found once (as root; the user's pass is handed the same).
if [ -z "${BENCH_BUILT:-}" ]; then
  codex="${CODEX:-$(command -v codex || true)}"
  [ -n "$codex" ] || codex="$(ls "$repo"/target/agents/node_modules/.bin/codex /work/main/target/agents/node_modules/.bin/codex 2>/dev/null | head -n 1 || true)"
  if [ -n "$codex" ] && head -c 64 "$(readlink -f "$codex")" | grep -q node; then
    # The native binary the launcher starts (timing node's start would not be Codex's sandbox).
    native="$(find "$(dirname "$(readlink -f "$codex")")/../.." -path '*codex-linux-*/vendor/*/bin/codex' -type f 2>/dev/null | head -n 1 || true)"
    [ -n "$native" ] && codex="$(readlink -f "$native")"
  fi
  srt="${SRT:-$(command -v srt || true)}"
  if [ -z "$srt" ] && [ -x "$repo/target/bench-tools/node_modules/.bin/srt" ]; then
    srt="$repo/target/bench-tools/node_modules/.bin/srt"
  elif [ -z "$srt" ] && command -v npm >/dev/null 2>&1; then
    mkdir -p "$repo/target/bench-tools"
    (cd "$repo/target/bench-tools" && npm install --silent @anthropic-ai/sandbox-runtime >/dev/null 2>&1) \
      && srt="$repo/target/bench-tools/node_modules/.bin/srt" || echo "note: srt could not be installed with npm"
  fi
  export CODEX="$codex" SRT="$srt"
fi

measure() {
  local who="$1"
  mkdir -p "$work/$who/proj" "$work/$who/home/.wicket"
  export HOME="$work/$who/home" WICKET_HOME="$work/$who/home/.wicket"
  printf '{"permissions":{"allow":["bash(true)"]}}' > "$WICKET_HOME/settings.json"
  cd "$work/$who/proj"
  echo 'fn main() {}' > main.rs
  git init -q . && git add -A && git -c user.name=b -c user.email=b@b commit -qm init
  "$bin" run -- true   # the probe, the scan and git's answer, kept
  # The bwrap line wicket runs, in a twin of the project where what wicket makes a placeholder
  # for (and removes after the run) exists for good; descriptors become paths.
  local line
  line="$(WICKET_PRINT_BWRAP=1 "$bin" run -- true 2>&1 >/dev/null | sed -n 's/^wicket: bwrap //p' | tail -n 1)"
  local twin="$work/$who/twin"
  local own
  own="$(printf '%s' "$line" | sed -E -e 's/--add-seccomp-fd [0-9]+//g' -e 's/--sync-fd [0-9]+//g' \
    -e 's/--bind-fd [0-9]+ ([^ ]+)/--bind \1 \1/g' -e 's/--ro-bind-fd [0-9]+ ([^ ]+)/--ro-bind \1 \1/g' | python3 -c '
import os, shutil, sys
proj, twin = sys.argv[1], sys.argv[2]
shutil.copytree(proj, twin, symlinks=True)
a = sys.stdin.read().split()
here = lambda p: p == proj or p.startswith(proj + "/")
out, i = [], 0
while i < len(a):
    if a[i] in ("--ro-bind", "--bind") and i + 2 < len(a) and not os.path.lexists(a[i + 2]):
        if here(a[i + 2]):
            os.makedirs(twin + a[i + 2][len(proj):], exist_ok=True)
            out.extend(a[i:i + 3])
        i += 3
    elif a[i] == "--tmpfs" and i + 1 < len(a) and not os.path.lexists(a[i + 1]):
        i += 2
        if i + 1 < len(a) and a[i] == "--remount-ro":
            i += 2
    else:
        out.append(a[i])
        i += 1
print(" ".join(twin + w[len(proj):] if here(w) else w for w in out))' "$PWD" "$twin")"
  # Past the git answer's and the scan's two-second windows, as in a project worked on.
  sleep 2.1
  local cmds=("$bin run -- true"
    "bwrap --ro-bind / / --dev /dev --proc /proc --bind $PWD $PWD --unshare-net --unshare-pid true"
    "bwrap $own true")
  local names=("wicket run -- true" "bare bwrap" "bwrap, wicket's mounts")
  if [ -n "${CODEX:-}" ] && "$CODEX" sandbox -- true >/dev/null 2>&1; then
    cmds+=("$CODEX sandbox -- true"); names+=("codex sandbox -- true")
  else
    echo "note ($who): codex sandbox -- true is not installed or fails here: left out"
  fi
  if [ -n "${SRT:-}" ] && "$SRT" -c true >/dev/null 2>&1; then
    cmds+=("$SRT -c true"); names+=("srt -c true")
  else
    echo "note ($who): srt -c true is not installed or fails here (it needs ripgrep and socat): left out"
  fi
  printf '%s\n' "${names[@]}" > "$work/$who/names"
  python3 - "$rounds" "$work/$who/names" "$bin" "${cmds[@]}" <<'PY'
import os, shutil, statistics, subprocess, sys, time
rounds, names, wicket, cmds = int(sys.argv[1]), open(sys.argv[2]).read().splitlines(), sys.argv[3], [c.split() for c in sys.argv[4:]]
for c in cmds:
    c[0] = shutil.which(c[0]) or c[0]
null = os.open(os.devnull, os.O_RDWR)
quiet = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
times = [[] for _ in cmds]
for r in range(rounds + 5):
    # Interleaved, command by command in each round: the machine's load weighs on all alike.
    for i, c in enumerate(cmds):
        t = time.perf_counter()
        pid = os.posix_spawn(c[0], c, os.environ, file_actions=quiet)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            again = subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            sys.exit(f"failed (round {r}): {' '.join(c)[:160]}: {again.stderr.strip()[-400:]}")
        if r >= 5:
            times[i].append(time.perf_counter() - t)
med = [statistics.median(t) * 1e3 for t in times]
print(f"  {'':26s} {'median':>9s}  {'wicket / it':>11s}")
for n, m in zip(names, med):
    print(f"  {n:26s} {m:7.2f} ms  {med[0] / m:10.2f}x")
# Where one run's time goes: each phase's median end, from the spawn of wicket.
env = {**os.environ, "WICKET_TRACE_PHASES": "1"}
at, total = {}, []
for r in range(rounds + 5):
    rd, wr = os.pipe()
    t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    pid = os.posix_spawn(wicket, [wicket, "run", "--", "true"], env,
                         file_actions=[(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1),
                                       (os.POSIX_SPAWN_DUP2, wr, 2), (os.POSIX_SPAWN_CLOSE, rd)])
    os.close(wr)
    text = b""
    while chunk := os.read(rd, 65536):
        text += chunk
    os.waitpid(pid, 0)
    os.close(rd)
    if r < 5:
        continue
    total.append(time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000 - t0)
    seen = set()
    for line in text.decode(errors="replace").splitlines():
        p = line.split(" ", 3)
        if len(p) == 4 and p[:2] == ["wicket:", "phase"] and p[3] not in seen:
            seen.add(p[3])
            at.setdefault(p[3], []).append(int(p[2]) - t0)
print(f"  phases of wicket run -- true (median end, ms from the spawn; + the phase's own share):")
prev = 0.0
for label, ts in sorted(at.items(), key=lambda kv: statistics.median(kv[1])):
    m = statistics.median(ts) / 1e3
    print(f"    {m:7.2f}  (+{m - prev:5.2f})  {label}")
    prev = m
end = statistics.median(total) / 1e3
print(f"    {end:7.2f}  (+{end - prev:5.2f})  exited")
PY
  if command -v strace >/dev/null 2>&1; then
    strace -f -qq -o "$work/$who/strace" -e trace=execve,statx,newfstatat,getdents64 "$bin" run -- true
    printf '  system calls of one run (wicket and the sandbox):'
    for s in execve statx newfstatat getdents64; do printf ' %s %s' "$s" "$(grep -c " $s(" "$work/$who/strace" || true)"; done
    echo
  fi
}

who="$(id -un)"
echo "== as $who ($rounds rounds; project in $work)"
measure "$who"
user="${BENCH_USER:-wicketci}"
if [ "$(id -u)" = 0 ] && [ -z "${BENCH_BUILT:-}" ] && id "$user" >/dev/null 2>&1; then
  # Most people run wicket as themselves: bubblewrap then makes a user namespace, and wicket
  # does not search for root's own files.
  chown -R "$user" "$work"
  mkdir -p "$work/$user" && chown "$user" "$work/$user"
  setpriv --reuid="$user" --regid="$user" --init-groups \
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$(getent passwd "$user" | cut -d: -f6)" USER="$user" \
    BENCH_BUILT=1 BENCH_DIR="$work" CODEX="$CODEX" SRT="$SRT" bash "$repo/bench/run_vs_peers.sh" "$rounds"
elif [ "$(id -u)" = 0 ] && [ -z "${BENCH_BUILT:-}" ]; then
  echo "note: no user $user (useradd -m -s /bin/bash $user): the unprivileged pass is left out"
fi
