//! wicket's permission profile in Codex's user `config.toml`: how Codex's commands are
//! confined by default.
//!
//! The hard question: where should Codex's shell commands run? Codex's PreToolUse hook may
//! rewrite a command into `wicket run`, but a hook that fails, times out or is not trusted is
//! skipped without a word, so a rewrite with Codex's own sandbox off leaves commands with no
//! sandbox whenever the hook does not run. Codex's own sandbox fails closed instead; what it
//! lacks is wicket's list of the home's secrets (its workspace sandbox lets a command read the
//! whole home). So `wicket init codex` keeps Codex's sandbox and makes it the default with a
//! profile of Codex's own syntax (Codex 0.171): the built-in `:workspace` profile (project,
//! `/tmp` and `$TMPDIR` writable, the rest read-only), every home secret of wicket's lists
//! denied, and no network.
//!
//! What Codex's syntax cannot say is left out and documented: per-host network (wicket's
//! `network.allow`), wicket's sealed home (in Codex a `read` below a `deny` is not bound back,
//! so hiding the whole home would hide the toolchains in it too), and the project's own secrets
//! (Codex expands a `deny` glob by a scan of the workspace before every command, with no way to
//! skip package trees, and masks each match with a mount that a package manager then cannot
//! remove); the hook still judges those reads.
//!
//! Ownership: wicket writes `default_permissions = "wicket"` and the `[permissions.wicket]`
//! tables, nothing else, and removes only those. The person's own `default_permissions` or a
//! `sandbox_mode = "danger-full-access"` is never overridden: init says what to change.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use toml_edit::{value, DocumentMut, Item, Table};

/// The profile's name, in `[permissions.<name>]` and `default_permissions`.
pub const NAME: &str = "wicket";

/// The built-in Codex profile wicket's extends: the workspace roots, `/tmp` and `$TMPDIR`
/// writable (their `.git`, `.codex` and `.agents` read-only), everything else read-only.
pub const BASE: &str = ":workspace";

/// The folders whose secrets the profile names: the home, and Codex's and wicket's folders
/// when they lie elsewhere.
#[derive(Debug, Clone, Default)]
pub struct Places {
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// Codex's folder (`$CODEX_HOME`, else `~/.codex`).
    pub codex_home: Option<PathBuf>,
    /// wicket's folder (`$WICKET_HOME`, else `~/.wicket`).
    pub wicket_home: Option<PathBuf>,
}

impl Places {
    /// The folders of this process's environment.
    pub fn from_env() -> Places {
        Places {
            home: wicket::config::home_dir(),
            codex_home: crate::codex_trust::codex_home(),
            wicket_home: wicket::config::wicket_home().ok(),
        }
    }
}

/// Does Codex read this profile key as a glob?
fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '[', ']'])
}

/// What a command in Codex's sandbox may not read, as Codex's profile keys (`~/` is the home
/// Codex runs with): every home secret wicket's own sandbox masks (its literal list), the
/// secrets named by pattern at the top of the home (`~/*.pem`: Codex expands a `deny` glob;
/// deeper in the home only the literal names are known), and Codex's `auth.json` and wicket's
/// folder when `CODEX_HOME` or `WICKET_HOME` put them outside the home's usual place.
pub fn denied(places: &Places) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |k: String| {
        if !out.contains(&k) {
            out.push(k);
        }
    };
    let home = places.home.as_deref();
    for s in wicket_planner::exec::home_secrets() {
        match home.and_then(|h| linked_folder(&h.join(s))) {
            Some(real) => push(path_key("a link in the home", &real)?),
            None => push(format!("~/{s}")),
        }
    }
    for p in wicket_policy::lists::SENSITIVE {
        if let Some(name) = p.strip_prefix("**/") {
            if !name.contains('/') && has_glob(name) {
                push(format!("~/{name}"));
            }
        }
    }
    let outside = |dir: &Path, usual: &str| home.is_none_or(|h| h.join(usual) != dir);
    let mut extra = Vec::new();
    if let Some(c) = places.codex_home.as_deref().filter(|c| outside(c, ".codex")) {
        extra.push(("CODEX_HOME", c.join("auth.json")));
    }
    if let Some(w) = places.wicket_home.as_deref().filter(|w| outside(w, ".wicket")) {
        extra.push(("WICKET_HOME", w.to_path_buf()));
    }
    for (var, p) in extra {
        let p = std::path::absolute(&p).unwrap_or(p);
        let p = linked_folder(&p).unwrap_or(p);
        push(path_key(var, &p)?);
    }
    // Codex hides a denied folder under a read-only tmpfs, so a mask for a path inside it
    // cannot be made and bubblewrap refuses to start every command (`~/.docker` and
    // `~/.docker/config.json`): the folder's entry covers what lies in it.
    let literal: Vec<String> = out.iter().filter(|k| !has_glob(k)).cloned().collect();
    out.retain(|k| !literal.iter().any(|d| d != k && Path::new(k).starts_with(d)));
    Ok(out)
}

/// The real folder a link at `p` leads to, when `p` is a link to a folder. Codex 0.171 cannot
/// mask a folder linked by absolute path (bubblewrap resolves the link outside its new root,
/// cannot mount the tmpfs, and then runs no command at all), but masks the folder it leads
/// to; a linked file it masks itself.
fn linked_folder(p: &Path) -> Option<PathBuf> {
    let link = std::fs::symlink_metadata(p).ok()?.file_type().is_symlink();
    let real = std::fs::canonicalize(p).ok()?;
    (link && real.is_dir()).then_some(real)
}

/// An absolute path as a profile key. One Codex would read as a glob, or that TOML cannot
/// hold, would name other paths or none: refused.
fn path_key(what: &str, p: &Path) -> Result<String> {
    match p.to_str() {
        Some(s) if !has_glob(s) => Ok(s.to_string()),
        _ => bail!(
            "{what} ({}) cannot be named in Codex's profile (not UTF-8, or glob characters); move it, or use --unconfined-commands",
            p.display()
        ),
    }
}

/// wicket's `[permissions.wicket]` table, with a comment saying whose it is.
fn profile_table(denied: &[String]) -> Table {
    let mut t = Table::new();
    t.decor_mut().set_prefix(
        "\n# Written by `wicket init codex` (removed by `wicket init codex --uninstall`): Codex's workspace\n\
         # sandbox without the home's secrets and without network. Changes here are replaced the next\n\
         # time init runs: make your own profile with extends = \"wicket\" and name it in default_permissions.\n",
    );
    t.insert("extends", value(BASE));
    let mut fs = Table::new();
    for d in denied {
        fs.insert(d, value("deny"));
    }
    t.insert("filesystem", Item::Table(fs));
    let mut net = Table::new();
    net.insert("enabled", value(false));
    t.insert("network", Item::Table(net));
    t
}

/// An item as plain data (keys sorted, formatting and comments dropped), to compare profiles.
fn canon(item: &Item) -> String {
    if let Some(t) = item.as_table_like() {
        let mut entries: Vec<(String, String)> = t.iter().map(|(k, v)| (k.to_string(), canon(v))).collect();
        entries.sort();
        let inner: Vec<String> = entries.into_iter().map(|(k, v)| format!("{k:?}={v}")).collect();
        return format!("{{{}}}", inner.join(","));
    }
    match item.as_value() {
        Some(toml_edit::Value::Array(a)) => {
            let inner: Vec<String> = a.iter().map(|v| canon(&Item::Value(v.clone()))).collect();
            format!("[{}]", inner.join(","))
        }
        Some(v) => {
            let mut v = v.clone();
            v.decor_mut().clear();
            v.to_string()
        }
        None => String::new(),
    }
}

/// A top-level string key of `doc`: `Ok(None)` when unset, an error when not a string.
fn string_key(doc: &DocumentMut, key: &str, config: &Path) -> Result<Option<String>> {
    match doc.get(key) {
        None => Ok(None),
        Some(v) => match v.as_str() {
            Some(s) => Ok(Some(s.to_string())),
            None => bail!("{}: `{key}` is not a string; fix it first, nothing was written", config.display()),
        },
    }
}

/// Does profile `name` of `doc` reach wicket's through `extends` (or is it wicket's)?
fn reaches_wicket(doc: &DocumentMut, name: &str) -> bool {
    let mut seen: Vec<String> = Vec::new();
    let mut cur = name.to_string();
    loop {
        if cur == NAME {
            return true;
        }
        if seen.contains(&cur) {
            return false;
        }
        seen.push(cur.clone());
        let next =
            doc.get("permissions").and_then(|p| p.get(&cur)).and_then(|t| t.get("extends")).and_then(Item::as_str);
        match next {
            Some(n) => cur = n.to_string(),
            None => return false,
        }
    }
}

/// Where Codex's commands stand with the profile, as one config file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// `default_permissions` names wicket's profile, or one that extends it (`via`), and the
    /// profile is the one this wicket writes (`current`).
    Confined {
        /// The person's profile that extends wicket's, if the default is not wicket's itself.
        via: Option<String>,
        /// The profile is what this wicket writes (else: older, or edited).
        current: bool,
    },
    /// wicket's profile is not Codex's default: why, and what to change.
    NotDefault(String),
    /// No wicket profile in the file.
    Missing,
}

/// What one Codex config file sets that decides the sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// `default_permissions`.
    pub default_permissions: Option<String>,
    /// `sandbox_mode`.
    pub sandbox_mode: Option<String>,
}

/// The sandbox settings of a Codex config file (a missing file sets nothing).
pub fn settings(config: &Path) -> Result<Settings> {
    let (_, doc) = crate::codex_trust::read_config(config)?;
    Ok(Settings {
        default_permissions: string_key(&doc, "default_permissions", config)?,
        sandbox_mode: string_key(&doc, "sandbox_mode", config)?,
    })
}

/// Why a `default_permissions` or `sandbox_mode` keeps wicket's profile from being Codex's
/// default, with what to change; `None` when nothing does.
fn conflict(doc: &DocumentMut, s: &Settings) -> Option<String> {
    match s.default_permissions.as_deref() {
        Some(d) if reaches_wicket(doc, d) => None,
        Some(d) => Some(format!(
            "default_permissions = \"{d}\": Codex runs commands with that profile, not wicket's; set default_permissions = \"{NAME}\" (or give \"{d}\" extends = \"{NAME}\")"
        )),
        None if s.sandbox_mode.as_deref() == Some("danger-full-access") => Some(
            "sandbox_mode = \"danger-full-access\": Codex runs commands with no sandbox; remove that line and run `wicket init codex` again (it then sets default_permissions = \"wicket\", which Codex prefers over sandbox_mode)"
                .to_string(),
        ),
        None => Some(format!("default_permissions is not set: run `wicket init codex` (it sets default_permissions = \"{NAME}\")")),
    }
}

/// Where Codex's commands stand with the profile in the user's `config.toml`.
pub fn standing(config: &Path, places: &Places) -> Result<Standing> {
    let (_, doc) = crate::codex_trust::read_config(config)?;
    let Some(ours) = doc.get("permissions").and_then(|p| p.get(NAME)) else { return Ok(Standing::Missing) };
    let s = Settings {
        default_permissions: string_key(&doc, "default_permissions", config)?,
        sandbox_mode: string_key(&doc, "sandbox_mode", config)?,
    };
    if let Some(why) = conflict(&doc, &s) {
        return Ok(Standing::NotDefault(why));
    }
    let current = canon(ours) == canon(&Item::Table(profile_table(&denied(places)?)));
    let via = s.default_permissions.filter(|d| d != NAME);
    Ok(Standing::Confined { via, current })
}

/// The change `install` makes: the file's text before and after (`None`: nothing to change),
/// and why wicket's profile is not made the default, if it is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    /// Before and after, when the file changes.
    pub change: Option<(String, String)>,
    /// The setting of the person's that keeps the profile from being the default, and what to
    /// change (wicket leaves it as it is).
    pub conflict: Option<String>,
}

/// `config.toml` with wicket's profile written (replaced when it differs) and made the default
/// unless the person's `default_permissions` or `sandbox_mode = "danger-full-access"` says
/// otherwise; everything else in the file is kept as it was.
pub fn install(config: &Path, denied: &[String]) -> Result<Install> {
    let (before, mut doc) = crate::codex_trust::read_config(config)?;
    let s = Settings {
        default_permissions: string_key(&doc, "default_permissions", config)?,
        sandbox_mode: string_key(&doc, "sandbox_mode", config)?,
    };
    let wanted = profile_table(denied);
    let perms = doc.entry("permissions").or_insert(toml_edit::table());
    crate::codex_trust::implicit_when_empty(perms);
    let Some(perms) = perms.as_table_like_mut() else {
        bail!("{}: `permissions` is not a table; fix it first, nothing was written", config.display())
    };
    if perms.get(NAME).map(canon) != Some(canon(&Item::Table(wanted.clone()))) {
        perms.insert(NAME, Item::Table(wanted));
    }
    let conflict = match conflict(&doc, &s) {
        // Unset, and nothing of the person's says otherwise: wicket's becomes the default.
        Some(_) if s.default_permissions.is_none() && s.sandbox_mode.as_deref() != Some("danger-full-access") => {
            doc.insert("default_permissions", value(NAME));
            None
        }
        other => other,
    };
    let after = doc.to_string();
    Ok(Install { change: (after != before).then_some((before, after)), conflict })
}

/// `config.toml` without what wicket wrote: `[permissions.wicket]`, and `default_permissions`
/// when it names it; `None` when neither is there.
pub fn uninstall(config: &Path) -> Result<Option<(String, String)>> {
    let (before, mut doc) = crate::codex_trust::read_config(config)?;
    if doc.get("default_permissions").and_then(Item::as_str) == Some(NAME) {
        doc.remove("default_permissions");
    }
    if let Some(perms) = doc.get_mut("permissions").and_then(Item::as_table_like_mut) {
        perms.remove(NAME);
        if perms.is_empty() {
            doc.remove("permissions");
        }
    }
    let after = doc.to_string();
    Ok((after != before).then_some((before, after)))
}

/// A project's `.codex/config.toml` settings that override the user's default for Codex in
/// that project (Codex reads them once the project is trusted), as a warning.
pub fn project_override(root: &Path) -> Option<String> {
    let file = root.join(".codex/config.toml");
    let s = match settings(&file) {
        Ok(s) => s,
        Err(e) => return Some(format!("{e:#}")),
    };
    let what = match (s.default_permissions.as_deref(), s.sandbox_mode.as_deref()) {
        (Some(NAME), _) | (None, None) => return None,
        (Some(d), _) => format!("default_permissions = \"{d}\""),
        (None, Some(m)) => format!("sandbox_mode = \"{m}\""),
    };
    Some(format!(
        "{}: {what} replaces wicket's profile for Codex in this project once Codex trusts it; remove that line",
        file.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> Places {
        Places { home: Some("/h".into()), codex_home: Some("/h/.codex".into()), wicket_home: Some("/h/.wicket".into()) }
    }

    #[test]
    fn the_denied_list_is_wickets_home_secrets() {
        let d = denied(&places()).unwrap();
        for k in
            ["~/.ssh", "~/.aws", "~/.docker", "~/.wicket", "~/.codex/auth.json", "~/.netrc", "~/*.pem", "~/id_rsa*"]
        {
            assert!(d.iter().any(|x| x == k), "{k} in {d:?}");
        }
        // Codex reads a glob only for `deny` and keys of the form `/…`, `~/…` or `:…`.
        assert!(d.iter().all(|k| k.starts_with("~/") || k.starts_with('/')), "{d:?}");
        assert!(!d.iter().any(|k| k.contains("**")), "{d:?}");
        // Nothing below a denied folder: Codex could not mask it, and would run no command.
        assert!(!d.iter().any(|k| k.starts_with("~/.docker/") || k.starts_with("~/.wicket/")), "{d:?}");
        let elsewhere = Places { codex_home: Some("/c".into()), wicket_home: Some("/w".into()), ..places() };
        let d = denied(&elsewhere).unwrap();
        assert!(d.contains(&"/c/auth.json".to_string()) && d.contains(&"/w".to_string()), "{d:?}");
        let bad = Places { codex_home: Some("/c[1]".into()), ..places() };
        assert!(denied(&bad).is_err());
        // A linked secrets folder is named by where it leads; a linked file stays `~/…`.
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("h");
        std::fs::create_dir_all(dir.path().join("dotfiles/ssh")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(dir.path().join("dotfiles/npmrc"), "x").unwrap();
        std::os::unix::fs::symlink("../dotfiles/ssh", home.join(".ssh")).unwrap();
        std::os::unix::fs::symlink("../dotfiles/npmrc", home.join(".npmrc")).unwrap();
        let d = denied(&Places { home: Some(home.clone()), codex_home: None, wicket_home: None }).unwrap();
        let real = std::fs::canonicalize(dir.path().join("dotfiles/ssh")).unwrap();
        assert!(d.contains(&real.to_string_lossy().into_owned()) && !d.contains(&"~/.ssh".to_string()), "{d:?}");
        assert!(d.contains(&"~/.npmrc".to_string()), "{d:?}");
    }

    #[test]
    fn install_is_idempotent_keeps_the_rest_and_uninstall_removes_only_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let mine = "# my settings\nmodel = \"o3\"\n\n[permissions.other]\nextends = \":read-only\"\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n";
        std::fs::write(&file, mine).unwrap();
        let d = denied(&places()).unwrap();
        let first = install(&file, &d).unwrap();
        assert_eq!(first.conflict, None);
        let (_, after) = first.change.unwrap();
        assert!(after.starts_with("# my settings\nmodel = \"o3\"\ndefault_permissions = \"wicket\"\n"), "{after}");
        assert!(after.contains("[permissions.wicket]\nextends = \":workspace\"\n"), "{after}");
        assert!(
            after.contains("\"~/.ssh\" = \"deny\"") && after.contains("[permissions.wicket.network]\nenabled = false")
        );
        assert!(after.contains("[permissions.other]") && after.contains("trust_level = \"trusted\""), "{after}");
        std::fs::write(&file, &after).unwrap();
        assert_eq!(install(&file, &d).unwrap().change, None, "idempotent");
        assert_eq!(standing(&file, &places()).unwrap(), Standing::Confined { via: None, current: true });
        // An older profile is replaced.
        let (_, newer) = install(&file, &d[1..]).unwrap().change.unwrap();
        std::fs::write(&file, &newer).unwrap();
        assert_eq!(standing(&file, &places()).unwrap(), Standing::Confined { via: None, current: false });
        let (_, back) = install(&file, &d).unwrap().change.unwrap();
        assert_eq!(back, after);
        std::fs::write(&file, &after).unwrap();
        let (_, removed) = uninstall(&file).unwrap().unwrap();
        assert_eq!(removed, mine);
        std::fs::write(&file, &removed).unwrap();
        assert_eq!(uninstall(&file).unwrap(), None);
        assert_eq!(standing(&file, &places()).unwrap(), Standing::Missing);
    }

    #[test]
    fn the_persons_sandbox_choice_is_not_overridden() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let d = denied(&places()).unwrap();
        for (text, key) in [
            (
                "default_permissions = \"mine\"\n[permissions.mine]\nextends = \":workspace\"\n",
                "default_permissions = \"mine\"",
            ),
            ("sandbox_mode = \"danger-full-access\"\n", "sandbox_mode = \"danger-full-access\""),
        ] {
            std::fs::write(&file, text).unwrap();
            let r = install(&file, &d).unwrap();
            assert!(r.conflict.as_deref().is_some_and(|c| c.contains(key)), "{r:?}");
            let (_, after) = r.change.unwrap();
            assert!(after.starts_with(text), "{after}");
            let set = |t: &str| t.lines().filter(|l| l.starts_with("default_permissions")).count();
            assert_eq!(set(&after), set(text), "{after}");
            std::fs::write(&file, &after).unwrap();
            assert!(matches!(standing(&file, &places()).unwrap(), Standing::NotDefault(w) if w.contains(key)));
        }
        // A profile of the person's that extends wicket's counts as wicket's.
        std::fs::write(&file, "default_permissions = \"mine\"\n[permissions.mine]\nextends = \"wicket\"\n").unwrap();
        let r = install(&file, &d).unwrap();
        assert_eq!(r.conflict, None);
        std::fs::write(&file, r.change.unwrap().1).unwrap();
        assert_eq!(standing(&file, &places()).unwrap(), Standing::Confined { via: Some("mine".into()), current: true });
        // sandbox_mode other than danger-full-access gives way to default_permissions.
        std::fs::write(&file, "sandbox_mode = \"workspace-write\"\n").unwrap();
        assert_eq!(install(&file, &d).unwrap().conflict, None);
        // What wicket cannot read, it does not write.
        std::fs::write(&file, "permissions = 3\n").unwrap();
        assert!(install(&file, &d).is_err());
        std::fs::write(&file, "default_permissions = 3\n").unwrap();
        assert!(install(&file, &d).is_err());
    }
}
