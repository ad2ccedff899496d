//! End-to-end tests of the audit log through the real `wicket` binary: `check` records every
//! decision, `audit verify` and `audit show`, 200 `check` processes and two agent sessions'
//! hook calls continuing one chain, the detection table across processes, writers killed
//! mid-burst, a stale lock from a killed process, a lock held by a stopped one, and a
//! mandatory audit on a full disk.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

struct Env {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("proj");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(home.join(".wicket")).unwrap();
        Env { _tmp: tmp, root, home }
    }

    fn wicket_home(&self) -> PathBuf {
        self.home.join(".wicket")
    }

    fn audit(&self) -> PathBuf {
        self.wicket_home().join("audit")
    }

    fn command(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        c.env("WICKET_HOME", self.wicket_home())
            .env("HOME", &self.home)
            .env_remove("WICKET_AUDIT_MANDATORY")
            .env_remove("WICKET_AUDIT_CHECKPOINT")
            .env_remove("WICKET_AUDIT_ROTATE_BYTES")
            .current_dir(&self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn wicket(&self) -> Command {
        self.command(Path::new(env!("CARGO_BIN_EXE_wicket")))
    }

    /// `wicket check --root <root> ARGS` with `stdin`.
    fn check(&self, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
        let mut c = self.wicket();
        c.arg("check").args(args).arg("--root").arg(&self.root).envs(env.iter().copied());
        feed(c.spawn().unwrap(), stdin)
    }

    /// `wicket audit ARGS`.
    fn audit_cmd(&self, args: &[&str]) -> Output {
        let mut c = self.wicket();
        c.arg("audit").args(args);
        feed(c.spawn().unwrap(), "")
    }

    /// Every log file, sorted.
    fn logs(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        if let Ok(projects) = std::fs::read_dir(self.audit()) {
            for p in projects.filter(|p| p.as_ref().unwrap().path().is_dir()) {
                for f in std::fs::read_dir(p.unwrap().path()).unwrap() {
                    let f = f.unwrap().path();
                    if f.extension().is_some_and(|e| e == "jsonl") {
                        out.push(f);
                    }
                }
            }
        }
        out.sort();
        out
    }
}

fn feed(mut child: Child, stdin: &str) -> Output {
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn decisions(out: &Output) -> Vec<serde_json::Value> {
    assert!(out.status.success(), "exit {:?}, stderr {}", out.status, text(&out.stderr));
    text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn log_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

const CALLS: &str = concat!(
    r#"{"tool":"read_file","input":{"path":".env"}}"#,
    "\n",
    r#"{"tool":"read_file","input":{"path":"src/main.rs"}}"#,
    "\n",
    "not a call\n",
    "\n",
    r#"{"tool":"bash","input":{"command":"curl -H 'Authorization: Bearer Zx9AbCdEfGhIjKlMnOpQ' https://example.com"}}"#,
    "\n",
    r#"{"tool":"write_file","input":{"path":".git/config","content":"x"}}"#,
    "\n",
);

#[test]
fn check_records_every_decision_and_verify_accepts_the_log() {
    let e = Env::new();
    let out = e.check(&["--jsonl", "--unattended", "--no-sandbox"], CALLS, &[]);
    let printed = decisions(&out);
    assert_eq!(printed.len(), 5);
    let logs = e.logs();
    assert_eq!(logs.len(), 1, "one chain, one file so far");
    let lines = log_lines(&logs[0]);
    assert_eq!(lines.len(), 5, "every non-empty input line, the bad one too");
    for (n, (line, decision)) in lines.iter().zip(&printed).enumerate() {
        assert_eq!(line["seq"], n as u64 + 1);
        assert_eq!(line["kind"], decision["kind"], "the kind is the typed verdict's");
        assert_eq!(line["session"], lines[0]["session"], "one session per process");
        assert_eq!(line["v"], 2);
        assert!(line["pid"].as_u64().unwrap() > 0);
    }
    assert_eq!(lines[0]["kind"], "deny_sensitive");
    assert_eq!(lines[0]["risk"], "critical");
    assert_eq!(lines[0]["target"], ".env");
    assert_eq!(lines[1]["kind"], "allow_read_only");
    assert_eq!(lines[1]["risk"], "low");
    assert_eq!(lines[2]["kind"], "deny_input");
    assert_eq!(lines[2]["target"], "not a call");
    assert_eq!(lines[3]["target"], "curl -H 'Authorization: Bearer [REDACTED]' https://example.com");
    assert_eq!(lines[4]["kind"], "deny_protected");

    let out = e.audit_cmd(&["verify"]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("ok: 5 line(s) in 1 file(s) verified"), "{}", text(&out.stdout));

    // A second process continues the same chain, with its own session and pid.
    let out = e.check(&[], r#"{"tool":"read_file","input":{"path":"README.md"}}"#, &[]);
    decisions(&out);
    let logs = e.logs();
    assert_eq!(logs.len(), 1);
    let lines = log_lines(&logs[0]);
    assert_eq!(lines[5]["seq"], 6);
    assert_eq!(lines[5]["prev"], lines[4]["hash"]);
    assert_ne!(lines[5]["session"], lines[0]["session"]);
    assert_ne!(lines[5]["pid"], lines[0]["pid"]);
}

#[test]
fn no_audit_writes_nothing_and_explain_records_nothing() {
    let e = Env::new();
    decisions(&e.check(&["--no-audit"], r#"{"tool":"read_file","input":{"path":".env"}}"#, &[]));
    let mut c = e.wicket();
    c.arg("explain").arg("--root").arg(&e.root);
    let out = feed(c.spawn().unwrap(), r#"{"tool":"read_file","input":{"path":".env"}}"#);
    assert!(out.status.success());
    assert!(!e.audit().exists());
}

#[test]
fn verify_names_the_file_and_line_of_a_tampered_log() {
    let e = Env::new();
    decisions(&e.check(&["--jsonl", "--unattended"], CALLS, &[]));
    let file = e.logs().remove(0);
    let original = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, original.replacen("deny_sensitive", "allow_rule", 1)).unwrap();
    let out = e.audit_cmd(&["verify"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains(&format!("{}:1: changed", file.display())), "{stdout}");
    assert!(stdout.contains("FAILED"), "{stdout}");
    let summary = stdout.lines().next().unwrap();
    assert!(
        summary.starts_with("proj-") && summary.contains(": FAILED at ") && summary.contains(":1: changed"),
        "{stdout}"
    );
    // A file given alone is verified too.
    let out = e.audit_cmd(&["verify", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    // A missing path is a usage error.
    let out = e.audit_cmd(&["verify", e.root.join("nope").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nope"));
}

#[test]
fn a_cut_tail_is_found_by_default() {
    let e = Env::new();
    decisions(&e.check(&["--jsonl", "--unattended"], CALLS, &[]));
    let file = e.logs().remove(0);
    let original = std::fs::read_to_string(&file).unwrap();
    let kept: String = original.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, kept).unwrap();
    let out = e.audit_cmd(&["verify", e.audit().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("lines cut from the end: head.json records line 5, the chain ends at line 3"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn show_filters_and_prints_json_newest_first() {
    let e = Env::new();
    decisions(&e.check(&["--jsonl", "--unattended", "--no-sandbox"], CALLS, &[]));
    let json_lines = |args: &[&str]| -> Vec<serde_json::Value> {
        let mut all = vec!["show", "--json"];
        all.extend_from_slice(args);
        let out = e.audit_cmd(&all);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    };
    let all = json_lines(&[]);
    assert_eq!(all.len(), 5);
    let seqs: Vec<u64> = all.iter().map(|l| l["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, [5, 4, 3, 2, 1], "newest first");
    let kinds =
        |ls: Vec<serde_json::Value>| ls.iter().map(|l| l["kind"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    assert_eq!(kinds(json_lines(&["--decision", "allow"])), ["allow_read_only"]);
    assert_eq!(kinds(json_lines(&["--tool", "read_file"])), ["allow_read_only", "deny_sensitive"]);
    assert_eq!(kinds(json_lines(&["--kind", "deny_protected"])), ["deny_protected"]);
    assert_eq!(kinds(json_lines(&["--risk", "critical"])), ["deny_protected", "deny_sensitive"]);
    assert_eq!(json_lines(&["--limit", "2"]).len(), 2);
    assert_eq!(json_lines(&["--since", "1h"]).len(), 5);
    assert_eq!(json_lines(&["--until", "2000-01-01"]).len(), 0);
    assert_eq!(json_lines(&["--project", "proj-"]).len(), 5);
    assert_eq!(json_lines(&["--project", "other"]).len(), 0);
    assert_eq!(json_lines(&["--root", e.root.to_str().unwrap()]).len(), 5);

    let out = e.audit_cmd(&["show", "--decision", "deny"]);
    let table = text(&out.stdout);
    assert!(table.starts_with("TIME (UTC)"), "{table}");
    assert_eq!(table.lines().count(), 1 + 4, "{table}");
    assert!(table.contains("deny_sensitive") && table.contains("critical") && !table.contains("allow_read_only"));

    let out = e.audit_cmd(&["show", "--since", "yesterday-ish"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not a time"));
}

#[test]
fn show_inside_a_project_shows_that_project_and_all_shows_every_one() {
    let e = Env::new();
    decisions(&e.check(&["--jsonl", "--unattended", "--no-sandbox"], CALLS, &[]));
    let other = e.root.parent().unwrap().join("other");
    std::fs::create_dir_all(other.join(".git")).unwrap();
    std::fs::create_dir_all(other.join("src")).unwrap();
    let mut c = e.wicket();
    c.current_dir(&other).args(["check", "--no-sandbox"]);
    decisions(&feed(c.spawn().unwrap(), r#"{"tool":"read_file","input":{"path":"src/a.rs"}}"#));
    let show = |dir: &Path, args: &[&str]| {
        let mut c = e.wicket();
        c.current_dir(dir).args(["audit", "show", "--json"]).args(args);
        let out = feed(c.spawn().unwrap(), "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        (text(&out.stdout).lines().count(), text(&out.stderr))
    };
    // Inside `other/src` (a project, by its .git): its one line, and stderr says whose log it is.
    let (n, err) = show(&other.join("src"), &[]);
    assert_eq!(n, 1, "{err}");
    assert!(err.contains(&other.display().to_string()) && err.contains("--all"), "{err}");
    assert_eq!(show(&other, &["--all"]).0, 6);
    assert_eq!(show(&other, &["--project", "proj-"]).0, 5, "--project picks among every project");
    // A folder that is no project (no .git or .wicket above it): every project.
    assert_eq!(show(&e.root, &[]).0, 6);
}

#[test]
fn show_escapes_control_characters() {
    let e = Env::new();
    decisions(&e.check(&[], r#"{"tool":"bash","input":{"command":"echo \u001b[31mred"}}"#, &[]));
    let out = e.audit_cmd(&["show"]);
    assert!(!out.stdout.contains(&0x1b), "{}", text(&out.stdout));
}

/// Calls for a burst: mostly reads and writes, each a decision and a line.
fn burst(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        match i % 3 {
            0 => s.push_str(&format!(r#"{{"tool":"read_file","input":{{"path":"src/f{i}.rs"}}}}"#)),
            1 => s.push_str(&format!(r#"{{"tool":"write_file","input":{{"path":"out/f{i}.txt","content":"x"}}}}"#)),
            _ => s.push_str(&format!(r#"{{"tool":"bash","input":{{"command":"cargo test case_{i}"}}}}"#)),
        }
        s.push('\n');
    }
    s
}

#[test]
fn a_writer_killed_mid_burst_leaves_at_most_a_torn_last_line() {
    let e = Env::new();
    let mut c = e.wicket();
    c.arg("check").arg("--jsonl").arg("--unattended").arg("--root").arg(&e.root).stdout(Stdio::null());
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = burst(400_000);
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes()); // fails with EPIPE once the child is killed
    });
    // Wait until the burst is well under way, then SIGKILL.
    let start = Instant::now();
    loop {
        let size: u64 = e.logs().iter().map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0)).sum();
        if size > 1_000_000 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "the burst did not start");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    feeder.join().unwrap();

    let logs = e.logs();
    assert_eq!(logs.len(), 1);
    let report = wicket_audit::verify_path(&e.audit()).unwrap();
    let complete = std::fs::read(&logs[0]).unwrap().iter().filter(|b| **b == b'\n').count() as u64;
    assert!(complete > 1000 && complete < 400_000, "killed mid-burst: {complete} lines");
    assert_eq!(report.lines(), complete, "every complete line verifies");
    // One write(2) per line: the kill lands between lines, or (rarely) inside one, which
    // is then the last line and the only problem.
    match report.problems.as_slice() {
        [] => {}
        [p] => {
            assert_eq!(p.kind, wicket_audit::ProblemKind::TornLastLine);
            assert_eq!(p.line, Some(complete + 1));
            assert_eq!(p.path, logs[0]);
        }
        more => panic!("more than a torn last line: {more:#?}"),
    }
}

/// A Claude Code PreToolUse payload for `session`.
fn claude_payload(root: &Path, session: &str, i: usize) -> String {
    serde_json::json!({
        "session_id": session, "transcript_path": "/t.jsonl", "cwd": root, "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": format!("src/f{i}.rs")},
        "tool_use_id": format!("toolu_{i}")
    })
    .to_string()
}

/// Run `jobs` to completion, at most `width` at a time.
fn run_in_waves(jobs: Vec<Command>, width: usize, stdin: impl Fn(usize) -> String) -> Vec<Output> {
    let mut outs = Vec::new();
    let mut jobs = jobs.into_iter().enumerate().peekable();
    while jobs.peek().is_some() {
        let wave: Vec<(Child, String)> =
            jobs.by_ref().take(width).map(|(i, mut c)| (c.spawn().unwrap(), stdin(i))).collect();
        for (child, input) in wave {
            outs.push(feed(child, &input));
        }
    }
    outs
}

#[test]
fn two_hundred_checks_and_two_agent_sessions_make_one_chain() {
    let e = Env::new();
    let rotate = [("WICKET_AUDIT_ROTATE_BYTES", "20000")];
    let mut jobs = Vec::new();
    for i in 0..260 {
        let mut c = e.wicket();
        c.envs(rotate);
        if i % 13 < 3 {
            // Hook calls of two agent sessions, interleaved with the checks.
            c.args(["hook", "claude"]);
        } else {
            c.arg("check").arg("--root").arg(&e.root);
        }
        jobs.push(c);
    }
    let root = e.root.clone();
    let outs = run_in_waves(jobs, 8, |i| {
        if i % 13 < 3 {
            claude_payload(&root, if i % 2 == 0 { "agent-session-A" } else { "agent-session-B" }, i)
        } else {
            format!(r#"{{"tool":"read_file","input":{{"path":"src/f{i}.rs"}}}}"#)
        }
    });
    for out in &outs {
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let hooks = (0..260).filter(|i| i % 13 < 3).count();
    assert_eq!(260 - hooks, 200);
    let logs = e.logs();
    assert!(logs.len() > 2, "rotated into several files: {logs:?}");
    let out = e.audit_cmd(&["verify"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(stdout.lines().count(), 2, "one line per project, one total: {stdout}");
    assert!(stdout.contains(&format!("ok: 260 line(s) in {} file(s)", logs.len())), "{stdout}");
    // One chain: seq 1..=260 across the files, in order.
    let seqs: Vec<u64> = logs.iter().flat_map(|f| log_lines(f)).map(|l| l["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (1..=260).collect::<Vec<u64>>());
    // The agents' sessions are recorded as theirs.
    let out = e.audit_cmd(&["show", "--summary", "--json"]);
    let rows: Vec<serde_json::Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let calls = |id: &str| rows.iter().find(|r| r["session"] == id).map(|r| r["calls"].as_u64().unwrap());
    let (a, b) = (calls("agent-session-A").unwrap(), calls("agent-session-B").unwrap());
    assert_eq!(a + b, hooks as u64);
    assert_eq!(rows.len(), 2 + 200, "one row per check process and per agent session");
}

/// Tampers with the chain in `audit`, returning what `verify` must name.
type Tamper = fn(&[PathBuf]) -> (PathBuf, &'static str);

fn rewrite(path: &Path, f: impl Fn(Vec<String>) -> Vec<String>) {
    let lines: Vec<String> = std::fs::read_to_string(path).unwrap().lines().map(str::to_string).collect();
    let mut text = f(lines).join("\n");
    text.push('\n');
    // A finished file is sealed (0400); its owner can still make it writable, as a tamperer would.
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    std::fs::write(path, text).unwrap();
}

#[rustfmt::skip]
const TAMPERS: &[(&str, Tamper)] = &[
    ("delete a middle file", |f| { std::fs::remove_file(&f[1]).unwrap(); (f[2].clone(), ":1: lines ") }),
    ("delete one line", |f| { rewrite(&f[1], |mut l| { l.remove(1); l }); (f[1].clone(), ":2: seq is ") }),
    ("cut the newest file", |f| { let n = f.len() - 1; rewrite(&f[n], |l| l[..l.len() - 1].to_vec()); (f[n].clone(), ": lines cut from the end: head.json records") }),
    ("edit a line", |f| { rewrite(&f[1], |mut l| { l[1] = l[1].replace("src/f", "src/g"); l }); (f[1].clone(), ":2: changed") }),
    ("swap two files", |f| { let t = f[0].with_extension("tmp"); std::fs::rename(&f[0], &t).unwrap(); std::fs::rename(&f[1], &f[0]).unwrap(); std::fs::rename(&t, &f[1]).unwrap(); (f[0].clone(), ":1: the file's name says it starts at line 1") }),
];

#[test]
fn the_detection_table_across_processes() {
    for (name, tamper) in TAMPERS {
        let e = Env::new();
        for i in 0..24 {
            let call = format!(r#"{{"tool":"read_file","input":{{"path":"src/f{i}.rs"}}}}"#);
            decisions(&e.check(&[], &call, &[("WICKET_AUDIT_ROTATE_BYTES", "2500")]));
        }
        let logs = e.logs();
        assert!(logs.len() >= 4, "{name}: {logs:?}");
        assert!(e.audit_cmd(&["verify"]).status.success(), "{name}: intact before");
        let (file, what) = tamper(&logs);
        let out = e.audit_cmd(&["verify"]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{name}: {stdout}");
        let named = format!("{}{what}", file.display());
        assert!(stdout.lines().next().unwrap().contains(&named), "{name}: the summary names {named}:\n{stdout}");
    }
}

#[test]
fn writers_killed_mid_burst_leave_a_chain_the_next_writer_repairs() {
    let e = Env::new();
    let input = burst(400_000);
    let mut children: Vec<Child> = (0..4)
        .map(|_| {
            let mut c = e.wicket();
            c.arg("check").arg("--jsonl").arg("--unattended").arg("--root").arg(&e.root).stdout(Stdio::null());
            let mut child = c.spawn().unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let input = input.clone();
            std::thread::spawn(move || {
                let _ = stdin.write_all(input.as_bytes()); // EPIPE once killed
            });
            child
        })
        .collect();
    let start = Instant::now();
    loop {
        let size: u64 = e.logs().iter().map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0)).sum();
        if size > 2_000_000 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "the burst did not start");
        std::thread::sleep(Duration::from_millis(5));
    }
    for child in &mut children {
        child.kill().unwrap(); // SIGKILL, maybe while holding the lock or mid-write
    }
    for mut child in children {
        child.wait().unwrap();
    }
    // At most a torn last line is left; the next writers repair it and go on.
    let report = wicket_audit::verify_path(&e.audit()).unwrap();
    assert!(report.problems.len() <= 1, "{:#?}", report.problems);
    for _ in 0..3 {
        decisions(&e.check(&[], r#"{"tool":"read_file","input":{"path":"README.md"}}"#, &[]));
    }
    let out = e.audit_cmd(&["verify"]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    let report = wicket_audit::verify_path(&e.audit()).unwrap();
    assert!(report.lines() > 1000);
    let torn = report.projects[0].torn_repaired;
    assert_eq!(torn, u64::from(text(&out.stdout).contains("killed writer repaired")), "{}", text(&out.stdout));
}

/// A process that takes the flock on `lock` and holds it until killed (one process, no
/// children, so killing it is the holder's death); returns once it holds the lock.
fn lock_holder(lock: &Path) -> Child {
    let script = "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(600)\n";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .arg(lock)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
    assert_eq!(line.trim(), "locked");
    child
}

const ONE_READ: &str = r#"{"tool":"read_file","input":{"path":"src/main.rs"}}"#;

#[test]
fn a_stale_lock_from_a_killed_process_does_not_stop_a_writer() {
    let e = Env::new();
    decisions(&e.check(&[], ONE_READ, &[]));
    let project = e.logs()[0].parent().unwrap().to_path_buf();
    // A real process takes the lock and is killed while holding it.
    let mut holder = lock_holder(&project.join("lock"));
    holder.kill().unwrap();
    holder.wait().unwrap();
    let start = Instant::now();
    let out = e.check(&[], ONE_READ, &[("WICKET_AUDIT_MANDATORY", "1")]);
    assert_eq!(decisions(&out)[0]["decision"], "allow", "{}", text(&out.stderr));
    assert!(start.elapsed() < Duration::from_secs(2), "no wait on a dead holder's lock");
    assert!(e.audit_cmd(&["verify"]).status.success());
}

#[test]
fn a_lock_held_by_a_live_process_fails_the_line_within_the_bound() {
    let e = Env::new();
    decisions(&e.check(&[], ONE_READ, &[]));
    let project = e.logs()[0].parent().unwrap().to_path_buf();
    // A live holder that does not let go: the bounded wait, then the failure rule.
    let mut holder = lock_holder(&project.join("lock"));
    let start = Instant::now();
    let out = e.check(&[], ONE_READ, &[("WICKET_AUDIT_MANDATORY", "1")]);
    let refused = decisions(&out);
    let waited = start.elapsed();
    let optional = e.check(&[], ONE_READ, &[]);
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert_eq!(refused[0]["decision"], "deny");
    assert!(refused[0]["reason"].as_str().unwrap().contains("stayed locked by another process"), "{refused:?}");
    assert!(waited < Duration::from_secs(30), "bounded: {waited:?}");
    assert_eq!(decisions(&optional)[0]["decision"], "allow");
    assert!(text(&optional.stderr).contains("going on without it"), "{}", text(&optional.stderr));
    assert!(e.audit_cmd(&["verify"]).status.success());
}

#[test]
fn show_filters_by_session_and_summarizes_sessions() {
    let e = Env::new();
    for (session, tool, input) in [
        ("sess-1", "Read", serde_json::json!({"file_path": "src/a.rs"})),
        ("sess-1", "Bash", serde_json::json!({"command": "git status"})),
        ("sess-1", "Read", serde_json::json!({"file_path": ".env"})),
        ("sess-2", "Bash", serde_json::json!({"command": "ls"})),
    ] {
        let payload = serde_json::json!({"session_id": session, "cwd": e.root, "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": input, "tool_use_id": "t"});
        let mut c = e.wicket();
        c.args(["hook", "claude"]);
        let out = feed(c.spawn().unwrap(), &payload.to_string());
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let out = e.audit_cmd(&["show", "--json", "--session", "sess-1"]);
    let lines: Vec<serde_json::Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert!(lines.iter().all(|l| l["session"] == "sess-1"));
    let out = e.audit_cmd(&["show", "--summary", "--json", "--session", "sess-1"]);
    let rows: Vec<serde_json::Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let r = &rows[0];
    assert_eq!(
        (r["calls"].as_u64(), r["allowed"].as_u64(), r["denied"].as_u64(), r["asked"].as_u64()),
        (Some(3), Some(2), Some(1), Some(0)),
        "{r}"
    );
    assert_eq!(r["commands"], 1, "{r}");
    let out = e.audit_cmd(&["show", "--summary"]);
    let table = text(&out.stdout);
    assert!(table.starts_with("SESSION") && table.contains("sess-1") && table.contains("sess-2"), "{table}");
    assert_eq!(table.lines().count(), 3, "{table}");
}

/// `wicket check` under `ulimit -f 0` (no file may grow; SIGXFSZ ignored): the disk is full
/// as far as the log is concerned.
fn check_on_full_disk(e: &Env, stdin: &str, mandatory: bool) -> Output {
    let mut c = e.command(Path::new("sh"));
    c.arg("-c")
        .arg(r#"trap '' XFSZ; ulimit -f 0; exec "$0" check --jsonl --root "$1""#)
        .arg(env!("CARGO_BIN_EXE_wicket"))
        .arg(&e.root);
    if mandatory {
        c.env("WICKET_AUDIT_MANDATORY", "1");
    }
    feed(c.spawn().unwrap(), stdin)
}

const READS: &str = concat!(
    r#"{"tool":"read_file","input":{"path":"src/main.rs"}}"#,
    "\n",
    r#"{"tool":"glob","input":{"pattern":"**/*.rs"}}"#,
    "\n",
    r#"{"tool":"read_file","input":{"path":"README.md"}}"#,
    "\n",
);

#[test]
fn a_mandatory_audit_on_a_full_disk_refuses_the_call() {
    let e = Env::new();
    let out = check_on_full_disk(&e, READS, true);
    let printed = decisions(&out);
    assert_eq!(printed.len(), 3);
    for d in &printed {
        assert_eq!(d["decision"], "deny", "{d}");
        let reason = d["reason"].as_str().unwrap();
        assert!(reason.contains("the audit line could not be written"), "{reason}");
        assert!(reason.contains("File too large") || reason.contains("file too large"), "{reason}");
        assert!(reason.contains("does not run"), "{reason}");
    }
    // Nothing half-written stays behind.
    for f in e.logs() {
        assert_eq!(std::fs::metadata(f).unwrap().len(), 0);
    }
}

#[test]
fn an_optional_audit_on_a_full_disk_gives_one_notice_and_goes_on() {
    let e = Env::new();
    let out = check_on_full_disk(&e, READS, false);
    let printed = decisions(&out);
    assert!(printed.iter().all(|d| d["decision"] == "allow"), "{printed:?}");
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "one notice: {stderr}");
    assert!(stderr.contains("audit log") && stderr.contains("going on without it"), "{stderr}");
}

#[test]
fn a_mandatory_audit_without_a_usable_home_refuses_the_call() {
    let e = Env::new();
    // $WICKET_HOME/audit is a file: no folder can be made there, even by root.
    std::fs::write(e.audit(), "").unwrap();
    let call = r#"{"tool":"read_file","input":{"path":"src/main.rs"}}"#;
    let printed = decisions(&e.check(&[], call, &[("WICKET_AUDIT_MANDATORY", "1")]));
    assert_eq!(printed[0]["decision"], "deny");
    assert_eq!(printed[0]["by"], "policy");
    assert!(printed[0]["reason"].as_str().unwrap().contains("cannot create the audit folder"));
    let out = e.check(&[], call, &[]);
    assert_eq!(decisions(&out)[0]["decision"], "allow");
    assert_eq!(text(&out.stderr).lines().count(), 1);
}

#[test]
fn run_records_the_decision_and_the_execution() {
    let e = Env::new();
    let mut c = e.wicket();
    c.arg("run").arg("--root").arg(&e.root).args(["--", "sh", "-c", "exit 3"]).stdin(Stdio::null());
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let mut c = e.wicket();
    c.arg("run").arg("--root").arg(&e.root).args(["--", "cat", ".env"]).stdin(Stdio::null());
    assert_eq!(c.output().unwrap().status.code(), Some(126));
    let lines: Vec<serde_json::Value> = e.logs().iter().flat_map(|f| log_lines(f)).collect();
    let kinds: Vec<&str> = lines.iter().filter_map(|l| l["kind"].as_str()).collect();
    assert!(
        kinds.contains(&"allow_sandbox") && kinds.contains(&"executed") && kinds.contains(&"deny_sensitive"),
        "{kinds:?}"
    );
    let executed = lines.iter().find(|l| l["kind"] == "executed").unwrap();
    assert_eq!(executed["exit_code"], 3, "{executed}");
    let verify = e.audit_cmd(&["verify"]);
    assert!(verify.status.success(), "{}", text(&verify.stdout));
}

/// `check --jsonl` keeps the audit lock only while lines are waiting: driven one call at a
/// time, it answers each call before the next is sent (the answer is flushed before it waits),
/// and a `check` process started while it waits writes its line at once, into the same chain.
#[test]
fn check_jsonl_gives_up_the_lock_and_answers_before_it_waits_for_input() {
    use std::io::{BufRead, BufReader};
    let e = Env::new();
    let mut c = e.wicket();
    c.args(["check", "--jsonl", "--root"]).arg(&e.root);
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut answers = BufReader::new(child.stdout.take().unwrap());
    for i in 0..3 {
        writeln!(stdin, r#"{{"tool":"read_file","input":{{"path":"src/f{i}.rs"}}}}"#).unwrap();
        stdin.flush().unwrap();
        let mut answer = String::new();
        answers.read_line(&mut answer).unwrap();
        let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(v["decision"], "allow", "{answer}");
        // The stream waits for its next line now; another process is not kept waiting.
        let other = e.check(&["--jsonl"], r#"{"tool":"read_file","input":{"path":".env"}}"#, &[]);
        assert_eq!(decisions(&other)[0]["decision"], "deny");
        assert!(!text(&other.stderr).contains("audit log"), "no audit notice: {}", text(&other.stderr));
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let verify = e.audit_cmd(&["verify"]);
    assert!(verify.status.success(), "{}", text(&verify.stdout));
    let lines: Vec<serde_json::Value> = e.logs().iter().flat_map(|f| log_lines(f)).collect();
    assert_eq!(lines.len(), 6, "one chain of six lines");
}
