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
use crate::heredoc;
use crate::parse::parse;
use crate::types::*;
use crate::word::{
    glue, has_unmarked_expansion, heredoc_backticks, is_gettext_dollar, literal, operator_end, text, unescape_backtick,
    word_of,
};

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

/// Does `enable`'s option list (up to its first operand or `--`) hold `-f`, alone or in a
/// cluster (`-nf`)? A dynamic option word may be one, so it counts.
fn enable_loads(args: &[Word]) -> bool {
    for w in args {
        let Some(v) = w.value.as_deref() else { return true };
        if v == "--" || !v.starts_with('-') || v == "-" {
            return false;
        }
        if v.contains('f') {
            return true;
        }
    }
    false
}

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
    /// `for` loops over static words whose variable nothing else on the line can set.
    loops: Vec<Loop>,
    /// Every `for`/`select` loop's variable and words (see [`Analysis::loop_variables`]).
    loop_variables: Vec<LoopVariable>,
    /// Names some command on the line makes an array (`x=(…)`, `x[i]=…`, `declare -a x`,
    /// `read -a x`, `mapfile x`), wherever it stands: a loop can run it before an earlier line.
    arrays: Vec<String>,
    /// `declare`-family assignments whose value may start with `(` (static `(…)` or dynamic):
    /// bash parses such a value again as the elements of an array, and evaluates their
    /// subscripts, when the name is an array. Judged in `finish`, once every array is known.
    compound_values: Vec<(String, String)>,
}

/// Arrays bash itself keeps; assigning one through `declare` parses a `(…)` value too
/// (bash 5.2 `variables.c`; `BASH_ALIASES` and `DIRSTACK` confirmed to run a subscript).
const BASH_ARRAYS: &[&str] = &[
    "BASH_ALIASES",
    "BASH_ARGC",
    "BASH_ARGV",
    "BASH_CMDS",
    "BASH_LINENO",
    "BASH_REMATCH",
    "BASH_SOURCE",
    "BASH_VERSINFO",
    "COMP_WORDS",
    "COPROC",
    "DIRSTACK",
    "FUNCNAME",
    "GROUPS",
    "MAPFILE",
    "PIPESTATUS",
];

/// A `for NAME in WORDS; do BODY; done` whose variable takes only the listed words.
struct Loop {
    /// The source the loop is in (its address and length: re-parsed strings are other sources).
    src: (usize, usize),
    /// The byte range of the body in that source.
    body: (usize, usize),
    name: String,
    values: Vec<Word>,
}

/// More loop values than this are not listed (the variable stays a dynamic word).
const MAX_LOOP_VALUES: usize = 16;

type Inherited = Option<Rc<Vec<Redirect>>>;

/// What kind of place a node sits in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A statement: a bare assignment there is a command.
    Stmt,
    /// A word or expression: a bare assignment there is not a command.
    Expr,
    /// Arithmetic (`$((…))`, `$[…]`, `((…))`, a subscript): bash expands the text as if in
    /// double quotes before it evaluates it, so single quotes do not stop `$(…)` there.
    Arith,
    /// An operand of `[[ … ]]` or `[ … ]`: bash may evaluate it as arithmetic (`-eq`, `-v`),
    /// and a subscript in the value is then expanded.
    Test,
}

impl Mode {
    /// The mode of a word or expression inside this one.
    fn inner(self) -> Mode {
        match self {
            Mode::Stmt => Mode::Expr,
            m => m,
        }
    }
}

enum Task<'t> {
    /// Visit a node.
    Visit { node: Node<'t>, ctx: Context, depth: u32, mode: Mode, inh: Inherited },
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
    /// Descriptor numbers read as words (`0` in `cat 0< f`), by the byte offset of the
    /// redirection they belong to.
    pending_fds: Vec<(usize, u32)>,
}

impl RedirectParts<'_> {
    /// The descriptor number glued in front of a redirection starting at `at`.
    fn take_fd(&mut self, at: usize) -> Option<u32> {
        let i = self.pending_fds.iter().position(|&(p, _)| p == at)?;
        Some(self.pending_fds.swap_remove(i).1)
    }
}

/// Where the last pieces of a `command` ended, while [`Walker::command_words`] walks its
/// children: a piece right after one of them may continue it.
#[derive(Default)]
struct CommandEnds {
    /// The end of the previous child: the text between it and the next is checked.
    prev_end: Option<usize>,
    /// The end of the last word: a word node right after it (no blank) continues it.
    /// tree-sitter-bash splits `"r"\m` and `` r`x`m `` in two, one word to bash.
    word_end: Option<usize>,
    /// The same for a leading assignment: `a='x'\echo rm` is the assignment
    /// `a=xecho` and the program `rm` to bash; the tree ends the value at the quote
    /// and reads `\echo` as the program.
    assignment_end: Option<usize>,
    /// The end of the last redirection: a word right after it continues its target
    /// to bash (`>''\f` writes `f`; the tree reads the program `f`).
    redirect_end: Option<usize>,
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
        for (name, raw) in std::mem::take(&mut self.compound_values) {
            if self.arrays.contains(&name) || BASH_ARRAYS.contains(&name.as_str()) {
                self.problem(
                    ProblemKind::EvaluatesValue,
                    format!(
                        "`{name}` is an array, so bash parses the value of `{}` again as its elements and \
                         evaluates their subscripts (a `$(…)` in the value would run)",
                        snippet(&raw)
                    ),
                );
            }
        }
        if self.commands.len() > MAX_COMMANDS {
            let n = self.commands.len();
            self.problem(ProblemKind::TooManyParts, format!("{n} simple commands (limit {MAX_COMMANDS})"));
        }
        let compound = self.compound || self.commands.len() > 1;
        Analysis {
            understood: self.problems.is_empty(),
            commands: self.commands,
            problems: self.problems,
            compound,
            loop_variables: self.loop_variables,
        }
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
        let Some(parsed) = parse(src) else {
            self.problem(ProblemKind::ParseError, "the parser gave up");
            return;
        };
        if let Some(at) = parsed.heredoc_misread {
            self.problem(
                ProblemKind::ParseError,
                format!(
                    "here-document body line at byte {at} is taken for the delimiter by the parser, not by bash \
                     (blanks around it, or a `\\` newline before it)"
                ),
            );
        }
        if let Some(p) = parsed.shape_left {
            self.problem(ProblemKind::ParseError, p);
        }
        if let Some(at) = parsed.ansi_c_overrun {
            self.problem(ProblemKind::ParseError, format!("`$'…'` at byte {at} is read past its closing quote"));
        }
        let root = parsed.tree.root_node();
        if root.has_error() {
            self.problem(ProblemKind::ParseError, first_error(root, src));
        }
        if let Some(p) = canary::check(root, src) {
            self.problem(ProblemKind::ParseError, p);
        }
        self.walk_tree(root, src, depth, ctx);
    }

    fn walk_tree<'t>(&mut self, root: Node<'t>, src: &str, depth: u32, ctx: Context) {
        let mut stack: Vec<Task<'t>> = vec![Task::Visit { node: root, ctx, depth, mode: Mode::Stmt, inh: None }];
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
                            loop_words: Vec::new(),
                        });
                    }
                }
                Task::Visit { node, ctx, depth, mode, inh } => {
                    if depth > MAX_DEPTH {
                        if !too_deep {
                            too_deep = true;
                            self.problem(ProblemKind::TooDeep, format!("nesting deeper than {MAX_DEPTH} levels"));
                        }
                        continue;
                    }
                    self.visit(node, src, ctx, depth, mode, inh, &mut stack);
                }
            }
        }
    }

    /// Visits one node: a dispatch on its kind. Statements are matched here; every other kind
    /// falls through to [`Walker::visit_word`], which goes on with the same match. The arms are
    /// tried in order: an arm with a guard stays before the arm for the same kinds without one.
    #[allow(clippy::too_many_arguments)]
    fn visit<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        depth: u32,
        mode: Mode,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
        let kind = node.kind();
        if !node.is_named() {
            return;
        }
        // Children in the same context, mode and depth.
        let same = |stack: &mut Vec<Task<'t>>, mode: Mode, ctx: Context, depth: u32, inh: &Inherited| {
            push_children(stack, node, ctx, depth, mode, inh);
        };
        match kind {
            "program" => {
                let mut cursor = node.walk();
                if node.children(&mut cursor).any(|c| !c.is_named() && c.kind() == "&") {
                    self.compound = true;
                }
                same(stack, Mode::Stmt, ctx, depth, &inh);
            }
            "negated_command" if bang_glued(node, src) => {
                // `!]` is the program `!]` to bash (`!` is a reserved word only on its own); the
                // parser reads the negation of `]`.
                self.problem(ProblemKind::ParseError, "a `!` glued to the word after it read as a negation");
                self.compound = true;
                same(stack, Mode::Stmt, ctx, depth, &inh);
            }
            "list" | "pipeline" | "negated_command" => {
                self.compound = true;
                same(stack, Mode::Stmt, ctx, depth, &inh);
            }
            "do_group" | "else_clause" | "elif_clause" | "case_item" => same(stack, Mode::Stmt, ctx, depth, &inh),
            "if_statement" | "while_statement" | "for_statement" | "case_statement" => {
                if kind == "for_statement" {
                    self.bind_loop(node, src);
                    if let Some(var) = node.child_by_field_name("variable") {
                        let words = fielded_children(node)
                            .iter()
                            .filter(|(f, _)| *f == Some("value"))
                            .map(|(_, c)| word_of(*c, src))
                            .collect();
                        self.loop_variables.push(LoopVariable {
                            name: text(var, src).to_string(),
                            words,
                            context: ctx,
                            first_command: self.commands.len(),
                        });
                    }
                }
                self.compound = true;
                same(stack, Mode::Stmt, ctx, depth + 1, &inh);
            }
            "c_style_for_statement" => self.visit_c_style_for(node, src, ctx, depth, inh, stack),
            "compound_statement" => self.visit_compound_statement(node, src, ctx, depth, mode, inh, stack),
            "subshell" => {
                self.compound = true;
                same(stack, Mode::Stmt, sticky(ctx, Context::Subshell), depth + 1, &inh);
            }
            "test_command" => {
                self.compound = true;
                same(stack, Mode::Test, ctx, depth + 1, &inh);
            }
            "function_definition" => self.visit_function_definition(node, src, ctx, depth, inh, stack),
            "redirected_statement" => self.visit_redirected_statement(node, src, ctx, depth, inh, stack),
            "command" | "declaration_command" | "unset_command" => {
                self.emit(node, &[], src, ctx, depth, inh, stack);
            }
            "variable_assignment" | "variable_assignments" => {
                self.visit_assignment(node, src, ctx, depth, mode, inh, stack)
            }
            "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                // A redirection standing alone (`$(<file)`): a command with empty words.
                self.emit(node, &[node], src, ctx, depth, inh, stack);
            }
            _ => self.visit_word(node, src, ctx, depth, mode, inh, stack),
        }
    }

    /// The arms of [`Walker::visit`] after the statements, in the same order: substitutions,
    /// expansions, expressions, strings, the leaf tokens of words, and any other kind (not
    /// understood).
    #[allow(clippy::too_many_arguments)]
    fn visit_word<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        depth: u32,
        mode: Mode,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
        // Children in the same context, mode and depth.
        let same = |stack: &mut Vec<Task<'t>>, mode: Mode, ctx: Context, depth: u32, inh: &Inherited| {
            push_children(stack, node, ctx, depth, mode, inh);
        };
        match node.kind() {
            "command_substitution" => self.visit_command_substitution(node, src, ctx, depth, inh, stack),
            "process_substitution" => {
                self.compound = true;
                same(stack, Mode::Stmt, sticky(ctx, Context::ProcessSubstitution), depth + 1, &inh);
            }
            "arithmetic_expansion" | "subscript" => self.visit_arithmetic(node, src, ctx, depth, inh, stack),
            "expansion" | "parenthesized_expression" => self.visit_expansion(node, src, ctx, depth, mode, inh, stack),
            "array" => self.visit_array(node, src, ctx, depth, mode, inh, stack),
            "binary_expression" | "unary_expression" => {
                if mode == Mode::Test {
                    self.test_operands(node, src);
                }
                same(stack, mode.inner(), ctx, depth, &inh);
            }
            "string" | "concatenation" | "translated_string" | "ternary_expression" | "postfix_expression"
            | "command_name" | "number" | "simple_expansion" | "brace_expression" => {
                same(stack, mode.inner(), ctx, depth, &inh)
            }
            "heredoc_body" => self.visit_heredoc_body(node, src, depth, inh, stack),
            "heredoc_content" => {}
            "raw_string" | "ansi_c_string" if in_quoted_expansion(node) => {
                self.visit_single_quoted_in_expansion(node, src, ctx, depth)
            }
            "raw_string" | "ansi_c_string" => self.visit_single_quoted(node, src, mode),
            "regex" | "extglob_pattern" if text(node, src).contains(['`', '$']) => self.visit_pattern(node, src),
            "word"
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
                same(stack, mode, ctx, depth, &inh);
            }
            other => {
                self.problem(ProblemKind::Unsupported, format!("unsupported shell construct `{other}`"));
            }
        }
    }

    /// `for ((…; …; …)); do …; done`: the header is arithmetic (it must evaluate no value), the
    /// body statements.
    fn visit_c_style_for<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        depth: u32,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
        self.compound = true;
        let t = text(node, src);
        let header = t.find("((").and_then(|a| t[a..].find("))").map(|b| &t[a + 2..a + b]));
        self.arith_inert(header.unwrap_or(t), t);
        for (field, child) in fielded_children(node).into_iter().rev() {
            let mode = if field == Some("body") { Mode::Stmt } else { Mode::Arith };
            stack.push(Task::Visit { node: child, ctx, depth: depth + 1, mode, inh: inh.clone() });
        }
    }

    /// `{ …; }`, and the arithmetic command `((…))`, which the tree also reads as a compound
    /// statement: its text must evaluate no value, and its children are arithmetic.
    #[allow(clippy::too_many_arguments)]
    fn visit_compound_statement<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        depth: u32,
        mode: Mode,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
        self.compound = true;
        let arithmetic = node.child(0).is_some_and(|c| c.kind() == "((");
        if arithmetic {
            let t = text(node, src);
            let inner = t.strip_prefix("((").and_then(|r| r.strip_suffix("))")).unwrap_or(t);
            self.arith_inert(inner, t);
        }
        push_children(stack, node, ctx, depth + 1, if arithmetic { Mode::Arith } else { mode }, &inh);
    }

    /// `f() { …; } > f`: the body runs in the function context, with the definition's
    /// redirections on every command inside it.
    fn visit_function_definition<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        depth: u32,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
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

    /// A statement with redirections: a simple command (or none, a bare redirection) takes them
    /// as its own; a compound statement hands them to every command inside it.
    fn visit_redirected_statement<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        depth: u32,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
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
                        format!("words after a redirection of a compound statement: `{}`", snippet(text(node, src))),
                    );
                }
                self.compound_redirects(node, Some(b), parts, ctx, depth, inh, stack);
            }
        }
    }

    /// One or more assignments: a command of its own where a statement stands; elsewhere (a
    /// command's assignment or word, scanned for substitutions) only its parts are walked.
    #[allow(clippy::too_many_arguments)]
    fn visit_assignment<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        depth: u32,
        mode: Mode,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
        if mode != Mode::Stmt {
            if node.kind() == "variable_assignment" && paren_in_value(node, src) {
                // `x=1(2) rm`, `x=(1)x(2) rm`: a syntax error to bash, which runs
                // nothing; the tree reads a word.
                let t = snippet(text(node, src));
                self.problem(ProblemKind::ParseError, format!("a parenthesis inside the value of `{t}`"));
            }
            push_children(stack, node, ctx, depth, mode, &inh);
        } else {
            self.emit(node, &[], src, ctx, depth, inh, stack);
        }
    }

    /// `$(…)` or `` `…` ``: its commands run in a command substitution. A backtick whose text
    /// bash unescapes before parsing it is walked again as that unescaped text.
    fn visit_command_substitution<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        depth: u32,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
        self.compound = true;
        if dollar_pairs_before(src.as_bytes(), node.start_byte()) {
            // `{e$$(d)`: bash reads `$$` (the pid) and then `(` (a syntax error, or
            // literal text in double quotes); the parser reads `$` and `$(d)`.
            self.problem(ProblemKind::ParseError, "`$$(`: bash reads `$$` before the `(`");
        }
        let inner_ctx = sticky(ctx, Context::CommandSubstitution);
        if canary::backtick_reparsed(node, src) {
            let t = text(node, src);
            let inner = t.get(1..t.len().saturating_sub(1)).unwrap_or("");
            let in_dq = node.parent().is_some_and(|p| p.kind() == "string");
            let unescaped = unescape_backtick(inner, in_dq);
            self.walk_source(&unescaped, depth + 1, inner_ctx);
        } else {
            push_children(stack, node, inner_ctx, depth + 1, Mode::Stmt, &inh);
        }
    }

    /// `$((…))`, `$[…]` and subscripts: arithmetic, whose text must evaluate no value (a
    /// variable in it has its value evaluated).
    fn visit_arithmetic<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        depth: u32,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
        let t = text(node, src);
        if node.kind() == "arithmetic_expansion" {
            let inner = t
                .strip_prefix("$((")
                .and_then(|r| r.strip_suffix("))"))
                .or_else(|| t.strip_prefix("$[").and_then(|r| r.strip_suffix(']')));
            self.arith_inert(inner.unwrap_or(t), t);
        } else if node.parent().is_some_and(|p| p.kind() != "expansion") {
            // `a[i]=1`: the index of an indexed array is arithmetic.
            let index = t.find('[').and_then(|a| t.rfind(']').filter(|&b| b > a).map(|b| &t[a + 1..b]));
            if let Some(index) = index.filter(|i| !matches!(*i, "@" | "*")) {
                self.arith_inert(index, t);
            }
        }
        push_children(stack, node, ctx, depth + 1, Mode::Arith, &inh)
    }

    /// `${…}` (and a parenthesized expression): an operator that evaluates a value is not
    /// understood, nor a `${…}` that bash may end at another `}` than the parser.
    #[allow(clippy::too_many_arguments)]
    fn visit_expansion<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        depth: u32,
        mode: Mode,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
        let kind = node.kind();
        if kind == "expansion" {
            if let Some(why) = crate::evaluate::expansion_evaluates(text(node, src)) {
                self.problem(ProblemKind::EvaluatesValue, why);
            }
        }
        if kind == "expansion"
            && (nested_brace(text(node, src)) || unclosed_inner(text(node, src)) || open_quote(text(node, src)))
        {
            // bash ends `${…}` at the first `}` outside nested `${`, `$(`, quotes; a bare
            // `{` does not nest. After a pattern operator (`${s%{1}>x; rm #}`) the tree
            // counts it and reads the redirection and the next command as pattern text;
            // with a nested `${` in a pattern it may end at the inner `}`, and it ends at a
            // `}` that bash reads inside quotes (`${R/5"}"" x}` is one word to bash).
            self.problem(
                ProblemKind::ParseError,
                format!(
                    "`{}` may end elsewhere to bash (a bare `{{`, a nested `${{` or an open quote inside)",
                    snippet(text(node, src))
                ),
            );
        }
        push_children(stack, node, ctx, depth + 1, mode.inner(), &inh)
    }

    /// `x=(…)`: text glued after it makes one scalar word to bash, and every key is arithmetic
    /// (see [`Walker::array_key`]).
    #[allow(clippy::too_many_arguments)]
    fn visit_array<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        depth: u32,
        mode: Mode,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
        if node.parent().is_some_and(|p| p.kind() == "variable_assignment")
            && crate::parse::array_glued(node, src.as_bytes())
        {
            // `a=(1 2)x`: one scalar assignment word to bash, which the tree splits.
            let t = snippet(text(node, src));
            self.problem(ProblemKind::ParseError, format!("text glued after the array value `{t}`"));
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            self.array_key(child, src);
        }
        push_children(stack, node, ctx, depth + 1, mode.inner(), &inh);
    }

    /// A here-document body: backticks in its literal text, and the `$((…))` the tree misreads,
    /// are re-parsed; its other expansions are walked in the here-document context.
    fn visit_heredoc_body<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        depth: u32,
        inh: Inherited,
        stack: &mut Vec<Task<'t>>,
    ) {
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
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        for child in children.into_iter().rev() {
            if let Some(inner) = heredoc_arithmetic(child, src) {
                // tree-sitter-bash reads `$((…))` in a body as `$( (…) )`; bash reads
                // arithmetic. Its text is re-parsed as the arithmetic command `((…))`.
                self.walk_source(&format!("({inner})"), depth + 1, Context::HereDoc);
            } else {
                stack.push(Task::Visit {
                    node: child,
                    ctx: Context::HereDoc,
                    depth,
                    mode: Mode::Expr,
                    inh: inh.clone(),
                });
            }
        }
    }

    /// `'…'` or `$'…'` in the operand of a double-quoted `${…}` (see [`in_quoted_expansion`]).
    fn visit_single_quoted_in_expansion(&mut self, node: Node<'_>, src: &str, ctx: Context, depth: u32) {
        // `"${x:-'$(id)'}"`: in a double-quoted `${…}` single quotes are ordinary
        // characters, so bash expands what they hold. Read it as double-quoted text.
        let t = text(node, src);
        if t.contains(['$', '`']) {
            if t.contains(['"', '\\']) {
                self.problem(
                    ProblemKind::Unsupported,
                    format!("quotes inside a double-quoted `${{…}}` (bash expands what they hold): `{}`", snippet(t)),
                );
            } else {
                let start = self.commands.len();
                self.walk_source(&format!(": \"{t}\""), depth + 1, ctx);
                // Drop the `:` that carried the text; keep what runs inside it.
                if self.commands.get(start).is_some_and(|c| c.canonical().starts_with(':')) {
                    self.commands.remove(start);
                }
            }
        }
    }

    /// `'…'` or `$'…'` anywhere else: literal text, except in arithmetic, where bash expands a
    /// `$` inside it.
    fn visit_single_quoted(&mut self, node: Node<'_>, src: &str, mode: Mode) {
        match mode {
            Mode::Arith if text(node, src).contains(['$', '`']) => self.problem(
                ProblemKind::Unsupported,
                format!("`$` in a quoted string in arithmetic (bash expands it there): `{}`", snippet(text(node, src))),
            ),
            _ => {}
        }
    }

    /// A `${…}` pattern holding `$` or a backtick, which the parser reads as one token.
    fn visit_pattern(&mut self, node: Node<'_>, src: &str) {
        // The pattern of `${R/a$(d)}`, `${R%a$(d)}`: one opaque token to the parser,
        // while bash expands the substitution in it when `R` is set.
        let t = text(node, src);
        if t.contains("$(") || t.contains("$[") || t.contains('`') {
            self.problem(
                ProblemKind::Unsupported,
                format!("a substitution inside a pattern the parser reads as one token: `{}`", snippet(t)),
            );
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
            stack.push(Task::Visit { node: stmt, ctx, depth, mode: Mode::Stmt, inh: None });
        }
        for (n, c) in parts.scan.into_iter().rev() {
            stack.push(Task::Visit { node: n, ctx: c, depth, mode: Mode::Expr, inh: None });
        }
        if inh.is_some() {
            stack.push(Task::Finish { start: self.commands.len(), node, ctx, inh: inh.clone() });
        }
        if let Some(b) = body {
            stack.push(Task::Visit { node: b, ctx, depth, mode: Mode::Stmt, inh });
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
            loop_words: Vec::new(),
        };
        let mut parts = RedirectParts::default();
        // Later tasks (pushed after the command is recorded): scans and subshells.
        let mut later: Vec<(Node<'t>, Context, Mode)> = Vec::new();
        match node.kind() {
            "command" => self.command_words(node, src, ctx, &mut cmd, &mut parts, &mut later),
            "declaration_command" | "unset_command" => {
                self.declaration_words(node, src, ctx, &mut cmd, &mut parts, &mut later)
            }
            "variable_assignment" => {
                if valid_assignment(node, src) {
                    cmd.assignments.push(assignment(node, src));
                } else {
                    cmd.words.push(word_of(node, src));
                }
                later.push((node, ctx, Mode::Expr));
            }
            "variable_assignments" => self.assignments_words(node, src, ctx, &mut cmd, &mut later),
            _ => {}
        }
        let (start, end) = self.outer_redirects(node, outer, src, ctx, &mut parts);
        self.attach_redirects(&mut cmd, &mut parts);
        // The source text: the command with its own redirections, up to the here-doc line end.
        let source_end = heredoc_line_end(outer).unwrap_or(end);
        cmd.source = src.get(start..source_end.max(start)).unwrap_or("").to_string();
        self.loop_words(&mut cmd, src, node.start_byte());
        self.note_arrays(&cmd);
        self.check_program(&cmd);
        self.commands.push(cmd);

        for stmt in parts.statements.into_iter().rev() {
            self.compound = true;
            stack.push(Task::Visit { node: stmt, ctx, depth, mode: Mode::Stmt, inh: inh.clone() });
        }
        for (n, c) in parts.scan.into_iter().rev() {
            stack.push(Task::Visit { node: n, ctx: c, depth, mode: Mode::Expr, inh: None });
        }
        for (n, c, mode) in later.into_iter().rev() {
            stack.push(Task::Visit { node: n, ctx: c, depth, mode, inh: None });
        }
    }

    /// The words, assignments and redirections of a `command` node, in order, with the pieces
    /// the tree splits out of one word of bash's joined again.
    fn command_words<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        cmd: &mut SimpleCommand,
        parts: &mut RedirectParts<'t>,
        later: &mut Vec<(Node<'t>, Context, Mode)>,
    ) {
        let children = fielded_children(node);
        let mut ends = CommandEnds::default();
        let mut i = 0;
        while let Some(&(field, child)) = children.get(i) {
            i += 1;
            if let Some(from) = ends.prev_end {
                self.gap(src, from, child.start_byte(), &mut cmd.words);
            }
            ends.prev_end = Some(child.end_byte());
            match (field, child.kind()) {
                (_, "comment") => {}
                (_, "regex") => {
                    // Only `[[ … =~ … ]]` has a regex; in a command the parser lexed the
                    // text after an `==`/`=~` argument as one token (see `parse`).
                    self.problem(
                        ProblemKind::ParseError,
                        format!("text after `==`/`=~` read as one regex token: `{}`", snippet(text(child, src))),
                    );
                }
                (Some("name"), _) | (Some("argument"), _) => {
                    let next = children.get(i).map(|&(_, n)| n);
                    if self.command_word(child, next, src, ctx, cmd, parts, later, &mut ends) {
                        i += 1;
                    }
                }
                (Some("redirect"), _) => {
                    ends.redirect_end = Some(child.end_byte());
                    self.redirect(child, src, ctx, parts)
                }
                (_, "variable_assignment") => {
                    if cmd.words.is_empty() && valid_assignment(child, src) {
                        cmd.assignments.push(assignment(child, src));
                        ends.assignment_end = Some(child.end_byte());
                    } else {
                        // `4x=1 ls`: not an assignment to bash, the program word.
                        cmd.words.push(word_of(child, src));
                        ends.word_end = Some(child.end_byte());
                    }
                    later.push((child, ctx, Mode::Expr));
                }
                (_, "subshell") => later.push((child, ctx, Mode::Stmt)),
                _ if child.is_named() => {
                    let k = child.kind();
                    self.problem(ProblemKind::Unsupported, format!("unsupported part `{k}` in a command"));
                }
                _ => {}
            }
        }
    }

    /// The program or an argument of a `command`: a new word, or the continuation of the word,
    /// assignment value or redirection target right before it. `next` is the child after it,
    /// the string of a `$"…"`; returns true when the word took it in.
    #[allow(clippy::too_many_arguments)]
    fn command_word<'t>(
        &mut self,
        child: Node<'t>,
        next: Option<Node<'t>>,
        src: &str,
        ctx: Context,
        cmd: &mut SimpleCommand,
        parts: &mut RedirectParts<'t>,
        later: &mut Vec<(Node<'t>, Context, Mode)>,
        ends: &mut CommandEnds,
    ) -> bool {
        if ends.redirect_end == Some(child.start_byte()) {
            self.problem(
                ProblemKind::ParseError,
                format!(
                    "`{}` is glued to the redirection before it (bash reads one target)",
                    snippet(text(child, src))
                ),
            );
        }
        if self.fd_prefix(child, src, parts) {
            return false;
        }
        // `$"…"`: the tree has a lone `$` token before the string.
        let gettext = next.filter(|&n| is_gettext_dollar(child, n));
        let (w, scan) = match gettext {
            Some(next) => {
                ends.prev_end = Some(next.end_byte());
                // The token may carry text before the `$` (`-g$"b"`).
                let mut w = word_of(child, src);
                w.value = w.value.map(|v| v.strip_suffix('$').unwrap_or(&v).to_string());
                let next_word = word_of(next, src);
                self.newline_glued(&next_word);
                glue(&mut w, next_word);
                (w, next)
            }
            None => (word_of(child, src), child),
        };
        let glued = !w.raw.starts_with('\n');
        match (cmd.words.last_mut(), cmd.assignments.last_mut()) {
            // (A word starting at a newline is here-document text the
            // tree misread: kept apart, it is reported in `attach_redirects`.)
            (Some(last), _) if ends.word_end == Some(child.start_byte()) && glued => {
                self.newline_glued(&w);
                glue(last, w)
            }
            (None, Some(a)) if ends.assignment_end == Some(child.start_byte()) && glued => {
                self.newline_glued(&w);
                glue(&mut a.value, w);
                ends.assignment_end = Some(scan.end_byte());
            }
            _ => cmd.words.push(w),
        }
        if !cmd.words.is_empty() {
            ends.word_end = Some(scan.end_byte());
        }
        if scan.named_child_count() > 0 {
            later.push((scan, ctx, Mode::Expr));
        }
        gettext.is_some()
    }

    /// The words and redirections of a `declare`-family or `unset` command, with the pieces the
    /// tree splits out of one word of bash's joined again.
    fn declaration_words<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        cmd: &mut SimpleCommand,
        parts: &mut RedirectParts<'t>,
        later: &mut Vec<(Node<'t>, Context, Mode)>,
    ) {
        let mut cursor = node.walk();
        // The end of the previous word, when the next node may continue it: the tree
        // splits `unset a[0]` into `a` and `[0]`, one word to bash.
        let mut glued_end: Option<usize> = None;
        for child in node.children(&mut cursor) {
            match child.kind() {
                "comment" => glued_end = None,
                "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                    glued_end = None;
                    self.redirect(child, src, ctx, parts)
                }
                _ => {
                    if self.fd_prefix(child, src, parts) {
                        glued_end = None;
                        continue;
                    }
                    let w = word_of(child, src);
                    match cmd.words.last_mut() {
                        Some(last) if glued_end == Some(child.start_byte()) => {
                            self.newline_glued(&w);
                            glue(last, w)
                        }
                        _ => cmd.words.push(w),
                    }
                    glued_end = Some(child.end_byte());
                    if child.named_child_count() > 0 {
                        later.push((child, ctx, Mode::Expr));
                    }
                }
            }
        }
    }

    /// A statement of bare assignments (`a=1 b=2`): one that is not an assignment to bash
    /// (`4x=1`) is the program word, and every one after it an argument.
    fn assignments_words<'t>(
        &mut self,
        node: Node<'t>,
        src: &str,
        ctx: Context,
        cmd: &mut SimpleCommand,
        later: &mut Vec<(Node<'t>, Context, Mode)>,
    ) {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.kind() == "variable_assignment" {
                if cmd.words.is_empty() && valid_assignment(child, src) {
                    cmd.assignments.push(assignment(child, src));
                } else {
                    cmd.words.push(word_of(child, src));
                }
                later.push((child, ctx, Mode::Expr));
            } else if child.kind() != "comment" {
                let k = child.kind();
                self.problem(ProblemKind::Unsupported, format!("unsupported part `{k}` in assignments"));
            }
        }
    }

    /// The redirections around the command node (`outer`) into `parts`; returns the byte range
    /// of the command with them.
    fn outer_redirects<'t>(
        &mut self,
        node: Node<'t>,
        outer: &[Node<'t>],
        src: &str,
        ctx: Context,
        parts: &mut RedirectParts<'t>,
    ) -> (usize, usize) {
        let mut start = node.start_byte();
        let mut end = node.end_byte();
        let mut prev_end = node.end_byte();
        for r in outer {
            self.gap(src, prev_end, r.start_byte(), &mut parts.extra_words);
            prev_end = prev_end.max(r.end_byte());
            self.redirect(*r, src, ctx, parts);
            start = start.min(r.start_byte());
            end = end.max(r.end_byte());
        }
        (start, end)
    }

    /// Moves what the redirections contribute onto the command: their extra words (after
    /// which no word may start with a newline), then the redirections themselves (any but a
    /// duplication or one to `/dev/null` makes the line compound).
    fn attach_redirects(&mut self, cmd: &mut SimpleCommand, parts: &mut RedirectParts<'_>) {
        if !parts.pending_fds.is_empty() {
            self.problem(
                ProblemKind::ParseError,
                "a descriptor number the parse tree does not attach to a redirection",
            );
        }
        cmd.words.extend(std::mem::take(&mut parts.extra_words));
        if cmd.words.iter().any(|w| w.raw.starts_with('\n')) {
            // A word cannot start with a newline: the tree read here-document text as words.
            self.problem(ProblemKind::ParseError, "a word starting with a newline (here-document text read as words)");
        }
        for r in &parts.redirects {
            if !(r.op == RedirectOp::Duplicate || r.target.value.as_deref() == Some("/dev/null")) {
                self.compound = true;
            }
        }
        cmd.redirects.extend(std::mem::take(&mut parts.redirects));
    }

    /// Record a `for NAME in WORDS` loop whose variable can only take the listed words: every
    /// word static and standing alone (no text glued to it: the tree splits `"a"\b`), no
    /// brace expansion (bash expands `{a,b}` before the loop), at most [`MAX_LOOP_VALUES`],
    /// not `select` (a bad answer leaves it empty), and the name appearing nowhere else in the
    /// source except as a plain `$NAME`/`${NAME}` expansion (no assignment, `read`, `printf -v`,
    /// `${NAME:=…}`, nameref, function that could set it, or second loop over it).
    fn bind_loop(&mut self, node: Node<'_>, src: &str) {
        let children = fielded_children(node);
        if children.first().is_none_or(|(_, c)| c.kind() != "for") {
            return;
        }
        let (Some(var), Some(body)) = (node.child_by_field_name("variable"), node.child_by_field_name("body")) else {
            return;
        };
        let value_nodes: Vec<Node<'_>> =
            children.iter().filter(|(f, _)| *f == Some("value")).map(|(_, c)| *c).collect();
        if value_nodes.is_empty() || value_nodes.len() > MAX_LOOP_VALUES {
            return;
        }
        let bytes = src.as_bytes();
        let blank = |at: usize| bytes.get(at).is_none_or(|b| matches!(b, b' ' | b'\t' | b'\n' | b';'));
        let mut values = Vec::with_capacity(value_nodes.len());
        for v in &value_nodes {
            let w = word_of(*v, src);
            let alone = v.start_byte() > 0 && blank(v.start_byte() - 1) && blank(v.end_byte());
            if w.value.is_none() || !alone || w.raw.contains(['{', '}']) {
                return;
            }
            values.push(w);
        }
        let name = text(var, src);
        if !only_expanded(src, name, var.start_byte()) {
            return;
        }
        self.loops.push(Loop {
            src: (src.as_ptr() as usize, src.len()),
            body: (body.start_byte(), body.end_byte()),
            name: name.to_string(),
            values,
        });
    }

    /// Fill in [`SimpleCommand::loop_words`]: the arguments that are exactly the variable of a
    /// recorded loop around `at`. Quoted (`"$f"`), the word is one value, glob or not; unquoted
    /// (`$f`), bash splits and globs the value again, so only values that are one plain field
    /// (no blank, no glob character, not empty, and no `IFS` on the line) qualify.
    fn loop_words(&self, cmd: &mut SimpleCommand, src: &str, at: usize) {
        let key = (src.as_ptr() as usize, src.len());
        for (index, w) in cmd.words.iter().enumerate().skip(1) {
            if w.value.is_some() {
                continue;
            }
            let (inner, quoted) = match w.raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
                Some(inner) => (inner, true),
                None => (w.raw.as_str(), false),
            };
            let Some(name) = inner.strip_prefix("${").and_then(|r| r.strip_suffix('}')).or(inner.strip_prefix('$'))
            else {
                continue;
            };
            let Some(l) =
                self.loops.iter().rev().find(|l| l.src == key && l.body.0 <= at && at < l.body.1 && l.name == name)
            else {
                continue;
            };
            let plain = |v: &Word| {
                !v.glob
                    && v.value
                        .as_deref()
                        .is_some_and(|s| !s.is_empty() && !s.contains([' ', '\t', '\n', '*', '?', '[']))
            };
            if quoted || (!src.contains("IFS") && l.values.iter().all(plain)) {
                cmd.loop_words.push(LoopWord { index, values: l.values.clone() });
            }
        }
    }

    /// The operands of an arithmetic comparison (`-eq`, `-lt` …) or of `-v` in `[[ … ]]` or
    /// `[ … ]`: when the static value holds a subscript with a command substitution
    /// (`'a[$(id)]'`), bash expands the subscript as it evaluates the operand, and runs the
    /// command.
    fn test_operands(&mut self, node: Node<'_>, src: &str) {
        let Some(op) = node.child_by_field_name("operator") else {
            return;
        };
        if !matches!(text(op, src), "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" | "-v") {
            return;
        }
        // In `[[ … ]]` (not in the `[` builtin, which reads plain integers) the operands of an
        // arithmetic comparison are arithmetic; in both the operand of `-v` is a name whose
        // subscript is arithmetic: a variable there has its value evaluated.
        let double_bracket = std::iter::successors(node.parent(), |n| n.parent())
            .find(|n| n.kind() == "test_command")
            .and_then(|n| n.child(0))
            .is_some_and(|c| c.kind() == "[[");
        let mut cursor = node.walk();
        for operand in node.named_children(&mut cursor) {
            let t = text(operand, src);
            if operand.id() != op.id() && (double_bracket || text(op, src) == "-v") {
                if text(op, src) == "-v" {
                    match word_of(operand, src).value {
                        None => self.problem(
                            ProblemKind::EvaluatesValue,
                            format!("`-v` takes a name that is not known before running: `{}`", snippet(t)),
                        ),
                        Some(v) => self.name_inert(&v),
                    }
                } else {
                    self.arith_inert(t, t);
                }
            }
            if operand.id() == op.id() || !t.contains(['$', '`']) {
                continue;
            }
            let Some(v) = word_of(operand, src).value else {
                continue;
            };
            if v.contains('[') && (v.contains("$(") || v.contains('`')) {
                self.problem(
                    ProblemKind::Unsupported,
                    format!(
                        "a subscript with a command substitution in a test operand (bash runs it): `{}`",
                        snippet(t)
                    ),
                );
            }
        }
    }

    /// Arithmetic text must be inert (see `evaluate`): a variable in it has its value evaluated.
    fn arith_inert(&mut self, arith: &str, whole: &str) {
        if let Some(what) = crate::evaluate::arith_evaluates(arith) {
            self.problem(
                ProblemKind::EvaluatesValue,
                format!("arithmetic `{}` evaluates the value of `{what}` (a `$(…)` in it would run)", snippet(whole)),
            );
        }
    }

    /// A variable name a builtin uses (`read NAME`, `printf -v NAME`, `-v NAME`): its subscript
    /// is arithmetic.
    fn name_inert(&mut self, name: &str) {
        let index = name.find('[').and_then(|a| name.rfind(']').filter(|&b| b > a).map(|b| &name[a + 1..b]));
        if let Some(index) = index.filter(|i| !matches!(*i, "@" | "*")) {
            self.arith_inert(index, name);
        }
    }

    /// `read PS4`, `printf -v PS4 …`: a value only known when the line runs put into a
    /// variable bash evaluates as code (`wicket_programs::evaluated`; issue 39, class 9)
    /// cannot be read, so what it runs is not known.
    fn evaluated_target(&mut self, name: &str, var: &str) {
        if wicket_programs::evaluated(var).is_some() {
            self.problem(
                ProblemKind::EvaluatesValue,
                format!("`{name}` puts a value only known when it runs into `{var}`, which bash evaluates as code"),
            );
        }
    }

    /// Builtins that use a word as a variable name or evaluate it as arithmetic: a name not
    /// known before running, or one whose subscript evaluates a value, is not understood.
    fn builtin_names(&mut self, name: &str, args: &[Word]) {
        let refuse = |w: &Word, this: &mut Self, why: &str| {
            this.problem(ProblemKind::EvaluatesValue, format!("`{name}` {why}: `{}`", snippet(&w.raw)));
        };
        match name {
            "let" => {
                for w in args {
                    self.arith_inert(&w.raw, &w.raw);
                }
            }
            "read" | "unset" | "mapfile" | "readarray" | "getopts" | "wait" => {
                for w in args {
                    match &w.value {
                        None => refuse(w, self, "takes a variable name that is not known before running"),
                        Some(v) if !v.starts_with('-') => {
                            if name != "unset" {
                                self.evaluated_target(name, v);
                            }
                            self.name_inert(v)
                        }
                        Some(_) => {}
                    }
                }
            }
            "declare" | "typeset" | "local" | "export" | "readonly" => {
                let options = || args.iter().filter_map(|w| w.value.as_deref()).filter(|v| v.starts_with('-'));
                let array = options().any(|v| v.contains(['a', 'A']));
                for w in args {
                    let assigned = w.raw.split_once('=').map(|(n, _)| n.trim_end_matches('+'));
                    if let Some(name) = assigned.filter(|n| !n.starts_with('-')) {
                        let name = name.split('[').next().unwrap_or(name).to_string();
                        let static_paren =
                            w.value.as_deref().and_then(|v| v.split_once('=')).is_some_and(|(_, v)| v.starts_with('('));
                        // An unquoted `x=(…)` is an array node: the tree holds its elements.
                        let parsed_array = w.raw.split_once('=').is_some_and(|(_, v)| v.starts_with('('));
                        if (w.value.is_none() || static_paren) && !parsed_array {
                            self.compound_values.push((name.clone(), w.raw.clone()));
                        }
                        if array {
                            self.arrays.push(name);
                        }
                    } else if array && !w.raw.starts_with(['-', '+']) {
                        self.arrays.push(w.raw.clone());
                    }
                    match &w.value {
                        Some(v) if v.starts_with('-') && v.contains('i') => {
                            refuse(w, self, "gives a variable the integer attribute (every later value is evaluated)")
                        }
                        Some(v) if v.starts_with('-') && v.contains('n') => refuse(
                            w,
                            self,
                            "makes a name reference (its value is used as a name, subscript evaluated, at every expansion)",
                        ),
                        Some(v) => self.name_inert(v.split(['=', '+']).next().unwrap_or(v)),
                        None if !w
                            .raw
                            .split('=')
                            .next()
                            .unwrap_or("")
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
                        {
                            refuse(w, self, "takes a variable name that is not known before running")
                        }
                        None => {}
                    }
                }
            }
            "printf" | "test" | "[" => {
                let mut it = args.iter();
                while let Some(w) = it.next() {
                    let target = match w.value.as_deref() {
                        Some("-v") => it.next().map(|t| (t, t.value.as_deref())),
                        Some(f) if name == "printf" && f.len() > 2 && f.starts_with("-v") => Some((w, f.get(2..))),
                        _ => None,
                    };
                    match target {
                        Some((t, None)) => refuse(t, self, "takes a variable name that is not known before running"),
                        Some((_, Some(v))) => {
                            self.evaluated_target(name, v);
                            self.name_inert(v)
                        }
                        None => {}
                    }
                }
            }
            _ => {}
        }
    }

    /// A word the tree glues to the one before cannot start with a newline: bash ends the
    /// word and the command there (`cat <f O⏎\\`id\\`` reads the second line as an argument of
    /// `cat`, with a redirection in between). Unglued, the same word is caught where the
    /// command's words are checked.
    fn newline_glued(&mut self, w: &Word) {
        if w.raw.starts_with('\n') {
            self.problem(ProblemKind::ParseError, "a word starting with a newline (here-document text read as words)");
        }
    }

    /// Records the names this command makes arrays (see [`Walker::arrays`]).
    fn note_arrays(&mut self, cmd: &SimpleCommand) {
        for a in &cmd.assignments {
            let (name, subscripted) = match a.name.split_once('[') {
                Some((n, _)) => (n, true),
                None => (a.name.as_str(), false),
            };
            if subscripted || a.value.raw.starts_with('(') {
                self.arrays.push(name.to_string());
            }
        }
        let Some(program) = cmd.words.first().and_then(|w| w.value.as_deref()) else { return };
        let args = &cmd.words[1..];
        let operands = || args.iter().filter(|w| !w.raw.starts_with('-')).map(|w| w.raw.clone());
        match program {
            "mapfile" | "readarray" => {
                self.arrays.push("MAPFILE".to_string());
                self.arrays.extend(operands());
            }
            // `read -a NAME` (also clustered, `-ra NAME`): every word may be the name.
            "read" if args.iter().any(|w| w.raw.starts_with('-') && w.raw.contains('a')) => {
                self.arrays.extend(args.iter().map(|w| w.raw.clone()));
            }
            _ => {}
        }
    }

    /// `a=(['$(id)']=1)`: bash evaluates the key of an indexed array element as arithmetic,
    /// after expanding it with single quotes not special, so the command runs. The tree reads
    /// `[`, a quoted string, `]=1`.
    fn array_key(&mut self, node: Node<'_>, src: &str) {
        let t = text(node, src);
        let Some(key) = t.strip_prefix('[').and_then(|r| r.split_once("]=")).map(|(k, _)| k) else {
            return;
        };
        if key.contains('\'') && key.contains(['$', '`']) {
            self.problem(
                ProblemKind::Unsupported,
                format!("`$` in a quoted array key (bash expands it there): `{}`", snippet(t)),
            );
        } else {
            // The key of an indexed array is arithmetic (`a=([k]=1)` evaluates the value of
            // `k`); whether the array is associative is not always known, so every key is
            // held to the inert-arithmetic rule.
            self.arith_inert(key, t);
        }
    }

    /// Text between two nodes of one command that the tree does not account for.
    /// tree-sitter-bash drops a `-` word right before a here-document operator
    /// (`git commit -F - <<EOF`): those `-` words are added to `words`; anything else is a
    /// parse error.
    fn gap(&mut self, src: &str, from: usize, to: usize, words: &mut Vec<Word>) {
        if from >= to {
            return;
        }
        let bytes = src.as_bytes();
        let mut i = from;
        while i < to {
            match bytes.get(i) {
                Some(b' ' | b'\t') => i += 1,
                Some(b'\\') if bytes.get(i + 1) == Some(&b'\n') => i += 2,
                Some(b'-')
                    if matches!(bytes.get(i.wrapping_sub(1)), Some(b' ' | b'\t' | b'\n'))
                        && (matches!(bytes.get(i + 1), Some(b' ' | b'\t')) || i + 1 == to) =>
                {
                    words.push(literal("-"));
                    i += 1;
                }
                _ => {
                    let t = src.get(from..to).unwrap_or("");
                    self.problem(
                        ProblemKind::ParseError,
                        format!("text the parse tree does not account for: `{}`", snippet(t.trim())),
                    );
                    return;
                }
            }
        }
    }

    /// A descriptor number glued to the redirection after it (`cat 0< in`, `cat <f 0>g`):
    /// tree-sitter-bash reads `0` as a word. Records it in `parts` for the redirection that
    /// starts right after it and returns true.
    fn fd_prefix(&mut self, node: Node<'_>, src: &str, parts: &mut RedirectParts<'_>) -> bool {
        let t = text(node, src);
        // Most words are neither: leave before asking the tree where the word ends.
        if !t.starts_with('{') && !t.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
            return false;
        }
        let bytes = src.as_bytes();
        let at = node.end_byte();
        if t.len() > 2 && t.starts_with('{') && t.ends_with('}') && matches!(bytes.get(at), Some(b'<' | b'>')) {
            // `{fd}>out`: bash stores the descriptor in the variable, and a subscript
            // (`{a[…]}>out`) is evaluated first, with the substitutions in it, even inside
            // single quotes (issue 39, class 10): only a plain name is a word bash takes away.
            let name = &t[1..t.len() - 1];
            let plain = name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !plain {
                self.problem(
                    ProblemKind::Unsupported,
                    format!(
                        "`{}` before a redirection is a variable bash assigns, evaluating its subscript",
                        snippet(t)
                    ),
                );
            }
            return true;
        }
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        if !matches!(bytes.get(at), Some(b'<' | b'>')) {
            return false;
        }
        if bytes.get(at + 1) == Some(&b'(') {
            // Bash reads `0<(…)` as one word, the number glued to the process substitution.
            self.problem(ProblemKind::ParseError, format!("a number glued to a process substitution: `{t}`"));
            return false;
        }
        match t.parse::<u32>() {
            Ok(fd) => {
                parts.pending_fds.push((at, fd));
                true
            }
            Err(_) => {
                self.problem(ProblemKind::Unsupported, format!("file descriptor `{}` out of range", snippet(t)));
                false
            }
        }
    }

    /// The descriptor of a redirection. tree-sitter-bash also reads `-2` in `ls -2>f` as a
    /// descriptor; to bash it is an argument word (only digits make a descriptor): it goes to
    /// `parts.extra_words`.
    fn descriptor(&mut self, node: Node<'_>, src: &str, parts: &mut RedirectParts<'_>) -> Option<u32> {
        let t = text(node, src);
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if digits(t) {
            let fd = t.parse::<u32>().ok();
            if fd.is_none() {
                self.problem(ProblemKind::Unsupported, format!("file descriptor `{}` out of range", snippet(t)));
            }
            fd
        } else {
            if t.strip_prefix('-').is_some_and(digits) {
                parts.extra_words.push(word_of(node, src));
            } else {
                self.problem(ProblemKind::Unsupported, format!("file descriptor `{}`", snippet(t)));
            }
            None
        }
    }

    /// Checks on the program word of a recorded command.
    fn check_program(&mut self, cmd: &SimpleCommand) {
        let Some(program) = cmd.words.first() else {
            return;
        };
        if assignment_shaped(&program.raw) {
            // bash reads a word like `b=2` in command position as an assignment; the tree
            // only leaves one there when it misread what comes before (`a='x'\echo b=2 rm`).
            let raw = snippet(&program.raw);
            self.problem(ProblemKind::ParseError, format!("an assignment `{raw}` read as the program"));
        }
        let Some(name) = program.value.as_deref() else {
            let raw = snippet(&program.raw);
            self.problem(ProblemKind::DynamicProgram, format!("the program `{raw}` is not known before running"));
            return;
        };
        if matches!(name, "source" | ".") && cmd.words.get(1).is_some_and(|f| f.value.is_some()) {
            // `source FILE` runs a script file, as `bash FILE` does, in this shell: what the
            // rest of the line runs may be its functions. A script file nobody has read, like
            // `bash FILE`'s: only `bash(*)` covers it, no deny rule can be ruled out, and the
            // OS sandbox still confines it.
            let file = snippet(cmd.words[1].value.as_deref().unwrap_or(""));
            self.problem(
                ProblemKind::RunsScriptFile,
                format!("`{name} {file}` runs a script file the analysis cannot see"),
            );
        } else if UNSEEN_CODE.contains(&name) {
            self.problem(ProblemKind::RunsUnseenCode, format!("`{name}` runs code the analysis cannot see"));
        } else if name == "enable" && enable_loads(&cmd.words[1..]) {
            // `enable -f FILE NAME` loads a shared object into bash: its code runs unseen.
            self.problem(
                ProblemKind::RunsUnseenCode,
                "`enable -f` loads a builtin's code from a file the analysis cannot see",
            );
        } else if name == "exec" && exec_has_no_command(&cmd.words[1..]) {
            self.problem(ProblemKind::RunsUnseenCode, "`exec` without a command changes the shell's file descriptors");
        } else if name == "coproc" && cmd.words.iter().skip(1).take(2).any(|w| w.value.as_deref() == Some("{")) {
            self.problem(ProblemKind::Unsupported, "`coproc` with a compound command");
        } else if !program.quoted && RESERVED.contains(&name) {
            self.problem(ProblemKind::ParseError, format!("reserved word `{name}` in command position"));
        }
        self.builtin_names(name, &cmd.words[1..]);
        if let Some(arg) = subscript_argument(name, &cmd.words[1..]) {
            self.problem(
                ProblemKind::Unsupported,
                format!(
                    "`{name}` evaluates the subscript of `{}`: bash runs the command substitution in it",
                    snippet(arg)
                ),
            );
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
                        (Some("descriptor"), _) => fd = self.descriptor(*child, src, parts),
                        (_, _) if !child.is_named() => op_token = child.kind(),
                        _ => targets.push(*child),
                    }
                }
                if fd.is_none() {
                    fd = parts.take_fd(node.start_byte());
                }
                let mut targets = targets.into_iter().peekable();
                // `>&-` is complete: words after it are arguments (`git branch >&- new`).
                let closes = op_token.ends_with('-');
                let target_node = if closes { None } else { targets.next() };
                let mut target = match target_node {
                    Some(t) => word_of(t, src),
                    None => literal(if op_token.ends_with('-') { "-" } else { "" }),
                };
                if let Some(t) = target_node {
                    if t.named_child_count() > 0 {
                        parts.scan.push((t, ctx));
                    }
                    // The tree splits one word of bash's into glued destinations (`.e`
                    // `` `echo n`v ``, `.e"n"` `\v`, `in$$$` `.txt`): join them.
                    let mut end = t.end_byte();
                    while let Some(next) = targets.next_if(|n| n.start_byte() == end) {
                        let next_word = word_of(next, src);
                        self.newline_glued(&next_word);
                        glue(&mut target, next_word);
                        if next.named_child_count() > 0 {
                            parts.scan.push((next, ctx));
                        }
                        end = next.end_byte();
                    }
                }
                let mut extra_end: Option<usize> = None;
                for extra in targets {
                    if self.fd_prefix(extra, src, parts) {
                        extra_end = None;
                        continue;
                    }
                    let w = word_of(extra, src);
                    match parts.extra_words.last_mut() {
                        Some(last) if extra_end == Some(extra.start_byte()) => {
                            self.newline_glued(&w);
                            glue(last, w)
                        }
                        _ => parts.extra_words.push(w),
                    }
                    extra_end = Some(extra.end_byte());
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
            "heredoc_redirect" => self.heredoc_redirect(node, &children, src, ctx, parts),
            other => {
                self.problem(ProblemKind::Unsupported, format!("unsupported redirection node `{other}`"));
            }
        }
    }

    /// A here-document: its target is the body, checked line by line against bash's rules
    /// (see [`heredoc`]).
    fn heredoc_redirect<'t>(
        &mut self,
        node: Node<'t>,
        children: &[(Option<&'static str>, Node<'t>)],
        src: &str,
        ctx: Context,
        parts: &mut RedirectParts<'t>,
    ) {
        let h = heredoc::shape(node, src);
        let (quoted, body, misread) = (h.quoted, h.body, h.misread);
        let mut fd = self.heredoc_children(children, misread, src, ctx, parts);
        if fd.is_none() {
            fd = parts.take_fd(node.start_byte());
        }
        let end_line = h.end_line;
        let body_end = body.map(|b| b.end_byte()).or(end_line);
        let body_start = h.body_start;
        self.heredoc_end(&h, src);
        let mut dynamic = false;
        if let Some(m) = misread {
            let region = src.get(m..body.map_or(m, |b| b.start_byte()).max(m)).unwrap_or("");
            if body.is_none() && end_line.is_none() {
                self.problem(ProblemKind::ParseError, "a here-document body the parser reads as words");
            } else if !quoted && region.contains(['$', '`']) {
                dynamic = true;
                self.problem(
                    ProblemKind::ParseError,
                    "a here-document body starting with `\\` holds expansions the parser reads as words",
                );
            }
        }
        let target = match (body_start, body_end) {
            (Some(s), Some(e)) => {
                let s = if misread.is_some() { s } else { body.map_or(s, |b| b.start_byte()) };
                let raw = src.get(s..e.max(s)).unwrap_or("").to_string();
                if let Some(b) = body {
                    dynamic |= !quoted && b.named_child_count() > 0 && {
                        let mut c = b.walk();
                        let any = b.named_children(&mut c).any(|n| n.kind() != "heredoc_content");
                        any
                    };
                    // tree-sitter-bash leaves some expansions in the text (`x[$1]`, `a$-b`).
                    dynamic |= !quoted
                        && canary::heredoc_text_segments(b)
                            .iter()
                            .any(|&(s, e)| has_unmarked_expansion(src.get(s..e).unwrap_or("")));
                    if !quoted {
                        parts.scan.push((b, Context::HereDoc));
                    }
                }
                Word { value: if dynamic { None } else { Some(raw.clone()) }, raw, quoted, glob: false }
            }
            _ => literal(""),
        };
        parts.redirects.push(Redirect { fd, op: RedirectOp::HereDoc, target });
    }

    /// The children of a here-document redirection other than its body, into `parts`: nested
    /// redirections, argument words (not the body text the tree misread as words, from
    /// `misread` on) and the statements riding on its line. Returns the descriptor.
    fn heredoc_children<'t>(
        &mut self,
        children: &[(Option<&'static str>, Node<'t>)],
        misread: Option<usize>,
        src: &str,
        ctx: Context,
        parts: &mut RedirectParts<'t>,
    ) -> Option<u32> {
        let mut fd = None;
        for (field, child) in children {
            match (*field, child.kind()) {
                (_, "comment") | (_, "heredoc_start") | (_, "heredoc_end") | (_, "heredoc_body") => {}
                (Some("descriptor"), _) => fd = self.descriptor(*child, src, parts),
                (Some("redirect"), _) => {
                    let mut nested =
                        RedirectParts { pending_fds: std::mem::take(&mut parts.pending_fds), ..Default::default() };
                    self.redirect(*child, src, ctx, &mut nested);
                    parts.redirects.extend(nested.redirects);
                    parts.extra_words.extend(nested.extra_words);
                    parts.scan.extend(nested.scan);
                    parts.pending_fds = nested.pending_fds;
                }
                (Some("argument"), _) => {
                    if misread.is_some_and(|m| child.start_byte() + 1 >= m) {
                        // Body text the tree read as words.
                        continue;
                    }
                    if self.fd_prefix(*child, src, parts) {
                        continue;
                    }
                    parts.extra_words.push(word_of(*child, src));
                    if child.named_child_count() > 0 {
                        parts.scan.push((*child, ctx));
                    }
                }
                // `cat -<<EOF`, `rm -rf<<EOF`: the tree folds a word glued before the operator
                // into its token; bash ends the word where `<<` begins.
                (_, _) if !child.is_named() => {
                    let op = text(*child, src);
                    let glued = op.strip_suffix("<<-").or_else(|| op.strip_suffix("<<")).unwrap_or("");
                    if glued.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=+:,@%".contains(&b)) {
                        if !glued.is_empty() {
                            parts.extra_words.push(literal(glued));
                        }
                    } else {
                        self.problem(
                            ProblemKind::ParseError,
                            format!("the word `{}` glued to a here-document's `<<`", snippet(glued)),
                        );
                    }
                }
                _ => parts.statements.push(*child),
            }
        }
        fd
    }

    /// Where bash ends a here-document body: on the line the parser does, with no `$\` newline
    /// joined into an expansion (see [`heredoc::scan`]).
    fn heredoc_end(&mut self, h: &heredoc::Shape<'_>, src: &str) {
        let bytes = src.as_bytes();
        let end_line = h.end_line;
        if let (Some(s), Some(d)) = (h.body_start, h.start) {
            match h.delimiter(src) {
                None => self
                    .problem(ProblemKind::Unsupported, format!("here-document delimiter `{}`", snippet(text(d, src)))),
                Some(delim) => {
                    let scan = heredoc::scan(bytes, s, &delim, h.strip_tabs, !h.quoted);
                    if scan.end != end_line {
                        self.problem(
                            ProblemKind::ParseError,
                            format!(
                                "here-document `{}`: bash ends the body on another line than the parser \
                                 (a delimiter line with blanks, or joined by `\\` newline)",
                                snippet(&delim)
                            ),
                        );
                    }
                    if let Some(at) = scan.dollar_join {
                        self.problem(
                            ProblemKind::ParseError,
                            format!("`$\\` newline at byte {at} in a here-document: bash joins it into an expansion"),
                        );
                    }
                }
            }
        }
    }
}

/// Where the first here-document among `redirects` leaves its command line: the end of its
/// `<<DELIM` (the body on the lines after it is not part of the command's text).
fn heredoc_line_end(redirects: &[Node<'_>]) -> Option<usize> {
    redirects
        .iter()
        .filter(|r| r.kind() == "heredoc_redirect")
        .filter_map(|r| {
            let mut c = r.walk();
            let start_node = r.children(&mut c).find(|c| c.kind() == "heredoc_start");
            start_node.map(|s| s.end_byte())
        })
        .min()
}

/// True when the `!` starting a `negated_command` is glued to the word after it (`!]`).
fn bang_glued(node: Node<'_>, src: &str) -> bool {
    node.child(0).is_some_and(|bang| {
        bang.kind() == "!"
            && !matches!(
                src.as_bytes().get(bang.end_byte()),
                Some(b' ' | b'\t' | b'\n' | b'(' | b';' | b'&' | b'|' | b'<' | b'>')
            )
    })
}
/// The `(…)` of a `$((…))` that tree-sitter-bash read as a command substitution holding one
/// subshell (in a here-document body). Bash reads `$((` as arithmetic when the parenthesis
/// that closes the first one is followed by `)`, which is what this shape is.
fn heredoc_arithmetic<'s>(node: Node<'_>, src: &'s str) -> Option<&'s str> {
    if node.kind() != "command_substitution" || node.named_child_count() != 1 {
        return None;
    }
    let inner = node.named_child(0)?;
    let t = text(node, src);
    let shaped = inner.kind() == "subshell"
        && t.starts_with("$((")
        && t.ends_with("))")
        && inner.start_byte() == node.start_byte() + 2
        && inner.end_byte() + 1 == node.end_byte();
    if shaped {
        Some(text(inner, src))
    } else {
        None
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

/// True when no occurrence of `name` as a whole word in `src`, other than the one at `header`,
/// can set the variable: each is a plain expansion (`$name`, `${name}`), or text inside a
/// longer word after `.` or `/` (`a.f`, `src/f`), or after `-` (an option letter: `rm -f`)
/// when no builtin on the line takes a variable name glued to an option (`printf -vf`,
/// `read -af`, `wait -pf`). A bare word (`read f`, `declare -n r=f`, `unset f`), an
/// assignment (`f=`, `f+=`, `f[0]=`) or `${f:=…}` can set it.
fn only_expanded(src: &str, name: &str, header: usize) -> bool {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = src.as_bytes();
    let glued_names = ["printf", "read", "wait"].iter().any(|b| src.contains(b));
    src.match_indices(name).all(|(at, _)| {
        let end = at + name.len();
        if at == header || bytes.get(end).is_some_and(|&b| ident(b)) {
            return true;
        }
        // Glued to letters before it: another name, unless those letters are an option
        // cluster (`-vf`) of a builtin that takes a name.
        let run = src[..at].bytes().rev().take_while(|&b| ident(b)).count();
        if run > 0 {
            return !(glued_names && src[..at - run].ends_with('-'));
        }
        if matches!(bytes.get(end), Some(b'=' | b'[' | b'+')) {
            return false;
        }
        let before = &src[..at];
        (before.ends_with('$') && !before.ends_with("$$"))
            || (before.ends_with("${") && bytes.get(end) == Some(&b'}'))
            || before.ends_with(['.', '/'])
            || (before.ends_with('-') && !glued_names)
    })
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

fn push_children<'t>(stack: &mut Vec<Task<'t>>, node: Node<'t>, ctx: Context, depth: u32, mode: Mode, inh: &Inherited) {
    let mut cursor = node.walk();
    let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
    for child in children.into_iter().rev() {
        stack.push(Task::Visit { node: child, ctx, depth, mode, inh: inh.clone() });
    }
}

/// True when bash takes this `NAME=value` as an assignment: NAME is `[A-Za-z_][A-Za-z0-9_]*`
/// (or a subscripted name). tree-sitter-bash also accepts `4x=1` and non-ASCII names (which
/// the parser sees as letters).
/// True when the value of an assignment holds, in plain word text, a `(` or `)` that no
/// backslash escapes, other than the parentheses of a leading `(…)` (`a=(1)x`, a scalar to bash).
fn paren_in_value(node: Node<'_>, src: &str) -> bool {
    let Some(value) = node.child_by_field_name("value") else {
        return false;
    };
    let mut leaves: Vec<Node<'_>> = Vec::new();
    match value.kind() {
        "word" => leaves.push(value),
        "concatenation" => {
            let mut cursor = value.walk();
            leaves.extend(value.children(&mut cursor).filter(|c| c.kind() == "word"));
        }
        _ => {}
    }
    leaves.iter().any(|leaf| {
        let mut t = text(*leaf, src).as_bytes();
        if leaf.start_byte() == value.start_byte() && t.first() == Some(&b'(') {
            t = t.iter().position(|&b| b == b')').and_then(|i| t.get(i + 1..)).unwrap_or(&[]);
        }
        let mut i = 0;
        while let Some(&b) = t.get(i) {
            match b {
                b'\\' => i += 2,
                b'(' | b')' => return true,
                _ => i += 1,
            }
        }
        false
    })
}

fn valid_assignment(node: Node<'_>, src: &str) -> bool {
    let Some(name) = node.child_by_field_name("name") else {
        return false;
    };
    if name.kind() != "variable_name" {
        return true;
    }
    let t = text(name, src).as_bytes();
    t.first().is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && t.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// True when the text of a `${…}` node holds a bare `{` (not the one of a nested `${`) and a
/// `}` before its last character: where bash and tree-sitter may end it differently.
fn nested_brace(t: &str) -> bool {
    let inner = t.get(2..t.len().saturating_sub(1)).unwrap_or("");
    let b = inner.as_bytes();
    let bare = b.iter().enumerate().any(|(i, &c)| c == b'{' && (i == 0 || b[i - 1] != b'$'));
    bare && inner.contains('}')
}

/// True when the text of a `${…}` node opens more `${` than it closes `}`: the parser ended it
/// at the `}` of a nested one (`${R/${/} }` is one word to bash, two to the parser).
fn unclosed_inner(t: &str) -> bool {
    t.matches("${").count() > t.matches('}').count()
}

/// True when the inside of a `${…}` node ends within a quote: the parser ended it at a `}` that
/// bash reads as quoted text.
fn open_quote(t: &str) -> bool {
    let inner = t.get(2..t.len().saturating_sub(1)).unwrap_or("");
    let (mut single, mut double) = (false, false);
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => {
                chars.next();
            }
            _ => {}
        }
    }
    single || double
}

/// True when the `$` at `at` (the start of `$(`) is the second `$` of a `$$` to bash: an odd run
/// of unescaped `$` before it.
fn dollar_pairs_before(bytes: &[u8], at: usize) -> bool {
    if bytes.get(at) != Some(&b'$') {
        return false;
    }
    let run = bytes[..at].iter().rev().take_while(|&&b| b == b'$').count();
    let backslashes = bytes[..at - run].iter().rev().take_while(|&&b| b == b'\\').count();
    let unescaped = if backslashes % 2 == 1 { run.saturating_sub(1) } else { run };
    unescaped % 2 == 1
}

/// True when `raw` starts as bash's assignment words do: `NAME=`, `NAME+=`, `NAME[…]=`.
fn assignment_shaped(raw: &str) -> bool {
    let b = raw.as_bytes();
    if !b.first().is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
        return false;
    }
    let mut i = b.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
    if b.get(i) == Some(&b'[') {
        match b[i..].iter().position(|&c| c == b']') {
            Some(close) => i += close + 1,
            None => return false,
        }
    }
    if b.get(i) == Some(&b'+') {
        i += 1;
    }
    b.get(i) == Some(&b'=')
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

/// Builtins that take variable names (`read 'a[$(id)]'`), or evaluate their arguments as
/// arithmetic (`let`, `test -v`, `declare -i`): bash expands a subscript in such a word when
/// the builtin uses it, with single quotes long gone, and runs the command substitution in it.
/// The first argument of `name` that holds a subscript with `$(…)` or a backtick.
fn subscript_argument<'w>(name: &str, args: &'w [Word]) -> Option<&'w str> {
    let risky = |s: &str| s.find('[').is_some_and(|i| s[i..].contains("$(") || s[i..].contains('`'));
    let values = || args.iter().filter_map(|w| w.value.as_deref());
    match name {
        "let" | "test" => values().find(|v| risky(v)),
        "declare" | "typeset" | "local" | "export" | "readonly" => {
            // With `-i` the value is evaluated as arithmetic too.
            let integer = values().any(|v| v.starts_with('-') && v.contains('i'));
            values().find(|v| if integer { risky(v) } else { risky(v.split('=').next().unwrap_or(v)) })
        }
        "unset" | "read" | "mapfile" | "readarray" | "getopts" | "wait" => values().find(|v| risky(v)),
        "printf" => {
            let mut it = values();
            while let Some(v) = it.next() {
                let target = match v.strip_prefix("-v") {
                    Some("") => it.next(),
                    Some(rest) => Some(rest),
                    None => None,
                };
                if let Some(t) = target.filter(|t| risky(t)) {
                    return Some(t);
                }
            }
            None
        }
        _ => None,
    }
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

/// True when a quoted string node sits in the operand of a `${…}` that is itself inside double
/// quotes, where bash treats single quotes and `$'…'` as ordinary characters.
fn in_quoted_expansion(node: Node<'_>) -> bool {
    let mut in_expansion = false;
    for n in std::iter::successors(node.parent(), |n| n.parent()) {
        match n.kind() {
            // Only the value operators: a pattern (`#`, `%`, `/`) keeps its quotes.
            "expansion" if !in_expansion => {
                let mut cursor = n.walk();
                let op = n.children(&mut cursor).find(|c| !c.is_named() && c.kind() != "${" && c.kind() != "}");
                if !op.is_some_and(|o| matches!(o.kind(), "-" | ":-" | "+" | ":+" | "=" | ":=" | "?" | ":?")) {
                    return false;
                }
                in_expansion = true;
            }
            "string" if in_expansion => return true,
            "command_substitution" | "process_substitution" | "command" | "program" => return false,
            _ => {}
        }
    }
    false
}
