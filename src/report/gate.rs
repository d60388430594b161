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

impl GateJudgement {
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
