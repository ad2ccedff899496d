//! Reading logs back for people: every line of every file, decoded, for `wicket audit show`.
//!
//! Reading is not verifying: a line that cannot be decoded is counted and skipped, and the
//! caller points the person to `wicket audit verify`.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::error::ReadError;
use crate::line::{decode, Entry};
use crate::verify::{in_parallel, is_log_name, list_logs};

/// One line and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The project's log folder name (`<project>-<hash>`).
    pub project: String,
    /// The log file.
    pub file: PathBuf,
    /// The line.
    pub entry: Entry,
}

/// What [`read_path`] found.
#[derive(Debug, Default)]
pub struct Events {
    /// Every line that could be decoded, in file order.
    pub events: Vec<Located>,
    /// Lines (or files, or folders) that could not be read or decoded.
    pub unreadable: u64,
}

/// Read every line of a log file, or of every log under a folder.
pub fn read_path(path: &Path) -> Result<Events, ReadError> {
    let meta = std::fs::metadata(path).map_err(|source| ReadError::Io { path: path.to_path_buf(), source })?;
    let mut problems = Vec::new();
    let files = if meta.is_dir() {
        let mut files = Vec::new();
        list_logs(path, 0, &mut files, &mut problems);
        files
    } else if is_log_name(path) {
        vec![path.to_path_buf()]
    } else {
        return Err(ReadError::NotALog { path: path.to_path_buf() });
    };
    let mut out = Events { events: Vec::new(), unreadable: problems.len() as u64 };
    for (events, bad) in in_parallel(&files, |f| read_file(f)) {
        out.events.extend(events);
        out.unreadable += bad;
    }
    Ok(out)
}

fn read_file(path: &Path) -> (Vec<Located>, u64) {
    let project =
        path.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let Ok(file) = File::open(path) else { return (Vec::new(), 1) };
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    let mut events = Vec::new();
    let mut bad = 0;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(_) => {
                bad += 1;
                break;
            }
        }
        let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        match decode(line) {
            Ok(l) => events.push(Located { project: project.clone(), file: path.to_path_buf(), entry: l.to_entry() }),
            Err(_) => bad += 1,
        }
    }
    (events, bad)
}
