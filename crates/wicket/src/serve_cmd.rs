//! `wicket serve`: JSON-RPC 2.0 over stdio, one message a line (see `docs/protocol.md`).
//!
//! Methods: `decide` (a tool call → a decision; when the policy asks, the server sends the
//! client an `approval/request` and waits for its answer, denying after a timeout),
//! `verify_audit`. The hard question: what if the client never answers a question? The
//! timeout denies, and the denial is what the log records; a late answer is dropped.

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Args;
use serde_json::{json, Value};
use wicket::audit::Recorder;
use wicket_policy::{By, Decision, Mode, Policy, Session, ToolCall, Verdict};

use crate::check_cmd::{build_policy, CheckArgs};

/// The flags of `wicket serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// The project root (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode.
    #[arg(long, value_parser = crate::check_cmd::parse_mode)]
    pub mode: Option<Mode>,
    /// Judge commands as if no OS sandbox were available.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Do not write the audit log.
    #[arg(long)]
    pub no_audit: bool,
    /// Seconds to wait for the client's answer to an approval request before denying.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub approval_timeout: f64,
}

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// A line from the client: a message, or why it is not one.
enum Incoming {
    Message(Value),
    Bad(String),
}

struct Server {
    policy: Policy,
    session: Session,
    audit: Recorder,
    rx: Receiver<Incoming>,
    queued: VecDeque<Incoming>,
    next_id: u64,
    timeout: Duration,
    out: std::io::Stdout,
}

pub fn serve(args: &ServeArgs) -> Result<ExitCode> {
    let check = CheckArgs {
        root: args.root.clone(),
        mode: args.mode,
        unattended: false,
        no_sandbox: args.no_sandbox,
        allow: Vec::new(),
        deny: Vec::new(),
        ask: Vec::new(),
        jsonl: false,
        no_audit: args.no_audit,
    };
    let (policy, _loaded) = build_policy(&check)?;
    let audit = if args.no_audit {
        Recorder::off()
    } else {
        Recorder::open(policy.root(), wicket::audit::options(policy.team()))
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let msg = match line {
                Ok(l) if l.trim().is_empty() => continue,
                Ok(l) => match serde_json::from_str::<Value>(&l) {
                    Ok(v) => Incoming::Message(v),
                    Err(e) => Incoming::Bad(e.to_string()),
                },
                Err(e) => Incoming::Bad(e.to_string()),
            };
            if tx.send(msg).is_err() {
                break;
            }
        }
    });
    let timeout = Duration::from_secs_f64(args.approval_timeout.clamp(0.0, 86_400.0));
    let mut server = Server {
        policy,
        session: Session::new(),
        audit,
        rx,
        queued: VecDeque::new(),
        next_id: 1,
        timeout,
        out: std::io::stdout(),
    };
    server.run()?;
    Ok(ExitCode::SUCCESS)
}

impl Server {
    fn send(&mut self, v: &Value) -> Result<()> {
        let mut out = self.out.lock();
        out.write_all(format!("{v}\n").as_bytes())?;
        out.flush()?;
        Ok(())
    }

    fn next(&mut self) -> Option<Incoming> {
        self.queued.pop_front().or_else(|| self.rx.recv().ok())
    }

    fn run(&mut self) -> Result<()> {
        while let Some(msg) = self.next() {
            let msg = match msg {
                Incoming::Message(m) => m,
                Incoming::Bad(e) => {
                    self.send(&error(Value::Null, PARSE_ERROR, &format!("not JSON: {e}")))?;
                    continue;
                }
            };
            let id = msg.get("id").cloned();
            let Some(method) = msg.get("method").and_then(Value::as_str) else {
                // A response nobody waits for (a late approval answer) is dropped.
                if msg.get("result").is_none() && msg.get("error").is_none() {
                    self.send(&error(id.unwrap_or(Value::Null), INVALID_REQUEST, "expected a JSON-RPC 2.0 request"))?;
                }
                continue;
            };
            if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
                self.send(&error(id.unwrap_or(Value::Null), INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\""))?;
                continue;
            }
            let params = msg.get("params").cloned().unwrap_or(Value::Null);
            let result = match method {
                "decide" => self.decide(&params),
                "verify_audit" => verify_audit(&params),
                "shutdown" => {
                    if let Some(id) = id {
                        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": null}))?;
                    }
                    return Ok(());
                }
                other => Err((METHOD_NOT_FOUND, format!("no method {other:?}: use decide, verify_audit or shutdown"))),
            };
            // Notifications (no id) get no answer.
            let Some(id) = id else { continue };
            let reply = match result {
                Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
                Err((code, m)) => error(id, code, &m),
            };
            self.send(&reply)?;
        }
        Ok(())
    }

    fn decide(&mut self, params: &Value) -> Result<Value, (i64, String)> {
        let call: ToolCall = serde_json::from_value(params.clone())
            .map_err(|e| (INVALID_PARAMS, format!("expected {{\"tool\": \"…\", \"input\": {{…}}}}: {e}")))?;
        let raw = params.to_string();
        let verdict = self.policy.decide(&call, &self.session);
        let verdict = if verdict.decision == Decision::Ask { self.ask(&call, verdict) } else { verdict };
        let recorded = self.audit.decision(Some(&call), &raw, verdict);
        if let Some(n) = recorded.notice {
            eprintln!("wicket: {n}");
        }
        let v = recorded.verdict;
        let mut out = json!({"decision": v.decision.as_str(), "by": v.by.as_str(), "reason": v.reason, "kind": v.kind});
        if let (Some(r), Value::Object(o)) = (&v.rule, &mut out) {
            o.insert("rule".into(), json!(r));
        }
        Ok(out)
    }

    /// Send the client an approval request and wait for its answer (`once`, `session` or
    /// `deny`); no answer in time, an error, or anything else denies.
    fn ask(&mut self, call: &ToolCall, verdict: Verdict) -> Verdict {
        let id = format!("wicket-approval-{}", self.next_id);
        self.next_id += 1;
        let always = self.policy.always_allow_rule(call).map(|r| r.to_string());
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "approval/request", "params": {
            "tool": call.tool, "input": call.input, "reason": verdict.reason, "by": verdict.by.as_str(),
            "always_allow_rule": always,
        }});
        if self.send(&request).is_err() {
            return Verdict::deny(By::Unattended, format!("{} (the client cannot be asked)", verdict.reason));
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = match self.rx.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    return Verdict::deny(
                        By::Unattended,
                        format!("nobody answered the approval request in {:?}: {}", self.timeout, verdict.reason),
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Verdict::deny(By::Unattended, format!("the client went away: {}", verdict.reason))
                }
            };
            let is_answer = matches!(&msg, Incoming::Message(m)
                if m.get("method").is_none() && m.get("id").and_then(Value::as_str) == Some(id.as_str()));
            if !is_answer {
                self.queued.push_back(msg);
                continue;
            }
            let Incoming::Message(m) = msg else { continue };
            let answer = m.get("result").and_then(|r| r.get("answer")).and_then(Value::as_str).unwrap_or("deny");
            return match answer {
                "once" => Verdict::allow(By::User, "the client's person said yes (once)"),
                "session" => {
                    self.session.allow_call(call);
                    Verdict::allow(By::User, "the client's person said yes (for this session)")
                }
                _ => Verdict::deny(By::User, format!("the person said no: {}", verdict.reason)),
            };
        }
    }
}

fn verify_audit(params: &Value) -> Result<Value, (i64, String)> {
    let path = match params.get("path").and_then(Value::as_str) {
        Some(p) => PathBuf::from(p),
        None => wicket::audit::audit_root().map_err(|e| (INVALID_PARAMS, e.to_string()))?,
    };
    if !path.exists() {
        return Ok(json!({"ok": true, "files": 0, "lines": 0, "problems": []}));
    }
    let report = wicket_audit::verify_path(&path).map_err(|e| (INVALID_PARAMS, e.to_string()))?;
    let problems: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    Ok(json!({"ok": report.is_ok(), "files": report.files.len(), "lines": report.lines(), "problems": problems}))
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}
