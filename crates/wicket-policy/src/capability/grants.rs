//! Grants and ask patterns compiled, and how one matches a declared capability.

use globset::{GlobSet, GlobSetBuilder};

use crate::host::{Host, HostPattern, UrlError};
use crate::rules::{compile_glob, GlobOptions};
use crate::verdict::Decision;

use super::*;

/// Hints for pattern errors, by field.
pub(super) const FS_HINT: &str =
    "write an absolute path glob such as `/workspace/**` (`*` within one segment, `**` across \
                       segments) or one relative to `root`, without `..` or `~`";
pub(super) const NET_HINT: &str =
    "write `api.github.com` (that host), `*.openai.com` (its subdomains) or `*` (any host name)";
pub(super) const SHELL_HINT: &str =
    "write the start of one plain command, such as `git` or `npm test`, or `*` for any command line";
pub(super) const ASK_HINT: &str =
    "write a kind (`shell`, `payments`), a kind and access (`filesystem:write`), or a capability \
                        with `*` wildcards in its target (`network:*.stripe.com`, `filesystem:write:/etc/**`), or `*`";

/// Compiled path globs and the grants they came from.
#[derive(Debug, Clone)]
pub(super) struct PathGlobs {
    pub(super) set: GlobSet,
    /// For each glob in `set`, the grant as written.
    pub(super) written: Vec<String>,
}

impl PathGlobs {
    pub(super) fn build(items: &[(String, &str)], field: &str, root: &str) -> Result<PathGlobs, CapabilityError> {
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
    pub(super) fn first(&self, path: &str) -> Option<&str> {
        self.set.matches(path).into_iter().min().and_then(|i| self.written.get(i)).map(String::as_str)
    }
}

/// The glob texts for one filesystem pattern: absolute, `.` segments and repeated `/` dropped.
/// `dir/**` also yields `dir`, so `/workspace/**` covers the workspace itself.
pub(super) fn path_globs(pattern: &str, root: &str) -> Result<Vec<String>, String> {
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
pub(super) struct HostGrant {
    pub(super) pattern: HostPattern,
    pub(super) written: String,
}

/// A shell grant: `*`, or the words a command line must start with.
#[derive(Debug, Clone)]
pub(super) enum ShellGrant {
    Any,
    Prefix { words: Vec<String>, written: String },
}

impl ShellGrant {
    pub(super) fn parse(pattern: &str) -> Result<ShellGrant, CapabilityError> {
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
pub(super) fn plain_command(line: &str) -> Result<Vec<(String, bool)>, &'static str> {
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
pub(super) enum AskMatch {
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
pub(super) struct AskPattern {
    pub(super) matcher: AskMatch,
    pub(super) written: String,
}

impl AskPattern {
    pub(super) fn parse(pattern: &str, root: &str) -> Result<AskPattern, CapabilityError> {
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

    pub(super) fn matches(&self, cap: &Capability, subject: &Subject) -> bool {
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
pub(super) fn shell_ask_matches(pattern: &str, line: &str) -> bool {
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
pub(super) fn fold_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `*` matches any run of characters (including `/` and spaces); everything else is literal.
pub(super) fn wildcard(pattern: &str, text: &str) -> bool {
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
pub(super) fn url_reason(e: UrlError) -> String {
    match e {
        UrlError::Pattern { reason, .. } | UrlError::Host { reason, .. } => reason,
        other => other.to_string(),
    }
}

/// A capability's target reduced to the form grants and ask patterns see.
#[derive(Debug, Clone)]
pub(super) enum Subject {
    Path(String),
    Host(Host),
    None,
}

/// What the grants say about one capability, before ask patterns.
pub(super) enum Outcome {
    /// A grant covers it.
    Granted(String),
    /// An explicit decision (`code`, `custom`) and where it came from.
    Decided(Decision, String),
    /// No grant covers it: why, and what a person would add.
    Ungranted { why: String, fix: String },
    /// It can never be judged safely: deny, whatever `ungranted` says.
    Refused(String),
}
