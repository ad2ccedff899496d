//! Cross-checks of the tree against the raw text. The hard question: did the parser see every
//! place where bash would start running something? Two known weak spots of tree-sitter-bash are
//! checked here, and any disagreement is a parse error (fail closed), never a silent pass:
//!
//! * every backtick outside single quotes, comments and quoted here-documents must be a
//!   delimiter of a command substitution node (or escaped, or inside text that is re-parsed);
//! * a line continuation (`\` newline) between two tokens that bash would glue into one word
//!   (`r\<newline>m`) is not representable in the tree;
//! * CR, FF and VT are word characters to bash (its blanks are space and tab), but blanks to
//!   tree-sitter-bash: one that the tree leaves between tokens splits what bash reads as one
//!   word, or hides what follows in a comment (`echo a\r# ; rm -rf /`).

use tree_sitter::Node;

use crate::word::text;

/// Returns a description of the first disagreement, if any.
pub(crate) fn check(root: Node<'_>, src: &str) -> Option<String> {
    let bytes = src.as_bytes();
    let has_backtick = bytes.contains(&b'`');
    let has_continuation = bytes.windows(2).any(|w| w == b"\\\n");
    if has_backtick {
        if let Some(p) = check_backticks(root, src) {
            return Some(p);
        }
    }
    if has_continuation {
        if let Some(p) = check_continuations(root, src) {
            return Some(p);
        }
    }
    if bytes.iter().any(|&b| matches!(b, b'\r' | 0x0b | 0x0c)) {
        if let Some(p) = check_control_blanks(root, src) {
            return Some(p);
        }
    }
    check_coverage(root, src)
}

/// Every byte the parser read must belong to a token of the tree. tree-sitter-bash can skip
/// text without an error node (a command named `-` after `&`, `|` or at the start: `a & - x`
/// gives a tree with no `-` in it, and bash runs the function `-`), so a gap between tokens
/// that holds anything but blanks and line continuations is text nobody checked.
fn check_coverage(root: Node<'_>, src: &str) -> Option<String> {
    let bytes = src.as_bytes();
    let mut at = 0;
    // `heredoc` is true when the token after the gap starts a here-document redirection: the
    // tree drops `-` words there (`cat - <<EOF`), and the walker puts them back.
    let gap = |from: usize, to: usize, heredoc: bool| -> Option<String> {
        let mut i = from;
        while i < to {
            match bytes[i] {
                b' ' | b'\t' | b'\n' => i += 1,
                b'\\' if bytes.get(i + 1) == Some(&b'\n') => i += 2,
                b'-' if heredoc && matches!(bytes.get(i + 1), Some(b' ' | b'\t')) => i += 1,
                _ => return Some(format!("the parser skipped text at byte {i} without reading it")),
            }
        }
        None
    };
    let starts_heredoc = |leaf: Node<'_>| {
        let mut n = Some(leaf);
        while let Some(p) = n {
            if p.start_byte() != leaf.start_byte() {
                return false;
            }
            if p.kind() == "heredoc_redirect" {
                return true;
            }
            n = p.parent();
        }
        false
    };
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        // Here-document bodies keep their literal text outside child nodes (see
        // `heredoc_text_segments`); they are checked as a whole.
        let opaque = node.kind() == "heredoc_body";
        if (opaque || node.child_count() == 0) && node.end_byte() > node.start_byte() {
            if let Some(p) = brace_not_a_word(node, bytes) {
                return Some(p);
            }
            if node.start_byte() > at {
                // `parent()` walks down from the root, so the here-document test runs only
                // for a gap that holds more than blanks.
                if gap(at, node.start_byte(), false).is_some() {
                    if let Some(p) = gap(at, node.start_byte(), starts_heredoc(node)) {
                        return Some(p);
                    }
                }
            }
            at = at.max(node.end_byte());
        } else if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return gap(at, bytes.len().max(at), false);
            }
        }
    }
}

fn check_control_blanks(root: Node<'_>, src: &str) -> Option<String> {
    for (i, &b) in src.as_bytes().iter().enumerate() {
        if !matches!(b, b'\r' | 0x0b | 0x0c) {
            continue;
        }
        let Some(node) = root.descendant_for_byte_range(i, i + 1) else {
            continue;
        };
        let inside_token = is_text_token(node.kind()) && node.start_byte() < i;
        if !inside_token {
            let name = match b {
                b'\r' => "CR",
                0x0b => "VT",
                _ => "FF",
            };
            return Some(format!("{name} at byte {i} is a word character to bash, a blank to the parser"));
        }
    }
    None
}

/// True when a backtick substitution's contents are re-parsed after unescaping (see the
/// walker): then its interior is checked by that re-parse.
pub(crate) fn backtick_reparsed(node: Node<'_>, src: &str) -> bool {
    is_backtick_substitution(node) && text(node, src).contains('\\')
}

pub(crate) fn is_backtick_substitution(node: Node<'_>) -> bool {
    node.kind() == "command_substitution" && node.child(0).is_some_and(|c| c.kind() == "`")
}

/// True when the here-document started by this `heredoc_redirect` has a quoted delimiter.
pub(crate) fn heredoc_quoted(redirect: Node<'_>, src: &str) -> bool {
    let mut cursor = redirect.walk();
    let start = redirect.children(&mut cursor).find(|c| c.kind() == "heredoc_start");
    start.is_some_and(|s| text(s, src).contains(['\'', '"', '\\']))
}

/// The literal text ranges of an unquoted here-document body: everything not covered by an
/// expansion or substitution child (tree-sitter does not always make a node for the text
/// before the first expansion).
pub(crate) fn heredoc_text_segments(body: Node<'_>) -> Vec<(usize, usize)> {
    let mut segments = Vec::new();
    let mut at = body.start_byte();
    let mut cursor = body.walk();
    for child in body.named_children(&mut cursor) {
        if child.kind() == "heredoc_content" {
            continue;
        }
        if child.start_byte() > at {
            segments.push((at, child.start_byte()));
        }
        at = at.max(child.end_byte());
    }
    if body.end_byte() > at {
        segments.push((at, body.end_byte()));
    }
    segments
}

fn check_backticks(root: Node<'_>, src: &str) -> Option<String> {
    // Literal zones (disjoint, in order) and delimiter positions.
    let mut zones: Vec<(usize, usize)> = Vec::new();
    let mut delimiters: Vec<usize> = Vec::new();
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let mut descend = true;
        match node.kind() {
            "raw_string" | "ansi_c_string" | "comment" => {
                zones.push((node.start_byte(), node.end_byte()));
                descend = false;
            }
            "heredoc_content" => descend = false,
            "heredoc_body" => {
                if node.parent().is_some_and(|p| heredoc_quoted(p, src)) {
                    zones.push((node.start_byte(), node.end_byte()));
                    descend = false;
                } else {
                    // The literal text is scanned for backticks by the walker.
                    zones.extend(heredoc_text_segments(node));
                }
            }
            "command_substitution" if is_backtick_substitution(node) => {
                delimiters.push(node.start_byte());
                delimiters.push(node.end_byte().saturating_sub(1));
                // An unescaped backtick inside ends it to bash (quotes do not protect it):
                // `` e`b m`x` c` `` is `b m` and ` c` to bash, one substitution with `x` nested
                // in it to the parser.
                let inner = src.get(node.start_byte() + 1..node.end_byte().saturating_sub(1)).unwrap_or("");
                if let Some(at) = unescaped_backtick(inner) {
                    let at = node.start_byte() + 1 + at;
                    return Some(format!("backtick at byte {at} ends the substitution to bash, not to the parse tree"));
                }
                if backtick_reparsed(node, src) {
                    zones.push((node.start_byte() + 1, node.end_byte().saturating_sub(1)));
                    descend = false;
                }
            }
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
    zones.sort_unstable();
    delimiters.sort_unstable();
    let in_zone = |i: usize| {
        let idx = zones.partition_point(|&(start, _)| start <= i);
        idx > 0 && zones.get(idx - 1).is_some_and(|&(_, end)| i < end)
    };
    let bytes = src.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'`' || in_zone(i) || delimiters.binary_search(&i).is_ok() {
            continue;
        }
        let mut backslashes = 0;
        let mut j = i;
        while j > 0 && bytes[j - 1] == b'\\' && !in_zone(j - 1) {
            backslashes += 1;
            j -= 1;
        }
        if backslashes % 2 == 1 {
            continue;
        }
        return Some(format!("backtick at byte {i} is not accounted for by the parse tree"));
    }
    None
}

/// The offset of the first backtick in `s` that no backslash escapes.
fn unescaped_backtick(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'`' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

fn check_continuations(root: Node<'_>, src: &str) -> Option<String> {
    let bytes = src.as_bytes();
    for i in 0..bytes.len().saturating_sub(1) {
        if bytes[i] != b'\\' || bytes[i + 1] != b'\n' {
            continue;
        }
        // Is this backslash itself escaped?
        let mut run = 0;
        let mut j = i;
        while j > 0 && bytes[j - 1] == b'\\' {
            run += 1;
            j -= 1;
        }
        if run % 2 == 1 {
            continue;
        }
        let Some(node) = root.descendant_for_byte_range(i, i + 2) else {
            continue;
        };
        // In double quotes bash removes the continuation before it looks for expansions, so a
        // `$` before it starts one with what follows (`"$\⏎(id)"` runs `id`); the tree keeps
        // the text literal.
        if matches!(node.kind(), "string" | "string_content") && dollar_before(bytes, i) {
            return Some(format!("line continuation at byte {i} joins a `$` to what follows it"));
        }
        let inside_token = is_text_token(node.kind()) || node.kind() == "number";
        if inside_token {
            continue;
        }
        let glues = |b: Option<&u8>| {
            b.is_some_and(|&b| !b.is_ascii_whitespace() && !matches!(b, b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'))
        };
        if i > 0 && glues(bytes.get(i - 1)) && glues(bytes.get(i + 2)) {
            return Some(format!("line continuation at byte {i} joins two words the parse tree keeps apart"));
        }
    }
    None
}

/// `{` and `}` are reserved words only as whole words: `{echo x;}#` runs the programs `{echo`
/// and `}#` in bash, while tree-sitter-bash reads a group around `echo x`. A group's brace
/// glued to the next text is not what bash reads.
fn brace_not_a_word(node: Node<'_>, bytes: &[u8]) -> Option<String> {
    let kind = node.kind();
    if !matches!(kind, "{" | "}") || node.parent().is_none_or(|p| p.kind() != "compound_statement") {
        return None;
    }
    let next = bytes.get(node.end_byte()).copied();
    let ends_word = match kind {
        "{" => matches!(next, None | Some(b' ' | b'\t' | b'\n')),
        _ => matches!(next, None | Some(b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b')' | b'<' | b'>')),
    };
    (!ends_word)
        .then(|| format!("`{kind}` at byte {} is glued to the next word: bash reads one word", node.start_byte()))
}

/// True when the text before the continuation at `i` (past earlier continuations) ends with an
/// unescaped `$`.
fn dollar_before(bytes: &[u8], mut i: usize) -> bool {
    while i >= 2 && bytes[i - 2] == b'\\' && bytes[i - 1] == b'\n' {
        i -= 2;
    }
    if i == 0 || bytes[i - 1] != b'$' {
        return false;
    }
    let escapes = bytes[..i - 1].iter().rev().take_while(|&&b| b == b'\\').count();
    escapes % 2 == 0
}

/// Node kinds whose text the shell takes as one token (a blank or an escape inside them does
/// not separate words).
fn is_text_token(kind: &str) -> bool {
    matches!(
        kind,
        "word"
            | "string"
            | "string_content"
            | "raw_string"
            | "ansi_c_string"
            | "heredoc_body"
            | "heredoc_content"
            | "comment"
            | "extglob_pattern"
            | "regex"
    )
}
