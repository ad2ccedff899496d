//! `walker`: arbitrary bytes → `analyze` → `strip_wrappers` and `canonical` on every command.
//!
//! Invariants (a failure panics, which libFuzzer records as a crash):
//! * nothing panics (and the walk does not overflow the stack);
//! * an understood analysis has no problems, and every command it lists carries something:
//!   words, assignments or redirections;
//! * an understood analysis has a static program word for every command with words, and none
//!   of them is `eval`/`source`/`.`/`alias`;
//! * input longer than `MAX_INPUT_BYTES` is never understood (a first byte of 0xFE repeats
//!   the input past the limit, so libFuzzer's short inputs exercise this too);
//! * `strip_wrappers` lists the command as written first;
//! * in an understood analysis, `expanded_names` finds no variable in a word bash expands
//!   nothing in (a static word); anywhere, every name it finds is a shell identifier.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wicket_shell::{analyze, expanded_names, strip_wrappers, ProblemKind, MAX_INPUT_BYTES};

fuzz_target!(|data: &[u8]| {
    let (long, body) = match data.split_first() {
        Some((0xFE, rest)) => (true, rest),
        _ => (false, data),
    };
    let text = String::from_utf8_lossy(body);
    let src = if long { text.repeat(MAX_INPUT_BYTES / text.len().max(1) + 1) } else { text.into_owned() };
    if long && src.len() <= MAX_INPUT_BYTES {
        // An empty body: nothing to repeat.
        return;
    }

    let a = analyze(&src);

    if src.len() > MAX_INPUT_BYTES {
        assert!(!a.understood, "input of {} bytes was understood", src.len());
        assert!(a.problems.iter().any(|p| p.kind == ProblemKind::TooLong), "no TooLong problem: {:?}", a.problems);
        return;
    }
    assert_eq!(a.understood, a.problems.is_empty(), "understood disagrees with problems: {:?}", a.problems);

    for cmd in &a.commands {
        let canonical = cmd.canonical();
        if a.understood {
            assert!(
                !(cmd.words.is_empty() && cmd.assignments.is_empty() && cmd.redirects.is_empty()),
                "an empty command in an understood analysis of {src:?}: {cmd:?}"
            );
            if let Some(program) = cmd.words.first() {
                let name = program.value.as_deref();
                assert!(name.is_some(), "understood with a dynamic program in {src:?}: {canonical:?}");
                assert!(
                    !matches!(name, Some("eval" | "source" | "." | "alias")),
                    "understood with `{}` in {src:?}",
                    name.unwrap_or("")
                );
            }
        }
        for w in &cmd.words {
            if let Some(names) = expanded_names(&w.raw) {
                assert!(
                    !a.understood || w.value.is_none() || names.is_empty(),
                    "names {names:?} in the static word {:?} of {src:?}",
                    w.raw
                );
                for n in &names {
                    let ident = n.bytes().next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
                        && n.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
                    assert!(ident, "{n:?} is no identifier, in {:?}", w.raw);
                }
            }
        }
        let u = strip_wrappers(cmd);
        assert_eq!(u.understood, u.problems.is_empty(), "strip_wrappers: understood disagrees with problems");
        if !cmd.words.is_empty() {
            assert_eq!(u.argvs.first(), Some(&cmd.words), "strip_wrappers does not start with the command as written");
        }
        for n in &u.nested {
            let _ = n.canonical();
        }
    }
});
