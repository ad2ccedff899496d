//! Shells: programs that run a script string, a script file, or their standard input. This is
//! the one list of shells in wicket: the shell reader re-parses what each one's script flag
//! gives it, and the engine asks here whether a program is a shell ("always allow" stores the
//! exact command for one; a here-document fed to one is a script).
//!
//! Each was run here with `NAME -c 'echo PWNED'` (bash 5.2, dash 0.5.12, zsh 5.9, ksh93u+m,
//! mksh R59c, yash 2.52, posh 0.14, csh 20110502, tcsh 6.24, fish 3.6, BusyBox 1.35), except
//! PowerShell and `cmd`, which are read from their documentation. To add a shell: one `static`
//! with its names and how its words say which script it runs; then add it to `RUNNERS`.

use crate::facts::{ex, Expect};
use crate::grammar::{o, Arg, Effect::*, Program, Style, NO, REQ};
use crate::programs::RUNNER;
use crate::role::{Role, ShellScript};

/// A shell read the way sh reads its words (`-c` in a cluster, the script the first operand).
const POSIX: Program = Program { role: Role::Shell(ShellScript::FirstOperand), ..RUNNER };

/// The Bourne shell as installed (`sh` is dash on Debian, bash on others, BusyBox on Alpine).
pub(crate) static SH: Program = Program {
    names: &["sh"],
    source: "POSIX sh, `sh -c`",
    examples: &[ex("sh·-c·rm x", Expect::Runs(&["rm x"]))],
    ..POSIX
};

/// GNU bash 5.2 and its restricted form.
pub(crate) static BASH: Program = Program {
    names: &["bash", "rbash"],
    source: "GNU bash 5.2, bash(1)",
    examples: &[ex("bash·-c·rm -rf x", Expect::Runs(&["rm -rf x"]))],
    ..POSIX
};

/// The Debian Almquist shell.
pub(crate) static DASH: Program = Program {
    names: &["dash"],
    source: "dash 0.5.12, dash(1)",
    examples: &[ex("dash·-c·rm x", Expect::Runs(&["rm x"]))],
    ..POSIX
};

/// The Almquist shell as BusyBox and Alpine install it.
pub(crate) static ASH: Program = Program {
    names: &["ash"],
    source: "BusyBox 1.35 ash",
    examples: &[ex("ash·-c·rm x", Expect::Runs(&["rm x"]))],
    ..POSIX
};

/// The Z shell and its restricted form.
pub(crate) static ZSH: Program = Program {
    names: &["zsh", "rzsh"],
    source: "zsh 5.9, zsh(1)",
    examples: &[ex("zsh·-c·rm x", Expect::Runs(&["rm x"]))],
    ..POSIX
};

/// The Korn shell (ksh93 and the OpenBSD ksh ports) and their restricted forms.
pub(crate) static KSH: Program = Program {
    names: &["ksh", "ksh93", "rksh", "rksh93", "oksh", "loksh", "pdksh"],
    source: "ksh93u+m, ksh(1)",
    examples: &[ex("ksh·-c·rm x", Expect::Runs(&["rm x"]))],
    ..POSIX
};

/// The MirBSD Korn shell, its legacy and static builds and their restricted forms.
pub(crate) static MKSH: Program = Program {
    names: &["mksh", "rmksh", "lksh", "rlksh", "mksh-static"],
    source: "mksh R59c, mksh(1)",
    examples: &[ex("mksh·-c·rm x", Expect::Runs(&["rm x"]))],
    ..POSIX
};

/// Yet another shell.
pub(crate) static YASH: Program = Program {
    names: &["yash"],
    source: "yash 2.52, yash(1)",
    examples: &[ex("yash·-c·rm x", Expect::Runs(&["rm x"]))],
    ..POSIX
};

/// The policy-compliant ordinary shell.
pub(crate) static POSH: Program = Program {
    names: &["posh"],
    source: "posh 0.14, posh(1)",
    examples: &[ex("posh·-c·rm x", Expect::Runs(&["rm x"]))],
    ..POSIX
};

/// The C shell (`-c` in a cluster: the next argument is the script).
pub(crate) static CSH: Program = Program {
    names: &["csh", "bsd-csh"],
    source: "csh 20110502, csh(1)",
    examples: &[ex("csh·-c·rm x", Expect::Runs(&["rm x"]))],
    ..POSIX
};

/// The TENEX C shell.
pub(crate) static TCSH: Program = Program {
    names: &["tcsh"],
    source: "tcsh 6.24, tcsh(1)",
    examples: &[ex("tcsh·-c·rm x", Expect::Runs(&["rm x"]))],
    ..POSIX
};

/// Windows' command interpreter: `cmd /c STRING` is not sh's syntax, so its first word reads
/// as a script file nobody can see (not understood), which is what it is to wicket.
pub(crate) static CMD: Program =
    Program { names: &["cmd"], source: "cmd.exe, `cmd /?`", examples: &[ex("cmd·/c·rm x", Expect::Unread)], ..POSIX };

/// fish: every `-c` and `-C` value runs, in order (`fish -c A -c B`); options stop at the
/// first operand, a script file.
pub(crate) static FISH: Program = Program {
    names: &["fish"],
    source: "fish 3.6, `fish --help`",
    permute: false,
    opts: &[
        o("-c --command", REQ, Plain),
        o("-C --init-command", REQ, Plain),
        o("-d --debug", REQ, Plain),
        o("-o --debug-output", REQ, Write),
        o("-i --interactive", NO, Plain),
        o("-l --login", NO, Plain),
        o("-N --no-config", NO, Plain),
        o("-n --no-execute", NO, Plain),
        o("-p --profile", REQ, Write),
        o("--profile-startup", REQ, Write),
        o("-P --private", NO, Plain),
        o("--print-rusage-self", NO, Plain),
        o("--print-debug-categories", NO, Plain),
        o("-v --version", NO, Plain),
        o("-f --features", REQ, Plain),
    ],
    role: Role::Shell(ShellScript::Options(&["-c", "-C"])),
    examples: &[ex("fish·-c·rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};

/// PowerShell 7 (`pwsh`) and Windows PowerShell: `-Command` takes the rest of the words as its
/// script; `-EncodedCommand` is base64 nobody reads here; names are read case-insensitively by
/// PowerShell, so a spelling not listed is unknown (not understood).
pub(crate) static PWSH: Program = Program {
    names: &["pwsh", "powershell", "pwsh-preview"],
    source: "PowerShell 7.4, about_Pwsh (documentation; not installed here)",
    style: Style::GoFlag,
    opts: &[
        o("-c -command -Command", Arg::Last, Plain),
        o("-f -file -File", Arg::Last, ScriptFile),
        o("-e -ec -encodedcommand -EncodedCommand", REQ, Exec),
        o("-nop -noprofile -NoProfile", NO, Plain),
        o("-noni -noninteractive -NonInteractive", NO, Plain),
        o("-nol -nologo -NoLogo", NO, Plain),
        o("-noe -noexit -NoExit", NO, Plain),
        o("-l -login -Login", NO, Plain),
        o("-mta -MTA", NO, Plain),
        o("-sta -STA", NO, Plain),
        o("-ex -ep -executionpolicy -ExecutionPolicy", REQ, Plain),
        o("-wd -workingdirectory -WorkingDirectory", REQ, Plain),
        o("-o -of -outputformat -OutputFormat", REQ, Plain),
        o("-if -inputformat -InputFormat", REQ, Plain),
        o("-w -windowstyle -WindowStyle", REQ, Plain),
        o("-settingsfile -SettingsFile", REQ, Exec),
        o("-v -version -Version", NO, Plain),
        o("-h -help -Help -?", NO, Plain),
    ],
    role: Role::Shell(ShellScript::Options(&["-c"])),
    examples: &[ex("pwsh·-Command·rm x", Expect::Runs(&["rm x"]))],
    ..RUNNER
};
