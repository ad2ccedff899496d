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

/// The system folders searched, with how deep.
const SYSTEM: &[(&str, usize)] =
    &[("/etc", 8), ("/boot", 3), ("/var", 2), ("/srv", 3), ("/opt", 3), ("/usr/local/etc", 4)];

/// Entries looked at, at most (a few thousand on a usual system).
const MAX_ENTRIES: usize = 200_000;

/// The root-only paths in the system folders, leaving out `keep` (the project and the writable
/// paths) and every folder that holds one of them (searched instead).
pub fn root_only_paths(keep: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut seen = 0usize;
    for (dir, depth) in SYSTEM {
        search(Path::new(dir), *depth, keep, &mut out, &mut seen);
    }
    out
}

fn search(dir: &Path, depth: usize, keep: &[PathBuf], out: &mut Vec<PathBuf>, seen: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        *seen += 1;
        if *seen > MAX_ENTRIES {
            return;
        }
        let p = e.path();
        if keep.iter().any(|k| k.starts_with(&p) && p != *k) {
            search(&p, depth.saturating_sub(1), keep, out, seen);
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
                search(&p, depth - 1, keep, out, seen);
            }
        } else if m.mode() & 0o004 == 0 {
            out.push(p);
        }
    }
}
