//! wicket-audit: an append-only, hash-chained JSONL log of what an AI coding agent was allowed,
//! denied and ran, with redaction, checkpoints and verification.
//!
//! Each process writes its own file; each line carries `seq`, the previous line's hash
//! (`prev`) and its own `hash` (SHA-256 of its canonical bytes), so a changed, inserted or
//! removed line breaks the chain. A checkpoint file, when enabled, anchors each file's last
//! line outside it, so cut tails and deleted files are found too. The log is tamper-evident,
//! not tamper-proof: whoever can write the files can rewrite a file and its checkpoint
//! together. The format is documented in `docs/audit.md`.
//!
//! This crate knows nothing of policies: a front end maps its verdict to an [`Event`] (the
//! kind comes from the typed verdict, never from its text).
//!
//! ```
//! use wicket_audit::{AuditLog, AuditOptions, Event, verify_path};
//!
//! let home = tempfile::tempdir()?;
//! let dir = wicket_audit::project_dir(&home.path().join("audit"), std::path::Path::new("/src/app"));
//! let options = AuditOptions { checkpoint: true, ..AuditOptions::default() };
//! let mut log = AuditLog::new(dir, wicket_audit::new_session_id(), options);
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
pub use layout::{checkpoint_path, new_session_id, project_dir, project_dir_name, AUDIT_DIR, CHECKPOINT_DIR};
pub use line::{decode, DecodeError, Entry, LineRef, RawStr, Risk, GENESIS, VERSION};
pub use log::{Admission, AuditLog, AuditOptions, Durability, Event, Level, Recorded, MAX_FIELD};
pub use read::{read_path, Events, Located};
pub use redact::{secret_name, Redactor, REDACTED};
pub use time::{format_utc, now_ms, parse_utc};
pub use verify::{verify_file, verify_path, FileSummary, Problem, ProblemKind, Report};
