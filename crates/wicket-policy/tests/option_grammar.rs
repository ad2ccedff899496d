//! Properties of the option grammar (issue 14, classes 3, 4, 5, 7 and 8): every spelling a
//! program accepts is read as that program reads it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic

use proptest::prelude::*;
use wicket_policy::flags::risky_flags;
use wicket_policy::options::{program, Arg, Effect, PROGRAMS};
use wicket_policy::rules::CommandPattern;

/// An effect an allow rule must see spelled out.
fn dangerous(e: Effect) -> bool {
    matches!(e, Effect::Exec | Effect::Write | Effect::ScriptFile | Effect::Script)
}

/// A value that makes a script option dangerous too (`sed -e '1e id'`).
fn value_for(e: Effect) -> &'static str {
    if e == Effect::Script {
        "1e id"
    } else {
        "out.txt"
    }
}

/// Class 3: every unambiguous prefix (3+ characters) of every dangerous long option of a
/// program that accepts abbreviations is caught, glued with `=` or as the next word.
#[test]
fn every_unique_prefix_of_a_dangerous_long_option_is_caught() {
    let mut checked = 0;
    for p in PROGRAMS {
        if !p.abbrev {
            continue;
        }
        let longs: Vec<(&str, usize)> = p
            .opts
            .iter()
            .enumerate()
            .flat_map(|(i, o)| o.names.iter().filter(|n| n.starts_with("--")).map(move |n| (*n, i)))
            .collect();
        for (i, o) in p.opts.iter().enumerate() {
            if !dangerous(o.effect) {
                continue;
            }
            for name in o.names.iter().filter(|n| n.starts_with("--")) {
                for end in 3..=name.len() {
                    let prefix = &name[..end];
                    // Unique: no other option has a long name starting with it (an exact name wins).
                    let others = longs.iter().any(|(n, j)| *j != i && n.starts_with(prefix) && *n != prefix);
                    let exact_other = longs.iter().any(|(n, j)| *j != i && *n == prefix);
                    if others || exact_other {
                        continue;
                    }
                    let mut forms: Vec<Vec<String>> = Vec::new();
                    match o.arg {
                        Arg::No => forms.push(vec![prefix.to_string()]),
                        Arg::Optional => forms.push(vec![prefix.to_string()]),
                        Arg::Required => {
                            forms.push(vec![prefix.to_string(), value_for(o.effect).to_string()]);
                            if p.equals {
                                forms.push(vec![format!("{prefix}={}", value_for(o.effect))]);
                            }
                        }
                    }
                    for form in forms {
                        let mut words = vec![p.names[0]];
                        words.extend(form.iter().map(String::as_str));
                        words.push("x");
                        assert!(!risky_flags(&words).is_empty(), "{words:?} is not caught");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} prefixes checked");
}

/// Table sanity: names are options, unique within a program, and short names are one letter.
#[test]
fn tables_are_well_formed() {
    for p in PROGRAMS {
        let mut seen = std::collections::HashSet::new();
        for o in p.opts {
            assert!(!o.names.is_empty(), "{}: an option without names", p.names[0]);
            for n in o.names {
                assert!(n.starts_with('-') && n.len() >= 2, "{}: bad name {n}", p.names[0]);
                assert!(n.starts_with("--") || n.chars().count() == 2, "{}: bad short name {n}", p.names[0]);
                assert!(seen.insert(*n), "{}: {n} twice", p.names[0]);
            }
        }
        assert!(!p.source.is_empty());
    }
}

fn sed_flag() -> impl Strategy<Value = char> {
    prop::sample::select(vec!['n', 's', 'u', 'z', 'E', 'r'])
}

/// Spellings of "recursive" and "force" rm accepts.
fn rm_recursive() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["-r", "-R", "--recursive", "--recursiv", "--rec", "--re"])
}
fn rm_force() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["-f", "--force", "--forc", "--fo"])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Class 4: a script given to `-e` anywhere in a cluster of flags, glued or as the next
    /// word, is found.
    #[test]
    fn sed_script_in_any_cluster_is_found(flags in prop::collection::vec(sed_flag(), 0..4), glued in any::<bool>(), before in prop::collection::vec(sed_flag(), 0..2)) {
        let cluster: String = flags.iter().collect();
        let mut words: Vec<String> = vec!["sed".into()];
        for f in &before {
            words.push(format!("-{f}"));
        }
        if glued {
            words.push(format!("-{cluster}e1e id"));
        } else {
            words.push(format!("-{cluster}e"));
            words.push("1e id".into());
        }
        words.push("file".into());
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        prop_assert!(risky_flags(&refs).iter().any(|f| f == "1e id"), "{refs:?}");
    }

    /// Class 8: every order, split and long/short spelling of `-r` and `-f` meets the deny rule
    /// `rm -rf*`, with other options and operands around them.
    #[test]
    fn every_spelling_of_rm_rf_is_denied(
        r in rm_recursive(),
        f in rm_force(),
        cluster in any::<bool>(),
        r_first in any::<bool>(),
        extra in prop::sample::select(vec!["", "-v", "--verbose", "-d", "--one-file-system"]),
        operand in prop::sample::select(vec!["/", "build", "a b"]),
    ) {
        let opts = if cluster && r.len() == 2 && f.len() == 2 {
            if r_first { format!("-{}{}", &r[1..], &f[1..]) } else { format!("-{}{}", &f[1..], &r[1..]) }
        } else if r_first {
            format!("{r} {f}")
        } else {
            format!("{f} {r}")
        };
        let text = format!("rm {extra} {opts} {operand}").split_whitespace().collect::<Vec<_>>().join(" ");
        prop_assert!(CommandPattern::new("rm -rf*").matches_any_spelling(&text), "{text}");
        // And without one of the two it is not the same command.
        let only_r = format!("rm {r} {operand}");
        prop_assert!(!CommandPattern::new("rm -rf*").matches_any_spelling(&only_r), "{only_r}");
    }

    /// Class 5: an option rm does not have makes the command need a rule that spells it out.
    #[test]
    fn unknown_options_are_risky(letter in "[a-zA-Z]", long in "[a-z]{3,8}") {
        let table = program("rm").unwrap();
        let known_short = table.opts.iter().any(|o| o.names.contains(&format!("-{letter}").as_str()));
        let short = format!("-{letter}");
        if !known_short {
            prop_assert!(!risky_flags(&["rm", &short, "x"]).is_empty(), "{short}");
        }
        let long = format!("--{long}");
        let known_long = table.opts.iter().any(|o| o.names.iter().any(|n| n.starts_with(long.as_str())));
        if !known_long {
            prop_assert!(!risky_flags(&["rm", &long, "x"]).is_empty(), "{long}");
        }
    }

    /// Class 7: a program name glued to `*` in a pattern matches only that whole program.
    #[test]
    fn program_names_are_whole_words(name in "[a-z]{2,6}", suffix in "[a-z0-9.-]{1,4}", args in "( [a-z]{1,4}){0,3}") {
        let p = CommandPattern::new(&format!("{name}*"));
        let same = format!("{name}{args}");
        let other = format!("{name}{suffix}{args}");
        prop_assert!(p.matches(&same), "{same}");
        prop_assert!(!p.matches(&other), "{other}");
    }
}
