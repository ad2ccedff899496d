//! Shell builtins that set variables or read other scripts, whose options wicket does not read.
//!
//! To add one: a `static` here with its names and facts, then an entry in `KNOWN` (kept
//! sorted; `tests/registry.rs`).

use crate::grammar::Program;
use crate::programs::RUNNER;

/// `alias`.
pub(crate) static ALIAS: Program =
    Program { names: &["alias"], source: "no option table: facts only", exact_only: true, ..RUNNER };

/// `declare`, `typeset`.
pub(crate) static DECLARE: Program =
    Program { names: &["declare", "typeset"], source: "no option table: facts only", assigns: true, ..RUNNER };

/// `export`.
pub(crate) static EXPORT: Program =
    Program { names: &["export"], source: "no option table: facts only", assigns: true, ..RUNNER };

/// `local`.
pub(crate) static LOCAL: Program =
    Program { names: &["local"], source: "no option table: facts only", assigns: true, ..RUNNER };

/// `readonly`.
pub(crate) static READONLY: Program =
    Program { names: &["readonly"], source: "no option table: facts only", assigns: true, ..RUNNER };

/// `source`.
pub(crate) static SOURCE: Program =
    Program { names: &["source"], source: "no option table: facts only", exact_only: true, ..RUNNER };
