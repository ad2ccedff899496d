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

/// `df`: reports the file systems' free space. It only reads.
pub(crate) static DF: Program = Program {
    names: &["df"],
    source: "no option table: facts only",
    only_reads: true,
    reads_no_files: true,
    makes_no_links: true,
    examples: &[ex("df -h .", Expect::Plain)],
    ..RUNNER
};

/// `free`: reports the memory in use. It only reads.
pub(crate) static FREE: Program = Program {
    names: &["free"],
    source: "no option table: facts only",
    only_reads: true,
    reads_no_files: true,
    makes_no_links: true,
    examples: &[ex("free -m", Expect::Plain)],
    ..RUNNER
};

/// `nproc`: prints how many processors there are. It only reads.
pub(crate) static NPROC: Program = Program {
    names: &["nproc"],
    source: "no option table: facts only",
    only_reads: true,
    reads_no_files: true,
    makes_no_links: true,
    examples: &[ex("nproc", Expect::Plain)],
    ..RUNNER
};

/// `sleep`: waits; it reads, writes and runs nothing. It only reads.
pub(crate) static SLEEP: Program = Program {
    names: &["sleep"],
    source: "no option table: facts only",
    only_reads: true,
    reads_no_files: true,
    makes_no_links: true,
    examples: &[ex("sleep 2", Expect::Plain)],
    ..RUNNER
};

/// `uname`: prints the system's name and version; unlike `hostname`, it cannot set them. It only reads.
pub(crate) static UNAME: Program = Program {
    names: &["uname"],
    source: "no option table: facts only",
    only_reads: true,
    reads_no_files: true,
    makes_no_links: true,
    examples: &[ex("uname -a", Expect::Plain)],
    ..RUNNER
};

/// `uptime`: reports how long the system has run and its load. It only reads.
pub(crate) static UPTIME: Program = Program {
    names: &["uptime"],
    source: "no option table: facts only",
    only_reads: true,
    reads_no_files: true,
    makes_no_links: true,
    examples: &[ex("uptime", Expect::Plain)],
    ..RUNNER
};

/// `which`: prints where `PATH` finds a program; it runs none. It only reads.
pub(crate) static WHICH: Program = Program {
    names: &["which"],
    source: "no option table: facts only",
    only_reads: true,
    reads_no_files: true,
    makes_no_links: true,
    examples: &[ex("which cargo", Expect::Plain)],
    ..RUNNER
};

/// `whoami`: prints the user's name. It only reads.
pub(crate) static WHOAMI: Program = Program {
    names: &["whoami"],
    source: "no option table: facts only",
    only_reads: true,
    reads_no_files: true,
    makes_no_links: true,
    examples: &[ex("whoami", Expect::Plain)],
    ..RUNNER
};
