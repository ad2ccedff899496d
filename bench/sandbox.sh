#!/usr/bin/env bash
# Sandbox start-up, side by side: `wicket run -- true` (bwrap backend and the Landlock
# fallback), bare bubblewrap with the same namespaces and mounts, and Anthropic's sandbox
# runtime (`srt -c true`, from npm), with medians and ratios.
#
#   bash bench/sandbox.sh            # needs hyperfine and bwrap; srt is installed with npm if missing
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
cargo build --release -q -p wicket
bin="$PWD/target/release/wicket"
# Not in /tmp: the home must not sit inside a writable temp folder, as it never does for real.
mkdir -p target/bench
work="$(mktemp -d -p "$PWD/target/bench")"
trap 'rm -rf "$work"' EXIT
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
# Landlock shim, which are what wicket adds). Placeholders for missing protected paths are
# made here as wicket makes them.
mkdir -p .wicket .vscode .claude .cursor .gemini .codex .git/modules .git/worktrees && touch .mcp.json .git/config.worktree
bare="bwrap $(WICKET_PRINT_BWRAP=1 "$bin" run -- true 2>&1 >/dev/null | sed -n 's/^wicket: bwrap //p' \
  | sed -E -e 's/--add-seccomp-fd [0-9]+//g' -e 's/--sync-fd [0-9]+//g' -e 's/--bind-fd [0-9]+ ([^ ]+)/--bind \1 \1/g' \
  | python3 -c '
import os, sys
# Mounts over paths that do not exist here are dropped: wicket makes placeholders for them
# (leased and removed after the run), which a bare bwrap line cannot.
a = sys.stdin.read().split()
out, i = [], 0
while i < len(a):
    if a[i] in ("--ro-bind", "--bind") and i + 2 < len(a) and not os.path.lexists(a[i + 2]):
        i += 3
    elif a[i] == "--tmpfs" and i + 1 < len(a) and not os.path.lexists(a[i + 1]):
        i += 2
        if i + 1 < len(a) and a[i] == "--remount-ro":
            i += 2
    else:
        out.append(a[i])
        i += 1
print(" ".join(out))') true"

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
hyperfine -N --warmup 10 --runs 200 --export-json "$work/t.json" "${cmds[@]}" >/dev/null 2>&1 || \
  hyperfine --warmup 10 --runs 200 --export-json "$work/t.json" "${cmds[@]}" >/dev/null
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

# The project scan at command start, in a 100,000-file project (issue 13, item 7).
bash "$repo/bench/sandbox_scan.sh"
