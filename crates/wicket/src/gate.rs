//! The `Gate`: one object an agent written in Rust puts in front of its tools.
//!
//! A gate holds the decision engine, the session's answers, an [`Approver`] and an
//! [`AuditSink`]; [`Gate::check`] decides a call, asks when the engine says ask, and records the
//! outcome. The hard question: what may a caller's own approver or sink weaken? Nothing. The
//! engine decides first and an approver is consulted only when it asks; a sink can turn any
//! verdict into a deny (a mandatory audit that failed) but never into an allow.
//!
//! ```no_run
//! use wicket::gate::Gate;
//! use wicket_policy::{Decision, ToolCall};
//!
//! let mut gate = Gate::builder("/path/to/project").deny("bash(git push*)").build()?;
//! let verdict = gate.check(&ToolCall::new("bash", serde_json::json!({"command": "git push"})));
//! assert_eq!(verdict.decision, Decision::Deny);
//! # Ok::<(), wicket::gate::GateError>(())
//! ```

use std::path::{Path, PathBuf};

use wicket_policy::{By, Decision, Mode, Policy, PolicyError, Session, ToolCall, Verdict};

use crate::approver::{Answer, Approver, DenyApprover, Question};
use crate::audit::{Recorded, Recorder};
use crate::config::{self, ConfigError, Overrides, Placement};

/// Where a gate's decisions are recorded.
pub trait AuditSink {
    /// Record the decision on `call` and return the verdict to act on: the one given, or a
    /// deny when the sink could not record and recording is mandatory. A sink must never turn
    /// a deny or an ask into an allow; the gate enforces this.
    fn record(&mut self, call: &ToolCall, verdict: Verdict) -> Recorded;
}

impl AuditSink for Recorder {
    fn record(&mut self, call: &ToolCall, verdict: Verdict) -> Recorded {
        let raw = serde_json::to_string(&call.input).unwrap_or_default();
        self.decision(Some(call), &raw, verdict)
    }
}

/// Any closure from a question to an answer is an approver, so an agent can route questions
/// to its own interface in one line.
impl<F: FnMut(&Question) -> Answer> Approver for F {
    fn ask(&mut self, q: &Question) -> Answer {
        self(q)
    }
}

/// Any closure from a call and a verdict to a [`Recorded`] is an audit sink.
impl<F: FnMut(&ToolCall, Verdict) -> Recorded> AuditSink for F {
    fn record(&mut self, call: &ToolCall, verdict: Verdict) -> Recorded {
        self(call, verdict)
    }
}

/// A sink that records nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoAudit;

impl AuditSink for NoAudit {
    fn record(&mut self, _call: &ToolCall, verdict: Verdict) -> Recorded {
        Recorded { verdict, notice: None }
    }
}

/// Why a gate could not be built.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// A settings or policy file is broken (the message names the file and the position).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The rules do not make a policy (a rule that does not parse, …).
    #[error("cannot build the policy for {root}: {error}")]
    Policy {
        /// The project root.
        root: PathBuf,
        /// What was wrong (in the message, so not a `source`, which `{:#}` would print again).
        error: PolicyError,
    },
}

/// Builds a [`Gate`] for a project root from the settings on disk plus the caller's own rules.
pub struct GateBuilder {
    root: PathBuf,
    overrides: Overrides,
    sandboxed: Option<bool>,
    approver: Option<Box<dyn Approver>>,
    audit: Option<Box<dyn AuditSink>>,
}

impl GateBuilder {
    /// Set the permission mode (else the settings' mode, else `default`).
    pub fn mode(mut self, mode: Mode) -> GateBuilder {
        self.overrides.mode = Some(mode);
        self
    }

    /// Add an allow rule, as if in the user's settings.
    pub fn allow(mut self, rule: impl Into<String>) -> GateBuilder {
        self.overrides.allow.push(rule.into());
        self
    }

    /// Add a deny rule.
    pub fn deny(mut self, rule: impl Into<String>) -> GateBuilder {
        self.overrides.deny.push(rule.into());
        self
    }

    /// Add an ask rule.
    pub fn ask(mut self, rule: impl Into<String>) -> GateBuilder {
        self.overrides.ask.push(rule.into());
        self
    }

    /// Say whether the caller runs commands in the OS sandbox (default: when one works here
    /// and the settings do not put commands on the host). `false` judges every command as
    /// running unconfined.
    pub fn sandboxed(mut self, yes: bool) -> GateBuilder {
        self.sandboxed = Some(yes);
        self
    }

    /// The approver asked when the engine says ask (default: nobody, so asks are denied).
    pub fn approver(mut self, approver: impl Approver + 'static) -> GateBuilder {
        self.approver = Some(Box::new(approver));
        self
    }

    /// Where decisions are recorded (default: the project's audit log under `$WICKET_HOME`).
    pub fn audit(mut self, sink: impl AuditSink + 'static) -> GateBuilder {
        self.audit = Some(Box::new(sink));
        self
    }

    /// Load the settings (never asking: project settings that loosen safety apply only when
    /// the person pinned them with `wicket trust`) and build the gate.
    pub fn build(self) -> Result<Gate, GateError> {
        let loaded = config::load(&self.root)?;
        let mut overrides = self.overrides;
        overrides.no_sandbox = self.sandboxed == Some(false);
        // No approver means nobody can answer: the engine words its asks as denies.
        overrides.unattended = self.approver.is_none();
        let mut cfg = config::policy_config(&self.root, &loaded, &overrides);
        if self.sandboxed == Some(true) {
            cfg.sandbox = true;
        }
        let sandboxed = cfg.sandbox;
        let policy = Policy::new(&cfg).map_err(|error| GateError::Policy { root: self.root.clone(), error })?;
        let audit = match self.audit {
            Some(a) => a,
            None => Box::new(Recorder::for_policy(&policy, None)),
        };
        let mut notices = loaded.notices.clone();
        if let (None, Ok(Placement::Host(why))) = (self.sandboxed, config::placement(&loaded, false)) {
            notices.push(why);
        }
        Ok(Gate {
            policy,
            session: Session::new(),
            approver: self.approver.unwrap_or_else(|| Box::new(DenyApprover)),
            audit,
            sandboxed,
            notices,
        })
    }
}

/// The gate: decide, ask, record.
pub struct Gate {
    policy: Policy,
    session: Session,
    approver: Box<dyn Approver>,
    audit: Box<dyn AuditSink>,
    sandboxed: bool,
    notices: Vec<String>,
}

impl Gate {
    /// Start building a gate for the project at `root`.
    pub fn builder(root: impl AsRef<Path>) -> GateBuilder {
        GateBuilder {
            root: root.as_ref().to_path_buf(),
            overrides: Overrides::default(),
            sandboxed: None,
            approver: None,
            audit: None,
        }
    }

    /// A gate around a policy the caller built (no settings are read).
    pub fn from_policy(policy: Policy, approver: impl Approver + 'static, audit: impl AuditSink + 'static) -> Gate {
        Gate {
            policy,
            session: Session::new(),
            approver: Box::new(approver),
            audit: Box::new(audit),
            sandboxed: false,
            notices: Vec::new(),
        }
    }

    /// Decide a call: the engine's verdict, the approver's answer when the engine asks, and
    /// the audit sink's last word. The result is never `Ask`.
    pub fn check(&mut self, call: &ToolCall) -> Verdict {
        let verdict = self.policy.decide(call, &self.session);
        let verdict = match verdict.decision {
            Decision::Ask => self.ask(call, verdict),
            _ => verdict,
        };
        let decided = verdict.decision;
        let recorded = self.audit.record(call, verdict);
        if let Some(n) = recorded.notice {
            self.notices.push(n);
        }
        let v = recorded.verdict;
        // A sink may refuse a call; it may not let one through.
        if v.decision == Decision::Allow && decided != Decision::Allow {
            return Verdict::deny(By::Policy, "the audit sink tried to allow a call the gate did not allow");
        }
        if v.decision == Decision::Ask {
            return Verdict::deny(
                By::Policy,
                format!("the audit sink answered ask, which a gate cannot act on: {}", v.reason),
            );
        }
        v
    }

    fn ask(&mut self, call: &ToolCall, verdict: Verdict) -> Verdict {
        let always = self.policy.always_allow_rule(call);
        let question = Question::for_call(call, &verdict, always.clone(), self.sandboxed);
        match self.approver.ask(&question) {
            Answer::Deny => Verdict::deny(By::User, format!("the person said no: {}", verdict.reason)),
            Answer::Once => Verdict::allow(By::User, "the person said yes (once)"),
            Answer::Session => {
                self.session.allow_call(call);
                Verdict::allow(By::User, "the person said yes (for this session)")
            }
            Answer::Always(rule) => {
                // Only the rule the person was shown may be stored.
                if always.as_ref() != Some(&rule) {
                    return Verdict::deny(By::User, "the approver answered with a rule the person was not shown");
                }
                let text = rule.to_string();
                if let Err(e) = self.session.add_rule(rule) {
                    return Verdict::deny(By::Policy, format!("cannot store the rule {text}: {e}"));
                }
                Verdict::allow(By::User, format!("the person said yes and allowed {text} for this session"))
            }
        }
    }

    /// The engine's verdict alone: no approver, no audit (for previews and `explain`).
    pub fn peek(&self, call: &ToolCall) -> Verdict {
        self.policy.decide(call, &self.session)
    }

    /// The decision engine.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The session's answers so far.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// True when commands are judged as running in the OS sandbox.
    pub fn sandboxed(&self) -> bool {
        self.sandboxed
    }

    /// Take the notices for the person gathered so far (settings dropped for want of
    /// consent, an audit log that cannot be written, commands running on the host).
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }
}
