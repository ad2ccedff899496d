//! wicket: a permission gate and OS sandbox for AI coding agents.
//!
//! This crate is the edge: it loads settings from disk ([`config::load`]) and drives the pure
//! decision engine of `wicket-policy`. The binary `wicket` is its command line (`wicket check`,
//! `wicket explain`).

pub mod approver;
pub mod audit;
pub mod config;
pub mod consent;
pub mod net;
pub mod trust;
