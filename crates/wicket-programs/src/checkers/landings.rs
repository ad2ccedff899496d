//! Programs whose input names the files they write (issue 39, class 6): a patch names the
//! files it creates and edits, a recursive copy writes whatever its source folder holds, an
//! archive restores the names stored in it. The hard question: where do the bytes land, when
//! the line only names the patch, the folder or the archive? Those targets are known only when
//! the command runs, so the checker says where to look ([`Landing`]) and the engine reads the
//! patch or lists the folder at decision time (and asks when it cannot).

use super::{has_flag, Effects};

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
    e.landings.push(Landing::Patch { file, strip, dir });
}

/// `git apply`: every operand is a patch (none: stdin); `-p N` (default 1) and `--directory`
/// shape the names; `--check`, `--stat`, `--numstat` and `--summary` only read unless
/// `--apply` is given.
pub(crate) fn git_apply(args: &[&str], e: &mut Effects) {
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
        e.landings.push(Landing::Patch { file, strip, dir: dir.clone() });
    }
}

/// A recursive copy (`cp -r`, `rsync -r`): each source folder lands below the destination,
/// so the engine lists it. `slash_contents`: a source ending in `/` copies its contents
/// (rsync); for cp only `SRC/.` does.
pub(crate) fn copy_tree(args: &[&str], letters: &[char], longs: &[&str], slash_contents: bool, e: &mut Effects) {
    if !has_flag(args, letters, longs) {
        return;
    }
    // Every operand that is a folder is read below (a secret copied is a secret read).
    e.recursive.extend(args.iter().filter(|w| !w.starts_with('-')).map(|w| w.to_string()));
    let mut ops = Vec::new();
    let mut target = None;
    let mut end = false;
    let mut k = 0;
    while let Some(w) = args.get(k) {
        k += 1;
        if end || !w.starts_with('-') || *w == "-" {
            ops.push(w.to_string());
        } else if *w == "--" {
            end = true;
        } else if *w == "-t" || *w == "--target-directory" {
            target = args.get(k).map(|s| s.to_string());
            k += 1;
        } else if let Some(t) = w.strip_prefix("--target-directory=") {
            target = Some(t.to_string());
        } else if let Some(t) = w.strip_prefix("-t").filter(|t| !t.is_empty() && !w.starts_with("--")) {
            target = Some(t.to_string());
        }
    }
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
