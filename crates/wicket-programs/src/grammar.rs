//! Option grammar as data: one table per program, and one parser that reads an argv the way
//! that program's own option parser does.
//!
//! The hard question: which options does this argv really give its program? `sed -ne 1e\ id`
//! holds a script in the second letter of a cluster, `curl -d@.env` a file read glued to its
//! option, `git fetch --upload-pa=sh` a long option by unique prefix. Wicket must read each of
//! them exactly as the program will, both to find what an allow rule must spell out (options
//! that run code, read or write files; options wicket does not know) and to let a deny rule see
//! every spelling of the options it names (`rm -rf` is `rm -fr`, `rm -r -f`, `rm --rec --for`).
//!
//! Each table is one `static`, generated from the program's own `--help` and then annotated by
//! hand with what each option does (the `source` line says which version). A `static`, not a
//! `const`: a `const` is copied into each place that uses it, which made the release binary
//! 0.9 MB larger once launchers referred to tables. The grammar is GNU `getopt_long` unless a
//! table says otherwise:
//!
//! * short options cluster (`-sSL`); a letter that takes a value consumes the rest of the word,
//!   or the next word when the rest is empty (`-ne SCRIPT`, `-tDIR`, `-qO FILE`); a letter with
//!   an optional value takes only the rest of the word;
//! * long options take `--name=value` (unless `equals` is off: curl) or `--name value`
//!   (required values only), and, when
//!   `abbrev` is set, any unambiguous prefix of the name (`--expr`, `--rec`); an exact name
//!   wins over a longer one it is a prefix of; an ambiguous prefix is an error to the program,
//!   here an unknown option;
//! * `--` ends the options; a lone `-` is an operand; with `permute` (GNU's default) options may
//!   follow operands, without it (`xargs`) the first operand ends the options.
//!
//! An option the table does not have is *unknown*: the program may read it in a way wicket
//! cannot predict, so an allow rule must spell it out (see `docs/decisions.md`).

/// Whether an option takes a value, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// A flag.
    No,
    /// A value: glued (`-oF`, `--output=F`) or the next word (`-o F`, `--output F`).
    Required,
    /// A value only when glued (`-i.bak`, `--in-place=.bak`).
    Optional,
    /// Two values, the next two words (`find -fprintf FILE FORMAT`).
    Two,
    /// A command: the words up to a `;` word, or up to a `+` word right after `{}`
    /// (`find -exec CMD… ;`, `fd -x CMD… ;`), or to the end.
    Command,
    /// A value, and every later word is an operand (`python3 -c CODE ARGS…`, `-m MOD ARGS…`).
    Last,
}

/// How a program's words are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// GNU `getopt_long` (and the parsers that copy it: git's parse-options, optparse, nopt).
    Getopt,
    /// GNU tar: as `Getopt`, and a first word without a `-` is a cluster of short options
    /// whose values are the next words in order (`tar xzfC a.tgz dir`).
    OldTar,
    /// GNU find: `-H`/`-L`/`-P`/`-D`/`-O` first, then paths, then an expression of whole-word
    /// primaries (no clusters, no abbreviations) joined by `!`, `(`, `)`, `,`.
    Expression,
    /// Go's `flag` package: each option a whole word, `-name` and `--name` the same, a value
    /// as `-name=v` or the next word (flags only take `=v`), no clusters, no abbreviations.
    /// Names are listed with one dash.
    GoFlag,
    /// Info-ZIP's own parser: as `Getopt`, but a short option may be two letters (`-TT`,
    /// `-db`); in a cluster the two-letter option wins over its first letter.
    MultiShort,
}

/// Which checker reads a program's scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scripts {
    /// The program takes no script.
    None,
    /// GNU sed.
    Sed,
    /// awk (gawk, mawk, busybox).
    Awk,
    /// jq: a filter that reads the environment or loads modules.
    Jq,
}

/// What an option makes the program do beyond its ordinary job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Nothing an allow rule has to care about.
    Plain,
    /// Runs a program or code named by the value (`--compress-program`, `wget -e`).
    Exec,
    /// Writes the file (or into the folder) named by the value, or writes files at all.
    Write,
    /// Names the folder the program writes its ordinary output into (`cp -t DIR`): a write
    /// target checked like an operand, not a flag a rule must spell out.
    Dest,
    /// Runs the value when it names a program by path (`uv --python ./x`), not when it asks
    /// for a version (`--python 3.12`).
    ExecPath,
    /// Reads the file named by the value.
    Read,
    /// Reads a list of file names (from the value, or from stdin when the option takes none)
    /// and then reads those files (`sort --files0-from F`, `tar -T F`, `zip -@`): reads nobody
    /// can name, so a rule must spell the option out.
    ReadList,
    /// Moves where the program works or finds the build it runs (`make -C DIR`, `cargo
    /// --manifest-path`, `uv --directory`): read like `Read`, and a folder that may lie
    /// outside the project (absolute, `~`, `..`, an expansion) is for a rule to spell out.
    Workdir,
    /// Reads a file when the value starts with `@` (curl's `-d @file`, `-F name=@file`).
    ReadAt,
    /// The value is a script the program runs (`sed -e`): analysed by the program's checker.
    Script,
    /// The value names a script file wicket cannot read (`sed -f`).
    ScriptFile,
    /// The value is an ssh `Key=Value` setting: risky when the key runs a command or loads
    /// code (`ProxyCommand`, `LocalCommand`, `PKCS11Provider` …).
    SshConfig,
}

/// One option: every name it has (the first is its canonical name), its value and effect.
///
/// The names are held inside the option, not behind a pointer (see `Names`), so the option
/// tables hold no pointers at all: the binary is position-independent, and every pointer in
/// a `static` is relocated by the loader when the process starts, writing (and so copying)
/// each page of the tables. Without pointers they stay in read-only pages that are only read
/// when a table is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opt {
    /// Names, short (`-o`) and long (`--output`); the first is canonical.
    names: Names,
    /// Whether it takes a value.
    pub arg: Arg,
    /// What it does.
    pub effect: Effect,
}

impl Opt {
    /// Its names, short (`-o`) and long (`--output`), the canonical one first.
    pub fn names(&self) -> std::str::Split<'_, char> {
        self.names.as_str().split(' ')
    }

    /// Its canonical name, the first of [`Opt::names`].
    pub fn name(&self) -> &str {
        self.names().next().unwrap_or_default()
    }

    /// Whether `name` is one of its names.
    pub fn has(&self, name: &str) -> bool {
        self.names.slices().any(|n| n == name.as_bytes())
    }

    /// The first of its names that `pred` accepts, looked at as bytes: the parser looks up
    /// every option word this way through tables of hundreds of options, and only the name
    /// it finds is made text (a UTF-8 check per name passed over cost about 10 % of the
    /// shell corpus's slower commands).
    fn find_name(&self, pred: impl Fn(&[u8]) -> bool) -> Option<&str> {
        self.names.slices().find(|n| pred(n)).and_then(|n| std::str::from_utf8(n).ok())
    }
}

/// The most bytes an option's names take together, spaces between them included: with the
/// length, the value and the effect an option is 48 bytes (the longest names now take 44).
const NAMES_CAP: usize = 45;

/// An option's names, one space between two, in an inline buffer.
///
/// Why not `&'static [&'static str]`: each option then had a pointer to a slice of pointers,
/// about 12,000 pointers for the catalogue's 4,700 options. wicket is a position-independent
/// executable and starts anew for every hook call, and the loader relocates every pointer in
/// its `static`s at each start, which writes every page that holds one: the option tables
/// were about 230 KB (56 copied pages, a page fault each) of that work. Held inline, the
/// tables are plain bytes in read-only pages (issue 38, docs/performance.md).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Names {
    /// How many bytes of `bytes` are used.
    len: u8,
    /// The names, then zeros.
    bytes: [u8; NAMES_CAP],
}

impl Names {
    /// The names from their text, `"-o --output"` (a compile error when longer than
    /// [`NAMES_CAP`], or not one space between two names).
    const fn new(text: &str) -> Names {
        let text = text.as_bytes();
        assert!(!text.is_empty() && text.len() <= NAMES_CAP, "option names: empty or longer than NAMES_CAP");
        let mut bytes = [0u8; NAMES_CAP];
        let mut i = 0;
        while i < text.len() {
            let space = text[i] == b' ';
            assert!(
                !space || (i > 0 && i + 1 < text.len() && text[i + 1] != b' '),
                "option names: one space between two"
            );
            bytes[i] = text[i];
            i += 1;
        }
        Names { len: text.len() as u8, bytes }
    }

    /// The names as bytes, one slice each.
    fn slices(&self) -> impl Iterator<Item = &[u8]> {
        self.bytes[..usize::from(self.len)].split(|b| *b == b' ')
    }

    /// The names as text, one space between two.
    fn as_str(&self) -> &str {
        // Copied whole from a `&str` in `new`, so always UTF-8.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl std::fmt::Debug for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_str().split(' ')).finish()
    }
}

/// A program's option grammar.
#[derive(Debug, PartialEq, Eq)]
pub struct Program {
    /// The program names (base names) the table is for.
    pub names: &'static [&'static str],
    /// Where the table comes from.
    pub source: &'static str,
    /// Long options may be abbreviated to any unambiguous prefix.
    pub abbrev: bool,
    /// Options may follow operands (GNU permutation).
    pub permute: bool,
    /// `--no-NAME` turns off any flag `--NAME`.
    pub negatable: bool,
    /// A long option's value may be glued with `=` (`--output=F`); curl takes only the next
    /// word, and reads `--output=F` as an unknown option.
    pub equals: bool,
    /// The options.
    pub opts: &'static [Opt],
    /// Option sets shared with other tables (git's diff options), read as if in `opts`.
    pub shared: &'static [&'static [Opt]],
    /// Sub-commands with their own tables: after the program's own options, the first
    /// operand picks one (`git log`, `pip install`). An operand that names none leaves every
    /// later option word unknown.
    pub subs: &'static [&'static Program],
    /// How the words are read.
    pub style: Style,
    /// Words starting with `+` run a command of the program (`less +!id`, `vim +cmd`).
    pub plus: bool,
    /// A first word `+NAME` picks a rustup toolchain (`cargo +nightly build`): a plain option.
    pub toolchain: bool,
    /// Options stop after this many operands (ssh: the host, then the remote command's
    /// words); 0 leaves it to `permute`.
    pub stop_after: usize,
    /// A package manager's own commands: a first operand that is none of them names a script
    /// of the project (or a program of `node_modules/.bin`), and so does the operand after
    /// `run`; every word after the script's name is the script's (`yarn lint --fix`, `pnpm
    /// dev --port 3000`), but for [`Self::read_anywhere`]. Empty: no such rule.
    pub own_commands: &'static [&'static str],
    /// Options the program reads wherever they stand, also among a script's words (Yarn 1
    /// reads `--use-yarnrc` before it reads the command).
    pub read_anywhere: &'static [&'static str],
    /// The checker for the values of `Script` options.
    pub scripts: Scripts,
    /// With no `Script`/`ScriptFile` option given, the first operand is the script (`sed
    /// s/a/b/ f`, `awk '{print}' f`).
    pub script_operand: bool,
    /// A word of a dash and digits is an option (`nice -10`).
    pub numeric: bool,
    /// What the program is: a shell, a launcher (and where its command starts), or plain.
    pub role: Role,
    /// "Always allow" keeps only its exact command, never a prefix: an interpreter,
    /// downloader, destructive or privilege tool (shells are, by their role).
    pub exact_only: bool,
    /// When it uses the network.
    pub network: Network,
    /// The jobs it shares with other programs, for deny rules that name one of them.
    pub jobs: &'static [Does],
    /// Runs code that its operands name (an interpreter or package runner: `node x.js`, `npx
    /// pkg`), so its own name says nothing about what runs.
    pub runtime: bool,
    /// Which of its words it writes.
    pub writes: Writes,
    /// Its `NAME=value` operands set variables for the programs it or the shell runs later
    /// (`export`, `env`).
    pub assigns: bool,
    /// The variable it sets from its words, when it is a bash builtin that does (`mapfile`,
    /// `printf -v`).
    pub sets_variable: SetsVariable,
    /// The checker that reads what its argv does beyond its options (sub-commands, operands).
    pub checker: Checker,
    /// A pager git may run (`core.pager`): with plain flags only (`less -FRX`) it shows its
    /// input and runs nothing else.
    pub pages: bool,
    /// It makes no link and no folder, whatever its arguments, and a file it writes holds only
    /// what it read (`sort -o F`, `uniq IN OUT`): a line made only of such programs, with no
    /// redirection that writes, cannot put a link where a glob on the same line looks between
    /// wicket's listing of the folder and bash's expansion (`ln -s .env notes; cat *`).
    pub makes_no_links: bool,
    /// Its arguments only reach its output (`echo`, `printf`) or are ignored (`true`): whatever
    /// a word holds when the command runs, it reads, writes and runs nothing more. (bash's own
    /// `printf -v NAME` sets a variable: the shell reader reads that builtin's grammar.)
    pub only_prints: bool,
    /// Its words only name files: it reports on them (their names, sizes, times, whether they
    /// exist) and never opens one for its contents (`ls`, `stat`), so a secret named there is
    /// not read (issue 40; `checkers::unread_words`).
    pub names_only: bool,
    /// It only reads: every word is an option, a pattern or a file it reads, and what it
    /// reads goes only to its output; with none of its table's risky options it writes no
    /// file, runs nothing, uses no network and reads no environment (`cat`, `wc`, `diff`,
    /// `uname`). A part running it on static words needs no allow rule of its own on the host
    /// when none of them reaches outside the project (issue 40, "Programs that only read").
    pub only_reads: bool,
    /// Canonical option names that make this table only read, as [`Program::only_reads`] says,
    /// when one of them is given and nothing turns an option off (a dry run: `git clean -n`
    /// lists what it would remove and removes nothing, even with `-f` or `-i`).
    pub reads_only_with: &'static [&'static str],
    /// Canonical option names that undo [`Program::reads_only_with`] (`git apply --check
    /// --apply` applies the patch).
    pub reads_only_unless: &'static [&'static str],
    /// With [`Program::only_reads`]: it reads no file unless an option whose effect is `Read`
    /// names one, so what it prints is the system's state (`date`, `uname`, `nproc`, `which`),
    /// never a file's content: a part running it changes nothing (decisions.md, "Parts that
    /// change nothing"), wherever its output goes.
    pub reads_no_files: bool,
    /// With no operand and no option it only copies its standard input to its output (`cat`):
    /// fed a here-document whose text is known, it reads, writes and runs nothing more
    /// (`git commit -m "$(cat <<'EOF' … EOF)"`).
    pub copies_stdin: bool,
    /// The folder below the home where it keeps what it downloads, which it makes on first use
    /// (`npm`: `.npm`). In a sandboxed run's sealed home it cannot make it, and only a cache
    /// that exists gets the sandbox's writable layer: the planner makes it, empty, when it is
    /// missing and the program is on `PATH`.
    pub home_cache: Option<&'static str>,
    /// Options whose value is only text for people (a commit message, an issue's title or
    /// body): a dynamic value there, one whole double-quoted word, cannot make it do more (`gh
    /// pr create -b "$(cat notes)"`). Empty: the engine's usual `-m` and `--message`.
    pub message_options: &'static [&'static str],
    /// What its argv does, as every consumer must find it: at least one per record
    /// (`tests/program_examples.rs` in wicket-policy runs each through the engine and the
    /// shell reader).
    pub examples: &'static [Example],
}

/// The defaults every table starts from (`..GETOPT`).
pub(crate) const GETOPT: Program = Program {
    names: &[],
    source: "",
    abbrev: true,
    permute: true,
    negatable: false,
    equals: true,
    opts: &[],
    shared: &[],
    subs: &[],
    style: Style::Getopt,
    plus: false,
    toolchain: false,
    stop_after: 0,
    own_commands: &[],
    read_anywhere: &[],
    scripts: Scripts::None,
    script_operand: false,
    numeric: false,
    role: Role::Plain,
    exact_only: false,
    network: Network::Never,
    jobs: &[],
    runtime: false,
    writes: Writes::Nothing,
    assigns: false,
    sets_variable: SetsVariable::Nothing,
    checker: Checker::None,
    pages: false,
    makes_no_links: false,
    only_prints: false,
    names_only: false,
    only_reads: false,
    reads_only_with: &[],
    reads_only_unless: &[],
    reads_no_files: false,
    copies_stdin: false,
    home_cache: None,
    message_options: &[],
    examples: &[],
};

pub(crate) const NO: Arg = Arg::No;
pub(crate) const REQ: Arg = Arg::Required;
pub(crate) const OPT: Arg = Arg::Optional;
use crate::checkers::Checker;
use crate::facts::{ex, Expect};
use Effect::*;

/// An option: its names one space between two (`"-o --output"`), canonical first.
pub(crate) const fn o(names: &str, arg: Arg, effect: Effect) -> Opt {
    Opt { names: Names::new(names), arg, effect }
}

/// GNU coreutils 9.1, `rm --help`.
static RM: Program = Program {
    names: &["rm"],
    source: "GNU coreutils 9.1, `rm --help`",
    abbrev: true,
    permute: true,
    negatable: false,
    equals: true,
    opts: &[
        o("-f --force", NO, Plain),
        o("-i", NO, Plain),
        o("-I", NO, Plain),
        o("--interactive", OPT, Plain),
        o("--one-file-system", NO, Plain),
        o("--no-preserve-root", NO, Plain),
        o("--preserve-root", OPT, Plain),
        o("-r -R --recursive", NO, Plain),
        o("-d --dir", NO, Plain),
        o("-v --verbose", NO, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
    ],
    exact_only: true,
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    writes: Writes::Operands,
    examples: &[ex("rm -rf build", Expect::Writes(&["build"]))],
    ..GETOPT
};

/// GNU coreutils 9.1, `cp --help`.
static CP: Program = Program {
    names: &["cp"],
    source: "GNU coreutils 9.1, `cp --help`",
    abbrev: true,
    permute: true,
    negatable: false,
    equals: true,
    opts: &[
        o("-a --archive", NO, Plain),
        o("--attributes-only", NO, Plain),
        o("--backup", OPT, Plain),
        o("-b", NO, Plain),
        o("--copy-contents", NO, Plain),
        o("-d", NO, Plain),
        o("-f --force", NO, Plain),
        o("-i --interactive", NO, Plain),
        o("-H", NO, Plain),
        o("-l --link", NO, Plain),
        o("-L --dereference", NO, Plain),
        o("-n --no-clobber", NO, Plain),
        o("-P --no-dereference", NO, Plain),
        o("-p", NO, Plain),
        o("--preserve", OPT, Plain),
        o("--no-preserve", REQ, Plain),
        o("--parents", NO, Plain),
        o("-R -r --recursive", NO, Plain),
        o("--reflink", OPT, Plain),
        o("--remove-destination", NO, Plain),
        o("--sparse", REQ, Plain),
        o("--strip-trailing-slashes", NO, Plain),
        o("-s --symbolic-link", NO, Plain),
        o("-S --suffix", REQ, Plain),
        o("-t --target-directory", REQ, Dest),
        o("-T --no-target-directory", NO, Plain),
        o("-u --update", NO, Plain),
        o("-v --verbose", NO, Plain),
        o("-x --one-file-system", NO, Plain),
        o("-Z", NO, Plain),
        o("--context", OPT, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
    ],
    writes: Writes::LastUnlessDest,
    checker: Checker::CopyTree {
        letters: &['r', 'R', 'a'],
        longs: &["--recursive", "--archive"],
        slash_contents: false,
    },
    examples: &[ex("cp -r a b", Expect::Writes(&["b"]))],
    ..GETOPT
};

/// GNU coreutils 9.1, `mv --help`.
static MV: Program = Program {
    names: &["mv"],
    source: "GNU coreutils 9.1, `mv --help`",
    abbrev: true,
    permute: true,
    negatable: false,
    equals: true,
    opts: &[
        o("--backup", OPT, Plain),
        o("-b", NO, Plain),
        o("-f --force", NO, Plain),
        o("-i --interactive", NO, Plain),
        o("-n --no-clobber", NO, Plain),
        o("--strip-trailing-slashes", NO, Plain),
        o("-S --suffix", REQ, Plain),
        o("-t --target-directory", REQ, Dest),
        o("-T --no-target-directory", NO, Plain),
        o("-u --update", NO, Plain),
        o("-v --verbose", NO, Plain),
        o("-Z --context", NO, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
    ],
    exact_only: true,
    writes: Writes::LastUnlessDest,
    examples: &[ex("mv a b", Expect::Writes(&["b"]))],
    ..GETOPT
};

/// GNU coreutils 9.1, `sort --help`.
static SORT: Program = Program {
    names: &["sort"],
    source: "GNU coreutils 9.1, `sort --help`",
    only_reads: true,
    abbrev: true,
    permute: true,
    negatable: false,
    equals: true,
    opts: &[
        o("-b --ignore-leading-blanks", NO, Plain),
        o("-d --dictionary-order", NO, Plain),
        o("-f --ignore-case", NO, Plain),
        o("-g --general-numeric-sort", NO, Plain),
        o("-i --ignore-nonprinting", NO, Plain),
        o("-M --month-sort", NO, Plain),
        o("-h --human-numeric-sort", NO, Plain),
        o("-n --numeric-sort", NO, Plain),
        o("-R --random-sort", NO, Plain),
        o("--random-source", REQ, Read),
        o("-r --reverse", NO, Plain),
        o("--sort", REQ, Plain),
        o("-V --version-sort", NO, Plain),
        o("--batch-size", REQ, Plain),
        o("-c", NO, Plain),
        o("--check", OPT, Plain),
        o("-C", NO, Plain),
        o("--compress-program", REQ, Exec),
        o("--debug", NO, Plain),
        o("--files0-from", REQ, ReadList),
        o("-k --key", REQ, Plain),
        o("-m --merge", NO, Plain),
        o("-o --output", REQ, Write),
        o("-s --stable", NO, Plain),
        o("-S --buffer-size", REQ, Plain),
        o("-t --field-separator", REQ, Plain),
        o("-T --temporary-directory", REQ, Dest),
        o("--parallel", REQ, Plain),
        o("-u --unique", NO, Plain),
        o("-z --zero-terminated", NO, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
    ],
    writes: Writes::Values(&["-o", "--output"]),
    makes_no_links: true,
    examples: &[ex("sort -o out in", Expect::Risky(&["-o"]))],
    ..GETOPT
};

/// GNU coreutils 9.1, `head --help`: it reads, and makes no file, link or folder. `-NUM` is
/// the old spelling of `-n NUM`.
pub(crate) static HEAD: Program = Program {
    names: &["head"],
    source: "GNU coreutils 9.1, `head --help`",
    only_reads: true,
    makes_no_links: true,
    numeric: true,
    opts: &[
        o("-c --bytes", REQ, Plain),
        o("-n --lines", REQ, Plain),
        o("-q --quiet --silent", NO, Plain),
        o("-v --verbose", NO, Plain),
        o("-z --zero-terminated", NO, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
    ],
    examples: &[ex("head -n 5 README.md", Expect::Plain), ex("head -50", Expect::Plain)],
    ..GETOPT
};

/// GNU coreutils 9.1, `tail --help`, and macOS's `-r`/`-b`: it reads, and makes no file, link
/// or folder. `-NUM` is the old spelling of `-n NUM`.
pub(crate) static TAIL: Program = Program {
    names: &["tail"],
    source: "GNU coreutils 9.1, `tail --help`",
    only_reads: true,
    makes_no_links: true,
    numeric: true,
    opts: &[
        o("-c --bytes", REQ, Plain),
        o("-f", NO, Plain),
        o("--follow", OPT, Plain),
        o("-F", NO, Plain),
        o("-n --lines", REQ, Plain),
        o("--max-unchanged-stats", REQ, Plain),
        o("--pid", REQ, Plain),
        o("-q --quiet --silent", NO, Plain),
        o("--retry", NO, Plain),
        o("-s --sleep-interval", REQ, Plain),
        o("-v --verbose", NO, Plain),
        o("-z --zero-terminated", NO, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
        // macOS (BSD) tail: backwards, and a count of 512-byte blocks.
        o("-r", NO, Plain),
        o("-b", REQ, Plain),
    ],
    examples: &[
        ex("tail -n 20 log.txt", Expect::Plain),
        ex("tail -20", Expect::Plain),
        ex("tail -r log", Expect::Plain),
    ],
    ..GETOPT
};

/// GNU coreutils 9.1, `wc --help`: it reads, and makes no file, link or folder.
/// `--files0-from=F` reads the names of the files to count from F.
pub(crate) static WC: Program = Program {
    names: &["wc"],
    source: "GNU coreutils 9.1, `wc --help`",
    only_reads: true,
    makes_no_links: true,
    opts: &[
        o("-c --bytes", NO, Plain),
        o("-m --chars", NO, Plain),
        o("-l --lines", NO, Plain),
        o("--files0-from", REQ, ReadList),
        o("-L --max-line-length", NO, Plain),
        o("-w --words", NO, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
    ],
    examples: &[ex("wc -l README.md", Expect::Plain)],
    ..GETOPT
};

/// GNU coreutils 9.1, `uniq --help`: `uniq IN OUT` writes OUT.
pub(crate) static UNIQ: Program = Program {
    names: &["uniq"],
    source: "GNU coreutils 9.1, `uniq --help`",
    only_reads: true,
    checker: Checker::SecondOperand(&["-f", "-s", "-w"]),
    makes_no_links: true,
    opts: &[
        o("-c --count", NO, Plain),
        o("-d --repeated", NO, Plain),
        o("-D", NO, Plain),
        o("--all-repeated", OPT, Plain),
        o("-f --skip-fields", REQ, Plain),
        o("--group", OPT, Plain),
        o("-i --ignore-case", NO, Plain),
        o("-s --skip-chars", REQ, Plain),
        o("-u --unique", NO, Plain),
        o("-z --zero-terminated", NO, Plain),
        o("-w --check-chars", REQ, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
    ],
    examples: &[ex("uniq in out", Expect::Writes(&["out"]))],
    ..GETOPT
};

/// GNU coreutils 9.1, `cut --help`: it reads, and makes no file, link or folder.
pub(crate) static CUT: Program = Program {
    names: &["cut"],
    source: "GNU coreutils 9.1, `cut --help`",
    only_reads: true,
    makes_no_links: true,
    opts: &[
        o("-b --bytes", REQ, Plain),
        o("-c --characters", REQ, Plain),
        o("-d --delimiter", REQ, Plain),
        o("-f --fields", REQ, Plain),
        o("-n", NO, Plain),
        o("--complement", NO, Plain),
        o("-s --only-delimited", NO, Plain),
        o("--output-delimiter", REQ, Plain),
        o("-z --zero-terminated", NO, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
    ],
    examples: &[ex("cut -d: -f1 /etc/passwd", Expect::Plain)],
    ..GETOPT
};

/// GNU coreutils 9.1, `date --help`. It prints the time; `-s` and an operand that is not a
/// `+FORMAT` set the system clock instead (as root it works), so the table marks `-s` as doing
/// more than printing and the checker makes such an operand a word a rule must spell out.
static DATE: Program = Program {
    names: &["date"],
    source: "GNU coreutils 9.1, `date --help`",
    opts: &[
        o("-d --date", REQ, Plain),
        o("--debug", NO, Plain),
        o("-f --file", REQ, Read),
        o("-I --iso-8601", OPT, Plain),
        o("--resolution", NO, Plain),
        o("-R --rfc-email", NO, Plain),
        o("--rfc-3339", REQ, Plain),
        o("-r --reference", REQ, Read),
        // Sets the clock: not a program run, but as far from printing as one.
        o("-s --set", REQ, Exec),
        o("-u --utc --universal", NO, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
    ],
    checker: Checker::SetsClock,
    only_reads: true,
    reads_no_files: true,
    makes_no_links: true,
    examples: &[
        ex("date +%F", Expect::Plain),
        ex("date·-d·7 days ago·+%F", Expect::Plain),
        ex("date -s 2020-01-01", Expect::Risky(&["-s"])),
        ex("date 010112002030", Expect::Risky(&["010112002030"])),
    ],
    ..GETOPT
};

/// file 5.44, `file --help` and file(1): prints what kind of data each operand holds. `-C`
/// writes a compiled magic file into the current folder, `-m` reads the magic files it names
/// (and prints their lines on an error), `-f` reads a list of names and then those files, `-z`
/// starts decompressors.
static FILE: Program = Program {
    names: &["file"],
    source: "file 5.44, `file --help`",
    opts: &[
        o("--help", NO, Plain),
        o("-v --version", NO, Plain),
        o("-m --magic-file", REQ, Read),
        // Looks inside compressed files, starting `gzip`, `xz`, `lzip` … for the formats libmagic
        // does not read itself: programs run, as for `rg -z`.
        o("-z --uncompress", NO, Exec),
        o("-Z --uncompress-noreport", NO, Exec),
        o("-b --brief", NO, Plain),
        o("-c --checking-printout", NO, Plain),
        o("-e --exclude", REQ, Plain),
        o("--exclude-quiet", REQ, Plain),
        o("-f --files-from", REQ, ReadList),
        o("-F --separator", REQ, Plain),
        o("-i --mime", NO, Plain),
        o("--apple", NO, Plain),
        o("--extension", NO, Plain),
        o("--mime-type", NO, Plain),
        o("--mime-encoding", NO, Plain),
        o("-k --keep-going", NO, Plain),
        o("-l --list", NO, Plain),
        o("-L --dereference", NO, Plain),
        o("-h --no-dereference", NO, Plain),
        o("-n --no-buffer", NO, Plain),
        o("-N --no-pad", NO, Plain),
        o("-0 --print0", NO, Plain),
        o("-p --preserve-date", NO, Plain),
        o("-P --parameter", REQ, Plain),
        o("-r --raw", NO, Plain),
        o("-s --special-files", NO, Plain),
        o("-S --no-sandbox", NO, Plain),
        o("-C --compile", NO, Write),
        o("-d --debug", NO, Plain),
        o("-E", NO, Plain),
    ],
    only_reads: true,
    makes_no_links: true,
    examples: &[
        ex("file README.md", Expect::Plain),
        ex("file -C -m magic", Expect::Risky(&["-C"])),
        ex("file -f list", Expect::Risky(&["-f"])),
        ex("file -z a.gz", Expect::Risky(&["-z"])),
    ],
    ..GETOPT
};

/// GNU sed 4.9, `sed --help`.
static SED: Program = Program {
    names: &["sed", "gsed"],
    source: "GNU sed 4.9, `sed --help`",
    only_reads: true,
    abbrev: true,
    permute: true,
    negatable: false,
    equals: true,
    opts: &[
        o("-n --quiet --silent", NO, Plain),
        o("--debug", NO, Plain),
        o("-e --expression", REQ, Script),
        o("-f --file", REQ, ScriptFile),
        o("--follow-symlinks", NO, Plain),
        o("-i --in-place", OPT, Write),
        o("-l --line-length", REQ, Plain),
        o("--posix", NO, Plain),
        o("-E -r --regexp-extended", NO, Plain),
        o("-s --separate", NO, Plain),
        o("--sandbox", NO, Plain),
        o("-u --unbuffered", NO, Plain),
        o("-z --null-data", NO, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
    ],
    scripts: Scripts::Sed,
    script_operand: true,
    exact_only: true,
    writes: Writes::InPlace,
    examples: &[ex("sed -i s/a/b/ f", Expect::Risky(&["-i"])), ex("sed·s/a/b/e·f", Expect::Risky(&["s/a/b/e"]))],
    ..GETOPT
};

/// GNU findutils 4.9.0, `xargs --help` (options stop at the command).
static XARGS: Program = Program {
    names: &["xargs"],
    source: "GNU findutils 4.9.0, `xargs --help` (options stop at the command)",
    abbrev: true,
    permute: false,
    negatable: false,
    equals: true,
    opts: &[
        o("-0 --null", NO, Plain),
        o("-a --arg-file", REQ, Read),
        o("-d --delimiter", REQ, Plain),
        o("-E", REQ, Plain),
        o("-e --eof", OPT, Plain),
        o("-I", REQ, Plain),
        o("-i --replace", OPT, Plain),
        o("-L --max-lines", REQ, Plain),
        o("-l", OPT, Plain),
        o("-n --max-args", REQ, Plain),
        o("-o --open-tty", NO, Plain),
        o("-P --max-procs", REQ, Plain),
        o("-p --interactive", NO, Plain),
        o("--process-slot-var", REQ, Plain),
        o("-r --no-run-if-empty", NO, Plain),
        o("-s --max-chars", REQ, Plain),
        o("--show-limits", NO, Plain),
        o("-t --verbose", NO, Plain),
        o("-x --exit", NO, Plain),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
    ],
    role: Role::Launcher(&Launch { when_none: Some("echo"), reads_arguments: true, ..LAUNCH }),
    exact_only: true,
    examples: &[ex("xargs rm", Expect::Runs(&["rm"]))],
    ..GETOPT
};

/// curl 7.88.1, `curl --help all` (unique prefixes accepted, tool_getparam.c).
static CURL: Program = Program {
    names: &["curl"],
    source: "curl 7.88.1, `curl --help all` (unique prefixes accepted, tool_getparam.c)",
    abbrev: true,
    permute: true,
    negatable: true,
    equals: false,
    opts: &[
        o("--abstract-unix-socket", REQ, Read),
        o("--alt-svc", REQ, Write),
        o("--anyauth", NO, Plain),
        o("-a --append", NO, Plain),
        o("--aws-sigv4", REQ, Plain),
        o("--basic", NO, Plain),
        o("--cacert", REQ, Plain),
        o("--capath", REQ, Plain),
        o("-E --cert", REQ, Read),
        o("--cert-status", NO, Plain),
        o("--cert-type", REQ, Plain),
        o("--ciphers", REQ, Plain),
        o("--compressed", NO, Plain),
        o("--compressed-ssh", NO, Plain),
        o("-K --config", REQ, Exec),
        o("--connect-timeout", REQ, Plain),
        o("--connect-to", REQ, Plain),
        o("-C --continue-at", REQ, Plain),
        o("-b --cookie", REQ, Read),
        o("-c --cookie-jar", REQ, Write),
        o("--create-dirs", NO, Write),
        o("--create-file-mode", REQ, Plain),
        o("--crlf", NO, Plain),
        o("--crlfile", REQ, Plain),
        o("--curves", REQ, Plain),
        o("-d --data", REQ, ReadAt),
        o("--data-ascii", REQ, ReadAt),
        o("--data-binary", REQ, ReadAt),
        o("--data-raw", REQ, Plain),
        o("--data-urlencode", REQ, ReadAt),
        o("--delegation", REQ, Plain),
        o("--digest", NO, Plain),
        o("-q --disable", NO, Plain),
        o("--disable-eprt", NO, Plain),
        o("--disable-epsv", NO, Plain),
        o("--disallow-username-in-url", NO, Plain),
        o("--dns-interface", REQ, Plain),
        o("--dns-ipv4-addr", REQ, Plain),
        o("--dns-ipv6-addr", REQ, Plain),
        o("--dns-servers", REQ, Plain),
        o("--doh-cert-status", NO, Plain),
        o("--doh-insecure", NO, Plain),
        o("--doh-url", REQ, Plain),
        o("-D --dump-header", REQ, Write),
        o("--egd-file", REQ, Plain),
        o("--engine", REQ, Plain),
        o("--etag-compare", REQ, Read),
        o("--etag-save", REQ, Write),
        o("--expect100-timeout", REQ, Plain),
        o("-f --fail", NO, Plain),
        o("--fail-early", NO, Plain),
        o("--fail-with-body", NO, Plain),
        o("--false-start", NO, Plain),
        o("-F --form", REQ, ReadAt),
        o("--form-escape", NO, Plain),
        o("--form-string", REQ, Plain),
        o("--ftp-account", REQ, Plain),
        o("--ftp-alternative-to-user", REQ, Plain),
        o("--ftp-create-dirs", NO, Plain),
        o("--ftp-method", REQ, Plain),
        o("--ftp-pasv", NO, Plain),
        o("-P --ftp-port", REQ, Plain),
        o("--ftp-pret", NO, Plain),
        o("--ftp-skip-pasv-ip", NO, Plain),
        o("--ftp-ssl-ccc", NO, Plain),
        o("--ftp-ssl-ccc-mode", REQ, Plain),
        o("--ftp-ssl-control", NO, Plain),
        o("-G --get", NO, Plain),
        o("-g --globoff", NO, Plain),
        o("--happy-eyeballs-timeout-ms", REQ, Plain),
        o("--haproxy-protocol", NO, Plain),
        o("-I --head", NO, Plain),
        o("-H --header", REQ, ReadAt),
        o("-h --help", REQ, Plain),
        o("--hostpubmd5", REQ, Plain),
        o("--hostpubsha256", REQ, Plain),
        o("--hsts", REQ, Write),
        o("--http0.9", NO, Plain),
        o("-0 --http1.0", NO, Plain),
        o("--http1.1", NO, Plain),
        o("--http2", NO, Plain),
        o("--http2-prior-knowledge", NO, Plain),
        o("--http3", NO, Plain),
        o("--http3-only", NO, Plain),
        o("--ignore-content-length", NO, Plain),
        o("-i --include", NO, Plain),
        o("-k --insecure", NO, Plain),
        o("--interface", REQ, Plain),
        o("-4 --ipv4", NO, Plain),
        o("-6 --ipv6", NO, Plain),
        o("--json", REQ, ReadAt),
        o("-j --junk-session-cookies", NO, Plain),
        o("--keepalive-time", REQ, Plain),
        o("--key", REQ, Read),
        o("--key-type", REQ, Plain),
        o("--krb", REQ, Plain),
        o("--libcurl", REQ, Write),
        o("--limit-rate", REQ, Plain),
        o("-l --list-only", NO, Plain),
        o("--local-port", REQ, Plain),
        o("-L --location", NO, Plain),
        o("--location-trusted", NO, Plain),
        o("--login-options", REQ, Plain),
        o("--mail-auth", REQ, Plain),
        o("--mail-from", REQ, Plain),
        o("--mail-rcpt", REQ, Plain),
        o("--mail-rcpt-allowfails", NO, Plain),
        o("-M --manual", NO, Plain),
        o("--max-filesize", REQ, Plain),
        o("--max-redirs", REQ, Plain),
        o("-m --max-time", REQ, Plain),
        o("--metalink", NO, Plain),
        o("--negotiate", NO, Plain),
        o("-n --netrc", NO, Plain),
        o("--netrc-file", REQ, Read),
        o("--netrc-optional", NO, Plain),
        o("-: --next", NO, Plain),
        o("--no-alpn", NO, Plain),
        o("-N --no-buffer", NO, Plain),
        o("--no-clobber", NO, Plain),
        o("--no-keepalive", NO, Plain),
        o("--no-npn", NO, Plain),
        o("--no-progress-meter", NO, Plain),
        o("--no-sessionid", NO, Plain),
        o("--noproxy", REQ, Plain),
        o("--ntlm", NO, Plain),
        o("--ntlm-wb", NO, Plain),
        o("--oauth2-bearer", REQ, Plain),
        o("-o --output", REQ, Write),
        o("--output-dir", REQ, Write),
        o("-Z --parallel", NO, Plain),
        o("--parallel-immediate", NO, Plain),
        o("--parallel-max", REQ, Plain),
        o("--pass", REQ, Plain),
        o("--path-as-is", NO, Plain),
        o("--pinnedpubkey", REQ, Plain),
        o("--post301", NO, Plain),
        o("--post302", NO, Plain),
        o("--post303", NO, Plain),
        o("--preproxy", NO, Plain),
        o("-# --progress-bar", NO, Plain),
        o("--proto", REQ, Plain),
        o("--proto-default", REQ, Plain),
        o("--proto-redir", REQ, Plain),
        o("-x --proxy", NO, Plain),
        o("--proxy-anyauth", NO, Plain),
        o("--proxy-basic", NO, Plain),
        o("--proxy-cacert", REQ, Plain),
        o("--proxy-capath", REQ, Plain),
        o("--proxy-cert", REQ, Plain),
        o("--proxy-cert-type", REQ, Plain),
        o("--proxy-ciphers", REQ, Plain),
        o("--proxy-crlfile", REQ, Plain),
        o("--proxy-digest", NO, Plain),
        o("--proxy-header", REQ, ReadAt),
        o("--proxy-insecure", NO, Plain),
        o("--proxy-key", REQ, Plain),
        o("--proxy-key-type", REQ, Plain),
        o("--proxy-negotiate", NO, Plain),
        o("--proxy-ntlm", NO, Plain),
        o("--proxy-pass", REQ, Plain),
        o("--proxy-pinnedpubkey", REQ, Plain),
        o("--proxy-service-name", REQ, Plain),
        o("--proxy-ssl-allow-beast", NO, Plain),
        o("--proxy-ssl-auto-client-cert", NO, Plain),
        o("--proxy-tls13-ciphers", REQ, Plain),
        o("--proxy-tlsauthtype", REQ, Plain),
        o("--proxy-tlspassword", REQ, Plain),
        o("--proxy-tlsuser", REQ, Plain),
        o("--proxy-tlsv1", NO, Plain),
        o("-U --proxy-user", REQ, Plain),
        o("--proxy1.0", REQ, Plain),
        o("-p --proxytunnel", NO, Plain),
        o("--pubkey", REQ, Plain),
        o("-Q --quote", REQ, Plain),
        o("--random-file", REQ, Plain),
        o("-r --range", REQ, Plain),
        o("--rate", REQ, Plain),
        o("--raw", NO, Plain),
        o("-e --referer", REQ, Plain),
        o("-J --remote-header-name", NO, Plain),
        o("-O --remote-name", NO, Write),
        o("--remote-name-all", NO, Write),
        o("-R --remote-time", NO, Plain),
        o("--remove-on-error", NO, Plain),
        o("-X --request", REQ, Plain),
        o("--request-target", REQ, Plain),
        o("--resolve", REQ, Plain),
        o("--retry", REQ, Plain),
        o("--retry-all-errors", NO, Plain),
        o("--retry-connrefused", NO, Plain),
        o("--retry-delay", REQ, Plain),
        o("--retry-max-time", REQ, Plain),
        o("--sasl-authzid", REQ, Plain),
        o("--sasl-ir", NO, Plain),
        o("--service-name", REQ, Plain),
        o("-S --show-error", NO, Plain),
        o("-s --silent", NO, Plain),
        o("--socks4", REQ, Plain),
        o("--socks4a", REQ, Plain),
        o("--socks5", REQ, Plain),
        o("--socks5-basic", NO, Plain),
        o("--socks5-gssapi", NO, Plain),
        o("--socks5-gssapi-nec", NO, Plain),
        o("--socks5-gssapi-service", REQ, Plain),
        o("--socks5-hostname", REQ, Plain),
        o("-Y --speed-limit", REQ, Plain),
        o("-y --speed-time", REQ, Plain),
        o("--ssl", NO, Plain),
        o("--ssl-allow-beast", NO, Plain),
        o("--ssl-auto-client-cert", NO, Plain),
        o("--ssl-no-revoke", NO, Plain),
        o("--ssl-reqd", NO, Plain),
        o("--ssl-revoke-best-effort", NO, Plain),
        o("-2 --sslv2", NO, Plain),
        o("-3 --sslv3", NO, Plain),
        o("--stderr", REQ, Write),
        o("--styled-output", NO, Plain),
        o("--suppress-connect-headers", NO, Plain),
        o("--tcp-fastopen", NO, Plain),
        o("--tcp-nodelay", NO, Plain),
        o("-t --telnet-option", REQ, Plain),
        o("--tftp-blksize", REQ, Plain),
        o("--tftp-no-options", NO, Plain),
        o("-z --time-cond", REQ, Plain),
        o("--tls-max", REQ, Plain),
        o("--tls13-ciphers", REQ, Plain),
        o("--tlsauthtype", REQ, Plain),
        o("--tlspassword", REQ, Plain),
        o("--tlsuser", REQ, Plain),
        o("-1 --tlsv1", NO, Plain),
        o("--tlsv1.0", NO, Plain),
        o("--tlsv1.1", NO, Plain),
        o("--tlsv1.2", NO, Plain),
        o("--tlsv1.3", NO, Plain),
        o("--tr-encoding", NO, Plain),
        o("--trace", REQ, Write),
        o("--trace-ascii", REQ, Write),
        o("--trace-time", NO, Plain),
        o("--unix-socket", REQ, Read),
        o("-T --upload-file", REQ, Read),
        o("--url", REQ, Plain),
        o("--url-query", REQ, ReadAt),
        o("-B --use-ascii", NO, Plain),
        o("-u --user", REQ, Plain),
        o("-A --user-agent", REQ, Plain),
        o("-v --verbose", NO, Plain),
        o("-V --version", NO, Plain),
        o("-w --write-out", REQ, ReadAt),
        o("--xattr", NO, Plain),
    ],
    exact_only: true,
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    writes: Writes::Values(&["-o", "--output"]),
    checker: Checker::Curl,
    examples: &[ex("curl -o out https://x", Expect::Risky(&["-o"])), ex("curl https://x", Expect::Plain)],
    ..GETOPT
};

/// GNU Wget 1.21.3, `wget --help`.
static WGET: Program = Program {
    names: &["wget"],
    source: "GNU Wget 1.21.3, `wget --help`",
    abbrev: true,
    permute: true,
    negatable: true,
    equals: true,
    opts: &[
        o("-V --version", NO, Plain),
        o("-h --help", NO, Plain),
        // `-nv`, `-nc`, `-nd`, `-nH`, `-np`: the short option `-n` with a glued value.
        o("-n", REQ, Plain),
        o("-b --background", NO, Plain),
        o("-e --execute", REQ, Exec),
        o("-o --output-file", REQ, Write),
        o("-a --append-output", REQ, Write),
        o("-d --debug", NO, Plain),
        o("-q --quiet", NO, Plain),
        o("-v --verbose", NO, Plain),
        o("--no-verbose", NO, Plain),
        o("--report-speed", REQ, Plain),
        o("-i --input-file", REQ, Read),
        o("-F --force-html", NO, Plain),
        o("-B --base", REQ, Plain),
        o("--config", REQ, Exec),
        o("--no-config", NO, Plain),
        o("--rejected-log", REQ, Write),
        o("-t --tries", REQ, Plain),
        o("--retry-connrefused", NO, Plain),
        o("--retry-on-http-error", REQ, Plain),
        o("-O --output-document", REQ, Write),
        o("--no-clobber", NO, Plain),
        o("--no-netrc", NO, Plain),
        o("-c --continue", NO, Plain),
        o("--start-pos", REQ, Plain),
        o("--progress", REQ, Plain),
        o("--show-progress", NO, Plain),
        o("-N --timestamping", NO, Plain),
        o("--no-if-modified-since", NO, Plain),
        o("--no-use-server-timestamps", NO, Plain),
        o("-S --server-response", NO, Plain),
        o("--spider", NO, Plain),
        o("-T --timeout", REQ, Plain),
        o("--dns-timeout", REQ, Plain),
        o("--connect-timeout", REQ, Plain),
        o("--read-timeout", REQ, Plain),
        o("-w --wait", REQ, Plain),
        o("--waitretry", REQ, Plain),
        o("--random-wait", NO, Plain),
        o("--no-proxy", NO, Plain),
        o("-Q --quota", REQ, Plain),
        o("--bind-address", REQ, Plain),
        o("--limit-rate", REQ, Plain),
        o("--no-dns-cache", NO, Plain),
        o("--restrict-file-names", REQ, Plain),
        o("--ignore-case", NO, Plain),
        o("-4 --inet4-only", NO, Plain),
        o("-6 --inet6-only", NO, Plain),
        o("--prefer-family", REQ, Plain),
        o("--user", REQ, Plain),
        o("--password", REQ, Plain),
        o("--ask-password", NO, Plain),
        o("--use-askpass", REQ, Exec),
        o("--no-iri", NO, Plain),
        o("--local-encoding", REQ, Plain),
        o("--remote-encoding", REQ, Plain),
        o("--unlink", NO, Plain),
        o("--xattr", NO, Plain),
        o("--no-directories", NO, Plain),
        o("-x --force-directories", NO, Plain),
        o("--no-host-directories", NO, Plain),
        o("--protocol-directories", NO, Plain),
        o("-P --directory-prefix", REQ, Write),
        o("--cut-dirs", REQ, Plain),
        o("--http-user", REQ, Plain),
        o("--http-password", REQ, Plain),
        o("--no-cache", NO, Plain),
        o("--default-page", REQ, Plain),
        o("-E --adjust-extension", NO, Plain),
        o("--ignore-length", NO, Plain),
        o("--header", REQ, Plain),
        o("--compression", REQ, Plain),
        o("--max-redirect", REQ, Plain),
        o("--proxy-user", REQ, Plain),
        o("--proxy-password", REQ, Plain),
        o("--referer", REQ, Plain),
        o("--save-headers", NO, Plain),
        o("-U --user-agent", REQ, Plain),
        o("--no-http-keep-alive", NO, Plain),
        o("--no-cookies", NO, Plain),
        o("--load-cookies", REQ, Read),
        o("--save-cookies", REQ, Write),
        o("--keep-session-cookies", NO, Plain),
        o("--post-data", REQ, Plain),
        o("--post-file", REQ, Read),
        o("--method", REQ, Plain),
        o("--body-data", REQ, Plain),
        o("--body-file", REQ, Read),
        o("--content-disposition", NO, Plain),
        o("--content-on-error", NO, Plain),
        o("--auth-no-challenge", NO, Plain),
        o("--secure-protocol", REQ, Plain),
        o("--https-only", NO, Plain),
        o("--no-check-certificate", NO, Plain),
        o("--certificate", REQ, Read),
        o("--certificate-type", REQ, Plain),
        o("--private-key", REQ, Read),
        o("--private-key-type", REQ, Plain),
        o("--ca-certificate", REQ, Read),
        o("--ca-directory", REQ, Read),
        o("--crl-file", REQ, Read),
        o("--pinnedpubkey", REQ, Plain),
        o("--ciphers", REQ, Plain),
        o("--no-hsts", NO, Plain),
        o("--hsts-file", REQ, Write),
        o("--ftp-user", REQ, Plain),
        o("--ftp-password", REQ, Plain),
        o("--no-remove-listing", NO, Plain),
        o("--no-glob", NO, Plain),
        o("--no-passive-ftp", NO, Plain),
        o("--preserve-permissions", NO, Plain),
        o("--retr-symlinks", NO, Plain),
        o("--ftps-implicit", NO, Plain),
        o("--ftps-resume-ssl", NO, Plain),
        o("--ftps-clear-data-connection", NO, Plain),
        o("--ftps-fallback-to-ftp", NO, Plain),
        o("--warc-file", REQ, Write),
        o("--warc-header", REQ, Plain),
        o("--warc-max-size", REQ, Plain),
        o("--warc-cdx", NO, Read),
        o("--warc-dedup", REQ, Read),
        o("--no-warc-compression", NO, Plain),
        o("--no-warc-digests", NO, Plain),
        o("--no-warc-keep-log", NO, Plain),
        o("--warc-tempdir", REQ, Plain),
        o("-r --recursive", NO, Plain),
        o("-l --level", REQ, Plain),
        o("--delete-after", NO, Plain),
        o("-k --convert-links", NO, Plain),
        o("--convert-file-only", NO, Plain),
        o("--backups", REQ, Plain),
        o("-K --backup-converted", NO, Plain),
        o("-m --mirror", NO, Plain),
        o("-p --page-requisites", NO, Plain),
        o("--strict-comments", NO, Plain),
        o("-A --accept", REQ, Plain),
        o("-R --reject", REQ, Plain),
        o("--accept-regex", REQ, Plain),
        o("--reject-regex", REQ, Plain),
        o("--regex-type", REQ, Plain),
        o("-D --domains", REQ, Plain),
        o("--exclude-domains", REQ, Plain),
        o("--follow-ftp", NO, Plain),
        o("--follow-tags", REQ, Plain),
        o("--ignore-tags", REQ, Plain),
        o("-H --span-hosts", NO, Plain),
        o("-L --relative", NO, Plain),
        o("-I --include-directories", REQ, Plain),
        o("--trust-server-names", NO, Plain),
        o("-X --exclude-directories", REQ, Plain),
        o("--no-parent", NO, Plain),
    ],
    exact_only: true,
    network: Network::Always,
    jobs: &[Does { job: Job::Downloads, when: &[] }],
    writes: Writes::Values(&["-O", "--output-document"]),
    checker: Checker::Wget,
    examples: &[ex("wget -O out https://x", Expect::Risky(&["-O"]))],
    ..GETOPT
};

mod tables;
mod tools;

/// `git apply`'s table, for the git checker (what the patches write).
pub(crate) fn git_apply_table() -> &'static Program {
    &tables::GIT_APPLY
}

use crate::facts::{Does, Example, Job, Network, SetsVariable, Writes};
use crate::role::{Launch, Role, LAUNCH};

/// Every table, sorted by first name (sub-command tables are reached through their program's
/// `subs`); `tests/registry.rs` checks that each one is here exactly once.
pub static PROGRAMS: &[&Program] = &[
    &tools::RSCRIPT,
    &tables::AWK,
    &tools::BUN,
    &tools::BUNX,
    &tools::CARGO,
    &CP,
    &CURL,
    &CUT,
    &DATE,
    &tables::FD,
    &FILE,
    &tables::FIND,
    &tables::GIT,
    &tools::GO,
    &tools::GRADLE,
    &HEAD,
    &tools::JQ,
    &tables::LESS,
    &tools::LUA,
    &tools::MAKE,
    &tables::MAN,
    &MV,
    &tables::NODE,
    &tables::NPM,
    &tables::NPX,
    &tables::PERL,
    &tools::PHP,
    &tables::PIP,
    &tools::PIPX,
    &tables::PNPM,
    &tables::PNPX,
    &tables::PYTHON,
    &tables::RG,
    &RM,
    &tables::RSYNC,
    &tables::RUBY,
    &tables::SCP,
    &SED,
    &SORT,
    &tables::SSH,
    &TAIL,
    &tables::TAR,
    &UNIQ,
    &tools::UV,
    &tools::UVX,
    &tables::VIM,
    &WC,
    &WGET,
    &XARGS,
    &tables::YARN,
    &tools::ZIP,
];

/// The table for a program word (its base name), if wicket reads that program's options:
/// one of [`PROGRAMS`], never one of [`crate::RUNNERS`].
pub fn program(word: &str) -> Option<&'static Program> {
    crate::lookup(word).filter(|p| PROGRAMS.iter().any(|q| std::ptr::eq(*q, *p)))
}

/// One option found in an argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The table entry.
    pub opt: &'static Opt,
    /// The full name it was given by (`--expression` for `--expr`, `-e` in `-ne`).
    pub name: &'static str,
    /// Its value, when it takes one and one was given.
    pub value: Option<String>,
}

/// An argv read with its program's grammar.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// The options, in order.
    pub found: Vec<Found>,
    /// The operands, in order (sub-command names are in `path`, not here).
    pub operands: Vec<String>,
    /// Words holding options the table does not have, or that the program would refuse
    /// (ambiguous prefix, missing or unexpected value), as written.
    pub unknown: Vec<String>,
    /// The sub-commands chosen, outermost first (`["stash"]` for `git stash list`).
    pub path: Vec<&'static str>,
    /// Where the last sub-command's options start in `found`.
    pub sub_at: usize,
}

/// A `-NUMBER` word of a program that takes one (`nice -10`).
const NUMERIC: Opt = o("-n", Arg::Required, Effect::Plain);

/// rustup's `+toolchain` first word (`cargo +nightly build`).
const TOOLCHAIN: Opt = o("+", Arg::Required, Effect::Plain);

/// A `+cmd` word of a pager or editor (`less +!id`, `vim +'!id'`).
const PLUS: Opt = o("+", OPT, Exec);

impl Program {
    /// Does this argv (the program's own word left out) only read, by its record, or for a
    /// program with sub-commands (`git log`), by the record of the sub-command it picks? An
    /// option the tables do not know makes it unsure: no.
    pub fn reads_only(&'static self, args: &[&str]) -> bool {
        if self.subs.is_empty() {
            return self.only_reads;
        }
        // No parse for a program none of whose sub-commands only reads (`cargo`, `npm`).
        if !self.subs.iter().any(|t| t.only_reads || !t.subs.is_empty()) {
            return false;
        }
        let parsed = self.parse(args);
        if !parsed.unknown.is_empty() || parsed.path.is_empty() {
            return false;
        }
        let mut table = self;
        for name in &parsed.path {
            match table.subs.iter().find(|t| t.names.contains(name)) {
                Some(t) => table = t,
                None => return false,
            }
        }
        table.reads_only_by(parsed.found.get(parsed.sub_at..).unwrap_or(&[]))
    }

    /// Does this table only read, given its own options as parsed: by its record, or by an
    /// option of [`Program::reads_only_with`] with none of [`Program::reads_only_unless`] and
    /// no option turned off?
    pub fn reads_only_by(&'static self, own: &[Found]) -> bool {
        self.only_reads
            || (own.iter().any(|f| self.reads_only_with.contains(&f.opt.name()))
                && !own.iter().any(|f| f.opt.name() == "--no-" || self.reads_only_unless.contains(&f.opt.name())))
    }

    /// Every option of the table: its own, then the shared sets.
    pub fn all_opts(&'static self) -> impl Iterator<Item = &'static Opt> {
        self.opts.iter().chain(self.shared.iter().flat_map(|s| s.iter()))
    }

    fn short(&'static self, c: char) -> Option<(&'static Opt, &'static str)> {
        let mut buf = [0u8; 4];
        let letter = c.encode_utf8(&mut buf).as_bytes();
        self.all_opts().find_map(|o| {
            o.find_name(|n| n.len() == 1 + letter.len() && n[0] == b'-' && &n[1..] == letter && n != b"--")
                .map(|n| (o, n))
        })
    }

    /// A two-letter short option at the start of `rest` (Info-ZIP's `-TT`), for `MultiShort`.
    fn short2(&'static self, rest: &str) -> Option<(&'static Opt, &'static str)> {
        if self.style != Style::MultiShort {
            return None;
        }
        self.all_opts().find_map(|o| {
            o.find_name(|n| n.len() == 3 && n[0] == b'-' && n[1] != b'-' && rest.as_bytes().starts_with(&n[1..]))
                .map(|n| (o, n))
        })
    }

    /// A long option by exact name or, when the program allows it, unique prefix.
    fn long(&'static self, name: &str) -> Option<(&'static Opt, &'static str)> {
        let wanted = name.as_bytes();
        if wanted.starts_with(b"--") {
            if let Some(hit) = self.all_opts().find_map(|o| o.find_name(|n| n == wanted).map(|n| (o, n))) {
                return Some(hit);
            }
        }
        if !self.abbrev || name.len() < 3 {
            return None;
        }
        let longs = || {
            self.all_opts().flat_map(move |o| {
                o.names.slices().filter(|n| n.starts_with(b"--") && n.starts_with(wanted)).map(move |n| (o, n))
            })
        };
        let mut hit: Option<(&'static Opt, &'static str)> = None;
        for (o, n) in longs().filter_map(|(o, n)| std::str::from_utf8(n).ok().map(|n| (o, n))) {
            match hit {
                // Two names of one option are not an ambiguity.
                Some((h, _)) if !std::ptr::eq(h, o) => return None,
                Some(_) => {}
                None => hit = Some((o, n)),
            }
        }
        hit
    }

    /// `--no-NAME` for an option `--NAME` (curl, wget and git negate options this way): it
    /// only turns the option off and takes no value.
    fn negation(&'static self, name: &str, glued: Option<&str>) -> Option<(&'static Opt, &'static str)> {
        const NEGATION: Opt = o("--no-", NO, Plain);
        let base = name.strip_prefix("no-")?;
        self.long(&format!("--{base}"))?;
        (self.negatable && glued.is_none()).then_some((&NEGATION, "--no-"))
    }

    /// The sub-command an operand names.
    fn sub(&'static self, word: &str) -> Option<&'static Program> {
        self.subs.iter().copied().find(|s| s.names.contains(&word))
    }

    /// Read an argv (without the program word) with this program's grammar.
    pub fn parse<S: AsRef<str>>(&'static self, args: &[S]) -> Parsed {
        let mut words: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
        let mut old_style: Vec<String> = Vec::new();
        if self.style == Style::OldTar {
            if let Some(first) = words.first().filter(|w| !w.is_empty() && !w.starts_with('-')) {
                // `tar xzfC a.tgz dir`: each letter an option, values from the next words.
                let mut rest = words[1..].iter();
                let mut ok = true;
                for c in first.chars() {
                    old_style.push(format!("-{c}"));
                    if let Some((opt, _)) = self.short(c) {
                        if matches!(opt.arg, Arg::Required | Arg::Last | Arg::Two) {
                            match rest.next() {
                                Some(v) => old_style.push((*v).to_string()),
                                None => ok = false,
                            }
                        }
                    }
                }
                if ok {
                    old_style.extend(rest.map(|w| (*w).to_string()));
                    words = old_style.iter().map(String::as_str).collect();
                }
            }
        }
        let mut p = Parsed::default();
        if self.toolchain {
            if let Some(name) = words.first().and_then(|w| w.strip_prefix('+')).filter(|n| !n.is_empty()) {
                p.found.push(Found { opt: &TOOLCHAIN, name: "+", value: Some(name.to_string()) });
                words.remove(0);
            }
        }
        match self.style {
            Style::Expression => self.parse_expression(&words, &mut p),
            Style::GoFlag => self.parse_go(&words, &mut p),
            Style::Getopt | Style::OldTar | Style::MultiShort => self.parse_into(&words, &mut p),
        }
        p
    }

    /// A value-taking option's value from the words after position `i` (advancing `i`):
    /// `None` when the words run out (the program refuses the command).
    fn take(arg: Arg, args: &[&str], i: &mut usize) -> Option<String> {
        match arg {
            Arg::No | Arg::Optional => None,
            Arg::Required | Arg::Last => {
                let v = args.get(*i).map(|v| (*v).to_string());
                *i += 1;
                v
            }
            Arg::Two => {
                let v = args.get(*i).filter(|_| args.len() > *i + 1).map(|v| (*v).to_string());
                *i += 2;
                v
            }
            Arg::Command => {
                let start = *i;
                while let Some(w) = args.get(*i) {
                    *i += 1;
                    if *w == ";" || (*w == "+" && *i >= 2 && args.get(*i - 2) == Some(&"{}")) {
                        return Some(args[start..*i - 1].join(" "));
                    }
                }
                // fd runs to the end of its words; find refuses an unterminated `-exec`.
                Some(args[start..].join(" "))
            }
        }
    }

    fn parse_into(&'static self, args: &[&str], p: &mut Parsed) {
        let mut i = 0;
        let mut seen_operands = 0;
        while let Some(&w) = args.get(i) {
            i += 1;
            if w == "--" {
                p.operands.extend(args[i..].iter().map(|a| (*a).to_string()));
                return;
            }
            let digits = w.strip_prefix("--").or_else(|| w.strip_prefix('-')).filter(|d| !d.is_empty());
            if self.numeric && digits.is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit())) {
                p.found.push(Found { opt: &NUMERIC, name: "-n", value: digits.map(str::to_string) });
                continue;
            }
            if self.plus && w.starts_with('+') && w.len() > 1 {
                p.found.push(Found { opt: &PLUS, name: "+", value: Some(w[1..].to_string()) });
                continue;
            }
            if let Some(body) = w.strip_prefix("--") {
                let (name, glued) = match body.split_once('=').filter(|_| self.equals) {
                    Some((n, v)) => (n, Some(v)),
                    None => (body, None),
                };
                let Some((opt, full)) = self.long(&format!("--{name}")).or_else(|| self.negation(name, glued)) else {
                    p.unknown.push(w.to_string());
                    continue;
                };
                let value = match (opt.arg, glued) {
                    (Arg::No, Some(_)) => {
                        p.unknown.push(w.to_string());
                        continue;
                    }
                    (Arg::No, None) => None,
                    (Arg::Optional, v) => v.map(str::to_string),
                    (Arg::Required | Arg::Last | Arg::Command, Some(v)) => Some(v.to_string()),
                    (_, _) => {
                        let Some(v) = Self::take(opt.arg, args, &mut i) else {
                            p.unknown.push(w.to_string());
                            continue;
                        };
                        Some(v)
                    }
                };
                p.found.push(Found { opt, name: full, value });
                if opt.arg == Arg::Last {
                    p.operands.extend(args[i.min(args.len())..].iter().map(|a| (*a).to_string()));
                    return;
                }
                continue;
            }
            if w.len() > 1 && w.starts_with('-') {
                let mut at = 1;
                while let Some(c) = w[at..].chars().next() {
                    let found = self.short2(&w[at..]).map(|(o, n)| (o, n, 2)).or_else(|| {
                        let (o, n) = self.short(c)?;
                        Some((o, n, c.len_utf8()))
                    });
                    let Some((opt, name, len)) = found else {
                        p.unknown.push(w.to_string());
                        break;
                    };
                    at += len;
                    let rest = &w[at..];
                    match opt.arg {
                        Arg::No => p.found.push(Found { opt, name, value: None }),
                        Arg::Optional => {
                            p.found.push(Found { opt, name, value: (!rest.is_empty()).then(|| rest.to_string()) });
                            break;
                        }
                        _ => {
                            let value = if rest.is_empty() {
                                Self::take(opt.arg, args, &mut i)
                            } else {
                                Some(rest.to_string())
                            };
                            match value {
                                None => p.unknown.push(w.to_string()),
                                Some(v) => p.found.push(Found { opt, name, value: Some(v) }),
                            }
                            if opt.arg == Arg::Last {
                                p.operands.extend(args[i.min(args.len())..].iter().map(|a| (*a).to_string()));
                                return;
                            }
                            break;
                        }
                    }
                }
                continue;
            }
            if !self.subs.is_empty() {
                self.enter_sub(w, &args[i..], p);
                return;
            }
            let script = !self.own_commands.is_empty()
                && match seen_operands {
                    0 => !self.own_commands.contains(&w),
                    1 => p.operands.first().is_some_and(|o| o == "run"),
                    _ => false,
                };
            if script {
                p.operands.push(w.to_string());
                self.script_words(&args[i..], p);
                return;
            }
            p.operands.push(w.to_string());
            seen_operands += 1;
            if !self.permute || (self.stop_after > 0 && seen_operands >= self.stop_after) {
                p.operands.extend(args[i..].iter().map(|a| (*a).to_string()));
                return;
            }
        }
    }

    /// The words after a script's name: operands, but for the options the program reads
    /// anywhere, each read by the program's own grammar with the words its value takes.
    fn script_words(&'static self, args: &[&str], p: &mut Parsed) {
        let mut i = 0;
        while let Some(&w) = args.get(i) {
            let name = w.split_once('=').map_or(w, |(n, _)| n);
            if !self.read_anywhere.contains(&name) {
                p.operands.push(w.to_string());
                i += 1;
                continue;
            }
            let values = match self.long(name).map(|(o, _)| o.arg) {
                _ if w.contains('=') => 0,
                Some(Arg::Required | Arg::Last) => 1,
                Some(Arg::Two) => 2,
                _ => 0,
            };
            let end = (i + 1 + values).min(args.len());
            self.parse_into(&args[i..end], p);
            i = end;
        }
    }

    /// A sub-command's words, read with that sub-command's style.
    fn parse_sub(&'static self, args: &[&str], p: &mut Parsed) {
        match self.style {
            Style::GoFlag => self.parse_go(args, p),
            Style::Expression => self.parse_expression(args, p),
            Style::Getopt | Style::OldTar | Style::MultiShort => self.parse_into(args, p),
        }
    }

    /// The first operand of a program with sub-commands: the sub-command's table reads the
    /// rest, or, when wicket has none, every later option word is unknown.
    fn enter_sub(&'static self, w: &str, rest: &[&str], p: &mut Parsed) {
        if let Some(sub) = self.sub(w) {
            p.path.push(sub.names[0]);
            p.sub_at = p.found.len();
            sub.parse_sub(rest, p);
            return;
        }
        p.operands.push(w.to_string());
        let mut end = false;
        for a in rest {
            end |= *a == "--";
            if !end && a.len() > 1 && a.starts_with('-') {
                p.unknown.push((*a).to_string());
            } else {
                p.operands.push((*a).to_string());
            }
        }
    }

    /// Go's `flag` package (and cmd/go's test flags, which also follow the packages when the
    /// table permutes): whole words, one or two dashes, `=v` or the next word.
    fn parse_go(&'static self, args: &[&str], p: &mut Parsed) {
        let mut i = 0;
        while let Some(&w) = args.get(i) {
            i += 1;
            if w == "--" {
                p.operands.extend(args[i..].iter().map(|a| (*a).to_string()));
                return;
            }
            let body =
                w.strip_prefix("--").or_else(|| w.strip_prefix('-')).filter(|b| !b.is_empty() && !b.starts_with('-'));
            let Some(body) = body else {
                if !self.subs.is_empty() {
                    self.enter_sub(w, &args[i..], p);
                    return;
                }
                p.operands.push(w.to_string());
                if !self.permute {
                    p.operands.extend(args[i..].iter().map(|a| (*a).to_string()));
                    return;
                }
                continue;
            };
            let (name, glued) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (body, None),
            };
            let wanted = format!("-{name}");
            let hit = self.all_opts().find_map(|o| o.find_name(|n| n == wanted.as_bytes()).map(|n| (o, n)));
            let Some((opt, full)) = hit else {
                p.unknown.push(w.to_string());
                continue;
            };
            let value = match (opt.arg, glued) {
                (_, Some(v)) => Some(v.to_string()),
                (Arg::No | Arg::Optional, None) => None,
                (arg, None) => match Self::take(arg, args, &mut i) {
                    Some(v) => Some(v),
                    None => {
                        p.unknown.push(w.to_string());
                        continue;
                    }
                },
            };
            p.found.push(Found { opt, name: full, value });
            if opt.arg == Arg::Last {
                p.operands.extend(args[i.min(args.len())..].iter().map(|a| (*a).to_string()));
                return;
            }
        }
    }

    /// find's command line: global options, paths, then the expression.
    fn parse_expression(&'static self, args: &[&str], p: &mut Parsed) {
        let exact = |w: &str| self.all_opts().find_map(|o| o.find_name(|n| n == w.as_bytes()).map(|n| (o, n)));
        let mut i = 0;
        let mut in_expression = false;
        while let Some(&w) = args.get(i) {
            i += 1;
            let operator = matches!(w, "!" | "(" | ")" | ",");
            if !in_expression {
                let global = matches!(w, "-H" | "-L" | "-P" | "-D")
                    || (w.len() > 2 && w.starts_with("-O") && w[2..].bytes().all(|b| b.is_ascii_digit()));
                let option_like = w.len() > 1 && w.starts_with('-');
                if !(global || operator || option_like) {
                    p.operands.push(w.to_string());
                    continue;
                }
                in_expression = !global;
            }
            if operator {
                continue;
            }
            let name = if w.starts_with("-O") && w.len() > 2 { "-O" } else { w };
            let Some((opt, full)) = exact(name) else {
                p.unknown.push(w.to_string());
                continue;
            };
            let value = match opt.arg {
                Arg::No | Arg::Optional => None,
                arg => match Self::take(arg, args, &mut i) {
                    Some(v) => Some(v),
                    None => {
                        p.unknown.push(w.to_string());
                        continue;
                    }
                },
            };
            p.found.push(Found { opt, name: full, value });
        }
    }
}

impl Parsed {
    /// The files an option reads (`--files0-from F`, `-d @F`, `-F name=@F;type=…`).
    pub fn reads(&self) -> Vec<String> {
        let mut out = Vec::new();
        for f in &self.found {
            let Some(v) = &f.value else { continue };
            match f.opt.effect {
                Effect::Read | Effect::ReadList | Effect::Workdir | Effect::ScriptFile => out.push(v.clone()),
                Effect::ReadAt => {
                    // `@file`, `name=@file`, `name=<file`, `@file;type=…`.
                    let at = v.find(['@', '<']).filter(|&k| k == 0 || v[..k].ends_with('='));
                    if let Some(k) = at {
                        let path = v[k + 1..].split(';').next().unwrap_or("");
                        if !path.is_empty() && path != "-" {
                            out.push(path.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The files or folders an option writes (`-o F`, `--output-document=F`, `-t DIR`).
    pub fn writes(&self) -> Vec<String> {
        self.found
            .iter()
            .filter(|f| matches!(f.opt.effect, Effect::Write | Effect::Dest))
            .filter_map(|f| f.value.clone())
            .collect()
    }

    /// The normal form a deny rule is matched against: the program's own options, the
    /// sub-commands, their options (canonical names with their values, each group in a fixed
    /// order), then the operands in order.
    pub fn normal_form(&self, program: &str) -> String {
        let group = |found: &[Found]| {
            let mut opts: Vec<String> = found
                .iter()
                .map(|f| match &f.value {
                    Some(v) => format!("{}={v}", f.opt.name()),
                    None => f.opt.name().to_string(),
                })
                .collect();
            opts.sort();
            opts.dedup();
            opts
        };
        let at = self.sub_at.min(self.found.len());
        let (outer, inner) = if self.path.is_empty() { (&[][..], &self.found[..]) } else { self.found.split_at(at) };
        let mut out = program.to_string();
        // An operand that looks like an option stays an operand.
        let end = self.operands.iter().any(|o| o.starts_with('-')).then(|| "--".to_string());
        let path: Vec<String> = self.path.iter().map(|s| s.to_string()).collect();
        for w in group(outer)
            .iter()
            .chain(&path)
            .chain(group(inner).iter())
            .chain(&self.unknown)
            .chain(end.iter())
            .chain(&self.operands)
        {
            out.push(' ');
            out.push_str(w);
        }
        out
    }
}
