//! Phase timestamps, for finding where a run's time goes: off unless `WICKET_TRACE_PHASES` is
//! set (one look at the environment per process). `bench/phases.sh` collects them. Linux only.

/// When tracing is on, print `wicket: phase MICROSECONDS LABEL` to stderr: `label` has just
/// ended. The time is the system's monotonic clock (not this process's), so a caller lines it
/// up with its own.
pub fn phase(label: &str) {
    stamp(label, "");
}

/// Like [`phase`], for a step that begins now (printed as `start: LABEL`).
pub fn begins(label: &str) {
    stamp(label, "start: ");
}

fn stamp(label: &str, prefix: &str) {
    #[cfg(target_os = "linux")]
    {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        if !*ON.get_or_init(|| std::env::var_os("WICKET_TRACE_PHASES").is_some()) {
            return;
        }
        let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
        let us = i128::from(t.tv_sec) * 1_000_000 + i128::from(t.tv_nsec) / 1_000;
        // One write for the whole line: the sandbox's processes stamp theirs on a pipe that
        // wicket copies to the same stderr, and a line written in pieces (as `eprintln!` does)
        // could be cut by one of theirs.
        let line = format!("wicket: phase {us} {prefix}{label}\n");
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (label, prefix);
}
