//! `wicket serve`: JSON-RPC 2.0 over stdio, one message a line (see `docs/protocol.md`).
//!
//! Methods: `decide` (a tool call → a decision; when the policy asks, the server sends the
//! client an `approval/request` and waits for its answer, denying after a timeout), `run`
//! (decide a command the same way, then run it in the OS sandbox and return its output),
//! `blocked_hosts`, `verify_audit`. The hard question: what if the client never answers a question? The
//! timeout denies, and the denial is what the log records; a late answer is dropped.
//!
//! Decisions are made one at a time on the request loop (they share the session's answers); an
//! allowed `run` then executes in a thread of its own that sends its answer when it ends.
//!
//! Every `decide` and `run` is answered within the hooks' deadline ([`crate::owed`]): if the
//! loop stalls (a hung file system, a lock), the request is denied with a reason that names what
//! wicket was doing, and the loop, when it comes back, neither answers nor runs it.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Args;
use serde_json::{json, Value};
use wicket::config::Placement;
use wicket::net::{NetRun, SharedRecorder};
use wicket_planner::exec::exec_policy;
use wicket_policy::{By, Decision, Mode, Target, ToolCall, Verdict};

use wicket::gate::{AuditSink, Gate, Opening, Pending, Step};
use wicket::jsonrpc::{
    error, is_v2, reply, result, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
};

use crate::check_cmd::{open_gate, CheckArgs};
use crate::owed::{Owed, Ticket};

/// The flags of `wicket serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// The project root (default: the nearest folder at or above the current one that holds `.wicket` or `.git`, else the current folder).
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
    #[command(flatten)]
    pub rules: crate::flags::RuleFlags,
    /// Seconds to wait for the client's answer to an approval request before denying.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub approval_timeout: f64,
}

/// A request line longer than this is refused with a parse error without being held whole
/// (a call this long is far over the policy's input limit anyway).
const MAX_LINE: usize = 4 * 1024 * 1024;
/// Distinct hosts kept for `blocked_hosts`; more are counted nowhere (the log has them all).
const MAX_BLOCKED: usize = 1_000;

/// A line from the client: a message (with its deadline when it is owed a decision), or why
/// it is not one.
enum Incoming {
    Message(Value, Option<Ticket>),
    Bad(String),
}

struct Server {
    /// The decision flow: engine, session, audit log.
    gate: Gate,
    loaded: wicket::config::Loaded,
    placement: Placement,
    /// The gate's log, shared with the network proxy of a `run`, which records its refusals
    /// as they happen, and with the runs, which record their executions.
    audit: SharedRecorder,
    /// The proxy's policy when the settings open the network (`network.allow`).
    net_config: Option<wicket_net::policy::NetConfig>,
    rx: Receiver<Incoming>,
    queued: VecDeque<Incoming>,
    next_id: u64,
    timeout: Duration,
    out: std::io::Stdout,
    /// Hosts refused during this session, in the order first refused (runs add theirs from
    /// their own threads).
    blocked: Arc<Mutex<Vec<Blocked>>>,
    /// Commands running now, each in a thread of its own that sends its own answer.
    runs: VecDeque<std::thread::JoinHandle<()>>,
    /// The decisions owed, each answered by the deadline if the loop stalls.
    owed: Arc<Owed<Value>>,
    /// The request being answered, when it is owed a decision.
    ticket: Option<Ticket>,
    /// The call and verdict the loop recorded for it (to correct the log if the deadline
    /// answered first).
    judged: Option<(ToolCall, Verdict)>,
    /// The call as the person approved it in part (`select_hunks`), for the `decide` result.
    approved_in_part: Option<Value>,
}

/// The most `run` requests executing at once; the next waits for the oldest to end.
const MAX_RUNS: usize = 8;

/// An allowed `run`, ready to execute away from the request loop.
struct RunJob {
    command: String,
    argv: Vec<OsString>,
    exec: wicket_planner::exec::ExecPolicy,
    placement: Placement,
    net_config: Option<wicket_net::policy::NetConfig>,
    audit: SharedRecorder,
    blocked: Arc<Mutex<Vec<Blocked>>>,
    verdict: Verdict,
    /// A staged run's copy: the command writes it, never the project.
    stage: Option<wicket::staged::Stage>,
}

/// A host the session was refused, and why (for `blocked_hosts`).
struct Blocked {
    host: String,
    tool: String,
    reason: String,
    count: u64,
}

pub fn serve(args: &ServeArgs) -> Result<ExitCode> {
    // First the reader and the deadline: a request sent while the settings load is answered
    // in time even when they never do (a FIFO, a hung file system).
    let owed = Arc::new(Owed::start(crate::hook_core::deadline(), (), |(), id: Value, why: &str| {
        eprintln!("wicket: denied the request {id}: {why}");
        let v = Verdict::deny(By::Input, why);
        if send_to(&std::io::stdout(), &reply(id, Ok(verdict_json(&v)))).is_err() {
            eprintln!("wicket: cannot send a late deny: the client's side is closed");
        }
    }));
    owed.stage("loading the settings");
    let (tx, rx) = mpsc::channel();
    let reader_owed = Arc::clone(&owed);
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        loop {
            // Capped: an over-long line is discarded as it arrives, never held whole.
            let msg = match crate::lines::read_line(&mut input, MAX_LINE) {
                Ok(None) => break,
                Ok(Some(Ok(l))) if l.iter().all(u8::is_ascii_whitespace) => continue,
                Ok(Some(Ok(l))) => match serde_json::from_slice::<Value>(&l) {
                    Ok(v) => {
                        let ticket = owes_decision(&v).map(|id| reader_owed.owe(id));
                        Incoming::Message(v, ticket)
                    }
                    Err(e) => Incoming::Bad(format!("not JSON: {e}")),
                },
                Ok(Some(Err(e))) => Incoming::Bad(format!("{e}; nothing of it was read")),
                // An unreadable stdin is the end of the session, like its end.
                Err(e) => {
                    eprintln!("wicket: cannot read stdin: {e}");
                    break;
                }
            };
            if tx.send(msg).is_err() {
                break;
            }
        }
    });
    let check = CheckArgs {
        root: args.root.clone(),
        mode: args.mode,
        unattended: false,
        no_sandbox: args.no_sandbox,
        sandboxed: false,
        rules: args.rules.clone(),
        jsonl: false,
        no_audit: args.no_audit,
    };
    // Commands of `run` are placed once, next to the gate.
    let (gate, loaded) = open_gate(&check, Opening::default(), true)?;
    let Some(placement) = gate.placement().cloned() else { anyhow::bail!("no placement for commands") };
    let audit = gate.log().ok_or_else(|| anyhow::anyhow!("the gate has no audit log"))?;
    // A broken network entry stops the server before it reads anything, as `wicket run` does.
    let net_config = wicket::net::net_config_of(&loaded)?;
    let timeout = Duration::from_secs_f64(args.approval_timeout.clamp(0.0, 86_400.0));
    let mut server = Server {
        gate,
        loaded,
        placement,
        audit,
        net_config,
        rx,
        queued: VecDeque::new(),
        next_id: 1,
        timeout,
        out: std::io::stdout(),
        blocked: Arc::new(Mutex::new(Vec::new())),
        runs: VecDeque::new(),
        owed,
        ticket: None,
        judged: None,
        approved_in_part: None,
    };
    server.run()?;
    Ok(ExitCode::SUCCESS)
}

/// The id of a request that is owed a decision within the deadline (`decide`, `run`).
fn owes_decision(msg: &Value) -> Option<Value> {
    let method = msg.get("method").and_then(Value::as_str)?;
    let id = msg.get("id").filter(|id| !id.is_null())?;
    matches!(method, "decide" | "run").then(|| id.clone())
}

/// Write one message as one line; the lock keeps lines from several threads whole.
fn send_to(out: &std::io::Stdout, v: &Value) -> Result<()> {
    let mut out = out.lock();
    out.write_all(format!("{v}\n").as_bytes())?;
    out.flush()?;
    Ok(())
}

impl Server {
    fn send(&mut self, v: &Value) -> Result<()> {
        send_to(&self.out, v)
    }

    /// Wait for every running command to end (its answer is sent by then).
    fn finish_runs(&mut self) {
        while let Some(h) = self.runs.pop_front() {
            let _ = h.join();
        }
    }

    fn next(&mut self) -> Option<Incoming> {
        self.queued.pop_front().or_else(|| self.rx.recv().ok())
    }

    /// Answer requests until `shutdown` or the end of input; the commands still running then
    /// finish, answer and are recorded before this returns, however the loop ended.
    fn run(&mut self) -> Result<()> {
        let ended = self.answer_requests();
        self.finish_runs();
        ended
    }

    fn answer_requests(&mut self) -> Result<()> {
        while let Some(msg) = self.next() {
            self.owed.stage("reading the next request");
            self.judged = None;
            let msg = match msg {
                Incoming::Message(m, ticket) => {
                    self.ticket = ticket;
                    m
                }
                Incoming::Bad(e) => {
                    self.send(&error(Value::Null, PARSE_ERROR, &e))?;
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
            if !is_v2(&msg) {
                self.send(&error(id.unwrap_or(Value::Null), INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\""))?;
                continue;
            }
            let params = msg.get("params").cloned().unwrap_or(Value::Null);
            let result = match method {
                "decide" => self.decide(&params),
                "run" => match self.run_command(&params) {
                    Ok(Run::Answered(v)) => Ok(v),
                    Ok(Run::Started(job)) => {
                        self.start_run(job, id);
                        continue;
                    }
                    Ok(Run::Late) => continue,
                    Err(e) => Err(e),
                },
                "blocked_hosts" => Ok(self.blocked_hosts()),
                "staged_list" => staged_list(),
                "staged_diff" => staged_diff(&params),
                "staged_apply" => self.staged_apply(&params),
                "staged_discard" => staged_discard(&params),
                "verify_audit" => verify_audit(&params),
                "shutdown" => {
                    self.finish_runs();
                    if let Some(id) = id {
                        self.send(&result(id, Value::Null))?;
                    }
                    return Ok(());
                }
                other => Err((
                    METHOD_NOT_FOUND,
                    format!(
                        "no method {other:?}: use decide, run, blocked_hosts, staged_list, staged_diff, staged_apply, \
                         staged_discard, verify_audit or shutdown"
                    ),
                )),
            };
            // Notifications (no id) get no answer.
            let Some(id) = id else { continue };
            let out = std::io::stdout();
            let mut sent = Ok(());
            self.claim(|| sent = send_to(&out, &reply(id, result)));
            sent?;
        }
        Ok(())
    }

    /// Answer the request being handled: `answer` runs unless the deadline denied it first,
    /// in which case the log is corrected when it recorded anything but that deny. Whether
    /// `answer` ran.
    fn claim(&mut self, answer: impl FnOnce()) -> bool {
        let Some(t) = self.ticket.take() else {
            answer();
            return true;
        };
        match self.owed.settle(t, |()| answer()) {
            Ok(()) => true,
            Err(why) => {
                if let Some((call, v)) = self.judged.take() {
                    if v.decision != Decision::Deny {
                        let fixed = Verdict::deny(By::Input, format!("{why}; the deadline answered before wicket"));
                        self.gate.record(&call, fixed);
                    }
                }
                false
            }
        }
    }

    /// Execute an allowed command in a thread of its own, which sends the answer when it ends
    /// (requests that come meanwhile are answered meanwhile). At most [`MAX_RUNS`] at once.
    fn start_run(&mut self, job: Box<RunJob>, id: Option<Value>) {
        self.runs.retain(|h| !h.is_finished());
        if self.runs.len() >= MAX_RUNS {
            if let Some(h) = self.runs.pop_front() {
                let _ = h.join();
            }
        }
        let out = std::io::stdout();
        let answer_to = id.clone();
        let spawned = std::thread::Builder::new().name("wicket-run".into()).spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.execute()))
                .unwrap_or_else(|_| Err((INTERNAL_ERROR, "the run failed inside wicket".to_string())));
            if let Some(id) = answer_to {
                if send_to(&out, &reply(id, result)).is_err() {
                    eprintln!("wicket: cannot send the answer of a run: the client's side is closed");
                }
            }
        });
        match spawned {
            Ok(handle) => self.runs.push_back(handle),
            // The command never started: say so rather than run it unwatched.
            Err(e) => {
                if let Some(id) = id {
                    let _ = self.send(&error(id, INTERNAL_ERROR, &format!("cannot start the run: {e}")));
                }
            }
        }
    }

    fn decide(&mut self, params: &Value) -> Result<Value, (i64, String)> {
        let call: ToolCall = serde_json::from_value(params.clone())
            .map_err(|e| (INVALID_PARAMS, format!("expected {{\"tool\": \"…\", \"input\": {{…}}}}: {e}")))?;
        // `Bash`, `run_shell_command` …: another agent's name for one of wicket's tools.
        let mut call = wicket::agents::in_wicket_words(call, || std::env::current_dir().unwrap_or_default());
        // The client runs what it asks about (`run` is for wicket's sandbox).
        crate::check_cmd::on_the_host(&mut call);
        self.approved_in_part = None;
        let v = self.judge(&call);
        let mut out = verdict_json(&v);
        // The person approved only some hunks of a file write: the call to make instead.
        if let (Some(updated), Value::Object(o), Decision::Allow) = (self.approved_in_part.take(), &mut out, v.decision)
        {
            o.insert("updated_call".into(), updated);
        }
        Ok(out)
    }

    /// Decide a call, ask the client when the policy asks, record the outcome, and note a
    /// refused host.
    fn judge(&mut self, call: &ToolCall) -> Verdict {
        // Denied by the deadline while it waited behind a stalled request: not decided again.
        let late = self.ticket.and_then(|t| self.owed.late(t));
        let verdict = match late {
            Some(why) => Verdict::deny(By::Input, why),
            None => {
                self.owed.stage("deciding");
                match self.gate.decide(call) {
                    Step::Done(v) => v,
                    Step::Ask(pending) => {
                        self.owed.pause();
                        let v = self.ask(&pending);
                        self.owed.resume();
                        v
                    }
                }
            }
        };
        self.owed.stage("writing the audit line");
        let v = self.gate.record(call, verdict);
        self.judged = Some((call.clone(), v.clone()));
        if v.decision == Decision::Deny {
            self.note_blocked(call, &v);
        }
        v
    }

    fn note_blocked(&mut self, call: &ToolCall, v: &Verdict) {
        let Ok(ct) = wicket_policy::targets_of(call) else { return };
        for t in ct.targets {
            let Target::Url { url } = t else { continue };
            let Ok(u) = wicket_policy::host::parse_url(&url) else { continue };
            self.note_host(&u.host.to_string(), &call.tool, &v.reason);
        }
    }

    fn note_host(&mut self, host: &str, tool: &str, reason: &str) {
        note_host(&self.blocked, host, tool, reason);
    }

    fn blocked_hosts(&self) -> Value {
        let Ok(blocked) = self.blocked.lock() else { return json!({ "hosts": [] }) };
        let hosts: Vec<Value> = blocked
            .iter()
            .map(|b| json!({"host": b.host, "tool": b.tool, "reason": b.reason, "count": b.count}))
            .collect();
        json!({ "hosts": hosts })
    }

    /// `run`: decide `bash {command}` as `decide` does; an allowed command becomes a
    /// [`RunJob`] (run with `bash -c` in the OS sandbox, or on the host when so configured,
    /// its stdin closed, its output captured).
    fn run_command(&mut self, params: &Value) -> Result<Run, (i64, String)> {
        let bad = |m: &str| {
            (INVALID_PARAMS, format!("{m}: expected {{\"command\": \"…\", \"timeout\"?: SECS, \"staged\"?: BOOL}}"))
        };
        let Value::Object(p) = params else { return Err(bad("params must be an object")) };
        if let Some(k) = p.keys().find(|k| !matches!(k.as_str(), "command" | "timeout" | "staged")) {
            return Err(bad(&format!("unknown field {k:?}")));
        }
        let staged = match p.get("staged") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(bad("staged must be true or false")),
        };
        let Some(command) = p.get("command").and_then(Value::as_str) else { return Err(bad("no command")) };
        let timeout = match p.get("timeout") {
            None | Some(Value::Null) => None,
            Some(t) => match t.as_f64() {
                Some(secs) if secs > 0.0 && secs <= 86_400.0 => Some(Duration::from_secs_f64(secs)),
                _ => return Err(bad("timeout must be a number of seconds between 0 and 86400")),
            },
        };
        let sandboxed = matches!(self.placement, Placement::Sandbox(_));
        let call = ToolCall::new("bash", json!({ "command": command, "outside_sandbox": !sandboxed }));
        let v = self.judge(&call);
        if v.decision != Decision::Allow {
            return Ok(Run::Answered(verdict_json(&v)));
        }
        // Decided: from here the answer comes when the command ends. Unless the deadline
        // denied it first, which the client has been told.
        if !self.claim(|| ()) {
            return Ok(Run::Late);
        }
        let policy = self.gate.policy();
        let mut inputs = wicket::config::exec_inputs(policy.root(), &self.loaded, policy.mode(), timeout);
        inputs.no_scan = !sandboxed;
        let mut exec = match exec_policy(&inputs) {
            Ok(e) => e,
            Err(e) => {
                let v = self.gate.record(&call, Verdict::deny(By::Policy, e.to_string()));
                return Ok(Run::Answered(verdict_json(&v)));
            }
        };
        let stage = if staged {
            if !matches!(self.placement, Placement::Sandbox(wicket_sandbox::Backend::Bwrap { .. })) {
                let why =
                    "a staged run needs bubblewrap (it mounts an overlay over the project); run the command unstaged";
                let v = self.gate.record(&call, Verdict::deny(By::Policy, why));
                return Ok(Run::Answered(verdict_json(&v)));
            }
            let stage = crate::staged_cmd::stage_for(&exec, command)
                .map_err(|e| (INTERNAL_ERROR, format!("cannot stage the project: {e:#}")))?;
            exec.stage = Some(stage.dir().to_path_buf());
            Some(stage)
        } else {
            None
        };
        Ok(Run::Started(Box::new(RunJob {
            command: command.to_string(),
            argv: vec!["bash".into(), "-c".into(), command.into()],
            exec,
            placement: self.placement.clone(),
            net_config: self.net_config.clone(),
            audit: self.audit.clone(),
            blocked: self.blocked.clone(),
            verdict: v,
            stage,
        })))
    }

    /// Send the client an approval request and wait for its answer (`once`, `session` or
    /// `deny`); no answer in time, an error, or anything else denies.
    fn ask(&mut self, pending: &Pending) -> Verdict {
        let id = format!("wicket-approval-{}", self.next_id);
        self.next_id += 1;
        let call = pending.call();
        let reason = pending.verdict().reason.clone();
        // A command `run` asks about runs in the sandbox; whatever `decide` asks about runs
        // where the client runs it.
        let sandboxed = call.tool == "bash" && call.input.get("outside_sandbox") == Some(&Value::Bool(false));
        let network = match (sandboxed, &self.net_config) {
            (false, _) => "host",
            (true, Some(_)) => "allowlist",
            (true, None) => "none",
        };
        let shown =
            wicket::approver::ApprovalRequest::new(call, &pending.question(sandboxed), pending.verdict(), network);
        let mut params = json!({
            "tool": call.tool, "input": call.input, "reason": reason, "by": pending.verdict().by.as_str(),
            "always_allow_rule": pending.always().map(ToString::to_string),
        });
        if let (Value::Object(p), Ok(Value::Object(more))) = (&mut params, serde_json::to_value(&shown)) {
            for (k, v) in more {
                p.entry(k).or_insert(v);
            }
        }
        let request = wicket::jsonrpc::request(json!(id), "approval/request", params);
        if self.send(&request).is_err() {
            return pending.unanswered("the client cannot be asked");
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = match self.rx.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    return pending.unanswered(&format!("nobody answered the approval request in {:?}", self.timeout))
                }
                Err(RecvTimeoutError::Disconnected) => return pending.unanswered("the client went away"),
            };
            let is_answer = matches!(&msg, Incoming::Message(m, _)
                if m.get("method").is_none() && m.get("id").and_then(Value::as_str) == Some(id.as_str()));
            if !is_answer {
                self.queued.push_back(msg);
                continue;
            }
            let Incoming::Message(m, _) = msg else { continue };
            // An error response, a missing or unknown answer all deny; "always" is the rule
            // the request showed, never one the client names.
            let word = m.get("result").and_then(|r| r.get("answer")).and_then(Value::as_str).unwrap_or("deny");
            let Some(selected) = m.get("result").and_then(|r| r.get("select_hunks")) else {
                return self.gate.answer(pending, pending.answer_word(word));
            };
            // Some hunks of a file write: wicket makes the exact content from the change the
            // person was shown (not the file as it is now, whose hunks could differ); anything
            // unclear denies: no change, a bad or unknown hunk number, or a file that exists but
            // whose text was not shown (too large, not text), which the hunks would replace.
            let change = shown.change.clone().filter(|c| c.old_text.is_some() || !Path::new(&c.path).exists());
            let numbers: Option<Vec<usize>> = selected
                .as_array()
                .map(|a| a.iter().map(|n| n.as_u64().and_then(|n| usize::try_from(n).ok())).collect())
                .and_then(|v: Option<Vec<usize>>| v);
            let content = match (&change, numbers) {
                (Some(c), Some(n)) => c.apply_hunks(&n).map(|text| (c.path.clone(), text, n)),
                _ => None,
            };
            let Some((path, text, n)) = content else {
                return pending.unanswered("the answer selected hunks that this call does not have");
            };
            // Approval of a part is approval of this call only.
            let v = self.gate.answer(pending, wicket::approver::Answer::Once);
            if v.decision == Decision::Allow {
                self.approved_in_part = Some(json!({"tool": "write_file", "input": {"path": path, "content": text}}));
                return Verdict { reason: format!("{} (hunks {n:?} of the change only)", v.reason), ..v };
            }
            return v;
        }
    }
}

/// What `run` does with a request: answer it now (refused, or not runnable), start it, or
/// nothing (the deadline denied it first).
enum Run {
    Answered(Value),
    Started(Box<RunJob>),
    Late,
}

impl RunJob {
    /// Run the command and build the answer: the decision fields plus its outcome.
    fn execute(self) -> Result<Value, (i64, String)> {
        let mut out = verdict_json(&self.verdict);
        let opts = wicket_sandbox::RunOptions {
            passthrough: false,
            inherit_stdin: false,
            supervisor: std::env::current_exe().ok(),
        };
        let mut refused = Vec::new();
        let outcome = match &self.placement {
            Placement::Sandbox(backend) => {
                let exe = std::env::current_exe().map_err(|e| {
                    (INTERNAL_ERROR, format!("cannot find wicket's own binary for the sandbox shim: {e}"))
                })?;
                let sandbox = wicket_sandbox::Sandbox { backend: backend.clone(), shim_exe: exe };
                match &self.net_config {
                    // The allowlist proxy, as in `wicket run`; nobody can be asked from inside a
                    // run here, so an unlisted host is refused and listed by `blocked_hosts`.
                    Some(net) if matches!(backend, wicket_sandbox::Backend::Bwrap { .. }) => {
                        let run = NetRun::start(net.clone(), None, self.audit.clone())
                            .map_err(|e| (INTERNAL_ERROR, format!("cannot start the network proxy: {e}")))?;
                        let network = run.network();
                        let mut serve = |l: std::net::TcpListener| run.serve(l);
                        let outcome = sandbox.run_networked(&self.exec, &self.argv, &opts, &network, &mut serve);
                        refused = run.blocked();
                        run.stop();
                        outcome
                    }
                    _ => sandbox.run(&self.exec, &self.argv, &opts),
                }
            }
            Placement::Host(_) => wicket_sandbox::run_on_host(&self.exec, &self.argv, &opts),
        }
        .map_err(|e| (INTERNAL_ERROR, format!("cannot run the command: {e}")))?;
        for b in refused {
            note_host(&self.blocked, &b.host, "network", &b.reason);
        }
        let held = match (&self.placement, &self.stage) {
            (Placement::Sandbox(_), None) => {
                wicket::staged::hold_after_run(&self.exec, &outcome.held, &outcome.held_entries, &self.command)
            }
            _ => None,
        };
        let ms = u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX);
        let mut note = crate::run_cmd::moved_note(&outcome, &self.exec);
        if let Some(h) = &held {
            if !note.is_empty() {
                note.push_str("; ");
            }
            note.push_str(h);
        }
        let ran = wicket::audit::Execution {
            tool: "bash",
            target: &self.command,
            duration_ms: ms,
            exit_code: i64::from(outcome.code),
            risk: wicket::audit::risk(&self.verdict),
            note: &note,
        };
        if let Some(msg) = AuditSink::execution(&mut self.audit.clone(), &ran) {
            eprintln!("wicket: {msg}");
        }
        let staged = match &self.stage {
            Some(stage) => Some(staged_result(stage)?),
            None => None,
        };
        if let Value::Object(o) = &mut out {
            if let Some(s) = staged {
                o.insert("staged".into(), s);
            }
            if let Some(h) = &held {
                o.insert("held".into(), json!(h));
            }
            o.insert("exit_code".into(), json!(outcome.code));
            o.insert("stdout".into(), json!(outcome.stdout.text()));
            o.insert("stderr".into(), json!(outcome.stderr.text()));
            o.insert("stdout_bytes".into(), json!(outcome.stdout.total));
            o.insert("stderr_bytes".into(), json!(outcome.stderr.total));
            o.insert("timed_out".into(), json!(outcome.timed_out));
            o.insert("duration_ms".into(), json!(ms));
            o.insert("sandbox".into(), json!(outcome.backend));
            let moved: Vec<String> =
                outcome.moved_aside.iter().map(|m| wicket_sandbox::quarantine::describe(m, &self.exec.root)).collect();
            if !moved.is_empty() {
                o.insert("moved_aside".into(), json!(moved));
            }
            if !self.exec.notices.is_empty() {
                o.insert("notices".into(), json!(self.exec.notices));
            }
        }
        Ok(out)
    }
}

/// Count a refused host for `blocked_hosts`.
fn note_host(blocked: &Mutex<Vec<Blocked>>, host: &str, tool: &str, reason: &str) {
    let Ok(mut blocked) = blocked.lock() else { return };
    if let Some(b) = blocked.iter_mut().find(|b| b.host == host) {
        b.count += 1;
    } else if blocked.len() < MAX_BLOCKED {
        blocked.push(Blocked { host: host.to_string(), tool: tool.to_string(), reason: reason.to_string(), count: 1 });
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

/// The `wicket check` fields of a verdict.
fn verdict_json(v: &Verdict) -> Value {
    let mut out = json!({"decision": v.decision.as_str(), "by": v.by.as_str(), "reason": v.reason, "kind": v.kind});
    if let (Some(r), Value::Object(o)) = (&v.rule, &mut out) {
        o.insert("rule".into(), json!(r));
    }
    out
}

/// A staged run's part of the `run` answer: the stage's id and its changes, or (nothing
/// changed, the stage removed) a null id and no changes.
fn staged_result(stage: &wicket::staged::Stage) -> Result<Value, (i64, String)> {
    stage.remove_mount_points();
    let changes = crate::staged_cmd::changes_json(stage, false).map_err(|e| (INTERNAL_ERROR, format!("{e:#}")))?;
    if changes.is_empty() {
        let gone = wicket::staged::Stage::open(&stage_dir()?, stage.id()).and_then(wicket::staged::Stage::discard);
        if let Err(e) = gone {
            eprintln!("wicket: cannot remove an empty stage: {e}");
        }
        return Ok(json!({"id": null, "changes": []}));
    }
    Ok(json!({"id": stage.id(), "changes": changes}))
}

fn stage_dir() -> Result<std::path::PathBuf, (i64, String)> {
    wicket::staged::stages_dir().map_err(|e| (INTERNAL_ERROR, e.to_string()))
}

/// The `id` of a `staged_*` request, opened.
fn open_stage(params: &Value) -> Result<wicket::staged::Stage, (i64, String)> {
    let Some(id) = params.get("id").and_then(Value::as_str) else {
        return Err((INVALID_PARAMS, "expected {\"id\": \"…\"} (the id a staged run gave)".into()));
    };
    wicket::staged::Stage::open(&stage_dir()?, id).map_err(stage_error)
}

fn stage_error(e: wicket::staged::StageError) -> (i64, String) {
    (stage_error_code(&e), e.to_string())
}

/// `staged_list`: the kept stages.
fn staged_list() -> Result<Value, (i64, String)> {
    let list = wicket::staged::list(&stage_dir()?).map_err(stage_error)?;
    Ok(json!({ "stages": list }))
}

/// `staged_diff {id}`: every change, with the texts and hunks of text files.
fn staged_diff(params: &Value) -> Result<Value, (i64, String)> {
    let stage = open_stage(params)?;
    let changes = crate::staged_cmd::changes_json(&stage, true).map_err(|e| (INTERNAL_ERROR, format!("{e:#}")))?;
    Ok(json!({ "id": stage.id(), "changes": changes }))
}

/// `staged_discard {id}`.
fn staged_discard(params: &Value) -> Result<Value, (i64, String)> {
    open_stage(params)?.discard().map_err(stage_error)?;
    Ok(json!({}))
}

impl Server {
    /// `staged_apply {id, paths?, hunks?}`: apply all, the changes at or below `paths`, or (with
    /// one path) only the numbered `hunks` of that file.
    fn staged_apply(&mut self, params: &Value) -> Result<Value, (i64, String)> {
        let bad = |m: &str| {
            (INVALID_PARAMS, format!("{m}: expected {{\"id\": \"…\", \"paths\"?: [\"…\"], \"hunks\"?: [N]}}"))
        };
        let Value::Object(p) = params else { return Err(bad("params must be an object")) };
        if let Some(k) = p.keys().find(|k| !matches!(k.as_str(), "id" | "paths" | "hunks")) {
            return Err(bad(&format!("unknown field {k:?}")));
        }
        let strings = |v: Option<&Value>| -> Option<Vec<String>> {
            match v {
                None | Some(Value::Null) => Some(Vec::new()),
                Some(Value::Array(a)) => a.iter().map(|x| x.as_str().map(str::to_string)).collect(),
                _ => None,
            }
        };
        let Some(paths) = strings(p.get("paths")) else { return Err(bad("paths must be a list of strings")) };
        let hunks: Option<Vec<usize>> = match p.get("hunks") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) => {
                let n: Option<Vec<usize>> =
                    a.iter().map(|x| x.as_u64().and_then(|n| usize::try_from(n).ok())).collect();
                Some(n.ok_or_else(|| bad("hunks must be a list of hunk numbers"))?)
            }
            Some(_) => return Err(bad("hunks must be a list of hunk numbers")),
        };
        let mut stage = open_stage(params)?;
        if stage.root() != self.gate.policy().real_root() {
            return Err((
                INVALID_PARAMS,
                format!("the staged change is for {}, not this server's project", stage.root().display()),
            ));
        }
        if let Some(hunks) = hunks {
            let [path] = paths.as_slice() else { return Err(bad("hunks need exactly one path")) };
            let done = crate::staged_cmd::apply_hunks_checked(&mut self.gate, &mut stage, path, &hunks)
                .map_err(|e| (wicket::jsonrpc::REFUSED, format!("{e:#}")))?;
            return Ok(json!({ "applied": [done], "left_out": [] }));
        }
        let done = crate::staged_cmd::apply_checked(&mut self.gate, &mut stage, &paths).map_err(|e| {
            let code = match e.downcast_ref::<wicket::staged::StageError>() {
                Some(se) => stage_error_code(se),
                None => wicket::jsonrpc::REFUSED,
            };
            (code, format!("{e:#}"))
        })?;
        let left_out: Vec<Value> = done.left_out.iter().map(|(p, why)| json!({"path": p, "reason": why})).collect();
        Ok(json!({ "applied": done.applied, "left_out": left_out }))
    }
}

fn stage_error_code(e: &wicket::staged::StageError) -> i64 {
    use wicket::staged::StageError as E;
    match e {
        E::Unknown(_) | E::NotInStage { .. } | E::Hunks { .. } => INVALID_PARAMS,
        E::Conflicts(_) => wicket::jsonrpc::REFUSED,
        _ => INTERNAL_ERROR,
    }
}
