//! Wicket's small private files in `$WICKET_HOME` (the sandbox probe's cache, the kept git
//! answer): believed only when they and their folder are this user's and nobody else may write
//! them, and replaced at once, so a reader never sees half a file.

use std::path::Path;

/// The bytes of `file`, if it can be believed: a regular file (not a link) that, like its
/// folder, belongs to this user and is writable by nobody else.
pub fn read(file: &Path) -> Option<Vec<u8>> {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::geteuid().as_raw();
    let own = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.uid() == me && m.mode() & 0o022 == 0);
    let regular = std::fs::symlink_metadata(file).is_ok_and(|m| m.is_file());
    if !regular || !own(file) || !own(file.parent()?) {
        return None;
    }
    std::fs::read(file).ok()
}

/// Replace `file` with `bytes` (its folder made private when missing, the file 0600, written
/// beside it and renamed over it). A failure leaves the old file and no temporary one; it only
/// costs the caller the work the file would have saved.
pub fn write(file: &Path, bytes: &[u8]) {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let Some(dir) = file.parent() else { return };
    let _ = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir);
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, bytes));
    if written.is_err() || std::fs::rename(&tmp, file).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
