//! Placeholders shared by every run in one project, and the keeper that removes them.
//!
//! The hard question: a sandbox can only keep a path read-only if it exists, so a missing
//! protected path (`.mcp.json`, `.git/hooks`, a `.git` in a project without one) gets an empty
//! placeholder while commands run. How do any number of concurrent runs (in one process or
//! many) share those placeholders so that none fails because another made or removed one, and
//! none is left in the project once the last run ends, even when wicket is killed?
//!
//! The answer is a reference count kept by the kernel: flock(2) locks die with the process.
//! Per project, in a private folder of wicket's state (out of the sandbox's reach), three lock
//! files and a record:
//! - `lock`: held exclusively while placeholders are made, recorded or removed, so those steps
//!   never interleave;
//! - `live`: every run holds a shared lock on it from before its placeholders exist until its
//!   command has ended (its process dying releases it, whatever the signal);
//! - `keeper`: held exclusively by the keeper, a small process (wicket's own binary, in its own
//!   session, so it outlives a killed wicket) that waits until nobody holds `live`, then, holding
//!   `lock`, checks again and removes every placeholder in the record. It outlives the wicket
//!   that started it only for that: its stdin is a pipe from that wicket, and once the pipe
//!   closes (wicket let go of it at its end, or died) the keeper cleans and exits as soon as no
//!   run holds `live`, instead of waiting for a next run;
//! - `made`: what wicket made (written before each placeholder is made), and the paths that must
//!   not appear (checked at the end of each run and by the keeper).
//!
//! A run starting when no keeper holds `keeper` first cleans what a killed keeper left, then
//! starts one. A placeholder is removed only while it is still what wicket made (an empty folder
//! or an empty file), so nothing a person put there in the meantime is lost.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::runner::SandboxError;

/// What a missing path gets for the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An empty folder.
    Dir,
    /// An empty file.
    File,
    /// Nothing: the path must not appear (it is removed after the run if it did).
    Absent,
}

impl Kind {
    fn tag(self) -> char {
        match self {
            Kind::Dir => 'd',
            Kind::File => 'f',
            Kind::Absent => 'w',
        }
    }

    fn from_tag(c: char) -> Option<Kind> {
        match c {
            'd' => Some(Kind::Dir),
            'f' => Some(Kind::File),
            'w' => Some(Kind::Absent),
            _ => None,
        }
    }
}

/// A run's share of the project's placeholders: they stay while any lease is held.
#[derive(Debug)]
pub struct Lease {
    /// The shared lock on `live` (released when this closes).
    live: Option<File>,
    /// Paths that must not appear, checked when the run ends.
    absent: Vec<PathBuf>,
    /// The project's coordination folder.
    dir: PathBuf,
    /// What this run may make or watch: the only record entries it acts on.
    wanted: Vec<(PathBuf, Kind)>,
}

impl Drop for Lease {
    /// The run is over: anything created where nothing may appear goes now, and the last run
    /// out removes the placeholders itself, so they are gone when wicket returns (the keeper
    /// does it when this process is killed first).
    fn drop(&mut self) {
        for p in &self.absent {
            if remove_planted(p) {
                eprintln!(
                    "wicket: removed {} which the sandboxed command created (git would follow it on the host)",
                    p.display()
                );
            }
        }
        let lock_path = self.dir.join("lock");
        let live_path = self.dir.join("live");
        // Twice at most: `live` can be taken for a moment by the keeper, which wakes the
        // instant the last run lets go of it; that run then lets go of `lock` so the keeper
        // can clean, waits for `lock` again (until the keeper is done) and looks once more,
        // so the placeholders are gone when wicket returns.
        for _ in 0..2 {
            let Ok(lock) = open(&lock_path) else { return };
            if flock(&lock, Lock::Exclusive, &lock_path).is_err() {
                return;
            }
            drop(self.live.take());
            let Ok(live) = open(&live_path) else { return };
            if try_flock(&live, &live_path).unwrap_or(false) {
                clean(&self.dir.join("made"), &self.wanted);
                crate::trace::phase("placeholders removed");
                return;
            }
        }
    }
}

/// The folder where the runs of `root` coordinate: `STATE/run/<hash of the root>`.
pub fn runs_dir(state: &Path, root: &Path) -> PathBuf {
    // FNV-1a: stable across wicket versions and processes (they must agree on the name).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in root.as_os_str().as_encoded_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    state.join("run").join(format!("{h:016x}"))
}

/// The default state folder when the caller names none: a private folder in the temp folder.
pub fn default_state() -> PathBuf {
    #[cfg(unix)]
    let uid = rustix::process::geteuid().as_raw();
    #[cfg(not(unix))]
    let uid = 0;
    std::env::temp_dir().join(format!("wicket-{uid}"))
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> SandboxError + '_ {
    move |source| SandboxError::Placeholder { path: path.to_path_buf(), source }
}

impl Lease {
    /// A new descriptor sharing this run's lock on `live` (the same open file, so the lock
    /// holds while any copy is open), without close-on-exec: handed to bubblewrap's process 1
    /// (`--sync-fd`), it keeps the placeholders until the whole sandbox is gone, not only
    /// until wicket is (a sandbox outlives a killed wicket for a moment, and a placeholder
    /// removed then lets it create the path on the host).
    #[cfg(target_os = "linux")]
    pub fn live_copy(&self) -> Option<std::os::fd::OwnedFd> {
        self.live.as_ref().and_then(|f| rustix::io::dup(f).ok())
    }
}

/// Make (or share) the placeholders for `wanted`, record `absent` paths, and take a lease for
/// the run. `exe` is wicket's binary, started as the keeper when none runs.
pub fn acquire(dir: &Path, wanted: &[(PathBuf, Kind)], exe: &Path) -> Result<Lease, SandboxError> {
    private_dir(dir)?;
    let lock = open(&dir.join("lock"))?;
    flock(&lock, Lock::Exclusive, &dir.join("lock"))?;
    let live_path = dir.join("live");
    let live = open(&live_path)?;
    let keeper_path = dir.join("keeper");
    let keeper = open(&keeper_path)?;
    let keeper_alive = !try_flock(&keeper, &keeper_path)?;
    let made_path = dir.join("made");
    // No keeper and no live run: whatever the record holds was left by a killed keeper or
    // killed runs. (With live runs but no keeper, their placeholders stay; a new keeper
    // takes them over.)
    if !keeper_alive && try_flock(&live, &live_path)? {
        clean(&made_path, wanted);
    }
    // Held (or turned from exclusive into shared) until the command has ended.
    flock(&live, Lock::Shared, &live_path)?;
    // The keeper starts before anything is made, so a run killed at any later point still
    // has what it made removed. It takes `keeper` before this run lets go of `lock`, so no
    // other run can find the record unguarded in between.
    let needed = wanted.iter().any(|(p, k)| *k == Kind::Absent || std::fs::symlink_metadata(p).is_err());
    drop(keeper);
    if !keeper_alive && needed {
        start_keeper(exe, dir, wanted)?;
    }
    let record = read_record(&made_path);
    let mut absent = Vec::new();
    let mut missing = Vec::new();
    for (p, kind) in wanted {
        // A path named twice is made once (the second `mkdir` would fail).
        if std::fs::symlink_metadata(p).is_ok() || absent.contains(p) || missing.iter().any(|(q, _)| *q == p) {
            continue;
        }
        if *kind == Kind::Absent {
            absent.push(p.clone());
        } else {
            missing.push((p, *kind));
        }
    }
    // All recorded before any exists, in one write: a run killed right after still has them
    // cleaned.
    let new: Vec<(&Path, Kind)> = absent
        .iter()
        .map(|p| (p.as_path(), Kind::Absent))
        .chain(missing.iter().map(|(p, k)| (p.as_path(), *k)))
        .filter(|(p, k)| !record.iter().any(|(q, j)| q == p && j == k))
        .collect();
    append_all(&made_path, &new)?;
    for (p, kind) in missing {
        let res = match kind {
            Kind::Dir => std::fs::create_dir(p),
            _ => std::fs::OpenOptions::new().write(true).create_new(true).open(p).map(|_| ()),
        };
        match res {
            Ok(()) => {}
            // A parent that does not exist: nothing to protect there.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            // A folder this user cannot write (another user's project, a read-only mount):
            // the command runs as this user with less power, so it cannot create the name
            // either.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                ) => {}
            Err(e) => return Err(SandboxError::Placeholder { path: p.clone(), source: e }),
        }
    }
    drop(lock);
    Ok(Lease { live: Some(live), absent, dir: dir.to_path_buf(), wanted: wanted.to_vec() })
}

/// The keeper's body (`wicket __sandbox-keeper DIR`): hold `keeper`, say ready on stdout, wait
/// until no run holds `live`, then clean under `lock`; linger for the next run while the wicket
/// that started it lives. Returns the exit status.
pub fn keeper_main(args: &[std::ffi::OsString]) -> i32 {
    let [dir] = args else { return 2 };
    let dir = Path::new(dir);
    close_inherited();
    // What the run that started it may make or watch, one record line each, then an empty
    // line; stdin stays open after that, as long as the starter lives.
    let mut text = String::new();
    {
        let mut input = std::io::stdin().lock();
        loop {
            let mut line = String::new();
            match std::io::BufRead::read_line(&mut input, &mut line) {
                Ok(0) | Err(_) => return 1,
                Ok(_) if line == "\n" => break,
                Ok(_) => text.push_str(&line),
            }
        }
    }
    let wanted = parse_record(&text);
    let keeper_path = dir.join("keeper");
    let Ok(keeper) = open(&keeper_path) else { return 1 };
    if flock(&keeper, Lock::Exclusive, &keeper_path).is_err() {
        return 1;
    }
    {
        let mut out = std::io::stdout();
        if out.write_all(b"r").and_then(|()| out.flush()).is_err() {
            return 1;
        }
    }
    let mut starter = Starter::default();
    let live_path = dir.join("live");
    let lock_path = dir.join("lock");
    loop {
        let Ok(live) = open(&live_path) else { return 1 };
        if wait_for_live(&live, &live_path, &mut starter).is_err() {
            return 1;
        }
        // Let go before taking `lock` (runs take `lock`, then `live`): never the other order.
        drop(live);
        let Ok(lock) = open(&lock_path) else { return 1 };
        if flock(&lock, Lock::Exclusive, &lock_path).is_err() {
            return 1;
        }
        let Ok(live) = open(&live_path) else { return 1 };
        if !try_flock(&live, &live_path).unwrap_or(false) {
            continue;
        }
        clean(&dir.join("made"), &wanted);
        // Its wicket let go and no run holds `live`: nobody is left to serve, so it leaves now
        // (in the order of the last exit below).
        if starter.gone {
            drop(keeper);
            drop(live);
            drop(lock);
            return 0;
        }
        drop(live);
        drop(lock);
        // Stay a little for the next run (calls from one `serve` or `mcp` session come seconds
        // apart), so it need not start a keeper of its own; leave once nobody came or the
        // starter let go.
        if linger(&live_path, &lock_path, &mut starter) {
            continue;
        }
        let Ok(lock) = open(&lock_path) else { return 1 };
        if flock(&lock, Lock::Exclusive, &lock_path).is_err() {
            return 1;
        }
        let Ok(live) = open(&live_path) else { return 1 };
        if try_flock(&live, &live_path).unwrap_or(false) {
            clean(&dir.join("made"), &wanted);
            // `keeper` goes before `lock`: a run that takes `lock` next must find no keeper
            // and start its own (the other order left a window where it saw this one still
            // holding `keeper`, relied on it, and nobody cleaned up after it if killed).
            drop(keeper);
            drop(live);
            drop(lock);
            return 0;
        }
    }
}

/// The wicket that started the keeper, as the keeper sees it: the keeper's stdin is a pipe
/// from it, which closes when it lets go ([`let_go`]) or dies, whatever kills it; the keeper's
/// stdout is how a wicket that let go learns that the keeper stays on for runs of other
/// processes (`s`), rather than ending (the end of the pipe).
#[derive(Default)]
struct Starter {
    /// Its end of the pipe closed (or cannot be read: then, as when it closed, the keeper
    /// stays only while runs hold `live`).
    gone: bool,
    /// `s` was written.
    told: bool,
}

impl Starter {
    /// Wait `step`, or less when the starter lets go meanwhile.
    fn wait(&mut self, step: std::time::Duration) {
        if self.gone {
            std::thread::sleep(step);
            return;
        }
        #[cfg(target_os = "linux")]
        {
            let mut fd = libc::pollfd { fd: 0, events: libc::POLLIN, revents: 0 };
            let ms = i32::try_from(step.as_millis()).unwrap_or(i32::MAX);
            // SAFETY: poll on one descriptor record on this stack.
            let n = unsafe { libc::poll(&mut fd, 1, ms) };
            let interrupted = || std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted;
            if n > 0 {
                let mut buf = [0u8; 64];
                // SAFETY: read into a buffer on this stack, at most its length.
                let got = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
                // Bytes after the record mean nothing; only the end counts.
                if got == 0 || (got < 0 && !interrupted()) {
                    self.gone = true;
                }
            } else if n < 0 && !interrupted() {
                self.gone = true;
                std::thread::sleep(step);
            }
        }
        #[cfg(not(target_os = "linux"))]
        std::thread::sleep(step);
    }

    /// Tell a starter that let go while runs of other processes hold `live` that the keeper
    /// stays for them (it does not wait for that), once.
    fn stay_for_others(&mut self) {
        if self.told {
            return;
        }
        self.told = true;
        let mut out = std::io::stdout();
        // A starter that died has no reader: the write fails, which is fine.
        let _ = out.write_all(b"s").and_then(|()| out.flush());
    }
}

/// Take `live` exclusively, waiting for every run to let go of it. While waiting, a
/// bubblewrap process that holds it although its own parent is neither bubblewrap nor wicket is
/// killed: its wicket and the bubblewrap that started it are gone, so its `--die-with-parent`
/// never fired. bubblewrap 0.8's inner process does that when its parent dies during start-up
/// (it blocks for good on its start-up descriptor, before arming the signal, with no command
/// started), and would otherwise keep the placeholders forever.
/// A starter that let go (or died) meanwhile is told when runs still hold `live`.
#[cfg(target_os = "linux")]
fn wait_for_live(live: &File, live_path: &Path, starter: &mut Starter) -> Result<(), SandboxError> {
    let step = std::time::Duration::from_millis(100);
    let mut n: u32 = 0;
    loop {
        if try_flock(live, live_path)? {
            return Ok(());
        }
        if starter.gone {
            starter.stay_for_others();
        }
        // Every second: a scan of /proc is cheap, but not free.
        if n % 10 == 9 {
            kill_orphaned_holders(live);
        }
        n = n.wrapping_add(1);
        starter.wait(step);
    }
}

#[cfg(not(target_os = "linux"))]
fn wait_for_live(live: &File, live_path: &Path, _: &mut Starter) -> Result<(), SandboxError> {
    flock(live, Lock::Exclusive, live_path)
}

/// The name (`comm`) and parent of a process, from `/proc/PID/stat`.
#[cfg(target_os = "linux")]
fn comm_and_parent(pid: &str) -> Option<(String, String)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `PID (COMM) STATE PPID …`; COMM may hold spaces and parentheses: it ends at the last `)`.
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_string();
    let ppid = stat.get(close + 1..)?.split_whitespace().nth(1)?.to_string();
    Some((comm, ppid))
}

#[cfg(target_os = "linux")]
fn kill_orphaned_holders(live: &File) {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = live.metadata() else { return };
    let (dev, ino) = (meta.dev(), meta.ino());
    let Ok(procs) = std::fs::read_dir("/proc") else { return };
    for entry in procs.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().filter(|p| p.bytes().all(|b| b.is_ascii_digit())) else { continue };
        let Some((comm, ppid)) = comm_and_parent(pid) else { continue };
        if comm != "bwrap" {
            continue;
        }
        if comm_and_parent(&ppid).is_some_and(|(parent, _)| parent == "bwrap" || parent == "wicket") {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { continue };
        let holds =
            fds.flatten().any(|fd| std::fs::metadata(fd.path()).is_ok_and(|m| m.dev() == dev && m.ino() == ino));
        if let (true, Ok(pid)) = (holds, pid.parse::<i32>()) {
            // SAFETY: kill with a pid and a signal only.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

/// How long an idle keeper waits for the next run.
const LINGER: std::time::Duration = std::time::Duration::from_secs(5);

/// Wait up to [`LINGER`] for a run to start: true when one did; false at once when the
/// starter lets go. Each look is made holding `lock` (or counts as a run when `lock` is busy),
/// so it never takes `live` for a moment while a run is checking whether it is the last one
/// out.
fn linger(live_path: &Path, lock_path: &Path, starter: &mut Starter) -> bool {
    let step = std::time::Duration::from_millis(100);
    let mut waited = std::time::Duration::ZERO;
    while waited < LINGER {
        starter.wait(step);
        if starter.gone {
            return false;
        }
        waited += step;
        let Ok(lock) = open(lock_path) else { return false };
        if !try_flock(&lock, lock_path).unwrap_or(false) {
            return true;
        }
        let Ok(live) = open(live_path) else { return false };
        if !try_flock(&live, live_path).unwrap_or(true) {
            return true;
        }
    }
    false
}

/// Close every descriptor but stdio that came across exec: a keeper lives on after the run,
/// and a copy of another run's pipe or socket end would hide that end's closing from wicket.
fn close_inherited() {
    #[cfg(target_os = "linux")]
    {
        let Ok(entries) = std::fs::read_dir("/proc/self/fd") else { return };
        let fds: Vec<i32> =
            entries.flatten().filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok())).collect();
        for fd in fds.into_iter().filter(|fd| *fd > 2) {
            // SAFETY: nothing in this fresh process owns these descriptors: they were
            // inherited across exec (the listing's own one is closed already, and skipped by
            // the check, so nothing is closed twice).
            unsafe {
                let borrowed = std::os::fd::BorrowedFd::borrow_raw(fd);
                if rustix::io::fcntl_getfd(borrowed).is_ok() {
                    rustix::io::close(fd);
                }
            }
        }
    }
}

/// A keeper this process started, until it has ended and was reaped.
struct Kept {
    pid: u32,
    /// Its stdin: closing it lets the keeper go (see [`let_go`]).
    to: Option<std::process::ChildStdin>,
    /// Its stdout: `s` when it stays for runs of other processes, the end when it ends.
    from: Option<std::process::ChildStdout>,
}

/// The keepers this process started and has not reaped yet.
static KEPT: std::sync::Mutex<Vec<Kept>> = std::sync::Mutex::new(Vec::new());

/// Signalled each time a keeper of [`KEPT`] was reaped.
static REAPED: std::sync::Condvar = std::sync::Condvar::new();

/// How long [`let_go`] waits at most: a keeper ends in milliseconds once let go (it cleans
/// under `lock`), unless a hung file system holds it; then wicket leaves it and exits anyway.
const LET_GO_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// This process is done with sandboxes (it is about to exit): let go of every keeper it
/// started and wait until each has ended (it cleans what is left and exits at once) or said it
/// stays for runs of other processes that still hold `live`. So no keeper lingers idle after
/// the wicket that started it; one whose wicket is killed instead sees the same end of its pipe
/// and exits as soon as the sandbox is gone. Bounded (5 s).
pub fn let_go() {
    let deadline = std::time::Instant::now() + LET_GO_LIMIT;
    let mut answers = Vec::new();
    {
        let Ok(mut kept) = KEPT.lock() else { return };
        for k in kept.iter_mut() {
            drop(k.to.take());
            if let Some(from) = k.from.take() {
                answers.push((k.pid, from));
            }
        }
    }
    let mut ending = Vec::new();
    for (pid, from) in answers {
        if answer(from, deadline) != Some(b's') {
            ending.push(pid);
        }
    }
    let Ok(mut kept) = KEPT.lock() else { return };
    while kept.iter().any(|k| ending.contains(&k.pid)) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return;
        }
        kept = match REAPED.wait_timeout(kept, left) {
            Ok((k, _)) => k,
            Err(_) => return,
        };
    }
}

/// The keeper's one-byte answer after it was let go (`None`: it ended, or no answer came
/// before `deadline`).
fn answer(mut from: std::process::ChildStdout, deadline: std::time::Instant) -> Option<u8> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let mut fd = libc::pollfd { fd: from.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: poll on one descriptor record on this stack; the descriptor is `from`'s.
        if unsafe { libc::poll(&mut fd, 1, ms) } <= 0 {
            return None;
        }
        let mut byte = [0u8; 1];
        match from.read(&mut byte) {
            Ok(1) => Some(byte[0]),
            _ => None,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        // No bounded wait here: the keeper is let go, not waited for.
        let _ = (from, deadline);
        Some(b's')
    }
}

fn start_keeper(exe: &Path, dir: &Path, wanted: &[(PathBuf, Kind)]) -> Result<(), SandboxError> {
    let mut c = std::process::Command::new(crate::shim::program(exe));
    c.arg(crate::KEEPER_ARG).arg(dir).current_dir("/");
    c.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own session: a signal to wicket's process group or terminal does not reach it.
        // SAFETY: setsid is async-signal-safe and touches nothing of the parent.
        unsafe {
            c.pre_exec(|| rustix::process::setsid().map(|_| ()).map_err(std::io::Error::from));
        }
    }
    let mut child = c
        .spawn()
        .map_err(|e| SandboxError::Spawn { what: format!("the placeholder keeper {}", exe.display()), source: e })?;
    crate::runner::spare(child.id());
    let fail = |mut child: std::process::Child| {
        let _ = child.kill();
        let _ = child.wait();
        crate::runner::unspare(child.id());
        Err(not_ready(exe))
    };
    // The record, then an empty line; the pipe stays open as long as this process wants the
    // keeper (see `Starter`).
    let lines: String = wanted.iter().map(|(p, k)| format!("{} {}\n", k.tag(), hex(p))).chain(["\n".into()]).collect();
    let Some(mut to) = child.stdin.take() else { return fail(child) };
    if to.write_all(lines.as_bytes()).is_err() {
        return fail(child);
    }
    let Some(mut from) = child.stdout.take() else { return fail(child) };
    let mut byte = [0u8; 1];
    if !matches!(from.read(&mut byte), Ok(1)) || byte[0] != b'r' {
        return fail(child);
    }
    let pid = child.id();
    if let Ok(mut kept) = KEPT.lock() {
        kept.push(Kept { pid, to: Some(to), from: Some(from) });
    }
    // Reap it when it ends (wicket may live on: `serve`, `mcp`).
    std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || {
            let _ = child.wait();
            if let Ok(mut kept) = KEPT.lock() {
                kept.retain(|k| k.pid != pid);
            }
            REAPED.notify_all();
            crate::runner::unspare(pid);
        })
        .map_err(|e| {
            // Not waited for by anyone: dropping its pipe lets it go.
            if let Ok(mut kept) = KEPT.lock() {
                kept.retain(|k| k.pid != pid);
            }
            SandboxError::Spawn { what: "a thread".into(), source: e }
        })?;
    Ok(())
}

fn not_ready(exe: &Path) -> SandboxError {
    SandboxError::Spawn {
        what: format!("the placeholder keeper {}", exe.display()),
        source: std::io::Error::other("it ended before it was ready"),
    }
}

/// Remove what the record says wicket made, while it is still that; forget the record. Only
/// entries in `wanted` (what the caller itself would make or watch) are acted on: the record
/// is trusted no further than that, so a record someone else wrote can at most make wicket
/// remove an empty placeholder it would have made anyway. The rest stays for a later run.
fn clean(made: &Path, wanted: &[(PathBuf, Kind)]) {
    let record = read_record(made);
    let (ours, others): (Vec<_>, Vec<_>) = record.into_iter().partition(|e| wanted.contains(e));
    for (p, kind) in ours.iter().rev() {
        match kind {
            Kind::Dir => {
                let _ = std::fs::remove_dir(p);
            }
            Kind::File => {
                if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file() && m.len() == 0) {
                    let _ = std::fs::remove_file(p);
                }
            }
            Kind::Absent => {
                remove_planted(p);
            }
        }
    }
    let _ = std::fs::remove_file(made);
    for (p, kind) in others {
        let _ = append(made, &p, kind);
    }
}

/// Remove a path that must not exist; true when there was one.
fn remove_planted(p: &Path) -> bool {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(p).is_ok(),
        Ok(_) => std::fs::remove_file(p).is_ok(),
        Err(_) => false,
    }
}

fn read_record(made: &Path) -> Vec<(PathBuf, Kind)> {
    let Ok(text) = std::fs::read_to_string(made) else { return Vec::new() };
    parse_record(&text)
}

fn parse_record(text: &str) -> Vec<(PathBuf, Kind)> {
    text.lines()
        .filter_map(|l| {
            let mut chars = l.chars();
            let kind = Kind::from_tag(chars.next()?)?;
            let hex = chars.as_str().strip_prefix(' ')?;
            Some((unhex(hex)?, kind))
        })
        .collect()
}

fn append(made: &Path, p: &Path, kind: Kind) -> Result<(), SandboxError> {
    append_all(made, &[(p, kind)])
}

/// Add entries to the record with one write (none: the record is not touched).
fn append_all(made: &Path, entries: &[(&Path, Kind)]) -> Result<(), SandboxError> {
    if entries.is_empty() {
        return Ok(());
    }
    let text: String = entries.iter().map(|(p, kind)| format!("{} {}\n", kind.tag(), hex(p))).collect();
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(made).map_err(io_err(made))?;
    f.write_all(text.as_bytes()).map_err(io_err(made))
}

fn hex(p: &Path) -> String {
    p.as_os_str().as_encoded_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<PathBuf> {
    if s.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> =
        (0..s.len()).step_by(2).map(|i| s.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok())).collect();
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(bytes?)))
    }
    #[cfg(not(unix))]
    {
        String::from_utf8(bytes?).ok().map(PathBuf::from)
    }
}

/// Make `dir` (mode 0700) and check that it belongs to this user and nobody else can write it:
/// the record there decides what gets removed.
fn private_dir(dir: &Path) -> Result<(), SandboxError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt};
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(io_err(dir))?;
        let m = std::fs::symlink_metadata(dir).map_err(io_err(dir))?;
        if !m.is_dir() || m.uid() != rustix::process::geteuid().as_raw() || m.mode() & 0o022 != 0 {
            return Err(SandboxError::Placeholder {
                path: dir.to_path_buf(),
                source: std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    "not a private folder of this user (another user could steer what wicket removes)",
                ),
            });
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir).map_err(io_err(dir))
    }
}

fn open(p: &Path) -> Result<File, SandboxError> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(p).map_err(io_err(p))
}

enum Lock {
    Shared,
    Exclusive,
}

#[cfg(unix)]
fn flock(f: &File, how: Lock, p: &Path) -> Result<(), SandboxError> {
    use rustix::fs::FlockOperation as Op;
    let op = match how {
        Lock::Shared => Op::LockShared,
        Lock::Exclusive => Op::LockExclusive,
    };
    loop {
        match rustix::fs::flock(f, op) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(SandboxError::Placeholder { path: p.to_path_buf(), source: e.into() }),
        }
    }
}

/// Try to take `f` exclusively without waiting: false when someone else holds it.
#[cfg(unix)]
fn try_flock(f: &File, p: &Path) -> Result<bool, SandboxError> {
    match rustix::fs::flock(f, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(false),
        Err(e) => Err(SandboxError::Placeholder { path: p.to_path_buf(), source: e.into() }),
    }
}

#[cfg(not(unix))]
fn flock(_: &File, _: Lock, _: &Path) -> Result<(), SandboxError> {
    Ok(())
}

#[cfg(not(unix))]
fn try_flock(_: &File, _: &Path) -> Result<bool, SandboxError> {
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let dir = tempfile::tempdir().expect("tempdir");
        let made = dir.path().join("made");
        append(&made, Path::new("/a b/\u{e9}\n.x"), Kind::Dir).expect("append");
        append(&made, Path::new("/c"), Kind::Absent).expect("append");
        assert_eq!(
            read_record(&made),
            vec![(PathBuf::from("/a b/\u{e9}\n.x"), Kind::Dir), (PathBuf::from("/c"), Kind::Absent)]
        );
    }

    /// Every missing path is recorded before any is made, each once, also when it is asked for
    /// twice; the lease's end removes them again.
    #[test]
    fn acquire_records_then_makes_each_placeholder_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let state = dir.path().join("state");
        let (a, b, there) = (dir.path().join("a"), dir.path().join("b.md"), dir.path().join("there"));
        std::fs::create_dir(&there).expect("mkdir");
        let wanted =
            vec![(a.clone(), Kind::Dir), (b.clone(), Kind::File), (a.clone(), Kind::Dir), (there.clone(), Kind::Dir)];
        // A keeper seems to run (this test holds its lock), so none is started.
        private_dir(&state).expect("state");
        let keeper = open(&state.join("keeper")).expect("keeper");
        flock(&keeper, Lock::Exclusive, &state).expect("lock");
        let lease = acquire(&state, &wanted, Path::new("/nonexistent/wicket")).expect("acquire");
        assert!(a.is_dir() && b.is_file() && there.is_dir());
        assert_eq!(read_record(&state.join("made")), vec![(a.clone(), Kind::Dir), (b.clone(), Kind::File)]);
        drop(lease);
        assert!(!a.exists() && !b.exists() && there.is_dir(), "what was there before stays");
    }

    #[test]
    fn clean_removes_only_what_is_still_a_placeholder() {
        let dir = tempfile::tempdir().expect("tempdir");
        let made = dir.path().join("made");
        let (empty, kept, file, written, planted) = (
            dir.path().join("empty"),
            dir.path().join("kept"),
            dir.path().join("f"),
            dir.path().join("w"),
            dir.path().join("commondir"),
        );
        std::fs::create_dir(&empty).expect("mkdir");
        std::fs::create_dir(&kept).expect("mkdir");
        std::fs::write(kept.join("x"), "").expect("write");
        std::fs::write(&file, "").expect("write");
        std::fs::write(&written, "data").expect("write");
        std::fs::write(&planted, "/evil").expect("write");
        for (p, k) in [(&empty, Kind::Dir), (&kept, Kind::Dir), (&file, Kind::File), (&written, Kind::File)] {
            append(&made, p, k).expect("append");
        }
        append(&made, &planted, Kind::Absent).expect("append");
        // An entry nobody here would make (a forged record): left alone, and kept.
        let foreign = dir.path().join("foreign");
        std::fs::create_dir(&foreign).expect("mkdir");
        append(&made, &foreign, Kind::Dir).expect("append");
        let wanted: Vec<(PathBuf, Kind)> = vec![
            (empty.clone(), Kind::Dir),
            (kept.clone(), Kind::Dir),
            (file.clone(), Kind::File),
            (written.clone(), Kind::File),
            (planted.clone(), Kind::Absent),
        ];
        clean(&made, &wanted);
        assert!(!empty.exists() && !file.exists() && !planted.exists());
        assert!(kept.join("x").exists() && written.exists(), "what a person put there stays");
        assert!(foreign.exists(), "a record entry the caller would not make is not acted on");
        assert_eq!(read_record(&made), vec![(foreign.clone(), Kind::Dir)]);
    }
}
