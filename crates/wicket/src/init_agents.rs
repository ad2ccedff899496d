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

use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::{json, Map, Value};

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
pub const QWEN_UNCONFINED: &str = "Qwen Code's hook cannot change a call's arguments, so wicket cannot move its \
shell commands into the OS sandbox: they run on the host, judged as host commands (a command wicket would allow only \
in the sandbox is asked about instead)";

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

/// `wicket init copilot`: wicket's entry in `hooks.preToolUse` of Copilot CLI's user settings
/// (`$COPILOT_HOME/settings.json`, else `~/.copilot/settings.json`), or with `--project` in the
/// repository's `.github/hooks/wicket.json` (which Copilot reads only in a folder it trusts).
/// Copilot's hook entries stand directly in the event's list (no matcher groups): every tool.
pub fn copilot(args: &InitHookArgs) -> Result<ExitCode> {
    let file = if args.project {
        crate::check_cmd::project_root(args.root.as_deref())?.0.join(".github/hooks/wicket.json")
    } else {
        match std::env::var_os("COPILOT_HOME").filter(|h| !h.is_empty()) {
            Some(h) => PathBuf::from(h).join("settings.json"),
            None => init_cmd::settings_file(false, None, ".copilot", "settings.json")?,
        }
    };
    let extra = if args.unconfined_commands { "" } else { " --sandbox-commands" };
    let command = init_cmd::hook_command(args.command.as_deref(), "copilot", extra)?;
    // Copilot reads `timeoutSec` in seconds.
    let entry = json!({"type": "command", "bash": command, "timeoutSec": TIMEOUT_SECS});
    let (old_text, old) = read_object(&file)?;
    let mut new = flat_without_ours(&old, &file)?;
    if !args.uninstall {
        let Value::Object(root) = &mut new else { bail!("{}: not a JSON object", file.display()) };
        if args.project {
            root.entry("version").or_insert(json!(1));
        }
        let hooks = root.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
        let list = hooks
            .as_object_mut()
            .with_context(|| format!("{}: \"hooks\" is not an object; nothing was written", file.display()))?
            .entry("preToolUse")
            .or_insert_with(|| Value::Array(Vec::new()));
        list.as_array_mut()
            .with_context(|| format!("{}: \"hooks.preToolUse\" is not a list; nothing was written", file.display()))?
            .insert(0, entry);
    }
    let what = if args.uninstall { "wicket's hook removed".to_string() } else { format!("hook command: {command}") };
    let code = show_and_write(&file, old_text.as_deref(), &old, &new, args.dry_run, &what)?;
    if !args.uninstall {
        init_cmd::say_where_commands_run("GitHub Copilot CLI", args.unconfined_commands, "bash")?;
        if args.project {
            println!("note: Copilot CLI runs a repository's hooks only in a folder you trust (it asks the first time)");
        }
        init_cmd::next_steps("GitHub Copilot CLI", &command, args.dry_run);
    }
    Ok(code)
}

/// A settings file as it is (its text, `None` when missing) and as a JSON object.
fn read_object(file: &std::path::Path) -> Result<(Option<String>, Value)> {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", file.display())),
    };
    let v = match text.as_deref() {
        None => json!({}),
        Some(t) if t.trim().is_empty() => json!({}),
        Some(t) => serde_json::from_str(t)
            .with_context(|| format!("{}: not valid JSON; fix it first, nothing was written", file.display()))?,
    };
    if !v.is_object() {
        bail!("{}: not a JSON object; fix it first, nothing was written", file.display());
    }
    Ok((text, v))
}

/// The settings without wicket's entries (a `bash` or `command` that runs ` hook copilot`) in
/// any of Copilot's hook lists; lists and `hooks` left empty by that go too.
fn flat_without_ours(old: &Value, file: &std::path::Path) -> Result<Value> {
    let mut new = old.clone();
    let ours = |h: &Value| {
        ["bash", "command"]
            .iter()
            .any(|k| h.get(*k).and_then(Value::as_str).is_some_and(|c| c.contains(" hook copilot")))
    };
    match new.get_mut("hooks") {
        None => {}
        Some(Value::Object(hooks)) => {
            for list in hooks.values_mut() {
                if let Value::Array(list) = list {
                    list.retain(|h| !ours(h));
                }
            }
            hooks.retain(|_, l| !l.as_array().is_some_and(Vec::is_empty));
        }
        Some(_) => bail!("{}: \"hooks\" is not an object; nothing was written", file.display()),
    }
    Ok(new)
}

/// Show the change from `old` to `new` and write it (unless a dry run or nothing changes).
fn show_and_write(
    file: &std::path::Path,
    old_text: Option<&str>,
    old: &Value,
    new: &Value,
    dry_run: bool,
    what: &str,
) -> Result<ExitCode> {
    let (before, after) = (init_cmd::pretty(old)?, init_cmd::pretty(new)?);
    let mut out = std::io::stdout().lock();
    if before == after && old_text.is_some() {
        writeln!(out, "{}: nothing to change", file.display())?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{} {}:", if old_text.is_some() { "changes to" } else { "new file" }, file.display())?;
    for line in init_cmd::diff(&before, &after) {
        writeln!(out, "{line}")?;
    }
    if dry_run {
        writeln!(out, "(dry run: nothing written)")?;
        return Ok(ExitCode::SUCCESS);
    }
    init_cmd::write_atomic(file, &after)?;
    writeln!(out, "written: {} ({what})", file.display())?;
    Ok(ExitCode::SUCCESS)
}

/// The flags of `wicket init opencode` and `wicket init kilo`.
#[derive(Args)]
pub struct InitPluginArgs {
    /// Install the plugin for you, in ~/.config/<agent>/plugin/ (the default).
    #[arg(long, conflicts_with = "project")]
    pub user: bool,
    /// Install the plugin for the project, in <root>/.opencode/plugin/ (Kilo: <root>/.kilo/plugin/).
    #[arg(long)]
    pub project: bool,
    /// The project root for --project (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Let allowed shell commands run on the host, outside the OS sandbox: only the gate's
    /// reading of each command then stands between it and your files, secrets and network.
    #[arg(long)]
    pub unconfined_commands: bool,
    /// The shell command the plugin runs instead of this wicket binary (`sh -c CMD`).
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
    /// Show the change, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove wicket's plugin instead (only when it is wicket's, unchanged).
    #[arg(long)]
    pub uninstall: bool,
}

/// OpenCode and Kilo: the agent's name, the hook's, and the folder its configuration lives in
/// (`~/.config/<dir>`, a project's `.<dir>`).
#[derive(Clone, Copy)]
pub struct PluginAgent {
    /// The name for people.
    pub name: &'static str,
    /// `wicket hook <hook>`.
    pub hook: &'static str,
    /// The configuration folder's name under ~/.config.
    pub user_dir: &'static str,
    /// The project's configuration folder.
    pub project_dir: &'static str,
}

/// OpenCode.
pub const OPENCODE: PluginAgent =
    PluginAgent { name: "OpenCode", hook: "opencode", user_dir: "opencode", project_dir: ".opencode" };
/// Kilo, OpenCode's fork.
pub const KILO: PluginAgent = PluginAgent { name: "Kilo", hook: "kilo", user_dir: "kilo", project_dir: ".kilo" };

/// The plugin's timeout: the agent's hook timeout, as for the other agents.
pub const PLUGIN_TIMEOUT_MS: u64 = TIMEOUT_SECS * 1000;

/// The user's configuration folder for `agent`: `$XDG_CONFIG_HOME/<dir>`, else `~/.config/<dir>`.
pub fn user_config_dir(agent: PluginAgent) -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| wicket::config::home_dir().map(|h| h.join(".config")))?;
    Some(base.join(agent.user_dir))
}

/// Where `wicket init <agent>` puts the plugin: for the user, and for the project at `root`.
pub fn plugin_files(agent: PluginAgent, root: &std::path::Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = user_config_dir(agent).into_iter().map(|d| d.join("plugin/wicket.js")).collect();
    out.push(root.join(agent.project_dir).join("plugin/wicket.js"));
    out
}

/// `wicket init opencode` and `wicket init kilo`: write wicket's plugin.
pub fn plugin(agent: PluginAgent, args: &InitPluginArgs) -> Result<ExitCode> {
    let file = if args.project {
        crate::check_cmd::project_root(args.root.as_deref())?.0.join(agent.project_dir).join("plugin/wicket.js")
    } else {
        user_config_dir(agent)
            .context("cannot find the configuration folder: set HOME or XDG_CONFIG_HOME")?
            .join("plugin/wicket.js")
    };
    let old = match std::fs::read_to_string(&file) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", file.display())),
    };
    let ours = old.as_deref().and_then(|t| crate::hook_opencode::plugin_parts(t, agent.name, agent.hook));
    let mut out = std::io::stdout().lock();
    if args.uninstall {
        match (&old, ours) {
            (None, _) => writeln!(out, "{}: no such file; nothing to remove", file.display())?,
            (Some(_), None) => bail!(
                "{}: not wicket's plugin as `wicket init {}` writes it (changed, or someone else's); nothing was removed: remove it yourself if it should go",
                file.display(),
                agent.hook
            ),
            (Some(_), Some(_)) if args.dry_run => writeln!(out, "would remove {} (dry run: nothing removed)", file.display())?,
            (Some(_), Some(_)) => {
                std::fs::remove_file(&file).with_context(|| format!("cannot remove {}", file.display()))?;
                writeln!(out, "removed: {} (wicket's plugin)", file.display())?;
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let argv: Vec<String> = match &args.command {
        Some(c) => vec!["/bin/sh".into(), "-c".into(), c.clone()],
        None => {
            // The same checks (and warning about a build folder) as every other agent's hook.
            init_cmd::hook_command(None, agent.hook, "")?;
            let exe = std::env::current_exe().context("cannot find wicket's own binary")?;
            let mut argv = vec![exe.to_string_lossy().into_owned(), "hook".into(), agent.hook.into()];
            if !args.unconfined_commands {
                argv.push("--sandbox-commands".into());
            }
            argv
        }
    };
    let new = crate::hook_opencode::plugin_source(agent.name, agent.hook, &argv, PLUGIN_TIMEOUT_MS);
    if old.as_deref() == Some(new.as_str()) {
        writeln!(out, "{}: wicket's plugin is already installed; nothing to change", file.display())?;
    } else {
        match &old {
            None => writeln!(out, "new file {} (wicket's plugin, {} lines)", file.display(), new.lines().count())?,
            Some(before) => {
                writeln!(out, "changes to {}:", file.display())?;
                for line in init_cmd::diff(before, &new) {
                    writeln!(out, "{line}")?;
                }
            }
        }
        if args.dry_run {
            writeln!(out, "(dry run: nothing written)")?;
            return Ok(ExitCode::SUCCESS);
        }
        init_cmd::write_atomic(&file, &new)?;
        writeln!(
            out,
            "written: {} (runs {}; refuses a call wicket does not answer within {PLUGIN_TIMEOUT_MS} ms)",
            file.display(),
            argv.join(" ")
        )?;
    }
    drop(out);
    init_cmd::say_where_commands_run(agent.name, args.unconfined_commands, "bash")?;
    println!(
        "note: {} skips a plugin that fails to load without a word, and then runs every tool unchecked: `wicket doctor` checks that this one is wicket's and loads",
        agent.name
    );
    init_cmd::next_steps(agent.name, &format!("wicket hook {}", agent.hook), args.dry_run);
    Ok(ExitCode::SUCCESS)
}
