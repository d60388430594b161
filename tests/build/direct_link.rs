//! The final links run the linker directly, with the command the compiler driver would give
//! it, once a link through the driver and the same link run directly wrote the same bytes;
//! else through the driver. Either way every binary is the same, byte for byte.

use crate::build_support;

use std::path::{Path, PathBuf};

use build_support::{assert_success, build, fixture};
use layoutrand::files::manifest::Manifest;

/// Every binary of the build at `out` (the baseline, the build's own, the seeds), as bytes.
fn binaries(out: &Path) -> Vec<(Option<u64>, Vec<u8>)> {
    let m = Manifest::load(out).unwrap();
    m.binary_sets()
        .map(|set| {
            let path: PathBuf = out.join(&set.find("calc").unwrap().path);
            (set.seed, std::fs::read(path).unwrap())
        })
        .collect()
}

/// The archive fixture (an archive whose members each seed rewrites) built twice with three
/// seeds: as it is, where gcc's `collect2` would run `ld.bfd`, so the relinks call it
/// directly; and with `-B DIR` holding a `real-ld` (a link to ld.bfd), which collect2 would
/// prefer, so the relinks keep the driver. The manifests say which; the baselines and the
/// seeds (and the build's own binaries) are the same bytes in both builds.
#[test]
fn links_run_directly_write_what_the_driver_writes() {
    let (_direct_tmp, direct_dir) = fixture("archive");
    assert_success(
        &build(&direct_dir, &["--seeds", "3", "--out", "out"], &["make"]),
        "direct",
    );
    let (driver_tmp, driver_dir) = fixture("archive");
    let prefix = driver_tmp.path().join("prefix");
    std::fs::create_dir(&prefix).unwrap();
    std::os::unix::fs::symlink(which("ld.bfd"), prefix.join("real-ld")).unwrap();
    let cc = format!("CC=gcc -B{}/", prefix.display());
    assert_success(
        &build(
            &driver_dir,
            &["--seeds", "3", "--out", "out"],
            &["make", &cc],
        ),
        "through the driver",
    );
    let direct = |dir: &Path| {
        let m = Manifest::load(&dir.join("out")).unwrap();
        m.mechanisms.iter().map(|r| r.direct).collect::<Vec<_>>()
    };
    assert_eq!(direct(&direct_dir), [true]);
    assert_eq!(direct(&driver_dir), [false]);
    let (a, b) = (
        binaries(&direct_dir.join("out")),
        binaries(&driver_dir.join("out")),
    );
    assert_eq!(a.len(), 5);
    for ((seed, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "seed {seed:?}: other bytes than through the driver");
    }
    // The seeds are other layouts: the comparison could fail.
    let seeds: Vec<&Vec<u8>> = a
        .iter()
        .filter(|(s, _)| s.is_some())
        .map(|(_, b)| b)
        .collect();
    assert!(seeds.len() == 3 && seeds[0] != seeds[1] && seeds[1] != seeds[2]);
}

fn which(program: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .unwrap()
}
