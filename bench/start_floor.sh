#!/usr/bin/env bash
# What starting a program costs on this machine, before it does anything (issue 37): a static
# program with no C library (`_exit` at `_start`), the same `int main(){}` linked with glibc
# statically and dynamically, `/bin/true`, `wicket-shim` and `wicket --version`; then one
# `cpuid` (leaf 4), the instruction glibc's start-up runs a few dozen times to size the caches
# (in a virtual machine each one is a trap to the hypervisor). Median of RUNS spawns each,
# interleaved, `posix_spawn` to `waitpid`.
#
#   bash bench/start_floor.sh [RUNS]      # default 300
set -euo pipefail
. "$(dirname "$0")/common.sh" "$0" "$@"
runs="${1:-300}"
cat > "$work/nolibc.c" <<'C'
void _start(void) { __asm__ volatile("mov $60, %eax\n xor %edi, %edi\n syscall"); }
C
echo 'int main(void) { return 0; }' > "$work/empty.c"
cat > "$work/cpuid.c" <<'C'
#include <cpuid.h>
#include <stdio.h>
#include <time.h>
int main(void) {
    unsigned a, b, c, d;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < 1000; i++) __cpuid_count(4, i & 3, a, b, c, d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("one cpuid (leaf 4): %.2f us\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e6);
    return (int)(a & 0);
}
C
cc -O2 -static -nostdlib -o "$work/nolibc" "$work/nolibc.c"
cc -O2 -static -o "$work/static" "$work/empty.c"
cc -O2 -o "$work/dynamic" "$work/empty.c"
cc -O2 -o "$work/cpuid" "$work/cpuid.c"
python3 - "$runs" "$work" "$bin" <<'PY'
import os, statistics, sys, time
runs, work, wicket = int(sys.argv[1]), sys.argv[2], sys.argv[3]
shim = os.path.join(os.path.dirname(wicket), "wicket-shim")
null = os.open(os.devnull, os.O_RDWR)
rows = [
    ("static, no C library", [f"{work}/nolibc"]),
    ("static, glibc", [f"{work}/static"]),
    ("dynamic, glibc", [f"{work}/dynamic"]),
    ("/bin/true", ["/bin/true"]),
    ("wicket-shim (no arguments)", [shim]),
    ("wicket --version", [wicket, "--version"]),
]
times = {name: [] for name, _ in rows}
for i in range(runs + 5):
    for name, argv in rows:
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, {}, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
        os.waitpid(pid, 0)
        if i >= 5:
            times[name].append((time.perf_counter() - t0) * 1000)
for name, _ in rows:
    print(f"{name:30s} {statistics.median(times[name]):6.3f} ms")
PY
"$work/cpuid"
