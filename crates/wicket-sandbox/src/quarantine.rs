//! Moving aside what a run left that the host must not use: repositories git would follow, new
//! programs that would shadow a system program on `PATH`, links re-pointed on the way to a
//! protected path.
//!
//! The hard question: once the command has ended, what must change on disk so that the
//! host's next `git` in a folder of the project, or the next program the person types, runs
//! nothing the command chose? The finding and judging is [`wicket_planner::nested_git`]'s and
//! [`wicket_planner::shadow`]'s (they only read); here each path they name is renamed in place to
//! a name nothing looks for (`.git` → `.git.wicket-quarantine`, a bare repository's `HEAD` →
//! `HEAD.wicket-quarantine`, `.venv/bin/git` → `.venv/bin/git.wicket-quarantine`), never
//! deleted, so the person can look at it and put it back. Every sandboxed run passes here after
//! its command (and everything it started) is gone, on every backend and for every front end.

use std::path::{Path, PathBuf};

use wicket_planner::exec::ExecPolicy;
use wicket_planner::nested_git::{Watch, QUARANTINE_SUFFIX};

/// A repository moved aside after a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovedAside {
    /// The path git would have used (a `.git` entry, or a bare repository's `HEAD`).
    pub path: PathBuf,
    /// Where it is now; `None` when it could not be renamed (the notice says so).
    pub to: Option<PathBuf>,
    /// Why (the key, the hook, the link).
    pub why: String,
    /// What moving it prevents (`git does not use it`, `nothing runs it in place of what was
    /// there`).
    pub so_that: &'static str,
}

/// What the check after a run did and found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AfterRun {
    /// What was moved aside.
    pub moved: Vec<MovedAside>,
    /// New entries that run code somewhere, for the front end to hold for a person (see
    /// [`wicket_planner::held`]); nothing is done with them here.
    pub held: Vec<PathBuf>,
}

/// Check the project after a run under `policy` and move aside what git must not use, the new
/// programs that would shadow a system program on `PATH` and the links re-pointed on the way to
/// a protected path; one notice on stderr names each path and why. The same walk finds the new
/// names to hold.
pub fn after_run(policy: &ExecPolicy) -> AfterRun {
    let (mut moved, held) = policy.git_watch.as_deref().map(settle).unwrap_or_default();
    if let Some(shadow) = policy.shadow_watch.as_deref() {
        // A parallel run's check may have moved it already.
        let found = shadow.after_run().into_iter().filter(|q| std::fs::symlink_metadata(&q.path).is_ok());
        moved.extend(found.map(|q| MovedAside {
            to: move_aside(&q.path),
            path: q.path,
            why: q.why,
            so_that: "nothing runs it in place of what was there",
        }));
    }
    for m in &moved {
        eprintln!("wicket: notice: {}", describe(m, &policy.root));
    }
    // A held name inside what was moved aside went with it.
    let held = held.into_iter().filter(|h| std::fs::symlink_metadata(h).is_ok()).collect();
    AfterRun { moved, held }
}

/// [`after_run`] without the notice: what was moved aside, and the new names to hold.
pub fn settle(watch: &Watch) -> (Vec<MovedAside>, Vec<PathBuf>) {
    let timing = std::env::var_os("WICKET_SCAN_TIMING").is_some();
    let t0 = std::time::Instant::now();
    let checked = watch.after_run();
    let (found, complete) = (checked.quarantine, checked.complete);
    if timing {
        eprintln!("wicket: nested repositories: checked after the run in {:.2} ms", t0.elapsed().as_secs_f64() * 1e3);
    }
    if !complete {
        eprintln!(
            "wicket: notice: the run made more than {} entries; the check for new git repositories stopped there",
            wicket_planner::nested_git::MAX_CHECKED
        );
    }
    let moved = found
        .into_iter()
        .map(|q| MovedAside { to: move_aside(&q.path), path: q.path, why: q.why, so_that: "git does not use it" })
        .collect();
    (moved, checked.held)
}

/// One line for a person (and the audit log).
pub fn describe(m: &MovedAside, root: &Path) -> String {
    let rel = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    match &m.to {
        Some(to) => format!("moved {} aside to {} so that {}: {}", rel(&m.path), rel(to), m.so_that, m.why),
        None => format!("could not move {} aside (it is still there and may be used): {}", rel(&m.path), m.why),
    }
}

/// Rename `path` to the first free `NAME.wicket-quarantine[.N]` beside it.
fn move_aside(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    for n in 0..100 {
        let to = path.with_file_name(if n == 0 {
            format!("{name}{QUARANTINE_SUFFIX}")
        } else {
            format!("{name}{QUARANTINE_SUFFIX}.{n}")
        });
        if std::fs::symlink_metadata(&to).is_ok() {
            continue;
        }
        #[cfg(target_os = "linux")]
        {
            // Never over a name that appeared meanwhile.
            match rustix::fs::renameat_with(
                rustix::fs::CWD,
                path,
                rustix::fs::CWD,
                &to,
                rustix::fs::RenameFlags::NOREPLACE,
            ) {
                Ok(()) => return Some(to),
                Err(rustix::io::Errno::EXIST) => continue,
                Err(_) => return None,
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            return std::fs::rename(path, &to).ok().map(|()| to);
        }
    }
    None
}
