//! The team policy: the merge table and step 1 of the decision, every message.

#![allow(clippy::disallowed_methods)] // a test: it makes the files, folders and processes it checks against
#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::path::Path;

use wicket_policy::team::{AuditLevel, TeamPolicy};
use wicket_policy::{By, Decision, Policy, PolicyConfig, Session, ToolCall};

fn parse(json: &str) -> TeamPolicy {
    TeamPolicy::parse(json, "policy.json").unwrap_or_else(|e| panic!("{json}: {e}"))
}

/// One row of the merge table: two files (managed first) and the merged result.
struct MergeCase {
    field: &'static str,
    managed: &'static str,
    user: &'static str,
    merged: &'static str,
}

#[test]
fn merge_table_the_stricter_value_wins() {
    let cases = [
        MergeCase {
            field: "lists are united, managed first, no duplicates",
            managed: r#"{"disallowedCommands": ["curl*", "wget*"], "denyPaths": ["secrets/**"], "network": {"blockedHosts": ["a.com"]}}"#,
            user: r#"{"disallowedCommands": ["wget*", "nc*"], "denyPaths": ["*.pem"], "network": {"blockedHosts": ["b.com"]}}"#,
            merged: r#"{"disallowedCommands": ["curl*", "wget*", "nc*"], "denyPaths": ["secrets/**", "*.pem"], "network": {"blockedHosts": ["a.com", "b.com"]}}"#,
        },
        MergeCase {
            field: "booleans are or'ed (managed true)",
            managed: r#"{"requireSandbox": true, "network": {"strictAllowlist": true}, "audit": {"enabled": true, "checkpoint": true}}"#,
            user: r#"{"requireSandbox": false, "network": {"strictAllowlist": false}, "audit": {"enabled": false, "checkpoint": false}}"#,
            merged: r#"{"requireSandbox": true, "network": {"strictAllowlist": true}, "audit": {"enabled": true, "checkpoint": true}}"#,
        },
        MergeCase {
            field: "booleans are or'ed (user true)",
            managed: r#"{}"#,
            user: r#"{"requireSandbox": true, "audit": {"checkpoint": true}}"#,
            merged: r#"{"requireSandbox": true, "audit": {"checkpoint": true}}"#,
        },
        MergeCase {
            field: "limits take the minimum",
            managed: r#"{"limits": {"maxSteps": 200, "tokenBudget": 1000}}"#,
            user: r#"{"limits": {"maxSteps": 100, "tokenBudget": 5000}}"#,
            merged: r#"{"limits": {"maxSteps": 100, "tokenBudget": 1000}}"#,
        },
        MergeCase {
            field: "a limit set in one file only holds",
            managed: r#"{"limits": {"maxSteps": 50}}"#,
            user: r#"{"limits": {"tokenBudget": 7}}"#,
            merged: r#"{"limits": {"maxSteps": 50, "tokenBudget": 7}}"#,
        },
        MergeCase {
            field: "strict wins (managed)",
            managed: r#"{"profile": "strict"}"#,
            user: r#"{}"#,
            merged: r#"{"profile": "strict"}"#,
        },
        MergeCase {
            field: "strict wins (user)",
            managed: r#"{}"#,
            user: r#"{"profile": "strict"}"#,
            merged: r#"{"profile": "strict"}"#,
        },
        MergeCase {
            field: "allowed models: only those every list allows",
            managed: r#"{"allowedModels": ["a", "b", "c"]}"#,
            user: r#"{"allowedModels": ["c", "b", "x"]}"#,
            merged: r#"{"allowedModels": ["b", "c"]}"#,
        },
        MergeCase {
            field: "allowed models: a missing list allows all",
            managed: r#"{}"#,
            user: r#"{"allowedModels": ["a"]}"#,
            merged: r#"{"allowedModels": ["a"]}"#,
        },
        MergeCase {
            field: "audit level: the one that keeps the most lines",
            managed: r#"{"audit": {"level": "denials"}}"#,
            user: r#"{"audit": {"level": "mutations"}}"#,
            merged: r#"{"audit": {"level": "mutations"}}"#,
        },
        MergeCase {
            field: "audit level: all beats everything",
            managed: r#"{"audit": {"level": "all"}}"#,
            user: r#"{"audit": {"level": "denials"}}"#,
            merged: r#"{"audit": {"level": "all"}}"#,
        },
        MergeCase { field: "nothing and nothing", managed: r#"{}"#, user: r#"{}"#, merged: r#"{}"# },
    ];
    for c in cases {
        let got = TeamPolicy::merge([&parse(c.managed), &parse(c.user)]);
        assert_eq!(got, parse(c.merged), "{}", c.field);
    }
    // The merge is no looser in either order.
    let a = parse(r#"{"limits": {"maxSteps": 3}, "audit": {"level": "denials"}}"#);
    let b = parse(r#"{"limits": {"maxSteps": 9}, "audit": {"level": "all"}, "profile": "strict"}"#);
    let (ab, ba) = (TeamPolicy::merge([&a, &b]), TeamPolicy::merge([&b, &a]));
    assert_eq!((ab.limits, ab.audit.level, ab.strict()), (ba.limits, ba.audit.level, ba.strict()));
    assert_eq!(ab.audit.level, Some(AuditLevel::All));
}

/// One step-1 case.
struct Case {
    id: &'static str,
    policy: &'static str,
    tool: &'static str,
    input: serde_json::Value,
    allow: &'static [&'static str],
    sandbox: bool,
    /// `["file", path]` or `["link", path, target]` (relative to the root).
    setup: &'static [&'static [&'static str]],
    /// `None`: step 1 must not decide (the call is not denied by the policy).
    deny: Option<(&'static str, &'static str)>,
}

fn decide(root: &Path, home: &Path, c: &Case) -> wicket_policy::Verdict {
    for step in c.setup {
        let at = root.join(step[1]);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        match step[0] {
            "file" => std::fs::write(&at, "x").unwrap(),
            "link" => std::os::unix::fs::symlink(root.join(step[2]), &at).unwrap(),
            other => panic!("{other}"),
        }
    }
    let cfg = PolicyConfig {
        root: root.to_path_buf(),
        home: Some(home.to_path_buf()),
        sandbox: c.sandbox,
        sandbox_network: false,
        allow: c.allow.iter().map(|s| s.to_string()).collect(),
        team: parse(c.policy),
        ..PolicyConfig::default()
    };
    let policy = Policy::new(&cfg).unwrap();
    policy.decide(&ToolCall::new(c.tool, c.input.clone()), &Session::new())
}

#[test]
fn step1_every_policy_message_names_its_pattern() {
    use serde_json::json;
    let cases = [
        // Disallowed commands: any part, wrappers stripped, or the whole line.
        Case {
            id: "disallowed-plain",
            policy: r#"{"disallowedCommands": ["curl*"]}"#,
            tool: "bash",
            input: json!({"command": "curl https://x.io"}),
            allow: &["bash(*)"],
            sandbox: true,
            setup: &[],
            deny: Some((
                "curl*",
                "the team policy disallows the command pattern \"curl*\" (it matches \"curl https://x.io\")",
            )),
        },
        Case {
            id: "disallowed-behind-wrappers",
            policy: r#"{"disallowedCommands": ["curl*"]}"#,
            tool: "bash",
            input: json!({"command": "ls && sudo env X=1 timeout 5 curl https://x.io"}),
            allow: &[],
            sandbox: true,
            setup: &[],
            deny: Some(("curl*", "disallows the command pattern \"curl*\"")),
        },
        Case {
            id: "disallowed-inside-bash-c",
            policy: r#"{"disallowedCommands": ["git push --force*"]}"#,
            tool: "bash",
            input: json!({"command": "bash -c 'git push --force origin main'"}),
            allow: &[],
            sandbox: true,
            setup: &[],
            deny: Some(("git push --force*", "\"git push --force*\"")),
        },
        Case {
            id: "disallowed-whole-line",
            policy: r#"{"disallowedCommands": ["* | sh"]}"#,
            tool: "bash",
            input: json!({"command": "cat x | sh"}),
            allow: &[],
            sandbox: true,
            setup: &[],
            deny: Some(("* | sh", "\"* | sh\"")),
        },
        Case {
            id: "disallowed-dynamic-part",
            policy: r#"{"disallowedCommands": ["git push*"]}"#,
            tool: "bash",
            input: json!({"command": "git $(echo push)"}),
            allow: &[],
            sandbox: true,
            setup: &[],
            deny: Some(("git push*", "cannot be ruled out")),
        },
        Case {
            id: "disallowed-mcp-command-argument",
            policy: r#"{"disallowedCommands": ["rm -rf*"]}"#,
            tool: "mcp__shell__run",
            input: json!({"command": "rm -rf /"}),
            allow: &["mcp__shell__run"],
            sandbox: true,
            setup: &[],
            deny: Some(("rm -rf*", "\"rm -rf*\"")),
        },
        Case {
            id: "disallowed-other-command-passes",
            policy: r#"{"disallowedCommands": ["curl*"]}"#,
            tool: "bash",
            input: json!({"command": "cargo test"}),
            allow: &[],
            sandbox: true,
            setup: &[],
            deny: None,
        },
        // Require sandbox: outside it, or no sandbox at all.
        Case {
            id: "require-sandbox-outside",
            policy: r#"{"requireSandbox": true}"#,
            tool: "bash",
            input: json!({"command": "ls", "outside_sandbox": true}),
            allow: &["bash(ls*)"],
            sandbox: true,
            setup: &[],
            deny: Some((
                "requireSandbox",
                "runs commands only in the OS sandbox, and this call asks to run it outside",
            )),
        },
        Case {
            id: "require-sandbox-none-here",
            policy: r#"{"requireSandbox": true}"#,
            tool: "bash",
            input: json!({"command": "ls"}),
            allow: &["bash(ls*)"],
            sandbox: false,
            setup: &[],
            deny: Some(("requireSandbox", "there is no OS sandbox here")),
        },
        Case {
            id: "strict-implies-require-sandbox",
            policy: r#"{"profile": "strict"}"#,
            tool: "bash",
            input: json!({"command": "ls", "outside_sandbox": true}),
            allow: &[],
            sandbox: true,
            setup: &[],
            deny: Some(("profile: strict", "the team policy (profile: strict)")),
        },
        Case {
            id: "require-sandbox-inside-passes",
            policy: r#"{"requireSandbox": true}"#,
            tool: "bash",
            input: json!({"command": "ls"}),
            allow: &[],
            sandbox: true,
            setup: &[],
            deny: None,
        },
        // Deny paths: beat a named allow rule, apply to link targets, commands, folders.
        Case {
            id: "deny-path-beats-named-allow",
            policy: r#"{"denyPaths": ["config/prod.yaml"]}"#,
            tool: "read_file",
            input: json!({"path": "config/prod.yaml"}),
            allow: &["read_file(config/prod.yaml)"],
            sandbox: true,
            setup: &[&["file", "config/prod.yaml"]],
            deny: Some((
                "config/prod.yaml",
                "\"config/prod.yaml\" is denied by the team policy (path pattern \"config/prod.yaml\")",
            )),
        },
        Case {
            id: "deny-path-through-a-link",
            policy: r#"{"denyPaths": ["private/**"]}"#,
            tool: "read_file",
            input: json!({"path": "notes.txt"}),
            allow: &["read_file(**)"],
            sandbox: true,
            setup: &[&["file", "private/a.txt"], &["link", "notes.txt", "private/a.txt"]],
            deny: Some(("private/**", "reached through a link to")),
        },
        Case {
            id: "deny-path-folder-denies-what-is-in-it",
            policy: r#"{"denyPaths": ["vault"]}"#,
            tool: "write_file",
            input: json!({"path": "vault/new.txt", "content": "x"}),
            allow: &["write_file(**)"],
            sandbox: true,
            setup: &[&["file", "vault/a"]],
            deny: Some(("vault", "(path pattern \"vault\")")),
        },
        Case {
            id: "deny-path-command-argument",
            policy: r#"{"denyPaths": ["*.pem"]}"#,
            tool: "bash",
            input: json!({"command": "cp certs/server.pem /tmp/x"}),
            allow: &["bash(*)"],
            sandbox: true,
            setup: &[&["file", "certs/server.pem"]],
            deny: Some(("*.pem", "the command reaches \"certs/server.pem\", which the team policy denies")),
        },
        Case {
            id: "deny-path-redirect",
            policy: r#"{"denyPaths": ["*.pem"]}"#,
            tool: "bash",
            input: json!({"command": "echo x > new.pem"}),
            allow: &["bash(*)", "write_file(**)"],
            sandbox: true,
            setup: &[],
            deny: Some(("*.pem", "(path pattern \"*.pem\")")),
        },
        Case {
            id: "deny-path-other-file-passes",
            policy: r#"{"denyPaths": ["*.pem"]}"#,
            tool: "read_file",
            input: json!({"path": "README.md"}),
            allow: &[],
            sandbox: true,
            setup: &[&["file", "README.md"]],
            deny: None,
        },
        // Blocked hosts in any spelling.
        Case {
            id: "blocked-host",
            policy: r#"{"network": {"blockedHosts": ["*.pastebin.com"]}}"#,
            tool: "web_fetch",
            input: json!({"url": "https://A.PasteBin.COM./raw/x"}),
            allow: &["web_fetch(*)"],
            sandbox: true,
            setup: &[],
            deny: Some((
                "*.pastebin.com",
                "a.pastebin.com is blocked by the team policy (host pattern \"*.pastebin.com\")",
            )),
        },
        Case {
            id: "blocked-ip-any-spelling",
            policy: r#"{"network": {"blockedHosts": ["10.0.0.1"]}}"#,
            tool: "web_fetch",
            input: json!({"url": "http://0x0a000001/"}),
            allow: &["web_fetch(*)"],
            sandbox: true,
            setup: &[],
            deny: Some(("10.0.0.1", "10.0.0.1 is blocked")),
        },
        Case {
            id: "blocked-host-mcp-url",
            policy: r#"{"network": {"blockedHosts": ["evil.example"]}}"#,
            tool: "mcp__browser__open",
            input: json!({"url": "https://evil.example/"}),
            allow: &["mcp__browser__open"],
            sandbox: true,
            setup: &[],
            deny: Some(("evil.example", "evil.example is blocked")),
        },
        // Strict allowlist: hosts without an allow rule are denied, not asked.
        Case {
            id: "strict-allowlist-no-rule",
            policy: r#"{"network": {"strictAllowlist": true}}"#,
            tool: "web_fetch",
            input: json!({"url": "https://docs.rs/x"}),
            allow: &[],
            sandbox: true,
            setup: &[],
            deny: Some(("network.strictAllowlist", "none names docs.rs")),
        },
        Case {
            id: "strict-allowlist-with-rule-passes",
            policy: r#"{"network": {"strictAllowlist": true}}"#,
            tool: "web_fetch",
            input: json!({"url": "https://docs.rs/x"}),
            allow: &["web_fetch(docs.rs)"],
            sandbox: true,
            setup: &[],
            deny: None,
        },
    ];
    for c in &cases {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("proj");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let v = decide(&root, &home, c);
        match c.deny {
            Some((rule, text)) => {
                assert_eq!((v.decision, v.by), (Decision::Deny, By::Policy), "{}: {v:?}", c.id);
                assert_eq!(v.kind, "deny_policy", "{}", c.id);
                assert_eq!(v.rule.as_deref(), Some(rule), "{}: {}", c.id, v.reason);
                assert!(v.reason.contains(text), "{}: {:?} lacks {text:?}", c.id, v.reason);
            }
            None => assert_ne!(v.by, By::Policy, "{}: {v:?}", c.id),
        }
    }
}

#[test]
fn limits_and_models_are_exposed() {
    let tmp = tempfile::tempdir().unwrap();
    let team = parse(r#"{"limits": {"maxSteps": 40, "tokenBudget": 900}, "allowedModels": ["m1"]}"#);
    let policy =
        Policy::new(&PolicyConfig { root: tmp.path().to_path_buf(), team, ..PolicyConfig::default() }).unwrap();
    assert_eq!((policy.team().limits.max_steps, policy.team().limits.token_budget), (Some(40), Some(900)));
    assert!(policy.team().model_allowed("m1") && !policy.team().model_allowed("m2"));
    assert!(TeamPolicy::default().model_allowed("anything"));
}

#[test]
fn an_empty_policy_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = PolicyConfig { root: tmp.path().to_path_buf(), sandbox: true, ..PolicyConfig::default() };
    let v = Policy::new(&cfg)
        .unwrap()
        .decide(&ToolCall::new("bash", serde_json::json!({"command": "curl x"})), &Session::new());
    assert_eq!((v.decision, v.by), (Decision::Allow, By::Sandbox));
}
