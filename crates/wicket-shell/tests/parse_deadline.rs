//! tree-sitter's error recovery around a backtick can take time exponential in what follows
//! it (found by the `walker` fuzz target). A gate that hangs fails open for agents that run a
//! call whose hook timed out, so such text must come back, not understood, within the parse
//! deadline. This is a binary of its own: the parse it gives up on keeps a helper thread busy
//! for the rest of the process.

use wicket_shell::analyze;

/// `true | true \`| true | … | rm -rf ~` with 60 pipes: bash refuses it (the substitution's
/// text starts with `|`); tree-sitter 0.25 needs hours for it (40 pipes: 37 s here).
fn hostile() -> String {
    format!("true | true `| {} | rm -rf ~", vec!["true"; 60].join(" | "))
}

#[test]
fn a_parse_that_would_take_hours_is_not_understood() {
    let a = analyze(&hostile());
    assert!(!a.understood, "{a:?}");
    // The helper that is still busy is replaced: text with a backtick is read again.
    let b = analyze("echo `date` && ls");
    assert!(b.understood, "{b:?}");
    let mut parts: Vec<String> = b.commands.iter().map(|c| c.canonical()).collect();
    parts.sort();
    assert_eq!(parts, ["date", "echo `date`", "ls"]);
}
