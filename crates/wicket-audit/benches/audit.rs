//! Appending lines to a project's chain (lock, one `write(2)`, head record; with fsync too),
//! a fresh writer per line as a hook process is, and verifying a million lines across files.
//!
//! Run: `cargo bench -p wicket-audit --bench audit`. Numbers go in docs/performance.md.

#![allow(clippy::unwrap_used, clippy::expect_used)] // bench set-up

use std::num::NonZeroU32;
use std::path::Path;
use std::sync::OnceLock;

use divan::{black_box, Bencher};
use wicket_audit::{AuditLog, AuditOptions, Durability, Event, Redactor};

fn main() {
    divan::main();
}

/// A typical decision: a command allowed in the sandbox, with a reason of everyday length.
fn event() -> Event<'static> {
    let mut e = Event::decision(
        "bash",
        "git status && cargo test --all 2>&1 | tail -n 20",
        "allow_sandbox",
        "the command runs in the OS sandbox (writes stay in the project, no network)",
    );
    e.rule = Some("bash(cargo test*)");
    e
}

fn log_in(dir: &Path, durability: Durability, checkpoint: bool) -> AuditLog {
    let options = AuditOptions { durability, checkpoint, ..AuditOptions::default() };
    log_with(dir, options)
}

fn log_with(dir: &Path, options: AuditOptions) -> AuditLog {
    AuditLog::new(dir.join("proj-12345678"), "0123456789abcdef", options).with_redactor(Redactor::from_env())
}

/// One line under the lock, flushed (one write(2)), no fsync, head record after it: the
/// default.
#[divan::bench(sample_count = 100, sample_size = 2000)]
fn append_flush(b: Bencher) {
    let tmp = tempfile::tempdir().unwrap();
    let mut log = log_in(tmp.path(), Durability::Flush, false);
    let e = event();
    b.bench_local(|| log.record(black_box(&e)).unwrap());
}

/// The same without the head record after each line (only when a file starts): what the
/// per-line checkpoint costs.
#[divan::bench(sample_count = 100, sample_size = 2000)]
fn append_flush_head_per_file(b: Bencher) {
    let tmp = tempfile::tempdir().unwrap();
    let mut log = log_in(tmp.path(), Durability::Flush, false);
    let e = event();
    b.bench_local(|| log.record(black_box(&e)).unwrap());
}

/// A new writer for every line, as each hook process is: open the lock, read the head
/// record and the newest file's last line, append, write the head.
#[divan::bench(sample_count = 30, sample_size = 200)]
fn append_fresh_writer_per_line(b: Bencher) {
    let tmp = tempfile::tempdir().unwrap();
    let e = event();
    b.bench_local(|| log_in(tmp.path(), Durability::Flush, true).record(black_box(&e)).unwrap());
}

/// One line and an fdatasync.
#[divan::bench(sample_count = 20, sample_size = 20)]
fn append_fsync_each_line(b: Bencher) {
    let tmp = tempfile::tempdir().unwrap();
    let mut log = log_in(tmp.path(), Durability::FsyncEachLine, false);
    let e = event();
    b.bench_local(|| log.record(black_box(&e)).unwrap());
}

/// One line, an fdatasync every 100 lines.
#[divan::bench(sample_count = 30, sample_size = 1000)]
fn append_fsync_every_100(b: Bencher) {
    let tmp = tempfile::tempdir().unwrap();
    let mut log = log_in(tmp.path(), Durability::FsyncEvery(NonZeroU32::new(100).unwrap()), false);
    let e = event();
    b.bench_local(|| log.record(black_box(&e)).unwrap());
}

/// Redaction alone, on the target and reason of a typical line.
#[divan::bench]
fn redact_typical(b: Bencher) {
    let r = Redactor::from_env();
    let e = event();
    b.bench_local(|| (r.redact(black_box(e.target)).len(), r.redact(black_box(e.reason)).len()));
}

/// A project with a chain of 1,000,000 lines in 32 files (the default 16 MiB rotation),
/// written once per run.
fn million() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let mut log = log_in(tmp.path(), Durability::Flush, true);
        let e = event();
        for _ in 0..1_000_000 {
            log.record(&e).unwrap();
        }
        tmp
    })
    .path()
}

/// Verify 1,000,000 lines across files: decode, re-hash, chain, link the files, the head.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn verify_1m_lines(b: Bencher) {
    let dir = million();
    b.bench_local(|| {
        let report = wicket_audit::verify_path(black_box(dir)).unwrap();
        assert!(report.is_ok() && report.lines() == 1_000_000);
    });
}

/// The floor: one `write(2)` of a line-sized buffer to an `O_APPEND` file, nothing else.
#[divan::bench(sample_count = 100, sample_size = 2000)]
fn floor_write_only(b: Bencher) {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).create(true).open(tmp.path().join("x")).unwrap();
    let line = [b'x'; 480];
    b.bench_local(|| f.write_all(black_box(&line)).unwrap());
}

/// The floor plus the `fstat` the writer makes after each line (is the file still linked?).
#[divan::bench(sample_count = 100, sample_size = 2000)]
fn floor_write_and_fstat(b: Bencher) {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).create(true).open(tmp.path().join("x")).unwrap();
    let line = [b'x'; 480];
    b.bench_local(|| {
        f.write_all(black_box(&line)).unwrap();
        f.metadata().unwrap().len()
    });
}
