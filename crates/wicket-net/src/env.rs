//! The environment that points a sandboxed command's tools at the proxy.
//!
//! The hard question: will the common tools really use the proxy, and can a loopback service of
//! the command's own be reached without it? Each tool family reads its own variable (curl and
//! Python the `*_PROXY` pair in either case, npm its `npm_config_*`, pip `PIP_PROXY`, cargo
//! `CARGO_HTTP_PROXY`, git `http.proxy`, Node's built-in fetch only with `NODE_USE_ENV_PROXY`),
//! so all are set; loopback names stay direct (`NO_PROXY`). A tool that ignores all of them
//! simply has no network: the sandbox has no route out.

/// The hosts that never go through the proxy.
pub const NO_PROXY: &str = "localhost,127.0.0.1,::1";

/// The variables for a proxy at `url` (`http://user:password@127.0.0.1:PORT`), in a fixed order.
pub fn proxy_env(url: &str) -> Vec<(String, String)> {
    let mut env = Vec::new();
    let mut set = |k: &str, v: &str| env.push((k.to_string(), v.to_string()));
    for name in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] {
        set(name, url);
        set(&name.to_ascii_lowercase(), url);
    }
    set("NO_PROXY", NO_PROXY);
    set("no_proxy", NO_PROXY);
    set("npm_config_proxy", url);
    set("npm_config_https_proxy", url);
    set("npm_config_noproxy", NO_PROXY);
    set("YARN_HTTP_PROXY", url);
    set("YARN_HTTPS_PROXY", url);
    set("PIP_PROXY", url);
    set("CARGO_HTTP_PROXY", url);
    // git reads configuration from the environment (git ≥ 2.31): no file is written.
    set("GIT_CONFIG_COUNT", "1");
    set("GIT_CONFIG_KEY_0", "http.proxy");
    set("GIT_CONFIG_VALUE_0", url);
    set("NODE_USE_ENV_PROXY", "1");
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_family_is_pointed_at_the_proxy() {
        let env = proxy_env("http://u:p@127.0.0.1:3128");
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        for k in ["HTTP_PROXY", "https_proxy", "ALL_PROXY", "npm_config_https_proxy", "PIP_PROXY", "GIT_CONFIG_VALUE_0"]
        {
            assert_eq!(get(k), Some("http://u:p@127.0.0.1:3128"), "{k}");
        }
        assert_eq!(get("no_proxy"), Some(NO_PROXY));
        assert_eq!(get("NODE_USE_ENV_PROXY"), Some("1"));
    }
}
