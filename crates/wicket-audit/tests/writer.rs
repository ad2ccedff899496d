//! The writer: file modes, re-created folders, failures (notice once, or refuse), a head
//! record that cannot be read, the level filter, a file-size limit mid-line, writers in
//! parallel on one chain, a torn line left by a killed writer, a lock held by a live process,
//! and rotation by UTC day.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use wicket_audit::{
    verify_path, Admission, Appended, AuditError, AuditLog, AuditOptions, Durability, Event, Level, Redactor,
};

fn ev(kind: &str) -> Event<'_> {
    Event::decision("bash", "npm test", kind, "reason")
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn folders_are_0700_files_lock_and_head_0600() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("audit");
    let dir = root.join("p-1");
    let mut log = AuditLog::new(&dir, "s", AuditOptions::default());
    assert!(log.path().is_none() && !root.exists(), "nothing is created before the first line");
    assert_eq!(log.record(&ev("allow_sandbox")).unwrap(), Appended::Written { seq: 1 });
    let file = log.path().unwrap().to_path_buf();
    assert_eq!((mode(&root), mode(&dir), mode(&file)), (0o700, 0o700, 0o600));
    assert_eq!((mode(&dir.join("lock")), mode(&dir.join("head.json"))), (0o600, 0o600));
    let name = file.file_name().unwrap().to_str().unwrap();
    assert_eq!(wicket_audit::segment_seq(name), Some(1), "<stamp>-<first seq>: {name}");
    // A second writer (another process) continues the same chain in the same file.
    let mut other = AuditLog::new(&dir, "t", AuditOptions::default());
    assert_eq!(other.record(&ev("allow_sandbox")).unwrap(), Appended::Written { seq: 2 });
    assert_eq!(other.path(), Some(file.as_path()));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(&format!("\"pid\":{},", std::process::id())), "{text}");
}

#[test]
fn a_removed_folder_is_created_again_and_no_line_is_lost() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("audit").join("p-1");
    for checkpoint in [false, true] {
        let mut log = AuditLog::new(&dir, "s", AuditOptions { checkpoint, ..AuditOptions::default() });
        log.record(&ev("allow_sandbox")).unwrap();
        log.record(&ev("allow_sandbox")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        // The open file has no name any more: the line goes to a new folder, a new chain.
        assert_eq!(log.record(&ev("deny_rule")).unwrap(), Appended::Written { seq: 1 });
        log.record(&ev("deny_rule")).unwrap();
        let report = verify_path(&dir).unwrap();
        assert!(report.is_ok(), "{:?}", report.problems);
        assert_eq!((report.files.len(), report.lines()), (1, 2));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_failed_write_gives_one_notice_unless_the_audit_is_mandatory() {
    let tmp = tempfile::tempdir().unwrap();
    // A regular file where the folder should be: no folder can be created (even for root).
    let blocker = tmp.path().join("audit");
    std::fs::write(&blocker, "").unwrap();
    let dir = blocker.join("p-1");

    let mut log = AuditLog::new(&dir, "s", AuditOptions::default());
    assert!(matches!(log.record(&ev("allow_sandbox")), Err(AuditError::CreateDir { .. })));
    match log.admit(&ev("allow_sandbox")) {
        Admission::GoWithNotice(n) => assert!(n.contains("cannot create the audit folder"), "{n}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(log.admit(&ev("allow_sandbox")), Admission::Go), "one notice, then quiet");

    let mut log = AuditLog::new(&dir, "s", AuditOptions { mandatory: true, ..AuditOptions::default() });
    for _ in 0..2 {
        match log.admit(&ev("allow_sandbox")) {
            Admission::Refuse(e) => {
                let why = e.refusal();
                assert!(why.contains("the audit line could not be written"), "{why}");
                assert!(why.contains("does not run"), "{why}");
            }
            other => panic!("{other:?}"),
        }
    }
    // Once the folder can be made, lines flow again.
    std::fs::remove_file(&blocker).unwrap();
    assert!(matches!(log.admit(&ev("allow_sandbox")), Admission::Go));
    assert!(verify_path(&dir).unwrap().is_ok());
}

#[test]
fn a_head_record_that_cannot_be_read_refuses_a_mandatory_line_and_the_chain_goes_on_after() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p-1");
    let options = AuditOptions { mandatory: true, ..AuditOptions::default() };
    AuditLog::new(&dir, "s", options).record(&ev("allow_sandbox")).unwrap();
    // A folder where the head record should be: a new process cannot find the chain's end.
    std::fs::remove_file(dir.join("head.json")).unwrap();
    std::fs::create_dir(dir.join("head.json")).unwrap();
    let mut log = AuditLog::new(&dir, "s", options);
    match log.admit(&ev("allow_sandbox")) {
        Admission::Refuse(e) => assert!(e.refusal().contains("the audit line could not be written"), "{e}"),
        other => panic!("{other:?}"),
    }
    std::fs::remove_dir(dir.join("head.json")).unwrap();
    // The writer says that the head record was gone (line 2), then writes its line.
    assert_eq!(log.record(&ev("allow_sandbox")).unwrap(), Appended::Written { seq: 3 }, "no seq is lost or repeated");
    let report = verify_path(&dir).unwrap();
    assert_eq!(report.lines(), 3);
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert!(
        matches!(&report.problems[0].kind, wicket_audit::ProblemKind::Recorded { kind, .. } if kind == "missing_head")
    );
}

#[test]
fn levels_filter_events() {
    let tmp = tempfile::tempdir().unwrap();
    let mut read = Event::decision("read_file", "src/main.rs", "allow_read_only", "reads");
    read.read_only = true;
    let mut denied_read = Event::decision("read_file", ".env", "deny_sensitive", "secret");
    denied_read.read_only = true;
    let cases = [
        (Level::All, [true, true, true, true]),
        (Level::Mutations, [false, true, true, true]),
        (Level::Denials, [false, true, false, false]),
    ];
    for (level, want) in cases {
        let mut log = AuditLog::new(
            tmp.path().join(format!("{level:?}")),
            "s",
            AuditOptions { level, ..AuditOptions::default() },
        );
        let events = [read, denied_read, ev("allow_rule"), ev("ask_default")];
        let got: Vec<bool> =
            events.iter().map(|e| matches!(log.record(e).unwrap(), Appended::Written { .. })).collect();
        assert_eq!(got, want, "{level:?}");
    }
}

#[test]
fn targets_reasons_and_rules_are_redacted_and_clipped() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = Redactor::new();
    r.add_secret("correct-horse-battery");
    let mut log = AuditLog::new(tmp.path().join("p"), "s", AuditOptions::default()).with_redactor(r);
    let long = "x".repeat(10_000);
    let mut e =
        Event::decision("bash", "deploy --password=correct-horse-battery", "ask_rule", "uses correct-horse-battery");
    e.rule = Some("bash(deploy --password=correct-horse-battery)");
    log.record(&e).unwrap();
    log.record(&Event::decision("bash", &long, "ask_default", "long")).unwrap();
    let text = std::fs::read_to_string(log.path().unwrap()).unwrap();
    assert!(!text.contains("correct-horse"), "{text}");
    assert_eq!(text.matches("[REDACTED]").count(), 3);
    let second = text.lines().nth(1).unwrap();
    assert!(second.len() < 5_000 && second.contains("more bytes]"));
    // Texts seen again (kept redacted for a while), and again after many others: the same.
    log.record(&e).unwrap();
    for i in 0..40 {
        let reason = format!("uses correct-horse-battery, call {i}");
        log.record(&Event::decision("bash", "ls", "ask_default", &reason)).unwrap();
    }
    log.record(&e).unwrap();
    let text = std::fs::read_to_string(log.path().unwrap()).unwrap();
    assert!(!text.contains("correct-horse"), "{text}");
    assert_eq!(text.matches("[REDACTED]").count(), 3 + 3 + 40 + 3);
    assert_eq!(text.lines().last().unwrap().matches("[REDACTED]").count(), 3);
}

#[test]
fn fsync_settings_write_the_same_lines() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, durability) in [Durability::Flush, Durability::FsyncEachLine, Durability::FsyncEvery(3.try_into().unwrap())]
        .into_iter()
        .enumerate()
    {
        let dir = tmp.path().join(i.to_string());
        let mut log =
            AuditLog::new(&dir, "s", AuditOptions { durability, checkpoint: true, ..AuditOptions::default() });
        for _ in 0..5 {
            log.record(&ev("allow_sandbox")).unwrap();
        }
        log.sync().unwrap();
        assert_eq!(verify_path(&dir).unwrap().lines(), 5);
    }
}

/// The child side of the next test: runs under `ulimit -f 2` (1,024 bytes) with SIGXFSZ
/// ignored, so the third line is cut short by the kernel and then refused (EFBIG).
#[test]
fn child_under_file_size_limit() {
    let Some(dir) = std::env::var_os("WICKET_AUDIT_TEST_FSIZE_DIR") else { return };
    let dir = Path::new(&dir);
    let mut log = AuditLog::new(dir, "s", AuditOptions::default());
    let mut written = 0;
    let mut failures = 0;
    for _ in 0..10 {
        match log.record(&ev("allow_sandbox")) {
            Ok(_) => written += 1,
            Err(AuditError::Write { .. }) => failures += 1,
            Err(e) => panic!("unexpected: {e}"),
        }
    }
    assert!(written >= 1 && failures >= 1, "written {written}, failed {failures}");
    // The partial line was cut off again: the file is whole lines and verifies.
    let report = verify_path(dir).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.lines(), written);
    println!("CHILD-OK written={written} failed={failures}");
}

#[test]
fn a_file_size_limit_mid_line_leaves_no_torn_line() {
    let tmp = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"trap '' XFSZ; ulimit -f 2; exec "$0" --exact child_under_file_size_limit --nocapture --test-threads 1"#)
        .arg(&exe)
        .env("WICKET_AUDIT_TEST_FSIZE_DIR", tmp.path().join("p"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("CHILD-OK"), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn writers_in_parallel_continue_one_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p-1");
    let options = AuditOptions { rotate_bytes: 64 * 1024, ..AuditOptions::default() };
    std::thread::scope(|s| {
        for t in 0..8 {
            let dir = &dir;
            s.spawn(move || {
                let mut log = AuditLog::new(dir, format!("session-{t}"), options);
                for i in 0..300 {
                    let target = format!("cargo test case_{t}_{i}");
                    log.record(&Event::decision("bash", &target, "allow_sandbox", "sandboxed")).unwrap();
                }
            });
        }
    });
    let report = verify_path(&dir).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.lines(), 2400);
    assert!(report.files.len() > 4, "rotated by size: {}", report.files.len());
}

#[test]
fn a_torn_line_left_by_a_killed_writer_is_cut_off_and_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p-1");
    let mut log = AuditLog::new(&dir, "s", AuditOptions::default());
    for _ in 0..3 {
        log.record(&ev("allow_sandbox")).unwrap();
    }
    let file = log.path().unwrap().to_path_buf();
    // What a writer killed in the middle of its write(2) leaves: part of a line.
    let text = std::fs::read_to_string(&file).unwrap();
    let torn = &text.lines().next().unwrap()[..60];
    std::fs::write(&file, format!("{text}{torn}")).unwrap();
    let report = verify_path(&dir).unwrap();
    assert_eq!(report.problems.len(), 1);
    assert_eq!(report.problems[0].kind, wicket_audit::ProblemKind::TornLastLine);
    // The next writer (another process) cuts it off, records it, and goes on.
    let mut next = AuditLog::new(&dir, "t", AuditOptions::default());
    assert_eq!(next.record(&ev("deny_rule")).unwrap(), Appended::Written { seq: 5 });
    let report = verify_path(&dir).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!((report.lines(), report.projects[0].torn_repaired), (5, 1));
    let lines: Vec<serde_json::Value> =
        std::fs::read_to_string(&file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[3]["kind"], "torn_line");
    assert_eq!(lines[3]["target"], torn);
    // The writer that had the file open sees the other's lines and continues after them.
    assert_eq!(log.record(&ev("allow_sandbox")).unwrap(), Appended::Written { seq: 6 });
    assert!(verify_path(&dir).unwrap().is_ok());
}

#[test]
fn a_lock_held_by_a_live_process_is_waited_for_a_bounded_time() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p-1");
    AuditLog::new(&dir, "s", AuditOptions::default()).record(&ev("allow_sandbox")).unwrap();
    // Another open file description holds the flock, as another process would.
    let holder = std::fs::OpenOptions::new().read(true).write(true).open(dir.join("lock")).unwrap();
    rustix::fs::flock(&holder, rustix::fs::FlockOperation::LockExclusive).unwrap();
    let wait = std::time::Duration::from_millis(300);
    let mut log = AuditLog::new(&dir, "t", AuditOptions { lock_wait: wait, ..AuditOptions::default() });
    let start = std::time::Instant::now();
    let err = log.record(&ev("allow_sandbox")).unwrap_err();
    assert!(matches!(err, AuditError::LockTimeout { .. }), "{err}");
    assert!(start.elapsed() >= wait, "it waited");
    let mut mandatory =
        AuditLog::new(&dir, "t", AuditOptions { lock_wait: wait, mandatory: true, ..AuditOptions::default() });
    assert!(matches!(mandatory.admit(&ev("allow_sandbox")), Admission::Refuse(AuditError::LockTimeout { .. })));
    // Released (as the kernel does when the holder dies): lines flow again.
    drop(holder);
    assert_eq!(log.record(&ev("allow_sandbox")).unwrap(), Appended::Written { seq: 2 });
}

#[test]
fn a_new_utc_day_starts_a_new_file_that_chains_to_the_last() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p-1");
    AuditLog::new(&dir, "s", AuditOptions::default()).record(&ev("allow_sandbox")).unwrap();
    // Make the newest file yesterday's: rename it and point the head record at it.
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let name = file.file_name().unwrap().to_str().unwrap().to_string();
    let old = format!("20000101T000000Z{}", &name[16..]);
    std::fs::rename(&file, dir.join(&old)).unwrap();
    let head = std::fs::read_to_string(dir.join("head.json")).unwrap().replace(&name, &old);
    std::fs::write(dir.join("head.json"), head).unwrap();
    let mut log = AuditLog::new(&dir, "s", AuditOptions::default());
    assert_eq!(log.record(&ev("allow_sandbox")).unwrap(), Appended::Written { seq: 2 });
    assert_ne!(log.path().unwrap().file_name().unwrap().to_str().unwrap(), old);
    let report = verify_path(&dir).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!((report.files.len(), report.lines()), (2, 2));
    assert_eq!(mode(&dir.join(&old)), 0o400, "the finished file is sealed");
}

#[test]
fn a_newest_file_ending_in_megabytes_without_a_newline_is_left_alone_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p-1");
    let mut log = AuditLog::new(&dir, "s", AuditOptions::default());
    log.record(&ev("allow_sandbox")).unwrap();
    let file = log.path().unwrap().to_path_buf();
    drop(log);
    // Not a torn line (no line is that long): the writer reads a bounded tail, never cuts it,
    // and goes on in a new file.
    let mut text = std::fs::read(&file).unwrap();
    text.extend(std::iter::repeat_n(b'x', 3 << 20));
    std::fs::write(&file, &text).unwrap();
    let mut next = AuditLog::new(&dir, "t", AuditOptions::default());
    next.record(&ev("deny_rule")).unwrap();
    assert_ne!(next.path().unwrap(), file.as_path());
    assert_eq!(std::fs::metadata(&file).unwrap().len(), text.len() as u64, "nothing cut");
    let report = verify_path(&dir).unwrap();
    assert!(!report.is_ok());
    assert_eq!(report.problems[0].path, file);
}

/// Can another writer take the lock right now (as another process would, with its own open
/// file description)?
fn lock_is_free(dir: &Path) -> bool {
    let f = std::fs::OpenOptions::new().read(true).write(true).open(dir.join("lock")).unwrap();
    rustix::fs::flock(&f, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_ok()
}

#[test]
fn a_burst_keeps_the_lock_until_idle_and_other_writers_continue_the_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p-1");
    let mut burst = AuditLog::new(&dir, "burst", AuditOptions::default());
    burst.hold_in_bursts(true);
    burst.record(&ev("allow_sandbox")).unwrap();
    burst.record(&ev("allow_sandbox")).unwrap();
    assert!(!lock_is_free(&dir), "held between the lines of a burst");
    // Another writer waits (bounded) while the burst holds the lock.
    let wait = std::time::Duration::from_millis(50);
    let mut other = AuditLog::new(&dir, "other", AuditOptions { lock_wait: wait, ..AuditOptions::default() });
    assert!(matches!(other.record(&ev("deny_rule")), Err(AuditError::LockTimeout { .. })));
    burst.idle();
    assert!(lock_is_free(&dir), "idle gives it up");
    assert_eq!(other.record(&ev("deny_rule")).unwrap(), Appended::Written { seq: 3 });
    // The burst goes on after the other writer's line, not from its own cached end.
    assert_eq!(burst.record(&ev("allow_sandbox")).unwrap(), Appended::Written { seq: 4 });
    burst.idle();
    assert_eq!(other.record(&ev("deny_rule")).unwrap(), Appended::Written { seq: 5 });
    let report = verify_path(&dir).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.lines(), 5);
}

/// The hold limit comes from the options, so the test needs no clock: a limit of an hour
/// keeps the lock between lines, a limit of zero gives it up at the first line.
#[test]
fn a_burst_gives_the_lock_up_after_hold_max_and_when_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p-1");
    let long = AuditOptions { hold_max: std::time::Duration::from_secs(3600), ..AuditOptions::default() };
    let mut burst = AuditLog::new(&dir, "burst", long);
    burst.hold_in_bursts(true);
    burst.record(&ev("allow_sandbox")).unwrap();
    assert!(!lock_is_free(&dir), "held between lines of a burst");
    assert_eq!(burst.record(&ev("allow_sandbox")).unwrap(), Appended::Written { seq: 2 });
    assert!(!lock_is_free(&dir));
    drop(burst);
    assert!(lock_is_free(&dir), "given up on drop");
    // Past the limit: the line is written, then the lock is given up.
    let none = AuditOptions { hold_max: std::time::Duration::ZERO, ..AuditOptions::default() };
    let mut burst = AuditLog::new(&dir, "burst", none);
    burst.hold_in_bursts(true);
    assert_eq!(burst.record(&ev("allow_sandbox")).unwrap(), Appended::Written { seq: 3 });
    assert!(lock_is_free(&dir), "given up past hold_max");
    drop(burst);
    // Switching bursts off gives it up too.
    let mut burst = AuditLog::new(&dir, "burst", long);
    burst.hold_in_bursts(true);
    burst.record(&ev("allow_sandbox")).unwrap();
    assert!(!lock_is_free(&dir));
    burst.hold_in_bursts(false);
    assert!(lock_is_free(&dir));
    let report = verify_path(&dir).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.lines(), 4);
}

#[test]
fn bursts_in_parallel_continue_one_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p-1");
    let options = AuditOptions { rotate_bytes: 64 * 1024, ..AuditOptions::default() };
    std::thread::scope(|s| {
        for t in 0..6 {
            let dir = &dir;
            s.spawn(move || {
                let mut log = AuditLog::new(dir, format!("session-{t}"), options);
                log.hold_in_bursts(t % 2 == 0);
                for i in 0..300 {
                    let target = format!("cargo test case_{t}_{i}");
                    log.record(&Event::decision("bash", &target, "allow_sandbox", "sandboxed")).unwrap();
                    if i % 50 == 49 {
                        log.idle();
                    }
                }
            });
        }
    });
    let report = verify_path(&dir).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.lines(), 1800);
}
