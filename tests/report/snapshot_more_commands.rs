//! Snapshots (insta) of the commands left after snapshot_commands (issue 50: every command's
//! output pinned): `status` on a Slurm run read from its files (a stand-in `squeue` on PATH),
//! `trust --show` before and after `trust`, `layout` of one and of two small ELF binaries
//! built here by `cc`, `doctor` in text and JSON, and the closing table of `run`. A change of
//! any word fails `cargo test` until it is accepted (`INSTA_UPDATE=always cargo test
//! --release --test report snapshot_more_commands::`) and shows in tests/report/snapshots/.
//!
//! Every command runs in a temporary parent directory with relative names, so that the paths
//! the outputs name are the same on every machine. What depends on the machine or the
//! toolchain (addresses and sizes of functions, the doctor's host and figures, times) is
//! replaced by a bracketed placeholder before the snapshot (tests/support/snapshots.rs).

use std::path::Path;

use crate::report_support;
use crate::run_support;
use crate::snapshot_support::redact;

use layoutrand::files::store::shards::shard_dir;
use layoutrand::files::store::StoreWriter;
use layoutrand::run::slurm::plan::{slurm_path, SlurmPlan, PLAN_FILE};
use report_support::{all_ok, header, records, write_dir, Design};

/// `layoutrand ARGS…` to be run in `parent`.
fn layoutrand_in(parent: &Path, args: &[&str]) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("layoutrand").unwrap();
    c.current_dir(parent).args(args);
    c
}

/// The standard output of `cmd`, which must succeed.
fn stdout_of(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

// ---- status ----------------------------------------------------------------------------

/// A Slurm run of `demo` (baseline and seed-1, 8 executions each) in 4 shards of 4
/// executions, as `run --slurm` leaves it: shard 0 complete, shard 1 half done, shards 2 and
/// 3 without a store; job 101 ran shards 0 to 2, job 102 resubmitted shard 1, shard 3 was
/// never submitted.
fn slurm_run(dir: &Path) {
    slurm_plan(dir);
    std::fs::write(
        slurm_path(dir, "jobs.jsonl"),
        "{\"job\":\"101\",\"shards\":[0,1,2],\"submitted_unix\":1.0}\n\
         {\"job\":\"102\",\"shards\":[1],\"submitted_unix\":2.0}\n",
    )
    .unwrap();
    // Shard 0: its two rounds (0 and 1) of both binaries; shard 1: one of its two.
    for (shard, rounds) in [(0, 2), (1, 1)] {
        let store = shard_dir(dir, shard);
        std::fs::create_dir_all(&store).unwrap();
        let mut w = StoreWriter::open(&store).unwrap();
        for batch in records(
            &Design::new(1, rounds, 1),
            &mut |_, _, _, _, _| 1e6,
            &all_ok,
        ) {
            w.append(&batch).unwrap();
        }
    }
}

/// The plan of [`slurm_run`] (as `run --slurm` writes it, without its MAC).
fn slurm_plan(dir: &Path) {
    let design = Design::new(1, 8, 1);
    let plan = SlurmPlan {
        schema: 1,
        header: header(&design),
        shards: 4,
        node_dir: "/tmp/layoutrand".into(),
        token: "a1b2c3".into(),
        layoutrand: "/opt/layoutrand/bin/layoutrand".into(),
        partition: Some("debug".into()),
        max_nodes: Some(2),
        slurm_args: vec!["--time=10".into()],
    };
    std::fs::create_dir_all(dir.join("slurm")).unwrap();
    std::fs::write(
        slurm_path(dir, PLAN_FILE),
        serde_json::to_vec_pretty(&plan).unwrap(),
    )
    .unwrap();
}

/// A stand-in `squeue` in `bin`: it lists shard 1 of job 102 running on n2 and shard 2 of job
/// 101 pending (job 101's shard 0 is forgotten by the controller); asked about other jobs,
/// it fails.
fn fake_squeue(bin: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(bin).unwrap();
    let script = bin.join("squeue");
    std::fs::write(
        &script,
        "#!/bin/sh\n\
         case \"$*\" in *--jobs=101,102*) ;; *) echo \"unexpected squeue $*\" >&2; exit 1 ;; esac\n\
         printf '101|2|PENDING||Resources\\n102|1|RUNNING|n2|None\\n'\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn status_of_a_slurm_run_from_its_files() {
    let parent = tempfile::tempdir().unwrap();
    let p = parent.path();
    slurm_run(&p.join("exp"));
    fake_squeue(&p.join("bin"));
    let path = std::env::join_paths(
        std::iter::once(p.join("bin"))
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let out = stdout_of(layoutrand_in(p, &["status", "exp"]).env("PATH", path));
    assert!(
        out.contains("6/16 executions; 1 of 4 shards complete"),
        "{out}"
    );
    insta::assert_snapshot!("status_text", out);
}

// ---- trust -----------------------------------------------------------------------------

/// `layoutrand trust ARGS…` in `parent` with a fresh user key under `home` (HOME and
/// XDG_CONFIG_HOME there, and not the suite's key): the user of `home` received every file.
fn trust_as_other_user(parent: &Path, home: &Path, args: &[&str]) -> String {
    let mut c = layoutrand_in(parent, args);
    c.env_remove(layoutrand::files::trust::KEY_ENV)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"));
    stdout_of(&mut c)
}

#[test]
fn trust_shows_a_received_directory_then_adopts_it() {
    let parent = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let p = parent.path();
    let store = p.join("store");
    std::fs::create_dir_all(&store).unwrap();
    // The manifest signed with the suite's key (another user's, to the user of `home`); the
    // store's header (the synthetic writer does not sign it) and a Slurm plan without a MAC.
    write_dir(&store, &Design::new(2, 2, 2), &mut |_, _, _, _, _| 1e6);
    slurm_plan(&store);
    let shown = trust_as_other_user(p, home.path(), &["trust", "--show", "store"]);
    assert!(shown.contains("nothing was signed"), "{shown}");
    insta::assert_snapshot!("trust_show_received", shown);
    let adopted = trust_as_other_user(p, home.path(), &["trust", "store"]);
    assert!(adopted.contains("is now your own"), "{adopted}");
    insta::assert_snapshot!("trust_adopt", adopted);
    let own = trust_as_other_user(p, home.path(), &["trust", "--show", "store"]);
    assert!(own.contains("is already your own"), "{own}");
    insta::assert_snapshot!("trust_show_own", own);
}

// ---- layout ----------------------------------------------------------------------------

/// Two functions of a.c, in this order.
const A_C: &str = "volatile int sink;\n\
void helper(int x) { sink += x; }\n\
int compute(int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++)\n        s += i * n;\n    return s;\n}\n";

/// The entry point and a file-local function: without the C library the binary holds only
/// these four functions, whatever the toolchain's start files.
const B_C: &str = "void helper(int x);\nint compute(int n);\n\
static void twice(void) { helper(compute(3)); helper(compute(4)); }\n\
void _start(void) {\n    twice();\n    for (;;) {\n    }\n}\n";

/// `cc` links `sources` (in `dir`, in this order) into `dir/out`: no C library, no PIE, no
/// inlining, so the functions are those of the sources in link order.
fn cc(dir: &Path, out: &str, sources: &[&str]) {
    let status = std::process::Command::new("cc")
        .current_dir(dir)
        .args([
            "-O1",
            "-fno-pie",
            "-no-pie",
            "-static",
            "-nostdlib",
            "-fno-inline",
            "-fno-asynchronous-unwind-tables",
            "-fno-stack-protector",
            "-o",
            out,
        ])
        .args(sources)
        .status()
        .expect("cc runs");
    assert!(status.success(), "cc {sources:?} failed");
}

/// Addresses and sizes depend on the compiler's version: replaced, names, files, order and
/// fingerprints (of names in order) kept. `share_mod64_changed` is whether each function's
/// address mod 64 changed, which sizes decide; `share_moved` and `share_mod4096_changed` are
/// 1 with any sizes (every function starts elsewhere, within the first page).
const LAYOUT_FILTERS: &[(&str, &str)] = &[
    (r"^0x[0-9a-f]{16} +\d+  ", "[addr]  [size]  "),
    (r#""address": \d+"#, r#""address": "[addr]""#),
    (r#""size": \d+"#, r#""size": "[size]""#),
    (
        r"^share_mod64_changed +[0-9.]+$",
        "share_mod64_changed    [share]",
    ),
    (
        r#""share_mod64_changed": [0-9.]+"#,
        r#""share_mod64_changed": "[share]""#,
    ),
];

#[test]
fn layout_of_one_binary_and_of_two() {
    let parent = tempfile::tempdir().unwrap();
    let p = parent.path();
    std::fs::write(p.join("a.c"), A_C).unwrap();
    std::fs::write(p.join("b.c"), B_C).unwrap();
    cc(p, "ab", &["a.c", "b.c"]);
    cc(p, "ba", &["b.c", "a.c"]);
    for format in ["text", "json"] {
        let one = stdout_of(&mut layoutrand_in(p, &["layout", "ab", "--format", format]));
        assert!(one.contains("helper") && one.contains("_start"), "{one}");
        insta::assert_snapshot!(format!("layout_one_{format}"), redact(&one, LAYOUT_FILTERS));
        let two = stdout_of(&mut layoutrand_in(
            p,
            &["layout", "ab", "ba", "--format", format],
        ));
        assert!(
            two.contains("0.666667") || two.contains("0.6666666"),
            "{two}"
        );
        insta::assert_snapshot!(format!("layout_two_{format}"), redact(&two, LAYOUT_FILTERS));
    }
}

// ---- doctor ----------------------------------------------------------------------------

/// The doctor's text with the host, each check's status and detail, the calibration's
/// figures, the counts and the verdict replaced: all of them are this machine's. Kept: the
/// sentences, the checks' names and order, and the figures the flags fix (executions, live
/// iterations, the ±1.0 % target, the confidence, the power, run's default executions). The
/// lines are the same on every host: the nine checks are a fixed list, and the calibration's
/// spread within executions (a clause shown with two live iterations or more) is left out by
/// `--iterations 2`.
const DOCTOR_TEXT_FILTERS: &[(&str, &str)] = &[
    (
        r"^Host: .+, (\d+|unknown) core\(s\), kernel .+\.$",
        "Host: [cpu model], [cores] core(s), kernel [kernel].",
    ),
    (
        r"^  (?:ok|note|PROBLEM) +((?:compilers|linkers|valgrind|ASLR control|load|frequency scaling|boost|SMT|noise)  +)\S.*$",
        "  [status] ${1}[detail]",
    ),
    (r"\d+(\.\d+)? ms per iteration", "[t] ms per iteration"),
    (r"ASLR (off|on), \d+(\.\d+)? s:", "ASLR [off|on], [t] s:"),
    (r"vary by [0-9.]+ %", "vary by [cv] %"),
    (
        r"(\d[\d ]*|more than 100 000) execution\(s\)",
        "[n] execution(s)",
    ),
    (
        r"difference is ≈ .*?\. Layout",
        "difference is ≈ [pct]. Layout",
    ),
    (
        r"^Verdict: .* \(exit code [013]\)\.$",
        "Verdict: [verdict] (exit code [code]).",
    ),
];

/// The doctor's JSON members that are this machine's, as `doctor` prints them (members in
/// its order): the host's conditions (load, governors, boost, SMT) whole, the calibration's
/// means one by one (their count is fixed by `--executions`), and every other member below
/// by name: the host, each check's status and detail, the calibration's figures, the counts
/// and the verdict.
const DOCTOR_JSON_FILTERS: &[(&str, &str)] = &[
    (
        r#"(?s)"conditions": \{.*?\n  \}"#,
        r#""conditions": "[machine]""#,
    ),
    // The machine's L1 instruction cache, where sysfs has it: left out, as it is elsewhere.
    (r#"(?s),\n    "l1i": \{.*?\n    \}"#, ""),
    (r"^      -?[0-9][0-9.eE+-]*(,?)$", r#"      "[machine]"$1"#),
    (
        r#""(cpu_model|kernel|cores|governor|hostname|status|detail|mean_ms|cv_between_executions|cv_within_executions|s2|t2|aslr_off|seconds|executions_for_interval|executions_to_detect|detectable_at_default|verdict|exit_code)": .*?(,?)$"#,
        r#""$1": "[machine]"$2"#,
    ),
];

#[test]
fn doctor_in_text_and_json() {
    let parent = tempfile::tempdir().unwrap();
    // The shortest calibration there is: 2 executions of 2 iterations, the first warmup.
    let doctor = |format: &str| {
        let out = layoutrand_in(
            parent.path(),
            &[
                "doctor",
                "--executions",
                "2",
                "--iterations",
                "2",
                "--format",
                format,
            ],
        )
        .output()
        .unwrap();
        // 0 fit, 1 deterministic experiments only, 3 not fit: which is the machine's.
        assert!(
            matches!(out.status.code(), Some(0 | 1 | 3)),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = doctor("text");
    assert!(text.contains("Verdict: "), "{text}");
    insta::assert_snapshot!("doctor_text", redact(&text, DOCTOR_TEXT_FILTERS));
    let json = doctor("json");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["checks"].as_array().unwrap().len(), 10, "{doc:#}");
    insta::assert_snapshot!("doctor_json", redact(&json, DOCTOR_JSON_FILTERS));
}

// ---- run -------------------------------------------------------------------------------

/// The table `run` closes with, for 2 executions of the baseline and 2 seeds of a program
/// that prints `value 42`: measured by that value (the whole table is fixed), and by wall
/// time (each mean and CV is this machine's: replaced).
#[test]
fn the_closing_table_of_run() {
    let parent = tempfile::tempdir().unwrap();
    let p = parent.path();
    for (dir, metric) in [("by-value", "regex:value (\\d+)"), ("by-time", "wall")] {
        run_support::same_binary_experiment(&p.join(dir), "faulty", "faulty.c", 2);
        let table = stdout_of(&mut layoutrand_in(
            p,
            &[
                "run",
                "--out",
                dir,
                "--executions",
                "2",
                "--metric",
                metric,
                "--",
                "{bin}",
                "ok",
            ],
        ));
        assert_eq!(table.lines().count(), 3, "{table}");
        let table = if metric == "wall" {
            redact(
                &table,
                &[(r"mean=.*? CV=.*? failures=", "mean=[t] CV=[cv] failures=")],
            )
        } else {
            table
        };
        insta::assert_snapshot!(format!("run_table_{dir}"), table);
    }
}
