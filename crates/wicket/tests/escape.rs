//! The escape suite: real escape attempts from inside `wicket run`, by a program the gate cannot
//! see into (a Python script), so the sandbox alone must stop each one. Every attempt also runs
//! outside the sandbox as a control that must succeed, so a test cannot pass by being broken.
//!
//! Run as root and as an unprivileged user (`.ci/run` does both). The test world must not sit
//! in a temp folder, because temp folders are writable inside the sandbox: it lives under
//! `WICKET_ESCAPE_BASE`, else the target folder, else `common::SHARED_BASE` (root).
//! `WICKET_BIN` overrides the binary under test (for the unprivileged run).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

mod common;

use std::io::Read;
use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn wicket_bin() -> PathBuf {
    std::env::var_os("WICKET_BIN").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_wicket")))
}

/// The sandbox a test's backend name stands for: "bwrap-masks" is bubblewrap making every mask
/// itself (as where wicket cannot make them in a namespace of its own before it starts).
fn sandbox_of(backend: &str) -> &str {
    if backend == "bwrap-masks" {
        "bwrap"
    } else {
        backend
    }
}

/// Process 1 of the bubblewrap backend's sandbox is the trusted bubblewrap or, where wicket
/// builds the namespaces itself (the default where they work), wicket's own helper.
fn pid_one_is_trusted(out: &Output) {
    let one = verdict(out);
    let expected: &[&str] = match std::env::var_os("WICKET_OWN_NAMESPACES") {
        Some(v) if v == "0" => &["bwrap"],
        Some(v) if v == "1" => &["wicket-sandbox"],
        _ => &["bwrap", "wicket-sandbox"],
    };
    assert!(expected.contains(&one.as_str()), "process 1 is {one:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// `WICKET_BWRAP_MASKS` for a test's backend name (see [`sandbox_of`]).
fn bwrap_masks(backend: &str) -> &'static str {
    if backend == "bwrap-masks" {
        "1"
    } else {
        "0"
    }
}

fn under_temp(p: &Path) -> bool {
    common::under_temp(p)
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0).unwrap_or(false)
}

fn base() -> PathBuf {
    common::outside_temp("escape")
}

/// A project root, a fake home with secrets, and an outside folder, none in a temp folder.
struct World {
    dir: PathBuf,
    root: PathBuf,
    home: PathBuf,
    out: PathBuf,
}

impl World {
    fn new() -> World {
        World::in_base(&base())
    }

    fn in_base(base: &Path) -> World {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = base.join(format!("w{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let root = dir.join("proj");
        let home = dir.join("home");
        let out = dir.join("outside");
        for d in [root.join(".git/hooks"), root.join(".vscode"), root.join(".wicket"), home.join(".ssh"), out.clone()] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
        std::fs::write(root.join(".vscode/settings.json"), "{}").unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "secret").unwrap();
        std::fs::write(out.join("existing.txt"), "original").unwrap();
        assert!(!under_temp(&dir), "{} is in a temp folder", dir.display());
        World { dir, root, home, out }
    }

    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.dir.join(format!("{name}.py"));
        let text = format!(
            "import os, sys, socket, shutil, signal, time\nROOT={:?}\nHOME={:?}\nOUT={:?}\nPRIV=ROOT + '/priv'\nARGS=sys.argv[1:]\n{HAS}try:\n{}\n    print('ESCAPED')\nexcept Exception as e:\n    print('BLOCKED', type(e).__name__, e)\n",
            self.root.to_string_lossy(),
            self.home.to_string_lossy(),
            self.out.to_string_lossy(),
            body.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
        );
        std::fs::write(&path, text).unwrap();
        path
    }

    fn wicket(&self, backend: &str, timeout: Option<&str>, args: &[&str]) -> Output {
        let mut c = Command::new(wicket_bin());
        c.arg("run").arg("--root").arg(&self.root);
        if let Some(t) = timeout {
            c.args(["--timeout", t]);
        }
        c.arg("--").args(args);
        c.env("HOME", &self.home)
            .env("WICKET_HOME", self.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
            .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
            .env("WICKET_TEST_SECRET", "hunter2")
            .current_dir(&self.root)
            .stdin(Stdio::null());
        c.output().unwrap()
    }

    /// [`World::wicket`] with more variables in wicket's own environment.
    fn wicket_with(&self, backend: &str, env: &[(&str, &Path)], args: &[&str]) -> Output {
        let mut c = Command::new(wicket_bin());
        c.arg("run").arg("--root").arg(&self.root).arg("--").args(args);
        c.env("HOME", &self.home)
            .env("WICKET_HOME", self.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
            .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
            .current_dir(&self.root)
            .stdin(Stdio::null());
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }

    fn direct(&self, args: &[&str]) -> Output {
        Command::new(args[0])
            .args(&args[1..])
            .env("HOME", &self.home)
            .env("WICKET_TEST_SECRET", "hunter2")
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `has(path, bits)` in every script: raises unless the mode of `path` has all of `bits` (a
/// call the kernel answers with success may still have dropped a bit).
const HAS: &str = "def has(p, bits):\n    m = os.lstat(p).st_mode\n    assert m & bits == bits, oct(m)\n";

/// One escape attempt: Python statements that raise when blocked.
struct Attempt {
    name: &'static str,
    code: &'static str,
    /// Only root can do it outside the sandbox, so the control runs only as root.
    root_control: bool,
}

const ATTEMPTS: &[Attempt] = &[
    Attempt { name: "write_outside", code: "open(OUT + '/new.txt', 'w').write('x')", root_control: false },
    Attempt { name: "write_home", code: "open(HOME + '/.bashrc', 'a').write('evil')", root_control: false },
    Attempt { name: "overwrite_outside", code: "open(OUT + '/existing.txt', 'w').write('x')", root_control: false },
    Attempt {
        name: "read_secret",
        code: "assert open(HOME + '/.ssh/id_' + 'rsa').read() == 'secret'",
        root_control: false,
    },
    Attempt {
        name: "read_secret_proc_root",
        code: "assert open('/proc/self/root' + HOME + '/.ssh/id_' + 'rsa').read() == 'secret'",
        root_control: false,
    },
    Attempt { name: "git_hook", code: "open(ROOT + '/.git/hooks/pre-commit', 'w').write('x')", root_control: false },
    Attempt { name: "git_config", code: "open(ROOT + '/.git/config', 'a').write('[core]\\n')", root_control: false },
    Attempt { name: "vscode", code: "open(ROOT + '/.vscode/settings.json', 'w').write('{}')", root_control: false },
    Attempt { name: "mcp_json_fresh", code: "open(ROOT + '/.mcp.json', 'x').write('{}')", root_control: false },
    Attempt { name: "wicket_dir", code: "open(ROOT + '/.wicket/settings.json', 'w').write('{}')", root_control: false },
    Attempt {
        name: "recreate_hooks",
        code: "shutil.rmtree(ROOT + '/.git/hooks')\nos.mkdir(ROOT + '/.git/hooks')\nopen(ROOT + '/.git/hooks/post-checkout', 'w').write('x')",
        root_control: false,
    },
    Attempt {
        name: "symlink_out",
        code: "os.symlink(OUT, ROOT + '/lnk')\nopen(ROOT + '/lnk/via-link.txt', 'w').write('x')",
        root_control: false,
    },
    Attempt {
        name: "write_etc",
        code: "open('/etc/wicket-escape-test', 'w').write('x')",
        root_control: true,
    },
    Attempt {
        name: "tcp_loopback",
        code: "socket.create_connection(('127.0.0.1', int(ARGS[0])), timeout=2).close()",
        root_control: false,
    },
    Attempt {
        name: "unix_socket",
        code: "s = socket.socket(socket.AF_UNIX)\ns.connect(ARGS[1])",
        root_control: false,
    },
    Attempt { name: "signal_outside", code: "os.kill(int(ARGS[2]), signal.SIGTERM)", root_control: false },
    Attempt { name: "secret_env", code: "assert os.environ['WICKET_TEST_SECRET'] == 'hunter2'", root_control: false },
    // Issue 34 item 5: no setuid or setgid file, device node or file capability left in the
    // project for the host, by any call that makes one (`PRIV` is an empty folder of the
    // runner's in the project). The user's own file: the control works for a user too.
    Attempt {
        name: "setuid_chmod",
        code: "p = PRIV + '/f'\nopen(p, 'w').close()\nos.chmod(p, 0o4755)\nhas(p, 0o4000)",
        root_control: false,
    },
    Attempt {
        name: "setgid_chmod",
        code: "p = PRIV + '/f'\nopen(p, 'w').close()\nos.chmod(p, 0o2755)\nhas(p, 0o2000)",
        root_control: false,
    },
    Attempt {
        name: "setgid_folder",
        code: "d = PRIV + '/d'\nos.mkdir(d, 0o2775)\nos.chmod(d, 0o2775)\nhas(d, 0o2000)",
        root_control: false,
    },
    Attempt {
        name: "setuid_fchmod",
        code: "fd = os.open(PRIV + '/f', os.O_CREAT | os.O_WRONLY, 0o644)\nos.fchmod(fd, 0o4755)\nhas(PRIV + '/f', 0o4000)",
        root_control: false,
    },
    Attempt {
        // fchmodat2 (452 everywhere, Linux 6.6); an older kernel's ENOSYS makes it a chmod.
        name: "setuid_fchmodat2",
        code: "import ctypes\nc = ctypes.CDLL(None, use_errno=True)\np = PRIV + '/f'\nopen(p, 'w').close()\nif c.syscall(452, -100, p.encode(), 0o4755, 0) != 0:\n    assert ctypes.get_errno() == 38, ctypes.get_errno()\n    os.chmod(p, 0o4755)\nhas(p, 0o4000)",
        root_control: false,
    },
    Attempt {
        name: "setuid_open_create",
        code: "os.close(os.open(PRIV + '/f', os.O_CREAT | os.O_WRONLY, 0o4755))\nhas(PRIV + '/f', 0o4000)",
        root_control: false,
    },
    Attempt {
        name: "setgid_open_create",
        code: "os.close(os.open(PRIV + '/f', os.O_CREAT | os.O_WRONLY, 0o2755))\nhas(PRIV + '/f', 0o2000)",
        root_control: false,
    },
    Attempt {
        // An unnamed file with the bit, linked in afterwards.
        name: "setuid_tmpfile",
        code: "import ctypes\nc = ctypes.CDLL(None, use_errno=True)\nfd = os.open(PRIV, os.O_TMPFILE | os.O_WRONLY, 0o4755)\nassert c.linkat(-100, b'/proc/self/fd/%d' % fd, -100, (PRIV + '/f').encode(), 0x400) == 0, ctypes.get_errno()\nhas(PRIV + '/f', 0o4000)",
        root_control: false,
    },
    Attempt {
        // glibc's creat() is the creat system call where the architecture has one.
        name: "setuid_creat",
        code: "import ctypes\nc = ctypes.CDLL(None, use_errno=True)\nassert c.creat((PRIV + '/f').encode(), 0o4755) >= 0, ctypes.get_errno()\nhas(PRIV + '/f', 0o4000)",
        root_control: false,
    },
    Attempt {
        // open(2) itself, which glibc never calls (x86_64 only; elsewhere this is openat).
        name: "setuid_open_syscall",
        code: "import ctypes, platform\nc = ctypes.CDLL(None, use_errno=True)\np = PRIV + '/f'\nif platform.machine() == 'x86_64':\n    assert c.syscall(2, p.encode(), os.O_CREAT | os.O_WRONLY, 0o4755) >= 0, ctypes.get_errno()\nelse:\n    os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o4755))\nhas(p, 0o4000)",
        root_control: false,
    },
    Attempt {
        // mknod makes regular files too, with any mode.
        name: "setuid_mknod_file",
        code: "os.mknod(PRIV + '/f', 0o104755)\nhas(PRIV + '/f', 0o4000)",
        root_control: false,
    },
    Attempt {
        // A whiteout (character device 0:0) needs no capability since Linux 5.8.
        name: "whiteout_device",
        code: "os.mknod(PRIV + '/w', 0o020600, 0)",
        root_control: false,
    },
    Attempt { name: "block_device", code: "os.mknod(PRIV + '/b', 0o060600, os.makedev(7, 0))", root_control: true },
    Attempt {
        name: "user_xattr",
        code: "p = PRIV + '/f'\nopen(p, 'w').close()\nos.setxattr(p, 'user.x', b'1')",
        root_control: false,
    },
    Attempt {
        // cap_net_raw, permitted and effective (a version 2 capability set).
        name: "file_capability",
        code: "import struct\np = PRIV + '/f'\nopen(p, 'w').close()\nos.setxattr(p, 'security.capability', struct.pack('<5I', 0x02000001, 1 << 13, 0, 0, 0))",
        root_control: true,
    },
];

/// Attempts whose write may succeed inside, because it lands in the guarded folder's overlay
/// and never reaches the project: each counts as blocked only when the path is absent from the
/// project after the run and wicket said it held the entry for a person. One line a case: the
/// attempt and the path (relative to the root).
const HELD_INSTEAD: &[(&str, &str)] = &[("mcp_json_fresh", ".mcp.json")];

/// Did the run hold `rel` for a person instead of leaving it in the project at `root`?
fn held_not_landed(root: &Path, rel: &str, out: &Output) -> bool {
    let top = rel.split('/').next().unwrap_or(rel);
    std::fs::symlink_metadata(root.join(rel)).is_err()
        && String::from_utf8_lossy(&out.stderr).lines().any(|l| l.contains("held for you") && l.contains(top))
}

/// Setuid and setgid files and device nodes under `dir`, as `find` lists them.
fn privileged_files(dir: &Path) -> String {
    let out = Command::new("find")
        .arg(dir)
        .args(["-perm", "/6000", "-o", "-type", "b", "-o", "-type", "c"])
        .output()
        .unwrap();
    assert!(out.status.success(), "find: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn verdict(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn run_suite(backend: &str) {
    let w = World::new();
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = tcp.local_addr().unwrap().port().to_string();
    std::thread::spawn(move || {
        for s in tcp.incoming().flatten() {
            drop(s)
        }
    });
    let sock = w.out.join("s.sock");
    let unix = UnixListener::bind(&sock).unwrap();
    std::thread::spawn(move || {
        for s in unix.incoming().flatten() {
            drop(s)
        }
    });
    let mut failures = Vec::new();
    for a in ATTEMPTS {
        let mut victim = Command::new("sleep").arg("60").spawn().unwrap();
        let pid = victim.id().to_string();
        let script = w.script(a.name, a.code);
        let script = script.to_str().unwrap();
        let args = ["python3", script, port.as_str(), sock.to_str().unwrap(), pid.as_str()];
        std::fs::create_dir_all(w.root.join("priv")).unwrap();
        let inside = w.wicket(backend, None, &args);
        let left = privileged_files(&w.root);
        if !left.is_empty() {
            failures.push(format!("{backend}: {} left privileged files in the project: {left}", a.name));
        }
        let _ = std::fs::remove_dir_all(w.root.join("priv"));
        std::fs::create_dir_all(w.root.join("priv")).unwrap();
        let got = verdict(&inside);
        let victim_alive = victim.try_wait().unwrap().is_none();
        let held = HELD_INSTEAD.iter().any(|(n, rel)| *n == a.name && held_not_landed(&w.root, rel, &inside));
        if !(got.starts_with("BLOCKED") || held) || !victim_alive {
            failures.push(format!(
                "{backend}: {} was not blocked: {got} (stderr: {})",
                a.name,
                String::from_utf8_lossy(&inside.stderr).trim()
            ));
        }
        let _ = victim.kill();
        let _ = victim.wait();
        // The control: the same attempt outside the sandbox must succeed.
        let mut victim = Command::new("sleep").arg("60").spawn().unwrap();
        let pid = victim.id().to_string();
        let _ = std::fs::remove_file(w.root.join(".mcp.json"));
        let _ = std::fs::remove_file(w.root.join("lnk"));
        let args = ["python3", script, port.as_str(), sock.to_str().unwrap(), pid.as_str()];
        let control = verdict(&w.direct(&args));
        if control != "ESCAPED" && (!a.root_control || is_root()) {
            failures.push(format!("control for {} did not succeed outside the sandbox: {control}", a.name));
        }
        let _ = victim.kill();
        let _ = victim.wait();
        // Undo what the control did, for the next attempt.
        std::fs::create_dir_all(w.root.join(".git/hooks")).unwrap();
        let _ = std::fs::remove_file(w.root.join(".mcp.json"));
        let _ = std::fs::remove_file(w.root.join("lnk"));
        let _ = std::fs::remove_file("/etc/wicket-escape-test");
        let _ = std::fs::remove_dir_all(w.root.join("priv"));
    }
    assert!(failures.is_empty(), "{} escape(s):\n{}", failures.len(), failures.join("\n"));
    assert!(!w.root.join(".mcp.json").exists(), "the placeholder for .mcp.json was removed after the run");
}

#[test]
fn escapes_are_blocked_by_bwrap() {
    run_suite("bwrap");
}

/// The same, with bubblewrap making every mask itself (where wicket cannot make them first).
#[test]
fn escapes_are_blocked_by_bwrap_making_every_mask() {
    run_suite("bwrap-masks");
}

#[test]
fn escapes_are_blocked_by_the_landlock_fallback() {
    run_suite("landlock");
}

/// A child that leaves the process group and outlives the command must die with it.
#[test]
fn a_fork_does_not_outlive_the_command() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let marker = w.out.join("marker");
        let code = "pid = os.fork()\nif pid == 0:\n    os.setsid()\n    time.sleep(2)\n    open(ARGS[0], 'w').write('alive')\n    os._exit(0)";
        let script = w.script("fork", code);
        let args = ["python3", script.to_str().unwrap(), marker.to_str().unwrap()];
        // Write the marker somewhere the sandbox may write: the root.
        let inside_marker = w.root.join("marker");
        let args_inside = ["python3", script.to_str().unwrap(), inside_marker.to_str().unwrap()];
        let start = Instant::now();
        let out = w.wicket(backend, Some("1"), &args_inside);
        assert!(start.elapsed() < Duration::from_secs(10), "{backend}: wicket returned");
        assert!(verdict(&out).contains("ESCAPED") || out.status.code().is_some());
        std::thread::sleep(Duration::from_secs(3));
        assert!(!inside_marker.exists(), "{backend}: the forked child outlived the command");
        // Control: run directly, the child survives and writes the marker.
        let _ = w.direct(&args);
        std::thread::sleep(Duration::from_secs(3));
        assert!(marker.exists(), "control: the forked child should survive outside wicket");
    }
}

/// A command that never ends is stopped at the timeout, with status 124.
#[test]
fn the_timeout_stops_the_command() {
    let w = World::new();
    let start = Instant::now();
    let out = w.wicket("bwrap", Some("0.5"), &["sleep", "30"]);
    assert_eq!(out.status.code(), Some(124), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(start.elapsed() < Duration::from_secs(5));
}

/// `wicket run` passes a command's output through whole and untouched (a file it is redirected
/// into gets exactly what the command wrote); the cap belongs to the results `serve` and the
/// MCP gateway give an agent.
#[test]
fn an_output_flood_passes_through_whole() {
    let w = World::new();
    let script = w.script("flood", "for i in range(200_000):\n    sys.stdout.write(f'{i}\\n')\nsys.stdout.flush()");
    let args = ["python3", script.to_str().unwrap()];
    for backend in ["bwrap", "landlock"] {
        let out = w.wicket(backend, None, &args);
        let direct = w.direct(&args);
        assert!(direct.stdout.len() > 1_000_000, "{}", direct.stdout.len());
        assert!(
            out.stdout == direct.stdout,
            "{backend}: {} bytes through wicket, {} direct",
            out.stdout.len(),
            direct.stdout.len()
        );
    }
}

/// The command's exit status comes back; a denial exits 126 with the reason.
#[test]
fn exit_status_and_denials() {
    let w = World::new();
    assert_eq!(w.wicket("bwrap", None, &["sh", "-c", "exit 7"]).status.code(), Some(7));
    let out = w.wicket("bwrap", None, &["cat", ".env"]);
    assert_eq!(out.status.code(), Some(126));
    let mut err = String::new();
    out.stderr.as_slice().read_to_string(&mut err).unwrap();
    assert!(err.contains("sensitive"), "{err}");
}

/// The sandbox is built while the engine decides; a refused command must still never start,
/// and nothing of its sandbox may stay behind.
#[test]
fn a_refused_command_never_starts_although_its_sandbox_was_built_ahead() {
    let w = World::new();
    let home = w.dir.join("wicket-home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("settings.json"), r#"{"permissions": {"deny": ["bash(touch *)"]}}"#).unwrap();
    let marker = w.root.join("made-by-a-refused-command");
    let out = w.wicket("bwrap", None, &["touch", marker.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{err}");
    assert!(err.contains("deny rule"), "{err}");
    assert!(!err.contains("wicket sandbox:"), "the waiting shim ends without a word: {err}");
    assert!(!marker.exists(), "the refused command ran");
    // No process of this run is left (bwrap and the shim carry the marker path in argv).
    let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let left: Vec<String> = String::from_utf8_lossy(&ps.stdout)
        .lines()
        .filter(|l| l.contains("made-by-a-refused-command") && !l.starts_with("ps "))
        .map(str::to_string)
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    // The same command, allowed, runs in the same kind of sandbox.
    std::fs::write(home.join("settings.json"), "{}").unwrap();
    assert_eq!(w.wicket("bwrap", None, &["touch", marker.to_str().unwrap()]).status.code(), Some(0));
    assert!(marker.exists());
}

// ---------------------------------------------------------------------------------------------
// Issue 13 (part B): wicket's own state, trusted helpers, fallback parity, descriptors, root.

/// `wicket run` in `w` with `backend`, `WICKET_HOME` at `wicket_home` and extra variables.
fn wicket_with(w: &World, backend: &str, wicket_home: &Path, envs: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = Command::new(wicket_bin());
    c.arg("run").arg("--root").arg(&w.root).arg("--").args(args);
    c.env("HOME", &w.home)
        .env("WICKET_HOME", wicket_home)
        .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
        .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
        .current_dir(&w.root)
        .stdin(Stdio::null());
    for (k, v) in envs {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// Every file below `dir` with its contents (folders as empty entries), to see any change.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                out.push((p.clone(), Vec::new()));
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// Attacks on wicket's own state; `WH` is `$WICKET_HOME`. Each changes or reads it when not
/// stopped.
const STATE_ATTACKS: &[(&str, &str)] = &[
    ("settings", "open(WH + '/settings.json', 'w').write('{\"executor\": \"host\"}')"),
    ("trust", "open(WH + '/trust.json', 'a').write('x')"),
    ("audit", "open(WH + '/audit/p/log.jsonl', 'a').write('{}')"),
    ("audit_new", "os.makedirs(WH + '/audit/q', exist_ok=True)\nopen(WH + '/audit/q/log.jsonl', 'w').write('{}')"),
    ("probe_cache", "open(WH + '/cache/sandbox-probe.json', 'w').write('[]')"),
    ("rootonly_cache", "open(WH + '/cache/rootonly', 'w').write('[]')"),
    ("git_cache", "os.makedirs(WH + '/cache/git', exist_ok=True)\nopen(WH + '/cache/git/0.json', 'w').write('[]')"),
    ("scan_cache", "os.makedirs(WH + '/cache/scan', exist_ok=True)\nopen(WH + '/cache/scan/0.json', 'w').write('[]')"),
    ("read_settings", "assert 'permissions' in open(WH + '/settings.json').read()"),
    ("rename_home", "os.rename(WH, WH + '.moved')\nos.makedirs(WH)\nopen(WH + '/settings.json', 'w').write('{}')"),
    (
        "rename_parent",
        "P = os.path.dirname(WH)\nos.rename(P, P + '.moved')\nos.makedirs(WH)\nopen(WH + '/settings.json', 'w').write('{}')",
    ),
];

/// `$WICKET_HOME` inside the project, under `~/.cache` (a writable cache) and under `/tmp`:
/// in every place and on both backends, no attack on it succeeds, while each succeeds outside.
#[test]
fn wicket_state_is_out_of_reach_wherever_it_lives() {
    for backend in ["bwrap", "bwrap-masks", "landlock"] {
        let w = World::new();
        let tmp = tempfile::Builder::new().prefix("wicket-escape-state").tempdir_in("/tmp").unwrap();
        let places = [w.root.join("tools/state/wh"), w.home.join(".cache/wicket/wh"), tmp.path().join("nest/wh")];
        let mut failures = Vec::new();
        for wh in &places {
            let fill = |wh: &Path| {
                let _ = std::fs::remove_dir_all(wh);
                for d in ["audit/p", "cache"] {
                    std::fs::create_dir_all(wh.join(d)).unwrap();
                }
                std::fs::write(wh.join("settings.json"), "{\"permissions\": {}}").unwrap();
                std::fs::write(wh.join("trust.json"), "{}").unwrap();
                std::fs::write(wh.join("audit/p/log.jsonl"), "").unwrap();
            };
            for (name, code) in STATE_ATTACKS {
                fill(wh);
                let before = snapshot(wh);
                let script = w.script(&format!("state-{name}"), &format!("WH = ARGS[0]\n{code}"));
                let args = ["python3", script.to_str().unwrap(), wh.to_str().unwrap()];
                let out = wicket_with(&w, backend, wh, &[], &args);
                let got = verdict(&out);
                let cache_attack = name.ends_with("_cache");
                // The run itself may add its own audit record and caches: compare what the
                // attack touches only.
                let after: Vec<_> = snapshot(wh)
                    .into_iter()
                    .filter(|(p, _)| before.iter().any(|(q, _)| q == p) || p.starts_with(wh.join("audit/q")))
                    .filter(|(p, _)| !p.starts_with(wh.join("cache")) || cache_attack)
                    .collect();
                let before: Vec<_> =
                    before.into_iter().filter(|(p, _)| !p.starts_with(wh.join("cache")) || cache_attack).collect();
                let moved =
                    wh.with_extension("moved").exists() || wh.parent().unwrap().with_extension("moved").exists();
                // A cache the run itself writes (the probe, the root-only listings, git's
                // answer, the scan) is not compared: the attack's own content must not be there.
                let probe_forged = cache_attack && snapshot(&wh.join("cache")).iter().any(|(_, c)| c == b"[]");
                // Under bubblewrap /tmp is a fresh tmpfs: a rename there moves the run's own
                // folders, never the host's (what `moved` and the snapshot check). Binding the
                // host's folders back to stop it would show the host's /tmp inside.
                let private_rename =
                    sandbox_of(backend) == "bwrap" && wh.starts_with(tmp.path()) && name.starts_with("rename");
                let escaped = got.starts_with("ESCAPED") && !private_rename;
                if escaped || moved || probe_forged || (!cache_attack && after != before) {
                    failures.push(format!(
                        "{backend} {}: {name}: {got} (moved: {moved}; stderr: {})",
                        wh.display(),
                        String::from_utf8_lossy(&out.stderr).trim()
                    ));
                }
                // Undo a successful rename before the next attempt.
                for m in [wh.with_extension("moved"), wh.parent().unwrap().with_extension("moved")] {
                    if m.exists() {
                        let orig = m.with_extension("");
                        let _ = std::fs::remove_dir_all(&orig);
                        std::fs::rename(&m, &orig).unwrap();
                    }
                }
                // The control: the same attack outside the sandbox succeeds.
                fill(wh);
                let control = verdict(&w.direct(&args));
                if control != "ESCAPED" {
                    failures.push(format!("control {}: {name}: {control}", wh.display()));
                }
                for m in [wh.with_extension("moved"), wh.parent().unwrap().with_extension("moved")] {
                    if m.exists() {
                        let orig = m.with_extension("");
                        let _ = std::fs::remove_dir_all(&orig);
                        std::fs::rename(&m, &orig).unwrap();
                    }
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{} attack(s) on wicket's state succeeded:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}

/// The person's settings as a first run finds them: rules, an extra variable; nothing else.
const FIRST_SETTINGS: &str =
    r#"{"permissions": {"allow": ["bash(python3 *)"], "deny": ["read_file(secrets/**)"]}, "env": {"allow": ["LANG"]}}"#;

/// First runs from a state folder that the person made (0755) and that holds only their
/// `settings.json`, one a line: (name, the home, `$WICKET_HOME` (`None`: the default
/// `~/.wicket`), the project, the settings). `{w}` is the test world's folder; a path elsewhere
/// lies in a system folder that root's own files are looked for in (/var/lib, /opt, /srv; `{n}`
/// is a name of this test's own there) and is tried as root only. There the first run's private
/// sub-folders (0700, owned by root) were root-only files inside the masked state, and bubblewrap
/// failed every run with "Can't mkdir …: Read-only file system"; a deny rule on a system folder
/// with root's files in it failed the same way. A user can make no such folder, and no
/// root-only search runs for one: the other rows hold as a user too.
const FIRST_RUNS: &[(&str, &str, Option<&str>, &str, &str)] = &[
    ("the default ~/.wicket", "{w}/home", None, "{w}/proj", FIRST_SETTINGS),
    ("the project in the home", "{w}/home", None, "{w}/home/proj", FIRST_SETTINGS),
    ("WICKET_HOME beside the home", "{w}/home", Some("{w}/wh"), "{w}/proj", FIRST_SETTINGS),
    ("a service's state in /var/lib", "{w}/home", Some("/var/lib/{n}"), "{w}/proj", FIRST_SETTINGS),
    ("WICKET_HOME in /opt", "{w}/home", Some("/opt/{n}/wicket"), "{w}/proj", FIRST_SETTINGS),
    ("WICKET_HOME in /srv", "{w}/home", Some("/srv/{n}/wicket"), "{w}/proj", FIRST_SETTINGS),
    ("a home in /srv", "/srv/{n}/home", None, "{w}/proj", FIRST_SETTINGS),
    ("a deny rule on /var/lib", "{w}/home", None, "{w}/proj", r#"{"permissions": {"deny": ["Read(//var/lib/**)"]}}"#),
];

/// Folders of a test's own outside its world, removed when dropped (also after a panic).
struct RemovedAfter(Vec<PathBuf>);

impl Drop for RemovedAfter {
    fn drop(&mut self) {
        for d in &self.0 {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// A first `wicket run` and the one after it, from a state folder holding only `settings.json`,
/// run the command (status 0) on both backends wherever the state is, and the command still
/// cannot read the state. The control reads it outside.
#[test]
fn a_first_run_from_settings_alone_works_wherever_the_state_is() {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let mut failures = Vec::new();
    for backend in ["bwrap", "landlock"] {
        for (name, home, wicket_home, root, settings) in FIRST_RUNS {
            let w = World::new();
            let n = format!("wicket-firstrun-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::SeqCst));
            let place = |t: &str| PathBuf::from(t.replace("{w}", w.dir.to_str().unwrap()).replace("{n}", &n));
            let (home, root) = (place(home), place(root));
            let wh = wicket_home.map(place).unwrap_or_else(|| home.join(".wicket"));
            // This row's folders in a system folder: the part up to `{n}`.
            let system: Vec<PathBuf> = [&home, &wh, &root]
                .iter()
                .filter(|p| !p.starts_with(&w.dir))
                .filter_map(|p| p.ancestors().find(|a| a.file_name().is_some_and(|f| *f == *n)).map(Path::to_path_buf))
                .collect();
            if !system.is_empty() && (!is_root() || system.iter().any(|s| !s.parent().unwrap().is_dir())) {
                continue;
            }
            let _removed = RemovedAfter(system);
            std::fs::create_dir_all(&home).unwrap();
            write_file(&root.join(".git/config"), "[core]\n");
            // Made by the person, as `mkdir -p` with the usual umask makes it.
            std::fs::DirBuilder::new().recursive(true).mode(0o755).create(&wh).unwrap();
            std::fs::set_permissions(&wh, std::fs::Permissions::from_mode(0o755)).unwrap();
            std::fs::write(wh.join("settings.json"), settings).unwrap();
            assert_eq!(listing(&wh), ["settings.json"], "{name}");
            let script = w.script("firstrun", "open(ARGS[0] + '/settings.json').read()");
            let args = ["python3", script.to_str().unwrap(), wh.to_str().unwrap()];
            for attempt in ["first", "second"] {
                let mut c = Command::new(wicket_bin());
                c.arg("run").arg("--root").arg(&root).arg("--").args(args);
                c.env("HOME", &home)
                    .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
                    .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
                    .current_dir(&root)
                    .stdin(Stdio::null());
                match wicket_home {
                    Some(_) => c.env("WICKET_HOME", &wh),
                    None => c.env_remove("WICKET_HOME"),
                };
                let out = c.output().unwrap();
                let got = verdict(&out);
                if !out.status.success() || !got.starts_with("BLOCKED") {
                    failures.push(format!(
                        "{backend}: {name}: {attempt} run: {:?} {got} ({})",
                        out.status.code(),
                        String::from_utf8_lossy(&out.stderr).trim()
                    ));
                }
            }
            // The state the trigger needs was there: wicket's own private folders in the
            // person's open one.
            let cache = std::fs::metadata(wh.join("cache")).map(|m| m.permissions().mode() & 0o777);
            if cache.as_ref().ok() != Some(&0o700) {
                failures.push(format!("{backend}: {name}: no private cache folder in {}: {cache:?}", wh.display()));
            }
            let control = verdict(&w.direct(&args));
            if control != "ESCAPED" {
                failures.push(format!("control {name}: {control}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} first run(s) failed:\n{}", failures.len(), failures.join("\n"));
}

/// A fake `bwrap` planted by a sandboxed command in a writable cache folder that comes first
/// on `PATH` (pnpm's home, as `pnpm setup` arranges) is never run: the next run still uses the
/// system's bubblewrap. The control: a shell with that `PATH` runs the fake.
#[test]
fn a_planted_bwrap_earlier_on_path_is_never_run() {
    let w = World::new();
    let bin = w.home.join(".local/share/pnpm");
    std::fs::create_dir_all(&bin).unwrap();
    let marker = w.out.join("fake-bwrap-ran");
    let fake = format!("#!/bin/sh\necho ran > {}\nexit 0\n", marker.display());
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let wh = w.dir.join("wicket-home");
    // The plant, from inside the sandbox: the cache folder is writable there, but the write
    // lands in the project's layer over it (issue 13, item 5), never on the host.
    let plant = format!(
        "import os\nopen('{0}/bwrap', 'w').write({1:?})\nos.chmod('{0}/bwrap', 0o755)\nprint('ESCAPED')",
        bin.display(),
        fake
    );
    let out = wicket_with(&w, "bwrap", &wh, &[("PATH", &path)], &["python3", "-c", &plant]);
    assert!(verdict(&out).contains("ESCAPED"), "the plant runs: {}", String::from_utf8_lossy(&out.stderr));
    assert!(!bin.join("bwrap").exists(), "the plant reached the host's pnpm folder");
    // Planted on the host by another way (a `writePaths` folder), it must still never run.
    std::fs::write(bin.join("bwrap"), &fake).unwrap();
    let exec = <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755);
    std::fs::set_permissions(bin.join("bwrap"), exec).unwrap();
    // The next run: pid 1 of the sandbox is the real bubblewrap (or wicket's own shim, where
    // wicket builds the namespaces itself); the fake never ran.
    let out = wicket_with(&w, "bwrap", &wh, &[("PATH", &path)], &["cat", "/proc/1/comm"]);
    pid_one_is_trusted(&out);
    assert!(!marker.exists(), "the planted bwrap ran on the host");
    // Also with no cached probe (a fresh home).
    let fresh = w.dir.join("wicket-home-fresh");
    let out = wicket_with(&w, "bwrap", &fresh, &[("PATH", &path)], &["cat", "/proc/1/comm"]);
    pid_one_is_trusted(&out);
    assert!(!marker.exists(), "the planted bwrap ran on the host");
    // Control: a plain lookup on that PATH finds and runs the fake.
    let status = Command::new("sh").args(["-c", "bwrap --version"]).env("PATH", &path).status().unwrap();
    assert!(status.success() && marker.exists(), "control: the fake bwrap is first on PATH");
}

/// A `git` planted in the project's virtualenv (`.venv/bin`, first on `PATH` once activated,
/// and writable inside the sandbox) is never run by wicket on the host:
/// every run asks git for the project's configuration, but only a git from root's folders. The
/// plant logs to a folder outside the project, then runs the real git, so nothing else shows
/// that it ran. The control: a shell with that `PATH` runs the plant.
#[test]
fn a_planted_git_in_the_projects_virtualenv_is_never_run() {
    let real_git = ["/usr/bin/git", "/usr/local/bin/git"].into_iter().find(|g| Path::new(g).is_file()).unwrap();
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let venv = w.root.join(".venv");
        let bin = venv.join("bin");
        let marker = w.out.join("fake-git-ran");
        let fake = format!("#!/bin/sh\necho \"$@\" >> {}\nexec {real_git} \"$@\"\n", marker.display());
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
        let activated = [("PATH", path.as_str()), ("VIRTUAL_ENV", venv.to_str().unwrap())];
        // The plant, from inside the sandbox: the project is writable there.
        let plant = format!(
            "import os\nos.makedirs('{0}', exist_ok=True)\nopen('{0}/git', 'w').write({1:?})\nos.chmod('{0}/git', 0o755)\nprint('ESCAPED')",
            bin.display(),
            fake
        );
        let home = |n: &str| w.dir.join(format!("wicket-home-{n}"));
        let out = wicket_with(&w, backend, &home("plant"), &activated, &["python3", "-c", &plant]);
        assert!(
            verdict(&out).contains("ESCAPED"),
            "{backend}: the plant runs: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // After the run the new `git` that shadows the system's is moved aside (the pointer
        // rows below test that); here the plant is put back on the host, as a folder that is
        // not watched would hold it, to test wicket's own lookup.
        assert!(
            !bin.join("git").exists() && bin.join("git.wicket-quarantine").is_file(),
            "{backend}: the plant was moved aside after the run: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::rename(bin.join("git.wicket-quarantine"), bin.join("git")).unwrap();
        // The next runs, each with a fresh wicket home so git is asked, not a cached answer:
        // outside a repository, then in one (its configuration is read for the gate).
        let out = wicket_with(&w, backend, &home("plain"), &activated, &["echo", "RAN"]);
        assert_eq!(verdict(&out), "RAN", "{backend}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!marker.exists(), "{backend}: the planted git ran on the host outside a repository");
        let init = Command::new(real_git).args(["init", "-q"]).arg(&w.root).env("HOME", &w.home).output().unwrap();
        assert!(init.status.success(), "{}", String::from_utf8_lossy(&init.stderr));
        let out = wicket_with(&w, backend, &home("repo"), &activated, &["echo", "RAN"]);
        assert_eq!(verdict(&out), "RAN", "{backend}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!marker.exists(), "{backend}: the planted git ran on the host in a repository");
        // Control: a plain lookup on that PATH finds and runs the plant.
        let control = Command::new("sh").args(["-c", "git --version"]).env("PATH", &path).output().unwrap();
        assert!(control.status.success() && marker.exists(), "{backend}: control: the planted git is first on PATH");
    }
}

/// Socket families a network namespace does not cut off from the host, one a line: (name,
/// family, type, protocol, control needs root). Each must be refused inside on both backends;
/// outside, creating one succeeds (the control).
const FOREIGN_SOCKETS: &[(&str, i32, i32, i32, bool)] = &[
    ("AF_VSOCK", 40, 1, 0, false),
    ("NETLINK_KOBJECT_UEVENT", 16, 3, 15, false),
    ("NETLINK_AUDIT", 16, 3, 9, false),
    ("NETLINK_GENERIC", 16, 3, 16, false),
    ("NETLINK_SOCK_DIAG", 16, 3, 4, false),
    ("AF_PACKET", 17, 3, 0, true),
    ("AF_XDP", 44, 3, 0, true),
];

#[test]
fn sockets_that_reach_past_the_network_namespace_are_refused() {
    let mut failures = Vec::new();
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        for (name, fam, typ, proto, root_control) in FOREIGN_SOCKETS {
            let code = format!("socket.socket({fam}, {typ}, {proto}).close()");
            let script = w.script(&format!("sock-{name}"), &code);
            let args = ["python3", script.to_str().unwrap()];
            let got = verdict(&w.wicket(backend, None, &args));
            if !got.starts_with("BLOCKED") {
                failures.push(format!("{backend}: {name}: {got}"));
            }
            let control = verdict(&w.direct(&args));
            if control != "ESCAPED" && (!root_control || is_root()) {
                failures.push(format!("control {name}: {control}"));
            }
        }
        // Everyday networking inside the namespace still works: an internet socket and the
        // routing table (getaddrinfo, `ip route`).
        let script = w.script(
            "sock-ok",
            "socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()\nsocket.socket(16, 3, 0).close()",
        );
        let got = verdict(&w.wicket("bwrap", None, &["python3", script.to_str().unwrap()]));
        assert_eq!(got, "ESCAPED", "bwrap: AF_INET and NETLINK_ROUTE are usable inside the network namespace");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A descriptor opened outside without close-on-exec (here by the shell that starts wicket)
/// is not inherited by the command: writing through it fails inside, works outside.
#[test]
fn an_inherited_descriptor_does_not_reach_the_command() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let target = w.out.join("through-fd.txt");
        let script = w.script("fd", "os.write(7, b'through an inherited fd')");
        let inside = format!(
            "exec 7>>{} && exec {} run --root {} -- python3 {}",
            target.display(),
            wicket_bin().display(),
            w.root.display(),
            script.display()
        );
        let out = Command::new("sh")
            .args(["-c", &inside])
            .env("HOME", &w.home)
            .env("WICKET_HOME", w.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
            .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
            .current_dir(&w.root)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            verdict(&out).starts_with("BLOCKED"),
            "{backend}: {} {}",
            verdict(&out),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "", "{backend}: written through the inherited fd");
        // Control: the same script started by that shell directly writes through fd 7.
        let direct = format!("exec 7>>{} && exec python3 {}", target.display(), script.display());
        let out = Command::new("sh").args(["-c", &direct]).output().unwrap();
        assert_eq!(verdict(&out), "ESCAPED");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "through an inherited fd");
    }
}

/// What root may do outside and no command may do inside, one a line: (name, code). Run as
/// root, the control outside succeeds (changing nothing: the names are set to what they are,
/// the test route is removed again); as another user these are refused everywhere.
const ROOT_POWERS: &[(&str, &str)] = &[
    ("mknod", "os.mknod(ROOT + '/null-node', 0o600 | 0o020000, os.makedev(1, 3))"),
    ("sethostname", "socket.sethostname(socket.gethostname())"),
    (
        "setdomainname",
        "import ctypes\nd = open('/proc/sys/kernel/domainname', 'rb').read().strip()\nassert ctypes.CDLL(None, use_errno=True).setdomainname(d, len(d)) == 0, ctypes.get_errno()",
    ),
    (
        "netlink_route",
        "import subprocess\nsubprocess.run(['ip', 'route', 'add', '203.0.113.0/24', 'dev', 'lo'], check=True, capture_output=True)",
    ),
    ("read_shadow", "assert ':' in open('/etc/shadow').read()"),
    ("read_gshadow", "assert ':' in open('/etc/gshadow').read()"),
];

#[test]
fn root_powers_and_root_only_files_stay_out_of_the_sandbox() {
    let mut failures = Vec::new();
    for backend in ["bwrap", "bwrap-masks", "landlock"] {
        let w = World::new();
        for (name, code) in ROOT_POWERS {
            let script = w.script(&format!("root-{name}"), code);
            let args = ["python3", script.to_str().unwrap()];
            let out = w.wicket(backend, None, &args);
            let got = verdict(&out);
            if !got.starts_with("BLOCKED") {
                failures.push(format!("{backend}: {name}: {got} {}", String::from_utf8_lossy(&out.stderr).trim()));
            }
            let _ = std::fs::remove_file(w.root.join("null-node"));
            let control = verdict(&w.direct(&args));
            if is_root() && control != "ESCAPED" {
                failures.push(format!("control {name}: {control}"));
            }
            let _ = std::fs::remove_file(w.root.join("null-node"));
            let _ = Command::new("ip").args(["route", "del", "203.0.113.0/24", "dev", "lo"]).output();
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What other processes share on the host: SysV shared memory, `/dev/shm`, other processes'
/// command lines and environment. `ARGS`: the shm key, the `/dev/shm` file, the victim's pid.
const SHARED_WITH_HOST: &[(&str, &str)] = &[
    (
        "sysv_shm",
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nassert libc.shmget(int(ARGS[0]), 0, 0) >= 0, ctypes.get_errno()",
    ),
    ("dev_shm", "assert open(ARGS[1]).read() == 'host memory'"),
    ("proc_cmdline", "assert b'wicket-victim-marker' in open('/proc/' + ARGS[2] + '/cmdline', 'rb').read()"),
    ("proc_environ", "assert b'WICKET_VICTIM=1' in open('/proc/' + ARGS[2] + '/environ', 'rb').read()"),
    (
        "proc_scan",
        "found = []\nfor p in os.listdir('/proc'):\n    try:\n        found.append(b'wicket-victim-marker' in open('/proc/' + p + '/cmdline', 'rb').read())\n    except Exception:\n        pass\nassert any(found)",
    ),
];

#[test]
fn host_memory_and_other_processes_are_out_of_sight() {
    let mut failures = Vec::new();
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let key = (std::process::id() % 100_000 + 700_000).to_string();
        let made = Command::new("python3")
            .args(["-c", &format!("import ctypes\nassert ctypes.CDLL(None).shmget({key}, 4096, 0o1600) >= 0")])
            .status()
            .unwrap();
        assert!(made.success(), "a SysV segment for the test");
        let shm_file = format!("/dev/shm/wicket-escape-{}", std::process::id());
        std::fs::write(&shm_file, "host memory").unwrap();
        let mut victim2 = Command::new("python3")
            .args(["-c", "import time; time.sleep(60)", "wicket-victim-marker"])
            .env("WICKET_VICTIM", "1")
            .spawn()
            .unwrap();
        let pid = victim2.id().to_string();
        for (name, code) in SHARED_WITH_HOST {
            let script = w.script(&format!("shared-{name}"), code);
            let args = ["python3", script.to_str().unwrap(), key.as_str(), shm_file.as_str(), pid.as_str()];
            let out = w.wicket(backend, None, &args);
            let got = verdict(&out);
            if !got.starts_with("BLOCKED") {
                failures.push(format!("{backend}: {name}: {got} {}", String::from_utf8_lossy(&out.stderr).trim()));
            }
            let control = verdict(&w.direct(&args));
            if control != "ESCAPED" {
                failures.push(format!("control {name}: {control}"));
            }
        }
        let _ = victim2.kill();
        let _ = victim2.wait();
        let _ = std::fs::remove_file(&shm_file);
        let _ = Command::new("python3")
            .args(["-c", &format!("import ctypes\nl = ctypes.CDLL(None)\nl.shmctl(l.shmget({key}, 0, 0), 0, None)")])
            .status();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A chain of 30 daemons (each forks, starts a new session, and its parent exits), the last
/// one writing a marker a few seconds later.
const DAEMON_CHAIN: &str = "def chain(n):\n    if os.fork() != 0:\n        os._exit(0)\n    os.setsid()\n    if n > 0:\n        chain(n - 1)\n    time.sleep(3)\n    open(ARGS[0], 'w').write('alive')\n    os._exit(0)\nif os.fork() == 0:\n    chain(30)\ntime.sleep(float(ARGS[1]))";

fn marker_written_later(marker: &Path) -> bool {
    std::thread::sleep(Duration::from_secs(5));
    marker.exists()
}

/// Nothing of a run survives it: not a chain of 30 daemons when the command ends, and not when
/// wicket itself is killed with SIGKILL mid-run. The control: the chain outlives its starter.
#[test]
fn no_daemon_outlives_the_run_or_a_killed_wicket() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let script = w.script("daemons", DAEMON_CHAIN);
        let marker = w.root.join("daemon-marker");
        // The command ends at once; the chain must die with it.
        let out = w.wicket(backend, None, &["python3", script.to_str().unwrap(), marker.to_str().unwrap(), "0"]);
        assert!(out.status.code().is_some(), "{backend}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!marker_written_later(&marker), "{backend}: a daemon outlived the command");
        // wicket killed mid-run.
        let mut c = Command::new(wicket_bin());
        c.args(["run", "--root"]).arg(&w.root).args([
            "--",
            "python3",
            script.to_str().unwrap(),
            marker.to_str().unwrap(),
            "30",
        ]);
        c.env("HOME", &w.home)
            .env("WICKET_HOME", w.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
            .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
            .current_dir(&w.root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = c.spawn().unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!marker_written_later(&marker), "{backend}: a daemon survived kill -9 of wicket");
        let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
        let left: Vec<String> = String::from_utf8_lossy(&ps.stdout)
            .lines()
            .filter(|l| l.contains(script.to_str().unwrap()) && !l.starts_with("ps "))
            .map(str::to_string)
            .collect();
        assert!(left.is_empty(), "{backend}: left behind: {left:?}");
        // Control: started directly, the chain outlives its starter.
        let out = w.direct(&["python3", script.to_str().unwrap(), marker.to_str().unwrap(), "0"]);
        assert!(out.status.success());
        assert!(marker_written_later(&marker), "control: the daemon chain survives outside wicket");
        let _ = std::fs::remove_file(&marker);
    }
}

// ---- Git metadata: the host's next `git` must not follow anything a sandboxed command made ----

/// A git redirection: `setup` runs on the host first (shell, in the root), `attack` is Python
/// run inside the sandbox (and again outside as the control); afterwards the host's own git,
/// run in `check_in` (relative to the root), must not see `evil.marker`. Each attack writes the
/// marker where git would read it through the redirection named.
struct GitAttack {
    name: &'static str,
    setup: &'static str,
    attack: &'static str,
    check_in: &'static str,
}

/// A fake git folder at `P` whose config carries the marker (Python helper, in every attack).
const FAKE_GIT: &str = "def fake(p, extra=''):\n    for d in ('objects', 'refs'):\n        os.makedirs(p + '/' + d, exist_ok=True)\n    open(p + '/HEAD', 'w').write('ref: refs/heads/main\\n')\n    open(p + '/config', 'w').write('[core]\\n\\trepositoryformatversion = 0\\n[evil]\\n\\tmarker = yes\\n' + extra)\n";

const GIT_ATTACKS: &[GitAttack] = &[
    GitAttack {
        name: "commondir",
        setup: "",
        attack: "fake(ROOT + '/evil')\nopen(ROOT + '/.git/commondir', 'w').write(ROOT + '/evil\\n')",
        check_in: ".",
    },
    GitAttack {
        name: "config_worktree",
        setup: "git config core.repositoryformatversion 1 && git config extensions.worktreeConfig true",
        attack: "open(ROOT + '/.git/config.worktree', 'w').write('[evil]\\n\\tmarker = yes\\n')",
        check_in: ".",
    },
    GitAttack {
        name: "include_inside_git",
        setup: "git config include.path extra.inc",
        attack: "open(ROOT + '/.git/extra.inc', 'w').write('[evil]\\n\\tmarker = yes\\n')",
        check_in: ".",
    },
    GitAttack {
        name: "include_if_inside_git",
        setup: "git config includeIf.onbranch:main.path ../.git/inc/on-main",
        attack: "os.makedirs(ROOT + '/.git/inc', exist_ok=True)\nopen(ROOT + '/.git/inc/on-main', 'w').write('[evil]\\n\\tmarker = yes\\n')",
        check_in: ".",
    },
    GitAttack {
        name: "new_submodule_gitdir",
        setup: "",
        attack: "fake(ROOT + '/.git/modules/sub')\nos.makedirs(ROOT + '/sub', exist_ok=True)\nopen(ROOT + '/sub/.git', 'w').write('gitdir: ../.git/modules/sub\\n')",
        check_in: "sub",
    },
    GitAttack {
        name: "existing_submodule_config",
        setup: "mkdir -p .git/modules/m/objects .git/modules/m/refs m && printf 'ref: refs/heads/main\\n' > .git/modules/m/HEAD && printf '[core]\\n\\trepositoryformatversion = 0\\n' > .git/modules/m/config && printf 'gitdir: ../.git/modules/m\\n' > m/.git",
        attack: "open(ROOT + '/.git/modules/m/config', 'a').write('[evil]\\n\\tmarker = yes\\n')",
        check_in: "m",
    },
    GitAttack {
        name: "worktree_admin_commondir",
        setup: "mkdir -p .git/worktrees/w/refs && printf 'ref: refs/heads/main\\n' > .git/worktrees/w/HEAD && printf '../..\\n' > .git/worktrees/w/commondir && mkdir -p w && printf \"gitdir: $PWD/.git/worktrees/w\\n\" > w/.git",
        attack: "fake(ROOT + '/evil')\nopen(ROOT + '/.git/worktrees/w/commondir', 'w').write(ROOT + '/evil\\n')",
        check_in: "w",
    },
    GitAttack {
        name: "rename_and_replace_git",
        setup: "",
        attack: "os.rename(ROOT + '/.git', ROOT + '/.git-old')\nfake(ROOT + '/.git')",
        check_in: ".",
    },
    GitAttack {
        name: "remove_and_replace_git",
        setup: "",
        attack: "shutil.rmtree(ROOT + '/.git')\nfake(ROOT + '/.git')",
        check_in: ".",
    },
];

/// A fresh world whose root is a real git repository (hooks and info removed, so nothing of the
/// protected set exists), with `setup` applied.
fn git_world(setup: &str) -> World {
    let w = World::new();
    let _ = std::fs::remove_dir_all(w.root.join(".git"));
    let _ = std::fs::remove_dir_all(w.root.join(".vscode"));
    let _ = std::fs::remove_dir_all(w.root.join(".wicket"));
    host_sh(&w, "git init -q -b main . && rm -rf .git/hooks .git/info");
    if !setup.is_empty() {
        host_sh(&w, setup);
    }
    w
}

fn host_git_env(w: &World, c: &mut Command) {
    c.env("HOME", &w.home).env("GIT_CEILING_DIRECTORIES", &w.dir).env_remove("GIT_DIR").env_remove("GIT_WORK_TREE");
}

fn host_sh(w: &World, script: &str) {
    let mut c = Command::new("sh");
    c.args(["-c", script]).current_dir(&w.root);
    host_git_env(w, &mut c);
    let out = c.output().unwrap();
    assert!(out.status.success(), "{script}: {}", String::from_utf8_lossy(&out.stderr));
}

/// What the host's git sees for `evil.marker` in `dir`.
fn host_marker(w: &World, dir: &str) -> String {
    if !w.root.join(dir).is_dir() {
        return String::new();
    }
    let mut c = Command::new("git");
    c.args(["config", "--get", "evil.marker"]).current_dir(w.root.join(dir));
    host_git_env(w, &mut c);
    String::from_utf8_lossy(&c.output().unwrap().stdout).trim().to_string()
}

fn run_git_attacks(backend: &str) {
    let mut failures = Vec::new();
    for a in GIT_ATTACKS {
        let w = git_world(a.setup);
        let code = format!("{FAKE_GIT}{}", a.attack);
        let script = w.script(a.name, &code);
        let args = ["python3", script.to_str().unwrap()];
        let inside = w.wicket(backend, None, &args);
        let seen = host_marker(&w, a.check_in);
        if seen == "yes" {
            failures.push(format!(
                "{backend}: {}: the host's git follows what the sandbox made ({}; stderr: {})",
                a.name,
                verdict(&inside),
                String::from_utf8_lossy(&inside.stderr).trim()
            ));
        }
        // The control, in a fresh world: the same attack outside the sandbox works.
        let w = git_world(a.setup);
        let script = w.script(a.name, &code);
        let control = verdict(&w.direct(&["python3", script.to_str().unwrap()]));
        let seen = host_marker(&w, a.check_in);
        if control != "ESCAPED" || seen != "yes" {
            failures.push(format!("control for {}: {control}, host git sees {seen:?}", a.name));
        }
    }
    assert!(failures.is_empty(), "{} git escape(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn git_redirections_are_blocked_by_bwrap() {
    run_git_attacks("bwrap");
}

#[test]
fn git_redirections_are_blocked_by_the_landlock_fallback() {
    run_git_attacks("landlock");
}

/// A project without `.git` cannot gain one that the host's git honours.
#[test]
fn a_new_git_in_a_project_without_one_is_not_honoured() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let _ = std::fs::remove_dir_all(w.root.join(".git"));
        let code = format!("{FAKE_GIT}fake(ROOT + '/.git')");
        let script = w.script("new_git", &code);
        let inside = w.wicket(backend, None, &["python3", script.to_str().unwrap()]);
        let seen = host_marker(&w, ".");
        assert_ne!(seen, "yes", "{backend}: {} {}", verdict(&inside), String::from_utf8_lossy(&inside.stderr));
        assert!(!w.root.join(".git").exists(), "{backend}: the empty .git placeholder is gone after the run");
        let _ = std::fs::remove_dir_all(w.root.join(".git"));
        assert_eq!(verdict(&w.direct(&["python3", script.to_str().unwrap()])), "ESCAPED");
        assert_eq!(host_marker(&w, "."), "yes", "control: a .git made outside the sandbox is honoured");
    }
}

/// A linked worktree (the root's `.git` is a file): the file cannot be re-pointed, the common
/// folder's config cannot be written, and commits still work.
#[test]
fn a_git_file_is_protected_and_commits_still_work() {
    let w = World::new();
    let main = w.dir.join("mainrepo");
    std::fs::create_dir_all(&main).unwrap();
    let _ = std::fs::remove_dir_all(&w.root);
    let sh = |dir: &Path, s: &str| {
        let mut c = Command::new("sh");
        c.args(["-c", s]).current_dir(dir);
        host_git_env(&w, &mut c);
        let o = c.output().unwrap();
        assert!(o.status.success(), "{s}: {}", String::from_utf8_lossy(&o.stderr));
    };
    sh(&main, "git init -q -b main . && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m init");
    sh(&main, &format!("git worktree add -q -b wt {}", w.root.display()));
    let code = format!(
        "{FAKE_GIT}fake(ROOT + '/../evilgit')\nopen(ROOT + '/.git', 'w').write('gitdir: ' + ROOT + '/../evilgit\\n')"
    );
    let repoint = w.script("repoint", &code);
    let common =
        format!("open({:?}, 'a').write('[evil]\\n\\tmarker = yes\\n')", main.join(".git/config").to_string_lossy());
    let common = w.script("common_config", &common);
    let commit = "echo hi > f.txt && git add f.txt && git -c user.name=a -c user.email=a@b commit -q -m in-sandbox && git log --oneline | wc -l";
    let out = w.wicket("bwrap", None, &["python3", repoint.to_str().unwrap()]);
    assert_ne!(host_marker(&w, "."), "yes", "re-pointed .git file: {}", verdict(&out));
    let out = w.wicket("bwrap", None, &["python3", common.to_str().unwrap()]);
    assert_ne!(host_marker(&w, "."), "yes", "common folder config: {}", verdict(&out));
    let out = w.wicket("bwrap", None, &["sh", "-c", commit]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "2", "{}", String::from_utf8_lossy(&out.stderr));
    // Controls.
    assert_eq!(verdict(&w.direct(&["python3", common.to_str().unwrap()])), "ESCAPED");
    assert_eq!(host_marker(&w, "."), "yes");
    assert_eq!(verdict(&w.direct(&["python3", repoint.to_str().unwrap()])), "ESCAPED");
}

/// Everyday git keeps working inside the sandbox: add, commit, stash, branch.
#[test]
fn everyday_git_works_inside_the_sandbox() {
    for backend in ["bwrap", "landlock"] {
        let w = git_world("");
        let script =
            "set -e; export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b
echo one > a.txt; git add a.txt; git commit -q -m one
git branch feature; echo two >> a.txt; git stash -q; git stash list | wc -l; git switch -q feature
echo three > b.txt; git add b.txt; git commit -q -m three; git log --oneline --all | wc -l; echo done";
        let out = w.wicket(backend, None, &["sh", "-c", script]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.trim_end().ends_with("done"), "{backend}: {text} {}", String::from_utf8_lossy(&out.stderr));
    }
}

// ---- Parallel runs share the placeholders; none fails, none leaves anything behind ----

/// Every path below `dir` (links not followed), sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        // A folder may go while it is listed (a placeholder being removed).
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            out.push(e.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// 8 concurrent `wicket run`s x 50 rounds in one git project with none of the protected paths
/// present: every run succeeds, none sees a protected name appear (nothing stands in for them),
/// each one's new file reaches the project, and nothing else changes.
#[test]
fn parallel_runs_in_one_project_all_succeed_and_leave_nothing() {
    let w = git_world("");
    let before = listing(&w.root);
    assert!(!before.iter().any(|p| p == ".mcp.json" || p == ".wicket" || p == ".git/hooks"));
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for t in 0..8 {
            let (w, failures) = (&w, &failures);
            s.spawn(move || {
                for round in 0..50 {
                    let script = format!(
                        "test ! -e .git/hooks && test ! -e .mcp.json && echo {t}-{round} > out-{t}-{round} && echo ok"
                    );
                    let out = w.wicket("bwrap", None, &["sh", "-c", &script]);
                    if !out.status.success() || verdict(&out) != "ok" {
                        failures.lock().unwrap().push(format!(
                            "thread {t} round {round}: {:?} {} {}",
                            out.status.code(),
                            verdict(&out),
                            String::from_utf8_lossy(&out.stderr).trim()
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{} of 400 runs failed:\n{}", failures.len(), failures.join("\n"));
    let mut expected = before.clone();
    for t in 0..8 {
        for round in 0..50 {
            let name = format!("out-{t}-{round}");
            assert_eq!(std::fs::read_to_string(w.root.join(&name)).unwrap(), format!("{t}-{round}\n"));
            expected.push(name);
        }
    }
    expected.sort();
    assert_eq!(listing(&w.root), expected, "the project changed");
}

/// As root, the sandbox hides root-only system files; one that vanishes between the search and
/// bubblewrap's set-up (a system tool's lock file: `usermod` makes and removes `/etc/passwd.lock`)
/// left bubblewrap unable to make its mount point, and the run failed without running the
/// command. The file is removed here the moment wicket has started bubblewrap (its phase trace
/// says so), which is that race every time; the run must be set up again and succeed. Where
/// wicket masks it in its own namespace before bubblewrap starts, the mask of a file gone by
/// then is left out, and every run succeeds the first time.
#[test]
fn a_root_only_file_that_vanishes_as_the_sandbox_starts_does_not_fail_the_run() {
    if !is_root() {
        return; // only root's runs hide root-only files
    }
    // bubblewrap makes the masks: it meets the race and the run is set up again.
    let raced = vanishing_root_only_file(true);
    assert!(raced > 0, "the file never vanished before bubblewrap reached it: the race was not made");
    // wicket makes them before bubblewrap starts: a file already gone has no mask, and no run
    // needs setting up again.
    assert_eq!(vanishing_root_only_file(false), 0);
}

/// Ten runs, each with a root-only file removed the moment bubblewrap starts; how many of them
/// were set up again (`bwrap_masks`: bubblewrap makes every mask).
fn vanishing_root_only_file(bwrap_masks: bool) -> usize {
    use std::io::BufRead;
    use std::os::unix::fs::OpenOptionsExt;
    let w = git_world("");
    let dir = PathBuf::from(format!("/opt/wicket-vanish-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("passwd.lock");
    let mut raced = 0;
    for attempt in 0..10 {
        std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&file).unwrap();
        let mut c = Command::new(wicket_bin());
        c.arg("run").arg("--root").arg(&w.root).args(["--", "sh", "-c", "echo ok"]);
        c.env("HOME", &w.home)
            .env("WICKET_HOME", w.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", "bwrap")
            .env("WICKET_TRACE_PHASES", "1")
            .current_dir(&w.root)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c.env("WICKET_BWRAP_MASKS", if bwrap_masks { "1" } else { "0" });
        let mut child = c.spawn().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let out_t = std::thread::spawn(move || {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut stdout, &mut s).unwrap();
            s
        });
        let mut err = String::new();
        for line in std::io::BufReader::new(child.stderr.take().unwrap()).lines() {
            let line = line.unwrap();
            // bubblewrap is starting: the file it was told to hide goes now.
            if line.contains("phase") && line.ends_with(" spawned") {
                let _ = std::fs::remove_file(&file);
            }
            err.push_str(&line);
            err.push('\n');
        }
        let status = child.wait().unwrap();
        let out = out_t.join().unwrap();
        assert!(status.success() && out.trim() == "ok", "attempt {attempt}: {status:?} {out:?}\n{err}");
        if err.contains("the sandbox is set up again") {
            raced += 1;
            if raced == 3 {
                break;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    raced
}

/// As root, wicket installed or built inside another user's 0750 home (a `sudo` run from a
/// checkout there): root passes that folder only by its capabilities, which the sandbox drops,
/// so bubblewrap could not start the shim by its path ("Permission denied") and no command ran.
/// The shim is then started from a descriptor.
#[test]
fn root_runs_wicket_from_a_folder_only_its_capabilities_pass() {
    use std::os::unix::fs::PermissionsExt;
    if !is_root() {
        return; // a user reaches its own binary without capabilities
    }
    let w = git_world("");
    let private = w.dir.join("someone-else");
    let bin = private.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in ["wicket", "wicket-shim"] {
        let from = wicket_bin().with_file_name(name);
        if from.exists() {
            std::fs::copy(&from, bin.join(name)).unwrap();
        }
    }
    // Another user's home: owner and group someone else, no search bit for others.
    std::os::unix::fs::chown(&private, Some(65534), Some(65534)).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o750)).unwrap();
    let run = || {
        let mut c = Command::new(bin.join("wicket"));
        c.arg("run").arg("--root").arg(&w.root).args(["--", "sh", "-c", "echo ok"]);
        c.env("HOME", &w.home)
            .env("WICKET_HOME", w.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", "bwrap")
            .current_dir(&w.root)
            .stdin(Stdio::null());
        c.output()
    };
    let out = output_of_copy(run);
    assert!(
        out.status.success() && verdict(&out) == "ok",
        "{:?} {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The output of `run`, which starts a copy of wicket just made: such a copy can be busy for a
/// moment (another test's fork still holds its write end), so ETXTBSY is tried again.
fn output_of_copy(run: impl Fn() -> std::io::Result<std::process::Output>) -> std::process::Output {
    let mut out = run();
    for _ in 0..50 {
        match &out {
            Err(e) if e.raw_os_error() == Some(26) /* ETXTBSY */ => {
                std::thread::sleep(Duration::from_millis(20));
                out = run();
            }
            _ => break,
        }
    }
    out.unwrap()
}

/// As root, wicket installed in a folder only root may read (a 0700 folder of root's where
/// wicket's search for root-only files looks, as `cargo install --root` into one makes): the
/// sandbox masks that folder, so the helper that builds it must not be started by a path the
/// masks already hide ("No such file or directory", and no command ran).
#[test]
fn root_runs_wicket_installed_in_a_folder_the_sandbox_masks() {
    use std::os::unix::fs::PermissionsExt;
    if !is_root() {
        return; // only root's runs mask root-only folders
    }
    let w = git_world("");
    let private = PathBuf::from(format!("/opt/wicket-installed-{}", std::process::id()));
    let bin = private.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in ["wicket", "wicket-shim"] {
        let from = wicket_bin().with_file_name(name);
        if from.exists() {
            std::fs::copy(&from, bin.join(name)).unwrap();
        }
    }
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let run = || {
        Command::new(bin.join("wicket"))
            .arg("run")
            .arg("--root")
            .arg(&w.root)
            .args(["--", "sh", "-c", "echo ok"])
            .env("HOME", &w.home)
            .env("WICKET_HOME", w.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", "bwrap")
            .current_dir(&w.root)
            .stdin(Stdio::null())
            .output()
    };
    let out = output_of_copy(run);
    let _ = std::fs::remove_dir_all(&private);
    assert!(
        out.status.success() && verdict(&out) == "ok",
        "{:?} {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A `kill -9` of wicket mid-run loses nothing and leaves nothing in the project: what the
/// command wrote below the root's subfolders is there (written in place), what it made at the
/// top level never appears, and the next run holds it for a person.
#[test]
fn a_killed_run_loses_nothing_and_leaves_nothing() {
    for backend in ["bwrap", "landlock"] {
        let w = git_world("");
        std::fs::create_dir_all(w.root.join("sub")).unwrap();
        let before = listing(&w.root);
        let mut c = Command::new(wicket_bin());
        c.args(["run", "--root"]).arg(&w.root).args([
            "--",
            "sh",
            "-c",
            "echo top > NEWTOP && echo s > sub/started && sleep 30",
        ]);
        c.env("HOME", &w.home)
            .env("WICKET_HOME", w.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
            .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
            .current_dir(&w.root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = c.spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while !w.root.join("sub/started").exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(w.root.join("sub/started").exists(), "{backend}: the command did not start");
        assert!(!w.root.join("NEWTOP").exists(), "{backend}: a new top-level name reached the project mid-run");
        child.kill().unwrap();
        child.wait().unwrap();
        let mut expected = before.clone();
        expected.push("sub/started".to_string());
        expected.sort();
        let deadline = Instant::now() + Duration::from_secs(5);
        while listing(&w.root) != expected && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(listing(&w.root), expected, "{backend}: after wicket was killed");
        // The next run finds what the killed one made and holds it.
        let next = w.wicket(backend, None, &["true"]);
        assert!(held_not_landed(&w.root, "NEWTOP", &next), "{backend}: {}", String::from_utf8_lossy(&next.stderr));
        assert_eq!(listing(&w.root), expected, "{backend}: after the next run");
    }
}

/// Runs one after another in one project: none sees a stand-in for a missing protected name,
/// and when `wicket run` returns the project is as it was.
#[test]
fn back_to_back_runs_leave_nothing_when_they_return() {
    let w = git_world("");
    let before = listing(&w.root);
    let mut left = Vec::new();
    for round in 0..20 {
        let out = w.wicket("bwrap", None, &["sh", "-c", "test ! -e .git/hooks && test ! -e .mcp.json && echo ok"]);
        assert_eq!(verdict(&out), "ok", "round {round}: {}", String::from_utf8_lossy(&out.stderr));
        let after = listing(&w.root);
        if after != before {
            left.push(format!("round {round}: {:?}", after.iter().filter(|p| !before.contains(p)).collect::<Vec<_>>()));
        }
    }
    assert!(left.is_empty(), "left in the project when wicket returned:\n{}", left.join("\n"));
}

/// Two overlapping runs each make a new file at the top level: neither sees the other's while
/// both run (each lands when its run ends), and both are in the project once both have ended,
/// with nothing else.
#[test]
fn overlapping_runs_each_land_their_own_new_files() {
    let w = git_world("");
    let before = listing(&w.root);
    let mut c = Command::new(wicket_bin());
    c.args(["run", "--root"]).arg(&w.root).args(["--", "sh", "-c", "echo 1 > first.txt && sleep 2"]);
    c.env("HOME", &w.home)
        .env("WICKET_HOME", w.dir.join("wicket-home"))
        .env("WICKET_SANDBOX_BACKEND", "bwrap")
        .current_dir(&w.root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut first = c.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let second =
        w.wicket("bwrap", None, &["sh", "-c", "test ! -e first.txt && echo 2 > second.txt && sleep 2 && echo ok"]);
    assert_eq!(verdict(&second), "ok", "{}", String::from_utf8_lossy(&second.stderr));
    assert!(first.wait().unwrap().success());
    let mut expected = before.clone();
    expected.extend(["first.txt".to_string(), "second.txt".to_string()]);
    expected.sort();
    assert_eq!(listing(&w.root), expected);
    assert_eq!(std::fs::read_to_string(w.root.join("first.txt")).unwrap(), "1\n");
    assert_eq!(std::fs::read_to_string(w.root.join("second.txt")).unwrap(), "2\n");
}

/// A command that keeps trying to make things where the placeholders stand (it cannot while
/// they are read-only; it could the moment one is removed while it still runs).
const PLANT_LOOP: &str = "print('started', flush=True)\nwhile True:\n    for p in ('.git/hooks/x', '.git/info/x', '.mcp.json/x'):\n        try:\n            os.makedirs(p)\n        except OSError:\n            pass\n";

/// `kill -9` of wicket at many moments of a bubblewrap run (while the placeholders are made,
/// while bubblewrap builds the sandbox, while the command runs), the command trying all the
/// while to create paths where the placeholders stand: every time, the project is soon as it
/// was. The placeholders stay until the sandbox itself is gone (bubblewrap's process 1 holds
/// the run's lease), not merely until wicket is.
#[test]
fn wicket_killed_at_any_moment_leaves_the_project_as_it_was() {
    let w = git_world("");
    let before = listing(&w.root);
    let script = w.script("plant-loop", PLANT_LOOP);
    let mut failures = Vec::new();
    let mut reached = 0;
    for round in 0..30u64 {
        let mut c = Command::new(wicket_bin());
        c.args(["run", "--root"]).arg(&w.root).args(["--", "python3"]).arg(&script);
        c.env("HOME", &w.home)
            .env("WICKET_HOME", w.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", "bwrap")
            .current_dir(&w.root)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = c.spawn().unwrap();
        // Spread over the run's start and first second: 0 to 1,470 ms, in a scattered order.
        std::thread::sleep(Duration::from_millis(round * 490 % 1500));
        child.kill().unwrap();
        child.wait().unwrap();
        // Until the sandbox is gone too (it holds the other end).
        let mut out = String::new();
        let _ = std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out);
        reached += usize::from(out.contains("started"));
        let deadline = Instant::now() + Duration::from_secs(20);
        while listing(&w.root) != before && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let after = listing(&w.root);
        if after != before {
            let extra: Vec<&String> = after.iter().filter(|p| !before.contains(p)).collect();
            let gone: Vec<&String> = before.iter().filter(|p| !after.contains(p)).collect();
            failures.push(format!("round {round}: extra {extra:?}, gone {gone:?}"));
            for p in extra.iter().rev() {
                let p = w.root.join(p);
                let _ = std::fs::remove_dir(&p).or_else(|_| std::fs::remove_file(&p));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(reached >= 3, "only {reached} of 30 runs reached the command: the kills came too early to test it");
}

// ---- Writable paths: resolved once, checked, temp folders private per run ----

/// A host temp folder for one test (the attack needs the real, shared `/tmp`).
fn host_tmp(tag: &str) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let t = PathBuf::from("/tmp").join(format!("wicket-esc-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&t);
    std::fs::create_dir_all(&t).unwrap();
    t
}

/// `TMPDIR` re-pointed at the home through a renamed parent: the first run renames the
/// parent and leaves a link; the next run must not get the home as its temp folder.
#[test]
fn tmpdir_repointed_through_a_renamed_parent_does_not_open_the_home() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let t = host_tmp("repoint");
        let tmpdir = t.join("a/home");
        std::fs::create_dir_all(&tmpdir).unwrap();
        let repoint = format!(
            "os.rename({a:?}, {a:?} + '-old')\nos.symlink({d:?}, {a:?})",
            a = t.join("a").to_string_lossy(),
            d = w.dir.to_string_lossy()
        );
        let stage1 = w.script("repoint", &repoint);
        let stage2 = w.script("via_tmpdir", "open(os.environ['TMPDIR'] + '/.bashrc', 'a').write('evil')");
        let env = [("TMPDIR", tmpdir.as_path())];
        let first = w.wicket_with(backend, &env, &["python3", stage1.to_str().unwrap()]);
        let second = w.wicket_with(backend, &env, &["python3", stage2.to_str().unwrap()]);
        let bashrc = std::fs::read_to_string(w.home.join(".bashrc")).unwrap_or_default();
        assert!(
            !bashrc.contains("evil"),
            "{backend}: the home was written through TMPDIR: {} / {} {}",
            verdict(&first),
            verdict(&second),
            String::from_utf8_lossy(&second.stderr)
        );
        // Control: outside the sandbox both steps work and the home is written.
        let _ = std::fs::remove_file(t.join("a"));
        let _ = std::fs::remove_dir_all(t.join("a-old"));
        std::fs::create_dir_all(&tmpdir).unwrap();
        let direct =
            |s: &Path| Command::new("python3").arg(s).env("HOME", &w.home).env("TMPDIR", &tmpdir).output().unwrap();
        assert_eq!(verdict(&direct(&stage1)), "ESCAPED");
        assert_eq!(verdict(&direct(&stage2)), "ESCAPED");
        assert!(std::fs::read_to_string(w.home.join(".bashrc")).unwrap().contains("evil"), "control");
        let _ = std::fs::remove_dir_all(&t);
    }
}

/// `TMPDIR` that is a link to the home: the run is refused with a clear error.
#[test]
fn tmpdir_linked_to_the_home_is_refused() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let t = host_tmp("link");
        std::os::unix::fs::symlink(&w.home, t.join("lnk")).unwrap();
        let script = w.script("via_tmpdir", "open(os.environ['TMPDIR'] + '/.bashrc', 'a').write('evil')");
        let out = w.wicket_with(backend, &[("TMPDIR", &t.join("lnk"))], &["python3", script.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(126), "{backend}: {} {err}", verdict(&out));
        assert!(err.contains("TMPDIR") && err.contains("home folder"), "{backend}: {err}");
        assert!(!w.home.join(".bashrc").exists());
        let control = Command::new("python3").arg(&script).env("TMPDIR", t.join("lnk")).output().unwrap();
        assert_eq!(verdict(&control), "ESCAPED");
        let _ = std::fs::remove_dir_all(&t);
    }
}

/// Under bubblewrap, `/tmp` is private to the run: nothing written there reaches the host.
#[test]
fn the_temp_folder_is_private_to_the_run() {
    let w = World::new();
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let f = PathBuf::from(format!("/tmp/wicket-esc-private-{}-{n}", std::process::id()));
    let code = format!("open({:?}, 'w').write('x')", f.to_string_lossy());
    let script = w.script("private_tmp", &code);
    let out = w.wicket("bwrap", None, &["python3", script.to_str().unwrap()]);
    assert_eq!(verdict(&out), "ESCAPED", "writing /tmp works inside: {}", String::from_utf8_lossy(&out.stderr));
    assert!(!f.exists(), "a file written to /tmp in the sandbox reached the host");
    assert_eq!(verdict(&w.direct(&["python3", script.to_str().unwrap()])), "ESCAPED");
    assert!(f.exists(), "control");
    let _ = std::fs::remove_file(&f);
}

/// `sandbox.writePaths` naming the home (or a secret) is refused, not bound.
#[test]
fn a_write_path_that_opens_the_home_or_a_secret_is_refused() {
    for (entry, needle) in [("~", "home folder"), ("~/.ssh", "secret"), ("~/.ssh/keys", "secret")] {
        for backend in ["bwrap", "landlock"] {
            let w = World::new();
            std::fs::create_dir_all(w.home.join(".ssh/keys")).unwrap();
            let home = w.dir.join("wicket-home");
            std::fs::create_dir_all(&home).unwrap();
            let settings = format!(r#"{{"sandbox": {{"writePaths": [{entry:?}]}}}}"#);
            std::fs::write(home.join("settings.json"), settings).unwrap();
            let script = w.script("write_home", "open(HOME + '/.bashrc', 'a').write('evil')");
            let out = w.wicket(backend, None, &["python3", script.to_str().unwrap()]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(126), "{entry} {backend}: {} {err}", verdict(&out));
            assert!(err.contains("writePaths") && err.contains(needle), "{entry} {backend}: {err}");
            assert!(!w.home.join(".bashrc").exists());
            assert_eq!(verdict(&w.direct(&["python3", script.to_str().unwrap()])), "ESCAPED", "control");
        }
    }
}

/// Everyday work keeps working in the sandbox (both backends): a Python venv, `npm ci` of a
/// package with no dependencies, (where cargo is on PATH) an offline `cargo build` of a tiny
/// crate, and the file tools the setuid, device and xattr rules touch (`cp -a` and `tar` of a
/// file with an extended attribute, `mkfifo`, `chmod`), in a git project with none of the
/// protected paths present.
#[test]
fn everyday_tools_work_inside_the_sandbox() {
    let real_home = PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    let rustup = std::env::var_os("RUSTUP_HOME").map(PathBuf::from).unwrap_or_else(|| real_home.join(".rustup"));
    let cargo_home = std::env::var_os("CARGO_HOME").map(PathBuf::from).unwrap_or_else(|| real_home.join(".cargo"));
    let has_cargo = Command::new("cargo").arg("--version").output().is_ok_and(|o| o.status.success());
    // A tree to copy: a runnable script, and a file with a user attribute, which a copy
    // inside cannot keep (every xattr call is "not supported" there) and must do without.
    let files = "mkdir -p keep/sub && echo hi > keep/a && printf '#!/bin/sh\\n' > keep/sub/run.sh && chmod 755 keep/sub/run.sh && python3 -c \"import os; os.setxattr('keep/a', 'user.x', b'1')\"";
    let file_tools = "cp -a keep copy && test -x copy/sub/run.sh && echo cp ok\n\
        tar cf k.tar keep && mkdir un && tar xpf k.tar -C un && test -x un/keep/sub/run.sh && echo tar ok\n\
        tar --xattrs -cf kx.tar keep && mkdir unx && tar --xattrs -xpf kx.tar -C unx 2>/dev/null && echo tar xattrs ok\n\
        mkfifo pipe && test -p pipe && echo fifo ok\n\
        chmod 755 keep/a && chmod u-x,g+w keep/a && chmod 644 keep/a && echo chmod ok\n\
        python3 -c 'import shutil; shutil.copytree(\"keep\", \"tree\")' && echo copytree ok\n";
    for backend in ["bwrap", "landlock"] {
        let w = git_world(files);
        let home = w.dir.join("wicket-home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("settings.json"), r#"{"env": {"allow": ["RUSTUP_HOME", "CARGO_HOME"]}}"#).unwrap();
        std::fs::create_dir_all(w.root.join("crate/src")).unwrap();
        std::fs::write(
            w.root.join("crate/Cargo.toml"),
            "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        )
        .unwrap();
        std::fs::write(w.root.join("crate/src/main.rs"), "fn main() { println!(\"tiny ok\"); }\n").unwrap();
        std::fs::create_dir_all(w.root.join("js")).unwrap();
        std::fs::write(
            w.root.join("js/package-lock.json"),
            r#"{"name":"tiny","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{"":{"name":"tiny","version":"1.0.0"}}}"#,
        )
        .unwrap();
        std::fs::write(w.root.join("js/package.json"), r#"{"name":"tiny","version":"1.0.0"}"#).unwrap();
        let mut script = String::from(
            "set -e\npython3 -m venv .venv && .venv/bin/python -c 'print(\"venv ok\")'\n(cd js && npm ci --offline --no-audit --no-fund >/dev/null 2>&1 && echo npm ok)\n",
        );
        script.push_str(file_tools);
        if has_cargo {
            script.push_str("(cd crate && cargo build -q --offline && ./target/debug/tiny)\n");
        } else {
            eprintln!("cargo is not on PATH here: the cargo part is not run");
        }
        let env = [("RUSTUP_HOME", rustup.as_path()), ("CARGO_HOME", cargo_home.as_path())];
        let out = w.wicket_with(backend, &env, &["sh", "-c", &script]);
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(text.contains("venv ok") && text.contains("npm ok"), "{backend}: {text} {err}");
        for tool in ["cp", "tar", "tar xattrs", "fifo", "chmod", "copytree"] {
            assert!(text.contains(&format!("{tool} ok")), "{backend}: {tool}: {text} {err}");
        }
        if has_cargo {
            assert!(text.contains("tiny ok"), "{backend}: {text} {err}");
        }
    }
}

// --- Issue 13 items 6 and 7: the shared lists, every home, links, the project's own secrets ---

/// One credential of each class the masks cover beyond the classic ones, as paths below the
/// home: each must be unreadable inside (both backends) and readable outside.
const HOME_CREDENTIALS: &[&str] = &[
    ".config/git/credentials",
    ".git-credentials",
    ".gemini/oauth_creds.json",
    ".qwen/oauth_creds.json",
    ".config/github-copilot/apps.json",
    ".local/share/opencode/auth.json",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".gem/credentials",
    ".config/containers/auth.json",
    ".docker/contexts/meta/x/meta.json",
    ".terraform.d/credentials.tfrc.json",
    ".config/rclone/rclone.conf",
    ".config/sops/age/keys.txt",
    ".cache/huggingface/token",
    ".bash_history",
    ".zsh_history",
    ".local/share/fish/fish_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".mozilla/firefox/abc.default/logins.json",
    ".config/google-chrome/Default/Cookies",
    ".config/chromium/Default/Login Data",
    ".local/share/keyrings/login.keyring",
];

/// A script that tries to read each path listed in the file `ARGS[0]` (so the gate, which sees
/// only the command line, cannot refuse the run) and prints `READ <path>` for those it could.
const READ_EACH: &str = "for p in open(ARGS[0]).read().split('\\n'):\n    try:\n        open(p).read()\n        print('READ', p)\n    except Exception:\n        pass";

fn readable(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| l.strip_prefix("READ ").map(str::to_string)).collect()
}

/// A file of paths for [`READ_EACH`], outside the project and the home.
fn path_list(w: &World, name: &str, paths: &[&str]) -> String {
    let f = w.dir.join(format!("{name}.paths"));
    std::fs::write(&f, paths.join("\n")).unwrap();
    f.to_string_lossy().into_owned()
}

fn write_file(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn every_new_credential_class_is_unreadable_inside() {
    for backend in ["bwrap", "bwrap-masks", "landlock"] {
        let w = World::new();
        std::fs::create_dir_all(w.home.join(".cache")).unwrap();
        let mut paths: Vec<String> = HOME_CREDENTIALS
            .iter()
            .map(|rel| {
                let p = w.home.join(rel);
                write_file(&p, "secret");
                p.to_string_lossy().into_owned()
            })
            .collect();
        // The per-user runtime folder's container registry login.
        let runtime = w.dir.join("run-user");
        write_file(&runtime.join("containers/auth.json"), "secret");
        paths.push(runtime.join("containers/auth.json").to_string_lossy().into_owned());
        let script = w.script("creds", READ_EACH);
        let list = path_list(&w, "creds", &paths.iter().map(String::as_str).collect::<Vec<_>>());
        let args = ["python3", script.to_str().unwrap(), list.as_str()];
        let inside = w.wicket_with(backend, &[("XDG_RUNTIME_DIR", &runtime)], &args);
        assert!(verdict(&inside).ends_with("ESCAPED"), "{backend}: {}", String::from_utf8_lossy(&inside.stderr));
        assert_eq!(readable(&inside), Vec::<String>::new(), "{backend}: credentials read inside");
        // Control: every one of them is readable outside.
        assert_eq!(readable(&w.direct(&args)), paths, "control");
    }
}

#[test]
fn a_symlinked_ssh_folder_is_masked_and_the_run_succeeds() {
    for backend in ["bwrap", "bwrap-masks", "landlock"] {
        let w = World::new();
        // A dotfiles setup: ~/.ssh is a link to a folder elsewhere.
        std::fs::remove_dir_all(w.home.join(".ssh")).unwrap();
        let dots = w.dir.join("dotfiles/ssh");
        write_file(&dots.join("id_ed25519"), "secret");
        std::os::unix::fs::symlink(&dots, w.home.join(".ssh")).unwrap();
        let through_link = w.home.join(".ssh/id_ed25519");
        let target = dots.join("id_ed25519");
        let script = w.script("sshlink", READ_EACH);
        let list = path_list(&w, "sshlink", &[through_link.to_str().unwrap(), target.to_str().unwrap()]);
        let args = ["python3", script.to_str().unwrap(), list.as_str()];
        let inside = w.wicket(backend, None, &args);
        assert_eq!(
            inside.status.code(),
            Some(0),
            "{backend}: the run fails: {}",
            String::from_utf8_lossy(&inside.stderr)
        );
        assert!(verdict(&inside).ends_with("ESCAPED"), "{backend}: the script did not run");
        assert_eq!(readable(&inside), Vec::<String>::new(), "{backend}: the key was read");
        assert_eq!(readable(&w.direct(&args)).len(), 2, "control");
    }
}

/// The uid and gid of a user, from `id`.
fn ids_of(user: &str) -> Option<(u32, u32)> {
    let id = |flag: &str| -> Option<u32> {
        let out = Command::new("id").args([flag, user]).output().ok()?;
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    };
    Some((id("-u")?, id("-g")?))
}

/// Can every user reach `p` (search permission for others on each folder above it)?
fn reachable_by_all(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.ancestors().skip(1).all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
}

/// A folder another user can reach, for a test that runs wicket as that user: the usual base
/// when it is reachable, else one in [`common::SHARED_BASE`] (a clone in a private folder).
fn base_for_others() -> PathBuf {
    let b = base();
    if reachable_by_all(&b) {
        return b;
    }
    let dir = PathBuf::from(common::SHARED_BASE).join("for-others");
    std::fs::create_dir_all(&dir).unwrap();
    for a in dir.ancestors().take_while(|a| a.starts_with("/srv/wicket-tests")) {
        std::fs::set_permissions(a, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    dir
}

/// wicket's binaries where another user can run them: as built when reachable, else copies in
/// `base` (a clone in a private folder).
fn wicket_for_others(base: &Path) -> PathBuf {
    let bin = wicket_bin();
    if reachable_by_all(&bin) {
        return bin;
    }
    let dir = base.join(format!("bin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["wicket", "wicket-shim"] {
        let from = bin.with_file_name(name);
        if from.exists() {
            std::fs::copy(&from, dir.join(name)).unwrap();
        }
    }
    dir.join("wicket")
}

#[test]
fn the_account_home_stays_masked_when_home_points_elsewhere() {
    let w = if is_root() { World::in_base(&base_for_others()) } else { World::new() };
    if is_root() {
        // A user whose password-database home is a folder of this test, so no real home is
        // touched; wicket runs as that user with HOME pointing at the fake home.
        let user = "wicketpwtest";
        let pw_home = w.dir.join("pw-home");
        let _ = std::fs::remove_dir_all(&pw_home);
        if ids_of(user).is_none() {
            let made = Command::new("useradd").args(["-M", "-s", "/bin/sh", "-d"]).arg(&pw_home).arg(user).status();
            assert!(made.unwrap().success(), "useradd");
        } else {
            assert!(Command::new("usermod").arg("-d").arg(&pw_home).arg(user).status().unwrap().success());
        }
        let (uid, gid) = ids_of(user).unwrap();
        let secret = pw_home.join(".ssh/id_rsa");
        write_file(&secret, "secret");
        let history = pw_home.join(".bash_history");
        write_file(&history, "export TOKEN=x");
        for p in [&pw_home, &pw_home.join(".ssh"), &secret, &history, &w.dir, &w.root, &w.home] {
            std::os::unix::fs::chown(p, Some(uid), Some(gid)).unwrap();
        }
        let script = w.script("pwhome", READ_EACH);
        std::os::unix::fs::chown(&script, Some(uid), Some(gid)).unwrap();
        let list = path_list(&w, "pwhome", &[secret.to_str().unwrap(), history.to_str().unwrap()]);
        let args = [script.to_str().unwrap(), list.as_str()];
        let bin = wicket_for_others(&w.dir);
        let run = |sandboxed: bool, backend: &str| {
            use std::os::unix::process::CommandExt;
            let mut c = if sandboxed {
                let mut c = Command::new(&bin);
                c.arg("run").arg("--root").arg(&w.root).args(["--", "python3"]);
                c
            } else {
                Command::new("python3")
            };
            c.args(args)
                .uid(uid)
                .gid(gid)
                .env("HOME", &w.home)
                .env("WICKET_HOME", w.dir.join("wicket-home"))
                .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
                .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
                .current_dir(&w.root)
                .stdin(Stdio::null());
            c.output().unwrap()
        };
        for backend in ["bwrap", "landlock"] {
            let inside = run(true, backend);
            assert!(verdict(&inside).ends_with("ESCAPED"), "{backend}: {}", String::from_utf8_lossy(&inside.stderr));
            assert_eq!(readable(&inside), Vec::<String>::new(), "{backend}: the account home's secrets were read");
        }
        assert_eq!(readable(&run(false, "host")).len(), 2, "control: the same user reads them outside");
        let _ = std::fs::remove_dir_all(&pw_home);
    } else {
        // Unprivileged: no user can be made, and the real home is never written. Whatever
        // secret the account home already holds must stay hidden with HOME elsewhere.
        let home = wicket_policy::paths::account_home().expect("this account has a home in /etc/passwd");
        let found: Vec<String> =
            [".ssh/id_rsa", ".ssh/id_ed25519", ".bash_history", ".python_history", ".psql_history"]
                .iter()
                .map(|r| home.join(r))
                .filter(|p| std::fs::read(p).is_ok())
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
        let script = w.script("pwhome", READ_EACH);
        let list = path_list(&w, "pwhome", &found.iter().map(String::as_str).collect::<Vec<_>>());
        let args = ["python3", script.to_str().unwrap(), list.as_str()];
        for backend in ["bwrap", "landlock"] {
            let inside = w.wicket(backend, None, &args);
            assert!(verdict(&inside).ends_with("ESCAPED"), "{backend}: {}", String::from_utf8_lossy(&inside.stderr));
            assert_eq!(readable(&inside), Vec::<String>::new(), "{backend}: the account home's secrets were read");
        }
        eprintln!("account home {}: {} secret(s) checked", home.display(), found.len());
    }
}

/// New protected paths in the project: each must be unwritable inside when it exists and, for
/// the ones with a placeholder, uncreatable when missing; the project is unchanged afterwards.
const PROTECTED_NEW: &[(&str, bool)] = &[
    // (path to write, its top folder or file is missing before the run)
    (".roo/rules/x.md", true),
    (".windsurf/rules/x.md", true),
    (".continue/config.yaml", true),
    (".amazonq/rules/x.md", true),
    (".idea/workspace.xml", true),
    (".zed/tasks.json", true),
    (".github/workflows/ci.yml", true),
    (".devcontainer/devcontainer.json", true),
    (".husky/pre-commit", true),
    (".kiro/hooks/x.json", true),
    (".envrc", true),
    ("CLAUDE.md", true),
    ("AGENTS.md", true),
    ("GEMINI.md", true),
    (".roo/rules/x.md", false),
    (".windsurf/rules/x.md", false),
    (".continue/config.yaml", false),
    (".amazonq/rules/x.md", false),
    (".idea/workspace.xml", false),
    (".zed/tasks.json", false),
    (".github/workflows/ci.yml", false),
    (".devcontainer/devcontainer.json", false),
    (".devcontainer.json", false),
    (".husky/pre-commit", false),
    (".envrc", false),
    (".pdbrc", false),
    (".gitpod.yml", false),
    ("CLAUDE.md", false),
    ("AGENTS.md", false),
    ("opencode.json", false),
    (".kilocode/rules/x.md", false),
];

#[test]
fn new_protected_paths_cannot_be_created_or_written_inside() {
    let w = World::new();
    let code = "p = os.path.join(ROOT, open(ARGS[0]).read())\nos.makedirs(os.path.dirname(p), exist_ok=True)\nopen(p, 'w').write('evil')";
    let script = w.script("protect", code);
    let mut failures = Vec::new();
    for ((rel, missing), backend) in PROTECTED_NEW.iter().flat_map(|p| ["bwrap", "landlock"].map(|b| (p, b))) {
        let top = w.root.join(rel.split('/').next().unwrap());
        let _ = std::fs::remove_dir_all(&top);
        let _ = std::fs::remove_file(&top);
        if !missing {
            write_file(&w.root.join(rel), "original");
        }
        let before = listing(&w.root);
        let list = path_list(&w, "protect", &[rel]);
        let inside = w.wicket(backend, None, &["python3", script.to_str().unwrap(), list.as_str()]);
        let got = verdict(&inside);
        // An existing one is read-only; a missing one may be made inside, in the root's
        // overlay, and is then held for a person, never in the project.
        if !(got.starts_with("BLOCKED") || (*missing && held_not_landed(&w.root, rel, &inside))) {
            failures.push(format!(
                "{backend}: {rel} (missing: {missing}): {got} {}",
                String::from_utf8_lossy(&inside.stderr)
            ));
        }
        if listing(&w.root) != before {
            failures
                .push(format!("{backend}: {rel} (missing: {missing}): the project changed: {:?}", listing(&w.root)));
        }
        // Control: the same write outside succeeds.
        let control = verdict(&w.direct(&["python3", script.to_str().unwrap(), list.as_str()]));
        if control != "ESCAPED" {
            failures.push(format!("control for {rel}: {control}"));
        }
        let _ = std::fs::remove_dir_all(&top);
        let _ = std::fs::remove_file(&top);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A git project with a `.env` three folders deep (ignored by git, as usual).
fn project_with_env(w: &World) -> PathBuf {
    let env = w.root.join("services/api/config/.env");
    write_file(&env, "API_TOKEN=hunter2");
    write_file(&w.root.join(".env.test"), "TEST=1");
    write_file(&w.root.join(".gitignore"), ".env\n.env.*\n");
    write_file(&w.root.join("services/api/config/settings.py"), "DEBUG = True\n");
    std::fs::remove_dir_all(w.root.join(".git")).unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git").args(args).current_dir(&w.root).env("HOME", &w.home).output().unwrap();
        assert!(ok.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&ok.stderr));
    };
    git(&["init", "-q"]);
    git(&["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init"]);
    env
}

#[test]
fn project_secrets_are_masked_and_everyday_work_still_runs() {
    for backend in ["bwrap", "bwrap-masks", "landlock"] {
        let w = World::new();
        let env = project_with_env(&w);
        let script = w.script("env", READ_EACH);
        let list = path_list(&w, "env", &[env.to_str().unwrap(), ".env.test"]);
        let args = ["python3", script.to_str().unwrap(), list.as_str()];
        let inside = w.wicket(backend, None, &args);
        assert_eq!(readable(&inside), Vec::<String>::new(), "{backend}: a project secret was read inside");
        let err = String::from_utf8_lossy(&inside.stderr);
        assert_eq!(
            err.matches("sensitive file(s) in the project are unreadable").count(),
            1,
            "{backend}: one notice: {err}"
        );
        assert!(err.contains("services/api/config/.env") && err.contains(".env.test"), "{backend}: {err}");
        assert_eq!(readable(&w.direct(&args)).len(), 2, "control");
        // Said once per project: not again on the next command, but again when one fails.
        let again = w.wicket(backend, None, &["true"]);
        let err = String::from_utf8_lossy(&again.stderr);
        assert!(!err.contains("sensitive file(s)"), "{backend}: the notice came again: {err}");
        let failed = w.wicket(backend, None, &["sh", "-c", "exit 3"]);
        let err = String::from_utf8_lossy(&failed.stderr);
        assert!(
            err.contains("wicket: hint: the command failed") && err.contains("services/api/config/.env"),
            "{backend}: a failure names the hidden secrets: {err}"
        );
        // Everyday work beside the secret: edit a file in its folder, list it, commit.
        // (Without bubblewrap, new files directly in a folder on the way to a secret are not
        // usable, as the notice says: the fallback's new file goes to an existing folder.)
        let new_file = if sandbox_of(backend) == "bwrap" { "services/api/config/notes.txt" } else { "src/notes.txt" };
        std::fs::create_dir_all(w.root.join("src")).unwrap();
        let work = format!(
            "set -e\necho 'DEBUG = False' > services/api/config/settings.py\nls services/api/config >/dev/null\nls >/dev/null\n\
             echo new > {new_file}\ncat {new_file} >/dev/null\ngit add -A\n\
             git -c user.email=t@example.com -c user.name=t commit -qm work\ngit log --oneline | wc -l"
        );
        let out = w.wicket(backend, None, &["sh", "-c", &work]);
        assert_eq!(
            (out.status.code(), String::from_utf8_lossy(&out.stdout).trim().to_string()),
            (Some(0), "2".to_string()),
            "{backend}: everyday work failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read_to_string(&env).unwrap(), "API_TOKEN=hunter2", "the secret is untouched");
        // The commit holds the work and no placeholder of a protected path.
        let files = Command::new("git").args(["ls-files"]).current_dir(&w.root).output().unwrap();
        let files = String::from_utf8_lossy(&files.stdout).to_string();
        for p in ["AGENTS.md", "CLAUDE.md", "GEMINI.md", ".envrc", ".mcp.json"] {
            assert!(!files.lines().any(|l| l == p), "{backend}: the placeholder {p} was committed: {files}");
        }
        assert!(files.contains("settings.py"), "{files}");
    }
}

#[test]
fn an_allow_rule_naming_a_secret_keeps_it_readable() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let env = project_with_env(&w);
        let home = w.dir.join("wicket-home");
        write_file(
            &home.join("settings.json"),
            r#"{"permissions": {"allow": ["read_file(.env.test)", "read_file(**)"]}}"#,
        );
        let script = w.script("envtest", READ_EACH);
        let list = path_list(&w, "envtest", &[".env.test", env.to_str().unwrap()]);
        let args = ["python3", script.to_str().unwrap(), list.as_str()];
        let inside = w.wicket(backend, None, &args);
        assert_eq!(
            readable(&inside),
            vec![".env.test".to_string()],
            "{backend}: {}",
            String::from_utf8_lossy(&inside.stderr)
        );
        // Without the rule it is masked again.
        write_file(&home.join("settings.json"), "{}");
        assert_eq!(readable(&w.wicket(backend, None, &args)), Vec::<String>::new(), "{backend}");
    }
}

/// Shell prompt caches in `~/.cache` (writable for package managers) that the host's shell
/// sources or runs: an existing powerlevel10k instant prompt cannot be rewritten, a missing
/// gitstatus folder cannot be planted on the host. (bwrap only: the fallback does not enforce
/// holes.)
#[test]
fn prompt_caches_in_the_writable_cache_stay_read_only() {
    let w = World::new();
    let prompt = w.home.join(".cache/p10k-instant-prompt-me.zsh");
    write_file(&prompt, "# p10k");
    let code = "p = open(ARGS[0]).read()\nos.makedirs(os.path.dirname(p), exist_ok=True)\nopen(p, 'w').write('evil')";
    let script = w.script("prompt", code);
    let cases = [prompt.clone(), w.home.join(".cache/gitstatus/gitstatusd-linux-x86_64")];
    for target in &cases {
        let list = path_list(&w, "prompt", &[target.to_str().unwrap()]);
        let args = ["python3", script.to_str().unwrap(), list.as_str()];
        let missing = !target.exists();
        let inside = verdict(&w.wicket("bwrap", None, &args));
        // An existing one is read-only; a missing one may be made inside, in the cache's own
        // layer, which the host's shell never reads.
        assert!(inside.starts_with("BLOCKED") || missing, "{}: {inside}", target.display());
        assert!(!w.home.join(".cache/gitstatus").exists(), "it reached the host's cache");
        assert_eq!(std::fs::read_to_string(&prompt).unwrap(), "# p10k", "the host's prompt cache changed");
        // Control: outside, the write succeeds (and is undone).
        assert_eq!(verdict(&w.direct(&args)), "ESCAPED", "control for {}", target.display());
        let _ = std::fs::remove_dir_all(w.home.join(".cache/gitstatus"));
        write_file(&prompt, "# p10k");
    }
    // Writing the cache itself still works inside.
    let list = path_list(&w, "prompt", &[w.home.join(".cache/pip/x").to_str().unwrap()]);
    assert_eq!(verdict(&w.wicket("bwrap", None, &["python3", script.to_str().unwrap(), list.as_str()])), "ESCAPED");
}

// ---------------------------------------------------------------------------------------------
// Issue 13 (item 5): package caches that host tools run later.

/// Writes a sandboxed command makes in the package caches, one a line: the file (below the
/// home), what the host has there before (`None`: nothing), and whether the cache folder that
/// holds it exists on the host (then the write must succeed inside, into the project's layer).
/// Each is something a host tool would later run: a crate's `build.rs`, an `npx` package, a
/// pre-commit hook environment, a go build cache entry, a pnpm store file.
const CACHE_WRITES: &[(&str, Option<&str>, bool)] = &[
    (".cargo/registry/src/index.crates.io-1949cf8c6b5b557f/dep-1.0.0/build.rs", Some("fn main() {}"), true),
    (".cargo/registry/src/index.crates.io-1949cf8c6b5b557f/new-0.1.0/build.rs", None, true),
    (".npm/_npx/0123abcd/node_modules/.bin/cowsay", Some("echo moo"), true),
    (".npm/_npx/4567ef/package.json", None, true),
    (".cache/pre-commit/repoabc/hook.py", None, true),
    (".cache/go-build/ab/abcdef-d", Some("cached object"), true),
    (".cache/uv/wheels/evil.whl", None, true),
    (".local/share/pnpm/store/v3/files/00/evil", None, true),
    // A cache that does not exist on the host (its folder is missing).
    (".cargo/git/checkouts/evil-123/abc/build.rs", None, false),
];

/// A shell script that writes (`w`) or reads (`r`) each case's file, one report line a case.
fn cache_script(w: &World, name: &str, mode: &str) -> PathBuf {
    let mut s = String::from("set -u\n");
    for (i, (rel, _, _)) in CACHE_WRITES.iter().enumerate() {
        let p = w.home.join(rel);
        let p = p.to_str().unwrap();
        if mode == "w" {
            s.push_str(&format!(
                "if mkdir -p \"$(dirname '{p}')\" 2>/dev/null && printf 'from-the-sandbox' > '{p}' 2>/dev/null; then echo 'case{i} wrote'; else echo 'case{i} refused'; fi\n"
            ));
        } else {
            s.push_str(&format!("echo \"case{i} reads $(cat '{p}' 2>/dev/null || echo nothing)\"\n"));
        }
    }
    let path = w.dir.join(format!("{name}.sh"));
    std::fs::write(&path, s).unwrap();
    path
}

/// `wicket run` of `args` with `root` as the project (the world's home and wicket home).
fn wicket_in(w: &World, backend: &str, root: &Path, args: &[&str]) -> Output {
    wicket_in_cmd(w, backend, root, args).output().unwrap()
}

/// `wicket run --root ROOT -- ARGS…` in `root`, with the world's home and state, not started.
fn wicket_in_cmd(w: &World, backend: &str, root: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(wicket_bin());
    c.arg("run")
        .arg("--root")
        .arg(root)
        .arg("--")
        .args(args)
        .env("HOME", &w.home)
        .env("WICKET_HOME", w.dir.join("wicket-home"))
        .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
        .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
        .current_dir(root)
        .stdin(Stdio::null());
    c
}

/// The line of a report for case `i`.
fn case_line(out: &Output, i: usize) -> String {
    let key = format!("case{i} ");
    String::from_utf8_lossy(&out.stdout).lines().find(|l| l.starts_with(&key)).unwrap_or("").to_string()
}

/// The package caches are never written by a sandboxed command: writes land in the project's
/// own layer (a second run in the project sees them, a run in another project does not), the
/// host's copy stays byte-for-byte unchanged, a missing cache does not appear, and a secret
/// inside a cache stays masked. Control: the same writes outside the sandbox change the host.
#[test]
fn package_caches_are_not_written_from_the_sandbox() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let other = w.dir.join("proj2");
        std::fs::create_dir_all(&other).unwrap();
        for (rel, before, _) in CACHE_WRITES {
            if let Some(b) = before {
                write_file(&w.home.join(rel), b);
            }
        }
        for d in [".cargo/registry/src", ".npm/_npx", ".cache", ".local/share/pnpm/store"] {
            std::fs::create_dir_all(w.home.join(d)).unwrap();
        }
        write_file(&w.home.join(".cache/huggingface/token"), "hf_secret_token");
        let before = snapshot(&w.home);
        let write = cache_script(&w, "cache-write", "w");
        let read = cache_script(&w, "cache-read", "r");
        let sh = |s: &Path| vec!["sh".to_string(), s.to_str().unwrap().to_string()];
        let args_w = sh(&write);
        let args_w: Vec<&str> = args_w.iter().map(String::as_str).collect();
        let args_r = sh(&read);
        let args_r: Vec<&str> = args_r.iter().map(String::as_str).collect();

        let first = wicket_in(&w, backend, &w.root, &args_w);
        assert_eq!(first.status.code(), Some(0), "{backend}: {}", String::from_utf8_lossy(&first.stderr));
        for (i, (rel, _, exists)) in CACHE_WRITES.iter().enumerate() {
            // The write works inside where the cache exists (it lands in the layer); a missing
            // cache may refuse it. Either way the host is checked below.
            if *exists {
                assert_eq!(case_line(&first, i), format!("case{i} wrote"), "{backend}: {rel}");
            }
        }
        assert_eq!(snapshot(&w.home), before, "{backend}: the host's caches changed");
        for (rel, _, exists) in CACHE_WRITES {
            if !exists {
                assert!(!w.home.join(rel.split('/').take(2).collect::<Vec<_>>().join("/")).exists(), "{rel}");
            }
        }

        // The same project sees its own earlier writes; another project sees the host's cache.
        let again = wicket_in(&w, backend, &w.root, &args_r);
        let elsewhere = wicket_in(&w, backend, &other, &args_r);
        for (i, (rel, before, exists)) in CACHE_WRITES.iter().enumerate() {
            if *exists {
                assert_eq!(case_line(&again, i), format!("case{i} reads from-the-sandbox"), "{backend}: {rel}");
            }
            let host = before.unwrap_or("nothing");
            assert_eq!(
                case_line(&elsewhere, i),
                format!("case{i} reads {host}"),
                "{backend}: {rel} in another project"
            );
        }
        // A secret inside a layered cache is still masked.
        let hf = w.home.join(".cache/huggingface/token");
        let secret = cache_script_read_one(&w, &hf);
        let out = wicket_in(&w, backend, &w.root, &["sh", secret.to_str().unwrap()]);
        assert_eq!(verdict(&out), "REFUSED", "{backend}: the token inside ~/.cache was opened");
        assert_eq!(snapshot(&w.home), before, "{backend}: the host's caches changed");

        // Control: outside the sandbox the same writes change the host's caches.
        let direct = Command::new("sh").arg(&write).env("HOME", &w.home).output().unwrap();
        for (i, (rel, _, _)) in CACHE_WRITES.iter().enumerate() {
            assert_eq!(case_line(&direct, i), format!("case{i} wrote"), "control: {rel}");
            assert_eq!(std::fs::read_to_string(w.home.join(rel)).unwrap(), "from-the-sandbox", "control: {rel}");
        }
        let direct = Command::new("sh").arg(&secret).env("HOME", &w.home).output().unwrap();
        assert_eq!(verdict(&direct), "OPENED hf_secret_token", "control: the token outside");
    }
}

/// A fresh home has no `~/.npm`, and the sealed home lets no sandboxed tool make it: with npm on
/// `PATH`, wicket makes it (empty) before the run, so a sandboxed `npx -y` can fill it, in the
/// project's layer, and the host's copy stays empty (the README's MCP example on a fresh machine).
#[test]
fn a_fresh_home_gets_an_npm_cache_the_sandbox_can_fill() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let bin = w.dir.join("npm-bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("npm"), "#!/bin/sh\n").unwrap();
        let path = std::env::join_paths(
            std::iter::once(bin.clone()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
        )
        .unwrap();
        assert!(!w.home.join(".npm").exists(), "the world's home starts without ~/.npm");
        let file = w.home.join(".npm/_npx/0123abcd/package.json");
        // In a script, as npx writes it: the gate judges `sh FILE`, not the write.
        let script = w.dir.join("npx-like.sh");
        std::fs::write(
            &script,
            format!(
                "mkdir -p '{}' && echo '{{}}' > '{}' && cat '{}' && echo wrote\n",
                file.parent().unwrap().display(),
                file.display(),
                file.display()
            ),
        )
        .unwrap();
        let out =
            wicket_in_cmd(&w, backend, &w.root, &["sh", script.to_str().unwrap()]).env("PATH", &path).output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "{}\nwrote\n",
            "{backend}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(w.home.join(".npm").is_dir(), "{backend}: ~/.npm was made");
        assert_eq!(
            std::fs::read_dir(w.home.join(".npm")).unwrap().count(),
            0,
            "{backend}: the host's ~/.npm was written"
        );
    }
}

/// A run killed while its command writes a package cache (wicket, and with it the sandbox,
/// gone at once, the layer's work folder left as that mount used it) leaves the cache usable:
/// the next run in the project mounts its layer, reads the killed run's write and writes on,
/// and the host's cache stays empty.
#[test]
fn a_run_killed_while_writing_a_cache_leaves_the_layer_usable() {
    let w = World::new();
    std::fs::create_dir_all(w.home.join(".npm")).unwrap();
    std::fs::create_dir_all(w.root.join("src")).unwrap();
    let cache = w.home.join(".npm");
    // A subfolder of the project is the host's own folder inside: the mark is seen at once.
    let mark = w.root.join("src/started");
    let write = w.dir.join("write-and-wait.sh");
    std::fs::write(
        &write,
        format!(
            "echo killed-run > '{c}/from-killed' && echo > '{m}' && sleep 60\n",
            c = cache.display(),
            m = mark.display()
        ),
    )
    .unwrap();
    let read = w.dir.join("read-and-write.sh");
    std::fs::write(
        &read,
        format!("cat '{c}/from-killed' && echo again > '{c}/after' && cat '{c}/after'\n", c = cache.display()),
    )
    .unwrap();
    let mut first = wicket_in_cmd(&w, "bwrap", &w.root, &["sh", write.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !mark.exists() {
        assert!(std::time::Instant::now() < deadline, "the first run never wrote its mark");
        assert!(first.try_wait().unwrap().is_none(), "the first run ended before it was killed");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    first.kill().unwrap();
    first.wait().unwrap();
    let again = wicket_in(&w, "bwrap", &w.root, &["sh", read.to_str().unwrap()]);
    assert_eq!(
        String::from_utf8_lossy(&again.stdout),
        "killed-run\nagain\n",
        "the run after the killed one: {}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 0, "the host's ~/.npm was written");
}

/// A script that prints one file.
fn cache_script_read_one(w: &World, p: &Path) -> PathBuf {
    let path = w.dir.join("cache-read-one.sh");
    let p = p.to_str().unwrap();
    std::fs::write(
        &path,
        format!("if cat '{p}' >/dev/null 2>&1; then echo \"OPENED $(cat '{p}')\"; else echo REFUSED; fi\n"),
    )
    .unwrap();
    path
}

/// Concurrent runs in one project: each writes its own files into `~/.npm` and `~/.cache`
/// (copy-ups of the same host folders at once) and reads them back, all succeed, a later run
/// sees the writes of the run that held the layer, the host's caches are unchanged, and no
/// run's own folder is left behind.
#[test]
fn concurrent_runs_share_the_cache_layer() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        write_file(&w.home.join(".npm/_cacache/index-v5/00/old"), "host");
        write_file(&w.home.join(".cache/pip/http/old"), "host");
        let before = snapshot(&w.home);
        let script = w.dir.join("par.sh");
        let home = w.home.to_str().unwrap();
        std::fs::write(
            &script,
            format!(
                "set -e\nfor i in 1 2 3 4 5; do echo \"$1\" > {home}/.npm/_cacache/index-v5/00/run-$1-$i; echo \"$1\" > {home}/.cache/pip/http/run-$1-$i; done\nfor i in 1 2 3 4 5; do grep -qx \"$1\" {home}/.npm/_cacache/index-v5/00/run-$1-$i {home}/.cache/pip/http/run-$1-$i; done\ncat {home}/.npm/_cacache/index-v5/00/old >/dev/null\necho done\n"
            ),
        )
        .unwrap();
        let runs: Vec<_> = (0..6)
            .map(|n| {
                let mut c = Command::new(wicket_bin());
                c.arg("run").arg("--root").arg(&w.root).arg("--").args([
                    "sh",
                    script.to_str().unwrap(),
                    &n.to_string(),
                ]);
                c.env("HOME", &w.home)
                    .env("WICKET_HOME", w.dir.join("wicket-home"))
                    .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
                    .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
                    .current_dir(&w.root)
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                c.spawn().unwrap()
            })
            .collect();
        for r in runs {
            let out = r.wait_with_output().unwrap();
            assert_eq!(verdict(&out), "done", "{backend}: {}", String::from_utf8_lossy(&out.stderr));
        }
        let list = w.dir.join("par-list.sh");
        std::fs::write(&list, format!("ls {home}/.npm/_cacache/index-v5/00 {home}/.cache/pip/http | grep -c run-\n"))
            .unwrap();
        // Each cache has a layer of its own: the runs that held it (one at a time, so a run
        // that started after the holder ended may hold it next) kept their 5 writes there, the
        // others wrote layers of their own that ended with them. So a multiple of 5, at least
        // one run's per cache (seen: 15, the npm layer held by two runs in turn).
        let out = w.wicket(backend, None, &["sh", list.to_str().unwrap()]);
        let kept: usize = verdict(&out).parse().unwrap_or(0);
        assert!((10..=60).contains(&kept) && kept % 5 == 0, "{backend}: {kept} writes kept in the layers");
        assert_eq!(snapshot(&w.home), before, "{backend}: the host's caches changed");
        let layers = w.dir.join("wicket-home/layers");
        // The runs' work slots are kept for the next runs, but not what the runs that did not
        // hold a layer wrote in their slots.
        let left: Vec<_> = snapshot(&layers)
            .into_iter()
            .filter(|(p, _)| {
                // PROJECT/CACHE/ENTRY/…: an old-style work folder, or a slot's private upper.
                let parts: Vec<String> = p
                    .strip_prefix(&layers)
                    .unwrap()
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                let entry = parts.get(2).map(String::as_str).unwrap_or("");
                entry.starts_with("work.") || (entry.starts_with("run-") && parts.get(3).is_some_and(|u| u == "upper"))
            })
            .collect();
        assert!(left.is_empty(), "{backend}: work folders or private writes left: {left:?}");
        // Control: the same writes outside change the host.
        let direct = Command::new("sh").arg(&script).arg("9").output().unwrap();
        assert_eq!(verdict(&direct), "done");
        assert_ne!(snapshot(&w.home), before, "control");
    }
}

/// Changes made on the host after a cached scan, each leaving a new `.env` at `secret`
/// (relative to the root); `$OUT` is the outside folder. The folders `a`, `r` and `t` exist
/// before the scan.
const AFTER_SCAN: &[(&str, &str, &str)] = &[
    ("existing folder", "echo S > a/.env", "a/.env"),
    ("new folder", "mkdir -p n/m && echo S > n/m/.env", "n/m/.env"),
    ("renamed into place", "echo S > \"$OUT/staged\" && mv \"$OUT/staged\" r/.env", "r/.env"),
    ("folder renamed in", "mkdir \"$OUT/d\" && echo S > \"$OUT/d/.env\" && mv \"$OUT/d\" d", "d/.env"),
    ("mtime restored", "old=$(stat -c %y t) && echo S > t/.env && touch -d \"$old\" t", "t/.env"),
    ("renamed in place", "echo S > a/notes && mv a/notes a/.env", "a/.env"),
    ("in a folder named like a placeholder", "mkdir .roo && echo S > .roo/.env", ".roo/.env"),
];

/// A project whose folders are older than the scan cache's racy window once the caller has
/// waited.
fn scan_cache_world() -> World {
    let w = World::new();
    for d in ["a", "r", "t", "src/deep"] {
        write_file(&w.root.join(d).join("f.txt"), "x");
    }
    w
}

fn scan_cache_files(w: &World) -> Vec<PathBuf> {
    std::fs::read_dir(w.dir.join("wicket-home/cache/scan"))
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect())
        .unwrap_or_default()
}

/// The cache file with no secrets listed (its first line names the layout, its second is the
/// header as JSON, then the stamps); panics unless it listed exactly `listed`.
fn scan_cache_lie(cache: &Path, listed: usize) -> Vec<u8> {
    let bytes = std::fs::read(cache).unwrap();
    let first = bytes.iter().position(|b| *b == b'\n').unwrap() + 1;
    let end = first + bytes[first..].iter().position(|b| *b == b'\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_slice(&bytes[first..end]).unwrap();
    assert!(header["secrets"].as_array().is_some_and(|s| s.len() == listed), "{header}");
    header["secrets"] = serde_json::json!([]);
    let mut lie = bytes[..first].to_vec();
    lie.extend_from_slice(header.to_string().as_bytes());
    lie.extend_from_slice(&bytes[end..]);
    lie
}

#[test]
fn a_secret_made_after_a_cached_scan_is_still_masked() {
    let worlds: Vec<(&str, usize, World)> = ["bwrap", "landlock"]
        .into_iter()
        .flat_map(|b| (0..AFTER_SCAN.len()).map(move |i| (b, i)))
        .map(|(b, i)| (b, i, scan_cache_world()))
        .collect();
    // Past the racy window, so that the first run's scan is cached.
    std::thread::sleep(std::time::Duration::from_millis(2_500));
    let mut failures = Vec::new();
    for (backend, i, w) in &worlds {
        let (name, change, secret) = AFTER_SCAN[*i];
        let first = w.wicket(backend, None, &["true"]);
        assert_eq!(first.status.code(), Some(0), "{backend} {name}: {}", String::from_utf8_lossy(&first.stderr));
        assert_eq!(scan_cache_files(w).len(), 1, "{backend} {name}: the scan was cached");
        let ok = Command::new("sh").args(["-c", change]).env("OUT", &w.out).current_dir(&w.root).status().unwrap();
        assert!(ok.success(), "{name}: {change}");
        let script = w.script("after", READ_EACH);
        let list = path_list(w, "after", &[w.root.join(secret).to_str().unwrap()]);
        let args = ["python3", script.to_str().unwrap(), list.as_str()];
        let inside = w.wicket(backend, None, &args);
        if !readable(&inside).is_empty() {
            failures.push(format!("{backend} {name}: {secret} was read inside"));
        }
        if readable(&w.direct(&args)).len() != 1 {
            failures.push(format!("{backend} {name}: control could not read {secret}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A cache that lies (it lists no secret) is only believed when it is wicket's own: owned by
/// this user, writable by nobody else, outside every folder the sandbox may write.
#[test]
fn a_tampered_or_foreign_scan_cache_is_ignored() {
    let w = scan_cache_world();
    write_file(&w.root.join("a/.env"), "S");
    std::thread::sleep(std::time::Duration::from_millis(2_500));
    let script = w.script("tamper", READ_EACH);
    let env = w.root.join("a/.env");
    let list = path_list(&w, "tamper", &[env.to_str().unwrap()]);
    let args = ["python3", script.to_str().unwrap(), list.as_str()];
    assert_eq!(readable(&w.wicket("bwrap", None, &args)), Vec::<String>::new(), "masked, and cached");
    let cache = scan_cache_files(&w).pop().expect("the scan was cached");
    let lie = scan_cache_lie(&cache, 1);
    let plant = |file: &Path, mode: u32| {
        let _ = std::fs::remove_file(file);
        std::fs::write(file, &lie).unwrap();
        std::fs::set_permissions(file, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
    };
    type Tamper<'a> = (&'static str, Box<dyn Fn() + 'a>);
    let mut cases: Vec<Tamper> = vec![
        ("writable by others", Box::new(|| plant(&cache, 0o666))),
        ("not JSON", Box::new(|| std::fs::write(&cache, "{not json").unwrap())),
        ("stamps cut short", {
            let cache = cache.clone();
            let short = lie[..lie.len() - 3].to_vec();
            Box::new(move || std::fs::write(&cache, &short).unwrap())
        }),
        ("a link to the lie", {
            let cache = cache.clone();
            let elsewhere = w.dir.join("lie.json");
            Box::new(move || {
                plant(&elsewhere, 0o600);
                let _ = std::fs::remove_file(&cache);
                std::os::unix::fs::symlink(&elsewhere, &cache).unwrap();
            })
        }),
    ];
    if is_root() {
        cases.push((
            "owned by another user",
            Box::new(|| {
                plant(&cache, 0o600);
                std::os::unix::fs::chown(&cache, Some(65534), Some(65534)).unwrap();
            }),
        ));
    }
    for (name, tamper) in &cases {
        tamper();
        assert_eq!(readable(&w.wicket("bwrap", None, &args)), Vec::<String>::new(), "{name}: the lie was believed");
    }
    // Control: the same lie in wicket's own file is believed, so each case above is what kept
    // the secret masked.
    plant(&cache, 0o600);
    assert_eq!(readable(&w.wicket("bwrap", None, &args)), vec![env.to_string_lossy().into_owned()], "control");
    // The cache inside a folder the sandbox may write (here the project) is never used (the
    // lie is made anew: the new folder changes the root).
    let in_project = w.root.join("state");
    std::fs::create_dir_all(in_project.join("cache/scan")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2_500));
    let _ = w.wicket("bwrap", None, &["true"]);
    let lie = scan_cache_lie(&cache, 1);
    let planted = in_project.join("cache/scan").join(cache.file_name().unwrap());
    std::fs::write(&planted, lie).unwrap();
    std::fs::set_permissions(&planted, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let inside = w.wicket_with("bwrap", &[("WICKET_HOME", &in_project)], &args);
    assert_eq!(readable(&inside), Vec::<String>::new(), "a cache in the project was believed");
}

// ---- Nested repositories: none the run made or changed makes the host's git run its code ----

/// A nested repository attack: `setup` runs on the host first (shell, in the root), `attack` is
/// Python run inside the sandbox (and again outside as the control), then `host` runs on the
/// host (shell, in the root), as a person's next `git` would. The payload (`FSMON`, a hook, a
/// pager) touches `OUT/pwned`: absent after the sandboxed run, present after the control.
struct NestedAttack {
    name: &'static str,
    setup: &'static str,
    attack: &'static str,
    host: &'static str,
}

/// Python helpers for every nested attack: `FSMON`, a config that runs the payload on `git
/// status`; `HOOK`, a hook script that runs it; `hook(g, name)` installs one in git folder `g`.
const NESTED_HELPERS: &str = "FSMON = '[core]\\n\\tfsmonitor = \"touch ' + OUT + '/pwned; false\"\\n'\nHOOK = '#!/bin/sh\\ntouch ' + OUT + '/pwned\\n'\ndef hook(g, name):\n    os.makedirs(g + '/hooks', exist_ok=True)\n    open(g + '/hooks/' + name, 'w').write(HOOK)\n    os.chmod(g + '/hooks/' + name, 0o755)\n";

const COMMIT: &str = "git -c user.name=a -c user.email=a@b";

const NESTED_ATTACKS: &[NestedAttack] = &[
    NestedAttack {
        name: "existing_nested_config",
        setup: "git init -q vendor/x",
        attack: "open(ROOT + '/vendor/x/.git/config', 'a').write(FSMON)",
        host: "git -C vendor/x status",
    },
    NestedAttack {
        name: "existing_nested_hook",
        setup: "git init -q vendor/x && git -C vendor/x -c user.name=a -c user.email=a@b commit -q --allow-empty -m x",
        attack: "hook(ROOT + '/vendor/x/.git', 'pre-commit')",
        host: "git -C vendor/x -c user.name=a -c user.email=a@b commit -q --allow-empty -m y",
    },
    NestedAttack {
        name: "existing_nested_replaced",
        setup: "git init -q vendor/x",
        attack: "os.rename(ROOT + '/vendor/x/.git', ROOT + '/vendor/x/old')\nfake(ROOT + '/vendor/x/.git', FSMON)",
        host: "git -C vendor/x status",
    },
    NestedAttack {
        name: "existing_nested_new_commondir",
        setup: "git init -q vendor/x",
        attack: "fake(ROOT + '/elsewhere/c', FSMON)\nopen(ROOT + '/vendor/x/.git/commondir', 'w').write(ROOT + '/elsewhere/c\\n')",
        host: "git -C vendor/x status",
    },
    NestedAttack {
        name: "existing_nested_include_of_a_missing_file",
        setup: "git init -q vendor/x && git -C vendor/x config include.path ../inc.cfg",
        attack: "open(ROOT + '/vendor/x/inc.cfg', 'w').write(FSMON)",
        host: "git -C vendor/x status",
    },
    NestedAttack {
        name: "new_sub_fsmonitor",
        setup: "",
        attack: "fake(ROOT + '/sub/.git', FSMON)",
        host: "git -C sub status",
    },
    NestedAttack {
        name: "new_sub_by_git_init",
        setup: "",
        attack: "import subprocess\nsubprocess.run(['git', 'init', '-q', ROOT + '/a/b/sub'], check=True)\nopen(ROOT + '/a/b/sub/.git/config', 'a').write(FSMON)",
        host: "git -C a/b/sub status",
    },
    NestedAttack {
        name: "gitfile_to_written_folder",
        setup: "",
        attack: "fake(ROOT + '/store/g', FSMON)\nos.rename(ROOT + '/store/g/HEAD', ROOT + '/store/g/HEAD.tmp')\nos.makedirs(ROOT + '/sub')\nopen(ROOT + '/sub/.git', 'w').write('gitdir: ../store/g\\n')\nos.rename(ROOT + '/store/g/HEAD.tmp', ROOT + '/store/g/HEAD')",
        host: "git -C sub status",
    },
    NestedAttack {
        name: "git_link_to_written_folder",
        setup: "",
        attack: "fake(ROOT + '/store/g', FSMON)\nos.makedirs(ROOT + '/sub')\nos.symlink('../store/g', ROOT + '/sub/.git')",
        host: "git -C sub status",
    },
    NestedAttack {
        name: "embedded_bare_pager",
        setup: "",
        attack: "fake(ROOT + '/bare', '[core]\\n\\tpager = touch ' + OUT + '/pwned\\n')",
        host: "script -qc 'git -C bare branch' /dev/null </dev/null",
    },
    NestedAttack {
        name: "include_path_to_written_file",
        setup: "",
        attack: "fake(ROOT + '/sub/.git', '[include]\\n\\tpath = ../../inc.cfg\\n')\nopen(ROOT + '/inc.cfg', 'w').write(FSMON)",
        host: "git -C sub status",
    },
    NestedAttack {
        name: "hook_in_new_repo",
        setup: "",
        attack: "fake(ROOT + '/sub/.git')\nhook(ROOT + '/sub/.git', 'pre-commit')",
        host: "git -C sub -c user.name=a -c user.email=a@b commit -q --allow-empty -m x",
    },
    NestedAttack {
        name: "alias_with_a_config_option_in_a_new_repo",
        setup: "",
        attack: "import subprocess\nsubprocess.run(['git', 'init', '-q', ROOT + '/sub'], check=True)\nsubprocess.run(['git', '-C', ROOT + '/sub', 'config', 'alias.st', '-c core.fsmonitor=\"touch ' + OUT + '/pwned; false\" status'], check=True)",
        host: "git -C sub st",
    },
    NestedAttack {
        name: "new_repo_in_a_package_tree",
        setup: "mkdir -p node_modules/pkg && echo '{}' > node_modules/pkg/package.json",
        attack: "fake(ROOT + '/node_modules/pkg/.git', FSMON)",
        host: "git -C node_modules/pkg status",
    },
];

fn run_nested_attacks(backend: &str) {
    let mut failures = Vec::new();
    for a in NESTED_ATTACKS {
        let code = format!("{FAKE_GIT}{NESTED_HELPERS}{}", a.attack);
        let pwned = |w: &World| w.out.join("pwned").exists();
        let host = |w: &World| {
            let mut c = Command::new("sh");
            c.args(["-c", a.host]).current_dir(&w.root).stdin(Stdio::null());
            host_git_env(w, &mut c);
            c.output().unwrap()
        };
        let w = git_world(a.setup);
        let script = w.script(a.name, &code);
        let inside = w.wicket(backend, None, &["python3", script.to_str().unwrap()]);
        let _ = host(&w);
        if pwned(&w) {
            failures.push(format!(
                "{backend}: {}: the host's git ran the payload ({}; stderr: {})",
                a.name,
                verdict(&inside),
                String::from_utf8_lossy(&inside.stderr).trim()
            ));
        }
        // The control, in a fresh world: the same repository made outside any sandbox runs it.
        let w = git_world(a.setup);
        let script = w.script(a.name, &code);
        let control = verdict(&w.direct(&["python3", script.to_str().unwrap()]));
        let out = host(&w);
        if control != "ESCAPED" || !pwned(&w) {
            failures.push(format!(
                "control for {}: {control}, payload ran: {} ({})",
                a.name,
                pwned(&w),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    assert!(failures.is_empty(), "{} nested git escape(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn nested_repositories_cannot_make_the_hosts_git_run_code_under_bwrap() {
    run_nested_attacks("bwrap");
}

#[test]
fn nested_repositories_cannot_make_the_hosts_git_run_code_under_the_landlock_fallback() {
    run_nested_attacks("landlock");
}

/// `git init` + commit, a local `git clone` and a clone with its submodules inside the sandbox
/// stay where they are and usable by the host's git afterwards; a vendored clone present at
/// start is untouched.
#[test]
fn plain_repositories_made_in_the_sandbox_stay_intact() {
    for backend in ["bwrap", "landlock"] {
        let w = git_world("git init -q vendor/x && git -C vendor/x config credential.helper store");
        let src = w.dir.join("src");
        std::fs::create_dir_all(&src).unwrap();
        let mut c = Command::new("sh");
        c.args(["-c", &format!("git init -q -b main lib && {COMMIT} -C lib commit -q --allow-empty -m lib && git init -q -b main app && git -C app -c protocol.file.allow=always submodule -q add ../lib lib && {COMMIT} -C app commit -q -m app")]).current_dir(&src);
        host_git_env(&w, &mut c);
        assert!(c.output().unwrap().status.success());
        let script = format!(
            "set -e; git init -q sub; echo hi > sub/f; git -C sub add f; {COMMIT} -C sub commit -q -m one
git clone -q sub cl; git -C cl config user.email a@b; git -C vendor/x status --short
git -c protocol.file.allow=always clone -q --recurse-submodules {}/app rc; echo done",
            src.display()
        );
        let out = w.wicket(backend, None, &["sh", "-c", &script]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(String::from_utf8_lossy(&out.stdout).trim_end().ends_with("done"), "{backend}: {stderr}");
        assert!(!stderr.contains("moved"), "{backend}: {stderr}");
        for (dir, want) in [("sub", "one"), ("cl", "one"), ("rc", "app"), ("rc/lib", "lib")] {
            let mut c = Command::new("git");
            c.args(["log", "--format=%s"]).current_dir(w.root.join(dir));
            host_git_env(&w, &mut c);
            let log = c.output().unwrap();
            assert_eq!(String::from_utf8_lossy(&log.stdout).trim(), want, "{backend}: {dir}");
        }
        assert!(w.root.join("vendor/x/.git/config").is_file(), "{backend}: the vendored clone is where it was");
    }
}

/// A repository moved aside is named in one notice and in the run's audit line, and stays on
/// disk under its new name (never deleted).
#[test]
fn a_moved_repository_is_noticed_audited_and_kept() {
    let w = git_world("");
    let code = format!(
        "{NESTED_HELPERS}for d in ('objects', 'refs'):\n    os.makedirs(ROOT + '/sub/.git/' + d)\nopen(ROOT + '/sub/.git/HEAD', 'w').write('ref: refs/heads/main\\n')\nopen(ROOT + '/sub/.git/config', 'w').write(FSMON)"
    );
    let script = w.script("moved", &code);
    let out = w.wicket("bwrap", None, &["python3", script.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let notices: Vec<&str> = stderr.lines().filter(|l| l.contains("moved sub/.git aside")).collect();
    assert_eq!(notices.len(), 1, "{stderr}");
    assert!(notices[0].contains("core.fsmonitor"), "{stderr}");
    assert!(w.root.join("sub/.git.wicket-quarantine/config").is_file() && !w.root.join("sub/.git").exists());
    let mut lines = String::new();
    let mut stack = vec![w.dir.join("wicket-home/audit")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else if e.path().extension().is_some_and(|x| x == "jsonl") {
                lines.push_str(&std::fs::read_to_string(e.path()).unwrap());
            }
        }
    }
    let executed: Vec<serde_json::Value> = lines
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["kind"] == "executed")
        .collect();
    assert_eq!(executed.len(), 1, "{lines}");
    let reason = executed[0]["reason"].as_str().unwrap_or("");
    assert!(reason.contains("moved sub/.git aside") && reason.contains("core.fsmonitor"), "{reason}");
}

/// Overlapping runs in a project without the protected names: while one run keeps trying to
/// write each of them, short runs start and end in the same project. None of them ever
/// appears in the project (the host is looked at between the short runs), and the project is
/// as it was once every run has ended: what the long run made is held for a person.
#[test]
fn overlapping_runs_never_open_a_protected_path() {
    const NAMES: &[&str] = &[
        ".mcp.json",
        ".wicket/settings.json",
        ".claude/settings.json",
        ".git/hooks/pre-commit",
        ".vscode/settings.json",
    ];
    for backend in ["bwrap", "landlock"] {
        let w = git_world("");
        let before = listing(&w.root);
        let script = w.dir.join(format!("overlap-{backend}.py"));
        std::fs::write(
            &script,
            format!(
                "import os, time\nROOT={:?}\nend = time.time() + 4\nwhile time.time() < end:\n    for n in {NAMES:?}:\n        p = os.path.join(ROOT, n)\n        try:\n            os.makedirs(os.path.dirname(p), exist_ok=True)\n            open(p, 'w').write('evil')\n            print('WROTE', n, flush=True)\n        except OSError:\n            pass\n    time.sleep(0.01)\nprint('DONE')\n",
                w.root.to_string_lossy()
            ),
        )
        .unwrap();
        let long = std::thread::scope(|s| {
            let long = s.spawn(|| w.wicket(backend, None, &["python3", script.to_str().unwrap()]));
            let start = Instant::now();
            let mut short = 0;
            while start.elapsed() < Duration::from_millis(3500) {
                let out = w.wicket(backend, None, &["true"]);
                assert!(out.status.success(), "{backend}: {}", String::from_utf8_lossy(&out.stderr));
                for n in NAMES {
                    assert!(!w.root.join(n).exists(), "{backend}: {n} appeared in the project during the overlap");
                }
                short += 1;
            }
            assert!(short >= 3, "{backend}: only {short} short runs overlapped");
            long.join().unwrap()
        });
        let text = String::from_utf8_lossy(&long.stdout).into_owned();
        assert!(text.contains("DONE"), "{backend}: {text} {}", String::from_utf8_lossy(&long.stderr));
        for n in NAMES.iter().filter(|n| text.contains(&format!("WROTE {n}"))) {
            assert!(held_not_landed(&w.root, n, &long), "{backend}: {n} was written and not held: {text}");
        }
        assert_eq!(listing(&w.root), before, "{backend}: the project changed");
        // The control: outside the sandbox the same script writes them.
        let control = w.direct(&["python3", script.to_str().unwrap()]);
        assert!(String::from_utf8_lossy(&control.stdout).contains("WROTE"), "control: the script writes outside");
    }
}

/// Secrets that no list names, relative to the home: each line is one class (a tool's token
/// under `~/.config/<tool>/`, an editor's state database, another agent's settings with an MCP
/// token, a plain notes file). `{r}` is replaced by a name made for the run, so no list of
/// names in wicket can know it.
const UNLISTED_HOME_SECRETS: &[&str] = &[
    ".config/{r}/token",
    ".config/{r}/hosts.yml",
    ".local/share/{r}/state.db",
    ".config/Code/User/globalStorage/state.vscdb",
    ".{r}/settings.json",
    ".{r}rc",
    "{r}.txt",
    "Documents/{r}/passwords.txt",
    ".local/state/{r}/session",
    ".cargo/credentials-{r}.toml",
];

/// What a toolchain keeps in the home, which must stay readable (and runnable) inside.
const TOOLCHAIN_FILES: &[&str] = &[
    ".cargo/bin/{r}-tool",
    ".rustup/toolchains/{r}/lib/x.so",
    ".local/bin/{r}-cli",
    ".gitconfig",
    ".npm/_cacache/{r}",
];

#[test]
fn secrets_no_list_names_are_unreadable_inside_and_toolchains_still_run() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let tag = format!("t{}x{}", std::process::id(), COUNTER.fetch_add(1, Ordering::SeqCst));
        let at = |rel: &str| w.home.join(rel.replace("{r}", &tag));
        let mut secrets = Vec::new();
        for rel in UNLISTED_HOME_SECRETS {
            write_file(&at(rel), "secret");
            secrets.push(at(rel).to_string_lossy().into_owned());
        }
        // The machine's own secret stores: a container's /run/secrets, a Kubernetes token
        // under /var/run/secrets (a link to /run here). Only root can make them.
        let run_dir = PathBuf::from(format!("/run/wicket-escape-{tag}"));
        if is_root() {
            write_file(&run_dir.join("secrets/db_password"), "secret");
            write_file(&run_dir.join("serviceaccount/token"), "secret");
            secrets.push(run_dir.join("secrets/db_password").to_string_lossy().into_owned());
            secrets.push(
                Path::new("/var/run")
                    .join(run_dir.file_name().unwrap())
                    .join("serviceaccount/token")
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        let mut tools = Vec::new();
        for rel in TOOLCHAIN_FILES {
            write_file(&at(rel), "#!/bin/sh\necho TOOL-RAN\n");
            tools.push(at(rel).to_string_lossy().into_owned());
        }
        let exe = at(".cargo/bin/{r}-tool");
        std::fs::set_permissions(&exe, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let script = w.script("unlisted", READ_EACH);
        let all: Vec<&str> = secrets.iter().chain(&tools).map(String::as_str).collect();
        let list = path_list(&w, "unlisted", &all);
        let args = ["python3", script.to_str().unwrap(), list.as_str()];
        let inside = w.wicket(backend, None, &args);
        let _ = std::fs::remove_dir_all(&run_dir);
        assert!(verdict(&inside).ends_with("ESCAPED"), "{backend}: {}", String::from_utf8_lossy(&inside.stderr));
        let got = readable(&inside);
        let leaked: Vec<&String> = got.iter().filter(|p| secrets.contains(p)).collect();
        assert!(leaked.is_empty(), "{backend}: secrets no list names were read inside: {leaked:?}");
        let missing: Vec<&String> = tools.iter().filter(|t| !got.contains(t)).collect();
        assert!(missing.is_empty(), "{backend}: toolchain files hidden inside: {missing:?}");
        // A program in ~/.cargo/bin still runs.
        let ran = w.wicket(backend, None, &[exe.to_str().unwrap()]);
        assert!(
            String::from_utf8_lossy(&ran.stdout).contains("TOOL-RAN"),
            "{backend}: a toolchain program did not run: {}",
            String::from_utf8_lossy(&ran.stderr)
        );
        // Control: outside, everything is readable (the /run files were removed above, so the
        // control makes them again).
        if is_root() {
            write_file(&run_dir.join("secrets/db_password"), "secret");
            write_file(&run_dir.join("serviceaccount/token"), "secret");
        }
        let control = readable(&w.direct(&args));
        let _ = std::fs::remove_dir_all(&run_dir);
        assert_eq!(control.len(), all.len(), "control: {control:?}");
    }
}

/// A read allow rule that names a folder in the home keeps it readable inside; nothing else is.
#[test]
fn an_allow_rule_opens_one_folder_of_the_sealed_home() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        write_file(&w.home.join(".config/mytool/config.toml"), "fine");
        write_file(&w.home.join(".config/other/token"), "secret");
        // The person's own settings (a project's allow rules would need consent first).
        write_file(
            &w.dir.join("wicket-home/settings.json"),
            r#"{"permissions":{"allow":["read_file(~/.config/mytool/**)"]}}"#,
        );
        let script = w.script("allowed", READ_EACH);
        let a = w.home.join(".config/mytool/config.toml");
        let b = w.home.join(".config/other/token");
        let list = path_list(&w, "allowed", &[a.to_str().unwrap(), b.to_str().unwrap()]);
        let args = ["python3", script.to_str().unwrap(), list.as_str()];
        let inside = w.wicket(backend, None, &args);
        assert!(verdict(&inside).ends_with("ESCAPED"), "{backend}: {}", String::from_utf8_lossy(&inside.stderr));
        assert_eq!(readable(&inside), vec![a.to_string_lossy().into_owned()], "{backend}");
    }
}

/// With `HOME` (and wicket's state) under `/tmp`, as in many containers and CI jobs, the home
/// stays read-only inside on both backends: nothing a command writes there lands on the host.
#[test]
fn a_home_under_tmp_stays_read_only() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let tmp_home = host_tmp(&format!("home-{backend}"));
        for d in [".cargo/bin", "bin", ".config"] {
            std::fs::create_dir_all(tmp_home.join(d)).unwrap();
        }
        write_file(&tmp_home.join(".bashrc"), "# mine\n");
        let targets: Vec<PathBuf> = ["bin/evil", ".cargo/bin/evil", ".bashrc", ".config/evil.conf", "new-file"]
            .iter()
            .map(|r| tmp_home.join(r))
            .collect();
        let paths: Vec<String> = targets.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let list = path_list(&w, "tmphome", &paths.iter().map(String::as_str).collect::<Vec<_>>());
        let script = w.script("tmphome", WRITE_EACH);
        let args = ["python3", script.to_str().unwrap(), list.as_str()];
        let mut c = Command::new(wicket_bin());
        c.arg("run").arg("--root").arg(&w.root).arg("--").args(args);
        c.env("HOME", &tmp_home)
            .env("WICKET_HOME", tmp_home.join(".wicket"))
            .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
            .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
            .current_dir(&w.root)
            .stdin(Stdio::null());
        let out = c.output().unwrap();
        assert!(verdict(&out).ends_with("ESCAPED"), "{backend}: {}", String::from_utf8_lossy(&out.stderr));
        // Nor can it read what the home holds.
        write_file(&tmp_home.join(".config/tool/token"), "secret");
        let tok = tmp_home.join(".config/tool/token");
        let reader = w.script("tmphome-read", READ_EACH);
        let rlist = path_list(&w, "tmphome-read", &[tok.to_str().unwrap()]);
        let mut r = Command::new(wicket_bin());
        r.arg("run").arg("--root").arg(&w.root).arg("--").args(["python3", reader.to_str().unwrap(), rlist.as_str()]);
        r.env("HOME", &tmp_home)
            .env("WICKET_HOME", tmp_home.join(".wicket"))
            .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
            .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
            .current_dir(&w.root)
            .stdin(Stdio::null());
        let read = r.output().unwrap();
        assert!(verdict(&read).ends_with("ESCAPED"), "{backend}: {}", String::from_utf8_lossy(&read.stderr));
        assert_eq!(readable(&read), Vec::<String>::new(), "{backend}: the home under /tmp was read");
        let landed: Vec<&PathBuf> =
            targets.iter().filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("evil"))).collect();
        assert!(landed.is_empty(), "{backend}: writes landed in the home under /tmp: {landed:?}");
        // Control: the same script outside writes every one.
        let control = Command::new("python3").args(&args[1..]).env("HOME", &tmp_home).output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&control.stdout).lines().filter(|l| l.starts_with("WROTE")).count(),
            targets.len()
        );
        let _ = std::fs::remove_dir_all(&tmp_home);
    }
}

const WRITE_EACH: &str = "for p in open(ARGS[0]).read().split('\\n'):\n    try:\n        open(p, 'a').write('evil')\n        print('WROTE', p)\n    except Exception:\n        pass";

/// The person's own deny rules hold in the kernel: a path a deny rule for reading names is out
/// of reach of a sandboxed command, and one a deny rule for writing names is read-only (still
/// readable), on both backends. Rules from the user's settings and the project's, in wicket's
/// syntax and Claude Code's.
#[test]
fn the_persons_deny_rules_hold_inside_the_sandbox() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        write_file(&w.root.join("secrets/db.txt"), "secret");
        write_file(&w.root.join("deep/a/b/private.key.txt"), "secret");
        write_file(&w.root.join("config/prod.yml"), "mine");
        write_file(&w.root.join("ledger/2026.csv"), "mine");
        write_file(&w.root.join("config/dev.yml"), "mine");
        write_file(
            &w.dir.join("wicket-home/settings.json"),
            r#"{"permissions":{"deny":["read_file(secrets/**)","Read(**/*.key.txt)","Edit(ledger/**)"]}}"#,
        );
        write_file(
            &w.root.join(".wicket/settings.json"),
            r#"{"permissions":{"deny":["write_file(config/prod.yml)"]}}"#,
        );
        let code = "import json\nr = {}\nfor p in ['secrets/db.txt', 'deep/a/b/private.key.txt', 'config/prod.yml', 'ledger/2026.csv']:\n    try:\n        open(ROOT + '/' + p).read(); r['read ' + p] = True\n    except Exception:\n        r['read ' + p] = False\nfor p in ['config/prod.yml', 'ledger/2026.csv', 'ledger/new.csv', 'config/dev.yml']:\n    try:\n        open(ROOT + '/' + p, 'a').write('x'); r['write ' + p] = True\n    except Exception:\n        r['write ' + p] = False\nprint(json.dumps(r, sort_keys=True))";
        let script = w.script("denyrules", code);
        let out = w.wicket(backend, None, &["python3", script.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let line = text.lines().next().unwrap_or_default();
        let got: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|_| panic!("{backend}: {text} {}", String::from_utf8_lossy(&out.stderr)));
        let want = serde_json::json!({
            "read secrets/db.txt": false,
            "read deep/a/b/private.key.txt": false,
            "read config/prod.yml": true,
            "read ledger/2026.csv": true,
            "write config/prod.yml": false,
            "write ledger/2026.csv": false,
            // New files under a folder a write rule denies whole: the folder is read-only.
            "write ledger/new.csv": false,
            "write config/dev.yml": true,
        });
        assert_eq!(got, want, "{backend}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(std::fs::read_to_string(w.root.join("config/prod.yml")).unwrap(), "mine");
        // Control: outside the sandbox every access succeeds.
        let control = String::from_utf8_lossy(&w.direct(&["python3", script.to_str().unwrap()]).stdout).to_string();
        assert!(!control.contains("false"), "control: {control}");
    }
}

/// Python that builds (or walks) a chain of folders below ROOT deeper than a path can name,
/// one relative step at a time, as a command can. `DEPTH` steps of a 60-byte name.
const DEEP_CHAIN: &str = "DEPTH = 80\nNAME = 'd' * 60\ndef down(make):\n    os.chdir(ROOT)\n    for _ in range(DEPTH):\n        if make:\n            os.makedirs(NAME, exist_ok=True)\n        os.chdir(NAME)\n";

/// A folder the walks cannot read (its mode) or reach (a depth past PATH_MAX) hides nothing:
/// the pre-run scan hides it whole, so a secret left in it cannot be read by the next run, and
/// the check after the run moves aside such a folder the run left, so a repository in it cannot
/// make the host's git run code. Both backends, root and user.
#[test]
fn walks_fail_closed_on_what_they_cannot_read() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        // The state a first run could leave: a secret at the bottom of a chain deeper than
        // PATH_MAX, and one in a folder of mode 000.
        let plant = w.script(
            "plant",
            &format!(
                "{DEEP_CHAIN}down(True)\nopen('.env', 'w').write('DEEP-SECRET')\nos.makedirs(ROOT + '/locked', exist_ok=True)\nopen(ROOT + '/locked/.env', 'w').write('LOCKED-SECRET')\nos.chmod(ROOT + '/locked', 0)"
            ),
        );
        assert_eq!(verdict(&w.direct(&["python3", plant.to_str().unwrap()])), "ESCAPED", "set-up");
        let read = w.script(
            "readdeep",
            &format!(
                "{DEEP_CHAIN}got = []\ntry:\n    down(False)\n    got.append(open('.env').read())\nexcept Exception:\n    pass\ntry:\n    os.chmod(ROOT + '/locked', 0o755)\n    got.append(open(ROOT + '/locked/.env').read())\nexcept Exception:\n    pass\nprint('GOT', ' '.join(got))"
            ),
        );
        let inside = w.wicket(backend, None, &["python3", read.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&inside.stdout);
        assert!(text.contains("GOT"), "{backend}: {text} {}", String::from_utf8_lossy(&inside.stderr));
        assert!(!text.contains("SECRET"), "{backend}: a secret hidden from the scan was read: {text}");
        // Control: the same script outside reads both.
        let _ = std::fs::set_permissions(w.root.join("locked"), std::os::unix::fs::PermissionsExt::from_mode(0o000));
        let control = String::from_utf8_lossy(&w.direct(&["python3", read.to_str().unwrap()]).stdout).to_string();
        assert!(control.contains("DEEP-SECRET") && control.contains("LOCKED-SECRET"), "control: {control}");
        let _ = std::fs::set_permissions(w.root.join("locked"), std::os::unix::fs::PermissionsExt::from_mode(0o755));
        let _ = std::fs::remove_dir_all(w.root.join("locked"));
        let _ = Command::new("rm").arg("-rf").arg(w.root.join("d".repeat(60))).status();

        // A run that leaves a repository whose config runs a program inside a folder it then
        // makes unreadable (mode 000): the person's next `chmod` and `git status` there.
        let marker = w.out.join(format!("hidden-fsmonitor-{backend}"));
        let make_repo = w.script(
            "hiddenrepo",
            &format!(
                "R = ROOT + '/hide/sub/.git'\nos.makedirs(R + '/objects', exist_ok=True)\nos.makedirs(R + '/refs', exist_ok=True)\nopen(R + '/HEAD', 'w').write('ref: refs/heads/main\\n')\nopen(R + '/config', 'w').write('[core]\\n\\tfsmonitor = \"touch {}\"\\n')\nos.chmod(ROOT + '/hide', 0)",
                marker.display()
            ),
        );
        let made = w.wicket(backend, None, &["python3", make_repo.to_str().unwrap()]);
        assert!(verdict(&made).ends_with("ESCAPED"), "{backend}: {}", String::from_utf8_lossy(&made.stderr));
        let host_git = |w: &World| {
            let hide = w.root.join("hide");
            if hide.exists() {
                std::fs::set_permissions(&hide, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
            }
            let _ = Command::new("git").arg("status").current_dir(w.root.join("hide/sub")).output();
        };
        host_git(&w);
        assert!(!marker.exists(), "{backend}: the host's git ran a repository the check could not read");
        // Control: the same repository made outside does run it.
        let _ = std::fs::remove_dir_all(w.root.join("hide"));
        let _ = w.direct(&["python3", make_repo.to_str().unwrap()]);
        host_git(&w);
        assert!(marker.exists(), "control: the host's git did not run the hidden repository's fsmonitor");
        let _ = std::fs::remove_dir_all(w.root.join("hide"));
        for e in std::fs::read_dir(&w.root).unwrap().flatten() {
            if e.file_name().to_string_lossy().contains("wicket-quarantine") {
                let _ = Command::new("rm").arg("-rf").arg(e.path()).status();
            }
        }
    }
}

/// Wicket's own state in the home stays hidden even where the sealed home would show a part of
/// it: a `~/.wicket/bin` on `PATH`, or an allow rule that names it.
#[test]
fn a_path_folder_or_allow_rule_inside_wickets_state_shows_nothing_of_it() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let state = w.home.join(".wicket");
        write_file(&state.join("bin/tool"), "#!/bin/sh\necho hi\n");
        write_file(&state.join("settings.json"), r#"{"permissions":{"allow":["read_file(~/.wicket/**)"]}}"#);
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", state.join("bin").display());
        let script = w.script("statepath", READ_EACH);
        let a = state.join("bin/tool");
        let b = state.join("settings.json");
        let list = path_list(&w, "statepath", &[a.to_str().unwrap(), b.to_str().unwrap()]);
        let mut c = Command::new(wicket_bin());
        c.arg("run").arg("--root").arg(&w.root).arg("--").args(["python3", script.to_str().unwrap(), list.as_str()]);
        c.env("HOME", &w.home)
            .env("WICKET_HOME", &state)
            .env("PATH", &path)
            .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
            .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
            .current_dir(&w.root)
            .stdin(Stdio::null());
        let out = c.output().unwrap();
        assert!(verdict(&out).ends_with("ESCAPED"), "{backend}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(readable(&out), Vec::<String>::new(), "{backend}: wicket's state was read");
        assert_eq!(readable(&w.direct(&["python3", script.to_str().unwrap(), list.as_str()])).len(), 2, "control");
    }
}

/// As root, a root-only file outside the folders the list expected (a top-level folder of a
/// container or a mount: `/data`, `/workspace` …) is hidden too, and so is everything in a
/// root-only folder there (a file others could read if they could reach it).
#[test]
fn root_only_files_anywhere_stay_out_of_the_sandbox() {
    if !is_root() {
        eprintln!("only root owns root-only files to test with");
        return;
    }
    // Left in place until the next run of this suite: removed now, the files could vanish
    // between another parallel test's plan (which masks them) and its bubblewrap, which then
    // cannot make their mount points. Those a finished earlier run left are removed.
    for e in std::fs::read_dir("/").unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let pid = name.strip_prefix("wicket-esc-rootonly-").and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|p| !Path::new(&format!("/proc/{p}")).exists()) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
    let tag = format!("wicket-esc-rootonly-{}", std::process::id());
    let top = PathBuf::from("/").join(&tag);
    let _ = std::fs::remove_dir_all(&top);
    write_file(&top.join("app/config/token"), "secret");
    std::fs::set_permissions(top.join("app/config/token"), std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .unwrap();
    write_file(&top.join("vault/readable-inside"), "secret");
    std::fs::set_permissions(top.join("vault"), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let paths = [top.join("app/config/token"), top.join("vault/readable-inside")];
    let mut failures = Vec::new();
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let script = w.script("rootonly-any", READ_EACH);
        let list = path_list(&w, "rootonly-any", &paths.iter().map(|p| p.to_str().unwrap()).collect::<Vec<_>>());
        let args = ["python3", script.to_str().unwrap(), list.as_str()];
        let inside = w.wicket(backend, None, &args);
        if !verdict(&inside).ends_with("ESCAPED") || !readable(&inside).is_empty() {
            failures.push(format!("{backend}: {:?} {}", readable(&inside), String::from_utf8_lossy(&inside.stderr)));
        }
        if readable(&w.direct(&args)).len() != 2 {
            failures.push("control".into());
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What a sandboxed command writes where some program runs it at the person's next step, one
/// case a line: `held|kept new|edit PATH`. `new`: the command makes PATH; `edit`: PATH holds
/// `before` at the start and the command rewrites it. `held`: after the run the project is as it
/// was (a new name absent, an edited file back to `before`) and the notice names the path;
/// `kept`: the command's write stays. `{tag}` is a name no list knows. The folders `pkg/app/`
/// and `sub/` exist at the start.
const HOLD_CASES: &str = "
held new  .{tag}/settings.json
held new  Jenkinsfile
held new  opencode.jsonc
held new  Makefile
held new  sub/.envrc
held new  sub/.{tag}rc
held new  pkg/app/.vscode/tasks.json
held new  pkg/app/package.json
held new  pkg/app/conftest.py
held new  pkg/new/.husky/pre-commit
held edit package.json
held edit pkg/app/Makefile
held edit pkg/app/.vscode/settings.json
held edit sub/pyproject.toml
kept new  notes.txt
kept new  sub/notes.txt
kept new  .pytest_cache/v
kept new  target/debug/.fingerprint/x
kept new  node_modules/x/package.json
kept new  pkg/app/node_modules/.bin/x
kept new  src/__pycache__/x.pyc
kept edit README.md
kept edit pkg/app/index.js
";

struct HoldCase {
    held: bool,
    edit: bool,
    path: String,
}

fn hold_cases(tag: &str) -> Vec<HoldCase> {
    HOLD_CASES
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 3, "bad case line {l:?}");
            HoldCase { held: f[0] == "held", edit: f[1] == "edit", path: f[2].replace("{tag}", tag) }
        })
        .collect()
}

/// The paths from the first component of `path` that is new (not under `root`) down to
/// `path` itself: one of them is what is held (a new folder that runs code is held whole).
fn new_prefixes(path: &str, root: &Path) -> Vec<String> {
    let mut at = PathBuf::new();
    let mut out = Vec::new();
    for c in Path::new(path).components() {
        at.push(c);
        if !root.join(&at).exists() {
            out.push(at.to_string_lossy().into_owned());
        }
    }
    out
}

/// New names that some program runs at the person's next step (an agent's settings no list
/// names, CI files, hook managers, direnv, a package's manifest), anywhere in the project, and
/// changes to the code-running files already there, are held for a person after a sandboxed
/// run, never left in the project; caches, build output, packages and data stay. A person
/// applies a held change with `wicket staged apply`.
#[test]
fn code_running_names_and_changes_are_held_for_a_person() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let tag = format!("agent{}x{}", std::process::id(), COUNTER.fetch_add(1, Ordering::SeqCst));
        let cases = hold_cases(&tag);
        write_file(&w.root.join("pkg/app/index.js"), "before");
        write_file(&w.root.join("sub/keep.txt"), "before");
        for c in cases.iter().filter(|c| c.edit) {
            write_file(&w.root.join(&c.path), "before");
        }
        let paths: Vec<&str> = cases.iter().map(|c| c.path.as_str()).collect();
        let code = format!(
            "for p in {paths:?}:\n    d = os.path.dirname(ROOT + '/' + p)\n    os.makedirs(d, exist_ok=True)\n    open(ROOT + '/' + p, 'w').write('run me')"
        );
        let script = w.script("holds", &code);
        let prefixes: Vec<Vec<String>> = cases.iter().map(|c| new_prefixes(&c.path, &w.root)).collect();
        let out = w.wicket(backend, None, &["python3", script.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(verdict(&out).ends_with("ESCAPED"), "{backend}: {err}");
        let mut failures = Vec::new();
        for (c, new) in cases.iter().zip(&prefixes) {
            let now = std::fs::read_to_string(w.root.join(&c.path)).ok();
            let ok = match (c.held, c.edit) {
                (true, false) => {
                    !w.root.join(&c.path).exists()
                        && new.iter().any(|p| [",", " (", ";"].iter().any(|end| err.contains(&format!(" {p}{end}"))))
                }
                (true, true) => now.as_deref() == Some("before") && err.contains(c.path.as_str()),
                (false, _) => now.as_deref() == Some("run me"),
            };
            if !ok {
                failures.push(format!("{} {}: now {now:?}", if c.held { "held" } else { "kept" }, c.path));
            }
        }
        assert!(failures.is_empty(), "{backend}:\n{}\n{err}", failures.join("\n"));
        // The person applies one new name and one change.
        let id = err
            .split("wicket staged apply ")
            .nth(1)
            .and_then(|r| r.split(|c: char| !c.is_ascii_alphanumeric()).next())
            .unwrap_or_default();
        assert!(!id.is_empty(), "{backend}: no stage id in: {err}");
        // The sandboxed command cannot apply it itself: the stages are out of its reach.
        let bin = wicket_bin();
        let inside = w.wicket(backend, None, &[bin.to_str().unwrap(), "staged", "apply", id, "package.json"]);
        assert_ne!(inside.status.code(), Some(0), "{backend}: a sandboxed command applied a held change");
        assert_eq!(std::fs::read_to_string(w.root.join("package.json")).unwrap(), "before", "{backend}");
        let apply = Command::new(wicket_bin())
            .args(["staged", "apply", id, "Jenkinsfile", "package.json"])
            .env("HOME", &w.home)
            .env("WICKET_HOME", w.dir.join("wicket-home"))
            .current_dir(&w.root)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(apply.status.success(), "{backend}: {}", String::from_utf8_lossy(&apply.stderr));
        assert_eq!(std::fs::read_to_string(w.root.join("Jenkinsfile")).unwrap(), "run me");
        assert_eq!(std::fs::read_to_string(w.root.join("package.json")).unwrap(), "run me");
        assert!(!w.root.join("Makefile").exists());
        assert_eq!(std::fs::read_to_string(w.root.join("pkg/app/Makefile")).unwrap(), "before");
        // A second run that changes nothing holds nothing.
        let again = w.wicket(backend, None, &["true"]);
        let err2 = String::from_utf8_lossy(&again.stderr);
        assert!(!err2.contains("held for you"), "{backend}: a run that changed nothing held: {err2}");
        // Control: outside the sandbox the same script leaves them all.
        let _ = std::fs::remove_file(w.root.join("Jenkinsfile"));
        assert_eq!(verdict(&w.direct(&["python3", script.to_str().unwrap()])), "ESCAPED");
        for c in &cases {
            assert_eq!(std::fs::read_to_string(w.root.join(&c.path)).ok().as_deref(), Some("run me"), "control");
        }
    }
}

// ---- Pointers: what a protected file names is protected too (issue 34, item 3) ----

/// A pointer attack: `setup` runs on the host first (shell, in the root of a fresh repository),
/// `attack` is Python run inside the sandbox (and again outside as the control), then `host`
/// runs on the host (shell, in the root, `$OUT` set), as the person's next `git`, `cd` (direnv)
/// or program would. `path`: a folder of the project put first on `PATH` (for wicket and the
/// host), or "". The payload touches `OUT/pwned`: absent after the sandboxed run, present after
/// the control.
struct PointerAttack {
    name: &'static str,
    setup: &'static str,
    attack: &'static str,
    host: &'static str,
    path: &'static str,
}

/// Python helpers for every pointer attack: `PAY`, a script that runs the payload; `plant(p,
/// text)` writes an executable file (folders made); `FSMON`, a config that runs the payload on
/// `git status`.
const POINTER_HELPERS: &str = "PAY = '#!/bin/sh\\ntouch ' + OUT + '/pwned\\n'\ndef plant(p, text=None):\n    os.makedirs(os.path.dirname(p), exist_ok=True)\n    open(p, 'w').write(PAY if text is None else text)\n    os.chmod(p, 0o755)\nFSMON = '[core]\\n\\tfsmonitor = \"touch ' + OUT + '/pwned; false\"\\n'\n";

const HOST_COMMIT: &str = "git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x";

const POINTER_ATTACKS: &[PointerAttack] = &[
    PointerAttack {
        name: "hooks_path_folder",
        setup: "git config core.hooksPath tools/hooks && mkdir -p tools/hooks",
        attack: "plant(ROOT + '/tools/hooks/pre-commit')",
        host: HOST_COMMIT,
        path: "",
    },
    PointerAttack {
        name: "hooks_path_missing_folder",
        setup: "git config core.hooksPath tools/hooks",
        attack: "plant(ROOT + '/tools/hooks/pre-commit')",
        host: HOST_COMMIT,
        path: "",
    },
    PointerAttack {
        name: "hooks_path_parent_renamed",
        setup: "git config core.hooksPath tools/hooks && mkdir -p tools/hooks",
        attack: "os.rename(ROOT + '/tools', ROOT + '/tools.old')\nplant(ROOT + '/tools/hooks/pre-commit')",
        host: HOST_COMMIT,
        path: "",
    },
    PointerAttack {
        name: "hooks_path_from_the_users_config",
        setup: "git config --global core.hooksPath .hooks",
        attack: "plant(ROOT + '/.hooks/pre-commit')",
        host: HOST_COMMIT,
        path: "",
    },
    PointerAttack {
        name: "hook_linked_into_the_work_tree",
        setup: "mkdir -p scripts .git/hooks && printf '#!/bin/sh\\ntrue\\n' > scripts/pre-commit && chmod +x scripts/pre-commit && ln -s ../../scripts/pre-commit .git/hooks/pre-commit",
        attack: "plant(ROOT + '/scripts/pre-commit')",
        host: HOST_COMMIT,
        path: "",
    },
    PointerAttack {
        name: "hooks_folder_link_parent_renamed",
        setup: "mkdir -p tools/hooks && rm -rf .git/hooks && ln -s ../tools/hooks .git/hooks",
        attack: "os.rename(ROOT + '/tools', ROOT + '/t2')\nplant(ROOT + '/tools/hooks/pre-commit')",
        host: HOST_COMMIT,
        path: "",
    },
    PointerAttack {
        name: "hooks_folder_link_repointed",
        setup: "mkdir -p tools/hooks && rm -rf .git/hooks && ln -s ../tools/hooks .git/hooks",
        attack: "plant(ROOT + '/evil/pre-commit')\nos.remove(ROOT + '/.git/hooks')\nos.symlink('../evil', ROOT + '/.git/hooks')",
        host: HOST_COMMIT,
        path: "",
    },
    PointerAttack {
        name: "include_parent_renamed",
        setup: "mkdir cfg && printf '[user]\\n' > cfg/team.inc && git config include.path ../cfg/team.inc",
        attack: "os.rename(ROOT + '/cfg', ROOT + '/cfg.old')\nos.makedirs(ROOT + '/cfg')\nopen(ROOT + '/cfg/team.inc', 'w').write(FSMON)",
        host: "git status",
        path: "",
    },
    PointerAttack {
        name: "include_from_the_users_config_parent_renamed",
        setup: "mkdir cfg && printf '[user]\\n' > cfg/g.inc && git config --global include.path \"$PWD/cfg/g.inc\"",
        attack: "os.rename(ROOT + '/cfg', ROOT + '/cfg.old')\nos.makedirs(ROOT + '/cfg')\nopen(ROOT + '/cfg/g.inc', 'w').write(FSMON)",
        host: "git status",
        path: "",
    },
    PointerAttack {
        name: "filter_program",
        setup: "mkdir scripts && printf '#!/bin/sh\\ncat\\n' > scripts/clean.sh && chmod +x scripts/clean.sh && git config filter.x.clean ./scripts/clean.sh && echo '*.txt filter=x' > .gitattributes",
        attack: "plant(ROOT + '/scripts/clean.sh', PAY + 'cat\\n')",
        host: "echo a > a.txt && git add a.txt",
        path: "",
    },
    PointerAttack {
        name: "filter_program_missing",
        setup: "git config filter.x.clean ./scripts/clean.sh && echo '*.txt filter=x' > .gitattributes",
        attack: "plant(ROOT + '/scripts/clean.sh', PAY + 'cat\\n')",
        host: "echo a > a.txt && git add a.txt",
        path: "",
    },
    PointerAttack {
        name: "textconv_script_for_an_interpreter",
        setup: "mkdir scripts && echo 'import sys; print(open(sys.argv[1]).read())' > scripts/tc.py && git config diff.x.textconv 'python3 scripts/tc.py' && echo '*.bin diff=x' > .gitattributes && echo a > a.bin && git add -A && git -c user.name=a -c user.email=a@b commit -q -m a && echo b > a.bin",
        attack: "open(ROOT + '/scripts/tc.py', 'w').write('import sys; open(' + repr(OUT + '/pwned') + ', \"w\"); print(open(sys.argv[1]).read())')",
        host: "git diff a.bin > /dev/null",
        path: "",
    },
    PointerAttack {
        name: "fsmonitor_program",
        setup: "mkdir tools && printf '#!/bin/sh\\nexit 1\\n' > tools/fsm && chmod +x tools/fsm && git config core.fsmonitor ./tools/fsm",
        attack: "plant(ROOT + '/tools/fsm')",
        host: "git status",
        path: "",
    },
    PointerAttack {
        name: "alias_with_a_config_option",
        setup: "git config alias.st '-c core.fsmonitor=./tools/fsm status'",
        attack: "plant(ROOT + '/tools/fsm')",
        host: "git st",
        path: "",
    },
    PointerAttack {
        name: "shell_alias_script",
        setup: "mkdir scripts && printf '#!/bin/sh\\ntrue\\n' > scripts/lint.sh && chmod +x scripts/lint.sh && git config alias.lint '!./scripts/lint.sh'",
        attack: "plant(ROOT + '/scripts/lint.sh')",
        host: "git lint",
        path: "",
    },
    PointerAttack {
        name: "ssh_command",
        setup: "git config core.sshCommand ./tools/ssh",
        attack: "plant(ROOT + '/tools/ssh')",
        host: "git ls-remote ssh://example.invalid/x",
        path: "",
    },
    PointerAttack {
        name: "gpg_program",
        setup: "git config gpg.program ./tools/gpg",
        attack: "plant(ROOT + '/tools/gpg')",
        host: "git -c user.name=a -c user.email=a@b commit -q -S --allow-empty -m s",
        path: "",
    },
    PointerAttack {
        name: "nested_hooks_path_folder",
        setup: "git init -q vendor/x && git -C vendor/x config core.hooksPath hooks2 && mkdir -p vendor/x/hooks2",
        attack: "plant(ROOT + '/vendor/x/hooks2/pre-commit')",
        host: "git -C vendor/x -c user.name=a -c user.email=a@b commit -q --allow-empty -m y",
        path: "",
    },
    PointerAttack {
        name: "nested_hooks_path_missing",
        setup: "git init -q vendor/x && git -C vendor/x config core.hooksPath hooks2",
        attack: "plant(ROOT + '/vendor/x/hooks2/pre-commit')",
        host: "git -C vendor/x -c user.name=a -c user.email=a@b commit -q --allow-empty -m y",
        path: "",
    },
    PointerAttack {
        name: "new_repository_under_the_users_relative_hooks_path",
        setup: "git config --global core.hooksPath .hooks",
        attack: "import subprocess\nsubprocess.run(['git', 'init', '-q', ROOT + '/sub'], check=True)\nplant(ROOT + '/sub/.hooks/pre-commit')",
        host: "git -C sub -c user.name=a -c user.email=a@b commit -q --allow-empty -m y",
        path: "",
    },
    PointerAttack {
        name: "envrc_sources_a_missing_file",
        setup: "printf 'source_env_if_exists .envrc.local\\n' > .envrc && direnv allow .",
        attack: "open(ROOT + '/.envrc.local', 'w').write('touch ' + OUT + '/pwned\\n')",
        host: "direnv exec . true",
        path: "",
    },
    PointerAttack {
        name: "envrc_sources_a_file",
        setup: "mkdir env && echo 'export A=1' > env/dev.sh && printf 'source_env env/dev.sh\\n' > .envrc && direnv allow .",
        attack: "open(ROOT + '/env/dev.sh', 'a').write('touch ' + OUT + '/pwned\\n')",
        host: "direnv exec . true",
        path: "",
    },
    PointerAttack {
        name: "envrc_dotenv",
        setup: "printf 'dotenv_if_exists .env.local\\n' > .envrc && direnv allow .",
        attack: "open(ROOT + '/.env.local', 'w').write('EVIL=yes\\n')",
        host: "direnv exec . sh -c 'test \"$EVIL\" = yes && touch \"$OUT/pwned\"'",
        path: "",
    },
    PointerAttack {
        name: "allowed_envrc_in_a_subfolder",
        setup: "mkdir -p sub shared && echo 'export A=1' > shared/env.sh && printf 'source_env ../shared/env.sh\\n' > sub/.envrc && direnv allow sub",
        attack: "open(ROOT + '/shared/env.sh', 'a').write('touch ' + OUT + '/pwned\\n')",
        host: "direnv exec sub true",
        path: "",
    },
    PointerAttack {
        name: "envrc_line_wicket_cannot_follow",
        setup: "mkdir envrc.d && printf 'for f in envrc.d/*.sh; do source \"$f\"; done\\n' > .envrc && direnv allow .",
        attack: "open(ROOT + '/envrc.d/x.sh', 'w').write('touch ' + OUT + '/pwned\\n')",
        host: "direnv exec . true",
        path: "",
    },
    PointerAttack {
        name: "envrc_path_folder_shadows_git",
        setup: "mkdir bin && printf 'PATH_add bin\\n' > .envrc && direnv allow .",
        attack: "plant(ROOT + '/bin/git')",
        host: "direnv exec . git --version",
        path: "",
    },
    PointerAttack {
        name: "envrc_layout_node_shadows_ls",
        setup: "mkdir -p node_modules/.bin && printf 'layout node\\n' > .envrc && direnv allow .",
        attack: "plant(ROOT + '/node_modules/.bin/ls')",
        host: "direnv exec . ls",
        path: "",
    },
    // Issue 39, classes 3 and 4, on the sandbox's side: a folder outside the project that a
    // writable path covers (`sandbox.writePaths` here; the fallback's `/tmp`, see
    // `a_path_folder_in_the_hosts_tmp_stays_read_only`) holding git's hooks, a relocated git
    // folder or programs found on PATH.
    PointerAttack {
        name: "path_folder_in_a_write_path_program_rewritten",
        setup: "mkdir -p ../shared/bin ../wicket-home && printf '#!/bin/sh\\ntrue\\n' > ../shared/bin/mytool && chmod +x ../shared/bin/mytool && printf '{\"sandbox\":{\"writePaths\":[\"%s\"]}}' \"$(cd .. && pwd)/shared\" > ../wicket-home/settings.json",
        attack: "plant(ROOT + '/../shared/bin/mytool')",
        host: "mytool",
        path: "../shared/bin",
    },
    PointerAttack {
        name: "path_folder_in_a_write_path_new_program",
        setup: "mkdir -p ../shared/bin ../wicket-home && printf '{\"sandbox\":{\"writePaths\":[\"%s\"]}}' \"$(cd .. && pwd)/shared\" > ../wicket-home/settings.json",
        attack: "plant(ROOT + '/../shared/bin/mytool')",
        host: "mytool",
        path: "../shared/bin",
    },
    PointerAttack {
        name: "home_tool_folder_in_a_write_path",
        setup: "mkdir -p \"$HOME/.npm-global/bin\" ../wicket-home && printf '{\"sandbox\":{\"writePaths\":[\"~/.npm-global\"]}}' > ../wicket-home/settings.json",
        attack: "plant(HOME + '/.npm-global/bin/prettier')",
        host: "PATH=\"$HOME/.npm-global/bin:$PATH\" prettier",
        path: "",
    },
    PointerAttack {
        name: "project_node_modules_bin_off_path_shadows_ls",
        setup: "mkdir -p node_modules/.bin",
        attack: "plant(ROOT + '/node_modules/.bin/ls')",
        host: "PATH=\"$PWD/node_modules/.bin:$PATH\" ls",
        path: "",
    },
    PointerAttack {
        name: "hooks_path_outside_the_project_in_a_write_path",
        setup: "mkdir -p ../shared/hooks ../wicket-home && printf '{\"sandbox\":{\"writePaths\":[\"%s\"]}}' \"$(cd .. && pwd)/shared\" > ../wicket-home/settings.json && git config core.hooksPath \"$(cd .. && pwd)/shared/hooks\"",
        attack: "plant(ROOT + '/../shared/hooks/pre-commit')",
        host: HOST_COMMIT,
        path: "",
    },
    PointerAttack {
        name: "relocated_git_folder_in_a_write_path",
        setup: "mkdir -p ../shared ../wicket-home && printf '{\"sandbox\":{\"writePaths\":[\"%s\"]}}' \"$(cd .. && pwd)/shared\" > ../wicket-home/settings.json && rm -rf .git && git init -q -b main --separate-git-dir=../shared/sep.git .",
        attack: "open(ROOT + '/../shared/sep.git/config', 'a').write(FSMON)",
        host: "git status",
        path: "",
    },
    PointerAttack {
        name: "relocated_git_folders_hooks_in_a_write_path",
        setup: "mkdir -p ../shared ../wicket-home && printf '{\"sandbox\":{\"writePaths\":[\"%s\"]}}' \"$(cd .. && pwd)/shared\" > ../wicket-home/settings.json && rm -rf .git && git init -q -b main --separate-git-dir=../shared/sep.git . && rm -rf ../shared/sep.git/hooks",
        attack: "plant(ROOT + '/../shared/sep.git/hooks/pre-commit')",
        host: HOST_COMMIT,
        path: "",
    },
    PointerAttack {
        name: "activated_virtualenv_shadows_git",
        setup: "mkdir -p .venv/bin",
        attack: "plant(ROOT + '/.venv/bin/git')",
        host: "git --version",
        path: ".venv/bin",
    },
];

/// The environment of a pointer attack's host steps and of its wicket run: the test's home,
/// `OUT`, and the row's folder first on `PATH`.
fn pointer_env(w: &World, a: &PointerAttack, c: &mut Command) {
    host_git_env(w, c);
    c.env("OUT", &w.out);
    if !a.path.is_empty() {
        let path = std::env::var("PATH").unwrap_or_default();
        c.env("PATH", format!("{}:{path}", w.root.join(a.path).display()));
    }
}

fn pointer_world(a: &PointerAttack) -> World {
    let w = git_world("");
    let mut c = Command::new("sh");
    c.args(["-c", a.setup]).current_dir(&w.root);
    pointer_env(&w, a, &mut c);
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}: {}", a.setup, String::from_utf8_lossy(&out.stderr));
    w
}

fn run_pointer_attacks(backend: &str) {
    assert!(
        Command::new("direnv").arg("version").output().is_ok_and(|o| o.status.success()),
        "direnv is needed (.ci/run installs it)"
    );
    let mut failures = Vec::new();
    for a in POINTER_ATTACKS {
        let code = format!("{POINTER_HELPERS}{}", a.attack);
        let pwned = |w: &World| w.out.join("pwned").exists();
        let host = |w: &World| {
            let mut c = Command::new("sh");
            c.args(["-c", a.host]).current_dir(&w.root).stdin(Stdio::null());
            pointer_env(w, a, &mut c);
            c.output().unwrap()
        };
        let w = pointer_world(a);
        let script = w.script(a.name, &code);
        let mut c = Command::new(wicket_bin());
        c.arg("run").arg("--root").arg(&w.root).arg("--").args(["python3", script.to_str().unwrap()]);
        c.env("WICKET_HOME", w.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
            .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
            .current_dir(&w.root)
            .stdin(Stdio::null());
        pointer_env(&w, a, &mut c);
        let inside = c.output().unwrap();
        let _ = host(&w);
        if pwned(&w) {
            failures.push(format!(
                "{backend}: {}: the host ran the payload ({}; stderr: {})",
                a.name,
                verdict(&inside),
                String::from_utf8_lossy(&inside.stderr).trim()
            ));
        }
        // The control, in a fresh world: the same attack outside any sandbox runs it.
        let w = pointer_world(a);
        let script = w.script(a.name, &code);
        let control = verdict(&w.direct(&["python3", script.to_str().unwrap()]));
        let out = host(&w);
        if control != "ESCAPED" || !pwned(&w) {
            failures.push(format!(
                "control for {}: {control}, payload ran: {} ({})",
                a.name,
                pwned(&w),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    assert!(failures.is_empty(), "{} pointer escape(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn what_protected_files_point_at_is_protected_under_bwrap() {
    run_pointer_attacks("bwrap");
}

#[test]
fn what_protected_files_point_at_is_protected_under_the_landlock_fallback() {
    run_pointer_attacks("landlock");
}

/// A folder on PATH in the host's `/tmp` (writable by everyone, so by the command under the
/// Landlock fallback, which has no private `/tmp`): its program stays as it was and a new one
/// does not land, on both backends (issue 39, class 4); outside the sandbox both writes land.
#[test]
fn a_path_folder_in_the_hosts_tmp_stays_read_only() {
    for backend in ["bwrap", "landlock"] {
        let w = World::new();
        let t = host_tmp("pathbin");
        let bin = t.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("mytool"), "#!/bin/sh\ntrue\n").unwrap();
        let code = format!(
            "for n in ('mytool', 'newtool'):\n    open({:?} + '/' + n, 'w').write('#!/bin/sh\\necho pwned\\n')",
            bin.to_string_lossy()
        );
        let script = w.script("tmp_path_bin", &code);
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
        let out = w.wicket_with(backend, &[("PATH", Path::new(&path))], &["python3", script.to_str().unwrap()]);
        let why = format!("{backend}: {} {}", verdict(&out), String::from_utf8_lossy(&out.stderr));
        assert_eq!(std::fs::read_to_string(bin.join("mytool")).unwrap(), "#!/bin/sh\ntrue\n", "{why}");
        assert!(!bin.join("newtool").exists(), "{why}");
        assert_eq!(verdict(&w.direct(&["python3", script.to_str().unwrap()])), "ESCAPED", "control");
        assert!(bin.join("newtool").exists(), "control");
        let _ = std::fs::remove_dir_all(&t);
    }
}

/// Everyday work in a project whose protected files point into it still runs inside (files at
/// the top are made by the set-up: the Landlock fallback makes none beside the masked
/// `.envrc`, a limit of its own): a commit
/// runs the project's hook from its `core.hooksPath` folder and its clean filter; branches
/// switch; a new program that shadows nothing, and a program that was on `PATH` before the run
/// (rewritten), stay where they are; a new folder beside the hooks folder can be made.
#[test]
fn everyday_work_with_pointers_still_runs_inside() {
    for backend in ["bwrap", "landlock"] {
        let a = PointerAttack {
            name: "everyday",
            setup: "git config core.hooksPath tools/hooks && mkdir -p tools/hooks scripts .venv/bin bin log node_modules/.bin && echo a > a.txt && printf '#!/bin/sh\\necho ran > log/hook-ran\\n' > tools/hooks/pre-commit && chmod +x tools/hooks/pre-commit && printf '#!/bin/sh\\ncat\\n' > scripts/clean.sh && chmod +x scripts/clean.sh && git config filter.x.clean ./scripts/clean.sh && echo '*.txt filter=x' > .gitattributes && printf '#!/bin/sh\\n' > .venv/bin/ls && chmod +x .venv/bin/ls && printf 'PATH_add bin\\n' > .envrc && direnv allow .",
            attack: "",
            host: "",
            path: ".venv/bin",
        };
        let w = pointer_world(&a);
        let code = "import subprocess\nenv = dict(os.environ, GIT_AUTHOR_NAME='a', GIT_AUTHOR_EMAIL='a@b', GIT_COMMITTER_NAME='a', GIT_COMMITTER_EMAIL='a@b')\ndef sh(c):\n    subprocess.run(c, shell=True, check=True, cwd=ROOT, env=env)\nsh('git add a.txt .gitattributes && git commit -q -m one')\nassert open(ROOT + '/log/hook-ran').read() == 'ran\\n'\nsh('git switch -q -c feature && git switch -q main && git branch other')\nfor p, text in (('/.venv/bin/mytool', '#!/bin/sh\\n'), ('/node_modules/.bin/jest', '#!/bin/sh\\n'), ('/.venv/bin/ls', '#!/bin/sh\\necho new\\n'), ('/bin/mytool2', '#!/bin/sh\\n')):\n    open(ROOT + p, 'w').write(text)\n    os.chmod(ROOT + p, 0o755)\nos.makedirs(ROOT + '/tools/other')\nopen(ROOT + '/tools/other/x', 'w').write('ok')";
        let script = w.script("everyday", code);
        let mut c = Command::new(wicket_bin());
        c.arg("run").arg("--root").arg(&w.root).arg("--").args(["python3", script.to_str().unwrap()]);
        c.env("WICKET_HOME", w.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
            .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
            .current_dir(&w.root)
            .stdin(Stdio::null());
        pointer_env(&w, &a, &mut c);
        let out = c.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(verdict(&out), "ESCAPED", "{backend}: everyday work failed inside: {stderr}");
        assert!(!stderr.contains("moved"), "{backend}: {stderr}");
        for f in [".venv/bin/mytool", ".venv/bin/ls", "bin/mytool2", "tools/other/x", "node_modules/.bin/jest"] {
            assert!(w.root.join(f).is_file(), "{backend}: {f} stays");
        }
        let mut log = Command::new("git");
        log.args(["log", "--format=%s"]).current_dir(&w.root);
        host_git_env(&w, &mut log);
        assert_eq!(String::from_utf8_lossy(&log.output().unwrap().stdout).trim(), "one", "{backend}");
    }
}

// ---------------------------------------------------------------------------------------------
// Issue 37 (item 3): a run makes no file events in the project.

/// The changes a watcher acts on (create, delete, modify, attributes, moves) seen by a
/// recursive inotify watch of `root` while `run` runs, each as "folder: event name".
fn file_events(root: &Path, run: impl FnOnce()) -> Vec<String> {
    use rustix::fs::inotify;
    let fd = inotify::init(inotify::CreateFlags::NONBLOCK | inotify::CreateFlags::CLOEXEC).unwrap();
    let watched = inotify::WatchFlags::CREATE
        | inotify::WatchFlags::DELETE
        | inotify::WatchFlags::DELETE_SELF
        | inotify::WatchFlags::MODIFY
        | inotify::WatchFlags::ATTRIB
        | inotify::WatchFlags::MOVED_FROM
        | inotify::WatchFlags::MOVED_TO
        | inotify::WatchFlags::MOVE_SELF
        | inotify::WatchFlags::CLOSE_WRITE;
    let mut folders = std::collections::HashMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let wd = inotify::add_watch(&fd, &d, watched).unwrap();
        folders.insert(wd, d.strip_prefix(root).unwrap().display().to_string());
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
    run();
    let mut out = Vec::new();
    let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 8192];
    let mut reader = inotify::Reader::new(&fd, &mut buf);
    while let Ok(e) = reader.next() {
        let name = e.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        out.push(format!("{}/{name}: {:?}", folders.get(&e.wd()).cloned().unwrap_or_default(), e.events()));
    }
    out
}

/// A run makes no file event in the project that an editor, a file watcher or a dev server
/// would act on: a git project missing every protected name (`.vscode`, `.claude`, `.mcp.json`,
/// `.git/hooks`, `.git/config.worktree` …), one run and then eight at once, on both backends.
/// Control: the same command outside the sandbox, making one file, is seen.
#[test]
fn a_run_makes_no_file_events_in_the_project() {
    for backend in ["bwrap", "landlock"] {
        let w = git_world("mkdir -p src && echo 'fn main() {}' > src/main.rs");
        // A first run settles what a first run makes in wicket's own state.
        assert!(w.wicket(backend, None, &["true"]).status.success());
        let events = file_events(&w.root, || {
            let out = w.wicket(backend, None, &["true"]);
            assert!(out.status.success(), "{backend}: {}", String::from_utf8_lossy(&out.stderr));
        });
        assert_eq!(events, Vec::<String>::new(), "{backend}: one run");
        let events = file_events(&w.root, || {
            std::thread::scope(|s| {
                for _ in 0..8 {
                    s.spawn(|| {
                        for _ in 0..3 {
                            let out = w.wicket(backend, None, &["true"]);
                            assert!(out.status.success(), "{backend}: {}", String::from_utf8_lossy(&out.stderr));
                        }
                    });
                }
            });
        });
        assert_eq!(events, Vec::<String>::new(), "{backend}: 8 runs at once");
        let control = file_events(&w.root, || {
            host_sh(&w, "touch made-outside");
        });
        assert!(control.iter().any(|e| e.contains("made-outside")), "control: {control:?}");

        // A project and a home in the temp folder (where many people try things, and where the
        // sandbox gives the run a private temp folder of its own under the project).
        let t = tempfile::tempdir().unwrap();
        let (root, home) = (t.path().join("proj"), t.path().join("home"));
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        assert!(Command::new("git").args(["init", "-q"]).current_dir(&root).status().unwrap().success());
        let run = || {
            let out = Command::new(wicket_bin())
                .args(["run", "--", "true"])
                .env("HOME", &home)
                .env("WICKET_HOME", home.join(".wicket"))
                .env("WICKET_SANDBOX_BACKEND", sandbox_of(backend))
                .env("WICKET_BWRAP_MASKS", bwrap_masks(backend))
                .current_dir(&root)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(out.status.success(), "{backend}: {}", String::from_utf8_lossy(&out.stderr));
        };
        run();
        let events = file_events(&root, run);
        assert_eq!(events, Vec::<String>::new(), "{backend}: one run in the temp folder");
    }
}

/// overlayfs removes and remakes its `work/work` folder at every mount, which waits for the
/// disk on the run's path; wicket sets the used one aside after each run and removes it while a
/// later command runs. After a series of runs (shells at the root and in `.git`, a package
/// cache layer), no slot keeps a used `work/work`, and the trash holds at most what the last
/// few runs left: it does not grow run after run.
#[test]
fn used_overlay_work_folders_are_set_aside_and_removed() {
    for backend in ["bwrap", "landlock"] {
        let w = git_world("mkdir -p src && echo 'fn main() {}' > src/main.rs");
        std::fs::create_dir_all(w.home.join(".npm")).unwrap();
        let state = w.dir.join("wicket-home");
        let runs = 12;
        for i in 0..runs {
            let out = w.wicket(backend, None, &["sh", "-c", "echo x > src/out.txt"]);
            assert!(out.status.success(), "{backend}, run {i}: {}", String::from_utf8_lossy(&out.stderr));
        }
        // Every folder of the state but the trash's, found by name (a used one is mode 000).
        let (mut folders, mut stack) = (Vec::new(), vec![state.clone()]);
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                if e.file_type().is_ok_and(|t| t.is_dir()) && e.path() != state.join("trash") {
                    folders.push(e.path());
                    stack.push(e.path());
                }
            }
        }
        let slots = folders.iter().filter(|p| p.ends_with("work")).count();
        assert!(slots >= 3, "{backend}: the shells and the cache layer have work folders: {folders:?}");
        let used: Vec<_> = folders.iter().filter(|p| p.ends_with("work/work")).collect();
        assert_eq!(used, Vec::<&PathBuf>::new(), "{backend}: used work folders left in their slots");
        let trash = std::fs::read_dir(state.join("trash")).map(|d| d.flatten().count()).unwrap_or(0);
        // Each run sets aside one folder an overlay: a trash never emptied would hold them all.
        assert!(trash < 2 * runs, "{backend}: the trash grows: {trash} entries after {runs} runs");
    }
}
