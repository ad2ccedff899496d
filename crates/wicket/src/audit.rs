//! The audit log at the edge: where a project's log lives, what a verdict becomes in it, and
//! what a failed write does to the call.
//!
//! The hard question: may a call run when its line could not be written? Only when the audit
//! is not mandatory; then the person gets one notice per process. When it is mandatory (team
//! policy `audit.enabled: true`, see [`options`]), the verdict becomes a deny that says why, and the call does
//! not run. The kind in the log is the typed verdict's `kind`, never read from its text.

use std::path::{Path, PathBuf};

use wicket_audit::{Admission, AuditLog, AuditOptions, Event, Level, Risk};
use wicket_policy::team::AuditLevel;
use wicket_policy::{By, Policy, Target, TeamPolicy, ToolCall, Verdict};

use crate::config;

/// The audit settings for this process, from the team policy: `audit.enabled` (a line that
/// cannot be written refuses the call) and `audit.level`. The head record is written after
/// every line whatever `audit.checkpoint` says (it anchors the chain's end; see
/// `docs/audit.md`). The environment may make the audit stricter, never looser:
/// `WICKET_AUDIT_MANDATORY=1`; `WICKET_AUDIT_ROTATE_BYTES=N` starts a new file every N bytes
/// (at least 1,024; tests use it to make many files).
pub fn options(team: &TeamPolicy) -> AuditOptions {
    let on = |name: &str| std::env::var_os(name).is_some_and(|v| v == "1" || v == "true");
    let level = match team.audit.level {
        None | Some(AuditLevel::All) => Level::All,
        Some(AuditLevel::Mutations) => Level::Mutations,
        Some(AuditLevel::Denials) => Level::Denials,
    };
    let rotate_bytes = std::env::var("WICKET_AUDIT_ROTATE_BYTES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(wicket_audit::ROTATE_BYTES, |n| n.max(1024));
    AuditOptions {
        mandatory: team.audit.enabled || on("WICKET_AUDIT_MANDATORY"),
        // On by default now that one chain spans files; `audit.checkpoint` and
        // WICKET_AUDIT_CHECKPOINT can no longer turn anything further on.
        checkpoint: true,
        level,
        rotate_bytes,
        ..AuditOptions::default()
    }
}

/// The folder with every project's logs: `$WICKET_HOME/audit`.
pub fn audit_root() -> Result<PathBuf, config::ConfigError> {
    Ok(config::wicket_home()?.join(wicket_audit::AUDIT_DIR))
}

/// A project's log folder: `$WICKET_HOME/audit/<name>-<hash>`, from the root's real path.
pub fn project_dir(root: &Path) -> Result<PathBuf, config::ConfigError> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    project_dir_of_real(&root)
}

/// A project's log folder from a root whose real path is already known (a [`Policy`]
/// resolved it when it was built): the same folder as [`project_dir`], without resolving the
/// path again on every hook call.
pub fn project_dir_of_real(real_root: &Path) -> Result<PathBuf, config::ConfigError> {
    Ok(wicket_audit::project_dir(&audit_root()?, real_root))
}

/// The audit log shared by a front end's gate, the proxy and the commands it runs.
pub type SharedRecorder = std::sync::Arc<std::sync::Mutex<Recorder>>;

/// A command that ran, as the log records it.
#[derive(Debug, Clone, Copy)]
pub struct Execution<'a> {
    /// The tool that ran it (`bash`).
    pub tool: &'a str,
    /// The command line.
    pub target: &'a str,
    /// How long it ran.
    pub duration_ms: u64,
    /// Its exit status.
    pub exit_code: i64,
    /// The risk of the decision that let it run ([`risk`]).
    pub risk: Risk,
    /// What wicket did after the run (e.g. the repositories it moved aside), or empty.
    pub note: &'a str,
}

/// What the front end does after recording a decision.
#[derive(Debug)]
pub struct Recorded {
    /// The verdict to act on: the engine's, or a deny when a mandatory line failed.
    pub verdict: Verdict,
    /// A notice for the person (given once per process), when the log failed and the audit
    /// is not mandatory.
    pub notice: Option<String>,
}

/// What recording asks of the caller.
enum Outcome {
    Go,
    Notice(String),
    Refuse { reason: String, cause: String },
}

/// Records the decisions of one process (one session) into its project's chain.
pub struct Recorder {
    state: State,
}

enum State {
    /// `--no-audit`.
    Off,
    /// The log.
    On(Box<AuditLog>),
    /// No place for the log (no home folder): every record fails like a failed write.
    Broken { why: String, mandatory: bool, noticed: bool },
}

impl Recorder {
    /// A recorder for the project at `root`, with a new session id. Nothing is written
    /// until the first decision.
    pub fn open(root: &Path, options: AuditOptions) -> Recorder {
        Recorder::in_dir(project_dir(root), options, wicket_audit::new_session_id())
    }

    /// A recorder for the project a policy decides for, with the team policy's audit
    /// settings ([`options`]): the log folder comes from the root's real path the policy
    /// already resolved. `session`: the agent's own session id (see
    /// [`Recorder::open_session`]), or `None` for a new one.
    pub fn for_policy(policy: &Policy, session: Option<&str>) -> Recorder {
        let session = session.map_or_else(wicket_audit::new_session_id, session_id);
        Recorder::in_dir(project_dir_of_real(policy.real_root()), options(policy.team()), session)
    }

    /// A recorder writing to `dir`, or failing as a write would when there is no place.
    fn in_dir(dir: Result<PathBuf, config::ConfigError>, options: AuditOptions, session: String) -> Recorder {
        let state = match dir {
            Ok(dir) => State::On(Box::new(AuditLog::new(dir, session, options))),
            Err(e) => State::Broken { why: e.to_string(), mandatory: options.mandatory, noticed: false },
        };
        Recorder { state }
    }

    /// A recorder for the project at `root` whose lines carry the agent's own session id
    /// (e.g. Claude Code's `session_id`), so one agent session's calls can be found together.
    /// The id is cut to 128 characters of `[A-Za-z0-9._:-]`; an empty id gets a new one.
    pub fn open_session(root: &Path, options: AuditOptions, session: &str) -> Recorder {
        Recorder::in_dir(project_dir(root), options, session_id(session))
    }

    /// Keep the log's lock between the lines of a burst (see
    /// [`AuditLog::hold_in_bursts`]); the caller calls [`Recorder::idle`] before it waits.
    pub fn hold_in_bursts(&mut self, on: bool) {
        if let State::On(log) = &mut self.state {
            log.hold_in_bursts(on);
        }
    }

    /// Give up a lock kept between lines: call before waiting for input.
    pub fn idle(&mut self) {
        if let State::On(log) = &mut self.state {
            log.idle();
        }
    }

    /// A front end's recorder: [`Recorder::off`] for `--no-audit`, else
    /// [`Recorder::for_policy`].
    pub fn for_run(policy: &Policy, no_audit: bool, session: Option<&str>) -> Recorder {
        if no_audit {
            Recorder::off()
        } else {
            Recorder::for_policy(policy, session)
        }
    }

    /// A recorder that records nothing (`--no-audit`).
    pub fn off() -> Recorder {
        Recorder { state: State::Off }
    }

    /// The file lines go to, once one exists.
    pub fn path(&self) -> Option<&Path> {
        match &self.state {
            State::On(log) => log.path(),
            _ => None,
        }
    }

    /// Record the decision on a call (`call` is `None` when the input was not a tool call;
    /// `raw` is then what was read).
    pub fn decision(&mut self, call: Option<&ToolCall>, raw: &str, verdict: Verdict) -> Recorded {
        let (tool, target, read_only) = match call {
            Some(c) => {
                let (target, read_only) = describe(c);
                (c.tool.as_str(), target, read_only)
            }
            None => ("", raw.to_string(), false),
        };
        let mut event = Event::decision(tool, &target, &verdict.kind, &verdict.reason);
        event.rule = verdict.rule.as_deref();
        event.read_only = read_only;
        match self.admit(&event) {
            Outcome::Go => Recorded { verdict, notice: None },
            Outcome::Notice(n) => Recorded { verdict, notice: Some(n) },
            Outcome::Refuse { reason, .. } => Recorded { verdict: Verdict::deny(By::Policy, reason), notice: None },
        }
    }
}

impl Recorder {
    /// Write the event; without a place for the log, fail as a write would.
    fn admit(&mut self, event: &Event<'_>) -> Outcome {
        match &mut self.state {
            State::Off => Outcome::Go,
            State::On(log) => match log.admit(event) {
                Admission::Go => {
                    // Export (when on) after the line is in the chain, never before.
                    crate::otel::appended();
                    Outcome::Go
                }
                Admission::GoWithNotice(n) => Outcome::Notice(n),
                Admission::Refuse(e) => Outcome::Refuse { reason: e.refusal(), cause: e.to_string() },
            },
            State::Broken { why, mandatory: true, .. } => Outcome::Refuse {
                reason: format!(
                    "the audit line could not be written ({why}); \
                     the team policy requires the audit log, so this call does not run"
                ),
                cause: why.clone(),
            },
            State::Broken { noticed: true, .. } => Outcome::Go,
            State::Broken { why, noticed, .. } => {
                *noticed = true;
                Outcome::Notice(format!("audit log: {why}; going on without it"))
            }
        }
    }

    /// Record a command that ran (for `wicket run` and later front ends), with the risk of
    /// the decision that let it run. Returns a message for the person when the line could
    /// not be written: the notice (once), or with a mandatory audit an error every time. The
    /// command has already run, so it cannot be refused; the caller should fail loudly.
    pub fn execution(
        &mut self,
        tool: &str,
        target: &str,
        duration_ms: u64,
        exit_code: i64,
        risk: Risk,
    ) -> Option<String> {
        self.execution_noted(tool, target, duration_ms, exit_code, risk, "")
    }

    /// [`Recorder::execution`] with a note in the line's reason (what wicket did after the
    /// run, e.g. the repositories it moved aside).
    pub fn execution_noted(
        &mut self,
        tool: &str,
        target: &str,
        duration_ms: u64,
        exit_code: i64,
        risk: Risk,
        note: &str,
    ) -> Option<String> {
        let mut event = Event::execution(tool, target, duration_ms, exit_code);
        event.risk = risk;
        event.reason = note;
        match self.admit(&event) {
            Outcome::Go => None,
            Outcome::Notice(n) => Some(n),
            Outcome::Refuse { cause, .. } => {
                Some(format!("the command ran, but its audit line could not be written (mandatory audit): {cause}"))
            }
        }
    }
}

/// The agent's session id as the log keeps it: cut to 128 characters of `[A-Za-z0-9._:-]`;
/// an empty id gets a new one.
fn session_id(session: &str) -> String {
    let id: String =
        session.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-')).take(128).collect();
    if id.is_empty() {
        wicket_audit::new_session_id()
    } else {
        id
    }
}

/// The target of a call as the log shows it, and whether the call only reads: the one path,
/// command or URL it touches, or else its input as compact JSON.
pub fn describe(call: &ToolCall) -> (String, bool) {
    let input = || call.input.to_string();
    match wicket_policy::targets_of(call) {
        Ok(t) => {
            let text = match t.targets.as_slice() {
                [Target::Path { path, .. }] => path.clone(),
                [Target::Command { command, .. }] => command.clone(),
                [Target::Url { url }] => url.clone(),
                _ => input(),
            };
            (text, t.read_only)
        }
        Err(_) => (input(), false),
    }
}

/// The risk the log gives a verdict (see `docs/audit.md`).
pub fn risk(verdict: &Verdict) -> Risk {
    Risk::of_kind(&verdict.kind)
}
