//! What the agent hooks (`wicket hook claude|codex|gemini`) share: reading the payload,
//! failing closed, loading the configuration, deciding and recording a call.
//!
//! The hard question: how does a hook never let a call through by accident? Every agent
//! treats some exit statuses, timeouts or output shapes as "go on", so [`serve`] turns every
//! internal error and every panic into the agent's deny and exit 2, and each agent module
//! only has to say what its deny looks like. An answer an agent cannot express (an ask where
//! the protocol has no ask) is decided here once: it becomes a deny that tells the person how
//! to allow it ([`blocked_ask_reason`]).

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde_json::Value;
use wicket::audit::Recorder;
use wicket::config::{self, Overrides};
use wicket_policy::{Decision, Mode, Policy, Session, ToolCall, Verdict};

/// The variable that makes a hook panic after reading its input, to test that a crash
/// denies. Honoured only by debug builds (the test builds).
pub const PANIC_ENV: &str = "WICKET_HOOK_TEST_PANIC";

/// The largest payload read (a write of a big file is large; anything beyond is refused).
pub const MAX_INPUT: u64 = 64 * 1024 * 1024;

/// What a hook prints on stdout, and how it exits.
pub struct Answer {
    /// The one JSON object on stdout.
    pub json: Value,
    /// The exit status.
    pub code: u8,
}

/// Read the payload on stdin, decide it, print the answer; any failure (also a panic) is
/// answered by `failure` in the shape of the event known so far (`initial` until the payload
/// names one).
pub fn serve<E: Copy>(
    initial: E,
    event_of: impl Fn(&Value) -> Option<E>,
    decide: impl FnOnce(&Value, &str) -> Result<Answer>,
    failure: impl Fn(E, &str) -> Answer,
) -> ExitCode {
    let mut text = String::new();
    let read = std::io::stdin().lock().take(MAX_INPUT + 1).read_to_string(&mut text);
    let mut event = initial;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<Answer> {
        read.context("cannot read the hook payload on stdin as UTF-8 text")?;
        if text.len() as u64 > MAX_INPUT {
            bail!("the hook payload is larger than {MAX_INPUT} bytes");
        }
        let payload: Value = serde_json::from_str(&text).context("the hook payload is not JSON")?;
        if let Some(e) = event_of(&payload) {
            event = e;
        }
        if cfg!(debug_assertions) && std::env::var_os(PANIC_ENV).is_some_and(|v| v == "1") {
            panic!("{PANIC_ENV}=1: a test asked the hook to crash");
        }
        decide(&payload, &text)
    }));
    let answer = match outcome {
        Ok(Ok(a)) => a,
        Ok(Err(e)) => failure(event, &format!("{e:#}")),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            failure(event, &format!("internal error: {what}"))
        }
    };
    let mut out = std::io::stdout().lock();
    let line = format!("{}\n", answer.json);
    if out.write_all(line.as_bytes()).and_then(|()| out.flush()).is_err() {
        // Nobody reads the answer; exit 2 still blocks the call.
        return ExitCode::from(2);
    }
    ExitCode::from(answer.code)
}

/// The reason given to the model when wicket itself failed.
pub fn failure_reason(why: &str) -> String {
    format!(
        "wicket could not check this call, so it is blocked: {why}. \
         This is a problem with wicket's set-up, not with your call: tell the person; do not try to work around it."
    )
}

/// `p` made absolute against `cwd` (`~` paths are left for the policy to expand).
pub fn absolute(cwd: &Path, p: &str) -> String {
    let path = Path::new(p);
    if path.is_absolute() || p.starts_with('~') {
        p.to_string()
    } else {
        cwd.join(path).to_string_lossy().into_owned()
    }
}

/// `p` without `.` and `..` components (lexically), to compare folders.
pub fn normalized(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// What every agent's pre-tool payload carries: the event, the tool and its input, the folder.
pub struct ToolPayload<'a> {
    /// The whole payload object (for the agent's own fields).
    pub fields: &'a serde_json::Map<String, Value>,
    /// `hook_event_name` (empty when missing).
    pub event: &'a str,
    /// `tool_name` (never empty).
    pub tool_name: &'a str,
    /// `tool_input` (`null` when missing).
    pub input: Value,
    /// `cwd`, or the current folder.
    pub cwd: PathBuf,
}

/// Read the fields every hook needs; a payload that is no object or has no tool name is an
/// error (the hook denies it).
pub fn tool_payload(payload: &Value) -> Result<ToolPayload<'_>> {
    let Value::Object(fields) = payload else { bail!("the hook payload is not a JSON object") };
    let tool_name = match fields.get("tool_name") {
        Some(Value::String(s)) if !s.is_empty() => s.as_str(),
        _ => bail!("the hook payload has no tool_name"),
    };
    Ok(ToolPayload {
        fields,
        event: fields.get("hook_event_name").and_then(Value::as_str).unwrap_or(""),
        tool_name,
        input: fields.get("tool_input").cloned().unwrap_or(Value::Null),
        cwd: payload_cwd(fields)?,
    })
}

/// The payload's `cwd`, or the current folder.
pub fn payload_cwd(payload: &serde_json::Map<String, Value>) -> Result<PathBuf> {
    match payload.get("cwd").and_then(Value::as_str).filter(|c| !c.is_empty()) {
        Some(c) => Ok(PathBuf::from(c)),
        None => std::env::current_dir().context("the payload has no cwd and the current folder cannot be read"),
    }
}

/// The settings for a hook session: `--mode`, else the settings' mode made stricter by the
/// agent's (`plan` → plan; `acceptEdits` → accept-edits only over the default mode; `dontAsk`
/// → nobody is asked). An agent's looser modes never loosen wicket.
pub fn overrides(mode: Option<Mode>, loaded: &config::Loaded, agent_mode: Option<&str>, sandboxed: bool) -> Overrides {
    let settings_mode =
        loaded.project.as_ref().and_then(|s| s.mode).or_else(|| loaded.user.as_ref().and_then(|s| s.mode));
    let mode = mode.or(match agent_mode {
        Some("plan") => Some(Mode::Plan),
        Some("acceptEdits") if settings_mode.unwrap_or_default() == Mode::Default => Some(Mode::AcceptEdits),
        _ => None,
    });
    Overrides {
        mode,
        unattended: agent_mode == Some("dontAsk"),
        // The agent runs commands itself, on the host, unless wicket rewrites them into its sandbox.
        no_sandbox: !sandboxed,
        ..Overrides::default()
    }
}

/// The configuration, policy and audit log of one hook call.
pub struct HookGate {
    /// The project root.
    pub root: PathBuf,
    /// The loaded settings and policies.
    pub loaded: config::Loaded,
    /// The policy built from them.
    pub policy: Policy,
    audit: Recorder,
}

impl HookGate {
    /// Load the configuration for `root` and open the audit log for the agent's session.
    pub fn open(
        root: &Path,
        mode: Option<Mode>,
        agent_mode: Option<&str>,
        sandboxed: bool,
        no_audit: bool,
        session_id: &str,
    ) -> Result<HookGate> {
        let loaded = config::load(root)?;
        loaded.print_notices();
        let o = overrides(mode, &loaded, agent_mode, sandboxed);
        let cfg = config::policy_config(root, &loaded, &o);
        let policy = Policy::new(&cfg).with_context(|| format!("cannot build the policy for {}", root.display()))?;
        let audit = if no_audit { Recorder::off() } else { Recorder::for_policy(&policy, Some(session_id)) };
        Ok(HookGate { root: root.to_path_buf(), loaded, policy, audit })
    }

    /// The policy's verdict for one call.
    pub fn decide(&self, call: &ToolCall) -> Verdict {
        self.policy.decide(call, &Session::new())
    }

    /// Record a verdict in the audit log; the verdict that stands (a mandatory audit that
    /// cannot write turns it into a deny).
    pub fn record(&mut self, call: &ToolCall, raw: &str, verdict: Verdict) -> Verdict {
        let recorded = self.audit.decision(Some(call), raw, verdict);
        if let Some(n) = recorded.notice {
            eprintln!("wicket: {n}");
        }
        recorded.verdict
    }
}

/// The strongest of several decided items (deny over ask over allow; the first of equals),
/// for a call with several targets that must all pass.
pub fn strongest<T>(items: impl IntoIterator<Item = T>, decision: impl Fn(&T) -> Decision) -> Option<T> {
    let mut best: Option<T> = None;
    for item in items {
        if best.as_ref().is_none_or(|b| decision(&item) > decision(b)) {
            best = Some(item);
        }
    }
    best
}

/// The wording of a verdict: for the model on deny (what to do next), for the person on ask.
pub fn reason_for(v: &Verdict) -> String {
    let text = sentence(&v.reason);
    let rule = v.rule.as_deref().map(|r| format!(" (rule: {r})")).unwrap_or_default();
    match v.decision {
        Decision::Deny => format!(
            "Blocked by wicket ({}){rule}: {text} Do not retry this call in another form; \
             choose a different approach or ask the person to change wicket's rules.",
            v.by
        ),
        Decision::Ask => format!("wicket asks you ({}){rule}: {text}", v.by),
        Decision::Allow => format!("wicket allowed ({}){rule}: {text}", v.by),
    }
}

fn sentence(s: &str) -> String {
    let text = s.trim_end();
    if text.ends_with(['.', '!', '?']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// The deny given instead of an ask, for agents whose hook cannot ask the person: it says
/// why the person would have been asked, that the call is blocked, and how the person can
/// allow calls like it.
pub fn blocked_ask_reason(v: &Verdict, agent: &str, call: &ToolCall, root: &Path) -> String {
    let text = sentence(&v.reason);
    let rule = v.rule.as_deref().map(|r| format!(" (rule: {r})")).unwrap_or_default();
    let example = example_rule(call, root).map(|r| format!(" such as `{r}`")).unwrap_or_default();
    format!(
        "Blocked by wicket: this call needs the person's approval ({}){rule}: {text} \
         {agent}'s hook cannot ask the person, so wicket blocks it. Do not retry it in another form. \
         Tell the person what you wanted to do and why; to allow calls like it, they can add an allow rule{example} \
         to \"permissions.allow\" in ~/.wicket/settings.json or the project's .wicket/settings.json \
         (`wicket explain` shows how a call is decided).",
        v.by
    )
}

/// For agents that cannot ask: an ask becomes a deny (recorded as such) whose reason is
/// already written for the model; other verdicts pass unchanged. The bool says whether the
/// reason is final.
pub fn ask_to_deny(verdict: Verdict, agent: &str, call: &ToolCall, root: &Path) -> (Verdict, bool) {
    if verdict.decision != Decision::Ask {
        return (verdict, false);
    }
    let reason = blocked_ask_reason(&verdict, agent, call, root);
    (Verdict { decision: Decision::Deny, kind: format!("deny_{}", verdict.by), reason, ..verdict }, true)
}

/// An allow rule that names exactly this call, when one is short enough to show.
fn example_rule(call: &ToolCall, root: &Path) -> Option<String> {
    let target = match call.tool.as_str() {
        "bash" => call.input.get("command")?.as_str()?.to_string(),
        "read_file" | "write_file" | "edit_file" => {
            let p = call.input.get("path")?.as_str()?;
            Path::new(p).strip_prefix(root).map(|r| r.to_string_lossy().into_owned()).unwrap_or_else(|_| p.to_string())
        }
        _ => return None,
    };
    let plain = !target.is_empty()
        && target.len() <= 80
        && !target.contains(['(', ')', '\n', '`'])
        && target.chars().all(|c| !c.is_control());
    plain.then(|| format!("{}({target})", call.tool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wicket_policy::By;

    #[test]
    fn strongest_prefers_deny_then_ask() {
        let v = strongest(
            vec![
                Verdict::allow(By::ReadOnly, "a"),
                Verdict::ask(By::Default, "b"),
                Verdict::deny(By::Sensitive, "c"),
                Verdict::deny(By::Rule, "d"),
            ],
            |v| v.decision,
        );
        assert_eq!(v.map(|v| v.reason), Some("c".to_string()));
        assert!(strongest(Vec::<Verdict>::new(), |v| v.decision).is_none());
    }

    #[test]
    fn blocked_asks_name_a_rule_when_they_can() {
        let call = ToolCall::new("bash", json!({"command": "npm test"}));
        let r = blocked_ask_reason(&Verdict::ask(By::Default, "no rule allows it"), "Codex", &call, Path::new("/p"));
        assert!(r.contains("`bash(npm test)`") && r.contains("Codex's hook cannot ask"), "{r}");
        let call = ToolCall::new("write_file", json!({"path": "/p/src/a.rs"}));
        assert_eq!(example_rule(&call, Path::new("/p")).as_deref(), Some("write_file(src/a.rs)"));
        let call = ToolCall::new("bash", json!({"command": "echo $(date)"}));
        assert!(example_rule(&call, Path::new("/p")).is_none());
    }

    #[test]
    fn normalized_drops_dots() {
        assert_eq!(normalized(Path::new("/p/./a/../b")), PathBuf::from("/p/b"));
    }
}
