//! The `wicket` command line: `check` decides tool calls, `explain` shows how.

mod check_cmd;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => check_cmd::check(&args, false).map(|()| ExitCode::SUCCESS),
        Command::Explain(args) => check_cmd::check(&args, true).map(|()| ExitCode::SUCCESS),
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
