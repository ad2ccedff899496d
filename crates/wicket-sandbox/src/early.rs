//! The sandbox's first process, started before the run's plan exists.
//!
//! The hard question: how does a run stop paying for a program start after its plan? The line
//! wicket's own namespaces carry out ([`crate::native`]) is only known once the run is planned,
//! and starting `wicket-shim` for it then (an exec, a dynamic loader, the C library's start:
//! on a virtual machine each of its dozens of `cpuid` instructions is a trip to the
//! hypervisor) costs more than bubblewrap's whole start. So, as soon as the settings say the
//! command will run in wicket's own namespaces, and while wicket still has one thread and a
//! small heap, wicket forks: the copy is the helper, with a socket, and no program starts at
//! all (an exec of the shim there, overlapping the planning, took the second core from the
//! root-only search the plan waits for: 0.8 ms of every run's start as root). It closes every
//! descriptor but its standard streams and the socket, and waits. When the plan is made,
//! wicket sends it what the exec would have carried: the line, the mounts of its own
//! namespace, and the descriptors the line names (`SCM_RIGHTS`, put back on the numbers the
//! line names). The helper then does what the shim started after the plan did: enters the
//! namespace, mounts, and carries out the line. A run that does not use it (refused, another
//! backend, the network proxy, a stale scan) closes the socket, and the helper ends without
//! doing anything. When wicket already has threads, no helper is made (a fork would copy
//! their locks, held): the shim is started after the plan instead.

use std::ffi::OsString;
use std::io::{IoSlice, IoSliceMut, Read, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::process::{ChildStderr, ChildStdout};
use std::sync::Mutex;

use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer, SendAncillaryMessage, SendFlags,
};
use serde::{Deserialize, Serialize};

use crate::layers::Mounts;
use crate::runner::Proc;

/// The most descriptors one launch hands over (the kernel's limit for one message is 253).
const MAX_FDS: usize = 200;

/// The largest launch message the helper reads.
const MAX_LAUNCH: usize = 16 * 1024 * 1024;

/// A started helper, waiting for its launch.
pub(crate) struct Early {
    pid: Option<libc::pid_t>,
    out: Option<ChildStdout>,
    err: Option<ChildStderr>,
    /// Taken by the launch, which waits on it for the sandbox's status.
    ctrl: Option<std::os::unix::net::UnixStream>,
}

/// The helper made by [`start_soon`], until the run takes it.
static EARLY: Mutex<Option<Early>> = Mutex::new(None);

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

/// Make the helper now, when the command will run in wicket's own namespaces and this process
/// has one thread. `WICKET_EARLY_HELPER=0` turns it off (for comparisons). Whether one was
/// made.
pub fn start_soon() -> bool {
    if std::env::var_os("WICKET_EARLY_HELPER").is_some_and(|v| v == "0") || !crate::runner::own_namespaces() {
        return false;
    }
    let Ok(mut slot) = EARLY.lock() else { return false };
    if slot.is_some() || !one_thread() {
        return false;
    }
    match fork_helper() {
        Ok(early) => {
            *slot = Some(early);
            true
        }
        Err(e) => {
            crate::trace::phase(&format!("early helper not made: {e}"));
            false
        }
    }
}

/// The helper made by [`start_soon`], if any is waiting (once); the caller launches it or
/// [`discard`]s it.
pub(crate) fn take() -> Option<Early> {
    EARLY.lock().ok()?.take()
}

/// Whether this process has a single thread (from the kernel's count; unknown counts as more).
fn one_thread() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return false };
    status.lines().find_map(|l| l.strip_prefix("Threads:")).is_some_and(|n| n.trim() == "1")
}

fn fork_helper() -> Result<Early, String> {
    use rustix::net::{AddressFamily, SocketFlags, SocketType};
    let (ours, theirs) = rustix::net::socketpair(AddressFamily::UNIX, SocketType::STREAM, SocketFlags::CLOEXEC, None)
        .map_err(|e| format!("socketpair: {e}"))?;
    let pipe = || rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(|e| format!("pipe: {e}"));
    let (out_r, out_w) = pipe()?;
    let (err_r, err_w) = pipe()?;
    // Orphans of the command are reparented to wicket, so they can be found and killed.
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    // SAFETY: getpid takes no arguments.
    let parent = unsafe { libc::getpid() };
    // SAFETY: this process has one thread (checked by the caller), so the child is a whole
    // copy of it, locks included, and may go on running Rust; it never returns from here.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("fork: {}", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        drop((ours, out_r, err_r));
        let code = helper(parent, theirs, out_w, err_w);
        crate::trace::phase("own namespaces: helper ends");
        // SAFETY: ends the helper without running wicket's exit handlers or destructors.
        unsafe { libc::_exit(code) }
    }
    // Its own process group, as the shim started later has (signals reach the sandbox
    // through it): set here too, so no signal to the group can come before the child's own
    // call.
    // SAFETY: setpgid on the child just made.
    unsafe { libc::setpgid(pid, pid) };
    drop((theirs, out_w, err_w));
    Ok(Early {
        pid: Some(pid),
        out: Some(ChildStdout::from(out_r)),
        err: Some(ChildStderr::from(err_r)),
        ctrl: Some(std::os::unix::net::UnixStream::from(ours)),
    })
}

/// The helper's side of the fork: its own group and output pipes, killed with wicket, then
/// wait for the launch and carry it out. Its exit status: the sandbox's, 0 when the socket
/// closed unused, 126 on a failure.
fn helper(parent: libc::pid_t, ctrl: OwnedFd, out: OwnedFd, err: OwnedFd) -> i32 {
    // SAFETY: plain calls on this process and on descriptors it owns; the death signal is armed
    // before the parent check, so a parent gone in between is seen.
    unsafe {
        libc::prctl(libc::PR_SET_NAME, c"wicket-sandbox".as_ptr() as libc::c_ulong, 0, 0, 0);
        libc::setpgid(0, 0);
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0
            || libc::getppid() != parent
            || libc::dup2(out.as_raw_fd(), 1) < 0
            || libc::dup2(err.as_raw_fd(), 2) < 0
        {
            return 126;
        }
    }
    drop((out, err));
    retitle();
    // Nothing of wicket's is kept but the socket: what the line needs comes with the launch.
    let fd = ctrl.as_raw_fd();
    close_from(3, fd);
    close_from(fd + 1, RawFd::MAX);
    // The namespace the line's mounts are made in needs nothing of the line: it is entered
    // now, while wicket plans. A kernel that refuses leaves it to the launch, as before.
    let own = crate::layers::enter_own().is_ok();
    crate::trace::phase("own namespaces: entered ahead");
    match serve(ctrl, own) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("wicket sandbox: cannot build the sandbox, so the command does not run: {e}");
            126
        }
    }
}

/// Wait for the launch and carry it out (in the namespace entered ahead when `own`): the
/// sandbox's exit status, 0 when wicket closed the socket unused.
fn serve(ctrl: OwnedFd, own: bool) -> Result<i32, String> {
    let Some((launch, args, fds)) = receive(&ctrl)? else { return Ok(0) };
    let (mounts, ctrl) = prepare(launch, fds, ctrl)?;
    crate::trace::phase("own namespaces: line received");
    if let Some(m) = &mounts {
        if own { m.enter_from_own() } else { m.enter() }
            .map_err(|e| format!("wicket's own namespace: {}", std::io::Error::from_raw_os_error(e)))?;
    }
    let code = crate::native::main(&args);
    // Every process of the sandbox is gone. This one's exit (its copy of wicket's memory, and
    // often the last hold on the namespace's mounts) is still to come, and takes longer than
    // what wicket does after the command: so the output pipes close and the status goes to
    // wicket now, and wicket reaps this process once its own work after the run is done.
    crate::trace::phase("own namespaces: status sent");
    // SAFETY: closes this process's standard output and error; nothing is written after.
    unsafe {
        libc::close(1);
        libc::close(2);
    }
    let _ = rustix::io::write(&ctrl, &code.to_ne_bytes());
    Ok(code)
}

/// Show the helper (and the sandbox's process 1, its copy) as `wicket-sandbox` in `ps` and
/// `/proc/PID/cmdline`, not with the copy of wicket's command line the fork left it: a
/// supervisor that looks for what is left of a run by the project's path or the command finds
/// the command's own processes, and process 1 lives a moment past wicket while the kernel tears
/// its namespaces down. The area is written through `/proc/self/mem`, and only when it holds
/// exactly wicket's arguments (a kernel that placed them elsewhere leaves the title as it was).
fn retitle() {
    use std::os::unix::fs::FileExt;
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return };
    let Some((_, rest)) = stat.rsplit_once(") ") else { return };
    // The fields from the state (field 3) on: the arguments' start and end are fields 48, 49.
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3).and_then(|v| v.parse::<u64>().ok());
    let (Some(start), Some(end)) = (field(48), field(49)) else { return };
    let mut want = Vec::new();
    for a in std::env::args_os() {
        want.extend_from_slice(a.as_bytes());
        want.push(0);
    }
    if end.checked_sub(start) != Some(want.len() as u64) {
        return;
    }
    let Ok(mem) = std::fs::OpenOptions::new().read(true).write(true).open("/proc/self/mem") else { return };
    let mut now = vec![0u8; want.len()];
    if mem.read_exact_at(&mut now, start).is_err() || now != want {
        return;
    }
    let mut title = vec![0u8; want.len()];
    let name = b"wicket-sandbox";
    let n = name.len().min(title.len().saturating_sub(1));
    title[..n].copy_from_slice(&name[..n]);
    let _ = mem.write_all_at(&title, start);
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
/// and close everything else above the standard streams; the mounts, and the socket, moved
/// above every number the line uses (it says the sandbox's status at the end; it closes on the
/// command's exec).
fn prepare(launch: Launch, fds: Vec<OwnedFd>, ctrl: OwnedFd) -> Result<(Option<Mounts>, OwnedFd), String> {
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
    let high_copy = |fd: &OwnedFd| {
        // SAFETY: F_DUPFD_CLOEXEC on a descriptor this process holds.
        let n = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, top + 1) };
        if n < 0 {
            return Err(format!("descriptor: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: just made, owned here.
        Ok(unsafe { OwnedFd::from_raw_fd(n) })
    };
    let high = fds.iter().map(high_copy).collect::<Result<Vec<_>, _>>()?;
    let ctrl_high = high_copy(&ctrl)?;
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
    Ok((mounts, ctrl_high))
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
    ) -> Result<(Proc, Option<ChildStdout>, Option<ChildStderr>), String> {
        let Some(mut ctrl) = self.ctrl.take() else { return Err("the helper was already used".into()) };
        if let Err(e) = send(&mut ctrl, args, mounts, null_stdin) {
            drop(ctrl);
            discard(self);
            return Err(e);
        }
        let pid = self.pid.take().ok_or("the helper was already used")?;
        Ok((Proc::forked(pid, Some(ctrl)), self.out.take(), self.err.take()))
    }
}

impl Drop for Early {
    /// Unused: the socket closes, and the helper then ends by itself.
    fn drop(&mut self) {
        if let Some(c) = &self.ctrl {
            let _ = c.shutdown(std::net::Shutdown::Both);
        }
    }
}

/// End an unused helper: its socket closes, it ends by itself, and is reaped.
pub(crate) fn discard(mut early: Early) {
    let pid = early.pid.take();
    drop(early);
    if let Some(pid) = pid {
        let _ = Proc::forked(pid, None).wait();
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

    /// A process with a second thread is never forked for a helper (the copy would hold that
    /// thread's locks with nobody to release them).
    #[test]
    fn a_second_thread_is_counted() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || rx.recv());
        assert!(!one_thread());
        drop(tx);
        let _ = t.join();
    }

    /// A socket closed without a launch is no launch (the run did not use the helper).
    #[test]
    fn a_closed_socket_is_no_launch() {
        let (ours, theirs) = std::os::unix::net::UnixStream::pair().expect("pair");
        drop(ours);
        assert!(receive(&OwnedFd::from(theirs)).expect("no error").is_none());
    }
}
