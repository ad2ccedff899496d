//! `wicket trust list`, `wicket trust approve [--root DIR] [--yes]` and `wicket trust revoke
//! [--root DIR]`: the agreements pinned in `$WICKET_HOME/trust.json`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};
use wicket::config;
use wicket::trust::{TrustStore, TRUST_FILE};

/// `wicket trust …`.
#[derive(Args)]
pub struct TrustArgs {
    #[command(subcommand)]
    pub command: TrustCommand,
}

/// The sub-commands.
#[derive(Subcommand)]
pub enum TrustCommand {
    /// List every pinned agreement: project, kind, hash and when.
    List,
    /// Show what a project's settings would loosen, in full, and agree to it (pinned until the
    /// file changes): the way for hook users, whose agent never shows wicket's question.
    Approve {
        /// The project root (default: the project around the current folder).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Agree without a question on the terminal (after reading what is printed).
        #[arg(long)]
        yes: bool,
    },
    /// Forget every agreement for a project (the next run asks again).
    Revoke {
        /// The project root (default: the nearest folder at or above the current one that holds `.wicket` or `.git`, else the current folder).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
}

pub fn run(args: &TrustArgs) -> Result<ExitCode> {
    let file = config::wicket_home()?.join(TRUST_FILE);
    let (mut store, broken) = TrustStore::load(&file);
    if let Some(n) = &broken {
        eprintln!("wicket: notice: {n}");
    }
    match &args.command {
        TrustCommand::List => {
            if store.pins().is_empty() {
                println!("no pins in {}", file.display());
            }
            for p in store.pins() {
                let when = wicket_audit::format_utc(p.pinned_at.saturating_mul(1000));
                let label = p.label.as_deref().map(|l| format!(" {l:?}")).unwrap_or_default();
                println!("{}  {}{label}  sha256 {}  pinned {when}", p.root, p.kind.as_str(), p.sha256);
            }
            Ok(ExitCode::SUCCESS)
        }
        TrustCommand::Approve { root, yes } => approve(root.as_deref(), *yes),
        TrustCommand::Revoke { root } => {
            let root = crate::check_cmd::project_root(root.as_deref())?.0;
            let n = store.revoke(&root);
            if n > 0 || broken.is_some() {
                store.save()?;
            }
            println!("revoked {n} pin(s) for {}", wicket::trust::root_key(&root));
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Print the loosening parts of the project's settings and pin them when the person agrees.
fn approve(root: Option<&std::path::Path>, yes: bool) -> Result<ExitCode> {
    use wicket::config::ProjectConsent;
    let root = crate::check_cmd::project_root(root)?.0;
    let loaded = config::load(&root)?;
    let parts = match &loaded.consent {
        ProjectConsent::NotNeeded => {
            println!("nothing to agree to: {} loosens nothing (or does not exist)", loaded.project_file.display());
            return Ok(ExitCode::SUCCESS);
        }
        ProjectConsent::Pinned | ProjectConsent::Granted { .. } => {
            println!("already agreed: {} applies as it is", loaded.project_file.display());
            return Ok(ExitCode::SUCCESS);
        }
        ProjectConsent::Withheld { parts, .. } => parts.clone(),
    };
    println!("{} loosens safety; agreeing applies all of it until the file changes:", loaded.project_file.display());
    for p in &parts {
        println!("  {p}");
    }
    let loaded = if yes {
        let mut fixed = wicket::consent::FixedConsent { answer: wicket::approver::Consent::Remember, asked: 0 };
        config::load_with(&root, Some(&mut fixed))?
    } else {
        config::load_with(&root, Some(&mut Agreeing))?
    };
    loaded.print_notices();
    match loaded.consent {
        ProjectConsent::Granted { remembered: true } | ProjectConsent::Pinned => {
            println!("agreed and pinned in {}", config::wicket_home()?.join(TRUST_FILE).display());
            Ok(ExitCode::SUCCESS)
        }
        ProjectConsent::Granted { remembered: false } => {
            println!("not pinned: \"yes, for this run\" has no run here; answer r (remember) to agree");
            Ok(ExitCode::from(1))
        }
        _ => {
            println!("not agreed: nothing changes (without a terminal, pass --yes after reading the above)");
            Ok(ExitCode::from(1))
        }
    }
}

/// The terminal's consent question, for `trust approve`: the person asked to agree, so a "yes"
/// agrees and is pinned (there is no run for a "yes, for this run" to apply to).
struct Agreeing;

impl wicket::consent::ConsentAsker for Agreeing {
    fn ask(&mut self, file: &std::path::Path, parts: &[String]) -> Option<wicket::approver::Consent> {
        use wicket::approver::Consent;
        wicket::consent::TerminalConsent.ask(file, parts).map(|c| match c {
            Consent::Once => Consent::Remember,
            other => other,
        })
    }
}
