//! Link wicket's programs with packed relative relocations (`DT_RELR`) where the C library
//! applies them.
//!
//! Every hook call and every sandboxed command starts the `wicket` binary anew, so its start
//! is on the hot path. As a position-independent executable it carries one relocation per
//! pointer in its read-only tables (about 33,000: the program catalogue and the path lists
//! are tables of `&str`), and the loader reads 800 KB of them at every start. Packed, they
//! take 12 KB and apply faster; the binary stays position-independent with full RELRO.
//!
//! Only glibc 2.36 and later apply packed relocations, and the linkers mark such a binary as
//! needing `GLIBC_ABI_DT_RELR` whatever the C library it was built against, so a build on an
//! older glibc would not start. The flag is therefore given only for a native GNU/Linux build
//! whose glibc (asked with `getconf`) is 2.36 or later.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let native = var("TARGET") == var("HOST");
    if native && var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" && glibc_at_least(2, 36)
    {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether this machine's glibc is at least `major.minor` (`getconf GNU_LIBC_VERSION` prints
/// `glibc 2.36`); false when it cannot tell.
fn glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else { return false };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else { return false };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(a), Some(b)) => (a, b) >= (major, minor),
        _ => false,
    }
}
