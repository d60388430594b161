//! Big builds: above [`MANY_SEEDS`] seeds `build` wants `--allow-many-seeds`, and it says
//! what the seeds will cost, projected from the baseline just linked (time and disk).

use std::path::Path;

use anyhow::{bail, Result};

use crate::files::manifest::BinarySet;

/// The number of seeds above which `build` asks for `--allow-many-seeds`.
pub(crate) const MANY_SEEDS: usize = 1000;

/// The most seeds one build accepts, even with `--allow-many-seeds`: the seed list and the
/// manifest are held whole, and a hundred thousand binaries are already days of relinking.
pub(crate) const MAX_SEEDS: usize = 100_000;

/// The seeds `base`, `base + 1`, …, `base + count − 1`, checked before anything is allocated:
/// at most [`MAX_SEEDS`], and no seed past `u64::MAX` (a wrap-around would give seed 0 and
/// repeat seeds). `allow_many`: whether `--allow-many-seeds` was given (the refusal says
/// "even with" it only then).
pub fn seed_range(base: u64, count: u64, allow_many: bool) -> Result<Vec<u64>> {
    if count > MAX_SEEDS as u64 {
        if allow_many {
            bail!("--seeds {count}: at most {MAX_SEEDS} seeds, even with --allow-many-seeds");
        }
        bail!(
            "--seeds {count}: at most {MAX_SEEDS} seeds (above {MANY_SEEDS} the build asks for \
             --allow-many-seeds and projects their time and disk)"
        );
    }
    if count > 0 && base.checked_add(count - 1).is_none() {
        bail!(
            "--seed-base {base} --seeds {count}: the seeds would run past {} (the largest seed); \
             choose a smaller --seed-base",
            u64::MAX
        );
    }
    Ok((0..count).map(|i| base + i).collect())
}

/// The projected cost of `seeds` more binaries, each costing what the baseline cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Projection {
    /// Seeds to build.
    pub(crate) seeds: usize,
    /// Wall time, seconds: `seeds × seconds per binary / jobs`.
    pub(crate) seconds: f64,
    /// Disk, bytes: `seeds × bytes per binary`.
    pub(crate) bytes: u64,
}

impl Projection {
    /// From one binary's cost (its links' or build's seconds, its binaries' bytes).
    pub(crate) fn new(
        seeds: usize,
        seconds_per_binary: f64,
        bytes_per_binary: u64,
        jobs: usize,
    ) -> Self {
        Projection {
            seeds,
            seconds: seeds as f64 * seconds_per_binary / jobs.max(1) as f64,
            bytes: seeds as u64 * bytes_per_binary,
        }
    }

    /// E.g. "100000 seeds: about 1.2 h and 45.3 GB (projected from the baseline)".
    pub(crate) fn describe(&self) -> String {
        let time = if self.seconds < 120.0 {
            format!("{:.0} s", self.seconds)
        } else if self.seconds < 7200.0 {
            format!("{:.0} min", self.seconds / 60.0)
        } else {
            format!("{:.1} h", self.seconds / 3600.0)
        };
        let gb = self.bytes as f64 / 1e9;
        let disk = if gb >= 1.0 {
            format!("{gb:.1} GB")
        } else {
            format!("{:.0} MB", self.bytes as f64 / 1e6)
        };
        format!(
            "{} seeds: about {time} and {disk} of binaries (projected from the baseline)",
            self.seeds
        )
    }

    /// Refuses more than [`MANY_SEEDS`] seeds unless `allowed`; says the cost either way
    /// when the seeds are many.
    pub(crate) fn check(&self, allowed: bool) -> Result<()> {
        if self.seeds <= MANY_SEEDS {
            return Ok(());
        }
        if !allowed {
            bail!(
                "{}. More than {MANY_SEEDS} seeds need --allow-many-seeds (an interrupted build \
                 keeps its finished seeds; `--extend` continues it)",
                self.describe()
            );
        }
        crate::diagnostic!("layoutrand: {}", self.describe());
        Ok(())
    }
}

/// The cost of `seeds` more binaries like `baseline` (its links' seconds and binaries' bytes).
pub(crate) fn projection_of(
    baseline: &BinarySet,
    out_dir: &Path,
    seeds: usize,
    jobs: usize,
) -> Projection {
    let seconds: f64 = baseline.binaries.iter().map(|b| b.link_seconds).sum();
    let bytes: u64 = baseline
        .binaries
        .iter()
        .filter_map(|b| std::fs::metadata(out_dir.join(&b.path)).ok())
        .map(|m| m.len())
        .sum();
    Projection::new(seeds, seconds, bytes, jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 22: `--seeds 4294967296` aborted allocating the list; `--seed-base u64::MAX
    /// --seeds 3` wrapped around to seed 0.
    #[test]
    fn seed_ranges_are_bounded_and_never_wrap() {
        assert_eq!(seed_range(1, 3, false).unwrap(), [1, 2, 3]);
        assert!(seed_range(1, 0, false).unwrap().is_empty());
        assert_eq!(seed_range(u64::MAX, 1, false).unwrap(), [u64::MAX]);
        assert_eq!(
            seed_range(u64::MAX - 2, 3, false).unwrap().last(),
            Some(&u64::MAX)
        );
        insta::assert_snapshot!(seed_range(u64::MAX, 3, false).unwrap_err().to_string());
        insta::assert_snapshot!(seed_range(1, 4_294_967_296, false).unwrap_err().to_string());
        let allowed = seed_range(1, 4_294_967_296, true).unwrap_err().to_string();
        assert!(allowed.ends_with("at most 100000 seeds, even with --allow-many-seeds"));
        assert_eq!(
            seed_range(1, MAX_SEEDS as u64, false).unwrap().len(),
            MAX_SEEDS
        );
        assert!(seed_range(1, MAX_SEEDS as u64 + 1, false).is_err());
    }

    #[test]
    fn projection_scales_with_seeds_and_jobs() {
        let p = Projection::new(100_000, 0.09, 250_000, 2);
        assert_eq!(p.seconds, 4500.0);
        assert_eq!(p.bytes, 25_000_000_000);
        assert_eq!(
            p.describe(),
            "100000 seeds: about 75 min and 25.0 GB of binaries (projected from the baseline)"
        );
        insta::assert_snapshot!(p.check(false).unwrap_err().to_string());
        assert!(p.check(true).is_ok());
        assert!(Projection::new(MANY_SEEDS, 1.0, 1, 1).check(false).is_ok());
    }
}
