//! Running a command under the sandbox: spawn, cap the output, enforce the timeout, and make
//! sure nothing it started outlives it.
//!
//! The hard question: when the command is done (or out of time), is everything it started
//! gone? The command runs in its own process group; on timeout the group gets SIGTERM, then
//! SIGKILL two seconds later. Under bwrap the pid namespace dies with it; without bwrap, wicket
//! is a child subreaper, so orphans are reparented to it and killed too.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wicket_planner::exec::ExecPolicy;

use crate::output::{capture, Captured};
use crate::probe::Backend;
use crate::shim::ShimPolicy;

/// Why a command could not be run.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// No backend can confine commands here.
    #[error("no OS sandbox is available here: {0}")]
    Unavailable(String),
    /// The seccomp filter could not be built.
    #[error("{0}")]
    Seccomp(String),
    /// The sandbox or the command could not be started.
    #[error("cannot start {what}: {source}")]
    Spawn {
        /// What was started.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// A placeholder for a protected path could not be made.
    #[error("cannot protect {path}: {source}")]
    Placeholder {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// An I/O error while waiting.
    #[error("while running the command: {0}")]
    Io(#[from] std::io::Error),
}

/// How a command is run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Copy the (capped) output to wicket's own stdout and stderr as it comes.
    pub passthrough: bool,
    /// Give the command wicket's stdin (else /dev/null).
    pub inherit_stdin: bool,
    /// For [`run_on_host`]: the `wicket` binary, to start the command under its supervisor
    /// (see [`crate::supervise`]), which kills the command's whole tree if the caller is killed
    /// outright. `None`: the command is the direct child and only it dies with the caller.
    pub supervisor: Option<PathBuf>,
}

/// How a command ended.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The exit code (128 + signal for a signal; 124 after a timeout).
    pub code: i32,
    /// Its standard output, capped.
    pub stdout: Captured,
    /// Its standard error, capped.
    pub stderr: Captured,
    /// True when the timeout ended it.
    pub timed_out: bool,
    /// How long it ran.
    pub duration: Duration,
    /// The backend that confined it.
    pub backend: &'static str,
    /// Repositories the run left that git must not use, moved aside after it (see
    /// [`crate::quarantine`]); each was named in a notice on stderr.
    pub moved_aside: Vec<crate::quarantine::MovedAside>,
    /// New entries that run code somewhere, found after the run, for the front end to hold for
    /// a person (see [`wicket_planner::held`]).
    pub held: Vec<std::path::PathBuf>,
    /// Entries the command made in a guarded folder that never reached the project (see
    /// `shells`), for the front end to hold for a person: each is still in wicket's state.
    pub held_entries: Vec<HeldEntry>,
    /// What keeps `held_entries` where they are: drop it only once they were moved (a folder
    /// that still holds any stays, and a later run holds what it finds there).
    pub keep_until_held: Vec<std::sync::Arc<dyn std::fmt::Debug + Send + Sync>>,
    /// The sandbox failed before the command could start (bubblewrap's set-up: a path it was
    /// to hide vanished in between, say): the command did not run, and a caller may set the
    /// sandbox up again. Known only for [`Sandbox::start`]'s runs; false elsewhere.
    pub never_started: bool,
}

/// An entry a run made in a guarded folder, held for a person instead of reaching the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldEntry {
    /// Where it is now (in wicket's state).
    pub from: PathBuf,
    /// Where it would go in the project.
    pub to: PathBuf,
}

/// The network a sandboxed command gets: the proxy, served by the caller on the listener the
/// shim makes at `127.0.0.1:port` inside the sandbox's own network namespace (see
/// [`crate::bridge`]), and the environment that points the command's tools at it.
#[derive(Debug, Clone, Default)]
pub struct Network {
    /// The loopback port inside the sandbox.
    pub port: u16,
    /// Variables the command gets (they travel over the bridge socket, never on a command line).
    pub env: Vec<(String, String)>,
}

/// Called with the listener inside the sandbox, before the command starts.
pub type OnListener<'a> = &'a mut dyn FnMut(std::net::TcpListener) -> Result<(), String>;

/// Work done right after the sandbox starts (the bridge hand-over).
type AfterSpawn<'a> = Box<dyn FnOnce() -> Result<(), String> + 'a>;

/// A sandbox runner: a backend and the binary that serves as the shim.
#[derive(Debug, Clone)]
pub struct Sandbox {
    /// The backend.
    pub backend: Backend,
    /// wicket's own binary (re-executed as the shim).
    pub shim_exe: PathBuf,
}

impl Sandbox {
    /// The best backend here (cached probe) and this process's binary as the shim.
    pub fn detect(cache: Option<&Path>) -> Result<Sandbox, SandboxError> {
        let probe = crate::probe::Probe::cached(cache);
        let shim_exe = std::env::current_exe().map_err(|e| SandboxError::Spawn { what: "wicket".into(), source: e })?;
        Ok(Sandbox { backend: probe.backend, shim_exe })
    }

    /// Run `argv` under `policy`.
    pub fn run(&self, policy: &ExecPolicy, argv: &[OsString], opts: &RunOptions) -> Result<Outcome, SandboxError> {
        self.run_inner(policy, argv, opts, None)
    }

    /// Run `argv` under `policy` with the proxy's network: `on_listener` gets the listener the
    /// shim made inside the sandbox and must start serving it; then the command starts with
    /// `net.env`. Only the bubblewrap backend has a network namespace to do this in; other
    /// backends are refused ([`SandboxError::Unavailable`]).
    pub fn run_networked(
        &self,
        policy: &ExecPolicy,
        argv: &[OsString],
        opts: &RunOptions,
        net: &Network,
        on_listener: OnListener<'_>,
    ) -> Result<Outcome, SandboxError> {
        if !matches!(self.backend, Backend::Bwrap { .. }) || policy.network {
            return Err(SandboxError::Unavailable(format!(
                "the network proxy needs bubblewrap's network namespace; backend {} has none",
                self.backend.name()
            )));
        }
        self.run_inner(policy, argv, opts, Some((net, on_listener)))
    }

    fn run_inner(
        &self,
        policy: &ExecPolicy,
        argv: &[OsString],
        opts: &RunOptions,
        net: Option<(&Network, OnListener<'_>)>,
    ) -> Result<Outcome, SandboxError> {
        #[cfg(target_os = "linux")]
        let pair = match &net {
            Some(_) => Some(crate::bridge::pair().map_err(SandboxError::Seccomp)?),
            None => None,
        };
        #[cfg(target_os = "linux")]
        let bridge = pair
            .as_ref()
            .zip(net.as_ref())
            .map(|((_, theirs), (n, _))| crate::shim::ShimBridge { fd: raw(theirs), port: n.port });
        #[cfg(not(target_os = "linux"))]
        let bridge = None;
        let (mut cmd, guards, _) = self.command(policy, argv, bridge, None)?;
        // With the bridge: once bwrap runs, drop the shim's end here (so a shim that dies is
        // seen as the end of the socket), take the listener, let the caller serve it, and send
        // the environment; the shim starts the command only after that.
        #[cfg(target_os = "linux")]
        let hook: Option<AfterSpawn<'_>> = match (pair, net) {
            (Some((ours, theirs)), Some((n, on_listener))) => {
                let env = n.env.clone();
                Some(Box::new(move || {
                    drop(theirs);
                    let served = crate::bridge::receive(&ours).and_then(on_listener);
                    match served {
                        Ok(()) => crate::bridge::send_env(ours, &env),
                        Err(e) => Err(e),
                    }
                }))
            }
            _ => None,
        };
        #[cfg(not(target_os = "linux"))]
        let hook = None;
        let result = spawn_and_wait(&mut cmd, policy, opts, self.backend.name(), hook);
        let mut guards = guards;
        let settled = guards.settle(policy);
        drop(guards);
        // Whatever the command left, also when waiting for it failed.
        let after = crate::quarantine::after_run(policy);
        result.map(|o| Outcome {
            moved_aside: after.moved,
            held: after.held,
            held_entries: settled.0,
            keep_until_held: settled.1,
            ..o
        })
    }

    /// Start `argv` under `policy` with its stdin and stdout piped to the caller and its
    /// stderr inherited, for long-running peers that speak over their standard streams (an
    /// MCP server). The confinement is the same as [`Sandbox::run`]'s; the caller talks to it
    /// and ends it with [`Running::wait`]. With the Landlock backend the walls go up between
    /// fork and exec, so call this before the process starts threads of its own.
    pub fn spawn(&self, policy: &ExecPolicy, argv: &[OsString]) -> Result<Running, SandboxError> {
        let (mut cmd, guards, _) = self.command(policy, argv, None, None)?;
        let mut running = spawn_piped(&mut cmd, guards, self.backend.name())?;
        running.watch = Some(policy.clone());
        Ok(running)
    }

    /// [`Sandbox::spawn`] with the proxy's network (bubblewrap only, as
    /// [`Sandbox::run_networked`]): `on_listener` gets the listener the shim made inside the
    /// sandbox and must start serving it before the command starts with `net.env`.
    pub fn spawn_networked(
        &self,
        policy: &ExecPolicy,
        argv: &[OsString],
        net: &Network,
        on_listener: OnListener<'_>,
    ) -> Result<Running, SandboxError> {
        if !matches!(self.backend, Backend::Bwrap { .. }) || policy.network {
            return Err(SandboxError::Unavailable(format!(
                "the network proxy needs bubblewrap's network namespace; backend {} has none",
                self.backend.name()
            )));
        }
        #[cfg(target_os = "linux")]
        {
            let (ours, theirs) = crate::bridge::pair().map_err(SandboxError::Seccomp)?;
            let bridge = crate::shim::ShimBridge { fd: raw(&theirs), port: net.port };
            let (mut cmd, guards, _) = self.command(policy, argv, Some(bridge), None)?;
            let mut running = spawn_piped(&mut cmd, guards, self.backend.name())?;
            running.watch = Some(policy.clone());
            // As in `run_networked`: our copy of the shim's end goes, the listener is served,
            // the environment sent; a failure here leaves the shim refusing to start.
            drop(theirs);
            let handed = crate::bridge::receive(&ours).and_then(on_listener);
            let sent = handed.and_then(|()| crate::bridge::send_env(ours, &net.env));
            if let Err(e) = sent {
                running.signal(true);
                let _ = running.wait();
                return Err(SandboxError::Unavailable(format!(
                    "the network proxy could not be connected to the sandbox: {e}"
                )));
            }
            Ok(running)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (argv, net, on_listener);
            Err(SandboxError::Unavailable("the network proxy runs on Linux only".into()))
        }
    }

    /// Start `argv` under `policy` before the call is decided, so the sandbox is built while
    /// the caller decides; the command itself runs only at [`Started::go`]. Dropping the
    /// handle (a denial, an error) ends the sandbox with the command never started. Under
    /// bubblewrap the shim waits on a pipe after it has confined itself; other backends have
    /// nothing to build ahead and start at `go`.
    pub fn start(&self, policy: &ExecPolicy, argv: &[OsString], opts: &RunOptions) -> Result<Started, SandboxError> {
        reap_ended();
        let timeout = policy.timeout;
        #[cfg(target_os = "linux")]
        if matches!(self.backend, Backend::Bwrap { .. }) {
            // A socket pair, both ends closed on exec, so ours never leaks into the sandbox
            // (the shim would then wait for an end of file that cannot come); only the shim's
            // end is made inheritable. The shim says ready on it (its set-up is over), and
            // reads go.
            let (ours, theirs) = std::os::unix::net::UnixStream::pair()
                .map_err(|e| SandboxError::Seccomp(format!("socketpair: {e}")))?;
            // The shim's end crosses bwrap's exec into the shim; ours stays here.
            rustix::io::fcntl_setfd(&theirs, rustix::io::FdFlags::empty())
                .map_err(|e| SandboxError::Seccomp(e.to_string()))?;
            let (mut cmd, guards, own) =
                self.command(policy, argv, None, Some(std::os::fd::AsRawFd::as_raw_fd(&theirs)))?;
            // The helper started at the run's start carries the line out when wicket's own
            // namespaces do (see `early`); else, or when it cannot be handed the line, the shim
            // is started now.
            let early = crate::early::take();
            let spawned = match (own, early) {
                (Some(own), Some(early)) => {
                    match launch_early(early, &cmd, own, policy.output_cap, opts, self.backend.name()) {
                        Ok(spawned) => Ok(spawned),
                        Err(why) => {
                            crate::trace::phase(&format!("early helper not used: {why}"));
                            spawn_io(&mut cmd, policy.output_cap, opts, self.backend.name())
                        }
                    }
                }
                (_, early) => {
                    if let Some(e) = early {
                        crate::early::discard(e);
                    }
                    spawn_io(&mut cmd, policy.output_cap, opts, self.backend.name())
                }
            };
            // The shim has its copy now; ours must go, so a dead shim is not waited for.
            drop(theirs);
            let write = ours;
            let spawned = spawned?;
            return Ok(Started {
                state: Some(Ahead::Spawned(spawned, write)),
                _guards: guards,
                timeout,
                policy: policy.clone(),
            });
        }
        let (cmd, guards, _) = self.command(policy, argv, None, None)?;
        Ok(Started {
            state: Some(Ahead::Deferred(Box::new(cmd), policy.output_cap, opts.clone(), self.backend.name())),
            _guards: guards,
            timeout,
            policy: policy.clone(),
        })
    }

    /// The confined command for `argv` (with the proxy bridge when given), and what must live
    /// as long as it runs.
    fn command(
        &self,
        policy: &ExecPolicy,
        argv: &[OsString],
        bridge: Option<crate::shim::ShimBridge>,
        start_fd: Option<i32>,
    ) -> Result<(Command, Guards, Option<OwnLine>), SandboxError> {
        let Some((program, args)) = argv.split_first() else {
            return Err(SandboxError::Spawn {
                what: "an empty command".into(),
                source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "no program"),
            });
        };
        // Only bubblewrap can show the copy at the project's path; elsewhere the command would
        // write the project itself.
        if policy.stage.is_some() && !matches!(self.backend, Backend::Bwrap { .. }) {
            return Err(SandboxError::Unavailable(format!(
                "a staged run needs bubblewrap, and this sandbox is {}; install bubblewrap or run the command unstaged",
                self.backend.name()
            )));
        }
        // As root, the owner check still lets the command read root's own system files
        // (`/etc/shadow`): they are masked like secrets (see `rootonly`).
        #[cfg(target_os = "linux")]
        let with_root_masks;
        #[cfg(target_os = "linux")]
        let policy = if rustix::process::geteuid().is_root() {
            let mut keep = policy.writable.clone();
            keep.push(policy.root.clone());
            let mut p = policy.clone();
            let mut masked: std::collections::HashSet<PathBuf> = p.unreadable.iter().cloned().collect();
            // The listings of the last search are kept in wicket's own state, out of the
            // sandbox's reach (see `rootonly`).
            let cache = policy.state_dir.as_ref().map(|s| s.join("cache").join("rootonly"));
            for m in crate::rootonly::root_only_paths(&keep, cache.as_deref()) {
                if masked.insert(m.clone()) {
                    p.unreadable.push(m);
                }
            }
            with_root_masks = p;
            &with_root_masks
        } else {
            policy
        };
        // The package caches: each gets the project's own layer over it, or stays read-only
        // (see `layers`); never written in place.
        // The folders that hold a missing protected name get a shell overlay (see `shells`);
        // where overlays cannot be mounted (or the run is staged, its project an overlay
        // already), placeholders stand for the missing names instead.
        #[cfg(target_os = "linux")]
        let (shells, shell_mounts) = {
            let state = policy.state_dir.clone().unwrap_or_else(crate::placeholders::default_state);
            let planned = if policy.stage.is_none() && crate::layers::available(&state).is_ok() {
                crate::shells::plan(policy, &state)?
            } else {
                None
            };
            match planned {
                Some((s, m)) => (Some(s), m),
                None => (None, Vec::new()),
            }
        };
        #[cfg(target_os = "linux")]
        let shelled: Vec<PathBuf> = shells.as_ref().map(|s| s.dirs().to_vec()).unwrap_or_default();
        #[cfg(target_os = "linux")]
        let crate::layers::Arranged { policy: without_caches, mounts, layered, work } =
            crate::layers::arrange(policy, !matches!(self.backend, Backend::Bwrap { .. }), shell_mounts)?;
        #[cfg(target_os = "linux")]
        let policy = without_caches.as_ref().unwrap_or(policy);
        crate::trace::phase("sandbox planned");
        #[cfg(target_os = "linux")]
        let placeholders = if shells.is_some() { None } else { lease(policy, &self.shim_exe)? };
        #[cfg(not(target_os = "linux"))]
        let placeholders = lease(policy, &self.shim_exe)?;
        crate::trace::phase("placeholders made");
        // Under bwrap, the git folders outside the writable paths are bound writable (their
        // config, hooks and links stay read-only on top); Landlock must let them be written.
        let mut writable = policy.writable.clone();
        if matches!(self.backend, Backend::Bwrap { .. }) {
            for g in &policy.git_dirs {
                if !writable.iter().any(|w| g.starts_with(w)) {
                    writable.push(g.clone());
                }
            }
        }
        // Where the sandbox shows other files than the host (hidden, fresh temp folders, the
        // caches' layers), the program is left to the shim's own search; a staged run's project
        // is a layer too.
        let mut elsewhere: Vec<PathBuf> =
            policy.unreadable.iter().chain(&policy.private_temp).chain(&policy.sealed).cloned().collect();
        #[cfg(target_os = "linux")]
        elsewhere.extend(layered.iter().cloned());
        let path = policy.env_allow.iter().any(|n| n == "PATH").then(|| std::env::var_os("PATH")).flatten();
        let exec = match policy.stage {
            Some(_) => None,
            None => crate::shim::resolve(program, path.as_deref(), &policy.root, &elsewhere),
        };
        let fallback = !matches!(self.backend, Backend::Bwrap { .. });
        // The fallback hides the sealed folders by leaving them out of its read rules; under
        // bwrap they are a tmpfs and the shim's own hidden list is unused.
        let mut hidden = policy.unreadable.clone();
        let mut readable = Vec::new();
        if fallback {
            hidden.extend(policy.sealed.iter().cloned());
            readable = policy.sealed_readable.clone();
        }
        let shim = ShimPolicy {
            writable,
            hidden,
            readable,
            pinned: policy.state.clone(),
            fallback: !matches!(self.backend, Backend::Bwrap { .. }),
            no_network: !policy.network,
            bridge,
            start_fd,
            exec,
            #[cfg(target_os = "linux")]
            shelled: if fallback { shelled.clone() } else { Vec::new() },
            #[cfg(not(target_os = "linux"))]
            shelled: Vec::new(),
        };
        let shim_json = serde_json::to_string(&shim).map_err(|e| SandboxError::Seccomp(e.to_string()))?;
        crate::trace::phase("shim policy written");
        let mut guards = Guards { _placeholders: placeholders, ..Guards::default() };
        #[cfg(target_os = "linux")]
        {
            guards._layers = work;
            guards.shells = shells;
        }
        let mut own_line = None;
        let cmd = match &self.backend {
            #[cfg(target_os = "linux")]
            Backend::Bwrap { path } => {
                let mut fds = Vec::new();
                // The network namespace already cuts the network; loopback inside it stays usable.
                let prog = crate::seccomp::program(false).map_err(|e| SandboxError::Seccomp(e.to_string()))?;
                let fd = program_fd(&prog.bytes())?;
                fds.push(raw(&fd));
                guards.fds.push(fd);
                crate::trace::phase("seccomp program made");
                // Wicket's own namespaces carry out the same line (see `native`), in the shim,
                // which then runs in the sandbox it built: no bubblewrap, no second start.
                let own = own_namespaces();
                // The shim's program, and whether the sandbox hides its path (wicket under /tmp,
                // which becomes a fresh tmpfs, in a sealed home, or under a masked folder).
                let exe = crate::shim::program(&self.shim_exe);
                let shown = |p: &Path| {
                    policy.writable.iter().any(|w| p.starts_with(w) && !policy.private_temp.contains(w))
                        || policy.sealed_readable.iter().any(|r| p.starts_with(r))
                };
                let hidden = policy.private_temp.iter().chain(&policy.unreadable).any(|p| exe.starts_with(p))
                    || (policy.sealed.iter().any(|s| exe.starts_with(s)) && !shown(&exe));
                let mut c = if own {
                    let helper = &exe;
                    // Started after wicket's own user and mount namespace is entered (the
                    // layers and the masks), where its path may be masked and where root has no
                    // capability over the host's folders (another user's 0750 home): then by a
                    // descriptor opened now (closed on exec, which an ELF program survives).
                    let mut c = if !hidden && passable_without_capabilities(helper) {
                        Command::new(helper)
                    } else {
                        let file = std::fs::File::open(helper)
                            .map_err(|e| SandboxError::Spawn { what: helper.display().to_string(), source: e })?;
                        let fd = std::os::fd::OwnedFd::from(file);
                        let c = Command::new(format!("/proc/self/fd/{}", raw(&fd)));
                        guards.fds.push(fd);
                        c
                    };
                    c.arg(crate::NS_ARG);
                    c
                } else {
                    Command::new(path)
                };
                if policy.denied.iter().any(|d| std::fs::symlink_metadata(d).is_ok_and(|m| !m.is_dir())) {
                    guards.mask = Some(Mask::make()?);
                }
                // Each writable path is handed to bwrap as a descriptor opened now and checked
                // against the policy's real path: a link swapped in between cannot move it.
                let mut pinned = Vec::new();
                // A layered cache is bound by its path: in the namespace bwrap starts in, that
                // path is the overlay, not the host folder a descriptor opened here would name.
                let by_path = |w: &&PathBuf| policy.private_temp.contains(w) || layered.contains(w);
                for w in policy.writable.iter().filter(|w| !by_path(w)).chain(&policy.git_dirs) {
                    let fd = pin(w)?;
                    pinned.push((w.clone(), raw(&fd)));
                    guards.fds.push(fd);
                }
                // Under bubblewrap the shim is started by path inside the sandbox: where that
                // path is hidden there it is bound back, read-only. Nowhere else: a bind would
                // make the file a mount point that a build in the project could not replace.
                // As root, a folder on the way that only root's capabilities let it pass (another
                // user's 0750 home) cannot be passed in the sandbox, where root has none; and a
                // path the sandbox hides may be under a mask that a bind back would not survive
                // (wicket installed in a root-only folder): the shim is then started from a
                // descriptor opened here (`/proc/self/fd/N`, which needs no path), and the shim
                // closes it before the command starts.
                let by_fd = if own || (passable_without_capabilities(&exe) && !hidden) {
                    None
                } else {
                    let file = std::fs::File::open(&exe)
                        .map_err(|e| SandboxError::Spawn { what: exe.display().to_string(), source: e })?;
                    let fd = std::os::fd::OwnedFd::from(file);
                    rustix::io::fcntl_setfd(&fd, rustix::io::FdFlags::empty())
                        .map_err(|e| SandboxError::Seccomp(e.to_string()))?;
                    let path = PathBuf::from(format!("/proc/self/fd/{}", raw(&fd)));
                    guards.fds.push(fd);
                    Some(path)
                };
                let bind_back: Vec<PathBuf> =
                    if hidden && by_fd.is_none() && !own { vec![exe.clone()] } else { Vec::new() };
                // The masks go up in wicket's own namespace where one can be made (the overlay
                // trial says so), else bubblewrap makes them (also with WICKET_BWRAP_MASKS=1,
                // for comparisons and the tests of bubblewrap's own way).
                let state = policy.state_dir.clone().unwrap_or_else(crate::placeholders::default_state);
                let premask = std::env::var_os("WICKET_BWRAP_MASKS").is_none_or(|v| v != "1")
                    && crate::layers::available(&state).is_ok();
                let (bwrap_args, premasked) = crate::bwrap::line(
                    policy,
                    &fds,
                    &pinned,
                    guards.mask.as_ref().map(|m| m.socket.as_path()),
                    &bind_back,
                    &shelled,
                    premask,
                );
                // For benchmarks and bug reports: the bwrap command line with every mount in it
                // (as bubblewrap alone would make them), then what wicket mounted before it.
                if std::env::var_os("WICKET_PRINT_BWRAP").is_some() {
                    let (whole, _) = crate::bwrap::line(
                        policy,
                        &fds,
                        &pinned,
                        guards.mask.as_ref().map(|m| m.socket.as_path()),
                        &bind_back,
                        &shelled,
                        false,
                    );
                    let shown: Vec<String> = whole.iter().map(|a| a.to_string_lossy().into_owned()).collect();
                    eprintln!("wicket: bwrap {}", shown.join(" "));
                    let pre: Vec<String> = premasked.iter().map(|(p, _)| p.display().to_string()).collect();
                    eprintln!("wicket: masked before bubblewrap ({}): {}", pre.len(), pre.join(" "));
                }
                let mounts = crate::layers::premask(mounts, premasked)?;
                crate::trace::phase("bubblewrap's line made");
                c.args(bwrap_args);
                // The placeholders stay until bubblewrap's process 1, and so every process of
                // the sandbox, is gone (see `Lease::live_copy`); the command never gets it.
                if let Some(live) = guards._placeholders.as_ref().and_then(|l| l.live_copy()) {
                    c.arg("--sync-fd").arg(raw(&live).to_string());
                    guards.fds.push(live);
                }
                c.arg("--")
                    .arg(by_fd.as_ref().unwrap_or(&exe))
                    .arg(crate::SHIM_ARG)
                    .arg(&shim_json)
                    .arg(program)
                    .args(args);
                if own {
                    own_line = Some(OwnLine { mounts: mounts.clone() });
                }
                if let Some(mounts) = mounts {
                    // SAFETY: the closure runs in the forked child before exec; `enter` makes
                    // system calls only, on what `arrange` prepared, and allocates nothing.
                    unsafe {
                        use std::os::unix::process::CommandExt;
                        c.pre_exec(move || mounts.enter().map_err(std::io::Error::from_raw_os_error));
                    }
                }
                // bubblewrap's `--die-with-parent` is armed only once bubblewrap runs: a wicket
                // killed between the fork and that moment left the sandbox running (and holding
                // the placeholders' lease). Armed here, before exec and after the layers' user
                // namespace is entered (entering one clears it), it covers that window; a parent
                // already gone is seen by the pid check.
                let parent = std::process::id();
                // SAFETY: prctl, getppid and the error value only, in the forked child.
                unsafe {
                    use std::os::unix::process::CommandExt;
                    c.pre_exec(move || {
                        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                            return Err(std::io::Error::last_os_error());
                        }
                        if u32::try_from(libc::getppid()).ok() != Some(parent) {
                            return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
                        }
                        Ok(())
                    });
                }
                c
            }
            #[cfg(target_os = "linux")]
            Backend::Landlock { .. } => {
                // No bwrap: the walls go up in the child between fork and exec, so the command
                // starts directly (no shim exec). Everything is prepared here, before the fork.
                // The layered caches are granted by Landlock only once their overlays are
                // mounted (a rule names an inode, and the overlay's is not the host cache's).
                let mut shim = shim;
                shim.writable.retain(|w| !layered.contains(w));
                let prepared = crate::shim::prepare(&shim).map_err(SandboxError::Seccomp)?;
                let prepared = match mounts {
                    Some(m) => prepared.with_layers(m).map_err(SandboxError::Unavailable)?,
                    None => prepared,
                };
                // Where the machine gives no mount namespace these are not bound, and the
                // notice of what the fallback lacks (printed at each run) says so.
                let holes = crate::fallback::Holes::plan(policy).map_err(SandboxError::Seccomp)?;
                let prepared = prepared.with_holes(holes);
                crate::trace::phase("walls prepared");
                let slot = std::sync::Mutex::new(Some(prepared));
                let mut c = Command::new(program);
                c.args(args);
                c.env_clear();
                for name in &policy.env_allow {
                    if let Some(v) = std::env::var_os(name) {
                        c.env(name, v);
                    }
                }
                c.current_dir(&policy.root);
                // SAFETY: the closure runs in the forked child before exec; wicket has no
                // other thread at that point (the output threads start after the spawn), and
                // `apply` only makes the restricting system calls on what was prepared above.
                unsafe {
                    use std::os::unix::process::CommandExt;
                    c.pre_exec(move || {
                        let taken = slot.lock().ok().and_then(|mut g| g.take());
                        match taken {
                            Some(p) => {
                                p.apply().map_err(|e| std::io::Error::new(std::io::ErrorKind::PermissionDenied, e))
                            }
                            None => Err(std::io::Error::other("the sandbox was already applied")),
                        }
                    });
                }
                c
            }
            other => {
                return Err(SandboxError::Unavailable(format!("backend {} cannot run commands here", other.name())))
            }
        };
        Ok((cmd, guards, own_line))
    }
}

/// What the early helper needs besides the line when wicket's own namespaces carry it out (see
/// [`crate::early`]): the mounts of wicket's own namespace, made first.
#[cfg(target_os = "linux")]
struct OwnLine {
    mounts: Option<crate::layers::Mounts>,
}

#[cfg(not(target_os = "linux"))]
type OwnLine = ();

/// Whether the bubblewrap backend's line is carried out by wicket's own namespaces
/// ([`crate::native`]) instead of bubblewrap: where the probe found they work, unless
/// `WICKET_OWN_NAMESPACES=0` asks for bubblewrap (`=1` for them without the probe's word).
#[cfg(target_os = "linux")]
pub(crate) fn own_namespaces() -> bool {
    match std::env::var_os("WICKET_OWN_NAMESPACES") {
        Some(v) if v == "0" => false,
        Some(v) if v == "1" => true,
        _ => crate::probe::Probe::cached(None).own_namespaces.is_ok(),
    }
}

/// What must outlive a confined command: the seccomp program pipes, the mask for denied files,
/// the lease on the project's placeholders (dropped in this order after the command ends).
#[derive(Default)]
struct Guards {
    #[cfg(target_os = "linux")]
    mask: Option<Mask>,
    #[cfg(target_os = "linux")]
    fds: Vec<std::os::fd::OwnedFd>,
    /// Held for its `Drop`: this run's share of the project's placeholders, given up once
    /// the command has ended.
    _placeholders: Option<crate::placeholders::Lease>,
    /// Held for its `Drop`: the work folders of this run's cache overlays.
    #[cfg(target_os = "linux")]
    _layers: crate::layers::WorkDirs,
    /// The guarded folders' overlays, settled after the command (see [`crate::shells`]).
    #[cfg(target_os = "linux")]
    shells: Option<crate::shells::Shells>,
}

/// What [`Guards::settle`] leaves for the outcome: the held entries and what keeps them.
type SettledParts = (Vec<HeldEntry>, Vec<std::sync::Arc<dyn std::fmt::Debug + Send + Sync>>);

impl Guards {
    /// Once every process of the sandbox is gone: promote or hold what the command left in
    /// the guarded folders.
    fn settle(&mut self, policy: &ExecPolicy) -> SettledParts {
        #[cfg(target_os = "linux")]
        if let Some(shells) = self.shells.take() {
            let s = shells.settle(policy);
            let keep = s.left.into_iter().map(|l| l as std::sync::Arc<dyn std::fmt::Debug + Send + Sync>).collect();
            return (s.held, keep);
        }
        let _ = policy;
        (Vec::new(), Vec::new())
    }
}

impl std::fmt::Debug for Guards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Guards")
    }
}

/// A command started with [`Sandbox::spawn`] or [`spawn_on_host`]: its pipes, and the way
/// to end it so that nothing it started outlives it.
#[derive(Debug)]
pub struct Running {
    child: std::process::Child,
    guards: Guards,
    backend: &'static str,
    start: Instant,
    /// The policy of a sandboxed command, for the check after it (see [`crate::quarantine`]).
    watch: Option<ExecPolicy>,
    /// Signals to wicket reach the command's group while this is held (once the caller
    /// called [`crate::signals::forward`]).
    _tracked: crate::signals::Tracked,
}

impl Running {
    /// The command's standard input (once; `None` after it was taken).
    pub fn take_stdin(&mut self) -> Option<std::process::ChildStdin> {
        self.child.stdin.take()
    }

    /// The command's standard output (once; `None` after it was taken).
    pub fn take_stdout(&mut self) -> Option<std::process::ChildStdout> {
        self.child.stdout.take()
    }

    /// The process id of the command (of bwrap, under the bwrap backend).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The backend that confines it (`bwrap`, `landlock` or `host`).
    pub fn backend(&self) -> &'static str {
        self.backend
    }

    /// Ask the command's process group to stop (SIGTERM), or make it (SIGKILL when `hard`).
    pub fn signal(&self, hard: bool) {
        kill_group(self.child.id(), hard);
    }

    /// Has it ended? `Some(code)` once it has (reaped, but nothing else cleaned up yet).
    pub fn try_code(&mut self) -> Option<i32> {
        self.child.try_wait().ok().flatten().map(exit_code)
    }

    /// Wait for the command to end, then kill whatever it left behind; its exit code
    /// (128 + signal for a signal), how long it ran, and the new entries to hold for a person
    /// (see [`Outcome::held`]).
    pub fn wait(mut self) -> Result<(i32, Duration, Vec<std::path::PathBuf>), SandboxError> {
        drop(self.child.stdin.take());
        let status = self.child.wait()?;
        end_group(self.child.id());
        if self.backend != "bwrap" {
            reap_orphans();
        }
        // A long-running peer's entries in guarded folders stay in wicket's state: the next
        // run in the project holds them for a person (see `shells`).
        if let Some(policy) = &self.watch {
            drop(self.guards.settle(policy));
        }
        drop(self.guards);
        let held = self.watch.as_ref().map(|policy| crate::quarantine::after_run(policy).held).unwrap_or_default();
        Ok((exit_code(status), self.start.elapsed(), held))
    }
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    status.code().unwrap_or_else(|| {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            128 + status.signal().unwrap_or(0)
        }
        #[cfg(not(unix))]
        {
            1
        }
    })
}

/// Start a command on the host, unconfined (the person chose it), with its stdin and stdout
/// piped and stderr inherited: the counterpart of [`Sandbox::spawn`] for `--no-sandbox`.
pub fn spawn_on_host(policy: &ExecPolicy, argv: &[OsString]) -> Result<Running, SandboxError> {
    let Some((program, args)) = argv.split_first() else {
        return Err(SandboxError::Spawn {
            what: "an empty command".into(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "no program"),
        });
    };
    let mut c = Command::new(program);
    c.args(args).current_dir(&policy.root);
    spawn_piped(&mut c, Guards::default(), "host")
}

fn spawn_piped(cmd: &mut Command, guards: Guards, backend: &'static str) -> Result<Running, SandboxError> {
    own_group(cmd);
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
    let start = Instant::now();
    let child = cmd.spawn().map_err(|e| SandboxError::Spawn { what: format!("{:?}", cmd.get_program()), source: e })?;
    let tracked = crate::signals::track(child.id());
    Ok(Running { child, guards, backend, start, watch: None, _tracked: tracked })
}

/// Put the command in its own process group, and make wicket the subreaper of what it leaves.
fn own_group(cmd: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    #[cfg(target_os = "linux")]
    {
        // Orphans of the command are reparented to wicket, so they can be found and killed.
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    }
}

/// Run a command on the host, unconfined (the person chose it): wicket's environment, the
/// same output caps and timeout.
pub fn run_on_host(policy: &ExecPolicy, argv: &[OsString], opts: &RunOptions) -> Result<Outcome, SandboxError> {
    let Some((program, args)) = argv.split_first() else {
        return Err(SandboxError::Spawn {
            what: "an empty command".into(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "no program"),
        });
    };
    // On Linux the command runs under wicket's supervisor (see [`crate::supervise`]), which
    // kills the command's whole tree when wicket is killed outright (KILL cannot be passed
    // on); the supervisor gets its death signal from this thread, which waits for the run.
    let mut c = match &opts.supervisor {
        #[cfg(target_os = "linux")]
        Some(wicket) => {
            let mut c = Command::new(crate::shim::program(wicket));
            c.arg(crate::SUPERVISE_ARG).arg(std::process::id().to_string()).arg(program);
            c
        }
        _ => Command::new(program),
    };
    c.args(args).current_dir(&policy.root);
    #[cfg(target_os = "linux")]
    {
        let parent = std::process::id();
        let death = if opts.supervisor.is_some() { crate::supervise::DEATH_SIGNAL } else { libc::SIGKILL };
        // SAFETY: prctl, getppid and the error value only, in the forked child.
        unsafe {
            use std::os::unix::process::CommandExt;
            c.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, death as libc::c_ulong, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if u32::try_from(libc::getppid()).ok() != Some(parent) {
                    return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
    }
    spawn_and_wait(&mut c, policy, opts, "host", None)
}

#[cfg(target_os = "linux")]
/// Can every folder on the way to `exe` be passed without capabilities by this process's
/// user and group? Always for a user (who reached it without any); as root, a folder whose
/// search bits let neither root as its owner, nor root's group, nor others pass, is passed
/// only by `CAP_DAC_OVERRIDE`, which the sandbox drops.
#[cfg(target_os = "linux")]
fn passable_without_capabilities(exe: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let uid = rustix::process::geteuid().as_raw();
    if uid != 0 {
        return true;
    }
    let gid = rustix::process::getegid().as_raw();
    exe.ancestors().skip(1).all(|dir| match std::fs::metadata(dir) {
        Ok(m) => {
            let mode = m.mode();
            (m.uid() == uid && mode & 0o100 != 0) || (m.gid() == gid && mode & 0o010 != 0) || mode & 0o001 != 0
        }
        Err(_) => false,
    })
}

fn raw(fd: &std::os::fd::OwnedFd) -> i32 {
    use std::os::fd::AsRawFd;
    fd.as_raw_fd()
}

/// Open `path` without following a final link, check that the descriptor names exactly
/// `path` (no link on the way moved it), and make it inheritable for bwrap's `--bind-fd`
/// (bwrap closes it once bound, so the command never holds it).
#[cfg(target_os = "linux")]
fn pin(path: &Path) -> Result<std::os::fd::OwnedFd, SandboxError> {
    use rustix::fs::{Mode, OFlags};
    let err = |e: std::io::Error| SandboxError::Placeholder { path: path.to_path_buf(), source: e };
    let fd = rustix::fs::open(path, OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())
        .map_err(|e| err(e.into()))?;
    let named = rustix::fs::readlink(format!("/proc/self/fd/{}", raw(&fd)), Vec::new()).map_err(|e| err(e.into()))?;
    if named.as_bytes() != path.as_os_str().as_encoded_bytes() {
        return Err(err(std::io::Error::other(format!(
            "it now leads to {} (a link changed while the sandbox was built)",
            String::from_utf8_lossy(named.as_bytes())
        ))));
    }
    rustix::io::fcntl_setfd(&fd, rustix::io::FdFlags::empty()).map_err(|e| err(e.into()))?;
    Ok(fd)
}

/// A pipe holding the filter bytes, its read end inheritable (bwrap reads it to the end).
#[cfg(target_os = "linux")]
fn program_fd(bytes: &[u8]) -> Result<std::os::fd::OwnedFd, SandboxError> {
    let (r, w) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
        .map_err(|e| SandboxError::Seccomp(format!("pipe: {e}")))?;
    let mut file = std::fs::File::from(w);
    file.write_all(bytes).map_err(|e| SandboxError::Seccomp(format!("writing the filter: {e}")))?;
    drop(file);
    rustix::io::fcntl_setfd(&r, rustix::io::FdFlags::empty()).map_err(|e| SandboxError::Seccomp(e.to_string()))?;
    Ok(r)
}

fn spawn_and_wait(
    cmd: &mut Command,
    policy: &ExecPolicy,
    opts: &RunOptions,
    backend: &'static str,
    after_spawn: Option<AfterSpawn<'_>>,
) -> Result<Outcome, SandboxError> {
    let start = Instant::now();
    let spawned = spawn_io(cmd, policy.output_cap, opts, backend)?;
    finish(spawned, policy.timeout, after_spawn, start)
}

/// A process of the sandbox that wicket waits for: one it spawned, or the early helper it
/// forked (see `early`).
pub(crate) enum Proc {
    Spawned(std::process::Child),
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Forked {
        pid: libc::pid_t,
        status: Option<std::process::ExitStatus>,
        /// The socket on which the helper says the sandbox's status before it exits (its exit
        /// is then off the command's path); none once read.
        says: Option<std::os::unix::net::UnixStream>,
        /// Whether the helper has been waited for (not yet when its status came on `says`).
        reaped: bool,
    },
}

impl Proc {
    /// The child `pid` of this process, made by a fork, which says its status on `says`.
    #[cfg(target_os = "linux")]
    pub(crate) fn forked(pid: libc::pid_t, says: Option<std::os::unix::net::UnixStream>) -> Proc {
        Proc::Forked { pid, status: None, says, reaped: false }
    }

    fn id(&self) -> u32 {
        match self {
            Proc::Spawned(c) => c.id(),
            Proc::Forked { pid, .. } => *pid as u32,
        }
    }

    /// Its exit status, waiting for it (for the helper: for the status it says, or its end).
    pub(crate) fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
        use std::os::unix::process::ExitStatusExt;
        match self {
            Proc::Spawned(c) => c.wait(),
            Proc::Forked { pid, status, says, reaped } => loop {
                if let Some(s) = status {
                    return Ok(*s);
                }
                if let Some(mut sock) = says.take() {
                    let mut code = [0u8; 4];
                    if std::io::Read::read_exact(&mut sock, &mut code).is_ok() {
                        // As the helper's `_exit` with that code would report it.
                        let code = i32::from_ne_bytes(code) & 0xff;
                        *status = Some(std::process::ExitStatus::from_raw(code << 8));
                        continue;
                    }
                }
                *status = Self::reap(*pid, 0)?;
                *reaped = true;
            },
        }
    }

    /// Its exit status if it has ended.
    fn try_wait(&mut self) -> std::io::Result<Option<std::process::ExitStatus>> {
        match self {
            Proc::Spawned(c) => c.try_wait(),
            Proc::Forked { pid, status, reaped, .. } => {
                if status.is_none() {
                    *status = Self::reap(*pid, libc::WNOHANG)?;
                    *reaped = status.is_some();
                }
                Ok(*status)
            }
        }
    }

    /// Whether its status is known but the process itself not yet waited for (the helper
    /// said it and is ending).
    fn ending(&self) -> bool {
        matches!(self, Proc::Forked { status: Some(_), reaped: false, .. })
    }

    /// `waitpid` with `flags`, again when interrupted: `None` when it is still running.
    fn reap(pid: libc::pid_t, flags: libc::c_int) -> std::io::Result<Option<std::process::ExitStatus>> {
        use std::os::unix::process::ExitStatusExt;
        loop {
            let mut raw = 0;
            // SAFETY: waitpid on our own child with a status out-parameter on the stack.
            let r = unsafe { libc::waitpid(pid, &mut raw, flags) };
            if r == pid {
                return Ok(Some(std::process::ExitStatus::from_raw(raw)));
            }
            if r == 0 {
                return Ok(None);
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}

/// A command spawned with its output captured by two threads.
struct Spawned {
    child: Proc,
    out_t: std::thread::JoinHandle<Captured>,
    err_t: std::thread::JoinHandle<Captured>,
    backend: &'static str,
    /// Signals to wicket reach the command's group while this is held.
    _tracked: crate::signals::Tracked,
}

fn spawn_io(cmd: &mut Command, cap: usize, opts: &RunOptions, backend: &'static str) -> Result<Spawned, SandboxError> {
    own_group(cmd);
    cmd.stdin(if opts.inherit_stdin { Stdio::inherit() } else { Stdio::null() });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    not_interrupted(&format!("{:?}", cmd.get_program()))?;
    let mut child =
        cmd.spawn().map_err(|e| SandboxError::Spawn { what: format!("{:?}", cmd.get_program()), source: e })?;
    crate::trace::phase("spawned");
    let out_pipe = child.stdout.take();
    let err_pipe = child.stderr.take();
    captured(Proc::Spawned(child), out_pipe, err_pipe, cap, opts, backend)
}

/// An error when wicket got a signal before the command started.
fn not_interrupted(what: &str) -> Result<(), SandboxError> {
    match crate::signals::received() {
        Some(sig) => Err(SandboxError::Spawn {
            what: what.to_string(),
            source: std::io::Error::other(format!("wicket was interrupted (signal {sig}) before the command started")),
        }),
        None => Ok(()),
    }
}

/// Hand the line of `cmd` (wicket's own namespaces) to the early helper: the sandbox is built
/// by it instead of a shim started now. An error when it cannot be handed over (the helper is
/// then reaped, and the caller starts the shim).
#[cfg(target_os = "linux")]
fn launch_early(
    early: crate::early::Early,
    cmd: &Command,
    own: OwnLine,
    cap: usize,
    opts: &RunOptions,
    backend: &'static str,
) -> Result<Spawned, String> {
    if let Err(e) = not_interrupted("the sandbox") {
        crate::early::discard(early);
        return Err(e.to_string());
    }
    let args: Vec<OsString> = cmd.get_args().skip(1).map(|a| a.to_os_string()).collect();
    let (child, out, err) = early.launch(args, own.mounts, !opts.inherit_stdin)?;
    crate::trace::phase("spawned");
    captured(child, out, err, cap, opts, backend).map_err(|e| e.to_string())
}

/// `child` with two threads capturing its output (and passing it on when asked).
fn captured(
    mut child: Proc,
    out_pipe: Option<impl std::io::Read + Send + 'static>,
    err_pipe: Option<impl std::io::Read + Send + 'static>,
    cap: usize,
    opts: &RunOptions,
    backend: &'static str,
) -> Result<Spawned, SandboxError> {
    let tracked = crate::signals::track(child.id());
    let passthrough = opts.passthrough;
    // The capture threads need little stack (a 16 KiB buffer); a small one is cheaper to map.
    let small = || std::thread::Builder::new().stack_size(256 * 1024);
    let out_t = spawn_capture(small(), move || match out_pipe {
        Some(p) => {
            let mut o = std::io::stdout();
            capture(p, cap, passthrough.then_some(&mut o as &mut dyn Write))
        }
        None => Captured::default(),
    });
    let err_t = spawn_capture(small(), move || match err_pipe {
        Some(p) => {
            let mut e = std::io::stderr();
            capture(p, cap, passthrough.then_some(&mut e as &mut dyn Write))
        }
        None => Captured::default(),
    });
    match (out_t, err_t) {
        (Ok(out_t), Ok(err_t)) => Ok(Spawned { child, out_t, err_t, backend, _tracked: tracked }),
        (Err(e), _) | (_, Err(e)) => {
            // Nobody would read its output: the command must not run on.
            kill_group(child.id(), true);
            let _ = child.wait();
            end_group(child.id());
            Err(e)
        }
    }
}

fn spawn_capture(
    b: std::thread::Builder,
    f: impl FnOnce() -> Captured + Send + 'static,
) -> Result<std::thread::JoinHandle<Captured>, SandboxError> {
    b.spawn(f).map_err(|e| SandboxError::Spawn { what: "an output thread".into(), source: e })
}

/// Wait for a spawned command (stopping it at the timeout), clean up what it left, and
/// gather its output.
fn finish(
    spawned: Spawned,
    timeout: Option<Duration>,
    after_spawn: Option<AfterSpawn<'_>>,
    start: Instant,
) -> Result<Outcome, SandboxError> {
    let Spawned { mut child, out_t, err_t, backend, _tracked } = spawned;
    let pid = child.id();
    // A failed bridge is reported; the shim then refuses to start the command (fail closed).
    if let Some(hook) = after_spawn {
        if let Err(e) = hook() {
            eprintln!("wicket: the network proxy could not be connected to the sandbox: {e}");
        }
    }
    let mut timed_out = false;
    let status = match timeout {
        // No timeout: this thread waits (one thread fewer to start on every run).
        None => child.wait()?,
        // A thread waits for the command; this one waits for that thread, so the command's
        // end is seen at once and the timeout needs no polling.
        Some(limit) => {
            let (tx, rx) = std::sync::mpsc::channel();
            let waiter = std::thread::spawn(move || {
                let status = child.wait();
                let _ = tx.send(());
                (status, child)
            });
            if rx.recv_timeout(limit).is_err() {
                timed_out = true;
                kill_group(pid, false);
                if rx.recv_timeout(Duration::from_secs(2)).is_err() {
                    kill_group(pid, true);
                }
            }
            let (status, back) = waiter.join().map_err(|_| std::io::Error::other("the waiting thread panicked"))?;
            child = back;
            status?
        }
    };
    crate::trace::phase("command ended");
    // The command is done: nothing it started may stay. Under bwrap its pid namespace is gone
    // already, once its process 1 is (see `end_group`); without it, orphans were reparented to
    // wicket (the subreaper). The early helper that said the status is still ending (every
    // process of the sandbox is gone, and it runs nothing more): it is reaped once it has.
    if child.ending() {
        reap_when_ended(pid);
    } else {
        end_group(pid);
    }
    if backend != "bwrap" {
        reap_orphans();
    }
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    let code = if timed_out { 124 } else { exit_code(status) };
    Ok(Outcome {
        code,
        stdout,
        stderr,
        timed_out,
        duration: start.elapsed(),
        backend,
        moved_aside: Vec::new(),
        held: Vec::new(),
        held_entries: Vec::new(),
        keep_until_held: Vec::new(),
        never_started: false,
    })
}

/// What [`Sandbox::start`] built ahead of the decision.
enum Ahead {
    /// bwrap is up (or coming up); the shim says ready and waits for go on the socket whose
    /// other end this is.
    Spawned(Spawned, std::os::unix::net::UnixStream),
    /// Nothing to build ahead: the command is spawned at go.
    Deferred(Box<Command>, usize, RunOptions, &'static str),
}

/// A sandbox started by [`Sandbox::start`], waiting for the decision.
pub struct Started {
    state: Option<Ahead>,
    /// Held for its `Drop`, which runs after the sandbox is gone.
    _guards: Guards,
    timeout: Option<Duration>,
    /// For the check after the command (see [`crate::quarantine`]).
    policy: ExecPolicy,
}

impl std::fmt::Debug for Started {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Started")
    }
}

impl Started {
    /// The call is allowed: let the command start, wait for it, and clean up. The timeout
    /// and the duration count from here.
    pub fn go(mut self) -> Result<Outcome, SandboxError> {
        let start = Instant::now();
        let result = match self.state.take() {
            Some(Ahead::Spawned(spawned, mut go)) => {
                // A shim that is gone already ends the run as its exit status says.
                let _ = go.write_all(&[crate::shim::GO]);
                let _ = go.shutdown(std::net::Shutdown::Write);
                let outcome = finish(spawned, self.timeout, None, start);
                // The shim's ready byte waits unread on our end: none means bubblewrap failed
                // before the shim ran, so the command never started.
                let mut byte = [0u8; 1];
                let ready = go.set_nonblocking(true).is_ok()
                    && matches!(std::io::Read::read(&mut go, &mut byte), Ok(1) if byte[0] == crate::shim::READY);
                outcome.map(|o| Outcome { never_started: !ready, ..o })
            }
            Some(Ahead::Deferred(mut cmd, cap, opts, backend)) => {
                spawn_io(&mut cmd, cap, &opts, backend).and_then(|s| finish(s, self.timeout, None, start))
            }
            None => return Err(SandboxError::Unavailable("the sandbox was already used".into())),
        };
        crate::trace::phase("output closed");
        let settled = self._guards.settle(&self.policy);
        crate::trace::phase("guarded folders settled");
        let after = crate::quarantine::after_run(&self.policy);
        crate::trace::phase("checked for new repositories");
        result.map(|o| Outcome {
            moved_aside: after.moved,
            held: after.held,
            held_entries: settled.0,
            keep_until_held: settled.1,
            ..o
        })
    }
}

impl Drop for Started {
    /// Not allowed (or not used): the shim sees the pipe close and ends without running the
    /// command; whatever is left of the sandbox is killed and reaped.
    fn drop(&mut self) {
        if let Some(Ahead::Spawned(spawned, go)) = self.state.take() {
            drop(go);
            let Spawned { mut child, out_t, err_t, .. } = spawned;
            // The shim ends by itself once it sees the pipe close; waiting for that (a few ms,
            // on a refusal only) rather than killing at once means a shim that ignored the
            // pipe would be caught by the tests instead of hidden by the kill.
            let deadline = Instant::now() + Duration::from_secs(2);
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            kill_group(child.id(), true);
            let _ = child.wait();
            end_group(child.id());
            let _ = out_t.join();
            let _ = err_t.join();
        }
    }
}

/// Early helpers that said their sandbox's status and were still ending when their run was
/// over (see [`reap_ended`]).
static ENDING: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

/// Reap the early helper `pid` if it has ended, else leave it to [`reap_ended`]. It said the
/// sandbox's status once every process of the sandbox was gone and runs nothing more, but its
/// exit takes a millisecond or more (the kernel tears down its mount namespace, an RCU grace
/// period for each overlay): waiting for it would put that on every run's path.
fn reap_when_ended(pid: u32) {
    let ended = i32::try_from(pid).map_or(true, |p| !matches!(Proc::reap(p, libc::WNOHANG), Ok(None)));
    if !ended {
        if let Ok(mut ending) = ENDING.lock() {
            ending.push(pid);
        }
    }
}

/// Reap the early helpers of earlier runs that have ended since, without waiting (a run does
/// not wait for its helper's own exit, which comes after the sandbox's status): a process that
/// runs sandboxes again and again keeps no zombie for long, and one that exits leaves an ending
/// helper to the system's reaper.
pub fn reap_ended() {
    let Ok(mut ending) = ENDING.lock() else { return };
    ending.retain(|pid| i32::try_from(*pid).is_ok_and(|p| matches!(Proc::reap(p, libc::WNOHANG), Ok(None))));
}

/// Signal the command's process group (SIGTERM, or SIGKILL when `hard`).
fn kill_group(pid: u32, hard: bool) {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{kill_process_group, Pid, Signal};
        if let Some(p) = Pid::from_raw(pid as i32) {
            let _ = kill_process_group(p, if hard { Signal::KILL } else { Signal::TERM });
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pid, hard);
    }
}

/// Kill what is left of the command's process group, and reap the members that are now
/// wicket's children, before the run's guards go. Under bwrap that is its process 1 (the
/// sandbox's init): bwrap's outer process returns as soon as the command has ended, while
/// process 1, which holds the run's share of the placeholders (`--sync-fd`), may still be
/// exiting; it is reparented to wicket (the subreaper) at that moment. Were the lease given up
/// before it is gone, the run would not find itself the last one out and would leave the
/// placeholders to the keeper, after wicket has returned. Bounded: a process stuck in the
/// kernel only leaves the cleaning to the keeper.
fn end_group(pid: u32) {
    kill_group(pid, true);
    #[cfg(target_os = "linux")]
    {
        let Ok(group) = i32::try_from(pid) else { return };
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let mut status = 0;
            // SAFETY: waitpid with a process group and a status out-parameter on the stack.
            let got = unsafe { libc::waitpid(-group, &mut status, libc::WNOHANG) };
            match got {
                // One reaped: look for the next.
                p if p > 0 => continue,
                // Members left that have not ended yet.
                0 if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
                -1 if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
                // None left (ECHILD), or given up.
                _ => return,
            }
        }
    }
}

/// Kill and reap every child left (orphans reparented to wicket as subreaper), found through
/// `/proc/self/task/*/children` rather than a scan of every process. Also the host
/// supervisor's end (see [`crate::supervise`]).
pub(crate) fn reap_orphans() {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{kill_process, Pid, Signal};
        // Until none is left: each round kills the children, whose own children then become
        // wicket's (a daemon chain is as deep as it likes); bounded, so a fork bomb that
        // outruns the kills cannot hold wicket forever.
        for _ in 0..10_000 {
            let mut found = false;
            let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return };
            for t in tasks.flatten() {
                let Ok(list) = std::fs::read_to_string(t.path().join("children")) else { continue };
                let spared = SPARED.lock().map(|v| v.clone()).unwrap_or_default();
                for pid in list.split_whitespace().filter_map(|p| p.parse::<i32>().ok()) {
                    if spared.contains(&(pid as u32)) {
                        continue;
                    }
                    if let Some(p) = Pid::from_raw(pid) {
                        found = true;
                        let _ = kill_process(p, Signal::KILL);
                        let _ = rustix::process::waitpid(Some(p), rustix::process::WaitOptions::empty());
                    }
                }
            }
            if !found {
                return;
            }
        }
    }
}

/// A socket file with no listener, in a fresh private folder, bound over denied files: any
/// `open` of it fails. Removed after the run.
#[cfg(target_os = "linux")]
struct Mask {
    dir: PathBuf,
    socket: PathBuf,
}

#[cfg(target_os = "linux")]
impl Mask {
    fn make() -> Result<Mask, SandboxError> {
        use std::os::unix::fs::DirBuilderExt;
        let err = |path: &Path, source| SandboxError::Placeholder { path: path.to_path_buf(), source };
        // A fresh folder (create fails if the name is taken, so nobody can plant one).
        let mut attempt = 0u32;
        let dir = loop {
            let nanos =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
            let dir = std::env::temp_dir().join(format!("wicket-mask-{}-{nanos:08x}-{attempt}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => break dir,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 16 => attempt += 1,
                Err(e) => return Err(err(&dir, e)),
            }
        };
        let socket = dir.join("denied");
        match std::os::unix::net::UnixListener::bind(&socket) {
            Ok(listener) => drop(listener),
            Err(e) => {
                let _ = std::fs::remove_dir(&dir);
                return Err(err(&socket, e));
            }
        }
        Ok(Mask { dir, socket })
    }
}

#[cfg(target_os = "linux")]
impl Drop for Mask {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Take this run's share of the project's placeholders (see [`crate::placeholders`]): every
/// protected path that must exist for the run, and every path that must not appear.
fn lease(policy: &ExecPolicy, exe: &Path) -> Result<Option<crate::placeholders::Lease>, SandboxError> {
    use crate::placeholders::Kind;
    let mut wanted: Vec<(PathBuf, Kind)> = Vec::new();
    for p in &policy.placeholders {
        // In the work tree a placeholder is always an empty folder, also for a file's name
        // (`CLAUDE.md`, `.mcp.json`): git never sees an empty folder, so a `git add -A` inside
        // cannot commit one. Inside a git folder a file stays a file (git reads an empty
        // `config` as none, but fails on a folder).
        let in_git = policy.git_dirs.iter().any(|g| p.starts_with(g));
        let dir = !in_git || policy.read_only.iter().any(|(q, d)| q == p && *d);
        wanted.push((p.clone(), if dir { Kind::Dir } else { Kind::File }));
    }
    wanted.extend(policy.must_not_appear.iter().map(|p| (p.clone(), Kind::Absent)));
    if wanted.is_empty() {
        return Ok(None);
    }
    let state = policy.state_dir.clone().unwrap_or_else(crate::placeholders::default_state);
    let dir = crate::placeholders::runs_dir(&state, &policy.root);
    crate::placeholders::acquire(&dir, &wanted, exe).map(Some)
}

/// Processes of wicket's own that outlive runs (placeholder keepers): never reaped as orphans.
static SPARED: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

/// Keep `pid` (a keeper wicket started) out of the orphan reaping.
pub(crate) fn spare(pid: u32) {
    if let Ok(mut v) = SPARED.lock() {
        v.push(pid);
    }
}

/// `pid` has ended and was reaped: its number may be reused by an orphan.
pub(crate) fn unspare(pid: u32) {
    if let Ok(mut v) = SPARED.lock() {
        v.retain(|p| *p != pid);
    }
}
