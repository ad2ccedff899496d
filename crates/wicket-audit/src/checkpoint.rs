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
    /// the last one exactly. Written without serde: every hook process writes one, and a
    /// chain file's name (`[0-9TZ.jsonl-]`) needs no escaping; any other name goes through
    /// serde.
    pub(crate) fn encode(file: &str, seq: u64, hash: &[u8; 64], len: u64) -> String {
        use std::fmt::Write;
        let hash = String::from_utf8_lossy(hash);
        let mut text = String::with_capacity(256);
        if file.bytes().all(plain_name_byte) {
            let _ = write!(text, r#"{{"v":1,"file":"{file}","seq":{seq},"hash":"{hash}","len":{len}}}"#);
        } else {
            let cp = Checkpoint { v: 1, file: file.to_string(), seq, hash: hash.into_owned(), len: Some(len) };
            text = serde_json::to_string(&cp).unwrap_or_default();
        }
        let widest = text.len() - seq.to_string().len() - len.to_string().len() + 2 * u64::MAX.to_string().len();
        while text.len() < widest {
            text.push(' ');
        }
        text.push('\n');
        text
    }

    /// Parse a head record (`head.json`): seq 0 with the genesis hash is an empty chain.
    pub fn parse_head(text: &str) -> Result<Checkpoint, String> {
        let cp = match parse_own(text) {
            Some(cp) => cp,
            None => serde_json::from_str(text).map_err(|e| format!("not a head record: {e}"))?,
        };
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

/// A byte of a name [`Checkpoint::encode`] writes as it is.
fn plain_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')
}

/// A head record exactly as [`Checkpoint::encode`] writes it, read without serde (every hook
/// process reads one); `None` for anything else, which serde then reads (and judges).
fn parse_own(text: &str) -> Option<Checkpoint> {
    let text = text.trim_end_matches([' ', '\n']);
    let rest = text.strip_prefix(r#"{"v":1,"file":""#)?;
    let (file, rest) = rest.split_once(r#"","seq":"#)?;
    let (seq, rest) = rest.split_once(r#","hash":""#)?;
    let (hash, rest) = rest.split_once(r#"","len":"#)?;
    let len = rest.strip_suffix('}')?;
    // JSON numbers: digits, no leading zero (serde_json refuses `007`).
    let number = |d: &str| -> Option<u64> {
        let ok = !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) && (d == "0" || !d.starts_with('0'));
        ok.then(|| d.parse().ok()).flatten()
    };
    if !file.bytes().all(plain_name_byte) || !hash.bytes().all(plain_name_byte) {
        return None;
    }
    Some(Checkpoint {
        v: 1,
        file: file.to_string(),
        seq: number(seq)?,
        hash: hash.to_string(),
        len: Some(number(len)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_serde(text: &str) -> Option<Checkpoint> {
        serde_json::from_str(text).ok()
    }

    #[test]
    fn the_head_record_is_json_and_keeps_its_length_for_a_file() {
        let hash = [b'a'; 64];
        let name = "20261203T094512Z-000000000001.jsonl";
        let short = Checkpoint::encode(name, 0, &hash, 0);
        let long = Checkpoint::encode(name, u64::MAX, &hash, u64::MAX);
        assert_eq!(short.len(), long.len());
        for (text, seq, len) in [(&short, 0, 0), (&long, u64::MAX, u64::MAX)] {
            let want = Checkpoint { v: 1, file: name.to_string(), seq, hash: "a".repeat(64), len: Some(len) };
            assert_eq!(by_serde(text), Some(want.clone()), "{text}");
            assert_eq!(parse_own(text), Some(want), "{text}");
        }
        // A name that needs escaping goes through serde, and still parses back.
        let odd = Checkpoint::encode("a\"b", 1, &hash, 2);
        assert_eq!(by_serde(&odd).map(|c| c.file), Some("a\"b".to_string()));
        assert_eq!(parse_own(&odd), None);
    }

    #[test]
    fn the_own_reader_agrees_with_serde_on_every_near_miss() {
        // Every one-character change of a record: what the fast reader accepts, serde
        // reads the same; what it refuses goes to serde anyway.
        let good = Checkpoint::encode("20261203T094512Z-000000000001.jsonl", 42, &[b'b'; 64], 1234);
        let good = good.trim_end();
        let mut texts = vec![good.to_string()];
        for (i, _) in good.char_indices() {
            texts.push(format!("{}{}", &good[..i], &good[i + 1..]));
            for c in ['0', '9', ' ', '"', ',', '}', '\\', 'x', '-'] {
                texts.push(format!("{}{c}{}", &good[..i], &good[i..]));
                texts.push(format!("{}{c}{}", &good[..i], &good[i + 1..]));
            }
        }
        texts.push(good.replace(":42,", ":042,"));
        texts.push(good.replace(":1234}", ":99999999999999999999}"));
        let mut accepted = 0;
        for t in &texts {
            if let Some(own) = parse_own(t) {
                accepted += 1;
                assert_eq!(by_serde(t), Some(own), "{t}");
            }
        }
        assert!(accepted > 20, "{accepted}");
    }
}
