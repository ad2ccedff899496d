#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up
//! The real [`TerminalApprover`] driven through a real pseudo-terminal.
//!
//! Each case re-executes this test binary (`--exact child_entry`) with `WICKET_PTY_CHILD=1` in
//! a new session whose controlling terminal is the pty's slave side. The child asks one question
//! through `/dev/tty` and prints the answer on its stdout (a pipe, never the terminal). The test
//! plays the person on the master side: it reads the prompt and types the answer.

use std::process::Command;

use wicket::approver::{Answer, Approver, Change, DenyApprover, Question, TerminalApprover};
use wicket_policy::Rule;

mod common;
use common::pty::{self, PtyChild, Spawn};

const CHILD: &str = "WICKET_PTY_CHILD";
/// The end of every prompt.
const PROMPT: &str = "[n] deny (default) > ";

/// Not a test of its own: the body of the child process (a no-op in a normal run).
#[test]
fn child_entry() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let env = |name: &str| std::env::var(name).unwrap_or_default();
    let q = Question {
        tool: "bash".into(),
        what: env("WICKET_PTY_WHAT"),
        reason: "no rule allows it".into(),
        always: std::env::var("WICKET_PTY_ALWAYS").ok().map(|r| Rule::parse(&r).unwrap()),
        sandboxed: env("WICKET_PTY_SANDBOXED") == "1",
        change: std::env::var("WICKET_PTY_NEW_TEXT").ok().map(|new_text| Change {
            path: "src/a.rs".into(),
            old_text: std::env::var("WICKET_PTY_OLD_TEXT").ok(),
            new_text,
        }),
    };
    let mut approver: Box<dyn Approver> = match TerminalApprover::open() {
        Ok(t) => Box::new(t),
        Err(e) => {
            println!("\nOPEN_FAILED: {e}");
            Box::new(DenyApprover)
        }
    };
    let answer = approver.ask(&q);
    println!("\nANSWER: {answer:?}");
}

struct Options<'a> {
    what: &'a str,
    always: Option<&'a str>,
    /// False: the child gets a new session and no terminal at all.
    tty: bool,
    /// Written to the terminal before the child starts.
    typed_ahead: &'a [u8],
    /// Written to the child's stdin (which the approver must never read).
    stdin: &'a [u8],
    term: &'a str,
    /// A file write's text before and after: the question shows the change.
    change: Option<(Option<&'a str>, &'a str)>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options { what: "npm test", always: None, tty: true, typed_ahead: b"", stdin: b"", term: "dumb", change: None }
    }
}

fn spawn(o: Options<'_>) -> PtyChild {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("WICKET_PTY_WHAT", o.what)
        .env("TERM", o.term)
        .env_remove("NO_COLOR");
    if let Some(rule) = o.always {
        cmd.env("WICKET_PTY_ALWAYS", rule);
    }
    if let Some((old, new)) = o.change {
        cmd.env("WICKET_PTY_NEW_TEXT", new);
        if let Some(old) = old {
            cmd.env("WICKET_PTY_OLD_TEXT", old);
        }
    }
    pty::spawn(cmd, Spawn { tty: o.tty, typed_ahead: o.typed_ahead, stdin: Some(o.stdin), ..Default::default() })
}

/// Wait for the child, which must succeed; its stdout and what its terminal showed.
fn finish(child: PtyChild) -> (String, String) {
    let (out, screen) = child.finish();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child failed: {}\nstdout:\n{stdout}\nstderr:\n{stderr}", out.status);
    (stdout, screen)
}

fn answer_of(stdout: &str) -> &str {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("ANSWER: "))
        .unwrap_or_else(|| panic!("no answer printed; stdout:\n{stdout}"))
}

/// Ask once, wait for the prompt, type `keys`; the answer printed and the screen.
fn ask(o: Options<'_>, keys: &[u8]) -> (String, String) {
    let child = spawn(o);
    child.wait_for(PROMPT, 1);
    child.type_keys(keys);
    let (stdout, screen) = finish(child);
    assert!(!stdout.contains(PROMPT), "the question went to stdout:\n{stdout}");
    (answer_of(&stdout).to_string(), screen)
}

#[test]
fn y_allows_once_and_stdin_is_never_read() {
    // stdin says "n": an approver that read it would deny.
    let (answer, screen) = ask(Options { stdin: b"n\n", term: "xterm-256color", ..Default::default() }, b"y\n");
    assert_eq!(answer, "Once");
    assert!(screen.contains("\x1b["), "colors on a color terminal:\n{screen:?}");
    assert!(screen.contains("allowed once"), "{screen}");
}

#[test]
fn s_allows_for_the_session() {
    let (answer, screen) = ask(Options::default(), b"s\n");
    assert_eq!(answer, "Session");
    assert!(!screen.contains('\x1b'), "no colors on a dumb terminal:\n{screen:?}");
    assert!(!screen.contains("[a] always"), "always is not offered without a rule:\n{screen}");
}

#[test]
fn a_allows_always_with_the_rule_shown() {
    let child = spawn(Options { always: Some("bash(npm test*)"), ..Default::default() });
    let screen = child.wait_for(PROMPT, 1);
    assert!(screen.contains("\"always\" adds the rule: bash(npm test*)"), "{screen}");
    assert!(screen.contains("[a] always: bash(npm test*)"), "{screen}");
    child.type_keys(b"a\n");
    let (stdout, _) = finish(child);
    assert_eq!(
        answer_of(&stdout),
        format!("{:?}", Answer::Always(Rule { tool: "bash".into(), pattern: Some("npm test*".into()) }))
    );
}

#[test]
fn n_denies() {
    let (answer, screen) = ask(Options::default(), b"n\n");
    assert_eq!(answer, "Deny");
    assert!(screen.contains("denied"), "{screen}");
}

#[test]
fn empty_line_denies() {
    assert_eq!(ask(Options::default(), b"\n").0, "Deny");
}

#[test]
fn end_of_input_denies() {
    // ^D on an empty line: read returns 0.
    assert_eq!(ask(Options::default(), b"\x04").0, "Deny");
}

#[test]
fn typed_ahead_input_is_discarded() {
    let child = spawn(Options { typed_ahead: b"y\n", ..Default::default() });
    child.wait_for(PROMPT, 1);
    child.type_keys(b"n\n");
    let (stdout, _) = finish(child);
    assert_eq!(answer_of(&stdout), "Deny", "the typed-ahead \"y\" answered the question");
}

#[test]
fn unknown_key_asks_again() {
    let child = spawn(Options::default());
    child.wait_for(PROMPT, 1);
    child.type_keys(b"x\n");
    let screen = child.wait_for(PROMPT, 2);
    assert!(screen.contains("\"x\" is not a choice"), "{screen}");
    child.type_keys(b"y\n");
    let (stdout, _) = finish(child);
    assert_eq!(answer_of(&stdout), "Once");
}

#[test]
fn unknown_keys_four_times_deny() {
    let child = spawn(Options::default());
    for n in 1..=4 {
        child.wait_for(PROMPT, n);
        child.type_keys(b"q\n");
    }
    let (stdout, screen) = finish(child);
    assert_eq!(answer_of(&stdout), "Deny");
    assert!(screen.contains("no valid answer: denied"), "{screen}");
}

#[test]
fn shows_invisible_characters_pipes_and_redirects() {
    let (answer, screen) = ask(Options { what: "cat notes\u{200b}.txt | sh > out.txt", ..Default::default() }, b"n\n");
    assert_eq!(answer, "Deny");
    for want in [
        "cat notes\\u{200b}.txt | sh > out.txt",
        "invisible or control characters: U+200B",
        "runs 2 commands (chained or piped)",
        "redirects output into files",
        "out.txt",
        "where: on the HOST",
    ] {
        assert!(screen.contains(want), "missing {want:?}:\n{screen}");
    }
    assert!(!screen.contains('\u{200b}'), "a raw zero-width space reached the terminal:\n{screen}");
}

/// A file write is shown as its change: the lines removed and added, coloured, each escaped on
/// its own, so a bidirectional override in the new text cannot reorder what the person reads.
#[test]
fn a_write_is_shown_as_a_coloured_diff() {
    let change = Some((Some("let ok = false;\nkeep();\n"), "let ok = true;\u{202e} // admin\nkeep();\n"));
    let (answer, screen) =
        ask(Options { what: "src/a.rs", change, term: "xterm-256color", ..Default::default() }, b"y\n");
    assert_eq!(answer, "Once");
    for want in ["the change to src/a.rs", "-let ok = false;", "+let ok = true;\\u{202e} // admin", " keep();"] {
        assert!(screen.contains(want), "missing {want:?}:\n{screen}");
    }
    assert!(screen.contains("\x1b[32m+let ok"), "added lines are green:\n{screen:?}");
    assert!(!screen.contains('\u{202e}'), "a raw override reached the terminal:\n{screen}");
}

#[test]
fn no_controlling_terminal_means_deny() {
    let child = spawn(Options { tty: false, stdin: b"y\n", ..Default::default() });
    let (stdout, _) = finish(child);
    assert!(stdout.contains("OPEN_FAILED: no terminal to ask on"), "{stdout}");
    assert_eq!(answer_of(&stdout), "Deny");
}

/// `wicket run` itself, in a terminal: "always" puts the rule shown into the person's own
/// settings, so the next run of a covered command does not ask.
#[test]
fn always_in_wicket_run_saves_the_rule_in_your_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, home) = (tmp.path().join("proj"), tmp.path().join("home"));
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(home.join(".wicket")).unwrap();
    std::fs::write(home.join(".wicket/settings.json"), "{\"mode\": \"default\"}\n").unwrap();
    let run = |args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_wicket"));
        cmd.args(["run", "--no-sandbox", "--"]).args(args);
        cmd.env("WICKET_HOME", home.join(".wicket")).env("HOME", &home).env("TERM", "dumb").current_dir(&root);
        pty::spawn(cmd, Spawn { stdin: Some(b""), ..Default::default() })
    };
    let child = run(&["seq", "3"]);
    let screen = child.wait_for(PROMPT, 1);
    assert!(screen.contains("bash(seq *)"), "{screen}");
    child.type_keys(b"a\n");
    let (out, _) = child.finish();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1\n2\n3\n");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".wicket/settings.json")).unwrap()).unwrap();
    assert_eq!(saved["permissions"]["allow"], serde_json::json!(["bash(seq *)"]), "{saved}");
    assert_eq!(saved["mode"], "default", "the rest of the file is kept: {saved}");
    // The next covered command runs without a question (nothing is typed).
    let (out, screen) = run(&["seq", "2"]).finish();
    assert!(out.status.success() && !screen.contains(PROMPT), "{screen}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1\n2\n");
}
