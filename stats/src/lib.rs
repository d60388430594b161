//! Pure statistics, no I/O. Every function names the paper and equation it implements.
//!
//! One concept per file. The spine is Kalibera & Jones, "Rigorous Benchmarking in
//! Reasonable Time" (ISMM 2013): [`hierarchy`] holds balanced multi-level data,
//! [`multilevel`] its variance estimators, optimal repetition counts and confidence interval
//! (eq. 1–4), [`fieller`] the ratio interval (eq. 5–6). The others are the tests and
//! summaries the rest of `shared/papers` asks for: [`welch`] (Pilot eq. 6–8, Touati et al.),
//! [`paired`] (Georges et al. 2008 §5.2), [`anova`] (one-way random effects),
//! [`shapiro_wilk`] (Royston's AS R94), the non-parametric fallbacks [`bootstrap`]
//! (studentized, resampling the top level) and [`mann_whitney`], the run-sequence tools
//! [`autocorr`] (ACF, Ljung–Box, Pilot's subsession merge) and [`changepoint`] (PELT, a
//! suggested warmup), and Touati et al.'s suite summaries in [`suite`]; [`tdist`] supplies t
//! quantiles accurate at any degrees of freedom, [`noncentral_t`] (Lenth's AS 243) the exact
//! power behind [`mde`], and [`sample`] the one-sample basics.
//!
//! Comparing variants of one program (issue 11): [`paired_ratio`] (Fieller's interval for
//! seeds matched across variants), [`bootstrap::paired_ratio_ci`], [`suite::wilson_ci`] (the share
//! of seeds on which new is faster), [`twoway`] (variant × binary mixed ANOVA: does the speedup
//! depend on the layout?), [`interaction`] (the same question on the ratio scale with the
//! scheduler's blocks as the error stratum, and the spread's magnitude), and for k > 2 [`bonferroni`] (the comparisons against the base held together) and variants [`tukey`] with its own
//! [`studentized_range`] distribution (Georges et al. 2008 §4.1).
//!
//! Looking after every binary (issue 27): [`confidence_sequence`] (Lai's t-mixture, valid at
//! every look at once) and [`repeated_t`] (Pocock-type repeated t intervals, valid at every
//! look of a horizon fixed in advance).
//!
//! Where the variation comes from (issue 35): [`variance_split`] (code seed × data seed
//! crossed random effects with replication; each component's share with a generalized
//! confidence interval) and [`crossed_mean`] (the mean over random code and data layouts with
//! its interval, and the code variation the crossed test detects), and [`range_test`] (do
//! the executions an outlier screen set aside share where their stack started: the exact
//! permutation test of their paddings' range).

pub mod anova;
pub mod autocorr;
pub mod blocked_f;
pub mod bonferroni;
pub mod bootstrap;
pub mod changepoint;
pub mod confidence_sequence;
pub mod crossed_mean;
pub mod crossed_plan;
pub mod crossed_ratio;
pub mod degrees_of_freedom;
pub mod error;
pub mod fdr;
pub mod fieller;
pub mod hierarchy;
pub mod interaction;
pub mod interval;
pub mod machines;
pub mod mann_whitney;
pub mod mde;
pub mod multilevel;
pub mod noncentral_t;
pub mod paired;
pub mod paired_ratio;
pub mod planning;
pub mod range_test;
pub mod repeated_t;
pub mod robust_fit;
pub mod sample;
pub mod seeded;
pub mod shapiro_wilk;
pub mod sign_test;
pub mod studentized_range;
pub mod suite;
pub mod tdist;
#[cfg(test)]
mod test_support;
pub mod tukey;
pub mod twoway;
pub mod variance_split;
pub mod welch;

pub use error::StatsError;
