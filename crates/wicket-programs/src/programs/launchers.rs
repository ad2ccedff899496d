//! Launchers and privilege tools: programs whose words name another program that runs
//! (`sudo rm`, `timeout 5 rm`, `unshare -r rm`, `poetry run rm`). Each record's options are
//! read only to find where that program starts: they were ported one for one from the option
//! lists `wicket-shell` kept of its own (its `Spec`s), so an option not listed leaves what runs
//! unknown (not understood), as before. What each option does beyond that is not annotated yet,
//! so these records are in [`crate::RUNNERS`], not in the engine's [`crate::PROGRAMS`].
//!
//! To add a launcher: one `static` here with its names, where its options come from, its
//! options, and its [`Role`]; then add it to `RUNNERS` (kept sorted; `tests/registry.rs`).

use crate::checkers::Checker;
use crate::facts::{ex, Expect};
use crate::facts::{Network, SetsVariable};
use crate::grammar::{o, Arg, Effect::*, Program, Style, NO, OPT, REQ};
use crate::programs::RUNNER;
use crate::role::{Launch, LaunchSub, Role, Start, SubRuns, Walker, LAUNCH};

/// sudo 1.9, sudo(8).
pub(crate) static SUDO: Program = Program {
    names: &["sudo"],
    source: "sudo 1.9, sudo(8)",
    opts: &[
        o("-A", NO, Plain),
        o("-B", NO, Plain),
        o("-b", NO, Plain),
        o("-E", NO, Plain),
        o("-e", NO, Plain),
        o("-H", NO, Plain),
        o("-i", NO, Plain),
        o("-K", NO, Plain),
        o("-k", NO, Plain),
        o("-l", NO, Plain),
        o("-N", NO, Plain),
        o("-n", NO, Plain),
        o("-P", NO, Plain),
        o("-S", NO, Plain),
        o("-s", NO, Plain),
        o("-V", NO, Plain),
        o("-v", NO, Plain),
        o("-C", REQ, Plain),
        o("-D", REQ, Plain),
        o("-g", REQ, Plain),
        o("-h", REQ, Plain),
        o("-p", REQ, Plain),
        o("-R", REQ, Plain),
        o("-r", REQ, Plain),
        o("-t", REQ, Plain),
        o("-T", REQ, Plain),
        o("-U", REQ, Plain),
        o("-u", REQ, Plain),
        o("--close-from", REQ, Plain),
        o("--chdir", REQ, Plain),
        o("--group", REQ, Plain),
        o("--host", REQ, Plain),
        o("--prompt", REQ, Plain),
        o("--chroot", REQ, Plain),
        o("--role", REQ, Plain),
        o("--type", REQ, Plain),
        o("--command-timeout", REQ, Plain),
        o("--other-user", REQ, Plain),
        o("--user", REQ, Plain),
        o("--askpass", OPT, Plain),
        o("--background", OPT, Plain),
        o("--bell", OPT, Plain),
        o("--preserve-env", OPT, Plain),
        o("--edit", OPT, Plain),
        o("--set-home", OPT, Plain),
        o("--login", OPT, Plain),
        o("--remove-timestamp", OPT, Plain),
        o("--reset-timestamp", OPT, Plain),
        o("--list", OPT, Plain),
        o("--non-interactive", OPT, Plain),
        o("--preserve-groups", OPT, Plain),
        o("--stdin", OPT, Plain),
        o("--shell", OPT, Plain),
        o("--version", OPT, Plain),
        o("--validate", OPT, Plain),
        o("--help", OPT, Plain),
    ],
    role: Role::Privilege(&Launch { runs_nothing: &["-e", "--edit"], assignments: true, ..LAUNCH }),
    exact_only: true,
    examples: &[ex("sudo -u root rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// OpenDoas 6.8, doas(1).
pub(crate) static DOAS: Program = Program {
    names: &["doas"],
    source: "OpenDoas 6.8, doas(1)",
    opts: &[o("-n", NO, Plain), o("-s", NO, Plain), o("-L", NO, Plain), o("-u", REQ, Plain), o("-C", REQ, Plain)],
    role: Role::Privilege(&Launch { ..LAUNCH }),
    exact_only: true,
    examples: &[ex("doas rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// polkit 122, pkexec(1): `pkexec [--user USER] PROGRAM [ARGS…]`.
pub(crate) static PKEXEC: Program = Program {
    names: &["pkexec"],
    source: "polkit 122, pkexec(1)",
    opts: &[
        o("--user", REQ, Plain),
        o("--disable-internal-agent", NO, Plain),
        o("--keep-cwd", NO, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
    ],
    role: Role::Privilege(&Launch { runs_nothing: &["--help", "--version"], ..LAUNCH }),
    exact_only: true,
    examples: &[ex("pkexec rm x", Expect::Runs(&["rm x"])), ex("pkexec --user root rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// util-linux 2.38, su(1) (options anywhere).
pub(crate) static SU: Program = Program {
    names: &["su"],
    source: "util-linux 2.38, su(1) (options anywhere)",
    role: Role::Privilege(&Launch { start: Start::Walker(Walker::Su), ..LAUNCH }),
    exact_only: true,
    examples: &[ex("su·-c·rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// util-linux 2.38, runuser(1).
pub(crate) static RUNUSER: Program = Program {
    names: &["runuser"],
    source: "util-linux 2.38, runuser(1)",
    opts: &[
        o("-l", NO, Plain),
        o("-m", NO, Plain),
        o("-p", NO, Plain),
        o("-f", NO, Plain),
        o("-P", NO, Plain),
        o("-h", NO, Plain),
        o("-V", NO, Plain),
        o("-u", REQ, Plain),
        o("-c", REQ, Plain),
        o("-g", REQ, Plain),
        o("-G", REQ, Plain),
        o("-s", REQ, Plain),
        o("-w", REQ, Plain),
        o("--user", REQ, Plain),
        o("--command", REQ, Plain),
        o("--session-command", REQ, Plain),
        o("--group", REQ, Plain),
        o("--supp-group", REQ, Plain),
        o("--shell", REQ, Plain),
        o("--whitelist-environment", REQ, Plain),
        o("--login", OPT, Plain),
        o("--preserve-environment", OPT, Plain),
        o("--fast", OPT, Plain),
        o("--pty", OPT, Plain),
        o("--help", OPT, Plain),
        o("--version", OPT, Plain),
    ],
    role: Role::Privilege(&Launch {
        start: Start::Nothing,
        script_options: &["-c", "--command", "--session-command"],
        argv_options: &["-u", "--user"],
        ..LAUNCH
    }),
    examples: &[ex("runuser -u bob rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// GNU coreutils 9.1, `env --help`.
pub(crate) static ENV: Program = Program {
    names: &["env"],
    source: "GNU coreutils 9.1, `env --help`",
    opts: &[
        o("-i", NO, Plain),
        o("-0", NO, Plain),
        o("-v", NO, Plain),
        o("-u", REQ, Plain),
        o("-C", REQ, Plain),
        o("-S", REQ, Plain),
        o("-P", REQ, Plain),
        o("--unset", REQ, Plain),
        o("--chdir", REQ, Plain),
        o("--split-string", REQ, Plain),
        o("--ignore-environment", OPT, Plain),
        o("--null", OPT, Plain),
        o("--debug", OPT, Plain),
        o("--block-signal", OPT, Plain),
        o("--default-signal", OPT, Plain),
        o("--ignore-signal", OPT, Plain),
        o("--list-signal-handling", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { start: Start::Walker(Walker::Env), ..LAUNCH }),
    exact_only: true,
    assigns: true,
    examples: &[ex("env FOO=1 rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// bash 5.2, `help exec`.
pub(crate) static EXEC: Program = Program {
    names: &["exec"],
    source: "bash 5.2, `help exec`",
    opts: &[o("-c", NO, Plain), o("-l", NO, Plain), o("-a", REQ, Plain)],
    role: Role::Launcher(&Launch { ..LAUNCH }),
    exact_only: true,
    examples: &[ex("exec rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// bash 5.2, `help command`.
pub(crate) static COMMAND: Program = Program {
    names: &["command"],
    source: "bash 5.2, `help command`",
    // `command -v X` and `-V` only print; `command X` runs X, a command of its own.
    only_reads: true,
    reads_no_files: true,
    opts: &[o("-p", NO, Plain), o("-v", NO, Plain), o("-V", NO, Plain)],
    role: Role::Launcher(&Launch { runs_nothing: &["-v", "-V"], ..LAUNCH }),
    exact_only: true,
    examples: &[ex("command rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// bash 5.2, `help builtin`.
pub(crate) static BUILTIN: Program = Program {
    names: &["builtin"],
    source: "bash 5.2, `help builtin`",
    role: Role::Launcher(&Launch { ..LAUNCH }),
    exact_only: true,
    examples: &[ex("builtin echo x", Expect::Runs(&["echo x"]))],
    ..RUNNER
};

/// GNU coreutils 9.1 `nohup --help`; bash 5.2 `coproc`.
pub(crate) static NOHUP: Program = Program {
    names: &["nohup", "coproc"],
    source: "GNU coreutils 9.1 `nohup --help`; bash 5.2 `coproc`",
    role: Role::Launcher(&Launch { ..LAUNCH }),
    exact_only: true,
    examples: &[ex("nohup rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// GNU coreutils 9.1, `nice --help`.
pub(crate) static NICE: Program = Program {
    names: &["nice"],
    source: "GNU coreutils 9.1, `nice --help`",
    opts: &[o("-n", REQ, Plain), o("--adjustment", REQ, Plain)],
    numeric: true,
    role: Role::Launcher(&Launch { adds_nothing: true, ..LAUNCH }),
    exact_only: true,
    examples: &[ex("nice -n 5 rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// util-linux 2.38, ionice(1).
pub(crate) static IONICE: Program = Program {
    names: &["ionice"],
    source: "util-linux 2.38, ionice(1)",
    opts: &[
        o("-t", NO, Plain),
        o("-c", REQ, Plain),
        o("-n", REQ, Plain),
        o("-p", REQ, Plain),
        o("-P", REQ, Plain),
        o("-u", REQ, Plain),
        o("--class", REQ, Plain),
        o("--classdata", REQ, Plain),
        o("--pid", REQ, Plain),
        o("--pgid", REQ, Plain),
        o("--uid", REQ, Plain),
        o("--ignore", OPT, Plain),
    ],
    role: Role::Launcher(&Launch {
        runs_nothing: &["-p", "-P", "-u", "--pid", "--pgid", "--uid"],
        adds_nothing: true,
        ..LAUNCH
    }),
    exact_only: true,
    examples: &[ex("ionice -c 3 rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// GNU coreutils 9.1, `timeout --help` (DURATION, then the command).
pub(crate) static TIMEOUT: Program = Program {
    names: &["timeout"],
    source: "GNU coreutils 9.1, `timeout --help` (DURATION, then the command)",
    opts: &[
        o("-v", NO, Plain),
        o("-k", REQ, Plain),
        o("-s", REQ, Plain),
        o("--kill-after", REQ, Plain),
        o("--signal", REQ, Plain),
        o("--preserve-status", OPT, Plain),
        o("--foreground", OPT, Plain),
        o("--verbose", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { start: Start::Operands(1), adds_nothing: true, ..LAUNCH }),
    exact_only: true,
    examples: &[ex("timeout 5 rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// GNU time 1.9, time(1).
pub(crate) static TIME: Program = Program {
    names: &["time"],
    source: "GNU time 1.9, time(1)",
    opts: &[
        o("-p", NO, Plain),
        o("-a", NO, Plain),
        o("-v", NO, Plain),
        o("-q", NO, Plain),
        // GNU time writes its report to the file `-o` names (bash's `time` keyword has no
        // `-o`; `command time` and `/usr/bin/time` do).
        o("-o", REQ, Write),
        o("-f", REQ, Plain),
        o("--output", REQ, Write),
        o("--format", REQ, Plain),
        o("--append", OPT, Plain),
        o("--verbose", OPT, Plain),
        o("--quiet", OPT, Plain),
        o("--portability", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { adds_nothing: true, ..LAUNCH }),
    exact_only: true,
    examples: &[ex("time rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// GNU coreutils 9.1, `stdbuf --help`.
pub(crate) static STDBUF: Program = Program {
    names: &["stdbuf"],
    source: "GNU coreutils 9.1, `stdbuf --help`",
    opts: &[
        o("-i", REQ, Plain),
        o("-o", REQ, Plain),
        o("-e", REQ, Plain),
        o("--input", REQ, Plain),
        o("--output", REQ, Plain),
        o("--error", REQ, Plain),
    ],
    role: Role::Launcher(&Launch { ..LAUNCH }),
    exact_only: true,
    examples: &[ex("stdbuf -oL rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// util-linux 2.38, setsid(1).
pub(crate) static SETSID: Program = Program {
    names: &["setsid"],
    source: "util-linux 2.38, setsid(1)",
    opts: &[
        o("-c", NO, Plain),
        o("-f", NO, Plain),
        o("-w", NO, Plain),
        o("--ctty", OPT, Plain),
        o("--fork", OPT, Plain),
        o("--wait", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { ..LAUNCH }),
    exact_only: true,
    examples: &[ex("setsid rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// procps-ng 4.0, watch(1) (the command is a script unless `-x`).
pub(crate) static WATCH: Program = Program {
    names: &["watch"],
    source: "procps-ng 4.0, watch(1) (the command is a script unless `-x`)",
    opts: &[
        o("-b", NO, Plain),
        o("-c", NO, Plain),
        o("-C", NO, Plain),
        o("-d", NO, Plain),
        o("-e", NO, Plain),
        o("-g", NO, Plain),
        o("-p", NO, Plain),
        o("-r", NO, Plain),
        o("-t", NO, Plain),
        o("-w", NO, Plain),
        o("-x", NO, Plain),
        o("-n", REQ, Plain),
        o("-q", REQ, Plain),
        o("--interval", REQ, Plain),
        o("--equexit", REQ, Plain),
        o("--beep", OPT, Plain),
        o("--color", OPT, Plain),
        o("--no-color", OPT, Plain),
        o("--differences", OPT, Plain),
        o("--errexit", OPT, Plain),
        o("--chgexit", OPT, Plain),
        o("--precise", OPT, Plain),
        o("--no-rerun", OPT, Plain),
        o("--no-title", OPT, Plain),
        o("--no-wrap", OPT, Plain),
        o("--exec", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { start: Start::Joined, argv_options: &["-x", "--exec"], ..LAUNCH }),
    exact_only: true,
    examples: &[ex("watch rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// util-linux 2.38, flock(1).
pub(crate) static FLOCK: Program = Program {
    names: &["flock"],
    source: "util-linux 2.38, flock(1)",
    opts: &[
        o("-s", NO, Plain),
        o("-e", NO, Plain),
        o("-x", NO, Plain),
        o("-u", NO, Plain),
        o("-n", NO, Plain),
        o("-o", NO, Plain),
        o("-F", NO, Plain),
        o("-h", NO, Plain),
        o("-V", NO, Plain),
        o("-w", REQ, Plain),
        o("-E", REQ, Plain),
        o("-c", REQ, Plain),
        o("--timeout", REQ, Plain),
        o("--wait", REQ, Plain),
        o("--conflict-exit-code", REQ, Plain),
        o("--command", REQ, Plain),
        o("--shared", OPT, Plain),
        o("--exclusive", OPT, Plain),
        o("--unlock", OPT, Plain),
        o("--nonblock", OPT, Plain),
        o("--close", OPT, Plain),
        o("--no-fork", OPT, Plain),
        o("--verbose", OPT, Plain),
        o("--help", OPT, Plain),
        o("--version", OPT, Plain),
    ],
    role: Role::Launcher(&Launch {
        start: Start::Walker(Walker::Flock),
        script_options: &["-c", "--command"],
        ..LAUNCH
    }),
    exact_only: true,
    examples: &[ex("flock /tmp/l rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// bash 5.2, `help eval`.
pub(crate) static EVAL: Program = Program {
    names: &["eval"],
    source: "bash 5.2, `help eval`",
    role: Role::Launcher(&Launch { start: Start::Joined, ..LAUNCH }),
    exact_only: true,
    examples: &[ex("eval rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// bash 5.2, `help trap`.
pub(crate) static TRAP: Program = Program {
    names: &["trap"],
    source: "bash 5.2, `help trap`",
    role: Role::Launcher(&Launch { start: Start::Walker(Walker::Trap), ..LAUNCH }),
    exact_only: true,
    examples: &[ex("trap·rm x·EXIT", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// bash 5.2, `help mapfile`: `-C CALLBACK` is evaluated every `-c QUANTUM` lines with the
/// index and the line appended (issue 39, class 9).
pub(crate) static MAPFILE: Program = Program {
    names: &["mapfile", "readarray"],
    source: "bash 5.2, `help mapfile`",
    opts: &[
        o("-d", REQ, Plain),
        o("-n", REQ, Plain),
        o("-O", REQ, Plain),
        o("-s", REQ, Plain),
        o("-t", NO, Plain),
        o("-u", REQ, Plain),
        o("-C", REQ, Plain),
        o("-c", REQ, Plain),
    ],
    role: Role::Launcher(&Launch { start: Start::Nothing, callback_options: &["-C"], ..LAUNCH }),
    sets_variable: SetsVariable::LastOperand("MAPFILE"),
    exact_only: true,
    examples: &[ex("mapfile·-C·rm x·-c·1·a", Expect::Runs(&["rm x \"$@\""])), ex("mapfile -t lines", Expect::Plain)],
    ..RUNNER
};

/// The options `compgen` and `complete` share (bash 5.2, `help compgen`, `help complete`).
const COMPLETION_OPTS: &[crate::grammar::Opt] = &[
    o("-a", NO, Plain),
    o("-b", NO, Plain),
    o("-c", NO, Plain),
    o("-d", NO, Plain),
    o("-e", NO, Plain),
    o("-f", NO, Plain),
    o("-g", NO, Plain),
    o("-j", NO, Plain),
    o("-k", NO, Plain),
    o("-s", NO, Plain),
    o("-u", NO, Plain),
    o("-v", NO, Plain),
    o("-p", NO, Plain),
    o("-r", NO, Plain),
    o("-D", NO, Plain),
    o("-E", NO, Plain),
    o("-I", NO, Plain),
    o("-o", REQ, Plain),
    o("-A", REQ, Plain),
    o("-G", REQ, Plain),
    o("-W", REQ, Plain),
    o("-F", REQ, Plain),
    o("-C", REQ, Plain),
    o("-X", REQ, Plain),
    o("-P", REQ, Plain),
    o("-S", REQ, Plain),
    o("-V", REQ, Plain),
];

/// bash 5.2, `help compgen`: `-W WORDLIST` is expanded (a `$(…)` in it runs), `-C COMMAND`
/// runs with the words being completed appended (issue 39, class 9).
pub(crate) static COMPGEN: Program = Program {
    names: &["compgen"],
    source: "bash 5.2, `help compgen`",
    opts: COMPLETION_OPTS,
    role: Role::Launcher(&Launch { start: Start::Nothing, callback_options: &["-C"], word_options: &["-W"], ..LAUNCH }),
    exact_only: true,
    examples: &[ex("compgen·-C·rm x·a", Expect::Runs(&["rm x \"$@\""])), ex("compgen -c gi", Expect::Plain)],
    ..RUNNER
};

/// bash 5.2, `help complete`: the `-C COMMAND` and `-W WORDLIST` it stores run at each
/// completion (issue 39, class 9).
pub(crate) static COMPLETE: Program = Program {
    names: &["complete"],
    source: "bash 5.2, `help complete`",
    opts: COMPLETION_OPTS,
    role: Role::Launcher(&Launch { start: Start::Nothing, callback_options: &["-C"], word_options: &["-W"], ..LAUNCH }),
    exact_only: true,
    examples: &[ex("complete·-C·rm x·make", Expect::Runs(&["rm x \"$@\""])), ex("complete -p", Expect::Plain)],
    ..RUNNER
};

/// bash 5.2, `help hash`: `-p PATH NAME` makes every later `NAME` run `PATH`, with the words
/// `NAME` gets (issue 39, class 9).
pub(crate) static HASH: Program = Program {
    names: &["hash"],
    source: "bash 5.2, `help hash`",
    opts: &[o("-r", NO, Plain), o("-d", NO, Plain), o("-t", NO, Plain), o("-l", NO, Plain), o("-p", REQ, Plain)],
    role: Role::Launcher(&Launch { start: Start::Nothing, callback_options: &["-p"], ..LAUNCH }),
    exact_only: true,
    examples: &[ex("hash -p /bin/rm ls", Expect::Runs(&["/bin/rm \"$@\""])), ex("hash -r", Expect::Plain)],
    ..RUNNER
};

/// BusyBox 1.35, `busybox --help`; toybox.
pub(crate) static BUSYBOX: Program = Program {
    names: &["busybox", "toybox"],
    source: "BusyBox 1.35, `busybox --help`; toybox",
    role: Role::Launcher(&Launch { start: Start::Walker(Walker::Applet), ..LAUNCH }),
    examples: &[ex("busybox rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// util-linux 2.38, unshare(1).
pub(crate) static UNSHARE: Program = Program {
    names: &["unshare"],
    source: "util-linux 2.38, unshare(1)",
    opts: &[
        o("-f", NO, Plain),
        o("-r", NO, Plain),
        o("-c", NO, Plain),
        o("-V", NO, Plain),
        o("-R", REQ, Plain),
        o("-w", REQ, Plain),
        o("-S", REQ, Plain),
        o("-G", REQ, Plain),
        o("-l", REQ, Plain),
        o("-m", OPT, Plain),
        o("-u", OPT, Plain),
        o("-i", OPT, Plain),
        o("-n", OPT, Plain),
        o("-p", OPT, Plain),
        o("-U", OPT, Plain),
        o("-C", OPT, Plain),
        o("-T", OPT, Plain),
        o("--propagation", REQ, Plain),
        o("--setgroups", REQ, Plain),
        o("--root", REQ, Plain),
        o("--wd", REQ, Plain),
        o("--setuid", REQ, Plain),
        o("--setgid", REQ, Plain),
        o("--map-user", REQ, Plain),
        o("--map-group", REQ, Plain),
        o("--map-users", REQ, Plain),
        o("--map-groups", REQ, Plain),
        o("--monotonic", REQ, Plain),
        o("--boottime", REQ, Plain),
        o("--load-interp", REQ, Plain),
        o("--mount", OPT, Plain),
        o("--uts", OPT, Plain),
        o("--ipc", OPT, Plain),
        o("--net", OPT, Plain),
        o("--pid", OPT, Plain),
        o("--user", OPT, Plain),
        o("--cgroup", OPT, Plain),
        o("--time", OPT, Plain),
        o("--fork", OPT, Plain),
        o("--kill-child", OPT, Plain),
        o("--mount-proc", OPT, Plain),
        o("--map-root-user", OPT, Plain),
        o("--map-current-user", OPT, Plain),
        o("--map-auto", OPT, Plain),
        o("--keep-caps", OPT, Plain),
        o("--mount-binfmt", OPT, Plain),
        o("--help", OPT, Plain),
        o("--version", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { ..LAUNCH }),
    examples: &[ex("unshare -r rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// util-linux 2.38, taskset(1) (MASK, then the command).
pub(crate) static TASKSET: Program = Program {
    names: &["taskset"],
    source: "util-linux 2.38, taskset(1) (MASK, then the command)",
    opts: &[
        o("-a", NO, Plain),
        o("-p", NO, Plain),
        o("-c", NO, Plain),
        o("-h", NO, Plain),
        o("-V", NO, Plain),
        o("--all-tasks", OPT, Plain),
        o("--pid", OPT, Plain),
        o("--cpu-list", OPT, Plain),
        o("--help", OPT, Plain),
        o("--version", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { start: Start::Operands(1), runs_nothing: &["-p", "--pid"], ..LAUNCH }),
    examples: &[ex("taskset 1 rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// util-linux 2.38, chrt(1) (an optional PRIORITY, then the command).
pub(crate) static CHRT: Program = Program {
    names: &["chrt"],
    source: "util-linux 2.38, chrt(1) (an optional PRIORITY, then the command)",
    opts: &[
        o("-a", NO, Plain),
        o("-b", NO, Plain),
        o("-d", NO, Plain),
        o("-f", NO, Plain),
        o("-i", NO, Plain),
        o("-o", NO, Plain),
        o("-r", NO, Plain),
        o("-m", NO, Plain),
        o("-p", NO, Plain),
        o("-v", NO, Plain),
        o("-R", NO, Plain),
        o("-h", NO, Plain),
        o("-V", NO, Plain),
        o("-T", REQ, Plain),
        o("-P", REQ, Plain),
        o("-D", REQ, Plain),
        o("--sched-runtime", REQ, Plain),
        o("--sched-period", REQ, Plain),
        o("--sched-deadline", REQ, Plain),
        o("--all-tasks", OPT, Plain),
        o("--batch", OPT, Plain),
        o("--deadline", OPT, Plain),
        o("--fifo", OPT, Plain),
        o("--idle", OPT, Plain),
        o("--other", OPT, Plain),
        o("--rr", OPT, Plain),
        o("--max", OPT, Plain),
        o("--pid", OPT, Plain),
        o("--verbose", OPT, Plain),
        o("--reset-on-fork", OPT, Plain),
        o("--help", OPT, Plain),
        o("--version", OPT, Plain),
    ],
    role: Role::Launcher(&Launch {
        start: Start::AfterNumber,
        runs_nothing: &["-p", "--pid", "-m", "--max"],
        ..LAUNCH
    }),
    examples: &[ex("chrt 10 rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// util-linux 2.38, prlimit(1).
pub(crate) static PRLIMIT: Program = Program {
    names: &["prlimit"],
    source: "util-linux 2.38, prlimit(1)",
    opts: &[
        o("-h", NO, Plain),
        o("-V", NO, Plain),
        o("-p", REQ, Plain),
        o("-o", REQ, Plain),
        o("-c", OPT, Plain),
        o("-d", OPT, Plain),
        o("-e", OPT, Plain),
        o("-f", OPT, Plain),
        o("-i", OPT, Plain),
        o("-l", OPT, Plain),
        o("-m", OPT, Plain),
        o("-n", OPT, Plain),
        o("-q", OPT, Plain),
        o("-r", OPT, Plain),
        o("-s", OPT, Plain),
        o("-t", OPT, Plain),
        o("-u", OPT, Plain),
        o("-v", OPT, Plain),
        o("-x", OPT, Plain),
        o("-y", OPT, Plain),
        o("--pid", REQ, Plain),
        o("--output", REQ, Plain),
        o("--core", OPT, Plain),
        o("--data", OPT, Plain),
        o("--nice", OPT, Plain),
        o("--fsize", OPT, Plain),
        o("--sigpending", OPT, Plain),
        o("--memlock", OPT, Plain),
        o("--rss", OPT, Plain),
        o("--nofile", OPT, Plain),
        o("--msgqueue", OPT, Plain),
        o("--rtprio", OPT, Plain),
        o("--stack", OPT, Plain),
        o("--cpu", OPT, Plain),
        o("--nproc", OPT, Plain),
        o("--as", OPT, Plain),
        o("--locks", OPT, Plain),
        o("--rttime", OPT, Plain),
        o("--noheadings", OPT, Plain),
        o("--raw", OPT, Plain),
        o("--verbose", OPT, Plain),
        o("--help", OPT, Plain),
        o("--version", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { runs_nothing: &["-p", "--pid"], ..LAUNCH }),
    examples: &[ex("prlimit --nofile=10 rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// util-linux 2.38, setpriv(1).
pub(crate) static SETPRIV: Program = Program {
    names: &["setpriv"],
    source: "util-linux 2.38, setpriv(1)",
    opts: &[
        o("-d", NO, Plain),
        o("-h", NO, Plain),
        o("-V", NO, Plain),
        o("--inh-caps", REQ, Plain),
        o("--ambient-caps", REQ, Plain),
        o("--bounding-set", REQ, Plain),
        o("--groups", REQ, Plain),
        o("--ruid", REQ, Plain),
        o("--euid", REQ, Plain),
        o("--rgid", REQ, Plain),
        o("--egid", REQ, Plain),
        o("--reuid", REQ, Plain),
        o("--regid", REQ, Plain),
        o("--securebits", REQ, Plain),
        o("--pdeathsig", REQ, Plain),
        o("--selinux-label", REQ, Plain),
        o("--apparmor-profile", REQ, Plain),
        o("--landlock-access", REQ, Plain),
        o("--landlock-rule", REQ, Plain),
        o("--dump", OPT, Plain),
        o("--nnp", OPT, Plain),
        o("--no-new-privs", OPT, Plain),
        o("--keep-groups", OPT, Plain),
        o("--clear-groups", OPT, Plain),
        o("--init-groups", OPT, Plain),
        o("--reset-env", OPT, Plain),
        o("--help", OPT, Plain),
        o("--version", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { runs_nothing: &["-d", "--dump"], ..LAUNCH }),
    examples: &[ex("setpriv --reuid=1 rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// util-linux 2.38, nsenter(1).
pub(crate) static NSENTER: Program = Program {
    names: &["nsenter"],
    source: "util-linux 2.38, nsenter(1)",
    opts: &[
        o("-a", NO, Plain),
        o("-e", NO, Plain),
        o("-F", NO, Plain),
        o("-Z", NO, Plain),
        o("-c", NO, Plain),
        o("-h", NO, Plain),
        o("-V", NO, Plain),
        o("-t", REQ, Plain),
        o("-S", REQ, Plain),
        o("-G", REQ, Plain),
        o("-W", REQ, Plain),
        o("-m", OPT, Plain),
        o("-u", OPT, Plain),
        o("-i", OPT, Plain),
        o("-n", OPT, Plain),
        o("-p", OPT, Plain),
        o("-U", OPT, Plain),
        o("-C", OPT, Plain),
        o("-T", OPT, Plain),
        o("-r", OPT, Plain),
        o("-w", OPT, Plain),
        o("--target", REQ, Plain),
        o("--setuid", REQ, Plain),
        o("--setgid", REQ, Plain),
        o("--wdns", REQ, Plain),
        o("--all", OPT, Plain),
        o("--mount", OPT, Plain),
        o("--uts", OPT, Plain),
        o("--ipc", OPT, Plain),
        o("--net", OPT, Plain),
        o("--pid", OPT, Plain),
        o("--user", OPT, Plain),
        o("--cgroup", OPT, Plain),
        o("--time", OPT, Plain),
        o("--root", OPT, Plain),
        o("--wd", OPT, Plain),
        o("--env", OPT, Plain),
        o("--no-fork", OPT, Plain),
        o("--follow-context", OPT, Plain),
        o("--preserve-credentials", OPT, Plain),
        o("--join-cgroup", OPT, Plain),
        o("--user-parent", OPT, Plain),
        o("--keep-caps", OPT, Plain),
        o("--help", OPT, Plain),
        o("--version", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { ..LAUNCH }),
    examples: &[ex("nsenter -t 1 rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// GNU coreutils 9.1, `chroot --help` (NEWROOT, then the command).
pub(crate) static CHROOT: Program = Program {
    names: &["chroot"],
    source: "GNU coreutils 9.1, `chroot --help` (NEWROOT, then the command)",
    opts: &[
        o("--userspec", REQ, Plain),
        o("--groups", REQ, Plain),
        o("--skip-chdir", OPT, Plain),
        o("--help", OPT, Plain),
        o("--version", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { start: Start::Operands(1), ..LAUNCH }),
    examples: &[ex("chroot /srv rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// strace 6.1, strace(1).
pub(crate) static STRACE: Program = Program {
    names: &["strace"],
    source: "strace 6.1, strace(1)",
    opts: &[
        o("-c", NO, Plain),
        o("-C", NO, Plain),
        o("-d", NO, Plain),
        o("-D", NO, Plain),
        o("-f", NO, Plain),
        o("-F", NO, Plain),
        o("-h", NO, Plain),
        o("-i", NO, Plain),
        o("-k", NO, Plain),
        o("-n", NO, Plain),
        o("-q", NO, Plain),
        o("-r", NO, Plain),
        o("-t", NO, Plain),
        o("-T", NO, Plain),
        o("-v", NO, Plain),
        o("-V", NO, Plain),
        o("-w", NO, Plain),
        o("-x", NO, Plain),
        o("-y", NO, Plain),
        o("-Y", NO, Plain),
        o("-z", NO, Plain),
        o("-Z", NO, Plain),
        o("-a", REQ, Plain),
        o("-b", REQ, Plain),
        o("-e", REQ, Plain),
        o("-E", REQ, Plain),
        o("-I", REQ, Plain),
        o("-o", REQ, Plain),
        o("-O", REQ, Plain),
        o("-p", REQ, Plain),
        o("-P", REQ, Plain),
        o("-s", REQ, Plain),
        o("-S", REQ, Plain),
        o("-u", REQ, Plain),
        o("-U", REQ, Plain),
        o("-X", REQ, Plain),
        o("--output", REQ, Plain),
        o("--attach", REQ, Plain),
        o("--trace", REQ, Plain),
        o("--signal", REQ, Plain),
        o("--status", REQ, Plain),
        o("--string-limit", REQ, Plain),
        o("--user", REQ, Plain),
        o("--env", REQ, Plain),
        o("--trace-path", REQ, Plain),
        o("--summary-sort-by", REQ, Plain),
        o("--columns", REQ, Plain),
        o("--const-print-style", REQ, Plain),
        o("--decode-fds", REQ, Plain),
        o("--quiet", REQ, Plain),
        o("--inject", REQ, Plain),
        o("--fault", REQ, Plain),
        o("--kvm", REQ, Plain),
        o("--timestamps", REQ, Plain),
        o("--absolute-timestamps", REQ, Plain),
        o("--follow-forks", OPT, Plain),
        o("--output-separately", OPT, Plain),
        o("--summary-only", OPT, Plain),
        o("--summary", OPT, Plain),
        o("--summary-wall-clock", OPT, Plain),
        o("--syscall-times", OPT, Plain),
        o("--relative-timestamps", OPT, Plain),
        o("--no-abbrev", OPT, Plain),
        o("--verbose", OPT, Plain),
        o("--daemonize", OPT, Plain),
        o("--seccomp-bpf", OPT, Plain),
        o("--stack-trace", OPT, Plain),
        o("--help", OPT, Plain),
        o("--version", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { ..LAUNCH }),
    examples: &[ex("strace rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// ltrace 0.7, ltrace(1).
pub(crate) static LTRACE: Program = Program {
    names: &["ltrace"],
    source: "ltrace 0.7, ltrace(1)",
    opts: &[
        o("-b", NO, Plain),
        o("-c", NO, Plain),
        o("-C", NO, Plain),
        o("-f", NO, Plain),
        o("-h", NO, Plain),
        o("-i", NO, Plain),
        o("-L", NO, Plain),
        o("-r", NO, Plain),
        o("-S", NO, Plain),
        o("-t", NO, Plain),
        o("-T", NO, Plain),
        o("-V", NO, Plain),
        o("-a", REQ, Plain),
        o("-A", REQ, Plain),
        o("-e", REQ, Plain),
        o("-D", REQ, Plain),
        o("-F", REQ, Plain),
        o("-l", REQ, Plain),
        o("-n", REQ, Plain),
        o("-o", REQ, Plain),
        o("-p", REQ, Plain),
        o("-s", REQ, Plain),
        o("-u", REQ, Plain),
        o("-w", REQ, Plain),
        o("-x", REQ, Plain),
        o("--align", REQ, Plain),
        o("--output", REQ, Plain),
        o("--library", REQ, Plain),
        o("--demangle", OPT, Plain),
        o("--help", OPT, Plain),
        o("--version", OPT, Plain),
        o("--no-signals", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { ..LAUNCH }),
    examples: &[ex("ltrace rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// util-linux 2.38, script(1) (without `-c`, an interactive shell).
pub(crate) static SCRIPT: Program = Program {
    names: &["script"],
    source: "util-linux 2.38, script(1) (without `-c`, an interactive shell)",
    opts: &[
        o("-a", NO, Plain),
        o("-e", NO, Plain),
        o("-f", NO, Plain),
        o("-q", NO, Plain),
        o("-h", NO, Plain),
        o("-V", NO, Plain),
        o("-c", REQ, Plain),
        o("-E", REQ, Plain),
        o("-I", REQ, Plain),
        o("-O", REQ, Plain),
        o("-B", REQ, Plain),
        o("-T", REQ, Plain),
        o("-m", REQ, Plain),
        o("-o", REQ, Plain),
        o("-t", OPT, Plain),
        o("--command", REQ, Plain),
        o("--echo", REQ, Plain),
        o("--log-in", REQ, Plain),
        o("--log-out", REQ, Plain),
        o("--log-io", REQ, Plain),
        o("--log-timing", REQ, Plain),
        o("--logging-format", REQ, Plain),
        o("--output-limit", REQ, Plain),
        o("--append", OPT, Plain),
        o("--return", OPT, Plain),
        o("--flush", OPT, Plain),
        o("--force", OPT, Plain),
        o("--quiet", OPT, Plain),
        o("--timing", OPT, Plain),
        o("--help", OPT, Plain),
        o("--version", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { start: Start::Nothing, script_options: &["-c", "--command"], ..LAUNCH }),
    exact_only: true,
    examples: &[ex("script·-c·rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// GNU parallel 20221122, parallel(1).
pub(crate) static PARALLEL: Program = Program {
    names: &["parallel", "sem"],
    source: "GNU parallel 20221122, parallel(1)",
    opts: &[
        o("-k", NO, Plain),
        o("-q", NO, Plain),
        o("-0", NO, Plain),
        o("-v", NO, Plain),
        o("-X", NO, Plain),
        o("-m", NO, Plain),
        o("-u", NO, Plain),
        o("-j", REQ, Plain),
        o("-P", REQ, Plain),
        o("-S", REQ, Plain),
        o("-n", REQ, Plain),
        o("-N", REQ, Plain),
        o("-I", REQ, Plain),
        o("--jobs", REQ, Plain),
        o("--max-procs", REQ, Plain),
        o("--max-args", REQ, Plain),
        o("--delay", REQ, Plain),
        o("--timeout", REQ, Plain),
        o("--joblog", REQ, Plain),
        o("--results", REQ, Plain),
        o("--tag-string", REQ, Plain),
        o("--tmpdir", REQ, Plain),
        o("--keep-order", OPT, Plain),
        o("--quote", OPT, Plain),
        o("--null", OPT, Plain),
        o("--will-cite", OPT, Plain),
        o("--bar", OPT, Plain),
        o("--progress", OPT, Plain),
        o("--tag", OPT, Plain),
        o("--halt-on-error", OPT, Plain),
        o("--dry-run", OPT, Plain),
        o("--line-buffer", OPT, Plain),
        o("--group", OPT, Plain),
        o("--ungroup", OPT, Plain),
        o("--verbose", OPT, Plain),
    ],
    role: Role::Launcher(&Launch { start: Start::Walker(Walker::Parallel), reads_arguments: true, ..LAUNCH }),
    examples: &[ex("parallel rm ::: a b", Expect::Runs(&["rm"]))],
    ..RUNNER
};

/// expect 5.45, expect(1) (runs Tcl: `spawn`, `exec`, `system`).
pub(crate) static EXPECT: Program = Program {
    names: &["expect"],
    source: "expect 5.45, expect(1) (runs Tcl: `spawn`, `exec`, `system`)",
    role: Role::Launcher(&Launch {
        start: Start::Walker(Walker::Unseen),
        runs_nothing: &["-v", "--version", "-h", "--help"],
        ..LAUNCH
    }),
    examples: &[ex("expect -v", Expect::Plain)],
    ..RUNNER
};

/// GDB 13, gdb(1) (`-x` and `--x` alike; `--args PROG ARGS…`).
pub(crate) static GDB: Program = Program {
    names: &["gdb", "gdb-multiarch"],
    source: "GDB 13, gdb(1) (`-x` and `--x` alike; `--args PROG ARGS…`)",
    style: Style::GoFlag,
    opts: &[
        o("-q -quiet -silent", NO, Plain),
        o("-batch", NO, Plain),
        o("-nx -n", NO, Plain),
        o("-nh", NO, Plain),
        o("-tui", NO, Plain),
        o("-version", NO, Plain),
        o("-help", NO, Plain),
        o("-readnow", NO, Plain),
        o("-p -pid", REQ, Plain),
        o("-c -core", REQ, Plain),
        o("-s -se", REQ, Plain),
        o("-d -cd", REQ, Plain),
        o("-args", Arg::Last, Exec),
    ],
    role: Role::Launcher(&Launch { start: Start::Walker(Walker::Debugger), ..LAUNCH }),
    examples: &[ex("gdb --args rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// Poetry 1.8, `poetry run`.
pub(crate) static POETRY: Program = Program {
    names: &["poetry"],
    source: "Poetry 1.8, `poetry run`",
    role: Role::Launcher(&Launch {
        start: Start::Walker(Walker::SubCommand),
        subs: &[LaunchSub { path: &["run"], grammar: &RUN_PLAIN, runs: SubRuns::Operands }],
        ..LAUNCH
    }),
    network: Network::Subs(&["install", "add", "update", "publish", "lock"]),
    checker: Checker::PyPackages,
    examples: &[ex("poetry run pytest", Expect::Runs(&["pytest"]))],
    ..RUNNER
};

/// PDM 2, `pdm run`.
pub(crate) static PDM: Program = Program {
    names: &["pdm"],
    source: "PDM 2, `pdm run`",
    role: Role::Launcher(&Launch {
        start: Start::Walker(Walker::SubCommand),
        subs: &[LaunchSub { path: &["run"], grammar: &RUN_PLAIN, runs: SubRuns::Operands }],
        ..LAUNCH
    }),
    checker: Checker::PyPackages,
    examples: &[ex("pdm run pytest", Expect::Runs(&["pytest"]))],
    ..RUNNER
};

/// Hatch 1.9, `hatch run`.
pub(crate) static HATCH: Program = Program {
    names: &["hatch"],
    source: "Hatch 1.9, `hatch run`",
    role: Role::Launcher(&Launch {
        start: Start::Walker(Walker::SubCommand),
        subs: &[LaunchSub { path: &["run"], grammar: &RUN_PLAIN, runs: SubRuns::Operands }],
        ..LAUNCH
    }),
    examples: &[ex("hatch run pytest", Expect::Runs(&["pytest"]))],
    ..RUNNER
};

/// Bundler 2.4, `bundle exec`.
pub(crate) static BUNDLE: Program = Program {
    names: &["bundle"],
    source: "Bundler 2.4, `bundle exec`",
    role: Role::Launcher(&Launch {
        start: Start::Walker(Walker::SubCommand),
        subs: &[LaunchSub { path: &["exec"], grammar: &BUNDLE_EXEC, runs: SubRuns::Operands }],
        ..LAUNCH
    }),
    network: Network::Subs(&["install", "update"]),
    examples: &[ex("bundle exec rake", Expect::Runs(&["rake"]))],
    ..RUNNER
};

/// Bundler 2.4, `bundle exec --help` (options stop at the command).
pub(crate) static BUNDLE_EXEC: Program = Program {
    names: &["exec"],
    source: "Bundler 2.4, `bundle exec --help` (options stop at the command)",
    opts: &[o("--gemfile", REQ, Plain), o("--keep-file-descriptors", OPT, Plain)],
    role: Role::Plain,
    ..RUNNER
};

/// Poetry, PDM and Hatch `run` (options stop at the command).
pub(crate) static RUN_PLAIN: Program = Program {
    names: &["run"],
    source: "Poetry, PDM and Hatch `run` (options stop at the command)",
    opts: &[o("-q", NO, Plain), o("-v", NO, Plain), o("--quiet", OPT, Plain), o("--verbose", OPT, Plain)],
    role: Role::Plain,
    ..RUNNER
};
