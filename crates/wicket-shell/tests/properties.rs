//! Property tests: `analyze` never panics, and an injected command is never hidden.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic

use proptest::prelude::*;
use wicket_shell::{analyze, strip_wrappers};

const SAFE_WORDS: &[&str] = &[
    "ls",
    "-la",
    "git",
    "status",
    "echo",
    "hi",
    "cat",
    "file.txt",
    "src/main.rs",
    "--verbose",
    "'a b'",
    "\"x y\"",
    "42",
    "a=b",
];
const PROGRAMS: &[&str] = &["ls", "git", "echo", "cat", "grep", "cargo", "npm"];
const INJECTED: &str = "touch pwned";

fn benign() -> impl Strategy<Value = Vec<String>> {
    (prop::sample::select(PROGRAMS), prop::collection::vec(prop::sample::select(SAFE_WORDS), 0..5)).prop_map(
        |(p, args)| {
            let mut words = vec![p.to_string()];
            words.extend(args.into_iter().map(str::to_string));
            words
        },
    )
}

fn injections() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        format!("; {INJECTED}"),
        format!("&& {INJECTED}"),
        format!("|| {INJECTED}"),
        format!("| {INJECTED}"),
        format!("& {INJECTED}"),
        format!("$({INJECTED})"),
        format!("\n{INJECTED}"),
        format!("`{INJECTED}`"),
        format!("<({INJECTED})"),
        format!("\"$({INJECTED})\""),
    ])
}

/// Shell-flavoured strings: mostly operators, quotes and expansions.
fn shellish() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "a", " ", "$(", ")", "`", "'", "\"", "\\", "{", "}", "(", "((", "))", ";", "&&", "|", "<<", "EOF", "\n",
            "<<<", ">", "2>&1", "$", "${", "[[", "]]", "if", "then", "fi", "case", "in", "esac", "for", "do", "done",
            "=", "*", "#", "$'", "<(", "coproc", "function", "f()", "\\\n",
        ]),
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_any_string(s in ".{0,300}") {
        let a = analyze(&s);
        for c in &a.commands {
            let _ = strip_wrappers(c);
        }
    }

    #[test]
    fn never_panics_on_shellish_strings(s in shellish()) {
        let a = analyze(&s);
        for c in &a.commands {
            let _ = strip_wrappers(c);
        }
    }

    #[test]
    fn injection_is_never_hidden(words in benign(), x in injections(), at in any::<prop::sample::Index>(), glue in any::<bool>()) {
        // Either appended, or placed at a word position (on its own or glued to a word).
        let mut candidates = vec![format!("{} {x}", words.join(" "))];
        if !x.starts_with([';', '&', '|', '\n']) {
            let i = at.index(words.len()) .max(1);
            let mut w = words.clone();
            if glue {
                w[i - 1].push_str(&x);
            } else {
                w.insert(i, x.clone());
            }
            candidates.push(w.join(" "));
        }
        for src in candidates {
            let a = analyze(&src);
            let parts: Vec<String> = a.commands.iter().map(|c| c.canonical()).collect();
            prop_assert!(!a.understood || parts.iter().any(|p| p == INJECTED), "{src:?} → {parts:?}");
        }
    }
}
