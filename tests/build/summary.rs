//! Snapshot (insta) of `build`'s summary (issue 50: every command's output pinned): the
//! table, the legend, the mechanism, what was achieved and the baseline against the build's
//! own binary, for the multi-module fixture with 3 seeds, and for `--extend` to 5. Times
//! vary from run to run and are replaced by `[t]`; everything else is fixed by the seeds and
//! the toolchain. A change of any word fails `cargo test` until it is accepted
//! (`INSTA_UPDATE=always cargo test --release --test build summary::`).

use crate::build_support;

use build_support::fixture;

/// The summary with its times (`2.69 s`, `ratio 0.05`) replaced.
pub(crate) fn without_times(text: &str) -> String {
    let seconds = regex::Regex::new(r"\b\d+(\.\d+)? s\b").unwrap();
    let ratio = regex::Regex::new(r"\(ratio \d+(\.\d+)?\)").unwrap();
    let text = seconds.replace_all(text, "[t] s");
    ratio.replace_all(&text, "(ratio [t])").into_owned()
}

fn layoutrand_build(dir: &std::path::Path, args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .current_dir(dir)
        .arg("build")
        .args(args)
        .assert()
        .success();
    without_times(&String::from_utf8(out.get_output().stdout.clone()).unwrap())
}

#[test]
fn the_build_and_extend_summaries() {
    let (_tmp, dir) = fixture("multimodule");
    let built = layoutrand_build(&dir, &["--seeds", "3", "--out", "out", "--", "make"]);
    insta::assert_snapshot!("build_summary", built);
    let extended = layoutrand_build(&dir, &["--extend", "--seeds", "5", "--out", "out"]);
    insta::assert_snapshot!("extend_summary", extended);
}

#[test]
fn times_are_replaced_and_nothing_else() {
    assert_eq!(
        without_times("relinked 3 seeds in 0.12 s; took 2.69 s (ratio 0.05); 98.2 % moved"),
        "relinked 3 seeds in [t] s; took [t] s (ratio [t]); 98.2 % moved"
    );
}
