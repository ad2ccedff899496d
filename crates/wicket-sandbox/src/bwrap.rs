//! The bubblewrap command line for an exec policy.
//!
//! The hard question: what does the command's world look like? A read-only view of `/`; fresh
//! `/dev`, `/proc` and namespaces; the writable paths bound writable; the read-only holes bound
//! read-only on top; the secrets masked (an empty tmpfs over a folder, `/dev/null` over a file).
//! Order matters: later mounts cover earlier ones, so holes and masks come last.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use wicket_planner::exec::ExecPolicy;

/// The bwrap arguments (without the program and the command after `--`). `mask` is a socket
/// file bound over each file of `policy.denied`: opening a socket file fails (ENXIO) for every
/// user, root included, so a denied file cannot be read or written, not even as empty.
///
/// `pinned` maps writable paths (and git folders) to descriptors opened on them: those are bound
/// with `--bind-fd`, so the source is the folder that was checked, not whatever the path leads
/// to when bwrap mounts it. `bind_back` are files bound read-only on themselves where a seal or
/// a fresh temp folder would hide them (the shim, which bubblewrap starts by path).
#[cfg(test)]
pub fn args(
    policy: &ExecPolicy,
    seccomp_fds: &[i32],
    pinned: &[(PathBuf, i32)],
    mask: Option<&std::path::Path>,
    bind_back: &[PathBuf],
    shelled: &[PathBuf],
) -> Vec<OsString> {
    line(policy, seccomp_fds, pinned, mask, bind_back, shelled, false).0
}

/// The bwrap arguments as `args` describes them, and with `premask` the masks that can be mounted in wicket's own namespace before
/// bubblewrap starts instead ([`crate::layers::premask`]), left out of the arguments: there a
/// mount is one system call, while bubblewrap parses the whole mount table after each of its
/// own (about 0.1 ms a mount, 60 and more as root).
///
/// A mask moves only where every mount bubblewrap makes later keeps it: each of bubblewrap's
/// binds by path is recursive and takes it along, so a mask moves unless something bubblewrap
/// mounts lies at or below it, it is in a sealed or fresh temp folder (built anew by
/// bubblewrap), or a folder above it is bound from a descriptor (which names the host's
/// folder, without wicket's mounts).
pub fn line(
    policy: &ExecPolicy,
    seccomp_fds: &[i32],
    pinned: &[(PathBuf, i32)],
    mask: Option<&std::path::Path>,
    bind_back: &[PathBuf],
    shelled: &[PathBuf],
    premask: bool,
) -> (Vec<OsString>, Vec<(PathBuf, crate::layers::Cover)>) {
    // A staged run's project is an overlay mounted at the root before bwrap starts (see
    // `layers`), and so is each guarded folder (see `shells`): a bind there is made by path, so
    // it takes the overlay (the descriptors were opened on the host's folder, below it).
    let staged_below = |p: &PathBuf| {
        (policy.stage.is_some() && p.starts_with(&policy.root)) || shelled.iter().any(|s| p.starts_with(s))
    };
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
    let seal = Seal::new(policy, bind_back);
    // The writable paths, the sealed folders (a fresh tmpfs each) and what is readable in them,
    // shallow before deep: a home inside the private /tmp is sealed after /tmp is made, and the
    // project inside a home is bound after the home is sealed. At one depth a seal comes first.
    let mut base: Vec<(usize, u8, Base<'_>)> = Vec::new();
    for w in &policy.writable {
        base.push((w.components().count(), 1, Base::Writable(w)));
    }
    for s in &policy.sealed {
        base.push((s.components().count(), 0, Base::Seal(s)));
    }
    for r in seal.readable.iter().chain(bind_back) {
        base.push((r.components().count(), 1, Base::Readable(r)));
    }
    base.sort_by_key(|(depth, order, _)| (*depth, *order));
    let mut linked: Vec<PathBuf> = Vec::new();
    for (_, _, b) in base {
        let w = match b {
            Base::Seal(s) => {
                push(&[&"--tmpfs", s]);
                continue;
            }
            Base::Readable(r) => {
                for (link, target, real) in seal.links(r) {
                    if !linked.contains(&link) {
                        push(&[&"--symlink", &target, &link]);
                        linked.push(link);
                    }
                    if let Some(real) = real {
                        push(&[&"--ro-bind", &real, &real]);
                    }
                }
                if seal.plain(r) {
                    push(&[&"--ro-bind", r, r]);
                }
                continue;
            }
            Base::Writable(w) => w,
        };
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
    let pinned_folders = pins(policy);
    for a in &pinned_folders {
        // Under a seal the folder is not the host's and cannot be renamed (the seal is
        // read-only); binding it would show the host's folder instead.
        if !seal.hides(a) {
            push(&[&"--bind", a, a]);
        }
    }
    // Git folders (bound on themselves: a mount point cannot be renamed or replaced) and the
    // read-only holes, shallow before deep, so `.git/modules` (read-only) comes before
    // `.git/modules/sub` (a writable git folder) and that before `.git/modules/sub/config`.
    // The folders on the way to a read-only path are pinned the same way (still writable).
    let mut layered: Vec<(&PathBuf, bool)> = policy.git_dirs.iter().chain(&policy.pinned).map(|g| (g, true)).collect();
    layered.extend(policy.read_only.iter().map(|(p, _)| (p, false)));
    layered.sort_by_key(|(p, _)| p.components().count());
    // What moves before bubblewrap (see `line`'s doc): what bubblewrap itself still mounts
    // after wicket's mounts, and where a mount of wicket's would not be kept.
    let fixed: Vec<&PathBuf> = policy
        .writable
        .iter()
        .chain(&policy.sealed)
        .chain(&policy.sealed_readable)
        .chain(bind_back)
        .chain(&policy.git_dirs)
        .chain(&policy.pinned)
        .chain(&pinned_folders)
        .collect();
    // In a fresh temp folder unless a folder of the host's is bound deeper there (a project
    // under `/tmp`).
    let depth = |u: &Path, among: &mut dyn Iterator<Item = &PathBuf>| {
        among.filter(|w| u.starts_with(w)).map(|w| w.components().count()).max()
    };
    let in_fresh_temp = |u: &Path| match (
        depth(u, &mut policy.private_temp.iter()),
        depth(u, &mut policy.writable.iter().filter(|w| !policy.private_temp.contains(w)).chain(&policy.git_dirs)),
    ) {
        (Some(temp), Some(host)) => temp >= host,
        (temp, _) => temp.is_some(),
    };
    let kept_here = |u: &Path| {
        !premask
            || fixed.iter().any(|t| t.starts_with(u))
            || policy.sealed.iter().any(|s| u.starts_with(s))
            || in_fresh_temp(u)
            || u.starts_with("/dev")
            || u.starts_with("/proc")
            || pinned.iter().any(|(p, _)| fd_of(p).is_some() && u.starts_with(p))
    };
    // The read-only holes that stay on bubblewrap's line, decided deepest first: a hole with one
    // that stays below it stays too (bubblewrap binds the deeper one after it), and so does a
    // hole with a guarded folder's overlay below it (bubblewrap's read-only bind would make
    // that read-only too; wicket's makes only the hole's own mount read-only).
    let mut holes: Vec<&PathBuf> =
        policy.read_only.iter().map(|(p, _)| p).filter(|p| p.exists() && !seal.hides(p)).collect();
    holes.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
    let mut kept_holes: Vec<&PathBuf> = Vec::new();
    for h in holes {
        if kept_here(h)
            || kept_holes.iter().any(|k| k.starts_with(h))
            || shelled.iter().any(|s| s != h && s.starts_with(h))
            || cstring(h).is_none()
        {
            kept_holes.push(h);
        }
    }
    let mut premasked = Vec::new();
    for (p, writable) in layered {
        // A dangling link or a missing path has nothing to bind (and bwrap would fail); a path
        // a seal hides needs no hole (and binding it would show it).
        if !p.exists() || seal.hides(p) {
            continue;
        }
        if writable {
            match fd_of(p) {
                Some(fd) => push(&[&"--bind-fd", &fd, p]),
                None => push(&[&"--bind", p, p]),
            }
        } else if kept_holes.contains(&p) {
            push(&[&"--ro-bind", p, p]);
        } else {
            premasked.push((p.clone(), crate::layers::Cover::ReadOnly));
        }
    }
    // A folder's mask is an empty read-only tmpfs, so a mask inside it has nothing to cover,
    // and bubblewrap cannot make its mount point there ("Can't mkdir …: Read-only file
    // system", and the command never runs). The policy leaves such masks out, but masks are
    // added after it (root's own files, found as root): a `$WICKET_HOME` in /var/lib, /opt or
    // /srv that the person made (0755) gets wicket's private sub-folders (0700) at its first
    // run, each a root-only folder inside the masked state, and every run from then on failed.
    let masks: Vec<(&PathBuf, bool)> = policy
        .unreadable
        .iter()
        .filter(|u| !seal.hides(u))
        .filter_map(|u| std::fs::symlink_metadata(u).ok().map(|m| (u, m.is_dir())))
        .collect();
    let folders: Vec<&PathBuf> = masks.iter().filter(|(_, dir)| *dir).map(|(u, _)| *u).collect();
    for (u, dir) in masks {
        if folders.iter().any(|f| u != *f && u.starts_with(f)) {
            continue;
        }
        // A mask comes after every hole: one kept on bubblewrap's line at or below it keeps
        // the mask there too.
        if !kept_here(u) && !kept_holes.iter().any(|k| k.starts_with(u)) {
            if let Some(c) = cover(u, dir, mask.filter(|_| policy.denied.contains(u))) {
                premasked.push((u.clone(), c));
                continue;
            }
        }
        if dir {
            push(&[&"--tmpfs", u, &"--remount-ro", u]);
        } else {
            match mask.filter(|_| policy.denied.contains(u)) {
                Some(m) => push(&[&"--ro-bind", &m, u]),
                None => push(&[&"--ro-bind", &"/dev/null", u]),
            }
        }
    }
    // Read-only only now: bubblewrap made the mount points of everything above in them.
    // A seal inside a folder that is masked whole (a deny rule on `/var/lib` with the home in
    // it) is gone under that mask, and bubblewrap could not reach it to remount it.
    for s in &policy.sealed {
        if !folders.iter().any(|f| s.starts_with(f)) {
            push(&[&"--remount-ro", s]);
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
    (a, premasked)
}

/// What covers the mask at `u` in wicket's own namespace, as bubblewrap would: an empty
/// read-only tmpfs (mode 0755, bubblewrap's) over a folder; `/dev/null` or the denied-file
/// socket over a file. `None` for a path a C string cannot carry (bubblewrap takes it then).
fn cover(u: &Path, dir: bool, socket: Option<&Path>) -> Option<crate::layers::Cover> {
    use crate::layers::Cover;
    cstring(u)?;
    if dir {
        return Some(Cover::Folder(0o755));
    }
    let source = match socket {
        Some(s) => cstring(s)?,
        None => c"/dev/null".into(),
    };
    Some(Cover::File(source))
}

/// `p` as a C string, unless it holds a NUL (then bubblewrap takes its mount).
fn cstring(p: &Path) -> Option<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(p.as_os_str().as_bytes()).ok()
}

/// One of the first mounts, ordered by depth.
enum Base<'a> {
    Writable(&'a PathBuf),
    Seal(&'a PathBuf),
    Readable(&'a PathBuf),
}

/// The sealed folders of a policy, and how each readable path in them is shown.
struct Seal<'a> {
    policy: &'a ExecPolicy,
    /// The readable paths that need a bind of their own (not inside a writable path, which is
    /// bound whole and writable).
    readable: Vec<PathBuf>,
    /// The real paths of everything shown inside the seals: readable, writable, bound back.
    shown: Vec<PathBuf>,
}

impl<'a> Seal<'a> {
    fn new(policy: &'a ExecPolicy, bind_back: &[PathBuf]) -> Seal<'a> {
        let under_writable = |p: &Path| policy.writable.iter().any(|w| p.starts_with(w));
        let readable: Vec<PathBuf> = if policy.sealed.is_empty() {
            Vec::new()
        } else {
            policy.sealed_readable.iter().filter(|r| !under_writable(r)).cloned().collect()
        };
        let mut shown: Vec<PathBuf> = policy.writable.clone();
        for r in policy.sealed_readable.iter().chain(bind_back) {
            shown.push(r.clone());
            if let Ok(real) = std::fs::canonicalize(r) {
                shown.push(real);
            }
        }
        Seal { policy, readable, shown }
    }

    /// Is `p` out of sight under a seal (inside a sealed folder, and not inside anything shown)?
    fn hides(&self, p: &Path) -> bool {
        self.policy.sealed.iter().any(|s| p.starts_with(s)) && !self.shown.iter().any(|r| p.starts_with(r))
    }

    /// The links on the way from the seal to `r` (each link's path, its text, and its target's
    /// real path when a seal would hide that): the tmpfs holds no links, so each is made again.
    fn links(&self, r: &Path) -> Vec<(PathBuf, PathBuf, Option<PathBuf>)> {
        let mut out = Vec::new();
        let Some(seal) = self.policy.sealed.iter().find(|s| r.starts_with(s)) else { return out };
        let mut at = seal.clone();
        let Ok(rest) = r.strip_prefix(seal) else { return out };
        for c in rest.components() {
            at.push(c);
            let Ok(m) = std::fs::symlink_metadata(&at) else { break };
            if !m.file_type().is_symlink() {
                continue;
            }
            let Ok(text) = std::fs::read_link(&at) else { break };
            let real = std::fs::canonicalize(r).ok().filter(|t| self.policy.sealed.iter().any(|s| t.starts_with(s)));
            out.push((at.clone(), text, real));
            // The rest of the way is the link's target, bound above when a seal hides it.
            break;
        }
        out
    }

    /// Is `r` bound as itself (no link on its way from the seal)?
    fn plain(&self, r: &Path) -> bool {
        self.links(r).is_empty()
    }
}

/// The folders strictly between a writable path and a piece of wicket's state, outermost first.
fn pins(policy: &ExecPolicy) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for s in &policy.state {
        // A fresh temp folder is not the host's: nothing in it can be renamed on the host.
        for w in policy.writable.iter().filter(|w| s.starts_with(w) && *w != s && !policy.private_temp.contains(w)) {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)] // test set-up: a failure is a broken test
pub(crate) mod tests {
    use super::*;

    /// A policy with only `root`, writable; the other tests of the crate start from it too.
    pub(crate) fn policy(root: &Path) -> ExecPolicy {
        ExecPolicy {
            root: root.to_path_buf(),
            writable: vec![root.to_path_buf()],
            read_only: Vec::new(),
            placeholders: Vec::new(),
            must_not_appear: Vec::new(),
            git_dirs: Vec::new(),
            state_dir: None,
            private_temp: Vec::new(),
            unreadable: Vec::new(),
            denied: Vec::new(),
            masked: Vec::new(),
            network: false,
            env_allow: Vec::new(),
            timeout: None,
            output_cap: 0,
            caches: Vec::new(),
            state: Vec::new(),
            git_watch: None,
            stage: None,
            sealed: Vec::new(),
            sealed_readable: Vec::new(),
            guard: None,
            pinned: Vec::new(),
            notices: Vec::new(),
            shadow_watch: None,
        }
    }

    /// The paths each mask (`--tmpfs` of a folder, a bind over a file) is made at.
    fn masked_at(args: &[OsString]) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for w in args.windows(3) {
            if w[0] == "--tmpfs" || (w[0] == "--ro-bind" && w[1] == "/dev/null") {
                out.push(PathBuf::from(if w[0] == "--tmpfs" { &w[1] } else { &w[2] }));
            }
        }
        out
    }

    #[test]
    fn no_mask_is_made_inside_a_masked_folder_and_every_other_one_is() {
        let d = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(d.path()).unwrap();
        let (root, state, home) = (base.join("proj"), base.join("state"), base.join("home"));
        for dir in [root.clone(), state.join("cache"), home.join(".config/tool"), base.join("other")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        for f in [state.join("settings.json"), home.join(".config/tool/token"), base.join("other/key")] {
            std::fs::write(f, "x").unwrap();
        }
        let mut p = policy(&root);
        // The state, and what a later search found in it (root's own folder and file); a
        // folder a seal hides (no mask made) whose shown part holds a secret; a lone file.
        p.unreadable = vec![
            state.clone(),
            state.join("cache"),
            state.join("settings.json"),
            home.join(".config"),
            home.join(".config/tool/token"),
            base.join("other/key"),
        ];
        p.sealed = vec![home.clone()];
        p.sealed_readable = vec![home.join(".config/tool")];
        let got = masked_at(&args(&p, &[], &[], None, &[], &[]));
        assert!(got.contains(&state) && got.contains(&base.join("other/key")), "{got:?}");
        assert!(!got.contains(&state.join("cache")) && !got.contains(&state.join("settings.json")), "{got:?}");
        // The seal hides `.config` without a mask, so the secret in its shown part keeps its own.
        assert!(!got.contains(&home.join(".config")), "{got:?}");
        assert!(got.contains(&home.join(".config/tool/token")), "{got:?}");
    }

    /// Masks move into wicket's own namespace only where bubblewrap's later mounts keep them:
    /// not with a mount of bubblewrap's below them, not in a fresh temp folder or `/dev`, not
    /// inside a folder bound from a descriptor (the host's folder, without wicket's mounts).
    #[test]
    fn a_mask_moves_before_bubblewrap_only_where_its_mounts_keep_it() {
        let d = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(d.path()).unwrap();
        let (root, tmp, lib) = (base.join("proj"), base.join("tmp"), base.join("lib"));
        for dir in [root.join("sub"), tmp.clone(), lib.join("keys"), lib.join("with-cache/cache")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        for f in [root.join(".env"), tmp.join("t"), lib.join("token")] {
            std::fs::write(f, "x").unwrap();
        }
        let mut p = policy(&root);
        p.writable = vec![root.clone(), tmp.clone(), lib.join("with-cache/cache")];
        p.private_temp = vec![tmp.clone()];
        p.unreadable = vec![
            root.join(".env"),
            tmp.join("t"),
            lib.join("token"),
            lib.join("keys"),
            lib.join("with-cache"),
            PathBuf::from("/dev/shm"),
        ];
        let pinned = [(root.clone(), 7)];
        let (a, moved) = line(&p, &[], &pinned, None, &[], &[], true);
        let moved: Vec<&PathBuf> = moved.iter().map(|(p, _)| p).collect();
        assert_eq!(moved, vec![&lib.join("token"), &lib.join("keys")], "{a:?}");
        let left = masked_at(&a);
        for stays in [root.join(".env"), lib.join("with-cache"), PathBuf::from("/dev/shm")] {
            assert!(left.contains(&stays), "{} not left to bubblewrap: {a:?}", stays.display());
        }
        assert!(!left.contains(&lib.join("token")) && !left.contains(&lib.join("keys")), "{a:?}");
        // Without it, bubblewrap makes every one, as before.
        let (all, none) = line(&p, &[], &pinned, None, &[], &[], false);
        assert!(none.is_empty() && masked_at(&all).contains(&lib.join("token")));
        assert_eq!(all, args(&p, &[], &pinned, None, &[], &[]));
    }

    /// A project in the temp folder, bound by path (it is a guarded folder's overlay): its
    /// read-only holes and masks move before bubblewrap, except a hole with a writable git
    /// folder below it (bubblewrap binds that one later) or with a guarded folder below it.
    #[test]
    fn holes_move_before_bubblewrap_in_a_project_bound_by_path() {
        let d = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(d.path()).unwrap();
        let (tmp, root) = (base.clone(), base.join("proj"));
        for dir in [root.join("mods/sub"), root.join("ci/x"), root.join("hooks")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        for f in [root.join("config"), root.join(".env"), tmp.join("scratch")] {
            std::fs::write(f, "x").unwrap();
        }
        let mut p = policy(&root);
        p.writable = vec![tmp.clone(), root.clone()];
        p.private_temp = vec![tmp.clone()];
        p.git_dirs = vec![root.join("mods/sub")];
        p.read_only = vec![
            (root.join("config"), false),
            (root.join("hooks"), true),
            (root.join("mods"), true),
            (root.join("ci"), true),
        ];
        p.unreadable = vec![root.join(".env"), tmp.join("scratch")];
        let shelled = [root.clone(), root.join("ci/x")];
        let pinned = [(root.clone(), 7)];
        let (a, moved) = line(&p, &[], &pinned, None, &[], &shelled, true);
        let moved: Vec<&PathBuf> = moved.iter().map(|(p, _)| p).collect();
        assert_eq!(moved, vec![&root.join("config"), &root.join("hooks"), &root.join(".env")], "{a:?}");
        let text: Vec<String> = a.iter().map(|x| x.to_string_lossy().into_owned()).collect();
        for stays in ["mods", "ci"] {
            let at = root.join(stays).to_string_lossy().into_owned();
            assert!(text.windows(2).any(|w| w[0] == "--ro-bind" && w[1] == at), "{stays}: {text:?}");
        }
        assert!(masked_at(&a).contains(&tmp.join("scratch")), "{a:?}");
    }

    /// A home inside a folder masked whole (a deny rule on the folder that holds it) is sealed
    /// but never remounted: under the mask bubblewrap cannot reach it ("Can't mkdir parents").
    #[test]
    fn a_seal_under_a_masked_folder_is_not_remounted() {
        let d = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(d.path()).unwrap();
        let (root, denied, home, other) = (base.join("proj"), base.join("lib"), base.join("lib/home"), base.join("h2"));
        for dir in [&root, &home, &other] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let mut p = policy(&root);
        p.unreadable = vec![denied.clone()];
        p.sealed = vec![home.clone(), other.clone()];
        let a: Vec<String> =
            args(&p, &[], &[], None, &[], &[]).iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let remounted: Vec<&String> = a.windows(2).filter(|w| w[0] == "--remount-ro").map(|w| &w[1]).collect();
        let text = |p: &PathBuf| p.to_string_lossy().into_owned();
        assert!(remounted.contains(&&text(&other)), "{a:?}");
        assert!(remounted.contains(&&text(&denied)), "{a:?}");
        assert!(!remounted.contains(&&text(&home)), "{a:?}");
    }
}
