//! Walks the tree-sitter-bash tree and lists every simple command bash could run. The hard
//! question: is there any place in the string where bash would run something that is not in
//! the list? The walker must never skip a node it does not know (unknown kinds are
//! [`ProblemKind::Unsupported`]), never recurse on input depth (an explicit stack keeps 5,000
//! nesting levels safe on a small thread stack), and never stop listing at a limit: limits only
//! add problems.
//!
//! Redirections on compound statements (`{ …; } > f`, `while …; done < f`, `(…) 2>e`,
//! `f() { …; } > f`) are copied onto every simple command inside; when the compound statement
//! holds no simple command at all (`[[ -f x ]] > f`), a synthetic [`SimpleCommand`] with empty
//! `words` carries them. A bare redirection (`> f`) is likewise a command with empty words.

use std::rc::Rc;

use tree_sitter::Node;

use crate::canary;
use crate::parse::parse;
use crate::types::*;
use crate::word::{heredoc_backticks, literal, operator_end, text, unescape_backtick, word_of};

/// Inputs longer than this many bytes are not parsed ([`ProblemKind::TooLong`]).
pub const MAX_INPUT_BYTES: usize = 65536;
/// Nesting deeper than this ([`ProblemKind::TooDeep`]): substitutions, subshells, groups,
/// control structures, function bodies, test and arithmetic expressions each add a level.
pub const MAX_DEPTH: u32 = 64;
/// More simple commands than this make the analysis not understood
/// ([`ProblemKind::TooManyParts`]); all of them are still listed.
pub const MAX_COMMANDS: usize = 512;
/// At most this many problems of one kind are recorded (the first ones).
const MAX_PROBLEMS_PER_KIND: usize = 4;

/// Programs whose arguments become code the analysis cannot see.
const UNSEEN_CODE: &[&str] = &["eval", "source", ".", "alias"];

/// Words that bash reads as reserved words in command position: a "command" named like this
/// means the tree and bash disagree.
const RESERVED: &[&str] =
    &["{", "}", "then", "fi", "do", "done", "esac", "elif", "else", "in", "[[", "]]", "function", "select"];

/// Analyse a command string: every simple command bash could run, in source order (an outer
/// command before the commands nested in its words), with a verdict on whether the analysis is
/// complete.
///
/// Never panics, never recurses on input depth, and does not parse inputs longer than
/// [`MAX_INPUT_BYTES`] or containing NUL bytes.
///
/// ```
/// let a = wicket_shell::analyze("pnpm test && rm -rf /");
/// let parts: Vec<String> = a.commands.iter().map(|c| c.canonical()).collect();
/// assert_eq!(parts, ["pnpm test", "rm -rf /"]);
/// assert!(a.understood && a.compound);
///
/// assert!(!wicket_shell::analyze("$cmd -rf /").understood);
/// ```
pub fn analyze(src: &str) -> Analysis {
    let mut walker = Walker::default();
    walker.walk_source(src, 0, Context::Top);
    walker.finish()
}

/// The state shared by the main walk and the re-parses it starts (backticks with escapes,
/// backticks in here-documents).
#[derive(Default)]
struct Walker {
    commands: Vec<SimpleCommand>,
    problems: Vec<Problem>,
    compound: bool,
}

type Inherited = Option<Rc<Vec<Redirect>>>;

enum Task<'t> {
    /// Visit a node. `expr`: the node sits in an expression (a bare assignment there is not a
    /// command).
    Visit { node: Node<'t>, ctx: Context, depth: u32, expr: bool, inh: Inherited },
    /// After a redirected compound statement: if it produced no command, add a synthetic one.
    Finish { start: usize, node: Node<'t>, ctx: Context, inh: Inherited },
}

/// What a redirection node contributes.
#[derive(Default)]
struct RedirectParts<'t> {
    redirects: Vec<Redirect>,
    /// Extra destination words: arguments of the command (`echo a > f b`).
    extra_words: Vec<Word>,
    /// Nodes to scan for substitutions.
    scan: Vec<(Node<'t>, Context)>,
    /// Statements that ride on a here-document line (`cat <<EOF | grep x`).
    statements: Vec<Node<'t>>,
}

impl Walker {
    fn problem(&mut self, kind: ProblemKind, detail: impl Into<String>) {
        let same_kind = self.problems.iter().filter(|p| p.kind == kind).count();
        if same_kind < MAX_PROBLEMS_PER_KIND {
            let detail = detail.into();
            if !self.problems.iter().any(|p| p.kind == kind && p.detail == detail) {
                self.problems.push(Problem { kind, detail });
            }
        }
    }

    fn finish(mut self) -> Analysis {
        if self.commands.len() > MAX_COMMANDS {
            let n = self.commands.len();
            self.problem(ProblemKind::TooManyParts, format!("{n} simple commands (limit {MAX_COMMANDS})"));
        }
        let compound = self.compound || self.commands.len() > 1;
        Analysis { understood: self.problems.is_empty(), commands: self.commands, problems: self.problems, compound }
    }

    /// Parses and walks one piece of source (the input, or text re-parsed from inside it).
    fn walk_source(&mut self, src: &str, depth: u32, ctx: Context) {
        if src.len() > MAX_INPUT_BYTES {
            let n = src.len();
            self.problem(ProblemKind::TooLong, format!("{n} bytes (limit {MAX_INPUT_BYTES})"));
            return;
        }
        if src.contains('\0') {
            self.problem(ProblemKind::BadInput, "the command contains a NUL byte");
            return;
        }
        if depth > MAX_DEPTH {
            self.problem(ProblemKind::TooDeep, format!("nesting deeper than {MAX_DEPTH} levels"));
            return;
        }
        let Some(tree) = parse(src) else {
            self.problem(ProblemKind::ParseError, "the parser gave up");
            return;
        };
        let root = tree.root_node();
        if root.has_error() {
            self.problem(ProblemKind::ParseError, first_error(root, src));
        }
        if let Some(p) = canary::check(root, src) {
            self.problem(ProblemKind::ParseError, p);
        }
        self.walk_tree(root, src, depth, ctx);
    }

    fn walk_tree<'t>(&mut self, root: Node<'t>, src: &str, depth: u32, ctx: Context) {
        let mut stack: Vec<Task<'t>> = vec![Task::Visit { node: root, ctx, depth, expr: false, inh: None }];
        let mut too_deep = false;
        while let Some(task) = stack.pop() {
            match task {
                Task::Finish { start, node, ctx, inh } => {
                    if self.commands.len() == start {
                        let redirects = inh.map(|r| r.as_ref().clone()).unwrap_or_default();
                        self.commands.push(SimpleCommand {
                            assignments: Vec::new(),
                            words: Vec::new(),
                            redirects,
                            context: ctx,
                            source: text(node, src).to_string(),
                        });
                    }
                }
                Task::Visit { node, ctx, depth, expr, inh } => {
                    if depth > MAX_DEPTH {
                        if !too_deep {
                            too_deep = true;
                            self.problem(ProblemKind::TooDeep, format!("nesting deeper than {MAX_DEPTH} levels"));
                        }
                        continue;
                    }
                    self.visit(node, src, ctx, depth, expr, inh, &mut stack);
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn visit<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        depth: u32,
        expr: bool,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
        let kind = node.kind();
        if !node.is_named() {
            return;
        }
        // Children in the same context, mode and depth.
        let same = |stack: &mut Vec<Task<'t>>, expr: bool, ctx: Context, depth: u32, inh: &Inherited| {
            push_children(stack, node, ctx, depth, expr, inh);
        };
        match kind {
            "program" => {
                let mut cursor = node.walk();
                if node.children(&mut cursor).any(|c| !c.is_named() && c.kind() == "&") {
                    self.compound = true;
                }
                same(stack, false, ctx, depth, &inh);
            }
            "list" | "pipeline" | "negated_command" => {
                self.compound = true;
                same(stack, false, ctx, depth, &inh);
            }
            "do_group" | "else_clause" | "elif_clause" | "case_item" => same(stack, false, ctx, depth, &inh),
            "if_statement" | "while_statement" | "for_statement" | "case_statement" => {
                self.compound = true;
                same(stack, false, ctx, depth + 1, &inh);
            }
            "c_style_for_statement" => {
                self.compound = true;
                for (field, child) in fielded_children(node).into_iter().rev() {
                    let expr = field != Some("body");
                    stack.push(Task::Visit { node: child, ctx, depth: depth + 1, expr, inh: inh.clone() });
                }
            }
            "compound_statement" => {
                self.compound = true;
                let arithmetic = node.child(0).is_some_and(|c| c.kind() == "((");
                same(stack, arithmetic || expr, ctx, depth + 1, &inh);
            }
            "subshell" => {
                self.compound = true;
                same(stack, false, sticky(ctx, Context::Subshell), depth + 1, &inh);
            }
            "test_command" => {
                self.compound = true;
                same(stack, true, ctx, depth + 1, &inh);
            }
            "function_definition" => {
                self.compound = true;
                let mut parts = RedirectParts::default();
                let mut body = None;
                for (field, child) in fielded_children(node) {
                    match field {
                        Some("body") => body = Some(child),
                        Some("redirect") => self.redirect(child, src, ctx, &mut parts),
                        _ => {}
                    }
                }
                self.compound_redirects(node, body, parts, sticky(ctx, Context::Function), depth + 1, inh, stack);
            }
            "redirected_statement" => {
                let mut body = None;
                let mut redirect_nodes = Vec::new();
                for (field, child) in fielded_children(node) {
                    if field == Some("body") {
                        body = Some(child);
                    } else if child.is_named() && child.kind() != "comment" {
                        redirect_nodes.push(child);
                    }
                }
                match body {
                    Some(b) if is_simple(b.kind()) => {
                        self.emit(b, &redirect_nodes, src, ctx, depth, inh, stack);
                    }
                    None => self.emit(node, &redirect_nodes, src, ctx, depth, inh, stack),
                    Some(b) => {
                        self.compound = true;
                        let mut parts = RedirectParts::default();
                        for r in redirect_nodes {
                            self.redirect(r, src, ctx, &mut parts);
                        }
                        if !parts.extra_words.is_empty() {
                            self.problem(
                                ProblemKind::ParseError,
                                format!(
                                    "words after a redirection of a compound statement: `{}`",
                                    snippet(text(node, src))
                                ),
                            );
                        }
                        self.compound_redirects(node, Some(b), parts, ctx, depth, inh, stack);
                    }
                }
            }
            "command" | "declaration_command" | "unset_command" => {
                self.emit(node, &[], src, ctx, depth, inh, stack);
            }
            "variable_assignment" | "variable_assignments" => {
                if expr {
                    same(stack, true, ctx, depth, &inh);
                } else {
                    self.emit(node, &[], src, ctx, depth, inh, stack);
                }
            }
            "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                // A redirection standing alone (`$(<file)`): a command with empty words.
                self.emit(node, &[node], src, ctx, depth, inh, stack);
            }
            "command_substitution" => {
                self.compound = true;
                let inner_ctx = sticky(ctx, Context::CommandSubstitution);
                if canary::backtick_reparsed(node, src) {
                    let t = text(node, src);
                    let inner = t.get(1..t.len().saturating_sub(1)).unwrap_or("");
                    let in_dq = node.parent().is_some_and(|p| p.kind() == "string");
                    let unescaped = unescape_backtick(inner, in_dq);
                    self.walk_source(&unescaped, depth + 1, inner_ctx);
                } else {
                    same(stack, false, inner_ctx, depth + 1, &inh);
                }
            }
            "process_substitution" => {
                self.compound = true;
                same(stack, false, sticky(ctx, Context::ProcessSubstitution), depth + 1, &inh);
            }
            "arithmetic_expansion" | "expansion" | "parenthesized_expression" | "subscript" | "array" => {
                same(stack, true, ctx, depth + 1, &inh);
            }
            "string" | "concatenation" | "binary_expression" | "unary_expression" | "ternary_expression"
            | "postfix_expression" | "translated_string" | "command_name" | "number" | "simple_expansion"
            | "brace_expression" => same(stack, true, ctx, depth, &inh),
            "heredoc_body" => {
                // Literal text first (backticks in it are re-parsed), then the expansions.
                for (start, end) in canary::heredoc_text_segments(node) {
                    match heredoc_backticks(src.get(start..end).unwrap_or("")) {
                        Ok(found) => {
                            for inner in found {
                                self.compound = true;
                                self.walk_source(&inner, depth + 1, Context::HereDoc);
                            }
                        }
                        Err(e) => self.problem(ProblemKind::ParseError, e),
                    }
                }
                same(stack, true, Context::HereDoc, depth, &inh);
            }
            "heredoc_content" => {}
            "word"
            | "raw_string"
            | "ansi_c_string"
            | "string_content"
            | "variable_name"
            | "special_variable_name"
            | "extglob_pattern"
            | "regex"
            | "test_operator"
            | "file_descriptor"
            | "heredoc_start"
            | "heredoc_end"
            | "comment" => {}
            "ERROR" => {
                // Already a parse error; still list what can be found.
                same(stack, expr, ctx, depth, &inh);
            }
            other => {
                self.problem(ProblemKind::Unsupported, format!("unsupported shell construct `{other}`"));
            }
        }
    }

    /// A compound statement with redirections: walk the body with the redirections inherited,
    /// add a synthetic command if the body has none, then scan the redirections.
    #[allow(clippy::too_many_arguments)]
    fn compound_redirects<'t>(
        &mut self,
        node: Node<'t>,
        body: Option<Node<'t>>,
        parts: RedirectParts<'t>,
        ctx: Context,
        depth: u32,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
        let inh = if parts.redirects.is_empty() {
            inh
        } else {
            let mut all = inh.map(|r| r.as_ref().clone()).unwrap_or_default();
            all.extend(parts.redirects);
            Some(Rc::new(all))
        };
        // Popped last: here-document statements, then the redirection targets.
        for stmt in parts.statements.into_iter().rev() {
            stack.push(Task::Visit { node: stmt, ctx, depth, expr: false, inh: None });
        }
        for (n, c) in parts.scan.into_iter().rev() {
            stack.push(Task::Visit { node: n, ctx: c, depth, expr: true, inh: None });
        }
        if inh.is_some() {
            stack.push(Task::Finish { start: self.commands.len(), node, ctx, inh: inh.clone() });
        }
        if let Some(b) = body {
            stack.push(Task::Visit { node: b, ctx, depth, expr: false, inh });
        }
    }

    /// Builds one simple command from `node` (a `command`, declaration, bare assignment or bare
    /// redirection) plus the redirections around it, records it and schedules the scan of its
    /// words for nested commands.
    #[allow(clippy::too_many_arguments)]
    fn emit<'t>(
        &mut self,
        node: Node<'t>,
        outer: &[Node<'t>],
        src: &str,
        ctx: Context,
        depth: u32,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
        let mut cmd = SimpleCommand {
            assignments: Vec::new(),
            words: Vec::new(),
            redirects: inh.as_ref().map(|r| r.as_ref().clone()).unwrap_or_default(),
            context: ctx,
            source: String::new(),
        };
        let mut parts = RedirectParts::default();
        // Later tasks (pushed after the command is recorded): scans and subshells.
        let mut later: Vec<(Node<'t>, Context, bool)> = Vec::new();
        let mut start = node.start_byte();
        let mut end = node.end_byte();
        match node.kind() {
            "command" => {
                for (field, child) in fielded_children(node) {
                    match (field, child.kind()) {
                        (_, "comment") => {}
                        (Some("name"), _) | (Some("argument"), _) => {
                            cmd.words.push(word_of(child, src));
                            if child.named_child_count() > 0 {
                                later.push((child, ctx, true));
                            }
                        }
                        (Some("redirect"), _) => self.redirect(child, src, ctx, &mut parts),
                        (_, "variable_assignment") => {
                            cmd.assignments.push(assignment(child, src));
                            later.push((child, ctx, true));
                        }
                        (_, "subshell") => later.push((child, ctx, false)),
                        _ if child.is_named() => {
                            let k = child.kind();
                            self.problem(ProblemKind::Unsupported, format!("unsupported part `{k}` in a command"));
                        }
                        _ => {}
                    }
                }
            }
            "declaration_command" | "unset_command" => {
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    match child.kind() {
                        "comment" => {}
                        "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                            self.redirect(child, src, ctx, &mut parts)
                        }
                        _ => {
                            cmd.words.push(word_of(child, src));
                            if child.named_child_count() > 0 {
                                later.push((child, ctx, true));
                            }
                        }
                    }
                }
            }
            "variable_assignment" => {
                cmd.assignments.push(assignment(node, src));
                later.push((node, ctx, true));
            }
            "variable_assignments" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if child.kind() == "variable_assignment" {
                        cmd.assignments.push(assignment(child, src));
                        later.push((child, ctx, true));
                    } else if child.kind() != "comment" {
                        let k = child.kind();
                        self.problem(ProblemKind::Unsupported, format!("unsupported part `{k}` in assignments"));
                    }
                }
            }
            _ => {}
        }
        for r in outer {
            self.redirect(*r, src, ctx, &mut parts);
            start = start.min(r.start_byte());
            end = end.max(r.end_byte());
        }
        cmd.words.extend(parts.extra_words);
        for r in &parts.redirects {
            if !(r.op == RedirectOp::Duplicate || r.target.value.as_deref() == Some("/dev/null")) {
                self.compound = true;
            }
        }
        cmd.redirects.extend(parts.redirects);
        // The source text: the command with its own redirections, up to the here-doc line end.
        let source_end = outer
            .iter()
            .filter(|r| r.kind() == "heredoc_redirect")
            .filter_map(|r| {
                let mut c = r.walk();
                let start_node = r.children(&mut c).find(|c| c.kind() == "heredoc_start");
                start_node.map(|s| s.end_byte())
            })
            .min()
            .unwrap_or(end);
        cmd.source = src.get(start..source_end.max(start)).unwrap_or("").to_string();
        self.check_program(&cmd);
        self.commands.push(cmd);

        for stmt in parts.statements.into_iter().rev() {
            self.compound = true;
            stack.push(Task::Visit { node: stmt, ctx, depth, expr: false, inh: inh.clone() });
        }
        for (n, c) in parts.scan.into_iter().rev() {
            stack.push(Task::Visit { node: n, ctx: c, depth, expr: true, inh: None });
        }
        for (n, c, expr) in later.into_iter().rev() {
            stack.push(Task::Visit { node: n, ctx: c, depth, expr, inh: None });
        }
    }

    /// Checks on the program word of a recorded command.
    fn check_program(&mut self, cmd: &SimpleCommand) {
        let Some(program) = cmd.words.first() else {
            return;
        };
        let Some(name) = program.value.as_deref() else {
            let raw = snippet(&program.raw);
            self.problem(ProblemKind::DynamicProgram, format!("the program `{raw}` is not known before running"));
            return;
        };
        if UNSEEN_CODE.contains(&name) {
            self.problem(ProblemKind::RunsUnseenCode, format!("`{name}` runs code the analysis cannot see"));
        } else if name == "exec" && exec_has_no_command(&cmd.words[1..]) {
            self.problem(ProblemKind::RunsUnseenCode, "`exec` without a command changes the shell's file descriptors");
        } else if name == "coproc" && cmd.words.iter().skip(1).take(2).any(|w| w.value.as_deref() == Some("{")) {
            self.problem(ProblemKind::Unsupported, "`coproc` with a compound command");
        } else if !program.quoted && RESERVED.contains(&name) {
            self.problem(ProblemKind::ParseError, format!("reserved word `{name}` in command position"));
        }
    }

    /// Parses one redirection node into `parts`.
    fn redirect<'t>(&mut self, node: Node<'t>, src: &str, ctx: Context, parts: &mut RedirectParts<'t>) {
        let mut fd = None;
        let mut op_token = "";
        let mut targets: Vec<Node<'t>> = Vec::new();
        let children = fielded_children(node);
        match node.kind() {
            "file_redirect" | "herestring_redirect" => {
                for (field, child) in &children {
                    match (*field, child.kind()) {
                        (_, "comment") => {}
                        (Some("descriptor"), _) => fd = text(*child, src).parse::<u32>().ok(),
                        (_, _) if !child.is_named() => op_token = child.kind(),
                        _ => targets.push(*child),
                    }
                }
                let mut targets = targets.into_iter();
                let target_node = targets.next();
                let target = match target_node {
                    Some(t) => word_of(t, src),
                    None => literal(if op_token.ends_with('-') { "-" } else { "" }),
                };
                if let Some(t) = target_node {
                    if t.named_child_count() > 0 {
                        parts.scan.push((t, ctx));
                    }
                }
                for extra in targets {
                    parts.extra_words.push(word_of(extra, src));
                    if extra.named_child_count() > 0 {
                        parts.scan.push((extra, ctx));
                    }
                }
                let op = if node.kind() == "herestring_redirect" {
                    Some(RedirectOp::HereString)
                } else {
                    redirect_op(op_token, &target)
                };
                let Some(op) = op else {
                    self.problem(ProblemKind::Unsupported, format!("unsupported redirection `{op_token}`"));
                    return;
                };
                parts.redirects.push(Redirect { fd, op, target });
            }
            "heredoc_redirect" => {
                let quoted = canary::heredoc_quoted(node, src);
                let mut body = None;
                for (field, child) in &children {
                    match (*field, child.kind()) {
                        (_, "comment") | (_, "heredoc_start") | (_, "heredoc_end") => {}
                        (Some("descriptor"), _) => fd = text(*child, src).parse::<u32>().ok(),
                        (Some("redirect"), _) => {
                            let mut nested = RedirectParts::default();
                            self.redirect(*child, src, ctx, &mut nested);
                            parts.redirects.extend(nested.redirects);
                            parts.extra_words.extend(nested.extra_words);
                            parts.scan.extend(nested.scan);
                        }
                        (_, "heredoc_body") => body = Some(*child),
                        (Some("argument"), _) => {
                            parts.extra_words.push(word_of(*child, src));
                            if child.named_child_count() > 0 {
                                parts.scan.push((*child, ctx));
                            }
                        }
                        (_, _) if !child.is_named() => {}
                        _ => parts.statements.push(*child),
                    }
                }
                let target = match body {
                    Some(b) => {
                        let raw = text(b, src).to_string();
                        let dynamic = !quoted && b.named_child_count() > 0 && {
                            let mut c = b.walk();
                            let any = b.named_children(&mut c).any(|n| n.kind() != "heredoc_content");
                            any
                        };
                        if !quoted {
                            parts.scan.push((b, Context::HereDoc));
                        }
                        Word { value: if dynamic { None } else { Some(raw.clone()) }, raw, quoted, glob: false }
                    }
                    None => literal(""),
                };
                parts.redirects.push(Redirect { fd, op: RedirectOp::HereDoc, target });
            }
            other => {
                self.problem(ProblemKind::Unsupported, format!("unsupported redirection node `{other}`"));
            }
        }
    }
}

/// The innermost context, except that everything inside a here-document body stays
/// [`Context::HereDoc`] and re-parsed text stays [`Context::Nested`].
fn sticky(outer: Context, inner: Context) -> Context {
    match outer {
        Context::HereDoc | Context::Nested => outer,
        _ => inner,
    }
}

fn is_simple(kind: &str) -> bool {
    matches!(kind, "command" | "declaration_command" | "unset_command" | "variable_assignment" | "variable_assignments")
}

/// The children of `node` with their field names, in order.
fn fielded_children<'t>(node: Node<'t>) -> Vec<(Option<&'static str>, Node<'t>)> {
    let mut out = Vec::with_capacity(node.child_count());
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            out.push((cursor.field_name(), cursor.node()));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    out
}

fn push_children<'t>(stack: &mut Vec<Task<'t>>, node: Node<'t>, ctx: Context, depth: u32, expr: bool, inh: &Inherited) {
    let mut cursor = node.walk();
    let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
    for child in children.into_iter().rev() {
        stack.push(Task::Visit { node: child, ctx, depth, expr, inh: inh.clone() });
    }
}

fn assignment(node: Node<'_>, src: &str) -> Assignment {
    let name = node.child_by_field_name("name").map(|n| text(n, src)).unwrap_or("").to_string();
    let value = match node.child_by_field_name("value") {
        Some(v) => word_of(v, src),
        None => {
            let raw = operator_end(node).and_then(|e| src.get(e..node.end_byte())).unwrap_or("");
            Word { value: Some(String::new()), raw: raw.to_string(), quoted: false, glob: false }
        }
    };
    Assignment { name, value }
}

fn redirect_op(token: &str, target: &Word) -> Option<RedirectOp> {
    let numeric = target.value.as_deref().is_some_and(|v| {
        let digits = v.strip_suffix('-').unwrap_or(v);
        v == "-" || (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
    });
    Some(match token {
        "<" => RedirectOp::Read,
        ">" => RedirectOp::Write,
        ">>" => RedirectOp::Append,
        ">|" => RedirectOp::Clobber,
        "<>" => RedirectOp::ReadWrite,
        "&>" => RedirectOp::WriteBoth,
        "&>>" => RedirectOp::AppendBoth,
        ">&-" | "<&-" => RedirectOp::Duplicate,
        ">&" if numeric => RedirectOp::Duplicate,
        ">&" => RedirectOp::WriteBoth,
        "<&" if numeric => RedirectOp::Duplicate,
        "<&" => RedirectOp::Read,
        _ => return None,
    })
}

/// `exec [-cl] [-a name] [--]` with nothing after: only redirections.
fn exec_has_no_command(args: &[Word]) -> bool {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.value.as_deref() {
            Some("--") => return args.len() <= i + 1,
            Some("-a") => i += 2,
            Some(f) if f.starts_with('-') && f.len() > 1 && f[1..].bytes().all(|b| matches!(b, b'c' | b'l')) => i += 1,
            _ => return false,
        }
    }
    true
}

/// A short description of the first ERROR or MISSING node.
fn first_error(root: Node<'_>, src: &str) -> String {
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        if node.is_missing() {
            let k = node.kind();
            let at = node.start_byte();
            return format!("missing `{k}` at byte {at}");
        }
        if node.is_error() {
            let at = node.start_byte();
            let near = snippet(text(node, src));
            return format!("syntax error at byte {at}: `{near}`");
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    "syntax error".to_string()
}

/// At most 60 characters of `s`, for problem details.
pub(crate) fn snippet(s: &str) -> String {
    let mut out: String = s.chars().take(60).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}
