#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.
//! `wicket policy suggest` end to end: a log recorded by real `wicket check` calls (asks, a
//! call denied with nobody to ask, a deny rule, an allow) in a project whose settings already
//! hold rules; the proposals, what each would change, the person's answers on a real terminal
//! (`common::pty`), and what is written (or not).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

mod common;
use common::pty::{self, Spawn};

/// The user's settings before `suggest`: rules that must survive it.
const USER_SETTINGS: &str = r#"{
  "mode": "default",
  "permissions": {
    "allow": ["bash(cargo test*)", "read_file(docs/**)"],
    "deny": ["bash(git push*)"]
  },
  "env": {"allow": ["RUST_LOG"]}
}
"#;

const PROMPT: &str = "[y/N] > ";
const AMEND: &str = "git commit --amend -m three";

struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl World {
    /// A project with a recorded log: two asked commits, an amend denied with nobody to ask,
    /// a push a deny rule refused, an asked file write, an allowed test run, an asked compound
    /// command.
    fn recorded() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("proj");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join(".wicket")).unwrap();
        // The project's own settings only tighten (no consent needed).
        std::fs::write(root.join(".wicket/settings.json"), r#"{"permissions": {"deny": ["read_file(secrets/**)"]}}"#)
            .unwrap();
        std::fs::create_dir_all(home.join(".wicket")).unwrap();
        let w = World { _tmp: tmp, root, home };
        std::fs::write(w.settings(), USER_SETTINGS).unwrap();
        let bash = |c: &str| format!(r#"{{"tool":"bash","input":{{"command":"{c}"}}}}"#);
        for (flags, call, want) in [
            (&[][..], bash("git commit -m one"), "ask_default"),
            (&[], bash("git commit -m two"), "ask_default"),
            (&["--unattended"], bash(AMEND), "deny_unattended"),
            (&[], bash("git push origin main"), "deny_rule"),
            (
                &[],
                r#"{"tool":"write_file","input":{"path":"src/main.rs","content":"fn main() {}"}}"#.into(),
                "ask_default",
            ),
            (&[], bash("cargo test"), "allow_rule"),
            (&[], bash("ls && rm -rf build"), "ask_default"),
        ] {
            assert_eq!(w.check(flags, &call)["kind"], want, "{call}");
        }
        w
    }

    fn settings(&self) -> PathBuf {
        self.home.join(".wicket/settings.json")
    }

    fn command(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_wicket"));
        c.env("WICKET_HOME", self.home.join(".wicket"))
            .env("HOME", &self.home)
            .env("TERM", "dumb")
            .env_remove("WICKET_AUDIT_MANDATORY")
            .env_remove("WICKET_AUDIT_ROTATE_BYTES")
            .current_dir(&self.root);
        c
    }

    /// `wicket check --root ROOT FLAGS` on `call`: its decision.
    fn check(&self, flags: &[&str], call: &str) -> Value {
        let mut c = self.command();
        c.arg("check").args(flags).arg("--root").arg(&self.root);
        let out = run(c, call);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// `wicket policy suggest --root ROOT ARGS`, stdin a pipe holding `stdin`, no terminal.
    fn suggest(&self, args: &[&str], stdin: &str) -> Output {
        let mut c = self.command();
        c.args(["policy", "suggest", "--root"]).arg(&self.root).args(args);
        run(c, stdin)
    }

    fn suggest_on_terminal(&self, args: &[&str]) -> pty::PtyChild {
        let mut c = self.command();
        c.args(["policy", "suggest", "--root"]).arg(&self.root).args(args);
        // Stdin says yes to everything: a suggest that read it would write both rules.
        pty::spawn(c, Spawn { stdin: Some(b"y\ny\ny\n"), ..Default::default() })
    }

    fn allow_rules(&self) -> Vec<String> {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(self.settings()).unwrap()).unwrap();
        v["permissions"]["allow"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect()
    }
}

fn run(mut c: Command, stdin: &str) -> Output {
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn write_call() -> &'static str {
    r#"{"tool":"write_file","input":{"path":"src/main.rs","content":"fn main() {}"}}"#
}

fn commit_call() -> &'static str {
    r#"{"tool":"bash","input":{"command":"git commit -m one"}}"#
}

/// The rules and what each changes, as a script reads them; nothing written without --yes.
#[test]
fn json_lists_each_rule_with_every_flip_and_writes_nothing() {
    let w = World::recorded();
    let out = w.suggest(&["--json"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let proposals = v["proposals"].as_array().unwrap();
    let rules: Vec<&str> = proposals.iter().map(|p| p["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["bash(git commit *)", "write_file(src/main.rs)"]);

    let commit = &proposals[0];
    assert_eq!(commit["from"], serde_json::json!(["bash: git commit -m one", "bash: git commit -m two"]));
    let flips = commit["flips"].as_array().unwrap();
    let targets: Vec<&str> = flips.iter().map(|f| f["target"].as_str().unwrap()).collect();
    assert_eq!(targets, ["git commit -m one", "git commit -m two", AMEND]);
    // The amend was denied (nobody to ask): this rule lets it through, and says so.
    let amend = &flips[2];
    assert_eq!((amend["before"].as_str(), amend["after"].as_str()), (Some("deny"), Some("allow")));
    assert_eq!(amend["was_denied"], true);
    assert_eq!(amend["from_this_rule"], false);
    assert_eq!(amend["recorded"], serde_json::json!(["deny_unattended"]));
    assert_eq!(commit["denied_flips"], 1);
    // The push a deny rule refused stays refused: no rule flips it.
    assert!(!out.stdout.windows(8).any(|x| x == b"git push"), "{}", text(&out.stdout));

    let write = &proposals[1];
    assert_eq!(write["flips"].as_array().unwrap().len(), 1);
    assert_eq!(write["denied_flips"], 0);

    let uncovered: Vec<&str> =
        v["uncovered"].as_array().unwrap().iter().map(|u| u["target"].as_str().unwrap()).collect();
    assert_eq!(uncovered, ["ls && rm -rf build"]);
    assert_eq!(v["written"], serde_json::json!([]));
    assert_eq!(std::fs::read_to_string(w.settings()).unwrap(), USER_SETTINGS);
}

/// No terminal and no --yes: the report is printed, nothing is written, and it says so.
#[test]
fn without_a_terminal_or_yes_nothing_is_written() {
    let w = World::recorded();
    // "y" on stdin is no answer: stdin may be a program's.
    let out = w.suggest(&[], "y\ny\n");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains(&format!("!! deny  -> allow  bash: {AMEND}")), "{stdout}");
    assert!(stdout.contains("!! it would let through 1 call(s) that were DENIED"), "{stdout}");
    assert!(text(&out.stderr).contains("nothing written"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(w.settings()).unwrap(), USER_SETTINGS);
    assert_eq!(w.check(&[], commit_call())["decision"], "ask");
}

/// The person sees each rule and the denied call it would let through before anything is
/// written; the rule they accept is written beside the rules already there, and the call it
/// came from is allowed from then on; the one they decline is not written.
#[test]
fn on_a_terminal_the_flips_come_first_and_only_the_accepted_rule_is_written() {
    let w = World::recorded();
    let child = w.suggest_on_terminal(&[]);
    let screen = child.wait_for(PROMPT, 1);
    assert!(screen.contains("rule 1 of 2: bash(git commit *)"), "{screen}");
    assert!(screen.contains(&format!("!! deny  -> allow  bash: {AMEND}  (recorded deny_unattended)")), "{screen}");
    assert!(screen.contains("!! it would let through 1 call(s) that were DENIED"), "{screen}");
    assert!(screen.contains("ask   -> allow  bash: git commit -m one"), "{screen}");
    // Shown, not yet written.
    assert_eq!(std::fs::read_to_string(w.settings()).unwrap(), USER_SETTINGS);
    child.type_keys(b"y\n");
    let screen = child.wait_for(PROMPT, 2);
    assert!(screen.contains("rule 2 of 2: write_file(src/main.rs)"), "{screen}");
    child.type_keys(b"n\n");
    let (out, _) = child.finish();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("added bash(git commit *) to permissions.allow in"), "{stdout}");
    assert!(!stdout.contains("write_file(src/main.rs)"), "{stdout}");

    assert_eq!(w.allow_rules(), ["bash(cargo test*)", "read_file(docs/**)", "bash(git commit *)"]);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(w.settings()).unwrap()).unwrap();
    assert_eq!(v["mode"], "default");
    assert_eq!(v["permissions"]["deny"], serde_json::json!(["bash(git push*)"]));
    assert_eq!(v["env"]["allow"], serde_json::json!(["RUST_LOG"]));
    // The formerly asked call is allowed now; the declined rule's call still asks; the deny
    // rule still refuses the push.
    let now = w.check(&[], commit_call());
    assert_eq!((now["decision"].as_str(), now["rule"].as_str()), (Some("allow"), Some("bash(git commit *)")));
    assert_eq!(w.check(&[], write_call())["decision"], "ask");
    let push = w.check(&[], r#"{"tool":"bash","input":{"command":"git push origin main"}}"#);
    assert_eq!(push["decision"], "deny");
}

/// Declining every rule (n, then Enter) writes nothing at all.
#[test]
fn declining_every_rule_writes_nothing() {
    let w = World::recorded();
    let child = w.suggest_on_terminal(&[]);
    child.wait_for(PROMPT, 1);
    child.type_keys(b"n\n");
    child.wait_for(PROMPT, 2);
    child.type_keys(b"\n");
    let (out, _) = child.finish();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("nothing written (no rule chosen)"), "{stdout}");
    assert!(stdout.contains("bash: ls && rm -rf build  (recorded ask_default): no narrow rule fits"), "{stdout}");
    assert_eq!(std::fs::read_to_string(w.settings()).unwrap(), USER_SETTINGS);
    assert_eq!(w.check(&[], commit_call())["decision"], "ask");
}

/// `--yes --rule` writes the one rule picked (the flips still printed first); `--dry-run`
/// with `--yes` writes nothing.
#[test]
fn yes_with_rule_writes_only_that_rule_and_dry_run_nothing() {
    let w = World::recorded();
    let dry = w.suggest(&["--yes", "--dry-run"], "");
    assert!(dry.status.success(), "{}", text(&dry.stderr));
    assert!(text(&dry.stdout).contains("nothing written (a dry run)"), "{}", text(&dry.stdout));
    assert_eq!(std::fs::read_to_string(w.settings()).unwrap(), USER_SETTINGS);

    let out = w.suggest(&["--yes", "--rule", "write_file(src/main.rs)"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let shown = stdout.find(&format!("!! deny  -> allow  bash: {AMEND}")).expect(&stdout);
    let added = stdout.find("added write_file(src/main.rs)").expect(&stdout);
    assert!(shown < added, "{stdout}");
    assert_eq!(w.allow_rules(), ["bash(cargo test*)", "read_file(docs/**)", "write_file(src/main.rs)"]);
    assert_eq!(w.check(&[], write_call())["decision"], "allow");
    assert_eq!(w.check(&[], commit_call())["decision"], "ask");
    // The rule is there now: a second run proposes only the other one.
    let again: Value = serde_json::from_slice(&w.suggest(&["--json"], "").stdout).unwrap();
    let rules: Vec<&str> = again["proposals"].as_array().unwrap().iter().map(|p| p["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["bash(git commit *)"]);

    let bad = w.suggest(&["--yes", "--rule", "bash(*)"], "");
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("not one of the proposed rules"), "{}", text(&bad.stderr));
}

/// A settings file that does not parse stops `suggest` with its name and position, untouched.
#[test]
fn a_broken_settings_file_is_named_and_left_alone() {
    let w = World::recorded();
    let broken = "{\n  \"permissions\": {\"allow\": [\"bash(ls)\",,]}\n}\n";
    std::fs::write(w.settings(), broken).unwrap();
    let out = w.suggest(&["--yes"], "");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains(&format!("{}:2:", w.settings().display())), "{err}");
    assert_eq!(std::fs::read_to_string(w.settings()).unwrap(), broken);
}

/// Project scope writes `.wicket/settings.json`, keeping its rules, and says the allow rule
/// waits for consent there.
#[test]
fn project_scope_writes_the_project_file_and_says_it_waits_for_consent() {
    let w = World::recorded();
    let out = w.suggest(&["--yes", "--scope", "project", "--rule", "bash(git commit *)"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("apply only once you agree"), "{stdout}");
    let file: &Path = &w.root.join(".wicket/settings.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    assert_eq!(v["permissions"]["deny"], serde_json::json!(["read_file(secrets/**)"]));
    assert_eq!(v["permissions"]["allow"], serde_json::json!(["bash(git commit *)"]));
    assert_eq!(std::fs::read_to_string(w.settings()).unwrap(), USER_SETTINGS);
}
