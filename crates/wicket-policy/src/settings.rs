//! Settings files: `<root>/.wicket/settings.json` and `$WICKET_HOME/settings.json`.
//!
//! The hard question: what did the file really say? Unknown keys, wrong types and malformed
//! rules are errors that name the file, line, column and JSON path, because a setting silently
//! ignored is a rule that silently does not hold. Reading the file is the caller's job; this
//! module parses text.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::mode::Mode;
use crate::rules::{Rule, RULE_FORMS};

/// One settings file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Settings {
    /// Allow, deny and ask rules.
    #[serde(default)]
    pub permissions: Permissions,
    /// The mode.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Extra sandbox paths.
    #[serde(default)]
    pub sandbox: SandboxSettings,
    /// Environment variables passed to commands.
    #[serde(default)]
    pub env: EnvSettings,
    /// Hosts sandboxed commands may reach.
    #[serde(default)]
    pub network: NetworkSettings,
    /// Where commands run.
    #[serde(default)]
    pub executor: Option<Executor>,
    /// `"strict"`: commands run only in the OS sandbox (a project can turn it on, never off).
    #[serde(default)]
    pub profile: Option<Profile>,
    /// Examples for rules, checked by `wicket policy lint`: for each rule (as written in
    /// `permissions`), calls it must match and calls it must not.
    #[serde(default)]
    pub examples: BTreeMap<String, RuleExamples>,
}

/// The examples of one rule: command lines, paths or URLs, as the rule's tool takes them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct RuleExamples {
    /// Calls the rule must decide.
    #[serde(default, rename = "match")]
    pub matches: Vec<String>,
    /// Calls the rule must leave alone.
    #[serde(default)]
    pub not_match: Vec<String>,
}

/// `profile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// Require the OS sandbox; `executor: "host"` is an error.
    Strict,
}

/// `permissions`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permissions {
    /// Allow rules.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Deny rules.
    #[serde(default)]
    pub deny: Vec<String>,
    /// Ask rules.
    #[serde(default)]
    pub ask: Vec<String>,
}

/// `sandbox`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SandboxSettings {
    /// Extra writable paths.
    #[serde(default)]
    pub write_paths: Vec<String>,
    /// Extra unreadable paths.
    #[serde(default)]
    pub deny_read: Vec<String>,
}

/// `env`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvSettings {
    /// Variable names passed through to commands.
    #[serde(default)]
    pub allow: Vec<String>,
}

/// `network`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSettings {
    /// Presets or host patterns.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Ports reachable besides 80 and 443.
    #[serde(default)]
    pub ports: Vec<u16>,
    /// Host names pinned to explicit addresses: the host is allowed, the proxy connects only to
    /// these addresses (no DNS), and they may be private or loopback (mirrors, local stand-ins).
    #[serde(default)]
    pub addresses: BTreeMap<String, Vec<std::net::IpAddr>>,
}

impl NetworkSettings {
    /// True when the settings open any network at all.
    pub fn opens(&self) -> bool {
        !self.allow.is_empty() || !self.addresses.is_empty()
    }
}

/// `executor`: where commands run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Executor {
    /// The OS sandbox when available.
    Auto,
    /// The OS sandbox, or no commands at all (`"sandbox"` is accepted too).
    #[serde(alias = "sandbox")]
    Os,
    /// The host, unconfined (commands then always need an answer or a rule).
    Host,
}

/// A settings file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {path}: {message}")]
pub struct SettingsError {
    /// The file.
    pub file: String,
    /// 1-based line (0 when unknown).
    pub line: usize,
    /// 1-based column (0 when unknown).
    pub column: usize,
    /// The JSON path (`permissions.allow[2]`), or `.` for the whole document.
    pub path: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl SettingsError {
    /// The error of a failed strict parse, with its position and JSON path.
    pub fn from_path_error(e: serde_path_to_error::Error<serde_json::Error>, file: &str) -> SettingsError {
        let path = e.path().to_string();
        let inner = e.into_inner();
        SettingsError {
            file: file.to_string(),
            line: inner.line(),
            column: inner.column(),
            path: if path.is_empty() { ".".to_string() } else { path },
            message: inner.to_string(),
        }
    }
}

impl Settings {
    /// Parse settings text; `file` names the source in errors.
    pub fn parse(text: &str, file: &str) -> Result<Settings, SettingsError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let settings: Settings =
            serde_path_to_error::deserialize(de).map_err(|e| SettingsError::from_path_error(e, file))?;
        settings.validate(text, file)?;
        Ok(settings)
    }

    fn validate(&self, text: &str, file: &str) -> Result<(), SettingsError> {
        let lists =
            [("allow", &self.permissions.allow), ("deny", &self.permissions.deny), ("ask", &self.permissions.ask)];
        for (name, list) in lists {
            for (i, rule) in list.iter().enumerate() {
                if let Err(e) = Rule::parse(rule) {
                    let (line, column) = locate(text, rule);
                    return Err(SettingsError {
                        file: file.to_string(),
                        line,
                        column,
                        path: format!("permissions.{name}[{i}]"),
                        message: format!("rule {:?} is not valid: {}; {RULE_FORMS}", e.rule, e.why),
                    });
                }
            }
        }
        for rule in self.examples.keys() {
            let listed = lists.iter().any(|(_, l)| l.iter().any(|r| r.trim() == rule.trim()));
            if !listed {
                let (line, column) = locate(text, rule);
                return Err(SettingsError {
                    file: file.to_string(),
                    line,
                    column,
                    path: format!("examples.{rule}"),
                    message: format!(
                        "examples are given for {rule:?}, which is not one of this file's allow, deny or ask rules; write the rule exactly as in permissions"
                    ),
                });
            }
        }
        Ok(())
    }
}

/// The line and column of a string literal's first appearance, for errors found after parsing.
pub(crate) fn locate(text: &str, value: &str) -> (usize, usize) {
    let Ok(quoted) = serde_json::to_string(value) else { return (0, 0) };
    let Some(at) = text.find(&quoted) else { return (0, 0) };
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_file_line_column_and_path() {
        let e =
            Settings::parse("{\n  \"permissions\": {\n    \"alow\": []\n  }\n}", "s.json").expect_err("unknown key");
        assert_eq!((e.file.as_str(), e.line, e.path.as_str()), ("s.json", 3, "permissions.alow"));
        assert!(e.message.contains("alow"), "{e}");
        let e = Settings::parse("{\"permissions\": {\"allow\": [\"ok\", \"bash(\"]}}", "s.json").expect_err("bad rule");
        assert_eq!(e.path, "permissions.allow[1]");
        assert_eq!((e.line, e.column), (1, 34));
        let e = Settings::parse("{\"mode\": \"yolo\"}", "s.json").expect_err("bad mode");
        assert_eq!(e.path, "mode");
        let e = Settings::parse("{", "s.json").expect_err("truncated");
        assert_eq!(e.line, 1);
    }

    #[test]
    fn full_file_parses() {
        let s = Settings::parse(
            r#"{"mode":"accept-edits","executor":"auto","permissions":{"allow":["bash(npm test*)"],"deny":["bash(git push*)"],"ask":[]},
               "sandbox":{"writePaths":["~/x"],"denyRead":["~/y"]},"env":{"allow":["NODE_ENV"]},"network":{"allow":["npm"]}}"#,
            "s.json",
        )
        .expect("parses");
        assert_eq!(s.mode, Some(Mode::AcceptEdits));
        assert_eq!(s.sandbox.write_paths, ["~/x"]);
    }
}
