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
            for s in staged::list(&dir)? {
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
            for c in &changes {
                if *json {
                    let mut v = serde_json::to_value(c)?;
                    if let (serde_json::Value::Object(o), Some(t)) = (&mut v, stage.text_change(c)) {
                        o.insert("old_text".into(), serde_json::json!(t.old_text));
                        o.insert("new_text".into(), serde_json::json!(t.new_text));
                        o.insert("hunks".into(), serde_json::json!(t.hunk_texts()));
                    }
                    writeln!(out, "{v}")?;
                } else {
                    write!(out, "{}", describe(&stage, c))?;
                }
            }
        }
        StagedCommand::Apply { id, paths, hunks } => {
            let mut stage = Stage::open(&dir, id)?;
            let changes = stage.changes()?;
            let chosen: Vec<&Staged> = if paths.is_empty() {
                changes.iter().collect()
            } else {
                changes.iter().filter(|c| paths.iter().any(|p| under(&c.path, p))).collect()
            };
            let mut gate = open_gate(&stage)?;
            refuse_denied(&mut gate, &stage, &chosen)?;
            if !hunks.is_empty() {
                let [path] = paths.as_slice() else { bail!("--hunks needs exactly one PATH (a modified text file)") };
                stage.apply_hunks(path.trim_start_matches("./"), hunks)?;
                record(&mut gate, &stage, path, &format!("hunks {hunks:?} of the staged run {id}"));
                writeln!(out, "applied hunks {hunks:?} of {path}")?;
                return Ok(ExitCode::SUCCESS);
            }
            let applied = stage.apply(paths)?;
            for c in &applied {
                record(&mut gate, &stage, &c.path, &format!("the staged run {id}"));
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

/// Applying is the person's answer to the changes they were shown, but never to a write the
/// project's policy denies outright (a protected or sensitive path): then nothing is applied.
fn refuse_denied(gate: &mut Gate, stage: &Stage, chosen: &[&Staged]) -> Result<()> {
    let mut denied = Vec::new();
    for c in chosen {
        let call = write_call(stage, &c.path);
        let v = gate.decide(&call).into_verdict();
        if v.decision == Decision::Deny {
            let v = gate.record(&call, v);
            denied.push(format!("{} ({})", c.path, v.reason));
        }
    }
    if !denied.is_empty() {
        bail!("nothing was applied: the policy denies writing {}", denied.join("; "));
    }
    Ok(())
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
