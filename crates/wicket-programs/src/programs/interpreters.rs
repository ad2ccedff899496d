//! Interpreters and database shells whose options wicket does not read (yet): what they run is named by their operands, so "always allow" keeps their exact command.
//!
//! To add one: a `static` here with its names and facts, then an entry in `KNOWN` (kept
//! sorted; `tests/registry.rs`).

use crate::checkers::Checker;
use crate::facts::{ex, Expect};
use crate::grammar::Program;
use crate::programs::RUNNER;

/// `R`.
pub(crate) static R: Program = Program {
    names: &["R"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("R --version", Expect::Plain)],
    ..RUNNER
};

/// `deno`.
pub(crate) static DENO: Program = Program {
    names: &["deno"],
    source: "no option table: facts only",
    exact_only: true,
    runtime: true,
    examples: &[ex("deno run x.ts", Expect::Plain)],
    ..RUNNER
};

/// `groovy`.
pub(crate) static GROOVY: Program = Program {
    names: &["groovy"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("groovy x.groovy", Expect::Plain)],
    ..RUNNER
};

/// `java`.
pub(crate) static JAVA: Program = Program {
    names: &["java"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("java -jar x.jar", Expect::Plain)],
    ..RUNNER
};

/// `jshell`.
pub(crate) static JSHELL: Program = Program {
    names: &["jshell"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("jshell", Expect::Plain)],
    ..RUNNER
};

/// `julia`.
pub(crate) static JULIA: Program = Program {
    names: &["julia"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("julia x.jl", Expect::Plain)],
    ..RUNNER
};

/// `mysql`.
pub(crate) static MYSQL: Program = Program {
    names: &["mysql"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("mysql", Expect::Plain)],
    ..RUNNER
};

/// `osascript`.
pub(crate) static OSASCRIPT: Program = Program {
    names: &["osascript"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("osascript x.scpt", Expect::Plain)],
    ..RUNNER
};

/// `psql`.
pub(crate) static PSQL: Program = Program {
    names: &["psql"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("psql", Expect::Plain)],
    ..RUNNER
};

/// `py`.
pub(crate) static PY: Program = Program {
    names: &["py"],
    source: "no option table: facts only",
    checker: Checker::Python,
    examples: &[ex("py -m pip install ./x", Expect::Risky(&["./x"]))],
    ..RUNNER
};

/// `scala`.
pub(crate) static SCALA: Program = Program {
    names: &["scala"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("scala x.scala", Expect::Plain)],
    ..RUNNER
};

/// `sqlite3`.
pub(crate) static SQLITE3: Program = Program {
    names: &["sqlite3"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("sqlite3 x.db", Expect::Plain)],
    ..RUNNER
};
