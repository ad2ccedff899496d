//! What the engine answers: a decision, what decided it, and words for the model and the person.

use std::fmt;

/// The three answers a gate can give.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Decision {
    /// Run the call.
    Allow,
    /// Interrupt for a person's answer.
    Ask,
    /// Refuse the call.
    Deny,
}

impl Decision {
    /// The lowercase name used on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The check that decided a call, in the order of the decision steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum By {
    /// Step 0: the input itself (NUL bytes, over-long, unparseable, invisible characters).
    Input,
    /// Step 1: the team policy.
    Policy,
    /// Step 2: a sensitive file.
    Sensitive,
    /// Step 3: a protected path (`.git`, `.wicket`) or a path outside the root.
    Protected,
    /// Step 3: a code-running configuration file.
    Config,
    /// Step 4 or 9: a deny or allow rule.
    Rule,
    /// Step 5: an ask rule.
    AskRule,
    /// Step 6: plan mode.
    Plan,
    /// Step 6 or 11: the mode (`auto`, `ask`, `accept-edits`).
    Mode,
    /// Step 7: a read-only tool.
    ReadOnly,
    /// Step 8: the command runs in the OS sandbox.
    Sandbox,
    /// Step 9: a session answer.
    Session,
    /// Step 10: the exact safe list.
    SafeList,
    /// Step 12: nothing allowed it; the person decides.
    Default,
    /// Step 12: nothing allowed it and nobody can be asked.
    Unattended,
    /// The capability-policy front end.
    Capability,
    /// The person answered the question.
    User,
}

impl By {
    /// The snake_case name used on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            By::Input => "input",
            By::Policy => "policy",
            By::Sensitive => "sensitive",
            By::Protected => "protected",
            By::Config => "config",
            By::Rule => "rule",
            By::AskRule => "ask_rule",
            By::Plan => "plan",
            By::Mode => "mode",
            By::ReadOnly => "read_only",
            By::Sandbox => "sandbox",
            By::Session => "session",
            By::SafeList => "safe_list",
            By::Default => "default",
            By::Unattended => "unattended",
            By::Capability => "capability",
            By::User => "user",
        }
    }
}

impl fmt::Display for By {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The engine's answer for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Allow, ask or deny.
    pub decision: Decision,
    /// The check that decided.
    pub by: By,
    /// The decision kind for logs, derived from the decision and the check
    /// (`allow_sandbox`, `deny_sensitive`, `ask_config`…), never from the text.
    pub kind: String,
    /// Why, written so the model knows what to do next and a person knows what to change.
    pub reason: String,
    /// The rule that matched, in its written form, when one did.
    pub rule: Option<String>,
}

impl Verdict {
    /// A verdict with no rule.
    pub fn new(decision: Decision, by: By, reason: impl Into<String>) -> Self {
        Verdict {
            decision,
            by,
            kind: format!("{}_{}", decision.as_str(), by.as_str()),
            reason: reason.into(),
            rule: None,
        }
    }

    /// The same verdict naming the rule that decided it.
    pub fn with_rule(mut self, rule: impl Into<String>) -> Self {
        self.rule = Some(rule.into());
        self
    }

    /// Shorthand for an allow.
    pub fn allow(by: By, reason: impl Into<String>) -> Self {
        Self::new(Decision::Allow, by, reason)
    }

    /// Shorthand for an ask.
    pub fn ask(by: By, reason: impl Into<String>) -> Self {
        Self::new(Decision::Ask, by, reason)
    }

    /// Shorthand for a deny.
    pub fn deny(by: By, reason: impl Into<String>) -> Self {
        Self::new(Decision::Deny, by, reason)
    }
}
