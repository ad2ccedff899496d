//! Team policy files, project settings consent, the trust store, `wicket policy` and `wicket
//! trust`, and deny paths in the real sandbox. Nothing here touches the real home or /etc:
//! `WICKET_HOME`, `HOME` and `WICKET_MANAGED_POLICY` point into a temporary folder.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use wicket::approver::Consent;
use wicket::config::{self, Places, ProjectConsent};
use wicket::consent::FixedConsent;
use wicket::trust::{PinKind, TrustStore};

struct Env {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    wicket_home: PathBuf,
    managed: PathBuf,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(root.join(".wicket")).unwrap();
    std::fs::create_dir_all(home.join(".wicket")).unwrap();
    std::fs::create_dir_all(tmp.path().join("etc")).unwrap();
    let managed = tmp.path().join("etc/policy.json");
    Env { wicket_home: home.join(".wicket"), _tmp: tmp, root, home, managed }
}

impl Env {
    fn places(&self) -> Places {
        Places { home: self.wicket_home.clone(), managed: self.managed.clone() }
    }
    fn project(&self, json: &str) {
        std::fs::write(self.root.join(".wicket/settings.json"), json).unwrap();
    }
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_wicket"));
        c.args(args)
            .env("WICKET_HOME", &self.wicket_home)
            .env("HOME", &self.home)
            .env("WICKET_MANAGED_POLICY", &self.managed)
            .current_dir(&self.root);
        c
    }
    /// `wicket check --root ROOT …` with `stdin`.
    fn check(&self, args: &[&str], stdin: &str) -> Output {
        let mut c = self.cmd(&["check", "--root", self.root.to_str().unwrap()]);
        let mut child =
            c.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        child.wait_with_output().unwrap()
    }
    /// A command with no terminal (a new session) and stdin closed.
    fn plain(&self, args: &[&str]) -> Output {
        let mut c = Command::new("setsid");
        c.arg("-w")
            .arg(env!("CARGO_BIN_EXE_wicket"))
            .args(args)
            .env("WICKET_HOME", &self.wicket_home)
            .env("HOME", &self.home)
            .env("WICKET_MANAGED_POLICY", &self.managed)
            .current_dir(&self.root)
            .stdin(Stdio::null());
        c.output().unwrap()
    }
}

fn decision(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "exit {:?}, stderr {}", out.status, String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const NPM_TEST: &str = r#"{"tool":"bash","input":{"command":"npm test"}}"#;

#[test]
fn managed_and_user_policy_files_apply_and_merge() {
    let e = env();
    std::fs::write(&e.managed, r#"{"disallowedCommands": ["curl*"]}"#).unwrap();
    std::fs::write(e.wicket_home.join("policy.json"), r#"{"disallowedCommands": ["wget*"]}"#).unwrap();
    for (cmd, rule) in [("sudo curl x", "curl*"), ("wget x", "wget*")] {
        let call = format!(r#"{{"tool":"bash","input":{{"command":"{cmd}"}}}}"#);
        let v = decision(&e.check(&["--allow", "bash(*)"], &call));
        assert_eq!(
            (v["decision"].as_str(), v["by"].as_str(), v["rule"].as_str()),
            (Some("deny"), Some("policy"), Some(rule))
        );
        assert_eq!(v["kind"], "deny_policy");
    }
}

#[test]
fn a_broken_policy_file_stops_wicket_with_file_and_position() {
    let e = env();
    for file in [e.managed.clone(), e.wicket_home.join("policy.json")] {
        std::fs::write(&file, "{\n  \"disallowedCommands\": [\"curl*\"],\n  \"denyPath\": []\n}").unwrap();
        for args in [&["check"][..], &["run", "--", "true"][..], &["policy", "show"][..]] {
            let mut all = args.to_vec();
            all.extend(["--root", e.root.to_str().unwrap()]);
            if args[0] == "run" {
                all = vec!["run", "--root", e.root.to_str().unwrap(), "--", "true"];
            }
            let out = e.plain(&all);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            let err = stderr(&out);
            assert!(err.contains(&format!("{}:3:", file.display())) && err.contains("denyPath"), "{err}");
            assert_eq!(err.lines().count(), 1, "one line: {err}");
            assert!(out.stdout.is_empty());
        }
        std::fs::remove_file(&file).unwrap();
    }
}

#[test]
fn a_project_policy_file_is_never_read() {
    let e = env();
    std::fs::write(e.root.join(".wicket/policy.json"), r#"{"disallowedCommands": ["npm*"], "bogus": 1}"#).unwrap();
    let out = e.check(&["--allow", "bash(npm test*)"], NPM_TEST);
    assert_eq!(decision(&out)["decision"], "allow", "neither applied nor parsed");
    assert!(stderr(&out).contains("policy.json is never read"), "{}", stderr(&out));
}

#[test]
fn a_project_that_loosens_gets_nothing_without_consent() {
    let e = env();
    e.project(
        r#"{"mode": "auto", "executor": "host", "permissions": {"allow": ["bash(npm test*)"], "deny": ["bash(rm*)"], "ask": ["bash(git push*)"]},
            "sandbox": {"writePaths": ["~/elsewhere"], "denyRead": ["~/private"]}, "env": {"allow": ["AWS_SECRET_ACCESS_KEY"]}, "network": {"allow": ["*"]}}"#,
    );
    // `check` never asks: one notice on stderr lists every dropped part; stdout is the decision.
    let out = e.check(&["--no-sandbox"], NPM_TEST);
    let v = decision(&out);
    assert_eq!(v["decision"], "ask", "the project's allow rule and auto mode are dropped: {v}");
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    for part in
        ["allow rules", "executor \"host\"", "sandbox.writePaths", "env.allow", "network.allow", "mode \"auto\""]
    {
        assert!(err.contains(part), "{part} missing: {err}");
    }
    assert!(String::from_utf8(out.stdout).unwrap().starts_with("{\"decision\""));
    // Deny and ask rules always apply.
    let v = decision(&e.check(&["--allow", "bash(*)"], r#"{"tool":"bash","input":{"command":"rm -rf x"}}"#));
    assert_eq!((v["decision"].as_str(), v["by"].as_str()), (Some("deny"), Some("rule")));
    let v = decision(&e.check(&["--allow", "bash(*)"], r#"{"tool":"bash","input":{"command":"git push"}}"#));
    assert_eq!(v["by"], "ask_rule");
    // What applies, seen through the library.
    let loaded = config::load_in(&e.root, &e.places(), None).unwrap();
    let p = loaded.project.as_ref().unwrap();
    assert!(p.permissions.allow.is_empty() && p.sandbox.write_paths.is_empty() && p.env.allow.is_empty());
    assert!(p.network.allow.is_empty() && p.executor.is_none() && p.mode.is_none());
    assert_eq!((p.permissions.deny.len(), p.sandbox.deny_read.len()), (1, 1));
    assert!(matches!(&loaded.consent, ProjectConsent::Withheld { refused: false, parts } if parts.len() == 6));
    // A stricter mode needs no consent.
    e.project(r#"{"mode": "plan"}"#);
    let loaded = config::load_in(&e.root, &e.places(), None).unwrap();
    assert_eq!(
        (loaded.consent.clone(), loaded.project.unwrap().mode),
        (ProjectConsent::NotNeeded, Some(wicket_policy::Mode::Plan))
    );
}

#[test]
fn a_project_cannot_turn_the_strict_profile_off() {
    let e = env();
    std::fs::write(e.wicket_home.join("policy.json"), r#"{"profile": "strict"}"#).unwrap();
    // There is no "off" value to write; a project's host executor is an error under strict.
    e.project(r#"{"profile": "lax"}"#);
    assert_eq!(e.plain(&["run", "--root", e.root.to_str().unwrap(), "--", "true"]).status.code(), Some(2));
    e.project(r#"{"executor": "host"}"#);
    let out = e.plain(&["run", "--root", e.root.to_str().unwrap(), "--", "true"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("strict profile"), "{}", stderr(&out));
    // Commands outside the sandbox are denied by the policy.
    e.project("{}");
    let v = decision(&e.check(&["--no-sandbox", "--allow", "bash(npm test*)"], NPM_TEST));
    assert_eq!((v["by"].as_str(), v["rule"].as_str()), (Some("policy"), Some("profile: strict")));
    // And a project can turn it on.
    std::fs::remove_file(e.wicket_home.join("policy.json")).unwrap();
    e.project(r#"{"profile": "strict"}"#);
    let v = decision(&e.check(&["--no-sandbox", "--allow", "bash(npm test*)"], NPM_TEST));
    assert_eq!(v["by"], "policy");
}

#[test]
fn consent_once_remember_and_a_change_asks_again() {
    let e = env();
    e.project(r#"{"permissions": {"allow": ["bash(npm test*)"]}}"#);
    let places = e.places();
    let load = |answer: Consent| {
        let mut asker = FixedConsent { answer, asked: 0 };
        let loaded = config::load_in(&e.root, &places, Some(&mut asker)).unwrap();
        (loaded, asker.asked)
    };
    let (l, asked) = load(Consent::No);
    assert_eq!(asked, 1);
    assert!(matches!(l.consent, ProjectConsent::Withheld { refused: true, .. }));
    assert!(l.project.unwrap().permissions.allow.is_empty());
    let (l, _) = load(Consent::Once);
    assert_eq!(l.consent, ProjectConsent::Granted { remembered: false });
    assert!(!e.wicket_home.join("trust.json").exists(), "once pins nothing");
    let (l, _) = load(Consent::Remember);
    assert_eq!(l.consent, ProjectConsent::Granted { remembered: true });
    assert_eq!(l.project.unwrap().permissions.allow, ["bash(npm test*)"]);
    // Pinned: not asked again, and `check` applies it.
    let (l, asked) = load(Consent::No);
    assert_eq!((asked, l.consent), (0, ProjectConsent::Pinned));
    assert_eq!(decision(&e.check(&["--no-sandbox"], NPM_TEST))["decision"], "allow");
    // Changes elsewhere (a deny rule) keep the pin; a changed loosening part asks again.
    e.project(r#"{"permissions": {"allow": ["bash(npm test*)"], "deny": ["bash(rm*)"]}}"#);
    assert_eq!(load(Consent::No).1, 0);
    e.project(r#"{"permissions": {"allow": ["bash(npm test*)", "bash(*)"]}}"#);
    let (l, asked) = load(Consent::No);
    assert_eq!(asked, 1, "a changed setting asks again");
    assert!(!l.consent.applied());
    assert_eq!(decision(&e.check(&["--no-sandbox"], NPM_TEST))["decision"], "ask");
    // `wicket trust revoke` forgets it.
    e.project(r#"{"permissions": {"allow": ["bash(npm test*)"]}}"#);
    assert_eq!(load(Consent::No).1, 0);
    let out = e.plain(&["trust", "list"]);
    let root_key = wicket::trust::root_key(&e.root);
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("{root_key}  settings  sha256 ")), "{out:?}");
    let out = e.plain(&["trust", "revoke", "--root", e.root.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("revoked 1 pin(s)"), "{out:?}");
    assert_eq!(load(Consent::No).1, 1);
}

#[test]
fn the_trust_file_is_private_and_written_atomically() {
    use std::os::unix::fs::PermissionsExt;
    let e = env();
    let dir = e.home.join("fresh-home");
    let mut store = TrustStore::empty(&dir.join("trust.json"));
    store.pin(&e.root, PinKind::Settings, None, &"a".repeat(64));
    store.pin(&e.root, PinKind::McpServer, Some("github"), &"b".repeat(64));
    store.pin(&e.root, PinKind::Hook, Some("pre-tool"), &"c".repeat(64));
    store.save().unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&dir), mode(&dir.join("trust.json"))), (0o700, 0o600));
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["trust.json"], "no temporary file left");
    let (loaded, notice) = TrustStore::load(&dir.join("trust.json"));
    assert!(notice.is_none());
    assert!(loaded.is_pinned(&e.root, PinKind::McpServer, Some("github"), &"b".repeat(64)));
    assert!(!loaded.is_pinned(&e.root, PinKind::McpServer, Some("other"), &"b".repeat(64)));
    assert!(loaded.is_pinned(&e.root, PinKind::Hook, Some("pre-tool"), &"c".repeat(64)));
    assert!(!loaded.is_pinned(&e.root, PinKind::Settings, None, &"b".repeat(64)));
}

#[test]
fn a_broken_or_hostile_trust_file_trusts_nothing() {
    let e = env();
    e.project(r#"{"permissions": {"allow": ["bash(npm test*)"]}}"#);
    let trust = e.wicket_home.join("trust.json");
    // A valid pin for this project, kept elsewhere.
    let hash = config::load_in(&e.root, &e.places(), None).unwrap().project_hash.unwrap();
    let elsewhere = e.home.join("elsewhere.json");
    let mut good = TrustStore::empty(&elsewhere);
    good.pin(&e.root, PinKind::Settings, None, &hash);
    good.save().unwrap();
    let valid = std::fs::read_to_string(&elsewhere).unwrap();
    let huge = format!("{}{}", &valid[..valid.len() - 2], " ".repeat(2 * 1024 * 1024) + "}\n");
    type Make<'a> = Box<dyn Fn() + 'a>;
    let cases: Vec<(&str, Make)> = vec![
        ("not JSON", Box::new(|| std::fs::write(&trust, "{oops").unwrap())),
        ("wrong types", Box::new(|| std::fs::write(&trust, valid.replace("\"settings\"", "7")).unwrap())),
        ("pins not a list", Box::new(|| std::fs::write(&trust, r#"{"version": 1, "pins": {"a": 1}}"#).unwrap())),
        (
            "unknown key",
            Box::new(|| {
                std::fs::write(&trust, valid.replacen("\"version\"", "\"trust_all\": true, \"version\"", 1)).unwrap()
            }),
        ),
        ("bad hash", Box::new(|| std::fs::write(&trust, valid.replace(&hash, &hash.to_uppercase())).unwrap())),
        (
            "wrong version",
            Box::new(|| std::fs::write(&trust, valid.replace("\"version\": 1", "\"version\": 9")).unwrap()),
        ),
        ("huge", Box::new(|| std::fs::write(&trust, &huge).unwrap())),
        ("symlink to elsewhere", Box::new(|| std::os::unix::fs::symlink(&elsewhere, &trust).unwrap())),
        ("a folder", Box::new(|| std::fs::create_dir(&trust).unwrap())),
    ];
    // The valid file itself is trusted (the control).
    std::fs::copy(&elsewhere, &trust).unwrap();
    assert_eq!(config::load_in(&e.root, &e.places(), None).unwrap().consent, ProjectConsent::Pinned);
    for (name, make) in cases {
        let _ = std::fs::remove_file(&trust);
        let _ = std::fs::remove_dir(&trust);
        make();
        let loaded = config::load_in(&e.root, &e.places(), None).unwrap();
        assert!(!loaded.consent.applied(), "{name}: trusted");
        assert!(loaded.project.unwrap().permissions.allow.is_empty(), "{name}");
        assert!(loaded.notices.iter().any(|n| n.contains("trusts nothing")), "{name}: {:?}", loaded.notices);
        // `check` still works and prints a decision.
        assert_eq!(decision(&e.check(&["--no-sandbox"], NPM_TEST))["decision"], "ask", "{name}");
    }
    // "Remember" replaces a broken file (a link is replaced, its target untouched).
    let _ = std::fs::remove_dir(&trust);
    std::os::unix::fs::symlink(&elsewhere, &trust).unwrap();
    let before = std::fs::read_to_string(&elsewhere).unwrap();
    let mut asker = FixedConsent { answer: Consent::Remember, asked: 0 };
    config::load_in(&e.root, &e.places(), Some(&mut asker)).unwrap();
    assert!(!std::fs::symlink_metadata(&trust).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), before);
    assert_eq!(config::load_in(&e.root, &e.places(), None).unwrap().consent, ProjectConsent::Pinned);
}

#[test]
fn policy_show_names_the_source_of_each_value() {
    let e = env();
    std::fs::write(
        &e.managed,
        r#"{"disallowedCommands": ["curl*"], "limits": {"maxSteps": 200}, "audit": {"enabled": true}}"#,
    )
    .unwrap();
    std::fs::write(e.wicket_home.join("policy.json"), r#"{"limits": {"maxSteps": 100}, "allowedModels": ["m1"]}"#)
        .unwrap();
    std::fs::write(e.wicket_home.join("settings.json"), r#"{"permissions": {"deny": ["bash(npm publish*)"]}}"#)
        .unwrap();
    e.project(r#"{"permissions": {"allow": ["bash(npm test*)"], "ask": ["bash(git push*)"]}, "profile": "strict"}"#);
    let out = e.plain(&["policy", "show", "--root", e.root.to_str().unwrap(), "--allow", "bash(make*)"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "\"curl*\"  (managed policy)",
        "limits.maxSteps: 100  (user policy)",
        "allowedModels: [\"m1\"]",
        "audit.enabled: true  (managed policy)",
        "profile: strict  (project settings)",
        "requireSandbox: true",
        "\"bash(npm publish*)\"  (user settings)",
        "\"bash(npm test*)\"  (project settings, waiting for consent (not applied))",
        "\"bash(git push*)\"  (project settings)",
        "\"bash(make*)\"  (command line)",
        "allow rules: \"bash(npm test*)\"",
    ] {
        assert!(text.contains(want), "{want:?} missing:\n{text}");
    }
}

#[test]
fn policy_lint_runs_rule_examples() {
    let e = env();
    e.project(
        r#"{"permissions": {"allow": ["bash(npm test*)"]},
            "examples": {"bash(npm test*)": {"match": ["npm test"], "not_match": ["npm test; rm -rf /"]}}}"#,
    );
    let out = e.plain(&["policy", "lint", "--root", e.root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 rule example(s) hold"));
    e.project(
        r#"{"permissions": {"allow": ["bash(npm test*)"]},
            "examples": {"bash(npm test*)": {"match": ["npm run build"], "not_match": ["npm test --watch"]}}}"#,
    );
    let out = e.plain(&["policy", "lint", "--root", e.root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("the rule bash(npm test*) does not match the example \"npm run build\""), "{text}");
    assert!(text.contains("the rule bash(npm test*) matches the example \"npm test --watch\""), "{text}");
    // A broken policy file is a lint error too.
    std::fs::write(&e.managed, "{\"limits\": {\"maxStep\": 1}}").unwrap();
    let out = e.plain(&["policy", "lint", "--root", e.root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("limits.maxStep"));
}

#[test]
fn the_policy_audit_block_sets_the_audit_options() {
    let team = wicket_policy::TeamPolicy::parse(
        r#"{"audit": {"enabled": true, "level": "denials", "checkpoint": true}}"#,
        "p",
    )
    .unwrap();
    let o = wicket::audit::options(&team);
    assert!(o.mandatory && o.checkpoint);
    assert_eq!(o.level, wicket_audit::Level::Denials);
    let o = wicket::audit::options(&wicket_policy::TeamPolicy::default());
    // The head record (the chain's checkpoint) is kept whatever the policy says.
    assert!(o.checkpoint && !o.mandatory && o.level == wicket_audit::Level::All);
    // Mandatory through the policy file: a log that cannot be written denies.
    let e = env();
    std::fs::write(&e.managed, r#"{"audit": {"enabled": true}}"#).unwrap();
    std::fs::write(e.wicket_home.join("audit"), "not a folder").unwrap();
    let v = decision(&e.check(&["--allow", "bash(npm test*)"], NPM_TEST));
    assert_eq!((v["decision"].as_str(), v["by"].as_str()), (Some("deny"), Some("policy")), "{v}");
}

#[test]
fn deny_paths_hold_in_the_real_sandbox() {
    let e = env();
    std::fs::write(&e.managed, r#"{"denyPaths": ["private.txt", "vault/**"]}"#).unwrap();
    std::fs::create_dir_all(e.root.join("sub")).unwrap();
    std::fs::create_dir_all(e.root.join("vault")).unwrap();
    std::fs::write(e.root.join("sub/private.txt"), "TOPSECRET-FILE").unwrap();
    std::fs::write(e.root.join("vault/key"), "TOPSECRET-VAULT").unwrap();
    // The engine cannot see what a script reads: only the sandbox stops it.
    std::fs::write(
        e.root.join("reader.sh"),
        "cat sub/private.txt && echo READ-FILE\ncat vault/key && echo READ-VAULT\necho x > sub/private.txt && echo WROTE\necho ok > other.txt && echo OTHER\n",
    )
    .unwrap();
    let root = e.root.to_str().unwrap();
    let out = e.plain(&["run", "--root", root, "--", "sh", "reader.sh"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("TOPSECRET") && !stdout.contains("READ-") && !stdout.contains("WROTE"),
        "{stdout}\n{}",
        stderr(&out)
    );
    assert!(stdout.contains("OTHER"), "the rest of the project stays writable: {stdout}\n{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(e.root.join("sub/private.txt")).unwrap(), "TOPSECRET-FILE");
    // `cat` of the denied file fails inside `wicket run`.
    let out = e.plain(&["run", "--root", root, "--", "sh", "-c", "cat \"$0\"", "sub/private.txt"]);
    assert_ne!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("TOPSECRET"));
    // The same read without the policy works (the control).
    std::fs::remove_file(&e.managed).unwrap();
    let out = e.plain(&["run", "--root", root, "--", "sh", "reader.sh"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("READ-FILE"), "{}", stderr(&out));
}

#[test]
fn too_many_deny_path_matches_refuse_to_run() {
    let e = env();
    std::fs::write(&e.managed, r#"{"denyPaths": ["*.key"]}"#).unwrap();
    std::fs::create_dir_all(e.root.join("keys")).unwrap();
    for i in 0..1001 {
        std::fs::write(e.root.join(format!("keys/{i}.key")), "").unwrap();
    }
    let out = e.plain(&["run", "--root", e.root.to_str().unwrap(), "--", "sh", "-c", "echo RAN"]);
    assert_eq!(out.status.code(), Some(126), "{}", stderr(&out));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("RAN"));
    assert!(stderr(&out).contains("more than 1000 paths"), "{}", stderr(&out));
}
