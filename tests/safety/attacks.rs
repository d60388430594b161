//! Attacks 10–16 of issue 34 and their neighbours: what a received directory's files may
//! say, refused at the reader or made harmless before it reaches a terminal, a store or a
//! relink.

use crate::run_support;
use crate::store::{lines, measured};

use std::path::Path;

use layoutrand::files::store::RESULTS_FILE;
use predicates::prelude::*;
use predicates::str::contains;
use run_support::*;

/// The store of `dir` with its header (first line) changed by `edit`, written back.
fn edit_header(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut text = lines(&std::fs::read(dir.join(RESULTS_FILE)).unwrap());
    let mut header: serde_json::Value = serde_json::from_str(&text[0]).unwrap();
    edit(&mut header);
    text[0] = header.to_string();
    std::fs::write(dir.join(RESULTS_FILE), text.join("\n") + "\n").unwrap();
}

fn report(dir: &Path, format: &str) -> assert_cmd::assert::Assert {
    layoutrand()
        .arg("report")
        .arg(dir)
        .args(["--format", format])
        .assert()
}

/// Attack 10: an escape sequence in the header's CPU model (here one that sets the window
/// title, then clears the screen) reaches no terminal raw: every text format shows it
/// escaped, visibly. A program name with a newline or an escape is refused at the reader
/// (store header, manifest), so a table or CSV row stays one line.
#[test]
fn strings_from_files_reach_the_terminal_escaped_and_control_names_are_refused() {
    let d = tempfile::tempdir().unwrap();
    measured(d.path());
    let evil = "Evil CPU\u{1b}]0;owned\u{7}\u{1b}[2J\rfake";
    edit_header(d.path(), |h| h["host"]["cpu_model"] = evil.into());
    for format in ["text", "markdown", "csv", "html", "summary"] {
        let out = report(d.path(), format).get_output().stdout.clone();
        let out = String::from_utf8(out).unwrap();
        assert!(
            !out.contains('\u{1b}') && !out.contains('\r') && !out.contains('\u{7}'),
            "{format}: a control character reached the output"
        );
        if format == "text" {
            assert!(
                out.contains("Evil CPU\\x1b]0;owned\\x07\\x1b[2J\\rfake"),
                "{out}"
            );
        }
    }
    // JSON escapes them its own way and still parses.
    let json = report(d.path(), "json")
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(!json.contains(&0x1b));
    serde_json::from_slice::<serde_json::Value>(&json).unwrap();

    // A program name with a newline in the header: every reader refuses the store.
    edit_header(d.path(), |h| {
        h["programs"] = serde_json::json!(["faulty\nfake,row"])
    });
    report(d.path(), "text")
        .failure()
        .stderr(contains("control character or a newline"));
    layoutrand()
        .arg("export")
        .arg(d.path())
        .assert()
        .failure()
        .stderr(contains("control character or a newline"));

    // The same name in a manifest is refused before anything runs.
    let m = tempfile::tempdir().unwrap();
    same_binary_experiment(m.path(), "faulty", "faulty.c", 1);
    let path = m.path().join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"faulty\"", "\"fau\\u001b[31mlty\"")).unwrap();
    run_in(m.path())
        .args(["--executions", "1", "--", "{bin}", "ok"])
        .assert()
        .failure()
        .stderr(contains("control character or a newline"))
        .stderr(contains('\u{1b}').not());
    assert!(!m.path().join(RESULTS_FILE).exists());
}

/// Attack 12: a program listed twice in a store header, or a variant twice in a manifest,
/// is refused at the reader (a run would write each execution twice into its own store).
#[test]
fn duplicate_names_in_a_header_or_a_manifest_are_refused_at_the_reader() {
    let d = tempfile::tempdir().unwrap();
    measured(d.path());
    edit_header(d.path(), |h| {
        h["programs"] = serde_json::json!(["faulty", "faulty"]);
    });
    for command in ["report", "export"] {
        layoutrand()
            .arg(command)
            .arg(d.path())
            .assert()
            .failure()
            .stderr(contains("\"faulty\" is listed twice"));
    }
    run_in(d.path())
        .args(["--resume", "--trust"])
        .assert()
        .failure()
        .stderr(contains("\"faulty\" is listed twice"));

    let m = tempfile::tempdir().unwrap();
    same_binary_experiment(m.path(), "faulty", "faulty.c", 1);
    let path = m.path().join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut variant = manifest.clone();
    variant["variants"] = serde_json::json!([]);
    manifest["variants"] = serde_json::json!([
        {"name": "v", "build": variant.clone()},
        {"name": "v", "build": variant},
    ]);
    std::fs::write(&path, manifest.to_string()).unwrap();
    run_in(m.path())
        .args(["--executions", "1", "--", "{bin}", "ok"])
        .assert()
        .failure()
        .stderr(contains("variant \"v\" is listed twice"));
}

/// Attack 13: `repair` leaves a store of a newer schema as it is (refused, header kept); and
/// of an execution one of whose measurement lines is damaged, it keeps nothing, so every
/// metric of the repaired store has the same count and `run --resume` runs it again.
#[test]
fn repair_refuses_a_newer_schema_and_drops_a_damaged_execution_whole() {
    let d = tempfile::tempdir().unwrap();
    let original = measured(d.path());
    let executions = layoutrand::files::store::read_results(d.path())
        .unwrap()
        .executions
        .len();

    edit_header(d.path(), |h| h["schema"] = 99.into());
    let newer = std::fs::read(d.path().join(RESULTS_FILE)).unwrap();
    layoutrand()
        .arg("repair")
        .arg(d.path())
        .assert()
        .failure()
        .stderr(contains("schema 99"));
    assert_eq!(std::fs::read(d.path().join(RESULTS_FILE)).unwrap(), newer);
    std::fs::write(d.path().join(RESULTS_FILE), &original).unwrap();

    // The second measurement line of the second execution's batch, damaged.
    let mut text = lines(&original);
    let second_exec = text
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("\"record\":\"execution\""))
        .nth(1)
        .unwrap()
        .0;
    let batch_start = (0..second_exec)
        .rev()
        .take_while(|&i| text[i].contains("\"record\":\"measurement\""))
        .last()
        .unwrap();
    assert!(second_exec - batch_start >= 2, "a batch of several metrics");
    text[batch_start + 1] = "{\"record\":\"measurement\",\"prog".to_string();
    std::fs::write(d.path().join(RESULTS_FILE), text.join("\n") + "\n").unwrap();
    layoutrand()
        .arg("repair")
        .arg(d.path())
        .assert()
        .success()
        .stdout(contains("left out whole"));
    let counts = |dir: &Path| {
        let r = layoutrand::files::store::read_results(dir).unwrap();
        let mut per_metric = std::collections::BTreeMap::<String, usize>::new();
        for m in &r.measurements {
            *per_metric.entry(m.metric.clone()).or_default() += 1;
        }
        (r.executions.len(), per_metric)
    };
    let (kept, per_metric) = counts(d.path());
    assert_eq!(kept, executions - 1, "the damaged execution goes whole");
    let first = *per_metric.values().next().unwrap();
    assert!(per_metric.values().all(|&n| n == first), "{per_metric:?}");
    run_in(d.path()).args(["--resume"]).assert().success();
    let (after, per_metric) = counts(d.path());
    assert_eq!(after, executions, "the resume ran it again");
    assert!(per_metric.values().all(|&n| n == after), "{per_metric:?}");
}

/// Attack 11: one line of 4 MB under a `regex:` metric (whose capture would be 4 MB of
/// digits) is read in bounded pieces and refused by its length; neither the failure record
/// in the store nor the message on stderr echoes it.
#[test]
fn a_huge_output_line_under_a_regex_metric_is_neither_stored_nor_echoed() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let out = run_in(d.path())
        .args(["--executions", "1", "--metric", "regex:(7+)", "--"])
        .args([
            "sh",
            "-c",
            "{bin} ok >/dev/null; head -c 4000000 /dev/zero | tr '\\0' 7; echo",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("longer than 1024 KiB"),
        "{}",
        &stderr[..stderr.len().min(2000)]
    );
    assert!(
        out.stderr.len() < 64 * 1024,
        "{} bytes on stderr",
        out.stderr.len()
    );
    let store = std::fs::metadata(d.path().join(RESULTS_FILE))
        .unwrap()
        .len();
    assert!(store < 64 * 1024, "a store of {store} bytes");
}

/// An attack of this round's own: a FIFO in place of the Slurm plan stalled `status` and
/// `run --slurm --resume` (the plan was the one file of a directory read without the
/// regular-file check); it is refused at once.
#[test]
fn a_fifo_as_the_slurm_plan_stalls_no_reader() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("slurm")).unwrap();
    let plan = d.path().join("slurm/plan.json");
    let c = std::ffi::CString::new(plan.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    layoutrand()
        .arg("status")
        .arg(d.path())
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .failure()
        .stderr(contains("not a regular file"));
}
