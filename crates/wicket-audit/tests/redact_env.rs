//! `Redactor::from_env` reads the real process environment: a child process is started with
//! the variables of the table and redacts a text holding every value.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests

use wicket_audit::{Redactor, REDACTED};

/// (variable, value, hidden?): values are plain lowercase words, so only the environment
/// (not a key shape or a random-token rule) can explain a hidden one.
#[rustfmt::skip]
const VARS: &[(&str, &str, bool)] = &[
    ("WICKET_T_DEPLOY_TOKEN", "plain-words-one", true),
    ("wicket_t_db_password", "plain-words-two", true),
    ("WICKET_T_SECRET_HOLDER", "value=with=equals", true),   // only the first `=` ends the name
    ("WICKET_T_SIGNING_KEY", "  plain-words-three  ", true), // trimmed
    ("WICKET_T_GREETING", "plain-words-four", false),         // not a secret's name
    ("WICKET_T_API_KEY", "short", false),                     // under 8 characters
    ("WICKET_T_GIT_AUTHOR_NAME", "plain-words-five", false),  // AUTHOR is not AUTH
];

#[test]
fn child_redacts_its_environment() {
    if std::env::var_os("WICKET_T_CHILD").is_none() {
        return; // run by the test below, in a process with the table's environment
    }
    let r = Redactor::from_env();
    for (name, value, hidden) in VARS {
        let text = format!("echo {} done", value.trim());
        let out = r.redact(&text);
        let want = if *hidden { format!("echo {REDACTED} done") } else { text.clone() };
        assert_eq!(out, want, "{name}={value:?}");
    }
    println!("CHILD-OK");
}

#[test]
fn secret_looking_environment_values_are_redacted() {
    let exe = std::env::current_exe().unwrap();
    let mut child = std::process::Command::new(exe);
    child.args(["--exact", "child_redacts_its_environment", "--nocapture", "--test-threads", "1"]);
    child.env("WICKET_T_CHILD", "1");
    for (name, value, _) in VARS {
        child.env(name, value);
    }
    let out = child.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("CHILD-OK"), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
}
