//! Variants of the bugs in `tests/regressions.rs`, found while fixing them. Each expectation was
//! checked against GNU bash 5.2.15 (`bash -c '…'`, with `echo PWNED` in place of the command
//! that must be seen).

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic

use wicket_shell::{analyze, RedirectOp};

/// What the analysis of one string must give.
enum Want {
    /// Understood, with exactly these commands (canonical form).
    Parts(&'static [&'static str]),
    /// Exactly these commands, or not understood.
    PartsOrGivesUp(&'static [&'static str]),
    /// This command is listed, or the analysis is not understood.
    SeesOrGivesUp(&'static str),
}
use Want::*;

fn check(cases: &[(&str, Want)]) {
    let mut failures = Vec::new();
    for (src, want) in cases {
        let a = analyze(src);
        let parts: Vec<String> = a.commands.iter().map(|c| c.canonical()).collect();
        let ok = match want {
            Parts(p) => a.understood && parts == *p,
            PartsOrGivesUp(p) => !a.understood || parts == *p,
            SeesOrGivesUp(cmd) => !a.understood || parts.iter().any(|c| c == cmd),
        };
        if !ok {
            failures.push(format!("{src:?}: understood={} parts={parts:?} problems={:?}", a.understood, a.problems));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// A digit word glued to `<`/`>` is the redirection's descriptor, also before the program and
/// after another redirection; `-2>` is an argument and a redirection.
#[test]
fn descriptors() {
    check(&[
        ("0<f rm -rf /", Parts(&["rm -rf /"])),
        ("cat <f 0>g", Parts(&["cat"])),
        ("echo 0>&1", Parts(&["echo"])),
        ("cat 0<<<x", Parts(&["cat"])),
        ("ls -1>out", Parts(&["ls -1"])),
        ("echo a -12<f b", Parts(&["echo a -12 b"])),
        ("echo -2<<EOF\nx\nEOF", Parts(&["echo -2"])),
        // bash: one word `0/dev/fd/63`.
        ("printf x 0<(ls)", SeesOrGivesUp("ls")),
    ]);
    for (src, fd, op) in [
        ("0<f rm -rf /", Some(0), RedirectOp::Read),
        ("cat <f 0>g", Some(0), RedirectOp::Write),
        ("ls -1>out", None, RedirectOp::Write),
    ] {
        let a = analyze(src);
        let r = a.commands[0].redirects.last().unwrap();
        assert_eq!((r.fd, r.op), (fd, op), "{src:?}");
    }
}

/// The `-` word before a here-document survives every spelling.
#[test]
fn dash_before_heredoc() {
    check(&[
        ("cat -<<EOF\nx\nEOF", Parts(&["cat -"])),
        ("cat -<<-EOF\nx\nEOF", Parts(&["cat -"])),
        ("cat - 2<<EOF\nx\nEOF", Parts(&["cat -"])),
        ("cat > f - <<EOF\nx\nEOF", Parts(&["cat -"])),
        ("cat - - <<EOF\nx\nEOF", Parts(&["cat - -"])),
        ("python3 - <<EOF\nprint(1)\nEOF", Parts(&["python3 -"])),
        ("git commit -F - <<'EOF'\nmsg\nEOF", Parts(&["git commit -F -"])),
    ]);
}

/// `$"…"` several times in one word; split subscripts with quotes.
#[test]
fn gettext_and_unset_words() {
    check(&[
        ("printf '[%s]' $\"-rf\"$\"x\" a$\"b\"c", Parts(&["printf [%s] -rfx abc"])),
        ("echo $ \"a\" $", Parts(&["echo $ a $"])),
        ("unset 'a'[0] b[1]c", Parts(&["unset a[0] b[1]c"])),
    ]);
}

/// Here-documents: arithmetic holding a substitution, a first body line starting with `\`
/// (quoted LaTeX must stay understood), and delimiter lines bash does not take.
#[test]
fn heredocs() {
    check(&[
        ("cat <<EOF\n$(( $(id) + 1 ))\nEOF", PartsOrGivesUp(&["cat", "id"])), // issue 14: arithmetic over a value is not inert
        ("cat <<EOF\n$((1+1)) $HOME\nEOF", Parts(&["cat"])),
        ("cat <<'EOF'\n\\documentclass{article}\n\\begin{document}\nEOF", Parts(&["cat"])),
        ("cat <<EOF && echo x\n\\x\nrm -rf /\nEOF", PartsOrGivesUp(&["cat", "echo x"])),
        ("cat <<EOF\n\\x $(rm -rf ~/x)\nEOF", SeesOrGivesUp("rm -rf ~/x")),
        ("cat <<EOF\nEOF\t\n'\nEOF\nrm -rf / #'", SeesOrGivesUp("rm -rf /")),
        ("cat <<-EOF\n\t\t EOF\n'\nEOF\nrm -rf / #'", SeesOrGivesUp("rm -rf /")),
        ("cat <<EOF\n EOF\n EOF\n'\nEOF\nrm -rf / #'", SeesOrGivesUp("rm -rf /")),
        ("cat <<EOF\n$\\\n\\\n(rm -rf ~/x)\nEOF", SeesOrGivesUp("rm -rf ~/x")),
        ("cat <<EOF\n$\\\n{x:-$(rm -rf ~/x)}\nEOF", SeesOrGivesUp("rm -rf ~/x")),
        ("cat <<EOF\n  indented\nEOF\t\n  EOF\nEOF", PartsOrGivesUp(&["cat"])),
        ("cat <<EOF\nEOF-ish\nEOF", PartsOrGivesUp(&["cat"])),
        // tree-sitter also ends the body at a line that starts with the delimiter.
        ("cat <<EOF\nEOF;'\nEOF\nrm -rf / #'", SeesOrGivesUp("rm -rf /")),
        ("cat <<EOF\nEOF|'\nEOF\nrm -rf / #'", SeesOrGivesUp("rm -rf /")),
        ("cat <<-EOF\n\tx\n\tEOF\nid", Parts(&["cat", "id"])),
    ]);
}

/// `$'…'` with an escaped backslash before a later quote.
#[test]
fn ansi_c_strings() {
    check(&[
        ("printf '[%s]' $'\\\\' '; rm -rf ~/x #'", Parts(&["printf [%s] \\ ; rm -rf ~/x #"])),
        ("sed -e $'s/\\\\\\\\//' -e 's/x/y/'", Parts(&["sed -e s/\\\\// -e s/x/y/"])),
        ("echo $'\\\\\\\\' ; rm -rf ~/x #'", Parts(&["echo \\\\", "rm -rf ~/x"])),
    ]);
}

/// Quoted subscripts bash expands anyway: array keys, C-style `for`, `$'…'` in arithmetic, and
/// builtins that take variable names or evaluate arithmetic.
#[test]
fn quoted_subscripts() {
    check(&[
        ("a=(['$(id)']=1)", SeesOrGivesUp("id")),
        ("for ((i='a[$(id)]';0;)); do :; done", SeesOrGivesUp("id")),
        ("echo $(( $'a[$(id)]' ))", SeesOrGivesUp("id")),
        ("declare -i x='a[$(id)]'", SeesOrGivesUp("id")),
        ("declare 'a[$(id)]=1'", SeesOrGivesUp("id")),
        ("typeset 'a[$(id)]=1'", SeesOrGivesUp("id")),
        ("read 'a[$(id)]' <<< x", SeesOrGivesUp("id")),
        ("printf -v 'a[$(id)]' x", SeesOrGivesUp("id")),
        ("let 'a[$(id)]=1'", SeesOrGivesUp("id")),
        ("test -v 'a[$(id)]'", SeesOrGivesUp("id")),
        // Not evaluated: stays understood.
        ("export PS1='[\\u@\\h $(git branch)]\\$ '", Parts(&["export PS1=[\\u@\\h $(git branch)]\\$ "])),
        ("printf '[%s] $(date)\\n' x", Parts(&["printf [%s] $(date)\\n x"])),
        ("echo $(( a[1] + 2 ))", PartsOrGivesUp(&["echo $(( a[1] + 2 ))"])), // issue 14
        ("[[ $x == '[$(y)]' ]] || echo no", Parts(&["echo no"])),
    ]);
}

/// `==`/`=~` arguments: the text after them is words and operators to bash, however many
/// there are, in any command (`test` too) and inside function bodies; `[[ ]]` and `(( ))`
/// keep theirs.
#[test]
fn double_equals_arguments() {
    check(&[
        ("echo == x; echo == y; rm -rf ~/x #}", Parts(&["echo == x", "echo == y", "rm -rf ~/x"])),
        ("test x =~ y; rm -rf ~/x #}", Parts(&["test x =~ y", "rm -rf ~/x"])),
        ("echo ==; rm }", Parts(&["echo ==", "rm }"])),
        ("f() { echo == x; }; rm }", SeesOrGivesUp("rm }")),
        (
            "echo == a; echo == b; echo == c; echo == d; echo == e; echo == f; echo == g; echo == h; echo == i; rm #}",
            SeesOrGivesUp("rm"),
        ),
        ("[[ a == b ]] && echo y}", Parts(&["echo y}"])),
        ("[[ a =~ b ]] && echo y}", Parts(&["echo y}"])),
        ("(( a == b )); rm }", PartsOrGivesUp(&["rm }"])), // issue 14
        ("[ a == b ]; rm }", Parts(&["rm }"])),
    ]);
}

/// A `$` the parser splits from what it expands, outside argument lists too: the word bash
/// reads holds an expansion (bash: `a=x[$1] echo PWNED` runs `echo PWNED`).
#[test]
fn dollar_split_from_its_expansion() {
    check(&[
        ("a=x[$1] rm -rf /", Parts(&["rm -rf /"])),
        ("echo > x[$1] y", Parts(&["echo y"])),
        ("cat <<< r[$An/", Parts(&["cat"])),
        ("echo x[$1] 1\"r\"$1", Parts(&["echo x[$1] 1\"r\"$1"])),
        ("echo x[${a:-$(id)}]", Parts(&["echo x[${a:-$(id)}]", "id"])),
    ]);
    for src in ["a=x[$1] rm", "echo x[$1]", "echo > x[$1]", "cat <<< r[$An/", "cat <<EOF\nx[$1]\nEOF"] {
        let a = analyze(src);
        let c = &a.commands[0];
        assert!(!c.is_static(), "{src:?}: the expansion is missed: {c:?}");
    }
    assert!(!analyze("1'r'$2 -rf /").understood);
}

/// Two brackets with blanks between (`[ [x`, `] }x`, `{  {x`) are two words to bash.
#[test]
fn blanks_between_brackets() {
    check(&[
        ("printf '<%s>' [ [x ] }x", Parts(&["printf <%s> [ [x ] }x"])),
        ("echo {  {x", Parts(&["echo { {x"])),
        ("echo > { {..", Parts(&["echo {.."])),
        ("echo ] }x; rm -rf /", Parts(&["echo ] }x", "rm -rf /"])),
    ]);
    assert_eq!(analyze("printf '<%s>' [ [x ] }x").commands[0].words.len(), 6);
}

/// `[` is an ordinary command when bash does not read a test: glued to its neighbours, spread
/// over lines (`[` newline `echo PWNED ]` runs `echo PWNED ]`); `[[(…) ]]` is a test.
#[test]
fn brackets_bash_runs_as_commands() {
    check(&[
        ("[\nrm -rf / ]", Parts(&["[", "rm -rf / ]"])),
        ("[ -f x]", Parts(&["[ -f x]"])),
        ("if [[-f x ]]; then echo y; fi", Parts(&["[[-f x ]]", "echo y"])),
        ("while [ -f x]; do :; done", Parts(&["[ -f x]", ":"])),
        ("[[(a == a) ]] && echo y", Parts(&["echo y"])),
        ("[ -f x ] && [[ -d y ]] && echo y", Parts(&["echo y"])),
    ]);
}

/// An escaped blank starts a word wherever the parser skipped it (bash: `\ x` runs ` x`).
#[test]
fn escaped_blanks() {
    check(&[
        ("\\ x && echo b", Parts(&[" x", "echo b"])),
        ("echo \\ x", Parts(&["echo  x"])),
        ("echo \"a\"\\ b", Parts(&["echo a b"])),
        ("echo a\\ b c\\ d", Parts(&["echo a b c d"])),
        ("ls \\\\ x", Parts(&["ls \\ x"])),
    ]);
}

/// An array value with text glued after its `)` is one word to bash, a scalar assignment
/// (`a=(1)x` assigns `(1)x`); a `(` or `)` elsewhere in a plain value is a syntax error.
#[test]
fn array_value_with_glued_text() {
    check(&[
        ("a=(1)x echo PWNED", Parts(&["echo PWNED"])),
        ("a=(1)\"x y\" echo PWNED", Parts(&["echo PWNED"])),
        ("a=(1)\\ x echo PWNED", Parts(&["echo PWNED"])),
        ("a=(1)$(echo z) echo PWNED", Parts(&["echo PWNED", "echo z"])),
        ("a=(1)x; echo PWNED", Parts(&["", "echo PWNED"])),
        ("a=(1)x|echo PWNED", Parts(&["", "echo PWNED"])),
        ("declare a=(1)x; echo PWNED", Parts(&["declare a=(1)x", "echo PWNED"])),
        ("a=(1 2)x echo PWNED", SeesOrGivesUp("echo PWNED")),
        ("a=(1 2)# echo PWNED", SeesOrGivesUp("echo PWNED")),
        ("a=(1)(2) echo PWNED", PartsOrGivesUp(&[])),
        ("x=1x=(2)y echo PWNED", PartsOrGivesUp(&[])),
        ("x=(1)x(2)y echo PWNED", PartsOrGivesUp(&[])),
    ]);
}

/// A redirection target the tree splits at a backtick, a quote or an escape is one word.
#[test]
fn glued_redirect_targets() {
    let a = analyze("echo x > a\"b\"\\c d");
    assert!(a.understood);
    assert_eq!(a.commands[0].canonical(), "echo x d");
    assert_eq!(a.commands[0].redirects[0].target.value.as_deref(), Some("abc"));
    assert_eq!(a.commands[0].redirects[0].op, RedirectOp::Write);
}

/// `$$` after an empty quoted string (`s""$$`): the tree calls `$$` plain word text; bash
/// expands it (the process id). Found in the `differential` fuzz corpus.
#[test]
fn dollar_dollar_after_empty_quotes_is_dynamic() {
    let a = analyze("echo s\"\"$$");
    assert_eq!(a.commands[0].words[1].value, None);
    assert!(!analyze("r\"\"$$ -rf /").understood);
}

/// `_` is a valid name: `_=1` in front of a command is an assignment, in any position.
#[test]
fn underscore_assignments() {
    check(&[
        ("_=1 _=2 echo PWNED", Parts(&["echo PWNED"])),
        ("_+=1 echo PWNED", Parts(&["echo PWNED"])),
        ("a=1 _=2 echo PWNED", Parts(&["echo PWNED"])),
        ("echo _=1", Parts(&["echo _=1"])),
        ("_=(1)x echo PWNED", SeesOrGivesUp("echo PWNED")),
    ]);
}
