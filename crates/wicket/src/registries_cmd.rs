//! `wicket registries`: which package registries this project's installs need, and (with
//! `--allow`) one step to let sandboxed commands reach them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use serde_json::{json, Value};

/// The flags of `wicket registries`.
#[derive(Args)]
pub struct RegistriesArgs {
    /// The project root (default: the current folder's project).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Add what is missing to `network.allow` in your own settings ($WICKET_HOME/settings.json),
    /// so sandboxed installs reach these registries in every project.
    #[arg(long)]
    pub allow: bool,
    /// With --allow: show the change, write nothing.
    #[arg(long, requires = "allow")]
    pub dry_run: bool,
}

/// Run `wicket registries`.
pub fn run(args: &RegistriesArgs) -> Result<ExitCode> {
    let root = crate::check_cmd::project_root(args.root.as_deref())?.0;
    let found = wicket::registries::detect(&root);
    if found.is_empty() {
        println!("no package manager's files in {} (or one level below it)", root.display());
        return Ok(ExitCode::SUCCESS);
    }
    let loaded = wicket::config::load(&root)?;
    let allowed: Vec<String> =
        loaded.user.iter().chain(loaded.project.iter()).flat_map(|s| s.network.allow.iter().cloned()).collect();
    for f in &found {
        println!("{}: {} (network.allow: {})", f.manager, f.evidence, f.allow.join(", "));
    }
    let missing = wicket::registries::missing(&found, &allowed);
    if missing.is_empty() {
        println!("all of them are in network.allow already");
        return Ok(ExitCode::SUCCESS);
    }
    let file = wicket::config::wicket_home()?.join("settings.json");
    if !args.allow {
        println!(
            "not allowed yet: {}; run `wicket registries --allow` to add them to network.allow in {}",
            missing.join(", "),
            file.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "{}".to_string(),
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", file.display())),
    };
    let mut v: Value = serde_json::from_str(&text).with_context(|| format!("{} is not JSON", file.display()))?;
    let list = v
        .as_object_mut()
        .and_then(|o| o.entry("network").or_insert_with(|| json!({})).as_object_mut())
        .and_then(|n| n.entry("allow").or_insert_with(|| json!([])).as_array_mut())
        .with_context(|| format!("{}: network.allow is not a list", file.display()))?;
    for m in &missing {
        if !list.iter().any(|x| x.as_str() == Some(m)) {
            list.push(Value::String((*m).to_string()));
        }
    }
    let mut new = serde_json::to_string_pretty(&v)?;
    new.push('\n');
    // Never write a file wicket would then refuse to read.
    wicket_policy::Settings::parse(&new, &file.display().to_string())?;
    if args.dry_run {
        println!("(dry run: {} not written; network.allow would gain {})", file.display(), missing.join(", "));
        return Ok(ExitCode::SUCCESS);
    }
    crate::init_cmd::write_atomic(&file, &new)?;
    println!("written: {} (network.allow += {})", file.display(), missing.join(", "));
    Ok(ExitCode::SUCCESS)
}
