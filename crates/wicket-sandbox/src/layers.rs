//! The package caches' per-project layers: a sandboxed command reads the host's caches and
//! writes its own copy of them.
//!
//! The hard question: how can a build in the sandbox fill `~/.cargo/registry` or `~/.npm`
//! without leaving anything there that the host runs later (a `build.rs`, an `npx` package, a
//! pre-commit environment)? Each cache is mounted in the sandbox as an overlay: the host cache
//! below, never written, and above it a folder in wicket's own state, one per project and cache
//! (`$WICKET_HOME/layers/<hash of the root>/<cache>/`), which the sandbox sees only through the
//! overlay. Where an overlay cannot be made, the cache stays read-only: it is never writable
//! in place.
//!
//! bubblewrap 0.8 has no `--overlay`, so wicket mounts the overlays itself, between fork and
//! exec, in a user and mount namespace of its own that bwrap then starts in (bwrap sees the
//! overlays as the caches and binds them writable like any writable path; its masks come on
//! top). The Landlock fallback mounts them in the namespaces it makes anyway. Everything that
//! runs between fork and exec is prepared here beforehand, so it allocates nothing.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use wicket_planner::exec::ExecPolicy;

use crate::runner::SandboxError;

/// The folder of a project's layers in wicket's state.
pub fn project_dir(state: &Path, root: &Path) -> PathBuf {
    state.join("layers").join(format!("{:016x}", fnv(root.as_os_str().as_bytes())))
}

/// The folder of one cache's layer (it holds `upper` and `work`): the cache's name, for a
/// person looking, and a hash of its whole path, so two caches never share one.
pub fn cache_dir(project: &Path, cache: &Path) -> PathBuf {
    let name: String = cache
        .file_name()
        .map(|n| n.to_string_lossy().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect())
        .unwrap_or_default();
    project.join(format!("{name}-{:08x}", fnv(cache.as_os_str().as_bytes()) as u32))
}

/// FNV-1a: stable across wicket versions and processes, so a project finds its layers again.
fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The mounts of a run, prepared before the fork (or sent to the early helper, see
/// [`crate::early`]).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Mounts {
    /// Enter a new user and mount namespace first, with these id maps (the bwrap backend; the
    /// fallback makes its namespaces itself).
    user: Option<(Vec<u8>, Vec<u8>)>,
    /// Each overlay: its place (the cache) and its options.
    overlays: Vec<(CString, CString)>,
    /// Hidden paths, each with what covers it: inside a cache (the fallback), and under bwrap
    /// the masks it would otherwise make itself (see [`crate::bwrap::line`]).
    masks: Vec<(CString, Cover)>,
    /// The guarded folders' overlays, each with its subfolders bound back (see
    /// [`crate::shells`]), shallow first.
    shells: Vec<crate::shells::ShellMount>,
    /// The working folder to enter again once the shells are mounted: one entered before
    /// (`Command::current_dir` runs before these mounts) is the host's folder below the overlay,
    /// where writes would bypass it.
    cwd: Option<CString>,
}

/// What covers a hidden path mounted in wicket's own namespace.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Cover {
    /// An empty read-only tmpfs of this mode over a folder.
    Folder(u32),
    /// This file (`/dev/null`, or the socket a denied file shows) bound read-only, `nodev`,
    /// over a file.
    File(CString),
    /// The path itself, bound on itself read-only (a hole in a writable folder).
    ReadOnly,
}

/// What [`arrange`] decided for a run.
#[derive(Debug, Default)]
pub struct Arranged {
    /// The policy without the caches that stay read-only (when any does).
    pub policy: Option<ExecPolicy>,
    /// The overlays to mount (when any cache gets one).
    pub mounts: Option<Mounts>,
    /// The caches that got a layer.
    pub layered: Vec<PathBuf>,
    /// This run's work folders, removed when it has ended.
    pub work: WorkDirs,
}

/// What a run holds in its layers until it has ended (the value is dropped): the lock of each
/// layer it writes, and its work slots. Each mount needs a work folder of its own (overlayfs
/// empties it when it mounts, which breaks a concurrent mount's copy-ups), so each run takes a
/// free slot of each cache's (`run-N`, held by a lock), used again by later runs: a run makes
/// and removes no folder there (removing one took a third of a millisecond on this VM's ext4).
#[derive(Debug, Default)]
pub struct WorkDirs {
    slots: Vec<(PathBuf, std::fs::File)>,
    locks: Vec<std::fs::File>,
    /// Where the slots' used `work/work` folders go (see [`set_aside_work`]).
    trash: PathBuf,
}

impl Drop for WorkDirs {
    fn drop(&mut self) {
        for (slot, _lock) in &self.slots {
            release_slot(slot, &self.trash);
        }
    }
}

/// The folder of wicket's state where used overlay `work/work` folders wait to be removed.
pub(crate) fn trash_of(state: &Path) -> PathBuf {
    state.join("trash")
}

/// Move `work/work`, which an overlay mounted with `workdir=WORK` made, into `trash`. overlayfs
/// removes that folder and makes it again at every mount, and on a file system that discards
/// freed blocks the removal waits for the disk: one to four milliseconds a mount on this
/// project's test VM, on the run's path before the command starts. Set aside, the next mount
/// only makes it, and [`empty_trash`] removes the old one while a command runs. A failed move
/// (another file system) leaves it to overlayfs, as before.
pub(crate) fn set_aside_work(work: &Path, trash: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let w = work.join("work");
    let Ok(m) = std::fs::symlink_metadata(&w) else { return };
    if !m.is_dir() || private_dir(trash).is_err() {
        return;
    }
    // Moving a folder to another parent needs write permission on it; overlayfs left it 000.
    if m.permissions().mode() & 0o700 != 0o700 {
        let _ = std::fs::set_permissions(&w, std::fs::Permissions::from_mode(0o700));
    }
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let _ = std::fs::rename(&w, trash.join(format!("{}.{n}.{stamp}", std::process::id())));
}

/// Remove what waits in `trash`, on a thread of its own so that no run waits for the disk: it
/// is started before the command and never joined (a wicket that exits first leaves the rest
/// to the next run; every entry is a used work folder of a run that is over).
pub(crate) fn empty_trash(trash: &Path) {
    // One such thread at a time: a second would race the first over the same entries. A
    // long-lived process (`serve`, `mcp`) starts another once the last is done, so its runs'
    // folders do not pile up.
    static RUNNING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    use std::sync::atomic::Ordering;
    let has_entries = std::fs::read_dir(trash).is_ok_and(|mut d| d.next().is_some());
    if !has_entries || RUNNING.swap(true, Ordering::AcqRel) {
        return;
    }
    let trash = trash.to_path_buf();
    let started = std::thread::Builder::new().name("work tidy".into()).stack_size(256 * 1024).spawn(move || {
        for e in std::fs::read_dir(&trash).into_iter().flatten().flatten() {
            remove_tree(&e.path());
        }
        RUNNING.store(false, Ordering::Release);
    });
    if started.is_err() {
        RUNNING.store(false, Ordering::Release);
    }
}

/// The threads removing the overlay trial's folders (see `try_overlay`).
static TIDY: std::sync::Mutex<Vec<std::thread::JoinHandle<()>>> = std::sync::Mutex::new(Vec::new());

/// Wait until the overlay trial's folders are removed (before wicket exits; those of a wicket
/// that ends without waiting, or is killed, are removed by the next trial).
pub fn tidied() {
    let pending = TIDY.lock().map(|mut p| std::mem::take(&mut *p)).unwrap_or_default();
    for h in pending {
        let _ = h.join();
    }
}

/// The options of a cache's overlay besides its folders. `index=off`: a concurrent run reads
/// the upper folder another mount writes; with the index on, overlayfs refuses that. Not
/// `volatile`: its end would skip syncing the disk below, but that end is no longer on a run's
/// path (see `early`), and a volatile overlay leaves marks in its work folder (mode 000) that
/// make it refuse to mount again after a crash.
const CACHE_OPTIONS: &str = "userxattr,index=off";

/// The most runs at once that each get a work slot of one cache.
const WORK_SLOTS: usize = 64;

/// Take a free work slot in a cache's layer folder `dir` (made if missing, its `work` folder
/// ready), with the lock that holds it.
fn take_work_slot(dir: &Path, trash: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    for n in 0..WORK_SLOTS {
        let slot = dir.join(format!("run-{n}"));
        private_dir(&slot)?;
        if let Some(lock) = lock_layer(&slot)? {
            // A run killed in it left its private upper and a used `work/work`.
            release_slot(&slot, trash);
            private_dir(&slot.join("work"))?;
            return Ok((slot, lock));
        }
    }
    Err(std::io::Error::other(format!("all {WORK_SLOTS} work slots of {} are in use", dir.display())))
}

/// Leave a work slot as the next run needs it: no private upper (a run that could not take the
/// layer's lock wrote there, and its writes are dropped), no `work/work` (set aside in
/// `trash`, see [`set_aside_work`]).
fn release_slot(slot: &Path, trash: &Path) {
    let upper = slot.join("upper");
    if std::fs::symlink_metadata(&upper).is_ok() {
        remove_tree(&upper);
    }
    set_aside_work(&slot.join("work"), trash);
}

/// Remove a folder of wicket's in the layers. overlayfs makes its `work/work` folder with mode
/// 000, which only root could then list; so each folder is opened up (0700, never following a
/// link) when a plain removal fails.
pub(crate) fn remove_tree(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fn open_up(p: &Path) {
        let Ok(m) = std::fs::symlink_metadata(p) else { return };
        if !m.is_dir() {
            return;
        }
        let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o700));
        for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
            open_up(&e.path());
        }
    }
    if std::fs::remove_dir_all(dir).is_err() {
        open_up(dir);
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Take the lock in `dir` without waiting: a layer's (the one run holding it writes the shared
/// layer) or a shells slot's (the run using it).
/// Two overlays writing one upper folder at once race on copying up the same folder ("Directory
/// not empty"), so a concurrent run reads the layer as a lower layer instead and writes a
/// layer of its own that ends with it.
pub(crate) fn lock_layer(dir: &Path) -> std::io::Result<Option<std::fs::File>> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(0o600)
        .open(dir.join("lock"))?;
    match rustix::fs::flock(&f, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(Some(f)),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Remove the work folders in `dir` left by runs of wicket versions before the work slots
/// (`work.<pid>.<n>`) whose wicket is gone.
fn remove_stale_work(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let Some(pid) = name.strip_prefix("work.").and_then(|r| r.split('.').next()) else { continue };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            remove_tree(&e.path());
        }
    }
}

/// Decide each cache's fate for a run: a layer (its folders made now), or read-only (taken out
/// of the writable paths, with one notice on stderr saying why). `fallback`: the Landlock
/// fallback, which mounts in its own namespaces and must mask the hidden paths in the overlays
/// itself.
pub fn arrange(
    policy: &ExecPolicy,
    fallback: bool,
    shells: Vec<crate::shells::ShellMount>,
) -> Result<Arranged, SandboxError> {
    if policy.caches.is_empty() && policy.stage.is_none() && shells.is_empty() {
        return Ok(Arranged::default());
    }
    let state = policy.state_dir.clone().unwrap_or_else(crate::placeholders::default_state);
    // A staged run: the project itself is an overlay, the project below (never written) and
    // the stage's `upper` above, where every write of the command lands.
    let staged = match &policy.stage {
        Some(stage) => {
            // Mount options cannot carry these characters in a folder's name.
            if policy.root.as_os_str().as_bytes().iter().any(|b| matches!(b, b',' | b':' | b'\\')) {
                return Err(SandboxError::Unavailable(format!(
                    "a staged run cannot overlay {}: its path holds a `,`, `:` or `\\`",
                    policy.root.display()
                )));
            }
            available(&state).map_err(|why| {
                SandboxError::Unavailable(format!(
                    "a staged run needs an overlay over the project, and none can be made here: {why}"
                ))
            })?;
            for d in [stage.join("upper"), stage.join("work")] {
                private_dir(&d).map_err(|e| SandboxError::Unavailable(format!("cannot make {}: {e}", d.display())))?;
            }
            let opts = format!(
                "lowerdir={},upperdir={},workdir={},userxattr,index=off",
                policy.root.display(),
                stage.join("upper").display(),
                stage.join("work").display()
            );
            Some((cstring(&policy.root)?, CString::new(opts).map_err(|e| SandboxError::Seccomp(e.to_string()))?))
        }
        None => None,
    };
    let project = project_dir(&state, &policy.root);
    let works = available(&state);
    let mut layered = Vec::new();
    let mut refused: Vec<(PathBuf, String)> = Vec::new();
    for c in &policy.caches {
        match why_not(c, policy, &project, works.as_ref().err()) {
            Some(why) => refused.push((c.clone(), why)),
            None => layered.push(c.clone()),
        }
    }
    let mut overlays: Vec<(CString, CString)> = staged.into_iter().collect();
    let mut kept = Vec::new();
    let mut out = Arranged::default();
    out.work.trash = trash_of(&state);
    for c in layered {
        let dir = cache_dir(&project, &c);
        let mut own = PathBuf::new();
        let made = private_dir(&state.join("layers"))
            .and_then(|()| private_dir(&project))
            .and_then(|()| private_dir(&dir))
            .and_then(|()| private_dir(&dir.join("upper")))
            .and_then(|()| {
                remove_stale_work(&dir);
                let (slot, slot_lock) = take_work_slot(&dir, &out.work.trash)?;
                own = slot.clone();
                out.work.slots.push((slot, slot_lock));
                lock_layer(&dir)
            })
            .and_then(|lock| match lock {
                Some(l) => Ok((Some(l), dir.join("upper"), c.display().to_string())),
                None => private_dir(&own.join("upper"))
                    .map(|()| (None, own.join("upper"), format!("{}:{}", dir.join("upper").display(), c.display()))),
            });
        let (lock, upper, lower) = match made {
            Ok(m) => m,
            Err(e) => {
                refused.push((c, format!("its layer {} cannot be made: {e}", dir.display())));
                continue;
            }
        };
        out.work.locks.extend(lock);
        let opts = format!(
            "lowerdir={lower},upperdir={},workdir={},{CACHE_OPTIONS}",
            upper.display(),
            own.join("work").display()
        );
        overlays.push((cstring(&c)?, CString::new(opts).map_err(|e| SandboxError::Seccomp(e.to_string()))?));
        kept.push(c);
    }
    empty_trash(&out.work.trash);
    if !refused.is_empty() {
        let list: Vec<String> = refused.iter().map(|(c, why)| format!("{}: {why}", c.display())).collect();
        eprintln!(
            "wicket: these package caches are read-only in this sandbox, so package installs that write them may fail: {}",
            list.join("; ")
        );
        let mut p = policy.clone();
        p.writable.retain(|w| !refused.iter().any(|(c, _)| c == w));
        p.caches.retain(|c| kept.contains(c));
        out.policy = Some(p);
    }
    if overlays.is_empty() && shells.is_empty() {
        return Ok(out);
    }
    let mut masks = Vec::new();
    if fallback {
        for h in policy.unreadable.iter().filter(|h| kept.iter().any(|c| h.starts_with(c))) {
            let Ok(m) = std::fs::symlink_metadata(h) else { continue };
            masks.push((cstring(h)?, if m.is_dir() { Cover::Folder(0) } else { Cover::File(c"/dev/null".into()) }));
        }
    }
    let user = (!fallback).then(own_ids);
    let cwd = if shells.is_empty() { None } else { Some(cstring(&policy.root)?) };
    out.mounts = Some(Mounts { user, overlays, masks, shells, cwd });
    out.layered = kept;
    Ok(out)
}

fn cstring(p: &Path) -> Result<CString, SandboxError> {
    CString::new(p.as_os_str().as_bytes()).map_err(|e| SandboxError::Seccomp(e.to_string()))
}

/// Enter a user and mount namespace of wicket's own, keeping the caller's ids: what
/// [`Mounts::enter`] does before it mounts, done ahead by the early helper while the run is
/// planned. The error is an errno.
pub fn enter_own() -> Result<(), i32> {
    let (uid_map, gid_map) = own_ids();
    enter_user(&uid_map, &gid_map)
}

/// Enter a new user and mount namespace with these id maps (nothing allocated: it also runs
/// between fork and exec). The error is an errno.
fn enter_user(uid_map: &[u8], gid_map: &[u8]) -> Result<(), i32> {
    // SAFETY: unshare with flags only, in a single-threaded process.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } != 0 {
        return Err(errno());
    }
    if !write_file(c"/proc/self/setgroups", b"deny")
        || !write_file(c"/proc/self/uid_map", uid_map)
        || !write_file(c"/proc/self/gid_map", gid_map)
    {
        return Err(errno());
    }
    Ok(())
}

/// The user maps of a namespace of wicket's own in which the caller keeps its ids.
fn own_ids() -> (Vec<u8>, Vec<u8>) {
    // SAFETY: these calls only return the caller's ids.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    (format!("{uid} {uid} 1\n").into_bytes(), format!("{gid} {gid} 1\n").into_bytes())
}

/// Add bwrap's `masks` to the mounts made in wicket's own namespace before bubblewrap starts
/// (entering one when nothing else needs it): there a mount is one system call, where
/// bubblewrap parses the whole mount table after each of its own.
pub fn premask(mounts: Option<Mounts>, masks: Vec<(PathBuf, Cover)>) -> Result<Option<Mounts>, SandboxError> {
    if masks.is_empty() {
        return Ok(mounts);
    }
    let mut m = mounts.unwrap_or_else(|| Mounts {
        user: Some(own_ids()),
        overlays: Vec::new(),
        masks: Vec::new(),
        shells: Vec::new(),
        cwd: None,
    });
    for (path, cover) in masks {
        m.masks.push((cstring(&path)?, cover));
    }
    Ok(Some(m))
}

/// Why `cache` cannot get a layer in this run, if it cannot.
fn why_not(cache: &Path, policy: &ExecPolicy, project: &Path, broken: Option<&String>) -> Option<String> {
    if let Some(e) = broken {
        return Some(format!("overlays cannot be mounted here ({e})"));
    }
    let text = cache.as_os_str().as_bytes();
    if text.iter().any(|b| matches!(b, b',' | b':' | b'\\' | b'=')) {
        return Some("its path holds a character that overlayfs options cannot carry".into());
    }
    if project.as_os_str().as_bytes().iter().any(|b| matches!(b, b',' | b':' | b'\\' | b'=')) {
        return Some("the path of wicket's state holds a character that overlayfs options cannot carry".into());
    }
    if project.starts_with(cache) || cache.starts_with(project) {
        return Some("wicket's state (where the layer would be) lies inside it".into());
    }
    // The project or another writable folder inside a cache is written in place through its
    // own mount; an overlay above it would hide that in the fallback.
    let inside = policy.writable.iter().chain(&policy.git_dirs).find(|w| *w != cache && w.starts_with(cache));
    if let Some(w) = inside {
        return Some(format!("it holds {}, which is written in place", w.display()));
    }
    None
}

/// Make `dir` if missing (mode 0700) and check that it is a folder of this user's, not a link.
pub(crate) fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let m = std::fs::symlink_metadata(dir)?;
    // SAFETY: geteuid only returns a number.
    let me = unsafe { libc::geteuid() };
    if !m.is_dir() || m.uid() != me {
        return Err(std::io::Error::other(format!("{} is not a folder of this user's", dir.display())));
    }
    Ok(())
}

impl Mounts {
    /// Between fork and exec of bwrap: enter a user and mount namespace of wicket's own and
    /// mount the overlays there. The error is an errno (nothing may be allocated here).
    pub fn enter(&self) -> Result<(), i32> {
        if let Some((uid_map, gid_map)) = &self.user {
            enter_user(uid_map, gid_map)?;
        }
        self.mount()
    }

    /// [`Self::enter`] for a process already in the namespace [`enter_own`] made: only the
    /// mounts are left (a line that wants other id maps cannot be carried out there).
    pub fn enter_from_own(&self) -> Result<(), i32> {
        match &self.user {
            Some(maps) if *maps != own_ids() => Err(libc::EINVAL),
            _ => self.mount(),
        }
    }

    /// Mount the overlays (and, in the fallback, the masks inside them) in the current mount
    /// namespace; each overlay must come up writable.
    pub fn mount(&self) -> Result<(), i32> {
        let none: *const libc::c_char = std::ptr::null();
        // SAFETY: mount and statvfs with C strings prepared before the fork and null data.
        unsafe {
            // Nothing mounted here may reach the host's namespace.
            libc::mount(none, c"/".as_ptr(), none, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null());
            for (target, opts) in &self.overlays {
                if libc::mount(
                    c"overlay".as_ptr(),
                    target.as_ptr(),
                    c"overlay".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    opts.as_ptr().cast(),
                ) != 0
                {
                    return Err(errno());
                }
                let mut st: libc::statvfs = std::mem::zeroed();
                if libc::statvfs(target.as_ptr(), &mut st) != 0 {
                    return Err(errno());
                }
                // An overlay that came up read-only (an upper folder it may not write) would
                // break installs with no word; refuse instead.
                if st.f_flag & libc::ST_RDONLY != 0 {
                    return Err(libc::EROFS);
                }
            }
            // The guarded folders and their subfolders, opened while no overlay hides them,
            // each onto its reserved number (never through a link: they are real paths).
            for (path, fd) in self.shells.iter().flat_map(|s| &s.opens) {
                let how = OpenHow {
                    flags: (libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) as u64,
                    mode: 0,
                    resolve: libc::RESOLVE_NO_SYMLINKS,
                };
                let got = libc::syscall(
                    libc::SYS_openat2,
                    libc::AT_FDCWD,
                    path.as_ptr(),
                    &how as *const OpenHow,
                    std::mem::size_of::<OpenHow>(),
                );
                if got < 0 {
                    return Err(errno());
                }
                let got = got as i32;
                if libc::dup3(got, *fd, libc::O_CLOEXEC) < 0 {
                    return Err(errno());
                }
                libc::close(got);
            }
            // Each guarded folder: the overlay (its lower folder is the host's, through a
            // descriptor), then its subfolders bound back from the host, writable in place.
            for shell in &self.shells {
                if libc::mount(
                    c"overlay".as_ptr(),
                    shell.target.as_ptr(),
                    c"overlay".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    shell.opts.as_ptr().cast(),
                ) != 0
                {
                    return Err(errno());
                }
                for (source, target) in &shell.binds {
                    if libc::mount(
                        source.as_ptr(),
                        target.as_ptr(),
                        none,
                        libc::MS_BIND | libc::MS_REC,
                        std::ptr::null(),
                    ) != 0
                    {
                        return Err(errno());
                    }
                }
            }
            for (path, cover) in &self.masks {
                let ok = match cover {
                    Cover::Folder(mode) => {
                        // The mode as text, made without allocating: "mode=" and four octal digits.
                        let mut opts = *b"mode=0000\0";
                        for (i, shift) in [9, 6, 3, 0].into_iter().enumerate() {
                            opts[5 + i] = b'0' + ((mode >> shift) & 7) as u8;
                        }
                        libc::mount(
                            c"tmpfs".as_ptr(),
                            path.as_ptr(),
                            c"tmpfs".as_ptr(),
                            libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
                            opts.as_ptr().cast(),
                        ) == 0
                    }
                    // `/dev/null` on a `nodev` mount: opening it fails (EACCES), as under bwrap.
                    Cover::File(source) => {
                        libc::mount(source.as_ptr(), path.as_ptr(), none, libc::MS_BIND, std::ptr::null()) == 0
                            && libc::mount(
                                none,
                                path.as_ptr(),
                                none,
                                libc::MS_BIND
                                    | libc::MS_REMOUNT
                                    | libc::MS_RDONLY
                                    | libc::MS_NODEV
                                    | libc::MS_NOSUID
                                    | libc::MS_NOEXEC,
                                std::ptr::null(),
                            ) == 0
                    }
                    Cover::ReadOnly => {
                        let mut st: libc::statvfs = std::mem::zeroed();
                        libc::mount(path.as_ptr(), path.as_ptr(), none, libc::MS_BIND | libc::MS_REC, std::ptr::null())
                            == 0
                            && libc::statvfs(path.as_ptr(), &mut st) == 0
                            && libc::mount(
                                none,
                                path.as_ptr(),
                                none,
                                libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | kept_flags(st.f_flag),
                                std::ptr::null(),
                            ) == 0
                    }
                };
                if !ok {
                    let e = errno();
                    // A path gone since the plan has nothing left to hide; anything else (its
                    // cover missing, a dangling link in its place) stops the run.
                    let mut st: libc::stat = std::mem::zeroed();
                    if e == libc::ENOENT
                        && libc::fstatat(libc::AT_FDCWD, path.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) != 0
                        && errno() == libc::ENOENT
                    {
                        continue;
                    }
                    return Err(e);
                }
            }
            if let Some(cwd) = &self.cwd {
                if libc::chdir(cwd.as_ptr()) != 0 {
                    return Err(errno());
                }
            }
        }
        Ok(())
    }

    /// The descriptor numbers the guarded folders are opened onto (they must be free when
    /// [`Mounts::mount`] runs).
    pub fn reserved_fds(&self) -> Vec<i32> {
        self.shells.iter().flat_map(|s| s.opens.iter().map(|(_, fd)| *fd)).collect()
    }

    /// The overlays' places (for the fallback's Landlock rules, made after the mounts: a rule
    /// names an inode, and the overlay's is not the host cache's).
    pub fn targets(&self) -> impl Iterator<Item = &std::ffi::CStr> {
        self.overlays.iter().map(|(t, _)| t.as_c_str())
    }
}

/// The flags of a mount (as `statvfs` gives them) that a remount in a user namespace must keep:
/// the kernel locks them on mounts it copied from a more privileged namespace.
fn kept_flags(f: libc::c_ulong) -> libc::c_ulong {
    [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ]
    .iter()
    .filter(|(st, _)| f & st != 0)
    .fold(0, |acc, (_, ms)| acc | ms)
}

/// `struct open_how` of `openat2(2)` (libc's is not constructible).
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

/// This thread's errno (usable between fork and exec).
pub(crate) fn errno() -> i32 {
    // SAFETY: reads this thread's errno.
    unsafe { *libc::__errno_location() }
}

fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> bool {
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

/// Whether overlays can be mounted here, with upper folders in `state` (tried in a short-lived
/// child: a user and mount namespace, an overlay on an empty folder, writable). A success is
/// remembered in wicket's state (out of the sandbox's reach) for this kernel, this user and
/// the file system of `state`, so a run does not pay for the trial; a failure is tried again
/// by the next process.
pub fn available(state: &Path) -> Result<(), String> {
    static WORKS: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    WORKS
        .get_or_init(|| {
            let key = trial_key(state);
            let remembered = state.join("cache").join("overlay");
            if key.as_ref().is_some_and(|k| std::fs::read_to_string(&remembered).is_ok_and(|r| r == *k)) {
                return Ok(());
            }
            let result = try_overlay(state);
            if let (Ok(()), Some(k)) = (&result, key) {
                if private_dir(&state.join("cache")).is_ok() {
                    // Written beside and renamed: a reader never sees half a key.
                    let tmp = remembered.with_extension(format!("{}", std::process::id()));
                    if std::fs::write(&tmp, k).is_ok() && std::fs::rename(&tmp, &remembered).is_err() {
                        let _ = std::fs::remove_file(&tmp);
                    }
                }
            }
            result
        })
        .clone()
}

/// What a remembered overlay trial holds for: the kernel, the user, and the file system the
/// upper folders are on.
fn trial_key(state: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(state).ok()?.dev();
    let uname = rustix::system::uname();
    let release = uname.release().to_string_lossy();
    let version = uname.version().to_string_lossy();
    // The settings that allow or forbid user namespaces change without a reboot: their values
    // are part of the key, so a trial remembered under others is made again.
    let settings: Vec<String> = [
        "/proc/sys/user/max_user_namespaces",
        "/proc/sys/kernel/unprivileged_userns_clone",
        "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
    ]
    .iter()
    .map(|f| std::fs::read_to_string(f).map(|v| v.trim().to_string()).unwrap_or_else(|_| "-".into()))
    .collect();
    // The options tried are part of it too: a trial remembered by a wicket that mounted its
    // overlays with others holds for those only.
    Some(format!(
        "ok {release} {version} uid={} dev={dev} userns={} options={CACHE_OPTIONS}\n",
        rustix::process::geteuid().as_raw(),
        settings.join(",")
    ))
}

/// Start [`available`]'s trial now, on a thread of its own, for a run that will arrange its
/// layers soon: the trial forks, mounts and waits for the child (more than a millisecond), and
/// bubblewrap cannot start before its answer. Begun while the run still builds its policy, the
/// answer is usually ready when [`arrange`] asks; a thread that cannot start leaves the trial
/// to [`arrange`]. `state` must be the folder the run's policy names (the answer is kept for
/// the process).
pub fn available_soon(state: PathBuf) {
    let _ = std::thread::Builder::new().name("overlay trial".into()).stack_size(256 * 1024).spawn(move || {
        let _ = available(&state);
        crate::trace::phase("overlay trial done (early)");
    });
}

fn try_overlay(state: &Path) -> Result<(), String> {
    // A folder of this process's own: concurrent trials must not share a work folder.
    let layers = state.join("layers");
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = layers.join(format!("probe.{}.{n}", std::process::id()));
    let result = trial(&layers, &dir);
    // The answer is all a run waits for: removing the trial's folders (and those of trials
    // whose wicket was killed) took longer than the trial on a file system that discards
    // freed blocks, so it is done on a thread of its own, which [`tidied`] waits for. A
    // wicket that ends without waiting leaves them to the next trial, as a killed one does.
    let tidy = move || {
        remove_tree(&dir);
        if let Ok(entries) = std::fs::read_dir(&layers) {
            for e in entries.flatten() {
                let name = e.file_name();
                if let Some(pid) = name.to_string_lossy().strip_prefix("probe.").and_then(|r| r.split('.').next()) {
                    if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
                        remove_tree(&e.path());
                    }
                }
            }
        }
    };
    let started = std::thread::Builder::new().name("overlay tidy".into()).stack_size(256 * 1024).spawn(tidy);
    if let (Ok(h), Ok(mut pending)) = (started, TIDY.lock()) {
        pending.push(h);
    }
    result
}

fn trial(layers: &Path, dir: &Path) -> Result<(), String> {
    let state = layers.parent().unwrap_or(layers);
    for d in [
        state.to_path_buf(),
        layers.to_path_buf(),
        dir.to_path_buf(),
        dir.join("lower"),
        dir.join("upper"),
        dir.join("work"),
    ] {
        private_dir(&d).map_err(|e| format!("cannot make {}: {e}", d.display()))?;
    }
    let lower = dir.join("lower");
    // With the options the caches' overlays use.
    let opts = format!(
        "lowerdir={},upperdir={},workdir={},{CACHE_OPTIONS}",
        lower.display(),
        dir.join("upper").display(),
        dir.join("work").display()
    );
    let mounts = Mounts {
        user: Some({
            // SAFETY: these calls only return the caller's ids.
            let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
            (format!("{uid} {uid} 1\n").into_bytes(), format!("{gid} {gid} 1\n").into_bytes())
        }),
        overlays: vec![(cstring(&lower).map_err(|e| e.to_string())?, CString::new(opts).map_err(|e| e.to_string())?)],
        masks: Vec::new(),
        shells: Vec::new(),
        cwd: None,
    };
    // The child reports on a pipe before it exits: its exit tears down the namespaces, which
    // waits for the kernel's RCU grace periods (tens of ms on a loaded machine), and nobody
    // needs to wait for that.
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(|e| e.to_string())?;
    use std::os::fd::AsRawFd;
    let wfd = write.as_raw_fd();
    // SAFETY: the child makes system calls only, on what was prepared above, and exits.
    let pid = unsafe {
        let pid = libc::fork();
        if pid == 0 {
            let code: u8 = match mounts.enter() {
                Ok(()) => 0,
                Err(e) => e.clamp(1, 255) as u8,
            };
            libc::write(wfd, (&code as *const u8).cast(), 1);
            libc::_exit(0);
        }
        pid
    };
    drop(write);
    if pid < 0 {
        return Err("cannot fork to try an overlay".into());
    }
    let mut byte = [0u8; 1];
    let got = loop {
        match rustix::io::read(&read, &mut byte) {
            Err(rustix::io::Errno::INTR) => continue,
            r => break r,
        }
    };
    // Reaped in the background.
    let _ = std::thread::Builder::new().stack_size(64 * 1024).spawn(move || {
        let mut status = 0;
        // SAFETY: waits for this process's own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
    });
    match got {
        Ok(1) if byte[0] == 0 => Ok(()),
        Ok(1) => Err(std::io::Error::from_raw_os_error(i32::from(byte[0])).to_string()),
        _ => Err("the overlay trial did not finish".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_folders_are_per_project_and_per_cache() {
        let s = Path::new("/s");
        let a = project_dir(s, Path::new("/p/a"));
        assert_ne!(a, project_dir(s, Path::new("/p/b")));
        assert_eq!(a, project_dir(s, Path::new("/p/a")), "stable: a project finds its layers again");
        let npm = cache_dir(&a, Path::new("/h/.npm"));
        assert!(npm.file_name().is_some_and(|n| n.to_string_lossy().starts_with("_npm-")), "{}", npm.display());
        assert_ne!(cache_dir(&a, Path::new("/h/.cargo/registry")), cache_dir(&a, Path::new("/g/.cargo/registry")));
    }
}
