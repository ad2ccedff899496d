//! Ask git which configuration it reads for commands in a root.
//!
//! The hard question: which configuration will git read when the agent runs `git status` in
//! this root? Git's own lookup (the nearest repository found by walking up, so a parent
//! repository too; `commondir` and `config.worktree` for linked worktrees; includes and
//! conditional includes; the user's and the system's files) is long and changes between
//! versions, so we do not re-implement it: we run `git config --list --show-scope
//! --show-origin -z` in the root, and in every populated submodule (`git status` recurses into
//! them, with their own configuration). Listing configuration runs no program the
//! configuration names. The git asked is the one from root's folders ([`wicket_sandbox::helper`]),
//! never the caller's `PATH`: a folder on it may be one a sandboxed command can write (an
//! activated virtualenv's `bin/`), and this git runs on the host. Anything that goes wrong, a
//! missing trusted git too, is reported as unreadable, which the engine treats as risky.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use wicket_policy::gitconfig::{parse_list, GitConfigView, GitEntry};
use wicket_sandbox::helper::Helper;

/// How deep submodules of submodules are followed.
const MAX_SUBMODULE_DEPTH: usize = 3;
/// How many submodules are read at most; more make the configuration unreadable.
const MAX_SUBMODULES: usize = 64;

/// The configuration git reads for commands in `root`, with `home` as `HOME` when given.
/// Git's answer is kept in `$WICKET_HOME/cache/git` and believed while nothing git reads for
/// it has changed (see [`crate::gitcache`]).
pub fn read(root: &Path, home: Option<&Path>) -> GitConfigView {
    let cache = crate::config::wicket_home().ok().map(|h| h.join("cache").join("git"));
    read_with(root, home, cache.as_deref(), crate::gitcache::MARGIN)
}

/// [`read`] with the cache folder (none: always ask git) and the age a file must have before
/// an answer depending on it is kept.
pub fn read_with(root: &Path, home: Option<&Path>, cache: Option<&Path>, margin: std::time::Duration) -> GitConfigView {
    let mut entries = Vec::new();
    let mut seen = 0usize;
    let asked = match cache {
        Some(dir) => crate::gitcache::answer(dir, root, home, margin),
        None => ask(root, home, false),
    };
    match asked.and_then(|a| collect(home, a, false, 0, &mut seen, &mut entries)) {
        Ok(()) => GitConfigView::Entries(entries),
        Err(why) => GitConfigView::Unreadable(why),
    }
}

/// The git wicket may run, or why there is none (the answer is then unreadable).
pub(crate) fn trusted_git() -> Result<Helper, String> {
    wicket_sandbox::helper::find("git").map_err(|e| format!("no git wicket may run: {e}"))
}

pub(crate) fn git(git: &Helper, dir: &Path, home: Option<&Path>) -> Command {
    let mut c = git.command();
    c.arg("-C").arg(dir).stdin(Stdio::null()).stderr(Stdio::piped()).stdout(Stdio::piped());
    // The repository is found from the root, as for the agent's own commands.
    for v in REMOVED_ENV {
        c.env_remove(v);
    }
    if let Some(h) = home {
        c.env("HOME", h);
    }
    c
}

/// Variables taken out of git's environment, so it finds the repository from the root.
pub(crate) const REMOVED_ENV: [&str; 4] = ["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES"];

#[cfg(test)]
thread_local! {
    /// How often this thread asked git (the cache's tests tell a kept answer from a new one).
    pub(crate) static ASKED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// What git answered for one folder.
#[derive(Debug, Clone, Default)]
pub(crate) struct Asked {
    /// `git config --list --show-scope --show-origin -z`.
    pub listing: Vec<u8>,
    /// The top of the work tree, `None` outside one.
    pub top: Option<PathBuf>,
    /// The git folder and the common git folder, when asked for the cache and in a repository.
    pub dirs: Option<(PathBuf, PathBuf)>,
    /// The system and the user's configuration files git would read, when asked for the cache.
    pub files: Option<Vec<PathBuf>>,
}

/// Ask git in `dir`; `for_cache` also asks what a cache of the answer must watch (where the
/// git folders are and which files git would read for the system and the user).
pub(crate) fn ask(dir: &Path, home: Option<&Path>, for_cache: bool) -> Result<Asked, String> {
    #[cfg(test)]
    ASKED.with(|n| n.set(n.get() + 1));
    let g = trusted_git()?;
    // The questions are asked at once: each is a process of several milliseconds, and a hook
    // pays for them when the cache cannot answer.
    let listing = git(&g, dir, home)
        .args(["config", "--list", "--show-scope", "--show-origin", "-z"])
        .spawn()
        .map_err(|e| format!("cannot run git config in {}: {e}", dir.display()))?;
    let top = toplevel_start(&g, dir, home);
    let dirs = for_cache.then(|| {
        git(&g, dir, home).args(["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"]).spawn()
    });
    // The files depend on the environment only; asked at the root of the file system so that
    // no repository's configuration is involved.
    let files = for_cache.then(|| git(&g, Path::new("/"), home).args(["var", "-l"]).spawn());
    let listed = listing.wait_with_output();
    // Every answer is collected before any can fail the read: no child is left unwaited.
    let top = toplevel(dir, top);
    let dirs = dirs.and_then(|d| d.and_then(std::process::Child::wait_with_output).ok());
    let files = files.and_then(|f| f.and_then(std::process::Child::wait_with_output).ok());
    let listed = listed.map_err(|e| format!("cannot run git config in {}: {e}", dir.display()))?;
    // `git config --list` fails when there is nothing to list at all; that is no risk.
    let nothing = listed.stdout.is_empty() && listed.stderr.is_empty();
    if !listed.status.success() && !nothing {
        return Err(format!(
            "git config --list in {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&listed.stderr).trim()
        ));
    }
    Ok(Asked {
        listing: listed.stdout,
        top: top?,
        dirs: dirs.filter(|d| d.status.success()).and_then(|d| git_dirs(&d.stdout)),
        files: files.filter(|f| f.status.success()).and_then(|f| config_files(&f.stdout)),
    })
}

/// The two absolute paths `rev-parse --git-dir --git-common-dir` printed, one a line; `None`
/// for anything else (a path holding a line break cannot be told apart).
fn git_dirs(out: &[u8]) -> Option<(PathBuf, PathBuf)> {
    let text = std::str::from_utf8(out).ok()?.strip_suffix('\n')?;
    let (git_dir, common) = text.split_once('\n')?;
    let absolute = |p: &str| (p.starts_with('/') && !p.contains('\n')).then(|| PathBuf::from(p));
    Some((absolute(git_dir)?, absolute(common)?))
}

/// The files `git var -l` names for `GIT_CONFIG_SYSTEM` and `GIT_CONFIG_GLOBAL`; `None` when
/// it names no user file (a git older than 2.42 names neither).
fn config_files(out: &[u8]) -> Option<Vec<PathBuf>> {
    let text = std::str::from_utf8(out).ok()?;
    let mut files = Vec::new();
    let mut global = false;
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("GIT_CONFIG_SYSTEM=") {
            files.push(PathBuf::from(p));
        } else if let Some(p) = line.strip_prefix("GIT_CONFIG_GLOBAL=") {
            files.push(PathBuf::from(p));
            global = true;
        }
    }
    global.then_some(files)
}

/// Turn git's answer for a folder into entries, and read the populated submodules below it.
fn collect(
    home: Option<&Path>,
    asked: Asked,
    submodule: bool,
    depth: usize,
    seen: &mut usize,
    out: &mut Vec<GitEntry>,
) -> Result<(), String> {
    let top = asked.top;
    let mut entries = parse_list(&asked.listing, submodule)?;
    // Git prints origins of the repository's files relative to the top of the work tree.
    if let Some(top) = &top {
        for e in &mut entries {
            if let Some(rel) = e.origin.strip_prefix("file:").filter(|p| !p.starts_with('/')) {
                e.origin = format!("file:{}", top.join(rel).display());
            }
        }
    }
    out.extend(entries);
    if depth >= MAX_SUBMODULE_DEPTH {
        return Ok(());
    }
    let Some(top) = top else { return Ok(()) };
    for sub in submodules(&top, home)? {
        *seen += 1;
        if *seen > MAX_SUBMODULES {
            return Err(format!("more than {MAX_SUBMODULES} submodules"));
        }
        let asked = ask(&sub, home, false)?;
        collect(home, asked, true, depth + 1, seen, out)?;
    }
    Ok(())
}

/// Start asking git for the top of the work tree `dir` is in ([`toplevel`] takes the answer).
fn toplevel_start(g: &Helper, dir: &Path, home: Option<&Path>) -> std::io::Result<std::process::Child> {
    git(g, dir, home).args(["rev-parse", "--show-toplevel"]).spawn()
}

/// The top of the work tree `dir` is in, or `None` outside one (or in a bare repository).
fn toplevel(dir: &Path, asked: std::io::Result<std::process::Child>) -> Result<Option<PathBuf>, String> {
    let top = asked
        .and_then(std::process::Child::wait_with_output)
        .map_err(|e| format!("cannot run git rev-parse in {}: {e}", dir.display()))?;
    if !top.status.success() {
        return Ok(None);
    }
    Ok(Some(PathBuf::from(String::from_utf8_lossy(&top.stdout).trim_end_matches('\n'))))
}

/// The populated submodules of the work tree whose top is `top`: the paths `.gitmodules`
/// names that hold a `.git` of their own.
fn submodules(top: &Path, home: Option<&Path>) -> Result<Vec<PathBuf>, String> {
    let top = top.to_path_buf();
    let gitmodules = top.join(".gitmodules");
    if !gitmodules.exists() {
        return Ok(Vec::new());
    }
    let paths = git(&trusted_git()?, &top, home)
        .arg("config")
        .arg("--file")
        .arg(&gitmodules)
        .args(["-z", "--get-regexp", r"^submodule\..*\.path$"])
        .output()
        .map_err(|e| format!("cannot read {}: {e}", gitmodules.display()))?;
    if !paths.status.success() {
        // Status 1: no submodule paths. Anything else: unreadable.
        if paths.status.code() == Some(1) && paths.stderr.is_empty() {
            return Ok(Vec::new());
        }
        return Err(format!("cannot read {}: {}", gitmodules.display(), String::from_utf8_lossy(&paths.stderr).trim()));
    }
    let text = String::from_utf8(paths.stdout).map_err(|_| format!("{} is not UTF-8", gitmodules.display()))?;
    let mut out = Vec::new();
    for record in text.split('\0').filter(|r| !r.is_empty()) {
        let Some((_, path)) = record.split_once('\n') else { continue };
        let sub = top.join(path);
        // A path that leaves the work tree is not a submodule git would enter.
        if path.split('/').any(|c| c == "..") || !sub.starts_with(&top) {
            continue;
        }
        if sub.join(".git").exists() {
            out.push(sub);
        }
    }
    Ok(out)
}
