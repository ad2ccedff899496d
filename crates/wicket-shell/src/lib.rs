//! Splits a bash command string into the simple commands bash would run.
//!
//! The entry point is [`analyze`]: it parses the string with tree-sitter-bash and returns an
//! [`Analysis`] listing every simple command (argv words, leading assignments, redirections)
//! wherever it sits: in pipelines and lists, inside `$(…)`, backticks, `<(…)`, `>(…)`,
//! subshells, groups, control flow, function bodies and unquoted here-doc bodies.
//!
//! The hard rule of this crate: when anything cannot be resolved statically, the analysis says
//! so ([`Analysis::understood`] is false, with a [`Problem`] naming why). Callers must never
//! allow a command that is not understood.
//!
//! ```
//! let a = wicket_shell::analyze("git status && echo \"$(whoami)\" > out.txt");
//! assert!(a.understood);
//! let argv: Vec<String> = a.commands.iter().map(|c| c.canonical()).collect();
//! assert_eq!(argv, ["git status", "echo \"$(whoami)\"", "whoami"]);
//! ```
//!
//! Two views of a command serve two kinds of rules:
//!
//! * **allow** rules match the command *as written*: [`SimpleCommand::canonical`];
//! * **deny** rules see through wrappers (`sudo`, `env`, `timeout`, `xargs`, `find -exec`,
//!   `bash -c`, `eval` …): [`strip_wrappers`]. Never use the stripped argv to *allow*: `sudo rm`
//!   is not `rm`.
//!
//! Redirections on compound statements (`{ …; } > f`) are copied onto every simple command
//! inside, or onto a synthetic command with empty `words` when there is none; see [`analyze`].

mod canary;
mod evaluate;
mod heredoc;
mod parse;
mod types;
mod walk;
mod word;
mod wrappers;

pub use types::*;
pub use walk::{analyze, MAX_COMMANDS, MAX_DEPTH, MAX_INPUT_BYTES};
pub use word::{expanded_names, has_subshell_operator, whole_process_substitution};
pub use wrappers::{strip_wrappers, Unwrapped, MAX_REPARSE_DEPTH};
