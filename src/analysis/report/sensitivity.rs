//! "Is this program layout-sensitive?": do the randomised binaries differ more than
//! executions of one binary explain? (Kalibera & Jones 2013 §8: variation over binaries
//! against variation over executions; a random-effects one-way ANOVA makes it a test.)

use super::experiment::Series;
use super::model::{Interval, Level, Sensitivity, SensitivityTest, Verdict};
use super::screening::{
    rests_on, screen, set_aside_executions, ExecutionTable, LayoutTest, Screened,
};
use crate::analysis::numfmt::{level, p_value, percent, signed_percent, statistic};
use crate::analysis::vocabulary::Thresholds;
use crate::stats::sample::sd_interval;

/// The binary-level variance analysis of `series`.
///
/// The effect size is the relative standard deviation of the binaries' means with its
/// chi-square interval; its upper end bounds the layout's own share (the binaries' means also
/// carry execution noise). A detected effect whose upper end is within the relevance
/// threshold is "detectable but negligible".
///
/// Groups are the randomised binaries; observations are their execution means, or, with one
/// execution per binary, their iterations (then execution-to-execution noise cannot be told
/// apart from the layout, and the text says so).
pub fn sensitivity(
    series: &Series,
    levels: &[Level],
    mean: f64,
    thresholds: &Thresholds,
) -> Sensitivity {
    let described = described(series, levels, mean, thresholds.confidence);
    let undetermined = |why: String| Sensitivity {
        text: why,
        ..described.clone()
    };
    let by_execution = series.executions_per_binary() >= 2;
    let groups = anova_groups(series, by_execution);
    if groups.len() < 2 {
        return undetermined(format!(
            "cannot tell: {} randomised binary with data; at least 2 (better 30) are needed.",
            groups.len()
        ));
    }
    if groups[0].len() < 2 {
        return undetermined(
            "cannot tell: each binary ran once with one live iteration, so there is no within-binary variation to compare the binaries against; run at least 2 executions per binary."
                .into(),
        );
    }
    let anova = match crate::stats::anova::random_effects(&groups) {
        Ok(a) => a,
        Err(e) => return undetermined(format!("cannot tell: {e}.")),
    };
    let screened = match screened(series, by_execution) {
        Ok(s) => s,
        Err(e) => return undetermined(format!("cannot tell: {e}.")),
    };
    if anova.f.is_nan() && !(anova.ms_between.is_finite() && anova.ms_within.is_finite()) {
        // The same check as `analyze`'s: not "no variation" but too much for f64.
        return undetermined(format!(
            "cannot tell: {}, so the variances are not computable; rescale the values (e.g. another unit).",
            crate::analysis::vocabulary::OVERFLOW_REASON
        ));
    }
    if anova.f.is_nan()
        && screened
            .as_ref()
            .is_none_or(|(_, s)| s.set_aside.is_empty())
    {
        return Sensitivity {
            verdict: Verdict::NotDetected,
            text: format!(
                "no layout sensitivity: every {} of every binary gave the same value, so neither the layout nor anything else varied this metric.",
                if by_execution { "execution" } else { "iteration" }
            ),
            ..described
        };
    }
    let test = screened.as_ref().map_or(
        LayoutTest {
            kind: SensitivityTest::IterationF,
            f: anova.f,
            df: (anova.df_between, anova.df_within),
            p: anova.p,
            permutations: None,
        },
        |(_, s)| s.test,
    );
    let described = match &screened {
        Some((table, s)) => robust_magnitudes(described, series, table, s, mean, thresholds),
        None => described,
    };
    let tested = Tested {
        anova: &anova,
        test,
        binaries: groups.len(),
        per_binary: groups[0].len(),
        by_execution,
        mean,
    };
    tested.verdict(described, thresholds)
}

/// The execution table of `series` and its screening (none without executions to screen).
fn screened(
    series: &Series,
    by_execution: bool,
) -> Result<Option<(ExecutionTable, Screened)>, crate::stats::error::StatsError> {
    if !by_execution {
        return Ok(None);
    }
    let table = ExecutionTable::of(series);
    let s = screen(&table)?;
    Ok(Some((table, s)))
}

/// `described` with the screening's findings: the executions set aside, the variation
/// figures of the kept executions when some were set aside, and the binary a rejection
/// rests on.
fn robust_magnitudes(
    described: Sensitivity,
    series: &Series,
    table: &ExecutionTable,
    screened: &Screened,
    mean: f64,
    thresholds: &Thresholds,
) -> Sensitivity {
    let rests_on = (screened.test.p < thresholds.alpha())
        .then(|| rests_on(series, table, screened, thresholds.alpha()))
        .flatten();
    let set_aside = set_aside_executions(series, table, screened);
    if set_aside.is_empty() {
        return Sensitivity {
            rests_on,
            ..described
        };
    }
    let relative = |v: f64| Some(v / mean.abs()).filter(|v| v.is_finite());
    let binary_means: Vec<f64> = screened
        .kept
        .iter()
        .map(|k| crate::stats::sample::mean(k))
        .collect();
    let a = &screened.anova;
    Sensitivity {
        cv_across_binaries: relative(crate::stats::sample::variance(&binary_means).sqrt()),
        cv_across_binaries_ci: sd_interval(&binary_means, thresholds.confidence)
            .ok()
            .map(|(low, high)| Interval {
                lower: low / mean.abs(),
                upper: high / mean.abs(),
            })
            .filter(|i| i.lower.is_finite() && i.upper.is_finite()),
        cv_across_executions: relative(a.var_within.max(0.0).sqrt()),
        layout_variation: relative(a.var_between.max(0.0).sqrt()),
        set_aside,
        rests_on,
        ..described
    }
}

/// What is described without a test: the variation across binaries (with its interval), across
/// executions and the layout's own share, the verdict "cannot tell" and no text yet.
fn described(series: &Series, levels: &[Level], mean: f64, confidence: f64) -> Sensitivity {
    let cv = |name: &str| {
        levels
            .iter()
            .find(|l| l.name == name)
            .map(|l| l.s2.max(0.0).sqrt() / mean.abs())
    };
    // The layout's own share: T² of the binary level (eq. 2) floored at 0.
    let layout_variation = levels
        .iter()
        .find(|l| l.name == "binary")
        .map(|l| l.t2.max(0.0).sqrt() / mean.abs())
        .filter(|v| v.is_finite());
    let binary_means: Vec<f64> = series.seeds.iter().map(|b| b.mean()).collect();
    let cv_across_binaries_ci = sd_interval(&binary_means, confidence)
        .ok()
        .map(|(low, high)| Interval {
            lower: low / mean.abs(),
            upper: high / mean.abs(),
        })
        .filter(|i| i.lower.is_finite() && i.upper.is_finite());
    Sensitivity {
        verdict: Verdict::Undetermined,
        f: None,
        df: None,
        p_value: None,
        icc: None,
        variance_components: None,
        cv_across_binaries: cv("binary"),
        cv_across_binaries_ci,
        cv_across_executions: cv("execution"),
        layout_variation,
        detectable_variation: None,
        test: None,
        permutations: None,
        set_aside: Vec::new(),
        rests_on: None,
        text: String::new(),
    }
}

/// A computable F test of the binaries' observations.
struct Tested<'a> {
    /// The one-way ANOVA of the (kept) observations: variance components and power.
    anova: &'a crate::stats::anova::RandomEffectsAnova,
    /// The test the verdict rests on.
    test: LayoutTest,
    /// Groups (randomised binaries) and observations per group.
    binaries: usize,
    per_binary: usize,
    /// Whether the observations are execution means (else iterations of one execution).
    by_execution: bool,
    mean: f64,
}

impl Tested<'_> {
    /// `described` completed with the test, its verdict and its words.
    fn verdict(&self, described: Sensitivity, thresholds: &Thresholds) -> Sensitivity {
        let anova = self.anova;
        let by_execution = self.by_execution;
        let words = Words {
            within_unit: if by_execution {
                "executions"
            } else {
                "iterations"
            },
            f_text: f_words(anova, &self.test),
            variation: variation_words(
                described.cv_across_binaries,
                described.cv_across_executions,
                described.layout_variation,
            ),
            caveat: if by_execution {
                ""
            } else {
                " Caution: with one execution per binary, differences between processes are counted as layout effects; run at least 2 executions per binary to separate them."
            },
            share: format!(
                "the layout accounts for an estimated {} of the variance of one {}'s mean (intraclass correlation)",
                percent(anova.icc.max(0.0), 2),
                if by_execution { "execution" } else { "iteration" }
            ),
        };
        // The layout variation the F-test finds with 80 % power: σ_a = sqrt(ρ · MSW), relative.
        let detectable_variation = crate::stats::anova::detectable_variance_ratio(
            self.binaries,
            self.per_binary,
            thresholds.alpha(),
            crate::stats::mde::DEFAULT_POWER,
        )
        .map(|rho| (rho * anova.ms_within).sqrt() / self.mean.abs())
        .filter(|v| v.is_finite());
        let evidence = Evidence {
            p: self.test.p,
            binaries: self.binaries,
            per_binary: self.per_binary,
            negligible: described
                .cv_across_binaries_ci
                .filter(|i| i.upper <= thresholds.negligible),
            detectable_variation,
        };
        let (verdict, text) = match &described.rests_on {
            Some(r) if self.test.p < thresholds.alpha() => (
                Verdict::Undetermined,
                rests_on_words(r, &words, self.binaries),
            ),
            _ => verdict_words(&evidence, &words, thresholds),
        };
        let text = format!("{text}{}", set_aside_words(&described.set_aside));
        let test = self.test;
        Sensitivity {
            verdict,
            f: test.f.is_finite().then_some(test.f),
            df: Some((test.df.0 as f64, test.df.1 as f64)),
            p_value: Some(test.p),
            test: Some(test.kind),
            permutations: test.permutations,
            icc: Some(anova.icc),
            variance_components: Some((anova.var_between, anova.var_within)),
            detectable_variation,
            text,
            ..described
        }
    }
}

/// The randomised binaries' observations for the ANOVA: their execution means, or with one
/// execution per binary their live iterations.
fn anova_groups(series: &Series, by_execution: bool) -> Vec<Vec<f64>> {
    if by_execution {
        series.seeds.iter().map(|b| b.execution_means()).collect()
    } else {
        series
            .seeds
            .iter()
            .map(|b| b.executions.iter().flat_map(|e| e.live.clone()).collect())
            .collect()
    }
}

/// The test in words: `F(df1, df2) = f, p = …` (with `∞` when executions of one binary gave
/// identical values while binaries differ), and for the blocked rank test what it ranks and
/// where its p-value comes from.
fn f_words(anova: &crate::stats::anova::RandomEffectsAnova, test: &LayoutTest) -> String {
    if let (SensitivityTest::BlockedRanks, Some(n)) = (test.kind, test.permutations) {
        let f = if test.f.is_finite() {
            statistic(test.f)
        } else {
            "∞".to_string()
        };
        return format!(
            "Friedman's test blocked on execution rounds: F({}, {}) = {f} on the binaries' ranks within each round, {} from {} within-round permutations",
            test.df.0,
            test.df.1,
            p_value(test.p),
            crate::analysis::numfmt::sig(n as f64, n.to_string().len())
        );
    }
    if anova.f.is_finite() {
        format!(
            "F({}, {}) = {}, {}",
            anova.df_between,
            anova.df_within,
            statistic(anova.f),
            p_value(anova.p)
        )
    } else {
        format!(
            "executions of one binary gave identical values while binaries differ, F({}, {}) = ∞, {}",
            anova.df_between,
            anova.df_within,
            p_value(anova.p)
        )
    }
}

/// "Cannot tell": the rejection rests on one binary `r` standing apart; names it, how far it
/// sits, and how to re-measure it interleaved with the others.
fn rests_on_words(r: &super::model::RestsOn, words: &Words, binaries: usize) -> String {
    format!(
        "cannot tell: the {binaries} randomised binaries differ more than their {} explain ({}), but that rests on one binary, {}, whose mean sits {} from the median of the others ({} robust standard deviations of their means); without it they do not differ ({}). One slow or fast episode of the machine can do that as well as a layout: re-measure it interleaved with the others (`layoutrand run --resume --extend-executions K --out DIR` adds K rounds in which every binary runs once) before trusting a verdict.{}",
        words.within_unit,
        words.f_text,
        r.binary,
        signed_percent(r.deviation),
        statistic(r.robust_distance.abs()),
        p_value(r.p_value_without),
        words.variation
    )
}

/// The executions set aside, as a sentence (empty when none).
fn set_aside_words(set_aside: &[super::model::SetAsideExecution]) -> String {
    if set_aside.is_empty() {
        return String::new();
    }
    let listed: Vec<String> = set_aside
        .iter()
        .map(|s| {
            format!(
                "{} execution {} ({})",
                s.binary,
                s.execution,
                signed_percent(s.deviation)
            )
        })
        .collect();
    format!(
        " Set aside as outlying ({} robust standard deviations or more from the binaries' and rounds' robust fit; the variation figures rest on the other executions): {}.",
        statistic(super::screening::SET_ASIDE_CUT),
        listed.join(", ")
    )
}

/// How much the binaries' means vary against the executions of one binary, and the
/// layout's own share, as a sentence (empty when unknown).
fn variation_words(
    cv_across_binaries: Option<f64>,
    cv_across_executions: Option<f64>,
    layout_variation: Option<f64>,
) -> String {
    let layout_only = layout_variation
        .map(|v| {
            format!(
                "; the layout's own share (T² of the binary level) is {}",
                percent(v, 2)
            )
        })
        .unwrap_or_default();
    match (cv_across_binaries, cv_across_executions) {
        (Some(b), Some(e)) => format!(
            " The binaries' means vary by {} (relative standard deviation, execution noise included) against {} between executions of one binary (Kalibera & Jones Fig. 2){layout_only}.",
            percent(b, 2),
            percent(e, 2)
        ),
        (Some(b), None) => format!(
            " The binaries' means vary by {} (relative standard deviation).",
            percent(b, 2)
        ),
        _ => String::new(),
    }
}

/// The parts of every verdict's sentence.
struct Words {
    within_unit: &'static str,
    f_text: String,
    variation: String,
    caveat: &'static str,
    share: String,
}

/// What the verdict rests on.
struct Evidence {
    /// The F test's p-value.
    p: f64,
    /// Randomised binaries, and observations per binary.
    binaries: usize,
    per_binary: usize,
    /// The interval of the binaries' relative standard deviation, when within the threshold.
    negligible: Option<Interval>,
    /// The layout variation the F test finds with 80 % power, relative to the mean.
    detectable_variation: Option<f64>,
}

/// The verdict and its sentence: negligible (detected, but the whole interval within the
/// threshold), detected, cannot tell (nothing below the threshold was detectable), or not
/// detected.
fn verdict_words(e: &Evidence, words: &Words, thresholds: &Thresholds) -> (Verdict, String) {
    let Words {
        within_unit,
        f_text,
        variation,
        caveat,
        share,
    } = words;
    let confidence = thresholds.confidence;
    let alpha = thresholds.alpha();
    let underpowered = e
        .detectable_variation
        .filter(|d| *d > thresholds.negligible);
    if let (true, Some(ci)) = (e.p < alpha, e.negligible) {
        (
            Verdict::Negligible,
            format!(
                "detectable but negligible: the {} randomised binaries differ more than their {within_unit} explain ({f_text}, tested at {}), but their means vary by at most {} ({} CI of the relative standard deviation: {} to {}), within the relevance threshold of {}; a single layout would misstate this metric by less than that.{variation}{caveat}",
                e.binaries,
                level(confidence),
                percent(ci.upper, 2),
                level(confidence),
                percent(ci.lower, 2),
                percent(ci.upper, 2),
                percent(thresholds.negligible, 2)
            ),
        )
    } else if e.p < alpha {
        (
            Verdict::Detected,
            format!(
                "layout-sensitive: the {} randomised binaries differ more than their {within_unit} explain ({f_text}, tested at {}); {share}. Results from a single layout would misstate this program's performance.{variation}{caveat}",
                e.binaries,
                level(confidence)
            ),
        )
    } else if let Some(d) = underpowered {
        (
            Verdict::Undetermined,
            format!(
                "cannot tell (nothing below {} was detectable with these counts): the {} randomised binaries differ no more than their {within_unit} explain ({f_text}, tested at {}), but with {} {within_unit} per binary the F-test finds, with 80 % power, only a layout effect whose standard deviation is at least {} of the mean, above the {} worth finding (--negligible); {share}.{variation}{caveat}",
                percent(d, 2),
                e.binaries,
                level(confidence),
                e.per_binary,
                percent(d, 2),
                percent(thresholds.negligible, 2)
            ),
        )
    } else {
        (
            Verdict::NotDetected,
            format!(
                "no layout sensitivity detected: the {} randomised binaries differ no more than their {within_unit} explain ({f_text}, tested at {}), and the F-test would have found, with 80 % power, a layout effect of {} (standard deviation relative to the mean), within the {} worth finding (--negligible); {share}.{variation}{caveat}",
                e.binaries,
                level(confidence),
                e.detectable_variation.map_or("an unknown size".into(), |d| percent(d, 2)),
                percent(thresholds.negligible, 2)
            ),
        )
    }
}
