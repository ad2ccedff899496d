//! One tree-sitter parser per thread. The hard question: how to parse thousands of commands a
//! second without rebuilding a parser each time, and without ever panicking when the parser is
//! unavailable (a failed parse is reported as `None`, which the walker turns into a problem).
//!
//! Non-ASCII text is never shown to the parser. tree-sitter-bash's scanner calls C `isdigit`
//! and friends on full code points (undefined behaviour: it crashed on fuzzed input here) and
//! treats Unicode spaces as blanks where bash does not. Bash only gives meaning to ASCII, so every
//! byte >= 0x80 is replaced by an uppercase ASCII letter before parsing: byte offsets stay the
//! same, the walker reads words from the original text, and uppercase letters can never form a
//! reserved word.

use std::borrow::Cow;
use std::cell::RefCell;

use tree_sitter::{Parser, Tree};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn new_parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
    Some(parser)
}

/// Parses `src` with this thread's bash parser. `None` when the parser could not be built or
/// gave up.
pub(crate) fn parse(src: &str) -> Option<Tree> {
    let src = ascii_only(src);
    let src = src.as_ref();
    PARSER.with(|cell| {
        // Re-entrant use (never expected) gets a fresh parser instead of a panic.
        let Ok(mut slot) = cell.try_borrow_mut() else {
            return new_parser()?.parse(src, None);
        };
        if slot.is_none() {
            *slot = new_parser();
        }
        let parser = slot.as_mut()?;
        let tree = parser.parse(src, None);
        if tree.is_none() {
            parser.reset();
        }
        tree
    })
}

/// `src` with every non-ASCII byte replaced by an uppercase letter (same length).
fn ascii_only(src: &str) -> Cow<'_, str> {
    if src.is_ascii() {
        return Cow::Borrowed(src);
    }
    let bytes: Vec<u8> = src.bytes().map(|b| if b.is_ascii() { b } else { b'A' + (b % 26) }).collect();
    // All bytes are ASCII now, so this cannot fail; fall back to a lossy copy just in case.
    match String::from_utf8(bytes) {
        Ok(s) => Cow::Owned(s),
        Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_only_keeps_offsets() {
        let s = "echo é\u{3000}x";
        assert_eq!(ascii_only(s).len(), s.len());
        assert!(ascii_only(s).is_ascii());
    }
}
