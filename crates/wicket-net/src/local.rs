//! This machine's own addresses, which the proxy never connects to.
//!
//! The hard question: **can any name, DNS answer or setting lead the proxy to a service
//! listening on this machine?** A service bound to the machine's network address (or to every
//! address) answers a connection to that address exactly as one to loopback, so the policy's
//! address classes are not enough: a public address of this machine looks like any public host,
//! and a person's pin of a private address may be this machine's. So every address the proxy is
//! about to connect to is compared with the addresses of every interface, read again for each
//! connection (an address added during a run is seen at the next connection), besides the
//! unspecified and loopback addresses, and an IPv6 address carrying an IPv4 one (mapped,
//! compatible, NAT64, 6to4) counts as that IPv4 address.

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use wicket_policy::host::embedded_v4;

/// Why an address is this machine's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Local {
    /// `0.0.0.0/8` or `::`: a connection to it reaches this machine.
    Unspecified,
    /// `127.0.0.0/8` or `::1`.
    Loopback,
    /// Assigned to this interface of the machine.
    Interface(String),
}

impl fmt::Display for Local {
    /// A phrase for refusal reasons.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Local::Unspecified => f.write_str("the unspecified address, which reaches this machine"),
            Local::Loopback => f.write_str("a loopback address of this machine"),
            Local::Interface(name) => write!(f, "an address of this machine (interface {name})"),
        }
    }
}

/// The addresses of this machine's interfaces at one moment.
#[derive(Debug, Clone, Default)]
pub struct LocalAddrs {
    addrs: Vec<(IpAddr, String)>,
}

impl LocalAddrs {
    /// Read the addresses of every interface now (`getifaddrs`).
    pub fn read() -> io::Result<LocalAddrs> {
        Ok(LocalAddrs { addrs: interfaces()? })
    }

    /// These addresses only (for tests of the classification).
    pub fn from_list(addrs: Vec<(IpAddr, String)>) -> LocalAddrs {
        LocalAddrs { addrs }
    }

    /// Why `a` is this machine's, or `None` when it is not. An IPv6 address carrying an IPv4
    /// address is this machine's when either is.
    pub fn of(&self, a: IpAddr) -> Option<Local> {
        match a {
            IpAddr::V4(v4) => self.of_v4(v4),
            IpAddr::V6(v6) => self.of_v6(v6).or_else(|| embedded_v4(&v6).and_then(|v4| self.of_v4(v4))),
        }
    }

    fn of_v4(&self, a: Ipv4Addr) -> Option<Local> {
        if a.octets()[0] == 0 {
            return Some(Local::Unspecified);
        }
        if a.is_loopback() {
            return Some(Local::Loopback);
        }
        self.interface(IpAddr::V4(a))
    }

    fn of_v6(&self, a: Ipv6Addr) -> Option<Local> {
        if a.is_unspecified() {
            return Some(Local::Unspecified);
        }
        if a.is_loopback() {
            return Some(Local::Loopback);
        }
        self.interface(IpAddr::V6(a))
    }

    fn interface(&self, a: IpAddr) -> Option<Local> {
        self.addrs.iter().find(|(x, _)| *x == a).map(|(_, name)| Local::Interface(name.clone()))
    }
}

/// Every address of every interface, with the interface's name. Link-local IPv6 addresses are
/// compared without their zone: the same address on another link is refused too, which only
/// costs a connection that could not have been made without a zone anyway.
#[cfg(unix)]
fn interfaces() -> io::Result<Vec<(IpAddr, String)>> {
    /// Frees the list on every way out.
    struct List(*mut libc::ifaddrs);
    impl Drop for List {
        fn drop(&mut self) {
            // SAFETY: the pointer came from a successful getifaddrs and is freed once, here.
            unsafe { libc::freeifaddrs(self.0) }
        }
    }
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs writes a list head to `head`, or fails and writes nothing to free.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let list = List(head);
    let mut out = Vec::new();
    let mut cur = list.0;
    while !cur.is_null() {
        // SAFETY: `cur` is a node of the list, which lives until `list` is dropped.
        let ifa = unsafe { &*cur };
        cur = ifa.ifa_next;
        if ifa.ifa_addr.is_null() {
            continue;
        }
        // SAFETY: a non-null ifa_addr points at a socket address whose size is that of the
        // family it names; read unaligned, as the C structure does not promise the alignment.
        let ip = unsafe {
            match i32::from((*ifa.ifa_addr).sa_family) {
                libc::AF_INET => {
                    let sin = std::ptr::read_unaligned(ifa.ifa_addr.cast::<libc::sockaddr_in>());
                    IpAddr::V4(Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)))
                }
                libc::AF_INET6 => {
                    let sin6 = std::ptr::read_unaligned(ifa.ifa_addr.cast::<libc::sockaddr_in6>());
                    IpAddr::V6(Ipv6Addr::from(sin6.sin6_addr.s6_addr))
                }
                _ => continue,
            }
        };
        let name = if ifa.ifa_name.is_null() {
            String::from("?")
        } else {
            // SAFETY: a non-null ifa_name is a NUL-terminated string owned by the list.
            unsafe { std::ffi::CStr::from_ptr(ifa.ifa_name) }.to_string_lossy().into_owned()
        };
        out.push((ip, name));
    }
    Ok(out)
}

/// Without `getifaddrs` the machine's addresses are unknown, and every connection is refused.
#[cfg(not(unix))]
fn interfaces() -> io::Result<Vec<(IpAddr, String)>> {
    Err(io::Error::other("listing this machine's addresses is not supported on this system"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn every_spelling_of_this_machine() {
        let here = LocalAddrs::from_list(vec![
            (ip("203.0.113.7"), "eth0".into()),
            (ip("2001:db8::7"), "eth0".into()),
            (ip("fe80::1"), "eth0".into()),
        ]);
        #[rustfmt::skip]
        let cases: &[(&str, Option<Local>)] = &[
            ("0.0.0.0", Some(Local::Unspecified)),
            ("0.1.2.3", Some(Local::Unspecified)),
            ("::", Some(Local::Unspecified)),
            ("::ffff:0.0.0.0", Some(Local::Unspecified)),
            ("127.0.0.1", Some(Local::Loopback)),
            ("127.8.9.10", Some(Local::Loopback)),
            ("::1", Some(Local::Loopback)),
            ("::ffff:127.0.0.1", Some(Local::Loopback)),
            ("203.0.113.7", Some(Local::Interface("eth0".into()))),
            ("::ffff:203.0.113.7", Some(Local::Interface("eth0".into()))),
            ("::203.0.113.7", Some(Local::Interface("eth0".into()))),
            ("64:ff9b::203.0.113.7", Some(Local::Interface("eth0".into()))),
            ("2002:cb00:7107::1", Some(Local::Interface("eth0".into()))),
            ("2001:db8::7", Some(Local::Interface("eth0".into()))),
            ("fe80::1", Some(Local::Interface("eth0".into()))),
            // Neighbours are not this machine.
            ("203.0.113.8", None),
            ("::ffff:203.0.113.8", None),
            ("2001:db8::8", None),
            ("fe80::2", None),
            ("93.184.216.34", None),
        ];
        for (a, want) in cases {
            assert_eq!(here.of(ip(a)), *want, "{a}");
        }
    }

    #[test]
    fn the_machine_has_at_least_loopback() {
        let here = LocalAddrs::read().expect("getifaddrs");
        assert!(here.addrs.iter().any(|(a, _)| a.is_loopback()), "{here:?}");
    }
}
