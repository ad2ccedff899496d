//! Verify an exported stream: the OTLP JSON a collector wrote (its file exporter, one
//! request per line, or any file of OTLP JSON documents), checked as the chains it carries.
//!
//! The hard question: what can a receiver prove from the records alone? Each record's body
//! is the audit line as written, so its hash can be recomputed; its seq and `prev` tie it to
//! the line before. So, per project: a body whose hash is not its own is **altered**; a
//! record whose attributes disagree with its body is **altered** too; a seq that arrived
//! twice with two hashes is **forged** (or the local chain was begun again: a fork); a seq
//! that arrived after a later one is **reordered**; seqs that never arrived are a **cut**; a
//! line whose `prev` is not the hash of the line before it is a **broken link** (the line
//! before was replaced and re-hashed). A seq that arrived twice with the same hash is a
//! retry (OTLP delivers at least once): counted, not a break. Limit: lines not yet sent (the
//! end of the chain) cannot be missed by the receiver; compare with the local
//! `wicket audit verify`.

use std::collections::BTreeMap;
use std::fmt;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde_json::Value;
use wicket_audit::decode;

use crate::error::OtelError;
use crate::record::attr;

/// What is wrong at a seq.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamProblemKind {
    /// Lines `from..=to` never arrived.
    Cut {
        /// The first missing seq.
        from: u64,
        /// The last missing seq.
        to: u64,
    },
    /// The body's hash is not the hash it states: the line was changed.
    Altered,
    /// The record's attributes disagree with its body.
    AttributesAltered(String),
    /// The body is not an audit line at all.
    NotALine(String),
    /// This seq arrived before with another hash.
    Forged {
        /// The hash of the first arrival.
        first: String,
    },
    /// This seq arrived after a later one.
    Reordered {
        /// The highest seq that had arrived before it.
        after: u64,
    },
    /// The line's prev is not the hash of the line before it.
    BrokenLink,
}

/// One problem in a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamProblem {
    /// The project's log folder name.
    pub project: String,
    /// The seq concerned (the first of a cut).
    pub seq: u64,
    /// What is wrong.
    pub kind: StreamProblemKind,
    /// Where the record was read (file and line of the stream), when it was.
    pub at: Option<(PathBuf, u64)>,
}

impl fmt::Display for StreamProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamProblemKind::Cut { from, to } if from == to => {
                write!(f, "line {from} never arrived: it was removed in transit or at the source")
            }
            StreamProblemKind::Cut { from, to } => {
                write!(f, "lines {from} to {to} never arrived: they were removed in transit or at the source")
            }
            StreamProblemKind::Altered => f.write_str("altered: the line's hash does not match its contents"),
            StreamProblemKind::AttributesAltered(what) => {
                write!(f, "altered: the record's {what} attribute does not match its line")
            }
            StreamProblemKind::NotALine(why) => write!(f, "forged: the record's body is not an audit line ({why})"),
            StreamProblemKind::Forged { first } => write!(
                f,
                "forged: this seq arrived before with hash {first}, now with another (or the local chain was begun again)"
            ),
            StreamProblemKind::Reordered { after } => write!(f, "reordered: it arrived after line {after}"),
            StreamProblemKind::BrokenLink => f.write_str(
                "prev is not the hash of the line before: that line was replaced, or lines were inserted or removed",
            ),
        }
    }
}

impl fmt::Display for StreamProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: seq {}: {}", self.project, self.seq, self.kind)?;
        if let Some((file, n)) = &self.at {
            write!(f, " ({}:{n})", file.display())?;
        }
        Ok(())
    }
}

/// What verification found for one project.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamProject {
    /// The project's log folder name.
    pub project: String,
    /// Records read.
    pub records: u64,
    /// Distinct lines.
    pub lines: u64,
    /// The lowest and highest seq.
    pub first_seq: Option<u64>,
    /// The highest seq.
    pub last_seq: Option<u64>,
    /// Records that repeat a line already received with the same hash (retries).
    pub duplicates: u64,
    /// How many problems.
    pub problems: usize,
}

/// The outcome of verifying a stream.
#[derive(Debug, Default)]
pub struct StreamReport {
    /// Files read, in order.
    pub files: Vec<PathBuf>,
    /// One summary per project, by name.
    pub projects: Vec<StreamProject>,
    /// Every problem, by project, then seq.
    pub problems: Vec<StreamProblem>,
    /// Records without a project or seq (not wicket's), skipped.
    pub foreign: u64,
}

impl StreamReport {
    /// True when every chain verified.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Does this file or folder hold an exported stream (OTLP JSON) rather than local logs?
/// Looks at the first non-blank bytes of the first file: `{"resourceLogs"`.
pub fn looks_like_stream(path: &Path) -> bool {
    let first = if path.is_dir() {
        stream_files(path).ok().and_then(|f| f.into_iter().next())
    } else {
        Some(path.to_path_buf())
    };
    let Some(file) = first else { return false };
    let Ok(mut f) = std::fs::File::open(&file) else { return false };
    let mut head = [0u8; 256];
    let n = std::io::Read::read(&mut f, &mut head).unwrap_or(0);
    let text: String = String::from_utf8_lossy(&head[..n]).chars().filter(|c| !c.is_whitespace()).collect();
    text.starts_with("{\"resourceLogs\"") || text.starts_with("{\"resource_logs\"")
}

/// The files of a stream folder, by name (a collector's rotated files sort before the file
/// it writes now: `logs-<time>.json` < `logs.json`).
fn stream_files(dir: &Path) -> Result<Vec<PathBuf>, OtelError> {
    let rd = std::fs::read_dir(dir).map_err(|source| OtelError::Io { path: dir.to_path_buf(), source })?;
    let mut files: Vec<PathBuf> =
        rd.filter_map(Result::ok).filter(|e| e.file_type().is_ok_and(|t| t.is_file())).map(|e| e.path()).collect();
    files.sort();
    Ok(files)
}

/// One received record.
struct Received {
    seq: u64,
    at: (PathBuf, u64),
    outcome: Result<(String, String), StreamProblemKind>,
}

/// Verify a stream file, or every file of a stream folder, in order.
pub fn verify_stream(path: &Path) -> Result<StreamReport, OtelError> {
    let files = if path.is_dir() { stream_files(path)? } else { vec![path.to_path_buf()] };
    let mut report = StreamReport { files: files.clone(), ..StreamReport::default() };
    let mut by_project: BTreeMap<String, Vec<Received>> = BTreeMap::new();
    for file in &files {
        let f = std::fs::File::open(file).map_err(|source| OtelError::Io { path: file.clone(), source })?;
        let docs = serde_json::Deserializer::from_reader(BufReader::new(f)).into_iter::<Value>();
        for (i, doc) in docs.enumerate() {
            let doc = doc.map_err(|e| OtelError::Io {
                path: file.clone(),
                source: std::io::Error::new(std::io::ErrorKind::InvalidData, format!("not OTLP JSON: {e}")),
            })?;
            let n = i as u64 + 1;
            for_each_record(&doc, |project, record| match receive(project, record, (file.clone(), n)) {
                Some((p, r)) => by_project.entry(p).or_default().push(r),
                None => report.foreign += 1,
            });
        }
    }
    for (project, received) in by_project {
        let (summary, problems) = check(&project, received);
        report.projects.push(summary);
        report.problems.extend(problems);
    }
    Ok(report)
}

/// Call `f` with each log record and its resource's project attribute.
fn for_each_record(doc: &Value, mut f: impl FnMut(Option<&str>, &Value)) {
    let list = |v: &Value, a: &str, b: &str| -> Vec<Value> {
        v.get(a).or_else(|| v.get(b)).and_then(Value::as_array).cloned().unwrap_or_default()
    };
    for rl in list(doc, "resourceLogs", "resource_logs") {
        let resource_project = rl.get("resource").and_then(|r| string_attr(r, attr::PROJECT));
        for sl in list(&rl, "scopeLogs", "scope_logs") {
            for record in list(&sl, "logRecords", "log_records") {
                f(resource_project.as_deref(), &record);
            }
        }
    }
}

/// An attribute's value (`{"key": k, "value": {"stringValue": …}}`).
fn attr_value<'a>(holder: &'a Value, key: &str) -> Option<&'a Value> {
    holder
        .get("attributes")?
        .as_array()?
        .iter()
        .find(|a| a.get("key").and_then(Value::as_str) == Some(key))?
        .get("value")
}

fn string_attr(holder: &Value, key: &str) -> Option<String> {
    let v = attr_value(holder, key)?;
    v.get("stringValue").or_else(|| v.get("string_value")).and_then(Value::as_str).map(str::to_string)
}

fn int_attr(holder: &Value, key: &str) -> Option<u64> {
    let v = attr_value(holder, key)?;
    let v = v.get("intValue").or_else(|| v.get("int_value"))?;
    // OTLP JSON writes 64-bit integers as strings; accept numbers too.
    v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

/// One record: its project and seq, and its line's (prev, hash) or why it is not a good line.
fn receive(resource_project: Option<&str>, record: &Value, at: (PathBuf, u64)) -> Option<(String, Received)> {
    let project = string_attr(record, attr::PROJECT).or_else(|| resource_project.map(str::to_string))?;
    let seq = int_attr(record, attr::SEQ)?;
    let body =
        record.get("body").and_then(|b| b.get("stringValue").or_else(|| b.get("string_value"))).and_then(Value::as_str);
    let outcome = match body {
        None => Err(StreamProblemKind::NotALine("no string body".into())),
        Some(body) => match decode(body.as_bytes()) {
            Err(e) => Err(StreamProblemKind::NotALine(e.to_string())),
            Ok(l) if l.computed_hash(body.as_bytes()) != l.hash.as_bytes() => Err(StreamProblemKind::Altered),
            Ok(l) if l.seq != seq => Err(StreamProblemKind::AttributesAltered(attr::SEQ.into())),
            Ok(l) if string_attr(record, attr::HASH).as_deref() != Some(l.hash) => {
                Err(StreamProblemKind::AttributesAltered(attr::HASH.into()))
            }
            Ok(l) if string_attr(record, attr::PREV).as_deref() != Some(l.prev) => {
                Err(StreamProblemKind::AttributesAltered(attr::PREV.into()))
            }
            Ok(l) => Ok((l.prev.to_string(), l.hash.to_string())),
        },
    };
    Some((project, Received { seq, at, outcome }))
}

/// Check one project's records, in the order they arrived.
fn check(project: &str, received: Vec<Received>) -> (StreamProject, Vec<StreamProblem>) {
    let mut summary =
        StreamProject { project: project.to_string(), records: received.len() as u64, ..StreamProject::default() };
    let mut problems = Vec::new();
    let problem = |seq: u64, kind: StreamProblemKind, at: Option<(PathBuf, u64)>| StreamProblem {
        project: project.to_string(),
        seq,
        kind,
        at,
    };
    // seq → (prev, hash) of its first good arrival.
    let mut lines: BTreeMap<u64, (String, String)> = BTreeMap::new();
    let mut seen: BTreeMap<u64, ()> = BTreeMap::new();
    let mut highest = 0u64;
    for r in received {
        let repeat = seen.insert(r.seq, ()).is_some();
        match r.outcome {
            Err(kind) => problems.push(problem(r.seq, kind, Some(r.at))),
            Ok((prev, hash)) => match lines.get(&r.seq) {
                Some((_, first)) if *first == hash => summary.duplicates += 1,
                Some((_, first)) => {
                    problems.push(problem(r.seq, StreamProblemKind::Forged { first: first.clone() }, Some(r.at)))
                }
                None => {
                    if r.seq < highest && !repeat {
                        problems.push(problem(r.seq, StreamProblemKind::Reordered { after: highest }, Some(r.at)));
                    }
                    lines.insert(r.seq, (prev, hash));
                }
            },
        }
        highest = highest.max(r.seq);
    }
    let seqs: Vec<u64> = seen.keys().copied().collect();
    summary.lines = seqs.len() as u64;
    summary.first_seq = seqs.first().copied();
    summary.last_seq = seqs.last().copied();
    let mut expected = 1u64;
    for &s in &seqs {
        if s > expected {
            problems.push(problem(expected, StreamProblemKind::Cut { from: expected, to: s - 1 }, None));
        }
        expected = s.saturating_add(1);
    }
    for (s, (prev, _)) in &lines {
        if let Some((_, before)) = s.checked_sub(1).and_then(|b| lines.get(&b)) {
            if before != prev {
                problems.push(problem(*s, StreamProblemKind::BrokenLink, None));
            }
        } else if *s == 1 && prev != wicket_audit::GENESIS {
            problems.push(problem(*s, StreamProblemKind::BrokenLink, None));
        }
    }
    problems.sort_by_key(|p| p.seq);
    summary.problems = problems.len();
    (summary, problems)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use wicket_audit::{AuditLog, AuditOptions, Event};

    use super::*;

    /// A collector file exporter's line for some audit lines of project `p`.
    fn request(lines: &[String]) -> String {
        let records: Vec<Value> = lines
            .iter()
            .map(|raw| {
                let l = decode(raw.as_bytes()).map(|l| (l.seq, l.prev.to_string(), l.hash.to_string()));
                let (seq, prev, hash) = l.unwrap_or((0, String::new(), String::new()));
                json!({
                    "body": {"stringValue": raw},
                    "attributes": [
                        {"key": "wicket.seq", "value": {"intValue": seq.to_string()}},
                        {"key": "wicket.prev", "value": {"stringValue": prev}},
                        {"key": "wicket.hash", "value": {"stringValue": hash}},
                    ]
                })
            })
            .collect();
        let doc = json!({"resourceLogs": [{
            "resource": {"attributes": [{"key": "wicket.project", "value": {"stringValue": "p-1"}}]},
            "scopeLogs": [{"logRecords": records}]
        }]});
        format!("{doc}\n")
    }

    fn chain(n: usize) -> Result<Vec<String>, Box<dyn std::error::Error>> {
        let home = tempfile::tempdir()?;
        let dir = home.path().join("p-1");
        let mut log = AuditLog::new(&dir, "s", AuditOptions::default());
        for i in 0..n {
            let t = format!("echo {i}");
            log.record(&Event::decision("bash", &t, "allow_sandbox", "sandboxed"))?;
        }
        let text = std::fs::read_to_string(log.path().ok_or("no log")?)?;
        Ok(text.lines().map(str::to_string).collect())
    }

    fn verify(text: &str) -> Result<StreamReport, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let file = dir.path().join("logs.json");
        std::fs::write(&file, text)?;
        assert!(looks_like_stream(dir.path()));
        Ok(verify_stream(dir.path())?)
    }

    #[test]
    fn a_whole_stream_verifies_and_retries_are_counted() -> Result<(), Box<dyn std::error::Error>> {
        let lines = chain(6)?;
        let text = request(&lines[..4]) + &request(&lines[3..]);
        let r = verify(&text)?;
        assert!(r.is_ok(), "{:?}", r.problems);
        assert_eq!(r.projects[0].lines, 6);
        assert_eq!(r.projects[0].duplicates, 1);
        Ok(())
    }

    #[test]
    fn cuts_reorders_and_forgeries_are_named_by_seq() -> Result<(), Box<dyn std::error::Error>> {
        let lines = chain(8)?;
        // Line 3 removed.
        let mut cut = lines.clone();
        cut.remove(2);
        let r = verify(&request(&cut))?;
        let kinds: Vec<_> = r.problems.iter().map(|p| (p.seq, p.kind.clone())).collect();
        assert_eq!(kinds, vec![(3, StreamProblemKind::Cut { from: 3, to: 3 })], "{kinds:?}");
        // Line 5 changed in transit.
        let mut altered = lines.clone();
        altered[4] = altered[4].replace("echo 4", "echo X");
        let r = verify(&request(&altered))?;
        assert_eq!(
            r.problems.iter().map(|p| (p.seq, p.kind.clone())).collect::<Vec<_>>(),
            vec![(5, StreamProblemKind::Altered)]
        );
        // Lines 6 and 7 swapped.
        let mut swapped = lines.clone();
        swapped.swap(5, 6);
        let r = verify(&request(&swapped))?;
        assert_eq!(
            r.problems.iter().map(|p| (p.seq, p.kind.clone())).collect::<Vec<_>>(),
            vec![(6, StreamProblemKind::Reordered { after: 7 })]
        );
        // A forged line: not a canonical audit line.
        let mut forged = lines.clone();
        forged[1] = "{\"v\":2,\"hello\":1}".to_string();
        let r = verify(&request(&forged))?;
        assert!(r.problems.iter().any(|p| matches!(p.kind, StreamProblemKind::NotALine(_))), "{:?}", r.problems);
        // Line 2 rewritten and re-hashed by someone who knows the format: line 3's link breaks.
        let other = chain(3)?;
        let mut relinked = lines.clone();
        relinked[1].clone_from(&other[1]);
        let r = verify(&request(&relinked))?;
        assert_eq!(
            r.problems.iter().map(|p| (p.seq, p.kind.clone())).collect::<Vec<_>>(),
            vec![(2, StreamProblemKind::BrokenLink), (3, StreamProblemKind::BrokenLink)]
        );
        Ok(())
    }
}
