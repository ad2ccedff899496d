//! The macOS Seatbelt profile (`sandbox-exec -p PROFILE`) for an exec policy.
//!
//! The hard question: the same walls as on Linux, in Seatbelt's language. Reads are allowed but
//! for the secrets; writes only beneath the writable paths, minus the read-only holes; no
//! network; no starting other apps through Launch Services. Generated here and unit-tested on
//! every platform; it runs only on macOS.

use wicket_planner::exec::ExecPolicy;

/// Quote a path as a Seatbelt string literal.
fn lit(p: &std::path::Path) -> String {
    let s = p.to_string_lossy();
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32 & 0xff)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The profile text.
pub fn profile(policy: &ExecPolicy) -> String {
    let mut p = String::from("(version 1)\n(deny default)\n");
    p.push_str("(allow process-exec process-fork signal (target same-sandbox))\n");
    p.push_str("(allow sysctl-read mach-lookup ipc-posix-shm iokit-open pseudo-tty)\n");
    p.push_str("(allow file-read*)\n");
    // The sealed folders (the homes) are hidden but for their readable parts and the writable
    // paths in them; the secrets' denials come after, so they hold inside those too.
    for s in &policy.sealed {
        p.push_str(&format!("(deny file-read* (subpath {}))\n", lit(s)));
        p.push_str(&format!("(allow file-read-metadata (literal {}))\n", lit(s)));
    }
    if !policy.sealed.is_empty() {
        for r in policy.sealed_readable.iter().chain(&policy.writable) {
            p.push_str(&format!("(allow file-read* (subpath {}))\n", lit(r)));
        }
    }
    for u in &policy.unreadable {
        p.push_str(&format!("(deny file-read* (subpath {}))\n", lit(u)));
    }
    p.push_str("(allow file-write* (literal \"/dev/null\") (literal \"/dev/tty\") (regex #\"^/dev/ttys[0-9]+$\"))\n");
    for w in &policy.writable {
        p.push_str(&format!("(allow file-write* (subpath {}))\n", lit(w)));
    }
    for (h, dir) in &policy.read_only {
        let kind = if *dir { "subpath" } else { "literal" };
        p.push_str(&format!("(deny file-write* ({kind} {}))\n", lit(h)));
    }
    if policy.network {
        p.push_str("(allow network*)\n");
    } else {
        p.push_str("(deny network*)\n(allow network* (local unix-socket))\n");
    }
    p.push_str("(deny lsopen)\n");
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn profile_states_every_wall() {
        let policy = ExecPolicy {
            root: PathBuf::from("/Users/a/proj"),
            writable: vec![PathBuf::from("/Users/a/proj"), PathBuf::from("/private/tmp")],
            read_only: vec![
                (PathBuf::from("/Users/a/proj/.git/hooks"), true),
                (PathBuf::from("/Users/a/proj/.mcp.json"), false),
            ],
            placeholders: vec![],
            must_not_appear: vec![],
            git_dirs: vec![],
            git_watch: None,
            state_dir: None,
            private_temp: vec![],
            unreadable: vec![PathBuf::from("/Users/a/.ssh"), PathBuf::from("/Users/a/we\"ird")],
            denied: vec![],
            masked: vec![],
            network: false,
            env_allow: vec![],
            timeout: None,
            output_cap: 100,
            caches: vec![],
            state: vec![],
            stage: None,
            sealed: vec![PathBuf::from("/Users/a")],
            sealed_readable: vec![PathBuf::from("/Users/a/.cargo/bin")],
            guard: None,
            pinned: vec![],
            notices: vec![],
            shadow_watch: None,
        };
        let text = profile(&policy);
        for want in [
            "(deny default)",
            "(deny file-read* (subpath \"/Users/a/.ssh\"))",
            "(deny file-read* (subpath \"/Users/a\"))",
            "(allow file-read* (subpath \"/Users/a/.cargo/bin\"))",
            "(allow file-read* (subpath \"/Users/a/proj\"))",
            "(allow file-write* (subpath \"/Users/a/proj\"))",
            "(deny file-write* (subpath \"/Users/a/proj/.git/hooks\"))",
            "(deny file-write* (literal \"/Users/a/proj/.mcp.json\"))",
            "(deny network*)",
            "(deny lsopen)",
            "\"/Users/a/we\\\"ird\"",
        ] {
            assert!(text.contains(want), "missing {want} in\n{text}");
        }
        // The home's seal comes before what is readable in it, and the secrets after both.
        let at = |t: &str| text.find(t).unwrap_or(usize::MAX);
        assert!(at("(deny file-read* (subpath \"/Users/a\"))") < at("(allow file-read* (subpath \"/Users/a/proj\"))"));
        assert!(
            at("(allow file-read* (subpath \"/Users/a/proj\"))") < at("(deny file-read* (subpath \"/Users/a/.ssh\"))")
        );
        // Denials of holes come after the writable allows: in Seatbelt the last match wins.
        assert!(
            text.find("(deny file-write* (subpath \"/Users/a/proj/.git/hooks\"))")
                > text.find("(allow file-write* (subpath \"/Users/a/proj\"))")
        );
    }
}
