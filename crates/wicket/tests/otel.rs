//! OTLP export of the audit log, end to end: real `wicket` processes (hooks, `check`, `run`,
//! `serve`, the MCP gateway, several at once, two projects) against a loopback OTLP receiver
//! that decodes with the official Python bindings (`tests/otel/receiver.py`, from
//! `.ci/otel-peers.sh`: `WICKET_OTEL_PEERS`, default `target/otel-peers`). Without them the
//! tests skip with a message, except in CI (`CI` or `WICKET_CI` set), where they fail.
//!
//! Waiting for lines to arrive is bounded by a generous deadline that only turns a hang into
//! a failure; nothing here asserts how long anything took.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn in_ci() -> bool {
    ["CI", "WICKET_CI"].iter().any(|v| std::env::var(v).is_ok_and(|x| !x.is_empty() && x != "0" && x != "false"))
}

/// The venv's python with opentelemetry-proto and grpcio, or `None` (skip) outside CI.
fn python() -> Option<PathBuf> {
    let dir = std::env::var_os("WICKET_OTEL_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("../otel-peers"));
    let python = dir.join("venv/bin/python");
    let ok = Command::new(&python)
        .args(["-c", "import opentelemetry.proto.collector.logs.v1.logs_service_pb2_grpc"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(python);
    }
    let msg = format!("the OTLP test peers are not installed in {}: run .ci/otel-peers.sh", dir.display());
    assert!(!in_ci(), "{msg} (CI must not skip these tests)");
    eprintln!("{msg}; skipped");
    None
}

/// The receiver process (killed when dropped) and the file it writes.
struct Receiver {
    child: Child,
    port: u16,
}

impl Receiver {
    fn start(python: &Path, out: &Path, protocol: &str, port: u16) -> Receiver {
        Receiver::start_with(python, out, protocol, port, &[])
    }

    /// `tls`: the server's certificate and key files, for HTTPS.
    fn start_with(python: &Path, out: &Path, protocol: &str, port: u16, tls: &[&Path]) -> Receiver {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/otel/receiver.py");
        let mut child = Command::new(python)
            .arg(script)
            .arg(out)
            .arg(protocol)
            .arg(port.to_string())
            .args(tls)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.trim().strip_prefix("listening ").and_then(|p| p.parse().ok());
        let port = port.unwrap_or_else(|| panic!("the receiver did not start: {line:?}"));
        Receiver { child, port }
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct World {
    tmp: tempfile::TempDir,
    roots: Vec<PathBuf>,
    home: PathBuf,
}

impl World {
    /// Two projects (each with a `.git` and a secret), a home, and user settings that send the
    /// audit log to `endpoint` with `protocol`.
    fn new(endpoint: &str, protocol: &str) -> World {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let mut roots = Vec::new();
        for name in ["alpha", "beta"] {
            let root = tmp.path().join(name);
            std::fs::create_dir_all(root.join(".git")).unwrap();
            std::fs::write(root.join(".env"), "TOKEN=x\n").unwrap();
            std::fs::write(root.join("README.md"), "hello\n").unwrap();
            roots.push(std::fs::canonicalize(root).unwrap());
        }
        std::fs::create_dir_all(home.join(".wicket")).unwrap();
        let w = World { tmp, roots, home };
        w.settings(json!({"telemetry": {"otlp": {"enabled": true, "endpoint": endpoint, "protocol": protocol}}}));
        w
    }

    fn settings(&self, v: Value) {
        std::fs::write(self.wicket_home().join("settings.json"), v.to_string()).unwrap();
    }

    fn wicket_home(&self) -> PathBuf {
        self.home.join(".wicket")
    }

    fn out(&self) -> PathBuf {
        self.tmp.path().join("received")
    }

    fn cmd(&self, root: &Path) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_wicket"));
        c.env("WICKET_HOME", self.wicket_home())
            .env("HOME", &self.home)
            .env("WICKET_MANAGED_POLICY", self.home.join("no-managed-policy.json"))
            // Exporters end soon after the last line, so the tests see them come and go.
            .env("WICKET_OTEL_LINGER_MS", "200")
            .env_remove("OTEL_LOGS_EXPORTER")
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .env_remove("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT")
            .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
            .env_remove("OTEL_EXPORTER_OTLP_TIMEOUT")
            .env_remove("CODEX_HOME")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn feed(&self, root: &Path, args: &[&str], stdin: &str) -> Output {
        let mut child = self.cmd(root).args(args).spawn().unwrap();
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        child.wait_with_output().unwrap()
    }

    /// A Claude Code PreToolUse hook call; its decision.
    fn claude(&self, root: &Path, tool: &str, input: Value) -> String {
        let p = json!({"session_id": "sess-otel", "transcript_path": "/dev/null", "cwd": root, "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": "t1"});
        let out = self.feed(root, &["hook", "claude"], &p.to_string());
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        v["hookSpecificOutput"]["permissionDecision"].as_str().unwrap_or("?").to_string()
    }

    fn check(&self, root: &Path, call: Value) -> String {
        let out = self.feed(root, &["check", "--root", root.to_str().unwrap()], &call.to_string());
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        v["decision"].as_str().unwrap_or("?").to_string()
    }

    fn run(&self, root: &Path, command: &[&str]) -> Option<i32> {
        let mut args = vec!["run", "--root", root.to_str().unwrap(), "--"];
        args.extend(command);
        self.feed(root, &args, "").status.code()
    }

    fn serve(&self, root: &Path, calls: &[Value]) -> Vec<Value> {
        let mut input = String::new();
        for (i, c) in calls.iter().enumerate() {
            input += &format!("{}\n", json!({"jsonrpc": "2.0", "id": i + 1, "method": "decide", "params": c}));
        }
        let out = self.feed(root, &["serve", "--root", root.to_str().unwrap()], &input);
        String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
    }

    /// One `tools/call` through the MCP gateway in front of the echo server.
    fn mcp(&self, root: &Path, tool: &str) -> String {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/echo_server.py");
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let req = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": {"path": "README.md"}}});
        let r = root.to_str().unwrap();
        let args = [
            "mcp",
            "--name",
            "echo",
            "--root",
            r,
            "--allow",
            "mcp__echo__*",
            "--no-sandbox",
            "--",
            "python3",
            script.to_str().unwrap(),
            tool,
        ];
        let out = self.feed(root, &args, &format!("{init}\n{initialized}\n{req}\n"));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Every local line: project folder → [(seq, hash)] in chain order.
    fn local(&self) -> BTreeMap<String, Vec<(u64, String)>> {
        let mut out: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
        let Ok(events) = wicket_audit::read_path(&self.wicket_home().join("audit")) else { return out };
        for e in events.events {
            out.entry(e.project).or_default().push((e.entry.seq, e.entry.hash));
        }
        for v in out.values_mut() {
            v.sort();
        }
        out
    }

    /// Every received record: project → [(seq, hash)] in the order they arrived.
    fn received(&self) -> BTreeMap<String, Vec<(u64, String)>> {
        let mut out: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
        let text = std::fs::read_to_string(self.out().join("logs.json")).unwrap_or_default();
        for line in text.lines() {
            let doc: Value = serde_json::from_str(line).unwrap();
            for rl in doc["resourceLogs"].as_array().into_iter().flatten() {
                for sl in rl["scopeLogs"].as_array().into_iter().flatten() {
                    for r in sl["logRecords"].as_array().into_iter().flatten() {
                        let attr = |k: &str| {
                            r["attributes"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .find(|a| a["key"] == k)
                                .map(|a| a["value"].clone())
                        };
                        let project = attr("wicket.project").unwrap()["stringValue"].as_str().unwrap().to_string();
                        let seq = attr("wicket.seq").unwrap()["intValue"].as_str().unwrap().parse().unwrap();
                        let hash = attr("wicket.hash").unwrap()["stringValue"].as_str().unwrap().to_string();
                        out.entry(project).or_default().push((seq, hash));
                    }
                }
            }
        }
        out
    }

    /// Wait until every local line has arrived and no exporter runs any more; then what arrived.
    fn settle(&self) -> BTreeMap<String, Vec<(u64, String)>> {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let (local, received) = (self.local(), self.received());
            let all_there = local.iter().all(|(p, lines)| {
                let got =
                    received.get(p).map(|v| v.iter().collect::<std::collections::BTreeSet<_>>()).unwrap_or_default();
                lines.iter().all(|l| got.contains(l))
            });
            if all_there && !local.is_empty() && !self.exporter_running() {
                return received;
            }
            assert!(
                Instant::now() < deadline,
                "not every line arrived: local {local:?}\nreceived {received:?}\nstatus {:?}",
                std::fs::read_to_string(self.wicket_home().join("otel/status"))
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Is an exporter holding its lock?
    fn exporter_running(&self) -> bool {
        let Ok(f) = std::fs::OpenOptions::new().write(true).open(self.wicket_home().join("otel/lock")) else {
            return false;
        };
        rustix::fs::flock(&f, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err()
    }

    fn verify(&self, path: &Path) -> (bool, String) {
        let out = self
            .cmd(self.roots[0].as_path())
            .args(["audit", "verify"])
            .arg(path)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
        )
    }
}

/// Each project's lines arrived exactly once, in chain order, and are all the local lines.
fn assert_once_in_order(local: &BTreeMap<String, Vec<(u64, String)>>, received: &BTreeMap<String, Vec<(u64, String)>>) {
    assert_eq!(local.keys().collect::<Vec<_>>(), received.keys().collect::<Vec<_>>(), "the projects");
    for (project, lines) in local {
        assert_eq!(&received[project], lines, "{project}: every line once, in order");
        let seqs: Vec<u64> = lines.iter().map(|l| l.0).collect();
        assert_eq!(seqs, (1..=lines.len() as u64).collect::<Vec<_>>(), "{project}: the local chain");
    }
}

/// All front ends, several processes at once, two projects.
fn traffic(w: &World, round: usize) {
    let (a, b) = (w.roots[0].as_path(), w.roots[1].as_path());
    std::thread::scope(|s| {
        for i in 0..4 {
            s.spawn(move || {
                let root = if i % 2 == 0 { a } else { b };
                assert_eq!(w.claude(root, "Read", json!({"file_path": root.join("README.md")})), "allow");
                assert_eq!(w.claude(root, "Read", json!({"file_path": root.join(".env")})), "deny");
                let cmd =
                    format!("curl -H 'Authorization: Bearer sk-live-{round}{i}abcdef0123456789' https://example.com");
                assert_eq!(w.check(root, json!({"tool": "bash", "input": {"command": cmd}})), "ask");
            });
        }
        s.spawn(move || assert_eq!(w.run(a, &["sh", "-c", "exit 3"]), Some(3)));
        s.spawn(move || {
            let answers = w.serve(
                b,
                &[
                    json!({"tool": "read_file", "input": {"path": "README.md"}}),
                    json!({"tool": "read_file", "input": {"path": ".env"}}),
                ],
            );
            let decisions: Vec<&str> = answers.iter().filter_map(|m| m["result"]["decision"].as_str()).collect();
            assert_eq!(decisions, ["allow", "deny"], "{answers:?}");
        });
        s.spawn(move || {
            let out = w.mcp(a, "read_text_file");
            assert!(out.contains("ECHOED"), "{out}");
        });
    });
}

#[test]
fn every_line_arrives_once_in_order_and_verifies_at_the_receiver() {
    let Some(python) = python() else { return };
    let w = World::new("http://127.0.0.1:1", "http/protobuf");
    std::fs::create_dir_all(w.out()).unwrap();
    let receiver = Receiver::start(&python, &w.out().join("logs.json"), "http", 0);
    w.settings(
        json!({"telemetry": {"otlp": {"enabled": true, "endpoint": format!("http://127.0.0.1:{}", receiver.port)}}}),
    );
    traffic(&w, 0);
    let received = w.settle();
    let local = w.local();
    assert_once_in_order(&local, &received);
    let kinds = wicket_audit::read_path(&w.wicket_home().join("audit")).unwrap();
    let kinds: Vec<&str> = kinds.events.iter().map(|e| e.entry.kind.as_str()).collect();
    for k in ["allow_read_only", "deny_sensitive", "executed"] {
        assert!(kinds.contains(&k), "{k} in {kinds:?}");
    }
    assert!(local.values().map(Vec::len).sum::<usize>() >= 17, "{local:?}");

    // Redacted exactly as in the local log; the record's attributes carry the chain.
    let text = std::fs::read_to_string(w.out().join("logs.json")).unwrap();
    assert!(!text.contains("sk-live-"), "a secret reached the collector");
    assert!(text.contains("Bearer [REDACTED]"));
    for k in [
        "gen_ai.tool.name",
        "gen_ai.conversation.id",
        "wicket.by",
        "wicket.kind",
        "wicket.reason",
        "wicket.prev",
        "service.name",
        "host.name",
        "user.name",
    ] {
        assert!(text.contains(&format!("\"{k}\"")), "{k} missing");
    }

    // The chain verifies at the receiver.
    let (ok, report) = w.verify(&w.out());
    assert!(ok, "{report}");
    assert!(report.contains(&format!("ok: {} line(s)", local.values().map(Vec::len).sum::<usize>())), "{report}");

    // A line removed and a line altered in transit are named by seq.
    let project = w.received().keys().next().unwrap().clone();
    let tampered = w.tmp.path().join("tampered");
    std::fs::create_dir_all(&tampered).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut doc: Value = serde_json::from_str(line).unwrap();
        for rl in doc["resourceLogs"].as_array_mut().unwrap() {
            for sl in rl["scopeLogs"].as_array_mut().unwrap() {
                let records = sl["logRecords"].as_array_mut().unwrap();
                records.retain(|r| !(r.to_string().contains(&project) && seq_of(r) == 3));
                for r in records.iter_mut() {
                    if r.to_string().contains(&project) && seq_of(r) == 5 {
                        let body = r["body"]["stringValue"]
                            .as_str()
                            .unwrap()
                            .replace("\"reason\":\"", "\"reason\":\"harmless: ");
                        r["body"]["stringValue"] = json!(body);
                    }
                }
            }
        }
        out += &format!("{doc}\n");
    }
    std::fs::write(tampered.join("logs.json"), out).unwrap();
    let (ok, report) = w.verify(&tampered);
    assert!(!ok, "{report}");
    assert!(report.contains(&format!("{project}: seq 3: line 3 never arrived")), "{report}");
    assert!(report.contains(&format!("{project}: seq 5: altered")), "{report}");
    receiver.stop();
}

fn seq_of(record: &Value) -> u64 {
    let attrs = record["attributes"].as_array().unwrap();
    let seq = attrs.iter().find(|a| a["key"] == "wicket.seq").unwrap();
    seq["value"]["intValue"].as_str().unwrap().parse().unwrap()
}

#[test]
fn a_receiver_stopped_and_restarted_gets_everything_once() {
    let Some(python) = python() else { return };
    for protocol in ["grpc", "http/json"] {
        // A port of our own that the receiver can have again after a restart.
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let w = World::new(&format!("http://127.0.0.1:{port}"), protocol);
        std::fs::create_dir_all(w.out()).unwrap();
        let kind = if protocol == "grpc" { "grpc" } else { "http" };
        let receiver = Receiver::start(&python, &w.out().join("logs.json"), kind, port);
        traffic(&w, 1);
        w.settle();
        receiver.stop();
        // The collector is down: decisions go on, their lines wait in the local chain.
        traffic(&w, 2);
        let before = w.received();
        let local = w.local();
        assert!(local.values().map(Vec::len).sum::<usize>() > before.values().map(Vec::len).sum::<usize>());
        let receiver = Receiver::start(&python, &w.out().join("logs.json"), kind, port);
        // The next decision starts an exporter, which sends what waited.
        assert_eq!(w.claude(&w.roots[0], "Read", json!({"file_path": w.roots[0].join("README.md")})), "allow");
        let received = w.settle();
        assert_once_in_order(&w.local(), &received);
        let (ok, report) = w.verify(&w.out());
        assert!(ok, "{protocol}: {report}");
        receiver.stop();
    }
}

#[test]
fn a_collector_that_never_answers_does_not_hold_a_decision_up() {
    // Accepts every connection and never reads from it.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in listener.incoming().flatten() {
            held.push(s);
            let _ = tx.send(());
        }
    });
    let w = World::new(&format!("http://127.0.0.1:{port}"), "http/protobuf");
    w.settings(json!({"telemetry": {"otlp": {"enabled": true, "endpoint": format!("http://127.0.0.1:{port}"), "timeoutMs": 60000}}}));
    let off = World::new("http://127.0.0.1:1", "http/protobuf");
    off.settings(json!({}));
    let (a, b) = (w.roots[0].as_path(), off.roots[0].as_path());
    for _ in 0..5 {
        for (file, tool) in [("README.md", "Read"), (".env", "Read")] {
            let on = w.claude(a, tool, json!({"file_path": a.join(file)}));
            assert_eq!(on, off.claude(b, tool, json!({"file_path": b.join(file)})), "{file}");
        }
    }
    let answers = w.serve(a, &[json!({"tool": "read_file", "input": {"path": "README.md"}})]);
    assert!(answers.iter().any(|m| m["result"]["decision"] == "allow"), "{answers:?}");
    // The exporter did connect, and is still stuck on the silent collector now that every
    // decision above has been answered: they did not wait for it.
    rx.recv_timeout(Duration::from_secs(60)).expect("the exporter never connected");
    assert!(w.exporter_running(), "the exporter should still be waiting on the silent collector");
    let pid = std::fs::read_to_string(w.wicket_home().join("otel/lock")).unwrap();
    // It is ours to end: the test's wicket started it.
    let pid: i32 = pid.trim().parse().unwrap();
    let _ = Command::new("kill").arg(pid.to_string()).status();
    // Nothing was acknowledged, so nothing is recorded as sent.
    assert!(
        !w.wicket_home().join("otel/exported").exists()
            || std::fs::read_dir(w.wicket_home().join("otel/exported")).unwrap().count() == 0
    );
}

#[test]
fn tls_trusts_the_given_ca_and_not_an_unknown_one() {
    let Some(python) = python() else { return };
    // A CA made for this run, and a certificate for localhost signed by it.
    let mut p = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    p.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    p.distinguished_name.push(rcgen::DnType::CommonName, "wicket test CA");
    p.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::DigitalSignature];
    let ca = rcgen::CertifiedIssuer::self_signed(p, rcgen::KeyPair::generate().unwrap()).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap().signed_by(&key, &ca).unwrap();

    let w = World::new("https://localhost:1", "http/protobuf");
    std::fs::create_dir_all(w.out()).unwrap();
    let (ca_file, cert_file, key_file) =
        (w.tmp.path().join("ca.pem"), w.tmp.path().join("server.pem"), w.tmp.path().join("server.key"));
    std::fs::write(&ca_file, ca.pem()).unwrap();
    std::fs::write(&cert_file, leaf.pem()).unwrap();
    std::fs::write(&key_file, key.serialize_pem()).unwrap();
    let receiver = Receiver::start_with(&python, &w.out().join("logs.json"), "http", 0, &[&cert_file, &key_file]);
    let endpoint = format!("https://localhost:{}", receiver.port);

    // The system's roots do not know this CA: nothing is sent, and the status says why.
    w.settings(json!({"telemetry": {"otlp": {"enabled": true, "endpoint": endpoint}}}));
    assert_eq!(w.claude(&w.roots[0], "Read", json!({"file_path": w.roots[0].join("README.md")})), "allow");
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = w.wicket_home().join("otel/status");
    while !std::fs::read_to_string(&status).is_ok_and(|s| s.contains("failed")) || w.exporter_running() {
        assert!(Instant::now() < deadline, "the exporter never gave up on an unknown CA");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(w.received().is_empty(), "sent to a server whose CA is not trusted");

    // With the CA given, the same lines go, once.
    w.settings(json!({"telemetry": {"otlp": {"enabled": true, "endpoint": endpoint, "certificate": ca_file}}}));
    assert_eq!(w.claude(&w.roots[0], "Read", json!({"file_path": w.roots[0].join(".env")})), "deny");
    let received = w.settle();
    assert_once_in_order(&w.local(), &received);
    receiver.stop();
}
