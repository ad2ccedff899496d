//! Table-driven cases for `wicket_policy::host` (fixture: `tests/cases/hosts.txt`) and property
//! tests: wildcards never match their bare domain, IP literals never match name patterns,
//! `parse_url` never panics, and case/trailing-dot spellings of a host match the same patterns.

use proptest::prelude::*;
use std::net::Ipv4Addr;

use wicket_policy::host::{classify, parse_host, parse_url, spelled_v4, Host, HostPattern, UrlError};

const CASES: &str = include_str!("cases/hosts.txt");

/// Replace `\u{XXXX}` escapes with the character.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("\\u{") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 3..];
        let Some(end) = tail.find('}') else {
            panic!("unterminated \\u{{ escape in {s:?}");
        };
        let Some(c) = u32::from_str_radix(&tail[..end], 16).ok().and_then(char::from_u32) else {
            panic!("bad \\u{{}} escape in {s:?}");
        };
        out.push(c);
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    out
}

fn error_kind(e: &UrlError) -> &'static str {
    match e {
        UrlError::Empty => "empty",
        UrlError::Syntax { .. } => "syntax",
        UrlError::Scheme { .. } => "scheme",
        UrlError::Userinfo { .. } => "userinfo",
        UrlError::NoHost { .. } => "nohost",
        UrlError::Ambiguous { .. } => "ambiguous",
        UrlError::Host { .. } => "host",
        UrlError::Pattern { .. } => "pattern",
    }
}

/// Run one fixture line; `Err` describes the failure.
fn run_case(line: &str) -> Result<(), String> {
    let cols: Vec<&str> = line.split('|').map(str::trim).collect();
    let [input, pattern, expect] = cols[..] else {
        return Err("expected three `|`-separated columns".to_string());
    };
    let input = unescape(input);
    let expects: Vec<&str> = expect.split_whitespace().collect();
    if expects.is_empty() {
        return Err("no expectations".to_string());
    }
    let want_error = expects.iter().find_map(|e| e.strip_prefix("error:"));

    let pattern = if pattern == "-" {
        None
    } else {
        match HostPattern::parse(&unescape(pattern)) {
            Ok(p) => {
                // The canonical text parses back to the same pattern.
                let again = HostPattern::parse(&p.to_string())
                    .map_err(|e| format!("canonical pattern {p} does not re-parse: {e}"))?;
                if again != p {
                    return Err(format!("pattern {p} re-parses differently: {again:?}"));
                }
                Some(p)
            }
            Err(e) if want_error == Some("pattern") => {
                let msg = e.to_string();
                if !msg.contains("`*.example.com`") {
                    return Err(format!("pattern error does not show the forms: {msg}"));
                }
                return Ok(());
            }
            Err(e) => return Err(format!("pattern refused: {e}")),
        }
    };
    if input == "-" {
        return match want_error {
            Some("pattern") => Err("pattern was accepted".to_string()),
            _ => Ok(()),
        };
    }

    let (host, port) = if let Some(bare) = input.strip_prefix("host=") {
        (parse_host(bare), None)
    } else {
        match parse_url(&input) {
            Ok(u) => (Ok(u.host), Some(u.port)),
            Err(e) => (Err(e), None),
        }
    };
    let host = match (host, want_error) {
        (Err(e), Some(kind)) if error_kind(&e) == kind => {
            // Messages quote the input (userinfo is redacted) and say what to do.
            let msg = e.to_string();
            if msg.len() < 30 {
                return Err(format!("error message too terse: {msg}"));
            }
            return Ok(());
        }
        (Err(e), _) => return Err(format!("refused: {e} (kind {})", error_kind(&e))),
        (Ok(h), Some(kind)) => return Err(format!("accepted as {h:?}, expected error:{kind}")),
        (Ok(h), None) => h,
    };

    for e in &expects {
        let ok = match *e {
            "match" | "nomatch" => {
                let Some(p) = &pattern else {
                    return Err(format!("`{e}` needs a pattern"));
                };
                p.matches(&host) == (*e == "match")
            }
            "covers" | "nocover" => {
                let Some(p) = &pattern else {
                    return Err(format!("`{e}` needs a pattern"));
                };
                p.covers(&host) == (*e == "covers")
            }
            "public" => classify(&host).is_none(),
            "unicode" | "ascii" => {
                matches!(&host, Host::Name { unicode, .. } if *unicode == (*e == "unicode"))
            }
            other => {
                if let Some(kind) = other.strip_prefix("restricted:") {
                    classify(&host).map(|r| r.id()) == Some(kind)
                } else if let Some(text) = other.strip_prefix("host:") {
                    host.to_string() == text
                } else if let Some(n) = other.strip_prefix("port:") {
                    port.map(|p| p.to_string()).as_deref() == Some(n)
                } else {
                    return Err(format!("unknown expectation {other:?}"));
                }
            }
        };
        if !ok {
            return Err(format!(
                "expectation {e} failed: host {host:?} (shown {host}), port {port:?}, \
                 classify {:?}, pattern {:?}",
                classify(&host),
                pattern.as_ref().map(|p| p.to_string()),
            ));
        }
    }
    Ok(())
}

#[test]
fn fixture_cases() {
    let mut ran = 0;
    let mut failures = Vec::new();
    for (n, line) in CASES.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        ran += 1;
        if let Err(why) = run_case(line) {
            failures.push(format!("hosts.txt:{}: {line}\n    {why}", n + 1));
        }
    }
    println!("host cases: {ran} ran, {} failed", failures.len());
    assert!(ran >= 60, "only {ran} cases");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn restricted_display_names_the_kind() {
    let host = parse_host("169.254.169.254").unwrap();
    let r = classify(&host).unwrap();
    assert_eq!(r.to_string(), "a cloud metadata endpoint");
}

#[test]
fn url_error_messages_quote_input() {
    let e = parse_url("ftp://files.example.com/x").unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("\"ftp://files.example.com/x\""), "{msg}");
    assert!(msg.contains("`ftp:`") && msg.contains("https://"), "{msg}");
    let e = parse_url("http://me:hunter2@example.com/").unwrap_err();
    assert!(!e.to_string().contains("hunter2"), "{e}");
    assert!(!format!("{e:?}").contains("hunter2"), "{e:?}");
}

/// A DNS label: lowercase letters, digits, inner hyphens; never all digits (that would be an
/// IPv4 part) and never `xn--`.
fn label() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9-]{0,10}[a-z0-9]|[a-z]".prop_filter("no xn--", |l| !l.starts_with("xn--"))
}

fn domain() -> impl Strategy<Value = String> {
    prop::collection::vec(label(), 1..4).prop_map(|ls| ls.join("."))
}

fn ip_host() -> impl Strategy<Value = Host> {
    prop_oneof![any::<[u8; 4]>().prop_map(|o| Host::V4(o.into())), any::<[u16; 8]>().prop_map(|s| Host::V6(s.into())),]
}

/// Randomly uppercase some characters and maybe add a trailing dot.
fn respell(s: &str, mask: u64, dot: bool) -> String {
    let mut out: String = s
        .chars()
        .enumerate()
        .map(|(i, c)| if mask >> (i % 64) & 1 == 1 { c.to_ascii_uppercase() } else { c })
        .collect();
    if dot {
        out.push('.');
    }
    out
}

proptest! {
    #[test]
    fn wildcard_never_matches_its_domain(d in domain(), mask: u64, dot: bool) {
        let p = HostPattern::parse(&format!("*.{d}")).unwrap();
        let bare = parse_host(&respell(&d, mask, dot)).unwrap();
        prop_assert!(!p.matches(&bare));
        let url = parse_url(&format!("https://{}/", respell(&d, mask, dot))).unwrap();
        prop_assert!(!p.matches(&url.host));
    }

    #[test]
    fn wildcard_matches_subdomains(d in domain(), sub in domain()) {
        let p = HostPattern::parse(&format!("*.{d}")).unwrap();
        let host = parse_host(&format!("{sub}.{d}")).unwrap();
        prop_assert!(p.matches(&host));
    }

    #[test]
    fn ip_literal_never_matches_a_name_pattern(ip in ip_host(), d in domain(), wild: bool) {
        let text = if wild { format!("*.{d}") } else { d.clone() };
        for p in [HostPattern::parse(&text).unwrap(), HostPattern::parse("*").unwrap()] {
            prop_assert!(!p.matches(&ip));
        }
        // Spelled in a URL, the IP is still an IP.
        let url = parse_url(&format!("http://{ip}/")).unwrap();
        prop_assert_eq!(&url.host, &ip);
        // Only the same literal matches.
        prop_assert!(HostPattern::parse(&ip.to_string()).unwrap().matches(&ip));
    }

    #[test]
    fn parse_url_never_panics(s in any::<String>()) {
        let _ = parse_url(&s);
        let _ = parse_host(&s);
        let _ = HostPattern::parse(&s);
    }

    #[test]
    fn parse_url_never_panics_on_url_like(s in "(https?|ftp|HTTP):[/\\\\]{0,3}[a-z0-9@:.\\[\\]%#?/\\\\ \t-]{0,30}") {
        let _ = parse_url(&s);
    }

    #[test]
    fn spellings_match_the_same_patterns(
        d in domain(),
        other in domain(),
        mask: u64,
        dot: bool,
        pmask: u64,
        pdot: bool,
    ) {
        let canonical = parse_host(&d).unwrap();
        let respelled = parse_url(&format!("http://{}:8080/x", respell(&d, mask, dot))).unwrap().host;
        prop_assert_eq!(&respelled, &canonical);
        let parent = d.split_once('.').map(|(_, p)| p.to_string()).unwrap_or_else(|| other.clone());
        for text in [d.clone(), format!("*.{parent}"), other.clone(), format!("*.{other}"), "*".to_string()] {
            let p = HostPattern::parse(&respell(&text, pmask, pdot && text != "*")).unwrap();
            prop_assert_eq!(p.matches(&canonical), p.matches(&respelled));
            prop_assert_eq!(&p, &HostPattern::parse(&text).unwrap());
        }
        prop_assert!(HostPattern::parse(&respell(&d, pmask, pdot)).unwrap().matches(&respelled));
    }
}

/// The number of ways [`spell_v4`] writes an IPv4 address.
const SPELLINGS: usize = 17;

/// One of the ways to write `a` in a URL that a client or a resolver takes to mean `a`: the
/// WHATWG IPv4 forms (decimal, hex, octal, short), IPv6 forms with `a` inside (mapped,
/// compatible, NAT64, 6to4), and names of rebinding services (dotted, dashed, hex).
fn spell_v4(a: Ipv4Addr, k: usize) -> String {
    let [o0, o1, o2, o3] = a.octets();
    let n = u32::from(a);
    let (hi, lo) = ((n >> 16) as u16, n as u16);
    let body = match k {
        0 => format!("{a}"),
        1 => format!("{n}"),
        2 => format!("0x{n:x}"),
        3 => format!("0X{n:08X}"),
        4 => format!("0{o0:o}.0{o1:o}.0{o2:o}.0{o3:o}"),
        5 => format!("0x{o0:x}.0x{o1:x}.0x{o2:x}.0x{o3:x}"),
        6 => format!("{o0}.{o1}.{}", (n & 0xffff)),
        7 => format!("{o0}.{}", (n & 0xff_ffff)),
        8 => format!("[::ffff:{a}]"),
        9 => format!("[::ffff:{hi:x}:{lo:x}]"),
        10 => format!("[0:0:0:0:0:FFFF:{hi:04X}:{lo:04X}]"),
        11 => format!("[64:ff9b::{a}]"),
        12 => format!("[2002:{hi:x}:{lo:x}::1]"),
        // IPv4-compatible needs a non-zero high half, else it is `::` or `::1`-like.
        13 if hi != 0 => format!("[::{a}]"),
        14 => format!("{a}.nip.io"),
        15 => format!("app-{o0}-{o1}-{o2}-{o3}.sslip.io"),
        16 => format!("{n:08x}.nip.io"),
        _ => format!("{a}"),
    };
    format!("http://{body}/")
}

proptest! {
    /// A deny rule for an IPv4 address reaches every spelling of it, and no spelling of
    /// another address; an IP spelling is classified like the address itself, and a
    /// rebinding name is never public.
    #[test]
    fn an_ipv4_rule_covers_every_spelling(o: [u8; 4], other: [u8; 4], k in 0..SPELLINGS) {
        let a = Ipv4Addr::from(o);
        let url = spell_v4(a, k);
        let host = parse_url(&url).map_err(|e| TestCaseError::fail(format!("{url}: {e}")))?.host;
        let rule = HostPattern::parse(&a.to_string()).unwrap();
        prop_assert!(rule.covers(&host), "{} does not cover {} ({:?})", rule, url, host);
        prop_assert_eq!(spelled_v4(&host).contains(&a), true);
        let b = Ipv4Addr::from(other);
        if b != a {
            let rule_b = HostPattern::parse(&b.to_string()).unwrap();
            prop_assert!(!rule_b.covers(&host), "{} covers {} ({:?})", rule_b, url, host);
        }
        match &host {
            Host::Name { .. } => prop_assert!(classify(&host).is_some(), "{url} is a rebinding name"),
            _ => prop_assert_eq!(classify(&host), classify(&Host::V4(a)), "{}", url),
        }
    }

    /// Allow rules stay narrow: an IPv4 allow rule matches only the IPv4 address itself, never
    /// an IPv6 or name spelling of it.
    #[test]
    fn an_ipv4_allow_rule_matches_only_the_address(o: [u8; 4], k in 8..SPELLINGS) {
        let a = Ipv4Addr::from(o);
        let host = parse_url(&spell_v4(a, k)).unwrap().host;
        let rule = HostPattern::parse(&a.to_string()).unwrap();
        prop_assert_eq!(rule.matches(&host), host == Host::V4(a));
    }
}
