//! Programs that create, change, delete, compare or search files, whose options wicket does not read (yet): their records hold what the engine must know about their operands and jobs.
//!
//! To add one: a `static` here with its names and facts, then an entry in `KNOWN` (kept
//! sorted; `tests/registry.rs`).

use crate::checkers::Checker;
use crate::facts::{ex, Expect};
use crate::facts::{Does, Job, Writes};
use crate::grammar::Program;
use crate::programs::RUNNER;

/// `7z`, `7za`, `7zr`.
pub(crate) static SEVEN_Z: Program = Program {
    names: &["7z", "7za", "7zr"],
    source: "no option table: facts only",
    checker: Checker::SevenZip,
    examples: &[ex("7z l a.7z", Expect::Plain)],
    ..RUNNER
};

/// `ack`, `ack-grep`.
pub(crate) static ACK: Program = Program {
    names: &["ack", "ack-grep"],
    source: "no option table: facts only",
    checker: Checker::Searcher,
    examples: &[ex("ack foo", Expect::Plain)],
    ..RUNNER
};

/// `ag`.
pub(crate) static AG: Program = Program {
    names: &["ag"],
    source: "no option table: facts only",
    checker: Checker::Searcher,
    examples: &[ex("ag foo", Expect::Plain)],
    ..RUNNER
};

/// `ar`: `x` extracts the members under the names stored in the archive.
pub(crate) static AR: Program = Program {
    names: &["ar"],
    source: "GNU binutils 2.40, ar(1): no option table, facts only",
    checker: Checker::StoredNames { flags: &[], longs: &[], keys: &['x'] },
    examples: &[ex("ar t lib.a", Expect::Plain), ex("ar rcs lib.a a.o", Expect::Plain)],
    ..RUNNER
};

/// `bsdtar`.
pub(crate) static BSDTAR: Program = Program {
    names: &["bsdtar"],
    source: "no option table: facts only",
    checker: Checker::Tar,
    examples: &[ex("bsdtar -tf a.tar", Expect::Plain)],
    ..RUNNER
};

/// `cat`: git may use it as a pager.
pub(crate) static CAT: Program = Program {
    names: &["cat"],
    source: "no option table: facts only",
    only_reads: true,
    pages: true,
    makes_no_links: true,
    copies_stdin: true,
    examples: &[ex("cat README.md", Expect::Plain)],
    ..RUNNER
};

/// `chgrp`.
pub(crate) static CHGRP: Program = Program {
    names: &["chgrp"],
    source: "no option table: facts only",
    exact_only: true,
    writes: Writes::AfterFirst,
    examples: &[ex("chgrp staff f", Expect::Writes(&["f"]))],
    ..RUNNER
};

/// `chmod`.
pub(crate) static CHMOD: Program = Program {
    names: &["chmod"],
    source: "no option table: facts only",
    exact_only: true,
    writes: Writes::AfterFirst,
    examples: &[ex("chmod +x a.sh", Expect::Writes(&["a.sh"]))],
    ..RUNNER
};

/// `chown`.
pub(crate) static CHOWN: Program = Program {
    names: &["chown"],
    source: "no option table: facts only",
    exact_only: true,
    writes: Writes::AfterFirst,
    examples: &[ex("chown bob f", Expect::Writes(&["f"]))],
    ..RUNNER
};

/// `cpio`.
pub(crate) static CPIO: Program = Program {
    names: &["cpio"],
    source: "no option table: facts only",
    checker: Checker::Cpio,
    examples: &[ex("cpio -o", Expect::Plain)],
    ..RUNNER
};

/// `cpp`.
pub(crate) static CPP: Program = Program {
    names: &["cpp"],
    source: "no option table: facts only",
    checker: Checker::SecondOperand(&["-o", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-x", "-std"]),
    examples: &[ex("cpp in.c out.i", Expect::Writes(&["out.i"]))],
    ..RUNNER
};

/// `dd`.
pub(crate) static DD: Program = Program {
    names: &["dd"],
    source: "no option table: facts only",
    exact_only: true,
    writes: Writes::OfOperand,
    examples: &[ex("dd if=a of=b", Expect::Writes(&["b"]))],
    ..RUNNER
};

/// `diff`.
pub(crate) static DIFF: Program = Program {
    names: &["diff"],
    source: "no option table: facts only",
    only_reads: true,
    checker: Checker::Recursive { letters: &['r'], longs: &["--recursive"] },
    makes_no_links: true,
    examples: &[ex("diff a b", Expect::Plain)],
    ..RUNNER
};

/// `du`. It reads, and makes no file, link or folder.
pub(crate) static DU: Program = Program {
    names: &["du"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("du -sh src", Expect::Plain)],
    ..RUNNER
};

/// `grep`, `egrep`, `fgrep`, `ggrep`.
pub(crate) static GREP: Program = Program {
    names: &["grep", "egrep", "fgrep", "ggrep"],
    source: "no option table: facts only",
    only_reads: true,
    checker: Checker::Grep,
    makes_no_links: true,
    examples: &[ex("grep -r x src", Expect::Plain)],
    ..RUNNER
};

/// `gzip`, `gunzip`: `-N` restores the file name stored in the archive.
pub(crate) static GZIP: Program = Program {
    names: &["gzip", "gunzip"],
    source: "GNU gzip 1.12, gzip(1): no option table, facts only",
    checker: Checker::StoredNames { flags: &['N'], longs: &["--name"], keys: &[] },
    examples: &[ex("gunzip x.gz", Expect::Plain)],
    ..RUNNER
};

/// `install`.
pub(crate) static INSTALL: Program = Program {
    names: &["install"],
    source: "no option table: facts only",
    writes: Writes::LastUnlessDest,
    examples: &[ex("install a /usr/local/bin/a", Expect::Writes(&["/usr/local/bin/a"]))],
    ..RUNNER
};

/// `ln`.
pub(crate) static LN: Program = Program {
    names: &["ln"],
    source: "no option table: facts only",
    exact_only: true,
    writes: Writes::Link,
    examples: &[ex("ln -s ~/.ssh/id_rsa k", Expect::Writes(&["k"]))],
    ..RUNNER
};

/// `ls`. It lists names and makes no file, link or folder; it opens no file for its contents.
pub(crate) static LS: Program = Program {
    names: &["ls"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    names_only: true,
    examples: &[ex("ls -la src", Expect::Plain)],
    ..RUNNER
};

/// `mkdir`.
pub(crate) static MKDIR: Program = Program {
    names: &["mkdir"],
    source: "no option table: facts only",
    writes: Writes::Folders,
    examples: &[ex("mkdir -p a/b", Expect::Writes(&["a/b"]))],
    ..RUNNER
};

/// `mkfifo`.
pub(crate) static MKFIFO: Program = Program {
    names: &["mkfifo"],
    source: "no option table: facts only",
    writes: Writes::Operands,
    examples: &[ex("mkfifo p", Expect::Writes(&["p"]))],
    ..RUNNER
};

/// `mkfs`.
pub(crate) static MKFS: Program = Program {
    names: &["mkfs"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("mkfs /dev/sdz", Expect::Plain)],
    ..RUNNER
};

/// `mount`, `umount`.
pub(crate) static MOUNT: Program = Program {
    names: &["mount", "umount"],
    source: "no option table: facts only",
    exact_only: true,
    examples: &[ex("mount", Expect::Plain)],
    ..RUNNER
};

/// `patch`: writes the files its patch names, read at decision time.
pub(crate) static PATCH: Program = Program {
    names: &["patch"],
    source: "GNU patch 2.7.6, patch(1): no option table, facts only",
    checker: Checker::Patch,
    examples: &[
        ex("patch -o out.c a.c fix.diff", Expect::Writes(&["out.c"])),
        ex("patch --dry-run -p1", Expect::Plain),
    ],
    ..RUNNER
};

/// `rmdir`.
pub(crate) static RMDIR: Program = Program {
    names: &["rmdir"],
    source: "no option table: facts only",
    exact_only: true,
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    writes: Writes::Operands,
    examples: &[ex("rmdir a", Expect::Writes(&["a"]))],
    ..RUNNER
};

/// `shred`.
pub(crate) static SHRED: Program = Program {
    names: &["shred"],
    source: "no option table: facts only",
    exact_only: true,
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    writes: Writes::Operands,
    examples: &[ex("shred -u x", Expect::Writes(&["x"]))],
    ..RUNNER
};

/// `srm`.
pub(crate) static SRM: Program = Program {
    names: &["srm"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    examples: &[ex("srm x", Expect::Plain)],
    ..RUNNER
};

/// `stat`. It reads what the file system says about a file, never its contents, and makes no
/// file, link or folder.
pub(crate) static STAT: Program = Program {
    names: &["stat"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    names_only: true,
    examples: &[ex("stat README.md", Expect::Plain)],
    ..RUNNER
};

/// `tee`.
pub(crate) static TEE: Program = Program {
    names: &["tee"],
    source: "no option table: facts only",
    writes: Writes::Operands,
    examples: &[ex("tee out", Expect::Writes(&["out"]))],
    ..RUNNER
};

/// `touch`.
pub(crate) static TOUCH: Program = Program {
    names: &["touch"],
    source: "no option table: facts only",
    writes: Writes::Operands,
    examples: &[ex("touch a b", Expect::Writes(&["a", "b"]))],
    ..RUNNER
};

/// `tr`. It reads, and makes no file, link or folder.
pub(crate) static TR: Program = Program {
    names: &["tr"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("tr a-z A-Z", Expect::Plain)],
    ..RUNNER
};

/// `truncate`.
pub(crate) static TRUNCATE: Program = Program {
    names: &["truncate"],
    source: "no option table: facts only",
    exact_only: true,
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    writes: Writes::Operands,
    examples: &[ex("truncate --size=0 f", Expect::Writes(&["f"]))],
    ..RUNNER
};

/// `unlink`.
pub(crate) static UNLINK: Program = Program {
    names: &["unlink"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    writes: Writes::Operands,
    examples: &[ex("unlink x", Expect::Writes(&["x"]))],
    ..RUNNER
};

/// `unzip`.
pub(crate) static UNZIP: Program = Program {
    names: &["unzip"],
    source: "no option table: facts only",
    only_reads: true,
    checker: Checker::Unzip,
    examples: &[ex("unzip -l a.zip", Expect::Plain)],
    ..RUNNER
};

/// `basename`: prints a name without its folder; it opens nothing. Its words only reach its output (GNU coreutils 9.1: `-a`, `-s SUFFIX`, `-z`, none names a file), so whatever a word holds it reads, writes and runs nothing.
pub(crate) static BASENAME: Program = Program {
    names: &["basename"],
    source: "no option table: facts only",
    only_prints: true,
    makes_no_links: true,
    examples: &[ex("basename src/lib.rs", Expect::Plain)],
    ..RUNNER
};

/// `cmp`: compares two files byte by byte and reports where they differ. It only reads, and makes no file, link or folder.
pub(crate) static CMP: Program = Program {
    names: &["cmp"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("cmp a.bin b.bin", Expect::Plain)],
    ..RUNNER
};

/// `comm`: compares two sorted files line by line. It only reads, and makes no file, link or folder.
pub(crate) static COMM: Program = Program {
    names: &["comm"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("comm a.txt b.txt", Expect::Plain)],
    ..RUNNER
};

/// `dirname`: prints a name's folder; it opens nothing. Its words only reach its output (GNU coreutils 9.1: `-a`, `-s SUFFIX`, `-z`, none names a file), so whatever a word holds it reads, writes and runs nothing.
pub(crate) static DIRNAME: Program = Program {
    names: &["dirname"],
    source: "no option table: facts only",
    only_prints: true,
    makes_no_links: true,
    examples: &[ex("dirname src/lib.rs", Expect::Plain)],
    ..RUNNER
};

/// `fold`: wraps its input's lines. It only reads, and makes no file, link or folder.
pub(crate) static FOLD: Program = Program {
    names: &["fold"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("fold -w 80 README.md", Expect::Plain)],
    ..RUNNER
};

/// `hexdump`, `hd`: prints a file's bytes. It only reads, and makes no file, link or folder.
pub(crate) static HEXDUMP: Program = Program {
    names: &["hexdump", "hd"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("hexdump -C a.bin", Expect::Plain)],
    ..RUNNER
};

/// `nl`: prints a file with line numbers. It only reads, and makes no file, link or folder.
pub(crate) static NL: Program = Program {
    names: &["nl"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("nl src/lib.rs", Expect::Plain)],
    ..RUNNER
};

/// `od`: prints a file's bytes. It only reads, and makes no file, link or folder.
pub(crate) static OD: Program = Program {
    names: &["od"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("od -c a.bin", Expect::Plain)],
    ..RUNNER
};

/// `paste`: joins files' lines side by side. It only reads, and makes no file, link or folder.
pub(crate) static PASTE: Program = Program {
    names: &["paste"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("paste a.txt b.txt", Expect::Plain)],
    ..RUNNER
};

/// `readlink`: prints where a link leads; it opens no file for its contents. It only reads, and makes no file, link or folder.
pub(crate) static READLINK: Program = Program {
    names: &["readlink"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("readlink -f src", Expect::Plain)],
    ..RUNNER
};

/// `realpath`: prints a name's real path; it opens no file for its contents. It only reads, and makes no file, link or folder.
pub(crate) static REALPATH: Program = Program {
    names: &["realpath"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("realpath src/../README.md", Expect::Plain)],
    ..RUNNER
};

/// `rev`: prints its input's lines reversed. It only reads, and makes no file, link or folder.
pub(crate) static REV: Program = Program {
    names: &["rev"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("rev names.txt", Expect::Plain)],
    ..RUNNER
};

/// `strings`: prints the text found in a file. It only reads, and makes no file, link or folder.
pub(crate) static STRINGS: Program = Program {
    names: &["strings"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("strings a.bin", Expect::Plain)],
    ..RUNNER
};

/// The checksum programs of GNU coreutils (one source, md5sum.c and cksum.c): each prints its files' digests; `-c` reads a list of digests and the files it names, and reports which match. It only reads, and makes no file, link or folder.
pub(crate) static SUMS: Program = Program {
    names: &["md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("sha256sum Cargo.lock", Expect::Plain)],
    ..RUNNER
};

/// `tac`: prints a file's lines last first. It only reads, and makes no file, link or folder.
pub(crate) static TAC: Program = Program {
    names: &["tac"],
    source: "no option table: facts only",
    only_reads: true,
    makes_no_links: true,
    examples: &[ex("tac log.txt", Expect::Plain)],
    ..RUNNER
};

/// `wipe`.
pub(crate) static WIPE: Program = Program {
    names: &["wipe"],
    source: "no option table: facts only",
    jobs: &[Does { job: Job::Deletes, when: &[] }],
    examples: &[ex("wipe x", Expect::Plain)],
    ..RUNNER
};

/// `xxd`.
pub(crate) static XXD: Program = Program {
    names: &["xxd"],
    source: "no option table: facts only",
    only_reads: true,
    checker: Checker::SecondOperand(&["-c", "-g", "-l", "-o", "-s", "-n", "-C", "-R"]),
    examples: &[ex("xxd -r in out", Expect::Writes(&["out"]))],
    ..RUNNER
};
