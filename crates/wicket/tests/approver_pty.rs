#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up
//! The real [`TerminalApprover`] driven through a real pseudo-terminal.
//!
//! Each case re-executes this test binary (`--exact child_entry`) with `WICKET_PTY_CHILD=1` in
//! a new session whose controlling terminal is the pty's slave side. The child asks one question
//! through `/dev/tty` and prints the answer on its stdout (a pipe, never the terminal). The test
//! plays the person on the master side: it reads the prompt and types the answer.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::fs::{Mode, OFlags};
use rustix::pty::OpenptFlags;
use wicket::approver::{Answer, Approver, DenyApprover, Question, TerminalApprover};
use wicket_policy::Rule;

const CHILD: &str = "WICKET_PTY_CHILD";
const TIMEOUT: Duration = Duration::from_secs(30);
/// The end of every prompt.
const PROMPT: &str = "[n] deny (default) > ";

/// Not a test of its own: the body of the child process (a no-op in a normal run).
#[test]
fn child_entry() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let env = |name: &str| std::env::var(name).unwrap_or_default();
    let q = Question {
        tool: "bash".into(),
        what: env("WICKET_PTY_WHAT"),
        reason: "no rule allows it".into(),
        always: std::env::var("WICKET_PTY_ALWAYS").ok().map(|r| Rule::parse(&r).unwrap()),
        sandboxed: env("WICKET_PTY_SANDBOXED") == "1",
    };
    let mut approver: Box<dyn Approver> = match TerminalApprover::open() {
        Ok(t) => Box::new(t),
        Err(e) => {
            println!("\nOPEN_FAILED: {e}");
            Box::new(DenyApprover)
        }
    };
    let answer = approver.ask(&q);
    println!("\nANSWER: {answer:?}");
}

/// One child process and the master side of its terminal.
struct Child {
    master: Option<File>,
    screen: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Receiver<std::process::Output>,
    pid: u32,
    /// The parent's slave descriptor, kept open so reads on the master never fail while the
    /// child has none open (between its exec and its open of `/dev/tty`).
    _slave: Option<OwnedFd>,
}

struct Options<'a> {
    what: &'a str,
    always: Option<&'a str>,
    /// False: the child gets a new session and no terminal at all.
    tty: bool,
    /// Written to the terminal before the child starts.
    typed_ahead: &'a [u8],
    /// Written to the child's stdin (which the approver must never read).
    stdin: &'a [u8],
    term: &'a str,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options { what: "npm test", always: None, tty: true, typed_ahead: b"", stdin: b"", term: "dumb" }
    }
}

fn spawn(o: Options<'_>) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("WICKET_PTY_WHAT", o.what)
        .env("TERM", o.term)
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(rule) = o.always {
        cmd.env("WICKET_PTY_ALWAYS", rule);
    }
    let mut master = None;
    let mut slave: Option<OwnedFd> = None;
    if o.tty {
        let m = rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
        rustix::pty::grantpt(&m).unwrap();
        rustix::pty::unlockpt(&m).unwrap();
        let name = rustix::pty::ptsname(&m, Vec::new()).unwrap();
        let s =
            rustix::fs::open(name.as_c_str(), OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC, Mode::empty()).unwrap();
        let mut m = File::from(m);
        // Keys pressed before the question exists: they sit in the terminal's input queue.
        m.write_all(o.typed_ahead).unwrap();
        master = Some(m);
        slave = Some(s);
    }
    let slave_fd = slave.as_ref().map(|s| s.as_raw_fd());
    // SAFETY: between fork and exec the closure makes only async-signal-safe system calls
    // (setsid, ioctl) and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::setsid()?;
            if let Some(fd) = slave_fd {
                rustix::process::ioctl_tiocsctty(BorrowedFd::borrow_raw(fd))?;
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    // The child never reads stdin and may exit first: a closed pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(o.stdin);
    let pid = child.id();
    let (tx, done) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output().unwrap());
    });
    let screen = Arc::new(Mutex::new(Vec::new()));
    if let Some(m) = &master {
        let mut reader = m.try_clone().unwrap();
        let screen = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                screen.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
    }
    Child { master, screen, done, pid, _slave: slave }
}

impl Child {
    /// What the terminal showed so far, with the `\r` of output processing removed.
    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).replace('\r', "")
    }

    /// Wait until the terminal shows `text` `times` times in all.
    fn wait_for(&self, text: &str, times: usize) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.matches(text).count() >= times {
                return screen;
            }
            if start.elapsed() > TIMEOUT {
                self.kill();
                panic!("the terminal never showed {text:?} ({times}x); it showed:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Type on the terminal.
    fn type_keys(&self, keys: &[u8]) {
        let mut m = self.master.as_ref().unwrap();
        m.write_all(keys).unwrap();
    }

    fn kill(&self) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.pid as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }

    /// Wait for the child; its stdout and what its terminal showed.
    fn finish(self) -> (String, String) {
        let Ok(out) = self.done.recv_timeout(TIMEOUT) else {
            self.kill();
            panic!("the child did not finish; the terminal showed:\n{}", self.screen());
        };
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "child failed: {}\nstdout:\n{stdout}\nstderr:\n{stderr}", out.status);
        // The reader thread may still hold the last bytes for a moment.
        std::thread::sleep(Duration::from_millis(50));
        (stdout, self.screen())
    }
}

fn answer_of(stdout: &str) -> &str {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("ANSWER: "))
        .unwrap_or_else(|| panic!("no answer printed; stdout:\n{stdout}"))
}

/// Ask once, wait for the prompt, type `keys`; the answer printed and the screen.
fn ask(o: Options<'_>, keys: &[u8]) -> (String, String) {
    let child = spawn(o);
    child.wait_for(PROMPT, 1);
    child.type_keys(keys);
    let (stdout, screen) = child.finish();
    assert!(!stdout.contains(PROMPT), "the question went to stdout:\n{stdout}");
    (answer_of(&stdout).to_string(), screen)
}

#[test]
fn y_allows_once_and_stdin_is_never_read() {
    // stdin says "n": an approver that read it would deny.
    let (answer, screen) = ask(Options { stdin: b"n\n", term: "xterm-256color", ..Default::default() }, b"y\n");
    assert_eq!(answer, "Once");
    assert!(screen.contains("\x1b["), "colors on a color terminal:\n{screen:?}");
    assert!(screen.contains("allowed once"), "{screen}");
}

#[test]
fn s_allows_for_the_session() {
    let (answer, screen) = ask(Options::default(), b"s\n");
    assert_eq!(answer, "Session");
    assert!(!screen.contains('\x1b'), "no colors on a dumb terminal:\n{screen:?}");
    assert!(!screen.contains("[a] always"), "always is not offered without a rule:\n{screen}");
}

#[test]
fn a_allows_always_with_the_rule_shown() {
    let child = spawn(Options { always: Some("bash(npm test*)"), ..Default::default() });
    let screen = child.wait_for(PROMPT, 1);
    assert!(screen.contains("\"always\" adds the rule: bash(npm test*)"), "{screen}");
    assert!(screen.contains("[a] always: bash(npm test*)"), "{screen}");
    child.type_keys(b"a\n");
    let (stdout, _) = child.finish();
    assert_eq!(
        answer_of(&stdout),
        format!("{:?}", Answer::Always(Rule { tool: "bash".into(), pattern: Some("npm test*".into()) }))
    );
}

#[test]
fn n_denies() {
    let (answer, screen) = ask(Options::default(), b"n\n");
    assert_eq!(answer, "Deny");
    assert!(screen.contains("denied"), "{screen}");
}

#[test]
fn empty_line_denies() {
    assert_eq!(ask(Options::default(), b"\n").0, "Deny");
}

#[test]
fn end_of_input_denies() {
    // ^D on an empty line: read returns 0.
    assert_eq!(ask(Options::default(), b"\x04").0, "Deny");
}

#[test]
fn typed_ahead_input_is_discarded() {
    let child = spawn(Options { typed_ahead: b"y\n", ..Default::default() });
    child.wait_for(PROMPT, 1);
    child.type_keys(b"n\n");
    let (stdout, _) = child.finish();
    assert_eq!(answer_of(&stdout), "Deny", "the typed-ahead \"y\" answered the question");
}

#[test]
fn unknown_key_asks_again() {
    let child = spawn(Options::default());
    child.wait_for(PROMPT, 1);
    child.type_keys(b"x\n");
    let screen = child.wait_for(PROMPT, 2);
    assert!(screen.contains("\"x\" is not a choice"), "{screen}");
    child.type_keys(b"y\n");
    let (stdout, _) = child.finish();
    assert_eq!(answer_of(&stdout), "Once");
}

#[test]
fn unknown_keys_four_times_deny() {
    let child = spawn(Options::default());
    for n in 1..=4 {
        child.wait_for(PROMPT, n);
        child.type_keys(b"q\n");
    }
    let (stdout, screen) = child.finish();
    assert_eq!(answer_of(&stdout), "Deny");
    assert!(screen.contains("no valid answer: denied"), "{screen}");
}

#[test]
fn shows_invisible_characters_pipes_and_redirects() {
    let (answer, screen) = ask(Options { what: "cat notes\u{200b}.txt | sh > out.txt", ..Default::default() }, b"n\n");
    assert_eq!(answer, "Deny");
    for want in [
        "cat notes\\u{200b}.txt | sh > out.txt",
        "invisible or control characters: U+200B",
        "runs 2 commands (chained or piped)",
        "redirects output into files",
        "out.txt",
        "where: on the HOST",
    ] {
        assert!(screen.contains(want), "missing {want:?}:\n{screen}");
    }
    assert!(!screen.contains('\u{200b}'), "a raw zero-width space reached the terminal:\n{screen}");
}

#[test]
fn no_controlling_terminal_means_deny() {
    let child = spawn(Options { tty: false, stdin: b"y\n", ..Default::default() });
    let (stdout, _) = child.finish();
    assert!(stdout.contains("OPEN_FAILED: no terminal to ask on"), "{stdout}");
    assert_eq!(answer_of(&stdout), "Deny");
}
