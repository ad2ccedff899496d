//! `wicket docs [PAGE] [SECTION]`: the user guide, built into the binary.
//!
//! Hints name a page of the guide; an installed `wicket` has no `docs/` folder beside it, so
//! the pages travel inside the binary and the hints say `wicket docs PAGE`.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

/// `wicket docs`.
#[derive(Args)]
pub struct DocsArgs {
    /// The page (`quickstart`, `sandbox`, `network` …); none lists them.
    page: Option<String>,
    /// Only the section whose heading contains this text (any case), with its subsections.
    section: Option<String>,
}

/// A page of the guide: its name, what it is about, its text.
struct Page {
    name: &'static str,
    about: &'static str,
    text: &'static str,
}

const PAGES: &[Page] = &[
    Page {
        name: "quickstart",
        about: "gate and confine an agent in three commands; what is protected",
        text: include_str!("../../../docs/quickstart.md"),
    },
    Page {
        name: "decisions",
        about: "how a call is decided: rules, modes, sensitive and protected paths, commands",
        text: include_str!("../../../docs/decisions.md"),
    },
    Page {
        name: "configuration",
        about: "settings files, team policy, the strict profile, consent, trust",
        text: include_str!("../../../docs/configuration.md"),
    },
    Page {
        name: "sandbox",
        about: "wicket run and the OS sandbox: what a command can read, write and reach",
        text: include_str!("../../../docs/sandbox.md"),
    },
    Page {
        name: "network",
        about: "network.allow and the allowlist proxy",
        text: include_str!("../../../docs/network.md"),
    },
    Page {
        name: "integrations",
        about: "Claude Code, Codex, Gemini CLI hooks and the MCP gateway",
        text: include_str!("../../../docs/integrations.md"),
    },
    Page {
        name: "protocol",
        about: "wicket serve: JSON-RPC 2.0 on stdio",
        text: include_str!("../../../docs/protocol.md"),
    },
    Page { name: "audit", about: "the audit log: format, verify, show", text: include_str!("../../../docs/audit.md") },
    Page {
        name: "telemetry",
        about: "the audit log sent to an OpenTelemetry Collector, and verified there",
        text: include_str!("../../../docs/telemetry.md"),
    },
    Page {
        name: "performance",
        about: "what each path costs, and the benches that measure it",
        text: include_str!("../../../docs/performance.md"),
    },
];

/// Run `wicket docs`.
pub fn run(args: &DocsArgs) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let Some(name) = args.page.as_deref() else {
        writeln!(out, "The user guide (`wicket docs PAGE [SECTION]`):")?;
        for p in PAGES {
            writeln!(out, "  {:<14}{}", p.name, p.about)?;
        }
        return Ok(ExitCode::SUCCESS);
    };
    let name = name.trim_end_matches(".md");
    let Some(page) = PAGES.iter().find(|p| p.name == name) else {
        let names: Vec<&str> = PAGES.iter().map(|p| p.name).collect();
        bail!("no page {name:?} in the guide; the pages are {}", names.join(", "));
    };
    match args.section.as_deref() {
        None => out.write_all(page.text.as_bytes())?,
        Some(want) => match section(page.text, want) {
            Some(s) => out.write_all(s.as_bytes())?,
            None => {
                let heads: Vec<&str> = headings(page.text).map(|(_, h)| h).collect();
                bail!("no section of {name} has {want:?} in its heading; its sections are: {}", heads.join("; "))
            }
        },
    }
    Ok(ExitCode::SUCCESS)
}

/// The headings of a page, outside code blocks: (level, text).
fn headings(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut fenced = false;
    text.lines().filter_map(move |l| {
        if l.starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            return None;
        }
        let level = l.bytes().take_while(|b| *b == b'#').count();
        (level > 0 && l.as_bytes().get(level) == Some(&b' ')).then(|| (level, l[level..].trim()))
    })
}

/// The section whose heading contains `want` (any case), up to the next heading of its level
/// or above.
fn section<'a>(text: &'a str, want: &str) -> Option<&'a str> {
    let want = want.to_lowercase();
    let mut start: Option<(usize, usize)> = None;
    let mut fenced = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        let level = line.bytes().take_while(|b| *b == b'#').count();
        if !fenced && level > 0 && line.as_bytes().get(level) == Some(&b' ') {
            match start {
                Some((at, l)) if level <= l => return Some(&text[at..offset]),
                None if line[level..].to_lowercase().contains(&want) => start = Some((offset, level)),
                _ => {}
            }
        }
        offset += line.len();
    }
    start.map(|(at, _)| &text[at..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_is_there_and_every_hint_names_a_real_section() {
        for p in PAGES {
            assert!(p.text.starts_with("# "), "{}", p.name);
        }
        let sandbox = PAGES.iter().find(|p| p.name == "sandbox").unwrap().text;
        let s = section(sandbox, "what a command can read").unwrap();
        assert!(s.starts_with("## What a command can read"));
        assert!(!s[3..].contains("\n## "), "ends before the next section");
        assert!(section(sandbox, "no such heading").is_none());
    }

    #[test]
    fn a_section_keeps_its_subsections_and_ignores_hashes_in_code() {
        let text = "# T\n## A\n```sh\n# not a heading\n```\n### A1\nx\n## B\ny\n";
        assert_eq!(section(text, "a").unwrap(), "## A\n```sh\n# not a heading\n```\n### A1\nx\n");
        assert_eq!(section(text, "b").unwrap(), "## B\ny\n");
        assert_eq!(headings(text).map(|(_, h)| h).collect::<Vec<_>>(), ["T", "A", "A1", "B"]);
    }
}
