//! `wicket serve` driven by the Python example client (`examples/wicket_client.py`): decide,
//! ask and answer (once, session, deny), an unanswered question that times out, errors, and
//! the audit check. Skipped (with a message) when python3 is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::path::Path;
use std::process::Command;

const DRIVER: &str = r#"
import json, os, sys
sys.path.insert(0, os.environ["EXAMPLES"])
from wicket_client import Wicket, WicketError
asked = []
def approver(params):
    asked.append(params)
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
    assert_eq!(v["verify"]["ok"], true, "{v}");
    assert!(v["verify"]["lines"].as_u64().unwrap() >= 7, "{v}");
}
