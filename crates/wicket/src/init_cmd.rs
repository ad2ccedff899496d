//! `wicket init claude|codex|gemini [--user|--project]`: add wicket's hook to an agent's
//! hook settings (Claude Code's and Gemini CLI's `settings.json`, Codex's `hooks.json`).
//!
//! The hard question: how not to break a person's settings? The file is read and must be a
//! JSON object (else nothing is written); every other key and hook stays; wicket's own entry is
//! found by its command (` hook <agent>`) and replaced, so running `init` twice changes nothing;
//! the change is shown before it is written; the new file is written next to the old one and
//! renamed over it, so a crash leaves either file, never half of one.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use serde_json::{json, Map, Value};

/// `wicket init <agent>`.
#[derive(Args)]
pub struct InitArgs {
    #[command(subcommand)]
    pub agent: InitAgent,
}

/// The agents wicket can be set up for.
#[derive(Subcommand)]
pub enum InitAgent {
    /// Add `wicket hook claude` to Claude Code's settings (~/.claude/settings.json by default).
    Claude(InitClaudeArgs),
    /// Add `wicket hook codex` to Codex's hooks.json (~/.codex/hooks.json by default), and
    /// wicket's permission profile to Codex's config.toml as its default sandbox.
    Codex(InitCodexArgs),
    /// Add `wicket hook gemini` to Gemini CLI's settings (~/.gemini/settings.json by default).
    Gemini(InitGeminiArgs),
    /// Add `wicket hook qwen` to Qwen Code's settings (~/.qwen/settings.json by default); Qwen
    /// Code cannot take a rewritten command, so its commands stay on the host.
    Qwen(crate::init_agents::InitQwenArgs),
    /// Add `wicket hook droid` to Factory Droid's settings (~/.factory/settings.json by default).
    Droid(crate::init_agents::InitHookArgs),
    /// Add `wicket hook copilot` to GitHub Copilot CLI's settings (~/.copilot/settings.json by
    /// default; --project: .github/hooks/wicket.json).
    Copilot(crate::init_agents::InitHookArgs),
    /// Install wicket's plugin for OpenCode (~/.config/opencode/plugin/wicket.js by default).
    Opencode(crate::init_agents::InitPluginArgs),
    /// Install wicket's plugin for Kilo (~/.config/kilo/plugin/wicket.js by default).
    Kilo(crate::init_agents::InitPluginArgs),
}

/// The flags of `wicket init codex`.
#[derive(Args)]
pub struct InitCodexArgs {
    /// Write the user's hooks, $CODEX_HOME/hooks.json or ~/.codex/hooks.json (the default).
    #[arg(long, conflicts_with = "project")]
    pub user: bool,
    /// Write the project's hooks, <root>/.codex/hooks.json.
    #[arg(long)]
    pub project: bool,
    /// The project root for --project (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Also answer Codex's approval prompts (the PermissionRequest event).
    #[arg(long)]
    pub permission_request: bool,
    /// Leave Codex's commands without wicket's permission profile (and remove it if an earlier
    /// init wrote it): they then run in whatever sandbox your Codex settings choose, where the
    /// home's secrets (~/.ssh, ~/.aws, tokens) are readable, and only the hook's reading of each
    /// command stands between it and them.
    #[arg(long, conflicts_with = "uninstall")]
    pub unconfined_commands: bool,
    /// Also record in Codex's config.toml that you trust wicket's hook, as Codex's /hooks
    /// does (Codex skips an untrusted hook silently); a codex confirms it (see --codex).
    #[arg(long, conflicts_with = "uninstall")]
    pub trust: bool,
    /// The codex that confirms --trust (default: one in root's system folders, /usr/local/bin
    /// or /usr/bin; a codex elsewhere on PATH is never run, as a sandboxed command may have
    /// planted it).
    #[arg(long, value_name = "FILE", requires = "trust")]
    pub codex: Option<PathBuf>,
    /// The command Codex runs (default: this wicket binary's full path, `hook codex`).
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
    /// Show the change, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove wicket's hook from the file, and wicket's profile from Codex's config.toml,
    /// instead (everything else stays).
    #[arg(long)]
    pub uninstall: bool,
}

/// The flags of `wicket init gemini`.
#[derive(Args)]
pub struct InitGeminiArgs {
    /// Write the user's settings, ~/.gemini/settings.json (the default).
    #[arg(long, conflicts_with = "project")]
    pub user: bool,
    /// Write the project's settings, <root>/.gemini/settings.json.
    #[arg(long)]
    pub project: bool,
    /// The project root for --project (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Let allowed shell commands run on the host, outside the OS sandbox: only the gate's
    /// reading of each command then stands between it and your files, secrets and network.
    #[arg(long)]
    pub unconfined_commands: bool,
    /// The command Gemini CLI runs (default: this wicket binary's full path, `hook gemini`).
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
    /// Show the change, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove wicket's hook from the file instead (everything else stays).
    #[arg(long)]
    pub uninstall: bool,
}

/// The Codex tools the hook judges: its shell tools (all sent as `Bash`), patches, MCP tools.
pub const CODEX_MATCHER: &str = "^(Bash|apply_patch|mcp__.*)$";

/// The Gemini CLI tools the hook judges (old and new names of the search tool; MCP tools are
/// `mcp_<server>_<tool>`, which also matches the older `mcp__` names).
pub const GEMINI_MATCHER: &str = "^(run_shell_command|read_file|read_many_files|write_file|replace|glob|grep_search|search_file_content|list_directory|web_fetch|google_web_search|mcp_.*)$";

/// Gemini CLI reads hook timeouts in milliseconds.
pub const GEMINI_TIMEOUT_MS: u64 = TIMEOUT_SECS * 1000;

/// What `init` writes for one agent.
pub(crate) struct Plan<'a> {
    /// The settings file.
    pub(crate) file: PathBuf,
    /// The hook command.
    pub(crate) command: String,
    /// The events to register for.
    pub(crate) events: Vec<&'a str>,
    /// The tool matcher.
    pub(crate) matcher: &'a str,
    /// The text that marks a hook entry as wicket's (` hook claude`).
    pub(crate) marker: &'a str,
    /// wicket's hook entry.
    pub(crate) entry: Value,
}

/// The flags of `wicket init claude`.
#[derive(Args)]
pub struct InitClaudeArgs {
    /// Write the user's settings, ~/.claude/settings.json (the default).
    #[arg(long, conflicts_with = "project")]
    pub user: bool,
    /// Write the project's settings, <root>/.claude/settings.json.
    #[arg(long)]
    pub project: bool,
    /// The project root for --project (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Also answer Claude Code's permission prompts (the PermissionRequest event).
    #[arg(long)]
    pub permission_request: bool,
    /// Allowed Bash commands run inside `wicket run`, in the OS sandbox (the default; the flag
    /// is kept for scripts that pass it).
    #[arg(long, conflicts_with = "unconfined_commands")]
    pub sandbox_commands: bool,
    /// Let allowed Bash commands run on the host, outside the OS sandbox: only the gate's
    /// reading of each command then stands between it and your files, secrets and network.
    #[arg(long)]
    pub unconfined_commands: bool,
    /// Also bring the `permissions` rules (allow, deny, ask) of that Claude Code settings file
    /// over into wicket's settings (yours, or the project's with --project), showing each.
    #[arg(long)]
    pub import: bool,
    /// The command Claude Code runs (default: this wicket binary's full path, `hook claude`).
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
    /// Show the change, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove wicket's hook from the file instead (everything else stays).
    #[arg(long)]
    pub uninstall: bool,
}

/// The tools the hook judges, as an anchored matcher (Claude Code reads any matcher with
/// characters beyond names and `|` as an unanchored regex: `Edit` alone would match more).
pub const MATCHER: &str = "^(Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|WebFetch|WebSearch|mcp__.*)$";

/// Seconds Claude Code waits for the hook (a timeout lets the call through, so keep it short
/// but far above the hook's milliseconds).
pub const TIMEOUT_SECS: u64 = 10;

pub fn run(args: &InitArgs) -> Result<ExitCode> {
    match &args.agent {
        InitAgent::Claude(a) => claude(a),
        InitAgent::Codex(a) => codex(a),
        InitAgent::Gemini(a) => gemini(a),
        InitAgent::Qwen(a) => crate::init_agents::qwen(a),
        InitAgent::Droid(a) => crate::init_agents::droid(a),
        InitAgent::Copilot(a) => crate::init_agents::copilot(a),
        InitAgent::Opencode(a) => crate::init_agents::plugin(crate::init_agents::OPENCODE, a),
        InitAgent::Kilo(a) => crate::init_agents::plugin(crate::init_agents::KILO, a),
    }
}

/// The settings file: `<root>/<dir>/<name>` for --project, else `<home>/<dir>/<name>`.
pub(crate) fn settings_file(project: bool, root: Option<&Path>, dir: &str, name: &str) -> Result<PathBuf> {
    if project {
        let root = crate::check_cmd::project_root(root)?.0;
        Ok(root.join(dir).join(name))
    } else {
        let Some(home) = wicket::config::home_dir() else { bail!("cannot find the home folder: set HOME") };
        Ok(home.join(dir).join(name))
    }
}

/// The hook command: `--command`, else this binary's absolute path (quoted for a shell when
/// needed) and `hook <agent>` with `extra` flags.
pub(crate) fn hook_command(given: Option<&str>, agent: &str, extra: &str) -> Result<String> {
    if let Some(c) = given {
        return Ok(c.to_string());
    }
    let exe = std::env::current_exe().context("cannot find wicket's own binary")?;
    if let Some(target) = build_folder(&exe) {
        eprintln!(
            "wicket: warning: this wicket runs from the build folder {}: after `cargo clean` or a rebuild the \
             agent's hook cannot start, and the agent then refuses every call; install it first \
             (`cargo install --locked --path crates/wicket`) and run the installed `wicket init {agent}`, or \
             pass --command",
            target.display()
        );
    }
    let exe = exe.to_string_lossy();
    let exe = if exe.chars().all(|c| c.is_ascii_alphanumeric() || "-_./+@:".contains(c)) {
        exe.into_owned()
    } else {
        format!("'{}'", exe.replace('\'', "'\\''"))
    };
    Ok(format!("{exe} hook {agent}{extra}"))
}

/// The cargo build folder (`target`) the binary runs from, if any. Cargo always leaves its
/// `.rustc_info.json` there; `CACHEDIR.TAG` only when cargo itself created the folder.
fn build_folder(exe: &Path) -> Option<PathBuf> {
    exe.ancestors().skip(1).find(|d| d.join(".rustc_info.json").is_file()).map(Path::to_path_buf)
}

fn codex(args: &InitCodexArgs) -> Result<ExitCode> {
    let file = match (args.project, std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty())) {
        (false, Some(home)) => PathBuf::from(home).join("hooks.json"),
        _ => settings_file(args.project, args.root.as_deref(), ".codex", "hooks.json")?,
    };
    let command = hook_command(args.command.as_deref(), "codex", "")?;
    let mut events = vec!["PreToolUse"];
    if args.permission_request {
        events.push("PermissionRequest");
    }
    let entry = json!({"type": "command", "command": command, "timeout": TIMEOUT_SECS});
    let plan = Plan { file, command, events, matcher: CODEX_MATCHER, marker: " hook codex", entry };
    let config = crate::codex_trust::codex_home()
        .context("neither CODEX_HOME nor HOME is set, so Codex's config.toml cannot be found")?
        .join("config.toml");
    if args.uninstall {
        let code = uninstall(&plan, args.dry_run)?;
        codex_profile_removed(&config, args.dry_run)?;
        return Ok(code);
    }
    // A config.toml that cannot take the profile (or the trust), or a profile that cannot be
    // said, stops everything before the hook is written.
    crate::codex_profile::settings(&config)?;
    let places = crate::codex_profile::Places::from_env();
    let denied = if args.unconfined_commands { Vec::new() } else { crate::codex_profile::denied(&places)? };
    let code = install(&plan, args.dry_run)?;
    codex_commands(args, &config, &denied)?;
    next_steps("Codex", &plan.command, args.dry_run);
    if args.trust {
        return codex_trust(&plan, args);
    }
    println!(
        "note: Codex runs a new or changed hook only after you trust it, and skips it silently until then: \
run `wicket init codex --trust` (add --project for the project's hooks), or start codex, open /hooks and trust wicket's hook."
    );
    Ok(code)
}

/// Show a change to Codex's config.toml and write it (unless a dry run).
fn write_config_change(config: &Path, before: &str, after: &str, dry_run: bool, what: &str) -> Result<()> {
    println!("{} {}:", if before.is_empty() { "new file" } else { "changes to" }, config.display());
    for line in diff(before, after) {
        println!("{line}");
    }
    if dry_run {
        println!("(dry run: nothing written)");
        return Ok(());
    }
    write_atomic(config, after)?;
    println!("written: {} ({what})", config.display());
    Ok(())
}

/// Remove wicket's profile from Codex's config.toml (what `--uninstall` and
/// `--unconfined-commands` do).
fn codex_profile_removed(config: &Path, dry_run: bool) -> Result<()> {
    match crate::codex_profile::uninstall(config)? {
        None => println!("{}: wicket's permission profile is not there; nothing to remove", config.display()),
        Some((before, after)) => write_config_change(config, &before, &after, dry_run, "wicket's profile removed")?,
    }
    Ok(())
}

/// Write (or, with `--unconfined-commands`, remove) wicket's permission profile in Codex's
/// user config.toml, and say plainly where Codex's shell commands will run.
fn codex_commands(args: &InitCodexArgs, config: &Path, denied: &[String]) -> Result<()> {
    use crate::codex_profile as cp;
    if args.unconfined_commands {
        codex_profile_removed(config, args.dry_run)?;
        println!(
            "note: Codex's shell commands run in whatever sandbox your Codex settings choose, without wicket's \
permission profile (--unconfined-commands): wicket's hook judges each one, and the home's secrets (~/.ssh, ~/.aws, \
tokens) are readable to them"
        );
        return Ok(());
    }
    let r = cp::install(config, denied)?;
    match &r.change {
        None => println!("{}: wicket's permission profile is already set up; nothing to change", config.display()),
        Some((before, after)) => {
            write_config_change(config, before, after, args.dry_run, "wicket's permission profile")?
        }
    }
    match &r.conflict {
        None => println!(
            "Codex's shell commands run in Codex's own sandbox with wicket's permission profile \"{}\" ({}): writes only in \
the project and temp folders, the home's secrets wicket knows unreadable ({} entries), no network (wicket's per-host \
network.allow cannot be said in Codex's profile); wicket's hook judges each one first (opt out with --unconfined-commands)",
            cp::NAME,
            config.display(),
            denied.len()
        ),
        Some(why) => println!(
            "warning: wicket's permission profile is in {} but is not Codex's default, because of {why}. Until then \
Codex's shell commands run as that setting says, judged by wicket's hook, with the home's secrets readable to them",
            config.display()
        ),
    }
    if args.project {
        println!(
            "note: the profile is in your user config.toml, which Codex reads for every project; a project's own \
.codex/config.toml can replace it"
        );
    }
    let root = match (args.project, &args.root) {
        (true, Some(r)) => Some(r.clone()),
        _ => std::env::current_dir().ok(),
    };
    if let Some(w) = root.as_deref().and_then(cp::project_override) {
        println!("warning: {w}");
    }
    Ok(())
}

/// A codex from root's folders; one elsewhere on `PATH` is named and left alone.
fn trusted_codex() -> Option<crate::codex_trust::CodexBin> {
    match wicket_sandbox::helper::find("codex") {
        Ok(h) => Some(crate::codex_trust::CodexBin::Trusted(h)),
        Err(e) => {
            if let Some(on_path) = wicket_sandbox::probe::which("codex") {
                let why = match e {
                    wicket_sandbox::helper::HelperError::Missing { .. } => {
                        "wicket runs only a codex in root's system folders, as a sandboxed command may have planted one elsewhere".to_string()
                    }
                    other => other.to_string(),
                };
                println!("note: {} (on PATH) is not run: {why}; name it with --codex to ask it", on_path.display());
            }
            None
        }
    }
}

/// Record trust for wicket's handlers in the plan's hooks file, in Codex's user config.toml,
/// then have a real codex (when on PATH) confirm it.
fn codex_trust(plan: &Plan<'_>, args: &InitCodexArgs) -> Result<ExitCode> {
    use crate::codex_trust as ct;
    let file =
        std::path::absolute(&plan.file).with_context(|| format!("{}: cannot make absolute", plan.file.display()))?;
    let hooks = planned(plan)?;
    let handlers = ct::wicket_handlers(&file, &hooks, plan.marker);
    let codex_home =
        ct::codex_home().context("neither CODEX_HOME nor HOME is set, so Codex's config.toml cannot be found")?;
    let config = codex_home.join("config.toml");
    // Codex reads a project's hooks from the folder it runs in; the user's from anywhere.
    let cwd = match (args.project, &args.root) {
        (true, Some(r)) => r.clone(),
        _ => std::env::current_dir().context("cannot read the current folder")?,
    };
    let codex = match &args.codex {
        Some(p) => Some(ct::CodexBin::Named(
            std::path::absolute(p).with_context(|| format!("{}: cannot make absolute", p.display()))?,
        )),
        None => trusted_codex(),
    };
    // Where a codex can be asked, its own hash wins: a newer Codex may hash differently.
    let listed = match (&codex, args.dry_run) {
        (Some(c), false) => match ct::ask_codex(c, &cwd) {
            Ok(l) => Some(l),
            Err(e) => {
                println!(
                    "warning: could not ask {} for its hooks ({e:#}); using Codex's hash rule as wicket knows it",
                    c.display()
                );
                None
            }
        },
        _ => None,
    };
    let mut trust = Vec::new();
    for h in &handlers {
        let seen = listed.as_ref().and_then(|(_, l)| l.iter().find(|x| x.key == h.key));
        let hash = match (seen, &h.hash) {
            (Some(x), _) if !x.current_hash.is_empty() => x.current_hash.clone(),
            (_, Ok(hash)) => hash.clone(),
            (_, Err(why)) => bail!(
                "{}: cannot work out Codex's trust hash for wicket's hook ({}): {why}; trust it in codex's /hooks instead",
                file.display(),
                h.key
            ),
        };
        trust.push((h.key.clone(), hash));
    }
    if trust.is_empty() {
        bail!("{}: wicket's hook is not there, so there is nothing to trust", file.display());
    }
    match ct::with_trust(&config, &trust)? {
        None => println!("{}: Codex already trusts wicket's hook; nothing to change", config.display()),
        Some((before, after)) => {
            println!("{} {}:", if before.is_empty() { "new file" } else { "changes to" }, config.display());
            for line in diff(&before, &after) {
                println!("{line}");
            }
            if args.dry_run {
                println!("(dry run: nothing written)");
                return Ok(ExitCode::SUCCESS);
            }
            write_atomic(&config, &after)?;
            println!("written: {} (Codex trusts wicket's hook)", config.display());
        }
    }
    for (key, _) in &trust {
        if ct::state(&config, key)?.enabled == Some(false) {
            println!("warning: Codex has wicket's hook {key} switched off (enabled = false in {}); turn it on in codex's /hooks", config.display());
        }
    }
    if args.project {
        println!("note: Codex reads a project's .codex/ folder only in a project it trusts (it asks the first time you start codex there).");
    }
    let Some(codex) = codex else {
        println!(
            "note: no codex was asked (none in root's system folders; --codex names one), so Codex itself could not confirm this; the hash follows Codex's rule as of Codex 0.171, and `wicket doctor` shows the trust."
        );
        return Ok(ExitCode::SUCCESS);
    };
    if args.dry_run {
        return Ok(ExitCode::SUCCESS);
    }
    let (version, listed) = ct::ask_codex(&codex, &cwd)
        .with_context(|| format!("the trust is written, but {} could not confirm it", codex.display()))?;
    let mut ok = true;
    for (key, _) in &trust {
        match listed.iter().find(|x| &x.key == key) {
            Some(x) if x.trust_status == "trusted" => {
                println!("Codex {version} ({}): wicket's hook {key} is trusted", codex.display())
            }
            Some(x) => {
                ok = false;
                println!(
                    "error: Codex {version} ({}) reports wicket's hook {key} as {}; trust it in codex's /hooks",
                    codex.display(),
                    x.trust_status
                );
            }
            None => {
                ok = false;
                let why = if args.project {
                    format!(
                        "Codex loads a project's .codex/ folder only once you trust the project: start codex in {} once and agree, then run this again",
                        cwd.display()
                    )
                } else {
                    "is the hooks file the one Codex reads (CODEX_HOME)?".to_string()
                };
                println!("error: Codex {version} ({}) does not see wicket's hook {key}; {why}", codex.display());
            }
        }
    }
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn gemini(args: &InitGeminiArgs) -> Result<ExitCode> {
    let file = settings_file(args.project, args.root.as_deref(), ".gemini", "settings.json")?;
    let extra = if args.unconfined_commands { "" } else { " --sandbox-commands" };
    let command = hook_command(args.command.as_deref(), "gemini", extra)?;
    let entry = json!({"name": "wicket", "type": "command", "command": command, "timeout": GEMINI_TIMEOUT_MS,
        "description": "wicket decides each tool call (allow, or deny with a reason)"});
    let plan =
        Plan { file, command, events: vec!["BeforeTool"], matcher: GEMINI_MATCHER, marker: " hook gemini", entry };
    if args.uninstall {
        return uninstall(&plan, args.dry_run);
    }
    let code = install(&plan, args.dry_run)?;
    say_where_commands_run("Gemini CLI", args.unconfined_commands, "shell")?;
    next_steps("Gemini CLI", &plan.command, args.dry_run);
    // Hooks can be switched off in the same file; say so rather than leave a silent gap.
    if let Ok(text) = std::fs::read_to_string(&plan.file) {
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            let mut out = std::io::stdout().lock();
            for w in gemini_warnings(&v) {
                writeln!(out, "warning: {w}")?;
            }
        }
    }
    Ok(code)
}

/// What to do next, after a hook was written: the agent reads its settings when it starts.
pub(crate) fn next_steps(agent: &str, hook: &str, dry_run: bool) {
    if dry_run {
        return;
    }
    println!(
        "next: restart {agent} (it reads its hooks when it starts); `wicket doctor` shows what is protected; \
         `{hook} --example` shows what the hook answers to a few typical calls, run in a project; \
         a project's .wicket/settings.json that loosens safety applies once you agree to it (`wicket trust approve`)"
    );
}

/// Say plainly where the agent's shell commands will run: in the OS sandbox, or on the host
/// (opted out, or no sandbox works on this machine, and why).
pub(crate) fn say_where_commands_run(agent: &str, unconfined: bool, tool: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if unconfined {
        writeln!(
            out,
            "note: {agent}'s {tool} commands run on the host, unconfined (--unconfined-commands): wicket judges each one, and nothing else stands between it and your files, secrets and network"
        )?;
        return Ok(());
    }
    let probe = wicket::config::probe();
    if probe.backend.confines() {
        writeln!(
            out,
            "{agent}'s allowed {tool} commands run inside the OS sandbox ({}): writes only in the project, temp and caches, no secrets, no network but network.allow (opt out with --unconfined-commands)",
            probe.backend.name()
        )?;
    } else {
        let why = probe.bwrap_works.err().unwrap_or_else(|| "no sandbox backend works here".into());
        writeln!(
            out,
            "warning: no OS sandbox works on this machine ({why}), so {agent}'s {tool} commands run on the host and wicket judges them as host commands; install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and check `wicket doctor`"
        )?;
    }
    Ok(())
}

/// Settings in a Gemini CLI file that keep wicket's hook from running.
fn gemini_warnings(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (path, value) in [
        ("hooksConfig.enabled", &v["hooksConfig"]["enabled"]),
        ("hooks.enabled", &v["hooks"]["enabled"]),
        ("tools.enableHooks", &v["tools"]["enableHooks"]),
    ] {
        if value == &Value::Bool(false) {
            out.push(format!(
                "{path} is false in this file: Gemini CLI runs no hooks, wicket's included; set it to true"
            ));
        }
    }
    for path in ["hooksConfig", "hooks"] {
        if let Some(Value::Array(list)) = v[path].get("disabled") {
            if list.iter().any(|x| x.as_str().is_some_and(|s| s == "wicket" || s.contains(" hook gemini"))) {
                out.push(format!(
                    "{path}.disabled lists wicket's hook: remove it there, or Gemini CLI will not run it"
                ));
            }
        }
    }
    out
}

fn claude(args: &InitClaudeArgs) -> Result<ExitCode> {
    let file = settings_file(args.project, args.root.as_deref(), ".claude", "settings.json")?;
    let extra = if args.unconfined_commands { "" } else { " --sandbox-commands" };
    let command = hook_command(args.command.as_deref(), "claude", extra)?;
    let mut events = vec!["PreToolUse"];
    if args.permission_request {
        events.push("PermissionRequest");
    }
    let entry = json!({"type": "command", "command": command, "timeout": TIMEOUT_SECS});
    let plan = Plan { file, command, events, matcher: MATCHER, marker: " hook claude", entry };
    if args.uninstall {
        return uninstall(&plan, args.dry_run);
    }
    // Read before the hook is merged in (the rules are the person's, not ours).
    let imported = if args.import { Some(claude_rules(&plan.file)?) } else { None };
    let code = install(&plan, args.dry_run)?;
    say_where_commands_run("Claude Code", args.unconfined_commands, "Bash")?;
    next_steps("Claude Code", &plan.command, args.dry_run);
    if let Some(rules) = imported {
        let target = if args.project {
            crate::check_cmd::project_root(args.root.as_deref())?.0.join(".wicket/settings.json")
        } else {
            wicket::config::wicket_home()?.join("settings.json")
        };
        import_rules(&rules, &target, args.dry_run)?;
        if args.project {
            println!(
                "note: a project's allow rules apply once you agree to them: `wicket trust approve` shows them and asks"
            );
        }
    }
    Ok(code)
}

/// The `permissions` rules of a Claude Code settings file: (list, rule) in file order.
fn claude_rules(file: &Path) -> Result<Vec<(&'static str, String)>> {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", file.display())),
    };
    let v: Value = serde_json::from_str(&text).with_context(|| format!("{}: not valid JSON", file.display()))?;
    let mut out = Vec::new();
    for list in ["allow", "deny", "ask"] {
        for r in v["permissions"][list].as_array().into_iter().flatten() {
            if let Some(r) = r.as_str() {
                out.push((list, r.to_string()));
            }
        }
    }
    Ok(out)
}

/// Add Claude Code's rules to wicket's settings file `target`: each rule wicket can read (its
/// own syntax, Claude Code's as Claude Code means it) is added to the same list; one it cannot
/// is shown with why and left out. The result is checked as settings before it is written.
fn import_rules(rules: &[(&'static str, String)], target: &Path, dry_run: bool) -> Result<()> {
    if rules.is_empty() {
        println!("import: no permissions rules in Claude Code's settings");
        return Ok(());
    }
    let text = match std::fs::read_to_string(target) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "{}".to_string(),
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", target.display())),
    };
    let mut v: Value = serde_json::from_str(&text).with_context(|| format!("{} is not JSON", target.display()))?;
    let mut added = 0;
    for (list, rule) in rules {
        match wicket_policy::rules::expand(rule) {
            Err(e) => println!("import: skipped {list} {rule}: {}", e.why),
            Ok(meaning) => {
                let entries = v
                    .as_object_mut()
                    .and_then(|o| o.entry("permissions").or_insert_with(|| json!({})).as_object_mut())
                    .and_then(|p| p.entry(*list).or_insert_with(|| json!([])).as_array_mut())
                    .with_context(|| format!("{}: permissions.{list} is not a list", target.display()))?;
                if entries.iter().any(|r| r.as_str() == Some(rule)) {
                    continue;
                }
                entries.push(Value::String(rule.clone()));
                added += 1;
                let shown: Vec<String> = meaning.iter().map(ToString::to_string).collect();
                println!("import: {list} {rule}  (wicket reads it as {})", shown.join(", "));
            }
        }
    }
    if added == 0 {
        println!("import: nothing new for {}", target.display());
        return Ok(());
    }
    let mut new = serde_json::to_string_pretty(&v)?;
    new.push('\n');
    wicket_policy::Settings::parse(&new, &target.display().to_string())?;
    if dry_run {
        println!("(dry run: {} not written)", target.display());
        return Ok(());
    }
    write_atomic(target, &new)?;
    println!("written: {} ({added} rule(s) imported)", target.display());
    Ok(())
}

/// Remove wicket's hook entries (every event) from the plan's file; groups and events left
/// empty by that go too. Shows the change, then writes it (unless a dry run).
pub(crate) fn uninstall(plan: &Plan<'_>, dry_run: bool) -> Result<ExitCode> {
    let file = &plan.file;
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            println!("{}: no such file; nothing to remove", file.display());
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", file.display())),
    };
    let old: Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not valid JSON; fix it first, nothing was written", file.display()))?;
    let mut new = old.clone();
    if let Some(Value::Object(hooks)) = new.get_mut("hooks") {
        for groups in hooks.values_mut() {
            let Value::Array(groups) = groups else { continue };
            for g in groups.iter_mut() {
                if let Some(Value::Array(list)) = g.get_mut("hooks") {
                    list.retain(|h| !is_ours(h, plan.marker));
                }
            }
            groups.retain(|g| !g.get("hooks").and_then(Value::as_array).is_some_and(Vec::is_empty));
        }
        hooks.retain(|_, groups| !groups.as_array().is_some_and(Vec::is_empty));
    }
    let (before, after) = (pretty(&old)?, pretty(&new)?);
    if before == after {
        println!("{}: wicket's hook is not there; nothing to remove", file.display());
        return Ok(ExitCode::SUCCESS);
    }
    println!("changes to {}:", file.display());
    for line in diff(&before, &after) {
        println!("{line}");
    }
    if dry_run {
        println!("(dry run: nothing written)");
        return Ok(ExitCode::SUCCESS);
    }
    write_atomic(file, &after)?;
    println!("written: {} (wicket's hook removed)", file.display());
    Ok(ExitCode::SUCCESS)
}

/// Merge wicket's hook into the plan's file: show the change, then write it (unless a dry run).
pub(crate) fn install(plan: &Plan<'_>, dry_run: bool) -> Result<ExitCode> {
    let file = &plan.file;
    let (old_text, old) = current(plan)?;
    let new = merge_entry(&old, &plan.entry, &plan.events, plan.matcher, plan.marker)
        .with_context(|| format!("{}: unexpected shape; nothing was written", file.display()))?;
    let before = pretty(&old)?;
    let after = pretty(&new)?;
    let mut out = std::io::stdout().lock();
    if before == after && old_text.is_some() {
        writeln!(out, "{}: wicket's hook is already set up; nothing to change", file.display())?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{} {}:", if old_text.is_some() { "changes to" } else { "new file" }, file.display())?;
    for line in diff(&before, &after) {
        writeln!(out, "{line}")?;
    }
    if dry_run {
        writeln!(out, "(dry run: nothing written)")?;
        return Ok(ExitCode::SUCCESS);
    }
    write_atomic(file, &after)?;
    writeln!(out, "written: {} (hook command: {})", file.display(), plan.command)?;
    Ok(ExitCode::SUCCESS)
}

/// The plan's file as it is (its text, `None` when missing) and as JSON.
fn current(plan: &Plan<'_>) -> Result<(Option<String>, Value)> {
    let file = &plan.file;
    let old_text = match std::fs::read_to_string(file) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", file.display())),
    };
    let old: Value = match old_text.as_deref() {
        None => json!({}),
        Some(t) if t.trim().is_empty() => json!({}),
        Some(t) => serde_json::from_str(t)
            .with_context(|| format!("{}: not valid JSON; fix it first, nothing was written", file.display()))?,
    };
    Ok((old_text, old))
}

/// The plan's file as `install` leaves it (for a dry run: as it would).
fn planned(plan: &Plan<'_>) -> Result<Value> {
    let (_, old) = current(plan)?;
    merge_entry(&old, &plan.entry, &plan.events, plan.matcher, plan.marker)
        .with_context(|| format!("{}: unexpected shape", plan.file.display()))
}

/// Is this hook entry wicket's (its command holds `marker`, e.g. ` hook claude`)?
pub(crate) fn is_ours(hook: &Value, marker: &str) -> bool {
    hook.get("command").and_then(Value::as_str).is_some_and(|c| c.contains(marker) || c == marker.trim_start())
}

/// The settings with the hook entry `ours` for each event: an existing entry of ours (found
/// by `marker`) is replaced in place (other hooks of its group stay), otherwise a new group
/// with `matcher` is appended.
fn merge_entry(old: &Value, ours: &Value, events: &[&str], matcher: &str, marker: &str) -> Result<Value> {
    let Value::Object(root) = old else { bail!("the settings file is not a JSON object") };
    let mut root = root.clone();
    let hooks = root.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else { bail!("\"hooks\" is not an object") };
    for event in events {
        let groups = hooks.entry(*event).or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else { bail!("\"hooks.{event}\" is not an array") };
        let mut found = false;
        for group in groups.iter_mut() {
            let Some(Value::Array(list)) = group.get_mut("hooks") else { continue };
            let mut keep = Vec::with_capacity(list.len());
            for h in list.drain(..) {
                if is_ours(&h, marker) {
                    if !found {
                        keep.push(ours.clone());
                        found = true;
                    }
                } else {
                    keep.push(h);
                }
            }
            *list = keep;
            if found {
                if let Value::Object(g) = group {
                    g.insert("matcher".into(), json!(matcher));
                }
                break;
            }
        }
        if !found {
            groups.push(json!({"matcher": matcher, "hooks": [ours.clone()]}));
        }
    }
    Ok(Value::Object(root))
}

pub(crate) fn pretty(v: &Value) -> Result<String> {
    let mut s = serde_json::to_string_pretty(v)?;
    s.push('\n');
    Ok(s)
}

/// A line diff: lines only in `a` with `-`, only in `b` with `+`, a few unchanged around them
/// ([`similar`]'s Myers diff: linear memory whatever the file).
pub(crate) fn diff(a: &str, b: &str) -> Vec<String> {
    let d = similar::TextDiff::from_lines(a, b);
    let ops: Vec<(char, &str)> = d
        .iter_all_changes()
        .map(|c| {
            let op = match c.tag() {
                similar::ChangeTag::Equal => ' ',
                similar::ChangeTag::Insert => '+',
                similar::ChangeTag::Delete => '-',
            };
            (op, c.value().strip_suffix('\n').unwrap_or(c.value()))
        })
        .collect();
    let near = |k: usize| ops.iter().enumerate().any(|(x, (op, _))| *op != ' ' && x.abs_diff(k) <= 2);
    let mut out = Vec::new();
    let mut skipped = false;
    for (k, (op, line)) in ops.iter().enumerate() {
        if *op != ' ' || near(k) {
            if skipped {
                out.push("  …".to_string());
                skipped = false;
            }
            out.push(format!("{op} {line}"));
        } else {
            skipped = true;
        }
    }
    out
}

/// Write `text` to `file` through a temporary file in the same folder and a rename.
pub(crate) fn write_atomic(file: &Path, text: &str) -> Result<()> {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "settings.json".into());
    let tmp = dir.join(format!(".{name}.wicket-{}.tmp", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        if let Ok(meta) = std::fs::metadata(file) {
            f.set_permissions(meta.permissions())?;
        }
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, file)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", file.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merge(old: &Value, command: &str, events: &[&str]) -> Result<Value> {
        let ours = json!({"type": "command", "command": command, "timeout": TIMEOUT_SECS});
        merge_entry(old, &ours, events, MATCHER, " hook claude")
    }

    #[test]
    fn gemini_switches_that_keep_hooks_off_are_reported() {
        let v = json!({"hooksConfig": {"enabled": false, "disabled": ["wicket"]}, "hooks": {"BeforeTool": []}});
        assert_eq!(gemini_warnings(&v).len(), 2, "{:?}", gemini_warnings(&v));
        assert!(gemini_warnings(&json!({"hooks": {"enabled": true}})).is_empty());
    }

    #[test]
    fn merge_keeps_other_hooks_and_is_idempotent() {
        let old = json!({"model": "x", "hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "other"}]}
        ], "Stop": []}});
        let once = merge(&old, "/bin/wicket hook claude", &["PreToolUse"]).unwrap_or_default();
        let twice = merge(&once, "/bin/wicket hook claude", &["PreToolUse"]).unwrap_or_default();
        assert_eq!(once, twice);
        assert_eq!(once["model"], "x");
        assert_eq!(once["hooks"]["PreToolUse"].as_array().map(Vec::len), Some(2));
        assert_eq!(once["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "other");
        assert!(merge(&json!([]), "c", &["PreToolUse"]).is_err());
    }

    #[test]
    fn diff_marks_added_lines() {
        let d = diff("{\n}\n", "{\n  \"a\": 1\n}\n");
        assert!(d.contains(&"+   \"a\": 1".to_string()), "{d:?}");
    }
}
