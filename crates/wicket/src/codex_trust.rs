//! Codex's hook trust. Codex runs a user or project hook only when the user's `config.toml`
//! holds `[hooks.state."<key>"] trusted_hash` equal to the hash of the hook's normalized
//! definition; otherwise it skips the hook without a word, and wicket is never asked. This
//! module computes key and hash by Codex's rule (codex-rs `hooks` discovery and `config`
//! fingerprint, checked against what Codex 0.171 itself reports), records trust for wicket's
//! own handlers, reads it back for `wicket doctor`, and asks a real `codex app-server` to
//! confirm: the one the person names, else one in root's folders ([`wicket_sandbox::helper`]),
//! never one found elsewhere on `PATH` (a sandboxed command may have planted it there, and
//! this codex runs on the host).
//!
//! The rule: the key is `<absolute hooks file>:<event in snake case>:<group index>:<handler
//! index>`; the hash is `sha256:` and the hex SHA-256 of the compact JSON, keys sorted at every
//! level, of `{"event_name", "matcher" (absent when unset), "hooks": [the one handler]}`, where
//! the handler is normalized: `type`, `command`, `timeout` always present (default 600 s, at
//! least 1), `async` always present (default false), `statusMessage` only when set.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde_json::{json, Map, Value};

/// How long `codex app-server` may take to list its hooks.
const CODEX_WAIT: Duration = Duration::from_secs(20);

/// One of wicket's handlers in a Codex hooks file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handler {
    /// Codex's state key for it.
    pub key: String,
    /// The hash Codex trusts it by, or why it cannot be computed.
    pub hash: Result<String, String>,
}

/// Codex's folder: `$CODEX_HOME`, else `~/.codex`.
pub fn codex_home() -> Option<PathBuf> {
    match std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty()) {
        Some(h) => Some(PathBuf::from(h)),
        None => std::env::var_os("HOME").filter(|h| !h.is_empty()).map(|h| PathBuf::from(h).join(".codex")),
    }
}

/// Codex's name for an event in state keys and hashes (`PreToolUse` → `pre_tool_use`); `None`
/// for an event Codex does not read.
fn event_label(event: &str) -> Option<&'static str> {
    Some(match event {
        "PreToolUse" => "pre_tool_use",
        "PermissionRequest" => "permission_request",
        "PostToolUse" => "post_tool_use",
        "PreCompact" => "pre_compact",
        "PostCompact" => "post_compact",
        "SessionStart" => "session_start",
        "UserPromptSubmit" => "user_prompt_submit",
        "Stop" => "stop",
        _ => return None,
    })
}

/// Every object's keys sorted, at every level (Codex hashes this canonical form).
fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), canonical(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// The hash Codex trusts a command handler by, or why it cannot be computed here (a field
/// whose effect on Codex's hash wicket does not know).
pub fn hook_hash(label: &str, matcher: Option<&str>, handler: &Value) -> Result<String, String> {
    let Value::Object(h) = handler else { return Err("the handler is not a JSON object".into()) };
    if h.get("type").and_then(Value::as_str) != Some("command") {
        return Err("not a command handler".into());
    }
    if let Some(k) = h
        .keys()
        .find(|k| !matches!(k.as_str(), "type" | "command" | "timeout" | "async" | "statusMessage" | "commandWindows"))
    {
        return Err(format!("its field `{k}` is not one wicket knows how Codex hashes"));
    }
    let command = h.get("command").and_then(Value::as_str).ok_or("no command")?;
    let timeout = match h.get("timeout") {
        None | Some(Value::Null) => 600,
        Some(t) => t.as_u64().ok_or("its timeout is not a whole number of seconds")?.max(1),
    };
    let is_async = match h.get("async") {
        None | Some(Value::Null) => false,
        Some(a) => a.as_bool().ok_or("its async is not true or false")?,
    };
    let mut norm = json!({"type": "command", "command": command, "timeout": timeout, "async": is_async});
    match h.get("statusMessage") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => norm["statusMessage"] = json!(s),
        Some(_) => return Err("its statusMessage is not a string".into()),
    }
    // Codex ignores the matcher of these events.
    let matcher = if matches!(label, "user_prompt_submit" | "stop") { None } else { matcher };
    let mut identity = json!({"event_name": label, "hooks": [norm]});
    if let Some(m) = matcher {
        identity["matcher"] = json!(m);
    }
    let text = serde_json::to_string(&canonical(&identity)).map_err(|e| e.to_string())?;
    Ok(format!("sha256:{}", wicket::trust::sha256_hex(text.as_bytes())))
}

/// wicket's handlers (commands holding `marker`) in a Codex hooks file's JSON, with Codex's key
/// and hash for each. `file` is the hooks file as Codex names it (absolute).
pub fn wicket_handlers(file: &Path, hooks_json: &Value, marker: &str) -> Vec<Handler> {
    let mut out = Vec::new();
    let Some(Value::Object(events)) = hooks_json.get("hooks") else { return out };
    for (event, groups) in events {
        let Some(label) = event_label(event) else { continue };
        for (gi, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group.get("matcher").and_then(Value::as_str);
            for (hi, handler) in group.get("hooks").and_then(Value::as_array).into_iter().flatten().enumerate() {
                let ours = handler.get("command").and_then(Value::as_str).is_some_and(|c| c.contains(marker));
                if ours {
                    out.push(Handler {
                        key: format!("{}:{label}:{gi}:{hi}", file.display()),
                        hash: hook_hash(label, matcher, handler),
                    });
                }
            }
        }
    }
    out
}

/// What Codex's user config records for one key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    /// `enabled` (absent means on).
    pub enabled: Option<bool>,
    /// `trusted_hash`.
    pub trusted_hash: Option<String>,
}

/// Read `config.toml` (a missing file is an empty one); a file that does not parse is an error
/// naming it and the position.
pub(crate) fn read_config(file: &Path) -> Result<(String, toml_edit::DocumentMut)> {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", file.display())),
    };
    let doc = text.parse::<toml_edit::DocumentMut>().map_err(|e| {
        let (line, col) = e
            .span()
            .map(|s| {
                let before = &text[..s.start.min(text.len())];
                (before.matches('\n').count() + 1, before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1)
            })
            .unwrap_or((0, 0));
        anyhow::anyhow!(
            "{}:{line}:{col}: not valid TOML ({}); fix it first, nothing was written",
            file.display(),
            e.message()
        )
    })?;
    Ok((text, doc))
}

/// The recorded state of `key` in Codex's `config.toml`.
pub fn state(config: &Path, key: &str) -> Result<State> {
    let (_, doc) = read_config(config)?;
    let entry = doc.get("hooks").and_then(|h| h.get("state")).and_then(|s| s.get(key));
    Ok(State {
        enabled: entry.and_then(|e| e.get("enabled")).and_then(|v| v.as_bool()),
        trusted_hash: entry.and_then(|e| e.get("trusted_hash")).and_then(|v| v.as_str()).map(str::to_string),
    })
}

/// `config.toml` with `trusted_hash` set for each `(key, hash)` (everything else in the file
/// kept as it was), or `None` when every key is trusted already.
pub fn with_trust(config: &Path, trust: &[(String, String)]) -> Result<Option<(String, String)>> {
    let (before, mut doc) = read_config(config)?;
    let hooks = doc.entry("hooks").or_insert(toml_edit::table());
    implicit_when_empty(hooks);
    let Some(hooks) = hooks.as_table_like_mut() else {
        bail!("{}: `hooks` is not a table; fix it first, nothing was written", config.display())
    };
    let state = hooks.entry("state").or_insert(toml_edit::table());
    implicit_when_empty(state);
    let Some(state) = state.as_table_like_mut() else {
        bail!("{}: `hooks.state` is not a table; fix it first, nothing was written", config.display())
    };
    let mut changed = false;
    for (key, hash) in trust {
        let entry = state.entry(key).or_insert(toml_edit::table());
        let Some(entry) = entry.as_table_like_mut() else {
            bail!("{}: `hooks.state.\"{key}\"` is not a table; fix it first, nothing was written", config.display())
        };
        if entry.get("trusted_hash").and_then(|v| v.as_str()) != Some(hash.as_str()) {
            entry.insert("trusted_hash", toml_edit::value(hash.as_str()));
            changed = true;
        }
    }
    Ok(changed.then(|| (before, doc.to_string())))
}

/// A table without entries of its own prints no header (no empty `[hooks]` where the file had none).
pub(crate) fn implicit_when_empty(item: &mut toml_edit::Item) {
    if let Some(t) = item.as_table_mut() {
        if t.is_empty() {
            t.set_implicit(true);
        }
    }
}

/// One hook as a real `codex app-server` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Codex's state key.
    pub key: String,
    /// The hash Codex computes now.
    pub current_hash: String,
    /// `trusted`, `untrusted`, `modified` or `managed`.
    pub trust_status: String,
    /// Whether Codex would run it when trusted.
    pub enabled: bool,
}

/// A codex wicket may run on the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodexBin {
    /// One from root's folders, run as a helper (by its real path, `PATH` of root's folders).
    Trusted(wicket_sandbox::helper::Helper),
    /// The file the person named (`--codex`), run as they would run it.
    Named(PathBuf),
}

impl CodexBin {
    /// The file that runs.
    pub fn path(&self) -> &Path {
        match self {
            CodexBin::Trusted(h) => h.path(),
            CodexBin::Named(p) => p,
        }
    }

    /// The file that runs, for messages.
    pub fn display(&self) -> std::path::Display<'_> {
        self.path().display()
    }

    fn command(&self) -> Command {
        match self {
            CodexBin::Trusted(h) => h.command(),
            CodexBin::Named(p) => Command::new(p),
        }
    }
}

/// The hooks a real Codex sees from `cwd`, and its version, asked through `codex app-server`
/// (`initialize`, then `hooks/list`). Errors say what failed.
pub fn ask_codex(bin: &CodexBin, cwd: &Path) -> Result<(String, Vec<Listed>)> {
    let codex = bin.path();
    let mut child = bin
        .command()
        .arg("app-server")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("cannot start {} app-server", codex.display()))?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        bail!("no pipes to {} app-server", codex.display());
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = std::time::Instant::now() + CODEX_WAIT;
    let reply = |id: u64| -> Result<Value> {
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = rx
                .recv_timeout(left)
                .map_err(|_| anyhow::anyhow!("codex app-server gave no answer within {} s", CODEX_WAIT.as_secs()))?;
            let Ok(msg) = serde_json::from_str::<Value>(&line) else { continue };
            if msg.get("id").and_then(Value::as_u64) != Some(id) {
                continue;
            }
            if let Some(err) = msg.get("error") {
                bail!("codex app-server refused: {err}");
            }
            return Ok(msg.get("result").cloned().unwrap_or(Value::Null));
        }
    };
    let result = (|| -> Result<(String, Vec<Listed>)> {
        let send = |stdin: &mut std::process::ChildStdin, v: Value| -> Result<()> {
            writeln!(stdin, "{v}").context("cannot write to codex app-server")?;
            stdin.flush().context("cannot write to codex app-server")
        };
        send(
            &mut stdin,
            json!({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "wicket", "version": env!("CARGO_PKG_VERSION")}}}),
        )?;
        let init = reply(1)?;
        // The user agent reads `<client>/<codex version> (…)`.
        let version = init
            .get("userAgent")
            .and_then(Value::as_str)
            .and_then(|ua| ua.split_whitespace().next())
            .and_then(|first| first.split('/').nth(1))
            .unwrap_or("?")
            .to_string();
        send(&mut stdin, json!({"method": "initialized"}))?;
        send(&mut stdin, json!({"id": 2, "method": "hooks/list", "params": {"cwds": [cwd]}}))?;
        let listed = reply(2)?;
        let mut out = Vec::new();
        for entry in listed.get("data").and_then(Value::as_array).into_iter().flatten() {
            for h in entry.get("hooks").and_then(Value::as_array).into_iter().flatten() {
                let s = |k: &str| h.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                out.push(Listed {
                    key: s("key"),
                    current_hash: s("currentHash"),
                    trust_status: s("trustStatus"),
                    enabled: h.get("enabled").and_then(Value::as_bool).unwrap_or(true),
                });
            }
        }
        Ok((version, out))
    })();
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the real Codex 0.171.0 reported (`hooks/list`, `currentHash`) for the hook
    /// `wicket init codex` wrote with this command.
    #[test]
    fn hash_matches_what_real_codex_reports() {
        let handler = json!({"type": "command", "command": "/work/main/target/debug/wicket hook codex", "timeout": 10});
        assert_eq!(
            hook_hash("pre_tool_use", Some("^(Bash|apply_patch|mcp__.*)$"), &handler),
            Ok("sha256:bf0585ba396ac529a6a2c9a5fea865863b939ba58a395b54fd6386edae7fba38".to_string())
        );
        // The defaults are part of the identity: an explicit 600 s and false equal absence.
        let a = json!({"type": "command", "command": "x"});
        let b = json!({"type": "command", "command": "x", "timeout": 600, "async": false, "commandWindows": "y"});
        assert_eq!(hook_hash("pre_tool_use", None, &a), hook_hash("pre_tool_use", None, &b));
        // The matcher, the event and the command each change it.
        assert_ne!(hook_hash("pre_tool_use", Some("x"), &a), hook_hash("pre_tool_use", None, &a));
        assert_ne!(hook_hash("permission_request", None, &a), hook_hash("pre_tool_use", None, &a));
        assert_ne!(
            hook_hash("pre_tool_use", None, &json!({"type": "command", "command": "y"})),
            hook_hash("pre_tool_use", None, &a)
        );
        // Stop ignores its matcher, as Codex does.
        assert_eq!(hook_hash("stop", Some("x"), &a), hook_hash("stop", None, &a));
        // What wicket cannot be sure of, it refuses to guess.
        assert!(hook_hash("pre_tool_use", None, &json!({"type": "command", "command": "x", "visibilityHint": "v"}))
            .is_err());
        assert!(hook_hash("pre_tool_use", None, &json!({"type": "prompt"})).is_err());
    }

    #[test]
    fn keys_name_file_event_group_and_handler() {
        let v = json!({"hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "other"}]},
                {"matcher": "^x$", "hooks": [{"type": "command", "command": "other"}, {"type": "command", "command": "/b/wicket hook codex"}]}
            ],
            "PermissionRequest": [{"hooks": [{"type": "command", "command": "/b/wicket hook codex"}]}],
            "Unknown": [{"hooks": [{"type": "command", "command": "/b/wicket hook codex"}]}]
        }});
        let keys: Vec<String> =
            wicket_handlers(Path::new("/h/hooks.json"), &v, " hook codex").into_iter().map(|h| h.key).collect();
        assert_eq!(keys, ["/h/hooks.json:permission_request:0:0", "/h/hooks.json:pre_tool_use:1:1"]);
    }

    #[test]
    fn trust_is_written_into_the_existing_file_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(
            &file,
            "# mine\nmodel = \"o3\"\n\n[hooks.state.\"/h/hooks.json:pre_tool_use:0:0\"]\nenabled = false\n",
        )
        .unwrap();
        let trust = vec![("/h/hooks.json:pre_tool_use:0:0".to_string(), "sha256:ab".to_string())];
        let (_, after) = with_trust(&file, &trust).unwrap().unwrap();
        assert!(after.starts_with("# mine\nmodel = \"o3\"\n"), "{after}");
        assert!(!after.contains("[hooks]\n"), "{after}");
        std::fs::write(&file, &after).unwrap();
        let s = state(&file, "/h/hooks.json:pre_tool_use:0:0").unwrap();
        assert_eq!(s, State { enabled: Some(false), trusted_hash: Some("sha256:ab".into()) });
        assert_eq!(with_trust(&file, &trust).unwrap(), None, "idempotent");
        // A new file.
        let fresh = dir.path().join("new.toml");
        let (_, text) = with_trust(&fresh, &trust).unwrap().unwrap();
        assert_eq!(text, "[hooks.state.\"/h/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:ab\"\n");
        // A broken file is named with its position.
        std::fs::write(&file, "model = \"o3\"\n[hooks\n").unwrap();
        let err = with_trust(&file, &trust).unwrap_err().to_string();
        assert!(err.contains("config.toml:2:"), "{err}");
    }
}
