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
//!
//! tree-sitter-bash's `ansi_c_string` token reads `\'` as an escaped quote even when the
//! backslash is itself escaped: `$'\\' ; rm -rf ~/x #'` is one string to it, while bash ends
//! the string after `\\`. When a `$'…'` node runs past the quote where bash ends it, every
//! escaped backslash inside the string bash sees is shown to the parser as `\_` (same length)
//! and the text is parsed again, so the tree ends the string where bash does. The walker still
//! reads the original text.

use std::borrow::Cow;
use std::cell::RefCell;

use tree_sitter::{Node, Parser, Tree};

use crate::heredoc;

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn new_parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
    Some(parser)
}

/// How many times a text is re-parsed to make the tree agree with bash (see the module doc).
const MAX_ROUNDS: usize = 8;

/// A parse of a command string.
pub(crate) struct Parsed {
    pub(crate) tree: Tree,
    /// A `$'…'` node that still ends elsewhere than where bash ends it (after [`MAX_ROUNDS`]
    /// re-parses): the byte offset of its start.
    pub(crate) ansi_c_overrun: Option<usize>,
    /// A here-document body line the tree took for the delimiter and bash does not (the
    /// delimiter with blanks around it, or joined to the line before by `\` newline): the byte
    /// offset of the first one. The tree is parsed again past it, but the analysis is not
    /// understood (tree-sitter-bash's here-document scanner is wrong there).
    pub(crate) heredoc_misread: Option<usize>,
}

/// Parses `src` with this thread's bash parser. `None` when the parser could not be built or
/// gave up.
pub(crate) fn parse(src: &str) -> Option<Parsed> {
    let mut view = ascii_only(src);
    let mut tree = parse_view(&view)?;
    // Only an escaped backslash inside `$'…'` can make that token run on, and only a
    // here-document can end too early.
    let ansi_c = view.contains("$'") && view.contains("\\\\");
    let heredocs = view.contains("<<");
    let mut heredoc_misread = None;
    if !ansi_c && !heredocs {
        return Some(Parsed { tree, ansi_c_overrun: None, heredoc_misread });
    }
    for _ in 0..MAX_ROUNDS {
        let patches = patches(tree.root_node(), &view, ansi_c, heredocs);
        if patches.is_empty() {
            return Some(Parsed { tree, ansi_c_overrun: None, heredoc_misread });
        }
        let mut bytes = view.into_owned().into_bytes();
        for &(at, b, in_heredoc) in &patches {
            if in_heredoc {
                heredoc_misread = Some(heredoc_misread.map_or(at, |m: usize| m.min(at)));
            }
            if let Some(slot) = bytes.get_mut(at) {
                *slot = b;
            }
        }
        // Only ASCII bytes were replaced by ASCII bytes.
        view = Cow::Owned(String::from_utf8(bytes).ok()?);
        tree = parse_view(&view)?;
    }
    let left = patches(tree.root_node(), &view, ansi_c, false).first().map(|&(at, _, _)| at);
    Some(Parsed { tree, ansi_c_overrun: left, heredoc_misread })
}

/// The bytes to show the parser differently, `(offset, byte, in a here-document)`, so that
/// the tree agrees with bash:
///
/// * in a `$'…'` node that runs past the quote where bash ends the string, the second
///   backslash of every `\\` pair inside the string bash sees becomes `_`;
/// * in a here-document body that the tree ends before bash does, every line that the tree
///   could take for the delimiter (the delimiter with blanks around it, or a line bash joins to
///   the one before, or a line that starts with it: `EOF;x`) gets its first byte changed, so
///   the tree reads on to bash's delimiter.
fn patches(root: Node<'_>, view: &str, ansi_c: bool, heredocs: bool) -> Vec<(usize, u8, bool)> {
    let bytes = view.as_bytes();
    let mut out = Vec::new();
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let mut descend = true;
        match node.kind() {
            "ansi_c_string" => {
                descend = false;
                if ansi_c {
                    ansi_c_patches(bytes, node, &mut out);
                }
            }
            "heredoc_redirect" if heredocs => heredoc_patches(view, node, &mut out),
            _ => {}
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

fn ansi_c_patches(bytes: &[u8], node: Node<'_>, out: &mut Vec<(usize, u8, bool)>) {
    let start = node.start_byte();
    let Some(end) = ansi_c_end(bytes, start) else {
        return;
    };
    if end >= node.end_byte() {
        return;
    }
    let mut i = start + 2;
    while i + 1 < end {
        if bytes.get(i) == Some(&b'\\') {
            if bytes.get(i + 1) == Some(&b'\\') {
                out.push((i + 1, b'_', false));
            }
            i += 2;
        } else {
            i += 1;
        }
    }
}

/// Where bash ends the `$'…'` string starting at `start`: just after its closing quote. Inside,
/// a backslash always takes the next byte with it (`\\`, `\'`, `\c\\`).
fn ansi_c_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 2;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'\'' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn heredoc_patches(view: &str, node: Node<'_>, out: &mut Vec<(usize, u8, bool)>) {
    let h = heredoc::shape(node, view);
    let bytes = view.as_bytes();
    let (Some(tree_end), Some(body_start), Some(delim)) = (h.end_line, h.body_start, h.delimiter(view)) else {
        return;
    };
    let scan = heredoc::scan(bytes, body_start, &delim, h.strip_tabs, !h.quoted);
    if scan.end.is_some_and(|bash_end| bash_end <= tree_end) {
        return;
    }
    // Every line of bash's body that starts with the delimiter after blanks.
    let stop = scan.end.unwrap_or(bytes.len());
    let mut pos = body_start;
    while pos < stop {
        let line_end =
            bytes.get(pos..).and_then(|r| r.iter().position(|&b| b == b'\n')).map_or(bytes.len(), |n| pos + n);
        let line = bytes.get(pos..line_end).unwrap_or(&[]);
        if let Some(f) = line.iter().position(|&b| b != b' ' && b != b'\t') {
            if !delim.is_empty() && line.get(f..).is_some_and(|l| l.starts_with(delim.as_bytes())) {
                let b = line[f];
                if !matches!(b, b'$' | b'`' | b'\\') {
                    out.push((pos + f, if b == b'x' { b'y' } else { b'x' }, true));
                }
            }
        }
        pos = line_end + 1;
    }
}

fn parse_view(src: &str) -> Option<Tree> {
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
