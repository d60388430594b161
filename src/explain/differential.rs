//! The differential profile (issue 49): every randomised binary run once more under
//! cachegrind with the run's own command, working directory, environment, staged libraries
//! and cache model, and each function's own count of the explained metric read from its
//! output. `crate::analysis::explain_differential` says where the variation went.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::analysis::answers::experiment::Experiment;
use crate::analysis::answers::series::Series;
use crate::files::cache_model::CacheModel;
use crate::files::manifest::{BinarySet, Manifest};

/// Whether `metric` is one cachegrind counts per function (a raw event or one derived from
/// them): only then does a function's own share of it exist.
pub(crate) fn per_function_metric(exp: &Experiment, metric: &str) -> bool {
    exp.header.metric == "cachegrind"
        && (crate::files::metric::CACHEGRIND_DERIVED.contains(&metric)
            || metric.chars().all(|c| c.is_ascii_alphanumeric())
                && metric
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_uppercase()))
}

/// What one profiled binary needs beyond the experiment: its set, and where its files go.
struct Job<'a> {
    set: &'a BinarySet,
    scratch_rel: PathBuf,
    /// Its place in the series' binaries.
    at: usize,
}

/// Each randomised binary of `series` (in its order) profiled once under cachegrind: per
/// function, its own value of `metric`. The profile the run kept of the binary
/// ([`crate::run::metric::profile_path`]) is read when there is one; the others are profiled
/// now, their output files in `out_rel/differential/` (one folder per binary), `jobs` at
/// once.
pub(crate) fn profile_binaries(
    exp: &Experiment,
    manifest: &Manifest,
    out_rel: &Path,
    series: &Series,
    metric: &str,
    jobs: usize,
) -> Result<Vec<BTreeMap<String, f64>>> {
    let dir = &exp.dir;
    let root = crate::files::confined::ExperimentDir::open(dir)?;
    let base_rel = out_rel.join("differential");
    root.remove_dir_all(&base_rel)
        .with_context(|| format!("cannot clear {}", dir.join(&base_rel).display()))?;
    let mut work = Vec::new();
    let mut kept = Vec::new();
    for b in &series.seeds {
        let profile = kept_profile(&root, series, &b.binary, metric)?;
        kept.push(profile);
        if kept.last().is_some_and(Option::is_some) {
            continue;
        }
        let set = manifest
            .binary_sets()
            .find(|s| s.seed == b.seed && s.kind.is_none())
            .with_context(|| format!("the manifest has no binary set {}", b.binary))?;
        let scratch_rel = base_rel.join(&b.binary);
        root.create_dir_all(&scratch_rel)
            .with_context(|| format!("cannot create {}", dir.join(&scratch_rel).display()))?;
        work.push(Job {
            set,
            scratch_rel,
            at: kept.len() - 1,
        });
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<Result<BTreeMap<String, f64>>>> =
        kept.into_iter().map(|k| k.map(Ok)).collect();
    let slots = std::sync::Mutex::new(&mut results);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(work.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(job) = work.get(i) else { break };
                let one = profile_one(exp, &series.program, job, metric);
                if let Ok(mut s) = slots.lock() {
                    s[job.at] = Some(one);
                }
            });
        }
    });
    results
        .into_iter()
        .zip(&series.seeds)
        .map(|(r, b)| {
            r.unwrap_or_else(|| Err(anyhow::anyhow!("{} was not profiled", b.binary)))
                .with_context(|| format!("the differential profile of {}", b.binary))
        })
        .collect()
}

/// The per-function values of `metric` in the profile the run kept of `binary`, `None` when
/// it kept none. Read as data through the directory's one opener (a received directory's
/// profile is counts, never a command); a kept profile that does not parse is an error, not
/// silently profiled again.
fn kept_profile(
    root: &crate::files::confined::ExperimentDir,
    series: &Series,
    binary: &str,
    metric: &str,
) -> Result<Option<BTreeMap<String, f64>>> {
    let rel = crate::run::metric::profile_path(&series.program, series.variant.as_deref(), binary);
    let file = match root.open_regular(&rel) {
        Ok(f) => f,
        Err(e) if crate::files::confined::is_missing(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(file, crate::files::store::file::MAX_LINE_BYTES as u64),
        &mut text,
    )
    .with_context(|| format!("cannot read {}", root.join(&rel).display()))?;
    let counts = crate::run::metric::EventCounts::parse(&text)
        .with_context(|| format!("{} is not a profile", root.join(&rel).display()))?;
    let values = counts
        .metric(metric)
        .with_context(|| format!("{} lacks the events of {metric}", root.join(&rel).display()))?;
    Ok(Some(values))
}

/// One binary's per-function values of `metric`.
fn profile_one(
    exp: &Experiment,
    program: &str,
    job: &Job,
    metric: &str,
) -> Result<BTreeMap<String, f64>> {
    let dir = &exp.dir;
    let path = super::verified(dir, job.set, program)?;
    let recorded = super::recorded_header(&exp.dir)?;
    let header: &crate::files::results::Header = &recorded;
    let template = crate::run::command::CommandTemplate::parse(&header.command)?;
    let named = super::named_binaries(dir, job.set, &template)?;
    let iterations = (header.iterations > 0).then_some(header.iterations);
    let argv: Vec<OsString> = template.expand(Some(&path), &named, iterations);
    let scratch = dir.join(&job.scratch_rel);
    let mut env = super::recorded_environment(header)?;
    if let Some(lib) = super::stage_libraries(dir, job.set, &scratch)? {
        env.push((
            crate::run::libraries::LIBRARY_PATH_VARIABLE.to_string(),
            lib,
        ));
    }
    let model = header.cache_model.unwrap_or(CacheModel::DEFAULT);
    let cwd = header.cwd.as_ref().map(PathBuf::from);
    let (counts, _) = super::hotness::profile_counts(
        &argv,
        &model,
        (cwd.as_deref(), &env, &header.ok_exit_codes),
        &scratch,
        false,
    )?;
    counts.metric(metric).with_context(|| {
        format!(
            "the cachegrind output of {} lacks the events of {metric}",
            path.display()
        )
    })
}
