//! The wrapper reader asks the program catalogue what a program is; it names none itself. A
//! program name written here again would be a second list, and a second list drifts (issue 38:
//! three lists of shells let `ash -c` past a deny rule that `zsh -c` met).

use wicket_programs::{PROGRAMS, RUNNERS};

/// The sources that must name no catalogued program, read at build time.
const SOURCES: &[(&str, &str)] = &[("src/wrappers.rs", include_str!("../src/wrappers.rs"))];

#[test]
fn the_wrapper_reader_names_no_catalogued_program() {
    let mut found = Vec::new();
    for (file, text) in SOURCES {
        for (n, line) in text.lines().enumerate() {
            // Comments and doc examples may name programs; code may not.
            if line.trim_start().starts_with("//") {
                continue;
            }
            for name in PROGRAMS.iter().chain(RUNNERS).flat_map(|p| p.names.iter()) {
                if line.contains(&format!("\"{name}\"")) {
                    found.push(format!("{file}:{}: \"{name}\"", n + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "program names outside the catalogue:\n{}", found.join("\n"));
}
