//! Wicket's own namespaces (`wicket __sandbox-ns LINE -- COMMAND`): the sandbox bubblewrap
//! would build from the same line, built by wicket itself. Each test runs the real thing; the
//! first runs one probe under both and compares what the command sees.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up
#![cfg(target_os = "linux")]

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn wicket() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_wicket"))
}

/// A project with a read-only hole, a secret file and a secret folder, outside every temp
/// folder (the line makes `/tmp` a fresh tmpfs).
struct World {
    proj: PathBuf,
    _dir: tempfile::TempDir,
}

fn world() -> World {
    let dir = tempfile::Builder::new().prefix("own-ns").tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let proj = dir.path().canonicalize().unwrap().join("proj");
    std::fs::create_dir_all(proj.join("ro")).unwrap();
    std::fs::create_dir_all(proj.join("vault")).unwrap();
    std::fs::write(proj.join("ro/file"), "ro").unwrap();
    std::fs::write(proj.join("vault/key"), "secret-in-folder").unwrap();
    std::fs::write(proj.join(".env"), "secret-in-file").unwrap();
    std::fs::write(proj.join("plain"), "plain").unwrap();
    World { proj, _dir: dir }
}

/// A line like wicket's: every kind of option it uses.
fn line(w: &World) -> Vec<String> {
    let p = w.proj.display().to_string();
    let mut a: Vec<String> = [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--unshare-net",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--tmpfs",
        "/run",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for extra in [
        vec!["--bind", &p, &p],
        vec!["--ro-bind", &format!("{p}/ro"), &format!("{p}/ro")],
        vec!["--ro-bind", "/dev/null", &format!("{p}/.env")],
        vec!["--tmpfs", &format!("{p}/vault"), "--remount-ro", &format!("{p}/vault")],
        vec!["--symlink", "../etc/passwd", "/run/link"],
        vec!["--remount-ro", "/run"],
        vec!["--clearenv", "--setenv", "GREETING", "hello there", "--setenv", "PATH", "/usr/bin:/bin"],
        vec!["--chdir", &p],
    ] {
        a.extend(extra.into_iter().map(String::from));
    }
    a
}

/// What the command sees: files, rights, devices, ids, capabilities, environment.
const PROBE: &str = r#"
for f in / /etc /etc/passwd /tmp /run /run/link "$PWD" "$PWD/plain" "$PWD/ro" "$PWD/ro/file" "$PWD/.env" "$PWD/vault" "$PWD/vault/key" /dev/null /dev/shm /dev/pts /proc/sys /proc/sysrq-trigger; do
  e=-; r=-; w=-
  [ -e "$f" ] && e=e
  [ -r "$f" ] && cat "$f" >/dev/null 2>&1 && r=r
  if [ -d "$f" ]; then (touch "$f/.probe" && rm -f "$f/.probe") 2>/dev/null && w=w
  elif [ -e "$f" ]; then (: >> "$f") 2>/dev/null && w=w; fi
  echo "$f $e$r$w"
done
ls -A /dev | tr '\n' ' '; echo
ls -A /tmp /run | tr '\n' ' '; echo
echo "id $(id -u):$(id -g) pwd $PWD umask $(umask)"
echo "caps: $(grep -E '^Cap' /proc/self/status | tr '\t\n' '  ')"
grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status | tr '\t\n' '  '; echo
echo "pid $$ parent-pid $PPID sid $(ps -o sid= -p $$ 2>/dev/null | tr -d ' ')"
unshare -U true 2>/dev/null && echo userns-made || echo no-userns
cat /sys/class/net/lo/carrier 2>/dev/null || echo no-carrier
echo "links: $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
env | grep -v '^_=' | grep -v '^SHLVL=' | sort | tr '\n' ' '; echo
"#;

fn run(program: &[String], line: &[String], command: &[&str], cwd: &Path) -> Output {
    Command::new(&program[0])
        .args(&program[1..])
        .args(line)
        .arg("--")
        .args(command)
        .current_dir(cwd)
        .env("NOT_PASSED", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn own() -> Vec<String> {
    vec![wicket().display().to_string(), "__sandbox-ns".into()]
}

fn bwrap() -> Option<Vec<String>> {
    ["/usr/bin/bwrap", "/bin/bwrap"].iter().find(|p| Path::new(p).exists()).map(|p| vec![p.to_string()])
}

#[test]
fn the_command_sees_what_bubblewrap_would_show_it() {
    let Some(bwrap) = bwrap() else {
        assert!(std::env::var_os("WICKET_CI").is_none(), "bubblewrap must be installed in CI");
        return;
    };
    let w = world();
    let l = line(&w);
    let mine = run(&own(), &l, &["sh", "-c", PROBE], &w.proj);
    let theirs = run(&bwrap, &l, &["sh", "-c", PROBE], &w.proj);
    let (mine_out, theirs_out) = (String::from_utf8_lossy(&mine.stdout), String::from_utf8_lossy(&theirs.stdout));
    assert!(mine.status.success(), "{}\n{}", mine_out, String::from_utf8_lossy(&mine.stderr));
    assert!(theirs.status.success(), "{}", String::from_utf8_lossy(&theirs.stderr));
    // Bubblewrap run by root leaves root its capabilities inside (wicket's shim drops them);
    // wicket's own namespaces drop them for any command.
    let world = |o: &str| o.lines().filter(|l| !l.starts_with("caps:")).collect::<Vec<_>>().join("\n");
    assert_eq!(
        world(&mine_out),
        world(&theirs_out),
        "wicket's own namespaces and bubblewrap show the command different worlds"
    );
    // And the world is the line's: the checks that would fail if an option were skipped.
    let p = w.proj.display();
    for expected in [
        format!("{p}/plain erw"),
        format!("{p}/ro/file er-"),
        format!("{p}/.env e--"),
        format!("{p}/vault/key ---"),
        "/etc/passwd er-".to_string(),
        "no-userns".to_string(),
        "CapEff: 0000000000000000".to_string(),
        "NoNewPrivs: 1".to_string(),
        "GREETING=hello there PATH=/usr/bin:/bin".to_string(),
        "pid 2 parent-pid 1".to_string(),
        "links: lo \n".to_string(),
        "/run/link er-".to_string(),
    ] {
        assert!(mine_out.contains(&expected), "{expected:?} not in:\n{mine_out}");
    }
    assert!(!mine_out.contains("NOT_PASSED"), "--clearenv: {mine_out}");
}

#[test]
fn the_status_passes_through_and_nothing_outlives_the_command() {
    let w = world();
    let l = line(&w);
    let out = run(&own(), &l, &["sh", "-c", "exit 7"], &w.proj);
    assert_eq!(out.status.code(), Some(7));
    let out = run(&own(), &l, &["sh", "-c", "kill -TERM $$"], &w.proj);
    assert_eq!(out.status.code(), Some(143), "a signal's death is 128 + the signal");
    // A daemon of the command, in a session of its own, would write the marker a moment later.
    let marker = w.proj.join("late");
    let script = format!("(setsid sh -c 'sleep 1; echo late > {}' &) ; exit 0", marker.display());
    let out = run(&own(), &l, &["sh", "-c", &script], &w.proj);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(!marker.exists(), "a process of the command outlived it");
    // Control: without a sandbox the daemon does write it.
    Command::new("sh").args(["-c", &script]).status().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(marker.exists(), "control: the daemon writes the marker outside");
}

#[test]
fn a_line_it_cannot_carry_out_never_runs_the_command() {
    let w = world();
    let marker = w.proj.join("ran");
    let touch = format!("touch {}", marker.display());
    let mut cases: Vec<Vec<String>> = Vec::new();
    // An option it does not know, a relative path, a missing source, a mount point it would
    // have to make on a read-only folder, no user namespace asked for.
    for extra in [
        vec!["--overlay-src", "/usr"],
        vec!["--bind", "proj", "/x"],
        vec!["--bind", "/no/such/folder", "/x"],
        vec!["--tmpfs", "/usr/no-such-mount-point"],
    ] {
        let mut l = line(&w);
        l.extend(extra.into_iter().map(String::from));
        cases.push(l);
    }
    let mut l = line(&w);
    l.retain(|a| a != "--unshare-user");
    cases.push(l);
    for l in cases {
        let out = run(&own(), &l, &["sh", "-c", &touch], &w.proj);
        assert_eq!(out.status.code(), Some(126), "{l:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!marker.exists(), "{l:?}: the command ran");
        assert!(String::from_utf8_lossy(&out.stderr).contains("does not run"), "the reason is told");
    }
    // A link where a mount point would be made: never followed out of the new root.
    std::fs::create_dir_all(w.proj.join("d")).unwrap();
    std::os::unix::fs::symlink("/etc", w.proj.join("d/link")).unwrap();
    let mut l = line(&w);
    l.extend(["--tmpfs", &format!("{}/d/link/inner", w.proj.display())].map(String::from));
    let out = run(&own(), &l, &["sh", "-c", &touch], &w.proj);
    assert_eq!(out.status.code(), Some(126), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!marker.exists());
}

#[test]
fn a_folder_bound_by_descriptor_is_the_one_that_was_opened() {
    let w = world();
    let checked = w.proj.join("checked");
    std::fs::create_dir_all(&checked).unwrap();
    std::fs::write(checked.join("mark"), "checked").unwrap();
    let dir = std::fs::File::open(&checked).unwrap();
    // Moved away and replaced after it was opened: the bind must show the folder opened.
    std::fs::rename(&checked, w.proj.join("moved")).unwrap();
    std::fs::create_dir_all(&checked).unwrap();
    std::fs::write(checked.join("mark"), "impostor").unwrap();
    let target = w.proj.join("ro");
    let mut l = line(&w);
    l.extend(["--bind-fd".to_string(), dir.as_raw_fd().to_string(), target.display().to_string()]);
    // The descriptor must survive into the helper.
    rustix::io::fcntl_setfd(&dir, rustix::io::FdFlags::empty()).unwrap();
    let out = run(&own(), &l, &["cat", &format!("{}/mark", target.display())], &w.proj);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "checked");
}

#[test]
fn the_sync_descriptor_is_held_by_the_sandbox_and_never_by_the_command() {
    let w = world();
    let (read, write) = rustix::pipe::pipe().unwrap();
    rustix::io::fcntl_setfd(&write, rustix::io::FdFlags::empty()).unwrap();
    let n = write.as_raw_fd();
    let mut l = line(&w);
    l.extend(["--sync-fd".to_string(), n.to_string()]);
    let script = format!("test -e /proc/self/fd/{n} && echo leaked; exit 0");
    let child = Command::new(wicket())
        .arg("__sandbox-ns")
        .args(&l)
        .args(["--", "sh", "-c", &script])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    drop(write);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("leaked"), "the command got the sync descriptor");
    // Every holder is gone once the helper has ended: the read end sees the end.
    let mut buf = [0u8; 1];
    assert_eq!(rustix::io::read(&read, &mut buf).unwrap(), 0);
}

/// `wicket run` starts the sandbox's first process before the run is planned and hands it the
/// line, the mounts of wicket's own namespace and the descriptors when the plan is ready (see
/// `wicket_sandbox::early`). The sandbox it builds is the one the shim started afterwards builds
/// (`WICKET_EARLY_HELPER=0`): the same files, rights, mounts, ids, environment and, above all,
/// the same descriptors (nothing of wicket's socket to the helper reaches the command), in a
/// project where people are: its own git hooks, a guarded folder, secrets beside the code, and
/// a home that already holds settings.
#[test]
fn the_early_helper_builds_the_sandbox_the_shim_would() {
    let dir = tempfile::Builder::new().prefix("early").tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (proj, home) = (base.join("proj"), base.join("home"));
    for d in [proj.join(".git/hooks"), proj.join(".vscode"), proj.join("src"), home.join(".wicket"), home.join(".ssh")]
    {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(proj.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(proj.join(".git/config"), "[core]\n\trepositoryformatversion = 0\n").unwrap();
    std::fs::write(proj.join(".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::write(proj.join(".env"), "TOKEN=secret").unwrap();
    std::fs::write(proj.join(".vscode/settings.json"), "{}").unwrap();
    std::fs::write(proj.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "key").unwrap();
    std::fs::write(home.join(".wicket/settings.json"), r#"{"permissions":{"allow":["bash(sh probe.sh)"]}}"#).unwrap();
    let probe = format!(
        "{PROBE}\nfor f in .env .git/config .git/hooks/pre-commit .vscode/settings.json src/main.rs {home}/.ssh/id_ed25519; do\n  \
         r=-; w=-; cat \"$f\" >/dev/null 2>&1 && r=r; (: >> \"$f\") 2>/dev/null && w=w; echo \"$f $r$w\"\ndone\n\
         echo \"fds: $(ls /proc/self/fd | tr '\\n' ' ')\"\necho \"mounts: $(wc -l < /proc/self/mountinfo)\"\n\
         echo \"net: $(python3 net.py 2>&1) $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ' ')\"\n",
        home = home.display()
    );
    std::fs::write(proj.join("probe.sh"), probe).unwrap();
    // The network namespace (made ahead by the helper, or by process 1's clone): its own, with
    // a loopback that is up, and nothing else.
    std::fs::write(
        proj.join("net.py"),
        "import socket\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\n\
         socket.create_connection(s.getsockname(), timeout=5)\n\
         try:\n    socket.create_connection(('192.0.2.1', 80), timeout=2)\n    print('reached')\n\
         except OSError:\n    print('loopback only')\n",
    )
    .unwrap();
    // As an agent may: wicket is started holding a descriptor of its caller's (the write end
    // of a pipe, inheritable in wicket only). It crosses to the helper as it would cross an
    // exec, and must reach neither the command nor outlive the run.
    let (caller_read, caller_write) = rustix::pipe::pipe().unwrap();
    let inherited = caller_write.as_raw_fd();
    let run = |early: &str| {
        let mut c = Command::new(wicket());
        c.args(["run", "--unattended", "--root"])
            .arg(&proj)
            .args(["--", "sh", "probe.sh"])
            .current_dir(&proj)
            .env("HOME", &home)
            .env("WICKET_HOME", home.join(".wicket"))
            .env("WICKET_TRACE_PHASES", "1")
            .env("WICKET_EARLY_HELPER", early)
            .stdin(Stdio::null());
        // SAFETY: one fcntl on a descriptor number in the forked child, before exec.
        unsafe {
            use std::os::unix::process::CommandExt;
            c.pre_exec(move || {
                let fd = std::os::fd::BorrowedFd::borrow_raw(inherited);
                rustix::io::fcntl_setfd(fd, rustix::io::FdFlags::empty()).map_err(std::io::Error::from)
            });
        }
        let out = c.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{err}");
        (String::from_utf8_lossy(&out.stdout).into_owned(), err)
    };
    let (shim, shim_err) = run("0");
    let (helper, helper_err) = run("1");
    // Every holder of the caller's descriptor is gone with the runs: the read end sees the end.
    drop(caller_write);
    let mut byte = [0u8; 1];
    assert_eq!(
        rustix::io::read(&caller_read, &mut byte).unwrap(),
        0,
        "a process of the sandbox kept the caller's descriptor"
    );
    // Only a machine where wicket's own namespaces carry the line out starts the helper.
    if !helper_err.contains("own namespaces: started") {
        assert!(std::env::var_os("WICKET_CI").is_none(), "CI runs wicket's own namespaces: {helper_err}");
        return;
    }
    assert!(helper_err.contains("early helper started"), "{helper_err}");
    assert!(!helper_err.contains("early helper not used"), "{helper_err}");
    assert!(!shim_err.contains("early helper started"), "{shim_err}");
    assert_eq!(helper, shim, "the same sandbox either way");
    // The probe's own view, checked once: the secrets and the hooks stay out of reach.
    for want in [
        ".env --",
        ".git/hooks/pre-commit r-",
        "src/main.rs rw",
        "id_ed25519 --",
        "fds: 0 1 2 3 \n",
        "net: loopback only lo \n",
    ] {
        assert!(helper.contains(want), "{want:?} in {helper}");
    }
}
