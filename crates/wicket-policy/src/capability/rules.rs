//! The rules as written (the wire format a caller deserializes) and the principal a call is for.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};

use crate::verdict::Decision;

/// Paths a tool may read and write, as globs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FilesystemRules {
    /// Globs of paths that may be read: `*` within one segment, `**` across segments, so
    /// `/workspace/**` is the workspace and everything in it. Relative globs are below `root`.
    #[serde(default)]
    pub read: Vec<String>,
    /// Globs of paths that may be written; a write grant also allows reading.
    #[serde(default)]
    pub write: Vec<String>,
}

/// Hosts a tool may reach.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NetworkRules {
    /// `api.github.com` (that host), `*.openai.com` (its subdomains, not itself), `*` (any host
    /// name, but no IP address), or an IP address (that address only).
    #[serde(default)]
    pub allow: Vec<String>,
}

/// Commands a tool may run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ShellRules {
    /// Starts of a command line, word by word: `git` allows `git` and `git …`, not `gitx`;
    /// `npm test` allows only `npm test` and `npm test …`. A command line that chains, pipes,
    /// redirects or substitutes is only covered by `*`.
    #[serde(default)]
    pub allow: Vec<String>,
}

/// What a policy grants. Anything not granted is denied unless `ungranted` says `ask`.
///
/// Loads from JSON with the field names below; unknown fields are refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PermissionRules {
    /// Paths a tool may read and write.
    #[serde(default)]
    pub filesystem: FilesystemRules,
    /// Hosts a tool may reach.
    #[serde(default)]
    pub network: NetworkRules,
    /// Command lines a tool may run.
    #[serde(default)]
    pub shell: ShellRules,
    /// Running code a tool was given. Defaults to deny; a sandboxed interpreter is the place for
    /// ask or allow.
    #[serde(default, deserialize_with = "de_opt_decision")]
    pub code: Option<Decision>,
    /// Decisions for the application's own capabilities, by full capability (`payments:refund`)
    /// or by kind (`payments`); the full capability wins.
    #[serde(default, deserialize_with = "de_decision_map")]
    pub custom: BTreeMap<String, Decision>,
    /// Capabilities that need a person's approval even when granted, as patterns: a kind
    /// (`shell`, `payments`), a kind and access (`filesystem:write`), or a full capability with
    /// `*` wildcards in the target (`network:*.stripe.com`, `filesystem:write:/etc/**`,
    /// `shell:git push`); `*` alone for every capability.
    #[serde(default)]
    pub ask: Vec<String>,
    /// The decision for a tool that declares no capabilities. Defaults to deny: a policy cannot
    /// judge what it cannot see.
    #[serde(default, deserialize_with = "de_opt_decision")]
    pub undeclared: Option<Decision>,
    /// The decision for a capability no grant covers: ask or deny (the default).
    #[serde(default, deserialize_with = "de_opt_decision")]
    pub ungranted: Option<Decision>,
    /// Decisions per tool name, applied before anything else.
    #[serde(default, deserialize_with = "de_decision_map")]
    pub tools: BTreeMap<String, Decision>,
    /// What relative paths (in capabilities and grants) are resolved against. Defaults to `/`.
    #[serde(default)]
    pub root: Option<String>,
    /// Grants for some principals only, keyed `role:<name>`, `scope:<name>` or `id:<name>`: a
    /// capability the grants above do not cover is granted when the call's principal has that
    /// role, scope or id and the entry covers it (`ask` patterns still apply; nothing here can
    /// lift a denial).
    #[serde(default)]
    pub principals: BTreeMap<String, PrincipalGrants>,
}

/// Grants that hold only for the principals a [`PermissionRules::principals`] key names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PrincipalGrants {
    /// Paths.
    #[serde(default)]
    pub filesystem: FilesystemRules,
    /// Hosts.
    #[serde(default)]
    pub network: NetworkRules,
    /// Command lines.
    #[serde(default)]
    pub shell: ShellRules,
}

/// Who a run is for (the reference API's `principal`): an id, and the roles and scopes that
/// [`PermissionRules::principals`] can grant by.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Principal {
    /// Who, as the application names them.
    #[serde(default)]
    pub id: String,
    /// Their roles (`maintainer`, `ci` …).
    #[serde(default)]
    pub roles: Vec<String>,
    /// Their scopes (`repo:write` …).
    #[serde(default)]
    pub scopes: Vec<String>,
}

impl Principal {
    /// Does this principal have what a `principals` key (`role:x`, `scope:x`, `id:x`) names?
    pub(super) fn has(&self, key: &str) -> bool {
        match key.split_once(':') {
            Some(("role", r)) => self.roles.iter().any(|x| x == r),
            Some(("scope", s)) => self.scopes.iter().any(|x| x == s),
            Some(("id", i)) => !i.is_empty() && self.id == i,
            _ => false,
        }
    }
}

/// A decision as written in JSON.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum WireDecision {
    Allow,
    Ask,
    Deny,
}

impl From<WireDecision> for Decision {
    fn from(w: WireDecision) -> Decision {
        match w {
            WireDecision::Allow => Decision::Allow,
            WireDecision::Ask => Decision::Ask,
            WireDecision::Deny => Decision::Deny,
        }
    }
}

pub(super) fn de_opt_decision<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decision>, D::Error> {
    Ok(Option::<WireDecision>::deserialize(d)?.map(Decision::from))
}

pub(super) fn de_decision_map<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, Decision>, D::Error> {
    Ok(BTreeMap::<String, WireDecision>::deserialize(d)?.into_iter().map(|(k, v)| (k, v.into())).collect())
}
