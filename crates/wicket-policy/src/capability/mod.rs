//! The capability-policy front end: a tool declares what a call does (a path it reads or
//! writes, a host it reaches, a command line it runs), and a [`CapabilityPolicy`] built from
//! [`PermissionRules`] allows, asks about or denies the call from those declarations alone.
//!
//! The hard question: **does a grant written one way cover a declaration spelled another way,
//! and only what the person who wrote the grant meant?** `/workspace/../etc/passwd` must not
//! pass `/workspace/**`, `API.GitHub.com.` must pass `api.github.com`, `git status; rm -rf /`
//! must not pass `git`, and `gitx` must not pass `git`. So every target is reduced to one
//! canonical form before any grant sees it (paths folded lexically, hosts canonicalised and
//! IDNA-encoded, command lines parsed into simple commands), a grant only ever matches that form,
//! and anything that cannot be reduced (a NUL in a path, a host that does not parse, a command
//! line that chains, pipes, redirects or substitutes) is never covered by an ordinary grant.
//! A call is denied when any capability is denied, asked about when any needs approval, and
//! allowed only when every one is granted.
//!
//! Capabilities are written `kind[:access][:target]`:
//!
//! | kind | access | target | example |
//! | --- | --- | --- | --- |
//! | `filesystem` | `read` or `write` (required) | a path | `filesystem:write:/workspace/out/a.txt` |
//! | `network` | `connect` (optional) | a host (a port or an `http(s)` URL is accepted) | `network:api.github.com` |
//! | `shell` | none | the command line, `:` and all | `shell:git log --format=%h:%s` |
//! | `code` | none | free text (e.g. the language) | `code`, `code:python` |
//! | any other | none | free text | `payments`, `payments:refund` |
//!
//! Only `filesystem` and `network` have an access part. `network:X` means the host `X` unless
//! `X` starts with `connect:` (`network:connect:X` is the same capability); the bare word
//! `network:connect` is the access with no host. For every other kind, everything after the
//! first `:` is the target, so a command line may hold `:` freely.

use std::collections::BTreeMap;

use crate::host::quote;
use crate::host::{parse_host, parse_url, Host, HostPattern};
use crate::verdict::{By, Decision, Verdict};

mod declared;
mod grants;
mod rules;

pub use declared::*;
use grants::*;
pub use rules::*;

/// The kind of a capability on a path.
const FILESYSTEM: &str = "filesystem";
/// The kind of a capability on a host.
const NETWORK: &str = "network";
/// The kind of a capability on a command line.
const SHELL: &str = "shell";
/// The kind of running code a tool was given.
const CODE: &str = "code";
/// Kinds with their own section in [`PermissionRules`]; `custom` cannot decide them.
const BUILT_IN: [&str; 4] = [FILESYSTEM, NETWORK, SHELL, CODE];

/// The accepted forms of a capability, for error messages.
const FORMS: &str = "write `filesystem:read:<path>`, `filesystem:write:<path>`, `network:<host>`, \
                     `shell:<command line>`, `code`, or an application kind such as `payments` or \
                     `payments:<detail>` (a kind is lowercase letters, digits, `-`, `_` and `.`)";

/// How many grants a reason lists before cutting short.
const LIST_MAX: usize = 5;

/// A policy built from [`PermissionRules`], with every pattern compiled once. Deterministic: the
/// same call always gets the same verdict.
#[derive(Debug, Clone)]
pub struct CapabilityPolicy {
    rules: PermissionRules,
    root: String,
    /// Read grants and write grants (a write grant also allows reading).
    readable: PathGlobs,
    writable: PathGlobs,
    hosts: Vec<HostGrant>,
    shell: Vec<ShellGrant>,
    ask: Vec<AskPattern>,
    /// `custom` entries keyed by full capability (canonical text) or by kind.
    custom_full: BTreeMap<String, (Decision, String)>,
    custom_kind: BTreeMap<String, (Decision, String)>,
    undeclared: Decision,
    ungranted: Decision,
    code: Decision,
    /// The `principals` entries, each compiled as a policy of its grants alone.
    by_principal: Vec<(String, CapabilityPolicy)>,
}

impl CapabilityPolicy {
    /// Compile the rules. Every bad pattern or setting is an error quoting it and naming the
    /// forms that are accepted: a filesystem glob with `..`, `~` or a syntax error, a host
    /// pattern that does not parse, a shell grant that is not one plain command or `*`, an ask
    /// pattern with an unknown filesystem access, a relative `root`, `ungranted: allow`, or a
    /// `custom` key that is malformed or names a built-in kind.
    pub fn new(rules: PermissionRules) -> Result<CapabilityPolicy, CapabilityError> {
        let root_text = rules.root.as_deref().unwrap_or("/");
        let root_err = |reason: &str| CapabilityError::Rules { field: "root".to_string(), reason: reason.to_string() };
        if !root_text.starts_with('/') && !root_text.starts_with('\\') {
            return Err(root_err(&format!(
                "is {}: it must be an absolute path such as `/workspace`",
                quote(root_text)
            )));
        }
        let root = normalize_path(root_text, "/").ok_or_else(|| root_err("holds a NUL byte"))?;

        let mut read_items: Vec<(String, &str)> =
            rules.filesystem.read.iter().map(|p| (p.clone(), "filesystem.read")).collect();
        let write_items: Vec<(String, &str)> =
            rules.filesystem.write.iter().map(|p| (p.clone(), "filesystem.write")).collect();
        read_items.extend(write_items.iter().cloned());
        let readable = PathGlobs::build(&read_items, "filesystem.read", &root)?;
        let writable = PathGlobs::build(&write_items, "filesystem.write", &root)?;

        let hosts = rules
            .network
            .allow
            .iter()
            .map(|p| {
                HostPattern::parse(p).map(|pattern| HostGrant { pattern, written: p.clone() }).map_err(|e| {
                    CapabilityError::Pattern {
                        field: "network.allow".to_string(),
                        pattern: p.clone(),
                        reason: url_reason(e),
                        hint: NET_HINT,
                    }
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let shell = rules.shell.allow.iter().map(|p| ShellGrant::parse(p)).collect::<Result<Vec<_>, _>>()?;
        let ask = rules.ask.iter().map(|p| AskPattern::parse(p, &root)).collect::<Result<Vec<_>, _>>()?;

        let mut custom_full = BTreeMap::new();
        let mut custom_kind = BTreeMap::new();
        for (key, decision) in &rules.custom {
            let field = format!("custom.{key}");
            let bad = |reason: String| CapabilityError::Rules { field: field.clone(), reason };
            let cap = parse_capability(key).map_err(|e| bad(format!("is not a kind or capability: {e}")))?;
            if cap.is_built_in() {
                return Err(bad(format!(
                    "names the built-in kind `{}`, which its own section decides (`filesystem`, `network`, \
                     `shell`, `code`); `custom` is for the application's own kinds such as `payments`",
                    cap.kind
                )));
            }
            let entry = (*decision, field.clone());
            if key.contains(':') {
                custom_full.insert(cap.to_string(), entry);
            } else {
                custom_kind.insert(cap.kind.clone(), entry);
            }
        }
        let mut by_principal = Vec::new();
        for (key, grants) in &rules.principals {
            let ok = matches!(key.split_once(':'), Some(("role" | "scope" | "id", name)) if !name.is_empty());
            if !ok {
                return Err(CapabilityError::Rules {
                    field: format!("principals.{key}"),
                    reason: "is not `role:<name>`, `scope:<name>` or `id:<name>`".to_string(),
                });
            }
            let only = PermissionRules {
                filesystem: grants.filesystem.clone(),
                network: grants.network.clone(),
                shell: grants.shell.clone(),
                root: Some(root.clone()),
                ..PermissionRules::default()
            };
            let compiled = CapabilityPolicy::new(only).map_err(|e| match e {
                CapabilityError::Pattern { field, pattern, reason, hint } => {
                    CapabilityError::Pattern { field: format!("principals.{key}.{field}"), pattern, reason, hint }
                }
                CapabilityError::Rules { field, reason } => {
                    CapabilityError::Rules { field: format!("principals.{key}.{field}"), reason }
                }
                other => other,
            })?;
            by_principal.push((key.clone(), compiled));
        }
        let ungranted = rules.ungranted.unwrap_or(Decision::Deny);
        if ungranted == Decision::Allow {
            return Err(CapabilityError::Rules {
                field: "ungranted".to_string(),
                reason: "may be `ask` or `deny`, not `allow`: grant what should be allowed instead".to_string(),
            });
        }
        Ok(CapabilityPolicy {
            undeclared: rules.undeclared.unwrap_or(Decision::Deny),
            code: rules.code.unwrap_or(Decision::Deny),
            ungranted,
            root,
            readable,
            writable,
            hosts,
            shell,
            ask,
            custom_full,
            custom_kind,
            by_principal,
            rules,
        })
    }

    /// What the policy grants, as given.
    pub fn rules(&self) -> &PermissionRules {
        &self.rules
    }

    /// The root relative paths are resolved against, normalized.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// Decide one call of `tool` from the capabilities it declares (`None`: the tool declares
    /// nothing).
    ///
    /// In order: a `tools` entry for the tool decides alone; `None` gets the `undeclared`
    /// decision (deny by default); an empty list is allowed (every one of no capabilities is
    /// granted); otherwise each capability is decided by [`decide_one`](Self::decide_one) and the
    /// worst wins (deny over ask over allow, the first in declared order among equals), its reason
    /// and its capability (in [`Verdict::rule`]) naming what decided.
    pub fn decide(&self, tool: &str, capabilities: Option<&[String]>) -> Verdict {
        self.decide_for(tool, capabilities, None)
    }

    /// [`decide`](Self::decide) for a call made for `principal`: a capability the general
    /// grants do not cover is also checked against the `principals` entries it matches.
    pub fn decide_for(&self, tool: &str, capabilities: Option<&[String]>, principal: Option<&Principal>) -> Verdict {
        if let Some(&d) = self.rules.tools.get(tool) {
            let t = shown(tool);
            let reason = match d {
                Decision::Allow => format!("the policy allows tool {t} by name (`tools`: allow)"),
                Decision::Ask => format!(
                    "the policy asks a person before every call of tool {t} (`tools`: ask); wait for the answer"
                ),
                Decision::Deny => format!(
                    "the policy denies tool {t} by name (`tools`: deny); do not call it again. A person can change \
                     its entry in `tools` to allow it"
                ),
            };
            return Verdict::new(d, By::Capability, reason).with_rule(format!("tools.{tool}"));
        }
        let Some(caps) = capabilities else {
            let t = shown(tool);
            let reason = match self.undeclared {
                Decision::Allow => {
                    format!("tool {t} declares no capabilities; the policy allows such tools (`undeclared`)")
                }
                Decision::Ask => format!(
                    "tool {t} declares no capabilities, so the policy cannot judge what it does: a person must \
                     approve the call (`undeclared`: ask)"
                ),
                Decision::Deny => format!(
                    "tool {t} declares no capabilities, so the policy cannot judge what it does. Use a tool that \
                     declares its capabilities; a person can declare them for this tool, or set an entry in `tools` \
                     or `undeclared`"
                ),
            };
            return Verdict::new(self.undeclared, By::Capability, reason).with_rule("undeclared");
        };
        if caps.is_empty() {
            return Verdict::allow(
                By::Capability,
                format!("tool {} declares an empty list of capabilities: nothing to check", shown(tool)),
            );
        }
        let verdicts: Vec<Verdict> = caps.iter().map(|c| self.decide_one_for(c, principal)).collect();
        let mut worst = 0;
        for (i, v) in verdicts.iter().enumerate() {
            if v.decision > verdicts[worst].decision {
                worst = i;
            }
        }
        let n = verdicts.len();
        let decisive = verdicts.into_iter().nth(worst);
        let Some(mut v) = decisive else {
            return Verdict::deny(By::Capability, "internal error: no verdict");
        };
        if v.decision == Decision::Allow && n > 1 {
            let shown_caps: Vec<String> = caps.iter().take(LIST_MAX).map(|c| shown(c)).collect();
            let more = if n > LIST_MAX { format!(" and {} more", n - LIST_MAX) } else { String::new() };
            return Verdict::allow(
                By::Capability,
                format!(
                    "tool {}: all {n} declared capabilities are granted ({}{more})",
                    shown(tool),
                    shown_caps.join(", ")
                ),
            );
        }
        v.reason = if n > 1 {
            format!("tool {}, capability {} of {n}: {}", shown(tool), worst + 1, v.reason)
        } else {
            format!("tool {}: {}", shown(tool), v.reason)
        };
        v
    }

    /// Decide one capability: is it granted, and if so does an `ask` pattern match it. A
    /// malformed capability, a path holding a NUL and a host that does not parse are denied.
    /// [`Verdict::rule`] is the capability as given.
    pub fn decide_one(&self, capability: &str) -> Verdict {
        self.decide_one_for(capability, None)
    }

    /// [`decide_one`](Self::decide_one) for a call made for `principal`.
    pub fn decide_one_for(&self, capability: &str, principal: Option<&Principal>) -> Verdict {
        let cap = match parse_capability(capability) {
            Ok(c) => c,
            Err(e) => {
                return Verdict::deny(By::Capability, format!("{e}; the tool that declared it must be fixed"))
                    .with_rule(capability);
            }
        };
        let c = shown(capability);
        let (mut outcome, subject) = self.judge(&cap);
        // Not granted to everyone: perhaps to this principal (grants only; asks still apply).
        if let (Outcome::Ungranted { .. }, Some(p)) = (&outcome, principal) {
            let granted = self.by_principal.iter().filter(|(key, _)| p.has(key)).find_map(|(key, policy)| match policy
                .judge(&cap)
                .0
            {
                Outcome::Granted(grant) => Some(format!("{grant} for {key}")),
                _ => None,
            });
            if let Some(grant) = granted {
                outcome = Outcome::Granted(grant);
            }
        }
        let verdict = match outcome {
            Outcome::Refused(why) => {
                Verdict::deny(By::Capability, format!("{c} is denied: {why}. Do not retry it as it is"))
            }
            Outcome::Ungranted { why, fix } => match self.ungranted {
                Decision::Ask => Verdict::ask(
                    By::Capability,
                    format!("{c} is not granted ({why}); a person must approve it. To stop asking, {fix}"),
                ),
                _ => Verdict::deny(
                    By::Capability,
                    format!(
                        "{c} is not granted: {why}. Do not retry it; stay within what is granted, or ask the person \
                         to {fix}"
                    ),
                ),
            },
            Outcome::Decided(Decision::Deny, from) => {
                let note = if from == CODE {
                    " (running code a tool was given is denied unless `code` says otherwise)"
                } else {
                    ""
                };
                Verdict::deny(
                    By::Capability,
                    format!(
                        "{c} is denied by `{from}`{note}. Do not retry it; a person can change `{from}` to allow it"
                    ),
                )
            }
            Outcome::Decided(Decision::Ask, from) => Verdict::ask(
                By::Capability,
                format!("{c} needs a person's approval (`{from}`: ask); wait for the answer"),
            ),
            Outcome::Decided(Decision::Allow, from) => {
                self.unless_asked(&cap, &subject, &c, format!("`{from}`: allow"))
            }
            Outcome::Granted(grant) => self.unless_asked(&cap, &subject, &c, grant),
        };
        verdict.with_rule(capability)
    }

    /// Allow a granted capability, unless an ask pattern matches it.
    fn unless_asked(&self, cap: &Capability, subject: &Subject, c: &str, grant: String) -> Verdict {
        match self.ask.iter().find(|p| p.matches(cap, subject)) {
            Some(p) => Verdict::ask(
                By::Capability,
                format!(
                    "{c} is granted by {grant} but needs a person's approval: it matches the ask pattern {}; wait for \
                     the answer. To stop asking, remove that pattern from `ask`",
                    shown(&p.written)
                ),
            ),
            None => Verdict::allow(By::Capability, format!("{c} is granted by {grant}")),
        }
    }

    /// What the grants say about a parsed capability, and its target in canonical form.
    fn judge(&self, cap: &Capability) -> (Outcome, Subject) {
        match cap.kind.as_str() {
            FILESYSTEM => self.judge_path(cap),
            NETWORK => self.judge_host(cap),
            SHELL => (self.judge_shell(cap), Subject::None),
            CODE => (Outcome::Decided(self.code, "code".to_string()), Subject::None),
            _ => (self.judge_custom(cap), Subject::None),
        }
    }

    fn judge_path(&self, cap: &Capability) -> (Outcome, Subject) {
        let write = cap.access() == Some("write");
        let (field, globs) =
            if write { ("filesystem.write", &self.writable) } else { ("filesystem.read", &self.readable) };
        let Some(target) = cap.target() else {
            return (
                Outcome::Ungranted {
                    why: "it names no path, and grants cover paths".to_string(),
                    fix: "declare the capability with the path it touches".to_string(),
                },
                Subject::None,
            );
        };
        let Some(path) = normalize_path(target, &self.root) else {
            let why = if target.contains('\0') {
                "its path holds a NUL byte, which no file name can contain".to_string()
            } else {
                format!(
                    "its path {} cannot be judged (a `~` or a drive letter); declare the absolute path",
                    shown(target)
                )
            };
            return (Outcome::Refused(why), Subject::None);
        };
        let outcome = match globs.first(&path) {
            Some(grant) => {
                let origin = if !write && self.rules.filesystem.write.contains(&grant.to_string()) {
                    "filesystem.write"
                } else {
                    field
                };
                Outcome::Granted(format!("{origin} {}", shown(grant)))
            }
            None => {
                let what = if write { "write" } else { "read or write" };
                let list: Vec<&String> = if write {
                    self.rules.filesystem.write.iter().collect()
                } else {
                    self.rules.filesystem.read.iter().chain(&self.rules.filesystem.write).collect()
                };
                Outcome::Ungranted {
                    why: format!("no filesystem {what} grant covers {} ({})", shown(&path), listed(&list)),
                    fix: format!("add a glob covering {} to `{field}`", shown(&path)),
                }
            }
        };
        (outcome, Subject::Path(path))
    }

    fn judge_host(&self, cap: &Capability) -> (Outcome, Subject) {
        let Some(target) = cap.target() else {
            return (
                Outcome::Ungranted {
                    why: "it names no host, and grants cover hosts".to_string(),
                    fix: "declare the capability with the host it reaches".to_string(),
                },
                Subject::None,
            );
        };
        let host = match capability_host(target) {
            Ok(h) => h,
            Err(why) => {
                return (Outcome::Refused(format!("its host {} cannot be judged: {why}", shown(target))), Subject::None)
            }
        };
        let outcome = match self.hosts.iter().find(|g| g.pattern.matches(&host)) {
            Some(g) => Outcome::Granted(format!("network.allow {}", shown(&g.written))),
            None => {
                let note = match &host {
                    Host::V4(_) | Host::V6(_) => {
                        "; an IP address is only covered by a grant of that exact address, never by `*`"
                    }
                    Host::Name { unicode: true, .. } => {
                        "; an internationalised name is only covered by a grant written as that same name"
                    }
                    Host::Name { .. } => "",
                };
                let list: Vec<&String> = self.rules.network.allow.iter().collect();
                Outcome::Ungranted {
                    why: format!("no network grant covers the host `{host}` ({}){note}", listed(&list)),
                    fix: format!("add `{host}` to `network.allow`"),
                }
            }
        };
        (outcome, Subject::Host(host))
    }

    fn judge_shell(&self, cap: &Capability) -> Outcome {
        let Some(line) = cap.target() else {
            return Outcome::Ungranted {
                why: "it names no command line, and grants cover command lines".to_string(),
                fix: "declare the capability with the command line it runs".to_string(),
            };
        };
        if self.shell.iter().any(|g| matches!(g, ShellGrant::Any)) {
            return Outcome::Granted("shell.allow `*`".to_string());
        }
        let words = match plain_command(line) {
            Ok(w) => w,
            Err(why) => {
                return Outcome::Ungranted {
                    why: format!(
                        "{why}, and only the grant `*` covers such a command line; run its parts as separate plain \
                         commands instead"
                    ),
                    fix: "add `*` to `shell.allow`".to_string(),
                }
            }
        };
        let hit = self.shell.iter().find_map(|g| match g {
            ShellGrant::Prefix { words: prefix, written } => {
                let covers =
                    prefix.len() <= words.len() && prefix.iter().zip(&words).all(|(p, (w, glob))| !glob && p == w);
                covers.then_some(written)
            }
            ShellGrant::Any => None,
        });
        match hit {
            Some(written) => Outcome::Granted(format!("shell.allow {}", shown(written))),
            None => {
                let program = words.first().map(|w| w.0.clone()).unwrap_or_default();
                let list: Vec<&String> = self.rules.shell.allow.iter().collect();
                Outcome::Ungranted {
                    why: format!("no shell grant starts this command line ({})", listed(&list)),
                    fix: format!("add {} (or a longer start of the command) to `shell.allow`", shown(&program)),
                }
            }
        }
    }

    fn judge_custom(&self, cap: &Capability) -> Outcome {
        if let Some((d, from)) = self.custom_full.get(&cap.to_string()).or_else(|| self.custom_kind.get(&cap.kind)) {
            return Outcome::Decided(*d, from.clone());
        }
        Outcome::Ungranted {
            why: format!("`custom` has no decision for it or for the kind `{}`", cap.kind),
            fix: format!("set `custom.{}` (or `custom` for the full capability) to `allow` or `ask`", cap.kind),
        }
    }
}

/// Grants listed for a reason: `grants: a, b` or `there are none`, cut short after a few.
fn listed(items: &[&String]) -> String {
    if items.is_empty() {
        return "there are none".to_string();
    }
    let shown_items: Vec<String> = items.iter().take(LIST_MAX).map(|s| shown(s)).collect();
    let more = if items.len() > LIST_MAX { format!(" and {} more", items.len() - LIST_MAX) } else { String::new() };
    format!("grants: {}{more}", shown_items.join(", "))
}

/// A network capability's host, canonical: a bare host (`api.github.com`, `[::1]`, `::1`), a
/// host with a port (the port is ignored: grants are by host), or an `http(s)` URL.
fn capability_host(target: &str) -> Result<Host, String> {
    if target.contains("://") {
        return parse_url(target).map(|u| u.host).map_err(|e| e.to_string());
    }
    let first = match parse_host(target) {
        Ok(h) => return Ok(h),
        Err(e) => e,
    };
    if let Some((host, port)) = target.rsplit_once(':') {
        if !host.is_empty() && !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(h) = parse_host(host) {
                return Ok(h);
            }
        }
    }
    Err(url_reason(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_basics() {
        assert!(wildcard("*.stripe.com", "api.stripe.com"));
        assert!(wildcard("a*c", "abbbc"));
        assert!(!wildcard("a*c", "abbbd"));
        assert!(wildcard("*", ""));
        assert!(wildcard("git push *", "git push origin main"));
        assert!(!wildcard("git push", "git pushx"));
    }

    #[test]
    fn host_with_port_and_url() {
        assert_eq!(capability_host("API.GitHub.com.:443").map(|h| h.to_string()), Ok("api.github.com".to_string()));
        assert_eq!(
            capability_host("https://api.github.com/x").map(|h| h.to_string()),
            Ok("api.github.com".to_string())
        );
        assert!(capability_host("[::1]:8080").is_ok_and(|h| h.is_ip()));
        assert!(capability_host("::1").is_ok_and(|h| h.is_ip()));
        assert!(capability_host("fetch:example.com").is_err());
    }
}
