#!/usr/bin/env bash
# Where a `wicket run -- true` (bubblewrap, the fallback, the host) and a `wicket hook claude`
# (a Bash payload) spend their time, phase by phase: wicket prints a timestamp at each phase
# when WICKET_TRACE_PHASES is set, and this script starts each N times (in a git project like
# bench/sandbox.sh's), lines the stamps up with the moment it spawned wicket (the same
# monotonic clock) and prints the median time of each phase from that moment.
#
#   bash bench/phases.sh [RUNS]                    # default 200 runs a backend
#   BENCH_USER=name bash bench/phases.sh [RUNS]    # as root: build, then measure as that user
set -euo pipefail
. "$(dirname "$0")/common.sh" "$0" "$@"
runs="${1:-200}"
mkdir -p "$work/proj" "$work/home/.wicket"
export WICKET_HOME="$work/home/.wicket" HOME="$work/home"
printf '{"permissions":{"allow":["bash(true)"]}}' > "$WICKET_HOME/settings.json"
cd "$work/proj"
git init -q .
mkdir -p .wicket .vscode .claude .cursor .gemini .codex .git/modules .git/worktrees && touch .mcp.json .git/config.worktree
"$bin" run -- true
# Git's answer is kept once the files git reads are two seconds old (see bench/sandbox.sh).
sleep 2.1
python3 - "$bin" "$runs" <<'PY'
import json, os, statistics, sys, time
bin, runs = sys.argv[1], int(sys.argv[2])
# The hook gets the Bash payload of bench/hook.sh on stdin.
payload = {"session_id": "3f1c2b7e-9a44-4b8e-8d2f-6e0c1a5b7d90", "transcript_path": "/tmp/t.jsonl", "cwd": os.getcwd(),
           "hook_event_name": "PreToolUse", "tool_name": "Bash",
           "tool_input": {"command": "git status && cargo test --all 2>&1 | tail -n 20"}}
with open("../payload.json", "w") as f:
    f.write(json.dumps(payload) + "\n")
cases = [("bubblewrap", {"WICKET_SANDBOX_BACKEND": "bwrap", "WICKET_OWN_NAMESPACES": "0"}, ["run", "--", "true"], None),
         ("wicket's own namespaces", {"WICKET_SANDBOX_BACKEND": "bwrap", "WICKET_OWN_NAMESPACES": "1"}, ["run", "--", "true"], None),
         ("Landlock fallback", {"WICKET_SANDBOX_BACKEND": "landlock"}, ["run", "--", "true"], None),
         ("host (--no-sandbox)", {}, ["run", "--no-sandbox", "--", "true"], None),
         ("a Bash payload (each line: the moment a step starts)", {}, ["hook", "claude"], "../payload.json")]
null = os.open(os.devnull, os.O_RDWR)
for name, extra, args, stdin in cases:
    env = {**os.environ, "WICKET_TRACE_PHASES": "1", **extra}
    at, totals = {}, []
    for i in range(runs + 10):
        r, w = os.pipe()
        inp = os.open(stdin, os.O_RDONLY) if stdin else null
        t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        pid = os.posix_spawn(bin, [bin] + args, env,
                             file_actions=[(os.POSIX_SPAWN_DUP2, inp, 0), (os.POSIX_SPAWN_DUP2, null, 1),
                                           (os.POSIX_SPAWN_DUP2, w, 2), (os.POSIX_SPAWN_CLOSE, r)])
        os.close(w)
        if stdin:
            os.close(inp)
        chunks = []
        while True:
            b = os.read(r, 65536)
            if not b:
                break
            chunks.append(b)
        _, status = os.waitpid(pid, 0)
        t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        os.close(r)
        if status != 0:
            sys.exit(f"{name}: wicket {' '.join(args)} failed (wait status {status}): {b''.join(chunks).decode(errors='replace')[-400:]}")
        if i < 10:
            continue
        totals.append(t1 - t0)
        for line in b"".join(chunks).decode(errors="replace").splitlines():
            parts = line.split(" ", 3)
            # The sandbox's own stamps come through the command's stderr, where two processes'
            # lines can meet: a line that is not whole is left out.
            if len(parts) == 4 and parts[:2] == ["wicket:", "phase"] and parts[2].isdigit():
                at.setdefault(parts[3], []).append(int(parts[2]) - t0)
    print(f"== wicket {' '.join(args)}, {name}: median of {runs} runs, from the spawn of wicket")
    prev = 0.0
    for label, ts in sorted(at.items(), key=lambda kv: statistics.median(kv[1])):
        m = statistics.median(ts) / 1000
        print(f"  {m:7.2f} ms  (+{m - prev:5.2f})  {label}")
        prev = m
    end = statistics.median(totals) / 1000
    print(f"  {end:7.2f} ms  (+{end - prev:5.2f})  exited (reaped by the caller)")
PY
