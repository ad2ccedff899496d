//! The one place the decision engine reads the disk.
//!
//! Building a policy and deciding a call need a few facts from the filesystem: real paths,
//! what is at a path, a folder's entries, small text files (git config, `/etc/passwd`) and the
//! current folder. The engine asks a [`Disk`] for each, so all its I/O is visible here.
//! [`RealDisk`] answers from the filesystem; a caller or a test can give another `Disk`
//! ([`crate::Policy::new_with_disk`]).

// The crate's clippy.toml forbids disk calls; the engine makes them here and nowhere else.
#![allow(clippy::disallowed_methods)]

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use crate::paths::{normalize, ArgPath};

/// What is at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A folder.
    Dir,
    /// A regular file.
    File,
    /// A symbolic link.
    Link,
    /// Anything else (device, FIFO, socket).
    Other,
}

/// What a path leads to, links followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    /// What it is (never [`Kind::Link`]).
    pub kind: Kind,
    /// The hard-link count of a regular file, 0 for anything else.
    pub links: u64,
}

/// One entry of a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The entry's name.
    pub name: OsString,
    /// What it is, a link not followed; `None` when that cannot be read.
    pub kind: Option<Kind>,
}

/// An existing path, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Existing {
    /// The real path.
    pub real: PathBuf,
    /// A symbolic link lies on the way.
    pub via_link: bool,
    /// The hard-link count of a regular file, 0 for anything else.
    pub links: u64,
}

/// What one look at a path found, for resolving it ([`Disk::look_up`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// It exists.
    Found(Existing),
    /// A component is missing and none before it is a link: the path is its own real path.
    Missing,
    /// Neither is known from one look: walk the path.
    Unknown,
}

/// A folder's entries, read as they are consumed (callers stop when they have seen enough).
pub type Entries<'a> = Box<dyn Iterator<Item = io::Result<Entry>> + 'a>;

/// What the engine reads from the disk.
pub trait Disk: Send + Sync + std::fmt::Debug {
    /// The real path of an existing path, every link resolved (`canonicalize`).
    fn real_path(&self, p: &Path) -> io::Result<PathBuf>;
    /// What is at a path itself, a last link not followed (`None`: nothing, or unreadable).
    fn lstat(&self, p: &Path) -> Option<Kind>;
    /// What a path leads to, links followed (`None`: nothing, or unreadable).
    fn stat(&self, p: &Path) -> Option<Stat>;
    /// Where a symbolic link points, as written in it.
    fn read_link(&self, p: &Path) -> io::Result<PathBuf>;
    /// A folder's entries, links not followed.
    fn list(&self, dir: &Path) -> io::Result<Entries<'_>>;
    /// A small text file (git config files, `/etc/passwd`).
    fn read_text(&self, p: &Path) -> io::Result<String>;
    /// The current folder, against which a relative root is taken.
    fn current_dir(&self) -> io::Result<PathBuf>;
    /// An existing path's real path, links on the way and hard links (`None` when missing).
    fn existing(&self, p: &Path) -> Option<Existing> {
        portable_existing(self, p)
    }
    /// What a command argument is on disk (asked for every argument word, so keep it cheap).
    fn arg_path(&self, p: &Path) -> ArgPath {
        portable_arg_path(self, p)
    }
    /// [`Disk::existing`], or that the path is missing with no link on the way, when one look
    /// can tell (most paths a call writes do not exist yet).
    fn look_up(&self, p: &Path) -> Lookup {
        self.existing(p).map_or(Lookup::Unknown, Lookup::Found)
    }
    /// One decision about the project at `root` starts on this thread: a disk may keep what it
    /// finds until [`Disk::end_snapshot`], so a path looked at twice in one decision (a word
    /// scanned, then resolved as the file a redirection writes) costs one look. Calls nest.
    fn begin_snapshot(&self, _root: &Path) {}
    /// The decision [`Disk::begin_snapshot`] started is over: forget what was kept.
    fn end_snapshot(&self) {}
    /// What the open snapshot has seen, when all of it can be looked at again cheaply
    /// ([`Disk::shows`]); `None` when the decision looked in other ways (read a file, listed a
    /// folder, followed a link), or this disk keeps no such record.
    fn sight(&self) -> Option<Sight> {
        None
    }
    /// Does the disk show now what `sight` saw? Looked at again within an open snapshot.
    fn shows(&self, _sight: &Sight) -> bool {
        false
    }
}

/// What one decision saw of the disk: each path it looked at, and what was there
/// ([`Disk::sight`]). A decision depends on nothing else that can change (the engine reads the
/// disk only through [`Disk`], and nothing else of the machine), so a call decided again on a
/// disk that [`Disk::shows`] the same sight gets the same verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sight {
    #[cfg(target_os = "linux")]
    seen: Vec<(PathBuf, Result<plain::Plain, rustix::io::Errno>)>,
}

/// Keeps a disk's snapshot for as long as it lives (a decision), ending it however the
/// decision ends.
pub(crate) struct Snapshot<'a>(&'a dyn Disk);

impl<'a> Snapshot<'a> {
    /// Begin a snapshot on `disk`.
    pub(crate) fn begin(disk: &'a dyn Disk, root: &Path) -> Snapshot<'a> {
        disk.begin_snapshot(root);
        Snapshot(disk)
    }
}

impl Drop for Snapshot<'_> {
    fn drop(&mut self) {
        self.0.end_snapshot();
    }
}

fn portable_existing<D: Disk + ?Sized>(disk: &D, p: &Path) -> Option<Existing> {
    let real = disk.real_path(p).ok()?;
    let links = disk.stat(&real).map_or(0, |s| s.links);
    Some(Existing { via_link: real != normalize(p), real, links })
}

fn portable_arg_path<D: Disk + ?Sized>(disk: &D, p: &Path) -> ArgPath {
    match disk.real_path(p) {
        Ok(r) if r != normalize(p) => ArgPath::ViaLink,
        Ok(r) => ArgPath::Plain { links: disk.stat(&r).map_or(0, |s| s.links) },
        Err(_) => ArgPath::Missing,
    }
}

/// The filesystem itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealDisk;

fn kind_of(t: std::fs::FileType) -> Kind {
    if t.is_symlink() {
        Kind::Link
    } else if t.is_dir() {
        Kind::Dir
    } else if t.is_file() {
        Kind::File
    } else {
        Kind::Other
    }
}

fn file_links(m: &std::fs::Metadata) -> u64 {
    if !m.is_file() {
        return 0;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        m.nlink()
    }
    #[cfg(not(unix))]
    {
        1
    }
}

impl Disk for RealDisk {
    fn real_path(&self, p: &Path) -> io::Result<PathBuf> {
        looked_otherwise();
        std::fs::canonicalize(p)
    }

    fn lstat(&self, p: &Path) -> Option<Kind> {
        looked_otherwise();
        std::fs::symlink_metadata(p).ok().map(|m| kind_of(m.file_type()))
    }

    fn stat(&self, p: &Path) -> Option<Stat> {
        looked_otherwise();
        let m = std::fs::metadata(p).ok()?;
        Some(Stat { kind: kind_of(m.file_type()), links: file_links(&m) })
    }

    fn read_link(&self, p: &Path) -> io::Result<PathBuf> {
        looked_otherwise();
        std::fs::read_link(p)
    }

    fn list(&self, dir: &Path) -> io::Result<Entries<'_>> {
        looked_otherwise();
        let entries = std::fs::read_dir(dir)?;
        Ok(Box::new(entries.map(|e| e.map(|e| Entry { kind: e.file_type().ok().map(kind_of), name: e.file_name() }))))
    }

    fn read_text(&self, p: &Path) -> io::Result<String> {
        looked_otherwise();
        std::fs::read_to_string(p)
    }

    fn current_dir(&self) -> io::Result<PathBuf> {
        looked_otherwise();
        std::env::current_dir()
    }

    fn existing(&self, p: &Path) -> Option<Existing> {
        // Fastest: the whole path exists and no component is a link, so it is its own real
        // path. Then: the kernel follows the links in one lookup. Neither: it is missing, and
        // the caller walks it (no `canonicalize`, which would fail too).
        #[cfg(target_os = "linux")]
        {
            if let Ok(plain::Plain { link: false, links }) = plain::open(p) {
                return Some(Existing { real: normalize(p), via_link: false, links });
            }
            looked_otherwise();
            open_real(p).map(|(real, links)| Existing { via_link: real != normalize(p), real, links })
        }
        #[cfg(not(target_os = "linux"))]
        {
            portable_existing(self, p)
        }
    }

    fn look_up(&self, p: &Path) -> Lookup {
        #[cfg(target_os = "linux")]
        {
            match plain::open(p) {
                Ok(plain::Plain { link: false, links }) => {
                    return Lookup::Found(Existing { real: normalize(p), via_link: false, links })
                }
                // The kernel refuses a link (ELOOP) as soon as it meets one, so ENOENT means
                // it walked plain folders up to a name that is not there.
                Err(e) if e == rustix::io::Errno::NOENT => return Lookup::Missing,
                // A link, on the way or as the last name: the kernel follows it below.
                _ => {}
            }
            looked_otherwise();
            open_real(p).map_or(Lookup::Unknown, |(real, links)| {
                Lookup::Found(Existing { via_link: real != normalize(p), real, links })
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            self.existing(p).map_or(Lookup::Unknown, Lookup::Found)
        }
    }

    fn arg_path(&self, p: &Path) -> ArgPath {
        // One `openat2` that refuses links, cheap enough for every argument word.
        #[cfg(target_os = "linux")]
        {
            use rustix::io::Errno;
            match plain::open(p) {
                Ok(plain::Plain { link: true, .. }) => ArgPath::ViaLink,
                Ok(plain::Plain { link: false, links }) => ArgPath::Plain { links },
                Err(e) if e == Errno::LOOP || e == Errno::XDEV => ArgPath::ViaLink,
                // A link on the way would have been refused (ELOOP) before the kernel found a
                // name missing: no second look needed.
                Err(e) if e == Errno::NOENT => ArgPath::Missing,
                Err(e) if e == Errno::NOSYS => portable_arg_path(self, p),
                Err(_) => match self.lstat(p) {
                    Some(Kind::Link) => ArgPath::ViaLink,
                    _ => ArgPath::Missing,
                },
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            portable_arg_path(self, p)
        }
    }

    fn begin_snapshot(&self, root: &Path) {
        #[cfg(target_os = "linux")]
        plain::begin(root);
        #[cfg(not(target_os = "linux"))]
        let _ = root;
    }

    fn end_snapshot(&self) {
        #[cfg(target_os = "linux")]
        plain::end();
    }

    fn sight(&self) -> Option<Sight> {
        #[cfg(target_os = "linux")]
        {
            plain::sight().map(|seen| Sight { seen })
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }

    fn shows(&self, sight: &Sight) -> bool {
        #[cfg(target_os = "linux")]
        {
            sight.seen.iter().all(|(p, r)| plain::open(p) == *r)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = sight;
            false
        }
    }
}

/// The open snapshot looked at the disk in a way [`Disk::shows`] cannot repeat.
fn looked_otherwise() {
    #[cfg(target_os = "linux")]
    plain::other();
}

/// The one look at a path that refuses links on the way, shared by [`Disk::arg_path`] and
/// [`Disk::look_up`], and kept for the rest of a decision while a snapshot is open.
///
/// Most paths a decision looks at are names in the project's root folder (`test`, `out.log`),
/// and on a busy machine each absolute `openat2` costs more than the rest of the decision's
/// work on that word. So the root folder is held open between decisions, checked once per
/// decision (the root's path must still lead to the same folder, itself no link: one `statx`),
/// and names in it are looked at from there: a name right in it by `fstatat` (no file to
/// open), a deeper path by `openat2` from the folder. One difference from an absolute look
/// remains, on purpose: a folder above the root replaced by a link that leads to the same root
/// folder (the project moved, a link left in its place) is not seen as a link on the way; the
/// names looked at are the same files either way.
#[cfg(target_os = "linux")]
mod plain {
    use std::cell::RefCell;
    use std::os::fd::OwnedFd;
    use std::path::{Path, PathBuf};

    use rustix::fs::{AtFlags, FileType, Mode, OFlags, ResolveFlags, CWD};
    use rustix::io::Errno;

    /// What is at a path whose folders on the way are no links.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) struct Plain {
        /// The last name is itself a link (opened, not followed).
        pub link: bool,
        /// The hard-link count of a regular file, 0 for anything else.
        pub links: u64,
    }

    /// The most paths one decision keeps (a long command line looks at more; the rest are
    /// looked at each time).
    const KEPT: usize = 64;

    /// The project's root folder, held open.
    struct Base {
        path: PathBuf,
        fd: OwnedFd,
        dev: u64,
        ino: u64,
    }

    struct Kept {
        depth: u32,
        seen: Vec<(PathBuf, Result<Plain, Errno>)>,
        /// The decision looked in a way not kept in `seen` (or more than `seen` holds).
        other: bool,
        /// This decision's root.
        root: Option<PathBuf>,
        /// `base` was checked for this decision (`None` after the check: not usable).
        checked: bool,
        /// Kept between decisions: opening it costs more than checking it.
        base: Option<Base>,
    }

    thread_local! {
        static KEPT_HERE: RefCell<Kept> = const {
            RefCell::new(Kept {
                depth: 0,
                seen: Vec::new(),
                other: false,
                root: None,
                checked: false,
                base: None,
            })
        };
    }

    pub(super) fn begin(root: &Path) {
        KEPT_HERE.with(|k| {
            let mut k = k.borrow_mut();
            k.depth += 1;
            if k.depth == 1 {
                k.root = Some(root.to_path_buf());
                k.checked = false;
                k.other = false;
            }
        });
    }

    pub(super) fn end() {
        KEPT_HERE.with(|k| {
            let mut k = k.borrow_mut();
            k.depth = k.depth.saturating_sub(1);
            if k.depth == 0 {
                k.seen.clear();
                k.root = None;
            }
        });
    }

    /// Open `p` with `O_PATH|O_NOFOLLOW` and links refused on the way (`ELOOP`), or what a
    /// look at it earlier in this decision found.
    pub(super) fn open(p: &Path) -> Result<Plain, Errno> {
        KEPT_HERE.with(|k| {
            let mut k = k.borrow_mut();
            if k.depth == 0 {
                return look(CWD, p);
            }
            if let Some((_, r)) = k.seen.iter().find(|(q, _)| q.as_os_str() == p.as_os_str()) {
                return *r;
            }
            let r = match in_root(&k, p) {
                Some(rel) if base_usable(&mut k) => match &k.base {
                    Some(base) => look_from(&base.fd, rel),
                    None => look(CWD, p),
                },
                _ => look(CWD, p),
            };
            if k.seen.len() < KEPT {
                k.seen.push((p.to_path_buf(), r));
            } else {
                k.other = true;
            }
            r
        })
    }

    /// The open snapshot looked at the disk in another way.
    pub(super) fn other() {
        KEPT_HERE.with(|k| k.borrow_mut().other = true);
    }

    /// Every look of the open snapshot, when that is all it did.
    pub(super) fn sight() -> Option<Vec<(PathBuf, Result<Plain, Errno>)>> {
        KEPT_HERE.with(|k| {
            let k = k.borrow();
            (k.depth > 0 && !k.other).then(|| k.seen.clone())
        })
    }

    /// `p` below this decision's root, as plain names (no `.`, `..`, empty names or trailing
    /// `/`, which the kernel reads differently from a path taken from elsewhere). Compared as
    /// bytes: `Path::strip_prefix` walks components, a tenth of a decision's time.
    fn in_root<'p>(k: &Kept, p: &'p Path) -> Option<&'p Path> {
        let root = k.root.as_deref()?.as_os_str().as_encoded_bytes();
        let rel = p.as_os_str().as_encoded_bytes().strip_prefix(root)?;
        let rel = if root.ends_with(b"/") { rel } else { rel.strip_prefix(b"/")? };
        let plain = !rel.is_empty() && rel.split(|b| *b == b'/').all(|n| !n.is_empty() && n != b"." && n != b"..");
        plain.then(|| Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(rel)))
    }

    /// May this decision look from the held root folder? Checked at its first look: the root's
    /// path leads to the folder held (or to one opened now, no link on the way).
    fn base_usable(k: &mut Kept) -> bool {
        if !k.checked {
            k.checked = true;
            let Some(root) = k.root.as_deref() else {
                k.base = None;
                return false;
            };
            let same = k.base.as_ref().is_some_and(|b| {
                b.path.as_os_str() == root.as_os_str()
                    && rustix::fs::statat(CWD, root, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|st| {
                        FileType::from_raw_mode(st.st_mode) == FileType::Directory
                            && st.st_dev == b.dev
                            && st.st_ino == b.ino
                    })
            });
            if !same {
                k.base = open_base(root);
            }
        }
        k.base.is_some()
    }

    fn open_base(root: &Path) -> Option<Base> {
        let fd = rustix::fs::openat2(
            CWD,
            root,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            Mode::empty(),
            ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
        )
        .ok()?;
        let st = rustix::fs::fstat(&fd).ok()?;
        Some(Base { path: root.to_path_buf(), fd, dev: st.st_dev, ino: st.st_ino })
    }

    /// A path of plain names below the root folder, looked at from it.
    fn look_from(base: &OwnedFd, rel: &Path) -> Result<Plain, Errno> {
        if rel.as_os_str().as_encoded_bytes().contains(&b'/') {
            return look(base, rel);
        }
        // One name: nothing on the way to refuse, so `fstatat` tells all an open would.
        let st = rustix::fs::statat(base, rel, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(plain_of(&st))
    }

    fn look<Fd: std::os::fd::AsFd>(dir: Fd, p: &Path) -> Result<Plain, Errno> {
        // O_PATH|O_NOFOLLOW opens a last name that is a link itself; NO_SYMLINKS refuses any
        // link before it.
        let fd = rustix::fs::openat2(
            dir,
            p,
            OFlags::PATH | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            Mode::empty(),
            ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
        )?;
        Ok(plain_of(&rustix::fs::fstat(&fd)?))
    }

    fn plain_of(st: &rustix::fs::Stat) -> Plain {
        let kind = FileType::from_raw_mode(st.st_mode);
        Plain { link: kind == FileType::Symlink, links: if kind == FileType::RegularFile { st.st_nlink } else { 0 } }
    }
}

/// The real path and hard-link count of an existing path in four system calls, whatever its
/// depth: open it with `O_PATH` (the kernel follows every link, `..` included, and never
/// blocks on a FIFO or device), read `/proc/self/fd/N`, `fstat` the descriptor. glibc's
/// `realpath` makes one `readlink` per component, the larger part of a path decision's time.
#[cfg(target_os = "linux")]
fn open_real(p: &Path) -> Option<(PathBuf, u64)> {
    use rustix::fs::{FileType, Mode, OFlags};
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStringExt;
    let fd = rustix::fs::open(p, OFlags::PATH | OFlags::CLOEXEC, Mode::empty()).ok()?;
    let st = rustix::fs::fstat(&fd).ok()?;
    let target = rustix::fs::readlink(format!("/proc/self/fd/{}", fd.as_raw_fd()), Vec::new()).ok()?;
    let real = PathBuf::from(std::ffi::OsString::from_vec(target.into_bytes()));
    // An unlinked file reads as "/x (deleted)"; anything not absolute is not a path we can trust.
    if !real.is_absolute() || real.as_os_str().as_encoded_bytes().ends_with(b" (deleted)") {
        return None;
    }
    let links = if FileType::from_raw_mode(st.st_mode) == FileType::RegularFile { st.st_nlink } else { 0 };
    Some((real, links))
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;
    use crate::{By, Decision, Policy, PolicyConfig, Session, ToolCall, Verdict};

    const ROOT: &str = "/fake/proj";
    const HOME: &str = "/fake/home";

    /// A disk held in memory: folders and files, no links. Nothing of it exists on the real
    /// disk, so a policy built on it proves the engine asked it.
    #[derive(Debug, Default)]
    struct FakeDisk {
        dirs: BTreeSet<PathBuf>,
        files: BTreeMap<PathBuf, String>,
        /// How often each path was looked at (`real_path`, `lstat`, `stat`).
        looks: std::sync::Mutex<BTreeMap<PathBuf, usize>>,
    }

    impl FakeDisk {
        /// The root, the home and `files` (path, text) with their folders, for the test's life.
        fn leak(files: &[(&str, &str)]) -> &'static FakeDisk {
            let mut d = FakeDisk::default();
            for (path, text) in files {
                let path = Path::new(path);
                d.dirs.extend(path.ancestors().skip(1).map(Path::to_path_buf));
                d.files.insert(path.to_path_buf(), text.to_string());
            }
            for dir in [ROOT, HOME] {
                d.dirs.extend(Path::new(dir).ancestors().map(Path::to_path_buf));
            }
            Box::leak(Box::new(d))
        }

        fn kind(&self, p: &Path) -> Option<Kind> {
            let p = normalize(p);
            if let Ok(mut looks) = self.looks.lock() {
                *looks.entry(p.clone()).or_default() += 1;
            }
            if self.dirs.contains(&p) {
                Some(Kind::Dir)
            } else {
                self.files.contains_key(&p).then_some(Kind::File)
            }
        }
    }

    fn missing() -> io::Error {
        io::Error::from(io::ErrorKind::NotFound)
    }

    impl Disk for FakeDisk {
        fn real_path(&self, p: &Path) -> io::Result<PathBuf> {
            self.kind(p).map(|_| normalize(p)).ok_or_else(missing)
        }
        fn lstat(&self, p: &Path) -> Option<Kind> {
            self.kind(p)
        }
        fn stat(&self, p: &Path) -> Option<Stat> {
            self.kind(p).map(|kind| Stat { kind, links: u64::from(kind == Kind::File) })
        }
        fn read_link(&self, _: &Path) -> io::Result<PathBuf> {
            Err(io::Error::from(io::ErrorKind::InvalidInput))
        }
        fn list(&self, dir: &Path) -> io::Result<Entries<'_>> {
            let dir = normalize(dir);
            if !self.dirs.contains(&dir) {
                return Err(missing());
            }
            let dirs = self.dirs.iter().map(|p| (p, Kind::Dir));
            let files = self.files.keys().map(|p| (p, Kind::File));
            let entries: Vec<_> = dirs
                .chain(files)
                .filter(|(p, _)| p.parent() == Some(dir.as_path()))
                .filter_map(|(p, kind)| Some(Ok(Entry { name: p.file_name()?.to_os_string(), kind: Some(kind) })))
                .collect();
            Ok(Box::new(entries.into_iter()))
        }
        fn read_text(&self, p: &Path) -> io::Result<String> {
            self.files.get(&normalize(p)).cloned().ok_or_else(missing)
        }
        fn current_dir(&self) -> io::Result<PathBuf> {
            Ok(PathBuf::from("/fake"))
        }
    }

    fn decide_on(disk: &'static FakeDisk, command: &str) -> Verdict {
        // `grep` asks by default; the rule makes the walk the only thing left to decide.
        let allow = vec!["bash(grep *)".to_string()];
        let cfg = PolicyConfig { root: ROOT.into(), home: Some(HOME.into()), allow, ..Default::default() };
        let policy = Policy::new_with_disk(&cfg, disk).expect("the fake root resolves");
        policy.decide(&ToolCall::new("bash", serde_json::json!({ "command": command })), &Session::new())
    }

    #[test]
    fn a_relative_root_is_taken_against_the_disks_current_folder() {
        let env = crate::paths::PathEnv::with_disk(Path::new("proj"), None, FakeDisk::leak(&[])).expect("env");
        assert_eq!(env.root, Path::new(ROOT));
        assert_eq!(env.real_root, Path::new(ROOT));
    }

    #[test]
    fn a_glob_is_judged_by_the_folder_the_disk_lists() {
        let plain = decide_on(FakeDisk::leak(&[("/fake/proj/src/notes.txt", "")]), "grep token src/*");
        assert_eq!(plain.decision, Decision::Allow, "{plain:?}");
        let secret = decide_on(FakeDisk::leak(&[("/fake/proj/src/id_rsa", "")]), "grep token src/*");
        assert_eq!((secret.decision, secret.by), (Decision::Deny, By::Sensitive), "{secret:?}");
    }

    #[test]
    fn a_recursive_read_walks_the_folders_the_disk_lists() {
        let plain = decide_on(FakeDisk::leak(&[("/fake/proj/src/keys/notes.txt", "")]), "grep -r token src");
        assert_eq!(plain.decision, Decision::Allow, "{plain:?}");
        let secret = decide_on(FakeDisk::leak(&[("/fake/proj/src/keys/.env", "")]), "grep -r token src");
        assert_ne!(secret.decision, Decision::Allow, "{secret:?}");
        assert!(secret.reason.contains("/fake/proj/src/keys/.env"), "{secret:?}");
    }

    #[test]
    fn a_call_that_asks_looks_at_each_argument_once() {
        let disk = FakeDisk::leak(&[]);
        // No rule covers `git status`, so the reason suggests one: from what the decision
        // already found, not from a second look at every argument.
        let v = decide_on(disk, "git status && npm test -- --watch=false | tee out.log");
        assert_eq!(v.decision, Decision::Ask, "{v:?}");
        assert!(v.reason.contains("permissions.allow"), "{v:?}");
        let looks = disk.looks.lock().expect("looks").clone();
        for arg in ["status", "test", "false"] {
            let n = looks.get(&Path::new(ROOT).join(arg)).copied().unwrap_or(0);
            assert_eq!(n, 1, "{arg} was looked at {n} times: {looks:?}");
        }
    }

    #[test]
    fn the_git_config_is_read_from_the_disk() {
        let plain = decide_on(FakeDisk::leak(&[("/fake/proj/.git/config", "[core]\n\tbare = false\n")]), "git status");
        assert_eq!(plain.decision, Decision::Allow, "{plain:?}");
        let risky =
            decide_on(FakeDisk::leak(&[("/fake/proj/.git/config", "[core]\n\tfsmonitor = ./x\n")]), "git status");
        assert_ne!(risky.decision, Decision::Allow, "{risky:?}");
        assert!(risky.reason.contains("fsmonitor"), "{risky:?}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_missing_path_is_known_missing_in_one_look_only_with_no_link_on_the_way() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = RealDisk.real_path(dir.path()).expect("real");
        std::fs::create_dir(root.join("d")).expect("mkdir");
        std::os::unix::fs::symlink("d", root.join("l")).expect("symlink");
        std::os::unix::fs::symlink("nowhere", root.join("dangling")).expect("symlink");
        assert_eq!(RealDisk.look_up(&root.join("d/new")), Lookup::Missing);
        assert_eq!(RealDisk.look_up(&root.join("d/a/b")), Lookup::Missing);
        assert_eq!(RealDisk.arg_path(&root.join("d/new")), ArgPath::Missing);
        // A link on the way or at the end is never taken for a missing name.
        assert_eq!(RealDisk.look_up(&root.join("l/new")), Lookup::Unknown);
        assert_eq!(RealDisk.look_up(&root.join("dangling")), Lookup::Unknown);
        assert_eq!(RealDisk.arg_path(&root.join("l/new")), ArgPath::ViaLink);
        assert_eq!(RealDisk.arg_path(&root.join("dangling")), ArgPath::ViaLink);
        let env = crate::paths::PathEnv::new(&root, None).expect("env");
        let behind = crate::paths::resolve(&env, "l/new").expect("resolve");
        assert!(behind.via_link && behind.real == root.join("d/new"), "{behind:?}");
        let plain = crate::paths::resolve(&env, "d/../d/new").expect("resolve");
        assert!(!plain.via_link && plain.real == root.join("d/new") && plain.links == 0, "{plain:?}");
        let through = crate::paths::resolve(&env, "dangling").expect("resolve");
        assert!(through.via_link && through.real == root.join("nowhere"), "{through:?}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_root_folder_swapped_between_decisions_is_looked_at_afresh() {
        // The root folder held open from one decision must not answer for the next one after
        // its path was moved away and replaced: by another folder, or by a link to one.
        let dir = tempfile::tempdir().expect("tempdir");
        let top = RealDisk.real_path(dir.path()).expect("real");
        let root = top.join("proj");
        let cfg = PolicyConfig {
            root: root.clone(),
            home: Some(top.join("home")),
            allow: vec!["bash(cat *)".to_string()],
            ..Default::default()
        };
        let call = ToolCall::new("bash", serde_json::json!({ "command": "cat notes.txt" }));
        for (i, by_link) in [false, true].into_iter().enumerate() {
            std::fs::create_dir(&root).expect("mkdir");
            std::fs::write(root.join("notes.txt"), "x").expect("write");
            let policy = Policy::new(&cfg).expect("policy");
            let before = policy.decide(&call, &Session::new());
            assert_eq!(before.decision, Decision::Allow, "{before:?}");
            std::fs::rename(&root, top.join(format!("old{i}"))).expect("mv");
            let other = if by_link { top.join(format!("other{i}")) } else { root.clone() };
            std::fs::create_dir(&other).expect("mkdir");
            std::fs::write(other.join(".env"), "KEY=1").expect("write");
            std::os::unix::fs::symlink(other.join(".env"), other.join("notes.txt")).expect("symlink");
            if by_link {
                std::os::unix::fs::symlink(&other, &root).expect("symlink");
            }
            let after = policy.decide(&call, &Session::new());
            assert_eq!((after.decision, after.by), (Decision::Deny, By::Sensitive), "{by_link}: {after:?}");
            std::fs::remove_file(&root).or_else(|_| std::fs::remove_dir_all(&root)).expect("rm");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_repeated_command_is_judged_by_the_disk_as_it_is_now() {
        // The command's view is kept from the first call; what its words name on disk is not.
        let dir = tempfile::tempdir().expect("tempdir");
        let root = RealDisk.real_path(dir.path()).expect("real");
        std::fs::write(root.join(".env"), "KEY=1").expect("write");
        std::fs::write(root.join("notes.txt"), "x").expect("write");
        let cfg = PolicyConfig {
            root: root.clone(),
            home: Some(root.join("home")),
            allow: vec!["bash(cat *)".to_string()],
            ..Default::default()
        };
        let policy = Policy::new(&cfg).expect("policy");
        let call = ToolCall::new("bash", serde_json::json!({ "command": "cat notes.txt" }));
        let before = policy.decide(&call, &Session::new());
        assert_eq!(before.decision, Decision::Allow, "{before:?}");
        std::fs::remove_file(root.join("notes.txt")).expect("rm");
        std::os::unix::fs::symlink(root.join(".env"), root.join("notes.txt")).expect("symlink");
        let after = policy.decide(&call, &Session::new());
        assert_eq!((after.decision, after.by), (Decision::Deny, By::Sensitive), "{after:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_verdict_is_kept_only_while_the_disk_shows_the_same() {
        // Each call is decided twice on one disk, then again after one change: a kept verdict
        // never hides the change, whether the decision looked at paths one by one, listed a
        // folder (a glob) or followed a link.
        type Change = fn(&Path);
        let link = |target: &Path, at: &Path| std::os::unix::fs::symlink(target, at).expect("symlink");
        let cases: [(&str, Change); 4] = [
            ("cat src/notes.txt", |r| std::os::unix::fs::symlink(r.join(".env"), r.join("src/notes.txt")).expect("ln")),
            ("cat src/*.txt", |r| std::os::unix::fs::symlink(r.join(".env"), r.join("src/b.txt")).expect("ln")),
            ("cat link/a.txt", |r| {
                std::fs::remove_file(r.join("link")).expect("rm");
                std::fs::create_dir(r.join("keys")).expect("mkdir");
                std::fs::write(r.join("keys/a.txt"), "x").expect("write");
                std::os::unix::fs::symlink(r.join(".env"), r.join("keys/a.txt.tmp")).expect("ln");
                std::fs::rename(r.join("keys/a.txt.tmp"), r.join("keys/a.txt")).expect("mv");
                std::os::unix::fs::symlink(r.join("keys"), r.join("link")).expect("ln");
            }),
            ("echo hi | tee log.txt", |r| std::os::unix::fs::symlink(r.join(".env"), r.join("log.txt")).expect("ln")),
        ];
        let dir = tempfile::tempdir().expect("tempdir");
        let top = RealDisk.real_path(dir.path()).expect("real");
        for (i, (command, change)) in cases.into_iter().enumerate() {
            let root = top.join(i.to_string());
            std::fs::create_dir_all(root.join("src")).expect("mkdir");
            std::fs::write(root.join(".env"), "KEY=1").expect("write");
            std::fs::write(root.join("src/a.txt"), "x").expect("write");
            link(&root.join("src"), &root.join("link"));
            let cfg = PolicyConfig {
                root: root.clone(),
                home: Some(top.join("home")),
                allow: vec!["bash(cat *)".to_string(), "bash(tee *)".to_string(), "bash(echo *)".to_string()],
                ..Default::default()
            };
            let policy = Policy::new(&cfg).expect("policy");
            let call = ToolCall::new("bash", serde_json::json!({ "command": command }));
            let decide = || {
                let v = policy.decide(&call, &Session::new());
                (v.decision, v.by)
            };
            let first = decide();
            assert_eq!(first.0, Decision::Allow, "{command}: {first:?}");
            assert_eq!(decide(), first, "{command}");
            change(&root);
            assert_eq!(decide(), (Decision::Deny, By::Sensitive), "{command} after the change");
        }
    }

    #[test]
    fn the_real_disk_lists_entries_without_following_links() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("f"), "x").expect("write");
        std::fs::create_dir(dir.path().join("d")).expect("mkdir");
        #[cfg(unix)]
        std::os::unix::fs::symlink("d", dir.path().join("l")).expect("symlink");
        let mut seen: Vec<(String, Option<Kind>)> = RealDisk
            .list(dir.path())
            .expect("list")
            .map(|e| e.expect("entry"))
            .map(|e| (e.name.to_string_lossy().into_owned(), e.kind))
            .collect();
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        let mut want = vec![("d".to_string(), Some(Kind::Dir)), ("f".to_string(), Some(Kind::File))];
        #[cfg(unix)]
        want.push(("l".to_string(), Some(Kind::Link)));
        assert_eq!(seen, want);
        assert_eq!(RealDisk.stat(&dir.path().join("f")), Some(Stat { kind: Kind::File, links: 1 }));
        assert_eq!(RealDisk.read_text(&dir.path().join("f")).expect("read"), "x");
    }
}
