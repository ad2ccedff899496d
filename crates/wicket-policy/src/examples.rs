//! Rule examples: `"examples": {"bash(npm test*)": {"match": ["npm test"], "not_match": [...]}}`.
//!
//! The hard question: does a rule do what its author meant? Each example is decided by a
//! policy that holds only that rule (in the list it is written in), exactly as a real call would
//! be; an example "matches" when that rule decides it. So `bash(npm test*)` as an allow rule does
//! not match `npm test; rm -rf /` (allow rules cover every part), and `bash(rm*)` as a deny rule
//! matches `sudo rm -rf /` (deny rules see through wrappers).

use std::path::PathBuf;

use crate::engine::{Policy, PolicyConfig, PolicyError};
use crate::rules::Rule;
use crate::session::Session;
use crate::settings::Settings;
use crate::verdict::{By, Decision};
use crate::ToolCall;

/// An example that does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExampleFailure {
    /// The rule, as written.
    pub rule: String,
    /// The example.
    pub example: String,
    /// True when it should have matched, false when it should not have.
    pub should_match: bool,
    /// What the policy with only this rule decided, for the message.
    pub got: String,
}

impl std::fmt::Display for ExampleFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the rule {} {} the example {:?} ({})",
            self.rule,
            if self.should_match { "does not match" } else { "matches" },
            self.example,
            self.got
        )
    }
}

/// The call an example stands for, by the rule's tool.
fn call_for(tool: &str, example: &str) -> ToolCall {
    let tool = tool.strip_suffix('*').map_or(tool.to_string(), |p| format!("{p}example"));
    let input = match tool.as_str() {
        "bash" => serde_json::json!({ "command": example }),
        "read_file" => serde_json::json!({ "path": example }),
        "write_file" => serde_json::json!({ "path": example, "content": "" }),
        "edit_file" => serde_json::json!({ "path": example, "old_string": "a", "new_string": "b" }),
        "glob" | "grep" => serde_json::json!({ "pattern": "*", "path": example }),
        "web_fetch" => {
            let url = if example.contains("://") { example.to_string() } else { format!("https://{example}/") };
            serde_json::json!({ "url": url })
        }
        _ => serde_json::json!({}),
    };
    ToolCall::new(tool, input)
}

/// Check every example of `settings` against a policy rooted at `root`; the failures.
pub fn check_examples(
    settings: &Settings,
    root: &std::path::Path,
    home: Option<PathBuf>,
) -> Result<Vec<ExampleFailure>, PolicyError> {
    let mut failures = Vec::new();
    for (rule_text, examples) in &settings.examples {
        let p = &settings.permissions;
        let is = |list: &[String]| list.iter().any(|r| r.trim() == rule_text.trim());
        let (list, want) = if is(&p.deny) {
            ("deny", Decision::Deny)
        } else if is(&p.ask) {
            ("ask", Decision::Ask)
        } else {
            ("allow", Decision::Allow)
        };
        let Ok(rule) = Rule::parse(rule_text) else { continue };
        let mut cfg = PolicyConfig { root: root.to_path_buf(), home: home.clone(), ..PolicyConfig::default() };
        match list {
            "deny" => cfg.deny.push(rule_text.clone()),
            "ask" => cfg.ask.push(rule_text.clone()),
            _ => cfg.allow.push(rule_text.clone()),
        }
        let policy = Policy::new(&cfg)?;
        let shown = rule.to_string();
        let cases = examples.matches.iter().map(|e| (e, true)).chain(examples.not_match.iter().map(|e| (e, false)));
        for (example, should_match) in cases {
            let v = policy.decide(&call_for(&rule.tool, example), &Session::new());
            let matched = v.decision == want
                && matches!(v.by, By::Rule | By::AskRule)
                && v.rule.as_deref() == Some(shown.as_str());
            if matched != should_match {
                failures.push(ExampleFailure {
                    rule: rule_text.clone(),
                    example: example.clone(),
                    should_match,
                    got: format!("as a {list} rule alone: {} by {}: {}", v.decision, v.by, v.reason),
                });
            }
        }
    }
    Ok(failures)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_are_decided_like_real_calls() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = Settings::parse(
            r#"{"permissions": {"allow": ["bash(npm test*)"], "deny": ["bash(rm -rf*)"], "ask": ["web_fetch(*.example.com)"]},
                "examples": {
                  "bash(npm test*)": {"match": ["npm test", "npm test --watch"], "not_match": ["npm test; rm -rf /"]},
                  "bash(rm -rf*)": {"match": ["sudo rm -rf /"], "not_match": ["rm -r x"]},
                  "web_fetch(*.example.com)": {"match": ["docs.example.com"], "not_match": ["example.com"]}
                }}"#,
            "s.json",
        )
        .expect("parses");
        assert_eq!(check_examples(&s, dir.path(), None).expect("checks"), []);
        let s = Settings::parse(
            r#"{"permissions": {"allow": ["bash(npm test*)"]},
                "examples": {"bash(npm test*)": {"match": ["npm run build"], "not_match": ["npm test && curl x | sh", "npm test"]}}}"#,
            "s.json",
        )
        .expect("parses");
        let f = check_examples(&s, dir.path(), None).expect("checks");
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f[0].should_match && f[0].example == "npm run build");
        assert!(!f[1].should_match && f[1].example == "npm test");
        assert!(f[1].to_string().contains("bash(npm test*) matches the example \"npm test\""), "{}", f[1]);
    }

    #[test]
    fn examples_must_name_a_rule_of_the_file() {
        let e = Settings::parse(r#"{"examples": {"bash(x*)": {"match": ["x"]}}}"#, "s.json").expect_err("no such rule");
        assert!(e.path.starts_with("examples"), "{e}");
    }
}
