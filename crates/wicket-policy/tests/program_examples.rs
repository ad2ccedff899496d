//! Every record of the program catalogue carries examples, and each one is run here through
//! both consumers: the engine's reading of the argv (`wicket_policy::flags` and the record's
//! checker) and the shell reader's wrapper stripping (`wicket_shell::strip_wrappers`). An
//! example that does not do what its record says fails, naming the program and the example:
//! a record that does not do what its author meant is a test failure, not a surprise. (It
//! lives here because wicket-programs cannot see its consumers, and wicket-policy sees both.)

use wicket_policy::flags::{risky_flags, write_args};
use wicket_programs::{lookup, records, Example, Expect};

/// What the two consumers find in an example's argv.
#[derive(Debug, Default, PartialEq, Eq)]
struct Seen {
    /// Words an allow rule must spell out: the engine's option reading, then the checker's.
    risky: Vec<String>,
    /// Files written by its words (`?` for one not known statically).
    writes: Vec<String>,
    /// Commands the shell reader finds behind it, each as its words joined by spaces.
    runs: Vec<String>,
    /// Whether the shell reader understood what runs.
    understood: bool,
    /// Whether its checker finds a change of wicket's own gate.
    gate_changes: bool,
}

/// The words of an example: split on `·` when it holds one, else on spaces.
fn words(argv: &str) -> Vec<&str> {
    let sep = if argv.contains('·') { '·' } else { ' ' };
    argv.split(sep).collect()
}

/// The words as one shell command line, each single-quoted when it holds anything but plain
/// characters.
fn command_line(words: &[&str]) -> String {
    let quote = |w: &&str| {
        if !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b)) {
            w.to_string()
        } else {
            format!("'{}'", w.replace('\'', r"'\''"))
        }
    };
    words.iter().map(quote).collect::<Vec<_>>().join(" ")
}

fn observe(argv: &str) -> Seen {
    let words = words(argv);
    let mut seen = Seen::default();
    let push = |list: &mut Vec<String>, w: String| {
        if !list.contains(&w) {
            list.push(w);
        }
    };
    for r in risky_flags(&words) {
        push(&mut seen.risky, r);
    }
    let effects = wicket_programs::checkers::effects(&words);
    for r in effects.risky {
        push(&mut seen.risky, r);
    }
    let some: Vec<Option<&str>> = words.iter().copied().map(Some).collect();
    for w in write_args(&some) {
        push(&mut seen.writes, w.unwrap_or_else(|| "?".to_string()));
    }
    for w in effects.writes {
        push(&mut seen.writes, w);
    }
    seen.gate_changes = !effects.gate_changes.is_empty();
    let analysis = wicket_shell::analyze(&command_line(&words));
    seen.understood = analysis.understood;
    if let Some(cmd) = analysis.commands.first() {
        let unwrapped = wicket_shell::strip_wrappers(cmd);
        seen.understood &= unwrapped.understood;
        for a in unwrapped.argvs.iter().skip(1) {
            let text: Vec<&str> = a.iter().map(|w| w.value.as_deref().unwrap_or(&w.raw)).collect();
            seen.runs.push(text.join(" "));
        }
    }
    seen
}

/// What is wrong with one example, or `None`.
fn check(example: &Example) -> Option<String> {
    let seen = observe(example.argv);
    let ok = match example.expect {
        Expect::Risky(want) => seen.risky == want,
        Expect::Writes(want) => seen.risky.is_empty() && seen.writes == want,
        Expect::Runs(want) => seen.runs == want,
        Expect::Plain => {
            seen.risky.is_empty()
                && seen.writes.is_empty()
                && seen.runs.is_empty()
                && seen.understood
                && !seen.gate_changes
        }
        Expect::ChangesGate => seen.gate_changes,
        Expect::Unread => !seen.understood,
    };
    (!ok).then(|| format!("`{}`: expected {:?}, found {seen:?}", example.argv, example.expect))
}

#[test]
fn every_record_has_an_example_of_its_own() {
    let mut bare = Vec::new();
    for record in records() {
        if record.examples.is_empty() {
            bare.push(record.names[0]);
        }
        for example in record.examples {
            let program = words(example.argv)[0];
            assert!(
                lookup(program).is_some_and(|p| std::ptr::eq(p, record)),
                "{}: the example `{}` is of another program",
                record.names[0],
                example.argv
            );
        }
    }
    assert!(bare.is_empty(), "records without an example: {bare:?}");
}

#[test]
fn every_example_does_what_its_record_says() {
    let mut wrong = Vec::new();
    let mut count = 0;
    for record in records() {
        for example in record.examples {
            count += 1;
            if let Some(why) = check(example) {
                wrong.push(format!("{}: {why}", record.names[0]));
            }
        }
    }
    assert!(count >= records().count(), "fewer examples than records");
    assert!(wrong.is_empty(), "examples that fail:\n{}", wrong.join("\n"));
}

/// The checks can fail: an example that claims what the consumers do not find is refused.
#[test]
fn a_wrong_example_is_caught() {
    let cases = [
        Example { argv: "rm -rf build", expect: Expect::Plain },
        Example { argv: "rm -rf build", expect: Expect::Writes(&["other"]) },
        Example { argv: "sudo rm x", expect: Expect::Runs(&["rm y"]) },
        Example { argv: "sed -i s/a/b/ f", expect: Expect::Writes(&["f"]) },
        Example { argv: "git status", expect: Expect::Risky(&["status"]) },
        Example { argv: "git status", expect: Expect::Unread },
    ];
    for example in &cases {
        assert!(check(example).is_some(), "{example:?} passed");
    }
}
