//! `wicket init claude [--user|--project]`: add wicket's hook to Claude Code's settings file.
//!
//! The hard question: how not to break a person's settings? The file is read and must be a
//! JSON object (else nothing is written); every other key and hook stays; wicket's own entry is
//! found by its command (` hook claude`) and replaced, so running `init` twice changes nothing;
//! the change is shown before it is written; the new file is written next to the old one and
//! renamed over it, so a crash leaves either file, never half of one.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use serde_json::{json, Map, Value};

/// `wicket init <agent>`.
#[derive(Args)]
pub struct InitArgs {
    #[command(subcommand)]
    pub agent: InitAgent,
}

/// The agents wicket can be set up for.
#[derive(Subcommand)]
pub enum InitAgent {
    /// Add `wicket hook claude` to Claude Code's settings (~/.claude/settings.json by default).
    Claude(InitClaudeArgs),
}

/// The flags of `wicket init claude`.
#[derive(Args)]
pub struct InitClaudeArgs {
    /// Write the user's settings, ~/.claude/settings.json (the default).
    #[arg(long, conflicts_with = "project")]
    pub user: bool,
    /// Write the project's settings, <root>/.claude/settings.json.
    #[arg(long)]
    pub project: bool,
    /// The project root for --project (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Also answer Claude Code's permission prompts (the PermissionRequest event).
    #[arg(long)]
    pub permission_request: bool,
    /// Pass --sandbox-commands to the hook: allowed Bash commands run inside `wicket run`.
    #[arg(long)]
    pub sandbox_commands: bool,
    /// The command Claude Code runs (default: this wicket binary's full path, `hook claude`).
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
    /// Show the change, write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// The tools the hook judges, as an anchored matcher (Claude Code reads any matcher with
/// characters beyond names and `|` as an unanchored regex: `Edit` alone would match more).
pub const MATCHER: &str = "^(Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|WebFetch|WebSearch|mcp__.*)$";

/// Seconds Claude Code waits for the hook (a timeout lets the call through, so keep it short
/// but far above the hook's milliseconds).
pub const TIMEOUT_SECS: u64 = 10;

pub fn run(args: &InitArgs) -> Result<ExitCode> {
    match &args.agent {
        InitAgent::Claude(a) => claude(a),
    }
}

fn claude(args: &InitClaudeArgs) -> Result<ExitCode> {
    let file = if args.project {
        let root = match &args.root {
            Some(r) => r.clone(),
            None => std::env::current_dir().context("cannot read the current folder")?,
        };
        root.join(".claude").join("settings.json")
    } else {
        let Some(home) = wicket::config::home_dir() else { bail!("cannot find the home folder: set HOME") };
        home.join(".claude").join("settings.json")
    };
    let command = match &args.command {
        Some(c) => c.clone(),
        None => {
            let exe = std::env::current_exe().context("cannot find wicket's own binary")?;
            let exe = exe.to_string_lossy();
            let exe = if exe.chars().all(|c| c.is_ascii_alphanumeric() || "-_./+@:".contains(c)) {
                exe.into_owned()
            } else {
                format!("'{}'", exe.replace('\'', "'\\''"))
            };
            let extra = if args.sandbox_commands { " --sandbox-commands" } else { "" };
            format!("{exe} hook claude{extra}")
        }
    };
    let old_text = match std::fs::read_to_string(&file) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", file.display())),
    };
    let old: Value = match old_text.as_deref() {
        None => json!({}),
        Some(t) if t.trim().is_empty() => json!({}),
        Some(t) => serde_json::from_str(t)
            .with_context(|| format!("{}: not valid JSON; fix it first, nothing was written", file.display()))?,
    };
    let mut events = vec!["PreToolUse"];
    if args.permission_request {
        events.push("PermissionRequest");
    }
    let new = merge(&old, &command, &events)
        .with_context(|| format!("{}: unexpected shape; nothing was written", file.display()))?;
    let before = pretty(&old)?;
    let after = pretty(&new)?;
    let mut out = std::io::stdout().lock();
    if before == after && old_text.is_some() {
        writeln!(out, "{}: wicket's hook is already set up; nothing to change", file.display())?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{} {}:", if old_text.is_some() { "changes to" } else { "new file" }, file.display())?;
    for line in diff(&before, &after) {
        writeln!(out, "{line}")?;
    }
    if args.dry_run {
        writeln!(out, "(dry run: nothing written)")?;
        return Ok(ExitCode::SUCCESS);
    }
    write_atomic(&file, &after)?;
    writeln!(out, "written: {}", file.display())?;
    Ok(ExitCode::SUCCESS)
}

/// Is this hook entry wicket's Claude hook?
fn is_ours(hook: &Value) -> bool {
    hook.get("command").and_then(Value::as_str).is_some_and(|c| c.contains(" hook claude") || c == "hook claude")
}

/// The settings with wicket's hook for each event: an existing entry of ours is replaced in
/// place (other hooks of its group stay), otherwise a new group is appended.
pub fn merge(old: &Value, command: &str, events: &[&str]) -> Result<Value> {
    let Value::Object(root) = old else { bail!("the settings file is not a JSON object") };
    let mut root = root.clone();
    let hooks = root.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else { bail!("\"hooks\" is not an object") };
    let ours = json!({"type": "command", "command": command, "timeout": TIMEOUT_SECS});
    for event in events {
        let groups = hooks.entry(*event).or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else { bail!("\"hooks.{event}\" is not an array") };
        let mut found = false;
        for group in groups.iter_mut() {
            let Some(Value::Array(list)) = group.get_mut("hooks") else { continue };
            let mut keep = Vec::with_capacity(list.len());
            for h in list.drain(..) {
                if is_ours(&h) {
                    if !found {
                        keep.push(ours.clone());
                        found = true;
                    }
                } else {
                    keep.push(h);
                }
            }
            *list = keep;
            if found {
                if let Value::Object(g) = group {
                    g.insert("matcher".into(), json!(MATCHER));
                }
                break;
            }
        }
        if !found {
            groups.push(json!({"matcher": MATCHER, "hooks": [ours.clone()]}));
        }
    }
    Ok(Value::Object(root))
}

fn pretty(v: &Value) -> Result<String> {
    let mut s = serde_json::to_string_pretty(v)?;
    s.push('\n');
    Ok(s)
}

/// A line diff: lines only in `a` with `-`, only in `b` with `+`, a few unchanged around them.
fn diff(a: &str, b: &str) -> Vec<String> {
    let a: Vec<&str> = a.lines().collect();
    let b: Vec<&str> = b.lines().collect();
    // Longest common subsequence (settings files are small).
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut ops = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            ops.push(('+', b[j]));
            j += 1;
        } else {
            ops.push(('-', a[i]));
            i += 1;
        }
    }
    let near = |k: usize| ops.iter().enumerate().any(|(x, (op, _))| *op != ' ' && x.abs_diff(k) <= 2);
    let mut out = Vec::new();
    let mut skipped = false;
    for (k, (op, line)) in ops.iter().enumerate() {
        if *op != ' ' || near(k) {
            if skipped {
                out.push("  …".to_string());
                skipped = false;
            }
            out.push(format!("{op} {line}"));
        } else {
            skipped = true;
        }
    }
    out
}

/// Write `text` to `file` through a temporary file in the same folder and a rename.
fn write_atomic(file: &Path, text: &str) -> Result<()> {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "settings.json".into());
    let tmp = dir.join(format!(".{name}.wicket-{}.tmp", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        if let Ok(meta) = std::fs::metadata(file) {
            f.set_permissions(meta.permissions())?;
        }
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, file)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", file.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keeps_other_hooks_and_is_idempotent() {
        let old = json!({"model": "x", "hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "other"}]}
        ], "Stop": []}});
        let once = merge(&old, "/bin/wicket hook claude", &["PreToolUse"]).unwrap_or_default();
        let twice = merge(&once, "/bin/wicket hook claude", &["PreToolUse"]).unwrap_or_default();
        assert_eq!(once, twice);
        assert_eq!(once["model"], "x");
        assert_eq!(once["hooks"]["PreToolUse"].as_array().map(Vec::len), Some(2));
        assert_eq!(once["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "other");
        assert!(merge(&json!([]), "c", &["PreToolUse"]).is_err());
    }

    #[test]
    fn diff_marks_added_lines() {
        let d = diff("{\n}\n", "{\n  \"a\": 1\n}\n");
        assert!(d.contains(&"+   \"a\": 1".to_string()), "{d:?}");
    }
}
