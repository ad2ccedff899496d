//! Verification: does every log still say what its writer wrote?
//!
//! The hard question: what counts as broken, and what is a limit? Broken: a line that is not
//! canonical v1, whose hash does not match its bytes, whose seq is not its line number or
//! whose prev is not the line before's hash; a last line cut mid-way; a file with fewer lines
//! than its checkpoint or another line at the checkpoint's seq; a checkpoint whose file is
//! gone; a checkpoint or folder that cannot be read. Limits (not detectable): without a
//! checkpoint, lines cut from the end and deleted files; with one, a file and its checkpoint
//! rewritten together. Only the first bad line of each file is named: after it nothing in
//! that file can be trusted.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::checkpoint::Checkpoint;
use crate::error::ReadError;
use crate::layout::CHECKPOINT_DIR;
use crate::line::{decode, GENESIS};

/// The outcome of verifying files and folders.
#[derive(Debug, Default)]
pub struct Report {
    /// Every log file looked at, in path order.
    pub files: Vec<FileSummary>,
    /// Everything that does not verify, in path order. Empty when all is well.
    pub problems: Vec<Problem>,
}

impl Report {
    /// True when everything verified.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }

    /// Lines verified, over all files.
    pub fn lines(&self) -> u64 {
        self.files.iter().map(|f| f.lines).sum()
    }

    /// The files that have no checkpoint (lines cut from their end would go unnoticed).
    pub fn without_checkpoint(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().filter(|f| f.checkpoint.is_none()).map(|f| f.path.as_path())
    }
}

/// One log file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSummary {
    /// The file.
    pub path: PathBuf,
    /// Lines that verified (up to the first bad one).
    pub lines: u64,
    /// The checkpoint's seq, if the file has a checkpoint.
    pub checkpoint: Option<u64>,
}

/// Something that does not verify: where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The log file (or folder, or checkpoint) concerned.
    pub path: PathBuf,
    /// The first bad line, from 1, when the problem is a line.
    pub line: Option<u64>,
    /// What is wrong.
    pub kind: ProblemKind,
}

/// What is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProblemKind {
    /// The line is not a canonical v1 line.
    NotALine(String),
    /// The line's hash does not match its contents: the line was changed.
    Changed,
    /// The line's seq is not its line number: lines were inserted or removed before it.
    WrongSeq {
        /// The seq the line should have.
        expected: u64,
        /// The seq it has.
        found: u64,
    },
    /// The line's prev is not the hash of the line before: that line was replaced (and
    /// re-hashed), or a line was inserted or removed.
    BrokenLink,
    /// The last line has no newline: the writer stopped in the middle (a crash), or the file
    /// was cut mid-line.
    TornLastLine,
    /// The file has fewer lines than its checkpoint says: lines were cut from the end.
    CutTail {
        /// The checkpoint's seq.
        checkpoint: u64,
        /// The lines in the file.
        lines: u64,
    },
    /// The line at the checkpoint's seq is not the one the checkpoint recorded.
    NotCheckpointed {
        /// The checkpoint's seq.
        seq: u64,
    },
    /// A checkpoint remains, but its log file is gone: the file was deleted.
    Deleted {
        /// The checkpoint's seq.
        seq: u64,
    },
    /// The checkpoint cannot be read or parsed.
    BrokenCheckpoint(String),
    /// The file cannot be read.
    Unreadable(String),
    /// The folder exists but cannot be listed.
    UnreadableDir(String),
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProblemKind::NotALine(why) => write!(f, "not an audit line: {why}"),
            ProblemKind::Changed => f.write_str("changed: the line's hash does not match its contents"),
            ProblemKind::WrongSeq { expected, found } => {
                write!(f, "seq is {found}, expected {expected}: lines were inserted or removed before it")
            }
            ProblemKind::BrokenLink => f.write_str(
                "prev is not the hash of the line before: that line was replaced, or lines were inserted or removed",
            ),
            ProblemKind::TornLastLine => f.write_str(
                "the last line is incomplete (no newline): the writer stopped mid-line, or the file was cut",
            ),
            ProblemKind::CutTail { checkpoint, lines } => write!(
                f,
                "lines cut from the end: the checkpoint records line {checkpoint}, the file has {lines} line(s)"
            ),
            ProblemKind::NotCheckpointed { seq } => {
                write!(f, "not the line its checkpoint recorded (seq {seq}): the end of the file was rewritten")
            }
            ProblemKind::Deleted { seq } => {
                write!(f, "deleted: the file is gone but its checkpoint (line {seq}) remains")
            }
            ProblemKind::BrokenCheckpoint(why) | ProblemKind::Unreadable(why) | ProblemKind::UnreadableDir(why) => {
                f.write_str(why)
            }
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(n) => write!(f, "{}:{n}: {}", self.path.display(), self.kind),
            None => write!(f, "{}: {}", self.path.display(), self.kind),
        }
    }
}

/// Verify a log file (with its checkpoint), or every log under a folder (a project's log
/// folder or the whole audit folder): chains, checkpoints, checkpoints without files,
/// unreadable folders. Files are checked in parallel.
pub fn verify_path(path: &Path) -> Result<Report, ReadError> {
    let meta = std::fs::metadata(path).map_err(|source| ReadError::Io { path: path.to_path_buf(), source })?;
    let mut report = Report::default();
    let files = if meta.is_dir() {
        let mut files = Vec::new();
        list_logs(path, 0, &mut files, &mut report.problems);
        files
    } else if is_log_name(path) {
        vec![path.to_path_buf()]
    } else {
        return Err(ReadError::NotALog { path: path.to_path_buf() });
    };
    let results = in_parallel(&files, |f| verify_file(f));
    for (summary, problem) in results {
        report.files.push(summary);
        report.problems.extend(problem);
    }
    report.problems.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(report)
}

/// Verify one log file and its checkpoint: the file's summary and its first problem.
pub fn verify_file(path: &Path) -> (FileSummary, Option<Problem>) {
    let mut summary = FileSummary { path: path.to_path_buf(), lines: 0, checkpoint: None };
    let problem = |line, kind| Some(Problem { path: path.to_path_buf(), line, kind });
    let checkpoint = match Checkpoint::read(path) {
        Ok(cp) => cp,
        Err(why) => return (summary, problem(None, ProblemKind::BrokenCheckpoint(why))),
    };
    summary.checkpoint = checkpoint.as_ref().map(|c| c.seq);
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) => return (summary, problem(None, ProblemKind::Unreadable(format!("cannot be read: {e}")))),
    };
    let mut reader = BufReader::with_capacity(1 << 18, file);
    let mut buf = Vec::with_capacity(1024);
    let mut prev = GENESIS.as_bytes().to_vec();
    let mut n: u64 = 0;
    let mut at_checkpoint: Option<Vec<u8>> = None;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                return (summary, problem(Some(n + 1), ProblemKind::Unreadable(format!("cannot be read: {e}"))));
            }
        }
        let line_no = n + 1;
        let Some(line) = buf.strip_suffix(b"\n") else {
            return (summary, problem(Some(line_no), ProblemKind::TornLastLine));
        };
        let l = match decode(line) {
            Ok(l) => l,
            Err(e) => return (summary, problem(Some(line_no), ProblemKind::NotALine(e.to_string()))),
        };
        if l.computed_hash(line) != l.hash.as_bytes() {
            return (summary, problem(Some(line_no), ProblemKind::Changed));
        }
        if l.seq != line_no {
            return (summary, problem(Some(line_no), ProblemKind::WrongSeq { expected: line_no, found: l.seq }));
        }
        if l.prev.as_bytes() != prev.as_slice() {
            return (summary, problem(Some(line_no), ProblemKind::BrokenLink));
        }
        prev.clear();
        prev.extend_from_slice(l.hash.as_bytes());
        if checkpoint.as_ref().is_some_and(|c| c.seq == line_no) {
            at_checkpoint = Some(prev.clone());
        }
        n = line_no;
        summary.lines = n;
    }
    if let Some(cp) = &checkpoint {
        if cp.seq > n {
            return (summary, problem(None, ProblemKind::CutTail { checkpoint: cp.seq, lines: n }));
        }
        if at_checkpoint.as_deref() != Some(cp.hash.as_bytes()) {
            return (summary, problem(Some(cp.seq), ProblemKind::NotCheckpointed { seq: cp.seq }));
        }
    }
    (summary, None)
}

pub(crate) fn is_log_name(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".jsonl") && !n.starts_with('.'))
}

/// Collect the log files under `dir` (sorted), and report unreadable folders and
/// checkpoints whose file is gone. Links are not followed.
pub(crate) fn list_logs(dir: &Path, depth: usize, files: &mut Vec<PathBuf>, problems: &mut Vec<Problem>) {
    let entries = match sorted_entries(dir) {
        Ok(e) => e,
        Err(e) => {
            problems.push(Problem {
                path: dir.to_path_buf(),
                line: None,
                kind: ProblemKind::UnreadableDir(format!("the folder cannot be listed: {e}")),
            });
            return;
        }
    };
    for (path, ty) in entries {
        if ty.is_file() && is_log_name(&path) {
            files.push(path);
        } else if ty.is_dir() && path.file_name().is_some_and(|n| n == CHECKPOINT_DIR) {
            orphan_checkpoints(&path, problems);
        } else if ty.is_dir() && depth < 4 {
            list_logs(&path, depth + 1, files, problems);
        }
    }
}

fn sorted_entries(dir: &Path) -> std::io::Result<Vec<(PathBuf, std::fs::FileType)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        out.push((entry.path(), entry.file_type()?));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Checkpoints in `cp_dir` whose log file no longer exists.
fn orphan_checkpoints(cp_dir: &Path, problems: &mut Vec<Problem>) {
    let entries = match sorted_entries(cp_dir) {
        Ok(e) => e,
        Err(e) => {
            problems.push(Problem {
                path: cp_dir.to_path_buf(),
                line: None,
                kind: ProblemKind::UnreadableDir(format!("the checkpoint folder cannot be listed: {e}")),
            });
            return;
        }
    };
    let Some(log_dir) = cp_dir.parent() else { return };
    for (path, ty) in entries {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        let Some(log_name) = name.strip_suffix(".json").filter(|n| n.ends_with(".jsonl") && !name.starts_with('.'))
        else {
            continue;
        };
        if !ty.is_file() {
            continue;
        }
        let log = log_dir.join(log_name);
        match std::fs::symlink_metadata(&log) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let kind = match Checkpoint::read(&log) {
                    Ok(Some(cp)) => ProblemKind::Deleted { seq: cp.seq },
                    Ok(None) => continue,
                    Err(why) => ProblemKind::BrokenCheckpoint(why),
                };
                problems.push(Problem { path: log, line: None, kind });
            }
            Err(e) => problems.push(Problem {
                path: log,
                line: None,
                kind: ProblemKind::Unreadable(format!("cannot be looked at: {e}")),
            }),
        }
    }
}

/// Run `f` on every item, spread over the machine's cores, results in order.
pub(crate) fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len()).max(1);
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> =
            items.chunks(chunk).map(|part| s.spawn(move || part.iter().map(f).collect::<Vec<R>>())).collect();
        let mut out = Vec::with_capacity(items.len());
        for h in handles {
            match h.join() {
                Ok(part) => out.extend(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out
    })
}
