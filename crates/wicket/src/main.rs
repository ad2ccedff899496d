//! The `wicket` command line: `check` decides tool calls, `explain` shows how, `run` runs a
//! command in the sandbox, `policy` and `trust` show and manage the configuration, `hook`,
//! `serve` and `mcp` put wicket in front of agents and MCP servers.

mod audit_cmd;
mod check_cmd;
mod doctor_cmd;
mod fetch_cmd;
mod hook_cmd;
mod hook_codex;
mod hook_core;
mod hook_gemini;
mod init_cmd;
mod mcp_cmd;
mod policy_cmd;
mod run_cmd;
mod serve_cmd;
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
    /// Fetch an http:// URL for an agent: every hop decided, every address checked.
    Fetch(fetch_cmd::FetchArgs),
    /// Show which sandbox backends work here and what each isolates.
    Doctor(doctor_cmd::DoctorArgs),
    /// Verify the audit log (`verify [FILE|DIR]`) or show it (`show [--json] [filters]`).
    Audit(audit_cmd::AuditArgs),
    /// Show the effective configuration and its sources (`show`), or check every file (`lint`).
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
}

fn main() -> ExitCode {
    // The sandbox shim runs before anything else: it confines itself and becomes the command.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == wicket_sandbox::SHIM_ARG) {
        return ExitCode::from(wicket_sandbox::shim::main(&args[2..]).clamp(0, 255) as u8);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => check_cmd::check(&args, false).map(|()| ExitCode::SUCCESS),
        Command::Explain(args) => check_cmd::check(&args, true).map(|()| ExitCode::SUCCESS),
        Command::Run(args) => run_cmd::run(&args),
        Command::Fetch(args) => fetch_cmd::fetch(&args),
        Command::Doctor(args) => doctor_cmd::doctor(&args),
        Command::Audit(args) => audit_cmd::run(&args),
        Command::Policy(args) => policy_cmd::run(&args),
        Command::Trust(args) => trust_cmd::run(&args),
        Command::Hook(args) => hook_cmd::run(&args),
        Command::Init(args) => init_cmd::run(&args),
        Command::Serve(args) => serve_cmd::serve(&args),
        Command::Mcp(args) => mcp_cmd::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let msg = format!("{e:#}").replace('\n', " ");
            eprintln!("wicket: {msg}");
            ExitCode::from(2)
        }
    }
}
