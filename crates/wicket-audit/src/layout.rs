//! Where logs live: one folder per project, one file per process, one checkpoint per file.
//!
//! ```text
//! $WICKET_HOME/audit/<project>-<8 hex of sha256(root)>/<UTC stamp>-<pid>-<16 hex>.jsonl
//! $WICKET_HOME/audit/<project>-<8 hex of sha256(root)>/checkpoints/<same name>.jsonl.json
//! ```
//!
//! The hard question: can two processes ever write the same file? No: the name carries the
//! pid and 64 random bits, and the file is created with `O_EXCL`.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

/// The folder under wicket's home that holds every project's logs.
pub const AUDIT_DIR: &str = "audit";

/// The folder in a project's log folder that holds the checkpoints.
pub const CHECKPOINT_DIR: &str = "checkpoints";

/// The most characters of a project's name kept in its folder name.
const MAX_NAME: usize = 48;

/// The folder name of a project: its folder's name made safe (`[A-Za-z0-9._-]`, no leading
/// dot), a dash, and the first 8 hex digits of SHA-256 of the root path, so two projects with
/// the same name never share a folder.
pub fn project_dir_name(root: &Path) -> String {
    let base = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut name: String = base
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' })
        .take(MAX_NAME)
        .collect();
    name = name.trim_start_matches('.').to_string();
    if name.is_empty() {
        name = "root".to_string();
    }
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    let hex = crate::line::hex32(&digest.into());
    format!("{name}-{}", String::from_utf8_lossy(&hex[..8]))
}

/// The log folder of a project under an audit folder (`$WICKET_HOME/audit`).
pub fn project_dir(audit_root: &Path, project_root: &Path) -> PathBuf {
    audit_root.join(project_dir_name(project_root))
}

/// The checkpoint file of a log file.
pub fn checkpoint_path(log_file: &Path) -> Option<PathBuf> {
    let name = log_file.file_name()?;
    let mut cp = name.to_os_string();
    cp.push(".json");
    Some(log_file.parent()?.join(CHECKPOINT_DIR).join(cp))
}

/// A new session id: 16 hex digits, random.
pub fn new_session_id() -> String {
    random_hex()
}

/// 16 hex digits that no other call in any process returns (in practice): SHA-256 of a
/// per-process random seed (from the OS, through std's `RandomState`), the pid, the time and
/// a counter.
pub(crate) fn random_hex() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut seed = RandomState::new().build_hasher();
    seed.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    let mut h = Sha256::new();
    h.update(seed.finish().to_le_bytes());
    h.update(std::process::id().to_le_bytes());
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    h.update(nanos.to_le_bytes());
    h.update(COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    let hex = crate::line::hex32(&h.finalize().into());
    String::from_utf8_lossy(&hex[..16]).into_owned()
}

/// A new log file's name: `<UTC stamp>-<pid>-<log id>.jsonl`.
pub(crate) fn log_file_name(now_ms: u64, log_id: &str) -> String {
    format!("{}-{}-{log_id}.jsonl", crate::time::file_stamp(now_ms), std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_folders_are_safe_and_distinct() {
        let a = project_dir_name(Path::new("/home/me/my project"));
        assert!(a.starts_with("my_project-") && a.len() == "my_project-".len() + 8, "{a}");
        assert_ne!(a, project_dir_name(Path::new("/srv/my project")));
        assert!(project_dir_name(Path::new("/")).starts_with("root-"));
        assert!(project_dir_name(Path::new("/x/..hidden")).starts_with("hidden-"));
        assert!(project_dir_name(Path::new("/x/../..")).starts_with("root-"));
        assert_ne!(random_hex(), random_hex());
        assert_eq!(
            checkpoint_path(Path::new("/a/p-1/x.jsonl")),
            Some(PathBuf::from("/a/p-1/checkpoints/x.jsonl.json"))
        );
    }
}
