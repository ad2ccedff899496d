//! Runs the fixture `tests/cases/split.txt`: one case a line, input and expected parts.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic

use wicket_shell::{analyze, ProblemKind};

const CASES: &str = include_str!("cases/split.txt");

#[derive(Debug)]
struct Case<'a> {
    line: usize,
    input: String,
    problem: Option<&'a str>,
    parts: Option<Vec<String>>,
}

fn cases() -> Vec<Case<'static>> {
    let mut out = Vec::new();
    for (i, line) in CASES.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((input, expected)) = line.rsplit_once(" => ").or_else(|| line.strip_suffix(" =>").map(|i| (i, "")))
        else {
            panic!("split.txt:{}: no ` => ` in {line:?}", i + 1);
        };
        let input = input.replace('⏎', "\n");
        let (problem, parts) = if let Some(rest) = expected.strip_prefix('!') {
            match rest.split_once(": ") {
                Some((kind, parts)) => (Some(kind), Some(parse_parts(parts))),
                None => (Some(rest.trim()), None),
            }
        } else {
            (None, Some(parse_parts(expected)))
        };
        out.push(Case { line: i + 1, input, problem, parts });
    }
    out
}

fn parse_parts(s: &str) -> Vec<String> {
    if s.trim().is_empty() {
        return Vec::new();
    }
    s.split(" ¦ ").map(|p| if p == "∅" { String::new() } else { p.replace('⏎', "\n") }).collect()
}

fn kind_name(k: ProblemKind) -> String {
    format!("{k:?}")
}

#[test]
fn split_fixture() {
    let mut failures = Vec::new();
    let cases = cases();
    assert!(cases.len() > 100, "fixture has {} cases", cases.len());
    for case in &cases {
        let a = analyze(&case.input);
        let got: Vec<String> = a.commands.iter().map(|c| c.canonical()).collect();
        let kinds: Vec<String> = a.problems.iter().map(|p| kind_name(p.kind)).collect();
        let mut ok = true;
        match case.problem {
            None => ok &= a.understood,
            Some(kind) => ok &= !a.understood && kinds.iter().any(|k| k == kind),
        }
        if let Some(parts) = &case.parts {
            ok &= &got == parts;
        }
        if !ok {
            failures.push(format!(
                "split.txt:{}: {:?}\n    expected problem {:?} parts {:?}\n    got understood={} problems={:?} parts {:?}",
                case.line, case.input, case.problem, case.parts, a.understood, a.problems, got
            ));
        }
    }
    assert!(failures.is_empty(), "{} failing cases:\n{}", failures.len(), failures.join("\n"));
}
