//! Verification: does every project's chain still say what its writers wrote?
//!
//! The hard question: what counts as broken, and what is a limit? A project's chain runs
//! through its files in the order their names give; broken is: a line that is not canonical,
//! whose hash does not match its bytes, whose seq does not follow the line before (in its
//! file, or at the end of the file before) or whose prev is not that line's hash; a chain
//! that does not start at line 1; a file whose name says it starts elsewhere than its first
//! line (renamed or swapped); a head record naming a file that is gone, or a line the chain
//! does not reach or has with another hash; a line in which a writer recorded that it found
//! the newest file deleted, cut or rewritten; a last line cut mid-way; a folder or file that
//! cannot be read. Limits: the chain's files and head record rewritten or deleted together.
//! Only the first bad line of each file is named: after it nothing in that file can be
//! trusted. Old per-process logs (v1, one chain per file) are verified as before, each with
//! its own checkpoint.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::checkpoint::Checkpoint;
use crate::error::ReadError;
use crate::layout::{segment_seq, CHECKPOINT_DIR, HEAD_FILE};
use crate::line::{decode, GENESIS};

/// The outcome of verifying files and folders.
#[derive(Debug, Default)]
pub struct Report {
    /// Every log file looked at, in path order.
    pub files: Vec<FileSummary>,
    /// Everything that does not verify, by project, in chain order. Empty when all is well.
    pub problems: Vec<Problem>,
    /// One summary per project folder, in path order.
    pub projects: Vec<ProjectSummary>,
}

/// What verification found in one project folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectSummary {
    /// The project's log folder.
    pub dir: PathBuf,
    /// Log files (chain files and old per-process files).
    pub files: usize,
    /// Lines that verified.
    pub lines: u64,
    /// The time of the earliest and the latest line read.
    pub first_time: Option<String>,
    /// The time of the latest line read.
    pub last_time: Option<String>,
    /// Lines in which a writer recorded a line cut short by a killed writer (explained, not
    /// a break).
    pub torn_repaired: u64,
    /// The first problem, in chain order.
    pub first_problem: Option<Problem>,
    /// How many problems in all.
    pub problems: usize,
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

    /// The old per-process files that have no checkpoint (lines cut from their end would go
    /// unnoticed). Chain files are anchored by their project's head record instead.
    pub fn without_checkpoint(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().filter(|f| f.checkpoint.is_none() && !f.chained).map(|f| f.path.as_path())
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
    /// A file of a project's chain (v2), anchored by the head record.
    pub chained: bool,
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
    /// The chain's first line is not line 1: the files before it were deleted.
    ChainStart {
        /// Its seq.
        found: u64,
    },
    /// Lines are missing between this file and the one before it.
    Gap {
        /// The first missing seq.
        from: u64,
        /// The last missing seq.
        to: u64,
        /// The file before.
        after: String,
    },
    /// This file's first line does not follow the file before (its seq repeats or goes back).
    Overlap {
        /// The seq expected.
        expected: u64,
        /// The seq found.
        found: u64,
        /// The file before.
        after: String,
    },
    /// The file's name says its first line is `named`, but it is `found`: files were renamed
    /// or swapped.
    Renamed {
        /// The seq in the name.
        named: u64,
        /// The first line's seq.
        found: u64,
    },
    /// The chain ends before the line the head record names: lines were cut from the end of
    /// the newest file.
    HeadCut {
        /// The head's seq.
        head: u64,
        /// The chain's last seq.
        end: u64,
    },
    /// A line of the other format version among the chain's lines.
    WrongVersion,
    /// The project has chain files but no head record.
    HeadMissing,
    /// A writer recorded in this line that it found the chain's newest file deleted, cut or
    /// rewritten.
    Recorded {
        /// The line's kind (`missing_file`, `tail_mismatch`, `missing_head`).
        kind: String,
        /// The file it names.
        file: String,
    },
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
            ProblemKind::ChainStart { found } => write!(
                f,
                "the chain starts at line {found}, not 1: the file(s) before it were deleted"
            ),
            ProblemKind::Gap { from, to, after } => write!(
                f,
                "lines {from} to {to} are missing before this file: a file after {after} was deleted, or lines cut from the end of {after}"
            ),
            ProblemKind::Overlap { expected, found, after } => write!(
                f,
                "seq is {found}, expected {expected} after {after}: files were swapped, copied or renamed"
            ),
            ProblemKind::Renamed { named, found } => write!(
                f,
                "the file's name says it starts at line {named}, but its first line is {found}: files were renamed or swapped"
            ),
            ProblemKind::HeadCut { head, end } => write!(
                f,
                "lines cut from the end: head.json records line {head}, the chain ends at line {end}"
            ),
            ProblemKind::WrongVersion => f.write_str("a line of another format version: the line was put there from elsewhere"),
            ProblemKind::HeadMissing => f.write_str(
                "head.json is missing: the newest file's end cannot be checked (it was deleted)",
            ),
            ProblemKind::Recorded { kind, file } => match kind.as_str() {
                "missing_file" => write!(f, "a writer recorded here that the newest file {file} was gone (deleted)"),
                "missing_head" => write!(f, "a writer recorded here that head.json was gone (deleted) while {file} remained"),
                _ => write!(f, "a writer recorded here that the newest file {file} did not end at the line head.json recorded (cut or rewritten)"),
            },
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

/// Verify a log file, or every project under a folder (a project's log folder or the whole
/// audit folder): each project's chain across its files and its head record, each old
/// per-process file with its checkpoint, checkpoints without files, unreadable folders.
/// Files are checked in parallel, then linked in chain order.
pub fn verify_path(path: &Path) -> Result<Report, ReadError> {
    let meta = std::fs::metadata(path).map_err(|source| ReadError::Io { path: path.to_path_buf(), source })?;
    let mut report = Report::default();
    if !meta.is_dir() {
        if !is_log_name(path) {
            return Err(ReadError::NotALog { path: path.to_path_buf() });
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let (summary, problem) = match segment_seq(name) {
            Some(seq) => {
                let r = verify_segment(path, seq, None);
                (r.summary, r.problem)
            }
            None => verify_file(path),
        };
        report.projects.push(ProjectSummary {
            dir: path.to_path_buf(),
            files: 1,
            lines: summary.lines,
            first_problem: problem.clone(),
            problems: usize::from(problem.is_some()),
            ..ProjectSummary::default()
        });
        report.files.push(summary);
        report.problems.extend(problem);
        return Ok(report);
    }
    let mut files = Vec::new();
    let mut dir_problems = Vec::new();
    list_logs(path, 0, &mut files, &mut dir_problems);
    // Project folders: every folder with a log file or a head record.
    let mut dirs: Vec<PathBuf> = files.iter().filter_map(|f| f.parent().map(Path::to_path_buf)).collect();
    let mut heads = Vec::new();
    find_heads(path, 0, &mut heads);
    dirs.extend(heads);
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        let mine: Vec<PathBuf> = files.iter().filter(|f| f.parent() == Some(dir.as_path())).cloned().collect();
        let mut problems: Vec<Problem> =
            dir_problems.iter().filter(|p| p.path.parent() == Some(dir.as_path())).cloned().collect();
        let summary = verify_project(&dir, &mine, &mut report.files, &mut problems);
        report.projects.push(summary);
        report.problems.extend(problems);
    }
    // Problems outside any project (an unreadable folder of projects).
    for p in dir_problems {
        if !report.projects.iter().any(|s| p.path.parent() == Some(s.dir.as_path())) {
            report.problems.push(p);
        }
    }
    Ok(report)
}

/// Folders under `dir` that hold a head record.
fn find_heads(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = sorted_entries(dir) else { return };
    for (path, ty) in entries {
        if ty.is_file() && path.file_name().is_some_and(|n| n == HEAD_FILE) {
            out.push(dir.to_path_buf());
        } else if ty.is_dir() && depth < 4 && path.file_name().is_some_and(|n| n != CHECKPOINT_DIR) {
            find_heads(&path, depth + 1, out);
        }
    }
}

/// One chain file verified on its own: its ends, for linking to its neighbours.
struct Segment {
    summary: FileSummary,
    /// The first line's seq and prev.
    first: Option<(u64, String)>,
    /// The last good line's seq and hash.
    last: Option<(u64, String)>,
    first_time: Option<String>,
    last_time: Option<String>,
    /// The hash of the line at the head record's seq, when it is in this file.
    at_head: Option<String>,
    torn_repaired: u64,
    problem: Option<Problem>,
    /// A writer's recorded finding: a problem, but the chain goes on intact over it.
    finding: Option<Problem>,
}

/// Verify a project folder: its old per-process files one by one, its chain files linked in
/// the order of the seq their names give, and the head record against the chain's end.
fn verify_project(
    dir: &Path,
    files: &[PathBuf],
    all: &mut Vec<FileSummary>,
    problems: &mut Vec<Problem>,
) -> ProjectSummary {
    let mut summary = ProjectSummary { dir: dir.to_path_buf(), files: files.len(), ..ProjectSummary::default() };
    let mut legacy = Vec::new();
    let mut chain = Vec::new();
    for f in files {
        match f.file_name().and_then(|n| n.to_str()).and_then(segment_seq) {
            Some(seq) => chain.push((seq, f.clone())),
            None => legacy.push(f.clone()),
        }
    }
    chain.sort();
    let head = match Checkpoint::read_head(dir) {
        Ok(h) => h,
        Err(why) => {
            problems.push(Problem { path: dir.join(HEAD_FILE), line: None, kind: ProblemKind::BrokenCheckpoint(why) });
            None
        }
    };
    if head.is_none() && !chain.is_empty() && !dir.join(HEAD_FILE).exists() {
        problems.push(Problem { path: dir.join(HEAD_FILE), line: None, kind: ProblemKind::HeadMissing });
    }
    let head_seq = head.as_ref().map(|h| h.seq);
    let segments = in_parallel(&chain, |(seq, f)| verify_segment(f, *seq, head_seq));
    // Link the files: each file's first line follows the last line of the one before.
    let mut expect: Option<(u64, String, String)> = Some((0, GENESIS.to_string(), String::new()));
    let mut end: u64 = 0;
    let mut at_head = None;
    for seg in &segments {
        if let (Some(e), Some((seq, prev))) = (&expect, &seg.first) {
            let kind = if *seq == e.0 + 1 && *prev == e.1 {
                None
            } else if e.0 == 0 {
                Some(ProblemKind::ChainStart { found: *seq })
            } else if *seq > e.0 + 1 {
                Some(ProblemKind::Gap { from: e.0 + 1, to: seq - 1, after: e.2.clone() })
            } else if *seq <= e.0 {
                Some(ProblemKind::Overlap { expected: e.0 + 1, found: *seq, after: e.2.clone() })
            } else {
                Some(ProblemKind::BrokenLink)
            };
            if let Some(kind) = kind {
                problems.push(Problem { path: seg.summary.path.clone(), line: Some(1), kind });
            }
        }
        problems.extend(seg.finding.clone());
        problems.extend(seg.problem.clone());
        let name = seg.summary.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if seg.first.is_some() {
            // After a broken file the next link cannot be judged: it starts afresh.
            expect = if seg.problem.is_some() { None } else { seg.last.clone().map(|(s, h)| (s, h, name)) };
        }
        if let Some((s, _)) = &seg.last {
            end = end.max(*s);
        }
        at_head = at_head.or(seg.at_head.clone());
        summary.lines += seg.summary.lines;
        summary.torn_repaired += seg.torn_repaired;
        if summary.first_time.is_none() {
            summary.first_time = seg.first_time.clone();
        }
        if seg.last_time.is_some() {
            summary.last_time = seg.last_time.clone();
        }
        all.push(seg.summary.clone());
    }
    if let Some(h) = &head {
        let named = dir.join(&h.file);
        if !chain.iter().any(|(_, f)| *f == named) {
            problems.push(Problem { path: named, line: None, kind: ProblemKind::Deleted { seq: h.seq } });
        } else if h.seq > end {
            problems.push(Problem { path: named, line: None, kind: ProblemKind::HeadCut { head: h.seq, end } });
        } else if h.seq > 0 && at_head.as_deref().is_some_and(|a| a != h.hash) {
            let file = segments.iter().find(|s| s.at_head.is_some()).map_or(named, |s| s.summary.path.clone());
            problems.push(Problem { path: file, line: None, kind: ProblemKind::NotCheckpointed { seq: h.seq } });
        }
    }
    // The old per-process files, each its own chain.
    for (file, problem) in in_parallel(&legacy, |f| verify_file(f)) {
        summary.lines += file.lines;
        all.push(file);
        problems.extend(problem);
    }
    let legacy_times = legacy_times(&legacy);
    if let Some((a, b)) = legacy_times {
        if summary.first_time.as_ref().is_none_or(|t| a < *t) {
            summary.first_time = Some(a);
        }
        if summary.last_time.as_ref().is_none_or(|t| b > *t) {
            summary.last_time = Some(b);
        }
    }
    summary.problems = problems.len();
    summary.first_problem = problems.first().cloned();
    summary
}

/// The earliest and latest time in old per-process files (their first and last lines).
fn legacy_times(files: &[PathBuf]) -> Option<(String, String)> {
    let mut out: Option<(String, String)> = None;
    for f in files {
        let Ok(text) = std::fs::read(f) else { continue };
        for line in text.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            if let Ok(l) = decode(line) {
                let t = l.time.value().into_owned();
                out = Some(match out {
                    None => (t.clone(), t),
                    Some((a, b)) => (a.min(t.clone()), b.max(t)),
                });
            }
        }
    }
    out
}

/// Verify one chain file: v2 lines, the first at the seq its name gives, each following the
/// one before. Its first line's link to the file before is checked by the caller.
fn verify_segment(path: &Path, name_seq: u64, head_seq: Option<u64>) -> Segment {
    let mut seg = Segment {
        summary: FileSummary { path: path.to_path_buf(), lines: 0, checkpoint: None, chained: true },
        first: None,
        last: None,
        first_time: None,
        last_time: None,
        at_head: None,
        torn_repaired: 0,
        problem: None,
        finding: None,
    };
    let problem = |line, kind| Some(Problem { path: path.to_path_buf(), line: Some(line), kind });
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) => {
            seg.problem = Some(Problem {
                path: path.to_path_buf(),
                line: None,
                kind: ProblemKind::Unreadable(format!("cannot be read: {e}")),
            });
            return seg;
        }
    };
    let mut reader = BufReader::with_capacity(1 << 18, file);
    let mut buf = Vec::with_capacity(1024);
    let mut n: u64 = 0;
    let mut last: Option<(u64, [u8; 64])> = None;
    let mut last_time = String::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                seg.problem = problem(n + 1, ProblemKind::Unreadable(format!("cannot be read: {e}")));
                break;
            }
        }
        let line_no = n + 1;
        let Some(line) = buf.strip_suffix(b"\n") else {
            seg.problem = problem(line_no, ProblemKind::TornLastLine);
            break;
        };
        let l = match decode(line) {
            Ok(l) => l,
            Err(e) => {
                seg.problem = problem(line_no, ProblemKind::NotALine(e.to_string()));
                break;
            }
        };
        if l.v != 2 {
            seg.problem = problem(line_no, ProblemKind::WrongVersion);
            break;
        }
        let computed = l.computed_hash(line);
        if computed != l.hash.as_bytes() {
            seg.problem = problem(line_no, ProblemKind::Changed);
            break;
        }
        match &last {
            None => {
                if l.seq != name_seq {
                    seg.problem = problem(line_no, ProblemKind::Renamed { named: name_seq, found: l.seq });
                    break;
                }
                seg.first = Some((l.seq, l.prev.to_string()));
                seg.first_time = Some(l.time.value().into_owned());
            }
            Some((seq, hash)) => {
                let (seq, hash) = (*seq, hash.as_slice());
                if l.seq != seq + 1 {
                    seg.problem = problem(line_no, ProblemKind::WrongSeq { expected: seq + 1, found: l.seq });
                    break;
                }
                if l.prev.as_bytes() != hash {
                    seg.problem = problem(line_no, ProblemKind::BrokenLink);
                    break;
                }
            }
        }
        let kind = l.kind.as_escaped();
        if kind == "torn_line" {
            seg.torn_repaired += 1;
        } else if matches!(kind, "missing_file" | "tail_mismatch" | "missing_head") && seg.finding.is_none() {
            seg.finding =
                problem(line_no, ProblemKind::Recorded { kind: kind.to_string(), file: l.target.value().into_owned() });
        }
        if head_seq == Some(l.seq) {
            seg.at_head = Some(l.hash.to_string());
        }
        // No allocation per line: the last line's hash and time are kept in reused buffers.
        let (seq_slot, hash_slot) = last.get_or_insert((0, [0u8; 64]));
        *seq_slot = l.seq;
        hash_slot.copy_from_slice(l.hash.as_bytes());
        last_time.clear();
        last_time.push_str(l.time.as_escaped());
        n = line_no;
        seg.summary.lines = n;
    }
    seg.last = last.map(|(seq, hash)| (seq, String::from_utf8_lossy(&hash).into_owned()));
    if !last_time.is_empty() {
        seg.last_time = Some(last_time);
    }
    seg
}

/// Verify one log file and its checkpoint: the file's summary and its first problem.
pub fn verify_file(path: &Path) -> (FileSummary, Option<Problem>) {
    let mut summary = FileSummary { path: path.to_path_buf(), lines: 0, checkpoint: None, chained: false };
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
