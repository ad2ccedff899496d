//! Table-driven decisions: `cases/decisions.jsonl`, one case a line.
//!
//! Each case builds a fresh project root and home folder in a temporary directory, lays out
//! its `setup` (files, links, hard links, git config), builds a policy from its rules and mode,
//! replays its session answers, decides its call and compares decision and `by`.

#![allow(clippy::disallowed_methods)] // a test: it makes the files, folders and processes it checks against
#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use serde::Deserialize;

mod common;
use common::{lay_out, replace_placeholders};
use wicket_policy::{Policy, PolicyConfig, Rule, Session, ToolCall};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    #[serde(default)]
    why: String,
    tool: String,
    input: serde_json::Value,
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
    #[serde(default)]
    ask: Vec<String>,
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    sandbox: bool,
    #[serde(default)]
    unattended: bool,
    /// `["file", path]`, `["dir", path]`, `["link", path, target]`, `["hardlink", path, target]`,
    /// `["write", path, content]`. `~/` paths are in the temporary home.
    #[serde(default)]
    setup: Vec<Vec<String>>,
    /// Calls answered "yes for this session" before the decision.
    #[serde(default)]
    session: Vec<ToolCall>,
    /// Rules added by "always allow" before the decision.
    #[serde(default)]
    session_rules: Vec<String>,
    expect: String,
    #[serde(default)]
    by: Option<String>,
    /// Text the reason must contain (it names the right thing).
    #[serde(default)]
    reason_has: Option<String>,
    /// Text the reason must not contain.
    #[serde(default)]
    reason_lacks: Option<String>,
}

#[test]
fn decision_fixtures() {
    let text = include_str!("cases/decisions.jsonl");
    let mut ran = 0;
    let mut failures = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let case: Case = serde_json::from_str(line).unwrap_or_else(|e| panic!("cases/decisions.jsonl:{}: {e}", n + 1));
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("proj");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        lay_out(&root, &home, &case.setup);
        let cfg = PolicyConfig {
            root: root.clone(),
            home: Some(home.clone()),
            mode: case.mode.as_deref().map(|m| m.parse().unwrap()).unwrap_or_default(),
            unattended: case.unattended,
            sandbox: case.sandbox,
            sandbox_network: false,
            allow: case.allow.clone(),
            deny: case.deny.clone(),
            ask: case.ask.clone(),
            case_insensitive: None,
            team: Default::default(),
            git_config: None,
            path_dirs: Vec::new(),
            sandbox_env: None,
        };
        let policy = Policy::new(&cfg).unwrap_or_else(|e| panic!("{}: {e}", case.id));
        let mut session = Session::new();
        for c in &case.session {
            session.allow_call(c);
        }
        for r in &case.session_rules {
            session.add_rule(Rule::parse(r).unwrap()).unwrap();
        }
        let input = replace_placeholders(&case.input, &root, &home);
        let call = ToolCall::new(case.tool.clone(), input);
        let v = policy.decide(&call, &session);
        ran += 1;
        let by_ok = case.by.as_deref().is_none_or(|b| b == v.by.as_str());
        let reason_ok = case.reason_has.as_deref().is_none_or(|t| v.reason.contains(t))
            && case.reason_lacks.as_deref().is_none_or(|t| !v.reason.contains(t));
        if v.decision.as_str() != case.expect || !by_ok || !reason_ok {
            failures.push(format!(
                "line {} [{}] expected {} by {:?}, got {} by {} ({}) -- {}",
                n + 1,
                case.id,
                case.expect,
                case.by,
                v.decision,
                v.by,
                v.reason,
                case.why
            ));
        }
    }
    println!("decision cases: {ran} ran, {} failed", failures.len());
    assert!(failures.is_empty(), "{} of {ran} cases failed:\n{}", failures.len(), failures.join("\n"));
    assert!(ran >= 100, "only {ran} cases");
}

/// Which deny rules remove a tool entirely (front ends may hide such tools): the bare name,
/// `tool(*)` and a name ending in `*`, never a rule with a narrower pattern.
#[test]
fn deny_rules_that_remove_a_whole_tool() {
    let cases: &[(&str, &str, bool)] = &[
        ("mcp__fs__move_file", "mcp__fs__move_file", true),
        ("mcp__fs__move_file(*)", "mcp__fs__move_file", true),
        ("mcp__fs__*", "mcp__fs__write_file", true),
        ("mcp__fs__*", "mcp__gh__write_file", false),
        ("mcp__fs__write_file(/etc/**)", "mcp__fs__write_file", false),
        ("mcp__fs__move_file", "mcp__fs__move_file_2", false),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (rule, tool, removed) in cases {
        let cfg =
            PolicyConfig { root: dir.path().to_path_buf(), deny: vec![rule.to_string()], ..PolicyConfig::default() };
        let policy = Policy::new(&cfg).unwrap();
        assert_eq!(policy.denies_whole_tool(tool).is_some(), *removed, "{rule} vs {tool}");
    }
}
