//! Programs that use the network, whose options wicket does not read (yet): downloaders, raw sockets, remote shells and file systems.
//!
//! To add one: a `static` here with its names and facts, then an entry in `KNOWN` (kept
//! sorted; `tests/registry.rs`).

use crate::checkers::Checker;
use crate::facts::{ex, Expect};
use crate::facts::{Does, Job, Network};
use crate::grammar::Program;
use crate::programs::RUNNER;

/// `GET`, `POST`, `lwp-request`.
pub(crate) static GET: Program = Program {
    names: &["GET", "POST", "lwp-request"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    examples: &[ex("GET https://x", Expect::Plain)],
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
    examples: &[ex("aria2c https://x", Expect::Plain)],
    ..RUNNER
};

/// `axel`.
pub(crate) static AXEL: Program = Program {
    names: &["axel"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    checker: Checker::SavesByUrl,
    examples: &[ex("axel https://x", Expect::Plain)],
    ..RUNNER
};

/// `curlie`.
pub(crate) static CURLIE: Program = Program {
    names: &["curlie"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    examples: &[ex("curlie https://x", Expect::Plain)],
    ..RUNNER
};

/// `fetch`.
pub(crate) static FETCH: Program = Program {
    names: &["fetch"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    examples: &[ex("fetch https://x", Expect::Plain)],
    ..RUNNER
};

/// `ftp`.
pub(crate) static FTP: Program = Program {
    names: &["ftp"],
    source: "no option table: facts only",
    exact_only: true,
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    examples: &[ex("ftp host", Expect::Plain)],
    ..RUNNER
};

/// `gh`, GitHub's command line: its messages (commit, issue, pull request, release text) are
/// text for people. (Its network use and sub-commands are not recorded yet.)
pub(crate) static GH: Program = Program {
    names: &["gh"],
    source: "gh 2.x, `gh help` (pr/issue create: -t/--title, -b/--body; release: -n/--notes; -m/--message)",
    message_options: &["-m", "--message", "-b", "--body", "-t", "--title", "-n", "--notes"],
    examples: &[ex("gh pr create -t fix -b done", Expect::Plain)],
    ..RUNNER
};

/// `git-remote`.
pub(crate) static GIT_REMOTE: Program = Program {
    names: &["git-remote"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("git-remote x", Expect::Plain)],
    ..RUNNER
};

/// `http`, `https`, `httpie`.
pub(crate) static HTTP: Program = Program {
    names: &["http", "https", "httpie"],
    source: "no option table: facts only",
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    examples: &[ex("http https://x", Expect::Plain)],
    ..RUNNER
};

/// `lftp`.
pub(crate) static LFTP: Program = Program {
    names: &["lftp"],
    source: "no option table: facts only",
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    examples: &[ex("lftp host", Expect::Plain)],
    ..RUNNER
};

/// `lwp-download`.
pub(crate) static LWP_DOWNLOAD: Program = Program {
    names: &["lwp-download"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    checker: Checker::SavesByUrl,
    examples: &[ex("lwp-download https://x", Expect::Plain)],
    ..RUNNER
};

/// `mosh`.
pub(crate) static MOSH: Program = Program {
    names: &["mosh"],
    source: "no option table: facts only",
    network: Network::Always,
    examples: &[ex("mosh host", Expect::Plain)],
    ..RUNNER
};

/// `nc`, `ncat`, `netcat`.
pub(crate) static NC: Program = Program {
    names: &["nc", "ncat", "netcat"],
    source: "no option table: facts only",
    exact_only: true,
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    examples: &[ex("nc host 80", Expect::Plain)],
    ..RUNNER
};

/// `openssl`.
pub(crate) static OPENSSL: Program = Program {
    names: &["openssl"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &["s_client"] }],
    examples: &[ex("openssl s_client host:443", Expect::Plain)],
    ..RUNNER
};

/// `socat`.
pub(crate) static SOCAT: Program = Program {
    names: &["socat"],
    source: "no option table: facts only",
    exact_only: true,
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    examples: &[ex("socat - tcp:host:80", Expect::Plain)],
    ..RUNNER
};

/// `sshfs`.
pub(crate) static SSHFS: Program = Program {
    names: &["sshfs"],
    source: "no option table: facts only",
    network: Network::Always,
    examples: &[ex("sshfs host:/ m", Expect::Plain)],
    ..RUNNER
};

/// `telnet`.
pub(crate) static TELNET: Program = Program {
    names: &["telnet"],
    source: "no option table: facts only",
    exact_only: true,
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    examples: &[ex("telnet host", Expect::Plain)],
    ..RUNNER
};

/// `tftp`.
pub(crate) static TFTP: Program = Program {
    names: &["tftp"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    examples: &[ex("tftp host", Expect::Plain)],
    ..RUNNER
};

/// `wget2`.
pub(crate) static WGET2: Program = Program {
    names: &["wget2"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    checker: Checker::Wget,
    examples: &[ex("wget2 https://x", Expect::Plain)],
    ..RUNNER
};

/// `xh`, `xhs`.
pub(crate) static XH: Program = Program {
    names: &["xh", "xhs"],
    source: "no option table: facts only",
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    examples: &[ex("xh https://x", Expect::Plain)],
    ..RUNNER
};
