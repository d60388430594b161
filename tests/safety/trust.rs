//! Own versus received (issue 34): a directory whose executable parts (store header, Slurm
//! plan, recorded links, manifest) were not written by this user's layoutrand is data. The
//! commands that would run, relink or submit from it refuse, saying what would run; the
//! user's own directory works as before; `--trust` and `layoutrand trust` adopt one.
//!
//! The key is the one `.cargo/config.toml` points `LAYOUTRAND_KEY` at (under target/): the
//! tests never touch the real home.

use crate::build_support;
use crate::planted::refused_by;
use crate::run_support;

use std::path::Path;

use crate::{in_dir, stderr_in, stdout_in};
use layoutrand::files::store::RESULTS_FILE;
use run_support::*;

/// A run of the `faulty` fixture (baseline + 1 seed, one execution each) in `dir`: the
/// user's own directory.
pub(crate) fn own_run(dir: &Path) {
    same_binary_experiment(dir, "faulty", "faulty.c", 1);
    run_in(dir)
        .args(["--executions", "1", "--", "{bin}", "ok"])
        .assert()
        .success();
}

/// Replaces `from` by `to` in `path`'s text (the edit a hostile colleague makes).
fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.contains(from),
        "{}: no {from:?} in {text}",
        path.display()
    );
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// Attack 2: an `LD_PRELOAD=` added to the store header's environment is not rerun by
/// `run --resume`; the refusal prints it. Before the fix the resume loaded the library.
#[test]
fn a_resume_refuses_an_edited_header_and_prints_what_it_would_run() {
    let d = tempfile::tempdir().unwrap();
    own_run(d.path());
    // The user's own directory resumes as before, without a flag.
    run_in(d.path()).args(["--resume"]).assert().success();
    let store = d.path().join(RESULTS_FILE);
    edit(
        &store,
        "\"environment\":[",
        "\"environment\":[\"LD_PRELOAD=/tmp/evil.so\",",
    );
    let before = std::fs::read(&store).unwrap();
    let out = run_in(d.path()).args(["--resume"]).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert_eq!(std::fs::read(&store).unwrap(), before, "the store changed");
    // Trusted anyway, the header's environment is still checked: layoutrand never records
    // LD_PRELOAD.
    let out = run_in(d.path())
        .args(["--resume", "--trust"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
}

/// The floor under the command layer's check: the library's run, asked to resume a store
/// whose header is not the user's own, refuses on its own (the run's settings take a
/// recorded header only as a value the signature check made), and runs nothing.
#[test]
fn the_librarys_resume_refuses_a_header_that_is_not_own_without_the_command_layer() {
    let d = tempfile::tempdir().unwrap();
    own_run(d.path());
    let store = d.path().join(RESULTS_FILE);
    edit(&store, "\"{bin}\"", "\"{bin}\",\"--evil\"");
    let before = std::fs::read(&store).unwrap();
    let req = layoutrand::run::settings::RunRequest {
        out_dir: d.path().to_path_buf(),
        resume: true,
        ..Default::default()
    };
    let err = layoutrand::run::runner::run_experiment(&req).unwrap_err();
    insta::assert_snapshot!(in_dir(&format!("{err:#}"), d.path()));
    assert_eq!(std::fs::read(&store).unwrap(), before, "the store changed");
    std::fs::remove_file(d.path().join("results.jsonl.mac")).unwrap();
    let err = format!(
        "{:#}",
        layoutrand::run::runner::run_experiment(&req).unwrap_err()
    );
    insta::assert_snapshot!(in_dir(&err, d.path()));
    assert_eq!(std::fs::read(&store).unwrap(), before, "the store changed");
}

/// The manifest whose build settings a relink uses (`build --extend`, `explain --confirm`)
/// is read only as verified; edited by one byte it is refused there, and still read as data
/// by the report commands.
#[test]
fn the_manifest_a_relink_uses_is_read_only_as_verified() {
    use layoutrand::files::manifest::Manifest;
    let d = tempfile::tempdir().unwrap();
    own_run(d.path());
    let verified = Manifest::load_verified(d.path()).unwrap();
    assert_eq!(*verified.get(), Manifest::load(d.path()).unwrap());
    let path = d.path().join("manifest.json");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push('\n');
    std::fs::write(&path, text).unwrap();
    let err = format!("{:#}", Manifest::load_verified(d.path()).unwrap_err());
    insta::assert_snapshot!(in_dir(&err, d.path()));
    Manifest::load(d.path()).unwrap();
}

/// A directory written before MACs existed (no `.mac` files) counts as received: refused with
/// the command that adopts it; `--trust` then resumes and adopts, so the next resume needs
/// nothing. `layoutrand trust` adopts as well.
#[test]
fn an_unsigned_directory_is_adopted_by_trust_or_the_trust_command() {
    for adopt_by_command in [false, true] {
        let d = tempfile::tempdir().unwrap();
        own_run(d.path());
        for mac in ["manifest.json.mac", "results.jsonl.mac"] {
            std::fs::remove_file(d.path().join(mac)).unwrap();
        }
        let out = run_in(d.path()).args(["--resume"]).assert().code(2);
        insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
        if adopt_by_command {
            let out = layoutrand().arg("trust").arg(d.path()).assert().success();
            insta::assert_snapshot!(stdout_in(out.get_output(), d.path()));
        } else {
            let out = run_in(d.path())
                .args(["--resume", "--trust"])
                .assert()
                .success();
            insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
        }
        run_in(d.path()).args(["--resume"]).assert().success();
    }
}

/// Issue 54, attack 7: `trust --show` looks without signing (what would run, whose each
/// part is; the directory stays received), and `trust` validates before it adopts: a
/// directory with a part that does not read as layoutrand wrote it is adopted not at all
/// (no MAC written, not even for its readable parts).
#[test]
fn trust_shows_without_signing_and_validates_before_adopting() {
    let d = tempfile::tempdir().unwrap();
    own_run(d.path());
    let macs = ["manifest.json.mac", "results.jsonl.mac"];
    for mac in macs {
        std::fs::remove_file(d.path().join(mac)).unwrap();
    }
    let out = layoutrand()
        .args(["trust", "--show"])
        .arg(d.path())
        .assert()
        .success();
    insta::assert_snapshot!(stdout_in(out.get_output(), d.path()));
    for mac in macs {
        assert!(!d.path().join(mac).exists(), "{mac} was written");
    }
    let out = run_in(d.path()).args(["--resume"]).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    // A manifest that is no manifest: nothing is adopted.
    std::fs::write(d.path().join("manifest.json"), "{\"not\": \"a manifest\"}").unwrap();
    let out = layoutrand().arg("trust").arg(d.path()).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    for mac in macs {
        assert!(!d.path().join(mac).exists(), "{mac} was written");
    }
}

/// A MAC made with another user's key does not verify: a colleague's own directory is
/// received here.
#[test]
fn another_users_signature_does_not_make_a_directory_own() {
    let d = tempfile::tempdir().unwrap();
    let other_key = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    run_in(d.path())
        .env(
            layoutrand::files::trust::KEY_ENV,
            other_key.path().join("key"),
        )
        .args(["--executions", "1", "--", "{bin}", "ok"])
        .assert()
        .success();
    let out = run_in(d.path()).args(["--resume"]).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
}

/// Attack 3: a Slurm plan edited (a newline in the partition adds a shell line to the job
/// script; another program) is refused by `run --slurm --resume`, which leaves the job
/// script as it was; the user's own plan resumes.
#[test]
fn a_slurm_resume_refuses_an_edited_plan() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let slurm = |extra: &[&str]| {
        let mut c = run_in(d.path());
        c.args(["--slurm", "--dry-run", "--executions", "1"])
            .args(extra)
            .args(["--", "{bin}", "ok"]);
        c
    };
    slurm(&[]).assert().success();
    slurm(&["--resume"]).assert().success();
    let script = d.path().join("slurm/job.sbatch");
    let before = std::fs::read(&script).unwrap();
    edit(
        &d.path().join("slurm/plan.json"),
        "\"partition\": null",
        "\"partition\": \"p\\ntouch /tmp/PWNED-by-plan\"",
    );
    let out = slurm(&["--resume"]).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert_eq!(std::fs::read(&script).unwrap(), before);
    // A node refuses the edited plan too.
    let out = layoutrand()
        .args(["run-shard", "--out"])
        .arg(d.path())
        .args(["--shard", "0", "--token", "x"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    // Trusted anyway, the plan's partition still may not add a line to the job script.
    let out = slurm(&["--resume", "--trust"]).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert_eq!(std::fs::read(&script).unwrap(), before);
}

/// Attacks 1 and 7: `build --extend` refuses a recording whose link record names another
/// tool (it would run it), and one whose recorded object changed (it would relink it as the
/// user's code); the user's own recording extends.
#[test]
fn extend_refuses_an_edited_recording_and_a_changed_object() {
    let (_tmp, src) = build_support::fixture("multimodule");
    let out = src.join("out");
    let out_arg = out.to_str().unwrap();
    build_support::assert_success(
        &build_support::build(&src, &["--seeds", "1", "--out", out_arg], &["make"]),
        "the build",
    );
    let extend = |seeds: &str, extra: &[&str]| {
        build_support::build(
            &src,
            &[&["--extend", "--seeds", seeds, "--out", out_arg], extra].concat(),
            &[],
        )
    };
    build_support::assert_success(&extend("2", &[]), "extending the own build");

    // Attack 5: a planted seed-3 link is not written through.
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), out.join("seed-3")).unwrap();
    refused_by(extend("3", &[]), &out.join("seed-3"), "is a symbolic link");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    std::fs::remove_file(out.join("seed-3")).unwrap();

    let links = out.join(".record/links");
    let record = std::fs::read_dir(&links)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let text = std::fs::read_to_string(&record).unwrap();
    let record_json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let tool = record_json["real_tool"].as_str().unwrap().to_string();
    let marker = src.join("PWNED-by-extend");
    let evil = src.join("evil-cc");
    std::fs::write(
        &evil,
        format!(
            "#!/bin/sh\ntouch '{}'\nexec {tool} \"$@\"\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&evil, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    edit(
        &record,
        &format!("\"{tool}\""),
        &format!("\"{}\"", evil.display()),
    );
    refused_by(extend("3", &[]), &evil, "build --extend refused");
    assert!(!marker.exists(), "the edited tool ran");
    std::fs::write(&record, &text).unwrap();

    // One byte of a recorded object changed, its MAC-covered record untouched.
    let blob = std::fs::read_dir(out.join(".record/blobs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "o"))
        .unwrap();
    let mut bytes = std::fs::read(&blob).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&blob, &bytes).unwrap();
    refused_by(extend("3", &[]), &blob, "no longer holds the content");
    let manifest = layoutrand::files::manifest::Manifest::load(&out).unwrap();
    assert_eq!(manifest.seeds.len(), 2, "a seed was added");
}

/// Attack 6: `-o` into a FIFO writes into it and leaves it a FIFO; `-o` naming the
/// experiment's own store or manifest is refused and leaves them whole.
#[test]
fn output_into_a_fifo_and_onto_the_experiments_own_files() {
    let d = tempfile::tempdir().unwrap();
    own_run(d.path());
    for own in [RESULTS_FILE, "manifest.json"] {
        let path = d.path().join(own);
        let before = std::fs::read(&path).unwrap();
        let out = layoutrand()
            .arg("report")
            .arg(d.path())
            .arg("-o")
            .arg(&path)
            .assert()
            .code(2);
        insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
        assert_eq!(std::fs::read(&path).unwrap(), before, "{own} changed");
    }
    let fifo = d.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    layoutrand()
        .arg("export")
        .arg(d.path())
        .arg("-o")
        .arg(&fifo)
        .assert()
        .success();
    let csv = reader.join().unwrap();
    assert!(csv.starts_with("program,"), "{csv}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

/// Attack 9: a FIFO in place of the store is refused by `report`, `export` and `run
/// --resume` at once instead of hanging them.
#[test]
fn a_fifo_as_the_store_stalls_no_reader() {
    let d = tempfile::tempdir().unwrap();
    own_run(d.path());
    let store = d.path().join(RESULTS_FILE);
    std::fs::remove_file(&store).unwrap();
    let c = std::ffi::CString::new(store.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for args in [&["report"][..], &["export"], &["run", "--resume", "--out"]] {
        let out = layoutrand()
            .args(args)
            .arg(d.path())
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2);
        insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    }
}

/// Attacks 4 and 5: a planted `explain` link is not followed by `explain` (which clears and
/// writes its folder), a planted `seed-N` link not by `build --extend`, planted `slurm` and
/// `shards` links not by `run --slurm`.
#[test]
fn planted_directory_links_are_refused_before_any_write() {
    let d = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(outside.path().join("profile")).unwrap();
    std::fs::write(outside.path().join("profile/keep"), "precious").unwrap();
    own_run(d.path());
    std::os::unix::fs::symlink(outside.path(), d.path().join("explain")).unwrap();
    let out = layoutrand().arg("explain").arg(d.path()).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert_eq!(
        std::fs::read_to_string(outside.path().join("profile/keep")).unwrap(),
        "precious"
    );

    let s = tempfile::tempdir().unwrap();
    same_binary_experiment(s.path(), "faulty", "faulty.c", 1);
    for planted in ["slurm", "shards"] {
        std::os::unix::fs::symlink(outside.path(), s.path().join(planted)).unwrap();
        let out = run_in(s.path())
            .args(["--slurm", "--dry-run", "--", "{bin}", "ok"])
            .assert()
            .code(2);
        insta::assert_snapshot!(stderr_in(out.get_output(), s.path()));
        std::fs::remove_file(s.path().join(planted)).unwrap();
    }
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
}

/// Attack 12: a manifest listing one program twice is refused before a run writes duplicate
/// executions into its own store.
#[test]
fn a_manifest_listing_a_program_twice_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let mut m = same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let twin = m.baseline.binaries[0].clone();
    m.baseline.binaries.push(twin);
    m.save(d.path()).unwrap();
    let out = run_in(d.path())
        .args(["--", "{bin}", "ok"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert!(!d.path().join(RESULTS_FILE).exists());
}

/// Attack 3, at submission: a partition with a newline never reaches the job script.
#[test]
fn a_partition_with_a_newline_is_refused_at_submission() {
    let d = tempfile::tempdir().unwrap();
    same_binary_experiment(d.path(), "faulty", "faulty.c", 1);
    let out = run_in(d.path())
        .args(["--slurm", "--dry-run", "--partition", "p\ntouch /tmp/PWNED"])
        .args(["--", "{bin}", "ok"])
        .assert()
        .code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert!(!d.path().join("slurm/job.sbatch").exists());
}

/// Attack 13: `repair` of a store of a newer schema refuses and leaves it whole (it used to
/// drop its header, after which nothing could read it).
#[test]
fn repair_refuses_a_store_of_a_newer_schema() {
    let d = tempfile::tempdir().unwrap();
    own_run(d.path());
    let store = d.path().join(RESULTS_FILE);
    let text = std::fs::read_to_string(&store).unwrap();
    let newer = text.replacen("\"schema\":2", "\"schema\":99", 1) + "{\"record\":\"future\"}\n";
    assert_ne!(newer, text);
    std::fs::write(&store, &newer).unwrap();
    let out = layoutrand().arg("repair").arg(d.path()).assert().code(2);
    insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    assert_eq!(std::fs::read_to_string(&store).unwrap(), newer);
}

/// Issue 54, attack 6: the side files a report reads (the stopping record, the manifest) are
/// bounded: a FIFO in place of one stalls nothing, a link to /dev/zero is refused before
/// it is read, and a file over 64 MiB (a sparse one: no disk spent) is refused by size, each
/// naming the file; `report` then fails, it does not hang or exhaust memory.
#[test]
fn side_files_are_bounded() {
    let d = tempfile::tempdir().unwrap();
    own_run(d.path());
    // Each refusal pinned whole, in this order: for each file, a FIFO, a link, a big file.
    let report_refuses = || {
        let out = layoutrand()
            .arg("report")
            .arg(d.path())
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2);
        insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
    };
    for name in ["stopping.json", "manifest.json"] {
        let path = d.path().join(name);
        let kept = std::fs::read(&path).ok();
        let _ = std::fs::remove_file(&path);
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        report_refuses();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        report_refuses();
        std::fs::remove_file(&path).unwrap();
        let big = std::fs::File::create(&path).unwrap();
        big.set_len(65 << 20).unwrap();
        report_refuses();
        std::fs::remove_file(&path).unwrap();
        if let Some(bytes) = kept {
            std::fs::write(&path, bytes).unwrap();
        }
    }
}
