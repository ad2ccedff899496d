//! `wicket fetch URL`: fetch a URL the way an agent's `web_fetch` should, every hop decided.
//!
//! Each URL (the first and every redirect) is a `web_fetch` call for the engine (asking the
//! person when the verdict is ask; unattended or without a terminal: deny) and then passes the
//! network policy and the address checks of `wicket_net::fetch`. The body goes to stdout.
//!
//! Exit status: 0 for a 2xx answer; 1 for another status or a network failure (the reason on
//! stderr); 126 when a hop is refused; 2 for wicket's own errors.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use wicket::approver::OnDemand;
use wicket::config::{self, Overrides};
use wicket::gate::{Gate, Opening};
use wicket_net::fetch::{FetchError, Limits, Tls};
use wicket_policy::{Decision, Mode, ToolCall};

/// The flags of `wicket fetch` (a public contract: add, never change).
#[derive(Args)]
pub struct FetchArgs {
    /// The project root (default: the nearest folder at or above the current one that holds `.wicket` or `.git`, else the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode.
    #[arg(long, value_parser = crate::check_cmd::parse_mode)]
    pub mode: Option<Mode>,
    /// Never ask: a URL that would ask is refused.
    #[arg(long)]
    pub unattended: bool,
    #[command(flatten)]
    pub rules: crate::flags::RuleFlags,
    /// A header sent to the first URL's origin only, never across hosts (repeatable).
    #[arg(long, value_name = "NAME: VALUE")]
    pub header: Vec<String>,
    /// The largest response of one hop, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 10 * 1024 * 1024)]
    pub max_bytes: usize,
    /// The most redirects followed (at most 5).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub max_redirects: usize,
    /// Give up after this many seconds, every hop included.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub timeout: f64,
    /// Do not write the audit log.
    #[arg(long)]
    pub no_audit: bool,
    /// Also trust the CA certificates in this PEM file for https:// (repeatable); Mozilla's roots stay trusted.
    #[arg(long, value_name = "FILE")]
    pub cacert: Vec<PathBuf>,
    /// The URL (http:// or https://).
    #[arg(value_name = "URL")]
    pub url: String,
}

/// Fetch, print the body, and return the exit status.
pub fn fetch(args: &FetchArgs) -> Result<ExitCode> {
    let root = crate::check_cmd::project_root(args.root.as_deref())?.0;
    let loaded = config::load(&root)?;
    loaded.print_notices();
    let overrides =
        args.rules.apply(Overrides { mode: args.mode, unattended: args.unattended, ..Overrides::default() });
    let mut gate = Gate::open(&root, &loaded, Opening { overrides, no_audit: args.no_audit, ..Opening::default() })?;
    gate.on_notice(|n| eprintln!("wicket: {n}"));
    let policy = gate.policy();
    let net = match wicket::net::net_config_of(&loaded)? {
        Some(n) => n,
        None => wicket_net::NetConfig::from_settings(&[], &policy.team().network)?,
    };
    let mut headers = Vec::new();
    for h in &args.header {
        let Some((k, v)) = h.split_once(':') else { bail!("--header {h:?} is not `Name: value`") };
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    if args.max_redirects > 5 {
        bail!("--max-redirects is at most 5");
    }
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        bail!("--timeout must be a positive number of seconds");
    }
    let limits = Limits {
        max_redirects: args.max_redirects,
        max_bytes: args.max_bytes,
        timeout: Duration::from_secs_f64(args.timeout),
    };
    let mut pems = Vec::new();
    for f in &args.cacert {
        let text = std::fs::read(f).with_context(|| format!("cannot read --cacert {}", f.display()))?;
        pems.push((f.display().to_string(), text));
    }
    let extra: Vec<(&str, &[u8])> = pems.iter().map(|(n, t)| (n.as_str(), t.as_slice())).collect();
    let tls = Tls::with_pem_roots(&extra).context("--cacert")?;
    // The person at the terminal is asked when the engine asks (the engine words its asks as
    // denies when unattended).
    let mut approver = OnDemand::new();
    let mut decide = |url: &str| -> Result<(), String> {
        let call = ToolCall::new("web_fetch", serde_json::json!({ "url": url }));
        let v = gate.resolve(&call, &mut approver).verdict;
        if v.decision == Decision::Allow {
            Ok(())
        } else {
            Err(format!("{} ({})", v.reason, v.by))
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the fetch's runtime")?;
    let resolver = wicket::net::resolver().map_err(anyhow::Error::msg)?;
    let result = runtime.block_on(wicket_net::fetch::fetch_with(
        &args.url,
        &net,
        resolver.as_ref(),
        &mut decide,
        &headers,
        &limits,
        &tls,
    ));
    match result {
        Ok(r) => {
            for hop in r.hops.iter().skip(1) {
                eprintln!("wicket: fetch: followed a redirect to {hop}");
            }
            let mut out = std::io::stdout().lock();
            out.write_all(&r.body).context("cannot write the body")?;
            out.flush().context("cannot write the body")?;
            if (200..300).contains(&r.status) {
                Ok(ExitCode::SUCCESS)
            } else {
                eprintln!("wicket: fetch: HTTP {} from {}", r.status, r.url);
                Ok(ExitCode::from(1))
            }
        }
        Err(e @ FetchError::Refused { .. }) => {
            eprintln!("wicket: fetch {e}");
            Ok(ExitCode::from(126))
        }
        Err(e) => {
            eprintln!("wicket: fetch failed: {e}");
            Ok(ExitCode::from(1))
        }
    }
}
