//! `wicket trust list` and `wicket trust revoke [--root DIR]`: the agreements pinned in
//! `$WICKET_HOME/trust.json`.

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
    /// Forget every agreement for a project (the next run asks again).
    Revoke {
        /// The project root (default: the current folder).
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
