//! The stages of an experiment, each skipped when its output is already complete, so that
//! running the same command again after an interruption resumes where it stopped.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::config::ExperimentConfig;
use super::subprocess::{capture_stage, run_stage, run_user_command};
use crate::build::manifest::{Manifest, VariantStatus, MANIFEST_FILE};
use crate::run::store::RESULTS_FILE;

/// Which of Kalibera & Jones' two experiments to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The dimensioning experiment: generous counts at every level, ending with the table
    /// of repetitions needed per target precision.
    Initial,
    /// A real experiment with the counts given (from the initial experiment or the file).
    Real,
}

/// Defaults of the initial experiment (KJ §9.1 suggest 20–30 at each level; fewer at
/// lower levels keep it affordable).
const INITIAL_SEEDS: u32 = 20;
const INITIAL_EXECUTIONS: u32 = 5;
const INITIAL_ITERATIONS: u32 = 10;

/// Runs the whole experiment described by `config` and returns the exit code.
pub fn run_experiment(config: &ExperimentConfig, mode: Mode, budget: Option<&str>) -> Result<i32> {
    config.validate()?;
    let started = Instant::now();
    let cwd = std::env::current_dir()?;
    let out = absolute(&cwd, &config.out_dir());
    std::fs::create_dir_all(&out)
        .with_context(|| format!("cannot create the output directory {}", out.display()))?;

    let workdir = fetch_source(config, &out, &cwd)?;
    stage_header(&format!("build in {}", workdir.display()));
    build(config, mode, &out, &workdir)?;
    if let Some(check) = &config.check {
        stage_header("check every binary");
        check_binaries(&check.command, &out, &workdir)?;
    }
    stage_header("run");
    run(config, mode, &out, &workdir, budget)?;
    stage_header("report");
    report(config, &out, &workdir)?;
    if mode == Mode::Initial {
        stage_header("dimension (Kalibera & Jones §9)");
        let mut args = os(&["dimension"]);
        args.push(out.clone().into());
        if let Some(p) = &config.target.precision {
            args.extend(os(&["--target", &format!("0.5%,1%,2%,5%,{p}")]));
        }
        run_stage("dimension", &args, &workdir)?;
    }
    eprintln!(
        "layoutrand experiment: done in {:.1} s; results in {}",
        started.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(0)
}

fn stage_header(what: &str) {
    eprintln!("\n== layoutrand experiment: {what} ==");
}

/// Fetches the source (once: a marker file records completion) and runs the prepare
/// commands; returns the directory in which to build and run.
fn fetch_source(config: &ExperimentConfig, out: &Path, cwd: &Path) -> Result<PathBuf> {
    let Some(source) = &config.source else {
        return Ok(cwd.to_path_buf());
    };
    let mut root = cwd.to_path_buf();
    if let Some(package) = &source.debian {
        let dest = out.join("source");
        let unpacked = dest.join("src");
        let marker = dest.join(".layoutrand-fetched");
        if !marker.exists() {
            stage_header(&format!("fetch Debian source package {package}"));
            let script = find_recipe_script(config, "debian-source.sh")?;
            let mut argv = vec!["bash".to_string(), script.display().to_string()];
            if source.patches == Some(false) {
                argv.push("--skip-patches".into());
            }
            argv.extend([package.clone(), dest.display().to_string()]);
            let (ok, output) = run_user_command(&argv, cwd)?;
            if !ok {
                bail!("fetching Debian source package {package} failed:\n{output}");
            }
            std::fs::write(&marker, package)?;
        }
        root = unpacked;
    }
    let workdir = match &source.subdir {
        Some(sub) => root.join(sub),
        None => root,
    };
    let prepared = out.join(".layoutrand-prepared");
    if !source.prepare.is_empty() && !prepared.exists() {
        stage_header("prepare");
        for argv in &source.prepare {
            let (ok, output) = run_user_command(argv, &workdir)?;
            if !ok {
                bail!(
                    "prepare command {argv:?} failed in {}:\n{output}",
                    workdir.display()
                );
            }
        }
        std::fs::write(&prepared, "")?;
    }
    Ok(workdir)
}

/// Looks for a helper script shipped in `recipes/`: beside the experiment file, its parent,
/// or the source checkout this executable was built from.
fn find_recipe_script(config: &ExperimentConfig, name: &str) -> Result<PathBuf> {
    let candidates = [
        config.base_dir.join(name),
        config.base_dir.join("..").join(name),
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("recipes")
            .join(name),
    ];
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .with_context(|| format!("cannot find recipes/{name} (looked in {candidates:?})"))
}

fn build(config: &ExperimentConfig, mode: Mode, out: &Path, workdir: &Path) -> Result<()> {
    let seeds = config.build.seeds.unwrap_or(match mode {
        Mode::Initial => INITIAL_SEEDS,
        Mode::Real => 5,
    });
    if let Ok(manifest) = Manifest::load(out) {
        if manifest.seeds.len() as u32 >= seeds && manifest.build_command == config.build.command {
            eprintln!(
                "layoutrand experiment: {} already holds a build with {} seeds; not rebuilding",
                out.join(MANIFEST_FILE).display(),
                manifest.seeds.len()
            );
            return Ok(());
        }
    }
    let mut args = os(&["build", "--seeds", &seeds.to_string(), "--out"]);
    args.push(out.into());
    if let Some(g) = &config.build.granularity {
        args.extend(os(&["--granularity", g]));
    }
    if let Some(l) = &config.build.linker {
        args.extend(os(&["--linker", l]));
    }
    args.push("--".into());
    args.extend(config.build.command.iter().map(OsString::from));
    run_stage("build", &args, workdir)
}

/// Runs the check command against every successfully built binary; fails naming every
/// variant whose check failed.
fn check_binaries(command: &[String], out: &Path, workdir: &Path) -> Result<()> {
    let manifest = Manifest::load(out)?;
    let mut failures = Vec::new();
    let mut checked = 0;
    for variant in manifest
        .variants()
        .filter(|v| v.status == VariantStatus::Ok)
    {
        let argv = expand_bins(command, variant, out)?;
        let (ok, output) = run_user_command(&argv, workdir)?;
        checked += 1;
        if !ok {
            failures.push(format!("{}: {argv:?} failed:\n{output}", variant.label()));
        }
    }
    if !failures.is_empty() {
        bail!(
            "{} of {checked} binaries failed the check:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
    eprintln!("layoutrand experiment: all {checked} binaries pass the check");
    Ok(())
}

/// Replaces `{bin}` (the only program) and `{bin:NAME}` by the absolute paths of `variant`'s
/// binaries.
fn expand_bins(
    command: &[String],
    variant: &crate::build::manifest::Variant,
    out: &Path,
) -> Result<Vec<String>> {
    let path_of = |name: Option<&str>| -> Result<String> {
        let binary = match name {
            Some(n) => variant
                .binaries
                .iter()
                .find(|b| b.name == n)
                .with_context(|| {
                    format!("{{bin:{n}}}: {} has no program named {n}", variant.label())
                })?,
            None => match variant.binaries.as_slice() {
                [only] => only,
                many => bail!(
                    "{{bin}} is ambiguous: the build made {} programs ({}); use {{bin:NAME}}",
                    many.len(),
                    many.iter()
                        .map(|b| b.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
        };
        Ok(out.join(&binary.path).display().to_string())
    };
    let pattern = regex::Regex::new(r"\{bin(?::([^}]+))?\}").expect("valid regex");
    command
        .iter()
        .map(|arg| {
            let mut result = String::new();
            let mut last = 0;
            for caps in pattern.captures_iter(arg) {
                let m = caps.get(0).expect("whole match");
                result.push_str(&arg[last..m.start()]);
                result.push_str(&path_of(caps.get(1).map(|c| c.as_str()))?);
                last = m.end();
            }
            result.push_str(&arg[last..]);
            Ok(result)
        })
        .collect()
}

fn run(
    config: &ExperimentConfig,
    mode: Mode,
    out: &Path,
    workdir: &Path,
    budget: Option<&str>,
) -> Result<()> {
    let metric = config.run.metric.clone().unwrap_or_else(|| "wall".into());
    let per_execution = metric.starts_with("regex:");
    let executions = config.run.executions.unwrap_or(match mode {
        Mode::Initial => INITIAL_EXECUTIONS,
        Mode::Real => 3,
    });
    let iterations =
        config
            .run
            .iterations
            .unwrap_or(if per_execution { INITIAL_ITERATIONS } else { 1 });
    let mut args = os(&[
        "run",
        "--executions",
        &executions.to_string(),
        "--iterations",
        &iterations.to_string(),
        "--metric",
        &metric,
        "--out",
    ]);
    args.push(out.into());
    if !config.run.programs.is_empty() {
        args.extend(os(&["--programs", &config.run.programs.join(",")]));
    }
    if let Some(w) = config.run.warmup {
        args.extend(os(&["--warmup", &w.to_string()]));
    }
    if let Some(t) = config.run.timeout {
        args.extend(os(&["--timeout", &t.to_string()]));
    }
    if let Some(b) = budget {
        args.extend(os(&["--budget", b]));
    }
    if out.join(RESULTS_FILE).exists() {
        args.push("--resume".into());
    }
    args.push("--".into());
    args.extend(config.run.command.iter().map(OsString::from));
    run_stage("run", &args, workdir)
}

fn report(config: &ExperimentConfig, out: &Path, workdir: &Path) -> Result<()> {
    let confidence = config.target.confidence.unwrap_or(0.95).to_string();
    for (format, file) in [("html", "report.html"), ("json", "report.json")] {
        let mut args = os(&["report"]);
        args.push(out.into());
        args.extend(os(&["--format", format, "--confidence", &confidence]));
        let text = capture_stage("report", &args, workdir)?;
        crate::run::store::write_atomically(&out.join(file), text.as_bytes())?;
    }
    let mut args = os(&["report"]);
    args.push(out.into());
    args.extend(os(&["--confidence", &confidence]));
    run_stage("report", &args, workdir)?;
    eprintln!(
        "layoutrand experiment: wrote {} and {}",
        out.join("report.html").display(),
        out.join("report.json").display()
    );
    Ok(())
}

fn os(items: &[&str]) -> Vec<OsString> {
    items.iter().map(OsString::from).collect()
}

fn absolute(cwd: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}
