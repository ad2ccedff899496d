//! wicket itself. The hard question: which of its own commands would let an agent undo the
//! gate it runs behind? Those that agree to a project's loosening settings (`trust approve`),
//! write allow rules (`policy suggest` unless `--dry-run`), land or drop what a sandbox held
//! back for the person (`staged apply`, `staged discard`), open the network allowlist
//! (`registries --allow`), rewrite an agent's hook settings (`init`), and the commands that act
//! (`run`, `mcp`, `serve`, `fetch`) given a looser mode, rules of their own, no sandbox, or no
//! audit. Each writes wicket's state or bypasses it, whatever file it names, so the engine
//! treats it like a write of wicket's settings: the person's to run, never the agent's. The
//! folder `--root` names is where `run` and `mcp` let the command write: a write of it.

use super::Effects;

/// Sub-commands that act on calls, with the options that loosen what they decide.
const ACTING: &[&str] = &["run", "mcp", "serve", "fetch"];

/// Options of the acting sub-commands that loosen the gate (and their `=VALUE` forms).
const LOOSENING: &[&str] = &["--mode", "--allow", "--no-sandbox", "--no-audit", "--network"];

/// What a `wicket` argv (program left out) changes of wicket's own gate.
pub(crate) fn changes(args: &[&str], e: &mut Effects) {
    // wicket has no options before its sub-command but `--help` and `--version`.
    let mut words = args.iter().copied().skip_while(|w| w.starts_with('-') && *w != "--");
    let Some(sub) = words.next() else { return };
    let rest: Vec<&str> = words.collect();
    let options: Vec<&str> = rest.iter().copied().take_while(|w| *w != "--").collect();
    let has =
        |name: &str| options.iter().any(|w| *w == name || w.strip_prefix(name).is_some_and(|v| v.starts_with('=')));
    let first = options.iter().copied().find(|w| !w.starts_with('-'));
    let change = match (sub, first) {
        ("trust", Some("approve")) => Some("agrees to a project's settings that loosen the gate"),
        ("policy", Some("suggest")) if !has("--dry-run") => Some("writes allow rules into wicket's settings"),
        ("staged", Some("apply" | "discard")) => Some("lands or drops files the sandbox held back for the person"),
        ("registries", _) if has("--allow") => Some("opens the sandbox's network allowlist"),
        ("init", _) => Some("rewrites an agent's hook settings"),
        (s, _) if ACTING.contains(&s) && LOOSENING.iter().any(|o| has(o)) => {
            Some("loosens the mode, rules, sandbox or audit it decides with")
        }
        _ => None,
    };
    if let Some(why) = change {
        e.gate_changes.push(format!("`wicket {sub}` {why}"));
    }
    if ACTING.contains(&sub) {
        let mut it = options.iter();
        while let Some(w) = it.next() {
            if *w == "--root" {
                if let Some(v) = it.next() {
                    e.writes.push(v.to_string());
                }
            } else if let Some(v) = w.strip_prefix("--root=") {
                e.writes.push(v.to_string());
            }
        }
    }
}
