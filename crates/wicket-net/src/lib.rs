//! The wicket network allowlist proxy.
//!
//! One listener (loopback TCP and/or a unix socket) speaks HTTP `CONNECT`, absolute-form plain
//! HTTP and SOCKS5. Every target is decided by a [`NetConfig`] built from `network.allow`
//! (presets or host patterns) and the team's `network` section, resolved by the proxy, and
//! every address of the answer is checked before the proxy connects to one of exactly those
//! addresses, none of which may be this machine's own ([`local`]). See `docs/network.md`.
//!
//! [`env::proxy_env`] is what a sandboxed command gets to use the proxy; [`fetch`] is the
//! fetch-time guard for an agent's own `web_fetch` (each redirect decided again).

pub mod env;
pub mod fetch;
mod framing;
pub mod local;
pub mod policy;
pub mod proxy;
mod splice;

pub use policy::{parse_allow_entry, Blocked, ConfigError, HostVerdict, NetConfig, DEFAULT_PORTS, PRESETS};
pub use proxy::{
    Ask, BlockHook, Credential, HostAnswer, Proxy, ProxyConfig, ProxyError, Resolve, SystemResolver, TableResolver,
    MAX_SPLICING,
};
