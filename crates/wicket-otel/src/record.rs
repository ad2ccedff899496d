//! One audit line as one OpenTelemetry log record.
//!
//! The hard question: can a receiver check the chain from what it got, without trusting
//! any field it got? Yes: the record's body is the line itself, byte for byte as written
//! (already redacted by the writer), so the receiver re-hashes it; the attributes repeat its
//! fields under names a log store can query (GenAI conventions where they exist, `wicket.*`
//! otherwise), and a verifier checks they agree with the body.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use opentelemetry::logs::{AnyValue, LogRecord, Severity};
use opentelemetry::Key;
use wicket_audit::{decode, Risk};

/// The event name of a decision's record.
pub const EVENT_DECISION: &str = "wicket.audit.decision";
/// The event name of a command's run.
pub const EVENT_EXECUTION: &str = "wicket.audit.execution";

/// Attribute names, documented in `docs/telemetry.md`.
pub mod attr {
    /// GenAI: what was done (`execute_tool` for every line).
    pub const OPERATION: &str = "gen_ai.operation.name";
    /// GenAI: the tool the agent called.
    pub const TOOL: &str = "gen_ai.tool.name";
    /// GenAI: the conversation; wicket's session (the agent's session id when the front end had one).
    pub const CONVERSATION: &str = "gen_ai.conversation.id";
    /// `allow`, `deny`, `ask`, `executed` or `error`.
    pub const DECISION: &str = "wicket.decision";
    /// The check that decided (`sandbox`, `sensitive`, `rule` …): the decision's source.
    pub const BY: &str = "wicket.by";
    /// The decision kind (`allow_sandbox`, `deny_sensitive`, `executed` …).
    pub const KIND: &str = "wicket.kind";
    /// `low`, `medium`, `high` or `critical`.
    pub const RISK: &str = "wicket.risk";
    /// Why, redacted.
    pub const REASON: &str = "wicket.reason";
    /// The rule that decided, when one did.
    pub const RULE: &str = "wicket.rule";
    /// What the call touched (command, path, URL, input), redacted.
    pub const TARGET: &str = "wicket.target";
    /// The session id the line carries.
    pub const SESSION: &str = "wicket.session";
    /// For a command that ran: how long, in milliseconds.
    pub const DURATION_MS: &str = "wicket.duration_ms";
    /// For a command that ran: its exit code.
    pub const EXIT_CODE: &str = "process.exit.code";
    /// The process that wrote the line.
    pub const PID: &str = "process.pid";
    /// The line's place in the project's chain, from 1.
    pub const SEQ: &str = "wicket.seq";
    /// The hash of the line before.
    pub const PREV: &str = "wicket.prev";
    /// The line's own hash.
    pub const HASH: &str = "wicket.hash";
    /// The project's log folder (`<name>-<8 hex>`): one chain per project.
    pub const PROJECT: &str = "wicket.project";
    /// The line's id (`<writer>-<seq>`).
    pub const LINE_ID: &str = "wicket.line.id";
}

/// Fill `record` from one line (`raw`, without its newline) of `project`'s chain. Returns
/// false, leaving the record untouched, when the line does not decode.
pub fn fill(record: &mut impl LogRecord, raw: &str, project: &str) -> bool {
    let Ok(l) = decode(raw.as_bytes()) else { return false };
    let kind = l.kind.value();
    let executed = kind == "executed";
    record.set_event_name(if executed { EVENT_EXECUTION } else { EVENT_DECISION });
    if let Some(ms) = wicket_audit::parse_utc(&l.time.value()) {
        record.set_timestamp(UNIX_EPOCH + Duration::from_millis(ms));
    }
    record.set_observed_timestamp(SystemTime::now());
    let (severity, text) = match l.risk {
        Risk::Low => (Severity::Info, "low"),
        Risk::Medium => (Severity::Info2, "medium"),
        Risk::High => (Severity::Warn, "high"),
        Risk::Critical => (Severity::Error, "critical"),
    };
    record.set_severity_number(severity);
    record.set_severity_text(text);
    record.set_body(AnyValue::from(raw.to_string()));
    let (decision, by) = match kind.split_once('_') {
        Some((d, by)) if matches!(d, "allow" | "deny" | "ask") => (d.to_string(), Some(by.to_string())),
        _ => (kind.to_string(), None),
    };
    let s = |v: &str| AnyValue::from(v.to_string());
    let mut attrs: Vec<(Key, AnyValue)> = vec![
        (Key::from_static_str(attr::OPERATION), s("execute_tool")),
        (Key::from_static_str(attr::TOOL), s(&l.tool.value())),
        (Key::from_static_str(attr::CONVERSATION), s(&l.session.value())),
        (Key::from_static_str(attr::SESSION), s(&l.session.value())),
        (Key::from_static_str(attr::DECISION), s(&decision)),
        (Key::from_static_str(attr::KIND), s(&kind)),
        (Key::from_static_str(attr::RISK), s(l.risk.as_str())),
        (Key::from_static_str(attr::REASON), s(&l.reason.value())),
        (Key::from_static_str(attr::TARGET), s(&l.target.value())),
        (Key::from_static_str(attr::SEQ), AnyValue::Int(i64::try_from(l.seq).unwrap_or(i64::MAX))),
        (Key::from_static_str(attr::PREV), s(l.prev)),
        (Key::from_static_str(attr::HASH), s(l.hash)),
        (Key::from_static_str(attr::PROJECT), s(project)),
        (Key::from_static_str(attr::LINE_ID), s(&l.id.value())),
    ];
    if let Some(by) = by {
        attrs.push((Key::from_static_str(attr::BY), s(&by)));
    }
    if let Some(rule) = l.rule {
        attrs.push((Key::from_static_str(attr::RULE), s(&rule.value())));
    }
    if let Some(d) = l.duration_ms {
        attrs.push((Key::from_static_str(attr::DURATION_MS), AnyValue::Int(i64::try_from(d).unwrap_or(i64::MAX))));
    }
    if let Some(c) = l.exit_code {
        attrs.push((Key::from_static_str(attr::EXIT_CODE), AnyValue::Int(c)));
    }
    if let Some(pid) = l.pid {
        attrs.push((Key::from_static_str(attr::PID), AnyValue::Int(i64::try_from(pid).unwrap_or(i64::MAX))));
    }
    record.add_attributes(attrs);
    true
}
