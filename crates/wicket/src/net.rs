//! The network of `wicket run`: the allowlist proxy in wicket's own process, served inside the
//! sandbox's network namespace, asking the person about unlisted hosts and recording every
//! refusal.
//!
//! The hard question: who may open what, and does the model learn why it failed? The proxy
//! decides each host by the merged `network` settings and the team policy; an unlisted host
//! asks the approver (unattended or without a terminal: deny; `strictAllowlist`: deny without
//! asking), and "for this session" allows that host for the rest of the run. Every refusal goes
//! to the audit log as it happens, and to a list printed when the run ends.

use std::sync::Arc;

use wicket_net::{Ask, Blocked, HostAnswer, NetConfig, Proxy, ProxyConfig, Resolve};
use wicket_policy::{By, Decision, Session, Settings, TeamPolicy, ToolCall, Verdict};

use crate::approver::{Answer, Approver, Question};
use crate::gate::{settle, AuditSink, Pending};

/// The loopback port the proxy is served on inside the sandbox.
pub const SANDBOX_PROXY_PORT: u16 = 3128;

/// The line `wicket run` prints on stderr for each refusal, before `HOST:PORT: REASON`.
pub const BLOCKED_LINE: &str = "wicket: blocked network access to ";

/// Debug builds only: a hosts-format file whose names the proxy resolves from it (tests map
/// names to loopback servers with it, to show such answers are refused unless pinned).
pub const HOSTS_ENV: &str = "WICKET_NET_HOSTS";

/// Debug builds only: `ADDRESS:PORT` pairs (separated by commas or spaces) of this machine the
/// proxy connects to even so. The proxy never reaches this machine otherwise, and the tests'
/// servers can only listen on it; release builds ignore the variable.
pub const TEST_ORIGINS_ENV: &str = "WICKET_NET_TEST_ORIGINS";

/// Network settings that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{source_name}: {error}")]
pub struct NetSettingsError {
    /// The settings file (or layer) the entry is in.
    pub source_name: String,
    /// What is wrong and the fix.
    pub error: wicket_net::ConfigError,
}

/// The network policy of the settings layers (in order, each named for errors) and the team
/// [`net_config`] for loaded settings: the user's file, then the project's, each named for
/// errors, under the merged team policy. `Ok(None)` when no settings open the network.
pub fn net_config_of(loaded: &crate::config::Loaded) -> Result<Option<NetConfig>, NetSettingsError> {
    let user_file =
        crate::config::wicket_home().map(|h| h.join("settings.json").display().to_string()).unwrap_or_default();
    let mut layers: Vec<(String, &Settings)> = Vec::new();
    if let Some(u) = &loaded.user {
        layers.push((user_file, u));
    }
    if let Some(p) = &loaded.project {
        layers.push((loaded.project_file.display().to_string(), p));
    }
    net_config(&layers, &loaded.team)
}

/// policy, or `None` when no layer opens any network.
pub fn net_config(layers: &[(String, &Settings)], team: &TeamPolicy) -> Result<Option<NetConfig>, NetSettingsError> {
    if !layers.iter().any(|(_, s)| s.network.opens()) {
        return Ok(None);
    }
    let wrap = |name: &str, error| NetSettingsError { source_name: name.to_string(), error };
    let mut config = NetConfig::from_settings(&[], &team.network).map_err(|e| wrap("team policy", e))?;
    for (name, s) in layers {
        for entry in &s.network.allow {
            config = config.allow(entry).map_err(|e| wrap(name, e))?;
        }
        for port in &s.network.ports {
            config = config.port(*port);
        }
        for (host, addrs) in &s.network.addresses {
            for a in addrs {
                config = config.pin(host, *a).map_err(|e| wrap(name, e))?;
            }
        }
    }
    Ok(Some(config))
}

/// The resolver: the system's, or in debug builds the table of [`HOSTS_ENV`] first.
pub fn resolver() -> Result<Arc<dyn Resolve>, String> {
    if cfg!(debug_assertions) {
        if let Some(file) = std::env::var_os(HOSTS_ENV).filter(|f| !f.is_empty()) {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("{HOSTS_ENV}: cannot read {}: {e}", std::path::Path::new(&file).display()))?;
            return Ok(Arc::new(wicket_net::TableResolver::parse(&text)?));
        }
    }
    Ok(Arc::new(wicket_net::SystemResolver))
}

/// The proxy's test origins: in debug builds those of [`TEST_ORIGINS_ENV`], else none.
pub fn test_origins() -> Result<Vec<std::net::SocketAddr>, String> {
    if !cfg!(debug_assertions) {
        return Ok(Vec::new());
    }
    let Some(value) = std::env::var_os(TEST_ORIGINS_ENV).filter(|v| !v.is_empty()) else {
        return Ok(Vec::new());
    };
    let value = value.to_str().ok_or_else(|| format!("{TEST_ORIGINS_ENV} is not UTF-8"))?;
    value
        .split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| format!("{TEST_ORIGINS_ENV}: {s:?} is not ADDRESS:PORT")))
        .collect()
}

pub use crate::audit::SharedRecorder;

fn host_call(host: &str, port: u16) -> ToolCall {
    ToolCall::new("network", serde_json::json!({ "host": host, "port": port }))
}

/// Record one network decision; the verdict to act on (a mandatory audit that failed denies).
fn record(audit: &SharedRecorder, host: &str, port: u16, verdict: Verdict) -> Verdict {
    let r = AuditSink::record(&mut audit.clone(), &host_call(host, port), verdict);
    if let Some(n) = r.notice {
        eprintln!("wicket: {n}");
    }
    r.verdict
}

/// The proxy of one run, with its runtime and the thread that asks the person.
pub struct NetRun {
    runtime: tokio::runtime::Runtime,
    proxy: Proxy,
    url: String,
}

impl NetRun {
    /// Start the proxy's runtime (no listener yet: [`NetRun::serve`] gets the sandbox's). An
    /// `approver` of `None` denies every unlisted host.
    pub fn start(
        config: NetConfig,
        approver: Option<Box<dyn Approver + Send>>,
        audit: SharedRecorder,
    ) -> Result<NetRun, String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("wicket-proxy")
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the proxy's runtime: {e}"))?;
        let mut cfg = ProxyConfig::new(config).map_err(|e| e.to_string())?;
        cfg.resolver = resolver()?;
        cfg.test_origins = test_origins()?;
        let hook_audit = audit.clone();
        cfg.on_block = Some(Arc::new(move |b: &Blocked| {
            let _ = record(&hook_audit, &b.host, b.port, Verdict::deny(By::Policy, b.reason.clone()));
        }));
        if let Some(approver) = approver {
            let (tx, rx) = tokio::sync::mpsc::channel::<Ask>(16);
            cfg.approver = Some(tx);
            std::thread::Builder::new()
                .name("wicket-net-ask".into())
                .spawn(move || ask_loop(rx, approver, audit))
                .map_err(|e| format!("cannot start the approver thread: {e}"))?;
        }
        let credential = cfg.credential.clone().ok_or("the proxy has no credential")?;
        let url = format!("http://{}@127.0.0.1:{SANDBOX_PROXY_PORT}", credential.userinfo());
        let proxy = {
            let _guard = runtime.enter();
            Proxy::new(cfg)
        };
        Ok(NetRun { runtime, proxy, url })
    }

    /// What the sandbox needs: the port and the environment with the proxy URL.
    pub fn network(&self) -> wicket_sandbox::Network {
        wicket_sandbox::Network { port: SANDBOX_PROXY_PORT, env: wicket_net::env::proxy_env(&self.url) }
    }

    /// Serve the listener the shim made inside the sandbox.
    pub fn serve(&self, listener: std::net::TcpListener) -> Result<(), String> {
        let _guard = self.runtime.enter();
        self.proxy.serve_tcp(listener).map_err(|e| e.to_string())
    }

    /// Every distinct refusal of the run, in order.
    pub fn blocked(&self) -> Vec<Blocked> {
        self.proxy.blocked()
    }

    /// Stop the proxy; open tunnels are dropped with the runtime.
    pub fn stop(self) {
        self.proxy.shutdown();
        self.runtime.shutdown_background();
    }
}

/// Answer the proxy's questions one at a time; a host answered for the session or denied is
/// not asked again.
fn ask_loop(mut rx: tokio::sync::mpsc::Receiver<Ask>, mut approver: Box<dyn Approver + Send>, audit: SharedRecorder) {
    let mut lasting: std::collections::HashMap<String, HostAnswer> = std::collections::HashMap::new();
    while let Some(ask) = rx.blocking_recv() {
        let key = format!("{}:{}", ask.host, ask.port);
        if let Some(a) = lasting.get(&key) {
            let _ = ask.reply.send(*a);
            continue;
        }
        let reason = format!(
            "a sandboxed command wants to reach {key}, which network.allow does not list (say \"session\" to \
             allow this host for the rest of the run)"
        );
        let pending = Pending::without_rule(host_call(&ask.host, ask.port), Verdict::ask(By::Default, reason));
        let question = Question { what: key.clone(), ..pending.question(true) };
        let said = approver.ask(&question);
        let for_the_run = matches!(said, Answer::Session);
        // The one meaning of an answer; the host is remembered by host and port below, not in
        // this session (whose "session" answers are per call).
        let verdict = settle(&mut Session::new(), &pending, said);
        let answer = match (verdict.decision, for_the_run) {
            (Decision::Allow, true) => HostAnswer::Session,
            (Decision::Allow, false) => HostAnswer::Once,
            _ => HostAnswer::Deny,
        };
        let answer = if answer == HostAnswer::Deny {
            answer
        } else {
            let how = if answer == HostAnswer::Once { "this connection" } else { "the rest of the run" };
            let v = record(
                &audit,
                &ask.host,
                ask.port,
                Verdict::allow(By::User, format!("the person allowed {key} for {how}")),
            );
            if v.decision == Decision::Allow {
                answer
            } else {
                HostAnswer::Deny
            }
        };
        if answer != HostAnswer::Once {
            lasting.insert(key, answer);
        }
        let _ = ask.reply.send(answer);
    }
}
