//! `decide` against 1,000 rules: a path call and a five-part command.
//!
//! Run: `cargo bench -p wicket-policy --bench decide`. Numbers go in docs/performance.md.

#![allow(clippy::disallowed_methods)] // a benchmark: it lays out the project it decides against
#![allow(clippy::unwrap_used, clippy::expect_used)] // bench set-up

use divan::{black_box, Bencher};
use wicket_policy::{Policy, PolicyConfig, Session, ToolCall};

fn main() {
    divan::main();
}

/// 1,000 rules of every kind: command prefixes, path globs, hosts, MCP tools.
fn rules() -> (Vec<String>, Vec<String>) {
    let programs = ["npm", "pnpm", "cargo", "git", "make", "go", "pytest", "docker", "kubectl", "yarn"];
    let mut allow = Vec::new();
    let mut deny = Vec::new();
    for i in 0..1000 {
        let p = programs[i % programs.len()];
        let rule = match i % 5 {
            0 => format!("bash({p} task{i}*)"),
            1 => format!("write_file(src/mod{i}/**)"),
            2 => format!("read_file(docs/**/*.{i}.md)"),
            3 => format!("web_fetch(*.host{i}.example.com)"),
            _ => format!("mcp__server{i}__*"),
        };
        if i % 4 == 0 {
            deny.push(rule);
        } else {
            allow.push(rule);
        }
    }
    allow.push("write_file(src/**)".into());
    allow.push("bash(npm test*)".into());
    allow.push("bash(npm run lint*)".into());
    allow.push("bash(git status*)".into());
    allow.push("bash(grep *)".into());
    allow.push("bash(wc *)".into());
    (allow, deny)
}

fn policy(dir: &std::path::Path) -> Policy {
    let (allow, deny) = rules();
    std::fs::create_dir_all(dir.join("src/app")).unwrap();
    std::fs::write(dir.join("src/app/main.rs"), "fn main() {}").unwrap();
    Policy::new(&PolicyConfig { root: dir.to_path_buf(), allow, deny, ..PolicyConfig::default() }).unwrap()
}

#[divan::bench]
fn path_call_1000_rules(b: Bencher) {
    let tmp = tempfile::tempdir().unwrap();
    let p = policy(tmp.path());
    let s = Session::new();
    let call = ToolCall::new("write_file", serde_json::json!({"path": "src/app/main.rs", "content": "x"}));
    assert_eq!(p.decide(&call, &s).decision, wicket_policy::Decision::Allow);
    b.bench(|| p.decide(black_box(&call), &s));
}

#[divan::bench]
fn five_part_command_1000_rules(b: Bencher) {
    let tmp = tempfile::tempdir().unwrap();
    let p = policy(tmp.path());
    let s = Session::new();
    let call = ToolCall::new(
        "bash",
        serde_json::json!({"command": "git status && npm test -- --coverage | grep -v skip | wc -l; npm run lint"}),
    );
    assert_eq!(p.decide(&call, &s).decision, wicket_policy::Decision::Allow);
    b.bench(|| p.decide(black_box(&call), &s));
}

#[divan::bench]
fn policy_new_1000_rules(b: Bencher) {
    let tmp = tempfile::tempdir().unwrap();
    let (allow, deny) = rules();
    let cfg = PolicyConfig { root: tmp.path().to_path_buf(), allow, deny, ..PolicyConfig::default() };
    b.bench(|| Policy::new(black_box(&cfg)).unwrap());
}

/// A policy with no rules: mostly the built-in lists (sensitive files, protected paths, code
/// configuration), compiled at every process start, so part of every hook call.
#[divan::bench]
fn policy_new_no_rules(b: Bencher) {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = PolicyConfig { root: tmp.path().to_path_buf(), ..PolicyConfig::default() };
    b.bench(|| Policy::new(black_box(&cfg)).unwrap());
}
