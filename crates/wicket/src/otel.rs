//! Export of the audit log at the edge: is it on, and starting the exporter after a line.
//!
//! The hard question: what may export cost a decision? Nothing it waits for. When export is
//! off (the default) a written line costs one load of a flag. When it is on, a written line
//! marks the exporter as owed; a hook starts it only after its answer is out
//! ([`defer_kicks`], [`kick_owed`]), other front ends right away, and starting it is one
//! lock tried without waiting and, when it is free, one process started and not waited for
//! (`wicket-otel-export`, installed beside `wicket`; see `wicket_otel::drain`). Telemetry never changes a decision:
//! every failure here is swallowed (the exporter records its own in
//! `$WICKET_HOME/otel/status`).

use std::path::Path;
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use wicket_otel::{ExportConfig, ExportSettings, OtelError};
use wicket_policy::Settings;

use crate::config;

/// Whether export is on, once known for this process.
static ENABLED: OnceLock<bool> = OnceLock::new();
/// A hook: start the exporter only after the answer is out.
static DEFERRED: AtomicBool = AtomicBool::new(false);
/// A line was written since the exporter was last started (or found running).
static OWED: AtomicBool = AtomicBool::new(false);
/// Exporters this process started, reaped when they end (a long-lived front end would
/// otherwise keep them as zombies).
static CHILDREN: Mutex<Vec<Child>> = Mutex::new(Vec::new());

/// The user's settings were read (by [`config::load_in`]): remember whether they switch
/// export on, so a written line need not read them again.
pub fn note_user_settings(user: Option<&Settings>) {
    let enabled = user.and_then(|s| s.telemetry.otlp.as_ref()).and_then(|o| o.enabled);
    let _ = ENABLED.set(wicket_otel::config::enabled(enabled, env));
}

/// Is export on for this process? From the user's settings (read now if no settings were
/// loaded yet; a broken file counts as off here, and `wicket policy lint` names it) and
/// the `OTEL_*` variables.
pub fn enabled() -> bool {
    *ENABLED.get_or_init(|| {
        let user =
            config::wicket_home().ok().and_then(|h| config::read_settings(&h.join("settings.json")).ok().flatten());
        let enabled = user.as_ref().and_then(|s| s.telemetry.otlp.as_ref()).and_then(|o| o.enabled);
        wicket_otel::config::enabled(enabled, env)
    })
}

/// A process that answers one call and exits (a hook): the exporter is started after the
/// answer, by [`kick_owed`].
pub fn defer_kicks() {
    DEFERRED.store(true, Ordering::SeqCst);
}

/// A line was appended to a project's chain: start the exporter (now, or after the answer
/// for a hook) when export is on.
pub fn appended() {
    if !enabled() {
        return;
    }
    OWED.store(true, Ordering::SeqCst);
    if !DEFERRED.load(Ordering::SeqCst) {
        kick_owed();
    }
}

/// Start the exporter if a line is owed to it and none is running.
pub fn kick_owed() {
    if !OWED.swap(false, Ordering::SeqCst) {
        return;
    }
    let Ok(mut children) = CHILDREN.lock() else { return };
    children.retain_mut(|c| matches!(c.try_wait(), Ok(None)));
    let (Ok(home), Ok(exe)) = (config::wicket_home(), std::env::current_exe()) else { return };
    let exporter = exe.with_file_name(wicket_otel::EXPORTER);
    match wicket_otel::kick(&home, &exporter) {
        Ok(Some(child)) => children.push(child),
        Ok(None) => {}
        Err(e) => {
            // Nobody to tell on a hook's path: leave it where the exporter leaves its own news.
            let dir = wicket_otel::drain::otel_dir(&home);
            let line = format!(
                "{} failed: cannot start the exporter: {e}\n",
                wicket_audit::format_utc(wicket_audit::now_ms())
            );
            let _ = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(dir.join("status"), line));
        }
    }
}

/// The exporter's configuration: the user's `telemetry.otlp` settings filled in by the
/// `OTEL_EXPORTER_OTLP_*` variables; `None` when export is off. A broken settings file is an
/// error naming it.
pub fn export_config() -> Result<Option<ExportConfig>, ExportConfigError> {
    let home = config::wicket_home()?;
    let user = config::read_settings(&home.join("settings.json"))?;
    let settings = user.and_then(|s| s.telemetry.otlp).map(|o| ExportSettings {
        enabled: o.enabled,
        endpoint: o.endpoint,
        protocol: o.protocol.map(|p| p.as_str().to_string()),
        headers: o.headers,
        certificate: o.certificate.map(|c| expand_home(&c)),
        timeout_ms: o.timeout_ms,
    });
    Ok(wicket_otel::config::resolve(&settings.unwrap_or_default(), env)?)
}

/// Why the exporter's configuration cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum ExportConfigError {
    /// The settings file cannot be read.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    /// A setting or variable cannot be used.
    #[error(transparent)]
    Otel(#[from] OtelError),
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// `~/x` as the home's `x`.
fn expand_home(path: &str) -> std::path::PathBuf {
    match (path.strip_prefix("~/"), config::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => Path::new(path).to_path_buf(),
    }
}
