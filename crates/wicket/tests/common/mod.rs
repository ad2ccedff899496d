//! Test helpers shared by several test binaries (each uses a part, hence `dead_code`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)] // test set-up

pub mod pty;

use std::path::{Path, PathBuf};

/// Is `p` inside a temp folder (`$TMPDIR`, `/tmp`, `/var/tmp`)?
pub fn under_temp(p: &Path) -> bool {
    let temps = [std::env::temp_dir(), PathBuf::from("/tmp"), PathBuf::from("/var/tmp")];
    let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    temps.iter().any(|t| real.starts_with(std::fs::canonicalize(t).unwrap_or_else(|_| t.clone())))
}

/// Can a sandboxed command reach `p`? Inside the sandbox root has no capabilities, so as root
/// a folder on the way that lets neither root as owner, nor root's group, nor others search it
/// (another user's 0750 home holding the checkout) hides everything below it.
pub fn passable_in_sandbox(p: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let me = std::fs::metadata("/proc/self").map(|m| (m.uid(), m.gid())).unwrap_or((u32::MAX, u32::MAX));
    if me.0 != 0 {
        return true; // a user who reached it did so without capabilities
    }
    let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    real.ancestors().all(|dir| match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {
            let mode = m.mode();
            (m.uid() == me.0 && mode & 0o100 != 0) || (m.gid() == me.1 && mode & 0o010 != 0) || mode & 0o001 != 0
        }
        Ok(_) => true,
        Err(_) => true, // not made yet: its parents decide
    })
}

/// Where test worlds go when the checkout is in a temp folder (root only). Not in `/var/lib`:
/// an escape row denies reading all of it. Deeper than wicket's search for root-only files
/// looks (three levels below `/srv`): a world's private files (its 0700 state folder) would
/// otherwise be masked by every parallel test's run, and bubblewrap could not make the mount
/// point once the test that owned them removed them.
pub const SHARED_BASE: &str = "/srv/wicket-tests/not/searched/worlds";

/// A folder (made if missing) for test worlds outside every temp folder: temp folders are
/// writable inside the sandbox (and a fresh tmpfs under bubblewrap), so a world there proves
/// nothing about confinement. `WICKET_ESCAPE_BASE`, else the target folder, else (a clone
/// under /tmp) [`SHARED_BASE`] as root; anyone else sets `WICKET_ESCAPE_BASE`.
pub fn outside_temp(name: &str) -> PathBuf {
    let base = if let Some(b) = std::env::var_os("WICKET_ESCAPE_BASE") {
        PathBuf::from(b)
    } else if !under_temp(Path::new(env!("CARGO_TARGET_TMPDIR")))
        && passable_in_sandbox(Path::new(env!("CARGO_TARGET_TMPDIR")))
    {
        PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
    } else {
        let root = std::fs::metadata("/proc/self").is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0);
        assert!(root, "this checkout is in a temp folder: set WICKET_ESCAPE_BASE to a folder you own outside it");
        PathBuf::from(SHARED_BASE)
    };
    let dir = base.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    assert!(!under_temp(&dir), "{} is in a temp folder: set WICKET_ESCAPE_BASE to another folder", dir.display());
    dir
}

/// `dir` where a sandboxed process can see it: as it is when outside every temp folder, else a
/// copy (links kept) in [`outside_temp`] named `name`, made once per test process. Servers the
/// tests start inside the sandbox read their files from here; under bubblewrap a temp folder is
/// a fresh tmpfs, so a checkout under /tmp would hide them.
pub fn visible_in_sandbox(dir: &Path, name: &str) -> PathBuf {
    if !under_temp(dir) && passable_in_sandbox(dir) {
        return dir.to_path_buf();
    }
    static COPIED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let copies = outside_temp("copies");
    let copy = copies.join(format!("{name}-{}", std::process::id()));
    let mut done = COPIED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if !done.contains(&copy) {
        // Copies left by test processes that are gone.
        for e in std::fs::read_dir(&copies).into_iter().flatten().flatten() {
            let file = e.file_name().to_string_lossy().into_owned();
            let pid = file.rsplit('-').next().and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|p| !Path::new(&format!("/proc/{p}")).exists()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        let _ = std::fs::remove_dir_all(&copy);
        let ok = std::process::Command::new("cp").arg("-a").arg(dir).arg(&copy).status().unwrap().success();
        assert!(ok, "cannot copy {} to {}", dir.display(), copy.display());
        done.push(copy.clone());
    }
    copy
}
