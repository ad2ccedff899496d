//! Loading configuration from disk: the team policy (managed file, then the user's), the
//! user's settings and the project's, merged with flags.
//!
//! The hard question: which settings hold? A missing file is the defaults; a file that exists
//! but cannot be read or parsed stops wicket with the file and position, never a silent default.
//! A project's own `policy.json` is never read, and the parts of its settings that loosen
//! safety apply only with the person's consent (see [`crate::consent`]).

use std::path::{Path, PathBuf};

use wicket_policy::settings::Profile;
use wicket_policy::{Mode, PolicyConfig, Settings, SettingsError, TeamPolicy};

use crate::approver::Consent;
use crate::consent::{without_loosening, ConsentAsker, Loosening};
use crate::trust::{PinKind, TrustStore};

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
    /// No project holds the folder wicket started in, and that folder is `/` or the home folder.
    #[error(
        "no project here: {start} is {what}, which wicket never takes as a project root on its own (its rules \
         and accept-edits would then cover everything in it); run it inside a project (a folder holding .git or \
         .wicket), or pass --root {start} to mean it"
    )]
    NoProject {
        /// Where the search started.
        start: String,
        /// "the root folder" or "your home folder".
        what: &'static str,
    },
}

/// How the project root was found (`explain` and `policy show` say it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootFrom {
    /// Named by `--root`.
    Flag,
    /// The nearest folder at or above the start that holds this (`.wicket` or `.git`).
    Marker(&'static str),
    /// The start folder itself: no folder at or above it holds `.wicket` or `.git`.
    Start,
}

impl std::fmt::Display for RootFrom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RootFrom::Flag => f.write_str("given by --root"),
            RootFrom::Marker(m) => write!(f, "the nearest folder holding {m}"),
            RootFrom::Start => f.write_str("the current folder (no .git or .wicket at or above it)"),
        }
    }
}

/// The project root: `explicit` (`--root`) as given; else the nearest folder at or above
/// `start` (the current folder, or the folder an agent's payload names) that holds `.wicket/`
/// or `.git`; else `start`. The search never takes `/` or the home folder (which holds wicket's
/// own `.wicket`), and stops below them; without `--root`, either as the start is an error.
pub fn project_root(explicit: Option<&Path>, start: &Path) -> Result<(PathBuf, RootFrom), ConfigError> {
    if let Some(root) = explicit {
        return Ok((root.to_path_buf(), RootFrom::Flag));
    }
    let home = home_dir();
    let is_home = |d: &Path| home.as_deref().is_some_and(|h| h.components().eq(d.components()));
    let is_top = |d: &Path| d.parent().is_none();
    for dir in start.ancestors() {
        if is_top(dir) || is_home(dir) {
            break;
        }
        if dir.join(".wicket").is_dir() {
            return Ok((dir.to_path_buf(), RootFrom::Marker(".wicket")));
        }
        // A folder, a `gitdir:` file (worktrees, submodules) or a link: git's own test.
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            return Ok((dir.to_path_buf(), RootFrom::Marker(".git")));
        }
    }
    if is_top(start) || is_home(start) {
        let what = if is_top(start) { "the root folder" } else { "your home folder" };
        return Err(ConfigError::NoProject { start: start.display().to_string(), what });
    }
    Ok((start.to_path_buf(), RootFrom::Start))
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
    let Some(text) = read_text(file)? else { return Ok(None) };
    Ok(Some(Settings::parse(&text, &file.display().to_string())?))
}

/// Read one team policy file; a missing file gives `None`.
pub fn read_policy(file: &Path) -> Result<Option<TeamPolicy>, ConfigError> {
    let Some(text) = read_text(file)? else { return Ok(None) };
    Ok(Some(TeamPolicy::parse(&text, &file.display().to_string())?))
}

fn read_text(file: &Path) -> Result<Option<String>, ConfigError> {
    match std::fs::read_to_string(file) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ConfigError::Read { file: file.display().to_string(), source }),
    }
}

/// The variable that moves the managed policy file, for tests. Honoured only by debug builds
/// (the test builds): a released wicket always reads the platform's managed file, so nobody
/// who can set an environment variable can move a team's policy out of the way.
pub const MANAGED_POLICY_ENV: &str = "WICKET_MANAGED_POLICY";

/// The managed team policy: `/etc/wicket/policy.json` on Linux, `/Library/Application
/// Support/Wicket/policy.json` on macOS (debug builds: `$WICKET_MANAGED_POLICY` if set).
pub fn managed_policy_path() -> PathBuf {
    if cfg!(debug_assertions) {
        if let Some(p) = std::env::var_os(MANAGED_POLICY_ENV).filter(|p| !p.is_empty()) {
            return PathBuf::from(p);
        }
    }
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/Wicket/policy.json")
    } else {
        PathBuf::from("/etc/wicket/policy.json")
    }
}

/// Where a value came from, for `wicket policy show`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The managed team policy.
    Managed,
    /// `$WICKET_HOME/policy.json`.
    UserPolicy,
    /// `$WICKET_HOME/settings.json`.
    UserSettings,
    /// `<root>/.wicket/settings.json`, applied.
    Project,
    /// `<root>/.wicket/settings.json`, waiting for consent (not applied).
    ProjectWaiting,
    /// A flag.
    CommandLine,
    /// Nothing set it.
    Default,
}

impl Source {
    /// The label shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Managed => "managed policy",
            Source::UserPolicy => "user policy",
            Source::UserSettings => "user settings",
            Source::Project => "project settings",
            Source::ProjectWaiting => "project settings, waiting for consent (not applied)",
            Source::CommandLine => "command line",
            Source::Default => "default",
        }
    }
}

/// One team policy file that was read.
#[derive(Debug, Clone)]
pub struct TeamLayer {
    /// Managed or the user's.
    pub source: Source,
    /// The file.
    pub file: PathBuf,
    /// What it says.
    pub policy: TeamPolicy,
}

/// What became of the project settings' loosening parts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ProjectConsent {
    /// No project settings, or nothing in them loosens safety.
    #[default]
    NotNeeded,
    /// Their hash is pinned in the trust store: applied.
    Pinned,
    /// The person said yes now (`remembered`: and pinned it).
    Granted {
        /// Pinned for next time.
        remembered: bool,
    },
    /// Not applied: nobody said yes (`refused`: the person said no).
    Withheld {
        /// The parts dropped, described.
        parts: Vec<String>,
        /// The person said no (rather than: nobody could be asked).
        refused: bool,
    },
}

impl ProjectConsent {
    /// True when the loosening parts apply.
    pub fn applied(&self) -> bool {
        !matches!(self, ProjectConsent::Withheld { .. })
    }
}

/// The settings that apply to a root: the team policy, the user's file, then the project's.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The user's settings (`$WICKET_HOME/settings.json`).
    pub user: Option<Settings>,
    /// The project's settings as they apply: without the loosening parts unless consented.
    pub project: Option<Settings>,
    /// The project's settings as the file says.
    pub project_raw: Option<Settings>,
    /// The project's settings file.
    pub project_file: PathBuf,
    /// What became of the project's loosening parts.
    pub consent: ProjectConsent,
    /// The SHA-256 of the project's loosening parts, when it has any.
    pub project_hash: Option<String>,
    /// The team policy files read, managed first.
    pub team_layers: Vec<TeamLayer>,
    /// The merged team policy (with the strict profile when any settings file asks for it).
    pub team: TeamPolicy,
    /// Things the person should know (printed on stderr, `wicket: notice: …`, once per project
    /// until they change: see [`crate::notices`]).
    pub notices: Vec<String>,
    /// The project root the settings were loaded for.
    pub root: PathBuf,
    /// The files read, for `explain`.
    pub files: Vec<PathBuf>,
}

impl Loaded {
    /// The person's own mode (user settings, else default).
    pub fn user_mode(&self) -> Mode {
        self.user.as_ref().and_then(|u| u.mode).unwrap_or_default()
    }

    /// `commands.host` of the user's settings and the project's (as they apply): the commands
    /// that run on the host where an agent's hook would move them into the sandbox.
    pub fn host_commands(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in self.user.iter().chain(self.project.iter()) {
            for p in &s.commands.host {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
        }
        out
    }

    /// Print the notices on stderr, one line each, those not shown before for this project.
    pub fn print_notices(&self) {
        let seen = crate::notices::Seen::from_env();
        for n in &self.notices {
            seen.print(&self.root, n);
        }
    }
}

/// Load the team policy, the user's and the project's settings, without asking anybody:
/// the project's loosening parts apply only when pinned in the trust store.
pub fn load(root: &Path) -> Result<Loaded, ConfigError> {
    load_with(root, None)
}

/// Load as [`load`], and ask `asker` about project settings that loosen safety and are not
/// pinned ("remember" pins them in `$WICKET_HOME/trust.json`).
pub fn load_with(root: &Path, asker: Option<&mut dyn ConsentAsker>) -> Result<Loaded, ConfigError> {
    load_in(root, &Places::from_env()?, asker)
}

/// Where wicket's files are: `$WICKET_HOME` and the managed policy file.
#[derive(Debug, Clone)]
pub struct Places {
    /// `$WICKET_HOME` (user settings and policy, trust store, audit log).
    pub home: PathBuf,
    /// The managed team policy file.
    pub managed: PathBuf,
}

impl Places {
    /// The places this process uses: [`wicket_home`] and [`managed_policy_path`].
    pub fn from_env() -> Result<Places, ConfigError> {
        Ok(Places { home: wicket_home()?, managed: managed_policy_path() })
    }
}

/// Load as [`load_with`], from explicit places (for embedding and tests).
pub fn load_in(root: &Path, places: &Places, asker: Option<&mut dyn ConsentAsker>) -> Result<Loaded, ConfigError> {
    let home = places.home.clone();
    let mut loaded = Loaded { root: root.to_path_buf(), ..Loaded::default() };
    // The team policy: the managed file, then the user's; never the project's.
    for (source, file) in [(Source::Managed, places.managed.clone()), (Source::UserPolicy, home.join("policy.json"))] {
        if let Some(policy) = read_policy(&file)? {
            loaded.files.push(file.clone());
            loaded.team_layers.push(TeamLayer { source, file, policy });
        }
    }
    let project_policy = root.join(".wicket").join("policy.json");
    if std::fs::symlink_metadata(&project_policy).is_ok() {
        loaded.notices.push(format!(
            "{} is never read: a team policy comes only from {} or {}",
            project_policy.display(),
            places.managed.display(),
            home.join("policy.json").display()
        ));
    }
    let user_file = home.join("settings.json");
    loaded.user = read_settings(&user_file)?;
    crate::otel::note_user_settings(loaded.user.as_ref());
    if loaded.user.is_some() {
        loaded.files.push(user_file);
    }
    loaded.project_file = root.join(".wicket").join("settings.json");
    loaded.project_raw = read_settings(&loaded.project_file)?;
    if loaded.project_raw.is_some() {
        loaded.files.push(loaded.project_file.clone());
    }
    // A project must not send its people's audit log elsewhere.
    if loaded.project_raw.as_ref().is_some_and(|s| s.telemetry.otlp.is_some()) {
        loaded.notices.push(format!(
            "{}: `telemetry` is never read from a project's settings: set it in {}",
            loaded.project_file.display(),
            home.join("settings.json").display()
        ));
    }
    // Any settings file can turn the strict profile on; none can turn it off.
    let mut team = TeamPolicy::merge(loaded.team_layers.iter().map(|l| &l.policy));
    let settings_strict =
        loaded.user.iter().chain(loaded.project_raw.iter()).any(|s| s.profile == Some(Profile::Strict));
    if settings_strict {
        team = team.with_strict();
    }
    loaded.team = team;
    gate_project(&mut loaded, root, &home, asker);
    Ok(loaded)
}

/// Apply the project's loosening parts only with consent.
fn gate_project(loaded: &mut Loaded, root: &Path, home: &Path, asker: Option<&mut dyn ConsentAsker>) {
    let Some(raw) = loaded.project_raw.clone() else { return };
    let user_mode = loaded.user_mode();
    let loosening = Loosening::of(&raw, user_mode);
    if loosening.is_empty() {
        loaded.project = Some(raw);
        return;
    }
    let hash = loosening.hash();
    loaded.project_hash = Some(hash.clone());
    let parts = loosening.describe(user_mode);
    let (mut store, broken) = TrustStore::load(&home.join(crate::trust::TRUST_FILE));
    if let Some(n) = broken {
        loaded.notices.push(n);
    }
    if store.is_pinned(root, PinKind::Settings, None, &hash) {
        loaded.consent = ProjectConsent::Pinned;
        loaded.project = Some(raw);
        return;
    }
    let answer = asker.and_then(|a| a.ask(&loaded.project_file, &parts));
    match answer {
        Some(Consent::Once) => {
            loaded.consent = ProjectConsent::Granted { remembered: false };
            loaded.project = Some(raw);
        }
        Some(Consent::Remember) => {
            store.pin(root, PinKind::Settings, None, &hash);
            let remembered = match store.save() {
                Ok(()) => true,
                Err(e) => {
                    loaded.notices.push(format!("applied for this run, but not remembered: {e}"));
                    false
                }
            };
            loaded.consent = ProjectConsent::Granted { remembered };
            loaded.project = Some(raw);
        }
        Some(Consent::No) | None => {
            let refused = answer.is_some();
            loaded.notices.push(format!(
                "{}: not applied, because they loosen safety and {}: {}. Deny and ask rules apply as usual; {}",
                loaded.project_file.display(),
                if refused { "you said no" } else { "nobody has agreed to them" },
                parts.join("; "),
                "`wicket trust approve` shows them in full and agrees to them, and `wicket policy show` lists them"
            ));
            loaded.consent = ProjectConsent::Withheld { parts, refused };
            loaded.project = Some(without_loosening(&raw, user_mode));
        }
    }
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
    // A forced backend has its own file, so runs with and without it do not probe in turn.
    let name = match std::env::var("WICKET_SANDBOX_BACKEND") {
        Ok(b) if !b.is_empty() && b.chars().all(|c| c.is_ascii_alphanumeric()) => format!("sandbox-probe-{b}.json"),
        _ => "sandbox-probe.json".to_string(),
    };
    let cache = wicket_home().ok().map(|h| h.join("cache").join(name));
    wicket_sandbox::Probe::cached(cache.as_deref())
}

/// The project scan's cache for `root`, in `$WICKET_HOME/cache/scan/`, one file a project (see
/// `wicket_planner::scan_cache`).
pub fn scan_cache(root: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let name = crate::trust::sha256_hex(real.as_os_str().as_encoded_bytes());
    wicket_home().ok().map(|h| h.join("cache").join("scan").join(format!("{}.json", &name[..32])))
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
    use wicket_policy::settings::Executor;
    let layers: Vec<&Settings> = loaded.user.iter().chain(loaded.project.iter()).collect();
    let strict = loaded.team.strict();
    let executor = layers.iter().rev().find_map(|s| s.executor).unwrap_or(Executor::Auto);
    // Under the strict profile `executor: "host"` is an error wherever it is written, also in
    // project settings nobody agreed to: the configuration contradicts itself.
    let host_written = loaded.user.iter().chain(loaded.project_raw.iter()).any(|s| s.executor == Some(Executor::Host));
    let fix = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and check `wicket doctor`";
    if strict && (host_written || no_sandbox) {
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

/// The permission mode: the flag, else the project's, else the user's, else `default`.
pub fn mode(loaded: &Loaded, o: &Overrides) -> wicket_policy::Mode {
    o.mode
        .or_else(|| loaded.project.as_ref().and_then(|s| s.mode))
        .or_else(|| loaded.user.as_ref().and_then(|s| s.mode))
        .unwrap_or_default()
}

/// Build the engine's configuration: user rules, project rules, then flags (which count as
/// the user's own). The mode comes from the flag, else the project, else the user. Asks git
/// for its configuration (a process): build it once per run.
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
    cfg.mode = mode(loaded, o);
    cfg.unattended = o.unattended;
    cfg.sandbox = matches!(placement(loaded, o.no_sandbox), Ok(Placement::Sandbox(_)));
    cfg.sandbox_network = layers.iter().any(|s| s.network.opens());
    cfg.team = loaded.team.clone();
    // Git says which configuration it reads here; the pure engine must not run it.
    cfg.git_config = Some(crate::gitconfig::read(root, cfg.home.as_deref()));
    // The pure engine reads no environment: the PATH folders a write would plant programs in.
    cfg.path_dirs = writable_path_dirs();
    // What a sandboxed command's environment may hold: what wicket passes on, what points its
    // tools at the proxy, and what the shim and bash set (`PWD`, bash's own are the engine's).
    let extra: Vec<String> = layers.iter().flat_map(|s| s.env.allow.iter().cloned()).collect();
    let mut names = wicket_planner::exec::env_names(&extra);
    names.extend(wicket_net::env::proxy_env("").into_iter().map(|(k, _)| k));
    // Only where wicket runs the command itself with that short environment.
    let clears = match placement(loaded, o.no_sandbox) {
        Ok(Placement::Sandbox(b)) => matches!(b.name(), "bwrap" | "landlock"),
        _ => false,
    };
    cfg.sandbox_env = clears.then_some(names);
    cfg
}

/// The folders on `PATH` the person can write (issue 39, class 4): a file written directly
/// into one is a program the host runs by name later, so the engine treats the write as
/// code-running configuration. The sandbox keeps the same folders read-only where a writable
/// path covers them (`wicket_planner::path_folders`, one answer for both). Relative entries
/// (`.`, `node_modules/.bin`) change with the folder a command runs in and are left to the
/// engine's fixed list; folders nobody here can write (`/usr/bin`) need no guard.
fn writable_path_dirs() -> Vec<PathBuf> {
    wicket_planner::path_folders::writable_path_dirs(std::env::var_os("PATH").as_deref())
}

/// Wicket's own state, which no sandboxed command may reach: `$WICKET_HOME` (made now if
/// missing, private, so a sandbox cannot be the one to create it) and the managed policy's
/// folder (only the file itself when that folder holds other things, as in tests that move it).
pub fn wicket_state() -> Vec<PathBuf> {
    let mut state = Vec::new();
    if let Ok(home) = wicket_home() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            let _ = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&home);
        }
        #[cfg(not(unix))]
        let _ = std::fs::create_dir_all(&home);
        state.push(home);
    }
    let managed = managed_policy_path();
    let platform = !cfg!(debug_assertions) || std::env::var_os(MANAGED_POLICY_ENV).is_none_or(|p| p.is_empty());
    match managed.parent() {
        Some(dir) if platform => state.push(dir.to_path_buf()),
        _ => state.push(managed),
    }
    state
}

/// What the sandbox needs from the settings to confine a command: the root, the home, the
/// mode, the user's and the project's `sandbox.writePaths`, `sandbox.denyRead`, `env.allow` and
/// allow rules (a rule naming a sensitive file keeps it readable), and the team's deny paths. `wicket run`, `wicket serve` and the MCP gateway build their
/// exec policy from this one place, so they confine alike.
pub fn exec_inputs(
    root: &Path,
    loaded: &Loaded,
    mode: Mode,
    timeout: Option<std::time::Duration>,
) -> wicket_planner::exec::ExecInputs {
    let mut inputs = wicket_planner::exec::ExecInputs {
        root: root.to_path_buf(),
        home: home_dir(),
        mode,
        timeout,
        deny_paths: loaded.team.deny_paths.clone(),
        scan_cache: scan_cache(root),
        state_dir: wicket_home().ok(),
        ..wicket_planner::exec::ExecInputs::default()
    };
    inputs.wicket_state = wicket_state();
    for s in loaded.user.iter().chain(loaded.project.iter()) {
        inputs.write_paths.extend(s.sandbox.write_paths.iter().cloned());
        inputs.deny_read.extend(s.sandbox.deny_read.iter().cloned());
        inputs.env_allow.extend(s.env.allow.iter().cloned());
        inputs.allow.extend(s.permissions.allow.iter().cloned());
        inputs.add_deny_rules(&s.permissions.deny);
    }
    inputs
}
