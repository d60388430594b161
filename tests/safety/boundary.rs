//! Attacks 1–3 of issue 54 on the trust boundary: where a path did its own thing, a received
//! directory could still make layoutrand run its store header's command unasked, or write
//! (MACs, a whole variant's build) outside the directory through a planted link. Each is
//! refused with a message naming the file, line or link, and nothing runs or is written.

use crate::planted::refused_by;
use crate::trust::own_run;
use crate::{build_support, run_support};

use std::path::Path;

use crate::in_dir;
use crate::snapshot_support::redact;
use layoutrand::files::store::RESULTS_FILE;
use run_support::*;

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// Attack 1: a blank line before a received store's header. The MAC check used to read the
/// blank first line as "no store" while the reader took the header from line 2: `run
/// --resume` and `explain` ran its command with no prompt and `trust` called the directory
/// "already your own". Now every reader and the MAC check take the header from line 1 only:
/// the store is damaged, refused naming file and line, with MACs removed or left. Without the
/// blank line the same header is refused as received, and runs once trusted (so the command
/// would have run).
#[test]
fn a_blank_line_before_the_header_is_a_damaged_store_for_every_command() {
    for keep_macs in [false, true] {
        let d = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let marker = outside.path().join("PWNED-by-header");
        own_run(d.path());
        let store = d.path().join(RESULTS_FILE);
        let text = std::fs::read_to_string(&store).unwrap();
        let (first, rest) = text.split_once('\n').unwrap();
        let mut header: serde_json::Value = serde_json::from_str(first).unwrap();
        header["executions"] = 3.into();
        header["command"] = serde_json::json!([
            "sh",
            "-c",
            format!("touch '{}'; {{bin}} ok", marker.display())
        ]);
        let evil = format!("{header}\n{rest}");
        if !keep_macs {
            for mac in ["manifest.json.mac", "results.jsonl.mac"] {
                std::fs::remove_file(d.path().join(mac)).unwrap();
            }
        }
        std::fs::write(&store, format!("\n{evil}")).unwrap();
        let macs_before = names(d.path());
        // What each command says (standard output and error, `dir` written `[dir]` and
        // `outside` `[outside]`), one after the other, pinned whole for each `keep_macs`:
        // the store named with its line 1, and never "already your own".
        let said = |out: &std::process::Output| {
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            in_dir(
                &in_dir(&text, outside.path()).replace("[dir]", "[outside]"),
                d.path(),
            )
        };
        let mut transcript = String::new();
        for args in [
            &["run", "--resume", "--out"][..],
            &["run", "--resume", "--trust", "--out"],
            &["explain"],
            &["explain", "--trust"],
            &["trust"],
        ] {
            let out = layoutrand().args(args).arg(d.path()).assert().code(2);
            transcript += &format!("$ layoutrand {} [dir]\n", args.join(" "));
            transcript += &said(out.get_output());
            assert!(!marker.exists(), "{args:?} ran the header's command");
            assert_eq!(names(d.path()), macs_before, "{args:?} wrote a file");
        }
        // The report commands refuse it alike: one rule for every reader.
        for command in ["report", "export"] {
            let out = layoutrand().arg(command).arg(d.path()).assert().code(2);
            transcript += &format!("$ layoutrand {command} [dir]\n");
            transcript += &said(out.get_output());
        }

        // The control: the same header on line 1 is received, shown, and runs once trusted.
        std::fs::write(&store, &evil).unwrap();
        let out = run_in(d.path()).args(["--resume"]).assert().code(2);
        transcript += "$ layoutrand run --resume --out [dir] (the header on line 1)\n";
        transcript += &said(out.get_output());
        insta::assert_snapshot!(transcript);
        assert!(!marker.exists());
        run_in(d.path())
            .args(["--resume", "--trust"])
            .assert()
            .success();
        assert!(marker.exists(), "the control's command did not run");
    }
}

/// Attack 2: `trust` (and `--trust`) wrote `.mac` files into the target of a planted `slurm`
/// or `.record/links` link. Every part is now read and signed through the confined
/// directory: the link is refused, named, and nothing is written outside.
#[test]
fn trust_signs_nothing_through_a_planted_link() {
    let d = tempfile::tempdir().unwrap();
    own_run(d.path());
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("plan.json"), "{}").unwrap();
    std::fs::write(outside.path().join("evil.json"), "{}").unwrap();
    std::fs::create_dir(d.path().join(".record")).unwrap();
    for planted in ["slurm", ".record/links"] {
        let at = d.path().join(planted);
        std::os::unix::fs::symlink(outside.path(), &at).unwrap();
        let out = layoutrand().arg("trust").arg(d.path()).output().unwrap();
        refused_by(out, &at, "is a symbolic link");
        assert_eq!(names(outside.path()), ["evil.json", "plan.json"]);
        std::fs::remove_file(&at).unwrap();
    }
    // `run --slurm --resume --trust` reads and would adopt the plan: refused alike.
    std::os::unix::fs::symlink(outside.path(), d.path().join("slurm")).unwrap();
    let out = run_in(d.path())
        .args(["--slurm", "--dry-run", "--resume", "--trust"])
        .output()
        .unwrap();
    refused_by(out, &d.path().join("slurm"), "is a symbolic link");
    assert_eq!(names(outside.path()), ["evil.json", "plan.json"]);

    // `build --extend --trust` on a recording whose `links` folder was moved outside and
    // linked back: refused, the folder outside gains no MAC and no record.
    let root = tempfile::tempdir().unwrap();
    let built = root.path().join("out");
    let (_tmp, src) = crate::attacks::multimodule_built(&built, "1");
    let links = built.join(".record/links");
    let moved = outside.path().join("links");
    std::fs::rename(&links, &moved).unwrap();
    std::os::unix::fs::symlink(&moved, &links).unwrap();
    let before = names(&moved);
    for mac in before.iter().filter(|n| n.ends_with(".mac")) {
        std::fs::remove_file(moved.join(mac)).unwrap();
    }
    let before = names(&moved);
    let out = build_support::build(
        &src,
        &[
            "--extend",
            "--trust",
            "--seeds",
            "2",
            "--out",
            built.to_str().unwrap(),
        ],
        &[],
    );
    refused_by(out, &links, "is a symbolic link");
    assert_eq!(names(&moved), before, "written through the link");
}

/// Attack 3: `build --variant NAME` followed a planted `DIR/NAME` link and built the whole
/// variant outside; `--extend --trust` then extended it there. The variant's folder is taken
/// from one place that refuses a link: both are refused, naming it, and nothing is written
/// outside.
#[test]
fn a_planted_variant_link_is_neither_built_nor_extended() {
    let (_tmp, src) = build_support::fixture("multimodule");
    let out = src.join("out");
    let out_arg = out.to_str().unwrap();
    build_support::assert_success(
        &build_support::build(
            &src,
            &["--variant", "A", "--seeds", "1", "--out", out_arg],
            &["make"],
        ),
        "variant A",
    );
    let outside = tempfile::tempdir().unwrap();
    let planted = out.join("B");
    std::os::unix::fs::symlink(outside.path(), &planted).unwrap();
    let clean = ["sh", "-c", "make clean >/dev/null && make"];
    let out_b = build_support::build(
        &src,
        &["--variant", "B", "--seeds", "1", "--out", out_arg],
        &clean,
    );
    refused_by(out_b, &planted, "is a symbolic link");
    assert!(names(outside.path()).is_empty(), "built outside");

    // Variant A moved outside and linked back: `--extend --trust` extends nothing there.
    let moved = outside.path().join("A");
    std::fs::rename(out.join("A"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, out.join("A")).unwrap();
    let before = names(&moved);
    let extended = build_support::build(
        &src,
        &[
            "--variant",
            "A",
            "--extend",
            "--trust",
            "--seeds",
            "2",
            "--out",
            out_arg,
        ],
        &[],
    );
    refused_by(extended, &out.join("A"), "is a symbolic link");
    assert_eq!(names(&moved), before, "extended outside");
}

/// A program that creates `marker` when it runs, laid out in `dir` as an experiment of a
/// baseline and one seed (the same binary), run once: the user's own directory.
fn own_toucher_run(dir: &Path, marker: &Path) {
    let src = dir.join("toucher.c");
    std::fs::write(
        &src,
        "#include <fcntl.h>\n#include <unistd.h>\nint main(void) {\n  int fd = open(MARKER, \
         O_CREAT | O_WRONLY, 0644);\n  if (fd >= 0) close(fd);\n  return 0;\n}\n",
    )
    .unwrap();
    let exe = dir.join("toucher");
    let define = format!("-DMARKER=\"{}\"", marker.display());
    gcc(&exe, &[src], &["-O1", &define]);
    experiment(
        dir,
        &[
            (None, vec![("toucher", exe.clone())]),
            (Some(1), vec![("toucher", exe)]),
        ],
    );
    run_in(dir)
        .args(["--executions", "2", "--", "{bin}"])
        .assert()
        .success();
    assert!(marker.exists(), "the control: the program did not run");
    std::fs::remove_file(marker).unwrap();
}

/// Attack 4: `explain` ran binaries that `run` refuses: a baseline linked to a program
/// outside DIR (the same bytes), a binary whose SHA-256 no longer matches the manifest; and a
/// FIFO in place of a binary hung it. It now checks each binary it reads or runs with run's
/// own function (`run::targets::verified_binary`) before the first runs: each is refused,
/// named, nothing runs, and it does not hang. (`run` refusing each is tested with its own
/// inputs, `tests/safety/paths.rs` and `tests/run/bad_input.rs`.)
#[test]
fn explain_checks_every_binary_as_run_does() {
    let d = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("PWNED-by-binary");
    own_toucher_run(d.path(), &marker);
    let explain = || {
        layoutrand()
            .arg("explain")
            .arg(d.path())
            .timeout(std::time::Duration::from_secs(120))
            .output()
            .unwrap()
    };
    for rel in ["bin/baseline/toucher", "bin/seed-1/toucher"] {
        let file = d.path().join(rel);
        let kept = std::fs::read(&file).unwrap();
        // The same program outside, linked in: its hash matches, its place does not.
        let copy = outside.path().join("toucher");
        std::fs::copy(&file, &copy).unwrap();
        std::fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(&copy, &file).unwrap();
        {
            let out = explain();
            refused_by(out, &file, "leads outside");
            assert!(!marker.exists(), "{rel}: the program outside ran");
        }
        std::fs::remove_file(&file).unwrap();

        // Replaced in place by a program that still runs (one byte more): another hash.
        let mut changed = kept.clone();
        changed.push(0);
        std::fs::write(&file, &changed).unwrap();
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        {
            let out = explain();
            let stderr = refused_by(out, &file, "is not the binary `layoutrand build` made");
            // The refusal, pinned whole (with the hashes, which depend on the compiler).
            insta::assert_snapshot!(redact(
                &in_dir(&stderr, d.path()),
                &[(r"\b[0-9a-f]{64}\b", "[sha256]")]
            ));
            assert!(!marker.exists(), "{rel}: the replaced program ran");
        }
        std::fs::remove_file(&file).unwrap();

        // A FIFO: refused without being opened (the timeout fails a hang).
        nix::unistd::mkfifo(&file, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        {
            let out = explain();
            refused_by(out, &file, "is not a file");
        }
        std::fs::remove_file(&file).unwrap();
        std::fs::write(&file, &kept).unwrap();
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }
    assert!(!marker.exists());
}
