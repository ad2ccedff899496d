//! Signals to wicket while commands run: passed on to the commands, so wicket can end the
//! run as it ends any run.
//!
//! The hard question: when the person presses Ctrl-C, or a supervisor sends TERM to wicket,
//! what happens to the command and everything it started? By default wicket dies at once: a
//! command on the host runs on unsupervised in its own process group (which the terminal's
//! signal does not reach), a sandbox may outlive its starter for a moment, and the run is
//! never recorded. Once [`forward`] is called, INT, TERM and HUP are passed on to the process
//! group of every command this process runs (a second signal sends KILL; a command still
//! running 2 s later gets the signal again, and KILL 2 s after that); each run then ends
//! as usual (its exit status says the signal), its leftovers are killed, and the caller
//! records it. A command not yet started when the signal came is never started.

use std::sync::atomic::{AtomicI32, Ordering};

/// The process groups of the commands running now (0: a free slot).
static GROUPS: [AtomicI32; 64] = [const { AtomicI32::new(0) }; 64];

/// The first signal received after [`forward`] (0: none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// How often the grace timer has fired: once, the signal is sent again; then KILL.
static ESCALATED: AtomicI32 = AtomicI32::new(0);

/// Seconds before the signal is sent again, and then before KILL: a shell that received INT
/// in a critical section (forking a child) defers it and waits for a child that never got it.
const GRACE_SECS: u32 = 2;

/// Pass INT, TERM and HUP on to the running commands from now on, instead of dying of them.
/// Call once the command is decided (a person answering a prompt must still be able to
/// interrupt wicket itself).
pub fn forward() {
    #[cfg(unix)]
    for (sig, handler) in [
        (libc::SIGINT, on_signal as extern "C" fn(libc::c_int)),
        (libc::SIGTERM, on_signal),
        (libc::SIGHUP, on_signal),
        (libc::SIGALRM, on_alarm),
    ] {
        // SAFETY: sigaction with a handler that only makes async-signal-safe calls (atomics
        // and kill).
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = handler as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    let first = RECEIVED.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst).is_ok();
    let pass = if first { sig } else { libc::SIGKILL };
    if first {
        // SAFETY: alarm is async-signal-safe.
        unsafe { libc::alarm(GRACE_SECS) };
    }
    send(pass);
}

/// The grace after the first signal is over and a command still runs: send the signal once
/// more, and at the next expiry KILL.
#[cfg(unix)]
extern "C" fn on_alarm(_: libc::c_int) {
    let sig = RECEIVED.load(Ordering::SeqCst);
    if sig == 0 {
        return;
    }
    if ESCALATED.fetch_add(1, Ordering::SeqCst) == 0 {
        // SAFETY: alarm is async-signal-safe.
        unsafe { libc::alarm(GRACE_SECS) };
        send(sig);
    } else {
        send(libc::SIGKILL);
    }
}

/// Send `sig` to every running command's process group (async-signal-safe).
#[cfg(unix)]
fn send(pass: libc::c_int) {
    for g in &GROUPS {
        let group = g.load(Ordering::SeqCst);
        if group > 0 {
            // SAFETY: kill is async-signal-safe.
            unsafe { libc::kill(-group, pass) };
        }
    }
}

/// The signal received since [`forward`], if any.
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// A running command's process group, known to the handler until this is dropped.
#[derive(Debug)]
pub(crate) struct Tracked(Option<usize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            GROUPS[i].store(0, Ordering::SeqCst);
        }
    }
}

/// Pass signals on to the process group `group` (a command just spawned) until the value is
/// dropped. A signal that came before this is passed on now.
pub(crate) fn track(group: u32) -> Tracked {
    let Ok(group) = i32::try_from(group) else { return Tracked(None) };
    let slot = GROUPS.iter().position(|g| g.compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst).is_ok());
    if let Some(sig) = received() {
        #[cfg(unix)]
        // SAFETY: kill with a process group and a signal number.
        unsafe {
            libc::kill(-group, sig)
        };
    }
    Tracked(slot)
}
