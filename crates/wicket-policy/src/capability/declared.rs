//! A declared capability: its parsing, its canonical path form and its errors.

use std::fmt;
use std::str::FromStr;

use super::*;

/// One declared capability, parsed from `kind[:access][:target]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Capability {
    pub(super) kind: String,
    pub(super) access: Option<String>,
    pub(super) target: Option<String>,
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

/// Show input in a reason: in backticks when plain, quoted and escaped otherwise.
pub(super) fn shown(s: &str) -> String {
    const MAX: usize = 200;
    if s.chars().count() <= MAX && !s.contains('`') && hidden_char(s).is_none() && !s.contains(['\n', '\t']) {
        format!("`{s}`")
    } else {
        quote(s)
    }
}

/// A control, invisible or bidirectional character that makes text read differently from what
/// runs ([`crate::text::is_invisible`]). Tab and newline are left to the shell parser.
pub(super) fn hidden_char(s: &str) -> Option<char> {
    s.chars().find(|&c| crate::text::is_invisible(c))
}

/// Check a kind: a lowercase letter, then lowercase letters, digits, `-`, `_` or `.`.
pub(super) fn check_kind(kind: &str) -> Result<(), String> {
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
