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
//!
//! The check is the cached run's whole extra cost (one `statx` a folder), so it is made cheap
//! and, where the caller can, taken off the command's path: stamps are kept relative to the
//! root and looked up from a descriptor of it (a short path walk each), the file is compact, and
//! [`Pending`] lets `wicket run` check while bubblewrap builds the sandbox; the command starts
//! only once the check has passed. Folders found moved but unchanged are stamped anew and
//! written back, so the number re-read on each run stays small.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::exec::{ExecError, ExecInputs, Scan};

/// Folders changed this close to the walk (or later) are never trusted: a change made in the
/// same tick of the file system's clock as the stamp would leave the stamp as it was.
pub const RACY: std::time::Duration = std::time::Duration::from_secs(2);

/// One folder as the walk found it: stamped before it was read, and what it held.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp(
    /// The folder's path relative to the root (`""`: the root itself).
    String,
    /// Its device, inode and change time (seconds, nanoseconds).
    Id,
    /// Changed within [`RACY`] of the walk: its stamp proves nothing, the folder is read again.
    bool,
    /// Its entries' names and kinds (see [`Listing`]); `None`: it could not be read.
    Option<u64>,
);

/// A folder's device, inode and change time (seconds, nanoseconds).
type Id = (u64, u64, i64, i64);

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
    /// Absolute paths while walking (made relative to the root when stored).
    folders: Vec<(PathBuf, Id, Option<u64>)>,
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
        match stamp(dir) {
            Some(id) => {
                self.folders.push((dir.to_path_buf(), id, None));
                self.current = Some(Listing::default());
            }
            None => self.broken = true,
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
            s.2 = Some(l.hash());
        }
    }

    /// Note a link and where it leads now.
    pub fn link(&mut self, link: &Path) {
        match link.to_str() {
            Some(p) => self.links.push((p.to_string(), target(link))),
            None => self.broken = true,
        }
    }

    /// The stamps relative to `root`, racy ones marked; `None` when a folder is not below the
    /// root or its path is not UTF-8.
    fn stamps(self, root: &Path, started: std::time::SystemTime) -> Option<Vec<Stamp>> {
        let limit = racy_limit(started);
        self.folders
            .into_iter()
            .map(|(p, id, listing)| {
                let rel = p.strip_prefix(root).ok()?.to_str()?.to_string();
                Some(Stamp(rel, id, racy(id, limit), listing))
            })
            .collect()
    }
}

/// A walk's folder stamps (encoded as in the cache file), kept for the check after the run:
/// which folders changed while the command ran.
#[derive(Clone, PartialEq, Eq)]
pub struct Stamps {
    bytes: std::sync::Arc<Vec<u8>>,
    count: usize,
}

impl std::fmt::Debug for Stamps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stamps({} folders)", self.count)
    }
}

impl Stamps {
    fn of(folders: &[Stamp]) -> Stamps {
        Stamps { bytes: std::sync::Arc::new(encode(folders)), count: folders.len() }
    }

    /// The folders (relative to `root`) whose stamp moved since the walk, or that were racy
    /// then, and the inode of every stamped folder directly inside one of them (what the check
    /// after the run looks up); `None` when the stamps cannot be read back or the root not
    /// opened (then everything must be read). Big projects are checked by a few threads.
    pub(crate) fn since(&self, root: &Path) -> Option<(Vec<String>, std::collections::HashMap<String, u64>)> {
        let mut b = self.bytes.as_slice();
        let mut records: Vec<(&str, Id, bool)> = Vec::with_capacity(self.count);
        for _ in 0..self.count {
            let (rel, rest) = split_record(&mut b)?;
            let (id, racy) = decode_id(rest)?;
            records.push((std::str::from_utf8(rel).ok()?, id, racy));
        }
        let base = open_root(root)?;
        let threads = crate::cores().min(CHECK_THREADS);
        let chunk = records.len().div_ceil(if records.len() < PER_THREAD_AFTER { 1 } else { threads }).max(1);
        let changed_in = |part: &[(&str, Id, bool)]| -> Vec<String> {
            let mut out = Vec::new();
            for (rel, id, racy) in part {
                #[cfg(target_os = "linux")]
                let now = stamp_at(&base, Path::new(rel));
                #[cfg(not(target_os = "linux"))]
                let now = {
                    let _ = &base;
                    stamp(&root.join(rel))
                };
                // Gone: its parent moved, and is read again.
                if now.is_some_and(|n| n != *id || *racy) {
                    out.push(rel.to_string());
                }
            }
            out
        };
        let changed_in = &changed_in;
        let changed: Option<Vec<String>> = std::thread::scope(|s| {
            let handles: Vec<_> = records.chunks(chunk).skip(1).map(|part| s.spawn(move || changed_in(part))).collect();
            let mut all = records.chunks(chunk).next().map(changed_in).unwrap_or_default();
            for h in handles {
                // A thread that failed: nothing is known, everything is read.
                all.extend(h.join().ok()?);
            }
            Some(all)
        });
        let changed = changed?;
        let parents: std::collections::HashSet<&str> = changed.iter().map(String::as_str).collect();
        let map = records
            .iter()
            .filter(|(rel, ..)| !rel.is_empty() && parents.contains(rel.rsplit_once('/').map_or("", |(p, _)| p)))
            .map(|(rel, id, _)| (rel.to_string(), id.1))
            .collect();
        Some((changed, map))
    }
}

/// A stamp's device, inode, change time and racy flag from the bytes after its path.
fn decode_id(mut b: &[u8]) -> Option<(Id, bool)> {
    fn word(b: &mut &[u8]) -> Option<[u8; 8]> {
        take(b, 8)?.try_into().ok()
    }
    let (dev, ino) = (u64::from_le_bytes(word(&mut b)?), u64::from_le_bytes(word(&mut b)?));
    let (ct, ns) = (i64::from_le_bytes(word(&mut b)?), i64::from_le_bytes(word(&mut b)?));
    let flags = *take(&mut b, 1)?.first()?;
    Some(((dev, ino, ct, ns), flags & 1 != 0))
}

/// The cache file: [`MAGIC`], this header as one line of JSON, then the folders' stamps in a
/// fixed binary layout (see [`encode`]), which the check reads off the command's path.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    key: String,
    links: Vec<(String, Option<String>)>,
    denied: Vec<PathBuf>,
    /// What only a deny rule for writing matched.
    #[serde(default)]
    kept: Vec<PathBuf>,
    secrets: Vec<PathBuf>,
    /// The repository candidates the walk found (see [`crate::nested_git`]).
    repos: Vec<PathBuf>,
    /// The entries that may run code somewhere (see [`crate::held`]).
    #[serde(default)]
    guarded: Vec<PathBuf>,
    /// How many stamps follow.
    folders: usize,
}

/// The first bytes of a cache file of this layout.
const MAGIC: &[u8] = b"wicket-scan-3\n";

/// The stamps, each: the path's length (u32) and bytes, device, inode, change time (seconds,
/// nanoseconds), flags (1: racy, 2: listed) and the listing's hash; little-endian.
fn encode(folders: &[Stamp]) -> Vec<u8> {
    let mut out = Vec::with_capacity(folders.len() * 64);
    for Stamp(rel, (dev, ino, ct, ns), racy, listing) in folders {
        out.extend_from_slice(&u32::try_from(rel.len()).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(rel.as_bytes());
        for v in [*dev, *ino] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [*ct, *ns] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.push(u8::from(*racy) | if listing.is_some() { 2 } else { 0 });
        out.extend_from_slice(&listing.unwrap_or(0).to_le_bytes());
    }
    out
}

/// The stamps back; `None` unless the bytes are exactly `count` well-formed stamps.
fn decode(mut b: &[u8], count: usize) -> Option<Vec<Stamp>> {
    let mut out = Vec::with_capacity(count.min(b.len() / 45));
    for _ in 0..count {
        let (rel, rest) = split_record(&mut b)?;
        out.push(decode_rest(std::str::from_utf8(rel).ok()?, rest)?);
    }
    b.is_empty().then_some(out)
}

/// The bytes after a stamp's path: device, inode, change time, flags, listing.
const REST: usize = 8 * 4 + 1 + 8;

fn take<'a>(b: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, rest) = (b.get(..n)?, b.get(n..)?);
    *b = rest;
    Some(head)
}

/// The next stamp's path and the rest of its bytes, not decoded (cheap to skip).
fn split_record<'a>(b: &mut &'a [u8]) -> Option<(&'a [u8], &'a [u8])> {
    let len = u32::from_le_bytes(take(b, 4)?.try_into().ok()?);
    let rel = take(b, usize::try_from(len).ok()?)?;
    Some((rel, take(b, REST)?))
}

fn decode_rest(rel: &str, mut b: &[u8]) -> Option<Stamp> {
    fn word(b: &mut &[u8]) -> Option<[u8; 8]> {
        take(b, 8)?.try_into().ok()
    }
    let (dev, ino) = (u64::from_le_bytes(word(&mut b)?), u64::from_le_bytes(word(&mut b)?));
    let (ct, ns) = (i64::from_le_bytes(word(&mut b)?), i64::from_le_bytes(word(&mut b)?));
    let flags = *take(&mut b, 1)?.first()?;
    let listing = u64::from_le_bytes(word(&mut b)?);
    Some(Stamp(rel.to_string(), (dev, ino, ct, ns), flags & 1 != 0, (flags & 2 != 0).then_some(listing)))
}

fn target(link: &Path) -> Option<String> {
    std::fs::canonicalize(link).ok().and_then(|t| t.to_str().map(String::from))
}

/// A folder's stamp by path (not following a link at the end).
#[cfg(target_os = "linux")]
fn stamp(dir: &Path) -> Option<Id> {
    stamp_at(rustix::fs::CWD, dir)
}

/// A folder's stamp: `rel` looked up from `base` (the same device numbers as [`stamp`]).
#[cfg(target_os = "linux")]
fn stamp_at<Fd: std::os::fd::AsFd>(base: Fd, rel: &Path) -> Option<Id> {
    use rustix::fs::{AtFlags, FileType, StatxFlags};
    let flags = if rel.as_os_str().is_empty() {
        AtFlags::SYMLINK_NOFOLLOW | AtFlags::EMPTY_PATH
    } else {
        AtFlags::SYMLINK_NOFOLLOW
    };
    let x = rustix::fs::statx(base, rel, flags, StatxFlags::TYPE | StatxFlags::INO | StatxFlags::CTIME).ok()?;
    let dir = FileType::from_raw_mode(u32::from(x.stx_mode)) == FileType::Directory;
    let dev = rustix::fs::makedev(x.stx_dev_major, x.stx_dev_minor);
    dir.then_some((dev, x.stx_ino, x.stx_ctime.tv_sec, i64::from(x.stx_ctime.tv_nsec)))
}

#[cfg(all(unix, not(target_os = "linux")))]
fn stamp(dir: &Path) -> Option<Id> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(dir).ok()?;
    m.is_dir().then(|| (m.dev(), m.ino(), m.ctime(), m.ctime_nsec()))
}

#[cfg(not(unix))]
fn stamp(_dir: &Path) -> Option<Id> {
    None
}

/// Stamps at or after this are racy (`None`: the clock is before 1970, all are).
fn racy_limit(started: std::time::SystemTime) -> Option<std::time::Duration> {
    started.duration_since(std::time::UNIX_EPOCH).map(|d| d.saturating_sub(RACY)).ok()
}

/// A stamp this close to the walk's start could miss a change in the same tick: such folders
/// are read again every time.
fn racy(id: Id, limit: Option<std::time::Duration>) -> bool {
    let at = u64::try_from(id.2).ok().zip(u32::try_from(id.3).ok());
    match (limit, at) {
        (Some(limit), Some((secs, ns))) => std::time::Duration::new(secs, ns) >= limit,
        _ => true,
    }
}

/// Everything the walk's result depends on besides the disk: the lists (this build), the root,
/// the homes, `denyPaths`, the allow rules and the case folding.
fn key(root: &Path, homes: &[PathBuf], i: &ExecInputs, case_insensitive: bool) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        wicket_policy::lists::SENSITIVE,
        wicket_policy::lists::HOME_SENSITIVE,
        wicket_policy::lists::CODE_CONFIG,
        crate::exec::SCAN_SKIPPED,
    )
        .hash(&mut h);
    let value = serde_json::json!([
        "v5",
        env!("CARGO_PKG_VERSION"),
        format!("{:x}", h.finish()),
        root,
        homes,
        i.home,
        i.deny_paths,
        i.rule_deny_read,
        i.rule_deny_write,
        i.allow,
        case_insensitive,
    ]);
    value.to_string()
}

/// A cached scan not yet checked against the disk: [`Pending::holds`] must return true before
/// a command confined by it starts.
#[must_use = "a cached scan is only good once checked"]
pub struct Pending {
    file: PathBuf,
    root: PathBuf,
    header: Header,
    /// The stamps, still encoded: decoded by the check.
    stamps: Vec<u8>,
    /// What [`Pending::check_first`] found.
    first: First,
}

/// The stamps checked ahead by [`Pending::check_first`].
enum First {
    /// None.
    NotYet,
    /// One had changed.
    Changed,
    /// They held: their indices, and those found moved but unchanged (index, new stamp).
    Held(Vec<usize>, Vec<(usize, Id)>),
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pending({} folders of {})", self.header.folders, self.root.display())
    }
}

/// Folders found moved (or racy) but unchanged, above which the cache is written back with
/// their new stamps: re-reading a few (the root, where placeholders come and go) costs less
/// than rewriting the file on every run.
const REFRESH_ABOVE: usize = 32;

impl Pending {
    /// Check now the folders in `dirs` (absolute; those not walked are skipped): the ones
    /// where this run is about to make its placeholders, which must be checked before they
    /// appear (the folder's entries would differ from the walk's). The rest is checked by
    /// [`Pending::holds`], which also returns false when one of these had changed.
    pub fn check_first(&mut self, dirs: &[PathBuf]) {
        let rels: Vec<&[u8]> = dirs
            .iter()
            .filter_map(|d| d.strip_prefix(&self.root).ok())
            .map(|r| r.as_os_str().as_encoded_bytes())
            .collect();
        let mut found = Vec::new();
        let mut b = self.stamps.as_slice();
        for n in 0..self.header.folders {
            let Some((rel, rest)) = split_record(&mut b) else { break };
            if rels.contains(&rel) {
                // A damaged record is left to `holds`, which fails on it.
                let stamp = std::str::from_utf8(rel).ok().and_then(|r| decode_rest(r, rest));
                found.extend(stamp.map(|s| (n, s)));
            }
        }
        let checked: Vec<usize> = found.iter().map(|(n, _)| *n).collect();
        let stamps: Vec<Stamp> = found.iter().map(|(_, s)| s.clone()).collect();
        let moved = open_root(&self.root).and_then(|base| check_part(&self.root, &base, &stamps, 0, &[]));
        self.first = match moved {
            Some(m) => {
                let m = m.into_iter().filter_map(|(k, id)| checked.get(k).map(|n| (*n, id))).collect();
                First::Held(checked, m)
            }
            None => First::Changed,
        };
    }

    /// True when nothing the cached scan read has changed since: every folder still has its
    /// stamp (or, moved or racy, still lists the same names and kinds) and every link still
    /// leads where it did. When false the cache is removed, so the next build walks.
    pub fn holds(self) -> bool {
        let timing = std::env::var_os("WICKET_SCAN_TIMING").is_some();
        let t0 = std::time::Instant::now();
        let started = std::time::SystemTime::now();
        let mut folders = decode(&self.stamps, self.header.folders).unwrap_or_default();
        let moved = match &self.first {
            First::NotYet => check(&self.root, &folders, &[]),
            First::Changed => None,
            First::Held(done, first) => check(&self.root, &folders, done).map(|mut m| {
                m.extend_from_slice(first);
                m
            }),
        };
        let links_hold = moved.is_some() && self.header.links.iter().all(|(l, t)| target(Path::new(l)) == *t);
        if timing {
            eprintln!(
                "wicket: scan cache: {} folders checked in {:.2} ms: {}",
                folders.len(),
                t0.elapsed().as_secs_f64() * 1e3,
                match &moved {
                    Some(m) if links_hold => format!("holds ({} re-read)", m.len()),
                    _ => "changed".to_string(),
                }
            );
        }
        let Some(moved) = moved.filter(|_| links_hold) else {
            let _ = std::fs::remove_file(&self.file);
            return false;
        };
        if moved.len() > REFRESH_ABOVE {
            let limit = racy_limit(started);
            for (n, id) in moved {
                if let Some(s) = folders.get_mut(n) {
                    s.1 = id;
                    s.2 = racy(id, limit);
                }
            }
            write(&self.file, &self.header, &folders);
        }
        true
    }
}

/// Check every stamp from a descriptor of the root: the folders re-read (index and the stamp
/// taken before the re-read), or `None` when one changed. A big project is checked by a few
/// threads at once (the lookups are independent and the kernel's work).
/// `skip`: indices checked already.
fn check(root: &Path, folders: &[Stamp], skip: &[usize]) -> Option<Vec<(usize, Id)>> {
    let base = open_root(root)?;
    if folders.is_empty() {
        return None;
    }
    let threads = crate::cores().min(CHECK_THREADS);
    let chunk = folders.len().div_ceil(if folders.len() < PER_THREAD { 1 } else { threads });
    let parts: Vec<Option<Vec<(usize, Id)>>> = std::thread::scope(|s| {
        let handles: Vec<_> = folders
            .chunks(chunk)
            .enumerate()
            .skip(1)
            .map(|(k, part)| {
                let base = &base;
                std::thread::Builder::new().spawn_scoped(s, move || check_part(root, base, part, k * chunk, skip))
            })
            .collect();
        let first = folders.chunks(chunk).next().and_then(|part| check_part(root, &base, part, 0, skip));
        // A thread that could not start, or failed, counts as a change.
        std::iter::once(first)
            .chain(handles.into_iter().map(|h| h.ok().and_then(|h| h.join().ok().flatten())))
            .collect()
    });
    parts.into_iter().try_fold(Vec::new(), |mut all, part| {
        all.extend(part?);
        Some(all)
    })
}

/// A descriptor of the root the stamps are looked up from.
#[cfg(target_os = "linux")]
fn open_root(root: &Path) -> Option<Base> {
    use rustix::fs::{Mode, OFlags};
    let fd =
        rustix::fs::open(root, OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())
            .ok()?;
    // The descriptor is the root the stamps name (and no link to elsewhere).
    if stamp_at(&fd, Path::new("")).map(|i| (i.0, i.1)) != stamp(root).map(|i| (i.0, i.1)) {
        return None;
    }
    Some(fd)
}

#[cfg(not(target_os = "linux"))]
fn open_root(_root: &Path) -> Option<Base> {
    Some(())
}

/// At most this many threads check one project.
const CHECK_THREADS: usize = 2;

/// Fewer folders than this are checked by one thread (before the run: it runs beside
/// the sandbox's start, which needs the other core).
const PER_THREAD: usize = 4096;

/// The same after the run, when the command is over and the other core idle: a thread costs
/// about 50 µs to start, a folder about 1.4 µs to look up.
const PER_THREAD_AFTER: usize = 512;

#[cfg(target_os = "linux")]
type Base = std::os::fd::OwnedFd;
#[cfg(not(target_os = "linux"))]
type Base = ();

/// [`check`] for the folders `part`, which start at index `first`, but those in `skip`.
fn check_part(root: &Path, base: &Base, part: &[Stamp], first: usize, skip: &[usize]) -> Option<Vec<(usize, Id)>> {
    let mut moved = Vec::new();
    for (n, Stamp(rel, id, was_racy, listing)) in part.iter().enumerate() {
        if !skip.is_empty() && skip.contains(&(first + n)) {
            continue;
        }
        #[cfg(target_os = "linux")]
        let now = stamp_at(base, Path::new(rel))?;
        #[cfg(not(target_os = "linux"))]
        let now = {
            let _ = base;
            stamp(&root.join(rel))?
        };
        if now == *id && !was_racy {
            continue;
        }
        // A moved or racy stamp: the folder must still hold the same entries (stamped first,
        // so a change during the re-read moves the new stamp past this one).
        if (now.0, now.1) != (id.0, id.1) || Listing::of(&root.join(rel)) != *listing {
            return None;
        }
        moved.push((first + n, now));
    }
    Some(moved)
}

/// The project's scan: from the cache at `i.scan_cache` when it is wicket's own and made for
/// these inputs, with the check still to make; else a new walk (written back when the walk
/// can be cached). `writable`: the folders the sandbox may write; a cache inside one of them
/// is never read or written. `cached`: false walks whatever the cache holds.
pub(crate) fn scan(
    root: &Path,
    homes: &[PathBuf],
    i: &ExecInputs,
    case_insensitive: bool,
    writable: &[PathBuf],
    cached: bool,
) -> Result<(Scan, Option<Pending>), ExecError> {
    let file = i.scan_cache.as_deref().filter(|f| usable_place(f, writable));
    let Some(file) = file else {
        let started = std::time::SystemTime::now();
        let (mut scan, seen, _) = crate::exec::scan_root(root, homes, i, case_insensitive, true)?;
        scan.stamps = seen.and_then(|s| stamps_of(s, root, started)).map(|(f, _)| Stamps::of(&f));
        return Ok((scan, None));
    };
    let key = key(root, homes, i, case_insensitive);
    if cached {
        let t0 = std::time::Instant::now();
        let loaded = load(file, &key);
        if std::env::var_os("WICKET_SCAN_TIMING").is_some() {
            eprintln!("wicket: scan cache: read in {:.2} ms", t0.elapsed().as_secs_f64() * 1e3);
        }
        if let Some((header, stamps)) = loaded {
            let scan = Scan {
                denied: header.denied.clone(),
                kept: header.kept.clone(),
                secrets: header.secrets.clone(),
                repos: header.repos.clone(),
                guarded: header.guarded.clone(),
                stamps: Some(Stamps { bytes: std::sync::Arc::new(stamps.clone()), count: header.folders }),
            };
            let pending =
                Pending { file: file.to_path_buf(), root: root.to_path_buf(), header, stamps, first: First::NotYet };
            return Ok((scan, Some(pending)));
        }
    }
    let started = std::time::SystemTime::now();
    let t0 = std::time::Instant::now();
    let (mut scan, seen, cacheable) = crate::exec::scan_root(root, homes, i, case_insensitive, true)?;
    if std::env::var_os("WICKET_SCAN_TIMING").is_some() {
        eprintln!("wicket: scan cache: the project walked in {:.2} ms", t0.elapsed().as_secs_f64() * 1e3);
    }
    let stamps = seen.and_then(|s| stamps_of(s, root, started));
    scan.stamps = stamps.as_ref().map(|(f, _)| Stamps::of(f));
    match stamps.filter(|_| cacheable) {
        Some((folders, links)) => {
            let header = Header {
                key,
                links,
                denied: scan.denied.clone(),
                kept: scan.kept.clone(),
                secrets: scan.secrets.clone(),
                repos: scan.repos.clone(),
                guarded: scan.guarded.clone(),
                folders: folders.len(),
            };
            write(file, &header, &folders)
        }
        // Nothing stale may stay behind to be read later.
        None => {
            let _ = std::fs::remove_file(file);
        }
    }
    Ok((scan, None))
}

/// The links a walk met, each with where it led.
type Links = Vec<(String, Option<String>)>;

/// The stamps and links a walk recorded, relative to the root; `None` when they cannot stand
/// for the walk (a folder could not be stamped, a path is not UTF-8).
fn stamps_of(mut seen: Seen, root: &Path, started: std::time::SystemTime) -> Option<(Vec<Stamp>, Links)> {
    if seen.broken {
        return None;
    }
    seen.finish();
    let links = std::mem::take(&mut seen.links);
    seen.stamps(root, started).map(|f| (f, links))
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

/// The cached scan when the file is wicket's own and made for these inputs (not yet checked
/// against the disk).
fn load(file: &Path, key: &str) -> Option<(Header, Vec<u8>)> {
    use std::io::Read;
    let dir = file.parent()?;
    if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir() && owned(&m)) {
        return None;
    }
    let mut f = open_nofollow(file)?;
    if !f.metadata().is_ok_and(|m| m.is_file() && owned(&m)) {
        return None;
    }
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).ok()?;
    let rest = bytes.strip_prefix(MAGIC)?;
    let end = rest.iter().position(|b| *b == b'\n')?;
    let h: Header = serde_json::from_slice(rest.get(..end)?).ok()?;
    let stamps = rest.get(end + 1..)?.to_vec();
    (h.key == key && h.folders > 0).then_some((h, stamps))
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
fn write(file: &Path, header: &Header, folders: &[Stamp]) {
    let Ok(head) = serde_json::to_vec(header) else { return };
    let mut text = MAGIC.to_vec();
    text.extend_from_slice(&head);
    text.push(b'\n');
    text.extend_from_slice(&encode(folders));
    // Unique to this write (runs in one process, `serve`, may write at once).
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = file.with_extension(format!("tmp{}-{n}", std::process::id()));
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    let written = o.open(&tmp).and_then(|mut f| std::io::Write::write_all(&mut f, &text));
    if written.is_ok() && std::fs::rename(&tmp, file).is_ok() {
        return;
    }
    let _ = std::fs::remove_file(&tmp);
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn stamps(n: usize) -> Vec<Stamp> {
        (0..n)
            .map(|k| {
                Stamp(format!("d{k}/\u{e9}"), (k as u64, 7, -1, 999_999_999), k % 2 == 0, (k % 3 != 0).then_some(!0))
            })
            .collect()
    }

    #[test]
    fn stamps_round_trip_and_a_damaged_file_is_refused() {
        let s = stamps(5);
        let b = encode(&s);
        assert_eq!(decode(&b, 5), Some(s));
        assert_eq!(decode(&b, 4), None, "bytes left over");
        assert_eq!(decode(&b, 6), None, "a stamp missing");
        assert_eq!(decode(&b[..b.len() - 1], 5), None, "cut short");
    }

    /// The folders where a run makes its placeholders are checked before it makes them: the
    /// cache then still holds although those folders gain entries while the rest is checked.
    /// Without that first check the run's own placeholders made its cache fail (a race lost
    /// whenever the check thread was slower than the placeholders). A change made before the
    /// first check is still seen.
    #[test]
    fn the_placeholders_folders_are_checked_before_they_are_made() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("p");
        std::fs::create_dir_all(root.join("a/b")).expect("mkdir");
        let i = ExecInputs {
            root: root.clone(),
            scan_cache: Some(dir.path().join("state/cache/scan/p.json")),
            ..ExecInputs::default()
        };
        let _ = scan(&root, &[], &i, false, &[], true).expect("scan");
        std::thread::sleep(RACY + std::time::Duration::from_millis(300));
        let pending = |first: bool| {
            let (_, p) = scan(&root, &[], &i, false, &[], true).expect("scan");
            let mut p = p.expect("cached");
            if first {
                p.check_first(&[root.clone(), root.join("missing")]);
            }
            p
        };
        // A placeholder made in the root after the first check, before the rest is checked.
        let placeholder = root.join(".mcp.json");
        let mut cases = Vec::new();
        for first in [false, true] {
            let p = pending(first);
            std::fs::create_dir(&placeholder).expect("placeholder");
            cases.push(p.holds());
            std::fs::remove_dir(&placeholder).expect("gone");
            if !cases[cases.len() - 1] {
                // The failed check removed the cache: walk again, and let it age.
                let _ = scan(&root, &[], &i, false, &[], true).expect("scan");
                std::thread::sleep(RACY + std::time::Duration::from_millis(300));
            }
        }
        assert_eq!(cases, vec![false, true], "without, then with the first check");
        // A new secret in the root before the first check: the first check fails.
        std::fs::write(root.join(".env"), "S").expect("write");
        let p = pending(true);
        assert!(!p.holds(), "the root changed before the first check");
    }

    /// A tree with more folders than [`REFRESH_ABOVE`], scanned while it is new (every stamp
    /// racy): once it is old enough, the first check that holds writes the stamps back, so
    /// the next check re-reads nothing. (Before, racy stamps were re-read on every run, and
    /// the cache never written again.)
    #[test]
    fn racy_stamps_are_refreshed_once_old_enough() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("p");
        for k in 0..(REFRESH_ABOVE + 8) {
            std::fs::create_dir_all(root.join(format!("d{k}/e"))).expect("mkdir");
        }
        let i = ExecInputs {
            root: root.clone(),
            scan_cache: Some(dir.path().join("state/cache/scan/p.json")),
            ..ExecInputs::default()
        };
        let file = i.scan_cache.clone().expect("set");
        let racy_now = || -> (usize, usize) {
            let bytes = std::fs::read(&file).expect("cache written");
            let rest = bytes.strip_prefix(MAGIC).expect("magic");
            let end = rest.iter().position(|b| *b == b'\n').expect("header");
            let h: Header = serde_json::from_slice(&rest[..end]).expect("header");
            let f = decode(&rest[end + 1..], h.folders).expect("stamps");
            (f.iter().filter(|s| s.2).count(), check(&root, &f, &[]).expect("holds").len())
        };
        let (_, pending) = scan(&root, &[], &i, false, &[], true).expect("scan");
        assert!(pending.is_none(), "nothing cached yet: walked");
        let (racy, reread) = racy_now();
        assert!(racy > REFRESH_ABOVE && reread == racy, "{racy} racy, {reread} re-read");
        std::thread::sleep(RACY + std::time::Duration::from_millis(300));
        let (_, pending) = scan(&root, &[], &i, false, &[], true).expect("scan");
        assert!(pending.expect("cached").holds());
        assert_eq!(racy_now(), (0, 0), "stamped anew, nothing left to re-read");
        // And a change is still seen after the refresh.
        std::fs::write(root.join("d3/e/.env"), "S").expect("write");
        let (_, pending) = scan(&root, &[], &i, false, &[], true).expect("scan");
        assert!(!pending.expect("cached").holds(), "the new file's folder moved");
    }
}
