//! Everyday work under the default hook: each job runs twice in the same kind of project, once
//! as the agent would run it unconfined (`bash -c JOB`) and once as Claude Code runs it behind
//! `wicket init claude` (the hook's `updatedInput`: `wicket run … -- bash -c JOB`), and both must
//! end the same way, with the same output. The project is where people are: a git repository
//! with its own config and a pre-commit hook, a person's `~/.gitconfig`, a Node package, a Rust
//! crate, Python tests and a Makefile.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

/// One job a line: `name | command`. Each must pass on the host; confined, it must end the same
/// way with the same standard output.
const JOBS: &str = "
git status          | git status --short
git add and commit  | echo more >> README.md && git add -A && git commit -q -m more && git log --oneline | wc -l
git stash           | echo x >> README.md && git stash -q && git stash list | wc -l && git stash pop -q && git diff --stat | tail -1
git branch          | git branch topic && git switch -q topic && git branch --show-current
git diff            | echo y >> src/lib.rs && git diff --numstat
npm test            | npm test --silent
node check          | node --check index.js && echo ok
python tests        | python3 -m unittest -q discover -s tests 2>&1 | tail -1
python compile      | python3 -m py_compile app.py && echo compiled
cargo build         | cargo build -q --offline && ./target/debug/everyday
cargo test          | cargo test -q --offline 2>&1 | grep -c 'test result: ok'
rustfmt             | rustfmt --edition 2021 src/main.rs && git diff --stat src/main.rs | wc -l
make                | make -s
grep and sed        | grep -rn needle src | wc -l && sed -i 's/needle/pin/' src/lib.rs && grep -c pin src/lib.rs
find and tar        | find . -name '*.py' -not -path './.git/*' | sort && tar -cf /tmp/everyday.$$.tar src && tar -tf /tmp/everyday.$$.tar | wc -l
long output         | seq 1 200000 | md5sum
exit status         | exit 42
stdin               | printf 'from stdin' | (cat; echo)
temp files          | t=$(mktemp) && echo data > $t && cat $t && rm $t
";

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A fresh project for one job, with its home.
fn project(base: &Path, name: &str) -> (PathBuf, PathBuf) {
    let dir = base.join(name.replace(' ', "-"));
    let (root, home) = (dir.join("proj"), dir.join("home"));
    write(
        &home.join(".gitconfig"),
        "[user]\n\tname = Person\n\temail = person@example.com\n[init]\n\tdefaultBranch = main\n",
    );
    write(&home.join(".wicket/settings.json"), "{}\n");
    write(&root.join("README.md"), "# everyday\n");
    write(&root.join("src/lib.rs"), "// needle\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n");
    write(&root.join("src/main.rs"), "fn main() {   println!(\"built\"); }\n");
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"everyday\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    write(
        &root.join("package.json"),
        r#"{"name": "everyday", "version": "1.0.0", "scripts": {"test": "node test.js"}}"#,
    );
    write(&root.join("index.js"), "module.exports = (a, b) => a + b;\n");
    write(
        &root.join("test.js"),
        "const add = require('./index');\nif (add(1, 2) !== 3) process.exit(1);\nconsole.log('node ok');\n",
    );
    write(&root.join("app.py"), "def add(a, b):\n    return a + b\n");
    write(&root.join("tests/test_app.py"), "import sys, unittest\nsys.path.insert(0, '.')\nimport app\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(app.add(1, 2), 3)\n");
    write(&root.join("Makefile"), "all:\n\t@echo made > made.txt && cat made.txt\n");
    write(&root.join(".gitignore"), "target/\n__pycache__/\n");
    let git = |args: &[&str]| {
        let out = Command::new("git").args(args).current_dir(&root).env("HOME", &home).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    git(&["init", "-q"]);
    git(&["config", "core.autocrlf", "false"]);
    write(&root.join(".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n");
    std::fs::set_permissions(root.join(".git/hooks/pre-commit"), std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "init"]);
    (root, home)
}

/// The environment a developer's shell has: the toolchains where they are, the test's home.
fn shell(cmd: &mut Command, home: &Path) {
    let real_home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    for (var, default) in [("CARGO_HOME", ".cargo"), ("RUSTUP_HOME", ".rustup")] {
        let v = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| real_home.join(default));
        cmd.env(var, v);
    }
    cmd.env("HOME", home).env("WICKET_HOME", home.join(".wicket")).env_remove("CARGO_TARGET_DIR");
}

/// What Claude Code would run for `job` behind the default hook: the hook's rewrite.
fn rewritten(root: &Path, home: &Path, job: &str) -> Option<String> {
    let payload = json!({"session_id": "s", "transcript_path": "/t", "cwd": root, "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": job}, "tool_use_id": "t1"});
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wicket"));
    cmd.args(["hook", "claude", "--sandbox-commands"]).current_dir(root);
    shell(&mut cmd, home);
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), payload.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    v["hookSpecificOutput"]["updatedInput"]["command"].as_str().map(String::from)
}

fn bash(root: &Path, home: &Path, line: &str) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg("-c").arg(line).current_dir(root).stdin(Stdio::null());
    shell(&mut cmd, home);
    cmd.output().unwrap()
}

#[test]
fn everyday_jobs_end_the_same_confined_as_on_the_host() {
    let base = common::outside_temp("everyday");
    let _ = std::fs::remove_dir_all(&base);
    let probe = Command::new(env!("CARGO_BIN_EXE_wicket")).arg("doctor").output().unwrap();
    if !String::from_utf8_lossy(&probe.stdout).contains("backend: bwrap") {
        eprintln!("no bubblewrap here: the hook judges commands as host commands; nothing to compare");
        return;
    }
    let mut differ = Vec::new();
    for line in JOBS.lines().filter(|l| !l.trim().is_empty()) {
        let (name, job) = line.split_once('|').map(|(n, j)| (n.trim(), j.trim())).unwrap();
        let program = job.split_whitespace().next().unwrap_or("");
        if !["git", "printf", "echo", "seq", "exit", "t=$(mktemp)", "grep", "find"].contains(&program)
            && Command::new("sh")
                .arg("-c")
                .arg(format!("command -v {program}"))
                .output()
                .is_ok_and(|o| !o.status.success())
        {
            eprintln!("{name}: {program} is not installed here; skipped");
            continue;
        }
        let (root, home) = project(&base.join("host"), name);
        let host = bash(&root, &home, job);
        assert!(
            host.status.code() == Some(42) || host.status.success(),
            "{name} fails on the host, so it proves nothing: {}",
            String::from_utf8_lossy(&host.stderr)
        );
        let (root, home) = project(&base.join("confined"), name);
        let Some(confined_line) = rewritten(&root, &home, job) else {
            differ.push(format!("{name}: the default hook did not move it into the sandbox (judged, not allowed?)"));
            continue;
        };
        let confined = bash(&root, &home, &confined_line);
        if confined.status.code() != host.status.code() || confined.stdout != host.stdout {
            differ.push(format!(
                "{name}: host {:?} {:?}, confined {:?} {:?}\n  {}",
                host.status.code(),
                String::from_utf8_lossy(&host.stdout),
                confined.status.code(),
                String::from_utf8_lossy(&confined.stdout),
                String::from_utf8_lossy(&confined.stderr).replace('\n', "\n  ")
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&base);
    assert!(differ.is_empty(), "jobs that end differently confined:\n{}", differ.join("\n"));
}
