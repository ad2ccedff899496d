//! Shell builtins that set variables, read other scripts or only print, whose options wicket
//! does not read (`echo`, `printf`, `true` and `false` are programs of coreutils too).
//!
//! To add one: a `static` here with its names and facts, then an entry in `KNOWN` (kept
//! sorted; `tests/registry.rs`).

use crate::facts::{ex, Expect, SetsVariable};
use crate::grammar::Program;
use crate::programs::RUNNER;

/// `alias`.
pub(crate) static ALIAS: Program = Program {
    names: &["alias"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("alias ll=ls", Expect::Unread)],
    ..RUNNER
};

/// `declare`, `typeset`.
pub(crate) static DECLARE: Program = Program {
    names: &["declare", "typeset"],
    source: "no option table: facts only",
    assigns: true,
    examples: &[ex("declare -x LD_PRELOAD=x", Expect::Risky(&["LD_PRELOAD="]))],
    ..RUNNER
};

/// `export`.
pub(crate) static EXPORT: Program = Program {
    names: &["export"],
    source: "no option table: facts only",
    assigns: true,
    examples: &[
        ex("export GIT_SSH_COMMAND=evil", Expect::Risky(&["GIT_SSH_COMMAND="])),
        ex("export FOO=1", Expect::Plain),
    ],
    ..RUNNER
};

/// `local`.
pub(crate) static LOCAL: Program = Program {
    names: &["local"],
    source: "no option table: facts only",
    assigns: true,
    examples: &[ex("local PATH=/tmp", Expect::Risky(&["PATH="]))],
    ..RUNNER
};

/// `readonly`.
pub(crate) static READONLY: Program = Program {
    names: &["readonly"],
    source: "no option table: facts only",
    assigns: true,
    examples: &[ex("readonly BASH_ENV=x", Expect::Risky(&["BASH_ENV="]))],
    ..RUNNER
};

/// `source`.
pub(crate) static SOURCE: Program = Program {
    names: &["source"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("source x.sh", Expect::Unread)],
    ..RUNNER
};

/// `echo`.
pub(crate) static ECHO: Program = Program {
    names: &["echo"],
    source: "no option table: facts only",
    only_prints: true,
    makes_no_links: true,
    examples: &[ex("echo hello", Expect::Plain)],
    ..RUNNER
};

/// `printf`.
pub(crate) static PRINTF: Program = Program {
    names: &["printf"],
    source: "no option table: facts only",
    only_prints: true,
    sets_variable: SetsVariable::OptionValue("-v"),
    makes_no_links: true,
    examples: &[ex("printf·%s\\n·x", Expect::Plain)],
    ..RUNNER
};

/// bash 5.2, `help type`: prints how each name would be run (alias, function, builtin, file);
/// it runs none of them.
pub(crate) static TYPE: Program = Program {
    names: &["type"],
    source: "no option table: facts only",
    only_prints: true,
    makes_no_links: true,
    examples: &[ex("type pytest", Expect::Plain)],
    ..RUNNER
};

/// `true`.
pub(crate) static TRUE: Program = Program {
    names: &["true"],
    source: "no option table: facts only",
    only_prints: true,
    examples: &[ex("true", Expect::Plain)],
    ..RUNNER
};

/// `false`.
pub(crate) static FALSE: Program = Program {
    names: &["false"],
    source: "no option table: facts only",
    only_prints: true,
    examples: &[ex("false", Expect::Plain)],
    ..RUNNER
};
