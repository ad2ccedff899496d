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

/// A folder (made if missing) for test worlds outside every temp folder: temp folders are
/// writable inside the sandbox (and a fresh tmpfs under bubblewrap), so a world there proves
/// nothing about confinement. `WICKET_ESCAPE_BASE`, else the target folder, else (a clone
/// under /tmp) `/var/lib/wicket-tests` as root; anyone else sets `WICKET_ESCAPE_BASE`.
pub fn outside_temp(name: &str) -> PathBuf {
    let base = if let Some(b) = std::env::var_os("WICKET_ESCAPE_BASE") {
        PathBuf::from(b)
    } else if !under_temp(Path::new(env!("CARGO_TARGET_TMPDIR"))) {
        PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
    } else {
        let root = std::fs::metadata("/proc/self").is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0);
        assert!(root, "this checkout is in a temp folder: set WICKET_ESCAPE_BASE to a folder you own outside it");
        PathBuf::from("/var/lib/wicket-tests")
    };
    let dir = base.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    assert!(!under_temp(&dir), "{} is in a temp folder: set WICKET_ESCAPE_BASE to another folder", dir.display());
    dir
}
