//! `wicket hook gemini`: Gemini CLI's `BeforeTool` command hook.
//!
//! Gemini CLI sends one JSON object on stdin (`tool_name` such as `run_shell_command`,
//! `read_file`, `replace`, or `mcp_<server>_<tool>` with `mcp_context` naming the server and
//! the tool, with the model's arguments in `tool_input`) and reads `{"decision": "deny", "reason": …}` from stdout or a blocking exit 2
//! (see `docs/integrations.md`). The hard questions: Gemini CLI goes on when a hook exits with
//! any other status or times out, and its hook cannot ask the person, so internal errors are a
//! deny with exit 2 and asks are denies that say how to allow the call; and some tools hide
//! their targets (URLs inside `web_fetch`'s prompt, a shell command's `dir_path`, globs of
//! `read_many_files`), so each is spelled out into the calls wicket can judge.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use clap::Args;
use serde_json::{json, Value};
use wicket_policy::{Decision, Mode};

use crate::hook_core::{self, HookGate, HookReply};
use wicket::agents::gemini::*;

/// The flags of `wicket hook gemini`.
#[derive(Args, Clone, Default)]
pub struct GeminiArgs {
    /// The project root (default: the payload's `cwd`).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode (default: the settings').
    #[arg(long, value_parser = crate::check_cmd::parse_mode)]
    pub mode: Option<Mode>,
    /// Rewrite allowed shell commands (`hookSpecificOutput.tool_input`) so they run inside
    /// `wicket run`, in the OS sandbox.
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

/// Gemini CLI has one event wicket answers (`BeforeTool`), so failures have one shape.
impl hook_core::AgentHook for GeminiArgs {
    type Event = ();
    const FIRST: () = ();
    fn event(_name: &str) -> Option<()> {
        None
    }
    fn failure((): (), why: &str) -> HookReply {
        failure((), why)
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
    const AGENT: &'static str = "Gemini CLI";
    fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
        example_payload(root, call)
    }
}

/// The answer to an internal failure: a deny, exit 2, and the reason on stderr, where Gemini
/// CLI reads the reason of a blocking exit.
fn failure((): (), why: &str) -> HookReply {
    let reason = hook_core::failure_reason(&why.replace('\n', " "));
    eprintln!("{reason}");
    HookReply { json: deny_json(&reason), code: 2 }
}

fn deny_json(reason: &str) -> Value {
    json!({"decision": "deny", "reason": reason})
}

/// Decide one payload and build the answer.
fn decide(args: &GeminiArgs, payload: &Value) -> Result<HookReply> {
    let hook_core::ToolPayload { fields: p, event: event_name, tool_name, input, cwd } =
        hook_core::tool_payload(payload)?;
    if event_name != "BeforeTool" {
        bail!("`wicket hook gemini` answers BeforeTool, not {event_name:?}")
    }
    // The project the session's folder is in (the agent may have moved into a subfolder).
    let root = wicket::config::project_root(args.root.as_deref(), &cwd)?.0;
    let mapped = map_tool(tool_name, &input, p.get("mcp_context").filter(|c| !c.is_null()), &cwd, &root)?;
    let Some(calls) = mapped.into_calls("Gemini CLI", tool_name, &input) else {
        return Ok(HookReply { json: json!({}), code: 0 });
    };
    let session_id = p.get("session_id").and_then(Value::as_str).unwrap_or("");
    let mut gate = HookGate::open(&root, args.mode, None, args.sandbox_commands, args.no_audit, session_id)?;
    // A command `commands.host` names is judged, and runs, as a host command.
    let calls = gate.mark_all_host_commands(calls);
    let shell = calls.iter().find(|(c, _)| gate.confines(c)).map(|(c, _)| c.clone());
    // Gemini CLI's hook cannot ask.
    let (decision, text) = gate.decide_all(calls, None, "Gemini CLI", false)?;
    let json = match decision {
        Decision::Deny => deny_json(&text),
        // Not denied: Gemini CLI's own confirmation and policy go on (the hook runs after them,
        // just before the tool), and a shell command then runs inside the sandbox.
        Decision::Allow | Decision::Ask => match shell {
            Some(call) => {
                let command = call.input.get("command").and_then(Value::as_str).unwrap_or("");
                // A rewrite that cannot be built must not let the command run unconfined.
                let Some(rewritten) = crate::hook_claude::sandboxed_command(&root, command) else {
                    return Ok(failure((), "cannot build the sandboxed command (wicket's own path is unknown)"));
                };
                json!({"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": rewritten}}})
            }
            None => json!({}),
        },
    };
    Ok(HookReply { json, code: 0 })
}

/// A typical call as Gemini CLI sends it, for `--example`.
fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
    let (tool, input) = match call {
        hook_core::Typical::Read(p) => ("read_file", json!({"file_path": p})),
        hook_core::Typical::Write(p, text) => ("write_file", json!({"file_path": p, "content": text})),
        hook_core::Typical::Shell(c) => ("run_shell_command", json!({"command": c})),
    };
    json!({"session_id": "wicket-example", "cwd": root, "hook_event_name": "BeforeTool", "tool_name": tool,
        "tool_input": input})
}
