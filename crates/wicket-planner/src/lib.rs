//! The sandbox's walls, derived from the project and the machine.
//!
//! The main entry point is [`exec::exec_policy`]: from the settings' [`exec::ExecInputs`] it walks
//! the project (secrets, `denyPaths`, the person's deny rules, repositories; cached in
//! [`scan_cache`]), finds the git folders and what git would run (`gitdirs`), seals the homes
//! and `/run` but for what toolchains need ([`sealed`]), and returns the [`exec::ExecPolicy`] that
//! `wicket-sandbox` enforces; [`nested_git::Watch`] is the check after the run. This is the edge
//! of the decision engine (`wicket-policy`, which does no disk walk): it reads the disk, the
//! environment and git's files, never decides a call, and never runs a program.

mod direnv;
pub mod exec;
pub mod gitdirs;
pub mod held;
pub mod nested_git;
pub mod path_folders;
pub mod pointers;
pub mod scan_cache;
pub mod sealed;
pub mod shadow;

/// How many threads can run at once here, asked once per process: the standard library reads
/// the cgroup's files each time (tens of microseconds), and a run asked three times.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
