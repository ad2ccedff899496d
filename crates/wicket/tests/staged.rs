//! Staged runs for real: `wicket run --staged` under bubblewrap on a project outside every temp
//! folder, then `wicket staged list | diff | apply | discard`. Each test checks the project on
//! disk, not only what wicket says.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn wicket_bin() -> PathBuf {
    std::env::var_os("WICKET_BIN").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_wicket")))
}

fn bwrap_missing() -> bool {
    Command::new("bwrap").args(["--ro-bind", "/", "/", "true"]).output().map_or(true, |o| !o.status.success())
}

/// A project (a git repository with tracked and untracked files, a secret and a hook folder)
/// and a home, outside every temp folder.
struct World {
    dir: PathBuf,
    root: PathBuf,
}

impl World {
    fn new() -> World {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = common::outside_temp("staged").join(format!("w{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let root = dir.join("proj");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(dir.join("home")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub fn one() {}\n\npub fn two() {}\n\n\n\n\npub fn three() {}\n")
            .unwrap();
        std::fs::write(root.join("tracked.txt"), "tracked\n").unwrap();
        std::fs::write(root.join("notes.txt"), "notes\n").unwrap();
        std::fs::write(root.join(".env"), "API_KEY=hunter2\n").unwrap();
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .args(["-c", "user.email=t@t", "-c", "user.name=t"])
                .args(args)
                .current_dir(&root)
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q", "."]);
        git(&["add", "src", "tracked.txt", "notes.txt"]);
        git(&["commit", "-qm", "init"]);
        std::fs::write(root.join("untracked.txt"), "untracked\n").unwrap();
        World { dir, root }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(wicket_bin());
        c.args(args)
            .env("HOME", self.dir.join("home"))
            .env("WICKET_HOME", self.dir.join("wicket-home"))
            .env("WICKET_SANDBOX_BACKEND", "bwrap")
            .current_dir(&self.root)
            .stdin(Stdio::null());
        c
    }

    fn wicket(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }

    /// `wicket run --staged --unattended -- bash -c SCRIPT`; the stage's id.
    fn staged_run(&self, script: &str) -> (Output, Option<String>) {
        let out = self.wicket(&["run", "--staged", "--unattended", "--", "bash", "-c", script]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        let id = err.split("kept as ").nth(1).map(|r| r.chars().take_while(char::is_ascii_alphanumeric).collect());
        (out, id)
    }

    fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(rel)).ok()
    }

    fn mode(&self, rel: &str) -> u32 {
        std::fs::metadata(self.root.join(rel)).unwrap().permissions().mode() & 0o777
    }

    fn stages(&self) -> Vec<String> {
        let out = self.wicket(&["staged", "list"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).lines().map(|l| l.split(' ').next().unwrap_or("").to_string()).collect()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Edit a tracked and an untracked file, add a file in a new folder, delete one, chmod one.
const EDITS: &str = "sed -i 's/one()/ONE()/; s/three()/THREE()/' src/lib.rs && echo more >> untracked.txt && \
                     mkdir -p new && echo added > new/file.txt && rm tracked.txt && chmod 755 notes.txt";

fn diff_paths(w: &World, id: &str) -> Vec<(String, String)> {
    let out = w.wicket(&["staged", "diff", id, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["path"].as_str().unwrap().to_string(), v["what"].as_str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn a_staged_run_changes_nothing_until_applied_and_then_exactly_what_was_shown() {
    if bwrap_missing() {
        eprintln!("skipped: bubblewrap does not work here");
        return;
    }
    let w = World::new();
    let (out, id) = w.staged_run(EDITS);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let id = id.unwrap_or_else(|| panic!("no stage id in: {err}"));
    // The project is as it was.
    assert!(w.read("src/lib.rs").unwrap().contains("one()"));
    assert_eq!(w.read("untracked.txt").unwrap(), "untracked\n");
    assert!(w.read("tracked.txt").is_some() && w.read("new/file.txt").is_none());
    assert_eq!(w.mode("notes.txt"), 0o644);
    let want: Vec<(String, String)> = [
        ("new", "added"),
        ("new/file.txt", "added"),
        ("notes.txt", "mode"),
        ("src/lib.rs", "modified"),
        ("tracked.txt", "deleted"),
        ("untracked.txt", "modified"),
    ]
    .iter()
    .map(|(p, k)| (p.to_string(), k.to_string()))
    .collect();
    assert_eq!(diff_paths(&w, &id), want);
    // The diff a person reads shows the lines.
    let text = String::from_utf8_lossy(&w.wicket(&["staged", "diff", &id]).stdout).into_owned();
    assert!(text.contains("-pub fn one() {}") && text.contains("+pub fn ONE() {}"), "{text}");
    // Some paths, then one hunk of a file, then the rest.
    let out = w.wicket(&["staged", "apply", &id, "new", "notes.txt"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(w.read("new/file.txt").unwrap(), "added\n");
    assert_eq!(w.mode("notes.txt"), 0o755);
    assert!(w.read("tracked.txt").is_some(), "not applied yet");
    let out = w.wicket(&["staged", "apply", &id, "src/lib.rs", "--hunks", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lib = w.read("src/lib.rs").unwrap();
    assert!(lib.contains("one()") && lib.contains("THREE()"), "{lib}");
    let out = w.wicket(&["staged", "apply", &id]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(w.read("src/lib.rs").unwrap().contains("ONE()"));
    assert_eq!(w.read("untracked.txt").unwrap(), "untracked\nmore\n");
    assert!(w.read("tracked.txt").is_none());
    assert!(w.stages().is_empty(), "an applied stage is gone");
}

#[test]
fn a_concurrent_edit_is_refused_and_named_and_discard_leaves_the_project() {
    if bwrap_missing() {
        eprintln!("skipped: bubblewrap does not work here");
        return;
    }
    let w = World::new();
    let (out, id) = w.staged_run(EDITS);
    let id = id.unwrap_or_else(|| panic!("no stage id: {}", String::from_utf8_lossy(&out.stderr)));
    std::fs::write(w.root.join("untracked.txt"), "the person's own edit\n").unwrap();
    let out = w.wicket(&["staged", "apply", &id]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("untracked.txt") && err.contains("changed since"), "{err}");
    assert!(w.read("tracked.txt").is_some() && w.read("new/file.txt").is_none(), "nothing was applied");
    assert_eq!(w.read("untracked.txt").unwrap(), "the person's own edit\n");
    let out = w.wicket(&["staged", "discard", &id]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(w.stages().is_empty());
    assert!(!w.dir.join("wicket-home/staged").join(&id).exists(), "the stage is gone");
    assert_eq!(w.mode("notes.txt"), 0o644);
}

#[test]
fn a_staged_command_cannot_write_protected_paths_or_read_secrets_and_no_secret_is_copied() {
    if bwrap_missing() {
        eprintln!("skipped: bubblewrap does not work here");
        return;
    }
    let w = World::new();
    // A script from outside the project, so the gate cannot see what it touches and the
    // sandbox must stop it.
    let probe = w.dir.join("probe.py");
    std::fs::write(
        &probe,
        "import os\n\
         for rel in ['.git/hooks/pre-commit', '.git/config']:\n\
         \ttry:\n\
         \t\topen(rel, 'a').write('evil')\n\
         \t\tprint('WROTE', rel)\n\
         \texcept OSError as e:\n\
         \t\tprint('blocked', rel, e)\n\
         try:\n\
         \tprint('READ', open('.' + 'env').read())\n\
         except OSError as e:\n\
         \tprint('blocked .env', e)\n\
         open('done.txt', 'w').write('ok')\n",
    )
    .unwrap();
    let out = w.wicket(&["run", "--staged", "--unattended", "--", "python3", probe.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let id: Option<String> =
        err.split("kept as ").nth(1).map(|r| r.chars().take_while(char::is_ascii_alphanumeric).collect());
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains("blocked .git/hooks/pre-commit") && stdout.contains("blocked .git/config"),
        "{stdout} {stderr}"
    );
    for bad in ["WROTE", "hunter2"] {
        assert!(!stdout.contains(bad), "{bad}: {stdout} {stderr}");
    }
    let id = id.unwrap_or_else(|| panic!("no stage id: {stderr}"));
    assert_eq!(diff_paths(&w, &id), vec![("done.txt".to_string(), "added".to_string())]);
    // No copy of the secret anywhere under wicket's home.
    let found = Command::new("grep").args(["-rl", "hunter2"]).arg(w.dir.join("wicket-home")).output().unwrap();
    assert!(found.stdout.is_empty(), "{}", String::from_utf8_lossy(&found.stdout));
    assert!(!w.root.join(".git/hooks/pre-commit").exists());
}

#[test]
fn a_staged_run_that_changes_nothing_keeps_nothing_and_one_killed_is_listed() {
    if bwrap_missing() {
        eprintln!("skipped: bubblewrap does not work here");
        return;
    }
    let w = World::new();
    let (out, id) = w.staged_run("cat tracked.txt >/dev/null");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && id.is_none() && err.contains("changed nothing"), "{err}");
    assert!(w.stages().is_empty());
    // wicket killed while the staged command runs: the stage is there for `staged list`.
    let mut child = w
        .cmd(&["run", "--staged", "--unattended", "--", "bash", "-c", "echo x > made.txt; sleep 30"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let staged = w.dir.join("wicket-home/staged");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let made =
        || std::fs::read_dir(&staged).into_iter().flatten().flatten().any(|e| e.path().join("upper/made.txt").exists());
    while !made() {
        assert!(std::time::Instant::now() < deadline, "the staged command never ran");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let ids = w.stages();
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert_eq!(diff_paths(&w, &ids[0]), vec![("made.txt".to_string(), "added".to_string())]);
    assert!(w.read("made.txt").is_none());
}

#[test]
fn a_repository_made_by_a_staged_command_is_never_applied() {
    if bwrap_missing() {
        eprintln!("skipped: bubblewrap does not work here");
        return;
    }
    let w = World::new();
    // A bare repository in `sub` (HEAD, objects, refs, a config that runs code), and a `.git`
    // file that points git elsewhere, next to an ordinary file; from a script outside the
    // project, so the gate does not see it and the stage must hold it.
    let plant = w.dir.join("plant.py");
    std::fs::write(
        &plant,
        "import os\n\
         for d in ['sub/objects', 'sub/refs', 'other']:\n\
         \tos.makedirs(d, exist_ok=True)\n\
         open('sub/HEAD', 'w').write('ref: refs/heads/main\\n')\n\
         open('sub/config', 'w').write('[core]\\n\\tfsmonitor = touch /tmp/pwned\\n')\n\
         open('other/.git', 'w').write('gitdir: /tmp/elsewhere\\n')\n\
         open('fine.txt', 'w').write('ok\\n')\n",
    )
    .unwrap();
    let out = w.wicket(&["run", "--staged", "--unattended", "--", "python3", plant.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let id: String = err
        .split("kept as ")
        .nth(1)
        .map(|r| r.chars().take_while(char::is_ascii_alphanumeric).collect())
        .unwrap_or_else(|| panic!("no stage id: {err}"));
    let out = w.wicket(&["staged", "apply", &id]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("sub/HEAD") && err.contains("other/.git") && err.contains("repository"), "{err}");
    assert!(w.read("fine.txt").is_some());
    assert!(w.read("sub/HEAD").is_none() && w.read("other/.git").is_none(), "a repository reached the project");
    // Named outright, it refuses the whole apply.
    let out = w.wicket(&["staged", "apply", &id, "sub/HEAD"]);
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(w.read("sub/HEAD").is_none());
}

#[test]
fn a_refused_staged_run_keeps_no_stage() {
    if bwrap_missing() {
        eprintln!("skipped: bubblewrap does not work here");
        return;
    }
    let w = World::new();
    let out = w.wicket(&["run", "--staged", "--unattended", "--deny", "bash(touch*)", "--", "touch", "made.txt"]);
    assert_eq!(out.status.code(), Some(126), "{}", String::from_utf8_lossy(&out.stderr));
    let left: Vec<_> = std::fs::read_dir(w.dir.join("wicket-home/staged")).into_iter().flatten().flatten().collect();
    assert!(left.is_empty(), "the stage made while the engine decided is gone: {left:?}");
}

#[test]
fn a_staged_run_without_bubblewrap_is_refused() {
    let w = World::new();
    let out = w
        .cmd(&["run", "--staged", "--unattended", "--", "bash", "-c", "echo x > made.txt"])
        .env("WICKET_SANDBOX_BACKEND", "landlock")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{err}");
    assert!(err.contains("needs bubblewrap"), "{err}");
    assert!(w.read("made.txt").is_none());
}

#[test]
fn commands_mode_staged_in_the_settings_makes_every_run_staged() {
    if bwrap_missing() {
        eprintln!("skipped: bubblewrap does not work here");
        return;
    }
    let w = World::new();
    std::fs::create_dir_all(w.root.join(".wicket")).unwrap();
    std::fs::write(w.root.join(".wicket/settings.json"), r#"{"commands": {"mode": "staged"}}"#).unwrap();
    let out = w.wicket(&["run", "--unattended", "--", "bash", "-c", "echo x > made.txt"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.contains("kept as "), "{err}");
    assert!(w.read("made.txt").is_none(), "the run was staged");
    assert_eq!(w.stages().len(), 1);
    // A broken value is an error naming the file and the place.
    std::fs::write(w.root.join(".wicket/settings.json"), r#"{"commands": {"mode": "sometimes"}}"#).unwrap();
    let out = w.wicket(&["run", "--unattended", "--", "true"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("settings.json:1:") && err.contains("commands.mode"), "{err}");
}

/// `wicket serve` for `w`, and a way to send a request and read its answer.
struct Serve {
    child: std::process::Child,
    out: std::io::BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Serve {
    fn start(w: &World) -> Serve {
        let mut child = w
            .cmd(&["serve", "--root", w.root.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        Serve { child, out, next: 1 }
    }

    fn call(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        use std::io::{BufRead, Write};
        let id = self.next;
        self.next += 1;
        let msg = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        assert_eq!(v["id"], id, "{v}");
        v
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn serve_runs_staged_shows_the_diff_and_applies_hunks_and_paths() {
    if bwrap_missing() {
        eprintln!("skipped: bubblewrap does not work here");
        return;
    }
    let w = World::new();
    let mut s = Serve::start(&w);
    let v = s.call("run", serde_json::json!({"command": EDITS, "staged": true}));
    let r = &v["result"];
    assert_eq!((r["decision"].as_str(), r["exit_code"].as_i64()), (Some("allow"), Some(0)), "{v}");
    let id = r["staged"]["id"].as_str().unwrap_or_else(|| panic!("no stage id: {v}")).to_string();
    let paths: Vec<&str> =
        r["staged"]["changes"].as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["new", "new/file.txt", "notes.txt", "src/lib.rs", "tracked.txt", "untracked.txt"], "{v}");
    assert!(w.read("tracked.txt").is_some(), "nothing applied yet");
    // The diff carries the texts and the hunks.
    let d = s.call("staged_diff", serde_json::json!({"id": id}));
    let lib = d["result"]["changes"].as_array().unwrap().iter().find(|c| c["path"] == "src/lib.rs").unwrap().clone();
    assert!(lib["old_text"].as_str().unwrap().contains("one()") && lib["new_text"].as_str().unwrap().contains("ONE()"));
    assert_eq!(lib["hunks"].as_array().unwrap().len(), 2, "{lib}");
    // One hunk, then some paths.
    let a = s.call("staged_apply", serde_json::json!({"id": id, "paths": ["src/lib.rs"], "hunks": [0]}));
    assert!(a.get("error").is_none(), "{a}");
    let text = w.read("src/lib.rs").unwrap();
    assert!(text.contains("ONE()") && text.contains("three()"), "{text}");
    let a = s.call("staged_apply", serde_json::json!({"id": id, "paths": ["tracked.txt"]}));
    assert_eq!(a["result"]["applied"][0]["path"], "tracked.txt", "{a}");
    assert!(w.read("tracked.txt").is_none());
    // The person edits a staged file meanwhile: refused, naming it.
    std::fs::write(w.root.join("untracked.txt"), "mine\n").unwrap();
    let a = s.call("staged_apply", serde_json::json!({"id": id}));
    assert_eq!(a["error"]["code"], -32002, "{a}");
    assert!(a["error"]["message"].as_str().unwrap().contains("untracked.txt"), "{a}");
    let l = s.call("staged_list", serde_json::json!({}));
    assert_eq!(l["result"]["stages"][0]["id"], id.as_str(), "{l}");
    let x = s.call("staged_discard", serde_json::json!({"id": id}));
    assert!(x.get("error").is_none(), "{x}");
    let l = s.call("staged_list", serde_json::json!({}));
    assert_eq!(l["result"]["stages"], serde_json::json!([]), "{l}");
    // A staged run that changes nothing keeps nothing.
    let v = s.call("run", serde_json::json!({"command": "true", "staged": true}));
    assert_eq!(v["result"]["staged"], serde_json::json!({"id": null, "changes": []}), "{v}");
    let bad = s.call("staged_apply", serde_json::json!({"id": "../etc"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}

/// At a terminal, the staged run shows the diff (escaped) and asks; `a` applies, `d` discards.
#[test]
fn at_a_terminal_the_person_sees_the_diff_and_applies_or_discards() {
    if bwrap_missing() {
        eprintln!("skipped: bubblewrap does not work here");
        return;
    }
    use common::pty::{self, Spawn};
    let w = World::new();
    // The count of lines the command added that reached the project, after each answer.
    for (key, reached) in [("a", 1), ("d", 1)] {
        let mut cmd = w.cmd(&["run", "--staged", "--", "bash", "-c", "printf 'safe\\u202e line\\n' >> notes.txt"]);
        cmd.env("TERM", "dumb");
        let child = pty::spawn(cmd, Spawn::default());
        let screen = child.wait_for("keep for later [k]?", 1);
        assert!(screen.contains("+safe\\u{202e} line") && screen.contains("notes.txt"), "{screen}");
        child.type_keys(format!("{key}\n").as_bytes());
        let (out, _) = child.finish();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(w.read("notes.txt").unwrap().matches("safe").count(), reached, "{key}");
        assert!(w.stages().is_empty(), "{key}: nothing is kept");
    }
}
