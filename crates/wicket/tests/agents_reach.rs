//! Issue #41's agents with their real binaries (pinned in `.ci/agents.sh`), each set up with a
//! plain `wicket init <agent>` in a test home and run headless against a scripted local model
//! (`tests/agents/fake_openai.py`, through each agent's own "bring your own model" settings):
//! a secret read by the agent's file tool, by its shell and through an MCP server is refused
//! (the model reads wicket's reason, never the secret), an allowed write runs (inside
//! `wicket run` where the agent takes a rewritten call), and a broken wicket settings file makes
//! the call fail closed. Also each hook's answers to payloads in the agent's own shape, as its
//! source builds them, and what `init` and `doctor` write and say.

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

/// A project (a git repository with a README, a source file and a `.env` secret) and a home,
/// outside every temp folder (the sandbox lets a command write temp folders).
fn env() -> Env {
    let tmp = tempfile::tempdir_in(common::outside_temp("reach-sessions")).unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "let x = 1;\n").unwrap();
    std::fs::write(root.join(".env"), format!("SECRET={SECRET}\n")).unwrap();
    std::fs::write(root.join("README.md"), "hi\n").unwrap();
    std::fs::create_dir_all(home.join(".wicket")).unwrap();
    Env { _tmp: tmp, root, home }
}

/// The secret in every project's `.env`: it must never reach a model.
const SECRET: &str = "reach-41-c0ffee";

fn wicket(env: &Env, args: &[&str], stdin: &str, extra_env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wicket"));
    cmd.args(args)
        .env("WICKET_HOME", env.wicket_home())
        .env("HOME", &env.home)
        // Where `init` writes follows these when set: never the caller's.
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("COPILOT_HOME")
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

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn answer(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 1, "exactly one line of JSON on stdout: {text:?}");
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {text:?}"))
}

fn audit_lines(e: &Env) -> Vec<Value> {
    let mut lines = Vec::new();
    let Ok(dirs) = std::fs::read_dir(e.wicket_home().join("audit")) else { return lines };
    for dir in dirs {
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

fn in_ci() -> bool {
    ["CI", "WICKET_CI"].iter().any(|v| std::env::var(v).is_ok_and(|x| !x.is_empty() && x != "0" && x != "false"))
}

/// The folder `.ci/agents.sh` installs the agents in.
fn agents_dir() -> PathBuf {
    std::env::var_os("WICKET_AGENTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("../agents"))
}

/// A real agent binary `.ci/agents.sh` installed (`rel` under its folder), or `None` outside CI.
fn real_agent(rel: &str) -> Option<PathBuf> {
    let bin = agents_dir().join(rel);
    if bin.exists() {
        return Some(bin);
    }
    let msg = format!("{} is not installed: run .ci/agents.sh", bin.display());
    assert!(!in_ci(), "{msg} (CI must not skip this test)");
    eprintln!("{msg}; skipped");
    None
}

/// The MCP filesystem server `.ci/mcp-peers.sh` installs.
fn fs_server() -> PathBuf {
    let peers = std::env::var_os("WICKET_MCP_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("../mcp-peers"));
    let server = peers.join("npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    assert!(server.exists(), "{} missing: run .ci/mcp-peers.sh", server.display());
    server
}

fn bwrap_here(e: &Env) -> bool {
    String::from_utf8_lossy(&wicket(e, &["doctor"], "", &[]).stdout).contains("backend: bwrap")
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

/// Start the scripted model with `steps` (`{"tool": …, "input": …}` or `{"text": …}`); the
/// process, its base URL and its log file.
fn fake_model(e: &Env, steps: &Value) -> (std::process::Child, String, PathBuf) {
    let dir = e.home.parent().unwrap().join("model");
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    std::fs::write(&script, steps.to_string()).unwrap();
    let log = dir.join("log.jsonl");
    let _ = std::fs::remove_file(&log);
    let mut model = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/fake_openai.py"))
        .arg(&script)
        .arg(&log)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(model.stdout.take().unwrap()), &mut port).unwrap();
    (model, format!("http://127.0.0.1:{}/v1", port.trim()), log)
}

/// The tool results the agent sent the model, in the order of the calls (`role: tool`).
fn tool_results(log: &[Value]) -> Vec<String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for req in log {
        for m in req["body"]["messages"].as_array().into_iter().flatten() {
            if m["role"] != "tool" {
                continue;
            }
            let id = m["tool_call_id"].as_str().unwrap_or("").to_string();
            if out.iter().any(|(i, _)| *i == id) {
                continue;
            }
            let text = match &m["content"] {
                Value::String(s) => s.clone(),
                blocks => blocks
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            };
            out.push((id, text));
        }
    }
    out.into_iter().map(|(_, t)| t).collect()
}

/// The tool names each model request offered, for a failure message.
fn offered(log: &[Value]) -> Vec<Vec<String>> {
    log.iter()
        .map(|r| {
            r["body"]["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| t["function"]["name"].as_str().or(t["name"].as_str()).unwrap_or("?").to_string())
                .collect()
        })
        .collect()
}

/// Run `cmd` (an agent, headless) with the model at `steps`; its output and the model log.
/// Nothing of the caller's environment but PATH reaches it; `timeout` ends a session that hangs
/// instead of the whole test run.
fn session(
    e: &Env,
    steps: &Value,
    agent: impl FnOnce(&str) -> (PathBuf, Vec<String>, Vec<(String, String)>),
) -> (Output, Vec<Value>) {
    // One agent at a time: each is a large program, and the machine may be small and busy.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let (mut model, url, log) = fake_model(e, steps);
    let (bin, args, vars) = agent(&url);
    let mut cmd = Command::new("timeout");
    cmd.args(["-k", "5", "180"])
        .arg(&bin)
        .args(&args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into()))
        .env("HOME", &e.home)
        .env("WICKET_HOME", e.wicket_home())
        .current_dir(&e.root)
        .stdin(Stdio::null());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let _ = model.kill();
    let _ = model.wait();
    let log =
        std::fs::read_to_string(&log).unwrap_or_default().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (out, log)
}

/// What every agent must show, whatever its tools are called: the steps of the main session
/// (the file tool reads `.env`, the shell cats it, the shell writes `ok.txt`, an MCP tool reads
/// `.env`), and a second session whose only step (the shell writes `ok.txt`) meets a broken
/// wicket settings file.
struct Scenario {
    /// The agent, for messages.
    name: &'static str,
    /// A call of the file tool that reads `path`.
    read: fn(&Path) -> Value,
    /// A call of the shell tool that runs `command`.
    shell: fn(&str) -> Value,
    /// The steps that end in a call of the MCP filesystem server's (named `fs`)
    /// `read_text_file` that reads `path` (some agents load MCP tools on demand first).
    mcp: fn(&Path) -> Vec<Value>,
    /// Whether the agent takes a rewritten command (then allowed commands run in `wicket run`).
    confines: bool,
}

/// Run the scenario with `run` (a headless session of the agent, set up with `wicket init`).
fn scenario(s: &Scenario, run: impl Fn(&Env, &Value) -> (Output, Vec<Value>)) {
    let e = env();
    if s.confines && !bwrap_here(&e) {
        // Confined commands need a sandbox that runs here; without one the hook judges them
        // as host commands (tested by the fixtures).
        assert!(!in_ci(), "{}: no bubblewrap here (CI must not skip this test)", s.name);
        eprintln!("{}: no bubblewrap here; skipped", s.name);
        return;
    }
    // A host command that writes the project is asked without a rule; the sandbox allows it.
    std::fs::write(
        e.wicket_home().join("settings.json"),
        r#"{"permissions": {"allow": ["bash(echo hi *)", "write_file(ok.txt)"]}}"#,
    )
    .unwrap();
    let mcp = (s.mcp)(&e.root.join(".env"));
    let n = 3 + mcp.len();
    let mut steps = vec![(s.read)(&e.root.join(".env")), (s.shell)("cat .env"), (s.shell)("echo hi > ok.txt")];
    steps.extend(mcp);
    steps.push(json!({"text": "finished"}));
    let (out, log) = run(&e, &Value::Array(steps));
    let results = tool_results(&log);
    let name = s.name;
    assert_eq!(results.len(), n, "{name}: {results:#?}\n{}\ntools offered: {:?}", text(&out), offered(&log));
    assert!(!log.iter().any(|r| r.to_string().contains(SECRET)), "{name}: the secret reached the model: {results:#?}");
    for (i, what) in [(0, "file tool"), (1, "shell"), (n - 1, "MCP tool")] {
        assert!(
            results[i].contains("Blocked by wicket (sensitive)"),
            "{name}: the {what}'s read of .env: {}",
            results[i]
        );
    }
    assert_eq!(std::fs::read_to_string(e.root.join("ok.txt")).ok().as_deref(), Some("hi\n"), "{name}: {results:#?}");
    let lines = audit_lines(&e);
    let denied = |tool: &str| lines.iter().any(|l| l["kind"] == "deny_sensitive" && l["tool"] == tool);
    assert!(denied("read_file") && denied("bash") && denied("mcp__fs__read_text_file"), "{name}: {lines:#?}");
    // Where the agent takes the rewrite the write ran inside `wicket run` (its own audit entry);
    // else it ran on the host, where the agent runs it.
    let ran = lines
        .iter()
        .any(|l| l["kind"] == "executed" && l["target"].as_str().is_some_and(|t| t.contains("echo hi > ok.txt")));
    assert_eq!(ran, s.confines, "{name}: ran in wicket run: {lines:#?}");

    // A broken settings file: the call is refused, with wicket's reason, and nothing runs.
    let e = env();
    std::fs::write(e.wicket_home().join("settings.json"), "{\"permissions\": {\"allow\": [\"bash(echo hi *)\"]},,}")
        .unwrap();
    let (out, log) = run(&e, &json!([(s.shell)("echo hi > ok.txt"), {"text": "finished"}]));
    let results = tool_results(&log);
    assert_eq!(results.len(), 1, "{name}: {results:#?}\n{}", text(&out));
    assert!(results[0].contains("wicket could not check this call"), "{name}: {}", results[0]);
    assert!(results[0].contains("settings.json"), "{name}: the reason names the file: {}", results[0]);
    assert!(!e.root.join("ok.txt").exists(), "{name}: the call ran with broken settings");
}

fn init(e: &Env, agent: &str, args: &[&str]) -> Output {
    let out = wicket(e, &[&["init", agent][..], args].concat(), "", &[]);
    assert!(out.status.success(), "init {agent}: {}", text(&out));
    out
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

/// The deny reason in an answer of any of these agents, if the answer is a deny.
fn deny_reason(v: &Value) -> Option<Option<&str>> {
    let h = &v["hookSpecificOutput"];
    if h["permissionDecision"] == "deny" {
        return Some(h["permissionDecisionReason"].as_str());
    }
    if v["permissionDecision"] == "deny" {
        return Some(v["permissionDecisionReason"].as_str());
    }
    if v["decision"] == "deny" {
        return Some(v["reason"].as_str());
    }
    None
}

/// Every payload of `cases/<file>` (in the agent's own shape, as its source builds it) through
/// `wicket hook <args>`: the documented exit status and answer; every deny with a reason; every
/// exit 2 with wicket's reason on stderr, where these agents read a blocking exit's reason.
fn run_fixtures(args: &[&str], file: &str, at_least: usize) {
    let e = env();
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases").join(file)).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        n += 1;
        let name = case["name"].as_str().unwrap();
        let payload = match &case["payload"] {
            Value::String(raw) => raw.clone(),
            other => other.to_string().replace("{{ROOT}}", &e.root.to_string_lossy()),
        };
        let out = wicket(&e, args, &payload, &[]);
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
        if let Some(reason) = deny_reason(&got) {
            if reason.is_none_or(|r| r.len() < 10) {
                failures.push(format!("{name}: a deny without a reason: {got}"));
            }
        }
        if want_code == Some(2) && !stderr.contains("wicket could not check this call") {
            failures.push(format!("{name}: exit 2 without the reason on stderr: {stderr:?}"));
        }
    }
    assert!(n >= at_least, "only {n} fixtures");
    assert!(failures.is_empty(), "{} of {n} fixtures failed:\n{}", failures.len(), failures.join("\n"));
}

/// A broken wicket settings file, a broken policy file and a crash: each answered with the
/// agent's deny and exit 2, the reason (naming the file) on stderr.
fn fails_closed(args: &[&str], payload: &dyn Fn(&Path) -> String) {
    let check = |e: &Env, extra: &[(&str, &str)], names: &str| {
        let out = wicket(e, args, &payload(&e.root), extra);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let v = answer(&out);
        assert!(deny_reason(&v).is_some(), "{args:?}: {v}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("wicket could not check this call") && stderr.contains(names), "{args:?}: {stderr}");
    };
    let e = env();
    std::fs::write(e.wicket_home().join("settings.json"), "{ not json").unwrap();
    check(&e, &[], "settings.json");
    let e = env();
    std::fs::write(e.wicket_home().join("policy.json"), "{\"disallowed_commands\": [\"rm\",, }").unwrap();
    check(&e, &[], "policy.json");
    let e = env();
    check(&e, &[("WICKET_HOOK_TEST_PANIC", "1")], "internal error");
}

// ---------------------------------------------------------------- Qwen Code

fn qwen_session(qwen: &Path, e: &Env, steps: &Value) -> (Output, Vec<Value>) {
    init(e, "qwen", &[]);
    let file = e.home.join(".qwen/settings.json");
    let mut settings = read_json(&file);
    settings["mcpServers"] = json!({"fs": {"command": "node", "args": [fs_server(), e.root], "trust": true}});
    settings["security"] = json!({"auth": {"selectedType": "openai"}});
    settings["model"] = json!({"name": "fake-model"});
    std::fs::write(&file, settings.to_string()).unwrap();
    session(e, steps, |url| {
        let vars = [
            ("OPENAI_BASE_URL", url),
            ("OPENAI_API_KEY", "fake"),
            ("OPENAI_MODEL", "fake-model"),
            ("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1"),
        ];
        (
            qwen.to_path_buf(),
            vec!["-p".into(), "do the task".into(), "--yolo".into()],
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        )
    })
}

/// Qwen Code 0.24 (`--yolo`: its own approval is off, so only wicket stands), set up with
/// `wicket init qwen`: its commands cannot be confined, so the allowed write runs on the host.
#[test]
fn real_qwen_code_is_gated() {
    let Some(qwen) = real_agent("node_modules/.bin/qwen") else { return };
    let s = Scenario {
        name: "Qwen Code",
        read: |p| json!({"tool": "read_file", "input": {"file_path": p}}),
        shell: |c| json!({"tool": "run_shell_command", "input": {"command": c, "description": "a step"}}),
        // Qwen Code offers MCP tools through `tool_call` (its hook sees the MCP tool's own name).
        mcp: |p| {
            vec![json!({"tool": "tool_call", "input": {"name": "mcp__fs__read_text_file", "arguments": {"path": p}}})]
        },
        confines: false,
    };
    scenario(&s, |e, steps| qwen_session(&qwen, e, steps));
}

// ---------------------------------------------------------------- Factory Droid

fn droid_session(droid: &Path, e: &Env, steps: &Value) -> (Output, Vec<Value>) {
    init(e, "droid", &[]);
    let dir = e.home.join(".factory");
    std::fs::write(
        dir.join("mcp.json"),
        json!({"mcpServers": {"fs": {"type": "stdio", "command": "node", "args": [fs_server(), e.root]}}}).to_string(),
    )
    .unwrap();
    session(e, steps, |url| {
        let models = json!({"custom_models": [{"model_display_name": "Fake", "model": "fake-model", "base_url": url,
            "api_key": "fake", "provider": "generic-chat-completion-api", "max_tokens": 4096}]});
        std::fs::write(dir.join("config.json"), models.to_string()).unwrap();
        let args = ["exec", "-m", "custom:fake-model", "--auto", "high", "--add-tools", "MCP:fs", "do the task"];
        (droid.to_path_buf(), args.iter().map(ToString::to_string).collect(), Vec::new())
    })
}

/// Factory Droid 0.225 (`droid exec --auto high`: it runs commands without asking), set up
/// with `wicket init droid`: allowed `Execute` commands run inside `wicket run`.
#[test]
fn real_factory_droid_is_gated_and_confined() {
    let Some(droid) = real_agent("node_modules/@factory/cli-linux-x64/bin/droid") else { return };
    let s = Scenario {
        name: "Factory Droid",
        read: |p| json!({"tool": "Read", "input": {"file_path": p}}),
        shell: |c| {
            json!({"tool": "Execute", "input": {"command": c, "summary": "a step", "riskLevelReason": "a step",
                "riskLevel": "low"}})
        },
        // Droid offers MCP tools once ToolSearch has loaded them.
        mcp: |p| {
            vec![
                json!({"tool": "ToolSearch", "input": {"query": "select:fs___read_text_file"}}),
                json!({"tool": "fs___read_text_file", "input": {"path": p}}),
            ]
        },
        confines: true,
    };
    scenario(&s, |e, steps| droid_session(&droid, e, steps));
}

#[test]
fn every_qwen_fixture_gets_its_documented_answer() {
    run_fixtures(&["hook", "qwen"], "qwen_hooks.jsonl", 19);
}

#[test]
fn every_droid_fixture_gets_its_documented_answer() {
    run_fixtures(&["hook", "droid"], "droid_hooks.jsonl", 20);
}

#[test]
fn qwen_and_droid_hooks_fail_closed() {
    let claude_style = |tool: &'static str, input: Value| {
        move |root: &Path| {
            json!({"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": tool,
                "tool_input": input.clone()})
            .to_string()
        }
    };
    fails_closed(&["hook", "qwen"], &claude_style("run_shell_command", json!({"command": "ls"})));
    fails_closed(&["hook", "droid", "--sandbox-commands"], &claude_style("Execute", json!({"command": "ls"})));
}

/// `wicket init qwen|droid` merge wicket's hook into the agent's settings (everything else
/// stays; twice changes nothing) with a timeout above wicket's own deadline; `doctor` names
/// each hook, says where its commands run (Qwen Code's cannot be confined), and warns once the
/// timeout is lowered to the deadline or below; `--uninstall` takes only wicket's entry out.
#[test]
fn init_and_doctor_for_qwen_and_droid() {
    let e = env();
    for (agent, dir) in [("qwen", ".qwen"), ("droid", ".factory")] {
        let file = e.home.join(dir).join("settings.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            r#"{"theme": "x", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "other"}]}]}}"#,
        )
        .unwrap();
        let first = init(&e, agent, &[]);
        let v = read_json(&file);
        assert_eq!(v["theme"], "x", "{agent}");
        let groups = v["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(groups.len(), 2, "{agent}: {v}");
        let ours = &groups[1]["hooks"][0];
        assert_eq!(groups[1]["matcher"], "*", "{agent}: every tool");
        assert!(
            ours["command"]
                .as_str()
                .unwrap()
                .ends_with(&format!(" hook {agent}{}", if agent == "droid" { " --sandbox-commands" } else { "" })),
            "{agent}: {ours}"
        );
        assert!(ours["timeout"].as_u64().unwrap() > 5, "{agent}: seconds, above the 5 s deadline: {ours}");
        let again = init(&e, agent, &[]);
        assert!(text(&again).contains("already set up"), "{agent}: {}", text(&again));
        if agent == "qwen" {
            assert!(text(&first).contains("cannot move its shell commands into the OS sandbox"), "{}", text(&first));
        }
    }
    let doctor = text(&wicket(&e, &["doctor"], "", &[]));
    assert!(doctor.contains("hook: qwen in") && doctor.contains("hook: droid in"), "{doctor}");
    assert!(
        doctor.lines().any(|l| l.starts_with("hook: qwen in") && l.contains("shell commands cannot be confined")),
        "{doctor}"
    );
    assert!(!doctor.contains("not above wicket's own deadline"), "{doctor}");
    // A timeout at the deadline or below lets the agent run the call first: doctor says so.
    for (agent, dir) in [("qwen", ".qwen"), ("droid", ".factory")] {
        let file = e.home.join(dir).join("settings.json");
        let mut v = read_json(&file);
        v["hooks"]["PreToolUse"][1]["hooks"][0]["timeout"] = json!(3);
        std::fs::write(&file, v.to_string()).unwrap();
        let doctor = text(&wicket(&e, &["doctor"], "", &[]));
        let warned = doctor.lines().any(|l| {
            l.contains(&file.display().to_string())
                && l.contains("not above wicket's own deadline")
                && l.contains(&format!("hook {agent}"))
        });
        assert!(warned, "{agent}: {doctor}");
        let out = init(&e, agent, &["--uninstall"]);
        assert!(text(&out).contains("wicket's hook removed"), "{}", text(&out));
        let v = read_json(&file);
        assert_eq!(v["hooks"]["PreToolUse"].as_array().map(Vec::len), Some(1), "{agent}: {v}");
        assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "other");
    }
}

// ---------------------------------------------------------------- GitHub Copilot CLI

fn copilot_session(copilot: &Path, e: &Env, steps: &Value) -> (Output, Vec<Value>) {
    init(e, "copilot", &[]);
    let mcp = json!({"mcpServers": {"fs": {"type": "local", "command": "node", "args": [fs_server(), e.root],
        "tools": ["*"]}}});
    std::fs::write(e.home.join(".copilot/mcp-config.json"), mcp.to_string()).unwrap();
    session(e, steps, |url| {
        let cache = agents_dir().join("copilot-cache");
        let vars = [
            ("COPILOT_CACHE_HOME", cache.to_string_lossy().into_owned()),
            ("COPILOT_PROVIDER_BASE_URL", url.to_string()),
            ("COPILOT_PROVIDER_TYPE", "openai".into()),
            ("COPILOT_PROVIDER_API_KEY", "fake".into()),
            ("COPILOT_MODEL", "fake-model".into()),
            ("COPILOT_OFFLINE", "1".into()),
            ("COPILOT_AUTO_UPDATE", "false".into()),
        ];
        let args = ["-p", "do the task", "--allow-all-tools"];
        (
            copilot.to_path_buf(),
            args.iter().map(ToString::to_string).collect(),
            vars.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        )
    })
}

/// GitHub Copilot CLI 1.0 (`-p --allow-all-tools`: its own approval is off), with a model of
/// its own ("bring your own key", no GitHub login), set up with `wicket init copilot`: allowed
/// `bash` commands run inside `wicket run` (`modifiedArgs`).
#[test]
fn real_copilot_cli_is_gated_and_confined() {
    let Some(copilot) = real_agent("node_modules/.bin/copilot") else { return };
    let s = Scenario {
        name: "GitHub Copilot CLI",
        read: |p| json!({"tool": "view", "input": {"path": p}}),
        shell: |c| json!({"tool": "bash", "input": {"command": c, "description": "a step"}}),
        mcp: |p| vec![json!({"tool": "fs-read_text_file", "input": {"path": p}})],
        confines: true,
    };
    scenario(&s, |e, steps| copilot_session(&copilot, e, steps));
}

#[test]
fn every_copilot_fixture_gets_its_documented_answer() {
    run_fixtures(&["hook", "copilot"], "copilot_hooks.jsonl", 18);
}

/// A configured MCP server's tools are judged under their server's name: Copilot's
/// `fs-read_text_file` is `mcp__fs__read_text_file`, for the deny and for an allow rule.
#[test]
fn copilot_mcp_tools_are_split_by_the_configured_servers() {
    let e = env();
    std::fs::create_dir_all(e.home.join(".copilot")).unwrap();
    std::fs::write(e.home.join(".copilot/mcp-config.json"), r#"{"mcpServers": {"fs": {"command": "x"}}}"#).unwrap();
    std::fs::write(e.wicket_home().join("settings.json"), r#"{"permissions": {"allow": ["mcp__fs__read_text_file"]}}"#)
        .unwrap();
    let call = |path: &str| {
        let payload = json!({"sessionId": "s", "timestamp": 1, "cwd": e.root, "toolName": "fs-read_text_file",
            "toolArgs": {"path": e.root.join(path)}});
        answer(&wicket(&e, &["hook", "copilot"], &payload.to_string(), &[]))
    };
    assert_eq!(call("README.md")["permissionDecision"], "allow");
    let secret = call(".env");
    assert_eq!(secret["permissionDecision"], "deny", "{secret}");
    assert!(secret["permissionDecisionReason"].as_str().unwrap().contains("mcp__fs__read_text_file(.env)"), "{secret}");
}

#[test]
fn copilot_hook_fails_closed() {
    let payload = |root: &Path| {
        json!({"sessionId": "s", "timestamp": 1, "cwd": root, "toolName": "bash", "toolArgs": {"command": "ls"}})
            .to_string()
    };
    fails_closed(&["hook", "copilot", "--sandbox-commands"], &payload);
}

/// `wicket init copilot` puts wicket's entry first in `hooks.preToolUse` of
/// `~/.copilot/settings.json` (others stay; twice changes nothing), with `timeoutSec` above
/// wicket's deadline and commands confined; `doctor` reports it and warns at a timeout of the
/// deadline or below; `--uninstall` removes only wicket's; `--project` writes
/// `.github/hooks/wicket.json`.
#[test]
fn init_and_doctor_for_copilot() {
    let e = env();
    let file = e.home.join(".copilot/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, r#"{"model": "x", "hooks": {"preToolUse": [{"type": "command", "bash": "other"}]}}"#)
        .unwrap();
    init(&e, "copilot", &[]);
    let v = read_json(&file);
    assert_eq!(v["model"], "x");
    let list = v["hooks"]["preToolUse"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{v}");
    assert!(list[0]["bash"].as_str().unwrap().ends_with(" hook copilot --sandbox-commands"), "{v}");
    assert!(list[0]["timeoutSec"].as_u64().unwrap() > 5, "{v}");
    assert_eq!(list[1]["bash"], "other");
    assert!(text(&init(&e, "copilot", &[])).contains("nothing to change"));
    let doctor = text(&wicket(&e, &["doctor"], "", &[]));
    assert!(doctor.contains("hook: copilot in") && doctor.contains("exists"), "{doctor}");
    assert!(doctor.lines().any(|l| l.starts_with("hook: copilot in") && l.contains("shell commands")), "{doctor}");
    assert!(!doctor.contains("not above wicket's own deadline"), "{doctor}");
    let mut v = read_json(&file);
    v["hooks"]["preToolUse"][0]["timeoutSec"] = json!(5);
    std::fs::write(&file, v.to_string()).unwrap();
    let doctor = text(&wicket(&e, &["doctor"], "", &[]));
    assert!(doctor.contains("timeout of 5 s, not above wicket's own deadline"), "{doctor}");
    init(&e, "copilot", &["--uninstall"]);
    assert_eq!(read_json(&file)["hooks"]["preToolUse"], json!([{"type": "command", "bash": "other"}]));
    init(&e, "copilot", &["--project", "--unconfined-commands"]);
    let v = read_json(&e.root.join(".github/hooks/wicket.json"));
    assert_eq!(v["version"], 1, "{v}");
    assert!(v["hooks"]["preToolUse"][0]["bash"].as_str().unwrap().ends_with(" hook copilot"), "{v}");
}

// ---------------------------------------------------------------- OpenCode and Kilo

/// OpenCode or Kilo (`hook`: `opencode`, `kilo`) with wicket's plugin from `wicket init
/// <hook>`, the model as an OpenAI-compatible provider in the user's configuration (`config`:
/// its file name under ~/.config/<hook>), every tool allowed by the agent's own permissions
/// (only wicket stands), and the MCP filesystem server.
fn opencode_session(bin: &Path, hook: &str, config: &str, e: &Env, steps: &Value) -> (Output, Vec<Value>) {
    init(e, hook, &[]);
    let upper = hook.to_uppercase();
    session(e, steps, |url| {
        let cfg = json!({
            "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                "options": {"baseURL": url, "apiKey": "fake"}, "models": {"fake-model": {"name": "Fake"}}}},
            "model": "fake/fake-model", "small_model": "fake/fake-model", "autoupdate": false, "share": "disabled",
            "permission": {"*": "allow"},
            "mcp": {"fs": {"type": "local", "command": ["node", fs_server(), e.root], "enabled": true}},
        });
        std::fs::write(e.home.join(".config").join(hook).join(config), cfg.to_string()).unwrap();
        let vars = [format!("{upper}_DISABLE_MODELS_FETCH"), format!("{upper}_DISABLE_AUTOUPDATE")];
        (
            bin.to_path_buf(),
            vec!["run".into(), "do the task".into()],
            vars.into_iter().map(|k| (k, "1".to_string())).collect(),
        )
    })
}

fn opencode_scenario(name: &'static str) -> Scenario {
    Scenario {
        name,
        read: |p| json!({"tool": "read", "input": {"filePath": p}}),
        shell: |c| json!({"tool": "bash", "input": {"command": c, "description": "a step"}}),
        mcp: |p| vec![json!({"tool": "fs_read_text_file", "input": {"path": p}})],
        confines: true,
    }
}

/// OpenCode 1.18 (`opencode run`, its own permissions all `allow`), set up with `wicket init
/// opencode`: the plugin refuses what wicket denies and moves allowed commands into `wicket run`.
#[test]
fn real_opencode_is_gated_and_confined() {
    let Some(bin) = real_agent("node_modules/.bin/opencode") else { return };
    scenario(&opencode_scenario("OpenCode"), |e, steps| opencode_session(&bin, "opencode", "opencode.json", e, steps));
}

/// Kilo 7.7 (OpenCode's fork, `kilo run`), set up with `wicket init kilo`.
#[test]
fn real_kilo_is_gated_and_confined() {
    let Some(bin) = real_agent("node_modules/.bin/kilo") else { return };
    scenario(&opencode_scenario("Kilo"), |e, steps| opencode_session(&bin, "kilo", "kilo.json", e, steps));
}

#[test]
fn every_opencode_fixture_gets_its_documented_answer() {
    run_fixtures(&["hook", "opencode"], "opencode_hooks.jsonl", 18);
    // Kilo is OpenCode's fork: the same plugin, the same answers.
    run_fixtures(&["hook", "kilo"], "opencode_hooks.jsonl", 18);
}

#[test]
fn opencode_and_kilo_hooks_fail_closed() {
    let payload = |root: &Path| {
        json!({"tool": "bash", "args": {"command": "ls"}, "sessionID": "s", "callID": "c", "cwd": root}).to_string()
    };
    fails_closed(&["hook", "opencode", "--sandbox-commands"], &payload);
    fails_closed(&["hook", "kilo", "--sandbox-commands"], &payload);
}

/// Load a plugin file in node as OpenCode's runtime does and run its `tool.execute.before` on
/// one call: `{"ran": true, "args": …}` (the call goes on, with these arguments) or
/// `{"ran": false, "error": …}` (refused, with the message the model reads).
fn plugin_call(e: &Env, plugin: &Path, tool: &str, args: Value) -> Value {
    const HARNESS: &str = r#"
const { pathToFileURL } = await import("node:url");
const [file, dir, tool, args] = process.argv.slice(1);
const m = await import(pathToFileURL(file).href);
const client = { config: { get: async () => ({ data: { mcp: { fs: {} } } }) } };
const hooks = await m.WicketGate({ directory: dir, worktree: dir, client });
const output = { args: JSON.parse(args) };
try {
  await hooks["tool.execute.before"]({ tool, sessionID: "ses_1", callID: "call_1" }, output);
  console.log(JSON.stringify({ ran: true, args: output.args }));
} catch (err) {
  console.log(JSON.stringify({ ran: false, error: String(err && err.message) }));
}
"#;
    let out = Command::new("node")
        .args(["--input-type=module", "-e", HARNESS])
        .arg(plugin)
        .arg(&e.root)
        .arg(tool)
        .arg(args.to_string())
        .env("HOME", &e.home)
        .env("WICKET_HOME", e.wicket_home())
        .output()
        .unwrap();
    assert!(out.status.success(), "node: {}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|err| panic!("{err}: {}", text(&out)))
}

/// The plugin `wicket init opencode` writes lets a call through only on wicket's answer: a
/// denied call throws wicket's reason, an allowed command comes back rewritten into
/// `wicket run`, and a wicket that is missing, fails, stalls past the plugin's timeout or
/// prints something else refuses the call.
#[test]
fn the_opencode_plugin_denies_unless_wicket_answers() {
    if Command::new("node").arg("--version").output().is_err() {
        assert!(!in_ci(), "node is not installed (CI must not skip this test)");
        eprintln!("node is not installed; skipped");
        return;
    }
    let e = env();
    init(&e, "opencode", &["--unconfined-commands"]);
    let plugin = e.home.join(".config/opencode/plugin/wicket.js");
    let secret = plugin_call(&e, &plugin, "read", json!({"filePath": e.root.join(".env")}));
    assert_eq!(secret["ran"], false, "{secret}");
    assert!(secret["error"].as_str().unwrap().contains("Blocked by wicket (sensitive)"), "{secret}");
    let ls = plugin_call(&e, &plugin, "bash", json!({"command": "ls", "description": "d"}));
    assert_eq!(ls, json!({"ran": true, "args": {"command": "ls", "description": "d"}}));
    let mcp = plugin_call(&e, &plugin, "fs_read_text_file", json!({"path": e.root.join(".env")}));
    assert!(mcp["error"].as_str().unwrap().contains("mcp__fs__read_text_file"), "{mcp}");
    // Confined (the default): the allowed command comes back inside `wicket run`.
    init(&e, "opencode", &[]);
    let ls = plugin_call(&e, &plugin, "bash", json!({"command": "ls", "description": "d"}));
    let command = ls["args"]["command"].as_str().unwrap_or_else(|| panic!("{ls}"));
    assert!(command.contains(" run --unattended --root ") && command.ends_with("-- bash -c ls"), "{ls}");
    assert_eq!(ls["args"]["description"], "d", "{ls}");
    // The plugin as written, but running other programs in wicket's place.
    let text = std::fs::read_to_string(&plugin).unwrap();
    let argv_line = text.lines().find(|l| l.starts_with("const WICKET = ")).unwrap().to_string();
    let with = |argv: Value, timeout_ms: u64| {
        let t = text
            .replace(&argv_line, &format!("const WICKET = {argv};"))
            .replace("const TIMEOUT_MS = 10000;", &format!("const TIMEOUT_MS = {timeout_ms};"));
        let f = e.home.join(format!("plugin-{}.js", timeout_ms + t.len() as u64));
        std::fs::write(&f, t).unwrap();
        plugin_call(&e, &f, "bash", json!({"command": "ls"}))
    };
    let cases = [
        (json!(["/nonexistent/wicket", "hook", "opencode"]), 10_000, "cannot be started"),
        (json!(["/bin/sh", "-c", "echo oops >&2; exit 1"]), 10_000, "wicket exited with 1: oops"),
        (json!(["/bin/sh", "-c", "echo '{}'"]), 10_000, "wicket exited with 0"),
        (json!(["/bin/sh", "-c", "echo not json"]), 10_000, "wicket exited with 0"),
        (json!(["/bin/sh", "-c", "sleep 30"]), 200, "did not answer within 200 ms"),
    ];
    for (argv, timeout_ms, why) in cases {
        let r = with(argv.clone(), timeout_ms);
        assert_eq!(r["ran"], false, "{argv}: {r}");
        let error = r["error"].as_str().unwrap();
        assert!(error.contains("wicket could not check this call") && error.contains(why), "{argv}: {r}");
    }
}

/// `wicket init opencode|kilo` writes wicket's plugin (twice changes nothing) with a timeout
/// above wicket's deadline; `doctor` finds it, says it is wicket's, unchanged, loads and
/// confines commands, warns once it is changed or its timeout is at the deadline or below, and
/// once its program is gone; `--uninstall` removes only wicket's own.
#[test]
fn init_and_doctor_for_opencode_and_kilo() {
    for (agent, dir, project_dir) in [("opencode", "opencode", ".opencode"), ("kilo", "kilo", ".kilo")] {
        let e = env();
        let plugin = e.home.join(".config").join(dir).join("plugin/wicket.js");
        init(&e, agent, &[]);
        let text_of = |p: &Path| std::fs::read_to_string(p).unwrap();
        let written = text_of(&plugin);
        assert!(written.contains(&format!("\"hook\",\"{agent}\",\"--sandbox-commands\"")), "{agent}: {written}");
        assert!(written.contains("const TIMEOUT_MS = 10000;"), "{agent}");
        assert!(text(&init(&e, agent, &[])).contains("already installed"), "{agent}");
        let doctor = text(&wicket(&e, &["doctor"], "", &[]));
        let head = format!("plugin: {agent} in {}", plugin.display());
        for want in ["wicket's, unchanged", "shell commands confined"] {
            assert!(doctor.contains(&format!("{head}: ")) && doctor.contains(want), "{agent}: {want}: {doctor}");
        }
        if Command::new("node").arg("--version").output().is_ok() {
            assert!(doctor.contains(&format!("{head}: loads")), "{agent}: {doctor}");
        }
        assert!(!doctor.contains("hook: none installed"), "{agent}: {doctor}");
        // A timeout at the deadline: the agent would wait less than wicket takes to deny.
        std::fs::write(&plugin, written.replace("const TIMEOUT_MS = 10000;", "const TIMEOUT_MS = 5000;")).unwrap();
        let doctor = text(&wicket(&e, &["doctor"], "", &[]));
        assert!(
            doctor.contains("the plugin's timeout of 5000 ms is not above wicket's own deadline"),
            "{agent}: {doctor}"
        );
        // Changed by hand: not wicket's any more, and not removed by --uninstall.
        std::fs::write(&plugin, written.replace("throw new Error", "console.log")).unwrap();
        let doctor = text(&wicket(&e, &["doctor"], "", &[]));
        assert!(doctor.contains(&format!("{head}: WARNING: not wicket's plugin")), "{agent}: {doctor}");
        let out = wicket(&e, &["init", agent, "--uninstall"], "", &[]);
        assert!(!out.status.success() && plugin.exists(), "{agent}: {}", text(&out));
        // Its program gone: every call would be refused; doctor says so.
        init(&e, agent, &[]);
        let argv_line = written.lines().find(|l| l.starts_with("const WICKET = ")).unwrap();
        let gone = format!("const WICKET = [\"/nonexistent/wicket\",\"hook\",\"{agent}\"];");
        std::fs::write(&plugin, written.replace(argv_line, &gone)).unwrap();
        let doctor = text(&wicket(&e, &["doctor"], "", &[]));
        assert!(doctor.contains(&format!("{head}: WARNING: /nonexistent/wicket does not exist")), "{agent}: {doctor}");
        init(&e, agent, &["--uninstall"]);
        assert!(!plugin.exists(), "{agent}");
        init(&e, agent, &["--project", "--unconfined-commands"]);
        let project = e.root.join(project_dir).join("plugin/wicket.js");
        assert!(text_of(&project).contains(&format!("\"hook\",\"{agent}\"]")), "{agent}");
    }
}

/// `wicket hook <agent> --example` for each new agent: the payload in the agent's own shape,
/// the secret and the git hook refused, nothing logged.
#[test]
fn example_shows_what_each_new_agent_would_receive() {
    let e = env();
    for (agent, flags) in [
        ("qwen", &[][..]),
        ("droid", &["--sandbox-commands"][..]),
        ("copilot", &["--sandbox-commands"][..]),
        ("opencode", &["--sandbox-commands"][..]),
        ("kilo", &["--sandbox-commands"][..]),
    ] {
        let out = wicket(&e, &[&["hook", agent, "--example"][..], flags].concat(), "", &[]);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(0), "{agent}: {shown}");
        let at = shown.find("\nread the project's secrets:\n").unwrap_or_else(|| panic!("{agent}: {shown}"));
        let secret = &shown[at..shown[at + 1..].find("\n\n").map_or(shown.len(), |n| at + 1 + n)];
        assert!(secret.contains("deny") && secret.contains(".env"), "{agent}: {secret}");
        assert!(!secret.contains("the agent sends  null"), "{agent}: the payload's tool is shown: {secret}");
    }
    assert!(!e.wicket_home().join("audit").exists(), "--example writes no audit log");
}

#[test]
fn a_bad_flag_never_lets_a_call_through() {
    let e = env();
    for agent in ["qwen", "droid", "copilot", "opencode", "kilo"] {
        let out = wicket(&e, &["hook", agent, "--no-such-flag"], "{}", &[]);
        assert_eq!(out.status.code(), Some(2), "{agent}: {}", text(&out));
    }
}
