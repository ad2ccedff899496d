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
use std::fmt;
use std::str::FromStr;

use globset::{GlobSet, GlobSetBuilder};
use serde::{Deserialize, Deserializer};

use crate::host::{parse_host, parse_url, Host, HostPattern, UrlError};
use crate::rules::{compile_glob, GlobOptions};
use crate::verdict::{By, Decision, Verdict};

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

/// One declared capability, parsed from `kind[:access][:target]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Capability {
    kind: String,
    access: Option<String>,
    target: Option<String>,
}

impl Capability {
    /// The kind: `filesystem`, `network`, `shell`, `code`, or an application's own kind.
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The access: `read` or `write` for `filesystem`, `connect` when written for `network`,
    /// `None` for every other kind.
    pub fn access(&self) -> Option<&str> {
        self.access.as_deref()
    }

    /// The target as written (a path, host, command line or detail); `None` when absent or empty.
    pub fn target(&self) -> Option<&str> {
        self.target.as_deref()
    }

    /// True for `filesystem`, `network`, `shell` and `code`, which `custom` cannot decide.
    pub fn is_built_in(&self) -> bool {
        BUILT_IN.contains(&self.kind.as_str())
    }
}

impl fmt::Display for Capability {
    /// The capability written back as `kind[:access][:target]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind)?;
        if let Some(a) = &self.access {
            write!(f, ":{a}")?;
        }
        if let Some(t) = &self.target {
            write!(f, ":{t}")?;
        }
        Ok(())
    }
}

impl FromStr for Capability {
    type Err = CapabilityError;

    /// Same as [`parse_capability`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_capability(s)
    }
}

/// Why a capability, a pattern or a set of rules was refused. Each message quotes the input and
/// says what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CapabilityError {
    /// A declared capability is malformed.
    #[error("{} is not a valid capability ({reason}): {FORMS}", quote(capability))]
    Capability {
        /// The capability as given.
        capability: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A grant or ask pattern is malformed.
    #[error("{} in `{field}` is not a valid pattern ({reason}): {hint}", quote(pattern))]
    Pattern {
        /// Where the pattern was written (`filesystem.read`, `network.allow`, `shell.allow`, `ask`).
        field: String,
        /// The pattern as given.
        pattern: String,
        /// What is wrong with it.
        reason: String,
        /// The forms that field accepts.
        hint: &'static str,
    },
    /// Another setting is invalid (`root`, `ungranted`, a `custom` key).
    #[error("`{field}` {reason}")]
    Rules {
        /// The setting (`root`, `ungranted`, `custom.<key>`).
        field: String,
        /// What is wrong and what to write instead.
        reason: String,
    },
}

use crate::host::quote;

/// Show input in a reason: in backticks when plain, quoted and escaped otherwise.
fn shown(s: &str) -> String {
    const MAX: usize = 200;
    if s.chars().count() <= MAX && !s.contains('`') && hidden_char(s).is_none() && !s.contains(['\n', '\t']) {
        format!("`{s}`")
    } else {
        quote(s)
    }
}

/// A control, invisible or bidirectional character that makes text read differently from what
/// runs ([`crate::text::is_invisible`]). Tab and newline are left to the shell parser.
fn hidden_char(s: &str) -> Option<char> {
    s.chars().find(|&c| crate::text::is_invisible(c))
}

/// Check a kind: a lowercase letter, then lowercase letters, digits, `-`, `_` or `.`.
fn check_kind(kind: &str) -> Result<(), String> {
    let mut chars = kind.chars();
    match chars.next() {
        None => Err("the kind before the first `:` is empty".to_string()),
        Some(c) if !c.is_ascii_lowercase() => {
            Err(format!("the kind {} must start with a lowercase letter", quote(kind)))
        }
        Some(_) => {
            match chars.find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'))) {
                Some(c) => Err(format!(
                    "the kind {} holds {c:?}; a kind is lowercase letters, digits, `-`, `_` and `.`",
                    quote(kind)
                )),
                None => Ok(()),
            }
        }
    }
}

/// Parse a declared capability `kind[:access][:target]`.
///
/// `filesystem` needs an access, `read` or `write`; `network` takes an optional `connect`
/// access (`network:api.github.com` and `network:connect:api.github.com` are the same); every
/// other kind takes everything after the first `:` as its target, so `shell:echo a:b` is the
/// command line `echo a:b`. An empty target counts as none. The target is not judged here: a
/// path with a NUL or a host that does not parse is a valid capability that the policy denies.
pub fn parse_capability(s: &str) -> Result<Capability, CapabilityError> {
    let err = |reason: String| CapabilityError::Capability { capability: s.to_string(), reason };
    if s.is_empty() {
        return Err(err("it is empty".to_string()));
    }
    let (kind, rest) = match s.split_once(':') {
        Some((k, r)) => (k, Some(r)),
        None => (s, None),
    };
    check_kind(kind).map_err(err)?;
    let some = |t: &str| (!t.is_empty()).then(|| t.to_string());
    let (access, target) = match kind {
        FILESYSTEM => {
            let Some(rest) = rest else {
                return Err(err("`filesystem` needs an access, `read` or `write`".to_string()));
            };
            let (access, target) = match rest.split_once(':') {
                Some((a, t)) => (a, some(t)),
                None => (rest, None),
            };
            if access != "read" && access != "write" {
                return Err(err(format!("unknown filesystem access {}; use `read` or `write`", quote(access))));
            }
            (Some(access.to_string()), target)
        }
        NETWORK => match rest {
            None => (None, None),
            Some("connect") => (Some("connect".to_string()), None),
            Some(r) => match r.strip_prefix("connect:") {
                Some(t) => (Some("connect".to_string()), some(t)),
                None => (None, some(r)),
            },
        },
        _ => (None, rest.and_then(some)),
    };
    Ok(Capability { kind: kind.to_string(), access, target })
}

/// A path made absolute and normalized before any grant sees it.
///
/// Backslashes count as separators; a relative path is resolved against `root` (itself made
/// absolute the same way, below `/`); `.` and `..` are folded lexically (`..` at `/` stays at
/// `/`), so `/workspace/../etc` is `/etc`; repeated and trailing separators are dropped. The disk
/// is never read: symbolic links are not followed.
///
/// `None` for a path that can never be judged safely: one holding a NUL, one starting with `~`
/// (a home folder this pure function cannot know), or one starting with a drive letter (`C:\`).
pub fn normalize_path(path: &str, root: &str) -> Option<String> {
    fn unjudgeable(p: &str) -> bool {
        let b = p.as_bytes();
        p.contains('\0')
            || p.starts_with('~')
            || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b.len() == 2 || b[2] == b'/'))
    }
    let path = path.replace('\\', "/");
    let root = root.replace('\\', "/");
    if unjudgeable(&path) || unjudgeable(&root) {
        return None;
    }
    let joined = if path.starts_with('/') { path } else { format!("{root}/{path}") };
    let mut out: Vec<&str> = Vec::new();
    for seg in joined.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    Some(format!("/{}", out.join("/")))
}

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
    fn has(&self, key: &str) -> bool {
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
enum WireDecision {
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

fn de_opt_decision<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decision>, D::Error> {
    Ok(Option::<WireDecision>::deserialize(d)?.map(Decision::from))
}

fn de_decision_map<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, Decision>, D::Error> {
    Ok(BTreeMap::<String, WireDecision>::deserialize(d)?.into_iter().map(|(k, v)| (k, v.into())).collect())
}

/// Hints for pattern errors, by field.
const FS_HINT: &str = "write an absolute path glob such as `/workspace/**` (`*` within one segment, `**` across \
                       segments) or one relative to `root`, without `..` or `~`";
const NET_HINT: &str = "write `api.github.com` (that host), `*.openai.com` (its subdomains) or `*` (any host name)";
const SHELL_HINT: &str =
    "write the start of one plain command, such as `git` or `npm test`, or `*` for any command line";
const ASK_HINT: &str = "write a kind (`shell`, `payments`), a kind and access (`filesystem:write`), or a capability \
                        with `*` wildcards in its target (`network:*.stripe.com`, `filesystem:write:/etc/**`), or `*`";

/// Compiled path globs and the grants they came from.
#[derive(Debug, Clone)]
struct PathGlobs {
    set: GlobSet,
    /// For each glob in `set`, the grant as written.
    written: Vec<String>,
}

impl PathGlobs {
    fn build(items: &[(String, &str)], field: &str, root: &str) -> Result<PathGlobs, CapabilityError> {
        let mut builder = GlobSetBuilder::new();
        let mut written = Vec::new();
        for (pattern, origin) in items {
            let err = |reason: String| CapabilityError::Pattern {
                field: origin.to_string(),
                pattern: pattern.clone(),
                reason,
                hint: FS_HINT,
            };
            for glob in path_globs(pattern, root).map_err(err)? {
                let compiled = compile_glob(&glob, GlobOptions::default()).map_err(|e| err(e.kind().to_string()))?;
                builder.add(compiled);
                written.push(pattern.clone());
            }
        }
        let set = builder.build().map_err(|e| CapabilityError::Pattern {
            field: field.to_string(),
            pattern: e.glob().unwrap_or_default().to_string(),
            reason: e.kind().to_string(),
            hint: FS_HINT,
        })?;
        Ok(PathGlobs { set, written })
    }

    /// The first grant (in written order) matching a normalized path.
    fn first(&self, path: &str) -> Option<&str> {
        self.set.matches(path).into_iter().min().and_then(|i| self.written.get(i)).map(String::as_str)
    }
}

/// The glob texts for one filesystem pattern: absolute, `.` segments and repeated `/` dropped.
/// `dir/**` also yields `dir`, so `/workspace/**` covers the workspace itself.
fn path_globs(pattern: &str, root: &str) -> Result<Vec<String>, String> {
    if pattern.is_empty() {
        return Err("it is empty".to_string());
    }
    if pattern.contains('\0') {
        return Err("it holds a NUL byte".to_string());
    }
    if pattern.starts_with('~') {
        return Err("`~` is not expanded here; write the absolute path".to_string());
    }
    let b = pattern.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Err("a drive letter; write a path below `/`".to_string());
    }
    let abs =
        if pattern.starts_with('/') { pattern.to_string() } else { format!("{}/{pattern}", globset::escape(root)) };
    let mut segs = Vec::new();
    for seg in abs.split('/') {
        match seg {
            "" | "." => {}
            ".." => return Err("`..` is not allowed; write the path it stands for".to_string()),
            s => segs.push(s),
        }
    }
    let glob = format!("/{}", segs.join("/"));
    let mut out = vec![glob.clone()];
    if let Some(dir) = glob.strip_suffix("/**") {
        out.push(if dir.is_empty() { "/".to_string() } else { dir.to_string() });
    }
    Ok(out)
}

/// A network grant.
#[derive(Debug, Clone)]
struct HostGrant {
    pattern: HostPattern,
    written: String,
}

/// A shell grant: `*`, or the words a command line must start with.
#[derive(Debug, Clone)]
enum ShellGrant {
    Any,
    Prefix { words: Vec<String>, written: String },
}

impl ShellGrant {
    fn parse(pattern: &str) -> Result<ShellGrant, CapabilityError> {
        let err = |reason: &str| CapabilityError::Pattern {
            field: "shell.allow".to_string(),
            pattern: pattern.to_string(),
            reason: reason.to_string(),
            hint: SHELL_HINT,
        };
        let text = pattern.trim();
        if text == "*" {
            return Ok(ShellGrant::Any);
        }
        if text.is_empty() {
            return Err(err("it is empty"));
        }
        if hidden_char(text).is_some() {
            return Err(err("it holds a control or invisible character"));
        }
        let words = plain_command(text).map_err(|why| err(&format!("it is not one plain command: {why}")))?;
        if words.iter().any(|w| w.1) {
            return Err(err(
                "a wildcard is only allowed as the whole grant `*`; `git` already covers every git command",
            ));
        }
        Ok(ShellGrant::Prefix { words: words.into_iter().map(|w| w.0).collect(), written: pattern.to_string() })
    }
}

/// The words of a command line that is one plain simple command (value, and whether bash would
/// glob-expand it), or why it is not: not understood, compound (chains, pipes, redirects,
/// substitutions), several commands, leading variable assignments, or a non-static word.
fn plain_command(line: &str) -> Result<Vec<(String, bool)>, &'static str> {
    if hidden_char(line).is_some() {
        return Err("it holds a control or invisible character");
    }
    let a = wicket_shell::analyze(line);
    if !a.understood {
        return Err("it could not be fully understood");
    }
    if a.compound || a.commands.len() != 1 {
        return Err("it chains, pipes, redirects or substitutes");
    }
    let Some(cmd) = a.commands.first() else {
        return Err("it holds no command");
    };
    if !cmd.assignments.is_empty() {
        return Err("it sets variables for the command");
    }
    if !cmd.redirects.is_empty() {
        return Err("it chains, pipes, redirects or substitutes");
    }
    if cmd.words.is_empty() {
        return Err("it holds no command");
    }
    cmd.words
        .iter()
        .map(|w| w.value.clone().map(|v| (v, w.glob)))
        .collect::<Option<Vec<_>>>()
        .ok_or("it expands a variable or substitution")
}

/// What an ask pattern matches.
#[derive(Debug, Clone)]
enum AskMatch {
    /// `*`: every capability.
    Everything,
    /// A bare kind: every capability of that kind.
    Kind(String),
    /// `filesystem:<access>[:<glob>]`; access `None` for `*`.
    Filesystem { access: Option<String>, globs: Option<GlobSet> },
    /// `network:<host pattern>`; `None` for `*` (any host, IP addresses and names that do not
    /// parse included).
    Network(Option<HostPattern>),
    /// `shell:<start of a command line>` with `*` wildcards.
    Shell(String),
    /// `<kind>:<target>` with `*` wildcards, for `code` and custom kinds.
    Target { kind: String, target: String },
}

/// One ask pattern.
#[derive(Debug, Clone)]
struct AskPattern {
    matcher: AskMatch,
    written: String,
}

impl AskPattern {
    fn parse(pattern: &str, root: &str) -> Result<AskPattern, CapabilityError> {
        let err = |reason: String| CapabilityError::Pattern {
            field: "ask".to_string(),
            pattern: pattern.to_string(),
            reason,
            hint: ASK_HINT,
        };
        let written = pattern.to_string();
        if pattern == "*" {
            return Ok(AskPattern { matcher: AskMatch::Everything, written });
        }
        let (kind, rest) = match pattern.split_once(':') {
            Some((k, r)) => (k, Some(r)),
            None => (pattern, None),
        };
        check_kind(kind).map_err(err)?;
        let Some(rest) = rest.filter(|r| !r.is_empty()) else {
            return Ok(AskPattern { matcher: AskMatch::Kind(kind.to_string()), written });
        };
        let matcher = match kind {
            FILESYSTEM => {
                let (access, target) = match rest.split_once(':') {
                    Some((a, t)) => (a, Some(t).filter(|t| !t.is_empty())),
                    None => (rest, None),
                };
                let access = match access {
                    "read" | "write" => Some(access.to_string()),
                    "*" => None,
                    other => {
                        return Err(err(format!(
                            "unknown filesystem access {}; use `read`, `write` or `*`",
                            quote(other)
                        )))
                    }
                };
                let globs = match target {
                    None => None,
                    Some(t) => {
                        let mut b = GlobSetBuilder::new();
                        for g in path_globs(t, root).map_err(&err)? {
                            b.add(compile_glob(&g, GlobOptions::default()).map_err(|e| err(e.kind().to_string()))?);
                        }
                        Some(b.build().map_err(|e| err(e.kind().to_string()))?)
                    }
                };
                AskMatch::Filesystem { access, globs }
            }
            NETWORK => {
                let host = rest.strip_prefix("connect:").unwrap_or(rest);
                if host == "*" || host == "connect" {
                    AskMatch::Network(None)
                } else {
                    AskMatch::Network(Some(HostPattern::parse(host).map_err(|e| err(url_reason(e)))?))
                }
            }
            SHELL => {
                let folded = fold_spaces(rest);
                if folded.is_empty() || folded == "*" {
                    AskMatch::Kind(SHELL.to_string())
                } else {
                    AskMatch::Shell(folded)
                }
            }
            _ => AskMatch::Target { kind: kind.to_string(), target: rest.to_string() },
        };
        Ok(AskPattern { matcher, written })
    }

    fn matches(&self, cap: &Capability, subject: &Subject) -> bool {
        match &self.matcher {
            AskMatch::Everything => true,
            AskMatch::Kind(k) => cap.kind == *k,
            AskMatch::Filesystem { access, globs } => {
                cap.kind == FILESYSTEM
                    && access.as_ref().is_none_or(|a| cap.access.as_ref() == Some(a))
                    && match (globs, subject) {
                        (None, _) => true,
                        (Some(g), Subject::Path(p)) => g.is_match(p),
                        // A capability whose path cannot be judged: ask patterns fail closed.
                        (Some(_), _) => true,
                    }
            }
            AskMatch::Network(pattern) => {
                cap.kind == NETWORK
                    && match (pattern, subject) {
                        (None, _) => true,
                        // Looser than a grant on purpose: an internationalised name is matched
                        // by its ASCII form, so asking is never skipped for a spelling.
                        (Some(p), Subject::Host(Host::Name { ascii, .. })) => {
                            p.matches(&Host::Name { ascii: ascii.clone(), unicode: false })
                        }
                        (Some(p), Subject::Host(ip)) => p.matches(ip),
                        (Some(_), _) => true,
                    }
            }
            AskMatch::Shell(pattern) => cap.kind == SHELL && shell_ask_matches(pattern, cap.target().unwrap_or("")),
            AskMatch::Target { kind, target } => cap.kind == *kind && cap.target().is_some_and(|t| wildcard(target, t)),
        }
    }
}

/// Whether a shell ask pattern matches a command line: the line as written, or any simple
/// command in it, or any command hidden behind wrappers (`sudo`, `env`, `bash -c` …), starts with
/// the pattern at a word boundary. A line that cannot be fully analysed matches (fails closed).
fn shell_ask_matches(pattern: &str, line: &str) -> bool {
    let starts = |c: &str| wildcard(pattern, c) || wildcard(&format!("{pattern} *"), c);
    if starts(&fold_spaces(line)) {
        return true;
    }
    let a = wicket_shell::analyze(line);
    if !a.understood {
        return true;
    }
    for cmd in &a.commands {
        if starts(&cmd.canonical()) {
            return true;
        }
        let u = wicket_shell::strip_wrappers(cmd);
        if !u.understood {
            return true;
        }
        let hit = u.argvs.iter().any(|argv| {
            let text: Vec<&str> = argv.iter().map(|w| w.value.as_deref().unwrap_or(&w.raw)).collect();
            starts(&text.join(" "))
        });
        if hit || u.nested.iter().any(|n| starts(&n.canonical())) {
            return true;
        }
    }
    false
}

/// Whitespace runs folded to one space, ends trimmed.
fn fold_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `*` matches any run of characters (including `/` and spaces); everything else is literal.
fn wildcard(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// The reason text of a host pattern error.
fn url_reason(e: UrlError) -> String {
    match e {
        UrlError::Pattern { reason, .. } | UrlError::Host { reason, .. } => reason,
        other => other.to_string(),
    }
}

/// A capability's target reduced to the form grants and ask patterns see.
#[derive(Debug, Clone)]
enum Subject {
    Path(String),
    Host(Host),
    None,
}

/// What the grants say about one capability, before ask patterns.
enum Outcome {
    /// A grant covers it.
    Granted(String),
    /// An explicit decision (`code`, `custom`) and where it came from.
    Decided(Decision, String),
    /// No grant covers it: why, and what a person would add.
    Ungranted { why: String, fix: String },
    /// It can never be judged safely: deny, whatever `ungranted` says.
    Refused(String),
}

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
