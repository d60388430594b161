//! The sentences and table rows that the text, Markdown and HTML exporters share, so the
//! three say exactly the same thing.

use crate::analysis::answers::experiment::FailureCounts;
use crate::analysis::answers::model::{
    BaselineSummary, Diagnostics, MultipleComparison, Report, SeriesReport, Setup, Verdict,
};
use crate::analysis::effect::EffectVerdict;
use crate::analysis::effect::Interval;
use crate::analysis::pair::Basis;
use crate::analysis::variants::PairComparison;
use crate::report::checks::{basis_sentence, disagreement};
use crate::report::numfmt::{
    level, p_value, percent, percent_bounds, ratio, ratio_bounds, sig, statistic,
};
use crate::report::words::{self, UNKNOWN_WITHOUT_MANIFEST};

/// Column headers of the levels table.
pub(crate) const LEVEL_HEADERS: [&str; 5] = ["level", "repetitions", "S²", "T²", "t = √T²/mean"];

/// One line describing the set-up.
pub(crate) fn setup_line(report: &Report) -> String {
    let s = &report.setup;
    format!(
        "{}; {} execution(s) × {} planned per binary{}, {} warmup iteration(s) discarded; metric `{}`; ASLR {}{}{}.",
        build_part(s).unwrap_or_else(|| format!(
            "seeds built, granularity, linker, build mode and padding {UNKNOWN_WITHOUT_MANIFEST}"
        )),
        s.executions_planned,
        // 0: the program reports as many as it does (a regex or suite metric without
        // --iterations).
        match s.iterations_planned {
            0 => "the iterations the program reports".to_string(),
            n => format!("{n} iteration(s)"),
        },
        if s.data_seeds > 1 {
            let threshold = if s.vary_mmap_threshold {
                ", each also setting malloc's mmap threshold"
            } else {
                ""
            };
            format!(" and data seed ({} data seeds{threshold})", s.data_seeds)
        } else {
            String::new()
        },
        s.warmup_discarded,
        s.metric,
        if s.aslr_disabled { "off" } else { "ON (stack addresses vary between runs)" },
        s.cpu_model
            .as_deref()
            .map(|c| format!("; CPU {c}"))
            .unwrap_or_default(),
        s.quiet_waits
            .as_ref()
            .map(|w| format!("; {}", crate::report::words::host_conditions::quiet_waits(w)))
            .unwrap_or_default()
    )
}

/// The pin's part of the set-up line: which programs' hot functions every seed placed, so
/// that "random layouts" below are read as random but for those.
fn pinned_part(s: &Setup) -> String {
    if s.pinned.is_empty() {
        return String::new();
    }
    let programs: Vec<String> = (s.pinned.iter())
        .map(|p| {
            format!(
                "{}'s {} hot function{} at the pin's offsets modulo {} bytes",
                p.program,
                p.functions,
                if p.functions == 1 { "" } else { "s" },
                crate::report::numfmt::fixed(p.period as f64, 0)
            )
        })
        .collect();
    format!(
        "; pinned (`build --pin`): {} in every seed, so the \"random layouts\" below are random but for those",
        programs.join(", ")
    )
}

/// How the seeds were built (`4 seeds (module granularity, bfd linker, relink mode)` and what
/// they achieved), when the manifest said; `None` for a report from the store alone.
fn build_part(s: &Setup) -> Option<String> {
    let pad = s.pad?;
    let achieved: Vec<String> = (s.achieved_by_program.as_ref()?.iter())
        .map(words::setup::achieved)
        .collect();
    Some(format!(
        "{} seeds ({}, {} linker, {} mode{}{}{})",
        s.seeds_built?,
        s.estimand.as_deref()?,
        s.linker.as_deref()?,
        s.mode.as_deref()?,
        if pad > 0 {
            format!(", seeded padding of up to {pad} bytes before each function")
        } else {
            String::new()
        },
        if achieved.is_empty() {
            String::new()
        } else {
            format!("; achieved: {}", achieved.join(" | "))
        },
        pinned_part(s),
    ))
}

/// How the number of binaries was decided, when the experiment grew it on-line: the rule,
/// the rounds, the outcome and the optional-stopping caveat.
pub(crate) fn stopping_line(report: &Report) -> Option<String> {
    let g = report.setup.stopping.as_ref()?;
    let rounds: Vec<String> = g
        .rounds
        .iter()
        .map(|r| {
            let width = r
                .relative_half_width
                .map_or("not computable".to_string(), |h| percent(h, 2));
            format!("{} binaries → {width}", r.binaries)
        })
        .collect();
    Some(format!(
        "Stopping rule: {} Rounds: {}. Outcome: {}.",
        crate::report::words::stopping::caveat(g),
        rounds.join("; "),
        crate::report::words::stopping::outcome(g)
    ))
}

/// The confidence-level statement every format starts with.
pub(crate) fn confidence_line(report: &Report) -> String {
    let mut line = format!(
        "Every interval is a two-sided {} confidence interval.",
        level(report.confidence)
    );
    if let Some(a) = report.comparisons.iter().find_map(|c| c.adjustment) {
        line.push_str(&format!(
            " With more than two variants, the comparisons against the base are \
             Bonferroni-adjusted: each at {}, so that together they hold at {}.",
            level(a.confidence),
            level(a.family_confidence)
        ));
    }
    line
}

/// Title of a series, e.g. `demo — wall (ms)`: the unit is the one its numbers are printed
/// in (chosen for its mean by [`SeriesReport::scale`]), not necessarily the store's.
pub(crate) fn series_title(s: &SeriesReport) -> String {
    crate::report::title::section_title(
        &s.program,
        s.variant.as_deref(),
        &s.metric,
        &s.unit,
        &s.scale(),
    )
}

/// The heading of the variant comparisons (text and HTML).
pub(crate) const VARIANTS_TITLE: &str = "Variants (is the new variant faster whatever the layout?)";

/// The heading of the variants' answers that open a report (text and Markdown).
pub(crate) const VARIANTS_LEAD_TITLE: &str = "In short, the variants";

/// The variants' answers a report opens with: each comparison's sentence on the metric its
/// program's run measured first (the metric of its program's first series), since a user
/// who built variants came with "is B faster than A?" (issue 36: a variants report gave
/// that answer last, after every metric's analysis). Empty without variants.
pub(crate) fn lead_variant_lines(report: &Report) -> Vec<String> {
    let first_metric = |program: &str| {
        report
            .series
            .iter()
            .find(|s| s.program == program)
            .map(|s| s.metric.as_str())
    };
    let lead: Vec<String> = report
        .comparisons
        .iter()
        .filter(|c| first_metric(&c.program) == Some(c.metric.as_str()))
        .map(|c| {
            format!(
                "{} {}: {}",
                c.program,
                c.metric,
                words::variants::sentence(c)
            )
        })
        .collect();
    let rest = report.comparisons.len() - lead.len();
    let mut lines = lead;
    if rest > 0 && !lines.is_empty() {
        lines.push(format!(
            "(the comparisons of the other {rest} metric(s), and the intervals behind each, close the report)"
        ));
    }
    lines
}

/// A ratio interval as the variant lines print it: `0.9512 to 0.9734`, or `unbounded`
/// (also for an infinite or undefined end, which no reader should have to parse).
pub(crate) fn ratio_interval(ci: Option<Interval>) -> String {
    match ci {
        Some(ci) if ci.lower.is_finite() && ci.upper.is_finite() => {
            let (lower, upper) = ratio_bounds(ci.lower, ci.upper);
            format!("{lower} to {upper}")
        }
        _ => "unbounded".to_string(),
    }
}

/// One comparison in words: `program metric: sentence`, then (indented) its ratio with the
/// eq. 5, paired and bootstrap intervals, then the share of layouts on which the new
/// variant is lower (favouring it, for a time) and the interaction test when computed.
pub(crate) fn comparison_lines(c: &PairComparison, confidence: f64) -> Vec<String> {
    let level = level(pair_confidence(c, confidence));
    let mut lines = vec![format!(
        "{} {}: {}",
        c.program,
        c.metric,
        words::variants::sentence(c)
    )];
    // What decides, with the ratio and interval it rests on; the others as checks of it.
    let basis = c.pair.paired.filter(|_| c.pair.basis == Basis::Paired);
    let (decided_ratio, decided_ci) = match basis {
        Some(p) => (p.ratio, p.ci),
        None => (c.pair.ratio, c.pair.ci),
    };
    if c.pair.effect.verdict != EffectVerdict::Tie {
        lines.push(format!(
            "  {}: {}/{} = {} ({level} CI {})",
            basis_sentence(&c.pair, "seed"),
            c.new,
            c.base,
            ratio(decided_ratio),
            ratio_interval(decided_ci)
        ));
    }
    let mut checks = Vec::new();
    if basis.is_some() {
        checks.push(format!(
            "eq. 5 (Fieller, independent sides) {} ({level} CI {})",
            ratio(c.pair.ratio),
            ratio_interval(c.pair.ci)
        ));
    }
    if let Some(b) = &c.pair.bootstrap {
        checks.push(format!(
            "bootstrap {level} CI {}",
            ratio_interval(Some(b.ci))
        ));
    }
    if !checks.is_empty() {
        let mut line = format!("  checks (they do not decide): {}", checks.join("; "));
        if let Some(sentence) = disagreement(&c.pair) {
            line.push_str(&format!(". {sentence}"));
        }
        lines.push(line);
    }
    let mut more = Vec::new();
    if let Some(s) = &c.pair.share_below {
        // The layouts where new is lower: better for a time, but not for every metric (a
        // rate, MB/s, is better higher), so a time's are said to favour new, the others'
        // only to be lower.
        let lower = match c.pair.effect.is_time {
            true => format!("favour {}", c.new),
            false => format!("lower with {}", c.new),
        };
        more.push(format!(
            "{} of {} layouts {lower} (Wilson {level} CI {} to {})",
            s.below,
            s.compared,
            percent(s.lower, 0),
            percent(s.upper, 0)
        ));
    }
    more.extend(interaction_line(c, confidence));
    if !more.is_empty() {
        lines.push(format!("  {}", more.join("; ")));
    }
    lines
}

/// The confidence of a comparison's intervals: the report's, or the Bonferroni-adjusted one
/// with more than two variants.
pub(crate) fn pair_confidence(c: &PairComparison, confidence: f64) -> f64 {
    c.adjustment.map_or(confidence, |a| a.confidence)
}

/// The variant × layout interaction of a comparison, e.g. `variant × binary interaction
/// F(9, 40) = 0.70, p = 0.7 (ratio scale, blocks as error): spread 0.40 % (95 % CI 0.00 % to
/// 1.1 %), not_detected`; `None` when it was not computable.
pub(crate) fn interaction_line(c: &PairComparison, confidence: f64) -> Option<String> {
    c.pair.interaction.as_ref().map(|i| {
        let (lo, hi) = percent_bounds(i.spread_ci.lower, i.spread_ci.upper, 2);
        format!(
            "variant × binary interaction F({}, {}) = {}, {} (ratio scale, blocks as error): \
             spread {} ({} CI {lo} to {hi}), {}",
            i.df.df_numerator,
            i.df.df_denominator,
            i.f.map_or_else(|| "n/a".to_string(), statistic),
            i.p_value.map_or_else(|| "p n/a".to_string(), p_value),
            percent(i.spread, 2),
            level(pair_confidence(c, confidence)),
            i.verdict.word()
        )
    })
}

/// The head line of Tukey's family: `lua wall: Tukey HSD over 3 pairs (ANOVA F(2, 18) =
/// 4.20, p = 0.03):`.
pub(crate) fn tukey_title(m: &MultipleComparison) -> String {
    format!(
        "{} {}: Tukey HSD over {} pairs (ANOVA F({}, {}) = {}, {}):",
        m.program,
        m.metric,
        m.family.pairs.len(),
        m.family.anova.df.df_numerator,
        m.family.anova.df.df_denominator,
        statistic(m.family.anova.f),
        p_value(m.family.anova.p_value)
    )
}

/// Column headers of Tukey's table (HTML); the text prints each row as one line.
pub(crate) const TUKEY_HEADERS: [&str; 5] = ["pair", "ratio", "simultaneous CI", "p", "verdict"];

/// One row per pair of Tukey's family: `new vs base`, the ratio, its simultaneous interval,
/// the adjusted p-value and the verdict.
pub(crate) fn tukey_rows(m: &MultipleComparison, confidence: f64) -> Vec<[String; 5]> {
    let level = level(confidence);
    m.family
        .pairs
        .iter()
        .map(|pair| {
            [
                format!("{} vs {}", pair.new, pair.base),
                ratio(pair.ratio),
                match (&pair.ratio_ci, pair.ratio_ci_withheld) {
                    (None, Some(why)) => {
                        format!(
                            "no {level} simultaneous CI: {}",
                            words::withheld::reason(why)
                        )
                    }
                    (ci, _) => format!("{level} simultaneous CI {}", ratio_interval(*ci)),
                },
                p_value(pair.p_value),
                pair.direction.word().to_string(),
            ]
        })
        .collect()
}

/// The mean over random layouts with its interval and precision, and the bootstrap
/// interval when one was asked for.
pub fn mean_line(s: &SeriesReport, confidence: f64) -> String {
    let mut line = mean_interval_line(s, confidence);
    if let Some(b) = &s.bootstrap {
        let (low, high) = s.scale().bounds(b.lower, b.upper);
        line.push_str(&format!(
            " Studentized bootstrap over binaries ({} resamples): {low} to {high}.",
            b.resamples,
        ));
    }
    if let Some(note) = words::single::series_bootstrap_note(s) {
        line.push_str(&format!(" Bootstrap: {note}."));
    }
    line
}

fn mean_interval_line(s: &SeriesReport, confidence: f64) -> String {
    let scale = s.scale();
    let binaries = s.levels.last().map_or(0, |l| l.repetitions);
    let over = crate::report::words::crossed_mean::over(s);
    let basis = crate::report::words::crossed_mean::basis(s, binaries);
    let interval_note = (s.interval_grounds.as_ref()).map(words::single::interval_note);
    match (s.ci, s.relative_half_width, &interval_note) {
        // No level estimated (the variances overflow): no count of binaries to show.
        (None, _, Some(note)) if s.levels.is_empty() => format!(
            "Mean over random layouts: {} (KJ eq. 4), {note}.",
            scale.quantity(s.mean),
        ),
        (None, _, Some(note)) => format!(
            "Mean over {over}: {} ({basis}), {note}.",
            scale.quantity(s.mean),
        ),
        (Some(ci), Some(rel), note) => format!(
            "Mean over {over}: {}; relative half-width {} ({basis}){}.",
            scale.estimate(s.mean, ci.lower, ci.upper, confidence),
            percent(rel, 2),
            note.as_ref().map(|n| format!(": {n}")).unwrap_or_default()
        ),
        _ => format!(
            "Mean over random layouts: {} (no interval: fewer than 2 randomised binaries).",
            scale.quantity(s.mean)
        ),
    }
}

/// The baseline's own mean, if it was run.
pub(crate) fn baseline_line(s: &SeriesReport, confidence: f64) -> Option<String> {
    let b = s.baseline.as_ref()?;
    Some(fixed_line("Default layout (baseline)", b, s, confidence))
}

/// A fixed layout's own mean (`what`: how the line names it) with its interval over
/// executions, or why it has none, in the unit of series `s`'s section title.
fn fixed_line(what: &str, b: &BaselineSummary, s: &SeriesReport, confidence: f64) -> String {
    let (under, scale) = (
        crate::report::words::crossed_mean::fixed_under(s),
        s.scale(),
    );
    match b.ci {
        Some(ci) => format!(
            "{what}: {} over {} execution(s) of {} iteration(s){under}.",
            scale.estimate(b.mean, ci.lower, ci.upper, confidence),
            b.executions,
            b.iterations
        ),
        None => format!(
            "{what}: {} from {} execution(s){under} ({}).",
            scale.quantity(b.mean),
            b.executions,
            (b.ci_grounds.as_ref()).map_or_else(
                || "no interval: one execution".into(),
                words::single::interval_note
            )
        ),
    }
}

/// The lines on the binary the user's build made, if it was run: its mean, its shift from
/// the random layouts' mean, its place among them and how the baseline differs from it.
pub(crate) fn as_built_lines(s: &SeriesReport, confidence: f64) -> Vec<String> {
    let Some(a) = s.as_built.as_ref() else {
        return Vec::new();
    };
    let mut lines = vec![
        fixed_line(
            "As built (the binary your build made)",
            &a.binary,
            s,
            confidence,
        ),
        // As the default layout's lines say theirs: the sentence after the colon as it is.
        format!("As built, shift: {}", words::shift::words(&a.shift)),
        format!(
            "As built among random layouts: {}",
            words::default_layout::words(&a.placement)
        ),
    ];
    lines.extend(a.versus_baseline.as_ref().map(|v| {
        format!(
            "Baseline vs as built: {}.",
            words::versus_baseline::sentence(v)
        )
    }));
    lines.extend(
        words::as_built::against_baseline(a).map(|w| format!("As built against the baseline: {w}")),
    );
    lines
}

/// Rows of the levels table, lowest level first: variances in the square of the unit the
/// title names, and a T² that is zero but for rounding (below 1e-9 of the largest S²)
/// printed as 0, not as `-4.55e-13`.
pub(crate) fn level_rows(s: &SeriesReport) -> Vec<[String; 5]> {
    let scale = s.scale();
    let largest = s.levels.iter().map(|l| l.s2.abs()).fold(0.0, f64::max);
    let shown = |v: f64| scale.variance(v, 1e-9 * largest);
    s.levels
        .iter()
        .map(|l| {
            [
                l.name.clone(),
                l.repetitions.to_string(),
                shown(l.s2),
                shown(l.t2),
                l.relative_variation
                    .map_or_else(|| "— (T² ≤ 0)".to_string(), |t| percent(t, 2)),
            ]
        })
        .collect()
}

/// The diagnostics as a list of sentences: warmup, normality, independence, drift,
/// failures, then the notes.
pub(crate) fn diagnostic_lines(s: &SeriesReport, confidence: f64) -> Vec<String> {
    let d = &s.diagnostics;
    let mut lines = vec![
        warmup_line(d),
        normality_line(d, confidence, s.bootstrap.is_some()),
        independence_line(d),
        drift_line(s),
        failures_line(&d.failures),
    ];
    lines.extend(d.concerns.iter().map(words::diagnostics::note));
    lines
}

/// The warmup discarded, and the executions whose changepoint suggests a longer one.
fn warmup_line(d: &Diagnostics) -> String {
    let flagged: Vec<String> = d
        .warmup_suggestions
        .iter()
        .filter(|w| w.exceeds_discard)
        .map(|w| match w.suggested {
            Some(n) => format!("{} execution {} ({n})", w.binary, w.execution),
            None => format!("{} execution {} (no steady state)", w.binary, w.execution),
        })
        .collect();
    if d.warmup_suggestions.is_empty() {
        format!(
            "Warmup: {} iteration(s) discarded per execution; too few iterations per execution for a changepoint suggestion.",
            d.warmup_discarded
        )
    } else if flagged.is_empty() {
        format!(
            "Warmup: {} iteration(s) discarded per execution; changepoint detection suggests no longer warmup in any of {} execution(s).",
            d.warmup_discarded,
            d.warmup_suggestions.len()
        )
    } else {
        format!(
            "Warmup: {} iteration(s) discarded per execution, but changepoints suggest more in {} of {} execution(s): {}.",
            d.warmup_discarded,
            flagged.len(),
            d.warmup_suggestions.len(),
            flagged.join(", ")
        )
    }
}

/// Shapiro–Wilk on the binaries' means, with its advice (`bootstrapped`: the report shows
/// the bootstrap interval), or why it was not run.
fn normality_line(d: &Diagnostics, confidence: f64, bootstrapped: bool) -> String {
    match &d.normality {
        Some(n) => format!(
            "Normality of the {} binaries' means (Shapiro–Wilk): W = {}, {}{}.",
            n.n,
            sig(n.w, 3),
            p_value(n.p_value),
            crate::report::words::diagnostics::normality_advice(n, confidence, bootstrapped)
        ),
        None => "Normality of the binaries' means: not tested (needs at least 3 binaries; not needed from 30 on).".into(),
    }
}

/// Ljung–Box on each execution's iterations: how many fail against chance, or why not run.
fn independence_line(d: &Diagnostics) -> String {
    match &d.independence {
        Some(i) if i.failing_executions.is_empty() => format!(
            "Independence of iterations (Ljung–Box, {} lags): all {} execution(s) pass.",
            i.lags, i.tested
        ),
        Some(i) => format!(
            "Independence of iterations (Ljung–Box, {} lags): {} of {} execution(s) fail ({} expected by chance): {}.",
            i.lags,
            i.failing_executions.len(),
            i.tested,
            sig(i.expected_by_chance, 2),
            (i.failing_executions.iter())
                .map(words::diagnostics::execution)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "Independence of iterations: not tested (needs at least 10 live iterations per execution, not all equal).".into(),
    }
}

/// The failed executions by kind, left out of the statistics.
fn failures_line(f: &FailureCounts) -> String {
    if f.failed() > 0 {
        format!(
            "Failed executions: {} of {} (non-zero exit {}, signal {}, timeout {}, spawn {}, metric {}); they are left out.",
            f.failed(),
            f.failed() + f.ok,
            f.exit,
            f.signal,
            f.timeout,
            f.spawn,
            f.metric
        )
    } else {
        format!("Failed executions: none of {}.", f.ok)
    }
}

/// The drift test in words, with its magnitude (the change from the first half of the run
/// to the second, and the largest departure of one execution for a drift too small to
/// matter), or why it was not run.
pub fn drift_line(s: &SeriesReport) -> String {
    let Some(d) = &s.diagnostics.drift else {
        return format!(
            "Drift between executions: {}",
            (s.diagnostics.drift_untested).map_or(
                "not tested.".to_string(),
                words::diagnostics::drift_untested
            )
        );
    };
    let (lower, higher) = if s.is_time {
        ("faster", "slower")
    } else {
        ("lower", "higher")
    };
    let halves = format!(
        "the second half of the run is {} {} than the first",
        percent(d.halves_change.abs(), 2),
        if d.halves_change < 0.0 { lower } else { higher }
    );
    // A correlation to two decimals: r₁ = 4.3e-14 read as something when it is 0.
    let lag1 = if d.lag1.abs() < 0.005 { 0.0 } else { d.lag1 };
    let test = format!(
        "lag-1 autocorrelation of the {} execution means in run order, each less its binary's mean: r₁ = {lag1:.2}, permutation test {}",
        d.executions,
        p_value(d.p_value)
    );
    let largest = format!(
        "no execution lies more than {} from its binary's mean",
        percent(d.largest_departure, 2)
    );
    match d.verdict {
        Verdict::Detected => format!(
            "Drift between executions ({test}): executions drift — {halves}; the layouts' comparison then carries that drift: interleave more, or rerun on a steadier host."
        ),
        Verdict::Negligible => format!(
            "Drift between executions ({test}): executions drift detectably, but little — {halves}, and {largest}, within the {} worth finding (--negligible): too little to move an answer at that size.",
            percent(d.thresholds.negligible, 2)
        ),
        Verdict::NotDetected | Verdict::Undetermined => {
            format!("Drift between executions ({test}): no evidence of drift ({halves}).")
        }
    }
}
