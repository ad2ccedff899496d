//! Inputs found by the differential test (`tests/differential.rs`), the cargo-fuzz targets
//! (`fuzz/`) and the bash checks done alongside them. Each test states what bash does.
//!
//! A test marked `#[ignore = "…"]` is a wicket-shell bug that is reported and not fixed yet:
//! run them with `cargo test -p wicket-shell --test regressions -- --ignored`. When one is
//! fixed, drop its `#[ignore]` and its entry in `KNOWN_BUGS` in `tests/differential.rs`.
//!
//! Every expectation below was checked against GNU bash 5.2.15 (`bash -c '…'`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic

use wicket_shell::{analyze, RedirectOp};

fn parts(src: &str) -> Vec<String> {
    analyze(src).commands.iter().map(|c| c.canonical()).collect()
}

/// The analysis either lists `cmd` as a command or is not understood: never understood
/// without it.
fn sees_or_gives_up(src: &str, cmd: &str) {
    let a = analyze(src);
    let found = a.commands.iter().any(|c| c.canonical() == cmd);
    assert!(
        found || !a.understood,
        "{src:?}: bash runs `{cmd}`, but the analysis is understood without it: {:?}",
        a.commands.iter().map(|c| c.canonical()).collect::<Vec<_>>()
    );
}

// --- `==` / `=~` as an argument, with a `}` later ------------------------------------------------

/// bash: `echo == x; rm -rf ~/x #}` is two commands, `echo == x` and `rm -rf ~/x` (the `}` is
/// in a comment). tree-sitter-bash lexes everything from after `==` (or `=~`) up to the next
/// `}` as one `regex` token, operators included: wicket lists the single command
/// `echo == x; rm -rf ~/x #` `}` and says understood. An allow rule `bash(echo *)` allows
/// the call outside the sandbox and a deny rule `bash(rm -rf*)` does not fire (checked with
/// `Policy::decide`). Found by the `differential` fuzz target (`echo {a.W $(id -u) == 0
/// W.z..3}`: the words `0` and `W.z..3}` came out as `0 W.z..3` and `}`).
#[test]
fn double_equals_argument_swallows_the_rest() {
    sees_or_gives_up("echo == x; rm -rf ~/x #}", "rm -rf ~/x");
    sees_or_gives_up("echo =~ x; rm -rf ~/x #}", "rm -rf ~/x");
    sees_or_gives_up("git log == x && rm -rf ~/x }", "rm -rf ~/x }");
    assert_eq!(parts("echo == 0 b}"), ["echo == 0 b}"]);
    assert_eq!(analyze("echo == 0 b}").commands[0].words.len(), 4);
}

#[test]
fn double_equals_argument_without_brace() {
    assert_eq!(parts("echo == x; echo y"), ["echo == x", "echo y"]);
    assert_eq!(parts("[[ a == b ]] && echo y"), ["echo y"]);
}

// --- an array value with text glued after it --------------------------------------------------

/// bash: `a=(1)x rm -rf ~/x` is the assignment `a='(1)x'` (a scalar: text after the `)` makes
/// the whole word one assignment) and the command `rm -rf ~/x`; checked with `echo PWNED`.
/// tree-sitter-bash reads the array `a=(1)` and then the command `x rm -rf ~/x`, so wicket lists
/// the program `x` (or `echo`, for `a=(1)echo rm -rf ~/x`) and says understood: with a deny
/// rule `bash(rm -rf*)` the call is allowed in the sandbox (checked with `Policy::decide`).
/// Found from the `differential` fuzz target (`declare … arr=(1 $(y))rYYa …`: brush-parser
/// splits that word, bash and wicket do not; checking why led here).
#[test]
fn array_value_with_glued_text_is_a_scalar_assignment() {
    assert_eq!(parts("a=(1)x rm -rf ~/x"), ["rm -rf ~/x"]);
    assert_eq!(parts("a=(1)echo rm -rf ~/x"), ["rm -rf ~/x"]);
    assert_eq!(parts("a=(1)x"), [""]);
    // The same with `+=`, a subscript, `()`, quotes or an escape after the `)`, and a `#`
    // (mid-word to bash, a comment to tree-sitter: the command was hidden entirely).
    for src in [
        "a+=(1)x rm -rf ~/x",
        "a[0]=(1)x rm -rf ~/x",
        "a=()x rm -rf ~/x",
        "a=(1)'x' rm -rf ~/x",
        "a=(1)\\x rm -rf ~/x",
        "b=2 a=(1)x rm -rf ~/x",
        "a=(1)# rm -rf ~/x",
    ] {
        sees_or_gives_up(src, "rm -rf ~/x");
        assert!(
            !parts(src).iter().any(|p| p.ends_with("rm -rf ~/x") && p != "rm -rf ~/x"),
            "{src:?}: {:?}",
            parts(src)
        );
    }
}

#[test]
fn declare_array_value_with_glued_text() {
    assert_eq!(parts("declare arr=(1 $(id))z"), ["declare arr=(1 $(id))z", "id"]);
}

/// bash: `_` is a valid name: `_=1 rm -rf ~/x` runs `rm -rf ~/x` with `_=1` in its environment
/// (checked with `echo PWNED`), and `_=` is a bare assignment. tree-sitter-bash does not read
/// `_=1` as a `variable_assignment` but as the command name (`(command name: (command_name
/// (word)) argument: (word))`), so wicket lists the program `_=1` with the arguments `rm -rf
/// ~/x`: a deny rule `bash(rm -rf*)` does not match it. `_x=1`, `a_=1` and `__=1` are right.
/// Found by the `differential` fuzz target: libFuzzer's `-minimize_crash` reduced a long input
/// to `_=`.
#[test]
fn underscore_assignment() {
    assert_eq!(parts("_=1 rm -rf ~/x"), ["rm -rf ~/x"]);
    assert_eq!(parts("_="), [""]);
}

/// bash: `?M=1` is not an assignment (the name is invalid) but a command word, and its `?` is
/// an unquoted glob. wicket lists the command (fixed) with `Word::glob` false. Found by the
/// `differential` fuzz target.
#[test]
fn invalid_assignment_word_is_a_glob() {
    let a = analyze("?M=1");
    assert!(a.commands[0].words[0].glob);
}

/// bash: `echo a$\\⏎ b` is `echo 'a$' b` (the continuation leaves `$` before a blank: a literal
/// `$` and the end of the word). wicket lists one word `a$\\⏎ b`. And `cat < in$$$.txt` reads
/// the file `in<pid>$.txt`; wicket makes the target `in$$$` and lists `.txt` as an argument.
/// Low impact (the words are dynamic); found by the `differential` fuzz target
/// (`gitommit$\\⏎ "-m "mn%d`, `0< in$$$…$.txt`).
#[test]
fn literal_dollar_word_boundaries() {
    assert_eq!(analyze("echo a$\\\n b").commands[0].words.len(), 3);
    let a = analyze("cat < in$$$.txt");
    assert_eq!(a.commands[0].canonical(), "cat");
    assert_eq!(a.commands[0].redirects[0].target.raw, "in$$$.txt");
}

// --- `>&-` then a word ----------------------------------------------------------------------------

/// bash: `>&-` (close stdout) is complete; a word after it is an argument: `git branch >&-
/// newbranch` runs `git branch newbranch` and creates the branch. tree-sitter-bash takes the
/// word as the redirection's destination, so wicket lists `git branch` — on the exact safe list,
/// so the call is allowed outside the sandbox, unattended (checked with `Policy::decide`: "allow
/// by safe_list"). Words starting with `-` give a parse error instead (fails closed). Also
/// `2>&-`, `<&-`. Found by the `differential` fuzz target (`lsls >&- -`).
#[test]
fn word_after_fd_close_is_an_argument() {
    assert_eq!(parts("git branch >&- newbranch"), ["git branch newbranch"]);
    assert_eq!(parts("rm >&- important.txt"), ["rm important.txt"]);
    assert_eq!(parts("echo 2>&- x"), ["echo x"]);
    assert_eq!(parts("cat <&- x"), ["cat x"]);
}

/// bash: in `rm <$ -rf ~/x` the redirection target is the word `$` (a literal dollar), and
/// `-rf`, `~/x` are arguments: with a file named `$` present (`: > '$'` first), bash runs
/// `rm -rf ~/x`. tree-sitter-bash makes `$ -rf` (blank included) the target, so wicket lists
/// `rm ~/x`: a deny rule `bash(rm -rf*)` does not match it. `git branch >$ newbranch` is listed
/// as `git branch` (on the safe list). Found by the `differential` fuzz target
/// (`r<$ S|8s}6444…`).
#[test]
fn dollar_redirection_target_is_one_word() {
    assert_eq!(parts("rm <$ -rf ~/x"), ["rm -rf ~/x"]);
    assert_eq!(parts("git branch >$ newbranch"), ["git branch newbranch"]);
    let a = analyze("echo >$ a b");
    assert_eq!(a.commands[0].canonical(), "echo a b");
    assert_eq!(a.commands[0].redirects[0].target.value.as_deref(), Some("$"));
}

#[test]
fn fd_close_alone() {
    assert_eq!(parts("echo x >&-"), ["echo x"]);
    assert_eq!(parts("echo x 2>&-"), ["echo x"]);
}

// --- words split where bash sees one ----------------------------------------------------------

/// bash: `"r"\m -rf /` is the one word `rm` and two arguments: it runs `rm -rf /`. tree-sitter-
/// bash gives `"r"` and `\m` as two sibling arguments (no `concatenation`), so wicket lists the
/// program `r` with the argument `m` and says understood: a deny rule `bash(rm -rf*)` does not
/// fire (in the sandbox the call is allowed; checked). The same after `'…'` and `$'…'`
/// (`$''\rm` is the empty program and `rm`), and after an expansion (`x$y\z` is two words).
/// Found by the `differential` fuzz target (`c"+"\url …`, `$''\rf`, `$' '\r`).
#[test]
fn quoted_string_then_escape_is_one_word() {
    assert_eq!(parts("\"r\"\\m -rf /"), ["rm -rf /"]);
    assert_eq!(parts("'r'\\m -rf /"), ["rm -rf /"]);
    assert_eq!(parts("$'r'\\m -rf /"), ["rm -rf /"]);
    assert_eq!(parts("$''\\rm -rf /"), ["rm -rf /"]);
    assert_eq!(analyze("echo x$y\\z").commands[0].words.len(), 2);
    // Also after `{` and `[` (`cpo {\oa \..z}`, `~}[\a`).
    assert_eq!(parts("echo {\\oa"), ["echo {oa"]);
    assert_eq!(parts("echo ~}[\\a"), ["echo ~}[a"]);
}

/// bash: `` r`echo`m -rf / `` is the one (dynamic) word `` r`echo`m ``: it runs `rm -rf /`.
/// tree-sitter-bash splits it before the backtick when text follows the closing one, so wicket
/// lists the static program `r` and the argument `` `echo`m `` and says understood (with the
/// deny rule `bash(rm -rf*)`, allowed in the sandbox; checked). `` r`echo m` `` (nothing after)
/// is one word and not understood, as it should be. Found by the `differential` fuzz target
/// (`` ec`o nce `un ced ``, `` cat ~at`~/.sscat ~at`~/.ssh/sa ``).
#[test]
fn word_then_backtick_is_one_word() {
    let a = analyze("r`echo`m -rf /");
    assert!(!a.understood, "the program is dynamic: {:?}", parts("r`echo`m -rf /"));
    assert_eq!(a.commands[0].words.len(), 3);
    assert_eq!(analyze("cat ~a`x`y").commands[0].words.len(), 2);
    assert_eq!(parts("echo a`echo b`c"), ["echo a`echo b`c", "echo b"]);
}

/// The same split in a redirection target: bash writes `echo x > .e`echo n`v` to `.env`; wicket
/// lists the target `.e` (static, not sensitive) and an extra argument `` `echo n`v ``, so the
/// sensitive-file check does not fire (in the sandbox the call is allowed, where `> .env` is
/// "deny by sensitive"; checked with `Policy::decide`). Found by the `differential` fuzz target
/// (`hcho x > $Dї___…^__`___…`), after the argument case was fixed.
#[test]
fn redirect_target_then_backtick_is_one_word() {
    let a = analyze("echo x > .e`echo n`v");
    let c = &a.commands[0];
    assert_eq!(c.canonical(), "echo x");
    assert_eq!(c.redirects[0].target.raw, ".e`echo n`v");
    assert_eq!(c.redirects[0].target.value, None);
    // And before an escape after a quoted string or an expansion: `> .e"n"\v` writes `.env`
    // (wicket: target `.e"n"`, argument `v`). Found by the `differential` fuzz target
    // (`$'\28r\28.'lsls- &>$1r\155' fff$'r\155'   >'-`).
    for (src, target) in [("echo x > .e\"n\"\\v", ".e\"n\"\\v"), ("echo x > a$b\\c", "a$b\\c")] {
        let a = analyze(src);
        let c = &a.commands[0];
        assert_eq!(c.canonical(), "echo x", "{src:?}");
        assert_eq!(c.redirects[0].target.raw, target, "{src:?}");
    }
    assert_eq!(analyze("echo x > .e\"n\"\\v").commands[0].redirects[0].target.value.as_deref(), Some(".env"));
}

#[test]
fn word_then_backtick_at_the_end() {
    assert!(!analyze("r`echo m` -rf /").understood);
    assert_eq!(parts("echo `echo b`c"), ["echo `echo b`c", "echo b"]);
}

/// bash: a `$` that starts no expansion is a literal character and the word goes on; one
/// that does (`$2`, `$-`, `$@`, `$An`) is an expansion inside the word. tree-sitter-bash often
/// ends the word at the `$` instead: `1'r'$2` becomes the static words `1r$` and `2` (bash: one
/// word holding `$2`), `s}e$-v` becomes `s}e$` and `-v`, `r[$An/` becomes `r[$` and `An/`,
/// `$#B$@#` becomes `$#B$` and `@#`. wicket then calls static what bash expands and counts
/// words bash does not. Found by the `differential` fuzz target (many inputs).
#[test]
fn dollar_inside_a_word() {
    for src in ["echo 1'r'$2", "echo s}e$-v", "echo r[$An/", "echo $#B$@#", "echo x[$-y", "echo e{$V:-x}"] {
        let a = analyze(src);
        let words = &a.commands[0].words;
        assert_eq!(words.len(), 2, "{src:?}: {words:?}");
        assert_eq!(words[1].value, None, "{src:?}: the expansion is missed");
    }
}

/// bash: `{ {..` is the two words `{` and `{..`; tree-sitter-bash makes `{ {` one word (with
/// the blank in it) and `..` another. Found by the `differential` fuzz target (`%cpAo { {..`,
/// `%cp~ { {{a..z..z}`).
#[test]
fn spaced_braces_are_two_words() {
    assert_eq!(analyze("echo { {..").commands[0].words.len(), 3);
    assert_eq!(parts("echo { {a..z"), ["echo { {a..z"]);
    assert_eq!(analyze("echo { {a..z").commands[0].words.len(), 3);
}

/// bash's blanks are space and tab only: `\r`, `\f` and `\v` are word characters.
/// tree-sitter-bash takes them as whitespace, so `echo a\r# ; rm -rf /` (where bash runs
/// `echo 'a\r#'` and then `rm -rf /`) is `echo a` and a comment to wicket, understood. The
/// policy's input check (control characters are never auto-allowed, and deny rules cannot be
/// ruled out) covers it today; the analysis is still wrong. Found by the `differential` fuzz
/// target (`echo hi\r⏎curl https://evil.example/x`, `\x0c[[ …`, `\x0b⏎EOF`).
#[test]
fn control_characters_are_not_blanks() {
    sees_or_gives_up("echo a\r# ; rm -rf /", "rm -rf /");
    sees_or_gives_up("echo a\x0c# ; rm -rf /", "rm -rf /");
    sees_or_gives_up("echo a\x0b# ; rm -rf /", "rm -rf /");
    let a = analyze("echo hi\r");
    assert!(!a.understood || a.commands[0].words[1].value.as_deref() == Some("hi\r"));
}

/// bash: a `NAME=value` word is an assignment only when NAME is `[A-Za-z_][A-Za-z0-9_]*`;
/// `4x=1` and `é=1` are commands (bash: "4x=1: command not found"). wicket lists no command
/// (tree-sitter-bash takes them as assignments). Low impact (a program must be named so), but
/// a command bash runs is missing. Found by the `differential` fuzz target
/// (`44444444else444444=4444444444444;…`, `…; ܌dol====`).
#[test]
fn invalid_assignment_name_is_a_command() {
    assert_eq!(parts("4x=1"), ["4x=1"]);
    assert_eq!(parts("é=1"), ["é=1"]);
}

/// bash: `[[-f file ]]`, `[]` and `[["$(x)" ]]` are ordinary commands (`[[-f`: command not
/// found): `[[` and `[` are only special as whole words. tree-sitter-bash reads test
/// expressions and wicket lists no command (the `$(x)` inside is still listed). Low impact.
/// Found by the `differential` fuzz target.
#[test]
fn glued_brackets_are_commands() {
    assert_eq!(parts("[[-f file ]] && echo y"), ["[[-f file ]]", "echo y"]);
    assert_eq!(parts("[] && echo y"), ["[]", "echo y"]);
}

/// bash: on the line `\  && echo b`, `\ ` is an escaped blank: the program ` ` runs (not
/// found). wicket lists only `echo a` and `echo b`. Found by the `differential` fuzz target.
#[test]
fn escaped_blank_program() {
    assert_eq!(parts("echo a\n\\  && echo b"), ["echo a", " ", "echo b"]);
}

// --- `$'…'` ending in an escaped backslash -------------------------------------------------------

/// bash: in `$'\\'` the `\\` is one escaped backslash and the next `'` ends the string, so
/// `echo $'\\' ; rm -rf ~/x #'` runs `echo '\'` and then `rm -rf ~/x` (the last `'` is in a
/// comment; checked with `echo PWNED`). tree-sitter-bash's `ansi_c_string` token reads `\'`
/// as an escaped quote and runs on to the last `'`: wicket lists one command, `echo` with the
/// argument `\' ; rm -rf ~/x #`, and says understood. An allow rule `bash(echo *)` then allows
/// the call outside the sandbox, and a deny rule `bash(rm -rf*)` does not fire (checked with
/// `Policy::decide`: "allow by rule").
#[test]
fn ansi_c_string_ending_in_escaped_backslash() {
    assert_eq!(parts("echo $'\\\\' ; rm -rf ~/x #'"), ["echo \\", "rm -rf ~/x"]);
    assert_eq!(parts("echo $'a\\\\' ; rm -rf ~/x #'"), ["echo a\\", "rm -rf ~/x"]);
    assert_eq!(parts("echo x$'\\\\'y ; rm -rf ~/x #'"), ["echo x\\y", "rm -rf ~/x"]);
    sees_or_gives_up("$'\\\\' ; rm -rf ~/x #'", "rm -rf ~/x");
    // The same in an assignment, a here-string, a redirection target, an array, `export`,
    // and after `\c` (control-backslash: `\c\\` is one character).
    for src in [
        "x=$'\\\\' ; rm -rf ~/x #'",
        "cat <<< $'\\\\' ; rm -rf ~/x #'",
        "echo > $'\\\\' ; rm -rf ~/x #'",
        "a=($'\\\\') ; rm -rf ~/x #')",
        "export x=$'\\\\' ; rm -rf ~/x #'",
        "echo $'\\c\\\\' ; rm -rf ~/x #'",
    ] {
        sees_or_gives_up(src, "rm -rf ~/x");
    }
}

#[test]
fn ansi_c_string_escaped_quote() {
    assert_eq!(parts("echo $'\\'' ; echo x"), ["echo '", "echo x"]);
    assert_eq!(parts("echo $'\\\\\\'' ; echo x"), ["echo \\'", "echo x"]);
}

// --- `$"…"` (locale-translated string) -------------------------------------------------------

/// bash: `printf '[%s]' $"-rf" /` prints `[-rf][/]`: `$"…"` is one word with the string's
/// value. wicket reads `$` and `"-rf"` as two words, so `rm $"-rf" /` is `rm $ -rf /` to the
/// policy: a deny rule `bash(rm -rf*)` does not match it (checked: the call is allowed in the
/// sandbox, and by any allow rule `bash(rm *)` outside it). tree-sitter-bash gives
/// `(command name: (command_name (word)) argument: (string …))` with the `$` as an anonymous
/// token of the command.
#[test]
fn gettext_string_is_one_word() {
    assert_eq!(parts("rm $\"-rf\" /"), ["rm -rf /"]);
    assert_eq!(parts("echo $\"translated\""), ["echo translated"]);
    // After a prefix that tree-sitter-bash lexes as a test operator (`-g`, `-f`, `-n` …), the
    // prefix must stay: bash prints `-gb` (found by the `differential` fuzz target,
    // `rg 'TODO|FIXMo' -g$"rm "hca-tO …`; the word lost its `-g`).
    assert_eq!(parts("echo -g$\"b\""), ["echo -gb"]);
    assert_eq!(parts("rm -r$\"f\" /"), ["rm -rf /"]);
    // Inside a word the `$` stays in the value: bash prints `xa`.
    assert_eq!(parts("echo x$\"a\""), ["echo xa"]);
}

/// In program position it is already right.
#[test]
fn gettext_string_as_program() {
    assert_eq!(parts("$\"rm\" -rf /"), ["rm -rf /"]);
}

// --- `0<` / `0>` --------------------------------------------------------------------------------

/// bash: `cat 0< in.txt` runs `cat` with stdin from `in.txt`; argv is `[cat]`. wicket lists
/// `cat 0` (tree-sitter-bash reads `0` as a `number` argument, not a `file_descriptor`; `1>`,
/// `2>`, `3<` … are fine), and the redirection has no descriptor.
#[test]
fn fd_zero_redirection_is_not_an_argument() {
    assert_eq!(parts("cat 0< in.txt"), ["cat"]);
    assert_eq!(parts("cat 0>out"), ["cat"]);
    let a = analyze("cat 0< in.txt");
    let r = &a.commands[0].redirects[0];
    assert_eq!((r.fd, r.op), (Some(0), RedirectOp::Read));
}

#[test]
fn other_descriptors_are_not_arguments() {
    assert_eq!(parts("cat 1> out"), ["cat"]);
    assert_eq!(parts("cat 3< in"), ["cat"]);
    assert_eq!(parts("ls 2>&1"), ["ls"]);
}

// --- `-` before `<<` ------------------------------------------------------------------------------

/// bash: `git commit -F - <<EOF` runs `git commit -F -` (the message from stdin). wicket lists
/// `git commit -F`: tree-sitter-bash drops the `-` word right before a here-document operator
/// (`(command … argument: (word) argument: (word))` with no node for it). Any command loses
/// such an argument: `rm -rf / - <<EOF` is listed as `rm -rf /`.
#[test]
fn dash_before_heredoc_is_kept() {
    assert_eq!(parts("git commit -F - <<EOF\nmessage\nEOF"), ["git commit -F -"]);
    assert_eq!(parts("cat - <<EOF\nx\nEOF"), ["cat -"]);
}

#[test]
fn dash_elsewhere_is_kept() {
    assert_eq!(parts("echo - x"), ["echo - x"]);
    assert_eq!(parts("echo - < f"), ["echo -"]);
    assert_eq!(parts("echo -- <<EOF\nx\nEOF"), ["echo --"]);
}

// --- `unset a[0]` -------------------------------------------------------------------------------

/// bash: `unset arr[0]` passes the one word `arr[0]`. wicket lists `unset arr [0]`
/// (tree-sitter-bash's `unset_command` holds a `concatenation` whose parts wicket takes as
/// separate words).
#[test]
fn unset_subscript_is_one_word() {
    assert_eq!(parts("unset arr[0]"), ["unset arr[0]"]);
    assert_eq!(parts("unset a[0] b"), ["unset a[0] b"]);
}

#[test]
fn unset_quoted_subscript() {
    assert_eq!(parts("unset \"a[0]\""), ["unset a[0]"]);
}

// --- `$((…))` in a here-document ------------------------------------------------------------------

/// bash: an unquoted here-document body `$((1+1))` is the arithmetic expansion `2`. wicket
/// lists a command `1+1` (tree-sitter-bash parses it as `$( (1+1) )`, a command substitution
/// holding a subshell). Fails closed (an extra command an allow rule must cover), but it is a
/// wrong command list.
#[test]
fn heredoc_arithmetic_is_not_a_command() {
    assert_eq!(parts("cat <<EOF\n$((1+1))\nEOF"), ["cat"]);
}

// --- a here-document body starting with a backslash ---------------------------------------------

/// bash: `bash <<EOF⏎\\x⏎rm -rf /⏎EOF` feeds the script `\x⏎rm -rf /` to bash, which runs `x`
/// and `rm -rf /` (checked with `echo PWNED` in place of `rm`). tree-sitter-bash reads the
/// body's first line (from the newline, when it starts with a backslash) as an `argument` of
/// the `heredoc_redirect`; wicket makes it an argument of the command (`bash \n\x`) and the
/// here-document target loses the body. The policy, which reads a body fed to a shell, then
/// misses the `rm`: with a deny rule `bash(rm -rf*)` the call is allowed in the sandbox. Also
/// with a quoted delimiter (`<<'EOF'`) and a single backslash (`\x`).
#[test]
fn heredoc_body_starting_with_backslash() {
    for (src, body) in [
        ("bash <<EOF\n\\x\nrm -rf /\nEOF", "rm -rf /"),
        ("bash <<'EOF'\n\\\\x\nrm -rf /\nEOF", "rm -rf /"),
        ("cat <<EOF\n\\\\\nEOF", "\\"),
    ] {
        let a = analyze(src);
        assert_eq!(a.commands.len(), 1, "{src:?}: {:?}", a.commands);
        let c = &a.commands[0];
        assert_eq!(c.words.len(), 1, "{src:?}: the body became arguments: {:?}", c.canonical());
        let target = c.redirects.iter().find(|r| r.op == RedirectOp::HereDoc).map(|r| r.target.raw.as_str());
        assert!(target.unwrap_or("").contains(body), "{src:?}: the body is lost: {target:?}");
    }
}

/// The same body on a later line, or after a leading blank, is fine.
#[test]
fn heredoc_backslash_on_later_line() {
    assert_eq!(parts("bash <<EOF\necho a\n\\\\x\nrm -rf /\nEOF"), ["bash"]);
    assert_eq!(parts("bash <<EOF\n \\\\x\nrm -rf /\nEOF"), ["bash"]);
}

// --- a here-document delimiter with blanks around it ------------------------------------------

/// bash ends a `<<EOF` body only at a line that is exactly `EOF` (`<<-`: after leading tabs).
/// tree-sitter-bash also ends it at ` EOF`, `EOF ` or `⇥EOF`, and parses the rest of the body
/// as commands. Usually that lists more commands than bash runs (fails closed), but a quote
/// in the body turns it around: below, bash feeds ` EOF⏎'⏎` to `cat` and then runs
/// `rm -rf /` (the `'` after it is in a comment); wicket lists `cat` and a program named
/// `⏎EOF⏎rm -rf / #` and says understood. With a deny rule `bash(rm -rf*)` the call is
/// allowed in the sandbox (checked with `echo PWNED`: it runs, for all three forms).
#[test]
fn heredoc_delimiter_with_blanks_does_not_end_the_body() {
    sees_or_gives_up("cat <<EOF\n EOF\n'\nEOF\nrm -rf / #'", "rm -rf /");
    sees_or_gives_up("cat <<-EOF\n\t EOF\n'\nEOF\nrm -rf / #'", "rm -rf /");
    sees_or_gives_up("cat <<'EOF'\nEOF \n'\nEOF\nrm -rf / #'", "rm -rf /");
    assert_eq!(parts("cat <<EOF\n  EOF\necho in-body\nEOF"), ["cat"]);
    assert_eq!(parts("cat <<EOF\n\tEOF\necho in-body\nEOF"), ["cat"]);
}

/// bash joins `\\⏎` in an unquoted here-document body before it looks for the delimiter:
/// `x\\⏎EOF` is the body line `xEOF`, the body goes on, and after the real `EOF` bash runs
/// `rm -rf /`. tree-sitter-bash ends the body at the joined `EOF` and reads a single-quoted
/// program; wicket says understood without the `rm` (checked with `echo PWNED`: it runs).
#[test]
fn heredoc_continuation_before_delimiter() {
    sees_or_gives_up("cat <<EOF\nx\\\nEOF\n'\nEOF\nrm -rf / #'", "rm -rf /");
}

/// The same joining splits an expansion: bash reads the body `$\\⏎(rm -rf ~/x)` as
/// `$(rm -rf ~/x)` and runs it (checked with `echo PWNED`). tree-sitter-bash reads a `$`
/// (`simple_expansion`) and literal text, so wicket lists only `cat` and says understood; with
/// a deny rule `bash(rm -rf*)` the call is allowed in the sandbox. The line-continuation
/// canary covers the command text, not here-document bodies.
#[test]
fn heredoc_continuation_inside_expansion() {
    sees_or_gives_up("cat <<EOF\n$\\\n(rm -rf ~/x)\nEOF", "rm -rf ~/x");
    sees_or_gives_up("cat <<EOF\nx $\\\n(rm -rf ~/x) y\nEOF", "rm -rf ~/x");
}

/// With a quoted delimiter there is no joining: the body ends at `EOF`.
#[test]
fn heredoc_quoted_continuation_before_delimiter() {
    assert_eq!(parts("cat <<'EOF'\nx\\\nEOF\necho after"), ["cat", "echo after"]);
}

#[test]
fn heredoc_delimiter_exact() {
    assert_eq!(parts("cat <<EOF\nx\nEOF\nid"), ["cat", "id"]);
    assert_eq!(parts("cat <<-EOF\n\tx\n\tEOF\nid"), ["cat", "id"]);
}

// --- quoted `$(…)` in arithmetic and subscripts ------------------------------------------------

// bash evaluates an array subscript inside arithmetic as an expression *after* expanding it,
// and single quotes there do not stop `$(…)`: `echo $(( 'a[$(id)]' ))` runs `id` (checked with
// bash 5.2.15 for every input below: the command's output appears). wicket sees a single-quoted
// string, lists no command and says understood, so an allow rule for `echo *` lets `echo $((
// 'a[$(rm -rf ~)]' ))` run outside the sandbox, and a deny rule never sees the `rm`.

#[test]
fn quoted_subscript_in_arithmetic_expansion() {
    sees_or_gives_up("echo $(( 'a[$(id)]' ))", "id");
    sees_or_gives_up("echo $[ 'a[$(id)]' ]", "id");
}

#[test]
fn quoted_subscript_in_arithmetic_command() {
    sees_or_gives_up("(( 'a[$(id)]' ))", "id");
    sees_or_gives_up("case 1 in $(( 'a[$(id)]' ))) ;; esac", "id");
}

#[test]
fn quoted_subscript_in_test_command() {
    sees_or_gives_up("[[ 'a[$(id)]' -eq 1 ]]", "id");
    sees_or_gives_up("[[ -v 'a[$(id)]' ]]", "id");
    // `[` is not listed as a command at all, so no caller can check its `-v` operand.
    sees_or_gives_up("[ -v 'a[$(id)]' ]", "id");
}

#[test]
fn quoted_subscript_in_array_reference() {
    sees_or_gives_up("echo ${a['$(id)']}", "id");
    sees_or_gives_up("a['$(id)']=1", "id");
}

/// The unquoted forms are seen.
#[test]
fn unquoted_subscript_is_seen() {
    sees_or_gives_up("echo $(( a[$(id)] ))", "id");
    sees_or_gives_up("(( a[$(id)] ))", "id");
    sees_or_gives_up("a[$(id)]=1", "id");
    sees_or_gives_up("echo ${a[$(id)]}", "id");
}

// --- differences that are right (kept so they stay right) -------------------------------------

/// bash: inside double quotes a backtick substitution unescapes `\"`: the inner command is
/// `echo "x"`, argv `[echo, x]` (brush-parser gets this one wrong; wicket is right).
#[test]
fn backtick_in_double_quotes_unescapes_quote() {
    assert_eq!(parts("echo \"`echo \\\"x\\\"`\""), ["echo \"`echo \\\"x\\\"`\"", "echo x"]);
}

/// bash: `( ( nested ) )` is two subshells (brush-parser reads `((`).
#[test]
fn spaced_parens_are_subshells() {
    assert_eq!(parts("( ( nested ) )"), ["nested"]);
}

/// bash: `coproc (ls)` runs `ls` in a coprocess; wicket lists the program `coproc` and `ls`.
#[test]
fn coproc_subshell() {
    assert_eq!(parts("coproc (ls)"), ["coproc", "ls"]);
}

// --- an assignment value glued to a word after a quote ------------------------------------------

/// bash: `a='x'\echo rm -rf ~/x` is the assignment `a=xecho` and the command `rm -rf ~/x`
/// (the escaped `\e` continues the word); checked with `echo PWNED` in place of `rm`.
/// tree-sitter-bash ends the value at the closing quote and reads `\echo` as the program: wicket
/// listed `echo rm -rf ~/x`, which `bash(echo *)` allows. The same after `"…"` and `$'…'`.
/// Found by the `differential` fuzz target (`gx=tef$'>$(…`'\echoitW-C .%/e…`: an extra word).
#[test]
fn assignment_value_glued_after_quote() {
    for src in
        ["a='x'\\echo rm -rf ~/x", "a=\"x\"\\echo rm -rf ~/x", "a=$'x'\\echo rm -rf ~/x", "b=1 a='x'\\echo rm -rf ~/x"]
    {
        assert_eq!(parts(src), ["rm -rf ~/x"], "{src:?}");
        assert!(analyze(src).understood, "{src:?}");
    }
    let a = analyze("a='x'\\echo'y' rm");
    assert_eq!(a.commands[0].assignments[0].value.value.as_deref(), Some("xechoy"));
    assert_eq!(parts("a='x'\\echo"), [""]);
    // A blank ends the value: `echo` is the program.
    assert_eq!(parts("a='x' \\echo rm"), ["echo rm"]);
}

/// bash: in `a='x'\echo b=2 rm` the `b=2` is a second assignment and `rm` the program. The tree
/// reads `b=2` as an argument after the program `\echo`; once the continuation is glued back it
/// would be the program word. A word shaped like an assignment in command position is never a
/// program to bash: not understood.
#[test]
fn assignment_shaped_program_is_not_understood() {
    for src in ["a='x'\\echo b=2 rm", "a='x'\\echo b[1]=2 rm", "a='x'\\echo b+=2 rm"] {
        sees_or_gives_up(src, "rm");
        assert!(!analyze(src).understood, "{src:?}");
    }
}

// --- a bare `{` inside `${…}` ---------------------------------------------------------------------

/// bash: `echo ${s%{1}>x; echo PWNED #}` ends the expansion at the first `}` (a bare `{` does not
/// nest), then writes `x` and runs `echo PWNED`. After a pattern operator (`%`, `#`, `/`, `,,`,
/// `^^`) tree-sitter-bash counts the `{` and reads everything up to the last `}` as the pattern:
/// wicket listed one `echo` (allowed by `bash(echo *)`) and no write to `x`. Found by the
/// `differential` fuzz target (`echoK{ al%${s,,,,, ~g!g{12}>~K{ …}`: a redirection inside the
/// word). Not understood when the expansion holds a bare `{` and an inner `}`.
#[test]
fn bare_brace_inside_expansion() {
    for src in ["echo ${s%{1}>x; echo PWNED #}", "echo ${s,,{1}>x y}", "echo ${s/{1}>x; echo PWNED #}"] {
        sees_or_gives_up(src, "echo PWNED");
        assert!(!analyze(src).understood, "{src:?}");
    }
    // After `:-` the tree ends it where bash does.
    assert_eq!(parts("echo ${s:-{1}>x y}"), ["echo ${s:-{1} y}"]);
    assert!(analyze("echo ${a:-${b}}").understood);
}

// --- a `;` shown to the parser as a word character ------------------------------------------------

/// bash: `[x]y; echo PWNED; }]` runs `[x]y`, `echo PWNED` and `}]` (a `[` glued to text is an
/// ordinary word). tree-sitter-bash reads a test command whose one word holds `; echo PWNED; }`;
/// the re-parse that turns the misread test into a command also showed the byte before each
/// blank in that word as a word character (meant for brackets: `{ {`), here the `;`. wicket
/// listed the single command `[x]y; echo PWNED; }]`. Found by the `differential` fuzz target
/// (`…:;[*]:;…`, minimised to `:;[]u; }]`).
#[test]
fn semicolon_in_misread_test_is_kept() {
    assert_eq!(parts("[x]y; echo PWNED; }]"), ["[x]y", "echo PWNED", "}]"]);
    assert_eq!(parts(":;[]u; }]"), [":", "[]u", "}]"]);
    assert_eq!(parts("echo { {"), ["echo { {"]);
    assert_eq!(analyze("echo { {").commands[0].words.len(), 3);
}

// --- a substitution in a `${…}` pattern -----------------------------------------------------------

/// bash: `R=x; echo ${R/a$(echo PWNED)}` runs `echo PWNED` (the pattern is expanded when `R` is
/// set). tree-sitter-bash reads a pattern that does not start with the substitution as one
/// opaque `regex` token: wicket listed only `echo ${R/a$(echo PWNED)}`, allowed by
/// `bash(echo *)`. The same after `%`, `#`, `//`, `^^`, `,` and with backticks or `$[…]`. Found
/// by the `differential` fuzz target (minimised to `o ${R/''""$(d)}`). Not understood.
#[test]
fn substitution_in_expansion_pattern() {
    for src in [
        "R=x; echo ${R/a$(echo PWNED)}",
        "echo ${R%a$(echo PWNED)}",
        "echo ${R//a$(echo PWNED)/b}",
        "echo ${R^^a$(echo PWNED)}",
        "echo ${R/a$[$(echo PWNED)]}",
        "echo ${R#a`echo PWNED`}",
    ] {
        sees_or_gives_up(src, "echo PWNED");
        assert!(!analyze(src).understood, "{src:?}");
    }
    // A pattern that starts with the substitution is a node of its own.
    assert_eq!(parts("echo ${R/$(echo PWNED)}"), ["echo ${R/$(echo PWNED)}", "echo PWNED"]);
    assert!(analyze("echo ${x/a$y/b} ${x%.*}").understood);
}

/// bash: `o ${R/${/} }` is one word (the expansion ends at the last `}`); tree-sitter-bash ends
/// it at the `}` of the nested `${/}` and makes ` }` a second word. Found by the `differential`
/// fuzz target (minimised). More `${` than `}` in the node's text: not understood.
#[test]
fn nested_expansion_in_pattern_ends_early() {
    for src in ["o ${R/${/} }", "o ${V/${/}'' }''"] {
        assert!(!analyze(src).understood, "{src:?}");
    }
}

// --- brace expansion across a split word ------------------------------------------------------

/// bash: `echo a{$,b}` prints `a$ ab` and `.{$,}` runs the program `.$` with the argument `.`
/// (brace expansion). tree-sitter-bash splits the word at the `$`; glued back, neither half saw
/// the brace expansion and wicket gave the static value `a{$,b}` (and the program `.{$,}`).
/// Found by the `differential` fuzz target (minimised to `.{$,}`). The value is now unknown.
#[test]
fn brace_expansion_across_split_word() {
    assert_eq!(analyze("echo a{$,b}").commands[0].words[1].value, None);
    assert_eq!(analyze("echo {a,$}b").commands[0].words[1].value, None);
    assert!(!analyze(".{$,}").understood);
}

// --- a backtick inside a backtick substitution ----------------------------------------------------

/// bash: ``echo e`echo m`echo` rm -rf ~/x` `` runs `echo m` and ` rm -rf ~/x` (an unescaped
/// backtick always ends the substitution; `echo` between them is text). tree-sitter-bash nests
/// the middle pair inside one substitution (`echo m`echo` rm -rf ~/x` with `echo` nested):
/// wicket listed `echo` commands only. Found by the `differential` fuzz target (minimised to
/// ``n `""`e`␗ m`-` -`m``). A backtick substitution without a backslash holding a backtick is
/// not understood.
#[test]
fn backtick_inside_backtick_substitution() {
    // (With a backslash inside, the contents are re-parsed, but the ends are still wrong.)
    for (src, cmd) in
        [("echo e`echo m`echo` rm -rf ~/x`", "rm -rf ~/x"), ("n e`b m`x` c`m", "c"), ("n e`b m`-` \\ `m", " ")]
    {
        sees_or_gives_up(src, cmd);
        assert!(!analyze(src).understood, "{src:?}");
    }
    assert!(analyze("echo `echo \\`id\\``").understood);
    assert!(analyze("echo \"`echo a`\"`echo b`").understood);
}

/// bash: in `o ${R/5"}"" x}` the `"}"` is quoted text of the pattern and the expansion ends at
/// the last `}` (one word); tree-sitter-bash ends it at the quoted `}` and reads ` x}` as more
/// words. The same for `$"…"` (`echo ${V/$"} '' #"}`). Found by the `differential` fuzz target
/// (second run). An expansion whose text ends inside a quote: not understood.
#[test]
fn expansion_ending_inside_a_quote() {
    for src in ["o ${R/5\"}\"\" ${R/0\"}\"}\"\"\"$(d)}", "echo \"\" ${V/$\"} '' #\"}", "echo ${R/'}'}"] {
        assert!(!analyze(src).understood, "{src:?}");
    }
    assert!(analyze("echo \"${x:-\"it's\"}\" ${x//\\\"/}").understood);
}

// --- `!` glued to a word ----------------------------------------------------------------------

/// bash: `x; !]` runs `x` and the program `!]` (`!` is a reserved word only as a word of its
/// own; `!echo PWNED` runs the program `!echo`). tree-sitter-bash reads `!]` as the negation of
/// the command `]`. Found by the `differential` fuzz target (second run, minimised to `\ &!]`).
/// A `!` glued to a word character: not understood; `! cmd` and `!(…)` are negations to bash too.
#[test]
fn bang_glued_to_a_word() {
    assert!(!analyze("x; !]").understood);
    assert_eq!(parts("!echo PWNED"), ["!echo PWNED"]);
    assert_eq!(parts("! echo PWNED"), ["echo PWNED"]);
    assert!(analyze("!(echo a)").understood);
}

// --- a word glued to a redirection before the program -------------------------------------------

/// bash: `>''\f` writes the file `f` and runs nothing; `>'x'\f y` writes `xf` and runs `y` (the
/// escaped `\f` continues the target). tree-sitter-bash ends the target at the quote and reads
/// `\f` as the program: wicket listed the program `f` with a write to `''`. Found by the
/// `differential` fuzz target (second run, minimised). A word that starts where a redirection
/// ends: not understood. (After the program the tree joins them: `echo x >''\.env` writes
/// `.env`.)
#[test]
fn word_glued_to_a_prefix_redirection() {
    for src in [">''\\f", ">'x'\\f y", "2>''\\f"] {
        assert!(!analyze(src).understood, "{src:?}");
    }
    let a = analyze("echo x >''\\.env");
    assert!(a.understood);
    assert_eq!(a.commands[0].redirects[0].target.value.as_deref(), Some(".env"));
    assert!(analyze("a=1 >f cmd; echo >&2 x").understood);
}

// --- brace expansion with an escaped comma ---------------------------------------------------

/// bash: `o{}{,{\,}` makes no brace expansion (the outer `{` has no `}` of its own, the inner
/// one no unescaped comma): the program `o{}{,{,}`; `echo {a,\,b}` expands to `a ,b`. wicket
/// agrees; brush-parser finds an expansion in the first (the `differential` fuzz target, third
/// run), so the oracle does not judge brace words with a backslash and this test pins bash's
/// answers.
#[test]
fn brace_expansion_with_escaped_comma() {
    assert_eq!(parts("o{}{,{\\,}"), ["o{}{,{,}"]);
    // (wicket leaves this one unknown: conservative, bash's value is `{a,{,}`.)
    let v = analyze("echo {a,{\\,}").commands[0].words[1].value.clone();
    assert!(v.is_none() || v.as_deref() == Some("{a,{,}"), "{v:?}");
    assert_eq!(analyze("echo {a,\\,b}").commands[0].words[1].value, None);
}

// --- `$$(` ----------------------------------------------------------------------------------------

/// bash: `r=({e$$(d))` is a syntax error (`$$` is the pid, then `(` is unexpected): nothing runs.
/// tree-sitter-bash read `$` and the substitution `$(d)` and wicket said understood, listing `d`
/// (more than bash runs, not a bypass, but a misread). Found by the `differential` fuzz target
/// (third run, minimised). A `$(` whose `$` pairs with the `$` before it: not understood.
/// (`$$$(id)` is `$$` and `$(id)`, `\$$(id)` is `$` and `$(id)`: both run `id`.)
#[test]
fn dollar_dollar_paren() {
    for src in ["r=({e$$(d))", "a=({}!$$(id))"] {
        assert!(!analyze(src).understood, "{src:?}");
    }
    assert_eq!(parts("echo $$$(id)"), ["echo $$$(id)", "id"]);
    assert_eq!(parts("echo \\$$(id)"), ["echo \\$$(id)", "id"]);
    assert!(analyze("echo $$$(id) \\$$(id)").understood);
}

// --- a `$` before a blank ---------------------------------------------------------------------
// bash 5.2 (`set -x`): `$ "echo x"` runs the program `$` with the argument `echo x`
// ("$: command not found"); `a $ b` passes `$` as a word. tree-sitter-bash joined the `$` to the
// quoted string after the blank (a `translated_string`, so wicket listed the program `echo x`)
// or dropped it. Found by the `differential` fuzz target.

/// The words of each command, as bash passes them (`None` for a dynamic word).
fn argvs(src: &str) -> Vec<Vec<Option<String>>> {
    let a = analyze(src);
    assert!(a.understood, "{src:?}: {:?}", a.problems);
    a.commands.iter().map(|c| c.words.iter().map(|w| w.value.clone()).collect()).collect()
}

#[test]
fn dollar_before_a_blank_is_a_literal_word() {
    let s = |v: &str| Some(v.to_string());
    assert_eq!(argvs("$ \"rm\" -rf ~"), [vec![s("$"), s("rm"), s("-rf"), s("~")]]);
    assert_eq!(argvs("$ \"echo x\""), [vec![s("$"), s("echo x")]]);
    assert_eq!(argvs("git $ push"), [vec![s("git"), s("$"), s("push")]]);
    assert_eq!(argvs("echo $\"x\""), [vec![s("echo"), s("x")]]);
}

/// Text the parser skips without an error node is not understood. tree-sitter-bash drops a
/// command named `-` (bash runs a function of that name) when an assignment-like word follows;
/// the `differential` fuzz target found it. Confirmed in bash 5.2: `function - { echo PWNED; };
/// true | - r==~ ^m` prints PWNED.
#[test]
fn text_the_parser_skips_is_not_understood() {
    for src in ["true & - d=x", "true | - r==~ ^m", "- r==~ ^m", "true; - d=x y", "true && - a=b echo hi"] {
        let a = analyze(src);
        let dash_seen = a.commands.iter().any(|c| c.words.first().is_some_and(|w| w.raw == "-"));
        assert!(!a.understood || dash_seen, "{src:?}: the command `-` was dropped: {:?}", a.commands);
    }
    // The here-document case the walker repairs stays understood.
    assert!(analyze("git commit -F - <<'EOF'\nmsg\nEOF").understood);
    assert!(analyze("cat - - <<EOF\nx\nEOF").understood);
}

/// In double quotes bash removes a line continuation before it looks for `$`: `"$\⏎(id)"`
/// runs `id` (bash 5.2 in bwrap). The tree keeps it literal, so it is not understood.
#[test]
fn a_continuation_after_a_dollar_in_double_quotes_is_not_understood() {
    for src in ["echo \"a$\\\n(id)b\"", "echo \"$\\\n\\\n(id)\"", "echo \"$\\\n{x}\""] {
        assert!(!analyze(src).understood, "{src:?}");
    }
    // An escaped `$` stays literal text, and a continuation elsewhere in quotes is removed.
    assert_eq!(argvs("echo \"a\\$\\\n(id)\""), [vec![Some("echo".to_string()), Some("a$(id)".to_string())]]);
    assert_eq!(argvs("echo \"x\\\ny\""), [vec![Some("echo".to_string()), Some("xy".to_string())]]);
}

/// The `declare` family parses a value that starts with `(` again as an array's elements when
/// the name is an array, and evaluates their subscripts; a name reference evaluates its target's
/// subscript at every expansion; an indexed array's keys are arithmetic. Each shape below ran
/// `$(…)` in bash 5.2 (in bwrap) with the payload only in data.
#[test]
fn declare_values_that_bash_evaluates_are_not_understood() {
    for src in [
        "declare -a x='([$(id)]=1)'",
        "declare -a x=\"$(cat f)\"",
        "declare -a x; declare x=\"$(cat f)\"",
        "declare x=\"$v\"; x[1]=2",
        "read -ra x; declare x=\"$v\"",
        "mapfile x < f; local x=\"$v\"",
        "declare BASH_ALIASES=\"$(cat f)\"",
        "export -a x=\"$(cat f)\"",
        "declare -n r=x",
        "local -rn r",
        "declare -a arr=([$k]=1)",
        "arr=([k]=1)",
    ] {
        let a = analyze(src);
        assert!(!a.understood, "{src:?}: {:?}", a.commands);
    }
    for src in [
        "declare out=\"$(date)\"",
        "local d=\"$1\"",
        "declare title='(draft)'",
        "declare -a arr=(1 $(y))",
        "arr=([0]=a [1]=b)",
        "export PATH=\"$HOME/bin:$PATH\"",
    ] {
        let a = analyze(src);
        assert!(a.understood, "{src:?}: {:?}", a.problems);
    }
}

/// tree-sitter-bash can start a word token with a newline and glue it to the word before
/// (after a redirection: `cat <f O⏎\`id\``), so the next line reads as arguments of the
/// first command. Bash ends the command at the newline (confirmed in bash 5.2: `echo ok
/// >/dev/null O⏎\echo PWN` prints PWN). Found by the `differential` fuzz target.
#[test]
fn a_line_glued_to_a_word_after_a_redirection_is_not_understood() {
    for src in ["cat<F<E O\n\\`id\\`\nEOF", "echo ok >/dev/null O\n\\rm -rf x", "cat O\n\\`id\\`"] {
        assert!(!analyze(src).understood, "{src:?}");
    }
    // Here-document text the walker knows is body text stays understood.
    assert!(analyze("cat <<'EOF'\n\\documentclass{article}\nEOF").understood);
}

/// `{` and `}` are reserved words only as whole words. `{echo -execdir a;}#` runs the
/// programs `{echo` and `}#` in bash 5.2 (`set -x` shows both); tree-sitter reads a group
/// around `echo`. Found by the `differential` fuzz target.
#[test]
fn a_brace_glued_to_a_word_is_not_a_group() {
    for src in ["{echo -execdir a;}#", "{ echo a; }#", "{ echo a; }x"] {
        assert!(!analyze(src).understood, "{src:?}");
    }
    for src in ["{ echo a; }", "{ a; } >f", "{ a; }&", "x=$({ echo a; })", "f() { echo; }; f"] {
        assert!(analyze(src).understood, "{src:?}");
    }
}

// --- brush differs from bash here; wicket follows bash ------------------------------------------
// The `differential` fuzz target reported these; bash 5.2 (`set -x`) agrees with wicket, so they
// are pinned here rather than taught to the oracle.

#[test]
fn test_brackets_inside_an_argument_are_plain_words() {
    // `echo -$$[[ v -eq 1 ]]$$` → echo '-PID[[' v -eq 1 ']]PID': six words with the program (brush: four).
    let a = analyze("echo -$$[[ v -eq 1 ]]$$");
    assert!(a.understood, "{:?}", a.problems);
    assert_eq!(a.commands.len(), 1);
    assert_eq!(a.commands[0].words.len(), 6);
}

#[test]
fn two_process_substitutions_glued_are_one_redirection_target() {
    // `ls > >(cat)>(cat)` → `ls` with its output to `/dev/fd/63/dev/fd/62` (brush: an extra
    // empty argument), and both `cat`s run.
    let mut p = parts("ls > >(cat)>(cat)");
    p.sort();
    assert_eq!(p.len(), 3, "{p:?}");
    assert_eq!(analyze("ls > >(cat)>(cat)").commands.iter().filter(|c| c.words.len() == 1).count(), 3);
}

// --- strip_wrappers: the command as written first, then what its assignments evaluate ---------
#[test]
fn an_evaluated_assignment_comes_after_the_command_as_written() {
    // Found by the `walker` fuzz target (its seed corpus holds the issue 39 fixture): bash 5.2
    // runs `bash -x -c :` with PS4 expanded before each traced command, so `id` runs too; the
    // unwrapped argvs list `bash -x -c :` first, as for every other command.
    let a = analyze("PS4='$(id)' bash -x -c :");
    let u = wicket_shell::strip_wrappers(&a.commands[0]);
    let first: Vec<&str> = u.argvs[0].iter().map(|w| w.value.as_deref().unwrap_or(&w.raw)).collect();
    assert_eq!(first, ["bash", "-x", "-c", ":"]);
    assert!(
        u.argvs.iter().any(|argv| argv.first().and_then(|w| w.value.as_deref()) == Some("id")),
        "the PS4 value's command is still judged: {:?}",
        u.argvs
    );
}

// --- `enable -f` loads code -----------------------------------------------------------------
#[test]
fn enable_f_runs_code_nobody_can_read() {
    // bash 5.2: `enable -f ./x.so name` dlopen()s the file (its constructor runs) and adds the
    // builtin; `enable -n echo` and `enable -p` only switch or list builtins.
    for src in ["enable -f ./x.so foo", "enable -nf /tmp/x.so foo", "enable $OPT ./x.so foo"] {
        assert!(!analyze(src).understood, "{src}");
    }
    for src in ["enable -n echo", "enable -p", "enable -a"] {
        assert!(analyze(src).understood, "{src}");
    }
}

// --- a word glued to a here-document's `<<` ---------------------------------------------------
#[test]
fn a_word_glued_to_a_heredoc_operator_stays_a_word() {
    // Found by the `differential` fuzz target: bash 5.2 runs `rm -rf<<'EOF'` as `rm -rf` with the
    // here-document on its input (`-rf` ends where `<<` begins, as `-rf<x` does).
    // tree-sitter-bash takes `-rf` into the `<<` token; the word is put back.
    for (src, want) in [
        ("rm -rf<<'EOF'\nx\nEOF", "rm -rf"),
        ("rm -rf<<EOF\nx\nEOF", "rm -rf"),
        ("python3 -C<<'PY'\nimport os\nPY", "python3 -C"),
        ("cat a<<-EOF\n\tx\n\tEOF", "cat a"),
        ("cat <<EOF\nx\nEOF", "cat"),
        ("rm a b<<EOF\nx\nEOF", "rm a b"),
    ] {
        let a = analyze(src);
        assert!(a.understood, "{src:?}: {:?}", a.problems);
        assert_eq!(a.commands.first().map(|c| c.canonical()).as_deref(), Some(want), "{src:?}: {:?}", a.commands);
    }
}

// --- differential fuzz findings where brush-parser, not wicket, differs from bash --------------
#[test]
fn brush_differs_from_bash_here_and_wicket_follows_bash() {
    // bash 5.2 (with `id` a function that counts its calls) runs `id` twice here; brush sees one.
    let src = "git commit -m \"${x-'ommit -m \".{x-'$(id)'l].txt$(id)'l].txt}\"";
    let a = analyze(src);
    let ids = a.commands.iter().filter(|c| c.canonical() == "id").count();
    assert!(!a.understood || ids == 2, "{src:?}: {:?}", a.commands);
    // Two process substitutions glued are one argument to bash (`/dev/fd/63/dev/fd/62`);
    // brush makes two.
    let a = analyze("diff <(sort a)<(sort b)");
    let diff = a.commands.iter().find(|c| c.words.first().and_then(|w| w.value.as_deref()) == Some("diff"));
    assert!(!a.understood || diff.is_some_and(|c| c.words.len() == 2), "{:?}", a.commands);
}

// --- `{name}>file`: a descriptor variable, and its subscript evaluated -------------------------
#[test]
fn a_descriptor_variable_before_a_redirection_is_not_an_argument() {
    // bash 5.2: `echo hi {fd}>out` writes `hi` to out and sets fd (no `{fd}` argument);
    // `echo hi {a['$(touch p)']}>out` runs `touch p` while it evaluates the subscript, even in
    // single quotes (issue 39, class 10).
    let a = analyze("echo hi {fd}>out");
    assert!(a.understood, "{:?}", a.problems);
    assert_eq!(a.commands[0].canonical(), "echo hi");
    for src in ["echo hi {a['$(touch p)']}>out", "echo hi {a[$(touch p)]}>out", "exec {a[1]}<&-"] {
        assert!(!analyze(src).understood, "{src}");
    }
}

#[test]
fn a_joined_line_is_not_the_heredoc_delimiter() {
    // Found by the `differential` fuzz target (brush-parser differs, bash 5.2 confirms wicket):
    // in an unquoted here-document bash joins `x\⏎EOF` into `xEOF` before it looks for the
    // delimiter, so the body goes on to the next `EOF` and `echio` never runs.
    let src = "cat <<EOF\nx\\\nEOF\nechio n-\nEOF";
    let a = analyze(src);
    assert!(!a.understood || a.commands.iter().all(|c| c.canonical() != "echio n-"), "{:?}", a.commands);
}
