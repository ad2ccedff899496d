//! One tree-sitter parser per thread. The hard question: how to parse thousands of commands a
//! second without rebuilding a parser each time, and without ever panicking when the parser is
//! unavailable (a failed parse is reported as `None`, which the walker turns into a problem).
//!
//! Non-ASCII text is never shown to the parser. tree-sitter-bash's scanner calls C `isdigit`
//! and friends on full code points (undefined behaviour: it crashed on fuzzed input here) and
//! treats Unicode spaces as blanks where bash does not. Bash only gives meaning to ASCII, so every
//! byte >= 0x80 is replaced by an uppercase ASCII letter before parsing: byte offsets stay the
//! same, the walker reads words from the original text, and uppercase letters can never form a
//! reserved word.
//!
//! tree-sitter-bash's `ansi_c_string` token reads `\'` as an escaped quote even when the
//! backslash is itself escaped: `$'\\' ; rm -rf ~/x #'` is one string to it, while bash ends
//! the string after `\\`. When a `$'…'` node runs past the quote where bash ends it, every
//! escaped backslash inside the string bash sees is shown to the parser as `\_` (same length)
//! and the text is parsed again, so the tree ends the string where bash does. The walker still
//! reads the original text.
//!
//! Text with a backtick or a long pipeline is parsed on a helper thread, against a deadline.
//! tree-sitter's error recovery in a pipeline can take time exponential in the pipes that follow
//! an error (`true | true \`| true | … | true`, forty pipes: 37 s; a 1,415-byte pipeline of 200
//! `true`s with a few typos and one `| |`: over five minutes; both found by the `walker` fuzz
//! target, the same in tree-sitter 0.27), and the time goes in a single step at the end of the
//! text, where no progress callback or cancellation flag is looked at. A gate that hangs fails
//! open for agents that run a call whose hook timed out, so a parse that misses
//! [`PARSE_DEADLINE`] is "not understood"; the helper thread finishes (or never does) on its
//! own. Other text is parsed on the calling thread: the hand-over costs as much as a parse, and
//! below [`GUARD_PIPES`] pipes the worst case seen is a few milliseconds.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

use tree_sitter::{Node, Parser, Tree};

use crate::heredoc;
use crate::word::starts_expansion;

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn new_parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
    Some(parser)
}

/// How many times a text is re-parsed to make the tree agree with bash (see the module doc).
const MAX_ROUNDS: usize = 8;

/// A parse of a command string.
pub(crate) struct Parsed {
    pub(crate) tree: Tree,
    /// A `$'…'` node that still ends elsewhere than where bash ends it (after [`MAX_ROUNDS`]
    /// re-parses): the byte offset of its start.
    pub(crate) ansi_c_overrun: Option<usize>,
    /// A here-document body line the tree took for the delimiter and bash does not (the
    /// delimiter with blanks around it, or joined to the line before by `\` newline): the byte
    /// offset of the first one. The tree is parsed again past it, but the analysis is not
    /// understood (tree-sitter-bash's here-document scanner is wrong there).
    pub(crate) heredoc_misread: Option<usize>,
    /// A token the tree still reads differently from bash after [`MAX_ROUNDS`] re-parses
    /// (see [`shape_patches`]): a description.
    pub(crate) shape_left: Option<String>,
}

/// Parses `src` with this thread's bash parser. `None` when the parser could not be built or
/// gave up.
pub(crate) fn parse(src: &str) -> Option<Parsed> {
    let mut view = ascii_only(src);
    let mut tree = parse_view(&view)?;
    // Only an escaped backslash inside `$'…'` can make that token run on, and only a
    // here-document can end too early.
    let ansi_c = view.contains("$'") && view.contains("\\\\");
    let heredocs = view.contains("<<");
    let shapes = has_shape_triggers(view.as_bytes());
    let mut heredoc_misread = None;
    if !ansi_c && !heredocs && !shapes {
        return Some(Parsed { tree, ansi_c_overrun: None, heredoc_misread, shape_left: None });
    }
    for _ in 0..MAX_ROUNDS {
        let patches = patches(tree.root_node(), &view, ansi_c, heredocs, shapes);
        if patches.is_empty() {
            let shape_left = if shapes { blank_in_word(tree.root_node(), view.as_bytes()) } else { None };
            return Some(Parsed { tree, ansi_c_overrun: None, heredoc_misread, shape_left });
        }
        let mut bytes = view.into_owned().into_bytes();
        for &(at, b, in_heredoc) in &patches {
            if in_heredoc {
                heredoc_misread = Some(heredoc_misread.map_or(at, |m: usize| m.min(at)));
            }
            if let Some(slot) = bytes.get_mut(at) {
                *slot = b;
            }
        }
        // Only ASCII bytes were replaced by ASCII bytes.
        view = Cow::Owned(String::from_utf8(bytes).ok()?);
        tree = parse_view(&view)?;
    }
    let left = patches(tree.root_node(), &view, ansi_c, false, false).first().map(|&(at, _, _)| at);
    let shape_left = if shapes { patches(tree.root_node(), &view, false, false, true) } else { Vec::new() };
    let shape_left = shape_left
        .first()
        .map(|&(at, _, _)| {
            format!("the parser still splits the text at byte {at} unlike bash after {MAX_ROUNDS} re-parses")
        })
        .or_else(|| if shapes { blank_in_word(tree.root_node(), view.as_bytes()) } else { None });
    Some(Parsed { tree, ansi_c_overrun: left, heredoc_misread, shape_left })
}

/// The byte a misread token's characters are shown to the parser as: a plain word character
/// that starts no expansion after `$` and has no meaning of its own to tree-sitter-bash.
const PLAIN: u8 = b'%';

/// True when the text may hold one of the shapes [`shape_patches`] fixes.
fn has_shape_triggers(bytes: &[u8]) -> bool {
    bytes.contains(&b'[')
        || bytes.windows(2).any(|w| match w {
            [b'=', b'=' | b'~' | b'('] | [b'_', b'=' | b'+'] | [b'{' | b'}' | b'[' | b']' | b'\\', b' ' | b'\t'] => {
                true
            }
            [b'$', n] => starts_expansion(char::from(*n)) || matches!(n, b' ' | b'\t' | b'\n' | b'\\'),
            _ => false,
        })
}

/// Tokens tree-sitter-bash reads differently from bash, shown to the parser as plain word
/// characters ([`PLAIN`]) so that the tree splits the words where bash does (the walker reads
/// the original text). Called on every node of the tree, with the kind of its parent:
///
/// * an `==` or `=~` argument of a command (`echo == x; rm -rf ~/x #}`): the parser lexes the
///   text after it up to the next `}` as one `regex` token, operators and all; to bash they are
///   plain word characters;
/// * a blank inside one `word` token (`echo { {..`, `echo [ [x`: two brackets with blanks
///   between): bash's words never hold an unescaped blank, the byte before it is shown
///   differently;
/// * a lone `$` token in a concatenation, glued to what bash expands with it (`1'r'$2`,
///   `s}e$-v`, `a=x[$1] rm`): the parser ends the word at the `$` and starts another one,
///   shown as one word the walker reads (with its expansion) from the original text;
/// * a `$` that the parser joins to a name after blanks (`rm <$ -rf ~/x`: bash's redirection
///   target is the word `$`);
/// * the `[` or `[[` of a test command that bash does not read as one: `[[` glued to the next
///   word (`[[-f x ]]`, `[[` is then not a reserved word), `[` glued to its neighbours or spread
///   over lines (`[]`, `[ -f x]`, `[` newline `rm -rf / ]`): then `[` is an ordinary command;
/// * the `_` of `_=1` in command position (`_=1 rm`): a valid name to bash, shown as a letter;
/// * the parentheses of an array value with text glued after its `)` and no blank inside
///   (`a=(1)x rm`, `a=(1)# rm`): one word to bash, a scalar assignment of `(1)x`.
///
/// (Escaped blanks the parser skips, `\ `, are found by [`patches`].)
fn shape_patches(node: Node<'_>, parent: &str, bytes: &[u8], out: &mut Vec<(usize, u8, bool)>) {
    let at = node.start_byte();
    match node.kind() {
        "==" | "=~" if !node.is_named() && parent == "command" => {
            out.push((at, PLAIN, false));
            out.push((at + 1, PLAIN, false));
        }
        "$" if !node.is_named()
            && parent == "concatenation"
            && bytes.get(at + 1).is_some_and(|&n| starts_expansion(char::from(n))) =>
        {
            out.push((at, PLAIN, false));
        }
        "$" if !node.is_named() && bytes.get(at + 1).is_some_and(|n| matches!(n, b' ' | b'\t' | b'\n')) => {
            // A `$` before a blank is a literal word character to bash. The parser joins it to
            // a quoted string after the blank (`$ "rm" -rf ~`, a `translated_string`: it listed
            // the program `rm` where bash runs `$`) or drops it as a stray token (`a $ b`).
            out.push((at, PLAIN, false));
        }
        "word"
            if parent == "command_name"
                && node.child_count() == 0
                && bytes.get(at..).is_some_and(|t| t.starts_with(b"_=") || t.starts_with(b"_+=")) =>
        {
            // `_=1 rm`: an assignment to bash (`_` is a valid name); the parser reads the
            // program `_=1`. Shown as a letter, the name is read from the original text.
            out.push((at, b'Z', false));
        }
        "word" if node.child_count() == 0 => {
            // The byte before each unescaped blank (`{ {`, `[ [x`, `] }x`: a bracket). Only a
            // bracket: in `[x]y; echo PWNED; }]` (a misread test command, fixed above) the
            // byte is a `;`, and showing it as a word character hid `echo PWNED`.
            let mut i = at;
            while i < node.end_byte() {
                match bytes.get(i) {
                    Some(b'\\') => i += 2,
                    Some(b' ' | b'\t') => {
                        if i > at && matches!(bytes.get(i - 1), Some(b'[' | b']' | b'{' | b'}')) {
                            out.push((i - 1, PLAIN, false));
                        }
                        i += 1;
                    }
                    _ => i += 1,
                }
            }
        }
        "test_command" if misread_test(node, bytes) => out.push((at, PLAIN, false)),
        "array" if parent == "variable_assignment" && array_glued(node, bytes) => {
            // `a=(1)x`: one word to bash, a scalar assignment of `(1)x`. Without blanks inside,
            // the parentheses are shown as word characters; otherwise the walker gives up.
            let end = node.end_byte();
            let inner = bytes.get(at + 1..end.saturating_sub(1)).unwrap_or(&[]);
            if bytes.get(at) == Some(&b'(')
                && bytes.get(end.wrapping_sub(1)) == Some(&b')')
                && !inner.iter().any(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\\' | b'(' | b')'))
            {
                out.push((at, PLAIN, false));
                out.push((end - 1, PLAIN, false));
            }
        }
        "simple_expansion" => {
            // `$ a`: the parser reads on past a blank for the name; bash's `$` is literal there.
            let dollar = node.child(0).filter(|d| !d.is_named() && d.kind() == "$");
            let name_start = node.child(1).map(|n| n.start_byte());
            if let (Some(d), Some(n)) = (dollar, name_start) {
                if n > d.end_byte() {
                    out.push((d.start_byte(), PLAIN, false));
                }
            }
        }
        _ => {}
    }
}

/// A word token that still holds an unescaped blank after the re-parses: bash's words never
/// do, so the tree joined what bash splits (and may hide an operator and a command in it).
fn blank_in_word(root: Node<'_>, bytes: &[u8]) -> Option<String> {
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "word" && node.child_count() == 0 {
            let mut i = node.start_byte();
            while i < node.end_byte() {
                match bytes.get(i) {
                    Some(b'\\') => i += 2,
                    Some(b' ' | b'\t') => {
                        return Some(format!("a blank at byte {i} inside one word of the parse tree"))
                    }
                    _ => i += 1,
                }
            }
        }
        stack.extend(node.children(&mut cursor));
    }
    None
}

/// True when text follows the `)` of an array value with nothing between (`a=(1)x`, `a=(1)#`):
/// bash reads one word there, a scalar assignment, not an array.
pub(crate) fn array_glued(array: Node<'_>, bytes: &[u8]) -> bool {
    bytes
        .get(array.end_byte())
        .is_some_and(|b| !matches!(b, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')'))
}

/// True when this test command is not one to bash (see [`shape_patches`]).
fn misread_test(test: Node<'_>, bytes: &[u8]) -> bool {
    let Some(open) = test.child(0) else {
        return false;
    };
    if open.is_named() || !matches!(open.kind(), "[" | "[[") {
        return false;
    }
    let separates = |b: Option<&u8>| matches!(b, Some(b' ' | b'\t' | b'\n'));
    // A metacharacter ends the word too (`[[(a == b) ]]` is a test to bash).
    let ends_word = |b: Option<&u8>| separates(b) || matches!(b, Some(b'(' | b')' | b';' | b'&' | b'|' | b'<' | b'>'));
    let glued_open = !ends_word(bytes.get(open.end_byte()));
    if open.kind() == "[[" {
        return glued_open;
    }
    let close = test.child_count().checked_sub(1).and_then(|i| test.child(i));
    let glued_close = close.is_some_and(|c| c.kind() == "]" && !separates(bytes.get(c.start_byte().wrapping_sub(1))));
    let multiline = bytes.get(test.start_byte()..test.end_byte()).is_some_and(|t| t.contains(&b'\n'));
    glued_open || glued_close || multiline
}

/// The bytes to show the parser differently, `(offset, byte, in a here-document)`, so that
/// the tree agrees with bash:
///
/// * in a `$'…'` node that runs past the quote where bash ends the string, the second
///   backslash of every `\\` pair inside the string bash sees becomes `_`;
/// * in a here-document body that the tree ends before bash does, every line that the tree
///   could take for the delimiter (the delimiter with blanks around it, or a line bash joins to
///   the one before, or a line that starts with it: `EOF;x`) gets its first byte changed, so
///   the tree reads on to bash's delimiter.
/// * with `shapes`, the tokens of [`shape_patches`], and every escaped blank (`\ `) that no
///   token holds: the parser skipped it like a blank, bash reads a word character there
///   (`\  && echo b` runs the program ` `; `\ x` is the word ` x`).
fn patches(root: Node<'_>, view: &str, ansi_c: bool, heredocs: bool, shapes: bool) -> Vec<(usize, u8, bool)> {
    let bytes = view.as_bytes();
    let mut out = Vec::new();
    // Escaped blanks, and whether a token holds them.
    let mut escaped_blanks: Vec<(usize, bool)> = Vec::new();
    if shapes {
        for (i, w) in bytes.windows(2).enumerate() {
            if matches!(w, [b'\\', b' ' | b'\t']) {
                escaped_blanks.push((i, false));
            }
        }
    }
    // The kinds of the nodes above the cursor.
    let mut parents: Vec<&'static str> = Vec::new();
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let mut descend = true;
        match node.kind() {
            "ansi_c_string" => {
                descend = false;
                if ansi_c {
                    ansi_c_patches(bytes, node, &mut out);
                }
            }
            "heredoc_redirect" if heredocs => heredoc_patches(view, node, &mut out),
            _ => {}
        }
        if shapes {
            shape_patches(node, parents.last().copied().unwrap_or(""), bytes, &mut out);
            // Text tokens, and quoted text whose parts need not all be nodes.
            let holds = node.child_count() == 0 || matches!(node.kind(), "string" | "heredoc_body");
            if !escaped_blanks.is_empty() && holds {
                let (start, end) = (node.start_byte(), node.end_byte());
                let first = escaped_blanks.partition_point(|&(i, _)| i < start);
                for eb in escaped_blanks.iter_mut().skip(first).take_while(|(i, _)| *i < end) {
                    eb.1 = true;
                }
            }
        }
        if descend && cursor.goto_first_child() {
            parents.push(node.kind());
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
            parents.pop();
        }
    }
    for (i, held) in escaped_blanks {
        if !held {
            out.push((i, PLAIN, false));
            out.push((i + 1, PLAIN, false));
        }
    }
    out
}

fn ansi_c_patches(bytes: &[u8], node: Node<'_>, out: &mut Vec<(usize, u8, bool)>) {
    let start = node.start_byte();
    let Some(end) = ansi_c_end(bytes, start) else {
        return;
    };
    if end >= node.end_byte() {
        return;
    }
    let mut i = start + 2;
    while i + 1 < end {
        if bytes.get(i) == Some(&b'\\') {
            if bytes.get(i + 1) == Some(&b'\\') {
                out.push((i + 1, b'_', false));
            }
            i += 2;
        } else {
            i += 1;
        }
    }
}

/// Where bash ends the `$'…'` string starting at `start`: just after its closing quote. Inside,
/// a backslash always takes the next byte with it (`\\`, `\'`, `\c\\`).
fn ansi_c_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 2;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'\'' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn heredoc_patches(view: &str, node: Node<'_>, out: &mut Vec<(usize, u8, bool)>) {
    let h = heredoc::shape(node, view);
    let bytes = view.as_bytes();
    let (Some(tree_end), Some(body_start), Some(delim)) = (h.end_line, h.body_start, h.delimiter(view)) else {
        return;
    };
    let scan = heredoc::scan(bytes, body_start, &delim, h.strip_tabs, !h.quoted);
    if scan.end.is_some_and(|bash_end| bash_end <= tree_end) {
        return;
    }
    // Every line of bash's body that starts with the delimiter after blanks.
    let stop = scan.end.unwrap_or(bytes.len());
    let mut pos = body_start;
    while pos < stop {
        let line_end =
            bytes.get(pos..).and_then(|r| r.iter().position(|&b| b == b'\n')).map_or(bytes.len(), |n| pos + n);
        let line = bytes.get(pos..line_end).unwrap_or(&[]);
        if let Some(f) = line.iter().position(|&b| b != b' ' && b != b'\t') {
            if !delim.is_empty() && line.get(f..).is_some_and(|l| l.starts_with(delim.as_bytes())) {
                let b = line[f];
                if !matches!(b, b'$' | b'`' | b'\\') {
                    out.push((pos + f, if b == b'x' { b'y' } else { b'x' }, true));
                }
            }
        }
        pos = line_end + 1;
    }
}

/// The longest a guarded parse may take before the text counts as not
/// understood. The largest input wicket reads (64 KiB) parses in well under a tenth of this.
pub(crate) const PARSE_DEADLINE: Duration = Duration::from_secs(2);

/// Helper threads still busy with a parse that missed its deadline; past
/// [`MAX_OVERDUE`], text that needs the guard is not parsed at all (not understood) until one ends,
/// so hostile input cannot pile up threads that burn the machine.
static OVERDUE: AtomicUsize = AtomicUsize::new(0);
const MAX_OVERDUE: usize = 2;

/// Where a guarded parse stands; both sides change it only under its lock, so a parse is
/// either taken by the caller or counted as overdue, never both and never neither.
enum Slot {
    Pending,
    Done(Option<Tree>),
    Abandoned,
}

/// A parse handed to a helper thread: the text and where its tree goes.
type Job = (String, Arc<(Mutex<Slot>, Condvar)>);

thread_local! {
    /// This thread's helper for guarded parses (see the module doc).
    static GUARD: RefCell<Option<mpsc::Sender<Job>>> = const { RefCell::new(None) };
}

/// A helper thread that parses the texts sent to it.
fn spawn_guard() -> Option<mpsc::Sender<Job>> {
    let (jobs, inbox) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("wicket-shell-parse".into())
        .spawn(move || {
            let mut parser = new_parser();
            for (text, shared) in inbox {
                let tree = parser.as_mut().and_then(|p| {
                    let tree = p.parse(&text, None);
                    if tree.is_none() {
                        p.reset();
                    }
                    tree
                });
                let (lock, done) = &*shared;
                let mut slot = lock.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if matches!(*slot, Slot::Abandoned) {
                    // The caller gave up on this parse and counted this thread as overdue; it
                    // made a new helper, so this one ends here.
                    OVERDUE.fetch_sub(1, Ordering::SeqCst);
                    return;
                }
                *slot = Slot::Done(tree);
                done.notify_one();
            }
        })
        .ok()?;
    Some(jobs)
}

/// Parse on this thread's helper, waiting at most [`PARSE_DEADLINE`].
fn parse_guarded(src: &str) -> Option<Tree> {
    if OVERDUE.load(Ordering::SeqCst) >= MAX_OVERDUE {
        return None;
    }
    GUARD.with(|cell| {
        let mut helper = cell.try_borrow_mut().ok()?;
        if helper.is_none() {
            *helper = spawn_guard();
        }
        let shared = Arc::new((Mutex::new(Slot::Pending), Condvar::new()));
        if helper.as_ref()?.send((src.to_owned(), Arc::clone(&shared))).is_err() {
            *helper = None;
            return None;
        }
        let (lock, done) = &*shared;
        let slot = lock.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (mut slot, _) = done
            .wait_timeout_while(slot, PARSE_DEADLINE, |s| matches!(s, Slot::Pending))
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match std::mem::replace(&mut *slot, Slot::Abandoned) {
            Slot::Done(tree) => tree,
            Slot::Pending | Slot::Abandoned => {
                OVERDUE.fetch_add(1, Ordering::SeqCst);
                *helper = None;
                None
            }
        }
    })
}

/// From this many `|` bytes on (or with a backtick), a parse goes through the guard.
const GUARD_PIPES: usize = 8;

fn parse_view(src: &str) -> Option<Tree> {
    if src.contains('`') || src.bytes().filter(|&b| b == b'|').count() >= GUARD_PIPES {
        return parse_guarded(src);
    }
    PARSER.with(|cell| {
        // Re-entrant use (never expected) gets a fresh parser instead of a panic.
        let Ok(mut slot) = cell.try_borrow_mut() else {
            return new_parser()?.parse(src, None);
        };
        if slot.is_none() {
            *slot = new_parser();
        }
        let parser = slot.as_mut()?;
        let tree = parser.parse(src, None);
        if tree.is_none() {
            parser.reset();
        }
        tree
    })
}

/// `src` with every non-ASCII byte replaced by an uppercase letter (same length).
fn ascii_only(src: &str) -> Cow<'_, str> {
    if src.is_ascii() {
        return Cow::Borrowed(src);
    }
    let bytes: Vec<u8> = src.bytes().map(|b| if b.is_ascii() { b } else { b'A' + (b % 26) }).collect();
    // All bytes are ASCII now, so this cannot fail; fall back to a lossy copy just in case.
    match String::from_utf8(bytes) {
        Ok(s) => Cow::Owned(s),
        Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_only_keeps_offsets() {
        let s = "echo é\u{3000}x";
        assert_eq!(ascii_only(s).len(), s.len());
        assert!(ascii_only(s).is_ascii());
    }
}
