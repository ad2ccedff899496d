//! `wicket doctor`: which sandbox backends work here, what each isolates, and what to install
//! or change. Exits non-zero when the configured executor cannot run.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use wicket::config::{self, Placement};
use wicket_sandbox::{Backend, Probe};

/// The flags of `wicket doctor`.
#[derive(Args)]
pub struct DoctorArgs {
    /// The project root whose settings choose the executor (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

fn isolates(b: &Backend) -> &'static str {
    match b {
        Backend::Bwrap { .. } => {
            "user, pid, net, ipc and uts namespaces; read-only / with the project, temp and caches writable; \
read-only git hooks, git config and agent/editor config; home secrets, wicket's own state and (as root) root-only \
system files masked; no capabilities; only stdio inherited; seccomp (no Unix, vsock, packet or non-route netlink \
sockets); Landlock inside"
        }
        Backend::Landlock { .. } => {
            "Landlock file rules (writes only in the project, temp and caches; secrets, wicket's own state and (as root) \
root-only system files unreadable), signal and abstract-socket scoping, seccomp (no sockets), no capabilities and \
an empty bounding set, only stdio inherited, death with wicket; where root or user namespaces allow: own pid, \
mount, ipc, uts and net namespaces with a fresh /proc and /dev/shm"
        }
        Backend::Seatbelt => {
            "the Seatbelt profile: writes only in the project, temp and caches; secrets unreadable; no network"
        }
        Backend::None => "nothing",
    }
}

/// Print the report; the exit status says whether commands can run as configured.
pub fn doctor(args: &DoctorArgs) -> Result<ExitCode> {
    let root = match &args.root {
        Some(r) => r.clone(),
        None => std::env::current_dir().context("cannot read the current folder")?,
    };
    let probe = Probe::run();
    println!("kernel: {}", probe.kernel);
    match (&probe.bwrap_path, &probe.bwrap_version) {
        (Some(p), v) => println!("bubblewrap: {} ({})", p.display(), v.as_deref().unwrap_or("version unknown")),
        (None, _) => println!(
            "bubblewrap: not installed (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
        ),
    }
    match &probe.bwrap_works {
        Ok(()) => println!("  namespaces: user, pid, net, ipc, uts work"),
        Err(e) => println!(
            "  namespaces: do not work: {e}\n  fix: allow unprivileged user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1, \
or on Ubuntu 24.04+ an AppArmor profile for bwrap), or install bwrap setuid"
        ),
    }
    if probe.landlock_abi > 0 {
        println!("Landlock: ABI {}", probe.landlock_abi);
    } else {
        println!("Landlock: not available (needs Linux 5.13+ with lsm=landlock)");
    }
    println!("seccomp: {}", if probe.seccomp { "available" } else { "not available" });
    println!("best backend: {}: {}", probe.backend.name(), isolates(&probe.backend));
    // A bwrap found on PATH that is not the trusted one is never run; say so.
    if let Some(on_path) = wicket_sandbox::probe::which("bwrap") {
        let trusted = probe.bwrap_path.as_ref().and_then(|p| std::fs::canonicalize(p).ok());
        if std::fs::canonicalize(&on_path).ok() != trusted {
            println!(
                "  note: {} (first on PATH) is not used: helpers come only from {} (owned by root)",
                on_path.display(),
                wicket_sandbox::probe::TRUSTED_DIRS.join(", ")
            );
        }
    }
    #[cfg(target_os = "linux")]
    println!(
        "fallback namespaces (pid, mount, ipc, uts, net without bubblewrap): {}",
        if wicket_sandbox::fallback::namespaces_work() {
            "available"
        } else {
            "not available (neither root nor user namespaces)"
        }
    );
    for m in probe.backend.missing() {
        println!("  missing: {m}");
    }
    let loaded = config::load(&root)?;
    // Refresh the cached probe the other commands read.
    let _ = config::probe();
    match config::placement(&loaded, false) {
        Ok(Placement::Sandbox(b)) => {
            println!("commands run: in the OS sandbox ({})", b.name());
            Ok(ExitCode::SUCCESS)
        }
        Ok(Placement::Host(why)) => {
            println!("commands run: on the host ({why})");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            println!("commands cannot run as configured: {e}");
            Ok(ExitCode::from(1))
        }
    }
}
