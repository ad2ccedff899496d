//! One decision whatever the front end: every case of `cases/front_ends.jsonl` (rules, a call,
//! the expected answer) goes through `wicket check`, `wicket serve`'s `decide`, the Claude
//! Code, Codex and Gemini CLI hooks, each in the agent's own payload shape, and for MCP tools
//! the MCP gateway (`wicket mcp` in front of a small echo server), and each must give the same
//! answer. Hooks that cannot ask answer an ask with a deny that says the person's
//! approval is needed; that counts as ask here.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

fn world(case: &Value) -> World {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    for d in [root.join(".git"), root.join("src"), root.join("private"), home.join(".wicket")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(root.join(".env"), "A=1\n").unwrap();
    std::fs::write(root.join("src/lib.rs"), "x\n").unwrap();
    std::fs::write(root.join("private/notes.txt"), "x\n").unwrap();
    let rules = |k: &str| case.get(k).cloned().unwrap_or(json!([]));
    let settings = json!({"permissions": {"allow": rules("allow"), "deny": rules("deny")}});
    std::fs::write(home.join(".wicket/settings.json"), settings.to_string()).unwrap();
    World { _tmp: tmp, root, home }
}

fn wicket(w: &World, args: &[&str], stdin: &str) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wicket"))
        .args(args)
        .env("WICKET_HOME", w.home.join(".wicket"))
        .env("HOME", &w.home)
        .env("WICKET_MANAGED_POLICY", w.home.join("no-managed-policy.json"))
        .env_remove("CODEX_HOME")
        .current_dir(&w.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn last_json(text: &str) -> Value {
    serde_json::from_str(text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("null")).unwrap_or(Value::Null)
}

/// A deny worded as "needs the person's approval" is an ask the hook could not put.
fn hook_decision(decision: &str, reason: &str) -> String {
    if decision == "deny" && reason.contains("needs the person's approval") {
        "ask".to_string()
    } else {
        decision.to_string()
    }
}

fn check(w: &World, call: &Value) -> String {
    let (_, out) = wicket(w, &["check", "--root", w.root.to_str().unwrap()], &call.to_string());
    last_json(&out)["decision"].as_str().unwrap_or("?").to_string()
}

fn serve(w: &World, call: &Value) -> String {
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "decide", "params": call});
    let (_, out) = wicket(w, &["serve", "--root", w.root.to_str().unwrap()], &format!("{req}\n"));
    let messages: Vec<Value> = out.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    // An ask goes to the client as an approval request (this client never answers it).
    if messages.iter().any(|m| m["method"] == "approval/request") {
        return "ask".into();
    }
    let answer = messages.iter().find(|m| m["id"] == 1);
    answer.map_or("?".into(), |a| a["result"]["decision"].as_str().unwrap_or("?").to_string())
}

/// The Claude Code tool and input for a wicket call.
fn claude_tool(call: &Value) -> (String, Value) {
    let i = &call["input"];
    match call["tool"].as_str().unwrap() {
        "bash" => ("Bash".into(), json!({"command": i["command"]})),
        "read_file" => ("Read".into(), json!({"file_path": i["path"]})),
        "write_file" => ("Write".into(), json!({"file_path": i["path"], "content": i["content"]})),
        other => (other.into(), i.clone()),
    }
}

fn claude(w: &World, call: &Value) -> String {
    let (tool, input) = claude_tool(call);
    let p = json!({"session_id": "s", "transcript_path": "/dev/null", "cwd": w.root, "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": "t1"});
    let (_, out) = wicket(w, &["hook", "claude"], &p.to_string());
    let o = &last_json(&out)["hookSpecificOutput"];
    o["permissionDecision"].as_str().unwrap_or("?").to_string()
}

/// Codex names its shell tool `Bash` and MCP tools as wicket does; it has no file tools of its
/// own (`None`: not a Codex call).
fn codex(w: &World, call: &Value) -> Option<String> {
    let (tool, input) = match call["tool"].as_str().unwrap() {
        "bash" => ("Bash".to_string(), json!({"command": call["input"]["command"]})),
        t if t.starts_with("mcp__") => (t.to_string(), call["input"].clone()),
        _ => return None,
    };
    let p = json!({"session_id": "s", "turn_id": "t", "transcript_path": null, "cwd": w.root, "hook_event_name": "PreToolUse",
        "model": "m", "permission_mode": "default", "tool_name": tool, "tool_input": input, "tool_use_id": "c1"});
    let (_, out) = wicket(w, &["hook", "codex"], &p.to_string());
    let v = last_json(&out);
    let o = &v["hookSpecificOutput"];
    Some(match o["permissionDecision"].as_str() {
        Some(d) => hook_decision(d, o["permissionDecisionReason"].as_str().unwrap_or("")),
        None if v == json!({}) => "allow".to_string(),
        None => "?".to_string(),
    })
}

/// Gemini CLI's names: `run_shell_command`, `read_file`, `write_file`, and MCP tools as
/// `mcp_<server>_<tool>` with an `mcp_context`.
fn gemini(w: &World, call: &Value) -> String {
    let i = &call["input"];
    let tool = call["tool"].as_str().unwrap();
    let mut p = json!({"session_id": "s", "transcript_path": "/dev/null", "cwd": w.root, "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-04T00:00:00Z"});
    let (name, input) = match tool {
        "bash" => ("run_shell_command".to_string(), json!({"command": i["command"]})),
        "read_file" => ("read_file".to_string(), json!({"file_path": i["path"]})),
        "write_file" => ("write_file".to_string(), json!({"file_path": i["path"], "content": i["content"]})),
        t => {
            let mut parts = t.trim_start_matches("mcp__").splitn(2, "__");
            let (server, name) = (parts.next().unwrap(), parts.next().unwrap());
            p["mcp_context"] = json!({"server_name": server, "tool_name": name});
            (format!("mcp_{server}_{name}"), i.clone())
        }
    };
    p["tool_name"] = json!(name);
    p["tool_input"] = input;
    let (_, out) = wicket(w, &["hook", "gemini"], &p.to_string());
    let v = last_json(&out);
    match v["decision"].as_str() {
        Some(d) => hook_decision(d, v["reason"].as_str().unwrap_or("")),
        None if v == json!({}) => "allow".to_string(),
        None => "?".to_string(),
    }
}

/// Through the MCP gateway: a refused call comes back as an error result naming wicket, an
/// ask (this client declares no elicitation and there is no terminal) as "nobody can be
/// asked", an allowed one reaches the server, which echoes it. `None`: not an MCP call.
fn mcp(w: &World, call: &Value) -> Option<String> {
    let tool = call["tool"].as_str().unwrap();
    let rest = tool.strip_prefix("mcp__")?;
    let (server, name) = rest.split_once("__").unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/echo_server.py");
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let req = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": call["input"]}});
    let root = w.root.to_str().unwrap();
    let args =
        ["mcp", "--name", server, "--root", root, "--no-sandbox", "--", "python3", script.to_str().unwrap(), name];
    let (_, out) = wicket(w, &args, &format!("{init}\n{initialized}\n{req}\n"));
    let Some(answer) = out.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find(|m| m["id"] == 2) else {
        return Some(format!("no answer: {out}"));
    };
    let text = answer["result"]["content"][0]["text"].as_str().unwrap_or("").to_string();
    Some(if text.starts_with("ECHOED") {
        "allow".into()
    } else if text.contains("nobody can be asked") {
        "ask".into()
    } else if answer["result"]["isError"] == true {
        "deny".into()
    } else {
        format!("? {answer}")
    })
}

#[test]
fn every_front_end_gives_the_same_answer() {
    let cases =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/front_ends.jsonl")).unwrap();
    let mut wrong = Vec::new();
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let name = case["name"].as_str().unwrap();
        let expect = case["expect"].as_str().unwrap();
        let call = &case["call"];
        let w = world(&case);
        let mut answers = vec![("check", check(&w, call)), ("serve", serve(&w, call)), ("claude", claude(&w, call))];
        answers.extend(codex(&w, call).map(|a| ("codex", a)));
        answers.push(("gemini", gemini(&w, call)));
        answers.extend(mcp(&w, call).map(|a| ("mcp", a)));
        for (front, got) in answers {
            if got != expect {
                wrong.push(format!("{name}: {front} answered {got}, expected {expect}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
