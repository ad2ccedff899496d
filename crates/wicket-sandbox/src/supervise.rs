//! The host run's supervisor: `wicket __host-supervise PARENT PROGRAM [ARGS…]`, started by
//! `wicket run --no-sandbox` between itself and the command.
//!
//! The hard question: what ends a command that runs on the host, and everything it started,
//! when wicket itself is killed outright (`kill -9`, which cannot be caught or passed on)? The
//! kernel's death signal reaches only the direct child, and a daemon chain (`setsid`, double
//! forks) leaves the process group. So the direct child is this small supervisor: it is the
//! subreaper of the command's whole tree (every orphan is reparented to it), it gets a death
//! signal of its own when wicket dies, and then kills every process of the tree, to any depth.
//! When the command ends normally it kills what the command left and passes its status on.
//! INT, TERM and HUP that wicket passes on to the process group reach the command as usual;
//! the supervisor only waits for it.

use std::ffi::OsString;

/// The death signal the supervisor gets when wicket dies (one wicket never passes on).
#[cfg(target_os = "linux")]
pub(crate) const DEATH_SIGNAL: i32 = libc::SIGUSR1;

/// Run the supervisor with the arguments after `__host-supervise`; returns the exit status
/// (the command's, or 126/127 when it could not start, 137 when wicket died).
#[cfg(target_os = "linux")]
pub fn main(args: &[OsString]) -> i32 {
    // SAFETY: signal mask, prctl and getppid calls with values on this stack.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGCHLD, libc::SIGINT, libc::SIGTERM, libc::SIGHUP, DEATH_SIGNAL] {
            libc::sigaddset(&mut set, s);
        }
        // Signals are taken one at a time below, never by handlers.
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        let parent = args.first().and_then(|p| p.to_str()).and_then(|p| p.parse::<i32>().ok());
        if parent.is_none_or(|p| libc::getppid() != p) {
            // wicket is already gone (or this was not started by it): run nothing.
            return 126;
        }
        let Some((program, rest)) = args.get(1..).and_then(|a| a.split_first()) else {
            eprintln!("wicket: no command to supervise");
            return 126;
        };
        // The command keeps this process's group (wicket's signals reach both), its folder,
        // environment and descriptors, but not the mask above: std's spawn keeps it (a
        // command with INT and TERM blocked would outlive both), so the child clears it.
        let mut command = std::process::Command::new(program);
        command.args(rest);
        {
            use std::os::unix::process::CommandExt;
            command.pre_exec(|| {
                let mut none: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut none);
                if libc::pthread_sigmask(libc::SIG_SETMASK, &none, std::ptr::null_mut()) != 0 {
                    return Err(std::io::Error::other("cannot clear the signal mask"));
                }
                Ok(())
            });
        }
        let child = match command.spawn() {
            Ok(c) => c,
            Err(e) => {
                eprintln!("wicket: cannot run {}: {e}", program.to_string_lossy());
                return if e.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 };
            }
        };
        let pid = child.id() as i32;
        drop(child);
        loop {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let sig = libc::sigwaitinfo(&set, &mut info);
            if sig == DEATH_SIGNAL || libc::getppid() != parent.unwrap_or(0) {
                // wicket died: nothing of the run may stay.
                crate::runner::reap_orphans();
                return 137;
            }
            if sig != libc::SIGCHLD {
                // Passed on to the group by wicket: the command has it too; wait for it.
                continue;
            }
            let mut status = 0;
            loop {
                let got = libc::waitpid(-1, &mut status, libc::WNOHANG);
                if got <= 0 {
                    break;
                }
                if got == pid {
                    crate::runner::reap_orphans();
                    if libc::WIFEXITED(status) {
                        return libc::WEXITSTATUS(status);
                    }
                    return 128 + libc::WTERMSIG(status);
                }
            }
        }
    }
}

/// Elsewhere there is no supervisor (host runs are direct children).
#[cfg(not(target_os = "linux"))]
pub fn main(_: &[OsString]) -> i32 {
    126
}
