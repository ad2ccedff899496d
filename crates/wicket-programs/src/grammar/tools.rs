//! The option tables of the build tools, package launchers and small interpreters that
//! `flags.rs` used to read by hand: zip, make, jq, cargo, go, uv/uvx, pipx, bun/bunx, gradle,
//! php, lua and Rscript. The hard question is the module's: what does each word of an argv
//! mean to that program? Each block names the parser the program uses (its rules decide
//! whether `--exp` is `--expression`, whether `-qTT` is one option or three) and where the
//! list comes from: the program's own `--help` where it is installed here (zip 3.0, GNU make
//! 4.3, jq 1.6, cargo 1.97), its documentation otherwise. Options that run code, name a
//! package source other than the default index, or load configuration that can do either are
//! `Exec`; options that move where the program works or finds the build it runs (`-C DIR`,
//! `--manifest-path`) are `Workdir`: read like `Read`, and flagged when the folder may lie
//! outside the project.

use super::Arg::{Last, Two};
use super::Effect::*;
use super::{o, Opt, Program, Scripts, Style, GETOPT, NO, OPT, REQ};
use crate::checkers::Checker;
use crate::facts::{ex, Expect};
use crate::facts::{Network, Writes};
use crate::role::{Launch, LaunchSub, Role, Start, SubRuns, Walker, LAUNCH};

/// Info-ZIP Zip 3.0, `zip -h2` and zip(1): its own parser (clusters, two-letter short options
/// such as `-TT` and `-db` that win over their first letter, long options by unique prefix).
pub(super) static ZIP: Program = Program {
    names: &["zip"],
    source: "Info-ZIP Zip 3.0, `zip -h2` and zip(1) (two-letter short options; long options by unique prefix)",
    style: Style::MultiShort,
    opts: &[
        o("-TT --unzip-command", REQ, Exec),
        o("-T --test", NO, Plain),
        // `-m` deletes the files it put in the archive.
        o("-m --move", NO, Write),
        o("-O --out --output-file", REQ, Write),
        o("-lf --logfile-path", REQ, Write),
        o("-la --log-append", NO, Plain),
        o("-li --log-info", NO, Plain),
        o("-b --temp-path", REQ, Dest),
        o("-r --recurse-paths", NO, Plain),
        o("-R --recurse-patterns", NO, Plain),
        o("-q --quiet", NO, Plain),
        o("-v --verbose", NO, Plain),
        o("-j --junk-paths", NO, Plain),
        o("-y --symlinks", NO, Plain),
        o("-x --exclude", REQ, Plain),
        o("-i --include", REQ, Plain),
        o("-ic --ignore-case", NO, Plain),
        o("-d --delete", NO, Plain),
        o("-u --update", NO, Plain),
        o("-f --freshen", NO, Plain),
        o("-FS --filesync", NO, Plain),
        o("-U --copy-entries", NO, Plain),
        o("-F --fix", NO, Plain),
        o("-FF --fixfix", NO, Plain),
        o("-DF --dif", NO, Plain),
        o("-D --no-dir-entries", NO, Plain),
        // Names to add come from stdin: what they are is not on the line, but they are read
        // like operands (no secret check can see them; the sandbox still confines the read).
        o("-@ --names-stdin", NO, ReadList),
        o("-P --password", REQ, Plain),
        o("-e --encrypt", NO, Plain),
        o("-s --split-size", REQ, Plain),
        o("-sp --split-pause", NO, Plain),
        o("-sb --split-bell", NO, Plain),
        o("-sv --split-verbose", NO, Plain),
        o("-Z --compression-method", REQ, Plain),
        o("-n --suffixes", REQ, Plain),
        o("-t --from-date", REQ, Plain),
        o("-tt --before-date", REQ, Plain),
        o("-0 --store-only", NO, Plain),
        o("-1 --compress-1", NO, Plain),
        o("-2", NO, Plain),
        o("-3", NO, Plain),
        o("-4", NO, Plain),
        o("-5", NO, Plain),
        o("-6", NO, Plain),
        o("-7", NO, Plain),
        o("-8", NO, Plain),
        o("-9 --compress-9", NO, Plain),
        o("-l --to-crlf", NO, Plain),
        o("-ll --from-crlf", NO, Plain),
        o("-X --no-extra", NO, Plain),
        o("-o --latest-time", NO, Plain),
        o("-g --grow", NO, Plain),
        o("-A --adjust-sfx", NO, Plain),
        o("-J --junk-sfx", NO, Plain),
        o("-MM --must-match", NO, Plain),
        o("-nw --no-wild", NO, Plain),
        o("-ws --wild-stop-dirs", NO, Plain),
        o("-sf --show-files", NO, Plain),
        o("-su --show-unicode", NO, Plain),
        o("-sU --show-just-unicode", NO, Plain),
        o("-sc --show-command", NO, Plain),
        o("-sd --show-debug", NO, Plain),
        o("-so --show-options", NO, Plain),
        o("-db --display-bytes", NO, Plain),
        o("-dc --display-counts", NO, Plain),
        o("-dd --display-dots", NO, Plain),
        o("-dg --display-globaldots", NO, Plain),
        o("-ds --dot-size", REQ, Plain),
        o("-du --display-usize", NO, Plain),
        o("-dv --display-volume", NO, Plain),
        o("-c --entry-comments", NO, Plain),
        o("-z --archive-comment", NO, Plain),
        o("-UN --unicode", REQ, Plain),
        o("-AS", NO, Plain),
        o("-AC", NO, Plain),
        o("-RE --regex", NO, Plain),
        o("-L --license", NO, Plain),
        o("-h -? --help", NO, Plain),
        o("-h2 --more-help", NO, Plain),
    ],
    writes: Writes::Archive(&["-sf", "-su", "-sU", "-so", "-sc"]),
    checker: Checker::Recursive { letters: &['r', 'R'], longs: &["--recurse-paths", "--recurse-patterns"] },
    examples: &[ex("zip -TT sh a.zip f", Expect::Risky(&["-TT"])), ex("zip -r a.zip src", Expect::Writes(&["a.zip"]))],
    ..GETOPT
};

/// GNU Make 4.3, `make --help` (getopt_long: clusters, unique prefixes, options anywhere).
/// `VAR=value` operands are read in `flags.rs` (`make_assignment_runs`).
pub(super) static MAKE: Program = Program {
    names: &["make", "gmake"],
    source: "GNU Make 4.3, `make --help`",
    opts: &[
        o("-b -m", NO, Plain),
        o("-B --always-make", NO, Plain),
        o("-C --directory", REQ, Workdir),
        o("-d", NO, Plain),
        o("--debug", OPT, Plain),
        o("-e --environment-overrides", NO, Plain),
        o("-E --eval", REQ, Exec),
        o("-f --file --makefile", REQ, ScriptFile),
        o("-h --help", NO, Plain),
        o("-i --ignore-errors", NO, Plain),
        o("-I --include-dir", REQ, Read),
        o("-j --jobs", OPT, Plain),
        o("-k --keep-going", NO, Plain),
        o("-l --load-average --max-load", OPT, Plain),
        o("-L --check-symlink-times", NO, Plain),
        o("-n --just-print --dry-run --recon", NO, Plain),
        o("-o --old-file --assume-old", REQ, Plain),
        o("-O --output-sync", OPT, Plain),
        o("-p --print-data-base", NO, Plain),
        o("-q --question", NO, Plain),
        o("-r --no-builtin-rules", NO, Plain),
        o("-R --no-builtin-variables", NO, Plain),
        o("-s --silent --quiet", NO, Plain),
        o("--no-silent", NO, Plain),
        o("-S --no-keep-going --stop", NO, Plain),
        // `-t` creates (touches) every target file without running recipes.
        o("-t --touch", NO, Write),
        o("--trace", NO, Plain),
        o("-v --version", NO, Plain),
        o("-w --print-directory", NO, Plain),
        o("--no-print-directory", NO, Plain),
        o("-W --what-if --new-file --assume-new", REQ, Plain),
        o("--warn-undefined-variables", NO, Plain),
        // Set by a parent make; a value names file descriptors or a fifo.
        o("--jobserver-auth", REQ, Exec),
    ],
    exact_only: true,
    checker: Checker::Make,
    examples: &[ex("make SHELL=./evil", Expect::Risky(&["SHELL="]))],
    ..GETOPT
};

/// jq 1.6 `jq --help` and main.c (also gojq, jaq): its own parser. A short word is a set of
/// letters in any order (`-nr`, `-nf`); long options by exact name only (`--rawf` is
/// refused); options anywhere. `-f`/`--from-file` is a flag: the first operand is then the
/// filter's file. The filter is checked for `env`, `$ENV`, `import`, `include`.
pub(super) static JQ: Program = Program {
    names: &["jq", "gojq", "jaq"],
    source: "jq 1.6, `jq --help` and main.c (letters in any order; long options exact)",
    abbrev: false,
    opts: &[
        o("-c --compact-output", NO, Plain),
        o("-n --null-input", NO, Plain),
        o("-e --exit-status", NO, Plain),
        o("-s --slurp", NO, Plain),
        o("-r --raw-output", NO, Plain),
        o("--raw-output0", NO, Plain),
        o("-j --join-output", NO, Plain),
        o("-a --ascii-output", NO, Plain),
        o("-R --raw-input", NO, Plain),
        o("-C --color-output", NO, Plain),
        o("-M --monochrome-output", NO, Plain),
        o("-S --sort-keys", NO, Plain),
        o("--tab", NO, Plain),
        o("--indent", REQ, Plain),
        o("--unbuffered", NO, Plain),
        o("--stream", NO, Plain),
        o("--stream-errors", NO, Plain),
        o("--seq", NO, Plain),
        o("-b --binary", NO, Plain),
        o("-h --help", NO, Plain),
        o("-V --version", NO, Plain),
        o("--build-configuration", NO, Plain),
        o("--arg", Two, Plain),
        o("--argjson", Two, Plain),
        // The file is the second value: wicket does not see it as a read, so a rule names it.
        o("--slurpfile", Two, ScriptFile),
        o("--rawfile", Two, ScriptFile),
        o("--args", NO, Plain),
        o("--jsonargs", NO, Plain),
        // The filter comes from a file wicket does not read; modules are jq code it cannot see.
        o("-f --from-file", NO, ScriptFile),
        o("-L --library-path", REQ, ScriptFile),
        o("--run-tests", OPT, ScriptFile),
        o("--debug-dump-disasm", NO, Plain),
        o("--debug-trace", NO, Plain),
    ],
    scripts: Scripts::Jq,
    script_operand: true,
    examples: &[ex("jq -n env", Expect::Risky(&["env"])), ex("jq .name package.json", Expect::Plain)],
    ..GETOPT
};

// --- cargo (clap 4: clusters, `--k=v` or `--k v`, no abbreviations, options anywhere) ---

/// cargo's global options, accepted before and after the sub-command.
static CARGO_GLOBAL: &[Opt] = &[
    o("-v --verbose", NO, Plain),
    o("-q --quiet", NO, Plain),
    o("--color", REQ, Plain),
    o("-C", REQ, Workdir),
    o("--locked", NO, Plain),
    o("--offline", NO, Plain),
    o("--frozen", NO, Plain),
    // `target.*.runner`, `build.rustc-wrapper`, `[env]`, an included file: any program.
    o("--config", REQ, Exec),
    // Unstable flags include `-Zscript`, `-Zunstable-options --config …` and friends.
    o("-Z", REQ, Exec),
    o("-h --help", NO, Plain),
];

/// Package, target, feature and build-profile selection shared by the compiling commands.
static CARGO_COMPILE: &[Opt] = &[
    o("-p --package", REQ, Plain),
    o("--workspace --all", NO, Plain),
    o("--exclude", REQ, Plain),
    o("--lib", NO, Plain),
    o("--bins", NO, Plain),
    o("--bin", REQ, Plain),
    o("--examples", NO, Plain),
    o("--example", REQ, Plain),
    o("--tests", NO, Plain),
    o("--test", REQ, Plain),
    o("--benches", NO, Plain),
    o("--bench", REQ, Plain),
    o("--all-targets", NO, Plain),
    o("-F --features", REQ, Plain),
    o("--all-features", NO, Plain),
    o("--no-default-features", NO, Plain),
    o("-r --release", NO, Plain),
    o("--profile", REQ, Plain),
    o("-j --jobs", REQ, Plain),
    o("--keep-going", NO, Plain),
    o("--target", REQ, Plain),
    o("--target-dir", REQ, Dest),
    o("--artifact-dir --out-dir", REQ, Dest),
    o("--unit-graph", NO, Plain),
    o("--build-plan", NO, Plain),
    o("--timings", OPT, Plain),
    o("--message-format", REQ, Plain),
    o("--future-incompat-report", NO, Plain),
    o("--manifest-path", REQ, Workdir),
    o("--lockfile-path", REQ, Read),
    o("--ignore-rust-version", NO, Plain),
];

/// `cargo build` (`b`), `check` (`c`): build scripts and proc macros run, as the rule expects.
static CARGO_BUILD: Program = Program {
    names: &["build", "b"],
    source: "cargo 1.97, `cargo build --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL, CARGO_COMPILE],
    ..GETOPT
};

/// `cargo check` (`c`).
static CARGO_CHECK: Program = Program {
    names: &["check", "c"],
    source: "cargo 1.97, `cargo check --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL, CARGO_COMPILE],
    ..GETOPT
};

/// `cargo test` (`t`) and `cargo bench`: the words after `--` go to the test binary.
static CARGO_TEST: Program = Program {
    names: &["test", "t"],
    source: "cargo 1.97, `cargo test --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL, CARGO_COMPILE],
    opts: &[o("--doc", NO, Plain), o("--no-run", NO, Plain), o("--no-fail-fast", NO, Plain)],
    ..GETOPT
};

/// `cargo bench`.
static CARGO_BENCH: Program = Program {
    names: &["bench"],
    source: "cargo 1.97, `cargo bench --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL, CARGO_COMPILE],
    opts: &[o("--no-run", NO, Plain), o("--no-fail-fast", NO, Plain)],
    ..GETOPT
};

/// `cargo run` (`r`): the program runs with the words after `--`.
static CARGO_RUN: Program = Program {
    names: &["run", "r"],
    source: "cargo 1.97, `cargo run --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL, CARGO_COMPILE],
    ..GETOPT
};

/// `cargo doc` (`d`): `--open` starts a browser (`$BROWSER`, `doc.browser`).
static CARGO_DOC: Program = Program {
    names: &["doc", "d"],
    source: "cargo 1.97, `cargo doc --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL, CARGO_COMPILE],
    opts: &[o("--open", NO, Exec), o("--no-deps", NO, Plain), o("--document-private-items", NO, Plain)],
    ..GETOPT
};

/// `cargo clippy` (clippy's `cargo-clippy`): `--fix` rewrites the sources.
static CARGO_CLIPPY: Program = Program {
    names: &["clippy"],
    source: "clippy 1.97, `cargo clippy --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL, CARGO_COMPILE],
    opts: &[
        o("--no-deps", NO, Plain),
        o("--fix", NO, Write),
        o("--allow-dirty", NO, Plain),
        o("--allow-staged", NO, Plain),
        o("--allow-no-vcs", NO, Plain),
        o("--broken-code", NO, Plain),
    ],
    ..GETOPT
};

/// `cargo fix`: rewrites the sources by design.
static CARGO_FIX: Program = Program {
    names: &["fix"],
    source: "cargo 1.97, `cargo fix --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL, CARGO_COMPILE],
    opts: &[
        o("--edition", NO, Plain),
        o("--edition-idioms", NO, Plain),
        o("--allow-dirty", NO, Plain),
        o("--allow-staged", NO, Plain),
        o("--allow-no-vcs", NO, Plain),
        o("--broken-code", NO, Plain),
    ],
    ..GETOPT
};

/// `cargo fmt` (rustfmt's `cargo-fmt`): its words after `--` go to rustfmt.
static CARGO_FMT: Program = Program {
    names: &["fmt"],
    source: "rustfmt 1.97, `cargo fmt --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL],
    opts: &[
        o("--check", NO, Plain),
        o("--all", NO, Plain),
        o("-p --package", REQ, Plain),
        o("--manifest-path", REQ, Workdir),
        o("--message-format", REQ, Plain),
    ],
    ..GETOPT
};

/// `cargo clean`.
static CARGO_CLEAN: Program = Program {
    names: &["clean"],
    source: "cargo 1.97, `cargo clean --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL, CARGO_COMPILE],
    opts: &[o("--doc", NO, Plain), o("-n --dry-run", NO, Plain)],
    ..GETOPT
};

/// Where `cargo add`/`install` take a crate from: `--git`, `--registry`, `--index` fetch from
/// a source the rule does not name; `--path` builds local code.
static CARGO_SOURCE: &[Opt] = &[
    o("--git", REQ, Exec),
    o("--branch", REQ, Plain),
    o("--tag", REQ, Plain),
    o("--rev", REQ, Plain),
    o("--path", REQ, Workdir),
    o("--registry", REQ, Exec),
    o("--index", REQ, Exec),
];

/// `cargo add`.
static CARGO_ADD: Program = Program {
    names: &["add"],
    source: "cargo 1.97, `cargo add --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL, CARGO_SOURCE],
    opts: &[
        o("-p --package", REQ, Plain),
        o("--manifest-path", REQ, Workdir),
        o("-F --features", REQ, Plain),
        o("--default-features", NO, Plain),
        o("--no-default-features", NO, Plain),
        o("--optional", NO, Plain),
        o("--no-optional", NO, Plain),
        o("--public", NO, Plain),
        o("--no-public", NO, Plain),
        o("--rename", REQ, Plain),
        o("--dev", NO, Plain),
        o("--build", NO, Plain),
        o("--target", REQ, Plain),
        o("-n --dry-run", NO, Plain),
    ],
    ..GETOPT
};

/// `cargo remove` (`rm`).
static CARGO_REMOVE: Program = Program {
    names: &["remove", "rm"],
    source: "cargo 1.97, `cargo remove --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL],
    opts: &[
        o("-p --package", REQ, Plain),
        o("--manifest-path", REQ, Workdir),
        o("--dev", NO, Plain),
        o("--build", NO, Plain),
        o("--target", REQ, Plain),
        o("-n --dry-run", NO, Plain),
    ],
    ..GETOPT
};

/// `cargo install`: builds and installs into `~/.cargo/bin`; `--root` writes elsewhere.
static CARGO_INSTALL: Program = Program {
    names: &["install"],
    source: "cargo 1.97, `cargo install --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL, CARGO_SOURCE],
    opts: &[
        o("--version --vers", REQ, Plain),
        o("--root", REQ, Write),
        o("-f --force", NO, Plain),
        o("--no-track", NO, Plain),
        o("--list", NO, Plain),
        o("--debug", NO, Plain),
        o("-n --dry-run", NO, Plain),
        o("--bin", REQ, Plain),
        o("--bins", NO, Plain),
        o("--example", REQ, Plain),
        o("--examples", NO, Plain),
        o("-F --features", REQ, Plain),
        o("--all-features", NO, Plain),
        o("--no-default-features", NO, Plain),
        o("-j --jobs", REQ, Plain),
        o("--keep-going", NO, Plain),
        o("--profile", REQ, Plain),
        o("--target", REQ, Plain),
        o("--target-dir", REQ, Dest),
        o("--timings", OPT, Plain),
        o("--message-format", REQ, Plain),
        o("--ignore-rust-version", NO, Plain),
    ],
    ..GETOPT
};

/// `cargo update`.
static CARGO_UPDATE: Program = Program {
    names: &["update"],
    source: "cargo 1.97, `cargo update --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL],
    opts: &[
        o("-p --package", REQ, Plain),
        o("-w --workspace", NO, Plain),
        o("--recursive", NO, Plain),
        o("--aggressive", NO, Plain),
        o("--precise", REQ, Plain),
        o("--breaking", NO, Plain),
        o("-n --dry-run", NO, Plain),
        o("--manifest-path", REQ, Workdir),
        o("--lockfile-path", REQ, Read),
        o("--ignore-rust-version", NO, Plain),
    ],
    ..GETOPT
};

/// `cargo tree`.
static CARGO_TREE: Program = Program {
    names: &["tree"],
    source: "cargo 1.97, `cargo tree --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL],
    opts: &[
        o("-p --package", REQ, Plain),
        o("--workspace", NO, Plain),
        o("--exclude", REQ, Plain),
        o("-e --edges", REQ, Plain),
        o("-i --invert", REQ, Plain),
        o("--prune", REQ, Plain),
        o("--depth", REQ, Plain),
        o("--prefix", REQ, Plain),
        o("--no-dedupe", NO, Plain),
        o("-d --duplicates", NO, Plain),
        o("--charset", REQ, Plain),
        o("-f --format", REQ, Plain),
        o("-F --features", REQ, Plain),
        o("--all-features", NO, Plain),
        o("--no-default-features", NO, Plain),
        o("--target", REQ, Plain),
        o("--manifest-path", REQ, Workdir),
        o("--lockfile-path", REQ, Read),
    ],
    ..GETOPT
};

/// `cargo metadata`.
static CARGO_METADATA: Program = Program {
    names: &["metadata"],
    source: "cargo 1.97, `cargo metadata --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL],
    opts: &[
        o("--format-version", REQ, Plain),
        o("--no-deps", NO, Plain),
        o("--filter-platform", REQ, Plain),
        o("-F --features", REQ, Plain),
        o("--all-features", NO, Plain),
        o("--no-default-features", NO, Plain),
        o("--manifest-path", REQ, Workdir),
        o("--lockfile-path", REQ, Read),
    ],
    ..GETOPT
};

/// `cargo new` and `cargo init`: create a package (the folder is the operand).
static CARGO_NEW: Program = Program {
    names: &["new", "init"],
    source: "cargo 1.97, `cargo new --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL],
    opts: &[
        o("--vcs", REQ, Plain),
        o("--bin", NO, Plain),
        o("--lib", NO, Plain),
        o("--edition", REQ, Plain),
        o("--name", REQ, Plain),
        o("--registry", REQ, Plain),
    ],
    ..GETOPT
};

/// `cargo fetch`, `generate-lockfile`, `locate-project`, `pkgid`, `verify-project`.
static CARGO_LOCKFILE: Program = Program {
    names: &["fetch", "generate-lockfile", "locate-project", "pkgid", "verify-project"],
    source: "cargo 1.97, `cargo fetch --help` and friends",
    abbrev: false,
    shared: &[CARGO_GLOBAL],
    opts: &[
        o("--target", REQ, Plain),
        o("-p --package", REQ, Plain),
        o("--workspace", NO, Plain),
        o("--message-format", REQ, Plain),
        o("--manifest-path", REQ, Workdir),
        o("--lockfile-path", REQ, Read),
    ],
    ..GETOPT
};

/// `cargo search`.
static CARGO_SEARCH: Program = Program {
    names: &["search"],
    source: "cargo 1.97, `cargo search --help`",
    abbrev: false,
    shared: &[CARGO_GLOBAL],
    opts: &[o("--limit", REQ, Plain), o("--index", REQ, Plain), o("--registry", REQ, Plain)],
    ..GETOPT
};

/// cargo 1.97, `cargo --help`: a `+toolchain` first word picks a rustup toolchain.
pub(super) static CARGO: Program = Program {
    names: &["cargo"],
    source: "cargo 1.97, `cargo --help` (clap: clusters, `--k=v`, no abbreviations)",
    abbrev: false,
    toolchain: true,
    subs: &[
        &CARGO_BUILD,
        &CARGO_CHECK,
        &CARGO_TEST,
        &CARGO_BENCH,
        &CARGO_RUN,
        &CARGO_DOC,
        &CARGO_CLIPPY,
        &CARGO_FIX,
        &CARGO_FMT,
        &CARGO_CLEAN,
        &CARGO_ADD,
        &CARGO_REMOVE,
        &CARGO_INSTALL,
        &CARGO_UPDATE,
        &CARGO_TREE,
        &CARGO_METADATA,
        &CARGO_NEW,
        &CARGO_LOCKFILE,
        &CARGO_SEARCH,
    ],
    shared: &[CARGO_GLOBAL],
    opts: &[o("-V --version", NO, Plain), o("--list", NO, Plain), o("--explain", REQ, Plain)],
    network: Network::Subs(&["install", "publish", "fetch", "update", "search", "login", "add"]),
    checker: Checker::Cargo,
    examples: &[
        ex("cargo build --config target.x.runner=sh", Expect::Risky(&["--config"])),
        ex("cargo install --git https://x/y", Expect::Risky(&["--git"])),
    ],
    ..GETOPT
};

// --- go (cmd/go: Go's `flag` package; `-x` and `--x` alike; no clusters, no prefixes) ---

/// The build flags `go build`, `test`, `run`, `vet`, `install`, `list` share (`go help build`).
static GO_BUILD_FLAGS: &[Opt] = &[
    o("-C", REQ, Workdir),
    o("-a", NO, Plain),
    o("-n", NO, Plain),
    o("-p", REQ, Plain),
    o("-race", NO, Plain),
    o("-msan", NO, Plain),
    o("-asan", NO, Plain),
    o("-cover", NO, Plain),
    o("-covermode", REQ, Plain),
    o("-coverpkg", REQ, Plain),
    o("-v", NO, Plain),
    o("-work", NO, Plain),
    o("-x", NO, Plain),
    o("-asmflags", REQ, Plain),
    o("-buildmode", REQ, Plain),
    o("-buildvcs", REQ, Plain),
    o("-compiler", REQ, Plain),
    // gcc's `-wrapper PROG` runs every compiler pass through PROG.
    o("-gccgoflags", REQ, Exec),
    o("-gcflags", REQ, Plain),
    o("-installsuffix", REQ, Plain),
    o("-ldflags", REQ, Plain),
    o("-linkshared", NO, Plain),
    o("-mod", REQ, Plain),
    o("-modcacherw", NO, Plain),
    // Another go.mod: its `replace` lines pick which code is built.
    o("-modfile", REQ, Workdir),
    // Replaces source files by the ones a JSON file names.
    o("-overlay", REQ, Exec),
    o("-pgo", REQ, Read),
    o("-pkgdir", REQ, Dest),
    o("-tags", REQ, Plain),
    o("-trimpath", NO, Plain),
    o("-toolexec", REQ, Exec),
    o("-o", REQ, Dest),
    o("-json", NO, Plain),
];

/// `go test`: its flags may follow the packages, and `-exec` runs the test binary through a
/// program (cmd/go/internal/test/testflag.go); words after `-args` go to the binary.
static GO_TEST: Program = Program {
    names: &["test"],
    source: "Go 1.22, `go help test` and `go help testflag` (flag package; flags also after the packages)",
    abbrev: false,
    style: Style::GoFlag,
    shared: &[GO_BUILD_FLAGS],
    opts: &[
        o("-exec", REQ, Exec),
        o("-args", Last, Plain),
        o("-c", NO, Plain),
        o("-i", NO, Plain),
        o("-vet", REQ, Plain),
        o("-run", REQ, Plain),
        o("-skip", REQ, Plain),
        o("-bench", REQ, Plain),
        o("-benchtime", REQ, Plain),
        o("-benchmem", NO, Plain),
        o("-count", REQ, Plain),
        o("-cpu", REQ, Plain),
        o("-failfast", NO, Plain),
        o("-fullpath", NO, Plain),
        o("-list", REQ, Plain),
        o("-parallel", REQ, Plain),
        o("-short", NO, Plain),
        o("-shuffle", REQ, Plain),
        o("-timeout", REQ, Plain),
        o("-fuzz", REQ, Plain),
        o("-fuzztime", REQ, Plain),
        o("-fuzzminimizetime", REQ, Plain),
        // The profiles land where the value names, from the folder `go test` runs in (go 1.19,
        // tried: `-coverprofile=c.out ./...` wrote `./c.out`, not the package's folder): checked
        // as writes, as `-o` is. `-outputdir` moves where they land, so it stays a flag.
        o("-coverprofile", REQ, Dest),
        o("-cpuprofile", REQ, Dest),
        o("-memprofile", REQ, Dest),
        o("-blockprofile", REQ, Dest),
        o("-mutexprofile", REQ, Dest),
        o("-trace", REQ, Dest),
        o("-outputdir", REQ, Write),
    ],
    permute: true,
    ..GETOPT
};

/// `go build`, `install`, `run`, `list`, `vet` read the build flags; `go run` and `vet` add
/// `-exec` and `-vettool` (programs).
static GO_BUILD: Program = Program {
    names: &["build", "install", "list", "get"],
    source: "Go 1.22, `go help build` (flag package)",
    abbrev: false,
    permute: false,
    style: Style::GoFlag,
    shared: &[GO_BUILD_FLAGS],
    opts: &[
        o("-i", NO, Plain),
        o("-u", NO, Plain),
        o("-t", NO, Plain),
        o("-d", NO, Plain),
        o("-f", REQ, Plain),
        o("-e", NO, Plain),
        o("-m", NO, Plain),
        o("-deps", NO, Plain),
        o("-find", NO, Plain),
        o("-export", NO, Plain),
        o("-compiled", NO, Plain),
        o("-test", NO, Plain),
        o("-reuse", REQ, Read),
    ],
    ..GETOPT
};

/// `go run`: builds and runs the program, through `-exec` when given.
static GO_RUN: Program = Program {
    names: &["run"],
    source: "Go 1.22, `go help run` (flag package)",
    abbrev: false,
    permute: false,
    style: Style::GoFlag,
    shared: &[GO_BUILD_FLAGS],
    opts: &[o("-exec", REQ, Exec)],
    ..GETOPT
};

/// `go vet`: `-vettool` runs a program.
static GO_VET: Program = Program {
    names: &["vet"],
    source: "Go 1.22, `go help vet` (flag package)",
    abbrev: false,
    permute: false,
    style: Style::GoFlag,
    shared: &[GO_BUILD_FLAGS],
    opts: &[o("-vettool", REQ, Exec)],
    ..GETOPT
};

/// `go mod` (`download`, `tidy`, `graph`, `verify`, `why`, `init`, `edit`, `vendor`).
static GO_MOD: Program = Program {
    names: &["mod"],
    source: "Go 1.22, `go help mod` (flag package; the flags follow `go mod CMD`)",
    abbrev: false,
    permute: true,
    style: Style::GoFlag,
    opts: &[
        o("-C", REQ, Workdir),
        o("-e", NO, Plain),
        o("-v", NO, Plain),
        o("-x", NO, Plain),
        o("-json", NO, Plain),
        o("-go", REQ, Plain),
        o("-compat", REQ, Plain),
        o("-modfile", REQ, Workdir),
        o("-m", NO, Plain),
        o("-o", REQ, Dest),
        o("-reuse", REQ, Read),
    ],
    ..GETOPT
};

/// `go fmt`, `go clean`, `go env`, `go version`, `go doc`: their flags, exact. `go env -w`
/// writes the go configuration (`GOFLAGS`, `GOPROXY`, `CC`, `GOTOOLCHAIN`).
static GO_MISC: Program = Program {
    names: &["fmt", "clean", "env", "version", "doc"],
    source: "Go 1.22, `go help fmt|clean|env|version|doc` (flag package)",
    abbrev: false,
    permute: false,
    style: Style::GoFlag,
    opts: &[
        o("-C", REQ, Workdir),
        o("-n", NO, Plain),
        o("-x", NO, Plain),
        o("-mod", REQ, Plain),
        o("-i", NO, Plain),
        o("-r", NO, Plain),
        o("-cache", NO, Plain),
        o("-testcache", NO, Plain),
        o("-modcache", NO, Plain),
        o("-fuzzcache", NO, Plain),
        o("-json", NO, Plain),
        o("-w", NO, Write),
        o("-u", NO, Write),
        o("-changed", NO, Plain),
        o("-m", NO, Plain),
        o("-v", NO, Plain),
        o("-all", NO, Plain),
        o("-c", NO, Plain),
        o("-cmd", NO, Plain),
        o("-short", NO, Plain),
        o("-src", NO, Plain),
    ],
    ..GETOPT
};

/// Go 1.22, `go help`: `-C DIR` first, then the command. `go generate` runs the commands its
/// `//go:generate` lines name (flagged in `flags.rs`); commands without a table leave their
/// options unknown.
pub(super) static GO: Program = Program {
    names: &["go"],
    source: "Go 1.22, `go help` (flag package: `-x` is `--x`, no clusters, no prefixes)",
    abbrev: false,
    permute: false,
    style: Style::GoFlag,
    subs: &[&GO_TEST, &GO_BUILD, &GO_RUN, &GO_VET, &GO_MOD, &GO_MISC],
    opts: &[o("-C", REQ, Workdir), o("-h -help", NO, Plain)],
    network: Network::Subs(&["get", "install", "mod"]),
    checker: Checker::Go,
    examples: &[ex("go generate ./...", Expect::Risky(&["generate"]))],
    ..GETOPT
};

// --- uv (clap 4: clusters, `--k=v`, no abbreviations; global options anywhere) ---

/// uv's global options (`uv help`): `--config-file` loads settings that pick indexes and
/// build backends; `--directory`/`--project` move where it works.
static UV_GLOBAL: &[Opt] = &[
    o("-q --quiet", NO, Plain),
    o("-v --verbose", NO, Plain),
    o("--color", REQ, Plain),
    o("--native-tls", NO, Plain),
    o("--offline", NO, Plain),
    o("--no-progress", NO, Plain),
    o("--directory", REQ, Workdir),
    o("--project", REQ, Workdir),
    o("--config-file", REQ, Exec),
    o("--no-config", NO, Plain),
    o("-n --no-cache", NO, Plain),
    o("--cache-dir", REQ, Plain),
    o("--python-preference", REQ, Plain),
    o("--no-python-downloads", NO, Plain),
    o("--managed-python", NO, Plain),
    o("--no-managed-python", NO, Plain),
    o("--allow-insecure-host", REQ, Exec),
    o("-h --help", NO, Plain),
];

/// Where uv resolves packages from (`uv help pip install`, "Index options"): anything but the
/// default index is a source the rule must name.
static UV_INDEX: &[Opt] = &[
    o("--index", REQ, Exec),
    o("--default-index", REQ, Exec),
    o("-i --index-url", REQ, Exec),
    o("--extra-index-url", REQ, Exec),
    o("-f --find-links", REQ, Exec),
    o("--no-index", NO, Plain),
    o("--index-strategy", REQ, Plain),
    o("--keyring-provider", REQ, Exec),
    o("--trusted-host", REQ, Exec),
];

/// Resolver and installer settings shared by `uv pip install`, `sync`, `add`, `run`, `lock`.
static UV_RESOLVE: &[Opt] = &[
    o("-U --upgrade", NO, Plain),
    o("-P --upgrade-package", REQ, Plain),
    o("--reinstall", NO, Plain),
    o("--reinstall-package", REQ, Plain),
    o("--resolution", REQ, Plain),
    o("--prerelease", REQ, Plain),
    o("--exclude-newer", REQ, Plain),
    o("--no-build-isolation", NO, Plain),
    o("--no-build", NO, Plain),
    o("--no-binary", REQ, Plain),
    o("--only-binary", REQ, Plain),
    o("--link-mode", REQ, Plain),
    o("--compile-bytecode", NO, Plain),
    o("-C --config-setting", REQ, Plain),
    o("-p --python", REQ, ExecPath),
    o("--refresh", NO, Plain),
    o("--refresh-package", REQ, Plain),
    o("--locked", NO, Plain),
    o("--frozen", NO, Plain),
    o("--all-extras", NO, Plain),
    o("--extra", REQ, Plain),
    o("--no-extra", REQ, Plain),
    o("--dev", NO, Plain),
    o("--no-dev", NO, Plain),
    o("--group", REQ, Plain),
    o("--no-group", REQ, Plain),
    o("--only-group", REQ, Plain),
    o("--all-groups", NO, Plain),
    o("--only-dev", NO, Plain),
    o("--package", REQ, Plain),
    o("--all-packages", NO, Plain),
    o("--no-sync", NO, Plain),
    o("--inexact", NO, Plain),
    o("--exact", NO, Plain),
    o("--no-install-project", NO, Plain),
    o("--no-editable", NO, Plain),
];

/// `uv pip install` / `sync`: requirement files are read; `-e` builds local code (read by
/// `effects.rs`); `--target`/`--prefix` write elsewhere.
static UV_PIP_INSTALL: Program = Program {
    names: &["install", "sync"],
    source: "uv 0.5, `uv pip install --help` (clap)",
    abbrev: false,
    shared: &[UV_GLOBAL, UV_INDEX, UV_RESOLVE],
    opts: &[
        o("-r --requirements --requirement", REQ, Read),
        o("-c --constraints --constraint", REQ, Read),
        o("--overrides", REQ, Read),
        o("-e --editable", REQ, Plain),
        o("--system", NO, Plain),
        o("--break-system-packages", NO, Plain),
        o("--target", REQ, Write),
        o("--prefix", REQ, Write),
        o("--user", NO, Plain),
        o("--no-deps", NO, Plain),
        o("--require-hashes", NO, Plain),
        o("--dry-run", NO, Plain),
        o("--strict", NO, Plain),
    ],
    ..GETOPT
};

/// `uv pip uninstall`, `list`, `freeze`, `show`, `tree`, `check`.
static UV_PIP_QUERY: Program = Program {
    names: &["uninstall", "list", "freeze", "show", "tree", "check"],
    source: "uv 0.5, `uv pip list --help` and friends (clap)",
    abbrev: false,
    shared: &[UV_GLOBAL],
    opts: &[
        o("-p --python", REQ, ExecPath),
        o("--system", NO, Plain),
        o("-r --requirements --requirement", REQ, Read),
        o("-e --editable", NO, Plain),
        o("--exclude-editable", NO, Plain),
        o("--format", REQ, Plain),
        o("--outdated", NO, Plain),
        o("--strict", NO, Plain),
        o("-f --files", NO, Plain),
        o("-d --depth", REQ, Plain),
        o("--invert", NO, Plain),
        o("--dry-run", NO, Plain),
        o("--break-system-packages", NO, Plain),
    ],
    ..GETOPT
};

/// `uv pip compile`: `-o` writes the lock file.
static UV_PIP_COMPILE: Program = Program {
    names: &["compile"],
    source: "uv 0.5, `uv pip compile --help` (clap)",
    abbrev: false,
    shared: &[UV_GLOBAL, UV_INDEX, UV_RESOLVE],
    opts: &[
        o("-o --output-file", REQ, Dest),
        o("-c --constraints --constraint", REQ, Read),
        o("--overrides", REQ, Read),
        o("--generate-hashes", NO, Plain),
        o("--universal", NO, Plain),
        o("--no-header", NO, Plain),
        o("--no-annotate", NO, Plain),
        o("--python-version", REQ, Plain),
        o("--python-platform", REQ, Plain),
    ],
    ..GETOPT
};

/// `uv pip` and its commands.
static UV_PIP: Program = Program {
    names: &["pip"],
    source: "uv 0.5, `uv pip --help` (clap)",
    abbrev: false,
    shared: &[UV_GLOBAL],
    subs: &[&UV_PIP_INSTALL, &UV_PIP_QUERY, &UV_PIP_COMPILE],
    ..GETOPT
};

/// `uv run`: runs the command (or script) the first operand names, with the words after it
/// as its arguments (clap's trailing arguments); `--with` adds packages from the index;
/// `--env-file` sets any variable (`LD_PRELOAD`, `PYTHONSTARTUP`).
static UV_RUN: Program = Program {
    names: &["run"],
    source: "uv 0.5, `uv run --help` (clap; options stop at the command)",
    abbrev: false,
    stop_after: 1,
    shared: &[UV_GLOBAL, UV_INDEX, UV_RESOLVE],
    opts: &[
        o("--with", REQ, Plain),
        o("--with-editable", REQ, Exec),
        o("--with-requirements", REQ, Read),
        o("--env-file", REQ, Exec),
        o("--no-env-file", NO, Plain),
        o("-m --module", NO, Plain),
        o("-s --script", NO, Plain),
        o("--gui-script", NO, Plain),
        o("--isolated", NO, Plain),
        o("--active", NO, Plain),
        o("--no-project", NO, Plain),
    ],
    ..GETOPT
};

/// `uv add`, `remove`, `sync`, `lock`, `tree`, `export`, `venv`, `init`, `build`, `version`:
/// project commands; `--script` names the script whose inline metadata is changed.
static UV_PROJECT: Program = Program {
    names: &["add", "remove", "sync", "lock", "tree", "export", "venv", "init", "build", "version"],
    source: "uv 0.5, `uv add --help` and friends (clap)",
    abbrev: false,
    shared: &[UV_GLOBAL, UV_INDEX, UV_RESOLVE],
    opts: &[
        o("-r --requirements --requirement", REQ, Read),
        o("-e --editable", NO, Plain),
        o("--optional", REQ, Plain),
        o("--raw --raw-sources", NO, Plain),
        o("--bounds", REQ, Plain),
        o("--rev", REQ, Plain),
        o("--tag", REQ, Plain),
        o("--branch", REQ, Plain),
        o("--script", REQ, Read),
        o("--check", NO, Plain),
        o("--dry-run", NO, Plain),
        o("-o --output-file", REQ, Dest),
        o("--format", REQ, Plain),
        o("--depth -d", REQ, Plain),
        o("--invert", NO, Plain),
        o("--outdated", NO, Plain),
        o("--no-hashes", NO, Plain),
        o("--seed", NO, Plain),
        o("--prompt", REQ, Plain),
        o("--system-site-packages", NO, Plain),
        o("--clear", NO, Plain),
        o("--allow-existing", NO, Plain),
        o("--lib", NO, Plain),
        o("--app", NO, Plain),
        o("--bare", NO, Plain),
        o("--name", REQ, Plain),
        o("--vcs", REQ, Plain),
        o("--sdist", NO, Plain),
        o("--wheel", NO, Plain),
        o("--out-dir", REQ, Dest),
        o("--bump", REQ, Plain),
        o("--short", NO, Plain),
    ],
    ..GETOPT
};

/// `uv tool run` (and `uvx`): fetches a package and runs its command with the words after.
static UV_TOOL_RUN: Program = Program {
    names: &["run"],
    source: "uv 0.5, `uv tool run --help` (clap; options stop at the command)",
    abbrev: false,
    stop_after: 1,
    shared: &[UV_GLOBAL, UV_INDEX, UV_RESOLVE],
    opts: &[
        o("--from", REQ, Plain),
        o("--with", REQ, Plain),
        o("--with-editable", REQ, Exec),
        o("--with-requirements", REQ, Read),
        o("--isolated", NO, Plain),
        o("--env-file", REQ, Exec),
    ],
    ..GETOPT
};

/// `uv tool install`, `upgrade`, `uninstall`, `list`, `dir`.
static UV_TOOL_MANAGE: Program = Program {
    names: &["install", "upgrade", "uninstall", "list", "dir"],
    source: "uv 0.5, `uv tool install --help` and friends (clap)",
    abbrev: false,
    shared: &[UV_GLOBAL, UV_INDEX, UV_RESOLVE],
    opts: &[
        o("--from", REQ, Plain),
        o("--with", REQ, Plain),
        o("--with-editable", REQ, Exec),
        o("--with-requirements", REQ, Read),
        o("-e --editable", NO, Plain),
        o("--force", NO, Plain),
        o("--all", NO, Plain),
        o("--show-paths", NO, Plain),
        o("--bin", NO, Plain),
    ],
    ..GETOPT
};

/// `uv tool`.
static UV_TOOL: Program = Program {
    names: &["tool"],
    source: "uv 0.5, `uv tool --help` (clap)",
    abbrev: false,
    shared: &[UV_GLOBAL],
    subs: &[&UV_TOOL_RUN, &UV_TOOL_MANAGE],
    ..GETOPT
};

/// uv 0.5, `uv help` (clap: clusters, `--k=v`, no abbreviations); sub-commands without a
/// table (`uv python`, `uv cache`, `uv self`, `uv publish`) leave their options unknown.
pub(super) static UV: Program = Program {
    names: &["uv"],
    source: "uv 0.5, `uv help` (clap)",
    abbrev: false,
    shared: &[UV_GLOBAL],
    subs: &[&UV_PIP, &UV_RUN, &UV_TOOL, &UV_PROJECT],
    opts: &[o("-V --version", NO, Plain)],
    role: Role::Launcher(&Launch {
        start: Start::Walker(Walker::SubCommand),
        subs: &[
            LaunchSub { path: &["run"], grammar: &UV_RUN, runs: SubRuns::Operands },
            LaunchSub { path: &["tool", "run"], grammar: &UV_TOOL_RUN, runs: SubRuns::Operands },
        ],
        ..LAUNCH
    }),
    network: Network::Subs(&["pip", "add", "sync", "tool", "run", "lock"]),
    runtime: true,
    checker: Checker::Uv,
    examples: &[ex("uv run pytest", Expect::Runs(&["pytest"]))],
    ..GETOPT
};

/// `uvx` is `uv tool run`.
pub(super) static UVX: Program = Program {
    names: &["uvx"],
    source: "uv 0.5, `uvx --help` (`uv tool run`)",
    // `uv tool run` under another name: its first operand is the command it runs, as for the
    // sub-command (a deny rule on `rm` saw `uv tool run rm` but not `uvx rm`).
    role: Role::Launcher(&LAUNCH),
    exact_only: true,
    network: Network::Always,
    runtime: true,
    examples: &[
        ex("uvx ruff check", Expect::Runs(&["ruff check"])),
        ex("uvx --from ruff ruff check", Expect::Runs(&["ruff check"])),
    ],
    ..UV_TOOL_RUN
};

// --- pipx (argparse: clusters, `--k=v`, unique prefixes; `run` stops at the app) ---

/// Options every pipx command takes.
static PIPX_COMMON: &[Opt] =
    &[o("-h --help", NO, Plain), o("-q --quiet", NO, Plain), o("-v --verbose", NO, Plain), o("--global", NO, Plain)];

/// pipx's package options: `--spec`, `--index-url`, `--pip-args` pick what pip installs and
/// how (`--pip-args='--index-url=… -e ./x'`); `--python` picks the interpreter.
static PIPX_PACKAGE: &[Opt] = &[
    o("--spec", REQ, Exec),
    o("-i --index-url", REQ, Exec),
    o("--pip-args", REQ, Exec),
    o("--editable -e", NO, Exec),
    o("--preinstall", REQ, Exec),
    o("--python", REQ, ExecPath),
    o("--fetch-missing-python", NO, Plain),
    o("--system-site-packages", NO, Plain),
    o("--include-deps", NO, Plain),
    o("-f --force", NO, Plain),
    o("--suffix", REQ, Plain),
    o("--no-cache", NO, Plain),
    o("--path", NO, Plain),
    o("--pypackages", NO, Plain),
];

/// `pipx run`: fetches the app and runs it with the words after its name.
static PIPX_RUN: Program = Program {
    names: &["run"],
    source: "pipx 1.4, `pipx run --help` (argparse; the app's words follow it)",
    stop_after: 1,
    shared: &[PIPX_COMMON, PIPX_PACKAGE],
    ..GETOPT
};

/// `pipx install`, `inject`, `upgrade`, `uninstall`, `reinstall`, `list`, `ensurepath`.
static PIPX_MANAGE: Program = Program {
    names: &[
        "install",
        "inject",
        "upgrade",
        "upgrade-all",
        "uninstall",
        "reinstall",
        "reinstall-all",
        "list",
        "ensurepath",
    ],
    source: "pipx 1.4, `pipx install --help` and friends (argparse)",
    shared: &[PIPX_COMMON, PIPX_PACKAGE],
    opts: &[
        o("--include-apps", NO, Plain),
        o("--include-injected", NO, Plain),
        o("--json", NO, Plain),
        o("--short", NO, Plain),
        o("--skip-maintenance", NO, Plain),
        o("--all-shells", NO, Plain),
        o("--prepend", NO, Plain),
        o("--upgrade", NO, Plain),
    ],
    ..GETOPT
};

/// pipx 1.4, `pipx --help` (argparse, `allow_abbrev`: unique prefixes).
pub(super) static PIPX: Program = Program {
    names: &["pipx"],
    source: "pipx 1.4, `pipx --help` (argparse)",
    subs: &[&PIPX_RUN, &PIPX_MANAGE],
    shared: &[PIPX_COMMON],
    opts: &[o("--version", NO, Plain)],
    role: Role::Launcher(&Launch {
        start: Start::Walker(Walker::SubCommand),
        subs: &[LaunchSub { path: &["run"], grammar: &PIPX_RUN, runs: SubRuns::Operands }],
        ..LAUNCH
    }),
    exact_only: true,
    network: Network::Always,
    runtime: true,
    checker: Checker::PyPackages,
    examples: &[ex("pipx run black", Expect::Runs(&["black"]))],
    ..GETOPT
};

// --- bun (its own parser, a zig-clap port: clusters, `--k=v`, no abbreviations) ---

/// Options bun reads for every command (`bun --help`): `--preload`, `--config` (bunfig.toml
/// can preload code), `--env-file` and `--eval` run code; `--cwd` moves where it works.
static BUN_GLOBAL: &[Opt] = &[
    o("-r --preload --require --import", REQ, Exec),
    o("-c --config", REQ, Exec),
    o("--env-file", REQ, Exec),
    o("-e --eval", REQ, Exec),
    o("-p --print", REQ, Exec),
    o("--cwd", REQ, Workdir),
    o("--watch", NO, Plain),
    o("--hot", NO, Plain),
    o("--smol", NO, Plain),
    o("-b --bun", NO, Plain),
    o("--silent", NO, Plain),
    o("--verbose", NO, Plain),
    o("--no-install", NO, Plain),
    o("--install", REQ, Plain),
    o("-i", NO, Plain),
    o("--inspect", OPT, Plain),
    o("--inspect-brk", OPT, Plain),
    o("--inspect-wait", OPT, Plain),
    o("--if-present", NO, Plain),
    o("--no-clear-screen", NO, Plain),
    o("--define", REQ, Plain),
    o("-l --loader", REQ, Plain),
    o("--conditions", REQ, Plain),
    o("--tsconfig-override", REQ, Read),
    o("--filter -F", REQ, Plain),
    o("-h --help", NO, Plain),
];

/// `bun install`, `add`, `remove`, `update`, `outdated`: `--registry` is a source the rule
/// must name; `--cafile` is read; scripts of the packages run unless `--ignore-scripts`.
static BUN_INSTALL: Program = Program {
    names: &["install", "i", "add", "a", "remove", "rm", "update", "outdated"],
    source: "bun 1.1, `bun install --help` and friends",
    abbrev: false,
    shared: &[BUN_GLOBAL],
    opts: &[
        o("--registry", REQ, Exec),
        o("--cafile", REQ, Read),
        o("--ca", REQ, Plain),
        o("-g --global", NO, Plain),
        o("-d --dev -D --development", NO, Plain),
        o("--optional", NO, Plain),
        o("--peer", NO, Plain),
        o("-E --exact", NO, Plain),
        o("-y --yarn", NO, Plain),
        o("--production", NO, Plain),
        o("--frozen-lockfile", NO, Plain),
        o("--no-save", NO, Plain),
        o("--save", NO, Plain),
        o("--dry-run", NO, Plain),
        o("-f --force", NO, Plain),
        o("--lockfile-only", NO, Plain),
        o("--save-text-lockfile", NO, Plain),
        o("--ignore-scripts", NO, Plain),
        o("--trust", NO, Plain),
        o("--no-cache", NO, Plain),
        o("--cache-dir", REQ, Plain),
        o("--no-progress", NO, Plain),
        o("--no-summary", NO, Plain),
        o("--no-verify", NO, Plain),
        o("--backend", REQ, Plain),
        o("--concurrent-scripts", REQ, Plain),
        o("--network-concurrency", REQ, Plain),
        o("--omit", REQ, Plain),
        o("--latest", NO, Plain),
    ],
    ..GETOPT
};

/// `bun test`: runs the test files.
static BUN_TEST: Program = Program {
    names: &["test"],
    source: "bun 1.1, `bun test --help`",
    abbrev: false,
    shared: &[BUN_GLOBAL],
    opts: &[
        o("--timeout", REQ, Plain),
        o("-u --update-snapshots", NO, Plain),
        o("--rerun-each", REQ, Plain),
        o("--only", NO, Plain),
        o("--todo", NO, Plain),
        o("--coverage", NO, Plain),
        o("--coverage-reporter", REQ, Plain),
        o("--coverage-dir", REQ, Dest),
        o("--bail", OPT, Plain),
        o("-t --test-name-pattern", REQ, Plain),
        o("--reporter", REQ, Plain),
        o("--reporter-outfile", REQ, Write),
    ],
    ..GETOPT
};

/// `bun run`: runs a package.json script or a file, with the words after it as arguments.
static BUN_RUN: Program = Program {
    names: &["run"],
    source: "bun 1.1, `bun run --help` (options stop at the script)",
    abbrev: false,
    stop_after: 1,
    shared: &[BUN_GLOBAL],
    opts: &[o("--shell", REQ, Exec), o("--elide-lines", REQ, Plain)],
    ..GETOPT
};

/// `bun build`: `--outdir`/`--outfile` write.
static BUN_BUILD: Program = Program {
    names: &["build"],
    source: "bun 1.1, `bun build --help`",
    abbrev: false,
    shared: &[BUN_GLOBAL],
    opts: &[
        o("--outdir", REQ, Dest),
        o("--outfile", REQ, Dest),
        o("--target", REQ, Plain),
        o("--format", REQ, Plain),
        o("--minify", NO, Plain),
        o("--sourcemap", OPT, Plain),
        o("--splitting", NO, Plain),
        o("--external", REQ, Plain),
        o("--compile", NO, Plain),
    ],
    ..GETOPT
};

/// bun 1.1, `bun --help`: `bun FILE` runs the file; `bun x`/`exec`/`create` run packages or
/// shell text (flagged in `flags.rs`); other commands leave their options unknown.
pub(super) static BUN: Program = Program {
    names: &["bun"],
    source: "bun 1.1, `bun --help`",
    abbrev: false,
    shared: &[BUN_GLOBAL],
    subs: &[&BUN_INSTALL, &BUN_TEST, &BUN_RUN, &BUN_BUILD],
    opts: &[o("-v --version", NO, Plain), o("--revision", NO, Plain)],
    role: Role::Launcher(&Launch {
        start: Start::Walker(Walker::SubCommand),
        subs: &[LaunchSub { path: &["x"], grammar: &BUNX, runs: SubRuns::Package }],
        ..LAUNCH
    }),
    exact_only: true,
    network: Network::Subs(&["install", "i", "add", "update", "publish", "x"]),
    runtime: true,
    checker: Checker::JsPackages { set_writes_config: false },
    examples: &[ex("bun x cowsay", Expect::Runs(&["cowsay"]))],
    ..GETOPT
};

/// `bunx` (`bun x`): fetches a package and runs its command with the words after.
pub(super) static BUNX: Program = Program {
    names: &["bunx"],
    source: "bun 1.1, `bunx --help` (options stop at the package)",
    abbrev: false,
    stop_after: 1,
    opts: &[
        o("--bun", NO, Plain),
        o("-p --package", REQ, Plain),
        o("--no-install", NO, Plain),
        o("--verbose", NO, Plain),
        o("--silent", NO, Plain),
        o("-h --help", NO, Plain),
    ],
    role: Role::Launcher(&Launch {
        start: Start::Walker(Walker::Package),
        package_options: &["-p", "--package"],
        ..LAUNCH
    }),
    exact_only: true,
    network: Network::Always,
    runtime: true,
    examples: &[ex("bunx cowsay", Expect::Runs(&["cowsay"]))],
    ..GETOPT
};

/// Gradle 8, `gradle --help` and the command-line guide (its own parser: clusters of flags,
/// `-Dk=v`, no abbreviations of options; tasks anywhere). `-I` runs an init script, `-D` may
/// set `org.gradle.jvmargs` (a Java agent), `-g` picks a user home whose init scripts run.
pub(super) static GRADLE: Program = Program {
    names: &["gradle", "gradlew"],
    source: "Gradle 8, `gradle --help`",
    abbrev: false,
    opts: &[
        o("-I --init-script", REQ, Exec),
        o("-D --system-prop", REQ, Exec),
        o("-g --gradle-user-home", REQ, Exec),
        o("-b --build-file", REQ, ScriptFile),
        o("-c --settings-file", REQ, ScriptFile),
        o("--include-build", REQ, ScriptFile),
        o("-p --project-dir", REQ, Workdir),
        o("--project-cache-dir", REQ, Plain),
        o("-P --project-prop", REQ, Plain),
        o("-x --exclude-task", REQ, Plain),
        o("-q --quiet", NO, Plain),
        o("-w --warn", NO, Plain),
        o("-i --info", NO, Plain),
        o("-d --debug", NO, Plain),
        o("-s --stacktrace", NO, Plain),
        o("-S --full-stacktrace", NO, Plain),
        o("-m --dry-run", NO, Plain),
        o("-t --continuous", NO, Plain),
        o("-a --no-rebuild", NO, Plain),
        o("-F --dependency-verification", REQ, Plain),
        o("-M --write-verification-metadata", REQ, Plain),
        o("-U --refresh-keys", NO, Plain),
        o("--export-keys", NO, Plain),
        o("--offline", NO, Plain),
        o("--refresh-dependencies", NO, Plain),
        o("--rerun-tasks", NO, Plain),
        o("--continue", NO, Plain),
        o("--console", REQ, Plain),
        o("--warning-mode", REQ, Plain),
        o("--parallel", NO, Plain),
        o("--no-parallel", NO, Plain),
        o("--max-workers", REQ, Plain),
        o("--build-cache", NO, Plain),
        o("--no-build-cache", NO, Plain),
        o("--configuration-cache", NO, Plain),
        o("--no-configuration-cache", NO, Plain),
        o("--configure-on-demand", NO, Plain),
        o("--daemon", NO, Plain),
        o("--no-daemon", NO, Plain),
        o("--foreground", NO, Plain),
        o("--status", NO, Plain),
        o("--stop", NO, Plain),
        o("--scan", NO, Plain),
        o("--no-scan", NO, Plain),
        o("--profile", NO, Plain),
        o("--priority", REQ, Plain),
        o("--write-locks", NO, Plain),
        o("--update-locks", REQ, Plain),
        o("--no-watch-fs", NO, Plain),
        o("--watch-fs", NO, Plain),
        o("-v --version", NO, Plain),
        o("-h -? --help", NO, Plain),
        // The everyday task options (`test --tests X`, `--rerun`): Gradle reads them for the
        // task before them; wicket accepts them anywhere, as plain.
        o("--tests", REQ, Plain),
        o("--rerun", NO, Plain),
        o("--fail-fast", NO, Plain),
    ],
    examples: &[ex("gradle test --init-script x", Expect::Risky(&["--init-script"]))],
    ..GETOPT
};

/// PHP 8.2 CLI, `php -h` and sapi/cli/php_cli.c (php_getopt: clusters, `--name` exact or
/// `--name=value`; options stop at the script). `-r`/`-B`/`-R`/`-E` run inline code, `-F`
/// runs a file per line, `-d`/`-c` set ini values (`auto_prepend_file`), `-z` loads an
/// extension. The script operand is the code a rule names.
pub(super) static PHP: Program = Program {
    names: &["php", "php8", "php7"],
    source: "PHP 8.2, `php -h` and sapi/cli/php_cli.c",
    abbrev: false,
    permute: false,
    opts: &[
        o("-a --interactive", NO, Plain),
        o("-B --process-begin", REQ, Exec),
        o("-C --no-chdir", NO, Plain),
        o("-c --php-ini", REQ, Exec),
        o("-d --define", REQ, Exec),
        o("-E --process-end", REQ, Exec),
        o("-e --profile-info", NO, Plain),
        o("-F --process-file", REQ, ScriptFile),
        o("-f --file", Last, Plain),
        o("-h -? --help --usage", NO, Plain),
        o("-i --info", NO, Plain),
        o("-l --syntax-check", NO, Plain),
        o("-m --modules", NO, Plain),
        o("-n --no-php-ini", NO, Plain),
        o("-q --no-header", NO, Plain),
        o("-R --process-code", REQ, Exec),
        o("-H --hide-args", NO, Plain),
        o("-r --run", REQ, Exec),
        o("-s --syntax-highlight --syntax-highlighting", NO, Plain),
        o("-S --server", REQ, Plain),
        o("-t --docroot", REQ, Plain),
        o("-w --strip", NO, Plain),
        o("-v --version", NO, Plain),
        o("-z --zend-extension", REQ, Exec),
        o("--rf --rfunction", REQ, Plain),
        o("--rc --rclass", REQ, Plain),
        o("--re --rextension", REQ, Plain),
        o("--rz --rzendextension", REQ, Plain),
        o("--ri --rextinfo", REQ, Plain),
        o("--ini", OPT, Plain),
    ],
    exact_only: true,
    examples: &[ex("php -r phpinfo();", Expect::Risky(&["-r"]))],
    ..GETOPT
};

/// Lua 5.4, lua(1) and lua.c `collectargs`: `-e` runs a chunk, `-l` loads a module (code
/// from `LUA_PATH`, which holds `./?.lua`); options stop at the script.
pub(super) static LUA: Program = Program {
    names: &["lua", "lua5.1", "lua5.2", "lua5.3", "lua5.4", "luajit"],
    source: "Lua 5.4, lua(1) and lua.c",
    abbrev: false,
    permute: false,
    opts: &[
        o("-e", REQ, Exec),
        o("-l", REQ, Exec),
        o("-i", NO, Plain),
        o("-v", NO, Plain),
        o("-E", NO, Plain),
        o("-W", NO, Plain),
    ],
    exact_only: true,
    examples: &[ex("lua·-e·os.execute('id')", Expect::Risky(&["-e"]))],
    ..GETOPT
};

/// R 4.3, `Rscript --help` (whole words, `--name=value`; options stop at the file): `-e` runs
/// an expression; `--default-packages` loads packages (their `.onLoad` code).
pub(super) static RSCRIPT: Program = Program {
    names: &["Rscript"],
    source: "R 4.3, `Rscript --help` and R(1)",
    abbrev: false,
    permute: false,
    opts: &[
        o("-e", REQ, Exec),
        o("--default-packages", REQ, Exec),
        o("--help", NO, Plain),
        o("--version", NO, Plain),
        o("--verbose", NO, Plain),
        o("--vanilla", NO, Plain),
        o("--no-environ", NO, Plain),
        o("--no-site-file", NO, Plain),
        o("--no-init-file", NO, Plain),
        o("--no-restore", NO, Plain),
        o("--no-restore-data", NO, Plain),
        o("--restore", NO, Plain),
        o("--save", NO, Plain),
        o("--no-save", NO, Plain),
        o("--slave --no-echo", NO, Plain),
        o("-q --quiet --silent", NO, Plain),
        o("--args", NO, Plain),
        o("--max-ppsize", REQ, Plain),
        o("--min-vsize", REQ, Plain),
        o("--min-nsize", REQ, Plain),
        o("--encoding", REQ, Plain),
    ],
    exact_only: true,
    examples: &[ex("Rscript·-e·system('id')", Expect::Risky(&["-e"]))],
    ..GETOPT
};
