//! `wicket hook qwen`: Qwen Code's `PreToolUse` command hook.
//!
//! Qwen Code (`@qwen-code/qwen-code`, a fork of Gemini CLI) sends Claude Code's payload shape
//! (`hook_event_name`, `tool_name`, `tool_input`, `cwd`, `session_id`) with Gemini CLI's tool
//! names, and reads Claude Code's answer (`hookSpecificOutput.permissionDecision` allow, deny
//! or ask, with `permissionDecisionReason`). The hard questions: Qwen Code lets the call run
//! when a hook exits with any status but 2, prints something that is not JSON, or times out, so
//! every internal error is exit 2 with the reason on stderr (where Qwen Code reads a blocking
//! exit's reason); and Qwen Code ignores any change to the call's arguments, so wicket cannot
//! move its shell commands into the sandbox: they are judged, and run, as host commands.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use clap::Args;
use serde_json::{json, Value};
use wicket_policy::{Decision, Mode};

use crate::hook_core::{self, HookGate, HookReply};

/// The flags of `wicket hook qwen`.
#[derive(Args, Clone, Default)]
pub struct QwenArgs {
    /// The project root (default: the payload's `cwd`).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode (default: the settings', made stricter by Qwen Code's `plan`).
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

impl hook_core::AgentHook for QwenArgs {
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
    const AGENT: &'static str = "Qwen Code";
    fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
        example_payload(root, call)
    }
}

/// The answer to an internal failure: exit 2 with the reason as plain text on stderr (Qwen
/// Code reads a blocking exit's stderr, not its stdout, and turns text there into a deny), and
/// the deny on stdout as well for anyone reading the hook by hand.
fn failure(why: &str) -> HookReply {
    let reason = hook_core::failure_reason(&why.replace('\n', " "));
    eprintln!("{reason}");
    HookReply { json: deny_json(&reason), code: 2 }
}

/// A Claude-style `PreToolUse` answer.
pub fn decision_json(decision: Decision, reason: &str) -> Value {
    json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision.as_str(),
        "permissionDecisionReason": reason,
    }})
}

fn deny_json(reason: &str) -> Value {
    decision_json(Decision::Deny, reason)
}

/// Decide one payload and build the answer.
fn decide(args: &QwenArgs, payload: &Value) -> Result<HookReply> {
    let hook_core::ToolPayload { fields: p, event, tool_name, input, cwd } = hook_core::tool_payload(payload)?;
    if event != "PreToolUse" {
        bail!("`wicket hook qwen` answers PreToolUse, not {event:?}")
    }
    let root = wicket::config::project_root(args.root.as_deref(), &cwd)?.0;
    let mapped = wicket::agents::qwen::map_tool(tool_name, &input, &cwd, &root)?;
    let Some(calls) = mapped.into_calls("Qwen Code", tool_name, &input) else {
        return Ok(HookReply { json: json!({}), code: 0 });
    };
    let session_id = p.get("session_id").and_then(Value::as_str).unwrap_or("");
    // Qwen Code's `plan` mode makes wicket's stricter; its `yolo` and `auto-edit` never loosen it.
    let mode = p.get("permission_mode").and_then(Value::as_str).filter(|m| *m == "plan");
    // Qwen Code cannot take a rewritten command: its commands run on the host, judged as such.
    let mut gate = HookGate::open(&root, args.mode, mode, false, args.no_audit, session_id)?;
    let call_id = p.get("tool_use_id").and_then(Value::as_str);
    // Qwen Code honours an ask: it asks the person when it can, and refuses the call when it
    // cannot (a headless run).
    let (decision, reason) = gate.decide_all(calls, call_id, "Qwen Code", true)?;
    Ok(HookReply { json: decision_json(decision, &reason), code: 0 })
}

/// A typical call as Qwen Code sends it, for `--example`.
fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
    let (tool, input) = match call {
        hook_core::Typical::Read(p) => ("read_file", json!({"file_path": root.join(p)})),
        hook_core::Typical::Write(p, text) => ("write_file", json!({"file_path": root.join(p), "content": text})),
        hook_core::Typical::Shell(c) => ("run_shell_command", json!({"command": c})),
    };
    json!({"session_id": "wicket-example", "cwd": root, "hook_event_name": "PreToolUse", "permission_mode": "default",
        "tool_name": tool, "tool_input": input})
}
