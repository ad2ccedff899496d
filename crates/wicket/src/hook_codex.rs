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

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use clap::Args;
use serde_json::{json, Value};
use wicket_policy::{Decision, Mode};

use crate::hook_core::{self, HookGate, HookReply};
use wicket::agents::codex::*;

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
    /// Read no payload: print what the agent would receive for a few typical calls in this
    /// project (nothing is written to the audit log).
    #[arg(long)]
    pub example: bool,
}

/// Which Codex event the payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
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

impl hook_core::AgentHook for CodexArgs {
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
    const AGENT: &'static str = "Codex";
    fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
        example_payload(root, call)
    }
}

/// The answer to an internal failure: a deny in the event's shape, exit 2, and the reason on
/// stderr, where Codex reads the blocking reason of an exit 2.
fn failure(event: Event, why: &str) -> HookReply {
    let reason = hook_core::failure_reason(&why.replace('\n', " "));
    eprintln!("{reason}");
    HookReply { json: deny_json(event, &reason), code: 2 }
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

/// Decide one payload and build the answer.
fn decide(args: &CodexArgs, payload: &Value) -> Result<HookReply> {
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
        return Ok(HookReply { json: json!({}), code: 0 });
    };
    // Codex cannot ask from PreToolUse; its PermissionRequest is the asking.
    let can_ask = event == Event::PermissionRequest;
    let (decision, text) = gate.decide_all(calls, call_id, "Codex", can_ask)?;
    Ok(answer(event, decision, &text))
}

/// The answer for a decision, in the event's shape; `reason` is the deny's wording.
fn answer(event: Event, decision: Decision, reason: &str) -> HookReply {
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
    HookReply { json, code: 0 }
}

/// A typical call as Codex sends it, for `--example`: Codex reads through its shell and writes
/// with `apply_patch`.
fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
    let (tool, input) = match call {
        hook_core::Typical::Read(p) => ("Bash", json!({"command": format!("cat {p}")})),
        hook_core::Typical::Write(p, text) => {
            let body: String = text.lines().map(|l| format!("+{l}\n")).collect();
            ("apply_patch", json!({"command": format!("*** Begin Patch\n*** Add File: {p}\n{body}*** End Patch\n")}))
        }
        hook_core::Typical::Shell(c) => ("Bash", json!({"command": c})),
    };
    json!({"session_id": "wicket-example", "turn_id": "example", "cwd": root, "hook_event_name": "PreToolUse",
        "permission_mode": "default", "tool_name": tool, "tool_input": input, "tool_use_id": "example"})
}
