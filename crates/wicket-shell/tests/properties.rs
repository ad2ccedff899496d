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

/// Issue 14, class 1: the value operators of `${…}` whose operand bash reads as double-quoted
/// text when the expansion is in double quotes (single quotes there are ordinary characters).
const VALUE_OPERATORS: &[&str] = &["-", ":-", "+", ":+", "=", ":=", "?", ":?"];

/// Issue 14, class 2: shapes that evaluate the value of the variable `V` as code.
const EVALUATING: &[&str] = &[
    "echo $((V))",
    "echo $[V+1]",
    "echo \"$(( 1 + V ))\"",
    "echo \"${V@P}\"",
    "echo ${V@P}",
    "echo \"${!V}\"",
    "echo \"${s:V}\"",
    "echo \"${s:1:V}\"",
    "echo \"${a[V]}\"",
    "echo ${#a[V]}",
    "a[V]=1",
    "[[ V -eq 1 ]]",
    "[[ $V -lt 2 ]]",
    "(( V ))",
    "let V",
    "[ -v \"$V\" ]",
    "test -v \"$V\"",
    "read \"$V\"",
    "printf -v \"$V\" %s x",
    "declare -i V",
];

fn var_name() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_]{0,6}"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A command hidden in single quotes inside a double-quoted `${x<op>…}` is always seen
    /// (or the string is refused).
    #[test]
    fn quoted_expansion_operand_is_never_hidden(
        op in prop::sample::select(VALUE_OPERATORS),
        name in var_name(),
        sub in prop::sample::select(vec![format!("$({INJECTED})"), format!("`{INJECTED}`")]),
        before in "[a-z ]{0,3}",
    ) {
        let src = format!("echo \"${{{name}{op}'{before}{sub}'}}\"");
        let a = analyze(&src);
        prop_assert!(!a.understood || a.commands.iter().any(|c| c.canonical() == INJECTED), "{src}: {a:?}");
    }

    /// Every shape that evaluates a variable's value is not understood, whatever the name.
    #[test]
    fn evaluating_expansions_are_never_understood(shape in prop::sample::select(EVALUATING), name in var_name()) {
        let src = shape.replace('V', &name);
        prop_assert!(!analyze(&src).understood, "{src}");
    }

    /// Plain expansions of the same names stay understood: the rule is not "any `$`".
    #[test]
    fn plain_expansions_stay_understood(name in var_name()) {
        let src = format!("echo \"${name}\" ${{{name}}} \"${{{name}:-x}}\" ${{#{name}}} \"${{{name}%.*}}\"");
        prop_assert!(analyze(&src).understood, "{src}");
    }
}

/// Words of the safe kinds above with a variable put in each way bash expands one.
fn expansion() -> impl Strategy<Value = (String, String)> {
    let name = "[A-Z][A-Z0-9_]{0,12}";
    let forms =
        prop::sample::select(vec!["$N", "${N}", "\"$N\"", "\"${N:-x}\"", "${#N}", "\"a ${N} b\"", "$((N + 1))"]);
    (name, forms, prop::sample::select(SAFE_WORDS))
        .prop_map(|(n, form, word)| (n.clone(), format!("{word}{}", form.replace('N', &n))))
}

proptest! {
    /// Every variable bash would expand in a word is found, after any safe text (so a
    /// variable cannot hide behind quotes that close); one inside single quotes is not.
    #[test]
    fn every_expanded_variable_is_found((name, word) in expansion()) {
        let names = wicket_shell::expanded_names(&word);
        prop_assert!(names.as_ref().is_some_and(|v| v.contains(&name)), "{word}: {names:?}");
        let quoted = format!("'{}'", word.replace('\'', ""));
        prop_assert_eq!(wicket_shell::expanded_names(&quoted), Some(Vec::new()));
    }

    /// A pipe or a command in the background between commands is always seen; `&&`, `||` and
    /// `;` never make one.
    #[test]
    fn subshell_operators_are_always_seen(a in benign(), b in benign(), op in prop::sample::select(vec!["|", "&", "|&"])) {
        let line = format!("{} {op} {}", a.join(" "), b.join(" "));
        prop_assert!(wicket_shell::has_subshell_operator(&line), "{line}");
        for list in ["&&", "||", ";"] {
            let line = format!("{} {list} {} 2>&1", a.join(" "), b.join(" "));
            prop_assert!(!wicket_shell::has_subshell_operator(&line), "{line}");
        }
    }
}
