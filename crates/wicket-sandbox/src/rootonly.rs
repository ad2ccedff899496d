//! Root's own system files, hidden from a command that wicket runs as root.
//!
//! The hard question: what may a command started by root read? Neither a user namespace nor
//! dropped capabilities change the kernel's owner check: a process whose real owner is root
//! still owns `/etc/shadow` (mode 0640, owner root) and reads it. So, as root, the files and
//! folders in the system folders that an unprivileged user could not read (owned by root,
//! without read permission for others) are masked like secrets. Files of other users need no
//! mask: without capabilities, root cannot read them.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// The root-only paths in the system folders, leaving out `keep` (the project and the writable
/// paths) and every folder that holds one of them (searched instead); sorted.
pub fn root_only_paths(keep: &[PathBuf]) -> Vec<PathBuf> {
    // Compared component by component once here, so the search can compare bytes.
    let keep: Vec<PathBuf> = keep.iter().map(|k| normal(k)).collect();
    let seen = AtomicUsize::new(0);
    // The work: each system folder's entries (a system folder that is kept, or inside a kept
    // one, hides nothing). The search is one `lstat` an entry, a few thousand of them, most of
    // a sandboxed command's start as root: the entries are shared out between threads, which
    // then take about half the time on two cores.
    let mut items: Vec<(PathBuf, usize, Vec<PathBuf>)> = Vec::new();
    // Every top-level folder beyond the system ones is visited itself (a root-only one is
    // hidden whole): a root-only file is hidden wherever it is, not only where the list
    // expected one.
    for p in other_top_level(&keep) {
        let here: Vec<PathBuf> = keep.iter().filter(|k| under(k, &p)).cloned().collect();
        items.push((p, OTHER_DEPTH, here));
    }
    for (dir, depth) in SYSTEM {
        let dir = Path::new(dir);
        if keep.iter().any(|k| dir.starts_with(k)) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        let here: Vec<PathBuf> = keep.iter().filter(|k| under(k, dir)).cloned().collect();
        items.extend(entries.flatten().map(|e| (e.path(), *depth, here.clone())));
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut out = Vec::new();
        while let Some((p, depth, here)) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
            visit(p, *depth, here, &mut out, &seen);
        }
        out
    };
    let helpers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4)) - 1;
    let mut out = std::thread::scope(|s| {
        // A helper that cannot be started leaves its share to the others.
        let started: Vec<_> =
            (0..helpers).filter_map(|_| std::thread::Builder::new().spawn_scoped(s, work).ok()).collect();
        let mut out = work();
        for h in started {
            // A helper that panicked found paths that would then stay readable: the panic goes
            // on, as it would have in one thread, and the command does not run.
            match h.join() {
                Ok(found) => out.extend(found),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out
    });
    out.sort();
    out
}

/// The top-level folders searched beyond [`SYSTEM`] (each visited itself), but those kept.
fn other_top_level(keep: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/").into_iter().flatten().flatten() {
        let name = e.file_name();
        let p = e.path();
        let listed = SYSTEM.iter().any(|(d, _)| Path::new(d).starts_with(&p));
        if listed || NOT_SEARCHED.iter().any(|n| name == *n) || !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if !keep.iter().any(|k| p.starts_with(k)) {
            out.push(p);
        }
    }
    out
}

/// Search `dir` (no kept path is `dir` or above it). Only the kept paths inside `dir` are
/// compared with its entries: each entry used to be compared with every kept path, which as
/// root was most of a sandboxed command's start.
fn search(dir: &Path, depth: usize, keep: &[PathBuf], out: &mut Vec<PathBuf>, seen: &AtomicUsize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let here: Vec<PathBuf> = keep.iter().filter(|k| under(k, dir)).cloned().collect();
    for e in entries.flatten() {
        if !visit(&e.path(), depth, &here, out, seen) {
            return;
        }
    }
}

/// Look at one entry `p` of a folder searched with `depth` left, whose kept paths are `here`;
/// false once the search has looked at too many entries.
fn visit(p: &Path, depth: usize, here: &[PathBuf], out: &mut Vec<PathBuf>, seen: &AtomicUsize) -> bool {
    if seen.fetch_add(1, Ordering::Relaxed) >= MAX_ENTRIES {
        return false;
    }
    if here.iter().any(|k| under(k, p) && k != p) {
        search(p, depth.saturating_sub(1), here, out, seen);
        return true;
    }
    if here.iter().any(|k| under(p, k)) {
        return true;
    }
    let Ok(m) = std::fs::symlink_metadata(p) else { return true };
    if m.file_type().is_symlink() || m.uid() != 0 {
        return true;
    }
    if m.is_dir() {
        if m.mode() & 0o005 != 0o005 {
            out.push(p.to_path_buf());
        } else if depth > 0 {
            search(p, depth - 1, here, out, seen);
        }
    } else if m.mode() & 0o004 == 0 {
        out.push(p.to_path_buf());
    }
    true
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
            let mut got = Vec::new();
            search(&base, 8, &normal, &mut got, &AtomicUsize::new(0));
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
            for p in other_top_level(&normal) {
                reference_entry(p, OTHER_DEPTH, &normal, &mut want);
            }
            want.sort();
            assert_eq!(root_only_paths(&keep), want, "keep {keep:?}");
        }
        if std::fs::symlink_metadata("/etc/shadow").is_ok_and(|m| m.uid() == 0 && m.mode() & 0o004 == 0) {
            assert!(root_only_paths(&[]).contains(&PathBuf::from("/etc/shadow")));
        }
    }
}
