//! Here-document bodies checked against bash's own rules. The hard question: does the body end
//! on the line where bash ends it? tree-sitter-bash also ends a body at a delimiter line with
//! blanks around it (` EOF`, `EOF `) or text after it (`EOF;x`), and it does not join `\` newline lines of an unquoted body
//! before it looks for the delimiter (`x\` newline `EOF` is the body line `xEOF` to bash). After
//! such a line the rest of the body is parsed as commands, and a quote in it can hide the
//! commands bash really runs. Every here-document is therefore re-scanned here, line by line as
//! bash reads it, and any disagreement is a parse error.

use tree_sitter::Node;

use crate::word::text;

/// How the tree lays out one `heredoc_redirect`.
pub(crate) struct Shape<'t> {
    /// The delimiter word as written (`heredoc_start`).
    pub(crate) start: Option<Node<'t>>,
    pub(crate) body: Option<Node<'t>>,
    /// The start of the line holding the tree's `heredoc_end`.
    pub(crate) end_line: Option<usize>,
    /// `<<-`: leading tabs are stripped.
    pub(crate) strip_tabs: bool,
    /// The delimiter is quoted: no expansion and no line joining in the body.
    pub(crate) quoted: bool,
    /// tree-sitter-bash reads a first body line starting with a backslash (and the lines
    /// after it that do too) as `argument` words, the first one starting at the newline:
    /// where that text starts. Those arguments are body text.
    pub(crate) misread: Option<usize>,
    /// The start of the body's first line.
    pub(crate) body_start: Option<usize>,
}

impl Shape<'_> {
    /// The delimiter after quote removal.
    pub(crate) fn delimiter(&self, src: &str) -> Option<String> {
        delimiter(text(self.start?, src))
    }
}

pub(crate) fn shape<'t>(node: Node<'t>, src: &str) -> Shape<'t> {
    let mut h = Shape {
        start: None,
        body: None,
        end_line: None,
        strip_tabs: false,
        quoted: false,
        misread: None,
        body_start: None,
    };
    let mut end = None;
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            match child.kind() {
                "heredoc_start" => h.start = Some(child),
                "heredoc_body" => h.body = Some(child),
                "heredoc_end" => end = Some(child),
                op if !child.is_named() && op.ends_with("<<-") => h.strip_tabs = true,
                _ if h.misread.is_none()
                    && cursor.field_name() == Some("argument")
                    && text(child, src).starts_with('\n') =>
                {
                    h.misread = Some(child.start_byte() + 1);
                }
                _ => {}
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    let bytes = src.as_bytes();
    h.quoted = h.start.is_some_and(|s| text(s, src).contains(['\'', '"', '\\']));
    h.end_line = end.filter(|e| !e.is_missing()).map(|e| line_start(bytes, e.start_byte()));
    h.body_start = h.misread.or(h.body.map(|b| line_start(bytes, b.start_byte())));
    h
}

/// What bash makes of a here-document body.
pub(crate) struct Scan {
    /// The start of the line that ends the body (the delimiter line, or the first of the lines
    /// joined into it); `None` when the body runs to the end of the text.
    pub(crate) end: Option<usize>,
    /// The byte offset of a `\` newline right after a `$` in an unquoted body: bash joins the
    /// lines into an expansion (`$\` newline `(cmd)` is `$(cmd)`), which the tree does not see.
    pub(crate) dollar_join: Option<usize>,
}

/// The delimiter word after quote removal (`'EOF'`, `"EOF"`, `E\OF` are all `EOF`). `None` for
/// forms this does not model (`$'…'`, `$"…"`, an unterminated quote).
pub(crate) fn delimiter(word: &str) -> Option<String> {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => out.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' if chars.peek().is_some_and(|&n| matches!(n, '$' | '`' | '"' | '\\')) => {
                        out.push(chars.next()?);
                    }
                    c => out.push(c),
                }
            },
            '$' if chars.peek().is_some_and(|&n| n == '\'' || n == '"') => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

/// The start of the line holding byte `pos`.
pub(crate) fn line_start(src: &[u8], pos: usize) -> usize {
    let pos = pos.min(src.len());
    src.get(..pos).and_then(|before| before.iter().rposition(|&b| b == b'\n')).map_or(0, |nl| nl + 1)
}

/// Reads the body starting at `start` as bash does: lines are joined at `\` newline when the
/// delimiter is unquoted (`join`), leading tabs are stripped for `<<-` (`strip_tabs`), and the
/// body ends at the first line equal to `delim`.
pub(crate) fn scan(src: &[u8], start: usize, delim: &str, strip_tabs: bool, join: bool) -> Scan {
    let delim = delim.as_bytes();
    let mut out = Scan { end: None, dollar_join: None };
    let mut logical: Vec<u8> = Vec::new();
    let mut pos = start;
    while pos <= src.len() {
        let line_begin = pos;
        logical.clear();
        let mut last_line = false;
        loop {
            let rest = src.get(pos..).unwrap_or(&[]);
            let (seg, next) = match rest.iter().position(|&b| b == b'\n') {
                Some(n) => (&rest[..n], Some(pos + n + 1)),
                None => (rest, None),
            };
            let trailing = seg.iter().rev().take_while(|&&b| b == b'\\').count();
            match next {
                Some(next) if join && trailing % 2 == 1 => {
                    logical.extend_from_slice(&seg[..seg.len() - 1]);
                    if out.dollar_join.is_none() && ends_with_unescaped_dollar(&logical) {
                        out.dollar_join = Some(next - 2);
                    }
                    pos = next;
                }
                Some(next) => {
                    logical.extend_from_slice(seg);
                    pos = next;
                    break;
                }
                None => {
                    logical.extend_from_slice(seg);
                    last_line = true;
                    break;
                }
            }
        }
        let mut line = logical.as_slice();
        if strip_tabs {
            while let [b'\t', rest @ ..] = line {
                line = rest;
            }
        }
        if line == delim {
            out.end = Some(line_begin);
            return out;
        }
        if last_line {
            break;
        }
    }
    out
}

/// True when `s` ends with a `$` that no backslash escapes.
fn ends_with_unescaped_dollar(s: &[u8]) -> bool {
    match s.split_last() {
        Some((b'$', before)) => before.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters() {
        assert_eq!(delimiter("EOF").as_deref(), Some("EOF"));
        assert_eq!(delimiter("'EOF'").as_deref(), Some("EOF"));
        assert_eq!(delimiter("\"E O\"F").as_deref(), Some("E OF"));
        assert_eq!(delimiter("E\\OF").as_deref(), Some("EOF"));
        assert_eq!(delimiter("$'EOF'"), None);
        assert_eq!(delimiter("'EOF"), None);
    }

    #[test]
    fn scans() {
        let end = |s: &str, strip: bool, join: bool| scan(s.as_bytes(), 0, "EOF", strip, join).end;
        assert_eq!(end("x\nEOF\n", false, true), Some(2));
        assert_eq!(end("x\n EOF\nEOF", false, true), Some(7));
        assert_eq!(end("x\\\nEOF\nEOF", false, true), Some(7));
        assert_eq!(end("x\\\nEOF\nEOF", false, false), Some(3));
        assert_eq!(end("x\\\\\nEOF\n", false, true), Some(4));
        assert_eq!(end("\\\nEOF\n", false, true), Some(0));
        assert_eq!(end("\t\tEOF\n", true, true), Some(0));
        assert_eq!(end("\t\tEOF\n", false, true), None);
        assert_eq!(end("x\nEOF ", false, true), None);
        let d = |s: &str| scan(s.as_bytes(), 0, "EOF", false, true).dollar_join;
        assert_eq!(d("$\\\n(id)\nEOF\n"), Some(1));
        assert_eq!(d("\\$\\\n(id)\nEOF\n"), None);
        assert_eq!(d("\\\\$\\\n(id)\nEOF\n"), Some(3));
    }
}
