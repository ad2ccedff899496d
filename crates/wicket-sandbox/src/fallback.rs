//! What the Landlock fallback adds, without bubblewrap, to come as close to it as the machine
//! allows: private namespaces, no capabilities, and a process tree that dies with the run.
//!
//! The hard question: what does a command started by wicket (possibly as root) keep of the
//! machine when there is no bubblewrap? Where wicket is root or may create a user namespace,
//! the command gets its own pid, mount, ipc and uts namespaces (and network, when it has none):
//! a fresh `/proc` that shows only its own processes, a private `/dev/shm` and SysV IPC, and a
//! first process whose death ends every process of the run. Always: every capability is
//! dropped, the bounding set emptied (so running a root-owned program cannot give them back),
//! and the process dies when wicket dies. Everything here runs between fork and exec, so it
//! allocates nothing: the strings it writes are made by [`Isolation::plan`] beforehand.

use std::ffi::CStr;

/// The namespaces and the id maps, prepared before the fork.
#[derive(Debug)]
pub struct Isolation {
    /// The Landlock ruleset (a second descriptor of it) and the access masks (read, all) to
    /// grant on the fresh `/proc` and `/dev/shm`: rules name inodes, and the new mounts are
    /// not beneath the rules made before them.
    ruleset: Option<(std::os::fd::OwnedFd, u64, u64)>,
    /// The `unshare` flags to try (pid, mount, ipc, uts, and network when cut).
    flags: i32,
    /// Not root: a user namespace is needed for the others, with these maps.
    user: Option<(Vec<u8>, Vec<u8>)>,
    /// wicket's pid, to notice that it died before the death signal was armed.
    parent: i32,
    /// The package caches' overlays, mounted in the new mount namespace (see
    /// [`crate::layers`]); without that namespace the command does not run.
    layers: Option<crate::layers::Mounts>,
    /// The protected paths inside the writable ones, bound in the new mount namespace.
    holes: Holes,
    /// Rules made again once the guarded folders' overlays are mounted (see
    /// [`crate::shim::ShimPolicy::shelled`]): each path and its rights.
    regrants: Vec<(std::ffi::CString, u64)>,
}

/// The project's git folders and read-only holes, bound in the fallback's mount namespace as
/// bubblewrap binds them: each git folder on itself (a mount point cannot be renamed, removed
/// or replaced), each read-only path on itself and then made read-only, shallow before deep.
/// Landlock alone cannot do this: its rules only grant, and a grant on the project covers all
/// of it.
#[derive(Debug, Default)]
pub struct Holes {
    /// Each path, and whether it is made read-only (a git folder stays writable).
    binds: Vec<(std::ffi::CString, bool)>,
}

impl Holes {
    /// The holes of `policy` that exist now (the placeholders are made before this).
    pub fn plan(policy: &wicket_planner::exec::ExecPolicy) -> Result<Holes, String> {
        use std::os::unix::ffi::OsStrExt;
        // The folders on the way to a read-only path are pinned like git folders (writable).
        let mut layered: Vec<(&std::path::PathBuf, bool)> =
            policy.git_dirs.iter().chain(&policy.pinned).map(|g| (g, false)).collect();
        layered.extend(policy.read_only.iter().map(|(p, _)| (p, true)));
        // Stable: at one depth a git folder comes before a read-only path, as under bwrap.
        layered.sort_by_key(|(p, _)| p.components().count());
        let mut binds = Vec::new();
        for (p, read_only) in layered {
            // A dangling link or a missing path has nothing to bind.
            if !p.exists() {
                continue;
            }
            let c = std::ffi::CString::new(p.as_os_str().as_bytes())
                .map_err(|_| format!("{} holds a NUL byte", p.display()))?;
            binds.push((c, read_only));
        }
        Ok(Holes { binds })
    }

    /// Bind every hole in the current mount namespace (between fork and exec: no allocation).
    fn mount(&self) -> Result<(), &'static str> {
        for (path, read_only) in &self.binds {
            bind_on_itself(path, *read_only).map_err(|_| "cannot protect the git folders and read-only paths")?;
        }
        Ok(())
    }
}

/// Bind `path` on itself, then (`read_only`) remount it read-only, keeping the flags the
/// mount below has (a user namespace may not clear `nosuid`, `nodev` or `noexec` set outside).
fn bind_on_itself(path: &CStr, read_only: bool) -> Result<(), i32> {
    let none: *const libc::c_char = std::ptr::null();
    // SAFETY: mount and statvfs with C strings prepared before the fork and null data.
    unsafe {
        if libc::mount(path.as_ptr(), path.as_ptr(), none, libc::MS_BIND | libc::MS_REC, std::ptr::null()) != 0 {
            return Err(crate::layers::errno());
        }
        if !read_only {
            return Ok(());
        }
        let mut st: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(path.as_ptr(), &mut st) != 0 {
            return Err(crate::layers::errno());
        }
        let mut flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY;
        for (st_flag, ms_flag) in [
            (libc::ST_NOSUID, libc::MS_NOSUID),
            (libc::ST_NODEV, libc::MS_NODEV),
            (libc::ST_NOEXEC, libc::MS_NOEXEC),
            (libc::ST_NOATIME, libc::MS_NOATIME),
            (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
            (libc::ST_RELATIME, libc::MS_RELATIME),
        ] {
            if st.f_flag & st_flag != 0 {
                flags |= ms_flag;
            }
        }
        if libc::mount(none, path.as_ptr(), none, flags, std::ptr::null()) != 0 {
            return Err(crate::layers::errno());
        }
    }
    Ok(())
}

impl Isolation {
    /// Plan the isolation for a run (`no_network`: also a network namespace of its own).
    pub fn plan(no_network: bool) -> Isolation {
        let mut flags = libc::CLONE_NEWNS | libc::CLONE_NEWPID | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
        if no_network {
            flags |= libc::CLONE_NEWNET;
        }
        // SAFETY: these calls only return the caller's ids.
        let (uid, gid, euid) = unsafe { (libc::getuid(), libc::getgid(), libc::geteuid()) };
        let user =
            (euid != 0).then(|| (format!("{uid} {uid} 1\n").into_bytes(), format!("{gid} {gid} 1\n").into_bytes()));
        Isolation {
            ruleset: None,
            flags,
            user,
            parent: std::process::id() as i32,
            layers: None,
            holes: Holes::default(),
            regrants: Vec::new(),
        }
    }

    /// Grant `read` on the fresh `/proc` and `write` (the writable folders' rights) on the
    /// fresh `/dev/shm` and the cache layers in this ruleset.
    pub fn with_ruleset(mut self, fd: Option<std::os::fd::OwnedFd>, read: u64, write: u64) -> Isolation {
        self.ruleset = fd.map(|f| (f, read, write));
        self
    }

    /// Mount these overlays over the package caches, and grant them fully in the ruleset.
    pub fn with_layers(mut self, mounts: crate::layers::Mounts) -> Isolation {
        self.layers = Some(mounts);
        self
    }

    /// Make these rules again after the mounts (on the overlays that now stand at the paths).
    pub fn with_regrants(mut self, regrants: Vec<(std::ffi::CString, u64)>) -> Isolation {
        self.regrants = regrants;
        self
    }

    /// Bind these holes in the new mount namespace.
    pub fn with_holes(mut self, holes: Holes) -> Isolation {
        self.holes = holes;
        self
    }

    /// In the child, before Landlock and seccomp: arm the death signal, enter the namespaces
    /// where the machine allows it (a first process of a new pid namespace is forked here; the
    /// process in between only waits and passes on the exit status), mount a fresh `/proc`
    /// and `/dev/shm`, then drop every capability. Fails only when root's capabilities cannot
    /// be dropped.
    pub fn enter(&self) -> Result<(), &'static str> {
        die_with_parent(self.parent)?;
        if self.unshare() {
            // SAFETY: fork in the single-threaded child between fork and exec.
            let pid = unsafe { libc::fork() };
            if pid < 0 {
                return Err("cannot fork the first process of the pid namespace");
            }
            if pid > 0 {
                wait_and_pass_on(pid);
            }
            // The first process of the new pid namespace: it dies with the waiting process.
            // SAFETY: prctl with integer arguments.
            unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) };
            mount_private();
            if let Some(l) = &self.layers {
                l.mount().map_err(|_| "cannot mount the package cache layers")?;
            }
            self.holes.mount()?;
            if let Some((fd, read, write)) = &self.ruleset {
                use std::os::fd::AsRawFd;
                grant(fd.as_raw_fd(), c"/proc", *read);
                grant(fd.as_raw_fd(), c"/dev/shm", *write);
                for t in self.layers.iter().flat_map(|l| l.targets()) {
                    grant(fd.as_raw_fd(), t, *write);
                }
                for (path, rights) in &self.regrants {
                    grant(fd.as_raw_fd(), path, *rights);
                }
            }
            // The command must not be the namespace's first process: the kernel gives that
            // one no default signal action (a SIGPIPE from a closed pipe, or a TERM or INT
            // passed on by wicket, would be ignored). A small init stays first, as
            // bubblewrap's does, and the command runs as its child.
            // SAFETY: fork in the single-threaded child between fork and exec.
            let command = unsafe { libc::fork() };
            if command < 0 {
                return Err("cannot fork the command inside the pid namespace");
            }
            if command > 0 {
                be_init(command);
            }
        } else if self.layers.is_some() {
            // The caches were taken out of the writable paths for their overlays: without a
            // mount namespace there are none, and the command would fail in odd ways.
            return Err("cannot make the mount namespace for the package cache layers");
        }
        drop_capabilities()
    }

    /// Enter the namespaces: directly as root, else inside a new user namespace that maps the
    /// caller to itself. False when the machine allows neither.
    fn unshare(&self) -> bool {
        match &self.user {
            None => {
                // SAFETY: unshare with flags only.
                unsafe { libc::unshare(self.flags) == 0 }
            }
            Some((uid_map, gid_map)) => {
                // SAFETY: as above.
                if unsafe { libc::unshare(libc::CLONE_NEWUSER | self.flags) } != 0 {
                    return false;
                }
                write_file(c"/proc/self/setgroups", b"deny")
                    && write_file(c"/proc/self/uid_map", uid_map)
                    && write_file(c"/proc/self/gid_map", gid_map)
            }
        }
    }
}

/// Kill this process when wicket's thread that started it ends (also by `kill -9`), and end
/// now if wicket is already gone.
fn die_with_parent(parent: i32) -> Result<(), &'static str> {
    // SAFETY: prctl with integer arguments; getppid only returns a number.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
            return Err("cannot arm the death signal");
        }
        if libc::getppid() != parent {
            libc::_exit(126);
        }
    }
    Ok(())
}

/// The process between wicket and the pid namespace: hold no descriptor (so wicket sees the
/// exec as done), wait for the first process and end as it ended.
fn wait_and_pass_on(pid: i32) -> ! {
    // SAFETY: close_range on this process's own descriptors; waitpid into a local; _exit.
    unsafe {
        libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
        let mut status = 0;
        loop {
            let r = libc::waitpid(pid, &mut status, 0);
            if r == pid {
                break;
            }
            if r < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(126);
            }
        }
        if libc::WIFEXITED(status) {
            libc::_exit(libc::WEXITSTATUS(status));
        }
        libc::_exit(128 + libc::WTERMSIG(status));
    }
}

/// The pid namespace's first process: hold no descriptor, let no signal end it before the
/// command (wicket passes INT, TERM and HUP to the whole process group, the command included),
/// reap every orphan, and end as the command ended; its end ends every process left in the
/// namespace.
fn be_init(command: i32) -> ! {
    extern "C" fn ignore(_: libc::c_int) {}
    // SAFETY: close_range on this process's own descriptors; sigaction with a handler that
    // does nothing (a handler, not SIG_IGN, so the command's exec does not inherit it, and a
    // signal still wakes the wait); waitpid into a local; _exit.
    unsafe {
        libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32);
        let handler: extern "C" fn(libc::c_int) = ignore;
        for sig in
            [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT, libc::SIGPIPE, libc::SIGUSR1, libc::SIGUSR2]
        {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
        let _ = drop_capabilities();
        loop {
            let mut status = 0;
            let r = libc::waitpid(-1, &mut status, 0);
            if r == command {
                if libc::WIFEXITED(status) {
                    libc::_exit(libc::WEXITSTATUS(status));
                }
                libc::_exit(128 + libc::WTERMSIG(status));
            }
            if r < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(126);
            }
        }
    }
}

/// Mounts of this namespace stay here; a fresh `/proc` shows only the run's processes and a
/// fresh `/dev/shm` none of the host's shared memory. A mount that fails leaves the host's
/// view (the doctor says what remains).
fn mount_private() {
    let none: *const libc::c_char = std::ptr::null();
    // SAFETY: mount with static C strings and null data.
    unsafe {
        libc::mount(none, c"/".as_ptr(), none, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null());
        libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        );
        libc::mount(
            c"tmpfs".as_ptr(),
            c"/dev/shm".as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            c"mode=1777".as_ptr().cast(),
        );
    }
}

/// Drop every capability: the bounding set (so executing a program cannot give them back,
/// not even as root), the ambient set, then the effective, permitted and inheritable sets.
/// Without privileges there is nothing to drop, and the bounding set cannot be changed.
pub fn drop_capabilities() -> Result<(), &'static str> {
    // SAFETY: prctl and capset with integer arguments and structs on this stack.
    unsafe {
        let root = libc::geteuid() == 0;
        for cap in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) != 0
                && *libc::__errno_location() == libc::EPERM
                && root
            {
                return Err("cannot empty the capability bounding set");
            }
        }
        libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong, 0, 0, 0);
        #[repr(C)]
        struct Header {
            version: u32,
            pid: i32,
        }
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct Data {
            effective: u32,
            permitted: u32,
            inheritable: u32,
        }
        let mut header = Header { version: 0x2008_0522, pid: 0 };
        let data = [Data { effective: 0, permitted: 0, inheritable: 0 }; 2];
        if libc::syscall(libc::SYS_capset, &mut header as *mut Header, data.as_ptr()) != 0 {
            return Err("cannot drop the capabilities");
        }
    }
    Ok(())
}

/// Add a Landlock rule granting `access` beneath `path` (a failure leaves it denied).
fn grant(ruleset: i32, path: &CStr, access: u64) {
    #[repr(C, packed)]
    struct PathBeneath {
        allowed_access: u64,
        parent_fd: i32,
    }
    // SAFETY: open with a static path; landlock_add_rule reads the struct on this stack.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        if fd < 0 {
            return;
        }
        let attr = PathBeneath { allowed_access: access, parent_fd: fd };
        libc::syscall(libc::SYS_landlock_add_rule, ruleset, 1u32, &attr as *const PathBeneath, 0u32);
        libc::close(fd);
    }
}

fn write_file(path: &CStr, bytes: &[u8]) -> bool {
    // SAFETY: open/write/close on a static path and a borrowed buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        n == bytes.len() as isize
    }
}

/// Whether the fallback gets its own namespaces here: wicket is root, or a user namespace can
/// be made (tried once in a short-lived child, whose answer is cached).
pub fn namespaces_work() -> bool {
    static WORKS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WORKS.get_or_init(|| {
        // SAFETY: geteuid only returns a number; the forked child makes one system call and
        // exits without touching anything of the parent's.
        unsafe {
            if libc::geteuid() == 0 {
                return true;
            }
            let pid = libc::fork();
            if pid == 0 {
                let ok = libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS) == 0;
                libc::_exit(if ok { 0 } else { 1 });
            }
            if pid < 0 {
                return false;
            }
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0) == pid && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
        }
    })
}
