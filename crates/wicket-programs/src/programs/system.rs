//! Programs that manage processes, services, containers and terminals, whose options wicket does not read (yet).
//!
//! To add one: a `static` here with its names and facts, then an entry in `KNOWN` (kept
//! sorted; `tests/registry.rs`).

use crate::checkers::Checker;
use crate::facts::Network;
use crate::facts::{ex, Expect};
use crate::grammar::Program;
use crate::programs::RUNNER;

/// `at`.
pub(crate) static AT: Program = Program {
    names: &["at"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("at now", Expect::Plain)],
    ..RUNNER
};

/// `crontab`.
pub(crate) static CRONTAB: Program = Program {
    names: &["crontab"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("crontab -l", Expect::Plain)],
    ..RUNNER
};

/// `docker`, `podman`.
pub(crate) static DOCKER: Program = Program {
    names: &["docker", "podman"],
    source: "no option table: facts only",
    exact_only: true,
    network: Network::Subs(&["pull", "push", "login", "run", "build"]),
    examples: &[ex("docker ps", Expect::Plain)],
    ..RUNNER
};

/// `helm`.
pub(crate) static HELM: Program = Program {
    names: &["helm"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("helm list", Expect::Plain)],
    ..RUNNER
};

/// `kill`, `pkill`, `killall`.
pub(crate) static KILL: Program = Program {
    names: &["kill", "pkill", "killall"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("kill 1", Expect::Plain)],
    ..RUNNER
};

/// `kubectl`.
pub(crate) static KUBECTL: Program = Program {
    names: &["kubectl"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("kubectl get pods", Expect::Plain)],
    ..RUNNER
};

/// `launchctl`.
pub(crate) static LAUNCHCTL: Program = Program {
    names: &["launchctl"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("launchctl list", Expect::Plain)],
    ..RUNNER
};

/// `ps`.
pub(crate) static PS: Program = Program {
    names: &["ps"],
    source: "no option table: facts only",
    checker: Checker::Ps,
    examples: &[ex("ps aux", Expect::Plain)],
    ..RUNNER
};

/// `runas`.
pub(crate) static RUNAS: Program = Program {
    names: &["runas"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("runas x", Expect::Plain)],
    ..RUNNER
};

/// `tmux`, `screen`.
pub(crate) static TMUX: Program = Program {
    names: &["tmux", "screen"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("tmux ls", Expect::Plain)],
    ..RUNNER
};

/// `systemctl`.
pub(crate) static SYSTEMCTL: Program = Program {
    names: &["systemctl"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("systemctl status x", Expect::Plain)],
    ..RUNNER
};

/// `terraform`.
pub(crate) static TERRAFORM: Program = Program {
    names: &["terraform"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("terraform plan", Expect::Plain)],
    ..RUNNER
};

/// wicket itself (issue 39, class 7: a writer of wicket's own state that names no file).
pub(crate) static WICKET: Program = Program {
    names: &["wicket"],
    source: "no option table: facts only (wicket --help)",
    exact_only: true,
    checker: Checker::Wicket,
    examples: &[
        ex("wicket trust approve --yes", Expect::ChangesGate),
        ex("wicket run --no-sandbox -- make", Expect::ChangesGate),
        ex("wicket run --root /srv/x -- make", Expect::Writes(&["/srv/x"])),
        ex("wicket audit verify", Expect::Plain),
    ],
    ..RUNNER
};
