//! Loading settings from disk: the user's and the project's files, merged with flags.
//!
//! The hard question: which settings hold? A missing file is the defaults; a file that exists
//! but cannot be read or parsed stops wicket with the file and position, never a silent default.

use std::path::{Path, PathBuf};

use wicket_policy::{Mode, PolicyConfig, Settings, SettingsError};

/// Why settings cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A file exists but cannot be read.
    #[error("{file}: cannot read: {source}")]
    Read {
        /// The file.
        file: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file cannot be parsed.
    #[error(transparent)]
    Parse(#[from] SettingsError),
    /// No home folder for `$WICKET_HOME`.
    #[error("cannot find wicket's home folder: set WICKET_HOME or HOME")]
    NoHome,
}

/// Where wicket's own files live: `$WICKET_HOME`, or `~/.wicket`.
pub fn wicket_home() -> Result<PathBuf, ConfigError> {
    if let Some(h) = std::env::var_os("WICKET_HOME").filter(|h| !h.is_empty()) {
        return Ok(PathBuf::from(h));
    }
    home_dir().map(|h| h.join(".wicket")).ok_or(ConfigError::NoHome)
}

/// The person's home folder.
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}

/// Read one settings file; a missing file gives `None`.
pub fn read_settings(file: &Path) -> Result<Option<Settings>, ConfigError> {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(ConfigError::Read { file: file.display().to_string(), source }),
    };
    Ok(Some(Settings::parse(&text, &file.display().to_string())?))
}

/// The settings that apply to a root: the user's file, then the project's.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The user's settings (`$WICKET_HOME/settings.json`).
    pub user: Option<Settings>,
    /// The project's settings (`<root>/.wicket/settings.json`).
    pub project: Option<Settings>,
    /// The files read, for `explain`.
    pub files: Vec<PathBuf>,
}

/// Load the user's and the project's settings.
pub fn load(root: &Path) -> Result<Loaded, ConfigError> {
    let mut loaded = Loaded::default();
    let user_file = wicket_home()?.join("settings.json");
    loaded.user = read_settings(&user_file)?;
    if loaded.user.is_some() {
        loaded.files.push(user_file);
    }
    let project_file = root.join(".wicket").join("settings.json");
    loaded.project = read_settings(&project_file)?;
    if loaded.project.is_some() {
        loaded.files.push(project_file);
    }
    Ok(loaded)
}

/// Flags that add to the settings.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--mode`.
    pub mode: Option<Mode>,
    /// `--unattended`.
    pub unattended: bool,
    /// `--no-sandbox`.
    pub no_sandbox: bool,
    /// `--allow`.
    pub allow: Vec<String>,
    /// `--deny`.
    pub deny: Vec<String>,
    /// `--ask`.
    pub ask: Vec<String>,
}

/// The sandbox backends that work here, probed once and cached in `$WICKET_HOME/cache`.
pub fn probe() -> wicket_sandbox::Probe {
    let cache = wicket_home().ok().map(|h| h.join("cache").join("sandbox-probe.json"));
    wicket_sandbox::Probe::cached(cache.as_deref())
}

/// Where commands run, from the settings and the flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// In the OS sandbox with this backend.
    Sandbox(wicket_sandbox::Backend),
    /// On the host; the text says why (shown to the person once).
    Host(String),
}

/// Why commands cannot run as configured.
#[derive(Debug, thiserror::Error)]
pub enum PlacementError {
    /// The strict profile or `executor: "os"` needs a sandbox that is not here.
    #[error("{0}")]
    NoSandbox(String),
}

/// Decide where commands run: `executor` (`auto`: the sandbox when there is one, else the host
/// with a notice; `os`: the sandbox or an error; `host`) and the strict profile, which a project
/// can turn on but never off and which forbids the host.
pub fn placement(loaded: &Loaded, no_sandbox: bool) -> Result<Placement, PlacementError> {
    use wicket_policy::settings::{Executor, Profile};
    let layers: Vec<&Settings> = loaded.user.iter().chain(loaded.project.iter()).collect();
    let strict = layers.iter().any(|s| s.profile == Some(Profile::Strict));
    let executor = layers.iter().rev().find_map(|s| s.executor).unwrap_or(Executor::Auto);
    let fix = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and check `wicket doctor`";
    if strict && (executor == Executor::Host || no_sandbox) {
        return Err(PlacementError::NoSandbox(
            "the strict profile runs commands only in the OS sandbox: remove `executor: \"host\"` and --no-sandbox"
                .into(),
        ));
    }
    if executor == Executor::Host || no_sandbox {
        return Ok(Placement::Host("commands run on the host, as configured".into()));
    }
    let probe = probe();
    if probe.backend.confines() {
        return Ok(Placement::Sandbox(probe.backend));
    }
    let why = probe.bwrap_works.err().unwrap_or_else(|| "no sandbox backend works here".into());
    if strict || executor == Executor::Os {
        return Err(PlacementError::NoSandbox(format!(
            "the {} needs the OS sandbox, and there is none here ({why}); {fix}",
            if strict { "strict profile" } else { "executor \"os\"" }
        )));
    }
    Ok(Placement::Host(format!("no OS sandbox here ({why}), so commands run on the host and ask first; {fix}")))
}

/// Build the engine's configuration: user rules, project rules, then flags (which count as
/// the user's own). The mode comes from the flag, else the project, else the user.
pub fn policy_config(root: &Path, loaded: &Loaded, o: &Overrides) -> PolicyConfig {
    let layers: Vec<&Settings> = loaded.user.iter().chain(loaded.project.iter()).collect();
    let mut cfg = PolicyConfig { root: root.to_path_buf(), home: home_dir(), ..PolicyConfig::default() };
    for s in &layers {
        cfg.allow.extend(s.permissions.allow.iter().cloned());
        cfg.deny.extend(s.permissions.deny.iter().cloned());
        cfg.ask.extend(s.permissions.ask.iter().cloned());
    }
    cfg.allow.extend(o.allow.iter().cloned());
    cfg.deny.extend(o.deny.iter().cloned());
    cfg.ask.extend(o.ask.iter().cloned());
    cfg.mode = o.mode.or_else(|| layers.iter().rev().find_map(|s| s.mode)).unwrap_or_default();
    cfg.unattended = o.unattended;
    cfg.sandbox = matches!(placement(loaded, o.no_sandbox), Ok(Placement::Sandbox(_)));
    cfg
}
