//! The program catalogue (`crates/wicket-programs`) is the one place where program names are
//! written. This test reads the non-test sources of every other crate and fails when a
//! catalogued program's name appears there as a string literal, or as a pattern of a `match`
//! (`"npm" | "pnpm" =>`) or of a comparison (`name == "git"`), unless the place is listed below
//! with why the word is not a program looked up there (a JSON key, an agent's tool name, a bash
//! keyword). A new copy of a program's name fails; so does a listed place that no longer holds
//! the word, so the list only shrinks. There is no "leftover" reason: a program fact found
//! outside the catalogue moves into its record. (Issue 38: three lists of shells let `ash -c` past a deny rule that `zsh -c`
//! met; two definitions of a device path let `curl -o /dev/fd/3/../../x` write `x`.)

#![allow(clippy::expect_used)] // test set-up: a source that cannot be read is a broken test, not input.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Why a catalogued name may stand in a file outside the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Why {
    /// The word is not a program there: a JSON key, an agent's tool or argument name, a URL
    /// scheme, a git configuration section, sub-command or boolean value, an environment
    /// variable's value, a word of an MCP tool's name, a package ecosystem, a folder name.
    NotAProgram,
    /// Bash's own grammar, where a bash script is read (the shell reader, the direnv reader):
    /// reserved words (`time`, `coproc`), builtins bash runs itself with a meaning of their own
    /// (`command`, `eval`, `source`, `printf -v NAME`), tree-sitter node kinds.
    BashSyntax,
    /// Wicket runs this program itself, found by its name (its git helper; `wicket doctor`'s
    /// node, which loads OpenCode's plugin to see that it works; `true`, which the sandbox
    /// probe starts inside bubblewrap).
    RunsIt,
    /// A whole command line, compared as the text written (the exact safe list's `ls`): policy
    /// about that one command, not a program looked up by its name.
    ExactCommand,
}

/// The places a catalogued name may stand outside the catalogue: (file, names, why).
const ALLOWED: &[(&str, &[&str], Why)] = &[
    ("crates/wicket-net/src/fetch.rs", &["http", "https"], Why::NotAProgram),
    // The `/dev/fd` link bubblewrap makes, and the system call's name in an error.
    ("crates/wicket-sandbox/src/native.rs", &["fd", "setsid"], Why::NotAProgram),
    ("crates/wicket-net/src/policy.rs", &["cargo", "go", "npm"], Why::NotAProgram),
    ("crates/wicket-net/src/proxy.rs", &["http", "timeout"], Why::NotAProgram),
    (
        "crates/wicket-planner/src/direnv.rs",
        &["alias", "builtin", "command", "coproc", "eval", "exec", "source", "time", "trap"],
        Why::BashSyntax,
    ),
    (
        "crates/wicket-planner/src/direnv.rs",
        &["go", "julia", "node", "perl", "php", "pipenv", "python", "python2", "python3", "ruby", "sh", "vim"],
        Why::NotAProgram,
    ),
    ("crates/wicket-planner/src/exec.rs", &["grep"], Why::NotAProgram),
    ("crates/wicket-planner/src/pointers.rs", &["alias", "false", "true"], Why::NotAProgram),
    ("crates/wicket-planner/src/sealed.rs", &["env", "git"], Why::NotAProgram),
    (
        "crates/wicket-policy/src/call.rs",
        &[
            "bash", "cat", "chmod", "chown", "cmd", "command", "exec", "fetch", "file", "find", "ftp", "grep", "http",
            "https", "install", "kill", "ls", "make", "mkdir", "patch", "scp", "script", "sftp", "sh", "source", "ssh",
            "stat", "telnet", "tftp", "touch", "unlink", "unzip", "view", "zsh",
        ],
        Why::NotAProgram,
    ),
    ("crates/wicket-policy/src/command.rs", &["exec"], Why::NotAProgram),
    ("crates/wicket-policy/src/command.rs", &["ls"], Why::ExactCommand),
    ("crates/wicket-policy/src/engine.rs", &["bash", "command", "grep"], Why::NotAProgram),
    ("crates/wicket-policy/src/examples.rs", &["bash", "command", "grep"], Why::NotAProgram),
    ("crates/wicket-policy/src/gitalias.rs", &["bundle", "diff", "fetch", "grep", "mv", "rm"], Why::NotAProgram),
    (
        "crates/wicket-policy/src/gitconfig.rs",
        &["alias", "cmd", "command", "diff", "false", "fetch", "grep", "http", "local", "man", "mv", "rm", "true"],
        Why::NotAProgram,
    ),
    ("crates/wicket-policy/src/host.rs", &["http", "https", "local"], Why::NotAProgram),
    ("crates/wicket-policy/src/rules.rs", &["bash", "grep"], Why::NotAProgram),
    ("crates/wicket-otel/src/config.rs", &["true"], Why::NotAProgram),
    ("crates/wicket-sandbox/src/probe.rs", &["true"], Why::RunsIt),
    ("crates/wicket-sandbox/src/shells.rs", &["make"], Why::NotAProgram),
    ("crates/wicket-shell/src/parse.rs", &["command"], Why::BashSyntax),
    (
        "crates/wicket-shell/src/walk.rs",
        &[
            "alias",
            "command",
            "coproc",
            "declare",
            "eval",
            "exec",
            "export",
            "local",
            "mapfile",
            "printf",
            "readarray",
            "readonly",
            "source",
            "typeset",
        ],
        Why::BashSyntax,
    ),
    ("crates/wicket/src/agents/claude.rs", &["bash", "command", "grep"], Why::NotAProgram),
    ("crates/wicket/src/agents/codex.rs", &["bash", "command"], Why::NotAProgram),
    ("crates/wicket/src/agents/copilot.rs", &["bash", "command", "grep", "view"], Why::NotAProgram),
    ("crates/wicket/src/agents/droid.rs", &["bash", "command", "grep"], Why::NotAProgram),
    ("crates/wicket/src/agents/gemini.rs", &["bash", "command", "grep"], Why::NotAProgram),
    ("crates/wicket/src/agents/opencode.rs", &["bash", "command", "grep", "patch"], Why::NotAProgram),
    ("crates/wicket/src/agents/qwen.rs", &["bash", "command"], Why::NotAProgram),
    ("crates/wicket/src/approver/render.rs", &["bash", "command", "exec", "grep", "sh"], Why::NotAProgram),
    ("crates/wicket/src/audit.rs", &["true"], Why::NotAProgram),
    ("crates/wicket/src/audit_cmd.rs", &["bash"], Why::NotAProgram),
    ("crates/wicket/src/check_cmd.rs", &["bash"], Why::NotAProgram),
    ("crates/wicket/src/codex_trust.rs", &["command", "timeout", "type"], Why::NotAProgram),
    ("crates/wicket/src/doctor_cmd.rs", &["bash", "command", "timeout"], Why::NotAProgram),
    ("crates/wicket/src/doctor_cmd.rs", &["git", "node"], Why::RunsIt),
    ("crates/wicket/src/gitcache.rs", &["local"], Why::NotAProgram),
    ("crates/wicket/src/gitconfig.rs", &["git"], Why::RunsIt),
    ("crates/wicket/src/hook_core.rs", &["bash", "command"], Why::NotAProgram),
    ("crates/wicket/src/init_cmd.rs", &["command", "timeout", "type"], Why::NotAProgram),
    ("crates/wicket/src/mcp_cmd/gateway.rs", &["type"], Why::NotAProgram),
    ("crates/wicket/src/mcp_cmd/mod.rs", &["type"], Why::NotAProgram),
    ("crates/wicket/src/init_agents.rs", &["bash", "command", "timeout", "type"], Why::NotAProgram),
    ("crates/wicket/src/hook_claude.rs", &["command"], Why::NotAProgram),
    ("crates/wicket/src/hook_codex.rs", &["command"], Why::NotAProgram),
    ("crates/wicket/src/hook_copilot.rs", &["bash", "command", "view"], Why::NotAProgram),
    ("crates/wicket/src/hook_droid.rs", &["command"], Why::NotAProgram),
    ("crates/wicket/src/hook_gemini.rs", &["command"], Why::NotAProgram),
    ("crates/wicket/src/hook_opencode.rs", &["bash", "command"], Why::NotAProgram),
    ("crates/wicket/src/hook_qwen.rs", &["command"], Why::NotAProgram),
    ("crates/wicket/src/policy_cmd.rs", &["bash"], Why::NotAProgram),
    // The agent tools `bash` and `grep` and the JSON key `command` of a call rebuilt from the log.
    ("crates/wicket/src/policy_suggest.rs", &["bash", "command", "grep"], Why::NotAProgram),
    ("crates/wicket/src/registries.rs", &["cargo", "composer", "go", "npm", "pip"], Why::NotAProgram),
    ("crates/wicket/src/run_cmd.rs", &["bash", "command"], Why::NotAProgram),
    ("crates/wicket/src/serve_cmd.rs", &["bash", "command", "timeout"], Why::NotAProgram),
    // wicket's own name, where it names wicket itself (its command for clap, its hook entry in
    // an agent's settings, its OTel service, its proxy user, its own process), not a program
    // looked up in the catalogue (whose `WICKET` record judges an agent's `wicket …` lines).
    ("crates/wicket-net/src/proxy.rs", &["wicket"], Why::NotAProgram),
    ("crates/wicket-otel/src/export.rs", &["wicket"], Why::NotAProgram),
    ("crates/wicket-sandbox/src/placeholders.rs", &["wicket"], Why::NotAProgram),
    ("crates/wicket-sandbox/src/runner.rs", &["wicket"], Why::NotAProgram),
    ("crates/wicket/src/codex_profile.rs", &["wicket"], Why::NotAProgram),
    ("crates/wicket/src/codex_trust.rs", &["wicket"], Why::NotAProgram),
    ("crates/wicket/src/doctor_cmd.rs", &["wicket"], Why::NotAProgram),
    ("crates/wicket/src/init_agents.rs", &["wicket"], Why::NotAProgram),
    ("crates/wicket/src/init_cmd.rs", &["wicket"], Why::NotAProgram),
    ("crates/wicket/src/main.rs", &["wicket"], Why::NotAProgram),
];

/// A string literal in code: its text, its line, and whether code decides by it: a pattern of
/// a `match` (`"a" | "b"`, `"a" =>`, `matches!(p, "a")`) or a side of a comparison
/// (`name == "a"`, `"a" != name`).
#[derive(Debug)]
struct Literal {
    text: String,
    line: usize,
    keyed: bool,
}

/// The string literals of a Rust source's non-test code: comments are skipped, and so is each
/// item under a `#[cfg(…test…)]` (a `mod tests { … }`, a `#[test] fn`).
fn literals(src: &str) -> Vec<Literal> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    // The code outside strings and comments, with each literal's place in it.
    let mut code: Vec<u8> = Vec::new();
    let mut places: Vec<(usize, String, usize)> = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == b'\n' {
            line += 1;
        }
        if c == b'/' && next == Some(b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && next == Some(b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(b[i] == b'\n');
                    i += 1;
                }
            }
            continue;
        }
        let raw = c == b'r' && matches!(next, Some(b'"' | b'#')) && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if raw {
            let hashes = b[i + 1..].iter().take_while(|&&h| h == b'#').count();
            if b.get(i + 1 + hashes) == Some(&b'"') {
                let start = i + 2 + hashes;
                let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
                let end = (start..b.len()).find(|&k| b[k..].starts_with(&close)).unwrap_or(b.len());
                let text = String::from_utf8_lossy(&b[start..end]).into_owned();
                places.push((code.len(), text.clone(), line));
                line += text.matches('\n').count();
                code.push(b'S');
                i = end + close.len();
                continue;
            }
        }
        if c == b'"' {
            let mut text = Vec::new();
            i += 1;
            let start_line = line;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    text.push(b[i]);
                    i += 1;
                }
                if i < b.len() {
                    line += usize::from(b[i] == b'\n');
                    text.push(b[i]);
                }
                i += 1;
            }
            places.push((code.len(), String::from_utf8_lossy(&text).into_owned(), start_line));
            code.push(b'S');
            i += 1;
            continue;
        }
        if c == b'\'' {
            // A char literal (`'x'`, `'\''`), not a lifetime (`'a`).
            let end = if next == Some(b'\\') {
                (i + 2..b.len().min(i + 12)).find(|&k| b[k] == b'\'')
            } else {
                let width = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + width) == Some(&b'\'')).then_some(i + 1 + width)
            };
            if let Some(end) = end {
                code.push(b'C');
                i = end + 1;
                continue;
            }
        }
        code.push(c);
        i += 1;
    }
    // The spans of code under `#[cfg(test)]`: from the attribute to the end of its item.
    let text = String::from_utf8_lossy(&code).into_owned();
    let mut skipped: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(").map(|k| k + from) {
        let attribute = &text[at..text[at..].find(']').map_or(text.len(), |k| at + k)];
        if !attribute.contains("test") || attribute.contains("not(test") {
            from = at + 1;
            continue;
        }
        let mut depth = 0usize;
        let mut end = text.len();
        for (k, ch) in text[at..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = at + k + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = at + k + 1;
                    break;
                }
                _ => {}
            }
        }
        skipped.push((at, end));
        from = end;
    }
    let bytes = text.as_bytes();
    // A pattern is followed by `=>` or `|` (also after the `)` of `Some("a") =>`), or follows
    // a `|` (not `||`); a comparison has `==` or `!=` on either side.
    let follows_bar = |k: usize| {
        let head = bytes[..k].trim_ascii_end();
        (head.ends_with(b"|") && !head.ends_with(b"||")) || head.ends_with(b"==") || head.ends_with(b"!=")
    };
    let before_bar = |k: usize| {
        let rest = text[k + 1..].trim_start_matches(|c: char| c.is_whitespace() || c == ')');
        rest.starts_with("=>")
            || (rest.starts_with('|') && !rest.starts_with("||"))
            || rest.starts_with("==")
            || rest.starts_with("!=")
    };
    // The patterns of `matches!(EXPR, PATTERN)`: after the first comma at the macro's own
    // depth, up to its closing parenthesis (or a guard's `if`).
    let mut matched: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("matches!(").map(|k| k + from) {
        let open = at + "matches!(".len();
        let (mut depth, mut comma, mut end) = (0usize, None, text.len());
        for (k, ch) in text[open..].char_indices() {
            match ch {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth == 0 => {
                    end = open + k;
                    break;
                }
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 && comma.is_none() => comma = Some(open + k),
                _ => {}
            }
        }
        if let Some(c) = comma {
            let guard = text[c..end].find(" if ").map_or(end, |g| c + g);
            matched.push((c, guard));
        }
        from = open;
    }
    for (at, text_, line) in places {
        if skipped.iter().any(|(s, e)| (*s..*e).contains(&at)) {
            continue;
        }
        let keyed = follows_bar(at) || before_bar(at) || matched.iter().any(|(s, e)| (*s..*e).contains(&at));
        out.push(Literal { text: text_, line, keyed });
    }
    out
}

/// Every `.rs` file below `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Where a catalogued name stands as a literal: (file, name) → its lines, and how many of them
/// are keyed (a match pattern or a comparison).
type Found = BTreeMap<(String, String), (Vec<usize>, usize)>;

/// The non-test sources of every crate but the catalogue: (path from the top, text).
fn workspace_sources() -> Vec<(String, String)> {
    let top = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut crates: Vec<PathBuf> =
        std::fs::read_dir(top.join("crates")).expect("crates/").flatten().map(|e| e.path()).collect();
    crates.sort();
    let mut out = Vec::new();
    for krate in crates.iter().filter(|c| !c.ends_with("wicket-programs")) {
        let mut files = Vec::new();
        sources(&krate.join("src"), &mut files);
        files.sort();
        for f in files {
            let rel = f.strip_prefix(&top).unwrap_or(&f).to_string_lossy().replace('\\', "/");
            let rel = rel.trim_start_matches("./").to_string();
            out.push((rel, std::fs::read_to_string(&f).expect("a source file")));
        }
    }
    out
}

/// Every literal of a catalogued program's name in these sources.
fn found(sources: &[(String, String)]) -> Found {
    let names: BTreeSet<&str> = wicket_programs::records().flat_map(|p| p.names.iter().copied()).collect();
    let mut out = Found::new();
    for (rel, src) in sources {
        for lit in literals(src) {
            if names.contains(lit.text.as_str()) {
                let entry = out.entry((rel.clone(), lit.text)).or_default();
                entry.0.push(lit.line);
                entry.1 += usize::from(lit.keyed);
            }
        }
    }
    out
}

/// What the check finds: names in places not listed, listed places that no longer hold the
/// name, and per reason the literals and keyed ones that are listed.
struct Report {
    new: Vec<String>,
    stale: Vec<String>,
    counts: BTreeMap<Why, (usize, usize)>,
}

fn check(found: &Found, allowed_places: &[(&str, &[&str], Why)]) -> Report {
    let allowed =
        |file: &str, name: &str| allowed_places.iter().find(|(f, ns, _)| *f == file && ns.contains(&name)).map(|a| a.2);
    let mut new = Vec::new();
    let mut counts: BTreeMap<Why, (usize, usize)> = BTreeMap::new();
    for ((file, name), (lines, keyed)) in found {
        match allowed(file, name) {
            Some(why) => {
                let c = counts.entry(why).or_default();
                c.0 += lines.len();
                c.1 += keyed;
            }
            None => new.push(format!("{file}:{lines:?}: \"{name}\" ({keyed} as a match pattern or comparison)")),
        }
    }
    let mut stale = Vec::new();
    for (file, names, _) in allowed_places {
        for name in *names {
            if !found.contains_key(&(file.to_string(), name.to_string())) {
                stale.push(format!("{file}: \"{name}\""));
            }
        }
    }
    Report { new, stale, counts }
}

#[test]
fn catalogued_program_names_stand_only_in_the_catalogue() {
    let Report { new, stale, counts } = check(&found(&workspace_sources()), ALLOWED);
    // The counts the issue asks for, for the record (`cargo test -- --nocapture`).
    for (why, (literals, keyed)) in &counts {
        println!("{why:?}: {literals} literals, {keyed} of them match patterns or comparisons");
    }
    assert!(
        new.is_empty(),
        "catalogued program names outside wicket-programs (look the program up in the catalogue instead, \
         or, if the word is not a program there, list it in ALLOWED with why):\n{}",
        new.join("\n")
    );
    assert!(stale.is_empty(), "ALLOWED lists places that no longer hold the name (remove them):\n{}", stale.join("\n"));
}

/// The reader sees literals where they are and not where they are not.
#[test]
fn the_reader_finds_literals_in_code_only() {
    let src = r##"
// "rm" in a comment
/* "rm" in a block */
fn f(p: &str) -> bool { let c = 'x'; let q = '"'; matches!(p, "rm" | "mv") || p == "cp" }
fn g<'a>(s: &'a str) -> &'a str { r#"tar"# }
#[cfg(test)]
mod tests { fn t() { let _ = "git"; } }
fn h() -> &'static str { "npm" }
fn i(p: Option<&str>) -> bool { "sed" != p.unwrap_or("") && matches!(p, Some("awk")) && f("jq") }
fn j(p: Option<&str>) -> u8 { match p { Some("ssh") => 1, _ if matches!(p, Some(x) if x == "scp") => 2, _ => 0 } }
"##;
    let got: Vec<(String, bool)> = literals(src).into_iter().map(|l| (l.text, l.keyed)).collect();
    let want: Vec<(String, bool)> = [
        ("rm", true),
        ("mv", true),
        ("cp", true),
        ("tar", false),
        ("npm", false),
        ("sed", true),
        ("", false),
        ("awk", true),
        ("jq", false),
        ("ssh", true),
        ("scp", true),
    ]
    .iter()
    .map(|(t, p)| (t.to_string(), *p))
    .collect();
    assert_eq!(got, want);
}

/// The check fails on a program name planted in a source, as a comparison, a match pattern
/// or a plain literal, and on a listed place that no longer holds its name.
#[test]
fn a_planted_program_name_fails_the_check() {
    let planted = r#"
fn is_git(name: &str) -> bool { name == "git" }
fn kind(name: &str) -> u8 { match name { "rm" | "shred" => 1, _ => 0 } }
fn default_shell() -> &'static str { "zsh" }
fn json_key() -> &'static str { "command" }
"#;
    let sources = vec![("crates/planted/src/lib.rs".to_string(), planted.to_string())];
    let found = found(&sources);
    let listed: &[(&str, &[&str], Why)] = &[
        ("crates/planted/src/lib.rs", &["command"], Why::NotAProgram),
        ("crates/planted/src/gone.rs", &["tar"], Why::NotAProgram),
    ];
    let report = check(&found, listed);
    let new = report.new.join("\n");
    for (name, keyed) in [("git", 1), ("rm", 1), ("shred", 1), ("zsh", 0)] {
        let line = format!("\"{name}\" ({keyed} as a match pattern or comparison)");
        assert!(new.contains(&line), "{name} was not caught:\n{new}");
    }
    assert_eq!(report.new.len(), 4, "{new}");
    assert_eq!(report.stale, ["crates/planted/src/gone.rs: \"tar\""]);
    assert_eq!(report.counts.get(&Why::NotAProgram), Some(&(1, 0)));
}
