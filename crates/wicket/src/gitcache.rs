//! A cache of git's answer about its configuration ([`crate::gitconfig`]), believed only while
//! nothing git read for it has changed.
//!
//! Asking git costs two processes (several milliseconds each), and a hook pays for them on
//! every call. The answer depends on: the environment git sees, the `git` binary, the folders
//! git's discovery walks through (from the root up: `.git`, a bare repository's `HEAD`,
//! `objects`, `refs`, `commondir`), the git folder's own files (`HEAD`, `config`,
//! `config.worktree`, `commondir`, and the common folder's), the system's and the user's files,
//! and every file an include names. The cache records each of them: a file by its device,
//! inode, mode, owner, size, modification and change time (the change time cannot be set by a
//! program, so a file edited and given its old modification time back is still noticed); a
//! folder by its identity only (device, inode, mode, owner), because its entries change all the
//! time (git's index) and the entries that matter are watched by name; a missing path as
//! missing. Every path is looked at before git is asked, so a change while git runs is seen the
//! next time; an answer that depends on a file changed less than [`MARGIN`] ago is not kept,
//! because a second change within the file system's timestamp granularity could leave the
//! same stamp. When an answer names a path the look beforehand did not cover (a new include),
//! the record is kept only as the list of paths to look at next time, never believed. A
//! repository with submodules is not cached. The cache lives in `$WICKET_HOME` (hidden from
//! sandboxed commands) and is believed only when it and its folder are this user's and nobody
//! else can write them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::gitconfig::{ask, Asked, REMOVED_ENV};

/// How old every file an answer depends on must be before the answer is kept.
pub const MARGIN: Duration = Duration::from_secs(2);

/// The record's format; a record of another format is asked anew.
const FORMAT: u32 = 1;

/// What was seen at a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum Stamp {
    /// Nothing there.
    Missing,
    /// It could not be looked at (the error's number).
    Error(i32),
    /// A folder (or anything not a regular file): its identity.
    Node { dev: u64, ino: u64, mode: u32, uid: u32, gid: u32 },
    /// A regular file: its identity, size and times (seconds and nanoseconds).
    File { dev: u64, ino: u64, mode: u32, uid: u32, gid: u32, size: u64, mtime: (i64, i64), ctime: (i64, i64) },
}

impl Stamp {
    /// Look at `path`, following links as git does.
    fn of(path: &Path) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        match std::fs::metadata(path) {
            // Git reads an empty configuration file as it reads a missing one, and a sandboxed
            // run puts empty placeholders where a git folder's configuration is missing (see
            // wicket-policy's gitdirs) for as long as it lasts; an empty file that carries
            // meaning by being there (a `.git` or a `HEAD`) stays itself.
            Ok(m) if m.is_file() && m.len() == 0 && !present_matters(path) => Stamp::Missing,
            Ok(m) if m.is_file() => Stamp::File {
                dev: m.dev(),
                ino: m.ino(),
                mode: m.mode(),
                uid: m.uid(),
                gid: m.gid(),
                size: m.size(),
                mtime: (m.mtime(), m.mtime_nsec()),
                ctime: (m.ctime(), m.ctime_nsec()),
            },
            Ok(m) => Stamp::Node { dev: m.dev(), ino: m.ino(), mode: m.mode(), uid: m.uid(), gid: m.gid() },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Stamp::Missing,
            Err(e) => Stamp::Error(e.raw_os_error().unwrap_or(-1)),
        }
    }

    /// Whether the file changed less than `margin` before `now` (or its time is in the future).
    fn recent(&self, now: SystemTime, margin: Duration) -> bool {
        let Stamp::File { mtime, ctime, .. } = self else { return false };
        let Ok(now) = now.duration_since(UNIX_EPOCH) else { return true };
        let limit = now.saturating_sub(margin);
        [mtime, ctime].iter().any(|(s, ns)| {
            let Ok(secs) = u64::try_from(*s) else { return false };
            let at = Duration::from_secs(secs) + Duration::from_nanos(u64::try_from(*ns).unwrap_or(0));
            at >= limit
        })
    }
}

/// Whether an empty file at `path` means something other than no file: the entries git's
/// discovery looks for (an empty `.git` is a broken repository, not none).
fn present_matters(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_none_or(|n| matches!(n, ".git" | "HEAD" | "objects" | "refs" | "commondir" | ".gitmodules"))
}

/// One kept answer.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    format: u32,
    /// The environment and identity the answer was asked with.
    fingerprint: String,
    /// The root's real path.
    root: PathBuf,
    /// Only a list of paths to look at next time, never an answer to believe.
    provisional: bool,
    /// Every path the answer depends on, as seen before git was asked.
    inputs: Vec<(PathBuf, Stamp)>,
    /// Git's listing (`-z`, as text).
    listing: String,
    /// The top of the work tree.
    top: Option<PathBuf>,
}

/// Git's answer for `root`, from the cache in `dir` when every input is unchanged, else asked
/// (and kept when it can be).
pub(crate) fn answer(dir: &Path, root: &Path, home: Option<&Path>, margin: Duration) -> Result<Asked, String> {
    let (Ok(real), Ok(git)) = (std::fs::canonicalize(root), crate::gitconfig::trusted_git()) else {
        return ask(root, home, false);
    };
    let git = git.path().to_path_buf();
    let fingerprint = fingerprint(root, home, &git);
    let file = dir.join(format!("{}.json", &hex(&Sha256::digest(fingerprint.as_bytes()))[..32]));
    let before = SystemTime::now();
    let previous = load(&file).filter(|r| r.format == FORMAT && r.fingerprint == fingerprint && r.root == real);
    let mut base = discovery(&real);
    base.push(git);
    let mut paths = base.clone();
    if let Some(p) = &previous {
        paths.extend(p.inputs.iter().map(|(path, _)| path.clone()));
    }
    let seen: BTreeMap<PathBuf, Stamp> = paths.into_iter().map(|p| (p.clone(), Stamp::of(&p))).collect();
    if let Some(p) = previous.filter(|p| !p.provisional) {
        if p.inputs.iter().all(|(path, stamp)| seen.get(path) == Some(stamp)) {
            return Ok(Asked { listing: p.listing.into_bytes(), top: p.top, dirs: None, files: None });
        }
    }
    let asked = ask(root, home, true)?;
    if let Some(inputs) = inputs(base, &asked, home, &seen) {
        let provisional = inputs.iter().any(|p| !seen.contains_key(p));
        let inputs: Vec<(PathBuf, Stamp)> =
            inputs.into_iter().map(|p| (p.clone(), seen.get(&p).cloned().unwrap_or(Stamp::Missing))).collect();
        let racy = inputs.iter().any(|(_, s)| s.recent(before, margin));
        if let (false, Ok(listing)) = (racy, String::from_utf8(asked.listing.clone())) {
            let record = Record {
                format: FORMAT,
                fingerprint,
                root: real,
                provisional,
                inputs,
                listing,
                top: asked.top.clone(),
            };
            store(&file, &record);
        }
    }
    Ok(asked)
}

/// The paths git's discovery looks at from `real` up to the root of the file system.
fn discovery(real: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in real.ancestors() {
        out.push(d.to_path_buf());
        for name in [".git", "HEAD", "objects", "refs", "commondir", ".gitmodules"] {
            out.push(d.join(name));
        }
    }
    out
}

/// Every path the answer depends on (`base`: the discovery paths and the binary), or `None`
/// when it cannot be cached (a submodule, a git that does not say where its files are, an
/// include wicket cannot place).
fn inputs(
    mut out: Vec<PathBuf>,
    asked: &Asked,
    home: Option<&Path>,
    seen: &BTreeMap<PathBuf, Stamp>,
) -> Option<Vec<PathBuf>> {
    // Submodules are each asked on their own; those answers are not cached.
    let submodule = |p: &PathBuf| p.ends_with(".gitmodules") && seen.get(p).is_some_and(|s| *s != Stamp::Missing);
    if out.iter().any(submodule) {
        return None;
    }
    out.extend(asked.files.clone()?);
    let entries = wicket_policy::gitconfig::parse_list(&asked.listing, false).ok()?;
    match &asked.dirs {
        Some((git_dir, common)) => {
            for d in [git_dir, common] {
                out.push(d.clone());
                for name in ["HEAD", "config", "config.worktree", "commondir", "objects", "refs"] {
                    out.push(d.join(name));
                }
            }
        }
        // Outside a repository nothing of one is read; inside, its folders must be known.
        None if asked.top.is_some() || entries.iter().any(|e| e.scope == "local" || e.scope == "worktree") => {
            return None
        }
        None => {}
    }
    let home = home.map(Path::to_path_buf).or_else(crate::config::home_dir);
    for e in &entries {
        let origin = e.origin.strip_prefix("file:");
        if let Some(o) = origin {
            out.push(placed(o, asked.top.as_deref())?);
        }
        let include = e.key == "include.path" || (e.key.starts_with("includeif.") && e.key.ends_with(".path"));
        if include {
            let value = e.value.as_deref().unwrap_or("");
            out.push(include_target(value, origin, asked.top.as_deref(), home.as_deref())?);
        }
    }
    out.sort();
    out.dedup();
    Some(out)
}

/// An origin's path: repository files are printed relative to the top of the work tree.
fn placed(origin: &str, top: Option<&Path>) -> Option<PathBuf> {
    if origin.starts_with('/') {
        return Some(PathBuf::from(origin));
    }
    top.map(|t| t.join(origin))
}

/// The file an include names, as git places it: `~/` is the home folder, a relative path is
/// relative to the including file's folder. `None` for what wicket cannot place (`~user/`,
/// `%(prefix)/`, a relative include outside a file).
fn include_target(value: &str, origin: Option<&str>, top: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    if value == "~" {
        return home.map(Path::to_path_buf);
    }
    if let Some(rest) = value.strip_prefix("~/") {
        return home.map(|h| h.join(rest));
    }
    if value.starts_with('~') || value.starts_with("%(") || value.is_empty() {
        return None;
    }
    if value.starts_with('/') {
        return Some(PathBuf::from(value));
    }
    let including = placed(origin?, top)?;
    Some(including.parent()?.join(value))
}

/// What git's answer depends on besides files: wicket's version, the user, the root as
/// given, the home folder, the binary's path and every variable git reads for it (not the
/// caller's `PATH`: git runs with root's folders as its `PATH`).
fn fingerprint(root: &Path, home: Option<&Path>, git: &Path) -> String {
    let mut parts = vec![
        format!("wicket {}", env!("CARGO_PKG_VERSION")),
        format!("uid {} gid {}", rustix::process::geteuid().as_raw(), rustix::process::getegid().as_raw()),
        format!("root {}", root.display()),
        format!("home {:?}", home),
        format!("git {}", git.display()),
    ];
    let mut vars: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())))
        .filter(|(k, _)| {
            (k.starts_with("GIT_") && !REMOVED_ENV.contains(&k.as_str()))
                || matches!(k.as_str(), "HOME" | "XDG_CONFIG_HOME" | "PWD")
        })
        .collect();
    vars.sort();
    parts.extend(vars.into_iter().map(|(k, v)| format!("{k}={v:?}")));
    parts.join("\n")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The record in `file`, if it can be believed (see [`wicket_sandbox::private::read`]).
fn load(file: &Path) -> Option<Record> {
    serde_json::from_slice(&wicket_sandbox::private::read(file)?).ok()
}

/// Keep `record` in `file`; a failure only costs the next call a question to git.
fn store(file: &Path, record: &Record) {
    if let Ok(text) = serde_json::to_vec(record) {
        wicket_sandbox::private::write(file, &text);
    }
}

#[allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test
#[cfg(test)]
mod tests {
    use super::*;
    use crate::gitconfig::{read_with, ASKED};
    use std::process::Command;
    use wicket_policy::gitconfig::GitConfigView;

    /// A throwaway home, project and cache.
    struct World {
        _dir: tempfile::TempDir,
        home: PathBuf,
        root: PathBuf,
        cache: PathBuf,
    }

    impl World {
        fn new() -> World {
            let dir = tempfile::tempdir().unwrap();
            let base = dir.path().canonicalize().unwrap();
            let (home, root, cache) = (base.join("home"), base.join("outer/proj"), base.join("cache"));
            std::fs::create_dir_all(&home).unwrap();
            std::fs::create_dir_all(&root).unwrap();
            World { _dir: dir, home, root, cache }
        }
        fn git(&self, args: &[&str]) {
            let out = Command::new("git")
                .arg("-C")
                .arg(&self.root)
                .args(args)
                .env("HOME", &self.home)
                .env_remove("GIT_DIR")
                .env_remove("GIT_WORK_TREE")
                .output()
                .unwrap();
            assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
        /// Through the cache; whether git was asked.
        fn cached(&self, margin: Duration) -> (GitConfigView, bool) {
            let before = ASKED.with(|n| n.get());
            let view = read_with(&self.root, Some(&self.home), Some(&self.cache), margin);
            (view, ASKED.with(|n| n.get()) != before)
        }
        /// Read until the answer is kept (the first read only learns which paths to look at);
        /// the kept answer.
        fn warm(&self, what: &str) -> GitConfigView {
            let _ = self.cached(Duration::ZERO);
            let (view, _) = self.cached(Duration::ZERO);
            let (kept, asked) = self.cached(Duration::ZERO);
            assert!(!asked, "{what}: the answer is kept by the third read");
            assert_eq!(view, kept, "{what}");
            kept
        }
        fn fresh(&self) -> GitConfigView {
            read_with(&self.root, Some(&self.home), None, Duration::ZERO)
        }
        fn write(&self, rel: &str, text: &str) {
            let p = self.root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        /// Rewrite a file in place with text of the same length, and give it its old
        /// modification time back (as an attacker covering its tracks would).
        fn forge(&self, path: &Path, from: &str, to: &str) {
            assert_eq!(from.len(), to.len());
            let old = std::fs::metadata(path).unwrap().modified().unwrap();
            let text = std::fs::read_to_string(path).unwrap().replace(from, to);
            let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
            std::io::Write::write_all(&mut &f, text.as_bytes()).unwrap();
            f.set_modified(old).unwrap();
        }
    }

    fn has(view: &GitConfigView, key: &str) -> bool {
        matches!(view, GitConfigView::Entries(e) if e.iter().any(|e| e.key == key))
    }

    type Step = fn(&World);

    /// Each case: how the world starts, the change, and the key git lists after it. The change
    /// must be noticed: git is asked again and its new answer used.
    const NOTICED: &[(&str, Step, Step, &str)] = &[
        (
            "the repository's config, rewritten by git",
            |w| w.git(&["init", "-q"]),
            |w| w.git(&["config", "alias.zz", "!true"]),
            "alias.zz",
        ),
        (
            "the repository's config, edited in place with its old time",
            |w| {
                w.git(&["init", "-q"]);
                w.git(&["config", "core.xxxxxxxx", "1"])
            },
            |w| w.forge(&w.root.join(".git/config"), "xxxxxxxx", "fsmonito"),
            "core.fsmonito",
        ),
        (
            "the user's config, new",
            |w| w.git(&["init", "-q"]),
            |w| std::fs::write(w.home.join(".gitconfig"), "[core]\n\tpager = evil\n").unwrap(),
            "core.pager",
        ),
        (
            "the user's XDG config, new",
            |w| w.git(&["init", "-q"]),
            |w| {
                std::fs::create_dir_all(w.home.join(".config/git")).unwrap();
                std::fs::write(w.home.join(".config/git/config"), "[core]\n\tpager = evil\n").unwrap()
            },
            "core.pager",
        ),
        (
            "an included file, new",
            |w| {
                w.git(&["init", "-q"]);
                w.git(&["config", "include.path", "../extra.inc"])
            },
            |w| w.write("extra.inc", "[core]\n\tfsmonitor = evil\n"),
            "core.fsmonitor",
        ),
        (
            "an included file, edited in place with its old time",
            |w| {
                w.git(&["init", "-q"]);
                w.git(&["config", "include.path", "../extra.inc"]);
                w.write("extra.inc", "[core]\n\tzzzzzzzz = evil\n")
            },
            |w| w.forge(&w.root.join("extra.inc"), "zzzzzzzz", "editorxx"),
            "core.editorxx",
        ),
        (
            "a file the user's config includes, new",
            |w| {
                w.git(&["init", "-q"]);
                std::fs::write(w.home.join(".gitconfig"), "[include]\n\tpath = ~/more.inc\n").unwrap()
            },
            |w| std::fs::write(w.home.join("more.inc"), "[diff]\n\texternal = evil\n").unwrap(),
            "diff.external",
        ),
        (
            "a branch switch with an onbranch include",
            |w| {
                w.git(&["init", "-q", "-b", "main"]);
                w.git(&["config", "includeIf.onbranch:evil.path", "../branch.inc"]);
                w.write("branch.inc", "[core]\n\tfsmonitor = evil\n")
            },
            |w| w.git(&["checkout", "-q", "-b", "evil"]),
            "core.fsmonitor",
        ),
        (
            "a repository made above the root",
            |_| {},
            |w| {
                let out = Command::new("git").arg("init").arg("-q").arg(w.root.parent().unwrap()).output().unwrap();
                assert!(out.status.success())
            },
            "core.repositoryformatversion",
        ),
        ("a repository made at the root", |_| {}, |w| w.git(&["init", "-q"]), "core.repositoryformatversion"),
        (
            "a worktree config, new",
            |w| {
                w.git(&["init", "-q"]);
                w.git(&["config", "extensions.worktreeConfig", "true"])
            },
            |w| w.write(".git/config.worktree", "[core]\n\tfsmonitor = evil\n"),
            "core.fsmonitor",
        ),
        (
            "a .git file pointed at another repository",
            |w| {
                for r in ["../a.git", "../b.git"] {
                    let out = Command::new("git").args(["init", "-q", "--bare"]).arg(w.root.join(r)).output().unwrap();
                    assert!(out.status.success());
                }
                std::fs::write(w.root.join("../b.git/config"), "[core]\n\tbare = false\n\tfsmonitor = evil\n").unwrap();
                w.write(".git", &format!("gitdir: {}\n", w.root.join("../a.git").display()));
            },
            |w| w.write(".git", &format!("gitdir: {}\n", w.root.join("../b.git").display())),
            "core.fsmonitor",
        ),
    ];

    #[test]
    fn every_change_to_what_git_reads_is_noticed() {
        for (name, setup, change, key) in NOTICED {
            let w = World::new();
            setup(&w);
            let before = w.warm(name);
            assert_eq!(before, w.fresh(), "{name}");
            assert!(!has(&before, key), "{name}: {key} before the change");
            change(&w);
            let (after, asked) = w.cached(Duration::ZERO);
            assert!(asked, "{name}: git is asked again after the change");
            assert!(has(&after, key), "{name}: {key} after the change: {after:?}");
            assert_eq!(after, w.fresh(), "{name}: the answer is git's");
            // The new answer is kept in turn (a provisional record first when it names new
            // paths), and believed once it is whole.
            assert_eq!(w.warm(name), after, "{name}");
        }
    }

    /// Changes that do not change git's answer keep it: the index and new files at the root.
    #[test]
    fn work_in_the_repository_keeps_the_answer() {
        let w = World::new();
        w.git(&["init", "-q"]);
        w.write("a.txt", "a");
        w.warm("a new repository");
        w.git(&["add", "a.txt"]);
        w.git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "m"]);
        w.write("b.txt", "b");
        w.git(&["status", "--short"]);
        let (view, asked) = w.cached(Duration::ZERO);
        assert!(!asked, "work that changes no configuration keeps the answer");
        assert_eq!(view, w.fresh());
    }

    /// A sandboxed run's empty placeholder for a missing `config.worktree` (there while the
    /// run lasts) is what git reads as no file: the answer is kept; content in it is noticed.
    #[test]
    fn an_empty_placeholder_keeps_the_answer_and_content_in_it_does_not() {
        let w = World::new();
        w.git(&["init", "-q"]);
        w.git(&["config", "extensions.worktreeConfig", "true"]);
        let kept = w.warm("a repository");
        w.write(".git/config.worktree", "");
        let (view, asked) = w.cached(Duration::ZERO);
        assert!(!asked && view == kept, "an empty placeholder changes nothing git reads");
        w.write(".git/config.worktree", "[core]\n\tfsmonitor = evil\n");
        let (view, asked) = w.cached(Duration::ZERO);
        assert!(asked && has(&view, "core.fsmonitor"), "content in it is read");
        // An empty `.git` file where there was none is a broken repository, not nothing.
        let w = World::new();
        w.warm("no repository");
        w.write(".git", "");
        assert!(w.cached(Duration::ZERO).1, "an empty .git is looked at anew");
    }

    #[test]
    fn submodules_and_fresh_files_are_never_kept() {
        let w = World::new();
        w.git(&["init", "-q"]);
        w.write(".gitmodules", "");
        let _ = w.cached(Duration::ZERO);
        assert!(w.cached(Duration::ZERO).1, "a repository with submodules is asked each time");
        let w = World::new();
        w.git(&["init", "-q"]);
        let _ = w.cached(Duration::from_secs(3600));
        assert!(w.cached(Duration::from_secs(3600)).1, "an answer depending on a recent file is not kept");
    }

    #[test]
    fn a_record_others_could_write_is_not_believed() {
        use std::os::unix::fs::PermissionsExt;
        let w = World::new();
        w.git(&["init", "-q"]);
        w.warm("a new repository");
        let file = std::fs::read_dir(&w.cache).unwrap().next().unwrap().unwrap().path();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert!(w.cached(Duration::ZERO).1, "a world-writable record is asked anew");
        std::fs::set_permissions(&w.cache, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(w.cached(Duration::ZERO).1, "a record in a world-writable folder is asked anew");
    }

    #[test]
    fn a_forged_record_for_another_environment_is_not_believed() {
        let w = World::new();
        w.git(&["init", "-q"]);
        w.git(&["config", "core.fsmonitor", "evil"]);
        let _ = w.cached(Duration::ZERO);
        let file = std::fs::read_dir(&w.cache).unwrap().next().unwrap().unwrap().path();
        let mut record: Record = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        record.listing = record.listing.replace("core.fsmonitor", "core.harmless");
        record.fingerprint.push_str("\nGIT_CONFIG_NOSYSTEM=\"1\"");
        std::fs::write(&file, serde_json::to_vec(&record).unwrap()).unwrap();
        let (view, asked) = w.cached(Duration::ZERO);
        assert!(asked && has(&view, "core.fsmonitor"), "a record made for another environment is not used");
    }

    #[test]
    fn an_include_wicket_cannot_place_is_never_kept() {
        let w = World::new();
        w.git(&["init", "-q"]);
        w.git(&["config", "include.path", "%(prefix)/etc/x.inc"]);
        let _ = w.cached(Duration::ZERO);
        assert!(w.cached(Duration::ZERO).1);
    }
}
