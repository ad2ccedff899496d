//! Programs whose input names the files they write (issue 39, class 6): a patch names the
//! files it creates and edits, a recursive copy writes whatever its source folder holds, an
//! archive restores the names stored in it. The hard question: where do the bytes land, when
//! the line only names the patch, the folder or the archive? Those targets are known only when
//! the command runs, so the checker says where to look ([`Landing`]) and the engine reads the
//! patch or lists the folder at decision time (and asks when it cannot).

use super::{has_flag, Effects};
use crate::{Effect, Program};

/// Where a command's writes are named: input the engine reads at decision time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Landing {
    /// A unified or git diff whose headers name the files written (`patch -i F`, `git apply F`).
    Patch {
        /// The patch file; `None` when it comes from stdin (the shell reader fills in a `<`
        /// redirection's file; a pipe stays `None`).
        file: Option<String>,
        /// Leading path steps removed from each name (`-p N`); `None` when the program picks
        /// (GNU patch without `-p` may use any tail of the name, so every tail is judged).
        strip: Option<usize>,
        /// The folder names are taken against (`patch -d DIR`, `git apply --directory=DIR`).
        dir: Option<String>,
        /// The patch's text when the line holds it (a here-document on stdin; the shell
        /// reader fills it in).
        text: Option<String>,
    },
    /// A folder copied with everything below it (`cp -r SRC DEST`).
    Copy {
        /// The source folder as written.
        src: String,
        /// The destination as written.
        dest: String,
        /// The source's contents land in `dest` itself (`cp -r SRC/. DEST`, `rsync SRC/ DEST`);
        /// otherwise a folder named after the source lands there when `dest` is a folder.
        contents: bool,
        /// `dest` is a folder the option named (`cp -t DIR`): never the copy's own name.
        into: bool,
    },
    /// A path git writes from another tree (`git checkout REV -- PATH`, `git restore
    /// --source`): when it is a folder, git writes whatever that tree holds below it.
    Tree {
        /// The pathspec as written.
        path: String,
    },
}

/// GNU patch 2.7 options that take a value as the next word (or glued).
const PATCH_WITH_VALUE: &[&str] = &[
    "-B",
    "-D",
    "-F",
    "-V",
    "-Y",
    "-d",
    "-g",
    "-i",
    "-o",
    "-p",
    "-r",
    "-z",
    "--backup-if-mismatch",
    "--basename-prefix",
    "--directory",
    "--fuzz",
    "--get",
    "--ifdef",
    "--input",
    "--output",
    "--prefix",
    "--quoting-style",
    "--read-only",
    "--reject-file",
    "--strip",
    "--suffix",
    "--version-control",
];

/// GNU patch: the patch is `-i FILE`, the second operand, or stdin; `-o FILE` and a first
/// operand (the file to patch) are written as named; `--dry-run` writes nothing.
pub(crate) fn patch(args: &[&str], e: &mut Effects) {
    let mut input = None;
    let mut strip = None;
    let mut dir = None;
    let mut output = None;
    let mut dry = false;
    let mut operands = Vec::new();
    let mut end = false;
    let mut k = 0;
    while let Some(w) = args.get(k) {
        k += 1;
        if end || !w.starts_with('-') || *w == "-" {
            operands.push(w.to_string());
            continue;
        }
        if *w == "--" {
            end = true;
            continue;
        }
        // The option's name and value (`--input=F`, `--input F`, `-iF`, `-i F`).
        let (name, glued) = match w.strip_prefix("--") {
            Some(long) => match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v.to_string())),
                None => (w.to_string(), None),
            },
            None => {
                // A cluster of flags up to the first letter that takes a value (`-Rp1`).
                let letters: Vec<char> = w.chars().skip(1).collect();
                let mut found = None;
                for (i, c) in letters.iter().enumerate() {
                    let n = format!("-{c}");
                    if PATCH_WITH_VALUE.contains(&n.as_str()) {
                        let rest: String = letters[i + 1..].iter().collect();
                        found = Some((n, (!rest.is_empty()).then_some(rest)));
                        break;
                    }
                }
                found.unwrap_or((w.to_string(), None))
            }
        };
        if name == "--dry-run" || name == "--dry" {
            dry = true;
            continue;
        }
        let takes = PATCH_WITH_VALUE.contains(&name.as_str());
        let value = match glued {
            Some(v) => Some(v),
            None if takes => {
                k += 1;
                args.get(k - 1).map(|s| s.to_string())
            }
            None => None,
        };
        match name.as_str() {
            "-i" | "--input" => input = value,
            "-p" | "--strip" => strip = value.and_then(|v| v.parse::<usize>().ok()),
            "-d" | "--directory" => dir = value,
            "-o" | "--output" => output = value,
            _ => {}
        }
    }
    if dry {
        return;
    }
    let mut ops = operands.into_iter();
    let orig = ops.next();
    if input.is_none() {
        input = ops.next();
    }
    let at = |p: String| match &dir {
        Some(d) if !p.starts_with('/') => format!("{}/{p}", d.trim_end_matches('/')),
        _ => p,
    };
    if let Some(o) = output {
        // `-o -` prints the result.
        if o != "-" {
            e.writes.push(at(o));
        }
        return;
    }
    if let Some(o) = orig {
        // The file to patch is named: only it is written.
        e.writes.push(at(o));
        return;
    }
    let file = input.filter(|f| f != "-").map(|f| f.to_string());
    e.landings.push(Landing::Patch { file, strip, dir, text: None });
}

/// `git apply`, read with its option table (abbreviations and `--no-` as git reads them):
/// every operand is a patch (none: stdin); `-p N` (default 1) and `--directory` shape the
/// names; `--check`, `--stat`, `--numstat` and `--summary` only read, unless `--apply` is
/// given or an option is turned off (`--check --no-check` applies: checked with git 2.47.3).
/// An option the table does not know leaves it applying.
pub(crate) fn git_apply(args: &[&str], e: &mut Effects) {
    let table = crate::grammar::git_apply_table();
    let parsed = table.parse(args);
    if parsed.unknown.is_empty() && table.reads_only_by(&parsed.found) {
        return;
    }
    let value = |name: &str| parsed.found.iter().rev().find(|f| f.opt.name() == name).and_then(|f| f.value.clone());
    let strip = match value("-p") {
        Some(v) => v.parse::<usize>().ok(),
        None => Some(1),
    };
    let dir = value("--directory");
    let mut files = parsed.operands.clone();
    if files.is_empty() {
        files.push("-".to_string());
    }
    for f in files {
        let file = (f != "-").then_some(f);
        e.landings.push(Landing::Patch { file, strip, dir: dir.clone(), text: None });
    }
}

/// The patches of `git am` (read by hand: am's options are not apply's): every operand is a
/// mailbox (none: stdin); `-p N` (default 1) and `--directory` shape the names.
fn am_patches(args: &[&str], e: &mut Effects) {
    const WITH_VALUE: &[&str] =
        &["-p", "-C", "--directory", "--include", "--exclude", "--whitespace", "--build-fake-ancestor"];
    let mut strip = Some(1);
    let mut dir = None;
    let (mut reads_only, mut apply) = (false, false);
    let mut files = Vec::new();
    let mut end = false;
    let mut k = 0;
    while let Some(w) = args.get(k) {
        k += 1;
        if end || !w.starts_with('-') || *w == "-" {
            files.push(w.to_string());
            continue;
        }
        if *w == "--" {
            end = true;
            continue;
        }
        let (name, value) = match w.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ if WITH_VALUE.contains(w) => {
                k += 1;
                (w.to_string(), args.get(k - 1).map(|s| s.to_string()))
            }
            _ if w.starts_with("-p") || w.starts_with("-C") => (w[..2].to_string(), Some(w[2..].to_string())),
            _ => (w.to_string(), None),
        };
        match name.as_str() {
            "-p" => strip = value.and_then(|v| v.parse::<usize>().ok()),
            "--directory" => dir = value,
            "--check" | "--stat" | "--numstat" | "--summary" => reads_only = true,
            "--apply" => apply = true,
            _ => {}
        }
    }
    if reads_only && !apply {
        return;
    }
    if files.is_empty() {
        files.push("-".to_string());
    }
    for f in files {
        let file = (f != "-").then_some(f);
        e.landings.push(Landing::Patch { file, strip, dir: dir.clone(), text: None });
    }
}

/// `git am`: each operand is a mailbox whose patches git applies as `git apply` does (none:
/// stdin); `-p N` and `--directory` shape the names. The options that go on with or stop a
/// session already begun (`--continue`, `--skip`, `--abort` …) read no new mailbox: the
/// patches they apply were split into the git folder by the call that began it.
pub(crate) fn git_am(args: &[&str], e: &mut Effects) {
    const SESSION: &[&str] = &[
        "--continue",
        "--resolved",
        "-r",
        "--skip",
        "--abort",
        "--quit",
        "--show-current-patch",
        "--retry",
        "--allow-empty",
    ];
    if args.iter().any(|w| SESSION.contains(w) || w.starts_with("--show-current-patch=")) {
        return;
    }
    am_patches(args, e);
}

/// A recursive copy (`cp -r`, `rsync -r`): each source folder lands below the destination,
/// so the engine lists it. The argv is read with the program's own table (`cp -rt DIR`, `-S
/// SUFFIX`), the destination folder an option names (`Dest`) taken over the last operand.
/// `slash_contents`: a source ending in `/` copies its contents (rsync); for cp only `SRC/.`
/// does.
pub(crate) fn copy_tree(
    record: &'static Program,
    args: &[&str],
    letters: &[char],
    longs: &[&str],
    slash_contents: bool,
    e: &mut Effects,
) {
    if !has_flag(args, letters, longs) {
        return;
    }
    // Every operand that is a folder is read below (a secret copied is a secret read).
    e.recursive.extend(args.iter().filter(|w| !w.starts_with('-')).map(|w| w.to_string()));
    let parsed = record.parse(args);
    if !parsed.unknown.is_empty() {
        e.unknown_writes.push(format!(
            "the copy's options {} are not known, so where its files land is not either",
            parsed.unknown.join(" ")
        ));
        return;
    }
    let target = parsed.found.iter().find(|f| f.opt.effect == Effect::Dest).and_then(|f| f.value.clone());
    let ops = parsed.operands;
    let (dest, srcs, into) = match target {
        Some(t) => (t, ops, true),
        None => match ops.split_last() {
            Some((d, s)) if !s.is_empty() => (d.clone(), s.to_vec(), false),
            _ => return,
        },
    };
    for src in srcs {
        // `HOST:PATH` (rsync, scp): a folder on another machine nobody here can list.
        let remote = src.split_once(':').is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'));
        if slash_contents && remote {
            e.unknown_writes.push(format!("the copy writes whatever the remote folder `{src}` holds"));
            continue;
        }
        let contents = src == "." || src.ends_with("/.") || (slash_contents && src.ends_with('/'));
        e.landings.push(Landing::Copy { src, dest: dest.clone(), contents, into });
    }
}

/// Programs that write files under names stored in their input (`gunzip -N`, `ar x`): when
/// one of the flags is given, or the first word (the key of `ar`) holds one of the key
/// letters, the names are known only when it runs.
pub(crate) fn stored_names(name: &str, args: &[&str], flags: &[char], longs: &[&str], keys: &[char], e: &mut Effects) {
    let key = args.first().is_some_and(|k| {
        let k = k.strip_prefix('-').unwrap_or(k);
        !k.starts_with('-') && k.chars().any(|c| keys.contains(&c))
    });
    if key || has_flag(args, flags, longs) {
        e.unknown_writes.push(format!("`{name}` writes files under the names stored in its input"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkers::effects;

    fn eff(cmd: &str) -> Effects {
        let words: Vec<&str> = cmd.split(' ').collect();
        effects(&words)
    }

    fn patch_of(file: Option<&str>, strip: Option<usize>, dir: Option<&str>) -> Landing {
        Landing::Patch { file: file.map(str::to_string), strip, dir: dir.map(str::to_string), text: None }
    }

    #[test]
    fn patches_name_their_own_files() {
        assert_eq!(eff("patch -p1 -i fix.diff").landings, vec![patch_of(Some("fix.diff"), Some(1), None)]);
        assert_eq!(eff("patch -Np1 --input=f.diff").landings, vec![patch_of(Some("f.diff"), Some(1), None)]);
        assert_eq!(eff("patch -d sub -p0").landings, vec![patch_of(None, Some(0), Some("sub"))]);
        // `patch ORIG PATCH` and `-o OUT` write only the file named.
        let e = eff("patch a.c fix.diff");
        assert_eq!((e.writes, e.landings), (vec!["a.c".to_string()], vec![]));
        assert_eq!(eff("patch -o out.c -i f.diff").writes, vec!["out.c"]);
        assert!(eff("patch --dry-run -p1 -i f.diff").landings.is_empty());
        assert_eq!(eff("git apply x.diff y.diff").landings.len(), 2);
        assert_eq!(
            eff("git apply -p2 --directory=sub x.diff").landings,
            vec![patch_of(Some("x.diff"), Some(2), Some("sub"))]
        );
        assert_eq!(eff("git apply").landings, vec![patch_of(None, Some(1), None)]);
        assert!(eff("git apply --check x.diff").landings.is_empty());
        assert_eq!(eff("git apply --check --apply x.diff").landings.len(), 1);
        // As git reads them (2.47.3): a turned-off check applies, an abbreviated `--apply`
        // applies, an abbreviated `--directory` places the names.
        for applies in [
            "git apply --check --no-check x.diff",
            "git apply --stat --no-stat x.diff",
            "git apply --check --appl x.diff",
            "git apply --apply --check x.diff",
            "git apply --check --unknown-option x.diff",
        ] {
            assert_eq!(eff(applies).landings.len(), 1, "{applies}");
        }
        assert!(eff("git apply --che --summ x.diff").landings.is_empty());
        assert_eq!(
            eff("git apply --dir=.vscode -p0 x.diff").landings,
            vec![patch_of(Some("x.diff"), Some(0), Some(".vscode"))]
        );
        assert_eq!(eff("git apply -p2 x.diff").landings, vec![patch_of(Some("x.diff"), Some(2), None)]);
        assert_eq!(eff("git am x.mbox").landings, vec![patch_of(Some("x.mbox"), Some(1), None)]);
        assert!(eff("git am --continue").landings.is_empty());
    }

    #[test]
    fn copies_land_below_the_destination() {
        let copy = |src: &str, dest: &str, contents: bool, into: bool| Landing::Copy {
            src: src.to_string(),
            dest: dest.to_string(),
            contents,
            into,
        };
        assert_eq!(eff("cp -r tpl/. .").landings, vec![copy("tpl/.", ".", true, false)]);
        assert_eq!(eff("cp -a a b out").landings, vec![copy("a", "out", false, false), copy("b", "out", false, false)]);
        assert_eq!(eff("cp -rt out a").landings, vec![copy("a", "out", false, true)]);
        assert!(eff("cp a b").landings.is_empty());
        assert_eq!(eff("rsync -a tpl/ out").landings, vec![copy("tpl/", "out", true, false)]);
        let e = eff("rsync -a host:tpl/ .");
        assert!(e.landings.is_empty() && !e.unknown_writes.is_empty());
    }

    #[test]
    fn git_writes_named_paths_from_another_tree() {
        let e = eff("git checkout evil -- .claude/settings.json");
        assert_eq!(e.writes, vec![".claude/settings.json"]);
        assert_eq!(e.landings, vec![Landing::Tree { path: ".claude/settings.json".to_string() }]);
        assert_eq!(eff("git restore --source=evil .vscode").writes, vec![".vscode"]);
        assert_eq!(eff("git restore -s evil -- a b").writes, vec!["a", "b"]);
        assert!(!eff("git checkout evil -- .").unknown_writes.is_empty());
        assert!(!eff("git checkout evil :/").unknown_writes.is_empty());
        // From the index: the paths are writes, nothing is hidden.
        let e = eff("git checkout -- .");
        assert!(e.unknown_writes.is_empty() && e.landings.is_empty());
        assert!(eff("git checkout -b topic").writes.is_empty());
        assert_eq!(eff("git mv a .github/workflows/").writes, vec![".github/workflows/", ".github/workflows/a", "a"]);
        assert!(!eff("git checkout --pathspec-from-file=l evil").unknown_writes.is_empty());
    }

    #[test]
    fn stored_names_are_unknown_writes() {
        assert!(!eff("gunzip -N x.gz").unknown_writes.is_empty());
        assert!(!eff("gzip -dN x.gz").unknown_writes.is_empty());
        assert!(eff("gunzip x.gz").unknown_writes.is_empty());
        assert!(!eff("ar x lib.a").unknown_writes.is_empty());
        assert!(!eff("ar -xv lib.a").unknown_writes.is_empty());
        assert!(eff("ar rcs lib.a a.o").unknown_writes.is_empty());
    }
}
