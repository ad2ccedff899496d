//! `wicket serve` driven by the Python example client (`examples/wicket_client.py`): decide,
//! ask and answer (once, session, deny), an unanswered question that times out, errors, and
//! the audit check; `run` in the real sandbox, "always" answers and blocked hosts. Skipped (with
//! a message) when python3 is not installed; CI installs it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

mod common;

use std::path::Path;
use std::process::Command;

const DRIVER: &str = r#"
import json, os, sys
sys.path.insert(0, os.environ["EXAMPLES"])
from wicket_client import Wicket, WicketError
asked = []
def approver(params):
    asked.append(params)
    if params["tool"] == "write_file":
        # Only the second hunk of the change.
        return {"answer": "once", "select_hunks": [1]}
    return {"npm test": "once", "make": "session", "rm -rf build": "deny"}.get(params["input"].get("command"))
w = Wicket(root=os.environ["ROOT"], approver=approver, wicket=os.environ["WICKET"],
           extra_args=["--no-sandbox", "--approval-timeout", "0.5"])
out = {}
out["secret"] = w.decide("read_file", {"path": ".env"})
out["read"] = w.decide("read_file", {"path": "src/lib.rs"})
out["once"] = w.decide("bash", {"command": "npm test"})
out["session1"] = w.decide("bash", {"command": "make"})
out["session2"] = w.decide("bash", {"command": "make"})
out["no"] = w.decide("bash", {"command": "rm -rf build"})
out["timeout"] = w.decide("bash", {"command": "cargo publish"})
try:
    w.call("decide", {"input": {"command": "ls"}})
    out["bad_params"] = None
except WicketError as e:
    out["bad_params"] = e.code
try:
    w.call("frobnicate")
except WicketError as e:
    out["no_method"] = e.code
old = "".join(f"{i}\n" for i in range(1, 21))
new = old.replace("2\n", "two\n", 1).replace("18\n", "eighteen\n")
with open(os.path.join(os.environ["ROOT"], "notes.txt"), "w") as f:
    f.write(old)
out["partial"] = w.decide("write_file", {"path": os.path.join(os.environ["ROOT"], "notes.txt"), "content": new})
out["partial_expected"] = old.replace("18\n", "eighteen\n")
writes = [a for a in asked if a["tool"] == "write_file"]
out["write_hunks"] = len(writes[0]["hunks"]) if writes else None
asked = [a for a in asked if a["tool"] != "write_file"]
out["asked"] = [a["input"]["command"] for a in asked]
out["asked_has_reason"] = all(a["reason"] for a in asked)
w.close()
v = Wicket(root=os.environ["ROOT"], wicket=os.environ["WICKET"])
out["verify"] = v.verify_audit()
v.close()
print(json.dumps(out))
"#;

#[test]
fn the_python_client_drives_decide_ask_timeout_and_verify() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 is not installed: skipped");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "x\n").unwrap();
    std::fs::write(root.join(".env"), "A=1\n").unwrap();
    std::fs::create_dir_all(home.join(".wicket")).unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let out = Command::new("python3")
        .arg("-c")
        .arg(DRIVER)
        .env("EXAMPLES", &examples)
        .env("ROOT", &root)
        .env("WICKET", env!("CARGO_BIN_EXE_wicket"))
        .env("WICKET_HOME", home.join(".wicket"))
        .env("HOME", &home)
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["secret"]["decision"], "deny", "{v}");
    assert_eq!(v["secret"]["by"], "sensitive");
    assert_eq!(v["read"]["decision"], "allow");
    assert_eq!(v["once"]["decision"], "allow");
    assert_eq!(v["once"]["by"], "user");
    assert_eq!(v["session1"]["decision"], "allow");
    assert_eq!(v["session2"]["decision"], "allow");
    assert_eq!(v["session2"]["by"], "session", "the session answer holds without a new question: {v}");
    assert_eq!(v["no"]["decision"], "deny");
    assert_eq!(v["no"]["by"], "user");
    assert_eq!(v["timeout"]["decision"], "deny");
    assert_eq!(v["timeout"]["by"], "unattended");
    assert_eq!(v["bad_params"], -32602);
    assert_eq!(v["no_method"], -32601);
    assert_eq!(v["asked"], serde_json::json!(["npm test", "make", "rm -rf build", "cargo publish"]));
    assert_eq!(v["asked_has_reason"], true);
    assert_eq!(v["write_hunks"], 2, "{v}");
    assert_eq!(v["partial"]["decision"], "allow", "{v}");
    assert_eq!(v["partial"]["updated_call"]["input"]["content"], v["partial_expected"], "{v}");
    assert_eq!(v["verify"]["ok"], true, "{v}");
    assert!(v["verify"]["lines"].as_u64().unwrap() >= 7, "{v}");
}

const RUN_DRIVER: &str = r#"
import base64, json, os, sys
sys.path.insert(0, os.environ["EXAMPLES"])
from wicket_client import Wicket, WicketError
asked = []
def approver(params):
    asked.append(params["input"].get("command") or params["input"].get("url"))
    return "always" if params["input"].get("command", "") == "make --version" else "deny"
out = {}
with Wicket(root=os.environ["ROOT"], approver=approver, wicket=os.environ["WICKET"]) as w:
    out["echo"] = w.run("echo hello from $(pwd) && echo err >&2")
    # A program the gate cannot see into: the paths are hidden from the parser.
    enc = lambda p: base64.b64encode(p.encode()).decode()
    script = ("import base64,sys\n" "d=lambda s: base64.b64decode(s).decode()\n"
              "try: open(d('%s'),'w').write('pwned')\nexcept OSError as e: print('write refused', e.errno)\n"
              "try: print(open(d('%s')).read())\nexcept OSError as e: print('read refused', e.errno)\nsys.exit(3)\n"
              % (enc(os.environ["OUTSIDE"] + "/x"), enc(os.environ["SECRET"])))
    out["escape"] = w.run("echo " + enc(script) + " | base64 -d | python3 -")
    out["denied"] = w.run("touch made-by-denied; git push --force")
    out["slow"] = w.run("sleep 30", timeout=0.5)
    try:
        w.run("ls", timeout=-1)
    except WicketError as e:
        out["bad_timeout"] = e.code
    try:
        w.call("run", {"command": "ls", "cwd": "/"})
    except WicketError as e:
        out["bad_field"] = e.code
    out["fetch"] = w.decide("web_fetch", {"url": "https://evil.example/x?q=1"})
    out["fetch2"] = w.decide("web_fetch", {"url": "https://EVIL.example./y"})
    out["blocked"] = w.blocked_hosts()
with Wicket(root=os.environ["ROOT"], approver=approver, wicket=os.environ["WICKET"],
            extra_args=["--no-sandbox"]) as w:
    out["always1"] = w.run("make --version")
    out["always2"] = w.run("make --version")
    out["always_other"] = w.decide("bash", {"command": "make install"})
    out["other"] = w.decide("bash", {"command": "npm publish"})
out["asked"] = asked
print(json.dumps(out))
"#;

#[test]
fn the_python_client_runs_commands_in_the_sandbox() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 is not installed: skipped");
        return;
    }
    // Not in a temp folder: temp folders are writable inside the sandbox.
    let tmp = tempfile::tempdir_in(common::outside_temp("serve")).unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    let outside = tmp.path().join("outside");
    for d in [&root, &home.join(".wicket"), &home.join(".ssh"), &outside] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY\n").unwrap();
    std::fs::write(home.join(".wicket/settings.json"), r#"{"permissions": {"deny": ["bash(git push*)"]}}"#).unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let out = Command::new("python3")
        .arg("-c")
        .arg(RUN_DRIVER)
        .env("EXAMPLES", &examples)
        .env("ROOT", &root)
        .env("OUTSIDE", &outside)
        .env("SECRET", home.join(".ssh/id_ed25519"))
        .env("WICKET", env!("CARGO_BIN_EXE_wicket"))
        .env("WICKET_HOME", home.join(".wicket"))
        .env("HOME", &home)
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    let echo = &v["echo"];
    assert_eq!((echo["decision"].as_str(), echo["by"].as_str()), (Some("allow"), Some("sandbox")), "{v}");
    assert_eq!(echo["exit_code"], 0, "{v}");
    assert_eq!(echo["stdout"], format!("hello from {}\n", root.display()), "{v}");
    assert_eq!(echo["stderr"], "err\n");
    assert_eq!(echo["timed_out"], false);
    assert_ne!(echo["sandbox"], "host", "{v}");

    // The sandbox holds: nothing written outside the root, the secret unreadable.
    let esc = &v["escape"];
    assert_eq!(esc["decision"], "allow", "{v}");
    assert_eq!(esc["exit_code"], 3, "{v}");
    assert!(!outside.join("x").exists(), "the sandboxed command wrote outside the root");
    let esc_out = esc["stdout"].as_str().unwrap();
    assert!(!esc_out.contains("PRIVATE KEY"), "{v}");
    assert!(esc_out.contains("write refused") && esc_out.contains("read refused"), "{v}");

    // A denied command does not run at all, not even its harmless first part.
    assert_eq!(v["denied"]["decision"], "deny", "{v}");
    assert_eq!(v["denied"]["by"], "rule");
    assert!(v["denied"].get("exit_code").is_none());
    assert!(!root.join("made-by-denied").exists());

    assert_eq!(v["slow"]["timed_out"], true, "{v}");
    assert_eq!(v["slow"]["exit_code"], 124, "{v}");
    assert_eq!(v["bad_timeout"], -32602);
    assert_eq!(v["bad_field"], -32602);

    // Refused hosts, canonicalised and counted.
    assert_eq!(v["fetch"]["decision"], "deny", "{v}");
    let blocked = v["blocked"].as_array().unwrap();
    assert_eq!(blocked.len(), 1, "{v}");
    assert_eq!(blocked[0]["host"], "evil.example");
    assert_eq!(blocked[0]["count"], 2);
    assert_eq!(blocked[0]["tool"], "web_fetch");

    // "always" stores the rule the request showed, for this session only.
    assert_eq!(v["always1"]["decision"], "allow", "{v}");
    assert!(v["always1"]["stdout"].as_str().unwrap().contains("Make"), "{v}");
    assert_eq!(v["always2"]["decision"], "allow", "{v}");
    assert_eq!(v["always2"]["by"], "session", "{v}");
    assert_eq!(v["always_other"]["decision"], "deny", "the rule covers only what it says: {v}");
    assert_eq!(v["other"]["decision"], "deny", "{v}");
    let asked: Vec<&str> = v["asked"].as_array().unwrap().iter().filter_map(|a| a.as_str()).collect();
    assert_eq!(asked.iter().filter(|a| **a == "make --version").count(), 1, "{v}");
    assert!(asked.contains(&"make install"), "{v}");
    assert!(asked.contains(&"npm publish"), "{v}");
}

const NET_DRIVER: &str = r#"
import json, os, sys
sys.path.insert(0, os.environ["EXAMPLES"])
from wicket_client import Wicket
out = {}
with Wicket(root=os.environ["ROOT"], wicket=os.environ["WICKET"]) as w:
    out["curl"] = w.run("curl -s -o /dev/null -w '%{http_code}' http://unlisted.example/x; echo; "
                        "curl -s -o /dev/null -w '%{http_code}' http://unlisted.example/y")
    out["blocked"] = w.blocked_hosts()
print(json.dumps(out))
"#;

/// With `network.allow`, `run` goes through the allowlist proxy: an unlisted host is refused
/// (nobody can be asked from inside a run) and `blocked_hosts` names it.
#[test]
fn run_uses_the_allowlist_proxy_and_lists_refused_hosts() {
    if Command::new("python3").arg("--version").output().is_err()
        || Command::new("curl").arg("--version").output().is_err()
    {
        eprintln!("python3 or curl is not installed: skipped");
        return;
    }
    let tmp = tempfile::tempdir_in(common::outside_temp("serve")).unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(home.join(".wicket")).unwrap();
    std::fs::write(home.join(".wicket/settings.json"), r#"{"network": {"allow": ["npm"]}}"#).unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let out = Command::new("python3")
        .arg("-c")
        .arg(NET_DRIVER)
        .env("EXAMPLES", &examples)
        .env("ROOT", &root)
        .env("WICKET", env!("CARGO_BIN_EXE_wicket"))
        .env("WICKET_HOME", home.join(".wicket"))
        .env("HOME", &home)
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["curl"]["decision"], "allow", "{v}");
    assert_eq!(v["curl"]["stdout"], "403\n403", "{v}");
    let blocked = v["blocked"].as_array().unwrap();
    assert_eq!(blocked.len(), 1, "{v}");
    assert_eq!(blocked[0]["host"], "unlisted.example", "{v}");
    assert_eq!(blocked[0]["tool"], "network", "{v}");
    assert!(blocked[0]["reason"].as_str().unwrap().contains("unlisted.example"), "{v}");
}

/// The example client's staged run: the command's changes are shown, and only the path the
/// person picks is applied.
#[test]
fn the_example_client_runs_staged_and_applies_the_paths_picked() {
    if Command::new("python3").arg("--version").output().is_err()
        || Command::new("bwrap").args(["--ro-bind", "/", "/", "true"]).output().map_or(true, |o| !o.status.success())
    {
        eprintln!("python3 or bubblewrap is missing: skipped");
        return;
    }
    let tmp = tempfile::tempdir_in(common::outside_temp("serve")).unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    // `.wicket` makes the folder the project root (the client names none).
    std::fs::create_dir_all(root.join(".wicket")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(root.join("a.txt"), "one\n").unwrap();
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/wicket_client.py");
    let mut child = Command::new("python3")
        .arg(&client)
        .arg("--staged")
        .arg("echo two >> a.txt; echo new > b.txt")
        .env("WICKET", env!("CARGO_BIN_EXE_wicket"))
        .env("WICKET_HOME", home.join(".wicket"))
        .env("HOME", &home)
        .current_dir(&root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child.stdin.as_mut().unwrap().write_all(b"p\nb.txt\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("modified a.txt") && stderr.contains("added b.txt") && stderr.contains("+two"), "{stderr}");
    assert!(stdout.contains("\"applied\""), "{stdout}");
    assert_eq!(std::fs::read_to_string(root.join("b.txt")).unwrap(), "new\n");
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "one\n", "a.txt was not picked");
}
