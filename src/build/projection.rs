//! Big builds: above [`MANY_SEEDS`] seeds `build` wants `--allow-many-seeds`, and it says
//! what the seeds will cost, projected from the baseline just linked (time and disk).

use anyhow::{bail, Result};

/// The number of seeds above which `build` asks for `--allow-many-seeds`.
pub const MANY_SEEDS: usize = 1000;

/// The projected cost of `seeds` more binaries, each costing what the baseline cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projection {
    /// Seeds to build.
    pub seeds: usize,
    /// Wall time, seconds: `seeds × seconds per binary / jobs`.
    pub seconds: f64,
    /// Disk, bytes: `seeds × bytes per binary`.
    pub bytes: u64,
}

impl Projection {
    /// From one binary's cost (its links' or build's seconds, its binaries' bytes).
    pub fn new(seeds: usize, seconds_per_binary: f64, bytes_per_binary: u64, jobs: usize) -> Self {
        Projection {
            seeds,
            seconds: seeds as f64 * seconds_per_binary / jobs.max(1) as f64,
            bytes: seeds as u64 * bytes_per_binary,
        }
    }

    /// E.g. "100000 seeds: about 1.2 h and 45.3 GB (projected from the baseline)".
    pub fn describe(&self) -> String {
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
    pub fn check(&self, allowed: bool) -> Result<()> {
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
        eprintln!("layoutrand: {}", self.describe());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_scales_with_seeds_and_jobs() {
        let p = Projection::new(100_000, 0.09, 250_000, 2);
        assert_eq!(p.seconds, 4500.0);
        assert_eq!(p.bytes, 25_000_000_000);
        assert_eq!(
            p.describe(),
            "100000 seeds: about 75 min and 25.0 GB of binaries (projected from the baseline)"
        );
        assert!(p
            .check(false)
            .unwrap_err()
            .to_string()
            .contains("--allow-many-seeds"));
        assert!(p.check(true).is_ok());
        assert!(Projection::new(MANY_SEEDS, 1.0, 1, 1).check(false).is_ok());
    }
}
