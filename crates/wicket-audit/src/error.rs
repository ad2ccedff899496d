//! Why a line could not be written, or a log could not be read.

use std::path::PathBuf;

/// A failure to write the log. Every variant names the file or folder and the OS error.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The log folder cannot be created.
    #[error("cannot create the audit folder {}: {source}", dir.display())]
    CreateDir {
        /// The folder.
        dir: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A new log file cannot be created.
    #[error("cannot create the audit log {}: {source}", file.display())]
    Open {
        /// The file.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The line cannot be written (disk full, file too large, I/O error). It is not in the
    /// file, and the chain has not moved on.
    #[error("cannot write to the audit log {}: {source}", file.display())]
    Write {
        /// The file.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The line was written but could not be synced to the disk.
    #[error("cannot sync the audit log {} to the disk: {source}", file.display())]
    Sync {
        /// The file.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The line was written, but its checkpoint was not; the next line's checkpoint catches up.
    #[error("cannot write the checkpoint {}: {source}", file.display())]
    Checkpoint {
        /// The checkpoint file.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The chain's newest file or head record cannot be read to continue the chain.
    #[error("cannot read the audit log {}: {source}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The lock file cannot be opened or locked.
    #[error("cannot lock the audit log {}: {source}", file.display())]
    Lock {
        /// The lock file.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Another live process held the lock for longer than the bounded wait.
    #[error("the audit log {} stayed locked by another process for {waited_ms} ms", file.display())]
    LockTimeout {
        /// The lock file.
        file: PathBuf,
        /// How long this process waited.
        waited_ms: u64,
    },
    /// The log file was removed again while the line was written to a new one.
    #[error("the audit folder {} keeps disappearing", dir.display())]
    Vanished {
        /// The folder.
        dir: PathBuf,
    },
}

impl AuditError {
    /// Is the line in the file despite the error (a failed sync or checkpoint)?
    pub fn line_written(&self) -> bool {
        matches!(self, AuditError::Sync { .. } | AuditError::Checkpoint { .. })
    }

    /// Why a call does not run under a mandatory audit, naming what failed.
    pub fn refusal(&self) -> String {
        let what = match self {
            AuditError::Checkpoint { .. } => "the audit line was written, but its checkpoint could not be written",
            AuditError::Sync { .. } => "the audit line was written, but could not be synced to the disk",
            _ => "the audit line could not be written",
        };
        format!("{what} ({self}); the team policy requires the audit log, so this call does not run")
    }
}

/// A path given to verify or read cannot be used at all (missing, not a log or folder).
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The path cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The path is neither a log file (`*.jsonl`) nor a folder.
    #[error("{}: not an audit log (*.jsonl) or a folder of them", path.display())]
    NotALog {
        /// The path.
        path: PathBuf,
    },
}
