//! `run --data-seeds` preloads a heap-offset library into every execution: it is built by
//! layoutrand into the user's private cache, never taken from the experiment directory
//! (docs/run.md, "Trust and safety"), so a library planted there is never loaded.

use crate::run_support::*;

use layoutrand::files::store::{read_results, ExecutionStatus};

#[test]
fn a_planted_heap_library_is_not_loaded() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let cache = root.path().join("cache");
    let marker = root.path().join("planted-library-ran");
    same_binary_experiment(&out, "stack", "stack.c", 1);
    // A library whose constructor leaves a marker, planted under the names and in the places
    // a careless implementation would look: the directory, its staging and library folders.
    let source = root.path().join("planted.c");
    std::fs::write(
        &source,
        format!(
            "#include <stdio.h>\n__attribute__((constructor)) static void planted(void) {{ \
             FILE *f = fopen(\"{}\", \"w\"); if (f) fclose(f); }}\n",
            marker.display()
        ),
    )
    .unwrap();
    let planted = root.path().join("planted.so");
    gcc(&planted, &[source], &["-shared", "-fPIC"]);
    for dir in [out.clone(), out.join(".run"), out.join(".run/lib")] {
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["libheapoffset.so", "heap_offset.so"] {
            std::fs::copy(&planted, dir.join(name)).unwrap();
        }
    }
    let assert = run_in(&out)
        .env("XDG_CACHE_HOME", &cache)
        .args([
            "--data-seeds",
            "2",
            "--executions",
            "1",
            "--schedule-seed",
            "1",
        ])
        .args(["--metric", r"regex:stack (\d+)", "--", "{bin}"])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr);
    assert!(!marker.exists(), "the planted library ran: {stderr}");
    let r = read_results(&out).unwrap();
    assert_eq!(r.executions.len(), 4);
    assert!(r.executions.iter().all(|e| e.status == ExecutionStatus::Ok
        && e.data_seed.is_some()
        && e.heap_offset.is_some()));
    // The library that was preloaded is layoutrand's, in the private cache.
    let built: Vec<_> = walkdir::WalkDir::new(&cache)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "libheapoffset.so")
        .collect();
    assert_eq!(built.len(), 1, "{built:?}");
    let dir = built[0].path().parent().unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
}

/// Issue 54, attack 7: `XDG_CACHE_HOME` pointing into the experiment directory would let a
/// received directory supply the library (with the hash beside it that vouches for it):
/// the run refuses before any execution, saying why, and nothing in the store ran.
#[test]
fn a_cache_inside_the_experiment_directory_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    same_binary_experiment(&out, "stack", "stack.c", 1);
    for cache in [out.join("cache"), out.clone()] {
        run_in(&out)
            .env("XDG_CACHE_HOME", &cache)
            .args(["--data-seeds", "2", "--executions", "1"])
            .args(["--schedule-seed", "1"])
            .args(["--metric", r"regex:stack (\d+)", "--", "{bin}"])
            .assert()
            .failure()
            .stderr(predicates::str::contains(
                "lies inside the experiment directory",
            ));
        assert!(
            read_results(&out).map_or(true, |r| r.executions.is_empty()),
            "an execution ran"
        );
    }
}
