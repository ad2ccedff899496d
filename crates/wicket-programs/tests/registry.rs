//! Every program record is registered exactly once: a table written but reachable from
//! nowhere is knowledge no consumer sees, and a name in two records makes the answer depend on
//! the order of a list.

use std::collections::BTreeMap;

use wicket_programs::{program, Program, PROGRAMS};

/// The sources that define records, read at build time (a pure crate's tests read no disk).
const SOURCES: &[(&str, &str)] = &[
    ("grammar.rs", include_str!("../src/grammar.rs")),
    ("grammar/tables.rs", include_str!("../src/grammar/tables.rs")),
    ("grammar/tools.rs", include_str!("../src/grammar/tools.rs")),
];

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
            let Some(open) = body.find("Program {") else { continue };
            let body = &body[open..];
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

/// Every record reachable from `PROGRAMS`, sub-commands included, once each.
fn reachable() -> Vec<&'static Program> {
    let mut out: Vec<&'static Program> = Vec::new();
    let mut todo: Vec<&'static Program> = PROGRAMS.to_vec();
    while let Some(p) = todo.pop() {
        if !out.contains(&p) {
            out.push(p);
            todo.extend(p.subs.iter().copied());
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
    assert!(missing.is_empty(), "records reachable from no entry of PROGRAMS: {missing:?}");
    assert_eq!(reachable.len(), defined().len(), "records defined and records reachable differ in number");
}

#[test]
fn each_program_is_registered_once() {
    for (i, p) in PROGRAMS.iter().enumerate() {
        assert!(!PROGRAMS[..i].contains(p), "{:?} is in PROGRAMS twice", p.names);
    }
    let mut owner: BTreeMap<&str, &[&str]> = BTreeMap::new();
    for p in PROGRAMS {
        assert!(!p.names.is_empty(), "a record in PROGRAMS has no name ({})", p.source);
        for name in p.names {
            if let Some(other) = owner.insert(name, p.names) {
                panic!("`{name}` names two records: {other:?} and {:?}", p.names);
            }
        }
    }
}

#[test]
fn programs_are_sorted_by_first_name() {
    let firsts: Vec<&str> = PROGRAMS.iter().map(|p| p.names[0]).collect();
    let mut sorted = firsts.clone();
    sorted.sort_unstable();
    assert_eq!(firsts, sorted, "keep PROGRAMS sorted by each record's first name");
}

#[test]
fn lookup_finds_every_name_by_base_name() {
    for p in PROGRAMS {
        for name in p.names {
            assert_eq!(program(name), Some(*p), "{name}");
            assert_eq!(program(&format!("/usr/bin/{name}")), Some(*p), "/usr/bin/{name}");
        }
    }
    assert_eq!(program("no-such-program"), None);
}
