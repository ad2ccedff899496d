//! Programs that use the network, whose options wicket does not read (yet): downloaders, raw sockets, remote shells and file systems.
//!
//! To add one: a `static` here with its names and facts, then an entry in `KNOWN` (kept
//! sorted; `tests/registry.rs`).

use crate::checkers::Checker;
use crate::facts::{Does, Job, Network};
use crate::grammar::Program;
use crate::programs::RUNNER;

/// `GET`, `POST`, `lwp-request`.
pub(crate) static GET: Program = Program {
    names: &["GET", "POST", "lwp-request"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    ..RUNNER
};

/// `aria2c`.
pub(crate) static ARIA2C: Program = Program {
    names: &["aria2c"],
    source: "no option table: facts only",
    exact_only: true,
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    checker: Checker::SavesByUrl,
    ..RUNNER
};

/// `axel`.
pub(crate) static AXEL: Program = Program {
    names: &["axel"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    checker: Checker::SavesByUrl,
    ..RUNNER
};

/// `curlie`.
pub(crate) static CURLIE: Program = Program {
    names: &["curlie"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    ..RUNNER
};

/// `fetch`.
pub(crate) static FETCH: Program = Program {
    names: &["fetch"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    ..RUNNER
};

/// `ftp`.
pub(crate) static FTP: Program = Program {
    names: &["ftp"],
    source: "no option table: facts only",
    exact_only: true,
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    ..RUNNER
};

/// `git-remote`.
pub(crate) static GIT_REMOTE: Program =
    Program { names: &["git-remote"], source: "no option table: facts only", exact_only: true, ..RUNNER };

/// `http`, `https`, `httpie`.
pub(crate) static HTTP: Program = Program {
    names: &["http", "https", "httpie"],
    source: "no option table: facts only",
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    ..RUNNER
};

/// `lftp`.
pub(crate) static LFTP: Program = Program {
    names: &["lftp"],
    source: "no option table: facts only",
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    ..RUNNER
};

/// `lwp-download`.
pub(crate) static LWP_DOWNLOAD: Program = Program {
    names: &["lwp-download"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    checker: Checker::SavesByUrl,
    ..RUNNER
};

/// `mosh`.
pub(crate) static MOSH: Program =
    Program { names: &["mosh"], source: "no option table: facts only", network: Network::Always, ..RUNNER };

/// `nc`, `ncat`, `netcat`.
pub(crate) static NC: Program = Program {
    names: &["nc", "ncat", "netcat"],
    source: "no option table: facts only",
    exact_only: true,
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    ..RUNNER
};

/// `openssl`.
pub(crate) static OPENSSL: Program = Program {
    names: &["openssl"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &["s_client"] }],
    ..RUNNER
};

/// `socat`.
pub(crate) static SOCAT: Program = Program {
    names: &["socat"],
    source: "no option table: facts only",
    exact_only: true,
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    ..RUNNER
};

/// `sshfs`.
pub(crate) static SSHFS: Program =
    Program { names: &["sshfs"], source: "no option table: facts only", network: Network::Always, ..RUNNER };

/// `telnet`.
pub(crate) static TELNET: Program = Program {
    names: &["telnet"],
    source: "no option table: facts only",
    exact_only: true,
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    ..RUNNER
};

/// `tftp`.
pub(crate) static TFTP: Program = Program {
    names: &["tftp"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    ..RUNNER
};

/// `wget2`.
pub(crate) static WGET2: Program = Program {
    names: &["wget2"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    checker: Checker::Wget,
    ..RUNNER
};

/// `xh`, `xhs`.
pub(crate) static XH: Program = Program {
    names: &["xh", "xhs"],
    source: "no option table: facts only",
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    ..RUNNER
};
