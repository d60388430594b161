//! Seeded padding in front of code sections (`build --pad MAX`): seeds then sample the
//! cache-line and page offsets of functions as well as their order.
//!
//! Each section gets a uniform multiple of its own alignment between 0 and `MAX` bytes
//! ([`SeededRng::multiple_up_to`]), so every function stays as aligned as the compiler asked;
//! a section aligned more strictly than `MAX` gets none. The draws come from a stream of
//! their own, one draw per section in a fixed (identity) order, so that the same seed with
//! and without padding gives the same function order.

use crate::seeded::SeededRng;

/// The padding of `sections` (`(section index, alignment)`, in the order to draw in) for
/// `max` bytes at most: `(index, bytes)` for each section drawn a non-zero amount, as
/// [`super::reorder_sections`] takes it. One draw per section, zero included, so a section's
/// amount does not depend on its neighbours' alignments.
pub(crate) fn draw_padding(
    sections: &[(usize, u64)],
    max: u64,
    rng: &mut SeededRng,
) -> Vec<(usize, u64)> {
    if max == 0 {
        return Vec::new();
    }
    sections
        .iter()
        .map(|&(index, align)| (index, rng.multiple_up_to(align.max(1), max)))
        .filter(|&(_, bytes)| bytes > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiples_of_each_alignment_up_to_max() {
        let sections: Vec<(usize, u64)> = (1..200).map(|i| (i, [1, 16, 64][i % 3])).collect();
        let pad = draw_padding(&sections, 256, &mut SeededRng::new(4, "padding:t"));
        assert!(pad.len() > 150, "most sections padded: {}", pad.len());
        for (i, bytes) in &pad {
            assert!(
                *bytes <= 256 && bytes % [1, 16, 64][i % 3] == 0,
                "{i}: {bytes}"
            );
        }
        assert!(pad.iter().any(|&(_, b)| b % 64 != 0), "offsets mod 64 vary");
    }

    #[test]
    fn zero_max_or_huge_alignment_pads_nothing() {
        let mut rng = SeededRng::new(4, "padding:t");
        assert!(draw_padding(&[(1, 16)], 0, &mut rng).is_empty());
        assert!(draw_padding(&[(1, 4096), (2, 512)], 256, &mut rng).is_empty());
    }
}
