//! `sandbox_line`: arbitrary words through the parser of the line wicket's own namespaces carry
//! out (`wicket-shim __sandbox-ns LINE -- COMMAND`, `wicket_sandbox::native::parse`), split
//! into words at NUL bytes, as an argv is. The invariant: nothing panics, whatever the words
//! (a missing value, a descriptor that is no number, a path with a NUL-free but odd spelling).
#![no_main]

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let words: Vec<OsString> = data.split(|b| *b == 0).map(|w| OsString::from_vec(w.to_vec())).collect();
    let _ = wicket_sandbox::native::parse(&words);
});
