//! Security fixtures: `cases/attacks.jsonl` and `cases/benign.jsonl`, one case a line.
//!
//! Every attack (bypasses reported against coding agents, MCP servers and shell-trick write-ups)
//! must be denied or asked; at least 99 % of the benign cases (everyday agent work under the
//! case's rules) must be allowed. Each case is decided exactly like `tests/decisions.rs` does:
//! a fresh project root and home folder in a temporary directory, the case's `setup` laid out,
//! a policy built from its rules and mode.

#![allow(clippy::disallowed_methods)] // a test: it makes the files, folders and processes it checks against
#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use serde::Deserialize;
use std::path::PathBuf;

mod common;
use common::{lay_out, replace_placeholders};
use wicket_policy::{Policy, PolicyConfig, Session, ToolCall, Verdict};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    /// The public report, advisory or write-up the case comes from.
    source: String,
    /// A short tag for grouping failures.
    technique: String,
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
    /// `["file", p]`, `["dir", p]`, `["write", p, content]`, `["link", p, target]`,
    /// `["rawlink", p, target]`, `["hardlink", p, target]`; `~/` paths are in the temporary home.
    #[serde(default)]
    setup: Vec<Vec<String>>,
    /// The person's PATH folders the edge would pass (`PolicyConfig::path_dirs`), with the
    /// placeholders.
    #[serde(default)]
    path_dirs: Vec<String>,
    /// Attacks: `deny`, `ask` or `not_allow` (either). Benign: `allow`.
    expect: String,
}

/// Parse a fixture file: every non-empty line that is not a `//` comment is a case.
fn load(name: &str, text: &str) -> Vec<(usize, Case)> {
    let mut ids = std::collections::HashSet::new();
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let case: Case = serde_json::from_str(line).unwrap_or_else(|e| panic!("cases/{name}:{}: {e}", n + 1));
        assert!(ids.insert(case.id.clone()), "cases/{name}:{}: duplicate id {}", n + 1, case.id);
        assert!(!case.source.trim().is_empty(), "cases/{name}:{}: [{}] has no source", n + 1, case.id);
        cases.push((n + 1, case));
    }
    cases
}

/// Decide one case in a fresh temporary root and home, exactly as `tests/decisions.rs` does.
fn run(case: &Case) -> Verdict {
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
        path_dirs: match replace_placeholders(&serde_json::json!(case.path_dirs), &root, &home) {
            serde_json::Value::Array(dirs) => dirs.iter().filter_map(|d| d.as_str().map(PathBuf::from)).collect(),
            _ => Vec::new(),
        },
        // The short environment wicket's sandbox passes (wicket_planner::exec::env_names with
        // no `env.allow`, and the proxy's variables), as the edge hands it over.
        sandbox_env: Some(SANDBOX_ENV.iter().map(|s| s.to_string()).collect()),
    };
    let policy = Policy::new(&cfg).unwrap_or_else(|e| panic!("{}: {e}", case.id));
    let input = replace_placeholders(&case.input, &root, &home);
    let call = ToolCall::new(case.tool.clone(), input);
    policy.decide(&call, &Session::new())
}

/// The names a sandboxed command's environment may hold.
const SANDBOX_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "VIRTUAL_ENV",
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// A short, one-line rendering of a case's input for failure lists.
fn show_input(v: &serde_json::Value) -> String {
    let s = match v.get("command").and_then(|c| c.as_str()) {
        Some(c) => c.escape_debug().to_string(),
        None => v.to_string(),
    };
    if s.chars().count() > 160 {
        format!("{}… ({} chars)", s.chars().take(160).collect::<String>(), s.chars().count())
    } else {
        s
    }
}

fn describe(line: usize, case: &Case, v: &Verdict) -> String {
    let mut rules = Vec::new();
    for (kind, list) in [("allow", &case.allow), ("deny", &case.deny), ("ask", &case.ask)] {
        if !list.is_empty() {
            rules.push(format!("{kind} {list:?}"));
        }
    }
    if let Some(m) = &case.mode {
        rules.push(format!("mode {m}"));
    }
    if case.sandbox {
        rules.push("sandbox".into());
    }
    if case.unattended {
        rules.push("unattended".into());
    }
    format!(
        "line {line} [{}] technique {} | {} {} | {} | expected {}, got {} by {} ({}) -- {} [{}]",
        case.id,
        case.technique,
        case.tool,
        show_input(&case.input),
        rules.join(", "),
        case.expect,
        v.decision,
        v.by,
        v.reason,
        case.why,
        case.source
    )
}

#[test]
fn attack_fixtures() {
    let cases = load("attacks.jsonl", include_str!("cases/attacks.jsonl"));
    let mut failures = Vec::new();
    for (line, case) in &cases {
        let v = run(case);
        if std::env::var_os("ATTACK_CASES_VERBOSE").is_some() {
            println!("  CASE {}", describe(*line, case, &v));
        }
        let got = v.decision.as_str();
        let ok = match case.expect.as_str() {
            "deny" | "ask" => got == case.expect,
            "not_allow" => got == "deny" || got == "ask",
            other => {
                panic!("cases/attacks.jsonl:{line}: [{}] expect must be deny, ask or not_allow, not {other}", case.id)
            }
        };
        if !ok {
            failures.push((case.technique.clone(), describe(*line, case, &v)));
        }
    }
    failures.sort_by(|a, b| a.0.cmp(&b.0));
    println!("attack cases: {} ran, {} failed", cases.len(), failures.len());
    let listing: Vec<String> = failures.into_iter().map(|(_, d)| d).collect();
    for d in &listing {
        println!("  FAIL {d}");
    }
    assert!(cases.len() >= 200, "only {} attack cases", cases.len());
    assert!(listing.is_empty(), "{} of {} attack cases failed:\n{}", listing.len(), cases.len(), listing.join("\n"));
}

#[test]
fn benign_fixtures() {
    let cases = load("benign.jsonl", include_str!("cases/benign.jsonl"));
    let mut allowed = 0usize;
    let mut refused = Vec::new();
    for (line, case) in &cases {
        assert_eq!(case.expect, "allow", "cases/benign.jsonl:{line}: [{}] benign cases expect allow", case.id);
        let v = run(case);
        if v.decision.as_str() == "allow" {
            allowed += 1;
        } else {
            refused.push(describe(*line, case, &v));
        }
    }
    let ran = cases.len();
    let pct = if ran == 0 { 0.0 } else { allowed as f64 * 100.0 / ran as f64 };
    println!("benign cases: {ran} ran, {allowed} allowed ({pct:.1} %)");
    for d in &refused {
        println!("  NOT ALLOWED {d}");
    }
    assert!(ran >= 100, "only {ran} benign cases");
    assert!(
        allowed * 100 >= ran * 99,
        "only {allowed} of {ran} benign cases allowed ({pct:.1} %), need 99 %:\n{}",
        refused.join("\n")
    );
}
