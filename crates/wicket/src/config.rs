//! Loading settings from disk: the user's and the project's files, merged with flags.
//!
//! The hard question: which settings hold? A missing file is the defaults; a file that exists
//! but cannot be read or parsed stops wicket with the file and position, never a silent default.

use std::path::{Path, PathBuf};

use wicket_policy::settings::Executor;
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

/// Is an OS sandbox available here? (The sandbox itself comes with `wicket run`; until then
/// the check is whether its runner exists.)
pub fn sandbox_available() -> bool {
    let runner = if cfg!(target_os = "macos") { "sandbox-exec" } else { "bwrap" };
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(runner).is_file()))
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
    let host_executor = layers.iter().rev().find_map(|s| s.executor) == Some(Executor::Host);
    cfg.sandbox = !o.no_sandbox && !host_executor && sandbox_available();
    cfg
}
