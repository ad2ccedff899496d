//! Which hosts and ports the proxy may reach, and which resolved addresses it may connect to.
//!
//! The hard question: **can any spelling of a host, or any DNS answer, get a connection the
//! settings did not grant?** So every host is canonicalised with wicket-policy's host module
//! before it is compared, team `blockedHosts` is checked before any allow, IP literals are
//! never reachable, names that stand for a restricted address (`localhost`, `*.nip.io`,
//! `metadata.google.internal` …) are refused by name, and after resolution *every* address of
//! the answer is classified: one restricted address refuses the whole answer. Only a host pinned
//! to explicit addresses ([`NetConfig::pin`]) may reach a private address, and only those
//! addresses. An address of this machine (loopback included) is refused by the proxy whatever
//! the policy says ([`crate::local`]).

use std::collections::BTreeMap;
use std::fmt;
use std::net::IpAddr;

use wicket_policy::host::{classify, parse_host, Host, HostPattern, Restricted};
use wicket_policy::team::TeamNetwork;

/// The presets a `network.allow` entry may name, each with its documented host list.
pub const PRESETS: &[(&str, &[&str])] = &[
    ("npm", &["registry.npmjs.org", "registry.npmjs.com", "registry.yarnpkg.com"]),
    ("pypi", &["pypi.org", "files.pythonhosted.org"]),
    ("cargo", &["crates.io", "index.crates.io", "static.crates.io", "static.rust-lang.org"]),
    (
        "github",
        &[
            "github.com",
            "api.github.com",
            "codeload.github.com",
            "objects.githubusercontent.com",
            "raw.githubusercontent.com",
            "release-assets.githubusercontent.com",
        ],
    ),
    ("go", &["proxy.golang.org", "sum.golang.org", "index.golang.org", "storage.googleapis.com"]),
    ("maven", &["repo.maven.apache.org", "repo1.maven.org", "plugins.gradle.org"]),
];

/// What to add to `network.allow` to reach `host`: its preset when one lists it (and the
/// command that adds the presets a project's package managers use), else the host itself.
pub fn how_to_allow(host: &str) -> String {
    match PRESETS.iter().find(|(_, hosts)| hosts.iter().any(|h| h.eq_ignore_ascii_case(host))) {
        Some((preset, _)) => format!(
            "add the preset `{preset}` to network.allow (`wicket registries --allow` adds the registries this project's package managers use), or `{host}` alone"
        ),
        None => format!("add `{host}` (or a preset) to network.allow"),
    }
}

/// The ports reachable unless settings name more.
pub const DEFAULT_PORTS: [u16; 2] = [80, 443];

/// A `network.allow` entry, team entry or pin that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// An allow entry is neither a preset nor a usable host pattern.
    #[error("network.allow entry {entry:?} is not usable: {why}")]
    Allow {
        /// The entry as written.
        entry: String,
        /// Why, and what to write instead.
        why: String,
    },
    /// A team `blockedHosts` entry is malformed.
    #[error("network.blockedHosts entry {entry:?} is not a host pattern: {why}")]
    Blocked {
        /// The entry as written.
        entry: String,
        /// Why.
        why: String,
    },
    /// A pinned host is not a usable host name.
    #[error("cannot pin {host:?}: {why}")]
    Pin {
        /// The host as written.
        host: String,
        /// Why.
        why: String,
    },
}

fn preset_names() -> String {
    PRESETS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// Parse one `network.allow` entry: a preset name or a host pattern (`example.com`,
/// `*.example.com`, `*`). IP addresses, single-label names and anything with a scheme, port or
/// path are errors that say why.
pub fn parse_allow_entry(entry: &str) -> Result<Vec<HostPattern>, ConfigError> {
    let err = |why: String| ConfigError::Allow { entry: entry.to_string(), why };
    if let Some((_, hosts)) = PRESETS.iter().find(|(n, _)| *n == entry) {
        return hosts.iter().map(|h| HostPattern::parse(h).map_err(|e| err(e.to_string()))).collect();
    }
    let pattern = HostPattern::parse(entry)
        .map_err(|e| err(format!("it is not one of the presets ({}) and not a host pattern: {e}", preset_names())))?;
    let body = entry.strip_prefix("*.").unwrap_or(entry);
    if entry != "*" {
        match parse_host(body) {
            Ok(h) if h.is_ip() => {
                return Err(err(
                    "IP addresses are never reachable through the proxy; list the host name instead".to_string()
                ))
            }
            Ok(Host::Name { ascii, .. }) if !ascii.contains('.') => {
                return Err(err(format!(
                    "it is not one of the presets ({}), and a single-label host name only resolves inside a \
                     network; write a full name such as `example.com`",
                    preset_names()
                )))
            }
            _ => {}
        }
    }
    Ok(vec![pattern])
}

/// What the policy says about a host and port before resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostVerdict {
    /// Allowed: resolve and check the addresses.
    Allow,
    /// Refused, with the reason (which names the host and the fix).
    Deny(String),
    /// Not listed: the approver decides (non-interactive: deny).
    Ask,
}

/// The network policy of one run: allowed patterns, team blocks, ports and pinned addresses.
#[derive(Debug, Clone)]
pub struct NetConfig {
    allow: Vec<HostPattern>,
    blocked: Vec<HostPattern>,
    strict_allowlist: bool,
    ports: Vec<u16>,
    /// Canonical host name → the addresses it is pinned to.
    pins: BTreeMap<String, Vec<IpAddr>>,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            allow: Vec::new(),
            blocked: Vec::new(),
            strict_allowlist: false,
            ports: DEFAULT_PORTS.to_vec(),
            pins: BTreeMap::new(),
        }
    }
}

impl NetConfig {
    /// An empty policy: nothing allowed, ports 80 and 443, every host asks.
    pub fn new() -> NetConfig {
        NetConfig::default()
    }

    /// The policy of `network.allow` entries and the team's `network` section.
    pub fn from_settings(allow: &[String], team: &TeamNetwork) -> Result<NetConfig, ConfigError> {
        let mut config = NetConfig::new();
        for entry in allow {
            config = config.allow(entry)?;
        }
        for entry in &team.blocked_hosts {
            config = config.block(entry)?;
        }
        Ok(config.strict_allowlist(team.strict_allowlist))
    }

    /// Allow a preset or host pattern (see [`parse_allow_entry`]).
    pub fn allow(mut self, entry: &str) -> Result<NetConfig, ConfigError> {
        self.allow.extend(parse_allow_entry(entry)?);
        Ok(self)
    }

    /// Block a host pattern (team `blockedHosts`): beats every allow and pin.
    pub fn block(mut self, entry: &str) -> Result<NetConfig, ConfigError> {
        let p = HostPattern::parse(entry)
            .map_err(|e| ConfigError::Blocked { entry: entry.to_string(), why: e.to_string() })?;
        self.blocked.push(p);
        Ok(self)
    }

    /// Team `strictAllowlist`: an unlisted host is denied, never asked.
    pub fn strict_allowlist(mut self, on: bool) -> NetConfig {
        self.strict_allowlist = on;
        self
    }

    /// Make `port` reachable besides 80 and 443.
    pub fn port(mut self, port: u16) -> NetConfig {
        if !self.ports.contains(&port) {
            self.ports.push(port);
        }
        self
    }

    /// Pin `host` to `addr` (repeatable): the host is allowed, the proxy connects to the pinned
    /// addresses without asking DNS, and these addresses may be private. This is the
    /// explicit-address setting for corporate mirrors. An address of this machine may be pinned,
    /// but the proxy refuses it at each connection (the machine's addresses are known only then).
    pub fn pin(mut self, host: &str, addr: IpAddr) -> Result<NetConfig, ConfigError> {
        let err = |why: String| ConfigError::Pin { host: host.to_string(), why };
        let h = parse_host(host).map_err(|e| err(e.to_string()))?;
        let Host::Name { ascii, .. } = h else {
            return Err(err("give a host name, not an address".to_string()));
        };
        if matches!(addr, IpAddr::V4(a) if a.is_unspecified() || a.is_broadcast() || a.is_multicast())
            || matches!(addr, IpAddr::V6(a) if a.is_unspecified() || a.is_multicast())
        {
            return Err(err(format!("{addr} cannot be connected to")));
        }
        let addrs = self.pins.entry(ascii).or_default();
        if !addrs.contains(&addr) {
            addrs.push(addr);
        }
        Ok(self)
    }

    /// The ports reachable.
    pub fn ports(&self) -> &[u16] {
        &self.ports
    }

    /// Whether unlisted hosts are denied rather than asked.
    pub fn is_strict(&self) -> bool {
        self.strict_allowlist
    }

    /// The pinned addresses of a host, if it is pinned.
    pub fn pinned(&self, host: &Host) -> Option<&[IpAddr]> {
        match host {
            Host::Name { ascii, .. } => self.pins.get(ascii).map(Vec::as_slice),
            _ => None,
        }
    }

    fn blocked_by(&self, host: &Host) -> Option<&HostPattern> {
        self.blocked.iter().find(|p| p.covers(host))
    }

    /// Decide `host:port` before resolution. The order: team blocks, IP literals, the port,
    /// names standing for restricted addresses (unless pinned), allow patterns and pins, then
    /// strict allowlist (deny) or ask.
    pub fn decide(&self, host: &Host, port: u16) -> HostVerdict {
        if let Some(p) = self.blocked_by(host) {
            return HostVerdict::Deny(format!(
                "{host} is blocked by team policy (network.blockedHosts entry `{p}`); no setting can allow it"
            ));
        }
        if host.is_ip() {
            return HostVerdict::Deny(format!(
                "{host} is an IP address; the proxy only connects to host names listed in network.allow \
                 (use the name, and pin it to an address in the settings if it has no public DNS)"
            ));
        }
        if !self.ports.contains(&port) {
            let ports = self.ports.iter().map(u16::to_string).collect::<Vec<_>>().join(", ");
            return HostVerdict::Deny(format!(
                "port {port} of {host} is not reachable: only ports {ports} are; name the port in the network \
                 settings to open it"
            ));
        }
        let pinned = self.pinned(host).is_some();
        if !pinned {
            if let Some(r) = classify(host) {
                return HostVerdict::Deny(format!(
                    "{host} is {r}; the proxy never reaches it unless the settings pin the name to an \
                     explicit address"
                ));
            }
        }
        if pinned || self.allow.iter().any(|p| p.matches(host)) {
            return HostVerdict::Allow;
        }
        if self.strict_allowlist {
            return HostVerdict::Deny(format!(
                "{host} is not in network.allow and team policy sets strictAllowlist (no asking); {}",
                how_to_allow(&host.to_string())
            ));
        }
        HostVerdict::Ask
    }

    /// Check the addresses `host` resolved to. Every address must pass: none blocked by an
    /// IP pattern of the team, none restricted (loopback, private, link-local, CGNAT,
    /// unspecified, multicast, metadata, IPv4-mapped or embedded forms of those) unless the
    /// host is pinned and the address is one of its pins.
    pub fn check_addrs(&self, host: &Host, addrs: &[IpAddr]) -> Result<(), String> {
        if addrs.is_empty() {
            return Err(format!("{host} did not resolve to any address"));
        }
        let pins = self.pinned(host);
        for a in addrs {
            let as_host = match a {
                IpAddr::V4(v) => Host::V4(*v),
                IpAddr::V6(v) => Host::V6(*v),
            };
            if let Some(p) = self.blocked_by(&as_host) {
                return Err(format!("{host} resolved to {a}, blocked by team policy (network.blockedHosts `{p}`)"));
            }
            if let Some(pins) = pins {
                if !pins.contains(a) {
                    return Err(format!("{host} is pinned, and {a} is not one of its pinned addresses"));
                }
                continue;
            }
            if let Some(r) = classify(&as_host) {
                return Err(restricted_answer(host, *a, r));
            }
        }
        Ok(())
    }
}

fn restricted_answer(host: &Host, a: IpAddr, r: Restricted) -> String {
    format!(
        "{host} resolved to {a}, {r}; refused so that DNS cannot point an allowed name at this machine or \
         its network (pin the name to the address in the settings if this is a mirror you trust)"
    )
}

/// One refusal, for the list the caller reads after the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// The host as canonicalised (or as written, when it could not be parsed).
    pub host: String,
    /// The port asked for.
    pub port: u16,
    /// Why.
    pub reason: String,
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.host, self.port, self.reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn h(s: &str) -> Host {
        parse_host(s).expect("host")
    }

    #[test]
    fn a_refusal_names_the_preset_that_lists_the_host() {
        let npm = how_to_allow("Registry.npmjs.org");
        assert!(npm.contains("preset `npm`") && npm.contains("wicket registries --allow"), "{npm}");
        assert_eq!(how_to_allow("x.example"), "add `x.example` (or a preset) to network.allow");
    }

    #[test]
    fn presets_and_patterns() {
        for (name, _) in PRESETS {
            assert!(parse_allow_entry(name).is_ok(), "{name}");
        }
        assert_eq!(parse_allow_entry("*.Example.COM.").expect("pattern")[0].to_string(), "*.example.com");
        let e = parse_allow_entry("npmm").expect_err("single label");
        assert!(e.to_string().contains("presets (npm, pypi"), "{e}");
        assert!(parse_allow_entry("https://example.com").is_err());
        assert!(parse_allow_entry("example.com:8080").is_err());
        let e = parse_allow_entry("10.0.0.1").expect_err("ip");
        assert!(e.to_string().contains("IP addresses"), "{e}");
    }

    #[test]
    fn decision_order() {
        let c = NetConfig::new()
            .allow("npm")
            .and_then(|c| c.allow("*.example.com"))
            .and_then(|c| c.block("evil.example.com"))
            .and_then(|c| c.pin("registry.test", IpAddr::V4(Ipv4Addr::LOCALHOST)))
            .expect("config");
        assert_eq!(c.decide(&h("REGISTRY.npmjs.org."), 443), HostVerdict::Allow);
        assert_eq!(c.decide(&h("a.example.com"), 80), HostVerdict::Allow);
        assert!(matches!(c.decide(&h("EVIL.example.com."), 443), HostVerdict::Deny(r) if r.contains("blockedHosts")));
        assert!(matches!(c.decide(&h("registry.npmjs.org"), 22), HostVerdict::Deny(r) if r.contains("port 22")));
        assert!(matches!(c.decide(&h("127.1"), 80), HostVerdict::Deny(r) if r.contains("IP address")));
        assert!(matches!(c.decide(&h("localhost"), 80), HostVerdict::Deny(_)));
        assert!(matches!(c.decide(&h("127.0.0.1.nip.io"), 80), HostVerdict::Deny(_)));
        assert_eq!(c.decide(&h("registry.test"), 80), HostVerdict::Allow);
        assert_eq!(c.decide(&h("other.org"), 443), HostVerdict::Ask);
        let strict = c.clone().strict_allowlist(true);
        assert!(matches!(strict.decide(&h("other.org"), 443), HostVerdict::Deny(r) if r.contains("strictAllowlist")));
        let blocked_pin = c.block("registry.test").expect("block");
        assert!(matches!(blocked_pin.decide(&h("registry.test"), 80), HostVerdict::Deny(_)));
    }

    /// A blocked IPv4 address is blocked in every spelling: as a resolved IPv4-mapped or NAT64
    /// IPv6 address, and as a name that encodes it.
    #[test]
    fn a_blocked_address_is_blocked_in_every_spelling() {
        let c = NetConfig::new().allow("*.example.org").and_then(|c| c.block("93.184.216.34")).expect("config");
        let mapped: IpAddr = "::ffff:93.184.216.34".parse().expect("ip");
        let nat64: IpAddr = "64:ff9b::5db8:d822".parse().expect("ip");
        for a in [IpAddr::V4(Ipv4Addr::new(93, 184, 216, 34)), mapped, nat64] {
            let r = c.check_addrs(&h("www.example.org"), &[a]);
            assert!(r.as_ref().is_err_and(|e| e.contains("blockedHosts")), "{a}: {r:?}");
        }
        assert!(c.check_addrs(&h("www.example.org"), &["93.184.216.35".parse().expect("ip")]).is_ok());
        assert!(
            matches!(c.decide(&h("93.184.216.34.nip.io"), 443), HostVerdict::Deny(r) if r.contains("blockedHosts"))
        );
    }

    #[test]
    fn every_address_is_checked() {
        let c = NetConfig::new()
            .allow("example.com")
            .and_then(|c| c.pin("mirror.corp", "10.1.2.3".parse().expect("ip")))
            .and_then(|c| c.block("203.0.113.9"))
            .expect("config");
        let ex = h("example.com");
        let ip = |s: &str| s.parse::<IpAddr>().expect("ip");
        assert!(c.check_addrs(&ex, &[ip("93.184.216.34")]).is_ok());
        for bad in ["127.0.0.1", "10.0.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1"] {
            assert!(c.check_addrs(&ex, &[ip("93.184.216.34"), ip(bad)]).is_err(), "{bad}");
        }
        assert!(c.check_addrs(&ex, &[ip("::ffff:127.0.0.1")]).is_err());
        assert!(c.check_addrs(&ex, &[ip("fe80::1")]).is_err());
        assert!(c.check_addrs(&ex, &[ip("203.0.113.9")]).is_err());
        assert!(c.check_addrs(&ex, &[]).is_err());
        assert!(c.check_addrs(&h("mirror.corp"), &[ip("10.1.2.3")]).is_ok());
        assert!(c.check_addrs(&h("mirror.corp"), &[ip("10.1.2.4")]).is_err());
    }

    #[test]
    fn from_team_settings() {
        let team = TeamNetwork { blocked_hosts: vec!["*.npmjs.org".into()], strict_allowlist: true };
        let c = NetConfig::from_settings(&["npm".into()], &team).expect("config");
        assert!(matches!(c.decide(&h("registry.npmjs.org"), 443), HostVerdict::Deny(r) if r.contains("team policy")));
        assert!(matches!(c.decide(&h("registry.yarnpkg.com"), 443), HostVerdict::Allow));
        assert!(matches!(c.decide(&h("x.org"), 443), HostVerdict::Deny(_)));
        let bad = TeamNetwork { blocked_hosts: vec!["http://x/".into()], strict_allowlist: false };
        assert!(NetConfig::from_settings(&[], &bad).is_err());
    }
}
