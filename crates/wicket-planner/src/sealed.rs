//! Folders a sandboxed command cannot read except for what is known to be harmless: every home,
//! and the runtime folder `/run`.
//!
//! The hard question: which of a person's files may a command read? A list of secret names is
//! always one name short (a tool's token under `~/.config/<tool>/`, an editor's state database,
//! another agent's MCP settings), so the homes are **sealed**: hidden whole, with the parts that
//! compilers, interpreters and package managers need bound back read-only. What is bound back is
//! data ([`HOME_READABLE`], [`RUN_READABLE`], with a reason each), found from the toolchains on
//! `PATH` and their variables, or named by the person in an allow rule
//! (`read_file(~/.config/tool/**)`). Everything else, known or not, stays out of sight.
//!
//! The entry point is [`plan`]; `exec::exec_policy` puts its answer in the exec policy and the
//! sandbox enforces it (bubblewrap: a read-only tmpfs over each sealed folder with binds of the
//! readable parts; the Landlock fallback: read rules for the readable parts only).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::exec::{literal_base, push_unique, real};

/// What a command may read in a home, relative to it, with why. Entries stop below any folder
/// that also holds credentials (`~/.cargo/bin`, never `~/.cargo`, whose `credentials.toml`
/// holds a registry token); the home's known secrets are masked on top of these anyway.
pub const HOME_READABLE: &[(&str, &str)] = &[
    (".cargo/bin", "cargo, rustc and the tools cargo installs"),
    (".cargo/registry", "crate sources cargo downloaded (a package cache)"),
    (".cargo/git", "git dependencies cargo fetched (a package cache)"),
    (".cargo/config.toml", "cargo's build settings (tokens live in credentials.toml, not here)"),
    (".cargo/config", "cargo's build settings, older name"),
    (".cargo/env", "the shell snippet rustup writes for PATH"),
    (".rustup", "Rust toolchains installed by rustup"),
    (".nvm", "Node.js versions installed by nvm"),
    (".fnm", "Node.js versions installed by fnm"),
    (".volta", "Node.js and tools installed by Volta"),
    (".bun/bin", "the bun runtime"),
    (".deno/bin", "the deno runtime"),
    (".npm", "npm's package cache (registry logins live in ~/.npmrc, not here)"),
    (".node-gyp", "Node.js headers for native add-ons"),
    (".local/share/pnpm", "pnpm and its package store"),
    (".yarn/berry/cache", "Yarn's package cache"),
    (".pyenv", "Python versions installed by pyenv"),
    (".local/lib", "Python packages installed with pip --user"),
    (".local/bin", "programs installed for this user (pip --user, pipx, uv tool)"),
    (".local/share/uv", "Python versions and tools installed by uv"),
    (".local/share/pipx", "pipx's virtual environments"),
    (".local/pipx", "pipx's virtual environments, older place"),
    (".local/share/virtualenvs", "pipenv's virtual environments"),
    (".conda", "conda environments"),
    ("miniconda3", "a Miniconda install"),
    ("miniforge3", "a Miniforge install"),
    ("anaconda3", "an Anaconda install"),
    ("go/bin", "programs installed by go install"),
    ("go/pkg", "Go's module cache"),
    ("sdk", "Go versions installed by golang.org/dl"),
    (".sdkman", "JDKs and build tools installed by SDKMAN!"),
    (".jdks", "JDKs downloaded by an IDE"),
    (".m2/repository", "Maven's package cache (server passwords live in settings.xml, not here)"),
    (".m2/wrapper", "Maven wrapper distributions"),
    (".gradle/caches", "Gradle's package cache (keys live in gradle.properties, not here)"),
    (".gradle/wrapper", "Gradle wrapper distributions"),
    (".gradle/jdks", "JDKs provisioned by Gradle"),
    (".rbenv", "Ruby versions installed by rbenv"),
    (".rvm", "Ruby versions installed by RVM"),
    (".gem/ruby", "Ruby gems installed for this user (the API key lives in ~/.gem/credentials)"),
    (".asdf", "tools installed by asdf"),
    (".local/share/mise", "tools installed by mise"),
    (".nix-profile", "the user's Nix profile (a link into /nix)"),
    (".dotnet", ".NET SDKs installed for this user"),
    (".nuget/packages", "NuGet's package cache"),
    (".ghcup", "Haskell toolchains installed by ghcup"),
    (".cabal/bin", "programs installed by cabal"),
    (".cabal/packages", "cabal's package cache"),
    (".elan", "Lean toolchains installed by elan"),
    (".opam", "OCaml switches installed by opam"),
    (".terminfo", "terminal descriptions"),
    (".gitconfig", "git's user settings (name, e-mail), so commits work; read-only"),
    (".config/git/config", "git's user settings, XDG place; read-only"),
    (".config/git/ignore", "git's user ignore list"),
    (".config/git/attributes", "git's user attributes"),
];

/// Variables naming a toolchain's root, and what of it a command may read (`None`: all of it).
/// A root that lies in a home adds these paths; one outside every home is readable anyway.
pub const TOOL_ROOTS: &[(&str, Option<&[&str]>)] = &[
    ("CARGO_HOME", Some(&["bin", "registry", "git", "config.toml", "config", "env"])),
    ("RUSTUP_HOME", None),
    ("PYENV_ROOT", None),
    ("NVM_DIR", None),
    ("VOLTA_HOME", None),
    ("GOPATH", Some(&["bin", "pkg"])),
    ("GOROOT", None),
    ("SDKMAN_DIR", None),
    ("JAVA_HOME", None),
    ("VIRTUAL_ENV", None),
    ("CONDA_PREFIX", None),
    ("ASDF_DATA_DIR", None),
    ("PNPM_HOME", None),
];

/// What a command may read in `/run`, relative to it: name resolution only. The rest (the
/// container runtime's `secrets/`, a service-account token, other programs' sockets and state,
/// the per-user runtime folder with its logins) stays hidden.
pub const RUN_READABLE: &[(&str, &str)] = &[
    ("systemd/resolve", "systemd-resolved's resolv.conf, the target of /etc/resolv.conf"),
    ("resolvconf", "resolvconf's resolv.conf"),
    ("NetworkManager/resolv.conf", "NetworkManager's resolv.conf"),
    ("connman/resolv.conf", "ConnMan's resolv.conf"),
    ("netconfig", "SUSE's resolv.conf"),
];

/// The sealed folders and what may be read in them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sealed {
    /// Folders hidden whole (real paths): the homes and `/run`.
    pub sealed: Vec<PathBuf>,
    /// Paths inside a sealed folder that a command may read, as they are reached from the
    /// folder (a link among them is kept as a link, its target readable too); only paths that
    /// exist.
    pub readable: Vec<PathBuf>,
}

/// What [`plan`] works from.
#[derive(Debug, Clone)]
pub struct SealInputs<'a> {
    /// Every home (`$HOME`, the account's own), as given.
    pub homes: &'a [PathBuf],
    /// The project root (real path): a home that is the project is not sealed.
    pub root: &'a Path,
    /// The caller's `PATH`, whose folders in a home stay readable.
    pub path: Option<&'a OsStr>,
    /// The toolchain variables of [`TOOL_ROOTS`] that are set, with their values.
    pub tool_roots: Vec<(&'static str, PathBuf)>,
    /// Allow rules: `read_file(P)` with `P` below a home keeps `P` readable.
    pub allow: &'a [String],
    /// The home as `~` expands in rules.
    pub home: Option<&'a Path>,
    /// Seal `/run` (the runtime folder): off only in tests of the homes alone.
    pub run: Option<&'a Path>,
}

impl Default for SealInputs<'_> {
    fn default() -> Self {
        SealInputs {
            homes: &[],
            root: Path::new("/"),
            path: None,
            tool_roots: Vec::new(),
            allow: &[],
            home: None,
            run: None,
        }
    }
}

/// The toolchain variables set in this process's environment.
pub fn tool_roots_from_env() -> Vec<(&'static str, PathBuf)> {
    TOOL_ROOTS
        .iter()
        .filter_map(|(name, _)| std::env::var_os(name).filter(|v| !v.is_empty()).map(|v| (*name, PathBuf::from(v))))
        .collect()
}

/// The sealed folders and their readable parts.
pub fn plan(i: &SealInputs<'_>) -> Sealed {
    let mut out = Sealed::default();
    // Each home by its real path, and how it was written (a `$HOME` that is a link: the
    // variables and PATH name it that way).
    let mut homes: Vec<(PathBuf, Vec<PathBuf>)> = Vec::new();
    for h in i.homes {
        let Some(r) = real(h) else { continue };
        // A home at `/` or that is the project is not sealed: that would hide everything, or
        // the work itself.
        if r.parent().is_none() || r == i.root {
            continue;
        }
        let lexical = wicket_policy::paths::normalize(h);
        match homes.iter_mut().find(|(q, _)| *q == r) {
            Some((_, names)) => push_unique(names, lexical),
            None => homes.push((r.clone(), vec![lexical, r])),
        }
    }
    for (home, _) in &homes {
        push_unique(&mut out.sealed, home.clone());
    }
    // Below which sealed home, by which spelling, does `p` lie? Returns the path rebased on
    // the home's real path.
    let in_home = |p: &Path| -> Option<PathBuf> {
        let p = wicket_policy::paths::normalize(p);
        for (home, names) in &homes {
            for n in names {
                if let Ok(rest) = p.strip_prefix(n) {
                    if rest.as_os_str().is_empty() {
                        return None;
                    }
                    return Some(home.join(rest));
                }
            }
        }
        // A path whose real location is in a home (a link from elsewhere into it).
        let r = real(&p)?;
        homes.iter().find(|(h, _)| r.starts_with(h) && r != *h).map(|_| r)
    };
    let mut want: Vec<PathBuf> = Vec::new();
    for (home, _) in &homes {
        for (rel, _why) in HOME_READABLE {
            want.push(home.join(rel));
        }
    }
    for (name, dir) in &i.tool_roots {
        let Some(base) = in_home(dir) else { continue };
        match TOOL_ROOTS.iter().find(|(n, _)| n == name).and_then(|(_, parts)| *parts) {
            Some(parts) => want.extend(parts.iter().map(|p| base.join(p))),
            None => want.push(base),
        }
    }
    // A PATH folder in a home that no entry above covers: that folder alone (its programs,
    // not the tool root around it, which may hold the tool's logins).
    if let Some(path) = i.path {
        for d in std::env::split_paths(path) {
            if !d.is_absolute() {
                continue;
            }
            let Some(d) = in_home(&d) else { continue };
            if !want.iter().any(|w| d.starts_with(w)) {
                want.push(d);
            }
        }
    }
    // Allow rules naming paths in a home for reading: their literal folder (the part before
    // the first wildcard), strictly below the home; `read_file(~/**)` opens nothing here.
    let home_text = i.home.map(|h| h.to_string_lossy().into_owned());
    for text in i.allow {
        let Ok(rules) = wicket_policy::rules::expand(text) else { continue };
        for r in rules {
            if r.tool != "read_file" {
                continue;
            }
            let Some(pattern) = &r.pattern else { continue };
            let (glob, absolute) = wicket_policy::rules::path_glob(pattern, home_text.as_deref());
            if !absolute {
                continue;
            }
            let base = literal_base(&glob);
            if let Some(b) = in_home(&base) {
                want.push(b);
            }
        }
    }
    for w in want {
        if std::fs::symlink_metadata(&w).is_ok() {
            push_unique(&mut out.readable, w);
        }
    }
    if let Some(run) = i.run.and_then(real) {
        // Not when the project, a home or the whole disk is there.
        if run.parent().is_some() && !i.root.starts_with(&run) && !homes.iter().any(|(h, _)| h.starts_with(&run)) {
            push_unique(&mut out.sealed, run.clone());
            for (rel, _why) in RUN_READABLE {
                let p = run.join(rel);
                if std::fs::symlink_metadata(&p).is_ok() {
                    push_unique(&mut out.readable, p);
                }
            }
            // Whatever the name-resolution files lead to in /run.
            for f in ["/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf"] {
                if let Some(t) = real(Path::new(f)).filter(|t| t.starts_with(&run)) {
                    push_unique(&mut out.readable, t);
                }
            }
        }
    }
    out.readable.sort();
    out
}

/// The entries of the sealed folders that a command cannot see, for the notice: each sealed
/// folder's top-level names that nothing readable or writable lies in or below.
pub fn hidden_entries(sealed: &Sealed, open: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for s in &sealed.sealed {
        let Ok(entries) = std::fs::read_dir(s) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            let seen = sealed.readable.iter().chain(open).any(|r| r.starts_with(&p) || p.starts_with(r));
            if !seen {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("wicket-sealed-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::canonicalize(&d).unwrap()
    }

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "x").unwrap();
    }

    #[test]
    fn toolchains_are_readable_and_nothing_else() {
        let d = tmp("tools");
        let home = d.join("home");
        let root = d.join("home/proj");
        std::fs::create_dir_all(&root).unwrap();
        for f in [
            ".cargo/bin/cargo",
            ".cargo/credentials.toml",
            ".config/gh/hosts.yml",
            ".pyenv/shims/python",
            "tools/bin/x",
        ] {
            touch(&home.join(f));
        }
        let path =
            std::env::join_paths([home.join(".cargo/bin"), home.join("tools/bin"), PathBuf::from("/usr/bin")]).unwrap();
        let homes = vec![home.clone()];
        let s = plan(&SealInputs {
            homes: &homes,
            root: &root,
            path: Some(path.as_os_str()),
            home: Some(&home),
            ..SealInputs::default()
        });
        assert_eq!(s.sealed, vec![home.clone()]);
        assert!(s.readable.contains(&home.join(".cargo/bin")));
        assert!(s.readable.contains(&home.join(".pyenv")));
        assert!(s.readable.contains(&home.join("tools/bin")), "a PATH folder in the home: {:?}", s.readable);
        assert!(!s.readable.iter().any(|r| home.join(".cargo/credentials.toml").starts_with(r)));
        assert!(!s.readable.iter().any(|r| home.join(".config/gh/hosts.yml").starts_with(r)));
        let hidden = hidden_entries(&s, std::slice::from_ref(&root));
        assert!(hidden.contains(&home.join(".config")));
        assert!(!hidden.contains(&home.join("proj")));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_allow_rule_opens_a_folder_below_the_home_never_the_home() {
        let d = tmp("allow");
        let home = d.join("home");
        touch(&home.join(".config/gh/hosts.yml"));
        touch(&home.join(".kube/config"));
        let root = d.join("proj");
        std::fs::create_dir_all(&root).unwrap();
        let homes = vec![home.clone()];
        let allow = vec!["read_file(~/.config/gh/**)".to_string(), "Read(~/**)".to_string()];
        let s =
            plan(&SealInputs { homes: &homes, root: &root, allow: &allow, home: Some(&home), ..SealInputs::default() });
        assert!(s.readable.contains(&home.join(".config/gh")));
        assert!(!s.readable.contains(&home), "{:?}", s.readable);
        assert!(!s.readable.iter().any(|r| home.join(".kube/config").starts_with(r)));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_home_that_is_the_project_or_the_disk_is_not_sealed() {
        let d = tmp("self");
        let homes = vec![d.clone(), PathBuf::from("/")];
        let s = plan(&SealInputs { homes: &homes, root: &d, ..SealInputs::default() });
        assert!(s.sealed.is_empty(), "{:?}", s.sealed);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_tool_root_variable_adds_its_layout_and_a_linked_home_counts_once() {
        let d = tmp("vars");
        let home = d.join("home");
        touch(&home.join("rust/cargo/bin/cargo"));
        touch(&home.join("rust/cargo/credentials.toml"));
        touch(&home.join("venvs/a/bin/python"));
        std::os::unix::fs::symlink(&home, d.join("link")).unwrap();
        let root = d.join("proj");
        std::fs::create_dir_all(&root).unwrap();
        let homes = vec![d.join("link"), home.clone()];
        let s = plan(&SealInputs {
            homes: &homes,
            root: &root,
            tool_roots: vec![("CARGO_HOME", d.join("link/rust/cargo")), ("VIRTUAL_ENV", home.join("venvs/a"))],
            ..SealInputs::default()
        });
        assert_eq!(s.sealed, vec![home.clone()]);
        assert!(s.readable.contains(&home.join("rust/cargo/bin")), "{:?}", s.readable);
        assert!(!s.readable.contains(&home.join("rust/cargo")));
        assert!(s.readable.contains(&home.join("venvs/a")));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
