#!/usr/bin/env bash
# What the two output threads of a run cost (issue 20, item 3): spawn and join two threads
# with the capture threads' 256 KiB stacks, 2,000 times, and print the time a run.
#
#   bash bench/threads.sh
set -euo pipefail
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/t.rs" <<'RS'
use std::time::Instant;
fn main() {
    let n = 2000;
    let t = Instant::now();
    for _ in 0..n {
        let a = std::thread::Builder::new().stack_size(256 * 1024).spawn(|| 1).expect("spawn");
        let b = std::thread::Builder::new().stack_size(256 * 1024).spawn(|| 2).expect("spawn");
        let _ = a.join().expect("join") + b.join().expect("join");
    }
    println!("two threads spawned and joined: {:.1} us a run", t.elapsed().as_secs_f64() * 1e6 / n as f64);
}
RS
rustc -O -o "$work/t" "$work/t.rs"
"$work/t"
