//! URLs, hosts and host patterns.
//!
//! The hard question this module answers: **which hosts may a rule match, and which must a gate
//! never auto-allow?** A host can be spelled many ways (`2130706433`, `0x7f.1`, `127.1`,
//! `[::ffff:127.0.0.1]`, `LOCALHOST.`, `127.0.0.1.nip.io`, a Cyrillic `а` in `exаmple.com`), and
//! URL parsers disagree on tricks such as `http://evil.com\@good.com`. So we:
//!
//! - parse URLs with the WHATWG parser (the `url` crate), accept only `http`/`https`, and refuse
//!   anything another client could read as naming a different host (userinfo, any `@` or `\` before
//!   the path, control characters, percent-encoded hosts);
//! - reduce every host to one canonical [`Host`]: a lowercase ASCII (IDNA) name without the
//!   trailing dot, or an IP address however it was spelled, remembering whether the name was
//!   written with (or stands for) non-ASCII characters;
//! - [`classify`] hosts a gate must never auto-allow (loopback, private, link-local, metadata,
//!   names that resolve to an address embedded in them, ...);
//! - match [`HostPattern`]s conservatively: IP literals never match a name pattern (nor `*`),
//!   `*.example.com` never matches `example.com`, and an internationalised host only matches a
//!   pattern that was itself written as that internationalised name.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

/// Why a URL, host or host pattern was refused. Each message quotes the offending input and says
/// what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// The input was empty (or only whitespace).
    #[error("empty URL or host: give a full URL such as `https://example.com/path`")]
    Empty,
    /// The WHATWG parser rejected the input.
    #[error("cannot parse {} as a URL ({reason}): write a full URL such as `https://example.com/path`", quote(input))]
    Syntax {
        /// The input as given.
        input: String,
        /// What the parser objected to.
        reason: String,
    },
    /// The scheme is not `http` or `https`.
    #[error("{} uses the `{scheme}:` scheme: only `http://` and `https://` URLs can be fetched", quote(input))]
    Scheme {
        /// The input as given.
        input: String,
        /// The scheme that was refused (lowercase).
        scheme: String,
    },
    /// The URL carries a user name or password, or an `@` before the path that some client could
    /// read as one (`http://evil.com\@good.com`).
    #[error(
        "{} has credentials or an `@` before the path (some clients would read the host \
         differently): remove the `user@` part; URLs with user names or passwords are refused",
        quote(input)
    )]
    Userinfo {
        /// The input, with everything before the `@` of the authority replaced by `***`.
        input: String,
    },
    /// The URL has no host.
    #[error("{} has no host: give a URL with a host, such as `https://example.com/`", quote(input))]
    NoHost {
        /// The input as given.
        input: String,
    },
    /// The input is spelled so that URL parsers could disagree on which host it names.
    #[error(
        "{} is ambiguous ({reason}): clients disagree on which host it names; write the URL \
         plainly, e.g. `https://example.com/path`",
        quote(input)
    )]
    Ambiguous {
        /// The input as given.
        input: String,
        /// What makes it ambiguous.
        reason: &'static str,
    },
    /// The host part is not a usable host.
    #[error(
        "{} does not name a valid host ({reason}): a host is a DNS name such as `example.com`, \
         an IPv4 address such as `192.0.2.1` or a bracketed IPv6 address such as `[2001:db8::1]`",
        quote(input)
    )]
    Host {
        /// The input as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A host pattern is malformed.
    #[error(
        "{} is not a valid host pattern ({reason}): write `example.com` (that host only), \
         `*.example.com` (its subdomains, not example.com itself) or `*` (any host name)",
        quote(input)
    )]
    Pattern {
        /// The pattern as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// Quote user input for an error message: escaped, and cut short if very long.
pub(crate) fn quote(s: &str) -> String {
    const MAX: usize = 200;
    let mut short: String = s.chars().take(MAX).collect();
    if short.len() < s.len() {
        short.push('…');
    }
    format!("{short:?}")
}

/// A canonical host: a DNS name or an IP address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Host {
    /// A DNS name.
    Name {
        /// Lowercase ASCII form (IDNA `xn--` labels), without a trailing dot.
        ascii: String,
        /// The name was written with non-ASCII characters or has an `xn--` label: it stands for an
        /// internationalised name, and only a pattern written as that same name matches it.
        unicode: bool,
    },
    /// An IPv4 address, however it was spelled (`127.1`, `0x7f000001`, `0177.0.0.1`, ...).
    V4(Ipv4Addr),
    /// An IPv6 address (written in brackets in a URL).
    V6(Ipv6Addr),
}

impl Host {
    /// True for an IP address literal (v4 or v6).
    pub fn is_ip(&self) -> bool {
        !matches!(self, Host::Name { .. })
    }
}

impl fmt::Display for Host {
    /// The canonical text: the ASCII name, the dotted IPv4 address, or the bracketed IPv6 address.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Name { ascii, .. } => f.write_str(ascii),
            Host::V4(a) => write!(f, "{a}"),
            Host::V6(a) => write!(f, "[{a}]"),
        }
    }
}

/// A parsed `http`/`https` URL with its canonical host and effective port.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FetchUrl {
    /// The WHATWG-parsed URL.
    pub url: url::Url,
    /// The canonical host.
    pub host: Host,
    /// The effective port (the scheme's default when none is written).
    pub port: u16,
}

/// Hosts whose pages are documentation, fetched with no question (decisions.md, "Documentation
/// hosts"): the language, package and platform references agents read all day. On each, a
/// request's address is seen only by the site's owner, never by the author of a page, so a
/// secret put in the path or query of a fetch reaches no attacker; user sites under a shared
/// name (`*.github.io`, `*.readthedocs.io`, `*.vercel.app`) are not here for that reason.
/// Exact names only: a sub-domain is another host.
pub const DOCUMENTATION_HOSTS: &[&str] = &[
    "angular.dev",
    "crates.io",
    "developer.android.com",
    "developer.apple.com",
    "developer.mozilla.org",
    "doc.rust-lang.org",
    "docs.djangoproject.com",
    "docs.docker.com",
    "docs.github.com",
    "docs.npmjs.com",
    "docs.oracle.com",
    "docs.python.org",
    "docs.rs",
    "en.cppreference.com",
    "github.com",
    "go.dev",
    "kotlinlang.org",
    "kubernetes.io",
    "learn.microsoft.com",
    "man7.org",
    "nextjs.org",
    "nodejs.org",
    "pkg.go.dev",
    "pypi.org",
    "react.dev",
    "ruby-doc.org",
    "stackoverflow.com",
    "svelte.dev",
    "tailwindcss.com",
    "vuejs.org",
    "www.gnu.org",
    "www.npmjs.com",
    "www.postgresql.org",
    "www.rust-lang.org",
    "www.typescriptlang.org",
];

/// Is this fetch a plain page of a documentation host: `https`, the default port, no name or
/// password in the address, and a host of [`DOCUMENTATION_HOSTS`] written as that name?
pub fn documentation_page(host: &Host, url: &str) -> bool {
    let Host::Name { ascii, unicode: false } = host else { return false };
    if DOCUMENTATION_HOSTS.binary_search(&ascii.as_str()).is_err() {
        return false;
    }
    let Ok(parsed) = url::Url::parse(url.trim_matches(|c: char| c <= ' ')) else { return false };
    parsed.scheme() == "https" && parsed.port().is_none() && parsed.username().is_empty() && parsed.password().is_none()
}

/// Parse a URL to fetch. Only `http` and `https` are accepted; credentials, an `@` or `\` before
/// the path, control characters and percent-encoded hosts are refused because clients disagree
/// on what they mean.
pub fn parse_url(input: &str) -> Result<FetchUrl, UrlError> {
    // The WHATWG parser strips leading/trailing C0 controls and spaces; do the same up front.
    let trimmed = input.trim_matches(|c: char| c <= ' ');
    if trimmed.is_empty() {
        return Err(UrlError::Empty);
    }
    let url =
        url::Url::parse(trimmed).map_err(|e| UrlError::Syntax { input: input.to_string(), reason: e.to_string() })?;
    let scheme = url.scheme();
    if scheme != "http" && scheme != "https" {
        return Err(UrlError::Scheme { input: input.to_string(), scheme: scheme.to_string() });
    }
    // WHATWG silently removes tabs and newlines anywhere: another parser would not.
    if trimmed.chars().any(char::is_control) {
        return Err(UrlError::Ambiguous { input: input.to_string(), reason: "it contains a control character" });
    }
    // The authority as an RFC 3986 client sees it: up to the first `/`, `?` or `#`. WHATWG also
    // ends it at `\`, which is how `http://evil.com\@good.com` differs between clients.
    let authority = raw_authority(trimmed);
    if authority.contains('@') || !url.username().is_empty() || url.password().is_some() {
        return Err(UrlError::Userinfo { input: redact_userinfo(trimmed, authority) });
    }
    if authority.contains('\\') {
        return Err(UrlError::Ambiguous { input: input.to_string(), reason: "a backslash before the path" });
    }
    if authority.contains('%') {
        return Err(UrlError::Ambiguous { input: input.to_string(), reason: "a percent-encoded host" });
    }
    let Some(parsed) = url.host() else {
        return Err(UrlError::NoHost { input: input.to_string() });
    };
    let non_ascii = !authority.is_ascii();
    let host =
        canonical_host(parsed, non_ascii).map_err(|reason| UrlError::Host { input: input.to_string(), reason })?;
    let Some(port) = url.port_or_known_default() else {
        return Err(UrlError::Syntax { input: input.to_string(), reason: "no port".to_string() });
    };
    Ok(FetchUrl { url, host, port })
}

/// The span after `scheme:` and any slashes, up to the first `/`, `?` or `#`.
fn raw_authority(s: &str) -> &str {
    let Some(colon) = s.find(':') else {
        return "";
    };
    let rest = s[colon + 1..].trim_start_matches(['/', '\\']);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    &rest[..end]
}

/// The input with whatever precedes the last `@` of the authority replaced by `***`.
fn redact_userinfo(s: &str, authority: &str) -> String {
    let Some(at) = authority.rfind('@') else {
        return s.to_string();
    };
    // `authority` is a subslice of `s`: find where it starts.
    let start = authority.as_ptr() as usize - s.as_ptr() as usize;
    format!("{}***{}", &s[..start], &s[start + at..])
}

/// Reduce a WHATWG host to a canonical [`Host`]. `non_ascii`: the written host had non-ASCII
/// characters.
fn canonical_host(host: url::Host<&str>, non_ascii: bool) -> Result<Host, String> {
    match host {
        url::Host::Ipv4(a) => Ok(Host::V4(a)),
        url::Host::Ipv6(a) => Ok(Host::V6(a)),
        url::Host::Domain(d) => {
            let name = d.to_ascii_lowercase();
            let name = name.strip_suffix('.').unwrap_or(&name);
            if name.is_empty() {
                return Err("empty host name".to_string());
            }
            if name.len() > 253 {
                return Err("host name longer than 253 characters".to_string());
            }
            for label in name.split('.') {
                if label.is_empty() {
                    return Err("empty label (two dots in a row)".to_string());
                }
                if label.len() > 63 {
                    return Err("label longer than 63 characters".to_string());
                }
                if let Some(c) = label.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_')) {
                    return Err(format!("character {c:?} is not allowed in a host name"));
                }
            }
            let unicode = non_ascii || name.split('.').any(|l| l.starts_with("xn--"));
            Ok(Host::Name { ascii: name.to_string(), unicode })
        }
    }
}

/// Parse a bare host, as written in a network allowlist or a proxy `CONNECT` target (without the
/// port): `example.com`, `EXAMPLE.com.`, `bücher.de`, `127.1`, `[::1]` or `::1`. Canonicalised
/// like the host of [`parse_url`].
pub fn parse_host(s: &str) -> Result<Host, UrlError> {
    let host_err = |reason: &str| UrlError::Host { input: s.to_string(), reason: reason.to_string() };
    if s.is_empty() {
        return Err(UrlError::Empty);
    }
    if let Some(c) =
        s.chars().find(|c| matches!(c, '/' | '@' | '?' | '#' | '\\' | '%') || c.is_whitespace() || c.is_control())
    {
        return Err(host_err(&format!(
            "{c:?} cannot appear in a host; give the host alone, without scheme, path or user"
        )));
    }
    // A bare IPv6 address (`::1`) is accepted without brackets.
    let text = if !s.starts_with('[') && s.contains(':') {
        match s.parse::<Ipv6Addr>() {
            Ok(a) => format!("[{a}]"),
            Err(_) => return Err(host_err("a port or scheme; give the host alone")),
        }
    } else {
        s.to_string()
    };
    let url = url::Url::parse(&format!("http://{text}/")).map_err(|e| host_err(&e.to_string()))?;
    if url.port().is_some() || text.ends_with(':') {
        return Err(host_err("a port; give the host alone"));
    }
    let Some(parsed) = url.host() else {
        return Err(host_err("no host"));
    };
    canonical_host(parsed, !s.is_ascii()).map_err(|r| host_err(&r))
}

/// A kind of host a gate must never allow without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Restricted {
    /// This machine: `127.0.0.0/8`, `::1`, `localhost`, `*.localhost`.
    Loopback,
    /// A private network: `10/8`, `172.16/12`, `192.168/16`, `100.64/10`, `fc00::/7`, and names
    /// that only resolve inside a network (`*.internal`, `*.local`, single-label names).
    Private,
    /// Link-local: `169.254/16` (except metadata addresses), `fe80::/10`.
    LinkLocal,
    /// The unspecified address: `0.0.0.0/8`, `::`.
    Unspecified,
    /// A cloud metadata endpoint (`169.254.169.254`, `metadata.google.internal`, ...).
    Metadata,
    /// Multicast: `224.0.0.0/4`, `ff00::/8`.
    Multicast,
    /// The limited broadcast address `255.255.255.255`.
    Broadcast,
    /// Reserved, non-public IPv4 ranges (`240.0.0.0/4`, `198.18.0.0/15`, `192.0.0.0/24`).
    Reserved,
    /// A name that wildcard DNS resolves to an address written inside it (`127.0.0.1.nip.io`,
    /// `10-0-0-1.sslip.io`, `*.localtest.me`, ...).
    EmbedsAddress,
}

impl Restricted {
    /// A short lowercase identifier (`loopback`, `private`, `link-local`, `unspecified`,
    /// `metadata`, `multicast`, `broadcast`, `reserved`, `embeds-address`).
    pub fn id(self) -> &'static str {
        match self {
            Restricted::Loopback => "loopback",
            Restricted::Private => "private",
            Restricted::LinkLocal => "link-local",
            Restricted::Unspecified => "unspecified",
            Restricted::Metadata => "metadata",
            Restricted::Multicast => "multicast",
            Restricted::Broadcast => "broadcast",
            Restricted::Reserved => "reserved",
            Restricted::EmbedsAddress => "embeds-address",
        }
    }
}

impl fmt::Display for Restricted {
    /// A phrase naming the kind, for messages (`a loopback address`, ...).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Restricted::Loopback => "a loopback address (this machine)",
            Restricted::Private => "a private-network address or internal name",
            Restricted::LinkLocal => "a link-local address",
            Restricted::Unspecified => "the unspecified address",
            Restricted::Metadata => "a cloud metadata endpoint",
            Restricted::Multicast => "a multicast address",
            Restricted::Broadcast => "the broadcast address",
            Restricted::Reserved => "a reserved address",
            Restricted::EmbedsAddress => "a name that resolves to an address written inside it",
        })
    }
}

/// Names of cloud metadata services (AWS, GCP, Tencent, Equinix Metal, and the bare names
/// search domains complete).
const METADATA_NAMES: &[&str] = &[
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.tencentyun.com",
    "metadata.packet.net",
    "metadata.platformequinix.com",
];

/// IPv4 addresses of cloud metadata and host services: AWS, GCP, Azure, DigitalOcean, Hetzner,
/// OpenStack and OCI (`169.254.169.254`), AWS ECS task credentials (`169.254.170.2`), EKS Pod
/// Identity (`169.254.170.23`), Tencent (`169.254.0.23`), Alibaba (`100.100.100.200`), Oracle
/// Cloud Classic (`192.0.0.192`) and Azure's WireServer (`168.63.129.16`).
const METADATA_V4: &[[u8; 4]] = &[
    [169, 254, 169, 254],
    [169, 254, 170, 2],
    [169, 254, 170, 23],
    [169, 254, 0, 23],
    [100, 100, 100, 200],
    [192, 0, 0, 192],
    [168, 63, 129, 16],
];

/// IPv6 addresses of cloud metadata services: AWS (`fd00:ec2::254`, EKS Pod Identity
/// `fd00:ec2::23`), GCP (`fd20:ce::254`) and OCI (`fd00:c1::a9fe:a9fe`).
const METADATA_V6: &[[u16; 8]] = &[
    [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x254],
    [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x23],
    [0xfd20, 0x00ce, 0, 0, 0, 0, 0, 0x254],
    [0xfd00, 0x00c1, 0, 0, 0, 0, 0xa9fe, 0xa9fe],
];

/// Domains that, with all their subdomains, resolve to `127.0.0.1`.
const LOOPBACK_DOMAINS: &[&str] =
    &["localtest.me", "lvh.me", "vcap.me", "lacolhost.com", "localho.st", "localhost.direct", "fuf.me"];

/// Wildcard and rebinding DNS services: every subdomain resolves to the address written in it,
/// dotted (`10.0.0.1.nip.io`), dashed (`10-0-0-1.sslip.io`) or in hex (`0a000001.nip.io`,
/// `7f000001.c0a80001.rbndr.us`).
const WILDCARD_IP_DNS: &[&str] = &["nip.io", "sslip.io", "xip.io", "traefik.me", "rbndr.us", "1u.ms"];

/// Suffixes of names that only resolve inside a network.
const INTERNAL_SUFFIXES: &[&str] = &["internal", "local", "localdomain", "home.arpa", "lan"];

/// Whether `name` is `domain` or one of its subdomains.
fn is_within(name: &str, domain: &str) -> bool {
    name == domain || is_below(name, domain)
}

/// Whether `name` is a strict subdomain of `domain`.
fn is_below(name: &str, domain: &str) -> bool {
    name.len() > domain.len() + 1 && name.ends_with(domain) && name.as_bytes()[name.len() - domain.len() - 1] == b'.'
}

/// If a gate must never auto-allow `host`, the reason; `None` for a public host.
///
/// IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible, NAT64 (`64:ff9b::/96`) and 6to4 IPv6
/// addresses are classified by the IPv4 address inside them.
pub fn classify(host: &Host) -> Option<Restricted> {
    match host {
        Host::V4(a) => classify_v4(*a),
        Host::V6(a) => classify_v6(a),
        Host::Name { ascii, .. } => classify_name(ascii),
    }
}

fn classify_v4(a: Ipv4Addr) -> Option<Restricted> {
    let [o0, o1, o2, o3] = a.octets();
    Some(match (o0, o1, o2, o3) {
        (0, ..) => Restricted::Unspecified,
        (127, ..) => Restricted::Loopback,
        _ if METADATA_V4.contains(&a.octets()) => Restricted::Metadata,
        (169, 254, ..) => Restricted::LinkLocal,
        (10, ..) | (192, 168, ..) => Restricted::Private,
        (172, 16..=31, ..) | (100, 64..=127, ..) => Restricted::Private,
        (224..=239, ..) => Restricted::Multicast,
        (255, 255, 255, 255) => Restricted::Broadcast,
        (240..=255, ..) | (198, 18..=19, ..) | (192, 0, 0, _) => Restricted::Reserved,
        _ => return None,
    })
}

/// The IPv4 address embedded in an IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
/// (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) or 6to4 (`2002:aabb:ccdd::`) IPv6 address.
pub fn embedded_v4(a: &Ipv6Addr) -> Option<Ipv4Addr> {
    let s = a.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some(low),
        // IPv4-compatible; `::` and `::1` are themselves.
        [0, 0, 0, 0, 0, 0, hi, _] if hi != 0 => Some(low),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(low),
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8)),
        _ => None,
    }
}

fn classify_v6(a: &Ipv6Addr) -> Option<Restricted> {
    if a.is_unspecified() {
        return Some(Restricted::Unspecified);
    }
    if a.is_loopback() {
        return Some(Restricted::Loopback);
    }
    if let Some(v4) = embedded_v4(a) {
        return classify_v4(v4);
    }
    let s = a.segments();
    if METADATA_V6.contains(&s) {
        return Some(Restricted::Metadata);
    }
    Some(match s[0] {
        0xfc00..=0xfdff => Restricted::Private,
        0xfe80..=0xfebf => Restricted::LinkLocal,
        // Deprecated site-local.
        0xfec0..=0xfeff => Restricted::Private,
        0xff00..=0xffff => Restricted::Multicast,
        // Local-use NAT64 (64:ff9b:1::/48).
        0x64 if s[1] == 0xff9b && s[2] == 1 => Restricted::Private,
        _ => return None,
    })
}

fn classify_name(name: &str) -> Option<Restricted> {
    // `localhost` as any label (`app.localhost`, `localhost.example.com`, `a.localhost.b`):
    // resolvers and browsers send some of these to this machine, and a name that says it is
    // this machine is treated as this machine.
    if name.split('.').any(|l| l == "localhost")
        || name == "localhost.localdomain"
        || name == "ip6-localhost"
        || name == "ip6-loopback"
    {
        return Some(Restricted::Loopback);
    }
    if METADATA_NAMES.contains(&name) {
        return Some(Restricted::Metadata);
    }
    if LOOPBACK_DOMAINS.iter().any(|d| is_within(name, d))
        || WILDCARD_IP_DNS.iter().any(|d| is_below(name, d))
        || embeds_restricted_v4(name)
        || name_v6(name).is_some_and(|a| classify_v6(&a).is_some())
    {
        return Some(Restricted::EmbedsAddress);
    }
    if INTERNAL_SUFFIXES.iter().any(|d| is_within(name, d)) || !name.contains('.') {
        // Single-label names resolve through the search domain, i.e. inside the network.
        return Some(Restricted::Private);
    }
    None
}

/// Whether the name holds a non-public IPv4 address ([`spelled_v4`]): four dotted labels
/// (`127.0.0.1.x.com`), four dash-separated parts of a label (`app-10-0-0-1.x.com`), or hex
/// under a rebinding service.
fn embeds_restricted_v4(name: &str) -> bool {
    name_v4s(name).into_iter().any(|a| classify_v4(a).is_some())
}

/// Every IPv4 address a host stands for, however it is spelled: the address itself; the one
/// inside an IPv4-mapped, IPv4-compatible, NAT64 or 6to4 IPv6 address; and for a name, the
/// addresses written in it (four numbers in a row separated by dots or dashes, eight hex
/// digits under a rebinding service), `127.0.0.1` for names that say they are this machine
/// (`localhost` as any label, the loopback domains). Empty for an ordinary name.
pub fn spelled_v4(host: &Host) -> Vec<Ipv4Addr> {
    match host {
        Host::V4(a) => vec![*a],
        Host::V6(a) => embedded_v4(a).into_iter().collect(),
        Host::Name { ascii, .. } => name_v4s(ascii),
    }
}

fn name_v4s(name: &str) -> Vec<Ipv4Addr> {
    fn octet(s: &str) -> Option<u8> {
        if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    }
    fn quads(parts: &[&str], out: &mut Vec<Ipv4Addr>) {
        for w in parts.windows(4) {
            if let (Some(a), Some(b), Some(c), Some(d)) = (octet(w[0]), octet(w[1]), octet(w[2]), octet(w[3])) {
                out.push(Ipv4Addr::new(a, b, c, d));
            }
        }
    }
    let labels: Vec<&str> = name.split('.').collect();
    let mut out = Vec::new();
    // Dots and dashes mix freely in rebinding names (`make-127.0.0.1-rebind-…-rr.1u.ms`).
    quads(&name.split(['.', '-']).collect::<Vec<_>>(), &mut out);
    if let Some(service) = WILDCARD_IP_DNS.iter().find(|d| is_below(name, d)) {
        let own = name.len() - service.len() - 1;
        for part in name[..own].split(['.', '-']) {
            if part.len() == 8 && part.bytes().all(|b| b.is_ascii_hexdigit()) {
                if let Ok(n) = u32::from_str_radix(part, 16) {
                    out.push(Ipv4Addr::from(n));
                }
            }
        }
    }
    if labels.contains(&"localhost") || LOOPBACK_DOMAINS.iter().any(|d| is_within(name, d)) {
        out.push(Ipv4Addr::LOCALHOST);
    }
    out.dedup();
    out
}

/// The IPv6 address a name under `sslip.io` writes with dashes for colons (`--1.sslip.io` is
/// `::1`, `fe80--1.sslip.io` is `fe80::1`).
fn name_v6(name: &str) -> Option<Ipv6Addr> {
    if !is_below(name, "sslip.io") {
        return None;
    }
    let label = name.split('.').rev().nth(2)?;
    // A prefix such as `app-` is allowed before the address.
    let text = label.replace('-', ":");
    text.parse().ok().or_else(|| text.split_once(':').and_then(|(_, rest)| rest.parse().ok()))
}

/// A host pattern from a rule: `example.com` (that host only), `*.example.com` (its subdomains at
/// any depth, never `example.com` itself), `*` (any host name, but no IP literal and no
/// internationalised name), or an IP literal (that address only).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HostPattern {
    kind: PatternKind,
    /// The pattern was written with non-ASCII characters or an `xn--` label.
    unicode: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum PatternKind {
    Any,
    Exact(String),
    /// The domain below which names match (without the `*.`).
    Subdomains(String),
    Ip(Host),
}

impl HostPattern {
    /// Parse a pattern: `example.com`, `*.example.com` or `*` (also an IP literal such as
    /// `192.0.2.1` or `[2001:db8::1]`). Canonicalised like hosts: lowercase, one trailing dot
    /// dropped, IDNA. No scheme, port, path or other wildcard is accepted.
    pub fn parse(s: &str) -> Result<HostPattern, UrlError> {
        let err = |reason: &str| UrlError::Pattern { input: s.to_string(), reason: reason.to_string() };
        if s.is_empty() {
            return Err(err("it is empty"));
        }
        if s == "*" {
            return Ok(HostPattern { kind: PatternKind::Any, unicode: false });
        }
        if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(err("it contains whitespace"));
        }
        if s.contains("://") {
            return Err(err("it has a scheme; give the host alone"));
        }
        if s.contains(['/', '?', '#']) {
            return Err(err("it has a path; give the host alone"));
        }
        let (body, wildcard) = match s.strip_prefix("*.") {
            Some(rest) => (rest, true),
            None => (s, false),
        };
        if body.is_empty() {
            return Err(err("nothing follows `*.`"));
        }
        if body.contains('*') {
            return Err(err("`*` may only stand alone or as the whole first label, as in `*.example.com`"));
        }
        let host = parse_host(body).map_err(|e| match e {
            UrlError::Host { reason, .. } => err(&reason),
            other => err(&other.to_string()),
        })?;
        match host {
            Host::Name { ascii, unicode } => Ok(HostPattern {
                kind: if wildcard { PatternKind::Subdomains(ascii) } else { PatternKind::Exact(ascii) },
                unicode,
            }),
            ip if !wildcard => Ok(HostPattern { kind: PatternKind::Ip(ip), unicode: false }),
            _ => Err(err("`*.` must be followed by a domain name, not an IP address")),
        }
    }

    /// Whether the pattern matches `host`. An IP literal only matches the same IP pattern; an
    /// internationalised name only matches a pattern written as an internationalised name.
    pub fn matches(&self, host: &Host) -> bool {
        match (&self.kind, host) {
            (PatternKind::Ip(p), h) => p == h,
            (_, Host::V4(_) | Host::V6(_)) => false,
            (kind, Host::Name { ascii, unicode }) => {
                if *unicode && !self.unicode {
                    return false;
                }
                match kind {
                    PatternKind::Any => true,
                    PatternKind::Exact(p) => ascii == p,
                    PatternKind::Subdomains(d) => is_below(ascii, d),
                    PatternKind::Ip(_) => false,
                }
            }
        }
    }
}

impl HostPattern {
    /// Whether a deny, ask or block pattern reaches `host`: everything [`HostPattern::matches`]
    /// matches, and for an IPv4 pattern every spelling of that address ([`spelled_v4`]: mapped,
    /// compatible, NAT64 and 6to4 IPv6 forms, names that encode it, `localhost` names for
    /// `127.0.0.1`). Allow rules use the narrower [`HostPattern::matches`].
    pub fn covers(&self, host: &Host) -> bool {
        if self.matches(host) {
            return true;
        }
        // A name written with characters the fetcher maps away (`evil。com`, `ｅｖｉｌ.com`,
        // a soft hyphen) connects to the mapped name: a deny rule for it holds, though only
        // an allow rule written the same way allows it (issue 39, class 11).
        if let Host::Name { ascii, .. } = host {
            match &self.kind {
                PatternKind::Any => return true,
                PatternKind::Exact(p) if ascii == p => return true,
                PatternKind::Subdomains(d) if is_below(ascii, d) => return true,
                _ => {}
            }
        }
        let PatternKind::Ip(p) = &self.kind else { return false };
        let wanted = spelled_v4(p);
        !wanted.is_empty() && spelled_v4(host).iter().any(|a| wanted.contains(a))
    }
}

impl fmt::Display for HostPattern {
    /// The canonical text: `*`, `example.com`, `*.example.com`, `192.0.2.1` or `[2001:db8::1]`
    /// (internationalised names in their `xn--` form).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            PatternKind::Any => f.write_str("*"),
            PatternKind::Exact(p) => f.write_str(p),
            PatternKind::Subdomains(d) => write!(f, "*.{d}"),
            PatternKind::Ip(h) => write!(f, "{h}"),
        }
    }
}

impl std::str::FromStr for HostPattern {
    type Err = UrlError;

    /// Same as [`HostPattern::parse`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        HostPattern::parse(s)
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn documentation_hosts_are_sorted_and_plain_pages_only() {
        let mut sorted = super::DOCUMENTATION_HOSTS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, super::DOCUMENTATION_HOSTS, "binary_search needs the list sorted");
        let page = |u: &str| super::parse_url(u).is_ok_and(|p| super::documentation_page(&p.host, u));
        assert!(page("https://docs.rs/serde/latest/serde/"));
        assert!(page("https://DOCS.python.org/3/library/pathlib.html?x=1#y"));
        assert!(!page("http://docs.rs/serde"), "plain http can be changed on the way");
        assert!(!page("https://docs.rs:8443/serde"));
        assert!(!page("https://user:pw@docs.rs/serde"));
        assert!(!page("https://evil.docs.rs/x"), "a sub-domain is another host");
        assert!(!page("https://docs.rs.evil.example/x"));
        assert!(!page("https://example.github.io/x"));
    }
    use super::*;

    #[test]
    fn userinfo_is_redacted() {
        let Err(UrlError::Userinfo { input }) = parse_url("http://user:secret@example.com/x") else {
            panic!("expected a userinfo error");
        };
        assert_eq!(input, "http://***@example.com/x");
    }

    #[test]
    fn pattern_error_shows_forms() {
        let Err(e) = HostPattern::parse("*foo.com") else {
            panic!("expected an error");
        };
        let msg = e.to_string();
        assert!(msg.contains("\"*foo.com\""), "{msg}");
        assert!(msg.contains("`*.example.com`"), "{msg}");
    }
}
