//! `wicket hook codex`: Codex CLI's `PreToolUse` and `PermissionRequest` command hook.
//!
//! Codex sends one JSON object on stdin (`tool_name` `Bash` for its shell tools,
//! `apply_patch` with the patch text in `tool_input.command`, `mcp__<server>__<tool>` with
//! the tool's arguments) and reads the answer from stdout and the exit status (see
//! `docs/integrations.md`). The hard questions: Codex lets a call through when a hook exits
//! with anything but 0 or 2, times out, or answers `ask` (its `PreToolUse` cannot ask), so
//! every internal error is a deny with exit 2 and every ask is a deny that tells the person
//! how to allow it; and a patch can touch several files, so every file named by a patch
//! header is decided, and a patch wicket cannot read completely is denied.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Result};
use clap::Args;
use serde_json::{json, Value};
use wicket_policy::{Decision, Mode, ToolCall};

use crate::hook_core::{self, Answer, HookGate, Mapped};

/// The flags of `wicket hook codex`.
#[derive(Args, Clone, Default)]
pub struct CodexArgs {
    /// The project root (default: the payload's `cwd`).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode (default: the settings', made stricter by Codex's `plan` and `dontAsk`).
    #[arg(long, value_parser = crate::check_cmd::parse_mode)]
    pub mode: Option<Mode>,
    /// Do not write the audit log.
    #[arg(long)]
    pub no_audit: bool,
}

/// Which Codex event the payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    PreToolUse,
    PermissionRequest,
}

fn parse_event(name: &str) -> Option<Event> {
    match name {
        "PreToolUse" => Some(Event::PreToolUse),
        "PermissionRequest" => Some(Event::PermissionRequest),
        _ => None,
    }
}

/// Read the payload, decide, print the answer; on any failure (also a panic) a deny and exit 2.
pub fn run(args: &CodexArgs) -> ExitCode {
    hook_core::serve(
        args.no_audit,
        Event::PreToolUse,
        |payload| payload.get("hook_event_name").and_then(Value::as_str).and_then(parse_event),
        |payload, raw| decide(args, payload, raw),
        failure,
    )
}

/// The answer to an internal failure: a deny in the event's shape, exit 2, and the reason on
/// stderr, where Codex reads the blocking reason of an exit 2.
fn failure(event: Event, why: &str) -> Answer {
    let reason = hook_core::failure_reason(&why.replace('\n', " "));
    eprintln!("{reason}");
    Answer { json: deny_json(event, &reason), code: 2 }
}

fn deny_json(event: Event, reason: &str) -> Value {
    match event {
        Event::PreToolUse => json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }}),
        // Codex refuses `interrupt: true` here, so it is left out.
        Event::PermissionRequest => json!({"hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": reason},
        }}),
    }
}

/// Map a Codex tool call to wicket's. Relative paths are made absolute against `cwd`.
fn map_tool(name: &str, input: &Value, cwd: &std::path::Path) -> Result<Mapped> {
    if name.starts_with("mcp__") {
        return Ok(Mapped::Calls(vec![ToolCall::new(name, input.clone())]));
    }
    let command = || -> Result<String> {
        match input.get("command") {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(anyhow!("{name}: tool_input.command is missing or not a string")),
        }
    };
    match name {
        "Bash" => Ok(Mapped::Calls(vec![ToolCall::new("bash", json!({"command": command()?}))])),
        "apply_patch" => {
            let files = patch_files(&command()?)?;
            let calls = files
                .into_iter()
                .map(|f| {
                    let path = hook_core::absolute(cwd, &f.path);
                    match f.op {
                        PatchOp::Add => ToolCall::new("write_file", json!({"path": path, "content": f.content})),
                        PatchOp::Delete | PatchOp::MoveFrom | PatchOp::MoveTo => {
                            ToolCall::new("write_file", json!({"path": path, "content": ""}))
                        }
                        PatchOp::Update => {
                            ToolCall::new("edit_file", json!({"path": path, "old_string": "", "new_string": f.content}))
                        }
                    }
                })
                .collect();
            Ok(Mapped::Calls(calls))
        }
        _ => Ok(Mapped::Unknown),
    }
}

/// What a patch does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PatchOp {
    Add,
    Update,
    Delete,
    /// The old name of a moved file (it disappears).
    MoveFrom,
    /// The new name of a moved file.
    MoveTo,
}

/// One file a patch touches.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PatchFile {
    op: PatchOp,
    path: String,
    /// The added lines (for an added or updated file), for the audit and content checks.
    content: String,
}

/// Every file an `apply_patch` patch touches, read from its headers.
///
/// Codex's parser trims the patch, accepts a `<<EOF` wrapper, and reads a header from a line
/// with whitespace around it; so any line that, trimmed, starts with `***` is taken as a
/// header here (even where Codex would read a context line: a stricter reading only adds
/// files to check) and must be one wicket knows, and only lines starting with `+` or `-`
/// are content. A patch without files, or with a header wicket does not know, is an error.
fn patch_files(patch: &str) -> Result<Vec<PatchFile>> {
    let mut lines: Vec<&str> = patch.trim().lines().collect();
    if lines.len() >= 4
        && matches!(lines.first().map(|l| l.trim()), Some("<<EOF" | "<<'EOF'" | "<<\"EOF\""))
        && lines.last().is_some_and(|l| l.trim_end().ends_with("EOF"))
    {
        lines = lines[1..lines.len() - 1].to_vec();
    }
    match (lines.first().map(|l| l.trim()), lines.last().map(|l| l.trim())) {
        (Some("*** Begin Patch"), Some("*** End Patch")) if lines.len() >= 2 => {}
        _ => bail!("apply_patch: the patch does not start with `*** Begin Patch` and end with `*** End Patch`"),
    }
    let mut files: Vec<PatchFile> = Vec::new();
    for (n, line) in lines.iter().enumerate().take(lines.len() - 1).skip(1) {
        if line.starts_with(['+', '-']) {
            if let (Some(last), Some(text)) = (files.last_mut(), line.strip_prefix('+')) {
                if matches!(last.op, PatchOp::Add | PatchOp::Update | PatchOp::MoveTo) {
                    last.content.push_str(text);
                    last.content.push('\n');
                }
            }
            continue;
        }
        let trimmed = line.trim();
        if !trimmed.starts_with("***") {
            continue;
        }
        let header = |prefix: &str| trimmed.strip_prefix(prefix).map(str::trim);
        let (op, path) = if let Some(p) = header("*** Add File:") {
            (PatchOp::Add, p)
        } else if let Some(p) = header("*** Update File:") {
            (PatchOp::Update, p)
        } else if let Some(p) = header("*** Delete File:") {
            (PatchOp::Delete, p)
        } else if let Some(p) = header("*** Move to:") {
            // The file being updated is renamed: its old name goes away too.
            if let Some(last) = files.last_mut() {
                if last.op == PatchOp::Update {
                    last.op = PatchOp::MoveFrom;
                }
            }
            (PatchOp::MoveTo, p)
        } else if trimmed == "*** End of File" {
            continue;
        } else {
            bail!("apply_patch: line {}: wicket does not know the patch header {trimmed:?}", n + 1);
        };
        if path.is_empty() {
            bail!("apply_patch: line {}: a patch header without a file name", n + 1);
        }
        files.push(PatchFile { op, path: path.to_string(), content: String::new() });
    }
    if files.is_empty() {
        bail!("apply_patch: the patch names no file");
    }
    Ok(files)
}

/// Decide one payload and build the answer.
fn decide(args: &CodexArgs, payload: &Value, raw: &str) -> Result<Answer> {
    let hook_core::ToolPayload { fields: p, event: event_name, tool_name, input, cwd } =
        hook_core::tool_payload(payload)?;
    let Some(event) = parse_event(event_name) else {
        bail!("`wicket hook codex` answers PreToolUse and PermissionRequest, not {event_name:?}")
    };
    // The project the session's folder is in (the agent may have moved into a subfolder).
    let root = wicket::config::project_root(args.root.as_deref(), &cwd)?.0;
    let mapped = map_tool(tool_name, &input, &cwd)?;

    let codex_mode = p.get("permission_mode").and_then(Value::as_str);
    let session_id = p.get("session_id").and_then(Value::as_str).unwrap_or("");
    let mut gate = HookGate::open(&root, args.mode, codex_mode, false, args.no_audit, session_id)?;
    let call_id = p.get("tool_use_id").and_then(Value::as_str);
    let Some(calls) = mapped.into_calls("Codex", tool_name, &input) else {
        return Ok(Answer { json: json!({}), code: 0 });
    };
    // Codex cannot ask from PreToolUse; its PermissionRequest is the asking.
    let can_ask = event == Event::PermissionRequest;
    let (decision, text) = gate.decide_all(calls, call_id, "Codex", can_ask, raw)?;
    Ok(answer(event, decision, &text))
}

/// The answer for a decision, in the event's shape; `reason` is the deny's wording.
fn answer(event: Event, decision: Decision, reason: &str) -> Answer {
    let json = match (event, decision) {
        (_, Decision::Deny) => deny_json(event, reason),
        // No objection: Codex's own approval policy and sandbox go on as usual (Codex treats a
        // PreToolUse `allow` without `updatedInput` as a failed hook).
        (Event::PreToolUse, _) => json!({}),
        (Event::PermissionRequest, Decision::Allow) => json!({"hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"},
        }}),
        // The person decides in Codex's own prompt.
        (Event::PermissionRequest, Decision::Ask) => json!({}),
    };
    Answer { json, code: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(patch: &str) -> Vec<(PatchOp, String)> {
        patch_files(patch).map(|f| f.into_iter().map(|f| (f.op, f.path)).collect()).unwrap_or_default()
    }

    #[test]
    fn every_header_is_a_file() {
        let p = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Update File: src/b.rs\n*** Move to: src/c.rs\n@@\n-x\n+y\n*** Delete File: d\n*** End Patch\n";
        assert_eq!(
            ops(p),
            vec![
                (PatchOp::Add, "a.txt".into()),
                (PatchOp::MoveFrom, "src/b.rs".into()),
                (PatchOp::MoveTo, "src/c.rs".into()),
                (PatchOp::Delete, "d".into()),
            ]
        );
    }

    #[test]
    fn content_lines_are_not_headers_but_indented_headers_are() {
        let p = "*** Begin Patch\n*** Add File: a\n+*** Add File: not-a-file\n*** Update File: b\n@@\n  *** Add File: c\n*** End Patch";
        assert_eq!(ops(p).iter().map(|(_, p)| p.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
    }

    #[test]
    fn heredoc_wrapper_is_accepted() {
        let p = "<<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n";
        assert_eq!(ops(p), vec![(PatchOp::Delete, "x".into())]);
    }

    #[test]
    fn unreadable_patches_are_errors() {
        assert!(patch_files("").is_err());
        assert!(patch_files("*** Begin Patch\n*** End Patch").is_err());
        assert!(patch_files("*** Begin Patch\n*** Add File: a\n+x\n").is_err());
        assert!(patch_files("*** Begin Patch\n*** Copy File: a\n*** End Patch").is_err());
        assert!(patch_files("*** Begin Patch\n*** Add File:   \n*** End Patch").is_err());
    }
}
