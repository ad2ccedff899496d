//! `wicket init qwen|droid|copilot|opencode|kilo`: wicket's hook in the settings of the agents
//! that came after Claude Code, Codex and Gemini CLI (the same merge, diff and atomic write as
//! [`crate::init_cmd`]), or for OpenCode and Kilo, which have no command hooks, a plugin file.
//!
//! The hard question: each agent fails open in its own way (a hook that times out lets the call
//! run in all of them), so the timeout written here is always [`TIMEOUT_SECS`], twice wicket's
//! own deadline, and where the agent can take a rewritten call the hook is installed with
//! `--sandbox-commands`, so allowed shell commands run inside `wicket run`.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use serde_json::json;

use crate::init_cmd::{self, Plan, TIMEOUT_SECS};

/// The flags of `wicket init qwen`.
#[derive(Args)]
pub struct InitQwenArgs {
    /// Write the user's settings, ~/.qwen/settings.json (the default).
    #[arg(long, conflicts_with = "project")]
    pub user: bool,
    /// Write the project's settings, <root>/.qwen/settings.json.
    #[arg(long)]
    pub project: bool,
    /// The project root for --project (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The command Qwen Code runs (default: this wicket binary's full path, `hook qwen`).
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
    /// Show the change, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove wicket's hook from the file instead (everything else stays).
    #[arg(long)]
    pub uninstall: bool,
}

/// The flags of `wicket init droid` and `wicket init copilot`.
#[derive(Args)]
pub struct InitHookArgs {
    /// Write the user's settings (~/.factory/settings.json, ~/.copilot/settings.json; the default).
    #[arg(long, conflicts_with = "project")]
    pub user: bool,
    /// Write the project's settings (<root>/.factory/settings.json, <root>/.github/hooks/wicket.json).
    #[arg(long)]
    pub project: bool,
    /// The project root for --project (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Let allowed shell commands run on the host, outside the OS sandbox: only the gate's
    /// reading of each command then stands between it and your files, secrets and network.
    #[arg(long)]
    pub unconfined_commands: bool,
    /// The command the agent runs (default: this wicket binary's full path, `hook <agent>`).
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
    /// Show the change, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove wicket's hook instead (everything else stays).
    #[arg(long)]
    pub uninstall: bool,
}

/// The agents whose `wicket hook <agent>` command `wicket doctor` looks for in settings files.
pub const HOOK_AGENTS: &[&str] = &["claude", "codex", "gemini", "qwen", "droid", "copilot"];

/// Every tool: the hook passes the agents' bookkeeping tools through itself, and asks about
/// (or, where the agent cannot ask, denies) a tool it does not know, rather than letting a
/// new tool run unseen.
pub const ALL_TOOLS: &str = "*";

/// The line that says Qwen Code's commands cannot be confined (init, doctor and the docs).
pub const QWEN_UNCONFINED: &str = "Qwen Code's shell commands run on the host, judged as host commands: Qwen Code's \
hook cannot change a call's arguments, so wicket cannot move them into its OS sandbox (a command wicket would only \
allow in the sandbox is asked about instead)";

/// `wicket init qwen`.
pub fn qwen(args: &InitQwenArgs) -> Result<ExitCode> {
    let file = init_cmd::settings_file(args.project, args.root.as_deref(), ".qwen", "settings.json")?;
    let command = init_cmd::hook_command(args.command.as_deref(), "qwen", "")?;
    // Qwen Code reads a timeout below 1000 as seconds.
    let entry = json!({"type": "command", "name": "wicket", "command": command, "timeout": TIMEOUT_SECS,
        "description": "wicket decides each tool call (allow, ask, or deny with a reason)"});
    let plan = Plan { file, command, events: vec!["PreToolUse"], matcher: ALL_TOOLS, marker: " hook qwen", entry };
    if args.uninstall {
        return init_cmd::uninstall(&plan, args.dry_run);
    }
    let code = init_cmd::install(&plan, args.dry_run)?;
    writeln!(std::io::stdout().lock(), "note: {QWEN_UNCONFINED}")?;
    init_cmd::next_steps("Qwen Code", &plan.command, args.dry_run);
    Ok(code)
}

/// `wicket init droid`.
pub fn droid(args: &InitHookArgs) -> Result<ExitCode> {
    let file = init_cmd::settings_file(args.project, args.root.as_deref(), ".factory", "settings.json")?;
    let extra = if args.unconfined_commands { "" } else { " --sandbox-commands" };
    let command = init_cmd::hook_command(args.command.as_deref(), "droid", extra)?;
    // Factory Droid reads the timeout in seconds.
    let entry = json!({"type": "command", "command": command, "timeout": TIMEOUT_SECS});
    let plan = Plan { file, command, events: vec!["PreToolUse"], matcher: ALL_TOOLS, marker: " hook droid", entry };
    if args.uninstall {
        return init_cmd::uninstall(&plan, args.dry_run);
    }
    let code = init_cmd::install(&plan, args.dry_run)?;
    init_cmd::say_where_commands_run("Factory Droid", args.unconfined_commands, "Execute")?;
    init_cmd::next_steps("Factory Droid", &plan.command, args.dry_run);
    Ok(code)
}
