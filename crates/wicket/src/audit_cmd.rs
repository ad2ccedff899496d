//! `wicket audit verify` and `wicket audit show`: check the logs and read them.
//!
//! `verify` prints one summary line per project (its chain: lines, files, first and last
//! time, ok or the first break), then the details of what is broken only; it exits 0 only
//! when everything verifies, 1 when something does not (each problem named by file, line and
//! why), 2 when the path cannot be used. `show` never trusts what it prints: targets and
//! reasons are escaped, so a log line cannot drive the terminal.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use wicket_audit::{Located, Risk};
use wicket_policy::engine::escape_for_display;

/// `wicket audit …`.
#[derive(Args)]
pub struct AuditArgs {
    #[command(subcommand)]
    command: AuditCommand,
}

#[derive(Subcommand)]
enum AuditCommand {
    /// Verify logs: each project's chain across its files, its head record, old per-process
    /// files against their checkpoints. One line per project. Exit 0 only when everything
    /// verifies.
    Verify {
        /// A log file (*.jsonl) or a folder of logs (default: $WICKET_HOME/audit); or an
        /// exported stream: an OTLP JSON file, or the folder a collector's file exporter writes.
        path: Option<PathBuf>,
    },
    /// Show recorded decisions, newest first.
    Show(Box<ShowArgs>),
}

#[derive(Args)]
struct ShowArgs {
    /// Print the lines as JSON, one per line, instead of a table.
    #[arg(long)]
    json: bool,
    /// Only this decision: allow, deny, ask, executed or error.
    #[arg(long, value_name = "DECISION")]
    decision: Option<String>,
    /// Only this decision kind (`deny_sensitive`, `allow_sandbox` …).
    #[arg(long, value_name = "KIND")]
    kind: Option<String>,
    /// Only this tool.
    #[arg(long, value_name = "TOOL")]
    tool: Option<String>,
    /// Only this risk or higher: low, medium, high, critical.
    #[arg(long, value_name = "RISK")]
    risk: Option<String>,
    /// Only since this UTC time (`2026-05-01`, `2026-05-01T10:30`) or this long ago (`30m`, `2h`, `7d`).
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
    /// Only before this UTC time or this long ago.
    #[arg(long, value_name = "TIME")]
    until: Option<String>,
    /// Only projects whose log folder name contains this text.
    #[arg(long, value_name = "NAME")]
    project: Option<String>,
    /// Only the project at this root folder (default, inside a project: that project).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Every project, also when run inside one.
    #[arg(long, conflicts_with = "root")]
    all: bool,
    /// Only this session (the agent's session id, or the id `serve`, `mcp` or `check` made).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Instead of lines, one line per session: calls, allowed, denied, asked, commands run.
    #[arg(long)]
    summary: bool,
    /// At most this many lines (0: all).
    #[arg(long, value_name = "N", default_value_t = 50)]
    limit: usize,
    /// A log file or folder to read instead of $WICKET_HOME/audit.
    #[arg(long, value_name = "PATH")]
    path: Option<PathBuf>,
}

/// Run `wicket audit …`.
pub fn run(args: &AuditArgs) -> Result<ExitCode> {
    match &args.command {
        AuditCommand::Verify { path } => verify(path.as_ref()),
        AuditCommand::Show(show_args) => show(show_args),
    }
}

fn verify(path: Option<&PathBuf>) -> Result<ExitCode> {
    let path = match path {
        Some(p) => p.clone(),
        None => {
            let root = wicket::audit::audit_root()?;
            if !root.exists() {
                println!("no audit log yet in {}", root.display());
                return Ok(ExitCode::SUCCESS);
            }
            root
        }
    };
    if wicket_otel::stream::looks_like_stream(&path) {
        return verify_stream(&path);
    }
    let report = wicket_audit::verify_path(&path)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let show = |p: &std::path::Path| escape_for_display(&p.display().to_string());
    for project in &report.projects {
        let name =
            project.dir.file_name().map_or_else(|| show(&project.dir), |n| escape_for_display(&n.to_string_lossy()));
        let span = match (&project.first_time, &project.last_time) {
            (Some(a), Some(b)) => format!(", {a} to {b}"),
            _ => String::new(),
        };
        let torn = match project.torn_repaired {
            0 => String::new(),
            n => format!(", {n} line(s) cut short by a killed writer repaired"),
        };
        match &project.first_problem {
            None => writeln!(out, "{name}: ok: {} line(s) in {} file(s){span}{torn}", project.lines, project.files)?,
            Some(p) => writeln!(
                out,
                "{name}: FAILED at {}: {} line(s) in {} file(s){span}, {} problem(s)",
                escape_for_display(&p.to_string()),
                project.lines,
                project.files,
                project.problems
            )?,
        }
    }
    // Details only for what is broken.
    for p in &report.problems {
        writeln!(out, "  {}", escape_for_display(&p.to_string()))?;
    }
    let without: Vec<_> = report.without_checkpoint().collect();
    if !without.is_empty() {
        writeln!(
            out,
            "{} older per-process file(s) without a checkpoint (lines cut from their end, or the file deleted, would go unnoticed):",
            without.len()
        )?;
        for f in without {
            writeln!(out, "  {}", show(f))?;
        }
    }
    let verdict = if report.is_ok() { "ok" } else { "FAILED" };
    writeln!(
        out,
        "{verdict}: {} line(s) in {} file(s) verified, {} problem(s)",
        report.lines(),
        report.files.len(),
        report.problems.len()
    )?;
    out.flush()?;
    Ok(if report.is_ok() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `verify` of an exported stream: one line per project (lines, seqs, retries, ok or the
/// first problem), then every problem by seq; the same exit codes as for local logs.
fn verify_stream(path: &std::path::Path) -> Result<ExitCode> {
    let report = wicket_otel::stream::verify_stream(path)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for p in &report.projects {
        let span = match (p.first_seq, p.last_seq) {
            (Some(a), Some(b)) => format!(", seq {a} to {b}"),
            _ => String::new(),
        };
        let retries = match p.duplicates {
            0 => String::new(),
            n => format!(", {n} record(s) received twice with the same hash (retries)"),
        };
        let first = report.problems.iter().find(|x| x.project == p.project);
        let name = escape_for_display(&p.project);
        match first {
            None => writeln!(out, "{name}: ok: {} line(s) in the stream{span}{retries}", p.lines)?,
            Some(x) => writeln!(
                out,
                "{name}: FAILED at seq {}: {}: {} line(s) in the stream{span}{retries}, {} problem(s)",
                x.seq,
                escape_for_display(&x.kind.to_string()),
                p.lines,
                p.problems
            )?,
        }
    }
    for x in &report.problems {
        writeln!(out, "  {}", escape_for_display(&x.to_string()))?;
    }
    if report.foreign > 0 {
        writeln!(
            out,
            "{} record(s) not from wicket's audit log (no wicket.project or wicket.seq) skipped",
            report.foreign
        )?;
    }
    let verdict = if report.is_ok() { "ok" } else { "FAILED" };
    let lines: u64 = report.projects.iter().map(|p| p.lines).sum();
    writeln!(
        out,
        "{verdict}: {lines} line(s) of {} project(s) in {} exported file(s) verified, {} problem(s)",
        report.projects.len(),
        report.files.len(),
        report.problems.len()
    )?;
    out.flush()?;
    Ok(if report.is_ok() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// A `--since`/`--until` bound as a line's `time` string (fixed width, so it compares as text).
pub(crate) fn time_bound(text: &str, now_ms: u64) -> Result<String> {
    let relative = text
        .strip_suffix('s')
        .map(|n| (n, 1_000))
        .or_else(|| text.strip_suffix('m').map(|n| (n, 60_000)))
        .or_else(|| text.strip_suffix('h').map(|n| (n, 3_600_000)))
        .or_else(|| text.strip_suffix('d').map(|n| (n, 86_400_000)))
        .and_then(|(n, unit)| n.parse::<u64>().ok().map(|n| n.saturating_mul(unit)));
    let ms = match relative {
        Some(ago) => now_ms.saturating_sub(ago),
        None => wicket_audit::parse_utc(text).with_context(|| {
            format!("{text:?} is not a time: use a UTC time such as 2026-05-01 or 2026-05-01T10:30, or 30m, 2h, 7d")
        })?,
    };
    Ok(wicket_audit::format_utc(ms))
}

/// The project the current folder is in, when it is in one (a folder holding `.wicket/` or
/// `.git` at or above it); a folder outside any project shows every project's log.
fn here() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    match wicket::config::project_root(None, &cwd) {
        Ok((root, wicket::config::RootFrom::Marker(_))) => Some(root),
        _ => None,
    }
}

fn show(args: &ShowArgs) -> Result<ExitCode> {
    let path = match &args.path {
        Some(p) => p.clone(),
        None => wicket::audit::audit_root()?,
    };
    let root = match &args.root {
        Some(root) => Some(root.clone()),
        None if !args.all && args.path.is_none() && args.project.is_none() => here(),
        None => None,
    };
    let path = match &root {
        Some(root) if args.path.is_none() => {
            if args.root.is_none() {
                eprintln!("wicket: the log of the project at {} (--all: every project)", root.display());
            }
            wicket::audit::project_dir(root)?
        }
        _ => path,
    };
    if let Some(d) = &args.decision {
        if !matches!(d.as_str(), "allow" | "deny" | "ask" | "executed" | "error") {
            bail!("--decision {d:?}: expected allow, deny, ask, executed or error");
        }
    }
    let min_risk = match &args.risk {
        Some(r) => {
            Some(Risk::parse(r).with_context(|| format!("--risk {r:?}: expected low, medium, high or critical"))?)
        }
        None => None,
    };
    let now = wicket_audit::now_ms();
    let since = args.since.as_deref().map(|t| time_bound(t, now)).transpose()?;
    let until = args.until.as_deref().map(|t| time_bound(t, now)).transpose()?;
    if !path.exists() {
        if !args.json {
            println!("no audit log yet in {}", path.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let read = wicket_audit::read_path(&path)?;
    let keep = |l: &Located| {
        let e = &l.entry;
        args.decision
            .as_deref()
            .is_none_or(|d| e.kind == d || e.kind.strip_prefix(d).is_some_and(|r| r.starts_with('_')))
            && args.kind.as_deref().is_none_or(|k| e.kind == k)
            && args.tool.as_deref().is_none_or(|t| e.tool == t)
            && min_risk.is_none_or(|r| e.risk >= r)
            && since.as_deref().is_none_or(|s| e.time.as_str() >= s)
            && until.as_deref().is_none_or(|u| e.time.as_str() < u)
            && args.project.as_deref().is_none_or(|p| l.project.contains(p))
            && args.session.as_deref().is_none_or(|id| e.session == id)
    };
    let mut events: Vec<&Located> = read.events.iter().filter(|l| keep(l)).collect();
    if args.summary {
        summarize(&events, args.json)?;
        if read.unreadable > 0 {
            eprintln!(
                "wicket: {} line(s) or file(s) could not be read; run `wicket audit verify` to see which",
                read.unreadable
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    // Newest first; within one millisecond, the later line of a file first.
    events.sort_by(|a, b| b.entry.time.cmp(&a.entry.time).then(b.entry.seq.cmp(&a.entry.seq)));
    if args.limit > 0 {
        events.truncate(args.limit);
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.json {
        for l in &events {
            serde_json::to_writer(&mut out, &l.entry)?;
            out.write_all(b"\n")?;
        }
    } else {
        writeln!(
            out,
            "{:<19}  {:<18}  {:<8}  {:<12}  {:<40}  PROJECT",
            "TIME (UTC)", "KIND", "RISK", "TOOL", "TARGET"
        )?;
        for l in &events {
            let e = &l.entry;
            let time = e.time.get(..19).unwrap_or(&e.time).replace('T', " ");
            writeln!(
                out,
                "{time:<19}  {:<18}  {:<8}  {:<12}  {:<40}  {}",
                clip(&escape_for_display(&e.kind), 18),
                e.risk.as_str(),
                clip(&escape_for_display(&e.tool), 12),
                clip(&escape_for_display(&e.target), 40),
                escape_for_display(&l.project),
            )?;
        }
    }
    out.flush()?;
    if read.unreadable > 0 {
        eprintln!(
            "wicket: {} line(s) or file(s) could not be read; run `wicket audit verify` to see which",
            read.unreadable
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// One session's calls, for `show --summary`.
#[derive(Default, serde::Serialize)]
struct SessionSummary {
    session: String,
    project: String,
    first: String,
    last: String,
    /// Decisions on tool calls.
    calls: u64,
    allowed: u64,
    denied: u64,
    asked: u64,
    /// Allowed `bash` calls: the commands the agent (or wicket) ran.
    commands: u64,
    /// Lines that are not decisions: executions, errors, a writer's findings.
    other: u64,
}

/// One line per (session, project), busiest first; the table or JSON lines.
fn summarize(events: &[&Located], json: bool) -> Result<()> {
    let mut by: std::collections::BTreeMap<(String, String), SessionSummary> = std::collections::BTreeMap::new();
    for l in events {
        let e = &l.entry;
        let s = by.entry((e.session.clone(), l.project.clone())).or_insert_with(|| SessionSummary {
            session: e.session.clone(),
            project: l.project.clone(),
            first: e.time.clone(),
            last: e.time.clone(),
            ..SessionSummary::default()
        });
        if e.time < s.first {
            s.first = e.time.clone();
        }
        if e.time > s.last {
            s.last = e.time.clone();
        }
        let decision = e.kind.split_once('_').map(|(d, _)| d);
        match decision {
            Some("allow") => {
                s.calls += 1;
                s.allowed += 1;
                if e.tool == "bash" {
                    s.commands += 1;
                }
            }
            Some("deny") => {
                s.calls += 1;
                s.denied += 1;
            }
            Some("ask") => {
                s.calls += 1;
                s.asked += 1;
            }
            _ => s.other += 1,
        }
    }
    let mut rows: Vec<SessionSummary> = by.into_values().collect();
    rows.sort_by(|a, b| b.last.cmp(&a.last).then(a.session.cmp(&b.session)));
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if json {
        for r in &rows {
            serde_json::to_writer(&mut out, r)?;
            out.write_all(b"\n")?;
        }
    } else {
        writeln!(
            out,
            "{:<36}  {:<19}  {:<19}  {:>6}  {:>7}  {:>6}  {:>5}  {:>8}  PROJECT",
            "SESSION", "FIRST (UTC)", "LAST (UTC)", "CALLS", "ALLOWED", "DENIED", "ASKED", "COMMANDS"
        )?;
        for r in &rows {
            let t = |t: &str| t.get(..19).unwrap_or(t).replace('T', " ");
            writeln!(
                out,
                "{:<36}  {:<19}  {:<19}  {:>6}  {:>7}  {:>6}  {:>5}  {:>8}  {}",
                clip(&escape_for_display(&r.session), 36),
                t(&r.first),
                t(&r.last),
                r.calls,
                r.allowed,
                r.denied,
                r.asked,
                r.commands,
                escape_for_display(&r.project),
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

/// At most `n` characters, the last one `…` when cut.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut out: String = s.chars().take(n.saturating_sub(1)).collect();
    out.push('…');
    out
}
