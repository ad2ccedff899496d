//! The sandbox's first process, forked before the run's plan exists.
//!
//! The hard question: how does a run pay less than a second program start for its sandbox? The
//! line wicket's own namespaces carry out ([`crate::native`]) is only known once the run is
//! planned, and starting `wicket-shim` for it then (a fork of a process that by now has threads
//! and a large heap, the mounts of wicket's own namespace, an exec, a dynamic loader) costs
//! more than bubblewrap's whole start. So, as soon as the settings say the command will run in
//! wicket's own namespaces, and while wicket still has one thread, it forks a copy of itself:
//! the helper. The helper closes every descriptor but its standard streams (the output pipes)
//! and a socket to wicket, and waits. When the plan is made, wicket sends it what the exec would
//! have carried: the line, the mounts of its own namespace, and the descriptors the line names
//! (`SCM_RIGHTS`, put back on the numbers the line names). The helper then does exactly what the
//! forked and executed shim did: enters the namespace, mounts, and carries out the line. A run
//! that does not use it (refused, another backend, the network proxy, a stale scan) closes the
//! socket, and the helper ends without doing anything.
//!
//! The helper is a copy of wicket taken before anything of the call was read but the settings;
//! process 1 of the sandbox is forked from it, without capabilities, not dumpable, under the
//! command's seccomp filter, as when it came from the shim's binary.

use std::ffi::OsString;
use std::io::{IoSlice, IoSliceMut, Read, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Mutex;

use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer, SendAncillaryMessage, SendFlags,
};
use serde::{Deserialize, Serialize};

use crate::layers::Mounts;

/// The most descriptors one launch hands over (the kernel's limit for one message is 253).
const MAX_FDS: usize = 200;

/// The largest launch message the helper reads.
const MAX_LAUNCH: usize = 16 * 1024 * 1024;

/// A forked helper, waiting for its launch.
pub(crate) struct Early {
    pid: libc::pid_t,
    ctrl: std::os::unix::net::UnixStream,
    /// The read ends of the helper's standard output and error.
    out: Option<OwnedFd>,
    err: Option<OwnedFd>,
}

static EARLY: Mutex<Option<Early>> = Mutex::new(None);

/// What wicket sends the helper.
#[derive(Serialize, Deserialize)]
struct Launch {
    /// The line, as it would follow `__sandbox-ns`.
    args: Vec<OsString>,
    /// The number each handed-over descriptor must get, in the order they were sent.
    targets: Vec<RawFd>,
    /// The mounts of wicket's own namespace, made before the line.
    mounts: Option<Mounts>,
    /// The command reads nothing (`/dev/null` as its input).
    null_stdin: bool,
}

/// Fork the helper now when the command will run in wicket's own namespaces and this process
/// has a single thread (a copy of a process with other threads could inherit a lock one of
/// them held). `WICKET_EARLY_HELPER=0` turns it off (for comparisons). Whether one was forked.
pub fn fork_soon() -> bool {
    if std::env::var_os("WICKET_EARLY_HELPER").is_some_and(|v| v == "0")
        || !crate::runner::own_namespaces()
        || !single_threaded()
    {
        return false;
    }
    let Ok(mut slot) = EARLY.lock() else { return false };
    if slot.is_none() {
        *slot = fork().ok();
        return slot.is_some();
    }
    false
}

/// The helper forked by [`fork_soon`], if any is waiting; the caller launches it or drops it.
pub(crate) fn take() -> Option<Early> {
    EARLY.lock().ok().and_then(|mut e| e.take())
}

/// Whether this process has one thread (its `stat` line's 20th field).
fn single_threaded() -> bool {
    let Ok(stat) = std::fs::read("/proc/self/stat") else { return false };
    // The name (field 2) is in parentheses and may hold spaces: count after its last ')'.
    let Some(close) = stat.iter().rposition(|b| *b == b')') else { return false };
    let rest = String::from_utf8_lossy(&stat[close + 1..]).into_owned();
    rest.split_whitespace().nth(17) == Some("1")
}

fn fork() -> Result<Early, String> {
    use rustix::net::{AddressFamily, SocketFlags, SocketType};
    let (ours, theirs) = rustix::net::socketpair(AddressFamily::UNIX, SocketType::STREAM, SocketFlags::CLOEXEC, None)
        .map_err(|e| format!("socketpair: {e}"))?;
    let flags = rustix::pipe::PipeFlags::CLOEXEC;
    let (out_r, out_w) = rustix::pipe::pipe_with(flags).map_err(|e| format!("pipe: {e}"))?;
    let (err_r, err_w) = rustix::pipe::pipe_with(flags).map_err(|e| format!("pipe: {e}"))?;
    let parent = std::process::id();
    // SAFETY: this process has one thread (checked by the caller), so the child is a whole
    // copy of it; it runs `helper`, which never returns.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("fork: {}", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        drop((ours, out_r, err_r));
        helper(parent, theirs, out_w, err_w);
    }
    // Its own process group (as `Command::process_group(0)` gives the exec'd shim), set on both
    // sides so that neither a signal to the group nor a wait for it can come too early.
    // SAFETY: setpgid on our own child.
    unsafe { libc::setpgid(pid, pid) };
    // Orphans of the command are reparented to wicket, so they can be found and killed.
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    drop((theirs, out_w, err_w));
    Ok(Early { pid, ctrl: std::os::unix::net::UnixStream::from(ours), out: Some(out_r), err: Some(err_r) })
}

/// The helper: wait for the launch, then carry it out; never returns.
fn helper(parent: u32, ctrl: OwnedFd, out: OwnedFd, err: OwnedFd) -> ! {
    // SAFETY: system calls on this process's own descriptors, ids and attributes.
    unsafe {
        libc::setpgid(0, 0);
        // Killed with wicket, as the exec'd shim was (armed before the parent check, so a
        // parent gone in between is seen).
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0
            || u32::try_from(libc::getppid()).ok() != Some(parent)
        {
            libc::_exit(126);
        }
        if libc::dup2(out.as_raw_fd(), 1) < 0 || libc::dup2(err.as_raw_fd(), 2) < 0 {
            libc::_exit(126);
        }
    }
    drop((out, err));
    // Nothing of wicket's is kept but the socket: what the line needs comes with the launch.
    let c = ctrl.as_raw_fd();
    close_from(3, c);
    close_from(c + 1, RawFd::MAX);
    let code = match receive(&ctrl) {
        Ok(None) => 0,
        Ok(Some((launch, fds))) => match prepare(launch, fds, ctrl) {
            Ok((args, mounts)) => {
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
    };
    // SAFETY: ends the helper without wicket's exit handlers (they are the parent's).
    unsafe { libc::_exit(code) }
}

/// Close the descriptors from `lo` up to (not including) `hi`.
fn close_from(lo: RawFd, hi: RawFd) {
    if lo < hi {
        // SAFETY: close_range on numbers only.
        unsafe { libc::syscall(libc::SYS_close_range, lo as libc::c_uint, (hi - 1) as libc::c_uint, 0) };
    }
}

/// The launch and its descriptors, or `None` when wicket closed the socket unused.
fn receive(ctrl: &OwnedFd) -> Result<Option<(Launch, Vec<OwnedFd>)>, String> {
    let mut header = [0u8; 8];
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
    let len = u32::from_le_bytes([header[0], header[1], header[2], header[3]]) as usize;
    let count = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
    if len > MAX_LAUNCH || count != fds.len() {
        return Err("the launch is not whole".into());
    }
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body).map_err(|e| format!("the launch: {e}"))?;
    let launch: Launch = serde_json::from_slice(&body).map_err(|e| format!("the launch: {e}"))?;
    if launch.targets.len() != fds.len() {
        return Err("the launch's descriptors do not match".into());
    }
    Ok(Some((launch, fds)))
}

/// Put each handed-over descriptor on its number (inheritable, as an exec would have found it)
/// and close everything else above the standard streams; the line and the mounts.
fn prepare(launch: Launch, fds: Vec<OwnedFd>, ctrl: OwnedFd) -> Result<(Vec<OsString>, Option<Mounts>), String> {
    let Launch { args, targets, mounts, null_stdin } = launch;
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
    Ok((args, mounts))
}

impl Early {
    /// The helper's process id (its process group's too).
    pub(crate) fn pid(&self) -> u32 {
        self.pid as u32
    }

    /// The read ends of the helper's standard output and error (once).
    pub(crate) fn pipes(&mut self) -> (Option<OwnedFd>, Option<OwnedFd>) {
        (self.out.take(), self.err.take())
    }

    /// Hand the helper the line (`args` as they follow `__sandbox-ns`), the mounts of wicket's
    /// own namespace, and every descriptor of this process that an exec would pass on (those
    /// without close-on-exec, above the standard streams), each to get the same number there.
    pub(crate) fn launch(
        &mut self,
        args: Vec<OsString>,
        mounts: Option<Mounts>,
        null_stdin: bool,
    ) -> Result<(), String> {
        let inherited = inheritable_fds()?;
        if inherited.len() > MAX_FDS {
            return Err(format!("{} descriptors are more than one launch carries", inherited.len()));
        }
        let targets: Vec<RawFd> = inherited.clone();
        let launch = Launch { args, targets, mounts, null_stdin };
        let body = serde_json::to_vec(&launch).map_err(|e| e.to_string())?;
        let mut header = [0u8; 8];
        header[..4].copy_from_slice(&u32::try_from(body.len()).map_err(|e| e.to_string())?.to_le_bytes());
        header[4..].copy_from_slice(&(inherited.len() as u32).to_le_bytes());
        // SAFETY: the numbers are this process's open descriptors, borrowed for the send only.
        let borrowed: Vec<_> = inherited.iter().map(|fd| unsafe { std::os::fd::BorrowedFd::borrow_raw(*fd) }).collect();
        let mut space = vec![MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(borrowed.len().max(1)))];
        let mut control = SendAncillaryBuffer::new(&mut space);
        if !borrowed.is_empty() && !control.push(SendAncillaryMessage::ScmRights(&borrowed)) {
            return Err("no room for the descriptors".into());
        }
        let sent = rustix::net::sendmsg(self.ctrl.as_fd(), &[IoSlice::new(&header)], &mut control, SendFlags::NOSIGNAL)
            .map_err(|e| format!("the launch: {e}"))?;
        if sent != header.len() {
            self.ctrl.write_all(&header[sent..]).map_err(|e| format!("the launch: {e}"))?;
        }
        self.ctrl.write_all(&body).map_err(|e| format!("the launch: {e}"))?;
        Ok(())
    }
}

impl Drop for Early {
    /// Unused (or launched): the socket closes; an unused helper then ends by itself.
    fn drop(&mut self) {
        let _ = self.ctrl.shutdown(std::net::Shutdown::Both);
    }
}

/// Reap an unused helper (it ends once its socket is closed).
pub(crate) fn discard(early: Early) {
    let pid = early.pid;
    drop(early);
    let mut status = 0;
    // SAFETY: waitpid on our own child with a status out-parameter.
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0
        && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
    {}
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
