//! `wicket policy show` (the effective configuration and where each value came from) and
//! `wicket policy lint` (every file and rule valid, every rule example holds); `wicket policy
//! suggest` lives in [`crate::policy_suggest`].

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use wicket::config::{self, Loaded, Overrides, ProjectConsent, Source};
use wicket_policy::settings::{Executor, Profile};
use wicket_policy::{Mode, Policy, Settings, TeamPolicy};

/// `wicket policy …`.
#[derive(Args)]
pub struct PolicyArgs {
    #[command(subcommand)]
    pub command: PolicyCommand,
}

/// The sub-commands.
#[derive(Subcommand)]
pub enum PolicyCommand {
    /// Print the effective configuration for a project and where each value came from.
    Show(ShowArgs),
    /// Validate every policy and settings file and rule, and run the rules' inline examples.
    Lint(LintArgs),
    /// Propose allow rules for the calls you were asked about, show every recorded decision
    /// each would change, and write the ones you confirm.
    Suggest(crate::policy_suggest::SuggestArgs),
}

/// The flags of `wicket policy show`.
#[derive(Args)]
pub struct ShowArgs {
    /// The project root (default: the nearest folder at or above the current one that holds `.wicket` or `.git`, else the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode, as `check` would be given it.
    #[arg(long, value_parser = crate::check_cmd::parse_mode)]
    pub mode: Option<Mode>,
    #[command(flatten)]
    pub rules: crate::flags::RuleFlags,
}

/// The flags of `wicket policy lint`.
#[derive(Args)]
pub struct LintArgs {
    /// The project root (default: the nearest folder at or above the current one that holds `.wicket` or `.git`, else the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

fn root_of(root: &Option<PathBuf>) -> Result<PathBuf> {
    Ok(crate::check_cmd::project_root(root.as_deref())?.0)
}

pub fn run(args: &PolicyArgs) -> Result<ExitCode> {
    match &args.command {
        PolicyCommand::Show(a) => show(a),
        PolicyCommand::Lint(a) => lint(a),
        PolicyCommand::Suggest(a) => crate::policy_suggest::suggest(a),
    }
}

/// One value and its sources.
fn src(sources: &[Source]) -> String {
    if sources.is_empty() {
        return Source::Default.as_str().to_string();
    }
    sources.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

/// The team policy layers with their sources, plus the settings files that turned strict on.
fn team_sources(loaded: &Loaded) -> Vec<(Source, TeamPolicy)> {
    loaded.team_layers.iter().map(|l| (l.source, l.policy.clone())).collect()
}

fn show(args: &ShowArgs) -> Result<ExitCode> {
    let (root, how) = crate::check_cmd::project_root(args.root.as_deref())?;
    let loaded = config::load(&root)?;
    let text = render(&root, &loaded, args);
    // The first line names the root; how it was found goes with it.
    let text = text.replacen('\n', &format!(" ({how})\n"), 1);
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// The report `wicket policy show` prints.
pub fn render(root: &Path, loaded: &Loaded, args: &ShowArgs) -> String {
    let mut o = String::new();
    let home = config::wicket_home().ok();
    let _ = writeln!(o, "root: {}", wicket::trust::root_key(root));
    let _ = writeln!(o, "\nfiles:");
    let managed = config::managed_policy_path();
    let file_line = |o: &mut String, label: &str, path: &Path, read: bool, note: &str| {
        let _ = writeln!(o, "  {label:<17} {}{}{note}", path.display(), if read { "" } else { " (none)" });
    };
    let read = |p: &Path| loaded.files.iter().any(|f| f == p);
    file_line(&mut o, "managed policy:", &managed, read(&managed), "");
    if let Some(h) = &home {
        let up = h.join("policy.json");
        file_line(&mut o, "user policy:", &up, read(&up), "");
        let us = h.join("settings.json");
        file_line(&mut o, "user settings:", &us, read(&us), "");
    }
    let consent_note = match &loaded.consent {
        ProjectConsent::NotNeeded => String::new(),
        ProjectConsent::Pinned => " (loosening parts applied: pinned in trust.json)".into(),
        ProjectConsent::Granted { .. } => " (loosening parts applied: you said yes)".into(),
        ProjectConsent::Withheld { .. } => " (loosening parts waiting for consent, not applied)".into(),
    };
    file_line(&mut o, "project settings:", &loaded.project_file, loaded.project_raw.is_some(), &consent_note);
    let pp = root.join(".wicket").join("policy.json");
    if std::fs::symlink_metadata(&pp).is_ok() {
        let _ = writeln!(o, "  {:<17} {} (never read)", "project policy:", pp.display());
    }

    // The team policy.
    let layers = team_sources(loaded);
    let t = &loaded.team;
    let _ = writeln!(o, "\nteam policy (the stricter value wins):");
    let list = |o: &mut String, name: &str, get: &dyn Fn(&TeamPolicy) -> Vec<String>| {
        let mut seen: Vec<(String, Vec<Source>)> = Vec::new();
        for (s, p) in &layers {
            for v in get(p) {
                match seen.iter_mut().find(|(x, _)| *x == v) {
                    Some((_, srcs)) => srcs.push(*s),
                    None => seen.push((v, vec![*s])),
                }
            }
        }
        if seen.is_empty() {
            let _ = writeln!(o, "  {name}: none");
        } else {
            let _ = writeln!(o, "  {name}:");
            for (v, s) in seen {
                let _ = writeln!(o, "    {v:?}  ({})", src(&s));
            }
        }
    };
    let flag = |o: &mut String, name: &str, value: bool, get: &dyn Fn(&TeamPolicy) -> bool| {
        let s: Vec<Source> = layers.iter().filter(|(_, p)| get(p)).map(|(s, _)| *s).collect();
        let _ = writeln!(o, "  {name}: {value}  ({})", src(&s));
    };
    list(&mut o, "disallowedCommands", &|p| p.disallowed_commands.clone());
    let mut strict_sources: Vec<Source> = layers.iter().filter(|(_, p)| p.strict()).map(|(s, _)| *s).collect();
    if loaded.user.as_ref().is_some_and(|u| u.profile == Some(Profile::Strict)) {
        strict_sources.push(Source::UserSettings);
    }
    if loaded.project_raw.as_ref().is_some_and(|u| u.profile == Some(Profile::Strict)) {
        strict_sources.push(Source::Project);
    }
    let mut rs: Vec<Source> = layers.iter().filter(|(_, p)| p.require_sandbox).map(|(s, _)| *s).collect();
    if !strict_sources.is_empty() && rs.is_empty() {
        rs.push(Source::Default);
    }
    let _ = writeln!(
        o,
        "  requireSandbox: {}  ({}{})",
        t.sandbox_required(),
        if rs.is_empty() {
            src(&[])
        } else {
            rs.iter().filter(|s| **s != Source::Default).map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        },
        if t.strict() {
            if rs == [Source::Default] {
                "implied by the strict profile"
            } else {
                "; implied by the strict profile"
            }
        } else {
            ""
        }
    );
    let _ = writeln!(o, "  profile: {}  ({})", if t.strict() { "strict" } else { "none" }, src(&strict_sources));
    list(&mut o, "denyPaths", &|p| p.deny_paths.clone());
    list(&mut o, "network.blockedHosts", &|p| p.network.blocked_hosts.clone());
    flag(&mut o, "network.strictAllowlist", t.network.strict_allowlist, &|p| p.network.strict_allowlist);
    match &t.allowed_models {
        None => {
            let _ = writeln!(o, "  allowedModels: any  (default)");
        }
        Some(m) => {
            let s: Vec<Source> = layers.iter().filter(|(_, p)| p.allowed_models.is_some()).map(|(s, _)| *s).collect();
            let _ = writeln!(o, "  allowedModels: {m:?}  (those every list allows: {})", src(&s));
        }
    }
    let limit = |o: &mut String, name: &str, value: Option<u64>, get: &dyn Fn(&TeamPolicy) -> Option<u64>| {
        let s: Vec<Source> =
            layers.iter().filter(|(_, p)| value.is_some() && get(p) == value).map(|(s, _)| *s).collect();
        match value {
            Some(v) => {
                let _ = writeln!(o, "  {name}: {v}  ({})", src(&s));
            }
            None => {
                let _ = writeln!(o, "  {name}: none  (default)");
            }
        }
    };
    limit(&mut o, "limits.maxSteps", t.limits.max_steps, &|p| p.limits.max_steps);
    limit(&mut o, "limits.tokenBudget", t.limits.token_budget, &|p| p.limits.token_budget);
    flag(&mut o, "audit.enabled", t.audit.enabled, &|p| p.audit.enabled);
    {
        let level = t.audit.level.map_or("all", |l| l.as_str());
        let s: Vec<Source> = layers
            .iter()
            .filter(|(_, p)| t.audit.level.is_some() && p.audit.level == t.audit.level)
            .map(|(s, _)| *s)
            .collect();
        let _ = writeln!(o, "  audit.level: {level}  ({})", src(&s));
    }
    flag(&mut o, "audit.checkpoint", t.audit.checkpoint, &|p| p.audit.checkpoint);

    // The settings.
    let _ = writeln!(o, "\nsettings:");
    let waiting = !loaded.consent.applied();
    let project_src = if waiting { Source::ProjectWaiting } else { Source::Project };
    let user = loaded.user.as_ref();
    let raw = loaded.project_raw.as_ref();
    let applied = loaded.project.as_ref();
    // Mode: flag, else project (applied), else user.
    let (mode, mode_src) = if let Some(m) = args.mode {
        (m, Source::CommandLine)
    } else if let Some(m) = applied.and_then(|p| p.mode) {
        (m, Source::Project)
    } else if let Some(m) = user.and_then(|u| u.mode) {
        (m, Source::UserSettings)
    } else {
        (Mode::Default, Source::Default)
    };
    let _ = writeln!(o, "  mode: {mode}  ({})", mode_src.as_str());
    if let (Some(m), true) = (raw.and_then(|p| p.mode), waiting) {
        if applied.and_then(|p| p.mode).is_none() {
            let _ = writeln!(o, "    {:?}  ({})", m.as_str(), Source::ProjectWaiting.as_str());
        }
    }
    let exec_name = |e: Executor| match e {
        Executor::Auto => "auto",
        Executor::Os => "os",
        Executor::Host => "host",
    };
    let (exec, exec_src) = if let Some(e) = applied.and_then(|p| p.executor) {
        (e, Source::Project)
    } else if let Some(e) = user.and_then(|u| u.executor) {
        (e, Source::UserSettings)
    } else {
        (Executor::Auto, Source::Default)
    };
    let _ = writeln!(o, "  executor: {}  ({})", exec_name(exec), exec_src.as_str());
    if waiting && raw.and_then(|p| p.executor) == Some(Executor::Host) {
        let _ = writeln!(o, "    \"host\"  ({})", Source::ProjectWaiting.as_str());
    }
    let settings_list = |o: &mut String, name: &str, get: &dyn Fn(&Settings) -> Vec<String>, flags: &[String]| {
        let mut rows: Vec<(String, Source)> = Vec::new();
        if let Some(u) = user {
            rows.extend(get(u).into_iter().map(|v| (v, Source::UserSettings)));
        }
        if let Some(p) = raw {
            let applied_values = applied.map(get).unwrap_or_default();
            for v in get(p) {
                let s = if applied_values.contains(&v) { Source::Project } else { project_src };
                rows.push((v, s));
            }
        }
        rows.extend(flags.iter().map(|v| (v.clone(), Source::CommandLine)));
        if rows.is_empty() {
            let _ = writeln!(o, "  {name}: none");
        } else {
            let _ = writeln!(o, "  {name}:");
            for (v, s) in rows {
                let _ = writeln!(o, "    {v:?}  ({})", s.as_str());
            }
        }
    };
    settings_list(&mut o, "permissions.allow", &|s| s.permissions.allow.clone(), &args.rules.allow);
    settings_list(&mut o, "permissions.deny", &|s| s.permissions.deny.clone(), &args.rules.deny);
    settings_list(&mut o, "permissions.ask", &|s| s.permissions.ask.clone(), &args.rules.ask);
    settings_list(&mut o, "sandbox.writePaths", &|s| s.sandbox.write_paths.clone(), &[]);
    settings_list(&mut o, "sandbox.denyRead", &|s| s.sandbox.deny_read.clone(), &[]);
    settings_list(&mut o, "env.allow", &|s| s.env.allow.clone(), &[]);
    settings_list(&mut o, "commands.host (run outside the OS sandbox)", &|s| s.commands.host.clone(), &[]);
    settings_list(&mut o, "network.allow", &|s| s.network.allow.clone(), &[]);
    settings_list(&mut o, "network.ports", &|s| s.network.ports.iter().map(u16::to_string).collect(), &[]);
    settings_list(
        &mut o,
        "network.addresses",
        &|s| {
            s.network
                .addresses
                .iter()
                .map(|(host, ips)| {
                    let ips: Vec<String> = ips.iter().map(ToString::to_string).collect();
                    format!("{host} → {}", ips.join(", "))
                })
                .collect()
        },
        &[],
    );

    let _ = writeln!(o, "\nproject consent:");
    match &loaded.consent {
        ProjectConsent::NotNeeded => {
            let _ = writeln!(o, "  not needed: the project's settings loosen nothing");
        }
        ProjectConsent::Pinned => {
            let _ = writeln!(o, "  pinned in trust.json (sha256 {})", loaded.project_hash.as_deref().unwrap_or("?"));
        }
        ProjectConsent::Granted { .. } => {
            let _ = writeln!(o, "  granted for this run");
        }
        ProjectConsent::Withheld { parts, .. } => {
            let _ = writeln!(
                o,
                "  waiting (sha256 {}); `wicket run` in a terminal asks about:",
                loaded.project_hash.as_deref().unwrap_or("?")
            );
            for p in parts {
                let _ = writeln!(o, "    {p}");
            }
        }
    }
    o
}

fn lint(args: &LintArgs) -> Result<ExitCode> {
    let root = root_of(&args.root)?;
    let home = config::wicket_home()?;
    let mut problems = 0usize;
    let mut files: Vec<(&str, PathBuf)> =
        vec![("managed policy", config::managed_policy_path()), ("user policy", home.join("policy.json"))];
    for (label, file) in files.drain(..) {
        match config::read_policy(&file) {
            Ok(Some(_)) => println!("ok    {label}: {}", file.display()),
            Ok(None) => println!("none  {label}: {}", file.display()),
            Err(e) => {
                problems += 1;
                println!("error {label}: {e}");
            }
        }
    }
    let project_policy = root.join(".wicket").join("policy.json");
    if std::fs::symlink_metadata(&project_policy).is_ok() {
        println!(
            "note  project policy: {} is never read; move its rules to a team policy file",
            project_policy.display()
        );
    }
    let settings_files = [
        ("user settings", home.join("settings.json")),
        ("project settings", root.join(".wicket").join("settings.json")),
    ];
    let mut all = Settings::default();
    for (label, file) in settings_files {
        match config::read_settings(&file) {
            Ok(Some(s)) => {
                let failures = wicket_policy::examples::check_examples(&s, &root, config::home_dir())
                    .with_context(|| format!("{}: cannot check its examples", file.display()))?;
                if failures.is_empty() {
                    let n: usize = s.examples.values().map(|e| e.matches.len() + e.not_match.len()).sum();
                    println!("ok    {label}: {} ({n} rule example(s) hold)", file.display());
                } else {
                    for f in &failures {
                        problems += 1;
                        println!("error {label}: {}: examples: {f}", file.display());
                    }
                }
                all.permissions.allow.extend(s.permissions.allow);
                all.permissions.deny.extend(s.permissions.deny);
                all.permissions.ask.extend(s.permissions.ask);
            }
            Ok(None) => println!("none  {label}: {}", file.display()),
            Err(e) => {
                problems += 1;
                println!("error {label}: {e}");
            }
        }
    }
    // Command patterns that may not mean what they look like (`bash(cp*)` is `cp` only).
    let rules = all.permissions.allow.iter().chain(&all.permissions.deny).chain(&all.permissions.ask);
    for text in rules {
        let Ok(rule) = wicket_policy::rules::Rule::parse(text) else { continue };
        let (Some(pattern), true) = (rule.pattern.as_deref(), rule.tool_matches("bash")) else { continue };
        for w in wicket_policy::rules::command_pattern_warnings(pattern) {
            println!("warn  rule {text}: {w}");
        }
    }
    // Every rule and pattern together, as the engine compiles them.
    if problems == 0 {
        let loaded = config::load(&root)?;
        let cfg = config::policy_config(&root, &loaded, &Overrides::default());
        if let Err(e) = Policy::new(&cfg) {
            problems += 1;
            println!("error the rules together: {e}");
        }
        // The network entries, as `wicket run` checks them before a command starts.
        if let Err(e) = wicket::net::net_config_of(&loaded) {
            problems += 1;
            println!("error network: {e}");
        }
    }
    if problems == 0 {
        println!("lint: everything holds");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("lint: {problems} problem(s)");
        Ok(ExitCode::from(1))
    }
}
