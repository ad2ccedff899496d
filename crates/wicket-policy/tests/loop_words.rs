//! Properties of `for` loops (issue 14, class 9): a loop over literal words is judged as its
//! body run with each word, so an allow rule covers it exactly when it covers every run, and a
//! deny rule sees every run; anything on the line that can set the variable keeps it a
//! dynamic word.

#![allow(clippy::disallowed_methods)] // a test: it makes the files, folders and processes it checks against
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic

use proptest::prelude::*;
use wicket_policy::{Decision, Policy, PolicyConfig, Session, ToolCall};

fn decide(command: &str, allow: &[&str], deny: &[&str]) -> Decision {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let cfg = PolicyConfig {
        root,
        home: Some(home),
        allow: allow.iter().map(|s| s.to_string()).collect(),
        deny: deny.iter().map(|s| s.to_string()).collect(),
        ..PolicyConfig::default()
    };
    Policy::new(&cfg)
        .unwrap()
        .decide(&ToolCall::new("bash", serde_json::json!({ "command": command })), &Session::new())
        .decision
}

fn value() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["build", "build/x", "dist", "/", "-rf", "build-old"])
}

/// Ways the line can set the loop variable before the body uses it.
fn setter() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "d=/; ",
        "read d; ",
        "read -r d; ",
        "printf -vd %s /; ",
        "printf -v d %s /; ",
        "read -ad; ",
        ": ${d:=/}; ",
        "declare -n r=d; ",
        "unset d; ",
        "d+=x; ",
        "mapfile -t d; ",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// The loop is allowed exactly when the rule covers the body with every value, and a deny
    /// rule for one value denies the loop.
    #[test]
    fn a_loop_is_judged_as_each_run(values in prop::collection::vec(value(), 1..4), quoted in any::<bool>()) {
        let var = if quoted { "\"$d\"" } else { "$d" };
        let command = format!("for d in {}; do rm -r {var}; done", values.join(" "));
        let covered = values.iter().all(|v| v.starts_with("build"));
        let got = decide(&command, &["bash(rm -r build*)"], &[]);
        prop_assert_eq!(got == Decision::Allow, covered, "{} -> {:?}", command, got);
        let denied = values.contains(&"/");
        let got = decide(&command, &["bash(rm -r build*)"], &["bash(rm -r /)"]);
        prop_assert_eq!(got == Decision::Deny, denied, "{} -> {:?}", command, got);
    }

    /// Anything on the line that can set the variable keeps the body's word dynamic: never
    /// allowed by a rule that covers each listed value.
    #[test]
    fn a_variable_the_line_can_set_is_not_a_loop_value(set in setter(), before in any::<bool>()) {
        let command = if before {
            format!("{set}for d in build; do rm -r \"$d\"; done")
        } else {
            format!("for d in build; do {set}rm -r \"$d\"; done")
        };
        let allow = ["bash(rm -r build*)", "bash(read *)", "bash(printf *)", "bash(: *)", "bash(declare *)", "bash(unset *)", "bash(mapfile *)"];
        let got = decide(&command, &allow, &[]);
        prop_assert_ne!(got, Decision::Allow, "{}", command);
    }
}
