//! `wicket mcp [--name NAME] -- SERVER_CMD [ARGS…]`: a gateway between an MCP client and a
//! stdio MCP server, which it starts in the OS sandbox.
//!
//! The hard question: can a `tools/call` reach the server without a recorded allow? Every
//! line from the client is parsed; a `tools/call` request is forwarded only after the engine
//! (and, when it asks, the person) allowed it and the decision was written to the audit log.
//! A line the gateway cannot read is answered with an error and never forwarded; a
//! `tools/call` without an id, or with arguments that are not an object, is refused. Every
//! other message passes through byte for byte, except `tools/list` results, from which tools
//! that a deny rule removes entirely are dropped. The server's own requests to the client
//! (sampling, elicitation, roots) pass through, and the gateway's own elicitation requests use
//! ids no in-flight server request has, so answers never go to the wrong side. A request the
//! server does not answer within `--call-timeout` gets an error, and the server's late answer
//! is dropped (its id stays unusable until then, so the answer cannot go to a newer request).
//! A `tools/call` the gateway does not decide within the hooks' deadline (a hung file system, a
//! held audit lock) is answered with a deny by [`crate::owed`] and never forwarded.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc::{self};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::{json, Value};
use wicket::approver::{Consent, TerminalApprover};
use wicket::audit::Recorder;
use wicket::config::{self, Overrides, Placement};
use wicket::gate::{Gate, Opening};
use wicket::jsonrpc::{self};
use wicket::trust::{PinKind, TrustStore, TRUST_FILE};
use wicket_planner::exec::exec_policy;
use wicket_policy::{By, Mode, Verdict};

use crate::owed::Owed;
use crate::run_cmd::shell_join;
use wicket::mcp_server::{check_name, default_name, definition_hash};

/// The flags of `wicket mcp` (a public contract: add, never change).
#[derive(Args)]
pub struct McpArgs {
    /// The server's name: its tools are decided as `mcp__<NAME>__<tool>` (default: from the command).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The project root: the server's working folder and the one folder it may write (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode.
    #[arg(long, value_parser = crate::check_cmd::parse_mode)]
    pub mode: Option<Mode>,
    /// Run the server on the host, unconfined (tool calls are still decided).
    #[arg(long)]
    pub no_sandbox: bool,
    /// Give the sandboxed server the network (off by default).
    #[arg(long)]
    pub network: bool,
    /// Never ask: a call that would ask is refused, and so is a changed server definition.
    #[arg(long)]
    pub unattended: bool,
    /// Do not write the audit log.
    #[arg(long)]
    pub no_audit: bool,
    #[command(flatten)]
    pub rules: crate::flags::RuleFlags,
    /// Seconds to wait for the client's answer to an elicitation before denying.
    #[arg(long, value_name = "SECS", default_value_t = 300.0)]
    pub approval_timeout: f64,
    /// Seconds the server may take to answer a forwarded request (a tools/call or any other)
    /// before the client gets an error instead; a later answer is dropped.
    #[arg(long, value_name = "SECS", default_value_t = 120.0)]
    pub call_timeout: f64,
    /// Pin this server definition in the trust store (accepting a changed one) and exit.
    #[arg(long)]
    pub pin: bool,
    /// The server command and its arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true, value_name = "SERVER_CMD")]
    pub command: Vec<OsString>,
}

/// Exit status when wicket refuses to start the server.
const REFUSED: u8 = 126;
/// A client line longer than this is refused (a JSON-RPC error) without being held whole: a
/// `tools/call` this long is far over the policy's input limit anyway.
const CLIENT_MAX_LINE: usize = 16 * 1024 * 1024;
/// A server line longer than this is dropped (servers may send large resources).
const SERVER_MAX_LINE: usize = 128 * 1024 * 1024;
/// How long the server gets to exit after its stdin closed, before SIGTERM, then SIGKILL.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// A `tools/call` result that tells the model the call was refused (MCP's `isError`), which
/// models read, rather than a protocol error, which clients often hide.
fn tool_error(id: Value, text: &str) -> Value {
    jsonrpc::result(id, json!({"content": [{"type": "text", "text": text}], "isError": true}))
}

/// Start the gateway; its exit status.
pub fn run(args: &McpArgs) -> Result<ExitCode> {
    let root = crate::check_cmd::project_root(args.root.as_deref())?.0;
    let name = match &args.name {
        Some(n) => n.clone(),
        None => default_name(&args.command),
    };
    check_name(&name)?;
    if !(args.call_timeout > 0.0 && args.call_timeout <= 86_400.0) {
        bail!("--call-timeout {} is not a number of seconds between 0 and 86400", args.call_timeout);
    }
    // Never asks about project settings: stdin and stdout belong to the client.
    let loaded = config::load(&root)?;
    loaded.print_notices();
    let placement = wicket::gate::place(&loaded, args.no_sandbox)?;
    if let (Placement::Host(why), false) = (&placement, args.no_sandbox) {
        bail!("cannot start the MCP server in the OS sandbox: {why}; or pass --no-sandbox to run it on the host");
    }
    let sandboxed = matches!(placement, Placement::Sandbox(_));

    if let Some(code) = check_pin(args, &root, &name, sandboxed)? {
        return Ok(code);
    }

    let overrides = args.rules.apply(Overrides {
        mode: args.mode,
        unattended: args.unattended,
        no_sandbox: args.no_sandbox,
        ..Overrides::default()
    });
    let session = format!("mcp-{name}-{}", wicket_audit::new_session_id());
    let opening = Opening {
        overrides,
        no_audit: args.no_audit,
        session_id: Some(session),
        placement: Some(placement.clone()),
        ..Opening::default()
    };
    let mut gate = Gate::open(&root, &loaded, opening)?;
    gate.on_notice(|n| eprintln!("wicket: {n}"));
    let mut exec = exec_policy(&wicket::config::exec_inputs(&root, &loaded, gate.policy().mode(), None))
        .map_err(|e| anyhow::anyhow!("refusing to start the MCP server: {e}"))?;
    exec.network = args.network;

    // `network.allow` in the settings: the server reaches the network only through the
    // allowlist proxy, as a command under `wicket run` does (`--network` opens it wholly).
    let net_config = if args.network { None } else { wicket::net::net_config_of(&loaded)? };
    // Lives as long as the server: the proxy's runtime serves the sandbox's listener.
    let mut net_run: Option<wicket::net::NetRun> = None;

    // From here INT, TERM and HUP to the gateway are passed on to the server's process group
    // instead of killing the gateway outright: the server ends, the relay sees its output
    // close, and the gateway ends the session as when the client closes it (waiting for what
    // it started, recording the run).
    wicket_sandbox::signals::forward();
    // Started before any thread of ours: the Landlock backend confines between fork and exec.
    let mut server = match placement {
        Placement::Sandbox(backend) => {
            let seen = wicket::notices::Seen::from_env();
            for m in backend.missing().into_iter().chain(exec.notices.iter().map(String::as_str)) {
                seen.print(&exec.root, m);
            }
            let exe = std::env::current_exe().context("cannot find wicket's own binary for the sandbox shim")?;
            let sandbox = wicket_sandbox::Sandbox { backend, shim_exe: exe };
            match net_config {
                Some(net) if matches!(sandbox.backend, wicket_sandbox::Backend::Bwrap { .. }) => {
                    // Its own audit session: one writer a file keeps the hash chain whole.
                    let proxy_audit = if args.no_audit {
                        Recorder::off()
                    } else {
                        let session = format!("mcp-{name}-net-{}", wicket_audit::new_session_id());
                        Recorder::open_session(&root, wicket::audit::options(&loaded.team), &session)
                    };
                    // Nobody can be asked for a host from here (the terminal belongs to the
                    // gateway's questions): an unlisted host is refused and recorded.
                    let run =
                        wicket::net::NetRun::start(net, None, std::sync::Arc::new(std::sync::Mutex::new(proxy_audit)))
                            .map_err(anyhow::Error::msg)?;
                    let network = run.network();
                    let mut serve = |l: std::net::TcpListener| run.serve(l);
                    let spawned = sandbox.spawn_networked(&exec, &args.command, &network, &mut serve);
                    net_run = Some(run);
                    spawned
                }
                Some(_) => {
                    eprintln!(
                        "wicket: notice: network.allow is not served by the {} sandbox (no network namespace), so \
                         the MCP server has no network; install bubblewrap for the allowlist",
                        sandbox.backend.name()
                    );
                    sandbox.spawn(&exec, &args.command)
                }
                None => sandbox.spawn(&exec, &args.command),
            }
        }
        Placement::Host(_) => wicket_sandbox::spawn_on_host(&exec, &args.command),
    }
    .with_context(|| format!("cannot start the MCP server {:?}", shell_join(&args.command)))?;
    let (Some(server_in), Some(server_out)) = (server.take_stdin(), server.take_stdout()) else {
        server.signal(true);
        bail!("the MCP server was started without pipes");
    };

    let owed = Arc::new(Owed::start(crate::hook_core::deadline(), (), |(), id: Value, why: &str| {
        eprintln!("wicket: denied the tools/call {id}: {why}");
        let text = crate::hook_core::reason_for(&Verdict::deny(By::Input, why));
        let answer = tool_error(id, &text);
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(format!("{answer}\n").as_bytes()).and_then(|()| out.flush());
    }));
    let (tx, rx) = mpsc::channel();
    let reader_owed = Arc::clone(&owed);
    spawn_reader(std::io::stdin(), CLIENT_MAX_LINE, tx.clone(), move |line| {
        // A tools/call is owed its decision from the moment it is read, whatever the relay is
        // doing then.
        let ticket = match &line {
            Some(Ok(bytes)) => owed_call(bytes).map(|id| reader_owed.owe(id)),
            _ => None,
        };
        Event::Client(line, ticket)
    });
    spawn_reader(server_out, SERVER_MAX_LINE, tx.clone(), Event::Server);
    let tty = match TerminalApprover::open() {
        Ok(t) if !args.unattended => Some(spawn_asker(t, tx.clone())),
        _ => None,
    };
    drop(tx);

    let mut gw = Gateway {
        name,
        gate,
        rx,
        to_server: Some(ServerInput::start(server_in)),
        client_open: true,
        client_writable: true,
        server_closed: false,
        elicitation: false,
        forwarded: HashMap::new(),
        abandoned: HashSet::new(),
        server_requests: HashMap::new(),
        remapped: HashMap::new(),
        held: HashMap::new(),
        elicitations: HashMap::new(),
        tty,
        next_own: 1,
        nonce: wicket_audit::new_session_id().chars().filter(char::is_ascii_alphanumeric).take(12).collect(),
        timeout: Duration::from_secs_f64(args.approval_timeout.clamp(0.0, 86_400.0)),
        call_timeout: Duration::from_secs_f64(args.call_timeout),
        sandboxed,
        // No network at all: no --network, and no proxy for network.allow (none listed, or a
        // backend that cannot serve it).
        gone_hint: if sandboxed && !args.network && net_run.is_none() {
            "; it ran in the OS sandbox with no network at all, so a server that fetches itself first (`npx -y`, \
             `uvx`) cannot start: install it beforehand, list its registry in network.allow (`wicket registries \
             --allow` in a project that uses it), or pass --network"
                .to_string()
        } else {
            String::new()
        },
        net: net_run,
        owed,
        ticket: None,
        not_sent: String::new(),
    };
    gw.relay();

    // The client is gone or the server ended: let it go, then make it.
    drop(gw.to_server.take());
    gw.server_done_within(SHUTDOWN_GRACE);
    if !exited_within(&mut server, Duration::from_millis(500)) {
        server.signal(false);
        if !exited_within(&mut server, Duration::from_secs(2)) {
            server.signal(true);
        }
    }
    let (code, ran, new) = server.wait().context("while waiting for the MCP server to exit")?;
    let target = format!("{} (mcp server {:?})", shell_join(&args.command), gw.name);
    // What the server left that runs code somewhere is held for a person, as after a run.
    let held = if sandboxed { wicket::staged::hold_after_run(&exec, &new, &[], &target) } else { None };
    if let Some(h) = &held {
        eprintln!("wicket: {h}");
    }
    if let Some(run) = gw.net.take() {
        // The refusals, for the person reading stderr (each is in the audit log already).
        for b in run.blocked() {
            eprintln!("{}{}", wicket::net::BLOCKED_LINE, b.to_string().replace(['\r', '\n'], " "));
        }
        run.stop();
    }
    let ms = u64::try_from(ran.as_millis()).unwrap_or(u64::MAX);
    gw.gate.record_execution(&wicket::audit::Execution {
        tool: "mcp_server",
        target: &target,
        duration_ms: ms,
        exit_code: i64::from(code),
        risk: if sandboxed { wicket_audit::Risk::Low } else { wicket_audit::Risk::Medium },
        note: held.as_deref().unwrap_or(""),
    });
    if let Some(sig) = wicket_sandbox::signals::received() {
        eprintln!("wicket: ended the MCP server {:?} on signal {sig} (its status {code})", gw.name);
        return Ok(ExitCode::from((128 + sig).clamp(1, 255) as u8));
    }
    if gw.client_open {
        // The server ended the session on its own: a crash, even with status 0.
        eprintln!(
            "wicket: the MCP server {:?} exited (status {code}) while the client was still connected{}",
            gw.name, gw.gone_hint
        );
        return Ok(ExitCode::from(code.clamp(1, 255) as u8));
    }
    Ok(ExitCode::from(code.clamp(0, 255) as u8))
}

/// Poll for the server's end for up to `limit`.
fn exited_within(server: &mut wicket_sandbox::Running, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if server.try_code().is_some() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Check the server definition against the trust store. The first definition for a root and
/// name is pinned; a changed one is asked about on the terminal, and refused without one.
/// `Some(code)`: exit with it (refused, or `--pin` done).
fn check_pin(args: &McpArgs, root: &Path, name: &str, sandboxed: bool) -> Result<Option<ExitCode>> {
    let file = config::wicket_home()?.join(TRUST_FILE);
    let (mut store, broken) = TrustStore::load(&file);
    if let Some(n) = &broken {
        eprintln!("wicket: notice: {n}");
    }
    let hash = definition_hash(name, &args.command, sandboxed, args.network);
    let shown = shell_join(&args.command);
    let root_key = wicket::trust::root_key(root);
    let save = |store: &TrustStore| store.save().with_context(|| "cannot pin the MCP server definition".to_string());
    if args.pin {
        store.pin(root, PinKind::McpServer, Some(name), &hash);
        save(&store)?;
        eprintln!("wicket: pinned the MCP server {name:?} for {root_key}: {shown}");
        return Ok(Some(ExitCode::SUCCESS));
    }
    if store.is_pinned(root, PinKind::McpServer, Some(name), &hash) {
        return Ok(None);
    }
    let known = store
        .pins()
        .iter()
        .any(|p| p.root == root_key && p.kind == PinKind::McpServer && p.label.as_deref() == Some(name));
    if !known {
        store.pin(root, PinKind::McpServer, Some(name), &hash);
        save(&store)?;
        eprintln!(
            "wicket: notice: pinned the MCP server {name:?} for {root_key} ({shown}); if its command or flags change, wicket asks again"
        );
        return Ok(None);
    }
    let mut flags = String::new();
    if args.no_sandbox {
        flags.push_str(" --no-sandbox");
    }
    if args.network {
        flags.push_str(" --network");
    }
    let fix = format!(
        "wicket mcp --pin --name {} --root {}{flags} -- {shown}",
        shell_join(&[OsString::from(name)]),
        shell_join(&[OsString::from(&root_key)])
    );
    let lines = vec![
        format!("server: {name}"),
        format!("project: {root_key}"),
        format!("command: {shown}"),
        format!("sandbox: {}", if sandboxed { "on" } else { "OFF (--no-sandbox)" }),
        format!("network: {}", if args.network { "on (--network)" } else { "off" }),
    ];
    let refuse = |why: &str| {
        eprintln!(
            "wicket: refused to start the MCP server {name:?} for {root_key}: its definition (command, arguments or sandbox flags) changed since you pinned it{why}. If you made this change, accept it from a terminal with: {fix}"
        );
        Ok(Some(ExitCode::from(REFUSED)))
    };
    if args.unattended {
        return refuse(" (--unattended: nobody is asked)");
    }
    let Ok(mut tty) = TerminalApprover::open() else { return refuse(" and there is no terminal to ask on") };
    match tty.consent(
        &format!("wicket: the MCP server {name:?} changed since you pinned it. Start it as it is now?"),
        &lines,
    ) {
        Consent::Once => Ok(None),
        Consent::Remember => {
            store.pin(root, PinKind::McpServer, Some(name), &hash);
            save(&store)?;
            Ok(None)
        }
        Consent::No => refuse(" and you said no"),
    }
}

mod gateway;
use gateway::*;
