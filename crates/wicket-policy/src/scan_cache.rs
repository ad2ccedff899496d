//! The project scan's cache: the last walk's result, kept in wicket's own state and trusted
//! only while no folder it read has changed.
//!
//! The hard question: when may the last walk stand for a new one, so that a secret created
//! since is never missed? A name appears in, leaves or is renamed into a folder only by changing
//! that folder, which moves the folder's change time (`ctime`; unlike `mtime`, no command can
//! set it back: `touch -d` itself moves it). So the cache keeps, for every folder the walk read,
//! its device, inode and change time, stamped before it was read, and every link it met with
//! what the link led to. The result is reused only when every stamp and every link still match,
//! no stamp was made within [`RACY`] of the walk (a change in the same clock tick as the stamp
//! would not move it: git's racy index entries), the inputs that decide the walk are the same,
//! and the file is wicket's own (owned by this user, writable by nobody else, and outside
//! every folder the sandbox may write). Anything else walks the project again.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::exec::{ExecError, ExecInputs, Scan};

/// Folders changed this close to the walk (or later) are never trusted: a change made in the
/// same tick of the file system's clock as the stamp would leave the stamp as it was.
pub const RACY: std::time::Duration = std::time::Duration::from_secs(2);

/// One folder as the walk found it: stamped before it was read, and what it held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    path: String,
    dev: u64,
    ino: u64,
    ctime: i64,
    ctime_ns: i64,
    /// Changed within [`RACY`] of the walk: its stamp proves nothing, the folder is read again.
    racy: bool,
    /// Its entries' names and kinds (see [`Listing`]); `None`: it could not be read.
    listing: Option<u64>,
}

/// A folder's entries, names and kinds, in name order, hashed: what the walk's result depends
/// on in that folder. A folder whose stamp moved (wicket's own placeholders come and go in the
/// root) still holds when its listing is the same.
#[derive(Default)]
struct Listing(Vec<(Vec<u8>, u8)>);

impl Listing {
    fn hash(mut self) -> u64 {
        use std::hash::{Hash, Hasher};
        self.0.sort_unstable();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.0.hash(&mut h);
        h.finish()
    }

    fn of(dir: &Path) -> Option<u64> {
        let mut l = Listing::default();
        for e in std::fs::read_dir(dir).ok()? {
            let e = e.ok()?;
            l.0.push((name_bytes(&e.file_name()), kind(e.file_type().ok())));
        }
        Some(l.hash())
    }
}

fn name_bytes(n: &std::ffi::OsStr) -> Vec<u8> {
    n.as_encoded_bytes().to_vec()
}

fn kind(t: Option<std::fs::FileType>) -> u8 {
    match t {
        Some(t) if t.is_dir() => 1,
        Some(t) if t.is_symlink() => 2,
        Some(_) => 3,
        None => 0,
    }
}

/// What the walk read: its folders' stamps and listings, and its links' targets.
#[derive(Default)]
pub struct Seen {
    folders: Vec<Stamp>,
    links: Vec<(String, Option<String>)>,
    /// The entries of the folder being read.
    current: Option<Listing>,
    /// A folder could not be stamped, or a path is not UTF-8: nothing is cached.
    broken: bool,
}

impl Seen {
    /// Stamp a folder about to be read.
    pub fn folder(&mut self, dir: &Path) {
        self.finish();
        match (stamp(dir), dir.to_str()) {
            (Some((dev, ino, ctime, ctime_ns)), Some(p)) => {
                self.folders.push(Stamp { path: p.to_string(), dev, ino, ctime, ctime_ns, racy: false, listing: None });
                self.current = Some(Listing::default());
            }
            _ => self.broken = true,
        }
    }

    /// The folder being read could not be read.
    pub fn unreadable(&mut self) {
        self.current = None;
    }

    /// Reading the folder failed part way.
    pub fn cut_short(&mut self) {
        self.broken = true;
    }

    /// One entry of the folder being read.
    pub fn entry(&mut self, name: &std::ffi::OsStr, t: Option<std::fs::FileType>) {
        if let Some(l) = self.current.as_mut() {
            l.0.push((name_bytes(name), kind(t)));
        }
    }

    /// The folder being read is done.
    pub fn finish(&mut self) {
        if let (Some(l), Some(s)) = (self.current.take(), self.folders.last_mut()) {
            s.listing = Some(l.hash());
        }
    }

    /// Note a link and where it leads now.
    pub fn link(&mut self, link: &Path) {
        match link.to_str() {
            Some(p) => self.links.push((p.to_string(), target(link))),
            None => self.broken = true,
        }
    }
}

/// The cache file's content.
#[derive(Debug, Serialize, Deserialize)]
struct Cached {
    key: String,
    folders: Vec<Stamp>,
    links: Vec<(String, Option<String>)>,
    denied: Vec<PathBuf>,
    secrets: Vec<PathBuf>,
}

fn target(link: &Path) -> Option<String> {
    std::fs::canonicalize(link).ok().and_then(|t| t.to_str().map(String::from))
}

#[cfg(unix)]
fn stamp(dir: &Path) -> Option<(u64, u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(dir).ok()?;
    m.is_dir().then(|| (m.dev(), m.ino(), m.ctime(), m.ctime_nsec()))
}

#[cfg(not(unix))]
fn stamp(_dir: &Path) -> Option<(u64, u64, i64, i64)> {
    None
}

/// Everything the walk's result depends on besides the disk: the lists (this build), the root,
/// the homes, `denyPaths`, the allow rules and the case folding.
fn key(root: &Path, homes: &[PathBuf], i: &ExecInputs, case_insensitive: bool) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (crate::lists::SENSITIVE, crate::lists::HOME_SENSITIVE, crate::exec::SCAN_SKIPPED).hash(&mut h);
    let value = serde_json::json!([
        "v1",
        env!("CARGO_PKG_VERSION"),
        format!("{:x}", h.finish()),
        root,
        homes,
        i.home,
        i.deny_paths,
        i.allow,
        case_insensitive,
    ]);
    value.to_string()
}

/// The project's scan: from the cache at `i.scan_cache` when it still holds, else a new walk
/// (written back when every folder is old enough to be trusted). `writable`: the folders the
/// sandbox may write; a cache inside one of them is never read or written.
pub(crate) fn scan(
    root: &Path,
    homes: &[PathBuf],
    i: &ExecInputs,
    case_insensitive: bool,
    writable: &[PathBuf],
) -> Result<Scan, ExecError> {
    let file = i.scan_cache.as_deref().filter(|f| usable_place(f, writable));
    let Some(file) = file else {
        return crate::exec::scan_root(root, homes, i, case_insensitive, false).map(|(s, _)| s);
    };
    let key = key(root, homes, i, case_insensitive);
    if let Some(scan) = load(file, &key) {
        return Ok(scan);
    }
    let started = std::time::SystemTime::now();
    let (scan, seen) = crate::exec::scan_root(root, homes, i, case_insensitive, true)?;
    match seen {
        Some(mut seen) if !seen.broken => {
            seen.finish();
            mark_racy(&mut seen, started);
            store(file, &key, &scan, seen)
        }
        // Nothing stale may stay behind to be read later.
        _ => {
            let _ = std::fs::remove_file(file);
        }
    }
    Ok(scan)
}

/// A stamp this close to the walk's start could miss a change in the same tick: such folders
/// are read again every time.
fn mark_racy(seen: &mut Seen, started: std::time::SystemTime) {
    let limit = started.duration_since(std::time::UNIX_EPOCH).map(|d| d.saturating_sub(RACY)).ok();
    for s in &mut seen.folders {
        let at = u64::try_from(s.ctime).ok().zip(u32::try_from(s.ctime_ns).ok());
        s.racy = match (limit, at) {
            (Some(limit), Some((secs, ns))) => std::time::Duration::new(secs, ns) >= limit,
            _ => true,
        };
    }
}

/// The cache's folder is none the sandbox may write (it would hand the next run its masks).
fn usable_place(file: &Path, writable: &[PathBuf]) -> bool {
    let Some(dir) = file.parent() else { return false };
    let _ = create_private_dir(dir);
    let Ok(real) = std::fs::canonicalize(dir) else { return false };
    !writable.iter().any(|w| real.starts_with(w))
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

/// Only a file (and folder) of this user that nobody else can write.
#[cfg(target_os = "linux")]
fn owned(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    m.uid() == rustix::process::geteuid().as_raw() && m.mode() & 0o022 == 0
}

#[cfg(not(target_os = "linux"))]
fn owned(_m: &std::fs::Metadata) -> bool {
    false
}

/// The cached scan when the file is wicket's own, made for these inputs, and nothing it read
/// has changed.
fn load(file: &Path, key: &str) -> Option<Scan> {
    use std::io::Read;
    let dir = file.parent()?;
    if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir() && owned(&m)) {
        return None;
    }
    let mut f = open_nofollow(file)?;
    if !f.metadata().is_ok_and(|m| m.is_file() && owned(&m)) {
        return None;
    }
    let mut text = String::new();
    f.read_to_string(&mut text).ok()?;
    let c: Cached = serde_json::from_str(&text).ok()?;
    if c.key != key {
        return None;
    }
    let folders_hold = c.folders.iter().all(|s| {
        let now = stamp(Path::new(&s.path));
        let same = now.is_some_and(|(dev, ino, ct, ns)| (dev, ino, ct, ns) == (s.dev, s.ino, s.ctime, s.ctime_ns));
        // A moved or racy stamp: the folder must still be a folder holding the same entries.
        (same && !s.racy) || (now.is_some() && Listing::of(Path::new(&s.path)) == s.listing)
    });
    if !folders_hold || c.folders.is_empty() {
        return None;
    }
    if !c.links.iter().all(|(l, t)| target(Path::new(l)) == *t) {
        return None;
    }
    Some(Scan { denied: c.denied, secrets: c.secrets })
}

fn open_nofollow(file: &Path) -> Option<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc_o_nofollow());
    }
    o.open(file).ok()
}

#[cfg(target_os = "linux")]
fn libc_o_nofollow() -> i32 {
    rustix::fs::OFlags::NOFOLLOW.bits() as i32
}

#[cfg(all(unix, not(target_os = "linux")))]
fn libc_o_nofollow() -> i32 {
    0
}

/// Write the cache (a new file renamed into place); a failed write only costs the next walk.
fn store(file: &Path, key: &str, scan: &Scan, seen: Seen) {
    let c = Cached {
        key: key.to_string(),
        folders: seen.folders,
        links: seen.links,
        denied: scan.denied.clone(),
        secrets: scan.secrets.clone(),
    };
    let Ok(text) = serde_json::to_string(&c) else { return };
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    let written = o.open(&tmp).and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()));
    if written.is_ok() && std::fs::rename(&tmp, file).is_ok() {
        return;
    }
    let _ = std::fs::remove_file(&tmp);
}
