//! A received experiment directory is data, never a key: a crafted manifest, planted
//! symbolic links and hostile output paths make layoutrand refuse with a precise message (or
//! work), and never write, truncate or execute anything outside the directory.

use crate::run_support;

use std::path::Path;

use crate::{in_dir, stderr_in};
use layoutrand::files::manifest::Manifest;
use layoutrand::files::store::{read_results, RESULTS_FILE};
use run_support::*;

/// An experiment of the `faulty` fixture (baseline + 1 seed) in `dir`, and a victim file in
/// `outside` that nothing may touch.
fn setup(dir: &Path, outside: &Path) -> (Manifest, std::path::PathBuf) {
    let m = same_binary_experiment(dir, "faulty", "faulty.c", 1);
    let victim = outside.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    (m, victim)
}

/// The standard error of a refused run in `dir`, as an input error, with `dir` written `[dir]`
/// and the directory `outside` (where the victim is) written `[outside]`.
fn refusal(run: &mut assert_cmd::Command, dir: &Path, outside: &Path) -> String {
    let out = run.assert().code(2);
    let text = String::from_utf8_lossy(&out.get_output().stderr);
    in_dir(&in_dir(&text, outside).replace("[dir]", "[outside]"), dir)
}

fn assert_untouched(victim: &Path) {
    assert_eq!(std::fs::read_to_string(victim).unwrap(), "precious");
}

#[test]
fn a_binary_name_that_is_a_path_is_refused_before_anything_runs() {
    for bad in ["ABSOLUTE", "../../victim", "..", "a/b", ""] {
        let d = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let (mut m, victim) = setup(d.path(), outside.path());
        let name = if bad == "ABSOLUTE" {
            victim.display().to_string()
        } else {
            bad.to_string()
        };
        m.seeds[0].binaries[0].name = name.clone();
        m.save(d.path()).unwrap();
        // Pinned whole, one snapshot for each name, in the order above.
        insta::assert_snapshot!(refusal(
            run_in(d.path()).args(["--", "{bin}", "ok"]),
            d.path(),
            outside.path()
        ));
        assert_untouched(&victim);
        assert!(
            !d.path().join(RESULTS_FILE).exists(),
            "{bad}: a store was written"
        );
        assert!(!d.path().join(".run").exists(), "{bad}: staging started");
    }
}

#[test]
fn a_binary_path_outside_the_directory_is_refused_even_with_its_sha256() {
    let d = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let (mut m, victim) = setup(d.path(), outside.path());
    // A program outside, with its true sha256: the checksum alone would accept it.
    let elsewhere = outside.path().join("elsewhere");
    std::fs::copy(d.path().join("bin/seed-1/faulty"), &elsewhere).unwrap();
    m.seeds[0].binaries[0].path = elsewhere.clone();
    m.save(d.path()).unwrap();
    let run = || {
        let mut run = run_in(d.path());
        run.args(["--", "{bin}", "ok"]);
        run
    };
    insta::assert_snapshot!(refusal(&mut run(), d.path(), outside.path()));
    m.seeds[0].binaries[0].path = "../elsewhere".into();
    m.save(d.path()).unwrap();
    insta::assert_snapshot!(refusal(&mut run(), d.path(), outside.path()));
    // A relative path through a symbolic link out of the directory.
    std::fs::remove_file(d.path().join("bin/seed-1/faulty")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, d.path().join("bin/seed-1/faulty")).unwrap();
    m.seeds[0].binaries[0].path = "bin/seed-1/faulty".into();
    m.save(d.path()).unwrap();
    insta::assert_snapshot!(refusal(&mut run(), d.path(), outside.path()));
    assert!(!d.path().join(RESULTS_FILE).exists());
    assert_untouched(&victim);
}

#[test]
fn a_soname_or_variant_name_that_is_a_path_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let (mut m, victim) = setup(d.path(), outside.path());
    let mut lib = m.baseline.binaries[0].clone();
    lib.soname = Some(victim.display().to_string());
    m.baseline.libraries.push(lib);
    m.save(d.path()).unwrap();
    insta::assert_snapshot!(refusal(
        run_in(d.path()).args(["--", "{bin}", "ok"]),
        d.path(),
        outside.path()
    ));
    assert_untouched(&victim);
}

#[test]
fn planted_links_in_the_staging_directory_are_never_followed() {
    let d = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let (_, victim) = setup(d.path(), outside.path());
    // .run/stdout, .run/stderr and the write probe as links to the victim: replaced, the
    // victim neither truncated nor written.
    std::fs::create_dir_all(d.path().join(".run")).unwrap();
    for f in ["stdout", "stderr", "write-probe"] {
        std::os::unix::fs::symlink(&victim, d.path().join(".run").join(f)).unwrap();
    }
    run_in(d.path())
        .args(["--executions", "1", "--", "{bin}", "ok"])
        .assert()
        .success();
    assert_untouched(&victim);
    assert_eq!(read_results(d.path()).unwrap().executions.len(), 2);

    // .run itself (or .run/bin) a link to a directory outside: refused before any execution.
    let d = tempfile::tempdir().unwrap();
    let (_, victim) = setup(d.path(), outside.path());
    std::os::unix::fs::symlink(outside.path(), d.path().join(".run")).unwrap();
    insta::assert_snapshot!(refusal(
        run_in(d.path()).args(["--", "{bin}", "ok"]),
        d.path(),
        outside.path()
    ));
    assert!(!outside.path().join("bin").exists());
    assert!(!outside.path().join("write-probe").exists());
    assert!(!d.path().join(RESULTS_FILE).exists());
    std::fs::remove_file(d.path().join(".run")).unwrap();
    std::fs::create_dir(d.path().join(".run")).unwrap();
    std::os::unix::fs::symlink(outside.path(), d.path().join(".run/bin")).unwrap();
    insta::assert_snapshot!(refusal(
        run_in(d.path()).args(["--", "{bin}", "ok"]),
        d.path(),
        outside.path()
    ));
    assert!(!outside.path().join("faulty").exists());
    assert_untouched(&victim);
}

#[test]
fn a_symlinked_store_is_refused_and_its_target_not_appended_to() {
    let d = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let (_, victim) = setup(d.path(), outside.path());
    std::os::unix::fs::symlink(&victim, d.path().join(RESULTS_FILE)).unwrap();
    insta::assert_snapshot!(refusal(
        run_in(d.path()).args(["--resume", "--", "{bin}", "ok"]),
        d.path(),
        outside.path()
    ));
    assert_untouched(&victim);
}

/// Output directories no shell may misread: a space, `$(…)`, backquotes, quotes, globs,
/// backslashes, a `;`.
const HOSTILE: &[&str] = &[
    "with space",
    "$(touch PWNED)",
    "`touch PWNED`",
    "it's",
    "q\"uote",
    "g*?[ab]",
    "back\\slash",
    "a;touch PWNED",
];

#[test]
fn hostile_output_paths_work_through_run_and_report_and_execute_nothing() {
    let top = tempfile::tempdir().unwrap();
    for name in HOSTILE {
        let d = top.path().join(name);
        std::fs::create_dir(&d).unwrap();
        same_binary_experiment(&d, "faulty", "faulty.c", 1);
        // {bin} inside a shell script, bare and in double quotes; and as a whole word.
        for script in ["{bin} ok", "\"{bin}\" ok"] {
            let _ = std::fs::remove_file(d.join(RESULTS_FILE));
            run_in(&d)
                .current_dir(top.path())
                .args(["--executions", "2", "--", "sh", "-c", script])
                .assert()
                .success();
            let r = read_results(&d).unwrap();
            assert_eq!(r.executions.len(), 4, "{name}: {script}");
            assert!(
                r.executions.iter().all(|e| e.exit_code == Some(0)),
                "{name}: {script}: {:?}",
                r.executions
            );
        }
        layoutrand()
            .current_dir(top.path())
            .arg("report")
            .arg(&d)
            .assert()
            .success();
        assert!(!top.path().join("PWNED").exists(), "{name}: executed");
        assert!(!d.join("PWNED").exists(), "{name}: executed");
    }
}

use crate::build_support;

#[test]
fn hostile_output_paths_work_through_build_run_and_report() {
    // Spaces, `$(…)`, quotes and `;` are fine everywhere, the build included.
    let (_tmp, src) = build_support::fixture("multimodule");
    let out = src.parent().unwrap().join("o ut $(touch PWNED) it's;x");
    let built = build_support::build(
        &src,
        &["--seeds", "1", "--out", out.to_str().unwrap()],
        &["make"],
    );
    build_support::assert_success(&built, "build into a hostile --out");
    run_in(&out)
        .current_dir(&src)
        .args(["--executions", "1", "--", "sh", "-c", "{bin} > /dev/null"])
        .assert()
        .success();
    let r = read_results(&out).unwrap();
    assert!(r.executions.iter().all(|e| e.exit_code == Some(0)), "{r:?}");
    layoutrand().arg("report").arg(&out).assert().success();
    assert!(!src.join("PWNED").exists() && !out.join("PWNED").exists());
}

#[test]
fn an_output_path_the_linker_scripts_cannot_spell_is_refused_before_the_build() {
    let (_tmp, src) = build_support::fixture("multimodule");
    for bad in ["g*lob", "q\"uote", "back\\slash", "br[ack]et"] {
        let out = src.parent().unwrap().join(bad);
        let built = build_support::build(
            &src,
            &["--seeds", "1", "--out", out.to_str().unwrap()],
            &["sh", "-c", "touch BUILD-RAN; make"],
        );
        assert_eq!(built.status.code(), Some(2), "{bad}");
        // Pinned whole, one snapshot for each name, in the order above.
        insta::assert_snapshot!(stderr_in(&built, src.parent().unwrap()));
        assert!(
            !src.join("BUILD-RAN").exists(),
            "{bad}: the build ran first"
        );
        assert!(!out.exists(), "{bad}: the output directory was created");
    }
}

#[test]
fn an_experiment_name_that_is_a_path_is_refused_before_any_build() {
    let d = tempfile::tempdir().unwrap();
    for name in ["../../../../tmp/evil", "a/b", "..", ""] {
        let file = d.path().join("e.toml");
        std::fs::write(
            &file,
            format!(
                "name = {name:?}\n[build]\ncommand = [\"sh\", \"-c\", \"touch BUILD-RAN\"]\n\
                 [run]\ncommand = [\"{{bin}}\"]\n"
            ),
        )
        .unwrap();
        let out = layoutrand()
            .current_dir(d.path())
            .arg("experiment")
            .arg(&file)
            .assert()
            .code(2);
        // Pinned whole, one snapshot for each name, in the order above.
        insta::assert_snapshot!(stderr_in(out.get_output(), d.path()));
        assert!(
            !d.path().join("BUILD-RAN").exists(),
            "{name}: the build ran"
        );
        assert!(
            !d.path().join("layoutrand-out").exists(),
            "{name}: a directory was made"
        );
    }
}
