//! An MCP server's identity for the gateway (`wicket mcp`): the name its tools are decided
//! under (`mcp__<name>__<tool>`), and the pinned form of its definition, which a changed
//! command or a loosened flag no longer matches. Pure.

use std::ffi::OsString;

/// A server name that would break tool names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--name {0:?} is not a server name: use 1-64 letters, digits, '-' or '_' (no \"__\", which separates server and tool in mcp__<server>__<tool>)")]
pub struct BadName(pub String);

/// A name for the server from its command: the first word that is not a flag, nor a program
/// that runs code its operands name (`node`, `npx`, `python3`, `uvx` …, the catalogue's
/// `runtime` records) or one of their launching sub-commands (`uv run`, `pnpm dlx`), without
/// folders, scope, version or extension.
pub fn default_name(command: &[OsString]) -> String {
    let launches = |word: &str| {
        wicket_programs::records().filter(|p| p.runtime).any(|p| {
            p.names.contains(&word)
                || p.role.launch().is_some_and(|l| l.subs.iter().any(|s| s.path.first() == Some(&word)))
        })
    };
    let words: Vec<String> = command.iter().map(|w| w.to_string_lossy().into_owned()).collect();
    let pick = words
        .iter()
        .find(|w| {
            let base = w.rsplit('/').next().unwrap_or(w);
            !launches(base) && !w.starts_with('-')
        })
        .or(words.first());
    let Some(word) = pick else { return "server".into() };
    let mut base = word.rsplit('/').next().unwrap_or(word).to_string();
    if let Some((b, _)) = base.split_once('@').filter(|(b, _)| !b.is_empty()) {
        base = b.to_string();
    }
    for ext in [".js", ".mjs", ".cjs", ".ts", ".py"] {
        if let Some(b) = base.strip_suffix(ext) {
            base = b.to_string();
        }
    }
    let clean: String =
        base.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '-' }).take(64).collect();
    let clean = clean.trim_matches('-').to_string();
    if clean.is_empty() {
        "server".into()
    } else {
        clean
    }
}

/// A server name makes the tool names `mcp__<name>__<tool>`: letters, digits, `-` and single `_`.
pub fn check_name(name: &str) -> Result<(), BadName> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !name.contains("__")
        && !name.starts_with('_')
        && !name.ends_with('_');
    if !ok {
        return Err(BadName(name.to_string()));
    }
    Ok(())
}

/// The pinned form of a server definition: its name, its exact argv bytes, and the flags that
/// loosen its confinement, after a version tag.
pub fn definition_hash(name: &str, command: &[OsString], sandboxed: bool, network: bool) -> String {
    let mut bytes = format!("wicket-mcp-server-v1\n{name}\nsandbox={sandboxed}\nnetwork={network}\n").into_bytes();
    for arg in command {
        let a = arg.as_encoded_bytes();
        bytes.extend_from_slice(&(a.len() as u64).to_le_bytes());
        bytes.extend_from_slice(a);
    }
    crate::trust::sha256_hex(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_skip_launchers() {
        let n = |words: &[&str]| default_name(&words.iter().map(OsString::from).collect::<Vec<_>>());
        assert_eq!(n(&["npx", "-y", "@modelcontextprotocol/server-filesystem@2026.1.1", "/x"]), "server-filesystem");
        assert_eq!(n(&["node", "/opt/srv/dist/index.js"]), "index");
        assert_eq!(n(&["/usr/bin/python3", "my_server.py"]), "my-server");
        assert_eq!(n(&["github-mcp-server", "stdio"]), "github-mcp-server");
        assert_eq!(n(&["node"]), "node");
    }

    #[test]
    fn names_that_would_break_tool_names_are_refused() {
        for bad in ["", "a__b", "_a", "a_", "a b", "a/b", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        for good in ["fs", "git-hub", "my_server", "S3"] {
            assert!(check_name(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn the_pinned_hash_covers_argv_bytes_and_loosening_flags() {
        let cmd = |w: &[&str]| w.iter().map(OsString::from).collect::<Vec<_>>();
        let base = definition_hash("fs", &cmd(&["node", "a b"]), true, false);
        assert_ne!(base, definition_hash("fs", &cmd(&["node", "a", "b"]), true, false));
        assert_ne!(base, definition_hash("fs", &cmd(&["node", "a b"]), false, false));
        assert_ne!(base, definition_hash("fs", &cmd(&["node", "a b"]), true, true));
        assert_ne!(base, definition_hash("gh", &cmd(&["node", "a b"]), true, false));
        assert_eq!(base, definition_hash("fs", &cmd(&["node", "a b"]), true, false));
    }
}
