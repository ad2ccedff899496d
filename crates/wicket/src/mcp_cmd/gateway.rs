//! The relay: client and server lines in, each `tools/call` decided, held for a person,
//! answered in time or forwarded; the server's tool list filtered by deny rules.

use std::collections::{HashMap, HashSet};
use std::io::{BufReader, Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::{json, Value};
use wicket::approver::{self, Answer, Approver, Question, TerminalApprover};
use wicket::gate::{Gate, Pending, Step};
use wicket::jsonrpc::{
    self, error, is_mcp_id, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, REQUEST_TIMEOUT,
};
use wicket_policy::{By, Decision, ToolCall, Verdict};

use super::*;
use crate::owed::{Owed, Ticket};

/// What the relay loop hears.
pub(super) enum Event {
    /// A line from the client (stdin), or why it is not one; `None` at the end. A `tools/call`
    /// request carries its deadline.
    Client(Option<Line>, Option<Ticket>),
    /// A line from the server (its stdout); `None` when it closed it.
    Server(Option<Line>),
    /// The person's answer on the terminal to the held call with this key.
    Tty(u64, Answer),
}

/// A line as read: its bytes without the newline, or why it could not be read whole.
pub(super) type Line = Result<Vec<u8>, String>;

/// Read newline-delimited lines into the channel, each at most `max` bytes (a longer one is
/// discarded as it is read and sent on as an error).
pub(super) fn spawn_reader<R: Read + Send + 'static>(
    from: R,
    max: usize,
    tx: Sender<Event>,
    wrap: impl Fn(Option<Line>) -> Event + Send + 'static,
) {
    std::thread::spawn(move || {
        let mut reader = BufReader::with_capacity(64 * 1024, from);
        loop {
            let line = crate::lines::read_line(&mut reader, max);
            let end = matches!(line, Ok(None));
            let event = match line {
                Ok(None) => wrap(None),
                Ok(Some(l)) => wrap(Some(l.map_err(|e| e.to_string()))),
                Err(e) => wrap(Some(Err(format!("cannot read: {e}")))),
            };
            if tx.send(event).is_err() || end {
                return;
            }
        }
    });
}

/// The thread that asks the person at the terminal, one question at a time.
pub(super) fn spawn_asker(mut tty: TerminalApprover, tx: Sender<Event>) -> Sender<(u64, Question)> {
    let (qtx, qrx) = mpsc::channel::<(u64, Question)>();
    std::thread::spawn(move || {
        for (key, q) in qrx {
            let answer = tty.ask(&q);
            if tx.send(Event::Tty(key, answer)).is_err() {
                return;
            }
        }
    });
    qtx
}

/// The id of a `tools/call` request (owed a decision within the deadline). Only the fields
/// that say so are read; the relay parses the line in full later.
pub(super) fn owed_call(bytes: &[u8]) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Peek {
        method: Option<String>,
        id: Option<Value>,
    }
    let peek: Peek = serde_json::from_slice(bytes).ok()?;
    let id = peek.id.filter(is_mcp_id)?;
    (peek.method.as_deref() == Some("tools/call")).then_some(id)
}

/// The most bytes waiting for a server that does not read its input; more are refused.
pub(super) const SERVER_MAX_QUEUED: usize = 64 * 1024 * 1024;

/// The server's stdin, written by a thread of its own, so a server that stops reading never
/// stalls the relay: requests waiting for it time out like unanswered ones, and past
/// [`SERVER_MAX_QUEUED`] bytes the client gets an error instead of a growing queue.
pub(super) struct ServerInput {
    pub(super) tx: Sender<Vec<u8>>,
    pub(super) queued: Arc<std::sync::atomic::AtomicUsize>,
}

/// Why a line was not passed to the server.
pub(super) enum Unsent {
    /// Its input is closed (it exited).
    Closed,
    /// It has not read this many bytes.
    Full(usize),
}

impl ServerInput {
    pub(super) fn start(mut to: std::process::ChildStdin) -> Self {
        use std::sync::atomic::Ordering;
        let (tx, rx) = mpsc::channel::<Vec<u8>>();
        let queued = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = Arc::clone(&queued);
        std::thread::spawn(move || {
            for mut line in rx {
                let n = line.len();
                line.push(b'\n');
                let ok = to.write_all(&line).and_then(|()| to.flush());
                count.fetch_sub(n, Ordering::SeqCst);
                if ok.is_err() {
                    // Dropping the receiver makes every later send fail: the server is gone.
                    return;
                }
            }
            // The relay closed its side: the server's stdin closes here, after the queue.
        });
        ServerInput { tx, queued }
    }

    fn send(&self, bytes: &[u8]) -> Result<(), Unsent> {
        use std::sync::atomic::Ordering;
        let waiting = self.queued.load(Ordering::SeqCst);
        if waiting + bytes.len() > SERVER_MAX_QUEUED {
            return Err(Unsent::Full(waiting));
        }
        self.queued.fetch_add(bytes.len(), Ordering::SeqCst);
        self.tx.send(bytes.to_vec()).map_err(|_| Unsent::Closed)
    }
}

/// What a forwarded client request was, for its response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Initialize,
    ToolsList,
    ToolsCall,
    Other,
}

/// A client request forwarded to the server and not yet answered.
pub(super) struct Forwarded {
    pub(super) id: Value,
    pub(super) kind: Kind,
    /// When the client gets a timeout error instead of the server's answer.
    pub(super) deadline: Instant,
}

/// A `tools/call` waiting for the person's answer.
pub(super) struct Held {
    pub(super) id: Value,
    pub(super) line: Vec<u8>,
    /// The call, why it asks, and the rule "always" may store.
    pub(super) pending: Pending,
    /// For an elicitation: the gateway's request id (key) and when it times out.
    pub(super) elicitation: Option<(String, Instant)>,
}

pub(super) struct Gateway {
    pub(super) name: String,
    /// The decision flow: engine, session, audit log.
    pub(super) gate: Gate,
    pub(super) rx: Receiver<Event>,
    pub(super) to_server: Option<ServerInput>,
    /// The client's input is open (it may still send).
    pub(super) client_open: bool,
    /// The client's output is open (it may still read).
    pub(super) client_writable: bool,
    /// The server closed its output.
    pub(super) server_closed: bool,
    /// The client declared form elicitation in `initialize`.
    pub(super) elicitation: bool,
    /// Client requests forwarded to the server and not yet answered, by id key.
    pub(super) forwarded: HashMap<String, Forwarded>,
    /// Forwarded requests that timed out and the server has not answered yet, by id key: a
    /// late answer is dropped, and the client may not reuse the id meanwhile (the late answer
    /// would otherwise look like the answer to the new request).
    pub(super) abandoned: HashSet<String>,
    /// Server requests forwarded to the client and not yet answered, by id key.
    pub(super) server_requests: HashMap<String, ()>,
    /// Server requests whose id collided with one of the gateway's: the id the client saw
    /// (key) → the server's own id.
    pub(super) remapped: HashMap<String, Value>,
    /// Calls waiting for an answer, by their own key.
    pub(super) held: HashMap<u64, Held>,
    /// The gateway's elicitation requests in flight: id key → held call key.
    pub(super) elicitations: HashMap<String, u64>,
    pub(super) tty: Option<Sender<(u64, Question)>>,
    pub(super) next_own: u64,
    pub(super) nonce: String,
    pub(super) timeout: Duration,
    /// How long a forwarded request may wait for the server's answer.
    pub(super) call_timeout: Duration,
    pub(super) sandboxed: bool,
    /// Said with "exited before answering" when the server ran with no network at all: the
    /// likeliest reason a server that fetches itself first (`npx -y …`) never answers.
    pub(super) gone_hint: String,
    /// The proxy that serves the server's `network.allow` (it lives as long as the server): its
    /// refusals are said with "exited before answering".
    pub(super) net: Option<wicket::net::NetRun>,
    /// Why the last line for the server could not be passed on.
    pub(super) not_sent: String,
    /// The `tools/call`s owed a decision, each denied by the deadline if the relay stalls.
    pub(super) owed: Arc<Owed<Value>>,
    /// The `tools/call` being handled, when it came with a deadline.
    pub(super) ticket: Option<Ticket>,
}

/// The key an id is tracked under: its JSON text (so `1` and `"1"` differ).
pub(super) fn id_key(id: &Value) -> String {
    id.to_string()
}

impl Gateway {
    /// Relay until the client or the server is gone.
    pub(super) fn relay(&mut self) {
        loop {
            let next_deadline = self
                .held
                .values()
                .filter_map(|h| h.elicitation.as_ref().map(|(_, d)| *d))
                .chain(self.forwarded.values().map(|f| f.deadline))
                .min();
            // Due first: a busy stream must not keep a deadline from ever firing.
            if next_deadline.is_some_and(|d| d <= Instant::now()) {
                self.expire();
                continue;
            }
            let event = match next_deadline {
                Some(d) => match self.rx.recv_timeout(d.saturating_duration_since(Instant::now())) {
                    Ok(e) => e,
                    Err(RecvTimeoutError::Timeout) => {
                        self.expire();
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => return,
                },
                None => match self.rx.recv() {
                    Ok(e) => e,
                    Err(_) => return,
                },
            };
            match event {
                Event::Client(Some(line), ticket) => {
                    self.ticket = ticket;
                    self.client_line(line);
                    // Answered on some path that did not claim it (an id in use): owed no more.
                    if let Some(t) = self.ticket.take() {
                        let _ = self.owed.settle(t, |()| ());
                    }
                    self.owed.stage("waiting for the next message");
                }
                Event::Client(None, _) => {
                    self.client_gone("the client closed its input");
                    return;
                }
                Event::Server(Some(line)) => self.server_line(line),
                Event::Server(None) => {
                    self.server_gone();
                    return;
                }
                Event::Tty(key, answer) => self.answered(key, answer),
            }
            if !self.client_open {
                return;
            }
        }
    }

    /// After the relay: wait up to `limit` for the server to close its output, passing on
    /// the answers it still owes a client that only closed its input.
    pub(super) fn server_done_within(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while !self.server_closed {
            match self.rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(Event::Server(None)) | Err(RecvTimeoutError::Disconnected) => self.server_gone(),
                Ok(Event::Server(Some(line))) => self.server_line(line),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => return false,
            }
        }
        true
    }

    fn write_client(&mut self, bytes: &[u8]) {
        if !self.client_writable {
            return;
        }
        let mut out = std::io::stdout().lock();
        let ok = out.write_all(bytes).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush());
        if ok.is_err() {
            drop(out);
            self.client_writable = false;
            if self.client_open {
                self.client_gone("the client stopped reading");
            }
        }
    }

    fn send_client(&mut self, v: &Value) {
        self.write_client(v.to_string().as_bytes());
    }

    /// Pass a line to the server (queued for its writer thread); false, with a note for the
    /// client in [`Gateway::not_sent`], when it cannot take it.
    fn write_server(&mut self, bytes: &[u8]) -> bool {
        let Some(w) = self.to_server.as_ref() else {
            self.not_sent = format!("the MCP server {:?} is not running", self.name);
            return false;
        };
        match w.send(bytes) {
            Ok(()) => true,
            Err(Unsent::Closed) => {
                // The server is gone; its closed output ends the relay.
                self.to_server = None;
                self.not_sent = format!("the MCP server {:?} is not running", self.name);
                false
            }
            Err(Unsent::Full(n)) => {
                self.not_sent = format!(
                    "the MCP server {:?} is not reading its input ({n} bytes wait for it); wicket did not forward this",
                    self.name
                );
                false
            }
        }
    }

    fn record(&mut self, call: Option<&ToolCall>, raw: &str, verdict: Verdict) -> Verdict {
        match call {
            Some(call) => self.gate.record(call, verdict),
            None => self.gate.record_input(raw, verdict),
        }
    }

    // ---- from the client ----

    fn client_line(&mut self, line: Line) {
        let bytes = match line {
            Ok(b) => b,
            Err(e) => {
                self.send_client(&error(Value::Null, PARSE_ERROR, &format!("wicket could not read the message: {e}")));
                return;
            }
        };
        // Denied by the deadline while it waited behind a stall: recorded, not decided again.
        if let Some(why) = self.ticket.and_then(|t| self.owed.late(t)) {
            let raw = String::from_utf8_lossy(&bytes).into_owned();
            self.owed.stage("writing the audit line");
            self.record(None, &raw, Verdict::deny(By::Input, why));
            return;
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let msg: Value = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => {
                self.send_client(&error(Value::Null, PARSE_ERROR, &format!("not a JSON message: {e}")));
                return;
            }
        };
        let obj = match msg {
            Value::Object(o) => o,
            Value::Array(items) => {
                // MCP dropped batches (2025-06-18); none is forwarded, so no call slips through.
                let mut answered = false;
                for item in items {
                    if let Some(id) = item.get("id").filter(|i| is_mcp_id(i) && item.get("method").is_some()) {
                        self.send_client(&error(
                            id.clone(),
                            INVALID_REQUEST,
                            "wicket mcp does not accept JSON-RPC batches; send one message a line",
                        ));
                        answered = true;
                    }
                }
                if !answered {
                    self.send_client(&error(
                        Value::Null,
                        INVALID_REQUEST,
                        "wicket mcp does not accept JSON-RPC batches; send one message a line",
                    ));
                }
                return;
            }
            _ => {
                self.send_client(&error(Value::Null, INVALID_REQUEST, "expected a JSON-RPC 2.0 message (an object)"));
                return;
            }
        };
        let id = obj.get("id").cloned();
        let reply_id = id.clone().filter(is_mcp_id).unwrap_or(Value::Null);
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            self.send_client(&error(reply_id, INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\""));
            return;
        }
        match obj.get("method") {
            Some(Value::String(method)) => {
                let method = method.clone();
                match id {
                    None => self.client_notification(&method, &obj, bytes),
                    Some(id) if is_mcp_id(&id) => self.client_request(id, &method, &obj, bytes),
                    Some(_) => {
                        self.send_client(&error(Value::Null, INVALID_REQUEST, "\"id\" must be a string or an integer"))
                    }
                }
            }
            Some(_) => self.send_client(&error(reply_id, INVALID_REQUEST, "\"method\" must be a string")),
            None => {
                let is_response =
                    id.as_ref().is_some_and(is_mcp_id) && (obj.contains_key("result") != obj.contains_key("error"));
                match id {
                    Some(id) if is_response => self.client_response(&id, &obj, bytes),
                    _ => self.send_client(&error(
                        reply_id,
                        INVALID_REQUEST,
                        "expected a request, a notification or a response",
                    )),
                }
            }
        }
    }

    fn client_notification(&mut self, method: &str, obj: &serde_json::Map<String, Value>, bytes: Vec<u8>) {
        match method {
            "tools/call" => {
                // Nobody could be told the answer; it is never forwarded.
                let raw = String::from_utf8_lossy(&bytes).into_owned();
                self.record(
                    None,
                    &raw,
                    Verdict::deny(By::Input, "a tools/call without an id (a notification) is never forwarded"),
                );
                eprintln!("wicket: dropped a tools/call without an id");
            }
            "notifications/cancelled" => {
                let target = obj.get("params").and_then(|p| p.get("requestId")).map(id_key);
                let held =
                    target.as_ref().and_then(|k| self.held.iter().find(|(_, h)| id_key(&h.id) == *k).map(|(n, _)| *n));
                match held {
                    Some(n) => {
                        // The server never saw the call: the cancellation ends it here.
                        if let Some(h) = self.held.remove(&n) {
                            if let Some((e, _)) = &h.elicitation {
                                self.elicitations.remove(e);
                            }
                            let v = Verdict::deny(
                                By::User,
                                format!(
                                    "the client cancelled the call before it was decided: {}",
                                    h.pending.verdict().reason
                                ),
                            );
                            self.record(Some(h.pending.call()), "", v);
                        }
                    }
                    None => {
                        self.write_server(&bytes);
                    }
                }
            }
            _ => {
                self.write_server(&bytes);
            }
        }
    }

    fn client_request(&mut self, id: Value, method: &str, obj: &serde_json::Map<String, Value>, bytes: Vec<u8>) {
        let key = id_key(&id);
        if self.forwarded.contains_key(&key) || self.held.values().any(|h| id_key(&h.id) == key) {
            self.send_client(&error(id, INVALID_REQUEST, "this id is already in use by a request in flight"));
            return;
        }
        if self.abandoned.contains(&key) {
            self.send_client(&error(
                id,
                INVALID_REQUEST,
                "this id belongs to a request that timed out and the MCP server has not answered yet; use another id",
            ));
            return;
        }
        match method {
            "tools/call" => self.tools_call(id, obj, bytes),
            _ => {
                if method == "initialize" {
                    let e = obj.get("params").and_then(|p| p.get("capabilities")).and_then(|c| c.get("elicitation"));
                    // `{}` (before modes existed) or a `form` mode: the client can show a form.
                    self.elicitation = match e {
                        Some(Value::Object(m)) => m.is_empty() || m.contains_key("form"),
                        _ => false,
                    };
                }
                let kind = match method {
                    "initialize" => Kind::Initialize,
                    "tools/list" => Kind::ToolsList,
                    _ => Kind::Other,
                };
                self.forward(key, &id, kind);
                if !self.write_server(&bytes) {
                    self.forwarded.remove(&id_key(&id));
                    let why = self.not_sent.clone();
                    self.send_client(&error(id, INTERNAL_ERROR, &why));
                }
            }
        }
    }

    fn client_response(&mut self, id: &Value, obj: &serde_json::Map<String, Value>, bytes: Vec<u8>) {
        let key = id_key(id);
        if let Some(n) = self.elicitations.remove(&key) {
            let answer = self.elicitation_answer(n, obj);
            self.answered(n, answer);
            return;
        }
        if let Some(original) = self.remapped.remove(&key) {
            let mut fixed = obj.clone();
            fixed.insert("id".into(), original);
            self.write_server(Value::Object(fixed).to_string().as_bytes());
            return;
        }
        if self.server_requests.remove(&key).is_some() {
            self.write_server(&bytes);
            return;
        }
        eprintln!("wicket: dropped a response from the client to no request in flight (id {key})");
    }

    /// Decide a `tools/call`: forward it (allow), answer it with a tool error (deny), or hold
    /// it and ask.
    fn tools_call(&mut self, id: Value, obj: &serde_json::Map<String, Value>, bytes: Vec<u8>) {
        let params = obj.get("params");
        let raw = params.map(Value::to_string).unwrap_or_default();
        let tool = params.and_then(|p| p.get("name")).and_then(Value::as_str).filter(|t| !t.is_empty());
        let args = match params.and_then(|p| p.get("arguments")) {
            None | Some(Value::Null) => Some(json!({})),
            Some(a @ Value::Object(_)) => Some(a.clone()),
            Some(_) => None,
        };
        let (Some(tool), Some(args)) = (tool, args) else {
            self.record(
                None,
                &raw,
                Verdict::deny(By::Input, "a tools/call without a tool name, or whose arguments are not an object"),
            );
            self.send_client(&error(
                id,
                INVALID_PARAMS,
                "tools/call needs params {\"name\": \"…\", \"arguments\": {…}}; wicket did not forward it",
            ));
            return;
        };
        let mut call = ToolCall::new(format!("mcp__{}__{tool}", self.name), args);
        call.call_id = Some(match &id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        self.owed.stage("deciding");
        match self.gate.decide(&call) {
            Step::Done(verdict) => {
                self.owed.stage("writing the audit line");
                let v = self.record(Some(&call), &raw, verdict);
                if self.claim(&call, &raw, &v) {
                    self.finish(id, bytes, v);
                }
            }
            // From here the person's time counts, bounded by the approval timeout.
            Step::Ask(pending) => {
                if self.claim(&call, &raw, pending.verdict()) {
                    self.ask(id, bytes, pending);
                }
            }
        }
    }

    /// Take the `tools/call` being handled from the deadline: false when the deadline denied
    /// it first (then it is neither answered nor forwarded here, and a recorded allow is
    /// followed by the deny the client got).
    fn claim(&mut self, call: &ToolCall, raw: &str, v: &Verdict) -> bool {
        let Some(t) = self.ticket.take() else { return true };
        match self.owed.settle(t, |()| ()) {
            Ok(()) => true,
            Err(why) => {
                if v.decision == Decision::Allow {
                    self.record(
                        Some(call),
                        raw,
                        Verdict::deny(By::Input, format!("{why}; the deadline answered first")),
                    );
                }
                false
            }
        }
    }

    /// Forward an allowed call, answer a denied one with a tool error.
    fn finish(&mut self, id: Value, bytes: Vec<u8>, v: Verdict) {
        if v.decision == Decision::Allow {
            self.forward(id_key(&id), &id, Kind::ToolsCall);
            if !self.write_server(&bytes) {
                self.forwarded.remove(&id_key(&id));
                let why = self.not_sent.clone();
                self.send_client(&error(id, INTERNAL_ERROR, &why));
            }
            return;
        }
        let text = crate::hook_core::reason_for(&v);
        self.send_client(&tool_error(id, &text));
    }

    fn ask(&mut self, id: Value, bytes: Vec<u8>, pending: Pending) {
        let mut question = pending.question(self.sandboxed);
        // A relative path is the server's, whose folder is the root.
        let root = self.gate.policy().root().to_path_buf();
        question.change = approver::change_of(pending.call(), |p| approver::read_for_showing(&root.join(p)));
        let key = self.next_own;
        self.next_own += 1;
        let size = question.tool.len() + question.what.len() + question.reason.len();
        if size > approver::MAX_QUESTION_BYTES {
            let v = Verdict::deny(
                By::Input,
                format!("the call is too large to show a person ({size} bytes): {}", pending.verdict().reason),
            );
            let v = self.record(Some(pending.call()), "", v);
            self.finish(id, bytes, v);
            return;
        }
        if self.elicitation && self.client_open {
            let own = self.own_id();
            let params = elicitation_params(&self.name, &question);
            let request = jsonrpc::request(own.clone(), "elicitation/create", params);
            let deadline = Instant::now() + self.timeout;
            self.elicitations.insert(id_key(&own), key);
            self.held.insert(key, Held { id, line: bytes, pending, elicitation: Some((id_key(&own), deadline)) });
            self.send_client(&request);
            return;
        }
        if let Some(tty) = &self.tty {
            if tty.send((key, question)).is_ok() {
                self.held.insert(key, Held { id, line: bytes, pending, elicitation: None });
                return;
            }
            self.tty = None;
        }
        let v = pending.unanswered("nobody can be asked (no terminal, and the client does not support elicitation)");
        let v = self.record(Some(pending.call()), "", v);
        self.finish(id, bytes, v);
    }

    /// An id for the gateway's own request to the client, unlike any server request in flight.
    fn own_id(&mut self) -> Value {
        loop {
            let id = Value::String(format!("wicket-{}-{}", self.nonce, self.next_own));
            self.next_own += 1;
            if !self.server_requests.contains_key(&id_key(&id)) {
                return id;
            }
        }
    }

    fn elicitation_answer(&self, n: u64, obj: &serde_json::Map<String, Value>) -> Answer {
        let Some(held) = self.held.get(&n) else { return Answer::Deny };
        let result = obj.get("result");
        if result.and_then(|r| r.get("action")).and_then(Value::as_str) != Some("accept") {
            return Answer::Deny;
        }
        let choice = result.and_then(|r| r.get("content")).and_then(|c| c.get("decision")).and_then(Value::as_str);
        held.pending.answer_word(choice.unwrap_or("deny"))
    }

    /// The person's answer to a held call.
    fn answered(&mut self, n: u64, answer: Answer) {
        let Some(h) = self.held.remove(&n) else { return };
        if let Some((e, _)) = &h.elicitation {
            self.elicitations.remove(e);
        }
        let v = self.gate.answer(&h.pending, answer);
        let v = self.record(Some(h.pending.call()), "", v);
        self.finish(h.id, h.line, v);
    }

    /// Track a client request about to be written to the server, with its deadline.
    fn forward(&mut self, key: String, id: &Value, kind: Kind) {
        let deadline = Instant::now() + self.call_timeout;
        self.forwarded.insert(key, Forwarded { id: id.clone(), kind, deadline });
    }

    /// Deny the held calls whose elicitation timed out, and answer the forwarded requests the
    /// server did not answer in time with an error.
    fn expire(&mut self) {
        let now = Instant::now();
        let late: Vec<String> =
            self.forwarded.iter().filter(|(_, f)| f.deadline <= now).map(|(k, _)| k.clone()).collect();
        for key in late {
            let Some(f) = self.forwarded.remove(&key) else { continue };
            let why = format!(
                "the MCP server {:?} did not answer within {:?}; wicket gave up on the request (--call-timeout)",
                self.name, self.call_timeout
            );
            // MCP: a request that timed out is cancelled (never `initialize`); a server that
            // answers anyway has its answer dropped.
            if f.kind != Kind::Initialize {
                let cancel =
                    jsonrpc::notification("notifications/cancelled", json!({"requestId": f.id, "reason": why}));
                self.write_server(cancel.to_string().as_bytes());
            }
            self.abandoned.insert(key);
            self.send_client(&error(f.id, REQUEST_TIMEOUT, &why));
        }
        let due: Vec<u64> = self
            .held
            .iter()
            .filter(|(_, h)| h.elicitation.as_ref().is_some_and(|(_, d)| *d <= now))
            .map(|(n, _)| *n)
            .collect();
        for n in due {
            let Some(h) = self.held.remove(&n) else { continue };
            if let Some((e, _)) = &h.elicitation {
                self.elicitations.remove(e);
            }
            let v = h.pending.unanswered(&format!("nobody answered the question in {:?}", self.timeout));
            let v = self.record(Some(h.pending.call()), "", v);
            self.finish(h.id, h.line, v);
        }
    }

    fn client_gone(&mut self, why: &str) {
        self.client_open = false;
        for (_, h) in std::mem::take(&mut self.held) {
            let v = Verdict::deny(
                By::Unattended,
                format!("{why} before the call was decided: {}", h.pending.verdict().reason),
            );
            self.record(Some(h.pending.call()), "", v);
        }
        self.elicitations.clear();
    }

    // ---- from the server ----

    fn server_line(&mut self, line: Line) {
        let bytes = match line {
            Ok(b) => b,
            Err(e) => {
                eprintln!("wicket: dropped output of the MCP server {:?}: {e}", self.name);
                return;
            }
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(obj)) => self.server_message(obj, bytes),
            Ok(Value::Array(items)) => {
                for item in items {
                    if let Value::Object(obj) = item {
                        let b = Value::Object(obj.clone()).to_string().into_bytes();
                        self.server_message(obj, b);
                    }
                }
            }
            Ok(_) | Err(_) => {
                let shown: String = String::from_utf8_lossy(&bytes).chars().take(200).collect();
                eprintln!(
                    "wicket: dropped a line from the MCP server {:?} that is not a JSON-RPC message: {shown}",
                    self.name
                );
            }
        }
    }

    fn server_message(&mut self, obj: serde_json::Map<String, Value>, bytes: Vec<u8>) {
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            eprintln!("wicket: dropped a message from the MCP server {:?} without \"jsonrpc\": \"2.0\"", self.name);
            return;
        }
        let id = obj.get("id").cloned();
        match (obj.get("method"), id) {
            (Some(Value::String(_)), None) => self.write_client(&bytes),
            (Some(Value::String(_)), Some(id)) if is_mcp_id(&id) => {
                let key = id_key(&id);
                if self.elicitations.contains_key(&key) || self.remapped.contains_key(&key) {
                    // The server chose an id the client already knows from the gateway: give
                    // the client another, and the server its own back in the answer.
                    let own = self.own_id();
                    self.remapped.insert(id_key(&own), id);
                    let mut fixed = obj;
                    fixed.insert("id".into(), own);
                    self.send_client(&Value::Object(fixed));
                } else {
                    self.server_requests.insert(key, ());
                    self.write_client(&bytes);
                }
            }
            (None, Some(id)) if is_mcp_id(&id) && (obj.contains_key("result") != obj.contains_key("error")) => {
                let key = id_key(&id);
                match self.forwarded.remove(&key).map(|f| f.kind) {
                    Some(Kind::ToolsList) => match self.filter_tools(&obj) {
                        Some(filtered) => self.send_client(&filtered),
                        None => self.write_client(&bytes),
                    },
                    Some(_) => self.write_client(&bytes),
                    // The client had its timeout error; this answer is for nobody now.
                    None if self.abandoned.remove(&key) => eprintln!(
                        "wicket: dropped the late answer of the MCP server {:?} to a request that timed out (id {key})",
                        self.name
                    ),
                    None => eprintln!(
                        "wicket: dropped a response from the MCP server {:?} to no request in flight (id {key})",
                        self.name
                    ),
                }
            }
            _ => eprintln!("wicket: dropped a malformed message from the MCP server {:?}", self.name),
        }
    }

    /// The `tools/list` response without the tools a deny rule removes entirely; `None` when
    /// nothing is hidden (the original bytes go on).
    fn filter_tools(&self, obj: &serde_json::Map<String, Value>) -> Option<Value> {
        let tools = obj.get("result")?.get("tools")?.as_array()?;
        let hidden = |t: &Value| {
            t.get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| self.gate.policy().denies_whole_tool(&format!("mcp__{}__{n}", self.name)).is_some())
        };
        if !tools.iter().any(hidden) {
            return None;
        }
        let kept: Vec<Value> = tools.iter().filter(|t| !hidden(t)).cloned().collect();
        let mut out = obj.clone();
        if let Some(Value::Object(r)) = out.get_mut("result") {
            r.insert("tools".into(), Value::Array(kept));
        }
        Some(Value::Object(out))
    }

    /// What the proxy refused the server, for a client that never sees the gateway's stderr
    /// (where each refusal is also printed when the session ends): a server that could not
    /// fetch itself names the host and the way to allow it.
    fn refusals(&self) -> String {
        const SHOWN: usize = 3;
        let Some(net) = &self.net else { return String::new() };
        let blocked = net.blocked();
        if blocked.is_empty() {
            return String::new();
        }
        let mut text = String::from("; its network goes only to network.allow, and the sandbox refused it ");
        let shown: Vec<String> = blocked.iter().take(SHOWN).map(|b| b.to_string().replace(['\r', '\n'], " ")).collect();
        text.push_str(&shown.join("; "));
        if blocked.len() > SHOWN {
            text.push_str(&format!("; and {} more", blocked.len() - SHOWN));
        }
        text.push_str("; or pass --network to give the server the whole network");
        text
    }

    /// The server closed its output: every request it did not answer gets an error.
    fn server_gone(&mut self) {
        self.to_server = None;
        self.server_closed = true;
        let why =
            format!("the MCP server {:?} exited before answering{}{}", self.name, self.gone_hint, self.refusals());
        for (_, f) in std::mem::take(&mut self.forwarded) {
            self.send_client(&error(f.id, INTERNAL_ERROR, &why));
        }
        self.abandoned.clear();
        for (_, h) in std::mem::take(&mut self.held) {
            let v = Verdict::deny(By::Policy, format!("{why}: {}", h.pending.verdict().reason));
            self.record(Some(h.pending.call()), "", v);
            self.send_client(&error(h.id, INTERNAL_ERROR, &why));
        }
        self.elicitations.clear();
    }
}

/// The form the client shows the person: what the call is, why wicket asks, and the choices
/// (`always` only when a rule can be offered, and the rule shown).
pub(super) fn elicitation_params(server: &str, q: &Question) -> Value {
    let what = approver::escape_inline(&cut(&q.what, approver::MAX_SHOWN_CHARS));
    let mut message = format!(
        "wicket: the MCP server {server:?} wants to run the tool {}\n\nwith: {what}\n\nWhy you are asked: {}",
        approver::escape_inline(&q.tool),
        approver::escape_inline(&q.reason)
    );
    if let Some(c) = &q.change {
        let what = if c.old_text.is_some() { "The change to" } else { "The new file" };
        message.push_str(&format!("\n\n{what} {}:", approver::escape_inline(&c.path)));
        for line in c.unified_diff(approver::MAX_SHOWN_LINES) {
            message.push_str(&format!("\n{}", approver::escape_inline(&line)));
        }
    }
    let (mut values, mut names) =
        (vec!["once", "session"], vec!["Yes, once".to_string(), "Yes, for this session".to_string()]);
    if let Some(rule) = &q.always {
        let shown = approver::escape_inline(&rule.to_string());
        message.push_str(&format!("\n\n\"Always\" allows, for this session: {shown}"));
        values.push("always");
        names.push(format!("Always: {shown}"));
    }
    values.push("deny");
    names.push("No".to_string());
    json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {"decision": {
                "type": "string",
                "title": "Allow this call?",
                "enum": values,
                "enumNames": names,
            }},
            "required": ["decision"],
        },
    })
}

pub(super) fn cut(s: &str, max: usize) -> String {
    match wicket_policy::text::cut(s, max) {
        (all, 0) => all.to_string(),
        (head, more) => format!("{head}… ({more} more characters)"),
    }
}
