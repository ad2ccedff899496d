//! The head record keeps the newest file's length after the chain's last line, so the next
//! writer (each hook process is one) continues the chain from the head without reading the
//! file's end back when the file is exactly that long, and reads and checks the end in every
//! other case. Cases are data: one row a line, each a change made to the chain's end between
//! two writers, with what the next writer must write and what verify must then find.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up

use std::path::{Path, PathBuf};

use wicket_audit::{verify_path, AuditLog, AuditOptions, Event, ProblemKind};

struct End {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    file: PathBuf,
}

/// A chain of five lines in one file, written by separate writers as hook processes are.
fn end() -> End {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("proj-12345678");
    let mut file = PathBuf::new();
    for i in 0..5 {
        let mut log = AuditLog::new(&dir, "s", AuditOptions::default());
        log.record(&Event::decision("bash", &format!("echo {i}"), "allow_sandbox", "sandboxed")).unwrap();
        file = log.path().unwrap().to_path_buf();
    }
    End { _tmp: tmp, dir, file }
}

fn text(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

fn head(e: &End) -> String {
    text(&e.dir.join("head.json"))
}

fn set_head(e: &End, body: &str) {
    std::fs::write(e.dir.join("head.json"), body).unwrap();
}

fn set_file(e: &End, body: &str) {
    std::fs::write(&e.file, body).unwrap();
}

/// One more line through a fresh writer, as the next hook process writes it.
fn next_line(e: &End) -> u64 {
    let mut log = AuditLog::new(&e.dir, "later", AuditOptions::default());
    match log.record(&Event::decision("bash", "ls", "allow_sandbox", "sandboxed")).unwrap() {
        wicket_audit::Appended::Written { seq } => seq,
        other => panic!("{other:?}"),
    }
}

/// A changed character in the target of the file's last line: same length, hash now wrong.
fn rewrite_last_keeping_length(e: &End) {
    let t = text(&e.file);
    let at = t.rfind("echo 4").unwrap();
    set_file(e, &format!("{}echo 9{}", &t[..at], &t[at + 6..]));
}

/// The head record as an older writer wrote it: no `len`.
fn head_without_len(e: &End) {
    let h = head(e);
    let at = h.find(",\"len\":").unwrap();
    let close = h[at..].find('}').unwrap() + at;
    set_head(e, &format!("{}{}", &h[..at], &h[close..]));
}

/// A writer killed between its line and its head update: a sixth line, the head left at five.
fn line_behind_the_heads_back(e: &End) {
    let h = head(e);
    next_line(e);
    set_head(e, &h);
}

/// The head's length one byte more than the file's, the file's end untouched.
fn head_len_longer(e: &End) {
    let len = std::fs::metadata(&e.file).unwrap().len();
    set_head(e, &head(e).replace(&format!("\"len\":{len}"), &format!("\"len\":{}", len + 1)));
}

fn cut_last_line(e: &End) {
    let t = text(&e.file);
    let cut = t[..t.len() - 1].rfind('\n').unwrap() + 1;
    set_file(e, &t[..cut]);
}

/// What verify finds after the next writer's line.
#[derive(Debug, PartialEq)]
enum Found {
    /// A whole chain of this many lines.
    Whole(u64),
    /// The line at (1-based) `line` of the file has a wrong hash: it was changed.
    Changed(u64),
    /// Lines are missing: the first line after the gap has this seq, not the expected one.
    Gap { expected: u64, found: u64 },
}

type Change = fn(&End);

/// (name, change between two writers, seq of the next writer's line, did that writer record
/// `tail_mismatch` first, what verify finds).
#[rustfmt::skip]
fn table() -> Vec<(&'static str, Change, u64, bool, Found)> {
    vec![
        ("nothing changed: the head is trusted", |_| {}, 6, false, Found::Whole(6)),
        ("the last line rewritten, length kept: verify finds it", rewrite_last_keeping_length, 6, false, Found::Changed(5)),
        ("a head without len (an older writer): the end is read", head_without_len, 6, false, Found::Whole(6)),
        ("a line the head does not know yet: the end is read", line_behind_the_heads_back, 7, false, Found::Whole(7)),
        ("the head's len not the file's, the end intact: read and found whole", head_len_longer, 6, false, Found::Whole(6)),
        ("the last line cut: the end is read, the cut recorded", cut_last_line, 7, true, Found::Gap { expected: 5, found: 6 }),
    ]
}

#[test]
fn the_next_writer_trusts_the_head_only_when_the_file_has_its_length() {
    for (name, change, want_seq, want_finding, want) in table() {
        let e = end();
        assert!(head(&e).contains(&format!("\"len\":{}", std::fs::metadata(&e.file).unwrap().len())), "{name}");
        change(&e);
        assert_eq!(next_line(&e), want_seq, "{name}");
        assert_eq!(text(&e.file).contains("\"kind\":\"tail_mismatch\""), want_finding, "{name}");
        let report = verify_path(&e.dir).unwrap();
        let found = match report.problems.first() {
            None => Found::Whole(report.lines()),
            Some(p) => match &p.kind {
                ProblemKind::Changed => Found::Changed(p.line.unwrap()),
                ProblemKind::WrongSeq { expected, found } => Found::Gap { expected: *expected, found: *found },
                other => panic!("{name}: {other:?} {:#?}", report.problems),
            },
        };
        assert_eq!(found, want, "{name}: {:#?}", report.problems);
        // The new head again records the file's whole length.
        let len = std::fs::metadata(&e.file).unwrap().len();
        assert!(head(&e).contains(&format!("\"len\":{len}")), "{name}: {}", head(&e));
    }
}

#[test]
fn a_line_after_a_same_length_rewrite_chains_to_the_heads_line_not_the_rewritten_one() {
    let e = end();
    let before: serde_json::Value = serde_json::from_str(text(&e.file).lines().last().unwrap()).unwrap();
    rewrite_last_keeping_length(&e);
    next_line(&e);
    let t = text(&e.file);
    let new: serde_json::Value = serde_json::from_str(t.lines().last().unwrap()).unwrap();
    assert_eq!(new["prev"], before["hash"], "the chain goes on from the line the head recorded");
}

#[test]
fn the_head_record_keeps_one_length_for_a_file() {
    let e = end();
    let first = head(&e).len();
    for _ in 0..20 {
        next_line(&e);
        assert_eq!(head(&e).len(), first, "overwritten in place, never resized");
    }
}
