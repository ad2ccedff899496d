//! System and language package managers whose options wicket does not read (yet): which of their sub-commands reach the network.
//!
//! To add one: a `static` here with its names and facts, then an entry in `KNOWN` (kept
//! sorted; `tests/registry.rs`).

use crate::facts::Network;
use crate::facts::{ex, Expect};
use crate::grammar::Program;
use crate::programs::RUNNER;

/// `apt`, `apt-get`.
pub(crate) static APT: Program = Program {
    names: &["apt", "apt-get"],
    source: "no option table: facts only",
    network: Network::Subs(&["install", "update", "upgrade", "download"]),
    examples: &[ex("apt install x", Expect::Plain)],
    ..RUNNER
};

/// `brew`.
pub(crate) static BREW: Program = Program {
    names: &["brew"],
    source: "no option table: facts only",
    network: Network::Subs(&["install", "update", "upgrade", "fetch", "tap"]),
    examples: &[ex("brew install x", Expect::Plain)],
    ..RUNNER
};

/// `composer`.
pub(crate) static COMPOSER: Program = Program {
    names: &["composer"],
    source: "no option table: facts only",
    network: Network::Subs(&["install", "require", "update"]),
    examples: &[ex("composer install", Expect::Plain)],
    ..RUNNER
};

/// `dlx`.
pub(crate) static DLX: Program = Program {
    names: &["dlx"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("dlx x", Expect::Plain)],
    ..RUNNER
};

/// `dnf`.
pub(crate) static DNF: Program = Program {
    names: &["dnf"],
    source: "no option table: facts only",
    network: Network::Subs(&["install", "update", "upgrade", "download"]),
    examples: &[ex("dnf install x", Expect::Plain)],
    ..RUNNER
};

/// `gem`.
pub(crate) static GEM: Program = Program {
    names: &["gem"],
    source: "no option table: facts only",
    network: Network::Subs(&["install", "push", "update", "fetch"]),
    examples: &[ex("gem install x", Expect::Plain)],
    ..RUNNER
};

/// `pipenv`.
pub(crate) static PIPENV: Program = Program {
    names: &["pipenv"],
    source: "no option table: facts only",
    network: Network::Subs(&["install", "update", "sync", "lock"]),
    examples: &[ex("pipenv install", Expect::Plain)],
    ..RUNNER
};

/// `yum`.
pub(crate) static YUM: Program = Program {
    names: &["yum"],
    source: "no option table: facts only",
    network: Network::Subs(&["install", "update", "upgrade"]),
    examples: &[ex("yum install x", Expect::Plain)],
    ..RUNNER
};
