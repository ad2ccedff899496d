//! Every link in the user guide (`README.md`, `docs/*.md`) to a file of the repository leads to a
//! file that exists, and every `#anchor` to a heading (GitHub's slug) or an `<a id>` there.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// GitHub's anchor for a heading: lowercase, punctuation but `-` and `_` dropped, spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The text outside fenced code blocks.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn anchors(text: &str) -> HashSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = HashSet::new();
    for line in prose(text).lines() {
        if let Some(h) = line.strip_prefix('#') {
            let s = slug(&h.trim_start_matches('#').replace('`', ""));
            let n = seen.entry(s.clone()).or_default();
            out.insert(if *n == 0 { s.clone() } else { format!("{s}-{n}") });
            *n += 1;
        }
        let mut rest = line;
        while let Some(at) = rest.find("<a id=\"") {
            rest = &rest[at + 7..];
            if let Some(end) = rest.find('"') {
                out.insert(rest[..end].to_string());
            }
        }
    }
    out
}

#[test]
fn every_link_in_the_guide_leads_somewhere() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.push(repo.join("README.md"));
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = prose(&std::fs::read_to_string(file).unwrap());
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                continue;
            }
            checked += 1;
            let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
            let dest = if path.is_empty() { file.clone() } else { file.parent().unwrap().join(path) };
            if !dest.exists() {
                broken.push(format!("{}: {target}: no such file", file.display()));
                continue;
            }
            if !anchor.is_empty() && dest.extension().is_some_and(|x| x == "md") {
                let there = anchors(&std::fs::read_to_string(&dest).unwrap());
                if !there.contains(anchor) {
                    broken.push(format!("{}: {target}: no such heading", file.display()));
                }
            }
        }
    }
    assert!(checked > 30, "only {checked} links found: is the scan broken?");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Every `wicket docs PAGE ["SECTION"]` a message or a page cites is a page (and a section)
/// the binary has: an installed wicket has no docs folder, so hints send people there.
#[test]
fn every_wicket_docs_citation_opens_a_page() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files: Vec<PathBuf> = vec![top.join("README.md")];
    let mut dirs = vec![top.join("crates"), top.join("docs")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() && !p.ends_with("target") {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs" || x == "md") {
                files.push(p);
            }
        }
    }
    let mut cited = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap().replace("\\\"", "\"");
        for (at, _) in text.match_indices("`wicket docs ") {
            let rest = &text[at + "`wicket docs ".len()..];
            let Some(end) = rest.find('`') else { continue };
            let cite = &rest[..end];
            if cite.contains("PAGE") || cite.contains(['\n', '{']) {
                continue; // the usage line itself, or this test's own source
            }
            let (page, section) = match cite.split_once(' ') {
                Some((p, s)) => (p, Some(s.trim().trim_matches('"'))),
                None => (cite, None),
            };
            let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_wicket"));
            c.arg("docs").arg(page).args(section);
            let out = c.output().unwrap();
            assert!(
                out.status.success() && !out.stdout.is_empty(),
                "{}: `wicket docs {cite}` opens nothing: {}",
                f.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            cited += 1;
        }
    }
    assert!(cited >= 3, "the hints in run_cmd.rs cite the guide: found {cited}");
}
