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
    /// Paths that must not appear during the run (git would follow them on the host, and an
    /// empty placeholder would break git): removed after the run if they did.
    pub must_not_appear: Vec<PathBuf>,
    /// Git folders (the repository's `.git`, its submodules' and worktrees' folders, the target
    /// of a `.git` file and its common folder): each is bound on itself, so it cannot be
    /// renamed or replaced, and writable (objects, refs, index, logs), with everything in it
    /// that makes git run code or look elsewhere read-only on top (in `read_only`).
    pub git_dirs: Vec<PathBuf>,
    /// Wicket's state folder, where concurrent runs of a project share their placeholders.
    pub state_dir: Option<PathBuf>,
    /// Of `writable`, the temp folders: under bubblewrap each gets a fresh, private tmpfs for
    /// the run instead of the host's folder (a temp folder inside the root or another writable
    /// path is simply part of that one, and not listed).
    pub private_temp: Vec<PathBuf>,
    /// Paths the command may not read (folders are hidden, files read as empty).
    pub unreadable: Vec<PathBuf>,
    /// Of `unreadable` (and `read_only`), the paths the team policy's `denyPaths` matched on
    /// disk: a file here cannot even be opened (not read as empty).
    pub denied: Vec<PathBuf>,
    /// Network access (off: only the allowlist proxy, when one runs).
    pub network: bool,
    /// Variable names passed through.
    pub env_allow: Vec<String>,
    /// Kill the command after this long.
    pub timeout: Option<Duration>,
    /// Bytes kept per output stream.
    pub output_cap: usize,
    /// Wicket's own state (`$WICKET_HOME`, the managed policy folder), lexical and real paths:
    /// masked (also listed in `unreadable`) and pinned in place, so that neither it nor a
    /// folder above it inside a writable path can be renamed and replaced.
    pub state: Vec<PathBuf>,
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
    /// The team policy's `denyPaths`, matched on disk when the command starts.
    pub deny_paths: Vec<String>,
    /// Fold letter case in `deny_paths`; `None` picks the platform's default.
    pub case_insensitive: Option<bool>,
    /// Wicket's own state folders (`$WICKET_HOME`, the managed policy folder): unreachable
    /// from the sandbox wherever they are.
    pub wicket_state: Vec<PathBuf>,
    /// `$WICKET_HOME`, where runs of one project coordinate their placeholders (also in
    /// `wicket_state`, so the sandbox never reaches it).
    pub state_dir: Option<PathBuf>,
}

/// More matches of `denyPaths` on disk than this and the command does not run: the sandbox
/// could not enforce the rest.
pub const MAX_DENIED_PATHS: usize = 1_000;

/// Entries looked at while matching `denyPaths`; a bigger search refuses the command.
pub const MAX_SEARCHED: usize = 1_000_000;

/// Why no exec policy can be built, so the command must not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    /// `denyPaths` match too many paths.
    #[error(
        "the team policy's denyPaths match more than {max} paths on disk (e.g. {example}), more than the sandbox can enforce, so the command does not run; deny a folder instead of the files in it",
        max = MAX_DENIED_PATHS
    )]
    TooManyDenied {
        /// One of the matches.
        example: String,
    },
    /// `denyPaths` would need too big a search.
    #[error(
        "matching the team policy's denyPaths on disk looked at more than {max} entries below {base}, so the command does not run; use patterns below a smaller folder",
        max = MAX_SEARCHED
    )]
    TooBig {
        /// Where the search started.
        base: String,
    },
    /// A writable path would open up what the sandbox protects.
    #[error("the sandbox will not let commands write {what} ({path}): it {why}, so the command does not run; point it at a folder of its own")]
    UnsafeWritable {
        /// Which setting or folder (`the temp folder (TMPDIR)`, `the package cache ~/.npm` …).
        what: String,
        /// Its real path.
        path: String,
        /// What it would expose.
        why: String,
    },
    /// A pattern is malformed.
    #[error("the team policy's deny path {pattern:?} is not a valid pattern: {why}")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// What is wrong.
        why: String,
    },
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

/// Build the exec policy. Fails only when the team policy's `denyPaths` cannot be enforced.
pub fn exec_policy(i: &ExecInputs) -> Result<ExecPolicy, ExecError> {
    let root = real(&i.root).unwrap_or_else(|| crate::paths::normalize(&i.root));
    let home = i.home.as_deref();
    let mut writable = Vec::new();
    if i.mode != Mode::Plan {
        push_unique(&mut writable, root.clone());
    }
    // Each writable path is resolved here, once, to its real path, checked, and bound by that
    // path: a link re-pointed later (a renamed parent, a link to the home) changes nothing.
    let mut candidates: Vec<(String, PathBuf)> = Vec::new();
    let mut temps = Vec::new();
    for (what, t) in [
        ("the temp folder (TMPDIR)", std::env::temp_dir()),
        ("the temp folder /tmp", PathBuf::from("/tmp")),
        ("the temp folder /var/tmp", PathBuf::from("/var/tmp")),
    ] {
        if let Some(r) = real(&t) {
            temps.push(r.clone());
            candidates.push((what.to_string(), r));
        }
    }
    if let Some(h) = home {
        for c in HOME_CACHES {
            if let Some(r) = real(&h.join(c)) {
                candidates.push((format!("the package cache ~/{c}"), r));
            }
        }
    }
    for p in &i.write_paths {
        if let Some(r) = place(p, &root, home).and_then(|p| real(&p)) {
            candidates.push((format!("the sandbox.writePaths entry {p:?}"), r));
        }
    }
    let guarded = Guarded::new(home, i.state_dir.as_deref());
    // `/tmp` and `/var/tmp` themselves are the system's shared, sticky temp folders (a private
    // tmpfs under bubblewrap); anything else, `TMPDIR` elsewhere included, gets the checks.
    let usual: Vec<PathBuf> = ["/tmp", "/var/tmp"].iter().filter_map(|t| real(Path::new(t))).collect();
    for (what, r) in candidates {
        if usual.contains(&r) {
            push_unique(&mut writable, r);
            continue;
        }
        if let Err(why) = guarded.check(&r) {
            return Err(ExecError::UnsafeWritable { what, path: r.display().to_string(), why });
        }
        push_unique(&mut writable, r);
    }
    let private_temp: Vec<PathBuf> = temps
        .iter()
        .filter(|t| !writable.iter().any(|w| w != *t && !temps.contains(w) && t.starts_with(w)))
        .cloned()
        .collect();
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
        if ROOT_PLACEHOLDERS.contains(rel) {
            // Every run shares the placeholder, made by whichever run finds it missing.
            placeholders.push(p.clone());
            read_only.push((p, *dir));
        } else if p.exists() {
            read_only.push((p, *dir));
        }
    }
    let mut must_not_appear = Vec::new();
    let mut git_dirs = Vec::new();
    if i.mode != Mode::Plan {
        let mut g = crate::gitdirs::GitView::default();
        crate::gitdirs::protect(&root, home, &writable, &mut g);
        for (p, dir) in g.read_only {
            if !read_only.iter().any(|(q, _)| *q == p) {
                read_only.push((p, dir));
            }
        }
        for p in g.placeholders {
            push_unique(&mut placeholders, p);
        }
        must_not_appear = g.must_not_appear;
        git_dirs = g.git_dirs;
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
    // Wicket's own state, wherever it lives (in the project, under a cache or a temp folder):
    // the path as written and its real path, so a link cannot lead around the mask.
    let mut state = Vec::new();
    for s in &i.wicket_state {
        let lexical = crate::paths::normalize(&if s.is_absolute() { s.clone() } else { root.join(s) });
        for p in [real(&lexical), Some(lexical)].into_iter().flatten() {
            for q in state_masks(&p, &root) {
                push_unique(&mut state, q);
            }
        }
    }
    for s in &state {
        push_unique(&mut unreadable, s.clone());
    }
    let case_insensitive = i.case_insensitive.unwrap_or(cfg!(any(target_os = "macos", windows)));
    let denied = denied_paths(&root, home, &i.deny_paths, case_insensitive)?;
    for d in &denied {
        let dir = std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir());
        push_unique(&mut unreadable, d.clone());
        if !read_only.iter().any(|(p, _)| p == d) {
            read_only.push((d.clone(), dir));
        }
    }
    let mut env_allow: Vec<String> = ENV_ALLOW.iter().map(|s| s.to_string()).collect();
    for v in &i.env_allow {
        if !env_allow.contains(v) {
            env_allow.push(v.clone());
        }
    }
    Ok(ExecPolicy {
        root,
        writable,
        read_only,
        placeholders,
        must_not_appear,
        git_dirs,
        state_dir: i.state_dir.clone(),
        private_temp,
        unreadable,
        denied,
        network: false,
        env_allow,
        timeout: i.timeout,
        output_cap: OUTPUT_CAP,
        state,
    })
}

/// What to mask for one state folder: the folder itself, or, when the project lies inside it
/// (a `WICKET_HOME` above the project), every entry of it but the way down to the project.
fn state_masks(state: &Path, root: &Path) -> Vec<PathBuf> {
    if !root.starts_with(state) {
        return vec![state.to_path_buf()];
    }
    let mut out = Vec::new();
    let mut dir = state.to_path_buf();
    while dir != root {
        let Ok(rest) = root.strip_prefix(&dir) else { break };
        let Some(next) = rest.components().next() else { break };
        let next = dir.join(next);
        if let Ok(entries) = std::fs::read_dir(&dir) {
            out.extend(entries.flatten().map(|e| e.path()).filter(|p| *p != next));
        }
        dir = next;
    }
    out
}

/// What no writable path may be, hold, or lie inside (real paths).
struct Guarded {
    home: Option<PathBuf>,
    secrets: Vec<PathBuf>,
    state: Option<PathBuf>,
}

impl Guarded {
    fn new(home: Option<&Path>, state: Option<&Path>) -> Guarded {
        let mut secrets = Vec::new();
        if let Some(h) = home {
            for s in HOME_SECRETS {
                let p = h.join(s);
                // The link and its target both: a secret folder may be a link (dotfiles).
                if let Some(r) = real(&p) {
                    push_unique(&mut secrets, r);
                }
                push_unique(&mut secrets, crate::paths::normalize(&p));
            }
        }
        let home = home.map(|h| real(h).unwrap_or_else(|| crate::paths::normalize(h)));
        let state = state.map(|s| real(s).unwrap_or_else(|| crate::paths::normalize(s)));
        Guarded { home, secrets, state }
    }

    /// Why `p` may not be writable, if it may not.
    fn check(&self, p: &Path) -> Result<(), String> {
        if p == Path::new("/") {
            return Err("is the whole disk".into());
        }
        if let Some(h) = &self.home {
            if h.starts_with(p) {
                return Err(format!("is or holds the home folder {}", h.display()));
            }
        }
        for s in &self.secrets {
            if s.starts_with(p) || p.starts_with(s) {
                return Err(format!("is, holds or lies inside the secret {}", s.display()));
            }
        }
        if let Some(st) = &self.state {
            if p.starts_with(st) {
                return Err(format!("lies inside wicket's own state {}", st.display()));
            }
        }
        Ok(())
    }
}

/// One `denyPaths` pattern, compiled for the disk search.
struct DenyGlob {
    /// Matches the path itself.
    glob: globset::GlobMatcher,
    /// For `x/**`: matches the folder `x`, which is then denied whole.
    folder: Option<globset::GlobMatcher>,
    /// Where the search starts; `None`: the root, matching root-relative paths.
    base: Option<PathBuf>,
}

/// Match the team policy's `denyPaths` on disk: relative patterns below the root, `~/` and
/// absolute ones below their literal folder. Every folder is searched (dot folders, `.git` and
/// `node_modules` too); links are not followed, and a link that matches stands for its target.
/// A matching folder is denied whole and not searched further.
pub fn denied_paths(
    root: &Path,
    home: Option<&Path>,
    patterns: &[String],
    case_insensitive: bool,
) -> Result<Vec<PathBuf>, ExecError> {
    if patterns.is_empty() {
        return Ok(Vec::new());
    }
    let opts = crate::rules::GlobOptions { case_insensitive };
    let home_text = home.map(|h| h.to_string_lossy().into_owned());
    let mut globs = Vec::new();
    for p in patterns {
        let err = |why: String| ExecError::Pattern { pattern: p.clone(), why };
        let (glob, absolute) = crate::rules::path_glob(p, home_text.as_deref());
        let compile = |g: &str| crate::rules::compile_glob(g, opts).map(|g| g.compile_matcher());
        let matcher = compile(&glob).map_err(|e| err(e.to_string()))?;
        let folder = match glob.strip_suffix("/**") {
            Some(f) if !f.is_empty() => Some(compile(f).map_err(|e| err(e.to_string()))?),
            _ => None,
        };
        let base = absolute.then(|| literal_base(&glob));
        globs.push(DenyGlob { glob: matcher, folder, base });
    }
    let mut found: Vec<PathBuf> = Vec::new();
    let mut searched = 0usize;
    // The root, once, for every relative pattern; each absolute pattern from its own base.
    let relative: Vec<&DenyGlob> = globs.iter().filter(|g| g.base.is_none()).collect();
    if !relative.is_empty() {
        search(root, root, &relative, true, &mut found, &mut searched)?;
    }
    for g in globs.iter().filter(|g| g.base.is_some()) {
        let Some(base) = &g.base else { continue };
        let text = base.to_string_lossy();
        if std::fs::symlink_metadata(base).is_err() {
            continue;
        }
        // The base itself may be what is denied (`~/.kube`, `/srv/secret/**`).
        if g.glob.is_match(text.as_ref()) || g.folder.as_ref().is_some_and(|f| f.is_match(text.as_ref())) {
            add_found(base, &mut found)?;
            continue;
        }
        search(base, base, &[g], false, &mut found, &mut searched)?;
    }
    Ok(found)
}

/// The folder before a glob's first wildcard (`/srv/a/*/b` → `/srv/a`).
fn literal_base(glob: &str) -> PathBuf {
    let mut base = PathBuf::from("/");
    for seg in glob.split('/').filter(|s| !s.is_empty()) {
        if seg.contains(['*', '?', '[', '{', '\\']) {
            break;
        }
        base.push(seg);
    }
    base
}

fn add_found(p: &Path, found: &mut Vec<PathBuf>) -> Result<(), ExecError> {
    // A link stands for its target (the sandbox masks what a command would reach); a link to
    // nothing needs no mask.
    let target = match std::fs::symlink_metadata(p) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::canonicalize(p) {
            Ok(t) => t,
            Err(_) => return Ok(()),
        },
        Ok(_) => p.to_path_buf(),
        Err(_) => return Ok(()),
    };
    push_unique(found, target);
    if found.len() > MAX_DENIED_PATHS {
        return Err(ExecError::TooManyDenied { example: p.display().to_string() });
    }
    Ok(())
}

fn search(
    base: &Path,
    start: &Path,
    globs: &[&DenyGlob],
    relative: bool,
    found: &mut Vec<PathBuf>,
    searched: &mut usize,
) -> Result<(), ExecError> {
    let mut stack = vec![start.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            *searched += 1;
            if *searched > MAX_SEARCHED {
                return Err(ExecError::TooBig { base: base.display().to_string() });
            }
            let path = e.path();
            let text = if relative {
                match path.strip_prefix(base) {
                    Ok(r) => r.to_string_lossy().into_owned(),
                    Err(_) => continue,
                }
            } else {
                path.to_string_lossy().into_owned()
            };
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            let whole = is_dir && globs.iter().any(|g| g.folder.as_ref().is_some_and(|f| f.is_match(&text)));
            if whole || globs.iter().any(|g| g.glob.is_match(&text)) {
                add_found(&path, found)?;
                if is_dir {
                    continue;
                }
            }
            if is_dir {
                stack.push(path);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_mode_makes_the_root_read_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("real");
        let p =
            exec_policy(&ExecInputs { root: root.clone(), mode: Mode::Plan, ..Default::default() }).expect("policy");
        assert!(!p.writable.contains(&root) || p.read_only.iter().any(|(r, _)| *r == root));
        let p = exec_policy(&ExecInputs { root: root.clone(), ..Default::default() }).expect("policy");
        assert!(p.writable.contains(&root));
        assert!(p.read_only.iter().any(|(r, _)| r.ends_with(".mcp.json")));
        assert!(p.placeholders.iter().any(|r| r.ends_with(".mcp.json")), "a missing .mcp.json gets a placeholder");
    }

    #[test]
    fn deny_paths_are_matched_on_disk() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("real").join("proj");
        for f in ["a/private.txt", ".hidden/private.txt", "node_modules/x/private.txt", "keys/k1", "keys/k2", "ok.txt"]
        {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, "x").expect("write");
        }
        let outside = root.parent().expect("parent").join("outside.txt");
        std::fs::write(&outside, "x").expect("write");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, root.join("link-private.txt")).expect("link");
        let pats = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut got = denied_paths(&root, None, &pats(&["private.txt", "keys/**", "link-*"]), false).expect("found");
        got.sort();
        let mut want = vec![
            root.join(".hidden/private.txt"),
            root.join("a/private.txt"),
            root.join("keys"),
            root.join("node_modules/x/private.txt"),
        ];
        #[cfg(unix)]
        want.push(outside.clone());
        want.sort();
        assert_eq!(got, want);
        let p = exec_policy(&ExecInputs { root: root.clone(), deny_paths: pats(&["keys/**"]), ..Default::default() })
            .expect("policy");
        assert!(p.unreadable.contains(&root.join("keys")) && p.denied.contains(&root.join("keys")));
        assert!(p.read_only.contains(&(root.join("keys"), true)));
        // An absolute pattern is searched from its literal folder.
        let abs = format!("{}/keys/*", root.display());
        assert_eq!(denied_paths(&root, None, &pats(&[&abs]), false).expect("found").len(), 2);
    }

    #[test]
    fn wicket_state_is_masked_wherever_it_is() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let root = base.join("proj");
        for d in ["proj/src", "state/wh", "audit", "other"] {
            std::fs::create_dir_all(base.join(d)).expect("mkdir");
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(base.join("state/wh"), base.join("link-wh")).expect("link");
        let p = exec_policy(&ExecInputs {
            root: root.clone(),
            wicket_state: vec![base.join("link-wh"), root.join("inside-wh")],
            ..Default::default()
        })
        .expect("policy");
        // The link and its target, and a state folder inside the project.
        for s in [base.join("state/wh"), root.join("inside-wh")] {
            assert!(p.state.contains(&s) && p.unreadable.contains(&s), "{} masked: {:?}", s.display(), p.state);
        }
        // A state folder above the project: everything in it but the way to the project.
        let p = exec_policy(&ExecInputs { root: root.clone(), wicket_state: vec![base.clone()], ..Default::default() })
            .expect("policy");
        assert!(p.unreadable.contains(&base.join("audit")) && p.unreadable.contains(&base.join("other")));
        assert!(!p.unreadable.iter().any(|u| root.starts_with(u)), "the project stays reachable: {:?}", p.unreadable);
    }

    #[test]
    fn too_many_deny_path_matches_refuse_the_command() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("real");
        std::fs::create_dir_all(root.join("many")).expect("mkdir");
        for i in 0..=MAX_DENIED_PATHS {
            std::fs::write(root.join(format!("many/{i}.key")), "").expect("write");
        }
        let e = exec_policy(&ExecInputs { root, deny_paths: vec!["*.key".into()], ..Default::default() })
            .expect_err("too many");
        assert!(matches!(e, ExecError::TooManyDenied { .. }));
        assert!(e.to_string().contains("more than 1000 paths"), "{e}");
    }
}
