#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up
//! Consent for project settings, answered through a real pseudo-terminal.
//!
//! As in `approver_pty.rs` (the terminal is `common::pty`), each case re-executes this test binary (`--exact child_entry`) with
//! `WICKET_CONSENT_CHILD=1` in a new session whose controlling terminal is the pty's slave side.
//! The child loads the configuration of a project whose settings loosen safety, with the
//! terminal as the consent asker, and prints what became of them on its stdout (a pipe). The
//! test plays the person on the master side.

use std::path::{Path, PathBuf};
use std::process::Command;

use wicket::config::{self, Places};
use wicket::consent::TerminalConsent;

mod common;
use common::pty::{self, PtyChild, Spawn};

const CHILD: &str = "WICKET_CONSENT_CHILD";
const PROMPT: &str = "[n] no, use safe defaults (default) > ";

/// Not a test of its own: the body of the child process (a no-op in a normal run).
#[test]
fn child_entry() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let var = |n: &str| PathBuf::from(std::env::var_os(n).unwrap());
    let places = Places { home: var("WICKET_CONSENT_HOME"), managed: var("WICKET_CONSENT_MANAGED") };
    let mut asker = TerminalConsent;
    let loaded = config::load_in(&var("WICKET_CONSENT_ROOT"), &places, Some(&mut asker)).unwrap();
    println!("\nCONSENT: {:?}", loaded.consent);
    println!("ALLOW: {:?}", loaded.project.unwrap().permissions.allow);
}

fn spawn(root: &Path, home: &Path, managed: &Path) -> PtyChild {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("WICKET_CONSENT_ROOT", root)
        .env("WICKET_CONSENT_HOME", home)
        .env("WICKET_CONSENT_MANAGED", managed)
        .env("TERM", "dumb");
    // stdin says "r": a consent that read it would pin.
    pty::spawn(cmd, Spawn { stdin: Some(b"r\n"), ..Default::default() })
}

/// Wait for the child, which must succeed and never print the question on stdout; its stdout
/// and what its terminal showed.
fn finish(child: PtyChild) -> (String, String) {
    let (out, screen) = child.finish();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "child failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(!stdout.contains(PROMPT), "the question went to stdout:\n{stdout}");
    (stdout, screen)
}

struct Project {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    managed: PathBuf,
}

fn project(settings: &str) -> Project {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home/.wicket");
    std::fs::create_dir_all(root.join(".wicket")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(root.join(".wicket/settings.json"), settings).unwrap();
    let managed = tmp.path().join("managed-policy.json");
    Project { _tmp: tmp, root, home, managed }
}

/// Start the child, wait for the question, answer `keys`; the child's stdout and the screen.
fn answer(p: &Project, keys: &[u8]) -> (String, String) {
    let child = spawn(&p.root, &p.home, &p.managed);
    child.wait_for(PROMPT, 1);
    child.type_keys(keys);
    finish(child)
}

const SETTINGS: &str = r#"{"permissions": {"allow": ["bash(npm test*)"]}, "executor": "host"}"#;

#[test]
fn yes_applies_for_this_run_only() {
    let p = project(SETTINGS);
    let (stdout, screen) = answer(&p, b"y\n");
    assert!(screen.contains("wants to loosen safety"), "{screen}");
    assert!(screen.contains("allow rules: \"bash(npm test*)\"") && screen.contains("executor \"host\""), "{screen}");
    assert!(stdout.contains("CONSENT: Granted { remembered: false }"), "{stdout}");
    assert!(stdout.contains("ALLOW: [\"bash(npm test*)\"]"), "{stdout}");
    assert!(!p.home.join("trust.json").exists());
    // Asked again next time.
    let (stdout, _) = answer(&p, b"n\n");
    assert!(stdout.contains("refused: true") && stdout.contains("ALLOW: []"), "{stdout}");
}

#[test]
fn remember_pins_and_a_change_asks_again() {
    let p = project(SETTINGS);
    let (stdout, screen) = answer(&p, b"r\n");
    assert!(screen.contains("applied and remembered"), "{screen}");
    assert!(stdout.contains("CONSENT: Granted { remembered: true }"), "{stdout}");
    // Pinned: no question at all this time.
    let (stdout, screen) = finish(spawn(&p.root, &p.home, &p.managed));
    assert!(!screen.contains(PROMPT), "{screen}");
    assert!(stdout.contains("CONSENT: Pinned") && stdout.contains("ALLOW: [\"bash(npm test*)\"]"), "{stdout}");
    // Changed: asked again.
    std::fs::write(p.root.join(".wicket/settings.json"), r#"{"permissions": {"allow": ["bash(npm *)"]}}"#).unwrap();
    let (stdout, screen) = answer(&p, b"n\n");
    assert!(screen.contains("bash(npm *)"), "{screen}");
    assert!(stdout.contains("refused: true") && stdout.contains("ALLOW: []"), "{stdout}");
}

#[test]
fn no_unknown_and_empty_answers_apply_nothing() {
    for keys in [&b"n\n"[..], b"\n", b"\x04"] {
        let p = project(SETTINGS);
        let (stdout, screen) = answer(&p, keys);
        assert!(stdout.contains("ALLOW: []"), "{keys:?}: {stdout}");
        assert!(screen.contains("not applied"), "{screen}");
        assert!(!p.home.join("trust.json").exists());
    }
    // An unknown answer is asked again; then Enter is no.
    let p = project(SETTINGS);
    let child = spawn(&p.root, &p.home, &p.managed);
    child.wait_for(PROMPT, 1);
    child.type_keys(b"maybe\n");
    child.wait_for(PROMPT, 2);
    assert!(child.screen().contains("\"maybe\" is not a choice"));
    child.type_keys(b"\n");
    let (stdout, _) = finish(child);
    assert!(stdout.contains("ALLOW: []"), "{stdout}");
}

/// `wicket trust approve` asks the same question; a plain "yes" there agrees and pins (the
/// person asked to agree: there is no run for "yes, for this run" to apply to).
#[test]
fn trust_approve_takes_yes_as_agreeing() {
    let p = project(SETTINGS);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wicket"));
    cmd.args(["trust", "approve", "--root"])
        .arg(&p.root)
        .env("WICKET_HOME", &p.home)
        .env("HOME", p.home.parent().unwrap())
        .env("TERM", "dumb");
    let child = pty::spawn(cmd, Spawn::default());
    child.wait_for(PROMPT, 1);
    child.type_keys(b"y\n");
    let (stdout, _) = finish(child);
    assert!(stdout.contains("agreed and pinned"), "{stdout}");
    assert!(p.home.join("trust.json").exists());
}
