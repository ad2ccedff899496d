//! Properties of `analyze` beyond the split fixture: contexts, words, redirections, the
//! compound flag, limits and hostile input.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic

use wicket_shell::{analyze, Context, ProblemKind, RedirectOp};

fn kinds(src: &str) -> Vec<ProblemKind> {
    analyze(src).problems.iter().map(|p| p.kind).collect()
}

#[test]
fn contexts() {
    // `$(c)` in command position is a dynamic program: listed, and not understood.
    let a = analyze("a; (b); $(c); <(d); f() { e; }; `g`; cat <<EOF\n$(h)\nEOF");
    let got: Vec<(String, Context)> = a.commands.iter().map(|c| (c.canonical(), c.context)).collect();
    let want = [
        ("a", Context::Top),
        ("b", Context::Subshell),
        ("$(c)", Context::Top),
        ("c", Context::CommandSubstitution),
        ("<(d)", Context::Top),
        ("d", Context::ProcessSubstitution),
        ("e", Context::Function),
        ("`g`", Context::Top),
        ("g", Context::CommandSubstitution),
        ("cat", Context::Top),
        ("h", Context::HereDoc),
    ];
    let want: Vec<(String, Context)> = want.iter().map(|(s, c)| (s.to_string(), *c)).collect();
    assert_eq!(got, want, "{a:#?}");
}

#[test]
fn words() {
    let a = analyze(r#"'git' "st"atus \x $'a\nb' *.rs "*.rs" ~/x {a,b} $HOME a=b"#);
    let w = &a.commands[0].words;
    let got: Vec<(Option<&str>, bool, bool)> = w.iter().map(|w| (w.value.as_deref(), w.quoted, w.glob)).collect();
    assert_eq!(
        got,
        [
            (Some("git"), true, false),
            (Some("status"), true, false),
            (Some("x"), true, false),
            (Some("a\nb"), true, false),
            (Some("*.rs"), false, true),
            (Some("*.rs"), true, false),
            (Some("~/x"), false, false),
            (None, false, false),
            (None, false, false),
            (Some("a=b"), false, false),
        ]
    );
    assert_eq!(w[1].raw, "\"st\"atus");
    assert_eq!(a.commands[0].source, r#"'git' "st"atus \x $'a\nb' *.rs "*.rs" ~/x {a,b} $HOME a=b"#);
}

#[test]
fn assignments() {
    let a = analyze("A=1 B=\"x y\" C=$(id) make all");
    let c = &a.commands[0];
    let got: Vec<(&str, Option<&str>)> =
        c.assignments.iter().map(|a| (a.name.as_str(), a.value.value.as_deref())).collect();
    assert_eq!(got, [("A", Some("1")), ("B", Some("x y")), ("C", None)]);
    assert_eq!(c.canonical(), "make all");
    let bare = analyze("X=1");
    assert!(bare.commands[0].words.is_empty());
    assert_eq!(bare.commands[0].assignments[0].name, "X");
}

#[test]
fn redirects() {
    let a = analyze("a 2>&1 >out >>app >|clob &>both &>>bothapp <in >&file 3>&- 2>/dev/null");
    let r: Vec<(Option<u32>, RedirectOp, Option<&str>)> =
        a.commands[0].redirects.iter().map(|r| (r.fd, r.op, r.target.value.as_deref())).collect();
    assert_eq!(
        r,
        [
            (Some(2), RedirectOp::Duplicate, Some("1")),
            (None, RedirectOp::Write, Some("out")),
            (None, RedirectOp::Append, Some("app")),
            (None, RedirectOp::Clobber, Some("clob")),
            (None, RedirectOp::WriteBoth, Some("both")),
            (None, RedirectOp::AppendBoth, Some("bothapp")),
            (None, RedirectOp::Read, Some("in")),
            (None, RedirectOp::WriteBoth, Some("file")),
            (Some(3), RedirectOp::Duplicate, Some("-")),
            (Some(2), RedirectOp::Write, Some("/dev/null")),
        ]
    );
    let h = analyze("cat <<<str");
    assert_eq!(h.commands[0].redirects[0].op, RedirectOp::HereString);
    assert_eq!(h.commands[0].redirects[0].target.value.as_deref(), Some("str"));
    // tree-sitter-bash cannot parse a here-string after another redirection: not understood.
    assert!(!analyze("cat <in <<<str").understood);
    let h = analyze("cat <<EOF\nhi\nEOF");
    assert_eq!(h.commands[0].redirects[0].op, RedirectOp::HereDoc);
}

#[test]
fn compound_redirects_reach_every_command() {
    for src in ["{ a; b; } > out", "while a; do b; done > out", "(a; b) > out", "f() { a; b; } > out"] {
        let a = analyze(src);
        assert_eq!(a.commands.len(), 2, "{src}");
        for c in &a.commands {
            assert!(
                c.redirects.iter().any(|r| r.op == RedirectOp::Write && r.target.value.as_deref() == Some("out")),
                "{src}"
            );
        }
    }
    let a = analyze("[[ -f x ]] 2> err");
    assert_eq!(a.commands.len(), 1);
    assert!(a.commands[0].words.is_empty());
    assert_eq!(a.commands[0].redirects[0].target.value.as_deref(), Some("err"));
}

#[test]
fn compound_flag() {
    for simple in ["ls -la", "git status 2>&1", "make >/dev/null", "cargo test 2>/dev/null", "echo 'a; b'", "ls;"] {
        assert!(!analyze(simple).compound, "{simple}");
    }
    for compound in [
        "a && b",
        "a | b",
        "a &",
        "echo $(x)",
        "(a)",
        "{ a; }",
        "if a; then b; fi",
        "f() { a; }",
        "a > f",
        "a < f",
        "[[ -f x ]]",
    ] {
        assert!(analyze(compound).compound, "{compound}");
    }
}

#[test]
fn limits() {
    let long = format!("echo {}", "a".repeat(70 * 1024));
    let a = analyze(&long);
    assert!(!a.understood);
    assert_eq!(kinds(&long), [ProblemKind::TooLong]);
    assert!(a.commands.is_empty());

    assert_eq!(kinds("echo a\0b"), [ProblemKind::BadInput]);

    let many = vec!["true"; 600].join("; ");
    let a = analyze(&many);
    assert!(!a.understood);
    assert_eq!(a.commands.len(), 600, "every command is listed");
    assert!(kinds(&many).contains(&ProblemKind::TooManyParts));

    let deep = format!("{}x{}", "$(".repeat(70), ")".repeat(70));
    assert!(kinds(&deep).contains(&ProblemKind::TooDeep));
    let ok = format!("{}x{}", "echo $(".repeat(20), ")".repeat(20));
    assert!(analyze(&ok).understood);
}

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new().stack_size(2 * 1024 * 1024).spawn(f).unwrap();
    handle.join().unwrap();
}

#[test]
fn deep_nesting_on_a_small_stack() {
    on_small_stack(|| {
        for (open, close) in
            [("$(", ")"), ("(", ")"), ("((", "))"), ("{ ", "; }"), ("\"$(", ")\""), ("$((", "))"), ("${x:-", "}")]
        {
            let src = format!("{}x{}", open.repeat(5000), close.repeat(5000));
            let a = analyze(&src);
            assert!(!a.understood, "{open}");
            let k: Vec<ProblemKind> = a.problems.iter().map(|p| p.kind).collect();
            assert!(k.contains(&ProblemKind::TooDeep) || k.contains(&ProblemKind::ParseError), "{open}: {k:?}");
        }
        let src = format!("{}x{}", "$(".repeat(5000), ")".repeat(5000));
        assert!(analyze(&src).problems.iter().any(|p| p.kind == ProblemKind::TooDeep));
        // Long flat lists and left-nested expressions are not "deep".
        let flat = vec!["a"; 400].join(" && ");
        assert!(analyze(&flat).understood);
    });
}

#[test]
fn garbage_does_not_panic() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..300 {
        let len = (seed % 200) as usize;
        let mut bytes = Vec::with_capacity(len);
        for _ in 0..len {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            bytes.push((seed & 0x7f) as u8);
        }
        let s = String::from_utf8_lossy(&bytes).to_string();
        let _ = analyze(&s);
    }
    for s in ["'", "\"", "`", "$(", "${", "<<", "<<EOF", "(((", "}}}", "\\", "$'\\", "a |", "| a", "&&"] {
        let a = analyze(s);
        assert!(!a.understood || a.commands.iter().all(|c| !c.canonical().is_empty()), "{s:?}");
    }
    for s in ["'", "\"", "`", "$(", "${", "(((", "a |", "| a", "&&", "echo 'x", "echo \"x", "echo `x"] {
        assert!(!analyze(s).understood, "{s:?}");
    }
}

#[test]
fn backtick_canary() {
    // Escaped backticks nested in backticks run code; tree-sitter leaves them in a word.
    let a = analyze("echo `echo \\`id\\``");
    let parts: Vec<String> = a.commands.iter().map(|c| c.canonical()).collect();
    assert!(parts.contains(&"id".to_string()), "{parts:?}");
    // Backticks in single quotes, comments and quoted here-docs are data.
    for s in ["echo '`id`'", "echo hi # `id`", "cat <<'E'\n`id`\nE", "echo \\`id\\`", "echo $'`'"] {
        let a = analyze(s);
        assert!(a.understood, "{s}: {:?}", a.problems);
        assert!(!a.commands.iter().any(|c| c.canonical() == "id"), "{s}");
    }
}
