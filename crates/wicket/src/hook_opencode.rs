//! `wicket hook opencode` and `wicket hook kilo`: the answer to wicket's plugin for OpenCode
//! (`opencode-ai`) and its fork Kilo (`@kilocode/cli`), which have no command hooks.
//!
//! `wicket init opencode|kilo` installs a small plugin ([`plugin_source`]) whose
//! `tool.execute.before` sends `{tool, args, sessionID, callID, cwd, mcp_servers}` here and
//! reads `{"decision": "allow"|"deny"|"pass", "reason", "args"}`: it throws (OpenCode refuses
//! the call and hands the model the message) on a deny, and merges `args` into the call's
//! arguments on an allow (an allowed shell command rewritten into `wicket run`). The hard
//! questions: OpenCode runs the call whenever the plugin returns, so the plugin lets a call
//! through only on an answer of wicket's, and denies when wicket is missing, fails, stalls
//! past its timeout or prints anything else; the plugin cannot ask the person, so an ask is a
//! deny that says how to allow the call; and a plugin that fails to load is skipped by
//! OpenCode without a word, so `wicket doctor` checks that it is wicket's, unchanged, and loads.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use clap::Args;
use serde_json::{json, Value};
use wicket_policy::{Decision, Mode};

use crate::hook_core::{self, HookGate, HookReply};

/// The flags of `wicket hook opencode` and `wicket hook kilo`.
#[derive(Args, Clone, Default)]
pub struct OpencodeArgs {
    /// The project root (default: the payload's `cwd`).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode (default: the settings').
    #[arg(long, value_parser = crate::check_cmd::parse_mode)]
    pub mode: Option<Mode>,
    /// Rewrite allowed `bash` commands (the answer's `args`) so they run inside `wicket run`, in the OS sandbox.
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

/// The flags of `wicket hook kilo` (Kilo is OpenCode's fork: the same plugin and answers).
#[derive(Args, Clone, Default)]
pub struct KiloArgs {
    #[command(flatten)]
    pub args: OpencodeArgs,
}

/// The plugin's source for `agent` (its name for people) and `hook` (`opencode` or `kilo`):
/// it runs `argv` with the call on stdin and refuses the call when no decision comes within
/// `timeout_ms`.
pub fn plugin_source(agent: &str, hook: &str, argv: &[String], timeout_ms: u64) -> String {
    let argv = serde_json::to_string(argv).unwrap_or_else(|_| "[]".to_string());
    include_str!("opencode_plugin.js")
        .replace("__AGENT__", agent)
        .replace("__HOOK__", hook)
        .replace("__ARGV__", &argv)
        .replace("__TIMEOUT_MS__", &timeout_ms.to_string())
}

/// What a plugin file holds, if it is wicket's plugin exactly as [`plugin_source`] writes it:
/// the command it runs and its timeout. `None`: not wicket's, or changed since.
pub fn plugin_parts(text: &str, agent: &str, hook: &str) -> Option<(Vec<String>, u64)> {
    let line = |prefix: &str| text.lines().find_map(|l| l.strip_prefix(prefix)?.strip_suffix(';').map(str::to_string));
    let argv: Vec<String> = serde_json::from_str(&line("const WICKET = ")?).ok()?;
    let timeout: u64 = line("const TIMEOUT_MS = ")?.parse().ok()?;
    (plugin_source(agent, hook, &argv, timeout) == text).then_some((argv, timeout))
}

/// The flags of either hook, and which agent it answers.
trait Flags: Clone {
    fn flags(&self) -> &OpencodeArgs;
    fn flags_mut(&mut self) -> &mut OpencodeArgs;
}

impl Flags for OpencodeArgs {
    fn flags(&self) -> &OpencodeArgs {
        self
    }
    fn flags_mut(&mut self) -> &mut OpencodeArgs {
        self
    }
}

impl Flags for KiloArgs {
    fn flags(&self) -> &OpencodeArgs {
        &self.args
    }
    fn flags_mut(&mut self) -> &mut OpencodeArgs {
        &mut self.args
    }
}

macro_rules! opencode_hook {
    ($ty:ty, $agent:expr) => {
        impl hook_core::AgentHook for $ty {
            type Event = ();
            const FIRST: () = ();
            fn event(_name: &str) -> Option<()> {
                None
            }
            fn failure((): (), why: &str) -> HookReply {
                failure(why)
            }
            fn decide(&self, payload: &Value) -> Result<HookReply> {
                decide(self.flags(), $agent, payload)
            }
            fn no_audit(&self) -> bool {
                self.flags().no_audit
            }
            fn example(&self) -> Option<Self> {
                self.flags().example.then(|| {
                    let mut quiet = self.clone();
                    quiet.flags_mut().no_audit = true;
                    quiet.flags_mut().example = false;
                    quiet
                })
            }
            fn root(&self) -> Option<&Path> {
                self.flags().root.as_deref()
            }
            const AGENT: &'static str = $agent;
            fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
                example_payload(root, call)
            }
        }
    };
}

opencode_hook!(OpencodeArgs, "OpenCode");
opencode_hook!(KiloArgs, "Kilo");

/// The answer to an internal failure: a deny with the reason, exit 2 (the plugin refuses the
/// call on any exit but 0, and shows this reason when it can read it), the reason on stderr.
fn failure(why: &str) -> HookReply {
    let reason = hook_core::failure_reason(&why.replace('\n', " "));
    eprintln!("{reason}");
    HookReply { json: json!({"decision": "deny", "reason": reason}), code: 2 }
}

/// Decide one payload from the plugin and build the answer.
fn decide(args: &OpencodeArgs, agent: &str, payload: &Value) -> Result<HookReply> {
    let Value::Object(p) = payload else { bail!("the plugin's payload is not a JSON object") };
    let tool = match p.get("tool") {
        Some(Value::String(s)) if !s.is_empty() => s.as_str(),
        _ => bail!("the plugin's payload has no tool"),
    };
    let input = p.get("args").cloned().unwrap_or_else(|| json!({}));
    let cwd = hook_core::payload_cwd(p)?;
    let servers: Vec<String> = match p.get("mcp_servers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        Some(_) => bail!("the plugin's payload has mcp_servers that is not a list"),
    };
    let root = wicket::config::project_root(args.root.as_deref(), &cwd)?.0;
    let mapped = wicket::agents::opencode::map_tool(tool, &input, &cwd, &root, &servers)?;
    let Some(calls) = mapped.into_calls(agent, tool, &input) else {
        return Ok(HookReply { json: json!({"decision": "pass"}), code: 0 });
    };
    let session_id = p.get("sessionID").and_then(Value::as_str).unwrap_or("");
    let mut gate = HookGate::open(&root, args.mode, None, args.sandbox_commands, args.no_audit, session_id)?;
    let calls = gate.mark_all_host_commands(calls);
    let shell = calls.iter().find(|(c, _)| gate.confines(c)).map(|(c, _)| c.clone());
    let call_id = p.get("callID").and_then(Value::as_str);
    // The plugin cannot ask the person: an ask is a deny that says how to allow the call.
    let (decision, reason) = gate.decide_all(calls, call_id, agent, false)?;
    let json = match (decision, shell) {
        (Decision::Allow, Some(call)) => {
            let command = call.input.get("command").and_then(Value::as_str).unwrap_or("");
            let Some(rewritten) = crate::hook_claude::sandboxed_command(&root, command) else {
                return Ok(failure("cannot build the sandboxed command (wicket's own path is unknown)"));
            };
            // `workdir` stays: the command runs there, inside the sandbox of the project.
            json!({"decision": "allow", "reason": reason, "args": {"command": rewritten}})
        }
        // Only an allow lets the call through (an ask has already become a deny).
        (d, _) => json!({"decision": if d == Decision::Allow { "allow" } else { "deny" }, "reason": reason}),
    };
    Ok(HookReply { json, code: 0 })
}

/// A typical call as the plugin sends it, for `--example`.
fn example_payload(root: &Path, call: &hook_core::Typical) -> Value {
    let (tool, input) = match call {
        hook_core::Typical::Read(p) => ("read", json!({"filePath": root.join(p)})),
        hook_core::Typical::Write(p, text) => ("write", json!({"filePath": root.join(p), "content": text})),
        hook_core::Typical::Shell(c) => ("bash", json!({"command": c, "description": "an example"})),
    };
    json!({"tool": tool, "args": input, "sessionID": "wicket-example", "callID": "call_1", "cwd": root,
        "mcp_servers": []})
}
