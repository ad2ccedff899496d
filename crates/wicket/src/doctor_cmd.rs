//! `wicket doctor`: which sandbox backends work here, what each isolates, and what to install
//! or change. Exits non-zero when the configured executor cannot run.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use wicket::config::{self, Placement};
use wicket_sandbox::{Backend, Probe};

/// The flags of `wicket doctor`.
#[derive(Args)]
pub struct DoctorArgs {
    /// The project root whose settings choose the executor (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

fn isolates(b: &Backend) -> &'static str {
    match b {
        Backend::Bwrap { .. } => {
            "user, pid, net, ipc and uts namespaces; read-only / with the project and temp writable, the package caches through a layer per project; \
read-only git hooks, git config and agent/editor config; home secrets, wicket's own state and (as root) root-only \
system files masked; no capabilities; only stdio inherited; seccomp (no Unix, vsock, packet or non-route netlink \
sockets); Landlock inside"
        }
        Backend::Landlock { .. } => {
            "Landlock file rules (writes only in the project, temp and caches; secrets, wicket's own state and (as root) \
root-only system files unreadable), signal and abstract-socket scoping, seccomp (no sockets), no capabilities and \
an empty bounding set, only stdio inherited, death with wicket; where root or user namespaces allow: own pid, \
mount, ipc, uts and net namespaces with a fresh /proc and /dev/shm, and in that mount namespace read-only git hooks, \
git config and agent/editor config"
        }
        Backend::Seatbelt => {
            "the Seatbelt profile: writes only in the project, temp and caches; secrets unreadable; no network"
        }
        Backend::None => "nothing",
    }
}

/// Say so when the `name` first on `PATH` is not the helper wicket runs (`trusted`, a real
/// path): wicket never runs one from `PATH`.
fn not_on_path(name: &str, trusted: Option<&std::path::Path>) {
    let Some(on_path) = wicket_sandbox::probe::which(name) else { return };
    if std::fs::canonicalize(&on_path).ok().as_deref() == trusted {
        return;
    }
    let dirs = wicket_sandbox::helper::TRUSTED_DIRS.join(", ");
    match wicket_sandbox::helper::check(&on_path) {
        Ok(_) => println!(
            "  note: {} (first on PATH) is not the {name} wicket runs: wicket takes the first in {dirs}, in that order",
            on_path.display()
        ),
        Err(why) => println!(
            "  note: {} (first on PATH) is never run: {why} (helpers come only from {dirs}, owned by root)",
            on_path.display()
        ),
    }
}

/// Print the report; the exit status says whether commands can run as configured.
pub fn doctor(args: &DoctorArgs) -> Result<ExitCode> {
    // Outside any project (right after installing, in the home folder) the machine and the
    // person's own settings are still worth checking: no project layer then.
    let root = match crate::check_cmd::project_root(args.root.as_deref()) {
        Ok((root, _)) => root,
        Err(e) if args.root.is_none() => {
            println!(
                "project: none here ({}); the checks below use your own settings only",
                first_clause(&e.to_string())
            );
            PathBuf::from("/")
        }
        Err(e) => return Err(e),
    };
    let probe = Probe::run();
    println!("kernel: {}", probe.kernel);
    match (&probe.bwrap_path, &probe.bwrap_version) {
        (Some(p), v) => println!("bubblewrap: {} ({})", p.display(), v.as_deref().unwrap_or("version unknown")),
        (None, _) => println!(
            "bubblewrap: not installed (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
        ),
    }
    match &probe.bwrap_works {
        Ok(()) => println!("  namespaces: user, pid, net, ipc, uts work"),
        Err(e) => println!(
            "  namespaces: do not work: {e}\n  fix: allow unprivileged user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1, \
or on Ubuntu 24.04+ an AppArmor profile for bwrap), or install bwrap setuid"
        ),
    }
    match &probe.own_namespaces {
        Ok(()) => println!("  built by: wicket itself (bubblewrap's mounts and namespaces, with the new mount API)"),
        Err(e) => println!("  built by: bubblewrap (wicket's own namespaces do not work here: {e})"),
    }
    if probe.landlock_abi > 0 {
        println!("Landlock: ABI {}", probe.landlock_abi);
    } else {
        println!("Landlock: not available (needs Linux 5.13+ with lsm=landlock)");
    }
    println!("seccomp: {}", if probe.seccomp { "available" } else { "not available" });
    println!("best backend: {}: {}", probe.backend.name(), isolates(&probe.backend));
    if let Ok(exe) = std::env::current_exe() {
        let shim = wicket_sandbox::shim::program(&exe);
        if shim == exe {
            println!(
                "helper: wicket itself (no trusted {} next to it; it starts faster)",
                wicket_sandbox::shim::SMALL_SHIM
            );
        } else {
            println!("helper: {}", shim.display());
        }
    }
    not_on_path("bwrap", probe.bwrap_path.as_deref());
    // The git wicket asks for a project's configuration; without one, every git command is
    // treated as one that may run code.
    let git = wicket_sandbox::helper::find("git");
    match &git {
        Ok(g) => println!("git (to read a project's git configuration): {}", g.path().display()),
        Err(e) => println!(
            "git (to read a project's git configuration): none wicket may run ({e}); the configuration counts as unreadable, so git commands are treated as ones that may run code"
        ),
    }
    not_on_path("git", git.as_ref().ok().map(wicket_sandbox::helper::Helper::path));
    #[cfg(target_os = "linux")]
    println!(
        "fallback namespaces (pid, mount, ipc, uts, net without bubblewrap): {}",
        if wicket_sandbox::fallback::namespaces_work() {
            "available"
        } else {
            "not available (neither root nor user namespaces)"
        }
    );
    for m in probe.backend.missing() {
        println!("  missing: {m}");
    }
    #[cfg(target_os = "linux")]
    if let Ok(home) = config::wicket_home() {
        let layers = home.join("layers");
        match wicket_sandbox::layers::available(&home) {
            Ok(()) => println!(
                "package caches (~/.cargo/registry, ~/.npm, ~/.cache …): a writable layer per project over each (overlayfs), in {}; the host caches are never written (delete that folder to drop the layers)",
                layers.display()
            ),
            Err(e) => println!(
                "package caches (~/.cargo/registry, ~/.npm, ~/.cache …): read-only in the sandbox, because overlays cannot be mounted here ({e}); package installs that write them may fail"
            ),
        }
        let bwrap = matches!(probe.backend, wicket_sandbox::Backend::Bwrap { .. });
        match (bwrap, wicket_sandbox::layers::available(&home)) {
            (true, Ok(())) => println!(
                "staged runs (`wicket run --staged`): available, an overlay over the project; stages in {}",
                home.join("staged").display()
            ),
            (false, _) => println!("staged runs (`wicket run --staged`): not available (they need bubblewrap)"),
            (true, Err(e)) => println!("staged runs (`wicket run --staged`): not available (no overlay: {e})"),
        }
    }
    for line in agent_hooks(&root).into_iter().chain(command_lines(&root)).chain(plugin_lines(&root)) {
        println!("{line}");
    }
    for w in hook_timeout_warnings(&root).into_iter().chain(gemini_matcher_warnings(&root)) {
        println!("warning: {w}");
    }
    let loaded = config::load(&root)?;
    // Refresh the cached probe the other commands read.
    let _ = config::probe();
    match config::placement(&loaded, false) {
        Ok(Placement::Sandbox(b)) => {
            println!("commands run: in the OS sandbox ({})", b.name());
            Ok(ExitCode::SUCCESS)
        }
        Ok(Placement::Host(why)) => {
            println!("commands run: on the host ({why})");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            println!("commands cannot run as configured: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// The first clause of a message (up to its first `;` or `(`), for a one-line mention.
fn first_clause(s: &str) -> &str {
    s.split([';', '(']).next().unwrap_or(s).trim()
}

/// The agents' settings files where `wicket init` puts its hook, with the unit of their
/// `timeout` (milliseconds for Gemini CLI, seconds for the others).
fn hook_files(root: &std::path::Path) -> Vec<(PathBuf, u64)> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let codex_home =
        std::env::var_os("CODEX_HOME").map(PathBuf::from).or_else(|| home.as_ref().map(|h| h.join(".codex")));
    let mut files = Vec::new();
    for base in home.iter().chain(std::iter::once(&root.to_path_buf())) {
        files.push((base.join(".claude/settings.json"), 1000));
        files.push((base.join(".gemini/settings.json"), 1));
        files.push((base.join(".qwen/settings.json"), 1000));
        files.push((base.join(".factory/settings.json"), 1000));
    }
    files.push((root.join(".claude/settings.local.json"), 1000));
    let copilot_home = std::env::var_os("COPILOT_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".copilot")));
    files.extend(copilot_home.map(|c| (c.join("settings.json"), 1000)));
    files.push((root.join(".github/hooks/wicket.json"), 1000));
    files.extend(codex_home.map(|c| (c.join("hooks.json"), 1000)));
    files.push((root.join(".codex/hooks.json"), 1000));
    files
}

/// One line per installed wicket hook: the agent, the file, and whether the program its
/// command starts exists (a hook whose program is gone makes the agent refuse every call, or
/// with some agents let every call through).
pub fn agent_hooks(root: &std::path::Path) -> Vec<String> {
    fn commands(v: &serde_json::Value, found: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                // Copilot CLI's entries name their command `bash`.
                for key in ["command", "bash"] {
                    if let Some(c) = m.get(key).and_then(serde_json::Value::as_str) {
                        if c.contains(" hook ") {
                            found.push(c.to_string());
                        }
                    }
                }
                m.values().for_each(|x| commands(x, found));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| commands(x, found)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (file, _) in hook_files(root) {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        let mut found = Vec::new();
        commands(&v, &mut found);
        // One line per command, however many events it answers.
        found.sort();
        found.dedup();
        for c in found {
            let Some(agent) = crate::init_agents::HOOK_AGENTS.iter().find(|a| c.contains(&format!(" hook {a}"))) else {
                continue;
            };
            // The program: the first word, or a single-quoted path as `init` writes it.
            let program = match c.strip_prefix('\'') {
                Some(rest) => rest.split('\'').next().unwrap_or("").to_string(),
                None => c.split_whitespace().next().unwrap_or("").to_string(),
            };
            let path = std::path::Path::new(&program);
            let state = if !path.is_absolute() {
                format!("`{program}` is found on PATH when the agent runs it")
            } else if path.is_file() {
                format!("{program} exists")
            } else {
                format!("WARNING: {program} does not exist, so the hook cannot start; run `wicket init {agent}` again")
            };
            out.push(format!("hook: {agent} in {}: {state}", file.display()));
        }
        if file.ends_with("hooks.json") {
            out.extend(codex_trust_lines(&file, &v));
        }
    }
    let plugins = [crate::init_agents::OPENCODE, crate::init_agents::KILO];
    if out.is_empty() && !plugins.iter().any(|a| crate::init_agents::plugin_files(*a, root).iter().any(|f| f.exists()))
    {
        out.push(
            "hook: none installed (`wicket init <agent>`: claude, codex, gemini, qwen, droid, copilot, opencode, kilo)"
                .to_string(),
        );
    }
    out
}

/// Whether Codex trusts each of wicket's handlers in a Codex hooks file, read from Codex's
/// config.toml by Codex's rule: Codex skips an untrusted or changed hook without a word.
fn codex_trust_lines(file: &std::path::Path, hooks: &serde_json::Value) -> Vec<String> {
    use crate::codex_trust as ct;
    let Ok(file) = std::path::absolute(file) else { return Vec::new() };
    let Some(config) = ct::codex_home().map(|h| h.join("config.toml")) else { return Vec::new() };
    let fix = "run `wicket init codex --trust` (with --project for a project's hooks) or trust it in codex's /hooks";
    let mut out = Vec::new();
    for h in ct::wicket_handlers(&file, hooks, " hook codex") {
        let state = match ct::state(&config, &h.key) {
            Ok(s) => s,
            Err(e) => {
                out.push(format!("  WARNING: Codex trust of {} unknown: {e:#}", h.key));
                continue;
            }
        };
        let line = match (&h.hash, &state.trusted_hash) {
            _ if state.enabled == Some(false) => {
                format!("WARNING: switched off in Codex (enabled = false in {}), so it never runs", config.display())
            }
            (Ok(hash), Some(t)) if hash == t => format!("trusted in Codex ({})", config.display()),
            (Ok(_), Some(_)) => format!("WARNING: changed since Codex trusted it, so Codex skips it silently; {fix}"),
            (_, None) => format!("WARNING: not trusted in Codex, so Codex skips it silently; {fix}"),
            (Err(why), Some(_)) => format!("trust recorded, but wicket cannot check it ({why})"),
        };
        out.push(format!("  {}: {line}", h.key));
    }
    out
}

/// Where Codex runs its shell commands: in its own sandbox with wicket's permission profile
/// as the default (from Codex's user config.toml), or not, and why.
fn codex_commands(root: &std::path::Path) -> String {
    use crate::codex_profile as cp;
    let Some(config) = crate::codex_trust::codex_home().map(|h| h.join("config.toml")) else {
        return "judged by the hook; where Codex runs them is unknown (neither CODEX_HOME nor HOME is set)".to_string();
    };
    let unconfined =
        "judged by the hook and run without wicket's permission profile, so the home's secrets are readable to them";
    let mut line = match cp::standing(&config, &cp::Places::from_env()) {
        Err(e) => format!("{unconfined}: {e:#}"),
        Ok(cp::Standing::Missing) => format!(
            "{unconfined} (no [permissions.{}] in {}: installed with --unconfined-commands, or by an older wicket); `wicket init codex` confines them",
            cp::NAME,
            config.display()
        ),
        Ok(cp::Standing::NotDefault(why)) => format!("{unconfined}: {why} (in {})", config.display()),
        Ok(cp::Standing::Confined { via, current }) => {
            let via = via.map(|v| format!(", through your profile \"{v}\" that extends it")).unwrap_or_default();
            let stale = if current {
                String::new()
            } else {
                "; the profile differs from what this wicket writes (older, edited, or a secrets folder in the home became a link, which stops Codex's sandbox from starting): `wicket init codex` renews it"
                    .to_string()
            };
            format!(
                "confined: Codex runs them in its own sandbox with wicket's permission profile \"{}\"{via} ({}): writes in the project and temp folders only, the home's secrets unreadable, no network{stale}",
                cp::NAME,
                config.display()
            )
        }
    };
    if let Some(w) = cp::project_override(root) {
        line.push_str(&format!("; WARNING: {w}"));
    }
    line
}

/// One line per installed wicket hook: where the agent's shell commands run. Confined (the
/// hook rewrites allowed commands into `wicket run`, and an OS sandbox works here; for Codex:
/// Codex's own sandbox with wicket's permission profile as its default), judged as host
/// commands (installed with `--unconfined-commands`, or no sandbox here), or not gated at all
/// (the hook's matcher misses the shell tool).
pub fn command_lines(root: &std::path::Path) -> Vec<String> {
    let probe = wicket::config::probe();
    let mut out = Vec::new();
    for (file, _) in hook_files(root) {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        for (agent, event, shell) in [
            ("claude", "PreToolUse", "Bash"),
            ("codex", "PreToolUse", "Bash"),
            ("gemini", "BeforeTool", "run_shell_command"),
            ("qwen", "PreToolUse", "run_shell_command"),
            ("droid", "PreToolUse", "Execute"),
        ] {
            let groups =
                v.pointer(&format!("/hooks/{event}")).and_then(serde_json::Value::as_array).into_iter().flatten();
            for g in groups {
                let marker = format!(" hook {agent}");
                let Some(command) = g
                    .get("hooks")
                    .and_then(serde_json::Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|h| h.get("command").and_then(serde_json::Value::as_str))
                    .find(|c| c.contains(&marker))
                else {
                    continue;
                };
                let matcher = g.get("matcher").and_then(serde_json::Value::as_str).unwrap_or("").trim();
                let gated = matcher.is_empty()
                    || matcher == "*"
                    || matcher.split('|').any(|m| m == shell)
                    || regex::Regex::new(matcher).is_ok_and(|r| r.is_match(shell));
                let state = if !gated {
                    format!("NOT GATED: the matcher {matcher:?} misses {shell}, so its commands run unjudged and unconfined; run `wicket init {agent}` again")
                } else if agent == "codex" {
                    codex_commands(root)
                } else if agent == "qwen" {
                    format!("cannot be confined: {}", crate::init_agents::QWEN_UNCONFINED)
                } else if !command.contains("--sandbox-commands") {
                    format!("judged as host commands and run unconfined (installed with --unconfined-commands, or by an older wicket); `wicket init {agent}` confines them")
                } else if probe.backend.confines() {
                    format!("confined: allowed ones run inside the OS sandbox ({})", probe.backend.name())
                } else {
                    let why = probe.bwrap_works.clone().err().unwrap_or_else(|| "no sandbox backend works here".into());
                    format!(
                        "judged as host commands: the hook would confine them, but no OS sandbox works here ({why})"
                    )
                };
                out.push(format!("hook: {agent} in {}: shell commands {state}", file.display()));
            }
        }
        // Copilot CLI's entries stand directly in `hooks.preToolUse` and see every tool.
        let flat = v.pointer("/hooks/preToolUse").and_then(serde_json::Value::as_array).into_iter().flatten();
        for h in flat {
            let Some(command) = h.get("bash").or_else(|| h.get("command")).and_then(serde_json::Value::as_str) else {
                continue;
            };
            if !command.contains(" hook copilot") {
                continue;
            }
            let state = if !command.contains("--sandbox-commands") {
                "judged as host commands and run unconfined (installed with --unconfined-commands); `wicket init copilot` confines them".to_string()
            } else if probe.backend.confines() {
                format!("confined: allowed ones run inside the OS sandbox ({})", probe.backend.name())
            } else {
                let why = probe.bwrap_works.clone().err().unwrap_or_else(|| "no sandbox backend works here".into());
                format!("judged as host commands: the hook would confine them, but no OS sandbox works here ({why})")
            };
            out.push(format!("hook: copilot in {}: shell commands {state}", file.display()));
        }
    }
    out
}

/// A warning for each Gemini CLI hook group that runs `wicket hook gemini` but whose matcher,
/// read as Gemini CLI reads it (a regular expression), does not cover its MCP tools
/// (`mcp_<server>_<tool>`; the matcher older versions of `wicket init` wrote covered only
/// `mcp__…`): those calls would run ungated.
pub fn gemini_matcher_warnings(root: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for (file, _) in hook_files(root).into_iter().filter(|(f, _)| f.ends_with(".gemini/settings.json")) {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        let groups = v.pointer("/hooks/BeforeTool").and_then(serde_json::Value::as_array).into_iter().flatten();
        for g in groups {
            let ours = g.get("hooks").and_then(serde_json::Value::as_array).into_iter().flatten().any(|h| {
                h.get("command").and_then(serde_json::Value::as_str).is_some_and(|c| c.contains(" hook gemini"))
            });
            if !ours {
                continue;
            }
            let matcher = g.get("matcher").and_then(serde_json::Value::as_str).unwrap_or("").trim();
            // As Gemini CLI reads it: empty or `*` matches every tool, else a regular
            // expression (one that does not compile is compared as a plain name).
            let covers = matcher.is_empty()
                || matcher == "*"
                || regex::Regex::new(matcher).is_ok_and(|r| r.is_match("mcp_server_tool"));
            if !covers {
                out.push(format!(
                    "{}: the wicket hook's matcher {matcher:?} does not cover Gemini CLI's MCP tools \
(mcp_<server>_<tool>), so their calls are not gated; run `wicket init gemini` again to update it",
                    file.display()
                ));
            }
        }
    }
    out
}

/// A warning for each installed wicket hook whose timeout is not above wicket's own deadline:
/// every agent runs the call when its hook times out, so the agent must wait longer than
/// wicket takes to deny on its own.
pub fn hook_timeout_warnings(root: &std::path::Path) -> Vec<String> {
    fn walk(v: &serde_json::Value, found: &mut Vec<(String, f64)>) {
        match v {
            serde_json::Value::Object(m) => {
                let command = ["command", "bash"]
                    .iter()
                    .find_map(|k| m.get(*k).and_then(serde_json::Value::as_str))
                    .unwrap_or("");
                if command.contains("wicket") && command.contains(" hook ") {
                    // Copilot CLI reads `timeoutSec` (and `timeout` as its alias).
                    let timeout = m.get("timeout").or_else(|| m.get("timeoutSec"));
                    if let Some(t) = timeout.and_then(serde_json::Value::as_f64) {
                        found.push((command.to_string(), t));
                    }
                }
                m.values().for_each(|x| walk(x, found));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, found)),
            _ => {}
        }
    }
    let deadline_ms = crate::hook_core::deadline().as_millis() as f64;
    let mut out = Vec::new();
    for (file, unit_ms) in hook_files(root) {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        let mut found = Vec::new();
        walk(&v, &mut found);
        for (command, t) in found {
            if t * unit_ms as f64 <= deadline_ms {
                let unit = if unit_ms == 1 { "ms" } else { "s" };
                out.push(format!(
                    "{}: the hook `{command}` has a timeout of {t} {unit}, not above wicket's own deadline of {} ms; \
the agent runs the call when its hook times out, so set it to {} {unit} (what `wicket init` writes)",
                    file.display(),
                    deadline_ms,
                    if unit_ms == 1 { crate::init_cmd::GEMINI_TIMEOUT_MS } else { crate::init_cmd::TIMEOUT_SECS },
                ));
            }
        }
    }
    out
}

/// One line (or a few) per wicket plugin of OpenCode or Kilo found where `wicket init` puts
/// it: whether it is wicket's, unchanged; whether its program exists; whether its timeout is
/// above wicket's own deadline; whether it loads (imported by a node from root's system
/// folders, as OpenCode's runtime would, and its hook found); where shell commands run. The
/// agent skips a plugin that fails to load without a word and then runs every tool unchecked.
pub fn plugin_lines(root: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for agent in [crate::init_agents::OPENCODE, crate::init_agents::KILO] {
        for file in crate::init_agents::plugin_files(agent, root) {
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            let head = format!("plugin: {} in {}", agent.hook, file.display());
            let Some((argv, timeout_ms)) = crate::hook_opencode::plugin_parts(&text, agent.name, agent.hook) else {
                out.push(format!(
                    "{head}: WARNING: not wicket's plugin as this wicket writes it (changed, from another version, or \
someone else's), so what it lets through is unknown; run `wicket init {}` again",
                    agent.hook
                ));
                continue;
            };
            let program = argv.first().map(String::as_str).unwrap_or("");
            if std::path::Path::new(program).is_file() {
                out.push(format!("{head}: wicket's, unchanged; {program} exists"));
            } else {
                out.push(format!(
                    "{head}: WARNING: {program} does not exist, so the plugin refuses every call; run `wicket init {}` again",
                    agent.hook
                ));
            }
            let deadline_ms = crate::hook_core::deadline().as_millis();
            if u128::from(timeout_ms) <= deadline_ms {
                out.push(format!(
                    "warning: {}: the plugin's timeout of {timeout_ms} ms is not above wicket's own deadline of \
{deadline_ms} ms; run `wicket init {}` again (it writes {} ms)",
                    file.display(),
                    agent.hook,
                    crate::init_agents::PLUGIN_TIMEOUT_MS
                ));
            }
            out.push(format!("{head}: {}", plugin_loads(&file)));
            let probe = wicket::config::probe();
            let state = if !argv.iter().any(|a| a == "--sandbox-commands") {
                format!(
                    "judged as host commands and run unconfined (installed with --unconfined-commands); `wicket init {}` confines them",
                    agent.hook
                )
            } else if probe.backend.confines() {
                format!("confined: allowed ones run inside the OS sandbox ({})", probe.backend.name())
            } else {
                let why = probe.bwrap_works.clone().err().unwrap_or_else(|| "no sandbox backend works here".into());
                format!("judged as host commands: the plugin would confine them, but no OS sandbox works here ({why})")
            };
            out.push(format!("{head}: shell commands {state}"));
        }
    }
    out
}

/// Whether a plugin file loads: a node from root's system folders imports it and finds its
/// `tool.execute.before` hook (nothing is sent to wicket).
fn plugin_loads(file: &std::path::Path) -> String {
    const CHECK: &str = "const { pathToFileURL } = await import('node:url'); \
const m = await import(pathToFileURL(process.argv[1]).href); \
if (typeof m.WicketGate !== 'function') { console.log('no WicketGate export'); process.exit(3); } \
const h = await m.WicketGate({ directory: '/', worktree: '/', client: {} }); \
if (typeof h['tool.execute.before'] !== 'function') { console.log('no tool.execute.before hook'); process.exit(4); }";
    let node = match wicket_sandbox::helper::find("node") {
        Ok(n) => n,
        Err(e) => return format!("cannot check that it loads: no node wicket may run ({e})"),
    };
    match std::process::Command::new(node.path())
        .args(["--input-type=module", "-e", CHECK])
        .arg(file)
        .stdin(std::process::Stdio::null())
        .output()
    {
        Ok(o) if o.status.success() => "loads (its tool.execute.before hook is there)".to_string(),
        Ok(o) => {
            let why = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
            let why = why.lines().find(|l| !l.trim().is_empty()).unwrap_or("no reason given").trim().to_string();
            format!("WARNING: it does not load ({why}), so the agent skips it and runs every tool unchecked")
        }
        Err(e) => format!("cannot check that it loads: {} cannot be run ({e})", node.path().display()),
    }
}
