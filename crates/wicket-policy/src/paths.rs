//! The path guard: where a path really is, and whether it is inside the root.
//!
//! The hard question: what file will a tool really touch? A path is checked twice, as written
//! (lexically, `..` folded) and as a real path (the existing part resolved through symbolic
//! links, the missing tail added back), so neither `../` nor a link can lead out of the root
//! unseen. Anything that cannot be resolved is an error: callers deny or ask, never allow.
//! What the disk says comes from a [`Disk`]: the [`PathEnv`]'s, or the real one for the free
//! functions that have none.

use std::path::{Component, Path, PathBuf};

use crate::disk::{Disk, Kind, RealDisk};

/// Where paths are resolved.
#[derive(Debug, Clone)]
pub struct PathEnv {
    /// The project root, absolute and lexically normal.
    pub root: PathBuf,
    /// The root's real path.
    pub real_root: PathBuf,
    /// The person's home folder, for `~`.
    pub home: Option<PathBuf>,
    /// Where paths are looked up.
    pub disk: &'static dyn Disk,
}

impl PathEnv {
    /// Resolve the root once, on the real disk. A root that does not exist is an error.
    pub fn new(root: &Path, home: Option<PathBuf>) -> Result<PathEnv, PathError> {
        PathEnv::with_disk(root, home, &RealDisk)
    }

    /// Resolve the root once, on `disk`. A root that does not exist is an error.
    pub fn with_disk(root: &Path, home: Option<PathBuf>, disk: &'static dyn Disk) -> Result<PathEnv, PathError> {
        let abs = if root.is_absolute() {
            root.to_path_buf()
        } else {
            disk.current_dir().map_err(|e| PathError::Root(root.display().to_string(), e.to_string()))?.join(root)
        };
        let root = normalize(&abs);
        let real_root =
            disk.real_path(&root).map_err(|e| PathError::Root(root.display().to_string(), e.to_string()))?;
        Ok(PathEnv { root, real_root, home, disk })
    }
}

/// A path that cannot be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The path is empty.
    #[error("the path is empty")]
    Empty,
    /// The path holds a NUL byte.
    #[error("the path {0:?} holds a NUL byte")]
    Nul(String),
    /// `~user` names no known user, or there is no home folder.
    #[error("cannot expand {0:?}: no such user or no home folder")]
    Tilde(String),
    /// The root cannot be resolved.
    #[error("the root {0:?} cannot be resolved: {1}")]
    Root(String, String),
    /// The path is too long.
    #[error("the path is longer than 4096 bytes")]
    TooLong,
}

/// A resolved path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// The path as given.
    pub input: String,
    /// Absolute, `~` expanded, `.` and `..` folded lexically.
    pub lexical: PathBuf,
    /// The real path: the existing prefix through symbolic links, the missing tail appended.
    pub real: PathBuf,
    /// `lexical` relative to the root, when inside it (`""` for the root itself).
    pub rel: Option<String>,
    /// `real` relative to the real root, when inside it.
    pub real_rel: Option<String>,
    /// True when the path as written is a symbolic link or passes through one.
    pub via_link: bool,
    /// Hard-link count of an existing regular file (0 when missing or not a file).
    pub links: u64,
    lexical_text: String,
    real_text: String,
}

impl ResolvedPath {
    /// Inside the root both as written and as a real path.
    pub fn inside(&self) -> bool {
        self.rel.is_some() && self.real_rel.is_some()
    }

    /// The lexical path as text.
    pub fn lexical_str(&self) -> &str {
        &self.lexical_text
    }

    /// The real path as text.
    pub fn real_str(&self) -> &str {
        &self.real_text
    }

    /// The path as written and, when a link makes it another path, the real path: what every
    /// path check looks at (a deny applies if either matches; an allow needs both).
    pub fn views(&self) -> impl Iterator<Item = crate::rules::PathView<'_>> {
        let lexical = crate::rules::PathView { rel: self.rel.as_deref(), abs: &self.lexical_text };
        let real = (self.real_text != self.lexical_text || self.rel != self.real_rel)
            .then(|| crate::rules::PathView { rel: self.real_rel.as_deref(), abs: &self.real_text });
        std::iter::once(lexical).chain(real)
    }
}

/// Fold `.` and `..` without touching the disk (`..` at `/` stays at `/`).
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Prefix(x) => out.push(x.as_os_str()),
            Component::RootDir => out.push("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// Expand `~`, `~/x` and `~user/x`, reading `/etc/passwd` from the real disk.
pub fn expand_tilde(input: &str, home: Option<&Path>) -> Result<PathBuf, PathError> {
    expand_tilde_on(input, home, &RealDisk)
}

/// Expand `~`, `~/x` and `~user/x`, reading `/etc/passwd` from `disk`.
pub fn expand_tilde_on(input: &str, home: Option<&Path>, disk: &dyn Disk) -> Result<PathBuf, PathError> {
    let Some(rest) = input.strip_prefix('~') else {
        return Ok(PathBuf::from(input));
    };
    let (user, tail) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    };
    let base = if user.is_empty() {
        home.map(Path::to_path_buf).ok_or_else(|| PathError::Tilde(input.to_string()))?
    } else {
        home_of(user, disk).ok_or_else(|| PathError::Tilde(input.to_string()))?
    };
    Ok(if tail.is_empty() { base } else { base.join(tail) })
}

/// A user's home folder from `/etc/passwd`.
fn home_of(user: &str, disk: &dyn Disk) -> Option<PathBuf> {
    let passwd = disk.read_text(Path::new("/etc/passwd")).ok()?;
    passwd.lines().find_map(|line| {
        let mut f = line.split(':');
        (f.next()? == user).then(|| f.nth(4).map(PathBuf::from))?
    })
}

/// The home folder of the account this process runs as, from `/etc/passwd` (what `getpwuid`
/// answers for local accounts; accounts served by a directory over the network are not looked
/// up, so the core never blocks). `None` when there is none or it cannot be read.
pub fn account_home() -> Option<PathBuf> {
    account_home_on(&RealDisk)
}

/// [`account_home`], reading `/etc/passwd` from `disk`.
pub fn account_home_on(disk: &dyn Disk) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        let uid = rustix::process::getuid().as_raw().to_string();
        let passwd = disk.read_text(Path::new("/etc/passwd")).ok()?;
        passwd.lines().find_map(|line| {
            let f: Vec<&str> = line.split(':').collect();
            (f.len() >= 6 && f[2] == uid && f[5].starts_with('/')).then(|| PathBuf::from(f[5]))
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = disk;
        None
    }
}

/// The home folders whose secrets are hidden: `$HOME` as given and the account's own home
/// when it differs (a changed `HOME` must not expose the real one).
pub fn homes(home: Option<&Path>) -> Vec<PathBuf> {
    homes_on(home, &RealDisk)
}

/// [`homes`], reading `/etc/passwd` from `disk`.
pub fn homes_on(home: Option<&Path>, disk: &dyn Disk) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = home.map(Path::to_path_buf).into_iter().collect();
    if let Some(real) = account_home_on(disk) {
        if !out.iter().any(|h| normalize(h) == normalize(&real)) {
            out.push(real);
        }
    }
    out
}

/// `/proc/self/root/x` is `/x`, `/proc/self/cwd/x` is the root's `x` (commands run there):
/// rewrite these aliases before any check.
fn proc_alias(p: &Path, env: &PathEnv) -> PathBuf {
    let mut comps = p.components();
    let head: Vec<_> = comps.by_ref().take(4).collect();
    if head.len() >= 4
        && head[0] == Component::RootDir
        && head[1].as_os_str() == "proc"
        && matches!(head[2].as_os_str().to_str(), Some("self" | "thread-self"))
    {
        let rest: PathBuf = comps.collect();
        match head[3].as_os_str().to_str() {
            Some("root") => return PathBuf::from("/").join(rest),
            Some("cwd") => return env.root.join(rest),
            _ => {}
        }
    }
    p.to_path_buf()
}

/// Resolve the real path: follow links through every existing component, keep the missing
/// tail as written. `..` after a link is applied to the link's target, as the kernel does.
fn real_path(p: &Path, disk: &dyn Disk) -> (PathBuf, bool, Option<u64>) {
    match disk.look_up(p) {
        // Fast path: the whole path exists.
        crate::disk::Lookup::Found(e) => return (e.real, e.via_link, Some(e.links)),
        // Nothing there, and plain folders up to where it stops: what the walk below would
        // find, in one look instead of one per component.
        crate::disk::Lookup::Missing => return (normalize(p), false, Some(0)),
        crate::disk::Lookup::Unknown => {}
    }
    let mut cur = PathBuf::from("/");
    let mut missing = false;
    let mut via_link = false;
    for c in p.components() {
        match c {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                cur.pop();
            }
            Component::Normal(n) => {
                let next = cur.join(n);
                if missing {
                    cur = next;
                    continue;
                }
                match disk.lstat(&next) {
                    Some(Kind::Link) => {
                        via_link = true;
                        match disk.real_path(&next) {
                            Ok(r) => cur = r,
                            // A dangling link: where it points is where a write would land.
                            Err(_) => match disk.read_link(&next) {
                                Ok(t) => {
                                    cur = normalize(&if t.is_absolute() { t } else { cur.join(t) });
                                    missing = true;
                                }
                                Err(_) => {
                                    cur = next;
                                    missing = true;
                                }
                            },
                        }
                    }
                    Some(_) => cur = next,
                    None => {
                        cur = next;
                        missing = true;
                    }
                }
            }
        }
    }
    (cur, via_link, None)
}

/// What a command argument is on disk, as far as the path checks care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgPath {
    /// Nothing there (most arguments are not paths).
    Missing,
    /// An existing path with no link on the way; `links` is the hard-link count of a file.
    Plain {
        /// Hard-link count (0 for a folder or special file).
        links: u64,
    },
    /// Some component is a symbolic link: the real path must be checked.
    ViaLink,
}

/// Classify an argument path on the real disk (the engine asks its [`PathEnv`]'s disk).
pub fn arg_path(p: &Path) -> ArgPath {
    RealDisk.arg_path(p)
}

fn relative(p: &Path, base: &Path) -> Option<String> {
    let rest = p.strip_prefix(base).ok()?;
    Some(rest.to_string_lossy().into_owned())
}

/// Resolve a path given by a call against the root.
pub fn resolve(env: &PathEnv, input: &str) -> Result<ResolvedPath, PathError> {
    if input.is_empty() {
        return Err(PathError::Empty);
    }
    if input.contains('\0') {
        return Err(PathError::Nul(input.to_string()));
    }
    if input.len() > 4096 {
        return Err(PathError::TooLong);
    }
    let expanded = expand_tilde_on(input, env.home.as_deref(), env.disk)?;
    let abs = if expanded.is_absolute() { expanded } else { env.root.join(expanded) };
    let abs = proc_alias(&abs, env);
    let lexical = normalize(&abs);
    let (real, mut via_link, known_links) = real_path(&abs, env.disk);
    // Hard-link count of a regular file (0 when missing or not a file).
    let links = known_links.unwrap_or_else(|| env.disk.stat(&real).map_or(0, |s| s.links));
    // The root itself may sit behind a link (macOS /tmp → /private/tmp): that is not a
    // link the call chose.
    if via_link {
        let rel_lex = relative(&lexical, &env.root);
        let rel_real = relative(&real, &env.real_root);
        if rel_lex.is_some() && rel_lex == rel_real {
            via_link = false;
        }
    }
    Ok(ResolvedPath {
        lexical_text: lexical.to_string_lossy().into_owned(),
        real_text: real.to_string_lossy().into_owned(),
        input: input.to_string(),
        rel: relative(&lexical, &env.root),
        real_rel: relative(&real, &env.real_root),
        lexical,
        real,
        via_link,
        links,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sibling_of_root_is_outside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("proj");
        std::fs::create_dir(&root).expect("mkdir");
        std::fs::create_dir(dir.path().join("proj_evil")).expect("mkdir");
        let env = PathEnv::new(&root, None).expect("env");
        let r = resolve(&env, "../proj_evil/x").expect("resolve");
        assert!(!r.inside());
        let r = resolve(&env, "a/../b").expect("resolve");
        assert_eq!(r.rel.as_deref(), Some("b"));
        assert!(r.inside());
    }
}
