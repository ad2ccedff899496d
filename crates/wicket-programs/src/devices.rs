//! Which path names are devices, not files. The hard question: when a program is told to write
//! `/dev/…`, is that a file it creates? `/dev/null` and `/dev/fd/1` are not; but
//! `/dev/fd/3/../../srv/out.txt` is `/srv/out.txt` to the kernel when fd 3 is a folder two
//! levels down (checked with curl here), and `/dev/null/../sda` is `/dev/sda`. So the name is
//! normalised first, and only a short list of exact names counts. Every consumer (the engine's
//! redirect targets, write options and effects) asks this one function.

/// Is this path, once `.`, `..` and repeated slashes are resolved by name, one of the devices a
/// command may write without writing a file (`/dev/null`, `/dev/stdout`, `/dev/stderr`,
/// `/dev/stdin`, `/dev/tty`, `/dev/zero`, `/dev/fd/N`)?
///
/// ```
/// use wicket_programs::is_device;
/// assert!(is_device("/dev/null") && is_device("/dev/fd/2"));
/// assert!(!is_device("/dev/fd/3/../../srv/out.txt"));
/// assert!(!is_device("/dev/null/../sda"));
/// ```
pub fn is_device(path: &str) -> bool {
    if !path.starts_with("/dev/") {
        return false;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    match parts.as_slice() {
        ["dev", "null" | "stdout" | "stderr" | "stdin" | "tty" | "zero"] => true,
        ["dev", "fd", n] => n.bytes().all(|b| b.is_ascii_digit()),
        _ => false,
    }
}
