//! `layoutrand explain` on an experiment with variants (`build --variant`): each variant's
//! binaries are screened (and relinked by `--confirm`) on their own, as a build of its own;
//! this module sets the answers side by side: for every function that is a finding in
//! some variant, what each variant's screening says of it. A variant's seed `s` is a
//! relink of that variant's own build, so the two binaries of one seed do not share a
//! placement: the screening of one variant cannot be read into another's binaries.

use serde::{Deserialize, Serialize};

use super::explain::Explanation;
use crate::layout::features::Feature;

/// Version of the JSON written by `explain --format json` for an experiment with variants.
pub(crate) const VARIANTS_SCHEMA: u32 = 1;

/// `explain`'s answer for an experiment with variants.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VariantExplanations {
    /// [`VARIANTS_SCHEMA`].
    pub(crate) schema: u32,
    /// The program explained.
    pub(crate) program: String,
    /// The metric screened.
    pub(crate) metric: String,
    /// Each variant's explanation, in the manifest's order (each with its `variant`).
    pub(crate) variants: Vec<Explanation>,
    /// Every function that is a finding's member in at least one variant, with what each
    /// variant says of it: those that are findings in several variants first, then by the
    /// first variant naming them and their rank there.
    pub across: Vec<AcrossVariants>,
}

/// One function across the variants' screenings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AcrossVariants {
    /// The function's symbol name.
    pub(crate) function: String,
    /// What each variant's screening says of it, in the variants' order.
    pub(crate) variants: Vec<InVariant>,
}

impl AcrossVariants {
    /// The variants in which the function is a finding's member.
    pub(crate) fn found_in(&self) -> impl Iterator<Item = &InVariant> {
        self.variants
            .iter()
            .filter(|v| v.status == VariantStatus::Finding)
    }
}

/// What one variant's screening says of a function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct InVariant {
    /// The variant's name.
    pub(crate) variant: String,
    /// Whether it is a finding, was screened without being one, or was not screened.
    pub(crate) status: VariantStatus,
    /// The finding it belongs to (1 for the strongest), when it is one.
    pub(crate) finding: Option<usize>,
    /// Its culprit features in that variant (empty unless a finding).
    pub(crate) features: Vec<Feature>,
    /// The confirmation's answer for it in that variant: `true` confirmed, `false` moved
    /// alone without the screening's change; `None` when no confirmation moved it.
    pub(crate) confirmed: Option<bool>,
}

/// How a variant's screening saw a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum VariantStatus {
    /// A member of one of the variant's findings (a culprit pair).
    Finding,
    /// Hot in the variant and screened, not a culprit.
    Screened,
    /// Not screened in the variant: not among its hot functions, or not a unique symbol
    /// in every one of its binaries.
    NotScreened,
}

impl VariantExplanations {
    /// The variants' explanations (of one program and metric) set side by side.
    pub fn of(explanations: Vec<Explanation>) -> VariantExplanations {
        let first = explanations.first();
        VariantExplanations {
            schema: VARIANTS_SCHEMA,
            program: first.map(|e| e.program.clone()).unwrap_or_default(),
            metric: first.map(|e| e.metric.clone()).unwrap_or_default(),
            across: across(&explanations),
            variants: explanations,
        }
    }
}

/// The explanations `explain` last stored for the variants `names` of the experiment in
/// `dir` (each in `NAME/explain/`), side by side; `None` when no variant has one.
pub(crate) fn stored(
    dir: &std::path::Path,
    names: &[&str],
) -> anyhow::Result<Option<VariantExplanations>> {
    let mut found = Vec::new();
    for name in names {
        let in_variant = dir.join(name).join(super::explain::EXPLAIN_DIR);
        if let Some(e) = super::explain::stored_in(&in_variant)? {
            found.push(e);
        }
    }
    Ok((!found.is_empty()).then(|| VariantExplanations::of(found)))
}

/// Every function that is a finding's member in some variant, with each variant's view
/// of it (see [`VariantExplanations::across`] for the order).
pub(crate) fn across(explanations: &[Explanation]) -> Vec<AcrossVariants> {
    let mut named: Vec<(usize, usize, &str)> = Vec::new();
    for (v, e) in explanations.iter().enumerate() {
        for (rank, f) in e.screening.findings.iter().enumerate() {
            for name in &f.functions {
                if !named.iter().any(|(_, _, n)| n == name) {
                    named.push((v, rank, name));
                }
            }
        }
    }
    named.sort_by_key(|&(v, rank, _)| (v, rank));
    let mut rows: Vec<AcrossVariants> = named
        .into_iter()
        .map(|(_, _, name)| AcrossVariants {
            function: name.to_string(),
            variants: explanations.iter().map(|e| in_variant(e, name)).collect(),
        })
        .collect();
    // Stable: within each group the first variant's ranks keep their order.
    rows.sort_by_key(|r| std::cmp::Reverse(r.found_in().count().min(2)));
    rows
}

/// What explanation `e` (one variant's) says of `function`.
fn in_variant(e: &Explanation, function: &str) -> InVariant {
    let s = &e.screening;
    let variant = e.variant.clone().unwrap_or_default();
    let found = s
        .findings
        .iter()
        .position(|f| f.functions.iter().any(|n| n == function));
    let Some(rank) = found else {
        let hot = e.hot.iter().any(|h| h.name == function);
        let screened = hot && !s.unmatched.iter().any(|u| u == function);
        return InVariant {
            variant,
            status: match screened {
                true => VariantStatus::Screened,
                false => VariantStatus::NotScreened,
            },
            finding: None,
            features: Vec::new(),
            confirmed: None,
        };
    };
    let members = s.findings[rank]
        .members
        .iter()
        .filter_map(|&i| s.culprits.get(i))
        .filter(|c| c.function == function);
    let mut features = Vec::new();
    let mut confirmed = None;
    for c in members {
        features.push(c.feature);
        if let Some(k) = &c.confirmation {
            confirmed = Some(confirmed.unwrap_or(false) || k.confirmed);
        }
    }
    InVariant {
        variant,
        status: VariantStatus::Finding,
        finding: Some(rank + 1),
        features,
        confirmed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::explain::{Confirmation, Finding};
    use crate::analysis::vocabulary::Verdict;

    /// The stored explanation of the report's fixture as variant `name`, its culprits those
    /// of `spin` copied to each of `functions`, in one finding holding them all.
    fn variant(name: &str, functions: &[&str]) -> Explanation {
        let stored = include_str!("../../tests/report/fixtures/explained/explain/explanation.json");
        let mut e: Explanation = serde_json::from_str(stored).unwrap();
        e.variant = Some(name.to_string());
        let s = &mut e.screening;
        let model = s.culprits.clone();
        s.culprits = functions
            .iter()
            .flat_map(|f| {
                model.iter().map(|c| crate::analysis::explain::Suspect {
                    function: f.to_string(),
                    ..c.clone()
                })
            })
            .collect();
        s.findings = if s.culprits.is_empty() {
            Vec::new()
        } else {
            vec![Finding {
                members: (0..s.culprits.len()).collect(),
                r_with_leader: vec![1.0; s.culprits.len()],
                functions: functions.iter().map(|f| f.to_string()).collect(),
            }]
        };
        e
    }

    /// A function found in both variants comes first, with both findings; one found in one
    /// variant only says whether the other screened it: `screened` when hot there without
    /// a culprit, `not_screened` when not hot there.
    #[test]
    fn a_function_found_in_both_variants_leads_and_the_others_say_how_they_were_seen() {
        let a = variant("a", &["spin", "fold"]);
        let mut b = variant("b", &["fold"]);
        b.hot.retain(|h| h.name != "spin");
        let rows = across(&[a.clone(), b]);
        let names: Vec<&str> = rows.iter().map(|r| r.function.as_str()).collect();
        assert_eq!(names, ["fold", "spin"]);
        assert_eq!(rows[0].found_in().count(), 2);
        assert_eq!(rows[0].variants[1].finding, Some(1));
        assert_eq!(
            rows[0].variants[1].features,
            [Feature::UpperHalfLine, Feature::OffsetModLine]
        );
        assert_eq!(rows[1].variants[0].status, VariantStatus::Finding);
        assert_eq!(rows[1].variants[1].status, VariantStatus::NotScreened);
        assert_eq!(rows[1].variants[1].finding, None);
        // Hot in b but no culprit there: screened.
        let rows = across(&[a, variant("b", &[])]);
        let names: Vec<&str> = rows.iter().map(|r| r.function.as_str()).collect();
        assert_eq!(names, ["spin", "fold"]);
        assert!(rows
            .iter()
            .all(|r| r.variants[1].status == VariantStatus::Screened));
        assert!(rows.iter().all(|r| r.variants[1].confirmed.is_none()));
    }

    /// A confirmation of the function in a variant is carried over: confirmed when one of
    /// its culprits was, refuted (false) when moved alone without the change.
    #[test]
    fn the_confirmation_of_each_variant_is_carried_over() {
        let mut a = variant("a", &["spin", "fold"]);
        let answer = |function: &str, confirmed: bool| Confirmation {
            function: function.to_string(),
            feature: Feature::UpperHalfLine,
            relinks: 4,
            bytes: vec![32; 4],
            code_after_moved: 4096,
            moved_with: Vec::new(),
            ratio: if confirmed { 1.5 } else { 1.0 },
            ci: None,
            confidence: 0.95,
            verdict: if confirmed {
                Verdict::Detected
            } else {
                Verdict::NotDetected
            },
            confirmed,
            sign_test: None,
            dir: "a/explain/confirm".to_string(),
            variant: "moved-1".to_string(),
            pairs: Vec::new(),
            fix_proof: None,
        };
        a.screening.culprits[0].confirmation = Some(answer("spin", true));
        a.screening.culprits[2].confirmation = Some(answer("fold", false));
        let rows = across(&[a]);
        assert_eq!(rows[0].function, "spin");
        assert_eq!(rows[0].variants[0].confirmed, Some(true));
        assert_eq!(rows[1].variants[0].confirmed, Some(false));
    }
}
