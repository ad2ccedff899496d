//! Ask git which configuration it reads for commands in a root.
//!
//! The hard question: which configuration will git read when the agent runs `git status` in
//! this root? Git's own lookup (the nearest repository found by walking up, so a parent
//! repository too; `commondir` and `config.worktree` for linked worktrees; includes and
//! conditional includes; the user's and the system's files) is long and changes between
//! versions, so we do not re-implement it: we run `git config --list --show-scope
//! --show-origin -z` in the root, and in every populated submodule (`git status` recurses into
//! them, with their own configuration). Listing configuration runs no program the
//! configuration names. Anything that goes wrong is reported as unreadable, which the engine
//! treats as risky.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use wicket_policy::gitconfig::{parse_list, GitConfigView, GitEntry};

/// How deep submodules of submodules are followed.
const MAX_SUBMODULE_DEPTH: usize = 3;
/// How many submodules are read at most; more make the configuration unreadable.
const MAX_SUBMODULES: usize = 64;

/// The configuration git reads for commands in `root`, with `home` as `HOME` when given.
pub fn read(root: &Path, home: Option<&Path>) -> GitConfigView {
    let mut entries = Vec::new();
    let mut seen = 0usize;
    match read_into(root, home, false, 0, &mut seen, &mut entries) {
        Ok(()) => GitConfigView::Entries(entries),
        Err(why) => GitConfigView::Unreadable(why),
    }
}

fn git(dir: &Path, home: Option<&Path>) -> Command {
    let mut c = Command::new("git");
    c.arg("-C").arg(dir).stdin(Stdio::null()).stderr(Stdio::piped()).stdout(Stdio::piped());
    // The repository is found from the root, as for the agent's own commands.
    for v in ["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES"] {
        c.env_remove(v);
    }
    if let Some(h) = home {
        c.env("HOME", h);
    }
    c
}

fn read_into(
    dir: &Path,
    home: Option<&Path>,
    submodule: bool,
    depth: usize,
    seen: &mut usize,
    out: &mut Vec<GitEntry>,
) -> Result<(), String> {
    // The two questions are asked at once: each is a process of several milliseconds, and a
    // hook pays for them on every call.
    let listing = git(dir, home)
        .args(["config", "--list", "--show-scope", "--show-origin", "-z"])
        .spawn()
        .map_err(|e| format!("cannot run git config in {}: {e}", dir.display()))?;
    let top = toplevel_start(dir, home);
    let listed = listing.wait_with_output();
    // Both answers are collected before either can fail the read: no child is left unwaited.
    let top = toplevel(dir, top);
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
    let top = top?;
    let mut entries = parse_list(&listed.stdout, submodule)?;
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
        read_into(&sub, home, true, depth + 1, seen, out)?;
    }
    Ok(())
}

/// Start asking git for the top of the work tree `dir` is in ([`toplevel`] takes the answer).
fn toplevel_start(dir: &Path, home: Option<&Path>) -> std::io::Result<std::process::Child> {
    git(dir, home).args(["rev-parse", "--show-toplevel"]).spawn()
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
    let paths = git(&top, home)
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
