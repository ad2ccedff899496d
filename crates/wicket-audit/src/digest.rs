//! SHA-256 for the chain, computed where it costs least for the process at hand.
//!
//! The hard question: what does the first hash cost a process that writes one line? `sha2`
//! picks its SHA-NI code by asking the CPU (`cpuid`) on first use, and in a virtual machine
//! every `cpuid` traps to the hypervisor: about 10 µs here for the first hash, against 2 µs
//! for the whole hash in portable code. A hook process computes three hashes (the project's
//! folder name, its writer id, its one line); `audit verify` computes millions. So the first
//! [`SOFT_FIRST`] hashes of a process are computed by `hmac-sha256` (portable, no detection),
//! and the rest by `sha2`, whose detection is then paid once for many. Both compute the same
//! SHA-256 (a test compares them).

use std::sync::atomic::{AtomicU32, Ordering};

use sha2::{Digest, Sha256};

/// How many hashes a process computes in portable code before it switches to `sha2`.
const SOFT_FIRST: u32 = 32;

static DONE: AtomicU32 = AtomicU32::new(0);

/// SHA-256 of the parts, one after the other.
pub(crate) fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    if DONE.load(Ordering::Relaxed) < SOFT_FIRST {
        DONE.fetch_add(1, Ordering::Relaxed);
        return soft(parts);
    }
    fast(parts)
}

fn soft(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = hmac_sha256::Hash::new();
    for p in parts {
        h.update(p);
    }
    h.finalize()
}

fn fast(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_implementations_agree() {
        // Every length across several blocks, split at every third byte, pseudo-random bytes.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut data = Vec::new();
        for len in 0..300 {
            data.clear();
            for _ in 0..len {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                data.push(x as u8);
            }
            let cut = len / 3;
            let parts: [&[u8]; 2] = [&data[..cut], &data[cut..]];
            assert_eq!(soft(&parts), fast(&parts), "length {len}");
            assert_eq!(soft(&[&data]), fast(&parts), "length {len}, one part");
        }
        assert_eq!(
            crate::line::hex32(&soft(&[b"abc"])),
            *b"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
