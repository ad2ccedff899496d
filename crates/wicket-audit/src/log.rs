//! The writer: one hash chain per project, continued by every process that decides a call.
//!
//! The hard question: how do hundreds of short processes extend one chain without forking
//! it, losing a line, or waiting forever? Each append happens under an exclusive `flock` on
//! the project's `lock` file (the kernel drops it when its holder dies; a live holder is
//! waited for a bounded time, then the append fails by the mandatory/optional rule). Under
//! the lock the writer finds the chain's end (its cached file, if nobody wrote since; else
//! `head.json`, taken as it is when the newest file has the length it records, and checked
//! against the file's last line otherwise), repairs what a killed writer
//! left (a torn line is cut off and recorded), rotates the file by size and UTC day (a new
//! file's first line chains to the last line of the one before), appends one line with one
//! `write(2)`, and records the new end in `head.json`.
//!
//! A line is written when its `write(2)` returned in full (and, with an fsync setting, when
//! the fsync did); only then does the chain move on. A failed write is cut back off the file.
//! When the chain's end cannot be trusted (the newest file is gone, or ends before the head
//! record), the writer goes on from the head record and writes a line saying what it found,
//! so the break stays visible to `verify` instead of being papered over.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::Write;
use std::num::NonZeroU32;
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::fs::FlockOperation;

use crate::checkpoint::Checkpoint;
use crate::error::AuditError;
use crate::line::{decode, encode, Fields, Risk, GENESIS};
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
/// mandatory, every event, the head record after every line, one write per line without
/// fsync, a new file every 16 MiB or UTC day, a 2 s bounded wait for the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditOptions {
    /// Team policy `audit.enabled: true`: a line that cannot be written stops the call.
    pub mandatory: bool,
    /// Team policy `audit.level`.
    pub level: Level,
    /// Record the chain's last line in `head.json` after every line (on by default), so a
    /// cut or rewritten end of the newest file is found. Off: only when a file starts.
    pub checkpoint: bool,
    /// How hard lines are pushed to the disk.
    pub durability: Durability,
    /// Start a new file before a line would take the current one past this many bytes.
    pub rotate_bytes: u64,
    /// How long to wait for a lock held by another live process before failing the line.
    pub lock_wait: Duration,
    /// How long a writer in a burst may keep the lock between lines ([`HOLD_MAX`]).
    pub hold_max: Duration,
}

/// The default size at which a new file is started: 16 MiB.
pub const ROTATE_BYTES: u64 = 16 << 20;

/// A writer in a burst writes the head record at most once per this many milliseconds (and
/// when it closes).
const HEAD_EVERY_MS: u64 = 1;

/// The longest a writer in a burst keeps the lock between lines by default: far below the
/// bounded wait of the others, and the lock is given up at the first line past it.
pub const HOLD_MAX: Duration = Duration::from_millis(2);

/// The default bounded wait for the lock: 2 s.
pub const LOCK_WAIT: Duration = Duration::from_secs(2);

impl Default for AuditOptions {
    fn default() -> AuditOptions {
        AuditOptions {
            mandatory: false,
            level: Level::All,
            checkpoint: true,
            durability: Durability::Flush,
            rotate_bytes: ROTATE_BYTES,
            lock_wait: LOCK_WAIT,
            hold_max: HOLD_MAX,
        }
    }
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
pub enum Appended {
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

/// The chain file lines go to now, and where the chain stands.
struct Segment {
    path: PathBuf,
    name: String,
    /// The UTC day (days since 1970) of the file's name: a line on another day starts a new
    /// file.
    day: u64,
    /// `None` for a deleted file that is only the chain's last known place.
    file: Option<File>,
    /// This file takes no more lines: it was sealed by a rotation, is gone, or a failed
    /// write could not be cut back off it.
    sealed: bool,
    /// The chain's last line: its seq (0: none yet) and hash.
    seq: u64,
    prev: [u8; 64],
    /// The file's length after its last good line.
    good_len: u64,
}

/// What a writer found at the chain's end and must record before its own line.
struct Finding {
    kind: &'static str,
    target: String,
    reason: &'static str,
}

const TORN_REASON: &str = "a writer stopped in the middle of a line (it was killed or crashed); \
     the partial line (the target) was cut off the file and this line written in its place";
const MISSING_REASON: &str = "the newest log file named by head.json was gone when this writer came: \
     it was deleted; the chain goes on from the line head.json records";
const MISSING_HEAD_REASON: &str = "head.json was gone while log files remained (it was deleted or never written \
     by a writer that was killed); the chain goes on from the last line of the newest file (the target)";
const MISMATCH_REASON: &str = "the newest log file (the target) does not end at the line head.json records: \
     its end was cut or rewritten; the chain goes on from the line head.json records";

/// The chain of one project, continued by this process.
///
/// Nothing touches the disk until the first line: then the folder (0700), the lock, the
/// head record and the file (0600) are created.
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
    /// What the redactor made of recent texts: reasons come from a few templates and agents
    /// repeat commands, so a stream of calls redacts the same text again and again.
    redacted: RedactMemo,
    /// Random per log: the first part of every line's `id`.
    writer_id: String,
    pid: u32,
    lock: Option<File>,
    head: Option<(File, usize)>,
    /// When this writer last wrote the head record (ms since the epoch; 0: never).
    head_written_ms: u64,
    /// The head record is behind this writer's last line (a burst); written on close.
    head_behind: bool,
    seg: Option<Segment>,
    unsynced: u32,
    buf: Vec<u8>,
    noticed: bool,
    /// Keep the lock between lines that come in quick succession (see [`AuditLog::hold_in_bursts`]).
    burst: bool,
    /// When this writer took the lock it still holds after its last line.
    held_since: Option<Instant>,
}

/// Why an append must start over: the folder was removed under the cached files.
struct Vanished;

impl AuditLog {
    /// A log in `dir` (a project's log folder, see [`layout::project_dir`]) for a session,
    /// redacting with [`Redactor::from_env`].
    pub fn new(dir: impl Into<PathBuf>, session: impl Into<String>, options: AuditOptions) -> AuditLog {
        AuditLog {
            dir: dir.into(),
            session: session.into(),
            options,
            redactor: Redactor::from_env(),
            redacted: RedactMemo::default(),
            writer_id: layout::random_hex(),
            pid: std::process::id(),
            lock: None,
            head: None,
            head_written_ms: 0,
            head_behind: false,
            seg: None,
            unsynced: 0,
            buf: Vec::with_capacity(1024),
            noticed: false,
            burst: false,
            held_since: None,
        }
    }

    /// Keep the lock between lines written in quick succession, for a front end that decides
    /// a stream of calls (`check --jsonl`, `serve`): a burst pays for one lock, not one per
    /// line. The lock is still given up after the line that finds it held for
    /// [`HOLD_MAX`], and the caller must call [`AuditLog::idle`] before it waits for input,
    /// so another process never waits on a writer that waits for a person.
    pub fn hold_in_bursts(&mut self, on: bool) {
        self.burst = on;
        if !on {
            self.idle();
        }
    }

    /// Give up a lock held between lines (bringing the head record up to date first): call
    /// before waiting for anything. Nothing to do when no lock is held.
    pub fn idle(&mut self) {
        if self.held_since.take().is_some() {
            self.catch_up_head();
            self.release_lock();
        }
    }

    /// Use this redactor instead.
    pub fn with_redactor(mut self, redactor: Redactor) -> AuditLog {
        self.redactor = redactor;
        self.redacted = RedactMemo::default();
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

    /// The file this process wrote its last line to, once it wrote one.
    pub fn path(&self) -> Option<&Path> {
        self.seg.as_ref().map(|c| c.path.as_path())
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

    /// Write one line at the end of the project's chain. Redacts the target, reason and
    /// rule; the line gets the chain's next `seq` and its last line's hash as `prev`.
    pub fn record(&mut self, event: &Event<'_>) -> Result<Appended, AuditError> {
        if !self.options.level.keeps(event) {
            return Ok(Appended::Filtered);
        }
        let target = clip(self.redacted.redact(&self.redactor, event.target));
        let reason = clip(self.redacted.redact(&self.redactor, event.reason));
        let rule = event.rule.map(|r| clip(self.redacted.redact(&self.redactor, r)));
        let mut event = *event;
        event.target = &target;
        event.reason = &reason;
        event.rule = rule.as_deref();
        // At most twice: if the folder was removed under the cached files, the line goes
        // again to a new chain in a re-created folder.
        for _ in 0..2 {
            let since = match self.held_since {
                Some(since) => since,
                None => {
                    self.take_lock()?;
                    Instant::now()
                }
            };
            let result = self.append_locked(&event, self.held_since.is_some());
            if self.burst && matches!(result, Ok(Ok(_))) && since.elapsed() < self.options.hold_max {
                self.held_since = Some(since);
            } else {
                self.held_since = None;
                self.release_lock();
            }
            match result {
                Ok(Ok(seq)) => return Ok(Appended::Written { seq }),
                Ok(Err(Vanished)) => self.forget(),
                Err(e) => return Err(e),
            }
        }
        Err(AuditError::Vanished { dir: self.dir.clone() })
    }

    /// Push unsynced lines to the disk (for [`Durability::FsyncEvery`]), and bring the head
    /// record up to this writer's last line; done on drop too.
    pub fn sync(&mut self) -> Result<(), AuditError> {
        self.catch_up_head();
        if let Some(Segment { file: Some(file), path, .. }) = &self.seg {
            if self.unsynced > 0 {
                self.unsynced = 0;
                file.sync_data().map_err(|source| AuditError::Sync { file: path.clone(), source })?;
            }
        }
        Ok(())
    }

    /// Drop every cached file: the next line finds the chain afresh.
    fn forget(&mut self) {
        self.held_since = None;
        self.seg = None;
        self.head = None;
        self.lock = None;
    }

    /// Take the project's lock: open (and create) the lock file, then try `flock` until it
    /// is ours or the bounded wait is over. A holder that died released it already.
    fn take_lock(&mut self) -> Result<(), AuditError> {
        let lock_path = self.dir.join(layout::LOCK_FILE);
        if self.lock.is_none() {
            let open = |create| {
                OpenOptions::new().read(true).write(true).create(create).truncate(false).mode(0o600).open(&lock_path)
            };
            // An existing lock is opened without O_CREAT, which would take the folder's
            // inode lock for every hook process. The folder and the lock file are made only
            // when it cannot be opened: a folder that cannot be made is the error to report.
            let file = match open(false) {
                Ok(f) => f,
                Err(_) => {
                    create_dir(&self.dir)?;
                    open(true).map_err(|source| AuditError::Lock { file: lock_path.clone(), source })?
                }
            };
            self.lock = Some(file);
        }
        let Some(lock) = &self.lock else { return Err(AuditError::Vanished { dir: self.dir.clone() }) };
        let start = Instant::now();
        let mut pause = Duration::from_micros(20);
        loop {
            match rustix::fs::flock(lock, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(()),
                Err(e) if e == rustix::io::Errno::WOULDBLOCK || e == rustix::io::Errno::INTR => {}
                Err(e) => return Err(AuditError::Lock { file: lock_path, source: e.into() }),
            }
            let waited = start.elapsed();
            if waited >= self.options.lock_wait {
                let waited_ms = u64::try_from(waited.as_millis()).unwrap_or(u64::MAX);
                return Err(AuditError::LockTimeout { file: lock_path, waited_ms });
            }
            std::thread::sleep(pause.min(self.options.lock_wait.saturating_sub(waited)));
            pause = (pause * 2).min(Duration::from_millis(2));
        }
    }

    fn release_lock(&mut self) {
        if let Some(lock) = &self.lock {
            // Closing the file would release it too; an unlock that fails leaves the lock
            // to the kernel, which drops it when this process ends.
            if rustix::fs::flock(lock, FlockOperation::Unlock).is_err() {
                self.lock = None;
            }
        }
    }

    /// Under the lock: find the chain's end, record what a killed writer or a tamperer left
    /// there, rotate if due, and append the line. `Ok(Err(Vanished))`: start over.
    /// `held`: this writer kept the lock since its last line, so no writer can have moved the
    /// chain's end.
    fn append_locked(&mut self, event: &Event<'_>, held: bool) -> Result<Result<u64, Vanished>, AuditError> {
        if held && matches!(&self.seg, Some(Segment { file: Some(_), sealed: false, .. })) {
            return self.append(event).map(Ok);
        }
        let findings = match self.find_end()? {
            Ok(f) => f,
            Err(Vanished) => return Ok(Err(Vanished)),
        };
        for f in &findings {
            let target = clip(self.redactor.redact(&f.target));
            self.append(&Event::decision("", &target, f.kind, f.reason))?;
        }
        self.append(event).map(Ok)
    }

    /// Make `self.seg` the chain's newest file, with the chain's end in it. Cheap when this
    /// process wrote the last line: one `fstat` shows that the file is still linked, not
    /// sealed by a rotation, and as long as it was left.
    fn find_end(&mut self) -> Result<Result<Vec<Finding>, Vanished>, AuditError> {
        let mut findings = Vec::new();
        if let Some(Segment { file: Some(file), sealed: false, path, good_len, .. }) = &self.seg {
            let meta = file.metadata().map_err(|source| AuditError::Read { file: path.clone(), source })?;
            if meta.nlink() == 0 {
                // The folder (or the file) was removed: start over in a new folder.
                return Ok(Err(Vanished));
            }
            if meta.permissions().mode() & 0o200 == 0 {
                // Another writer sealed this file and started the next one.
                self.seg = None;
            } else if meta.len() == *good_len {
                return Ok(Ok(findings));
            } else {
                // Another writer appended: its last line is the chain's end.
                let tail =
                    read_tail(file, meta.len()).map_err(|source| AuditError::Read { file: path.clone(), source })?;
                let seg = self.seg.as_mut().ok_or(AuditError::Vanished { dir: self.dir.clone() })?;
                cut_torn(seg, &tail, &mut findings)?;
                if tail.unusable {
                    // Never append to bytes that are not lines: the next line starts a new file.
                    seg.sealed = true;
                    findings.push(Finding { kind: "tail_mismatch", target: seg.name.clone(), reason: MISMATCH_REASON });
                }
                if let Some((seq, hash)) = tail.last {
                    seg.seq = seq;
                    seg.prev = hash;
                }
                return Ok(Ok(findings));
            }
        }
        self.seg = None;
        // No usable cached file: the head record names the newest file.
        let head = self.read_head()?;
        let (name, head_end, head_len) = match &head {
            Some(h) => {
                let mut hash = [0u8; 64];
                hash.copy_from_slice(h.hash.as_bytes());
                (Some(h.file.clone()), Some((h.seq, hash)), h.len)
            }
            None => {
                let newest = self.newest_segment()?;
                if let Some(name) = &newest {
                    // Files but no head record: someone removed it. Say so before a new one
                    // is written, so the removal stays visible.
                    findings.push(Finding { kind: "missing_head", target: name.clone(), reason: MISSING_HEAD_REASON });
                }
                (newest, None, None)
            }
        };
        let Some(name) = name else {
            // A new chain.
            return Ok(Ok(findings));
        };
        let path = self.dir.join(&name);
        let file = match OpenOptions::new().read(true).append(true).open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if let Some((seq, prev)) = head_end {
                    // The newest file was deleted: go on from the head record, and say so.
                    findings.push(Finding { kind: "missing_file", target: name.clone(), reason: MISSING_REASON });
                    self.seg = Some(Segment {
                        path: self.dir.join(&name),
                        name: name.clone(),
                        day: u64::MAX,
                        file: None,
                        sealed: true,
                        seq,
                        prev,
                        good_len: 0,
                    });
                }
                return Ok(Ok(findings));
            }
            Err(source) => return Err(AuditError::Open { file: path, source }),
        };
        let meta = file.metadata().map_err(|source| AuditError::Read { file: path.clone(), source })?;
        if let (Some((seq, prev)), Some(len)) = (head_end, head_len) {
            if meta.len() == len {
                // The file is exactly as long as the head record says it was after the
                // chain's last line: nobody wrote since, so the chain goes on from the head
                // without reading the file's end back. A rewrite that kept the length is
                // not seen here; verify re-hashes every line and finds it, and the line
                // written now chains to the head's line, never to the rewritten one.
                self.seg = Some(Segment {
                    day: name_day(&name),
                    path,
                    name,
                    file: Some(file),
                    sealed: meta.permissions().mode() & 0o200 == 0,
                    seq,
                    prev,
                    good_len: len,
                });
                return Ok(Ok(findings));
            }
        }
        let tail = read_tail(&file, meta.len()).map_err(|source| AuditError::Read { file: path.clone(), source })?;
        let mut seg = Segment {
            day: name_day(&name),
            path,
            name,
            file: Some(file),
            sealed: meta.permissions().mode() & 0o200 == 0,
            seq: 0,
            prev: genesis(),
            good_len: tail.good_len,
        };
        cut_torn(&mut seg, &tail, &mut findings)?;
        if tail.unusable {
            seg.sealed = true;
        }
        match (tail.last, head_end) {
            (Some((seq, hash)), Some((hseq, hhash))) => {
                // The file's end must be the head's line, or lie beyond it (the head is
                // written after the line, so a killed writer leaves it one behind; with the
                // head written only per file, further). Anything else was cut or rewritten.
                if seq > hseq || (seq == hseq && hash == hhash) {
                    (seg.seq, seg.prev) = (seq, hash);
                } else {
                    findings.push(Finding { kind: "tail_mismatch", target: seg.name.clone(), reason: MISMATCH_REASON });
                    (seg.seq, seg.prev) = (hseq, hhash);
                }
            }
            (Some((seq, hash)), None) => (seg.seq, seg.prev) = (seq, hash),
            (None, Some((hseq, hhash))) => {
                if tail.good_len > 0 {
                    // Lines, but the last one does not verify: it was changed.
                    findings.push(Finding { kind: "tail_mismatch", target: seg.name.clone(), reason: MISMATCH_REASON });
                }
                (seg.seq, seg.prev) = (hseq, hhash);
            }
            (None, None) => {
                if tail.good_len > 0 || tail.unusable {
                    findings.push(Finding { kind: "tail_mismatch", target: seg.name.clone(), reason: MISMATCH_REASON });
                }
            }
        }
        // A sealed file (its writer died between sealing it and naming the next one) takes
        // no more lines: the next line starts a new file.
        self.seg = Some(seg);
        Ok(Ok(findings))
    }

    /// The head record, read through a file kept open for overwriting it in place.
    fn read_head(&mut self) -> Result<Option<Checkpoint>, AuditError> {
        let path = self.dir.join(layout::HEAD_FILE);
        self.head = None;
        let file = match OpenOptions::new().read(true).write(true).open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(AuditError::Read { file: path, source }),
        };
        // One `pread` of a buffer larger than any head record (about 160 bytes): a hook pays
        // for every system call here.
        let mut buf = [0u8; 1024];
        let n = file.read_at(&mut buf, 0).map_err(|source| AuditError::Read { file: path.clone(), source })?;
        let text = String::from_utf8_lossy(&buf[..n]).into_owned();
        self.head = Some((file, n));
        // A head that cannot be parsed is treated as none: the newest file by name gives
        // the end, and the next head write replaces it. Verify reports the broken one.
        Ok(Checkpoint::parse_head(&text).ok())
    }

    /// The chain file whose name says it starts latest.
    fn newest_segment(&self) -> Result<Option<String>, AuditError> {
        let entries =
            std::fs::read_dir(&self.dir).map_err(|source| AuditError::Read { file: self.dir.clone(), source })?;
        let mut best: Option<(u64, String)> = None;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(seq) = layout::segment_seq(&name) {
                if best.as_ref().is_none_or(|(b, n)| (seq, &name) > (*b, n)) {
                    best = Some((seq, name));
                }
            }
        }
        Ok(best.map(|(_, n)| n))
    }

    /// Append one line (rotating first if due) and record it in the head.
    fn append(&mut self, event: &Event<'_>) -> Result<u64, AuditError> {
        let now = time::now_ms();
        let time = time::format_utc(now);
        let (seq, prev) = self.seg.as_ref().map_or((0, genesis()), |s| (s.seq, s.prev));
        let fields = Fields {
            id_prefix: &self.writer_id,
            time: &time,
            session: &self.session,
            pid: Some(self.pid),
            tool: event.tool,
            target: event.target,
            kind: event.kind,
            risk: event.risk,
            reason: event.reason,
            rule: event.rule,
            duration_ms: event.duration_ms,
            exit_code: event.exit_code,
        };
        let hash = encode(&mut self.buf, &fields, seq + 1, &prev);
        let due = match &self.seg {
            None => true,
            Some(s) => {
                s.sealed
                    || s.day != now / 86_400_000
                    || (s.good_len > 0 && s.good_len.saturating_add(self.buf.len() as u64) > self.options.rotate_bytes)
            }
        };
        if due {
            self.rotate(now, seq, prev)?;
        }
        let Some(seg) = self.seg.as_mut() else { return Err(AuditError::Vanished { dir: self.dir.clone() }) };
        let Some(mut file) = seg.file.as_ref() else { return Err(AuditError::Vanished { dir: self.dir.clone() }) };
        if let Err(source) = file.write_all(&self.buf) {
            // Cut a partial line back off; if that fails, this file takes no more lines.
            if file.set_len(seg.good_len).is_err() {
                seg.sealed = true;
            }
            return Err(AuditError::Write { file: seg.path.clone(), source });
        }
        seg.seq = seq + 1;
        seg.prev = hash;
        seg.good_len += self.buf.len() as u64;
        let sync = match self.options.durability {
            Durability::Flush => false,
            Durability::FsyncEachLine => true,
            Durability::FsyncEvery(n) => {
                self.unsynced += 1;
                self.unsynced >= n.get()
            }
        };
        if sync {
            self.unsynced = 0;
            file.sync_data().map_err(|source| AuditError::Sync { file: seg.path.clone(), source })?;
        }
        if self.options.checkpoint {
            // After every line; a writer appending faster than one line a millisecond (a
            // burst in one process) writes it at most once a millisecond and when it closes.
            if now.saturating_sub(self.head_written_ms) >= HEAD_EVERY_MS {
                let (name, len) = (seg.name.clone(), seg.good_len);
                self.write_head(&name, seq + 1, &hash, len)?;
                self.head_written_ms = now;
                self.head_behind = false;
            } else {
                self.head_behind = true;
            }
        }
        Ok(seq + 1)
    }

    /// Bring the head record up to this writer's last line, if that is still the chain's
    /// end: one try for the lock (whoever holds it writes the head itself).
    fn catch_up_head(&mut self) {
        if !self.head_behind {
            return;
        }
        self.head_behind = false;
        let Some(lock) = &self.lock else { return };
        if rustix::fs::flock(lock, FlockOperation::NonBlockingLockExclusive).is_err() {
            return;
        }
        if let Some(Segment { file: Some(file), sealed: false, good_len, seq, prev, name, .. }) = &self.seg {
            let ours = file.metadata().is_ok_and(|m| m.nlink() > 0 && m.len() == *good_len);
            if ours {
                let (name, seq, prev, len) = (name.clone(), *seq, *prev, *good_len);
                let _ = self.write_head(&name, seq, &prev, len);
            }
        }
        self.release_lock();
    }

    /// Seal the current file (mode 0400: every writer that has it open sees the rotation in
    /// its next `fstat`), create the next one, and name it in the head record.
    fn rotate(&mut self, now: u64, seq: u64, prev: [u8; 64]) -> Result<(), AuditError> {
        if let Some(Segment { file: Some(old), path, .. }) = self.seg.take() {
            if old.metadata().is_ok_and(|m| m.permissions().mode() & 0o200 != 0) {
                old.set_permissions(std::fs::Permissions::from_mode(0o400))
                    .map_err(|source| AuditError::Write { file: path, source })?;
            }
        }
        create_dir(&self.dir)?;
        let name = layout::segment_name(now, seq + 1);
        let path = self.dir.join(&name);
        let file = match OpenOptions::new().read(true).append(true).create_new(true).mode(0o600).open(&path) {
            Ok(f) => f,
            // A file of that name that is still empty (its writer died before its first
            // line) is taken over.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => OpenOptions::new()
                .read(true)
                .append(true)
                .open(&path)
                .ok()
                .filter(|f| f.metadata().is_ok_and(|m| m.len() == 0))
                .ok_or(AuditError::Open { file: path.clone(), source: e })?,
            Err(source) => return Err(AuditError::Open { file: path, source }),
        };
        self.seg = Some(Segment {
            day: now / 86_400_000,
            path,
            name: name.clone(),
            file: Some(file),
            sealed: false,
            seq,
            prev,
            good_len: 0,
        });
        // No line is written yet: a head that cannot be written is a failed write.
        self.write_head(&name, seq, &prev, 0).map_err(|e| match e {
            AuditError::Checkpoint { file, source } => AuditError::Write { file, source },
            other => other,
        })
    }

    /// Record the chain's end in the head record: overwritten in place by one `pwrite` of a
    /// record whose length never changes for a file (padded with spaces), far below a disk
    /// sector; created (or replaced, when the length changes) by a temporary file renamed
    /// into place.
    fn write_head(&mut self, name: &str, seq: u64, hash: &[u8; 64], len: u64) -> Result<(), AuditError> {
        let path = self.dir.join(layout::HEAD_FILE);
        let err = |source| AuditError::Checkpoint { file: path.clone(), source };
        let body = Checkpoint::encode(name, seq, hash, len);
        let sync = self.options.durability != Durability::Flush;
        if let Some((file, len)) = &self.head {
            if *len == body.len() {
                file.write_all_at(body.as_bytes(), 0).map_err(err)?;
                if sync {
                    file.sync_data().map_err(err)?;
                }
                return Ok(());
            }
        }
        let tmp = self.dir.join(format!(".head.{}.tmp", self.writer_id));
        let mut f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(err)?;
        f.write_all(body.as_bytes()).map_err(err)?;
        if sync {
            f.sync_data().map_err(err)?;
        }
        std::fs::rename(&tmp, &path).map_err(err)?;
        self.head = Some((f, body.len()));
        Ok(())
    }
}

impl Drop for AuditLog {
    fn drop(&mut self) {
        self.catch_up_head();
        let _ = self.sync();
    }
}

/// The UTC day (days since 1970) in a chain file's name (`YYYYMMDD…`), or `u64::MAX`.
fn name_day(name: &str) -> u64 {
    name.get(..8)
        .and_then(|d| time::parse_utc(&format!("{}-{}-{}", &d[..4], &d[4..6], &d[6..])))
        .map_or(u64::MAX, |ms| ms / 86_400_000)
}

/// 64 zeros: the `prev` of the chain's first line.
fn genesis() -> [u8; 64] {
    let mut g = [0u8; 64];
    g.copy_from_slice(GENESIS.as_bytes());
    g
}

/// The end of a chain file: its last complete line (seq and hash, when it decodes with a
/// matching hash), the length up to it, and what follows it without a newline.
struct Tail {
    last: Option<(u64, [u8; 64])>,
    good_len: u64,
    fragment: Vec<u8>,
    /// No newline in the last [`MAX_TAIL`] bytes: not a log this writer can continue.
    unusable: bool,
}

/// The most bytes read back from a file's end to find its last line. A line is at most a few
/// times [`MAX_FIELD`] even with every byte escaped; more without a newline is not a line.
const MAX_TAIL: u64 = 1 << 20;

/// Read a file's end backwards in growing windows until its last complete line is whole.
fn read_tail(file: &File, len: u64) -> std::io::Result<Tail> {
    let mut window: u64 = 4096;
    loop {
        if window > MAX_TAIL {
            return Ok(Tail { last: None, good_len: len, fragment: Vec::new(), unusable: true });
        }
        let start = len.saturating_sub(window);
        let mut buf = vec![0u8; usize::try_from(len - start).unwrap_or(usize::MAX)];
        file.read_exact_at(&mut buf, start)?;
        let whole = start == 0;
        let Some(last_nl) = buf.iter().rposition(|b| *b == b'\n') else {
            if whole {
                return Ok(Tail { last: None, good_len: 0, fragment: buf, unusable: false });
            }
            window *= 4;
            continue;
        };
        let fragment = buf[last_nl + 1..].to_vec();
        let good_len = start + last_nl as u64 + 1;
        let line_start = match buf[..last_nl].iter().rposition(|b| *b == b'\n') {
            Some(i) => i + 1,
            None if whole => 0,
            None => {
                window *= 4;
                continue;
            }
        };
        let line = &buf[line_start..last_nl];
        let last = decode(line).ok().and_then(|l| {
            let computed = l.computed_hash(line);
            (computed == l.hash.as_bytes()).then_some((l.seq, computed))
        });
        return Ok(Tail { last, good_len, fragment, unusable: false });
    }
}

/// Cut a killed writer's partial line off the file, to be recorded by the next line.
fn cut_torn(seg: &mut Segment, tail: &Tail, findings: &mut Vec<Finding>) -> Result<(), AuditError> {
    if tail.fragment.is_empty() {
        seg.good_len = tail.good_len;
        return Ok(());
    }
    if let Some(file) = &seg.file {
        file.set_len(tail.good_len).map_err(|source| AuditError::Write { file: seg.path.clone(), source })?;
    }
    seg.good_len = tail.good_len;
    findings.push(Finding {
        kind: "torn_line",
        target: String::from_utf8_lossy(&tail.fragment).into_owned(),
        reason: TORN_REASON,
    });
    Ok(())
}

/// The last few texts redacted, each with what redaction made of it (`None`: unchanged).
#[derive(Debug, Default)]
struct RedactMemo {
    kept: Vec<(String, Option<String>)>,
    next: usize,
}

impl RedactMemo {
    /// How many texts are kept.
    const SIZE: usize = 16;
    /// Longer texts are redacted each time (keeping them would cost more than it saves).
    const LONGEST: usize = 2048;

    /// `redactor.redact(text)`, from the memo when `text` was redacted lately.
    fn redact<'a>(&mut self, redactor: &Redactor, text: &'a str) -> std::borrow::Cow<'a, str> {
        use std::borrow::Cow;
        if let Some((_, out)) = self.kept.iter().find(|(t, _)| t == text) {
            return out.as_ref().map_or(Cow::Borrowed(text), |o| Cow::Owned(o.clone()));
        }
        let out = redactor.redact(text);
        if text.len() <= Self::LONGEST {
            let entry = (text.to_string(), matches!(out, Cow::Owned(_)).then(|| out.to_string()));
            if self.kept.len() < Self::SIZE {
                self.kept.push(entry);
            } else {
                self.kept[self.next] = entry;
                self.next = (self.next + 1) % Self::SIZE;
            }
        }
        out
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
