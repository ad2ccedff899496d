//! The detection table, row by row: what verification finds in a changed log, with and
//! without the checkpoint, and what it cannot find (documented in docs/audit.md).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up

use std::path::{Path, PathBuf};

use wicket_audit::{verify_path, AuditLog, AuditOptions, Event, ProblemKind, Report};

struct Log {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    file: PathBuf,
}

/// A project folder with one log of `n` lines.
fn log(n: usize, checkpoint: bool) -> Log {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("audit");
    let dir = root.join("proj-12345678");
    let mut log = AuditLog::new(&dir, "session", AuditOptions { checkpoint, ..AuditOptions::default() });
    for i in 0..n {
        let target = format!("echo {i}");
        log.record(&Event::decision("bash", &target, "allow_sandbox", "runs in the sandbox")).unwrap();
    }
    let file = log.path().unwrap().to_path_buf();
    Log { _tmp: tmp, root, file }
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(str::to_string).collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(path, text).unwrap();
}

/// Re-hash a line after editing it, as a forger who knows the format would.
fn rehash(line: &str) -> String {
    use sha2::Digest;
    let body_end = line.find(",\"hash\":\"").unwrap();
    let body = format!("{}}}", &line[..body_end]);
    let hash = sha2::Sha256::digest(body.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("{},\"hash\":\"{hex}\"}}", &line[..body_end])
}

/// The one problem of a report, as (file, line, kind).
fn only_problem(report: &Report) -> (PathBuf, Option<u64>, ProblemKind) {
    assert_eq!(report.problems.len(), 1, "{:#?}", report.problems);
    let p = &report.problems[0];
    (p.path.clone(), p.line, p.kind.clone())
}

#[test]
fn an_intact_log_verifies() {
    for checkpoint in [false, true] {
        let l = log(10, checkpoint);
        let report = verify_path(&l.root).unwrap();
        assert!(report.is_ok(), "{:?}", report.problems);
        assert_eq!(report.lines(), 10);
        assert_eq!(report.without_checkpoint().count(), usize::from(!checkpoint));
        // A file alone verifies with its checkpoint too.
        assert!(verify_path(&l.file).unwrap().is_ok());
    }
}

#[test]
fn row_1_a_changed_line_is_detected_with_and_without_checkpoint() {
    for checkpoint in [false, true] {
        let l = log(10, checkpoint);
        let mut ls = lines(&l.file);
        ls[3] = ls[3].replace("echo 3", "echo 4");
        write_lines(&l.file, &ls);
        let report = verify_path(&l.root).unwrap();
        assert_eq!(only_problem(&report), (l.file.clone(), Some(4), ProblemKind::Changed));
        assert!(report.problems[0].to_string().contains(&format!("{}:4: changed", l.file.display())));
    }
}

#[test]
fn row_1_a_changed_and_rehashed_line_breaks_the_next_link() {
    for checkpoint in [false, true] {
        let l = log(10, checkpoint);
        let mut ls = lines(&l.file);
        ls[3] = rehash(&ls[3].replace("echo 3", "echo 4"));
        write_lines(&l.file, &ls);
        assert_eq!(only_problem(&verify_path(&l.root).unwrap()), (l.file.clone(), Some(5), ProblemKind::BrokenLink));
    }
}

#[test]
fn row_1_a_forged_last_line_is_detected_only_with_checkpoint() {
    let l = log(10, true);
    let mut ls = lines(&l.file);
    ls[9] = rehash(&ls[9].replace("echo 9", "echo X"));
    write_lines(&l.file, &ls);
    assert_eq!(
        only_problem(&verify_path(&l.root).unwrap()),
        (l.file.clone(), Some(10), ProblemKind::NotCheckpointed { seq: 10 })
    );
    // Without the anchor, a re-hashed last line is a valid chain: a documented limit.
    let l = log(10, false);
    let mut ls = lines(&l.file);
    ls[9] = rehash(&ls[9].replace("echo 9", "echo X"));
    write_lines(&l.file, &ls);
    assert!(verify_path(&l.root).unwrap().is_ok());
}

#[test]
fn row_2_an_inserted_line_is_detected_with_and_without_checkpoint() {
    for checkpoint in [false, true] {
        let l = log(10, checkpoint);
        let mut ls = lines(&l.file);
        let copy = ls[4].clone();
        ls.insert(5, copy);
        write_lines(&l.file, &ls);
        assert_eq!(
            only_problem(&verify_path(&l.root).unwrap()),
            (l.file.clone(), Some(6), ProblemKind::WrongSeq { expected: 6, found: 5 })
        );
    }
}

#[test]
fn row_2_a_removed_line_is_detected_with_and_without_checkpoint() {
    for checkpoint in [false, true] {
        let l = log(10, checkpoint);
        let mut ls = lines(&l.file);
        ls.remove(2);
        write_lines(&l.file, &ls);
        assert_eq!(
            only_problem(&verify_path(&l.root).unwrap()),
            (l.file.clone(), Some(3), ProblemKind::WrongSeq { expected: 3, found: 4 })
        );
    }
}

#[test]
fn row_3_lines_cut_from_the_end_are_detected_only_with_checkpoint() {
    let l = log(10, false);
    let ls = lines(&l.file);
    write_lines(&l.file, &ls[..7]);
    let report = verify_path(&l.root).unwrap();
    assert!(report.is_ok(), "without a checkpoint a cut tail is a shorter valid log: {:?}", report.problems);
    assert_eq!(report.without_checkpoint().count(), 1, "and verify names the file without a checkpoint");

    let l = log(10, true);
    let ls = lines(&l.file);
    write_lines(&l.file, &ls[..7]);
    assert_eq!(
        only_problem(&verify_path(&l.root).unwrap()),
        (l.file.clone(), None, ProblemKind::CutTail { checkpoint: 10, lines: 7 })
    );
}

#[test]
fn row_4_a_deleted_file_is_detected_only_with_checkpoint() {
    let l = log(5, false);
    std::fs::remove_file(&l.file).unwrap();
    assert!(verify_path(&l.root).unwrap().is_ok());

    let l = log(5, true);
    std::fs::remove_file(&l.file).unwrap();
    assert_eq!(only_problem(&verify_path(&l.root).unwrap()), (l.file.clone(), None, ProblemKind::Deleted { seq: 5 }));
}

#[test]
fn row_5_file_and_checkpoint_rewritten_or_deleted_together_are_not_detected() {
    // Cut the file and write a checkpoint for its new last line: a consistent forgery.
    let l = log(10, true);
    let ls = lines(&l.file);
    write_lines(&l.file, &ls[..6]);
    let last: serde_json::Value = serde_json::from_str(&ls[5]).unwrap();
    let cp = wicket_audit::checkpoint_path(&l.file).unwrap();
    let name = l.file.file_name().unwrap().to_str().unwrap();
    std::fs::write(&cp, format!(r#"{{"v":1,"file":"{name}","seq":6,"hash":{}}}"#, last["hash"])).unwrap();
    assert!(verify_path(&l.root).unwrap().is_ok(), "the documented limit: tamper-evident, not tamper-proof");

    let l = log(10, true);
    std::fs::remove_file(wicket_audit::checkpoint_path(&l.file).unwrap()).unwrap();
    std::fs::remove_file(&l.file).unwrap();
    assert!(verify_path(&l.root).unwrap().is_ok());
}

#[test]
fn a_torn_last_line_is_named_and_nothing_else() {
    for checkpoint in [false, true] {
        let l = log(10, checkpoint);
        let text = std::fs::read(&l.file).unwrap();
        // Cut the last line in its middle, as a crash during its write would.
        let cut = text.len() - 100;
        std::fs::write(&l.file, &text[..cut]).unwrap();
        let report = verify_path(&l.root).unwrap();
        let (file, line, kind) = only_problem(&report);
        assert_eq!((file, line, kind), (l.file.clone(), Some(10), ProblemKind::TornLastLine));
        assert_eq!(report.lines(), 9);
    }
}

#[test]
fn a_broken_checkpoint_is_reported_and_a_missing_one_is_not() {
    let l = log(3, true);
    let cp = wicket_audit::checkpoint_path(&l.file).unwrap();
    std::fs::write(&cp, "not json").unwrap();
    let (file, _, kind) = only_problem(&verify_path(&l.root).unwrap());
    assert_eq!(file, l.file);
    assert!(matches!(kind, ProblemKind::BrokenCheckpoint(_)), "{kind:?}");
    std::fs::remove_file(&cp).unwrap();
    let report = verify_path(&l.root).unwrap();
    assert!(report.is_ok());
    assert_eq!(report.without_checkpoint().collect::<Vec<_>>(), vec![l.file.as_path()]);
}

#[test]
fn a_non_canonical_line_is_not_accepted_even_with_a_matching_hash() {
    let l = log(3, false);
    let mut ls = lines(&l.file);
    ls[1] = rehash(&ls[1].replacen("\"tool\":\"bash\"", "\"tool\":\"b\\u0061sh\"", 1));
    write_lines(&l.file, &ls);
    let (_, line, kind) = only_problem(&verify_path(&l.root).unwrap());
    assert_eq!(line, Some(2));
    assert!(matches!(kind, ProblemKind::NotALine(_)), "{kind:?}");
}

#[test]
fn a_path_that_is_not_a_log_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    assert!(verify_path(&tmp.path().join("missing")).is_err());
    let other = tmp.path().join("notes.txt");
    std::fs::write(&other, "x").unwrap();
    assert!(verify_path(&other).is_err());
    assert!(verify_path(tmp.path()).unwrap().is_ok(), "an empty folder has nothing wrong");
}
