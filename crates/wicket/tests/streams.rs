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

fn gateway(e: &Env, flags: &[&str]) -> (Child, PathBuf) {
    let script = e.dir.join("slow_server.py");
    std::fs::write(&script, SLOW_SERVER).unwrap();
    let seen = e.dir.join("seen.log");
    let root = e.root.to_str().unwrap();
    let mut args = vec!["mcp", "--name", "slow", "--no-sandbox", "--unattended", "--allow", "mcp__slow__*"];
    args.extend_from_slice(&["--root", root]);
    args.extend_from_slice(flags);
    args.extend_from_slice(&["--", "python3", script.to_str().unwrap(), seen.to_str().unwrap()]);
    (e.command(&args).spawn().unwrap(), seen)
}

fn call(id: u64, name: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}}).to_string()
}

#[test]
fn the_gateway_refuses_a_100_mb_client_line_without_holding_it() {
    let e = env();
    let (mut child, seen) = gateway(&e, &[]);
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
    let (mut child, _seen) = gateway(&e, &["--call-timeout", "1"]);
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
