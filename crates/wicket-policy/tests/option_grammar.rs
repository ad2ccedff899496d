//! Properties of the option grammar (issue 14, classes 3, 4, 5, 7 and 8): every spelling a
//! program accepts is read as that program reads it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic

use proptest::prelude::*;
use wicket_policy::flags::risky_flags;
use wicket_policy::options::{program, Arg, Effect, Program, Scripts, Style, PROGRAMS};
use wicket_policy::rules::CommandPattern;

/// An effect an allow rule must see spelled out.
fn dangerous(e: Effect) -> bool {
    matches!(e, Effect::Exec | Effect::Write | Effect::ScriptFile | Effect::Script | Effect::ReadList)
}

/// A value that makes a script option dangerous too (`sed -e '1e id'`).
fn value_for(p: &Program, e: Effect) -> &'static str {
    match (e, p.scripts) {
        (Effect::Script, Scripts::Awk) => "BEGIN{system(\"id\")}",
        (Effect::Script, _) => "1e id",
        _ => "out.txt",
    }
}

/// Every table with the words that reach it: `(["git", "log"], GIT_LOG)`.
fn tables() -> Vec<(Vec<&'static str>, &'static Program)> {
    let mut out = Vec::new();
    let mut todo: Vec<(Vec<&'static str>, &'static Program)> =
        PROGRAMS.iter().map(|p| (vec![p.names[0]], *p)).collect();
    while let Some((words, p)) = todo.pop() {
        for s in p.subs {
            let mut w = words.clone();
            w.push(s.names[0]);
            todo.push((w, *s));
        }
        out.push((words, p));
    }
    out
}

/// Class 3: every unambiguous prefix (3+ characters) of every dangerous long option of a
/// program that accepts abbreviations is caught, glued with `=` or as the next word.
#[test]
fn every_unique_prefix_of_a_dangerous_long_option_is_caught() {
    let mut checked = 0;
    for (lead, p) in tables() {
        if !p.abbrev {
            continue;
        }
        let opts: Vec<_> = p.all_opts().collect();
        let longs: Vec<(&str, usize)> = opts
            .iter()
            .enumerate()
            .flat_map(|(i, o)| o.names().filter(|n| n.starts_with("--")).map(move |n| (n, i)))
            .collect();
        for (i, o) in opts.iter().enumerate() {
            if !dangerous(o.effect) {
                continue;
            }
            for name in o.names().filter(|n| n.starts_with("--")) {
                for end in 3..=name.len() {
                    let prefix = &name[..end];
                    // Unique: no other option has a long name starting with it (an exact name wins).
                    let others = longs.iter().any(|(n, j)| *j != i && n.starts_with(prefix) && *n != prefix);
                    let exact_other = longs.iter().any(|(n, j)| *j != i && *n == prefix);
                    if others || exact_other {
                        continue;
                    }
                    let mut forms: Vec<Vec<String>> = Vec::new();
                    let value = value_for(p, o.effect);
                    match o.arg {
                        Arg::No | Arg::Optional => forms.push(vec![prefix.to_string()]),
                        Arg::Required | Arg::Last | Arg::Command => {
                            forms.push(vec![prefix.to_string(), value.to_string()]);
                            if p.equals {
                                forms.push(vec![format!("{prefix}={value}")]);
                            }
                        }
                        Arg::Two => forms.push(vec![prefix.to_string(), value.to_string(), "x".to_string()]),
                    }
                    for form in forms {
                        let mut words = lead.clone();
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
    for (_, p) in tables() {
        let mut seen = std::collections::HashSet::new();
        // A program's own option may shadow a shared one of the same name (its own are looked
        // up first, as git's parse-options reads `format-patch -n` as `--numbered`, not the
        // revision walk's `-n COUNT`); within each list a name stands once.
        let own: std::collections::HashSet<&str> = p.opts.iter().flat_map(|o| o.names()).collect();
        let mut shadowed = std::collections::HashSet::new();
        for o in p.all_opts() {
            let shared = !p.opts.iter().any(|x| std::ptr::eq(x, o));
            if shared && o.names().any(|n| own.contains(n)) {
                assert!(shadowed.insert(o.name()), "{}: {} shadowed twice", p.names[0], o.name());
                continue;
            }
            assert!(!o.name().is_empty(), "{}: an option without names", p.names[0]);
            for n in o.names() {
                assert!(n.starts_with('-') && n.len() >= 2, "{}: bad name {n}", p.names[0]);
                // find's primaries and a few programs' single-dash long options are whole words.
                let whole_word = p.style == Style::Expression || n.starts_with("--") || !p.abbrev;
                // Info-ZIP's two-letter short options (`-TT`).
                let two_letters = p.style == Style::MultiShort && n.chars().count() == 3;
                assert!(whole_word || two_letters || n.chars().count() == 2, "{}: bad short name {n}", p.names[0]);
                // Go's flag package reads `--x` as `-x`: its tables list one dash only.
                assert!(p.style != Style::GoFlag || !n.starts_with("--"), "{}: {n} has two dashes", p.names[0]);
                assert!(seen.insert(n), "{}: {n} twice", p.names[0]);
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
        let known_short = table.opts.iter().any(|o| o.has(&format!("-{letter}")));
        let short = format!("-{letter}");
        if !known_short {
            prop_assert!(!risky_flags(&["rm", &short, "x"]).is_empty(), "{short}");
        }
        let long = format!("--{long}");
        let known_long = table.opts.iter().any(|o| o.names().any(|n| n.starts_with(long.as_str())));
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

/// Does this table know the long option `name` (exactly, or as a prefix when it abbreviates)?
fn knows_long(p: &'static Program, name: &str) -> bool {
    if p.style == Style::GoFlag {
        let single = name.strip_prefix('-').unwrap_or(name);
        return p.all_opts().any(|o| o.has(single));
    }
    p.all_opts().flat_map(|o| o.names()).any(|n| n == name || (p.abbrev && n.starts_with(name)))
        || (p.negatable && name.starts_with("--no-"))
}

/// Class 5: every exec-, write- or script-file option of every table (sub-commands too), by
/// each of its exact names, short or long, is something an allow rule must spell out.
#[test]
fn every_dangerous_option_by_every_name_is_caught() {
    let mut checked = 0;
    for (lead, p) in tables() {
        for o in p.all_opts() {
            if !matches!(o.effect, Effect::Exec | Effect::Write | Effect::ScriptFile | Effect::ReadList) {
                continue;
            }
            for name in o.names() {
                let mut words = lead.clone();
                words.push(name);
                match o.arg {
                    Arg::No | Arg::Optional => {}
                    Arg::Two => words.extend(["out.txt", "x"]),
                    Arg::Command => words.extend(["sh", ";"]),
                    Arg::Required | Arg::Last => words.push("out.txt"),
                }
                words.push("x");
                assert!(!risky_flags(&words).is_empty(), "{words:?} is not caught");
                checked += 1;
            }
        }
    }
    assert!(checked > 150, "only {checked} names checked");
}

/// Where each table's unknown options are tried: every table with the words that reach it.
fn any_table() -> impl Strategy<Value = (Vec<&'static str>, &'static Program)> {
    prop::sample::select(tables())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Class 5: an option a tabled program (or sub-command) does not have is never covered by
    /// a `prog *` rule: it is a risky word the rule must spell out, short or long, before or
    /// after an operand.
    #[test]
    fn an_unknown_option_is_never_covered_by_a_star_rule(
        (lead, p) in any_table(),
        long in "[a-z]{3,9}(-[a-z]{2,6})?",
        letter in "[a-zA-Z]",
        after in any::<bool>(),
    ) {
        let long = if p.style == Style::Expression { format!("-{long}") } else { format!("--{long}") };
        let short = format!("-{letter}");
        let known_short = p.all_opts().any(|o| o.has(&short));
        let candidates: Vec<&str> = if p.style == Style::Expression || known_short {
            vec![long.as_str()]
        } else {
            vec![long.as_str(), short.as_str()]
        };
        for opt in candidates {
            let known = if p.style == Style::Expression {
                p.all_opts().any(|o| o.has(opt))
            } else {
                opt.starts_with("--") && knows_long(p, opt)
            };
            if known {
                continue;
            }
            let mut words = lead.clone();
            // Options after an operand count only where the program permutes.
            if after && p.permute && p.stop_after == 0 && p.style != Style::Expression && p.subs.is_empty() {
                words.push("x");
            }
            words.push(opt);
            words.push("y");
            prop_assert!(!risky_flags(&words).is_empty(), "{words:?}");
        }
    }

    /// Class 5, tar: an old-style first word is read letter by letter, value letters taking
    /// the next words in order, exactly as the same options written `-x -f F -I P`.
    #[test]
    fn tar_old_style_cluster_reads_like_separate_options(
        mode in prop::sample::select(vec!["x", "t", "c"]),
        flags in prop::collection::vec(prop::sample::select(vec!["v", "z", "j", "p"]), 0..3),
        program_first in any::<bool>(),
    ) {
        let (first, second) = if program_first { ("I", "f") } else { ("f", "I") };
        let cluster = format!("{mode}{}{first}{second}", flags.concat());
        let (v1, v2) = if program_first { ("sh", "a.tar") } else { ("a.tar", "sh") };
        let old = ["tar", cluster.as_str(), v1, v2];
        prop_assert!(risky_flags(&old).contains(&"-I".to_string()), "{old:?}");
        let table = program("tar").unwrap();
        let a = table.parse(&old[1..]).normal_form("tar");
        let mut new: Vec<String> = vec![format!("-{mode}")];
        new.extend(flags.iter().map(|f| format!("-{f}")));
        new.extend(["-I".to_string(), "sh".to_string(), "-f".to_string(), "a.tar".to_string()]);
        let b = table.parse(&new).normal_form("tar");
        prop_assert_eq!(a, b);
    }
}

/// A word for every form of an option's value: `[name, value]`, and `[name=value]` where the
/// program takes `=`.
fn forms_of(p: &Program, name: &str, arg: Arg, value: &str) -> Vec<Vec<String>> {
    match arg {
        Arg::No | Arg::Optional => vec![vec![name.to_string()]],
        Arg::Two => vec![vec![name.to_string(), value.to_string(), "x".to_string()]],
        Arg::Required | Arg::Last | Arg::Command => {
            let mut out = vec![vec![name.to_string(), value.to_string()]];
            if p.equals {
                out.push(vec![format!("{name}={value}")]);
            }
            out
        }
    }
}

/// Class 3 and 5 for parsers that take no abbreviations (clap, Go's `flag`, jq, node, rsync
/// …): every proper prefix of every option that runs code, writes or reads a file is an option
/// the program refuses, so wicket reads it as unknown and an allow rule must spell it out;
/// never a silently allowed word. For the parsers that do abbreviate, every unique prefix of a
/// read option reads the same file as the full name.
#[test]
fn prefixes_follow_each_parser() {
    let mut refused = 0;
    let mut read = 0;
    for (lead, p) in tables() {
        if p.style == Style::Expression {
            continue;
        }
        let opts: Vec<_> = p.all_opts().collect();
        let names: Vec<&str> = opts.iter().flat_map(|o| o.names()).collect();
        for o in &opts {
            if !matches!(o.effect, Effect::Exec | Effect::Write | Effect::ScriptFile | Effect::Read | Effect::ReadList)
            {
                continue;
            }
            let longs = o.names().filter(|n| n.starts_with("--") || (p.style == Style::GoFlag && n.len() > 2));
            for name in longs {
                let dashes = if name.starts_with("--") { 2 } else { 1 };
                for end in dashes + 2..name.len() {
                    let prefix = &name[..end];
                    if !p.abbrev {
                        if names.contains(&prefix) || (p.negatable && prefix.starts_with("--no-")) {
                            continue;
                        }
                        // Go reads `-name` and `--name` alike: try both spellings.
                        let spellings: Vec<String> = if p.style == Style::GoFlag {
                            vec![prefix.to_string(), format!("-{prefix}")]
                        } else {
                            vec![prefix.to_string()]
                        };
                        for spelled in spellings {
                            for form in forms_of(p, &spelled, o.arg, "out.txt") {
                                let mut words = lead.clone();
                                words.extend(form.iter().map(String::as_str));
                                words.push("x");
                                assert!(
                                    !risky_flags(&words).is_empty(),
                                    "{words:?}: a prefix {} refuses is allowed",
                                    p.names[0]
                                );
                                refused += 1;
                            }
                        }
                    } else if o.effect == Effect::Read {
                        let unique = names.iter().filter(|n| n.starts_with(prefix)).all(|n| o.has(n));
                        if !unique {
                            continue;
                        }
                        for form in forms_of(p, prefix, o.arg, "secret.txt") {
                            let args: Vec<&str> =
                                lead[1..].iter().copied().chain(form.iter().map(String::as_str)).collect();
                            let parsed = program(lead[0]).unwrap().parse(&args);
                            if o.arg != Arg::Two && o.arg != Arg::No {
                                assert!(
                                    parsed.reads().iter().any(|r| r == "secret.txt"),
                                    "{lead:?} {form:?}: the read is lost"
                                );
                            }
                            read += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(refused > 300, "only {refused} refused prefixes checked");
    assert!(read > 20, "only {read} read prefixes checked");
}

/// Go's `flag` package: `-name`, `--name`, `-name=v` and `-name v` are one option; a cluster
/// of two flags is one unknown option, never two known ones.
#[test]
fn go_flags_read_like_the_flag_package() {
    let go = program("go").unwrap();
    let one = go.parse(&["test", "-exec", "x", "./..."]).normal_form("go");
    for spelled in
        [&["test", "--exec", "x", "./..."][..], &["test", "-exec=x", "./..."], &["test", "--exec=x", "./..."]]
    {
        assert_eq!(go.parse(spelled).normal_form("go"), one, "{spelled:?}");
    }
    // Flags after the packages: `go test` reads them, `go build` does not (they are packages).
    assert_eq!(risky_flags(&["go", "test", "./...", "-exec", "x"]), ["-exec"]);
    assert!(risky_flags(&["go", "build", "./...", "-v"]).is_empty());
    // No clusters: `-vx` is one unknown flag.
    assert_eq!(risky_flags(&["go", "build", "-vx", "./..."]), ["-vx"]);
    // `-args` hands the rest to the test binary.
    assert!(risky_flags(&["go", "test", "./...", "-args", "-exec", "x"]).is_empty());
}
