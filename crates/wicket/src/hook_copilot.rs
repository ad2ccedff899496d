//! `wicket hook copilot`: GitHub Copilot CLI's `preToolUse` command hook.
//!
//! Copilot CLI (`@github/copilot`) sends `{sessionId, timestamp, cwd, toolName, toolArgs}` on
//! stdin (`toolArgs` an object, or in older versions its JSON text) and reads a flat answer:
//! `permissionDecision` (`allow`, which also skips Copilot's own approval; `deny`; `ask`, which
//! Copilot asks the person, and refuses when nobody can answer) with
//! `permissionDecisionReason`, and `modifiedArgs`, the arguments the tool then runs with. The
//! hard questions: Copilot denies the call when the hook exits 2 or fails, but runs it when the
//! hook times out, so wicket's own deadline answers deny well before; and MCP tools come as
//! `<server>-<tool>`, which only the configured servers' names can split, so the hook reads
//! Copilot's MCP configuration for them (a name it cannot split is asked about).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::{json, Map, Value};
use wicket_policy::{Decision, Mode};

use crate::hook_core::{self, HookGate, HookReply};

/// The flags of `wicket hook copilot`.
#[derive(Args, Clone, Default)]
pub struct CopilotArgs {
    /// The project root (default: the payload's `cwd`).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode (default: the settings').
    #[arg(long, value_parser = crate::check_cmd::parse_mode)]
    pub mode: Option<Mode>,
    /// Rewrite allowed `bash` commands (modifiedArgs) so they run inside `wicket run`, in the OS sandbox.
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

impl hook_core::AgentHook for CopilotArgs {
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
    const AGENT: &'static str = "GitHub Copilot CLI";
    fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
        example_payload(root, call)
    }
}

/// The answer to an internal failure: the deny on stdout, exit 2 (Copilot denies on exit 2
/// whatever the output says), and the reason on stderr.
fn failure(why: &str) -> HookReply {
    let reason = hook_core::failure_reason(&why.replace('\n', " "));
    eprintln!("{reason}");
    HookReply { json: json!({"permissionDecision": "deny", "permissionDecisionReason": reason}), code: 2 }
}

/// The names of the MCP servers Copilot CLI is configured with: the user's
/// (`$COPILOT_HOME/mcp-config.json`, else `~/.copilot/mcp-config.json`) and the workspace's
/// (`.mcp.json`, `.vscode/mcp.json`, `.github/mcp.json`). A file that is missing or unreadable
/// adds none (a tool of its servers is then asked about, never taken for a built-in).
pub fn mcp_servers(cwd: &Path) -> Vec<String> {
    let home = std::env::var_os("COPILOT_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| wicket::config::home_dir().map(|h| h.join(".copilot")));
    let mut files: Vec<PathBuf> = home.into_iter().map(|h| h.join("mcp-config.json")).collect();
    files.extend([".mcp.json", ".vscode/mcp.json", ".github/mcp.json"].iter().map(|f| cwd.join(f)));
    let mut out = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        let Ok(v) = serde_json::from_str::<Value>(&text) else { continue };
        for key in ["mcpServers", "servers"] {
            if let Some(Value::Object(servers)) = v.get(key) {
                out.extend(servers.keys().cloned());
            }
        }
    }
    out
}

/// Decide one payload and build the answer.
fn decide(args: &CopilotArgs, payload: &Value) -> Result<HookReply> {
    let Value::Object(p) = payload else { bail!("the hook payload is not a JSON object") };
    let tool_name = match p.get("toolName") {
        Some(Value::String(s)) if !s.is_empty() => s.as_str(),
        _ => bail!("the hook payload has no toolName"),
    };
    let input = match p.get("toolArgs") {
        None | Some(Value::Null) => json!({}),
        // Older versions send the arguments as JSON text.
        Some(Value::String(s)) => serde_json::from_str(s).context("the payload's toolArgs is text that is not JSON")?,
        Some(v) => v.clone(),
    };
    let cwd = hook_core::payload_cwd(p)?;
    let root = wicket::config::project_root(args.root.as_deref(), &cwd)?.0;
    let mapped = wicket::agents::copilot::map_tool(tool_name, &input, &cwd, &mcp_servers(&cwd))?;
    let Some(calls) = mapped.into_calls("GitHub Copilot CLI", tool_name, &input) else {
        return Ok(HookReply { json: json!({}), code: 0 });
    };
    let session_id = p.get("sessionId").and_then(Value::as_str).unwrap_or("");
    let mut gate = HookGate::open(&root, args.mode, None, args.sandbox_commands, args.no_audit, session_id)?;
    let calls = gate.mark_all_host_commands(calls);
    let shell = calls.iter().find(|(c, _)| gate.confines(c)).map(|(c, _)| c.clone());
    let (decision, reason) = gate.decide_all(calls, None, "GitHub Copilot CLI", true)?;
    let mut out = Map::new();
    out.insert("permissionDecision".into(), json!(decision.as_str()));
    out.insert("permissionDecisionReason".into(), json!(reason));
    // Only an allowed command is moved into the sandbox: one the person approves after an ask
    // runs as they saw it.
    if let (Decision::Allow, Some(call)) = (decision, shell) {
        let command = call.input.get("command").and_then(Value::as_str).unwrap_or("");
        let Some(rewritten) = crate::hook_claude::sandboxed_command(&root, command) else {
            return Ok(failure("cannot build the sandboxed command (wicket's own path is unknown)"));
        };
        let mut modified = input.as_object().cloned().unwrap_or_default();
        modified.insert("command".into(), Value::String(rewritten));
        out.insert("modifiedArgs".into(), Value::Object(modified));
    }
    Ok(HookReply { json: Value::Object(out), code: 0 })
}

/// A typical call as Copilot CLI sends it, for `--example`.
fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
    let (tool, input) = match call {
        hook_core::Typical::Read(p) => ("view", json!({"path": root.join(p)})),
        hook_core::Typical::Write(p, text) => ("create", json!({"path": root.join(p), "file_text": text})),
        hook_core::Typical::Shell(c) => ("bash", json!({"command": c, "description": "an example"})),
    };
    json!({"sessionId": "wicket-example", "timestamp": 0, "cwd": root, "toolName": tool, "toolArgs": input})
}
