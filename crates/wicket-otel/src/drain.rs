//! The exporter process: drain every project's chain to the collector, linger for more,
//! leave.
//!
//! The hard question: a hook answers in a millisecond or two and exits; who sends its line,
//! and how is no line left behind? After its line is appended, a process tries the
//! exporter's lock without waiting ([`kick`]): when it is free, it starts the exporter
//! ([`EXPORTER`]) on its own and goes on; when it is held, the exporter that holds it sends
//! the line. The exporter (`wicket-otel-export`) reads each chain from its last acknowledged line, sends it in
//! batches, lingers a little for more, then gives the lock up and looks once more: a line
//! appended while it held the lock (whose writer therefore started nobody) is still seen,
//! because that look comes after the writer's try. Nothing here runs on a decision's path:
//! the writer only tried a lock and perhaps started a process.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::fs::FlockOperation;

use crate::chain::{Project, OTEL_DIR};
use crate::config::ExportConfig;
use crate::error::OtelError;
use crate::export::{Exporter, Origin};

/// The exporter's lock file under `$WICKET_HOME/otel`.
pub const LOCK_FILE: &str = "lock";

/// The exporter program, installed beside `wicket`.
pub const EXPORTER: &str = "wicket-otel-export";

/// How the exporter paces itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOptions {
    /// How long to wait for more lines after the last one was sent.
    pub linger: Duration,
    /// How often to look for new lines and send what came (ten times less often once nothing
    /// came for two seconds): a burst of lines goes in one request, not one request a line
    /// (as `OTEL_BLRP_SCHEDULE_DELAY` for the SDK's batch processor).
    pub poll: Duration,
    /// The most lines in one request (the bounded queue: nothing more is held in memory).
    pub batch: usize,
    /// Give up (until the next writer starts an exporter) after this many failed requests in a row.
    pub max_failures: u32,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions { linger: Duration::from_secs(30), poll: Duration::from_millis(200), batch: 512, max_failures: 3 }
    }
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ran {
    /// Another exporter holds the lock: it sends the lines.
    Busy,
    /// Done: lines sent, and the last failure if the collector stopped answering.
    Done {
        /// Lines the collector acknowledged.
        sent: u64,
        /// Why the run gave up early, if it did.
        gave_up: Option<String>,
    },
}

/// The exporter's folder: `$WICKET_HOME/otel`.
pub fn otel_dir(home: &Path) -> PathBuf {
    home.join(OTEL_DIR)
}

/// Take the exporter's lock without waiting; `None` when another process holds it.
pub fn try_lock(home: &Path) -> Result<Option<File>, OtelError> {
    let dir = otel_dir(home);
    let path = dir.join(LOCK_FILE);
    let io = |source| OtelError::Io { path: path.clone(), source };
    let open = || {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new().create(true).truncate(false).write(true).mode(0o600).open(&path)
    };
    let file = match open() {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir).map_err(io)?;
            open().map_err(io)?
        }
        Err(e) => return Err(io(e)),
    };
    match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(Some(file)),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(None),
        Err(e) => Err(io(e.into())),
    }
}

/// After a line was appended: start the exporter `exe` (on its own, with no standard
/// streams) unless one is running. Returns the started process, for the caller to reap;
/// never waits for it.
pub fn kick(home: &Path, exe: &Path) -> Result<Option<Child>, OtelError> {
    if try_lock(home)?.is_none() {
        return Ok(None);
    }
    // The lock is let go before the exporter starts; it takes it again. Two writers may
    // both start one: the second finds it taken and leaves.
    use std::os::unix::process::CommandExt;
    let child = Command::new(exe)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own process group: a Ctrl-C to the agent, or a run's group kill, is not for it.
        .process_group(0)
        .spawn()
        .map_err(|source| OtelError::Io { path: exe.to_path_buf(), source })?;
    Ok(Some(child))
}

/// Drain every project under `$WICKET_HOME/audit` to the collector (see the module doc).
pub fn run(home: &Path, config: &ExportConfig, options: &RunOptions) -> Result<Ran, OtelError> {
    let Some(lock) = try_lock(home)? else { return Ok(Ran::Busy) };
    note_pid(&lock);
    let mut lock = Some(lock);
    let mut exporter = Exporter::new(config, Origin::here())?;
    let audit = home.join(wicket_audit::AUDIT_DIR);
    let otel = otel_dir(home);
    let mut projects: BTreeMap<String, Project> = BTreeMap::new();
    let (mut sent, mut failures) = (0u64, 0u32);
    let mut idle_since = Instant::now();
    loop {
        let written_before = chain_bytes(&audit);
        refresh(&audit, &otel, &mut projects);
        let mut progressed = false;
        let mut failed = None;
        'projects: for p in projects.values_mut() {
            loop {
                let Ok(batch) = p.peek(options.batch.max(1)) else { continue 'projects };
                if batch.lines.is_empty() {
                    p.commit(batch)?;
                    break;
                }
                let n = batch.lines.len() as u64;
                match exporter.send(&p.name, &batch.lines) {
                    Ok(()) => {
                        p.commit(batch)?;
                        sent += n;
                        progressed = true;
                    }
                    Err(e) => {
                        failed = Some(e.to_string());
                        break 'projects;
                    }
                }
            }
        }
        if let Some(why) = failed {
            failures += 1;
            if failures >= options.max_failures {
                // A line written after this last try began, by a process that found the lock
                // taken, started nobody: if the collector is back it would wait for the next
                // decision. So, lock given up, one more round when the chains grew.
                drop(lock.take());
                if chain_bytes(&audit) > written_before {
                    if let Some(l) = try_lock(home)? {
                        note_pid(&l);
                        lock = Some(l);
                        projects.clear();
                        failures -= 1;
                        std::thread::sleep(Duration::from_millis(250) * failures);
                        continue;
                    }
                }
                return Ok(Ran::Done { sent, gave_up: Some(why) });
            }
            std::thread::sleep(Duration::from_millis(250) * failures);
            continue;
        }
        failures = 0;
        if progressed {
            idle_since = Instant::now();
        } else if idle_since.elapsed() >= options.linger {
            drop(lock.take());
            refresh(&audit, &otel, &mut projects);
            let more = projects.values_mut().any(|p| p.peek(1).is_ok_and(|b| !b.lines.is_empty()));
            if !more {
                return Ok(Ran::Done { sent, gave_up: None });
            }
            match try_lock(home)? {
                Some(l) => {
                    note_pid(&l);
                    lock = Some(l);
                    // Another exporter may have sent lines while the lock was free: read on
                    // from the acknowledged state again, not from where this one stood.
                    projects.clear();
                    idle_since = Instant::now();
                    continue;
                }
                None => return Ok(Ran::Done { sent, gave_up: None }),
            }
        }
        // An agent's calls come in bursts seconds apart: look often while they come, and
        // seldom while the exporter only waits to save the next burst a start.
        let quiet = idle_since.elapsed() >= Duration::from_secs(2);
        std::thread::sleep(if quiet { options.poll * 10 } else { options.poll });
    }
}

/// Write the holder's pid into the lock file, so a person (or a test) can tell which process
/// exports. Best effort: the lock is the flock, not the text.
fn note_pid(mut lock: &File) {
    use std::io::Write;
    let _ = lock.set_len(0).and_then(|()| lock.write_all(format!("{}\n", std::process::id()).as_bytes()));
}

/// The bytes in every project's chain files: more than before means a line was written since.
fn chain_bytes(audit: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(audit) else { return 0 };
    let mut total = 0;
    for project in rd.filter_map(Result::ok) {
        let Ok(files) = std::fs::read_dir(project.path()) else { continue };
        for f in files.filter_map(Result::ok) {
            if f.file_name().to_str().and_then(wicket_audit::segment_seq).is_some() {
                total += f.metadata().map_or(0, |m| m.len());
            }
        }
    }
    total
}

/// Add the project folders that appeared since the last look.
fn refresh(audit: &Path, otel: &Path, projects: &mut BTreeMap<String, Project>) {
    let Ok(rd) = std::fs::read_dir(audit) else { return };
    for e in rd.filter_map(Result::ok) {
        if !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        projects.entry(name).or_insert_with(|| Project::new(e.path(), otel));
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use wicket_audit::{AuditLog, AuditOptions, Event};

    use super::*;
    use crate::config::Protocol;

    /// A loopback HTTP server that answers 200 to every request; counts the requests.
    fn collector() -> (u16, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        let count = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&count);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let seen = Arc::clone(&seen);
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream);
                    loop {
                        let mut length = 0usize;
                        let mut line = String::new();
                        loop {
                            line.clear();
                            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                                return;
                            }
                            if line == "\r\n" {
                                break;
                            }
                            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                                length = v.trim().parse().unwrap_or(0);
                            }
                        }
                        let mut body = vec![0; length];
                        if reader.read_exact(&mut body).is_err() {
                            return;
                        }
                        seen.fetch_add(1, Ordering::SeqCst);
                        let _ = reader.get_mut().write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
                    }
                });
            }
        });
        (port, count)
    }

    fn write(home: &Path, project: &str, n: usize) {
        let mut log = AuditLog::new(home.join("audit").join(project), "s", AuditOptions::default());
        for i in 0..n {
            let t = format!("echo {i}");
            if log.record(&Event::decision("bash", &t, "allow_sandbox", "sandboxed")).is_err() {
                panic!("cannot write the test log");
            }
        }
    }

    fn config(port: u16) -> ExportConfig {
        ExportConfig {
            protocol: Protocol::HttpProtobuf,
            endpoint: format!("http://127.0.0.1:{port}/v1/logs"),
            headers: Default::default(),
            certificate: None,
            timeout: Duration::from_secs(20),
        }
    }

    #[test]
    fn sends_every_project_in_batches_then_only_what_is_new() -> Result<(), Box<dyn std::error::Error>> {
        let home = tempfile::tempdir()?;
        write(home.path(), "a-11111111", 7);
        write(home.path(), "b-22222222", 3);
        let (port, requests) = collector();
        let options = RunOptions { linger: Duration::ZERO, batch: 4, ..RunOptions::default() };
        assert_eq!(run(home.path(), &config(port), &options)?, Ran::Done { sent: 10, gave_up: None });
        // 7 lines in batches of 4 and 3 lines: three requests.
        assert_eq!(requests.load(Ordering::SeqCst), 3);
        let exported = |p: &str| Project::new(home.path().join("audit").join(p), &otel_dir(home.path())).exported().seq;
        assert_eq!((exported("a-11111111"), exported("b-22222222")), (7, 3));
        write(home.path(), "b-22222222", 2);
        assert_eq!(run(home.path(), &config(port), &options)?, Ran::Done { sent: 2, gave_up: None });
        assert_eq!(exported("b-22222222"), 5);
        // While another exporter holds the lock, this one leaves at once.
        let held = try_lock(home.path())?;
        assert!(held.is_some());
        assert_eq!(run(home.path(), &config(port), &options)?, Ran::Busy);
        Ok(())
    }

    #[test]
    fn a_collector_that_is_down_leaves_the_state_alone() -> Result<(), Box<dyn std::error::Error>> {
        let home = tempfile::tempdir()?;
        write(home.path(), "a-11111111", 2);
        // A port nobody listens on.
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let options = RunOptions { linger: Duration::ZERO, max_failures: 1, ..RunOptions::default() };
        let ran = run(home.path(), &config(port), &options)?;
        assert!(matches!(ran, Ran::Done { sent: 0, gave_up: Some(_) }), "{ran:?}");
        assert!(!otel_dir(home.path()).join(crate::chain::EXPORTED_DIR).exists());
        Ok(())
    }
}
