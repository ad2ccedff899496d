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
//! `https://` hops speak TLS 1.2 or 1.3 (rustls, the `ring` provider) to the checked address
//! while the URL's host name is sent as SNI and verified against the certificate, so the name
//! decided is the name proven. Trust is Mozilla's roots (`webpki-roots`) plus any the caller adds
//! ([`Tls::with_pem_roots`]); there is no way to switch verification off. A redirect from `https`
//! to plain `http` is refused. [`check_url`] is the part a caller with its own HTTP client uses:
//! it decides, resolves and checks one URL and returns the addresses to connect to.

use std::io::ErrorKind;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use rustls::{CertificateError, ClientConfig, RootCertStore};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use wicket_policy::host::{parse_url, FetchUrl};

use crate::policy::{HostVerdict, NetConfig};
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

/// The TLS client settings of `https://` hops: whom to trust. Verification is always on.
#[derive(Clone)]
pub struct Tls {
    config: Arc<ClientConfig>,
    added: usize,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tls {{ Mozilla roots + {} added }}", self.added)
    }
}

/// Why [`Tls`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TlsError {
    /// Added trust roots could not be read.
    #[error("{origin}: {reason}")]
    Roots {
        /// Where the roots came from (a file name).
        origin: String,
        /// What is wrong, and the fix.
        reason: String,
    },
    /// The TLS stack refused the settings (not expected with the built-in provider).
    #[error("cannot set up TLS: {0}")]
    Setup(String),
}

impl Tls {
    /// Trust Mozilla's root certificates (embedded from `webpki-roots`, not the system store).
    pub fn new() -> Result<Tls, TlsError> {
        Tls::with_pem_roots(&[])
    }

    /// Trust Mozilla's roots and, in addition, every certificate in each PEM text of `extra`
    /// (given as `(source name, contents)`), e.g. a corporate proxy's or mirror's CA.
    pub fn with_pem_roots(extra: &[(&str, &[u8])]) -> Result<Tls, TlsError> {
        let mut roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
        let mut added = 0;
        for (origin, pem) in extra {
            let bad = |reason: String| TlsError::Roots { origin: (*origin).to_string(), reason };
            let mut here = 0;
            for cert in CertificateDer::pem_slice_iter(pem) {
                let cert = cert.map_err(|e| bad(format!("not a PEM certificate file ({e})")))?;
                roots.add(cert).map_err(|e| bad(format!("a certificate cannot be a trust root: {e}")))?;
                here += 1;
            }
            if here == 0 {
                return Err(bad("no `BEGIN CERTIFICATE` block: give a PEM file of CA certificates".into()));
            }
            added += here;
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        // TLS 1.3 and 1.2 are all rustls speaks; name them so a future default cannot widen it.
        let config = ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .map_err(|e| TlsError::Setup(e.to_string()))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Tls { config: Arc::new(config), added })
    }

    /// How many trust roots were added to Mozilla's.
    pub fn added(&self) -> usize {
        self.added
    }
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
    if let HostVerdict::Deny(r) = net.decide(&url.host, url.port) {
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
/// sent to the first URL's origin only. `https://` hops trust Mozilla's roots; see
/// [`fetch_with`] to add roots.
pub async fn fetch(
    input: &str,
    net: &NetConfig,
    resolver: &dyn Resolve,
    decide: &mut dyn FnMut(&str) -> Result<(), String>,
    headers: &[(String, String)],
    limits: &Limits,
) -> Result<Response, FetchError> {
    let tls = Tls::new().map_err(|e| FetchError::Invalid(e.to_string()))?;
    fetch_with(input, net, resolver, decide, headers, limits, &tls).await
}

/// [`fetch`] with the given TLS trust for `https://` hops.
pub async fn fetch_with(
    input: &str,
    net: &NetConfig,
    resolver: &dyn Resolve,
    decide: &mut dyn FnMut(&str) -> Result<(), String>,
    headers: &[(String, String)],
    limits: &Limits,
    tls: &Tls,
) -> Result<Response, FetchError> {
    let work = fetch_hops(input, net, resolver, decide, headers, limits, tls);
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
    tls: &Tls,
) -> Result<Response, FetchError> {
    let mut hops: Vec<String> = Vec::new();
    let mut current = input.to_string();
    let mut origin: Option<(String, String, u16)> = None;
    loop {
        let checked = check_url(&current, net, resolver, decide).await?;
        let url = &checked.url;
        let here = (url.url.scheme().to_string(), url.host.to_string(), url.port);
        let first = origin.get_or_insert_with(|| here.clone());
        // Credentials only to the origin they were given for.
        let send: &[(String, String)] = if *first == here { headers } else { &[] };
        hops.push(url.url.to_string());
        let (status, head, body) = get(&checked, send, limits.max_bytes, tls).await?;
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
                if url.url.scheme() == "https" && next.scheme() == "http" {
                    return Err(FetchError::Refused {
                        url: next.to_string(),
                        reason: format!(
                            "{current} redirected from https to plain http, which would send the request and \
                             carry the answer unencrypted and unauthenticated (a downgrade); fetch the http:// \
                             URL yourself if you mean it"
                        ),
                    });
                }
                current = next.to_string();
            }
            _ => return Ok(Response { url: current, status, headers: head, body, hops }),
        }
    }
}

type Head = Vec<(String, String)>;

/// One GET on a checked URL (HTTP/1.0, so the body is never chunked and ends at close). An
/// `https` URL speaks TLS over the connection to the checked address, with the URL's host as
/// the name to present (SNI) and to verify.
async fn get(
    c: &Checked,
    headers: &[(String, String)],
    max: usize,
    tls: &Tls,
) -> Result<(u16, Head, Vec<u8>), FetchError> {
    let url = &c.url;
    let fail = |reason: String| FetchError::Failed { url: url.url.to_string(), reason };
    let mut path = url.url.path().to_string();
    if let Some(q) = url.url.query() {
        path.push('?');
        path.push_str(q);
    }
    // `port()` is None when the port is the scheme's default, which `Host` then leaves out.
    let authority = match url.url.port() {
        None => url.host.to_string(),
        Some(p) => format!("{}:{p}", url.host),
    };
    let mut req = format!("GET {path} HTTP/1.0\r\nHost: {authority}\r\nUser-Agent: wicket-fetch\r\nAccept: */*\r\n");
    for (k, v) in headers {
        if k.contains(['\r', '\n', ':']) || v.contains(['\r', '\n']) {
            return Err(FetchError::Invalid(format!("header {k:?} cannot be sent")));
        }
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
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
    let Some(stream) = stream else { return Err(fail(format!("cannot connect ({last})"))) };
    let (buf, closed) = if url.url.scheme() == "https" {
        let name = ServerName::try_from(url.host.to_string()).map_err(|e| FetchError::Refused {
            url: url.url.to_string(),
            reason: format!("{} cannot be checked against a certificate: {e}", url.host),
        })?;
        let stream = TlsConnector::from(tls.config.clone())
            .connect(name, stream)
            .await
            .map_err(|e| tls_failure(url.url.as_str(), &url.host.to_string(), &e))?;
        exchange(stream, req.as_bytes(), max).await.map_err(|e| fail(e.to_string()))?
    } else {
        exchange(stream, req.as_bytes(), max).await.map_err(|e| fail(e.to_string()))?
    };
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
    let head: Head =
        resp.headers.iter().map(|h| (h.name.to_string(), String::from_utf8_lossy(h.value).into_owned())).collect();
    let body = buf[end..].to_vec();
    if !closed {
        // Without TLS's close_notify, a cut connection looks like the end of the body; only a
        // Content-Length that the body meets shows nothing is missing.
        let length = head.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-length")).map(|(_, v)| v.trim());
        if length != Some(body.len().to_string().as_str()) {
            return Err(fail(format!(
                "{} closed the TLS connection without close_notify and the body's length is not known to be complete",
                url.host
            )));
        }
    }
    Ok((status, head, body))
}

/// Send `req` and read the answer to its end or to `max + 1` bytes. The flag is false when
/// the peer ended a TLS connection without close_notify (the answer may be cut short).
async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    req: &[u8],
    max: usize,
) -> std::io::Result<(Vec<u8>, bool)> {
    stream.write_all(req).await?;
    stream.flush().await?;
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let n = match stream.read(&mut chunk).await {
            Ok(0) => return Ok((buf, true)),
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Ok((buf, false)),
            Err(e) => return Err(e),
        };
        let room = (max + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..n.min(room)]);
        if buf.len() > max {
            return Ok((buf, true));
        }
    }
}

/// A failed TLS handshake: a certificate that does not prove the name, or no TLS version and
/// cipher in common, is a refusal naming the host; anything else is a network failure.
fn tls_failure(url: &str, host: &str, e: &std::io::Error) -> FetchError {
    let refused = |reason: String| FetchError::Refused { url: url.to_string(), reason };
    let Some(tls) = e.get_ref().and_then(|inner| inner.downcast_ref::<rustls::Error>()) else {
        return FetchError::Failed {
            url: url.to_string(),
            reason: format!("the TLS handshake with {host} failed: {e}"),
        };
    };
    match tls {
        rustls::Error::InvalidCertificate(c) => refused(match c {
            CertificateError::UnknownIssuer => format!(
                "the certificate of {host} is not trusted: it was issued by an unknown authority (if {host} is a \
                 corporate proxy or mirror with its own CA, add that CA with --cacert FILE)"
            ),
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                format!("the certificate presented by {host} is not valid for the name {host} ({tls})")
            }
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                format!("the certificate of {host} has expired ({tls})")
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                format!("the certificate of {host} is not valid yet ({tls})")
            }
            _ => format!("the certificate of {host} is not valid: {tls}"),
        }),
        rustls::Error::PeerIncompatible(_) => {
            refused(format!("{host} offers no TLS version or cipher wicket accepts (TLS 1.2 or 1.3): {tls}"))
        }
        _ => {
            FetchError::Failed { url: url.to_string(), reason: format!("the TLS handshake with {host} failed: {tls}") }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn ca_pem() -> String {
        let mut p = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        p.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        rcgen::CertifiedIssuer::self_signed(p, rcgen::KeyPair::generate().unwrap()).unwrap().pem()
    }

    #[test]
    fn added_roots_are_counted_and_bad_files_named() {
        assert_eq!(Tls::new().unwrap().added(), 0);
        let two = format!("{}{}", ca_pem(), ca_pem());
        assert_eq!(Tls::with_pem_roots(&[("ca.pem", two.as_bytes())]).unwrap().added(), 2);
        let cases: &[(&str, &str)] = &[
            ("", "no `BEGIN CERTIFICATE` block"),
            ("hello\n", "no `BEGIN CERTIFICATE` block"),
            ("-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n", "not a PEM certificate file"),
            ("-----BEGIN CERTIFICATE-----\naGVsbG8=\n-----END CERTIFICATE-----\n", "cannot be a trust root"),
        ];
        for (text, want) in cases {
            let e = Tls::with_pem_roots(&[("x.pem", text.as_bytes())]).unwrap_err().to_string();
            assert!(e.starts_with("x.pem: ") && e.contains(want), "{text:?}: {e}");
        }
    }
}
