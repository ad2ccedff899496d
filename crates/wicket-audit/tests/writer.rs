//! The writer: file modes, re-created folders, failures (notice once, or refuse), checkpoint
//! failures that never repeat a seq, the level filter, and a file-size limit mid-line.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use wicket_audit::{
    verify_path, Admission, AuditError, AuditLog, AuditOptions, Durability, Event, Level, Recorded, Redactor,
};

fn ev(kind: &str) -> Event<'_> {
    Event::decision("bash", "npm test", kind, "reason")
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn folders_are_0700_files_and_checkpoints_0600() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("audit");
    let dir = root.join("p-1");
    let mut log = AuditLog::new(&dir, "s", AuditOptions { checkpoint: true, ..AuditOptions::default() });
    assert!(log.path().is_none() && !root.exists(), "nothing is created before the first line");
    assert_eq!(log.record(&ev("allow_sandbox")).unwrap(), Recorded::Written { seq: 1 });
    let file = log.path().unwrap().to_path_buf();
    assert_eq!((mode(&root), mode(&dir), mode(&file)), (0o700, 0o700, 0o600));
    let cp = wicket_audit::checkpoint_path(&file).unwrap();
    assert_eq!((mode(cp.parent().unwrap()), mode(&cp)), (0o700, 0o600));
    let name = file.file_name().unwrap().to_str().unwrap();
    let parts: Vec<&str> = name.trim_end_matches(".jsonl").split('-').collect();
    assert_eq!(parts.len(), 3, "<stamp>-<pid>-<random>: {name}");
    assert_eq!(parts[1], std::process::id().to_string());
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
        // The open file has no name any more: the line goes to a new file, a new chain.
        assert_eq!(log.record(&ev("deny_rule")).unwrap(), Recorded::Written { seq: 1 });
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
fn a_failed_checkpoint_never_repeats_a_seq_and_the_next_one_catches_up() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p-1");
    let mut log =
        AuditLog::new(&dir, "s", AuditOptions { checkpoint: true, mandatory: true, ..AuditOptions::default() });
    log.record(&ev("allow_sandbox")).unwrap();
    let file = log.path().unwrap().to_path_buf();
    // Replace the checkpoint folder by a file: the next checkpoint cannot be written.
    let cp_dir = dir.join("checkpoints");
    std::fs::remove_dir_all(&cp_dir).unwrap();
    std::fs::write(&cp_dir, "").unwrap();
    let err = log.record(&ev("allow_sandbox")).unwrap_err();
    assert!(matches!(err, AuditError::Checkpoint { .. }) && err.line_written(), "{err}");
    match log.admit(&ev("allow_sandbox")) {
        Admission::Refuse(e) => {
            assert!(e.refusal().contains("was written, but its checkpoint could not be written"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    std::fs::remove_file(&cp_dir).unwrap();
    assert_eq!(log.record(&ev("allow_sandbox")).unwrap(), Recorded::Written { seq: 4 });
    let report = verify_path(&dir).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.files[0].checkpoint, Some(4));
    assert_eq!(report.files[0].path, file);
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
            events.iter().map(|e| matches!(log.record(e).unwrap(), Recorded::Written { .. })).collect();
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
