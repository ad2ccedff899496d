//! The fetch-time guard: fetch a URL for an agent's own `web_fetch`, deciding every hop.
//!
//! The hard question: **can a URL the person allowed lead the fetch anywhere they did not?**
//! So redirects are never followed by a client library: each `Location` is parsed like the first
//! URL and decided again (the caller's decision, normally the engine's `web_fetch` verdict, then
//! the network policy), its name resolved here, every address checked, and the connection made
//! to one of exactly those addresses. A new host needs its own allow. Headers the caller gave
//! (credentials) go only to the first URL's origin, never to another host. Size, time and the
//! number of hops are capped.
//!
//! Plain `http://` only: TLS needs a TLS stack (`rustls` and a root store), which wicket does not
//! carry yet, so an `https://` hop is an error that says so. [`check_url`] is the part a
//! caller with its own TLS client uses: it decides, resolves and checks one URL and returns the
//! addresses to connect to.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use wicket_policy::host::{parse_url, FetchUrl};

use crate::policy::{NetConfig, Verdict};
use crate::proxy::Resolve;

/// The bounds of one fetch.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The most redirects followed.
    pub max_redirects: usize,
    /// The largest response (head and body) of one hop, in bytes.
    pub max_bytes: usize,
    /// The whole fetch, every hop included.
    pub timeout: Duration,
}

impl Default for Limits {
    /// 5 redirects, 10 MiB, 30 s.
    fn default() -> Self {
        Limits { max_redirects: 5, max_bytes: 10 * 1024 * 1024, timeout: Duration::from_secs(30) }
    }
}

/// Why a fetch did not return a response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// A hop was refused (by the caller's decision, the network policy or the address check).
    #[error("refused: {url}: {reason}")]
    Refused {
        /// The URL of the hop.
        url: String,
        /// Why, and the fix.
        reason: String,
    },
    /// The URL cannot be fetched (syntax, scheme, too many redirects).
    #[error("{0}")]
    Invalid(String),
    /// The network failed (resolution, connection, a malformed or oversized response, time).
    #[error("{url}: {reason}")]
    Failed {
        /// The URL of the hop.
        url: String,
        /// What happened.
        reason: String,
    },
}

/// A response.
#[derive(Debug, Clone)]
pub struct Response {
    /// The URL that answered (after redirects).
    pub url: String,
    /// The HTTP status.
    pub status: u16,
    /// The response headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// Every URL fetched, in order (the last is [`Response::url`]).
    pub hops: Vec<String>,
}

/// A URL decided and checked: where to connect.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The parsed URL.
    pub url: FetchUrl,
    /// The checked addresses (connect to one of these, never to a new lookup).
    pub addrs: Vec<IpAddr>,
}

/// Decide, resolve and check one URL. `decide` is the caller's decision on the URL (the
/// engine's `web_fetch` verdict, asking the person if needed): `Err(reason)` refuses. The
/// network policy then refuses what it always refuses (team blocks, IP literals, ports,
/// restricted names); a host it does not list is allowed only through `decide`'s yes.
pub async fn check_url(
    input: &str,
    net: &NetConfig,
    resolver: &dyn Resolve,
    decide: &mut dyn FnMut(&str) -> Result<(), String>,
) -> Result<Checked, FetchError> {
    let refused = |reason: String| FetchError::Refused { url: input.to_string(), reason };
    let url = parse_url(input).map_err(|e| refused(e.to_string()))?;
    if let Verdict::Deny(r) = net.decide(&url.host, url.port) {
        return Err(refused(r));
    }
    decide(url.url.as_str()).map_err(refused)?;
    let name = url.host.to_string();
    let addrs = match net.pinned(&url.host) {
        Some(p) => p.to_vec(),
        None => resolver.resolve(&name).await.map_err(|e| FetchError::Failed {
            url: input.to_string(),
            reason: format!("cannot resolve {name}: {e}"),
        })?,
    };
    net.check_addrs(&url.host, &addrs).map_err(refused)?;
    Ok(Checked { url, addrs })
}

/// Fetch `input` with GET, following at most `limits.max_redirects` redirects, each hop
/// decided again by `decide` and the network policy. `headers` (e.g. `Authorization`) are
/// sent to the first URL's origin only.
pub async fn fetch(
    input: &str,
    net: &NetConfig,
    resolver: &dyn Resolve,
    decide: &mut dyn FnMut(&str) -> Result<(), String>,
    headers: &[(String, String)],
    limits: &Limits,
) -> Result<Response, FetchError> {
    let work = fetch_hops(input, net, resolver, decide, headers, limits);
    match tokio::time::timeout(limits.timeout, work).await {
        Ok(r) => r,
        Err(_) => Err(FetchError::Failed {
            url: input.to_string(),
            reason: format!("the fetch took longer than {} s", limits.timeout.as_secs_f64()),
        }),
    }
}

async fn fetch_hops(
    input: &str,
    net: &NetConfig,
    resolver: &dyn Resolve,
    decide: &mut dyn FnMut(&str) -> Result<(), String>,
    headers: &[(String, String)],
    limits: &Limits,
) -> Result<Response, FetchError> {
    let mut hops: Vec<String> = Vec::new();
    let mut current = input.to_string();
    let mut origin: Option<(String, String, u16)> = None;
    loop {
        let checked = check_url(&current, net, resolver, decide).await?;
        let url = &checked.url;
        if url.url.scheme() != "http" {
            return Err(FetchError::Invalid(format!(
                "{current}: wicket fetch speaks plain http only (no TLS stack yet); use check_url and a TLS client, \
                 or an http:// URL"
            )));
        }
        let here = (url.url.scheme().to_string(), url.host.to_string(), url.port);
        let first = origin.get_or_insert_with(|| here.clone());
        // Credentials only to the origin they were given for.
        let send: &[(String, String)] = if *first == here { headers } else { &[] };
        hops.push(url.url.to_string());
        let (status, head, body) = get(&checked, send, limits.max_bytes).await?;
        let location = head.iter().find(|(k, _)| k.eq_ignore_ascii_case("location")).map(|(_, v)| v.clone());
        match (status, location) {
            (301 | 302 | 303 | 307 | 308, Some(loc)) => {
                if hops.len() > limits.max_redirects {
                    return Err(FetchError::Invalid(format!(
                        "{input}: more than {} redirects ({})",
                        limits.max_redirects,
                        hops.join(" → ")
                    )));
                }
                let next = url.url.join(loc.trim()).map_err(|e| FetchError::Failed {
                    url: current.clone(),
                    reason: format!("the redirect target {loc:?} is not a URL: {e}"),
                })?;
                current = next.to_string();
            }
            _ => return Ok(Response { url: current, status, headers: head, body, hops }),
        }
    }
}

type Head = Vec<(String, String)>;

/// One GET on a checked URL (HTTP/1.0, so the body is never chunked and ends at close).
async fn get(c: &Checked, headers: &[(String, String)], max: usize) -> Result<(u16, Head, Vec<u8>), FetchError> {
    let url = &c.url;
    let fail = |reason: String| FetchError::Failed { url: url.url.to_string(), reason };
    let mut stream = None;
    let mut last = String::new();
    for a in &c.addrs {
        match TcpStream::connect(SocketAddr::new(*a, url.port)).await {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = format!("{a}: {e}"),
        }
    }
    let Some(mut stream) = stream else { return Err(fail(format!("cannot connect ({last})"))) };
    let mut path = url.url.path().to_string();
    if let Some(q) = url.url.query() {
        path.push('?');
        path.push_str(q);
    }
    let authority = if url.port == 80 { url.host.to_string() } else { format!("{}:{}", url.host, url.port) };
    let mut req = format!("GET {path} HTTP/1.0\r\nHost: {authority}\r\nUser-Agent: wicket-fetch\r\nAccept: */*\r\n");
    for (k, v) in headers {
        if k.contains(['\r', '\n', ':']) || v.contains(['\r', '\n']) {
            return Err(FetchError::Invalid(format!("header {k:?} cannot be sent")));
        }
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    stream.write_all(req.as_bytes()).await.map_err(|e| fail(e.to_string()))?;
    let mut buf = Vec::new();
    (&mut stream).take(max as u64 + 1).read_to_end(&mut buf).await.map_err(|e| fail(e.to_string()))?;
    if buf.len() > max {
        return Err(fail(format!("the response is larger than {max} bytes")));
    }
    let mut slots = [httparse::EMPTY_HEADER; 128];
    let mut resp = httparse::Response::new(&mut slots);
    let end = match resp.parse(&buf) {
        Ok(httparse::Status::Complete(n)) => n,
        _ => return Err(fail("the response is not valid HTTP".into())),
    };
    let status = resp.code.unwrap_or(0);
    let head =
        resp.headers.iter().map(|h| (h.name.to_string(), String::from_utf8_lossy(h.value).into_owned())).collect();
    Ok((status, head, buf[end..].to_vec()))
}
