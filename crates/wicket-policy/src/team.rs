//! The team policy: `policy.json` from the managed place and from `$WICKET_HOME`, never from a
//! project.
//!
//! The hard question: what may no project, no agent and no person's answer loosen? A policy
//! file can only add restrictions, and when two files say different things the stricter value
//! wins: lists are united, booleans or'ed, limits take the minimum, the audit keeps the most,
//! `"strict"` wins, and an allowed-models list can only shrink. Like settings, the schema is
//! strict: an unknown key or a malformed pattern is an error naming the file, line, column and
//! JSON path, because a policy that silently does not hold is worse than none. Reading the
//! files is the caller's job; this module parses and merges text.
//!
//! ```
//! use wicket_policy::team::TeamPolicy;
//! let managed = TeamPolicy::parse(r#"{"disallowedCommands": ["curl*"], "limits": {"maxSteps": 50}}"#, "managed").unwrap();
//! let user = TeamPolicy::parse(r#"{"disallowedCommands": ["wget*"], "limits": {"maxSteps": 80}}"#, "user").unwrap();
//! let merged = TeamPolicy::merge([&managed, &user]);
//! assert_eq!(merged.disallowed_commands, ["curl*", "wget*"]);
//! assert_eq!(merged.limits.max_steps, Some(50));
//! ```

use serde::{Deserialize, Serialize};

use crate::host::HostPattern;
use crate::rules::{compile_glob, path_glob, GlobOptions};
use crate::settings::{locate, Profile, SettingsError};

/// One policy file, or the merge of several.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TeamPolicy {
    /// Command patterns (as in `bash(PATTERN)`) no part of any command may match, seen through
    /// wrappers (`sudo`, `env`, `VAR=`, `bash -c` …).
    #[serde(default)]
    pub disallowed_commands: Vec<String>,
    /// Commands run only in the OS sandbox; without one, every command is denied.
    #[serde(default)]
    pub require_sandbox: bool,
    /// Path patterns (as in `read_file(PATTERN)`) no tool may read or write, even with an allow
    /// rule that names them; also unreadable and unwritable inside the sandbox.
    #[serde(default)]
    pub deny_paths: Vec<String>,
    /// Hosts.
    #[serde(default)]
    pub network: TeamNetwork,
    /// The models an embedding agent may use (`None`: any). Exposed, not enforced, by wicket.
    #[serde(default)]
    pub allowed_models: Option<Vec<String>>,
    /// Limits for an embedding agent. Exposed, not enforced, by wicket.
    #[serde(default)]
    pub limits: Limits,
    /// The audit log.
    #[serde(default)]
    pub audit: TeamAudit,
    /// `"strict"`: the strict profile (implies `requireSandbox`).
    #[serde(default)]
    pub profile: Option<Profile>,
}

/// `network`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TeamNetwork {
    /// Host patterns (`example.com`, `*.example.com`, an IP) no tool may reach.
    #[serde(default)]
    pub blocked_hosts: Vec<String>,
    /// Every host needs an allow rule; a host without one is denied, not asked.
    #[serde(default)]
    pub strict_allowlist: bool,
}

/// `limits`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Limits {
    /// The most steps (model turns) an agent may take.
    #[serde(default)]
    pub max_steps: Option<u64>,
    /// The most tokens an agent may spend.
    #[serde(default)]
    pub token_budget: Option<u64>,
}

/// `audit`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TeamAudit {
    /// The audit is mandatory: a call whose line cannot be written does not run.
    #[serde(default)]
    pub enabled: bool,
    /// Which lines are written (`None`: the default, `all`).
    #[serde(default)]
    pub level: Option<AuditLevel>,
    /// Accepted for older policies; the chain's head record (the checkpoint) is now always kept.
    #[serde(default)]
    pub checkpoint: bool,
}

/// `audit.level`, from the most lines to the fewest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AuditLevel {
    /// Every line.
    All,
    /// Every line but allowed reads.
    Mutations,
    /// Only denials and errors.
    Denials,
}

impl AuditLevel {
    /// The name used in policy files.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditLevel::All => "all",
            AuditLevel::Mutations => "mutations",
            AuditLevel::Denials => "denials",
        }
    }
}

fn unite(into: &mut Vec<String>, from: &[String]) {
    for s in from {
        if !into.contains(s) {
            into.push(s.clone());
        }
    }
}

fn min_limit(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl TeamPolicy {
    /// Parse policy text; `file` names the source in errors.
    pub fn parse(text: &str, file: &str) -> Result<TeamPolicy, SettingsError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let policy: TeamPolicy =
            serde_path_to_error::deserialize(de).map_err(|e| SettingsError::from_path_error(e, file))?;
        policy.validate(text, file)?;
        Ok(policy)
    }

    fn validate(&self, text: &str, file: &str) -> Result<(), SettingsError> {
        let err = |value: &str, path: String, message: String| {
            let (line, column) = locate(text, value);
            SettingsError { file: file.to_string(), line, column, path, message }
        };
        for (i, c) in self.disallowed_commands.iter().enumerate() {
            if c.trim().is_empty() || c.contains('\0') {
                return Err(err(
                    c,
                    format!("disallowedCommands[{i}]"),
                    "a command pattern must be non-empty text, e.g. \"curl*\" or \"git push*\"".into(),
                ));
            }
        }
        for (i, p) in self.deny_paths.iter().enumerate() {
            let (glob, _) = path_glob(p, Some("/home"));
            if p.trim().is_empty() || p.contains('\0') {
                return Err(err(p, format!("denyPaths[{i}]"), "a path pattern must be non-empty".into()));
            }
            if let Err(e) = compile_glob(&glob, GlobOptions::default()) {
                return Err(err(
                    p,
                    format!("denyPaths[{i}]"),
                    format!(
                        "{p:?} is not a valid path pattern ({e}); use globs such as \"secrets/**\" or \"~/.kube/**\""
                    ),
                ));
            }
        }
        for (i, h) in self.network.blocked_hosts.iter().enumerate() {
            if let Err(e) = HostPattern::parse(h) {
                return Err(err(h, format!("network.blockedHosts[{i}]"), e.to_string()));
            }
        }
        if let Some(models) = &self.allowed_models {
            for (i, m) in models.iter().enumerate() {
                if m.trim().is_empty() {
                    return Err(err(m, format!("allowedModels[{i}]"), "a model name must be non-empty".into()));
                }
            }
        }
        Ok(())
    }

    /// True when the strict profile is on.
    pub fn strict(&self) -> bool {
        self.profile == Some(Profile::Strict)
    }

    /// True when commands must run in the OS sandbox (`requireSandbox`, or the strict profile).
    pub fn sandbox_required(&self) -> bool {
        self.require_sandbox || self.strict()
    }

    /// True when the policy restricts nothing.
    pub fn is_empty(&self) -> bool {
        *self == TeamPolicy::default()
    }

    /// May an embedding agent use this model? Always yes without an `allowedModels` list.
    pub fn model_allowed(&self, model: &str) -> bool {
        self.allowed_models.as_ref().is_none_or(|m| m.iter().any(|a| a == model))
    }

    /// Merge policies, most authoritative first (managed, then the user's): the stricter value
    /// wins everywhere, so the order only decides the order of list entries.
    ///
    /// | field | merge |
    /// | --- | --- |
    /// | `disallowedCommands`, `denyPaths`, `network.blockedHosts` | united |
    /// | `requireSandbox`, `network.strictAllowlist`, `audit.enabled`, `audit.checkpoint` | or'ed |
    /// | `limits.*` | the minimum of those set |
    /// | `allowedModels` | the models every list allows (a missing list allows all) |
    /// | `audit.level` | the one that keeps the most lines |
    /// | `profile` | `strict` if any sets it |
    pub fn merge<'a>(policies: impl IntoIterator<Item = &'a TeamPolicy>) -> TeamPolicy {
        let mut out = TeamPolicy::default();
        for p in policies {
            unite(&mut out.disallowed_commands, &p.disallowed_commands);
            unite(&mut out.deny_paths, &p.deny_paths);
            unite(&mut out.network.blocked_hosts, &p.network.blocked_hosts);
            out.require_sandbox |= p.require_sandbox;
            out.network.strict_allowlist |= p.network.strict_allowlist;
            out.audit.enabled |= p.audit.enabled;
            out.audit.checkpoint |= p.audit.checkpoint;
            out.audit.level = match (out.audit.level, p.audit.level) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            out.limits.max_steps = min_limit(out.limits.max_steps, p.limits.max_steps);
            out.limits.token_budget = min_limit(out.limits.token_budget, p.limits.token_budget);
            out.allowed_models = match (out.allowed_models.take(), &p.allowed_models) {
                (Some(a), Some(b)) => Some(a.into_iter().filter(|m| b.contains(m)).collect()),
                (a, b) => a.or_else(|| b.clone()),
            };
            if p.strict() {
                out.profile = Some(Profile::Strict);
            }
        }
        out
    }

    /// This policy with the strict profile on (a project's settings asked for it).
    pub fn with_strict(mut self) -> TeamPolicy {
        self.profile = Some(Profile::Strict);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_is_strict_and_errors_are_located() {
        let e = TeamPolicy::parse("{\n  \"network\": {\"blokedHosts\": []}\n}", "p.json").expect_err("unknown key");
        assert_eq!((e.file.as_str(), e.line, e.path.as_str()), ("p.json", 2, "network.blokedHosts"));
        let e = TeamPolicy::parse("{\"network\": {\"blockedHosts\": [\"ok.com\", \"http://x/\"]}}", "p.json")
            .expect_err("bad host");
        assert_eq!(e.path, "network.blockedHosts[1]");
        assert_eq!(e.line, 1);
        assert!(e.column > 1, "{e}");
        let e = TeamPolicy::parse("{\"limits\": {\"maxSteps\": -1}}", "p.json").expect_err("negative");
        assert_eq!(e.path, "limits.maxSteps");
        let e = TeamPolicy::parse("{\"profile\": \"lax\"}", "p.json").expect_err("profile");
        assert_eq!(e.path, "profile");
        let e = TeamPolicy::parse("{\"denyPaths\": [\"a/[b\"]}", "p.json").expect_err("glob");
        assert_eq!(e.path, "denyPaths[0]");
    }
}
