//! `linker-wrappers/layoutrand-launch`: a build that calls its compiler by absolute path (as
//! CMake does) is recorded through the launcher script and relinked per seed.

use crate::experiment_support;

use experiment_support::*;
use layoutrand::files::manifest::{BuildStatus, Manifest};

#[test]
fn absolute_compiler_paths_are_recorded_through_the_launcher_script() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::write(
        src.join("a.c"),
        "int f1(int x){return x*3+1;}\nint f2(int x){return x^7;}\nint f3(int x){return x-2;}\n",
    )
    .unwrap();
    std::fs::write(
        src.join("b.c"),
        "#include <stdio.h>\nint f1(int);int f2(int);int f3(int);\nint g(int x){return f1(f2(f3(x)));}\nint main(void){printf(\"%d\\n\", g(5));return 0;}\n",
    )
    .unwrap();
    let gcc = which("gcc");
    std::fs::write(
        src.join("Makefile"),
        format!("prog: a.c b.c\n\t$(LAUNCHER) {gcc} -O1 -o prog a.c b.c\n"),
    )
    .unwrap();
    let script = repo().join("linker-wrappers/layoutrand-launch");
    let out = src.join("out");
    let output = layoutrand()
        .current_dir(src)
        .env("LAYOUTRAND", assert_cmd::cargo::cargo_bin("layoutrand"))
        .args(["build", "-q", "--seeds", "3", "--out"])
        .arg(&out)
        .arg("--")
        .arg("make")
        .arg(format!("LAUNCHER={}", script.display()))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", describe(&output));
    let manifest = Manifest::load(&out).unwrap();
    assert!(manifest.seeds.iter().all(|v| v.status == BuildStatus::Ok));
    for v in manifest.binary_sets() {
        let run = std::process::Command::new(out.join(&v.binaries[0].path))
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&run.stdout),
            "13\n",
            "{}",
            v.label()
        );
    }
}

fn which(tool: &str) -> String {
    let o = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .unwrap();
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}
