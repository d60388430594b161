//! The numbers and wire words every analysis shares: one set of thresholds derived from
//! `--confidence` and `--negligible`, one minimum number of top-level units, one bound on
//! bootstrap resamples, the verdicts' wire words (the phrases the sentences share are in
//! `crate::report::words`). (The percent, cost and duration parsers are in
//! [`crate::units`], the command line's value parsers in [`crate::flags`], the default
//! experiment directory in [`crate::files`].)
//!
//! Every analysis reads its thresholds through these, so a verdict is "detected" at the same
//! level in `analyze`, `report` and `compare`.

use std::collections::BTreeMap;

use anyhow::{bail, Result};
use serde::{Serialize, Serializer};

/// The fewest top-level units (randomised binaries) from which an interval's width is
/// trusted. Kalibera & Jones 2013 §11 (Tables 6 and 7) never show counts below 5, "as they
/// could hardly be used to get the variance estimate right".
pub const MIN_TOP_LEVEL_UNITS: usize = 5;

/// Default relevance threshold: an effect whose whole interval lies within ± 1 % is
/// "detectable but negligible".
pub(crate) const DEFAULT_NEGLIGIBLE: f64 = 0.01;

/// The most bootstrap resamples accepted. Each resample keeps one `f64`, so this bounds the
/// bootstrap's memory at 80 MB; the bootstrap interval's Monte Carlo error is already far
/// below the interval's own width at 10⁴ resamples (Efron & Tibshirani 1993 §19.3).
pub(crate) const MAX_BOOTSTRAP_RESAMPLES: usize = 10_000_000;

pub(crate) use crate::files::OUTPUT_SCHEMA;

/// Every word a `verdict` field takes in layoutrand's JSON, per kind of question:
/// [`Verdict`] (is there an effect?), [`super::effect::EffectVerdict`] (which way does a
/// ratio go?) and the doctor's fitness ([`super::doctor::Fitness`]). Snake case, no spaces.
/// EffectVerdict's `negligible` is Verdict's word, listed once.
pub const VERDICT_WORDS: [&str; 13] = [
    "detected",
    "negligible",
    "not_detected",
    "undetermined",
    "lower",
    "higher",
    "equivalent",
    "inconclusive",
    "tie",
    "unbounded",
    "fit",
    "deterministic_only",
    "not_fit",
];

/// One entry of a per-program list in JSON: the ids, the display label kept as a field,
/// then the entry's own fields (what [`by_program_and_variant`] writes, named by its fields'
/// `#[schemars(with = …)]`).
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct ByProgram<'a, T> {
    /// The program.
    pub(crate) program: &'a str,
    /// The variant (null without variants).
    pub(crate) variant: Option<&'a str>,
    /// `program`, or `program [variant]`: how the text report names it.
    pub(crate) label: String,
    /// The entry's own fields.
    #[serde(flatten)]
    pub(crate) entry: &'a T,
}

/// A program as the reports name it: `calc`, or `calc [O2]` for variant `O2` of it (a key
/// the JSON's `label` and the text's headings share, not a sentence).
pub(crate) fn program_label(program: &str, variant: Option<&str>) -> String {
    match variant {
        Some(v) => format!("{program} [{v}]"),
        None => program.to_string(),
    }
}

/// Writes a map keyed by (program, variant) as a list of objects carrying `program`,
/// `variant` (null without variants) and `label`, so that a reader matches entries by ids
/// rather than by parsing a display label such as `demo [O3]`.
pub(crate) fn by_program_and_variant<T: Serialize, S: Serializer>(
    map: &BTreeMap<(String, Option<String>), T>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_seq(map.iter().map(|((program, variant), entry)| ByProgram {
        program,
        variant: variant.as_deref(),
        label: program_label(program, variant.as_deref()),
        entry,
    }))
}

/// Plain answer of a test, the same words in every report: `detected`, `negligible`,
/// `not_detected`, `undetermined` ("cannot tell").
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The effect is statistically significant at the report's confidence level.
    Detected,
    /// The effect's whole interval lies within the relevance threshold (`--negligible`):
    /// detectable but negligible. (The variants' interaction also uses it when the effect is
    /// not significant but its interval rules out a relevant one.)
    Negligible,
    /// No significant effect was found.
    NotDetected,
    /// The data cannot answer (too few units, no variance estimate, or too little power to
    /// find an effect beyond the relevance threshold).
    Undetermined,
}

impl Verdict {
    /// The verdict as its JSON name (`not_detected`), what every rendering prints.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Verdict::Detected => "detected",
            Verdict::Negligible => "negligible",
            Verdict::NotDetected => "not_detected",
            Verdict::Undetermined => "undetermined",
        }
    }

    /// The verdict in words, for a sentence: [`Verdict::word`] with a space for the
    /// underscore (`not detected`).
    pub(crate) fn in_words(self) -> &'static str {
        match self {
            Verdict::NotDetected => "not detected",
            v => v.word(),
        }
    }
}

/// The thresholds of every test and verdict, all derived from two user choices.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Thresholds {
    /// Confidence level of every interval (e.g. 0.95); tests reject at `1 − confidence`.
    pub confidence: f64,
    /// Relevance threshold (a share): effects whose whole interval lies within
    /// `± negligible` are "detectable but negligible".
    pub negligible: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            confidence: 0.95,
            negligible: DEFAULT_NEGLIGIBLE,
        }
    }
}

impl Thresholds {
    /// Checked thresholds: confidence in (0, 1), negligible in [0, 1).
    pub fn new(confidence: f64, negligible: f64) -> Result<Self> {
        if !(confidence > 0.0 && confidence < 1.0) {
            bail!("--confidence {confidence} must be strictly between 0 and 1 (e.g. 0.95)");
        }
        if !(0.0..1.0).contains(&negligible) {
            bail!("--negligible {negligible} must be a share from 0 to 1 (e.g. 1% or 0.01)");
        }
        Ok(Thresholds {
            confidence,
            negligible,
        })
    }

    /// The significance level of every test, `1 − confidence`.
    pub(crate) fn alpha(&self) -> f64 {
        1.0 - self.confidence
    }
}

/// Refuses a bootstrap resample count that is zero or beyond [`MAX_BOOTSTRAP_RESAMPLES`]
/// before anything is allocated.
pub(crate) fn check_bootstrap(resamples: usize) -> Result<()> {
    if resamples < 100 {
        bail!("--bootstrap {resamples}: use at least 100 resamples (10000 is typical)");
    }
    if resamples > MAX_BOOTSTRAP_RESAMPLES {
        bail!(
            "--bootstrap {resamples}: at most {MAX_BOOTSTRAP_RESAMPLES} resamples are accepted \
             (each keeps 8 bytes; 10000 is typical and its Monte Carlo error is already small)"
        );
    }
    Ok(())
}

/// The word an enum is written as in JSON (its serde name: `not_detected`, `inconclusive`,
/// `module`): what the machine formats and the files write, the one way from a value to its
/// word (no detour through the text formats' English).
pub(crate) fn json_word<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Names compared with their runs of digits as numbers (`BM/2` before `BM/10`), then as text.
pub(crate) fn natural_order(a: &str, b: &str) -> std::cmp::Ordering {
    fn parts(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let key = |s: &str| -> Vec<(u8, u128, String)> {
        parts(s)
            .into_iter()
            .map(|(digits, p)| match digits {
                true => (0, p.parse().unwrap_or(u128::MAX), String::new()),
                false => (1, 0, p.to_string()),
            })
            .collect()
    };
    key(a).cmp(&key(b)).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant of every verdict enum serialises to a word of [`VERDICT_WORDS`], and
    /// every word is some variant's: the list is the enums' vocabulary, no more, no less.
    #[test]
    fn verdict_words_are_the_enums_words() {
        use super::super::effect::EffectVerdict as E;
        use crate::analysis::doctor::Fitness as D;
        let word = |v: serde_json::Value| v.as_str().unwrap().to_string();
        let mut words: Vec<String> = [
            Verdict::Detected,
            Verdict::Negligible,
            Verdict::NotDetected,
            Verdict::Undetermined,
        ]
        .into_iter()
        .map(|v| word(serde_json::to_value(v).unwrap()))
        .collect();
        words.extend(
            [E::Lower, E::Higher, E::Negligible, E::Equivalent]
                .into_iter()
                .chain([E::Inconclusive, E::Tie, E::Unbounded])
                .map(|v| word(serde_json::to_value(v).unwrap())),
        );
        words.extend(
            [D::Fit, D::DeterministicOnly, D::NotFit]
                .into_iter()
                .map(|v| word(serde_json::to_value(v).unwrap())),
        );
        for w in &words {
            assert!(VERDICT_WORDS.contains(&w.as_str()), "{w}");
            assert!(!w.contains(' '), "{w}");
        }
        for w in VERDICT_WORDS {
            assert!(words.iter().any(|x| x == w), "{w} is no variant's word");
        }
    }

    #[test]
    fn bootstrap_is_bounded_before_allocating() {
        assert!(check_bootstrap(100_000_000_000).is_err());
        assert!(check_bootstrap(0).is_err());
        assert!(check_bootstrap(10_000).is_ok());
    }

    #[test]
    fn names_sort_with_their_numbers_as_numbers() {
        let mut names = ["BM/10", "BM/2", "BM/1/x", "a", "BM/2b", "10", "9"];
        names.sort_by(|a, b| natural_order(a, b));
        assert_eq!(names, ["9", "10", "BM/1/x", "BM/2", "BM/2b", "BM/10", "a"]);
    }
}
