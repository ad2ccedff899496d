//! `wicket run -- CMD [ARGS…]`: decide a command through the engine, ask the person when the
//! verdict is ask, then run it in the OS sandbox (or on the host when so configured).
//!
//! Exit status: the command's own; 126 when wicket refuses it (the reason on stderr); 124
//! after the timeout; 2 for wicket's own errors (bad flags, broken settings).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use wicket::approver::{Answer, Approver, OnDemand, TerminalApprover};
use wicket::audit::Execution;
use wicket::config::{self, Overrides, Placement};
use wicket::consent::TerminalConsent;
use wicket::gate::{Gate, Opening};
use wicket::net::{NetRun, SharedRecorder, BLOCKED_LINE};
use wicket_planner::exec::exec_policy;
use wicket_policy::{By, Decision, Mode, ToolCall, Verdict};

/// The flags of `wicket run` (a public contract: add, never change).
#[derive(Args)]
pub struct RunArgs {
    /// The project root (default: the nearest folder at or above the current one that holds `.wicket` or `.git`, else the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode.
    #[arg(long, value_parser = crate::check_cmd::parse_mode)]
    pub mode: Option<Mode>,
    /// Kill the command after this many seconds.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Run on the host, unconfined, after the rules decide.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Never ask: a call that would ask is refused.
    #[arg(long)]
    pub unattended: bool,
    /// Do not write the audit log.
    #[arg(long)]
    pub no_audit: bool,
    /// Run on an overlay of the project: its changes reach the project only when you apply them
    /// (asked after the run at a terminal; else kept for `wicket staged`).
    #[arg(long)]
    pub staged: bool,
    #[command(flatten)]
    pub rules: crate::flags::RuleFlags,
    /// The command and its arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

/// Quote an argv as one shell command line, for showing (bytes that are not UTF-8 appear as
/// U+FFFD; `run` refuses such a command before judging it).
pub fn shell_join(argv: &[OsString]) -> String {
    wicket_policy::text::shell_join(argv.iter().map(|a| a.to_string_lossy()))
}

/// Decide, ask if needed, run; the exit status to return.
pub fn run(args: &RunArgs) -> Result<ExitCode> {
    wicket_sandbox::trace::phase("arguments parsed");
    // The engine judges text: a word that is not UTF-8 would be judged as something other than
    // what runs, so the command is refused instead.
    let Some(words) = args.command.iter().map(|a| a.to_str()).collect::<Option<Vec<&str>>>() else {
        eprintln!(
            "wicket: refused: {} holds bytes that are not UTF-8 text, so wicket cannot judge what would run",
            shell_join(&args.command)
        );
        return Ok(ExitCode::from(126));
    };
    let root = crate::check_cmd::project_root(args.root.as_deref())?.0;
    // The person at the terminal is asked about project settings that loosen safety
    // (never when unattended; without a terminal they are dropped with a notice).
    let mut asker = TerminalConsent;
    let loaded = config::load_with(&root, if args.unattended { None } else { Some(&mut asker) })?;
    loaded.print_notices();
    let placement = wicket::gate::place(&loaded, args.no_sandbox)?;
    wicket_sandbox::trace::phase("settings loaded");
    if let Placement::Host(why) = &placement {
        if !args.no_sandbox {
            eprintln!("wicket: notice: {why}");
        }
    }
    let overrides = args.rules.apply(Overrides {
        mode: args.mode,
        unattended: args.unattended,
        no_sandbox: args.no_sandbox,
        ..Overrides::default()
    });
    // The mode alone (the whole engine configuration asks git, which the gate does once).
    let mode = config::mode(&loaded, &overrides);
    // The network settings are checked before anything runs: a broken entry is an error.
    let net_config = wicket::net::net_config_of(&loaded)?;
    // The sandbox's first process is made now, a copy of wicket while it has one thread, and
    // gets the line once it is planned (see `wicket_sandbox::early`): no shim to start then.
    #[cfg(target_os = "linux")]
    if matches!(placement, Placement::Sandbox(wicket_sandbox::Backend::Bwrap { .. }))
        && net_config.is_none()
        && wicket_sandbox::early::start_soon()
    {
        wicket_sandbox::trace::phase("early helper started");
    }
    let exe = std::env::current_exe().context("cannot find wicket's own binary for the sandbox shim")?;
    let timeout = args.timeout.filter(|t| *t > 0.0).map(Duration::from_secs_f64);
    let mut inputs = config::exec_inputs(&root, &loaded, mode, timeout);
    // On the host nothing is masked: the project is not walked.
    inputs.no_scan = matches!(placement, Placement::Host(_));
    // Two steps of a sandboxed start need little of the policy: the overlay trial (can the
    // package caches be layers here?) and, as root, the search for root-only files (it needs
    // the writable paths only). Both begin now, on threads of their own, while the policy is
    // built (and, for a sandbox started after the decision, while the engine decides; a search
    // that waited for a person's answer is made again).
    #[cfg(target_os = "linux")]
    if let Placement::Sandbox(_) = &placement {
        let state = inputs.state_dir.clone();
        wicket_sandbox::layers::available_soon(
            state.clone().unwrap_or_else(wicket_sandbox::placeholders::default_state),
        );
        let early = inputs.clone();
        wicket_sandbox::search_root_only_soon(
            move || wicket_planner::exec::writable_and_root(&early),
            state.map(|s| s.join("cache").join("rootonly")),
        );
    }
    // A cached scan of the project is checked in a thread of its own while bubblewrap builds
    // the sandbox and the engine decides; the command starts only once the check has passed
    // (otherwise that sandbox is thrown away and the project walked).
    let (exec, pending) = match wicket_planner::exec::exec_policy_deferred(&inputs) {
        Ok((e, p)) => (Ok(e), p),
        Err(e) => (Err(e), None),
    };
    let mut pending = pending;
    wicket_sandbox::trace::phase("exec policy built");
    if let (Ok(e), Some(p)) = (&exec, pending.as_mut()) {
        // The folders that get this run's placeholders are checked before they do (a folder
        // whose entries changed since the walk is read again, and would differ).
        let parents: Vec<std::path::PathBuf> = e
            .placeholders
            .iter()
            .chain(&e.must_not_appear)
            .filter_map(|p| p.parent().map(std::path::Path::to_path_buf))
            .collect();
        p.check_first(&parents);
    }
    let check = pending.map(|p| std::thread::Builder::new().name("scan check".into()).spawn(move || p.holds()));
    let opts = wicket_sandbox::RunOptions { passthrough: true, inherit_stdin: true, supervisor: Some(exe.clone()) };
    // `commands.mode: "staged"` in any settings layer makes every run staged.
    let staged = args.staged
        || loaded
            .user
            .iter()
            .chain(loaded.project.iter())
            .any(|s| s.commands.mode == Some(wicket_policy::settings::CommandMode::Staged));
    if staged && !matches!(placement, Placement::Sandbox(wicket_sandbox::Backend::Bwrap { .. })) {
        eprintln!(
            "wicket: refused: a staged run needs bubblewrap (it mounts an overlay over the project), and commands here run {}; install bubblewrap or run the command unstaged",
            match &placement {
                Placement::Sandbox(b) => format!("in the {} sandbox", b.name()),
                Placement::Host(_) => "on the host".to_string(),
            }
        );
        return Ok(ExitCode::from(126));
    }
    // A staged run's copy is made now, so its sandbox too is built while the engine decides;
    // the copy is removed again when the call is refused (the guard's drop).
    let mut exec = exec;
    let mut unused_stage = None;
    if let (true, Ok(e)) = (staged, exec.as_mut()) {
        let stage = crate::staged_cmd::stage_for(e, &wicket_policy::text::shell_join(&words))?;
        e.stage = Some(stage.dir().to_path_buf());
        unused_stage = Some(crate::staged_cmd::Unused::new(stage));
    }
    let early = match (&placement, &exec, &net_config) {
        (Placement::Sandbox(backend @ wicket_sandbox::Backend::Bwrap { .. }), Ok(e), None) => {
            let sandbox = wicket_sandbox::Sandbox { backend: backend.clone(), shim_exe: exe.clone() };
            Some(sandbox.start(e, &args.command, &opts)?)
        }
        _ => None,
    };
    if early.is_some() {
        wicket_sandbox::trace::phase("sandbox started");
    }
    let sandboxed = matches!(placement, Placement::Sandbox(_));
    let opening =
        Opening { overrides, no_audit: args.no_audit, placement: Some(placement.clone()), ..Opening::default() };
    let mut gate = Gate::open(&root, &loaded, opening)?;
    gate.on_notice(|n| eprintln!("wicket: {n}"));
    let command = wicket_policy::text::shell_join(&words);
    let call = ToolCall::new("bash", serde_json::json!({ "command": command, "outside_sandbox": !sandboxed }));
    // The person at the terminal is asked when the engine asks (never when unattended: the
    // engine then words its asks as denies).
    let resolved = gate.resolve(&call, &mut OnDemand::new());
    let verdict = resolved.verdict;
    wicket_sandbox::trace::phase("decided");
    match &resolved.asked {
        Some((pending, Answer::Deny)) => {
            eprintln!("wicket: refused by you: {}", pending.question(sandboxed).what);
            return Ok(ExitCode::from(126));
        }
        // "always" lasts: the rule the question showed goes into your own settings.
        Some((pending, Answer::Always(_))) if verdict.decision == Decision::Allow => {
            if let Some(rule) = pending.always().map(|r| r.to_string()) {
                match remember_rule(&rule) {
                    Ok(file) => eprintln!("wicket: added the allow rule {rule} to {}", file.display()),
                    Err(e) => eprintln!("wicket: allowed this time, but the rule {rule} was not saved: {e:#}"),
                }
            }
        }
        _ => {}
    }
    if verdict.decision != Decision::Allow {
        eprintln!("wicket: refused ({}): {}", verdict.by, verdict.reason);
        return Ok(ExitCode::from(126));
    }
    // A check that could not run counts as failed.
    let holds = |c: std::io::Result<std::thread::JoinHandle<bool>>| c.ok().and_then(|h| h.join().ok()).unwrap_or(false);
    let stale = check.is_some_and(|c| !holds(c));
    wicket_sandbox::trace::phase("scan checked");
    let (exec, early) = if stale {
        // Never started: the sandbox built on the stale scan runs nothing (nor its copy, made
        // without the secrets that scan missed).
        drop(early);
        drop(unused_stage.take());
        (exec_policy(&inputs), None)
    } else {
        (exec, early)
    };
    let mut exec = match exec {
        Ok(e) => e,
        Err(e) => {
            let v = gate.record(&call, Verdict::deny(By::Policy, e.to_string()));
            eprintln!("wicket: refused ({}): {}", v.by, v.reason);
            return Ok(ExitCode::from(126));
        }
    };
    let stage = match unused_stage.and_then(crate::staged_cmd::Unused::take) {
        Some(stage) => Some(stage),
        None if staged => {
            let stage = crate::staged_cmd::stage_for(&exec, &command)?;
            exec.stage = Some(stage.dir().to_path_buf());
            Some(stage)
        }
        None => None,
    };
    // What the sandbox does differently here is said once per project, until it changes.
    let seen = wicket::notices::Seen::from_env();
    if matches!(placement, Placement::Sandbox(_)) {
        for n in &exec.notices {
            seen.print(&exec.root, n);
        }
    }
    if let (Placement::Sandbox(backend), Some(n)) = (&placement, masked_notice(&exec)) {
        seen.print(&exec.root, &n);
        if !matches!(backend, wicket_sandbox::Backend::Bwrap { .. }) {
            seen.print(
                &exec.root,
                "without bubblewrap they are hidden by Landlock: files made anew directly in a folder that holds one (or in one of its parents inside the project) cannot be read or written in this run",
            );
        }
    }
    // From here the proxy and its approver record into the same log.
    let audit: SharedRecorder = gate.log().context("the gate has no audit log")?;
    let mut blocked = Vec::new();
    if let Placement::Sandbox(backend) = &placement {
        for m in backend.missing() {
            seen.print(&exec.root, m);
        }
    }
    // From here a signal to wicket (Ctrl-C, TERM, HUP) is passed on to the command, which
    // ends; the run is then recorded like any other.
    wicket_sandbox::signals::forward();
    // Whether the command runs with no network at all (for the hint after a failure).
    let mut offline = sandboxed && net_config.is_none();
    // Without the network, a sandbox whose set-up failed can be set up again (see below).
    let again = match (&placement, &net_config) {
        (Placement::Sandbox(b), None) => Some(wicket_sandbox::Sandbox { backend: b.clone(), shim_exe: exe.clone() }),
        _ => None,
    };
    let mut outcome = match (early, placement) {
        (Some(started), _) => started.go()?,
        (None, Placement::Sandbox(backend)) => {
            let sandbox = wicket_sandbox::Sandbox { backend, shim_exe: exe };
            match net_config {
                Some(net_config) if matches!(sandbox.backend, wicket_sandbox::Backend::Bwrap { .. }) => {
                    let approver: Option<Box<dyn Approver + Send>> = if args.unattended {
                        None
                    } else {
                        TerminalApprover::open().ok().map(|t| Box::new(t) as Box<dyn Approver + Send>)
                    };
                    let net = NetRun::start(net_config, approver, audit.clone()).map_err(anyhow::Error::msg)?;
                    let network = net.network();
                    let mut serve = |l: std::net::TcpListener| net.serve(l);
                    let outcome = sandbox.run_networked(&exec, &args.command, &opts, &network, &mut serve);
                    blocked = net.blocked();
                    net.stop();
                    outcome?
                }
                Some(_) => {
                    offline = true;
                    seen.print(
                        &exec.root,
                        &format!(
                            "network.allow is not served by the {} sandbox: without a network namespace \
                             the proxy cannot be the only way out (Landlock cannot limit a connection by address), \
                             so the command has no network at all; install bubblewrap for the allowlist",
                            sandbox.backend.name()
                        ),
                    );
                    sandbox.run(&exec, &args.command, &opts)?
                }
                // Started and let go at once: a set-up that fails is then known (see below).
                None => sandbox.start(&exec, &args.command, &opts)?.go()?,
            }
        }
        (None, Placement::Host(_)) => {
            if net_config.is_some() {
                seen.print(&exec.root, "network.allow does not apply: the command runs on the host, with its network");
            }
            wicket_sandbox::run_on_host(&exec, &args.command, &opts)?
        }
    };
    // bubblewrap failed before the command could start (a root-only file it was to hide
    // vanished in between, as a system tool's lock file does): the command did not run, so the
    // sandbox is set up again, from a fresh look at what to hide.
    let mut tries = 1;
    while let Some(sandbox) = &again {
        if !outcome.never_started
            || outcome.timed_out
            || tries >= SET_UP_TRIES
            || wicket_sandbox::signals::received().is_some()
        {
            break;
        }
        tries += 1;
        eprintln!(
            "wicket: notice: the sandbox stopped before the command started (its message is above; a file it \
             was to hide may have vanished as it started): the command did not run, and the sandbox is set up again"
        );
        outcome = sandbox.start(&exec, &args.command, &opts)?.go()?;
    }
    wicket_sandbox::trace::phase("run over");
    if outcome.timed_out {
        eprintln!("wicket: the command ran out of time and was stopped");
    }
    if let Some(stage) = stage {
        crate::staged_cmd::after_run(stage, args.unattended)?;
    }
    if let Some(sig) = wicket_sandbox::signals::received() {
        eprintln!(
            "wicket: interrupted by signal {sig}: passed on to the command, which ended with status {}",
            outcome.code
        );
    }
    // The refusals, so the model (reading stderr) learns why its command failed.
    for b in &blocked {
        eprintln!("{BLOCKED_LINE}{}", b.to_string().replace(['\r', '\n'], " "));
    }
    // One hint after a failure: what the sandbox withheld that the command may have needed.
    // Not for a program that was not found or cannot run (126, 127): no wall of the sandbox
    // is why, and a hint about the network would send the person the wrong way.
    if sandboxed
        && !outcome.never_started
        && outcome.code != 0
        && !matches!(outcome.code, 126 | 127)
        && !outcome.timed_out
        && wicket_sandbox::signals::received().is_none()
    {
        let mut parts = Vec::new();
        if offline {
            // The registries this project's package managers use, when some are not allowed yet.
            let found = wicket::registries::detect(&exec.root);
            let missing = wicket::registries::missing(&found, &[]);
            parts.push(if missing.is_empty() {
                "it ran with no network at all; if it needs one, list its hosts in network.allow in \
                 .wicket/settings.json (e.g. \"network\": {\"allow\": [\"registry.npmjs.org\"]}; `wicket docs network`)"
                    .to_string()
            } else {
                format!(
                    "it ran with no network at all; if it installs packages, `wicket registries --allow` lets \
                     sandboxed commands reach the registries this project uses ({}), or list hosts in \
                     network.allow (`wicket docs network`)",
                    missing.join(", ")
                )
            });
        }
        // Said once per project before the run; a failure is when it matters again.
        parts.extend(masked_notice(&exec));
        parts.extend(sealed_hint(&exec));
        if !parts.is_empty() {
            eprintln!("wicket: hint: the command failed, and {}", parts.join("; and "));
        }
    }
    // New names at the top level that run code somewhere are held for a person.
    let held = if sandboxed {
        wicket::staged::hold_after_run(&exec, &outcome.held, &outcome.held_entries, &command)
    } else {
        None
    };
    if let Some(h) = &held {
        eprintln!("wicket: {h}");
    }
    let ms = u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX);
    let mut note = moved_note(&outcome, &exec);
    if let Some(h) = held {
        if !note.is_empty() {
            note.push_str("; ");
        }
        note.push_str(&h);
    }
    gate.record_execution(&Execution {
        tool: "bash",
        target: &command,
        duration_ms: ms,
        exit_code: i64::from(outcome.code),
        risk: wicket::audit::risk(&verdict),
        note: &note,
    });
    wicket_sandbox::trace::phase("recorded");
    Ok(ExitCode::from(outcome.code.clamp(0, 255) as u8))
}

/// How many times a sandbox that failed before its command started is set up, in all.
const SET_UP_TRIES: u32 = 3;

/// The repositories the run left that were moved aside (see `wicket_sandbox::quarantine`), as
/// the audit line's note; empty when none were.
pub fn moved_note(outcome: &wicket_sandbox::Outcome, exec: &wicket_planner::exec::ExecPolicy) -> String {
    outcome
        .moved_aside
        .iter()
        .map(|m| wicket_sandbox::quarantine::describe(m, &exec.root))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The one notice about the project's own secrets that the sandbox hides (none when there are
/// none, or when the command runs on the host).
pub fn masked_notice(exec: &wicket_planner::exec::ExecPolicy) -> Option<String> {
    if exec.masked.is_empty() {
        return None;
    }
    const SHOWN: usize = 10;
    let names: Vec<String> =
        exec.masked.iter().take(SHOWN).map(|p| p.strip_prefix(&exec.root).unwrap_or(p).display().to_string()).collect();
    let more = exec.masked.len().saturating_sub(SHOWN);
    Some(format!(
        "{} sensitive file(s) in the project are unreadable in the sandbox: {}{}; an allow rule that names one (e.g. read_file({})) keeps it readable",
        exec.masked.len(),
        names.join(", "),
        if more > 0 { format!(" and {more} more") } else { String::new() },
        names.first().map(String::as_str).unwrap_or(".env")
    ))
}

/// After a failed run: what the sealed homes hid, in one line, and how to show a part of one.
pub fn sealed_hint(exec: &wicket_planner::exec::ExecPolicy) -> Option<String> {
    let mut open = exec.writable.clone();
    open.push(exec.root.clone());
    let hidden = wicket_planner::sealed::hidden_entries(
        &wicket_planner::sealed::Sealed { sealed: exec.sealed.clone(), readable: exec.sealed_readable.clone() },
        &open,
    );
    if hidden.is_empty() {
        return None;
    }
    let home = config::home_dir();
    let show = |p: &Path| match home.as_deref().and_then(|h| p.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => p.display().to_string(),
    };
    const SHOWN: usize = 5;
    let names: Vec<String> = hidden.iter().take(SHOWN).map(|p| show(p)).collect();
    let more = hidden.len().saturating_sub(SHOWN);
    Some(format!(
        "the sandbox hid {} entries of the home and /run that no toolchain needs ({}{}); if it needs one, \
         allow that part for reading, e.g. read_file(~/.config/TOOL/**) (`wicket docs sandbox \"can read\"`)",
        hidden.len(),
        names.join(", "),
        if more > 0 { format!(" and {more} more") } else { String::new() },
    ))
}

/// Add an allow rule to the person's own settings (`$WICKET_HOME/settings.json`), keeping
/// everything else in the file; the result must still be valid settings.
fn remember_rule(rule: &str) -> Result<PathBuf> {
    let file = config::wicket_home()?.join("settings.json");
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "{}".to_string(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", file.display())),
    };
    let mut v: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", file.display()))?;
    let allow = v
        .as_object_mut()
        .and_then(|o| o.entry("permissions").or_insert_with(|| serde_json::json!({})).as_object_mut())
        .and_then(|p| p.entry("allow").or_insert_with(|| serde_json::json!([])).as_array_mut())
        .with_context(|| format!("{}: permissions.allow is not a list", file.display()))?;
    if !allow.iter().any(|r| r.as_str() == Some(rule)) {
        allow.push(serde_json::Value::String(rule.to_string()));
    }
    let mut new = serde_json::to_string_pretty(&v)?;
    new.push('\n');
    wicket_policy::Settings::parse(&new, &file.display().to_string())?;
    crate::init_cmd::write_atomic(&file, &new)?;
    Ok(file)
}
