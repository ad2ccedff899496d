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

use crate::under::{normal, under};

/// The system folders searched, with how deep.
const SYSTEM: &[(&str, usize)] =
    &[("/etc", 8), ("/boot", 3), ("/var", 2), ("/srv", 3), ("/opt", 3), ("/usr/local/etc", 4)];

/// Entries looked at, at most (a few thousand on a usual system).
const MAX_ENTRIES: usize = 200_000;

/// The root-only paths in the system folders, leaving out `keep` (the project and the writable
/// paths) and every folder that holds one of them (searched instead).
pub fn root_only_paths(keep: &[PathBuf]) -> Vec<PathBuf> {
    // Compared component by component once here, so the search can compare bytes.
    let keep: Vec<PathBuf> = keep.iter().map(|k| normal(k)).collect();
    let mut out = Vec::new();
    let mut seen = 0usize;
    for (dir, depth) in SYSTEM {
        let dir = Path::new(dir);
        // A system folder that is kept (or inside a kept one) hides nothing.
        if keep.iter().any(|k| dir.starts_with(k)) {
            continue;
        }
        search(dir, *depth, &keep, &mut out, &mut seen);
    }
    out
}

/// Search `dir` (no kept path is `dir` or above it). Only the kept paths inside `dir` are
/// compared with its entries: each entry used to be compared with every kept path, which as
/// root was most of a sandboxed command's start.
fn search(dir: &Path, depth: usize, keep: &[PathBuf], out: &mut Vec<PathBuf>, seen: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let here: Vec<PathBuf> = keep.iter().filter(|k| under(k, dir)).cloned().collect();
    for e in entries.flatten() {
        *seen += 1;
        if *seen > MAX_ENTRIES {
            return;
        }
        let p = e.path();
        if here.iter().any(|k| under(k, &p) && *k != p) {
            search(&p, depth.saturating_sub(1), &here, out, seen);
            continue;
        }
        if here.iter().any(|k| under(&p, k)) {
            continue;
        }
        let Ok(m) = std::fs::symlink_metadata(&p) else { continue };
        if m.file_type().is_symlink() || m.uid() != 0 {
            continue;
        }
        if m.is_dir() {
            if m.mode() & 0o005 != 0o005 {
                out.push(p);
            } else if depth > 0 {
                search(&p, depth - 1, keep, out, seen);
            }
        } else if m.mode() & 0o004 == 0 {
            out.push(p);
        }
    }
}

#[allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test
#[cfg(test)]
mod tests {
    use super::*;

    /// The search as it was (every entry against every kept path, compared by components).
    fn reference(dir: &Path, depth: usize, keep: &[PathBuf], out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if keep.iter().any(|k| k.starts_with(&p) && p != *k) {
                reference(&p, depth.saturating_sub(1), keep, out);
                continue;
            }
            if keep.iter().any(|k| p.starts_with(k)) {
                continue;
            }
            let Ok(m) = std::fs::symlink_metadata(&p) else { continue };
            if m.file_type().is_symlink() || m.uid() != 0 {
                continue;
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
            let mut seen = 0;
            search(&base, 8, &normal, &mut got, &mut seen);
            want.sort();
            got.sort();
            assert_eq!(got, want, "keep {keep:?}");
        }
    }
}
