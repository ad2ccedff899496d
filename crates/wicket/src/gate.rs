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

use wicket_policy::{By, Decision, Mode, Policy, PolicyError, Rule, Session, ToolCall, Verdict};

use crate::approver::{Answer, Approver, DenyApprover, Question};
use crate::audit::{Execution, Recorded, Recorder, SharedRecorder};
use crate::config::{self, ConfigError, Overrides, Placement, PlacementError};

/// What deciding a call gives a front end: a verdict to record and act on, or a question for
/// a person.
#[derive(Debug)]
pub enum Step {
    /// Decided (allow or deny): record it, then act on it.
    Done(Verdict),
    /// The engine asks: put [`Pending::question`] to a person, then [`settle`] the answer.
    Ask(Pending),
}

impl Step {
    /// The engine's verdict, whether decided or asking (for a front end that passes an ask on
    /// to its caller as it is: `check`, the agent hooks).
    pub fn into_verdict(self) -> Verdict {
        match self {
            Step::Done(v) => v,
            Step::Ask(p) => p.verdict,
        }
    }
}

/// Decide a call without asking anyone: every front end's first step.
pub fn step(policy: &Policy, session: &Session, call: &ToolCall) -> Step {
    let (verdict, always) = policy.decide_with_always(call, session);
    match verdict.decision {
        Decision::Ask => Step::Ask(Pending { call: call.clone(), verdict, always }),
        _ => Step::Done(verdict),
    }
}

/// A call waiting for a person's answer: the engine's verdict (why it asks), and the one rule
/// an "always" answer may store, fixed when the question is made.
#[derive(Debug, Clone)]
pub struct Pending {
    call: ToolCall,
    verdict: Verdict,
    always: Option<Rule>,
}

impl Pending {
    /// The pending call for an ask verdict of `policy` on `call`.
    pub fn new(policy: &Policy, call: ToolCall, verdict: Verdict) -> Pending {
        let always = policy.always_allow_rule(&call);
        Pending { call, verdict, always }
    }

    /// A pending call no rule can be offered for (the proxy's question about a host).
    pub fn without_rule(call: ToolCall, verdict: Verdict) -> Pending {
        Pending { call, verdict, always: None }
    }

    /// The call.
    pub fn call(&self) -> &ToolCall {
        &self.call
    }

    /// The engine's ask verdict: its reason is why the person is asked.
    pub fn verdict(&self) -> &Verdict {
        &self.verdict
    }

    /// The rule "always" would store, when it is offered.
    pub fn always(&self) -> Option<&Rule> {
        self.always.as_ref()
    }

    /// The question to show a person; a file write carries its change (the file read now,
    /// a relative path against the current folder).
    pub fn question(&self, sandboxed: bool) -> Question {
        let mut q = Question::for_call(&self.call, &self.verdict, self.always.clone(), sandboxed);
        q.change = crate::approver::change_of(&self.call, crate::approver::read_for_showing);
        q
    }

    /// Ask `approver` and settle its answer (see [`settle`]): what a front end that can wait
    /// for a person does with a pending call. The answer comes back too, for what the front end
    /// does beyond the verdict (saving an "always" rule, saying no on the terminal).
    pub fn ask(&self, session: &mut Session, approver: &mut dyn Approver, sandboxed: bool) -> (Answer, Verdict) {
        let answer = approver.ask(&self.question(sandboxed));
        let verdict = settle(session, self, answer.clone());
        (answer, verdict)
    }

    /// The verdict when no answer comes: nobody to ask, no answer in time, the asker gone.
    /// Always a deny; `why` says which, before the reason the person would have been asked.
    pub fn unanswered(&self, why: &str) -> Verdict {
        Verdict::deny(By::Unattended, format!("{why}: {}", self.verdict.reason))
    }

    /// A client's one-word answer (`once`, `session`, `always`; anything else denies).
    /// "always" stands for the rule this question offered: a client cannot name another, and
    /// where none was offered it denies.
    pub fn answer_word(&self, word: &str) -> Answer {
        match word {
            "once" => Answer::Once,
            "session" => Answer::Session,
            "always" => self.always.clone().map_or(Answer::Deny, Answer::Always),
            _ => Answer::Deny,
        }
    }
}

/// The one meaning of a person's answer, for every front end: `Once` allows this call;
/// `Session` allows it and the same call again in this session; `Always` allows it and stores,
/// for this session, the rule the question showed (any other rule denies); `Deny` denies.
pub fn settle(session: &mut Session, pending: &Pending, answer: Answer) -> Verdict {
    let why = &pending.verdict.reason;
    match answer {
        Answer::Deny => Verdict::deny(By::User, format!("the person said no: {why}")),
        Answer::Once => Verdict::allow(By::User, "the person said yes (once)"),
        Answer::Session => {
            session.allow_call(&pending.call);
            Verdict::allow(By::User, "the person said yes (for this session)")
        }
        Answer::Always(rule) => {
            if pending.always.as_ref() != Some(&rule) {
                return Verdict::deny(By::User, format!("the answer named a rule the person was not shown: {why}"));
            }
            let text = rule.to_string();
            if let Err(e) = session.add_rule(rule) {
                return Verdict::deny(By::Policy, format!("cannot store the rule {text}: {e}"));
            }
            session.allow_call(&pending.call);
            Verdict::allow(By::User, format!("the person said yes and allowed {text} for this session"))
        }
    }
}

/// Where a gate's decisions are recorded.
pub trait AuditSink {
    /// Record the decision on `call` and return the verdict to act on: the one given, or a
    /// deny when the sink could not record and recording is mandatory. A sink must never turn
    /// a deny or an ask into an allow; the gate enforces this.
    fn record(&mut self, call: &ToolCall, verdict: Verdict) -> Recorded;

    /// Record the decision on an input that is not a tool call (`raw` is what was read).
    fn record_input(&mut self, _raw: &str, verdict: Verdict) -> Recorded {
        Recorded { verdict, notice: None }
    }

    /// Record a command that ran; a message for the person when the line could not be written.
    fn execution(&mut self, _run: &Execution<'_>) -> Option<String> {
        None
    }

    /// Give up whatever the sink holds between records (a lock kept through a burst of
    /// lines): called before the front end waits for input.
    fn idle(&mut self) {}
}

impl AuditSink for Recorder {
    fn record(&mut self, call: &ToolCall, verdict: Verdict) -> Recorded {
        self.decision(Some(call), "", verdict)
    }

    fn record_input(&mut self, raw: &str, verdict: Verdict) -> Recorded {
        self.decision(None, raw, verdict)
    }

    fn execution(&mut self, run: &Execution<'_>) -> Option<String> {
        self.execution_noted(run.tool, run.target, run.duration_ms, run.exit_code, run.risk, run.note)
    }

    fn idle(&mut self) {
        Recorder::idle(self);
    }
}

/// The log shared with the proxy and the commands a front end runs; a lock poisoned by a
/// panic elsewhere makes every decision a deny.
impl AuditSink for SharedRecorder {
    fn record(&mut self, call: &ToolCall, verdict: Verdict) -> Recorded {
        match self.lock() {
            Ok(mut log) => log.record(call, verdict),
            Err(_) => poisoned(),
        }
    }

    fn record_input(&mut self, raw: &str, verdict: Verdict) -> Recorded {
        match self.lock() {
            Ok(mut log) => log.record_input(raw, verdict),
            Err(_) => poisoned(),
        }
    }

    fn execution(&mut self, run: &Execution<'_>) -> Option<String> {
        match self.lock() {
            Ok(mut log) => AuditSink::execution(&mut *log, run),
            Err(_) => Some("the audit log is unusable after a failure elsewhere in wicket".into()),
        }
    }

    fn idle(&mut self) {
        if let Ok(mut log) = self.lock() {
            log.idle();
        }
    }
}

fn poisoned() -> Recorded {
    Recorded {
        verdict: Verdict::deny(By::Policy, "the audit log is unusable after a failure elsewhere in wicket"),
        notice: None,
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
    /// Commands must run in the OS sandbox and there is none, or the settings contradict
    /// themselves about where commands run.
    #[error(transparent)]
    Placement(#[from] PlacementError),
    /// The rules do not make a policy (a rule that does not parse, …).
    #[error("cannot build the policy for {root}: {error}")]
    Policy {
        /// The project root.
        root: PathBuf,
        /// What was wrong (in the message, so not a `source`, which `{:#}` would print again).
        error: PolicyError,
    },
}

/// The policy every front end decides with: the settings `loaded` for `root` (see
/// [`config::load`]), with the caller's `overrides` (flags, the agent's mode).
pub fn policy_for(root: &Path, loaded: &config::Loaded, overrides: &Overrides) -> Result<Policy, GateError> {
    let cfg = config::policy_config(root, loaded, overrides);
    Policy::new(&cfg).map_err(|error| GateError::Policy { root: root.to_path_buf(), error })
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
        let approver = self.approver.unwrap_or_else(|| Box::new(DenyApprover));
        let mut gate = Gate::assemble(policy, approver, audit, None, sandboxed, None);
        gate.notices = notices;
        Ok(gate)
    }
}

/// Where a gate's notices for the person go as they come ([`Gate::on_notice`]).
type NoticeFn = Box<dyn FnMut(&str)>;

/// How a front end opens its gate ([`Gate::open`]).
#[derive(Debug, Default, Clone)]
pub struct Opening {
    /// The caller's overrides of the settings (flags, the agent's mode).
    pub overrides: Overrides,
    /// `--no-audit`: nothing is recorded.
    pub no_audit: bool,
    /// The agent's own session id for the log's lines (else a new one).
    pub session_id: Option<String>,
    /// Where the front end runs commands, when it runs any ([`place`]); `None` judges
    /// commands as confined unless `overrides.no_sandbox` says otherwise.
    pub placement: Option<Placement>,
    /// Keep the log's lock through a burst of decisions (a stream of calls); the front end
    /// calls [`Gate::idle`] before it waits for input.
    pub bursts: bool,
}

/// Where a front end runs commands, from the settings and `--no-sandbox` (see
/// [`config::placement`]): decided once, before the gate, so a sandbox can be built while
/// the engine decides.
pub fn place(loaded: &config::Loaded, no_sandbox: bool) -> Result<Placement, GateError> {
    Ok(config::placement(loaded, no_sandbox)?)
}

/// What [`Gate::resolve`] did with a call: the verdict to act on and, when a person was asked,
/// the question's pending call and the answer given.
#[derive(Debug)]
pub struct Resolved {
    /// The recorded verdict: allow or deny, never ask.
    pub verdict: Verdict,
    /// The person's answer, when one was given.
    pub asked: Option<(Pending, Answer)>,
}

/// The gate: every front end's decision flow. It holds the engine, the session's answers and
/// the audit sink; [`Gate::decide`] gives a verdict or a question, [`Gate::answer`] turns a
/// person's answer into a verdict, [`Gate::record`] writes it, [`Gate::resolve`] does all three
/// with an [`Approver`], and [`Gate::check`] with the gate's own.
pub struct Gate {
    policy: Policy,
    session: Session,
    approver: Box<dyn Approver>,
    audit: Box<dyn AuditSink>,
    log: Option<SharedRecorder>,
    sandboxed: bool,
    placement: Option<Placement>,
    notices: Vec<String>,
    on_notice: Option<NoticeFn>,
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
        Gate::assemble(policy, Box::new(approver), Box::new(audit), None, false, None)
    }

    /// A front end's gate: the policy from the settings `loaded` for `root` with the
    /// opening's overrides, and the project's audit log (shared with the proxy and runs, see
    /// [`Gate::log`]). Nobody is asked by [`Gate::check`]; front ends ask with
    /// [`Gate::resolve`] or answer later with [`Gate::answer`].
    pub fn open(root: &Path, loaded: &config::Loaded, opening: Opening) -> Result<Gate, GateError> {
        let policy = policy_for(root, loaded, &opening.overrides)?;
        let mut recorder = Recorder::for_run(&policy, opening.no_audit, opening.session_id.as_deref());
        if opening.bursts {
            recorder.hold_in_bursts(true);
        }
        let log: SharedRecorder = std::sync::Arc::new(std::sync::Mutex::new(recorder));
        let sandboxed = match &opening.placement {
            Some(p) => matches!(p, Placement::Sandbox(_)),
            None => !opening.overrides.no_sandbox,
        };
        // The settings' notices are the front end's to show as it loads them.
        Ok(Gate::assemble(
            policy,
            Box::new(DenyApprover),
            Box::new(log.clone()),
            Some(log),
            sandboxed,
            opening.placement,
        ))
    }

    fn assemble(
        policy: Policy,
        approver: Box<dyn Approver>,
        audit: Box<dyn AuditSink>,
        log: Option<SharedRecorder>,
        sandboxed: bool,
        placement: Option<Placement>,
    ) -> Gate {
        Gate {
            policy,
            session: Session::new(),
            approver,
            audit,
            log,
            sandboxed,
            placement,
            notices: Vec::new(),
            on_notice: None,
        }
    }

    /// Give each notice for the person to `f` as it comes (instead of keeping it for
    /// [`Gate::take_notices`]).
    pub fn on_notice(&mut self, f: impl FnMut(&str) + 'static) {
        self.on_notice = Some(Box::new(f));
    }

    /// The engine's step on a call: a verdict, or a question for a person. Nothing is
    /// recorded yet.
    pub fn decide(&self, call: &ToolCall) -> Step {
        step(&self.policy, &self.session, call)
    }

    /// The verdict for a person's answer to a pending call ([`settle`]: the one meaning of
    /// once, session and always). Not recorded yet.
    pub fn answer(&mut self, pending: &Pending, answer: Answer) -> Verdict {
        settle(&mut self.session, pending, answer)
    }

    /// Ask `approver` about a pending call and settle the answer; when nobody is reachable,
    /// the deny says why. Not recorded yet.
    pub fn ask(&mut self, pending: &Pending, approver: &mut dyn Approver) -> (Option<Answer>, Verdict) {
        if let Err(why) = approver.reachable() {
            return (None, pending.unanswered(&why));
        }
        let (answer, verdict) = pending.ask(&mut self.session, approver, self.sandboxed);
        (Some(answer), verdict)
    }

    /// Decide a call, ask `approver` when the engine asks, and record the outcome: the whole
    /// flow for a front end that can wait for a person.
    pub fn resolve(&mut self, call: &ToolCall, approver: &mut dyn Approver) -> Resolved {
        match self.decide(call) {
            Step::Done(v) => Resolved { verdict: self.record(call, v), asked: None },
            Step::Ask(pending) => {
                let (answer, v) = self.ask(&pending, approver);
                let verdict = self.record(call, v);
                Resolved { verdict, asked: answer.map(|a| (pending, a)) }
            }
        }
    }

    /// Decide a call: the engine's verdict, the gate's approver's answer when the engine asks,
    /// and the audit sink's last word. The result is never `Ask`.
    pub fn check(&mut self, call: &ToolCall) -> Verdict {
        let mut approver = std::mem::replace(&mut self.approver, Box::new(DenyApprover));
        let resolved = self.resolve(call, approver.as_mut());
        self.approver = approver;
        resolved.verdict
    }

    /// Record a verdict on `call`; the verdict to act on. A sink may turn it into a deny (a
    /// mandatory audit that failed), never into an allow, and never leaves an ask.
    pub fn record(&mut self, call: &ToolCall, verdict: Verdict) -> Verdict {
        let decided = verdict.decision;
        let recorded = self.audit.record(call, verdict);
        self.guard(decided, recorded)
    }

    /// Record a verdict on an input that is not a tool call (`raw` is what was read).
    pub fn record_input(&mut self, raw: &str, verdict: Verdict) -> Verdict {
        let decided = verdict.decision;
        let recorded = self.audit.record_input(raw, verdict);
        self.guard(decided, recorded)
    }

    fn guard(&mut self, decided: Decision, recorded: Recorded) -> Verdict {
        if let Some(n) = recorded.notice {
            self.notice(n);
        }
        let v = recorded.verdict;
        // A sink may refuse a call; it may not let one through.
        if v.decision == Decision::Allow && decided != Decision::Allow {
            return Verdict::deny(By::Policy, "the audit sink tried to allow a call the gate did not allow");
        }
        if v.decision == Decision::Ask && decided != Decision::Ask {
            return Verdict::deny(
                By::Policy,
                format!("the audit sink answered ask, which a gate cannot act on: {}", v.reason),
            );
        }
        v
    }

    fn notice(&mut self, n: String) {
        match self.on_notice.as_mut() {
            Some(f) => f(&n),
            None => self.notices.push(n),
        }
    }

    /// Record a command that ran. The command has already run, so nothing can be refused: a
    /// line that could not be written becomes a notice.
    pub fn record_execution(&mut self, run: &Execution<'_>) {
        if let Some(n) = self.audit.execution(run) {
            self.notice(n);
        }
    }

    /// Give up the log's lock kept through a burst (before waiting for input).
    pub fn idle(&mut self) {
        self.audit.idle();
    }

    /// The engine's verdict alone: no approver, no audit, no question made (for previews,
    /// `explain`, and `check`, which passes an ask on as it is).
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

    /// Where commands run, when the front end placed them ([`Opening::placement`]).
    pub fn placement(&self) -> Option<&Placement> {
        self.placement.as_ref()
    }

    /// The project's audit log, for the proxy and the commands the front end runs (a gate
    /// built with [`Gate::open`] only).
    pub fn log(&self) -> Option<SharedRecorder> {
        self.log.clone()
    }

    /// Take the notices for the person gathered so far (settings dropped for want of
    /// consent, an audit log that cannot be written, commands running on the host).
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Policy {
        let cfg = wicket_policy::PolicyConfig {
            root: std::env::temp_dir(),
            home: Some(std::env::temp_dir()),
            ..wicket_policy::PolicyConfig::default()
        };
        Policy::new(&cfg).expect("a policy with no rules")
    }

    /// A call the engine asks about, and its pending question.
    fn asked(p: &Policy, session: &Session, command: &str) -> Pending {
        let call = ToolCall::new("bash", serde_json::json!({"command": command, "outside_sandbox": true}));
        match step(p, session, &call) {
            Step::Ask(pending) => pending,
            Step::Done(v) => panic!("expected a question for {command}: {v:?}"),
        }
    }

    #[test]
    fn the_answer_table() {
        let p = policy();
        // (answer word, allowed, the same call asked again, a similar call asked again)
        let table: &[(&str, bool, bool, bool)] = &[
            ("once", true, true, true),
            ("session", true, false, true),
            ("always", true, false, false),
            ("deny", false, true, true),
            ("", false, true, true),
            ("ALWAYS", false, true, true),
        ];
        for &(word, allowed, again, similar) in table {
            let mut session = Session::new();
            let pending = asked(&p, &session, "cargo build --release");
            assert!(pending.always().is_some(), "a simple command offers always");
            let v = settle(&mut session, &pending, pending.answer_word(word));
            assert_eq!(v.decision == Decision::Allow, allowed, "{word:?}: {v:?}");
            assert_eq!(v.by, By::User, "{word:?}");
            let asks = |c: &str| {
                matches!(
                    step(
                        &p,
                        &session,
                        &ToolCall::new("bash", serde_json::json!({"command": c, "outside_sandbox": true}))
                    ),
                    Step::Ask(_)
                )
            };
            assert_eq!(asks("cargo build --release"), again, "{word:?}: the same call");
            assert_eq!(asks("cargo build --offline"), similar, "{word:?}: a call the rule covers");
        }
    }

    #[test]
    fn always_with_a_rule_not_shown_denies_and_stores_nothing() {
        let p = policy();
        let mut session = Session::new();
        let pending = asked(&p, &session, "cargo build --release");
        let forged = wicket_policy::Rule::parse("bash(*)").expect("a rule");
        let v = settle(&mut session, &pending, Answer::Always(forged));
        assert_eq!(v.decision, Decision::Deny, "{v:?}");
        assert!(v.reason.contains("not shown"), "{v:?}");
        assert!(matches!(step(&p, &session, pending.call()), Step::Ask(_)), "a forged rule was stored");
    }

    #[test]
    fn always_where_none_was_offered_denies() {
        let p = policy();
        let mut session = Session::new();
        let pending = asked(&p, &session, "cargo build && rm -rf target");
        assert!(pending.always().is_none(), "a compound command offers no always rule");
        assert_eq!(pending.answer_word("always"), Answer::Deny);
        let shown = wicket_policy::Rule::parse("bash(cargo build*)").expect("a rule");
        assert_eq!(settle(&mut session, &pending, Answer::Always(shown)).decision, Decision::Deny);
    }

    #[test]
    fn no_answer_denies_and_says_why() {
        let p = policy();
        let pending = asked(&p, &Session::new(), "npm test");
        let v = pending.unanswered("nobody answered in 60s");
        assert_eq!((v.decision, v.by), (Decision::Deny, By::Unattended));
        assert!(
            v.reason.starts_with("nobody answered in 60s: ") && v.reason.ends_with(&pending.verdict().reason),
            "{}",
            v.reason
        );
    }

    #[test]
    fn resolve_asks_the_approver_and_records_what_it_settled() {
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let log = std::rc::Rc::clone(&seen);
        let sink = move |c: &ToolCall, v: Verdict| {
            log.borrow_mut().push((c.tool.clone(), v.decision));
            Recorded { verdict: v, notice: None }
        };
        let mut gate = Gate::from_policy(policy(), DenyApprover, sink);
        let call = ToolCall::new("bash", serde_json::json!({"command": "npm test", "outside_sandbox": true}));
        let mut yes = |_: &Question| Answer::Session;
        let r = gate.resolve(&call, &mut yes);
        assert_eq!(r.verdict.decision, Decision::Allow, "{r:?}");
        assert!(matches!(r.asked, Some((_, Answer::Session))), "{r:?}");
        // The session answer holds: the same call is decided without asking.
        assert!(matches!(gate.decide(&call), Step::Done(ref v) if v.decision == Decision::Allow));
        assert_eq!(*seen.borrow(), vec![("bash".to_string(), Decision::Allow)]);
    }

    #[test]
    fn resolve_with_nobody_to_ask_denies_and_says_why() {
        let mut gate = Gate::from_policy(policy(), DenyApprover, NoAudit);
        let call = ToolCall::new("bash", serde_json::json!({"command": "npm test", "outside_sandbox": true}));
        let r = gate.resolve(&call, &mut crate::approver::Nobody("no terminal to ask on".into()));
        assert_eq!((r.verdict.decision, r.verdict.by), (Decision::Deny, By::Unattended), "{r:?}");
        assert!(r.verdict.reason.starts_with("no terminal to ask on: "), "{}", r.verdict.reason);
        assert!(r.asked.is_none(), "nobody answered");
    }

    #[test]
    fn a_sink_can_refuse_but_never_allow_and_never_leave_an_ask() {
        let allow_all = |_: &ToolCall, v: Verdict| Recorded {
            verdict: Verdict { decision: Decision::Allow, ..v },
            notice: Some("noted".into()),
        };
        let mut gate = Gate::from_policy(policy(), DenyApprover, allow_all);
        let call = ToolCall::new("bash", serde_json::json!({"command": "npm test", "outside_sandbox": true}));
        let v = gate.record(&call, Verdict::deny(By::Rule, "a deny rule"));
        assert_eq!(v.decision, Decision::Deny, "{v:?}");
        let ask_back =
            |_: &ToolCall, v: Verdict| Recorded { verdict: Verdict { decision: Decision::Ask, ..v }, notice: None };
        let mut gate = Gate::from_policy(policy(), DenyApprover, ask_back);
        assert_eq!(gate.record(&call, Verdict::allow(By::Rule, "an allow rule")).decision, Decision::Deny);
        // An ask the engine made stays an ask for the front end to pass on (check, hooks).
        assert_eq!(gate.record(&call, Verdict::ask(By::Default, "asks")).decision, Decision::Ask);
    }
}
