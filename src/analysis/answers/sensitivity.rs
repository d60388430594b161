//! "Is this program layout-sensitive?": do the randomised binaries differ more than
//! executions of one binary explain? (Kalibera & Jones 2013 §8: variation over binaries
//! against variation over executions; a random-effects one-way ANOVA makes it a test.)

use super::experiment::Series;
use super::model::{
    Interval, Level, Sensitivity, SensitivityGrounds, SensitivityOutcome, SensitivityTest,
    TestedGrounds, Verdict,
};
use super::screening::{
    far_off, far_off_among, rests_on, screen, set_aside_executions, ExecutionTable, LayoutTest,
    Screened,
};
use crate::analysis::vocabulary::Thresholds;
use crate::stats::degrees_of_freedom::DegreesOfFreedom;
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
/// apart from the layout, and the words say so). The verdict's grounds are numbers and enums
/// ([`SensitivityGrounds`]); `crate::report::words::sensitivity` makes them a sentence.
pub fn sensitivity(
    series: &Series,
    levels: &[Level],
    mean: f64,
    thresholds: &Thresholds,
) -> Sensitivity {
    let described = described(series, levels, mean, thresholds);
    let undetermined = |grounds: SensitivityGrounds| Sensitivity {
        grounds,
        ..described.clone()
    };
    let by_execution = series.executions_per_binary() >= 2;
    let Testable {
        groups,
        anova,
        screened,
    } = match testable(series, by_execution) {
        Ok(t) => t,
        Err(SensitivityGrounds::SingleObservation) => {
            return single_observation(series, described, thresholds)
        }
        Err(grounds) => return undetermined(grounds),
    };
    if anova.f.is_nan()
        && screened
            .as_ref()
            .is_none_or(|(_, s)| s.set_aside.is_empty())
    {
        return Sensitivity {
            verdict: Verdict::NotDetected,
            grounds: SensitivityGrounds::Constant { by_execution },
            ..described
        };
    }
    let code_axis = super::code_axis::CodeAxis::of(series);
    if let Some(axis) = code_axis.as_ref().filter(|a| a.identical()) {
        return Sensitivity {
            verdict: Verdict::NotDetected,
            grounds: SensitivityGrounds::NoCodeVariation {
                data_seeds: axis.data_seeds(),
            },
            ..described
        };
    }
    let test = screened.as_ref().map_or(
        LayoutTest {
            kind: SensitivityTest::IterationF,
            f: anova.f,
            df: (anova.df_numerator, anova.df_denominator),
            p: anova.p_value,
            permutations: None,
            table: None,
        },
        |(_, s)| s.test,
    );
    let described = match &screened {
        Some((table, s)) => robust_magnitudes(described, series, table, s, mean, thresholds),
        None => described,
    };
    let tested = Tested {
        anova: &anova,
        blocked: screened.as_ref().and_then(|(_, s)| s.blocked),
        test,
        binaries: groups.len(),
        per_binary: groups[0].len(),
        by_execution,
        mean,
        code_axis: code_axis.as_ref(),
    };
    tested.verdict(described, thresholds)
}

/// With one observation per binary nothing tests the layout, but the binaries' spread bounds
/// it: "negligible" when the interval of their relative standard deviation ends within
/// `--negligible` and no binary lies far off the others ([`far_off_among`]: a lump the
/// spread understates); "no layout sensitivity" when every binary gave the same value; else
/// "cannot tell", naming a layout far off. libdeflate 1.14 under
/// cachegrind, one execution per binary (its counts vary by 0.0033 % over 16 layouts), was
/// "cannot tell … run at least 2 executions per binary" for every count.
fn single_observation(
    series: &Series,
    described: Sensitivity,
    thresholds: &Thresholds,
) -> Sensitivity {
    let means: Vec<f64> = series.seeds.iter().map(|b| b.mean()).collect();
    if means.iter().all(|m| *m == means[0]) {
        return Sensitivity {
            verdict: Verdict::NotDetected,
            grounds: SensitivityGrounds::Constant {
                by_execution: false,
            },
            ..described
        };
    }
    let far_off = far_off_among(series, &means, thresholds.negligible);
    match described.cv_across_binaries_ci {
        Some(ci) if far_off.is_empty() && ci.upper <= thresholds.negligible => Sensitivity {
            verdict: Verdict::Negligible,
            grounds: SensitivityGrounds::SingleObservationBounded {
                ci,
                binaries: means.len(),
            },
            ..described
        },
        _ => Sensitivity {
            far_off,
            grounds: SensitivityGrounds::SingleObservation,
            ..described
        },
    }
}

/// `s` for a metric that varies from process to process (time, not cachegrind's counts).
/// With one execution per binary the binaries were tested over their iterations, so each
/// binary is one process, and a detection may be the processes' differences (their memory
/// pages, the clock, the machine's load) rather than the layouts' (Kalibera & Jones §3: the
/// execution level is a level of its own): it becomes "cannot tell". A negligible verdict
/// stands, since its bound covers the processes' share too, and so does "not detected".
pub(crate) fn for_varying_processes(s: &mut Sensitivity) {
    if let SensitivityGrounds::Tested(t) = &mut s.grounds {
        let detected = matches!(
            t.outcome,
            SensitivityOutcome::Detected | SensitivityOutcome::OneApart
        );
        if !t.by_execution && detected {
            t.outcome = SensitivityOutcome::OneProcessPerBinary;
            s.verdict = t.outcome.verdict();
        }
    }
}

/// What the layout test of a series rests on: its groups, their one-way ANOVA and, by
/// execution, the execution table's screening.
struct Testable {
    groups: Vec<Vec<f64>>,
    anova: crate::stats::anova::RandomEffectsAnova,
    screened: Option<(ExecutionTable, Screened)>,
}

/// The groups, ANOVA and screening of `series`, or why the layout cannot be tested: too few
/// binaries or observations, a statistic that cannot be computed, or values whose spread
/// overflows f64.
fn testable(series: &Series, by_execution: bool) -> Result<Testable, SensitivityGrounds> {
    let groups = anova_groups(series, by_execution);
    if groups.len() < 2 {
        return Err(SensitivityGrounds::TooFewBinaries {
            with_data: groups.len(),
        });
    }
    if groups[0].len() < 2 {
        return Err(SensitivityGrounds::SingleObservation);
    }
    let anova =
        crate::stats::anova::random_effects(&groups).map_err(SensitivityGrounds::NotComputable)?;
    let screened = screened(series, by_execution).map_err(SensitivityGrounds::NotComputable)?;
    if anova.f.is_nan() && !(anova.ms_between.is_finite() && anova.ms_within.is_finite()) {
        // The same check as `analyze`'s: not "no variation" but too much for f64.
        return Err(SensitivityGrounds::Overflow);
    }
    Ok(Testable {
        groups,
        anova,
        screened,
    })
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

/// `described` with the screening's findings: the executions set aside and the cut they
/// were set aside at, the variation figures of the kept executions when some were set
/// aside, on a rounds schedule the binaries' spread, the layout's variance component and the
/// noise all from the blocked F test's ANOVA (so that the magnitudes come from the test that
/// decided, and the spread with the noise in it is never below the layout's share without
/// it), and the binary a rejection rests on.
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
    let relative = |v: f64| Some(v / mean.abs()).filter(|v| v.is_finite());
    let described = Sensitivity {
        rests_on,
        far_off: far_off(series, screened, thresholds.negligible),
        set_aside_cut: Some(screened.cut),
        set_aside_padding: None,
        ..described
    };
    let described = match screened.blocked {
        Some(b) => blocked_magnitudes(described, &b, mean, thresholds.confidence),
        None => described,
    };
    if set_aside.is_empty() {
        return described;
    }
    if screened.blocked.is_some() {
        return Sensitivity {
            set_aside,
            ..described
        };
    }
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
        ..described
    }
}

/// `described` with the magnitudes of the blocked F test's ANOVA `b`: the layout's variance
/// component, the residual noise and the binaries' spread with the noise in it, all from the
/// one table, relative to `mean` (on the log scale a standard deviation already is).
fn blocked_magnitudes(
    described: Sensitivity,
    b: &crate::analysis::answers::screening::BlockedAnova,
    mean: f64,
    confidence: f64,
) -> Sensitivity {
    let relative = |v: f64| Some(v / mean.abs()).filter(|v| v.is_finite());
    let relative_sd = |variance: f64| {
        let sd = variance.max(0.0).sqrt();
        if b.log_scale {
            Some(sd).filter(|v| v.is_finite())
        } else {
            relative(sd)
        }
    };
    // The binaries' spread with the noise in it from the same table: the variance of its row
    // means, `MS_T / b` (on which the layout's component, `(MS_T − MS_E) / b`, is never
    // above it), with its chi-square interval on `k − 1` degrees.
    let a = &b.anova;
    let spread = a.ms_treatment / a.blocks as f64;
    let spread_ci = crate::stats::sample::sd_interval_of_variance(
        spread,
        a.treatments.saturating_sub(1),
        confidence,
    )
    .ok()
    .and_then(|(low, high)| {
        let (lower, upper) = if b.log_scale {
            (low, high)
        } else {
            (relative(low)?, relative(high)?)
        };
        Some(Interval { lower, upper }).filter(|i| i.lower.is_finite() && i.upper.is_finite())
    });
    Sensitivity {
        layout_variation: relative_sd(a.var_treatment),
        cv_across_executions: relative_sd(a.ms_residual),
        cv_across_binaries: relative_sd(spread),
        cv_across_binaries_ci: spread_ci,
        ..described
    }
}

/// What is described without a test: the variation across binaries (with its interval), across
/// executions and the layout's own share, the verdict "cannot tell" and no grounds yet.
fn described(series: &Series, levels: &[Level], mean: f64, thresholds: &Thresholds) -> Sensitivity {
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
    let cv_across_binaries_ci = sd_interval(&binary_means, thresholds.confidence)
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
        suite_fdr: None,
        icc: None,
        variance_components: None,
        cv_across_binaries: cv("binary"),
        cv_across_binaries_ci,
        cv_across_executions: cv("execution"),
        layout_variation,
        detectable_variation: None,
        test: None,
        permutations: None,
        deciding_table: None,
        cells_replaced: None,
        set_aside: Vec::new(),
        set_aside_cut: None,
        set_aside_padding: None,
        rests_on: None,
        far_off: Vec::new(),
        grounds: SensitivityGrounds::Unanalysed,
        thresholds: *thresholds,
    }
}

/// A computable F test of the binaries' observations.
struct Tested<'a> {
    /// The one-way ANOVA of the (kept) observations: variance components and power.
    anova: &'a crate::stats::anova::RandomEffectsAnova,
    /// On a rounds schedule, the blocked F test's ANOVA: the power of the test that
    /// decided.
    blocked: Option<super::screening::BlockedAnova>,
    /// The test the verdict rests on.
    test: LayoutTest,
    /// Groups (randomised binaries) and observations per group.
    binaries: usize,
    per_binary: usize,
    /// Whether the observations are execution means (else iterations of one execution).
    by_execution: bool,
    mean: f64,
    /// The crossed table when the run varied the data layout.
    code_axis: Option<&'a super::code_axis::CodeAxis>,
}

impl Tested<'_> {
    /// `described` completed with the test, its verdict and its grounds.
    fn verdict(&self, mut described: Sensitivity, thresholds: &Thresholds) -> Sensitivity {
        let anova = self.anova;
        let detectable_variation = self.detectable_variation(thresholds);
        // A spread within the threshold bounds what a single layout misstates only when no
        // layout lies far off the others ([`Sensitivity::far_off`]); a spread beyond it says
        // so itself, and the layouts far off are then not named (of 6 binaries 2.7 % apart,
        // three were "far off").
        let within = described
            .cv_across_binaries_ci
            .filter(|i| i.upper <= thresholds.negligible);
        if within.is_none() {
            described.far_off.clear();
        }
        let negligible = within.filter(|_| described.far_off.is_empty());
        // A binary apart by no more than the threshold, among means whose spread is within
        // it, is a lump too small to count: flac's data writes under cachegrind read
        // "layout-sensitive, because of one layout far off", that layout < 0.0001 % off.
        if negligible.is_some()
            && described
                .rests_on
                .as_ref()
                .is_some_and(|r| r.apart.deviation.abs() <= thresholds.negligible)
        {
            described.rests_on = None;
        }
        let outcome = match &described.rests_on {
            Some(r) if self.test.p < thresholds.alpha() && r.steady => SensitivityOutcome::OneApart,
            Some(_) if self.test.p < thresholds.alpha() => SensitivityOutcome::RestsOnOne,
            _ => outcome(
                self.test.p,
                negligible,
                detectable_variation,
                described.layout_variation,
                thresholds,
            ),
        };
        let test = self.test;
        let grounds = SensitivityGrounds::Tested(TestedGrounds {
            outcome,
            by_execution: self.by_execution,
            binaries: self.binaries,
            per_binary: self.per_binary,
            anova_f: anova.f,
            anova_df: (anova.df_numerator, anova.df_denominator),
            anova_p: anova.p_value,
            test_f: test.f,
            test_df: test.df,
            data_seeds: self.code_axis.map_or(1, |a| a.data_seeds()),
        });
        Sensitivity {
            verdict: outcome.verdict(),
            f: test.f.is_finite().then_some(test.f),
            df: Some(DegreesOfFreedom {
                df_numerator: test.df.0 as f64,
                df_denominator: test.df.1 as f64,
            }),
            p_value: Some(test.p),
            test: Some(test.kind),
            permutations: test.permutations,
            deciding_table: test.table.map(|(t, _)| t),
            cells_replaced: test.table.map(|(_, n)| n),
            icc: Some(self.icc()),
            variance_components: Some(self.variance_components()),
            detectable_variation,
            grounds,
            ..described
        }
    }
}

impl Tested<'_> {
    /// The variance components (between binaries, between executions of one binary) of an
    /// execution mean, unit²: on a rounds schedule those of the blocked F test's ANOVA, the
    /// test that decided (the layout's component within rounds against the binary × round
    /// residual), so that a drift between rounds is no execution noise here either; else
    /// the one-way ANOVA's.
    fn variance_components(&self) -> (f64, f64) {
        match self.blocked {
            Some(b) => {
                // On the log scale the variances are relative: back to unit² at the mean.
                let unit = if b.log_scale {
                    self.mean * self.mean
                } else {
                    1.0
                };
                (b.anova.var_treatment * unit, b.anova.ms_residual * unit)
            }
            None => (self.anova.var_between, self.anova.var_within),
        }
    }

    /// The intraclass correlation of [`Self::variance_components`]: the layout's share of an
    /// execution mean's variance, 0 when its component is negative (Kalibera & Jones eq. 2
    /// floors T² at 0 alike), 1 when nothing else varies.
    fn icc(&self) -> f64 {
        let (between, within) = self.variance_components();
        let between = between.max(0.0);
        if between + within > 0.0 {
            between / (between + within)
        } else {
            0.0
        }
    }

    /// The layout variation the test finds with 80 % power, relative to the mean: from the
    /// one-way ANOVA, `σ_a = sqrt(ρ · MSW)`; with several data seeds from the crossed
    /// design, against the noise within a data seed (the data layout's own effect is no
    /// noise to the rank test, whose blocks each hold one data seed).
    fn detectable_variation(&self, thresholds: &Thresholds) -> Option<f64> {
        let power = crate::stats::mde::DEFAULT_POWER;
        if let Some(axis) = self.code_axis {
            return axis.detectable(thresholds.alpha(), power, self.mean);
        }
        if let Some(b) = self.blocked {
            // A power the family of blocked F tests has at least: that of the table the
            // magnitudes come from (its degrees of freedom and residual noise, relative on
            // the log scale) at α over the family's size. A member that rejects at that
            // level makes the family reject (the min-p p-value is at most Bonferroni's), so
            // the figure is never an overstatement of what the verdict's test could find.
            let a = b.anova;
            let rho = crate::stats::anova::detectable_variance_ratio_on(
                a.df.0,
                a.df.1,
                a.blocks,
                thresholds.alpha() / super::screening::BLOCKED_FAMILY_SIZE as f64,
                power,
            )?;
            let sd = (rho * a.ms_residual).sqrt();
            let relative = if b.log_scale {
                sd
            } else {
                sd / self.mean.abs()
            };
            return Some(relative).filter(|v| v.is_finite());
        }
        crate::stats::anova::detectable_variance_ratio(
            self.binaries,
            self.per_binary,
            thresholds.alpha(),
            power,
        )
        .map(|rho| (rho * self.anova.ms_within).sqrt() / self.mean.abs())
        .filter(|v| v.is_finite())
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

/// The outcome of a test with p-value `p`: negligible (rejected, but the whole interval of
/// the binaries' relative standard deviation, `negligible`, within the threshold),
/// detected, cannot tell (nothing below the threshold was detectable: the smallest
/// variation found with 80 % power, `detectable`, exceeds it; or the layout's own
/// variation `estimated` from the test's table is at least that) unless that interval
/// bounds the means' spread within the threshold (negligible, bounded), or not detected.
///
/// Why the bound settles what the test does not: the binaries' means carry the layout's
/// effect plus their executions' noise, so an interval of their spread within the threshold
/// bounds the layout's effect within it too. zlib's `Ir` under cachegrind varied by 0.0005 %
/// between binaries, ties everywhere, and read "cannot tell" (a permutation p of 0.85 beside
/// F = 611,000).
///
/// Why the estimate is weighed: "not detected" says a layout effect of `detectable` would
/// have been found. An estimate at least that large means the table's ANOVA sees the
/// binaries apart (for a parametric F test the estimate reaches the 80 %-power effect only
/// past its critical value) while the randomisation test does not reject: on a blocked
/// store, load bursts that can line up with a binary under the round's permutations. One
/// binary 10 % off in every round of a 10 × 3 store with two bursts was "not detected" in
/// 3 of 1,000 seeded stores so, beside an estimate of about 3 %.
fn outcome(
    p: f64,
    negligible: Option<Interval>,
    detectable: Option<f64>,
    estimated: Option<f64>,
    thresholds: &Thresholds,
) -> SensitivityOutcome {
    let alpha = thresholds.alpha();
    let underpowered = detectable.filter(|d| *d > thresholds.negligible);
    let contradicted = detectable.zip(estimated).filter(|(d, e)| e >= d);
    if let (true, Some(ci)) = (p < alpha, negligible) {
        SensitivityOutcome::Negligible { ci }
    } else if p < alpha {
        SensitivityOutcome::Detected
    } else if let (Some(ci), true) = (negligible, underpowered.is_some() || contradicted.is_some())
    {
        SensitivityOutcome::Bounded { ci }
    } else if let Some(detectable) = underpowered {
        SensitivityOutcome::Underpowered { detectable }
    } else if let Some((detectable, estimated)) = contradicted {
        SensitivityOutcome::LargeButNotRejected {
            estimated,
            detectable,
        }
    } else {
        SensitivityOutcome::NotDetected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Closed forms of the outcome rule at the default thresholds (α = 0.05, 1 % worth
    /// finding): a test that does not reject says "not detected" only when the layout's own
    /// variation estimated from its table stays below what it finds with 80 % power.
    #[test]
    fn a_test_that_does_not_reject_a_variation_it_would_find_cannot_tell() {
        let t = Thresholds::default();
        assert_eq!(
            t.negligible, 0.01,
            "the cases below assume 1 % worth finding"
        );
        assert_eq!(
            outcome(0.3, None, Some(0.008), Some(0.03), &t),
            SensitivityOutcome::LargeButNotRejected {
                estimated: 0.03,
                detectable: 0.008
            }
        );
        // The estimate exactly at the detectable figure is already "as large".
        assert!(matches!(
            outcome(0.3, None, Some(0.008), Some(0.008), &t),
            SensitivityOutcome::LargeButNotRejected { .. }
        ));
        assert_eq!(
            outcome(0.3, None, Some(0.008), Some(0.005), &t),
            SensitivityOutcome::NotDetected
        );
        assert_eq!(
            outcome(0.3, None, Some(0.008), None, &t),
            SensitivityOutcome::NotDetected
        );
        // Underpowered comes first: nothing worth finding was detectable at all.
        assert_eq!(
            outcome(0.3, None, Some(0.02), Some(0.03), &t),
            SensitivityOutcome::Underpowered { detectable: 0.02 }
        );
        // Unsettled, yet the means' spread is bounded within the threshold: negligible.
        let ci = Interval {
            lower: 0.000001,
            upper: 0.00001,
        };
        assert_eq!(
            outcome(0.85, Some(ci), Some(0.000001), Some(0.000005), &t),
            SensitivityOutcome::Bounded { ci }
        );
        assert_eq!(
            outcome(0.3, Some(ci), Some(0.02), None, &t),
            SensitivityOutcome::Bounded { ci }
        );
        // A test that would have found what is worth finding keeps its "not detected".
        assert_eq!(
            outcome(0.3, Some(ci), Some(0.008), Some(0.005), &t),
            SensitivityOutcome::NotDetected
        );
        // A rejection is a detection whatever the estimate.
        assert_eq!(
            outcome(0.01, None, Some(0.008), Some(0.001), &t),
            SensitivityOutcome::Detected
        );
    }

    /// The report's layout sensitivity of `series` at the default thresholds.
    fn sensitivity_of(series: &Series) -> Sensitivity {
        crate::analysis::answers::builder::analyse_series(
            series,
            Default::default(),
            &std::collections::BTreeMap::new(),
            &Thresholds::default(),
            None,
        )
        .sensitivity
    }

    /// A count under cachegrind: Debian's flac 1.4.2 (`flac -8`, o3) data writes, 10 seeds ×
    /// 2 rounds, as its store holds them less 21,695,540; `scale` multiplies each value's
    /// distance from 21,695,546 (1: the store as it is).
    fn flac_data_writes(scale: f64) -> Series {
        const STORE: [[f64; 2]; 10] = [
            [6.0, 6.0],
            [6.0, 6.0],
            [6.0, 6.0],
            [6.0, 6.0],
            [2.0, 2.0],
            [6.0, 6.0],
            [6.0, 6.0],
            [2.0, 2.0],
            [7.0, 2.0],
            [2.0, 2.0],
        ];
        let values: Vec<Vec<f64>> = STORE
            .iter()
            .map(|rounds| {
                rounds
                    .iter()
                    .map(|v| 21_695_546.0 + (v - 6.0) * scale)
                    .collect()
            })
            .collect();
        Series::of_rounds("flac", "Dw", "count", &values)
    }

    /// Layouts apart by a few counts in 21.7 million are a detectable, negligible effect,
    /// not "layout-sensitive because of one layout far off" (what flac's store read); the
    /// same store with the distances 100,000 times larger (1.8 %) is that.
    #[test]
    fn one_layout_apart_by_less_than_the_threshold_is_negligible() {
        let analysed = |scale: f64| sensitivity_of(&flac_data_writes(scale));
        let near = analysed(1.0);
        assert_eq!(near.verdict, Verdict::Negligible, "{near:?}");
        assert_eq!(near.rests_on, None);
        let far = analysed(1e5);
        assert_eq!(far.verdict, Verdict::Detected, "{far:?}");
        let rests = far.rests_on.expect("rests on seed-5");
        assert_eq!(
            (rests.apart.binary.as_str(), rests.steady),
            ("seed-5", true)
        );
        // The others' means take two values, most of them one: their robust spread is 0,
        // seed-5 infinitely far, which JSON cannot hold as a number (null, as the schema says).
        assert_eq!(rests.apart.robust_distance, None);
    }

    /// `n` binaries of a count within 0.1 % of each other (layout) and 0.01 % (executions),
    /// `rounds` rounds, seed-7 `lump` off.
    fn lumpy(n: u64, lump: f64, rounds: usize) -> Series {
        let mut rng = crate::seeded::SeededRng::new(9, "sensitivity:lumpy");
        let values: Vec<Vec<f64>> = (1..=n)
            .map(|i| {
                let off = if i == 7 { 1.0 + lump } else { 1.0 };
                let level = 1e6 * (1.0 + 0.001 * rng.normal()) * off;
                (0..rounds)
                    .map(|_| level * (1.0 + 0.0001 * rng.normal()))
                    .collect()
            })
            .collect();
        Series::of_rounds("p", "Ir", "count", &values)
    }

    /// Real layouts are lumpy: 30 layouts within 0.1 % of each other and one 3 % off have a
    /// spread whose interval ends at 0.78 %, which read "negligible: a single layout would
    /// misstate this metric by less than that". Now layout-sensitive, naming the layout far
    /// off; without it, negligible.
    #[test]
    fn a_layout_far_off_among_close_ones_is_no_negligible_effect() {
        let analysed = |lump: f64| sensitivity_of(&lumpy(30, lump, 3));
        let s = analysed(0.03);
        assert!(
            s.cv_across_binaries_ci.unwrap().upper < 0.01,
            "the spread alone reads negligible: {s:?}"
        );
        assert_eq!(s.verdict, Verdict::Detected, "{s:?}");
        let far: Vec<(&str, f64)> = s
            .far_off
            .iter()
            .map(|f| (f.binary.as_str(), f.deviation))
            .collect();
        assert_eq!(far.len(), 1, "{far:?}");
        assert_eq!(far[0].0, "seed-7");
        assert!((far[0].1 - 0.03).abs() < 0.003, "{far:?}");
        insta::assert_snapshot!(crate::report::words::sensitivity::sentence(&s));
        insta::assert_snapshot!(
            "far_off_glance",
            crate::report::export::glance::sensitivity_cell(&s)
        );
        let close = analysed(0.0);
        assert_eq!(close.verdict, Verdict::Negligible, "{close:?}");
        assert!(close.far_off.is_empty());
    }

    /// One execution per binary (cachegrind's counts, run once): nothing tests the layout,
    /// but the binaries' spread bounds it. 30 layouts within 0.1 % read "negligible" with
    /// that bound (libdeflate 1.14's counts read "cannot tell: … run at least 2 executions
    /// per binary"); one 3 % off stays "cannot tell" and is named; equal values are no
    /// variation at all.
    #[test]
    fn one_execution_per_binary_is_negligible_within_its_spread_unless_lumpy() {
        let close = sensitivity_of(&lumpy(30, 0.0, 1));
        assert_eq!(close.verdict, Verdict::Negligible, "{close:?}");
        let bound = close.cv_across_binaries_ci.unwrap();
        assert!(bound.upper < 0.002, "{bound:?}");
        assert_eq!(
            close.grounds,
            SensitivityGrounds::SingleObservationBounded {
                ci: bound,
                binaries: 30
            }
        );
        let lump = sensitivity_of(&lumpy(30, 0.03, 1));
        assert!(lump.cv_across_binaries_ci.unwrap().upper < 0.01, "{lump:?}");
        assert_eq!(lump.verdict, Verdict::Undetermined, "{lump:?}");
        assert_eq!(lump.grounds, SensitivityGrounds::SingleObservation);
        assert_eq!(
            lump.far_off
                .iter()
                .map(|f| f.binary.as_str())
                .collect::<Vec<_>>(),
            ["seed-7"]
        );
        let equal = vec![vec![5.0]; 4];
        let equal = sensitivity_of(&Series::of_rounds("p", "Dw", "count", &equal));
        assert_eq!(equal.verdict, Verdict::NotDetected, "{equal:?}");
        // Pinned whole: the bound and why it is no test; the lump named.
        insta::assert_snapshot!(
            "single_observation_bounded",
            crate::report::words::sensitivity::sentence(&close)
        );
        insta::assert_snapshot!(
            "single_observation_lump",
            crate::report::words::sensitivity::sentence(&lump)
        );
    }
}
