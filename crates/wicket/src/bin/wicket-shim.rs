//! `wicket-shim`: the small program wicket starts for its helper processes: the shim inside the
//! sandbox, which confines itself (Landlock, and seccomp where bubblewrap is not used) and
//! becomes the command; the keeper of a run's placeholders; and the supervisor of a command run
//! on the host.
//!
//! The same code as `wicket __sandbox-exec`, `wicket __sandbox-keeper` and
//! `wicket __host-supervise`, in a binary that links nothing else, so that starting it costs
//! about half of starting wicket (see docs/performance.md). Wicket uses it when it is
//! installed next to `wicket` (`cargo install` puts both there), and its own binary otherwise.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let status = match args.split_first() {
        Some((role, rest)) if role == wicket_sandbox::SHIM_ARG => wicket_sandbox::shim::main(rest),
        #[cfg(target_os = "linux")]
        Some((role, rest)) if role == wicket_sandbox::NS_ARG => wicket_sandbox::native::main(rest),
        Some((role, rest)) if role == wicket_sandbox::SUPERVISE_ARG => wicket_sandbox::supervise::main(rest),
        Some((role, rest)) if role == wicket_sandbox::KEEPER_ARG => wicket_sandbox::placeholders::keeper_main(rest),
        _ => {
            eprintln!("wicket-shim: started by wicket only (wicket-shim __sandbox-exec POLICY-JSON PROGRAM [ARGS…])");
            126
        }
    };
    ExitCode::from(u8::try_from(status.clamp(0, 255)).unwrap_or(126))
}
