//! Permission rules: `tool` or `tool(pattern)`, and the sets that match them fast.
//!
//! The hard question: does this rule cover this target? A pattern means different things for
//! different targets (a glob for paths, a wildcard for commands, a host pattern for URLs), and a
//! rule must never match more than its author wrote: `*` in a path never crosses `/`, a host
//! rule never matches an IP literal, and a command `*` only matches text the command really has.

use std::collections::HashMap;
use std::fmt;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::host::{Host, HostPattern};

/// A parsed rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The tool name, possibly ending in `*`.
    pub tool: String,
    /// The pattern inside the parentheses, if any.
    pub pattern: Option<String>,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pattern {
            Some(p) => write!(f, "{}({})", self.tool, p),
            None => f.write_str(&self.tool),
        }
    }
}

/// The accepted rule forms, shown in every rule error.
pub const RULE_FORMS: &str = "accepted forms: `tool` (every call of a tool, e.g. `web_search`), \
`tool(pattern)` (e.g. `bash(npm test*)`, `read_file(src/**)`, `web_fetch(*.python.org)`), \
and tool names ending in `*` (e.g. `mcp__github__*`)";

/// A rule that cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rule {rule:?} is not valid: {why}; {forms}", forms = RULE_FORMS)]
pub struct RuleError {
    /// The rule as written.
    pub rule: String,
    /// What is wrong with it.
    pub why: String,
}

impl Rule {
    /// Parse `tool` or `tool(pattern)`.
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let err = |why: &str| RuleError { rule: text.to_string(), why: why.to_string() };
        let t = text.trim();
        if t.is_empty() {
            return Err(err("it is empty"));
        }
        if t.contains('\0') {
            return Err(err("it holds a NUL byte"));
        }
        let (tool, pattern) = match t.find('(') {
            None => {
                if t.contains(')') {
                    return Err(err("it has `)` without `(`"));
                }
                (t, None)
            }
            Some(open) => {
                let Some(inner) = t[open + 1..].strip_suffix(')') else {
                    return Err(err("the pattern must end with `)`"));
                };
                if inner.trim().is_empty() {
                    return Err(err("the pattern inside `()` is empty; write the bare tool name to match every call"));
                }
                (&t[..open], Some(inner.to_string()))
            }
        };
        let tool = tool.trim();
        let name = tool.strip_suffix('*').unwrap_or(tool);
        if tool.is_empty() {
            return Err(err("the tool name is missing"));
        }
        if name.contains('*') {
            return Err(err("`*` may only end a tool name"));
        }
        if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.') {
            return Err(err("a tool name has only letters, digits, `_`, `-` and `.`"));
        }
        Ok(Rule { tool: tool.to_string(), pattern })
    }

    /// Does the rule's tool name cover this tool?
    pub fn tool_matches(&self, tool: &str) -> bool {
        match self.tool.strip_suffix('*') {
            Some(prefix) => tool.starts_with(prefix),
            None => self.tool == tool,
        }
    }
}

/// A wildcard pattern for command lines: `*` matches any text. A trailing ` *` or `:*` also
/// matches the bare prefix (`git status *` covers `git status`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPattern {
    segments: Vec<String>,
    leading_star: bool,
    trailing_star: bool,
    bare_prefix: Option<String>,
    spelling: Option<Spelling>,
}

/// A command pattern whose program has an option table, read as options: what a deny rule
/// matches against every spelling of the same options (`rm -rf*` against `rm --rec --for x`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Spelling {
    program: &'static crate::options::Program,
    /// The sub-commands the pattern names before its options (`push` in `git push --force*`).
    path: Vec<&'static str>,
    /// The options the pattern names, each with its value pattern when it takes one.
    required: Vec<(&'static crate::options::Opt, Option<String>)>,
    /// The operands' pattern; `None` when the pattern has no `*` at all (the command must then
    /// have exactly these options and no operands).
    rest: Option<Box<CommandPattern>>,
}

impl Spelling {
    /// `program -opts… [rest]`: the leading option words of a pattern, read with the program's
    /// grammar. `None` when the pattern names no option, or one the table does not know.
    fn new(p: &str) -> Option<Spelling> {
        let mut words = p.split(' ');
        let program = crate::options::program(words.next()?)?;
        let mut words: Vec<&str> = words.collect();
        // `git push --force*`: the sub-commands, then that table's options.
        let mut table = program;
        let mut path = Vec::new();
        while let Some(sub) = words.first().and_then(|w| table.subs.iter().find(|s| s.names.contains(w))) {
            path.push(sub.names[0]);
            table = sub;
            words.remove(0);
        }
        let mut opts: Vec<&str> = Vec::new();
        let mut rest: Option<String> = None;
        for (i, w) in words.iter().enumerate() {
            let tail = words[i + 1..].join(" ");
            if w.starts_with('-') && *w != "-" && *w != "--" {
                match w.strip_suffix('*') {
                    // `-rf*`: these options, then anything (more letters of the cluster too).
                    Some(o) if !o.contains('*') && o.len() > 1 => {
                        opts.push(o);
                        rest = Some(format!("*{}{tail}", if tail.is_empty() { "" } else { " " }));
                        break;
                    }
                    None => opts.push(w),
                    Some(_) => return None,
                }
            } else {
                rest = Some(words[i..].join(" "));
                break;
            }
        }
        if opts.is_empty() {
            return None;
        }
        let mut parsed = table.parse(&opts);
        // `make -E*`, `zip -TT*`: the last option takes a value the `*` stands for (any value,
        // glued or the next word), not an option missing its value.
        let starred = rest.as_deref().is_some_and(|r| r.starts_with('*'));
        if starred && parsed.unknown.last().is_some_and(|u| Some(u.as_str()) == opts.last().copied()) {
            let mut with_value = opts.clone();
            with_value.push("*");
            parsed = table.parse(&with_value);
        }
        if !parsed.unknown.is_empty() || !parsed.operands.is_empty() || !parsed.path.is_empty() {
            return None;
        }
        let required = parsed.found.iter().map(|f| (f.opt, f.value.clone())).collect();
        let rest = match rest {
            Some(r) => Some(Box::new(CommandPattern::new(&r))),
            None if p.contains('*') => return None,
            None => None,
        };
        Some(Spelling { program, path, required, rest })
    }

    fn matches(&self, text: &str) -> bool {
        let words: Vec<&str> = text.split(' ').collect();
        let Some(first) = words.first() else { return false };
        if !crate::options::program(first).is_some_and(|p| std::ptr::eq(p, self.program)) {
            return false;
        }
        let parsed = self.program.parse(&words[1..]);
        if parsed.path != self.path {
            return false;
        }
        let has = |(opt, value): &(&'static crate::options::Opt, Option<String>)| {
            parsed.found.iter().any(|f| {
                std::ptr::eq(f.opt, *opt)
                    && match value {
                        None => true,
                        Some(v) => f.value.as_deref().is_some_and(|fv| CommandPattern::new(v).matches(fv)),
                    }
            })
        };
        if !self.required.iter().all(has) {
            return false;
        }
        match &self.rest {
            Some(rest) => rest.matches(&parsed.operands.join(" ")),
            None => {
                parsed.operands.is_empty()
                    && parsed.unknown.is_empty()
                    && parsed.found.iter().all(|f| self.required.iter().any(|(o, _)| std::ptr::eq(f.opt, *o)))
            }
        }
    }
}

impl CommandPattern {
    /// Compile a pattern; whitespace runs are folded to one space, as commands are rendered.
    ///
    /// The program name is a whole word: a `*` glued to the end of a plain first word
    /// (`cp*`) means "then any arguments" (`cp *`), so `bash(cp*)` covers `cp a b` and never
    /// `cpio` or `cpan`. Stars inside the first word (`a*b`) still match within it.
    pub fn new(pattern: &str) -> CommandPattern {
        let mut folded = pattern.split_whitespace().collect::<Vec<_>>().join(" ");
        let end = folded.find(' ').unwrap_or(folded.len());
        let first = &folded[..end];
        if let Some(name) = first.strip_suffix('*') {
            if !name.is_empty() && !name.contains('*') && !name.ends_with(':') {
                folded = format!("{name} *{}", &folded[end..]);
            }
        }
        let spelling = Spelling::new(&folded);
        let mut p = folded.as_str();
        let mut bare_prefix = None;
        if let Some(prefix) = p.strip_suffix(":*") {
            bare_prefix = Some(prefix.to_string());
            p = prefix;
            // `npm run test:*` means `npm run test` then any arguments.
            let segments = split_stars(p);
            return CommandPattern {
                leading_star: p.starts_with('*'),
                trailing_star: true,
                segments: with_space_suffix(segments),
                bare_prefix,
                spelling,
            };
        }
        if let Some(prefix) = p.strip_suffix(" *") {
            bare_prefix = Some(prefix.to_string());
        }
        CommandPattern {
            leading_star: p.starts_with('*'),
            trailing_star: p.ends_with('*'),
            segments: split_stars(p),
            bare_prefix,
            spelling,
        }
    }

    /// Does the text match, read as written or (for a program with an option table) with its
    /// options in any spelling the program accepts? For deny and ask rules only: an allow rule
    /// matches the command as written.
    pub fn matches_any_spelling(&self, text: &str) -> bool {
        self.matches(text) || self.spelling.as_ref().is_some_and(|s| s.matches(text))
    }

    /// The first word of the pattern, if the pattern starts with a whole literal word.
    fn first_word(&self) -> Option<&str> {
        if self.leading_star {
            return None;
        }
        let first = self.segments.first()?;
        match first.find(' ') {
            Some(i) => Some(&first[..i]),
            None if self.segments.len() == 1 && !self.trailing_star => Some(first),
            None => None,
        }
    }

    /// Could a text that starts with `prefix` match? True when the pattern's literal start and
    /// the prefix agree as far as both go (the rest of the text is unknown).
    pub fn could_match_prefix(&self, prefix: &str) -> bool {
        if self.leading_star {
            return true;
        }
        let lit = self.segments.first().map_or("", String::as_str);
        lit.starts_with(prefix) || prefix.starts_with(lit)
    }

    /// Does the whole text match?
    pub fn matches(&self, text: &str) -> bool {
        if let Some(prefix) = &self.bare_prefix {
            if text == prefix {
                return true;
            }
        }
        wildcard_match(&self.segments, self.leading_star, self.trailing_star, text)
    }
}

/// What in a command rule's pattern could surprise its author (for `wicket policy lint`):
/// empty when nothing does.
pub fn command_pattern_warnings(pattern: &str) -> Vec<String> {
    let folded = pattern.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = folded.split(' ').next().unwrap_or("");
    let mut out = Vec::new();
    if folded == "*" {
        return out;
    }
    if first.starts_with('*') {
        out.push(format!("`{pattern}` starts with `*`: it matches any program whose command line ends this way"));
    } else if let Some(name) = first.strip_suffix('*').filter(|n| !n.contains('*') && !n.ends_with(':')) {
        out.push(format!(
            "`{first}` matches the program `{name}` only, with any arguments (not `{name}io` or `{name}an`); \
             write `{name} *` to say so, and add a rule for each other program you mean"
        ));
    } else if first.contains('*') {
        out.push(format!("`{first}` has a `*` inside the program name: it matches every program of that shape"));
    }
    if let Some(mut table) = crate::options::program(first.trim_end_matches('*')) {
        let mut rest: Vec<&str> = folded.split(' ').skip(1).collect();
        // The sub-commands the pattern names (`git push --force`): their options are the
        // sub-command's.
        while let Some(sub) = rest.first().and_then(|w| table.subs.iter().find(|s| s.names.contains(w))) {
            table = sub;
            rest.remove(0);
        }
        let words: Vec<&str> = rest
            .into_iter()
            .map(|w| w.trim_end_matches('*'))
            .filter(|w| w.len() > 1 && w.starts_with('-') && !w.contains('*'))
            .collect();
        let unknown = table.parse(&words).unknown;
        if !unknown.is_empty() {
            out.push(format!("`{}` does not know the option(s) {}", table.names[0], unknown.join(", ")));
        }
    }
    out
}

fn split_stars(p: &str) -> Vec<String> {
    p.split('*').filter(|s| !s.is_empty()).map(String::from).collect()
}

fn with_space_suffix(mut segments: Vec<String>) -> Vec<String> {
    match segments.last_mut() {
        Some(last) => last.push(' '),
        None => segments.push(" ".to_string()),
    }
    segments
}

/// Anchored wildcard match of literal segments separated by `*`. Linear in the text for each
/// segment: the greedy leftmost choice is always safe for `*`-only patterns.
pub(crate) fn wildcard_match(segments: &[String], leading: bool, trailing: bool, text: &str) -> bool {
    if segments.is_empty() {
        return leading || trailing || text.is_empty();
    }
    let mut pos = 0usize;
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        if i == 0 && !leading {
            if !text.starts_with(seg.as_str()) {
                return false;
            }
            pos = seg.len();
            if last && !trailing {
                return pos == text.len();
            }
            continue;
        }
        if last && !trailing {
            // The last literal must sit at the very end, after the current position.
            return text.len() >= pos + seg.len() && text.ends_with(seg.as_str()) && {
                let start = text.len() - seg.len();
                start >= pos && text.is_char_boundary(start)
            };
        }
        match text[pos..].find(seg.as_str()) {
            Some(at) => pos += at + seg.len(),
            None => return false,
        }
    }
    true
}

/// Options for compiling path globs.
#[derive(Debug, Clone, Copy, Default)]
pub struct GlobOptions {
    /// Fold letter case (case-insensitive filesystems).
    pub case_insensitive: bool,
}

/// Turn a rule's path pattern into a glob: relative patterns are relative to the root, a
/// pattern without `/` matches at any depth, a trailing `/` means everything below.
/// Returns the glob text and whether it is absolute.
pub fn path_glob(pattern: &str, home: Option<&str>) -> (String, bool) {
    let mut p = pattern.trim().to_string();
    if p == "~" || p.starts_with("~/") {
        if let Some(h) = home {
            p = format!("{}{}", h.trim_end_matches('/'), &p[1..]);
        }
    }
    while let Some(rest) = p.strip_prefix("./") {
        p = rest.to_string();
    }
    if p.ends_with('/') && p.len() > 1 {
        p.push_str("**");
    }
    if p.starts_with('/') {
        return (p, true);
    }
    if p.is_empty() || p == "." {
        return ("**".to_string(), false);
    }
    if !p.contains('/') {
        p = format!("**/{p}");
    }
    (p, false)
}

/// Compile one glob with `*` never crossing `/`.
pub fn compile_glob(glob: &str, opts: GlobOptions) -> Result<globset::Glob, globset::Error> {
    GlobBuilder::new(glob)
        .literal_separator(true)
        .case_insensitive(opts.case_insensitive)
        .backslash_escape(true)
        .build()
}

/// A rule's pattern that is not a valid path glob, so the rule could never match a path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the path pattern {pattern:?} is not a valid glob: {why} (in a glob `[...]` is a character class and \
     `{{a,b}}` a choice; write `\\[` or `[[]` for a literal `[`)"
)]
pub struct BadGlob {
    /// The pattern as written in the rule.
    pub pattern: String,
    /// What the glob parser found wrong (`unclosed character class; missing ']'`).
    pub why: String,
}

/// The tools wicket decides under its own names (every other call is an MCP tool,
/// `mcp__<server>__<tool>`).
pub const TOOLS: &[&str] = &["bash", "read_file", "write_file", "edit_file", "glob", "grep", "web_fetch", "web_search"];

/// Read a rule as written in settings or on the command line: wicket's own form as it is, and
/// Claude Code's permission syntax (`Bash(npm run test:*)`, `Read(./.env)`, `Edit(src/**)`,
/// `WebFetch(domain:example.com)`) as the wicket rules with the meaning Claude Code gives it.
/// A rule that could never match (a tool wicket does not decide, a URL where a host belongs, an
/// MCP name without its tool) is an error that says what to write instead: a deny rule that
/// does nothing is a hole, not a style problem.
pub fn expand(text: &str) -> Result<Vec<Rule>, RuleError> {
    let rule = Rule::parse(text)?;
    let err = |why: String| RuleError { rule: text.trim().to_string(), why };
    let with = |tools: &[&str], pattern: Option<String>| -> Vec<Rule> {
        tools.iter().map(|t| Rule { tool: (*t).to_string(), pattern: pattern.clone() }).collect()
    };
    let claude_path = |p: &Option<String>| -> Result<Option<String>, RuleError> {
        let Some(p) = p else { return Ok(None) };
        let p = p.trim();
        if let Some(abs) = p.strip_prefix("//") {
            return Ok(Some(format!("/{abs}")));
        }
        if p.starts_with('/') {
            return Err(err(format!(
                "in Claude Code's syntax `{p}` is relative to the settings file, which wicket cannot know here; \
                 write `{}` for a path in the project, or `/{p}` for the absolute path",
                p.trim_start_matches('/')
            )));
        }
        Ok(Some(p.strip_prefix("./").unwrap_or(p).to_string()))
    };
    let tool = rule.tool.as_str();
    let rules = match tool {
        // Claude Code's names: its `Bash(cmd:*)` prefix form is wicket's own too.
        "Bash" => with(&["bash"], rule.pattern.clone()),
        "Read" => with(&["read_file", "glob", "grep"], claude_path(&rule.pattern)?),
        "Edit" => with(&["edit_file", "write_file"], claude_path(&rule.pattern)?),
        "Write" => with(&["write_file"], claude_path(&rule.pattern)?),
        "MultiEdit" | "NotebookEdit" => with(&["edit_file"], claude_path(&rule.pattern)?),
        "Glob" => with(&["glob"], claude_path(&rule.pattern)?),
        "Grep" => with(&["grep"], claude_path(&rule.pattern)?),
        "WebSearch" => with(&["web_search"], rule.pattern.clone()),
        "WebFetch" => match rule.pattern.as_deref().map(str::trim) {
            None => with(&["web_fetch"], None),
            Some(p) => match p.strip_prefix("domain:") {
                Some(host) => with(&["web_fetch"], Some(host.trim().to_string())),
                None => {
                    return Err(err(format!(
                        "Claude Code's WebFetch rules name a host as `WebFetch(domain:example.com)`; `{p}` is not one"
                    )))
                }
            },
        },
        _ => vec![rule],
    };
    for r in &rules {
        check_tool(r).map_err(&err)?;
    }
    Ok(rules)
}

/// Why a rule in wicket's own form could never match, with what to write instead.
fn check_tool(rule: &Rule) -> Result<(), String> {
    let tool = rule.tool.as_str();
    if let Some(prefix) = tool.strip_suffix('*') {
        // A prefix must be able to cover something: a tool of wicket's or an MCP tool.
        let covers =
            TOOLS.iter().any(|t| t.starts_with(prefix)) || "mcp__".starts_with(prefix) || prefix.starts_with("mcp__");
        return if covers { Ok(()) } else { Err(unknown(tool)) };
    }
    if let Some(rest) = tool.strip_prefix("mcp__") {
        return match rest.split_once("__") {
            Some((server, name)) if !server.is_empty() && !name.is_empty() => Ok(()),
            _ => Err(format!(
                "MCP tools are named `mcp__<server>__<tool>`; for every tool of the server `{}` write `mcp__{}__*`",
                rest.trim_end_matches('_'),
                rest.trim_end_matches('_')
            )),
        };
    }
    if !TOOLS.contains(&tool) {
        return Err(unknown(tool));
    }
    if let (Some(p), "web_fetch") = (rule.pattern.as_deref().map(str::trim), tool) {
        if let Err(e) = HostPattern::parse(p) {
            let host = p
                .split_once("://")
                .map_or(p, |(_, rest)| rest)
                .trim_start_matches("domain:")
                .split(['/', '?', '#'])
                .next()
                .unwrap_or("");
            return Err(format!(
                "a web_fetch rule names a host (`example.com`, `*.example.com`), so this one could never match ({e}); \
                 write `web_fetch({host})`"
            ));
        }
    }
    Ok(())
}

/// The error for a tool name wicket does not decide, with the nearest one it does.
fn unknown(tool: &str) -> String {
    let claude =
        ["Bash", "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob", "Grep", "WebFetch", "WebSearch"];
    let bare = tool.trim_end_matches('*');
    // Nearest by spelling, ignoring case; wicket's own name first on a tie.
    let nearest = TOOLS
        .iter()
        .map(|t| (t, 0))
        .chain(claude.iter().map(|t| (t, 1)))
        .map(|(t, rank)| (distance(&bare.to_ascii_lowercase(), &t.to_ascii_lowercase()), rank, *t))
        .min()
        .filter(|(d, _, _)| *d <= 2)
        .map(|(_, _, t)| format!("did you mean `{t}`? "))
        .unwrap_or_default();
    let gemini = bare
        .strip_prefix("mcp_")
        .filter(|r| !r.starts_with('_'))
        .map(|_| "MCP tools are named `mcp__<server>__<tool>` (two underscores each); ".to_string())
        .unwrap_or_default();
    format!(
        "wicket decides no tool named `{tool}`, so the rule could never match; {nearest}{gemini}the tools are {}, \
         and `mcp__<server>__<tool>`; Claude Code's Bash, Read, Edit, Write, WebFetch and WebSearch are read as those",
        TOOLS.join(", ")
    )
}

/// Levenshtein distance of two short names.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Check that a rule's pattern compiles as a path glob wherever [`RuleSet::new`] would compile
/// one; used when settings load, so the error can name the file and position of the rule.
/// Bare rules, `*` and `bash` patterns (a command pattern need not be a glob) always pass.
pub fn check_path_glob(rule: &Rule) -> Result<(), BadGlob> {
    let Some(pattern) = &rule.pattern else { return Ok(()) };
    if pattern.trim() == "*" || rule.tool == "bash" {
        return Ok(());
    }
    // Validity does not depend on the home folder or the case option: `~/` is a literal prefix
    // either way and case folding only changes what matches.
    let (glob, _) = path_glob(pattern, None);
    compile_glob(&glob, GlobOptions::default()).map(|_| ()).map_err(|e| bad_glob(pattern, &e))
}

fn bad_glob(pattern: &str, e: &globset::Error) -> BadGlob {
    // The kind, not the whole error: the error quotes the internal glob (`**/[a-`), which is not
    // what the person wrote.
    BadGlob { pattern: pattern.to_string(), why: e.kind().to_string() }
}

/// True when a path pattern's last segment has no wildcard, so the rule names one file.
pub fn names_file(pattern: &str) -> bool {
    let last = pattern.trim_end_matches('/').rsplit('/').next().unwrap_or(pattern);
    !last.is_empty() && !last.contains(['*', '?', '[', '{'])
}

/// The rules of one list (allow, deny or ask) for one tool name, compiled.
#[derive(Debug, Clone, Default)]
struct ToolRules {
    /// Indices (into `RuleSet::rules`) of bare rules.
    bare: Vec<usize>,
    /// Relative path globs and their rule indices.
    rel_paths: Option<GlobSet>,
    rel_index: Vec<usize>,
    /// Absolute path globs and their rule indices.
    abs_paths: Option<GlobSet>,
    abs_index: Vec<usize>,
    /// Command patterns indexed by their first word.
    cmd_by_word: HashMap<String, Vec<usize>>,
    /// Command patterns with no literal first word.
    cmd_other: Vec<usize>,
    /// Host patterns.
    hosts: Vec<(HostPattern, usize)>,
    /// Patterns that are just `*`.
    star: Vec<usize>,
}

/// A compiled list of rules.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    rules: Vec<Rule>,
    commands: Vec<Option<CommandPattern>>,
    /// Exact tool names → rules.
    exact: HashMap<String, ToolRules>,
    /// Tool-name prefixes (rules whose tool ends in `*`) → rules.
    prefixed: Vec<(String, ToolRules)>,
    /// The file system folds case: `RM -rf x` runs `rm`, so deny rules see the program
    /// name folded too.
    fold_programs: bool,
}

/// What a path looks like to a rule set.
#[derive(Debug, Clone, Copy)]
pub struct PathView<'a> {
    /// The path relative to the root, when inside it.
    pub rel: Option<&'a str>,
    /// The absolute path.
    pub abs: &'a str,
}

impl RuleSet {
    /// Compile rules; `home` expands `~/` in path patterns.
    pub fn new(rules: Vec<Rule>, home: Option<&str>, opts: GlobOptions) -> Result<RuleSet, RuleError> {
        struct Build {
            bare: Vec<usize>,
            rel: (GlobSetBuilder, Vec<usize>),
            abs: (GlobSetBuilder, Vec<usize>),
            cmd_by_word: HashMap<String, Vec<usize>>,
            cmd_other: Vec<usize>,
            hosts: Vec<(HostPattern, usize)>,
            star: Vec<usize>,
        }
        let new_build = || Build {
            bare: Vec::new(),
            rel: (GlobSetBuilder::new(), Vec::new()),
            abs: (GlobSetBuilder::new(), Vec::new()),
            cmd_by_word: HashMap::new(),
            cmd_other: Vec::new(),
            hosts: Vec::new(),
            star: Vec::new(),
        };
        let mut builds: Vec<(String, Build)> = Vec::new();
        let mut commands = Vec::with_capacity(rules.len());
        for (i, rule) in rules.iter().enumerate() {
            let slot = match builds.iter().position(|(t, _)| *t == rule.tool) {
                Some(s) => s,
                None => {
                    builds.push((rule.tool.clone(), new_build()));
                    builds.len() - 1
                }
            };
            let b = &mut builds[slot].1;
            let Some(pattern) = &rule.pattern else {
                b.bare.push(i);
                commands.push(None);
                continue;
            };
            if pattern.trim() == "*" {
                b.star.push(i);
                commands.push(None);
                continue;
            }
            let err = |why: String| RuleError { rule: rule.to_string(), why };
            // A pattern is compiled for every kind of target it might meet; the target decides
            // which one is used. Host patterns that do not parse simply never match a host.
            let (glob, absolute) = path_glob(pattern, home);
            match compile_glob(&glob, opts) {
                Ok(compiled) if absolute => {
                    b.abs.0.add(compiled);
                    b.abs.1.push(i);
                }
                Ok(compiled) => {
                    b.rel.0.add(compiled);
                    b.rel.1.push(i);
                }
                // `bash([ -f *)`: a command pattern need not be a path glob; it then never
                // matches a path. A path rule that can never match is an error.
                Err(_) if rule.tool == "bash" => {}
                Err(e) => return Err(err(bad_glob(pattern, &e).to_string())),
            }
            let cp = CommandPattern::new(pattern);
            match cp.first_word() {
                Some(w) => b.cmd_by_word.entry(w.to_string()).or_default().push(i),
                None => b.cmd_other.push(i),
            }
            commands.push(Some(cp));
            if let Ok(hp) = HostPattern::parse(pattern) {
                b.hosts.push((hp, i));
            }
        }
        let mut exact = HashMap::new();
        let mut prefixed = Vec::new();
        for (tool, b) in builds {
            let build_set =
                |(builder, index): (GlobSetBuilder, Vec<usize>)| -> Result<(Option<GlobSet>, Vec<usize>), RuleError> {
                    if index.is_empty() {
                        return Ok((None, index));
                    }
                    let set = builder
                        .build()
                        .map_err(|e| RuleError { rule: tool.clone(), why: format!("bad path glob: {e}") })?;
                    Ok((Some(set), index))
                };
            let (rel_paths, rel_index) = build_set(b.rel)?;
            let (abs_paths, abs_index) = build_set(b.abs)?;
            let tr = ToolRules {
                bare: b.bare,
                rel_paths,
                rel_index,
                abs_paths,
                abs_index,
                cmd_by_word: b.cmd_by_word,
                cmd_other: b.cmd_other,
                hosts: b.hosts,
                star: b.star,
            };
            match tool.strip_suffix('*') {
                Some(prefix) => prefixed.push((prefix.to_string(), tr)),
                None => {
                    exact.insert(tool, tr);
                }
            }
        }
        Ok(RuleSet { rules, commands, exact, prefixed, fold_programs: opts.case_insensitive })
    }

    /// Parse and compile rule texts.
    pub fn parse<S: AsRef<str>>(texts: &[S], home: Option<&str>, opts: GlobOptions) -> Result<RuleSet, RuleError> {
        let mut rules = Vec::with_capacity(texts.len());
        for t in texts {
            rules.extend(expand(t.as_ref())?);
        }
        RuleSet::new(rules, home, opts)
    }

    /// The rules, in order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// True when there are no rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    fn groups<'a>(&'a self, tool: &'a str) -> impl Iterator<Item = &'a ToolRules> + 'a {
        self.exact
            .get(tool)
            .into_iter()
            .chain(self.prefixed.iter().filter(move |(p, _)| tool.starts_with(p.as_str())).map(|(_, r)| r))
    }

    /// True when any rule (bare or not) exists for this tool.
    pub fn has_tool(&self, tool: &str) -> bool {
        self.groups(tool).next().is_some()
    }

    /// The first bare or `*` rule for the tool.
    pub fn match_bare(&self, tool: &str) -> Option<&Rule> {
        self.groups(tool).flat_map(|g| g.bare.iter().chain(g.star.iter())).min().map(|&i| &self.rules[i])
    }

    /// The first `*` rule for the tool (`tool(*)`).
    pub fn match_star(&self, tool: &str) -> Option<&Rule> {
        self.groups(tool).flat_map(|g| g.star.iter()).min().map(|&i| &self.rules[i])
    }

    /// Rules matching a path, in rule order: bare rules, `*` and globs.
    pub fn match_path(&self, tool: &str, path: PathView<'_>) -> Vec<&Rule> {
        let mut hits: Vec<usize> = Vec::new();
        for g in self.groups(tool) {
            hits.extend(&g.bare);
            hits.extend(&g.star);
            if let (Some(set), Some(rel)) = (&g.rel_paths, path.rel) {
                hits.extend(set.matches(rel).into_iter().map(|k| g.rel_index[k]));
            }
            if let Some(set) = &g.abs_paths {
                hits.extend(set.matches(path.abs).into_iter().map(|k| g.abs_index[k]));
            }
        }
        hits.sort_unstable();
        hits.dedup();
        hits.into_iter().map(|i| &self.rules[i]).collect()
    }

    /// The first rule (in rule order) matching a path; no allocation when none matches.
    pub fn first_path(&self, tool: &str, path: PathView<'_>) -> Option<&Rule> {
        let mut best: Option<usize> = None;
        let mut take = |i: usize| {
            if best.is_none_or(|b| i < b) {
                best = Some(i);
            }
        };
        let rel = path.rel.map(globset::Candidate::new);
        let abs = globset::Candidate::new(path.abs);
        for g in self.groups(tool) {
            g.bare.iter().chain(&g.star).for_each(|&i| take(i));
            if let (Some(set), Some(rel)) = (&g.rel_paths, &rel) {
                if set.is_match_candidate(rel) {
                    set.matches_candidate(rel).into_iter().for_each(|k| take(g.rel_index[k]));
                }
            }
            if let Some(set) = &g.abs_paths {
                if set.is_match_candidate(&abs) {
                    set.matches_candidate(&abs).into_iter().for_each(|k| take(g.abs_index[k]));
                }
            }
        }
        best.map(|i| &self.rules[i])
    }

    /// The first rule whose glob (not a bare or `*` rule) matches a path and whose last
    /// segment is a literal name: the only kind that unlocks a sensitive file.
    pub fn match_path_named(&self, tool: &str, path: PathView<'_>) -> Option<&Rule> {
        self.match_path(tool, path)
            .into_iter()
            .find(|r| r.pattern.as_deref().is_some_and(|p| p.trim() != "*" && names_file(p)))
    }

    /// The first rule matching a command part (bare and `*` rules included).
    pub fn match_command(&self, tool: &str, text: &str) -> Option<&Rule> {
        self.match_command_where(tool, text, |_| true)
    }

    /// The first rule matching a command part in any spelling of its options (deny and ask
    /// rules: `rm -rf*` matches `rm --recursive --force x`).
    pub fn match_command_any_spelling(&self, tool: &str, text: &str) -> Option<&Rule> {
        let hit = self.find_command(tool, text, |_| true, true);
        if hit.is_some() || !self.fold_programs {
            return hit;
        }
        // On a case-insensitive file system `RM`, `Rm` and `/BIN/rm` name the same program.
        let (program, rest) = text.split_once(' ').map_or((text, ""), |(p, r)| (p, r));
        let folded = program.to_lowercase();
        if folded == program {
            return None;
        }
        let text = if rest.is_empty() { folded } else { format!("{folded} {rest}") };
        self.find_command(tool, &text, |_| true, true)
    }

    /// The first rule matching a command part that also passes `accept`.
    pub fn match_command_where(&self, tool: &str, text: &str, accept: impl Fn(&Rule) -> bool) -> Option<&Rule> {
        self.find_command(tool, text, accept, false)
    }

    fn find_command(&self, tool: &str, text: &str, accept: impl Fn(&Rule) -> bool, spellings: bool) -> Option<&Rule> {
        let first = text.split(' ').next().unwrap_or("");
        let mut best: Option<usize> = None;
        for g in self.groups(tool) {
            for &i in g.bare.iter().chain(g.star.iter()) {
                if best.is_none_or(|b| i < b) && accept(&self.rules[i]) {
                    best = Some(i);
                }
            }
            let by_word = g.cmd_by_word.get(first).into_iter().flatten();
            for &i in by_word.chain(g.cmd_other.iter()) {
                if best.is_some_and(|b| b < i) {
                    continue;
                }
                let hit = |c: &CommandPattern| if spellings { c.matches_any_spelling(text) } else { c.matches(text) };
                if self.commands[i].as_ref().is_some_and(hit) && accept(&self.rules[i]) {
                    best = Some(i);
                }
            }
        }
        best.map(|i| &self.rules[i])
    }

    /// The first command rule that could match a text starting with `prefix` (whatever
    /// follows): its literal start and the prefix agree as far as both go.
    pub fn could_match_prefix(&self, tool: &str, prefix: &str) -> Option<&Rule> {
        let mut best: Option<usize> = None;
        for g in self.groups(tool) {
            let candidates = g.bare.iter().chain(&g.star).chain(g.cmd_by_word.values().flatten()).chain(&g.cmd_other);
            for &i in candidates {
                let could = match &self.commands[i] {
                    None => true,
                    Some(c) => c.could_match_prefix(prefix),
                };
                if could && best.is_none_or(|b| i < b) {
                    best = Some(i);
                }
            }
        }
        best.map(|i| &self.rules[i])
    }

    /// The first rule matching a host (bare and `*` rules included; `*` never matches an IP
    /// literal or a non-ASCII name: see [`HostPattern`]).
    pub fn match_host(&self, tool: &str, host: &Host) -> Option<&Rule> {
        self.match_host_by(tool, host, HostPattern::matches)
    }

    /// The first rule for `tool` whose host pattern reaches `host` in any spelling
    /// ([`HostPattern::covers`]): what deny and ask rules use, so a rule for `10.0.0.5` also
    /// stops `[::ffff:10.0.0.5]` and `10-0-0-5.sslip.io`.
    pub fn match_host_any_spelling(&self, tool: &str, host: &Host) -> Option<&Rule> {
        self.match_host_by(tool, host, HostPattern::covers)
    }

    fn match_host_by(&self, tool: &str, host: &Host, hit: fn(&HostPattern, &Host) -> bool) -> Option<&Rule> {
        let mut best: Option<usize> = None;
        for g in self.groups(tool) {
            for &i in g.bare.iter().chain(g.star.iter()) {
                let star_ok = g.bare.contains(&i) || HostPattern::parse("*").is_ok_and(|p| p.matches(host));
                if star_ok && best.is_none_or(|b| i < b) {
                    best = Some(i);
                }
            }
            for (p, i) in &g.hosts {
                if hit(p, host) && best.is_none_or(|b| *i < b) {
                    best = Some(*i);
                }
            }
        }
        best.map(|i| &self.rules[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_patterns() {
        let cases = [
            ("pnpm test*", "pnpm test", true),
            ("pnpm test*", "pnpm test --watch", true),
            ("pnpm test*", "pnpm tes", false),
            ("git status *", "git status", true),
            ("git status *", "git status -s", true),
            ("git status *", "git statusx", false),
            ("npm run test:*", "npm run test", true),
            ("npm run test:*", "npm run test -- x", true),
            ("npm run test:*", "npm run testx", false),
            ("rm -rf*", "rm -rf /", true),
            ("*", "anything at all", true),
            ("*install", "npm install", true),
            ("*install", "npm install x", false),
            ("a*b*c", "aXXbYYc", true),
            ("a*b*c", "abc", true),
            ("a*b*c", "acb", false),
            ("git  status", "git status", true),
            ("ab*ab", "ab", false),
        ];
        for (p, t, want) in cases {
            assert_eq!(CommandPattern::new(p).matches(t), want, "{p} vs {t}");
        }
    }

    #[test]
    fn a_bash_rule_with_a_bracket_loads() {
        let set = RuleSet::parse(&["bash([ -f *)", "bash(test [ *)"], None, GlobOptions::default()).unwrap();
        assert!(set.match_command("bash", "[ -f a.txt ]").is_some());
        assert!(RuleSet::parse(&["read_file([)"], None, GlobOptions::default()).is_err());
    }

    #[test]
    fn program_names_fold_case_for_deny_on_case_insensitive_file_systems() {
        let folding = RuleSet::parse(&["bash(rm -rf*)"], None, GlobOptions { case_insensitive: true }).unwrap();
        assert!(folding.match_command_any_spelling("bash", "RM -Rf x").is_some());
        assert!(folding.match_command_any_spelling("bash", "Rm --rec --for x").is_some());
        let exact = RuleSet::parse(&["bash(rm -rf*)"], None, GlobOptions::default()).unwrap();
        assert!(exact.match_command_any_spelling("bash", "RM -Rf x").is_none());
    }

    #[test]
    fn pattern_warnings() {
        assert_eq!(command_pattern_warnings("cp*").len(), 1);
        assert_eq!(command_pattern_warnings("*install").len(), 1);
        assert_eq!(command_pattern_warnings("py*n *").len(), 1);
        assert_eq!(command_pattern_warnings("rm --bogus *").len(), 1);
        assert!(command_pattern_warnings("cp *").is_empty());
        assert!(command_pattern_warnings("npm run test:*").is_empty());
        assert!(command_pattern_warnings("rm -rf*").is_empty());
        assert!(command_pattern_warnings("*").is_empty());
        // A sub-command's options are read with its own table.
        assert!(command_pattern_warnings("git push --force*").is_empty());
        assert!(command_pattern_warnings("git -C * log --oneline*").is_empty());
        assert_eq!(command_pattern_warnings("git push --frobnicate*").len(), 1);
    }

    #[test]
    fn program_names_are_whole_words() {
        for (p, t, want) in [
            ("cp*", "cp a b", true),
            ("cp*", "cp", true),
            ("cp*", "cpio -i", false),
            ("cp*", "cpan x", false),
            ("cp* -r *", "cp -v -r a b", true),
            ("cp* -r *", "cpp -r a b", false),
        ] {
            assert_eq!(CommandPattern::new(p).matches(t), want, "{p} vs {t}");
        }
    }

    #[test]
    fn rule_parse_errors_quote_the_rule() {
        for bad in ["", "bash(", "bash()", "ba*sh", "bash(x", "(x)", "bash x", "bash)"] {
            let e = Rule::parse(bad).expect_err(bad);
            assert!(e.to_string().contains("accepted forms"), "{e}");
        }
        assert_eq!(Rule::parse("mcp__github__*").map(|r| r.tool), Ok("mcp__github__*".into()));
    }

    #[test]
    fn path_globs() {
        assert_eq!(path_glob("*.rs", None), ("**/*.rs".into(), false));
        assert_eq!(path_glob("src/**", None), ("src/**".into(), false));
        assert_eq!(path_glob("src/", None), ("src/**".into(), false));
        assert_eq!(path_glob("./a/b", None), ("a/b".into(), false));
        assert_eq!(path_glob("~/x/*", Some("/home/u")), ("/home/u/x/*".into(), true));
        assert!(names_file("config/.env.example"));
        assert!(!names_file("**"));
        assert!(!names_file(".env*"));
    }
}
