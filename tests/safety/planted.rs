//! Planted links of the kinds `tests/safety/trust.rs` and `paths.rs` do not plant yet
//! (issue 34, attack 5's rest): each place the confined writer writes below an experiment
//! directory, with a symbolic link leading outside, is refused by the command that would
//! write there, naming it, and nothing is written outside. Already planted elsewhere:
//! `seed-N` (trust.rs), `explain`, `slurm`, `shards` (trust.rs), `.run` and its `bin`,
//! `stdout`, `stderr` (paths.rs), `results.jsonl` (paths.rs).

use crate::build_support;
use crate::run_support::*;

use std::path::Path;

use layoutrand::files::store::RESULTS_FILE;

/// Asserts that the command whose `output` this is was refused: it failed, and its stderr
/// names `planted` (as the refusal shows it) and says `message`. Returns the stderr.
pub fn refused_by(output: std::process::Output, planted: &Path, message: &str) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "not refused: {stderr}");
    assert!(
        stderr.contains(&planted.display().to_string()),
        "the refusal does not name {}: {stderr}",
        planted.display()
    );
    assert!(stderr.contains(message), "no {message:?} in: {stderr}");
    stderr
}

/// Nothing was created in `outside` (it holds what it held: `before` entries).
fn untouched(outside: &Path, before: usize) {
    let now = std::fs::read_dir(outside).unwrap().count();
    assert_eq!(now, before, "something was written outside");
}

/// `build --extend` writes `.work/`, `.record/merged/` and `manifest.json`: a link planted at
/// any of them is refused before any relink.
#[test]
fn extend_refuses_links_planted_at_its_work_merged_and_manifest_paths() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let out_arg = out.to_str().unwrap();
    let (_tmp, src) = crate::attacks::multimodule_built(&out, "1");
    let outside = tempfile::tempdir().unwrap();
    let extend =
        || build_support::build(&src, &["--extend", "--seeds", "2", "--out", out_arg], &[]);
    for planted in [".work", ".record/merged"] {
        let at = out.join(planted);
        if at.is_dir() {
            std::fs::remove_dir_all(&at).unwrap();
        }
        std::os::unix::fs::symlink(outside.path(), &at).unwrap();
        refused_by(extend(), &at, "is a symbolic link");
        untouched(outside.path(), 0);
        std::fs::remove_file(&at).unwrap();
    }
    // The manifest through a link to a copy outside: neither read nor replaced.
    let manifest = out.join("manifest.json");
    let copy = outside.path().join("manifest.json");
    std::fs::rename(&manifest, &copy).unwrap();
    std::os::unix::fs::symlink(&copy, &manifest).unwrap();
    let before = std::fs::read(&copy).unwrap();
    refused_by(extend(), &manifest, "symbolic link");
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    untouched(outside.path(), 1);
}

/// `experiment` creates `.layoutrand-prepared` once its prepare commands ran: a link planted
/// there (dangling, to a file it would create outside) is refused before they run.
#[test]
fn experiment_refuses_a_link_planted_at_its_prepared_marker() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let marker = out.join(".layoutrand-prepared");
    std::os::unix::fs::symlink(outside.path().join("created"), &marker).unwrap();
    let toml = root.path().join("experiment.toml");
    std::fs::write(
        &toml,
        "name = \"planted\"\n[source]\nprepare = [[\"touch\", \"prepare-ran\"]]\n\
         [build]\ncommand = [\"make\"]\nseeds = 1\n[run]\ncommand = [\"{bin}\"]\n",
    )
    .unwrap();
    let output = layoutrand()
        .current_dir(root.path())
        .arg("experiment")
        .arg(&toml)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    refused_by(output, &marker, "is a symbolic link");
    untouched(outside.path(), 0);
    assert!(!root.path().join("prepare-ran").exists(), "prepare ran");
}

/// `run` signs the store in `results.jsonl.mac`: with a link planted there the store is not
/// the user's own (the MAC is never read through a link), and adopting it with `--trust`
/// refuses to write the new MAC through the link: its target outside stays as it was.
#[test]
fn a_resume_refuses_a_link_planted_at_the_stores_mac() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    run_in(d.path())
        .args(["--executions", "1", "--", "{bin}", "ok"])
        .assert()
        .success();
    let mac = d.path().join(format!("{RESULTS_FILE}.mac"));
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("mac");
    std::fs::rename(&mac, &target).unwrap();
    std::os::unix::fs::symlink(&target, &mac).unwrap();
    let before = std::fs::read(&target).unwrap();
    let output = run_in(d.path()).args(["--resume"]).output().unwrap();
    refused_by(
        output,
        &d.path().join(RESULTS_FILE),
        "does not match its MAC",
    );
    // Adopting the directory signs the store again: never through the link.
    let output = run_in(d.path())
        .args(["--resume", "--trust"])
        .output()
        .unwrap();
    refused_by(output, &mac, "symbolic link");
    assert_eq!(std::fs::read(&target).unwrap(), before);
    untouched(outside.path(), 1);
}
