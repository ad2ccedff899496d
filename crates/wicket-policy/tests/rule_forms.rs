//! Rule forms: Claude Code's permission syntax decides exactly as the wicket rules it stands
//! for, and a rule that could never match is an error that says what to write. The cases are
//! data (`cases/rule_forms.jsonl`, one a line): `same_as` lists the wicket rules a rule means,
//! `error` a part of the message it must give, `inert` why no call here shows the rule's effect;
//! `{{ROOT}}` stands for the project's absolute path.

#![allow(clippy::disallowed_methods)] // a test: it makes the files, folders and processes it checks against
#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use serde_json::{json, Value};
use wicket_policy::{Decision, Policy, PolicyConfig, Session, ToolCall};

/// Calls every rule form could touch, inside and outside the project.
fn calls(root: &str, home: &str) -> Vec<ToolCall> {
    let mut calls = Vec::new();
    for command in [
        "git push origin main",
        "git push",
        "git pull",
        "npm run test",
        "npm run test -- -u",
        "npm run lint",
        "ls",
        "ls -la",
    ] {
        calls.push(ToolCall::new("bash", json!({"command": command, "outside_sandbox": true})));
    }
    let paths = [
        format!("{root}/.env"),
        format!("{root}/src/a.rs"),
        format!("{root}/docs/x.md"),
        format!("{root}/docs/sub/y.md"),
        format!("{home}/.ssh/id_rsa"),
        "/etc/hosts".to_string(),
    ];
    for p in &paths {
        calls.push(ToolCall::new("read_file", json!({"path": p})));
        calls.push(ToolCall::new("write_file", json!({"path": p, "content": "x"})));
        calls.push(ToolCall::new("edit_file", json!({"path": p, "old_string": "a", "new_string": "b"})));
        calls.push(ToolCall::new("grep", json!({"pattern": "x", "path": p})));
        calls.push(ToolCall::new("glob", json!({"pattern": "*", "path": p})));
    }
    for url in ["https://example.com/a", "https://docs.python.org/3/", "https://python.org/", "https://evil.test/"] {
        calls.push(ToolCall::new("web_fetch", json!({"url": url})));
    }
    calls.push(ToolCall::new("web_search", json!({"query": "rust"})));
    calls.push(ToolCall::new("mcp__github__get_issue", json!({"number": 1})));
    calls.push(ToolCall::new("mcp__github__create_issue", json!({"title": "x"})));
    calls
}

fn decisions(root: &std::path::Path, home: &std::path::Path, list: &str, rules: &[String]) -> Vec<Decision> {
    let mut cfg = PolicyConfig { root: root.to_path_buf(), home: Some(home.to_path_buf()), ..PolicyConfig::default() };
    match list {
        "allow" => cfg.allow = rules.to_vec(),
        _ => cfg.deny = rules.to_vec(),
    }
    let policy = Policy::new(&cfg).unwrap_or_else(|e| panic!("{rules:?}: {e}"));
    let (r, h) = (root.to_str().unwrap(), home.to_str().unwrap());
    calls(r, h).iter().map(|c| policy.decide(c, &Session::new()).decision).collect()
}

#[test]
fn every_rule_form_decides_as_the_rules_it_stands_for_or_says_what_to_write() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases/rule_forms.jsonl")).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        n += 1;
        let case: Value = serde_json::from_str(line).unwrap();
        let r = root.to_str().unwrap();
        let rule = case["rule"].as_str().unwrap().replace("{{ROOT}}", r);
        if let Some(want) = case["error"].as_str() {
            match wicket_policy::rules::expand(&rule) {
                Ok(r) => failures.push(format!("{rule}: accepted as {r:?}, want an error with {want:?}")),
                Err(e) if !e.to_string().contains(want) => failures.push(format!("{rule}: {e}; want {want:?}")),
                Err(_) => {}
            }
            // And the policy refuses it too (fail closed, never a rule that silently does nothing).
            let cfg = PolicyConfig { root: root.clone(), deny: vec![rule.clone()], ..PolicyConfig::default() };
            if Policy::new(&cfg).is_ok() {
                failures.push(format!("{rule}: the policy was built with it"));
            }
            continue;
        }
        let same: Vec<String> =
            case["same_as"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().replace("{{ROOT}}", r)).collect();
        let mut matters = false;
        for list in ["allow", "deny"] {
            let got = decisions(&root, &home, list, std::slice::from_ref(&rule));
            let want = decisions(&root, &home, list, &same);
            if got != want {
                failures.push(format!("{rule} as {list}: decides {got:?}, but {same:?} decide {want:?}"));
            }
            matters |= got != decisions(&root, &home, list, &[]);
        }
        // The rule does something: as an allow or a deny rule it changes a decision.
        if !matters && case.get("inert").is_none() {
            failures.push(format!("{rule}: decides as if there were no rule, as allow and as deny"));
        }
    }
    assert!(n >= 25, "only {n} cases");
    assert!(failures.is_empty(), "{} of {n} cases failed:\n{}", failures.len(), failures.join("\n"));
}
