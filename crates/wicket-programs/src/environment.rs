//! Environment variables that load code, swap programs or redirect configuration: the one
//! list. The hard question: can `NAME=value` before a command (or `export NAME=…`, `env
//! NAME=…`, a make assignment) make a later program run code the rule's author never saw?
//! `LD_PRELOAD`, `NODE_OPTIONS=--require …`, `GIT_SSH_COMMAND`: a listed name only means "a
//! rule must spell it out", so the list errs on the side of listing.

/// Environment variables that load code, swap programs or redirect configuration.
const LOADS_CODE: &[&str] = &[
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
    "DYLD_FRAMEWORK_PATH",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "PS4",
    "SHELLOPTS",
    "BASHOPTS",
    "IFS",
    "PATH",
    "CDPATH",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONBREAKPOINT",
    "PYTHONUSERBASE",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "PERL5DB",
    "RUBYOPT",
    "RUBYLIB",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "LESSOPEN",
    "LESSCLOSE",
    "BROWSER",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "MAVEN_OPTS",
    "GRADLE_OPTS",
    "DOTNET_STARTUP_HOOKS",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_CONFIG_FILE",
    "UV_INDEX_URL",
    "UV_EXTRA_INDEX_URL",
    "GOFLAGS",
    "GOPROXY",
    "CC",
    "CXX",
    "LD",
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTDOC",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_HOME",
    "HOME",
    "XDG_CONFIG_HOME",
    "ZDOTDIR",
    "MAKEFLAGS",
    "MAKEFILES",
    "SHELL",
    "GCONV_PATH",
    "HOSTALIASES",
    "TERMINFO",
];

/// Prefixes of environment variable names that are all risky. `WICKET_` is wicket's own:
/// `WICKET_HOME` in front of `wicket run` makes it judge with other settings.
const LOADS_CODE_PREFIXES: &[&str] =
    &["GIT_", "NPM_CONFIG_", "YARN_", "PNPM_", "CARGO_BUILD_", "CARGO_TARGET_", "CORECLR_", "BUN_CONFIG_", "WICKET_"];

/// Is this variable name (any case) one that can make a later program run other code?
///
/// ```
/// assert!(wicket_programs::loads_code("ld_preload") && wicket_programs::loads_code("GIT_SSH_COMMAND"));
/// assert!(!wicket_programs::loads_code("FOO"));
/// ```
pub fn loads_code(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    LOADS_CODE.contains(&upper.as_str()) || LOADS_CODE_PREFIXES.iter().any(|p| upper.starts_with(p))
}

/// Variables that only tune what programs print, log or build for, and load nothing: a `NAME=value`
/// of one of these before an allowed command, or exported on the line, changes nothing a rule
/// is about (issue 40: `RUST_BACKTRACE=1 cargo test` needs only `bash(cargo test*)`). The
/// opposite of [`loads_code`]'s list, and short on purpose: a name not here still needs the
/// rule to spell it out (`PYTHONWARNINGS` imports the categories it names, `RUSTC_WRAPPER`
/// runs a program, `npm_config_*` sets npm's `script-shell`).
const ONLY_TUNES_OUTPUT: &[&str] = &[
    "CARGO_TERM_COLOR",
    "CI",
    "COLUMNS",
    "DEBUG",
    "FORCE_COLOR",
    // Go's target: which machine a build is for, nothing run or loaded (go 1.22 `go help
    // environment`); `GOFLAGS` (`-toolexec`) is not here.
    "GOAMD64",
    "GOARCH",
    "GOARM",
    "GOOS",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "LINES",
    "LOG_LEVEL",
    "NODE_ENV",
    "NO_COLOR",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING",
    "PYTHONUNBUFFERED",
    "RUST_BACKTRACE",
    "RUST_LIB_BACKTRACE",
    "RUST_LOG",
    "RUST_TEST_THREADS",
    "TERM",
    "TZ",
];

/// Does this variable only tune what programs print or log (`ONLY_TUNES_OUTPUT`)? The name
/// as assigned, case and all.
pub fn only_tunes_output(name: &str) -> bool {
    ONLY_TUNES_OUTPUT.binary_search(&name).is_ok() && !loads_code(name)
}

/// The variables that name the pager a program pipes its output through (run by the shell).
const PAGERS: &[&str] = &["GIT_PAGER", "MANPAGER", "PAGER", "SYSTEMD_PAGER"];

/// Does `NAME=VALUE` (a static value) change nothing an allow rule is about: a variable that
/// only tunes output ([`only_tunes_output`]), or a pager set to `cat` or to nothing (git then
/// pages nothing at all, git 2.47 `pager.c`; man and systemd run `cat`)?
///
/// ```
/// assert!(wicket_programs::harmless_assignment("GIT_PAGER", "cat"));
/// assert!(!wicket_programs::harmless_assignment("GIT_PAGER", "sh -c id"));
/// assert!(wicket_programs::harmless_assignment("NO_COLOR", "1"));
/// ```
pub fn harmless_assignment(name: &str, value: &str) -> bool {
    only_tunes_output(name) || (PAGERS.contains(&name) && matches!(value, "" | "cat"))
}

/// Programs that import the code of the folder they run in, by design: a test runner imports
/// the tests it collects and what they import (pytest puts each test's folder on `sys.path`;
/// `python -m` puts the current folder there). For these, `PYTHONPATH` naming folders below
/// the current one adds no code the run could not import anyway: whoever may write a module
/// there may write a test the runner collects. For any other program it may (`PYTHONPATH=.
/// pip install x` imports a `./pip/` planted in the project instead of pip).
fn imports_its_folder(argv: &[&str]) -> bool {
    let python = |p: &str| {
        matches!(p, "python" | "python3")
            || p.strip_prefix("python3.").is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
    };
    match argv {
        [p, ..] if matches!(*p, "pytest" | "py.test") => true,
        [p, "-m", module, ..] if python(p) => matches!(*module, "pytest" | "unittest"),
        _ => false,
    }
}

/// Does `NAME=VALUE` before `argv` only put folders below the current one on the import path of
/// a program that imports that folder's code anyway (`imports_its_folder`)? `PYTHONPATH=.
/// pytest` and `PYTHONPATH=src python -m pytest` yes; an absolute entry, `~`, `..`, an empty
/// entry (the current folder, as written by no one on purpose) or any other program no.
///
/// ```
/// assert!(wicket_programs::import_path_adds_nothing("PYTHONPATH", "src:tests", &["pytest", "-q"]));
/// assert!(!wicket_programs::import_path_adds_nothing("PYTHONPATH", "/tmp/x", &["pytest"]));
/// assert!(!wicket_programs::import_path_adds_nothing("PYTHONPATH", ".", &["pip", "install", "x"]));
/// ```
pub fn import_path_adds_nothing(name: &str, value: &str, argv: &[&str]) -> bool {
    name == "PYTHONPATH"
        && !value.is_empty()
        && value.split(':').all(|entry| {
            !entry.is_empty()
                && !entry.starts_with(['/', '~', '-'])
                && !entry.contains(['$', '`', '\\'])
                && entry.split('/').all(|c| c != "..")
        })
        && imports_its_folder(argv)
}

/// Variables that hold no secret: what bash and the login set (the folder, the user, the shell's
/// own counters), where tools live, and [`ONLY_TUNES_OUTPUT`]. A program that only prints
/// (`echo`) may print these without a rule; any other variable may hold a token the person's
/// shell exported (`GITHUB_TOKEN`, `DATABASE_URL`), and printing it puts it in the model's
/// context as reading `.env` would. A list on purpose: a name not here is a secret until a
/// rule says otherwise. Sorted (binary search).
const HOLDS_NO_SECRET: &[&str] = &[
    "BASH",
    "BASHPID",
    "BASH_LINENO",
    "BASH_SOURCE",
    "BASH_VERSINFO",
    "BASH_VERSION",
    "CARGO_HOME",
    "CONDA_DEFAULT_ENV",
    "CONDA_PREFIX",
    "DISPLAY",
    "EDITOR",
    "EPOCHREALTIME",
    "EPOCHSECONDS",
    "EUID",
    "FUNCNAME",
    "GOBIN",
    "GOPATH",
    "GOROOT",
    "GROUPS",
    "HOME",
    "HOSTNAME",
    "HOSTTYPE",
    "IFS",
    "JAVA_HOME",
    "LINENO",
    "LOGNAME",
    "MACHTYPE",
    "NVM_DIR",
    "OLDPWD",
    "OPTARG",
    "OPTIND",
    "OSTYPE",
    "PAGER",
    "PATH",
    "PIPESTATUS",
    "PPID",
    "PWD",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "RANDOM",
    "REPLY",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "SECONDS",
    "SHELL",
    "SHLVL",
    "SRANDOM",
    "TMPDIR",
    "UID",
    "USER",
    "VIRTUAL_ENV",
    "VISUAL",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
    "XDG_STATE_HOME",
];

/// Does this variable hold no secret (`HOLDS_NO_SECRET` or [`only_tunes_output`])? The name
/// as expanded, case and all.
pub fn holds_no_secret(name: &str) -> bool {
    HOLDS_NO_SECRET.binary_search(&name).is_ok() || ONLY_TUNES_OUTPUT.binary_search(&name).is_ok()
}

/// How bash uses a variable's value as code (issue 39, class 9): a deny rule must see what the
/// value runs, however the rule that allowed the assignment was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evaluated {
    /// Expanded like a prompt (parameter, command and arithmetic expansion) before use: `PS4`
    /// before each command under `set -x`, `PS0`–`PS2` in an interactive shell.
    Expanded,
    /// Expanded the same way, then read as a script file a new bash (`BASH_ENV`) or an
    /// interactive POSIX shell (`ENV`) runs before anything else.
    StartupFile,
    /// Run as a command line (`PROMPT_COMMAND`, before each prompt).
    Command,
}

/// The variables bash evaluates, by name (case matters: bash's names are upper case).
const EVALUATED: &[(&str, Evaluated)] = &[
    ("PS0", Evaluated::Expanded),
    ("PS1", Evaluated::Expanded),
    ("PS2", Evaluated::Expanded),
    ("PS4", Evaluated::Expanded),
    ("BASH_ENV", Evaluated::StartupFile),
    ("ENV", Evaluated::StartupFile),
    ("PROMPT_COMMAND", Evaluated::Command),
];

/// Does bash evaluate this variable's value? The name as assigned: `NAME`, `NAME+` (`+=`) or
/// `NAME[i]` (`PROMPT_COMMAND` is an array in bash 5.1 and later).
///
/// ```
/// use wicket_programs::{evaluated, Evaluated};
/// assert_eq!(evaluated("PS4"), Some(Evaluated::Expanded));
/// assert_eq!(evaluated("PROMPT_COMMAND[1]+"), Some(Evaluated::Command));
/// assert_eq!(evaluated("PATH"), None);
/// ```
pub fn evaluated(name: &str) -> Option<Evaluated> {
    let name = name.strip_suffix('+').unwrap_or(name);
    let name = name.split_once('[').map_or(name, |(n, _)| n);
    EVALUATED.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
}

#[cfg(test)]
mod tests {
    #[test]
    fn output_tuning_list_is_sorted_and_loads_nothing() {
        let mut sorted = super::ONLY_TUNES_OUTPUT.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, super::ONLY_TUNES_OUTPUT);
        assert!(super::ONLY_TUNES_OUTPUT.iter().all(|n| !super::loads_code(n)));
        assert!(super::only_tunes_output("RUST_BACKTRACE"));
        assert!(!super::only_tunes_output("rust_backtrace"));
        assert!(!super::only_tunes_output("NODE_OPTIONS"));
    }

    #[test]
    fn the_list_of_variables_without_secrets_is_sorted_and_names_no_token() {
        let mut sorted = super::HOLDS_NO_SECRET.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, super::HOLDS_NO_SECRET);
        assert!(super::holds_no_secret("HOME") && super::holds_no_secret("NODE_ENV"));
        for secret in ["GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DATABASE_URL", "OPENAI_API_KEY", "home"] {
            assert!(!super::holds_no_secret(secret), "{secret}");
        }
    }
}
