//! wicket: a permission gate and OS sandbox for AI coding agents.
//!
//! This crate is the edge: it loads settings from disk ([`config::load`]) and drives the pure
//! decision engine of `wicket-policy`. An agent written in Rust embeds it through
//! [`gate::Gate`] (decide, ask its own [`approver::Approver`], record to an
//! [`gate::AuditSink`]); see `examples/gate.rs`. The binary `wicket` is its command line.

pub mod agents;
pub mod apply_patch;
pub mod approver;
pub mod audit;
pub mod config;
pub mod consent;
pub mod gate;
pub mod gitcache;
pub mod gitconfig;
pub mod jsonrpc;
pub mod mcp_server;
pub mod net;
pub mod notices;
pub mod otel;
pub mod registries;
pub mod staged;
pub mod trust;
