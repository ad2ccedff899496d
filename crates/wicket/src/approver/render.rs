//! How a question is shown: escaped, cut, coloured, with call-outs for what a one-line
//! reading hides.

use std::fmt::Write as _;

use wicket_programs::Network;
use wicket_shell::{Context, SimpleCommand, Word};

use super::*;

/// ANSI colors, or none.
#[derive(Clone, Copy)]
pub(super) struct Paint(pub(super) bool);

impl Paint {
    fn wrap(self, code: &str, s: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    pub(super) fn bold(self, s: &str) -> String {
        self.wrap("1", s)
    }
    pub(super) fn red(self, s: &str) -> String {
        self.wrap("1;31", s)
    }
    pub(super) fn green(self, s: &str) -> String {
        self.wrap("32", s)
    }
    pub(super) fn yellow(self, s: &str) -> String {
        self.wrap("33", s)
    }
}

/// True for a character that must not reach the terminal as itself: the one definition in
/// [`wicket_policy::text::is_hidden_on_display`] (every invisible or control character the
/// engine knows, plus tab and the look-alike spaces).
pub fn is_hidden(c: char) -> bool {
    wicket_policy::text::is_hidden_on_display(c)
}

/// The text with every hidden character (see [`is_hidden`]) and every newline written as
/// `\u{…}`: safe to print on one line ([`wicket_policy::text::escape_hidden`]).
pub fn escape_inline(s: &str) -> String {
    wicket_policy::text::escape_hidden(s)
}

/// The hidden characters in `s`, as `U+XXXX`, each once.
pub(super) fn hidden_chars(s: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for c in s.chars().filter(|c| is_hidden(*c)) {
        let name = format!("U+{:04X}", c as u32);
        if !found.contains(&name) {
            found.push(name);
        }
    }
    found
}

/// At most `max` characters of `s`, with `…` when cut.
pub(super) fn cut(s: &str, max: usize) -> String {
    match wicket_policy::text::cut(s, max) {
        (all, 0) => all.to_string(),
        (head, _) => format!("{head}…"),
    }
}

/// True for tools whose `what` is a shell command line.
pub(super) fn is_command_tool(tool: &str) -> bool {
    let name = tool.rsplit("__").next().unwrap_or(tool);
    matches!(
        name,
        "bash"
            | "shell"
            | "sh"
            | "exec"
            | "run"
            | "run_command"
            | "execute_command"
            | "shell_command"
            | "run_shell_command"
    )
}

/// The word for what a tool's call touches.
pub(super) fn noun(tool: &str) -> &'static str {
    match tool {
        _ if is_command_tool(tool) => "command",
        "web_fetch" => "URL",
        "read_file" | "write_file" | "edit_file" | "glob" | "grep" => "path",
        _ => "input",
    }
}

/// The whole question (without the choices line): the request shown escaped and cut, the
/// reason, the call-outs, and where it runs. One string, so it reaches the terminal in one write.
pub fn render(q: &Question, color: bool) -> String {
    let p = Paint(color);
    let mut out = String::new();
    let noun = noun(&q.tool);
    let _ = writeln!(out, "\n{} {}", p.bold("wicket: allow this call?"), p.bold(&escape_inline(&cut(&q.tool, 200))));
    show_block(&mut out, noun, &q.what);
    let _ = writeln!(out, "  why asked: {}", escape_inline(&cut(&q.reason, 1_000)));
    for warning in callouts(q) {
        let _ = writeln!(out, "  {} {warning}", p.yellow("!"));
    }
    if q.sandboxed {
        let _ = writeln!(
            out,
            "  where: {}",
            p.green("in the OS sandbox (writes only the project, temp and caches; no network; secrets hidden)")
        );
    } else {
        let _ = writeln!(out, "  where: {}", p.red("on the HOST, outside the sandbox: it can do anything you can"));
    }
    if let Some(rule) = &q.always {
        let _ = writeln!(out, "  \"always\" adds the rule: {}", p.bold(&escape_inline(&rule.to_string())));
    }
    if let Some(c) = &q.change {
        let what = if c.old_text.is_some() { "the change to" } else { "the new file" };
        let _ = writeln!(out, "  {what} {}:", escape_inline(&cut(&c.path, 1_000)));
        // Each line escaped on its own, so no character can redraw the screen or reorder text.
        for line in c.unified_diff(MAX_SHOWN_LINES) {
            let _ = writeln!(out, "    {}", diff_line(&line, color));
        }
    }
    out
}

/// One line of a diff for the terminal: escaped on its own (so no character can redraw the
/// screen or reorder text), cut, and coloured by its first character.
pub(super) fn diff_line(line: &str, color: bool) -> String {
    let p = Paint(color);
    let shown = escape_inline(&cut(line, MAX_PART_CHARS * 2));
    match line.as_bytes().first() {
        Some(b'+') => p.green(&shown),
        Some(b'-') => p.red(&shown),
        Some(b'@') => p.yellow(&shown),
        _ => shown,
    }
}

/// The choices line that ends every prompt.
pub fn choices(q: &Question, color: bool) -> String {
    let p = Paint(color);
    let always = match &q.always {
        Some(rule) => format!("  [a] always: {}", escape_inline(&rule.to_string())),
        None => String::new(),
    };
    format!("{}  [y] once  [s] this session{always}  [n] deny (default) > ", p.bold("Answer:"))
}

/// The request itself, one line of the terminal per line of the text, escaped, cut at
/// [`MAX_SHOWN_CHARS`] characters or [`MAX_SHOWN_LINES`] lines with a note.
pub(super) fn show_block(out: &mut String, noun: &str, what: &str) {
    let total_chars = what.chars().count();
    let total_lines = what.split('\n').count();
    let lines_note = if total_lines > 1 { format!(", {total_lines} lines") } else { String::new() };
    let _ = writeln!(out, "  {noun} ({total_chars} characters{lines_note}):");
    let mut shown_chars = 0usize;
    let mut shown_lines = 0usize;
    for text in what.split('\n') {
        if shown_lines == MAX_SHOWN_LINES || shown_chars >= MAX_SHOWN_CHARS {
            break;
        }
        let room = MAX_SHOWN_CHARS - shown_chars;
        let part: String = text.chars().take(room).collect();
        shown_chars += part.chars().count() + 1;
        shown_lines += 1;
        let _ = writeln!(out, "    | {}", escape_inline(&part));
    }
    let shown_chars = shown_chars.saturating_sub(1).min(total_chars);
    if shown_chars < total_chars || shown_lines < total_lines {
        let _ = writeln!(
            out,
            "    … cut: only the first {shown_chars} of {total_chars} characters ({shown_lines} of {total_lines} lines) \
             are shown; deny unless you know what the rest does"
        );
    }
}

/// The lines that say what a one-line reading hides.
pub fn callouts(q: &Question) -> Vec<String> {
    let mut out = Vec::new();
    if is_command_tool(&q.tool) {
        command_callouts(&q.what, &mut out);
    }
    let hidden = hidden_chars(&q.what);
    if !hidden.is_empty() {
        out.push(format!(
            "invisible or control characters: {} (shown as \\u{{…}}; what you see is not what runs)",
            hidden.join(", ")
        ));
    }
    if let Some(word) = wicket_policy::command::confusable_word(&q.what) {
        out.push(format!(
            "`{}` mixes look-alike letters from another script with ASCII: it may not be the program it looks like",
            escape_inline(&cut(&word, 80))
        ));
    }
    out
}

pub(super) fn word_text(w: &Word) -> &str {
    w.value.as_deref().unwrap_or(&w.raw)
}

pub(super) fn part_text(c: &SimpleCommand) -> String {
    // As written, quotes included: the canonical form drops them and can make a quoted `|`
    // look like a pipe.
    escape_inline(&cut(c.source.trim(), MAX_PART_CHARS))
}

pub(super) fn context_note(c: Context) -> &'static str {
    match c {
        Context::Top => "",
        Context::CommandSubstitution => "  (inside $(…) or backticks)",
        Context::ProcessSubstitution => "  (inside <(…) or >(…))",
        Context::Subshell => "  (in a subshell)",
        Context::Function => "  (in a function body)",
        Context::HereDoc => "  (inside a here-document)",
        Context::Nested => "  (inside a string run by a shell, e.g. bash -c)",
    }
}

/// Push `title` and the listed items (at most [`MAX_LISTED`]) as one call-out.
pub(super) fn listed(out: &mut Vec<String>, title: String, items: &[String]) {
    let mut text = title;
    for item in items.iter().take(MAX_LISTED) {
        let _ = write!(text, "\n        {item}");
    }
    if items.len() > MAX_LISTED {
        let _ = write!(text, "\n        … and {} more", items.len() - MAX_LISTED);
    }
    out.push(text);
}

pub(super) fn command_callouts(command: &str, out: &mut Vec<String>) {
    let analysis = wicket_shell::analyze(command);
    // Every simple command, with the ones parsed out of `bash -c` strings after their host.
    let mut parts: Vec<SimpleCommand> = Vec::new();
    let mut problems: Vec<String> = analysis.problems.iter().map(|p| p.detail.clone()).collect();
    // Network uses keyed by (top-level command, tool), naming the innermost part that has it:
    // `sudo bash -c 'curl …'` names `curl …`, the part that runs curl.
    let mut network: Vec<((usize, String), String)> = Vec::new();
    let mut note_network = |index: usize, c: &SimpleCommand| {
        for argv in wicket_shell::strip_wrappers(c).argvs {
            let argv: Vec<String> = argv.iter().map(|w| word_text(w).to_string()).collect();
            let Some(what) = network_use(&argv) else { continue };
            let key = (index, what);
            match network.iter_mut().find(|(k, _)| *k == key) {
                Some((_, shown)) => *shown = part_text(c),
                None => network.push((key, part_text(c))),
            }
        }
    };
    for (index, c) in analysis.commands.iter().enumerate() {
        let unwrapped = wicket_shell::strip_wrappers(c);
        problems.extend(unwrapped.problems.iter().map(|p| p.detail.clone()));
        note_network(index, c);
        for n in &unwrapped.nested {
            note_network(index, n);
        }
        parts.push(c.clone());
        parts.extend(unwrapped.nested.iter().cloned());
    }
    if parts.len() > 1 || parts.iter().any(|c| c.context != Context::Top) {
        let mut kinds: Vec<&str> = Vec::new();
        if analysis.commands.iter().filter(|c| c.context == Context::Top).count() > 1 {
            kinds.push("chained or piped");
        }
        if parts.iter().any(|c| {
            matches!(c.context, Context::CommandSubstitution | Context::ProcessSubstitution | Context::HereDoc)
        }) {
            kinds.push("with substitutions");
        }
        if parts.iter().any(|c| c.context == Context::Nested) {
            kinds.push("with a shell string");
        }
        let kinds = if kinds.is_empty() { String::new() } else { format!(" ({})", kinds.join(", ")) };
        let items: Vec<String> = parts.iter().map(|c| format!("{}{}", part_text(c), context_note(c.context))).collect();
        listed(out, format!("runs {} commands{kinds}, every one of them:", parts.len()), &items);
    }
    let mut writes: Vec<String> = Vec::new();
    for c in &parts {
        for r in c.redirects.iter().filter(|r| r.op.writes()) {
            let target = escape_inline(&cut(word_text(&r.target), MAX_PART_CHARS));
            if !writes.contains(&target) {
                writes.push(target);
            }
        }
    }
    if !writes.is_empty() {
        listed(out, "redirects output into files (writes them):".to_string(), &writes);
    }
    let mut network: Vec<String> = network.into_iter().map(|((_, what), shown)| format!("{what}: {shown}")).collect();
    network.dedup();
    if !network.is_empty() {
        listed(out, "uses the network:".to_string(), &network);
    }
    if !problems.is_empty() {
        problems.dedup();
        let items: Vec<String> = problems.iter().map(|p| escape_inline(&cut(p, MAX_PART_CHARS))).collect();
        listed(out, "wicket cannot fully read this command; it may run more than is listed:".to_string(), &items);
    }
}

/// Options of `git`, `go` and the package managers that take a separate argument before the
/// subcommand.
pub(super) const OPTIONS_WITH_ARGUMENT: &[&str] =
    &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--prefix", "--cwd"];

/// The network tool an argv runs, if any (`curl`, `git push`, `pip install`), as its record
/// in the program catalogue says.
pub(super) fn network_use(argv: &[String]) -> Option<String> {
    let program = argv.first()?.rsplit('/').next()?;
    let subcommands = match wicket_programs::lookup(program)?.network {
        Network::Never => return None,
        Network::Always => return Some(program.to_string()),
        // `python3 -m pip install …`
        Network::Module => {
            if argv.get(1).map(String::as_str) != Some("-m") {
                return None;
            }
            let module = argv.get(2)?;
            let rest: Vec<String> = std::iter::once(module.clone()).chain(argv.iter().skip(3).cloned()).collect();
            return network_use(&rest).map(|what| format!("{program} -m {what}"));
        }
        Network::Subs(subcommands) => subcommands,
    };
    let mut rest = argv.iter().skip(1);
    while let Some(word) = rest.next() {
        if OPTIONS_WITH_ARGUMENT.contains(&word.as_str()) {
            rest.next();
        } else if !word.starts_with('-') {
            return subcommands.contains(&word.as_str()).then(|| format!("{program} {word}"));
        }
    }
    None
}
