//! `wicket hook claude` and `wicket init claude` as processes: every payload in
//! `cases/claude_hooks.jsonl` through the real binary, and the fail-closed paths (malformed
//! input, a broken policy file, a crash) answer deny with exit 2.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

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
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "let x = 1;\n").unwrap();
    std::fs::write(root.join("src/big.rs"), "fn main() {}\n").unwrap();
    std::fs::write(root.join(".env"), "A=1\n").unwrap();
    std::fs::write(root.join("README.md"), "hi\n").unwrap();
    std::fs::create_dir_all(home.join(".wicket")).unwrap();
    Env { _tmp: tmp, root, home }
}

/// `wicket ARGS` in the test's world, every stream piped.
fn command(env: &Env, args: &[&str], extra_env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wicket"));
    cmd.args(args)
        .env("WICKET_HOME", env.wicket_home())
        .env("HOME", &env.home)
        .env_remove("WICKET_HOOK_TEST_PANIC")
        .env_remove("WICKET_AUDIT_MANDATORY")
        .current_dir(&env.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    cmd
}

fn wicket(env: &Env, args: &[&str], stdin: &str, extra_env: &[(&str, &str)]) -> Output {
    let mut child = command(env, args, extra_env).spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn hook(env: &Env, stdin: &str) -> Output {
    wicket(env, &["hook", "claude"], stdin, &[])
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
    let root = root.to_string_lossy();
    match &case["payload"] {
        Value::String(raw) => raw.clone(),
        other => other.to_string().replace("{{ROOT}}", &root),
    }
}

#[test]
fn every_fixture_gets_its_documented_answer() {
    let e = env();
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/claude_hooks.jsonl")).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        n += 1;
        let name = case["name"].as_str().unwrap();
        let out = hook(&e, &payload(&case, &e.root));
        let code = out.status.code();
        let want_code = case["exit"].as_i64().map(|c| c as i32);
        let got = answer(&out);
        if code != want_code || !matches(&case["answer"], &got) {
            failures.push(format!(
                "{name}: exit {code:?} (want {want_code:?}), answer {got} (want {}), stderr {}",
                case["answer"],
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        }
        // Every deny carries a reason, and an internal error says why on stderr as well.
        let hso = &got["hookSpecificOutput"];
        let reason = hso["permissionDecisionReason"].as_str().or_else(|| hso["decision"]["message"].as_str());
        let denied = hso["permissionDecision"] == "deny" || hso["decision"]["behavior"] == "deny";
        if denied && reason.is_none_or(|r| r.len() < 10) {
            failures.push(format!("{name}: a deny without a reason: {got}"));
        }
        if want_code == Some(2) && out.stderr.is_empty() {
            failures.push(format!("{name}: exit 2 with nothing on stderr"));
        }
        if hso["permissionDecision"] == "ask" && reason.is_none() {
            failures.push(format!("{name}: an ask without a reason for the person: {got}"));
        }
    }
    assert!(n >= 40, "only {n} fixtures");
    assert!(failures.is_empty(), "{} of {n} fixtures failed:\n{}", failures.len(), failures.join("\n"));
}

fn pre_tool_use(root: &Path, tool: &str, input: Value) -> String {
    json!({
        "session_id": "sess-42", "transcript_path": "/t.jsonl", "cwd": root, "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_9"
    })
    .to_string()
}

fn assert_fail_closed(out: &Output) {
    assert_eq!(out.status.code(), Some(2), "stderr {}", String::from_utf8_lossy(&out.stderr));
    let v = answer(out);
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(!out.stderr.is_empty());
}

#[test]
fn a_broken_policy_file_denies_with_exit_2() {
    let e = env();
    std::fs::write(e.wicket_home().join("policy.json"), "{\"disallowed_commands\": [\"rm\",, }").unwrap();
    let out = hook(&e, &pre_tool_use(&e.root, "Bash", json!({"command": "ls"})));
    assert_fail_closed(&out);
    let v = answer(&out);
    assert!(v["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().contains("policy.json"), "{v}");
}

#[test]
fn broken_settings_deny_with_exit_2() {
    let e = env();
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    std::fs::write(e.root.join(".wicket/settings.json"), "{ not json").unwrap();
    assert_fail_closed(&hook(&e, &pre_tool_use(&e.root, "Read", json!({"file_path": "README.md"}))));
}

#[test]
fn a_crash_denies_with_exit_2() {
    let e = env();
    let out = wicket(
        &e,
        &["hook", "claude"],
        &pre_tool_use(&e.root, "Bash", json!({"command": "ls"})),
        &[("WICKET_HOOK_TEST_PANIC", "1")],
    );
    assert_fail_closed(&out);
}

#[test]
fn a_crash_in_a_permission_request_denies_in_its_shape() {
    let e = env();
    let payload = json!({"session_id": "s", "cwd": e.root, "hook_event_name": "PermissionRequest",
        "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let out = wicket(&e, &["hook", "claude"], &payload.to_string(), &[("WICKET_HOOK_TEST_PANIC", "1")]);
    assert_eq!(out.status.code(), Some(2));
    let v = answer(&out);
    assert_eq!(v["hookSpecificOutput"]["decision"]["behavior"], "deny");
}

#[test]
fn a_bad_flag_never_exits_1() {
    let e = env();
    let out = wicket(&e, &["hook", "claude", "--no-such-flag"], "{}", &[]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn decisions_are_audited_with_claudes_session_id() {
    let e = env();
    let out = hook(&e, &pre_tool_use(&e.root, "Read", json!({"file_path": e.root.join(".env")})));
    assert_eq!(out.status.code(), Some(0));
    let out = hook(&e, &pre_tool_use(&e.root, "Bash", json!({"command": "git status"})));
    assert_eq!(out.status.code(), Some(0));
    let mut lines = Vec::new();
    for dir in std::fs::read_dir(e.wicket_home().join("audit")).unwrap() {
        for f in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                lines.extend(std::fs::read_to_string(p).unwrap().lines().map(String::from));
            }
        }
    }
    assert_eq!(lines.len(), 2, "{lines:?}");
    for l in &lines {
        let v: Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["session"], "sess-42");
    }
    assert!(lines.iter().any(|l| l.contains("deny_sensitive")));
    let verify = wicket(&e, &["audit", "verify"], "", &[]);
    assert!(verify.status.success(), "{}", String::from_utf8_lossy(&verify.stdout));
}

#[test]
fn a_mandatory_audit_that_cannot_write_denies() {
    let e = env();
    // The audit folder is a file: no line can be written.
    std::fs::write(e.wicket_home().join("audit"), "").unwrap();
    let out = wicket(
        &e,
        &["hook", "claude"],
        &pre_tool_use(&e.root, "Bash", json!({"command": "git status"})),
        &[("WICKET_AUDIT_MANDATORY", "1")],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(answer(&out)["hookSpecificOutput"]["permissionDecision"], "deny");
}

#[test]
fn root_flag_overrides_the_payload_cwd() {
    let e = env();
    let other = e.root.join("src");
    // From cwd src/, `.env` one level up is outside the root unless --root says otherwise;
    // either way it is a secret and denied.
    let payload = pre_tool_use(&other, "Read", json!({"file_path": "../README.md"}));
    let root = e.root.to_string_lossy().into_owned();
    let out = wicket(&e, &["hook", "claude", "--root", &root], &payload, &[]);
    assert_eq!(
        answer(&out)["hookSpecificOutput"]["permissionDecision"],
        "allow",
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn sandbox_commands_rewrites_allowed_bash_into_wicket_run() {
    let e = env();
    let cmd = "echo 'it''s' \"$HOME\" | tr a-z A-Z";
    let out = wicket(
        &e,
        &["hook", "claude", "--sandbox-commands"],
        &pre_tool_use(&e.root, "Bash", json!({"command": cmd, "description": "d", "timeout": 5000})),
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    let v = answer(&out);
    let hso = &v["hookSpecificOutput"];
    if hso["permissionDecision"] != "allow" {
        // No OS sandbox here: the command is judged as running on the host, and not rewritten.
        assert!(hso.get("updatedInput").is_none(), "{v}");
        return;
    }
    let updated = &hso["updatedInput"];
    assert_eq!(updated["description"], "d", "the rest of the input stays: {v}");
    assert_eq!(updated["timeout"], 5000);
    let new = updated["command"].as_str().unwrap();
    assert!(new.contains(" run --unattended --root "), "{new}");
    // The quoting gives back exactly the original command as bash's -c argument.
    let last =
        Command::new("bash").arg("-c").arg(format!("f() {{ printf '%s' \"${{@: -1}}\"; }}; f {new}")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&last.stdout), cmd);
}

/// Where no OS sandbox can run the command (here: `executor: "host"`), a hook asked to confine
/// commands judges them as host commands (the stricter way) and rewrites nothing: a command
/// judged as sandboxed must never run on the host.
#[test]
fn a_hook_that_cannot_confine_judges_commands_as_host_commands() {
    let e = env();
    std::fs::write(e.home.join(".wicket/settings.json"), r#"{"executor": "host"}"#).unwrap();
    let out = wicket(
        &e,
        &["hook", "claude", "--sandbox-commands"],
        &pre_tool_use(&e.root, "Bash", json!({"command": "echo hi > ok.txt"})),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = answer(&out);
    let hso = &v["hookSpecificOutput"];
    assert_eq!(hso["permissionDecision"], "ask", "judged as a host command: {v}");
    assert!(hso.get("updatedInput").is_none(), "{v}");
    assert!(hso["permissionDecisionReason"].as_str().unwrap().contains("It runs on the host"), "{v}");
}

/// `commands.host` takes a single plain command out of the sandbox: it is judged as a host
/// command and not rewritten. A list that starts the same way stays confined; the same entry in
/// a project's settings waits for the person's consent and does nothing before.
#[test]
fn commands_host_runs_named_commands_on_the_host_judged_as_host_commands() {
    let e = env();
    let settings = r#"{"commands": {"host": ["git push *"]}, "permissions": {"allow": ["bash(git push *)"]}}"#;
    std::fs::write(e.home.join(".wicket/settings.json"), settings).unwrap();
    let ask = |cmd: &str| {
        let out = wicket(
            &e,
            &["hook", "claude", "--sandbox-commands"],
            &pre_tool_use(&e.root, "Bash", json!({"command": cmd})),
            &[],
        );
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        answer(&out)["hookSpecificOutput"].clone()
    };
    let host = ask("git push origin main");
    assert!(host.get("updatedInput").is_none(), "{host}");
    let reason = host["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("runs on the host: commands.host lists \"git push *\""), "{host}");
    let probe = wicket(&e, &["doctor"], "", &[]);
    if !String::from_utf8_lossy(&probe.stdout).contains("backend: bwrap") {
        return;
    }
    let list = ask("git push origin main; echo done");
    assert!(list["updatedInput"]["command"].as_str().is_some_and(|c| c.contains(" run --unattended ")), "{list}");
    // From the project's settings, before consent: nothing is taken out of the sandbox.
    let e = env();
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    std::fs::write(e.root.join(".wicket/settings.json"), r#"{"commands": {"host": ["echo *"]}}"#).unwrap();
    let out = wicket(
        &e,
        &["hook", "claude", "--sandbox-commands"],
        &pre_tool_use(&e.root, "Bash", json!({"command": "echo hi"})),
        &[],
    );
    let v = answer(&out);
    assert!(v["hookSpecificOutput"]["updatedInput"]["command"].is_string(), "{v}");
}

fn init(e: &Env, args: &[&str]) -> Output {
    let mut a = vec!["init", "claude"];
    a.extend_from_slice(args);
    wicket(e, &a, "", &[])
}

#[test]
fn init_user_merges_and_is_idempotent() {
    let e = env();
    let file = e.home.join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let before = json!({"model": "opus", "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]}],
                  "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}});
    std::fs::write(&file, before.to_string()).unwrap();
    let out = init(&e, &["--user"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(shown.contains("+ ") && shown.contains("hook claude"), "shows the change: {shown}");
    assert!(shown.contains("next: restart Claude Code") && shown.contains("wicket doctor"), "next steps: {shown}");
    assert!(shown.contains("hook claude --sandbox-commands --example`"), "the example, with the hook's flags: {shown}");
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(after["model"], "opus");
    assert_eq!(after["permissions"], before["permissions"]);
    assert_eq!(after["hooks"]["Stop"], before["hooks"]["Stop"]);
    let groups = after["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0], before["hooks"]["PreToolUse"][0]);
    let ours = &groups[1]["hooks"][0];
    assert_eq!(ours["type"], "command");
    assert!(ours["command"].as_str().unwrap().ends_with(" hook claude --sandbox-commands"), "confined by default");
    assert_eq!(ours["timeout"], 10);
    let matcher = groups[1]["matcher"].as_str().unwrap();
    for t in
        ["Bash", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep", "WebFetch", "WebSearch", "mcp__"]
    {
        assert!(matcher.contains(t), "{matcher} lacks {t}");
    }
    // Twice: nothing changes.
    let again = init(&e, &["--user"]);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("already set up"));
    let after2: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(after, after2);
    // With PermissionRequest too: our PreToolUse entry is replaced, not doubled.
    let out = init(&e, &["--user", "--permission-request", "--sandbox-commands"]);
    assert!(out.status.success());
    let after3: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(after3["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
    assert!(after3["hooks"]["PreToolUse"][1]["hooks"][0]["command"].as_str().unwrap().ends_with("--sandbox-commands"));
    assert_eq!(after3["hooks"]["PermissionRequest"].as_array().unwrap().len(), 1);
    // No stray temporary files.
    let names: Vec<_> = std::fs::read_dir(file.parent().unwrap()).unwrap().map(|d| d.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // Opting out says what is lost, and the hook no longer confines.
    let out = init(&e, &["--user", "--unconfined-commands"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("run on the host, unconfined"));
    let after4: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(after4["hooks"]["PreToolUse"][1]["hooks"][0]["command"].as_str().unwrap().ends_with(" hook claude"));
}

#[test]
fn init_project_creates_the_file_and_dry_run_writes_nothing() {
    let e = env();
    let file = e.root.join(".claude/settings.json");
    let out = init(&e, &["--project", "--dry-run"]);
    assert!(out.status.success());
    assert!(!file.exists());
    let out = init(&e, &["--project", "--command", "wicket hook claude"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "wicket hook claude");
    assert!(!e.home.join(".claude").exists(), "the user's file is untouched");
}

#[test]
fn init_refuses_a_file_it_cannot_read_as_json() {
    let e = env();
    let file = e.home.join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{ // a comment\n}").unwrap();
    let out = init(&e, &["--user"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{ // a comment\n}");
}

// ---- Deadlines: a hook that stalls must deny, because every agent runs the call when its
// hook times out. Each case has a generous bound (a hook that waits forever fails it); the
// measured times are in docs/performance.md, not asserted here.

/// Start `wicket hook claude` with `stdin` written and left open; wait at most `bound` for it
/// to end. `None` when it had not ended by then (it is killed).
fn hook_held_open(e: &Env, stdin: &str, extra_env: &[(&str, &str)], bound: std::time::Duration) -> Option<Output> {
    let mut cmd = command(e, &["hook", "claude"], extra_env);
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    let start = std::time::Instant::now();
    while start.elapsed() < bound {
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

const BOUND: std::time::Duration = std::time::Duration::from_secs(30);

#[test]
fn a_payload_on_a_stdin_held_open_is_answered() {
    let e = env();
    let p = pre_tool_use(&e.root, "Read", json!({"file_path": "README.md"}));
    // Text after the payload (a newline, a second value) does not matter either.
    for tail in ["", "\n", "\n{\"more\": 1"] {
        let out = hook_held_open(&e, &format!("{p}{tail}"), &[], BOUND)
            .unwrap_or_else(|| panic!("the hook waited for the end of input after the payload ({tail:?})"));
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(answer(&out)["hookSpecificOutput"]["permissionDecision"], "allow", "{tail:?}");
    }
}

#[test]
fn a_payload_that_never_ends_is_denied_at_the_deadline() {
    let e = env();
    let p = pre_tool_use(&e.root, "Read", json!({"file_path": "README.md"}));
    let half = &p[..p.len() / 2];
    let out = hook_held_open(&e, half, &[("WICKET_DEADLINE_MS", "300")], BOUND)
        .expect("the hook waited past its deadline for the rest of the payload");
    assert_fail_closed(&out);
    let reason = answer(&out)["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().to_string();
    assert!(reason.contains("within 300 ms") && reason.contains("reading the payload on stdin"), "{reason}");
}

#[test]
fn settings_on_a_fifo_nobody_writes_are_denied_at_the_deadline() {
    let e = env();
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    let fifo = e.root.join(".wicket/settings.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let p = pre_tool_use(&e.root, "Read", json!({"file_path": "README.md"}));
    let out = hook_held_open(&e, &p, &[("WICKET_DEADLINE_MS", "500")], BOUND)
        .expect("the hook waited past its deadline on a FIFO");
    assert_fail_closed(&out);
    let reason = answer(&out)["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().to_string();
    assert!(reason.contains("within 500 ms") && reason.contains("loading the settings"), "{reason}");
}

#[test]
fn a_held_audit_lock_is_answered_within_the_deadline() {
    let e = env();
    let p = pre_tool_use(&e.root, "Read", json!({"file_path": "README.md"}));
    // A first call makes the project's log folder; then another process holds its lock.
    assert_eq!(hook(&e, &p).status.code(), Some(0));
    let audit = e.wicket_home().join("audit");
    let dir = std::fs::read_dir(&audit).unwrap().next().unwrap().unwrap().path();
    let mut holder = Command::new("flock").arg(dir.join("lock")).args(["sleep", "60"]).spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    // Mandatory audit: the line cannot be written, so the answer is deny, and it must come
    // before the deadline whatever the lock's own bounded wait is.
    let out = hook_held_open(&e, &p, &[("WICKET_DEADLINE_MS", "1000"), ("WICKET_AUDIT_MANDATORY", "1")], BOUND)
        .expect("the hook waited past its deadline on the audit lock");
    let _ = holder.kill();
    let _ = holder.wait();
    assert_fail_closed(&out);
    let reason = answer(&out)["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().to_string();
    assert!(reason.contains("within 1000 ms") && reason.contains("writing the audit line"), "{reason}");
}

#[test]
fn doctor_warns_about_a_hook_timeout_not_above_the_deadline() {
    let e = env();
    assert!(init(&e, &["--user"]).status.success());
    let doctor = || {
        let out = wicket(&e, &["doctor", "--root", e.root.to_str().unwrap()], "", &[]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let report = doctor();
    assert!(!report.contains("not above wicket's own deadline"), "init's timeout is fine: {report}");
    // The person lowers the timeout to 3 s: the agent would run calls wicket is still deciding.
    let file = e.home.join(".claude/settings.json");
    let text = std::fs::read_to_string(&file).unwrap().replace("\"timeout\": 10", "\"timeout\": 3");
    assert!(text.contains("\"timeout\": 3"), "{text}");
    std::fs::write(&file, text).unwrap();
    let report = doctor();
    assert!(
        report.contains(".claude/settings.json") && report.contains("timeout of 3 s, not above wicket's own deadline"),
        "{report}"
    );
}

/// Every line of every chain file under the audit folder.
fn audit_lines(e: &Env) -> Vec<Value> {
    let mut lines = Vec::new();
    for dir in std::fs::read_dir(e.wicket_home().join("audit")).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
            if f.path().extension().is_some_and(|x| x == "jsonl") {
                for l in std::fs::read_to_string(f.path()).unwrap().lines() {
                    lines.push(serde_json::from_str(l).unwrap());
                }
            }
        }
    }
    lines
}

#[test]
fn a_junk_payload_is_denied_and_recorded() {
    let e = env();
    let no_tool = json!({"session_id": "sess-junk", "cwd": e.root, "hook_event_name": "PreToolUse", "tool_input": {}});
    for (payload, session) in [(no_tool.to_string(), Some("sess-junk")), ("{\"session_id\": ".to_string(), None)] {
        let before = audit_lines(&e).len();
        assert_fail_closed(&hook(&e, &payload));
        let lines = audit_lines(&e);
        assert_eq!(lines.len(), before + 1, "{payload}: {lines:?}");
        let last = &lines[lines.len() - 1];
        assert_eq!(last["kind"], "deny_input", "{last}");
        assert!(last["reason"].as_str().unwrap().contains("could not decide"), "{last}");
        if let Some(s) = session {
            assert_eq!(last["session"], s);
        }
    }
    // --no-audit means no line, also for junk.
    let before = audit_lines(&e).len();
    assert_fail_closed(&wicket(&e, &["hook", "claude", "--no-audit"], "{}", &[]));
    assert_eq!(audit_lines(&e).len(), before);
    let verify = wicket(&e, &["audit", "verify"], "", &[]);
    assert!(verify.status.success(), "{}", String::from_utf8_lossy(&verify.stdout));
}

#[test]
fn a_session_in_a_subfolder_is_judged_by_its_projects_rules() {
    let e = env();
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    std::fs::write(e.root.join(".wicket/settings.json"), r#"{"permissions": {"deny": ["bash(make deploy*)"]}}"#)
        .unwrap();
    // The agent moved into `src`: the payload's cwd is the subfolder, the project is above it.
    let p = pre_tool_use(&e.root.join("src"), "Bash", json!({"command": "make deploy"}));
    let out = hook(&e, &p);
    let v = answer(&out);
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    // A relative path is still read against the session's folder, not the root.
    let p = pre_tool_use(&e.root.join("src"), "Read", json!({"file_path": "../.env"}));
    let v = answer(&hook(&e, &p));
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
}

#[test]
fn init_from_a_build_folder_warns_that_the_hook_would_break() {
    let e = env();
    // The test binary lives in cargo's build folder.
    let out = init(&e, &["--user"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("runs from the build folder") && err.contains("cargo install --locked"), "{err}");
    // An installed copy (outside any build folder) says nothing of the kind.
    let installed = e.home.join("bin/wicket");
    std::fs::create_dir_all(installed.parent().unwrap()).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_wicket"), &installed).unwrap();
    let out = Command::new(&installed)
        .args(["init", "claude", "--user"])
        .env("WICKET_HOME", e.wicket_home())
        .env("HOME", &e.home)
        .current_dir(&e.root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("build folder"));
    let settings = std::fs::read_to_string(e.home.join(".claude/settings.json")).unwrap();
    assert!(settings.contains(&format!("{} hook claude", installed.display())), "{settings}");
}

#[test]
fn project_rules_waiting_for_consent_are_named_in_the_reason_and_approved_from_a_terminal_command() {
    let e = env();
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    std::fs::write(e.root.join(".wicket/settings.json"), r#"{"permissions": {"allow": ["bash(make build)"]}}"#)
        .unwrap();
    let p = pre_tool_use(&e.root, "Bash", json!({"command": "make build"}));
    let v = answer(&hook(&e, &p));
    let out = &v["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "ask", "{v}");
    let reason = out["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("wait for your agreement") && reason.contains("wicket trust approve"), "{reason}");
    let root = e.root.to_str().unwrap();
    // Without a terminal and without --yes nothing is agreed.
    let out = wicket(&e, &["trust", "approve", "--root", root], "", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let out = wicket(&e, &["trust", "approve", "--root", root, "--yes"], "", &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("bash(make build)") && text.contains("pinned"), "{text}");
    let v = answer(&hook(&e, &p));
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "allow", "{v}");
    let out = wicket(&e, &["trust", "approve", "--root", root], "", &[]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("already agreed"));
    // A changed file waits again.
    std::fs::write(
        e.root.join(".wicket/settings.json"),
        r#"{"permissions": {"allow": ["bash(make build)", "bash(make deploy)"]}}"#,
    )
    .unwrap();
    let v = answer(&hook(&e, &p));
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask", "{v}");
}

#[test]
fn init_import_brings_claude_codes_rules_over_and_they_decide_the_same() {
    let e = env();
    let claude = e.home.join(".claude/settings.json");
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    std::fs::write(
        &claude,
        r#"{"permissions": {"allow": ["Bash(npm run test:*)", "WebFetch(domain:docs.rs)"], "deny": ["Read(./secrets/**)", "Bash(git push:*)"], "ask": ["Frobnicate"]}}"#,
    )
    .unwrap();
    let out = init(&e, &["--import"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("import: allow Bash(npm run test:*)") && text.contains("skipped ask Frobnicate"), "{text}");
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(e.wicket_home().join("settings.json")).unwrap()).unwrap();
    assert_eq!(saved["permissions"]["deny"], json!(["Read(./secrets/**)", "Bash(git push:*)"]), "{saved}");
    // The hook now decides by them: the push is denied, the tests run.
    let push = answer(&hook(&e, &pre_tool_use(&e.root, "Bash", json!({"command": "git push origin main"}))));
    assert_eq!(push["hookSpecificOutput"]["permissionDecision"], "deny", "{push}");
    let tests = answer(&hook(
        &e,
        &pre_tool_use(
            &e.root,
            "Bash",
            json!({"command": "npm run test -- --watch=false", "dangerouslyDisableSandbox": true}),
        ),
    ));
    assert_eq!(tests["hookSpecificOutput"]["permissionDecision"], "allow", "{tests}");
    // Twice changes nothing.
    let again = init(&e, &["--import"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("import: nothing new"));
}

/// Input the hook cannot turn into a confined command is denied and never rewritten: the
/// command must not reach the agent's shell unconfined. One case a line.
#[test]
fn bad_input_to_the_confining_hook_is_denied_never_rewritten() {
    let e = env();
    let root = e.root.to_string_lossy().into_owned();
    let cases = [
        json!({"command": "echo a\u{0}b"}).to_string(),
        json!({"command": 42}).to_string(),
        json!({"cmd": "echo hi"}).to_string(),
        "\"echo hi\"".to_string(),
    ];
    for input in cases {
        let payload = format!(
            r#"{{"session_id":"s","transcript_path":"/t","cwd":{root:?},"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{input},"tool_use_id":"t"}}"#
        );
        let out = wicket(&e, &["hook", "claude", "--sandbox-commands"], &payload, &[]);
        let v = answer(&out);
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{input}: {v}");
        assert!(v["hookSpecificOutput"].get("updatedInput").is_none(), "{input}: {v}");
    }
    let out = wicket(&e, &["hook", "claude", "--sandbox-commands"], "{\"tool_name\": \"Bash\", ", &[]);
    assert_fail_closed(&out);
}
