//! Store edges: every reader agrees on what a valid store is, a damaged line gets a precise
//! message and `layoutrand repair` keeps the valid records without losing the original, and
//! empty or missing stores say what is wrong.

use crate::run_support;

use std::path::Path;

use layoutrand::files::store::{read_results, RESULTS_FILE};
use predicates::prelude::*;
use predicates::str::contains;
use run_support::*;

/// An experiment of the `faulty` fixture, baseline + 2 seeds × 2 executions, measured.
pub(crate) fn measured(dir: &Path) -> Vec<u8> {
    same_binary_experiment(dir, "faulty", "faulty.c", 2);
    run_in(dir)
        .args(["--executions", "2", "--", "{bin}", "ok"])
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

/// `export` and `report` of `dir` fail with a message holding `needle`; export's also says
/// how to repair.
fn export_and_report_refuse(dir: &Path, needle: &str) {
    export(dir)
        .failure()
        .stderr(contains(needle))
        .stderr(contains("layoutrand repair"));
    layoutrand()
        .arg("report")
        .arg(dir)
        .assert()
        .failure()
        .stderr(contains(needle));
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

    export(d.path())
        .failure()
        .stderr(contains("recorded twice"))
        .stderr(contains("layoutrand repair"));
    layoutrand()
        .arg("report")
        .arg(d.path())
        .assert()
        .failure()
        .stderr(contains("recorded twice"));
    run_in(d.path())
        .args(["--resume"])
        .assert()
        .failure()
        .stderr(contains("recorded twice"));

    layoutrand()
        .arg("repair")
        .arg(d.path())
        .assert()
        .success()
        .stdout(contains("recorded a second time"));
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
    layoutrand()
        .arg("repair")
        .arg(d.path())
        .assert()
        .failure()
        .stderr(contains(format!("{RESULTS_FILE}:1:")))
        .stderr(contains("repair refused, nothing changed"));
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
    export_and_report_refuse(d.path(), &at);

    layoutrand()
        .arg("repair")
        .arg(d.path())
        .assert()
        .success()
        .stdout(contains(at.as_str()))
        .stdout(contains("damaged-1"));
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
    layoutrand()
        .arg("repair")
        .arg(d.path())
        .assert()
        .success()
        .stdout(contains("nothing to repair"));
    assert!(!d.path().join("results.jsonl.damaged-2").exists());
}

#[test]
fn empty_and_missing_stores_say_what_is_wrong() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    run_in(d.path())
        .args(["--resume"])
        .assert()
        .failure()
        .stderr(contains("holds no run to resume"));
    std::fs::write(d.path().join(RESULTS_FILE), "").unwrap();
    run_in(d.path())
        .args(["--resume"])
        .assert()
        .failure()
        .stderr(contains("holds no run to resume"));
    export(d.path())
        .failure()
        .stderr(contains("is empty"))
        .stderr(predicates::str::contains("--metric").not());
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

    let named = format!("{RESULTS_FILE}:{}: a line longer than 64 MiB", at + 1);
    export_and_report_refuse(d.path(), &named);
    run_in(d.path())
        .args(["--resume"])
        .assert()
        .failure()
        .stderr(contains(named.as_str()));
    assert!(
        std::fs::read(&store).unwrap() == damaged.as_bytes(),
        "a refused store is left as it was"
    );

    // Repair leaves that line out (and, as for any damaged line, the execution after it,
    // whose measurement it may have been), keeps the other lines in order and the original
    // beside them; a resume runs what was left out again.
    layoutrand()
        .arg("repair")
        .arg(d.path())
        .assert()
        .success()
        .stdout(contains(named.as_str()));
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
    let named = format!("{RESULTS_FILE}:2: a line longer than 64 MiB (of {length} bytes)");
    let out = std::process::Command::new("sh")
        .args(["-c", r#"ulimit -d 262144 && exec "$0" repair "$1""#])
        .arg(assert_cmd::cargo::cargo_bin("layoutrand"))
        .arg(d.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout.contains(&named), "{stdout}");
    // The repaired store is the original's other lines in order (less the execution after
    // the damage, as for any damaged line), and it reads.
    let repaired = lines(&std::fs::read(&store).unwrap());
    let mut originals = text.iter();
    assert!(repaired.len() > text.len() / 2, "{}", repaired.len());
    assert!(repaired.iter().all(|l| originals.any(|o| o == l)));
    assert!(read_results(d.path()).is_ok());
}
