//! Store edges: every reader agrees on what a valid store is, a damaged line gets a precise
//! message and `layoutrand repair` keeps the valid records without losing the original, and
//! empty or missing stores say what is wrong.

use crate::run_support;

use std::path::Path;

use crate::{in_dir, stderr_in, stdout_in};
use layoutrand::files::store::{read_results, RESULTS_FILE};
use run_support::*;

/// An experiment of the `faulty` fixture, baseline + 2 seeds × 2 executions, measured in
/// the order of a fixed schedule seed (so that a message naming an execution by its place
/// in the store names the same one on every run).
pub(crate) fn measured(dir: &Path) -> Vec<u8> {
    same_binary_experiment(dir, "faulty", "faulty.c", 2);
    run_in(dir)
        .args([
            "--executions",
            "2",
            "--schedule-seed",
            "1",
            "--",
            "{bin}",
            "ok",
        ])
        .assert()
        .success();
    std::fs::read(dir.join(RESULTS_FILE)).unwrap()
}

pub(crate) fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn export(dir: &Path) -> assert_cmd::assert::Assert {
    layoutrand().arg("export").arg(dir).assert()
}

/// `text` with `dir` written `[dir]` and the place `at` (`results.jsonl:N:`) written
/// `results.jsonl:[line]:`: a snapshot of it fails if another line is named.
fn at_line(text: &str, dir: &Path, at: &str) -> String {
    in_dir(text, dir).replace(at, &format!("{RESULTS_FILE}:[line]:"))
}

/// `export` and `report` of `dir` fail as input errors; their messages, with the place `at`
/// written as by [`at_line`], for the caller's snapshots.
fn export_and_report_refuse(dir: &Path, at: &str) -> [String; 2] {
    let export = export(dir).code(2);
    let report = layoutrand().arg("report").arg(dir).assert().code(2);
    [export, report].map(|out| at_line(&stderr_text(out.get_output()), dir, at))
}

fn stderr_text(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_duplicated_execution_is_refused_by_every_reader_with_one_message_and_repaired() {
    let d = tempfile::tempdir().unwrap();
    let original = measured(d.path());
    let mut text = lines(&original);
    // The last execution's measurements and record appended again, as a careless `cat`
    // of two copies would.
    let last_exec = text
        .iter()
        .rposition(|l| l.contains("\"record\":\"execution\""))
        .unwrap();
    let first_of_batch = (0..last_exec)
        .rev()
        .take_while(|&i| text[i].contains("\"record\":\"measurement\""))
        .last()
        .unwrap_or(last_exec);
    let copy: Vec<String> = text[first_of_batch..=last_exec].to_vec();
    text.extend(copy);
    let doubled = text.join("\n") + "\n";
    std::fs::write(d.path().join(RESULTS_FILE), &doubled).unwrap();

    let out = export(d.path()).code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    let out = layoutrand().arg("report").arg(d.path()).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    let out = run_in(d.path()).args(["--resume"]).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));

    let out = layoutrand().arg("repair").arg(d.path()).assert().success();
    insta::assert_snapshot!(stdout_in(out.get_output(), d.path()));
    assert_eq!(
        std::fs::read(d.path().join(RESULTS_FILE)).unwrap(),
        original,
        "the repair keeps exactly the first copy"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("results.jsonl.damaged-1")).unwrap(),
        doubled,
        "the damaged original is kept"
    );
    export(d.path()).success();
}

/// Issue 54, attack 7: a header with a field out of range (a negative count of
/// executions) does not parse; repair refuses rather than drop it (the repaired store would
/// have no header, and lose every measurement with it), names the line, changes nothing.
#[test]
fn repair_refuses_to_drop_the_header() {
    let d = tempfile::tempdir().unwrap();
    measured(d.path());
    let store = d.path().join(RESULTS_FILE);
    let mut text = lines(&std::fs::read(&store).unwrap());
    let mut header: serde_json::Value = serde_json::from_str(&text[0]).unwrap();
    header["executions"] = serde_json::json!(-3);
    text[0] = header.to_string();
    let damaged = text.join("\n") + "\n";
    std::fs::write(&store, &damaged).unwrap();
    let out = layoutrand().arg("repair").arg(d.path()).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert_eq!(std::fs::read_to_string(&store).unwrap(), damaged);
    assert!(!d.path().join("results.jsonl.damaged-1").exists());
}

#[test]
fn a_bad_middle_line_names_file_and_line_and_repair_keeps_every_valid_record() {
    let d = tempfile::tempdir().unwrap();
    let original = measured(d.path());
    let text = lines(&original);
    let executions = read_results(d.path()).unwrap().executions.len();
    // Damage the record of the second execution (line 3 or later: a measurement or an
    // execution record in the middle of the file).
    let bad_index = text
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("\"record\":\"execution\""))
        .nth(1)
        .unwrap()
        .0;
    let mut damaged = text.clone();
    damaged[bad_index] = "{\"record\":\"execution\",\"progr".to_string();
    let damaged = damaged.join("\n") + "\n";
    std::fs::write(d.path().join(RESULTS_FILE), &damaged).unwrap();

    let at = format!("{RESULTS_FILE}:{}:", bad_index + 1);
    let [export, report] = export_and_report_refuse(d.path(), &at);
    insta::assert_snapshot!(export);
    insta::assert_snapshot!(report);

    let out = layoutrand().arg("repair").arg(d.path()).assert().success();
    insta::assert_snapshot!(at_line(
        &stdout_in(out.get_output(), d.path()),
        d.path(),
        &at
    ));
    assert_eq!(
        std::fs::read_to_string(d.path().join("results.jsonl.damaged-1")).unwrap(),
        damaged
    );
    let repaired = read_results(d.path()).unwrap();
    assert_eq!(
        repaired.executions.len(),
        executions - 1,
        "only the damaged one is lost"
    );
    // A resume runs the lost execution again; the store is then complete.
    run_in(d.path()).args(["--resume"]).assert().success();
    assert_eq!(read_results(d.path()).unwrap().executions.len(), executions);
    // A valid store is left alone.
    let out = layoutrand().arg("repair").arg(d.path()).assert().success();
    insta::assert_snapshot!(stdout_in(out.get_output(), d.path()));
    assert!(!d.path().join("results.jsonl.damaged-2").exists());
}

#[test]
fn empty_and_missing_stores_say_what_is_wrong() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let out = run_in(d.path()).args(["--resume"]).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    std::fs::write(d.path().join(RESULTS_FILE), "").unwrap();
    let out = run_in(d.path()).args(["--resume"]).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    // Pinned whole: says the store is empty (and no advice about `--metric`).
    let out = export(d.path()).code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
}

#[test]
fn a_line_over_the_limit_is_refused_by_every_reader_and_repair_leaves_it_out() {
    // Issue 34, attack 11: one enormous line made every reader hold it whole. A line of one
    // byte over the limit (valid JSON otherwise, so the limit refuses it, not the parser),
    // at a seeded place among the store's lines after the header.
    use layoutrand::files::store::file::MAX_LINE_BYTES;
    let d = tempfile::tempdir().unwrap();
    let original = measured(d.path());
    let text = lines(&original);
    let executions = read_results(d.path()).unwrap().executions.len();
    let mut rng = layoutrand::seeded::SeededRng::new(34, "overlong store line");
    let at = 1 + rng.below(text.len() as u64 - 1) as usize;
    let (head, tail) = ("{\"record\":\"finish\",\"note\":\"", "\"}");
    let long = format!(
        "{head}{}{tail}",
        "a".repeat(MAX_LINE_BYTES + 1 - head.len() - tail.len())
    );
    assert_eq!(long.len(), MAX_LINE_BYTES + 1);
    let mut damaged = text.clone();
    damaged.insert(at, long);
    let damaged = damaged.join("\n") + "\n";
    let store = d.path().join(RESULTS_FILE);
    std::fs::write(&store, &damaged).unwrap();

    let named = format!("{RESULTS_FILE}:{}:", at + 1);
    let [export, report] = export_and_report_refuse(d.path(), &named);
    insta::assert_snapshot!(export);
    insta::assert_snapshot!(report);
    let out = run_in(d.path()).args(["--resume"]).assert().code(2);
    insta::assert_snapshot!(at_line(&stderr_text(out.get_output()), d.path(), &named));
    assert!(
        std::fs::read(&store).unwrap() == damaged.as_bytes(),
        "a refused store is left as it was"
    );

    // Repair leaves that line out (and, as for any damaged line, the execution after it,
    // whose measurement it may have been), keeps the other lines in order and the original
    // beside them; a resume runs what was left out again.
    let out = layoutrand().arg("repair").arg(d.path()).assert().success();
    insta::assert_snapshot!(at_line(
        &stdout_in(out.get_output(), d.path()),
        d.path(),
        &named
    ));
    assert!(std::fs::read(d.path().join("results.jsonl.damaged-1")).unwrap() == damaged.as_bytes());
    let repaired = lines(&std::fs::read(&store).unwrap());
    let mut originals = text.iter();
    assert!(
        repaired.iter().all(|l| originals.any(|o| o == l)),
        "the repaired store is the original's lines, in order"
    );
    run_in(d.path()).args(["--resume"]).assert().success();
    assert_eq!(read_results(d.path()).unwrap().executions.len(), executions);
}

/// Issue 54: repair read a store whole, so a line of 2 GB cost 2 GB. It now passes a line over
/// the limit without holding more of it than the limit: a store with a 300 MiB line is
/// repaired under a data limit of 256 MiB (`ulimit -d`), which reading it whole exceeds.
#[test]
fn repair_holds_no_more_of_an_enormous_line_than_the_limit() {
    use std::io::Write;
    let d = tempfile::tempdir().unwrap();
    let text = lines(&measured(d.path()));
    let store = d.path().join(RESULTS_FILE);
    let mut file = std::fs::File::create(&store).unwrap();
    writeln!(file, "{}", text[0]).unwrap();
    let length: u64 = 300 << 20;
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..(length >> 20) {
        file.write_all(&chunk).unwrap();
    }
    writeln!(file).unwrap();
    for line in &text[1..] {
        writeln!(file, "{line}").unwrap();
    }
    drop(file);
    let out = std::process::Command::new("sh")
        .args(["-c", r#"ulimit -d 262144 && exec "$0" repair "$1""#])
        .arg(assert_cmd::cargo::cargo_bin("layoutrand"))
        .arg(d.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // What repair says, pinned whole: line 2, longer than 64 MiB, of 314572800 bytes.
    insta::assert_snapshot!(stdout_in(&out, d.path()));
    // The repaired store is the original's other lines in order (less the execution after
    // the damage, as for any damaged line), and it reads.
    let repaired = lines(&std::fs::read(&store).unwrap());
    let mut originals = text.iter();
    assert!(repaired.len() > text.len() / 2, "{}", repaired.len());
    assert!(repaired.iter().all(|l| originals.any(|o| o == l)));
    assert!(read_results(d.path()).is_ok());
}
