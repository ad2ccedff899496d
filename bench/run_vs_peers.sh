#!/usr/bin/env bash
# `wicket run -- true` against its peers, interleaved round by round (medians, ratios): bare
# bubblewrap (`bwrap --ro-bind / / --dev /dev --proc /proc --bind P P --unshare-net
# --unshare-pid true`), bubblewrap with wicket's own namespaces and mounts (what wicket prints
# with WICKET_PRINT_BWRAP=1, run in a twin of the project where the placeholders stand for
# good), the same line carried out by wicket's own namespaces (`wicket-shim __sandbox-ns`),
# `wicket run` with bubblewrap building its sandbox (WICKET_OWN_NAMESPACES=0, through `env`), and
# with the sandbox's first process started after the plan instead of beside it
# (WICKET_EARLY_HELPER=0, through `env` too),
# `codex sandbox -- true` and `srt -c true` when installed; in the same rounds, the hook
# path of the confined default: `wicket hook claude --sandbox-commands` (the hook `wicket init
# claude` installs) answering a Bash call `true` with its rewrite, then that rewrite run
# (`wicket run --unattended --root P -- bash -c true`), timed from the hook's spawn to the
# rewrite's exit. The agent's own shells around the hook and the command are left out, as they
# are for every row. Then where one wicket run spends its time (WICKET_TRACE_PHASES) and how
# many execve, statx, getdents64 calls it makes. As root, the same again as an unprivileged user
# (BENCH_USER, default wicketci when it exists); at the end, a summary table to paste.
#
# Each pass also prints what its figures depend on besides wicket: the load average before and
# after, and what making and removing as many empty folders as the run's placeholders takes
# beside the project, timed in the same rounds (on an ext4 without a journal mounted with
# `discard`, each `rmdir` waits for the disk: tens of milliseconds while other builds write).
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
# Each pass leaves its medians here; the pass that made the folder prints the summary.
results="${BENCH_RESULTS:-}"
if [ -z "$results" ]; then
  results="$work/results"
  mkdir -p "$results"
  summary=1
fi

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
  # for (and removes after the run) exists for good; descriptors become paths. How many
  # placeholders there are goes to the file system's gauge below.
  local line
  line="$(WICKET_PRINT_BWRAP=1 "$bin" run -- true 2>&1 >/dev/null | sed -n 's/^wicket: bwrap //p' | tail -n 1)"
  local twin="$work/$who/twin"
  local own
  own="$(printf '%s' "$line" | sed -E -e 's/--add-seccomp-fd [0-9]+//g' -e 's/--sync-fd [0-9]+//g' \
    -e 's/--bind-fd [0-9]+ ([^ ]+)/--bind \1 \1/g' -e 's/--ro-bind-fd [0-9]+ ([^ ]+)/--ro-bind \1 \1/g' | python3 -c '
import os, shutil, sys
proj, twin, count = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.copytree(proj, twin, symlinks=True)
a = sys.stdin.read().split()
here = lambda p: p == proj or p.startswith(proj + "/")
out, i, made = [], 0, 0
while i < len(a):
    if a[i] in ("--ro-bind", "--bind") and i + 2 < len(a) and not os.path.lexists(a[i + 2]):
        if here(a[i + 2]):
            os.makedirs(twin + a[i + 2][len(proj):], exist_ok=True)
            out.extend(a[i:i + 3])
            made += 1
        i += 3
    elif a[i] == "--tmpfs" and i + 1 < len(a) and not os.path.lexists(a[i + 1]):
        i += 2
        if i + 1 < len(a) and a[i] == "--remount-ro":
            i += 2
    else:
        out.append(a[i])
        i += 1
open(count, "w").write(str(made))
print(" ".join(twin + w[len(proj):] if here(w) else w for w in out))' "$PWD" "$twin" "$work/$who/placeholders")"
  # The hook path of the confined default: Claude Code's PreToolUse payload for the Bash call
  # `true` (as bench/hook.sh's), answered by the hook `wicket init claude` installs.
  local payload="$work/$who/payload.json"
  python3 - "$PWD" > "$payload" <<'PY'
import json, sys
print(json.dumps({"session_id": "8c35adc1-5c0e-4c7a-9f55-0d7b8a2f4e11", "transcript_path": "/tmp/t.jsonl",
                  "cwd": sys.argv[1], "permission_mode": "default", "hook_event_name": "PreToolUse",
                  "tool_name": "Bash", "tool_input": {"command": "true", "description": "Run true"},
                  "tool_use_id": "toolu_01ABC123"}))
PY
  local rewrite
  rewrite="$("$bin" hook claude --sandbox-commands < "$payload" | python3 -c '
import json, sys
print(json.load(sys.stdin).get("hookSpecificOutput", {}).get("updatedInput", {}).get("command", ""))')"
  # Past the git answer's and the scan's two-second windows, as in a project worked on.
  sleep 2.1
  local shim
  shim="$(dirname "$bin")/wicket-shim"
  [ -x "$shim" ] || shim="$bin"
  local cmds=("$bin run -- true"
    "bwrap --ro-bind / / --dev /dev --proc /proc --bind $PWD $PWD --unshare-net --unshare-pid true"
    "bwrap $own true"
    "$shim __sandbox-ns $own -- true"
    "env WICKET_OWN_NAMESPACES=0 $bin run -- true"
    "env WICKET_EARLY_HELPER=0 $bin run -- true")
  local names=("wicket run -- true" "bare bwrap" "bwrap, wicket's mounts" "wicket's own namespaces, wicket's mounts"
    "wicket run, bubblewrap builds (env adds its start)" "wicket run, helper started after the plan (env adds its start)")
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
  case "$rewrite" in
    *" run --unattended --root "*" -- bash -c true")
      # Timed as a whole by the rounds below: the hook on the payload, its answer read, the
      # command it gives back started (the hook is asked anew in every round).
      cmds+=("HOOK $bin hook claude --sandbox-commands"); names+=("hook + run (confined default)")
      echo "  the confined default rewrites \`true\` to: $rewrite"
      ;;
    *) echo "note ($who): the hook did not rewrite the call (no OS sandbox?): the hook + run row is left out" ;;
  esac
  printf '%s\n' "${names[@]}" > "$work/$who/names"
  python3 - "$rounds" "$work/$who/names" "$bin" "$payload" "$work/$who/gauge" "$(cat "$work/$who/placeholders")" \
    "$results/$who.json" "${cmds[@]}" <<'PY'
import json, os, shlex, shutil, statistics, subprocess, sys, time
rounds, names, wicket, payload, gauge = int(sys.argv[1]), open(sys.argv[2]).read().splitlines(), *sys.argv[3:6]
placeholders, results, cmds = int(sys.argv[6]), sys.argv[7], [c.split() for c in sys.argv[8:]]
hook = [i for i, c in enumerate(cmds) if c[0] == "HOOK"]
for c in cmds:
    if c[0] == "HOOK":
        del c[0]
    c[0] = shutil.which(c[0]) or c[0]
null = os.open(os.devnull, os.O_RDWR)
quiet = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]

def fail(r, c, why="", stdin=None):
    with open(stdin or os.devnull, "rb") as inp:
        again = subprocess.run(c, stdin=inp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    sys.exit(f"failed (round {r}): {' '.join(c)[:160]}: {why}{again.stderr.strip()[-400:]}")

def hook_and_run(r, c):
    """What the agent does: the hook with the payload on stdin, its answer read, the rewritten
    command started; the time the hook took, and the rewrite's."""
    t = time.perf_counter()
    inp = os.open(payload, os.O_RDONLY)
    rd, wr = os.pipe()
    pid = os.posix_spawn(c[0], c, os.environ, file_actions=[
        (os.POSIX_SPAWN_DUP2, inp, 0), (os.POSIX_SPAWN_DUP2, wr, 1), (os.POSIX_SPAWN_DUP2, null, 2),
        (os.POSIX_SPAWN_CLOSE, rd)])
    os.close(inp)
    os.close(wr)
    out = b""
    while chunk := os.read(rd, 65536):
        out += chunk
    os.close(rd)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        fail(r, c, "the hook: ", payload)
    try:
        rewrite = shlex.split(json.loads(out)["hookSpecificOutput"]["updatedInput"]["command"])
    except (ValueError, KeyError, TypeError):
        sys.exit(f"round {r}: the hook did not rewrite the call: {out[:400]!r}")
    h = time.perf_counter()
    pid = os.posix_spawn(rewrite[0], rewrite, os.environ, file_actions=quiet)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        fail(r, rewrite, "the rewritten command: ")
    return h - t, time.perf_counter() - h

times = [[] for _ in cmds]
split = ([], [])
fs = ([], [])
load = [os.getloadavg()[0]]
os.makedirs(gauge, exist_ok=True)
for r in range(rounds + 5):
    # Interleaved, command by command in each round: the machine's load weighs on all alike.
    for i, c in enumerate(cmds):
        t = time.perf_counter()
        if i in hook:
            parts = hook_and_run(r, c)
        else:
            pid = os.posix_spawn(c[0], c, os.environ, file_actions=quiet)
            _, status = os.waitpid(pid, 0)
            if status != 0:
                fail(r, c)
        if r >= 5:
            times[i].append(time.perf_counter() - t)
            if i in hook:
                split[0].append(parts[0])
                split[1].append(parts[1])
    # The file system's part, in the same round: as many empty folders as the run's
    # placeholders, made and removed beside the project.
    t = time.perf_counter()
    for n in range(placeholders):
        os.mkdir(f"{gauge}/{n}")
    m = time.perf_counter()
    for n in range(placeholders):
        os.rmdir(f"{gauge}/{n}")
    if r >= 5:
        fs[0].append(m - t)
        fs[1].append(time.perf_counter() - m)
load.append(os.getloadavg()[0])
med = [statistics.median(t) * 1e3 for t in times]
h = hook[0] if hook else None
print(f"  {'':30s} {'median':>9s}  {'wicket run / it':>15s}" + (f"  {'hook + run / it':>15s}" if h is not None else ""))
for i, (n, m) in enumerate(zip(names, med)):
    print(f"  {n:30s} {m:7.2f} ms  {med[0] / m:14.2f}x" + (f"  {med[h] / m:14.2f}x" if h is not None else ""))
if h is not None:
    print(f"  hook + run: the hook {statistics.median(split[0]) * 1e3:.2f} ms (to its answer read), "
          f"the rewritten command {statistics.median(split[1]) * 1e3:.2f} ms (medians)")
cores = os.cpu_count()
mk, rm = (statistics.median(x) * 1e3 for x in fs)
print(f"  surroundings: load average {load[0]:.2f} -> {load[1]:.2f} on {cores} cores; {placeholders} empty folders "
      f"beside the project: mkdir {mk:.2f} ms, rmdir {rm:.2f} ms (median a round)")
with open(results, "w") as f:
    json.dump({"medians": dict(zip(names, med)), "load": load, "cores": cores, "placeholders": placeholders,
               "mkdir": mk, "rmdir": rm,
               "hook_split": [statistics.median(x) * 1e3 for x in split] if h is not None else None}, f)
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
        # The sandbox's own stamps come through the command's stderr, where two processes'
        # lines can meet: a line that is not whole is left out.
        if len(p) == 4 and p[:2] == ["wicket:", "phase"] and p[2].isdigit() and p[3] not in seen:
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
    BENCH_BUILT=1 BENCH_DIR="$work" BENCH_RESULTS="$results" CODEX="$CODEX" SRT="$SRT" \
    bash "$repo/bench/run_vs_peers.sh" "$rounds"
elif [ "$(id -u)" = 0 ] && [ -z "${BENCH_BUILT:-}" ]; then
  echo "note: no user $user (useradd -m -s /bin/bash $user): the unprivileged pass is left out"
fi

# The summary, to paste: each cell is wicket's median / the other's, and their ratio.
if [ -n "${summary:-}" ]; then
  python3 - "$results" "$who" "$user" "${CODEX:-}" "${SRT:-}" <<'PY'
import json, os, subprocess, sys
results, root, user, codex, srt = sys.argv[1:6]
passes = [(w, f"as {'root' if w == 'root' else 'a user'}") for w in dict.fromkeys((root, user))
          if os.path.exists(f"{results}/{w}.json")]
data = {w: json.load(open(f"{results}/{w}.json")) for w, _ in passes}

def version(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return ""

cv = version([codex, "--version"]).replace("codex-cli ", "Codex CLI ") if codex else ""
sv = version([srt, "--version"]) if srt else ""
run, hook = "wicket run -- true", "hook + run (confined default)"
rows = [
    (run, "bare bwrap", "bare bubblewrap"),
    (run, "bwrap, wicket's mounts", "bubblewrap with wicket's mounts"),
    (run, "codex sandbox -- true", f"`codex sandbox -- true`" + (f" ({cv})" if cv else "")),
    (run, "srt -c true", f"`srt -c true` (sandbox-runtime" + (f" {sv}" if sv else "") + ")"),
    (hook, "bare bwrap", "hook + run (confined default) against bare bubblewrap"),
    (hook, "codex sandbox -- true", "hook + run (confined default) against `codex sandbox -- true`"),
]

def cell(w, ours, theirs):
    m = data[w]["medians"]
    if ours not in m or theirs not in m:
        return "(not run)"
    a, b = m[ours], m[theirs]
    r = a / b
    return f"{a:.2f} / {b:.2f} ms, {r:.1f}×" if r >= 2 else f"{a:.2f} / {b:.2f} ms, {r:.2f}×"

print()
print("== summary (medians in the same interleaved rounds; wicket / the other, and the ratio)")
print()
print("| `wicket run -- true` against | " + " | ".join(label for _, label in passes) + " |")
print("| --- | " + " | ".join("---" for _ in passes) + " |")
for ours, theirs, label in rows:
    if all(theirs not in data[w]["medians"] or ours not in data[w]["medians"] for w, _ in passes):
        continue
    print(f"| {label} | " + " | ".join(cell(w, ours, theirs) for w, _ in passes) + " |")
print()
for w, label in passes:
    d = data[w]
    split = d.get("hook_split")
    extra = f"; hook + run = the hook {split[0]:.2f} ms + the rewritten run {split[1]:.2f} ms" if split else ""
    print(f"{label}: load average {d['load'][0]:.2f} -> {d['load'][1]:.2f} on {d['cores']} cores; "
          f"{d['placeholders']} empty folders beside the project: mkdir {d['mkdir']:.2f} ms, rmdir {d['rmdir']:.2f} ms{extra}")
PY
fi
