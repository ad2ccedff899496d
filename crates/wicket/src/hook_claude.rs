//! `wicket hook claude`: Claude Code's `PreToolUse` and `PermissionRequest` hook.
//!
//! Claude Code runs the hook for each tool call with one JSON object on stdin and reads the
//! answer from stdout and the exit status (see `docs/integrations.md`). The hard question: what
//! happens when wicket itself fails? Claude Code lets the call through on any exit status but 2
//! and on a timeout, so every internal error (unreadable input, a broken settings or policy
//! file, a panic) prints a deny and exits 2. Decisions (allow, ask, deny) exit 0 with exactly
//! one JSON object.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use clap::Args;
use serde_json::{json, Map, Value};
use wicket_policy::{Decision, Mode};

use crate::hook_core::{self, HookGate, HookReply};
use wicket::agents::claude::*;
use wicket::agents::Mapped;

/// The flags of `wicket hook claude`.
#[derive(Args, Clone, Default)]
pub struct ClaudeArgs {
    /// The project root (default: the payload's `cwd`).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode (default: the settings', made stricter by Claude's `plan` and `dontAsk`).
    #[arg(long, value_parser = crate::check_cmd::parse_mode)]
    pub mode: Option<Mode>,
    /// Rewrite allowed Bash commands (updatedInput) so they run inside `wicket run`, in the OS sandbox.
    #[arg(long)]
    pub sandbox_commands: bool,
    /// Do not write the audit log.
    #[arg(long)]
    pub no_audit: bool,
    /// Read no payload: print what the agent would receive for a few typical calls in this
    /// project (nothing is written to the audit log).
    #[arg(long)]
    pub example: bool,
}

/// Which Claude Code event the payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    PreToolUse,
    PermissionRequest,
}

impl Event {
    fn name(self) -> &'static str {
        match self {
            Event::PreToolUse => "PreToolUse",
            Event::PermissionRequest => "PermissionRequest",
        }
    }
}

impl hook_core::AgentHook for ClaudeArgs {
    type Event = Event;
    const FIRST: Event = Event::PreToolUse;
    fn event(name: &str) -> Option<Event> {
        parse_event(name)
    }
    fn failure(event: Event, why: &str) -> HookReply {
        failure(event, why)
    }
    fn decide(&self, payload: &Value) -> Result<HookReply> {
        decide(self, payload)
    }
    fn no_audit(&self) -> bool {
        self.no_audit
    }
    fn example(&self) -> Option<Self> {
        self.example.then(|| Self { no_audit: true, example: false, ..self.clone() })
    }
    fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }
    const AGENT: &'static str = "Claude Code";
    fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
        example_payload(root, call)
    }
}

fn parse_event(name: &str) -> Option<Event> {
    match name {
        "PreToolUse" => Some(Event::PreToolUse),
        "PermissionRequest" => Some(Event::PermissionRequest),
        _ => None,
    }
}

/// The answer to an internal failure: a deny in the event's shape, the reason on stderr too
/// (Claude Code shows it to the model), exit 2.
fn failure(event: Event, why: &str) -> HookReply {
    let why = why.replace('\n', " ");
    eprintln!("wicket: {why}");
    HookReply { json: deny_json(event, &hook_core::failure_reason(&why)), code: 2 }
}

fn deny_json(event: Event, reason: &str) -> Value {
    match event {
        Event::PreToolUse => json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }}),
        Event::PermissionRequest => json!({"hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": reason, "interrupt": false},
        }}),
    }
}

/// Decide one payload and build the answer.
fn decide(args: &ClaudeArgs, payload: &Value) -> Result<HookReply> {
    let hook_core::ToolPayload { fields: p, event: event_name, tool_name, input, cwd } =
        hook_core::tool_payload(payload)?;
    let Some(event) = parse_event(event_name) else {
        bail!("`wicket hook claude` answers PreToolUse and PermissionRequest, not {event_name:?}")
    };
    // The project the session's folder is in (the agent may have moved into a subfolder).
    let root = wicket::config::project_root(args.root.as_deref(), &cwd)?.0;

    let mapped = match map_tool(tool_name, &input, &cwd)? {
        Some(call) => Mapped::Calls(vec![call]),
        None if PASS_THROUGH.contains(&claude_name(tool_name)) => Mapped::PassThrough,
        None => Mapped::Unknown,
    };
    let Some(calls) = mapped.into_calls("Claude Code", tool_name, &input) else {
        // No opinion: Claude Code's own permission flow decides.
        return Ok(HookReply { json: json!({}), code: 0 });
    };
    let claude_mode = p.get("permission_mode").and_then(Value::as_str);
    let session_id = p.get("session_id").and_then(Value::as_str).unwrap_or("");
    let mut gate = HookGate::open(&root, args.mode, claude_mode, args.sandbox_commands, args.no_audit, session_id)?;
    // A command `commands.host` names is judged, and runs, as a host command.
    let calls = gate.mark_all_host_commands(calls);
    let call = calls[0].0.clone();
    let call_id = p.get("tool_use_id").and_then(Value::as_str);
    let (decision, reason) = gate.decide_all(calls, call_id, "Claude Code", true)?;
    let rewrite = if gate.confines(&call) {
        let command = call.input.get("command").and_then(Value::as_str).unwrap_or("");
        // A rewrite that cannot be built must not let the command run unconfined.
        match sandboxed_command(&root, command) {
            Some(c) => Some(c),
            None => return Ok(failure(event, "cannot build the sandboxed command (wicket's own path is unknown)")),
        }
    } else {
        None
    };
    answer(event, rewrite.as_deref(), &input, decision, &reason)
}

/// The shell command that runs `command` inside `wicket run` at `root`.
pub fn sandboxed_command(root: &Path, command: &str) -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    Some(format!(
        "{} run --unattended --root {} -- bash -c {}",
        wicket_policy::text::shell_quote(&exe.to_string_lossy()),
        wicket_policy::text::shell_quote(&root.to_string_lossy()),
        wicket_policy::text::shell_quote(command)
    ))
}

/// The answer for a verdict, in the event's shape.
fn answer(event: Event, rewrite: Option<&str>, input: &Value, decision: Decision, reason: &str) -> Result<HookReply> {
    let updated = |cmd: &str| -> Value {
        let mut obj = input.as_object().cloned().unwrap_or_else(Map::new);
        obj.insert("command".into(), Value::String(cmd.to_string()));
        Value::Object(obj)
    };
    let json = match (event, decision) {
        (Event::PreToolUse, Decision::Deny) => deny_json(event, reason),
        (Event::PreToolUse, d) => {
            let mut out = Map::new();
            out.insert("hookEventName".into(), json!(event.name()));
            out.insert("permissionDecision".into(), json!(d.as_str()));
            out.insert("permissionDecisionReason".into(), json!(reason));
            // Only an allowed command is moved into the sandbox: one the person approves after
            // an ask runs as they saw it.
            if let (Decision::Allow, Some(cmd)) = (d, rewrite) {
                out.insert("updatedInput".into(), updated(cmd));
            }
            json!({ "hookSpecificOutput": Value::Object(out) })
        }
        (Event::PermissionRequest, Decision::Deny) => deny_json(event, reason),
        (Event::PermissionRequest, Decision::Allow) => {
            let mut decision = Map::new();
            decision.insert("behavior".into(), json!("allow"));
            if let Some(cmd) = rewrite {
                decision.insert("updatedInput".into(), updated(cmd));
            }
            json!({"hookSpecificOutput": {"hookEventName": event.name(), "decision": Value::Object(decision)}})
        }
        // The person decides in Claude Code's own prompt: no decision from wicket.
        (Event::PermissionRequest, Decision::Ask) => json!({}),
    };
    Ok(HookReply { json, code: 0 })
}

/// A typical call as Claude Code sends it, for `--example`.
fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
    let (tool, input) = match call {
        hook_core::Typical::Read(p) => ("Read", json!({"file_path": root.join(p)})),
        hook_core::Typical::Write(p, text) => ("Write", json!({"file_path": root.join(p), "content": text})),
        hook_core::Typical::Shell(c) => ("Bash", json!({"command": c, "description": "an example"})),
    };
    json!({"session_id": "wicket-example", "cwd": root, "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input})
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(wicket_policy::text::shell_quote("echo 'hi'"), r"'echo '\''hi'\'''");
        assert_eq!(wicket_policy::text::shell_quote("/usr/bin/wicket"), "/usr/bin/wicket");
        assert_eq!(wicket_policy::text::shell_quote(""), "''");
    }
}
