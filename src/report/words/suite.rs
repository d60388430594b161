//! A suite's cases in words: the suite's line (how many cases are layout-sensitive at the
//! false discovery rate, the geometric mean over cases), its table of cases ranked by the
//! layout's variation, and a variant's suite against the base's.

use crate::analysis::answers::model::{Suite, SuiteComparison};
use crate::analysis::vocabulary::Verdict;
use crate::report::numfmt::{change, estimate, p_value, percent, q_value, quantity};

/// The headers of a suite's table of cases.
pub(crate) const CASE_HEADERS: [&str; 6] = [
    "case",
    "mean over layouts",
    "layout moves it by",
    "layout test",
    "across the suite",
    "layout sensitivity",
];

/// The suite's line: its cases, how many are layout-sensitive within the false discovery
/// rate, and the geometric mean over cases with its interval over the binaries.
pub(crate) fn line(s: &Suite, confidence: f64) -> String {
    let cases = s.cases.len();
    let undetermined = s
        .cases
        .iter()
        .filter(|c| c.verdict == Verdict::Undetermined)
        .count();
    let mut text = format!(
        "{} of its {cases} case(s) {} layout-sensitive, the false discovery rate held at {} \
         (Benjamini–Hochberg over the cases' layout tests; q-values below){}",
        s.sensitive,
        if s.sensitive == 1 { "is" } else { "are" },
        percent(s.false_discovery_rate, 2),
        match undetermined {
            0 => String::new(),
            n => format!("; cannot tell for {n}"),
        }
    );
    match (&s.geometric_mean, &s.unit) {
        (Some(g), unit) => {
            let unit = unit.as_deref().unwrap_or("");
            text.push_str(&format!(
                ". Geometric mean over the cases: {}, over {} randomised binaries (each \
                 binary's geometric mean of its case means is one unit; Kalibera & Jones eq. 4 \
                 on their logs){}; it varies by {} from one binary to another, execution noise \
                 included.",
                estimate(g.estimate, g.lower, g.upper, unit, confidence),
                g.units,
                match &s.unit {
                    Some(_) => "",
                    None => ", the cases' units differing, a number without a unit",
                },
                percent(g.log_sd.exp_m1(), 2)
            ));
        }
        (None, _) => text.push_str(
            ". No geometric mean over the cases: fewer than two randomised binaries ran every \
             case.",
        ),
    }
    text.push_str(&partial_cases(s));
    if s.cases_one_process > 0 {
        text.push_str(&format!(
            " {} whose binaries differ cannot be told from their processes: each binary ran \
             in one process, and two processes of one binary differ too on this metric; run \
             at least 2 executions per binary.",
            crate::units::counted(s.cases_one_process, "case", "cases")
        ));
    } else if s.executions_per_binary == 1 {
        text.push_str(
            " Caution: with one execution per binary, differences between processes are \
             counted as layout effects in every case; run at least 2 executions per binary to \
             separate them.",
        );
    }
    text
}

/// The cases missing from some executions, with the pairs that never ran in one execution
/// (one case renamed, most likely); empty when every case ran in every execution.
fn partial_cases(s: &Suite) -> String {
    const SHOWN: usize = 10;
    let Some(first) = s.partial_cases.first() else {
        return String::new();
    };
    let mut listed: Vec<String> = s
        .partial_cases
        .iter()
        .take(SHOWN)
        .map(|p| format!("{} in {}", p.case, p.executions))
        .collect();
    if s.partial_cases.len() > SHOWN {
        listed.push(format!("{} more", s.partial_cases.len() - SHOWN));
    }
    let mut text = format!(
        " Not every case ran in every execution: of the {} executions of the randomised \
         binaries that ran the suite, {}; each case's answers rest on the executions it ran \
         in.",
        first.of,
        listed.join(", ")
    );
    let renamed: Vec<String> = s
        .partial_cases
        .iter()
        .filter_map(|p| {
            let other = p.never_with_only.as_ref()?;
            (p.case < *other).then(|| format!("{} and {other}", p.case))
        })
        .collect();
    if !renamed.is_empty() {
        text.push_str(&format!(
            " {} never ran in one execution: one case renamed between executions?",
            renamed.join("; ")
        ));
    }
    let apart = s
        .partial_cases
        .iter()
        .filter(|p| p.never_with_cases > 1)
        .count();
    if apart > 0 {
        text.push_str(&format!(
            " {} never ran in one execution with several others: cases renamed between \
             executions?",
            crate::units::counted(apart, "case", "cases")
        ));
    }
    text
}

/// An order of a suite's table: the model's (the most layout-sensitive first), or another
/// the page offers beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CaseOrder {
    /// The most layout-sensitive first.
    Ranked,
    /// By name.
    Name,
    /// The lowest q-value first (untested cases last).
    QValue,
    /// The largest mean first.
    Mean,
}

impl CaseOrder {
    /// The other orders, with the page's line for each.
    pub(crate) const OTHERS: [(CaseOrder, &'static str); 3] = [
        (CaseOrder::Name, "The same cases by name"),
        (
            CaseOrder::QValue,
            "The same cases by q-value, the lowest first",
        ),
        (CaseOrder::Mean, "The same cases by mean, the largest first"),
    ];
}

/// One row per case, in `order`.
pub(crate) fn case_rows_in(s: &Suite, order: CaseOrder) -> Vec<[String; 6]> {
    let mut cases: Vec<&crate::analysis::answers::model::SuiteCase> = s.cases.iter().collect();
    let last = |q: Option<f64>| q.unwrap_or(f64::INFINITY);
    match order {
        CaseOrder::Ranked => {}
        CaseOrder::Name => {
            cases.sort_by(|a, b| crate::analysis::vocabulary::natural_order(&a.case, &b.case))
        }
        CaseOrder::QValue => cases.sort_by(|a, b| last(a.q_value).total_cmp(&last(b.q_value))),
        CaseOrder::Mean => cases.sort_by(|a, b| b.mean.total_cmp(&a.mean)),
    }
    cases
        .into_iter()
        .map(|c| {
            [
                c.case.clone(),
                quantity(c.mean, &c.unit),
                match c.layout_variation {
                    None => "-".to_string(),
                    // The layout's share estimated at zero or below: no size to give it.
                    Some(v) if v <= 0.0 => "none estimated".to_string(),
                    Some(v) => format!("± {}", percent(v, 2)),
                },
                c.p_value.map_or_else(|| "-".to_string(), p_value),
                c.q_value.map_or_else(|| "-".to_string(), q_value),
                super::answers::sensitivity_word(c.verdict).to_string(),
            ]
        })
        .collect()
}

/// The ratio of a variant's suite to the base's as a change with its interval, e.g.
/// "2.1 % faster (95 % CI: 1.0 % to 3.2 % faster)".
pub(crate) fn ratio_words(c: &SuiteComparison, confidence: f64) -> String {
    let (better, worse) = super::effect::directions(c.is_time);
    let r = &c.ratio;
    change(r.estimate, r.lower, r.upper, confidence, better, worse)
}

/// The CI gate's judgement of a suite's comparison, named `PROGRAM suite of N cases
/// (geometric mean): NEW against BASE: change` with `program` as the command labels it.
pub(crate) fn gate_judgement(
    c: &SuiteComparison,
    program: &str,
    confidence: f64,
) -> crate::report::gate::GateJudgement {
    crate::report::gate::GateJudgement {
        label: format!(
            "{program} suite of {} cases (geometric mean): {} against {}: {}",
            c.cases,
            c.new,
            c.base,
            ratio_words(c, confidence)
        ),
        failed: c.slower_beyond_threshold,
        bounded: true,
        detectable_excess: c.detectable_excess,
    }
}

/// A variant's suite against the base's: the ratio of geometric means with its interval and
/// verdict, and how many cases moved each way by their own (Bonferroni-held) comparisons.
pub(crate) fn comparison_line(c: &SuiteComparison, confidence: f64) -> String {
    let (better, worse) = super::effect::directions(c.is_time);
    let r = &c.ratio;
    let verdict = c.verdict.word(better, worse);
    format!(
        "suite {} against {}: {verdict}: the geometric mean over the {} cases is {} (Welch's \
         interval over at least {} randomised binaries a side); by their own comparisons {} case(s) \
         {better} and {} {worse}, each held at the suite's Bonferroni level{}",
        c.new,
        c.base,
        c.cases,
        ratio_words(c, confidence),
        r.units,
        c.cases_lower,
        c.cases_higher,
        match c.slower_beyond_threshold {
            true => format!("; {} beyond --fail-if-slower", worse),
            false => String::new(),
        }
    )
}
