//! What the CI gate (`--fail-if-slower`) says it judged: each comparison named with its
//! effect in words, and whether it failed; rendered here from the engine's pairs, so that
//! the command line only prints the lines and sets the exit status.

/// What the CI gate (`--fail-if-slower`) found to judge: each comparison it judged, or why
/// it judged none (an incomplete store: issue 55; the gate then exits 2).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Gate {
    /// The comparisons judged.
    pub judged: Vec<GateJudgement>,
    /// Why nothing was judged, in words, when the data may not be gated.
    pub refused: Option<String>,
}

/// One pair as the CI gate (`--fail-if-slower`) judged it: what was compared, with its
/// effect in words, and whether it failed.
#[derive(Debug, Clone, PartialEq)]
pub struct GateJudgement {
    /// `program [variant] metric: effect`, or as the command names its pairs.
    pub label: String,
    /// The whole interval says slower than the gate allows.
    pub failed: bool,
    /// The pair has a bounded interval: without one the gate passes because it cannot tell.
    pub bounded: bool,
    /// How far beyond the threshold a true slowdown must lie for this design to catch it 80 %
    /// of the time (a share; [`crate::analysis::pair::PairAnalysis::detectable_excess`]).
    pub detectable_excess: Option<f64>,
}

/// How a gate ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateOutcome {
    /// The data may not be gated (an incomplete store): exit 2.
    Refused,
    /// Nothing failed (including nothing judged, which the lines say).
    Pass,
    /// Some comparison's whole interval said slower than allowed.
    Fail,
}

/// Why `--fail-if-slower` judged nothing: the gate compares variants (`build --variant`) in
/// `report`, on the metric asked of `run` or those named by `--metric`; one wording for the
/// commands that gate.
pub const GATE_JUDGED_NOTHING: &str = "there is no comparison on a gated metric to judge: report compares variants (an experiment built with `build --variant`, each against the first built), and the gate judges the metric asked of `run` or those named by --metric; to compare two experiments use `layoutrand compare BASE_DIR NEW_DIR --fail-if-slower PCT`";

impl Gate {
    /// How the gate ended.
    pub fn outcome(&self) -> GateOutcome {
        if self.refused.is_some() {
            GateOutcome::Refused
        } else if self.judged.iter().any(|j| j.failed) {
            GateOutcome::Fail
        } else {
            GateOutcome::Pass
        }
    }

    /// What the gate at `threshold` (a share) says, one line each, every line beginning
    /// with `prefix` (`layoutrand report`): why it judged nothing, or each comparison
    /// (`--fail-if-slower 1 %: pass: …` with the design's power), then for a failure the
    /// summary `FAIL: …` and one indented line per failed comparison.
    pub fn lines(&self, prefix: &str, threshold: f64) -> Vec<String> {
        let shown = crate::report::numfmt::percent(threshold, 1);
        if let Some(why) = &self.refused {
            return vec![format!("{prefix}: --fail-if-slower {shown}: {why}")];
        }
        if self.judged.is_empty() {
            return vec![format!(
                "{prefix}: --fail-if-slower {shown} judged nothing: {GATE_JUDGED_NOTHING}"
            )];
        }
        let mut lines: Vec<String> = self
            .judged
            .iter()
            .map(|j| {
                let state = match (j.failed, j.bounded) {
                    (true, _) => "fail",
                    (false, true) => "pass",
                    (false, false) => "pass (cannot tell: no bounded interval to judge)",
                };
                format!(
                    "{prefix}: --fail-if-slower {shown}: {state}: {}{}",
                    j.label,
                    j.power(threshold)
                )
            })
            .collect();
        let failed: Vec<&GateJudgement> = self.judged.iter().filter(|j| j.failed).collect();
        if !failed.is_empty() {
            lines.push(format!(
                "{prefix}: FAIL: {} comparison(s) say a new version is slower than its base by \
                 more than --fail-if-slower {shown} (the whole interval):",
                failed.len()
            ));
            lines.extend(failed.iter().map(|j| format!("  {}", j.label)));
        }
        lines
    }
}

/// How large a slowdown (a share) a design catches 80 % of the time, or why it has no
/// estimate: the one wording of `report`, `compare` and `watch`.
pub(crate) fn power_clause(detectable_slowdown: Option<f64>) -> String {
    match detectable_slowdown {
        Some(share) => format!(
            "this design catches a slowdown of {} or more 80 % of the time",
            crate::report::numfmt::percent(share, 2)
        ),
        None => "no power estimate (it needs the sides paired by seed, at least three pairs)"
            .to_string(),
    }
}

impl GateJudgement {
    /// The clause that ends the judgement's line: how large a slowdown this design catches
    /// 80 % of the time at the gate's `threshold` (a share), or why it has no estimate.
    pub fn power(&self, threshold: f64) -> String {
        format!(
            "; {}",
            power_clause(self.detectable_excess.map(|excess| threshold + excess))
        )
    }

    /// The judgement of `pair`, named `label`, its intervals at `confidence`.
    pub fn of(
        pair: &crate::analysis::pair::PairAnalysis,
        label: String,
        confidence: f64,
    ) -> GateJudgement {
        GateJudgement {
            label,
            failed: pair.slower_beyond_threshold,
            bounded: pair.effect.ci.is_some(),
            detectable_excess: pair.detectable_excess(confidence),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The power clause: the threshold plus the design's excess, or why there is none.
    #[test]
    fn the_power_clause_adds_the_excess_or_says_why_not() {
        let judged = |detectable_excess| GateJudgement {
            label: "demo wall".into(),
            failed: false,
            bounded: true,
            detectable_excess,
        };
        assert_eq!(
            judged(Some(0.012)).power(0.005),
            "; this design catches a slowdown of 1.7 % or more 80 % of the time"
        );
        assert_eq!(
            judged(None).power(0.005),
            "; no power estimate (it needs the sides paired by seed, at least three pairs)"
        );
    }
}
