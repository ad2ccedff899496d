//! `wicket run` under signals and closed pipes, as real processes: a command whose reader went
//! away ends as it would without wicket (`yes | head`), INT and TERM to wicket end the whole
//! command tree in the sandbox and on the host and the run is still recorded, and a wicket
//! killed outright takes its host command with it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    // The scripts write their markers in a folder that exists: the project's own new top-level
    // entries stay in the sandbox's overlay until the run ends, and a killed run's with it.
    std::fs::create_dir_all(root.join("out")).unwrap();
    std::fs::create_dir_all(home.join(".wicket")).unwrap();
    // The user's own rules (no consent needed) allow the commands on the host too.
    std::fs::write(
        home.join(".wicket/settings.json"),
        r#"{"permissions": {"allow": ["bash(yes)", "bash(sh *)", "bash(sleep *)", "bash(touch *)", "bash(echo *)", "bash(setsid *)"]}}"#,
    )
    .unwrap();
    World { _tmp: tmp, root, home }
}

fn wicket(w: &World, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wicket"));
    c.args(args)
        .env("WICKET_HOME", w.home.join(".wicket"))
        .env("HOME", &w.home)
        .current_dir(&w.root)
        .stdin(Stdio::null());
    c
}

/// Each way a command runs: its name, the flags (on the host, the markers the scripts write
/// inside the project need accept-edits), and the sandbox backend it forces (empty: the one
/// wicket picks, bubblewrap here).
const MODES: &[(&str, &[&str], &str)] = &[
    ("bubblewrap", &[], ""),
    ("the Landlock fallback", &[], "landlock"),
    ("the host", &["--no-sandbox", "--mode", "accept-edits"], ""),
];

/// Force `backend` (when not empty) on a command that starts wicket.
fn with_backend<'c>(c: &'c mut Command, backend: &str) -> &'c mut Command {
    if !backend.is_empty() {
        c.env("WICKET_SANDBOX_BACKEND", backend);
    }
    c
}

fn wait_bounded(child: &mut Child, bound: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    while start.elapsed() < bound {
        if let Some(s) = child.try_wait().unwrap() {
            return Some(s);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Wait until the command made `path`; if it never does, say what wicket printed.
fn wait_for(path: &Path, child: &mut Child) {
    let start = Instant::now();
    while !path.exists() {
        if start.elapsed() > Duration::from_secs(90) || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut e, &mut err);
            }
            panic!("the command never made {}: {err}", path.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_reader_that_goes_away_ends_the_command() {
    let w = world();
    for (name, mode, backend) in MODES {
        let flags = mode.join(" ");
        let script = format!(
            "'{}' run {flags} -- yes | head -c 10 >/dev/null; echo ${{PIPESTATUS[0]}}",
            env!("CARGO_BIN_EXE_wicket")
        );
        let mut c = Command::new("bash");
        c.args(["-c", &script])
            .env("WICKET_HOME", w.home.join(".wicket"))
            .env("HOME", &w.home)
            .current_dir(&w.root)
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = with_backend(&mut c, backend).spawn().unwrap();
        let status = wait_bounded(&mut child, Duration::from_secs(60));
        assert!(status.is_some(), "{name}: `wicket run -- yes | head` never ended");
        let out = child.wait_with_output().unwrap();
        let code = String::from_utf8_lossy(&out.stdout).trim().to_string();
        // yes dies of SIGPIPE (141), as it does without wicket.
        assert_eq!(code, "141", "{name}");
    }
}

/// The executed lines in the audit log.
fn executed(w: &World) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    let audit = w.home.join(".wicket/audit");
    for dir in std::fs::read_dir(audit).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
            if f.path().extension().is_some_and(|e| e == "jsonl") {
                for line in std::fs::read_to_string(f.path()).unwrap().lines() {
                    let v: serde_json::Value = serde_json::from_str(line).unwrap();
                    if v["kind"] == "executed" {
                        out.push(v);
                    }
                }
            }
        }
    }
    out
}

#[test]
fn int_and_term_to_wicket_end_the_whole_command_tree_and_the_run_is_recorded() {
    use rustix::process::{kill_process, Pid, Signal};
    for (sig, name, code) in [(Signal::TERM, "TERM", 143), (Signal::INT, "INT", 130)] {
        for (flags, mode, backend) in MODES {
            let w = world();
            // A background child that would write the marker later, and a foreground sleep.
            let script = "(sleep 3; echo late > out/marker) & (setsid sh -c 'sleep 3; echo late > out/marker2' &); touch out/started; sleep 300";
            let mut args = vec!["run"];
            args.extend_from_slice(mode);
            args.extend(["--", "sh", "-c", script]);
            let mut child = with_backend(&mut wicket(&w, &args), backend)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            wait_for(&w.root.join("out/started"), &mut child);
            kill_process(Pid::from_raw(child.id() as i32).unwrap(), sig).unwrap();
            let status = wait_bounded(&mut child, Duration::from_secs(90));
            let status = status.unwrap_or_else(|| {
                let ps = Command::new("ps").args(["-eo", "pid,ppid,pgid,sid,stat,wchan:20,args", "--forest"]).output();
                let ps = ps.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
                panic!("{name} {flags}: wicket did not end; processes:\n{ps}")
            });
            assert_eq!(status.code(), Some(code), "{name} {flags}: the command's status passes through");
            std::thread::sleep(Duration::from_secs(4));
            assert!(!w.root.join("out/marker").exists(), "{name} {flags}: a process of the command outlived the run");
            assert!(!w.root.join("out/marker2").exists(), "{name} {flags}: a daemon of the command outlived the run");
            let lines = executed(&w);
            assert_eq!(lines.len(), 1, "{name} {flags}: {lines:?}");
            assert_eq!(lines[0]["exit_code"], code, "{name} {flags}: {:?}", lines[0]);
        }
    }
}

#[test]
fn a_killed_wicket_takes_its_command_with_it() {
    for (name, mode, backend) in MODES {
        let w = world();
        let mut args = vec!["run"];
        args.extend_from_slice(mode);
        args.extend([
            "--",
            "sh",
            "-c",
            "(setsid sh -c 'sleep 3; echo late > out/marker2' &); touch out/started; sleep 3; echo late > out/marker",
        ]);
        let mut child =
            with_backend(&mut wicket(&w, &args), backend).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        wait_for(&w.root.join("out/started"), &mut child);
        child.kill().unwrap();
        child.wait().unwrap();
        std::thread::sleep(Duration::from_secs(4));
        assert!(!w.root.join("out/marker").exists(), "{name}: the command outlived a killed wicket");
        assert!(!w.root.join("out/marker2").exists(), "{name}: a daemon of the command outlived a killed wicket");
    }
}

#[test]
fn a_lone_program_gets_the_signal_and_its_default_action() {
    use rustix::process::{kill_process, Pid, Signal};
    // A program alone is what a sandbox may start first in its pid namespace, where the kernel
    // would drop a signal it has no handler for.
    for (name, mode, backend) in MODES {
        let w = world();
        let mut args = vec!["run"];
        args.extend_from_slice(mode);
        args.extend(["--", "sleep", "300"]);
        let mut child =
            with_backend(&mut wicket(&w, &args), backend).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(700));
        kill_process(Pid::from_raw(child.id() as i32).unwrap(), Signal::TERM).unwrap();
        let status = wait_bounded(&mut child, Duration::from_secs(60));
        // Not 137: the TERM ended it, not the KILL that follows a signal left unheeded.
        assert_eq!(status.and_then(|s| s.code()), Some(143), "{name}");
        let lines = executed(&w);
        assert_eq!(lines.len(), 1, "{name}: {lines:?}");
        assert_eq!(lines[0]["exit_code"], 143, "{name}");
    }
}
