#!/usr/bin/env bash
# The default path of an agent's shell call behind `wicket init claude` (issue 35): the hook
# decides and rewrites the command, then the agent runs the rewrite (`wicket run … -- bash -c
# CMD`), against the agent running the command unconfined (`bash -c CMD`, no hook). Both for
# `true` (the fixed cost) and for a small real job (`git status --short`), medians and ratios.
#
#   bash bench/confined.sh [RUNS]   # needs hyperfine and bwrap; BENCH_USER=name measures as that user
set -euo pipefail
. "$(dirname "$0")/common.sh" "$0" "$@"
runs="${1:-50}"
proj="$work/proj"
mkdir -p "$proj/src" "$work/home/.wicket"
export WICKET_HOME="$work/home/.wicket" HOME="$work/home"
cd "$proj"
echo 'fn main() {}' > src/main.rs
git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm init
sleep 2.1   # past the git-config and scan caches' racy windows
for job in "true" "git status --short"; do
  name=$(echo "$job" | tr ' ' '_')
  python3 - "$proj" "$job" > "$work/$name.json" <<'PY'
import json, sys
print(json.dumps({"session_id": "s", "transcript_path": "/t", "cwd": sys.argv[1], "permission_mode": "default",
    "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": sys.argv[2]}, "tool_use_id": "t1"}))
PY
  rewrite=$("$bin" hook claude --sandbox-commands < "$work/$name.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["hookSpecificOutput"]["updatedInput"]["command"])')
  # What the agent does: run the hook on the payload, then the command it got back.
  printf '#!/bin/sh\n"%s" hook claude --sandbox-commands < "%s" > /dev/null\nexec bash -c %s\n' \
    "$bin" "$work/$name.json" "'${rewrite//\'/\'\\\'\'}'" > "$work/$name.sh"
  "$bin" run --unattended --root "$proj" -- true   # probe and cache the scan once
  hyperfine -N --warmup 5 --runs "$runs" --export-json "$work/$name.out.json" \
    "bash -c '$job'" "sh $work/$name.sh" >/dev/null
  python3 - "$work/$name.out.json" "$job" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
a, b = r[0]["median"] * 1e3, r[1]["median"] * 1e3
print(f"{sys.argv[2]!r:22s} unconfined (bash -c) {a:7.2f} ms   hook + confined run {b:7.2f} ms   added {b - a:6.2f} ms   ratio {b / a:5.1f}x")
PY
done
