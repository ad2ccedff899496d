//! End-to-end tests of `wicket check` and `wicket explain` as processes: the public contract.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use serde_json::json;
use std::io::Write;
use std::process::{Command, Output, Stdio};

struct Env {
    _tmp: tempfile::TempDir,
    root: std::path::PathBuf,
    home: std::path::PathBuf,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(home.join(".wicket")).unwrap();
    Env { _tmp: tmp, root, home }
}

/// `wicket ARGS --root ROOT` in the test's world, every stream piped.
fn command(env: &Env, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wicket"));
    cmd.args(args)
        .arg("--root")
        .arg(&env.root)
        .env("WICKET_HOME", env.home.join(".wicket"))
        .env("HOME", &env.home)
        .current_dir(&env.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn run(env: &Env, args: &[&str], stdin: &str) -> Output {
    let mut child = command(env, args).spawn().unwrap();
    // wicket may exit on a broken config before it reads stdin: a closed pipe is fine here.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn decision(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "exit {:?}, stderr {}", out.status, String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn check_prints_the_contract_fields() {
    let e = env();
    let out = run(&e, &["check"], r#"{"tool":"read_file","input":{"path":".env"}}"#);
    let v = decision(&out);
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["by"], "sensitive");
    assert!(v["reason"].as_str().unwrap().contains(".env"));
    assert_eq!(v["rule"], "**/.env");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with(r#"{"decision":"deny","by":"sensitive","reason":"#), "field order: {text}");
    assert!(text.ends_with("}\n"));
}

#[test]
fn flags_add_rules_and_modes() {
    let e = env();
    let call = r#"{"tool":"bash","input":{"command":"npm test"}}"#;
    assert_eq!(decision(&run(&e, &["check", "--no-sandbox"], call))["decision"], "ask");
    let v = decision(&run(&e, &["check", "--no-sandbox", "--allow", "bash(npm test*)"], call));
    assert_eq!((v["decision"].as_str(), v["rule"].as_str()), (Some("allow"), Some("bash(npm test*)")));
    let v = decision(&run(&e, &["check", "--no-sandbox", "--unattended"], call));
    assert_eq!((v["decision"].as_str(), v["by"].as_str()), (Some("deny"), Some("unattended")));
    let v = decision(&run(&e, &["check", "--allow", "bash(*)", "--deny", "bash(npm*)"], call));
    assert_eq!(v["decision"], "deny");
    let v = decision(&run(&e, &["check", "--ask", "bash(npm*)", "--mode", "auto"], call));
    assert_eq!((v["decision"].as_str(), v["by"].as_str()), (Some("ask"), Some("ask_rule")));
    let write = r#"{"tool":"write_file","input":{"path":"src/a.rs","content":"x"}}"#;
    assert_eq!(decision(&run(&e, &["check", "--mode", "accept-edits"], write))["decision"], "allow");
    assert_eq!(decision(&run(&e, &["check", "--mode", "plan"], write))["decision"], "deny");
    assert_eq!(decision(&run(&e, &["check", "--no-audit"], write))["decision"], "ask");
}

#[test]
fn sandbox_is_reported_only_where_it_exists() {
    let e = env();
    let call = r#"{"tool":"bash","input":{"command":"cargo build"}}"#;
    let v = decision(&run(&e, &["check", "--no-sandbox"], call));
    assert_eq!(v["decision"], "ask");
    // Whatever backend this machine has, `check` and `doctor` agree on it.
    let doctor = run_plain(&e, &["doctor", "--root", e.root.to_str().unwrap()]);
    let has_sandbox = String::from_utf8_lossy(&doctor.stdout).contains("commands run: in the OS sandbox");
    let v = decision(&run(&e, &["check", "--sandboxed"], call));
    assert_eq!(v["decision"], if has_sandbox { "allow" } else { "ask" }, "{v}");
    // The input can say so too.
    let inside = r#"{"tool":"bash","input":{"command":"cargo build","outside_sandbox":false}}"#;
    assert_eq!(decision(&run(&e, &["check"], inside))["decision"], v["decision"]);
}

/// The edge hands the engine the sandbox's short environment: a variable outside it that the
/// line never sets is unset in the sandbox, so its default is what runs, and a deny rule sees
/// it; on the host the person's environment may hold it, and the same line is not ruled out.
#[test]
fn a_default_of_a_variable_outside_the_sandbox_s_environment_is_what_runs_there() {
    let e = env();
    let doctor = run_plain(&e, &["doctor", "--root", e.root.to_str().unwrap()]);
    if !String::from_utf8_lossy(&doctor.stdout).contains("commands run: in the OS sandbox") {
        eprintln!("skipped: no OS sandbox here");
        return;
    }
    let call = |c: &str| serde_json::json!({"tool": "bash", "input": {"command": c}}).to_string();
    let deny = ["--deny", "bash(git push*)"];
    let judged = |flags: &[&str], c: &str| decision(&run(&e, &[&["check"], &deny[..], flags].concat(), &call(c)));
    assert_eq!(judged(&["--sandboxed"], "git ${WICKET_T_SUB:-status}")["decision"], "allow");
    let v = judged(&["--sandboxed"], "git ${WICKET_T_SUB:-push} origin main");
    assert_eq!((v["decision"].as_str(), v["by"].as_str()), (Some("deny"), Some("rule")), "{v}");
    // PATH is in the sandbox's environment: its value, not the default, runs.
    assert_ne!(judged(&["--sandboxed"], "git ${PATH:-status}")["decision"], "allow");
    assert_ne!(judged(&["--no-sandbox"], "git ${WICKET_T_SUB:-status}")["decision"], "allow");
}

#[test]
fn check_and_serve_decide_judge_a_command_as_run_by_the_caller_on_the_host() {
    let e = env();
    // Whoever asks runs the command itself: "the sandbox contains it" must not allow it.
    for command in ["cargo build", "npm test && rm -rf ~/work"] {
        let call = serde_json::json!({"tool": "bash", "input": {"command": command}}).to_string();
        let v = decision(&run(&e, &["check"], &call));
        assert_ne!(v["decision"], "allow", "{command}: {v}");
        assert_ne!(v["by"], "sandbox", "{command}: {v}");
        let request = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "decide", "params": {"tool": "bash", "input": {"command": command}}});
        let out = run(&e, &["serve", "--approval-timeout", "0"], &format!("{request}\n"));
        let answer = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|v| v["id"] == 1)
            .unwrap_or_else(|| panic!("serve gave no answer to 1: {}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(answer["result"]["decision"], "deny", "serve {command}: nobody answered the question: {answer}");
    }
}

#[test]
fn an_agents_tool_name_meets_the_rules_of_the_tool_it_names() {
    // Issue 39, class 13: `check` and `serve` take wicket's names; a caller that sends Claude
    // Code's `Bash` or Gemini CLI's `run_shell_command` must meet the same deny rules, safe
    // list and secrets, and a tool nobody knows is never allowed by a mode.
    let e = env();
    let deny_push = ["check", "--mode", "auto", "--deny", "bash(git push*)"];
    let cases = [
        (json!({"tool": "Bash", "input": {"command": "git push origin main"}}), &deny_push[..], "deny"),
        (json!({"tool": "run_shell_command", "input": {"command": "git push origin main"}}), &deny_push[..], "deny"),
        (json!({"tool": "Bash", "input": {"command": "git status"}}), &["check"][..], "allow"),
        (json!({"tool": "Read", "input": {"file_path": ".env"}}), &["check", "--mode", "auto"][..], "deny"),
        (json!({"tool": "SomeNewTool", "input": {"x": 1}}), &["check", "--mode", "auto"][..], "ask"),
        // Where the command runs is said in wicket's words: Claude Code's flag's default does
        // not make a host command count as sandboxed.
        (json!({"tool": "Bash", "input": {"command": "cargo build"}}), &["check"][..], "ask"),
    ];
    for (call, args, want) in cases {
        let v = decision(&run(&e, args, &call.to_string()));
        assert_eq!(v["decision"], want, "{call}: {v}");
        assert_ne!(v["by"], "sandbox", "{call}: {v}");
    }
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "decide", "params": {"tool": "Bash", "input": {"command": "git push origin main"}}});
    let out = run(&e, &["serve", "--mode", "auto", "--deny", "bash(git push*)"], &format!("{request}\n"));
    let answer = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["id"] == 1)
        .unwrap_or_else(|| panic!("serve gave no answer: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(answer["result"]["decision"], "deny", "{answer}");
}

#[test]
fn settings_files_are_read_and_layered() {
    let e = env();
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    std::fs::write(e.root.join(".wicket/settings.json"), r#"{"permissions":{"allow":["bash(make test*)"]}}"#).unwrap();
    std::fs::write(e.home.join(".wicket/settings.json"), r#"{"permissions":{"deny":["bash(make deploy*)"]}}"#).unwrap();
    // The project's allow rule loosens safety: without consent it is dropped, with a notice.
    let out = run(&e, &["check", "--no-sandbox"], r#"{"tool":"bash","input":{"command":"make test"}}"#);
    assert_eq!(decision(&out)["decision"], "ask");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not applied") && err.contains("bash(make test*)"), "{err}");
    // Said once per project: not on the next call, again when the project's settings change.
    let out = run(&e, &["check", "--no-sandbox"], r#"{"tool":"bash","input":{"command":"make test"}}"#);
    assert_eq!(decision(&out)["decision"], "ask");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("not applied"), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(e.root.join(".wicket/settings.json"), r#"{"permissions":{"allow":["bash(make lint*)"]}}"#).unwrap();
    let out = run(&e, &["check", "--no-sandbox"], r#"{"tool":"bash","input":{"command":"make test"}}"#);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not applied") && err.contains("bash(make lint*)"), "changed: {err}");
    std::fs::write(e.root.join(".wicket/settings.json"), r#"{"permissions":{"allow":["bash(make test*)"]}}"#).unwrap();
    // Pinned in the trust store, it applies.
    let project = wicket_policy::Settings::parse(r#"{"permissions":{"allow":["bash(make test*)"]}}"#, "p").unwrap();
    let hash = wicket::consent::Loosening::of(&project, wicket_policy::Mode::Default).hash();
    let mut store = wicket::trust::TrustStore::empty(&e.home.join(".wicket/trust.json"));
    store.pin(&e.root, wicket::trust::PinKind::Settings, None, &hash);
    store.save().unwrap();
    let v = decision(&run(&e, &["check", "--no-sandbox"], r#"{"tool":"bash","input":{"command":"make test"}}"#));
    assert_eq!(v["decision"], "allow");
    let v = decision(&run(&e, &["check", "--no-sandbox"], r#"{"tool":"bash","input":{"command":"make deploy"}}"#));
    assert_eq!(v["decision"], "deny");
}

#[test]
fn broken_settings_name_file_line_and_column() {
    let e = env();
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    let file = e.root.join(".wicket/settings.json");
    std::fs::write(&file, "{\n  \"permissions\": {\"allow\": [\"bash(\"]}\n}").unwrap();
    let out = run(&e, &["check"], r#"{"tool":"bash","input":{"command":"ls"}}"#);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "no decision on a broken config");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(&format!("{}:2:", file.display())), "{err}");
    assert!(err.contains("permissions.allow[0]") && err.contains("accepted forms"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");

    std::fs::write(&file, r#"{"permisions": {}}"#).unwrap();
    let err = String::from_utf8(run(&e, &["check"], "{}").stderr).unwrap();
    assert!(err.contains("settings.json:1:") && err.contains("permisions"), "{err}");
}

/// A rule whose glob does not compile fails closed like any broken settings file, and the one
/// error line names the file, the line and column of the rule, the rule and the glob's fault,
/// once; in the project's settings and in the user's.
#[test]
fn bad_globs_name_file_line_and_column_once() {
    let text =
        "{\n  \"permissions\": {\n    \"deny\": [\"read_file(.env)\",\n             \"read_file([a-)\"]\n  }\n}\n";
    for place in ["project", "user"] {
        let e = env();
        std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
        let file = if place == "project" {
            e.root.join(".wicket/settings.json")
        } else {
            e.home.join(".wicket/settings.json")
        };
        std::fs::write(&file, text).unwrap();
        let out = run(&e, &["check"], r#"{"tool":"read_file","input":{"path":"src/a.rs"}}"#);
        assert_eq!(out.status.code(), Some(2), "{place}");
        assert!(out.stdout.is_empty(), "{place}: no decision on a broken config");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(&format!("{}:4:14: permissions.deny[1]: ", file.display())), "{place}: {err}");
        assert!(err.contains(r#"rule "read_file([a-)""#), "{place}: {err}");
        assert_eq!(err.matches("unclosed character class").count(), 1, "{place}: once: {err}");
        assert_eq!(err.lines().count(), 1, "{place}: one line: {err}");
    }
    // A bad glob given as a flag has no file, but is still said once.
    let e = env();
    let out = run(&e, &["check", "--deny", "read_file([a-)"], r#"{"tool":"read_file","input":{"path":"a"}}"#);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.matches("unclosed character class").count(), 1, "once: {err}");
}

#[test]
fn a_rule_that_could_never_match_is_an_error_with_its_place_and_what_to_write() {
    let e = env();
    let file = e.home.join(".wicket/settings.json");
    std::fs::write(&file, "{\"permissions\": {\n  \"deny\": [\"Bash(git push:*)\",\n    \"bsh(rm -rf *)\"]}}\n")
        .unwrap();
    let out = run(&e, &["check"], r#"{"tool":"bash","input":{"command":"ls"}}"#);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(&format!("{}:3:5: permissions.deny[1]: ", file.display())), "{err}");
    assert!(err.contains("did you mean `bash`"), "{err}");
    // Claude Code's own syntax is read as it means there: the push is denied, other commands not.
    std::fs::write(&file, r#"{"permissions": {"deny": ["Bash(git push:*)"], "allow": ["WebFetch(domain:docs.rs)"]}}"#)
        .unwrap();
    let push =
        decision(&run(&e, &["check", "--no-sandbox"], r#"{"tool":"bash","input":{"command":"git push origin main"}}"#));
    assert_eq!((push["decision"].as_str(), push["by"].as_str()), (Some("deny"), Some("rule")), "{push}");
    let fetch = decision(&run(&e, &["check"], r#"{"tool":"web_fetch","input":{"url":"https://docs.rs/serde"}}"#));
    assert_eq!(fetch["decision"], "allow", "{fetch}");
    // The same mistakes given as flags are refused too.
    for rule in ["web_fetch(https://docs.rs/)", "mcp__github", "Read(/src/**)"] {
        let out = run(&e, &["check", "--deny", rule], r#"{"tool":"bash","input":{"command":"ls"}}"#);
        assert_eq!(out.status.code(), Some(2), "{rule}: {}", String::from_utf8_lossy(&out.stdout));
    }
}

#[test]
fn bad_input_is_one_line_and_nonzero() {
    let e = env();
    for input in ["", "not json", r#"{"input":{}}"#, r#"{"tool":"bash","input":{},"extra":1}"#, "[1,2]"] {
        let out = run(&e, &["check"], input);
        assert_eq!(out.status.code(), Some(2), "{input:?}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{input:?}: {err}");
        assert!(err.starts_with("wicket: "));
    }
    let out = run(&e, &["check", "--mode", "yolo"], "{}");
    assert_ne!(out.status.code(), Some(0));
    let out = run(&e, &["check", "--allow", "bash("], r#"{"tool":"bash","input":{"command":"ls"}}"#);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("accepted forms"));
}

#[test]
fn a_call_with_a_bad_field_is_a_denial_not_an_error() {
    let e = env();
    let v = decision(&run(&e, &["check"], r#"{"tool":"read_file","input":{"file":"x"}}"#));
    assert_eq!((v["decision"].as_str(), v["by"].as_str()), (Some("deny"), Some("input")));
}

#[test]
fn jsonl_streams_one_decision_per_line_in_order() {
    let e = env();
    let input = [
        r#"{"tool":"read_file","input":{"path":"a.txt"}}"#,
        r#"{"tool":"read_file","input":{"path":".env"}}"#,
        "garbage",
        "",
        r#"{"tool":"web_fetch","input":{"url":"https://docs.rs/"}}"#,
    ]
    .join("\n");
    let out = run(&e, &["check", "--jsonl", "--no-audit", "--allow", "web_fetch(docs.rs)"], &input);
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let got: Vec<(&str, &str)> =
        lines.iter().map(|v| (v["decision"].as_str().unwrap(), v["by"].as_str().unwrap())).collect();
    assert_eq!(got, [("allow", "read_only"), ("deny", "sensitive"), ("deny", "input"), ("allow", "rule")]);
    assert!(lines[2]["reason"].as_str().unwrap().starts_with("line 3:"));
}

#[test]
fn jsonl_numbers_lines_across_a_long_stream() {
    // Longer than one batch of the reader, with blank and broken lines on the way.
    let e = env();
    let input: Vec<&str> = (1..=1200)
        .map(|n| match n {
            300 | 513 | 1025 => "garbage",
            301 | 800 => "  ",
            _ => r#"{"tool":"read_file","input":{"path":"a.txt"}}"#,
        })
        .collect();
    let out = run(&e, &["check", "--jsonl"], &input.join("\n"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1198);
    let broken: Vec<u64> = lines.iter().filter_map(|v| v["line"].as_u64()).collect();
    assert_eq!(broken, [300, 513, 1025]);
    assert_eq!(lines.iter().filter(|v| v["decision"] == "allow").count(), 1195);
}

#[test]
fn explain_shows_parts_paths_and_rules() {
    let e = env();
    std::fs::write(e.root.join(".env"), "A=1").unwrap();
    std::os::unix::fs::symlink(e.root.join(".env"), e.root.join("notes.txt")).unwrap();
    let out = run(&e, &["explain"], r#"{"tool":"read_file","input":{"path":"notes.txt"}}"#);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("real path") && text.contains(".env"), "{text}");
    assert!(text.contains("decision: deny by sensitive"), "{text}");

    let out = run(
        &e,
        &["explain", "--no-sandbox", "--allow", "bash(git status*)"],
        r#"{"tool":"bash","input":{"command":"git status; echo \"$(whoami)\" > out.txt"}}"#,
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for want in ["part 1: \"git status\"", "whoami", "writes \"out.txt\"", "decision: ask"] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }

    let out = run(&e, &["explain", "--no-sandbox"], "{\"tool\":\"bash\",\"input\":{\"command\":\"ls\u{200b}\"}}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\\u{200b}") && text.contains("U+200B"), "invisible characters shown escaped:\n{text}");
}

fn run_plain(env: &Env, args: &[&str]) -> Output {
    Command::new("setsid")
        .arg("-w")
        .arg(env!("CARGO_BIN_EXE_wicket"))
        .args(args)
        .env("WICKET_HOME", env.home.join(".wicket"))
        .env("HOME", &env.home)
        .current_dir(&env.root)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn doctor_reports_the_backend_and_fails_when_commands_cannot_run() {
    let e = env();
    let out = run_plain(&e, &["doctor", "--root", e.root.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("best backend:") && text.contains("Landlock"), "{text}");
    assert_eq!(out.status.code(), Some(0), "{text}");
    // Whether staged runs work, and why not when they do not.
    let staged = text.lines().find(|l| l.starts_with("staged runs (`wicket run --staged`): ")).unwrap_or_default();
    assert!(
        staged.contains(": available, an overlay over the project") || staged.contains("not available ("),
        "{text}"
    );
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    std::fs::write(e.root.join(".wicket/settings.json"), r#"{"profile":"strict","executor":"host"}"#).unwrap();
    let out = run_plain(&e, &["doctor", "--root", e.root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("strict profile"));
    let out = run_plain(&e, &["run", "--root", e.root.to_str().unwrap(), "--", "true"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("strict profile"));
}

#[test]
fn run_without_a_terminal_refuses_what_would_ask() {
    let e = env();
    // On the host, `sh -c …` has no rule: the engine asks, and with no terminal the answer is no.
    let out = run_plain(&e, &["run", "--root", e.root.to_str().unwrap(), "--no-sandbox", "--", "sh", "-c", "echo hi"]);
    assert_eq!(out.status.code(), Some(126), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no terminal"));
    assert!(out.stdout.is_empty(), "the command did not run");
    // The same command in the sandbox runs without a question.
    let out = run_plain(&e, &["run", "--root", e.root.to_str().unwrap(), "--", "sh", "-c", "echo hi"]);
    assert_eq!((out.status.code(), String::from_utf8_lossy(&out.stdout).trim()), (Some(0), "hi"));
}

/// A sandboxed command's reason says what the network is: none, or only the allowlist proxy
/// when the settings open it.
#[test]
fn the_sandbox_reason_names_the_network_it_has() {
    let e = env();
    let call = r#"{"tool":"bash","input":{"command":"npm install"}}"#;
    let v = decision(&run(&e, &["check"], call));
    if v["by"] != "sandbox" {
        return; // no sandbox on this machine: `sandbox_is_reported_only_where_it_exists` covers it
    }
    assert!(v["reason"].as_str().unwrap().contains("has no network"), "{v}");
    std::fs::write(e.home.join(".wicket/settings.json"), r#"{"network": {"allow": ["npm"]}}"#).unwrap();
    let v = decision(&run(&e, &["check"], call));
    assert_eq!(v["by"], "sandbox", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("only through wicket's allowlist proxy"), "{v}");
}

/// `policy lint` checks network entries as `wicket run` does, and `policy show` lists them.
#[test]
fn lint_checks_network_entries_and_show_lists_them() {
    let e = env();
    let file = e.home.join(".wicket/settings.json");
    std::fs::write(&file, r#"{"network": {"allow": ["npm", "bad host!"]}}"#).unwrap();
    let out = run_plain(&e, &["policy", "lint", "--root", e.root.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let line = text.lines().find(|l| l.starts_with("error network:")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(&file.display().to_string()) && line.contains("bad host!"), "{line}");
    std::fs::write(
        &file,
        r#"{"network": {"allow": ["npm"], "ports": [8080], "addresses": {"a.test": ["127.0.0.1"]}}}"#,
    )
    .unwrap();
    assert_eq!(run_plain(&e, &["policy", "lint", "--root", e.root.to_str().unwrap()]).status.code(), Some(0));
    let show = run_plain(&e, &["policy", "show", "--root", e.root.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(text.contains("\"8080\"") && text.contains("a.test → 127.0.0.1"), "{text}");
}

/// `policy lint` warns about command patterns that may not mean what they look like (issue
/// 14, class 7): a program name glued to `*`, and options the program does not have. Warnings
/// do not fail the lint.
#[test]
fn lint_warns_about_surprising_command_patterns() {
    let e = env();
    let file = e.home.join(".wicket/settings.json");
    std::fs::write(
        &file,
        r#"{"permissions": {"allow": ["bash(cp*)", "bash(git status *)"], "deny": ["bash(rm --bogus*)"]}}"#,
    )
    .unwrap();
    let out = run_plain(&e, &["policy", "lint", "--root", e.root.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let warns: Vec<&str> = text.lines().filter(|l| l.starts_with("warn  rule")).collect();
    assert!(warns.iter().any(|l| l.contains("bash(cp*)") && l.contains("`cp` only")), "{text}");
    assert!(warns.iter().any(|l| l.contains("bash(rm --bogus*)") && l.contains("--bogus")), "{text}");
    assert!(!warns.iter().any(|l| l.contains("git status")), "{text}");
}

/// `wicket check ARGS` with `stdin` written and left open; `None` when it had not ended within
/// a generous bound (then it is killed).
fn check_held_open(env: &Env, args: &[&str], stdin: &str, extra: &[(&str, &str)]) -> Option<Output> {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    let mut cmd = command(env, &all);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(30) {
        if child.try_wait().unwrap().is_some() {
            drop(input);
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

#[test]
fn check_answers_a_call_on_a_stdin_held_open() {
    let e = env();
    let out = check_held_open(&e, &[], r#"{"tool": "read_file", "input": {"path": "a.txt"}}"#, &[])
        .expect("check waited for the end of input after the call");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(decision(&out)["decision"], "allow");
}

#[test]
fn check_denies_at_the_deadline_when_the_settings_stall() {
    let e = env();
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    let made = Command::new("mkfifo").arg(e.root.join(".wicket/settings.json")).status().unwrap();
    assert!(made.success());
    let call = r#"{"tool": "read_file", "input": {"path": "a.txt"}}"#;
    for flags in [&[][..], &["--jsonl"][..]] {
        let out = check_held_open(&e, flags, &format!("{call}\n"), &[("WICKET_DEADLINE_MS", "500")])
            .unwrap_or_else(|| panic!("{flags:?}: check waited past its deadline on a FIFO"));
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["decision"], "deny", "{flags:?}: {v}");
        let reason = v["reason"].as_str().unwrap();
        assert!(reason.contains("within 500 ms") && reason.contains("loading the settings"), "{flags:?}: {reason}");
    }
}

/// `wicket ARGS` started in `dir`, without `--root`, with `stdin`.
fn run_in(env: &Env, dir: &std::path::Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wicket"))
        .args(args)
        .env("WICKET_HOME", env.home.join(".wicket"))
        .env("HOME", &env.home)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

#[test]
fn the_root_is_the_nearest_project_above_and_never_slash_or_home_unless_named() {
    let e = env();
    std::fs::create_dir_all(e.root.join(".git")).unwrap();
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    std::fs::create_dir_all(e.root.join("src/deep")).unwrap();
    std::fs::write(e.root.join(".wicket/settings.json"), r#"{"permissions": {"deny": ["bash(make deploy*)"]}}"#)
        .unwrap();
    let deploy = r#"{"tool":"bash","input":{"command":"make deploy"}}"#;
    // From a subfolder the project's own deny rule still applies.
    let deep = e.root.join("src/deep");
    let out = run_in(&e, &deep, &["check"], deploy);
    let v = decision(&out);
    assert_eq!((v["decision"].as_str(), v["by"].as_str()), (Some("deny"), Some("rule")), "{v}");
    let out = run_in(&e, &deep, &["explain"], deploy);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("root: {} (the nearest folder holding .wicket)", e.root.display())), "{text}");
    // `/` and the home folder are never found on their own: accept-edits there would cover
    // everything in them.
    let passwd = r#"{"tool":"write_file","input":{"path":"/etc/passwd","content":"x"}}"#;
    std::fs::create_dir_all(e.home.join("notes")).unwrap();
    for dir in [std::path::PathBuf::from("/"), e.home.clone()] {
        let out = run_in(&e, &dir, &["check", "--mode", "accept-edits"], passwd);
        assert_eq!(out.status.code(), Some(2), "{}: {}", dir.display(), String::from_utf8_lossy(&out.stdout));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("no project here") && err.contains("--root"), "{}: {err}", dir.display());
    }
    // A folder in the home folder without a project above it is its own root, as before.
    let out = run_in(&e, &e.home.join("notes"), &["check"], r#"{"tool":"read_file","input":{"path":"a.txt"}}"#);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Named explicitly, `/` is taken (and writing outside the project is still not allowed).
    let out = run_in(&e, std::path::Path::new("/"), &["check", "--root", "/", "--unattended"], passwd);
    let v = decision(&out);
    assert_ne!(v["decision"], "allow", "{v}");
}

#[test]
fn completions_and_the_manual_page_are_printed() {
    let e = env();
    let out =
        Command::new(env!("CARGO_BIN_EXE_wicket")).args(["completions", "bash"]).env("HOME", &e.home).output().unwrap();
    assert!(out.status.success());
    let script = e.root.join("wicket.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    // bash accepts it, and it completes the subcommands.
    let syntax = Command::new("bash").arg("-n").arg(&script).status().unwrap();
    assert!(syntax.success(), "bash -n refused the completion script");
    let text = String::from_utf8_lossy(&out.stdout);
    for sub in ["check", "explain", "hook", "serve", "mcp", "init"] {
        assert!(text.contains(sub), "no {sub} in the completions");
    }
    let man = Command::new(env!("CARGO_BIN_EXE_wicket")).arg("man").env("HOME", &e.home).output().unwrap();
    assert!(man.status.success());
    let roff = String::from_utf8_lossy(&man.stdout);
    assert!(roff.starts_with(".ie") && roff.contains(".TH wicket 1") && roff.contains("wicket\\-check"), "{roff}");
    let bad = Command::new(env!("CARGO_BIN_EXE_wicket")).args(["completions", "nosh"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn a_failed_run_without_network_says_how_to_open_it() {
    let e = env();
    let sandbox = run_plain(&e, &["doctor", "--root", e.root.to_str().unwrap()]);
    if !String::from_utf8_lossy(&sandbox.stdout).contains("commands run: in the OS sandbox") {
        eprintln!("no OS sandbox here: nothing runs offline");
        return;
    }
    let failed = run_in(&e, &e.root, &["run", "--", "sh", "-c", "exit 3"], "");
    assert_eq!(failed.status.code(), Some(3));
    let err = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(err.matches("hint:").count(), 1, "one hint line: {err}");
    assert!(err.contains("network.allow"), "{err}");
    let fine = run_in(&e, &e.root, &["run", "--", "true"], "");
    assert!(fine.status.success() && !String::from_utf8_lossy(&fine.stderr).contains("hint:"));
    let host = run_in(&e, &e.root, &["run", "--no-sandbox", "--mode", "auto", "--", "sh", "-c", "exit 3"], "");
    assert_eq!(host.status.code(), Some(3));
    assert!(!String::from_utf8_lossy(&host.stderr).contains("hint:"), "the host has its network");
}

#[test]
fn explain_offers_always_allow_only_where_a_person_would_be_asked() {
    let e = env();
    let asked = run(&e, &["explain"], r#"{"tool":"bash","input":{"command":"seq 3"}}"#);
    assert!(String::from_utf8_lossy(&asked.stdout).contains("\"always allow\" would add: bash(seq *)"));
    let denied = run(&e, &["explain", "--deny", "bash(seq *)"], r#"{"tool":"bash","input":{"command":"seq 3"}}"#);
    let text = String::from_utf8_lossy(&denied.stdout);
    assert!(text.contains("deny") && !text.contains("always allow"), "{text}");
}

/// A wicket that lives under /tmp (a fresh tmpfs inside bubblewrap) still starts its shim in
/// the sandbox, and the sandboxed command cannot change that binary.
#[test]
fn a_wicket_installed_under_tmp_runs_sandboxed_commands() {
    let e = env();
    let dir = tempfile::Builder::new().prefix("wicket-bin").tempdir_in("/tmp").unwrap();
    let bin = dir.path().join("wicket");
    std::fs::copy(env!("CARGO_BIN_EXE_wicket"), &bin).unwrap();
    let before = std::fs::read(&bin).unwrap();
    let out = Command::new(&bin)
        .args(["run", "--root"])
        .arg(&e.root)
        .args(["--", "sh", "-c", "echo ran; echo x > \"$0\" && echo CHANGED", bin.to_str().unwrap()])
        .env("WICKET_HOME", e.home.join(".wicket"))
        .env("HOME", &e.home)
        .current_dir(&e.root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("ran") && !stdout.contains("CHANGED"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&bin).unwrap(), before);
}

/// A command word that is not UTF-8 cannot be judged as the text that runs: `wicket run`
/// refuses it (126) before anything starts.
#[test]
fn run_refuses_words_that_are_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let e = env();
    let odd = std::ffi::OsStr::from_bytes(b".en\xffv");
    let out = command(&e, &["run"]).args(["--", "sh", "-c", "touch ran", "x"]).arg(odd).output().unwrap();
    assert_eq!(out.status.code(), Some(126), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not UTF-8"));
    assert!(!e.root.join("ran").exists(), "nothing ran");
}

/// `--allow`, `--deny` and `--ask` are one flag group: every command that decides reads them
/// the same way, as rules of the user's settings.
#[test]
fn rule_flags_mean_the_same_in_every_command() {
    let e = env();
    let deny = ["--deny", "bash(touch *)", "--deny", "web_fetch(example.com)"];
    let v = decision(&run(&e, &[&["check"][..], &deny].concat(), r#"{"tool":"bash","input":{"command":"touch x"}}"#));
    assert_eq!((v["decision"].as_str(), v["rule"].as_str()), (Some("deny"), Some("bash(touch *)")));
    let root = e.root.to_str().unwrap();
    let out = run_in(&e, &e.root, &[&["run", "--root", root][..], &deny, &["--", "touch", "x"]].concat(), "");
    assert_eq!(out.status.code(), Some(126), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!e.root.join("x").exists());
    let req = r#"{"jsonrpc":"2.0","id":1,"method":"decide","params":{"tool":"bash","input":{"command":"touch x"}}}"#;
    let out = run(&e, &[&["serve"][..], &deny].concat(), &format!("{req}\n"));
    let answer: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(answer["result"]["rule"], "bash(touch *)", "{answer}");
    let out = run(&e, &[&["fetch"][..], &deny, &["https://example.com/"]].concat(), "");
    assert!(
        !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("web_fetch(example.com)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&e, &[&["policy", "show"][..], &deny].concat(), "");
    assert!(String::from_utf8_lossy(&out.stdout).contains("bash(touch *)"));
    // An allow rule on the command line is as good as one in the settings.
    // On the host, unattended: refused without it, run with it.
    let host = ["run", "--root", root, "--unattended", "--no-sandbox"];
    let out = run_in(&e, &e.root, &[&host[..], &["--", "touch", "x"]].concat(), "");
    assert_eq!(out.status.code(), Some(126), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run_in(&e, &e.root, &[&host[..], &["--allow", "bash(touch *)", "--", "touch", "x"]].concat(), "");
    assert!(out.status.success() && e.root.join("x").exists(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `serve`'s approval request carries what is decided: the agent's call id, the target and a
/// one-line preview, where it would run, the choices, and for a file write the change (the
/// text now and after); the client's answer settles it.
#[test]
fn serve_approval_requests_carry_the_change() {
    use std::io::BufRead;
    let e = env();
    std::fs::create_dir_all(e.root.join("src")).unwrap();
    std::fs::write(e.root.join("src/a.rs"), "fn old() {}\n").unwrap();
    let mut child = command(&e, &["serve"]).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = || -> serde_json::Value { serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap() };
    let path = e.root.join("src/a.rs");
    let decide = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "decide", "params": {
        "tool": "write_file", "input": {"path": path, "content": "fn new() {}\n"}, "call_id": "toolu_7"}});
    writeln!(stdin, "{decide}").unwrap();
    let ask = next();
    assert_eq!(ask["method"], "approval/request", "{ask}");
    let p = &ask["params"];
    assert_eq!(p["call_id"], "toolu_7", "{p}");
    assert_eq!(p["target"], path.to_str().unwrap());
    assert_eq!(
        p["change"],
        serde_json::json!({"path": path, "old_text": "fn old() {}\n", "new_text": "fn new() {}\n"})
    );
    assert_eq!(p["isolation"], serde_json::json!({"runs": "host", "network": "host"}));
    assert!(p["choices"].as_array().unwrap().contains(&serde_json::json!("once")), "{p}");
    assert!(p["question"].as_str().unwrap().contains(p["reason"].as_str().unwrap()), "{p}");
    // The older fields stay.
    assert_eq!((p["tool"].as_str(), p["by"].is_string()), (Some("write_file"), true));
    writeln!(stdin, "{}", serde_json::json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"answer": "once"}}))
        .unwrap();
    let answer = next();
    assert_eq!((answer["id"].as_i64(), answer["result"]["decision"].as_str()), (Some(1), Some("allow")), "{answer}");
    // A new file: no old text.
    let decide = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "decide", "params": {
        "tool": "write_file", "input": {"path": e.root.join("src/b.rs"), "content": "x"}}});
    writeln!(stdin, "{decide}").unwrap();
    let ask = next();
    assert_eq!(ask["params"]["change"]["old_text"], serde_json::Value::Null, "{ask}");
    assert_eq!(ask["params"]["call_id"], serde_json::Value::Null);
    drop(stdin);
    let _ = child.wait();
}

/// A client may approve some hunks of a file write (`select_hunks`): `decide` allows it and
/// gives the call to make instead, whose content wicket made from exactly those hunks; a hunk
/// the change does not have is a denial.
#[test]
fn serve_applies_selected_hunks_exactly() {
    use std::io::BufRead;
    let e = env();
    let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let new = old.replace("line 2\n", "line TWO\n").replace("line 18\n", "line EIGHTEEN\n");
    let path = e.root.join("notes.txt");
    std::fs::write(&path, &old).unwrap();
    let mut child = command(&e, &["serve"]).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = || -> serde_json::Value { serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap() };
    let decide = |id: u64| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "decide",
            "params": {"tool": "write_file", "input": {"path": path, "content": new}}})
    };
    writeln!(stdin, "{}", decide(1)).unwrap();
    let ask = next();
    let hunks = ask["params"]["hunks"].as_array().unwrap().clone();
    assert_eq!(hunks.len(), 2, "{ask}");
    assert!(hunks[1].as_str().unwrap().contains("+line EIGHTEEN"), "{ask}");
    let answer = serde_json::json!({"answer": "once", "select_hunks": [1]});
    writeln!(stdin, "{}", serde_json::json!({"jsonrpc": "2.0", "id": ask["id"], "result": answer})).unwrap();
    let v = next();
    assert_eq!(v["result"]["decision"], "allow", "{v}");
    let content = v["result"]["updated_call"]["input"]["content"].as_str().unwrap();
    assert_eq!(content, old.replace("line 18\n", "line EIGHTEEN\n"), "only the second hunk");
    assert_eq!(v["result"]["updated_call"]["tool"], "write_file");
    // A hunk that is not there denies.
    writeln!(stdin, "{}", decide(2)).unwrap();
    let ask = next();
    let answer = serde_json::json!({"answer": "once", "select_hunks": [5]});
    writeln!(stdin, "{}", serde_json::json!({"jsonrpc": "2.0", "id": ask["id"], "result": answer})).unwrap();
    let v = next();
    assert_eq!(v["result"]["decision"], "deny", "{v}");
    assert!(v["result"].get("updated_call").is_none());
    // The hunks are those of the change the person was shown: a file changed while they
    // looked does not change what their selection means.
    writeln!(stdin, "{}", decide(3)).unwrap();
    let ask = next();
    std::fs::write(&path, "replaced meanwhile\n").unwrap();
    let answer = serde_json::json!({"answer": "once", "select_hunks": [1]});
    writeln!(stdin, "{}", serde_json::json!({"jsonrpc": "2.0", "id": ask["id"], "result": answer})).unwrap();
    let v = next();
    assert_eq!(v["result"]["updated_call"]["input"]["content"], old.replace("line 18\n", "line EIGHTEEN\n"), "{v}");
    // A file too large to show has no old text to keep: picking hunks of it is refused, so
    // the rest of the file can never be lost.
    let big = e.root.join("big.txt");
    std::fs::write(&big, "x\n".repeat(600_000)).unwrap();
    let decide_big = serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "decide",
        "params": {"tool": "write_file", "input": {"path": big, "content": "x\n"}}});
    writeln!(stdin, "{decide_big}").unwrap();
    let ask = next();
    assert_eq!(ask["params"]["change"]["old_text"], serde_json::Value::Null, "{}", ask["params"]["change"]["path"]);
    let answer = serde_json::json!({"answer": "once", "select_hunks": [0]});
    writeln!(stdin, "{}", serde_json::json!({"jsonrpc": "2.0", "id": ask["id"], "result": answer})).unwrap();
    let v = next();
    assert_eq!(v["result"]["decision"], "deny", "{v}");
    drop(stdin);
    let _ = child.wait();
}

/// `WICKET_TRACE_PHASES` makes `wicket run` stamp its phases on stderr, in order and on one
/// clock (for `bench/phases.sh`); without it, nothing of the kind is printed.
#[test]
fn run_stamps_its_phases_only_when_asked() {
    let e = env();
    let root = e.root.to_str().unwrap();
    let phases = |out: &Output| -> Vec<(i128, String)> {
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter_map(|l| l.strip_prefix("wicket: phase "))
            .map(|l| {
                let (t, label) = l.split_once(' ').unwrap();
                (t.parse().unwrap(), label.to_string())
            })
            .collect()
    };
    let out = run_plain(&e, &["run", "--root", root, "--", "sh", "-c", "exit 3"]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(phases(&out).is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut c = Command::new("setsid");
    c.arg("-w").arg(env!("CARGO_BIN_EXE_wicket")).args(["run", "--root", root, "--", "sh", "-c", "exit 3"]);
    c.env("WICKET_HOME", e.home.join(".wicket")).env("HOME", &e.home).env("WICKET_TRACE_PHASES", "1");
    let out = c.current_dir(&e.root).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "the command's status is kept: {}", String::from_utf8_lossy(&out.stderr));
    let got = phases(&out);
    let labels: Vec<&str> = got.iter().map(|(_, l)| l.as_str()).collect();
    for want in [
        "arguments parsed",
        "exec policy built",
        "decided",
        "spawned",
        "command ended",
        "recorded",
        "cleaned up",
        "keepers let go",
    ] {
        assert!(labels.contains(&want), "{want} missing from {labels:?}");
    }
    // The sandbox's own processes, and wicket's threads that start work early, stamp theirs
    // on the same stream as they run: only the main thread's lines come in the order of their
    // times (a helper's line may land before "spawned", which wicket stamps once the helper
    // has started).
    let own: Vec<&(i128, String)> = got
        .iter()
        .filter(|(_, l)| !l.starts_with("own namespaces:") && !l.starts_with("shim:") && !l.ends_with("(early)"))
        .collect();
    assert!(own.windows(2).all(|w| w[0].0 <= w[1].0), "stamps in order: {got:?}");
    assert_eq!(labels.first(), Some(&"arguments parsed"));
    // The placeholders' keepers are let go last, as wicket exits (nothing outlives the run).
    assert_eq!(labels.last(), Some(&"keepers let go"));
}

/// The hook stamps the start of each step too, on stderr only: its answer on stdout stays the
/// one JSON line the agent reads.
#[test]
fn the_hook_stamps_its_steps_on_stderr_only() {
    let e = env();
    let payload = serde_json::json!({
        "session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": e.root, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"}
    });
    let mut c = Command::new(env!("CARGO_BIN_EXE_wicket"));
    c.args(["hook", "claude"]).env("WICKET_HOME", e.home.join(".wicket")).env("HOME", &e.home);
    c.env("WICKET_TRACE_PHASES", "1").current_dir(&e.root);
    let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(format!("{payload}\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    for want in ["start: loading the settings", "start: deciding", "start: writing the audit line", "answered"] {
        assert!(stderr.lines().any(|l| l.starts_with("wicket: phase ") && l.ends_with(want)), "{want}: {stderr}");
    }
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(answer["hookSpecificOutput"]["permissionDecision"].is_string(), "{answer}");
}

/// `wicket registries` names the registries the project's package managers need and, with
/// `--allow`, adds the missing ones to the person's own `network.allow`, keeping the rest of a
/// settings file that is already there; a sandboxed command that fails offline in that project
/// is told the same one step.
#[test]
fn registries_names_what_installs_need_and_allows_it_in_one_step() {
    let e = env();
    std::fs::write(e.root.join("package.json"), "{}").unwrap();
    std::fs::create_dir_all(e.root.join("crates/core")).unwrap();
    std::fs::write(e.root.join("Cargo.toml"), "[workspace]\n").unwrap();
    let settings = e.home.join(".wicket/settings.json");
    std::fs::write(&settings, r#"{"mode": "default", "network": {"allow": ["cargo"]}}"#).unwrap();
    let out = run(&e, &["registries"], "");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("npm: package.json") && text.contains("cargo: Cargo.toml"), "{text}");
    assert!(text.contains("not allowed yet: npm;") && text.contains("wicket registries --allow"), "{text}");
    let dry = run(&e, &["registries", "--allow", "--dry-run"], "");
    assert!(String::from_utf8_lossy(&dry.stdout).contains("would gain npm"));
    assert!(!std::fs::read_to_string(&settings).unwrap().contains("npm"));
    let out = run(&e, &["registries", "--allow"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v["network"]["allow"], serde_json::json!(["cargo", "npm"]));
    assert_eq!(v["mode"], "default", "the rest of the file stays");
    let again = run(&e, &["registries", "--allow"], "");
    assert!(String::from_utf8_lossy(&again.stdout).contains("in network.allow already"));
    // An offline command that fails in a project whose managers are not allowed hears of it.
    let e = env();
    std::fs::write(e.root.join("package.json"), "{}").unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_wicket"));
    let out = c
        .args(["run", "--root"])
        .arg(&e.root)
        .args(["--", "false"])
        .env("WICKET_HOME", e.home.join(".wicket"))
        .env("HOME", &e.home)
        .current_dir(&e.root)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("no network at all") {
        assert!(err.contains("`wicket registries --allow`") && err.contains("(npm)"), "{err}");
    }
}

/// First-hour messages: a program that is not found gets no hint about the sandbox's walls, an
/// empty `staged list` says so, and `doctor` works in the home folder, outside any project.
#[test]
fn first_hour_messages_name_the_right_thing() {
    let e = env();
    let raw = |args: &[&str], dir: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_wicket"))
            .args(args)
            .env("WICKET_HOME", e.home.join(".wicket"))
            .env("HOME", &e.home)
            .current_dir(dir)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    std::fs::create_dir_all(e.root.join(".git")).unwrap();
    let missing = raw(&["run", "--", "no-such-program-wicket-test"], &e.root);
    assert_eq!(missing.status.code(), Some(127), "{}", String::from_utf8_lossy(&missing.stderr));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(!err.contains("hint:"), "a missing program is not the sandbox's doing: {err}");
    let list = raw(&["staged", "list"], &e.root);
    assert!(list.stdout.is_empty(), "stdout is the list itself: {list:?}");
    assert!(String::from_utf8_lossy(&list.stderr).starts_with("no staged changes"), "{list:?}");
    let doctor = raw(&["doctor"], &e.home);
    let out = String::from_utf8_lossy(&doctor.stdout);
    assert!(out.contains("project: none here") && out.contains("commands run:"), "{out}\n{doctor:?}");
}
