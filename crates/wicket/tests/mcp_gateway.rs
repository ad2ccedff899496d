//! `wicket mcp` between real peers: the reference MCP servers from npm
//! (`@modelcontextprotocol/server-filesystem`, `@modelcontextprotocol/server-everything`) and a
//! server built on the official Python SDK, driven by the official Python SDK client
//! (`tests/mcp/driver.py`). Allowed calls return the server's result, denied ones a tool
//! error; `initialize`, `tools/list` and notifications pass through byte for byte (checked with
//! a logging tee on both sides); wholly denied tools are hidden; the sandboxed server cannot
//! write outside the root, read a secret or reach the network, while the same attempts
//! succeed unsandboxed (the control). The peers come from `.ci/mcp-peers.sh` (`WICKET_MCP_PEERS`,
//! default `target/mcp-peers`); without them the tests skip with a message, except in CI
//! (`CI` or `WICKET_CI` set), where they fail.
//!
//! The worlds live below the target folder, not in a temp folder: temp folders are writable
//! inside the sandbox, so "outside the root" must be somewhere else.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{json, Value};

mod common;
use common::pty::{self, Spawn};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn wicket() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_wicket"))
}

/// The test servers and client, where the sandboxed servers can read them.
fn tests_dir() -> PathBuf {
    common::visible_in_sandbox(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp"), "mcp-scripts")
}

fn in_ci() -> bool {
    ["CI", "WICKET_CI"].iter().any(|v| std::env::var(v).is_ok_and(|x| !x.is_empty() && x != "0" && x != "false"))
}

/// Where `.ci/mcp-peers.sh` put the peers.
struct Peers {
    python: PathBuf,
    filesystem: PathBuf,
    everything: PathBuf,
}

fn peers() -> Option<Peers> {
    let dir = std::env::var_os("WICKET_MCP_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("../mcp-peers"));
    // The servers run in the sandbox, which hides temp folders: a copy outside them if need be.
    let dir = if dir.exists() { common::visible_in_sandbox(&dir, "mcp-peers") } else { dir };
    let npm = dir.join("npm/node_modules/@modelcontextprotocol");
    let p = Peers {
        python: dir.join("venv/bin/python"),
        filesystem: npm.join("server-filesystem/dist/index.js"),
        everything: npm.join("server-everything/dist/index.js"),
    };
    let there = [&p.python, &p.filesystem, &p.everything].iter().all(|f| f.exists())
        && Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if there {
        return Some(p);
    }
    let msg = format!("the MCP peers are not installed in {}: run .ci/mcp-peers.sh", dir.display());
    assert!(!in_ci(), "{msg} (CI must not skip these tests)");
    eprintln!("{msg}; skipped");
    None
}

/// A project root, a fake home with a secret, an outside folder, and a wicket home, below
/// the target folder.
struct World {
    dir: PathBuf,
    root: PathBuf,
    home: PathBuf,
    out: PathBuf,
}

impl World {
    fn new() -> World {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = common::outside_temp("mcp").join(format!("w{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (root, home, out) = (dir.join("proj"), dir.join("home"), dir.join("outside"));
        for d in [root.clone(), home.join(".ssh"), out.clone(), dir.join("wicket-home")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(root.join("hello.txt"), "hello from the root\n").unwrap();
        std::fs::write(root.join(".env"), "API_KEY=sk-secret\n").unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY\n").unwrap();
        let root = std::fs::canonicalize(root).unwrap();
        let out = std::fs::canonicalize(out).unwrap();
        World { dir, root, home, out }
    }

    /// `wicket mcp --root ROOT <flags> -- <server>` as an argv.
    fn gateway(&self, flags: &[&str], server: &[&str]) -> Vec<String> {
        let mut v = vec![wicket().to_string_lossy().into_owned(), "mcp".into(), "--root".into()];
        v.push(self.root.to_string_lossy().into_owned());
        v.extend(flags.iter().map(|s| s.to_string()));
        v.push("--".into());
        v.extend(server.iter().map(|s| s.to_string()));
        v
    }

    fn env(&self, c: &mut Command) {
        c.env("HOME", &self.home)
            .env("WICKET_HOME", self.dir.join("wicket-home"))
            .env("WICKET_TEST_SECRET", "hunter2")
            .env("CWD", &self.root)
            .current_dir(&self.root)
            .stdin(Stdio::null());
    }

    /// Run the SDK client driver on `cmd` with a scenario; its JSON report. `setsid` takes the
    /// controlling terminal away, so wicket can only ask through the client.
    fn drive(&self, peers: &Peers, cmd: &[String], caps: &str, answers: &[&str], scenario: &str) -> Value {
        self.drive_with(peers, cmd, caps, answers, scenario, &[])
    }

    fn drive_with(
        &self,
        peers: &Peers,
        cmd: &[String],
        caps: &str,
        answers: &[&str],
        scenario: &str,
        env: &[(&str, &str)],
    ) -> Value {
        let file = self.dir.join(format!("scenario-{}.py", COUNTER.fetch_add(1, Ordering::SeqCst)));
        std::fs::write(&file, scenario).unwrap();
        let mut c = Command::new("setsid");
        c.arg("-w").arg(&peers.python).arg(tests_dir().join("driver.py")).arg(&file);
        self.env(&mut c);
        c.env("CMD", serde_json::to_string(cmd).unwrap()).env("CAPS", caps).env("ANSWERS", json!(answers).to_string());
        c.envs(env.iter().copied());
        let out = c.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "driver failed: {}\nstderr: {stderr}", out.status);
        let line = String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or_default().to_string();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("driver printed {line:?} ({e}); stderr: {stderr}"))
    }

    fn tee(&self, log: &str) -> Vec<String> {
        vec![
            "python3".into(),
            tests_dir().join("tee.py").to_string_lossy().into_owned(),
            self.dir.join(log).to_string_lossy().into_owned(),
        ]
    }

    fn log_lines(&self, log: &str) -> Vec<String> {
        std::fs::read_to_string(self.dir.join(log)).unwrap_or_default().lines().map(String::from).collect()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn s(x: &Path) -> String {
    x.to_string_lossy().into_owned()
}

/// The logged line of a message with this method (or, for `S>`, answering this id).
fn find<'a>(lines: &'a [String], prefix: &str, needle: &str) -> Option<&'a String> {
    lines.iter().find(|l| l.starts_with(prefix) && l.contains(needle))
}

#[test]
fn filesystem_server_allowed_denied_hidden_and_passed_through_untouched() {
    let Some(p) = peers() else { return };
    let w = World::new();
    // The server-side tee runs inside the sandbox, so its log lives in the (writable) root.
    let server_log = w.root.join("server.log");
    let mut server = vec!["python3".to_string(), s(&tests_dir().join("tee.py")), s(&server_log)];
    server.extend(["node".to_string(), s(&p.filesystem), s(&w.root)]);
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let mut cmd = w.tee("client.log");
    cmd.extend(w.gateway(
        &[
            "--name",
            "fs",
            "--allow",
            "mcp__fs__*",
            "--deny",
            "mcp__fs__move_file",
            "--deny",
            "mcp__fs__write_file(**/blocked*)",
        ],
        &server,
    ));
    let scenario = format!(
        r#"
async def scenario(s):
    out = {{}}
    out["init"] = dump(await s.initialize())
    out["tools"] = [t.name for t in (await s.list_tools()).tools]
    out["read"] = await call(s, "read_text_file", {{"path": "{root}/hello.txt"}})
    out["write"] = await call(s, "write_file", {{"path": "{root}/new.txt", "content": "written"}})
    out["blocked_write"] = await call(s, "write_file", {{"path": "{root}/blocked.txt", "content": "x"}})
    out["secret"] = await call(s, "read_text_file", {{"path": "{root}/.env"}})
    out["hidden"] = await call(s, "move_file", {{"source": "{root}/hello.txt", "destination": "{root}/moved.txt"}})
    return out
"#,
        root = s(&w.root)
    );
    let v = w.drive(&p, &cmd, "", &[], &scenario);
    let out = &v["out"];
    assert_eq!(out["init"]["serverInfo"]["name"], "secure-filesystem-server", "{v}");
    let tools: Vec<&str> = out["tools"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert!(tools.contains(&"read_text_file") && tools.contains(&"write_file"), "{tools:?}");
    assert!(!tools.contains(&"move_file"), "a tool a deny rule removes entirely is hidden: {tools:?}");
    assert_eq!(out["read"], json!({"is_error": false, "text": "hello from the root\n"}), "{v}");
    assert_eq!(out["write"]["is_error"], false, "{v}");
    assert_eq!(std::fs::read_to_string(w.root.join("new.txt")).unwrap(), "written");
    for denied in ["blocked_write", "secret", "hidden"] {
        assert_eq!(out[denied]["is_error"], true, "{denied}: {v}");
        assert!(out[denied]["text"].as_str().unwrap().starts_with("Blocked by wicket"), "{denied}: {v}");
    }
    assert!(!w.root.join("blocked.txt").exists() && !w.root.join("moved.txt").exists());

    // Byte for byte: what the client sent reached the server unchanged, and back.
    let client = w.log_lines("client.log");
    let server = std::fs::read_to_string(&server_log).unwrap().lines().map(String::from).collect::<Vec<_>>();
    for method in ["\"method\":\"initialize\"", "\"method\":\"notifications/initialized\"", "\"method\":\"tools/list\""]
    {
        let c = find(&client, "C> ", method).unwrap_or_else(|| panic!("{method} not sent: {client:?}"));
        assert_eq!(Some(c), find(&server, "C> ", method), "{method} passes through untouched");
    }
    let init_reply = find(&server, "S> ", "secure-filesystem-server").unwrap();
    assert_eq!(Some(init_reply), find(&client, "S> ", "secure-filesystem-server"), "initialize result untouched");
    assert!(find(&server, "S> ", "move_file").is_some() && find(&client, "S> ", "\"move_file\"").is_none());
    // Denied calls never reached the server.
    for never in [".env", "blocked.txt", "moved.txt"] {
        assert!(find(&server, "C> ", never).is_none(), "{never} reached the server: {server:?}");
    }
    assert!(find(&server, "C> ", "hello.txt").is_some());
}

#[test]
fn everything_server_asks_through_elicitation_and_relays_server_requests() {
    let Some(p) = peers() else { return };
    let w = World::new();
    let allow = [
        "--allow",
        "mcp__ev__echo",
        "--allow",
        "mcp__ev__get-env",
        "--allow",
        "mcp__ev__trigger-sampling-request",
        "--allow",
        "mcp__ev__get-roots-list",
        "--allow",
        "mcp__ev__trigger-elicitation-request",
    ];
    let mut flags = vec!["--name", "ev"];
    flags.extend(allow);
    let everything = ["node", p.everything.to_str().unwrap(), "stdio"];
    let cmd = w.gateway(&flags, &everything);
    let scenario = r#"
async def scenario(s):
    out = {}
    await s.initialize()
    out["tools"] = [t.name for t in (await s.list_tools()).tools]
    out["echo"] = await call(s, "echo", {"message": "hi"})
    out["env"] = await call(s, "get-env", {})
    out["sampling"] = await call(s, "trigger-sampling-request", {"prompt": "hi"})
    out["roots"] = await call(s, "get-roots-list", {})
    out["server_elicit"] = await call(s, "trigger-elicitation-request", {})
    out["sum_once"] = await call(s, "get-sum", {"a": 1, "b": 2})
    out["sum_denied"] = await call(s, "get-sum", {"a": 1, "b": 2})
    out["sum_declined"] = await call(s, "get-sum", {"a": 1, "b": 2})
    out["image_session"] = await call(s, "get-tiny-image", {})
    out["image_again"] = await call(s, "get-tiny-image", {})
    return out
"#;
    let v = w.drive(&p, &cmd, "elicitation,sampling,roots", &["once", "deny", "decline", "session"], scenario);
    let out = &v["out"];
    assert!(out["tools"].as_array().unwrap().contains(&json!("trigger-elicitation-request")), "{v}");
    assert_eq!(out["echo"], json!({"is_error": false, "text": "Echo: hi"}), "{v}");
    let env = out["env"]["text"].as_str().unwrap();
    assert!(env.contains("\"HOME\"") && !env.contains("hunter2"), "the sandbox passes only allowed variables: {env}");
    assert!(out["sampling"]["text"].as_str().unwrap().contains("sampled!"), "server→client sampling relayed: {v}");
    assert_eq!(v["sampled"].as_array().unwrap().len(), 1, "{v}");
    assert!(out["roots"]["text"].as_str().unwrap().contains("wicket-test-root"), "roots/list relayed: {v}");
    assert_eq!(
        v["server_elicits"].as_array().unwrap().len(),
        1,
        "the server's own elicitation reached the client: {v}"
    );
    assert_eq!(out["sum_once"]["is_error"], false, "{v}");
    assert!(out["sum_once"]["text"].as_str().unwrap().contains('3'), "{v}");
    for denied in ["sum_denied", "sum_declined"] {
        assert_eq!(out[denied]["is_error"], true, "{denied}: {v}");
        assert!(out[denied]["text"].as_str().unwrap().contains("the person said no"), "{denied}: {v}");
    }
    assert_eq!(out["image_session"]["is_error"], false, "{v}");
    assert_eq!(out["image_again"]["is_error"], false, "{v}");
    let asked = v["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 4, "the session answer holds without a new question: {v}");
    assert!(asked[0]["message"].as_str().unwrap().contains("mcp__ev__get-sum"), "{v}");
    let notes: Vec<&str> = v["notes"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(notes.contains(&"notifications/tools/list_changed"), "server notifications pass through: {notes:?}");

    // The control: directly, the server sees the variable the sandbox withheld.
    let direct: Vec<String> = everything.iter().map(|x| x.to_string()).collect();
    let scenario = "async def scenario(s):\n    await s.initialize()\n    return await call(s, 'get-env', {})\n";
    let d = w.drive(&p, &direct, "", &[], scenario);
    assert!(d["out"]["text"].as_str().unwrap().contains("hunter2"), "{d}");
}

#[test]
fn without_a_terminal_or_elicitation_a_question_is_a_denial() {
    let Some(p) = peers() else { return };
    let w = World::new();
    let cmd = w.gateway(&["--name", "ev"], &["node", p.everything.to_str().unwrap(), "stdio"]);
    let scenario =
        "async def scenario(s):\n    await s.initialize()\n    return await call(s, 'echo', {'message': 'x'})\n";
    let v = w.drive(&p, &cmd, "", &[], scenario);
    assert_eq!(v["out"]["is_error"], true, "{v}");
    assert!(v["out"]["text"].as_str().unwrap().contains("nobody can be asked"), "{v}");
}

/// An allow rule for every tool of the real filesystem server does not switch off the argument
/// checks: the server, told it may serve the root and a sibling folder whose name starts with
/// the root's (`proj_evil`, the CVE-2025-53110 shape), would read the sibling (the control, a
/// gateway rooted there, does), yet through a gateway rooted at `proj` the read never reaches
/// it; nor do a `search_and_replace`-style write into `.git` and a `file:` URL to a key.
#[test]
fn an_mcp_allow_rule_keeps_the_argument_checks() {
    let Some(p) = peers() else { return };
    let w = World::new();
    let evil = w.dir.join("proj_evil");
    std::fs::create_dir_all(&evil).unwrap();
    let evil = std::fs::canonicalize(evil).unwrap();
    std::fs::write(evil.join("notes.txt"), "outside the root\n").unwrap();
    std::fs::create_dir_all(w.root.join(".git")).unwrap();
    std::fs::write(w.root.join(".git/config"), "[core]\n").unwrap();
    let server = ["node".to_string(), s(&p.filesystem), s(&w.root), s(&evil)];
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let scenario = format!(
        r#"
async def scenario(s):
    out = {{}}
    await s.initialize()
    out["inside"] = await call(s, "read_text_file", {{"path": "{root}/hello.txt"}})
    out["sibling"] = await call(s, "read_text_file", {{"path": "{evil}/notes.txt"}})
    out["climb"] = await call(s, "list_directory", {{"path": "{root}/../proj_evil"}})
    out["git"] = await call(s, "edit_file", {{"path": "{root}/.git/config", "edits": [{{"oldText": "[core]", "newText": "[core]\\n\\tfsmonitor = touch pwned"}}]}})
    return out
"#,
        root = s(&w.root),
        evil = s(&evil)
    );
    // The server-side tee runs inside the sandbox, so its log lives in the (writable) root.
    let log = w.root.join("server.log");
    let mut tee = vec!["python3".to_string(), s(&tests_dir().join("tee.py")), s(&log)];
    tee.extend(server.iter().map(|x| x.to_string()));
    let tee: Vec<&str> = tee.iter().map(String::as_str).collect();
    let v = w.drive(&p, &w.gateway(&["--name", "fs", "--allow", "mcp__fs__*"], &tee), "", &[], &scenario);
    let out = &v["out"];
    assert_eq!(out["inside"], json!({"is_error": false, "text": "hello from the root\n"}), "{v}");
    for denied in ["sibling", "climb", "git"] {
        assert_eq!(out[denied]["is_error"], true, "{denied}: {v}");
        assert!(out[denied]["text"].as_str().unwrap().starts_with("Blocked by wicket"), "{denied}: {v}");
    }
    let seen = std::fs::read_to_string(&log).unwrap();
    assert!(!seen.contains("notes.txt") && !seen.contains("proj_evil\"") && !seen.contains("fsmonitor"), "{seen}");
    assert_eq!(std::fs::read_to_string(w.root.join(".git/config")).unwrap(), "[core]\n");

    // The control: the same server serves the sibling when the gateway's root is the sibling.
    let control = format!(
        "async def scenario(s):\n    await s.initialize()\n    return await call(s, 'read_text_file', {{'path': {:?}}})\n",
        s(&evil.join("notes.txt"))
    );
    let mut gw = vec![wicket().to_string_lossy().into_owned(), "mcp".into(), "--root".into(), s(&evil)];
    gw.extend(["--name", "fsctl", "--allow", "mcp__fsctl__*", "--"].map(String::from));
    gw.extend(server.iter().map(|x| x.to_string()));
    let c = w.drive(&p, &gw, "", &[], &control);
    assert_eq!(c["out"], json!({"is_error": false, "text": "outside the root\n"}), "the control must read it: {c}");
}

/// One line a case: an attempt, run by a server the gate cannot see into.
const PROBES: &[&str] = &["read_secret", "write_outside", "env_secret", "network"];

#[test]
fn the_sandboxed_server_cannot_escape() {
    let Some(p) = peers() else { return };
    let w = World::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    std::thread::spawn(move || for _ in listener.incoming() {});
    let probe = [s(&p.python), s(&tests_dir().join("probe_server.py")), s(&w.out), port];
    let probe: Vec<&str> = probe.iter().map(String::as_str).collect();
    let attempts: Vec<String> =
        PROBES.iter().map(|a| format!("    out[{a:?}] = await call(s, 'probe', {{'attempt': {a:?}}})\n")).collect();
    let scenario = format!(
        "async def scenario(s):\n    out = {{}}\n    await s.initialize()\n{}    return out\n",
        attempts.concat()
    );
    let sandboxed = w.gateway(&["--name", "probe", "--allow", "mcp__probe__probe"], &probe);
    let control = w.gateway(&["--name", "probectl", "--no-sandbox", "--allow", "mcp__probectl__probe"], &probe);
    let c = w.drive(&p, &control, "", &[], &scenario);
    for backend in ["bwrap", "landlock"] {
        let v = w.drive_with(&p, &sandboxed, "", &[], &scenario, &[("WICKET_SANDBOX_BACKEND", backend)]);
        for a in PROBES {
            let text = v["out"][a]["text"].as_str().unwrap_or_default();
            assert!(text.starts_with("BLOCKED"), "{backend}, {a}: the sandboxed server escaped: {v}");
            let ctl = c["out"][a]["text"].as_str().unwrap_or_default();
            assert!(ctl.starts_with("ESCAPED"), "{a}: the control must succeed, else the test proves nothing: {c}");
        }
    }
    let _ = std::fs::remove_file(w.out.join("pwned.txt"));
    // server-filesystem, allowed by its own allowed folders and by an `mcp__fs__*` rule, still
    // cannot write outside the root: the gate refuses the path argument before the server
    // sees it (the sandbox, tested by the probes above, is the second wall).
    let fs_server = ["node", p.filesystem.to_str().unwrap(), w.root.to_str().unwrap(), w.out.to_str().unwrap()];
    let scenario = format!(
        "async def scenario(s):\n    await s.initialize()\n    return {{'out': await call(s, 'write_file', {{'path': {:?}, 'content': 'x'}}), 'in': await call(s, 'write_file', {{'path': {:?}, 'content': 'x'}})}}\n",
        s(&w.out.join("fs.txt")),
        s(&w.root.join("fs.txt"))
    );
    let v = w.drive(&p, &w.gateway(&["--name", "fs", "--allow", "mcp__fs__*"], &fs_server), "", &[], &scenario);
    assert_eq!(v["out"]["out"]["is_error"], true, "{v}");
    assert!(v["out"]["out"]["text"].as_str().unwrap().starts_with("Blocked by wicket"), "{v}");
    assert!(!w.out.join("fs.txt").exists(), "server-filesystem wrote outside the root");
    assert_eq!(v["out"]["in"]["is_error"], false, "{v}");
    // The control: unsandboxed, with a root that holds both folders, the server writes there.
    let mut control = vec![wicket().to_string_lossy().into_owned(), "mcp".into(), "--root".into(), s(&w.dir)];
    control.extend(["--name", "fsctl", "--no-sandbox", "--allow", "mcp__fsctl__*", "--"].map(String::from));
    control.extend(fs_server.iter().map(|x| x.to_string()));
    let c = w.drive(&p, &control, "", &[], &scenario);
    assert_eq!(c["out"]["out"]["is_error"], false, "the control writes outside: {c}");
    assert!(w.out.join("fs.txt").exists());
}

/// What a sandboxed server leaves that some program runs at the person's next step (a new
/// `.envrc` in a subfolder, a change to `package.json`) is held for a person when the server
/// ends, as after a `wicket run`; unsandboxed (the control) it stays.
#[test]
fn code_running_files_a_sandboxed_server_leaves_are_held() {
    let Some(p) = peers() else { return };
    let w = World::new();
    std::fs::create_dir_all(w.root.join("sub")).unwrap();
    let probe = [s(&p.python), s(&tests_dir().join("probe_server.py")), s(&w.out), "0".into()];
    let probe: Vec<&str> = probe.iter().map(String::as_str).collect();
    let scenario = format!(
        "async def scenario(s):\n    await s.initialize()\n    return [await call(s, 'probe', {{'attempt': 'write:' + p}}) for p in ({:?}, {:?})]\n",
        s(&w.root.join("sub/.envrc")),
        s(&w.root.join("package.json"))
    );
    let sandboxed = w.gateway(&["--name", "probe", "--allow", "mcp__probe__probe"], &probe);
    for backend in ["bwrap", "landlock"] {
        std::fs::write(w.root.join("package.json"), "before").unwrap();
        let v = w.drive_with(&p, &sandboxed, "", &[], &scenario, &[("WICKET_SANDBOX_BACKEND", backend)]);
        assert!(v.to_string().contains("ESCAPED"), "{backend}: the server wrote nothing: {v}");
        assert!(!w.root.join("sub/.envrc").exists(), "{backend}: the new .envrc was left in the project: {v}");
        assert_eq!(std::fs::read_to_string(w.root.join("package.json")).unwrap(), "before", "{backend}: {v}");
    }
    let control = w.gateway(&["--name", "probectl", "--no-sandbox", "--allow", "mcp__probectl__probe"], &probe);
    w.drive(&p, &control, "", &[], &scenario);
    assert!(w.root.join("sub/.envrc").exists(), "the control must write, else the test proves nothing");
    assert_eq!(std::fs::read_to_string(w.root.join("package.json")).unwrap(), "run me");
}

fn run_gateway(w: &World, flags: &[&str], server: &[&str]) -> Output {
    let argv = w.gateway(flags, server);
    let mut c = Command::new("setsid");
    c.arg("-w").args(&argv);
    w.env(&mut c);
    c.output().unwrap()
}

#[test]
fn a_changed_server_definition_is_refused_until_pinned() {
    let Some(p) = peers() else { return };
    let w = World::new();
    let server = ["node", p.everything.to_str().unwrap(), "stdio"];
    let first = run_gateway(&w, &["--name", "ev"], &server);
    assert!(first.status.success(), "{first:?}");
    assert!(String::from_utf8_lossy(&first.stderr).contains("pinned the MCP server \"ev\""), "{first:?}");
    let again = run_gateway(&w, &["--name", "ev"], &server);
    assert!(again.status.success(), "{again:?}");
    // Another argument, or a loosening flag, is another definition.
    for (flags, srv) in [
        (vec!["--name", "ev"], vec!["node", p.everything.to_str().unwrap(), "stdio", "--x"]),
        (vec!["--name", "ev", "--network"], server.to_vec()),
    ] {
        let changed = run_gateway(&w, &flags, &srv);
        let err = String::from_utf8_lossy(&changed.stderr);
        assert_eq!(changed.status.code(), Some(126), "{err}");
        assert!(err.contains("changed since you pinned it") && err.contains("wicket mcp --pin --name ev"), "{err}");
    }
    let mut pin = vec!["--pin", "--name", "ev"];
    pin.push("--network");
    let pinned = run_gateway(&w, &pin, &server);
    assert!(pinned.status.success(), "{pinned:?}");
    let now = run_gateway(&w, &["--name", "ev", "--network"], &server);
    assert!(now.status.success(), "{now:?}");
    let list =
        Command::new(wicket()).args(["trust", "list"]).env("WICKET_HOME", w.dir.join("wicket-home")).output().unwrap();
    assert!(String::from_utf8_lossy(&list.stdout).contains("mcp_server \"ev\""), "{list:?}");
}

/// A small stdio server (system python3) that logs every line it gets, answers `echo`, sends
/// junk and a stray response first, and dies on `crash`.
const RAW_SERVER: &str = r#"
import json, sys
log = open(sys.argv[1], "a", buffering=1)
for line in sys.stdin:
    log.write(line)
    m = json.loads(line)
    if m.get("method") == "tools/call":
        if m["params"]["name"] == "crash":
            sys.exit(3)
        print("this is not JSON", flush=True)
        print(json.dumps({"jsonrpc": "2.0", "id": 999, "result": {}}), flush=True)
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"content": [{"type": "text", "text": "echoed"}]}}), flush=True)
    elif "id" in m and "method" in m:
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {}}), flush=True)
"#;

#[test]
fn malformed_messages_fail_closed_and_a_crash_answers_pending_calls() {
    // No npm peers needed: the client is this test, the server a small python3 script.
    let w = World::new();
    let script = w.dir.join("raw_server.py");
    std::fs::write(&script, RAW_SERVER).unwrap();
    let seen = w.root.join("seen.log");
    let argv = w.gateway(
        &["--name", "raw", "--allow", "mcp__raw__*"],
        &["python3", script.to_str().unwrap(), seen.to_str().unwrap()],
    );
    let mut c = Command::new(&argv[0]);
    c.args(&argv[1..]);
    w.env(&mut c);
    let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(serde_json::from_str::<Value>(&line).unwrap_or(Value::String(line)));
        }
    });
    // A guard against a hang, not a timing assertion.
    let next = || rx.recv_timeout(Duration::from_secs(60)).expect("an answer from wicket mcp");
    let mut send = |line: &str| {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    };
    let cases: &[(&str, Value)] = &[
        ("not json", json!({"id": null, "code": -32700})),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[1]}}"#,
            json!({"id": 1, "code": -32602}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{}}}"#,
            json!({"id": 2, "code": -32602}),
        ),
        (
            r#"[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}]"#,
            json!({"id": 3, "code": -32600}),
        ),
        (
            r#"{"jsonrpc":"1.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#,
            json!({"id": 4, "code": -32600}),
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#,
            json!({"id": null, "code": -32600}),
        ),
    ];
    // A tools/call without an id gets no answer and is never forwarded.
    send(r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"note":"notification"}}}"#);
    for (line, want) in cases {
        send(line);
        let got = next();
        assert_eq!(got["id"], want["id"], "{line} → {got}");
        assert_eq!(got["error"]["code"], want["code"], "{line} → {got}");
    }
    send(r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}"#);
    let echoed = next();
    assert_eq!(
        echoed,
        json!({"jsonrpc": "2.0", "id": 10, "result": {"content": [{"type": "text", "text": "echoed"}]}}),
        "junk and the stray response 999 were dropped"
    );
    send(r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"crash","arguments":{}}}"#);
    let crashed = next();
    assert_eq!(crashed["id"], 11, "{crashed}");
    assert!(crashed["error"]["message"].as_str().unwrap().contains("exited before answering"), "{crashed}");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(3), "the gateway exits with the crashed server's status");
    let seen = std::fs::read_to_string(&seen).unwrap();
    let ids: Vec<Value> = seen.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].clone()).collect();
    assert_eq!(ids, vec![json!(10), json!(11)], "only the decided calls reached the server: {seen}");
    // Every decision is in the audit log, under the server's tool names.
    let audit = w.dir.join("wicket-home/audit");
    let mut text = String::new();
    let mut dirs = vec![audit];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                dirs.push(e.path());
            } else {
                text.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
    }
    assert!(text.contains("mcp__raw__echo") && text.contains("mcp__raw__crash"), "{text}");
    assert!(text.contains("a tools/call without an id"), "{text}");
}

/// With `network.allow` (here: a pinned name), the sandboxed server reaches the network only
/// through wicket's allowlist proxy: the pinned name answers, an unlisted one gets 403, and a
/// direct connection still fails.
#[test]
fn the_sandboxed_server_reaches_only_allowed_hosts_through_the_proxy() {
    let Some(p) = peers() else { return };
    let w = World::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(mut s) = s else { continue };
            let mut buf = [0u8; 4096];
            let _ = std::io::Read::read(&mut s, &mut buf);
            let _ = std::io::Write::write_all(&mut s, b"HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello");
        }
    });
    std::fs::write(
        w.dir.join("wicket-home/settings.json"),
        json!({"network": {"ports": [port], "addresses": {"allowed.test": ["127.0.0.1"]}}}).to_string(),
    )
    .unwrap();
    let probe = [s(&p.python), s(&tests_dir().join("probe_server.py")), s(&w.out), port.to_string()];
    let probe: Vec<&str> = probe.iter().map(String::as_str).collect();
    let scenario = format!(
        "async def scenario(s):\n    await s.initialize()\n    return {{'allowed': await call(s, 'probe', {{'attempt': 'fetch:http://allowed.test:{port}/'}}), 'unlisted': await call(s, 'probe', {{'attempt': 'fetch:http://unlisted.example/'}}), 'direct': await call(s, 'probe', {{'attempt': 'network'}})}}\n"
    );
    // The proxy never connects to this machine but for the debug build's test seam, which names
    // this server's exact address and port.
    let origin = format!("127.0.0.1:{port}");
    let gateway = w.gateway(&["--name", "netprobe", "--allow", "mcp__netprobe__probe"], &probe);
    let v = w.drive_with(&p, &gateway, "", &[], &scenario, &[("WICKET_NET_TEST_ORIGINS", &origin)]);
    let text = |k: &str| v["out"][k]["text"].as_str().unwrap_or_default().to_string();
    assert_eq!(text("allowed"), "ESCAPED 200 hello", "{v}");
    assert!(text("unlisted").starts_with("BLOCKED") && text("unlisted").contains("403"), "{v}");
    assert!(text("direct").starts_with("BLOCKED"), "{v}");
}

/// With no elicitation from the client but a terminal, a call that asks is asked there (a real
/// pty): "y" forwards it once, "n" answers the model a tool error and never reaches the server,
/// "s" forwards it and the same call is not asked about again.
#[test]
fn without_elicitation_the_person_is_asked_on_the_terminal() {
    // No npm peers needed: the client is this test, the server the small python3 script.
    let w = World::new();
    let script = w.dir.join("raw_server.py");
    std::fs::write(&script, RAW_SERVER).unwrap();
    let seen = w.root.join("seen.log");
    let argv = w.gateway(&["--name", "raw"], &["python3", script.to_str().unwrap(), seen.to_str().unwrap()]);
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]);
    w.env(&mut cmd);
    cmd.env("TERM", "dumb");
    let mut child = pty::spawn(cmd, Spawn { stdin: None, stream_stdout: true, ..Default::default() });
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pty-test", "version": "1"}}});
    child.send_line(&init.to_string());
    assert_eq!(serde_json::from_str::<Value>(&child.next_line()).unwrap()["id"], 0);
    child.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let call = |id: u64, note: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"note": note}}})
            .to_string()
    };
    let prompt = "[n] deny (default) > ";
    let answered = |child: &mut common::pty::PtyChild, id: u64, note: &str, keys: Option<&[u8]>, asked: usize| {
        child.send_line(&call(id, note));
        if let Some(keys) = keys {
            let screen = child.wait_for(prompt, asked);
            assert!(screen.contains("mcp__raw__echo"), "the question names the tool:\n{screen}");
            child.type_keys(keys);
        }
        let reply: Value = serde_json::from_str(&child.next_line()).unwrap();
        assert_eq!(reply["id"], id, "{reply}");
        reply
    };
    let once = answered(&mut child, 1, "once", Some(b"y\n"), 1);
    assert_eq!(once["result"]["content"][0]["text"], "echoed", "{once}");
    let denied = answered(&mut child, 2, "denied", Some(b"n\n"), 2);
    assert_eq!(denied["result"]["isError"], true, "{denied}");
    let session = answered(&mut child, 3, "session", Some(b"s\n"), 3);
    assert_eq!(session["result"]["content"][0]["text"], "echoed", "{session}");
    // The same call again: allowed for the session, no fourth question.
    let again = answered(&mut child, 4, "session", None, 0);
    assert_eq!(again["result"]["content"][0]["text"], "echoed", "{again}");
    let (out, screen) = child.finish();
    assert_eq!(screen.matches(prompt).count(), 3, "{screen}");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let notes: Vec<Value> = std::fs::read_to_string(&seen)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|m| m["method"] == "tools/call")
        .map(|m| m["params"]["arguments"]["note"].clone())
        .collect();
    assert_eq!(notes, [json!("once"), json!("session"), json!("session")], "the refused call never reached the server");
}

/// The question the gateway puts through elicitation shows a file write as the change itself
/// (a diff of the file now and after), and a new file as its lines.
#[test]
fn an_elicitation_for_a_write_shows_the_change() {
    let Some(p) = peers() else { return };
    let w = World::new();
    let server = ["node".to_string(), s(&p.filesystem), s(&w.root)];
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let cmd = w.gateway(&["--name", "fs"], &server);
    let scenario = format!(
        r#"
async def scenario(s):
    await s.initialize()
    return {{
        "edit": await call(s, "write_file", {{"path": "{root}/hello.txt", "content": "hello from wicket\n"}}),
        "new": await call(s, "write_file", {{"path": "{root}/fresh.txt", "content": "one\ntwo\n"}}),
    }}
"#,
        root = s(&w.root)
    );
    let v = w.drive(&p, &cmd, "elicitation", &["once", "deny"], &scenario);
    let asked = v["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 2, "{v}");
    let first = asked[0]["message"].as_str().unwrap();
    assert!(
        first.contains("The change to")
            && first.contains("-hello from the root")
            && first.contains("+hello from wicket"),
        "{first}"
    );
    let second = asked[1]["message"].as_str().unwrap();
    assert!(second.contains("The new file") && second.contains("+one\n+two"), "{second}");
    assert_eq!(std::fs::read_to_string(w.root.join("hello.txt")).unwrap(), "hello from wicket\n");
    assert!(!w.root.join("fresh.txt").exists(), "the second was refused");
}

/// A sandboxed server with no network that dies before answering (as `npx -y …` does when it
/// cannot fetch the package) is reported with the likely reason and the ways out, to the client
/// and on stderr; with --network the words are not said.
#[test]
fn a_server_that_dies_offline_is_reported_with_the_way_out() {
    let w = World::new();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let run = |flags: &[&str]| {
        let argv = w.gateway(flags, &["sh", "-c", "sleep 0.3; exit 3"]);
        let mut c = Command::new(&argv[0]);
        c.args(&argv[1..]);
        w.env(&mut c);
        let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, format!("{init}\n").as_bytes()).unwrap();
        // The client stays connected until the server is gone: its input closes only then.
        let out = child.wait_with_output().unwrap();
        drop(stdin);
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (stdout, stderr) = run(&["--name", "dies"]);
    assert!(stdout.contains("exited before answering") && stdout.contains("no network at all"), "{stdout}\n{stderr}");
    assert!(stdout.contains("--network") && stdout.contains("wicket registries --allow"), "{stdout}");
    let (stdout, _) = run(&["--name", "dies2", "--network"]);
    assert!(stdout.contains("exited before answering") && !stdout.contains("no network at all"), "{stdout}");
}

/// With `network.allow` set, a server that dies after the proxy refused its registry (as `npx -y`
/// does when its registry is not listed) is reported to the client, which never sees the
/// gateway's stderr, with the refused host and the ways to allow it. The Landlock fallback
/// cannot serve `network.allow`: there the server had no network at all, and the client is told.
#[test]
fn a_server_refused_its_registry_is_reported_with_the_host_and_the_way_out() {
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        std::fs::write(w.dir.join("wicket-home/settings.json"), r#"{"network": {"allow": ["cargo"]}}"#).unwrap();
        // The registry npx asks first, through the proxy the sandbox's environment names.
        let fetch =
            "curl -sS -o /dev/null https://registry.npmjs.org/@modelcontextprotocol%2fserver-filesystem; exit 3";
        let argv = w.gateway(&["--name", "fetches"], &["sh", "-c", fetch]);
        let mut c = Command::new(&argv[0]);
        c.args(&argv[1..]);
        w.env(&mut c);
        c.env("WICKET_SANDBOX_BACKEND", backend);
        let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, format!("{init}\n").as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        drop(stdin);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(
            stdout.contains("exited before answering") && stdout.contains("--network"),
            "{backend}: {stdout}\n{stderr}"
        );
        if backend == "bwrap" {
            assert!(
                stdout.contains("the sandbox refused it registry.npmjs.org:443")
                    && stdout.contains("add the preset `npm` to network.allow"),
                "{backend}: {stdout}\n{stderr}"
            );
        } else {
            assert!(stdout.contains("no network at all"), "{backend}: {stdout}\n{stderr}");
        }
    }
}
