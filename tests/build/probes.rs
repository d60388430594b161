//! Links whose output the build deletes again (configure-style probes, as in zstd's Makefile)
//! are not programs: they are left out of the build instead of failing every seed (a probe's
//! single function cannot move).

use crate::experiment_support;

use experiment_support::*;
use layoutrand::files::manifest::{BuildStatus, Manifest};

#[test]
fn probe_links_deleted_by_the_build_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let src = demo_sources(dir.path());
    let makefile = std::fs::read_to_string(src.join("Makefile")).unwrap();
    // zstd's form: write a source, compile and link it, delete the program.
    let probe = "probe:\n\tprintf 'int main(void){return 0;}\\n' > have_nothing.c && $(CC) -o have_nothing have_nothing.c && rm have_nothing; rm -f have_nothing.c\n\n";
    std::fs::write(
        src.join("Makefile"),
        makefile.replace("demo: $(OBJS)", &format!("{probe}demo: probe $(OBJS)")),
    )
    .unwrap();
    let out = dir.path().join("out");
    let output = layoutrand()
        .current_dir(&src)
        .args(["build", "-q", "--seeds", "3", "--out"])
        .arg(&out)
        .args(["--", "make", "-j2", "demo"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", describe(&output));
    // Its note, pinned whole, names the probe left out.
    insta::assert_snapshot!(crate::snapshot_support::stderr_in(&output, dir.path()));
    let manifest = Manifest::load(&out).unwrap();
    for v in manifest.binary_sets() {
        assert_eq!(v.status, BuildStatus::Ok, "{:?}", v.error);
        let names: Vec<&str> = v.binaries.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["demo"], "{}", v.label());
    }
    // The decision is kept with the recording: extending does not bring the probe back.
    let output = layoutrand()
        .current_dir(&src)
        .args(["build", "-q", "--extend", "--seeds", "4", "--out"])
        .arg(&out)
        .args(["--", "make", "-j2", "demo"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", describe(&output));
    assert_eq!(Manifest::load(&out).unwrap().seeds.len(), 4);
}
