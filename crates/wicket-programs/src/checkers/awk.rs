//! awk programs (gawk, mawk, busybox). The hard question: does this program run a command,
//! read or write a file, or load code? Comparisons look like redirections (`$3 > 100`), so
//! `>` counts only inside a `print` statement.

use super::skip_delimited;

/// Does a word of an awk command reach beyond the files its operands name: the environment
/// it was given (`ENVIRON`, gawk's `PROCINFO`, or either by name through gawk's `SYMTAB`), or
/// other input files (`ARGV[1]="/etc/hostname"` in `BEGIN` makes awk read that file)? Then
/// awk prints more than the files a rule sees.
pub fn reaches_beyond_operands(word: &str) -> bool {
    ["ENVIRON", "PROCINFO", "SYMTAB", "ARGV"].iter().any(|n| word.contains(n))
}

/// Does an awk program run a command, read or write a file, or load code? Read token by token
/// outside strings and regex literals: `system`, `getline`, a pipe (`|`, `|&`), `@` (gawk's
/// `@include`, `@load` and indirect calls like `@f()`), and `>` inside a `print`/`printf`
/// statement (an output redirection; a comparison elsewhere is fine).
pub fn program_runs(p: &str) -> bool {
    let b = p.as_bytes();
    let mut i = 0;
    let mut in_print = false;
    // Whether a `/` here starts a regex literal (after an operator or at a statement start).
    let mut regex_ok = true;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' => {
                i = skip_delimited(b, i + 1, b'"');
                regex_ok = false;
                continue;
            }
            b'/' if regex_ok => {
                i = skip_delimited(b, i + 1, b'/');
                regex_ok = false;
                continue;
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'|' if b.get(i + 1) == Some(&b'|') => {
                i += 2;
                regex_ok = true;
                continue;
            }
            b'|' | b'@' => return true,
            b'>' if in_print => return true,
            b';' | b'}' | b'{' | b'\n' => {
                in_print = false;
                regex_ok = true;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                match &p[start..i] {
                    "system" | "getline" => return true,
                    "print" | "printf" => in_print = true,
                    _ => {}
                }
                regex_ok = false;
                continue;
            }
            b' ' | b'\t' => {}
            b')' | b']' | b'$' | b'0'..=b'9' => regex_ok = false,
            _ => regex_ok = true,
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::program_runs as awk_program_runs;

    #[test]
    fn awk_programs() {
        for risky in [
            "BEGIN{system(\"id\")}",
            "BEGIN { system (\"id\") }",
            "{print > \"out\"}",
            "{print \"a;b\" > \"out\"}",
            "{printf \"%s\", $0 >> \"out\"}",
            "{print | \"sh\"}",
            "BEGIN{\"id\" | getline x}",
            "BEGIN{getline < \".env\"}",
            "BEGIN{print |& \"sh\"}",
            "@include \"x\"",
            "BEGIN{f=\"system\"; @f(\"id\")}",
        ] {
            assert!(awk_program_runs(risky), "{risky}");
        }
        for plain in [
            "{print $1}",
            "$3 > 100",
            "$3 > 100 { print $1 }",
            "{ if ($2 > 0 || $3 > 0) print $1 }",
            "/a|b/ { print }",
            "{ s += $1 } END { print s / NR }",
            "-F: '{print $1}'",
        ] {
            assert!(!awk_program_runs(plain), "{plain}");
        }
    }
}
