//! ssh settings (`-o Key=Value`, `Key Value`). The hard question: does this setting run a
//! command or load code (`ProxyCommand`, `LocalCommand`, `PKCS11Provider`, `Include` …)?

/// An ssh `-o Key=Value` (or `Key Value`) setting that runs a command or loads code.
pub fn setting_runs(setting: &str) -> bool {
    let key = setting.split(['=', ' ', '\t']).next().unwrap_or("").to_ascii_lowercase();
    matches!(
        key.as_str(),
        "proxycommand"
            | "localcommand"
            | "permitlocalcommand"
            | "proxyusefdpass"
            | "pkcs11provider"
            | "securitykeyprovider"
            | "knownhostscommand"
            | "include"
            | "controlpath"
            | "identityagent"
            | "remotecommand"
            | "match"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn settings_that_run() {
        for risky in ["ProxyCommand=sh", "proxycommand sh", "LocalCommand=id", "Include=/tmp/x", "Match exec id"] {
            assert!(super::setting_runs(risky), "{risky}");
        }
        for plain in ["StrictHostKeyChecking=no", "Port=22", "BatchMode yes"] {
            assert!(!super::setting_runs(plain), "{plain}");
        }
    }
}
