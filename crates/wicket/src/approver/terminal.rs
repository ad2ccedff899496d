//! The terminal approver: `/dev/tty` in line mode, the question, the answer.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};

use rustix::termios::{self, InputModes, LocalModes, OptionalActions, OutputModes, QueueSelector};
use wicket_policy::Rule;

use super::render::*;
use super::*;

/// Why the terminal approver cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ApproverError {
    /// `/dev/tty` cannot be opened: the process has no controlling terminal.
    #[error("no terminal to ask on: cannot open /dev/tty ({source}); run wicket from a terminal, or add an allow rule for the call")]
    NoTerminal {
        /// The error from `open`.
        #[source]
        source: io::Error,
    },
    /// `/dev/tty` opened but is not a terminal.
    #[error("no terminal to ask on: /dev/tty is not a terminal")]
    NotATerminal,
}

/// Asks the person at the controlling terminal (`/dev/tty`).
///
/// Stdin and stdout are never used: they are the agent's pipes, and an answer read from them
/// would be an answer the model wrote. Colors are used when `TERM` names a terminal other than
/// `dumb` and `NO_COLOR` is unset.
#[derive(Debug)]
pub struct TerminalApprover {
    tty: File,
    color: bool,
}

impl TerminalApprover {
    /// Open `/dev/tty` for reading and writing. Fails when the process has no controlling
    /// terminal; the caller then uses [`DenyApprover`] and gives the model [`NO_TERMINAL`].
    pub fn open() -> Result<TerminalApprover, ApproverError> {
        let tty = OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map_err(|source| ApproverError::NoTerminal { source })?;
        if !termios::isatty(&tty) {
            return Err(ApproverError::NotATerminal);
        }
        let color =
            std::env::var_os("NO_COLOR").is_none() && std::env::var("TERM").is_ok_and(|t| !t.is_empty() && t != "dumb");
        Ok(TerminalApprover { tty, color })
    }

    /// Use colors or not, whatever `TERM` says.
    pub fn with_color(mut self, color: bool) -> TerminalApprover {
        self.color = color;
        self
    }
}

/// The terminal approver, opened the first time somebody must be asked (a run whose calls are
/// all decided by rules never touches `/dev/tty`); when it cannot be opened, nobody is
/// reachable and the reason says why.
#[derive(Debug, Default)]
pub struct OnDemand {
    tty: Option<Result<TerminalApprover, String>>,
}

impl OnDemand {
    /// An approver that opens `/dev/tty` when first needed.
    pub fn new() -> OnDemand {
        OnDemand::default()
    }

    fn open(&mut self) -> &mut Result<TerminalApprover, String> {
        self.tty.get_or_insert_with(|| TerminalApprover::open().map_err(|e| e.to_string()))
    }
}

impl Approver for OnDemand {
    fn ask(&mut self, q: &Question) -> Answer {
        match self.open() {
            Ok(tty) => tty.ask(q),
            Err(_) => Answer::Deny,
        }
    }

    fn reachable(&mut self) -> Result<(), String> {
        self.open().as_ref().map(|_| ()).map_err(Clone::clone)
    }
}

impl Approver for TerminalApprover {
    fn ask(&mut self, q: &Question) -> Answer {
        // Line mode with echo for the question, whatever mode the terminal was left in;
        // restored when the guard drops. A terminal we cannot set up is not asked.
        let Ok(_mode) = LineMode::enter(&self.tty) else { return Answer::Deny };
        let color = self.color;
        converse(&mut Tty(&self.tty), q, color)
    }
}

/// A person's answer to a consent question (project settings that loosen safety).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consent {
    /// Apply them for this run only.
    Once,
    /// Apply them and remember (pin) them; ask again when they change.
    Remember,
    /// Do not apply them: safe defaults.
    No,
}

impl TerminalApprover {
    /// Ask for consent to `lines` (shown escaped, one by one, under `title`): `y` yes for this
    /// run, `r` yes and remember, `n` (or Enter, end of input, an error) no. Keys typed before
    /// the question appeared are discarded; an unknown answer is asked again at most
    /// [`MAX_REPROMPTS`] times.
    pub fn consent(&mut self, title: &str, lines: &[String]) -> Consent {
        let Ok(_mode) = LineMode::enter(&self.tty) else { return Consent::No };
        converse_consent(&mut Tty(&self.tty), title, lines, self.color)
    }
}

impl TerminalApprover {
    /// Show `lines` (escaped, one by one) under `title`, then ask `question` with `[y/N]`:
    /// true only for `y` or `yes`. Enter, `n`, end of input or an error is no; keys typed
    /// before the question appeared are discarded; an unknown answer is asked again at most
    /// [`MAX_REPROMPTS`] times (`wicket policy suggest`'s question per rule).
    pub fn confirm(&mut self, title: &str, lines: &[String], question: &str) -> bool {
        let Ok(_mode) = LineMode::enter(&self.tty) else { return false };
        converse_confirm(&mut Tty(&self.tty), title, lines, question, self.color)
    }
}

pub(super) fn converse_confirm(
    line: &mut impl Line,
    title: &str,
    lines: &[String],
    question: &str,
    color: bool,
) -> bool {
    let p = Paint(color);
    let mut text = format!("\n{}\n", p.bold(&escape_inline(&cut(title, 1_000))));
    for l in lines.iter().take(500) {
        let _ = writeln!(text, "  {}", escape_inline(&cut(l, 2_000)));
    }
    if lines.len() > 500 {
        let _ = writeln!(text, "  … and {} more", lines.len() - 500);
    }
    for _ in 0..=MAX_REPROMPTS {
        let _ = write!(text, "  {} [y/N] > ", escape_inline(&cut(question, 1_000)));
        if line.discard_typed_ahead().is_err() || line.show(&text).is_err() {
            return false;
        }
        let typed = match line.read_line() {
            Ok(Some(t)) => t,
            Ok(None) | Err(_) => {
                let _ = line.show(&format!("\n  {}\n", p.red("no answer: not written")));
                return false;
            }
        };
        match typed.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => {
                let _ = line.show(&format!("  {}\n", p.green("yes")));
                return true;
            }
            "" | "n" | "no" => {
                let _ = line.show(&format!("  {}\n", p.red("no: not written")));
                return false;
            }
            other => {
                let shown = cut(&escape_inline(other), 40);
                text =
                    format!("  {}\n", p.yellow(&format!("\"{shown}\" is not a choice; type y or n and press Enter")));
            }
        }
    }
    let _ = line.show(&format!("  {}\n", p.red("no valid answer: not written")));
    false
}

pub(super) fn converse_consent(line: &mut impl Line, title: &str, lines: &[String], color: bool) -> Consent {
    let p = Paint(color);
    let mut text = format!("\n{}\n", p.bold(&escape_inline(&cut(title, 1_000))));
    for l in lines.iter().take(200) {
        let _ = writeln!(text, "  {}", escape_inline(&cut(l, 2_000)));
    }
    if lines.len() > 200 {
        let _ = writeln!(text, "  … and {} more", lines.len() - 200);
    }
    for attempt in 0..=MAX_REPROMPTS {
        text.push_str("  [y] yes, for this run   [r] yes, and remember (ask again when they change)   [n] no, use safe defaults (default) > ");
        if line.discard_typed_ahead().is_err() || line.show(&text).is_err() {
            return Consent::No;
        }
        let typed = match line.read_line() {
            Ok(Some(t)) => t,
            Ok(None) | Err(_) => {
                let _ = line.show(&format!("\n  {}\n", p.red("no answer: not applied")));
                return Consent::No;
            }
        };
        let answer = match typed.trim().to_ascii_lowercase().as_str() {
            "" | "n" | "no" => Some(Consent::No),
            "y" | "yes" => Some(Consent::Once),
            "r" | "remember" => Some(Consent::Remember),
            _ => None,
        };
        if let Some(a) = answer {
            let said = match a {
                Consent::Once => p.green("applied for this run"),
                Consent::Remember => p.green("applied and remembered"),
                Consent::No => p.red("not applied"),
            };
            let _ = line.show(&format!("  {said}\n"));
            return a;
        }
        let shown = cut(&escape_inline(typed.trim()), 40);
        text = format!("  {}\n", p.yellow(&format!("\"{shown}\" is not a choice; type y, r or n and press Enter")));
        if attempt == MAX_REPROMPTS {
            break;
        }
    }
    let _ = line.show(&format!("  {}\n", p.red("no valid answer: not applied")));
    Consent::No
}

// ---------------------------------------------------------------------------------------------
// The conversation, separate from the device so unit tests can drive it.

/// The three things the conversation does with a terminal.
pub(super) trait Line {
    /// Discard input typed before now.
    fn discard_typed_ahead(&mut self) -> io::Result<()>;
    /// Write text (with `\n` line ends).
    fn show(&mut self, text: &str) -> io::Result<()>;
    /// Read one line; `None` at end of input.
    fn read_line(&mut self) -> io::Result<Option<String>>;
}

pub(super) struct Tty<'a>(&'a File);

impl Line for Tty<'_> {
    fn discard_typed_ahead(&mut self) -> io::Result<()> {
        termios::tcflush(self.0, QueueSelector::IFlush)?;
        Ok(())
    }

    fn show(&mut self, text: &str) -> io::Result<()> {
        let mut tty = self.0;
        tty.write_all(text.as_bytes())?;
        tty.flush()
    }

    fn read_line(&mut self) -> io::Result<Option<String>> {
        // In line mode one read returns one line (or what precedes a ^D). A longer line is cut
        // here; its rest is discarded before the next prompt.
        let mut buf = [0u8; MAX_ANSWER_BYTES];
        let mut tty = self.0;
        let n = loop {
            match tty.read(&mut buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        if n == 0 {
            return Ok(None);
        }
        Ok(Some(String::from_utf8_lossy(&buf[..n]).into_owned()))
    }
}

/// Canonical mode with echo and newline translation while a question is open; the terminal's
/// own settings come back on drop.
pub(super) struct LineMode<'a> {
    tty: &'a File,
    saved: Option<termios::Termios>,
}

impl<'a> LineMode<'a> {
    fn enter(tty: &'a File) -> io::Result<LineMode<'a>> {
        let saved = termios::tcgetattr(tty)?;
        let mut line = saved.clone();
        line.local_modes |= LocalModes::ICANON | LocalModes::ECHO;
        line.input_modes |= InputModes::ICRNL;
        line.output_modes |= OutputModes::OPOST | OutputModes::ONLCR;
        let changed = line.local_modes != saved.local_modes
            || line.input_modes != saved.input_modes
            || line.output_modes != saved.output_modes;
        if !changed {
            return Ok(LineMode { tty, saved: None });
        }
        termios::tcsetattr(tty, OptionalActions::Now, &line)?;
        Ok(LineMode { tty, saved: Some(saved) })
    }
}

impl Drop for LineMode<'_> {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            let _ = termios::tcsetattr(self.tty, OptionalActions::Now, saved);
        }
    }
}

/// What one typed line means.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Reply {
    Answer(Answer),
    /// `a` when no rule is offered.
    AlwaysNotOffered,
    Unknown,
}

pub(super) fn parse_reply(line: &str, always: Option<&Rule>) -> Reply {
    match line.trim().to_ascii_lowercase().as_str() {
        "" | "n" | "no" => Reply::Answer(Answer::Deny),
        "y" | "yes" => Reply::Answer(Answer::Once),
        "s" | "session" => Reply::Answer(Answer::Session),
        "a" | "always" => match always {
            Some(rule) => Reply::Answer(Answer::Always(rule.clone())),
            None => Reply::AlwaysNotOffered,
        },
        _ => Reply::Unknown,
    }
}

/// Ask `q` on `line`: discard typed-ahead keys, show the question, read answers, re-ask at most
/// [`MAX_REPROMPTS`] times on an unknown key. Every failure is a deny.
pub(super) fn converse(line: &mut impl Line, q: &Question, color: bool) -> Answer {
    if q.size() > MAX_QUESTION_BYTES {
        let _ = line.show(&refusal(q));
        return Answer::Deny;
    }
    let p = Paint(color);
    let mut text = render(q, color);
    // A long diff is paged: the question shows its first lines, `m` the next page.
    let diff: Vec<String> = q.change.as_ref().map(|c| c.unified_diff(usize::MAX)).unwrap_or_default();
    let mut shown = MAX_SHOWN_LINES.min(diff.len());
    let mut attempt = 0;
    while attempt <= MAX_REPROMPTS {
        if shown < diff.len() {
            let _ = writeln!(text, "  [m] the next {} lines of the diff", MAX_SHOWN_LINES.min(diff.len() - shown));
        }
        text.push_str(&choices(q, color));
        // Flush right before the prompt is written: a key already waiting was pressed before
        // this question was on the screen, so it never answers it.
        if line.discard_typed_ahead().is_err() || line.show(&text).is_err() {
            return Answer::Deny;
        }
        let typed = match line.read_line() {
            Ok(Some(typed)) => typed,
            Ok(None) | Err(_) => {
                let _ = line.show(&format!("\n  {}\n", p.red("no answer: denied")));
                return Answer::Deny;
            }
        };
        if typed.trim().eq_ignore_ascii_case("m") && shown < diff.len() {
            let end = (shown + MAX_SHOWN_LINES).min(diff.len());
            text = String::new();
            for l in &diff[shown..end] {
                let _ = writeln!(text, "    {}", diff_line(l, color));
            }
            if end < diff.len() {
                let _ = writeln!(text, "    … {} more lines", diff.len() - end);
            }
            shown = end;
            continue;
        }
        attempt += 1;
        text = match parse_reply(&typed, q.always.as_ref()) {
            Reply::Answer(answer) => {
                let said = match &answer {
                    Answer::Once => p.green("allowed once"),
                    Answer::Session => p.green("allowed for this session"),
                    Answer::Always(rule) => {
                        p.green(&format!("allowed always: added {}", escape_inline(&rule.to_string())))
                    }
                    Answer::Deny => p.red("denied"),
                };
                let _ = line.show(&format!("  {said}\n"));
                return answer;
            }
            Reply::AlwaysNotOffered => {
                format!("  {}\n", p.yellow("\"always\" is not offered for this call; choose y, s or n"))
            }
            Reply::Unknown => {
                let shown = cut(&escape_inline(typed.trim()), 40);
                format!("  {}\n", p.yellow(&format!("\"{shown}\" is not a choice; type y, s, a or n and press Enter")))
            }
        };
    }
    let _ = line.show(&format!("  {}\n", p.red("no valid answer: denied")));
    Answer::Deny
}

/// The note shown instead of a question over [`MAX_QUESTION_BYTES`].
pub(super) fn refusal(q: &Question) -> String {
    format!(
        "\nwicket: denied without asking: a {} request of {} bytes is over the {}-byte limit for a question\n",
        escape_inline(&cut(&q.tool, 80)),
        q.size(),
        MAX_QUESTION_BYTES
    )
}

// ---------------------------------------------------------------------------------------------
// The message.
