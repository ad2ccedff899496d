//! `rules`: arbitrary strings through wicket-policy's parsers and matchers. The only
//! invariant is that nothing panics: rule parsing, rule sets built from the input, command /
//! path / host matching against fixed targets (and fixed rules against the input as a target),
//! host patterns, URLs, hosts, settings files and capabilities; the option tables' parser and
//! the command view built on it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wicket_policy::capability::parse_capability;
use wicket_policy::host::{parse_host, parse_url, HostPattern};
use wicket_policy::rules::{GlobOptions, PathView};
use wicket_policy::settings::Settings;
use wicket_policy::{Rule, RuleSet};

const TOOLS: &[&str] = &["bash", "read_file", "write_file", "edit", "web_fetch", "mcp__srv__tool", "*"];
const COMMANDS: &[&str] = &["git status", "rm -rf /", "npm test -- --watch", "", "ls  -la", "é ü"];
const PATHS: &[(Option<&str>, &str)] = &[
    (Some("src/main.rs"), "/work/p/src/main.rs"),
    (Some(".env"), "/work/p/.env"),
    (None, "/etc/passwd"),
    (None, "/home/u/.ssh/id_rsa"),
    (Some("a/b/../c"), "/work/p/a/b/../c"),
];
const HOSTS: &[&str] = &["example.com", "api.github.com", "127.0.0.1", "[::1]", "xn--bcher-kva.example", "a.b.c.d"];
const FIXED_RULES: &[&str] = &[
    "bash(git *)",
    "bash(rm -rf*)",
    "bash(npm test:*)",
    "read_file(src/**)",
    "write_file(/etc/**)",
    "read_file(~/.ssh/**)",
    "web_fetch(domain:*.example.com)",
    "web_fetch(domain:api.github.com)",
    "mcp__srv",
];

fn exercise(set: &RuleSet, tool: &str, command: &str, path: PathView<'_>) {
    let _ = set.match_command(tool, command);
    let _ = set.first_path(tool, path);
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The input as one string, and split into a few pieces for the list APIs.
    let pieces: Vec<&str> = text.split('\n').take(8).collect();

    let _ = Rule::parse(text);
    for p in &pieces {
        let _ = Rule::parse(p);
        // The option grammar (issue 14, class 5): every table's parser, the risky flags and
        // the write targets, on the piece split into words.
        let words: Vec<&str> = p.split(' ').collect();
        let _ = wicket_policy::flags::risky_flags(&words);
        let maybe: Vec<Option<&str>> = words.iter().map(|w| Some(*w)).collect();
        let _ = wicket_policy::flags::write_args(&maybe);
        if let Some(table) = words.first().and_then(|w| wicket_policy::options::program(w)) {
            let parsed = table.parse(&words[1..]);
            let _ = (parsed.reads(), parsed.writes(), parsed.normal_form(words[0]));
        }
    }
    // The whole command view (loop words expanded, class 9).
    let _ = wicket_policy::command::view(text);

    for opts in [GlobOptions::default(), GlobOptions { case_insensitive: true }] {
        let home = Some("/home/u");
        // Rules from the input, against fixed targets.
        let valid: Vec<&str> = pieces.iter().copied().filter(|p| Rule::parse(p).is_ok()).collect();
        let _ = RuleSet::parse(&pieces, home, opts);
        if let Ok(set) = RuleSet::parse(&valid, home, opts) {
            for tool in TOOLS {
                for (i, cmd) in COMMANDS.iter().enumerate() {
                    let (rel, abs) = PATHS[i % PATHS.len()];
                    exercise(&set, tool, cmd, PathView { rel, abs });
                }
                for h in HOSTS {
                    if let Ok(host) = parse_host(h) {
                        let _ = set.match_host(tool, &host);
                    }
                }
            }
        }
        // Fixed rules, against the input as a target.
        if let Ok(set) = RuleSet::parse(FIXED_RULES, home, opts) {
            for tool in TOOLS {
                exercise(&set, tool, text, PathView { rel: Some(text), abs: text });
                exercise(&set, tool, text, PathView { rel: None, abs: text });
            }
            if let Ok(host) = parse_host(text) {
                let _ = set.match_host("web_fetch", &host);
            }
            if let Ok(url) = parse_url(text) {
                let _ = set.match_host("web_fetch", &url.host);
            }
        }
    }

    // Host patterns from the input against fixed hosts, fixed patterns against input hosts.
    let host = parse_host(text).ok();
    let url = parse_url(text).ok();
    for p in &pieces {
        if let Ok(pattern) = HostPattern::parse(p) {
            for h in HOSTS {
                if let Ok(h) = parse_host(h) {
                    let _ = pattern.matches(&h);
                }
            }
            if let Some(h) = &host {
                let _ = pattern.matches(h);
            }
        }
    }
    for p in ["*", "*.example.com", "example.com", "127.0.0.1", "[::1]", "xn--bcher-kva.example"] {
        if let Ok(pattern) = HostPattern::parse(p) {
            if let Some(h) = &host {
                let _ = pattern.matches(h);
            }
            if let Some(u) = &url {
                let _ = pattern.matches(&u.host);
            }
        }
    }

    let _ = Settings::parse(text, "fuzz.json");
    let _ = parse_capability(text);
    for p in &pieces {
        let _ = parse_capability(p);
    }
});
