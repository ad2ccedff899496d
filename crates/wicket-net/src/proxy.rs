//! The proxy listener: HTTP `CONNECT`, absolute-form plain HTTP and SOCKS5 on one socket.
//!
//! The hard question: **what can a client that is not the run, or a run that lies about its
//! target, get through?** Every connection must carry the per-run credential (unless the
//! caller turned it off for a socket only the run can reach); every target passes
//! [`NetConfig::decide`], is resolved here (never by the client) and every address of the answer
//! is checked before the proxy connects to one of exactly those addresses; none may be an
//! address of this machine, whatever name or setting led to it ([`crate::local`]). Headers are bounded
//! in size and in time, connections in number, tunnels by idle and total timeouts. A request
//! with ambiguous framing is refused before anything is forwarded (see `framing`).

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, watch, Semaphore};
use wicket_policy::host::{parse_host, parse_url, Host};

use crate::local::LocalAddrs;
use crate::policy::{Blocked, HostVerdict, NetConfig};
use crate::splice::Socket;

/// The proxy could not start.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// The listen address is not a loopback address.
    #[error("the proxy listens on loopback only; {0} is not a loopback address (use 127.0.0.1 or ::1)")]
    NotLoopback(SocketAddr),
    /// Binding or another socket operation failed.
    #[error("cannot listen on {what}: {source}")]
    Io {
        /// The address or path.
        what: String,
        /// The error.
        source: io::Error,
    },
    /// No randomness for the credential.
    #[error("cannot make the per-run proxy credential: {0}")]
    Random(io::Error),
}

/// The per-run credential: `Proxy-Authorization: Basic` for HTTP, username/password for SOCKS5.
#[derive(Clone, PartialEq, Eq)]
pub struct Credential {
    /// The user name.
    pub user: String,
    /// The password.
    pub password: String,
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Credential {{ user: {:?}, password: \"***\" }}", self.user)
    }
}

impl Credential {
    /// A fresh random credential (128 bits of password from the OS).
    pub fn random() -> Result<Credential, ProxyError> {
        let mut bytes = [0u8; 16];
        let mut f = std::fs::File::open("/dev/urandom").map_err(ProxyError::Random)?;
        io::Read::read_exact(&mut f, &mut bytes).map_err(ProxyError::Random)?;
        let password = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Ok(Credential { user: "wicket".to_string(), password })
    }

    /// The `user:password@` form for a proxy URL (`http://user:password@127.0.0.1:PORT`).
    pub fn userinfo(&self) -> String {
        format!("{}:{}", self.user, self.password)
    }

    fn basic(&self) -> String {
        base64(format!("{}:{}", self.user, self.password).as_bytes())
    }
}

fn base64(input: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(T[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Compare without an early exit on the first differing byte.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The approver's answer about an unlisted host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostAnswer {
    /// Refuse; the answer holds for the rest of the run (the person is not asked again).
    Deny,
    /// Allow this one connection; the next one asks again.
    Once,
    /// Allow `host:port` for the rest of the run (a session rule for that host).
    Session,
}

impl From<bool> for HostAnswer {
    fn from(yes: bool) -> HostAnswer {
        if yes {
            HostAnswer::Session
        } else {
            HostAnswer::Deny
        }
    }
}

/// A question for the approver: may the run reach this unlisted host? Answer on `reply`
/// (dropping it denies).
#[derive(Debug)]
pub struct Ask {
    /// The canonical host.
    pub host: String,
    /// The port.
    pub port: u16,
    /// The answer (`true.into()` is [`HostAnswer::Session`], `false.into()` a deny).
    pub reply: oneshot::Sender<HostAnswer>,
}

/// Resolves host names to addresses (the proxy resolves; clients never do).
pub trait Resolve: Send + Sync {
    /// The addresses of `host`.
    fn resolve<'a>(&'a self, host: &'a str) -> Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send + 'a>>;
}

/// The system resolver (`getaddrinfo`, via tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve<'a>(&'a self, host: &'a str) -> Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send + 'a>> {
        Box::pin(async move { Ok(tokio::net::lookup_host((host, 0)).await?.map(|a| a.ip()).collect()) })
    }
}

/// Answers the names of a table (hosts-file lines: `ADDRESS NAME…`) and asks the system for
/// the rest. What it answers is checked like any DNS answer: a name it maps to loopback is
/// still refused unless pinned. For tests that need a name to resolve somewhere on purpose.
#[derive(Debug, Clone, Default)]
pub struct TableResolver {
    table: HashMap<String, Vec<IpAddr>>,
}

impl TableResolver {
    /// Parse hosts-file text; `#` starts a comment.
    pub fn parse(text: &str) -> Result<TableResolver, String> {
        let mut table: HashMap<String, Vec<IpAddr>> = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("");
            let mut words = line.split_whitespace();
            let Some(addr) = words.next() else { continue };
            let addr: IpAddr = addr.parse().map_err(|_| format!("line {}: {addr:?} is not an IP address", n + 1))?;
            for name in words {
                table.entry(name.to_ascii_lowercase()).or_default().push(addr);
            }
        }
        Ok(TableResolver { table })
    }
}

impl Resolve for TableResolver {
    fn resolve<'a>(&'a self, host: &'a str) -> Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send + 'a>> {
        match self.table.get(host) {
            Some(a) => {
                let a = a.clone();
                Box::pin(async move { Ok(a) })
            }
            None => SystemResolver.resolve(host),
        }
    }
}

/// Everything the proxy needs besides its sockets.
#[derive(Clone)]
pub struct ProxyConfig {
    /// The host policy.
    pub policy: NetConfig,
    /// The credential clients must present; `None` accepts any client (only for a socket no
    /// other process can reach, such as a unix socket inside the sandbox).
    pub credential: Option<Credential>,
    /// Where unlisted hosts are asked; `None`: non-interactive, they are denied.
    pub approver: Option<mpsc::Sender<Ask>>,
    /// How long an answer may take before it counts as deny.
    pub ask_timeout: Duration,
    /// The resolver.
    pub resolver: Arc<dyn Resolve>,
    /// The largest request head (HTTP headers, SOCKS handshake) in bytes.
    pub max_header_bytes: usize,
    /// How long a client may take to send its request head.
    pub header_timeout: Duration,
    /// The most connections served at once; more are closed at once.
    pub max_connections: usize,
    /// How long a connect to the target may take.
    pub connect_timeout: Duration,
    /// A tunnel with no bytes either way for this long is closed.
    pub idle_timeout: Duration,
    /// A tunnel is closed after this long whatever it does.
    pub total_timeout: Duration,
    /// The buffer of each direction of a tunnel, in bytes: the pipe `splice` moves bytes through,
    /// or the user-space copy's buffer. Larger moves bulk data faster; the worst case of memory
    /// is `2 × tunnel_buffer × max_connections` (only pages a transfer touches are resident).
    pub tunnel_buffer: usize,
    /// On Linux, let the kernel move a tunnel's bytes (`splice(2)` through a pipe) instead of
    /// copying them through the proxy's buffers, when the process ignores `SIGPIPE` (checked
    /// once, by [`Proxy::new`]). `false` forces the copy (to compare the two).
    pub splice: bool,
    /// Called once for each distinct refusal, as it happens (for the audit log); at most
    /// [`MAX_BLOCKED`] times a run.
    pub on_block: Option<BlockHook>,
    /// Test seam, empty unless a test fills it: exact `address:port` pairs of this machine the
    /// proxy connects to even so, for tests whose origins can only listen on this machine. No
    /// setting fills it; wicket does only in debug builds (`WICKET_NET_TEST_ORIGINS`). The
    /// policy's checks still apply to these addresses.
    pub test_origins: Vec<SocketAddr>,
}

/// A function told about each refusal.
pub type BlockHook = Arc<dyn Fn(&Blocked) + Send + Sync>;

impl ProxyConfig {
    /// Defaults: a fresh random credential, no approver, 16 KiB heads within 10 s, 1,024
    /// connections, 10 s connect, 5 min idle, 1 h total, 256 KiB tunnel buffers, splice on.
    pub fn new(policy: NetConfig) -> Result<ProxyConfig, ProxyError> {
        Ok(ProxyConfig {
            policy,
            credential: Some(Credential::random()?),
            approver: None,
            ask_timeout: Duration::from_secs(300),
            resolver: Arc::new(SystemResolver),
            max_header_bytes: 16 * 1024,
            header_timeout: Duration::from_secs(10),
            max_connections: 1024,
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(300),
            total_timeout: Duration::from_secs(3600),
            tunnel_buffer: 256 * 1024,
            splice: true,
            on_block: None,
            test_origins: Vec::new(),
        })
    }
}

/// The most tunnels that splice at once; more copy in user space. Each holds two pipes of
/// `tunnel_buffer` bytes, which count against the user's pipe quota (`pipe-user-pages-soft`,
/// 64 MiB by default) while they are open: 64 tunnels of 256 KiB take half of it, so the
/// sandboxed command's own pipes keep their full size.
pub const MAX_SPLICING: usize = 64;

/// The most refusals kept for [`Proxy::blocked`].
pub const MAX_BLOCKED: usize = 1024;

struct Shared {
    config: ProxyConfig,
    slots: Arc<Semaphore>,
    blocked: Mutex<Vec<Blocked>>,
    /// Lasting answers of the approver for this run (session allows and denies), by
    /// `host:port`.
    answers: Mutex<HashMap<String, bool>>,
    /// Splicing tunnels open now (at most [`MAX_SPLICING`]).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    splicing: Arc<Semaphore>,
    /// `config.splice`, and this process ignores `SIGPIPE` (see [`crate::splice`]).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    splice: bool,
}

impl Shared {
    /// Record a refusal: each distinct one once, at most [`MAX_BLOCKED`] (a run that hammers
    /// the proxy cannot grow the list without bound).
    fn block(&self, host: &str, port: u16, reason: &str) {
        if let Ok(mut list) = self.blocked.lock() {
            let entry = Blocked { host: host.to_string(), port, reason: reason.to_string() };
            if list.len() < MAX_BLOCKED && !list.contains(&entry) {
                if let Some(hook) = &self.config.on_block {
                    hook(&entry);
                }
                list.push(entry);
            }
        }
    }
}

/// A running proxy. Dropping it (or [`Proxy::shutdown`]) stops the listeners; open tunnels
/// end with their timeouts.
pub struct Proxy {
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
}

impl Proxy {
    /// A proxy with no listener yet. Call inside a tokio runtime.
    pub fn new(config: ProxyConfig) -> Proxy {
        let slots = Arc::new(Semaphore::new(config.max_connections));
        #[cfg(target_os = "linux")]
        let splice = config.splice && crate::splice::sigpipe_ignored();
        #[cfg(not(target_os = "linux"))]
        let splice = false;
        let (stop, _) = watch::channel(false);
        Proxy {
            shared: Arc::new(Shared {
                config,
                slots,
                blocked: Mutex::new(Vec::new()),
                answers: Mutex::new(HashMap::new()),
                splicing: Arc::new(Semaphore::new(MAX_SPLICING)),
                splice,
            }),
            stop,
        }
    }

    /// The credential clients must present.
    pub fn credential(&self) -> Option<&Credential> {
        self.shared.config.credential.as_ref()
    }

    /// Every distinct refusal so far, in order (at most [`MAX_BLOCKED`]).
    pub fn blocked(&self) -> Vec<Blocked> {
        self.shared.blocked.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Stop accepting connections.
    pub fn shutdown(&self) {
        let _ = self.stop.send(true);
    }

    /// Listen on a loopback TCP address (port 0 picks one); returns the bound address.
    pub async fn listen_tcp(&self, addr: SocketAddr) -> Result<SocketAddr, ProxyError> {
        if !addr.ip().is_loopback() {
            return Err(ProxyError::NotLoopback(addr));
        }
        let io_err = |source| ProxyError::Io { what: addr.to_string(), source };
        let listener = TcpListener::bind(addr).await.map_err(io_err)?;
        let bound = listener.local_addr().map_err(io_err)?;
        self.accept_loop(listener);
        Ok(bound)
    }

    /// Serve connections on a listener bound elsewhere, such as the loopback listener wicket's
    /// shim made inside the sandbox's network namespace (only the sandbox can reach it). Call
    /// inside a tokio runtime.
    pub fn serve_tcp(&self, listener: std::net::TcpListener) -> Result<(), ProxyError> {
        let what = listener.local_addr().map_or_else(|_| "a listener".to_string(), |a| a.to_string());
        let io_err = |source| ProxyError::Io { what: what.clone(), source };
        listener.set_nonblocking(true).map_err(io_err)?;
        let listener = TcpListener::from_std(listener).map_err(io_err)?;
        self.accept_loop(listener);
        Ok(())
    }

    /// Listen on a unix socket at `path` (which must not exist).
    #[cfg(unix)]
    pub async fn listen_unix(&self, path: &std::path::Path) -> Result<(), ProxyError> {
        let listener = tokio::net::UnixListener::bind(path)
            .map_err(|source| ProxyError::Io { what: path.display().to_string(), source })?;
        self.accept_loop(listener);
        Ok(())
    }

    /// Accept connections until [`Proxy::shutdown`], each served in a task of its own.
    fn accept_loop<L: Listener>(&self, listener: L) {
        let shared = self.shared.clone();
        let mut stop = self.stop.subscribe();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = stop.changed() => break,
                    accepted = listener.accept_one() => match accepted {
                        Ok(stream) => spawn_conn(&shared, stream),
                        // Out of descriptors or memory, the pending connection stays queued and
                        // accepting again at once would spin; a short pause lets tunnels end.
                        Err(e) if out_of_resources(&e) => tokio::time::sleep(Duration::from_millis(50)).await,
                        Err(_) => {}
                    },
                }
            }
        });
    }
}

fn out_of_resources(e: &io::Error) -> bool {
    use rustix::io::Errno;
    Errno::from_io_error(e).is_some_and(|n| [Errno::MFILE, Errno::NFILE, Errno::NOBUFS, Errno::NOMEM].contains(&n))
}

/// A listening socket the proxy accepts connections on.
trait Listener: Send + 'static {
    /// The accepted connection's stream.
    type Stream: Socket + 'static;
    /// Accept one connection.
    fn accept_one(&self) -> impl Future<Output = io::Result<Self::Stream>> + Send;
}

impl Listener for TcpListener {
    type Stream = TcpStream;
    async fn accept_one(&self) -> io::Result<TcpStream> {
        let (stream, _) = self.accept().await?;
        // A tunnel passes on small writes at once (interactive protocols, TLS handshakes).
        let _ = stream.set_nodelay(true);
        Ok(stream)
    }
}

#[cfg(unix)]
impl Listener for tokio::net::UnixListener {
    type Stream = tokio::net::UnixStream;
    async fn accept_one(&self) -> io::Result<tokio::net::UnixStream> {
        Ok(self.accept().await?.0)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn spawn_conn<S: Socket + 'static>(shared: &Arc<Shared>, stream: S) {
    // Over the limit: close at once (bounded memory beats a polite answer).
    let Ok(permit) = shared.slots.clone().try_acquire_owned() else { return };
    let shared = shared.clone();
    tokio::spawn(async move {
        let _permit = permit;
        serve(&shared, stream).await;
    });
}

async fn serve<S: Socket>(shared: &Shared, mut client: S) {
    let cfg = &shared.config;
    let mut first = [0u8; 1];
    match tokio::time::timeout(cfg.header_timeout, client.read_exact(&mut first)).await {
        Ok(Ok(_)) => {}
        _ => return,
    }
    if first[0] == 5 {
        socks(shared, client).await;
    } else {
        http(shared, client, first[0]).await;
    }
}

/// A target the policy allowed, connected.
struct Upstream {
    stream: TcpStream,
}

/// Decide, ask, resolve, check and connect. `Err` is the refusal reason (already recorded).
async fn open(shared: &Shared, host: &Host, port: u16) -> Result<Upstream, Refusal> {
    let cfg = &shared.config;
    let name = host.to_string();
    let refuse = |reason: String, kind: RefusalKind| {
        shared.block(&name, port, &reason);
        Refusal { reason, kind }
    };
    match cfg.policy.decide(host, port) {
        HostVerdict::Allow => {}
        HostVerdict::Deny(r) => return Err(refuse(r, RefusalKind::Policy)),
        HostVerdict::Ask => {
            if !ask(shared, &name, port).await {
                let how = if cfg.approver.is_some() { "the approver denied it" } else { "nobody can be asked" };
                return Err(refuse(
                    format!("{name} is not in network.allow and {how}; {}", crate::policy::how_to_allow(&name)),
                    RefusalKind::Policy,
                ));
            }
        }
    }
    let addrs = match cfg.policy.pinned(host) {
        Some(pins) => pins.to_vec(),
        None => match tokio::time::timeout(cfg.connect_timeout, cfg.resolver.resolve(&name)).await {
            Ok(Ok(a)) => a,
            Ok(Err(e)) => return Err(refuse(format!("cannot resolve {name}: {e}"), RefusalKind::Unreachable)),
            Err(_) => return Err(refuse(format!("resolving {name} timed out"), RefusalKind::Unreachable)),
        },
    };
    // First, so that the reason says so when an address is also in a class the policy refuses.
    if let Err(r) = not_this_machine(host, port, &addrs, cfg.policy.pinned(host).is_some(), &cfg.test_origins) {
        return Err(refuse(r, RefusalKind::Policy));
    }
    if let Err(r) = cfg.policy.check_addrs(host, &addrs) {
        return Err(refuse(r, RefusalKind::Policy));
    }
    let mut last = String::new();
    // Connect only to the checked addresses: no second lookup can switch them.
    for a in addrs {
        let to = SocketAddr::new(a, port);
        match tokio::time::timeout(cfg.connect_timeout, TcpStream::connect(to)).await {
            Ok(Ok(stream)) => {
                let _ = stream.set_nodelay(true);
                return Ok(Upstream { stream });
            }
            Ok(Err(e)) => last = format!("{to}: {e}"),
            Err(_) => last = format!("{to}: timed out"),
        }
    }
    Err(refuse(format!("cannot connect to {name} ({last})"), RefusalKind::Unreachable))
}

/// Refuse the whole answer when one address is this machine's. The interfaces are read again
/// for every connection, so an address added while the proxy runs is seen.
fn not_this_machine(
    host: &Host,
    port: u16,
    addrs: &[IpAddr],
    pinned: bool,
    exempt: &[SocketAddr],
) -> Result<(), String> {
    let here = LocalAddrs::read().map_err(|e| {
        format!("cannot list this machine's addresses to keep {host} from reaching them ({e}); refused")
    })?;
    for a in addrs {
        if exempt.contains(&SocketAddr::new(*a, port)) {
            continue;
        }
        if let Some(why) = here.of(*a) {
            let led = if pinned { "is pinned to" } else { "resolved to" };
            return Err(format!(
                "{host} {led} {a}, {why}; the proxy never connects to this machine, whatever name or setting \
                 leads there (its services are not reachable from the sandbox)"
            ));
        }
    }
    Ok(())
}

async fn ask(shared: &Shared, name: &str, port: u16) -> bool {
    let key = format!("{name}:{port}");
    if let Some(a) = shared.answers.lock().ok().and_then(|m| m.get(&key).copied()) {
        return a;
    }
    let Some(approver) = &shared.config.approver else { return false };
    let (tx, rx) = oneshot::channel();
    if approver.send(Ask { host: name.to_string(), port, reply: tx }).await.is_err() {
        return false;
    }
    let answer = match tokio::time::timeout(shared.config.ask_timeout, rx).await {
        Ok(Ok(a)) => a,
        _ => HostAnswer::Deny,
    };
    if answer != HostAnswer::Once {
        if let Ok(mut m) = shared.answers.lock() {
            m.insert(key, answer == HostAnswer::Session);
        }
    }
    answer != HostAnswer::Deny
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RefusalKind {
    Policy,
    Unreachable,
}

struct Refusal {
    reason: String,
    kind: RefusalKind,
}

// ---------------------------------------------------------------------------------------------
// HTTP

async fn respond<S: AsyncWrite + Unpin>(client: &mut S, status: &str, extra: &str, reason: &str) {
    let body = format!("wicket proxy: {reason}\n");
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         X-Wicket-Reason: {}\r\n{extra}Connection: close\r\n\r\n",
        body.len(),
        reason.replace(['\r', '\n'], " ")
    );
    let _ = client.write_all(head.as_bytes()).await;
    let _ = client.write_all(body.as_bytes()).await;
    let _ = client.shutdown().await;
}

/// Read the request head (through the blank line) within the size and time bounds. Returns the
/// bytes read (head and whatever followed it) and the head's length.
async fn read_head<S: AsyncRead + Unpin>(
    client: &mut S,
    first: u8,
    max: usize,
    limit: Duration,
) -> Result<(Vec<u8>, usize), &'static str> {
    let mut buf = Vec::with_capacity(1024);
    buf.push(first);
    let work = async {
        let mut chunk = [0u8; 4096];
        loop {
            if let Some(end) = find_head_end(&buf) {
                return Ok(end);
            }
            if buf.len() > max {
                return Err("too large");
            }
            let n = client.read(&mut chunk).await.map_err(|_| "read error")?;
            if n == 0 {
                return Err("closed");
            }
            buf.extend_from_slice(&chunk[..n]);
        }
    };
    match tokio::time::timeout(limit, work).await {
        Ok(Ok(end)) if end <= max => Ok((buf, end)),
        Ok(Ok(_)) => Err("too large"),
        Ok(Err(e)) => Err(e),
        Err(_) => Err("timeout"),
    }
}

fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4)
}

/// `host:port` of a `CONNECT` target (`[v6]:port` too).
fn split_authority(s: &str) -> Option<(&str, u16)> {
    let (h, p) = s.rsplit_once(':')?;
    let port = p.parse::<u16>().ok()?;
    let h = h.strip_prefix('[').and_then(|x| x.strip_suffix(']')).unwrap_or(h);
    Some((h, port))
}

async fn http<S: Socket>(shared: &Shared, mut client: S, first: u8) {
    let cfg = &shared.config;
    let (buf, end) = match read_head(&mut client, first, cfg.max_header_bytes, cfg.header_timeout).await {
        Ok(x) => x,
        Err("too large") => {
            let why = format!("the request head is larger than {} bytes", cfg.max_header_bytes);
            return respond(&mut client, "431 Request Header Fields Too Large", "", &why).await;
        }
        Err("timeout") => {
            return respond(&mut client, "408 Request Timeout", "", "the request head did not arrive in time").await
        }
        Err(_) => return,
    };
    let mut headers = [httparse::EMPTY_HEADER; 96];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(&buf[..end]) {
        Ok(httparse::Status::Complete(_)) => {}
        _ => return respond(&mut client, "400 Bad Request", "", "the request could not be parsed").await,
    }
    let (Some(method), Some(target)) = (req.method, req.path) else {
        return respond(&mut client, "400 Bad Request", "", "the request line is incomplete").await;
    };
    if let Some(cred) = &cfg.credential {
        let ok = req.headers.iter().filter(|h| h.name.eq_ignore_ascii_case("proxy-authorization")).any(|h| {
            let v = std::str::from_utf8(h.value).unwrap_or("").trim();
            let token = v.get(..6).filter(|s| s.eq_ignore_ascii_case("basic ")).map(|_| v[6..].trim());
            token.is_some_and(|t| same(t.as_bytes(), cred.basic().as_bytes()))
        });
        if !ok {
            return respond(
                &mut client,
                "407 Proxy Authentication Required",
                "Proxy-Authenticate: Basic realm=\"wicket\"\r\n",
                "this proxy needs the run's credential (use the HTTP_PROXY/HTTPS_PROXY URL wicket set)",
            )
            .await;
        }
    }
    // Before any upstream is opened: a request whose end the proxy and the server could see
    // differently is refused whole, and the connection closes (RFC 9112 section 6.3).
    if let Err(why) = crate::framing::check(req.headers, req.version == Some(0)) {
        return respond(&mut client, "400 Bad Request", "", &why.to_string()).await;
    }
    if method.eq_ignore_ascii_case("CONNECT") {
        let Some((h, port)) = split_authority(target) else {
            let why = format!("CONNECT target {target:?} is not host:port");
            return respond(&mut client, "400 Bad Request", "", &why).await;
        };
        let host = match parse_host(h) {
            Ok(host) => host,
            Err(e) => {
                let why = e.to_string();
                shared.block(h, port, &why);
                return respond(&mut client, "403 Forbidden", "", &why).await;
            }
        };
        let upstream = match open(shared, &host, port).await {
            Ok(u) => u,
            Err(r) => return refuse_http(&mut client, &r).await,
        };
        if client.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n").await.is_err() {
            return;
        }
        let mut up = upstream.stream;
        if end < buf.len() && up.write_all(&buf[end..]).await.is_err() {
            return;
        }
        drop(buf);
        tunnel(client, up, shared).await;
        return;
    }
    // Absolute-form plain HTTP.
    let url = match parse_url(target) {
        Ok(u) => u,
        Err(e) => {
            let why = format!("{e} (a proxy request needs an absolute http:// URL; use CONNECT for https)");
            return respond(&mut client, "400 Bad Request", "", &why).await;
        }
    };
    if url.url.scheme() != "http" {
        let why = "https:// URLs go through CONNECT, not as a plain proxy request";
        return respond(&mut client, "400 Bad Request", "", why).await;
    }
    let upstream = match open(shared, &url.host, url.port).await {
        Ok(u) => u,
        Err(r) => return refuse_http(&mut client, &r).await,
    };
    // Rewrite to origin-form; drop hop-by-hop and proxy headers; one request per connection.
    let mut path = url.url.path().to_string();
    if let Some(q) = url.url.query() {
        path.push('?');
        path.push_str(q);
    }
    let version = if req.version == Some(0) { "HTTP/1.0" } else { "HTTP/1.1" };
    let mut head = format!("{method} {path} {version}\r\n");
    let authority = if url.port == 80 { url.host.to_string() } else { format!("{}:{}", url.host, url.port) };
    head.push_str(&format!("Host: {authority}\r\n"));
    for h in req.headers.iter() {
        let n = h.name;
        if ["host", "proxy-authorization", "proxy-connection", "connection", "keep-alive"]
            .iter()
            .any(|x| n.eq_ignore_ascii_case(x))
        {
            continue;
        }
        head.push_str(n);
        head.push_str(": ");
        head.push_str(&String::from_utf8_lossy(h.value));
        head.push_str("\r\n");
    }
    head.push_str("Connection: close\r\n\r\n");
    let mut up = upstream.stream;
    if up.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    if end < buf.len() && up.write_all(&buf[end..]).await.is_err() {
        return;
    }
    drop(buf);
    tunnel(client, up, shared).await;
}

async fn refuse_http<S: AsyncWrite + Unpin>(client: &mut S, r: &Refusal) {
    match r.kind {
        RefusalKind::Policy => respond(client, "403 Forbidden", "", &r.reason).await,
        RefusalKind::Unreachable => respond(client, "502 Bad Gateway", "", &r.reason).await,
    }
}

// ---------------------------------------------------------------------------------------------
// SOCKS5 (RFC 1928, RFC 1929)

const SOCKS_NOT_ALLOWED: u8 = 0x02;
const SOCKS_HOST_UNREACHABLE: u8 = 0x04;
const SOCKS_CMD_UNSUPPORTED: u8 = 0x07;
const SOCKS_ATYP_UNSUPPORTED: u8 = 0x08;

async fn socks_reply<S: AsyncWrite + Unpin>(client: &mut S, code: u8) {
    let _ = client.write_all(&[5, code, 0, 1, 0, 0, 0, 0, 0, 0]).await;
}

enum SocksTarget {
    Name(String, u16),
    Ip(IpAddr, u16),
}

/// The handshake up to the request; `Err(code)` sends that reply (0 sends nothing).
async fn socks_handshake<S>(shared: &Shared, client: &mut S) -> Result<SocksTarget, u8>
where
    S: AsyncRead + AsyncWrite + Unpin + Send,
{
    let io = |_| 0u8;
    let n = client.read_u8().await.map_err(io)?;
    let mut methods = vec![0u8; usize::from(n)];
    client.read_exact(&mut methods).await.map_err(io)?;
    match &shared.config.credential {
        None if methods.contains(&0) => client.write_all(&[5, 0]).await.map_err(io)?,
        Some(cred) if methods.contains(&2) => {
            client.write_all(&[5, 2]).await.map_err(io)?;
            let ver = client.read_u8().await.map_err(io)?;
            let ulen = client.read_u8().await.map_err(io)?;
            let mut user = vec![0u8; usize::from(ulen)];
            client.read_exact(&mut user).await.map_err(io)?;
            let plen = client.read_u8().await.map_err(io)?;
            let mut pass = vec![0u8; usize::from(plen)];
            client.read_exact(&mut pass).await.map_err(io)?;
            let ok = ver == 1 && same(&user, cred.user.as_bytes()) && same(&pass, cred.password.as_bytes());
            client.write_all(&[1, if ok { 0 } else { 1 }]).await.map_err(io)?;
            if !ok {
                return Err(0);
            }
        }
        _ => {
            let _ = client.write_all(&[5, 0xff]).await;
            return Err(0);
        }
    }
    let mut head = [0u8; 4];
    client.read_exact(&mut head).await.map_err(io)?;
    if head[0] != 5 {
        return Err(0);
    }
    let target = match head[3] {
        1 => {
            let mut a = [0u8; 4];
            client.read_exact(&mut a).await.map_err(io)?;
            let port = client.read_u16().await.map_err(io)?;
            SocksTarget::Ip(IpAddr::from(a), port)
        }
        4 => {
            let mut a = [0u8; 16];
            client.read_exact(&mut a).await.map_err(io)?;
            let port = client.read_u16().await.map_err(io)?;
            SocksTarget::Ip(IpAddr::from(a), port)
        }
        3 => {
            let len = client.read_u8().await.map_err(io)?;
            let mut name = vec![0u8; usize::from(len)];
            client.read_exact(&mut name).await.map_err(io)?;
            let port = client.read_u16().await.map_err(io)?;
            SocksTarget::Name(String::from_utf8_lossy(&name).into_owned(), port)
        }
        _ => return Err(SOCKS_ATYP_UNSUPPORTED),
    };
    if head[1] != 1 {
        return Err(SOCKS_CMD_UNSUPPORTED);
    }
    Ok(target)
}

async fn socks<S: Socket>(shared: &Shared, mut client: S) {
    let cfg = &shared.config;
    // The whole handshake is bounded by the head timeout; its size is bounded by the protocol
    // (at most 255 + 255 + 255 bytes of variable fields).
    let target = match tokio::time::timeout(cfg.header_timeout, socks_handshake(shared, &mut client)).await {
        Ok(Ok(t)) => t,
        Ok(Err(0)) | Err(_) => return,
        Ok(Err(code)) => return socks_reply(&mut client, code).await,
    };
    let (host, port) = match target {
        SocksTarget::Ip(ip, port) => (
            match ip {
                IpAddr::V4(a) => Host::V4(a),
                IpAddr::V6(a) => Host::V6(a),
            },
            port,
        ),
        SocksTarget::Name(n, port) => match parse_host(&n) {
            Ok(h) => (h, port),
            Err(e) => {
                shared.block(&n, port, &e.to_string());
                return socks_reply(&mut client, SOCKS_NOT_ALLOWED).await;
            }
        },
    };
    let upstream = match open(shared, &host, port).await {
        Ok(u) => u,
        Err(r) => {
            let code = if r.kind == RefusalKind::Policy { SOCKS_NOT_ALLOWED } else { SOCKS_HOST_UNREACHABLE };
            return socks_reply(&mut client, code).await;
        }
    };
    socks_reply(&mut client, 0).await;
    tunnel(client, upstream.stream, shared).await;
}

// ---------------------------------------------------------------------------------------------
// Tunnels

/// When a tunnel last moved bytes, for its idle timeout.
struct Clock {
    start: Instant,
    /// Milliseconds from `start` to the last transfer.
    last: AtomicU64,
}

impl Clock {
    fn touch(&self) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(ms, Ordering::Relaxed);
    }

    /// Return once the tunnel has been quiet for `idle`.
    async fn idle(&self, idle: Duration) {
        loop {
            let since = Duration::from_millis(self.last.load(Ordering::Relaxed));
            let quiet = self.start.elapsed().saturating_sub(since);
            if quiet >= idle {
                return;
            }
            tokio::time::sleep(idle - quiet).await;
        }
    }
}

/// A stream that notes the time of its last transfer (the user-space copy's idle timer).
struct Tracked<'a, S> {
    inner: S,
    clock: &'a Clock,
}

impl<S: AsyncRead + Unpin> AsyncRead for Tracked<'_, S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.clock.touch();
        }
        r
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Tracked<'_, S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.clock.touch();
        }
        r
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Move bytes both ways until both sides close, either fails, or a timeout ends the tunnel.
/// On Linux the kernel moves them (`splice`, see [`crate::splice`]); elsewhere, or when no pipe
/// can be had, a user-space copy with `tunnel_buffer`-sized buffers does.
async fn tunnel<S: Socket>(client: S, mut upstream: TcpStream, shared: &Shared) {
    let cfg = &shared.config;
    let (idle, total, size) = (cfg.idle_timeout, cfg.total_timeout, cfg.tunnel_buffer.max(4096));
    let clock = Clock { start: Instant::now(), last: AtomicU64::new(0) };
    #[cfg(target_os = "linux")]
    if let Some(_slot) = shared.splice.then(|| shared.splicing.try_acquire().ok()).flatten() {
        if let Ok(pipes) = crate::splice::Pipes::new(size) {
            let seen = || clock.touch();
            tokio::select! {
                _ = crate::splice::bidirectional(&client, &upstream, &pipes, &seen) => {}
                _ = clock.idle(idle) => {}
                _ = tokio::time::sleep(total) => {}
            }
            return;
        }
    }
    let mut client = Tracked { inner: client, clock: &clock };
    tokio::select! {
        _ = tokio::io::copy_bidirectional_with_sizes(&mut client, &mut upstream, size, size) => {}
        _ = clock.idle(idle) => {}
        _ = tokio::time::sleep(total) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648() {
        for (i, o) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")] {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }

    #[test]
    fn authority() {
        assert_eq!(split_authority("a.com:443"), Some(("a.com", 443)));
        assert_eq!(split_authority("[::1]:80"), Some(("::1", 80)));
        assert_eq!(split_authority("a.com"), None);
    }
}
