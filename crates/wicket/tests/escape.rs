//! The escape suite: real escape attempts from inside `wicket run`, by a program the gate cannot
//! see into (a Python script), so the sandbox alone must stop each one. Every attempt also runs
//! outside the sandbox as a control that must succeed, so a test cannot pass by being broken.
//!
//! Run as root and as an unprivileged user (`.ci/run` does both). The test world must not sit
//! in a temp folder, because temp folders are writable inside the sandbox: it lives under
//! `WICKET_ESCAPE_BASE`, else the target folder, else `/var/lib/wicket-escape-tests` (root).
//! `WICKET_BIN` overrides the binary under test (for the unprivileged run).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

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

fn under_temp(p: &Path) -> bool {
    let temps = [std::env::temp_dir(), PathBuf::from("/tmp"), PathBuf::from("/var/tmp")];
    let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    temps.iter().any(|t| real.starts_with(std::fs::canonicalize(t).unwrap_or_else(|_| t.clone())))
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0).unwrap_or(false)
}

fn base() -> PathBuf {
    if let Some(b) = std::env::var_os("WICKET_ESCAPE_BASE") {
        return PathBuf::from(b);
    }
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    if !under_temp(&target) {
        return target.join("escape");
    }
    let is_root =
        std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0).unwrap_or(false);
    assert!(is_root, "the escape suite needs a folder outside the temp folders: set WICKET_ESCAPE_BASE to one you own");
    PathBuf::from("/var/lib/wicket-escape-tests")
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
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = base().join(format!("w{}-{n}", std::process::id()));
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
            "import os, sys, socket, shutil, signal, time\nROOT={:?}\nHOME={:?}\nOUT={:?}\nARGS=sys.argv[1:]\ntry:\n{}\n    print('ESCAPED')\nexcept Exception as e:\n    print('BLOCKED', type(e).__name__, e)\n",
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
            .env("WICKET_SANDBOX_BACKEND", backend)
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
            .env("WICKET_SANDBOX_BACKEND", backend)
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

/// One escape attempt: Python statements that raise when blocked.
struct Attempt {
    name: &'static str,
    code: &'static str,
    /// Blocked by the Landlock + seccomp fallback too (the holes inside the root are not).
    fallback_blocks: bool,
    /// Only root can do it outside the sandbox, so the control runs only as root.
    root_control: bool,
}

const ATTEMPTS: &[Attempt] = &[
    Attempt { name: "write_outside", code: "open(OUT + '/new.txt', 'w').write('x')", fallback_blocks: true, root_control: false },
    Attempt { name: "write_home", code: "open(HOME + '/.bashrc', 'a').write('evil')", fallback_blocks: true, root_control: false },
    Attempt { name: "overwrite_outside", code: "open(OUT + '/existing.txt', 'w').write('x')", fallback_blocks: true, root_control: false },
    Attempt {
        name: "read_secret",
        code: "assert open(HOME + '/.ssh/id_' + 'rsa').read() == 'secret'",
        fallback_blocks: true,
        root_control: false,
    },
    Attempt {
        name: "read_secret_proc_root",
        code: "assert open('/proc/self/root' + HOME + '/.ssh/id_' + 'rsa').read() == 'secret'",
        fallback_blocks: true,
        root_control: false,
    },
    Attempt { name: "git_hook", code: "open(ROOT + '/.git/hooks/pre-commit', 'w').write('x')", fallback_blocks: false, root_control: false },
    Attempt { name: "git_config", code: "open(ROOT + '/.git/config', 'a').write('[core]\\n')", fallback_blocks: false, root_control: false },
    Attempt { name: "vscode", code: "open(ROOT + '/.vscode/settings.json', 'w').write('{}')", fallback_blocks: false, root_control: false },
    Attempt { name: "mcp_json_fresh", code: "open(ROOT + '/.mcp.json', 'x').write('{}')", fallback_blocks: false, root_control: false },
    Attempt { name: "wicket_dir", code: "open(ROOT + '/.wicket/settings.json', 'w').write('{}')", fallback_blocks: false, root_control: false },
    Attempt {
        name: "recreate_hooks",
        code: "shutil.rmtree(ROOT + '/.git/hooks')\nos.mkdir(ROOT + '/.git/hooks')\nopen(ROOT + '/.git/hooks/post-checkout', 'w').write('x')",
        fallback_blocks: false,
        root_control: false,
    },
    Attempt {
        name: "symlink_out",
        code: "os.symlink(OUT, ROOT + '/lnk')\nopen(ROOT + '/lnk/via-link.txt', 'w').write('x')",
        fallback_blocks: true,
        root_control: false,
    },
    Attempt {
        name: "write_etc",
        code: "open('/etc/wicket-escape-test', 'w').write('x')",
        fallback_blocks: true,
        root_control: true,
    },
    Attempt {
        name: "tcp_loopback",
        code: "socket.create_connection(('127.0.0.1', int(ARGS[0])), timeout=2).close()",
        fallback_blocks: true,
        root_control: false,
    },
    Attempt {
        name: "unix_socket",
        code: "s = socket.socket(socket.AF_UNIX)\ns.connect(ARGS[1])",
        fallback_blocks: true,
        root_control: false,
    },
    Attempt { name: "signal_outside", code: "os.kill(int(ARGS[2]), signal.SIGTERM)", fallback_blocks: true, root_control: false },
    Attempt { name: "secret_env", code: "assert os.environ['WICKET_TEST_SECRET'] == 'hunter2'", fallback_blocks: true, root_control: false },
];

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
        let inside = w.wicket(backend, None, &args);
        let got = verdict(&inside);
        let must_block = backend == "bwrap" || a.fallback_blocks;
        let victim_alive = victim.try_wait().unwrap().is_none();
        if must_block && (!got.starts_with("BLOCKED") || !victim_alive) {
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
    }
    assert!(failures.is_empty(), "{} escape(s):\n{}", failures.len(), failures.join("\n"));
    assert!(!w.root.join(".mcp.json").exists(), "the placeholder for .mcp.json was removed after the run");
}

#[test]
fn escapes_are_blocked_by_bwrap() {
    run_suite("bwrap");
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

/// An output flood is capped (head and tail kept) while the control prints it all.
#[test]
fn an_output_flood_is_capped() {
    let w = World::new();
    let script = w.script("flood", "sys.stdout.write('y' * 5_000_000)\nsys.stdout.flush()");
    let args = ["python3", script.to_str().unwrap()];
    let out = w.wicket("bwrap", None, &args);
    assert!(out.stdout.len() < 31_000, "{} bytes passed the cap", out.stdout.len());
    assert!(String::from_utf8_lossy(&out.stdout).contains("bytes cut by wicket's output cap"));
    assert!(w.direct(&args).stdout.len() >= 5_000_000);
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
    for backend in ["bwrap", "landlock"] {
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
    for backend in ["bwrap", "landlock"] {
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

#[test]
fn the_account_home_stays_masked_when_home_points_elsewhere() {
    let w = World::new();
    if is_root() {
        // A user whose password-database home is a folder of this test, so no real home is
        // touched; wicket runs as that user with HOME pointing at the fake home.
        let user = "wicketpwtest";
        let pw_home = base().join("pw-home");
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
        let run = |sandboxed: bool, backend: &str| {
            use std::os::unix::process::CommandExt;
            let mut c = if sandboxed {
                let mut c = Command::new(wicket_bin());
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
                .env("WICKET_SANDBOX_BACKEND", backend)
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
/// (The Landlock fallback does not enforce holes inside the project: see docs/sandbox.md.)
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

fn listing(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn new_protected_paths_cannot_be_created_or_written_inside() {
    let w = World::new();
    let code = "p = os.path.join(ROOT, open(ARGS[0]).read())\nos.makedirs(os.path.dirname(p), exist_ok=True)\nopen(p, 'w').write('evil')";
    let script = w.script("protect", code);
    let mut failures = Vec::new();
    for (rel, missing) in PROTECTED_NEW {
        let top = w.root.join(rel.split('/').next().unwrap());
        let _ = std::fs::remove_dir_all(&top);
        let _ = std::fs::remove_file(&top);
        if !missing {
            write_file(&w.root.join(rel), "original");
        }
        let before = listing(&w.root);
        let list = path_list(&w, "protect", &[rel]);
        let inside = w.wicket("bwrap", None, &["python3", script.to_str().unwrap(), list.as_str()]);
        let got = verdict(&inside);
        if !got.starts_with("BLOCKED") {
            failures.push(format!("{rel} (missing: {missing}): {got} {}", String::from_utf8_lossy(&inside.stderr)));
        }
        if listing(&w.root) != before {
            failures.push(format!("{rel} (missing: {missing}): the project changed: {:?}", listing(&w.root)));
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
    for backend in ["bwrap", "landlock"] {
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
        // Everyday work beside the secret: edit a file in its folder, list it, commit.
        // (Without bubblewrap, new files directly in a folder on the way to a secret are not
        // usable, as the notice says: the fallback's new file goes to an existing folder.)
        let new_file = if backend == "bwrap" { "services/api/config/notes.txt" } else { "src/notes.txt" };
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
/// gitstatus folder cannot be planted. (bwrap only: the fallback does not enforce holes.)
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
        let inside = verdict(&w.wicket("bwrap", None, &args));
        assert!(inside.starts_with("BLOCKED"), "{}: {inside}", target.display());
        assert!(!w.home.join(".cache/gitstatus").exists(), "the placeholder was removed");
        // Control: outside, the write succeeds (and is undone).
        assert_eq!(verdict(&w.direct(&args)), "ESCAPED", "control for {}", target.display());
        let _ = std::fs::remove_dir_all(w.home.join(".cache/gitstatus"));
        write_file(&prompt, "# p10k");
    }
    // Writing the cache itself still works inside.
    let list = path_list(&w, "prompt", &[w.home.join(".cache/pip/x").to_str().unwrap()]);
    assert_eq!(verdict(&w.wicket("bwrap", None, &["python3", script.to_str().unwrap(), list.as_str()])), "ESCAPED");
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
    let mut lie: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    assert!(lie["secrets"].as_array().is_some_and(|s| s.len() == 1), "{lie}");
    lie["secrets"] = serde_json::json!([]);
    let lie = lie.to_string();
    let plant = |file: &Path, mode: u32| {
        let _ = std::fs::remove_file(file);
        write_file(file, &lie);
        std::fs::set_permissions(file, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
    };
    type Tamper<'a> = (&'static str, Box<dyn Fn() + 'a>);
    let mut cases: Vec<Tamper> = vec![
        ("writable by others", Box::new(|| plant(&cache, 0o666))),
        ("not JSON", Box::new(|| std::fs::write(&cache, "{not json").unwrap())),
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
    let mut lie: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    lie["secrets"] = serde_json::json!([]);
    let planted = in_project.join("cache/scan").join(cache.file_name().unwrap());
    std::fs::write(&planted, lie.to_string()).unwrap();
    std::fs::set_permissions(&planted, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let inside = w.wicket_with("bwrap", &[("WICKET_HOME", &in_project)], &args);
    assert_eq!(readable(&inside), Vec::<String>::new(), "a cache in the project was believed");
}
