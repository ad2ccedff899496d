//! The path guard: where a path really is, and whether it is inside the root.
//!
//! The hard question: what file will a tool really touch? A path is checked twice, as written
//! (lexically, `..` folded) and as a real path (the existing part resolved through symbolic
//! links, the missing tail added back), so neither `../` nor a link can lead out of the root
//! unseen. Anything that cannot be resolved is an error: callers deny or ask, never allow.

// An edge module of this otherwise pure crate: it resolves real paths, the home folder and /etc/passwd.
#![allow(clippy::disallowed_methods)]

use std::path::{Component, Path, PathBuf};

/// Where paths are resolved.
#[derive(Debug, Clone)]
pub struct PathEnv {
    /// The project root, absolute and lexically normal.
    pub root: PathBuf,
    /// The root's real path.
    pub real_root: PathBuf,
    /// The person's home folder, for `~`.
    pub home: Option<PathBuf>,
}

impl PathEnv {
    /// Resolve the root once. A root that does not exist is an error.
    pub fn new(root: &Path, home: Option<PathBuf>) -> Result<PathEnv, PathError> {
        let abs = if root.is_absolute() {
            root.to_path_buf()
        } else {
            std::env::current_dir().map_err(|e| PathError::Root(root.display().to_string(), e.to_string()))?.join(root)
        };
        let root = normalize(&abs);
        let real_root =
            std::fs::canonicalize(&root).map_err(|e| PathError::Root(root.display().to_string(), e.to_string()))?;
        Ok(PathEnv { root, real_root, home })
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

/// Expand `~`, `~/x` and `~user/x`.
pub fn expand_tilde(input: &str, home: Option<&Path>) -> Result<PathBuf, PathError> {
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
        home_of(user).ok_or_else(|| PathError::Tilde(input.to_string()))?
    };
    Ok(if tail.is_empty() { base } else { base.join(tail) })
}

/// A user's home folder from `/etc/passwd`.
fn home_of(user: &str) -> Option<PathBuf> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let mut f = line.split(':');
        (f.next()? == user).then(|| f.nth(4).map(PathBuf::from))?
    })
}

/// The home folder of the account this process runs as, from `/etc/passwd` (what `getpwuid`
/// answers for local accounts; accounts served by a directory over the network are not looked
/// up, so the core never blocks). `None` when there is none or it cannot be read.
pub fn account_home() -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        let uid = rustix::process::getuid().as_raw().to_string();
        let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
        passwd.lines().find_map(|line| {
            let f: Vec<&str> = line.split(':').collect();
            (f.len() >= 6 && f[2] == uid && f[5].starts_with('/')).then(|| PathBuf::from(f[5]))
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The home folders whose secrets are hidden: `$HOME` as given and the account's own home
/// when it differs (a changed `HOME` must not expose the real one).
pub fn homes(home: Option<&Path>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = home.map(Path::to_path_buf).into_iter().collect();
    if let Some(real) = account_home() {
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
fn real_path(p: &Path) -> (PathBuf, bool, Option<u64>) {
    // Fastest path: the whole path exists and no component is a link, so it is its own real
    // path (one `openat2` that refuses every link, one `fstat`).
    #[cfg(target_os = "linux")]
    if let Some(links) = open_no_links(p) {
        return (normalize(p), false, Some(links));
    }
    // Fast path: the whole path exists.
    #[cfg(target_os = "linux")]
    if let Some((real, links)) = open_real(p) {
        let via_link = real != normalize(p);
        return (real, via_link, Some(links));
    }
    #[cfg(not(target_os = "linux"))]
    if let Ok(real) = std::fs::canonicalize(p) {
        let via_link = real != normalize(p);
        return (real, via_link, None);
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
                match std::fs::symlink_metadata(&next) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        via_link = true;
                        match std::fs::canonicalize(&next) {
                            Ok(r) => cur = r,
                            // A dangling link: where it points is where a write would land.
                            Err(_) => match std::fs::read_link(&next) {
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
                    Ok(_) => cur = next,
                    Err(_) => {
                        cur = next;
                        missing = true;
                    }
                }
            }
        }
    }
    (cur, via_link, None)
}

/// The hard-link count of an existing path none of whose components is a link (`None` when
/// one is, when the path is missing, or when the kernel has no `openat2`).
#[cfg(target_os = "linux")]
fn open_no_links(p: &Path) -> Option<u64> {
    use rustix::fs::{FileType, Mode, OFlags, ResolveFlags, CWD};
    let fd = rustix::fs::openat2(
        CWD,
        p,
        OFlags::PATH | OFlags::CLOEXEC | OFlags::NOFOLLOW,
        Mode::empty(),
        ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    )
    .ok()?;
    let st = rustix::fs::fstat(&fd).ok()?;
    // O_PATH|O_NOFOLLOW opens a final link itself; NO_SYMLINKS refuses it, but stay strict.
    let kind = FileType::from_raw_mode(st.st_mode);
    if kind == FileType::Symlink {
        return None;
    }
    Some(if kind == FileType::RegularFile { st.st_nlink } else { 0 })
}

/// The real path and hard-link count of an existing path in four system calls, whatever its
/// depth: open it with `O_PATH` (the kernel follows every link, `..` included, and never
/// blocks on a FIFO or device), read `/proc/self/fd/N`, `fstat` the descriptor. glibc's
/// `realpath` makes one `readlink` per component, the larger part of a path decision's time.
#[cfg(target_os = "linux")]
fn open_real(p: &Path) -> Option<(PathBuf, u64)> {
    use rustix::fs::{FileType, Mode, OFlags};
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStringExt;
    let fd = rustix::fs::open(p, OFlags::PATH | OFlags::CLOEXEC, Mode::empty()).ok()?;
    let st = rustix::fs::fstat(&fd).ok()?;
    let target = rustix::fs::readlink(format!("/proc/self/fd/{}", fd.as_raw_fd()), Vec::new()).ok()?;
    let real = PathBuf::from(std::ffi::OsString::from_vec(target.into_bytes()));
    // An unlinked file reads as "/x (deleted)"; anything not absolute is not a path we can trust.
    if !real.is_absolute() || real.as_os_str().as_encoded_bytes().ends_with(b" (deleted)") {
        return None;
    }
    let links = if FileType::from_raw_mode(st.st_mode) == FileType::RegularFile { st.st_nlink } else { 0 };
    Some((real, links))
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

/// Classify an argument path with one `openat2` that refuses links (Linux), so it is cheap
/// enough for every argument word of a command.
pub fn arg_path(p: &Path) -> ArgPath {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{FileType, Mode, OFlags, ResolveFlags, CWD};
        // Without O_NOFOLLOW, a link in the last component is refused (ELOOP) like any other.
        let flags = ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(CWD, p, OFlags::PATH | OFlags::CLOEXEC, Mode::empty(), flags) {
            Ok(fd) => match rustix::fs::fstat(&fd) {
                Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::RegularFile => {
                    ArgPath::Plain { links: st.st_nlink }
                }
                _ => ArgPath::Plain { links: 0 },
            },
            Err(e) if e == rustix::io::Errno::LOOP || e == rustix::io::Errno::XDEV => ArgPath::ViaLink,
            Err(e) if e == rustix::io::Errno::NOSYS => arg_path_portable(p),
            Err(_) => match std::fs::symlink_metadata(p) {
                Ok(m) if m.file_type().is_symlink() => ArgPath::ViaLink,
                _ => ArgPath::Missing,
            },
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        arg_path_portable(p)
    }
}

fn arg_path_portable(p: &Path) -> ArgPath {
    match std::fs::canonicalize(p) {
        Ok(r) if r != normalize(p) => ArgPath::ViaLink,
        Ok(r) => ArgPath::Plain { links: links_of(&r) },
        Err(_) => ArgPath::Missing,
    }
}

/// Hard-link count of a regular file (0 when missing or not a file).
fn links_of(p: &Path) -> u64 {
    match std::fs::metadata(p) {
        #[cfg(unix)]
        Ok(m) if m.is_file() => {
            use std::os::unix::fs::MetadataExt;
            m.nlink()
        }
        #[cfg(not(unix))]
        Ok(m) if m.is_file() => 1,
        _ => 0,
    }
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
    let expanded = expand_tilde(input, env.home.as_deref())?;
    let abs = if expanded.is_absolute() { expanded } else { env.root.join(expanded) };
    let abs = proc_alias(&abs, env);
    let lexical = normalize(&abs);
    let (real, mut via_link, known_links) = real_path(&abs);
    let links = known_links.unwrap_or_else(|| links_of(&real));
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
