//! Reading a project's chain from where the collector last acknowledged it.
//!
//! The hard question: how does a collector that was down get every line once, in order,
//! when the processes that wrote them are long gone? The local chain is the queue. Per
//! project, wicket keeps the last acknowledged line's `seq` and `hash` in
//! `$WICKET_HOME/otel/exported/<project folder>.json`, replaced atomically (write, fsync,
//! rename) only after the collector answered yes; the exporter reads on from there. A state
//! whose line is no longer in the chain with that hash (the chain was deleted and begun
//! again, or rewritten) starts over at line 1, so the collector sees the same seq twice with
//! two hashes: a fork, which is what happened.

use std::fs::File;
use std::io::{Read as _, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use wicket_audit::{decode, segment_seq};

use crate::error::OtelError;

/// The folder under wicket's home with the exporter's lock and state.
pub const OTEL_DIR: &str = "otel";

/// The folder under [`OTEL_DIR`] with one state file per project.
pub const EXPORTED_DIR: &str = "exported";

/// The most bytes read from a log file at once; a line is far shorter (its fields are cut at
/// 4 KiB each), so a chunk always holds a whole line.
const CHUNK: u64 = 1 << 20;

/// One line of the chain, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The line without its newline: the exact bytes the hash covers (with `hash`).
    pub raw: String,
    /// Its seq.
    pub seq: u64,
    /// Its hash.
    pub hash: String,
}

/// Where reading stands in a project's chain.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cursor {
    file: PathBuf,
    first_seq: u64,
    offset: u64,
    seq: u64,
    hash: String,
}

/// The last line the collector acknowledged.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Exported {
    /// Its seq (0: nothing yet).
    pub seq: u64,
    /// Its hash.
    pub hash: String,
}

/// One project's chain and how far it was exported.
#[derive(Debug)]
pub struct Project {
    /// The project's log folder name (`<name>-<8 hex>`).
    pub name: String,
    dir: PathBuf,
    state: PathBuf,
    cursor: Option<Cursor>,
}

impl Project {
    /// The project whose logs are in `dir`, with its state under `otel_dir`.
    pub fn new(dir: PathBuf, otel_dir: &Path) -> Project {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let state = otel_dir.join(EXPORTED_DIR).join(format!("{name}.json"));
        Project { name, dir, state, cursor: None }
    }

    /// The last acknowledged line (nothing: seq 0). An unreadable state file counts as
    /// nothing exported: the collector may then see lines twice, never miss one.
    pub fn exported(&self) -> Exported {
        std::fs::read(&self.state).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
    }

    /// Up to `max` lines after the last one handed out (or, at first, after the last
    /// acknowledged one), and where reading would stand after them. Nothing is consumed
    /// until [`Project::commit`].
    pub fn peek(&mut self, max: usize) -> Result<Batch, OtelError> {
        let mut cur = match &self.cursor {
            Some(c) => c.clone(),
            None => match self.start()? {
                Some(c) => c,
                None => return Ok(Batch { lines: Vec::new(), next: None }),
            },
        };
        let mut lines = Vec::new();
        loop {
            let (got, ended) = read_lines(&cur.file, cur.offset, max - lines.len())?;
            for (len, line) in got {
                cur.offset += len;
                if let Some(line) = line {
                    cur.seq = line.seq;
                    cur.hash.clone_from(&line.hash);
                    lines.push(line);
                }
            }
            if lines.len() >= max || !ended {
                break;
            }
            // The end of this file: the chain goes on in the next one, if there is one.
            match self.files()?.into_iter().find(|(s, _)| *s > cur.first_seq) {
                Some((s, f)) => {
                    cur.file = f;
                    cur.first_seq = s;
                    cur.offset = 0;
                }
                None => break,
            }
        }
        Ok(Batch { lines, next: Some(cur) })
    }

    /// The collector acknowledged a batch: move on past it and record it, atomically.
    pub fn commit(&mut self, batch: Batch) -> Result<(), OtelError> {
        let Some(next) = batch.next else { return Ok(()) };
        if !batch.lines.is_empty() {
            write_state(&self.state, &Exported { seq: next.seq, hash: next.hash.clone() })?;
        }
        self.cursor = Some(next);
        Ok(())
    }

    /// The chain files, by the seq their names start at.
    fn files(&self) -> Result<Vec<(u64, PathBuf)>, OtelError> {
        let rd = match std::fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(OtelError::Io { path: self.dir.clone(), source }),
        };
        let mut files: Vec<(u64, PathBuf)> = rd
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name();
                segment_seq(name.to_str()?).map(|s| (s, e.path()))
            })
            .collect();
        files.sort();
        Ok(files)
    }

    /// Where to start: just after the acknowledged line, or at line 1 when nothing was
    /// acknowledged or the acknowledged line is not in the chain any more.
    fn start(&self) -> Result<Option<Cursor>, OtelError> {
        let files = self.files()?;
        let Some((first_seq, first)) = files.first().cloned() else { return Ok(None) };
        let from_scratch = Cursor { file: first, first_seq, offset: 0, seq: 0, hash: String::new() };
        let done = self.exported();
        if done.seq == 0 {
            return Ok(Some(from_scratch));
        }
        let Some((s, file)) = files.iter().rev().find(|(s, _)| *s <= done.seq).cloned() else {
            return Ok(Some(from_scratch));
        };
        let mut offset = 0;
        loop {
            let (got, _) = read_lines(&file, offset, 4096)?;
            if got.is_empty() {
                return Ok(Some(from_scratch));
            }
            for (len, line) in got {
                offset += len;
                let Some(line) = line else { continue };
                if line.seq == done.seq && line.hash == done.hash {
                    return Ok(Some(Cursor { file, first_seq: s, offset, seq: line.seq, hash: line.hash }));
                }
                if line.seq >= done.seq {
                    return Ok(Some(from_scratch));
                }
            }
        }
    }
}

/// Lines read past a cursor, and where reading stands after them.
#[derive(Debug)]
pub struct Batch {
    /// The lines, in chain order.
    pub lines: Vec<Line>,
    next: Option<Cursor>,
}

/// Up to `max` whole lines of `file` from `offset`: each with its length (newline
/// included) and, when it decodes, the line. A line that does not decode is passed over (the
/// collector sees the gap in seq, as `audit verify` sees the bad line here). The flag: the
/// end of what was written was reached.
/// Whole lines read from a file: each one's length (newline included) and the line when it decodes.
type Read = Vec<(u64, Option<Line>)>;

fn read_lines(file: &Path, offset: u64, max: usize) -> Result<(Read, bool), OtelError> {
    let io = |source| OtelError::Io { path: file.to_path_buf(), source };
    let mut f = match File::open(file) {
        Ok(f) => f,
        // Deleted under us: nothing more to read in it.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), true)),
        Err(e) => return Err(io(e)),
    };
    f.seek(SeekFrom::Start(offset)).map_err(io)?;
    let mut buf = Vec::new();
    f.take(CHUNK).read_to_end(&mut buf).map_err(io)?;
    let mut out = Vec::new();
    let mut at = 0;
    while out.len() < max {
        let Some(nl) = buf[at..].iter().position(|&b| b == b'\n') else { break };
        let bytes = &buf[at..at + nl];
        let line = decode(bytes).ok().and_then(|l| {
            let raw = std::str::from_utf8(bytes).ok()?.to_string();
            Some(Line { raw, seq: l.seq, hash: l.hash.to_string() })
        });
        out.push(((nl + 1) as u64, line));
        at += nl + 1;
    }
    // A line still being written (no newline yet) waits for the next look.
    let ended = out.len() < max && (buf.len() as u64) < CHUNK;
    Ok((out, ended))
}

/// Replace a state file: a temporary file beside it, fsynced, renamed over it.
fn write_state(path: &Path, state: &Exported) -> Result<(), OtelError> {
    let io = |source| OtelError::Io { path: path.to_path_buf(), source };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let tmp = dir.join(format!(".{}.tmp", std::process::id()));
    let mut f = File::create(&tmp).map_err(io)?;
    let text = serde_json::to_vec(state).map_err(|e| io(std::io::Error::other(e)))?;
    f.write_all(&text).and_then(|()| f.sync_data()).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

#[cfg(test)]
mod tests {
    use wicket_audit::{AuditLog, AuditOptions, Event};

    use super::*;

    fn write(dir: &Path, n: usize) {
        let options = AuditOptions { rotate_bytes: 1024, ..AuditOptions::default() };
        let mut log = AuditLog::new(dir, "s", options);
        for i in 0..n {
            let target = format!("echo {i}");
            if log.record(&Event::decision("bash", &target, "allow_sandbox", "sandboxed")).is_err() {
                panic!("cannot write the test log");
            }
        }
    }

    #[test]
    fn reads_on_across_files_and_resumes_from_the_state() -> Result<(), Box<dyn std::error::Error>> {
        let home = tempfile::tempdir()?;
        let dir = home.path().join("audit").join("p-12345678");
        write(&dir, 30);
        let otel = home.path().join(OTEL_DIR);
        let mut p = Project::new(dir.clone(), &otel);
        let b = p.peek(7)?;
        assert_eq!(b.lines.iter().map(|l| l.seq).collect::<Vec<_>>(), (1..=7).collect::<Vec<_>>());
        // Not committed: the same lines again.
        let b = p.peek(7)?;
        assert_eq!(b.lines.first().map(|l| l.seq), Some(1));
        p.commit(b)?;
        assert_eq!(p.exported().seq, 7);
        let b = p.peek(100)?;
        assert_eq!(b.lines.iter().map(|l| l.seq).collect::<Vec<_>>(), (8..=30).collect::<Vec<_>>());
        assert!(std::fs::read_dir(&dir)?.count() > 3, "the lines span several files");
        // A new process resumes after the acknowledged line.
        let mut again = Project::new(dir.clone(), &otel);
        assert_eq!(again.peek(1)?.lines.first().map(|l| l.seq), Some(8));
        p.commit(b)?;
        write(&dir, 2);
        let mut again = Project::new(dir.clone(), &otel);
        assert_eq!(again.peek(100)?.lines.iter().map(|l| l.seq).collect::<Vec<_>>(), vec![31, 32]);
        // The chain begun again: line 1 onwards, so the collector sees the fork.
        std::fs::remove_dir_all(&dir)?;
        write(&dir, 3);
        let mut fresh = Project::new(dir, &otel);
        assert_eq!(fresh.peek(100)?.lines.iter().map(|l| l.seq).collect::<Vec<_>>(), vec![1, 2, 3]);
        Ok(())
    }
}
