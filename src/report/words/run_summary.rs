//! "Did every program run?" in words: the message `run` prints for a program none of whose
//! executions succeeded ([`NeverRan`], [`crate::analysis::run_summary`]).

use crate::analysis::run_summary::NeverRan;

/// "demo: all 6 execution(s) of its 3 binaries failed, so there is nothing of it to analyse
/// (…)", with the stored output of one of them quoted line by line when there is one.
pub fn never_ran(n: &NeverRan) -> String {
    let label = match &n.variant {
        Some(v) => format!("{} [{v}]", n.program),
        None => n.program.clone(),
    };
    let output = n
        .output
        .as_deref()
        .map(|t| {
            let quoted: Vec<String> = t.lines().map(|l| format!("  | {l}")).collect();
            format!("; the output of one of them:\n{}", quoted.join("\n"))
        })
        .unwrap_or_default();
    format!(
        "{label}: all {} execution(s) of its {} binaries failed, so there is nothing of it to analyse (a wrong {{bin}} or input? see `output_tail` in {}){output}",
        n.failed,
        n.binaries,
        n.store.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_that_never_ran_is_named_with_its_counts_and_output() {
        let mut n = NeverRan {
            program: "demo".into(),
            variant: Some("O3".into()),
            failed: 6,
            binaries: 3,
            output: Some("segfault\nat main".into()),
            store: "out/results.jsonl".into(),
        };
        assert_eq!(
            never_ran(&n),
            "demo [O3]: all 6 execution(s) of its 3 binaries failed, so there is nothing of it \
             to analyse (a wrong {bin} or input? see `output_tail` in out/results.jsonl); the \
             output of one of them:\n  | segfault\n  | at main"
        );
        n.variant = None;
        n.output = None;
        assert!(never_ran(&n).starts_with("demo: all 6 execution(s)"));
        assert!(never_ran(&n).ends_with("in out/results.jsonl)"));
    }
}
