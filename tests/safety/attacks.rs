//! Attacks 10–16 of issue 34 and their neighbours: what a received directory's files may
//! say, refused at the reader or made harmless before it reaches a terminal, a store or a
//! relink.

use crate::store::{lines, measured};
use crate::{build_support, run_support};

use std::path::Path;

use layoutrand::files::manifest::{BuildStatus, Manifest};
use layoutrand::files::store::RESULTS_FILE;
use predicates::prelude::*;
use predicates::str::contains;
use run_support::*;

use crate::{in_dir, stderr_in, stdout_in};

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
    let out = report(d.path(), "text").code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    let out = layoutrand().arg("export").arg(d.path()).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));

    // The same name in a manifest is refused before anything runs.
    let m = tempfile::tempdir().unwrap();
    same_binary_experiment(m.path(), "faulty", "faulty.c", 1);
    let path = m.path().join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"faulty\"", "\"fau\\u001b[31mlty\"")).unwrap();
    let out = run_in(m.path())
        .args(["--executions", "1", "--", "{bin}", "ok"])
        .assert()
        .code(2)
        .stderr(contains('\u{1b}').not());
    insta::assert_snapshot!(stderr_in(out.get_output(), m.path()));
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
        let out = layoutrand().arg(command).arg(d.path()).assert().code(2);
        insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    }
    let out = run_in(d.path())
        .args(["--resume", "--trust"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));

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
    let out = run_in(m.path())
        .args(["--executions", "1", "--", "{bin}", "ok"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), m.path()));
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
    let out = layoutrand().arg("repair").arg(d.path()).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
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
    let out = layoutrand().arg("repair").arg(d.path()).assert().success();
    insta::assert_snapshot!(stdout_in(out.get_output(), d.path()));
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
        .args(["--executions", "1", "--metric", "regex:(7+)"])
        .args(["--schedule-seed", "1", "--"])
        .args([
            "sh",
            "-c",
            "{bin} ok >/dev/null; head -c 4000000 /dev/zero | tr '\\0' 7; echo",
        ])
        .output()
        .unwrap();
    assert!(
        out.stderr.len() < 64 * 1024,
        "{} bytes on stderr",
        out.stderr.len()
    );
    insta::assert_snapshot!(stderr_in(&out, d.path()));
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
    insta::assert_snapshot!(status_refuses(d.path()));
}

/// `status DIR` fails within a minute (a hang fails the test) as an input error; its message,
/// with `dir` written `[dir]`, for a snapshot.
fn status_refuses(dir: &Path) -> String {
    let out = layoutrand()
        .arg("status")
        .arg(dir)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2);
    stderr_in(out.get_output(), dir)
}

/// Issue 54, attack 6: the Slurm plan was read whole, whatever its size. A plan of 65 MiB (a
/// sparse file: no disk is used) is refused, named, before it is read.
#[test]
fn an_oversized_slurm_plan_is_refused_before_it_is_read() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("slurm")).unwrap();
    let plan = std::fs::File::create(d.path().join("slurm/plan.json")).unwrap();
    plan.set_len(65 << 20).unwrap();
    insta::assert_snapshot!(status_refuses(d.path()));
}

/// Issue 54, bad input: a received Slurm plan's counts are data. 4 294 967 295 shards made
/// `status` walk that many shard folders (it never ended), a count of billions of executions
/// would plan them all; each is refused, named, by `status` and by a resubmission.
#[test]
fn a_slurm_plans_counts_are_checked_before_its_schedule_is_planned() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    run_in(d.path())
        .args([
            "--slurm",
            "--dry-run",
            "--executions",
            "4",
            "--",
            "{bin}",
            "ok",
        ])
        .assert()
        .success();
    let path = d.path().join("slurm/plan.json");
    let valid: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    // Each refusal pinned whole, by `status` and by a resubmission, in this order.
    let hostile = [
        ("/shards", serde_json::json!(4_294_967_295u32)),
        ("/shards", serde_json::json!(0)),
        ("/header/executions", serde_json::json!(4_000_000_000u32)),
        ("/header/data_seeds", serde_json::json!(70_000)),
    ];
    for (field, value) in hostile {
        let mut plan = valid.clone();
        let (parent, key) = field.rsplit_once('/').unwrap();
        plan.pointer_mut(parent).unwrap()[key] = value;
        std::fs::write(&path, serde_json::to_vec(&plan).unwrap()).unwrap();
        insta::assert_snapshot!(status_refuses(d.path()));
        let out = run_in(d.path())
            .args(["--slurm", "--resume", "--trust", "--dry-run"])
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2);
        insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    }
}

/// Issue 54, bad input: a received `stopping.json`'s maximum is the horizon `report
/// --sequential` calibrates over; 4 294 967 295 binaries kept it computing for ever. A rule
/// no experiment could have written is refused, named, at once.
#[test]
fn a_stopping_rule_no_experiment_could_write_is_refused() {
    let d = tempfile::tempdir().unwrap();
    measured(d.path());
    let log = |max: u64, target: f64| {
        serde_json::json!({
            "rule": {"target": target, "confidence": 0.95, "max_binaries": max, "metric": "wall"},
            "start_binaries": 1, "rounds": [{"binaries": 1, "relative_half_width": null}],
            "outcome": null, "caveat": "", "method": "lai_calibrated"
        })
    };
    // Each refusal pinned whole, in this order.
    for hostile in [log(4_294_967_295, 0.01), log(0, 0.01), log(30, 0.0)] {
        std::fs::write(d.path().join("stopping.json"), hostile.to_string()).unwrap();
        let out = layoutrand()
            .args(["report", "--sequential"])
            .arg(d.path())
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2);
        insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    }
    // The same rule within bounds reads.
    std::fs::write(d.path().join("stopping.json"), log(30, 0.01).to_string()).unwrap();
    layoutrand().arg("report").arg(d.path()).assert().success();
}

/// The multimodule fixture built with `seeds` seeds into `out`, a directory of the user's
/// own; returns the copy's temporary root and its source folder.
pub(crate) fn multimodule_built(
    out: &Path,
    seeds: &str,
) -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, src) = build_support::fixture("multimodule");
    let out_arg = out.to_str().unwrap();
    build_support::assert_success(
        &build_support::build(&src, &["--seeds", seeds, "--out", out_arg], &["make"]),
        "the build",
    );
    (tmp, src)
}

/// `build --extend --seeds N --out OUT` (and `extra`) run in `src`.
fn extend(src: &Path, out: &Path, seeds: &str, extra: &[&str]) -> std::process::Output {
    let args = [
        &["--extend", "--seeds", seeds, "--out", out.to_str().unwrap()],
        extra,
    ]
    .concat();
    build_support::build(src, &args, &[])
}

/// Each seed's status and binaries' SHA-256 in `out`'s manifest.
fn seeds_of(out: &Path) -> Vec<(Option<u64>, BuildStatus, Vec<String>)> {
    Manifest::load(out)
        .unwrap()
        .seeds
        .iter()
        .map(|v| {
            let hashes = v.binaries.iter().map(|b| b.sha256.clone()).collect();
            (v.seed, v.status, hashes)
        })
        .collect()
}

/// Attack 14, without root: a seed that failed (here recorded as failed, as a full disk
/// leaves it) is relinked by the next `--extend`, the seeds that built are kept as they
/// were; before the fix `--extend` reprinted the old error for ever.
#[test]
fn extend_relinks_a_failed_seed_and_keeps_the_built_ones() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let (_tmp, src) = multimodule_built(&out, "3");
    let built = seeds_of(&out);
    let mut manifest = Manifest::load(&out).unwrap();
    let failed = &mut manifest.seeds[1];
    failed.status = BuildStatus::Failed;
    failed.error = Some("program multimodule: No space left on device".into());
    failed.binaries.clear();
    std::fs::remove_dir_all(out.join("seed-2")).unwrap();
    manifest.save(&out).unwrap();

    let retried = extend(&src, &out, "3", &["--trust"]);
    build_support::assert_success(&retried, "the extension");
    // The summary, pinned whole, says seed 2 is relinked again (its table row, times and
    // ratio, which depend on the toolchain and the machine, written as placeholders).
    let stdout = String::from_utf8_lossy(&retried.stdout);
    insta::assert_snapshot!(crate::snapshot_support::redact(
        &in_dir(&stdout, root.path()),
        &[
            (r"^multimodule .*$", "multimodule [row]"),
            (r"\d+\.\d+ s\b", "[t] s"),
            (r"\(ratio [0-9.]+\)", "(ratio [r])"),
        ]
    ));
    assert_eq!(
        seeds_of(&out),
        built,
        "seed 2 as built at once, the others kept"
    );
    assert!(out.join("seed-2/multimodule").is_file());
}

/// Attack 14 on a real full disk: the seeds relinked on a full file system fail with a
/// message naming the seed's binary (not the temporary work file the write hit) and how to
/// retry; once space is freed, `--extend` relinks them and keeps the seeds that built.
#[test]
#[ignore = "needs root (mounts a tmpfs); run by .ci/run, or: LAYOUTRAND_TEST_ALL=1 bash scripts/test.sh"]
fn a_full_disk_fails_seeds_by_what_they_write_and_extend_retries_them() {
    let d = tempfile::tempdir().unwrap();
    let small = SmallTmpfs::mount(d.path());
    let mnt = small.0.clone();
    let out = mnt.join("out");
    let (_tmp, src) = multimodule_built(&out, "2");
    let built = seeds_of(&out);

    // Full to the last byte but for 16 KiB: room for the manifest, not for a relink.
    let spare = mnt.join("spare");
    std::fs::write(&spare, vec![0u8; 16 * 1024]).unwrap();
    let mut filler = std::fs::File::create(mnt.join("filler")).unwrap();
    let block = vec![0u8; 4096];
    while std::io::Write::write_all(&mut filler, &block).is_ok() {}
    drop(filler);
    std::fs::remove_file(&spare).unwrap();

    let full = extend(&src, &out, "4", &[]);
    // The summary (stdout) lists the failed seeds; the exit status says some failed.
    let said =
        String::from_utf8_lossy(&full.stdout).into_owned() + &String::from_utf8_lossy(&full.stderr);
    assert_eq!(full.status.code(), Some(1), "{said}");
    // Pinned whole: each failed seed named with its binary (not a work file) and how to
    // retry (the table row, times and ratio redacted, as they depend on the machine).
    insta::assert_snapshot!(crate::snapshot_support::redact(
        &in_dir(&said, &mnt),
        &[
            (r"^multimodule .*$", "multimodule [row]"),
            (r"\d+\.\d+ s\b", "[t] s"),
            (r"\(ratio [0-9.]+\)", "(ratio [r])"),
        ]
    ));
    assert_eq!(&seeds_of(&out)[..2], &built[..], "the built seeds kept");

    std::fs::remove_file(mnt.join("filler")).unwrap();
    build_support::assert_success(&extend(&src, &out, "4", &[]), "the retry");
    let after = seeds_of(&out);
    assert_eq!(&after[..2], &built[..], "the built seeds untouched");
    let ok: Vec<_> = after.iter().map(|(s, status, _)| (*s, *status)).collect();
    assert_eq!(
        ok,
        (1..=4)
            .map(|s| (Some(s), BuildStatus::Ok))
            .collect::<Vec<_>>()
    );
}

/// A copy of the demo's sources (Makefile, C files) in `dir`.
fn demo_tree(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo");
    for entry in std::fs::read_dir(demo).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "Makefile" || name.ends_with(".c") || name.ends_with(".h") {
            std::fs::copy(&path, dir.join(&name)).unwrap();
        }
    }
}

/// The demo's experiment (one seed, one execution) run in `tree` into `out`.
fn demo_experiment(tree: &Path, out: &Path) -> assert_cmd::assert::Assert {
    let toml = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo/experiment.toml");
    layoutrand()
        .current_dir(tree)
        .arg("experiment")
        .arg(toml)
        .arg("--out")
        .arg(out)
        .args(["--seeds", "1", "--executions", "1", "--metric", "wall"])
        .args(["--run-cmd", "{bin} 3"])
        .assert()
}

/// Attack 15: `experiment` reuses the build in its output directory only when it was made
/// from this source tree: another tree with the same build command is refused (naming
/// both), and so is this tree once its sources were edited and rebuilt (naming the object
/// that changed); the store is left as it was. Before the fix both measured the old build.
#[test]
fn experiment_reuses_a_build_only_from_its_own_source_tree() {
    let root = tempfile::tempdir().unwrap();
    let (a, b, out) = (
        root.path().join("a"),
        root.path().join("b"),
        root.path().join("out"),
    );
    demo_tree(&a);
    demo_experiment(&a, &out).success();
    // The user's own tree, unchanged: reused as before.
    demo_experiment(&a, &out).success();
    let store = std::fs::read(out.join(RESULTS_FILE)).unwrap();

    demo_tree(&b);
    // The refusal, pinned whole, names both trees ([dir]/a and [dir]/b).
    let refused = demo_experiment(&b, &out).code(2);
    insta::assert_snapshot!(stderr_in(refused.get_output(), root.path()));

    // The same tree, a source edited and rebuilt: its objects are not the recorded ones.
    let main_c = a.join("main.c");
    let text = std::fs::read_to_string(&main_c).unwrap();
    let edited = text.replacen(
        "int main(",
        "int lr_other(void) { return 7; }\nint main(",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&main_c, edited).unwrap();
    let made = std::process::Command::new("make")
        .current_dir(&a)
        .output()
        .unwrap();
    assert!(made.status.success());
    let refused = demo_experiment(&a, &out).code(2);
    insta::assert_snapshot!(stderr_in(refused.get_output(), root.path()));
    assert_eq!(std::fs::read(out.join(RESULTS_FILE)).unwrap(), store);
}

/// Attack 16: an object compiled from standard input (`cc -x c -c - -o m1.o < m1.c`) is
/// compiled through the shim like any other (one section per function), so the build
/// relinks it; before the fix the call was taken for a version query and the build was
/// refused with "not compiled through the shim ... make clean". A compile-and-link from
/// standard input, which cannot be split, runs as it was (the user's program is built) and
/// the refusal says why, not that the build called no tool.
#[test]
fn a_compile_from_standard_input_is_compiled_through_the_shim() {
    let (_tmp, src) = build_support::fixture("multimodule");
    let makefile = src.join("Makefile");
    let text = std::fs::read_to_string(&makefile).unwrap();
    let rule = "m1.o: m1.c common.h\n\t$(CC) $(CFLAGS) -x c -c - -o $@ < m1.c\n\n%.o:";
    std::fs::write(&makefile, text.replacen("%.o:", rule, 1)).unwrap();
    let out = src.join("out");
    let built = build_support::build(
        &src,
        &["--seeds", "2", "--out", out.to_str().unwrap()],
        &["make"],
    );
    build_support::assert_success(&built, "the build with a compile from stdin");
    let manifest = Manifest::load(&out).unwrap();
    assert_eq!(manifest.seeds.len(), 2);
    let achieved = manifest.programs[0].achieved.as_ref().unwrap();
    assert_eq!(achieved.objects, 8, "{achieved:?}");

    let one = tempfile::tempdir().unwrap();
    std::fs::write(
        one.path().join("p.c"),
        "int f(int x) { return x + 1; }\nint main(void) { return f(-1); }\n",
    )
    .unwrap();
    std::fs::write(
        one.path().join("Makefile"),
        "p: p.c\n\tcc -O2 -x c - -o p < p.c\n",
    )
    .unwrap();
    let refused = build_support::build(one.path(), &["--seeds", "1", "--out", "out"], &["make"]);
    assert!(!refused.status.success());
    // Why, pinned whole (not that the build saw no compiler or compiled nothing).
    insta::assert_snapshot!(stderr_in(&refused, one.path()));
    assert!(
        one.path().join("p").is_file(),
        "the user's build was broken"
    );
}

/// The shim's fallback when the record directory cannot be written (here its logs replaced
/// by folders and its `links` by a file, by the build command itself): the user's build
/// goes on and succeeds, the shim warns once for the whole build (not once per compile),
/// and `build` says the record could not be written, not that no tool was called.
#[test]
fn an_unusable_record_directory_is_said_once_and_never_fails_the_build() {
    let (_tmp, src) = build_support::fixture("multimodule");
    let record = src.join("out/.record");
    let sabotage = format!(
        "rm -rf {r}/links {r}/seen.log {r}/errors.log; mkdir {r}/seen.log {r}/errors.log; \
         touch {r}/links; make",
        r = record.display()
    );
    let mut cmd = layoutrand();
    let out = cmd
        .current_dir(&src)
        .args(["build", "--seeds", "1", "--out", "out", "--", "sh", "-c"])
        .arg(&sabotage)
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "nothing was recorded: {said}");
    assert!(src.join("multimodule").is_file(), "the user's build failed");
    let calls = said.matches("layoutrand shim: warning").count();
    assert_eq!(calls, 1, "the shim's warning, once for 9 calls: {said}");
    // What `build` says, pinned whole: the record could not be written (not that it saw no
    // compiler).
    insta::assert_snapshot!(in_dir(&said, &src));
}

/// Issue 54, attack 7: an ELF symbol name is the binary's bytes. A function named with a
/// terminal escape (set the window title, ring the bell; GNU as takes any byte in a quoted
/// name) reaches `layout`'s text escaped, visibly, for one binary and for two; its JSON
/// escapes it as JSON does.
#[test]
fn symbol_names_reach_the_terminal_escaped() {
    let d = tempfile::tempdir().unwrap();
    let name = "evil\u{1b}]0;owned\u{7}x";
    let asm = format!(
        ".text\n.globl main\n.type \"{name}\", @function\n\"{name}\":\n ret\n\
         .size \"{name}\", .-\"{name}\"\n.type main, @function\nmain:\n xor %eax,%eax\n ret\n\
         .size main, .-main\n.section .note.GNU-stack,\"\",@progbits\n"
    );
    std::fs::write(d.path().join("evil.s"), asm).unwrap();
    let cc = std::process::Command::new("cc")
        .current_dir(d.path())
        .args(["-o", "evil", "evil.s"])
        .output()
        .expect("cc, which the build tests need too");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let bin = d.path().join("evil");
    for args in [vec![&bin], vec![&bin, &bin]] {
        let out = layoutrand()
            .arg("layout")
            .args(&args)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let out = String::from_utf8(out).unwrap();
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{7}'),
            "a control character reached the output: {out:?}"
        );
        if args.len() == 1 {
            assert!(out.contains("evil\\x1b]0;owned\\x07x"), "{out}");
        }
    }
    let json = layoutrand()
        .args(["layout", "--format", "json"])
        .arg(&bin)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(!json.contains(&0x1b));
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(v.to_string().contains("evil\\u001b]0;owned\\u0007x"), "{v}");
}
