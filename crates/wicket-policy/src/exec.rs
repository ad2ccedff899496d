//! The exec policy: what a sandboxed command may read, write and reach.
//!
//! The hard question: which paths can a command change, and which must it never see? Writes
//! go only to the project, the temp folders and package caches; inside the project, the files
//! that run code later (git hooks and config, wicket's own settings, editor and agent config)
//! stay read-only, even when they do not exist yet; the person's secrets are unreadable; the
//! network is off; the environment is a short list. This module only computes the policy; the
//! `wicket-sandbox` crate enforces it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::mode::Mode;

/// Variables passed to every command; everything else (API keys included) stays out.
pub const ENV_ALLOW: &[&str] =
    &["PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"];

/// The output cap per stream, head and tail kept.
pub const OUTPUT_CAP: usize = 30_000;

/// Package caches below the home folder that commands may write.
pub const HOME_CACHES: &[&str] = &[
    ".cache",
    ".npm",
    ".local/share/pnpm",
    ".yarn/berry/cache",
    ".cargo/registry",
    ".cargo/git",
    ".m2/repository",
    ".gradle/caches",
    "go/pkg/mod",
    "Library/Caches",
    "Library/pnpm",
];

/// Secrets below the home folder that commands may not read.
pub const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".pgpass",
    ".vault-token",
    ".password-store",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    "Library/Keychains",
    ".claude.json",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".wicket",
];

/// Paths inside the root that stay read-only for sandboxed commands: they run or apply later,
/// outside the sandbox. `true` marks a folder, `false` a file (for placeholders).
pub const ROOT_READ_ONLY: &[(&str, bool)] = &[
    (".git/hooks", true),
    (".git/config", false),
    (".git/info/attributes", false),
    (".wicket", true),
    (".vscode", true),
    (".idea", true),
    (".zed", true),
    (".github", true),
    (".gitlab-ci.yml", false),
    (".circleci", true),
    (".husky", true),
    (".githooks", true),
    (".gitattributes", false),
    (".gitmodules", false),
    (".pre-commit-config.yaml", false),
    (".envrc", false),
    (".mcp.json", false),
    (".claude", true),
    (".cursor", true),
    (".cursorrules", false),
    (".gemini", true),
    (".codex", true),
    (".roo", true),
    (".roomodes", false),
    (".gbs", true),
    (".windsurf", true),
    (".windsurfrules", false),
    (".clinerules", false),
    (".continue", true),
    (".amazonq", true),
    ("AGENTS.md", false),
    ("CLAUDE.md", false),
    ("GEMINI.md", false),
];

/// Of [`ROOT_READ_ONLY`], the paths that must stay uncreatable when they do not exist: a
/// sandbox can only protect a path that exists, so these get an empty placeholder for the run.
pub const ROOT_PLACEHOLDERS: &[&str] =
    &[".git/hooks", ".wicket", ".mcp.json", ".vscode", ".claude", ".cursor", ".gemini", ".codex"];

/// What a sandboxed command may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecPolicy {
    /// The project root (real path); the command's working folder.
    pub root: PathBuf,
    /// Folders and files the command may write (real paths that exist).
    pub writable: Vec<PathBuf>,
    /// Paths inside writable ones that stay read-only, with whether each is a folder.
    pub read_only: Vec<(PathBuf, bool)>,
    /// Of `read_only`, those that must exist during the run (a placeholder is made if missing).
    pub placeholders: Vec<PathBuf>,
    /// Paths the command may not read (folders are hidden, files read as empty).
    pub unreadable: Vec<PathBuf>,
    /// Network access (off: only the allowlist proxy, when one runs).
    pub network: bool,
    /// Variable names passed through.
    pub env_allow: Vec<String>,
    /// Kill the command after this long.
    pub timeout: Option<Duration>,
    /// Bytes kept per output stream.
    pub output_cap: usize,
}

/// What the exec policy is built from.
#[derive(Debug, Clone, Default)]
pub struct ExecInputs {
    /// The project root.
    pub root: PathBuf,
    /// The home folder.
    pub home: Option<PathBuf>,
    /// The mode (plan makes the root read-only).
    pub mode: Mode,
    /// `sandbox.writePaths` (`~/` is the home; relative paths start at the root).
    pub write_paths: Vec<String>,
    /// `sandbox.denyRead`.
    pub deny_read: Vec<String>,
    /// `env.allow`.
    pub env_allow: Vec<String>,
    /// The timeout.
    pub timeout: Option<Duration>,
}

fn place(p: &str, root: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let expanded = crate::paths::expand_tilde(p, home).ok()?;
    Some(crate::paths::normalize(&if expanded.is_absolute() { expanded } else { root.join(expanded) }))
}

/// The real path of an existing path, else `None`.
fn real(p: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(p).ok()
}

fn push_unique(v: &mut Vec<PathBuf>, p: PathBuf) {
    if !v.contains(&p) {
        v.push(p);
    }
}

/// Build the exec policy.
pub fn exec_policy(i: &ExecInputs) -> ExecPolicy {
    let root = real(&i.root).unwrap_or_else(|| crate::paths::normalize(&i.root));
    let home = i.home.as_deref();
    let mut writable = Vec::new();
    if i.mode != Mode::Plan {
        push_unique(&mut writable, root.clone());
    }
    for t in [std::env::temp_dir(), PathBuf::from("/tmp"), PathBuf::from("/var/tmp")] {
        if let Some(r) = real(&t) {
            push_unique(&mut writable, r);
        }
    }
    if let Some(h) = home {
        for c in HOME_CACHES {
            if let Some(r) = real(&h.join(c)) {
                push_unique(&mut writable, r);
            }
        }
    }
    for p in &i.write_paths {
        if let Some(r) = place(p, &root, home).and_then(|p| real(&p)) {
            push_unique(&mut writable, r);
        }
    }
    let mut read_only = Vec::new();
    let mut placeholders = Vec::new();
    if i.mode == Mode::Plan {
        // The root stays readable and unwritable even inside a writable temp folder.
        read_only.push((root.clone(), true));
    }
    for (rel, dir) in ROOT_READ_ONLY {
        let p = root.join(rel);
        // `.git/...` only matters in a repository.
        if rel.starts_with(".git/") && !root.join(".git").is_dir() {
            continue;
        }
        if p.exists() || ROOT_PLACEHOLDERS.contains(rel) {
            if !p.exists() {
                placeholders.push(p.clone());
            }
            read_only.push((p, *dir));
        }
    }
    let mut unreadable = Vec::new();
    if let Some(h) = home {
        for s in HOME_SECRETS {
            push_unique(&mut unreadable, h.join(s));
        }
    }
    for p in &i.deny_read {
        if let Some(p) = place(p, &root, home) {
            push_unique(&mut unreadable, p);
        }
    }
    let mut env_allow: Vec<String> = ENV_ALLOW.iter().map(|s| s.to_string()).collect();
    for v in &i.env_allow {
        if !env_allow.contains(v) {
            env_allow.push(v.clone());
        }
    }
    ExecPolicy {
        root,
        writable,
        read_only,
        placeholders,
        unreadable,
        network: false,
        env_allow,
        timeout: i.timeout,
        output_cap: OUTPUT_CAP,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_mode_makes_the_root_read_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("real");
        let p = exec_policy(&ExecInputs { root: root.clone(), mode: Mode::Plan, ..Default::default() });
        assert!(!p.writable.contains(&root) || p.read_only.iter().any(|(r, _)| *r == root));
        let p = exec_policy(&ExecInputs { root: root.clone(), ..Default::default() });
        assert!(p.writable.contains(&root));
        assert!(p.read_only.iter().any(|(r, _)| r.ends_with(".mcp.json")));
        assert!(p.placeholders.iter().any(|r| r.ends_with(".mcp.json")), "a missing .mcp.json gets a placeholder");
    }
}
