//! The wicket network allowlist proxy.
//!
//! One listener (loopback TCP and/or a unix socket) speaks HTTP `CONNECT`, absolute-form plain
//! HTTP and SOCKS5. Every target is decided by a [`NetConfig`] built from `network.allow`
//! (presets or host patterns) and the team's `network` section, resolved by the proxy, and
//! every address of the answer is checked before the proxy connects to one of exactly those
//! addresses. See `docs/network.md`.
//!
//! Not wired yet: the approver of `wicket`, the bridge into the sandbox's network namespace and
//! `wicket fetch` (items 3–5 of issue 7).

pub mod policy;
pub mod proxy;

pub use policy::{parse_allow_entry, Blocked, ConfigError, NetConfig, Verdict, DEFAULT_PORTS, PRESETS};
pub use proxy::{Ask, Credential, Proxy, ProxyConfig, ProxyError, Resolve, SystemResolver};
