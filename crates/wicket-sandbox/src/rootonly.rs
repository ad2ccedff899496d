//! Root's own system files, hidden from a command that wicket runs as root.
//!
//! The hard question: what may a command started by root read? Neither a user namespace nor
//! dropped capabilities change the kernel's owner check: a process whose real owner is root
//! still owns `/etc/shadow` (mode 0640, owner root) and reads it. So, as root, the files and
//! folders in the system folders that an unprivileged user could not read (owned by root,
//! without read permission for others) are masked like secrets. Files of other users need no
//! mask: without capabilities, root cannot read them.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::under::{normal, under};

/// The system folders searched, with how deep.
const SYSTEM: &[(&str, usize)] =
    &[("/etc", 8), ("/boot", 3), ("/var", 2), ("/srv", 3), ("/opt", 3), ("/usr/local/etc", 4)];

/// Top-level folders not searched beyond [`SYSTEM`]: the operating system's own trees (files
/// every user may read, by the distribution's design), the kernel's file systems, and the
/// folders the sandbox replaces anyway (`/run` is sealed, the temp folders are fresh).
const NOT_SEARCHED: &[&str] =
    &["proc", "sys", "dev", "run", "tmp", "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "nix", "snap"];

/// How deep the other top-level folders (`/mnt`, `/media`, `/data`, `/workspace`, a container's
/// own folders …) are searched.
const OTHER_DEPTH: usize = 3;

/// Entries looked at, at most (a few thousand on a usual system).
const MAX_ENTRIES: usize = 200_000;

/// How old a folder's last change must be before its listing is kept: a second change within
/// the file system's timestamp granularity could leave the same stamp.
pub const MARGIN: Duration = Duration::from_secs(2);

/// The first line of the kept listings (another line: a format this wicket does not read).
const HEADER: &[u8] = b"wicket root-only listings 1\n";

/// The root-only paths in the system folders, leaving out `keep` (the project and the writable
/// paths) and every folder that holds one of them (searched instead); sorted. With `cache` (a
/// file in wicket's own state, which no sandboxed command can reach), the folders' listings of
/// the last search are used again for each folder whose stamp is unchanged (see [`Stamp`]).
pub fn root_only_paths(keep: &[PathBuf], cache: Option<&Path>) -> Vec<PathBuf> {
    let early = EARLY.lock().ok().and_then(|mut e| e.take());
    // A search begun for other paths, one that panicked, or one begun too long ago (the run
    // waited for a person's answer) is not used: this one is made now.
    if let Some((begun, handle)) = early.filter(|(begun, _)| begun.elapsed() <= FRESH) {
        if let Ok((k, c, found)) = handle.join() {
            if k == keep && c.as_deref() == cache && begun.elapsed() <= FRESH {
                return found;
            }
        }
    }
    search(keep, cache)
}

/// How long before its use an early search may have begun: what was root-only then is what
/// gets masked. A run that reaches its sandbox without asking anybody takes milliseconds; one
/// that waited for a person's answer searches again.
const FRESH: Duration = Duration::from_millis(500);

fn search(keep: &[PathBuf], cache: Option<&Path>) -> Vec<PathBuf> {
    let t0 = std::time::Instant::now();
    let system: Vec<(&Path, usize)> = SYSTEM.iter().map(|(d, depth)| (Path::new(d), *depth)).collect();
    let out = root_only_in(&system, Some(Path::new("/")), keep, cache, MARGIN);
    if std::env::var_os("WICKET_SCAN_TIMING").is_some() {
        eprintln!("wicket: root-only files: searched in {:.2} ms", t0.elapsed().as_secs_f64() * 1e3);
    }
    out
}

/// A search begun before its run's policy was built: when it began, and the paths it left
/// out, its cache, and what it found.
type Early = (std::time::Instant, std::thread::JoinHandle<(Vec<PathBuf>, Option<PathBuf>, Vec<PathBuf>)>);

static EARLY: std::sync::Mutex<Option<Early>> = std::sync::Mutex::new(None);

/// As root, begin the search now on a thread of its own, leaving out the paths `keep` gives
/// (found on that thread): the next `root_only_paths` with exactly those paths and `cache`,
/// within `FRESH` of now, takes its result instead of searching. The search needs only the
/// writable paths, known long before the rest of a run's policy, and was the longest step
/// before bubblewrap could start. Nothing is begun for another user, who needs no search.
pub fn search_soon(keep: impl FnOnce() -> Vec<PathBuf> + Send + 'static, cache: Option<PathBuf>) {
    if !rustix::process::geteuid().is_root() {
        return;
    }
    let at = std::time::Instant::now();
    let begun = std::thread::Builder::new().name("root-only search".into()).spawn(move || {
        let keep = keep();
        let found = search(&keep, cache.as_deref());
        crate::trace::phase("root-only files searched (early)");
        (keep, cache, found)
    });
    if let (Ok(h), Ok(mut slot)) = (begun, EARLY.lock()) {
        *slot = Some((at, h));
    }
}

/// [`root_only_paths`] in the folders `system` (each with how deep) and the other top-level
/// folders of `top`, with the age a folder's change must have before its listing is kept.
fn root_only_in(
    system: &[(&Path, usize)],
    top: Option<&Path>,
    keep: &[PathBuf],
    cache: Option<&Path>,
    margin: Duration,
) -> Vec<PathBuf> {
    // Compared component by component once here, so the search can compare bytes.
    let keep: Vec<PathBuf> = keep.iter().map(|k| normal(k)).collect();
    // The kept listings are read in place from the file's bytes: copying out every name, a
    // few thousand small allocations, cost a search more than looking at the entries.
    let bytes = cache.and_then(crate::private::read);
    let kept = bytes.as_deref().and_then(decode).unwrap_or_default();
    let walk = Walk { kept: &kept, seen: AtomicUsize::new(0), before: SystemTime::now(), margin };
    let mut top_found = Found::default();
    // The work: each system folder's entries (a system folder that is kept, or inside a kept
    // one, hides nothing). The search is one `lstat` an entry, a few thousand of them, most of
    // a sandboxed command's start as root: the entries are shared out between threads, which
    // then take about half the time on two cores.
    let mut folders: Vec<(Folder, usize, Vec<PathBuf>)> = Vec::new();
    let mut items: Vec<(usize, Cow<'_, [u8]>, Kind)> = Vec::new();
    // Every top-level folder beyond the system ones is visited itself (a root-only one is
    // hidden whole): a root-only file is hidden wherever it is, not only where the list
    // expected one.
    if let Some((root, others)) = top.and_then(|t| other_top_level(t, &keep, &walk, &mut top_found)) {
        let here: Vec<PathBuf> = keep.iter().filter(|k| under(k, &root.path)).cloned().collect();
        folders.push((root, OTHER_DEPTH, here));
        items.extend(others.into_iter().map(|name| (folders.len() - 1, name, Kind::Dir)));
    }
    for (dir, depth) in system {
        if keep.iter().any(|k| dir.starts_with(k)) {
            continue;
        }
        let Some(entries) = walk.list(dir, None, &mut top_found) else { continue };
        let folder = Folder::new(dir, entries.len());
        let here: Vec<PathBuf> = keep.iter().filter(|k| under(k, dir)).cloned().collect();
        folders.push((folder, *depth, here));
        items.extend(entries.into_names().into_iter().map(|(name, kind)| (folders.len() - 1, name, kind)));
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut found = Found::default();
        while let Some((f, name, kind)) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
            let (folder, depth, here) = &folders[*f];
            walk.visit(folder, OsStr::from_bytes(name), *depth, here, *kind, &mut found);
        }
        found
    };
    let helpers = wicket_planner::cores().min(4) - 1;
    let mut found = std::thread::scope(|s| {
        // A helper that cannot be started leaves its share to the others.
        let started: Vec<_> =
            (0..helpers).filter_map(|_| std::thread::Builder::new().spawn_scoped(s, work).ok()).collect();
        let mut found = work();
        for h in started {
            // A helper that panicked found paths that would then stay readable: the panic goes
            // on, as it would have in one thread, and the command does not run.
            match h.join() {
                Ok(more) => found.merge(more),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        found
    });
    found.merge(top_found);
    if let Some(file) = cache {
        // Kept anew when a folder was read, or one kept is no longer searched.
        if found.read > 0 || found.listed.len() != kept.len() {
            crate::private::write(file, &encode(&found.listed));
        }
    }
    let mut out = found.out;
    out.sort();
    out
}

/// What an entry is, as its folder's listing says (the kind of an entry cannot change without
/// a change to the folder: it is removed and made anew, or another is renamed over it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A symbolic link: never hidden, never followed.
    Link,
    /// A folder.
    Dir,
    /// Anything else.
    Other,
}

impl Kind {
    fn of(t: std::fs::FileType) -> Kind {
        if t.is_symlink() {
            Kind::Link
        } else if t.is_dir() {
            Kind::Dir
        } else {
            Kind::Other
        }
    }

    fn tag(self) -> u8 {
        match self {
            Kind::Link => b'l',
            Kind::Dir => b'd',
            Kind::Other => b'-',
        }
    }

    fn from_tag(t: u8) -> Option<Kind> {
        match t {
            b'l' => Some(Kind::Link),
            b'd' => Some(Kind::Dir),
            b'-' => Some(Kind::Other),
            _ => None,
        }
    }
}

/// A folder's identity and the times of its last change. Adding, removing or renaming an entry
/// changes both times; the change time cannot be set back by a program, so a listing is used
/// again only while the folder is the same one, unchanged. (A change to an entry itself, its
/// mode or owner, does not change the folder: every entry is still looked at on each search.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    /// Whether the folder changed less than `margin` before `now` (or its time is in the future).
    fn recent(&self, now: SystemTime, margin: Duration) -> bool {
        let Ok(now) = now.duration_since(UNIX_EPOCH) else { return true };
        let limit = now.saturating_sub(margin);
        [self.mtime, self.ctime].iter().any(|(s, ns)| {
            let Ok(secs) = u64::try_from(*s) else { return true };
            Duration::from_secs(secs) + Duration::from_nanos(u64::try_from(*ns).unwrap_or(0)) >= limit
        })
    }
}

/// What the search needs of an entry, as looked at (never through a final link, but for a
/// folder searched by its path, as `read_dir` follows one).
#[derive(Debug, Clone, Copy)]
struct Look {
    uid: u32,
    mode: u32,
    stamp: Stamp,
}

impl Look {
    // The fields' types differ between architectures.
    #[allow(clippy::unnecessary_cast)]
    fn of(st: &rustix::fs::Stat) -> Look {
        Look {
            uid: st.st_uid as u32,
            mode: st.st_mode as u32,
            stamp: Stamp {
                dev: st.st_dev as u64,
                ino: st.st_ino as u64,
                mtime: (st.st_mtime as i64, st.st_mtime_nsec as i64),
                ctime: (st.st_ctime as i64, st.st_ctime_nsec as i64),
            },
        }
    }

    fn is_dir(&self) -> bool {
        self.mode & libc::S_IFMT == libc::S_IFDIR
    }

    fn is_link(&self) -> bool {
        self.mode & libc::S_IFMT == libc::S_IFLNK
    }
}

/// A folder being searched: its path, and for one with many entries a descriptor of it, so
/// that each entry is looked at by its name (one step of path lookup, where its whole path took
/// one per component). Most folders hold one or two entries, for which opening and closing one
/// costs more than it saves: their entries are looked at by path.
struct Folder {
    path: PathBuf,
    fd: Option<OwnedFd>,
}

/// How many entries a folder holds before it is opened to look at them.
const OPEN_AT: usize = 8;

impl Folder {
    /// `path`, opened (through a final link, as `read_dir` reads it) when it holds `entries`
    /// of at least [`OPEN_AT`].
    fn new(path: &Path, entries: usize) -> Folder {
        use rustix::fs::{Mode, OFlags};
        let fd = (entries >= OPEN_AT)
            .then(|| rustix::fs::open(path, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).ok())
            .flatten();
        Folder { path: path.to_path_buf(), fd }
    }

    /// The entry `name` (never through a final link).
    fn look(&self, name: &OsStr) -> Option<Look> {
        let st = match &self.fd {
            Some(fd) => rustix::fs::statat(fd, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW),
            None => rustix::fs::lstat(self.path.join(name)),
        };
        st.ok().map(|st| Look::of(&st))
    }
}

/// A folder's entries: from a kept listing (its lines, read in place) or read now.
enum Entries<'a> {
    Kept(&'a [u8]),
    Read(Vec<(OsString, Kind)>),
}

impl<'a> Entries<'a> {
    fn len(&self) -> usize {
        match self {
            Entries::Kept(lines) => kept_entries(lines).count(),
            Entries::Read(names) => names.len(),
        }
    }

    /// Each entry's name and kind.
    fn iter(&self) -> Box<dyn Iterator<Item = (&[u8], Kind)> + '_> {
        match self {
            Entries::Kept(lines) => Box::new(kept_entries(lines)),
            Entries::Read(names) => Box::new(names.iter().map(|(n, k)| (n.as_bytes(), *k))),
        }
    }

    /// Each entry's name and kind, borrowed from the kept listings where they come from there.
    fn into_names(self) -> Vec<(Cow<'a, [u8]>, Kind)> {
        match self {
            Entries::Kept(lines) => kept_entries(lines).map(|(n, k)| (Cow::Borrowed(n), k)).collect(),
            Entries::Read(names) => names.into_iter().map(|(n, k)| (Cow::Owned(n.into_vec()), k)).collect(),
        }
    }
}

/// The entries of a kept listing's lines (checked when the file was read).
fn kept_entries(lines: &[u8]) -> impl Iterator<Item = (&[u8], Kind)> {
    lines.split(|c| *c == b'\n').filter_map(|line| {
        let (tag, name) = line.split_first()?;
        Some((name, Kind::from_tag(*tag)?))
    })
}

/// A folder's listing as kept: its stamp and its entries' lines (a kind's letter and a name
/// each), in the file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Kept<'b> {
    stamp: Stamp,
    lines: &'b [u8],
}

/// One folder's listing to keep for the next search: its path, its stamp when it was read, and
/// its entries (borrowed when taken from the kept listings: only changes are copied).
struct Listed<'a> {
    dir: Cow<'a, [u8]>,
    stamp: Stamp,
    entries: Entries<'a>,
}

/// One search: the listings kept from the last one, and how many entries it has looked at.
struct Walk<'a> {
    kept: &'a HashMap<&'a [u8], Kept<'a>>,
    seen: AtomicUsize,
    /// When the search started.
    before: SystemTime,
    margin: Duration,
}

/// What (part of) a search found.
#[derive(Default)]
struct Found<'a> {
    /// The root-only paths.
    out: Vec<PathBuf>,
    /// Every folder's listing that may be kept for the next search.
    listed: Vec<Listed<'a>>,
    /// How many folders were read (not taken from the kept listings).
    read: usize,
}

impl<'a> Found<'a> {
    fn merge(&mut self, other: Found<'a>) {
        self.out.extend(other.out);
        self.listed.extend(other.listed);
        self.read += other.read;
    }
}

impl<'a> Walk<'a> {
    /// The entries of `folder` (`look`: the folder as just looked at, when it was), from the
    /// kept listing while the folder's stamp is unchanged, else read.
    fn list(&self, folder: &Path, look: Option<Look>, found: &mut Found<'a>) -> Option<Entries<'a>> {
        // `read_dir` follows a link, so the stamp is the followed folder's.
        let look = look.or_else(|| rustix::fs::stat(folder).ok().map(|st| Look::of(&st)));
        let stamp = look.filter(Look::is_dir).map(|l| l.stamp);
        let dir = folder.as_os_str().as_bytes();
        if let (Some(stamp), Some((key, kept))) = (stamp, self.kept.get_key_value(dir)) {
            if kept.stamp == stamp {
                found.listed.push(Listed { dir: Cow::Borrowed(key), stamp, entries: Entries::Kept(kept.lines) });
                return Some(Entries::Kept(kept.lines));
            }
        }
        found.read += 1;
        let mut names = Vec::new();
        for e in std::fs::read_dir(folder).ok()?.flatten() {
            // The type comes with the listing on most file systems (else one `lstat`).
            let Ok(t) = e.file_type() else { continue };
            names.push((e.file_name(), Kind::of(t)));
        }
        // A listing is kept only when it can be written and read back as it is.
        let fits = |b: &[u8]| !b.contains(&b'\n');
        if let Some(stamp) = stamp.filter(|s| !s.recent(self.before, self.margin)) {
            if fits(dir) && names.iter().all(|(n, _)| fits(n.as_bytes())) {
                found.listed.push(Listed {
                    dir: Cow::Owned(dir.to_vec()),
                    stamp,
                    entries: Entries::Read(names.clone()),
                });
            }
        }
        Some(Entries::Read(names))
    }

    /// Search `folder` (no kept path is it or above it; `look`: the folder as just looked at).
    /// Only the kept paths inside it are compared with its entries: each entry used to be
    /// compared with every kept path, which as root was most of a sandboxed command's start.
    fn search(&self, dir: &Path, depth: usize, keep: &[PathBuf], look: Option<Look>, found: &mut Found<'a>) {
        let Some(entries) = self.list(dir, look, found) else { return };
        let folder = Folder::new(dir, entries.len());
        let here: Vec<PathBuf> = keep.iter().filter(|k| under(k, dir)).cloned().collect();
        for (name, kind) in entries.iter() {
            if !self.visit(&folder, OsStr::from_bytes(name), depth, &here, kind, found) {
                return;
            }
        }
    }

    /// Look at the entry `name` (of `kind`, as its folder's listing says) of `folder`, searched
    /// with `depth` left, whose kept paths are `here`; false once the search has looked at too
    /// many entries.
    fn visit(
        &self,
        folder: &Folder,
        name: &OsStr,
        depth: usize,
        here: &[PathBuf],
        kind: Kind,
        found: &mut Found<'a>,
    ) -> bool {
        if self.seen.fetch_add(1, Ordering::Relaxed) >= MAX_ENTRIES {
            return false;
        }
        if !here.is_empty() {
            let p = folder.path.join(name);
            if here.iter().any(|k| under(k, &p) && k != &p) {
                self.search(&p, depth.saturating_sub(1), here, None, found);
                return true;
            }
            if here.iter().any(|k| under(&p, k)) {
                return true;
            }
        }
        // A link is never hidden (its target is judged where it lives), so it is not looked at.
        if kind == Kind::Link {
            return true;
        }
        let Some(m) = folder.look(name) else { return true };
        if m.is_link() || m.uid != 0 {
            return true;
        }
        if m.is_dir() {
            let p = folder.path.join(name);
            if m.mode & 0o005 != 0o005 {
                found.out.push(p);
            } else if depth > 0 {
                self.search(&p, depth - 1, here, Some(m), found);
            }
        } else if m.mode & 0o004 == 0 {
            found.out.push(folder.path.join(name));
        }
        true
    }
}

/// The root of the file system opened (`top`), and the names of its folders searched beyond
/// [`SYSTEM`] (each visited itself), but those kept; `None` when it cannot be listed.
fn other_top_level<'a>(
    top: &Path,
    keep: &[PathBuf],
    walk: &Walk<'a>,
    found: &mut Found<'a>,
) -> Option<(Folder, Vec<Cow<'a, [u8]>>)> {
    let entries = walk.list(top, None, found)?;
    let folder = Folder::new(top, entries.len());
    let mut out = Vec::new();
    for (name, kind) in entries.into_names() {
        let p = top.join(OsStr::from_bytes(&name));
        let listed = SYSTEM.iter().any(|(d, _)| Path::new(d).starts_with(&p));
        let skipped = NOT_SEARCHED.iter().any(|n| name.as_ref() == n.as_bytes());
        if listed || skipped || kind != Kind::Dir {
            continue;
        }
        if !keep.iter().any(|k| p.starts_with(k)) {
            out.push(name);
        }
    }
    Some((folder, out))
}

/// The listings as kept: the header, then for each folder a line `d` with its stamp and path
/// (tab-separated) and one line an entry (its kind's letter and name), then `end`. No path or
/// name holds a line break (see [`Walk::list`]).
fn encode(listed: &[Listed<'_>]) -> Vec<u8> {
    let mut b = HEADER.to_vec();
    for l in listed {
        let s = l.stamp;
        let line = format!("d\t{}\t{}\t{}\t{}\t{}\t{}\t", s.dev, s.ino, s.mtime.0, s.mtime.1, s.ctime.0, s.ctime.1);
        b.extend_from_slice(line.as_bytes());
        b.extend_from_slice(&l.dir);
        b.push(b'\n');
        match &l.entries {
            Entries::Kept(lines) if !lines.is_empty() => {
                b.extend_from_slice(lines);
                b.push(b'\n');
            }
            Entries::Kept(_) => {}
            Entries::Read(names) => {
                for (name, kind) in names {
                    b.push(kind.tag());
                    b.extend_from_slice(name.as_bytes());
                    b.push(b'\n');
                }
            }
        }
    }
    b.extend_from_slice(b"end\n");
    b
}

/// The kept listings in `b` (the bytes of the file, if it could be believed: see
/// [`crate::private::read`]), each folder's entry lines left in place; `None` for a file of
/// another format, or one that does not parse whole, which is not used at all.
fn decode(b: &[u8]) -> Option<HashMap<&[u8], Kept<'_>>> {
    let rest = b.strip_prefix(HEADER)?.strip_suffix(b"end\n")?;
    let mut out: HashMap<&[u8], Kept<'_>> = HashMap::new();
    // The folder being read: its path, stamp, and where its entry lines start in `rest`.
    let mut current: Option<(&[u8], Stamp, usize)> = None;
    let mut at = 0;
    for line in rest.split(|c| *c == b'\n') {
        let start = at;
        at += line.len() + 1;
        if let Some(head) = line.strip_prefix(b"d\t") {
            if let Some((dir, stamp, from)) = current.take() {
                out.insert(dir, Kept { stamp, lines: lines_between(rest, from, start) });
            }
            let mut f = head.splitn(7, |c| *c == b'\t');
            let mut text = || std::str::from_utf8(f.next()?).ok();
            let (dev, ino): (u64, u64) = (text()?.parse().ok()?, text()?.parse().ok()?);
            let mut times = [0i64; 4];
            for t in &mut times {
                *t = text()?.parse().ok()?;
            }
            let (mtime, ctime) = ((times[0], times[1]), (times[2], times[3]));
            current = Some((f.next()?, Stamp { dev, ino, mtime, ctime }, at));
        } else if line.is_empty() {
            // Only after the last entry: `split` gives an empty piece after the final line break.
            continue;
        } else {
            current.as_ref()?;
            let (tag, _) = line.split_first()?;
            Kind::from_tag(*tag)?;
        }
    }
    if let Some((dir, stamp, from)) = current {
        out.insert(dir, Kept { stamp, lines: lines_between(rest, from, rest.len()) });
    }
    Some(out)
}

/// The entry lines of `rest` from `from` up to `to` (the next folder's line), without the last
/// line break.
fn lines_between(rest: &[u8], from: usize, to: usize) -> &[u8] {
    let lines = rest.get(from.min(to)..to).unwrap_or_default();
    lines.strip_suffix(b"\n").unwrap_or(lines)
}

#[allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test
#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use super::*;

    /// The search as it was (every entry against every kept path, compared by components).
    fn reference(dir: &Path, depth: usize, keep: &[PathBuf], out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            reference_entry(e.path(), depth, keep, out);
        }
    }

    fn reference_entry(p: PathBuf, depth: usize, keep: &[PathBuf], out: &mut Vec<PathBuf>) {
        if keep.iter().any(|k| k.starts_with(&p) && p != *k) {
            reference(&p, depth.saturating_sub(1), keep, out);
            return;
        }
        if keep.iter().any(|k| p.starts_with(k)) {
            return;
        }
        let Ok(m) = std::fs::symlink_metadata(&p) else { return };
        if m.file_type().is_symlink() || m.uid() != 0 {
            return;
        }
        if m.is_dir() {
            if m.mode() & 0o005 != 0o005 {
                out.push(p);
            } else if depth > 0 {
                reference(&p, depth - 1, keep, out);
            }
        } else if m.mode() & 0o004 == 0 {
            out.push(p);
        }
    }

    #[test]
    fn the_byte_search_finds_what_the_component_search_found() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        for d in ["a/b/c", "a/bb", "ab/c", "x/y/z", "kept/inner", "kept2"] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        for f in ["a/secret", "a/b/c/secret", "a/bb/secret", "ab/secret", "x/y/z/secret", "kept/inner/secret", "open"] {
            std::fs::write(base.join(f), "s").unwrap();
            let mode = if f == "open" { 0o644 } else { 0o600 };
            std::fs::set_permissions(base.join(f), std::fs::Permissions::from_mode(mode)).unwrap();
        }
        std::fs::set_permissions(base.join("x/y"), std::fs::Permissions::from_mode(0o700)).unwrap();
        let keeps: Vec<Vec<PathBuf>> = vec![
            vec![],
            vec![base.join("a/b")],
            vec![base.join("a/b/")],
            vec![base.join("a"), base.join("ab/c")],
            vec![base.join("kept"), base.join("kept2"), base.join("a/b/c/secret")],
            vec![base.join("a/b/c/d/e"), base.join("x/y/z")],
            vec![base.join("./a//bb")],
        ];
        for keep in keeps {
            let mut want = Vec::new();
            let normal: Vec<PathBuf> = keep.iter().map(|k| k.components().collect()).collect();
            reference(&base, 8, &normal, &mut want);
            let kept = HashMap::new();
            let walk = Walk { kept: &kept, seen: AtomicUsize::new(0), before: SystemTime::now(), margin: MARGIN };
            let mut found = Found::default();
            walk.search(&base, 8, &normal, None, &mut found);
            let mut got = found.out;
            want.sort();
            got.sort();
            assert_eq!(got, want, "keep {keep:?}");
        }
    }

    /// The search shared out between threads finds, in the real system folders, exactly what
    /// one thread searching them in order finds, with and without kept paths among them.
    #[test]
    fn the_shared_search_finds_what_one_thread_finds() {
        let keeps: Vec<Vec<PathBuf>> = vec![
            vec![],
            vec![PathBuf::from("/etc/ssl")],
            vec![PathBuf::from("/var/tmp"), PathBuf::from("/etc")],
            vec![PathBuf::from("/opt/x/y")],
        ];
        for keep in keeps {
            let normal: Vec<PathBuf> = keep.iter().map(|k| k.components().collect()).collect();
            let mut want = Vec::new();
            for (dir, depth) in SYSTEM {
                if !normal.iter().any(|k| Path::new(dir).starts_with(k)) {
                    reference(Path::new(dir), *depth, &normal, &mut want);
                }
            }
            let kept = HashMap::new();
            let walk = Walk { kept: &kept, seen: AtomicUsize::new(0), before: SystemTime::now(), margin: MARGIN };
            let (top, others) = other_top_level(Path::new("/"), &normal, &walk, &mut Found::default()).unwrap();
            for name in others {
                reference_entry(top.path.join(OsStr::from_bytes(&name)), OTHER_DEPTH, &normal, &mut want);
            }
            want.sort();
            assert_eq!(root_only_paths(&keep, None), want, "keep {keep:?}");
        }
        if std::fs::symlink_metadata("/etc/shadow").is_ok_and(|m| m.uid() == 0 && m.mode() & 0o004 == 0) {
            assert!(root_only_paths(&[], None).contains(&PathBuf::from("/etc/shadow")));
        }
    }

    /// A search begun early is used only for exactly the paths and cache it was begun with;
    /// for others the search is made anew. (Other tests' searches may take the early one: each
    /// gets what a search of its own would find.)
    #[test]
    fn an_early_search_stands_only_for_its_own_paths() {
        if !is_root() {
            return;
        }
        let keep = vec![PathBuf::from("/var/tmp")];
        search_soon(
            {
                let keep = keep.clone();
                move || keep
            },
            None,
        );
        assert_eq!(root_only_paths(&keep, None), search(&keep, None));
        // Begun leaving out nothing, asked to leave out /etc: nothing under /etc is hidden.
        search_soon(Vec::new, None);
        let etc = vec![PathBuf::from("/etc")];
        let got = root_only_paths(&etc, None);
        assert!(!got.iter().any(|p| p.starts_with("/etc")), "{got:?}");
        assert_eq!(got, search(&etc, None));
        // Begun too long before it is asked for (a person was asked meanwhile): a root-only
        // folder made since is found.
        search_soon(Vec::new, None);
        std::thread::sleep(FRESH + Duration::from_millis(100));
        let made = PathBuf::from(format!("/var/tmp/wicket-fresh-{}", std::process::id()));
        std::fs::create_dir(&made).unwrap();
        std::fs::set_permissions(&made, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
        let got = root_only_paths(&[], None);
        std::fs::remove_dir(&made).unwrap();
        assert!(got.contains(&made), "{got:?}");
    }

    /// A folder tree, a cache file for its listings, and a search of the tree through the cache.
    struct Tree {
        _dir: tempfile::TempDir,
        base: PathBuf,
        cache: PathBuf,
    }

    impl Tree {
        fn new() -> Tree {
            use std::os::unix::fs::PermissionsExt;
            let dir = tempfile::tempdir().unwrap();
            let base = dir.path().canonicalize().unwrap().join("sys");
            for d in ["a/b", "c"] {
                std::fs::create_dir_all(base.join(d)).unwrap();
            }
            for f in ["a/open", "a/b/open", "c/open"] {
                std::fs::write(base.join(f), "x").unwrap();
                std::fs::set_permissions(base.join(f), std::fs::Permissions::from_mode(0o644)).unwrap();
            }
            std::os::unix::fs::symlink("open", base.join("a/link")).unwrap();
            let cache = dir.path().canonicalize().unwrap().join("state/cache/rootonly");
            Tree { _dir: dir, base, cache }
        }
        /// The search, through the cache with `margin`, or without it; the paths it found
        /// (relative) and whether the cache held a listing for every folder.
        fn search(&self, cache: bool, margin: Duration) -> (Vec<PathBuf>, bool) {
            let bytes = if cache { crate::private::read(&self.cache) } else { None };
            let kept = bytes.as_deref().and_then(decode).unwrap_or_default();
            let system = [(self.base.as_path(), 8)];
            let out = root_only_in(&system, None, &[], cache.then_some(self.cache.as_path()), margin);
            let all_kept = ["", "a", "a/b", "c"].iter().all(|d| {
                let dir = if d.is_empty() { self.base.clone() } else { self.base.join(d) };
                kept.get(dir.as_os_str().as_bytes())
                    .is_some_and(|l| rustix::fs::stat(&dir).is_ok_and(|st| l.stamp == Look::of(&st).stamp))
            });
            (out.iter().map(|p| p.strip_prefix(&self.base).unwrap().to_path_buf()).collect(), all_kept)
        }
        fn chmod(&self, rel: &str, mode: u32) {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(self.base.join(rel), std::fs::Permissions::from_mode(mode)).unwrap();
        }
        fn file(&self, rel: &str, mode: u32) {
            std::fs::write(self.base.join(rel), "s").unwrap();
            self.chmod(rel, mode);
        }
    }

    fn is_root() -> bool {
        rustix::process::geteuid().is_root()
    }

    type Step = fn(&Tree);

    /// Changes made after the listings were kept, and the path each makes root-only (found
    /// only as root: the search hides what root alone owns and can read).
    const CHANGES: &[(&str, Step, &str)] = &[
        ("a file made root-only, its folder unchanged", |t| t.chmod("a/open", 0o600), "a/open"),
        ("a folder made root-only, its parent unchanged", |t| t.chmod("a/b", 0o700), "a/b"),
        ("a new root-only file", |t| t.file("c/secret", 0o600), "c/secret"),
        ("a new root-only file deep down", |t| t.file("a/b/secret", 0o640), "a/b/secret"),
        (
            "a link replaced by a root-only file",
            |t| {
                std::fs::remove_file(t.base.join("a/link")).unwrap();
                t.file("a/link", 0o600)
            },
            "a/link",
        ),
        (
            "a root-only file renamed in from elsewhere",
            |t| {
                t.file("secret", 0o600);
                std::fs::rename(t.base.join("secret"), t.base.join("a/b/moved")).unwrap()
            },
            "a/b/moved",
        ),
    ];

    /// Each change is seen by the very next search through the kept listings, which finds what
    /// a search without them finds.
    #[test]
    fn the_kept_listings_miss_no_change() {
        for (what, change, path) in CHANGES {
            let t = Tree::new();
            let fresh = t.search(false, Duration::ZERO).0;
            assert_eq!(t.search(true, Duration::ZERO).0, fresh, "{what}: the first search");
            let (again, all_kept) = t.search(true, Duration::ZERO);
            assert!(all_kept, "{what}: every folder's listing is kept");
            assert_eq!(again, fresh, "{what}: from the kept listings");
            change(&t);
            let (after, _) = t.search(true, Duration::ZERO);
            assert_eq!(
                after,
                t.search(false, Duration::ZERO).0,
                "{what}: the search through the cache is the fresh one"
            );
            if is_root() {
                assert!(after.contains(&PathBuf::from(path)), "{what}: {path} is found: {after:?}");
                assert!(!fresh.contains(&PathBuf::from(path)), "{what}: {path} was not root-only before");
            }
        }
    }

    /// A folder changed within the margin is read again next time; a cache file others could
    /// write, or one that does not parse, is not believed.
    #[test]
    fn recent_folders_and_untrusted_caches_are_read_anew() {
        use std::os::unix::fs::PermissionsExt;
        let t = Tree::new();
        let _ = t.search(true, Duration::from_secs(3600));
        assert!(!t.search(true, Duration::from_secs(3600)).1, "listings of folders changed just now are not kept");
        let _ = t.search(true, Duration::ZERO);
        assert!(t.search(true, Duration::ZERO).1);
        // A forged listing that leaves the root-only file out, in a file others may write.
        t.file("c/secret", 0o600);
        let _ = t.search(true, Duration::ZERO);
        let text = std::fs::read(&t.cache).unwrap();
        let forged: Vec<u8> = String::from_utf8(text).unwrap().replace("-secret\n", "").into_bytes();
        std::fs::write(&t.cache, &forged).unwrap();
        std::fs::set_permissions(&t.cache, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert_eq!(kept_count(&t.cache), 0, "a cache others may write is not read");
        if is_root() {
            assert!(t.search(true, Duration::ZERO).0.contains(&PathBuf::from("c/secret")));
        }
        std::fs::write(&t.cache, b"wicket root-only listings 1\nd\tx\n").unwrap();
        std::fs::set_permissions(&t.cache, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(kept_count(&t.cache), 0, "a cache that does not parse is not used");
    }

    /// How many folders' listings the file `cache` holds, if it can be believed.
    fn kept_count(cache: &Path) -> usize {
        crate::private::read(cache).as_deref().and_then(decode).map_or(0, |m| m.len())
    }

    #[test]
    fn listings_read_back_as_written() {
        let stamp = Stamp { dev: u64::MAX, ino: 7, mtime: (-1, 5), ctime: (1_700_000_000, 999_999_999) };
        let entries = vec![
            (OsString::from("a\tb"), Kind::Other),
            (OsString::from_vec(vec![0xff, b'x']), Kind::Dir),
            (OsString::from("l"), Kind::Link),
        ];
        let listed = vec![
            Listed { dir: Cow::Borrowed(b"/etc/x\ty"), stamp, entries: Entries::Read(entries.clone()) },
            Listed { dir: Cow::Borrowed(b"/empty"), stamp, entries: Entries::Read(Vec::new()) },
        ];
        let bytes = encode(&listed);
        let back = decode(&bytes).unwrap();
        assert_eq!(back.len(), 2);
        for l in &listed {
            let got = back.get(l.dir.as_ref()).unwrap();
            assert_eq!(got.stamp, stamp);
            let names: Vec<(&[u8], Kind)> = kept_entries(got.lines).collect();
            assert_eq!(names, l.entries.iter().collect::<Vec<_>>(), "{:?}", l.dir);
        }
        // Written back from the kept listings as they were read: the same file.
        let again: Vec<Listed<'_>> = listed
            .iter()
            .map(|l| Listed { dir: l.dir.clone(), stamp, entries: Entries::Kept(back[l.dir.as_ref()].lines) })
            .collect();
        assert_eq!(encode(&again), bytes);
        assert!(decode(&bytes[..20]).is_none(), "a cut file is not used");
        let mut bad = bytes.clone();
        let at = bad.windows(3).position(|w| w == b"\nlx").unwrap_or(0);
        bad[at + 1] = b'?';
        assert!(decode(&bad).is_none(), "an entry of an unknown kind: the file is not used");
    }
}
