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
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
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
    // A search begun for other paths, or one that panicked, is not used: this one is made now.
    if let Some(Ok((k, c, found))) = early.map(std::thread::JoinHandle::join) {
        if k == keep && c.as_deref() == cache {
            return found;
        }
    }
    search(keep, cache)
}

fn search(keep: &[PathBuf], cache: Option<&Path>) -> Vec<PathBuf> {
    let t0 = std::time::Instant::now();
    let system: Vec<(&Path, usize)> = SYSTEM.iter().map(|(d, depth)| (Path::new(d), *depth)).collect();
    let out = root_only_in(&system, Some(Path::new("/")), keep, cache, MARGIN);
    if std::env::var_os("WICKET_SCAN_TIMING").is_some() {
        eprintln!("wicket: root-only files: searched in {:.2} ms", t0.elapsed().as_secs_f64() * 1e3);
    }
    out
}

/// A search begun before its run's policy was built: the paths it left out, its cache, and
/// what it found.
type Early = std::thread::JoinHandle<(Vec<PathBuf>, Option<PathBuf>, Vec<PathBuf>)>;

static EARLY: std::sync::Mutex<Option<Early>> = std::sync::Mutex::new(None);

/// As root, begin the search now on a thread of its own, leaving out the paths `keep` gives
/// (found on that thread): the next [`root_only_paths`] with exactly those paths and `cache`
/// takes its result instead of searching. The search needs only the writable paths, known
/// long before the rest of a run's policy, and was the longest step before bubblewrap could
/// start. For a sandbox started right after its policy is built: what was root-only when the
/// search ran is what gets masked, so the result must not wait for a person's answer. Nothing
/// is begun for another user, who needs no search.
pub fn search_soon(keep: impl FnOnce() -> Vec<PathBuf> + Send + 'static, cache: Option<PathBuf>) {
    if !rustix::process::geteuid().is_root() {
        return;
    }
    let begun = std::thread::Builder::new().name("root-only search".into()).spawn(move || {
        let keep = keep();
        let found = search(&keep, cache.as_deref());
        crate::trace::phase("root-only files searched (early)");
        (keep, cache, found)
    });
    if let (Ok(h), Ok(mut slot)) = (begun, EARLY.lock()) {
        *slot = Some(h);
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
    let kept = cache.map(load).unwrap_or_default();
    let walk = Walk { kept: &kept, seen: AtomicUsize::new(0), before: SystemTime::now(), margin };
    let mut top_found = Found::default();
    // The work: each system folder's entries (a system folder that is kept, or inside a kept
    // one, hides nothing). The search is one `lstat` an entry, a few thousand of them, most of
    // a sandboxed command's start as root: the entries are shared out between threads, which
    // then take about half the time on two cores.
    let mut items: Vec<(PathBuf, usize, Vec<PathBuf>, Kind)> = Vec::new();
    // Every top-level folder beyond the system ones is visited itself (a root-only one is
    // hidden whole): a root-only file is hidden wherever it is, not only where the list
    // expected one.
    let others = top.map(|t| other_top_level(t, &keep, &walk, &mut top_found)).unwrap_or_default();
    for p in others {
        let here: Vec<PathBuf> = keep.iter().filter(|k| under(k, &p)).cloned().collect();
        items.push((p, OTHER_DEPTH, here, Kind::Dir));
    }
    for (dir, depth) in system {
        if keep.iter().any(|k| dir.starts_with(k)) {
            continue;
        }
        let Some(entries) = walk.list(dir, None, &mut top_found) else { continue };
        let here: Vec<PathBuf> = keep.iter().filter(|k| under(k, dir)).cloned().collect();
        items.extend(entries.into_iter().map(|(p, kind)| (p, *depth, here.clone(), kind)));
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut found = Found::default();
        while let Some((p, depth, here, kind)) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
            walk.visit(p, *depth, here, *kind, &mut found);
        }
        found
    };
    let helpers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4)) - 1;
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
            crate::private::write(file, &encode(found.listed.iter().map(|(d, l)| (d.as_ref(), l.as_ref()))));
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
    fn of(m: &std::fs::Metadata) -> Stamp {
        Stamp { dev: m.dev(), ino: m.ino(), mtime: (m.mtime(), m.mtime_nsec()), ctime: (m.ctime(), m.ctime_nsec()) }
    }

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

/// One folder's entries, as read when it had `stamp`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listing {
    stamp: Stamp,
    entries: Vec<(OsString, Kind)>,
}

/// One search: the listings kept from the last one, and how many entries it has looked at.
struct Walk<'a> {
    kept: &'a HashMap<PathBuf, Listing>,
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
    /// (Those used again are borrowed: copying every kept listing on every search, to write
    /// back only when one changed, cost more than the search's own work on them.)
    listed: Vec<(Cow<'a, Path>, Cow<'a, Listing>)>,
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
    /// The entries of `dir` (`meta`: the folder as just looked at, when it was), from the kept
    /// listing while the folder's stamp is unchanged, else read.
    fn list(
        &self,
        dir: &Path,
        meta: Option<&std::fs::Metadata>,
        found: &mut Found<'a>,
    ) -> Option<Vec<(PathBuf, Kind)>> {
        // `read_dir` follows a link, so the stamp is the followed folder's.
        let looked;
        let meta = match meta {
            Some(m) => Some(m),
            None => {
                looked = std::fs::metadata(dir).ok();
                looked.as_ref()
            }
        };
        let stamp = meta.filter(|m| m.is_dir()).map(Stamp::of);
        if let (Some(stamp), Some((key, kept))) = (stamp, self.kept.get_key_value(dir)) {
            if kept.stamp == stamp {
                let entries = kept.entries.iter().map(|(n, k)| (dir.join(n), *k)).collect();
                found.listed.push((Cow::Borrowed(key.as_path()), Cow::Borrowed(kept)));
                return Some(entries);
            }
        }
        found.read += 1;
        let mut names = Vec::new();
        for e in std::fs::read_dir(dir).ok()?.flatten() {
            // The type comes with the listing on most file systems (else one `lstat`).
            let Ok(t) = e.file_type() else { continue };
            names.push((e.file_name(), Kind::of(t)));
        }
        let out = names.iter().map(|(n, k)| (dir.join(n), *k)).collect();
        // A listing is kept only when it can be written and read back as it is.
        let fits = |b: &[u8]| !b.contains(&b'\n');
        if let Some(stamp) = stamp.filter(|s| !s.recent(self.before, self.margin)) {
            if fits(dir.as_os_str().as_bytes()) && names.iter().all(|(n, _)| fits(n.as_bytes())) {
                found.listed.push((Cow::Owned(dir.to_path_buf()), Cow::Owned(Listing { stamp, entries: names })));
            }
        }
        Some(out)
    }

    /// Search `dir` (no kept path is `dir` or above it; `meta`: the folder as just looked at).
    /// Only the kept paths inside `dir` are compared with its entries: each entry used to be
    /// compared with every kept path, which as root was most of a sandboxed command's start.
    fn search(
        &self,
        dir: &Path,
        depth: usize,
        keep: &[PathBuf],
        meta: Option<&std::fs::Metadata>,
        found: &mut Found<'a>,
    ) {
        let Some(entries) = self.list(dir, meta, found) else { return };
        let here: Vec<PathBuf> = keep.iter().filter(|k| under(k, dir)).cloned().collect();
        for (p, kind) in entries {
            if !self.visit(&p, depth, &here, kind, found) {
                return;
            }
        }
    }

    /// Look at one entry `p` (of `kind`, as its folder's listing says) of a folder searched
    /// with `depth` left, whose kept paths are `here`; false once the search has looked at too
    /// many entries.
    fn visit(&self, p: &Path, depth: usize, here: &[PathBuf], kind: Kind, found: &mut Found<'a>) -> bool {
        if self.seen.fetch_add(1, Ordering::Relaxed) >= MAX_ENTRIES {
            return false;
        }
        if here.iter().any(|k| under(k, p) && k != p) {
            self.search(p, depth.saturating_sub(1), here, None, found);
            return true;
        }
        if here.iter().any(|k| under(p, k)) {
            return true;
        }
        // A link is never hidden (its target is judged where it lives), so it is not looked at.
        if kind == Kind::Link {
            return true;
        }
        let Ok(m) = std::fs::symlink_metadata(p) else { return true };
        if m.file_type().is_symlink() || m.uid() != 0 {
            return true;
        }
        if m.is_dir() {
            if m.mode() & 0o005 != 0o005 {
                found.out.push(p.to_path_buf());
            } else if depth > 0 {
                self.search(p, depth - 1, here, Some(&m), found);
            }
        } else if m.mode() & 0o004 == 0 {
            found.out.push(p.to_path_buf());
        }
        true
    }
}

/// The top-level folders (entries of `top`, the root of the file system) searched beyond
/// [`SYSTEM`] (each visited itself), but those kept.
fn other_top_level<'a>(top: &Path, keep: &[PathBuf], walk: &Walk<'a>, found: &mut Found<'a>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (p, kind) in walk.list(top, None, found).unwrap_or_default() {
        let listed = SYSTEM.iter().any(|(d, _)| Path::new(d).starts_with(&p));
        let skipped = p.file_name().is_some_and(|name| NOT_SEARCHED.iter().any(|n| name == *n));
        if listed || skipped || kind != Kind::Dir {
            continue;
        }
        if !keep.iter().any(|k| p.starts_with(k)) {
            out.push(p);
        }
    }
    out
}

/// The listings kept in `file`, if it can be believed (see [`crate::private::read`]): a file
/// of another format, or one that does not parse whole, is not used at all.
fn load(file: &Path) -> HashMap<PathBuf, Listing> {
    crate::private::read(file).and_then(|b| decode(&b)).unwrap_or_default()
}

/// The listings as kept: the header, then for each folder a line `d` with its stamp and path
/// (tab-separated) and one line an entry (its kind's letter and name), then `end`. No path or
/// name holds a line break (see [`Walk::list`]).
fn encode<'a>(listed: impl Iterator<Item = (&'a Path, &'a Listing)>) -> Vec<u8> {
    let mut b = HEADER.to_vec();
    for (dir, l) in listed {
        let s = l.stamp;
        let line = format!("d\t{}\t{}\t{}\t{}\t{}\t{}\t", s.dev, s.ino, s.mtime.0, s.mtime.1, s.ctime.0, s.ctime.1);
        b.extend_from_slice(line.as_bytes());
        b.extend_from_slice(dir.as_os_str().as_bytes());
        b.push(b'\n');
        for (name, kind) in &l.entries {
            b.push(kind.tag());
            b.extend_from_slice(name.as_bytes());
            b.push(b'\n');
        }
    }
    b.extend_from_slice(b"end\n");
    b
}

fn decode(b: &[u8]) -> Option<HashMap<PathBuf, Listing>> {
    let rest = b.strip_prefix(HEADER)?.strip_suffix(b"end\n")?;
    let mut out: HashMap<PathBuf, Listing> = HashMap::new();
    let mut current: Option<(PathBuf, Listing)> = None;
    for line in rest.split(|c| *c == b'\n') {
        if let Some(head) = line.strip_prefix(b"d\t") {
            if let Some((dir, l)) = current.take() {
                out.insert(dir, l);
            }
            let mut f = head.splitn(7, |c| *c == b'\t');
            let mut text = || std::str::from_utf8(f.next()?).ok();
            let (dev, ino): (u64, u64) = (text()?.parse().ok()?, text()?.parse().ok()?);
            let mut times = [0i64; 4];
            for t in &mut times {
                *t = text()?.parse().ok()?;
            }
            let (mtime, ctime) = ((times[0], times[1]), (times[2], times[3]));
            let dir = PathBuf::from(OsString::from_vec(f.next()?.to_vec()));
            current = Some((dir, Listing { stamp: Stamp { dev, ino, mtime, ctime }, entries: Vec::new() }));
        } else if line.is_empty() {
            // Only after the last entry: `split` gives an empty piece after the final line break.
            continue;
        } else {
            let (tag, name) = line.split_first()?;
            current.as_mut()?.1.entries.push((OsString::from_vec(name.to_vec()), Kind::from_tag(*tag)?));
        }
    }
    if let Some((dir, l)) = current {
        out.insert(dir, l);
    }
    Some(out)
}

#[allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test
#[cfg(test)]
mod tests {
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
            for p in other_top_level(Path::new("/"), &normal, &walk, &mut Found::default()) {
                reference_entry(p, OTHER_DEPTH, &normal, &mut want);
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
            let kept = if cache { load(&self.cache) } else { HashMap::new() };
            let system = [(self.base.as_path(), 8)];
            let out = root_only_in(&system, None, &[], cache.then_some(self.cache.as_path()), margin);
            let all_kept = ["", "a", "a/b", "c"].iter().all(|d| {
                let dir = if d.is_empty() { self.base.clone() } else { self.base.join(d) };
                kept.get(&dir).is_some_and(|l| std::fs::metadata(&dir).is_ok_and(|m| l.stamp == Stamp::of(&m)))
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
        assert!(load(&t.cache).is_empty(), "a cache others may write is not read");
        if is_root() {
            assert!(t.search(true, Duration::ZERO).0.contains(&PathBuf::from("c/secret")));
        }
        std::fs::write(&t.cache, b"wicket root-only listings 1\nd\tx\n").unwrap();
        std::fs::set_permissions(&t.cache, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(load(&t.cache).is_empty(), "a cache that does not parse is not used");
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
            (PathBuf::from("/etc/x\ty"), Listing { stamp, entries }),
            (PathBuf::from("/empty"), Listing { stamp, entries: Vec::new() }),
        ];
        let back = decode(&encode(listed.iter().map(|(d, l)| (d.as_path(), l)))).unwrap();
        assert_eq!(back.len(), 2);
        for (dir, l) in &listed {
            assert_eq!(back.get(dir), Some(l), "{dir:?}");
        }
        assert!(
            decode(&encode(listed.iter().map(|(d, l)| (d.as_path(), l)))[..20]).is_none(),
            "a cut file is not used"
        );
    }
}
