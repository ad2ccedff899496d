//! Parse + analyse time over 1,200 realistic agent commands (`commands.txt`, written by
//! `bench/gen_commands.py`): each command is timed on its own, and the medians across
//! commands are reported, with the time per byte at 1, 16 and 64 KiB to show it is linear.
//!
//! Run: `cargo bench -p wicket-shell --bench corpus`.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// The median of many runs of `f`, in nanoseconds.
fn median_ns(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2].as_nanos() as f64
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let corpus = include_str!("commands.txt");
    let commands: Vec<String> = corpus.lines().map(|l| l.replace("\\n", "\n")).collect();
    for c in &commands {
        black_box(wicket_shell::analyze(c));
    }
    let mut medians: Vec<f64> = commands
        .iter()
        .map(|c| {
            median_ns(51, || {
                let a = wicket_shell::analyze(black_box(c));
                for cmd in &a.commands {
                    black_box(wicket_shell::strip_wrappers(cmd));
                }
            })
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    let understood = commands.iter().filter(|c| wicket_shell::analyze(c).understood).count();
    println!(
        "parse + analyse (+ strip_wrappers) over {} commands ({} understood): median {:.1} µs, p90 {:.1} µs, p99 {:.1} µs, max {:.1} µs",
        commands.len(),
        understood,
        percentile(&medians, 0.5) / 1000.0,
        percentile(&medians, 0.9) / 1000.0,
        percentile(&medians, 0.99) / 1000.0,
        medians[medians.len() - 1] / 1000.0
    );
    // Linear in input length: the same cost per byte at every size up to the cap.
    let unit = "cargo test --all 2>&1 | tail -n 20 && git status; ";
    for kib in [1usize, 16, 64] {
        let mut s = unit.repeat(kib * 1024 / unit.len());
        s.truncate(kib * 1024 - 1);
        let ns = median_ns(if kib == 64 { 11 } else { 31 }, || {
            black_box(wicket_shell::analyze(black_box(&s)));
        });
        println!("{kib:>2} KiB input: {:.2} ms, {:.1} ns/byte", ns / 1e6, ns / s.len() as f64);
    }
}
