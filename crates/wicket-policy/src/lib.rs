//! The wicket decision engine: allow, deny or ask for each tool call a coding agent makes.
//!
//! The main entry point is [`Policy::decide`]: build a [`Policy`] from a [`PolicyConfig`]
//! (root, mode, rules), then decide each [`ToolCall`] against a [`Session`]. The answer is a
//! [`Verdict`] naming what decided and why. The engine is pure: no network, no processes, no
//! prompts; it reads the filesystem only to resolve paths, and only through [`disk::Disk`]
//! ([`RealDisk`] by default, another with [`Policy::new_with_disk`]). That is fenced:
//! `clippy.toml` forbids file, environment and process calls in this crate, and the places
//! allowed to make them say so (`#[allow(clippy::disallowed_methods)]`): [`disk`], the decision
//! engine's one door to the disk. The walk of the project that plans the sandbox's walls lives in
//! `wicket-planner`, which front ends run, never the engine. `wicket-shell` allows none.
//!
//! ```
//! use wicket_policy::{Policy, PolicyConfig, Session, ToolCall, Decision};
//! let dir = std::env::temp_dir();
//! let policy = Policy::new(&PolicyConfig { root: dir, deny: vec!["bash(rm -rf*)".into()], ..Default::default() }).unwrap();
//! let call = ToolCall::new("bash", serde_json::json!({"command": "ls && sudo rm -rf /"}));
//! assert_eq!(policy.decide(&call, &Session::new()).decision, Decision::Deny);
//! ```

pub mod call;
pub mod capability;
pub mod command;
pub mod disk;
mod effects;
pub mod engine;
pub mod equivalents;
pub mod examples;
pub mod flags;
pub mod gitalias;
pub mod gitconfig;
pub mod host;
pub mod lists;
pub mod mode;
/// The option grammar, now in the program catalogue (`wicket-programs`); kept under this name
/// so its users did not have to change.
pub use wicket_programs::grammar as options;
pub mod patchnames;
pub mod paths;
pub mod rules;
mod session;
pub mod settings;
pub mod team;
pub mod text;
mod verdict;

pub use call::{targets_of, Access, CallError, Target, ToolCall};
pub use disk::{Disk, RealDisk};
pub use engine::{Policy, PolicyConfig, PolicyError, Trace};
pub use mode::Mode;
pub use rules::{check_path_glob, BadGlob, Rule, RuleError, RuleSet};
pub use session::Session;
pub use settings::{Settings, SettingsError};
pub use team::TeamPolicy;
pub use verdict::{By, Decision, Verdict};
