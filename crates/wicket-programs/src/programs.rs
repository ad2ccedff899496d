//! The records of programs wicket reads only for what they run (shells, launchers, privilege
//! tools), one `static` per program in a file per family. Their options' effects are not
//! annotated (yet), so the engine has no option table for them and [`crate::program`] does not
//! return them; [`crate::lookup`] does.

use crate::grammar::{Program, GETOPT};

mod launchers;
mod shells;

/// The defaults a runner's record starts from (`..RUNNER`): options stop at the first operand
/// (the command), long options only by their whole name; an option not listed is unknown.
pub(crate) const RUNNER: Program = Program { abbrev: false, permute: false, ..GETOPT };

/// Every runner's record, sorted by first name; `tests/registry.rs` checks that each is here
/// exactly once and that no name is also in [`crate::PROGRAMS`].
pub static RUNNERS: &[&Program] = &[
    &shells::ASH,
    &shells::BASH,
    &launchers::BUILTIN,
    &launchers::BUNDLE,
    &launchers::BUSYBOX,
    &launchers::CHROOT,
    &launchers::CHRT,
    &shells::CMD,
    &launchers::COMMAND,
    &shells::CSH,
    &shells::DASH,
    &launchers::DOAS,
    &launchers::ENV,
    &launchers::EVAL,
    &launchers::EXEC,
    &launchers::EXPECT,
    &shells::FISH,
    &launchers::FLOCK,
    &launchers::GDB,
    &launchers::HATCH,
    &launchers::IONICE,
    &shells::KSH,
    &launchers::LTRACE,
    &shells::MKSH,
    &launchers::NICE,
    &launchers::NOHUP,
    &launchers::NSENTER,
    &launchers::PARALLEL,
    &launchers::PDM,
    &launchers::POETRY,
    &shells::POSH,
    &launchers::PRLIMIT,
    &shells::PWSH,
    &launchers::RUNUSER,
    &launchers::SCRIPT,
    &launchers::SETPRIV,
    &launchers::SETSID,
    &shells::SH,
    &launchers::STDBUF,
    &launchers::STRACE,
    &launchers::SU,
    &launchers::SUDO,
    &launchers::TASKSET,
    &shells::TCSH,
    &launchers::TIME,
    &launchers::TIMEOUT,
    &launchers::TRAP,
    &launchers::UNSHARE,
    &launchers::WATCH,
    &shells::YASH,
    &shells::ZSH,
];
