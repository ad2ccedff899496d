//! The data an analysis produces. Pure data: no parsing here.

/// The result of analysing one command string.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Analysis {
    /// Every simple command bash could run, in source order (outer before nested).
    pub commands: Vec<SimpleCommand>,
    /// True only when every part was resolved statically and the parse had no errors.
    pub understood: bool,
    /// Why the analysis is not understood (empty when it is).
    pub problems: Vec<Problem>,
    /// True when the string holds more than one simple command, or any operator, substitution,
    /// redirection or control structure: what a reader could mistake for a single command.
    pub compound: bool,
    /// Every `for NAME in WORDS` and `select NAME in WORDS` loop of the string (re-parsed
    /// strings aside), with its words as written: what the variable may take.
    pub loop_variables: Vec<LoopVariable>,
}

/// The variable of a `for` or `select` loop and the words it takes (none written: `"$@"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopVariable {
    /// The variable's name.
    pub name: String,
    /// The words after `in`, as the parser read them.
    pub words: Vec<Word>,
    /// Where the loop sits.
    pub context: Context,
    /// The index in [`Analysis::commands`] of the first command listed after the loop's head:
    /// the commands that may see the variable set.
    pub first_command: usize,
}

/// Where a simple command sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Directly in the command line (lists and pipelines included).
    Top,
    /// Inside `$(…)` or backticks.
    CommandSubstitution,
    /// Inside `<(…)` or `>(…)`.
    ProcessSubstitution,
    /// Inside `( … )`.
    Subshell,
    /// Inside a function body.
    Function,
    /// Inside an unquoted here-document body.
    HereDoc,
    /// Inside a string that is re-parsed (`bash -c`, `eval`); filled in by callers that re-parse.
    Nested,
}

/// One simple command: `VAR=x prog arg… >target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Leading `NAME=value` assignments.
    pub assignments: Vec<Assignment>,
    /// The argv words, program first. Empty for a bare assignment or redirection.
    pub words: Vec<Word>,
    /// Redirections attached to this command.
    pub redirects: Vec<Redirect>,
    /// Where it sits.
    pub context: Context,
    /// The source text of this command as written.
    pub source: String,
    /// Arguments that are exactly a `for` loop's variable, with the words it takes (see
    /// [`LoopWord`]); `words` keeps them as written.
    pub loop_words: Vec<LoopWord>,
}

/// An argument that is exactly the variable of an enclosing `for NAME in WORDS` loop (`"$f"`,
/// or `$f` when every value is one plain field), and the words it stands for: one per value of
/// the list, as bash expanded it there (a glob stays a glob word: it is one of the names the
/// glob matches). Only set when nothing else on the line can give the variable another value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopWord {
    /// The index of the argument in [`SimpleCommand::words`].
    pub index: usize,
    /// The words it takes, in loop order.
    pub values: Vec<Word>,
}

impl SimpleCommand {
    /// The command re-rendered from its words (static values, raw text for dynamic words),
    /// separated by single spaces, without assignments and redirections: what rules match.
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        for (i, w) in self.words.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(w.value.as_deref().unwrap_or(&w.raw));
        }
        out
    }

    /// The program word, if any.
    pub fn program(&self) -> Option<&Word> {
        self.words.first()
    }

    /// True when every word, assignment value and redirect target is static.
    pub fn is_static(&self) -> bool {
        self.words.iter().all(|w| w.value.is_some())
            && self.assignments.iter().all(|a| a.value.value.is_some())
            && self.redirects.iter().all(|r| r.target.value.is_some())
    }
}

/// One shell word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The value bash would pass after quote removal, when it is known statically; `None`
    /// when the word holds an expansion (`$x`, `$(…)`, `` `…` ``, arithmetic).
    pub value: Option<String>,
    /// The word as written in the source.
    pub raw: String,
    /// True when any part of the word was quoted or escaped (`'git'`, `"a b"`, `\git`).
    pub quoted: bool,
    /// True when the word holds an unquoted glob character (`*`, `?`, `[`) bash would expand.
    pub glob: bool,
}

/// A leading `NAME=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// The variable name.
    pub name: String,
    /// The assigned value.
    pub value: Word,
}

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectOp {
    /// `<`
    Read,
    /// `>`
    Write,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `<>`
    ReadWrite,
    /// `&>` or `>&` with a file target
    WriteBoth,
    /// `&>>`
    AppendBoth,
    /// `>&N` or `<&N` (fd duplication or close)
    Duplicate,
    /// `<<<`
    HereString,
    /// `<<` or `<<-`
    HereDoc,
}

impl RedirectOp {
    /// True when the target is a file the redirection may create or change.
    pub fn writes(self) -> bool {
        matches!(
            self,
            RedirectOp::Write
                | RedirectOp::Append
                | RedirectOp::Clobber
                | RedirectOp::ReadWrite
                | RedirectOp::WriteBoth
                | RedirectOp::AppendBoth
        )
    }
}

/// A redirection: `[fd]op target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The explicit file descriptor, if written (`2>`).
    pub fd: Option<u32>,
    /// The operator.
    pub op: RedirectOp,
    /// The target word (a file, an fd number for duplications, the here-string text).
    pub target: Word,
}

/// Why an analysis is not understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The kind of problem.
    pub kind: ProblemKind,
    /// A short human description with the offending text.
    pub detail: String,
}

/// Kinds of [`Problem`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// The parser reported an error or a missing token.
    ParseError,
    /// The program word is not static (`$cmd`, `$(which x)`).
    DynamicProgram,
    /// `eval`, `source`, `.` or similar run text the analysis cannot see.
    RunsUnseenCode,
    /// A shell runs a script file (`bash FILE`, `sh -x FILE`): code nobody has read, which no
    /// deny rule can be ruled out for and no allow rule covers, though an OS sandbox still
    /// confines it.
    RunsScriptFile,
    /// A construct the walker does not handle.
    Unsupported,
    /// An expansion or builtin that evaluates a value as code (`$((v))`, `${v@P}`, `${!v}`,
    /// `read "$n"`): not inert by the rule in `docs/decisions.md`.
    EvaluatesValue,
    /// The input is longer than the limit.
    TooLong,
    /// Nesting deeper than the limit.
    TooDeep,
    /// More simple commands than the limit.
    TooManyParts,
    /// NUL bytes or other characters bash cannot take.
    BadInput,
}
