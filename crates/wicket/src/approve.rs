//! Asking the person, for `wicket run`. (Replaced by the terminal approver.)

/// The person's answer.
pub enum Answer {
    /// Run it.
    Yes,
    /// Do not run it, and why.
    Deny(String),
}

/// Ask the person about a command.
pub fn ask(_command: &str, reason: &str, _always: Option<&wicket_policy::Rule>, _sandboxed: bool) -> Answer {
    Answer::Deny(format!("{reason} (no terminal approver yet)"))
}
