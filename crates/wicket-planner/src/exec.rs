//! The exec policy: what a sandboxed command may read, write and reach.
//!
//! The hard question: which paths can a command change, and which must it never see? Writes
//! go only to the project, the temp folders and package caches; inside the project, the files
//! that run code later (git hooks and config, wicket's own settings, editor and agent config)
//! stay read-only, even when they do not exist yet; the person's secrets are unreadable (in every
//! home, and the project's own, found by one walk when the command starts); the
//! network is off; the environment is a short list. This module only computes the policy; the
//! `wicket-sandbox` crate enforces it.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use wicket_policy::Mode;

/// Variables passed to every command; everything else (API keys included) stays out.
pub const ENV_ALLOW: &[&str] =
    &["PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"];

/// The variables a sandboxed command gets from wicket's environment (when set there):
/// [`ENV_ALLOW`], where the toolchains live, and the settings' `env.allow` (`extra`).
pub fn env_names(extra: &[String]) -> Vec<String> {
    let mut names: Vec<String> = ENV_ALLOW.iter().map(|s| s.to_string()).collect();
    // Where the toolchains live (`CARGO_HOME`, `RUSTUP_HOME`, `VIRTUAL_ENV` …): paths, no
    // secrets, and the sealed home shows them (see `crate::sealed`). Without them a rustup or
    // pyenv shim looks in the home, where the toolchain is not (a container's
    // `RUSTUP_HOME=/usr/local/rustup`), and fails.
    names.extend(crate::sealed::TOOL_ROOTS.iter().map(|(name, _)| name.to_string()));
    for v in extra {
        if !names.contains(v) {
            names.push(v.clone());
        }
    }
    names
}

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

/// Make, empty, each package cache a program's record names (`home_cache`: npm's `.npm`) that is
/// missing in `home` while the program is in a folder of `path`: only a cache that exists gets
/// the sandbox's writable layer, and in the sealed home a sandboxed tool cannot make it itself
/// (`npx -y` on a fresh machine fails with `ENOENT: mkdir ~/.npm`). The host's copy stays
/// empty; the tool would have made it on first use. None is made inside `keep_out` (wicket's own
/// state: a cache there is refused, so making one would stop every run). Best effort: a cache
/// that cannot be made stays missing, as before.
pub fn make_missing_caches(home: &Path, path: Option<&std::ffi::OsStr>, keep_out: &[PathBuf]) {
    let Some(path) = path else { return };
    if !home.is_dir() {
        return;
    }
    for record in wicket_programs::records() {
        let Some(cache) = record.home_cache else { continue };
        let dir = home.join(cache);
        // Anything there already (a folder, a file, a link, a dangling one) is left as it is.
        if std::fs::symlink_metadata(&dir).is_ok() {
            continue;
        }
        let inside = |k: &PathBuf| {
            dir.starts_with(k) || real(k).is_some_and(|r| real(home).is_some_and(|h| h.join(cache).starts_with(r)))
        };
        if keep_out.iter().any(inside) {
            continue;
        }
        let on_path = |d: PathBuf| d.is_absolute() && record.names.iter().any(|n| d.join(n).is_file());
        if std::env::split_paths(path).any(on_path) {
            let _ = std::fs::create_dir(&dir);
        }
    }
}

/// The lists the sandbox shares with the gate live in `wicket_policy::lists`; these names stay here
/// for the code that reads them from this module.
pub use wicket_policy::lists::{HOME_READ_ONLY, ROOT_PLACEHOLDERS, ROOT_READ_ONLY};

/// Secrets below a home folder that commands may not read: every literal entry of the gate's
/// sensitive list (`wicket_policy::lists::SENSITIVE`) and the home-only ones
/// (`wicket_policy::lists::HOME_SENSITIVE`), relative to the home.
pub fn home_secrets() -> Vec<&'static str> {
    let mut v = wicket_policy::lists::literal_paths(wicket_policy::lists::SENSITIVE);
    v.extend(wicket_policy::lists::HOME_SENSITIVE.iter().copied());
    v
}

/// More sensitive files in the project than this and the command does not run: each is a
/// mount, and the sandbox could not enforce the rest.
pub const MAX_PROJECT_SECRETS: usize = 1_000;

/// Folders the project scan does not enter: trees that package managers fill from public
/// registries (their `*.pem` test keys and CA bundles are not the person's secrets, and a
/// mask inside one would make the package manager fail to replace or remove it).
pub const SCAN_SKIPPED: &[&str] = &["node_modules", "site-packages", "dist-packages", "bower_components"];

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
    /// Of `unreadable`, the sensitive files and folders found inside the root when the command
    /// starts (the gate's patterns, matched on disk), for the notice that lists them.
    pub masked: Vec<PathBuf>,
    /// Network access (off: only the allowlist proxy, when one runs).
    pub network: bool,
    /// Variable names passed through.
    pub env_allow: Vec<String>,
    /// Kill the command after this long.
    pub timeout: Option<Duration>,
    /// Bytes kept per output stream.
    pub output_cap: usize,
    /// Of `writable`, the package caches ([`HOME_CACHES`], real paths). Host tools run what is
    /// in them later, so the sandbox never writes them in place: each gets the project's own
    /// writable layer over it (reads see the host cache, writes land in the layer), or stays
    /// read-only where no layer can be made.
    pub caches: Vec<PathBuf>,
    /// Wicket's own state (`$WICKET_HOME`, the managed policy folder), lexical and real paths:
    /// masked (also listed in `unreadable`) and pinned in place, so that neither it nor a
    /// folder above it inside a writable path can be renamed and replaced.
    pub state: Vec<PathBuf>,
    /// The repositories below the root at start, for the check after the run that moves
    /// aside every repository the run made or changed that git must not use (see
    /// [`crate::nested_git`]); `None` when the project was not walked (the host runs it).
    pub git_watch: Option<std::sync::Arc<crate::nested_git::Watch>>,
    /// A staged run: the copy of the project that the sandbox shows at `root`, so every write
    /// the command makes below the root lands in the copy, never in the project.
    pub stage: Option<PathBuf>,
    /// Folders hidden whole (every home, `/run`) but for `sealed_readable` (see
    /// [`crate::sealed`]); the writable paths inside them stay writable.
    pub sealed: Vec<PathBuf>,
    /// Paths inside `sealed` that the command may read (read-only), as reached from the sealed
    /// folder: a link among them is kept as a link.
    pub sealed_readable: Vec<PathBuf>,
    /// The project's code-running names and files at start, for the new and changed ones,
    /// which are held for a person after the run (see [`crate::held`]); `None` when the project
    /// is not walked.
    pub guard: Option<std::sync::Arc<crate::held::Guard>>,
    /// Folders on the way from a writable path to a read-only one (see [`crate::pointers::ways`]):
    /// each is bound on itself, still writable, so that it cannot be renamed and rebuilt with
    /// what the read-only path protected.
    pub pinned: Vec<PathBuf>,
    /// What the person should know about this policy (a file the sandbox could not follow made
    /// a folder read-only), one line each.
    pub notices: Vec<String>,
    /// The check after the run for new programs in the project's `PATH` folders and for links
    /// on the way to protected paths (see [`crate::shadow`]); `None` when there is nothing to
    /// check or the host runs the command.
    pub shadow_watch: Option<std::sync::Arc<crate::shadow::Watch>>,
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
    /// The allow rules (user, project, flags): a sensitive file inside the root stays readable
    /// when one of them names it for `read_file`, as in the gate.
    pub allow: Vec<String>,
    /// Where the last scan of this project is kept (wicket's own state, one file a project);
    /// `None`: the project is walked every time.
    pub scan_cache: Option<PathBuf>,
    /// The command runs on the host: the project is not walked (its result would be unused).
    pub no_scan: bool,
    /// The path patterns of the person's deny rules for reading (`read_file(secrets/**)`,
    /// `Read(...)`): matched on disk like `denyPaths`, and out of reach in the sandbox too.
    pub rule_deny_read: Vec<String>,
    /// The path patterns of the person's deny rules for writing (`write_file(P)`,
    /// `edit_file(P)`, `Edit(P)`): matched on disk, and read-only in the sandbox.
    pub rule_deny_write: Vec<String>,
}

impl ExecInputs {
    /// Take the person's deny rules (settings and flags, in the gate's syntax or Claude Code's)
    /// into the walls: the path pattern of each rule for reading or writing a file.
    pub fn add_deny_rules<S: AsRef<str>>(&mut self, rules: &[S]) {
        for text in rules {
            // A rule that does not parse is reported when the policy is built.
            let Ok(expanded) = wicket_policy::rules::expand(text.as_ref()) else { continue };
            for r in expanded {
                let Some(p) = r.pattern.clone() else { continue };
                let list = match r.tool.as_str() {
                    "read_file" | "glob" | "grep" => &mut self.rule_deny_read,
                    "write_file" | "edit_file" => &mut self.rule_deny_write,
                    _ => continue,
                };
                if !list.contains(&p) {
                    list.push(p);
                }
            }
        }
    }
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
    /// The project is too big to look for its secrets before every command.
    #[error(
        "the project {base} holds more than {max} files and folders (package folders not counted), too many to look for secrets before each command, so the command does not run; use a smaller folder as the root",
        max = MAX_SEARCHED
    )]
    TooBigProject {
        /// The root.
        base: String,
    },
    /// The project holds too many sensitive files to mask.
    #[error(
        "the project holds more than {max} sensitive files (e.g. {example}), more than the sandbox can mask, so the command does not run; move them out of the project, or name the safe ones in allow rules such as read_file(PATH)",
        max = MAX_PROJECT_SECRETS
    )]
    TooManySecrets {
        /// One of them.
        example: String,
    },
    /// An allow rule is malformed (it is checked again, with its position, when the policy is
    /// built).
    #[error("allow rule: {0}")]
    Rule(String),
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
    let expanded = wicket_policy::paths::expand_tilde(p, home).ok()?;
    Some(wicket_policy::paths::normalize(&if expanded.is_absolute() { expanded } else { root.join(expanded) }))
}

/// The per-user runtime folder: `$XDG_RUNTIME_DIR`, else `/run/user/UID` when it exists.
fn runtime_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()).map(PathBuf::from) {
        return Some(d);
    }
    #[cfg(target_os = "linux")]
    {
        let d = PathBuf::from(format!("/run/user/{}", rustix::process::getuid().as_raw()));
        if d.is_dir() {
            return Some(d);
        }
    }
    None
}

/// The real path of an existing path, else `None`.
pub(crate) fn real(p: &Path) -> Option<PathBuf> {
    let known = REALS.with(|r| r.borrow().as_ref().and_then(|m| m.get(p).cloned()));
    if let Some(known) = known {
        return known;
    }
    // Most paths asked about do not exist: one lstat says so, where resolving looks at each
    // component in turn.
    let meta = std::fs::symlink_metadata(p).ok()?;
    let building = REALS.with(|r| r.borrow().is_some());
    let plain = p.is_absolute() && p.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
    let found = match (p.parent(), p.file_name()) {
        // While a policy is built, a path that is no link is its folder's real path and its
        // name: the folders are resolved once each (the protected paths of one project share
        // them), where `realpath` read every component of every path again (about 400 calls
        // a run).
        (Some(dir), Some(name)) if building && plain && !meta.file_type().is_symlink() => {
            real(dir).map(|d| d.join(name))
        }
        _ => std::fs::canonicalize(p).ok(),
    };
    REALS.with(|r| {
        if let Some(m) = r.borrow_mut().as_mut() {
            m.insert(p.to_path_buf(), found.clone());
        }
    });
    found
}

thread_local! {
    /// The real paths found while a policy is built on this thread (see [`Reals`]).
    static REALS: std::cell::RefCell<Option<std::collections::HashMap<PathBuf, Option<PathBuf>>>> =
        const { std::cell::RefCell::new(None) };
}

/// While this is held, [`real`] on this thread answers each path once: a build asks about the
/// same folders from many places (each `PATH` folder eight times). Only for a build, which
/// makes nothing it then asks about: a path asked about again later is looked at again.
struct Reals;

impl Reals {
    fn begin() -> Reals {
        REALS.with(|r| *r.borrow_mut() = Some(std::collections::HashMap::new()));
        Reals
    }
}

impl Drop for Reals {
    fn drop(&mut self) {
        REALS.with(|r| *r.borrow_mut() = None);
    }
}

/// The real path of each of `names` (paths relative to `dir`) that exists in `dir`, in order
/// (`None`: it does not). A home holds a few of the hundred secret names: one listing of it
/// rules out the rest, where each took an `lstat` (and `$HOME`'s took two, once for the checks
/// of the writable paths, once for the masks).
pub(crate) fn secrets_in(dir: &Path, names: &[&str]) -> Vec<Option<PathBuf>> {
    let listed = Listed::of(dir);
    names
        .iter()
        .map(|n| {
            let first = Path::new(n).components().next().map(|c| c.as_os_str().as_encoded_bytes());
            first.filter(|f| listed.may_hold(f)).and_then(|_| real(&dir.join(n)))
        })
        .collect()
}

/// The names a folder held when it was listed, to rule out paths below it without looking
/// each up.
struct Listed(Option<std::collections::HashSet<Vec<u8>>>);

impl Listed {
    /// `None` inside when the folder cannot be listed whole, or holds a name that is not ASCII:
    /// then every path is looked up. Names are compared without ASCII case, as a file system
    /// that ignores case would find them (one that folds other letters could make a name that
    /// is not ASCII stand for one that is).
    fn of(dir: &Path) -> Listed {
        let mut names = std::collections::HashSet::new();
        let Ok(entries) = std::fs::read_dir(dir) else { return Listed(None) };
        for e in entries {
            let Ok(e) = e else { return Listed(None) };
            let name = e.file_name();
            let name = name.as_encoded_bytes();
            if !name.is_ascii() {
                return Listed(None);
            }
            names.insert(name.to_ascii_lowercase());
        }
        Listed(Some(names))
    }

    fn may_hold(&self, name: &[u8]) -> bool {
        self.0.as_ref().is_none_or(|names| names.contains(&name.to_ascii_lowercase()))
    }
}

pub(crate) fn push_unique(v: &mut Vec<PathBuf>, p: PathBuf) {
    if !v.contains(&p) {
        v.push(p);
    }
}

/// Build the exec policy. Fails only when the team policy's `denyPaths` cannot be enforced.
pub fn exec_policy(i: &ExecInputs) -> Result<ExecPolicy, ExecError> {
    let (p, pending) = build(i, true)?;
    if pending.is_some_and(|c| !c.holds()) {
        // Something the cached scan read has changed: walk.
        return build(i, false).map(|(p, _)| p);
    }
    Ok(p)
}

/// The exec policy, possibly from the project's cached scan with its check still to make (see
/// [`crate::scan_cache`]): the caller may start building the sandbox at once and check
/// meanwhile, but starts the command only when [`crate::scan_cache::Pending::holds`] is true,
/// and otherwise throws the sandbox away and builds again with [`exec_policy`].
pub fn exec_policy_deferred(i: &ExecInputs) -> Result<(ExecPolicy, Option<crate::scan_cache::Pending>), ExecError> {
    build(i, true)
}

/// What a run may write, found before it is checked: the root (real path), the writable paths
/// so far (the root, unless in plan mode), each candidate with what it is, and of those the
/// temp folders, the package caches and the `writePaths` entries.
struct Candidates {
    root: PathBuf,
    writable: Vec<PathBuf>,
    candidates: Vec<(String, PathBuf)>,
    temps: Vec<PathBuf>,
    caches: Vec<PathBuf>,
    chosen: Vec<PathBuf>,
}

fn candidates(i: &ExecInputs) -> Candidates {
    let root = real(&i.root).unwrap_or_else(|| wicket_policy::paths::normalize(&i.root));
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
    let mut caches = Vec::new();
    if let Some(h) = home {
        // A command the host runs makes its own caches as it always does.
        if !i.no_scan {
            let keep_out: Vec<PathBuf> = i.state_dir.iter().chain(&i.wicket_state).cloned().collect();
            make_missing_caches(h, std::env::var_os("PATH").as_deref(), &keep_out);
        }
        for c in HOME_CACHES {
            if let Some(r) = real(&h.join(c)) {
                push_unique(&mut caches, r.clone());
                candidates.push((format!("the package cache ~/{c}"), r));
            }
        }
    }
    let mut chosen = Vec::new();
    for p in &i.write_paths {
        if let Some(r) = place(p, &root, home).and_then(|p| real(&p)) {
            chosen.push(r.clone());
            candidates.push((format!("the sandbox.writePaths entry {p:?}"), r));
        }
    }
    Candidates { root, writable, candidates, temps, caches, chosen }
}

/// The writable paths [`exec_policy`] gives for `i`, then its root: what the search for
/// root-only files leaves out (see `wicket_sandbox`), known long before the rest of the policy.
/// Unchecked: where a check refuses one, building the policy fails and nothing runs.
pub fn writable_and_root(i: &ExecInputs) -> Vec<PathBuf> {
    let Candidates { root, mut writable, candidates, .. } = candidates(i);
    for (_, r) in candidates {
        push_unique(&mut writable, r);
    }
    writable.push(root);
    writable
}

fn build(i: &ExecInputs, cached: bool) -> Result<(ExecPolicy, Option<crate::scan_cache::Pending>), ExecError> {
    // The missing caches are made first (in `candidates`): nothing is made after this.
    let Candidates { root, mut writable, candidates, temps, mut caches, chosen } = candidates(i);
    let _reals = Reals::begin();
    let home = i.home.as_deref();
    // The real paths of `$HOME`'s secrets, for the checks here and the masks below.
    let secrets = home_secrets();
    let home_secrets = home.map(|h| secrets_in(h, &secrets));
    let guarded = Guarded::new(home, i.state_dir.as_deref(), &secrets, home_secrets.as_deref().unwrap_or_default());
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
    // Home files the host runs later, where a writable path (`~/.cache`, writePaths) covers
    // them; a missing prompt cache folder gets a placeholder so that it cannot be planted.
    let homes = wicket_policy::paths::homes(home);
    for h in &homes {
        let Some(h) = real(h) else { continue };
        let under_writable = |p: &Path| writable.iter().any(|w| p.starts_with(w));
        for (rel, dir, holder) in HOME_READ_ONLY {
            let p = h.join(rel);
            if !under_writable(&p) {
                continue;
            }
            if p.exists() || *holder {
                // Also when it exists: it may be another run's placeholder (see `gitdirs`).
                if *holder {
                    placeholders.push(p.clone());
                }
                read_only.push((p, *dir));
            }
        }
        let cache = h.join(".cache");
        if under_writable(&cache) {
            for e in std::fs::read_dir(&cache).into_iter().flatten().flatten() {
                let name = e.file_name();
                let name = name.to_string_lossy();
                if wicket_policy::lists::HOME_CACHE_SOURCED.iter().any(|pre| name.starts_with(pre)) {
                    read_only.push((e.path(), false));
                }
            }
        }
    }
    // Folders on PATH and the homes' tool folders that a writable path outside the project
    // covers: a program put there runs on the host by name (see `crate::path_folders`).
    let path_var = std::env::var_os("PATH");
    for p in crate::path_folders::read_only(&crate::path_folders::Inputs {
        root: &root,
        homes: &homes,
        writable: &writable,
        caches: &caches,
        chosen: &chosen,
        path: path_var.as_deref(),
    }) {
        if !read_only.iter().any(|(q, _)| *q == p) {
            read_only.push((p, true));
        }
    }
    let mut unreadable = Vec::new();
    // The secrets of every home ($HOME and the account's own), by real path: a mask on a link
    // (a dotfiles `~/.ssh`) would fail or cover the link only, so the target is masked.
    // The per-user runtime folder holds logins too (`containers/auth.json` of podman, skopeo
    // and buildah): its fixed-place secrets are masked as a home's are.
    let runtime = runtime_dir();
    for h in homes.iter().chain(runtime.iter()) {
        let found = match (&home_secrets, home) {
            (Some(found), Some(home)) if h == home => found.clone(),
            _ => secrets_in(h, &secrets),
        };
        for r in found.into_iter().flatten() {
            push_unique(&mut unreadable, r);
        }
    }
    for p in &i.deny_read {
        if let Some(p) = place(p, &root, home) {
            push_unique(&mut unreadable, real(&p).unwrap_or(p));
        }
    }
    // Wicket's own state, wherever it lives (in the project, under a cache or a temp folder):
    // the path as written and its real path, so a link cannot lead around the mask.
    let mut state = Vec::new();
    for s in &i.wicket_state {
        let lexical = wicket_policy::paths::normalize(&if s.is_absolute() { s.clone() } else { root.join(s) });
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
    let (scan, pending) = if i.no_scan {
        (Scan::default(), None)
    } else {
        crate::scan_cache::scan(&root, &homes, i, case_insensitive, &writable, cached)?
    };
    for d in &scan.denied {
        let dir = std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir());
        push_unique(&mut unreadable, d.clone());
        if !read_only.iter().any(|(p, _)| p == d) {
            read_only.push((d.clone(), dir));
        }
    }
    for m in &scan.secrets {
        push_unique(&mut unreadable, m.clone());
    }
    for k in &scan.kept {
        if !read_only.iter().any(|(p, _)| p == k) {
            let dir = std::fs::symlink_metadata(k).is_ok_and(|m| m.is_dir());
            read_only.push((k.clone(), dir));
        }
    }
    // A mask inside a masked folder has nothing to cover (and bwrap could not make its mount
    // point in the read-only empty folder).
    let dirs: Vec<PathBuf> =
        unreadable.iter().filter(|u| std::fs::symlink_metadata(u).is_ok_and(|m| m.is_dir())).cloned().collect();
    unreadable.retain(|u| !dirs.iter().any(|d| u != d && u.starts_with(d)));
    // What may run code somewhere, kept for the check after the run; what is too big to keep is
    // read-only for the run instead.
    let guard = (!i.no_scan && i.mode != Mode::Plan).then(|| {
        // Looked up for every code-running file: a set, and the path's folders up to the root.
        let files: std::collections::HashSet<&Path> = read_only.iter().map(|(q, _)| q.as_path()).collect();
        let dirs: std::collections::HashSet<&Path> =
            read_only.iter().filter(|(_, dir)| *dir).map(|(q, _)| q.as_path()).collect();
        let ro = |p: &Path| {
            files.contains(p) || p.ancestors().skip(1).take_while(|a| a.starts_with(&root)).any(|a| dirs.contains(a))
        };
        let t0 = std::time::Instant::now();
        let (guard, too_big) = crate::held::Guard::snapshot(&root, &scan.guarded, &ro);
        if std::env::var_os("WICKET_SCAN_TIMING").is_some() {
            eprintln!(
                "wicket: held: {} code-running files kept in {:.2} ms",
                guard.kept_count(),
                t0.elapsed().as_secs_f64() * 1e3
            );
        }
        for p in too_big {
            let dir = std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir());
            read_only.push((p, dir));
        }
        std::sync::Arc::new(guard)
    });
    // Repositories below the root: each that is one now gets the root's rule (without
    // placeholders), and all are fingerprinted for the check after the run.
    let root_git = git_dirs.len();
    let git_watch = (!i.no_scan).then(|| {
        let root_git = git_dirs.clone();
        let mut protected = git_dirs.clone();
        let mut g = crate::gitdirs::GitView::default();
        for f in &scan.repos {
            if *f == root || *f == root.join(".git") || root_git.iter().any(|d| f.starts_with(d)) {
                continue;
            }
            let named = f.file_name().is_some_and(|n| n == ".git");
            let dir = std::fs::symlink_metadata(f).is_ok_and(|m| m.is_dir());
            if !dir && !named {
                continue;
            }
            if dir && !crate::gitdirs::is_git_directory(f) {
                continue;
            }
            for d in crate::gitdirs::protect_nested(f, &writable, &mut g) {
                push_unique(&mut protected, d);
            }
        }
        for (p, dir) in g.read_only {
            if !read_only.iter().any(|(q, _)| *q == p) {
                read_only.push((p, dir));
            }
        }
        for d in g.git_dirs {
            push_unique(&mut git_dirs, d);
        }
        // Masked secrets and denied folders: the walk did not enter them, and the sandbox
        // cannot reach into them. Nor wicket's own state, where a run's overlay folders (mode
        // 000 work folders among them) change while the sandbox cannot touch them.
        let mut not_entered = scan.secrets.clone();
        not_entered.extend(scan.denied.iter().cloned());
        not_entered.extend(i.wicket_state.iter().chain(&i.state_dir).cloned());
        std::sync::Arc::new(
            crate::nested_git::Watch::new(
                &root,
                scan.stamps.clone(),
                &scan.repos,
                protected,
                root_git,
                not_entered,
                home,
            )
            .with_guard(guard.clone()),
        )
    });
    let denied = scan.denied;
    let mut walls = Walls::default();
    if i.mode != Mode::Plan && !i.no_scan {
        let frozen_masks: Vec<PathBuf> = unreadable.iter().filter(|u| u.is_dir()).cloned().collect();
        walls = pointer_walls(
            &PointerInputs {
                root: &root,
                home,
                writable: &writable,
                git_dirs: &git_dirs,
                root_git,
                not_bases: caches.iter().chain(&private_temp).chain(&frozen_masks).cloned().collect(),
                path: path_var.as_deref(),
            },
            &mut read_only,
            &mut placeholders,
        );
    }
    let mut sealed = crate::sealed::plan(&crate::sealed::SealInputs {
        homes: &homes,
        root: &root,
        path: path_var.as_deref(),
        tool_roots: crate::sealed::tool_roots_from_env(),
        allow: &i.allow,
        home,
        run: Some(Path::new("/run")),
    });
    // Nothing inside wicket's own state is shown back (a `~/.wicket/bin` on PATH, an allow
    // rule naming it): the state stays out of reach wherever it lives.
    sealed.readable.retain(|r| {
        let real = real(r);
        !state
            .iter()
            .chain(&i.wicket_state)
            .any(|s| r.starts_with(s) || real.as_ref().is_some_and(|x| x.starts_with(s)))
    });
    let env_allow = env_names(&i.env_allow);
    // A cache that is also the project, a temp folder or a `writePaths` entry is written in
    // place as that one.
    caches.retain(|c| writable.contains(c) && *c != root && !temps.contains(c) && !chosen.contains(c));
    let policy = ExecPolicy {
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
        masked: scan.secrets,
        network: false,
        env_allow,
        timeout: i.timeout,
        output_cap: OUTPUT_CAP,
        caches,
        state,
        git_watch,
        stage: None,
        sealed: sealed.sealed,
        sealed_readable: sealed.readable,
        guard,
        pinned: walls.pinned,
        notices: walls.notices,
        shadow_watch: walls.watch,
    };
    Ok((policy, pending))
}

/// The repository git finds for a folder of `root` when the root has none of its own: the
/// first folder above it with a `.git` (a folder, a file or a link) that leads to a git folder,
/// or that is a git folder itself.
fn enclosing_repository(root: &Path) -> Option<crate::pointers::Repo> {
    for dir in root.ancestors().skip(1) {
        let dot = dir.join(".git");
        if std::fs::symlink_metadata(&dot).is_ok() {
            let g = crate::gitdirs::repository_dir(&dot).filter(|g| crate::gitdirs::is_git_directory(g))?;
            return Some(crate::pointers::Repo { git_dir: g, top: dir.to_path_buf(), placeholders: true });
        }
        if crate::gitdirs::is_git_directory(dir) {
            return Some(crate::pointers::Repo {
                git_dir: dir.to_path_buf(),
                top: dir.to_path_buf(),
                placeholders: true,
            });
        }
    }
    None
}

/// What [`pointer_walls`] reads.
struct PointerInputs<'a> {
    root: &'a Path,
    home: Option<&'a Path>,
    writable: &'a [PathBuf],
    /// Every git folder protected, the root's first.
    git_dirs: &'a [PathBuf],
    /// How many of `git_dirs` are the root's (missing targets get placeholders there).
    root_git: usize,
    /// Writable paths whose folders are not the host's to pin: the caches' layers, the fresh
    /// temp folders, the masked folders.
    not_bases: Vec<PathBuf>,
    /// The caller's `PATH`.
    path: Option<&'a std::ffi::OsStr>,
}

/// What [`pointer_walls`] adds to the policy.
#[derive(Default)]
struct Walls {
    pinned: Vec<PathBuf>,
    notices: Vec<String>,
    watch: Option<std::sync::Arc<crate::shadow::Watch>>,
}

/// Protect what the protected files point at (git's hooks folder and programs, see
/// [`crate::pointers`]; what an `.envrc` loads, see `direnv`), pin the way to every read-only
/// path, and plan the check after the run for the project's `PATH` folders and the links on
/// those ways (see [`crate::shadow`]).
fn pointer_walls(
    p: &PointerInputs<'_>,
    read_only: &mut Vec<(PathBuf, bool)>,
    placeholders: &mut Vec<PathBuf>,
) -> Walls {
    let mut walls = Walls::default();
    let own_git = real(&p.root.join(".git"));
    let mut repos: Vec<crate::pointers::Repo> = p
        .git_dirs
        .iter()
        .enumerate()
        .map(|(k, g)| crate::pointers::Repo {
            git_dir: g.clone(),
            top: if own_git.as_ref() == Some(g) { p.root.to_path_buf() } else { crate::pointers::top_of(g, p.home) },
            placeholders: k < p.root_git,
        })
        .collect();
    if p.root_git == 0 {
        // The root is a folder of a repository above it (a `.wicket` marker, `--root`): git run
        // here uses that one, whose config may point into the project.
        repos.extend(enclosing_repository(p.root));
    }
    let ctx = crate::pointers::Ctx { writable: p.writable };
    let mut found = crate::pointers::Found::default();
    crate::pointers::protect_git(&repos, p.home, &ctx, &mut found);
    crate::direnv::protect(p.root, p.home, &ctx, &mut found);
    for (q, dir) in found.read_only {
        if !read_only.iter().any(|(r, _)| *r == q) {
            read_only.push((q, dir));
        }
    }
    for q in found.placeholders {
        push_unique(placeholders, q);
    }
    for (folder, why) in found.guarded {
        read_only.retain(|(r, _)| *r != folder);
        read_only.push((folder, true));
        walls.notices.push(why);
    }
    // The way to each read-only path, from the writable path it lies in.
    let bases: Vec<PathBuf> = p.writable.iter().filter(|w| !p.not_bases.contains(w)).cloned().collect();
    let frozen: Vec<PathBuf> = read_only.iter().filter(|(r, dir)| *dir && r.is_dir()).map(|(r, _)| r.clone()).collect();
    let paths = read_only.iter().map(|(r, _)| r.as_path()).chain(placeholders.iter().map(PathBuf::as_path));
    let (pins, links) = crate::pointers::ways(paths, &bases, p.git_dirs, &frozen);
    walls.pinned = pins;
    // The `PATH` folders the command may write: the caller's, and those an `.envrc` adds.
    let inside = |d: &Path| {
        let lexical = |q: &Path| p.writable.iter().any(|w| q.starts_with(w));
        lexical(d) || real(d).is_some_and(|r| lexical(&r))
    };
    let entries: Vec<PathBuf> = p
        .path
        .map(|v| {
            std::env::split_paths(v).filter(|e| e.is_absolute()).map(|e| wicket_policy::paths::normalize(&e)).collect()
        })
        .unwrap_or_default();
    let mut folders: Vec<PathBuf> = entries.iter().filter(|e| inside(e)).cloned().collect();
    // The project's own program folders, on the person's PATH or not (`npm run` puts
    // `node_modules/.bin` first for every script).
    for f in crate::path_folders::project_folders(p.root) {
        if !folders.contains(&f) {
            folders.push(f);
        }
    }
    for f in found.path_folders {
        // A pattern's folders lie below its literal part.
        let literal: PathBuf = f.components().take_while(|c| !c.as_os_str().to_string_lossy().contains('*')).collect();
        if inside(&literal) && !folders.contains(&f) {
            folders.push(f);
        }
    }
    let mut system: Vec<PathBuf> = Vec::new();
    for s in entries.iter().cloned().chain(crate::shadow::SYSTEM_FOLDERS.iter().map(PathBuf::from)) {
        if !inside(&s) && s.is_dir() && !system.contains(&s) {
            system.push(s);
        }
    }
    let watch = crate::shadow::Watch::new(p.root, folders, system, links);
    walls.watch = (!watch.is_empty()).then(|| std::sync::Arc::new(watch));
    walls
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
    /// `found`: the real paths of `names` in `home` ([`secrets_in`]).
    fn new(home: Option<&Path>, state: Option<&Path>, names: &[&str], found: &[Option<PathBuf>]) -> Guarded {
        let mut secrets = Vec::new();
        // About 300 paths a run: a set keeps them unique, where comparing each new one with
        // all before it took a quarter of a millisecond.
        let mut seen = std::collections::HashSet::new();
        if let Some(h) = home {
            for (s, real) in names.iter().zip(found) {
                let p = h.join(s);
                // The link and its target both: a secret folder may be a link (dotfiles).
                for q in [real.clone(), Some(wicket_policy::paths::normalize(&p))].into_iter().flatten() {
                    if seen.insert(q.clone()) {
                        secrets.push(q);
                    }
                }
            }
        }
        let home = home.map(|h| real(h).unwrap_or_else(|| wicket_policy::paths::normalize(h)));
        let state = state.map(|s| real(s).unwrap_or_else(|| wicket_policy::paths::normalize(s)));
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
            // A writable folder that holds a secret is fine: the secret is masked on top of it.
            if p.starts_with(s) {
                return Err(format!("is or lies inside the secret {}", s.display()));
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

/// One `denyPaths` pattern (or a deny rule's), compiled for the disk search.
struct DenyGlob {
    /// A deny rule for writing only: a match stays readable and becomes read-only.
    write_only: bool,
    /// Matches the path itself.
    glob: globset::GlobMatcher,
    /// For `x/**`: matches the folder `x`, which is then denied whole.
    folder: Option<globset::GlobMatcher>,
    /// Where the search starts; `None`: the root, matching root-relative paths.
    base: Option<PathBuf>,
}

/// What the walk of the root found at command start.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Scan {
    /// Paths `denyPaths` and the deny rules for reading matched (links replaced by their
    /// targets).
    pub(crate) denied: Vec<PathBuf>,
    /// Paths only a deny rule for writing matched: read-only in the sandbox.
    pub(crate) kept: Vec<PathBuf>,
    /// Sensitive files and folders inside the root (or reached from it by a link) that no allow
    /// rule names.
    pub(crate) secrets: Vec<PathBuf>,
    /// Repository candidates below the root (see [`crate::nested_git`]): every `.git` entry
    /// and every folder holding a `HEAD`, package trees included.
    pub(crate) repos: Vec<PathBuf>,
    /// The folders the walk stamped, for the check after the run (`None`: not stamped).
    pub(crate) stamps: Option<crate::scan_cache::Stamps>,
    /// Entries outside package trees and git folders that may run code somewhere: every
    /// dot-name, and every name the code-running list may match (see [`crate::held`]).
    pub(crate) guarded: Vec<PathBuf>,
}

fn compile_deny(patterns: &[String], home: Option<&Path>, case_insensitive: bool) -> Result<Vec<DenyGlob>, ExecError> {
    let all: Vec<(&String, bool)> = patterns.iter().map(|p| (p, false)).collect();
    compile_globs(&all, home, case_insensitive)
}

/// The team's `denyPaths` and the person's deny rules for reading (denied whole), then those
/// for writing (kept read-only).
fn deny_globs(i: &ExecInputs, case_insensitive: bool) -> Result<Vec<DenyGlob>, ExecError> {
    let all: Vec<(&String, bool)> = i
        .deny_paths
        .iter()
        .chain(&i.rule_deny_read)
        .map(|p| (p, false))
        .chain(i.rule_deny_write.iter().map(|p| (p, true)))
        .collect();
    compile_globs(&all, i.home.as_deref(), case_insensitive)
}

fn compile_globs(
    patterns: &[(&String, bool)],
    home: Option<&Path>,
    case_insensitive: bool,
) -> Result<Vec<DenyGlob>, ExecError> {
    let opts = wicket_policy::rules::GlobOptions { case_insensitive };
    let home_text = home.map(|h| h.to_string_lossy().into_owned());
    let mut globs = Vec::new();
    for (p, write_only) in patterns {
        let (p, write_only) = (*p, *write_only);
        let err = |why: String| ExecError::Pattern { pattern: p.clone(), why };
        let (glob, absolute) = wicket_policy::rules::path_glob(p, home_text.as_deref());
        let compile = |g: &str| wicket_policy::rules::compile_glob(g, opts).map(|g| g.compile_matcher());
        let matcher = compile(&glob).map_err(|e| err(e.to_string()))?;
        let folder = match glob.strip_suffix("/**") {
            Some(f) if !f.is_empty() => Some(compile(f).map_err(|e| err(e.to_string()))?),
            _ => None,
        };
        let base = absolute.then(|| literal_base(&glob));
        globs.push(DenyGlob { write_only, glob: matcher, folder, base });
    }
    Ok(globs)
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
    let globs = compile_deny(patterns, home, case_insensitive)?;
    let mut walk = Walk {
        globs: Vec::new(),
        secrets: None,
        found: Vec::new(),
        kept: Vec::new(),
        searched: 0,
        seen: None,
        repos: None,
        packages: 0,
    };
    walk.globs = globs.iter().filter(|g| g.base.is_none()).collect();
    if !walk.globs.is_empty() {
        walk.run(root)?;
    }
    absolute_denied(&globs, &mut walk.found, &mut walk.kept, &mut walk.searched)?;
    Ok(walk.found)
}

/// One walk of the root for both the team's `denyPaths` and the built-in sensitive list; then
/// the absolute `denyPaths` from their own folders.
/// With `record`, every folder read (stamped before it is read) and every link met are kept
/// for [`crate::scan_cache`]; `None` when an absolute `denyPaths` searches outside the root
/// (what is out there is not cached).
pub(crate) fn scan_root(
    root: &Path,
    homes: &[PathBuf],
    i: &ExecInputs,
    case_insensitive: bool,
    record: bool,
) -> Result<(Scan, Option<crate::scan_cache::Seen>, bool), ExecError> {
    let globs = deny_globs(i, case_insensitive)?;
    let lists = wicket_policy::lists::BuiltinLists::new()
        .map_err(|e| ExecError::Pattern { pattern: e.0.to_string(), why: e.to_string() })?
        .with_homes(homes);
    let home_text = i.home.as_ref().map(|h| h.to_string_lossy().into_owned());
    // Rules that do not parse unlock nothing (the policy reports them when it is built).
    let allow = wicket_policy::rules::RuleSet::parse(
        &i.allow,
        home_text.as_deref(),
        wicket_policy::rules::GlobOptions { case_insensitive },
    )
    .ok();
    let root_text = root.to_string_lossy().to_lowercase();
    let root_comps: Vec<String> = root_text.split('/').filter(|c| !c.is_empty()).map(String::from).collect();
    let secrets = SecretScan { lists, allow, root, root_comps, found: Vec::new(), guarded: Vec::new() };
    let mut walk = Walk {
        globs: globs.iter().filter(|g| g.base.is_none()).collect(),
        secrets: Some(secrets),
        found: Vec::new(),
        kept: Vec::new(),
        searched: 0,
        seen: record.then(crate::scan_cache::Seen::default),
        repos: Some(Vec::new()),
        packages: 0,
    };
    walk.run(root)?;
    let seen = walk.seen.take();
    // What an absolute `denyPaths` finds outside the root is not cached.
    let cacheable = globs.iter().all(|g| g.base.is_none());
    absolute_denied(&globs, &mut walk.found, &mut walk.kept, &mut walk.searched)?;
    let (secrets, guarded) = walk.secrets.map(|s| (s.found, s.guarded)).unwrap_or_default();
    let repos = walk.repos.take().unwrap_or_default();
    let kept = walk.kept;
    Ok((Scan { denied: walk.found, kept, secrets, repos, stamps: None, guarded }, seen, cacheable))
}

/// The absolute `denyPaths`, each searched from its literal folder.
fn absolute_denied(
    globs: &[DenyGlob],
    found: &mut Vec<PathBuf>,
    kept: &mut Vec<PathBuf>,
    searched: &mut usize,
) -> Result<(), ExecError> {
    for g in globs.iter().filter(|g| g.base.is_some()) {
        let Some(base) = &g.base else { continue };
        let text = base.to_string_lossy();
        if std::fs::symlink_metadata(base).is_err() {
            continue;
        }
        // The base itself may be what is denied (`~/.kube`, `/srv/secret/**`).
        if g.glob.is_match(text.as_ref()) || g.folder.as_ref().is_some_and(|f| f.is_match(text.as_ref())) {
            add_found(base, if g.write_only { &mut *kept } else { &mut *found })?;
            continue;
        }
        let mut walk = Walk {
            globs: vec![g],
            secrets: None,
            found: std::mem::take(found),
            kept: std::mem::take(kept),
            searched: *searched,
            seen: None,
            repos: None,
            packages: 0,
        };
        walk.run_from(base, false)?;
        *found = walk.found;
        *kept = walk.kept;
        *searched = walk.searched;
    }
    Ok(())
}

/// The built-in sensitive list matched by name during the walk.
struct SecretScan<'a> {
    lists: wicket_policy::lists::BuiltinLists,
    allow: Option<wicket_policy::rules::RuleSet>,
    root: &'a Path,
    /// The root's lowercase components, the start of every path matched.
    root_comps: Vec<String>,
    found: Vec<PathBuf>,
    /// See [`Scan::guarded`].
    guarded: Vec<PathBuf>,
}

impl SecretScan<'_> {
    /// Note an entry that may run code somewhere (its lowercase name `lname`, in a folder with
    /// lowercase components `comps` below the root), for [`crate::held`]. Git folders are left
    /// to the checks for repositories.
    fn note_guarded(&mut self, comps: &[String], lname: &str, path: &Path) {
        if comps.iter().any(|c| c == ".git") || lname == ".git" {
            return;
        }
        if lname.starts_with('.') || self.lists.config.may_match_name(lname) {
            self.guarded.push(path.to_path_buf());
        }
    }

    /// Look at one entry (its lowercase name, in a folder with lowercase components `comps`
    /// below the root). True when it is masked (a folder is then not entered).
    fn check(
        &mut self,
        comps: &[String],
        lname: &str,
        path: &Path,
        is_dir: bool,
        is_link: bool,
    ) -> Result<bool, ExecError> {
        let named = self.lists.sensitive.may_match_name(lname)
            || wicket_policy::lists::HOME_SENSITIVE
                .iter()
                .any(|h| h.rsplit('/').next().is_some_and(|l| l.eq_ignore_ascii_case(lname)));
        let hit = named && {
            let abs: String =
                self.root_comps.iter().chain(comps).map(|c| format!("/{c}")).collect::<String>() + "/" + lname;
            // A folder is hidden when what is inside it is sensitive (`.ssh/`, `.aws/`), not
            // when only its name is (a `credentials/` source folder).
            let probe = if is_dir { format!("{abs}/\0") } else { abs };
            self.lists.classify(&probe).sensitive.is_some()
        };
        if is_link {
            // A link is masked through its target: named like a secret, or leading to one.
            let Ok(target) = std::fs::canonicalize(path) else { return Ok(false) };
            let target_hit = hit || self.lists.classify(&target.to_string_lossy()).sensitive.is_some();
            if target_hit && !self.unlocked(&[path, &target]) {
                self.add(target)?;
            }
            return Ok(false);
        }
        if hit && !self.unlocked(&[path]) {
            self.add(path.to_path_buf())?;
            return Ok(true);
        }
        Ok(false)
    }

    /// An allow rule names every one of these paths for `read_file`, as the gate's unlock.
    fn unlocked(&self, paths: &[&Path]) -> bool {
        let Some(allow) = &self.allow else { return false };
        paths.iter().all(|p| {
            let abs = p.to_string_lossy();
            let rel = p.strip_prefix(self.root).ok().map(|r| r.to_string_lossy().into_owned());
            allow
                .match_path_named("read_file", wicket_policy::rules::PathView { rel: rel.as_deref(), abs: &abs })
                .is_some()
        })
    }

    fn add(&mut self, p: PathBuf) -> Result<(), ExecError> {
        push_unique(&mut self.found, p);
        if self.found.len() > MAX_PROJECT_SECRETS {
            return Err(ExecError::TooManySecrets { example: self.found[0].display().to_string() });
        }
        Ok(())
    }
}

/// A walk of a folder tree: `denyPaths` globs and, below the root, the sensitive list.
struct Walk<'g, 'a> {
    globs: Vec<&'g DenyGlob>,
    secrets: Option<SecretScan<'a>>,
    found: Vec<PathBuf>,
    /// What only a deny rule for writing matched.
    kept: Vec<PathBuf>,
    searched: usize,
    /// The folders read and links met, for the cache.
    seen: Option<crate::scan_cache::Seen>,
    /// Repository candidates (`.git` entries, folders with a `HEAD`), when collected: then
    /// package trees are entered too, for them alone.
    repos: Option<Vec<PathBuf>>,
    /// Entries looked at inside package trees (counted apart: they are not searched for secrets).
    packages: usize,
}

/// Entries looked at inside package trees (`node_modules` …) for repositories; a bigger tree
/// refuses the command, as a bigger project does.
pub const MAX_PACKAGE_ENTRIES: usize = 4 * MAX_SEARCHED;

impl Walk<'_, '_> {
    fn run(&mut self, root: &Path) -> Result<(), ExecError> {
        self.run_from(root, true)
    }

    /// Walk below `base`; `relative`: globs match paths relative to `base`.
    fn run_from(&mut self, base: &Path, relative: bool) -> Result<(), ExecError> {
        // Each folder with its lowercase components below `base`, and whether secrets are
        // looked for in it.
        let mut stack: Vec<(PathBuf, Vec<String>, bool)> = vec![(base.to_path_buf(), Vec::new(), true)];
        let mut lname = String::new();
        while let Some((dir, comps, look)) = stack.pop() {
            // Stamped before it is read: a change made while it is read moves its change time
            // past the stamp, and the next run sees it.
            if let Some(seen) = self.seen.as_mut() {
                seen.folder(&dir);
            }
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) => {
                    if let Some(seen) = self.seen.as_mut() {
                        seen.unreadable();
                    }
                    // A folder that vanished holds nothing. One that cannot be read (its mode,
                    // a path past PATH_MAX) may hide a secret, a denied file or a repository
                    // from this walk: it is hidden whole, never skipped (see `unwalkable`).
                    if e.kind() != std::io::ErrorKind::NotFound && dir != base {
                        let hide = unwalkable(&dir, base);
                        match self.secrets.as_mut() {
                            Some(sc) => sc.add(hide)?,
                            None => add_found(&hide, &mut self.found)?,
                        }
                    }
                    continue;
                }
            };
            let mut has_head = false;
            for e in entries {
                let Ok(e) = e else {
                    // A listing cut short cannot be compared later: nothing is cached.
                    if let Some(seen) = self.seen.as_mut() {
                        seen.cut_short();
                    }
                    continue;
                };
                if !look && self.globs.is_empty() {
                    self.packages += 1;
                } else {
                    self.searched += 1;
                }
                if self.searched > MAX_SEARCHED || self.packages > MAX_PACKAGE_ENTRIES {
                    let base = base.display().to_string();
                    return Err(if self.secrets.is_some() {
                        ExecError::TooBigProject { base }
                    } else {
                        ExecError::TooBig { base }
                    });
                }
                let ft = e.file_type().ok();
                let is_dir = ft.is_some_and(|t| t.is_dir());
                let is_link = ft.is_some_and(|t| t.is_symlink());
                if let Some(seen) = self.seen.as_mut() {
                    seen.entry(&e.file_name(), ft);
                }
                let path = e.path();
                if is_link {
                    if let Some(seen) = self.seen.as_mut() {
                        seen.link(&path);
                    }
                }
                if let Some(repos) = self.repos.as_mut() {
                    let name = e.file_name();
                    if crate::nested_git::is_candidate_name(&name) {
                        repos.push(path.clone());
                    }
                    has_head |= name == "HEAD";
                }
                if !self.globs.is_empty() {
                    let text = if relative {
                        match path.strip_prefix(base) {
                            Ok(r) => r.to_string_lossy().into_owned(),
                            Err(_) => continue,
                        }
                    } else {
                        path.to_string_lossy().into_owned()
                    };
                    let hit = |g: &&DenyGlob| {
                        (is_dir && g.folder.as_ref().is_some_and(|f| f.is_match(&text))) || g.glob.is_match(&text)
                    };
                    if self.globs.iter().filter(|g| !g.write_only).any(hit) {
                        add_found(&path, &mut self.found)?;
                        if is_dir {
                            continue;
                        }
                    } else if self.globs.iter().filter(|g| g.write_only).any(hit)
                        && !self.kept.iter().any(|k| path.starts_with(k))
                    {
                        // Entered still: a deny rule for reading may match inside.
                        add_found(&path, &mut self.kept)?;
                    }
                }
                let mut look = look;
                if !look && !is_dir {
                    continue;
                }
                let name = e.file_name();
                let name = name.to_string_lossy();
                lname.clear();
                if name.is_ascii() {
                    lname.push_str(&name);
                    lname.make_ascii_lowercase();
                } else {
                    lname.push_str(&name.to_lowercase());
                }
                if let Some(sc) = self.secrets.as_mut().filter(|_| look) {
                    // Noted also when masked: a secret there at the start is not new after the run.
                    sc.note_guarded(&comps, &lname, &path);
                    if sc.check(&comps, &lname, &path, is_dir, is_link)? {
                        continue;
                    }
                    // Package managers' trees: see [`SCAN_SKIPPED`]; `denyPaths` still reach in.
                    if is_dir && SCAN_SKIPPED.contains(&lname.as_str()) {
                        look = false;
                    }
                }
                if !look && self.globs.is_empty() && self.repos.is_none() {
                    continue;
                }
                if is_dir {
                    let mut c = comps.clone();
                    c.push(lname.clone());
                    stack.push((path, c, look));
                }
            }
            if has_head {
                if let Some(repos) = self.repos.as_mut() {
                    repos.push(dir.clone());
                }
            }
        }
        Ok(())
    }
}

/// The folder before a glob's first wildcard (`/srv/a/*/b` → `/srv/a`).
pub(crate) fn literal_base(glob: &str) -> PathBuf {
    let mut base = PathBuf::from("/");
    for seg in glob.split('/').filter(|s| !s.is_empty()) {
        if seg.contains(['*', '?', '[', '{', '\\']) {
            break;
        }
        base.push(seg);
    }
    base
}

/// Longest path the sandbox can mask: a mount point's path must fit in PATH_MAX (4096 bytes
/// with its NUL), with room for what bubblewrap puts before it.
pub const MAX_MASK_PATH: usize = 3800;

/// What to hide for a folder the walk could not read: the folder, or, when its path is too long
/// to mask, its deepest ancestor whose path is short enough (never above `base`).
fn unwalkable(dir: &Path, base: &Path) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    dir.ancestors()
        .take_while(|a| a.starts_with(base) && *a != base)
        .find(|a| a.as_os_str().as_bytes().len() <= MAX_MASK_PATH)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| dir.to_path_buf())
}

/// [`unwalkable`], for the check after the run.
pub(crate) fn unwalkable_path(dir: &Path, base: &Path) -> PathBuf {
    unwalkable(dir, base)
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

    /// While a policy is built, a real path found through its folder's (remembered) real path
    /// is the one `realpath` finds: through links in the middle and at the end, for dangling
    /// links, missing paths and paths with `..`.
    #[test]
    fn real_paths_while_building_are_realpaths() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        for d in ["a/b/c", "x/y"] {
            std::fs::create_dir_all(base.join(d)).expect("mkdir");
        }
        std::fs::write(base.join("a/b/c/f"), "f").expect("write");
        std::os::unix::fs::symlink(base.join("a/b"), base.join("x/y/to-b")).expect("link");
        std::os::unix::fs::symlink("c/f", base.join("a/b/to-f")).expect("link");
        std::os::unix::fs::symlink(base.join("gone"), base.join("a/dangling")).expect("link");
        let asked = [
            "a/b/c/f",
            "x/y/to-b/c/f",
            "x/y/to-b/to-f",
            "a/b/to-f",
            "a/dangling",
            "a/missing/f",
            "x/y/../../a/b/c",
            "x/y/to-b/../b/c",
            "",
        ];
        let want: Vec<Option<PathBuf>> = asked.iter().map(|a| std::fs::canonicalize(base.join(a)).ok()).collect();
        let _reals = Reals::begin();
        for _ in 0..2 {
            let got: Vec<Option<PathBuf>> = asked.iter().map(|a| real(&base.join(a))).collect();
            assert_eq!(got, want);
        }
    }

    /// The secrets found through one listing of a folder are those a lookup of each finds: a
    /// folder, a file inside one, a link to one elsewhere, next to unrelated names; with a name
    /// that is not ASCII every path is looked up; an unreadable or missing folder holds none.
    #[test]
    fn secrets_found_from_a_listing_are_those_each_lookup_finds() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let names = home_secrets();
        for (i, extra) in ["", "Téléchargements"].iter().enumerate() {
            let home = base.join(format!("home{i}"));
            for d in [".ssh", ".aws", "src", ".config/gh", "dotfiles/gnupg"] {
                std::fs::create_dir_all(home.join(d)).expect("mkdir");
            }
            std::fs::write(home.join(".aws/credentials"), "k").expect("write");
            std::fs::write(home.join(".netrc"), "k").expect("write");
            std::os::unix::fs::symlink(home.join("dotfiles/gnupg"), home.join(".gnupg")).expect("link");
            if !extra.is_empty() {
                std::fs::create_dir(home.join(extra)).expect("mkdir");
            }
            let want: Vec<Option<PathBuf>> = names.iter().map(|n| real(&home.join(n))).collect();
            assert!(want.iter().flatten().any(|p| p.ends_with("dotfiles/gnupg")), "{want:?}");
            assert_eq!(secrets_in(&home, &names), want, "{extra:?}");
        }
        assert!(secrets_in(&base.join("missing"), &names).iter().all(Option::is_none));
    }

    /// The paths the root-only search begins with before the policy is built are the policy's
    /// own writable paths and root, in every mode and with every kind of writable path.
    #[test]
    fn the_early_writable_paths_are_the_policys() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let (root, home) = (base.join("proj"), base.join("home"));
        for d in ["proj", "home/.npm", "home/.cache", "out", "dotcargo-git"] {
            std::fs::create_dir_all(base.join(d)).expect("mkdir");
        }
        std::os::unix::fs::symlink(base.join("dotcargo-git"), home.join(".cargo-git")).expect("link");
        for mode in [Mode::Default, Mode::Plan] {
            for write_paths in [vec![], vec![base.join("out").display().to_string(), "~/.npm".into()]] {
                let i = ExecInputs {
                    root: root.clone(),
                    home: Some(home.clone()),
                    mode,
                    write_paths,
                    ..Default::default()
                };
                let p = exec_policy(&i).expect("policy");
                let mut want = p.writable.clone();
                want.push(p.root.clone());
                assert_eq!(writable_and_root(&i), want, "{mode:?}, {:?}", i.write_paths);
            }
        }
    }

    #[test]
    fn package_caches_are_listed_for_their_layers_unless_named_in_write_paths() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let (root, home) = (base.join("proj"), base.join("home"));
        for d in ["proj", "home/.npm", "home/.cargo/registry", "home/.cache", "dotcargo-git"] {
            std::fs::create_dir_all(base.join(d)).expect("mkdir");
        }
        // A cache that is a link: its real path is what gets the layer.
        std::os::unix::fs::symlink(base.join("dotcargo-git"), home.join(".cargo/git")).expect("link");
        let inputs = |write_paths: Vec<String>| ExecInputs {
            root: root.clone(),
            home: Some(home.clone()),
            write_paths,
            ..Default::default()
        };
        let p = exec_policy(&inputs(vec![])).expect("policy");
        let mut got = p.caches.clone();
        got.sort();
        let mut want =
            vec![home.join(".npm"), home.join(".cargo/registry"), home.join(".cache"), base.join("dotcargo-git")];
        want.sort();
        assert_eq!(got, want);
        assert!(want.iter().all(|c| p.writable.contains(c)), "the sandbox decides: a layer, or read-only");
        // Named in writePaths: the person chose to write it in place.
        let p = exec_policy(&inputs(vec!["~/.npm".into()])).expect("policy");
        assert!(!p.caches.contains(&home.join(".npm")) && p.writable.contains(&home.join(".npm")));
    }

    #[test]
    fn a_missing_npm_cache_is_made_only_when_npm_is_on_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let (home, bin, nobin) = (base.join("home"), base.join("bin"), base.join("nobin"));
        for d in [&home, &bin, &nobin] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(bin.join("npm"), "#!/bin/sh\n").expect("npm");
        make_missing_caches(&home, Some(nobin.as_os_str()), &[]);
        assert!(!home.join(".npm").exists(), "no npm on PATH: nothing is made");
        let both = std::env::join_paths([&nobin, &bin]).expect("path");
        make_missing_caches(&home, Some(both.as_os_str()), std::slice::from_ref(&home));
        assert!(!home.join(".npm").exists(), "not inside wicket's state (a home that is WICKET_HOME)");
        make_missing_caches(&home, Some(both.as_os_str()), &[]);
        assert!(home.join(".npm").is_dir(), "npm on PATH: its cache is made");
        // What is there already stays: a link (even one that points nowhere) is not followed.
        let other = base.join("home2");
        std::fs::create_dir_all(&other).expect("mkdir");
        std::os::unix::fs::symlink(base.join("nowhere"), other.join(".npm")).expect("link");
        make_missing_caches(&other, Some(bin.as_os_str()), &[]);
        assert!(!base.join("nowhere").exists(), "the dangling link was followed");
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

    fn lay(root: &Path, files: &[&str]) {
        for f in files {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, "x").expect("write");
        }
    }

    #[test]
    fn project_secrets_are_found_on_disk_and_named_ones_stay_readable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("real").join("proj");
        lay(
            &root,
            &[
                "a/b/c/.env",
                ".env.test",
                "src/credentials/mod.rs",
                "certs/server.KEY",
                "dots/.aws/credentials",
                "node_modules/pkg/test/key.pem",
                ".venv/lib/python3/site-packages/certifi/cacert.pem",
                "src/main.rs",
            ],
        );
        let inputs = |allow: &[&str]| ExecInputs {
            root: root.clone(),
            allow: allow.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let p = exec_policy(&inputs(&[])).expect("policy");
        let mut got = p.masked.clone();
        got.sort();
        let mut want = vec![
            root.join("a/b/c/.env"),
            root.join(".env.test"),
            root.join("certs/server.KEY"),
            root.join("dots/.aws"),
        ];
        want.sort();
        assert_eq!(got, want, "a folder is hidden for what is in it, package trees are not entered");
        assert!(want.iter().all(|w| p.unreadable.contains(w)));
        // A rule that names the file keeps it readable; a wildcard does not.
        let p =
            exec_policy(&inputs(&["read_file(.env.test)", "read_file(**)", "read_file(a/**/.env*)"])).expect("policy");
        assert!(!p.masked.contains(&root.join(".env.test")));
        assert!(p.masked.contains(&root.join("a/b/c/.env")));
        // A link inside the project leading to a secret elsewhere masks the secret.
        let outside = root.parent().expect("parent").join("keys");
        lay(&outside, &["id_ed25519"]);
        std::os::unix::fs::symlink(outside.join("id_ed25519"), root.join("notes.txt")).expect("link");
        let p = exec_policy(&inputs(&[])).expect("policy");
        assert!(p.masked.contains(&outside.join("id_ed25519")), "{:?}", p.masked);
    }

    #[test]
    fn home_secrets_are_masked_by_real_path_in_every_home() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let root = base.join("proj");
        let home = base.join("home");
        lay(
            &base,
            &["proj/a.rs", "dotfiles/ssh/id_rsa", "home/.config/rclone/rclone.conf", "home/.docker/config.json"],
        );
        std::os::unix::fs::symlink(base.join("dotfiles/ssh"), home.join(".ssh")).expect("link");
        let p = exec_policy(&ExecInputs { root, home: Some(home.clone()), ..Default::default() }).expect("policy");
        assert!(p.unreadable.contains(&base.join("dotfiles/ssh")), "the link's target: {:?}", p.unreadable);
        assert!(!p.unreadable.contains(&home.join(".ssh")));
        assert!(p.unreadable.contains(&home.join(".config/rclone/rclone.conf")));
        assert!(p.unreadable.contains(&home.join(".docker")));
        assert!(!p.unreadable.contains(&home.join(".docker/config.json")), "nothing to mask inside a masked folder");
        // The account's own home is masked too when HOME points elsewhere.
        if let Some(real) = wicket_policy::paths::account_home().and_then(|h| std::fs::canonicalize(h).ok()) {
            if real.join(".ssh").exists() {
                assert!(p.unreadable.contains(&std::fs::canonicalize(real.join(".ssh")).expect("real")));
            }
        }
    }

    /// Repositories below the root, package trees included, are found by the walk, protected
    /// like the root's (without placeholders), and remembered by the cache: a warm run finds
    /// them without walking.
    #[test]
    fn nested_repositories_are_found_protected_and_cached() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let root = base.join("proj");
        let git = |g: &Path, config: &str| {
            for d in ["objects", "refs", "hooks"] {
                std::fs::create_dir_all(g.join(d)).expect("mkdir");
            }
            std::fs::write(g.join("HEAD"), "ref: refs/heads/main\n").expect("write");
            std::fs::write(g.join("config"), config).expect("write");
        };
        git(&root.join("vendor/x/.git"), "[core]\n\tbare = false\n");
        git(&root.join("node_modules/pkg/.git"), "");
        git(&root.join("embedded"), "");
        lay(&root, &["src/a.rs"]);
        let inputs =
            ExecInputs { root: root.clone(), scan_cache: Some(base.join("state/cache/scan/p")), ..Default::default() };
        let (p, pending) = exec_policy_deferred(&inputs).expect("policy");
        assert!(pending.is_none(), "the first run walks");
        for g in ["vendor/x/.git", "node_modules/pkg/.git", "embedded"] {
            assert!(p.git_dirs.contains(&root.join(g)), "{g}: {:?}", p.git_dirs);
            assert!(p.read_only.iter().any(|(q, _)| *q == root.join(g).join("config")), "{g}/config read-only");
            assert!(p.read_only.iter().any(|(q, _)| *q == root.join(g).join("hooks")), "{g}/hooks read-only");
            assert!(!p.placeholders.iter().any(|q| q.starts_with(root.join(g))), "no placeholders in {g}");
        }
        assert!(!p.read_only.iter().any(|(q, _)| *q == root.join("vendor/x/.git/objects")), "data stays writable");
        let known = |p: &ExecPolicy| {
            let mut k: Vec<PathBuf> = p.git_watch.as_ref().expect("watch").known().map(Path::to_path_buf).collect();
            k.sort();
            k
        };
        let mut want = vec![root.join("embedded"), root.join("node_modules/pkg/.git"), root.join("vendor/x/.git")];
        want.sort();
        assert_eq!(known(&p), want);
        // The cache (kept out of the temp folders the policy makes writable, as wicket's own
        // state is): written by a walk, then read back with the repositories.
        let i = ExecInputs { root: root.clone(), scan_cache: inputs.scan_cache.clone(), ..Default::default() };
        let (_, pending) = crate::scan_cache::scan(&root, &[], &i, false, &[], true).expect("scan");
        assert!(pending.is_none(), "walked and cached");
        std::thread::sleep(crate::scan_cache::RACY + Duration::from_millis(300));
        let (warm, pending) = crate::scan_cache::scan(&root, &[], &i, false, &[], true).expect("scan");
        assert!(pending.is_some_and(|c| c.holds()), "the warm run uses the cache");
        let mut repos = warm.repos.clone();
        repos.sort();
        repos.dedup();
        assert_eq!(repos, want, "the cache remembers the repositories");
        assert!(warm.stamps.is_some(), "and the stamps for the check after the run");
    }

    #[test]
    fn the_sandbox_lists_are_the_gate_lists() {
        let lists = wicket_policy::lists::BuiltinLists::new().expect("lists");
        for (rel, dir) in ROOT_READ_ONLY {
            let p = format!("/p/{rel}{}", if *dir { "/x" } else { "" });
            let c = lists.classify(&p);
            assert!(
                c.protected.is_some() || c.config.is_some(),
                "{rel} is read-only in the sandbox but free in the gate"
            );
        }
        for (rel, dir, _) in HOME_READ_ONLY {
            let p = format!("/h/{rel}{}", if *dir { "/x" } else { "" });
            assert!(lists.classify(&p).config.is_some(), "{rel} is read-only in the sandbox but free in the gate");
        }
        for p in ROOT_PLACEHOLDERS {
            assert!(ROOT_READ_ONLY.iter().any(|(r, _)| r == p), "{p}");
        }
        let home = wicket_policy::lists::BuiltinLists::new().expect("lists").with_homes(&["/h"]);
        for s in home_secrets() {
            let gate = |p: String| home.classify(&p).sensitive.is_some();
            assert!(gate(format!("/h/{s}")), "{s} is masked but readable by the gate");
            // A folder mask hides everything in it: the gate must refuse those reads too.
            let below = format!("/h/{s}/x");
            let folder = wicket_policy::lists::SENSITIVE.contains(&format!("**/{s}/**").as_str())
                || wicket_policy::lists::HOME_SENSITIVE.contains(&s);
            assert!(!folder || gate(below), "{s}/ is masked but its files are readable by the gate");
        }
        for old in
            [".ssh", ".aws", ".docker", ".config/gh", ".netrc", "Library/Keychains", ".codex/auth.json", ".wicket"]
        {
            assert!(home_secrets().contains(&old), "{old}");
        }
    }
}
