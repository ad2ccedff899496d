//! The writer: one file per process, lines in order, each chained to the one before.
//!
//! The hard question: when is a line "written", and what happens when it is not? A line is
//! written when its one `write(2)` (`O_APPEND`) returned in full (and, with an fsync setting,
//! when the fsync did). Only then does the chain move on, so a failed write never leaves a
//! gap in `seq`, and a failed checkpoint never makes the next line repeat one. A failed write
//! is cut back off the file (a torn line never stays before a good one); if that is
//! impossible, or the file vanished, the next line starts a new file. Whether a failure stops
//! the call is the caller's choice ([`AuditOptions::mandatory`], [`AuditLog::admit`]).

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::Write;
use std::num::NonZeroU32;
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::error::AuditError;
use crate::line::{encode, Fields, Risk, GENESIS};
use crate::redact::Redactor;
use crate::{layout, time};

/// The most bytes of a target, reason or rule kept in a line; longer text is cut at a
/// character boundary and marked.
pub const MAX_FIELD: usize = 4096;

/// How hard each line is pushed towards the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// One `write(2)` per line, no user-space buffer: a line survives the process (a crash,
    /// SIGKILL) but not a power cut. The default.
    #[default]
    Flush,
    /// `fdatasync` after every line: a line survives a power cut before the call runs.
    FsyncEachLine,
    /// `fdatasync` after every n lines, and when the log is dropped.
    FsyncEvery(NonZeroU32),
}

/// Which events are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Level {
    /// Every event. The default.
    #[default]
    All,
    /// Everything but allowed reads (`read_only` events whose kind is `allow_*` or
    /// `executed`).
    Mutations,
    /// Only denials (`deny_*`) and errors.
    Denials,
}

impl Level {
    /// Does this level keep the event?
    pub fn keeps(self, event: &Event<'_>) -> bool {
        match self {
            Level::All => true,
            Level::Mutations => !(event.read_only && (event.kind.starts_with("allow_") || event.kind == "executed")),
            Level::Denials => event.kind.starts_with("deny_") || event.kind == "error",
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Level, String> {
        match s {
            "all" => Ok(Level::All),
            "mutations" => Ok(Level::Mutations),
            "denials" => Ok(Level::Denials),
            _ => Err(format!("unknown audit level {s:?}: expected all, mutations or denials")),
        }
    }
}

/// The audit settings (team policy `audit.*`, see `docs/audit.md`). The defaults: not
/// mandatory, every event, no checkpoint, one write per line without fsync.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AuditOptions {
    /// Team policy `audit.enabled: true`: a line that cannot be written stops the call.
    pub mandatory: bool,
    /// Team policy `audit.level`.
    pub level: Level,
    /// Team policy `audit.checkpoint`: keep a checkpoint file per log file.
    pub checkpoint: bool,
    /// How hard lines are pushed to the disk.
    pub durability: Durability,
}

/// One thing to record: a decision on a tool call, or an execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event<'a> {
    /// The tool (`bash`, `read_file`, `mcp__github__get_issue` …).
    pub tool: &'a str,
    /// What the call touches (command line, path, URL, input); redacted when written.
    pub target: &'a str,
    /// The decision kind, from the typed verdict (`allow_sandbox`, `deny_sensitive` …), or
    /// `executed`, `error`.
    pub kind: &'a str,
    /// The risk ([`Risk::of_kind`] unless the caller knows better).
    pub risk: Risk,
    /// Why; redacted when written.
    pub reason: &'a str,
    /// The rule that decided, if one did; redacted when written.
    pub rule: Option<&'a str>,
    /// For executions: how long it ran.
    pub duration_ms: Option<u64>,
    /// For executions: the exit code (negative: killed by that signal).
    pub exit_code: Option<i64>,
    /// True when the call only reads (for [`Level::Mutations`]; not written).
    pub read_only: bool,
}

impl<'a> Event<'a> {
    /// A decision on a call.
    pub fn decision(tool: &'a str, target: &'a str, kind: &'a str, reason: &'a str) -> Event<'a> {
        Event {
            tool,
            target,
            kind,
            risk: Risk::of_kind(kind),
            reason,
            rule: None,
            duration_ms: None,
            exit_code: None,
            read_only: false,
        }
    }

    /// A command that ran: its duration and exit code.
    pub fn execution(tool: &'a str, target: &'a str, duration_ms: u64, exit_code: i64) -> Event<'a> {
        Event {
            tool,
            target,
            kind: "executed",
            risk: Risk::of_kind("executed"),
            reason: "",
            rule: None,
            duration_ms: Some(duration_ms),
            exit_code: Some(exit_code),
            read_only: false,
        }
    }
}

/// What [`AuditLog::record`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// The line is in the file with this seq.
    Written {
        /// Its seq.
        seq: u64,
    },
    /// The level leaves this event out.
    Filtered,
}

/// What a caller must do after [`AuditLog::admit`].
#[derive(Debug)]
pub enum Admission {
    /// Go on: the line was written, or the level leaves it out, or the audit is not
    /// mandatory and the failure was already reported.
    Go,
    /// Go on, and show this notice to the person once: the audit is not mandatory.
    GoWithNotice(String),
    /// Do not run the call: the audit is mandatory and the line (or its checkpoint) could
    /// not be written. [`AuditError::refusal`] words it for the model and the person.
    Refuse(AuditError),
}

/// The open file and where its chain stands.
struct Current {
    path: PathBuf,
    name: String,
    log_id: String,
    file: Option<File>,
    seq: u64,
    prev: [u8; 64],
    /// The file's length after the last good line.
    good_len: u64,
    unsynced: u32,
    /// The checkpoint file, open for overwriting in place once it exists.
    checkpoint: Option<File>,
}

/// An append-only, hash-chained log of one process.
///
/// Nothing touches the disk until the first line: then the folder (0700) and the file (0600)
/// are created.
///
/// ```
/// use wicket_audit::{AuditLog, AuditOptions, Event};
/// let dir = tempfile::tempdir()?;
/// let mut log = AuditLog::new(dir.path().join("proj-12345678"), "session-1", AuditOptions::default());
/// log.record(&Event::decision("read_file", ".env", "deny_sensitive", "a sensitive file"))?;
/// let report = wicket_audit::verify_path(dir.path())?;
/// assert!(report.is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AuditLog {
    dir: PathBuf,
    session: String,
    options: AuditOptions,
    redactor: Redactor,
    current: Option<Current>,
    buf: Vec<u8>,
    noticed: bool,
}

impl AuditLog {
    /// A log in `dir` (a project's log folder, see [`layout::project_dir`]) for a session,
    /// redacting with [`Redactor::from_env`].
    pub fn new(dir: impl Into<PathBuf>, session: impl Into<String>, options: AuditOptions) -> AuditLog {
        AuditLog {
            dir: dir.into(),
            session: session.into(),
            options,
            redactor: Redactor::from_env(),
            current: None,
            buf: Vec::with_capacity(1024),
            noticed: false,
        }
    }

    /// Use this redactor instead.
    pub fn with_redactor(mut self, redactor: Redactor) -> AuditLog {
        self.redactor = redactor;
        self
    }

    /// The settings.
    pub fn options(&self) -> &AuditOptions {
        &self.options
    }

    /// The session id written in every line.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The file lines go to now, once one exists.
    pub fn path(&self) -> Option<&Path> {
        self.current.as_ref().map(|c| c.path.as_path())
    }

    /// Record an event and apply the failure policy: with [`AuditOptions::mandatory`] a
    /// failure refuses the call; otherwise the first failure gives a notice and later ones
    /// pass quietly.
    pub fn admit(&mut self, event: &Event<'_>) -> Admission {
        match self.record(event) {
            Ok(_) => Admission::Go,
            Err(e) if self.options.mandatory => Admission::Refuse(e),
            Err(_) if self.noticed => Admission::Go,
            Err(e) => {
                self.noticed = true;
                Admission::GoWithNotice(format!("audit log: {e}; going on without it (later failures are not shown)"))
            }
        }
    }

    /// Write one line. Redacts the target, reason and rule; the line gets the next `seq` and
    /// the previous line's hash as `prev`.
    pub fn record(&mut self, event: &Event<'_>) -> Result<Recorded, AuditError> {
        if !self.options.level.keeps(event) {
            return Ok(Recorded::Filtered);
        }
        let target = clip(self.redactor.redact(event.target));
        let reason = clip(self.redactor.redact(event.reason));
        let rule = event.rule.map(|r| clip(self.redactor.redact(r)));
        let time = time::format_utc(time::now_ms());
        // At most twice: if the file turns out to have been removed under us, the line goes
        // again to a new file.
        for _ in 0..2 {
            self.ensure_file()?;
            let Some(cur) = self.current.as_mut() else { break };
            let seq = cur.seq + 1;
            let fields = Fields {
                id_prefix: &cur.log_id,
                time: &time,
                session: &self.session,
                tool: event.tool,
                target: &target,
                kind: event.kind,
                risk: event.risk,
                reason: &reason,
                rule: rule.as_deref(),
                duration_ms: event.duration_ms,
                exit_code: event.exit_code,
            };
            let hash = encode(&mut self.buf, &fields, seq, &cur.prev);
            let Some(file) = cur.file.as_mut() else { break };
            if let Err(source) = file.write_all(&self.buf) {
                let path = cur.path.clone();
                // Cut a partial line back off; if that fails, never append to this file again.
                if file.set_len(cur.good_len).is_err() {
                    self.current = None;
                } else {
                    cur.file = None;
                }
                return Err(AuditError::Write { file: path, source });
            }
            // A file whose last name is gone (its folder was removed) takes lines nobody will
            // ever read: start a new file and write the line there.
            if file.metadata().is_ok_and(|m| m.nlink() == 0) {
                self.current = None;
                continue;
            }
            cur.seq = seq;
            cur.prev = hash;
            cur.good_len += self.buf.len() as u64;
            let sync = match self.options.durability {
                Durability::Flush => false,
                Durability::FsyncEachLine => true,
                Durability::FsyncEvery(n) => {
                    cur.unsynced += 1;
                    cur.unsynced >= n.get()
                }
            };
            if sync {
                cur.unsynced = 0;
                file.sync_data().map_err(|source| AuditError::Sync { file: cur.path.clone(), source })?;
            }
            if self.options.checkpoint {
                write_checkpoint(cur, self.options.durability != Durability::Flush)?;
            }
            return Ok(Recorded::Written { seq });
        }
        Err(AuditError::Vanished { dir: self.dir.clone() })
    }

    /// Push unsynced lines to the disk (for [`Durability::FsyncEvery`]; done on drop too).
    pub fn sync(&mut self) -> Result<(), AuditError> {
        if let Some(cur) = self.current.as_mut() {
            if let Some(file) = &cur.file {
                if cur.unsynced > 0 {
                    cur.unsynced = 0;
                    file.sync_data().map_err(|source| AuditError::Sync { file: cur.path.clone(), source })?;
                }
            }
        }
        Ok(())
    }

    /// Make sure a file is open: reopen the current one after a failed write (if it still
    /// ends at its last good line), or start a new one (a new chain).
    fn ensure_file(&mut self) -> Result<(), AuditError> {
        if let Some(cur) = self.current.as_mut() {
            if cur.file.is_some() {
                return Ok(());
            }
            if let Ok(file) = OpenOptions::new().append(true).open(&cur.path) {
                let len = file.metadata().map(|m| m.len()).ok();
                if len == Some(cur.good_len) || (len > Some(cur.good_len) && file.set_len(cur.good_len).is_ok()) {
                    cur.file = Some(file);
                    return Ok(());
                }
            }
            self.current = None;
        }
        create_dir(&self.dir)?;
        let log_id = layout::random_hex();
        let name = layout::log_file_name(time::now_ms(), &log_id);
        let path = self.dir.join(&name);
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|source| AuditError::Open { file: path.clone(), source })?;
        let mut prev = [0u8; 64];
        prev.copy_from_slice(GENESIS.as_bytes());
        self.current = Some(Current {
            path,
            name,
            log_id,
            file: Some(file),
            seq: 0,
            prev,
            good_len: 0,
            unsynced: 0,
            checkpoint: None,
        });
        Ok(())
    }
}

impl Drop for AuditLog {
    fn drop(&mut self) {
        let _ = self.sync();
    }
}

/// Cut text to [`MAX_FIELD`] bytes at a character boundary, saying how much was cut.
fn clip(text: std::borrow::Cow<'_, str>) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_FIELD {
        return text;
    }
    let mut end = MAX_FIELD;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}…[{} more bytes]", &text[..end], text.len() - end))
}

/// Create a folder and its parents, 0700.
pub(crate) fn create_dir(dir: &Path) -> Result<(), AuditError> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|source| AuditError::CreateDir { dir: dir.to_path_buf(), source })
}

/// Record the current file's last line in its checkpoint.
///
/// The first time, the checkpoint is created whole (a temporary 0600 file renamed into
/// place) and kept open; after that it is overwritten in place by one `pwrite` at offset 0 of
/// a record whose length never changes (padded with spaces), far below a disk sector. Renaming
/// a file per line costs about 130 µs on ext4 (it forces the data out); the overwrite costs
/// one system call and is just as indivisible for a crash of the process. A checkpoint that
/// was removed meanwhile is made again.
fn write_checkpoint(cur: &mut Current, sync: bool) -> Result<(), AuditError> {
    let Some(cp_path) = layout::checkpoint_path(&cur.path) else {
        return Err(AuditError::Checkpoint {
            file: cur.path.clone(),
            source: std::io::Error::other("the log file has no folder"),
        });
    };
    let err = |source| AuditError::Checkpoint { file: cp_path.clone(), source };
    let body = crate::checkpoint::Checkpoint::encode(&cur.name, cur.seq, &cur.prev);
    if let Some(cp) = &cur.checkpoint {
        let written = cp.write_all_at(body.as_bytes(), 0).and_then(|()| if sync { cp.sync_data() } else { Ok(()) });
        if let Err(e) = written {
            cur.checkpoint = None; // created afresh next time
            return Err(err(e));
        }
        // Someone removed the checkpoint (or its folder): make it again, now.
        if !cp.metadata().is_ok_and(|m| m.nlink() == 0) {
            return Ok(());
        }
        cur.checkpoint = None;
    }
    let dir = cp_path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(".{}.json.tmp", cur.name));
    let open = || OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp);
    let mut f = match open() {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(err)?;
            open().map_err(err)?
        }
        Err(e) => return Err(err(e)),
    };
    f.write_all(body.as_bytes()).map_err(err)?;
    if sync {
        f.sync_data().map_err(err)?;
    }
    std::fs::rename(&tmp, &cp_path).map_err(err)?;
    cur.checkpoint = Some(f);
    Ok(())
}
