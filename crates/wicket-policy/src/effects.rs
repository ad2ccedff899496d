//! What a program does with its sub-commands and operands, beyond its options: configuration
//! writes that make later commands run code, package specs that install from a source the rule
//! does not name, files written under names the command never spells, process environments
//! read, and folders read recursively.
//!
//! The hard question: when an allow rule's `*` covers an argv, what can the argv still do that
//! the rule's author did not see? Each finding here is either a word a rule must spell out
//! (`risky`), a write no rule can cover (`unknown_writes`), a file read or written that the path
//! checks must see (`reads`, `writes`), a secret read outright (`environment`), or folders the
//! program reads everything below (`recursive`). Option effects (`-o`, `-x`, `--prefix`) are
//! the option tables' job (`wicket-programs`' `grammar.rs`, `flags.rs`); this module reads sub-commands and
//! operands as each program does.

/// What one argv does that its options alone do not say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effects {
    /// Words an allow rule must spell out (`pkg set`, `config set`, a package spec that is a
    /// path or URL).
    pub risky: Vec<String>,
    /// Files written, named by operands (`uniq IN OUT`, `git config -f FILE`).
    pub writes: Vec<String>,
    /// Why the command writes files whose names it does not spell (`curl -O`, `wget URL`,
    /// `tar -x`): no rule can cover these.
    pub unknown_writes: Vec<String>,
    /// Why the command reads the environment of processes (`ps e`): a secret read.
    pub environment: Option<String>,
    /// Folders the program reads everything below (`grep -r x DIR`); `.` when it defaults to
    /// the working folder. The engine decides whether a secret lies below.
    pub recursive: Vec<String>,
    /// The recursive reader skips dot files unless told otherwise (`rg` without `--hidden`).
    pub skips_hidden: bool,
}

fn base(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// Operands of a GNU-style argv: words that are not options, `--` ending the options. Values
/// of the listed options (`-w NAME`) are skipped.
fn operands<'a>(args: &[&'a str], with_value: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut end = false;
    let mut skip = false;
    for w in args {
        if skip {
            skip = false;
            continue;
        }
        if end || !w.starts_with('-') || *w == "-" {
            out.push(*w);
        } else if *w == "--" {
            end = true;
        } else if with_value.contains(w) {
            skip = true;
        }
    }
    out
}

/// Does a short cluster (`-rn`) or any word equal to a long name hold the flag?
fn has_flag(args: &[&str], letters: &[char], longs: &[&str]) -> bool {
    args.iter().take_while(|w| **w != "--").any(|w| {
        if let Some(l) = w.strip_prefix("--") {
            let name = l.split('=').next().unwrap_or(l);
            longs.iter().any(|x| x.trim_start_matches('-') == name)
        } else if let Some(c) = w.strip_prefix('-') {
            c.chars().next().is_some_and(|f| f.is_ascii_alphabetic()) && c.chars().any(|ch| letters.contains(&ch))
        } else {
            false
        }
    })
}

/// The effects of one argv (program first, static words).
pub fn of(words: &[&str]) -> Effects {
    let mut e = Effects::default();
    let Some(program) = words.first() else { return e };
    let args = &words[1..];
    match base(program) {
        "npm" | "pnpm" | "yarn" | "bun" => package_js(base(program), args, &mut e),
        "pip" | "pip3" | "pipx" | "poetry" | "pdm" => package_py(base(program), args, &mut e),
        "uv" => match args.first().copied() {
            Some("pip") => package_py("pip", &args[1..], &mut e),
            Some("add" | "tool") => package_py("uv", args, &mut e),
            _ => {}
        },
        "python" | "python3" | "python2" | "py" if args.len() >= 2 && args[0] == "-m" && args[1] == "pip" => {
            package_py("pip", &args[2..], &mut e)
        }
        "cargo" if args.first() == Some(&"install") => {
            for w in &args[1..] {
                for name in ["--git", "--path"] {
                    if *w == name || w.starts_with(&format!("{name}=")) {
                        e.risky.push(name.to_string());
                    }
                }
            }
        }
        "git" => git_config_writes(args, &mut e),
        // Positional outputs: the second operand is the file written.
        "uniq" | "cpp" | "xxd" => {
            let with_value: &[&str] = match base(program) {
                "uniq" => &["-f", "-s", "-w"],
                "cpp" => &["-o", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-x", "-std"],
                _ => &["-c", "-g", "-l", "-o", "-s", "-n", "-C", "-R"],
            };
            if let Some(out) = operands(args, with_value).get(1) {
                if *out != "-" {
                    e.writes.push(out.to_string());
                }
            }
        }
        "tar" | "gtar" | "bsdtar" if tar_extracts(args) => {
            e.unknown_writes.push(format!("`{}` extracts files named inside the archive", base(program)));
        }
        "unzip" if !has_flag(args, &['l', 't', 'v', 'Z', 'p', 'c', 'z'], &[]) && !args.is_empty() => {
            e.unknown_writes.push("`unzip` extracts files named inside the archive".to_string());
        }
        "cpio" if has_flag(args, &['i', 'p'], &["--extract", "--pass-through"]) => {
            e.unknown_writes.push("`cpio` writes files named inside the archive".to_string());
        }
        "7z" | "7za" | "7zr" if matches!(args.first().copied(), Some("x" | "e")) => {
            e.unknown_writes.push("`7z` extracts files named inside the archive".to_string());
        }
        "curl" => curl_remote_names(args, &mut e),
        "wget" | "wget2" => wget_url_names(args, &mut e),
        "aria2c" | "axel" | "lwp-download" => {
            e.unknown_writes.push(format!("`{}` saves files named by the URL", base(program)));
        }
        "ps" => {
            // BSD-style words (no dash) holding `e` show each process's environment; `-e`
            // (every process) does not.
            if let Some(w) = args.iter().find(|w| !w.starts_with('-') && w.contains('e') && w.len() <= 8) {
                e.environment = Some(format!("`ps {w}` prints the environment of processes"));
            }
        }
        "grep" | "egrep" | "fgrep" | "ggrep" => {
            let recursive = has_flag(args, &['r', 'R'], &["--recursive", "--dereference-recursive"])
                || args.iter().any(|w| *w == "--directories=recurse" || w.starts_with("-drecurse"));
            if recursive {
                recursive_operands(args, &["-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D"], true, &mut e);
            }
        }
        // `--files` lists names only.
        "rg" | "ag" | "ack" | "ack-grep" if !args.contains(&"--files") => {
            recursive_operands(args, &["-e", "-f", "-g", "-t", "-T", "-m", "-A", "-B", "-C", "-j"], true, &mut e);
            e.skips_hidden =
                !has_flag(args, &['.'], &["--hidden", "--unrestricted"]) && !args.iter().any(|w| w.starts_with("-uu"));
        }
        "find" | "gfind" => {
            let runs = args.iter().any(|w| matches!(*w, "-exec" | "-execdir" | "-ok" | "-okdir"));
            if runs {
                let starts: Vec<&str> =
                    args.iter().take_while(|w| !w.starts_with('-') && !matches!(**w, "(" | "!")).copied().collect();
                if starts.is_empty() {
                    e.recursive.push(".".to_string());
                }
                e.recursive.extend(starts.iter().map(|s| s.to_string()));
            }
        }
        "tar" | "gtar" | "bsdtar" | "zip" | "cp" | "rsync" | "scp" | "diff" => {
            let recursive = match base(program) {
                "tar" | "gtar" | "bsdtar" => true,
                "zip" => has_flag(args, &['r', 'R'], &["--recurse-paths", "--recurse-patterns"]),
                "cp" => has_flag(args, &['r', 'R', 'a'], &["--recursive", "--archive"]),
                "rsync" => has_flag(args, &['r', 'a'], &["--recursive", "--archive"]),
                "diff" => has_flag(args, &['r'], &["--recursive"]),
                _ => has_flag(args, &['r'], &[]),
            };
            if recursive {
                // Every operand that is a folder is read below; which operand is the output
                // does not matter, since only existing folders are walked.
                e.recursive.extend(args.iter().filter(|w| !w.starts_with('-')).map(|w| w.to_string()));
            }
        }
        _ => {}
    }
    e
}

/// Operands of a recursive searcher: the pattern first (unless `-e`/`-f` gave it), then the
/// folders; none means the working folder.
fn recursive_operands(args: &[&str], with_value: &[&str], pattern_first: bool, e: &mut Effects) {
    let ops = operands(args, with_value);
    let given = args.iter().any(|w| {
        matches!(*w, "-e" | "-f" | "--regexp" | "--file")
            || w.starts_with("--regexp=")
            || w.starts_with("--file=")
            || (w.starts_with("-e") && !w.starts_with("--"))
    });
    let skip = usize::from(pattern_first && !given);
    let folders: Vec<String> = ops.iter().skip(skip).map(|s| s.to_string()).collect();
    if folders.is_empty() {
        e.recursive.push(".".to_string());
    }
    e.recursive.extend(folders);
}

/// Does a tar argv extract (`x`, `-x`, `--extract`, `--get`, in a cluster or old-style first
/// word)?
fn tar_extracts(args: &[&str]) -> bool {
    let first_old = args.first().is_some_and(|w| !w.starts_with('-') && w.contains('x'));
    first_old
        || args.iter().take_while(|w| **w != "--").any(|w| {
            if w.starts_with("--") {
                ["--extract", "--get", "--ext", "--extr", "--extra", "--extrac"].contains(w)
            } else if let Some(c) = w.strip_prefix('-') {
                // The letters before one that takes a value (`-xzf`, `-C dir`).
                c.chars().take_while(|ch| !"fCbTXgKNVLH".contains(*ch)).any(|ch| ch == 'x') || c.starts_with('x')
            } else {
                false
            }
        })
}

/// `curl -O`, `--remote-name-all`, `-J`: the file is named by the URL or the server.
fn curl_remote_names(args: &[&str], e: &mut Effects) {
    let Some(table) = crate::options::program("curl") else { return };
    let parsed = table.parse(args);
    let remote = parsed.found.iter().any(|f| {
        matches!(f.opt.names.first().copied(), Some("-O" | "--remote-name-all" | "-J" | "--remote-header-name"))
    });
    if remote {
        e.unknown_writes.push("`curl -O` saves a file named by the URL or the server".to_string());
    }
}

/// Plain `wget URL` saves the file under the URL's name (or a numbered copy, or a server's
/// name): a write of a file the command does not spell. `-O FILE` names it; `--spider` saves
/// nothing.
fn wget_url_names(args: &[&str], e: &mut Effects) {
    let Some(table) = crate::options::program("wget") else {
        e.unknown_writes.push("`wget` saves a file named by the URL".to_string());
        return;
    };
    let parsed = table.parse(args);
    let named = parsed
        .found
        .iter()
        .any(|f| matches!(f.opt.names.first().copied(), Some("-O" | "--spider")) || f.opt.names.contains(&"--spider"));
    if !named && (!parsed.operands.is_empty() || parsed.found.iter().any(|f| f.opt.names.contains(&"-i"))) {
        e.unknown_writes.push("`wget` saves a file named by the URL".to_string());
    }
}

/// `git config` writes: the file a write goes to (`-f FILE`, `--global`) is a write target the
/// path checks see. (That a write needs a rule naming `config` is the git flag table's.)
fn git_config_writes(args: &[&str], e: &mut Effects) {
    // Skip the global options and their values (`git -C dir config`).
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        if matches!(args[i], "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env") {
            i += 1;
        }
        i += 1;
    }
    if args.get(i) != Some(&"config") {
        return;
    }
    let rest = &args[i + 1..];
    let (mut file, mut positional, mut write, mut read) = (None, 0, false, false);
    let mut k = 0;
    while let Some(w) = rest.get(k) {
        match *w {
            "-f" | "--file" => {
                file = rest.get(k + 1).map(|s| s.to_string());
                k += 1;
            }
            "--blob" => k += 1,
            _ if w.starts_with("--file=") => file = w.strip_prefix("--file=").map(str::to_string),
            "--get" | "--get-all" | "--get-regexp" | "--list" | "-l" | "--get-urlmatch" | "--get-color"
            | "--get-colorbool" => read = true,
            "--unset" | "--unset-all" | "--add" | "--replace-all" | "--edit" | "-e" | "--rename-section"
            | "--remove-section" => write = true,
            "get" | "list" if positional == 0 => read = true,
            "set" | "unset" | "edit" | "rename-section" | "remove-section" if positional == 0 => write = true,
            _ if !w.starts_with('-') => positional += 1,
            _ => {}
        }
        k += 1;
    }
    if read || !(write || positional >= 2) {
        return;
    }
    if let Some(f) = file {
        e.writes.push(f);
    } else if rest.contains(&"--global") {
        e.writes.push("~/.gitconfig".to_string());
        e.writes.push("~/.config/git/config".to_string());
    }
}

/// npm, pnpm, yarn, bun: configuration writes and package specs from outside the registry.
fn package_js(program: &str, args: &[&str], e: &mut Effects) {
    // Options that take a value as the next word.
    const WITH_VALUE: &[&str] = &[
        "-w",
        "--workspace",
        "--omit",
        "--include",
        "--tag",
        "--cache",
        "--install-strategy",
        "--before",
        "--save-prefix",
        "--filter",
        "-F",
        "--dir",
        "--cwd",
        "-C",
        "--prefix",
        "--registry",
        "--userconfig",
        "--globalconfig",
        "--script-shell",
    ];
    let ops = operands(args, WITH_VALUE);
    let Some(sub) = ops.first().copied() else { return };
    let rest = &ops[1..];
    match (program, sub) {
        // `npm pkg set scripts.x=…` writes package.json; `npm set-script` too.
        // The manifest they write is code-running configuration: the write asks on its own.
        (_, "pkg") if matches!(rest.first().copied(), Some("set" | "delete")) => {
            e.risky.push(format!("pkg {}", rest[0]));
            e.writes.push("package.json".to_string());
        }
        (_, "set-script") => {
            e.risky.push("set-script".to_string());
            e.writes.push("package.json".to_string());
        }
        // `npm config set script-shell …`, `npm set …`, `pnpm config set`, `yarn config set`.
        (_, "config" | "c")
            if matches!(rest.first().copied(), Some("set" | "delete" | "rm" | "edit" | "fix" | "unset")) =>
        {
            e.risky.push(format!("{sub} {}", rest[0]));
        }
        // `npm set` is `npm config set`; `yarn set version` downloads a yarn that every later
        // yarn call runs (`yarnPath`).
        ("npm" | "pnpm" | "yarn", "set") => e.risky.push("set".to_string()),
        (
            _,
            "install" | "i" | "in" | "ins" | "inst" | "insta" | "instal" | "isnt" | "isntall" | "add" | "update" | "up"
            | "upgrade" | "udpate" | "install-test" | "it" | "install-ci-test" | "link" | "ln",
        ) => {
            for spec in rest {
                if npm_spec_kind(spec) != SpecKind::Registry {
                    e.risky.push(spec.to_string());
                }
            }
            if matches!(sub, "link" | "ln") && !rest.is_empty() {
                e.risky.push(sub.to_string());
            }
        }
        _ => {}
    }
}

/// pip (and uv, pipx, poetry, pdm): configuration writes and requirement specs from outside the
/// index.
fn package_py(program: &str, args: &[&str], e: &mut Effects) {
    const WITH_VALUE: &[&str] = &[
        "-e",
        "--editable",
        "-r",
        "--requirement",
        "-c",
        "--constraint",
        "-t",
        "--target",
        "--prefix",
        "--root",
        "--src",
        "--platform",
        "--python-version",
        "--implementation",
        "--abi",
        "--upgrade-strategy",
        "--progress-bar",
        "--no-binary",
        "--only-binary",
        "--config-settings",
        "--global-option",
        "--report",
        "--log",
        "--cache-dir",
        "-i",
        "--index-url",
        "--extra-index-url",
        "-f",
        "--find-links",
        "--trusted-host",
        "--python",
        "-p",
        "--group",
        "--optional",
        "--extra",
        "--index",
        "--default-index",
        "--source",
        "-G",
        "--with",
        "--from",
    ];
    let ops = operands(args, WITH_VALUE);
    let Some(sub) = ops.first().copied() else { return };
    let rest: Vec<&str> =
        if program == "uv" && sub == "tool" { ops.iter().skip(2).copied().collect() } else { ops[1..].to_vec() };
    // `-e PATH` / `--editable PATH` installs a local or VCS project: always a source the rule
    // must name.
    for (k, w) in args.iter().enumerate() {
        if matches!(*w, "-e" | "--editable") {
            e.risky.push(format!("{w} {}", args.get(k + 1).copied().unwrap_or("")).trim().to_string());
        } else if w.starts_with("--editable=") || (w.starts_with("-e") && w.len() > 2 && !w.starts_with("--")) {
            e.risky.push(w.to_string());
        }
        if matches!(*w, "--path" | "--git" | "--url") || w.starts_with("--path=") || w.starts_with("--git=") {
            e.risky.push(w.split('=').next().unwrap_or(w).to_string());
        }
    }
    match sub {
        "config" if matches!(rest.first().copied(), Some("set" | "unset" | "edit")) => {
            e.risky.push(format!("config {}", rest[0]));
        }
        "install" | "add" | "download" | "wheel" | "inject" => {
            for spec in rest {
                if pip_spec_kind(spec) != SpecKind::Registry {
                    e.risky.push(spec.to_string());
                }
            }
        }
        _ => {}
    }
}

/// Where a package spec installs from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecKind {
    /// A name (and version, range or tag) resolved in the package index.
    Registry,
    /// A folder or archive on disk (`./x`, `x.tgz`, `file:x`).
    Local,
    /// A URL to an archive (`https://…/x.tgz`).
    Url,
    /// A git repository (`git+https://…`, `github:u/r`, `u/r`).
    Git,
    /// Anything else: not a name the index resolves.
    Other,
}

/// npm-package-arg's reading of an install argument: a registry name with an optional
/// `@version|range|tag`, or `alias@npm:name@range`; everything else (paths, `file:`, tarballs,
/// URLs, `git+…`, hosted shortcuts like `github:u/r` and `user/repo`) is a source the rule does
/// not name.
pub fn npm_spec_kind(spec: &str) -> SpecKind {
    // `name@spec` (the `@` of a scope is not the separator).
    let split = match spec.strip_prefix('@') {
        Some(rest) => rest.split_once('@').map(|(n, r)| (&spec[..n.len() + 1], r)),
        None => spec.split_once('@'),
    };
    if let Some((_, range)) = split.filter(|(n, _)| npm_name(n)) {
        if let Some(aliased) = range.strip_prefix("npm:") {
            return npm_spec_kind(aliased);
        }
        let plain = !range.is_empty()
            && range.bytes().all(|b| b.is_ascii_alphanumeric() || b" .^~<>=|*+-_".contains(&b))
            && !range.contains("..");
        return match (plain, npm_spec_kind(range)) {
            (true, _) => SpecKind::Registry,
            (false, SpecKind::Registry) => SpecKind::Other,
            (false, kind) => kind,
        };
    }
    let lower = spec.to_ascii_lowercase();
    if lower.starts_with("git+")
        || lower.starts_with("git:")
        || ["github:", "gitlab:", "bitbucket:", "gist:"].iter().any(|p| lower.starts_with(p))
    {
        return SpecKind::Git;
    }
    if lower.starts_with("http:") || lower.starts_with("https:") {
        return SpecKind::Url;
    }
    if spec.starts_with(['.', '/', '~', '\\'])
        || lower.starts_with("file:")
        || lower.starts_with("link:")
        || lower.ends_with(".tgz")
        || lower.ends_with(".tar.gz")
        || lower.ends_with(".tar")
        || spec.as_bytes().get(1) == Some(&b':')
    {
        return SpecKind::Local;
    }
    if npm_name(spec) {
        SpecKind::Registry
    } else if spec.contains('/') && !spec.starts_with('@') {
        // `user/repo` is a GitHub shortcut.
        SpecKind::Git
    } else {
        SpecKind::Other
    }
}

/// A valid npm package name: `name` or `@scope/name`, URL-safe lowercase characters.
fn npm_name(name: &str) -> bool {
    let ok = |s: &str| {
        !s.is_empty()
            && !s.starts_with(['.', '_'])
            && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-._~".contains(&b))
    };
    match name.strip_prefix('@') {
        Some(scoped) => scoped.split_once('/').is_some_and(|(s, n)| ok(s) && ok(n)),
        None => ok(name),
    }
}

/// pip's reading of a requirement: a PEP 508 name with optional extras and version specifiers
/// is resolved in the index; a path (anything with a `/`, or an existing-looking archive or
/// wheel name), a URL, a VCS URL (`git+…`) or a direct reference (`name @ url`) is a source the
/// rule does not name.
pub fn pip_spec_kind(spec: &str) -> SpecKind {
    let lower = spec.to_ascii_lowercase();
    if ["git+", "hg+", "svn+", "bzr+"].iter().any(|p| lower.starts_with(p)) {
        return SpecKind::Git;
    }
    if lower.contains("://") || lower.starts_with("file:") {
        return SpecKind::Url;
    }
    if spec.contains(['/', '\\'])
        || spec.starts_with(['.', '~'])
        || [".whl", ".tar.gz", ".zip", ".tgz", ".tar.bz2", ".tar.xz", ".tar"].iter().any(|s| lower.ends_with(s))
    {
        return SpecKind::Local;
    }
    if spec.contains('@') {
        return SpecKind::Url;
    }
    // name, [extras], specifiers (`==`, `>=`, `~=`, `!=`, `<`, `>`, `===`), no markers.
    let name_end = spec.find(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c))).unwrap_or(spec.len());
    let (name, mut rest) = spec.split_at(name_end);
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return SpecKind::Other;
    }
    if let Some(r) = rest.strip_prefix('[') {
        let Some((extras, after)) = r.split_once(']') else { return SpecKind::Other };
        if !extras.chars().all(|c| c.is_ascii_alphanumeric() || " ,._-".contains(c)) {
            return SpecKind::Other;
        }
        rest = after;
    }
    let rest = rest.trim();
    if rest.is_empty()
        || (rest.starts_with(['=', '<', '>', '!', '~'])
            && rest.chars().all(|c| c.is_ascii_alphanumeric() || " .,*=<>!~+-_".contains(c)))
    {
        SpecKind::Registry
    } else {
        SpecKind::Other
    }
}

/// Is this path (absolute, normalised) the environment of a process (`/proc/PID/environ`,
/// `/proc/self/task/TID/environ`)? Glob characters in the process part count as a match.
pub fn process_environment(abs: &str) -> Option<&'static str> {
    let rest = abs.strip_prefix("/proc/")?;
    let parts: Vec<&str> = rest.split('/').collect();
    let hit = matches!(parts.as_slice(), [_, "environ"] | [_, "task", _, "environ"])
        || (rest.ends_with("environ") && rest.contains(['*', '?', '[']));
    hit.then_some("/proc/*/environ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use wicket_programs::is_device;

    fn eff(cmd: &str) -> Effects {
        let words: Vec<&str> = cmd.split(' ').collect();
        of(&words)
    }

    #[test]
    fn npm_specs_follow_npm_package_arg() {
        use SpecKind::*;
        let cases: &[(&str, SpecKind)] = &[
            ("left-pad", Registry),
            ("lodash@4.17.21", Registry),
            ("lodash@^4", Registry),
            ("@types/node", Registry),
            ("@types/node@20", Registry),
            ("react@latest", Registry),
            ("x@npm:lodash@4", Registry),
            ("x@npm:github:u/r", Git),
            ("https://evil.example/x.tgz", Url),
            ("http://x/y", Url),
            ("./x", Local),
            ("../x", Local),
            ("/abs/x", Local),
            ("~/x", Local),
            ("x.tgz", Local),
            ("pkg.tar.gz", Local),
            ("file:../x", Local),
            ("link:../x", Local),
            ("github:u/r", Git),
            ("gitlab:u/r", Git),
            ("git+https://x/y.git", Git),
            ("git://x/y.git", Git),
            ("u/r", Git),
            ("u/r#main", Git),
            ("x@file:../y", Local),
            ("x@https://evil/x.tgz", Url),
            ("x@github:u/r", Git),
            ("x@u/r", Git),
            ("x@", Other),
            ("Left-Pad", Other),
        ];
        for (spec, want) in cases {
            assert_eq!(npm_spec_kind(spec), *want, "{spec}");
        }
    }

    #[test]
    fn pip_specs_follow_pep_508() {
        use SpecKind::*;
        let cases: &[(&str, SpecKind)] = &[
            ("requests", Registry),
            ("requests==2.31.0", Registry),
            ("requests>=2,<3", Registry),
            ("requests[socks]~=2.0", Registry),
            ("Django", Registry),
            ("./x", Local),
            (".", Local),
            ("x/", Local),
            ("x.tar.gz", Local),
            ("x-1.0-py3-none-any.whl", Local),
            ("git+https://x/y", Git),
            ("https://x/y.zip", Url),
            ("x @ https://evil/x.zip", Url),
            ("x@https://evil/x.zip", Url),
            ("file:///tmp/x", Url),
            ("x;python_version<'3'", Other),
        ];
        for (spec, want) in cases {
            assert_eq!(pip_spec_kind(spec), *want, "{spec}");
        }
    }

    #[test]
    fn sub_commands_that_write_configuration_are_risky() {
        let risky: &[(&str, &[&str])] = &[
            ("npm pkg set scripts.test=id", &["pkg set"]),
            ("npm pkg get name", &[]),
            ("npm set-script x id", &["set-script"]),
            ("npm config set script-shell /tmp/x", &["config set"]),
            ("npm set script-shell=/tmp/x", &["set"]),
            ("npm config get registry", &[]),
            ("pnpm config set x y", &["config set"]),
            ("yarn config set x y", &["config set"]),
            ("yarn set version https://evil/yarn.js", &["set"]),
            ("pip config set global.index-url x", &["config set"]),
            ("pip config list", &[]),
            ("npm install left-pad", &[]),
            ("npm i ./x", &["./x"]),
            ("npm i -D github:u/r", &["github:u/r"]),
            ("pnpm add https://x/y.tgz", &["https://x/y.tgz"]),
            ("yarn add u/r", &["u/r"]),
            ("pip install requests", &[]),
            ("pip install -r requirements.txt", &[]),
            ("pip install ./x", &["./x"]),
            ("pip install -e .", &["-e ."]),
            ("pip3 install git+https://x/y", &["git+https://x/y"]),
            ("python3 -m pip install x.tar.gz", &["x.tar.gz"]),
            ("uv pip install ../x", &["../x"]),
            ("uv add --editable ./x", &["--editable ./x"]),
            ("poetry add ./x", &["./x"]),
            ("cargo install --git https://x/y", &["--git"]),
            ("cargo install ripgrep", &[]),
        ];
        for (cmd, want) in risky {
            assert_eq!(eff(cmd).risky, want.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{cmd}");
        }
    }

    #[test]
    fn writes_nobody_named() {
        let unknown = [
            "curl -O https://x/a",
            "curl -sSLO https://x/a",
            "curl --remote-name-all https://x/a",
            "curl -OJ https://x/a",
            "wget https://x/a",
            "wget -q https://x/a",
            "tar -xzf a.tgz",
            "tar xzf a.tgz",
            "tar --extract -f a.tar",
            "unzip a.zip",
            "cpio -idv",
            "aria2c https://x/a",
        ];
        for cmd in unknown {
            assert!(!eff(cmd).unknown_writes.is_empty(), "{cmd}");
        }
        let named = [
            "curl https://x/a",
            "curl -o out https://x/a",
            "wget -O out https://x/a",
            "wget --spider https://x/a",
            "tar -tzf a.tgz",
            "tar -czf a.tgz dir",
            "unzip -l a.zip",
            "cpio -o",
        ];
        for cmd in named {
            assert!(eff(cmd).unknown_writes.is_empty(), "{cmd}");
        }
        assert_eq!(eff("npm pkg set scripts.x=id").writes, vec!["package.json"]);
        assert_eq!(eff("uniq in out").writes, vec!["out"]);
        assert_eq!(eff("uniq -c in out").writes, vec!["out"]);
        assert_eq!(eff("cpp in.c out.i").writes, vec!["out.i"]);
        assert_eq!(eff("xxd -r in out").writes, vec!["out"]);
        assert!(eff("uniq in").writes.is_empty());
        assert_eq!(eff("git config -f x.cfg core.pager id").writes, vec!["x.cfg"]);
        assert_eq!(eff("git config --file=y core.pager id").writes, vec!["y"]);
        assert!(eff("git config -f x.cfg --get core.pager").writes.is_empty());
        assert!(eff("git config --get core.pager").writes.is_empty());
    }

    #[test]
    fn environments_and_recursive_reads() {
        assert!(eff("ps e").environment.is_some());
        assert!(eff("ps eww").environment.is_some());
        assert!(eff("ps auxe").environment.is_some());
        assert!(eff("ps aux").environment.is_none());
        assert!(eff("ps -ef").environment.is_none());
        assert!(eff("ps -e").environment.is_none());
        assert_eq!(eff("grep -r x").recursive, vec!["."]);
        assert_eq!(eff("grep -rn x src").recursive, vec!["src"]);
        assert_eq!(eff("grep -R -e x a b").recursive, vec!["a", "b"]);
        assert!(eff("grep x a").recursive.is_empty());
        assert_eq!(eff("rg x").recursive, vec!["."]);
        assert!(eff("rg x").skips_hidden);
        assert!(!eff("rg --hidden x").skips_hidden);
        assert_eq!(eff("find . -exec cat {} +").recursive, vec!["."]);
        assert!(eff("find . -name x").recursive.is_empty());
        assert_eq!(eff("cp -r a b").recursive, vec!["a", "b"]);
        assert!(eff("cp a b").recursive.is_empty());
        assert_eq!(eff("tar czf o.tgz d").recursive, vec!["czf", "o.tgz", "d"]);
        assert_eq!(eff("zip -r o.zip d").recursive, vec!["o.zip", "d"]);
        assert!(eff("rsync -a d e").recursive.len() == 2);
        assert_eq!(process_environment("/proc/1/environ"), Some("/proc/*/environ"));
        assert_eq!(process_environment("/proc/self/task/7/environ"), Some("/proc/*/environ"));
        assert_eq!(process_environment("/proc/*/environ"), Some("/proc/*/environ"));
        assert_eq!(process_environment("/proc/cpuinfo"), None);
        assert!(is_device("/dev/null"));
        assert!(is_device("/dev/fd/2"));
        assert!(!is_device("/dev/fd/3/../../../proc/self/environ"));
        assert!(!is_device("/dev/null/../sda"));
        assert!(!is_device("/dev/sda"));
    }
}
