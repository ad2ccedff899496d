"""Run a command and log every line that passes its stdin and stdout, byte for byte:
`python3 tee.py LOG CMD [ARGS…]` (lines: `C> ` from the client, `S> ` from the server)."""

import subprocess
import sys
import threading

log = open(sys.argv[1], "ab", buffering=0)
lock = threading.Lock()
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def write(prefix, line):
    with lock:
        log.write(prefix + line if line.endswith(b"\n") else prefix + line + b"\n")


def up():
    for line in sys.stdin.buffer:
        write(b"C> ", line)
        p.stdin.write(line)
        p.stdin.flush()
    p.stdin.close()


threading.Thread(target=up, daemon=True).start()
for line in p.stdout:
    write(b"S> ", line)
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
sys.exit(p.wait())
