//! `wicket-otel-export`: the exporter process wicket starts after an audit line when OTLP
//! export is on (see docs/telemetry.md).
//!
//! A program of its own, installed beside `wicket` (`cargo install` puts both there), so the
//! OTLP client (HTTP, gRPC, TLS) is not part of the binary every hook call starts. It runs
//! with no standard streams, so what happened is written to `$WICKET_HOME/otel/status` (one
//! line: when, how many lines were sent, and the last failure).

use std::process::ExitCode;
use std::time::Duration;

use wicket_otel::{Ran, RunOptions};

/// Run the exporter until the chains are sent and nothing new came for a while.
fn main() -> ExitCode {
    // Background work: the agent and the next hook come first on a busy machine.
    let _ = rustix::process::nice(10);
    let Ok(home) = wicket::config::wicket_home() else { return ExitCode::from(2) };
    let config = match wicket::otel::export_config() {
        Ok(Some(c)) => c,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => {
            status(&home, &format!("failed: {e}"));
            return ExitCode::from(2);
        }
    };
    let mut options = RunOptions::default();
    // Tests and the benchmark shorten or lengthen the wait for more lines.
    if let Some(ms) = std::env::var("WICKET_OTEL_LINGER_MS").ok().and_then(|v| v.parse::<u64>().ok()) {
        options.linger = Duration::from_millis(ms);
    }
    // The standard batch delay, for those who want lines sooner or requests fewer.
    if let Some(ms) = std::env::var("OTEL_BLRP_SCHEDULE_DELAY").ok().and_then(|v| v.trim().parse::<u64>().ok()) {
        options.poll = Duration::from_millis(ms.max(1));
    }
    match wicket_otel::run(&home, &config, &options) {
        Ok(Ran::Busy) => ExitCode::SUCCESS,
        Ok(Ran::Done { sent, gave_up: None }) => {
            status(&home, &format!("ok: {sent} line(s) sent to {}", config.endpoint));
            ExitCode::SUCCESS
        }
        Ok(Ran::Done { sent, gave_up: Some(why) }) => {
            status(&home, &format!("failed: {sent} line(s) sent to {}, then: {why}", config.endpoint));
            ExitCode::from(1)
        }
        Err(e) => {
            status(&home, &format!("failed: {e}"));
            ExitCode::from(2)
        }
    }
}

/// Record the outcome; best effort (nobody is there to tell otherwise).
fn status(home: &std::path::Path, what: &str) {
    let dir = wicket_otel::drain::otel_dir(home);
    let _ = std::fs::create_dir_all(&dir);
    let line = format!("{} {what}\n", wicket_audit::format_utc(wicket_audit::now_ms()));
    let _ = std::fs::write(dir.join("status"), line);
}
