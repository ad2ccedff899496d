//! After the run: new programs in the project's `PATH` folders, and links on the way to what the
//! sandbox protects.
//!
//! The hard question: a folder on the person's `PATH` that lies in the project (an activated
//! `.venv/bin`, `node_modules/.bin`, a folder an `.envrc` adds) is writable in the sandbox. A
//! new `git` or `ls` there runs instead of the system's the next time the person types that
//! name. A mount cannot stop a new name in a folder the command may write, so the check comes
//! after the run: every program that is new in such a folder and bears the name of a program
//! in a system folder (one the command could not write) is moved aside, unless it is that very
//! program (a virtualenv's `python3` link). Programs that were there before the run, and new
//! ones that shadow nothing, stay.
//!
//! A link on the way to a protected path cannot be held by a mount either (a bind follows it):
//! each is remembered when the sandbox is built, and one the run changed is moved aside, so
//! that git or direnv finds nothing there rather than what the command chose.
//!
//! This module only finds (it reads, never writes); the sandbox moves (`quarantine.rs`).

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::nested_git::Quarantine;

/// At most this many names are remembered per folder.
const MAX_NAMES: usize = 100_000;

/// System folders always counted as where a shadowed program lives, besides the caller's
/// `PATH` entries that the command cannot write.
pub const SYSTEM_FOLDERS: &[&str] = &["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/// What the check after the run needs, made when the sandbox is built.
#[derive(Clone, PartialEq, Eq)]
pub struct Watch {
    root: PathBuf,
    /// The `PATH` folders (a `*` in a component stands for any part of a name).
    patterns: Vec<PathBuf>,
    /// Each folder the patterns matched at start, with its names then.
    before: Vec<(PathBuf, HashSet<OsString>)>,
    /// Folders whose programs may be shadowed.
    system: Vec<PathBuf>,
    /// Links on the way to protected paths, with their text at start.
    links: Vec<(PathBuf, PathBuf)>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "shadow::Watch({} PATH folders, {} links)", self.patterns.len(), self.links.len())
    }
}

impl Watch {
    /// Remember the names in each `PATH` folder of `patterns` now. `system`: the folders whose
    /// programs a new name must not shadow. `links`: each link to check, with its text.
    pub fn new(root: &Path, patterns: Vec<PathBuf>, system: Vec<PathBuf>, links: Vec<(PathBuf, PathBuf)>) -> Watch {
        let mut before = Vec::new();
        for p in &patterns {
            for dir in expand(p) {
                let names: HashSet<OsString> = std::fs::read_dir(&dir)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .take(MAX_NAMES)
                    .map(|e| e.file_name())
                    .collect();
                before.push((dir, names));
            }
        }
        Watch { root: root.to_path_buf(), patterns, before, system, links }
    }

    /// Is there anything to check?
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty() && self.links.is_empty()
    }

    /// After the run: the new programs that shadow a system program, and the links that
    /// changed. Reads only.
    pub fn after_run(&self) -> Vec<Quarantine> {
        let mut out = Vec::new();
        let rel = |p: &Path| p.strip_prefix(&self.root).unwrap_or(p).display().to_string();
        let mut seen = HashSet::new();
        for pattern in &self.patterns {
            for dir in expand(pattern) {
                if !seen.insert(dir.clone()) {
                    continue;
                }
                let before = self.before.iter().find(|(d, _)| *d == dir).map(|(_, n)| n);
                for e in std::fs::read_dir(&dir).into_iter().flatten().flatten().take(MAX_NAMES) {
                    let name = e.file_name();
                    if before.is_some_and(|b| b.contains(&name)) {
                        continue;
                    }
                    let path = e.path();
                    if !is_program(&path) {
                        continue;
                    }
                    if let Some(shadowed) = self.shadowed(&name, &path) {
                        out.push(Quarantine {
                            path: path.clone(),
                            why: format!(
                                "{} is a new program on PATH that would run instead of {}",
                                rel(&path),
                                shadowed.display()
                            ),
                        });
                    }
                }
            }
        }
        for (link, text) in &self.links {
            let now = std::fs::symlink_metadata(link);
            let same = match &now {
                Err(_) => true,
                Ok(m) if m.file_type().is_symlink() => std::fs::read_link(link).is_ok_and(|t| t == *text),
                Ok(_) => false,
            };
            if !same {
                out.push(Quarantine {
                    path: link.clone(),
                    why: format!(
                        "{} was a link to {} on the way to a protected path, and the run replaced it",
                        rel(link),
                        text.display()
                    ),
                });
            }
        }
        out
    }

    /// The system program `path` (named `name`) would run instead of, unless it is one of the
    /// system's programs of that name (a virtualenv's `python3` is a link to the system's).
    fn shadowed(&self, name: &std::ffi::OsStr, path: &Path) -> Option<PathBuf> {
        let real = std::fs::canonicalize(path).ok();
        let others: Vec<PathBuf> = self.system.iter().map(|s| s.join(name)).filter(|o| is_program(o)).collect();
        if real.is_some() && others.iter().any(|o| std::fs::canonicalize(o).ok() == real) {
            return None;
        }
        others.into_iter().next()
    }
}

/// A file anyone may run (links followed).
fn is_program(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The folders a pattern names now: a component with `*` matches any folder whose name has
/// the text before and after it; a folder that does not exist (yet) is named as it is.
pub fn expand(pattern: &Path) -> Vec<PathBuf> {
    let mut found = vec![PathBuf::new()];
    for c in pattern.components() {
        let c = c.as_os_str().to_string_lossy().into_owned();
        let mut next = Vec::new();
        for at in &found {
            match c.split_once('*') {
                None => next.push(at.join(&c)),
                Some((pre, post)) => {
                    for e in std::fs::read_dir(at).into_iter().flatten().flatten() {
                        let n = e.file_name().to_string_lossy().into_owned();
                        if n.len() >= pre.len() + post.len()
                            && n.starts_with(pre)
                            && n.ends_with(post)
                            && e.file_type().is_ok_and(|t| t.is_dir())
                        {
                            next.push(at.join(n));
                        }
                    }
                }
            }
        }
        found = next;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(p: &Path) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    #[test]
    fn new_programs_that_shadow_a_system_program_are_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let (root, sys) = (base.join("proj"), base.join("sys"));
        for p in ["sys/git", "sys/ls", "sys/python3", "proj/.venv/bin/ls", "proj/.direnv/python-3.1/bin/x"] {
            program(&base.join(p));
        }
        std::fs::create_dir_all(root.join("tools")).expect("mkdir");
        std::os::unix::fs::symlink(root.join("tools"), root.join("tools-link")).expect("link");
        let patterns = vec![root.join(".venv/bin"), root.join(".direnv/python-*/bin"), root.join("node_modules/.bin")];
        let w = Watch::new(&root, patterns, vec![sys.clone()], vec![(root.join("tools-link"), root.join("tools"))]);
        assert_eq!(w.after_run(), vec![], "nothing changed");
        // New: a git (shadows), a tool of its own (shadows nothing), a link to the very python3
        // it shadows; the ls that was there before stays; a new versioned virtualenv and a new
        // node_modules/.bin count too.
        program(&root.join(".venv/bin/git"));
        program(&root.join(".venv/bin/mytool"));
        std::os::unix::fs::symlink(sys.join("python3"), root.join(".venv/bin/python3")).expect("link");
        std::fs::write(root.join(".venv/bin/ls"), "#!/bin/sh\necho changed\n").expect("write");
        program(&root.join(".direnv/python-3.2/bin/ls"));
        program(&root.join("node_modules/.bin/git"));
        std::fs::write(root.join(".venv/bin/notes"), "").expect("write");
        std::fs::remove_file(root.join("tools-link")).expect("rm");
        std::os::unix::fs::symlink(base.join("elsewhere"), root.join("tools-link")).expect("link");
        let mut got: Vec<PathBuf> = w.after_run().into_iter().map(|q| q.path).collect();
        got.sort();
        let mut want = vec![
            root.join(".venv/bin/git"),
            root.join(".direnv/python-3.2/bin/ls"),
            root.join("node_modules/.bin/git"),
            root.join("tools-link"),
        ];
        want.sort();
        assert_eq!(got, want);
    }
}
