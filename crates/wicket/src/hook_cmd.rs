//! `wicket hook <agent>`: the agents' hooks (Claude Code, Codex, Gemini CLI, Qwen Code, Factory
//! Droid, GitHub Copilot CLI, OpenCode and Kilo), each one
//! [`crate::hook_core::AgentHook`], all driven by [`crate::hook_core::run`].

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use crate::hook_core;

/// `wicket hook <agent>`.
#[derive(Args)]
pub struct HookArgs {
    #[command(subcommand)]
    pub agent: HookAgent,
}

/// The agents wicket answers hooks for.
#[derive(Subcommand)]
pub enum HookAgent {
    /// Claude Code's PreToolUse / PermissionRequest hook: the payload on stdin, the answer on stdout.
    Claude(crate::hook_claude::ClaudeArgs),
    /// Codex CLI's PreToolUse / PermissionRequest hook (Bash, apply_patch, MCP tools).
    Codex(crate::hook_codex::CodexArgs),
    /// Gemini CLI's BeforeTool hook.
    Gemini(crate::hook_gemini::GeminiArgs),
    /// Qwen Code's PreToolUse hook (it cannot take a rewritten command: commands run on the host).
    Qwen(crate::hook_qwen::QwenArgs),
    /// Factory Droid's PreToolUse hook (Execute, Read, Create, Edit, MCP tools).
    Droid(crate::hook_droid::DroidArgs),
    /// GitHub Copilot CLI's preToolUse hook (bash, view, create, edit, MCP tools).
    Copilot(crate::hook_copilot::CopilotArgs),
    /// The answer to wicket's OpenCode plugin (`wicket init opencode` installs it).
    Opencode(crate::hook_opencode::OpencodeArgs),
    /// The answer to wicket's Kilo plugin (`wicket init kilo` installs it).
    Kilo(crate::hook_opencode::KiloArgs),
}

/// Run the hook for an agent. Never returns an error: failures are answered as denies.
pub fn run(args: &HookArgs) -> Result<ExitCode> {
    match &args.agent {
        HookAgent::Claude(a) => Ok(hook_core::run(a)),
        HookAgent::Codex(a) => Ok(hook_core::run(a)),
        HookAgent::Gemini(a) => Ok(hook_core::run(a)),
        HookAgent::Qwen(a) => Ok(hook_core::run(a)),
        HookAgent::Droid(a) => Ok(hook_core::run(a)),
        HookAgent::Copilot(a) => Ok(hook_core::run(a)),
        HookAgent::Opencode(a) => Ok(hook_core::run(a)),
        HookAgent::Kilo(a) => Ok(hook_core::run(a)),
    }
}
