//! tree-sitter's error recovery in a pipeline can take time exponential in the pipes after an
//! error (found by the `walker` fuzz target). A gate that hangs fails open for agents that run a
//! call whose hook timed out, so such text must come back, not understood, within the parse
//! deadline. This is a binary of its own: the parse it gives up on keeps a helper thread busy
//! for the rest of the process (two of them here, the most a process lets run over).

use wicket_shell::analyze;

/// `true | true \`| true | … | rm -rf ~` with 60 pipes: bash refuses it (the substitution's
/// text starts with `|`); tree-sitter 0.25 needs hours for it (40 pipes: 37 s here).
fn hostile() -> String {
    format!("true | true `| {} | rm -rf ~", vec!["true"; 60].join(" | "))
}

/// A pipeline of 200 `true`s with a few typos and one `| |` (the `walker` target's input, as
/// found): bash refuses it; tree-sitter 0.25 needs more than five minutes for it.
const SLOW_PIPELINE: &str = include_str!("cases/slow-pipeline.txt");

#[test]
fn a_parse_that_would_take_hours_is_not_understood() {
    let a = analyze(&hostile());
    assert!(!a.understood, "{a:?}");
    // The helper still busy is replaced: guarded text is read again.
    let b = analyze("echo `date` && ls");
    assert!(b.understood, "{b:?}");
    let mut parts: Vec<String> = b.commands.iter().map(|c| c.canonical()).collect();
    parts.sort();
    assert_eq!(parts, ["date", "echo `date`", "ls"]);
    let a = analyze(SLOW_PIPELINE);
    assert!(!a.understood, "{a:?}");
    // Two helpers are still busy: guarded text is not parsed until one ends, so hostile text
    // cannot pile up threads; text without a backtick or a long pipeline still is.
    assert!(!analyze("echo `date`").understood);
    assert!(analyze("echo a | tr a b").understood);
}
