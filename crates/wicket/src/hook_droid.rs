//! `wicket hook droid`: Factory Droid's `PreToolUse` command hook.
//!
//! Droid (`@factory/cli`) sends Claude Code's payload shape with its own tool names (`Execute`,
//! `Read`, `Create`, `Edit`, `<server>___<tool>` for MCP tools) and reads Claude Code's answer:
//! `permissionDecision` `allow` (which also skips Droid's own approval), `deny` with its
//! reason, and `updatedInput`, merged over the call's arguments. The hard questions: Droid
//! lets the call run when the hook times out or exits with any status but 2, so every internal
//! error is exit 2 with the reason on stderr (which Droid hands the model); and Droid's `ask`
//! only hands the call to Droid's own permission flow, which an `--auto` run may approve
//! without anyone seeing it, so an ask is answered as a deny that says how to allow the call.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use clap::Args;
use serde_json::{json, Map, Value};
use wicket_policy::{Decision, Mode};

use crate::hook_core::{self, HookGate, HookReply};

/// The flags of `wicket hook droid`.
#[derive(Args, Clone, Default)]
pub struct DroidArgs {
    /// The project root (default: the payload's `cwd`).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode (default: the settings').
    #[arg(long, value_parser = crate::check_cmd::parse_mode)]
    pub mode: Option<Mode>,
    /// Rewrite allowed `Execute` commands (updatedInput) so they run inside `wicket run`, in the OS sandbox.
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

impl hook_core::AgentHook for DroidArgs {
    type Event = ();
    const FIRST: () = ();
    fn event(_name: &str) -> Option<()> {
        None
    }
    fn failure((): (), why: &str) -> HookReply {
        failure(why)
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
    const AGENT: &'static str = "Factory Droid";
    fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
        example_payload(root, call)
    }
}

/// The answer to an internal failure: a deny, exit 2, and the reason on stderr, which Droid
/// gives the model for a blocking exit.
fn failure(why: &str) -> HookReply {
    let reason = hook_core::failure_reason(&why.replace('\n', " "));
    eprintln!("{reason}");
    HookReply { json: crate::hook_qwen::decision_json(Decision::Deny, &reason), code: 2 }
}

/// Decide one payload and build the answer.
fn decide(args: &DroidArgs, payload: &Value) -> Result<HookReply> {
    let hook_core::ToolPayload { fields: p, event, tool_name, input, cwd } = hook_core::tool_payload(payload)?;
    if event != "PreToolUse" {
        bail!("`wicket hook droid` answers PreToolUse, not {event:?}")
    }
    let root = wicket::config::project_root(args.root.as_deref(), &cwd)?.0;
    let mapped = wicket::agents::droid::map_tool(tool_name, &input, &cwd)?;
    let Some(calls) = mapped.into_calls("Factory Droid", tool_name, &input) else {
        return Ok(HookReply { json: json!({}), code: 0 });
    };
    let session_id = p.get("session_id").and_then(Value::as_str).unwrap_or("");
    // Droid's spec mode reads and plans only: wicket's plan mode.
    let mode = p.get("permission_mode").and_then(Value::as_str).filter(|m| *m == "spec").map(|_| "plan");
    let mut gate = HookGate::open(&root, args.mode, mode, args.sandbox_commands, args.no_audit, session_id)?;
    let calls = gate.mark_all_host_commands(calls);
    let shell = calls.iter().find(|(c, _)| gate.confines(c)).map(|(c, _)| c.clone());
    let (decision, reason) = gate.decide_all(calls, None, "Factory Droid", false)?;
    let mut out = Map::new();
    out.insert("hookEventName".into(), json!("PreToolUse"));
    out.insert("permissionDecision".into(), json!(decision.as_str()));
    out.insert("permissionDecisionReason".into(), json!(reason));
    if let (Decision::Allow, Some(call)) = (decision, shell) {
        let command = call.input.get("command").and_then(Value::as_str).unwrap_or("");
        // A rewrite that cannot be built must not let the command run unconfined.
        let Some(rewritten) = crate::hook_claude::sandboxed_command(&root, command) else {
            return Ok(failure("cannot build the sandboxed command (wicket's own path is unknown)"));
        };
        let mut updated = input.as_object().cloned().unwrap_or_default();
        updated.insert("command".into(), Value::String(rewritten));
        out.insert("updatedInput".into(), Value::Object(updated));
    }
    Ok(HookReply { json: json!({ "hookSpecificOutput": Value::Object(out) }), code: 0 })
}

/// A typical call as Droid sends it, for `--example`.
fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
    let (tool, input) = match call {
        hook_core::Typical::Read(p) => ("Read", json!({"file_path": root.join(p)})),
        hook_core::Typical::Write(p, text) => ("Create", json!({"file_path": root.join(p), "content": text})),
        hook_core::Typical::Shell(c) => (
            "Execute",
            json!({"command": c, "summary": "an example", "riskLevel": "low", "riskLevelReason": "an example"}),
        ),
    };
    json!({"session_id": "wicket-example", "cwd": root, "permission_mode": "auto-low", "hook_event_name": "PreToolUse",
        "tool_name": tool, "tool_input": input})
}
