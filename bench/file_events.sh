#!/usr/bin/env bash
# How many file events one `wicket run -- true` causes in the project: what an editor, a file
# watcher or a dev server sees on every confined command. Counts inotify events on the project
# root and every folder below it (but .git/objects), over RUNS runs after a first one.
#
#   bash bench/file_events.sh [RUNS]        (BENCH_USER=name as root: measure as that user)
set -euo pipefail
. "$(dirname "$0")/common.sh" "$0" "$@"
runs="${1:-5}"
proj="$work/project"
mkdir -p "$proj/src" "$work/home"
printf 'fn main() {}\n' > "$proj/src/main.rs"
printf 'K=1\n' > "$proj/.env"
git -C "$proj" init -q
git -C "$proj" -c user.email=b@example.invalid -c user.name=b commit -q --allow-empty -m init
export HOME="$work/home" WICKET_HOME="$work/home/.wicket"
( cd "$proj" && "$bin" run -- true ) 2>/dev/null
python3 - "$proj" "$runs" "$bin" <<'PY'
import ctypes, os, struct, subprocess, sys, collections
proj, runs, binary = sys.argv[1], int(sys.argv[2]), sys.argv[3]
libc = ctypes.CDLL("libc.so.6", use_errno=True)
IN_ALL = 0xFFF  # every event but the flags
fd = libc.inotify_init1(os.O_NONBLOCK)
names = {}
for d, subs, _ in os.walk(proj):
    subs[:] = [s for s in subs if os.path.join(d, s) != os.path.join(proj, ".git", "objects")]
    wd = libc.inotify_add_watch(fd, d.encode(), IN_ALL)
    names[wd] = os.path.relpath(d, proj)
kinds = {0x1: "access", 0x2: "modify", 0x4: "attrib", 0x8: "close_write", 0x10: "close_nowrite",
         0x20: "open", 0x40: "moved_from", 0x80: "moved_to", 0x100: "create", 0x200: "delete",
         0x400: "delete_self", 0x800: "move_self"}
def drain():
    out = []
    while True:
        try:
            buf = os.read(fd, 65536)
        except BlockingIOError:
            return out
        i = 0
        while i < len(buf):
            wd, mask, _, n = struct.unpack_from("iIII", buf, i)
            name = buf[i + 16:i + 16 + n].rstrip(b"\0").decode(errors="replace")
            out.append((names.get(wd, "?"), name, mask))
            i += 16 + n
drain()
per_run = []
seen = collections.Counter()
for _ in range(runs):
    subprocess.run([binary, "run", "--", "true"], cwd=proj, stderr=subprocess.DEVNULL, check=True)
    ev = drain()
    per_run.append(len(ev))
    for folder, name, mask in ev:
        kind = "+".join(v for k, v in kinds.items() if mask & k) or hex(mask)
        # Reads (open, access, close_nowrite) change nothing; the rest is what watchers act on.
        if mask & (0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200):
            seen[(os.path.join(folder, name), kind)] += 1
changes = sum(seen.values()) / runs
print(f"file events per `wicket run -- true` in the project: {sorted(per_run)[len(per_run) // 2]} (median of {runs}, "
      f"reads included); changes a watcher acts on (create, delete, modify, attrib, move): {changes:.0f} per run")
for (path, kind), n in sorted(seen.items(), key=lambda x: (-x[1], x[0]))[:12]:
    print(f"  {n / runs:5.1f}  {kind:<14} {path}")
PY
