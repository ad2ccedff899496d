//! Folders on `PATH`: a file written there is a program the host runs by name later (issue 39,
//! class 4).
//!
//! The hard question: which folders does a shell search for the person's next `git` or `ls`,
//! and may a sandboxed command put a program there? The gate and the sandbox answer from the
//! same places, so they cannot disagree:
//! - the absolute `PATH` folders this process can write ([`writable_path_dirs`]): the gate asks
//!   about a write into one (`PolicyConfig::path_dirs`), and the sandbox keeps each that a
//!   writable path covers read-only (`read_only`);
//! - the home's tool folders (`wicket_policy::lists::HOME_PATH_FOLDERS`: `~/.local/bin`,
//!   `~/.cargo/bin`, version managers' shims …), on `PATH` or not: the gate asks, the sandbox
//!   keeps each that a writable path covers read-only;
//! - the project's own program folders (`wicket_policy::lists::PROJECT_PATH_FOLDERS`:
//!   `node_modules/.bin`, `.venv/bin`): the gate asks, the sandbox leaves them writable (`npm
//!   install` and `pip install` must work) and checks them after the run for new programs that
//!   shadow a system one ([`crate::shadow`]), whether or not they are on the person's `PATH`
//!   (`npm run` puts `node_modules/.bin` first for every script).
//!
//! Two exceptions keep a folder writable in the sandbox: a package cache (the command writes
//! the project's own layer over it, never the host's folder) and a folder that a
//! `sandbox.writePaths` entry names itself (the person chose it; the check after the run still
//! moves a new program that shadows a system one aside when it is on `PATH`).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The absolute folders of `path` (a `PATH` value) that exist and that this process can
/// create files in, each once, in order. Asked by the gate and the sandbox for one process's
/// `PATH`: the answer is kept for the value last asked about.
pub fn writable_path_dirs(path: Option<&OsStr>) -> Vec<PathBuf> {
    static LAST: Mutex<Option<(OsString, Vec<PathBuf>)>> = Mutex::new(None);
    let Some(path) = path else { return Vec::new() };
    if let Ok(last) = LAST.lock() {
        if let Some((_, dirs)) = last.as_ref().filter(|(p, _)| p == path) {
            return dirs.clone();
        }
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    for d in std::env::split_paths(path) {
        // Cheapest test first: on a user's PATH most folders fail `access`, and the folder
        // test then runs only for the few that pass (every call of every hook pays for this).
        if d.is_absolute() && !dirs.contains(&d) && can_write(&d) && d.is_dir() {
            dirs.push(d);
        }
    }
    if let Ok(mut last) = LAST.lock() {
        *last = Some((path.to_os_string(), dirs.clone()));
    }
    dirs
}

/// Can this process create files in the folder?
#[cfg(unix)]
fn can_write(dir: &Path) -> bool {
    rustix::fs::access(dir, rustix::fs::Access::WRITE_OK).is_ok()
}

/// Can this process create files in the folder? Without a cheap check, every folder counts.
#[cfg(not(unix))]
fn can_write(_dir: &Path) -> bool {
    true
}

/// What [`read_only`] reads.
pub(crate) struct Inputs<'a> {
    /// The project root (real path): its folders are checked after the run instead.
    pub(crate) root: &'a Path,
    /// The homes (as given; resolved here).
    pub(crate) homes: &'a [PathBuf],
    /// The paths the command may write (real paths).
    pub(crate) writable: &'a [PathBuf],
    /// Of those, the package caches (written through a layer of the project's own).
    pub(crate) caches: &'a [PathBuf],
    /// Of those, the `sandbox.writePaths` entries (the person chose each).
    pub(crate) chosen: &'a [PathBuf],
    /// The caller's `PATH`.
    pub(crate) path: Option<&'a OsStr>,
}

/// The `PATH` folders and home tool folders that lie in a writable path outside the project,
/// as real paths that exist: each is read-only in the sandbox (see the module comment).
/// Costs a few `lstat`s only where a writable path covers a home tool folder.
pub(crate) fn read_only(i: &Inputs<'_>) -> Vec<PathBuf> {
    let real = crate::exec::real;
    let covered = |p: &Path| {
        i.writable.iter().any(|w| p.starts_with(w))
            && !p.starts_with(i.root)
            && !i.caches.iter().any(|c| p.starts_with(c))
            && !i.chosen.iter().any(|c| c == p)
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for d in writable_path_dirs(i.path) {
        if let Some(r) = real(&d).filter(|r| covered(r)) {
            crate::exec::push_unique(&mut out, r);
        }
    }
    for h in i.homes {
        let Some(h) = real(h) else { continue };
        for rel in wicket_policy::lists::HOME_PATH_FOLDERS {
            let p = h.join(rel);
            // Most homes lie in no writable path: nothing is looked up then.
            let literal: PathBuf =
                p.components().take_while(|c| !c.as_os_str().to_string_lossy().contains('*')).collect();
            if !i.writable.iter().any(|w| literal.starts_with(w) || w.starts_with(&literal)) {
                continue;
            }
            for d in crate::shadow::expand(&p) {
                if let Some(r) = real(&d).filter(|r| r.is_dir() && covered(r)) {
                    crate::exec::push_unique(&mut out, r);
                }
            }
        }
    }
    out
}

/// The project's own program folders (`PROJECT_PATH_FOLDERS`) below `root`, for the check after
/// the run, existing or not.
pub(crate) fn project_folders(root: &Path) -> Vec<PathBuf> {
    wicket_policy::lists::PROJECT_PATH_FOLDERS.iter().map(|f| root.join(f)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_and_home_tool_folders_in_a_writable_path_outside_the_project_are_read_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let (home, root, shared) = (base.join("home"), base.join("proj"), base.join("shared"));
        for d in [
            "home/.cargo/bin",
            "home/go/bin",
            "home/.nvm/versions/node/v20/bin",
            "home/.npm-global/bin",
            "home/.cache/x/bin",
            "home/unlisted/bin",
            "proj/.venv/bin",
            "shared/bin",
            "shared/chosen/bin",
            "elsewhere/bin",
        ] {
            std::fs::create_dir_all(base.join(d)).expect("mkdir");
        }
        let path = std::env::join_paths([
            shared.join("bin"),
            shared.join("chosen/bin"),
            root.join(".venv/bin"),
            home.join(".cache/x/bin"),
            home.join("unlisted/bin"),
            base.join("elsewhere/bin"),
            base.join("missing/bin"),
        ])
        .expect("join");
        // The home lies in a writable path (a writePaths entry `~`-wide is refused, but a
        // folder holding two homes' tools is not): every tool folder of it that exists counts.
        let writable = vec![
            root.clone(),
            shared.clone(),
            shared.join("chosen/bin"),
            home.join(".cache"),
            home.join(".nvm"),
            home.join("go"),
            home.join("unlisted"),
        ];
        let caches = vec![home.join(".cache")];
        let chosen = vec![shared.join("chosen/bin"), home.join("go")];
        let got = read_only(&Inputs {
            root: &root,
            homes: std::slice::from_ref(&home),
            writable: &writable,
            caches: &caches,
            chosen: &chosen,
            path: Some(&path),
        });
        let mut got: Vec<String> =
            got.iter().map(|p| p.strip_prefix(&base).expect("in base").display().to_string()).collect();
        got.sort();
        // Not: the project's .venv/bin (checked after the run), the cache's bin (a layer),
        // writePaths' own bin, folders in no writable path, a missing one; `~/go` is chosen but
        // `~/go/bin` below it is not.
        assert_eq!(got, ["home/.nvm/versions/node/v20/bin", "home/go/bin", "home/unlisted/bin", "shared/bin"]);
    }

    #[test]
    fn writable_path_dirs_are_the_absolute_existing_ones_this_process_can_write() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = std::fs::canonicalize(dir.path()).expect("real");
        let path =
            std::env::join_paths([d.clone(), PathBuf::from("rel/bin"), d.join("missing"), d.clone()]).expect("join");
        assert_eq!(writable_path_dirs(Some(&path)), vec![d.clone()]);
        // Asked again for the same value: the same answer.
        assert_eq!(writable_path_dirs(Some(&path)), vec![d]);
        assert!(writable_path_dirs(None).is_empty());
    }
}
