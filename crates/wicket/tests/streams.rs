//! Line streams under bad input, through the real binary: `check --jsonl` answers every line
//! in order whatever the line is; `serve` and the MCP gateway refuse an over-long line without
//! holding it (peak memory measured from `/proc`), and go on with the next; a `tools/call` the
//! MCP server never answers times out with an error, and its late answer is dropped.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn wicket() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_wicket"))
}

/// A project root and a home (also the wicket home) in a temp folder.
struct Env {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    root: PathBuf,
    home: PathBuf,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let root = dir.join("proj");
    let home = dir.join("home");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(home.join(".wicket")).unwrap();
    Env { _tmp: tmp, dir, root, home }
}

impl Env {
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(wicket());
        c.args(args)
            .env("WICKET_HOME", self.home.join(".wicket"))
            .env("HOME", &self.home)
            .current_dir(&self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }
}

/// Lines of the child's stdout, parsed, on a channel (a guard against hangs reads them).
fn answers(child: &mut Child) -> Receiver<Value> {
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(serde_json::from_str::<Value>(&line).unwrap_or(Value::String(line)));
        }
    });
    rx
}

/// A guard against a hang, not a timing assertion.
fn next(rx: &Receiver<Value>) -> Value {
    rx.recv_timeout(Duration::from_secs(60)).expect("an answer from wicket")
}

fn send(stdin: &mut ChildStdin, line: &str) {
    stdin.write_all(line.as_bytes()).unwrap();
    stdin.write_all(b"\n").unwrap();
    stdin.flush().unwrap();
}

/// Write `len` bytes of one JSON string line (no newline yet) in chunks, so the writer never
/// holds it either.
fn send_long_line(stdin: &mut ChildStdin, len: usize) {
    stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"").unwrap();
    let chunk = vec![b'x'; 1024 * 1024];
    let mut left = len;
    while left > 0 {
        let n = left.min(chunk.len());
        stdin.write_all(&chunk[..n]).unwrap();
        left -= n;
    }
    stdin.write_all(b"\"}\n").unwrap();
    stdin.flush().unwrap();
}

/// The process's peak resident memory (`VmHWM`), in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc/PID/status");
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

const HUNDRED_MB: usize = 100 * 1000 * 1000;
/// Far below the line (a process that buffered it whole would sit at several times it).
const RSS_BOUND: u64 = 64 * 1024 * 1024;

#[test]
fn check_jsonl_answers_every_line_in_order_whatever_it_is() {
    let e = env();
    let root = e.root.to_str().unwrap();
    let mut child = e.command(&["check", "--jsonl", "--unattended", "--root", root]).spawn().unwrap();
    let mut input = Vec::new();
    let mut line = |bytes: &[u8]| {
        input.extend_from_slice(bytes);
        input.push(b'\n');
    };
    line(br#"{"tool":"read_file","input":{"path":"a.txt"}}"#); // 1
    line(b"not json"); // 2
    line(b"   "); // 3: blank, skipped
    line(br#"[{"tool":"read_file","input":{"path":"a.txt"}}]"#); // 4: not an object
    line(b"{\"tool\":\"read_file\",\"input\":{\"path\":\"\xff\xfe.txt\"}}"); // 5: not UTF-8
    line(&vec![b'x'; 5 * 1024 * 1024]); // 6: over-long
    line(br#"{"tool":"read_file","input":{"path":".env"}}"#); // 7
    line(b""); // 8: blank, skipped
    line(br#"{"tool": "bash""#); // 9: cut short
    input.extend_from_slice(br#"{"tool":"glob","input":{"pattern":"*.rs"}}"#); // 10, no newline
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    let got: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let shape: Vec<(String, Option<u64>)> =
        got.iter().map(|v| (v["decision"].as_str().unwrap().to_string(), v["line"].as_u64())).collect();
    let want: Vec<(String, Option<u64>)> = [
        ("allow", None),
        ("deny", Some(2)),
        ("deny", Some(4)),
        ("deny", Some(5)),
        ("deny", Some(6)),
        ("deny", None),
        ("deny", Some(9)),
        ("allow", None),
    ]
    .iter()
    .map(|(d, l)| (d.to_string(), *l))
    .collect();
    assert_eq!(shape, want, "one answer per non-blank line, in order: {got:#?}");
    for v in got.iter().filter(|v| v.get("line").is_some()) {
        let n = v["line"].as_u64().unwrap();
        assert_eq!(v["by"], "input", "{v}");
        assert_eq!(v["kind"], "deny_input", "{v}");
        assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
        assert!(v["reason"].as_str().unwrap().starts_with(&format!("line {n}: ")), "{v}");
    }
    assert!(got[3]["error"].as_str().unwrap().contains("UTF-8"), "{}", got[3]);
    assert!(got[4]["error"].as_str().unwrap().contains("longer than"), "{}", got[4]);
    assert_eq!(got[5]["by"], "sensitive", "the line after the over-long one is decided: {}", got[5]);
}

#[test]
fn serve_refuses_a_100_mb_line_without_holding_it_and_answers_the_next() {
    let e = env();
    let root = e.root.to_str().unwrap();
    let mut child = e.command(&["serve", "--no-audit", "--root", root]).spawn().unwrap();
    let rx = answers(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    send_long_line(&mut stdin, HUNDRED_MB);
    let refused = next(&rx);
    let peak = peak_rss(child.id());
    eprintln!("peak RSS after a {HUNDRED_MB}-byte line: {peak} bytes");
    assert!(peak < RSS_BOUND, "peaked at {peak} bytes for a {HUNDRED_MB}-byte line");
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    assert_eq!(refused["id"], Value::Null, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("longer than"), "{refused}");
    send(
        &mut stdin,
        r#"{"jsonrpc":"2.0","id":7,"method":"decide","params":{"tool":"read_file","input":{"path":".env"}}}"#,
    );
    let decided = next(&rx);
    assert_eq!(decided["id"], 7, "{decided}");
    assert_eq!(decided["result"]["decision"], "deny", "{decided}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// A line-at-a-time MCP server in python3: it logs each line it gets, answers `initialize`
/// and every `tools/call` except one named `hang`, which it answers only when the next call
/// (named `late`) comes, so its answer is late.
const SLOW_SERVER: &str = r#"
import json, sys
log = open(sys.argv[1], "a")
hung = None
for line in sys.stdin:
    log.write(line); log.flush()
    m = json.loads(line)
    if "id" not in m or "method" not in m:
        continue
    if m["method"] == "tools/call":
        name = m["params"]["name"]
        if name == "hang":
            hung = m["id"]
            continue
        if name == "late" and hung is not None:
            print(json.dumps({"jsonrpc": "2.0", "id": hung, "result": {"content": [{"type": "text", "text": "LATE"}]}}), flush=True)
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"content": [{"type": "text", "text": "ok " + name}]}}), flush=True)
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {}}), flush=True)
"#;

/// An MCP server in python3 that answers `initialize`, logs that it did, and never reads its
/// input again.
const DEAF_SERVER: &str = r#"
import json, sys, time
m = json.loads(sys.stdin.readline())
open(sys.argv[1], "a").write("initialized\n")
print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "deaf", "version": "1"}}}), flush=True)
time.sleep(600)
"#;

fn gateway(e: &Env, flags: &[&str], vars: &[(&str, &str)]) -> (Child, PathBuf) {
    gateway_to(e, SLOW_SERVER, flags, vars)
}

/// The gateway in front of the python3 `server` (named `slow`), which logs to the returned file.
fn gateway_to(e: &Env, server: &str, flags: &[&str], vars: &[(&str, &str)]) -> (Child, PathBuf) {
    let script = e.dir.join("server.py");
    std::fs::write(&script, server).unwrap();
    let seen = e.dir.join("seen.log");
    let root = e.root.to_str().unwrap();
    let mut args = vec!["mcp", "--name", "slow", "--no-sandbox", "--unattended", "--allow", "mcp__slow__*"];
    args.extend_from_slice(&["--root", root]);
    args.extend_from_slice(flags);
    args.extend_from_slice(&["--", "python3", script.to_str().unwrap(), seen.to_str().unwrap()]);
    (e.command(&args).envs(vars.iter().copied()).spawn().unwrap(), seen)
}

fn call(id: u64, name: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}}).to_string()
}

#[test]
fn the_gateway_refuses_a_100_mb_client_line_without_holding_it() {
    let e = env();
    let (mut child, seen) = gateway(&e, &[], &[]);
    let rx = answers(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    send_long_line(&mut stdin, HUNDRED_MB);
    let refused = next(&rx);
    let peak = peak_rss(child.id());
    eprintln!("peak RSS after a {HUNDRED_MB}-byte line: {peak} bytes");
    assert!(peak < RSS_BOUND, "peaked at {peak} bytes for a {HUNDRED_MB}-byte line");
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("longer than"), "{refused}");
    send(&mut stdin, &call(1, "echo"));
    let answered = next(&rx);
    assert_eq!(answered["id"], 1, "{answered}");
    assert_eq!(answered["result"]["content"][0]["text"], "ok echo", "{answered}");
    drop(stdin);
    let _ = child.wait();
    let seen = std::fs::read_to_string(seen).unwrap();
    assert_eq!(seen.lines().count(), 1, "only the call reached the server: {} bytes", seen.len());
}

#[test]
fn a_call_the_server_never_answers_times_out_and_its_late_answer_is_dropped() {
    let e = env();
    let (mut child, _seen) = gateway(&e, &["--call-timeout", "1"], &[]);
    let rx = answers(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    let started = Instant::now();
    send(&mut stdin, &call(1, "hang"));
    let timed_out = next(&rx);
    assert_eq!(timed_out["id"], 1, "{timed_out}");
    assert_eq!(timed_out["error"]["code"], -32001, "{timed_out}");
    assert!(timed_out["error"]["message"].as_str().unwrap().contains("did not answer"), "{timed_out}");
    // Generous: the timeout is 1 s; this only shows it is not the 120 s default or forever.
    assert!(started.elapsed() < Duration::from_secs(30), "timed out after {:?}", started.elapsed());
    // The id is still pending at the server: reusing it is refused, not mixed up with the
    // late answer.
    send(&mut stdin, &call(1, "echo"));
    let reused = next(&rx);
    assert_eq!(reused["id"], 1, "{reused}");
    assert_eq!(reused["error"]["code"], -32600, "{reused}");
    // The next call makes the server send its late answer to call 1 first: dropped.
    send(&mut stdin, &call(2, "late"));
    let answered = next(&rx);
    assert_eq!(answered["id"], 2, "the late answer to 1 never reaches the client: {answered}");
    assert_eq!(answered["result"]["content"][0]["text"], "ok late", "{answered}");
    // Once the server did answer, the id is free again.
    send(&mut stdin, &call(1, "again"));
    let again = next(&rx);
    assert_eq!(again["id"], 1, "{again}");
    assert_eq!(again["result"]["content"][0]["text"], "ok again", "{again}");
    drop(stdin);
    let _ = child.wait();
    assert!(rx.try_recv().is_err(), "nothing else reached the client");
}

/// The project's log folder, made by a first `check`, with its lock held by another process
/// until the returned child is killed.
fn hold_audit_lock(e: &Env) -> Child {
    let mut first = e.command(&["check", "--root", e.root.to_str().unwrap()]).spawn().unwrap();
    first.stdin.take().unwrap().write_all(br#"{"tool":"read","input":{"path":"a"}}"#).unwrap();
    assert!(first.wait().unwrap().code().is_some());
    let audit = e.home.join(".wicket/audit");
    let dir = std::fs::read_dir(&audit).unwrap().next().unwrap().unwrap().path();
    // `-o`: the lock is held by `flock` itself, so killing it releases the lock.
    let holder = Command::new("flock").arg("-o").arg(dir.join("lock")).args(["sleep", "120"]).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    holder
}

/// Every line of the project's log, parsed.
fn log_lines(e: &Env) -> Vec<Value> {
    let audit = e.home.join(".wicket/audit");
    let dir = std::fs::read_dir(&audit).unwrap().next().unwrap().unwrap().path();
    let mut lines = Vec::new();
    for f in std::fs::read_dir(dir).unwrap() {
        let f = f.unwrap().path();
        if f.extension().is_some_and(|x| x == "jsonl") {
            let text = std::fs::read_to_string(&f).unwrap();
            lines.extend(text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()));
        }
    }
    lines
}

fn late_reason(answer: &Value) -> String {
    answer["result"]["reason"].as_str().unwrap_or_default().to_string()
}

#[test]
fn serve_denies_in_time_what_it_cannot_decide_and_never_runs_it() {
    let e = env();
    let mut holder = hold_audit_lock(&e);
    let root = e.root.to_str().unwrap();
    let mut child = e
        .command(&["serve", "--mode", "auto", "--root", root])
        .env("WICKET_AUDIT_MANDATORY", "1")
        .env("WICKET_DEADLINE_MS", "300")
        .spawn()
        .unwrap();
    let rx = answers(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    let decide = |id: u64, command: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "decide", "params": {"tool": "bash", "input": {"command": command}}})
            .to_string()
    };
    send(&mut stdin, &decide(1, "ls"));
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "run", "params": {"command": "touch marker"}}).to_string(),
    );
    send(&mut stdin, &json!({"jsonrpc": "2.0", "id": 3, "method": "blocked_hosts"}).to_string());
    let (first, second) = (next(&rx), next(&rx));
    assert_eq!((first["id"].as_u64(), second["id"].as_u64()), (Some(1), Some(2)), "{first} {second}");
    for a in [&first, &second] {
        assert_eq!(a["result"]["decision"], "deny", "{a}");
        assert!(late_reason(a).contains("did not decide within 300 ms"), "{a}");
    }
    assert!(late_reason(&first).contains("(it was writing the audit line)"), "{first}");
    assert!(late_reason(&second).contains("for an earlier request"), "{second}");
    // Released while the server still waits for it: the lines it then writes say what the
    // client was told.
    let _ = holder.kill();
    let _ = holder.wait();
    let third = next(&rx);
    assert_eq!(third["id"], 3, "{third}");
    // The server goes on, and decides again in time once nothing stalls.
    send(&mut stdin, &decide(4, "ls"));
    let fourth = next(&rx);
    assert_eq!(fourth["id"], 4, "{fourth}");
    assert_eq!(fourth["result"]["decision"], "allow", "{fourth}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert!(rx.try_recv().is_err(), "a request was answered twice");
    assert!(!e.root.join("marker").exists(), "the run the deadline denied was run anyway");
    // The log says what the client was told: the run denied, and the first decision's allow
    // (written once the lock was free) followed by the deny the client got.
    let lines = log_lines(&e);
    let kinds = |target: &str| -> Vec<String> {
        lines.iter().filter(|l| l["target"] == target).map(|l| l["kind"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(kinds("touch marker"), ["deny_input"], "{lines:?}");
    assert_eq!(kinds("ls")[..2], ["allow_mode", "deny_input"], "{lines:?}");
}

#[test]
fn serve_answers_a_decision_in_time_while_its_settings_never_load() {
    let e = env();
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    let fifo = e.root.join(".wicket/settings.json");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let root = e.root.to_str().unwrap();
    let mut child = e.command(&["serve", "--root", root]).env("WICKET_DEADLINE_MS", "300").spawn().unwrap();
    let rx = answers(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    send(&mut stdin, &json!({"jsonrpc": "2.0", "id": "a", "method": "decide", "params": {"tool": "read", "input": {"path": ".env"}}}).to_string());
    let a = next(&rx);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(a["id"], "a", "{a}");
    assert_eq!(a["result"]["decision"], "deny", "{a}");
    assert!(late_reason(&a).contains("(it was loading the settings)"), "{a}");
}

#[test]
fn the_gateway_denies_in_time_a_call_it_cannot_decide_and_never_forwards_it() {
    let e = env();
    let mut holder = hold_audit_lock(&e);
    let (mut child, seen) = gateway(&e, &[], &[("WICKET_AUDIT_MANDATORY", "1"), ("WICKET_DEADLINE_MS", "300")]);
    let rx = answers(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    send(&mut stdin, &call(1, "echo"));
    send(&mut stdin, &call(2, "echo"));
    for id in [1, 2] {
        let a = next(&rx);
        assert_eq!(a["id"], id, "{a}");
        assert_eq!(a["result"]["isError"], true, "{a}");
        let text = a["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("did not decide within 300 ms"), "{a}");
    }
    let _ = holder.kill();
    let _ = holder.wait();
    send(&mut stdin, &call(3, "echo"));
    let third = next(&rx);
    assert_eq!(third["id"], 3, "{third}");
    assert_eq!(third["result"]["content"][0]["text"], "ok echo", "{third}");
    drop(stdin);
    let _ = child.wait();
    assert!(rx.try_recv().is_err(), "a call was answered twice");
    let seen = std::fs::read_to_string(seen).unwrap_or_default();
    assert_eq!(seen.lines().count(), 1, "a call the deadline denied reached the server: {seen}");
}

#[test]
fn check_jsonl_answers_every_line_in_time_and_in_order_while_it_stalls() {
    let e = env();
    let mut holder = hold_audit_lock(&e);
    let root = e.root.to_str().unwrap();
    let mut child = e
        .command(&["check", "--jsonl", "--mode", "auto", "--root", root])
        .env("WICKET_AUDIT_MANDATORY", "1")
        .env("WICKET_DEADLINE_MS", "300")
        .spawn()
        .unwrap();
    let rx = answers(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    let line = |command: &str| json!({"tool": "bash", "input": {"command": command}}).to_string();
    send(&mut stdin, &line("ls"));
    send(&mut stdin, "");
    send(&mut stdin, &line("pwd"));
    send(&mut stdin, "not json");
    for n in [1, 3, 4] {
        let a = next(&rx);
        assert_eq!(a["line"], n, "{a}");
        assert_eq!(a["decision"], "deny", "{a}");
        assert!(a["error"].as_str().unwrap().contains("did not decide within 300 ms"), "{a}");
    }
    let _ = holder.kill();
    let _ = holder.wait();
    send(&mut stdin, &line("ls"));
    let fifth = next(&rx);
    assert_eq!(fifth["decision"], "allow", "{fifth}");
    assert!(fifth.get("line").is_none(), "{fifth}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert!(rx.try_recv().is_err(), "a line was answered twice");
}

#[test]
fn a_server_that_stops_reading_never_stalls_the_gateway() {
    let e = env();
    let (mut child, seen) = gateway_to(&e, DEAF_SERVER, &["--call-timeout", "1"], &[]);
    let rx = answers(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
        "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    send(&mut stdin, &init.to_string());
    let initialized = next(&rx);
    assert_eq!(initialized["id"], 0, "{initialized}");
    // Far more than a pipe holds: a gateway that wrote them itself would block on the first.
    let big = "x".repeat(200_000);
    for id in 1..=4 {
        let c = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "t", "arguments": {"a": big}}});
        send(&mut stdin, &c.to_string());
    }
    send(&mut stdin, &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}).to_string());
    let mut ids: Vec<u64> = Vec::new();
    for _ in 1..=5 {
        let a = next(&rx);
        assert_eq!(a["error"]["code"], -32001, "{a}");
        ids.push(a["id"].as_u64().unwrap());
    }
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3, 4, 5]);
    drop(stdin);
    // The server never reads to its end of input: the gateway ends it after the grace.
    let _ = child.wait();
    assert_eq!(std::fs::read_to_string(seen).unwrap(), "initialized\n");
}

#[test]
fn serve_gives_an_agent_a_capped_result_of_a_flood() {
    let e = env();
    std::fs::create_dir_all(e.root.join(".wicket")).unwrap();
    let root = e.root.to_str().unwrap();
    let mut child = e.command(&["serve", "--mode", "auto", "--root", root]).spawn().unwrap();
    let rx = answers(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    let run = json!({"jsonrpc": "2.0", "id": 1, "method": "run", "params": {"command": "seq 1 300000"}});
    send(&mut stdin, &run.to_string());
    let a = next(&rx);
    drop(stdin);
    let _ = child.wait();
    let total = (1..=300_000u64).map(|i| i.to_string().len() as u64 + 1).sum::<u64>();
    assert_eq!(a["result"]["stdout_bytes"], total, "{}", a["result"]["stdout_bytes"]);
    let text = a["result"]["stdout"].as_str().unwrap();
    assert!(text.len() < 40_000 && text.contains("bytes cut by wicket's output cap"), "{} bytes", text.len());
    assert!(text.starts_with("1\n2\n") && text.ends_with("299999\n300000\n"), "head and tail kept");
}
