//! `differential`: wicket-shell against brush-parser on arbitrary strings. Where the two
//! disagree on the simple commands, wicket must say `understood == false`; a disagreement on an
//! understood string panics. The oracle is `crates/wicket-shell/tests/differential.rs`
//! (included here as a module, so the test and the fuzzer compare the same way).
//!
//! brush-parser is a third-party parser: its panics are not wicket's bugs and are caught (a
//! panic hook that stays quiet inside brush; everything else still aborts), and inputs that are
//! long or deeply nested are skipped because brush's recursive-descent parser can overflow the
//! stack on them.
#![no_main]

use std::cell::Cell;
use std::sync::Once;

use libfuzzer_sys::fuzz_target;

#[allow(dead_code, unused_imports, clippy::all)]
#[path = "../../crates/wicket-shell/tests/differential.rs"]
mod differential;

use differential::{brush_commands, compare_with, Skip, Verdict};

thread_local! {
    static IN_BRUSH: Cell<bool> = const { Cell::new(false) };
}

static HOOK: Once = Once::new();

fn install_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_BRUSH.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

fn brush_guarded(src: &str) -> Result<Vec<Vec<differential::BWord>>, Skip> {
    IN_BRUSH.with(|f| f.set(true));
    let r = std::panic::catch_unwind(|| brush_commands(src));
    IN_BRUSH.with(|f| f.set(false));
    r.unwrap_or(Err(Skip::BrushPanic))
}

fuzz_target!(|data: &[u8]| {
    install_hook();
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    if differential::beyond_brush(src) {
        return;
    }
    let a = wicket_shell::analyze(src);
    if let Verdict::Disagree(d) = compare_with(src, &a, brush_guarded) {
        panic!("wicket understood {src:?} but brush-parser disagrees:\n{d}");
    }
});
