//! Shell overlays: names that must not appear in a folder, guarded without touching the folder.
//!
//! The hard question: a protected name that does not exist yet (`.vscode`, `.git/hooks`, the
//! missing target of an `.envrc` line) cannot be bound read-only, because a mount needs
//! something to cover; how is it kept from appearing on the host without making anything in the
//! person's project, which editors, file watchers and dev servers would see on every run?
//!
//! Each folder that holds such a name (a *guarded* folder: the project root, a git folder, the
//! parent of a missing pointer target) is shown to the command as an overlay, mounted before
//! bubblewrap starts in the namespace it starts in (see [`crate::layers`]): the host folder
//! below, never written, and above it an `upper` folder of this run's in wicket's state. Every
//! subfolder that exists at the start is bound back on top, straight from the host (through a
//! descriptor opened before the overlay hid it), so `src/`, `target/`, `objects/` and `refs/`
//! are written in place as before. Only the guarded folder's *own entries* (a new name, an edit
//! of a file at that level, a removal) land in `upper`.
//!
//! When the command has ended (every process of the sandbox is gone), [`Shells::settle`] looks
//! at each `upper`:
//! - a name the sandbox protects (a read-only or missing protected path), a new name that runs
//!   code somewhere ([`wicket_planner::held::Guard::is_new_held`]), and in a git folder every
//!   name but git's own data ([`wicket_planner::gitdirs::GIT_DATA`]) is **held** for a person
//!   (the front end moves it into a staged change): it never reaches the host;
//! - everything else is **promoted** (renamed into place, copied where the state lies on another
//!   file system) when the host's entry is still as it was at the start; one the host changed
//!   meanwhile is held instead of overwritten;
//! - a removal reaches the host the same way, for an entry still as it was;
//! - git's lock files (`*.lock`) left in a git folder are dropped.
//!
//! The folders live in slots (`$WICKET_HOME/shells/N/`), each locked by the run using it and
//! reused run after run, so a run makes and removes no folder. A run that was killed leaves
//! entries in its slot; the next run finds them (the slot's lock is free) and holds them, so
//! nothing the command wrote is lost.
//!
//! The price: a bound subfolder is a mount point, so removing or renaming it fails (`EBUSY`),
//! as for `.git` before; `rm -rf build` empties `build/` and then reports the error. New entries
//! of a guarded folder reach the host when the run ends, not while it runs.

use std::collections::HashMap;
use std::ffi::{CString, OsString};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use wicket_planner::exec::ExecPolicy;

use crate::runner::SandboxError;

/// Where the runs' shells live in wicket's state.
const SHELLS: &str = "shells";

/// What identifies an entry's state: a change to any of these is a change to the entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(m: &std::fs::Metadata) -> Stamp {
        Stamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }

    fn now(p: &Path) -> Option<Stamp> {
        std::fs::symlink_metadata(p).ok().map(|m| Stamp::of(&m))
    }
}

/// One guarded folder of a run.
#[derive(Debug)]
struct Shell {
    /// The folder (a real path).
    dir: PathBuf,
    /// Where the command's own entries of it land.
    upper: PathBuf,
    /// A git folder: only git's data is promoted.
    git: bool,
    /// Its entries at the start, with their stamps.
    before: HashMap<OsString, Stamp>,
}

/// What to mount for one guarded folder, prepared before the fork (see
/// [`crate::layers::Mounts`]).
///
/// A bind's source must be a mount of the namespace it is made in, so the host folders are
/// opened in the child, after it entered its mount namespace and before any overlay hides
/// them (`opens`), each onto a descriptor number reserved here; the options and binds name
/// them as `/proc/self/fd/N`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ShellMount {
    /// The host folders to open first (never through a link), and the number each must get.
    pub opens: Vec<(CString, i32)>,
    /// The folder.
    pub target: CString,
    /// The overlay's options (its lower folder is a descriptor, `/proc/self/fd/N`).
    pub opts: CString,
    /// The subfolders bound back from the host: source (`/proc/self/fd/N`) and place.
    pub binds: Vec<(CString, CString)>,
    /// Depth of the folder, for mounting shallow before deep.
    pub depth: usize,
}

/// The shells of a run: planned before the sandbox starts, settled after it has ended.
#[derive(Debug)]
pub struct Shells {
    shells: Vec<Shell>,
    /// The run's folder in the state, removed once everything in it was settled.
    left: Arc<Leftover>,
    /// Descriptors the mounts name (`/proc/self/fd/N`): open until the sandbox has started.
    fds: Vec<OwnedFd>,
    /// What runs that were killed left, to hold.
    recovered: Vec<Held>,
    /// Their folders (removed once held).
    recovered_dirs: Vec<Arc<Leftover>>,
}

use crate::runner::HeldEntry as Held;

/// A run's slot in the state. Its lock is held as long as this lives, so no other run takes
/// it; when the last reference goes, the slot is free again, for the next run to reuse if
/// nothing the command made is left in it (what was held was moved into a stage), or to hold
/// what is left.
#[derive(Debug)]
pub struct Leftover {
    dir: PathBuf,
    _lock: std::fs::File,
}

impl Drop for Leftover {
    /// The slot is free for the next run once nothing but removals (whiteouts, which are
    /// cleared) is left in its upper folders; otherwise a later run holds what is there.
    fn drop(&mut self) {
        clear_whiteouts(&self.dir);
        set_aside_work(&self.dir);
    }
}

/// The trash of the state that holds the slot folder `slot` (`STATE/shells/N`).
fn trash_for(slot: &Path) -> Option<PathBuf> {
    Some(crate::layers::trash_of(slot.parent()?.parent()?))
}

/// overlayfs makes its `work/work` folder with mode 000 at each mount, and removes and makes
/// it again at the next: once the overlay is gone it is set aside in the state's trash
/// ([`crate::layers::set_aside_work`]), so that the next mount waits for no removal and
/// wicket's state stays readable and removable by its owner (`rm -rf $WICKET_HOME` as a user,
/// a walk of a project that holds the state).
fn set_aside_work(slot: &Path) {
    let Some(trash) = trash_for(slot) else { return };
    let Ok(shells) = std::fs::read_dir(slot) else { return };
    for e in shells.flatten().filter(|e| e.file_type().is_ok_and(|t| t.is_dir())) {
        crate::layers::set_aside_work(&e.path().join("work"), &trash);
    }
}

/// Remove the whiteouts in the upper folders of `slot` (a removal the run made, settled or not
/// to be settled): left there, they would hide the host's entries from the next run.
fn clear_whiteouts(slot: &Path) {
    let Ok(shells) = std::fs::read_dir(slot) else { return };
    for e in shells.flatten().filter(|e| e.file_type().is_ok_and(|t| t.is_dir())) {
        for u in std::fs::read_dir(e.path().join("upper")).into_iter().flatten().flatten() {
            if u.metadata().is_ok_and(|m| is_whiteout(&m)) {
                let _ = std::fs::remove_file(u.path());
            }
        }
    }
}

/// What [`Shells::settle`] did.
#[derive(Debug, Clone, Default)]
pub struct Settled {
    /// The entries held for a person.
    pub held: Vec<Held>,
    /// The run folders the held entries are in: keep until they were moved.
    pub left: Vec<Arc<Leftover>>,
}

/// The folders of `policy` to guard: the nearest existing folder of each missing protected
/// path (`placeholders`, `must_not_appear`) that the command may write in. Sorted, shallow
/// first.
pub fn guarded(policy: &ExecPolicy) -> Vec<PathBuf> {
    // A package cache is an overlay of its own whose writes never reach the host (see
    // `layers`), and a fresh temp folder is the run's alone: neither needs guarding. What
    // decides is the deepest of them that holds the folder, as in the sandbox's mount order: a
    // project under `/tmp` is the host's folder bound over the run's private `/tmp`.
    let deepest = |d: &Path, among: &mut dyn Iterator<Item = &PathBuf>| {
        among.filter(|w| d.starts_with(w)).map(|w| w.components().count()).max()
    };
    let writable = |d: &Path| match (
        deepest(d, &mut policy.writable.iter().chain(&policy.git_dirs)),
        deepest(d, &mut policy.private_temp.iter().chain(&policy.caches)),
    ) {
        (Some(host), Some(private)) => host > private,
        (host, _) => host.is_some(),
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for p in policy.placeholders.iter().chain(&policy.must_not_appear) {
        if std::fs::symlink_metadata(p).is_ok() {
            continue;
        }
        let mut dir = p.parent();
        while let Some(d) = dir {
            match std::fs::symlink_metadata(d) {
                Ok(m) if m.is_dir() => break,
                // A file or a link on the way: nothing can appear below it.
                Ok(_) => {
                    dir = None;
                    break;
                }
                Err(_) => dir = d.parent(),
            }
        }
        if let Some(d) = dir.filter(|d| writable(d)) {
            if !out.iter().any(|o| o == d) {
                out.push(d.to_path_buf());
            }
        }
    }
    out.sort_by_key(|p| p.components().count());
    out
}

fn io(what: &str, p: &Path) -> impl Fn(std::io::Error) -> SandboxError {
    let what = format!("cannot {what} {}", p.display());
    move |e| SandboxError::Unavailable(format!("{what}: {e}"))
}

fn cstring(p: &Path) -> Result<CString, SandboxError> {
    CString::new(p.as_os_str().as_bytes()).map_err(|e| SandboxError::Unavailable(e.to_string()))
}

/// File systems overlayfs is known to take as a lower folder (their magic numbers). A guarded
/// folder elsewhere (a network or FUSE file system) gets placeholders instead: an overlay that
/// failed to mount would stop the run.
const LOWER_OK: &[u64] = &[
    0xEF53,      // ext2/3/4
    0x5846_5342, // xfs
    0x9123_683E, // btrfs
    0x0102_1994, // tmpfs
    0x794C_7630, // overlayfs (a container's root)
    0xF2F5_2010, // f2fs
];

/// Can `dir` be the lower folder of an overlay?
fn lower_ok(dir: &Path) -> bool {
    rustix::fs::statfs(dir).is_ok_and(|s| LOWER_OK.contains(&(s.f_type as u64)))
}

/// A descriptor number held for the child (on `/dev/null`, replaced there by the folder).
fn reserve() -> Result<OwnedFd, SandboxError> {
    use rustix::fs::{Mode, OFlags};
    rustix::fs::open("/dev/null", OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())
        .map_err(|e| SandboxError::Unavailable(format!("cannot open /dev/null: {e}")))
}

/// Plan the shells of a run under `policy` (`state`: wicket's state folder, where the overlays'
/// upper folders are made). `None` when nothing is guarded. Overlays must be available
/// ([`crate::layers::available`]).
pub fn plan(policy: &ExecPolicy, state: &Path) -> Result<Option<(Shells, Vec<ShellMount>)>, SandboxError> {
    let dirs = guarded(policy);
    if dirs.is_empty() || !dirs.iter().all(|d| lower_ok(d)) {
        return Ok(None);
    }
    let base = state.join(SHELLS);
    crate::layers::private_dir(&base).map_err(io("make", &base))?;
    // Upper and work folders must not hold what overlayfs options cannot carry.
    if base.as_os_str().as_bytes().iter().any(|b| matches!(b, b',' | b':' | b'\\' | b'=')) {
        return Err(SandboxError::Unavailable(format!(
            "the path of wicket's state ({}) holds a character that overlayfs options cannot carry",
            base.display()
        )));
    }
    let (slot, lock, recovered, recovered_dirs) = take_slot(&base, &policy.root)?;
    let left = Arc::new(Leftover { dir: slot.clone(), _lock: lock });
    let mut record = Vec::new();
    let mut shells = Vec::new();
    let mut mounts = Vec::new();
    let mut fds = Vec::new();
    for (n, dir) in dirs.iter().enumerate() {
        let own = slot.join(n.to_string());
        let (upper, work) = (own.join("upper"), own.join("work"));
        for d in [&own, &upper, &work] {
            make_dir(d).map_err(io("make", d))?;
        }
        // A killed run left its used `work/work` here.
        if let Some(trash) = trash_for(&slot) {
            crate::layers::set_aside_work(&work, &trash);
        }
        // The folder looks as on the host (overlayfs shows the upper folder's mode and owner
        // for it); the upper folder is private all the same, inside the run's own folder.
        if let Ok(m) = std::fs::metadata(dir) {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&upper, std::fs::Permissions::from_mode(m.mode() & 0o7777));
            if rustix::process::geteuid().is_root() {
                let _ = std::os::unix::fs::lchown(&upper, Some(m.uid()), Some(m.gid()));
            }
        }
        let lower = reserve()?;
        let mut opens = vec![(cstring(dir)?, lower.as_raw_fd())];
        let mut before = HashMap::new();
        let mut binds = Vec::new();
        let entries = std::fs::read_dir(dir).map_err(io("list", dir))?;
        for e in entries {
            let e = e.map_err(io("list", dir))?;
            let Ok(m) = e.metadata() else { continue };
            let name = e.file_name();
            let path = dir.join(&name);
            before.insert(name, Stamp::of(&m));
            // A subfolder that is guarded itself gets its own overlay instead.
            if m.is_dir() && !dirs.contains(&path) {
                let fd = reserve()?;
                let source = CString::new(format!("/proc/self/fd/{}", fd.as_raw_fd()))
                    .map_err(|e| SandboxError::Unavailable(e.to_string()))?;
                opens.push((cstring(&path)?, fd.as_raw_fd()));
                binds.push((source, cstring(&path)?));
                fds.push(fd);
            }
        }
        let opts = format!(
            "lowerdir=/proc/self/fd/{},upperdir={},workdir={},userxattr,index=off",
            lower.as_raw_fd(),
            upper.display(),
            work.display()
        );
        fds.push(lower);
        mounts.push(ShellMount {
            opens,
            target: cstring(dir)?,
            opts: CString::new(opts).map_err(|e| SandboxError::Unavailable(e.to_string()))?,
            binds,
            depth: dir.components().count(),
        });
        record.extend_from_slice(n.to_string().as_bytes());
        record.push(0);
        record.extend_from_slice(dir.as_os_str().as_bytes());
        record.push(0);
        shells.push(Shell { dir: dir.clone(), upper, git: policy.git_dirs.contains(dir), before });
    }
    if let Some(trash) = trash_for(&slot) {
        crate::layers::empty_trash(&trash);
    }
    // What the slot's folders are for, so a later run can hold what a killed one left.
    let rec = slot.join("record");
    if std::fs::read(&rec).ok().as_deref() != Some(record.as_slice()) {
        std::fs::write(&rec, &record).map_err(io("write", &rec))?;
    }
    Ok(Some((Shells { shells, left, fds, recovered, recovered_dirs }, mounts)))
}

/// How many runs of one user can have shells at once.
const MAX_SLOTS: usize = 256;

/// Take a free slot of `base` (its folders are reused run after run, so a run makes and removes
/// no folder: removing one waits for the disk). A slot a killed run left entries in is not
/// taken: when they belong to the project at `root`, they are returned to hold, and the slot is
/// free again once they were moved; another project's wait for a run there.
#[allow(clippy::type_complexity)]
fn take_slot(
    base: &Path,
    root: &Path,
) -> Result<(PathBuf, std::fs::File, Vec<Held>, Vec<Arc<Leftover>>), SandboxError> {
    let mut held = Vec::new();
    let mut dirs = Vec::new();
    for n in 0..MAX_SLOTS {
        let slot = base.join(n.to_string());
        crate::layers::private_dir(&slot).map_err(io("make", &slot))?;
        let Some(lock) = crate::layers::lock_layer(&slot).map_err(io("lock", &slot))? else { continue };
        let left = leftovers(&slot);
        if left.is_empty() {
            clear_whiteouts(&slot);
            return Ok((slot, lock, held, dirs));
        }
        if left.iter().all(|h| h.to.starts_with(root)) {
            held.extend(left);
            dirs.push(Arc::new(Leftover { dir: slot, _lock: lock }));
        }
    }
    Err(SandboxError::Unavailable(format!("all {MAX_SLOTS} slots in {} are in use", base.display())))
}

/// A folder that is a folder (made with mode 0700 when missing), never a link.
fn make_dir(d: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().mode(0o700).create(d) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            if std::fs::symlink_metadata(d)?.is_dir() {
                Ok(())
            } else {
                Err(std::io::Error::other("not a folder"))
            }
        }
        Err(e) => Err(e),
    }
}

/// The entries a killed run left in the locked `slot` (none for a clean one), with where each
/// would go.
fn leftovers(slot: &Path) -> Vec<Held> {
    let mut held = Vec::new();
    let Ok(record) = std::fs::read(slot.join("record")) else { return held };
    let mut parts = record.split(|b| *b == 0);
    while let (Some(n), Some(p)) = (parts.next(), parts.next()) {
        let (Ok(n), target) = (std::str::from_utf8(n), PathBuf::from(std::ffi::OsStr::from_bytes(p))) else {
            continue;
        };
        for u in std::fs::read_dir(slot.join(n).join("upper")).into_iter().flatten().flatten() {
            let from = u.path();
            if std::fs::symlink_metadata(&from).is_ok_and(|m| is_whiteout(&m)) {
                continue;
            }
            held.push(Held { from, to: target.join(u.file_name()) });
        }
    }
    held
}

/// An overlayfs whiteout: a character device 0:0, left where the command removed an entry of
/// the lower folder.
fn is_whiteout(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    m.file_type().is_char_device() && m.rdev() == 0
}

/// What becomes of one entry the command left in a guarded folder.
#[derive(Debug, PartialEq, Eq)]
enum Fate {
    Promote,
    Hold,
    Drop,
}

impl Shells {
    /// The guarded folders, shallow first.
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.shells.iter().map(|s| s.dir.clone()).collect()
    }

    /// After the run, once every process of the sandbox is gone: promote what may reach the
    /// host, and return what must be held (see the module's comment).
    pub fn settle(mut self, policy: &ExecPolicy) -> Settled {
        self.fds.clear();
        let mut out =
            Settled { held: std::mem::take(&mut self.recovered), left: std::mem::take(&mut self.recovered_dirs) };
        let mut kept = false;
        for shell in &self.shells {
            let Ok(entries) = std::fs::read_dir(&shell.upper) else { continue };
            let mut names: Vec<OsString> = entries.flatten().map(|e| e.file_name()).collect();
            names.sort();
            for name in names {
                let from = shell.upper.join(&name);
                let to = shell.dir.join(&name);
                let Ok(meta) = std::fs::symlink_metadata(&from) else { continue };
                let fate = judge(policy, shell, &name, &to);
                if is_whiteout(&meta) {
                    if fate == Fate::Promote {
                        remove_if_unchanged(shell, &name, &to);
                    }
                    continue;
                }
                match fate {
                    Fate::Drop => {
                        let _ = std::fs::remove_file(&from);
                    }
                    // Only the project's entries can be staged for a person; one in a git folder
                    // outside it (a linked worktree's main repository) is not kept.
                    Fate::Hold if !to.starts_with(&policy.root) => {
                        eprintln!(
                            "wicket: notice: the command made {} outside the project, where wicket cannot hold it for you; it was not kept",
                            to.display()
                        );
                        crate::layers::remove_tree(&from);
                        let _ = std::fs::remove_file(&from);
                    }
                    Fate::Hold => {
                        strip_overlay_xattrs(&from);
                        kept = true;
                        out.held.push(Held { from, to });
                    }
                    Fate::Promote => {
                        if let Err(why) = promote(shell, &name, &from, &to) {
                            if to.starts_with(&policy.root) {
                                eprintln!(
                                    "wicket: notice: {} was not put in place ({why}); it is held for you instead",
                                    to.display()
                                );
                                kept = true;
                                out.held.push(Held { from, to });
                            } else {
                                eprintln!(
                                    "wicket: notice: {} was not put in place ({why}), and outside the project wicket cannot hold it for you; it was not kept",
                                    to.display()
                                );
                                crate::layers::remove_tree(&from);
                                let _ = std::fs::remove_file(&from);
                            }
                        }
                    }
                }
            }
        }
        if kept {
            out.left.push(self.left.clone());
        }
        out
    }
}

/// Whether `to` (the entry `name` of `shell`) may reach the host.
fn judge(policy: &ExecPolicy, shell: &Shell, name: &std::ffi::OsStr, to: &Path) -> Fate {
    if shell.git {
        let n = name.to_string_lossy();
        if wicket_planner::gitdirs::GIT_DATA.contains(&n.as_ref()) {
            return Fate::Promote;
        }
        // A lock git left behind (the command was stopped mid-write) would block the host's git.
        if n.ends_with(".lock") {
            return Fate::Drop;
        }
        return Fate::Hold;
    }
    let protected = policy.read_only.iter().any(|(p, _)| p == to)
        || policy.placeholders.iter().chain(&policy.must_not_appear).any(|p| p == to);
    if protected {
        return Fate::Hold;
    }
    if !shell.before.contains_key(name) && policy.guard.as_ref().is_some_and(|g| g.is_new_held(to)) {
        return Fate::Hold;
    }
    Fate::Promote
}

/// Remove the host's `to` for a removal the command made, if it is a file or link still as it
/// was at the start (a folder there was bound, and cannot have been removed in the sandbox).
fn remove_if_unchanged(shell: &Shell, name: &std::ffi::OsStr, to: &Path) {
    let Some(before) = shell.before.get(name) else { return };
    let Ok(m) = std::fs::symlink_metadata(to) else { return };
    if m.is_dir() || Stamp::of(&m) != *before {
        return;
    }
    let _ = std::fs::remove_file(to);
}

/// Put the command's entry `from` at `to`: over the host's entry only if that is still as it
/// was at the start, in a free place only if it is still free.
fn promote(shell: &Shell, name: &std::ffi::OsStr, from: &Path, to: &Path) -> Result<(), String> {
    match (shell.before.get(name), Stamp::now(to)) {
        (Some(b), Some(now)) if *b == now => {}
        (None, None) => {}
        (Some(_), None) => return Err("it was removed in the project meanwhile".into()),
        _ => return Err("it was changed in the project meanwhile".into()),
    }
    // A folder cannot be renamed over another: only a file or link replaces an entry.
    if std::fs::symlink_metadata(from).is_ok_and(|m| m.is_dir()) && shell.before.contains_key(name) {
        return Err("a folder of that name is in the project".into());
    }
    strip_overlay_xattrs(from);
    match std::fs::rename(from, to) {
        Ok(()) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::EXDEV) => {
            // wicket's state is on another file system: copied beside, then renamed in place.
            let tmp = to.with_file_name(format!(".{}.wicket-{}", name.to_string_lossy(), std::process::id()));
            copy_tree(from, &tmp).map_err(|e| {
                let _ = std::fs::remove_dir_all(&tmp).or_else(|_| std::fs::remove_file(&tmp));
                format!("copying it failed: {e}")
            })?;
            std::fs::rename(&tmp, to).map_err(|e| {
                let _ = std::fs::remove_dir_all(&tmp).or_else(|_| std::fs::remove_file(&tmp));
                format!("renaming it into place failed: {e}")
            })?;
            crate::layers::remove_tree(from);
            let _ = std::fs::remove_file(from);
            Ok(())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Remove overlayfs's own attributes (`user.overlay.*`: the origin of a copied-up file, the
/// opaque mark of a folder) from an entry before it reaches the project.
fn strip_overlay_xattrs(p: &Path) {
    let mut buf = vec![0u8; 4096];
    let Ok(n) = rustix::fs::llistxattr(p, &mut buf) else { return };
    for name in buf[..n].split(|b| *b == 0).filter(|n| n.starts_with(b"user.overlay.")) {
        if let Ok(c) = CString::new(name) {
            let _ = rustix::fs::lremovexattr(p, c.as_c_str());
        }
    }
}

/// Copy a file, link or folder tree (modes kept; no attributes).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    let m = std::fs::symlink_metadata(from)?;
    if m.file_type().is_symlink() {
        std::os::unix::fs::symlink(std::fs::read_link(from)?, to)
    } else if m.is_dir() {
        std::fs::create_dir(to)?;
        for e in std::fs::read_dir(from)? {
            let e = e?;
            copy_tree(&e.path(), &to.join(e.file_name()))?;
        }
        std::fs::set_permissions(to, m.permissions())
    } else if m.is_file() {
        std::fs::copy(from, to).map(|_| ())
    } else {
        // A device, socket or fifo is not carried over.
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // test set-up: a failure is a broken test
mod tests {
    use super::*;

    fn empty_policy() -> ExecPolicy {
        ExecPolicy {
            root: PathBuf::from("/p"),
            writable: Vec::new(),
            read_only: Vec::new(),
            placeholders: Vec::new(),
            must_not_appear: Vec::new(),
            git_dirs: Vec::new(),
            state_dir: None,
            private_temp: Vec::new(),
            unreadable: Vec::new(),
            denied: Vec::new(),
            masked: Vec::new(),
            network: false,
            env_allow: Vec::new(),
            timeout: None,
            output_cap: 0,
            caches: Vec::new(),
            state: Vec::new(),
            git_watch: None,
            stage: None,
            sealed: Vec::new(),
            sealed_readable: Vec::new(),
            guard: None,
            pinned: Vec::new(),
            notices: Vec::new(),
            shadow_watch: None,
        }
    }

    #[test]
    fn guarded_are_the_nearest_existing_writable_folders() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::create_dir_all(root.join("out")).unwrap();
        let policy = ExecPolicy {
            root: root.clone(),
            writable: vec![root.clone()],
            placeholders: vec![
                root.join(".vscode"),
                root.join(".git/hooks"),
                root.join("a/b/c"),
                root.join(".git/objects"),
            ],
            must_not_appear: vec![root.join(".git/commondir"), PathBuf::from("/nonexistent-wicket/x")],
            ..empty_policy()
        };
        // `.git/objects` exists (nothing to guard); `a/b/c` has `a` missing: the root guards it;
        // `/nonexistent-wicket` lies outside every writable path.
        assert_eq!(guarded(&policy), vec![root.clone(), root.join(".git")]);
    }

    #[test]
    fn a_project_in_the_temp_folder_is_guarded_but_the_runs_own_temp_is_not() {
        let t = tempfile::tempdir().unwrap();
        let tmp = t.path().canonicalize().unwrap();
        let root = tmp.join("proj");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(tmp.join("scratch")).unwrap();
        let policy = ExecPolicy {
            root: root.clone(),
            writable: vec![root.clone(), tmp.clone()],
            private_temp: vec![tmp.clone()],
            placeholders: vec![root.join(".vscode"), root.join(".git/hooks"), tmp.join("scratch/.vscode")],
            ..empty_policy()
        };
        // The project is the host's, bound over the run's private temp folder; `scratch` is in
        // that private folder and vanishes with the run.
        assert_eq!(guarded(&policy), vec![root.clone(), root.join(".git")]);
    }

    #[test]
    fn a_killed_runs_slot_is_held_only_by_a_run_in_its_project() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().join("shells");
        let slot = base.join("0");
        std::fs::create_dir_all(slot.join("0/upper")).unwrap();
        std::fs::write(slot.join("0/upper/NEW"), "x").unwrap();
        std::fs::write(slot.join("record"), b"0\0/p/a\0").unwrap();
        // Another project's run leaves it alone and takes the next slot.
        let (taken, _lock, held, _) = take_slot(&base, Path::new("/p/b")).unwrap();
        assert_eq!((taken, held.len()), (base.join("1"), 0));
        assert!(slot.join("0/upper/NEW").exists());
        // A run in the project holds what is there.
        let (_, _lock2, held, dirs) = take_slot(&base, Path::new("/p/a")).unwrap();
        assert_eq!(held, vec![Held { from: slot.join("0/upper/NEW"), to: PathBuf::from("/p/a/NEW") }]);
        assert_eq!(dirs.len(), 1);
    }

    #[test]
    fn a_git_folder_promotes_only_git_data() {
        let policy = empty_policy();
        let shell = Shell { dir: "/p/.git".into(), upper: "/u".into(), git: true, before: HashMap::new() };
        for (name, fate) in [
            ("index", Fate::Promote),
            ("HEAD", Fate::Promote),
            ("index.lock", Fate::Drop),
            ("config", Fate::Hold),
            ("hooks", Fate::Hold),
            ("commondir", Fate::Hold),
            ("config.worktree", Fate::Hold),
        ] {
            assert_eq!(judge(&policy, &shell, name.as_ref(), &Path::new("/p/.git").join(name)), fate, "{name}");
        }
    }
}
