//! Package managers (npm, pnpm, yarn, bun; pip, uv, pipx, poetry, pdm; cargo). The hard
//! question: does this argv install from a source the rule does not name (a path, a URL, a git
//! repository), write configuration that makes later installs run code, or run a package?

use super::{operands, Effects};
use crate::Parsed;

/// npm, pnpm, yarn, bun: configuration writes and package specs from outside the registry.
pub(crate) fn js(set_writes_config: bool, args: &[&str], e: &mut Effects) {
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
    match (set_writes_config, sub) {
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
        (true, "set") => e.risky.push("set".to_string()),
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
pub(crate) fn py(uv: bool, args: &[&str], e: &mut Effects) {
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
    let rest: Vec<&str> = if uv && sub == "tool" { ops.iter().skip(2).copied().collect() } else { ops[1..].to_vec() };
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

/// uv: `uv pip …` is read as pip, `uv add` and `uv tool …` as uv's own installs.
pub(crate) fn uv(args: &[&str], e: &mut Effects) {
    match args.first().copied() {
        Some("pip") => py(false, &args[1..], e),
        Some("add" | "tool") => py(true, args, e),
        _ => {}
    }
}

/// python: `-m pip …` is read as pip.
pub(crate) fn python(args: &[&str], e: &mut Effects) {
    if args.len() >= 2 && args[0] == "-m" && args[1] == "pip" {
        py(false, &args[2..], e)
    }
}

/// cargo: `install --git URL` and `install --path DIR` build code from a source the rule does
/// not name.
pub(crate) fn cargo(args: &[&str], e: &mut Effects) {
    if args.first() != Some(&"install") {
        return;
    }
    for w in &args[1..] {
        for name in ["--git", "--path"] {
            if *w == name || w.starts_with(&format!("{name}=")) {
                e.risky.push(name.to_string());
            }
        }
    }
}

/// npm, pnpm, yarn, bun: the sub-commands that run a package (`exec`, `x`, `dlx`) or a
/// package's initialiser (`create`, `init`).
pub(crate) fn risky(parsed: &Parsed) -> Vec<String> {
    let first = parsed.operands.first().map(String::as_str);
    first.filter(|s| matches!(*s, "exec" | "x" | "dlx" | "create" | "init")).map(str::to_string).into_iter().collect()
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
