//! What a data seed fixes (issue 35): the data layout of an execution, reproducibly and
//! independently of the code seed. Pure derivation only; `run --data-seeds` (not yet
//! wired) will give every execution of a (binary, data seed) cell these parameters.
//!
//! - the stack offset: the environment padding's size, drawn as the schedule draws it today
//!   (`16 · below(env_pad_max / 16)`), but from the data seed's own stream, so that a data
//!   seed names the same padding in every run and for every binary;
//! - the heap's start offset: `16 · k` bytes, `k < HEAP_OFFSET_MAX / 16`, for a preload
//!   library whose constructor makes one allocation of that size before `main`;
//! - with `run --vary-mmap-threshold`, malloc's mmap threshold, a two-level factor
//!   ([`MMAP_THRESHOLDS`]): at the low level a large block gets its own mapping (page-aligned,
//!   whatever the heap offset), at the high level it comes from the heap and moves with the
//!   heap offset.
//!
//! Each parameter has its own stream (`SeededRng` purposes below), so a new parameter never
//! shifts an existing one, and none shares a purpose with the code layout's or the
//! schedule's streams.

use serde::{Deserialize, Serialize};

use crate::seeded::SeededRng;

/// The padding granularity: the kernel 16-aligns the initial stack, so only multiples of 16
/// bytes move it (the heap offsets share it: malloc's alignment).
pub(crate) const PAD_STEP: u32 = 16;

/// Largest heap offset (exclusive), in bytes: one page, so every 16-byte-aligned start
/// within a page is reachable (the 4K-aliasing range of Melhus & Jensen 2016).
pub(crate) const HEAP_OFFSET_MAX: u32 = 4096;

/// Stream of the stack offset; changing it changes every data seed's meaning.
const STACK_PURPOSE: &str = "data-layout-stack";
/// Stream of the heap offset; changing it changes every data seed's meaning.
const HEAP_PURPOSE: &str = "data-layout-heap";
/// Stream of the mmap threshold's level; changing it changes every data seed's meaning.
const MMAP_PURPOSE: &str = "data-layout-mmap-threshold";

/// The two levels of malloc's mmap threshold (bytes), set with `mallopt(M_MMAP_THRESHOLD)`
/// by the preload library: glibc's initial 128 KiB, fixed (setting it turns glibc's dynamic
/// raising of the threshold off, so the level stays what the data seed names), and 32 MiB,
/// the largest glibc accepts on 64-bit hosts (`HEAP_MAX_SIZE / 2`), so that blocks up to
/// that size come from the heap.
pub(crate) const MMAP_THRESHOLDS: [u32; 2] = [128 * 1024, 32 * 1024 * 1024];

/// The data layout one data seed names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DataLayout {
    /// The data seed.
    pub(crate) data_seed: u64,
    /// Size in bytes of the padding variable's value (moves the stack).
    pub(crate) env_pad: u32,
    /// Bytes allocated before `main` (moves the heap's first blocks).
    pub(crate) heap_offset: u32,
    /// Malloc's mmap threshold in bytes, one of [`MMAP_THRESHOLDS`]; `None` when the run
    /// does not vary it (malloc's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mmap_threshold: Option<u32>,
}

/// The data layout of `data_seed`, with paddings below `env_pad_max` (0 when it is below
/// 16, as the schedule does), and with `vary_mmap_threshold` its level of the mmap
/// threshold. The threshold has its own stream, so the padding and heap offset of a data
/// seed are the same with and without it.
pub(crate) fn data_layout(
    data_seed: u64,
    env_pad_max: u32,
    vary_mmap_threshold: bool,
) -> DataLayout {
    DataLayout {
        data_seed,
        env_pad: step_below(data_seed, STACK_PURPOSE, env_pad_max),
        heap_offset: step_below(data_seed, HEAP_PURPOSE, HEAP_OFFSET_MAX),
        mmap_threshold: vary_mmap_threshold
            .then(|| MMAP_THRESHOLDS[SeededRng::new(data_seed, MMAP_PURPOSE).below(2) as usize]),
    }
}

/// `16 · below(max / 16)` from the stream `(seed, purpose)`; 0 when `max < 16`.
fn step_below(seed: u64, purpose: &str, max: u32) -> u32 {
    let steps = u64::from(max / PAD_STEP);
    if steps == 0 {
        return 0;
    }
    PAD_STEP * SeededRng::new(seed, purpose).below(steps) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_seed_names_one_layout_in_range() {
        for seed in 0..200 {
            let l = data_layout(seed, 4096, false);
            assert_eq!(l, data_layout(seed, 4096, false));
            assert!(l.env_pad % 16 == 0 && l.env_pad < 4096, "{l:?}");
            assert!(
                l.heap_offset % 16 == 0 && l.heap_offset < HEAP_OFFSET_MAX,
                "{l:?}"
            );
        }
        assert_eq!(data_layout(3, 8, false).env_pad, 0);
    }

    #[test]
    fn seeds_spread_over_the_range_and_the_two_axes_are_not_tied() {
        let layouts: Vec<DataLayout> = (0..256).map(|s| data_layout(s, 4096, false)).collect();
        let distinct = |f: fn(&DataLayout) -> u32| {
            let mut v: Vec<u32> = layouts.iter().map(f).collect();
            v.sort_unstable();
            v.dedup();
            v.len()
        };
        // 256 draws from 256 values: about 162 distinct expected (256 · (1 − e⁻¹)).
        assert!(distinct(|l| l.env_pad) > 130);
        assert!(distinct(|l| l.heap_offset) > 130);
        let same = layouts
            .iter()
            .filter(|l| l.env_pad == l.heap_offset)
            .count();
        assert!(same < 8, "stack and heap offsets drawn alike: {same}");
    }

    /// Golden vector: a data seed must name the same layout forever (stored experiments
    /// are re-read by their seeds). Values recorded when the streams were introduced; a
    /// change here changes every data seed's meaning.
    #[test]
    fn data_seeds_keep_their_meaning() {
        let one = data_layout(1, 4096, false);
        assert_eq!((one.env_pad, one.heap_offset), (80, 256));
        let other = data_layout(35, 4096, false);
        assert_eq!((other.env_pad, other.heap_offset), (560, 1552));
    }

    #[test]
    fn the_mmap_threshold_is_drawn_only_when_varied_and_moves_nothing_else() {
        let mut levels = [0usize; 2];
        for seed in 0..400 {
            let plain = data_layout(seed, 4096, false);
            let varied = data_layout(seed, 4096, true);
            assert_eq!(plain.mmap_threshold, None);
            assert_eq!(
                (varied.env_pad, varied.heap_offset),
                (plain.env_pad, plain.heap_offset),
                "seed {seed}"
            );
            let level = varied.mmap_threshold.expect("varied");
            let k = MMAP_THRESHOLDS
                .iter()
                .position(|&t| t == level)
                .expect("a level");
            levels[k] += 1;
        }
        // 400 fair draws: each level 200 ± 26 (sd 10).
        assert!(
            levels.iter().all(|&n| (174..=226).contains(&n)),
            "{levels:?}"
        );
    }

    /// Golden vector of the mmap threshold's level (see `data_seeds_keep_their_meaning`).
    #[test]
    fn the_mmap_threshold_levels_keep_their_meaning() {
        let levels: Vec<u32> = (1..=6)
            .map(|s| data_layout(s, 4096, true).mmap_threshold.unwrap())
            .collect();
        let [low, high] = MMAP_THRESHOLDS;
        assert_eq!(levels, [high, low, high, low, high, low]);
    }
}
