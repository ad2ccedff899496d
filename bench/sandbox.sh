#!/usr/bin/env bash
# Sandbox start-up, side by side: `wicket run -- true` (bwrap backend and the Landlock
# fallback), bare bubblewrap with the same namespaces and mounts, and Anthropic's sandbox
# runtime (`srt -c true`, from npm), with medians and ratios.
#
#   bash bench/sandbox.sh            # needs hyperfine and bwrap; srt is installed with npm if missing
#   BENCH_USER=name bash bench/sandbox.sh   # as root: build, then measure as that user
#
# It ends with the floor under each issue-20 target: the work a run cannot skip (starting the
# two binaries, the placeholders, the namespaces), timed with other programs doing just that.
set -euo pipefail
. "$(dirname "$0")/common.sh" "$0" "$@"
mkdir -p "$work/proj" "$work/home"
# cargo and rustup must still find their own homes once HOME is the throwaway one.
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export WICKET_HOME="$work/home/.wicket" HOME="$work/home"
cd "$work/proj"
# A git project, as most are: wicket then also protects the git folder (bound on itself, config,
# hooks, info … read-only) and watches for a planted `commondir`.
git init -q .
"$bin" run -- true   # probe once, so the cached probe is what is measured
WICKET_SANDBOX_BACKEND=landlock "$bin" run -- true 2>/dev/null

# Bare bwrap with exactly wicket's namespaces and mounts (minus the seccomp programs and the
# Landlock shim, which are what wicket adds). Some protected paths exist here for good; for
# the missing ones wicket makes a placeholder during each run (removed after it), which a
# bare bwrap line cannot. So the bare line runs in a twin of the project where those
# placeholders stand for good: the same mounts, none of wicket's work. Only the last bwrap
# line wicket prints counts (a run whose cached scan is stale builds its sandbox twice).
mkdir -p .wicket .vscode .claude .cursor .gemini .codex .git/modules .git/worktrees && touch .mcp.json .git/config.worktree
bare="bwrap $(WICKET_PRINT_BWRAP=1 "$bin" run -- true 2>&1 >/dev/null | sed -n 's/^wicket: bwrap //p' | tail -n 1 \
  | sed -E -e 's/--add-seccomp-fd [0-9]+//g' -e 's/--sync-fd [0-9]+//g' -e 's/--bind-fd [0-9]+ ([^ ]+)/--bind \1 \1/g' \
  | python3 -c '
import os, shutil, sys
proj = os.getcwd()
twin = os.path.join(os.path.dirname(proj), "twin")
shutil.copytree(proj, twin, symlinks=True)
a = sys.stdin.read().split()
out, i, made, ro = [], 0, [], []
def here(p):
    return p == proj or p.startswith(proj + "/")
while i < len(a):
    if a[i] == "--ro-bind" and i + 2 < len(a) and a[i + 2].startswith(proj + "/"):
        ro.append(a[i + 2])
    if a[i] in ("--ro-bind", "--bind") and i + 2 < len(a) and not os.path.lexists(a[i + 2]):
        if here(a[i + 2]):
            made.append(a[i + 2])
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
# What wicket makes a placeholder for (and removes after the run): timed below.
with open("../placeholders.txt", "w") as f:
    f.write("".join(p + "\n" for p in made))
# The read-only binds inside the project, which the fallback makes in its own mount namespace.
with open("../readonly.txt", "w") as f:
    f.write("".join(p + "\n" for p in ro))
print(" ".join(twin + w[len(proj):] if here(w) else w for w in out))') true"

srt=""
if command -v srt >/dev/null 2>&1; then
  srt="srt"
elif command -v npm >/dev/null 2>&1; then
  (cd "$work" && npm install --silent @anthropic-ai/sandbox-runtime >/dev/null 2>&1) && srt="$work/node_modules/.bin/srt"
fi

# The host baseline: the same wicket run (settings, decision, audit line) without a sandbox.
# (in your own settings: a project's allow rules would wait for consent)
mkdir -p "$WICKET_HOME" && printf '{"permissions":{"allow":["bash(true)"]}}' > "$WICKET_HOME/settings.json"
# Wicket keeps git's answer about its configuration once the files git reads are two seconds
# old (a project's usually are); measure that, not the first seconds of a new repository.
sleep 2.1
cmds=("$bin run -- true" "$bare" "env WICKET_SANDBOX_BACKEND=landlock $bin run -- true" "$bin run --no-sandbox -- true")
# A peer that cannot run here (srt needs ripgrep and socat) is left out, with a note.
if [ -n "$srt" ] && ! "$srt" -c true >/dev/null 2>&1; then
  echo "note: $srt -c true fails here (missing ripgrep or socat?); srt is left out of the comparison"
  srt=""
fi
[ -n "$srt" ] && cmds+=("$srt -c true")
# Codex's sandbox (`codex sandbox -- true`), when installed: on PATH, or by .ci/agents.sh in
# target/agents. Its helper refuses a CODEX_HOME under /tmp; $HOME here is under target/.
codex=""
if command -v codex >/dev/null 2>&1; then
  codex="codex"
elif [ -x "$repo/target/agents/node_modules/.bin/codex" ]; then
  codex="$repo/target/agents/node_modules/.bin/codex"
fi
if [ -n "$codex" ] && ! "$codex" sandbox -- true >/dev/null 2>&1; then
  echo "note: $codex sandbox -- true fails here; Codex is left out of the comparison"
  codex=""
fi
[ -n "$codex" ] && cmds+=("$codex sandbox -- true")
for c in "${cmds[@]}"; do $c >/dev/null 2>&1 || echo "fails ($?): ${c:0:120}"; done
# Interleaved, command by command in each round, so that the load on the machine (it drifts
# by a third over minutes on this VM) weighs on every command alike; medians.
python3 - "$work/t.json" "${cmds[@]}" <<'PY'
import json, os, shutil, statistics, subprocess, sys, time
out, cmds = sys.argv[1], [c.split() for c in sys.argv[2:]]
for c in cmds:
    c[0] = shutil.which(c[0]) or c[0]
null = os.open(os.devnull, os.O_RDWR)
quiet = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
times = [[] for _ in cmds]
for r in range(210):
    for i, c in enumerate(cmds):
        t = time.perf_counter()
        pid = os.posix_spawn(c[0], c, os.environ, file_actions=quiet)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            # Which command, its status and what it said (run once more, stderr kept).
            again = subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            sys.exit(f"a command failed during the measurement (round {r}, wait status {status}): {' '.join(c)[:160]}\n"
                     f"run again: status {again.returncode}; {again.stderr.strip()[-600:]}")
        if r >= 10:
            times[i].append(time.perf_counter() - t)
json.dump({"results": [{"median": statistics.median(t)} for t in times]}, open(out, "w"))
PY
extra=()
[ -n "$srt" ] && extra+=("srt -c true")
[ -n "$codex" ] && extra+=("codex sandbox -- true")
python3 - "$work/t.json" "${extra[@]}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
med = [x["median"] * 1e3 for x in r]
names = ["wicket run -- true (bwrap)", "bare bwrap, same namespaces and mounts", "wicket run -- true (Landlock fallback)",
         "wicket run --no-sandbox -- true (host)"]
for n, m in zip(names, med):
    print(f"{n:45s} median {m:8.2f} ms")
print(f"wicket (bwrap) / bare bwrap: {med[0] / med[1]:.2f}x (target <= 1.3x; as root, wicket also searches the system folders for root-only files)")
print(f"Landlock + seccomp fallback: {med[2]:.2f} ms in all, {med[2] - med[3]:.2f} ms over the host run (target <= 2 ms)")
for name, m in zip(sys.argv[2:], med[4:]):
    print(f"{name:45s} median {m:8.2f} ms: {m / med[0]:.1f}x wicket run (bwrap)")
PY

# The floor under the issue-20 targets: the work a run cannot skip, timed with other programs
# that do only that work. A sandboxed run starts two programs on top of bubblewrap (the gate,
# then the shim that applies Landlock and seccomp inside), each counted here by its start
# beyond `true`'s; it makes a placeholder for each missing protected path and removes it after
# (timed with the same paths in a scratch copy on the same file system); the fallback enters
# namespaces of the same kinds (`unshare`, beyond a bare `unshare`) and binds the protected
# paths read-only there (timed inside such a namespace, on the scratch copy). Everything else
# wicket does (settings, the decision, the audit line, the rules) is left out, so these are
# lower bounds.
shim="$(dirname "$bin")/wicket-shim"
if [ "$(id -u)" = 0 ]; then ns="unshare -mpfiun --mount-proc true"; else ns="unshare -Ur -mpfiun --mount-proc true"; fi
hyperfine -N -i --warmup 20 --runs 300 --export-json "$work/f.json" "true" "$bin --version" "$shim" "unshare true" "$ns" >/dev/null 2>&1
python3 - "$work" <<'PY'
import json, os, statistics, subprocess, sys, time
work = sys.argv[1]
proj, scratch = os.path.join(work, "proj"), os.path.join(work, "scratch")
# Parents first (a path can be bound twice, and a placeholder can hold another).
made = sorted({os.path.relpath(p, proj) for p in open(os.path.join(work, "placeholders.txt")).read().split()}, key=len)
os.makedirs(scratch)
for rel in made:
    parent = os.path.dirname(rel)
    if parent and parent not in made:
        os.makedirs(os.path.join(scratch, parent), exist_ok=True)
times = []
for _ in range(300):
    t = time.perf_counter()
    for rel in made:
        os.mkdir(os.path.join(scratch, rel))
    for rel in reversed(made):
        os.rmdir(os.path.join(scratch, rel))
    times.append(time.perf_counter() - t)
ph = statistics.median(times[20:]) * 1e3
# The binds: each read-only path bound on itself and remounted read-only, as the fallback does.
binds = [os.path.relpath(p, proj) for p in open(os.path.join(work, "readonly.txt")).read().split()]
for rel in binds:
    path = os.path.join(scratch, rel)
    if not os.path.lexists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.mkdir(path)
mounter = """
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None)
paths = [os.fsencode(p) for p in sys.argv[1:]]
t = time.perf_counter()
for p in paths:
    if libc.mount(p, p, None, MS_BIND | MS_REC, None) or libc.mount(None, p, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None):
        sys.exit(f"mount {p!r}: errno {ctypes.get_errno()}")
print(time.perf_counter() - t)
"""
ns_args = ["unshare", "-m"] if os.getuid() == 0 else ["unshare", "-Ur", "-m"]
bind_times = []
for _ in range(50):
    r = subprocess.run(ns_args + ["python3", "-c", mounter] + [os.path.join(scratch, b) for b in binds],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"note: the bind floor was not measured: {r.stderr.strip()[:200]}")
        bind_times = [0.0]
        break
    bind_times.append(float(r.stdout))
bn = statistics.median(bind_times) * 1e3
run = [x["median"] * 1e3 for x in json.load(open(os.path.join(work, "t.json")))["results"]]
true, gate, shim, unshare, ns = [x["median"] * 1e3 for x in json.load(open(os.path.join(work, "f.json")))["results"]]
starts = (gate - true) + (shim - true)
bare = run[1]
print(f"floor: starting wicket {gate - true:.2f} ms and wicket-shim {shim - true:.2f} ms beyond true ({true:.2f} ms); "
      f"{len(made)} placeholders made and removed {ph:.2f} ms; namespaces {ns - unshare:.2f} ms; "
      f"{len(binds)} read-only binds {bn:.2f} ms")
print(f"floor for wicket run (bwrap): bare bwrap {bare:.2f} ms + {starts:.2f} + {ph:.2f} ms = "
      f"{(bare + starts + ph) / bare:.2f}x bare bwrap (target <= 1.3x)")
print(f"floor for the fallback over the host run: namespaces + placeholders + binds = {ns - unshare + ph + bn:.2f} ms (target <= 2 ms)")
PY

# The project scan at command start, in a 100,000-file project (issue 13, item 7).
BENCH_BUILT=1 bash "$repo/bench/sandbox_scan.sh"
