//! Which sandbox backends work on this machine, found once and cached.
//!
//! The hard question: can we really confine a command here, and how? Every probe runs with a
//! timeout; a probe that hangs or fails counts as "not available", never as "available".

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a probe may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The confinement a command gets.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Backend {
    /// bubblewrap namespaces + seccomp + Landlock (Linux).
    Bwrap {
        /// The bwrap binary.
        path: PathBuf,
    },
    /// Landlock + seccomp in wicket's own process (Linux without usable bwrap).
    Landlock {
        /// The kernel's Landlock ABI.
        abi: u32,
    },
    /// The macOS Seatbelt profile (`sandbox-exec`).
    Seatbelt,
    /// No OS sandbox.
    None,
}

impl Backend {
    /// A short name (`bwrap`, `landlock`, `seatbelt`, `none`).
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Bwrap { .. } => "bwrap",
            Backend::Landlock { .. } => "landlock",
            Backend::Seatbelt => "seatbelt",
            Backend::None => "none",
        }
    }

    /// True when commands are confined.
    pub fn confines(&self) -> bool {
        !matches!(self, Backend::None)
    }

    /// What isolation this backend lacks, said plainly (empty for the full sandbox).
    pub fn missing(&self) -> Vec<&'static str> {
        match self {
            Backend::Bwrap { .. } | Backend::Seatbelt => Vec::new(),
            Backend::Landlock { .. } => vec![
                "no pid, ipc or uts namespace: the command sees the machine's other processes (Landlock still blocks signals to them)",
                "read-only holes inside the project (.git/hooks, .git/config, .wicket, editor and agent config) are not enforced",
                "secrets are hidden by Landlock read rules, not masked",
                "the network is blocked by seccomp (no sockets), not by a network namespace",
            ],
            Backend::None => vec!["no OS sandbox at all: commands run on the host with your full rights"],
        }
    }
}

/// What the probes found, for `wicket doctor`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Probe {
    /// The best backend that works.
    pub backend: Backend,
    /// The bwrap binary, if on PATH.
    pub bwrap_path: Option<PathBuf>,
    /// `bwrap --version`, if it ran.
    pub bwrap_version: Option<String>,
    /// Whether bwrap could create user, pid, net, ipc and uts namespaces (and why not).
    pub bwrap_works: Result<(), String>,
    /// The kernel's Landlock ABI (0: none).
    pub landlock_abi: u32,
    /// Whether the kernel offers seccomp filters.
    pub seccomp: bool,
    /// The kernel release the probe ran on.
    pub kernel: String,
}

/// Find a program on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths).map(|d| d.join(name)).find(|p| p.is_file())
}

/// Run a command with a timeout; `Ok(stdout)` when it exits 0.
fn run_with_timeout(cmd: &mut Command, timeout: Duration) -> Result<String, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("did not finish within {} s", timeout.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => return Err(format!("cannot wait: {e}")),
        }
    }
    let out = child.wait_with_output().map_err(|e| format!("cannot read its output: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
        Err(if err.is_empty() { format!("exited with {}", out.status) } else { err })
    }
}

/// The kernel's Landlock ABI version (0 when Landlock is missing or disabled).
pub fn landlock_abi() -> u32 {
    #[cfg(target_os = "linux")]
    {
        // landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
        // SAFETY: with a null attribute and the VERSION flag, the call only returns a number.
        let v = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, 1u32) };
        if v > 0 {
            return v as u32;
        }
    }
    0
}

fn kernel_release() -> String {
    #[cfg(target_os = "linux")]
    {
        rustix::system::uname().release().to_string_lossy().into_owned()
    }
    #[cfg(not(target_os = "linux"))]
    {
        String::new()
    }
}

impl Probe {
    /// Probe this machine now.
    pub fn run() -> Probe {
        let kernel = kernel_release();
        if cfg!(target_os = "macos") {
            let ok = Path::new("/usr/bin/sandbox-exec").is_file();
            return Probe {
                backend: if ok { Backend::Seatbelt } else { Backend::None },
                bwrap_path: None,
                bwrap_version: None,
                bwrap_works: Err("bubblewrap is Linux only".into()),
                landlock_abi: 0,
                seccomp: false,
                kernel,
            };
        }
        let bwrap_path = which("bwrap");
        let bwrap_version =
            bwrap_path.as_ref().and_then(|b| run_with_timeout(Command::new(b).arg("--version"), PROBE_TIMEOUT).ok());
        let bwrap_works = match &bwrap_path {
            None => Err("bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)".to_string()),
            Some(b) => run_with_timeout(
                Command::new(b).args([
                    "--unshare-user",
                    "--unshare-pid",
                    "--unshare-net",
                    "--unshare-ipc",
                    "--unshare-uts",
                    "--die-with-parent",
                    "--ro-bind",
                    "/",
                    "/",
                    "--dev",
                    "/dev",
                    "--proc",
                    "/proc",
                    "true",
                ]),
                PROBE_TIMEOUT,
            )
            .map(|_| ()),
        };
        let landlock_abi = landlock_abi();
        let seccomp = Path::new("/proc/sys/kernel/seccomp/actions_avail").exists();
        // WICKET_SANDBOX_BACKEND=landlock forces the fallback (to test it, or where bwrap
        // misbehaves); it can only lower the isolation, never claim more.
        let force_landlock = std::env::var("WICKET_SANDBOX_BACKEND").is_ok_and(|v| v == "landlock");
        let backend = match (&bwrap_path, &bwrap_works) {
            (Some(p), Ok(())) if seccomp && !force_landlock => Backend::Bwrap { path: p.clone() },
            _ if landlock_abi >= 1 && seccomp => Backend::Landlock { abi: landlock_abi },
            _ => Backend::None,
        };
        Probe { backend, bwrap_path, bwrap_version, bwrap_works, landlock_abi, seccomp, kernel }
    }

    /// The probe from `cache` when it was made for this kernel and this bwrap binary, else a
    /// new probe (written back to `cache`; a failed write only costs the next probe).
    pub fn cached(cache: Option<&Path>) -> Probe {
        static ONCE: std::sync::OnceLock<Probe> = std::sync::OnceLock::new();
        ONCE.get_or_init(|| {
            let key = cache_key();
            if let Some(file) = cache {
                if let Ok(text) = std::fs::read_to_string(file) {
                    if let Ok((k, p)) = serde_json::from_str::<(String, Probe)>(&text) {
                        if k == key {
                            return p;
                        }
                    }
                }
            }
            let p = Probe::run();
            if let Some(file) = cache {
                if let (Some(dir), Ok(text)) = (file.parent(), serde_json::to_string(&(key, &p))) {
                    let _ = std::fs::create_dir_all(dir);
                    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
                    if std::fs::write(&tmp, text).is_ok() {
                        let _ = std::fs::rename(&tmp, file);
                    }
                }
            }
            p
        })
        .clone()
    }
}

/// What a cached probe depends on: the kernel, the bwrap binary, and the user.
fn cache_key() -> String {
    let bwrap = which("bwrap")
        .and_then(|p| {
            let m = std::fs::metadata(&p).ok()?;
            let mtime = m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
            Some(format!("{}:{}:{}", p.display(), m.len(), mtime))
        })
        .unwrap_or_default();
    #[cfg(unix)]
    let uid = rustix_uid();
    #[cfg(not(unix))]
    let uid = 0;
    let forced = std::env::var("WICKET_SANDBOX_BACKEND").unwrap_or_default();
    format!("v1|{}|{bwrap}|uid={uid}|{forced}", kernel_release())
}

#[cfg(unix)]
fn rustix_uid() -> u32 {
    #[cfg(target_os = "linux")]
    {
        rustix::process::getuid().as_raw()
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}
