//! A child process with a real pseudo-terminal as its controlling terminal, in a session of
//! its own; the test plays the person on the master side (reads the screen, types keys).

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{ChildStdin, Command, Output, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::fs::{Mode, OFlags};
use rustix::pty::OpenptFlags;

/// How long a test waits for a screen or an exit before it fails (a guard against a hang, not
/// a timing assertion).
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// How the child is started.
pub struct Spawn<'a> {
    /// False: a new session and no terminal at all.
    pub tty: bool,
    /// Written to the terminal before the child starts (keys pressed ahead of the question).
    pub typed_ahead: &'a [u8],
    /// Written to the child's stdin, which is then closed; `None` keeps it open for
    /// [`PtyChild::stdin`].
    pub stdin: Option<&'a [u8]>,
    /// Hand the child's stdout over line by line ([`PtyChild::lines`]) instead of collecting
    /// it for [`PtyChild::finish`].
    pub stream_stdout: bool,
}

impl Default for Spawn<'_> {
    fn default() -> Self {
        Spawn { tty: true, typed_ahead: b"", stdin: Some(b""), stream_stdout: false }
    }
}

/// A running child and the master side of its terminal.
pub struct PtyChild {
    master: Option<File>,
    screen: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Receiver<Output>,
    pid: u32,
    /// The child's stdin, when [`Spawn::stdin`] was `None`.
    pub stdin: Option<ChildStdin>,
    /// The child's stdout lines, when [`Spawn::stream_stdout`].
    pub lines: Option<mpsc::Receiver<String>>,
    /// The parent's slave descriptor, kept open so reads on the master never fail while the
    /// child has none open (between its exec and its open of `/dev/tty`).
    _slave: Option<OwnedFd>,
}

/// Start `cmd` (its stdout and stderr are piped here) as `how` says.
pub fn spawn(mut cmd: Command, how: Spawn<'_>) -> PtyChild {
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let (mut master, mut slave) = (None, None);
    if how.tty {
        let m = rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
        rustix::pty::grantpt(&m).unwrap();
        rustix::pty::unlockpt(&m).unwrap();
        let name = rustix::pty::ptsname(&m, Vec::new()).unwrap();
        let s =
            rustix::fs::open(name.as_c_str(), OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC, Mode::empty()).unwrap();
        let mut m = File::from(m);
        m.write_all(how.typed_ahead).unwrap();
        master = Some(m);
        slave = Some(s);
    }
    let slave_fd = slave.as_ref().map(|s: &OwnedFd| s.as_raw_fd());
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
    let mut stdin = child.stdin.take();
    if let Some(bytes) = how.stdin {
        // The child may exit without reading its stdin: a closed pipe is fine.
        let _ = stdin.take().unwrap().write_all(bytes);
    }
    let lines = how.stream_stdout.then(|| {
        let out = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        rx
    });
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
    PtyChild { master, screen, done, pid, stdin, lines, _slave: slave }
}

impl PtyChild {
    /// What the terminal showed so far, with the `\r` of output processing removed.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).replace('\r', "")
    }

    /// Wait until the terminal shows `text` `times` times in all; the screen then.
    pub fn wait_for(&self, text: &str, times: usize) -> String {
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
    pub fn type_keys(&self, keys: &[u8]) {
        let mut m = self.master.as_ref().unwrap();
        m.write_all(keys).unwrap();
    }

    /// The next line of the child's stdout (with [`Spawn::stream_stdout`]).
    pub fn next_line(&self) -> String {
        match self.lines.as_ref().unwrap().recv_timeout(TIMEOUT) {
            Ok(l) => l,
            Err(_) => {
                self.kill();
                panic!("no line from the child; the terminal showed:\n{}", self.screen());
            }
        }
    }

    /// Send one line to the child's stdin (with `Spawn::stdin: None`).
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    pub fn kill(&self) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.pid as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }

    /// Close the child's stdin, wait for it to exit; its output and what its terminal showed.
    pub fn finish(mut self) -> (Output, String) {
        drop(self.stdin.take());
        let Ok(out) = self.done.recv_timeout(TIMEOUT) else {
            self.kill();
            panic!("the child did not finish; the terminal showed:\n{}", self.screen());
        };
        // The reader thread may still hold the last bytes for a moment.
        std::thread::sleep(Duration::from_millis(50));
        (out, self.screen())
    }
}
