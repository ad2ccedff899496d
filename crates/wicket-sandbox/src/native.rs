//! Wicket's own namespaces: the sandbox bubblewrap would build from wicket's line, built by the
//! shim itself (`wicket-shim __sandbox-ns LINE… -- SHIM-ARGS…`), then the shim's own walls in
//! the same process.
//!
//! The hard question: is the world the command sees exactly the one bubblewrap would have made
//! from the same line? Each option is carried out as bubblewrap documents it, in the line's
//! order: the same namespaces and uid maps, every bind recursive and `nosuid` (and `nodev` but
//! for the device nodes), a fresh `/dev` and `/proc` with bubblewrap's nodes and covers, the
//! same process tree (a monitor outside, a process 1 that reaps, the command as process 2), no
//! capabilities, no new privileges, the seccomp programs last. An option it does not know, a
//! path it cannot place, a mount that fails: the command does not run.
//!
//! Why not bubblewrap: bubblewrap reads the whole mount table back after each of its binds and
//! remounts (about 0.2 ms a mount on wicket's line of 40 and more); the new mount API needs no
//! table (one `mount_setattr` makes a tree read-only, every sub-mount with it). Each mount point
//! is looked up from the new root without following a link, and each bind is made from the
//! descriptor of the source that was looked up, so a folder swapped for a link between the
//! look and the mount moves nothing. And the shim runs in the process that built the walls:
//! one program start fewer.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// How the command's world is built: bubblewrap's options, as wicket's line uses them.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Line {
    /// `--unshare-net`.
    net: bool,
    /// `--unshare-cgroup-try`.
    cgroup: bool,
    /// `--disable-userns`.
    disable_userns: bool,
    /// `--die-with-parent`.
    die_with_parent: bool,
    /// `--new-session`.
    new_session: bool,
    /// `--clearenv`.
    clearenv: bool,
    /// `--setenv NAME VALUE`, in order.
    env: Vec<(OsString, OsString)>,
    /// `--chdir`.
    chdir: Option<PathBuf>,
    /// `--add-seccomp-fd`.
    seccomp_fds: Vec<i32>,
    /// `--sync-fd`: kept open by process 1 until the sandbox is gone, never by the command.
    sync_fd: Option<i32>,
    /// The mounts, in order.
    ops: Vec<Op>,
    /// After `--`.
    command: Vec<OsString>,
}

/// One mount of the line.
#[derive(Debug, PartialEq, Eq)]
enum Op {
    /// `--bind` and `--ro-bind`.
    Bind { src: PathBuf, dst: PathBuf, ro: bool },
    /// `--bind-fd FD DST`: the folder that descriptor names.
    BindFd { fd: i32, dst: PathBuf },
    /// `--dev`.
    Dev(PathBuf),
    /// `--proc`.
    Proc(PathBuf),
    /// `--tmpfs`.
    Tmpfs(PathBuf),
    /// `--remount-ro`: that mount only, not the ones below it.
    RemountRo(PathBuf),
    /// `--symlink TARGET LINK`.
    Symlink { target: OsString, link: PathBuf },
}

/// Parse the line. Every option wicket's line may hold is known; anything else is an error, so
/// a line this executor cannot carry out is never run with less than it says.
pub fn parse(args: &[OsString]) -> Result<Line, String> {
    let mut l = Line::default();
    let mut user = false;
    let mut pid = false;
    let mut it = args.iter();
    let path = |v: Option<&OsString>, opt: &str| -> Result<PathBuf, String> {
        let v = v.ok_or_else(|| format!("{opt} needs a path"))?;
        let p = PathBuf::from(v);
        if !p.is_absolute() || p.components().any(|c| matches!(c, Component::ParentDir)) {
            return Err(format!("{opt} {}: not an absolute path without `..`", p.display()));
        }
        Ok(p)
    };
    let fd = |v: Option<&OsString>, opt: &str| -> Result<i32, String> {
        v.and_then(|v| v.to_str())
            .and_then(|v| v.parse::<i32>().ok())
            .filter(|n| *n > 2)
            .ok_or_else(|| format!("{opt} needs a descriptor number above 2"))
    };
    while let Some(a) = it.next() {
        let Some(opt) = a.to_str() else {
            return Err(format!("unknown option {}", a.to_string_lossy()));
        };
        match opt {
            "--" => {
                l.command = it.cloned().collect();
                break;
            }
            "--unshare-user" => user = true,
            "--unshare-pid" => pid = true,
            "--unshare-ipc" | "--unshare-uts" => {}
            "--unshare-cgroup-try" => l.cgroup = true,
            "--unshare-net" => l.net = true,
            "--disable-userns" => l.disable_userns = true,
            "--die-with-parent" => l.die_with_parent = true,
            "--new-session" => l.new_session = true,
            "--clearenv" => l.clearenv = true,
            "--setenv" => {
                let (Some(k), Some(v)) = (it.next(), it.next()) else {
                    return Err("--setenv needs a name and a value".into());
                };
                if k.is_empty() || k.as_bytes().contains(&b'=') {
                    return Err(format!("--setenv {}: not a variable's name", k.to_string_lossy()));
                }
                l.env.push((k.clone(), v.clone()));
            }
            "--chdir" => l.chdir = Some(path(it.next(), opt)?),
            "--add-seccomp-fd" => l.seccomp_fds.push(fd(it.next(), opt)?),
            "--sync-fd" => l.sync_fd = Some(fd(it.next(), opt)?),
            "--bind" | "--ro-bind" => {
                let src = path(it.next(), opt)?;
                let dst = path(it.next(), opt)?;
                l.ops.push(Op::Bind { src, dst, ro: opt == "--ro-bind" });
            }
            "--bind-fd" => {
                let n = fd(it.next(), opt)?;
                l.ops.push(Op::BindFd { fd: n, dst: path(it.next(), opt)? });
            }
            "--dev" => l.ops.push(Op::Dev(path(it.next(), opt)?)),
            "--proc" => l.ops.push(Op::Proc(path(it.next(), opt)?)),
            "--tmpfs" => l.ops.push(Op::Tmpfs(path(it.next(), opt)?)),
            "--remount-ro" => l.ops.push(Op::RemountRo(path(it.next(), opt)?)),
            "--symlink" => {
                let target = it.next().ok_or("--symlink needs a target")?.clone();
                if target.is_empty() {
                    return Err("--symlink needs a target".into());
                }
                l.ops.push(Op::Symlink { target, link: path(it.next(), opt)? });
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    // The walls this executor keeps rely on both: no capabilities over the host's files (a
    // user namespace) and a process 1 of its own (a pid namespace).
    if !user || !pid {
        return Err("the line must unshare the user and pid namespaces".into());
    }
    if l.command.is_empty() {
        return Err("no command after --".into());
    }
    Ok(l)
}

/// `wicket-shim __sandbox-ns LINE… -- COMMAND…`: build the sandbox, run the command in it and
/// return its exit status (126 when the sandbox cannot be built: the command never started).
pub fn main(args: &[OsString]) -> i32 {
    crate::trace::phase("own namespaces: started");
    // One name in `ps` and `/proc/1/comm` however the helper was started (by a descriptor, its
    // name would be a number).
    // SAFETY: prctl with a constant C string.
    unsafe { libc::prctl(libc::PR_SET_NAME, c"wicket-sandbox".as_ptr() as libc::c_ulong, 0, 0, 0) };
    let line = match parse(args) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("wicket sandbox: the sandbox's line cannot be carried out, so the command does not run: {e}");
            return 126;
        }
    };
    match monitor(line) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("wicket sandbox: cannot build the sandbox, so the command does not run: {e}");
            126
        }
    }
}

/// A failed system call, named.
fn fail(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

fn cstr(p: &OsStr) -> Result<CString, String> {
    CString::new(p.as_bytes()).map_err(|_| format!("{} holds a NUL byte", p.to_string_lossy()))
}

/// The monitor outside: the namespaces, then process 1 in them; returns process 1's status.
fn monitor(line: Line) -> Result<i32, String> {
    // The folders behind the descriptors, named as this namespace sees them (the descriptors
    // were opened in wicket's): looked up again inside and compared, as bubblewrap does.
    let mut fd_paths = Vec::new();
    for op in &line.ops {
        if let Op::BindFd { fd, .. } = op {
            let p = std::fs::read_link(format!("/proc/self/fd/{fd}")).map_err(|e| format!("descriptor {fd}: {e}"))?;
            fd_paths.push((*fd, p));
        }
    }
    // SAFETY: these calls only return the caller's ids.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let mut flags =
        libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
    if line.net {
        flags |= libc::CLONE_NEWNET;
    }
    if line.cgroup && Path::new("/proc/self/ns/cgroup").exists() {
        flags |= libc::CLONE_NEWCGROUP;
    }
    // Process 1 reports the command's status on this pipe once every process of the sandbox
    // is gone, before it exits: the kernel's teardown of the namespaces (tens of mounts) is
    // then off the command's path. Its parent is outside its pid namespace, where `getppid`
    // says 0: whether the monitor is still there is read from the same pipe.
    let mut ends = [0i32; 2];
    // SAFETY: pipe2 into a two-element array.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(fail("pipe"));
    }
    let [from_one, to_monitor] = ends;
    // The mount namespace the monitor runs in (wicket's own, with the caches' and guarded
    // folders' overlays and the masks) would be torn down when the monitor ends, on the
    // command's path: process 1 keeps it open instead and lets it go once the status is out.
    let held_ns = std::fs::File::open("/proc/self/ns/mnt").ok();
    // The monitor stays in wicket's namespaces; the child is process 1 of the new ones.
    // SAFETY: clone without a new stack is a fork; this process has one thread, and the child
    // only continues this function's work.
    let child = unsafe {
        libc::syscall(libc::SYS_clone, (flags | libc::SIGCHLD) as libc::c_ulong, 0usize, 0usize, 0usize, 0usize)
    };
    if child < 0 {
        return Err(fail("clone"));
    }
    if child == 0 {
        // SAFETY: closes this process's copy of the monitor's end.
        unsafe { libc::close(from_one) };
        let held = held_ns.as_ref().map(|f| f.as_raw_fd());
        let code = match map_ids(uid, gid).and_then(|()| process_one(&line, &fd_paths, to_monitor, held)) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("wicket sandbox: cannot build the sandbox, so the command does not run: {e}");
                126
            }
        };
        // SAFETY: ends the child without running the parent's exit handlers twice.
        unsafe { libc::_exit(code) }
    }
    let child = child as libc::pid_t;
    crate::trace::phase("own namespaces: monitor cloned");
    // Wicket ends a run by signalling the monitor's process group (the sandbox is in a session
    // of its own): the monitor must die of it even where the caller ignored the signal (a
    // shell's background job ignores INT), and the sandbox with it. The command keeps what it
    // inherited, as on the host.
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
        // SAFETY: resets a signal to its default action; no handler is involved.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
    drop(held_ns);
    // SAFETY: the monitor reads; process 1 alone writes, and alone holds the sync descriptor.
    unsafe {
        libc::close(to_monitor);
        if let Some(fd) = line.sync_fd {
            libc::close(fd);
        }
    }
    let mut code = [0u8; 4];
    // SAFETY: a read into a four-byte buffer.
    let n = loop {
        let n = unsafe { libc::read(from_one, code.as_mut_ptr().cast(), code.len()) };
        if n >= 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            break n;
        }
    };
    if n == 4 {
        crate::trace::phase("own namespaces: monitor has the status");
        return Ok(i32::from_ne_bytes(code));
    }
    // Process 1 ended without a word (its set-up failed, or it was killed).
    Ok(wait_for(child))
}

/// The exit status of `pid` as a shell reports it (128 + the signal).
fn wait_for(pid: libc::pid_t) -> i32 {
    loop {
        let mut status = 0;
        // SAFETY: waitpid with a valid out pointer.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            return status_code(status);
        }
        if r < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 126;
        }
    }
}

fn status_code(status: i32) -> i32 {
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        126
    }
}

/// Map the caller's ids onto themselves in the user namespace just made (as bubblewrap does).
fn map_ids(uid: libc::uid_t, gid: libc::gid_t) -> Result<(), String> {
    let write = |file: &str, text: String| std::fs::write(file, text).map_err(|e| format!("{file}: {e}"));
    write("/proc/self/setgroups", "deny".into())?;
    write("/proc/self/uid_map", format!("{uid} {uid} 1\n"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1\n"))
}

/// Process 1 of the new pid namespace: the mounts, then the command as process 2, then reap.
fn process_one(line: &Line, fd_paths: &[(i32, PathBuf)], monitor: i32, held_ns: Option<i32>) -> Result<i32, String> {
    if line.die_with_parent {
        // SAFETY: prctl with constant arguments.
        if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) } != 0 {
            return Err(fail("death signal"));
        }
        let mut p = libc::pollfd { fd: monitor, events: libc::POLLOUT, revents: 0 };
        // SAFETY: poll of one held descriptor, without waiting.
        if unsafe { libc::poll(&mut p, 1, 0) } < 0 || p.revents & (libc::POLLERR | libc::POLLHUP) != 0 {
            // The monitor is gone (its end closed): so is the sandbox.
            return Ok(126);
        }
    }
    // Mount points are made with bubblewrap's modes whatever the caller's umask; the command
    // gets the caller's back.
    // SAFETY: umask with a constant.
    let umask = unsafe { libc::umask(0) };
    crate::trace::phase("own namespaces: process 1 started");
    build_root(line, fd_paths)?;
    crate::trace::phase("own namespaces: mounted");
    if line.net {
        loopback_up()?;
    }
    if line.disable_userns {
        disable_userns()?;
    }
    // Read now: the descriptors are closed before the command exists.
    let mut programs = Vec::new();
    for fd in &line.seccomp_fds {
        // SAFETY: the number was handed over for this program alone; it is read and closed here.
        let mut f = unsafe { std::fs::File::from_raw_fd(*fd) };
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut f, &mut bytes).map_err(|e| format!("seccomp program {fd}: {e}"))?;
        if bytes.is_empty() || bytes.len() % 8 != 0 || bytes.len() / 8 > usize::from(u16::MAX) {
            return Err(format!("seccomp program {fd} is not a filter"));
        }
        programs.push(bytes);
    }
    if line.new_session {
        // SAFETY: setsid takes no arguments.
        if unsafe { libc::setsid() } < 0 {
            return Err(fail("setsid"));
        }
    }
    let one = std::process::id();
    let two = Two { line, programs: &programs, one, monitor, held_ns, umask };
    let child = spawn_two(&two)?;
    // Process 1 keeps the sync descriptor and the monitor's pipe only (not even the standard
    // streams: the output ends with the command's processes), no capability, and the
    // command's own seccomp programs; nobody may read or write its memory.
    for fd in 0..3 {
        // SAFETY: closes a standard stream of this process only.
        unsafe { libc::close(fd) };
    }
    close_beyond(&[line.sync_fd, Some(monitor), held_ns]);
    crate::fallback::drop_capabilities()?;
    // SAFETY: prctl with constant arguments.
    if unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } != 0
        || unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0
    {
        return Err(fail("process 1's walls"));
    }
    load_seccomp(&programs)?;
    let mut code = 126;
    loop {
        let mut status = 0;
        // SAFETY: waitpid with a valid out pointer; process 1 reaps every orphan of the sandbox.
        let r = unsafe { libc::waitpid(-1, &mut status, 0) };
        if r == child {
            code = status_code(status);
            // The command is over: so is everything it started.
            // SAFETY: kill with constant arguments (in a pid namespace: all of its processes).
            unsafe { libc::kill(-1, libc::SIGKILL) };
        } else if r < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            break;
        }
    }
    // Every process of the sandbox is gone but this one: the sync descriptor says so now.
    if let Some(fd) = line.sync_fd {
        // SAFETY: closes the sync descriptor this process kept.
        unsafe { libc::close(fd) };
    }
    let bytes = code.to_ne_bytes();
    // SAFETY: a write of four bytes from a buffer on the stack.
    unsafe { libc::write(monitor, bytes.as_ptr().cast(), bytes.len()) };
    Ok(code)
}

/// What process 2 starts from (see [`spawn_two`]).
struct Two<'a> {
    line: &'a Line,
    programs: &'a [Vec<u8>],
    one: u32,
    monitor: i32,
    held_ns: Option<i32>,
    umask: libc::mode_t,
}

/// The most stack process 2 may use before the command replaces it (mapped, touched as used).
const TWO_STACK: usize = 8 << 20;

/// Start process 2 sharing process 1's memory until it runs the command (or ends), as
/// `posix_spawn` does: process 1 waits meanwhile. A fork would copy the page tables of process
/// 1 (a copy of wicket), copy each page process 2 then writes, and tear all of it down again at
/// the command's exec. Process 2's own walls (capabilities, no new privileges, seccomp,
/// Landlock) are attributes of its task, not of the memory, so they stay its own; it runs on a
/// stack of its own, and process 1 uses nothing that process 2 changes (its environment) once
/// it goes on.
fn spawn_two(two: &Two<'_>) -> Result<libc::pid_t, String> {
    extern "C" fn start(arg: *mut libc::c_void) -> libc::c_int {
        // SAFETY: `arg` is the `Two` that `spawn_two` borrows for as long as process 1 waits,
        // which is until this process runs the command or ends.
        let two = unsafe { &*(arg as *const Two<'_>) };
        // SAFETY: umask with the caller's value.
        unsafe { libc::umask(two.umask) };
        let code = match process_two(two.line, two.programs, two.one, two.monitor, two.held_ns) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("wicket sandbox: cannot confine the command, so it does not run: {e}");
                126
            }
        };
        // SAFETY: ends process 2 without the parent's exit handlers.
        unsafe { libc::_exit(code) }
    }
    // SAFETY: an anonymous private mapping, checked below; its lowest page becomes a guard.
    let stack = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            TWO_STACK,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
            -1,
            0,
        )
    };
    if stack == libc::MAP_FAILED {
        return Err(fail("process 2's stack"));
    }
    // SAFETY: the first page of the mapping just made; the top is 16-byte aligned (page-aligned
    // start, size a multiple of the page).
    let top = unsafe {
        if libc::mprotect(stack, 4096, libc::PROT_NONE) != 0 {
            return Err(fail("process 2's stack guard"));
        }
        stack.cast::<u8>().add(TWO_STACK).cast::<libc::c_void>()
    };
    // SAFETY: the child runs `start` on its own stack with `two`, which outlives it here
    // (CLONE_VFORK: this call returns once the child has run the command or ended).
    let child = unsafe {
        libc::clone(
            start,
            top,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            two as *const Two<'_> as *mut libc::c_void,
        )
    };
    let failed = (child < 0).then(|| fail("clone of process 2"));
    // SAFETY: the child has run the command (its own memory now) or ended: nothing uses the
    // stack any more.
    unsafe { libc::munmap(stack, TWO_STACK) };
    failed.map_or(Ok(child), Err)
}

/// Process 2: no capability, no new privileges, the environment and folder of the line, the
/// seccomp programs, then the shim (in this process) or the command.
fn process_two(line: &Line, programs: &[Vec<u8>], one: u32, monitor: i32, held_ns: Option<i32>) -> Result<i32, String> {
    if let Some(fd) = line.sync_fd {
        // SAFETY: closes the sync descriptor, which only process 1 keeps.
        unsafe { libc::close(fd) };
    }
    // SAFETY: closes process 1's pipe to the monitor and its hold on wicket's namespace.
    unsafe {
        libc::close(monitor);
        if let Some(fd) = held_ns {
            libc::close(fd);
        }
    }
    if line.die_with_parent {
        die_with_parent(one)?;
    }
    let cwd = line.chdir.clone().unwrap_or_else(|| PathBuf::from("/"));
    std::env::set_current_dir(&cwd).map_err(|e| format!("cannot enter {}: {e}", cwd.display()))?;
    if line.clearenv {
        for (k, _) in std::env::vars_os() {
            std::env::remove_var(k);
        }
    }
    for (k, v) in &line.env {
        std::env::set_var(k, v);
    }
    std::env::set_var("PWD", &cwd);
    // The shim drops every capability itself, right before the command (and refuses to run it
    // when it cannot); any other command loses them here.
    let shim = line.command.get(1).is_some_and(|a| a == crate::SHIM_ARG);
    if !shim {
        crate::fallback::drop_capabilities()?;
    }
    // SAFETY: prctl with constant arguments.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(fail("no new privileges"));
    }
    load_seccomp(programs)?;
    crate::trace::phase("own namespaces: command's process ready");
    match line.command.split_first() {
        Some((_, rest)) if shim => Ok(crate::shim::main(&rest[1..])),
        Some((program, args)) => {
            use std::os::unix::process::CommandExt;
            let err = std::process::Command::new(program).args(args).exec();
            eprintln!("wicket sandbox: cannot run {}: {err}", program.to_string_lossy());
            Ok(if err.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 })
        }
        None => Err("no command".into()),
    }
}

/// Bring up the new network namespace's loopback (its addresses come with it), as bubblewrap
/// does: the proxy's listener and the command's own servers live there.
fn loopback_up() -> Result<(), String> {
    // SAFETY: a datagram socket for the interface ioctls, and `ifreq` zeroed then named "lo".
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s < 0 {
            return Err(fail("loopback: socket"));
        }
        let s = OwnedFd::from_raw_fd(s);
        let mut req: libc::ifreq = std::mem::zeroed();
        for (i, b) in b"lo".iter().enumerate() {
            req.ifr_name[i] = *b as libc::c_char;
        }
        if libc::ioctl(s.as_raw_fd(), libc::SIOCGIFFLAGS, &mut req) != 0 {
            return Err(fail("loopback: flags"));
        }
        req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
        if libc::ioctl(s.as_raw_fd(), libc::SIOCSIFFLAGS, &req) != 0 {
            return Err(fail("loopback: up"));
        }
    }
    Ok(())
}

/// Load the seccomp programs (no new privileges already set).
fn load_seccomp(programs: &[Vec<u8>]) -> Result<(), String> {
    for p in programs {
        let filter = libc::sock_fprog { len: (p.len() / 8) as u16, filter: p.as_ptr() as *mut libc::sock_filter };
        // SAFETY: `filter` points at `p`, whole instructions (checked when read), alive here.
        if unsafe { libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &filter as *const libc::sock_fprog) }
            != 0
        {
            return Err(fail("seccomp"));
        }
    }
    Ok(())
}

/// Killed when `parent` ends; a parent already gone ends this process now.
fn die_with_parent(parent: u32) -> Result<(), String> {
    // SAFETY: prctl with constant arguments, getppid.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
            return Err(fail("death signal"));
        }
        if u32::try_from(libc::getppid()).ok() != Some(parent) {
            libc::_exit(126);
        }
    }
    Ok(())
}

/// Close every descriptor above the standard three but those in `keep`.
fn close_beyond(keep: &[Option<i32>]) {
    let mut kept: Vec<u32> = keep.iter().flatten().filter_map(|k| u32::try_from(*k).ok()).filter(|k| *k > 2).collect();
    kept.sort_unstable();
    let mut lo = 3u32;
    for k in kept.into_iter().chain([u32::MAX]) {
        if lo < k {
            // SAFETY: close_range on numbers only.
            unsafe { libc::syscall(libc::SYS_close_range, lo, k - 1, 0) };
        }
        lo = k.saturating_add(1);
    }
}

/// As bubblewrap: the user namespaces below this one are limited to one, and that one is made
/// now, so the command can make none (and cannot raise the limit, which is its parent's).
fn disable_userns() -> Result<(), String> {
    std::fs::write("/proc/sys/user/max_user_namespaces", "1")
        .map_err(|e| format!("/proc/sys/user/max_user_namespaces: {e}"))?;
    // SAFETY: these calls only return the caller's ids.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    // SAFETY: unshare with a flag only; this process has one thread.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER) } != 0 {
        return Err(fail("unshare the second user namespace"));
    }
    map_ids(uid, gid)?;
    // SAFETY: as above.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER) } == 0 {
        return Err("a user namespace could still be made".into());
    }
    Ok(())
}

// The new mount API (Linux 5.12 and later for `mount_setattr`).
const OPEN_TREE_CLONE: libc::c_uint = 1;
const OPEN_TREE_CLOEXEC: libc::c_uint = libc::O_CLOEXEC as libc::c_uint;
const AT_RECURSIVE: libc::c_uint = 0x8000;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
const MOVE_MOUNT_T_EMPTY_PATH: libc::c_uint = 0x40;
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;
const MOUNT_ATTR_NOEXEC: u64 = 0x8;
const FSCONFIG_SET_FLAG: libc::c_uint = 0;
const FSCONFIG_SET_STRING: libc::c_uint = 1;
const FSCONFIG_CMD_CREATE: libc::c_uint = 6;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

fn owned(r: libc::c_long, what: &str) -> Result<OwnedFd, String> {
    if r < 0 {
        return Err(fail(what));
    }
    // SAFETY: a descriptor the kernel just returned, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(r as i32) })
}

/// `openat2` of `path` from `dir` with `resolve` flags, as an `O_PATH` descriptor.
fn open_path(dir: i32, path: &CStr, resolve: u64) -> Result<OwnedFd, std::io::Error> {
    let how = OpenHow { flags: (libc::O_PATH | libc::O_CLOEXEC) as u64, mode: 0, resolve };
    // SAFETY: openat2 with a C string and a correctly sized `open_how`.
    let r = unsafe {
        libc::syscall(libc::SYS_openat2, dir, path.as_ptr(), &how as *const OpenHow, std::mem::size_of::<OpenHow>())
    };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: as in `owned`.
    Ok(unsafe { OwnedFd::from_raw_fd(r as i32) })
}

/// Set `attrs` on the mount (with `recursive`, the tree) that `fd` names.
fn set_attrs(fd: &OwnedFd, attrs: u64, recursive: bool, what: &str) -> Result<(), String> {
    let a = MountAttr { attr_set: attrs, attr_clr: 0, propagation: 0, userns_fd: 0 };
    let flags = libc::AT_EMPTY_PATH as libc::c_uint | if recursive { AT_RECURSIVE } else { 0 };
    // SAFETY: mount_setattr on a descriptor with a correctly sized attribute block.
    let r = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            fd.as_raw_fd(),
            c"".as_ptr(),
            flags,
            &a as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if r != 0 {
        return Err(fail(what));
    }
    Ok(())
}

/// Attach the detached mount `tree` on the folder or file `at`.
fn attach(tree: &OwnedFd, at: &OwnedFd, what: &str) -> Result<(), String> {
    // SAFETY: move_mount between two descriptors with empty paths.
    let r = unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            tree.as_raw_fd(),
            c"".as_ptr(),
            at.as_raw_fd(),
            c"".as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH,
        )
    };
    if r != 0 {
        return Err(fail(what));
    }
    Ok(())
}

/// A copy of the mount tree at `src` (a descriptor), detached.
fn clone_tree(src: &OwnedFd, what: &str) -> Result<OwnedFd, String> {
    // SAFETY: open_tree on a descriptor with an empty path.
    let r = unsafe {
        libc::syscall(
            libc::SYS_open_tree,
            src.as_raw_fd(),
            c"".as_ptr(),
            OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | libc::AT_EMPTY_PATH as libc::c_uint,
        )
    };
    owned(r, what)
}

/// A new, detached file system of `fstype` with `options` (`None` value: a flag).
fn new_fs(fstype: &CStr, options: &[(&CStr, Option<&CStr>)], attrs: u64, what: &str) -> Result<OwnedFd, String> {
    // SAFETY: fsopen, fsconfig and fsmount with C strings and the descriptor they return.
    unsafe {
        let fs = owned(libc::syscall(libc::SYS_fsopen, fstype.as_ptr(), 1 as libc::c_uint /* FSOPEN_CLOEXEC */), what)?;
        for (k, v) in options {
            let (cmd, value) = match v {
                Some(v) => (FSCONFIG_SET_STRING, v.as_ptr()),
                None => (FSCONFIG_SET_FLAG, std::ptr::null()),
            };
            if libc::syscall(libc::SYS_fsconfig, fs.as_raw_fd(), cmd, k.as_ptr(), value, 0) != 0 {
                return Err(fail(what));
            }
        }
        if libc::syscall(
            libc::SYS_fsconfig,
            fs.as_raw_fd(),
            FSCONFIG_CMD_CREATE,
            std::ptr::null::<libc::c_char>(),
            std::ptr::null::<libc::c_char>(),
            0,
        ) != 0
        {
            return Err(fail(what));
        }
        owned(libc::syscall(libc::SYS_fsmount, fs.as_raw_fd(), 1 /* FSMOUNT_CLOEXEC */, attrs as libc::c_uint), what)
    }
}

/// What a missing mount point is made as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Folder,
    File,
    /// Not made: it must exist.
    Existing,
}

/// The place of the new root's mounts, with the host's root beside it.
struct Roots {
    /// `/newroot` in the process's current root (the base tmpfs).
    new: CString,
    /// The host's root, where the sources are looked up (links followed as the host would).
    old: OwnedFd,
}

impl Roots {
    /// `dst` in the new root, made when missing (folders on the way mode 0755, as bubblewrap),
    /// never through a link: a link anywhere on the way is an error.
    fn place(&self, dst: &Path, kind: Kind) -> Result<OwnedFd, String> {
        let rel = relative(dst)?;
        let top = open_path(libc::AT_FDCWD, &self.new, libc::RESOLVE_NO_SYMLINKS)
            .map_err(|e| format!("the new root: {e}"))?;
        if rel.as_bytes().is_empty() {
            return Ok(top);
        }
        match open_path(top.as_raw_fd(), &rel, libc::RESOLVE_NO_SYMLINKS) {
            Ok(fd) => return Ok(fd),
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) && kind != Kind::Existing => {}
            Err(e) => return Err(format!("{}: {e}", dst.display())),
        }
        // Walk and make what is missing.
        let names: Vec<&[u8]> = rel.as_bytes().split(|b| *b == b'/').filter(|n| !n.is_empty()).collect();
        let mut at = top;
        for (i, name) in names.iter().enumerate() {
            let last = i + 1 == names.len();
            let c = CString::new(*name).map_err(|_| format!("{} holds a NUL byte", dst.display()))?;
            match open_path(at.as_raw_fd(), &c, libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_BENEATH) {
                Ok(fd) => at = fd,
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
                    // SAFETY: mkdirat/openat relative to a held descriptor, with a C string.
                    let made = unsafe {
                        if last && kind == Kind::File {
                            let f = libc::openat(
                                at.as_raw_fd(),
                                c.as_ptr(),
                                libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                                0o444,
                            );
                            if f >= 0 {
                                libc::close(f);
                            }
                            f >= 0
                        } else {
                            libc::mkdirat(at.as_raw_fd(), c.as_ptr(), 0o755) == 0
                        }
                    };
                    if !made && std::io::Error::last_os_error().raw_os_error() != Some(libc::EEXIST) {
                        return Err(fail(&format!("cannot make the mount point {}", dst.display())));
                    }
                    at = open_path(at.as_raw_fd(), &c, libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_BENEATH)
                        .map_err(|e| format!("{}: {e}", dst.display()))?;
                }
                Err(e) => return Err(format!("{}: {e}", dst.display())),
            }
        }
        Ok(at)
    }

    /// `src` on the host, links followed as the host would follow them.
    fn source(&self, src: &Path) -> Result<OwnedFd, String> {
        let rel = relative(src)?;
        let rel = if rel.as_bytes().is_empty() { c".".to_owned() } else { rel };
        open_path(self.old.as_raw_fd(), &rel, libc::RESOLVE_IN_ROOT).map_err(|e| format!("{}: {e}", src.display()))
    }

    /// Bind the tree at `source` on `dst`, with `attrs` on every mount of it.
    fn bind(&self, source: &OwnedFd, dst: &Path, attrs: u64) -> Result<(), String> {
        let what = format!("bind {}", dst.display());
        let kind = if fstat(source)?.st_mode & libc::S_IFMT == libc::S_IFDIR { Kind::Folder } else { Kind::File };
        let at = self.place(dst, kind)?;
        let tree = clone_tree(source, &what)?;
        set_attrs(&tree, attrs, true, &what)?;
        attach(&tree, &at, &what)
    }

    /// A new file system on `dst` (a folder).
    fn mount_new(&self, dst: &Path, fs: OwnedFd) -> Result<(), String> {
        let at = self.place(dst, Kind::Folder)?;
        attach(&fs, &at, &format!("mount on {}", dst.display()))
    }

    fn apply(&self, op: &Op, fd_paths: &[(i32, PathBuf)]) -> Result<(), String> {
        match op {
            Op::Bind { src, dst, ro } => {
                let s = self.source(src)?;
                let ro = if *ro { MOUNT_ATTR_RDONLY } else { 0 };
                self.bind(&s, dst, ro | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
            }
            Op::BindFd { fd, dst } => {
                let Some((_, p)) = fd_paths.iter().find(|(n, _)| n == fd) else {
                    return Err(format!("descriptor {fd} was not looked up"));
                };
                let s = self.source(p)?;
                // SAFETY: fstat of a number handed over for this bind; only read.
                let held = unsafe {
                    let mut st: libc::stat = std::mem::zeroed();
                    (libc::fstat(*fd, &mut st) == 0).then_some(st)
                }
                .ok_or_else(|| fail(&format!("descriptor {fd}")))?;
                let found = fstat(&s)?;
                if (held.st_dev, held.st_ino) != (found.st_dev, found.st_ino) {
                    return Err(format!("{} is no longer the folder that was checked", p.display()));
                }
                self.bind(&s, dst, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)?;
                // SAFETY: the descriptor was handed over for this bind alone.
                unsafe { libc::close(*fd) };
                Ok(())
            }
            Op::Tmpfs(dst) => {
                let fs = new_fs(
                    c"tmpfs",
                    &[(c"mode", Some(c"0755"))],
                    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                    &format!("tmpfs on {}", dst.display()),
                )?;
                self.mount_new(dst, fs)
            }
            Op::RemountRo(dst) => {
                let at = self.place(dst, Kind::Existing)?;
                set_attrs(&at, MOUNT_ATTR_RDONLY, false, &format!("read-only {}", dst.display()))
            }
            Op::Symlink { target, link } => {
                let parent = link.parent().ok_or_else(|| format!("--symlink {}: no folder", link.display()))?;
                let name = link.file_name().ok_or_else(|| format!("--symlink {}: no name", link.display()))?;
                let at = self.place(parent, Kind::Folder)?;
                let (t, n) = (cstr(target)?, cstr(name)?);
                // SAFETY: symlinkat relative to a held descriptor, with C strings.
                if unsafe { libc::symlinkat(t.as_ptr(), at.as_raw_fd(), n.as_ptr()) } != 0 {
                    let exists = std::io::Error::last_os_error().raw_os_error() == Some(libc::EEXIST);
                    let same = exists && read_link_at(&at, &n).is_some_and(|l| l == target.as_bytes());
                    if !same {
                        return Err(fail(&format!("cannot make the link {}", link.display())));
                    }
                }
                Ok(())
            }
            Op::Proc(dst) => self.proc(dst),
            Op::Dev(dst) => self.dev(dst),
        }
    }

    /// A new `/proc` of the new pid namespace, with bubblewrap's covers: the old subfolders
    /// that could change the machine, read-only where they are writable at all.
    fn proc(&self, dst: &Path) -> Result<(), String> {
        let what = format!("proc on {}", dst.display());
        let fs = new_fs(c"proc", &[], MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, &what)?;
        self.mount_new(dst, fs)?;
        let proc = self.place(dst, Kind::Existing)?;
        for name in [c"sys", c"sysrq-trigger", c"irq", c"bus"] {
            // SAFETY: faccessat relative to a held descriptor, with a C string.
            if unsafe { libc::faccessat(proc.as_raw_fd(), name.as_ptr(), libc::W_OK, 0) } != 0 {
                continue;
            }
            let sub = open_path(proc.as_raw_fd(), name, libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_BENEATH)
                .map_err(|e| format!("{what}: {e}"))?;
            let tree = clone_tree(&sub, &what)?;
            set_attrs(&tree, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true, &what)?;
            attach(&tree, &sub, &what)?;
        }
        Ok(())
    }

    /// A new `/dev` as bubblewrap makes it: a tmpfs with the host's null, zero, full, random,
    /// urandom and tty bound in, the standard streams' links, a new `devpts`, and `console` for
    /// the terminal the command writes to.
    fn dev(&self, dst: &Path) -> Result<(), String> {
        let what = format!("dev on {}", dst.display());
        let fs = new_fs(c"tmpfs", &[(c"mode", Some(c"0755"))], MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, &what)?;
        self.mount_new(dst, fs)?;
        for node in ["null", "zero", "full", "random", "urandom", "tty"] {
            let s = self.source(&Path::new("/dev").join(node))?;
            self.bind(&s, &dst.join(node), MOUNT_ATTR_NOSUID)?;
        }
        let dev = self.place(dst, Kind::Existing)?;
        let link = |target: &CStr, name: &CStr| -> Result<(), String> {
            // SAFETY: symlinkat relative to a held descriptor, with C strings.
            if unsafe { libc::symlinkat(target.as_ptr(), dev.as_raw_fd(), name.as_ptr()) } != 0 {
                return Err(fail(&what));
            }
            Ok(())
        };
        link(c"/proc/self/fd/0", c"stdin")?;
        link(c"/proc/self/fd/1", c"stdout")?;
        link(c"/proc/self/fd/2", c"stderr")?;
        link(c"/proc/self/fd", c"fd")?;
        link(c"/proc/kcore", c"core")?;
        for name in [c"shm", c"pts"] {
            // SAFETY: mkdirat relative to a held descriptor, with a C string.
            if unsafe { libc::mkdirat(dev.as_raw_fd(), name.as_ptr(), 0o755) } != 0 {
                return Err(fail(&what));
            }
        }
        let pts = new_fs(
            c"devpts",
            &[(c"ptmxmode", Some(c"0666")), (c"mode", Some(c"620"))],
            MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
            &what,
        )?;
        self.mount_new(&dst.join("pts"), pts)?;
        link(c"pts/ptmx", c"ptmx")?;
        // As bubblewrap: where the command's output is a terminal, that terminal is also the
        // console, so `ttyname` works; it gives no more than the output already does.
        // SAFETY: isatty on a number.
        if unsafe { libc::isatty(1) } == 1 {
            if let Ok(tty) = std::fs::read_link("/oldroot/proc/self/fd/1") {
                if tty.starts_with("/dev/pts") || tty.starts_with("/dev/tty") {
                    let s = self.source(&tty)?;
                    self.bind(&s, &dst.join("console"), MOUNT_ATTR_NOSUID)?;
                }
            }
        }
        Ok(())
    }
}

fn fstat(fd: &OwnedFd) -> Result<libc::stat, String> {
    // SAFETY: fstat with a held descriptor and a zeroed out buffer.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(fd.as_raw_fd(), &mut st) != 0 {
            return Err(fail("fstat"));
        }
        Ok(st)
    }
}

fn read_link_at(dir: &OwnedFd, name: &CStr) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 4096];
    // SAFETY: readlinkat into a buffer of the given size.
    let n = unsafe { libc::readlinkat(dir.as_raw_fd(), name.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    let n = usize::try_from(n).ok()?;
    buf.truncate(n);
    Some(buf)
}

/// An absolute path as a path relative to a root (`/` becomes empty).
fn relative(p: &Path) -> Result<CString, String> {
    let mut out = Vec::new();
    for c in p.components() {
        match c {
            Component::RootDir | Component::CurDir => {}
            Component::Normal(n) => {
                if !out.is_empty() {
                    out.push(b'/');
                }
                out.extend_from_slice(n.as_bytes());
            }
            _ => return Err(format!("{}: not an absolute path without `..`", p.display())),
        }
    }
    CString::new(out).map_err(|_| format!("{} holds a NUL byte", p.display()))
}

/// The new root, built under a tmpfs of this namespace's own with the host's root beside it
/// (as bubblewrap: `/newroot` and `/oldroot`), then made the root, the host's unmounted.
fn build_root(line: &Line, fd_paths: &[(i32, PathBuf)]) -> Result<(), String> {
    let none: *const libc::c_char = std::ptr::null();
    // SAFETY: mount, chdir, mkdir, pivot_root and umount2 with constant C strings.
    unsafe {
        // Nothing mounted here reaches the namespace wicket runs in.
        if libc::mount(none, c"/".as_ptr(), none, libc::MS_SLAVE | libc::MS_REC, std::ptr::null()) != 0 {
            return Err(fail("making / a slave"));
        }
        if libc::mount(
            c"tmpfs".as_ptr(),
            c"/tmp".as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            c"mode=0755".as_ptr().cast(),
        ) != 0
        {
            return Err(fail("the base tmpfs"));
        }
        if libc::chdir(c"/tmp".as_ptr()) != 0
            || libc::mkdir(c"newroot".as_ptr(), 0o755) != 0
            || libc::mkdir(c"oldroot".as_ptr(), 0o755) != 0
        {
            return Err(fail("the base folders"));
        }
        if libc::mount(c"newroot".as_ptr(), c"newroot".as_ptr(), none, libc::MS_BIND | libc::MS_REC, std::ptr::null())
            != 0
        {
            return Err(fail("the new root's mount"));
        }
        if libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c"oldroot".as_ptr()) != 0 {
            return Err(fail("pivot_root to the base"));
        }
        if libc::chdir(c"/".as_ptr()) != 0 {
            return Err(fail("chdir /"));
        }
    }
    let old =
        open_path(libc::AT_FDCWD, c"/oldroot", libc::RESOLVE_NO_SYMLINKS).map_err(|e| format!("/oldroot: {e}"))?;
    let roots = Roots { new: c"/newroot".to_owned(), old };
    for op in &line.ops {
        roots.apply(op, fd_paths)?;
    }
    drop(roots);
    // SAFETY: as above.
    unsafe {
        if libc::mount(none, c"/oldroot".as_ptr(), none, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null()) != 0 {
            return Err(fail("making the old root private"));
        }
        if libc::umount2(c"/oldroot".as_ptr(), libc::MNT_DETACH) != 0 {
            return Err(fail("unmounting the old root"));
        }
        let base = libc::open(c"/".as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY | libc::O_CLOEXEC);
        if base < 0 {
            return Err(fail("open /"));
        }
        let ok = libc::chdir(c"/newroot".as_ptr()) == 0
            && libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) == 0
            && libc::fchdir(base) == 0
            && libc::umount2(c".".as_ptr(), libc::MNT_DETACH) == 0
            && libc::chdir(c"/".as_ptr()) == 0;
        libc::close(base);
        if !ok {
            return Err(fail("pivot_root to the new root"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    fn args(s: &[&str]) -> Vec<OsString> {
        s.iter().map(OsString::from).collect()
    }

    proptest::proptest! {
        /// Any list of words: an answer, never a panic; a line taken has a command and only
        /// absolute paths without `..`.
        #[test]
        fn any_words_are_parsed_or_refused(words in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::sample::select(vec![
                    "--unshare-user", "--unshare-pid", "--unshare-net", "--bind", "--ro-bind", "--bind-fd",
                    "--tmpfs", "--remount-ro", "--symlink", "--dev", "--proc", "--setenv", "--chdir",
                    "--add-seccomp-fd", "--sync-fd", "--clearenv", "--", "/", "/a", "a", "/a/../b", "3", "7", "=",
                ]).prop_map(String::from),
                "[ -~]{0,6}",
            ],
            0..24,
        )) {
            let words: Vec<OsString> = words.into_iter().map(OsString::from).collect();
            if let Ok(l) = parse(&words) {
                proptest::prop_assert!(!l.command.is_empty());
                for op in &l.ops {
                    let dst = match op {
                        Op::Bind { dst, .. } | Op::BindFd { dst, .. } => dst,
                        Op::Dev(d) | Op::Proc(d) | Op::Tmpfs(d) | Op::RemountRo(d) => d,
                        Op::Symlink { link, .. } => link,
                    };
                    proptest::prop_assert!(relative(dst).is_ok(), "{dst:?}");
                }
            }
        }
    }

    /// Every line wicket makes for bubblewrap is one this executor carries out whole: each
    /// option known, each mount kept.
    #[test]
    fn the_lines_wicket_makes_are_parsed_whole() {
        use wicket_planner::exec::ExecPolicy;
        let root = PathBuf::from("/p/proj");
        let mut p = ExecPolicy {
            writable: vec![root.clone(), "/tmp".into()],
            read_only: vec![(root.join(".git/hooks"), true)],
            git_dirs: vec![root.join(".git")],
            private_temp: vec!["/tmp".into()],
            unreadable: vec![root.join(".env"), "/home/u/.ssh".into()],
            env_allow: vec!["PATH".into(), "HOME".into()],
            sealed: vec!["/home/u".into()],
            sealed_readable: vec!["/home/u/.cargo/bin".into()],
            ..crate::bwrap::tests::policy(&root)
        };
        for network in [false, true] {
            p.network = network;
            let pinned = [(root.clone(), 9)];
            let (line, _) = crate::bwrap::line(&p, &[5, 6], &pinned, None, &[], &[], false);
            let mut words = line.clone();
            words.extend(["--sync-fd", "8", "--", "/usr/bin/true"].map(OsString::from));
            let l = parse(&words).unwrap_or_else(|e| panic!("{e}: {line:?}"));
            let mounts = line
                .iter()
                .filter(|w| {
                    matches!(
                        w.to_str(),
                        Some(
                            "--bind"
                                | "--ro-bind"
                                | "--bind-fd"
                                | "--dev"
                                | "--proc"
                                | "--tmpfs"
                                | "--remount-ro"
                                | "--symlink"
                        )
                    )
                })
                .count();
            assert_eq!(l.ops.len(), mounts, "{line:?}");
            assert_eq!(l.net, !network);
            assert_eq!(l.seccomp_fds, vec![5, 6]);
        }
    }

    #[test]
    fn every_option_of_wickets_line_is_read_and_nothing_else() {
        let l = parse(&args(&[
            "--unshare-user",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--unshare-net",
            "--disable-userns",
            "--die-with-parent",
            "--new-session",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
            "--bind-fd",
            "5",
            "/p",
            "--symlink",
            "../x",
            "/h/l",
            "--remount-ro",
            "/h",
            "--clearenv",
            "--setenv",
            "A",
            "--",
            "--chdir",
            "/p",
            "--add-seccomp-fd",
            "7",
            "--sync-fd",
            "9",
            "--",
            "/bin/true",
            "--tmpfs",
        ]))
        .expect("parsed");
        assert!(l.net && l.cgroup && l.disable_userns && l.die_with_parent && l.new_session && l.clearenv);
        assert_eq!(l.env, vec![(OsString::from("A"), OsString::from("--"))], "a value is never an option");
        assert_eq!(l.seccomp_fds, vec![7]);
        assert_eq!(l.sync_fd, Some(9));
        assert_eq!(l.command, args(&["/bin/true", "--tmpfs"]));
        assert_eq!(l.ops.len(), 7);
        for bad in [
            &["--unshare-user", "--unshare-pid", "--overlay-src", "/a", "--", "x"][..],
            &["--unshare-user", "--unshare-pid", "--bind", "/a", "rel", "--", "x"],
            &["--unshare-user", "--unshare-pid", "--bind", "/a/../b", "/b", "--", "x"],
            &["--unshare-user", "--unshare-pid", "--bind-fd", "1", "/b", "--", "x"],
            &["--unshare-user", "--unshare-pid", "--bind", "/a"],
            &["--unshare-pid", "--", "x"],
            &["--unshare-user", "--unshare-pid"],
            &["--unshare-user", "--unshare-pid", "--setenv", "A=B", "c", "--", "x"],
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad:?} must be refused");
        }
    }
}
