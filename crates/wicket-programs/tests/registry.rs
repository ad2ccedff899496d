//! Every program record is registered exactly once: a table written but reachable from
//! nowhere is knowledge no consumer sees, and a name in two records makes the answer depend on
//! the order of a list.

use std::collections::BTreeMap;

use wicket_programs::{lookup, program, Network, Program, Role, Writes, KNOWN, PROGRAMS, RUNNERS};

/// The sources that define records, read at build time (a pure crate's tests read no disk).
const SOURCES: &[(&str, &str)] = &[
    ("grammar.rs", include_str!("../src/grammar.rs")),
    ("grammar/tables.rs", include_str!("../src/grammar/tables.rs")),
    ("grammar/tools.rs", include_str!("../src/grammar/tools.rs")),
    ("programs.rs", include_str!("../src/programs.rs")),
    ("programs/launchers.rs", include_str!("../src/programs/launchers.rs")),
    ("programs/shells.rs", include_str!("../src/programs/shells.rs")),
    ("programs/builtins.rs", include_str!("../src/programs/builtins.rs")),
    ("programs/files.rs", include_str!("../src/programs/files.rs")),
    ("programs/interpreters.rs", include_str!("../src/programs/interpreters.rs")),
    ("programs/net.rs", include_str!("../src/programs/net.rs")),
    ("programs/packages.rs", include_str!("../src/programs/packages.rs")),
    ("programs/system.rs", include_str!("../src/programs/system.rs")),
];

/// The three lists: the engine's tables, the runners', and the records of facts only.
fn registered() -> impl Iterator<Item = &'static &'static Program> {
    PROGRAMS.iter().chain(RUNNERS).chain(KNOWN)
}

/// The `names` of every `const NAME: Program = Program { names: &[…], … }` in the sources,
/// keyed by where it is defined; the template every table starts from has none.
fn defined() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for (file, text) in SOURCES {
        let mut rest = *text;
        while let Some(at) = rest.find(": Program =") {
            let head = &rest[..at];
            let name = head.rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or("");
            let body = &rest[at..];
            rest = &body[1..];
            // The record's own text: up to the next record.
            let body = &body[..rest.find(": Program =").map_or(body.len(), |end| end + 1)];
            let Some(open) = body.find("Program {") else { continue };
            let body = &body[open..];
            if !body.contains("names: &[") {
                // A template (`GETOPT`, `RUNNER`): no names, reached by nobody.
                continue;
            }
            let Some(names_at) = body.find("names: &[") else { panic!("{file}: {name} has no names") };
            let list = &body[names_at + "names: &[".len()..];
            let Some(close) = list.find(']') else { panic!("{file}: {name} has an unclosed names list") };
            let list = &list[..close];
            let names: Vec<String> =
                list.split(',').map(|n| n.trim().trim_matches('"').to_string()).filter(|n| !n.is_empty()).collect();
            if !names.is_empty() {
                out.push((format!("{file}: {name}"), names));
            }
        }
    }
    out
}

/// Every record reachable from `PROGRAMS` and `RUNNERS`, sub-commands and the grammars of
/// launching sub-commands included, once each.
fn reachable() -> Vec<&'static Program> {
    let mut out: Vec<&'static Program> = Vec::new();
    let mut todo: Vec<&'static Program> = registered().copied().collect();
    while let Some(p) = todo.pop() {
        if !out.contains(&p) {
            out.push(p);
            todo.extend(p.subs.iter().copied());
            if let Some(launch) = p.role.launch() {
                todo.extend(launch.subs.iter().map(|s| s.grammar));
            }
        }
    }
    out
}

#[test]
fn every_defined_record_is_registered() {
    let reachable = reachable();
    let mut missing = Vec::new();
    for (where_, names) in defined() {
        if !reachable.iter().any(|p| p.names.iter().copied().eq(names.iter().map(String::as_str))) {
            missing.push(where_);
        }
    }
    assert!(missing.is_empty(), "records reachable from no entry of PROGRAMS, RUNNERS or KNOWN: {missing:?}");
    assert_eq!(reachable.len(), defined().len(), "records defined and records reachable differ in number");
}

#[test]
fn each_program_is_registered_once() {
    let all: Vec<&Program> = registered().copied().collect();
    for (i, p) in all.iter().enumerate() {
        assert!(!all[..i].contains(p), "{:?} is registered twice", p.names);
    }
    let mut owner: BTreeMap<&str, &[&str]> = BTreeMap::new();
    for p in all {
        assert!(!p.names.is_empty(), "a record in PROGRAMS has no name ({})", p.source);
        for name in p.names {
            if let Some(other) = owner.insert(name, p.names) {
                panic!("`{name}` names two records: {other:?} and {:?}", p.names);
            }
        }
    }
}

#[test]
fn lists_are_sorted_by_first_name() {
    for (list, name) in [(PROGRAMS, "PROGRAMS"), (RUNNERS, "RUNNERS"), (KNOWN, "KNOWN")] {
        let firsts: Vec<&str> = list.iter().map(|p| p.names[0]).collect();
        let mut sorted = firsts.clone();
        sorted.sort_unstable();
        assert_eq!(firsts, sorted, "keep {name} sorted by each record's first name");
    }
}

/// A launcher's options are read only up to its command, so they must stop at the first
/// operand (or, for a package launcher, right after the package).
#[test]
fn launchers_stop_reading_options_at_their_command() {
    for p in registered() {
        let Some(launch) = p.role.launch() else { continue };
        // Walkers that find the command by scanning the words, not by reading options.
        use wicket_programs::{Start, Walker::*};
        let scans = matches!(
            launch.start,
            Start::Walker(FindExec | FdExec | Su | Trap | Applet | Unseen | Debugger | SubCommand)
        );
        let own = (!scans).then_some(*p);
        for g in own.into_iter().chain(launch.subs.iter().map(|s| s.grammar)) {
            let stops = !g.permute || g.stop_after == 1;
            assert!(stops, "{:?}: options of a launcher must stop at its command", g.names);
        }
    }
}

#[test]
fn lookup_finds_every_name_by_base_name() {
    for p in PROGRAMS {
        for name in p.names {
            assert_eq!(program(name), Some(*p), "{name}");
            assert_eq!(program(&format!("/usr/bin/{name}")), Some(*p), "/usr/bin/{name}");
        }
    }
    for p in registered() {
        for name in p.names {
            assert_eq!(lookup(name), Some(*p), "{name}");
        }
    }
    for p in RUNNERS.iter().chain(KNOWN) {
        // The engine has no option table for a runner: its options' effects are not annotated.
        assert_eq!(program(p.names[0]), None, "{}", p.names[0]);
    }
    assert_eq!(program("no-such-program"), None);
    assert_eq!(lookup("no-such-program"), None);
}

/// The facts the engine trusts without reading a program's words agree with the rest of its
/// record: one that makes no links runs nothing and writes at most what its options name or
/// nothing by its record (`uniq`'s output is its checker's), and one that only prints has no
/// options, writes nothing and uses no network; a cache the planner makes stays below the home.
#[test]
fn facts_that_excuse_a_program_agree_with_its_record() {
    for p in registered() {
        if p.makes_no_links {
            assert_eq!(p.role, Role::Plain, "{:?} makes no links but runs other programs", p.names);
            assert!(
                matches!(p.writes, Writes::Nothing | Writes::Values(_)),
                "{:?} makes no links but writes {:?}",
                p.names,
                p.writes
            );
        }
        if let Some(cache) = p.home_cache {
            // The planner makes it below the home: a plain relative path, never out of it.
            let plain =
                !cache.is_empty() && !cache.starts_with('/') && cache.split('/').all(|c| !c.is_empty() && c != "..");
            assert!(plain, "{:?}: home_cache {cache:?} is not a folder below the home", p.names);
        }
        if p.only_prints {
            assert_eq!(p.role, Role::Plain, "{:?} only prints but runs other programs", p.names);
            assert!(p.opts.is_empty() && p.subs.is_empty(), "{:?} only prints but has options", p.names);
            assert_eq!(p.writes, Writes::Nothing, "{:?} only prints but writes", p.names);
            assert_eq!(p.network, Network::Never, "{:?} only prints but uses the network", p.names);
        }
    }
}

/// The tools whose configuration option only reads (`config_values`) have no record: a record
/// of one would be a second home for the fact, which then moves into it.
#[test]
fn config_readers_have_no_record() {
    for name in wicket_programs::config_readers() {
        assert!(wicket_programs::lookup(name).is_none(), "{name} has a record: move its config option there");
    }
}
