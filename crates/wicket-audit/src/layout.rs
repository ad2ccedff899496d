//! Where logs live: one folder per project holding one hash chain, cut into files.
//!
//! ```text
//! $WICKET_HOME/audit/<project>-<8 hex of sha256(root)>/lock        the writers' flock
//! $WICKET_HOME/audit/<project>-<8 hex of sha256(root)>/head.json   the chain's newest file and line
//! $WICKET_HOME/audit/<project>-<8 hex of sha256(root)>/<UTC stamp>-<first seq, 12 digits>.jsonl
//! ```
//!
//! Logs written before the chain spanned files (one file per process,
//! `<UTC stamp>-<pid>-<16 hex>.jsonl`, with `checkpoints/<name>.json`) are still read and
//! verified, each as its own chain.
//!
//! The hard question: can two processes ever write the same chain at once? No: every append
//! happens under an exclusive `flock` on `lock`, which the kernel drops when its holder dies.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The folder under wicket's home that holds every project's logs.
pub const AUDIT_DIR: &str = "audit";

/// The folder in a project's log folder that holds the checkpoints.
pub const CHECKPOINT_DIR: &str = "checkpoints";

/// The lock file in a project's log folder: writers hold an exclusive `flock` on it.
pub const LOCK_FILE: &str = "lock";

/// The head record in a project's log folder: the newest file, and its last line's seq and
/// hash (see `docs/audit.md`).
pub const HEAD_FILE: &str = "head.json";

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
    let hex = crate::line::hex32(&crate::digest::sha256(&[root.as_os_str().as_encoded_bytes()]));
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
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let hex = crate::line::hex32(&crate::digest::sha256(&[
        &seed.finish().to_le_bytes(),
        &std::process::id().to_le_bytes(),
        &nanos.to_le_bytes(),
        &COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes(),
    ]));
    String::from_utf8_lossy(&hex[..16]).into_owned()
}

/// A chain file's name: `<UTC stamp>-<seq of its first line, at least 12 digits>.jsonl`, so
/// names sort by time and each name says where in the chain the file starts.
pub(crate) fn segment_name(now_ms: u64, first_seq: u64) -> String {
    format!("{}-{first_seq:012}.jsonl", crate::time::file_stamp(now_ms))
}

/// The seq a chain file's name says it starts at, or `None` for any other name (an old
/// per-process log among them).
pub fn segment_seq(name: &str) -> Option<u64> {
    let (stamp, seq) = name.strip_suffix(".jsonl")?.split_once('-')?;
    // `YYYYMMDDTHHMMSSZ`, ASCII only: the writer slices the day out of it.
    let b = stamp.as_bytes();
    let stamp_ok = b.len() == 16
        && b.iter().enumerate().all(|(i, c)| match i {
            8 => *c == b'T',
            15 => *c == b'Z',
            _ => c.is_ascii_digit(),
        });
    if !stamp_ok || seq.len() < 12 || !seq.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    seq.parse().ok()
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
        let name = segment_name(1_767_323_045_000, 42);
        assert_eq!(name, "20260102T030405Z-000000000042.jsonl");
        assert_eq!(segment_seq(&name), Some(42));
        assert_eq!(segment_seq("20260102T030405Z-1234-0123456789abcdef.jsonl"), None, "an old per-process log");
        assert_eq!(segment_seq("20260102T030405Z-42.jsonl"), None);
        assert_eq!(segment_seq("2026é102T03040Z-000000000042.jsonl"), None, "non-ASCII stamp");
        assert_eq!(segment_seq("2026x102T030405Z-000000000042.jsonl"), None);
        assert_eq!(
            checkpoint_path(Path::new("/a/p-1/x.jsonl")),
            Some(PathBuf::from("/a/p-1/checkpoints/x.jsonl.json"))
        );
    }
}
