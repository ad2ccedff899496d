//! The program catalogue: everything wicket knows about a program, in one record per program.
//!
//! The main entry point is [`lookup`]: the record for a program word (by its base name), with
//! its [`Role`] (a shell, a launcher and where its command starts, or plain) and its grammar:
//! [`Program::parse`] reads an argv the way that program's own option parser does. The engine
//! reads options only with the tables whose effects are annotated, [`PROGRAMS`] (found with
//! [`program`]); the shells and launchers of [`RUNNERS`] are read only for what they run, and
//! the records of [`KNOWN`] hold facts only. Every record also says what the program does
//! beyond its options ([`facts`]: network use, shared jobs, the words it writes, the
//! [`checkers::Checker`] for what stays code) and carries examples. A record registered nowhere
//! or twice fails `tests/registry.rs`.
//!
//! The hard rule of this crate: it is the one place where program names live. The shell reader
//! (`wicket-shell`), the engine (`wicket-policy`) and the binary look programs up here, so a
//! fact about a program is added once and every consumer sees it. It is pure data and pure
//! functions: no disk, no environment, no processes, no dependencies.
//!
//! ```
//! use wicket_programs::{lookup, Role};
//! assert!(lookup("/usr/bin/ash").is_some_and(|p| p.role.is_shell()));
//! let rm = wicket_programs::program("/bin/rm").unwrap();
//! assert_eq!(rm.parse(&["--rec", "--for", "x"]).normal_form("rm"), "rm -f -r x");
//! assert_eq!(lookup("rm").map(|p| p.role), Some(Role::Plain));
//! ```

pub mod checkers;
mod devices;
mod environment;
pub mod facts;
pub mod grammar;
mod programs;
pub mod role;

pub use devices::is_device;
pub use environment::loads_code;
pub use facts::{Does, Example, Expect, Job, Network, Writes};
pub use grammar::{program, Arg, Effect, Found, Opt, Parsed, Program, Scripts, Style, PROGRAMS};
pub use programs::{KNOWN, RUNNERS};
pub use role::{Launch, LaunchSub, Role, ShellScript, Start, SubRuns, Walker};

/// The record for a program word (its base name): a table of [`PROGRAMS`], a record of
/// [`RUNNERS`] or one of [`KNOWN`].
pub fn lookup(word: &str) -> Option<&'static Program> {
    let base = word.rsplit('/').next().unwrap_or(word);
    records().find(|p| p.names.contains(&base))
}

/// Every top-level record, each once: [`PROGRAMS`], then [`RUNNERS`], then [`KNOWN`].
pub fn records() -> impl Iterator<Item = &'static Program> {
    PROGRAMS.iter().chain(RUNNERS).chain(KNOWN).copied()
}

/// Is this program word (by its base name) a shell?
pub fn is_shell(word: &str) -> bool {
    lookup(word).is_some_and(|p| p.role.is_shell())
}

/// Every name of every shell, for the few consumers that need the list itself.
pub fn shells() -> impl Iterator<Item = &'static str> {
    RUNNERS.iter().filter(|p| p.role.is_shell()).flat_map(|p| p.names.iter().copied())
}
