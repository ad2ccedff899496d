//! The capability-policy front end: table-driven cases from `cases/capabilities.jsonl` (one a
//! line), construction errors, parsing, path normalisation, and properties.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use proptest::prelude::*;
use serde::Deserialize;
use wicket_policy::capability::{
    normalize_path, parse_capability, CapabilityError, CapabilityPolicy, PermissionRules, Principal,
};
use wicket_policy::{By, Decision};

/// The rules of the spec's `permissionPolicy({...})` example.
fn spec_example() -> serde_json::Value {
    serde_json::json!({
        "filesystem": { "read": ["/workspace/**"], "write": ["/workspace/output/**"] },
        "network": { "allow": ["api.github.com", "*.openai.com"] },
        "shell": { "allow": ["git", "npm test"] },
        "ask": ["shell", "filesystem:write"],
    })
}

fn policy(rules: serde_json::Value) -> CapabilityPolicy {
    let rules: PermissionRules = serde_json::from_value(rules).unwrap();
    CapabilityPolicy::new(rules).unwrap()
}

fn decision(s: &str) -> Decision {
    match s {
        "allow" => Decision::Allow,
        "ask" => Decision::Ask,
        "deny" => Decision::Deny,
        other => panic!("unknown decision {other:?}"),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    #[serde(default)]
    #[allow(dead_code)]
    why: String,
    #[serde(default)]
    rules: Option<serde_json::Value>,
    #[serde(default = "default_tool")]
    tool: String,
    /// Present (possibly null) for a call; absent when `one` is given.
    #[serde(default, deserialize_with = "present")]
    capabilities: Option<Option<Vec<String>>>,
    #[serde(default)]
    one: Option<String>,
    expect: String,
    #[serde(default)]
    rule: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    /// Who the call is for (`decide_for`), when the case says.
    #[serde(default)]
    principal: Option<Principal>,
}

fn default_tool() -> String {
    "tool".to_string()
}

/// Tell an explicit `null` from an absent field.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<Vec<String>>>, D::Error> {
    Option::<Vec<String>>::deserialize(d).map(Some)
}

#[test]
fn table() {
    let text = include_str!("cases/capabilities.jsonl");
    let mut failures = Vec::new();
    let mut count = 0;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let case: Case = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        count += 1;
        let p = policy(case.rules.clone().unwrap_or_else(spec_example));
        let v = match (&case.one, &case.capabilities) {
            (Some(c), None) => p.decide_one_for(c, case.principal.as_ref()),
            (None, Some(caps)) => p.decide_for(&case.tool, caps.as_deref(), case.principal.as_ref()),
            _ => panic!("{}: give exactly one of `one` and `capabilities`", case.id),
        };
        let mut wrong = Vec::new();
        if v.decision != decision(&case.expect) {
            wrong.push(format!("decision {} (expected {})", v.decision, case.expect));
        }
        if v.by != By::Capability {
            wrong.push(format!("by {}", v.by));
        }
        if let Some(rule) = &case.rule {
            if v.rule.as_deref() != Some(rule.as_str()) {
                wrong.push(format!("rule {:?} (expected {rule:?})", v.rule));
            }
        }
        if let Some(reason) = &case.reason {
            if !v.reason.contains(reason.as_str()) {
                wrong.push(format!("reason lacks {reason:?}"));
            }
        }
        if !wrong.is_empty() {
            failures.push(format!("{}: {} — reason: {}", case.id, wrong.join("; "), v.reason));
        }
    }
    assert!(count >= 100, "only {count} cases read");
    assert!(failures.is_empty(), "{} of {count} cases failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn principal_keys_are_checked() {
    let rules = |key: &str| -> PermissionRules {
        serde_json::from_value(serde_json::json!({"principals": {key: {"shell": {"allow": ["git push"]}}}})).unwrap()
    };
    for bad in ["team:x", "role:", "role", "scope"] {
        let err = CapabilityPolicy::new(rules(bad)).unwrap_err().to_string();
        assert!(err.contains(&format!("principals.{bad}")), "{bad}: {err}");
    }
    let bad_grant: PermissionRules =
        serde_json::from_value(serde_json::json!({"principals": {"role:ci": {"filesystem": {"write": ["/a/../b"]}}}}))
            .unwrap();
    let err = CapabilityPolicy::new(bad_grant).unwrap_err().to_string();
    assert!(err.contains("principals.role:ci.filesystem.write"), "{err}");
    assert!(CapabilityPolicy::new(rules("scope:repo:write")).is_ok());
}

#[test]
fn verdict_kind_and_rule() {
    let p = policy(spec_example());
    let v = p.decide_one("network:evil.com");
    assert_eq!(v.kind, "deny_capability");
    assert_eq!(v.rule.as_deref(), Some("network:evil.com"));
    // The reason tells a model what to do and a person what to grant.
    assert!(v.reason.contains("Do not retry"), "{}", v.reason);
    assert!(v.reason.contains("add `evil.com` to `network.allow`"), "{}", v.reason);
    assert!(v.reason.contains("`api.github.com`"), "{}", v.reason);
}

#[test]
fn deterministic() {
    let p = policy(spec_example());
    let caps = vec!["shell:git status".to_string(), "network:evil.com".to_string()];
    assert_eq!(p.decide("t", Some(&caps)), p.decide("t", Some(&caps)));
}

// --- Parsing ---

#[test]
fn parse_forms() {
    let c = parse_capability("filesystem:write:/a:b").unwrap();
    assert_eq!((c.kind(), c.access(), c.target()), ("filesystem", Some("write"), Some("/a:b")));
    let c = parse_capability("network:api.github.com").unwrap();
    assert_eq!((c.kind(), c.access(), c.target()), ("network", None, Some("api.github.com")));
    let c = parse_capability("network:connect:api.github.com").unwrap();
    assert_eq!((c.access(), c.target()), (Some("connect"), Some("api.github.com")));
    let c = parse_capability("network:connect").unwrap();
    assert_eq!((c.access(), c.target()), (Some("connect"), None));
    let c = parse_capability("network:::1").unwrap();
    assert_eq!(c.target(), Some("::1"));
    let c = parse_capability("shell:echo a:b:c").unwrap();
    assert_eq!((c.kind(), c.access(), c.target()), ("shell", None, Some("echo a:b:c")));
    let c = parse_capability("code").unwrap();
    assert_eq!((c.kind(), c.target()), ("code", None));
    let c = parse_capability("payments:refund:42").unwrap();
    assert_eq!((c.kind(), c.access(), c.target()), ("payments", None, Some("refund:42")));
    assert!(!c.is_built_in());
    assert_eq!(c.to_string(), "payments:refund:42");
    assert_eq!("shell:".parse::<wicket_policy::capability::Capability>().unwrap().target(), None);
}

#[test]
fn parse_errors_name_capability_and_forms() {
    for bad in ["", ":x", "Filesystem:read:/a", "file system", "filesystem", "filesystem:exec:/a", "a/b:c", "9lives"] {
        let e = parse_capability(bad).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(&format!("{bad:?}")), "{bad:?}: {msg}");
        assert!(msg.contains("`filesystem:read:<path>`"), "{bad:?}: {msg}");
        assert!(matches!(e, CapabilityError::Capability { .. }));
    }
}

// --- normalize_path ---

#[test]
fn normalize_path_cases() {
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("/workspace/../etc", "/", Some("/etc")),
        ("/workspace/../etc/passwd", "/", Some("/etc/passwd")),
        ("/a/./b/../c/", "/", Some("/a/c")),
        ("/../../x", "/", Some("/x")),
        ("/", "/", Some("/")),
        ("", "/workspace", Some("/workspace")),
        (".", "/workspace", Some("/workspace")),
        ("src/a.rs", "/workspace", Some("/workspace/src/a.rs")),
        ("../etc/passwd", "/workspace", Some("/etc/passwd")),
        ("a\\b\\..\\c", "/workspace", Some("/workspace/a/c")),
        ("\\etc\\passwd", "/workspace", Some("/etc/passwd")),
        ("//a//b", "/", Some("/a/b")),
        ("x", "rel/root", Some("/rel/root/x")),
        ("/a\0b", "/", None),
        ("a", "/r\0", None),
        ("~/.ssh/id_rsa", "/", None),
        ("~root/x", "/", None),
        ("C:\\Windows", "/", None),
        ("c:", "/", None),
        ("a~b", "/", Some("/a~b")),
    ];
    for (path, root, want) in cases {
        assert_eq!(normalize_path(path, root).as_deref(), *want, "normalize_path({path:?}, {root:?})");
    }
}

// --- Construction errors ---

fn error_of(rules: serde_json::Value) -> String {
    let rules: PermissionRules = serde_json::from_value(rules).unwrap();
    CapabilityPolicy::new(rules).unwrap_err().to_string()
}

#[test]
fn bad_rules_are_errors_quoting_them() {
    let cases = [
        (serde_json::json!({"filesystem": {"read": ["/workspace/[a"]}}), "\"/workspace/[a\""),
        (serde_json::json!({"filesystem": {"write": ["/workspace/../etc/**"]}}), "`..`"),
        (serde_json::json!({"filesystem": {"read": ["~/x"]}}), "`~`"),
        (serde_json::json!({"filesystem": {"read": [""]}}), "empty"),
        (serde_json::json!({"network": {"allow": ["https://api.github.com"]}}), "\"https://api.github.com\""),
        (serde_json::json!({"network": {"allow": ["*github.com"]}}), "`*.openai.com`"),
        (serde_json::json!({"shell": {"allow": ["git && rm"]}}), "not one plain command"),
        (serde_json::json!({"shell": {"allow": ["git *"]}}), "only allowed as the whole grant `*`"),
        (serde_json::json!({"shell": {"allow": ["FOO=1 git"]}}), "sets variables"),
        (serde_json::json!({"shell": {"allow": [" "]}}), "empty"),
        (serde_json::json!({"ask": ["filesystem:exec"]}), "unknown filesystem access"),
        (serde_json::json!({"ask": ["Shell"]}), "\"Shell\""),
        (serde_json::json!({"ask": ["network:https://x.com"]}), "`ask`"),
        (serde_json::json!({"root": "workspace"}), "absolute"),
        (serde_json::json!({"ungranted": "allow"}), "`ungranted`"),
        (serde_json::json!({"custom": {"shell": "allow"}}), "built-in kind `shell`"),
        (serde_json::json!({"custom": {"Pay ments": "allow"}}), "custom.Pay ments"),
    ];
    for (rules, want) in cases {
        let msg = error_of(rules.clone());
        assert!(msg.contains(want), "{rules}: {msg:?} lacks {want:?}");
    }
}

#[test]
fn json_is_strict() {
    let unknown = serde_json::from_value::<PermissionRules>(serde_json::json!({"filesystems": {}}));
    assert!(unknown.is_err());
    let nested = serde_json::from_value::<PermissionRules>(serde_json::json!({"network": {"deny": []}}));
    assert!(nested.is_err());
    let bad_decision = serde_json::from_value::<PermissionRules>(serde_json::json!({"code": "maybe"}));
    assert!(bad_decision.is_err());
    let ok: PermissionRules = serde_json::from_value(serde_json::json!({
        "code": "ask", "undeclared": "allow", "ungranted": "ask",
        "custom": {"payments": "deny"}, "tools": {"t": "allow"}, "root": "/w"
    }))
    .unwrap();
    assert_eq!(ok.code, Some(Decision::Ask));
    assert_eq!(ok.custom.get("payments"), Some(&Decision::Deny));
    assert_eq!(CapabilityPolicy::new(ok).unwrap().root(), "/w");
}

#[test]
fn defaults() {
    let p = CapabilityPolicy::new(PermissionRules::default()).unwrap();
    assert_eq!(p.root(), "/");
    assert_eq!(p.decide("t", None).decision, Decision::Deny);
    assert_eq!(p.decide("t", Some(&[])).decision, Decision::Allow);
    assert_eq!(p.decide_one("code").decision, Decision::Deny);
    assert_eq!(p.decide_one("filesystem:read:/a").decision, Decision::Deny);
}

// --- Properties ---

fn segment() -> impl Strategy<Value = String> {
    "[a-z0-9_.-]{1,6}".prop_filter("not . or ..", |s| s != "." && s != "..")
}

proptest! {
    /// A `*` in a filesystem grant matches within one segment only: a path with more segments
    /// below the star's directory is never granted by it.
    #[test]
    fn star_never_crosses_slash(
        pre in "[a-z]{0,3}",
        post in "[a-z.]{0,3}",
        segs in prop::collection::vec(segment(), 1..5),
        backslash in any::<bool>(),
    ) {
        let grant = format!("/ws/{pre}*{post}");
        let p = policy(serde_json::json!({"filesystem": {"read": [grant.clone()]}}));
        let sep = if backslash { "\\" } else { "/" };
        let path = format!("/ws/{}", segs.join(sep));
        let v = p.decide_one(&format!("filesystem:read:{path}"));
        if segs.len() > 1 {
            prop_assert_ne!(v.decision, Decision::Allow, "{} granted {}", grant, path);
        } else {
            let s = &segs[0];
            let fits = s.len() >= pre.len() + post.len() && s.starts_with(&pre) && s.ends_with(&post);
            prop_assert_eq!(v.decision == Decision::Allow, fits, "{} vs {}", grant, path);
        }
    }

    /// Adding a capability to a call never makes its decision more permissive.
    #[test]
    fn more_capabilities_never_more_permissive(
        caps in prop::collection::vec(capability(), 0..5),
        extra in capability(),
        at in 0usize..6,
        ungranted_ask in any::<bool>(),
    ) {
        let mut rules = spec_example();
        rules["custom"] = serde_json::json!({"payments": "allow", "audit": "ask"});
        rules["code"] = serde_json::json!("allow");
        if ungranted_ask {
            rules["ungranted"] = serde_json::json!("ask");
        }
        let p = policy(rules);
        let before = p.decide("t", Some(&caps)).decision;
        let mut more = caps.clone();
        more.insert(at.min(more.len()), extra.clone());
        let after = p.decide("t", Some(&more)).decision;
        prop_assert!(after >= before, "{:?} + {:?}: {} then {}", caps, extra, before, after);
    }

    /// Normalised paths are absolute, without `.`, `..`, empty segments or backslashes.
    #[test]
    fn normalized_is_clean(path in "[a-z./\\\\]{0,16}", root in "/[a-z./]{0,8}") {
        let n = normalize_path(&path, &root).unwrap();
        prop_assert!(n.starts_with('/'));
        prop_assert!(!n.contains('\\'));
        prop_assert!(n == "/" || n[1..].split('/').all(|s| !s.is_empty() && s != "." && s != ".."), "{}", n);
    }
}

fn capability() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "filesystem:read:/workspace/a",
        "filesystem:read:/workspace/../etc/passwd",
        "filesystem:write:/workspace/output/x",
        "filesystem:write:/etc/x",
        "filesystem:read:/a\0",
        "network:api.github.com",
        "network:chat.openai.com",
        "network:evil.com",
        "network:127.0.0.1",
        "shell:git status",
        "shell:npm test",
        "shell:git status && rm -rf /",
        "shell:gitx",
        "code:python",
        "payments:charge",
        "audit:log",
        "email:send",
        "Bogus",
        "",
    ])
    .prop_map(String::from)
}
