//! The program catalogue: everything wicket knows about a program, in one record per program.
//!
//! The main entry point is [`lookup`]: the record for a program word (by its base name), with
//! its [`Role`] (a shell, a launcher and where its command starts, or plain) and its grammar:
//! [`Program::parse`] reads an argv the way that program's own option parser does. The engine
//! reads options only with the tables whose effects are annotated, [`PROGRAMS`] (found with
//! [`program`]); the shells and launchers of [`RUNNERS`] are read only for what they run, and
//! the records of [`KNOWN`] hold facts only. Every record also says what the program does
//! beyond its options ([`facts`]: network use, shared jobs, the words it writes, the
//! [`checkers::Checker`] for what stays code) and carries examples. A record registered nowhere
//! or twice fails `tests/registry.rs`.
//!
//! The hard rule of this crate: it is the one place where program names live. The shell reader
//! (`wicket-shell`), the engine (`wicket-policy`) and the binary look programs up here, so a
//! fact about a program is added once and every consumer sees it. It is pure data and pure
//! functions: no disk, no environment, no processes, no dependencies.
//!
//! ```
//! use wicket_programs::{lookup, Role};
//! assert!(lookup("/usr/bin/ash").is_some_and(|p| p.role.is_shell()));
//! let rm = wicket_programs::program("/bin/rm").unwrap();
//! assert_eq!(rm.parse(&["--rec", "--for", "x"]).normal_form("rm"), "rm -f -r x");
//! assert_eq!(lookup("rm").map(|p| p.role), Some(Role::Plain));
//! ```

pub mod answers;
pub mod checkers;
mod configs;
mod devices;
mod environment;
pub mod facts;
pub mod grammar;
mod programs;
pub mod role;

pub use configs::{config_readers, config_values};
pub use devices::is_device;
pub use environment::{
    evaluated, harmless_assignment, holds_no_secret, import_path_adds_nothing, loads_code, only_tunes_output, Evaluated,
};
pub use facts::{Does, Example, Expect, Job, Network, SetsVariable, Writes};
pub use grammar::{program, Arg, Effect, Found, Opt, Parsed, Program, Scripts, Style, PROGRAMS};
pub use programs::{KNOWN, RUNNERS};
pub use role::{adds_nothing, Launch, LaunchSub, Role, ShellScript, Start, SubRuns, Walker};

/// The record for a program word (its base name): a table of [`PROGRAMS`], a record of
/// [`RUNNERS`] or one of [`KNOWN`].
pub fn lookup(word: &str) -> Option<&'static Program> {
    // By hand: `rsplit` cost two generic searcher steps per call, and the shell reader and
    // the engine look a dozen words up per command.
    let base = match word.as_bytes().iter().rposition(|b| *b == b'/') {
        Some(i) => &word[i + 1..],
        None => word,
    };
    let mut slot = fnv(base.as_bytes()) % SLOTS;
    // Names are unique (`tests/registry.rs`), so the first record that has the name is its own.
    while let Some(p) = INDEX[slot] {
        if p.names.contains(&base) {
            return Some(p);
        }
        slot = (slot + 1) % SLOTS;
    }
    None
}

/// Slots of [`INDEX`]: a power of two, about four per name, so a probe ends within a slot or two.
const SLOTS: usize = 1024;

/// Every name of every record, hashed into its slot when the crate is compiled: the engine looks
/// a command's program up a dozen times and more per call, and a search through ~180 records
/// each time cost about 80,000 instructions per hook call; a map built at start-up still cost
/// 35,000. An empty slot ends a probe; a table with no empty slot left would not compile (the
/// compiler's evaluation of [`index`] would not end).
static INDEX: [Option<&'static Program>; SLOTS] = index([PROGRAMS, RUNNERS, KNOWN]);

/// FNV-1a of a name: no seed, so it can run at compile time; the keys are the catalogue's own
/// names, so no input chooses collisions among them.
const fn fnv(bytes: &[u8]) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h as usize
}

/// The open-addressed table of every name of these lists (linear probing).
const fn index(lists: [&'static [&'static Program]; 3]) -> [Option<&'static Program>; SLOTS] {
    let mut slots: [Option<&'static Program>; SLOTS] = [None; SLOTS];
    let mut l = 0;
    while l < lists.len() {
        let mut i = 0;
        while i < lists[l].len() {
            let p = lists[l][i];
            let mut n = 0;
            while n < p.names.len() {
                let mut slot = fnv(p.names[n].as_bytes()) % SLOTS;
                while slots[slot].is_some() {
                    slot = (slot + 1) % SLOTS;
                }
                slots[slot] = Some(p);
                n += 1;
            }
            i += 1;
        }
        l += 1;
    }
    slots
}

/// Every top-level record, each once: [`PROGRAMS`], then [`RUNNERS`], then [`KNOWN`].
pub fn records() -> impl Iterator<Item = &'static Program> {
    PROGRAMS.iter().chain(RUNNERS).chain(KNOWN).copied()
}

/// Is this program word (by its base name) a shell?
pub fn is_shell(word: &str) -> bool {
    lookup(word).is_some_and(|p| p.role.is_shell())
}

/// Every name of every shell, for the few consumers that need the list itself.
pub fn shells() -> impl Iterator<Item = &'static str> {
    RUNNERS.iter().filter(|p| p.role.is_shell()).flat_map(|p| p.names.iter().copied())
}
