//! `wicket check` and `wicket explain`: decide tool calls read from stdin.

use std::io::{BufWriter, Stdout, Write};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use wicket::config::{self, Overrides};
use wicket::gate::{Gate, Opening};
use wicket_policy::{Mode, ToolCall, Trace, Verdict};

use crate::owed::{Owed, Ticket};

/// The flags of `check` and `explain` (a public contract: add, never change).
#[derive(Args)]
pub struct CheckArgs {
    /// The project root (default: the nearest folder at or above the current one that holds `.wicket` or `.git`, else the current folder).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The permission mode.
    #[arg(long, value_parser = parse_mode)]
    pub mode: Option<Mode>,
    /// Nobody can be asked: calls that would ask are denied.
    #[arg(long)]
    pub unattended: bool,
    /// Judge commands as if no OS sandbox were available.
    #[arg(long)]
    pub no_sandbox: bool,
    /// The commands will run in wicket's OS sandbox (`wicket run`, `serve`'s `run`): judge
    /// them so. Without it a command is judged as run on the host, by the caller, unless its
    /// input says `"outside_sandbox": false`.
    #[arg(long, conflicts_with = "no_sandbox")]
    pub sandboxed: bool,
    #[command(flatten)]
    pub rules: crate::flags::RuleFlags,
    /// Read one call per line and print one decision per line, in order.
    #[arg(long)]
    pub jsonl: bool,
    /// Do not write the audit log.
    #[arg(long)]
    pub no_audit: bool,
}

pub fn parse_mode(s: &str) -> Result<Mode, String> {
    s.parse().map_err(|e: wicket_policy::mode::ModeError| e.to_string())
}

/// The project root for a command run here: `--root` as given, else found from the current
/// folder ([`config::project_root`]), with how it was found.
pub fn project_root(root: Option<&std::path::Path>) -> Result<(PathBuf, config::RootFrom)> {
    let here = std::env::current_dir().context("cannot read the current folder")?;
    Ok(config::project_root(root, &here)?)
}

/// The gate `check` decides with (and `serve`, which shares its flags): the settings for the
/// root, the flags as overrides, the project's audit log unless `no_audit`.
/// With `place`, where commands run is decided next to it ([`wicket::gate::place`]).
pub fn open_gate(args: &CheckArgs, opening: Opening, place: bool) -> Result<(Gate, config::Loaded)> {
    let root = crate::check_cmd::project_root(args.root.as_deref())?.0;
    let loaded = config::load(&root)?;
    // Never asks (a non-interactive contract): unconsented project parts are dropped, and the
    // notices go to stderr; stdout carries only decisions.
    loaded.print_notices();
    let overrides = args.rules.apply(Overrides {
        mode: args.mode,
        unattended: args.unattended,
        no_sandbox: args.no_sandbox,
        ..Overrides::default()
    });
    let no_audit = args.no_audit || opening.no_audit;
    let placement = if place { Some(wicket::gate::place(&loaded, args.no_sandbox)?) } else { opening.placement };
    let mut gate = Gate::open(&root, &loaded, Opening { overrides, no_audit, placement, ..opening })?;
    gate.on_notice(|n| eprintln!("wicket: {n}"));
    Ok((gate, loaded))
}

fn parse_call(text: &str, sandboxed: bool) -> Result<ToolCall> {
    let call: ToolCall = serde_json::from_str(text)
        .context("the input is not a tool call: expected {\"tool\": \"…\", \"input\": {…}}")?;
    // `Bash`, `run_shell_command` …: another agent's name for one of wicket's tools.
    let mut call = wicket::agents::in_wicket_words(call, || std::env::current_dir().unwrap_or_default());
    if !sandboxed {
        on_the_host(&mut call);
    }
    Ok(call)
}

/// A command whose caller does not say where it runs is judged as run on the host: whoever
/// asks `check` or `serve`'s `decide` runs the command itself, outside wicket's sandbox, so
/// "the sandbox contains it" must not allow it. `"outside_sandbox": false` in the input (or
/// `check --sandboxed`) says it will run in wicket's sandbox.
pub fn on_the_host(call: &mut ToolCall) {
    if call.tool == "bash" {
        if let serde_json::Value::Object(input) = &mut call.input {
            input.entry("outside_sandbox").or_insert(serde_json::Value::Bool(true));
        }
    }
}

/// The wire form of a verdict: the contract's fields in their documented order.
#[derive(serde::Serialize)]
struct VerdictOut<'a> {
    decision: &'a str,
    by: &'a str,
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'a str>,
    kind: &'a str,
    /// `--jsonl` only: why the line is not a tool call (it is denied by `input`).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    /// `--jsonl` only, with `error`: the line's number in the input, counting from 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
}

fn verdict_json(v: &Verdict) -> VerdictOut<'_> {
    VerdictOut {
        decision: v.decision.as_str(),
        by: v.by.as_str(),
        reason: &v.reason,
        rule: v.rule.as_deref(),
        kind: &v.kind,
        error: None,
        line: None,
    }
}

/// An input line longer than this is not read as a call (denied, answered, and the stream
/// goes on); a call this long is far over the policy's input limit anyway.
const MAX_LINE: usize = 4 * 1024 * 1024;

/// What one `--jsonl` line is.
enum Judged {
    /// Only blanks: skipped, no answer (as `serve` and `mcp` skip them).
    Blank,
    /// A tool call, its text and its verdict.
    Call(ToolCall, String, Verdict),
    /// Not a tool call: its text (as far as it can be shown) and why.
    Broken(String, String),
}

fn judge_line(gate: &Gate, line: crate::lines::Line, sandboxed: bool) -> Judged {
    let bytes = match line {
        Ok(b) => b,
        Err(e) => return Judged::Broken(String::new(), format!("{e}; it was not read")),
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let raw = String::from_utf8_lossy(e.as_bytes()).into_owned();
            return Judged::Broken(raw, format!("the line is not UTF-8 text ({})", e.utf8_error()));
        }
    };
    if text.trim().is_empty() {
        return Judged::Blank;
    }
    match parse_call(&text, sandboxed) {
        Ok(call) => {
            // The engine's verdict as it is, an ask included: no question is made (a
            // question's "always" rule would look at the disk a second time for nothing).
            let v = gate.peek(&call);
            Judged::Call(call, text, v)
        }
        Err(e) => Judged::Broken(text, format!("{e:#}")),
    }
}

/// A line of `--jsonl` input as the reader passes it on: its number, the line (blank lines are
/// not passed), and its deadline.
type Numbered = (u64, crate::lines::Line, Ticket);

/// What the reader passes on at once: the lines that arrived together, or why stdin could not
/// be read.
type Batch = Result<Vec<Numbered>, anyhow::Error>;

/// The most lines passed on at once.
const BATCH_LINES: usize = 256;

/// How many lines the reader may have passed on that the deciding thread has not taken: as
/// many as before batches (a channel of 1,024 lines), so a driver that writes one line at a
/// time still gets that many answered by the deadline while wicket is stuck; and no more, as
/// a line's clock starts when it is read (reading far ahead would spend lines' deadlines on
/// waiting in line).
const MAX_AHEAD: usize = 1024;

/// The lines passed on and not yet taken ([`MAX_AHEAD`]). The reader waits here only when it
/// is that far ahead, and the deciding thread wakes it only then: no hand-off per line.
#[derive(Default)]
struct Ahead {
    lines: std::sync::Mutex<usize>,
    room: std::sync::Condvar,
}

impl Ahead {
    fn lock(&self) -> std::sync::MutexGuard<'_, usize> {
        // A count stays valid whatever panicked while holding it.
        self.lines.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The reader passed on `n` lines: wait while [`MAX_AHEAD`] or more are not taken.
    fn passed(&self, n: usize) {
        let mut lines = self.lock();
        *lines += n;
        while *lines >= MAX_AHEAD {
            lines = self.room.wait(lines).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    /// The deciding thread took `n` lines.
    fn taken(&self, n: usize) {
        let mut lines = self.lock();
        let was = *lines;
        *lines = was.saturating_sub(n);
        if was >= MAX_AHEAD && *lines < MAX_AHEAD {
            self.room.notify_one();
        }
    }
}

/// The reader of `check --jsonl`: numbers the lines and starts their deadlines as it reads
/// them, and passes them on a batch at a time, so a stream costs one hand-off per batch, not
/// one per line. A batch goes as soon as the next line is not all in hand (the driver may be
/// waiting for these answers before it writes more).
fn read_lines<S>(input: impl std::io::Read, owed: &Owed<u64, S>, tx: &std::sync::mpsc::Sender<Batch>, ahead: &Ahead) {
    let mut input = std::io::BufReader::with_capacity(64 * 1024, input);
    let mut batch: Vec<(u64, crate::lines::Line)> = Vec::new();
    let pass_on = |batch: &mut Vec<(u64, crate::lines::Line)>| -> bool {
        if batch.is_empty() {
            return true;
        }
        let lines = std::mem::take(batch);
        let count = lines.len();
        let tickets = owed.owe_all(lines.iter().map(|(n, _)| *n));
        let numbered = lines.into_iter().zip(tickets).map(|((n, line), t)| (n, line, t)).collect();
        if tx.send(Ok(numbered)).is_err() {
            return false;
        }
        ahead.passed(count);
        true
    };
    for n in 1u64.. {
        let whole_line_in_hand = input.buffer().contains(&b'\n');
        if (batch.len() >= BATCH_LINES || !whole_line_in_hand) && !pass_on(&mut batch) {
            return;
        }
        // Capped: an over-long line is thrown away as it is read, and answered in turn.
        match crate::lines::read_line(&mut input, MAX_LINE) {
            Ok(None) => {
                pass_on(&mut batch);
                return;
            }
            Ok(Some(Ok(b))) if std::str::from_utf8(&b).is_ok_and(|t| t.trim().is_empty()) => {}
            Ok(Some(line)) => batch.push((n, line)),
            Err(e) => {
                if pass_on(&mut batch) {
                    let _ = tx.send(Err(anyhow::Error::from(e).context(format!("cannot read line {n} of stdin"))));
                }
                return;
            }
        }
    }
}

/// `check --jsonl`: a reader thread numbers the lines and starts each one's deadline as it is
/// read ([`read_lines`]); this thread decides them in order. A line not answered within the
/// deadline (a stall here: the file system, the audit lock) is denied by the deadline in its
/// place, and lines read meanwhile behind it too, so the driver gets every answer in time and
/// in order. The watchdog wakes only when an answer is due, not per line.
fn check_lines(gate: &mut Gate, out: BufWriter<Stdout>, sandboxed: bool) -> Result<()> {
    let owed = Owed::start(crate::hook_core::deadline(), out, |out: &mut BufWriter<Stdout>, n: u64, why: &str| {
        let v = Verdict::deny(wicket_policy::By::Input, why);
        let mut shown = verdict_json(&v);
        shown.error = Some(why);
        shown.line = Some(n);
        let written = serde_json::to_writer(&mut *out, &shown).map_err(std::io::Error::from);
        if written.and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush()).is_err() {
            eprintln!("wicket: cannot write the late answer to line {n}");
        }
    });
    let owed = std::sync::Arc::new(owed);
    let (tx, rx) = std::sync::mpsc::channel::<Batch>();
    let ahead = std::sync::Arc::new(Ahead::default());
    let (reader_owed, reader_ahead) = (std::sync::Arc::clone(&owed), std::sync::Arc::clone(&ahead));
    std::thread::spawn(move || read_lines(std::io::stdin().lock(), &reader_owed, &tx, &reader_ahead));
    let flush = |owed: &Owed<u64, BufWriter<Stdout>>| owed.with_sink(|o| o.flush());
    loop {
        owed.stage("waiting for the next line");
        let batch = match rx.try_recv() {
            Ok(batch) => batch,
            // Nothing more yet: give up the audit lock and show the answers so far, so neither
            // another process nor the driver waits on a reader that waits.
            Err(std::sync::mpsc::TryRecvError::Empty) => {
                gate.idle();
                flush(&owed)?;
                match rx.recv() {
                    Ok(batch) => batch,
                    Err(_) => break,
                }
            }
            Err(std::sync::mpsc::TryRecvError::Disconnected) => break,
        };
        let batch = batch?;
        ahead.taken(batch.len());
        for (n, line, ticket) in batch {
            answer_line(gate, &owed, n, line, ticket, sandboxed)?;
        }
    }
    gate.idle();
    flush(&owed)?;
    Ok(())
}

/// Decide one line of `check --jsonl`, record it and answer it, unless the deadline answered
/// it first.
fn answer_line(
    gate: &mut Gate,
    owed: &Owed<u64, BufWriter<Stdout>>,
    n: u64,
    line: crate::lines::Line,
    ticket: Ticket,
    sandboxed: bool,
) -> Result<()> {
    // Denied by the deadline while it waited behind a stall: recorded, not decided again.
    let judged = match owed.late(ticket) {
        Some(why) => {
            let raw = match &line {
                Ok(b) => String::from_utf8_lossy(b).into_owned(),
                Err(_) => String::new(),
            };
            Judged::Broken(raw, why)
        }
        None => {
            owed.stage("deciding");
            judge_line(gate, line, sandboxed)
        }
    };
    let (call, raw, verdict, error) = match judged {
        Judged::Blank => return Ok(()),
        Judged::Call(call, raw, v) => (Some(call), raw, v, None),
        Judged::Broken(raw, e) => {
            let v = Verdict::deny(wicket_policy::By::Input, format!("line {n}: {e}"));
            (None, raw, v, Some(e))
        }
    };
    owed.stage("writing the audit line");
    let verdict = record(gate, call.as_ref(), &raw, verdict);
    let mut shown = verdict_json(&verdict);
    if let Some(e) = &error {
        shown.error = Some(e);
        shown.line = Some(n);
    }
    let answered = owed.settle(ticket, |out| -> Result<()> {
        serde_json::to_writer(&mut *out, &shown)?;
        out.write_all(b"\n")?;
        Ok(())
    });
    match answered {
        Ok(r) => r?,
        // The deadline answered first: the log says so when it recorded anything else.
        Err(why) => {
            if verdict.decision != wicket_policy::Decision::Deny {
                let fixed = Verdict::deny(wicket_policy::By::Input, format!("{why}; the deadline answered first"));
                record(gate, call.as_ref(), &raw, fixed);
            }
        }
    }
    Ok(())
}

/// What `check` is doing, named in the deny when the deadline passes.
static STAGE: std::sync::Mutex<&str> = std::sync::Mutex::new("starting");

fn stage(what: &'static str) {
    if let Ok(mut s) = STAGE.lock() {
        *s = what;
    }
}

/// Who answers: `check` itself (1) or its deadline (2); 0 while undecided.
type Watchdog = std::sync::Arc<std::sync::atomic::AtomicU8>;

/// Start the deadline ([`crate::hook_core::deadline`]): when it passes undecided, a deny
/// naming the stage is printed (for `--jsonl`, with `"line": 0`) and wicket exits 2.
fn arm_deadline(jsonl: bool) -> Watchdog {
    use std::sync::atomic::Ordering;
    let state: Watchdog = std::sync::Arc::new(std::sync::atomic::AtomicU8::new(0));
    let limit = crate::hook_core::deadline();
    let watch = std::sync::Arc::clone(&state);
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        if watch.compare_exchange(0, 2, Ordering::SeqCst, Ordering::SeqCst).is_err() {
            return;
        }
        let what = STAGE.lock().map_or("deciding", |s| *s);
        let reason = format!("wicket did not decide within {} ms (it was {what})", limit.as_millis());
        let v = Verdict::deny(wicket_policy::By::Input, reason.clone());
        let mut shown = verdict_json(&v);
        if jsonl {
            shown.error = Some(&reason);
            shown.line = Some(0);
        }
        let mut out = std::io::stdout();
        if serde_json::to_writer(&mut out, &shown).is_ok() {
            let _ = out.write_all(b"\n");
        }
        let _ = out.flush();
        eprintln!("wicket: {reason}");
        std::process::exit(2);
    });
    state
}

/// The decision is made: the deadline no longer answers. If it already did, wait for the
/// exit it is making.
fn disarm(w: &Watchdog) {
    if w.compare_exchange(0, 1, std::sync::atomic::Ordering::SeqCst, std::sync::atomic::Ordering::SeqCst).is_err() {
        loop {
            std::thread::park();
        }
    }
}

/// Write a decision to the audit log before it is printed: a failed line gives one notice,
/// or (mandatory audit) turns the verdict into a deny.
fn record(gate: &mut Gate, call: Option<&ToolCall>, raw: &str, verdict: Verdict) -> Verdict {
    match call {
        Some(call) => gate.record(call, verdict),
        None => gate.record_input(raw, verdict),
    }
}

/// Decide the call (or calls, with `--jsonl`) on stdin and print the decision.
pub fn check(args: &CheckArgs, explain: bool) -> Result<()> {
    // A caller waiting on `check` may give up and go on: the decision (for `--jsonl`, the
    // start-up before the first line) comes within the hooks' deadline, or a deny says what
    // stalled (a settings file on a FIFO or a hung file system, a stdin held open, a lock).
    let watchdog = (!explain).then(|| arm_deadline(args.jsonl));
    stage("loading the settings");
    // Every decision of `check` goes to the audit log (`explain` only shows a person). With
    // `--jsonl`, a burst of calls pays for one audit lock, not one per line; before waiting
    // for input the lock is given up and the answers so far are flushed, so neither another
    // process nor the driver of this stream waits on a reader that waits.
    let opening = Opening { bursts: args.jsonl, ..Opening::default() };
    let (mut gate, loaded) = open_gate(args, Opening { no_audit: explain, ..opening }, false)?;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    // Locked per write, not held: the deadline may have to print while this waits.
    let mut out = BufWriter::new(stdout);
    if args.jsonl {
        // From here a wait is for the driver's next line, not a stall of wicket's.
        if let Some(w) = &watchdog {
            disarm(w);
        }
        return check_lines(&mut gate, out, args.sandboxed);
    }
    stage("reading the call on stdin");
    // One JSON object, read up to its closing brace: a stdin held open after it is no stall.
    let text = match crate::hook_core::read_object(&mut stdin.lock(), crate::hook_core::MAX_INPUT) {
        Ok(t) => t,
        Err(e) => return Err(e.context("cannot read the tool call on stdin")),
    };
    if text.trim().is_empty() {
        bail!("no tool call on stdin: expected {{\"tool\": \"…\", \"input\": {{…}}}}");
    }
    let call = parse_call(&text, args.sandboxed)?;
    if explain {
        let mut trace = Trace::recording();
        let how = project_root(args.root.as_deref()).map(|(_, how)| how.to_string()).unwrap_or_default();
        let policy = gate.policy();
        writeln!(out, "root: {} ({how})", policy.root().display())?;
        writeln!(out, "mode: {}", policy.mode())?;
        for f in &loaded.files {
            writeln!(out, "settings: {}", f.display())?;
        }
        writeln!(out, "call: {} {}", call.tool, wicket_policy::engine::escape_for_display(&call.input.to_string()))?;
        let v = policy.decide_traced(&call, gate.session(), &mut trace);
        for line in &trace.lines {
            writeln!(out, "- {line}")?;
        }
        if let Some(r) = &v.rule {
            writeln!(out, "rule: {r}")?;
        }
        // Offered only where a person would be asked: a denied call is not theirs to allow.
        if v.decision == wicket_policy::Decision::Ask {
            if let Some(rule) = policy.always_allow_rule(&call) {
                writeln!(out, "\"always allow\" would add: {rule}")?;
            }
        }
    } else {
        stage("deciding and writing the audit line");
        let v = gate.peek(&call);
        let v = gate.record(&call, v);
        if let Some(w) = &watchdog {
            disarm(w);
        }
        serde_json::to_writer(&mut out, &verdict_json(&v))?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{Receiver, RecvTimeoutError};
    use std::time::Duration;

    /// Input that arrives one line per read, as from a driver that writes a line and waits.
    struct Trickle(std::collections::VecDeque<Vec<u8>>);

    impl std::io::Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some(line) = self.0.pop_front() else { return Ok(0) };
            buf[..line.len()].copy_from_slice(&line);
            Ok(line.len())
        }
    }

    /// Start the reader on `input`; the batches, the count ahead, and a signal when it ends.
    fn reader(input: impl std::io::Read + Send + 'static) -> (Receiver<Batch>, std::sync::Arc<Ahead>, Receiver<()>) {
        let owed = Owed::start(Duration::from_secs(600), (), |(), _: u64, _: &str| {});
        let (tx, rx) = std::sync::mpsc::channel();
        let (done_tx, done) = std::sync::mpsc::channel();
        let ahead = std::sync::Arc::new(Ahead::default());
        let reader_ahead = std::sync::Arc::clone(&ahead);
        std::thread::spawn(move || {
            read_lines(input, &owed, &tx, &reader_ahead);
            let _ = done_tx.send(());
        });
        (rx, ahead, done)
    }

    fn numbers(batch: Batch) -> Vec<u64> {
        batch.expect("no read error").into_iter().map(|(n, _, _)| n).collect()
    }

    #[test]
    fn lines_written_one_at_a_time_are_each_passed_on_while_nothing_is_decided() {
        // 1,000 lines (fewer than MAX_AHEAD), none taken: a stuck decision must not keep the
        // reader from reading them, or their deadlines would never start.
        let lines = (0..1000).map(|i| format!("{{\"n\":{i}}}\n").into_bytes()).collect();
        let (rx, _ahead, done) = reader(Trickle(lines));
        // A guard against a hang, not a timing assertion.
        assert!(done.recv_timeout(Duration::from_secs(60)).is_ok(), "the reader stopped before the last line");
        let batches: Vec<Vec<u64>> = rx.try_iter().map(numbers).collect();
        assert!(batches.iter().all(|b| b.len() == 1), "a line was held back for the next one");
        assert_eq!(batches.concat(), (1..=1000).collect::<Vec<u64>>());
    }

    #[test]
    fn a_bulk_stream_goes_in_batches_and_the_reader_stays_at_most_max_ahead() {
        let mut text = String::new();
        for n in 1..=3000 {
            text.push_str(if n % 700 == 0 { "\n" } else { "{\"tool\":\"read\",\"input\":{\"path\":\"a\"}}\n" });
        }
        let (rx, ahead, done) = reader(std::io::Cursor::new(text.into_bytes()));
        // Nothing taken: the reader stops once MAX_AHEAD lines wait.
        for _ in 0..6000 {
            if *ahead.lock() >= MAX_AHEAD {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(100));
        let waiting = *ahead.lock();
        assert!((MAX_AHEAD..MAX_AHEAD + BATCH_LINES).contains(&waiting), "{waiting} lines passed on, none taken");
        assert_eq!(done.try_recv(), Err(std::sync::mpsc::TryRecvError::Empty), "the reader read everything ahead");
        let mut seen = Vec::new();
        loop {
            match rx.recv_timeout(Duration::from_secs(60)) {
                Ok(batch) => {
                    let batch = numbers(batch);
                    assert!(!batch.is_empty() && batch.len() <= BATCH_LINES, "a batch of {}", batch.len());
                    ahead.taken(batch.len());
                    seen.extend(batch);
                }
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => panic!("the reader stopped at line {:?}", seen.last()),
            }
        }
        // Blank lines are not passed on, but they are counted.
        assert_eq!(seen, (1..=3000).filter(|n| n % 700 != 0).collect::<Vec<u64>>());
    }
}
