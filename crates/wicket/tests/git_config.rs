//! Repository-controlled git configuration through `wicket check`, with real git: the cases in
//! `cases/git_config.jsonl`. Each attack case is first run for real (its `proof`), and the
//! payload must fire, so the case proves a real attack; then wicket must not allow it. Benign
//! cases must be allowed.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    setup: String,
    root: String,
    command: String,
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
    expect: String,
    #[serde(default)]
    proof: Option<String>,
}

/// Make `repo DIR` available to set-up scripts: a repository with one commit.
const PRELUDE: &str = r#"set -e
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
repo() { git init -q "$1"; echo a > "$1/f"; git -C "$1" add f; git -C "$1" commit -qm init; }
"#;

fn bash(base: &Path, dir: &Path, script: &str) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!("{PRELUDE}{script}"))
        .current_dir(dir)
        .env("HOME", base.join("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn check(base: &Path, root: &Path, case: &Case) -> serde_json::Value {
    let mut args = vec![
        "check".to_string(),
        "--no-audit".into(),
        "--no-sandbox".into(),
        "--root".into(),
        root.display().to_string(),
    ];
    for a in &case.allow {
        args.extend(["--allow".to_string(), a.clone()]);
    }
    for d in &case.deny {
        args.extend(["--deny".to_string(), d.clone()]);
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_wicket"))
        .args(&args)
        .env("HOME", base.join("home"))
        .env("WICKET_HOME", base.join("home/.wicket"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let command = case.command.replace("@BASE@", &base.display().to_string());
    let call = serde_json::json!({"tool": "bash", "input": {"command": command}});
    child.stdin.take().unwrap().write_all(call.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "[{}] wicket check failed: {}", case.id, String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn repository_git_configuration_fixtures() {
    let text = include_str!("cases/git_config.jsonl");
    let mut failures = Vec::new();
    let (mut attacks, mut benign) = (0, 0);
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with("//") {
            continue;
        }
        let case: Case = serde_json::from_str(line).unwrap_or_else(|e| panic!("git_config.jsonl:{}: {e}", n + 1));
        // Outside any repository (a temp folder, not this work tree), so no parent config leaks in.
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(base.join("home/.wicket")).unwrap();
        let sub = |s: &str| s.replace("@BASE@", &base.display().to_string());
        let set = bash(&base, &base, &sub(&case.setup));
        assert!(set.status.success(), "[{}] set-up failed: {}", case.id, String::from_utf8_lossy(&set.stderr));
        let root = base.join(&case.root);
        let v = check(&base, &root, &case);
        let got = v["decision"].as_str().unwrap_or_default().to_string();
        match case.expect.as_str() {
            "ask" => {
                attacks += 1;
                if got == "allow" {
                    failures.push(format!("line {} [{}]: allowed: {v}", n + 1, case.id));
                }
                // The control: run for real, the payload fires.
                let proof =
                    case.proof.as_deref().unwrap_or_else(|| panic!("[{}] an attack case needs a proof", case.id));
                let _ = bash(&base, &root, &sub(proof));
                assert!(base.join("MARK").exists(), "[{}] the proof did not fire: the case proves nothing", case.id);
            }
            "deny" => {
                attacks += 1;
                if got != "deny" {
                    failures.push(format!("line {} [{}]: not denied: {v}", n + 1, case.id));
                }
                // The control: git really runs the expansion.
                let proof =
                    case.proof.as_deref().unwrap_or_else(|| panic!("[{}] an attack case needs a proof", case.id));
                let _ = bash(&base, &root, &sub(proof));
                assert!(base.join("MARK").exists(), "[{}] the proof did not fire: the case proves nothing", case.id);
            }
            "allow" => {
                benign += 1;
                if got != "allow" {
                    failures.push(format!("line {} [{}]: not allowed: {v}", n + 1, case.id));
                }
            }
            other => panic!("[{}] expect must be allow, ask or deny, not {other}", case.id),
        }
    }
    println!("git config cases: {attacks} attacks, {benign} benign, {} failed", failures.len());
    assert!(attacks >= 8 && benign >= 4);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Git's answer is kept between calls (`$WICKET_HOME/cache/git`), and what changes it is
/// noticed: a variable that adds configuration, and the repository's own file changed after
/// the answer was kept. The answer is only kept for files older than two seconds, hence the
/// waits.
#[test]
fn a_kept_answer_gives_way_to_a_changed_environment_or_file() {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    std::fs::create_dir_all(base.join("home/.wicket")).unwrap();
    let set = bash(&base, &base, "repo proj");
    assert!(set.status.success(), "{}", String::from_utf8_lossy(&set.stderr));
    let root = base.join("proj");
    let case = Case {
        id: "cache".into(),
        setup: String::new(),
        root: "proj".into(),
        command: "git status".into(),
        // No rule: the exact safe list allows it while no configuration git reads, the user's
        // included, can make it run a program.
        allow: Vec::new(),
        deny: Vec::new(),
        expect: "allow".into(),
        proof: None,
    };
    std::thread::sleep(std::time::Duration::from_millis(2100));
    for _ in 0..3 {
        assert_eq!(check(&base, &root, &case)["decision"], "allow");
    }
    let records: Vec<_> = std::fs::read_dir(base.join("home/.wicket/cache/git")).unwrap().collect();
    assert_eq!(records.len(), 1, "one kept answer");
    // A variable that sets core.fsmonitor: the kept answer is not used.
    let out = Command::new(env!("CARGO_BIN_EXE_wicket"))
        .args(["check", "--no-audit", "--no-sandbox", "--root"])
        .arg(&root)
        .env("HOME", base.join("home"))
        .env("WICKET_HOME", base.join("home/.wicket"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "core.fsmonitor")
        .env("GIT_CONFIG_VALUE_0", "touch MARK")
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(br#"{"tool":"bash","input":{"command":"git status"}}"#)?;
            c.wait_with_output()
        })
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_ne!(v["decision"], "allow", "a variable's configuration is seen: {v}");
    // The repository's file, changed after the answer was kept.
    assert_eq!(check(&base, &root, &case)["decision"], "allow", "the kept answer again");
    let set = bash(&base, &root, "git config core.fsmonitor 'touch MARK'");
    assert!(set.status.success());
    assert_ne!(check(&base, &root, &case)["decision"], "allow", "the changed file is seen");
    // A file the repository's configuration includes, changed after the answer was kept (the
    // repository's own file unchanged): seen on the very next call.
    let set = bash(
        &base,
        &root,
        "git config --unset core.fsmonitor && printf '[core]\\n\\tquotepath = off\\n' > extra.inc && git config include.path ../extra.inc",
    );
    assert!(set.status.success(), "{}", String::from_utf8_lossy(&set.stderr));
    std::thread::sleep(std::time::Duration::from_millis(2100));
    for _ in 0..3 {
        assert_eq!(check(&base, &root, &case)["decision"], "allow", "the include, kept");
    }
    std::fs::write(root.join("extra.inc"), "[core]\n\tfsmonitor = touch MARK\n").unwrap();
    assert_ne!(check(&base, &root, &case)["decision"], "allow", "the changed include is seen");
}
