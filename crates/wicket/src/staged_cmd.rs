//! `wicket staged`: list, show, apply or discard what staged runs changed.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use wicket::gate::{Gate, Opening};
use wicket::staged::{self, Stage, Staged, What};
use wicket_policy::{By, Decision, ToolCall, Verdict};

/// The flags of `staged`.
#[derive(Args)]
pub struct StagedArgs {
    #[command(subcommand)]
    pub command: StagedCommand,
}

/// What to do with staged changes.
#[derive(Subcommand)]
pub enum StagedCommand {
    /// List the staged changes kept for later (id, project, command).
    List {
        /// One JSON object per stage.
        #[arg(long)]
        json: bool,
    },
    /// Show what a staged run changed, as a diff.
    Diff {
        /// The stage's id.
        id: String,
        /// One JSON object per changed path (with its text change when it is text).
        #[arg(long)]
        json: bool,
    },
    /// Apply a staged run's changes to the project: all, or those at or below PATHS.
    Apply {
        /// The stage's id.
        id: String,
        /// Paths relative to the project root (all changes when none is given).
        paths: Vec<String>,
        /// Apply only these hunks (numbered from 0, as `diff` shows them) of the one PATH.
        #[arg(long, value_delimiter = ',')]
        hunks: Vec<usize>,
    },
    /// Throw a staged run's changes away; the project stays as it is.
    Discard {
        /// The stage's id.
        id: String,
    },
}

/// Run `wicket staged …`.
pub fn run(args: &StagedArgs) -> Result<ExitCode> {
    let dir = staged::stages_dir()?;
    let mut out = std::io::stdout().lock();
    match &args.command {
        StagedCommand::List { json } => {
            let all = staged::list(&dir)?;
            if all.is_empty() && !*json {
                // On stderr: stdout stays the list itself, which scripts read.
                eprintln!("no staged changes (a staged run's, or what a run held for you, would be listed here)");
            }
            for s in all {
                if *json {
                    writeln!(out, "{}", serde_json::to_string(&s)?)?;
                } else {
                    writeln!(out, "{}  {}  {}", s.id, s.root.display(), shown(&s.command))?;
                }
            }
        }
        StagedCommand::Diff { id, json } => {
            let stage = Stage::open(&dir, id)?;
            let changes = stage.changes()?;
            if changes.is_empty() && !json {
                writeln!(out, "the staged run changed nothing")?;
            }
            if *json {
                for v in changes_json(&stage, true)? {
                    writeln!(out, "{v}")?;
                }
            } else {
                for c in &changes {
                    write!(out, "{}", describe(&stage, c))?;
                }
            }
        }
        StagedCommand::Apply { id, paths, hunks } => {
            let mut stage = Stage::open(&dir, id)?;
            let mut gate = open_gate(&stage)?;
            if !hunks.is_empty() {
                let [path] = paths.as_slice() else { bail!("--hunks needs exactly one PATH (a modified text file)") };
                let path = apply_hunks_checked(&mut gate, &mut stage, path, hunks)?;
                writeln!(out, "applied hunks {hunks:?} of {}", shown(&path))?;
                return Ok(ExitCode::SUCCESS);
            }
            let done = apply_checked(&mut gate, &mut stage, paths)?;
            say_left_out(&done.left_out);
            for c in done.applied {
                writeln!(out, "applied: {} {}", what_word(c.what), shown(&c.path))?;
            }
        }
        StagedCommand::Discard { id } => {
            Stage::open(&dir, id)
                .or_else(|e| match e {
                    // A stage whose records are broken is still removed.
                    staged::StageError::Broken { .. } => {
                        std::fs::remove_dir_all(dir.join(id))
                            .with_context(|| format!("cannot remove {}", dir.join(id).display()))?;
                        bail!("removed the broken staged change {id}")
                    }
                    e => Err(e.into()),
                })?
                .discard()?;
            writeln!(out, "discarded {id}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn under(path: &str, p: &str) -> bool {
    let p = p.trim_end_matches('/').trim_start_matches("./");
    path == p || path.strip_prefix(p).is_some_and(|r| r.starts_with('/'))
}

/// The project's gate, as the person applying sees it: applying writes the project.
fn open_gate(stage: &Stage) -> Result<Gate> {
    let loaded = wicket::config::load(stage.root())?;
    loaded.print_notices();
    let mut gate = Gate::open(stage.root(), &loaded, Opening::default())?;
    gate.on_notice(|n| eprintln!("wicket: {n}"));
    Ok(gate)
}

/// The write each applied path makes, as a tool call.
fn write_call(stage: &Stage, path: &str) -> ToolCall {
    let abs = stage.root().join(path);
    ToolCall::new("write_file", serde_json::json!({ "path": abs.to_string_lossy(), "content": "" }))
}

/// The paths among `chosen` whose write the project's policy denies outright (a protected or
/// sensitive path: the repository's internals, wicket's settings), with why; each is recorded.
/// Applying is the person's answer to the changes they were shown, but never to such a write.
fn denied(gate: &mut Gate, stage: &Stage, chosen: &[&Staged]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for c in chosen {
        // Git takes a folder with a `.git` entry, or holding a `HEAD`, for a repository and runs
        // its configuration: an unstaged run's new repositories are moved aside, a staged one's
        // are never applied.
        let name = c.path.rsplit('/').next().unwrap_or("");
        let repo = wicket_planner::nested_git::is_candidate_name(std::ffi::OsStr::new(name)) || name == "HEAD";
        if repo && c.what != What::Deleted {
            out.push((
                c.path.clone(),
                "a repository's entry: git on the host would take its folder for a repository and run its \
                 configuration, so wicket never applies one"
                    .to_string(),
            ));
            continue;
        }
        let call = write_call(stage, &c.path);
        let v = gate.decide(&call).into_verdict();
        if v.decision == Decision::Deny {
            let v = gate.record(&call, v);
            out.push((c.path.clone(), v.reason));
        }
    }
    out
}

/// What applying did: the changes applied, and those left out because the policy denies
/// writing them (path, why).
pub struct Applied {
    /// The applied changes.
    pub applied: Vec<Staged>,
    /// The changes left out, with the policy's reason.
    pub left_out: Vec<(String, String)>,
}

/// Apply `paths` (all when empty) after the policy's word on each: paths named outright that
/// it denies stop everything; of "all", those are left out.
pub fn apply_checked(gate: &mut Gate, stage: &mut Stage, paths: &[String]) -> Result<Applied> {
    let changes = stage.changes()?;
    let chosen: Vec<&Staged> = if paths.is_empty() {
        changes.iter().collect()
    } else {
        changes.iter().filter(|c| paths.iter().any(|p| under(&c.path, p))).collect()
    };
    let refused = denied(gate, stage, &chosen);
    let list = || refused.iter().map(|(p, why)| format!("{} ({why})", shown(p))).collect::<Vec<_>>().join("; ");
    if !paths.is_empty() && !refused.is_empty() {
        bail!("nothing was applied: the policy denies writing {}", list());
    }
    if chosen.iter().all(|c| refused.iter().any(|(p, _)| p == &c.path)) {
        return Ok(Applied { applied: Vec::new(), left_out: refused });
    }
    let id = stage.id().to_string();
    let leave_out: Vec<String> = refused.iter().map(|(p, _)| p.clone()).collect();
    let applied = stage.apply_leaving_out(paths, &leave_out)?;
    for c in &applied {
        record(gate, stage, &c.path, &format!("the staged run {id}"));
    }
    Ok(Applied { applied, left_out: refused })
}

/// Say what was left out of an apply, on stderr.
fn say_left_out(left_out: &[(String, String)]) {
    if !left_out.is_empty() {
        let list: Vec<String> = left_out.iter().map(|(p, why)| format!("{} ({why})", shown(p))).collect();
        eprintln!("wicket: left out, as the policy denies writing them: {}", list.join("; "));
    }
}

/// The audit line for an applied path.
fn record(gate: &mut Gate, stage: &Stage, path: &str, from: &str) {
    let call = write_call(stage, path);
    gate.record(&call, Verdict::allow(By::User, format!("the person applied {from}")));
}

fn what_word(w: What) -> &'static str {
    match w {
        What::Added => "added",
        What::Modified => "modified",
        What::Mode => "mode",
        What::Deleted => "deleted",
    }
}

/// Text from the stage shown on a terminal: hidden and control characters made visible.
fn shown(s: &str) -> String {
    wicket_policy::text::escape_hidden(s)
}

/// One change as a person reads it: a header, and a unified diff for text.
fn describe(stage: &Stage, c: &Staged) -> String {
    let mode = |m: Option<u32>| m.map(|m| format!("{m:o}")).unwrap_or_default();
    let mut s = match c.what {
        What::Mode => format!("mode {} {} -> {}\n", shown(&c.path), mode(c.old_mode), mode(c.new_mode)),
        What::Added => format!("added {} (mode {})\n", shown(&c.path), mode(c.new_mode)),
        w => format!("{} {}\n", what_word(w), shown(&c.path)),
    };
    if c.what == What::Modified || (c.what == What::Added && c.kind == staged::Kind::File) {
        match stage.text_change(c) {
            Some(t) => {
                for (n, h) in t.hunk_texts().iter().enumerate() {
                    s.push_str(&format!("hunk {n}:\n"));
                    for line in h.lines() {
                        s.push_str(&shown(line));
                        s.push('\n');
                    }
                }
            }
            None => s.push_str("  (not text, or too large to show)\n"),
        }
    }
    s
}

/// Make the stage for a run: the project's records and an empty layer above it.
pub fn stage_for(exec: &wicket_planner::exec::ExecPolicy, command: &str) -> Result<Stage> {
    let dir = staged::stages_dir()?;
    Stage::create(&dir, &exec.root, command, &mount_points(exec)).context("cannot stage the project")
}

/// Where the sandbox mounts something below the root (masks, read-only holes, placeholders).
fn mount_points(exec: &wicket_planner::exec::ExecPolicy) -> Vec<&std::path::Path> {
    exec.unreadable
        .iter()
        .chain(exec.read_only.iter().map(|(p, _)| p))
        .chain(&exec.placeholders)
        .chain(&exec.must_not_appear)
        .map(std::path::PathBuf::as_path)
        .collect()
}

/// After a staged run: nothing changed (the stage goes), or the changes are shown and, at a
/// terminal, applied, discarded or kept as the person says; unattended they are kept.
pub fn after_run(stage: Stage, unattended: bool) -> Result<()> {
    stage.remove_mount_points();
    let changes = stage.changes()?;
    if changes.is_empty() {
        eprintln!("wicket: the staged run changed nothing in the project");
        return Ok(stage.discard()?);
    }
    let id = stage.id().to_string();
    let mut summary = String::new();
    for c in &changes {
        summary.push_str(&format!("  {} {}\n", what_word(c.what), shown(&c.path)));
    }
    let tty = if unattended { None } else { open_tty() };
    let Some(mut tty) = tty else {
        eprint!("wicket: the staged run changed {} paths, kept as {id}:\n{summary}", changes.len());
        eprintln!("wicket: see them with `wicket staged diff {id}`; `wicket staged apply {id}` or `wicket staged discard {id}`");
        return Ok(());
    };
    let mut diff = String::new();
    for c in &changes {
        diff.push_str(&describe(&stage, c));
    }
    write!(
        tty,
        "\nThe staged run changed {} paths:\n{diff}\nApply all [a], discard [d], or keep for later [k]? ",
        changes.len()
    )?;
    tty.flush()?;
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(&mut tty), &mut line)?;
    match line.trim() {
        "a" | "apply" => {
            let mut stage = stage;
            let mut gate = open_gate(&stage)?;
            let done = apply_checked(&mut gate, &mut stage, &[])?;
            say_left_out(&done.left_out);
            eprintln!("wicket: applied {} changes to the project", done.applied.len());
        }
        "d" | "discard" => {
            stage.discard()?;
            eprintln!("wicket: discarded the staged changes");
        }
        _ => eprintln!(
            "wicket: kept as {id}: `wicket staged diff {id}`, `wicket staged apply {id}`, `wicket staged discard {id}`"
        ),
    }
    Ok(())
}

/// The controlling terminal, for the question after a staged run.
fn open_tty() -> Option<std::fs::File> {
    let f = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty").ok()?;
    rustix::termios::isatty(&f).then_some(f)
}

/// The changes of a stage as JSON objects (`path`, `what`, `kind`, `old_mode`, `new_mode`, and
/// with `texts` for a text file `old_text`, `new_text` and `hunks`).
pub fn changes_json(stage: &Stage, texts: bool) -> Result<Vec<serde_json::Value>> {
    let mut out = Vec::new();
    for c in stage.changes()? {
        let mut v = serde_json::to_value(&c)?;
        if let (true, serde_json::Value::Object(o), Some(t)) = (texts, &mut v, stage.text_change(&c)) {
            o.insert("old_text".into(), serde_json::json!(t.old_text));
            o.insert("new_text".into(), serde_json::json!(t.new_text));
            o.insert("hunks".into(), serde_json::json!(t.hunk_texts()));
        }
        out.push(v);
    }
    Ok(out)
}

/// Apply only `hunks` of the one modified text file `path`, after the policy's word on it; the
/// path applied.
pub fn apply_hunks_checked(gate: &mut Gate, stage: &mut Stage, path: &str, hunks: &[usize]) -> Result<String> {
    let path = path.trim_start_matches("./").to_string();
    let changes = stage.changes()?;
    let chosen: Vec<&Staged> = changes.iter().filter(|c| c.path == path).collect();
    if let Some((p, why)) = denied(gate, stage, &chosen).first() {
        bail!("nothing was applied: the policy denies writing {} ({why})", shown(p));
    }
    stage.apply_hunks(&path, hunks)?;
    let id = stage.id().to_string();
    record(gate, stage, &path, &format!("hunks {hunks:?} of the staged run {id}"));
    Ok(path)
}

/// A stage made before the decision: removed when dropped, unless [`Unused::take`]n for the run.
pub struct Unused(Option<Stage>);

impl Unused {
    /// Guard `stage`.
    pub fn new(stage: Stage) -> Unused {
        Unused(Some(stage))
    }

    /// The stage, for the run: no longer removed.
    pub fn take(mut self) -> Option<Stage> {
        self.0.take()
    }
}

impl Drop for Unused {
    fn drop(&mut self) {
        if let Some(s) = self.0.take() {
            let _ = s.discard();
        }
    }
}
