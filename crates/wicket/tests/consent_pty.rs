#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up
//! Consent for project settings, answered through a real pseudo-terminal.
//!
//! As in `approver_pty.rs`, each case re-executes this test binary (`--exact child_entry`) with
//! `WICKET_CONSENT_CHILD=1` in a new session whose controlling terminal is the pty's slave side.
//! The child loads the configuration of a project whose settings loosen safety, with the
//! terminal as the consent asker, and prints what became of them on its stdout (a pipe). The
//! test plays the person on the master side.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::fs::{Mode, OFlags};
use rustix::pty::OpenptFlags;
use wicket::config::{self, Places};
use wicket::consent::TerminalConsent;

const CHILD: &str = "WICKET_CONSENT_CHILD";
const TIMEOUT: Duration = Duration::from_secs(30);
const PROMPT: &str = "[n] no, use safe defaults (default) > ";

/// Not a test of its own: the body of the child process (a no-op in a normal run).
#[test]
fn child_entry() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let var = |n: &str| PathBuf::from(std::env::var_os(n).unwrap());
    let places = Places { home: var("WICKET_CONSENT_HOME"), managed: var("WICKET_CONSENT_MANAGED") };
    let mut asker = TerminalConsent;
    let loaded = config::load_in(&var("WICKET_CONSENT_ROOT"), &places, Some(&mut asker)).unwrap();
    println!("\nCONSENT: {:?}", loaded.consent);
    println!("ALLOW: {:?}", loaded.project.unwrap().permissions.allow);
}

struct Child {
    master: File,
    screen: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Receiver<std::process::Output>,
    pid: u32,
    _slave: OwnedFd,
}

fn spawn(root: &Path, home: &Path, managed: &Path) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("WICKET_CONSENT_ROOT", root)
        .env("WICKET_CONSENT_HOME", home)
        .env("WICKET_CONSENT_MANAGED", managed)
        .env("TERM", "dumb")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let m = rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
    rustix::pty::grantpt(&m).unwrap();
    rustix::pty::unlockpt(&m).unwrap();
    let name = rustix::pty::ptsname(&m, Vec::new()).unwrap();
    let slave =
        rustix::fs::open(name.as_c_str(), OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC, Mode::empty()).unwrap();
    let master = File::from(m);
    let slave_fd = slave.as_raw_fd();
    // SAFETY: between fork and exec the closure makes only async-signal-safe system calls
    // (setsid, ioctl) and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::setsid()?;
            rustix::process::ioctl_tiocsctty(BorrowedFd::borrow_raw(slave_fd))?;
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    // stdin says "r": a consent that read it would pin.
    // The child may exit without reading stdin: a closed pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(b"r\n");
    let pid = child.id();
    let (tx, done) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output().unwrap());
    });
    let screen = Arc::new(Mutex::new(Vec::new()));
    let mut reader = master.try_clone().unwrap();
    let s = Arc::clone(&screen);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = reader.read(&mut buf) {
            s.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    Child { master, screen, done, pid, _slave: slave }
}

impl Child {
    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).replace('\r', "")
    }

    fn kill(&self) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.pid as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }

    fn wait_for_prompt(&self) -> String {
        self.wait_for(PROMPT, 1)
    }

    fn wait_for(&self, text: &str, times: usize) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.matches(text).count() >= times {
                return screen;
            }
            if start.elapsed() > TIMEOUT {
                self.kill();
                panic!("no prompt; the terminal showed:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The child's stdout and what its terminal showed.
    fn finish(self) -> (String, String) {
        let Ok(out) = self.done.recv_timeout(TIMEOUT) else {
            self.kill();
            panic!("the child did not finish; the terminal showed:\n{}", self.screen());
        };
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "child failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        assert!(!stdout.contains(PROMPT), "the question went to stdout:\n{stdout}");
        // The reader thread may still hold the last bytes for a moment.
        std::thread::sleep(Duration::from_millis(50));
        (stdout, self.screen())
    }
}

struct Project {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    managed: PathBuf,
}

fn project(settings: &str) -> Project {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home/.wicket");
    std::fs::create_dir_all(root.join(".wicket")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(root.join(".wicket/settings.json"), settings).unwrap();
    let managed = tmp.path().join("managed-policy.json");
    Project { _tmp: tmp, root, home, managed }
}

/// Start the child, wait for the question, answer `keys`; the child's stdout and the screen.
fn answer(p: &Project, keys: &[u8]) -> (String, String) {
    let child = spawn(&p.root, &p.home, &p.managed);
    child.wait_for_prompt();
    (&child.master).write_all(keys).unwrap();
    child.finish()
}

const SETTINGS: &str = r#"{"permissions": {"allow": ["bash(npm test*)"]}, "executor": "host"}"#;

#[test]
fn yes_applies_for_this_run_only() {
    let p = project(SETTINGS);
    let (stdout, screen) = answer(&p, b"y\n");
    assert!(screen.contains("wants to loosen safety"), "{screen}");
    assert!(screen.contains("allow rules: \"bash(npm test*)\"") && screen.contains("executor \"host\""), "{screen}");
    assert!(stdout.contains("CONSENT: Granted { remembered: false }"), "{stdout}");
    assert!(stdout.contains("ALLOW: [\"bash(npm test*)\"]"), "{stdout}");
    assert!(!p.home.join("trust.json").exists());
    // Asked again next time.
    let (stdout, _) = answer(&p, b"n\n");
    assert!(stdout.contains("refused: true") && stdout.contains("ALLOW: []"), "{stdout}");
}

#[test]
fn remember_pins_and_a_change_asks_again() {
    let p = project(SETTINGS);
    let (stdout, screen) = answer(&p, b"r\n");
    assert!(screen.contains("applied and remembered"), "{screen}");
    assert!(stdout.contains("CONSENT: Granted { remembered: true }"), "{stdout}");
    // Pinned: no question at all this time.
    let (stdout, screen) = spawn(&p.root, &p.home, &p.managed).finish();
    assert!(!screen.contains(PROMPT), "{screen}");
    assert!(stdout.contains("CONSENT: Pinned") && stdout.contains("ALLOW: [\"bash(npm test*)\"]"), "{stdout}");
    // Changed: asked again.
    std::fs::write(p.root.join(".wicket/settings.json"), r#"{"permissions": {"allow": ["bash(npm *)"]}}"#).unwrap();
    let (stdout, screen) = answer(&p, b"n\n");
    assert!(screen.contains("bash(npm *)"), "{screen}");
    assert!(stdout.contains("refused: true") && stdout.contains("ALLOW: []"), "{stdout}");
}

#[test]
fn no_unknown_and_empty_answers_apply_nothing() {
    for keys in [&b"n\n"[..], b"\n", b"\x04"] {
        let p = project(SETTINGS);
        let (stdout, screen) = answer(&p, keys);
        assert!(stdout.contains("ALLOW: []"), "{keys:?}: {stdout}");
        assert!(screen.contains("not applied"), "{screen}");
        assert!(!p.home.join("trust.json").exists());
    }
    // An unknown answer is asked again; then Enter is no.
    let p = project(SETTINGS);
    let child = spawn(&p.root, &p.home, &p.managed);
    child.wait_for_prompt();
    (&child.master).write_all(b"maybe\n").unwrap();
    child.wait_for(PROMPT, 2);
    assert!(child.screen().contains("\"maybe\" is not a choice"));
    (&child.master).write_all(b"\n").unwrap();
    let (stdout, _) = child.finish();
    assert!(stdout.contains("ALLOW: []"), "{stdout}");
}
