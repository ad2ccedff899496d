//! New names at the project's top level that run code somewhere: held for a person after a
//! sandboxed run, never left in the project.
//!
//! The hard question: which new file or folder at the root would make some program run code at
//! the person's next ordinary step? Every agent, editor, CI system and hook manager reads its own
//! dot-name (`.qwen/`, `.windsurf/`, `.husky/`, `.envrc`) or a known name (`Jenkinsfile`,
//! `opencode.json`, `Makefile`), and new ones appear every month. So a **new dot-name** is held
//! unless a data list ([`HARMLESS_NEW`], a reason each: caches, build output, ignore files) calls
//! it harmless, and a new name the gate's code-running list names (`CODE_CONFIG`) is held too.
//! [`TopLevel::snapshot`] records the root's names when the exec policy is built;
//! [`TopLevel::to_hold`] lists what the run added that must be held. The front end moves them
//! into a staged change (`wicket staged`), which a person can look at and apply.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// New dot-names at the root that hold only data a tool rebuilds, with why each is harmless.
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

/// The root's names when the exec policy was built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopLevel {
    root: PathBuf,
    names: HashSet<OsString>,
}

impl TopLevel {
    /// Record the root's names now; `None` when the root cannot be listed (nothing is then
    /// held, and the walk already hides what it cannot read).
    pub fn snapshot(root: &Path) -> Option<TopLevel> {
        let names = std::fs::read_dir(root).ok()?.flatten().map(|e| e.file_name()).collect();
        Some(TopLevel { root: root.to_path_buf(), names })
    }

    /// The new names at the root that must be held, sorted. `wicket_made`: paths wicket itself
    /// makes for runs (the placeholders, which any run of the project may have made meanwhile,
    /// and the paths removed after a run if they appear): never held.
    pub fn to_hold(&self, wicket_made: &[PathBuf]) -> Vec<PathBuf> {
        let new = self.new_names().into_iter().filter(|p| !is_git(p) && !wicket_made.contains(p));
        match wicket_policy::lists::BuiltinLists::new() {
            Ok(lists) => new.filter(|p| must_hold(p, &lists)).collect(),
            // Without the lists nothing can be judged: every new name is held.
            Err(_) => new.collect(),
        }
    }

    fn new_names(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::fs::read_dir(&self.root)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| !self.names.contains(&e.file_name()))
            .map(|e| e.path())
            .collect();
        out.sort();
        out
    }
}

/// A new `.git` is judged by the check for new repositories (see [`crate::nested_git`]).
fn is_git(p: &Path) -> bool {
    p.file_name().is_some_and(|n| n == ".git")
}

/// Does the new entry `p` at the root run code somewhere?
fn must_hold(p: &Path, lists: &wicket_policy::lists::BuiltinLists) -> bool {
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
    let abs = p.to_string_lossy();
    lists.classify(&abs).config.is_some() || lists.classify(&format!("{abs}/x")).config.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_dot_names_and_code_config_are_held_caches_and_data_are_not() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        std::fs::write(root.join("README.md"), "x").unwrap();
        std::fs::create_dir(root.join(".vscode")).unwrap();
        let top = TopLevel::snapshot(&root).unwrap();
        for dir in
            [".qwen", ".someagent-from-2027", ".pytest_cache", "target", "node_modules", ".git", ".venv", ".claude"]
        {
            std::fs::create_dir(root.join(dir)).unwrap();
        }
        for file in ["Jenkinsfile", "opencode.json", ".gitlab-ci.yml", ".envrc", "notes.txt", ".gitignore", "Makefile"]
        {
            std::fs::write(root.join(file), "x").unwrap();
        }
        let held: Vec<String> = top
            .to_hold(&[root.join(".claude")])
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            held,
            vec![
                ".envrc",
                ".gitlab-ci.yml",
                ".qwen",
                ".someagent-from-2027",
                "Jenkinsfile",
                "Makefile",
                "opencode.json"
            ]
        );
    }
}
