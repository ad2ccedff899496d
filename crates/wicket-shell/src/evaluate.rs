//! Expansions that evaluate a value as code.
//!
//! The hard question: can expanding this word run a command that is not written in the
//! command line? Bash evaluates some values a second time: arithmetic (`$((v))`, `$[v]`,
//! `((v))`, `${s:v}`, `${a[v]}`, `[[ v -eq 1 ]]`, `let v`) reads a variable's value as an
//! arithmetic expression and expands a subscript in it (`a[$(id)]` runs `id`), `${v@P}` expands
//! the value as a prompt, `${!v}` uses the value as a name (with its subscript). The value can
//! come from anywhere (`read`, `printf -v`, `$_`, `BASH_REMATCH`, a `for` variable), so no
//! value is ever trusted: a word is *inert* only when nothing in it evaluates a value.
//!
//! The inert-word rule (docs/decisions.md): a parameter expansion is inert when it names a
//! parameter directly, with no `!` indirection (listing names or keys, `${!a[@]}`, `${!p*}`,
//! is allowed), no `@` transformation, a subscript that is `@`, `*` or inert arithmetic, and
//! substring offsets that are inert arithmetic. Arithmetic is inert when it holds only numbers,
//! operators and the numeric specials `$#`, `$?`, `$$`, `$!`, plus names the same arithmetic
//! text assigned a literal number before it uses them (`for ((i=0; i<3; i++))`). Everything
//! else is refused: the analysis is not understood.

/// The first thing in arithmetic text that makes bash evaluate a value it does not show:
/// a variable name (its value is evaluated recursively), any `$` expansion but the numeric
/// specials, a command substitution, or quoted text. `None` when the text is inert.
pub(crate) fn arith_evaluates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut safe: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'$' => match b.get(i + 1) {
                Some(b'#' | b'?' | b'$' | b'!') => i += 2,
                _ => return Some(snip(&text[i..])),
            },
            b'`' | b'\'' | b'"' | b'\\' => return Some(snip(&text[i..])),
            b'0'..=b'9' => {
                // A number, also `0x1f` and `16#ff` / `64#_@`.
                while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'#' | b'@')) {
                    i += 1;
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let name = &text[start..i];
                // `name=NUMBER` (not `==`): assigning a literal makes later uses safe.
                let rest = text[i..].trim_start();
                let assigns_literal =
                    rest.starts_with('=') && !rest.starts_with("==") && literal_number(rest[1..].trim_start());
                if assigns_literal {
                    safe.push(name);
                } else if !safe.contains(&name) {
                    return Some(name.to_string());
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// True when `s` starts with a literal number that is the whole operand (`0`, `10,`, `1;`).
fn literal_number(s: &str) -> bool {
    let b = s.as_bytes();
    let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
    n > 0 && b.get(n).is_none_or(|c| matches!(c, b',' | b';' | b' ' | b'\t' | b'\n' | b')'))
}

/// Why a `${…}` expansion evaluates a value, or `None` when it is inert.
pub(crate) fn expansion_evaluates(text: &str) -> Option<String> {
    let Some(inner) = text.strip_prefix("${").and_then(|t| t.strip_suffix('}')) else {
        return Some(format!("`{}` is not a plain parameter expansion", snip(text)));
    };
    let b = inner.as_bytes();
    let (mut i, indirect) = match b.first() {
        Some(b'!') if b.len() > 1 => (1, true),
        Some(b'#') if b.len() > 1 => (1, false),
        _ => (0, false),
    };
    let name_start = i;
    match b.get(i) {
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        }
        Some(c) if c.is_ascii_digit() => {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        Some(b'@' | b'*' | b'#' | b'?' | b'$' | b'!' | b'-') => i += 1,
        _ => return Some(format!("`{}` has no parameter name bash reads plainly", snip(text))),
    }
    let name_end = i;
    let mut all_elements = false;
    if b.get(i) == Some(&b'[') {
        let Some(close) = inner[i..].find(']') else {
            return Some(format!("`{}` has an unclosed subscript", snip(text)));
        };
        let sub = &inner[i + 1..i + close];
        all_elements = matches!(sub, "@" | "*");
        if !all_elements {
            if let Some(what) = arith_evaluates(sub) {
                return Some(format!("the subscript of `{}` evaluates `{what}`", snip(text)));
            }
        }
        i += close + 1;
    }
    let rest = &inner[i..];
    if indirect {
        // `${!a[@]}` (keys) and `${!prefix*}` (names) list names; anything else uses the value
        // as a name, subscript included.
        let names = (all_elements && rest.is_empty()) || (name_end > name_start && matches!(rest, "*" | "@"));
        return (!names).then(|| format!("`{}` uses a value as a variable name", snip(text)));
    }
    if rest.is_empty() {
        return None;
    }
    let op = rest.as_bytes()[0];
    match op {
        b'@' => Some(format!("`{}` transforms the value (`@P` runs the commands in it)", snip(text))),
        b':' if !matches!(rest.as_bytes().get(1), Some(b'-' | b'=' | b'+' | b'?')) => {
            // Substring: offset and length are arithmetic.
            arith_evaluates(&rest[1..]).map(|what| format!("the offset of `{}` evaluates `{what}`", snip(text)))
        }
        b':' | b'-' | b'=' | b'+' | b'?' | b'#' | b'%' | b'/' | b'^' | b',' => None,
        _ => Some(format!("`{}` has an operator wicket does not read", snip(text))),
    }
}

/// At most 40 characters of a text.
fn snip(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic() {
        let cases: &[(&str, bool)] = &[
            ("1+2", false),
            ("0x1f + 16#ff", false),
            ("$# + 1", false),
            ("v", true),
            ("v+1", true),
            ("$v", true),
            ("$1", true),
            ("$(echo 1)", true),
            ("'1'", true),
            ("i=0; i<3; i++", false),
            ("i=0; i<n; i++", true),
            ("i==0", true),
            ("a[i]", true),
        ];
        for (t, evaluates) in cases {
            assert_eq!(arith_evaluates(t).is_some(), *evaluates, "{t}");
        }
    }

    #[test]
    fn expansions() {
        let cases: &[(&str, bool)] = &[
            ("${v}", false),
            ("${#v}", false),
            ("${#}", false),
            ("${v:-x}", false),
            ("${v:=x}", false),
            ("${v/a/b}", false),
            ("${v^^}", false),
            ("${v%.*}", false),
            ("${a[@]}", false),
            ("${a[0]}", false),
            ("${s:1:2}", false),
            ("${s: -3}", false),
            ("${!a[@]}", false),
            ("${!BASH*}", false),
            ("${@}", false),
            ("${v@P}", true),
            ("${v@Q}", true),
            ("${!v}", true),
            ("${!v[0]}", true),
            ("${s:v}", true),
            ("${s:1:n}", true),
            ("${a[v]}", true),
            ("${a[$i]}", true),
            ("${#a[i]}", true),
        ];
        for (t, evaluates) in cases {
            assert_eq!(expansion_evaluates(t).is_some(), *evaluates, "{t}");
        }
    }
}
