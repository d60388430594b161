//! The interleaved execution schedule and the per-execution environment padding.
//!
//! Kalibera & Jones: running one binary's executions back to back turns machine drift
//! (thermal state, other tenants, page cache) into fake binary-level variance. So every
//! (binary, execution) pair of the whole experiment is placed in one seeded random order.
//! The padding size of each execution is drawn from its own stream of the same seed, so a
//! resumed run recomputes exactly the same schedule and paddings and can skip what is done.

use crate::seeded::SeededRng;

/// Purpose string of the schedule's random stream.
pub const SCHEDULE_PURPOSE: &str = "schedule";
/// Purpose string of the environment padding's random stream.
pub const ENV_PAD_PURPOSE: &str = "env-pad";
/// The padding granularity: the kernel 16-aligns the initial stack, so only multiples of 16
/// bytes move it.
pub const PAD_STEP: u32 = 16;

/// One planned execution: which binary, which of its executions, with how much padding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// Position in the schedule, from 0.
    pub schedule_index: u64,
    /// Index into the list of programs under test.
    pub program: usize,
    /// Index into the list of binaries under test (0 = first listed, usually the baseline).
    pub binary: usize,
    /// Index of this execution of this binary, from 0.
    pub execution: u32,
    /// Size in bytes of the padding variable's value.
    pub env_pad: u32,
}

/// The complete schedule for `programs × binaries × executions`, shuffled with
/// `SeededRng::new(seed, "schedule")`, with paddings drawn in schedule order from
/// `SeededRng::new(seed, "env-pad")` as `16 * below(env_pad_max / 16)` (0 when
/// `env_pad_max < 16`).
///
/// Within one binary the execution indices still increase along the schedule, so execution
/// `k` of a binary is always its `k`-th run.
pub fn build_schedule(
    programs: usize,
    binaries: usize,
    executions: u32,
    seed: u64,
    env_pad_max: u32,
) -> Vec<Slot> {
    // One entry per execution, identified only by its binary; execution numbers are handed
    // out afterwards in schedule order.
    let mut slots: Vec<(usize, usize)> = Vec::new();
    for p in 0..programs {
        for v in 0..binaries {
            for _ in 0..executions {
                slots.push((p, v));
            }
        }
    }
    SeededRng::new(seed, SCHEDULE_PURPOSE).shuffle(&mut slots);
    let steps = u64::from(env_pad_max / PAD_STEP);
    let mut pad_rng = SeededRng::new(seed, ENV_PAD_PURPOSE);
    let mut next_execution = vec![vec![0u32; binaries]; programs];
    slots
        .into_iter()
        .enumerate()
        .map(|(i, (p, v))| {
            let execution = next_execution[p][v];
            next_execution[p][v] += 1;
            let env_pad = if steps == 0 {
                0
            } else {
                PAD_STEP * pad_rng.below(steps) as u32
            };
            Slot {
                schedule_index: i as u64,
                program: p,
                binary: v,
                execution,
                env_pad,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_once_with_increasing_execution_numbers() {
        let s = build_schedule(2, 3, 5, 11, 4096);
        assert_eq!(s.len(), 30);
        for p in 0..2 {
            for v in 0..3 {
                let execs: Vec<u32> = s
                    .iter()
                    .filter(|x| x.program == p && x.binary == v)
                    .map(|x| x.execution)
                    .collect();
                assert_eq!(execs, vec![0, 1, 2, 3, 4]);
            }
        }
        assert!(s
            .iter()
            .enumerate()
            .all(|(i, x)| x.schedule_index == i as u64));
    }

    #[test]
    fn same_seed_same_schedule_other_seed_other_schedule() {
        assert_eq!(
            build_schedule(1, 4, 6, 3, 4096),
            build_schedule(1, 4, 6, 3, 4096)
        );
        assert_ne!(
            build_schedule(1, 4, 6, 3, 4096),
            build_schedule(1, 4, 6, 4, 4096)
        );
    }

    #[test]
    fn schedule_interleaves_binaries() {
        // 4 binaries × 10 executions: a run of one binary's executions all in one block has
        // probability 4 · 10! · 31! / 40! ≈ 1e-8 per binary. Check the schedule switches binary
        // often: the expected number of switches in a random arrangement is 39 · 30/39 = 30.
        let s = build_schedule(1, 4, 10, 5, 4096);
        let switches = s.windows(2).filter(|w| w[0].binary != w[1].binary).count();
        assert!(switches >= 20, "only {switches} switches");
        for v in 0..4 {
            let pos: Vec<usize> = (0..s.len()).filter(|&i| s[i].binary == v).collect();
            assert!(
                pos.last().unwrap() - pos[0] + 1 > 10,
                "binary {v} ran as one block"
            );
        }
    }

    #[test]
    fn paddings_are_multiples_of_16_below_the_maximum_and_vary() {
        let s = build_schedule(1, 2, 100, 9, 4096);
        let pads: std::collections::BTreeSet<u32> = s.iter().map(|x| x.env_pad).collect();
        assert!(pads.iter().all(|p| p % 16 == 0 && *p < 4096));
        // 200 draws from 256 values: expect ~138 distinct ones.
        assert!(pads.len() > 100, "{} distinct paddings", pads.len());
        assert!(build_schedule(1, 1, 5, 9, 15)
            .iter()
            .all(|x| x.env_pad == 0));
        // A maximum that is not a multiple of 16 is still an exclusive bound.
        assert!(build_schedule(1, 1, 200, 9, 40)
            .iter()
            .all(|x| x.env_pad <= 32));
    }
}
