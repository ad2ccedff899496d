//! What an approval question carries to a client that shows it (`serve`'s `approval/request`,
//! the MCP gateway's elicitation): the call, where it would run, the question and the choices,
//! and for a file write the change itself, so the person approves the text, not a summary.

use std::path::Path;

use serde::Serialize;
use wicket_policy::{ToolCall, Verdict};

use super::Question;

/// A file write as a change: the path, the text now (`None`: the file does not exist yet or
/// cannot be read as text) and the text after the call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The file, as the call names it.
    pub path: String,
    /// The text before (`null`: a new file).
    pub old_text: Option<String>,
    /// The text after.
    pub new_text: String,
}

impl Change {
    /// The diff's operations, each changed one with the number of its hunk: the groups of
    /// changed lines (with two lines of context) that [`unified_diff`](Self::unified_diff) shows
    /// under `@@` headers, numbered from 0 in file order.
    fn ops(&self) -> (Vec<(similar::DiffOp, Option<usize>)>, usize) {
        let old = self.old_text.as_deref().unwrap_or("");
        let diff = similar::TextDiff::configure()
            .timeout(std::time::Duration::from_millis(200))
            .diff_lines(old, &self.new_text);
        let groups = diff.grouped_ops(2);
        let mut hunk_at = std::collections::HashMap::new();
        for (n, g) in groups.iter().enumerate() {
            for x in g.iter().filter(|x| x.tag() != similar::DiffTag::Equal) {
                hunk_at.insert((x.old_range().start, x.new_range().start), n);
            }
        }
        let hunk_of = |op: &similar::DiffOp| hunk_at.get(&(op.old_range().start, op.new_range().start)).copied();
        let ops = diff
            .ops()
            .iter()
            .map(|op| (*op, if op.tag() == similar::DiffTag::Equal { None } else { hunk_of(op) }))
            .collect();
        (ops, groups.len())
    }

    /// How many hunks the change has.
    pub fn hunk_count(&self) -> usize {
        self.ops().1
    }

    /// Each hunk as unified-diff text (its `@@` header and lines), in the numbering
    /// [`apply_hunks`](Self::apply_hunks) takes.
    pub fn hunk_texts(&self) -> Vec<String> {
        let old = self.old_text.as_deref().unwrap_or("");
        let diff = similar::TextDiff::configure()
            .timeout(std::time::Duration::from_millis(200))
            .diff_lines(old, &self.new_text);
        let mut unified = diff.unified_diff();
        unified.context_radius(2);
        unified.iter_hunks().map(|h| h.to_string()).collect()
    }

    /// The text after applying only the hunks numbered in `selected` (the others keep the old
    /// lines): exactly the new text when all are selected, the old text when none are. `None`
    /// for a number that is no hunk.
    pub fn apply_hunks(&self, selected: &[usize]) -> Option<String> {
        let old = self.old_text.as_deref().unwrap_or("");
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let new_lines: Vec<&str> = self.new_text.split_inclusive('\n').collect();
        let (ops, count) = self.ops();
        if selected.iter().any(|&n| n >= count) {
            return None;
        }
        let mut out = String::with_capacity(self.new_text.len().max(old.len()));
        for (op, hunk) in ops {
            let take_new = hunk.is_some_and(|h| selected.contains(&h));
            let lines = if take_new { &new_lines[op.new_range()] } else { &old_lines[op.old_range()] };
            for l in lines {
                out.push_str(l);
            }
        }
        Some(out)
    }

    /// The change as a unified diff of lines (two lines of context), at most `max_lines` long
    /// (a last line says how many more there were). A new file is all `+` lines.
    pub fn unified_diff(&self, max_lines: usize) -> Vec<String> {
        diff_lines(self.old_text.as_deref().unwrap_or(""), &self.new_text, max_lines)
    }
}

/// `old` → `new` as a unified diff of lines: hunk headers, ` `/`-`/`+` lines with two lines of
/// context, cut to `max_lines` (a last line says how many more there were). Myers' algorithm
/// with a deadline ([`similar`]), so a large file costs linear memory and bounded time.
pub fn diff_lines(old: &str, new: &str, max_lines: usize) -> Vec<String> {
    let diff = similar::TextDiff::configure().timeout(std::time::Duration::from_millis(200)).diff_lines(old, new);
    let text = diff.unified_diff().context_radius(2).to_string();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.len() > max_lines {
        let more = lines.len() - max_lines;
        lines.truncate(max_lines);
        lines.push(format!("… {more} more lines"));
    }
    lines
}

/// Where the call would run and what it could reach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Isolation {
    /// `sandbox` (wicket's OS sandbox) or `host` (unconfined, as the caller runs it).
    pub runs: &'static str,
    /// The network it would have: `none`, `allowlist` (wicket's proxy) or `host`.
    pub network: &'static str,
}

/// An approval question with everything a client needs to show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApprovalRequest {
    /// The agent's id for the tool call, when it gave one.
    pub call_id: Option<String>,
    /// The tool.
    pub tool: String,
    /// What the call touches: the command line, path or URL (or the input as JSON).
    pub target: String,
    /// One line to show: the target with hidden characters escaped, cut to 200 characters.
    pub preview: String,
    /// Where it would run.
    pub isolation: Isolation,
    /// The question, with why wicket asks.
    pub question: String,
    /// The answers the client may give (`always` only when a rule is offered).
    pub choices: Vec<&'static str>,
    /// For `write_file` and `edit_file`: the change.
    pub change: Option<Change>,
    /// The change's hunks as unified-diff text, numbered from 0: what `select_hunks` picks from.
    pub hunks: Vec<String>,
}

impl ApprovalRequest {
    /// The request for `question` about `call` (its change, if any, is the question's);
    /// `network` is where a command's traffic could go.
    pub fn new(call: &ToolCall, question: &Question, verdict: &Verdict, network: &'static str) -> ApprovalRequest {
        let (preview, more) = wicket_policy::text::cut(&question.what, 200);
        let mut preview = wicket_policy::text::escape_hidden(preview);
        if more > 0 {
            preview.push('…');
        }
        let mut choices = vec!["once", "session"];
        if question.always.is_some() {
            choices.push("always");
        }
        choices.push("deny");
        ApprovalRequest {
            call_id: call.call_id.clone(),
            tool: call.tool.clone(),
            target: question.what.clone(),
            preview,
            isolation: Isolation { runs: if question.sandboxed { "sandbox" } else { "host" }, network },
            question: format!("Allow this {} call? {}", call.tool, verdict.reason),
            choices,
            change: question.change.clone(),
            hunks: question.change.as_ref().map(Change::hunk_texts).unwrap_or_default(),
        }
    }
}

/// The largest file whose text an approval request carries (a bigger one shows `old_text: null`).
pub const MAX_SHOWN_FILE: u64 = 1024 * 1024;

/// A file's text for showing in a change: `None` when it is missing, not text, or larger than
/// [`MAX_SHOWN_FILE`].
pub fn read_for_showing(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SHOWN_FILE {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The change a file write makes, when the call is one and its arguments say it plainly:
/// `write_file` and `edit_file`, and an MCP tool named `write_file` with `path` and `content`
/// (as the reference filesystem server's).
pub fn change_of(call: &ToolCall, read: impl Fn(&Path) -> Option<String>) -> Option<Change> {
    let s = |k: &str| call.input.get(k).and_then(|v| v.as_str());
    let path = s("path")?;
    let mcp = wicket_policy::call::is_mcp(&call.tool);
    let tool = if mcp { call.tool.rsplit("__").next()? } else { call.tool.as_str() };
    match tool {
        "write_file" => {
            Some(Change { path: path.into(), old_text: read(Path::new(path)), new_text: s("content")?.into() })
        }
        "edit_file" if !mcp => {
            let old = read(Path::new(path))?;
            let (from, to) = (s("old_string")?, s("new_string")?);
            // As the edit tools apply it: the first occurrence (an empty `old_string` prepends).
            let new_text = old.replacen(from, to, 1);
            Some(Change { path: path.into(), old_text: Some(old), new_text })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn q(what: &str, always: bool, sandboxed: bool) -> Question {
        let always = always.then(|| wicket_policy::Rule::parse("write_file(src/a.rs)").unwrap());
        Question { tool: "write_file".into(), what: what.into(), reason: "r".into(), always, sandboxed, change: None }
    }

    #[test]
    fn a_write_carries_its_change_and_the_choices_offered() {
        let mut call = ToolCall::new("write_file", json!({"path": "/p/src/a.rs", "content": "new\n"}));
        call.call_id = Some("toolu_1".into());
        let v = Verdict::ask(wicket_policy::By::Default, "no rule allows it");
        let read = |p: &Path| (p == Path::new("/p/src/a.rs")).then(|| "old\n".to_string());
        let with_change = |mut q: Question| {
            q.change = change_of(&call, read);
            q
        };
        let r = ApprovalRequest::new(&call, &with_change(q("/p/src/a.rs", true, false)), &v, "host");
        assert_eq!(r.call_id.as_deref(), Some("toolu_1"));
        assert_eq!(
            r.change,
            Some(Change { path: "/p/src/a.rs".into(), old_text: Some("old\n".into()), new_text: "new\n".into() })
        );
        assert_eq!(r.choices, ["once", "session", "always", "deny"]);
        assert_eq!((r.isolation.runs, r.isolation.network), ("host", "host"));
        assert!(r.question.ends_with("no rule allows it"));
        // A new file has no old text; without a rule there is no "always".
        let mut fresh = q("/p/src/a.rs", false, true);
        fresh.change = change_of(&call, |_| None);
        let r = ApprovalRequest::new(&call, &fresh, &v, "none");
        assert_eq!(r.change.unwrap().old_text, None);
        assert_eq!(r.choices, ["once", "session", "deny"]);
    }

    #[test]
    fn the_diff_shows_the_lines_that_change() {
        let c = Change {
            path: "a".into(),
            old_text: Some("1\n2\n3\n4\n5\n6\n".into()),
            new_text: "1\n2\n3\nfour\n5\n6\n".into(),
        };
        assert_eq!(c.unified_diff(50), ["@@ -2,5 +2,5 @@", " 2", " 3", "-4", "+four", " 5", " 6"]);
        let new = Change { path: "b".into(), old_text: None, new_text: "x\ny\n".into() };
        assert_eq!(new.unified_diff(50), ["@@ -0,0 +1,2 @@", "+x", "+y"]);
        let big = Change { path: "c".into(), old_text: None, new_text: "l\n".repeat(100) };
        let d = big.unified_diff(10);
        assert_eq!((d.len(), d[10].as_str()), (11, "… 91 more lines"));
    }

    #[test]
    fn selected_hunks_apply_exactly() {
        let line = |i: usize| match i {
            3 => Some("three\n".to_string()),
            20 => Some("twenty\n".to_string()),
            28 => None,
            _ => Some(format!("{i}\n")),
        };
        let old: String = (1..=30).map(|i| format!("{i}\n")).collect();
        let new: String = (1..=30).filter_map(line).collect();
        let c = Change { path: "f".into(), old_text: Some(old.clone()), new_text: new.clone() };
        assert_eq!(c.hunk_count(), 3);
        assert_eq!(c.apply_hunks(&[0, 1, 2]).as_deref(), Some(new.as_str()));
        assert_eq!(c.apply_hunks(&[]).as_deref(), Some(old.as_str()));
        let middle = c.apply_hunks(&[1]).unwrap();
        assert!(middle.starts_with("1\n2\n3\n") && middle.contains("twenty\n") && middle.contains("28\n"), "{middle}");
        assert_eq!(c.apply_hunks(&[3]), None);
        let texts = c.hunk_texts();
        assert_eq!(texts.len(), 3);
        assert!(texts[1].starts_with("@@ ") && texts[1].contains("-20\n+twenty\n"), "{}", texts[1]);
        // A new file is one hunk.
        let fresh = Change { path: "g".into(), old_text: None, new_text: "a\nb".into() };
        assert_eq!((fresh.hunk_count(), fresh.apply_hunks(&[0]).as_deref()), (1, Some("a\nb")));
    }

    proptest::proptest! {
        /// Any two texts: all hunks give the new text, none the old one.
        #[test]
        fn all_hunks_give_the_new_text(old in "([a-c]{0,3}\n){0,12}[a-c]{0,2}", new in "([a-c]{0,3}\n){0,12}[a-c]{0,2}") {
            let c = Change { path: "f".into(), old_text: Some(old.clone()), new_text: new.clone() };
            let all: Vec<usize> = (0..c.hunk_count()).collect();
            proptest::prop_assert_eq!(c.apply_hunks(&all), Some(new));
            proptest::prop_assert_eq!(c.apply_hunks(&[]), Some(old));
        }
    }

    #[test]
    fn an_edit_shows_the_file_after_it_and_a_command_has_no_change() {
        let call = ToolCall::new("edit_file", json!({"path": "/p/a", "old_string": "b", "new_string": "B"}));
        let v = Verdict::ask(wicket_policy::By::Default, "r");
        assert_eq!(change_of(&call, |_| Some("abcb".into())).unwrap().new_text, "aBcb");
        let call = ToolCall::new("bash", json!({"command": "rm -rf x\u{202e}"}));
        let r = ApprovalRequest::new(&call, &q("rm -rf x\u{202e}", false, true), &v, "none");
        assert_eq!((r.change, r.preview.as_str()), (None, "rm -rf x\\u{202e}"));
    }
}
