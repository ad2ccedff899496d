//! The bubblewrap command line for an exec policy.
//!
//! The hard question: what does the command's world look like? A read-only view of `/`; fresh
//! `/dev`, `/proc` and namespaces; the writable paths bound writable; the read-only holes bound
//! read-only on top; the secrets masked (an empty tmpfs over a folder, `/dev/null` over a file).
//! Order matters: later mounts cover earlier ones, so holes and masks come last.

use std::ffi::OsString;
use std::path::PathBuf;

use wicket_policy::exec::ExecPolicy;

/// The bwrap arguments (without the program and the command after `--`). `mask` is a socket
/// file bound over each file of `policy.denied`: opening a socket file fails (ENXIO) for every
/// user, root included, so a denied file cannot be read or written, not even as empty.
///
/// `pinned` maps writable paths (and git folders) to descriptors opened on them: those are bound
/// with `--bind-fd`, so the source is the folder that was checked, not whatever the path leads
/// to when bwrap mounts it.
pub fn args(
    policy: &ExecPolicy,
    seccomp_fds: &[i32],
    pinned: &[(PathBuf, i32)],
    mask: Option<&std::path::Path>,
) -> Vec<OsString> {
    // A staged run's project is an overlay mounted at the root before bwrap starts (see
    // `layers`): a bind below the root is made by path, so it takes the overlay (the
    // descriptors were opened on the project itself, below it).
    let staged_below = |p: &PathBuf| policy.stage.is_some() && p.starts_with(&policy.root);
    let fd_of = |p: &PathBuf| pinned.iter().find(|(q, _)| q == p && !staged_below(p)).map(|(_, fd)| fd.to_string());
    let mut a: Vec<OsString> = Vec::new();
    let mut push = |items: &[&dyn AsRef<std::ffi::OsStr>]| {
        for i in items {
            a.push(i.as_ref().to_os_string());
        }
    };
    push(&[&"--unshare-user", &"--unshare-pid", &"--unshare-ipc", &"--unshare-uts", &"--unshare-cgroup-try"]);
    if !policy.network {
        push(&[&"--unshare-net"]);
    }
    push(&[&"--disable-userns", &"--die-with-parent", &"--new-session"]);
    push(&[&"--ro-bind", &"/", &"/", &"--dev", &"/dev", &"--proc", &"/proc"]);
    let mut writable: Vec<&PathBuf> = policy.writable.iter().collect();
    writable.sort_by_key(|p| p.components().count());
    for w in writable {
        if policy.private_temp.contains(w) {
            // A fresh temp folder per run: nothing there is shared with the host or other
            // runs, so no later run can be steered through it.
            push(&[&"--tmpfs", w]);
        } else if let Some(fd) = fd_of(w) {
            push(&[&"--bind-fd", &fd, w]);
        } else {
            push(&[&"--bind", w, w]);
        }
    }
    // Wicket's own state is pinned: every folder between a writable path and the state becomes
    // a mount point (bound onto itself, still writable), and a mount point cannot be renamed
    // or removed, so no folder above the state can be moved away and rebuilt with forged
    // settings that the next run would read by path.
    for a in pins(policy) {
        push(&[&"--bind", &a, &a]);
    }
    // Git folders (bound on themselves: a mount point cannot be renamed or replaced) and the
    // read-only holes, shallow before deep, so `.git/modules` (read-only) comes before
    // `.git/modules/sub` (a writable git folder) and that before `.git/modules/sub/config`.
    let mut layered: Vec<(&PathBuf, bool)> = policy.git_dirs.iter().map(|g| (g, true)).collect();
    layered.extend(policy.read_only.iter().map(|(p, _)| (p, false)));
    layered.sort_by_key(|(p, _)| p.components().count());
    for (p, writable) in layered {
        // A dangling link or a missing path has nothing to bind (and bwrap would fail).
        if !p.exists() {
            continue;
        }
        if writable {
            match fd_of(p) {
                Some(fd) => push(&[&"--bind-fd", &fd, p]),
                None => push(&[&"--bind", p, p]),
            }
        } else {
            push(&[&"--ro-bind", p, p]);
        }
    }
    for u in &policy.unreadable {
        match std::fs::symlink_metadata(u) {
            Ok(m) if m.is_dir() => push(&[&"--tmpfs", u, &"--remount-ro", u]),
            Ok(_) => match mask.filter(|_| policy.denied.contains(u)) {
                Some(m) => push(&[&"--ro-bind", &m, u]),
                None => push(&[&"--ro-bind", &"/dev/null", u]),
            },
            Err(_) => {}
        }
    }
    push(&[&"--clearenv"]);
    for name in &policy.env_allow {
        if let Some(v) = std::env::var_os(name) {
            push(&[&"--setenv", name, &v]);
        }
    }
    push(&[&"--chdir", &policy.root]);
    for fd in seccomp_fds {
        push(&[&"--add-seccomp-fd", &fd.to_string()]);
    }
    a
}

/// The folders strictly between a writable path and a piece of wicket's state, outermost first.
fn pins(policy: &ExecPolicy) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for s in &policy.state {
        for w in policy.writable.iter().filter(|w| s.starts_with(w) && *w != s) {
            let mut between: Vec<PathBuf> =
                s.ancestors().skip(1).take_while(|a| a != w).map(|a| a.to_path_buf()).collect();
            between.reverse();
            for a in between {
                if a.is_dir() && !out.contains(&a) {
                    out.push(a);
                }
            }
        }
    }
    out.sort_by_key(|p| p.components().count());
    out
}
