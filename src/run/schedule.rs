//! The interleaved execution schedule and the per-execution environment padding.
//!
//! Kalibera & Jones: running one binary's executions back to back turns machine drift
//! (thermal state, other tenants, page cache) into fake binary-level variance. So the
//! executions are placed in a seeded random order: since the header records a
//! [`ScheduleDesign`], in rounds (randomised complete blocks: round `k` runs execution `k` of
//! every binary once, in its own random order), so that a load burst hits a binary's
//! executions in different rounds at most and the analysis can block on rounds; before
//! that, every (binary, execution) pair of the whole experiment in one order (`free`), which
//! a resumed old store still follows.
//! The padding size of each execution is drawn from its own stream of the same seed, so a
//! resumed run recomputes exactly the same schedule and paddings and can skip what is done.
//!
//! With variants (versions of the program compared in one experiment), the shuffled unit is
//! a block (program, binary, execution round) that runs every variant's binary of that seed
//! back to back, in an order drawn per block from its own stream: drift then hits all
//! variants alike, and no variant always runs first. With one variant the free schedule is
//! the one it always was.

use anyhow::{bail, Result};

use super::data_layout::{data_layout, DataLayout};
pub use crate::files::results::ScheduleDesign;
use crate::seeded::SeededRng;

/// Purpose string of the schedule's random stream.
pub(crate) const SCHEDULE_PURPOSE: &str = "schedule";
/// Purpose string of the random order of the variants inside each block.
pub(crate) const VARIANT_ORDER_PURPOSE: &str = "variant-order";
/// Purpose string of the environment padding's random stream.
pub(crate) const ENV_PAD_PURPOSE: &str = "env-pad";
pub(crate) use super::data_layout::PAD_STEP;

/// The most executions one schedule holds (programs × variants × binaries × executions). The
/// schedule is planned whole before the first execution (about 48 bytes a slot), and each
/// execution is a process start: a million is already weeks of running.
pub(crate) const MAX_SCHEDULED_EXECUTIONS: u64 = crate::files::results::MAX_STORED_EXECUTIONS;
/// The most measurements a run may plan (scheduled executions × iterations): the report
/// reads them all into memory.
pub(crate) const MAX_PLANNED_MEASUREMENTS: u64 = 100_000_000;

/// Refuses a schedule larger than [`MAX_SCHEDULED_EXECUTIONS`], or planning more than
/// [`MAX_PLANNED_MEASUREMENTS`] values (`iterations` per execution), before anything is
/// allocated; the message names the product.
pub(crate) fn check_schedule_size(
    programs: usize,
    variants: usize,
    binaries: usize,
    executions: u32,
    iterations: u32,
) -> Result<()> {
    let product = [programs as u64, variants.max(1) as u64, binaries as u64]
        .into_iter()
        .try_fold(u64::from(executions), u64::checked_mul);
    let described = || {
        format!(
            "{programs} program(s) × {} variant(s) × {binaries} binaries × {executions} executions",
            variants.max(1)
        )
    };
    let total = match product {
        Some(n) if n <= MAX_SCHEDULED_EXECUTIONS => n,
        _ => bail!(
            "{}: more than the {MAX_SCHEDULED_EXECUTIONS} executions one run may plan; use fewer \
             executions or binaries (`layoutrand dimension` says how many a precision needs)",
            described()
        ),
    };
    if total.saturating_mul(u64::from(iterations.max(1))) > MAX_PLANNED_MEASUREMENTS {
        bail!(
            "{} × {iterations} iterations: more than the {MAX_PLANNED_MEASUREMENTS} \
             measurements one run may plan",
            described()
        );
    }
    Ok(())
}

/// One planned execution: which binary, which of its executions, with how much padding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// Position in the schedule, from 0.
    pub schedule_index: u64,
    /// Index into the list of programs under test.
    pub program: usize,
    /// Index into the list of variants (0 without variants).
    pub variant: usize,
    /// Index into the list of binaries under test (0 = first listed, usually the baseline).
    pub binary: usize,
    /// Index of this execution of this binary, from 0.
    pub execution: u32,
    /// Size in bytes of the padding variable's value.
    pub env_pad: u32,
    /// The data layout of the execution's cell (`run --data-seeds` above 1: its data seed,
    /// padding and heap offset, [`data_layout`]); `None` when the data layout is not a
    /// factor.
    pub data: Option<DataLayout>,
}

impl Slot {
    /// The execution round (replicate) this slot belongs to: its execution index, or with
    /// `data_seeds` data seeds its execution index divided by them (see [`plan_schedule`]).
    pub(crate) fn round(&self, data_seeds: u32) -> u32 {
        self.execution / data_seeds.max(1)
    }
}

/// The counts a schedule crosses: programs × variants × binaries × data seeds × executions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ScheduleShape {
    /// Programs under test.
    pub(crate) programs: usize,
    /// Variants (1 without variants).
    pub(crate) variants: usize,
    /// Binaries per program and variant.
    pub(crate) binaries: usize,
    /// Executions (replicates) per (program, variant, binary, data seed) cell.
    pub(crate) executions: u32,
    /// Data seeds per binary (`run --data-seeds`); 1 when the data layout is not a factor.
    pub(crate) data_seeds: u32,
    /// Whether each data seed also names a level of malloc's mmap threshold
    /// (`run --vary-mmap-threshold`; only with data seeds).
    pub(crate) vary_mmap_threshold: bool,
}

/// The complete schedule for `programs × binaries × executions` blocks, as `design` places
/// them with `SeededRng::new(seed, "schedule")`, each block holding its `variants` executions
/// (one per variant, in an order drawn per block, in schedule order, from
/// `SeededRng::new(seed, "variant-order")`; no draw with one variant), with paddings drawn
/// in schedule order from `SeededRng::new(seed, "env-pad")` as `16 * below(env_pad_max / 16)`
/// (0 when `env_pad_max < 16`).
///
/// [`ScheduleDesign::Free`] shuffles all blocks at once (Fisher–Yates); within one binary the
/// execution indices increase along the schedule, so execution `k` of a binary is its `k`-th
/// run. [`ScheduleDesign::Rounds`] lays out `executions` rounds one after the other, round
/// `k` holding execution `k` of every (program, binary) once, in an order shuffled per round
/// (the rounds' shuffles take the schedule stream in turn). The variants of one block share
/// its execution index.
pub fn build_schedule(
    design: ScheduleDesign,
    programs: usize,
    variants: usize,
    binaries: usize,
    executions: u32,
    seed: u64,
    env_pad_max: u32,
) -> Vec<Slot> {
    let shape = ScheduleShape {
        programs,
        variants,
        binaries,
        executions,
        data_seeds: 1,
        vary_mmap_threshold: false,
    };
    plan_schedule(design, shape, seed, env_pad_max)
}

/// The schedule of `shape`: with one data seed exactly [`build_schedule`]'s. With
/// `data_seeds = K ≥ 2` (rounds only: the caller refuses a free design with data seeds) it is
/// crossed and blocked: round `r` (of `executions`) holds every (program, binary, data seed)
/// cell once, in an order shuffled per round from the schedule stream, each cell a block of
/// its variants as above. Data seeds are numbered 1..=K, so seed `j` names the same layout in
/// every run; the execution index of cell (b, j) in round `r` is `r · K + (j − 1)`, unique per
/// binary (the store's key), and every execution of the cell takes its padding from
/// [`data_layout`]`(j, env_pad_max)` instead of the padding stream (which is not drawn).
pub(crate) fn plan_schedule(
    design: ScheduleDesign,
    shape: ScheduleShape,
    seed: u64,
    env_pad_max: u32,
) -> Vec<Slot> {
    let ScheduleShape {
        programs,
        variants,
        binaries,
        executions,
        data_seeds,
        vary_mmap_threshold,
    } = shape;
    let crossed = data_seeds > 1;
    let blocks = match design {
        ScheduleDesign::Rounds if crossed => {
            crossed_blocks(programs, binaries, executions, data_seeds, seed)
        }
        ScheduleDesign::Free => free_blocks(programs, binaries, executions, seed),
        ScheduleDesign::Rounds => round_blocks(programs, binaries, executions, seed),
    };
    let steps = u64::from(env_pad_max / PAD_STEP);
    let mut pad_rng = SeededRng::new(seed, ENV_PAD_PURPOSE);
    let mut order_rng = SeededRng::new(seed, VARIANT_ORDER_PURPOSE);
    let mut slots = Vec::with_capacity(blocks.len() * variants);
    for Block {
        program,
        binary,
        execution,
    } in blocks
    {
        let order = if variants > 1 {
            order_rng.permutation(variants)
        } else {
            vec![0]
        };
        let data = crossed.then(|| {
            let data_seed = u64::from(execution % data_seeds) + 1;
            data_layout(data_seed, env_pad_max, vary_mmap_threshold)
        });
        for variant in order {
            let env_pad = match data {
                Some(d) => d.env_pad,
                None if steps == 0 => 0,
                None => PAD_STEP * pad_rng.below(steps) as u32,
            };
            slots.push(Slot {
                schedule_index: slots.len() as u64,
                program,
                variant,
                binary,
                execution,
                env_pad,
                data,
            });
        }
    }
    slots
}

/// One (program, binary, execution) block of the schedule: the executions of every variant.
struct Block {
    program: usize,
    binary: usize,
    execution: u32,
}

/// The free design's blocks: all shuffled at once, execution numbers handed out afterwards
/// in schedule order.
fn free_blocks(programs: usize, binaries: usize, executions: u32, seed: u64) -> Vec<Block> {
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for p in 0..programs {
        for b in 0..binaries {
            for _ in 0..executions {
                pairs.push((p, b));
            }
        }
    }
    SeededRng::new(seed, SCHEDULE_PURPOSE).shuffle(&mut pairs);
    let mut next_execution = vec![vec![0u32; binaries]; programs];
    pairs
        .into_iter()
        .map(|(program, binary)| {
            let execution = next_execution[program][binary];
            next_execution[program][binary] += 1;
            Block {
                program,
                binary,
                execution,
            }
        })
        .collect()
}

/// The rounds design's blocks: round `k` is every (program, binary) once with execution `k`,
/// in an order shuffled per round.
fn round_blocks(programs: usize, binaries: usize, executions: u32, seed: u64) -> Vec<Block> {
    let mut rng = SeededRng::new(seed, SCHEDULE_PURPOSE);
    let mut blocks = Vec::with_capacity(programs * binaries * executions as usize);
    for execution in 0..executions {
        let mut round: Vec<(usize, usize)> = (0..programs)
            .flat_map(|p| (0..binaries).map(move |b| (p, b)))
            .collect();
        rng.shuffle(&mut round);
        blocks.extend(round.into_iter().map(|(program, binary)| Block {
            program,
            binary,
            execution,
        }));
    }
    blocks
}

/// The crossed design's blocks: round `r` is every (program, binary, data seed) cell once,
/// with execution `r · data_seeds + (data seed − 1)`, in an order shuffled per round.
fn crossed_blocks(
    programs: usize,
    binaries: usize,
    executions: u32,
    data_seeds: u32,
    seed: u64,
) -> Vec<Block> {
    let mut rng = SeededRng::new(seed, SCHEDULE_PURPOSE);
    let cells = programs * binaries * data_seeds as usize;
    let mut blocks = Vec::with_capacity(cells * executions as usize);
    for round in 0..executions {
        let mut cells: Vec<(usize, usize, u32)> = (0..programs)
            .flat_map(|p| (0..binaries).flat_map(move |b| (0..data_seeds).map(move |j| (p, b, j))))
            .collect();
        rng.shuffle(&mut cells);
        blocks.extend(cells.into_iter().map(|(program, binary, j)| Block {
            program,
            binary,
            execution: round * data_seeds + j,
        }));
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 22: `run --executions 4000000000` planned its schedule whole and grew to 22 GB.
    #[test]
    fn oversized_schedules_are_refused_before_allocation() {
        assert!(check_schedule_size(1, 1, 31, 10, 1).is_ok());
        let err = check_schedule_size(1, 1, 3, 4_000_000_000, 1).unwrap_err();
        insta::assert_snapshot!(err.to_string());
        assert!(check_schedule_size(usize::MAX, 2, usize::MAX, u32::MAX, 1).is_err());
        // Exactly at the bound is accepted; one more is not.
        assert!(check_schedule_size(1, 1, 10, 100_000, 1).is_ok());
        assert!(check_schedule_size(1, 1, 10, 100_001, 1).is_err());
        let err = check_schedule_size(1, 1, 10, 1000, 100_000).unwrap_err();
        insta::assert_snapshot!(err.to_string());
        assert!(check_schedule_size(1, 1, 10, 1000, 10_000).is_ok());
    }

    #[test]
    fn every_pair_once_with_increasing_execution_numbers() {
        let s = build_schedule(ScheduleDesign::Free, 2, 1, 3, 5, 11, 4096);
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
            build_schedule(ScheduleDesign::Free, 1, 1, 4, 6, 3, 4096),
            build_schedule(ScheduleDesign::Free, 1, 1, 4, 6, 3, 4096)
        );
        assert_ne!(
            build_schedule(ScheduleDesign::Free, 1, 1, 4, 6, 3, 4096),
            build_schedule(ScheduleDesign::Free, 1, 1, 4, 6, 4, 4096)
        );
    }

    #[test]
    fn schedule_interleaves_binaries() {
        // 4 binaries × 10 executions: a run of one binary's executions all in one block has
        // probability 4 · 10! · 31! / 40! ≈ 1e-8 per binary. Check the schedule switches binary
        // often: the expected number of switches in a random arrangement is 39 · 30/39 = 30.
        let s = build_schedule(ScheduleDesign::Free, 1, 1, 4, 10, 5, 4096);
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
        let s = build_schedule(ScheduleDesign::Free, 1, 1, 2, 100, 9, 4096);
        let pads: std::collections::BTreeSet<u32> = s.iter().map(|x| x.env_pad).collect();
        assert!(pads.iter().all(|p| p % 16 == 0 && *p < 4096));
        // 200 draws from 256 values: expect ~138 distinct ones.
        assert!(pads.len() > 100, "{} distinct paddings", pads.len());
        assert!(build_schedule(ScheduleDesign::Free, 1, 1, 1, 5, 9, 15)
            .iter()
            .all(|x| x.env_pad == 0));
        // A maximum that is not a multiple of 16 is still an exclusive bound.
        assert!(build_schedule(ScheduleDesign::Free, 1, 1, 1, 200, 9, 40)
            .iter()
            .all(|x| x.env_pad <= 32));
    }

    #[test]
    fn one_variant_keeps_the_schedule_of_before_variants() {
        // Golden: the first slots of seed 11 as the schedule before variants planned them
        // (program, binary, execution, pad); printed by that code (main 4e6cea5), which
        // also gave the same whole schedules for (2, 3, 5, 11, 4096), (1, 4, 10, 5, 4096)
        // and (3, 2, 7, 99, 40).
        const GOLDEN_SEED_11: [(usize, usize, u32, u32); 6] = [
            (1, 0, 0, 2272),
            (0, 0, 0, 800),
            (1, 2, 0, 1024),
            (1, 0, 1, 1760),
            (1, 2, 1, 1328),
            (0, 1, 0, 3152),
        ];
        let s: Vec<(usize, usize, u32, u32)> =
            build_schedule(ScheduleDesign::Free, 2, 1, 3, 5, 11, 4096)
                .iter()
                .take(6)
                .map(|x| (x.program, x.binary, x.execution, x.env_pad))
                .collect();
        assert_eq!(s, GOLDEN_SEED_11);
    }

    #[test]
    fn every_block_runs_all_variants_back_to_back_in_varying_orders() {
        let s = build_schedule(ScheduleDesign::Free, 2, 3, 4, 5, 7, 4096);
        assert_eq!(s.len(), 2 * 3 * 4 * 5);
        let mut orders = std::collections::BTreeSet::new();
        for block in s.chunks(3) {
            let (p, b, e) = (block[0].program, block[0].binary, block[0].execution);
            assert!(block
                .iter()
                .all(|x| (x.program, x.binary, x.execution) == (p, b, e)));
            let mut vs: Vec<usize> = block.iter().map(|x| x.variant).collect();
            orders.insert(vs.clone());
            vs.sort();
            assert_eq!(vs, [0, 1, 2]);
        }
        // 40 blocks, 6 orders: all 6 appear unless the order ignored its stream.
        assert_eq!(orders.len(), 6);
    }

    #[test]
    fn every_round_holds_each_block_once_in_its_own_order() {
        let (programs, binaries, executions) = (2, 5, 4);
        let s = build_schedule(
            ScheduleDesign::Rounds,
            programs,
            1,
            binaries,
            executions,
            3,
            4096,
        );
        assert_eq!(s.len(), programs * binaries * executions as usize);
        let per_round = programs * binaries;
        let mut orders = std::collections::BTreeSet::new();
        for (k, round) in s.chunks(per_round).enumerate() {
            assert!(round.iter().all(|x| x.execution == k as u32), "round {k}");
            let mut blocks: Vec<(usize, usize)> =
                round.iter().map(|x| (x.program, x.binary)).collect();
            orders.insert(blocks.clone());
            blocks.sort();
            blocks.dedup();
            assert_eq!(blocks.len(), per_round, "round {k} misses a block");
        }
        // 4 rounds of 10 blocks: the same order twice has probability below 6/10!.
        assert_eq!(orders.len(), executions as usize);
        assert!(s
            .iter()
            .enumerate()
            .all(|(i, x)| x.schedule_index == i as u64));
    }

    #[test]
    fn rounds_keep_each_block_of_variants_together() {
        let s = build_schedule(ScheduleDesign::Rounds, 1, 3, 4, 2, 7, 4096);
        for (i, block) in s.chunks(3).enumerate() {
            assert!(block
                .iter()
                .all(|x| (x.binary, x.execution) == (block[0].binary, block[0].execution)));
            assert_eq!(block[0].execution, (i / 4) as u32);
            let mut vs: Vec<usize> = block.iter().map(|x| x.variant).collect();
            vs.sort();
            assert_eq!(vs, [0, 1, 2]);
        }
    }

    #[test]
    fn the_rounds_schedule_of_seed_11() {
        // Golden: the first two rounds of seed 11 (program, binary, execution, pad), printed by
        // this code when the rounds design was introduced; a change here replans every resumed
        // rounds store, so it must not change.
        const GOLDEN_SEED_11: [(usize, usize, u32, u32); 8] = [
            (0, 1, 0, 2272),
            (0, 0, 0, 800),
            (1, 1, 0, 1024),
            (1, 0, 0, 1760),
            (0, 0, 1, 1328),
            (0, 1, 1, 3152),
            (1, 1, 1, 288),
            (1, 0, 1, 2208),
        ];
        let s: Vec<(usize, usize, u32, u32)> =
            build_schedule(ScheduleDesign::Rounds, 2, 1, 2, 3, 11, 4096)
                .iter()
                .take(8)
                .map(|x| (x.program, x.binary, x.execution, x.env_pad))
                .collect();
        assert_eq!(s, GOLDEN_SEED_11);
    }

    #[test]
    fn more_rounds_keep_the_first_rounds_as_they_were() {
        // `run --resume --extend-executions K` replans E + K rounds: the first E must be the
        // stored ones, paddings and variant orders included, for the resume to skip them.
        let short = build_schedule(ScheduleDesign::Rounds, 2, 2, 3, 3, 5, 4096);
        let long = build_schedule(ScheduleDesign::Rounds, 2, 2, 3, 5, 5, 4096);
        assert_eq!(long.len(), short.len() * 5 / 3);
        assert_eq!(&long[..short.len()], &short[..]);
    }

    fn crossed(seed: u64) -> Vec<Slot> {
        let shape = ScheduleShape {
            programs: 2,
            variants: 1,
            binaries: 3,
            executions: 4,
            data_seeds: 3,
            vary_mmap_threshold: false,
        };
        plan_schedule(ScheduleDesign::Rounds, shape, seed, 4096)
    }

    #[test]
    fn one_data_seed_is_the_rounds_schedule_of_before() {
        let shape = ScheduleShape {
            programs: 2,
            variants: 2,
            binaries: 3,
            executions: 5,
            data_seeds: 1,
            vary_mmap_threshold: false,
        };
        let s = plan_schedule(ScheduleDesign::Rounds, shape, 11, 4096);
        assert_eq!(
            s,
            build_schedule(ScheduleDesign::Rounds, 2, 2, 3, 5, 11, 4096)
        );
        assert!(s.iter().all(|x| x.data.is_none()));
    }

    #[test]
    fn each_crossed_round_holds_every_cell_once_in_its_own_order() {
        let s = crossed(3);
        let per_round = 2 * 3 * 3;
        assert_eq!(s.len(), per_round * 4);
        let mut orders = std::collections::BTreeSet::new();
        for (r, round) in s.chunks(per_round).enumerate() {
            let mut cells: Vec<(usize, usize, u64)> = round
                .iter()
                .map(|x| (x.program, x.binary, x.data.unwrap().data_seed))
                .collect();
            orders.insert(cells.clone());
            cells.sort();
            cells.dedup();
            assert_eq!(cells.len(), per_round, "round {r} misses a cell");
            for x in round {
                assert_eq!(x.round(3), r as u32);
                let j = x.data.unwrap().data_seed;
                assert!((1..=3).contains(&j));
                assert_eq!(x.execution, r as u32 * 3 + (j as u32 - 1));
            }
        }
        // 4 rounds of 18 cells: the same order twice has probability below 6/18!.
        assert_eq!(orders.len(), 4);
    }

    #[test]
    fn a_data_seed_gives_every_execution_of_its_cells_one_layout() {
        let s = crossed(5);
        for x in &s {
            let d = x.data.unwrap();
            assert_eq!(
                d,
                crate::run::data_layout::data_layout(d.data_seed, 4096, false)
            );
            assert_eq!(x.env_pad, d.env_pad);
        }
        // Same data seed, same layout, whatever the schedule seed.
        let other = crossed(6);
        let layout_of = |s: &[Slot], j: u64| {
            s.iter()
                .find(|x| x.data.unwrap().data_seed == j)
                .unwrap()
                .data
        };
        for j in 1..=3 {
            assert_eq!(layout_of(&s, j), layout_of(&other, j));
        }
        assert_ne!(s, other);
        // Execution indices of one binary are unique (the store's key).
        let mut keys: Vec<(usize, usize, u32)> = s
            .iter()
            .map(|x| (x.program, x.binary, x.execution))
            .collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), s.len());
    }
}
