//! What a program is, before what its options mean: a shell that runs a script string, a
//! launcher or privilege tool whose words name another program, or a plain program.
//!
//! The hard question: given `NAME args…`, where does the command it runs start? Every consumer
//! asks it (the shell reader to see through wrappers for deny rules, the engine for "always
//! allow" rules), so the answer lives here, once, as data. The few launchers whose command
//! cannot be found from options and operands alone (`env -S`, `find -exec`, `npx PKG`) name a
//! [`Walker`]: the reading stays code in `wicket-shell`, but which program gets it is decided
//! here.

use crate::grammar::Program;

/// What a program is.
///
/// A launcher's [`Launch`] is behind a reference, not inline: inline it made every record
/// (each one a `Role`) 144 bytes larger, and the records hold pointers, so every page of them
/// is written when the position-independent binary starts (issue 38, docs/performance.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Runs no other program that wicket knows of.
    Plain,
    /// A shell: runs a script string (`bash -c S`, `fish -c S`), a script file, or its stdin.
    Shell(ShellScript),
    /// Runs another program named by its words (`nice`, `timeout`, `xargs`, `npx`).
    Launcher(&'static Launch),
    /// Runs another program as another user (`sudo`, `doas`, `su`, `runuser`).
    Privilege(&'static Launch),
}

impl Role {
    /// Is this program a shell?
    pub fn is_shell(&self) -> bool {
        matches!(self, Role::Shell(_))
    }

    /// How it launches another program, for launchers and privilege tools.
    pub fn launch(&self) -> Option<&Launch> {
        match self {
            Role::Launcher(l) | Role::Privilege(l) => Some(l),
            Role::Plain | Role::Shell(_) => None,
        }
    }
}

/// How a shell's words say which script it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellScript {
    /// sh's way (bash, dash, zsh, ksh, mksh, yash, posh, csh, tcsh …): clusters of letters
    /// after `-` or `+`; a `c` in one makes the first operand the script; `o`/`O` (and bash's
    /// `--rcfile`/`--init-file`) take the next word; with no `-c` the first operand is a
    /// script file, and with none the script comes from stdin.
    FirstOperand,
    /// The values of these options are scripts, every one of them (`fish -c A -c B -C C`),
    /// read with the record's grammar: an option it does not know leaves what runs unknown,
    /// one that takes the rest of the words (`pwsh -Command a b`) joins them into its script,
    /// one that `Exec`s runs code nobody can read (`pwsh -EncodedCommand`), and with no
    /// script option the first operand is a script file.
    Options(&'static [&'static str]),
}

/// How a launcher finds the command it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// Where the command starts.
    pub start: Start,
    /// Options (by any of the names given in the grammar) after which it runs no command:
    /// it looks up, edits or attaches instead (`command -v`, `sudo -e`, `taskset -p`).
    pub runs_nothing: &'static [&'static str],
    /// Options whose value is a shell script it runs (`su -c S`, `flock -c S`, `npx -c S`).
    pub script_options: &'static [&'static str],
    /// Options whose value is a command string bash runs later with words of its own appended
    /// (`mapfile -C CALLBACK` gets the index and the line, `compgen -C`/`complete -C` the words
    /// being completed), or a program that runs later under another name with the words that
    /// name gets (`hash -p PATH NAME`): each is judged as the string followed by words nobody
    /// knows yet (issue 39, class 9).
    pub callback_options: &'static [&'static str],
    /// Options whose value bash expands as words when it runs (`compgen -W LIST`): a
    /// `$(…)` in it runs, so the value is judged as the arguments of a command.
    pub word_options: &'static [&'static str],
    /// Options after which the operands are the command as an argv, whatever [`Launch::start`]
    /// says (`watch -x CMD…`, `runuser -u USER CMD…`).
    pub argv_options: &'static [&'static str],
    /// Options that name the package whose program runs, after which the operands are the
    /// command as written (`npx -p PKG CMD…`), for [`Walker::Package`].
    pub package_options: &'static [&'static str],
    /// `NAME=value` words before the command are the command's environment (`sudo`).
    pub assignments: bool,
    /// The program it runs when given none (`xargs` runs `echo`).
    pub when_none: Option<&'static str>,
    /// Sub-commands that launch (`npm exec`, `uv tool run`), read by [`Walker::Package`].
    pub subs: &'static [LaunchSub],
    /// It adds words read from its standard input to the command (`find … | xargs cat`): the
    /// names a program before it in a pipeline prints are read by the command it runs.
    pub reads_arguments: bool,
    /// It only times, limits or re-prioritises the command it runs, and does nothing else with
    /// it (`time`, `timeout`, `nice`, `ionice`): when its own words are all known plain options,
    /// the command's own allow rule is enough (`bash(cargo build*)` covers `time cargo build`).
    pub adds_nothing: bool,
}

/// The defaults every launch starts from (`..LAUNCH`): the first operand is the command.
pub const LAUNCH: Launch = Launch {
    start: Start::Operands(0),
    runs_nothing: &[],
    script_options: &[],
    callback_options: &[],
    word_options: &[],
    argv_options: &[],
    package_options: &[],
    assignments: false,
    when_none: None,
    subs: &[],
    reads_arguments: false,
    adds_nothing: false,
};

/// Where a launcher's command starts among its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Nowhere, unless an option holds a script (`script -c S`; `script` alone is an
    /// interactive shell).
    Nothing,
    /// After this many operands of its own (`nice CMD`: 0, `timeout DURATION CMD`: 1).
    Operands(usize),
    /// After an optional number of its own (`chrt [PRIORITY] CMD`).
    AfterNumber,
    /// The operands, joined with spaces, are one shell script (`eval a b`, `watch 'a; b'`).
    Joined,
    /// Read by a walker of its own in `wicket-shell`.
    Walker(Walker),
}

/// The launchers whose command is found by more than options and operands: each is read by
/// code of its own in `wicket-shell`, chosen by this name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walker {
    /// `env [-S STRING] [-] [NAME=value…] CMD`.
    Env,
    /// `flock [opts] LOCK (-c STRING | CMD…)`.
    Flock,
    /// `find … -exec CMD… ;` and its kin.
    FindExec,
    /// `fd … -x CMD… [;]` and its kin.
    FdExec,
    /// `su [opts] [-c STRING] [USER]` (options anywhere).
    Su,
    /// `trap ACTION SIGNAL…`.
    Trap,
    /// `busybox APPLET …`.
    Applet,
    /// `parallel CMD ::: ARGS` and its argument sources.
    Parallel,
    /// Runs code nobody can read (`expect`'s Tcl), unless it only prints its version.
    Unseen,
    /// `gdb`: `--args CMD…`, or commands the analysis cannot read.
    Debugger,
    /// `npx PKG ARGS…`, `-c STRING`, `-p PKG CMD…`: the package's program.
    Package,
    /// A package tool whose sub-commands in [`Launch::subs`] launch (`npm exec`, `uv run`).
    SubCommand,
}

/// A sub-command that launches another program (`npm exec`, `uv tool run`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchSub {
    /// The sub-command's words (`["tool", "run"]`).
    pub path: &'static [&'static str],
    /// The grammar of its options.
    pub grammar: &'static Program,
    /// How it names what it runs.
    pub runs: SubRuns,
}

/// How a launching sub-command names what it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubRuns {
    /// A package, as `npx` does (`npm exec PKG`, `pnpm dlx PKG`).
    Package,
    /// Its operands are the command (`uv run CMD…`).
    Operands,
    /// Its operands are the command, or with one of these flags, one joined script (`pnpm exec
    /// -c 'a && b'`).
    OperandsOrShell(&'static [&'static str]),
    /// Every word after an optional `--`, unread (`yarn exec`).
    Verbatim,
}

/// Is `outer` a wrapper that adds nothing to the command `inner` it ends with (its record's
/// launch says [`Launch::adds_nothing`], and the words between the program and the command are
/// options its grammar knows, each with no effect but shaping the run)? `nice -n 5 cargo
/// build` yes; `time -o F cargo build` (writes F), `timeout --bogus 5 x` and `sudo x` no.
pub fn adds_nothing(outer: &[&str], inner: &[&str]) -> bool {
    let (Some(program), false) = (outer.first(), inner.is_empty()) else { return false };
    if outer.len() <= inner.len() || !outer.ends_with(inner) {
        return false;
    }
    let Some(record) = crate::lookup(program) else { return false };
    let own = &outer[1..outer.len() - inner.len()];
    // `env NAME=value … CMD` with no option: assignments that change nothing a rule is about
    // (`env PYTHONUNBUFFERED=1 pytest`), as they would before the command itself.
    if matches!(record.role, Role::Launcher(l) if matches!(l.start, Start::Walker(Walker::Env))) {
        return !own.is_empty()
            && own.iter().all(|w| {
                w.split_once('=').is_some_and(|(name, v)| {
                    !name.is_empty()
                        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                        && (crate::harmless_assignment(name, v) || crate::import_path_adds_nothing(name, v, inner))
                })
            });
    }
    if !matches!(record.role, Role::Launcher(l) if l.adds_nothing) {
        return false;
    }
    let parsed = record.parse(own);
    parsed.unknown.is_empty()
        && parsed.path.is_empty()
        && parsed.found.iter().all(|f| f.opt.effect == crate::Effect::Plain)
        // `timeout DURATION` is its one operand; a launcher whose command starts at the
        // first operand has none of its own.
        && parsed.operands.len() == match record.role.launch().map(|l| l.start) {
            Some(Start::Operands(n)) => n,
            _ => usize::MAX,
        }
}

#[cfg(test)]
mod tests {
    use super::adds_nothing;

    fn wraps(outer: &str, inner: &str) -> bool {
        let o: Vec<&str> = outer.split(' ').collect();
        let i: Vec<&str> = inner.split(' ').collect();
        adds_nothing(&o, &i)
    }

    #[test]
    fn wrappers_that_only_shape_the_run_add_nothing() {
        assert!(wraps("time cargo build", "cargo build"));
        assert!(wraps("timeout -s KILL 60 npm test", "npm test"));
        assert!(wraps("nice -n 10 cargo test", "cargo test"));
        assert!(wraps("nice -10 cargo test", "cargo test"));
        assert!(wraps("env PYTHONUNBUFFERED=1 pytest", "pytest"));
        assert!(wraps("env GIT_PAGER=cat git log", "git log"));
        assert!(!wraps("env NODE_OPTIONS=--require=./x.js npm test", "npm test"));
        assert!(!wraps("env -i pytest", "pytest"));
        assert!(!wraps("env -S pytest", "pytest"));
        assert!(!wraps("env GIT_PAGER=less git log", "git log"));
    }

    #[test]
    fn wrappers_that_add_something_or_are_not_understood_do_not() {
        assert!(!wraps("time -o out.txt cargo build", "cargo build"));
        assert!(!wraps("timeout --bogus 5 cargo build", "cargo build"));
        assert!(!wraps("sudo cargo build", "cargo build"));
        assert!(!wraps("env FOO=1 cargo build", "cargo build"));
        assert!(!wraps("nohup cargo build", "cargo build"));
        assert!(!wraps("time cargo build", "cargo test"));
    }
}
