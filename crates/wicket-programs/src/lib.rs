//! The program catalogue: everything wicket knows about a program, in one record per program.
//!
//! The main entry point is [`program`]: the record for a program word (by its base name), whose
//! [`Program::parse`] reads an argv the way that program's own option parser does. [`PROGRAMS`]
//! lists every record; a record registered nowhere or twice fails `tests/registry.rs`.
//!
//! The hard rule of this crate: it is the one place where program names live. The shell reader
//! (`wicket-shell`), the engine (`wicket-policy`) and the binary look programs up here, so a
//! fact about a program is added once and every consumer sees it. It is pure data and pure
//! functions: no disk, no environment, no processes, no dependencies.
//!
//! ```
//! let rm = wicket_programs::program("/bin/rm").unwrap();
//! assert_eq!(rm.parse(&["--rec", "--for", "x"]).normal_form("rm"), "rm -f -r x");
//! ```

pub mod grammar;

pub use grammar::{program, Arg, Effect, Found, Opt, Parsed, Program, Scripts, Style, PROGRAMS};
