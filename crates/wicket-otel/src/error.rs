//! What can go wrong in export and in reading an exported stream.

use std::path::PathBuf;

/// An export or stream error.
#[derive(Debug, thiserror::Error)]
pub enum OtelError {
    /// A setting or variable cannot be used.
    #[error("{what}: {why}")]
    Config {
        /// The setting (`telemetry.otlp.protocol`) or variable (`OTEL_EXPORTER_OTLP_TIMEOUT`).
        what: String,
        /// What is wrong and how to fix it.
        why: String,
    },
    /// The exporter could not be built (a bad endpoint, an unreadable CA file).
    #[error("cannot set up the OTLP exporter: {0}")]
    Setup(String),
    /// The collector did not take a batch.
    #[error("the collector did not take the batch: {0}")]
    Export(String),
    /// A file or folder cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}
