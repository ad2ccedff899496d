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

/// Prefixes of environment variable names that are all risky.
const LOADS_CODE_PREFIXES: &[&str] =
    &["GIT_", "NPM_CONFIG_", "YARN_", "PNPM_", "CARGO_BUILD_", "CARGO_TARGET_", "CORECLR_", "BUN_CONFIG_"];

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
