//! Which sandbox backends work on this machine, found once and cached.
//!
//! The hard question: can we really confine a command here, and how? Every probe runs with a
//! timeout; a probe that hangs or fails counts as "not available", never as "available".
//! Bubblewrap comes from [`crate::helper`] (root's folders only, never `PATH`: a sandbox can
//! write a folder on `PATH`, such as a package manager's bin folder, and plant a fake `bwrap`
//! there). The cached probe is used only when the file is the user's own, writable by nobody
//! else, and names that same trusted binary.

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
            Backend::Landlock { .. } => {
                let mut m = vec![
                    "secrets and wicket's own state are hidden by Landlock rules, not masked: a writable folder that holds one gets no new entries at its top level",
                    "the sealed homes and /run are hidden by Landlock rules, not an empty folder: their files cannot be read, but the names of their entries can be listed",
                    "no network at all: seccomp refuses every socket (the allowlist proxy needs bubblewrap)",
                ];
                #[cfg(target_os = "linux")]
                let own_namespaces = crate::fallback::namespaces_work();
                #[cfg(not(target_os = "linux"))]
                let own_namespaces = false;
                if !own_namespaces {
                    m.extend([
                        "no mount namespace: read-only holes inside the project (the git folders' config, hooks and links, .wicket, editor and agent config) are not enforced, and .git can be renamed",
                        "no pid namespace (neither root nor user namespaces here): the command sees other processes' command lines (Landlock still blocks signals, tracing and their environment)",
                        "no private IPC: System V shared memory and /dev/shm of your other processes are reachable",
                        "a daemon that leaves the run survives a SIGKILL of wicket (it is killed when the run ends normally)",
                    ]);
                }
                m
            }
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
    /// Whether wicket's own namespaces (see [`crate::native`]) can carry out bubblewrap's line
    /// here (and why not); where they cannot, bubblewrap does.
    #[serde(default = "not_probed")]
    pub own_namespaces: Result<(), String>,
}

fn not_probed() -> Result<(), String> {
    Err("not probed".into())
}

/// Run a minimal line in wicket's own namespaces: it works when the command ran as process 2
/// of a new pid namespace (a program that is not wicket prints anything else).
#[cfg(target_os = "linux")]
fn own_namespaces_work() -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("wicket's own binary: {e}"))?;
    let out = run_with_timeout(
        Command::new(crate::shim::program(&exe)).arg(crate::NS_ARG).args([
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
            "--",
            "/bin/sh",
            "-c",
            "echo $$",
        ]),
        PROBE_TIMEOUT,
    )?;
    if out == "2" {
        Ok(())
    } else {
        Err(format!("the command did not run as process 2 ({out:?})"))
    }
}

/// Find a program on PATH (for reports only: helpers wicket runs come from [`crate::helper`]).
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
                own_namespaces: Err("Linux only".into()),
            };
        }
        let bwrap_found = crate::helper::find("bwrap");
        let bwrap_path = bwrap_found.as_ref().ok().map(|h| h.path().to_path_buf());
        let bwrap_version =
            bwrap_found.as_ref().ok().and_then(|b| run_with_timeout(b.command().arg("--version"), PROBE_TIMEOUT).ok());
        let bwrap_works = match &bwrap_found {
            Err(e) => Err(format!("no trusted bwrap ({e}; Debian/Ubuntu: apt-get install bubblewrap)")),
            Ok(b) => run_with_timeout(
                b.command().args([
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
        #[cfg(target_os = "linux")]
        let own_namespaces = own_namespaces_work();
        #[cfg(not(target_os = "linux"))]
        let own_namespaces = Err("Linux only".into());
        Probe { backend, bwrap_path, bwrap_version, bwrap_works, landlock_abi, seccomp, kernel, own_namespaces }
    }

    /// The probe from `cache` when it was made for this kernel and this bwrap binary, else a
    /// new probe (written back to `cache`; a failed write only costs the next probe).
    pub fn cached(cache: Option<&Path>) -> Probe {
        static ONCE: std::sync::OnceLock<Probe> = std::sync::OnceLock::new();
        ONCE.get_or_init(|| {
            let key = cache_key();
            if let Some(p) = cache.and_then(|file| read_cache(file, &key)) {
                return p;
            }
            let p = Probe::run();
            if let Some(file) = cache {
                write_cache(file, &key, &p);
            }
            p
        })
        .clone()
    }
}

/// The cached probe in `file`, if it can be believed: the file and its folder belong to this
/// user and nobody else can write them, it was made for `key`, and a bwrap it names is the
/// trusted one. Anything else is probed anew (a stale or planted cache costs one probe).
fn read_cache(file: &Path, key: &str) -> Option<Probe> {
    #[cfg(unix)]
    let text = crate::private::read(file)?;
    #[cfg(not(unix))]
    let text = std::fs::read(file).ok()?;
    let (k, p) = serde_json::from_slice::<(String, Probe)>(&text).ok()?;
    if k != key {
        return None;
    }
    let trusted = crate::helper::find("bwrap").ok().map(|h| h.path().to_path_buf());
    let names_trusted = |b: &Option<PathBuf>| b.is_none() || *b == trusted;
    if let Backend::Bwrap { path } = &p.backend {
        if Some(path) != trusted.as_ref() {
            return None;
        }
    }
    names_trusted(&p.bwrap_path).then_some(p)
}

/// Write the probe (private folder and file, replaced atomically); a failure only costs the
/// next run a probe.
fn write_cache(file: &Path, key: &str, p: &Probe) {
    let Ok(text) = serde_json::to_vec(&(key, p)) else { return };
    #[cfg(unix)]
    crate::private::write(file, &text);
    #[cfg(not(unix))]
    let _ = (file, text);
}

/// What a cached probe depends on: the kernel, the bwrap binary, and the user.
fn cache_key() -> String {
    let bwrap = crate::helper::find("bwrap")
        .ok()
        .and_then(|h| {
            let p = h.path();
            let m = std::fs::metadata(p).ok()?;
            let mtime = m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
            Some(format!("{}:{}:{}", p.display(), m.len(), mtime))
        })
        .unwrap_or_default();
    #[cfg(unix)]
    let uid = rustix_uid();
    #[cfg(not(unix))]
    let uid = 0;
    let forced = std::env::var("WICKET_SANDBOX_BACKEND").unwrap_or_default();
    format!("v3|{}|{bwrap}|uid={uid}|{forced}", kernel_release())
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn probe_with(backend: Backend) -> Probe {
        Probe {
            backend,
            bwrap_path: None,
            bwrap_version: None,
            bwrap_works: Ok(()),
            landlock_abi: 6,
            seccomp: true,
            kernel: String::new(),
            own_namespaces: Ok(()),
        }
    }

    #[test]
    fn a_cached_probe_is_believed_only_when_private_and_naming_the_trusted_bwrap() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = dir.path().join("cache");
        let file = cache.join("sandbox-probe.json");
        let key = cache_key();
        let good = probe_with(Backend::Landlock { abi: 6 });
        write_cache(&file, &key, &good);
        assert_eq!(read_cache(&file, &key), Some(good.clone()), "the private cache is read");
        // Another key (kernel, bwrap or user changed): probed anew.
        assert_eq!(read_cache(&file, "other"), None);
        // A cache naming a bwrap that is not the trusted one (a planted fake).
        let forged = probe_with(Backend::Bwrap { path: dir.path().join("bwrap") });
        std::fs::write(&file, serde_json::to_string(&(&key, &forged)).expect("json")).expect("write");
        assert_eq!(read_cache(&file, &key), None, "a forged bwrap path is refused");
        // A cache file others can write.
        write_cache(&file, &key, &good);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).expect("chmod");
        assert_eq!(read_cache(&file, &key), None, "a world-writable cache is refused");
        // A cache folder others can write.
        write_cache(&file, &key, &good);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        assert_eq!(read_cache(&file, &key), None, "a cache in a world-writable folder is refused");
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        // A link in place of the file.
        let elsewhere = dir.path().join("elsewhere.json");
        std::fs::rename(&file, &elsewhere).expect("rename");
        std::os::unix::fs::symlink(&elsewhere, &file).expect("link");
        assert_eq!(read_cache(&file, &key), None, "a link is refused");
    }
}
