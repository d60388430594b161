//! Shared set-up of the `run` tests: compile the C fixtures in fixtures/run with the real gcc
//! and lay them out as an experiment directory with a manifest, as `layoutrand build` would.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use layoutrand::files::manifest::{
    binary_label, Binary, BinarySet, BuildMode, BuildStatus, Granularity, Manifest, MANIFEST_SCHEMA,
};

/// fixtures/run/NAME.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/run")
        .join(name)
}

/// Compiles `sources` (fixture names or object paths) with `flags` into `out`.
pub fn gcc(out: &Path, sources: &[PathBuf], flags: &[&str]) {
    let status = Command::new("gcc")
        .args(flags)
        .arg("-o")
        .arg(out)
        .args(sources)
        .status()
        .expect("gcc runs");
    assert!(status.success(), "gcc {flags:?} {sources:?} failed");
}

/// Compiles one fixture to an object file in `dir`.
pub fn object(dir: &Path, source: &str, flags: &[&str]) -> PathBuf {
    let out = dir.join(source.replace(".c", ".o"));
    let status = Command::new("gcc")
        .args(flags)
        .arg("-c")
        .arg("-o")
        .arg(&out)
        .arg(fixture(source))
        .status()
        .expect("gcc runs");
    assert!(status.success());
    out
}

/// The baseline or one seed of a test experiment: its seed (`None` = baseline) and its binaries by name.
pub type TestBinarySet<'a> = (Option<u64>, Vec<(&'a str, PathBuf)>);

/// An experiment directory: one baseline or seed per entry of `sets` (`None` = baseline, then
/// seeds), each with binaries by program name, copied to `DIR/bin/<label>/<name>`.
pub fn experiment(dir: &Path, sets: &[TestBinarySet]) -> Manifest {
    let mut built = Vec::new();
    for (seed, binaries) in sets {
        let label = binary_label(*seed);
        let mut bins = Vec::new();
        for (name, src) in binaries {
            let rel = PathBuf::from("bin").join(&label).join(name);
            std::fs::create_dir_all(dir.join(rel.parent().unwrap())).unwrap();
            std::fs::copy(src, dir.join(&rel)).unwrap();
            bins.push(Binary {
                name: name.to_string(),
                sha256: layoutrand::files::manifest::sha256_of_file(&dir.join(&rel)).unwrap(),
                path: rel,
                fingerprint: String::new(),
                functions: 0,
                ..Default::default()
            });
        }
        built.push(BinarySet {
            seed: *seed,
            kind: None,
            status: BuildStatus::Ok,
            error: None,
            binaries: bins,
            libraries: Vec::new(),
        });
    }
    let mut sets_iter = built.into_iter();
    let manifest = Manifest {
        schema: MANIFEST_SCHEMA,
        tool_version: "test".into(),
        toolchain: BTreeMap::from([("cc".to_string(), "gcc (test fixture)".to_string())]),
        build_command: vec!["gcc".into()],
        build_dir: dir.to_path_buf(),
        mode: BuildMode::Relink,
        granularity: Granularity::Link,
        pad: 0,
        data_order: false,
        strip_debug: false,
        pin: None,
        linker: "bfd".into(),
        mechanisms: Vec::new(),
        recorded_mechanism: None,
        recorded_build_seconds: 0.0,
        relink_seconds: 0.0,
        total_seconds: None,
        baseline: sets_iter.next().expect("a baseline"),
        seeds: sets_iter.collect(),
        as_built: None,
        programs: Vec::new(),
        variants: Vec::new(),
    };
    manifest.save(dir).unwrap();
    manifest
}

/// An experiment of `seeds` + 1 binaries of one fixture program `name` (the same binary
/// each time: enough when the test is about the runner, not about layouts).
pub fn same_binary_experiment(dir: &Path, name: &str, source: &str, seeds: u64) -> Manifest {
    let build = dir.join("build");
    std::fs::create_dir_all(&build).unwrap();
    let exe = build.join(name);
    gcc(&exe, &[fixture(source)], &["-O1"]);
    let mut sets = vec![(None, vec![(name, exe.clone())])];
    for s in 1..=seeds {
        sets.push((Some(s), vec![(name, exe.clone())]));
    }
    experiment(dir, &sets)
}

/// The `layoutrand` executable under test.
pub fn layoutrand() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("layoutrand").unwrap()
}

/// `layoutrand build --seeds SEEDS --out OUT -- make` in the source tree `src`, which must
/// succeed (its standard error is shown otherwise).
pub fn build_with_make(src: &Path, out: &Path, seeds: u32) {
    let build = layoutrand()
        .current_dir(src)
        .args(["build", "--seeds", &seeds.to_string(), "--out"])
        .arg(out)
        .args(["--", "make"])
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "layoutrand build failed:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
}

/// `layoutrand run --out OUT`, for the caller to add the rest.
pub fn run_in(out: impl AsRef<std::ffi::OsStr>) -> assert_cmd::Command {
    let mut c = layoutrand();
    c.args(["run", "--out"]).arg(out);
    c
}

/// A small tmpfs (2 MiB) mounted at `dir/small` for a full-disk test (needs root), unmounted
/// however the test ends.
pub struct SmallTmpfs(pub PathBuf);

impl SmallTmpfs {
    pub fn mount(dir: &Path) -> SmallTmpfs {
        let mnt = dir.join("small");
        std::fs::create_dir(&mnt).unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
            .arg(&mnt)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            mounted,
            "cannot mount a small tmpfs here (needs CAP_SYS_ADMIN): run this test as root"
        );
        SmallTmpfs(mnt)
    }
}

impl Drop for SmallTmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Sends `signal` to `child` (a runner the test started, stderr piped) and waits at most
/// `limit` for it to end; its output.
pub fn signal_and_wait(
    mut child: std::process::Child,
    signal: i32,
    limit: std::time::Duration,
) -> std::process::Output {
    // SAFETY: kill(2) on a process the test started and has not reaped.
    unsafe { libc::kill(child.id() as i32, signal) };
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < limit, "the runner did not stop");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}
