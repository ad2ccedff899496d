//! jq filters. The hard question: does this filter reach outside its input? `env`, `$ENV`,
//! `input_filename`, `import` and `include` read the environment or load modules; `.env` is
//! only the key "env".

/// Does a jq filter name `env`, `$ENV`, `import`, `include` or `input_filename` as a word of
/// its own (not a field: `.env` is the key "env")?
pub fn filter_reaches_out(filter: &str) -> bool {
    let b = filter.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() || b[i] == b'_' || b[i] == b'$' {
            let start = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let field = start > 0 && b[start - 1] == b'.';
            if !field && matches!(&filter[start..i], "env" | "$ENV" | "import" | "include" | "input_filename") {
                return true;
            }
        } else {
            i += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    #[test]
    fn words_not_fields() {
        for risky in ["env", "$ENV.HOME", "import \"x\" as x; .", "input_filename", "[env]"] {
            assert!(super::filter_reaches_out(risky), "{risky}");
        }
        for plain in [".env", ".name", ".a.env", "map(.x)"] {
            assert!(!super::filter_reaches_out(plain), "{plain}");
        }
    }
}
