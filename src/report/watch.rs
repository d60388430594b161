//! The words of `layoutrand watch`: what it compares (said as it starts) and its summary,
//! verdict first, from the numbers and enums of `OUT/watch.json`
//! ([`crate::files::watch`]).

use std::path::Path;

use crate::files::watch::{JudgedComparison, RoundOutcome, WatchFile, WatchInputs, WatchVerdict};
use crate::report::numfmt::{change, counted, percent};
use crate::report::words::effect::directions;

/// `abcdef123456 (main)`: a revision's short hash and the name it was given by.
fn revision(r: &crate::files::watch::Revision) -> String {
    let short: String = r.commit.chars().take(12).collect();
    if r.reference == r.commit || r.commit.starts_with(&r.reference) {
        short
    } else {
        format!("{short} ({})", r.reference)
    }
}

/// What is compared and how, as the watch starts.
pub fn announcement(inputs: &WatchInputs) -> String {
    format!(
        "layoutrand watch: head {} against base {}: {} each (the same seeds for both), {} per \
         binary, by {}; it fails when the whole interval says the head is slower by more than \
         {}{}",
        revision(&inputs.head),
        revision(&inputs.base),
        counted(inputs.seeds, "random layout", "random layouts"),
        counted(inputs.executions, "execution", "executions"),
        inputs.metric,
        percent(inputs.fail_if_slower, 1),
        if inputs.confirmation {
            ", in a first round and again in a confirmation round"
        } else {
            " in one round"
        }
    )
}

/// The verdict in one line, of `record`'s comparisons: a time is "slower", a count (under
/// cachegrind) "higher".
fn verdict_line(verdict: WatchVerdict, record: &WatchFile) -> String {
    let inputs = &record.inputs;
    let threshold = percent(inputs.fail_if_slower, 1);
    let counts = record
        .rounds
        .iter()
        .flat_map(|r| &r.comparisons)
        .all(|c| !c.is_time)
        && record.rounds.iter().any(|r| !r.comparisons.is_empty());
    let worse = if counts {
        "the head's counts are higher than the base's"
    } else {
        "the head is slower than the base"
    };
    match verdict {
        WatchVerdict::Pass => {
            format!("PASS: no benchmark's whole interval says {worse} by more than {threshold}")
        }
        WatchVerdict::Unconfirmed => format!(
            "PASS: the first round said {worse} by more than {threshold}, and the confirmation \
             round did not repeat it"
        ),
        WatchVerdict::Fail if inputs.confirmation => {
            format!("FAIL: {worse} by more than {threshold} in both rounds")
        }
        WatchVerdict::Fail => format!("FAIL: {worse} by more than {threshold}"),
        WatchVerdict::NotJudged => "NOT JUDGED: a round's store is incomplete or holds no \
                                    comparison to gate (the messages above say why); nothing \
                                    was concluded"
            .to_string(),
    }
}

/// One judged comparison: its effect, whether it failed, and the smallest slowdown the design
/// catches 80 % of the time.
fn comparison_line(c: &JudgedComparison) -> String {
    format!(
        "  {}: {} {}: {}; {}",
        if c.failed { "fail" } else { "pass" },
        c.program,
        c.metric,
        effect(c),
        crate::report::gate::power_clause(c.detectable_slowdown)
    )
}

/// The comparison's effect with its interval ("2.2 % higher (95 % CI: 1.7 % to 2.7 %
/// higher)"), the words of the text and of the table.
fn effect(c: &JudgedComparison) -> String {
    let (better, worse) = directions(c.is_time);
    match c.ci {
        Some(ci) => change(c.ratio, ci.lower, ci.upper, c.confidence, better, worse),
        None => format!("ratio {:.4}, with no bounded interval", c.ratio),
    }
}

/// The summary on stdout: the verdict first, then each round's comparisons, then where the
/// reports are.
pub fn summary(record: &WatchFile, out: &Path) -> String {
    let verdict = record.verdict.unwrap_or(WatchVerdict::NotJudged);
    let mut lines = vec![verdict_line(verdict, record)];
    for round in &record.rounds {
        let what = match round.number {
            1 => "round 1".to_string(),
            n => format!("round {n} (confirmation: the same binaries, new executions)"),
        };
        let outcome = match round.outcome {
            RoundOutcome::Pass => "pass",
            RoundOutcome::Fail => "fail",
            RoundOutcome::NotJudged => "not judged",
        };
        lines.push(format!("{what}: {outcome}"));
        lines.extend(round.comparisons.iter().map(comparison_line));
        if let Some([busy, sampled]) = round.busy_executions {
            lines.push(format!(
                "  note: {busy} of {sampled} executions started on a busy host (other runnable \
                 tasks, or CPU time stolen): the times are noisier than a quiet host's, and the \
                 intervals wider (its report says more)"
            ));
        }
    }
    let reports: Vec<String> = record
        .rounds
        .iter()
        .map(|r| {
            out.join(format!("round-{}", r.number))
                .join("report.txt")
                .display()
                .to_string()
        })
        .collect();
    if !reports.is_empty() {
        lines.push(format!("reports: {}", reports.join(", ")));
    }
    lines.join("\n")
}

/// Standard output when the budget ran out before the verdict: nothing was gated.
pub fn stopped_early() -> String {
    "STOPPED: the budget ran out before the verdict (nothing was gated); run the same command \
     again to continue"
        .to_string()
}

/// Said when the same command finds its verdict already reached.
pub fn reached_before(out: &Path) -> String {
    format!(
        "layoutrand watch: the verdict was reached before ({}); nothing was built or run",
        out.join(crate::files::watch::WATCH_FILE).display()
    )
}

/// Said when the working tree has changes no commit holds.
pub fn uncommitted_changes() -> String {
    "layoutrand watch: warning: your working tree has uncommitted changes to tracked files; \
     the watch builds the two commits, so those changes are not measured (commit them to \
     include them)"
        .to_string()
}

/// The forms of `watch`'s standard output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WatchFormat {
    /// The summary in lines, the verdict first.
    #[default]
    Text,
    /// A Markdown table for a pull request's comment or a CI job's summary.
    Markdown,
    /// `OUT/watch.json` as it is (docs/schemas/watch.schema.json).
    Json,
}

/// The watch's standard output in `format`.
pub fn render(record: &WatchFile, out: &Path, format: WatchFormat) -> String {
    match format {
        WatchFormat::Text => summary(record, out),
        WatchFormat::Markdown => markdown(record),
        WatchFormat::Json => serde_json::to_string_pretty(record)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")),
    }
}

/// The verdict as a heading word, the table of every round's comparisons, and what was
/// compared.
fn markdown(record: &WatchFile) -> String {
    let verdict = record.verdict.unwrap_or(WatchVerdict::NotJudged);
    let line = verdict_line(verdict, record);
    let (word, rest) = line.split_once(": ").unwrap_or((&line, ""));
    let mut lines = vec![
        format!("**layoutrand watch: {word}**: {rest}"),
        String::new(),
        "| round | benchmark | head against base | catches at 80 % power | gate |".to_string(),
        "|---|---|---|---|---|".to_string(),
    ];
    for round in &record.rounds {
        let name = match round.number {
            1 => "1".to_string(),
            n => format!("{n} (confirmation)"),
        };
        for c in &round.comparisons {
            let catches = c.detectable_slowdown.map_or_else(
                || "no estimate".to_string(),
                |s| format!("{} or more", percent(s, 2)),
            );
            lines.push(format!(
                "| {name} | {} {} | {} | {catches} | {} |",
                c.program,
                c.metric,
                effect(c),
                if c.failed { "fail" } else { "pass" }
            ));
        }
    }
    let inputs = &record.inputs;
    lines.push(String::new());
    lines.push(format!(
        "Head {} against base {}: {} each (the same seeds), {} per binary, by {}.",
        revision(&inputs.head),
        revision(&inputs.base),
        counted(inputs.seeds, "random layout", "random layouts"),
        counted(inputs.executions, "execution", "executions"),
        inputs.metric,
    ));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::watch::{Revision, WatchRound};

    fn record(is_time: bool) -> WatchFile {
        let revision = Revision {
            reference: "main".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
        };
        WatchFile {
            schema: crate::files::watch::WATCH_SCHEMA,
            inputs: WatchInputs {
                base: revision.clone(),
                head: revision,
                build_command: "make".into(),
                run_command: vec!["{bin}".into()],
                seeds: 30,
                executions: 5,
                metric: "wall".into(),
                fail_if_slower: 0.0,
                confirmation: true,
                pin: None,
                stage_flags: Vec::new(),
            },
            rounds: vec![WatchRound {
                number: 1,
                outcome: RoundOutcome::Fail,
                busy_executions: None,
                comparisons: vec![JudgedComparison {
                    program: "demo".into(),
                    metric: "wall".into(),
                    ratio: 1.02,
                    ci: None,
                    confidence: 0.95,
                    is_time,
                    failed: true,
                    detectable_slowdown: None,
                }],
            }],
            verdict: Some(WatchVerdict::Fail),
        }
    }

    /// A time is "slower", a count "higher"; nothing judged says neither.
    #[test]
    fn the_verdict_says_slower_of_times_and_higher_of_counts() {
        assert_eq!(
            verdict_line(WatchVerdict::Fail, &record(true)),
            "FAIL: the head is slower than the base by more than 0.0 % in both rounds"
        );
        assert_eq!(
            verdict_line(WatchVerdict::Fail, &record(false)),
            "FAIL: the head's counts are higher than the base's by more than 0.0 % in both rounds"
        );
        let mut nothing = record(false);
        nothing.rounds.clear();
        assert!(verdict_line(WatchVerdict::Pass, &nothing).contains("the head is slower"));
    }
}
