//! The parsers of an experiment directory's files on arbitrary input: the manifest, the store
//! (results.jsonl) and the experiment file never panic, and a manifest that loads never
//! yields a path outside its directory.

use crate::run_support;

use std::path::{Component, Path};

use layoutrand::experiment::config::ExperimentConfig;
use layoutrand::files::manifest::Manifest;
use layoutrand::files::store::parse_results;
use proptest::prelude::*;

/// Names and paths a hostile manifest might hold, mixed with ordinary ones.
fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("demo".to_string()),
        Just("..".to_string()),
        Just(".".to_string()),
        Just(String::new()),
        Just("/etc/passwd".to_string()),
        Just("../../victim".to_string()),
        Just("bin/seed-1/demo".to_string()),
        Just("a/./b".to_string()),
        "[a-z./\\\\\\x00-\\x1f ]{0,12}",
        any::<String>(),
    ]
}

/// True when `path` joined to a directory stays lexically inside it.
fn stays_inside(path: &Path) -> bool {
    !path.as_os_str().is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)))
}

fn assert_confined(m: &Manifest) {
    for (_, build) in m.variant_builds() {
        for set in build.binary_sets() {
            for b in set.all() {
                assert!(stays_inside(&b.path), "{:?}", b.path);
                assert!(
                    stays_inside(Path::new(&b.name)) && !b.name.contains('/'),
                    "{:?}",
                    b.name
                );
                if let Some(s) = &b.soname {
                    assert!(!s.contains('/') && s != ".." && s != "." && !s.is_empty());
                }
            }
        }
    }
    for v in &m.variants {
        assert!(!v.name.contains('/') && v.name != ".." && !v.name.is_empty());
    }
}

/// A valid manifest (from the `run` tests' helper), as JSON.
fn valid_manifest_json() -> serde_json::Value {
    let d = tempfile::tempdir().unwrap();
    let build = d.path().join("exe");
    std::fs::write(&build, b"not really a program").unwrap();
    let m = run_support::experiment(
        d.path(),
        &[
            (None, vec![("demo", build.clone())]),
            (Some(1), vec![("demo", build)]),
        ],
    );
    serde_json::to_value(m).unwrap()
}

fn load_manifest(bytes: &[u8]) -> Result<Manifest, anyhow::Error> {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("manifest.json"), bytes).unwrap();
    Manifest::load(d.path())
}

proptest! {
    // Seeded: the same cases on every run (the project allows no unseeded randomness).
    #![proptest_config(ProptestConfig {
        cases: 200,
        rng_seed: proptest::test_runner::RngSeed::Fixed(22),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_manifest_parser_survives_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(m) = load_manifest(&bytes) {
            assert_confined(&m);
        }
    }

    #[test]
    fn a_manifest_that_loads_never_leads_outside(
        name in hostile_text(),
        path in hostile_text(),
        soname in proptest::option::of(hostile_text()),
        which in 0usize..2,
    ) {
        let mut json = valid_manifest_json();
        let set = if which == 0 { &mut json["baseline"] } else { &mut json["seeds"][0] };
        set["binaries"][0]["name"] = name.clone().into();
        set["binaries"][0]["path"] = path.clone().into();
        if let Some(s) = &soname {
            set["binaries"][0]["soname"] = s.clone().into();
        }
        let loaded = load_manifest(serde_json::to_string(&json).unwrap().as_bytes());
        match loaded {
            Ok(m) => assert_confined(&m),
            Err(e) => prop_assert!(format!("{e:#}").contains("manifest.json"), "{e:#}"),
        }
    }

    #[test]
    fn the_store_reader_survives_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = parse_results(&bytes, Path::new("results.jsonl"));
    }

    #[test]
    fn the_store_reader_survives_spliced_and_cut_records(
        cut in 0usize..2000,
        insert in proptest::collection::vec(any::<u8>(), 0..40),
        at in 0usize..2000,
    ) {
        let header = r#"{"record":"header","schema":2,"tool_version":"0.1.0","command":["{bin}"],"programs":["p"],"binaries":["baseline"],"metric":"wall","executions":2,"iterations":1,"warmup":0,"env_pad_max":4096,"schedule_seed":7,"timeout_seconds":null,"aslr_disabled":true,"host":{"cpu_model":null,"kernel":null,"cores":null,"governor":null,"hostname":null},"started_unix":0.0}"#;
        let m = r#"{"record":"measurement","program":"p","binary":"baseline","seed":null,"execution":0,"iteration":0,"warmup":false,"metric":"wall","value":5.0,"unit":"ns"}"#;
        let e = r#"{"record":"execution","program":"p","binary":"baseline","seed":null,"execution":0,"schedule_index":0,"env_pad":0,"start_unix":0.0,"wall_ns":1,"status":"ok","exit_code":0,"signal":null}"#;
        let mut bytes = format!("{header}\n{m}\n{e}\n{m}\n{e}\n").into_bytes();
        bytes.truncate(cut.min(bytes.len()));
        let at = at.min(bytes.len());
        bytes.splice(at..at, insert);
        let _ = parse_results(&bytes, Path::new("results.jsonl"));
    }

    #[test]
    fn the_experiment_file_parser_survives_arbitrary_text(text in any::<String>(), name in hostile_text()) {
        let d = tempfile::tempdir().unwrap();
        for body in [text.clone(), format!("name = {name:?}\n[build]\ncommand = [\"make\"]\n[run]\ncommand = [\"{{bin}}\"]\n")] {
            let file = d.path().join("e.toml");
            std::fs::write(&file, &body).unwrap();
            if let Ok(config) = ExperimentConfig::load(&file) {
                if config.validate().is_ok() && config.out.is_none() {
                    let out = config.out_dir();
                    prop_assert!(stays_inside(&out), "{out:?}");
                }
            }
        }
    }
}
