//! The programs wicket runs on the host itself (git, bubblewrap, codex): found only where
//! nobody but root can write, never on `PATH`.
//!
//! The hard question: which file does wicket run when it needs `git`? A sandboxed command can
//! write some folders on the caller's `PATH` (the project's activated virtualenv `bin/`, a
//! package manager's bin folder) and plant a `git` there; wicket runs its helpers outside the
//! sandbox, so a helper found by name would run the plant unconfined at the next call. So
//! `PATH` is never read: a helper comes from [`TRUSTED_DIRS`], and only when the file and every
//! folder entered on the way to it, through every link followed, are owned by root and
//! writable by neither group nor others. Only root could have put it there, or can swap it.
//! A link from a trusted folder into any other folder is refused, as is a chain of links that
//! passes through one. The helper runs by its real path (no link is followed again), with a
//! `PATH` of the trusted folders that pass the same check, so that what it starts in turn also
//! comes from root's folders.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

/// The folders a helper may come from, in this order: the order of a default `PATH` (the
/// administrator's own installs in `/usr/local` first, as a command named `git` finds them),
/// then the system folders' `sbin`.
pub const TRUSTED_DIRS: &[&str] = &["/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin"];

/// How many links a path may lead through (the kernel's own limit).
const MAX_LINKS: usize = 40;

/// Why a path is not one wicket runs.
#[derive(Debug, thiserror::Error)]
pub enum Untrusted {
    /// The path is relative.
    #[error("{} is not an absolute path", path.display())]
    Relative {
        /// The path.
        path: PathBuf,
    },
    /// A part of the way could not be looked at.
    #[error("{} cannot be looked at: {source}", path.display())]
    Unreadable {
        /// The part.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A folder on the way, or the file, has an owner other than root.
    #[error("{} is owned by uid {uid}, not by root", path.display())]
    Owner {
        /// The folder or file.
        path: PathBuf,
        /// Its owner.
        uid: u32,
    },
    /// A folder on the way, or the file, can be written by its group or by others.
    #[error("{} is writable by group or others", path.display())]
    Writable {
        /// The folder or file.
        path: PathBuf,
    },
    /// What the path leads to is not a regular file.
    #[error("{} is not a regular file", path.display())]
    NotFile {
        /// The real path.
        path: PathBuf,
    },
    /// The path leads through too many links (a loop).
    #[error("{} leads through more than {MAX_LINKS} links", path.display())]
    Links {
        /// The path.
        path: PathBuf,
    },
    /// Ownership cannot be checked on this platform.
    #[error("{}: ownership cannot be checked on this platform", path.display())]
    Unsupported {
        /// The path.
        path: PathBuf,
    },
}

/// Why no helper of a name can be run.
#[derive(Debug, thiserror::Error)]
pub enum HelperError {
    /// The name is not a bare program name.
    #[error("{name:?} is not a program name")]
    BadName {
        /// The name.
        name: String,
    },
    /// No trusted folder holds it.
    #[error("{name} is not installed in {}", TRUSTED_DIRS.join(", "))]
    Missing {
        /// The name.
        name: String,
    },
    /// Every file of that name was refused.
    #[error("{}", refusals(.refused))]
    Refused {
        /// The name.
        name: String,
        /// Each file found and why it was refused.
        refused: Vec<(PathBuf, Untrusted)>,
    },
}

fn refusals(refused: &[(PathBuf, Untrusted)]) -> String {
    refused
        .iter()
        .map(|(p, why)| {
            format!(
                "{} is not used: {why} (a helper wicket runs must be owned by root and writable by nobody else, as must every folder on the way to it)",
                p.display()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A helper program wicket may run on the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Helper {
    /// Where it was found (in a trusted folder).
    found: PathBuf,
    /// The file itself: no link on this path.
    real: PathBuf,
}

impl Helper {
    /// Where it was found, in one of [`TRUSTED_DIRS`].
    pub fn found(&self) -> &Path {
        &self.found
    }

    /// The file that runs: its real path, with no link on it.
    pub fn path(&self) -> &Path {
        &self.real
    }

    /// A command that runs it by its real path, named as found (a program that looks at its
    /// name, as a multi-call binary does, sees the name it was found under), with `PATH` set
    /// to [`helper_path`].
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.real);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            c.arg0(&self.found);
        }
        c.env("PATH", helper_path());
        c
    }
}

/// The helper `name` from [`TRUSTED_DIRS`] (the first that passes [`check`]); `PATH` is never
/// read. The error says what was found and why it was refused. A helper found is kept for the
/// rest of the process (a run asks for git and bubblewrap several times): only root can move
/// or replace it, and a helper gone since then fails to start, which its callers treat as no
/// answer. A refusal is not kept: the next call looks again.
pub fn find(name: &str) -> Result<Helper, HelperError> {
    static FOUND: std::sync::Mutex<Vec<(String, Helper)>> = std::sync::Mutex::new(Vec::new());
    let known = |f: &[(String, Helper)]| f.iter().find(|(n, _)| n == name).map(|(_, h)| h.clone());
    if let Some(h) = FOUND.lock().ok().and_then(|f| known(&f)) {
        return Ok(h);
    }
    let dirs: Vec<&Path> = TRUSTED_DIRS.iter().map(Path::new).collect();
    let h = find_in(&dirs, name, &|uid| uid == 0)?;
    if let Ok(mut f) = FOUND.lock() {
        f.push((name.to_string(), h.clone()));
    }
    Ok(h)
}

/// [`find`] in `dirs`, with `owner_ok` saying which owners are trusted.
fn find_in(dirs: &[&Path], name: &str, owner_ok: &dyn Fn(u32) -> bool) -> Result<Helper, HelperError> {
    // A name with a slash (or `.`, `..`) would leave the trusted folder.
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
        return Err(HelperError::BadName { name: name.to_string() });
    }
    let mut refused = Vec::new();
    for dir in dirs {
        let found = dir.join(name);
        // Nothing of that name: look on. Anything else there is judged.
        if std::fs::symlink_metadata(&found).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
            continue;
        }
        match real_file(&found, owner_ok) {
            Ok(real) => return Ok(Helper { found, real }),
            Err(why) => refused.push((found, why)),
        }
    }
    if refused.is_empty() {
        Err(HelperError::Missing { name: name.to_string() })
    } else {
        Err(HelperError::Refused { name: name.to_string(), refused })
    }
}

/// The real path of `p` when wicket may run it: it is a regular file, and it and every folder
/// entered on the way to it (through every link followed) are owned by root and writable by
/// neither group nor others.
pub fn check(p: &Path) -> Result<PathBuf, Untrusted> {
    real_file(p, &|uid| uid == 0)
}

fn real_file(p: &Path, owner_ok: &dyn Fn(u32) -> bool) -> Result<PathBuf, Untrusted> {
    let real = walk(p, owner_ok)?;
    match std::fs::metadata(&real) {
        Ok(m) if m.is_file() => Ok(real),
        Ok(_) => Err(Untrusted::NotFile { path: real }),
        Err(source) => Err(Untrusted::Unreadable { path: real, source }),
    }
}

/// One step of a path still to walk.
enum Step {
    /// `..`
    Up,
    /// A name in the current folder.
    Name(OsString),
}

/// The steps of `p` (its root and `.` dropped), last step first, as a stack.
fn steps(p: &Path) -> impl Iterator<Item = Step> + '_ {
    p.components()
        .filter_map(|c| match c {
            Component::ParentDir => Some(Step::Up),
            Component::Normal(n) => Some(Step::Name(n.to_os_string())),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
}

/// Resolve `p` as the kernel does, one name at a time, judging every folder entered and what
/// it ends at; the real path (no link on it). A link is judged by the folder holding it (its
/// own owner and mode do not matter: only who can replace it), which was entered, so judged.
#[cfg(unix)]
fn walk(p: &Path, owner_ok: &dyn Fn(u32) -> bool) -> Result<PathBuf, Untrusted> {
    use std::os::unix::fs::MetadataExt;
    if !p.is_absolute() {
        return Err(Untrusted::Relative { path: p.to_path_buf() });
    }
    let judge = |q: &Path| -> Result<std::fs::Metadata, Untrusted> {
        let m =
            std::fs::symlink_metadata(q).map_err(|source| Untrusted::Unreadable { path: q.to_path_buf(), source })?;
        if !m.file_type().is_symlink() {
            if !owner_ok(m.uid()) {
                return Err(Untrusted::Owner { path: q.to_path_buf(), uid: m.uid() });
            }
            if m.mode() & 0o022 != 0 {
                return Err(Untrusted::Writable { path: q.to_path_buf() });
            }
        }
        Ok(m)
    };
    let mut cur = PathBuf::from("/");
    judge(&cur)?;
    let mut todo: Vec<Step> = steps(p).collect();
    let mut links = 0usize;
    while let Some(step) = todo.pop() {
        let name = match step {
            // `cur` holds no link, so its parent is the real parent (already judged).
            Step::Up => {
                cur.pop();
                continue;
            }
            Step::Name(n) => n,
        };
        let next = cur.join(&name);
        let m = judge(&next)?;
        if m.file_type().is_symlink() {
            links += 1;
            if links > MAX_LINKS {
                return Err(Untrusted::Links { path: p.to_path_buf() });
            }
            let target =
                std::fs::read_link(&next).map_err(|source| Untrusted::Unreadable { path: next.clone(), source })?;
            if target.is_absolute() {
                cur = PathBuf::from("/");
            }
            todo.extend(steps(&target));
            continue;
        }
        cur = next;
    }
    Ok(cur)
}

#[cfg(not(unix))]
fn walk(p: &Path, _owner_ok: &dyn Fn(u32) -> bool) -> Result<PathBuf, Untrusted> {
    Err(Untrusted::Unsupported { path: p.to_path_buf() })
}

/// The `PATH` a helper runs with: those of [`TRUSTED_DIRS`] that are folders owned by root and
/// writable by nobody else (all the way up), joined with `:`; found once per process.
pub fn helper_path() -> &'static str {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        TRUSTED_DIRS
            .iter()
            .filter(|d| walk(Path::new(d), &|uid| uid == 0).is_ok_and(|real| real.is_dir()))
            .copied()
            .collect::<Vec<_>>()
            .join(":")
    })
}

#[allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};

    /// A folder tree for the resolver, in a folder only this user (and root) can write; its
    /// owner counts as trusted in [`World::find`], as root does.
    struct World {
        base: PathBuf,
    }

    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    /// This process's user: the owner of a file it makes.
    fn euid() -> u32 {
        tempfile::tempfile().unwrap().metadata().unwrap().uid()
    }

    impl World {
        fn new() -> World {
            // Next to the test binary, else in the home folder: a temp folder is writable by
            // everyone, so nothing below it could be trusted.
            let me = euid();
            let ok = |d: &Path| walk(d, &|uid| uid == 0 || uid == me).is_ok();
            let exe_dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
            let home = std::env::var_os("HOME").map(PathBuf::from);
            let Some(parent) = exe_dir.into_iter().chain(home).find(|d| ok(d)) else {
                panic!("no folder writable only by this user (next to the test binary, or HOME) for the test world")
            };
            let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let base = parent.join(format!("helper-test-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&base);
            let w = World { base };
            w.dir("");
            w
        }

        fn at(&self, rel: &str) -> PathBuf {
            if rel.is_empty() {
                self.base.clone()
            } else {
                self.base.join(rel)
            }
        }

        /// Make a folder (mode 755) and the folders above it.
        fn dir(&self, rel: &str) -> PathBuf {
            let p = self.at(rel);
            std::fs::create_dir_all(&p).unwrap();
            let mut q = p.clone();
            while q.starts_with(&self.base) {
                std::fs::set_permissions(&q, std::fs::Permissions::from_mode(0o755)).unwrap();
                if !q.pop() {
                    break;
                }
            }
            p
        }

        /// Make an executable file (mode 755).
        fn file(&self, rel: &str) -> PathBuf {
            let p = self.at(rel);
            self.dir(p.parent().unwrap().strip_prefix(&self.base).unwrap().to_str().unwrap());
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
            p
        }

        fn link(&self, rel: &str, target: &str) {
            let p = self.at(rel);
            self.dir(p.parent().unwrap().strip_prefix(&self.base).unwrap().to_str().unwrap());
            symlink(target, p).unwrap();
        }

        fn chmod(&self, rel: &str, mode: u32) {
            std::fs::set_permissions(self.at(rel), std::fs::Permissions::from_mode(mode)).unwrap();
        }

        /// `name` looked up in `dirs`, trusting root and this user as owners.
        fn find(&self, dirs: &[&str], name: &str) -> Result<Helper, HelperError> {
            let me = euid();
            let dirs: Vec<PathBuf> = dirs.iter().map(|d| self.at(d)).collect();
            let dirs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
            find_in(&dirs, name, &|uid| uid == 0 || uid == me)
        }
    }

    impl Drop for World {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.base);
        }
    }

    /// The path a refusal names.
    fn blamed(e: &HelperError) -> Option<&Path> {
        let HelperError::Refused { refused, .. } = e else { return None };
        match &refused.first()?.1 {
            Untrusted::Owner { path, .. } | Untrusted::Writable { path } | Untrusted::NotFile { path } => Some(path),
            Untrusted::Unreadable { path, .. } | Untrusted::Links { path } => Some(path),
            Untrusted::Relative { .. } | Untrusted::Unsupported { .. } => None,
        }
    }

    type Setup = fn(&World);

    /// Each case: how the world is made (the helper is `tool`, looked up in `bin` then
    /// `later`), and the path it must run (`Ok`, relative to the world) or the path a refusal
    /// must blame (`Err`; an absolute path stays itself).
    const CASES: &[(&str, Setup, Result<&str, &str>)] = &[
        ("a file in a trusted folder", |w| drop(w.file("bin/tool")), Ok("bin/tool")),
        (
            "the folder is writable by others",
            |w| {
                w.file("bin/tool");
                w.chmod("bin", 0o757);
            },
            Err("bin"),
        ),
        (
            "the folder is writable by its group",
            |w| {
                w.file("bin/tool");
                w.chmod("bin", 0o775);
            },
            Err("bin"),
        ),
        (
            "an ancestor is writable by others (even with the sticky bit, as /tmp)",
            |w| {
                w.file("bin/tool");
                w.chmod("", 0o1777);
            },
            Err(""),
        ),
        (
            "the file is writable by others",
            |w| {
                w.file("bin/tool");
                w.chmod("bin/tool", 0o757);
            },
            Err("bin/tool"),
        ),
        (
            "the file is writable by its group",
            |w| {
                w.file("bin/tool");
                w.chmod("bin/tool", 0o775);
            },
            Err("bin/tool"),
        ),
        (
            "a link in a trusted folder to a file in another trusted folder runs the file",
            |w| {
                w.file("lib/real-tool");
                w.link("bin/tool", "../lib/real-tool");
            },
            Ok("lib/real-tool"),
        ),
        (
            "a link in a trusted folder into a folder writable by others",
            |w| {
                w.file("open/tool");
                w.chmod("open", 0o777);
                w.link("bin/tool", "../open/tool");
            },
            Err("open"),
        ),
        (
            "a chain of links that passes through a folder writable by others",
            |w| {
                w.file("lib/tool");
                w.dir("open");
                w.link("open/hop", "../lib/tool");
                w.chmod("open", 0o777);
                w.link("bin/tool", "../open/hop");
            },
            Err("open"),
        ),
        (
            "a trusted folder that is a link into a folder writable by others",
            |w| {
                w.file("open/bin/tool");
                w.chmod("open", 0o777);
                w.link("bin", "open/bin");
            },
            Err("open"),
        ),
        (
            "an absolute link out of the world into a temp folder",
            |w| w.link("bin/tool", "/tmp/wicket-helper-test-planted"),
            Err("/tmp"),
        ),
        ("a loop of links", |w| w.link("bin/tool", "tool"), Err("bin/tool")),
        ("a folder of that name", |w| drop(w.dir("bin/tool")), Err("bin/tool")),
        (
            "a refused file, then a trusted one in a later folder: the later one",
            |w| {
                w.file("bin/tool");
                w.chmod("bin/tool", 0o777);
                w.file("later/tool");
            },
            Ok("later/tool"),
        ),
    ];

    #[test]
    fn only_files_root_alone_could_place_are_run() {
        let mut failures = Vec::new();
        for (what, setup, want) in CASES {
            let w = World::new();
            setup(&w);
            let got = w.find(&["bin", "later"], "tool");
            match (want, &got) {
                (Ok(rel), Ok(h)) if h.path() == w.at(rel) => {}
                (Err(rel), Err(e)) if blamed(e) == Some(&w.at(rel)) => {}
                _ => failures.push(format!("{what}: want {want:?}, got {got:?}")),
            }
            // Let the world be removed (a folder writable by others is fine; 000 is not).
            let _ = std::fs::set_permissions(w.at(""), std::fs::Permissions::from_mode(0o755));
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// With root as the only trusted owner (as wicket runs), a folder on the way owned by
    /// anyone else is refused: as root, one chowned to another user; otherwise, the world
    /// itself (this user's).
    #[test]
    fn a_folder_on_the_way_not_owned_by_root_is_refused() {
        let w = World::new();
        let tool = w.file("bin/tool");
        let root_only = |uid: u32| uid == 0;
        let bin = w.at("bin");
        let bin_dirs = [bin.as_path()];
        if euid() == 0 {
            assert_eq!(find_in(&bin_dirs, "tool", &root_only).unwrap().path(), tool, "the control: all root's");
            std::os::unix::fs::chown(&bin, Some(65534), None).unwrap();
            let e = find_in(&bin_dirs, "tool", &root_only).unwrap_err();
            assert!(
                matches!(&e, HelperError::Refused { refused, .. } if matches!(&refused[0].1, Untrusted::Owner { path, uid: 65534 } if *path == bin)),
                "{e:?}"
            );
            // The file itself owned by another user.
            std::os::unix::fs::chown(&bin, Some(0), None).unwrap();
            std::os::unix::fs::chown(&tool, Some(65534), None).unwrap();
            let e = find_in(&bin_dirs, "tool", &root_only).unwrap_err();
            assert!(
                matches!(&e, HelperError::Refused { refused, .. } if matches!(&refused[0].1, Untrusted::Owner { path, .. } if *path == tool)),
                "{e:?}"
            );
        } else {
            let e = find_in(&bin_dirs, "tool", &root_only).unwrap_err();
            let Some(blamed) = blamed(&e) else { panic!("{e:?}") };
            assert!(
                tool.starts_with(blamed)
                    && matches!(&e, HelperError::Refused { refused, .. } if matches!(refused[0].1, Untrusted::Owner { .. })),
                "{e:?}"
            );
            // The control: trusting this user too, it is found.
            assert_eq!(w.find(&["bin"], "tool").unwrap().path(), tool);
        }
    }

    #[test]
    fn names_that_leave_the_folder_and_missing_helpers_are_refused() {
        let w = World::new();
        w.file("tool");
        w.dir("bin");
        for name in ["", ".", "..", "../tool", "sub/tool", "to\0ol"] {
            assert!(matches!(w.find(&["bin"], name), Err(HelperError::BadName { .. })), "{name:?}");
        }
        assert!(matches!(w.find(&["bin"], "tool"), Err(HelperError::Missing { .. })));
        assert!(matches!(find("no-such-helper-wicket"), Err(HelperError::Missing { .. })));
        assert!(matches!(check(Path::new("relative/sh")), Err(Untrusted::Relative { .. })));
    }

    /// The system's own `sh` is found in a trusted folder, and runs by its real path with
    /// `PATH` of root's folders only.
    #[test]
    fn the_systems_sh_runs_with_a_path_of_roots_folders() {
        let sh = find("sh").expect("sh is in a system folder");
        assert!(TRUSTED_DIRS.iter().any(|d| sh.found().starts_with(d)), "{sh:?}");
        assert_eq!(std::fs::canonicalize(sh.found()).unwrap(), sh.path());
        let out = sh.command().args(["-c", "echo \"$PATH\""]).output().unwrap();
        let path = String::from_utf8(out.stdout).unwrap();
        assert_eq!(path.trim_end(), helper_path());
        assert!(helper_path().split(':').any(|d| d == "/usr/bin" || d == "/bin"), "{}", helper_path());
        assert!(helper_path().split(':').all(|d| TRUSTED_DIRS.contains(&d)), "{}", helper_path());
    }
}
