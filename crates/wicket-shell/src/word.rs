//! Static word values. The hard question: what string does bash pass for this word, and when
//! can that not be known without running anything? Any expansion (`$x`, `${…}`, `$(…)`,
//! backticks, `$((…))`, process substitution, brace expansion) makes the value unknown; quote
//! removal and escapes are applied exactly. When in doubt the value is `None`, never a guess.

use tree_sitter::Node;

use crate::types::Word;

/// The source text of a node (empty if the range is somehow not on a char boundary).
pub(crate) fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Accumulates one word's value, quoting, glob and brace-expansion state.
struct Builder {
    value: Option<String>,
    quoted: bool,
    glob: bool,
    brace_open: u32,
    brace_sep: bool,
    brace: bool,
    prev_dot: bool,
}

impl Builder {
    fn new() -> Self {
        Builder {
            value: Some(String::new()),
            quoted: false,
            glob: false,
            brace_open: 0,
            brace_sep: false,
            brace: false,
            prev_dot: false,
        }
    }

    fn unknown(&mut self) {
        self.value = None;
    }

    fn push_quoted(&mut self, s: &str) {
        self.prev_dot = false;
        if let Some(v) = self.value.as_mut() {
            v.push_str(s);
        }
    }

    fn push_quoted_char(&mut self, c: char) {
        self.prev_dot = false;
        if let Some(v) = self.value.as_mut() {
            v.push(c);
        }
    }

    /// An unquoted character: tracks globs and brace expansion.
    fn push_unquoted_char(&mut self, c: char) {
        match c {
            '*' | '?' | '[' => self.glob = true,
            '{' => self.brace_open += 1,
            ',' if self.brace_open > 0 => self.brace_sep = true,
            '.' if self.brace_open > 0 && self.prev_dot => self.brace_sep = true,
            '}' if self.brace_open > 0 => {
                if self.brace_sep {
                    self.brace = true;
                }
                self.brace_open -= 1;
            }
            _ => {}
        }
        self.prev_dot = c == '.';
        if let Some(v) = self.value.as_mut() {
            v.push(c);
        }
    }

    /// Unquoted word text: backslash escapes, line continuations, globs.
    fn unquoted(&mut self, s: &str) {
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('\n') => {}
                    Some(n) => {
                        self.quoted = true;
                        self.push_quoted_char(n);
                    }
                    None => self.push_unquoted_char('\\'),
                },
                // Defensive: an expansion the tree did not mark.
                '$' if chars.peek().is_some_and(|&n| starts_expansion(n)) => self.unknown(),
                '`' => self.unknown(),
                _ => self.push_unquoted_char(c),
            }
        }
    }

    /// The inside of a double-quoted string with only literal content.
    fn double_quoted(&mut self, inner: &str) {
        self.quoted = true;
        let mut chars = inner.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.peek().copied() {
                    Some('\n') => {
                        chars.next();
                    }
                    Some(n @ ('$' | '`' | '"' | '\\')) => {
                        chars.next();
                        self.push_quoted_char(n);
                    }
                    _ => self.push_quoted_char('\\'),
                },
                '$' if chars.peek().is_some_and(|&n| starts_expansion(n)) => self.unknown(),
                '`' => self.unknown(),
                _ => self.push_quoted_char(c),
            }
        }
    }

    fn finish(self, raw: &str) -> Word {
        Word {
            value: if self.brace { None } else { self.value },
            raw: raw.to_string(),
            quoted: self.quoted,
            glob: self.glob,
        }
    }
}

/// True when `$` followed by `c` starts an expansion.
pub(crate) fn starts_expansion(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '{' | '(' | '[' | '@' | '*' | '#' | '?' | '$' | '!' | '-')
}

/// A word made of plain literal text (keywords, names).
pub(crate) fn literal(s: &str) -> Word {
    Word { value: Some(s.to_string()), raw: s.to_string(), quoted: false, glob: false }
}

/// The [`Word`] for a node in argument position.
pub(crate) fn word_of(node: Node<'_>, src: &str) -> Word {
    let raw = text(node, src);
    let mut b = Builder::new();
    if node.kind() == "concatenation" {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for (i, &child) in children.iter().enumerate() {
            let after_lone_dollar = i.checked_sub(1).and_then(|p| children.get(p)).is_some_and(|&prev| {
                prev.end_byte() == child.start_byte()
                    && ends_in_lone_dollar(text(prev, src))
                    && text(child, src).chars().next().is_some_and(starts_expansion)
            });
            if child.kind() == "concatenation" || after_lone_dollar {
                // (`r""$$`: the tree splits `$$` into a word `$` and a `$` token.)
                b.unknown();
            } else if !child.is_named()
                && child.kind() == "$"
                && children.get(i + 1).is_some_and(|&next| {
                    next.start_byte() == child.end_byte()
                        && text(next, src).chars().next().is_some_and(starts_expansion)
                })
            {
                // `x[$1]`: a lone `$` token glued to what it expands.
                b.unknown();
            } else if children.get(i + 1).is_some_and(|&next| is_gettext_dollar(child, next)) {
                // `x$"a"`: the `$` of a `$"…"` string adds nothing to the value (the token may
                // carry text before it).
                let t = text(child, src);
                b.unquoted(t.strip_suffix('$').unwrap_or(t));
            } else {
                part(child, src, &mut b);
            }
        }
    } else if node.kind() == "command_name" {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        match children.as_slice() {
            [only] => return word_of(*only, src),
            _ => b.unknown(),
        }
    } else {
        part(node, src, &mut b);
    }
    b.finish(raw)
}

/// True when `dollar` is the lone `$` token tree-sitter-bash leaves before the string of a
/// `$"…"` (locale-translated string) in argument position: `next` is that string, or a
/// concatenation starting with it, glued to the `$`.
pub(crate) fn is_gettext_dollar(dollar: Node<'_>, next: Node<'_>) -> bool {
    !dollar.is_named()
        && dollar.kind() == "$"
        && next.start_byte() == dollar.end_byte()
        && (next.kind() == "string"
            || (next.kind() == "concatenation" && next.child(0).is_some_and(|c| c.kind() == "string")))
}

/// Joins a word the tree split in two (`unset a[0]`): `next` follows `word` with no blank.
/// A brace expansion across the two halves makes the value unknown.
///
/// When `word` ends in a lone `$` and `next` starts with what it expands (`1'r'$2`, `s}e$-v`,
/// `x[$1]`: the tree ends the first part at the `$`), the joined word holds an expansion and
/// its value is unknown.
pub(crate) fn glue(word: &mut Word, next: Word) {
    let expands = ends_in_lone_dollar(&word.raw) && next.raw.chars().next().is_some_and(starts_expansion);
    // A brace expansion across the split (`a{$,b}`: `a{$` and `,b}` to the tree, `a$ ab` to
    // bash) was not seen by either half: the joined value is not known.
    let joined = format!("{}{}", word.raw, next.raw);
    let brace = joined.find('{').is_some_and(|open| {
        let rest = &joined[open..];
        rest.find('}').is_some_and(|close| rest[..close].contains(',') || rest[..close].contains(".."))
    });
    word.value = match (word.value.take(), next.value) {
        _ if expands || brace => None,
        (Some(mut a), Some(b)) => {
            a.push_str(&b);
            Some(a)
        }
        _ => None,
    };
    word.raw.push_str(&next.raw);
    word.quoted |= next.quoted;
    word.glob |= next.glob;
}

/// True when unquoted word text holds a space or tab that no backslash escapes.
fn has_unescaped_blank(t: &str) -> bool {
    let bytes = t.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b' ' | b'\t' => return true,
            _ => i += 1,
        }
    }
    false
}

/// True when text bash expands as if in double quotes (an unquoted here-document body) holds
/// a `$` that starts an expansion: the parse tree does not mark them all.
pub(crate) fn has_unmarked_expansion(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'$' if bytes.get(i + 1).is_some_and(|&n| starts_expansion(char::from(n))) => return true,
            _ => i += 1,
        }
    }
    false
}

/// True when `raw` ends in a `$` that is not escaped by a backslash.
fn ends_in_lone_dollar(raw: &str) -> bool {
    let Some(rest) = raw.strip_suffix('$') else {
        return false;
    };
    let backslashes = rest.bytes().rev().take_while(|&b| b == b'\\').count();
    backslashes % 2 == 0
}

/// Adds one primary expression to the word being built.
fn part(node: Node<'_>, src: &str, b: &mut Builder) {
    let t = text(node, src);
    if !node.is_named() {
        b.unquoted(t);
        return;
    }
    match node.kind() {
        "word" => {
            if has_unescaped_blank(t) {
                // Bash's words never hold an unescaped blank: the tree joined two words.
                b.unknown();
            }
            b.unquoted(t)
        }
        "number" => {
            if node.named_child_count() > 0 {
                b.unknown();
            } else {
                b.unquoted(t);
            }
        }
        "raw_string" => {
            b.quoted = true;
            match t.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
                Some(inner) => b.push_quoted(inner),
                None => b.unknown(),
            }
        }
        "ansi_c_string" => {
            b.quoted = true;
            match t.strip_prefix("$'").and_then(|s| s.strip_suffix('\'')).and_then(decode_ansi_c) {
                Some(v) => b.push_quoted(&v),
                None => b.unknown(),
            }
        }
        "string" => string_part(node, t, b),
        "translated_string" => match node.named_child(0) {
            Some(inner) if node.named_child_count() == 1 => string_part(inner, text(inner, src), b),
            _ => b.unknown(),
        },
        "variable_name" | "special_variable_name" | "regex" | "test_operator" => b.unquoted(t),
        "extglob_pattern" => {
            b.glob = true;
            b.unquoted(t);
        }
        "variable_assignment" => assignment_part(node, src, b),
        _ => {
            // Expansions and everything unknown: not static.
            b.unknown();
        }
    }
}

fn string_part(node: Node<'_>, t: &str, b: &mut Builder) {
    b.quoted = true;
    let mut cursor = node.walk();
    let literal_only = node.named_children(&mut cursor).all(|c| c.kind() == "string_content");
    let inner = t.strip_prefix('"').and_then(|s| s.strip_suffix('"'));
    match inner {
        Some(inner) if literal_only => b.double_quoted(inner),
        _ => b.unknown(),
    }
}

/// `NAME=value` as an argument of `export`, `declare` and friends.
fn assignment_part(node: Node<'_>, src: &str, b: &mut Builder) {
    let (Some(name), Some(value_start)) = (node.child_by_field_name("name"), operator_end(node)) else {
        b.unknown();
        return;
    };
    if name.kind() != "variable_name" {
        b.unknown();
        return;
    }
    // Name and operator are plain text.
    let Some(head) = src.get(node.start_byte()..value_start) else {
        b.unknown();
        return;
    };
    let n = text(name, src).as_bytes();
    let valid_name = n.first().is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && n.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
    if valid_name {
        b.push_quoted(head);
    } else {
        // `?M=1`: not an assignment to bash, an ordinary word (globbed).
        b.unquoted(head);
    }
    if let Some(value) = node.child_by_field_name("value") {
        let w = word_of(value, src);
        b.quoted |= w.quoted;
        b.glob |= w.glob;
        match w.value {
            Some(v) => b.push_quoted(&v),
            None => b.unknown(),
        }
    }
}

/// The byte offset just after the `=` or `+=` of an assignment.
pub(crate) fn operator_end(node: Node<'_>) -> Option<usize> {
    let mut cursor = node.walk();
    let op = node.children(&mut cursor).find(|c| !c.is_named() && matches!(c.kind(), "=" | "+="));
    op.map(|o| o.end_byte())
}

/// Decodes the inside of `$'…'`. `None` when the result is not valid UTF-8.
pub(crate) fn decode_ansi_c(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c != b'\\' || i + 1 >= bytes.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let e = bytes[i + 1];
        i += 2;
        match e {
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'e' | b'E' => out.push(27),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'\\' | b'\'' | b'"' | b'?' => out.push(e),
            b'0'..=b'7' => {
                let mut v: u32 = u32::from(e - b'0');
                let mut n = 1;
                while n < 3 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    v = v * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    n += 1;
                }
                out.push((v & 0xff) as u8);
            }
            b'x' | b'u' | b'U' => {
                let max = match e {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let mut v: u32 = 0;
                let mut n = 0;
                while n < max && i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                    v = v * 16 + char::from(bytes[i]).to_digit(16).unwrap_or(0);
                    i += 1;
                    n += 1;
                }
                if n == 0 {
                    out.push(b'\\');
                    out.push(e);
                } else if e == b'x' {
                    out.push((v & 0xff) as u8);
                } else {
                    let ch = char::from_u32(v)?;
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
            }
            b'c' => {
                // Control character: \cX.
                let Some(&x) = bytes.get(i) else {
                    out.push(b'\\');
                    out.push(b'c');
                    continue;
                };
                i += 1;
                out.push(x.to_ascii_uppercase() ^ 0x40);
            }
            _ => {
                out.push(b'\\');
                out.push(e);
            }
        }
    }
    // Bash stops the string at a NUL byte.
    if let Some(nul) = out.iter().position(|&b| b == 0) {
        out.truncate(nul);
    }
    String::from_utf8(out).ok()
}

/// Undoes the escapes of old-style command substitution: inside backticks a backslash quotes
/// only `$`, `` ` `` and `\` (and `"` when the substitution sits in double quotes).
pub(crate) fn unescape_backtick(inner: &str, in_double_quotes: bool) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&n) = chars.peek() {
                if matches!(n, '$' | '`' | '\\') || (in_double_quotes && n == '"') {
                    out.push(n);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

/// Finds the backtick substitutions in a piece of unquoted here-document text and returns
/// their unescaped contents. `Err` when the text has an unmatched backtick or an unparsed
/// `$(`, which the tree should have accounted for.
pub(crate) fn heredoc_backticks(s: &str) -> Result<Vec<String>, String> {
    let bytes = s.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'$' if bytes.get(i + 1) == Some(&b'(') => {
                return Err("unparsed `$(` in a here-document".to_string());
            }
            b'`' => {
                let start = i + 1;
                let mut j = start;
                loop {
                    match bytes.get(j) {
                        None => return Err("unmatched backtick in a here-document".to_string()),
                        Some(b'\\') => j += 2,
                        Some(b'`') => break,
                        Some(_) => j += 1,
                    }
                }
                let Some(inner) = s.get(start..j) else {
                    return Err("backtick substitution splits a character".to_string());
                };
                found.push(unescape_backtick(inner, false));
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_c() {
        assert_eq!(decode_ansi_c(r"a\nb\x41\101\u00e9\'").as_deref(), Some("a\nbAAé'"));
        assert_eq!(decode_ansi_c(r"ab\0cd").as_deref(), Some("ab"));
        assert_eq!(decode_ansi_c(r"\xff"), None);
        assert_eq!(decode_ansi_c(r"\cA").as_deref(), Some("\u{1}"));
    }

    #[test]
    fn backticks() {
        assert_eq!(unescape_backtick(r"b \`c\` \\ \n", false), r"b `c` \ \n");
        assert_eq!(heredoc_backticks("x `id` \\`y").unwrap(), vec!["id".to_string()]);
        assert!(heredoc_backticks("x `id").is_err());
    }
}

/// Is this word, as written, one whole input process substitution `<(…)` and nothing else
/// (bash passes it as a `/dev/fd/N` pipe name)? The parentheses are matched outside quotes
/// and escapes; anything the scan cannot follow for sure (a here-document, a comment, a
/// substitution or backquote inside double quotes) answers false.
pub fn whole_process_substitution(raw: &str) -> bool {
    let Some(body) = raw.strip_prefix("<(") else { return false };
    let chars: Vec<char> = body.chars().collect();
    let mut depth = 1usize;
    let mut i = 0;
    let mut prev_blank = true;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => i += 1,
            '\'' => {
                i += 1;
                while chars.get(i).is_some_and(|c| *c != '\'') {
                    i += 1;
                }
                if i >= chars.len() {
                    return false;
                }
            }
            '"' => {
                i += 1;
                while let Some(&d) = chars.get(i) {
                    match d {
                        '"' => break,
                        '\\' => i += 1,
                        '$' | '`' => return false,
                        _ => {}
                    }
                    i += 1;
                }
                if i >= chars.len() {
                    return false;
                }
            }
            '#' if prev_blank => return false,
            '<' if chars.get(i + 1) == Some(&'<') => return false,
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1 == chars.len();
                }
            }
            _ => {}
        }
        prev_blank = c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(');
        i += 1;
    }
    false
}

#[cfg(test)]
mod process_substitution_tests {
    use super::whole_process_substitution as whole;

    #[test]
    fn only_one_whole_input_substitution() {
        assert!(whole("<(git ls-files)"));
        assert!(whole("<(git log --format='%H (x)')"));
        assert!(whole("<(ls \")\" a)"));
        assert!(whole("<(sort <(ls))"));
        assert!(!whole("<(ls)x"));
        assert!(!whole("<(ls)<(ls)"));
        assert!(!whole("<(ls)$(echo /x)"));
        assert!(!whole(">(ls)"));
        assert!(!whole("<(ls"));
        assert!(!whole("<(echo \"$(echo ')')\")"));
        assert!(!whole("<(ls # )\n)"));
        assert!(!whole("<(cat <<E\n)\nE\n)"));
        assert!(!whole("<(case x in a) ls;; esac)"));
    }
}

/// The variables a word, as written, expands (`$NAME`, `${NAME…}`, `${#NAME}`, and the names
/// inside `$((…))` or `$[…]`, with or without `$`), in order; bash's special parameters (`$1`,
/// `$@`, `$?` …) are left out. `None` when the scan cannot be sure to see them all: an
/// indirect expansion (`${!NAME}`, `${!PREFIX*}`), a line break (a comment inside a
/// substitution could hide a quote), or quotes that do not close. Single-quoted text and
/// `$'…'` expand nothing; a substitution's text is scanned like the rest, so a quote inside
/// one within double quotes is taken as plain text, which can only find more names.
pub fn expanded_names(raw: &str) -> Option<Vec<String>> {
    if raw.contains('\n') {
        return None;
    }
    let b = raw.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let name_at = |i: usize| -> usize {
        let mut j = i;
        if b.get(j).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
            while b.get(j).copied().is_some_and(ident) {
                j += 1;
            }
        }
        j
    };
    let mut out: Vec<String> = Vec::new();
    let mut double = false;
    // How deep inside `$((…))` / `$[…]` the scan is: bare names there are variables.
    let mut arith: Vec<u8> = Vec::new();
    let mut parens = 0usize;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => i += 2,
            b'\'' if !double => {
                // A plain single-quoted string: nothing inside expands.
                let end = b[i + 1..].iter().position(|x| *x == b'\'')?;
                i += end + 2;
            }
            b'"' => {
                double = !double;
                i += 1;
            }
            b'$' => match b.get(i + 1).copied() {
                Some(b'\'') if !double => {
                    // `$'…'`: backslash escapes hide a quote; nothing expands.
                    let mut j = i + 2;
                    loop {
                        match b.get(j)? {
                            b'\\' => j += 2,
                            b'\'' => break,
                            _ => j += 1,
                        }
                    }
                    i = j + 1;
                }
                Some(b'{') => {
                    let mut j = i + 2;
                    match b.get(j) {
                        Some(b'!') => return None,
                        Some(b'#') if b.get(j + 1).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') => j += 1,
                        _ => {}
                    }
                    let end = name_at(j);
                    if end > j {
                        out.push(raw[j..end].to_string());
                    }
                    i = end.max(j);
                }
                Some(b'(') if b.get(i + 2) == Some(&b'(') => {
                    arith.push(b')');
                    parens = 0;
                    i += 3;
                }
                Some(b'[') => {
                    arith.push(b']');
                    i += 2;
                }
                Some(d) if d.is_ascii_alphabetic() || d == b'_' => {
                    let end = name_at(i + 1);
                    // `$_` is bash's last argument, a special parameter.
                    if &raw[i + 1..end] != "_" {
                        out.push(raw[i + 1..end].to_string());
                    }
                    i = end;
                }
                _ => i += 1,
            },
            _ if !arith.is_empty() => {
                let close = arith.last().copied();
                if c == b'(' {
                    parens += 1;
                    i += 1;
                } else if c == b')' && close == Some(b')') && parens > 0 {
                    parens -= 1;
                    i += 1;
                } else if c == b')' && close == Some(b')') && b.get(i + 1) == Some(&b')') {
                    arith.pop();
                    i += 2;
                } else if c == b']' && close == Some(b']') {
                    arith.pop();
                    i += 1;
                } else if c.is_ascii_alphabetic() || c == b'_' {
                    let end = name_at(i);
                    out.push(raw[i..end].to_string());
                    i = end;
                } else if c.is_ascii_digit() {
                    // `0x1f`, `2#101`: a number's letters are no names.
                    while b.get(i).copied().is_some_and(|c| ident(c) || c == b'#') {
                        i += 1;
                    }
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    if double {
        return None;
    }
    Some(out)
}

/// Does this command line hold a `|` (a pipeline, `|&` too) or a lone `&` (a command in the
/// background) outside quotes and escapes? Either runs a command in a subshell of its own, so a
/// variable it sets is not set for the commands after it. `||`, `&&` and the redirections `>&`,
/// `<&`, `&>` are not such operators. A `|` inside a substitution, a comment or a here-document
/// counts too: the answer may be yes where bash sees none, never no where it sees one.
pub fn has_subshell_operator(line: &str) -> bool {
    let b = line.as_bytes();
    let mut double = false;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => i += 2,
            b'\'' if !double => {
                let ansi = i > 0 && b[i - 1] == b'$';
                i += 1;
                while let Some(&d) = b.get(i) {
                    if ansi && d == b'\\' {
                        i += 2;
                        continue;
                    }
                    if d == b'\'' {
                        break;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'"' => {
                double = !double;
                i += 1;
            }
            b'|' if !double => {
                if b.get(i + 1) == Some(&b'|') {
                    i += 2;
                } else {
                    return true;
                }
            }
            b'&' if !double => {
                let redirection = (i > 0 && matches!(b[i - 1], b'>' | b'<')) || b.get(i + 1) == Some(&b'>');
                if b.get(i + 1) == Some(&b'&') {
                    i += 2;
                } else if redirection {
                    i += 1;
                } else {
                    return true;
                }
            }
            _ => i += 1,
        }
    }
    false
}

#[cfg(test)]
mod names_tests {
    use super::expanded_names;

    fn names(raw: &str) -> Option<Vec<&'static str>> {
        expanded_names(raw).map(|v| v.into_iter().map(|s| &*Box::leak(s.into_boxed_str())).collect())
    }

    #[test]
    fn the_names_a_word_expands_are_found_as_bash_reads_quotes() {
        assert_eq!(names("$HOME"), Some(vec!["HOME"]));
        assert_eq!(names("\"${GITHUB_TOKEN:0:4}\""), Some(vec!["GITHUB_TOKEN"]));
        assert_eq!(names("${#KEY}"), Some(vec!["KEY"]));
        assert_eq!(names("${x:-$Y}"), Some(vec!["x", "Y"]));
        assert_eq!(names("'$NOT'"), Some(vec![]));
        assert_eq!(names("\"it's $T\""), Some(vec!["T"]));
        assert_eq!(names("$'it\\'s' $T"), Some(vec!["T"]));
        assert_eq!(names("\\$NOT"), Some(vec![]));
        assert_eq!(names("$((a + $b * 0x1f))"), Some(vec!["a", "b"]));
        assert_eq!(names("$[n+1]"), Some(vec!["n"]));
        assert_eq!(names("\"$(echo \"$INNER\")\""), Some(vec!["INNER"]));
        assert_eq!(names("$1 $@ $? $$ $_ ${10}"), Some(vec![]));
        assert_eq!(names("${!ref}"), None);
        assert_eq!(names("${!AWS*}"), None);
        assert_eq!(names("\"open"), None);
        assert_eq!(names("'open"), None);
        assert_eq!(names("$(true # it's\n) $T"), None);
    }

    #[test]
    fn pipes_and_background_commands_are_found_outside_quotes() {
        use super::has_subshell_operator as sub;
        for yes in ["a | b", "a|&b", "a & b", "a&", "echo $'x\\'' | read X", "x=1 & echo", "echo \"a\" | b"] {
            assert!(sub(yes), "{yes}");
        }
        for no in
            ["a || b", "a && b", "a >&2", "a 2>&1", "a &> f", "a <&0", "echo 'a | b'", "echo \"a & b\"", "echo a\\|b"]
        {
            assert!(!sub(no), "{no}");
        }
    }
}
