//! Runs a command confined by an [`ExecPolicy`](wicket_planner::exec::ExecPolicy).
//!
//! The main entry point is [`Sandbox::run`]: pick a [`Backend`] with [`Sandbox::detect`], then
//! run a command under the policy. On Linux the layers are bubblewrap (user, pid, net, ipc and
//! uts namespaces; a read-only `/` with the project and temp bound writable, the package caches
//! as overlays over a layer per project (`layers`); secrets masked), a seccomp filter handed to
//! bwrap, and Landlock applied by wicket's own binary
//! re-executed as a shim ([`shim`]) right before the command. Without bwrap, Landlock and
//! seccomp alone, and [`Backend::missing`] says what isolation is then absent. On macOS a
//! Seatbelt profile ([`seatbelt`]) is generated from the same policy.
//!
//! What this crate must never do: run a command with less confinement than it reports.

#[cfg(target_os = "linux")]
pub mod bridge;
#[cfg(target_os = "linux")]
mod bwrap;
#[cfg(target_os = "linux")]
pub mod early;
#[cfg(target_os = "linux")]
pub mod fallback;
pub mod helper;
#[cfg(target_os = "linux")]
pub mod layers;
#[cfg(target_os = "linux")]
pub mod native;
pub mod output;
pub mod placeholders;
#[cfg(unix)]
pub mod private;
pub mod probe;
pub mod quarantine;
#[cfg(target_os = "linux")]
mod rootonly;
mod runner;
pub mod seatbelt;
#[cfg(target_os = "linux")]
mod seccomp;
#[cfg(target_os = "linux")]
pub mod shells;
pub mod shim;
pub mod signals;
pub mod supervise;
pub mod trace;
mod under;

pub use probe::{Backend, Probe};
#[cfg(target_os = "linux")]
pub use rootonly::search_soon as search_root_only_soon;
pub use runner::{
    reap_ended, run_on_host, spawn_on_host, HeldEntry, Network, Outcome, RunOptions, Running, Sandbox, SandboxError,
    Started,
};

/// The hidden sub-command of the `wicket` binary that applies Landlock (and, without bwrap,
/// seccomp) to itself, then runs the command.
pub const SHIM_ARG: &str = "__sandbox-exec";

/// The hidden sub-command of the `wicket` binary that builds the sandbox from bubblewrap's line
/// itself and runs the shim in it (see [`native`]).
pub const NS_ARG: &str = "__sandbox-ns";

/// The hidden sub-command of the `wicket` binary that supervises a command run on the host
/// (see [`supervise`]).
pub const SUPERVISE_ARG: &str = "__host-supervise";

/// The hidden sub-command of the `wicket` binary that keeps a project's placeholders until the
/// last run in it has ended (see [`placeholders`]).
pub const KEEPER_ARG: &str = "__sandbox-keeper";
