//! GNU sed's scripts. The hard question: does this script run a command, write or read a file?
//! `e` runs one wherever it sits, `s///e` runs the pattern space, `w`/`W`/`r`/`R` touch files,
//! and a letter wicket does not know may do either, so it counts as doing so.

use super::skip_delimited;

/// Does a sed script run a command, write or read a file, or hold anything wicket cannot
/// read? The script is read command by command as GNU sed reads it: addresses (numbers, `$`,
/// `first~step`, `/re/` and `\cREc` with the `I` and `M` modifiers, `addr,+N`, `!`), then
/// one command. `e`, `w`, `W`, `r`, `R` and the `e`/`w` flags of `s` are risky wherever they
/// sit; a command letter wicket does not know makes the whole script risky.
pub fn script_runs(script: &str) -> bool {
    let b = script.as_bytes();
    let mut i = 0;
    let end_of_line = |mut j: usize| {
        while j < b.len() && b[j] != b'\n' {
            j += 1;
        }
        j
    };
    let end_of_label = |mut j: usize| {
        while j < b.len() && !matches!(b[j], b'\n' | b';') {
            j += 1;
        }
        j
    };
    while i < b.len() {
        // Separators and blanks between commands.
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b';' | b'}') {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        // The address part.
        loop {
            match b.get(i) {
                Some(b'0'..=b'9' | b'$' | b'~' | b'+' | b',' | b'!' | b' ' | b'\t') => i += 1,
                Some(b'/') => i = skip_delimited(b, i + 1, b'/'),
                Some(b'\\') => match b.get(i + 1) {
                    Some(&d) => i = skip_delimited(b, i + 2, d),
                    None => return true,
                },
                // Regex address modifiers (GNU): only right after a regex.
                Some(b'I' | b'M') if i > 0 && matches!(b[i - 1], b'/' | b'I' | b'M') || is_custom_delim_end(b, i) => {
                    i += 1
                }
                _ => break,
            }
        }
        let Some(&c) = b.get(i) else { return false };
        i += 1;
        match c {
            b'{' | b'=' | b'd' | b'D' | b'g' | b'G' | b'h' | b'H' | b'x' | b'n' | b'N' | b'p' | b'P' | b'z' | b'F' => {}
            b'q' | b'Q' | b'l' | b'L' => {
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b' ') {
                    i += 1;
                }
            }
            b'#' => i = end_of_line(i),
            b':' | b'b' | b't' | b'T' | b'v' => i = end_of_label(i),
            b'a' | b'i' | b'c' => {
                // Text to the end of the line; a trailing backslash continues it.
                loop {
                    i = end_of_line(i);
                    let continued = i > 0 && b[i - 1] == b'\\' && i < b.len();
                    if !continued {
                        break;
                    }
                    i += 1;
                }
            }
            b'y' => {
                let Some(&delim) = b.get(i) else { return true };
                i = skip_delimited(b, skip_delimited(b, i + 1, delim), delim);
            }
            b's' => {
                let Some(&delim) = b.get(i) else { return true };
                if matches!(delim, b'\n' | b'\\') {
                    return true;
                }
                i = skip_delimited(b, skip_delimited(b, i + 1, delim), delim);
                // Flags: `g`, `p`, a number, `i`/`I`, `m`/`M`; `e` runs, `w` writes.
                while let Some(&f) = b.get(i) {
                    match f {
                        b'g' | b'p' | b'i' | b'I' | b'm' | b'M' | b'0'..=b'9' => i += 1,
                        b'e' | b'w' | b'W' => return true,
                        b';' | b'\n' | b'}' | b' ' | b'\t' => break,
                        _ => return true,
                    }
                }
            }
            // Runs a command, writes or reads a file.
            b'e' | b'w' | b'W' | b'r' | b'R' => return true,
            _ => return true,
        }
    }
    false
}

/// True when position `i` follows the closing delimiter of a `\cREc` address (a modifier may
/// follow it): conservatively, any `I`/`M` after a character that is not a letter.
fn is_custom_delim_end(b: &[u8], i: usize) -> bool {
    i > 0 && !b[i - 1].is_ascii_alphanumeric() && !matches!(b[i - 1], b' ' | b'\t' | b';' | b'\n')
}

#[cfg(test)]
mod tests {
    use super::script_runs as sed_script_runs;

    #[test]
    fn sed_scripts() {
        // Each runs a command, writes or reads a file in GNU sed 4.9 (checked in a sandbox).
        for risky in [
            "1e id",
            ":a;e id",
            "/x/Ie id",
            "/a/M,/x/I e id",
            "\\%a%Ie id",
            "s/a/id/Ie",
            "s/a/id/1e",
            "s|a|id|e",
            "y/a/b/;e id",
            "{e id\n}",
            "0~1e id",
            "$!e id",
            "1 ! e id",
            "1,+1e id",
            "1r /etc/hostname",
            "#n\n1e id",
            "s/a/b/w out",
            "1W out",
            "1R in",
            "1K",
        ] {
            assert!(sed_script_runs(risky), "{risky:?}");
        }
        for plain in [
            "1,5p",
            "s/a/b/g",
            "/east/d",
            "s/a;b/c/g",
            "$!N;s/\\n/ /",
            "/^#/d;s/x/y/2",
            "y/abc/xyz/",
            "1a hello; e id",
            ":a;N;$!ba;s/\\n/,/g",
        ] {
            assert!(!sed_script_runs(plain), "{plain:?}");
        }
    }
}
