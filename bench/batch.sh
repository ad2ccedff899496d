#!/usr/bin/env bash
# Throughput of `wicket check --jsonl` on one agent-like command line, with the audit log and
# without (`--no-audit`), in a small git project: calls decided per second, each the median of
# ROUNDS runs, the two interleaved so that load on the machine affects both alike.
#
#   bash bench/batch.sh [LINES] [ROUNDS]          # default 20000 lines, 5 rounds
#   BASELINE=/path/to/old/wicket bash bench/batch.sh   # the same runs of another build too
#   LINE='{"tool":…}' bash bench/batch.sh          # another call
#   VARY=1 bash bench/batch.sh                     # each line's command made distinct (` #N`
#                                                  # appended), so no line repeats another
#
# Every run starts with an empty WICKET_HOME (a fresh audit log), reads the calls from a file
# and its answers through a pipe, and must answer every line.
. "$(dirname "$0")/common.sh" "$0" "$@"
lines="${1:-20000}"
rounds="${2:-5}"
default='{"tool":"bash","input":{"command":"git status && npm test -- --watch=false | tee out.log"}}'
line="${LINE:-$default}"
mkdir -p "$work/proj/src"
(cd "$work/proj" && git init -q && echo 'fn main() {}' > src/main.rs)
printf '%s\n' "$line" > "$work/one.jsonl"
python3 - "$work/one.jsonl" "$work/calls.jsonl" "$lines" "${VARY:-}" <<'PY'
import json, sys
one = open(sys.argv[1]).read()
with open(sys.argv[2], "w") as f:
    if sys.argv[4]:
        call = json.loads(one)
        for i in range(int(sys.argv[3])):
            call["input"]["command"] = json.loads(one)["input"]["command"] + f" #{i}"
            f.write(json.dumps(call) + "\n")
    else:
        f.write(one * int(sys.argv[3]))
PY
echo "== wicket check --jsonl: $lines calls of $line${VARY:+ (each made distinct)}, medians of $rounds =="
echo "   (git project, --allow 'bash(npm test*)' --allow 'bash(tee*)'; load: $(cut -d' ' -f1-3 /proc/loadavg))"
cd "$work/proj"
python3 - "$work" "$lines" "$rounds" "$bin" "${BASELINE:-}" <<'PY'
import collections, json, os, shutil, statistics, subprocess, sys, time
work, lines, rounds, bins = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), [sys.argv[4]]
if sys.argv[5]:
    bins.append(sys.argv[5])
flags = ["check", "--jsonl", "--allow", "bash(npm test*)", "--allow", "bash(tee*)"]
def once(bin_, extra):
    home = os.path.join(work, "home")
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(home)
    env = dict(os.environ, WICKET_HOME=home, HOME=home)
    with open(os.path.join(work, "calls.jsonl"), "rb") as f:
        t = time.perf_counter()
        out = subprocess.run([bin_, *flags, *extra], stdin=f, stdout=subprocess.PIPE, env=env, check=True).stdout
        s = time.perf_counter() - t
    answers = out.splitlines()
    assert len(answers) == lines, f"{len(answers)} answers to {lines} lines"
    return lines / s, collections.Counter(json.loads(a)["decision"] for a in answers)
rates = {(b, a): [] for b in bins for a in ("log", "no-audit")}
for _ in range(rounds):
    for b in bins:
        for name, extra in (("log", []), ("no-audit", ["--no-audit"])):
            rate, seen = once(b, extra)
            rates[(b, name)].append(rate)
for b in bins:
    log, bare = statistics.median(rates[(b, "log")]), statistics.median(rates[(b, "no-audit")])
    label = "this build" if b == bins[0] else f"baseline {b}"
    print(f"{label}: with the audit log {log:,.0f} calls/s, --no-audit {bare:,.0f} calls/s "
          f"(log/no-audit {log / bare:.2f}; runs: {', '.join(f'{r:,.0f}' for r in rates[(b, 'log')])} / "
          f"{', '.join(f'{r:,.0f}' for r in rates[(b, 'no-audit')])})")
print(f"decisions of the last run: {dict(seen)}; target: >= 50,000 calls/s with the audit log")
PY
