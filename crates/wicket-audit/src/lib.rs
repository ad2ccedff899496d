//! wicket-audit: an append-only, hash-chained JSONL log of what an AI coding agent was allowed,
//! denied and ran, with redaction, checkpoints and verification.
//!
//! Every process that decides a call for a project continues that project's one chain: under
//! a `flock` it appends a line that carries `seq` (its place in the chain), the previous
//! line's hash (`prev`) and its own `hash` (SHA-256 of its canonical bytes), so a changed,
//! inserted or removed line breaks the chain, in one file or across files. Files rotate by
//! size and UTC day; a new file's first line chains to the last line of the one before, so a
//! deleted or cut file breaks it too. The head record (`head.json`) anchors the chain's last
//! line and newest file outside them, so a cut or deleted newest file is found. The log is
//! tamper-evident, not tamper-proof: whoever can write the files can rewrite the chain and
//! its head together. The format is documented in `docs/audit.md`.
//!
//! This crate knows nothing of policies: a front end maps its verdict to an [`Event`] (the
//! kind comes from the typed verdict, never from its text).
//!
//! ```
//! use wicket_audit::{AuditLog, AuditOptions, Event, verify_path};
//!
//! let home = tempfile::tempdir()?;
//! let dir = wicket_audit::project_dir(&home.path().join("audit"), std::path::Path::new("/src/app"));
//! let mut log = AuditLog::new(dir, wicket_audit::new_session_id(), AuditOptions::default());
//!
//! let mut event = Event::decision("bash", "curl -H 'Authorization: Bearer abc123def456' x", "allow_rule", "allowed by a rule");
//! event.rule = Some("bash(curl *)");
//! log.record(&event)?;
//! log.record(&Event::execution("bash", "npm test", 1520, 0))?;
//!
//! let text = std::fs::read_to_string(log.path().unwrap())?;
//! assert!(text.contains("Bearer [REDACTED]"));
//! let report = verify_path(&home.path().join("audit"))?;
//! assert!(report.is_ok(), "{:?}", report.problems);
//! assert_eq!(report.lines(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod checkpoint;
mod digest;
mod error;
mod layout;
mod line;
mod log;
mod read;
mod redact;
mod time;
mod verify;

pub use checkpoint::Checkpoint;
pub use error::{AuditError, ReadError};
pub use layout::{
    checkpoint_path, new_session_id, project_dir, project_dir_name, segment_seq, AUDIT_DIR, CHECKPOINT_DIR, HEAD_FILE,
    LOCK_FILE,
};
pub use line::{decode, DecodeError, Entry, LineRef, RawStr, Risk, GENESIS, VERSION};
pub use log::{
    Admission, Appended, AuditLog, AuditOptions, Durability, Event, Level, HOLD_MAX, LOCK_WAIT, MAX_FIELD, ROTATE_BYTES,
};
pub use read::{read_path, Events, Located};
pub use redact::{secret_name, Redactor, REDACTED};
pub use time::{format_utc, now_ms, parse_utc};
pub use verify::{verify_file, verify_path, FileSummary, Problem, ProblemKind, ProjectSummary, Report};
