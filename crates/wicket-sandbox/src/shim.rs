//! The shim: wicket's own binary, re-executed inside the sandbox as
//! `wicket __sandbox-exec POLICY-JSON PROGRAM [ARGS…]`, applies Landlock (and, without bwrap,
//! the seccomp filter) to itself and then becomes the command.
//!
//! The hard question: what may the command touch once it runs? Under bwrap, Landlock is a
//! second wall: writes only beneath the writable paths. Without bwrap it is the wall: reads
//! everywhere but the hidden secrets, writes only beneath the writable paths, no signals or
//! abstract sockets out of the sandbox, and seccomp refuses sockets. If the wall cannot be
//! built, the command does not run.

use std::ffi::OsString;
use std::path::PathBuf;

/// What the shim applies.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ShimPolicy {
    /// Paths the command may write beneath.
    pub writable: Vec<PathBuf>,
    /// Paths the command may not read (only enforced here in the fallback; bwrap masks them).
    pub hidden: Vec<PathBuf>,
    /// Hidden paths that must also stay where they are (wicket's own state): in the fallback
    /// the folders above them get no folder rights, so none can be renamed away and rebuilt
    /// with forged settings that the next run would read by path.
    #[serde(default)]
    pub pinned: Vec<PathBuf>,
    /// No bwrap: Landlock and seccomp are the only walls, so they must hold fully.
    pub fallback: bool,
    /// In the fallback, paths inside hidden folders (the sealed homes) that the command may
    /// still read: granted reading on their own.
    #[serde(default)]
    pub readable: Vec<PathBuf>,
    /// Refuse network sockets (the fallback has no network namespace).
    pub no_network: bool,
    /// The proxy bridge (bwrap only): hand a listener on this port to wicket, and let the
    /// command connect to that port only.
    #[serde(default)]
    pub bridge: Option<ShimBridge>,
    /// An inherited pipe to wait on before the command starts (see `wait_for_go`): wicket
    /// starts the sandbox while it still decides, and says go only when the call is allowed.
    #[serde(default)]
    pub start_fd: Option<i32>,
    /// The program's path, found on the host from the command's `PATH` (the program's name
    /// stays its `argv[0]`), so the shim searches nothing; `None`: the shim searches `PATH`.
    #[serde(default)]
    pub exec: Option<PathBuf>,
    /// In the fallback, the guarded folders (see [`crate::shells`]): overlays mounted in its
    /// namespace after the rules were made on the host's folders. A mount point hides its
    /// folder from Landlock's rules, so each rule on such a folder or on an entry of it is
    /// made again on the overlay once it is mounted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shelled: Vec<PathBuf>,
}

/// The small shim's file name, installed next to `wicket`.
pub const SMALL_SHIM: &str = "wicket-shim";

/// The program to start as the shim: `wicket-shim` next to `exe` (a small binary that links
/// nothing but the confinement, so it starts in about half the time) when it is a regular,
/// executable file with `exe`'s owner that nobody else may write; else `exe` itself.
pub fn program(exe: &std::path::Path) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let small = exe.with_file_name(SMALL_SHIM);
        let (Ok(m), Ok(e)) = (std::fs::symlink_metadata(&small), std::fs::metadata(exe)) else {
            return exe.to_path_buf();
        };
        if m.is_file() && m.mode() & 0o111 == 0o111 && m.mode() & 0o022 == 0 && m.uid() == e.uid() {
            return small;
        }
    }
    exe.to_path_buf()
}

/// Where `name` (a bare program name) is found on `path` (the command's `PATH`), as the
/// shim's own search would find it; `None` when the shim must search: also when the search
/// reaches a folder under `hidden` (hidden, replaced or layered inside the sandbox, where the
/// shim could find another file).
pub fn resolve(
    name: &std::ffi::OsStr,
    path: Option<&std::ffi::OsStr>,
    root: &std::path::Path,
    hidden: &[PathBuf],
) -> Option<PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if name.is_empty()
            || std::path::Path::new(name).components().count() != 1
            || name.to_str().is_some_and(|n| n.contains('/'))
        {
            return None;
        }
        for dir in std::env::split_paths(path?) {
            // A relative entry is relative to the command's folder, the root.
            let dir = if dir.as_os_str().is_empty() { root.to_path_buf() } else { root.join(dir) };
            let candidate = crate::under::normal(&dir.join(name));
            if hidden.iter().any(|h| candidate.starts_with(h)) {
                return None;
            }
            match std::fs::metadata(&candidate) {
                Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => {
                    // Only a real path is certain to be the same file inside.
                    let real = std::fs::canonicalize(&candidate).ok()?;
                    return (!hidden.iter().any(|h| real.starts_with(h))).then_some(candidate);
                }
                // A folder or a file without the right to run: the search goes on, as execvp's.
                _ => continue,
            }
        }
        None
    }
    #[cfg(not(unix))]
    {
        let _ = (name, path, root, hidden);
        None
    }
}

/// The byte wicket writes on the start socket when the command may run.
pub const GO: u8 = b'g';

/// The byte the shim writes on the start socket once it runs, confined: bubblewrap's set-up is
/// over, so a run without it never started (see `Outcome::never_started`).
pub const READY: u8 = b'r';

/// The shim's part of the network bridge (see [`crate::bridge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ShimBridge {
    /// The inherited socket to wicket.
    pub fd: i32,
    /// The loopback port the proxy is served on inside the sandbox.
    pub port: u16,
}

/// Device files a command may write to (terminals, `/dev/null` …).
const DEV_WRITABLE: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/pts",
    "/dev/ptmx",
    "/dev/shm",
];

/// Run the shim with the arguments after `__sandbox-exec`. Returns only on failure, with the
/// exit status to use (126: the sandbox could not be built; 127: the program cannot run).
pub fn main(args: &[OsString]) -> i32 {
    let [policy, program, rest @ ..] = args else {
        eprintln!("wicket sandbox: usage: wicket __sandbox-exec POLICY-JSON PROGRAM [ARGS…]");
        return 126;
    };
    let policy: ShimPolicy = match serde_json::from_str(&policy.to_string_lossy()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("wicket sandbox: the shim's policy is not valid: {e}");
            return 126;
        }
    };
    // The bridge first: binding the proxy's listener is the last thing this process does on
    // the network before Landlock lets it connect to that one port only.
    let mut env = Vec::new();
    #[cfg(target_os = "linux")]
    if let Some(b) = policy.bridge {
        match crate::bridge::hand_over(b.fd, b.port) {
            Ok(e) => env = e,
            Err(e) => {
                eprintln!("wicket sandbox: cannot set up the network proxy, so the command does not run: {e}");
                return 126;
            }
        }
    }
    if let Err(e) = confine(&policy) {
        eprintln!("wicket sandbox: cannot confine the command, so it does not run: {e}");
        return 126;
    }
    // Everything above ran while wicket was still deciding; the command itself waits for go.
    // Anything but go (wicket refused the call, or died) ends the run without a word: wicket
    // tells the person why.
    crate::trace::phase("shim: confined");
    if let Some(fd) = policy.start_fd {
        if !wait_for_go(fd) {
            return 126;
        }
        crate::trace::phase("shim: go");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let mut command = match &policy.exec {
            Some(found) => {
                let mut c = std::process::Command::new(found);
                c.arg0(program);
                c
            }
            None => std::process::Command::new(program),
        };
        let err = command.args(rest).envs(env).exec();
        eprintln!("wicket sandbox: cannot run {}: {err}", program.to_string_lossy());
        if err.kind() == std::io::ErrorKind::NotFound {
            127
        } else {
            126
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (program, rest, env);
        126
    }
}

/// Say ready on the start socket, then read it: true only for exactly the go byte. The socket
/// is closed either way, so the command never inherits it.
#[cfg(unix)]
fn wait_for_go(fd: i32) -> bool {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    // Only a descriptor wicket handed over (above the standard three) is taken.
    if fd <= 2 {
        return false;
    }
    // SAFETY: the fd number comes from wicket's own policy for this process; it was left open
    // across exec for this read and nothing else in this process uses it.
    let mut pipe = unsafe { std::fs::File::from_raw_fd(fd) };
    // Read back by wicket only after the run: no wait here, no new way to stall.
    let _ = std::io::Write::write_all(&mut pipe, &[READY]);
    let mut byte = [0u8; 1];
    loop {
        match pipe.read(&mut byte) {
            Ok(1) => return byte[0] == GO,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            _ => return false,
        }
    }
}

#[cfg(not(unix))]
fn wait_for_go(_fd: i32) -> bool {
    false
}

fn confine(p: &ShimPolicy) -> Result<(), String> {
    prepare(p)?.apply()
}

/// The walls, built and ready to raise: everything that reads the disk or allocates is done
/// here, so [`Prepared::apply`] only makes the system calls that restrict the process (it can
/// run between fork and exec).
pub struct Prepared {
    #[cfg(target_os = "linux")]
    ruleset: landlock::RulesetCreated,
    #[cfg(target_os = "linux")]
    seccomp: Option<crate::seccomp::Program>,
    /// The fallback's namespaces (where the machine allows them) and death signal.
    #[cfg(target_os = "linux")]
    isolation: Option<crate::fallback::Isolation>,
    fallback: bool,
}

/// Build the Landlock ruleset (and, in the fallback, the seccomp programs) for a policy.
#[cfg(target_os = "linux")]
pub fn prepare(p: &ShimPolicy) -> Result<Prepared, String> {
    use landlock::{
        Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
        ABI,
    };
    let abi = ABI::V6;
    let level = if p.fallback { CompatLevel::HardRequirement } else { CompatLevel::BestEffort };
    let mut ruleset = Ruleset::default()
        .set_compatibility(level)
        .handle_access(AccessFs::from_all(ABI::V1))
        .map_err(|e| e.to_string())?
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(|e| e.to_string())?;
    if p.fallback {
        ruleset = ruleset.scope(Scope::from_all(abi)).map_err(|e| e.to_string())?;
    }
    // With the proxy bridge, TCP may only connect to the bridge's port and bind nothing
    // (Landlock ABI 4, Linux 6.7; older kernels keep the network namespace as the wall).
    if p.bridge.is_some() {
        ruleset = ruleset
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessNet::from_all(abi))
            .map_err(|e| e.to_string())?;
    }
    let all_read = vec![PathBuf::from("/")];
    let read_roots = if p.fallback { without(all_read.clone(), &p.hidden) } else { all_read.clone() };
    let dev: Vec<PathBuf> = DEV_WRITABLE.iter().map(PathBuf::from).filter(|d| d.exists()).collect();
    // A writable folder grants reading too: without bwrap's masks, leave the hidden paths out
    // of it as well.
    let writable: Vec<PathBuf> = p.writable.iter().filter(|w| w.exists()).cloned().collect();
    // The folders split to leave a hidden path out keep their folder rights (list, create,
    // remove, rename), never the right to read or write a file's content: a hidden file in one
    // stays unreadable, and Landlock's refer rule stops it being moved or linked to where
    // reading is allowed. New files made directly in such a folder get the same folder rights
    // only (see docs/sandbox.md).
    let (split_read, split_write) = if p.fallback {
        let above_state = |f: &PathBuf| p.pinned.iter().any(|s| s.starts_with(f));
        let mut split_write = split_folders(&writable, &p.hidden);
        split_write.retain(|f| !above_state(f));
        (split_folders(&all_read, &p.hidden), split_write)
    } else {
        (Vec::new(), Vec::new())
    };
    let writable = if p.fallback { without(writable, &p.hidden) } else { writable };
    // What may be read inside a sealed folder, but for the secrets hidden inside that.
    let readable: Vec<PathBuf> = if p.fallback {
        without(p.readable.iter().filter(|r| r.exists()).cloned().collect(), &p.hidden)
    } else {
        Vec::new()
    };
    // Every right but making device nodes (the seccomp filter refuses them too), which the
    // ruleset handles and so refuses wherever it is not granted.
    let write_rights = AccessFs::from_all(abi) & !(AccessFs::MakeChar | AccessFs::MakeBlock);
    let folder_rights = write_rights
        & !(AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Execute | AccessFs::Truncate | AccessFs::IoctlDev);
    let ruleset = ruleset
        .create()
        .map_err(|e| e.to_string())?
        .add_rules(landlock::path_beneath_rules(&read_roots, AccessFs::from_read(abi)))
        .map_err(|e| e.to_string())?
        .add_rules(landlock::path_beneath_rules(&readable, AccessFs::from_read(abi)))
        .map_err(|e| e.to_string())?
        .add_rules(landlock::path_beneath_rules(&writable, write_rights))
        .map_err(|e| e.to_string())?
        .add_rules(landlock::path_beneath_rules(&dev, write_rights))
        .map_err(|e| e.to_string())?
        .add_rules(landlock::path_beneath_rules(&split_read, AccessFs::ReadDir))
        .map_err(|e| e.to_string())?
        .add_rules(landlock::path_beneath_rules(&split_write, folder_rights))
        .map_err(|e| e.to_string())?;
    let ruleset = match p.bridge {
        Some(b) => ruleset.add_rule(NetPort::new(b.port, AccessNet::ConnectTcp)).map_err(|e| e.to_string())?,
        None => ruleset,
    };
    let seccomp =
        if p.fallback { Some(crate::seccomp::program(p.no_network).map_err(|e| e.to_string())?) } else { None };
    let isolation = match p.fallback {
        true => {
            let eff = std::cmp::min(ABI::from(crate::probe::landlock_abi() as i32), abi);
            let dup: Option<std::os::fd::OwnedFd> = ruleset.try_clone().map_err(|e| e.to_string())?.into();
            let iso = crate::fallback::Isolation::plan(p.no_network);
            let write = AccessFs::from_all(eff) & !(AccessFs::MakeChar | AccessFs::MakeBlock);
            // The rules that a guarded folder's overlay hides: on the folder itself and on
            // its own entries (its subfolders are bound from the host, and their rules hold).
            let handled = AccessFs::from_all(eff);
            let in_shell = |q: &PathBuf| p.shelled.iter().any(|g| q == g || q.parent() == Some(g.as_path()));
            let mut again: Vec<(std::ffi::CString, u64)> = Vec::new();
            for (list, rights) in [
                (&read_roots, AccessFs::from_read(abi)),
                (&readable, AccessFs::from_read(abi)),
                (&writable, write_rights),
                (&split_read, AccessFs::ReadDir.into()),
                (&split_write, folder_rights),
            ] {
                for q in list.iter().filter(|q| in_shell(q)) {
                    use std::os::unix::ffi::OsStrExt;
                    let c = std::ffi::CString::new(q.as_os_str().as_bytes()).map_err(|e| e.to_string())?;
                    // A rule on a file takes a file's rights only (else the kernel refuses it).
                    let rights = if q.is_dir() { rights } else { rights & AccessFs::from_file(abi) };
                    again.push((c, (rights & handled).bits()));
                }
            }
            Some(iso.with_ruleset(dup, AccessFs::from_read(eff).bits(), write.bits()).with_regrants(again))
        }
        false => None,
    };
    Ok(Prepared { ruleset, seccomp, isolation, fallback: p.fallback })
}

#[cfg(not(target_os = "linux"))]
pub fn prepare(_: &ShimPolicy) -> Result<Prepared, String> {
    Err("Landlock exists only on Linux".into())
}

impl Prepared {
    /// Mount these package cache overlays in the fallback's namespaces before Landlock, and
    /// grant them there (see [`crate::layers`]). Only the fallback mounts them itself.
    #[cfg(target_os = "linux")]
    pub fn with_layers(mut self, mounts: crate::layers::Mounts) -> Result<Prepared, String> {
        match self.isolation.take() {
            Some(iso) => {
                self.isolation = Some(iso.with_layers(mounts));
                Ok(self)
            }
            None => Err("the package cache layers need the fallback's namespaces".into()),
        }
    }

    /// Bind the project's git folders and read-only holes in the fallback's mount namespace
    /// (see [`crate::fallback::Holes`]).
    #[cfg(target_os = "linux")]
    pub fn with_holes(mut self, holes: crate::fallback::Holes) -> Prepared {
        self.isolation = self.isolation.take().map(|iso| iso.with_holes(holes));
        self
    }

    /// Restrict this process: Landlock, then (fallback) seccomp. Fails rather than run a
    /// command with less confinement than promised.
    #[cfg(target_os = "linux")]
    pub fn apply(self) -> Result<(), String> {
        // Namespaces and mounts first (Landlock forbids mounting), then no capabilities
        // (bubblewrap leaves root inside its user namespace with them).
        match &self.isolation {
            Some(iso) => iso.enter()?,
            None => crate::fallback::drop_capabilities()?,
        }
        let status = self.ruleset.restrict_self().map_err(|e| e.to_string())?;
        if self.fallback && status.ruleset == landlock::RulesetStatus::NotEnforced {
            return Err("the kernel did not enforce Landlock".into());
        }
        if let Some(prog) = &self.seccomp {
            prog.apply().map_err(|e| e.to_string())?;
        }
        cloexec_beyond_stdio()
    }

    /// Without Landlock there is nothing to apply, and nothing may run.
    #[cfg(not(target_os = "linux"))]
    pub fn apply(self) -> Result<(), String> {
        let _ = self.fallback;
        Err("Landlock exists only on Linux".into())
    }
}

/// Mark every descriptor above the standard three close-on-exec, so the command inherits none
/// of them: a descriptor opened outside (a file, a socket, a folder) would let it write or
/// reach past every wall. Descriptors still needed before the exec (the start pipe) keep
/// working until then. Makes no allocation, so it can run between fork and exec.
#[cfg(target_os = "linux")]
pub fn cloexec_beyond_stdio() -> Result<(), String> {
    // SAFETY: close_range with CLOSE_RANGE_CLOEXEC only sets a flag on this process's own
    // descriptors; no memory is passed.
    let r = unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, libc::CLOSE_RANGE_CLOEXEC) };
    if r == 0 {
        return Ok(());
    }
    // Kernels before 5.11: every descriptor number up to the process's limit, one by one.
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct passed by pointer, which lives on this stack.
    let max = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
        limit.rlim_cur.min(1 << 20) as i32
    } else {
        return Err("cannot find the descriptor limit to close inherited descriptors".into());
    };
    for fd in 3..max {
        // SAFETY: fcntl on a descriptor number only reads or sets its flags; EBADF is expected.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        // SAFETY: as above.
        if flags >= 0 && unsafe { libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) } != 0 {
            return Err("cannot mark an inherited descriptor close-on-exec".into());
        }
    }
    Ok(())
}

/// The folders and files to grant access beneath so that everything under `roots` is covered
/// but the hidden paths: each root that holds a hidden path is replaced by its entries, all but
/// the one on the way to the hidden path, down to the hidden path's parent.
pub fn without(roots: Vec<PathBuf>, hidden: &[PathBuf]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = roots.iter().map(|r| crate::under::normal(r)).collect();
    // Outer hidden paths only (a secret inside a sealed home is hidden with it): splitting for
    // an inner one first would grant the outer one's other entries.
    for h in &outermost(hidden) {
        if std::fs::symlink_metadata(h).is_err() {
            continue;
        }
        // Every root that holds the hidden path is split, also a second one that holds it
        // (the project inside a writable temp folder): stopping at the first would leave the
        // path reachable through the other.
        while let Some(i) = roots.iter().position(|r| crate::under::under(h, r)) {
            let r = roots.swap_remove(i);
            if r == *h {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(&r) else { continue };
            for e in entries.flatten() {
                // A link is granted by what it leads to (Landlock opens the path and follows
                // it): `/var/run` would grant the hidden `/run`. Its target, where readable,
                // is granted at its own place.
                if e.file_type().is_ok_and(|t| t.is_symlink()) {
                    continue;
                }
                roots.push(e.path());
            }
        }
    }
    roots.sort();
    roots
}

/// The folders [`without`] replaces by their entries: every folder from a root down to the
/// parent of a hidden path inside it.
pub fn split_folders(roots: &[PathBuf], hidden: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // A hidden path inside another (a secret in a sealed home) splits nothing: the folders
    // between them are hidden too, and listing them would show the names inside.
    for h in outermost(hidden).iter().filter(|h| std::fs::symlink_metadata(h).is_ok()) {
        for r in roots.iter().filter(|r| h.starts_with(r) && *r != h) {
            for a in h.ancestors().skip(1) {
                if !a.starts_with(r) {
                    break;
                }
                if seen.insert(a) {
                    out.push(a.to_path_buf());
                }
            }
        }
    }
    out
}

/// The hidden paths that lie in no other one, made normal (as `under` compares them), in their
/// order. Each is looked up among the others' paths by its folders: comparing every hidden path
/// with every other one, component by component, was most of the fallback's set-up as root (a
/// few hundred hidden paths).
fn outermost(hidden: &[PathBuf]) -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let normal: Vec<PathBuf> = hidden.iter().map(|h| crate::under::normal(h)).collect();
    let all: std::collections::HashSet<&[u8]> = normal.iter().map(|h| h.as_os_str().as_bytes()).collect();
    normal.iter().filter(|h| !h.ancestors().skip(1).any(|a| all.contains(a.as_os_str().as_bytes()))).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outer hidden paths are those no other hidden path holds, by components: as the
    /// comparison of every pair found them.
    #[test]
    fn outermost_hidden_paths_are_those_no_other_holds() {
        let hidden: Vec<PathBuf> =
            ["/a", "/a/b", "/a-b", "/a-b/c", "/x/y/", "/x/./y/z", "/x/yz", "/q", "/q", "/r/s//t", "/r/s"]
                .iter()
                .map(PathBuf::from)
                .collect();
        let want: Vec<PathBuf> = hidden
            .iter()
            .filter(|h| !hidden.iter().any(|o| o != *h && h.starts_with(o)))
            .map(|h| crate::under::normal(h))
            .collect();
        assert_eq!(outermost(&hidden), want);
        assert_eq!(
            want,
            ["/a", "/a-b", "/x/y", "/x/yz", "/q", "/q", "/r/s"].iter().map(PathBuf::from).collect::<Vec<_>>()
        );
    }

    #[test]
    fn roots_leave_out_hidden_paths_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        for p in [".ssh/id_rsa", "code/a.rs", ".bashrc", ".aws/credentials"] {
            let f = home.join(p);
            std::fs::create_dir_all(f.parent().expect("parent")).expect("mkdir");
            std::fs::write(&f, "x").expect("write");
        }
        let roots = without(vec![PathBuf::from("/")], &[home.join(".ssh"), home.join(".aws")]);
        assert!(roots.contains(&home.join("code")) && roots.contains(&home.join(".bashrc")));
        assert!(!roots.iter().any(|r| r.starts_with(home.join(".ssh")) || home.join(".ssh").starts_with(r)));
        assert!(!roots.iter().any(|r| home.join(".aws/credentials").starts_with(r)));
        assert!(roots.contains(&PathBuf::from("/usr")), "everything else stays readable");
        // Nested roots: the project inside a writable temp folder.
        let roots = without(vec![home.clone(), dir.path().to_path_buf()], &[home.join(".ssh/id_rsa")]);
        assert!(!roots.iter().any(|r| home.join(".ssh/id_rsa").starts_with(r)), "{roots:?}");
    }
}

#[allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test
#[cfg(all(test, unix))]
mod resolve_tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn file(p: &std::path::Path, mode: u32) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_program_is_found_as_the_shims_search_would_find_it() {
        let dir = tempfile::tempdir().unwrap();
        let b = dir.path().canonicalize().unwrap();
        file(&b.join("a/tool"), 0o644); // not runnable: passed over
        std::fs::create_dir_all(b.join("b/tool")).unwrap(); // a folder: passed over
        file(&b.join("c/tool"), 0o755);
        file(&b.join("d/tool"), 0o755);
        file(&b.join("root/bin/local"), 0o755);
        let path = std::env::join_paths([b.join("a"), b.join("b"), b.join("c"), b.join("d"), "bin".into()]).unwrap();
        let root = b.join("root");
        let find = |name: &str, hidden: &[PathBuf]| resolve(name.as_ref(), Some(&path), &root, hidden);
        assert_eq!(find("tool", &[]), Some(b.join("c/tool")));
        assert_eq!(find("local", &[]), Some(b.join("root/bin/local")), "a relative entry is read from the root");
        assert_eq!(find("missing", &[]), None);
        assert_eq!(find("c/tool", &[]), None, "a path is left as it is");
        assert_eq!(find("", &[]), None);
        assert_eq!(find("tool", &[b.join("c")]), None, "hidden inside: the shim searches");
        assert_eq!(
            find("tool", &[b.join("a")]),
            None,
            "a folder shown otherwise inside comes first: the shim searches"
        );
        assert_eq!(find("tool", &[b.join("d")]), Some(b.join("c/tool")), "one after the find does not matter");
        assert_eq!(resolve("tool".as_ref(), None, &root, &[]), None, "no PATH: the shim searches");
    }

    #[test]
    fn the_small_shim_is_used_only_when_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("wicket");
        file(&exe, 0o755);
        assert_eq!(program(&exe), exe, "missing");
        let small = dir.path().join(SMALL_SHIM);
        file(&small, 0o755);
        assert_eq!(program(&exe), small);
        std::fs::set_permissions(&small, std::fs::Permissions::from_mode(0o775)).unwrap();
        assert_eq!(program(&exe), exe, "group-writable");
        std::fs::set_permissions(&small, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(program(&exe), exe, "not runnable");
        std::fs::remove_file(&small).unwrap();
        std::os::unix::fs::symlink("/bin/sh", &small).unwrap();
        assert_eq!(program(&exe), exe, "a link");
    }
}
