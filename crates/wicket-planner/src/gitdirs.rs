//! Git's view of the project: which files make git run code or look elsewhere.
//!
//! The hard question: after a sandboxed command, can the host's next `git` run code the command
//! chose? Git follows more than `.git/config` and `.git/hooks`: a `.git` *file* (`gitdir: …`)
//! moves the repository; `commondir` moves the shared half of it; `config.worktree`, the files
//! `include.path`/`includeIf` name, `info/`, and every submodule's and worktree's own folder
//! under `modules/` and `worktrees/` are read as configuration. So, per git folder, everything
//! is read-only except the data git writes in everyday work (objects, refs, logs, the index,
//! `HEAD` and its siblings); `modules/` and `worktrees/` are read-only themselves and each git
//! folder in them gets the same rule; the git folder is bound on itself so it cannot be renamed
//! or replaced; a project without `.git` gets an empty `.git` folder (git skips a `.git` folder
//! that is not a repository, exactly as if there were none). `commondir` cannot have a
//! placeholder (git refuses an empty one), so where it is missing it must not appear: it is
//! removed after the run. This module only computes the view; the sandbox enforces it.

use std::path::{Path, PathBuf};

/// Entries of a git folder that git writes during everyday work (`add`, `commit`, `stash`,
/// `branch`, `merge`, `bisect`) and never reads as configuration or code. Everything else in a
/// git folder is read-only in the sandbox. Not here on purpose: `rebase-merge`/`rebase-apply`
/// (their todo list holds `exec` lines that `git rebase --continue` runs) and `sequencer`
/// (`opts` names a merge strategy program).
pub const GIT_DATA: &[&str] = &[
    "objects",
    "refs",
    "logs",
    "index",
    "HEAD",
    "ORIG_HEAD",
    "FETCH_HEAD",
    "MERGE_HEAD",
    "MERGE_MSG",
    "MERGE_MODE",
    "MERGE_AUTOSTASH",
    "MERGE_RR",
    "AUTO_MERGE",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "REBASE_HEAD",
    "COMMIT_EDITMSG",
    "TAG_EDITMSG",
    "SQUASH_MSG",
    "NOTES_MERGE_PARTIAL",
    "NOTES_MERGE_REF",
    "NOTES_MERGE_WORKTREE",
    "BISECT_LOG",
    "BISECT_START",
    "BISECT_TERMS",
    "BISECT_NAMES",
    "BISECT_EXPECTED_REV",
    "BISECT_ANCESTORS_OK",
    "BISECT_FIRST_PARENT",
    "BISECT_HEAD",
    "packed-refs",
    "shallow",
    "description",
    "rr-cache",
    "gitk.cache",
    "lfs",
];

/// Missing entries of a git folder that get an empty placeholder (git treats an empty one as
/// it treats a missing one), with whether each is a folder.
const GIT_PLACEHOLDERS: &[(&str, bool)] = &[
    ("config", false),
    ("config.worktree", false),
    ("hooks", true),
    ("info", true),
    ("modules", true),
    ("worktrees", true),
];

/// How deep submodules in submodules are followed.
const MAX_DEPTH: usize = 8;

/// What the sandbox must do for git.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitView {
    /// Git folders, bound writable on themselves.
    pub git_dirs: Vec<PathBuf>,
    /// Read-only paths, with whether each is a folder.
    pub read_only: Vec<(PathBuf, bool)>,
    /// Paths that get a placeholder for the run when missing (also in `read_only`).
    pub placeholders: Vec<PathBuf>,
    /// Missing paths that must not appear.
    pub must_not_appear: Vec<PathBuf>,
}

impl GitView {
    fn ro(&mut self, p: PathBuf, dir: bool) {
        if !self.read_only.iter().any(|(q, _)| *q == p) {
            self.read_only.push((p, dir));
        }
    }

    fn placeholder(&mut self, p: PathBuf, dir: bool) {
        if !self.placeholders.contains(&p) {
            self.placeholders.push(p.clone());
        }
        self.ro(p, dir);
    }
}

/// Fill `view` for the project at `root` (a real path); `writable` are the paths the command
/// may write (a missing config include there gets a placeholder too).
pub fn protect(root: &Path, home: Option<&Path>, writable: &[PathBuf], view: &mut GitView) {
    let dot_git = root.join(".git");
    let Ok(meta) = std::fs::symlink_metadata(&dot_git) else {
        // No repository: an empty `.git` folder for the run, which git skips as not a
        // repository, so none can be made that the host would honour.
        view.placeholder(dot_git, true);
        config_scopes(home, None, writable, view);
        return;
    };
    let mut configs = Vec::new();
    if meta.is_file() {
        // A linked worktree or a submodule's checkout: the file names the git folder.
        view.ro(dot_git.clone(), false);
        if let Some(g) = read_gitfile(&dot_git) {
            git_dir(&g, view, 0, &mut configs, true);
            if let Some(common) = common_dir(&g) {
                git_dir(&common, view, 0, &mut configs, true);
            }
        }
    } else if let Ok(real) = std::fs::canonicalize(&dot_git) {
        // A `.git` link: its target is protected like a `.git` folder (a mount cannot cover
        // the link itself, see the known limits in docs/sandbox.md).
        if real.is_dir() {
            git_dir(&real, view, 0, &mut configs, true);
            if let Some(common) = common_dir(&real) {
                git_dir(&common, view, 0, &mut configs, true);
            }
        }
    }
    config_scopes(home, Some(&configs), writable, view);
}

/// Protect a repository found below the root at start (see [`crate::nested_git`]): `found` is
/// a `.git` folder, file or link, or a folder that is itself a git folder. Its git folder (and
/// common folder) get the root's rule, but only where they lie inside `inside` (a git folder
/// elsewhere is not writable anyway, and binding it would make it so), and without
/// placeholders: what is missing and appears during the run is found by the check after it.
/// The files its configuration includes that exist are read-only too. Returns the git folders
/// protected.
pub fn protect_nested(found: &Path, inside: &[PathBuf], view: &mut GitView) -> Vec<PathBuf> {
    let Some(g) = repository_dir(found) else { return Vec::new() };
    if std::fs::symlink_metadata(found).is_ok_and(|m| !m.is_dir()) && inside.iter().any(|w| found.starts_with(w)) {
        // A `.git` file or link: pinned read-only, so it cannot be re-pointed.
        view.ro(found.to_path_buf(), false);
    }
    let mut configs = Vec::new();
    let mut dirs = vec![g.clone()];
    if let Some(common) = common_dir(&g) {
        dirs.push(common);
    }
    let before = view.git_dirs.len();
    for d in dirs {
        if inside.iter().any(|w| d.starts_with(w)) {
            git_dir(&d, view, 0, &mut configs, false);
        }
    }
    let mut queue: Vec<(PathBuf, usize)> = configs.into_iter().map(|c| (c, 0)).collect();
    while let Some((file, depth)) = queue.pop() {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
        for inc in include_paths(&text) {
            let p = wicket_policy::paths::normalize(&if Path::new(&inc).is_absolute() {
                PathBuf::from(&inc)
            } else {
                base.join(&inc)
            });
            if depth < 10 && std::fs::symlink_metadata(&p).is_ok() && inside.iter().any(|w| p.starts_with(w)) {
                view.ro(p.clone(), p.is_dir());
                queue.push((p, depth + 1));
            }
        }
    }
    view.git_dirs[before..].to_vec()
}

/// The git folder git would use for a repository found at `found` (a `.git` folder, a `.git`
/// file or link, or a folder that is a git folder itself), as a real path.
pub fn repository_dir(found: &Path) -> Option<PathBuf> {
    let meta = std::fs::symlink_metadata(found).ok()?;
    if meta.is_file() {
        read_gitfile(found)
    } else {
        crate::exec::real(found).filter(|p| p.is_dir())
    }
}

/// Is `dir` a git folder, by git's own test (`is_git_directory` in setup.c): a valid `HEAD`,
/// and an `objects` and a `refs` folder in it, or in the folder its `commondir` names. A bare
/// repository, and a `.git` folder, pass; an empty or half-made folder does not (git then looks
/// further up, as if it were not there).
pub fn is_git_directory(dir: &Path) -> bool {
    if !valid_head(&dir.join("HEAD")) {
        return false;
    }
    let common = if dir.join("commondir").exists() {
        match common_dir(dir) {
            Some(c) => c,
            None => return false,
        }
    } else {
        dir.to_path_buf()
    };
    // Git asks `access(X_OK)`: any entry it may search counts, a folder or a link to one.
    ["objects", "refs"].iter().all(|d| common.join(d).is_dir())
}

/// A `HEAD` git accepts (`validate_headref`): a link into `refs/`, a file `ref: refs/…`, or a
/// file holding an object name.
fn valid_head(head: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(head) else { return false };
    if meta.file_type().is_symlink() {
        return std::fs::read_link(head).is_ok_and(|t| t.starts_with("refs/"));
    }
    let Ok(bytes) = std::fs::read(head) else { return false };
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(256)]).into_owned();
    if let Some(rest) = text.strip_prefix("ref:") {
        return rest.trim_start().starts_with("refs/");
    }
    let hex = text.trim_end_matches(['\n', '\r']);
    let hex: &str = hex.get(..64).or_else(|| hex.get(..40)).unwrap_or("");
    (hex.len() == 40 || hex.len() == 64) && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The rule for one git folder: bound on itself, everything but data read-only, submodule and
/// worktree folders in it treated alike.
fn git_dir(g: &Path, view: &mut GitView, depth: usize, configs: &mut Vec<PathBuf>, placeholders: bool) {
    let Some(g) = crate::exec::real(g) else { return };
    if depth > MAX_DEPTH || view.git_dirs.contains(&g) {
        return;
    }
    view.git_dirs.push(g.clone());
    let Ok(entries) = std::fs::read_dir(&g) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if is_data(&name) {
            continue;
        }
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        view.ro(e.path(), is_dir);
        if is_dir && (name == "modules" || name == "worktrees") {
            nested(&e.path(), view, depth + 1, configs, placeholders);
        }
    }
    configs.push(g.join("config"));
    configs.push(g.join("config.worktree"));
    if !placeholders {
        return;
    }
    // Listed whether or not they exist now: one that exists may be another run's placeholder,
    // and this run must own its share of it (the last run out removes only what it lists).
    for (name, dir) in GIT_PLACEHOLDERS {
        view.placeholder(g.join(name), *dir);
    }
    let commondir = g.join("commondir");
    if std::fs::symlink_metadata(&commondir).is_err() && !view.must_not_appear.contains(&commondir) {
        view.must_not_appear.push(commondir);
    }
}

/// Git folders below `modules/` or `worktrees/` (a submodule named `a/b` lives in
/// `modules/a/b`): a folder with `HEAD` is a git folder; others are searched further.
fn nested(dir: &Path, view: &mut GitView, depth: usize, configs: &mut Vec<PathBuf>, placeholders: bool) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        if !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let p = e.path();
        if p.join("HEAD").exists() || p.join("commondir").exists() {
            git_dir(&p, view, depth, configs, placeholders);
        } else {
            nested(&p, view, depth + 1, configs, placeholders);
        }
    }
}

/// An entry git writes in everyday work (see [`GIT_DATA`]).
pub fn is_data(name: &str) -> bool {
    GIT_DATA.contains(&name) || name.ends_with(".lock") || name.starts_with("sharedindex.")
}

/// The git folder a `.git` file names (`gitdir: PATH`, relative to the file's folder), as git's
/// `read_gitfile` reads it.
pub fn read_gitfile(file: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(file).ok()?;
    let target = text.strip_prefix("gitdir:")?.trim_end_matches(['\n', '\r']).trim_start();
    let base = file.parent()?;
    let p = Path::new(target);
    std::fs::canonicalize(if p.is_absolute() { p.to_path_buf() } else { base.join(p) }).ok()
}

/// The common folder `commondir` names (relative to the git folder), as git's
/// `get_common_dir_noenv` reads it.
pub fn common_dir(g: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(g.join("commondir")).ok()?;
    let t = text.trim_end_matches(['\n', '\r']);
    if t.is_empty() {
        return None;
    }
    let p = Path::new(t);
    std::fs::canonicalize(if p.is_absolute() { p.to_path_buf() } else { g.join(p) }).ok()
}

/// Every config file git reads for this repository (system, global, the repository's own),
/// followed through `include.path` and `includeIf.*.path`: an included file that exists is
/// read-only; a missing one gets an empty placeholder (git skips a missing include, so
/// otherwise a command could create it). Only files that could be written matter; the rest of
/// the disk is read-only anyway, so placeholders are made only inside git folders and
/// writable paths.
fn config_scopes(home: Option<&Path>, repo: Option<&[PathBuf]>, writable: &[PathBuf], view: &mut GitView) {
    let mut queue: Vec<(PathBuf, usize)> = Vec::new();
    queue.push((PathBuf::from("/etc/gitconfig"), 0));
    if let Some(h) = home {
        queue.push((h.join(".gitconfig"), 0));
        queue.push((h.join(".config/git/config"), 0));
    }
    for c in repo.unwrap_or(&[]) {
        queue.push((c.clone(), 0));
    }
    let mut seen: Vec<PathBuf> = Vec::new();
    while let Some((file, depth)) = queue.pop() {
        if depth > 10 || seen.contains(&file) {
            continue;
        }
        seen.push(file.clone());
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
        for inc in include_paths(&text) {
            let p = match inc.strip_prefix("~/") {
                Some(rest) => match home {
                    Some(h) => h.join(rest),
                    None => continue,
                },
                None if Path::new(&inc).is_absolute() => PathBuf::from(&inc),
                None => base.join(&inc),
            };
            let p = wicket_policy::paths::normalize(&p);
            let inside_git =
                view.git_dirs.iter().any(|g| p.starts_with(g)) || writable.iter().any(|w| p.starts_with(w));
            if std::fs::symlink_metadata(&p).is_ok() {
                view.ro(p.clone(), p.is_dir());
                queue.push((p, depth + 1));
            } else if inside_git {
                // The first missing step gets the placeholder: a folder on the way is as
                // creatable as the file itself.
                let mut first = p.clone();
                while let Some(parent) = first.parent() {
                    if std::fs::symlink_metadata(parent).is_ok() {
                        break;
                    }
                    first = parent.to_path_buf();
                }
                let dir = first != p;
                view.placeholder(first, dir);
            }
        }
    }
}

/// The `path` values of `[include]` and `[includeIf "…"]` sections, in git's config syntax
/// (section names case-insensitive, values optionally quoted, `;`/`#` comments).
pub fn include_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_include = false;
    for line in text.lines() {
        let mut l = line.trim();
        if let Some(rest) = l.strip_prefix('[') {
            let Some(end) = rest.find(']') else { continue };
            let section = rest[..end].trim().to_ascii_lowercase();
            let name = section.split(|c: char| c.is_whitespace() || c == '"' || c == '.').next().unwrap_or("");
            in_include = name == "include" || name == "includeif";
            l = rest[end + 1..].trim();
            if l.is_empty() {
                continue;
            }
        }
        if !in_include {
            continue;
        }
        let Some((key, value)) = l.split_once('=') else { continue };
        if !key.trim().eq_ignore_ascii_case("path") {
            continue;
        }
        let mut v = value.trim();
        if let Some(q) = v.strip_prefix('"') {
            v = q.split('"').next().unwrap_or("");
        } else if let Some(i) = v.find([';', '#']) {
            v = v[..i].trim();
        }
        if !v.is_empty() {
            out.push(v.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_paths_follow_gits_syntax() {
        let text = "[core]\n\tpath = no\n[include]\n\tpath = a.inc\n[IncludeIf \"gitdir:~/w/\"]\n  PATH = \"b c.inc\" ; x\n[user]\n path = no2\n[include] path = d.inc # c\n";
        assert_eq!(include_paths(text), vec!["a.inc", "b c.inc", "d.inc"]);
    }

    #[test]
    fn a_git_folder_is_read_only_but_for_its_data() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("real");
        let g = root.join(".git");
        for d in ["objects", "refs/heads", "hooks", "modules/sub/objects", "modules/a/b/refs"] {
            std::fs::create_dir_all(g.join(d)).expect("mkdir");
        }
        for (f, t) in [
            ("config", "[include]\n path = extra.inc\n"),
            ("HEAD", "ref: refs/heads/main\n"),
            ("index", ""),
            ("mystery", ""),
            ("modules/sub/HEAD", ""),
            ("modules/sub/config", ""),
            ("modules/a/b/HEAD", ""),
        ] {
            std::fs::write(g.join(f), t).expect("write");
        }
        let mut v = GitView::default();
        protect(&root, None, &[], &mut v);
        let ro = |p: &str| v.read_only.iter().any(|(q, _)| *q == g.join(p));
        for p in ["config", "hooks", "mystery", "modules", "modules/sub/config", "info", "extra.inc", "commondir"] {
            if p == "commondir" {
                assert!(v.must_not_appear.contains(&g.join(p)) && !ro(p));
            } else {
                assert!(ro(p), "{p} must be read-only: {v:?}");
            }
        }
        for p in ["objects", "refs", "HEAD", "index", "modules/sub/objects"] {
            assert!(!ro(p), "{p} must stay writable");
        }
        assert!(v.placeholders.contains(&g.join("extra.inc")) && v.placeholders.contains(&g.join("info")));
        assert!(v.git_dirs.contains(&g) && v.git_dirs.contains(&g.join("modules/sub")));
        assert!(v.git_dirs.contains(&g.join("modules/a/b")), "a submodule named a/b");
    }

    #[test]
    fn a_git_file_leads_to_its_folder_and_common_folder() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let main = base.join("main/.git");
        let wt = main.join("worktrees/w1");
        std::fs::create_dir_all(&wt).expect("mkdir");
        std::fs::create_dir_all(main.join("hooks")).expect("mkdir");
        std::fs::write(wt.join("commondir"), "../..\n").expect("write");
        std::fs::write(wt.join("HEAD"), "").expect("write");
        let root = base.join("w1");
        std::fs::create_dir_all(&root).expect("mkdir");
        std::fs::write(root.join(".git"), format!("gitdir: {}\n", wt.display())).expect("write");
        let mut v = GitView::default();
        protect(&root, None, &[], &mut v);
        assert!(v.git_dirs.contains(&wt) && v.git_dirs.contains(&main), "{v:?}");
        assert!(v.read_only.contains(&(root.join(".git"), false)));
        assert!(v.read_only.contains(&(wt.join("commondir"), false)));
        assert!(v.read_only.contains(&(main.join("hooks"), true)));
        // No repository at all: an empty `.git` for the run.
        let bare = base.join("plain");
        std::fs::create_dir_all(&bare).expect("mkdir");
        let mut v = GitView::default();
        protect(&bare, None, &[], &mut v);
        assert_eq!(v.placeholders, vec![bare.join(".git")]);
    }
}
