//! What a program does with its sub-commands and operands, beyond its options: configuration
//! writes that make later commands run code, package specs that install from a source the rule
//! does not name, files written under names the command never spells, process environments
//! read, and folders read recursively.
//!
//! The hard question: when an allow rule's `*` covers an argv, what can the argv still do that
//! the rule's author did not see? Each finding is either a word a rule must spell out
//! (`risky`), a write no rule can cover (`unknown_writes`), a file written that the path checks
//! must see (`writes`), a secret read outright (`environment`), or folders the program reads
//! everything below (`recursive`). Which program does what is the program catalogue's: each
//! record names its checker (`wicket_programs::checkers`); this module only adds what is about
//! paths, not programs.

/// What an argv (program first, static words) does beyond its options, by its record's checker.
pub use wicket_programs::checkers::effects as of;

/// Is this path (absolute, normalised) the environment of a process (`/proc/PID/environ`,
/// `/proc/self/task/TID/environ`)? Glob characters in the process part count as a match.
pub fn process_environment(abs: &str) -> Option<&'static str> {
    let rest = abs.strip_prefix("/proc/")?;
    let parts: Vec<&str> = rest.split('/').collect();
    let hit = matches!(parts.as_slice(), [_, "environ"] | [_, "task", _, "environ"])
        || (rest.ends_with("environ") && rest.contains(['*', '?', '[']));
    hit.then_some("/proc/*/environ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use wicket_programs::is_device;

    #[test]
    fn process_environments_and_devices() {
        assert_eq!(process_environment("/proc/1/environ"), Some("/proc/*/environ"));
        assert_eq!(process_environment("/proc/self/task/7/environ"), Some("/proc/*/environ"));
        assert_eq!(process_environment("/proc/*/environ"), Some("/proc/*/environ"));
        assert_eq!(process_environment("/proc/cpuinfo"), None);
        assert!(is_device("/dev/null"));
        assert!(is_device("/dev/fd/2"));
        assert!(!is_device("/dev/fd/3/../../../proc/self/environ"));
        assert!(!is_device("/dev/null/../sda"));
        assert!(!is_device("/dev/sda"));
    }
}
