//! The detection table, row by row: what verification finds in a changed chain that spans
//! files, with the head record after every line (the default) and only per file, and what it
//! cannot find (documented in docs/audit.md). Cases are data: one row a line.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up

use std::path::{Path, PathBuf};

use wicket_audit::{verify_path, AuditLog, AuditOptions, Event, ProblemKind, Report};

struct Chain {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    dir: PathBuf,
    /// The chain's files, oldest first.
    files: Vec<PathBuf>,
}

/// A project folder with one chain of `n` lines, cut into files of about five lines.
fn chain(n: usize, checkpoint: bool) -> Chain {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("audit");
    let dir = root.join("proj-12345678");
    let options = AuditOptions { checkpoint, rotate_bytes: 2_500, ..AuditOptions::default() };
    // Two writers, as two processes would be, taking turns.
    let mut a = AuditLog::new(&dir, "session-a", options);
    let mut b = AuditLog::new(&dir, "session-b", options);
    for i in 0..n {
        let target = format!("echo {i}");
        let log = if i % 3 == 0 { &mut b } else { &mut a };
        log.record(&Event::decision("bash", &target, "allow_sandbox", "runs in the sandbox")).unwrap();
    }
    let files = chain_files(&dir);
    assert!(files.len() >= 4, "{files:?}");
    Chain { _tmp: tmp, root, dir, files }
}

fn chain_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(str::to_string).collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    let mut text = lines.join("\n");
    if !lines.is_empty() {
        text.push('\n');
    }
    // A sealed (0400) file is still writable by its owner after a chmod; the tests run as
    // root or the owner.
    let _ = std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o600));
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

/// The first problem of a report, as (file, line, kind).
fn first_problem(report: &Report) -> (PathBuf, Option<u64>, ProblemKind) {
    assert!(!report.problems.is_empty(), "not detected");
    let p = &report.problems[0];
    assert_eq!(report.projects.len(), 1);
    assert_eq!(report.projects[0].first_problem.as_ref(), Some(p), "the project's summary names the first break");
    (p.path.clone(), p.line, p.kind.clone())
}

/// Where a tamper is found: which file (index into the chain's files, or the head record),
/// which line of it, and what kind.
#[derive(Debug)]
enum At {
    File(usize, Option<u64>),
    Head,
}

type Tamper = fn(&Chain);
type Expect = fn(&ProblemKind) -> bool;

fn middle(c: &Chain) -> usize {
    c.files.len() / 2
}

fn last(c: &Chain) -> usize {
    c.files.len() - 1
}

fn edit_line(c: &Chain) {
    let f = &c.files[middle(c)];
    let mut l = lines(f);
    l[1] = l[1].replace("echo", "ECHO");
    write_lines(f, &l)
}

fn edit_and_rehash_line(c: &Chain) {
    let f = &c.files[middle(c)];
    let mut l = lines(f);
    l[1] = rehash(&l[1].replace("echo", "ECHO"));
    write_lines(f, &l)
}

fn remove_line(c: &Chain, at: fn(usize) -> usize) {
    let f = &c.files[middle(c)];
    let mut l = lines(f);
    let i = at(l.len());
    l.remove(i);
    write_lines(f, &l)
}

fn insert_copy(c: &Chain) {
    let f = &c.files[middle(c)];
    let mut l = lines(f);
    let x = l[1].clone();
    l.insert(2, x);
    write_lines(f, &l)
}

fn cut_newest(c: &Chain) {
    let f = &c.files[last(c)];
    let l = lines(f);
    write_lines(f, &l[..l.len() - 1])
}

fn cut_newest_mid_line(c: &Chain) {
    let f = &c.files[last(c)];
    let t = std::fs::read(f).unwrap();
    std::fs::write(f, &t[..t.len() - 40]).unwrap()
}

fn rehash_last_line(c: &Chain) {
    let f = &c.files[last(c)];
    let mut l = lines(f);
    let n = l.len() - 1;
    l[n] = rehash(&l[n].replace("echo", "ECHO"));
    write_lines(f, &l)
}

fn swap_names(c: &Chain) {
    let (a, b) = (&c.files[1], &c.files[2]);
    let tmp = c.dir.join("x.tmp");
    std::fs::rename(a, &tmp).unwrap();
    std::fs::rename(b, a).unwrap();
    std::fs::rename(&tmp, b).unwrap()
}

fn swap_contents(c: &Chain) {
    let (a, b) = (lines(&c.files[1]), lines(&c.files[2]));
    write_lines(&c.files[1], &b);
    write_lines(&c.files[2], &a)
}

type Where = fn(&Chain) -> At;
type Row = (&'static str, Tamper, Where, Expect);

/// The table: (name, tamper, where found, what found), with the head record after every line.
#[rustfmt::skip]
fn table() -> Vec<Row> {
    use ProblemKind as K;
    vec![
        ("edit a line", edit_line, |c| At::File(middle(c), Some(2)), |k| *k == K::Changed),
        ("edit a line and re-hash it", edit_and_rehash_line, |c| At::File(middle(c), Some(3)), |k| *k == K::BrokenLink),
        ("delete one line in a file", |c| remove_line(c, |_| 1), |c| At::File(middle(c), Some(2)), |k| matches!(k, K::WrongSeq { .. })),
        ("delete the first line of a file", |c| remove_line(c, |_| 0), |c| At::File(middle(c), Some(1)), |k| matches!(k, K::Renamed { .. })),
        ("delete the last line of a middle file", |c| remove_line(c, |n| n - 1), |c| At::File(middle(c) + 1, Some(1)), |k| matches!(k, K::Gap { .. })),
        ("insert a copied line", insert_copy, |c| At::File(middle(c), Some(3)), |k| matches!(k, K::WrongSeq { .. })),
        ("delete a middle file", |c| std::fs::remove_file(&c.files[middle(c)]).unwrap(), |c| At::File(middle(c) + 1, Some(1)), |k| matches!(k, K::Gap { .. })),
        ("delete the first file", |c| std::fs::remove_file(&c.files[0]).unwrap(), |_| At::File(1, Some(1)), |k| matches!(k, K::ChainStart { .. })),
        ("delete the newest file", |c| std::fs::remove_file(&c.files[last(c)]).unwrap(), |c| At::File(last(c), None), |k| matches!(k, K::Deleted { .. })),
        ("cut lines from the newest file", cut_newest, |c| At::File(last(c), None), |k| matches!(k, K::HeadCut { .. })),
        ("cut the newest file mid-line", cut_newest_mid_line, |c| At::File(last(c), Some(lines(&c.files[last(c)]).len() as u64)), |k| *k == K::TornLastLine),
        ("re-hash the chain's last line", rehash_last_line, |c| At::File(last(c), None), |k| matches!(k, K::NotCheckpointed { .. })),
        ("swap two files", swap_names, |_| At::File(1, Some(1)), |k| matches!(k, K::Renamed { .. })),
        ("swap the contents of two files", swap_contents, |_| At::File(1, Some(1)), |k| matches!(k, K::Renamed { .. })),
        ("delete the head record", |c| std::fs::remove_file(c.dir.join("head.json")).unwrap(), |_| At::Head, |k| *k == K::HeadMissing),
        ("break the head record", |c| std::fs::write(c.dir.join("head.json"), "{").unwrap(), |_| At::Head, |k| matches!(k, K::BrokenCheckpoint(_))),
    ]
}

#[test]
fn an_intact_chain_across_files_verifies() {
    for checkpoint in [true, false] {
        let c = chain(30, checkpoint);
        let report = verify_path(&c.root).unwrap();
        assert!(report.is_ok(), "{:?}", report.problems);
        assert_eq!(report.lines(), 30);
        assert_eq!(report.files.len(), c.files.len());
        assert_eq!(report.without_checkpoint().count(), 0, "chain files are anchored by the head");
        let p = &report.projects[0];
        assert_eq!((p.lines, p.files, p.problems), (30, c.files.len(), 0));
        assert!(p.first_time.is_some() && p.first_time <= p.last_time);
        // Every file's first line follows the last line of the one before.
        let mut seq = 0;
        for f in &c.files {
            for l in lines(f) {
                let v: serde_json::Value = serde_json::from_str(&l).unwrap();
                seq += 1;
                assert_eq!(v["seq"], seq);
                assert_eq!(v["v"], 2);
                assert_eq!(v["pid"], std::process::id());
            }
        }
    }
}

#[test]
fn every_tamper_in_the_table_is_detected_and_named() {
    for (name, tamper, at, expect) in table() {
        let c = chain(30, true);
        tamper(&c);
        let report = verify_path(&c.root).unwrap();
        let (file, line, kind) = first_problem(&report);
        let (want_file, want_line) = match at(&c) {
            At::File(i, l) => (c.files[i].clone(), l),
            At::Head => (c.dir.join("head.json"), None),
        };
        assert_eq!((&file, line), (&want_file, want_line), "{name}: {kind:?} {:#?}", report.problems);
        assert!(expect(&kind), "{name}: {kind:?}");
        // The message names the file (and line) for the person.
        let text = report.problems[0].to_string();
        assert!(text.contains(&file.display().to_string()), "{name}: {text}");
        // A single file given alone is verified on its own too.
        if let Some(f) = c.files.iter().find(|f| f.exists()) {
            verify_path(f).unwrap();
        }
    }
}

#[test]
fn with_the_head_written_per_file_only_a_cut_end_is_the_limit() {
    // Deleting any file, or any line before the end, is found without the per-line head.
    for (name, tamper, _, _) in table() {
        let c = chain(30, false);
        tamper(&c);
        let report = verify_path(&c.root).unwrap();
        let limit = matches!(name, "cut lines from the newest file" | "re-hash the chain's last line");
        assert_eq!(report.is_ok(), limit, "{name}: {:#?}", report.problems);
    }
}

#[test]
fn the_chain_and_its_head_rewritten_together_are_not_detected() {
    // Cut the newest file and rewrite the head for its new last line: a consistent forgery.
    let c = chain(30, true);
    let f = &c.files[last(&c)];
    let l = lines(f);
    write_lines(f, &l[..l.len() - 1]);
    let v: serde_json::Value = serde_json::from_str(&l[l.len() - 2]).unwrap();
    let name = f.file_name().unwrap().to_str().unwrap();
    std::fs::write(
        c.dir.join("head.json"),
        format!(r#"{{"v":1,"file":"{name}","seq":{},"hash":{}}}"#, v["seq"], v["hash"]),
    )
    .unwrap();
    assert!(verify_path(&c.root).unwrap().is_ok(), "the documented limit: tamper-evident, not tamper-proof");
}

#[test]
fn a_writer_after_a_deleted_newest_file_keeps_the_break_visible() {
    for checkpoint in [true, false] {
        let c = chain(30, checkpoint);
        std::fs::remove_file(&c.files[last(&c)]).unwrap();
        let mut log = AuditLog::new(&c.dir, "later", AuditOptions { checkpoint, ..AuditOptions::default() });
        log.record(&Event::decision("bash", "ls", "allow_sandbox", "sandboxed")).unwrap();
        let report = verify_path(&c.root).unwrap();
        assert!(!report.is_ok(), "checkpoint {checkpoint}: the next writer must not hide the deletion");
        let text: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
        let missing = c.files[last(&c)].file_name().unwrap().to_str().unwrap().to_string();
        assert!(text.iter().any(|t| t.contains(&missing)), "{text:#?}");
    }
}

#[test]
fn a_writer_after_a_cut_newest_file_keeps_the_break_visible() {
    let c = chain(30, true);
    let f = &c.files[last(&c)];
    let l = lines(f);
    write_lines(f, &l[..l.len() - 2]);
    let mut log = AuditLog::new(&c.dir, "later", AuditOptions::default());
    log.record(&Event::decision("bash", "ls", "allow_sandbox", "sandboxed")).unwrap();
    let report = verify_path(&c.root).unwrap();
    // The writer went on from the head record (line 30), so the missing lines 29 and 30
    // stay a gap, and its first line says what it found.
    let (file, line, kind) = first_problem(&report);
    assert_eq!(
        (file, line, kind),
        (f.clone(), Some(l.len() as u64 - 1), ProblemKind::WrongSeq { expected: 29, found: 31 })
    );
    let text = std::fs::read_to_string(f).unwrap();
    assert!(text.contains("\"kind\":\"tail_mismatch\""), "{text}");
}

#[test]
fn a_writer_after_a_deleted_head_record_keeps_the_removal_visible() {
    let c = chain(30, true);
    std::fs::remove_file(c.dir.join("head.json")).unwrap();
    let mut log = AuditLog::new(&c.dir, "later", AuditOptions::default());
    log.record(&Event::decision("bash", "ls", "allow_sandbox", "sandboxed")).unwrap();
    assert!(c.dir.join("head.json").exists(), "written again");
    let report = verify_path(&c.root).unwrap();
    let (_, line, kind) = first_problem(&report);
    assert_eq!(line, Some(lines(&c.files[last(&c)]).len() as u64 - 1));
    assert!(matches!(&kind, ProblemKind::Recorded { kind, .. } if kind == "missing_head"), "{kind:?}");
    assert_eq!(report.lines(), 32, "the chain itself is whole");
}

#[test]
fn old_per_process_logs_still_verify_beside_the_chain() {
    let c = chain(30, true);
    // A v1 file as the old writer made it: its own chain from seq 1, prev genesis.
    let old = c.dir.join("20250101T000000Z-4242-0123456789abcdef.jsonl");
    let mut prev = "0".repeat(64);
    let mut text = String::new();
    for seq in 1..=3 {
        let body = format!(
            r#"{{"v":1,"id":"0123456789abcdef-{seq}","time":"2025-01-01T00:00:00.000Z","session":"s","tool":"bash","target":"ls","kind":"allow_sandbox","risk":"low","reason":"r","rule":null,"duration_ms":null,"exit_code":null,"seq":{seq},"prev":"{prev}"}}"#
        );
        let line = rehash(&format!("{},\"hash\":\"{}\"}}", &body[..body.len() - 1], "0".repeat(64)));
        prev = serde_json::from_str::<serde_json::Value>(&line).unwrap()["hash"].as_str().unwrap().to_string();
        text.push_str(&line);
        text.push('\n');
    }
    std::fs::write(&old, &text).unwrap();
    let report = verify_path(&c.root).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.lines(), 33);
    assert_eq!(report.projects[0].first_time.as_deref(), Some("2025-01-01T00:00:00.000Z"));
    assert_eq!(report.without_checkpoint().collect::<Vec<_>>(), vec![old.as_path()]);
    // Its own tamper detection still works.
    std::fs::write(&old, text.replacen("\"target\":\"ls\"", "\"target\":\"rm\"", 1)).unwrap();
    let report = verify_path(&c.root).unwrap();
    assert_eq!((report.problems[0].path.clone(), report.problems[0].line), (old, Some(1)));
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
