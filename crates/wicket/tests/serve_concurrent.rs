//! `wicket serve` keeps answering while commands run: each `run` executes in a thread of its
//! own and answers when it ends, and neither `shutdown` nor the end of input loses one.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

/// Start `wicket serve` in `root`, send `requests` (one a line) and, if `close`, close its
/// input; return every line it printed, in order, and its exit status.
fn serve(root: &Path, home: &Path, requests: &[Value], close: bool) -> (Vec<Value>, bool) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wicket"))
        .arg("serve")
        .env("WICKET_HOME", home)
        .env("HOME", home)
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    if close {
        drop(stdin);
    } else {
        // Kept open until the server ends by itself (after `shutdown`).
        std::mem::forget(stdin);
    }
    let lines = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    (lines, child.wait().unwrap().success())
}

fn world() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    // Not in a temp folder: temp folders are writable inside the sandbox.
    let tmp = tempfile::tempdir_in(common::outside_temp("serve")).unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    // Its own project: without a marker the root found from here would be the repository
    // this test runs in.
    std::fs::create_dir_all(root.join(".wicket")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    (tmp, root, home)
}

fn run(id: u64, command: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "run", "params": {"command": command}})
}

fn position(lines: &[Value], id: u64) -> usize {
    lines.iter().position(|l| l["id"] == id).unwrap_or_else(|| panic!("no answer to {id}: {lines:?}"))
}

#[test]
fn a_slow_run_does_not_hold_other_requests_and_shutdown_waits_for_it() {
    let (_tmp, root, home) = world();
    let requests = [
        run(1, "sleep 2; echo slow"),
        run(2, "echo fast"),
        json!({"jsonrpc": "2.0", "id": 3, "method": "decide", "params": {"tool": "read_file", "input": {"path": "README"}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}),
    ];
    let (lines, ok) = serve(&root, &home, &requests, false);
    assert!(ok, "{lines:?}");
    assert_eq!(lines.len(), 4, "one answer each: {lines:?}");
    let (slow, fast, decide, shutdown) =
        (position(&lines, 1), position(&lines, 2), position(&lines, 3), position(&lines, 4));
    assert!(fast < slow && decide < slow, "the fast requests were answered first: {lines:?}");
    assert_eq!(shutdown, 3, "shutdown is answered last, after the slow run: {lines:?}");
    assert_eq!(lines[slow]["result"]["stdout"], "slow\n", "{lines:?}");
    assert_eq!(lines[fast]["result"]["stdout"], "fast\n", "{lines:?}");
    assert_ne!(lines[slow]["result"]["sandbox"], "host", "{lines:?}");
}

#[test]
fn the_end_of_input_lets_running_commands_finish_and_answer() {
    let (_tmp, root, home) = world();
    let (lines, ok) = serve(&root, &home, &[run(7, "sleep 1; echo done > marker; echo ok")], true);
    assert!(ok, "{lines:?}");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["result"]["stdout"], "ok\n", "{lines:?}");
    assert!(root.join("marker").exists(), "the command was cut off");
    // Recorded: the decision and the execution, in a log that verifies.
    let out = Command::new(env!("CARGO_BIN_EXE_wicket"))
        .args(["audit", "show"])
        .env("WICKET_HOME", &home)
        .env("HOME", &home)
        .current_dir(&root)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("executed"), "the execution is in the audit log: {shown}");
}
