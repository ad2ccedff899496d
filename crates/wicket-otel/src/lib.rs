//! wicket-otel: wicket's audit chain exported as OpenTelemetry logs (OTLP over HTTP with
//! protobuf or JSON bodies, or gRPC), and an exported stream verified as a chain.
//!
//! One log record per audit line: the body is the line as written (already redacted), the
//! attributes repeat its fields and carry the chain's `seq`, `prev`, `hash` and project, so
//! a receiver can tell a removed, reordered or altered line by its seq ([`stream`]). Export
//! is off by default ([`config`]) and never on a decision's path: a writer only tries a lock
//! and may start the exporter process ([`drain::kick`]); the local chain is the queue and
//! the exporter resumes from the last acknowledged seq per project ([`chain`]). The page
//! `docs/telemetry.md` says how to set it up and what a gap looks like.
//!
//! This crate links the OTLP exporter; the decision engine never depends on it.

pub mod chain;
pub mod config;
pub mod drain;
mod error;
pub mod export;
pub mod record;
pub mod stream;

pub use config::{ExportConfig, ExportSettings, Protocol};
pub use drain::{kick, run, Ran, RunOptions, EXPORTER};
pub use error::OtelError;
