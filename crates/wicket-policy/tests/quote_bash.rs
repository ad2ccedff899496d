//! `text::shell_quote` against real bash: any word (but NUL, which bash cannot hold) quoted and
//! joined comes back from bash as exactly the same words.

#![allow(clippy::disallowed_methods)] // a test: it makes the files, folders and processes it checks against
#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use proptest::prelude::*;
use std::process::Command;
use wicket_policy::text::{shell_join, shell_quote};

/// The words bash makes of `line`, as `printf '%s\0'` prints them.
fn bash_words(line: &str) -> Vec<String> {
    let out =
        Command::new("bash").arg("-c").arg(format!("printf '%s\\0' {line}")).env("LC_ALL", "C.UTF-8").output().unwrap();
    assert!(out.status.success(), "{line}: {}", String::from_utf8_lossy(&out.stderr));
    let mut words: Vec<String> =
        out.stdout.split(|b| *b == 0).map(|w| String::from_utf8(w.to_vec()).unwrap()).collect();
    words.pop();
    words
}

fn word() -> impl Strategy<Value = String> {
    // Shell metacharacters, quotes, expansions, whitespace, controls and non-ASCII, weighted
    // so that most words hold several of them.
    let special = prop::sample::select(vec![
        '\'', '"', '\\', '$', '`', '!', '*', '?', '[', ']', '{', '}', '(', ')', '<', '>', '|', '&', ';', '#', '~', ' ',
        '\t', '\n', '\r', '\u{1b}', '\u{7f}', '=', '%', '@', ',', ':', '-', '.', '/', 'é', '\u{202e}', '\u{a0}',
    ]);
    prop::collection::vec(prop_oneof![3 => special, 2 => any::<char>().prop_filter("no NUL", |c| *c != '\0')], 0..12)
        .prop_map(|cs| cs.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn bash_reads_back_exactly_the_quoted_words(words in prop::collection::vec(word(), 1..40)) {
        prop_assert_eq!(bash_words(&shell_join(&words)), words);
    }
}

#[test]
fn plain_and_tricky_words() {
    for w in ["", "-", "--x=y", "a%b", "it's", "$(id)", "`id`", "~root", "a\nb", "!x", "#c", "\u{202e}x"] {
        assert_eq!(bash_words(&shell_quote(w)), vec![w.to_string()], "{w:?}");
    }
}
