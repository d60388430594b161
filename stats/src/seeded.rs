//! Seeded randomness whose meaning never changes: a seed must name the same layout, the same
//! schedule and the same environment padding forever.
//!
//! `rand`'s `shuffle` and range sampling are allowed to change between releases, so we write
//! the Fisher–Yates shuffle and the bounded draw ourselves on the raw ChaCha20 stream (whose
//! output is fixed by RFC 8439's block function and stable across `rand_chacha` versions),
//! and pin both with golden vectors in the tests below.
//!
//! Each use of randomness gets its own *stream* derived from the user's seed and a purpose
//! string (`"link-order"`, `"schedule"`, …) with BLAKE3's key derivation, so that adding a new
//! random decision in one place never shifts the numbers drawn in another.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// Context string for BLAKE3 key derivation; changing it would change every seed's meaning.
const KEY_CONTEXT: &str = "layoutrand 2026-11 seeded stream v1";

/// A deterministic random stream for one seed and one purpose.
#[derive(Debug, Clone)]
pub struct SeededRng {
    chacha: ChaCha20Rng,
}

impl SeededRng {
    /// The stream for `seed` used for `purpose` (any string; distinct purposes give
    /// independent streams).
    pub fn new(seed: u64, purpose: &str) -> SeededRng {
        let mut material = Vec::with_capacity(8 + purpose.len());
        material.extend_from_slice(&seed.to_le_bytes());
        material.extend_from_slice(purpose.as_bytes());
        let key = blake3::derive_key(KEY_CONTEXT, &material);
        SeededRng {
            chacha: ChaCha20Rng::from_seed(key),
        }
    }

    /// The next 64 raw bits of the ChaCha20 stream.
    pub fn next_u64(&mut self) -> u64 {
        self.chacha.next_u64()
    }

    /// A uniform integer in `0..n` (`n > 0`), without modulo bias: draws falling in the
    /// incomplete last block of size `2^64 mod n` are rejected and redrawn.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "SeededRng::below(0)");
        // Values >= limit would over-represent small residues.
        let limit = u64::MAX - (u64::MAX % n + 1) % n;
        loop {
            let x = self.next_u64();
            if x <= limit {
                return x % n;
            }
        }
    }

    /// A uniform `f64` in `[0, 1)` from the top 53 bits of one draw.
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A standard normal deviate by the Box–Muller transform (Box & Muller 1958), from two
    /// uniform draws (the sine partner is dropped, so each call costs two draws): what the
    /// seeded simulations of the statistics use.
    pub fn normal(&mut self) -> f64 {
        // 1 − u is in (0, 1], so the logarithm is finite.
        let u1 = 1.0 - self.unit_f64();
        let u2 = self.unit_f64();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// Shuffles `items` in place with the Durstenfeld form of Fisher–Yates: for i from the
    /// last index down to 1, swap item i with item `below(i + 1)`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// A uniform multiple of `step` (`step > 0`) in `0..=max`: `step × below(max / step + 1)`
    /// (so `0` when `step > max`). One draw per padded section (`build --pad`).
    pub fn multiple_up_to(&mut self, step: u64, max: u64) -> u64 {
        step * self.below(max / step + 1)
    }

    /// A random permutation of `0..n`, as [`SeededRng::shuffle`] would arrange it.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        self.shuffle(&mut order);
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Golden vectors: these numbers define what a seed means. If a change to this file makes
    // them fail, the change breaks every published experiment's reproducibility: revert it.
    // They were computed independently of this code, in Python with the `blake3` package's
    // derive_key and `cryptography`'s RFC 8439 ChaCha20 (zero nonce and counter), with the
    // same rejection rule and Fisher–Yates loop (see tests/golden/seeded_stream.py).
    #[test]
    fn golden_raw_stream() {
        let mut rng = SeededRng::new(1, "link-order");
        let got: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(got, GOLDEN_RAW);
    }

    #[test]
    fn golden_permutations() {
        let mut rng = SeededRng::new(42, "link-order");
        assert_eq!(rng.permutation(10), GOLDEN_PERM_42);
        let mut rng = SeededRng::new(7, "schedule");
        assert_eq!(rng.permutation(6), GOLDEN_PERM_7);
    }

    #[test]
    fn chacha_matches_rfc8439_keystream() {
        // Independent check of the underlying generator: RFC 8439 §2.3.2 test vector uses a
        // nonce, so instead check the all-zero key block 0 from RFC 7539 appendix A.1 #1.
        let mut c = ChaCha20Rng::from_seed([0u8; 32]);
        let first = c.next_u32();
        // Keystream bytes 76 b8 e0 ad … read little-endian.
        assert_eq!(first, 0xade0_b876);
    }

    #[test]
    fn purposes_are_independent_streams() {
        let a = SeededRng::new(5, "link-order").next_u64();
        let b = SeededRng::new(5, "schedule").next_u64();
        let c = SeededRng::new(6, "link-order").next_u64();
        assert_ne!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn shuffle_is_uniform_on_three_items() {
        // 6 permutations, 60 000 draws: each should appear 10 000 ± 5 sd (sd ≈ 91).
        let mut rng = SeededRng::new(9, "uniformity");
        let mut counts = std::collections::HashMap::new();
        for _ in 0..60_000 {
            *counts.entry(rng.permutation(3)).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 6);
        for (perm, n) in counts {
            assert!((9_545..=10_455).contains(&n), "{perm:?} drawn {n} times");
        }
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = SeededRng::new(3, "below");
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let x = rng.below(7);
            seen[x as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(SeededRng::new(3, "b").below(1), 0);
    }

    #[test]
    fn golden_padding() {
        // Section alignments 16, 16, 1, 64, 512 with `--pad 256` (tests/golden/seeded_stream.py).
        let mut rng = SeededRng::new(1, "padding:demo");
        let got: Vec<u64> = [16, 16, 1, 64, 512]
            .iter()
            .map(|&a| rng.multiple_up_to(a, 256))
            .collect();
        assert_eq!(got, GOLDEN_PADDING);
        assert!(got
            .iter()
            .zip([16, 16, 1, 64, 512])
            .all(|(p, a)| p % a == 0 && *p <= 256));
    }

    const GOLDEN_RAW: [u64; 3] = [
        9353368019228870170,
        2063993580038036054,
        17676040051792112665,
    ];
    const GOLDEN_PERM_42: [usize; 10] = [0, 8, 4, 3, 2, 1, 6, 9, 5, 7];
    const GOLDEN_PERM_7: [usize; 6] = [1, 3, 5, 2, 4, 0];
    const GOLDEN_PADDING: [u64; 5] = [48, 96, 72, 64, 0];
}
