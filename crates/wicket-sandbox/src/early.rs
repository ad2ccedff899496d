//! The sandbox's first process, started before the run's plan exists.
//!
//! The hard question: how does a run stop paying for a program start after its plan? The line
//! wicket's own namespaces carry out ([`crate::native`]) is only known once the run is planned,
//! and starting `wicket-shim` for it then (a fork of a process that by now has threads and a
//! large heap, the mounts of wicket's own namespace, an exec, a dynamic loader) costs more than
//! bubblewrap's whole start. So, as soon as the settings say the command will run in wicket's
//! own namespaces, wicket starts the shim's program (`posix_spawn`: no copy of wicket's pages,
//! which a fork would leave wicket to fault on while it plans) with a socket, and the shim's
//! start overlaps the planning on the second core. It closes every descriptor but its standard
//! streams and the socket, and waits. When the plan is made, wicket sends it what the exec
//! would have carried: the line, the mounts of its own namespace, and the descriptors the line
//! names (`SCM_RIGHTS`, put back on the numbers the line names). The helper then does what the
//! shim started after the plan did: enters the namespace, mounts, and carries out the line. A
//! run that does not use it (refused, another backend, the network proxy, a stale scan) closes
//! the socket, and the helper ends without doing anything.

use std::ffi::OsString;
use std::io::{IoSlice, IoSliceMut, Read, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Child, ChildStderr, ChildStdout, Command, Stdio};
use std::sync::Mutex;

use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer, SendAncillaryMessage, SendFlags,
};
use serde::{Deserialize, Serialize};

use crate::layers::Mounts;

/// The hidden sub-command of `wicket-shim` (and `wicket`) that waits for a line (see the
/// module's documentation): `__sandbox-early SOCKET-FD PARENT-PID`.
pub const EARLY_ARG: &str = "__sandbox-early";

/// The most descriptors one launch hands over (the kernel's limit for one message is 253).
const MAX_FDS: usize = 200;

/// The largest launch message the helper reads.
const MAX_LAUNCH: usize = 16 * 1024 * 1024;

/// A started helper, waiting for its launch.
pub(crate) struct Early {
    child: Option<Child>,
    ctrl: std::os::unix::net::UnixStream,
}

/// The helper being started, as the thread that starts it will send it (`None`: its start
/// failed; a thread that died sends nothing, and the channel says so). That thread then stays
/// until wicket exits: the kernel sends a child's death signal when the *thread* that started
/// it ends, and the helper must end with wicket, not with that thread.
static EARLY: Mutex<Option<std::sync::mpsc::Receiver<Option<Early>>>> = Mutex::new(None);

/// What wicket sends the helper besides the line (which follows it as NUL-separated bytes:
/// as JSON, each byte of a path would be a number to parse).
#[derive(Serialize, Deserialize)]
struct Launch {
    /// The number each handed-over descriptor must get, in the order they were sent.
    targets: Vec<RawFd>,
    /// The mounts of wicket's own namespace, made before the line.
    mounts: Option<Mounts>,
    /// The command reads nothing (`/dev/null` as its input).
    null_stdin: bool,
}

/// Start the helper now (`exe`: wicket's binary; its small shim beside it is started when
/// installed) when the command will run in wicket's own namespaces. `WICKET_EARLY_HELPER=0`
/// turns it off (for comparisons). Whether one was started.
pub fn start_soon(exe: &Path) -> bool {
    if std::env::var_os("WICKET_EARLY_HELPER").is_some_and(|v| v == "0") || !crate::runner::own_namespaces() {
        return false;
    }
    let Ok(mut slot) = EARLY.lock() else { return false };
    if slot.is_some() {
        return false;
    }
    let exe = exe.to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    let started = std::thread::Builder::new().name("early helper".into()).stack_size(64 * 1024).spawn(move || {
        let _ = tx.send(start(&exe).ok());
        // Kept until wicket exits (see `EARLY`).
        loop {
            std::thread::park();
        }
    });
    if started.is_err() {
        return false;
    }
    *slot = Some(rx);
    true
}

/// The helper started by [`start_soon`], if any is waiting (once); the caller launches it or
/// [`discard`]s it.
pub(crate) fn take() -> Option<Early> {
    let rx = EARLY.lock().ok()?.take()?;
    rx.recv().ok().flatten()
}

fn start(exe: &Path) -> Result<Early, String> {
    use rustix::net::{AddressFamily, SocketFlags, SocketType};
    let (ours, theirs) = rustix::net::socketpair(AddressFamily::UNIX, SocketType::STREAM, SocketFlags::CLOEXEC, None)
        .map_err(|e| format!("socketpair: {e}"))?;
    // Only the helper's end crosses the exec.
    rustix::io::fcntl_setfd(&theirs, rustix::io::FdFlags::empty()).map_err(|e| e.to_string())?;
    let mut c = Command::new(crate::shim::program(exe));
    c.arg(EARLY_ARG).arg(theirs.as_raw_fd().to_string()).arg(std::process::id().to_string());
    // Its own process group, as the shim started later had (signals reach the sandbox through
    // it), and its output read by wicket's capture threads once launched.
    std::os::unix::process::CommandExt::process_group(&mut c, 0);
    c.stdin(Stdio::inherit()).stdout(Stdio::piped()).stderr(Stdio::piped());
    // Orphans of the command are reparented to wicket, so they can be found and killed.
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    let child = c.spawn().map_err(|e| format!("{}: {e}", exe.display()))?;
    drop(theirs);
    Ok(Early { child: Some(child), ctrl: std::os::unix::net::UnixStream::from(ours) })
}

/// The helper (`__sandbox-early SOCKET-FD PARENT-PID`): wait for the launch, then carry it out.
/// Returns its exit status: the sandbox's, 0 when the socket closed unused, 126 on a failure.
pub fn main(args: &[OsString]) -> i32 {
    let num = |i: usize| args.get(i).and_then(|a| a.to_str()).and_then(|a| a.parse::<i32>().ok());
    let (Some(fd), Some(parent)) = (num(0), num(1)) else {
        eprintln!("wicket sandbox: usage: wicket-shim {EARLY_ARG} SOCKET-FD PARENT-PID (started by wicket only)");
        return 126;
    };
    // SAFETY: prctl and getppid; killed with wicket, as the shim started later was (armed
    // before the parent check, so a parent gone in between is seen).
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0
            || libc::getppid() != parent
        {
            return 126;
        }
    }
    // SAFETY: a number borrowed only to ask whether it is open.
    let open = fd > 2 && rustix::io::fcntl_getfd(unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) }).is_ok();
    if !open {
        eprintln!("wicket sandbox: the early helper's socket {fd} is not open");
        return 126;
    }
    // SAFETY: the number was handed over for this socket alone (checked open above).
    let ctrl = unsafe { OwnedFd::from_raw_fd(fd) };
    // Nothing inherited is kept but the socket: what the line needs comes with the launch.
    close_from(3, fd);
    close_from(fd + 1, RawFd::MAX);
    match receive(&ctrl) {
        Ok(None) => 0,
        Ok(Some((launch, args, fds))) => match prepare(launch, fds, ctrl) {
            Ok(mounts) => {
                crate::trace::phase("own namespaces: line received");
                let entered = match &mounts {
                    Some(m) => m.enter().map_err(|e| std::io::Error::from_raw_os_error(e).to_string()),
                    None => Ok(()),
                };
                match entered {
                    Ok(()) => crate::native::main(&args),
                    Err(e) => {
                        eprintln!(
                            "wicket sandbox: cannot build the sandbox, so the command does not run: wicket's own namespace: {e}"
                        );
                        126
                    }
                }
            }
            Err(e) => {
                eprintln!("wicket sandbox: cannot build the sandbox, so the command does not run: {e}");
                126
            }
        },
        Err(e) => {
            eprintln!("wicket sandbox: cannot build the sandbox, so the command does not run: {e}");
            126
        }
    }
}

/// Close the descriptors from `lo` up to (not including) `hi`.
fn close_from(lo: RawFd, hi: RawFd) {
    if lo < hi {
        // SAFETY: close_range on numbers only.
        unsafe { libc::syscall(libc::SYS_close_range, lo as libc::c_uint, (hi - 1) as libc::c_uint, 0) };
    }
}

/// A launch as received: the rest, the line, the descriptors.
type Received = (Launch, Vec<OsString>, Vec<OwnedFd>);

/// The launch, its line and its descriptors, or `None` when wicket closed the socket unused.
fn receive(ctrl: &OwnedFd) -> Result<Option<Received>, String> {
    let mut header = [0u8; 12];
    let mut space = vec![MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let got = loop {
        match rustix::net::recvmsg(ctrl, &mut [IoSliceMut::new(&mut header)], &mut control, RecvFlags::CMSG_CLOEXEC) {
            Err(rustix::io::Errno::INTR) => continue,
            other => break other.map_err(|e| format!("the launch: {e}"))?,
        }
    };
    if got.bytes == 0 {
        return Ok(None);
    }
    let mut fds = Vec::new();
    for msg in control.drain() {
        if let RecvAncillaryMessage::ScmRights(rights) = msg {
            fds.extend(rights);
        }
    }
    let mut stream = std::os::unix::net::UnixStream::from(ctrl.try_clone().map_err(|e| e.to_string())?);
    if got.bytes < header.len() {
        stream.read_exact(&mut header[got.bytes..]).map_err(|e| format!("the launch: {e}"))?;
    }
    let field = |i: usize| u32::from_le_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]) as usize;
    let (json_len, line_len, count) = (field(0), field(4), field(8));
    if json_len.saturating_add(line_len) > MAX_LAUNCH || count != fds.len() {
        return Err("the launch is not whole".into());
    }
    let mut body = vec![0u8; json_len + line_len];
    stream.read_exact(&mut body).map_err(|e| format!("the launch: {e}"))?;
    let launch: Launch = serde_json::from_slice(&body[..json_len]).map_err(|e| format!("the launch: {e}"))?;
    let line = &body[json_len..];
    if line.last().is_some_and(|b| *b != 0) {
        return Err("the launch's line is not whole".into());
    }
    let mut args: Vec<OsString> =
        line.split(|b| *b == 0).map(|a| OsString::from(std::ffi::OsStr::from_bytes(a))).collect();
    // What follows the last NUL (nothing).
    args.pop();
    if launch.targets.len() != fds.len() {
        return Err("the launch's descriptors do not match".into());
    }
    Ok(Some((launch, args, fds)))
}

/// Put each handed-over descriptor on its number (inheritable, as an exec would have found it)
/// and close everything else above the standard streams; the mounts.
fn prepare(launch: Launch, fds: Vec<OwnedFd>, ctrl: OwnedFd) -> Result<Option<Mounts>, String> {
    let Launch { targets, mounts, null_stdin } = launch;
    if null_stdin {
        let null = std::fs::File::open("/dev/null").map_err(|e| format!("/dev/null: {e}"))?;
        // SAFETY: dup2 onto the standard input.
        if unsafe { libc::dup2(null.as_raw_fd(), 0) } < 0 {
            return Err(format!("standard input: {}", std::io::Error::last_os_error()));
        }
    }
    // The numbers the mounts reserve, and the targets, must be free: everything received goes
    // above them first.
    let reserved = mounts.as_ref().map(Mounts::reserved_fds).unwrap_or_default();
    let top = targets.iter().chain(&reserved).copied().chain([2]).max().unwrap_or(2);
    if targets.iter().any(|t| *t <= 2) {
        return Err("a descriptor of the line is a standard stream".into());
    }
    let mut high = Vec::new();
    for fd in &fds {
        // SAFETY: F_DUPFD_CLOEXEC on a descriptor this process holds.
        let n = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, top + 1) };
        if n < 0 {
            return Err(format!("descriptor: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: just made, owned here.
        high.push(unsafe { OwnedFd::from_raw_fd(n) });
    }
    drop(fds);
    drop(ctrl);
    // Whatever is left below the received copies (the originals, the socket) goes.
    close_from(3, top + 1);
    for (fd, target) in high.iter().zip(&targets) {
        // SAFETY: dup2 onto a number this process does not otherwise use (closed above); the
        // copy is inheritable, as the descriptor was in wicket.
        if unsafe { libc::dup2(fd.as_raw_fd(), *target) } < 0 {
            return Err(format!("descriptor {target}: {}", std::io::Error::last_os_error()));
        }
    }
    drop(high);
    Ok(mounts)
}

impl Early {
    /// Hand the helper the line (`args` as they follow `__sandbox-ns`), the mounts of wicket's
    /// own namespace, and every descriptor of this process that an exec would pass on (those
    /// without close-on-exec, above the standard streams), each to get the same number there.
    /// The helper's process and its output pipes, for the caller to wait on and read.
    pub(crate) fn launch(
        mut self,
        args: Vec<OsString>,
        mounts: Option<Mounts>,
        null_stdin: bool,
    ) -> Result<(Child, Option<ChildStdout>, Option<ChildStderr>), String> {
        if let Err(e) = send(&mut self.ctrl, args, mounts, null_stdin) {
            discard(self);
            return Err(e);
        }
        let mut child = self.child.take().ok_or("the helper was already used")?;
        let (out, err) = (child.stdout.take(), child.stderr.take());
        Ok((child, out, err))
    }
}

impl Drop for Early {
    /// Unused (or launched): the socket closes; an unused helper then ends by itself.
    fn drop(&mut self) {
        let _ = self.ctrl.shutdown(std::net::Shutdown::Both);
    }
}

/// End an unused helper: its socket closes, it ends by itself, and is reaped.
pub(crate) fn discard(mut early: Early) {
    let child = early.child.take();
    drop(early);
    if let Some(mut c) = child {
        let _ = c.wait();
    }
}

/// Send a launch on `ctrl`: the line, the mounts, and this process's inheritable descriptors.
fn send(
    ctrl: &mut std::os::unix::net::UnixStream,
    args: Vec<OsString>,
    mounts: Option<Mounts>,
    null_stdin: bool,
) -> Result<(), String> {
    let inherited = inheritable_fds()?;
    if inherited.len() > MAX_FDS {
        return Err(format!("{} descriptors are more than one launch carries", inherited.len()));
    }
    let launch = Launch { targets: inherited.clone(), mounts, null_stdin };
    let mut body = serde_json::to_vec(&launch).map_err(|e| e.to_string())?;
    let json_len = body.len();
    // Each argument ends with a NUL (none holds one: exec could not carry it either).
    for a in &args {
        if a.as_bytes().contains(&0) {
            return Err(format!("{} holds a NUL byte", a.to_string_lossy()));
        }
        body.extend_from_slice(a.as_bytes());
        body.push(0);
    }
    let len = |n: usize| u32::try_from(n).map(u32::to_le_bytes).map_err(|e| e.to_string());
    let mut header = [0u8; 12];
    header[..4].copy_from_slice(&len(json_len)?);
    header[4..8].copy_from_slice(&len(body.len() - json_len)?);
    header[8..].copy_from_slice(&len(inherited.len())?);
    // SAFETY: the numbers are this process's open descriptors, borrowed for the send only.
    let borrowed: Vec<_> = inherited.iter().map(|fd| unsafe { std::os::fd::BorrowedFd::borrow_raw(*fd) }).collect();
    let mut space = vec![MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(borrowed.len().max(1)))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !borrowed.is_empty() && !control.push(SendAncillaryMessage::ScmRights(&borrowed)) {
        return Err("no room for the descriptors".into());
    }
    let sent = rustix::net::sendmsg(ctrl.as_fd(), &[IoSlice::new(&header)], &mut control, SendFlags::NOSIGNAL)
        .map_err(|e| format!("the launch: {e}"))?;
    if sent != header.len() {
        ctrl.write_all(&header[sent..]).map_err(|e| format!("the launch: {e}"))?;
    }
    ctrl.write_all(&body).map_err(|e| format!("the launch: {e}"))?;
    Ok(())
}

/// This process's descriptors above the standard streams that an exec would keep open.
fn inheritable_fds() -> Result<Vec<RawFd>, String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc/self/fd").map_err(|e| format!("/proc/self/fd: {e}"))? {
        let Ok(entry) = entry else { continue };
        let Some(n) = entry.file_name().to_str().and_then(|s| s.parse::<RawFd>().ok()) else { continue };
        if n <= 2 {
            continue;
        }
        // SAFETY: F_GETFD on a number; one that closed meanwhile (the listing's own) fails.
        let flags = unsafe { libc::fcntl(n, libc::F_GETFD) };
        if flags >= 0 && flags & libc::FD_CLOEXEC == 0 {
            out.push(n);
        }
    }
    out.sort_unstable();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch arrives as sent: every argument (an empty one, bytes that are not UTF-8), each
    /// inheritable descriptor with its number, and the rest.
    #[test]
    fn a_launch_arrives_whole() {
        let (mut ours, theirs) = std::os::unix::net::UnixStream::pair().expect("pair");
        // One inheritable descriptor of our own, so that at least one crosses.
        let (r, _w) = rustix::pipe::pipe().expect("pipe");
        let args: Vec<OsString> = vec![
            "--unshare-user".into(),
            "".into(),
            OsString::from(std::ffi::OsStr::from_bytes(b"/tmp/\xff\xfe")),
            "--".into(),
            "true".into(),
        ];
        send(&mut ours, args.clone(), None, true).expect("sent");
        let (launch, got, fds) = receive(&OwnedFd::from(theirs)).expect("received").expect("a launch");
        assert_eq!(got, args);
        assert!(launch.null_stdin && launch.mounts.is_none());
        assert!(launch.targets.contains(&r.as_raw_fd()), "{:?}", launch.targets);
        assert_eq!(fds.len(), launch.targets.len());
        drop(ours);
    }

    /// A socket closed without a launch is no launch (the run did not use the helper).
    #[test]
    fn a_closed_socket_is_no_launch() {
        let (ours, theirs) = std::os::unix::net::UnixStream::pair().expect("pair");
        drop(ours);
        assert!(receive(&OwnedFd::from(theirs)).expect("no error").is_none());
    }
}
