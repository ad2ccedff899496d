//! The small helper binary (`wicket-shim`, next to `wicket`): used when it is there and
//! trusted, passed over when others could write it, and not needed when it is missing. (Every
//! other sandbox test runs through it too: cargo builds it next to the `wicket` under test.)

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A copy of `wicket` alone in a folder outside every temp folder, a project and a home.
struct World {
    bin: PathBuf,
    root: PathBuf,
    home: PathBuf,
    _tmp: tempfile::TempDir,
}

fn world(name: &str) -> World {
    let bin = common::outside_temp(&format!("shim-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(bin.join("wicket-shim"));
    std::fs::copy(env!("CARGO_BIN_EXE_wicket"), bin.join("wicket")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let (root, home) = (base.join("proj"), base.join("home"));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    World { bin, root, home, _tmp: tmp }
}

impl World {
    /// `wicket run` of `script` (allowed by a rule), under bubblewrap; whether it succeeded.
    fn run(&self, script: &str) -> bool {
        let out = Command::new(self.bin.join("wicket"))
            .args(["run", "--allow", "Bash(sh:*)", "--", "sh", "-c", script])
            .env("WICKET_HOME", self.home.join(".wicket"))
            .env("HOME", &self.home)
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .output_retrying()
            .unwrap();
        if !out.status.success() {
            eprintln!("{}", String::from_utf8_lossy(&out.stderr));
        }
        out.status.success()
    }

    /// A stand-in `wicket-shim` with `mode` that leaves a mark in the project when it is the
    /// sandbox's shim (or builds the sandbox, with wicket's own namespaces, from the project's
    /// folder), and hands every other role to wicket.
    fn fake_shim(&self, mode: u32) {
        let fake = self.bin.join("wicket-shim");
        let script = format!(
            "#!/bin/sh\ncase \"$1\" in\n__sandbox-exec) touch shim-was-used; shift 2; exec \"$@\";;\n__sandbox-ns) touch shim-was-used;;\nesac\nexec {} \"$@\"\n",
            self.bin.join("wicket").display()
        );
        std::fs::write(&fake, script).unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(mode)).unwrap();
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.bin);
    }
}

fn bwrap_here() -> bool {
    Path::new("/usr/bin/bwrap").exists()
}

#[test]
fn without_the_small_binary_wicket_is_its_own_shim() {
    if !bwrap_here() {
        return;
    }
    let w = world("none");
    assert!(w.run("echo \"$0\" > zero"));
    assert_eq!(std::fs::read_to_string(w.root.join("zero")).unwrap(), "sh\n", "the program keeps its name");
}

#[test]
fn the_small_binary_next_to_wicket_is_the_shim() {
    if !bwrap_here() {
        return;
    }
    let w = world("fake");
    w.fake_shim(0o755);
    assert!(w.run("touch ran"));
    assert!(w.root.join("ran").exists());
    assert!(w.root.join("shim-was-used").exists(), "wicket-shim next to wicket is started");
}

/// `wicket doctor` says which helper runs.
fn doctor_helper(w: &World) -> String {
    let out = Command::new(w.bin.join("wicket"))
        .args(["doctor", "--root"])
        .arg(&w.root)
        .env("WICKET_HOME", w.home.join(".wicket"))
        .env("HOME", &w.home)
        .output_retrying()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines().find(|l| l.starts_with("helper: ")).unwrap_or_default().to_string()
}

#[test]
fn doctor_names_the_helper() {
    let w = world("doctor");
    assert!(doctor_helper(&w).starts_with("helper: wicket itself"), "{}", doctor_helper(&w));
    std::fs::copy(env!("CARGO_BIN_EXE_wicket-shim"), w.bin.join("wicket-shim")).unwrap();
    assert_eq!(doctor_helper(&w), format!("helper: {}", w.bin.join("wicket-shim").display()));
}

#[test]
fn a_small_binary_others_can_write_is_never_started() {
    if !bwrap_here() {
        return;
    }
    let w = world("open");
    w.fake_shim(0o777);
    assert!(w.run("touch ran"));
    assert!(w.root.join("ran").exists());
    assert!(!w.root.join("shim-was-used").exists(), "a world-writable wicket-shim is passed over");
}

#[test]
fn the_real_small_binary_runs_the_command_confined() {
    if !bwrap_here() {
        return;
    }
    let w = world("real");
    std::fs::copy(env!("CARGO_BIN_EXE_wicket-shim"), w.bin.join("wicket-shim")).unwrap();
    // wicket's own folder is outside every temp folder and the project: out of reach.
    let outside = w.bin.join("outside");
    assert!(w.run(&format!("echo \"$0\" > zero; touch '{}' 2>/dev/null; true", outside.display())));
    assert_eq!(std::fs::read_to_string(w.root.join("zero")).unwrap(), "sh\n");
    assert!(!outside.exists(), "a write outside the project is refused");
}

/// Running a binary this process has just copied can fail with "Text file busy" while another
/// test thread forks: the child holds the copy's write descriptor for a moment, until its exec.
trait OutputRetrying {
    fn output_retrying(&mut self) -> std::io::Result<std::process::Output>;
}

impl OutputRetrying for Command {
    fn output_retrying(&mut self) -> std::io::Result<std::process::Output> {
        let mut tries = 0;
        loop {
            match self.output() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                r => return r,
            }
        }
    }
}
