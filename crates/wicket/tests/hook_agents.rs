//! `wicket hook codex|gemini` and `wicket init codex|gemini` as processes: every payload in
//! `cases/codex_hooks.jsonl` and `cases/gemini_hooks.jsonl` through the real binary, and the
//! fail-closed paths (malformed input, a broken policy file, a crash) answer deny with exit 2;
//! and the real Codex CLI, Gemini CLI and Claude Code (`.ci/agents.sh`) with wicket's hooks.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

struct Env {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Env {
    fn wicket_home(&self) -> PathBuf {
        self.home.join(".wicket")
    }
}

fn env() -> Env {
    env_in(tempfile::tempdir().unwrap())
}

/// A project and a home in `tmp`.
fn env_in(tmp: tempfile::TempDir) -> Env {
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "let x = 1;\n").unwrap();
    std::fs::write(root.join(".env"), "A=1\n").unwrap();
    std::fs::write(root.join("README.md"), "hi\n").unwrap();
    std::fs::create_dir_all(home.join(".wicket")).unwrap();
    Env { _tmp: tmp, root, home }
}

fn wicket(env: &Env, args: &[&str], stdin: &str, extra_env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wicket"));
    cmd.args(args)
        .env("WICKET_HOME", env.wicket_home())
        .env("HOME", &env.home)
        .env_remove("CODEX_HOME")
        .env_remove("WICKET_HOOK_TEST_PANIC")
        .env_remove("WICKET_AUDIT_MANDATORY")
        .current_dir(&env.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// Does `actual` hold everything `expected` says (objects: a subset; other values: equal)?
/// An empty expected object means: exactly `{}`.
fn matches(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) if e.is_empty() => a.is_empty(),
        (Value::Object(e), Value::Object(a)) => e.iter().all(|(k, v)| a.get(k).is_some_and(|av| matches(v, av))),
        _ => expected == actual,
    }
}

fn answer(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 1, "exactly one line of JSON on stdout: {text:?}");
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {text:?}"))
}

fn payload(case: &Value, root: &Path) -> String {
    match &case["payload"] {
        Value::String(raw) => raw.clone(),
        other => other.to_string().replace("{{ROOT}}", &root.to_string_lossy()),
    }
}

/// The deny reason in either agent's answer, if the answer is a deny.
fn deny_reason(v: &Value) -> Option<Option<&str>> {
    let h = &v["hookSpecificOutput"];
    if h["permissionDecision"] == "deny" {
        return Some(h["permissionDecisionReason"].as_str());
    }
    if h["decision"]["behavior"] == "deny" {
        return Some(h["decision"]["message"].as_str());
    }
    if v["decision"] == "deny" {
        return Some(v["reason"].as_str());
    }
    None
}

fn run_fixtures(agent: &str, file: &str, at_least: usize) {
    let e = env();
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases").join(file)).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        n += 1;
        let name = case["name"].as_str().unwrap();
        let out = wicket(&e, &["hook", agent], &payload(&case, &e.root), &[]);
        let code = out.status.code();
        let want_code = case["exit"].as_i64().map(|c| c as i32);
        let got = answer(&out);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if code != want_code || !matches(&case["answer"], &got) {
            failures.push(format!(
                "{name}: exit {code:?} (want {want_code:?}), answer {got} (want {}), stderr {stderr}",
                case["answer"]
            ));
            continue;
        }
        // Every deny carries a reason the model can act on.
        if let Some(reason) = deny_reason(&got) {
            if reason.is_none_or(|r| r.len() < 10) {
                failures.push(format!("{name}: a deny without a reason: {got}"));
            }
        }
        // Exit 2 is a block only with the reason on stderr (both agents read it there).
        if want_code == Some(2) && !stderr.contains("wicket could not check this call") {
            failures.push(format!("{name}: exit 2 without the reason on stderr: {stderr:?}"));
        }
    }
    assert!(n >= at_least, "only {n} fixtures");
    assert!(failures.is_empty(), "{} of {n} fixtures failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_codex_fixture_gets_its_documented_answer() {
    run_fixtures("codex", "codex_hooks.jsonl", 35);
}

#[test]
fn every_gemini_fixture_gets_its_documented_answer() {
    run_fixtures("gemini", "gemini_hooks.jsonl", 37);
}

fn codex_payload(root: &Path, event: &str, tool: &str, input: Value) -> String {
    json!({"session_id": "codex-sess-7", "turn_id": "t1", "transcript_path": null, "cwd": root,
        "hook_event_name": event, "model": "gpt-5.5-codex", "permission_mode": "default",
        "tool_name": tool, "tool_input": input, "tool_use_id": "call_1"})
    .to_string()
}

fn gemini_payload(root: &Path, tool: &str, input: Value) -> String {
    json!({"session_id": "gemini-sess-9", "transcript_path": "/t.json", "cwd": root,
        "hook_event_name": "BeforeTool", "timestamp": "2026-05-18T10:00:00Z", "tool_name": tool, "tool_input": input})
    .to_string()
}

fn assert_codex_fail_closed(out: &Output, event: &str) {
    assert_eq!(out.status.code(), Some(2), "stderr {}", String::from_utf8_lossy(&out.stderr));
    let v = answer(out);
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], event);
    assert!(deny_reason(&v).is_some(), "{v}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("wicket could not check this call"));
}

fn assert_gemini_fail_closed(out: &Output) {
    assert_eq!(out.status.code(), Some(2), "stderr {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(answer(out)["decision"], "deny");
    assert!(String::from_utf8_lossy(&out.stderr).contains("wicket could not check this call"));
}

#[test]
fn a_broken_policy_file_denies_with_exit_2() {
    let e = env();
    std::fs::write(e.wicket_home().join("policy.json"), "{\"disallowed_commands\": [\"rm\",, }").unwrap();
    let out =
        wicket(&e, &["hook", "codex"], &codex_payload(&e.root, "PreToolUse", "Bash", json!({"command": "ls"})), &[]);
    assert_codex_fail_closed(&out, "PreToolUse");
    assert!(String::from_utf8_lossy(&out.stderr).contains("policy.json"));
    let out = wicket(
        &e,
        &["hook", "codex"],
        &codex_payload(&e.root, "PermissionRequest", "Bash", json!({"command": "ls"})),
        &[],
    );
    assert_codex_fail_closed(&out, "PermissionRequest");
    let out =
        wicket(&e, &["hook", "gemini"], &gemini_payload(&e.root, "run_shell_command", json!({"command": "ls"})), &[]);
    assert_gemini_fail_closed(&out);
}

#[test]
fn broken_settings_deny_with_exit_2() {
    let e = env();
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    std::fs::write(e.root.join(".wicket/settings.json"), "{ not json").unwrap();
    let out = wicket(
        &e,
        &["hook", "codex"],
        &codex_payload(
            &e.root,
            "PreToolUse",
            "apply_patch",
            json!({"command": "*** Begin Patch\n*** Delete File: x\n*** End Patch"}),
        ),
        &[],
    );
    assert_codex_fail_closed(&out, "PreToolUse");
    let out =
        wicket(&e, &["hook", "gemini"], &gemini_payload(&e.root, "read_file", json!({"file_path": "README.md"})), &[]);
    assert_gemini_fail_closed(&out);
}

#[test]
fn a_crash_denies_with_exit_2() {
    let e = env();
    let panic = [("WICKET_HOOK_TEST_PANIC", "1")];
    let out =
        wicket(&e, &["hook", "codex"], &codex_payload(&e.root, "PreToolUse", "Bash", json!({"command": "ls"})), &panic);
    assert_codex_fail_closed(&out, "PreToolUse");
    let out = wicket(
        &e,
        &["hook", "codex"],
        &codex_payload(&e.root, "PermissionRequest", "Bash", json!({"command": "ls"})),
        &panic,
    );
    assert_codex_fail_closed(&out, "PermissionRequest");
    let out = wicket(&e, &["hook", "gemini"], &gemini_payload(&e.root, "glob", json!({"pattern": "*"})), &panic);
    assert_gemini_fail_closed(&out);
}

#[test]
fn a_bad_flag_never_exits_1() {
    let e = env();
    for agent in ["codex", "gemini"] {
        let out = wicket(&e, &["hook", agent, "--no-such-flag"], "{}", &[]);
        assert_eq!(out.status.code(), Some(2), "{agent}");
    }
}

fn audit_lines(e: &Env) -> Vec<Value> {
    let mut lines = Vec::new();
    for dir in std::fs::read_dir(e.wicket_home().join("audit")).unwrap() {
        for f in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                for l in std::fs::read_to_string(p).unwrap().lines() {
                    lines.push(serde_json::from_str(l).unwrap());
                }
            }
        }
    }
    lines
}

#[test]
fn decisions_are_audited_with_the_agents_session_id() {
    let e = env();
    // A patch of two files is two decisions; the secret one denies the whole patch.
    let patch = "*** Begin Patch\n*** Add File: src/a.rs\n+x\n*** Update File: .env\n@@\n-A=1\n+A=2\n*** End Patch\n";
    let out = wicket(
        &e,
        &["hook", "codex"],
        &codex_payload(&e.root, "PreToolUse", "apply_patch", json!({"command": patch})),
        &[],
    );
    assert_eq!(answer(&out)["hookSpecificOutput"]["permissionDecision"], "deny");
    let out = wicket(
        &e,
        &["hook", "gemini"],
        &gemini_payload(&e.root, "run_shell_command", json!({"command": "git status"})),
        &[],
    );
    assert_eq!(answer(&out), json!({}));
    let lines = audit_lines(&e);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines.iter().filter(|l| l["session"] == "codex-sess-7").count(), 2, "{lines:?}");
    assert_eq!(lines.iter().filter(|l| l["session"] == "gemini-sess-9").count(), 1, "{lines:?}");
    let text = serde_json::to_string(&lines).unwrap();
    assert!(text.contains("deny_sensitive"), "{text}");
    let verify = wicket(&e, &["audit", "verify"], "", &[]);
    assert!(verify.status.success(), "{}", String::from_utf8_lossy(&verify.stdout));
}

#[test]
fn a_mandatory_audit_that_cannot_write_denies() {
    let e = env();
    std::fs::write(e.wicket_home().join("audit"), "").unwrap();
    let mandatory = [("WICKET_AUDIT_MANDATORY", "1")];
    let out = wicket(
        &e,
        &["hook", "codex"],
        &codex_payload(&e.root, "PreToolUse", "Bash", json!({"command": "git status"})),
        &mandatory,
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(answer(&out)["hookSpecificOutput"]["permissionDecision"], "deny");
    let out = wicket(
        &e,
        &["hook", "gemini"],
        &gemini_payload(&e.root, "run_shell_command", json!({"command": "git status"})),
        &mandatory,
    );
    assert_eq!(answer(&out)["decision"], "deny");
}

#[test]
fn a_blocked_ask_tells_the_person_how_to_allow_it() {
    let e = env();
    let out = wicket(
        &e,
        &["hook", "gemini"],
        &gemini_payload(&e.root, "write_file", json!({"file_path": "src/new.rs", "content": "x"})),
        &[],
    );
    let v = answer(&out);
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("Gemini CLI's hook cannot ask") && reason.contains("permissions.allow"), "{reason}");
    // With the rule it names, the same call is let through.
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    std::fs::write(e.wicket_home().join("settings.json"), r#"{"permissions": {"allow": ["write_file(src/new.rs)"]}}"#)
        .unwrap();
    let out = wicket(
        &e,
        &["hook", "gemini"],
        &gemini_payload(&e.root, "write_file", json!({"file_path": "src/new.rs", "content": "x"})),
        &[],
    );
    assert_eq!(answer(&out), json!({}), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn gemini_mcp_calls_are_decided_under_the_server_and_tool_their_context_names() {
    let e = env();
    // Gemini CLI's own naming: `mcp_<server>_<tool>`, with the parts in `mcp_context`.
    let call = |rules: &str| {
        std::fs::write(e.wicket_home().join("settings.json"), rules).unwrap();
        let mut p: Value = serde_json::from_str(&gemini_payload(
            &e.root,
            "mcp_my_fs_read_text_file",
            json!({"path": e.root.join("README.md")}),
        ))
        .unwrap();
        p["mcp_context"] = json!({"server_name": "my_fs", "tool_name": "read_text_file", "command": "npx"});
        let out = wicket(&e, &["hook", "gemini"], &p.to_string(), &[]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        answer(&out)
    };
    let allowed = call(r#"{"permissions": {"allow": ["mcp__my_fs__read_text_file"]}}"#);
    assert_eq!(allowed, json!({}), "the allow rule for mcp__my_fs__read_text_file did not apply");
    let denied = call(r#"{"permissions": {"allow": ["mcp__my_fs__read_text_file"], "deny": ["mcp__my_fs__*"]}}"#);
    assert_eq!(denied["decision"], "deny", "the deny rule for mcp__my_fs__* did not apply: {denied}");
    let unruled = call(r#"{"permissions": {"allow": ["mcp__other__read_text_file"]}}"#);
    assert_eq!(unruled["decision"], "deny", "{unruled}");
}

fn init(e: &Env, agent: &str, args: &[&str], extra_env: &[(&str, &str)]) -> Output {
    let mut a = vec!["init", agent];
    a.extend_from_slice(args);
    wicket(e, &a, "", extra_env)
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn init_codex_merges_hooks_json_and_is_idempotent() {
    let e = env();
    let file = e.home.join(".codex/hooks.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let before = json!({"description": "my hooks", "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-check", "statusMessage": "checking"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify", "timeout": 30}]}]}});
    std::fs::write(&file, before.to_string()).unwrap();
    let out = init(&e, "codex", &[], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(shown.contains("+ ") && shown.contains("hook codex") && shown.contains("/hooks"), "{shown}");
    let after = read_json(&file);
    assert_eq!(after["description"], "my hooks");
    assert_eq!(after["hooks"]["Stop"], before["hooks"]["Stop"]);
    let groups = after["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0], before["hooks"]["PreToolUse"][0]);
    assert_eq!(groups[1]["matcher"], "^(Bash|apply_patch|mcp__.*)$");
    let ours = &groups[1]["hooks"][0];
    assert!(ours["command"].as_str().unwrap().ends_with(" hook codex"));
    assert_eq!((ours["type"].as_str(), ours["timeout"].as_u64()), (Some("command"), Some(10)));
    let again = init(&e, "codex", &["--user"], &[]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("already set up"));
    assert_eq!(read_json(&file), after);
    let out = init(&e, "codex", &["--permission-request"], &[]);
    assert!(out.status.success());
    let after2 = read_json(&file);
    assert_eq!(after2["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
    assert_eq!(after2["hooks"]["PermissionRequest"].as_array().unwrap().len(), 1);
    let mut names: Vec<_> =
        std::fs::read_dir(file.parent().unwrap()).unwrap().map(|d| d.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names, ["config.toml", "hooks.json"], "no stray temporary files");
}

/// What `wicket init codex` writes into Codex's config.toml: wicket's permission profile as
/// Codex's default, into a file with the person's own settings and comments, which stay; a
/// second run changes nothing, `--dry-run` writes nothing, `--uninstall` and
/// `--unconfined-commands` take out exactly what wicket wrote; a default of the person's own is
/// never overridden, and doctor says where the commands run in each case.
#[test]
fn init_codex_writes_its_permission_profile_and_removes_only_its_own() {
    let e = env();
    let config = e.home.join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let mine = "# my Codex settings\nmodel = \"o3\"  # the model I use\n\n[permissions.reader]\nextends = \":read-only\"\n\n# projects I trust\n[projects.\"/srv/p\"]\ntrust_level = \"trusted\"\n";
    std::fs::write(&config, mine).unwrap();
    let path = [("PATH", "/usr/bin:/bin")];
    let doctor = || String::from_utf8_lossy(&wicket(&e, &["doctor"], "", &path).stdout).into_owned();
    let dry = init(&e, "codex", &["--dry-run", "--command", "/opt/w/wicket hook codex"], &path);
    assert!(dry.status.success(), "{}", String::from_utf8_lossy(&dry.stderr));
    assert!(String::from_utf8_lossy(&dry.stdout).contains("+ default_permissions = \"wicket\""));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), mine, "a dry run writes nothing");
    let out = init(&e, "codex", &["--command", "/opt/w/wicket hook codex"], &path);
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{shown}{}", String::from_utf8_lossy(&out.stderr));
    assert!(shown.contains("run in Codex's own sandbox with wicket's permission profile"), "{shown}");
    let after = std::fs::read_to_string(&config).unwrap();
    assert!(
        after.starts_with("# my Codex settings\nmodel = \"o3\"  # the model I use\ndefault_permissions = \"wicket\"\n"),
        "{after}"
    );
    for kept in [
        "[permissions.reader]\nextends = \":read-only\"\n",
        "# projects I trust\n[projects.\"/srv/p\"]\ntrust_level = \"trusted\"\n",
    ] {
        assert!(after.contains(kept), "{kept} in {after}");
    }
    for ours in [
        "[permissions.wicket]\nextends = \":workspace\"\n",
        "\"~/.ssh\" = \"deny\"\n",
        "\"~/.aws\" = \"deny\"\n",
        "\"~/.docker\" = \"deny\"\n",
        "\"~/*.pem\" = \"deny\"\n",
        "[permissions.wicket.network]\nenabled = false\n",
    ] {
        assert!(after.contains(ours), "{ours} in {after}");
    }
    assert!(doctor()
        .contains("shell commands confined: Codex runs them in its own sandbox with wicket's permission profile"));
    let again = init(&e, "codex", &["--command", "/opt/w/wicket hook codex"], &path);
    assert!(String::from_utf8_lossy(&again.stdout).contains("permission profile is already set up"));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), after, "idempotent");
    // An edited profile is put back.
    std::fs::write(&config, after.replace("enabled = false", "enabled = true")).unwrap();
    assert!(doctor().contains("differs from what this wicket writes"));
    assert!(init(&e, "codex", &["--command", "/opt/w/wicket hook codex"], &path).status.success());
    assert_eq!(std::fs::read_to_string(&config).unwrap(), after);
    // Uninstall takes out what wicket wrote, and only that.
    let out = init(&e, "codex", &["--uninstall"], &path);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), mine);
    assert!(
        String::from_utf8_lossy(&init(&e, "codex", &["--uninstall"], &path).stdout).contains("profile is not there")
    );
    // --unconfined-commands: the hook without the profile (an earlier one is removed).
    assert!(init(&e, "codex", &["--command", "/opt/w/wicket hook codex"], &path).status.success());
    let out = init(&e, "codex", &["--unconfined-commands", "--command", "/opt/w/wicket hook codex"], &path);
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success() && shown.contains("home's secrets (~/.ssh, ~/.aws, tokens) are readable"), "{shown}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), mine);
    assert!(read_json(&e.home.join(".codex/hooks.json"))["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .is_some_and(|c| c.ends_with(" hook codex")));
    let report = doctor();
    assert!(report.contains("run without wicket's permission profile, so the home's secrets are readable"), "{report}");
    // The person's own sandbox choice is named, never overridden.
    for (theirs, key) in [
        ("default_permissions = \"reader\"\n", "default_permissions = \"reader\""),
        ("sandbox_mode = \"danger-full-access\"\n", "sandbox_mode = \"danger-full-access\""),
    ] {
        let text = format!("{theirs}{mine}");
        std::fs::write(&config, &text).unwrap();
        let out = init(&e, "codex", &["--command", "/opt/w/wicket hook codex"], &path);
        let shown = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            shown.contains(&format!(
                "warning: wicket's permission profile is in {} but is not Codex's default, because of {key}",
                config.display()
            )),
            "{shown}"
        );
        let now = std::fs::read_to_string(&config).unwrap();
        assert!(now.starts_with(theirs) && now.contains("[permissions.wicket]"), "{now}");
        assert_eq!(
            now.lines().filter(|l| l.starts_with("default_permissions")).count(),
            theirs.matches("default_permissions").count()
        );
        let report = doctor();
        assert!(report.contains("run without wicket's permission profile") && report.contains(key), "{report}");
        assert!(init(&e, "codex", &["--uninstall"], &path).status.success());
        assert_eq!(std::fs::read_to_string(&config).unwrap(), text, "their setting stays, wicket's goes");
    }
    // A project's own Codex settings that would replace the profile are named.
    std::fs::write(&config, mine).unwrap();
    std::fs::create_dir_all(e.root.join(".codex")).unwrap();
    std::fs::write(e.root.join(".codex/config.toml"), "sandbox_mode = \"danger-full-access\"\n").unwrap();
    let out = init(&e, "codex", &["--command", "/opt/w/wicket hook codex"], &path);
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        shown.contains("sandbox_mode = \"danger-full-access\" replaces wicket's profile for Codex in this project"),
        "{shown}"
    );
    assert!(doctor().contains("WARNING:") && doctor().contains("replaces wicket's profile"));
    // A config.toml wicket cannot read stops init before anything is written.
    let e2 = env();
    std::fs::create_dir_all(e2.home.join(".codex")).unwrap();
    std::fs::write(e2.home.join(".codex/config.toml"), "model = \"o3\"\n[permissions\n").unwrap();
    let out = init(&e2, "codex", &[], &path);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("config.toml:2:"));
    assert!(!e2.home.join(".codex/hooks.json").exists(), "no hook without its profile");
}

#[test]
fn init_codex_honours_codex_home_and_project() {
    let e = env();
    let codex_home = e.home.join("elsewhere");
    let ch = codex_home.to_string_lossy().into_owned();
    let out = init(&e, "codex", &[], &[("CODEX_HOME", &ch)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(codex_home.join("hooks.json").exists());
    assert!(!e.home.join(".codex").exists());
    let out = init(&e, "codex", &["--project", "--command", "wicket hook codex"], &[("CODEX_HOME", &ch)]);
    assert!(out.status.success());
    let v = read_json(&e.root.join(".codex/hooks.json"));
    assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "wicket hook codex");
}

#[test]
fn doctor_warns_about_a_gemini_hook_that_misses_mcp_tools_until_init_updates_it() {
    let e = env();
    let file = e.home.join(".gemini/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    // What `wicket init gemini` wrote before Gemini CLI named MCP tools `mcp_<server>_<tool>`.
    let old = json!({"hooks": {"BeforeTool": [{"matcher": "^(run_shell_command|read_file|mcp__.*)$",
        "hooks": [{"name": "wicket", "type": "command", "command": "/usr/bin/wicket hook gemini", "timeout": 10000}]}]}});
    std::fs::write(&file, old.to_string()).unwrap();
    let doctor = || {
        let out = wicket(&e, &["doctor", "--root", e.root.to_str().unwrap()], "", &[]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let report = doctor();
    assert!(
        report.contains("does not cover Gemini CLI's MCP tools") && report.contains(".gemini/settings.json"),
        "{report}"
    );
    assert!(init(&e, "gemini", &[], &[]).status.success());
    let report = doctor();
    assert!(!report.contains("does not cover Gemini CLI's MCP tools"), "init did not update the matcher: {report}");
}

#[test]
fn init_gemini_merges_settings_and_warns_when_hooks_are_off() {
    let e = env();
    let file = e.home.join(".gemini/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let before = json!({"theme": "GitHub", "general": {"vimMode": true}, "hooksConfig": {"enabled": false},
        "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"name": "lint", "type": "command", "command": "lint.sh"}]}]}});
    std::fs::write(&file, before.to_string()).unwrap();
    let out = init(&e, "gemini", &["--user"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(shown.contains("hooksConfig.enabled is false"), "{shown}");
    let after = read_json(&file);
    assert_eq!(after["theme"], "GitHub");
    assert_eq!(after["general"], before["general"]);
    let groups = after["hooks"]["BeforeTool"].as_array().unwrap();
    assert_eq!(groups[0], before["hooks"]["BeforeTool"][0]);
    let matcher = groups[1]["matcher"].as_str().unwrap();
    for t in ["run_shell_command", "read_file", "write_file", "replace", "grep_search", "web_fetch", "|mcp_.*"] {
        assert!(matcher.contains(t), "{matcher} lacks {t}");
    }
    let ours = &groups[1]["hooks"][0];
    assert_eq!((ours["name"].as_str(), ours["timeout"].as_u64()), (Some("wicket"), Some(10_000)));
    assert!(ours["command"].as_str().unwrap().ends_with(" hook gemini --sandbox-commands"), "confined by default");
    let again = init(&e, "gemini", &[], &[]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("already set up"));
    assert_eq!(read_json(&file), after);
}

#[test]
fn init_gemini_project_dry_run_and_a_file_with_comments() {
    let e = env();
    let file = e.root.join(".gemini/settings.json");
    let out = init(&e, "gemini", &["--project", "--dry-run"], &[]);
    assert!(out.status.success());
    assert!(!file.exists());
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{ // comments are Gemini CLI's, not JSON\n}").unwrap();
    let out = init(&e, "gemini", &["--project"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{ // comments are Gemini CLI's, not JSON\n}");
}

#[test]
fn a_codex_patch_over_several_files_answers_with_the_strictest_files_reason() {
    let e = env();
    let patch =
        "*** Begin Patch\n*** Add File: src/new.rs\n+fn a() {}\n*** Update File: .env\n@@\n-A=1\n+A=2\n*** End Patch\n";
    let out = wicket(
        &e,
        &["hook", "codex"],
        &codex_payload(&e.root, "PreToolUse", "apply_patch", json!({"command": patch})),
        &[],
    );
    let v = answer(&out);
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap();
    // The new file alone would only need a person; the secret is what blocks the patch.
    assert!(reason.contains("sensitive") && reason.contains(".env"), "{reason}");
}

#[test]
fn init_uninstall_removes_only_wickets_hook_for_each_agent() {
    for (agent, file, event) in [
        ("claude", ".claude/settings.json", "PreToolUse"),
        ("codex", ".codex/hooks.json", "PreToolUse"),
        ("gemini", ".gemini/settings.json", "BeforeTool"),
    ] {
        let e = env();
        let path = e.home.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let other = json!({"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]});
        std::fs::write(&path, json!({"theme": "x", "hooks": {event: [other.clone()]}}).to_string()).unwrap();
        assert!(init(&e, agent, &[], &[]).status.success(), "{agent}");
        assert_eq!(read_json(&path)["hooks"][event].as_array().unwrap().len(), 2, "{agent}: installed");
        let out = init(&e, agent, &["--uninstall"], &[]);
        assert!(out.status.success(), "{agent}: {}", String::from_utf8_lossy(&out.stderr));
        let after = read_json(&path);
        assert_eq!(after["hooks"][event], json!([other]), "{agent}: only wicket's hook went");
        assert_eq!(after["theme"], "x", "{agent}");
        let again = init(&e, agent, &["--uninstall"], &[]);
        assert!(String::from_utf8_lossy(&again.stdout).contains("nothing to remove"), "{agent}");
    }
}

#[test]
fn doctor_reports_each_installed_hook_and_a_missing_program() {
    let e = env();
    let doctor = || {
        let out = wicket(&e, &["doctor", "--root", e.root.to_str().unwrap()], "", &[]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(doctor().contains("hook: none installed"));
    assert!(init(&e, "gemini", &[], &[]).status.success());
    assert!(init(&e, "codex", &["--command", "/nonexistent/wicket hook codex"], &[]).status.success());
    let report = doctor();
    assert!(report.contains("hook: gemini in") && report.contains(" exists"), "{report}");
    assert!(report.contains("hook: codex in") && report.contains("/nonexistent/wicket does not exist"), "{report}");
    assert!(report.contains("trust it"), "{report}");
}

fn in_ci() -> bool {
    ["CI", "WICKET_CI"].iter().any(|v| std::env::var(v).is_ok_and(|x| !x.is_empty() && x != "0" && x != "false"))
}

/// A real agent CLI `.ci/agents.sh` installed (`WICKET_AGENTS`: `codex`, `gemini`, `claude`), or `None`
/// outside CI.
fn real_agent(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("WICKET_AGENTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("../agents"));
    let bin = dir.join("node_modules/.bin").join(name);
    if bin.exists() {
        return Some(bin);
    }
    let msg = format!("{name} is not installed in {}: run .ci/agents.sh", dir.display());
    assert!(!in_ci(), "{msg} (CI must not skip this test)");
    eprintln!("{msg}; skipped");
    None
}

/// What the real Codex says of each hook it sees from `cwd`: key → (trustStatus, currentHash),
/// asked through its own `codex app-server` (`hooks/list`).
fn codex_hooks(codex: &Path, e: &Env, codex_home: &Path, cwd: &Path) -> Vec<(String, String)> {
    let mut child = Command::new(codex)
        .arg("app-server")
        .env("HOME", &e.home)
        .env("CODEX_HOME", codex_home)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t", "version": "0"}}});
    let list = json!({"id": 2, "method": "hooks/list", "params": {"cwds": [cwd]}});
    writeln!(stdin, "{init}\n{}\n{list}", json!({"method": "initialized"})).unwrap();
    let mut out = Vec::new();
    for line in std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap())) {
        let msg: Value = serde_json::from_str(&line.unwrap()).unwrap_or(Value::Null);
        if msg["id"] == 2 {
            for h in msg["result"]["data"][0]["hooks"].as_array().unwrap() {
                out.push((h["key"].as_str().unwrap().to_string(), h["trustStatus"].as_str().unwrap().to_string()));
            }
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    out.sort();
    out
}

#[test]
fn init_codex_trust_records_the_trust_and_doctor_reads_it() {
    let e = env();
    let ch = e.home.join(".codex");
    std::fs::create_dir_all(&ch).unwrap();
    std::fs::write(ch.join("config.toml"), "# mine\nmodel = \"o3\"\n").unwrap();
    // No codex on PATH: wicket computes Codex's hash itself.
    let path = [("PATH", "/usr/bin:/bin")];
    let out = init(&e, "codex", &["--trust", "--permission-request", "--command", "/opt/w/wicket hook codex"], &path);
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{shown}{}", String::from_utf8_lossy(&out.stderr));
    assert!(shown.contains("no codex was asked"), "{shown}");
    let config = std::fs::read_to_string(ch.join("config.toml")).unwrap();
    assert!(config.starts_with("# mine\nmodel = \"o3\"\n"), "the rest of the file stays: {config}");
    let file = ch.join("hooks.json");
    for event in ["pre_tool_use", "permission_request"] {
        let key = format!("[hooks.state.\"{}:{event}:0:0\"]\ntrusted_hash = \"sha256:", file.display());
        assert!(config.contains(&key), "{key} in {config}");
    }
    let doctor = wicket(&e, &["doctor"], "", &path);
    let report = String::from_utf8_lossy(&doctor.stdout).into_owned();
    assert_eq!(report.matches(": trusted in Codex").count(), 2, "{report}");
    // A changed hook is no longer trusted, and doctor says so.
    let hooks = std::fs::read_to_string(&file).unwrap().replace("\"timeout\": 10", "\"timeout\": 30");
    std::fs::write(&file, hooks).unwrap();
    let report = String::from_utf8_lossy(&wicket(&e, &["doctor"], "", &path).stdout).into_owned();
    assert_eq!(report.matches("changed since Codex trusted it").count(), 2, "{report}");
    // Running it again puts both right.
    let out = init(&e, "codex", &["--trust", "--permission-request", "--command", "/opt/w/wicket hook codex"], &path);
    assert!(out.status.success());
    let report = String::from_utf8_lossy(&wicket(&e, &["doctor"], "", &path).stdout).into_owned();
    assert_eq!(report.matches(": trusted in Codex").count(), 2, "{report}");
    let again = init(&e, "codex", &["--trust", "--permission-request", "--command", "/opt/w/wicket hook codex"], &path);
    assert!(String::from_utf8_lossy(&again.stdout).contains("already trusts"));
    // Without --trust, doctor names the fix.
    let e2 = env();
    assert!(init(&e2, "codex", &["--command", "/opt/w/wicket hook codex"], &path).status.success());
    let report = String::from_utf8_lossy(&wicket(&e2, &["doctor"], "", &path).stdout).into_owned();
    assert!(report.contains("not trusted in Codex") && report.contains("wicket init codex --trust"), "{report}");
    // A broken config.toml is named with its position, and nothing is written.
    let e3 = env();
    std::fs::create_dir_all(e3.home.join(".codex")).unwrap();
    std::fs::write(e3.home.join(".codex/config.toml"), "model = \"o3\"\n[hooks\n").unwrap();
    let out = init(&e3, "codex", &["--trust"], &path);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success() && err.contains("config.toml:2:"), "{err}");
    assert!(!e3.home.join(".codex/hooks.json").exists(), "no hook without its trust");
}

/// A `codex` first on `PATH` in a folder that is not root's (a sandboxed command may have
/// planted it, as in a project's activated virtualenv) is never run by `wicket init codex
/// --trust`; init says so and falls back to Codex's rule. The control: named with `--codex`,
/// the same file runs.
#[test]
fn init_codex_trust_never_runs_a_codex_found_outside_roots_folders() {
    let e = env();
    let bin = e.root.join(".venv/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let marker = e.home.join("fake-codex-ran");
    let fake = bin.join("codex");
    std::fs::write(&fake, format!("#!/bin/sh\necho ran > {}\nexit 1\n", marker.display())).unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let args = ["--trust", "--command", "/opt/w/wicket hook codex"];
    let out = init(&e, "codex", &args, &[("PATH", &path)]);
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{shown}{}", String::from_utf8_lossy(&out.stderr));
    assert!(!marker.exists(), "the codex on PATH ran: {shown}");
    assert!(shown.contains(&format!("{} (on PATH) is not run", fake.display())), "{shown}");
    assert!(shown.contains("no codex was asked"), "{shown}");
    // Control: the person names it, so it runs (and, being no codex, cannot confirm).
    let fake_arg = fake.to_str().unwrap();
    let out = init(
        &e,
        "codex",
        &["--trust", "--command", "/opt/w/wicket hook codex", "--codex", fake_arg],
        &[("PATH", &path)],
    );
    assert!(marker.exists(), "control: the named codex runs: {}", String::from_utf8_lossy(&out.stdout));
}

/// The trust is the one the real Codex CLI (pinned, from npm) accepts: it reports wicket's hooks
/// as trusted, and as modified once changed, as `wicket doctor` does.
#[test]
fn real_codex_trusts_what_init_codex_trust_records() {
    let Some(codex) = real_agent("codex") else { return };
    let e = env();
    let ch = e.home.join(".codex");
    let bin_dir = codex.parent().unwrap().to_string_lossy().into_owned();
    let node_path = format!("{bin_dir}:/usr/local/bin:/usr/bin:/bin");
    // Without codex on PATH: wicket's own reading of Codex's rule.
    let no_codex = [("PATH", "/usr/local/bin:/usr/bin:/bin")];
    let args = ["--trust", "--permission-request", "--command", "/opt/w/wicket hook codex"];
    let out = init(&e, "codex", &args, &no_codex);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = ch.join("hooks.json").display().to_string();
    let seen = codex_hooks(&codex, &e, &ch, &e.root);
    assert_eq!(
        seen,
        vec![
            (format!("{file}:permission_request:0:0"), "trusted".to_string()),
            (format!("{file}:pre_tool_use:0:0"), "trusted".to_string())
        ]
    );
    // Changed: Codex and doctor agree it is no longer trusted.
    let hooks = std::fs::read_to_string(ch.join("hooks.json")).unwrap().replace("\"timeout\": 10", "\"timeout\": 9");
    std::fs::write(ch.join("hooks.json"), hooks).unwrap();
    assert!(codex_hooks(&codex, &e, &ch, &e.root).iter().all(|(_, s)| s == "modified"));
    let report = String::from_utf8_lossy(&wicket(&e, &["doctor"], "", &no_codex).stdout).into_owned();
    assert_eq!(report.matches("changed since Codex trusted it").count(), 2, "{report}");
    // With codex named (it is not in root's folders), init asks it and reports its answer.
    let codex_arg = codex.to_str().unwrap();
    let args = ["--trust", "--permission-request", "--command", "/opt/w/wicket hook codex", "--codex", codex_arg];
    let out = init(&e, "codex", &args, &[("PATH", &node_path)]);
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{shown}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(shown.matches("is trusted").count(), 2, "{shown}");
    assert!(shown.contains("Codex 0.171.0"), "{shown}");
    // A project's hooks: Codex ignores them until the project is trusted, and init says so.
    let project_args = ["--project", "--trust", "--command", "/opt/w/wicket hook codex", "--codex", codex_arg];
    let out = init(&e, "codex", &project_args, &[("PATH", &node_path)]);
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(shown.contains("only once you trust the project"), "{shown}");
    let mut config = std::fs::read_to_string(ch.join("config.toml")).unwrap();
    config.push_str(&format!("\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n", e.root.display()));
    std::fs::write(ch.join("config.toml"), config).unwrap();
    let out = init(&e, "codex", &project_args, &[("PATH", &node_path)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let project_key = format!("{}:pre_tool_use:0:0", e.root.join(".codex/hooks.json").display());
    assert!(codex_hooks(&codex, &e, &ch, &e.root).contains(&(project_key, "trusted".to_string())));
}

/// `sh -c SCRIPT` in the real Codex's own sandbox (`codex sandbox`, which takes the sandbox
/// from Codex's config as a session does: `default_permissions` and its profile), in the
/// project, with the test's home and nothing else of the caller's environment.
fn codex_sandbox(codex: &Path, e: &Env, script: &str) -> Output {
    Command::new("timeout")
        .args(["-k", "5", "60"])
        .arg(codex)
        .args(["sandbox", "--", "sh", "-c", script])
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &e.home)
        .env("CODEX_HOME", e.home.join(".codex"))
        .current_dir(&e.root)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Set up with a plain `wicket init codex`, the real Codex (pinned, from npm) runs commands in
/// its own sandbox with wicket's permission profile: a write in the project works, the home's
/// SSH key and the AWS keys in a linked `~/.aws` cannot be read, `~/.bashrc` cannot be
/// written, a connection to a listener on the host fails. The control, `--unconfined-commands`
/// (no profile), reads both.
#[test]
fn real_codex_sandbox_takes_wickets_profile_by_default() {
    let Some(codex) = real_agent("codex") else { return };
    // Outside every temp folder: Codex refuses to put its helpers in a CODEX_HOME under /tmp,
    // and writes temp folders in its sandbox.
    let e = env_in(tempfile::tempdir_in(common::outside_temp("codex-sandbox")).unwrap());
    let key = "-----BEGIN OPENSSH PRIVATE KEY----- codex-sandbox-7f3a\n";
    std::fs::create_dir_all(e.home.join(".ssh")).unwrap();
    std::fs::write(e.home.join(".ssh/id_rsa"), key).unwrap();
    let rc = "# the person's own\n";
    std::fs::write(e.home.join(".bashrc"), rc).unwrap();
    // A secrets folder that is a link by absolute path (dotfiles managers make these): Codex
    // 0.171 cannot mask the link itself and would then run no command at all; the profile
    // names where it leads.
    std::fs::create_dir_all(e.home.join("dotfiles/aws")).unwrap();
    std::fs::write(e.home.join("dotfiles/aws/credentials"), "aws_secret_access_key = codex-sandbox-aws\n").unwrap();
    std::os::unix::fs::symlink(e.home.join("dotfiles/aws"), e.home.join(".aws")).unwrap();
    let path = [("PATH", "/usr/local/bin:/usr/bin:/bin")];
    let out = init(&e, "codex", &["--command", "/opt/w/wicket hook codex"], &path);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = |script: &str| {
        let out = codex_sandbox(&codex, &e, script);
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.success(), text)
    };
    let (ok, text) = run("echo hi > ok.txt");
    assert!(ok, "{text}");
    assert_eq!(std::fs::read_to_string(e.root.join("ok.txt")).unwrap(), "hi\n");
    let (ok, text) = run("cat \"$HOME/.ssh/id_rsa\"");
    assert!(!ok && !text.contains("codex-sandbox-7f3a"), "the key was read: {text}");
    let (ok, text) = run("cat \"$HOME/.aws/credentials\"");
    assert!(!ok && !text.contains("codex-sandbox-aws"), "the linked folder was read: {text}");
    let (ok, text) = run("echo pwned >> \"$HOME/.bashrc\"");
    assert!(!ok, "{text}");
    assert_eq!(std::fs::read_to_string(e.home.join(".bashrc")).unwrap(), rc);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 5)'");
    let (ok, text) = run(&connect);
    assert!(!ok && text.contains("Errno"), "connected: {text}");
    // Control: the connection is possible outside the sandbox.
    assert!(Command::new("sh").args(["-c", &connect]).status().unwrap().success());
    // Control: without wicket's profile Codex's sandbox lets the command read the key.
    let out = init(&e, "codex", &["--unconfined-commands", "--command", "/opt/w/wicket hook codex"], &path);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (ok, text) = run("cat \"$HOME/.ssh/id_rsa\" \"$HOME/.aws/credentials\"");
    assert!(ok && text.contains("codex-sandbox-7f3a") && text.contains("codex-sandbox-aws"), "{text}");
}

/// Start a scripted local model (`tests/agents/NAME`) that answers from `script` and logs every
/// request to `log`; the process and the port it listens on.
fn fake_model(name: &str, script: &Path, log: &Path) -> (std::process::Child, String) {
    let mut model = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents").join(name))
        .arg(script)
        .arg(log)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(model.stdout.take().unwrap()), &mut port).unwrap();
    (model, port)
}

/// The real Gemini CLI (pinned, from npm) with wicket's hook from `wicket init gemini`, an MCP
/// filesystem server, and a scripted local model that asks for one MCP tool call: what the
/// model gets back is what it would see. Returns the log of the model requests.
fn gemini_session(gemini: &Path, e: &Env, matcher: Option<&str>, call: Value) -> Vec<Value> {
    gemini_steps(gemini, e, matcher, vec![call])
}

/// [`gemini_session`] with several model steps, each a tool call (`{"call": …, "args": …}`).
fn gemini_steps(gemini: &Path, e: &Env, matcher: Option<&str>, calls: Vec<Value>) -> Vec<Value> {
    let peers = std::env::var_os("WICKET_MCP_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("../mcp-peers"));
    let fs_server = peers.join("npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    assert!(fs_server.exists(), "{} missing: run .ci/mcp-peers.sh", fs_server.display());
    assert!(init(e, "gemini", &[], &[]).status.success());
    let file = e.home.join(".gemini/settings.json");
    let mut settings = read_json(&file);
    if let Some(m) = matcher {
        settings["hooks"]["BeforeTool"][0]["matcher"] = json!(m);
    }
    settings["mcpServers"] = json!({"fs": {"command": "node", "args": [fs_server, e.root], "trust": true}});
    settings["security"] = json!({"auth": {"selectedType": "gemini-api-key"}});
    std::fs::write(&file, settings.to_string()).unwrap();
    let dir = e.home.join("model");
    std::fs::create_dir_all(&dir).unwrap();
    let mut script = calls;
    script.push(json!({"text": "finished"}));
    std::fs::write(dir.join("script.json"), Value::Array(script).to_string()).unwrap();
    let log = dir.join("log.jsonl");
    let (mut model, port) = fake_model("fake_gemini.py", &dir.join("script.json"), &log);
    let out = Command::new(gemini)
        .args(["-p", "do the task", "--approval-mode", "yolo"])
        .env("HOME", &e.home)
        .env("WICKET_HOME", e.wicket_home())
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
        .env("GEMINI_API_KEY", "fake")
        .env("GOOGLE_GEMINI_BASE_URL", format!("http://127.0.0.1:{}", port.trim()))
        .current_dir(&e.root)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let _ = model.kill();
    let _ = model.wait();
    assert!(out.status.success(), "gemini: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The function responses Gemini CLI sent the model.
fn function_responses(log: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for req in log {
        for c in req["body"]["contents"].as_array().into_iter().flatten() {
            for p in c["parts"].as_array().into_iter().flatten() {
                if p.get("functionResponse").is_some() && !out.contains(&p["functionResponse"]) {
                    out.push(p["functionResponse"].clone());
                }
            }
        }
    }
    out
}

/// A model that asks Gemini CLI to read `.env` through an MCP server gets wicket's refusal, not
/// the secret; with the matcher older `wicket init` wrote (`mcp__.*`, which Gemini CLI's
/// `mcp_<server>_<tool>` names miss) the same session hands the model the secret, and a read
/// wicket's rules allow goes through.
#[test]
fn real_gemini_cli_mcp_calls_are_gated() {
    let Some(gemini) = real_agent("gemini") else { return };
    let secret = "SECRET=gemini-mcp-7f3a";
    let read = |e: &Env, name: &str| json!({"call": "read_text_file", "args": {"path": e.root.join(name)}});
    let e = env();
    std::fs::write(e.root.join(".env"), secret).unwrap();
    let log = gemini_session(&gemini, &e, None, read(&e, ".env"));
    let answers = function_responses(&log);
    assert_eq!(answers.len(), 1, "{log:?}");
    assert_eq!(answers[0]["name"], "mcp_fs_read_text_file");
    let text = answers[0].to_string();
    assert!(text.contains("Blocked by wicket (sensitive)"), "{text}");
    assert!(!log.iter().any(|r| r.to_string().contains("gemini-mcp-7f3a")), "the secret reached the model");
    // The control: the old matcher lets Gemini CLI's MCP names through, and the secret leaks.
    let e = env();
    std::fs::write(e.root.join(".env"), secret).unwrap();
    let old = "^(run_shell_command|read_file|read_many_files|write_file|replace|glob|grep_search|search_file_content|list_directory|web_fetch|google_web_search|mcp__.*)$";
    let log = gemini_session(&gemini, &e, Some(old), read(&e, ".env"));
    assert!(function_responses(&log)[0].to_string().contains("gemini-mcp-7f3a"), "{log:?}");
    // An allow rule in the user's settings, written in the MCP form, lets an ordinary read through.
    let e = env();
    std::fs::write(e.wicket_home().join("settings.json"), r#"{"permissions": {"allow": ["mcp__fs__read_text_file"]}}"#)
        .unwrap();
    let log = gemini_session(&gemini, &e, None, read(&e, "README.md"));
    let text = function_responses(&log)[0].to_string();
    assert!(text.contains("hi") && !text.contains("wicket"), "{text}");
}

/// A shell command line that writes `~/.bashrc` through Python, which the gate judges as code
/// the sandbox contains: only the sandbox can stop it.
fn bashrc_writer(home: &Path) -> String {
    format!("python3 -c \"open('{}/.bashrc', 'a').write('pwned')\"", home.display())
}

fn bwrap_here(e: &Env) -> bool {
    String::from_utf8_lossy(&wicket(e, &["doctor"], "", &[]).stdout).contains("backend: bwrap")
}

/// `wicket hook gemini --sandbox-commands` (what `wicket init gemini` now installs) rewrites an
/// allowed shell call (`hookSpecificOutput.tool_input`) into `wicket run`; run as Gemini CLI
/// would run it, the command works in the project and cannot write the home.
#[test]
fn gemini_hook_rewrites_shell_calls_into_the_sandbox() {
    let e = env();
    if !bwrap_here(&e) {
        eprintln!("no bubblewrap here: the hook judges commands as host commands (tested elsewhere)");
        return;
    }
    std::fs::write(e.home.join(".bashrc"), "orig\n").unwrap();
    let run = |command: &str| {
        let payload = gemini_payload(&e.root, "run_shell_command", json!({"command": command, "description": "d"}));
        let out = wicket(&e, &["hook", "gemini", "--sandbox-commands"], &payload, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let v = answer(&out);
        let new =
            v["hookSpecificOutput"]["tool_input"]["command"].as_str().unwrap_or_else(|| panic!("{v}")).to_string();
        assert!(new.contains(" run --unattended --root "), "{new}");
        Command::new("bash").arg("-c").arg(&new).current_dir(&e.root).env("HOME", &e.home).output().unwrap()
    };
    let ok = run("echo hi > ok.txt");
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    assert_eq!(std::fs::read_to_string(e.root.join("ok.txt")).unwrap(), "hi\n");
    let bad = run(&bashrc_writer(&e.home));
    assert!(!bad.status.success(), "the sandboxed write to ~/.bashrc succeeded");
    assert_eq!(std::fs::read_to_string(e.home.join(".bashrc")).unwrap(), "orig\n");
    // The control: the same line unconfined writes it.
    let direct = Command::new("bash").arg("-c").arg(bashrc_writer(&e.home)).output().unwrap();
    assert!(direct.status.success());
    assert!(std::fs::read_to_string(e.home.join(".bashrc")).unwrap().contains("pwned"));
}

/// The real Gemini CLI, set up with a plain `wicket init gemini`, runs the model's shell calls
/// inside the sandbox: `echo hi > ok.txt` works, a write to `~/.bashrc` fails, and the audit log
/// records the run.
#[test]
fn real_gemini_cli_runs_shell_calls_confined_by_default() {
    let Some(gemini) = real_agent("gemini") else { return };
    let e = env();
    if !bwrap_here(&e) {
        eprintln!("no bubblewrap here; skipped");
        return;
    }
    std::fs::write(e.home.join(".bashrc"), "orig\n").unwrap();
    let shell = |c: String| json!({"call": "run_shell_command", "args": {"command": c, "description": "d"}});
    let log = gemini_steps(&gemini, &e, None, vec![shell("echo hi > ok.txt".into()), shell(bashrc_writer(&e.home))]);
    let answers = function_responses(&log);
    assert_eq!(answers.len(), 2, "{log:?}");
    assert_eq!(std::fs::read_to_string(e.root.join("ok.txt")).unwrap_or_default(), "hi\n", "{answers:?}");
    assert_eq!(std::fs::read_to_string(e.home.join(".bashrc")).unwrap(), "orig\n", "{answers:?}");
    assert!(answers[1].to_string().contains("Read-only file system"), "{answers:?}");
    let audit = audit_lines(&e);
    let ran: Vec<&Value> = audit.iter().filter(|l| l["kind"] == "executed" && l["tool"] == "bash").collect();
    assert_eq!(ran.len(), 2, "{audit:?}");
    assert!(ran[0]["target"].as_str().unwrap().contains("echo hi > ok.txt"), "{ran:?}");
}

/// The real Claude Code (pinned, from npm) in print mode (`claude -p`), with wicket's hook from
/// `wicket init claude INIT_ARGS` in the user's settings (`~/.claude/settings.json` of the
/// test's home), against a scripted local model (`tests/agents/fake_claude.py`) that asks for
/// `steps`. Print mode needs no onboarding or trust state in the home, and with
/// `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` Claude Code connects to nothing but the model
/// (no DNS look-up, no `/api/hello`). Returns Claude Code's output and the model requests.
fn claude_session(
    claude: &Path,
    e: &Env,
    init_args: &[&str],
    steps: Value,
    extra_env: &[(&str, &str)],
) -> (Output, Vec<Value>) {
    let out = init(e, "claude", init_args, &[]);
    assert!(out.status.success(), "init: {}", String::from_utf8_lossy(&out.stderr));
    let dir = e.home.parent().unwrap().join("model");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("script.json"), steps.to_string()).unwrap();
    let log = dir.join("log.jsonl");
    let (mut model, port) = fake_model("fake_claude.py", &dir.join("script.json"), &log);
    // Nothing of the caller's environment (a real key, CLAUDE_CONFIG_DIR, a proxy) reaches it;
    // `timeout` ends a session that hangs instead of the whole test run.
    let mut cmd = Command::new("timeout");
    cmd.args(["-k", "5", "120"])
        .arg(claude)
        .args(["-p", "do the task"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into()))
        .env("HOME", &e.home)
        .env("WICKET_HOME", e.wicket_home())
        .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{}", port.trim()))
        .env("ANTHROPIC_API_KEY", "fake")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .current_dir(&e.root)
        .stdin(Stdio::null());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let _ = model.kill();
    let _ = model.wait();
    assert!(
        out.status.success(),
        "claude: {:?}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let log = std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (out, log)
}

/// The tool_result blocks Claude Code sent the model, one per tool call, in the order of the
/// calls, each with its text as `"text"` (Claude Code sends a string or text blocks).
fn tool_results(log: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for req in log {
        for m in req["body"]["messages"].as_array().into_iter().flatten() {
            for c in m["content"].as_array().into_iter().flatten() {
                if c["type"] != "tool_result" || out.iter().any(|o| o["tool_use_id"] == c["tool_use_id"]) {
                    continue;
                }
                let text = match &c["content"] {
                    Value::String(s) => s.clone(),
                    blocks => blocks
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|b| b["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                };
                let mut r = c.clone();
                r["text"] = json!(text);
                out.push(r);
            }
        }
    }
    out
}

fn bash(command: &str) -> Value {
    json!({"tool": "Bash", "input": {"command": command, "description": "a step of the task"}})
}

/// The audit entry of `kind` for `target`.
fn audited<'a>(lines: &'a [Value], kind: &str, target: &str) -> Option<&'a Value> {
    lines.iter().find(|l| l["kind"] == kind && l["target"] == target)
}

/// Opted out of confinement (`--unconfined-commands`), Claude Code runs a Bash command wicket's
/// hook allows on the host, refuses the one it denies (the model reads wicket's reason, never the
/// secret) and, in print mode where nobody can be asked, the one it asks about; each decision is
/// in the audit log under Claude Code's session id.
#[test]
fn real_claude_code_unconfined_runs_allowed_commands_through_the_hook() {
    let Some(claude) = real_agent("claude") else { return };
    let e = env();
    std::fs::write(e.root.join(".env"), "SECRET=claude-hook-4b1e\n").unwrap();
    // Without a rule wicket asks about a write to a new file.
    std::fs::write(
        e.wicket_home().join("settings.json"),
        r#"{"permissions": {"allow": ["bash(echo hi *)", "write_file(ok.txt)"]}}"#,
    )
    .unwrap();
    let steps = json!([bash("echo hi > ok.txt"), bash("cat .env"), bash("echo bye > asked.txt"), {"text": "finished"}]);
    let (out, log) = claude_session(&claude, &e, &["--unconfined-commands"], steps, &[]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("finished"), "{out:?}");
    let results = tool_results(&log);
    assert_eq!(results.len(), 3, "{results:?}");
    assert_eq!(std::fs::read_to_string(e.root.join("ok.txt")).ok().as_deref(), Some("hi\n"), "{results:?}");
    assert_eq!(results[0]["is_error"], false, "{}", results[0]);
    let denied = results[1]["text"].as_str().unwrap();
    assert!(results[1]["is_error"] == true && denied.contains("Blocked by wicket (sensitive)"), "{denied}");
    assert!(!log.iter().any(|r| r.to_string().contains("claude-hook-4b1e")), "the secret reached the model");
    let asked = results[2]["text"].as_str().unwrap();
    assert!(asked.contains("wicket asks you"), "{asked}");
    assert!(!e.root.join("asked.txt").exists());
    let lines = audit_lines(&e);
    let decisions = [
        audited(&lines, "allow_rule", "echo hi > ok.txt"),
        audited(&lines, "deny_sensitive", "cat .env"),
        audited(&lines, "ask_default", "echo bye > asked.txt"),
    ];
    assert!(decisions.iter().all(Option::is_some), "{lines:?}");
    let session = &decisions[0].unwrap()["session"];
    assert!(session.as_str().is_some_and(|s| s.len() > 8), "{session}");
    assert!(decisions.iter().all(|d| &d.unwrap()["session"] == session), "one Claude Code session: {lines:?}");
}

/// Set up with a plain `wicket init claude`, the hook moves each allowed Bash command into `wicket run`: Claude
/// Code runs the rewritten command without asking again, the command's work lands in the
/// project, and a write to `~/.bashrc` the gate cannot see (Python's own `open`) is stopped by
/// the OS sandbox, on both backends. The plain `>> ~/.bashrc` never runs (the gate asks, and
/// nobody can answer in print mode).
#[test]
fn real_claude_code_confines_bash_by_default() {
    let Some(claude) = real_agent("claude") else { return };
    let python = r#"python3 -c 'import os; open(os.path.expanduser("~/.bashrc"), "a").write("pwned\n")'"#;
    for backend in ["bwrap", "landlock"] {
        // Outside every temp folder: the sandbox lets a command write temp folders.
        let e = env_in(tempfile::tempdir_in(common::outside_temp("claude-sessions")).unwrap());
        // Under Landlock a new file beside a secret cannot be made (docs/sandbox.md).
        std::fs::remove_file(e.root.join(".env")).unwrap();
        let rc = "# the person's own\n";
        std::fs::write(e.home.join(".bashrc"), rc).unwrap();
        let steps =
            json!([bash("echo hi > ok.txt"), bash("echo pwned >> ~/.bashrc"), bash(python), {"text": "finished"}]);
        let (out, log) = claude_session(&claude, &e, &[], steps, &[("WICKET_SANDBOX_BACKEND", backend)]);
        let results = tool_results(&log);
        assert_eq!(results.len(), 3, "{backend}: {results:?}\n{out:?}");
        assert_eq!(results[0]["is_error"], false, "{backend}: {}", results[0]);
        assert_eq!(std::fs::read_to_string(e.root.join("ok.txt")).ok().as_deref(), Some("hi\n"), "{backend}");
        assert_eq!(std::fs::read_to_string(e.home.join(".bashrc")).unwrap(), rc, "{backend}: {results:?}");
        assert_eq!(results[2]["is_error"], true, "{backend}: {}", results[2]);
        // What ran, ran in `wicket run`: its own entries, with the command's exit code.
        let lines = audit_lines(&e);
        let ran = |cmd: &str| {
            let target = format!("bash -c {}", wicket_policy::text::shell_quote(cmd));
            audited(&lines, "executed", &target).map(|l| l["exit_code"].as_i64())
        };
        assert_eq!(ran("echo hi > ok.txt"), Some(Some(0)), "{backend}: {lines:?}");
        assert!(ran(python).is_some_and(|c| c != Some(0)), "{backend}: {lines:?}");
        assert!(audited(&lines, "ask_config", "echo pwned >> ~/.bashrc").is_some(), "{backend}: {lines:?}");
        assert!(ran("echo pwned >> ~/.bashrc").is_none(), "{backend}: {lines:?}");
    }
}

/// `wicket hook <agent> --example` reads no payload and shows, for each typical call, the
/// payload in the agent's own shape and the answer the agent would get: the secret and the
/// git hook refused, the tests allowed; nothing is logged.
#[test]
fn example_shows_what_each_agent_would_receive_without_a_payload_or_a_log_line() {
    let e = env();
    for agent in ["claude", "gemini", "codex"] {
        // With the flags `wicket init` writes (Codex confines in its own sandbox).
        let flags: &[&str] = if agent == "codex" { &[] } else { &["--sandbox-commands"] };
        let out = wicket(&e, &[&["hook", agent, "--example"][..], flags].concat(), "", &[]);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert_eq!(out.status.code(), Some(0), "{agent}: {text}{}", String::from_utf8_lossy(&out.stderr));
        let part = |label: &str| {
            let at = text.find(&format!("\n{label}:\n")).unwrap_or_else(|| panic!("{agent}: no {label:?}: {text}"));
            let rest = &text[at + 1..];
            rest[..rest[1..].find("\n\n").map_or(rest.len(), |n| n + 1)].to_string()
        };
        // The answer is the agent's own JSON: parse it back from the indented block.
        let answer = |label: &str| -> Value {
            let p = part(label);
            let json = &p[p.find("):\n").unwrap() + 3..];
            serde_json::from_str(json).unwrap_or_else(|err| panic!("{agent} {label}: {err}: {json}"))
        };
        let secret = answer("read the project's secrets").to_string();
        let hook = answer("plant a git hook").to_string();
        let tests = answer("run the tests").to_string();
        match agent {
            "codex" => {
                // Codex reads through its shell and writes with apply_patch.
                assert!(part("read the project's secrets").contains("the agent sends Bash {\"command\":\"cat .env\"}"));
                assert!(secret.contains("deny"), "codex: {secret}");
                assert!(hook.contains("deny") && hook.contains(".git"), "codex: {hook}");
                assert!(tests.contains("hookSpecificOutput") && tests.contains("npm test"), "codex: {tests}");
            }
            _ => {
                assert!(secret.contains("\"deny\"") && secret.contains(".env"), "{agent}: {secret}");
                assert!(hook.contains("\"deny\"") && hook.contains(".git"), "{agent}: {hook}");
                assert!(!tests.contains("\"deny\""), "{agent}: {tests}");
            }
        }
    }
    let audit = e.wicket_home().join("audit");
    let logged = std::fs::read_dir(&audit).map(|d| d.count()).unwrap_or(0);
    assert_eq!(logged, 0, "--example writes no audit log");
    // Outside any project it says what to do.
    let out = wicket(&e, &["hook", "claude", "--example", "--root", e.home.to_str().unwrap()], "", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("inside a project, or give --root"));
}
