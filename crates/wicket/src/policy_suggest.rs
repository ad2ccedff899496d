//! `wicket policy suggest`: allow rules from the calls a person was asked about, each shown
//! with every recorded decision it would change before it is written.
//!
//! The hard question: what else does a rule allow? The narrowest rule for an asked call comes
//! from the engine itself ([`Policy::always_allow_rule`], the rule an "always" answer offers);
//! what it would change is found by replaying every call in the project's audit log through
//! the engine twice, with the settings as they are and with the rule added, built the way
//! `wicket check` builds it. Every decision that differs is listed, and a call that was denied
//! (by the engine, or by the person) and would no longer be is flagged, before anything is
//! written. Rules come from calls that asked or that the person allowed (once or for a
//! session); a call the person said no to never gets one. Nothing is written without a `y`
//! typed on the terminal, or `--yes`.
//!
//! The log keeps each call's tool and target (redacted), not its whole input, mode or folder,
//! so a replay is of the call rebuilt from its target, in the mode and placement of the flags
//! (as `check` judges calls), except where the recorded kind says more: `deny_unattended` was
//! decided with nobody to ask, `allow_sandbox` as run in the OS sandbox. A target with a
//! redacted secret in it is not replayed.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;
use serde_json::{json, Value};
use wicket::config::{self, Loaded, Overrides};
use wicket_policy::engine::escape_for_display;
use wicket_policy::{Decision, Mode, Policy, PolicyConfig, Session, Settings, ToolCall, Verdict};

/// Which settings file the chosen rules go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Scope {
    /// Your settings, `$WICKET_HOME/settings.json`: they apply at once.
    User,
    /// The project's `.wicket/settings.json`: its allow rules apply once you agree to them.
    Project,
}

/// The flags of `wicket policy suggest`.
#[derive(Args)]
pub struct SuggestArgs {
    /// The project root (default: the nearest folder at or above the current one that holds `.wicket` or `.git`, else the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Where chosen rules are written: `user` ($WICKET_HOME/settings.json, the default: it
    /// applies at once) or `project` (.wicket/settings.json: its allow rules wait for consent).
    #[arg(long, value_enum, default_value = "user")]
    pub scope: Scope,
    /// The permission mode calls are replayed in, as `check` would be given it.
    #[arg(long, value_parser = crate::check_cmd::parse_mode)]
    pub mode: Option<Mode>,
    /// Replay commands as run in wicket's OS sandbox (as `check --sandboxed`); else as run on the host.
    #[arg(long)]
    pub sandboxed: bool,
    /// Only calls recorded since this UTC time (`2026-05-01`, `2026-05-01T10:30`) or this long ago (`30m`, `2h`, `7d`).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Only this proposed rule (repeatable): the others are shown, never written.
    #[arg(long = "rule", value_name = "RULE")]
    pub rules: Vec<String>,
    /// Write every proposed rule (or every `--rule`) without asking; the changes are still printed.
    #[arg(long)]
    pub yes: bool,
    /// Show the proposals and what they would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print one JSON object instead of text (writes only with `--yes`).
    #[arg(long)]
    pub json: bool,
}

/// One distinct call of the log, in the context it is replayed in.
#[derive(Debug, Clone)]
struct Call {
    tool: String,
    target: String,
    /// The kinds it was recorded with, each once, first first.
    kinds: Vec<String>,
    /// How many lines record it.
    times: u64,
    /// Decided with nobody to ask (`deny_unattended`).
    unattended: bool,
    /// The call rebuilt from the log, when it can be.
    call: Option<ToolCall>,
}

impl Call {
    fn denied(&self) -> bool {
        self.kinds.iter().any(|k| k.starts_with("deny_"))
    }

    fn person_said_no(&self) -> bool {
        self.kinds.iter().any(|k| k == "deny_user")
    }

    /// A call a person was asked about, or said yes to: where rules come from. A call denied
    /// with nobody to ask (`deny_unattended`) is not one: nobody chose to let it through, so
    /// it only shows up among what a rule would change.
    fn asked(&self) -> bool {
        self.kinds.iter().any(|k| k.starts_with("ask_") || k == "allow_user" || k == "allow_session")
    }
}

/// A decision that a proposed rule changes.
#[derive(Debug, Clone, Serialize)]
struct Flip {
    tool: String,
    target: String,
    /// The kinds the log recorded.
    recorded: Vec<String>,
    times: u64,
    /// The decision with the settings as they are.
    before: &'static str,
    /// The decision with the rule added.
    after: &'static str,
    /// Why, with the rule.
    reason_after: String,
    /// Denied before: by the replay with the settings as they are, or in the log.
    was_denied: bool,
    /// The person answered no to this call.
    person_said_no: bool,
    /// One of the calls the rule was made from.
    from_this_rule: bool,
}

/// A proposed rule.
#[derive(Debug, Clone, Serialize)]
struct Proposal {
    rule: String,
    /// The asked calls it comes from (`tool: target`).
    from: Vec<String>,
    flips: Vec<Flip>,
    /// How many flips allow or ask about a call that was denied.
    denied_flips: usize,
    written: bool,
}

/// An asked call no rule is proposed for, and why.
#[derive(Debug, Clone, Serialize)]
struct Uncovered {
    tool: String,
    target: String,
    recorded: Vec<String>,
    why: String,
}

/// The engines a replay needs: attended, and (for calls recorded unattended) unattended.
struct Engines {
    attended: Policy,
    unattended: Policy,
}

impl Engines {
    /// Built as `check` builds its engine ([`config::policy_config`], then [`Policy::new`]),
    /// with `extra` as one more allow rule of the person's.
    fn new(base: &PolicyConfig, extra: Option<&str>) -> Result<Engines> {
        let mut cfg = base.clone();
        cfg.allow.extend(extra.map(str::to_string));
        let attended = Policy::new(&cfg).context("cannot build the decision engine")?;
        cfg.unattended = true;
        let unattended = Policy::new(&cfg).context("cannot build the decision engine")?;
        Ok(Engines { attended, unattended })
    }

    fn for_call(&self, c: &Call) -> &Policy {
        if c.unattended {
            &self.unattended
        } else {
            &self.attended
        }
    }

    fn decide(&self, c: &Call) -> Option<Verdict> {
        c.call.as_ref().map(|call| self.for_call(c).decide(call, &Session::new()))
    }
}

/// The call a log line records, rebuilt from its tool and target; `None` when it cannot be.
fn rebuild(tool: &str, target: &str, sandboxed: bool) -> Option<ToolCall> {
    if tool.is_empty() || target.contains(wicket_audit::REDACTED) {
        return None;
    }
    let input = match tool {
        "bash" => json!({"command": target, "outside_sandbox": !sandboxed}),
        "read_file" => json!({"path": target}),
        "write_file" => json!({"path": target, "content": ""}),
        "edit_file" => json!({"path": target, "old_string": "", "new_string": ""}),
        // The pattern is not in the log; the path decides.
        "glob" | "grep" => json!({"pattern": "*", "path": target}),
        "web_fetch" => json!({"url": target}),
        // Other tools are logged with their whole input.
        _ => match serde_json::from_str::<Value>(target) {
            Ok(v @ Value::Object(_)) => v,
            _ => return None,
        },
    };
    Some(ToolCall::new(tool, input))
}

/// The distinct calls of the project's log, in the order first recorded, and how many
/// decision lines could not be replayed.
fn calls_of(dir: &Path, since: Option<&str>, sandboxed: bool) -> Result<(Vec<Call>, usize, u64)> {
    if !dir.exists() {
        return Ok((Vec::new(), 0, 0));
    }
    let read = wicket_audit::read_path(dir)?;
    let mut events: Vec<&wicket_audit::Entry> = read.events.iter().map(|l| &l.entry).collect();
    // The chain's order (v2 `seq` counts the whole chain); time first for v1 files.
    events.sort_by(|a, b| a.time.cmp(&b.time).then(a.seq.cmp(&b.seq)));
    let mut calls: Vec<Call> = Vec::new();
    let mut index: BTreeMap<(String, String, bool, bool), usize> = BTreeMap::new();
    let mut unreplayable = 0usize;
    for e in events {
        let decision = e.kind.split_once('_').map(|(d, _)| d);
        if !matches!(decision, Some("allow" | "deny" | "ask")) || since.is_some_and(|s| e.time.as_str() < s) {
            continue;
        }
        // An input that was not a tool call: no rule changes that.
        if e.kind == "deny_input" || e.tool.is_empty() {
            continue;
        }
        let unattended = e.kind == "deny_unattended";
        let in_sandbox = sandboxed || e.kind == "allow_sandbox";
        let key = (e.tool.clone(), e.target.clone(), unattended, in_sandbox);
        match index.get(&key) {
            Some(&i) => {
                let c = &mut calls[i];
                c.times += 1;
                if !c.kinds.contains(&e.kind) {
                    c.kinds.push(e.kind.clone());
                }
            }
            None => {
                let call = rebuild(&e.tool, &e.target, in_sandbox);
                if call.is_none() {
                    unreplayable += 1;
                }
                index.insert(key, calls.len());
                calls.push(Call {
                    tool: e.tool.clone(),
                    target: e.target.clone(),
                    kinds: vec![e.kind.clone()],
                    times: 1,
                    unattended,
                    call,
                });
            }
        }
    }
    Ok((calls, unreplayable, read.unreadable))
}

/// Everything `suggest` found: the proposals and the asked calls left without one.
struct Found {
    proposals: Vec<Proposal>,
    uncovered: Vec<Uncovered>,
}

/// Propose rules for the asked calls and replay every call against each.
fn propose(calls: &[Call], base_cfg: &PolicyConfig) -> Result<Found> {
    let base = Engines::new(base_cfg, None)?;
    let before: Vec<Option<Verdict>> = calls.iter().map(|c| base.decide(c)).collect();
    // Rule text → the indexes of the calls it comes from, in first-seen order.
    let mut rules: Vec<(String, Vec<usize>)> = Vec::new();
    let mut uncovered = Vec::new();
    let uncover = |c: &Call, why: String| Uncovered {
        tool: c.tool.clone(),
        target: c.target.clone(),
        recorded: c.kinds.clone(),
        why,
    };
    for (i, c) in calls.iter().enumerate() {
        if !c.asked() || c.person_said_no() {
            continue;
        }
        let (Some(call), Some(v)) = (&c.call, &before[i]) else {
            uncovered.push(uncover(
                c,
                "the log does not keep enough of it to replay (a redacted secret, or an input that is not a tool call)"
                    .into(),
            ));
            continue;
        };
        if v.decision == Decision::Allow {
            // Already allowed by the settings as they are now: nothing to propose.
            continue;
        }
        match base.for_call(c).always_allow_rule(call) {
            Some(rule) => {
                let text = rule.to_string();
                match rules.iter_mut().find(|(r, _)| *r == text) {
                    Some((_, from)) => from.push(i),
                    None => rules.push((text, vec![i])),
                }
            }
            None => uncovered.push(uncover(
                c,
                "no narrow rule fits (a compound command, a sensitive file, a path that cannot be resolved): answer it when asked, or write a rule by hand".into(),
            )),
        }
    }
    let mut proposals = Vec::new();
    for (rule, from) in rules {
        let with = Engines::new(base_cfg, Some(&rule)).with_context(|| format!("the rule {rule}"))?;
        let mut flips = Vec::new();
        for (i, c) in calls.iter().enumerate() {
            let (Some(b), Some(a)) = (&before[i], with.decide(c)) else { continue };
            if b.decision == a.decision {
                continue;
            }
            flips.push(Flip {
                tool: c.tool.clone(),
                target: c.target.clone(),
                recorded: c.kinds.clone(),
                times: c.times,
                before: b.decision.as_str(),
                after: a.decision.as_str(),
                reason_after: a.reason.clone(),
                was_denied: b.decision == Decision::Deny || c.denied(),
                person_said_no: c.person_said_no(),
                from_this_rule: from.contains(&i),
            });
        }
        // A rule that does not allow the calls it came from (an ask rule or the mode decides
        // first) is no answer to them.
        let helps = from.iter().any(|&i| with.decide(&calls[i]).is_some_and(|v| v.decision == Decision::Allow));
        if !helps {
            let why = from
                .first()
                .and_then(|&i| with.decide(&calls[i]))
                .map_or_else(String::new, |v| format!(" ({} by {}: {})", v.decision, v.by, v.reason));
            for &i in &from {
                uncovered.push(uncover(&calls[i], format!("the rule {rule} would not allow it{why}")));
            }
            continue;
        }
        let denied_flips = flips.iter().filter(|f| f.was_denied && f.after != "deny").count();
        let from_text = from.iter().map(|&i| format!("{}: {}", calls[i].tool, calls[i].target)).collect();
        proposals.push(Proposal { rule, from: from_text, flips, denied_flips, written: false });
    }
    Ok(Found { proposals, uncovered })
}

/// The lines that show one proposal: where it comes from and every decision it changes.
fn describe(p: &Proposal, replayed: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for f in &p.from {
        lines.push(format!("from the asked call  {}", escape_for_display(f)));
    }
    if p.denied_flips > 0 {
        lines.push(format!("!! it would let through {} call(s) that were DENIED (marked !! below)", p.denied_flips));
    }
    lines.push(format!("replayed against {replayed} recorded call(s): {} decision(s) would change", p.flips.len()));
    for f in &p.flips {
        let mark = if f.was_denied && f.after != "deny" { "!!" } else { "  " };
        let mut line = format!(
            "{mark} {:<5} -> {:<5}  {}: {}  (recorded {}{})",
            f.before,
            f.after,
            escape_for_display(&f.tool),
            escape_for_display(&f.target),
            f.recorded.join(", "),
            if f.times > 1 { format!(", {} times", f.times) } else { String::new() }
        );
        if f.person_said_no {
            line.push_str("  THE PERSON SAID NO TO IT");
        }
        if f.from_this_rule {
            line.push_str("  (a call it comes from)");
        }
        lines.push(line);
    }
    lines
}

/// The settings file a scope writes.
fn file_of(scope: Scope, root: &Path) -> Result<PathBuf> {
    Ok(match scope {
        Scope::User => config::wicket_home()?.join("settings.json"),
        Scope::Project => root.join(".wicket").join("settings.json"),
    })
}

/// Add `rules` to `permissions.allow` of `file`, keeping everything else in it; the rules
/// already there are not added twice. A file that does not parse is an error naming it and
/// where; the new text is checked as settings before it replaces the old, through a
/// temporary file and a rename. Returns the rules added.
fn add_rules(file: &Path, rules: &[String]) -> Result<Vec<String>> {
    let old = match std::fs::read_to_string(file) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", file.display())),
    };
    let name = file.display().to_string();
    let mut doc = match &old {
        Some(text) => {
            // The settings parser names the file, line and column of what is wrong.
            Settings::parse(text, &name)?;
            serde_json::from_str::<Value>(text).with_context(|| format!("{name}: not JSON"))?
        }
        None => json!({}),
    };
    let Value::Object(top) = &mut doc else { bail!("{name}: the settings are not a JSON object") };
    let permissions = top.entry("permissions").or_insert_with(|| json!({}));
    let Value::Object(permissions) = permissions else { bail!("{name}: `permissions` is not an object") };
    let allow = permissions.entry("allow").or_insert_with(|| json!([]));
    let Value::Array(allow) = allow else { bail!("{name}: `permissions.allow` is not a list") };
    let mut added = Vec::new();
    for r in rules {
        if !allow.iter().any(|v| v.as_str() == Some(r)) {
            allow.push(Value::String(r.clone()));
            added.push(r.clone());
        }
    }
    if added.is_empty() {
        return Ok(added);
    }
    let mut text = serde_json::to_string_pretty(&doc)?;
    text.push('\n');
    Settings::parse(&text, &name).context("the settings with the new rules do not hold")?;
    crate::init_cmd::write_atomic(file, &text)?;
    Ok(added)
}

/// Run `wicket policy suggest`.
pub fn suggest(args: &SuggestArgs) -> Result<ExitCode> {
    let (root, _) = crate::check_cmd::project_root(args.root.as_deref())?;
    // A settings file that does not parse stops here, naming the file and where.
    let loaded: Loaded = config::load(&root)?;
    let file = file_of(args.scope, &root)?;
    let dir = wicket::audit::project_dir(&root)?;
    let since = args.since.as_deref().map(|t| crate::audit_cmd::time_bound(t, wicket_audit::now_ms())).transpose()?;
    let (calls, unreplayable, unreadable) = calls_of(&dir, since.as_deref(), args.sandboxed)?;
    let overrides = Overrides { mode: args.mode, ..Overrides::default() };
    let base_cfg = config::policy_config(&root, &loaded, &overrides);
    let mut found = propose(&calls, &base_cfg)?;
    for r in &args.rules {
        if !found.proposals.iter().any(|p| &p.rule == r) {
            bail!("--rule {r}: not one of the proposed rules; run without --rule to see them");
        }
    }
    let chosen = |p: &Proposal| args.rules.is_empty() || args.rules.contains(&p.rule);
    let replayed = calls.iter().filter(|c| c.call.is_some()).count();

    let mut notes = Vec::new();
    if unreplayable > 0 {
        notes.push(format!("{unreplayable} recorded call(s) cannot be replayed (a redacted secret in the target, or an input the log keeps only in part)"));
    }
    if unreadable > 0 {
        notes.push(format!("{unreadable} log line(s) or file(s) could not be read; `wicket audit verify` says which"));
    }
    if args.scope == Scope::Project {
        notes.push(format!(
            "allow rules in {} apply only once you agree to the project's settings (`wicket trust approve`)",
            file.display()
        ));
    }

    // Which rules to write.
    let interactive = !args.yes && !args.dry_run && !args.json;
    let mut accepted: Vec<String> = Vec::new();
    if interactive {
        if !found.proposals.is_empty() {
            match wicket::approver::TerminalApprover::open() {
                Ok(mut tty) => {
                    let n = found.proposals.len();
                    for (k, p) in found.proposals.iter().enumerate() {
                        if !chosen(p) {
                            continue;
                        }
                        let title = format!("rule {} of {n}: {}", k + 1, p.rule);
                        let question = format!("add {} to {}?", p.rule, file.display());
                        if tty.confirm(&title, &describe(p, replayed), &question) {
                            accepted.push(p.rule.clone());
                        }
                    }
                }
                Err(_) => {
                    // Never stdin: an answer read there could be one a program (the model) wrote.
                    print_text(&root, &dir, &file, &found, replayed, &notes);
                    eprintln!(
                        "wicket: nothing written: no terminal to confirm the rules on (/dev/tty); run it in a \
                         terminal, or pass --yes (with --rule RULE to pick) to write without asking"
                    );
                    return Ok(ExitCode::from(1));
                }
            }
        }
    } else if args.yes && !args.dry_run {
        accepted = found.proposals.iter().filter(|p| chosen(p)).map(|p| p.rule.clone()).collect();
    }

    // Shown before anything is written: the text report, or (interactive) each question.
    if !interactive && !args.json {
        print_text(&root, &dir, &file, &found, replayed, &notes);
    }
    let added = if accepted.is_empty() { Vec::new() } else { add_rules(&file, &accepted)? };
    for p in &mut found.proposals {
        p.written = accepted.contains(&p.rule);
    }
    if args.json {
        let out = json!({
            "root": root,
            "log": dir,
            "settings_file": file,
            "scope": match args.scope { Scope::User => "user", Scope::Project => "project" },
            "replayed": replayed,
            "unreplayable": unreplayable,
            "proposals": found.proposals,
            "uncovered": found.uncovered,
            "written": added,
            "dry_run": args.dry_run,
        });
        println!("{}", serde_json::to_string(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    if interactive {
        if found.proposals.is_empty() {
            print_text(&root, &dir, &file, &found, replayed, &notes);
        } else {
            print!("{}", uncovered_text(&found.uncovered));
            for n in &notes {
                println!("note: {n}");
            }
        }
    }
    if added.is_empty() {
        let why = if args.dry_run {
            "a dry run"
        } else if found.proposals.is_empty() {
            "no rule to propose"
        } else if accepted.is_empty() && !args.yes && !interactive {
            "pass --yes to write"
        } else if accepted.is_empty() {
            "no rule chosen"
        } else {
            "the chosen rules are already there"
        };
        println!("nothing written ({why})");
    } else {
        for r in &added {
            println!("added {r} to permissions.allow in {}", file.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The report for a person (or a log): the proposals with their changes, then the asked calls
/// left without one.
fn print_text(root: &Path, dir: &Path, file: &Path, found: &Found, replayed: usize, notes: &[String]) {
    let mut o = String::new();
    let _ = writeln!(o, "root: {}", root.display());
    let _ = writeln!(o, "audit log: {}", dir.display());
    let _ = writeln!(o, "rules would go to: {}", file.display());
    if found.proposals.is_empty() {
        let _ = writeln!(o, "\nno rule to propose: no asked call in the log that a narrow allow rule would settle");
    }
    let n = found.proposals.len();
    for (k, p) in found.proposals.iter().enumerate() {
        let _ = writeln!(o, "\nrule {} of {n}: {}", k + 1, p.rule);
        for line in describe(p, replayed) {
            let _ = writeln!(o, "  {line}");
        }
    }
    o.push_str(&uncovered_text(&found.uncovered));
    for n in notes {
        let _ = writeln!(o, "note: {n}");
    }
    print!("{o}");
}

/// The asked calls no rule is proposed for, and why; empty when there are none.
fn uncovered_text(uncovered: &[Uncovered]) -> String {
    let mut o = String::new();
    if !uncovered.is_empty() {
        let _ = writeln!(o, "\nasked calls without a proposed rule:");
        for u in uncovered {
            let _ = writeln!(
                o,
                "  {}: {}  (recorded {}): {}",
                escape_for_display(&u.tool),
                escape_for_display(&u.target),
                u.recorded.join(", "),
                escape_for_display(&u.why)
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_rebuilt_from_their_logged_targets() {
        let bash = rebuild("bash", "git commit -m x", false).map(|c| c.input);
        assert_eq!(bash, Some(json!({"command": "git commit -m x", "outside_sandbox": true})));
        let sandboxed = rebuild("bash", "ls", true).map(|c| c.input);
        assert_eq!(sandboxed, Some(json!({"command": "ls", "outside_sandbox": false})));
        assert_eq!(rebuild("write_file", "src/a.rs", false).map(|c| c.input["path"].clone()), Some(json!("src/a.rs")));
        assert_eq!(rebuild("mcp__gh__get_issue", "{\"number\":1}", false).map(|c| c.input), Some(json!({"number": 1})));
        // What the log cannot give back is not replayed.
        assert!(rebuild("bash", "curl -H 'Authorization: Bearer [REDACTED]' x", false).is_none());
        assert!(rebuild("mcp__gh__get_issue", "not json", false).is_none());
        assert!(rebuild("", "{}", false).is_none());
    }

    fn call(target: &str, kind: &str) -> Call {
        Call {
            tool: "bash".into(),
            target: target.into(),
            kinds: vec![kind.into()],
            times: 1,
            unattended: false,
            call: rebuild("bash", target, false),
        }
    }

    /// A call the person said yes to gives a rule; one they said no to never does, and a rule
    /// that would let it through marks it.
    #[test]
    fn a_rule_that_would_allow_a_call_the_person_refused_says_so() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cfg = PolicyConfig { root: dir.path().to_path_buf(), ..PolicyConfig::default() };
        let calls = [
            call("git commit -m a", "allow_user"),
            call("git commit --amend", "deny_user"),
            call("git status --short", "ask_default"),
        ];
        let found = propose(&calls, &cfg).unwrap_or_else(|e| panic!("{e:#}"));
        let rules: Vec<&str> = found.proposals.iter().map(|p| p.rule.as_str()).collect();
        assert!(rules.contains(&"bash(git commit *)"), "{rules:?}");
        assert!(found.proposals.iter().all(|p| p.from.iter().all(|f| !f.contains("--amend"))), "{rules:?}");
        let commit = found.proposals.iter().find(|p| p.rule == "bash(git commit *)").unwrap_or_else(|| panic!());
        let amend =
            commit.flips.iter().find(|f| f.target == "git commit --amend").unwrap_or_else(|| panic!("{commit:?}"));
        assert!(amend.person_said_no && amend.was_denied && !amend.from_this_rule, "{amend:?}");
        assert_eq!((amend.before, amend.after), ("ask", "allow"));
        assert_eq!(commit.denied_flips, 1);
        assert!(describe(commit, 3).iter().any(|l| l.starts_with("!!") && l.contains("THE PERSON SAID NO")));
    }

    #[test]
    fn adding_rules_keeps_the_file_and_names_a_broken_one() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("settings.json");
        std::fs::write(
            &file,
            "{\"mode\": \"default\", \"permissions\": {\"allow\": [\"bash(npm test*)\"], \"deny\": [\"bash(rm *)\"]}}",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let added = add_rules(&file, &["bash(git commit *)".into(), "bash(npm test*)".into()]);
        assert_eq!(added.ok(), Some(vec!["bash(git commit *)".to_string()]));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap_or_default()).unwrap_or_default();
        assert_eq!(v["mode"], "default");
        assert_eq!(v["permissions"]["deny"], json!(["bash(rm *)"]));
        assert_eq!(v["permissions"]["allow"], json!(["bash(npm test*)", "bash(git commit *)"]));

        std::fs::write(&file, "{\"permissions\": {\"allow\": [\n  \"bash(ls)\",,\n]}}")
            .unwrap_or_else(|e| panic!("{e}"));
        let err = add_rules(&file, &["bash(git commit *)".into()]).map(|_| ()).unwrap_err();
        let msg = format!("{err:#}");
        assert!(msg.contains(&format!("{}:2:", file.display())), "{msg}");
        // Nothing was written over the broken file.
        assert!(std::fs::read_to_string(&file).unwrap_or_default().contains(",,"));
    }
}
