//! Redaction: secrets never reach the log.
//!
//! The hard question: what looks like a secret in a command line, a path or a reason? Four
//! things, each replaced by [`REDACTED`]: the values of secret-looking environment variables
//! (and any value a caller registers), provider API key shapes, the credential after `Bearer`,
//! `Basic` or `token`, the value after a secret-looking name (`API_KEY=…`, `--password=…`,
//! `"token": "…"`), and long random tokens (32+ characters mixing upper case, lower case and
//! digits). It must never leave the text unreadable: paths, words and hex hashes such as git
//! commit ids stay as they are.

use std::borrow::Cow;

/// What a redacted value becomes.
pub const REDACTED: &str = "[REDACTED]";

/// Values shorter than this are never redacted by value (they would match ordinary words).
const MIN_SECRET_VALUE: usize = 8;

/// Length from which a mixed-case alphanumeric run counts as a random token.
const RANDOM_TOKEN_MIN: usize = 32;

/// Prefixes of provider API keys, with the least length of the whole key.
const KEY_SHAPES: &[(&str, usize)] = &[
    ("sk-", 20),         // OpenAI, Anthropic (`sk-ant-`), DeepSeek …
    ("sk_live_", 16),    // Stripe
    ("sk_test_", 16),    // Stripe
    ("rk_live_", 16),    // Stripe restricted
    ("ghp_", 30),        // GitHub personal
    ("gho_", 30),        // GitHub OAuth
    ("ghu_", 30),        // GitHub user-to-server
    ("ghs_", 30),        // GitHub server-to-server
    ("ghr_", 30),        // GitHub refresh
    ("github_pat_", 30), // GitHub fine-grained
    ("glpat-", 20),      // GitLab
    ("xoxb-", 20),       // Slack bot
    ("xoxp-", 20),       // Slack user
    ("xoxa-", 20),       // Slack app
    ("xoxr-", 20),       // Slack refresh
    ("xoxs-", 20),       // Slack session
    ("AKIA", 20),        // AWS access key id
    ("ASIA", 20),        // AWS temporary key id
    ("AIza", 39),        // Google API key
    ("npm_", 36),        // npm
    ("hf_", 30),         // Hugging Face
    ("pypi-", 50),       // PyPI
    ("dop_v1_", 40),     // DigitalOcean
    ("sq0atp-", 22),     // Square
];

/// Replaces secrets in text with [`REDACTED`].
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Exact values to hide, longest first (so a value that contains another goes first).
    values: Vec<String>,
}

impl Redactor {
    /// A redactor that knows shapes only, no values.
    pub fn new() -> Redactor {
        Redactor::default()
    }

    /// A redactor that also hides the values of this process's secret-looking environment
    /// variables (`*_TOKEN`, `*_KEY`, `*SECRET*`, `*PASSWORD*` …, 8 characters or more).
    ///
    /// Only the secret-looking values are copied: every hook process builds one, and
    /// `std::env::vars_os` copying each of the environment's variables cost 10–25 µs of a
    /// hook call's audit budget of 100 µs (see `docs/performance.md`).
    pub fn from_env() -> Redactor {
        let mut r = Redactor::new();
        env::each_var(|name, value| {
            // The name first: only a secret's value is checked and copied.
            if std::str::from_utf8(name).is_ok_and(secret_name) {
                if let Ok(value) = std::str::from_utf8(value) {
                    r.add_secret(value);
                }
            }
        });
        r
    }

    /// Hide this exact value too (a key moved out of the environment, a stored credential).
    /// Values shorter than 8 characters are ignored.
    pub fn add_secret(&mut self, value: &str) {
        let value = value.trim();
        if value.len() >= MIN_SECRET_VALUE && !self.values.iter().any(|v| v == value) {
            self.values.push(value.to_string());
            self.values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        }
    }

    /// The text with every secret replaced.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut text = Cow::Borrowed(text);
        for v in &self.values {
            if text.contains(v.as_str()) {
                text = Cow::Owned(text.replace(v.as_str(), REDACTED));
            }
        }
        match redact_shapes(&text) {
            Some(owned) => Cow::Owned(owned),
            None => text,
        }
    }
}

mod env {
    /// Call `f` with the name and value of each of the process's environment variables,
    /// without copying them.
    #[cfg(target_os = "linux")]
    pub(super) fn each_var(mut f: impl FnMut(&[u8], &[u8])) {
        use std::ffi::{c_char, CStr};
        extern "C" {
            /// The C library's environment: a null-terminated array of `NAME=value` strings.
            static environ: *const *const c_char;
        }
        // SAFETY: this reads the environment as `getenv(3)` and std's own `vars_os` do: each
        // entry is a NUL-terminated string owned by the C library, and the array ends with a
        // null pointer. Nothing may change the environment meanwhile, which is the contract of
        // `std::env::set_var`/`remove_var` ("unsafe" since Rust 2024 for that reason: no other
        // thread may read the environment outside `std::env` while they run); wicket never
        // calls them. The borrowed bytes do not outlive this call.
        unsafe {
            let mut entry = environ;
            while !entry.is_null() && !(*entry).is_null() {
                let var = CStr::from_ptr(*entry).to_bytes();
                // As std does: a leading `=` belongs to the name (never a secret's).
                if let Some(eq) = var.iter().skip(1).position(|b| *b == b'=') {
                    f(&var[..eq + 1], &var[eq + 2..]);
                }
                entry = entry.add(1);
            }
        }
    }

    /// Elsewhere (macOS keeps its environment behind `_NSGetEnviron`): through std, which
    /// copies every variable.
    #[cfg(not(target_os = "linux"))]
    pub(super) fn each_var(mut f: impl FnMut(&[u8], &[u8])) {
        for (name, value) in std::env::vars_os() {
            if let (Some(name), Some(value)) = (name.to_str(), value.to_str()) {
                f(name.as_bytes(), value.as_bytes());
            }
        }
    }
}

/// Does an environment variable or option name look like it holds a secret?
pub fn secret_name(name: &str) -> bool {
    // Upper case, `-` as `_`, without allocating: this runs on every word of every line.
    let name = name.trim_start_matches('-').as_bytes();
    if name.len() < 4 || name.len() > 128 {
        return false;
    }
    let mut buf = [0u8; 128];
    let n = &mut buf[..name.len()];
    for (d, s) in n.iter_mut().zip(name) {
        *d = if *s == b'-' { b'_' } else { s.to_ascii_uppercase() };
    }
    let n = &*n;
    // One pass, comparing only where a part's first letter stands: every hook process runs
    // this on each of its environment's names.
    let (mut part, mut author) = (false, false);
    for i in 0..n.len() {
        let rest = &n[i..];
        let at = |p: &[u8]| rest.starts_with(p);
        match rest[0] {
            b'T' => part |= at(b"TOKEN"),
            b'S' => part |= at(b"SECRET"),
            b'P' => part |= at(b"PASSWORD") || at(b"PASSWD") || at(b"PASSPHRASE") || at(b"PRIVATE_KEY"),
            b'C' => part |= at(b"CREDENTIAL"),
            b'A' => {
                part |= at(b"APIKEY") || at(b"API_KEY");
                author |= at(b"AUTHOR");
            }
            _ => {}
        }
    }
    if author && n != b"AUTHORIZATION" {
        return false;
    }
    part || n.ends_with(b"_KEY")
        || n.ends_with(b"_PAT")
        || n.ends_with(b"_AUTH")
        || n == b"AUTH"
        || n == b"AUTHORIZATION"
        || n == b"PASS"
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+')
}

/// Redact shapes (keys, bearer credentials, assignments, random tokens); `None` if nothing.
fn redact_shapes(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0; // bytes of `text` already in `out` (or skipped)
    let mut i = 0;
    // Set when the previous word announces a credential (`Bearer`, `Basic`, `token`): the
    // least length the next word needs to be hidden.
    let mut hide_next_word: Option<usize> = None;
    while i < b.len() {
        if !is_token_byte(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_token_byte(b[i]) {
            i += 1;
        }
        let word = &text[start..i];
        let mut hide = (start, i, false);
        if hide_next_word.take().is_some_and(|min| value_end(b, start) - start >= min) {
            hide = (start, value_end(b, start), true);
        } else if key_shape(word) || random_token(word) {
            hide = (start, i, true);
        } else {
            let announced = if word.eq_ignore_ascii_case("bearer") || word.eq_ignore_ascii_case("basic") {
                Some(8)
            } else if word.eq_ignore_ascii_case("token") {
                Some(20)
            } else {
                None
            };
            if announced.is_some() && b.get(i) == Some(&b' ') {
                hide_next_word = announced;
            } else if secret_name(word) {
                // `NAME=value`, `NAME: value`, `"name": "value"`, `--name value`.
                if let Some(mut v) = value_start(b, i, word.starts_with("--")) {
                    // `Authorization: Bearer xyz`: the scheme stays, the credential goes.
                    for scheme in ["bearer ", "basic ", "token "] {
                        if text.get(v..v + scheme.len()).is_some_and(|w| w.eq_ignore_ascii_case(scheme)) {
                            v += scheme.len();
                        }
                    }
                    let end = value_end(b, v);
                    if end > v {
                        hide = (v, end, true);
                    }
                }
            }
        }
        if hide.2 {
            let (s, e, _) = hide;
            let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
            o.push_str(&text[copied..s]);
            o.push_str(REDACTED);
            copied = e;
            i = i.max(e);
        }
    }
    let mut o = out?;
    o.push_str(&text[copied..]);
    Some(o)
}

/// After a secret-looking name ending at `i`: where its value starts, if it has one.
fn value_start(b: &[u8], mut i: usize, flag: bool) -> Option<usize> {
    if b.get(i) == Some(&b'"') || b.get(i) == Some(&b'\'') {
        i += 1; // the name's closing quote in JSON or YAML
    }
    match b.get(i) {
        Some(b'=') => i += 1,
        Some(b':') => {
            i += 1;
            while b.get(i) == Some(&b' ') {
                i += 1;
            }
        }
        Some(b' ') if flag => i += 1,
        _ => return None,
    }
    if matches!(b.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    Some(i)
}

/// Where a value that starts at `i` ends: at a quote, white space, `&`, `,`, `;` or `}`.
fn value_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && !matches!(b[i], b'"' | b'\'' | b' ' | b'\t' | b'\n' | b'&' | b',' | b';' | b'}' | b')') {
        i += 1;
    }
    i
}

fn key_shape(word: &str) -> bool {
    KEY_SHAPES.iter().any(|(prefix, min)| word.len() >= *min && word.starts_with(prefix))
}

/// A long run that mixes upper case, lower case and digits: a random token, not a word, a
/// path segment or a hex hash.
fn random_token(word: &str) -> bool {
    if word.len() < RANDOM_TOKEN_MIN {
        return false;
    }
    let (mut upper, mut lower, mut digit) = (false, false, false);
    for b in word.bytes() {
        upper |= b.is_ascii_uppercase();
        lower |= b.is_ascii_lowercase();
        digit |= b.is_ascii_digit();
    }
    upper && lower && digit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_and_ordinary_text_is_not() {
        let mut r = Redactor::new();
        r.add_secret("hunter2-long-password");
        let cases = [
            ("curl -H 'Authorization: Bearer abc.def-123' x", "curl -H 'Authorization: Bearer [REDACTED]' x"),
            ("export OPENAI_API_KEY=sk-proj-AbCdEf0123456789xyz", "export OPENAI_API_KEY=[REDACTED]"),
            ("echo sk-ant-api03-abcdefghijklmnopqrstuv", "echo [REDACTED]"),
            (
                "git push https://x:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r",
                "git push https://x:[REDACTED]@github.com/o/r",
            ),
            ("aws s3 ls # AKIAIOSFODNN7EXAMPLE", "aws s3 ls # [REDACTED]"),
            ("mysql --password=s3cr3t! db", "mysql --password=[REDACTED] db"),
            ("login --token abcdefgh", "login --token [REDACTED]"),
            (r#"{"api_key":"v4lue-here","q":"x"}"#, r#"{"api_key":"[REDACTED]","q":"x"}"#),
            ("DB_PASSWORD: topsecret", "DB_PASSWORD: [REDACTED]"),
            ("use hunter2-long-password now", "use [REDACTED] now"),
            ("token Zx9AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "token [REDACTED]"),
            ("echo Zx9AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "echo [REDACTED]"),
        ];
        for (input, want) in cases {
            assert_eq!(r.redact(input), want, "{input}");
        }
        for keep in [
            "git show 3f2a9c0d1e4b5a67c8d9e0f1a2b3c4d5e6f7a8b9",
            "cargo test --all -- --nocapture",
            "src/components/VeryLongComponentName/index.tsx",
            "GIT_AUTHOR_NAME=someone git commit",
            "read_file config/.env.example",
            "the token is missing",
            "sort -k 2 file.txt",
            "ssh-keygen -t ed25519 -f id_key",
        ] {
            assert_eq!(r.redact(keep), keep);
        }
    }

    /// The definition [`secret_name`] implements in one pass: a part anywhere, `AUTHOR`
    /// (but `AUTHORIZATION` itself) never, or one of the endings and whole names.
    fn secret_name_by_definition(name: &str) -> bool {
        let n = name.trim_start_matches('-').to_ascii_uppercase().replace('-', "_");
        if n.len() < 4 || n.len() > 128 || (n.contains("AUTHOR") && n != "AUTHORIZATION") {
            return false;
        }
        let parts =
            ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY", "API_KEY", "PRIVATE_KEY"];
        parts.iter().any(|p| n.contains(p))
            || ["_KEY", "_PAT", "_AUTH"].iter().any(|e| n.ends_with(e))
            || ["AUTH", "AUTHORIZATION", "PASS"].contains(&n.as_str())
    }

    #[test]
    fn secret_name_agrees_with_its_definition() {
        // Every name built from the parts, their near misses and filler, in every order of two.
        let pieces = [
            "TOKEN",
            "TOKE",
            "SECRET",
            "SECRE",
            "PASSWORD",
            "PASSWD",
            "PASSPHRASE",
            "PASS",
            "PAS",
            "CREDENTIAL",
            "APIKEY",
            "API_KEY",
            "API-KEY",
            "PRIVATE_KEY",
            "PRIVATE",
            "AUTHOR",
            "AUTHORIZATION",
            "AUTH",
            "KEY",
            "_KEY",
            "_PAT",
            "PAT",
            "_AUTH",
            "my_",
            "x",
            "--",
            "Token",
            "tokens",
            "T",
            "A",
            "P",
            "S",
            "C",
            "CREDENTIA",
            "PASSWOR",
            "PASSPHRAS",
            "PRIVATE_KE",
            "APIKE",
            "API_KE",
            "AUTHO",
            "PASSW",
        ];
        let mut names: Vec<String> = pieces.iter().map(|p| p.to_string()).collect();
        for a in pieces {
            for b in pieces {
                names.push(format!("{a}{b}"));
                names.push(format!("{a}_{b}"));
            }
        }
        names.push("A".repeat(129));
        for name in &names {
            assert_eq!(secret_name(name), secret_name_by_definition(name), "{name}");
        }
    }

    #[test]
    fn secret_names() {
        for yes in ["GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY", "DB_PASSWORD", "--password", "api-key"] {
            assert!(secret_name(yes), "{yes}");
        }
        for no in ["PATH", "HOME", "GIT_AUTHOR_EMAIL", "KEYBOARD", "PWD", "TERM"] {
            assert!(!secret_name(no), "{no}");
        }
    }
}
