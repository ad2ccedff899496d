//! Nothing outlives its run: every process wicket starts for a session (the sandboxed command
//! or MCP server, bubblewrap, the Landlock fallback's helpers, the placeholders' keeper) is gone
//! once the session ends, for `wicket mcp`, `wicket run` and `wicket serve`'s `run`, on both
//! backends, however the session ends: the client closes it (end of stdin, or the command
//! ends), INT/TERM/HUP to wicket, or `kill -9` of wicket.
//!
//! Real processes: each case starts wicket on a small Python script in a world of its own, checks
//! that the script is running (found by their command lines, which name the
//! world's folder, so the scan is not blind), ends the session, waits for wicket to exit and
//! scans `/proc` for any process whose command line names the world. Where wicket ends the
//! session itself it waits for what it started, so the scan comes right after its exit; after a
//! `kill -9` (and a TERM to `serve`, which dies of it) the rest dies of the parent's death and
//! the pipe to the keeper closing, so the scan is polled for a few seconds (the keeper used to
//! linger 5 s for a next run).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rustix::process::Signal;

mod common;

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn wicket_bin() -> PathBuf {
    std::env::var_os("WICKET_BIN").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_wicket")))
}

/// Waits for a file named `go` in its folder, then exits: a command that runs until the test
/// lets it end.
const WAIT_PY: &str = "import os, time\nwhile not os.path.exists('go'):\n    time.sleep(0.02)\n";

/// After a `kill -9` nobody waits for the rest: how long it may take to die (a few seconds;
/// what is measured is ~0.2 s, and the old keeper lingered 5 s).
const AFTER_KILL: Duration = Duration::from_secs(4);

/// A project root with the scripts, a home and a wicket home, in a folder outside every temp
/// folder (the sandbox hides those) whose name no other test uses.
struct World {
    dir: PathBuf,
    root: PathBuf,
}

impl World {
    fn new() -> World {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = common::outside_temp("outlive").join(format!("w{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let root = dir.join("proj");
        for d in [&root, &dir.join("home"), &dir.join("wicket-home")] {
            std::fs::create_dir_all(d).unwrap();
        }
        // The project folder is the one folder every sandbox shows (homes are sealed).
        std::fs::write(root.join("wait.py"), WAIT_PY).unwrap();
        std::fs::write(root.join("echo_server.py"), include_str!("mcp/echo_server.py")).unwrap();
        std::fs::write(dir.join("wicket-home/settings.json"), r#"{"permissions": {"allow": ["bash(python3 *)"]}}"#)
            .unwrap();
        let root = std::fs::canonicalize(root).unwrap();
        World { dir: std::fs::canonicalize(&dir).unwrap(), root }
    }

    /// `wicket ARGS` in this world, in a session of its own (no terminal to ask on).
    fn wicket(&self, backend: &str, args: &[&str]) -> Command {
        let mut c = Command::new(wicket_bin());
        c.args(args)
            .env("HOME", self.dir.join("home"))
            .env("WICKET_HOME", self.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", backend)
            .current_dir(&self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // SAFETY: setsid only, in the forked child.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut c, || {
                rustix::process::setsid().map(|_| ()).map_err(std::io::Error::from)
            });
        }
        c
    }

    /// The live processes (not zombies, not this test) whose command line names this world.
    fn processes(&self) -> Vec<String> {
        let needle = self.dir.as_os_str().as_encoded_bytes();
        let me = std::process::id().to_string();
        let mut found = Vec::new();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let pid = e.file_name().to_string_lossy().into_owned();
            if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
                continue;
            }
            let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else { continue };
            if !cmdline.windows(needle.len()).any(|w| w == needle) {
                continue;
            }
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            if stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z')) {
                continue;
            }
            let shown = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            found.push(format!("{pid}: {}", shown.chars().take(160).collect::<String>()));
        }
        found
    }

    /// Poll (bounded) until the script `name` runs. (A placeholders' keeper runs only where no
    /// overlay can be mounted for the guarded folders; whatever runs is in the scan after.)
    fn wait_for_session(&self, name: &str, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let now = self.processes();
            // The interpreter itself (bubblewrap's command line names the script before the
            // command is allowed to start).
            let script = now.iter().any(|p| {
                let mut argv = p.split_once(": ").map_or("", |(_, c)| c).split(' ');
                argv.next().is_some_and(|a| a.rsplit('/').next().is_some_and(|f| f.starts_with("python")))
                    && argv.next() == Some(&format!("{}/{name}", self.root.display()))
            });
            if script {
                return;
            }
            assert!(Instant::now() < deadline, "{what}: the session never showed its script: {now:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Let `wait.py` end.
    fn let_command_end(&self) {
        std::fs::write(self.root.join("go"), "").unwrap();
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// How the session ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// The client closes it: the end of the gateway's or `serve`'s stdin; for `wicket run`,
    /// the command ends.
    Close,
    /// This signal to wicket.
    Signal(Signal),
    /// `kill -9` of wicket.
    Kill,
}

impl std::fmt::Display for End {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            End::Close => f.write_str("the session closed"),
            End::Signal(s) => write!(f, "signal {}", s.as_raw()),
            End::Kill => f.write_str("kill -9"),
        }
    }
}

/// Each case: how the session ends, and whether wicket ends it itself (then everything is gone
/// when it has exited) or dies of it (then the rest follows within [`AFTER_KILL`]).
const MCP: &[(End, bool)] = &[
    (End::Close, true),                // the client closes stdin
    (End::Signal(Signal::TERM), true), // passed on to the server
    (End::Signal(Signal::HUP), true),  // passed on to the server
    (End::Signal(Signal::INT), true),  // passed on to the server
    (End::Kill, false),                // the keeper sees its pipe close
];
const RUN: &[(End, bool)] = &[
    (End::Close, true),                // the command ends
    (End::Signal(Signal::TERM), true), // passed on to the command
    (End::Signal(Signal::HUP), true),  // passed on to the command
    (End::Signal(Signal::INT), true),  // passed on to the command
    (End::Kill, false),                // the keeper sees its pipe close
];
const SERVE: &[(End, bool)] = &[
    (End::Close, true),                 // the command ends, then the client closes stdin
    (End::Signal(Signal::TERM), false), // `serve` does not catch TERM: it dies of it
    (End::Kill, false),                 // the keeper sees its pipe close
];

const BACKENDS: &[&str] = &["bwrap", "landlock"];

/// End the session, wait for wicket (bounded), and check that nothing of it is left: what is.
fn end_and_check(
    w: &World,
    child: &mut Child,
    end: End,
    waits: bool,
    what: &str,
    close: impl FnOnce(&mut Child),
) -> Result<(), String> {
    let pid = rustix::process::Pid::from_child(child);
    match end {
        End::Close => close(child),
        End::Signal(sig) => rustix::process::kill_process(pid, sig).unwrap(),
        End::Kill => child.kill().unwrap(),
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what}: wicket did not exit: {:?}", w.processes());
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut left = w.processes();
    if !waits {
        let deadline = Instant::now() + AFTER_KILL;
        while !left.is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
            left = w.processes();
        }
    }
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut err);
    }
    if left.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{what}: left running after wicket exited ({status}){}:\n{}\nwicket's stderr: {err}",
        if waits { "" } else { " and a few seconds more" },
        left.join("\n")
    ))
}

/// Every case is run; the failures are reported together.
fn all_pass(failures: Vec<String>) {
    assert!(failures.is_empty(), "{} case(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn the_mcp_gateway_leaves_nothing_running() {
    let mut failures = Vec::new();
    for backend in BACKENDS {
        for &(end, waits) in MCP {
            let what = format!("wicket mcp, {backend}, {end}");
            let w = World::new();
            let server = w.root.join("echo_server.py");
            let root = w.root.to_str().unwrap().to_string();
            let mut child = w
                .wicket(backend, &["mcp", "--root", &root, "--name", "echo", "--", "python3", server.to_str().unwrap()])
                .spawn()
                .unwrap();
            let mut to = child.stdin.take().unwrap();
            let mut from = BufReader::new(child.stdout.take().unwrap());
            to.write_all(
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n",
            )
            .unwrap();
            let mut line = String::new();
            from.read_line(&mut line).unwrap();
            assert!(line.contains("\"serverInfo\""), "{what}: no answer to initialize: {line:?}");
            w.wait_for_session("echo_server.py", &what);
            let mut to = Some(to);
            failures.extend(end_and_check(&w, &mut child, end, waits, &what, |_| drop(to.take())).err());
        }
    }
    all_pass(failures);
}

#[test]
fn wicket_run_leaves_nothing_running() {
    let mut failures = Vec::new();
    for backend in BACKENDS {
        for &(end, waits) in RUN {
            let what = format!("wicket run, {backend}, {end}");
            let w = World::new();
            let script = w.root.join("wait.py");
            let root = w.root.to_str().unwrap().to_string();
            let mut c = w.wicket(backend, &["run", "--root", &root, "--", "python3", script.to_str().unwrap()]);
            c.stdin(Stdio::null()).stdout(Stdio::null());
            let mut child = c.spawn().unwrap();
            w.wait_for_session("wait.py", &what);
            failures.extend(end_and_check(&w, &mut child, end, waits, &what, |_| w.let_command_end()).err());
        }
    }
    all_pass(failures);
}

#[test]
fn a_serve_run_leaves_nothing_running() {
    let mut failures = Vec::new();
    for backend in BACKENDS {
        for &(end, waits) in SERVE {
            let what = format!("wicket serve, {backend}, {end}");
            let w = World::new();
            let script = w.root.join("wait.py");
            let root = w.root.to_str().unwrap().to_string();
            let mut child = w.wicket(backend, &["serve", "--root", &root]).spawn().unwrap();
            let mut to = child.stdin.take().unwrap();
            let request = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "run",
                "params": {"command": format!("python3 {}", script.display())}});
            to.write_all(format!("{request}\n").as_bytes()).unwrap();
            w.wait_for_session("wait.py", &what);
            let mut to = Some(to);
            let checked = end_and_check(&w, &mut child, end, waits, &what, |child| {
                // The command ends, its answer comes, then the client closes the session.
                w.let_command_end();
                let mut line = String::new();
                BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
                assert!(line.contains("\"exit_code\":0"), "the run's answer: {line:?}");
                drop(to.take());
            });
            failures.extend(checked.err());
        }
    }
    all_pass(failures);
}
