//! Pure statistics, no I/O. Every function names the paper and equation it implements.
//!
//! One concept per file. The spine is Kalibera & Jones, "Rigorous Benchmarking in
//! Reasonable Time" (ISMM 2013): [`hierarchy`] holds balanced multi-level data,
//! [`multilevel`] its variance estimators, optimal repetition counts and confidence interval
//! (eq. 1–4), [`fieller`] the ratio interval (eq. 5–6). The others are the tests and
//! summaries the rest of `shared/papers` asks for: [`welch`] (Pilot eq. 6–8, Touati et al.),
//! [`paired`] (Georges et al. 2008 §5.2), [`anova`] (one-way random effects), with
//! [`tdist`] supplying t quantiles accurate at any degrees of freedom.

pub mod anova;
pub mod bootstrap;
pub mod error;
pub mod fieller;
pub mod hierarchy;
pub mod multilevel;
pub mod paired;
pub mod sample;
pub mod shapiro_wilk;
pub mod tdist;
pub mod welch;

pub use error::StatsError;
