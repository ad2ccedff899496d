//! Text safety, one definition each: hidden characters, quoting for the shell, cutting.
//!
//! The hard question: which characters make what a person reads differ from what runs or what
//! is stored? A character missing here slips past every check that relies on it (the engine's
//! "never auto-allow", the capability grammar, the terminal approver), so there is exactly one
//! set, and the others are built from it.

/// True for a character that is invisible or changes how text reads: controls (C0 but tab and
/// newline, DEL, C1), soft hyphen and other default-ignorable format characters, zero-width
/// characters, bidirectional marks, embeddings, overrides and isolates, the line and paragraph
/// separators, invisible separators and operators, variation selectors (both blocks),
/// interlinear annotation marks, the byte-order mark, Hangul fillers and tag characters
/// (U+E0000–E007F). Tab and newline are left to the shell parser.
pub fn is_invisible(c: char) -> bool {
    let cp = c as u32;
    (cp < 0x20 && c != '\t' && c != '\n')
        || (0x7f..=0x9f).contains(&cp)
        || matches!(cp, 0xad | 0x34f | 0x61c | 0x115f | 0x1160 | 0x17b4 | 0x17b5 | 0x180e | 0x3164 | 0xfeff | 0xffa0)
        || (0x180b..=0x180f).contains(&cp)
        || (0x200b..=0x200f).contains(&cp)
        || (0x2028..=0x202e).contains(&cp)
        || (0x2060..=0x206f).contains(&cp)
        || (0xfe00..=0xfe0f).contains(&cp)
        || (0xfff9..=0xfffb).contains(&cp)
        || (0x1bca0..=0x1bca3).contains(&cp)
        || (0x1d173..=0x1d17a).contains(&cp)
        || (0xe0000..=0xe007f).contains(&cp)
        || (0xe0100..=0xe01ef).contains(&cp)
}

/// True for a character that must not be shown to a person as itself: every [`is_invisible`]
/// character, tab, and whitespace other than the plain space and newline (look-alike spaces).
pub fn is_hidden_on_display(c: char) -> bool {
    is_invisible(c) || c == '\t' || (c.is_whitespace() && c != ' ' && c != '\n')
}

/// The [`is_invisible`] characters in `s`, each once, as `U+XXXX` joined by `, `; `None` when
/// there are none.
pub fn invisible_chars(s: &str) -> Option<String> {
    let mut found: Vec<String> = Vec::new();
    for c in s.chars().filter(|c| is_invisible(*c)) {
        let e = format!("U+{:04X}", c as u32);
        if !found.contains(&e) {
            found.push(e);
        }
    }
    (!found.is_empty()).then(|| found.join(", "))
}

/// The text on one line with nothing hidden: every [`is_hidden_on_display`] character and every
/// newline written as `\u{hex}`, and a `\` that starts `u{` written `\u{5c}`, so that what is
/// shown can never pass for an escape it is not. [`unescape_hidden`] gives the text back.
pub fn escape_hidden(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        let spoof = c == '\\' && s[i + 1..].starts_with("u{");
        if is_hidden_on_display(c) || c == '\n' || spoof {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The text [`escape_hidden`] was given, or `None` when `s` is not its output.
pub fn unescape_hidden(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("\\u{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 3..];
        let end = after.find('}')?;
        let c = char::from_u32(u32::from_str_radix(&after[..end], 16).ok()?)?;
        out.push(c);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// A word quoted for bash so that bash reads it back as exactly this one word: as it is when
/// every character is plainly safe (ASCII letters, digits and `-_./=:,+@%`), else in single
/// quotes (a `'` inside written `'\''`). Bash cannot hold NUL, so a word with one never
/// round-trips; callers refuse such words first.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b)) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Words joined into one command line that bash splits back into exactly these words.
pub fn shell_join<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> String {
    words.into_iter().map(|w| shell_quote(w.as_ref())).collect::<Vec<_>>().join(" ")
}

/// At most `max` characters of `s`, and how many more there were (0 when nothing was cut).
pub fn cut(s: &str, max: usize) -> (&str, usize) {
    match s.char_indices().nth(max) {
        Some((i, _)) => (&s[..i], s[i..].chars().count()),
        None => (s, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_of_hidden_character_is_caught_and_ordinary_text_is_not() {
        let hidden = [
            '\u{0}',
            '\u{1b}',
            '\r',
            '\u{7f}',
            '\u{85}',
            '\u{ad}',
            '\u{34f}',
            '\u{61c}',
            '\u{180e}',
            '\u{200b}',
            '\u{200d}',
            '\u{200e}',
            '\u{2028}',
            '\u{2029}',
            '\u{202e}',
            '\u{2066}',
            '\u{2069}',
            '\u{2062}',
            '\u{feff}',
            '\u{fe0f}',
            '\u{fff9}',
            '\u{e0001}',
            '\u{e0041}',
            '\u{e007f}',
            '\u{e0100}',
            '\u{e01ef}',
            '\u{3164}',
            '\u{1d173}',
        ];
        for c in hidden {
            assert!(is_invisible(c), "U+{:04X} must be invisible", c as u32);
            assert!(is_hidden_on_display(c), "U+{:04X} must be escaped on display", c as u32);
        }
        for c in ['a', ' ', '\n', '\t', 'é', 'ж', '€', '中', '😀', '-', '/'] {
            assert!(!is_invisible(c), "{c:?} is ordinary");
        }
        assert!(is_hidden_on_display('\t') && is_hidden_on_display('\u{a0}') && is_hidden_on_display('\u{3000}'));
        assert_eq!(invisible_chars("ls\u{e0041}\u{e0041}\u{fe0f}"), Some("U+E0041, U+FE0F".to_string()));
        assert_eq!(invisible_chars("git status\n"), None);
    }

    #[test]
    fn escaping_hides_nothing_and_comes_back() {
        assert_eq!(escape_hidden("ls\u{202e}x\n"), "ls\\u{202e}x\\u{a}");
        assert_eq!(escape_hidden(r"echo \u{202e}"), r"echo \u{5c}u{202e}");
        assert_eq!(escape_hidden(r"a\nb"), r"a\nb");
        for s in ["", "plain", "tab\there", "\u{1b}[31m", r"\u{41}", "\\", "x\u{e0041}y", "\u{a0}"] {
            assert_eq!(unescape_hidden(&escape_hidden(s)).as_deref(), Some(s), "{s:?}");
        }
    }

    proptest::proptest! {
        /// Any text: the escaped form shows no hidden character and gives the text back.
        #[test]
        fn escape_round_trips(s in "(\\PC|[\\x00-\\x1f\\x7f\\u{200b}-\\u{200f}\\u{202a}-\\u{202e}\\u{2066}-\\u{2069}\\u{e0000}-\\u{e007f}]|\\\\u\\{[0-9a-f]{0,6}\\}?){0,40}") {
            let e = escape_hidden(&s);
            proptest::prop_assert!(!e.chars().any(|c| is_hidden_on_display(c) || c == '\n'), "{e:?}");
            proptest::prop_assert_eq!(unescape_hidden(&e), Some(s));
        }
    }

    #[test]
    fn quoting_leaves_plain_words_and_wraps_the_rest() {
        assert_eq!(shell_quote("src/a-b_c.rs"), "src/a-b_c.rs");
        assert_eq!(shell_quote("a=b:c,d+e@f%g"), "a=b:c,d+e@f%g");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote("~"), "'~'");
        assert_eq!(shell_join(["git", "commit", "-m", "a b"]), "git commit -m 'a b'");
        assert_eq!(cut("héllo", 2), ("hé", 3));
        assert_eq!(cut("hi", 2), ("hi", 0));
    }
}
