//! The `wicket` command line: `check` decides tool calls, `explain` shows how, `run` runs a
//! command in the sandbox, `policy` and `trust` show and manage the configuration, `hook`,
//! `serve` and `mcp` put wicket in front of agents and MCP servers.

mod audit_cmd;
mod check_cmd;
mod codex_profile;
mod codex_trust;
mod docs_cmd;
mod doctor_cmd;
mod fetch_cmd;
mod flags;
mod hook_claude;
mod hook_cmd;
mod hook_codex;
mod hook_copilot;
mod hook_core;
mod hook_droid;
mod hook_gemini;
mod hook_opencode;
mod hook_qwen;
mod init_agents;
mod init_cmd;
mod lines;
mod mcp_cmd;
mod owed;
mod policy_cmd;
mod policy_suggest;
mod registries_cmd;
mod run_cmd;
mod serve_cmd;
mod staged_cmd;
mod trust_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "wicket", version, about = "A permission gate and OS sandbox for AI coding agents")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decide a tool call read from stdin: prints {"decision","by","reason","rule"}.
    Check(check_cmd::CheckArgs),
    /// Show, for a person, each step of the decision for a tool call read from stdin.
    Explain(check_cmd::CheckArgs),
    /// Decide a command, ask if needed, and run it in the OS sandbox.
    Run(run_cmd::RunArgs),
    /// Fetch an http:// or https:// URL for an agent: every hop decided, every address checked.
    Fetch(fetch_cmd::FetchArgs),
    /// Show which sandbox backends work here and what each isolates.
    Doctor(doctor_cmd::DoctorArgs),
    /// Verify the audit log (`verify [FILE|DIR]`) or show it (`show [--json] [filters]`).
    Audit(audit_cmd::AuditArgs),
    /// Show the effective configuration and its sources (`show`), check every file (`lint`), or propose rules from the audit log (`suggest`).
    Policy(policy_cmd::PolicyArgs),
    /// List or revoke what you agreed to for projects (`list`, `revoke [--root DIR]`).
    Trust(trust_cmd::TrustArgs),
    /// Answer an agent's pre-tool hook (`claude`, `codex`, `gemini`): the payload on stdin, the answer on stdout.
    Hook(hook_cmd::HookArgs),
    /// Set an agent up to ask wicket (`claude|codex|gemini [--user|--project]`).
    Init(init_cmd::InitArgs),
    /// Answer JSON-RPC 2.0 on stdin/stdout: decide calls, ask the client, verify the audit log.
    Serve(serve_cmd::ServeArgs),
    /// Sit between an MCP client and a stdio MCP server (`-- SERVER_CMD …`), started in the OS sandbox: decide every tools/call.
    Mcp(mcp_cmd::McpArgs),
    /// List, show, apply or discard what staged runs changed (`list`, `diff ID`, `apply ID [PATHS…]`, `discard ID`).
    Staged(staged_cmd::StagedArgs),
    /// Show the package registries this project's installs need; `--allow` lets sandboxed commands reach them.
    Registries(registries_cmd::RegistriesArgs),
    /// Print the user guide: the pages, a page, or one section of it (`docs sandbox "can read"`).
    Docs(docs_cmd::DocsArgs),
    /// Print the completion script for a shell (`bash`, `zsh`, `fish`, `elvish`, `powershell`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `wicket man | man -l -`.
    Man,
}

/// The commands an agent runs on every tool call, parsed by a parser that knows only them:
/// building clap's whole command tree costs more than the decision itself. Same flags, same
/// help text (a test compares them with [`Cli`]'s).
// The commands on every tool call get a parser of their own, holding only that command: clap
// builds every argument of every command it holds before it parses (the hook's agents alone
// are a dozen subcommands), on each call. A test checks each against the full parser.

#[derive(Parser)]
#[command(name = "wicket", version, about = "A permission gate and OS sandbox for AI coding agents")]
struct HotCheck {
    #[command(subcommand)]
    command: OnlyCheck,
}

#[derive(Subcommand)]
enum OnlyCheck {
    /// Decide a tool call read from stdin: prints {"decision","by","reason","rule"}.
    Check(check_cmd::CheckArgs),
}

#[derive(Parser)]
#[command(name = "wicket", version, about = "A permission gate and OS sandbox for AI coding agents")]
struct HotRun {
    #[command(subcommand)]
    command: OnlyRun,
}

#[derive(Subcommand)]
enum OnlyRun {
    /// Decide a command, ask if needed, and run it in the OS sandbox.
    Run(run_cmd::RunArgs),
}

#[derive(Parser)]
#[command(name = "wicket", version, about = "A permission gate and OS sandbox for AI coding agents")]
struct HotHook {
    #[command(subcommand)]
    command: OnlyHook,
}

#[derive(Subcommand)]
enum OnlyHook {
    /// Answer an agent's pre-tool hook (`claude`, `codex`, `gemini`): the payload on stdin, the answer on stdout.
    Hook(hook_cmd::HookArgs),
}

fn main() -> ExitCode {
    // The sandbox shim runs before anything else: it confines itself and becomes the command.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == wicket_sandbox::SHIM_ARG) {
        return ExitCode::from(wicket_sandbox::shim::main(&args[2..]).clamp(0, 255) as u8);
    }
    #[cfg(target_os = "linux")]
    if args.get(1).is_some_and(|a| a == wicket_sandbox::NS_ARG) {
        return ExitCode::from(wicket_sandbox::native::main(&args[2..]).clamp(0, 255) as u8);
    }
    if args.get(1).is_some_and(|a| a == wicket_sandbox::SUPERVISE_ARG) {
        return ExitCode::from(wicket_sandbox::supervise::main(&args[2..]).clamp(0, 255) as u8);
    }
    if args.get(1).is_some_and(|a| a == wicket_sandbox::KEEPER_ARG) {
        return ExitCode::from(wicket_sandbox::placeholders::keeper_main(&args[2..]).clamp(0, 255) as u8);
    }
    let command = match args.get(1).and_then(|a| a.to_str()) {
        Some("check") => match HotCheck::parse().command {
            OnlyCheck::Check(a) => Command::Check(a),
        },
        Some("run") => match HotRun::parse().command {
            OnlyRun::Run(a) => Command::Run(a),
        },
        Some("hook") => match HotHook::parse().command {
            OnlyHook::Hook(a) => {
                // The hook's answer goes out before the exporter is started.
                wicket::otel::defer_kicks();
                Command::Hook(a)
            }
        },
        _ => Cli::parse().command,
    };
    let result = match command {
        Command::Check(args) => check_cmd::check(&args, false).map(|()| ExitCode::SUCCESS),
        Command::Explain(args) => check_cmd::check(&args, true).map(|()| ExitCode::SUCCESS),
        Command::Run(args) => {
            let code = run_cmd::run(&args);
            wicket_sandbox::trace::phase("cleaned up");
            code
        }
        Command::Fetch(args) => fetch_cmd::fetch(&args),
        Command::Doctor(args) => doctor_cmd::doctor(&args),
        Command::Audit(args) => audit_cmd::run(&args),
        Command::Policy(args) => policy_cmd::run(&args),
        Command::Trust(args) => trust_cmd::run(&args),
        Command::Hook(args) => hook_cmd::run(&args),
        Command::Init(args) => init_cmd::run(&args),
        Command::Serve(args) => serve_cmd::serve(&args),
        Command::Mcp(args) => mcp_cmd::run(&args),
        Command::Staged(args) => staged_cmd::run(&args),
        Command::Registries(args) => registries_cmd::run(&args),
        Command::Docs(args) => docs_cmd::run(&args),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "wicket", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            use clap::CommandFactory;
            clap_mangen::Man::new(Cli::command())
                .render(&mut std::io::stdout())
                .map(|()| ExitCode::SUCCESS)
                .map_err(|e| anyhow::anyhow!("cannot write the manual page: {e}"))
        }
    };
    // Whatever ran sandboxes (`run`, `serve`, `mcp`) is done with them: the placeholders'
    // keepers it started end now, not some seconds after wicket.
    wicket_sandbox::placeholders::let_go();
    #[cfg(target_os = "linux")]
    wicket_sandbox::layers::tidied();
    wicket_sandbox::reap_ended();
    wicket_sandbox::trace::phase("keepers let go");
    wicket::otel::kick_owed();
    match result {
        Ok(code) => code,
        Err(e) => {
            let msg = format!("{e:#}").replace('\n', " ");
            eprintln!("wicket: {msg}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// Each hot parser is the full one cut down to its command: the same about, flags, help text
    /// and subcommands, and the same top level.
    #[test]
    fn the_hot_parsers_match_the_full_one() {
        let full = Cli::command();
        for (name, hot) in [("check", HotCheck::command()), ("run", HotRun::command()), ("hook", HotHook::command())] {
            assert_eq!(hot.get_subcommands().count(), 1, "{name}");
            assert_eq!(full.get_about().map(ToString::to_string), hot.get_about().map(ToString::to_string));
            assert_eq!(full.get_version(), hot.get_version());
            let (f, h) = (full.find_subcommand(name).unwrap(), hot.find_subcommand(name).unwrap());
            assert_eq!(f.get_about().map(ToString::to_string), h.get_about().map(ToString::to_string), "{name}");
            let flags = |c: &clap::Command| -> Vec<String> {
                c.get_arguments().map(|a| format!("{:?} {:?} {:?}", a.get_id(), a.get_long(), a.get_help())).collect()
            };
            assert_eq!(flags(f), flags(h), "{name}");
            let subs =
                |c: &clap::Command| -> Vec<String> { c.get_subcommands().map(|s| s.get_name().to_string()).collect() };
            assert_eq!(subs(f), subs(h), "{name}");
            // Help as printed, subcommands' too (the hook's agents).
            let help = |c: &clap::Command| c.clone().render_long_help().to_string();
            assert_eq!(help(f), help(h), "{name}");
            for s in f.get_subcommands() {
                assert_eq!(help(s), help(h.find_subcommand(s.get_name()).unwrap()), "{name} {}", s.get_name());
            }
        }
    }
}
