//! Repositories below the root: which ones would the host's git use, and did the run make one?
//!
//! The hard question: after a sandboxed command, can the host's next `git` run in a folder of
//! the project pick up a repository the command made or changed, and run its code? Git's
//! discovery (`setup_git_directory_gently_1`) takes, at each folder from where it runs upward,
//! `DIR/.git` when it is a git folder or a `.git` file (`gitdir:`), or `DIR` itself when it is
//! a git folder (a valid `HEAD`, `objects/` and `refs/`: a bare repository). So every `.git`
//! entry and every folder holding a `HEAD` is a candidate, wherever it is. Those that exist at
//! start are protected like the root's repository (read-only but for their data, see
//! `crate::gitdirs::protect_nested`) and fingerprinted; after the run, the folders whose
//! stamp moved (see [`crate::scan_cache`]) are read again, folders new since the start are
//! walked, and every candidate that is new, or whose fingerprint changed, is judged as git
//! would use it: a config key that is not known to be safe, a hook that is not a `.sample`, a
//! rebase or sequencer in progress, or a `.git` file or link that leads anywhere but a git
//! folder protected at start, and it must be moved aside. This module only finds and judges
//! (it reads, never writes); the sandbox moves.

use std::path::{Path, PathBuf};

use crate::scan_cache::Stamps;

/// A candidate's fingerprint: every path of it git reads as configuration or code, with its
/// inode and, for a file or link, its length and a hash of its content (`0`s for a path that
/// is missing). Content, not a change time: a write in the same clock tick as the fingerprint
/// would leave the time as it was. A folder's own entries count (they are listed), not its
/// times: everyday git work adds and removes data in it (`index.lock`).
type Print = Vec<(PathBuf, u64, u64, u64)>;

/// A candidate found at start.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Known {
    /// The `.git` entry, or the folder that holds a `HEAD`.
    found: PathBuf,
    /// Git would use it at start.
    was_repo: bool,
    print: Print,
    /// The fingerprint of what its configuration (and the user's) points at: hooks folders,
    /// programs (see [`crate::pointers`]), also where they are missing.
    pointers: Print,
}

/// What the check after the run needs, made when the sandbox is built.
#[derive(Clone, PartialEq, Eq)]
pub struct Watch {
    root: PathBuf,
    /// The walk's stamps; `None`: every folder is read after the run.
    stamps: Option<Stamps>,
    known: Vec<Known>,
    /// Git folders protected at start (the root's and the nested ones'), real paths.
    protected: Vec<PathBuf>,
    /// The root's own git folders: the root's repository keeps its own rule (never moved).
    root_git: Vec<PathBuf>,
    /// Folders the walk did not enter (masked secrets: unreachable in the sandbox).
    not_entered: Vec<PathBuf>,
    /// The home, for `~/` in git's configuration.
    home: Option<PathBuf>,
    /// The config files git reads for every repository (the system's, the user's).
    globals: Vec<PathBuf>,
    /// The new names that run code somewhere are found in the same walk (see [`crate::held`]).
    guard: Option<std::sync::Arc<crate::held::Guard>>,
}

/// What the check after the run found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The repositories git would now use that it must not.
    pub quarantine: Vec<Quarantine>,
    /// False when the check was cut short (more than [`MAX_CHECKED`] entries to read).
    pub complete: bool,
    /// New entries that run code somewhere, to hold for a person (see
    /// [`crate::held::Guard::is_new_held`]), none inside another, sorted.
    pub held: Vec<PathBuf>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Watch({} known repositories below {})", self.known.len(), self.root.display())
    }
}

/// A repository to move aside, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quarantine {
    /// The path to rename: a `.git` entry, or a bare repository's `HEAD`.
    pub path: PathBuf,
    /// Why git must not use it (the key, the hook, the link).
    pub why: String,
}

/// The name a moved path gets: git discovers neither `.git.wicket-quarantine` nor a folder
/// without `HEAD`.
pub const QUARANTINE_SUFFIX: &str = ".wicket-quarantine";

/// At most this many entries are read after the run (a command that makes more than this
/// many new folders gets the notice that the check was cut short).
pub const MAX_CHECKED: usize = 2_000_000;

/// Is this folder entry a candidate? `name` is the entry's name.
pub fn is_candidate_name(name: &std::ffi::OsStr) -> bool {
    name == ".git"
}

impl Watch {
    /// Fingerprint the candidates the walk found (`found`: `.git` entries and folders with a
    /// `HEAD`), but the root's own `.git` and the root itself. `home`: where git finds the
    /// user's configuration.
    pub fn new(
        root: &Path,
        stamps: Option<Stamps>,
        found: &[PathBuf],
        protected: Vec<PathBuf>,
        root_git: Vec<PathBuf>,
        not_entered: Vec<PathBuf>,
        home: Option<&Path>,
    ) -> Watch {
        let mut found = found.to_vec();
        found.sort();
        found.dedup();
        let globals = crate::pointers::global_config_files(home);
        let known = found
            .iter()
            .filter(|f| **f != root.join(".git") && *f != root && !root_git.iter().any(|g| f.starts_with(g)))
            .map(|f| Known {
                found: f.clone(),
                was_repo: is_repository(f),
                print: fingerprint(f),
                pointers: pointer_print(f, &globals, home),
            })
            .collect();
        Watch {
            root: root.to_path_buf(),
            stamps,
            known,
            protected,
            root_git,
            not_entered,
            home: home.map(Path::to_path_buf),
            globals,
            guard: None,
        }
    }

    /// Find, in the same walk after the run, the new names `guard` would hold.
    pub fn with_guard(mut self, guard: Option<std::sync::Arc<crate::held::Guard>>) -> Watch {
        self.guard = guard;
        self
    }

    /// The candidates known at start (for the sandbox's protections and tests).
    pub fn known(&self) -> impl Iterator<Item = &Path> {
        self.known.iter().map(|k| k.found.as_path())
    }

    /// After the run: the repositories git would now use that it must not, and the new names
    /// to hold. Reads only.
    pub fn after_run(&self) -> Checked {
        let (mut queue, map) = match self.stamps.as_ref().and_then(|s| s.since(&self.root)) {
            Some((changed, map)) => (changed.into_iter().map(|r| self.root.join(r)).collect::<Vec<_>>(), Some(map)),
            None => (vec![self.root.clone()], None),
        };
        let mut candidates: Vec<PathBuf> = Vec::new();
        let mut read = 0usize;
        let mut complete = true;
        let mut unreadable: Vec<PathBuf> = Vec::new();
        let mut held: Vec<PathBuf> = Vec::new();
        while let Some(dir) = queue.pop() {
            if self.not_entered.iter().any(|n| dir.starts_with(n)) {
                continue;
            }
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) => {
                    // A folder the run left that this check cannot read (its mode, a depth past
                    // PATH_MAX) could hide a repository from it: suspicious, never skipped.
                    if e.kind() != std::io::ErrorKind::NotFound && dir != self.root {
                        unreadable.push(crate::exec::unwalkable_path(&dir, &self.root));
                    }
                    continue;
                }
            };
            let mut has_head = false;
            for e in entries.flatten() {
                read += 1;
                if read > MAX_CHECKED {
                    complete = false;
                    queue.clear();
                    break;
                }
                let name = e.file_name();
                let Ok(ft) = e.file_type() else { continue };
                if is_candidate_name(&name) {
                    candidates.push(e.path());
                }
                if name == "HEAD" {
                    has_head = true;
                }
                let p = e.path();
                if self.guard.as_ref().is_some_and(|g| g.is_new_held(&p)) {
                    // Held whole: what is inside goes with it.
                    held.push(p);
                    continue;
                }
                if !ft.is_dir() {
                    continue;
                }
                if self.not_entered.contains(&p) {
                    continue;
                }
                // A folder the walk stamped, still the same folder: its own stamp tells.
                let same = map.as_ref().is_some_and(|m| {
                    let rel = p.strip_prefix(&self.root).ok().and_then(Path::to_str);
                    rel.and_then(|r| m.get(r)).is_some_and(|ino| *ino == dir_entry_ino(&e))
                });
                if !same {
                    queue.push(p);
                }
            }
            if has_head {
                candidates.push(dir);
            }
        }
        candidates.sort();
        candidates.dedup();
        let mut out = Vec::new();
        for c in candidates {
            if c == self.root || self.root_git.iter().any(|g| c.starts_with(g)) || c == self.root.join(".git") {
                continue;
            }
            if self.known.iter().any(|k| k.found == c) {
                continue;
            }
            if let Some(q) = self.judge(&c, &self.protected) {
                out.push(q);
            }
        }
        for k in &self.known {
            // One that became a repository, or one whose configuration or code changed: its
            // own git folder is judged too (protected at start or not).
            let now = is_repository(&k.found);
            if now && (!k.was_repo || fingerprint(&k.found) != k.print) {
                if let Some(q) = self.judge_known(&k.found) {
                    out.push(q);
                    continue;
                }
            }
            if now && pointer_print(&k.found, &self.globals, self.home.as_deref()) != k.pointers {
                let rel = k.found.strip_prefix(&self.root).unwrap_or(&k.found).display().to_string();
                out.push(Quarantine {
                    path: k.found.clone(),
                    why: format!(
                        "{rel}: a hook or program its git configuration points at appeared or changed during the run"
                    ),
                });
            }
        }
        unreadable.sort();
        unreadable.dedup();
        for u in unreadable {
            if out.iter().any(|q| u.starts_with(&q.path)) {
                continue;
            }
            let rel = u.strip_prefix(&self.root).unwrap_or(&u).display().to_string();
            out.push(Quarantine {
                why: format!(
                    "{rel} could not be read after the run (its permissions, or a depth past what a path can name), so a repository git would use could hide in it"
                ),
                path: u,
            });
        }
        held.sort();
        held.dedup();
        Checked { quarantine: out, complete, held }
    }

    /// [`Watch::judge`] with the candidate's own git folders not counted as protected.
    fn judge_known(&self, found: &Path) -> Option<Quarantine> {
        let mut own = Vec::new();
        if let Some(g) = crate::gitdirs::repository_dir(found) {
            own.extend(crate::gitdirs::common_dir(&g));
            own.push(g);
        }
        if found.file_name().is_some_and(|n| n == ".git") && std::fs::symlink_metadata(found).is_ok_and(|m| !m.is_dir())
        {
            // A `.git` file or link is judged by where it leads.
            return self.judge(found, &self.protected);
        }
        let protected: Vec<PathBuf> = self.protected.iter().filter(|p| !own.contains(p)).cloned().collect();
        self.judge(found, &protected)
    }

    /// Judge one candidate as git would use it now; `protected`: the git folders whose files
    /// the run could not change.
    fn judge(&self, found: &Path, protected: &[PathBuf]) -> Option<Quarantine> {
        let meta = std::fs::symlink_metadata(found).ok()?;
        let is_dot_git = found.file_name().is_some_and(|n| n == ".git");
        let rel = found.strip_prefix(&self.root).unwrap_or(found).display().to_string();
        if is_dot_git && !meta.is_dir() {
            // A `.git` file or link: git follows it (and stops with an error where it leads
            // nowhere). A safe place to lead: a git folder protected at start, or one inside the
            // project that passes the same judgement (a submodule checkout that `git clone
            // --recurse-submodules` made leads into the new repository's `modules/`).
            let target = crate::gitdirs::repository_dir(found);
            let judged_safe = |t: &Path| {
                t.starts_with(&self.root)
                    && crate::gitdirs::is_git_directory(t)
                    && judge_git_dir(t, protected, &self.root).is_none()
            };
            return match target {
                Some(t) if protected.contains(&t) || judged_safe(&t) => None,
                Some(t) => Some(Quarantine {
                    path: found.to_path_buf(),
                    why: format!(
                        "{rel} leads to {}, neither a git folder protected at the start of the run nor a safe one in the project",
                        t.display()
                    ),
                }),
                None => Some(Quarantine {
                    path: found.to_path_buf(),
                    why: format!("{rel} is a .git file or link that does not lead to a git folder"),
                }),
            };
        }
        if !crate::gitdirs::is_git_directory(found) {
            return None;
        }
        let why = judge_git_dir(found, protected, &self.root).or_else(|| self.judge_pointers(found))?;
        let path = if is_dot_git { found.to_path_buf() } else { found.join("HEAD") };
        Some(Quarantine { path, why: format!("{rel}: {why}") })
    }
}

impl Watch {
    /// Why git must not use the new git folder `g` for what the user's own configuration points
    /// at from its work tree (a relative `core.hooksPath`, a program named by a relative path):
    /// the repository's own configuration is judged by [`judge_git_dir`].
    fn judge_pointers(&self, g: &Path) -> Option<String> {
        let repo = crate::pointers::Repo {
            git_dir: g.to_path_buf(),
            top: crate::pointers::top_of(g, self.home.as_deref()),
            placeholders: false,
        };
        for (p, kind) in crate::pointers::git_targets(&repo, &self.globals, self.home.as_deref()) {
            if !p.starts_with(&self.root) || !repo.top.starts_with(&self.root) {
                continue;
            }
            let hooks = |d: &Path| {
                std::fs::read_dir(d)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .any(|e| !e.file_name().to_string_lossy().ends_with(".sample"))
            };
            let there = match kind {
                crate::pointers::Kind::Folder => hooks(&p),
                crate::pointers::Kind::File => std::fs::symlink_metadata(&p).is_ok(),
            };
            if there {
                return Some(format!("git's configuration makes it run {} there", p.display()));
            }
        }
        None
    }
}

/// The fingerprint of what git's configuration for the candidate `found` points at.
fn pointer_print(found: &Path, globals: &[PathBuf], home: Option<&Path>) -> Print {
    let Some(g) = crate::gitdirs::repository_dir(found) else { return Vec::new() };
    let repo = crate::pointers::Repo { top: crate::pointers::top_of(&g, home), git_dir: g, placeholders: false };
    let mut paths = Vec::new();
    for (p, kind) in crate::pointers::git_targets(&repo, globals, home) {
        if kind == crate::pointers::Kind::Folder {
            for e in std::fs::read_dir(&p).into_iter().flatten().flatten() {
                paths.push(e.path());
            }
        }
        paths.push(p);
    }
    print_of(paths)
}

/// The fingerprint of these paths: each once, sorted, with its inode, length and content hash.
fn print_of(mut paths: Vec<PathBuf>) -> Print {
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .map(|p| {
            let (ino, len, hash) = id(&p);
            (p, ino, len, hash)
        })
        .collect()
}

/// Why git must not use the git folder `g` (`None`: only safe configuration and sample hooks).
/// Files inside git folders protected at start are not judged: the run could not change them.
/// `root`: the project; a `core.worktree` inside it (a submodule's git folder names its
/// checkout so) is no more than the sandbox could write anyway.
pub fn judge_git_dir(g: &Path, protected: &[PathBuf], root: &Path) -> Option<String> {
    let common = if std::fs::symlink_metadata(g.join("commondir")).is_ok() {
        match crate::gitdirs::common_dir(g) {
            Some(c) => c,
            None => return Some("its commondir leads nowhere".into()),
        }
    } else {
        g.to_path_buf()
    };
    let mine = |p: &Path| !protected.iter().any(|d| p.starts_with(d));
    for f in [common.join("config"), g.join("config"), g.join("config.worktree"), common.join("config.worktree")] {
        if !mine(&f) || std::fs::symlink_metadata(&f).is_err() {
            continue;
        }
        let text = match std::fs::read(&f) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => return Some(format!("{} cannot be read ({e})", f.display())),
        };
        let keys = match wicket_policy::gitconfig::parse_config(&text) {
            Ok(k) => k,
            Err(e) => return Some(format!("{} cannot be parsed as git config ({e})", name_in(&f, g))),
        };
        for k in &keys {
            if (k.section.as_str(), k.sub.as_deref(), k.var.as_str()) == ("core", None, "worktree") {
                let v = Path::new(k.value.as_deref().unwrap_or(""));
                let p = wicket_policy::paths::normalize(&g.join(v));
                if std::fs::canonicalize(&p).unwrap_or(p).starts_with(root) {
                    continue;
                }
            }
            if let Some(why) = wicket_policy::gitconfig::unsafe_config_key(k) {
                return Some(format!("{} sets {why}", name_in(&f, g)));
            }
        }
    }
    for d in [common.join("hooks"), g.join("hooks")] {
        if !mine(&d) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&d) else {
            if std::fs::symlink_metadata(&d).is_ok_and(|m| !m.is_dir()) {
                return Some(format!("{} is not a hooks folder", name_in(&d, g)));
            }
            continue;
        };
        for e in entries.flatten() {
            let n = e.file_name();
            if !n.to_string_lossy().ends_with(".sample") {
                return Some(format!("{}/{} is a hook", name_in(&d, g), n.to_string_lossy()));
            }
        }
    }
    for d in ["rebase-merge", "rebase-apply", "sequencer"] {
        for base in [g, common.as_path()] {
            let p = base.join(d);
            if mine(&p) && std::fs::symlink_metadata(&p).is_ok() {
                return Some(format!("{} holds steps the host's git would run", name_in(&p, g)));
            }
        }
    }
    None
}

/// `p` for a notice: relative to the git folder's parent where it is inside it.
fn name_in(p: &Path, g: &Path) -> String {
    let base = g.parent().unwrap_or(g);
    p.strip_prefix(base).unwrap_or(p).display().to_string()
}

/// Would git use `found` as a repository now: a `.git` file or link (git follows it, or stops
/// with an error), or a folder that is a git folder.
fn is_repository(found: &Path) -> bool {
    let named = found.file_name().is_some_and(|n| n == ".git");
    match std::fs::symlink_metadata(found) {
        Ok(m) if !m.is_dir() => named,
        Ok(_) => crate::gitdirs::is_git_directory(found),
        Err(_) => false,
    }
}

fn dir_entry_ino(e: &std::fs::DirEntry) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::DirEntryExt::ino(e)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        0
    }
}

/// Files bigger than this are fingerprinted by their length and first bytes only.
const HASHED: u64 = 1 << 20;

fn id(p: &Path) -> (u64, u64, u64) {
    use std::hash::{Hash, Hasher};
    let Ok(m) = std::fs::symlink_metadata(p) else { return (0, 0, 0) };
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let ino = 0;
    if m.is_dir() {
        return (ino, 0, 0);
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    if m.file_type().is_symlink() {
        std::fs::read_link(p).ok().hash(&mut h);
    } else {
        use std::io::Read;
        let mut bytes = Vec::new();
        let read = std::fs::File::open(p).and_then(|f| f.take(HASHED).read_to_end(&mut bytes));
        (read.is_ok(), bytes).hash(&mut h);
    }
    (ino, m.len(), h.finish())
}

/// Everything of a candidate git reads as configuration or code: the entry itself, its `HEAD`,
/// the entries of its git folder and common folder that are not data, and their hooks.
fn fingerprint(found: &Path) -> Print {
    let mut paths = vec![found.to_path_buf()];
    let mut dirs = Vec::new();
    if let Some(g) = crate::gitdirs::repository_dir(found) {
        if let Some(c) = crate::gitdirs::common_dir(&g) {
            dirs.push(c);
        }
        dirs.push(g);
    } else if std::fs::symlink_metadata(found).is_ok_and(|m| m.is_dir()) {
        dirs.push(found.to_path_buf());
    }
    for d in dirs {
        paths.push(d.clone());
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let n = e.file_name();
            if !crate::gitdirs::is_data(&n.to_string_lossy()) {
                paths.push(e.path());
            }
        }
        paths.push(d.join("hooks"));
        for e in std::fs::read_dir(d.join("hooks")).into_iter().flatten().flatten() {
            paths.push(e.path());
        }
        // The files its config includes, also where they are missing: one that appears (or
        // changes) changes what git runs as much as the config itself.
        let mut queue: Vec<(PathBuf, usize)> = vec![(d.join("config"), 0), (d.join("config.worktree"), 0)];
        while let Some((file, depth)) = queue.pop() {
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
            for inc in crate::gitdirs::include_paths(&text) {
                if inc.starts_with('~') {
                    continue;
                }
                let p = wicket_policy::paths::normalize(&dir.join(&inc));
                if depth < 10 && !paths.contains(&p) {
                    paths.push(p.clone());
                    queue.push((p, depth + 1));
                }
            }
        }
    }
    print_of(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    fn repo(g: &Path, config: &str) {
        for d in ["objects", "refs/heads", "hooks"] {
            std::fs::create_dir_all(g.join(d)).expect("mkdir");
        }
        write(&g.join("HEAD"), "ref: refs/heads/main\n");
        write(&g.join("config"), config);
        write(&g.join("hooks/pre-commit.sample"), "#!/bin/sh\n");
    }

    #[test]
    fn a_git_directory_is_what_git_accepts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let g = base.join("a");
        repo(&g, "");
        assert!(crate::gitdirs::is_git_directory(&g));
        // An object name as HEAD, sha1 and sha256.
        write(&g.join("HEAD"), &format!("{}\n", "a".repeat(40)));
        assert!(crate::gitdirs::is_git_directory(&g));
        write(&g.join("HEAD"), &"b".repeat(64));
        assert!(crate::gitdirs::is_git_directory(&g));
        for bad in ["", "ref: heads/main\n", "junk\n", &"a".repeat(39)] {
            write(&g.join("HEAD"), bad);
            assert!(!crate::gitdirs::is_git_directory(&g), "HEAD {bad:?}");
        }
        write(&g.join("HEAD"), "ref:\trefs/heads/x\n");
        assert!(crate::gitdirs::is_git_directory(&g));
        std::fs::remove_dir_all(g.join("refs")).expect("rm");
        assert!(!crate::gitdirs::is_git_directory(&g), "no refs");
        // A worktree's folder: HEAD here, objects and refs in the common folder.
        let w = base.join("w");
        write(&w.join("HEAD"), "ref: refs/heads/main\n");
        write(&w.join("commondir"), "../c\n");
        repo(&base.join("c"), "");
        assert!(crate::gitdirs::is_git_directory(&w));
        write(&w.join("commondir"), "../nowhere\n");
        assert!(!crate::gitdirs::is_git_directory(&w));
        // A gitfile, relative and absolute.
        write(&base.join("s/.git"), "gitdir: ../c\n");
        assert_eq!(crate::gitdirs::repository_dir(&base.join("s/.git")), Some(base.join("c")));
        write(&base.join("s/.git"), &format!("gitdir: {}\n", base.join("a").display()));
        assert_eq!(crate::gitdirs::repository_dir(&base.join("s/.git")), Some(base.join("a")));
        write(&base.join("s/.git"), "nothing\n");
        assert_eq!(crate::gitdirs::repository_dir(&base.join("s/.git")), None);
    }

    #[test]
    fn a_git_folder_is_judged_by_its_config_hooks_and_steps() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let g = base.join("r/.git");
        let clone = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote \"origin\"]\n\turl = /src/x\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n[user]\n\temail = a@b\n";
        repo(&g, clone);
        assert_eq!(judge_git_dir(&g, &[], &base), None);
        // A submodule's `core.worktree`: inside the project it is its checkout; outside, git
        // would check files out there.
        write(&g.join("config.worktree"), "[core]\n\tworktree = ../../r\n");
        assert_eq!(judge_git_dir(&g, &[], &base), None);
        write(&g.join("config.worktree"), "[core]\n\tworktree = /\n");
        assert!(judge_git_dir(&g, &[], &base).is_some_and(|w| w.contains("core.worktree")));
        write(&g.join("config.worktree"), "[core]\n\tfsmonitor = ./x\n");
        assert!(judge_git_dir(&g, &[], &base).is_some_and(|w| w.contains("core.fsmonitor")));
        std::fs::remove_file(g.join("config.worktree")).expect("rm");
        write(&g.join("hooks/post-checkout"), "#!/bin/sh\n");
        assert!(judge_git_dir(&g, &[], &base).is_some_and(|w| w.contains("post-checkout")));
        std::fs::remove_file(g.join("hooks/post-checkout")).expect("rm");
        std::fs::create_dir_all(g.join("rebase-merge")).expect("mkdir");
        assert!(judge_git_dir(&g, &[], &base).is_some());
        std::fs::remove_dir(g.join("rebase-merge")).expect("rm");
        // A commondir elsewhere: its config counts, unless it is a protected git folder.
        let c = base.join("common");
        repo(&c, "[alias]\n\tx = !touch y\n");
        write(&g.join("commondir"), &format!("{}\n", c.display()));
        assert!(judge_git_dir(&g, &[], &base).is_some_and(|w| w.contains("alias.x")));
        assert_eq!(judge_git_dir(&g, std::slice::from_ref(&c), &base), None);
        write(&g.join("config"), "[core\n");
        assert!(
            judge_git_dir(&g, std::slice::from_ref(&c), &base).is_some_and(|w| w.contains("parsed")),
            "fail closed"
        );
    }

    #[test]
    fn the_check_after_the_run_finds_new_and_changed_repositories() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("real");
        repo(&root.join("vendor/x/.git"), "[core]\n\tbare = false\n");
        repo(&root.join("almost"), "");
        write(&root.join("almost/HEAD"), "junk\n");
        let found = vec![root.join("vendor/x/.git"), root.join("almost")];
        let protected = vec![root.join("vendor/x/.git")];
        let w = Watch::new(&root, None, &found, protected, vec![], vec![], None);
        let c = w.after_run();
        assert_eq!((c.quarantine, c.complete), (vec![], true), "nothing changed");
        // New: a repository with fsmonitor, a safe one, a bare one with a pager, a `.git`
        // file into a folder the run wrote, and one into the protected folder.
        repo(&root.join("a/b/sub/.git"), "[core]\n\tfsmonitor = \"touch /tmp/x\"\n");
        repo(&root.join("safe/.git"), "[core]\n\tbare = false\n");
        repo(&root.join("bare"), "[core]\n\tpager = less; touch x\n");
        repo(&root.join("store"), "");
        write(&root.join("store/hooks/post-checkout"), "#!/bin/sh\n");
        write(&root.join("gf/.git"), "gitdir: ../store\n");
        write(&root.join("gf2/.git"), "gitdir: ../safe/.git\n");
        write(&root.join("gf3/.git"), "gitdir: ../nowhere\n");
        write(&root.join("ok/.git"), "gitdir: ../vendor/x/.git\n");
        // The almost-repository becomes one by a write in place.
        std::fs::write(root.join("almost/config"), "[core]\n\tsshcommand = x\n").expect("write");
        std::fs::write(root.join("almost/HEAD"), "ref: refs/heads/main\n").expect("write");
        let Checked { quarantine: q, complete, .. } = w.after_run();
        assert!(complete);
        let mut paths: Vec<PathBuf> = q.iter().map(|q| q.path.clone()).collect();
        paths.sort();
        let mut want = vec![
            root.join("a/b/sub/.git"),
            root.join("bare/HEAD"),
            root.join("gf/.git"),
            root.join("gf3/.git"),
            root.join("store/HEAD"),
            root.join("almost/HEAD"),
        ];
        want.sort();
        assert_eq!(paths, want, "{q:#?}");
        // A known repository: everyday data changes nothing; its config changed in place (as
        // the fallback lets a command do) is judged, its own folder not counted as protected.
        let x = root.join("vendor/x/.git");
        std::fs::write(x.join("index"), "data").expect("write");
        std::fs::write(x.join("HEAD"), "ref: refs/heads/other\n").expect("write");
        let q = w.after_run().quarantine;
        assert!(!q.iter().any(|q| q.path == x), "{q:#?}");
        std::fs::write(x.join("config"), "[core]\n\tfsmonitor = ./evil\n").expect("write");
        let q = w.after_run().quarantine;
        assert!(q.iter().any(|q| q.path == x && q.why.contains("core.fsmonitor")), "{q:#?}");
        // A known repository whose config includes a file that is missing at start: the file
        // appearing later is a change too.
        let y = root.join("vendor/y/.git");
        repo(&y, "[include]\n\tpath = ../inc.cfg\n");
        let w = Watch::new(&root, None, std::slice::from_ref(&y), vec![y.clone()], vec![], vec![], None);
        assert!(!w.after_run().quarantine.iter().any(|q| q.path == y));
        write(&root.join("vendor/y/inc.cfg"), "[core]\n\tfsmonitor = ./evil\n");
        assert!(w.after_run().quarantine.iter().any(|q| q.path == y), "the included file appeared");
    }
}
