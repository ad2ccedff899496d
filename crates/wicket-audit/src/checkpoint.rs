//! Checkpoints: an anchor outside the log files for the chain's last line.
//!
//! The hash chain alone cannot tell a chain cut after line 40 from one that had 40 lines.
//! The head record (`head.json`) names the chain's newest file and keeps its last line's seq
//! and hash, overwritten in place after each line, so verification finds a cut or rewritten
//! end and a deleted newest file. Old per-process logs kept one such record per file in
//! `checkpoints/`; they are still read. Someone who can rewrite a log and its head together
//! is not detected: the log is tamper-evident, not tamper-proof.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The contents of `checkpoints/<log name>.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// Format version (1).
    pub v: u32,
    /// The log file's name.
    pub file: String,
    /// The seq of the last line written.
    pub seq: u64,
    /// That line's hash.
    pub hash: String,
    /// In the head record: the file's length in bytes up to the end of that line. The next
    /// writer that finds the file exactly this long continues the chain from this record
    /// without reading the file's end back; any other length, or none (an older writer's
    /// record), and it reads and checks the end. Not in per-file checkpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub len: Option<u64>,
}

impl Checkpoint {
    /// The head record's bytes for a chain file's last line, and the file's length after it.
    ///
    /// The length depends only on the file's name: the JSON is padded with spaces to the
    /// length it would have with the largest seq and length, so each new record overwrites
    /// the last one exactly.
    pub(crate) fn encode(file: &str, seq: u64, hash: &[u8; 64], len: u64) -> String {
        let cp = Checkpoint {
            v: 1,
            file: file.to_string(),
            seq,
            hash: String::from_utf8_lossy(hash).into_owned(),
            len: Some(len),
        };
        let mut text = serde_json::to_string(&cp).unwrap_or_default();
        let widest = text.len() - seq.to_string().len() - len.to_string().len() + 2 * u64::MAX.to_string().len();
        while text.len() < widest {
            text.push(' ');
        }
        text.push('\n');
        text
    }

    /// Parse a head record (`head.json`): seq 0 with the genesis hash is an empty chain.
    pub fn parse_head(text: &str) -> Result<Checkpoint, String> {
        let cp: Checkpoint = serde_json::from_str(text).map_err(|e| format!("not a head record: {e}"))?;
        let hex = cp.hash.len() == 64 && cp.hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if cp.v != 1 || !hex || crate::layout::segment_seq(&cp.file).is_none() {
            return Err("not a v1 head record naming a chain file".to_string());
        }
        Ok(cp)
    }

    /// Read a project's head record: `Ok(None)` only when there is none (ENOENT).
    pub fn read_head(project_dir: &Path) -> Result<Option<Checkpoint>, String> {
        let path = project_dir.join(crate::layout::HEAD_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => Checkpoint::parse_head(&text).map(Some).map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{} cannot be read: {e}", path.display())),
        }
    }

    /// Read a log's checkpoint: `Ok(None)` only when there is none (ENOENT); a checkpoint
    /// that cannot be read or parsed, or names another file, is an error.
    pub fn read(log_file: &Path) -> Result<Option<Checkpoint>, String> {
        let Some(path) = crate::layout::checkpoint_path(log_file) else { return Ok(None) };
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("its checkpoint {} cannot be read: {e}", path.display())),
        };
        let cp: Checkpoint = serde_json::from_str(&text)
            .map_err(|e| format!("its checkpoint {} is not a checkpoint: {e}", path.display()))?;
        let name = log_file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let hex = cp.hash.len() == 64 && cp.hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if cp.v != 1 || cp.file != name || cp.seq == 0 || !hex {
            return Err(format!("its checkpoint {} is not a v1 checkpoint for {name}", path.display()));
        }
        Ok(Some(cp))
    }
}
