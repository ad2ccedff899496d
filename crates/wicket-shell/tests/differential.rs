//! Differential test: wicket-shell (tree-sitter-bash) against brush-parser, a second and
//! independent bash parser.
//!
//! The rule checked: **where the two parsers disagree on which simple commands a string runs,
//! wicket-shell must say `understood == false`.** A disagreement on an understood string means
//! one of them is wrong, and a gate that allows by wicket's view could be fooled: each one is
//! checked against bash by hand and is either a wicket bug (pinned in `tests/regressions.rs`
//! and listed in [`KNOWN_BUGS`] so it is not reported twice) or a place where brush differs
//! from bash (handled below, or listed in [`BRUSH_LIMITS`]).
//!
//! What is compared: the simple commands with at least one word (bare assignments and bare
//! redirections are not programs), found anywhere (lists, pipelines, `$(…)`, backticks,
//! `<(…)`, here-doc bodies, `${x:-$(…)}`, arithmetic, subscripts …), as a multiset of argvs.
//! For each word, wicket's `Word::value` is checked against the value brush's word parser
//! gives:
//!
//! * wicket `None` (dynamic) agrees with anything: being conservative is allowed;
//! * wicket `Some(v)` needs brush to give the static value `v` too; a word brush sees as an
//!   expansion while wicket calls it static is a disagreement;
//! * a word brush sees as an unquoted glob (`*`, `?`, `[`) must have `Word::glob` set (or be
//!   dynamic).
//!
//! Where the two model the same bash differently, and neither is wrong, the oracle adapts:
//!
//! * `time …` and `coproc …` are keywords to bash and brush but wrapper programs to
//!   tree-sitter (and `strip_wrappers`): brush's command gets the program word back;
//! * `[ … ]` is a test expression to tree-sitter (like `[[ … ]]`) and wicket lists no command
//!   for it (its words are still scanned for substitutions): brush's `[` commands are dropped;
//! * a tilde prefix (`~`, `~user`) stays literal on both sides (wicket expands nothing; the
//!   policy resolves `~`).
//!
//! Where brush-parser differs from bash, the oracle does not guess:
//!
//! * brush undoes only `` \` `` inside backticks; the oracle unescapes the source text the way
//!   bash does instead (`\$`, `` \` ``, `\\`, and `\"` inside double quotes);
//! * brush reads `( (…) )` (two subshells) as the arithmetic command `((…))`: skipped;
//! * brush cannot parse some strings bash runs (`select`, `case` inside `$(…)`): skipped, and
//!   each such corpus line is pinned with bash's answer in [`BRUSH_LIMITS`];
//! * brush panics on some input (it has `unwrap`s in its grammar, e.g. a brace sequence
//!   number that overflows `i64`): skipped;
//! * brush shares some of tree-sitter's mistakes, so the oracle cannot see them: in an
//!   unquoted here-document body bash joins `\⏎` lines before it looks for the delimiter
//!   and for expansions (`x\⏎EOF`, `$\⏎(cmd)`); brush does not either. Such cases are
//!   pinned in `tests/regressions.rs` from bash's own behaviour;
//! * `$'…'` with escapes other than `\n \t \r \\ \' \"`, and a word with a backslash where
//!   brush finds a brace expansion (`o{}{,{\,}` has none to bash): the word is *opaque* to the
//!   oracle and agrees with any wicket value.
//!
//! The corpus is `tests/cases/differential.txt` (one command a line, `⏎` for a newline), and
//! the inputs of `tests/cases/split.txt` are run too. The same comparison drives the
//! `differential` target of the cargo-fuzz project in `fuzz/`, which includes this file as a
//! module (see `docs/fuzzing.md`).

#![allow(clippy::disallowed_methods)] // a test: runs the reference parser's cases from disk
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic
#![allow(dead_code)] // the fuzz target uses only part of this file

use brush_parser::ast;
use brush_parser::word::{self as bword, WordPiece, WordPieceWithSource};
use brush_parser::ParserOptions;
use wicket_shell::{analyze, Analysis};

/// How brush sees one word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BValue {
    /// The value after quote removal, known statically.
    Static(String),
    /// Holds an expansion: the value is only known at run time.
    Dynamic,
    /// The oracle cannot compute it (see the module docs): agrees with anything.
    Opaque,
}

/// One word as brush sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BWord {
    /// The raw text.
    pub raw: String,
    /// Its value.
    pub value: BValue,
    /// True when an unquoted glob character is in it.
    pub glob: bool,
}

/// Why the oracle gives no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// brush-parser does not parse the string (or a nested piece of it).
    BrushError(String),
    /// brush-parser panicked.
    BrushPanic,
    /// The string is deeper than the oracle walks.
    TooDeep,
    /// A known place where brush-parser differs from bash.
    BrushLimit(&'static str),
}

const MAX_ORACLE_DEPTH: u32 = 48;

fn options() -> ParserOptions {
    ParserOptions::default()
}

/// The simple commands (with at least one word) brush finds in `src`, outer before nested.
pub fn brush_commands(src: &str) -> Result<Vec<Vec<BWord>>, Skip> {
    let mut o = Oracle { out: Vec::new(), depth: 0, sources: Vec::new() };
    o.source(src)?;
    Ok(o.out.into_iter().filter(|c| !c.is_empty()).collect())
}

struct Oracle {
    out: Vec<Vec<BWord>>,
    depth: u32,
    /// The strings being parsed, innermost last (brush's source locations index into them).
    sources: Vec<String>,
}

impl Oracle {
    fn deeper<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, Skip>) -> Result<T, Skip> {
        if self.depth >= MAX_ORACLE_DEPTH {
            return Err(Skip::TooDeep);
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn source(&mut self, src: &str) -> Result<(), Skip> {
        let mut parser = brush_parser::Parser::new(std::io::Cursor::new(src.as_bytes()), &options());
        let program = parser.parse_program().map_err(|e| Skip::BrushError(format!("{e}")))?;
        self.sources.push(src.to_string());
        let r = self.deeper(|o| {
            for cc in &program.complete_commands {
                o.list(cc)?;
            }
            Ok(())
        });
        self.sources.pop();
        r
    }

    fn list(&mut self, list: &ast::CompoundList) -> Result<(), Skip> {
        for item in &list.0 {
            self.and_or(&item.0)?;
        }
        Ok(())
    }

    fn and_or(&mut self, l: &ast::AndOrList) -> Result<(), Skip> {
        self.pipeline(&l.first)?;
        for next in &l.additional {
            match next {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => self.pipeline(p)?,
            }
        }
        Ok(())
    }

    fn pipeline(&mut self, p: &ast::Pipeline) -> Result<(), Skip> {
        if p.seq.is_empty() {
            // A bare `time` (or `time -p`): the program `time` to tree-sitter.
            if let Some(timed) = &p.timed {
                let mut words = vec![bstatic("time")];
                if matches!(timed, ast::PipelineTimed::TimedWithPosixOutput(_)) {
                    words.push(bstatic("-p"));
                }
                self.out.push(words);
            }
            return Ok(());
        }
        for (i, cmd) in p.seq.iter().enumerate() {
            let before = self.out.len();
            self.command(cmd)?;
            // `time cmd` is a keyword to bash and brush, a wrapper program to tree-sitter:
            // compare it as the program `time` (`time -p` for the POSIX form).
            if i == 0 && matches!(cmd, ast::Command::Simple(_)) {
                if let (Some(timed), Some(first)) = (&p.timed, self.out.get_mut(before)) {
                    let mut words = vec![bstatic("time")];
                    if matches!(timed, ast::PipelineTimed::TimedWithPosixOutput(_)) {
                        words.push(bstatic("-p"));
                    }
                    words.append(first);
                    *first = words;
                }
            }
        }
        Ok(())
    }

    fn command(&mut self, cmd: &ast::Command) -> Result<(), Skip> {
        self.deeper(|o| match cmd {
            ast::Command::Simple(sc) => o.simple(sc),
            ast::Command::Compound(cc, redirects) => {
                o.compound(cc)?;
                o.redirect_list(redirects.as_ref())
            }
            ast::Command::Function(f) => {
                o.word(&f.fname)?;
                o.compound(&f.body.0)?;
                o.redirect_list(f.body.1.as_ref())
            }
            ast::Command::ExtendedTest(t, redirects) => {
                o.test_expr(&t.expr)?;
                o.redirect_list(redirects.as_ref())
            }
        })
    }

    fn compound(&mut self, cc: &ast::CompoundCommand) -> Result<(), Skip> {
        self.deeper(|o| match cc {
            ast::CompoundCommand::Arithmetic(a) => {
                // brush-parser reads `( (a) )` (two subshells to bash) as `((…))`.
                let at = a.loc.start.index;
                let src = o.sources.last().map(String::as_str).unwrap_or("");
                if src.get(at..at + 2) != Some("((") {
                    return Err(Skip::BrushLimit("`( (` read as an arithmetic command"));
                }
                o.arithmetic(&a.expr.value)
            }
            ast::CompoundCommand::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater].into_iter().flatten() {
                    o.arithmetic(&e.value)?;
                }
                o.list(&f.body.list)
            }
            ast::CompoundCommand::BraceGroup(g) => o.list(&g.list),
            ast::CompoundCommand::Subshell(s) => o.list(&s.list),
            ast::CompoundCommand::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    o.word(w)?;
                }
                o.list(&f.body.list)
            }
            ast::CompoundCommand::CaseClause(c) => {
                o.word(&c.value)?;
                for item in &c.cases {
                    for p in &item.patterns {
                        o.word(p)?;
                    }
                    if let Some(l) = &item.cmd {
                        o.list(l)?;
                    }
                }
                Ok(())
            }
            ast::CompoundCommand::IfClause(i) => {
                o.list(&i.condition)?;
                o.list(&i.then)?;
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        o.list(c)?;
                    }
                    o.list(&e.body)?;
                }
                Ok(())
            }
            ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
                o.list(&w.0)?;
                o.list(&w.1.list)
            }
            ast::CompoundCommand::Coprocess(c) => {
                // `coproc cmd` is a keyword to bash and brush, a wrapper program to
                // tree-sitter (and wicket's `strip_wrappers`): compare it as the program.
                let mut head = vec![bstatic("coproc")];
                if let Some(n) = &c.name {
                    head.push(o.word(n)?);
                }
                let before = o.out.len();
                if !matches!(*c.body, ast::Command::Simple(_)) {
                    // `coproc (…)`: tree-sitter sees the command `coproc` and a subshell.
                    o.out.push(head);
                    return o.command(&c.body);
                }
                o.command(&c.body)?;
                if let Some(first) = o.out.get_mut(before) {
                    head.append(first);
                    *first = head;
                }
                Ok(())
            }
        })
    }

    fn test_expr(&mut self, e: &ast::ExtendedTestExpr) -> Result<(), Skip> {
        self.deeper(|o| match e {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                o.test_expr(a)?;
                o.test_expr(b)
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => o.test_expr(a),
            ast::ExtendedTestExpr::UnaryTest(_, w) => o.word(w).map(|_| ()),
            ast::ExtendedTestExpr::BinaryTest(_, l, r) => {
                o.word(l)?;
                o.word(r).map(|_| ())
            }
        })
    }

    fn simple(&mut self, sc: &ast::SimpleCommand) -> Result<(), Skip> {
        // Record the command before the ones nested in its words (wicket's order); the words
        // are filled in after the scan.
        let slot = self.out.len();
        self.out.push(Vec::new());
        let mut words = Vec::new();
        if let Some(prefix) = &sc.prefix {
            for item in &prefix.0 {
                self.item(item, &mut words, true)?;
            }
        }
        if let Some(w) = &sc.word_or_name {
            words.push(self.word(w)?);
        }
        if let Some(suffix) = &sc.suffix {
            for item in &suffix.0 {
                self.item(item, &mut words, false)?;
            }
        }
        // tree-sitter-bash reads `[ … ]` as a test expression (like `[[ … ]]`), not as the
        // builtin `[`, and wicket lists no command for it (it still scans the words for
        // substitutions). Not compared; `test …` is.
        let bracket = words.first().is_some_and(|w| w.value == BValue::Static("[".to_string()) && w.raw == "[");
        if let Some(s) = self.out.get_mut(slot) {
            *s = if bracket { Vec::new() } else { words };
        }
        Ok(())
    }

    fn item(
        &mut self,
        item: &ast::CommandPrefixOrSuffixItem,
        words: &mut Vec<BWord>,
        prefix: bool,
    ) -> Result<(), Skip> {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(r) => self.redirect(r),
            ast::CommandPrefixOrSuffixItem::Word(w) => {
                words.push(self.word(w)?);
                Ok(())
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
                if prefix {
                    self.assignment(a)
                } else {
                    // `export A=$(x)`, `declare -a a=(…)`: an argument of the command.
                    words.push(self.word(w)?);
                    Ok(())
                }
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                // brush ends the word at the `)` of `<(…)`: `<(ls)x` is two words to brush, one
                // (`/dev/fd/63x`) to bash.
                let src = self.sources.last().map(String::as_str).unwrap_or("");
                let glued = src.as_bytes().windows(2).any(|w| w[0] == b')' && !b" \t\n;&|)<>".contains(&w[1]));
                if glued {
                    return Err(Skip::BrushLimit("text glued to a process substitution"));
                }
                let raw = String::new();
                words.push(BWord { raw, value: BValue::Dynamic, glob: false });
                self.deeper(|o| o.list(&sub.list))
            }
        }
    }

    /// The commands nested in an assignment's value.
    fn assignment(&mut self, a: &ast::Assignment) -> Result<(), Skip> {
        if let ast::AssignmentName::ArrayElementName(_, index) = &a.name {
            self.arithmetic(index)?;
        }
        match &a.value {
            ast::AssignmentValue::Scalar(w) => self.word(w).map(|_| ()),
            ast::AssignmentValue::Array(items) => {
                for (k, v) in items {
                    if let Some(k) = k {
                        self.word(k)?;
                    }
                    self.word(v)?;
                }
                Ok(())
            }
        }
    }

    fn redirect_list(&mut self, r: Option<&ast::RedirectList>) -> Result<(), Skip> {
        for r in r.map(|r| r.0.as_slice()).unwrap_or(&[]) {
            self.redirect(r)?;
        }
        Ok(())
    }

    fn redirect(&mut self, r: &ast::IoRedirect) -> Result<(), Skip> {
        match r {
            ast::IoRedirect::File(_, _, target) => match target {
                ast::IoFileRedirectTarget::Filename(w) | ast::IoFileRedirectTarget::Duplicate(w) => {
                    self.word(w).map(|_| ())
                }
                ast::IoFileRedirectTarget::Fd(_) => Ok(()),
                ast::IoFileRedirectTarget::ProcessSubstitution(_, sub) => self.deeper(|o| o.list(&sub.list)),
            },
            ast::IoRedirect::HereDocument(_, doc) => {
                if doc.requires_expansion {
                    let pieces = bword::parse_heredoc(&doc.doc.value, &options())
                        .map_err(|e| Skip::BrushError(format!("here-doc: {e}")))?;
                    let mut b = WordBuilder::new();
                    self.pieces(&doc.doc.value, &pieces, &mut b, Quoting::Text)?;
                }
                Ok(())
            }
            ast::IoRedirect::HereString(_, w) | ast::IoRedirect::OutputAndError(w, _) => self.word(w).map(|_| ()),
        }
    }

    /// Scans an arithmetic expression for command substitutions.
    fn arithmetic(&mut self, expr: &str) -> Result<(), Skip> {
        if !expr.contains('$') && !expr.contains('`') {
            return Ok(());
        }
        self.scan_text(expr)
    }

    /// Scans text with expansions (not a shell word: quotes are not special) for command
    /// substitutions.
    fn scan_text(&mut self, text: &str) -> Result<(), Skip> {
        let pieces = bword::parse_heredoc(text, &options()).map_err(|e| Skip::BrushError(format!("text: {e}")))?;
        let mut b = WordBuilder::new();
        self.pieces(text, &pieces, &mut b, Quoting::Text)
    }

    /// Scans a string that bash parses as a word (parameter-expansion operands).
    fn scan_word_text(&mut self, text: &str) -> Result<(), Skip> {
        let pieces = bword::parse(text, &options()).map_err(|e| Skip::BrushError(format!("word: {e}")))?;
        let mut b = WordBuilder::new();
        self.pieces(text, &pieces, &mut b, Quoting::None)
    }

    /// One word: its value, and every command nested in it.
    fn word(&mut self, w: &ast::Word) -> Result<BWord, Skip> {
        let raw = w.value.as_str();
        let pieces = bword::parse(raw, &options()).map_err(|e| Skip::BrushError(format!("word `{raw}`: {e}")))?;
        let mut b = WordBuilder::new();
        self.deeper(|o| o.pieces(raw, &pieces, &mut b, Quoting::None))?;
        // Brace expansion happens on the whole word, before the other expansions.
        if raw.contains('{') {
            if let Ok(Some(parts)) = bword::parse_brace_expansions(raw, &options()) {
                if parts.iter().any(|p| matches!(p, bword::BraceExpressionOrText::Expr(_))) {
                    // brush finds brace expansions bash does not make when a backslash is
                    // inside (`o{}{,{\,}` is the one word `o{}{,{,}` to bash): no judgement
                    // there (`tests/regressions.rs` pins bash's answers).
                    if raw.contains('\\') {
                        b.opaque();
                    } else {
                        b.value = BValue::Dynamic;
                    }
                }
            }
        }
        Ok(BWord { raw: raw.to_string(), value: b.value, glob: b.glob })
    }

    fn pieces(
        &mut self,
        raw: &str,
        pieces: &[WordPieceWithSource],
        b: &mut WordBuilder,
        q: Quoting,
    ) -> Result<(), Skip> {
        for p in pieces {
            match &p.piece {
                WordPiece::Text(s) => {
                    if q == Quoting::None && s.contains(['*', '?', '[']) {
                        b.glob = true;
                    }
                    b.push(s);
                }
                WordPiece::SingleQuotedText(s) => b.push(s),
                WordPiece::AnsiCQuotedText(s) => match decode_ansi_c_simple(s) {
                    Some(v) => b.push(&v),
                    None => b.opaque(),
                },
                WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.pieces(raw, inner, b, Quoting::Double)?;
                }
                WordPiece::TildeExpansion(_) => b.push(raw.get(p.start_index..p.end_index).unwrap_or("~")),
                WordPiece::EscapeSequence(s) => {
                    let escaped = s.strip_prefix('\\').unwrap_or(s);
                    if escaped != "\n" {
                        b.push(escaped);
                    }
                }
                WordPiece::ParameterExpansion(pe) => {
                    b.dynamic();
                    self.deeper(|o| o.parameter(pe, q))?;
                }
                WordPiece::CommandSubstitution(inner) => {
                    b.dynamic();
                    self.source(inner)?;
                }
                WordPiece::BackquotedCommandSubstitution(_) => {
                    // brush-parser undoes only `\``, not `\$`, `\\` or (in double quotes)
                    // `\"`: unescape the source text the way bash does instead.
                    b.dynamic();
                    let text = raw.get(p.start_index..p.end_index).unwrap_or("");
                    let inner = text.strip_prefix('`').and_then(|t| t.strip_suffix('`')).unwrap_or("");
                    self.source(&unescape_backtick(inner, q == Quoting::Double))?;
                }
                WordPiece::ArithmeticExpression(e) => {
                    b.dynamic();
                    self.deeper(|o| o.arithmetic(&e.value))?;
                }
            }
        }
        Ok(())
    }

    fn parameter(&mut self, pe: &bword::ParameterExpr, q: Quoting) -> Result<(), Skip> {
        use bword::ParameterExpr as P;
        // In a double-quoted `${x:-…}` (also `-`, `=`, `?`, `+`) bash reads the operand as
        // double-quoted text: a single quote there is an ordinary character, so `'$(id)'`
        // runs `id`. Pattern operands (`#`, `%`, `/`) keep their quotes.
        let literal_quotes = q == Quoting::Double
            && matches!(
                pe,
                P::UseDefaultValues { .. }
                    | P::AssignDefaultValues { .. }
                    | P::IndicateErrorIfNullOrUnset { .. }
                    | P::UseAlternativeValue { .. }
            );
        let (parameter, operands): (Option<&bword::Parameter>, Vec<&str>) = match pe {
            P::Parameter { parameter, .. } | P::ParameterLength { parameter, .. } | P::Transform { parameter, .. } => {
                (Some(parameter), vec![])
            }
            P::UseDefaultValues { parameter, default_value: v, .. }
            | P::AssignDefaultValues { parameter, default_value: v, .. }
            | P::IndicateErrorIfNullOrUnset { parameter, error_message: v, .. }
            | P::UseAlternativeValue { parameter, alternative_value: v, .. }
            | P::RemoveSmallestSuffixPattern { parameter, pattern: v, .. }
            | P::RemoveLargestSuffixPattern { parameter, pattern: v, .. }
            | P::RemoveSmallestPrefixPattern { parameter, pattern: v, .. }
            | P::RemoveLargestPrefixPattern { parameter, pattern: v, .. }
            | P::UppercaseFirstChar { parameter, pattern: v, .. }
            | P::UppercasePattern { parameter, pattern: v, .. }
            | P::LowercaseFirstChar { parameter, pattern: v, .. }
            | P::LowercasePattern { parameter, pattern: v, .. } => {
                (Some(parameter), v.iter().map(String::as_str).collect())
            }
            P::Substring { parameter, offset, length, .. } => {
                let mut ops = vec![offset.value.as_str()];
                if let Some(l) = length {
                    ops.push(l.value.as_str());
                }
                for op in ops {
                    self.arithmetic(op)?;
                }
                (Some(parameter), vec![])
            }
            P::ReplaceSubstring { parameter, pattern, replacement, .. } => {
                let mut ops = vec![pattern.as_str()];
                if let Some(r) = replacement {
                    ops.push(r.as_str());
                }
                (Some(parameter), ops)
            }
            P::VariableNames { .. } | P::MemberKeys { .. } => (None, vec![]),
        };
        if let Some(bword::Parameter::NamedWithIndex { index, .. }) = parameter {
            self.arithmetic(index)?;
        }
        for op in operands {
            if literal_quotes && op.contains('\'') && !op.contains(['"', '\\']) {
                self.scan_word_text(&format!("\"{op}\""))?;
            } else if op.contains('$') || op.contains('`') {
                self.scan_word_text(op)?;
            }
        }
        Ok(())
    }
}

/// Where word pieces sit.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quoting {
    /// Unquoted word text.
    None,
    /// Inside double quotes.
    Double,
    /// A here-document body or other expansion-only text (quotes are literal).
    Text,
}

struct WordBuilder {
    value: BValue,
    glob: bool,
}

impl WordBuilder {
    fn new() -> Self {
        WordBuilder { value: BValue::Static(String::new()), glob: false }
    }

    fn push(&mut self, s: &str) {
        if let BValue::Static(v) = &mut self.value {
            v.push_str(s);
        }
    }

    fn dynamic(&mut self) {
        self.value = BValue::Dynamic;
    }

    fn opaque(&mut self) {
        if self.value != BValue::Dynamic {
            self.value = BValue::Opaque;
        }
    }
}

/// Inside `` `…` `` a backslash quotes only `$`, `` ` `` and `\` (and `"` when the
/// substitution is in double quotes); bash(1), "Command Substitution".
fn unescape_backtick(inner: &str, in_double_quotes: bool) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&n) = chars.peek() {
                if matches!(n, '$' | '`' | '\\') || (in_double_quotes && n == '"') {
                    out.push(n);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

fn bstatic(s: &str) -> BWord {
    BWord { raw: s.to_string(), value: BValue::Static(s.to_string()), glob: false }
}

/// Decodes `$'…'` when it holds only the common escapes; `None` otherwise (the word is then
/// opaque to the oracle).
fn decode_ansi_c_simple(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            _ => return None,
        }
    }
    Some(out)
}

/// True for the strings the `differential` fuzz target does not compare (and the triage of its
/// corpus skips): over 2 KiB, or nested or backslash-heavy past what brush-parser's recursive,
/// backtracking grammar survives in 10 s (it overflows the stack or backtracks exponentially on
/// long backslash runs and nested here-documents in substitutions; wicket takes microseconds on
/// them, and the `walker` target covers it).
pub fn beyond_brush(src: &str) -> bool {
    let mut depth = 0i32;
    let mut max = 0i32;
    let mut backticks = 0;
    for c in src.chars() {
        match c {
            '(' | '{' | '[' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' | '}' | ']' => depth -= 1,
            '`' => backticks += 1,
            _ => {}
        }
    }
    let backslashes = src.matches('\\').count();
    // brush's brace expansion backtracks exponentially on many unclosed `{` (16 take a
    // minute); wicket is fast on them, and the `walker` target still covers it there.
    // Here-document bodies inside `$(…)` are a known brush limit (see `compare_with`), and
    // its word parser can take seconds on them before it gives up.
    src.len() > 2048
        || heredoc_in_substitution(src)
        || src.matches('{').count() > 12
        || max > 24
        || backticks > 24
        || backslashes > 16
        || src.matches("<<").count() > 4
        || src.matches("$(").count() > 8
}

/// Runs brush on `src`, turning a panic inside brush-parser into [`Skip::BrushPanic`].
pub fn brush_commands_guarded(src: &str) -> Result<Vec<Vec<BWord>>, Skip> {
    std::panic::catch_unwind(|| brush_commands(src)).unwrap_or(Err(Skip::BrushPanic))
}

/// True when wicket's word agrees with brush's.
fn word_agrees(w: &wicket_shell::Word, b: &BWord) -> bool {
    let value_ok = match (&w.value, &b.value) {
        (None, _) => true,
        (Some(_), BValue::Opaque) => true,
        (Some(v), BValue::Static(bv)) => v == bv,
        (Some(_), BValue::Dynamic) => false,
    };
    value_ok && (w.glob || !b.glob || w.value.is_none())
}

fn command_agrees(w: &[wicket_shell::Word], b: &[BWord]) -> bool {
    w.len() == b.len() && w.iter().zip(b).all(|(w, b)| word_agrees(w, b))
}

fn show_wicket(c: &[wicket_shell::Word]) -> String {
    let words: Vec<String> = c
        .iter()
        .map(|w| match &w.value {
            Some(v) => format!("{v:?}{}", if w.glob { "*" } else { "" }),
            None => format!("<{}>", w.raw),
        })
        .collect();
    format!("[{}]", words.join(", "))
}

fn show_brush(c: &[BWord]) -> String {
    let words: Vec<String> = c
        .iter()
        .map(|w| match &w.value {
            BValue::Static(v) => format!("{v:?}{}", if w.glob { "*" } else { "" }),
            BValue::Dynamic => format!("<{}>", w.raw),
            BValue::Opaque => format!("?{}?", w.raw),
        })
        .collect();
    format!("[{}]", words.join(", "))
}

type WCmd = Vec<wicket_shell::Word>;

/// Matches wicket's commands to brush's (greedily, in order): the unmatched ones of each side.
fn unmatched(w: &[WCmd], b: &[Vec<BWord>]) -> (Vec<usize>, Vec<usize>) {
    let mut used = vec![false; b.len()];
    let mut w_only = Vec::new();
    for (wi, wc) in w.iter().enumerate() {
        match b.iter().enumerate().position(|(i, bc)| !used[i] && command_agrees(wc, bc)) {
            Some(i) => used[i] = true,
            None => w_only.push(wi),
        }
    }
    let b_only = used.iter().enumerate().filter(|(_, u)| !**u).map(|(i, _)| i).collect();
    (w_only, b_only)
}

/// A wicket bug already found, reported and pinned by a test in `tests/regressions.rs`: a
/// disagreement it explains is not reported again (the corpus test lists it, the fuzz target
/// goes on). Each bug applies only where `applies` holds, and explains a disagreement when the
/// disagreement goes away after `forgive` rewrites the two lists.
pub struct KnownBug {
    /// The name of the regression test that pins it.
    pub test: &'static str,
    applies: fn(&str) -> bool,
    forgive: fn(&mut Vec<WCmd>, &mut Vec<Vec<BWord>>),
}

/// See `tests/regressions.rs` for each one.
pub const KNOWN_BUGS: &[KnownBug] = &[
    // Empty: every bug found so far is fixed. An entry looks like
    // `KnownBug { test: "ignored_test_name", applies: |src| src.contains("…"),
    //             forgive: forgive_all_unmatched }`.
];

/// Drops every command the two sides do not match (for bugs that garble what follows them).
fn forgive_all_unmatched(w: &mut Vec<WCmd>, b: &mut Vec<Vec<BWord>>) {
    let (w_only, b_only) = unmatched(w, b);
    let (mut i, mut j) = (0, 0);
    w.retain(|_| {
        i += 1;
        !w_only.contains(&(i - 1))
    });
    b.retain(|_| {
        j += 1;
        !b_only.contains(&(j - 1))
    });
}

/// The verdict on one string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// wicket says not understood: nothing to check.
    NotUnderstood,
    /// The oracle has no answer.
    Skipped(Skip),
    /// Both agree.
    Agree,
    /// They disagree in a way a known (reported) wicket bug explains: the test names.
    KnownBug(Vec<&'static str>, String),
    /// wicket says understood and the oracle disagrees.
    Disagree(String),
}

/// Compares wicket's analysis of `src` with brush's.
pub fn compare(src: &str) -> Verdict {
    compare_with(src, &analyze(src), brush_commands_guarded)
}

/// [`compare`] with the analysis and the brush runner given (the fuzz target installs its own
/// panic handling around brush).
pub fn compare_with(src: &str, a: &Analysis, brush: impl FnOnce(&str) -> Result<Vec<Vec<BWord>>, Skip>) -> Verdict {
    if !a.understood {
        return Verdict::NotUnderstood;
    }
    let b = match brush(src) {
        Ok(b) => b,
        Err(skip) => return Verdict::Skipped(skip),
    };
    // `[` commands are dropped on both sides (see `simple`): tree-sitter lists one only when
    // the `]` is missing (`[ -f x ; …`), which bash runs as the builtin too.
    let w: Vec<WCmd> =
        a.commands.iter().filter(|c| c.words.first().is_some_and(|p| p.raw != "[")).map(|c| c.words.clone()).collect();
    let (w_only, b_only) = unmatched(&w, &b);
    if w_only.is_empty() && b_only.is_empty() {
        return Verdict::Agree;
    }
    // brush's tokenizer removes `\⏎` inside `$'…'`, where bash keeps both characters.
    if src.contains("$'") && src.contains("\\\n") {
        return Verdict::Skipped(Skip::BrushLimit("`\\⏎` inside `$'…'`"));
    }
    // brush parses with `extglob` on; `bash -c` has it off, where `?(…)` is a syntax error and
    // bash runs nothing. tree-sitter reads it either way: no judgement.
    if ["?(", "*(", "+(", "@(", "!("].iter().any(|p| src.contains(p)) {
        return Verdict::Skipped(Skip::BrushLimit("extglob pattern (off in bash -c)"));
    }
    // brush ends a word at the `)` of an array value and splits off what is glued after it;
    // bash reads `a=(1)x` and `declare arr=(1 $(y))z` as one word (the scalar `(1)x`), or
    // refuses the string when a second `(` follows.
    if src.as_bytes().windows(2).any(|w| w[0] == b')' && !b" \t\n;&|)<>".contains(&w[1])) && src.contains("=(") {
        return Verdict::Skipped(Skip::BrushLimit("text glued after an array value"));
    }
    // brush's word parser does not read here-document bodies inside `$(…)`: a parenthesis,
    // quote or backtick in the body is taken as syntax (`"$(t<<'EOF'⏎(⏎EOF⏎)"` is static text
    // to it, and a `"` in a commit message ends the string).
    if heredoc_in_substitution(src) {
        return Verdict::Skipped(Skip::BrushLimit("here-document body inside `$(…)`"));
    }
    // brush ends a word before `<(`/`>(`; bash reads `m<(v)` as one word (`m/dev/fd/63`).
    let glued_before =
        src.as_bytes().windows(3).any(|w| matches!(&w[1..], b"<(" | b">(") && !b" \t\n;&|()<>".contains(&w[0]));
    if glued_before {
        return Verdict::Skipped(Skip::BrushLimit("text glued before a process substitution"));
    }
    // bash reads `2>&-/tmp/f` as closing fd 2 and the argument `/tmp/f`; brush drops the word.
    let close_glued = ["<&-", ">&-"].iter().any(|op| {
        src.match_indices(op).any(|(at, _)| src.as_bytes().get(at + 3).is_some_and(|b| !b" \t\n;&|()<>".contains(b)))
    });
    if close_glued {
        return Verdict::Skipped(Skip::BrushLimit("a word glued to `>&-`"));
    }
    // brush keeps `{fd}` before a redirection as an argument; bash reads it as a descriptor
    // variable (`cat {fd}<in` runs `cat` with no argument).
    let fd_variable = src.match_indices('}').any(|(at, _)| {
        matches!(src.as_bytes().get(at + 1), Some(b'<' | b'>'))
            && src[..at].rfind('{').is_some_and(|open| {
                let name = &src[open + 1..at];
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            })
    });
    if fd_variable {
        return Verdict::Skipped(Skip::BrushLimit("`{name}` before a redirection"));
    }
    // brush reads `$${x}` as `$` and `${x}`; bash as `$$` (the pid) and the text `{x}`.
    if src.contains("$${") {
        return Verdict::Skipped(Skip::BrushLimit("`$${`"));
    }
    // brush reads `$$[a;b]` as `$` and `$[a;b]` (one word); bash as `$$` and the text `[a`,
    // then the command `b]` (bash 5.2.15: `echo A$$[$$x;echo hi]` prints two lines).
    if src.contains("$$[") {
        return Verdict::Skipped(Skip::BrushLimit("`$$[`"));
    }
    let detail = format!(
        "wicket only: {}\nbrush only:  {}\nwicket: {}\nbrush:  {}",
        w_only.iter().map(|&i| show_wicket(&w[i])).collect::<Vec<_>>().join(" "),
        b_only.iter().map(|&i| show_brush(&b[i])).collect::<Vec<_>>().join(" "),
        w.iter().map(|c| show_wicket(c)).collect::<Vec<_>>().join(" "),
        b.iter().map(|c| show_brush(c)).collect::<Vec<_>>().join(" "),
    );
    // Known bugs: forgive every one that applies, then keep only those needed.
    let applicable: Vec<&KnownBug> = KNOWN_BUGS.iter().filter(|k| (k.applies)(src)).collect();
    let forgiven_by = |bugs: &[&KnownBug]| {
        let (mut w2, mut b2) = (w.clone(), b.clone());
        for k in bugs {
            (k.forgive)(&mut w2, &mut b2);
        }
        let w2: Vec<WCmd> = w2.into_iter().filter(|c| !c.is_empty()).collect();
        let b2: Vec<Vec<BWord>> = b2.into_iter().filter(|c| !c.is_empty()).collect();
        let (wo, bo) = unmatched(&w2, &b2);
        wo.is_empty() && bo.is_empty()
    };
    if !applicable.is_empty() && forgiven_by(&applicable) {
        let needed: Vec<&'static str> = applicable.iter().filter(|k| forgiven_by(&[**k])).map(|k| k.test).collect();
        let names = if needed.is_empty() { applicable.iter().map(|k| k.test).collect() } else { needed };
        return Verdict::KnownBug(names, detail);
    }
    Verdict::Disagree(detail)
}

/// True when a `<<` follows a `$(` and the text after the here-document's first line holds a
/// character brush's word parser takes as syntax there.
fn heredoc_in_substitution(src: &str) -> bool {
    let Some(open) = src.find("$(") else {
        return false;
    };
    src[open..].match_indices("<<").any(|(at, _)| {
        let after = &src[open + at..];
        after.find('\n').is_some_and(|nl| after[nl..].contains(['(', ')', '"', '\'', '`']))
    })
}

// ---------------------------------------------------------------------------------------------
// The corpus.

const CORPUS: &str = include_str!("cases/differential.txt");

fn corpus() -> Vec<(usize, String)> {
    CORPUS
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| (i + 1, l.replace('⏎', "\n")))
        .collect()
}

/// Fixture lines brush-parser cannot judge (it fails or refuses where wicket understands),
/// each with the canonical parts wicket must list, checked against bash 5.2.15.
pub const BRUSH_LIMITS: &[(&str, &[&str])] = &[
    // brush keeps `{fd}` as an argument; bash opens `in` on a new descriptor stored in `fd` and
    // runs `cat` with no argument (a function printing `$#` shows 0).
    ("cat {fd}<in", &["cat"]),
    // brush: "syntax error" on the `)` of a `case` pattern inside `$(…)`; bash prints `y`.
    ("echo $(case x in x) echo y;; esac)", &["echo $(case x in x) echo y;; esac)", "echo y"]),
    // brush has no `select`; bash runs the loop body.
    ("select x in a b; do echo $x; done", &["echo $x"]),
    // brush reads `( (` as `((`; bash runs two nested subshells.
    ("( ( nested ) )", &["nested"]),
    // brush refuses it, like bash ("syntax error near unexpected token `;;'"), so bash runs
    // nothing; tree-sitter accepts it and wicket lists both (harmless: more, never fewer; see
    // split.txt).
    ("a;;b", &["a", "b"]),
    // Refused by brush and by bash (`{echo` is a word, then `}` is unexpected): bash runs
    // nothing; tree-sitter reads a group.
    ("{echo a;}", &["echo a"]),
    // brush: "syntax error"; bash runs `id` for the list of the `for`.
    ("for x in <(id); do :; done", &["id", ":"]),
    // brush: "unterminated here document"; bash prints `)`.
    ("echo \"$(cat <<'EOF'\n)\nEOF\n)\"", &["echo \"$(cat <<'EOF'\n)\nEOF\n)\"", "cat"]),
    // brush: "syntax error"; bash takes any compound command as a function body.
    ("f() [[ -f x ]]", &[]),
    // brush's word parser does not read here-document bodies inside `$(…)`: it takes this
    // word for static text; bash runs `t` (and `m` with its output).
    ("m \"$(t<<'EOF'\n(\nEOF\n)\"", &["m \"$(t<<'EOF'\n(\nEOF\n)\"", "t"]),
    // The same with a quote in a commit message: brush refuses the word; bash runs `cat`.
    (
        "git commit -m \"$(cat <<'EOF'\nfeat: \"quoted\" -m \"$(x)\nEOF\n)\"",
        &["git commit -m \"$(cat <<'EOF'\nfeat: \"quoted\" -m \"$(x)\nEOF\n)\"", "cat"],
    ),
    // brush reads `$${` as `$` and `${…}`; bash as `$$` and `{`: the words `$${""` and `$(d)}`,
    // and `d` runs.
    ("o $${\"\" $(d)}", &["o $${\"\" $(d)}", "d"]),
    // brush splits `m` off `m<(…)`; bash passes the one word `m/dev/fd/63`.
    ("echo m<(echo PWNED)", &["echo m<(echo PWNED)", "echo PWNED"]),
    // brush drops the text glued to `>&-`; bash closes the descriptor and passes it as an
    // argument (`x /tmp/f` is printed, no file is written).
    ("echo x 2>&-/tmp/f", &["echo x /tmp/f"]),
];

/// Runs the comparison over `cases`; panics on a disagreement or on a skip not pinned in
/// [`BRUSH_LIMITS`].
fn run_cases(name: &str, cases: &[(usize, String)]) {
    let mut failures = Vec::new();
    let (mut agree, mut not_understood, mut skipped, mut known) = (0, 0, Vec::new(), Vec::new());
    for (line, src) in cases {
        match compare(src) {
            Verdict::Agree => agree += 1,
            Verdict::KnownBug(tests, _) => known.push(format!("line {line}: {src:?}: {tests:?}")),
            Verdict::NotUnderstood => not_understood += 1,
            Verdict::Skipped(s) => {
                skipped.push(format!("line {line}: {src:?}: {s:?}"));
                match BRUSH_LIMITS.iter().find(|(input, _)| input == src) {
                    Some((_, expected)) => {
                        let got: Vec<String> = analyze(src).commands.iter().map(|c| c.canonical()).collect();
                        if got != *expected {
                            failures
                                .push(format!("{name}:{line}: {src:?}: bash runs {expected:?}, wicket lists {got:?}"));
                        }
                    }
                    None => failures.push(format!("{name}:{line}: {src:?}: skipped ({s:?}) but not in BRUSH_LIMITS")),
                }
            }
            Verdict::Disagree(d) => failures.push(format!("{name}:{line}: {src:?}\n{d}")),
        }
    }
    eprintln!(
        "{name}: {} cases, {agree} agree, {not_understood} not understood, {} skipped by the oracle, \
         {} known wicket bugs (tests/regressions.rs)",
        cases.len(),
        skipped.len(),
        known.len()
    );
    for k in &known {
        eprintln!("  known bug {k}");
    }
    for s in &skipped {
        eprintln!("  skipped {s}");
    }
    assert!(failures.is_empty(), "{} failures:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn split_fixture_agrees() {
    let cases: Vec<(usize, String)> = include_str!("cases/split.txt")
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|(i, l)| {
            let input = l.rsplit_once(" => ").map(|(i, _)| i).or_else(|| l.strip_suffix(" =>"))?;
            Some((i + 1, input.replace('⏎', "\n")))
        })
        .collect();
    assert!(cases.len() > 100, "split.txt has {} cases", cases.len());
    run_cases("split.txt", &cases);
}

/// Every known bug names an ignored test in `tests/regressions.rs`; a fixed bug (its test no
/// longer ignored) must leave `KNOWN_BUGS`, or it would hide a regression from this test.
#[test]
fn known_bugs_are_pinned() {
    let regressions = include_str!("regressions.rs");
    for k in KNOWN_BUGS {
        let at = regressions.find(&format!("fn {}()", k.test));
        let Some(at) = at else {
            panic!("KNOWN_BUGS names `{}`, which is not a test in tests/regressions.rs", k.test);
        };
        let before = &regressions[..at];
        let attrs = &before[before.rfind("#[test]").unwrap_or(0)..];
        assert!(attrs.contains("#[ignore"), "`{}` is fixed (not ignored): remove it from KNOWN_BUGS", k.test);
    }
}

#[test]
fn corpus_agrees() {
    let cases = corpus();
    assert!(cases.len() >= 300, "corpus has {} cases", cases.len());
    run_cases("differential.txt", &cases);
}

/// Triage of fuzz artifacts: `WICKET_DIFF_DIR=fuzz/artifacts/differential cargo test -p
/// wicket-shell --test differential -- triage --nocapture` prints each input the oracle still
/// calls a disagreement (the ones no known bug explains), then a count per known bug.
#[test]
fn triage() {
    let Ok(dir) = std::env::var("WICKET_DIFF_DIR") else {
        return;
    };
    let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        if beyond_brush(&src) {
            *counts.entry("beyond brush (not compared by the fuzz target)".to_string()).or_default() += 1;
            continue;
        }
        let key = match compare(&src) {
            Verdict::Disagree(d) => {
                eprintln!("=== {}\n{src:?}\n{d}\n", path.display());
                "DISAGREE".to_string()
            }
            Verdict::KnownBug(tests, _) => tests.join("+"),
            other => format!("{other:?}").chars().take(40).collect(),
        };
        *counts.entry(key).or_default() += 1;
    }
    for (k, n) in counts {
        eprintln!("{n:5}  {k}");
    }
}

/// For a look at one string: `WICKET_DIFF='…' cargo test -p wicket-shell --test differential
/// -- one --nocapture`.
#[test]
fn one() {
    let Ok(src) = std::env::var("WICKET_DIFF") else {
        return;
    };
    let a = analyze(&src);
    eprintln!("wicket understood={} problems={:?}", a.understood, a.problems);
    for c in &a.commands {
        eprintln!("  wicket {}", show_wicket(&c.words));
    }
    match brush_commands_guarded(&src) {
        Ok(b) => {
            for c in &b {
                eprintln!("  brush  {}", show_brush(c));
            }
        }
        Err(e) => eprintln!("  brush: {e:?}"),
    }
    eprintln!("verdict: {:?}", compare(&src));
}
