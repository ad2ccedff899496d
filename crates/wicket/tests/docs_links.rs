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
