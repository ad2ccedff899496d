//! Programs that create, change, delete, compare or search files, whose options wicket does not read (yet): their records hold what the engine must know about their operands and jobs.
//!
//! To add one: a `static` here with its names and facts, then an entry in `KNOWN` (kept
//! sorted; `tests/registry.rs`).

use crate::checkers::Checker;
use crate::facts::{Does, Job, Writes};
use crate::grammar::Program;
use crate::programs::RUNNER;

/// `7z`, `7za`, `7zr`.
pub(crate) static SEVEN_Z: Program = Program {
    names: &["7z", "7za", "7zr"],
    source: "no option table: facts only",
    checker: Checker::SevenZip,
    ..RUNNER
};

/// `ack`, `ack-grep`.
pub(crate) static ACK: Program = Program {
    names: &["ack", "ack-grep"],
    source: "no option table: facts only",
    checker: Checker::Searcher,
    ..RUNNER
};

/// `ag`.
pub(crate) static AG: Program =
    Program { names: &["ag"], source: "no option table: facts only", checker: Checker::Searcher, ..RUNNER };

/// `bsdtar`.
pub(crate) static BSDTAR: Program =
    Program { names: &["bsdtar"], source: "no option table: facts only", checker: Checker::Tar, ..RUNNER };

/// `chgrp`.
pub(crate) static CHGRP: Program = Program {
    names: &["chgrp"],
    source: "no option table: facts only",
    exact_only: true,
    writes: Writes::AfterFirst,
    ..RUNNER
};

/// `chmod`.
pub(crate) static CHMOD: Program = Program {
    names: &["chmod"],
    source: "no option table: facts only",
    exact_only: true,
    writes: Writes::AfterFirst,
    ..RUNNER
};

/// `chown`.
pub(crate) static CHOWN: Program = Program {
    names: &["chown"],
    source: "no option table: facts only",
    exact_only: true,
    writes: Writes::AfterFirst,
    ..RUNNER
};

/// `cpio`.
pub(crate) static CPIO: Program =
    Program { names: &["cpio"], source: "no option table: facts only", checker: Checker::Cpio, ..RUNNER };

/// `cpp`.
pub(crate) static CPP: Program = Program {
    names: &["cpp"],
    source: "no option table: facts only",
    checker: Checker::SecondOperand(&["-o", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-x", "-std"]),
    ..RUNNER
};

/// `dd`.
pub(crate) static DD: Program = Program {
    names: &["dd"],
    source: "no option table: facts only",
    exact_only: true,
    writes: Writes::OfOperand,
    ..RUNNER
};

/// `diff`.
pub(crate) static DIFF: Program = Program {
    names: &["diff"],
    source: "no option table: facts only",
    checker: Checker::Recursive { letters: &['r'], longs: &["--recursive"] },
    ..RUNNER
};

/// `grep`, `egrep`, `fgrep`, `ggrep`.
pub(crate) static GREP: Program = Program {
    names: &["grep", "egrep", "fgrep", "ggrep"],
    source: "no option table: facts only",
    checker: Checker::Grep,
    ..RUNNER
};

/// `install`.
pub(crate) static INSTALL: Program =
    Program { names: &["install"], source: "no option table: facts only", writes: Writes::LastUnlessDest, ..RUNNER };

/// `ln`.
pub(crate) static LN: Program =
    Program { names: &["ln"], source: "no option table: facts only", exact_only: true, writes: Writes::Link, ..RUNNER };

/// `mkdir`.
pub(crate) static MKDIR: Program =
    Program { names: &["mkdir"], source: "no option table: facts only", writes: Writes::Folders, ..RUNNER };

/// `mkfifo`.
pub(crate) static MKFIFO: Program =
    Program { names: &["mkfifo"], source: "no option table: facts only", writes: Writes::Operands, ..RUNNER };

/// `mkfs`.
pub(crate) static MKFS: Program =
    Program { names: &["mkfs"], source: "no option table: facts only", exact_only: true, ..RUNNER };

/// `mount`, `umount`.
pub(crate) static MOUNT: Program =
    Program { names: &["mount", "umount"], source: "no option table: facts only", exact_only: true, ..RUNNER };

/// `rmdir`.
pub(crate) static RMDIR: Program = Program {
    names: &["rmdir"],
    source: "no option table: facts only",
    exact_only: true,
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    writes: Writes::Operands,
    ..RUNNER
};

/// `shred`.
pub(crate) static SHRED: Program = Program {
    names: &["shred"],
    source: "no option table: facts only",
    exact_only: true,
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    writes: Writes::Operands,
    ..RUNNER
};

/// `srm`.
pub(crate) static SRM: Program = Program {
    names: &["srm"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    ..RUNNER
};

/// `tee`.
pub(crate) static TEE: Program =
    Program { names: &["tee"], source: "no option table: facts only", writes: Writes::Operands, ..RUNNER };

/// `touch`.
pub(crate) static TOUCH: Program =
    Program { names: &["touch"], source: "no option table: facts only", writes: Writes::Operands, ..RUNNER };

/// `truncate`.
pub(crate) static TRUNCATE: Program = Program {
    names: &["truncate"],
    source: "no option table: facts only",
    exact_only: true,
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    writes: Writes::Operands,
    ..RUNNER
};

/// `uniq`.
pub(crate) static UNIQ: Program = Program {
    names: &["uniq"],
    source: "no option table: facts only",
    checker: Checker::SecondOperand(&["-f", "-s", "-w"]),
    ..RUNNER
};

/// `unlink`.
pub(crate) static UNLINK: Program = Program {
    names: &["unlink"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    writes: Writes::Operands,
    ..RUNNER
};

/// `unzip`.
pub(crate) static UNZIP: Program =
    Program { names: &["unzip"], source: "no option table: facts only", checker: Checker::Unzip, ..RUNNER };

/// `wipe`.
pub(crate) static WIPE: Program = Program {
    names: &["wipe"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    ..RUNNER
};

/// `xxd`.
pub(crate) static XXD: Program = Program {
    names: &["xxd"],
    source: "no option table: facts only",
    checker: Checker::SecondOperand(&["-c", "-g", "-l", "-o", "-s", "-n", "-C", "-R"]),
    ..RUNNER
};
