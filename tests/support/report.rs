//! Synthetic experiment directories with known answers, written with the real store writer
//! and manifest code (not the runner), for the report tests.

#![allow(dead_code)]

use std::path::Path;

use layoutrand::files::manifest::Manifest;
use layoutrand::files::store::{
    Execution, ExecutionHost, ExecutionStatus, Header, Measurement, Record, Results, StoreWriter,
};
use layoutrand::seeded::SeededRng;
use serde_json::json;

/// The shape of a synthetic experiment.
#[derive(Debug, Clone)]
pub struct Design {
    pub programs: Vec<String>,
    pub seeds: u64,
    /// The first seed: the binaries are seed-`first_seed` … seed-`first_seed + seeds − 1`.
    pub first_seed: u64,
    pub executions: u32,
    pub iterations: u32,
    pub warmup: u32,
    pub metrics: Vec<(String, String)>,
    pub baseline: bool,
    /// The build's own binary (`as-built`, after the baseline), its values the baseline's
    /// (as the value function gives them for seed `None`) times this factor; `None`: the
    /// build kept none.
    pub as_built: Option<f64>,
    pub link_seconds: f64,
    /// Variants (`build --variant`): name and a factor on every value of that variant;
    /// empty: an experiment without variants.
    pub variants: Vec<(String, f64)>,
    /// (variant, execution) whose executions all fail (with exit 1, no values).
    pub failed_in: Vec<(String, u32)>,
    /// `build --pad MAX` recorded in the manifest (0: none).
    pub pad: u64,
    /// `build --granularity` recorded in the manifest.
    pub granularity: &'static str,
    /// The metrics (indices into `metrics`) the variants' factors apply to; `None`: all.
    pub variant_factor_metrics: Option<Vec<usize>>,
    /// Data seeds (`run --data-seeds`): execution `e` of every binary runs with data seed
    /// [`Design::data_seed_of`]`(e)`, so `executions` should be a multiple of it; 1: the data
    /// layout is not a factor (no data seed recorded).
    pub data_seeds: u32,
    /// Executions (the rounds of the synthetic schedule) that started beside `running − 1`
    /// other runnable tasks with `steal` of the CPU time stolen; every other execution
    /// started alone with nothing stolen.
    pub busy: Vec<(u32, u32, f64)>,
    /// The environment padding of each execution, by binary seed (None = baseline) and
    /// execution; 16 bytes for every one by default.
    pub env_pad: fn(Option<u64>, u32) -> u32,
    /// The `--metric` the header records; `None`: the first metric's name (a suite's
    /// format, `lines`, makes every metric a case).
    pub spec: Option<String>,
}

impl Design {
    pub fn new(seeds: u64, executions: u32, iterations: u32) -> Design {
        Design {
            programs: vec!["demo".into()],
            seeds,
            first_seed: 1,
            executions,
            iterations,
            warmup: 0,
            metrics: vec![("wall".into(), "ns".into())],
            baseline: true,
            as_built: None,
            link_seconds: 0.02,
            variants: Vec::new(),
            failed_in: Vec::new(),
            pad: 0,
            granularity: "module",
            variant_factor_metrics: None,
            data_seeds: 1,
            busy: Vec::new(),
            env_pad: |_, _| 16,
            spec: None,
        }
    }

    /// The host around execution `execution` of every binary (see [`Design::busy`]).
    pub fn host_of(&self, execution: u32) -> Option<ExecutionHost> {
        let (running, steal) = self
            .busy
            .iter()
            .find(|b| b.0 == execution)
            .map_or((1, 0.0), |b| (b.1, b.2));
        Some(ExecutionHost {
            running: Some(running),
            steal: Some(steal),
            quiet_wait: None,
        })
    }

    /// The data seed of execution `execution` of every binary (1 … `data_seeds`, in turn),
    /// `None` with one data seed.
    pub fn data_seed_of(&self, execution: u32) -> Option<u64> {
        (self.data_seeds > 1).then(|| u64::from(execution % self.data_seeds) + 1)
    }

    /// The variants as the store names them: `[None]` without variants.
    pub fn variant_names(&self) -> Vec<Option<(String, f64)>> {
        if self.variants.is_empty() {
            vec![None]
        } else {
            self.variants.iter().cloned().map(Some).collect()
        }
    }

    /// The seeds of the randomised binaries, in order.
    pub fn seed_range(&self) -> std::ops::Range<u64> {
        self.first_seed..self.first_seed + self.seeds
    }

    /// Binary labels with their seeds: baseline first (if any), then as-built (if any), then
    /// seed-1 … seed-N.
    pub fn labels(&self) -> Vec<(String, Option<u64>)> {
        let mut v: Vec<(String, Option<u64>)> = Vec::new();
        if self.baseline {
            v.push(("baseline".into(), None));
        }
        if self.as_built.is_some() {
            v.push(("as-built".into(), None));
        }
        v.extend(self.seed_range().map(|s| (format!("seed-{s}"), Some(s))));
        v
    }
}

/// A manifest for `design` (built through JSON so additive fields with defaults keep working).
pub fn manifest(design: &Design) -> Manifest {
    let one = manifest_json(design, "");
    let mut value = one.clone();
    if !design.variants.is_empty() {
        value["variants"] = design
            .variants
            .iter()
            .map(|(name, _)| json!({"name": name, "build": manifest_json(design, &format!("{name}/"))}))
            .collect();
        value["baseline"] = value["variants"][0]["build"]["baseline"].clone();
        value["seeds"] = value["variants"][0]["build"]["seeds"].clone();
        if design.as_built.is_some() {
            value["as_built"] = value["variants"][0]["build"]["as_built"].clone();
        }
    }
    serde_json::from_value(value).expect("synthetic manifest")
}

/// The manifest of one build as JSON, every binary path under `prefix`.
fn manifest_json(design: &Design, prefix: &str) -> serde_json::Value {
    // The directory of a set: its label.
    let binaries = |label: &str| -> Vec<serde_json::Value> {
        design
            .programs
            .iter()
            .map(|p| {
                json!({
                    "name": p,
                    "path": format!("{prefix}{label}/{p}"),
                    "sha256": "00",
                    "fingerprint": format!("fp-{label}"),
                    "functions": 10,
                    "link_seconds": design.link_seconds,
                })
            })
            .collect()
    };
    let binary = |seed: Option<u64>| {
        let label = seed.map_or("baseline".to_string(), |s| format!("seed-{s}"));
        json!({"seed": seed, "status": "ok", "binaries": binaries(&label)})
    };
    let mut value = json!({
        "schema": 1,
        "tool_version": env!("CARGO_PKG_VERSION"),
        "toolchain": {},
        "build_command": ["make"],
        "build_dir": "/tmp/x",
        "mode": "relink",
        "granularity": design.granularity,
        "pad": design.pad,
        "linker": "bfd",
        "mechanism": "synthetic",
        "recorded_build_seconds": 1.0,
        "relink_seconds": 0.5,
        "baseline": binary(None),
        "seeds": design.seed_range().map(|s| binary(Some(s))).collect::<Vec<_>>(),
    });
    if design.as_built.is_some() {
        value["as_built"] = json!({"seed": null, "kind": "as_built", "status": "ok",
                                   "binaries": binaries("as-built")});
    }
    value
}

/// A store header for `design`.
pub fn header(design: &Design) -> Header {
    let mut value = json!({
        "schema": layoutrand::files::results::RESULTS_SCHEMA,
        "tool_version": env!("CARGO_PKG_VERSION"),
        "command": ["{bin}"],
        "programs": design.programs,
        "binaries": design.labels().into_iter().map(|(l, _)| l).collect::<Vec<_>>(),
        "metric": design.spec.clone().unwrap_or_else(|| design.metrics[0].0.clone()),
        "executions": design.executions,
        "iterations": design.iterations + design.warmup,
        "warmup": design.warmup,
        "env_pad_max": 4096,
        "schedule_seed": 1,
        "timeout_seconds": null,
        "aslr_disabled": true,
        "host": {"cpu_model": "synthetic"},
        "started_unix": 0.0,
    });
    if !design.variants.is_empty() {
        value["variants"] = design.variants.iter().map(|(n, _)| json!(n)).collect();
    }
    if design.data_seeds > 1 {
        // The header counts executions per (binary, data seed) pair.
        value["data_seeds"] = json!(design.data_seeds);
        value["executions"] = json!(design.executions / design.data_seeds);
    }
    serde_json::from_value(value).expect("synthetic header")
}

/// One value: program, binary seed (None = baseline), execution, iteration (counting the
/// warmup), metric index.
pub type ValueFn<'a> = dyn FnMut(&str, Option<u64>, u32, u32, usize) -> f64 + 'a;

/// The records of `design` (header first, executions in a simple interleaved order), each
/// execution with `status(program, seed, execution)`.
pub fn records(
    design: &Design,
    value: &mut ValueFn,
    status: &dyn Fn(&str, Option<u64>, u32) -> ExecutionStatus,
) -> Vec<Vec<Record>> {
    let mut out = vec![vec![Record::Header(header(design))]];
    let mut index = 0u64;
    for execution in 0..design.executions {
        for program in &design.programs {
            for ((binary, seed), variant) in design.labels().into_iter().flat_map(|l| {
                design
                    .variant_names()
                    .into_iter()
                    .map(move |v| (l.clone(), v))
            }) {
                let own = if binary == "as-built" {
                    design.as_built.unwrap_or(1.0)
                } else {
                    1.0
                };
                let factor = own * variant.as_ref().map_or(1.0, |(_, f)| *f);
                let factor_of = |m: usize| match &design.variant_factor_metrics {
                    Some(metrics) if !metrics.contains(&m) => 1.0,
                    _ => factor,
                };
                let variant = variant.map(|(n, _)| n);
                let failed = variant
                    .as_ref()
                    .is_some_and(|v| design.failed_in.contains(&(v.clone(), execution)));
                let st = if failed {
                    ExecutionStatus::Exit
                } else {
                    status(program, seed, execution)
                };
                let mut recs = Vec::new();
                let per_iter = 1_000_000u64;
                if st == ExecutionStatus::Ok {
                    for iteration in 0..design.iterations + design.warmup {
                        for (m, (metric, unit)) in design.metrics.iter().enumerate() {
                            recs.push(Record::Measurement(Measurement {
                                program: program.clone(),
                                binary: binary.clone(),
                                variant: variant.clone(),
                                seed,
                                execution,
                                iteration,
                                warmup: iteration < design.warmup,
                                metric: metric.clone(),
                                value: factor_of(m) * value(program, seed, execution, iteration, m),
                                unit: unit.clone(),
                            }));
                        }
                    }
                }
                recs.push(Record::Execution(Execution {
                    program: program.clone(),
                    binary: binary.clone(),
                    variant: variant.clone(),
                    seed,
                    execution,
                    schedule_index: index,
                    env_pad: (design.env_pad)(seed, execution),
                    data_seed: design.data_seed_of(execution),
                    heap_offset: design.data_seed_of(execution).map(|d| 16 * d as u32),
                    mmap_threshold: None,
                    start_unix: index as f64,
                    wall_ns: per_iter * u64::from(design.iterations + design.warmup) + 5_000_000,
                    status: st,
                    exit_code: Some(if st == ExecutionStatus::Ok { 0 } else { 1 }),
                    signal: None,
                    output_tail: (st != ExecutionStatus::Ok)
                        .then(|| "synthetic failure".to_string()),
                    machine: None,
                    abandoned: 0,
                    host: design.host_of(execution),
                }));
                index += 1;
                out.push(recs);
            }
        }
    }
    out
}

/// `layoutrand report DIR ARGS…`'s standard output (the command must succeed).
pub fn report_stdout(dir: &Path, args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .arg("report")
        .arg(dir)
        .args(args)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// All executions succeed.
pub fn all_ok(_: &str, _: Option<u64>, _: u32) -> ExecutionStatus {
    ExecutionStatus::Ok
}

/// Writes manifest.json and results.jsonl for `design` into `dir`.
pub fn write_dir(dir: &Path, design: &Design, value: &mut ValueFn) {
    write_dir_with_status(dir, design, value, &all_ok);
}

/// Like [`write_dir`] with chosen execution statuses.
pub fn write_dir_with_status(
    dir: &Path,
    design: &Design,
    value: &mut ValueFn,
    status: &dyn Fn(&str, Option<u64>, u32) -> ExecutionStatus,
) {
    manifest(design).save(dir).unwrap();
    let mut w = StoreWriter::open(dir).unwrap();
    for batch in records(design, value, status) {
        w.append(&batch).unwrap();
    }
}

/// The same data as an in-memory [`Results`] (no I/O: for fast simulations).
pub fn results(design: &Design, value: &mut ValueFn) -> Results {
    let mut r = Results::default();
    for batch in records(design, value, &all_ok) {
        for rec in batch {
            match rec {
                Record::Header(h) => r.header = Some(h),
                Record::Measurement(m) => r.measurements.push(m),
                Record::Execution(e) => r.executions.push(e),
                Record::Extension(x) => r.extensions.push(x),
                Record::Finish(f) => r.finishes.push(f),
            }
        }
    }
    r
}

/// Standard normal draws from a seeded stream (Box–Muller).
pub struct Normal {
    rng: SeededRng,
}

impl Normal {
    pub fn new(seed: u64, purpose: &str) -> Normal {
        Normal {
            rng: SeededRng::new(seed, purpose),
        }
    }

    pub fn draw(&mut self) -> f64 {
        let u1 = 1.0 - self.rng.unit_f64();
        let u2 = self.rng.unit_f64();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

/// A three-level generator: value = mean · (1 + effect(binary) + σ_e·N + σ_i·N), where the
/// binary effect is σ_b·N per seed and `baseline_effect` for the baseline.
pub struct ThreeLevel {
    pub mean: f64,
    pub sigma_binary: f64,
    pub sigma_execution: f64,
    pub sigma_iteration: f64,
    pub baseline_effect: f64,
    noise: Normal,
    binary_effects: std::collections::HashMap<Option<u64>, f64>,
    execution_effects: std::collections::HashMap<(Option<u64>, u32), f64>,
}

impl ThreeLevel {
    pub fn new(
        seed: u64,
        mean: f64,
        sb: f64,
        se: f64,
        si: f64,
        baseline_effect: f64,
    ) -> ThreeLevel {
        ThreeLevel {
            mean,
            sigma_binary: sb,
            sigma_execution: se,
            sigma_iteration: si,
            baseline_effect,
            noise: Normal::new(seed, "report-test-noise"),
            binary_effects: Default::default(),
            execution_effects: Default::default(),
        }
    }

    pub fn value(&mut self, seed: Option<u64>, execution: u32) -> f64 {
        let sb = self.sigma_binary;
        let be = self.baseline_effect;
        let b = match seed {
            None => be,
            Some(_) => {
                if !self.binary_effects.contains_key(&seed) {
                    let d = sb * self.noise.draw();
                    self.binary_effects.insert(seed, d);
                }
                self.binary_effects[&seed]
            }
        };
        let se = self.sigma_execution;
        let e = if let Some(&e) = self.execution_effects.get(&(seed, execution)) {
            e
        } else {
            let d = se * self.noise.draw();
            self.execution_effects.insert((seed, execution), d);
            d
        };
        let i = self.sigma_iteration * self.noise.draw();
        self.mean * (1.0 + b + e + i)
    }
}

/// A synthetic store whose executions record the machine `machine(execution)` (as a Slurm
/// run's shards do: one round of executions per task), the values of machine `n2` raised by
/// `n2_offset` (a share of the mean).
pub fn store_on_machines(dir: &Path, machine: &dyn Fn(u32) -> &'static str, n2_offset: f64) {
    let design = Design::new(8, 4, 5);
    let mut gen = ThreeLevel::new(5, 2e6, 0.02, 0.003, 0.01, 0.0);
    let mut value = |_: &str, seed, e, _, _| {
        let raise = if machine(e) == "n2" { n2_offset } else { 0.0 };
        gen.value(seed, e) * (1.0 + raise)
    };
    manifest(&design).save(dir).unwrap();
    let mut w = StoreWriter::open(dir).unwrap();
    for mut batch in records(&design, &mut value, &all_ok) {
        for rec in &mut batch {
            if let Record::Execution(e) = rec {
                e.machine = Some(layoutrand::files::results::Machine {
                    node: Some(machine(e.execution).to_string()),
                    hostname: Some("host".into()),
                    ..Default::default()
                });
            }
        }
        w.append(&batch).unwrap();
    }
}

/// `layoutrand ARGS DIRS…`, its output captured (exit status, stdout, stderr).
pub fn layoutrand(args: &[&str], dirs: &[&std::path::Path]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .args(args)
        .args(dirs)
        .output()
        .unwrap()
}

/// A crossed generator (`run --data-seeds`): value = mean · (1 + code(binary) + data(data
/// seed) + code×data(binary, data seed) + σ_run·N per execution + σ_i·N per iteration), each
/// effect σ·N drawn once per level from its own seeded stream.
pub struct Crossed {
    pub mean: f64,
    /// Relative standard deviations `[code, data, code × data, run, iteration]`.
    pub sigmas: [f64; 5],
    noise: Normal,
    effects: std::collections::HashMap<(usize, Option<u64>, Option<u64>, u32), f64>,
}

impl Crossed {
    pub fn new(mean: f64, sigmas: [f64; 5], seed: u64) -> Crossed {
        Crossed {
            mean,
            sigmas,
            noise: Normal::new(seed, "crossed-generator"),
            effects: std::collections::HashMap::new(),
        }
    }

    /// The effect of level `key` of factor `k`, drawn the first time it is asked for.
    fn effect(&mut self, k: usize, code: Option<u64>, data: Option<u64>, execution: u32) -> f64 {
        let sigma = self.sigmas[k];
        let noise = &mut self.noise;
        *self
            .effects
            .entry((k, code, data, execution))
            .or_insert_with(|| sigma * noise.draw())
    }

    /// The value of `iteration` of `execution` of the binary of `seed` in `design`.
    pub fn value(&mut self, design: &Design, seed: Option<u64>, execution: u32) -> f64 {
        let data = design.data_seed_of(execution);
        let shift = self.effect(0, seed, None, 0)
            + self.effect(1, None, data, 0)
            + self.effect(2, seed, data, 0)
            + self.effect(3, seed, data, execution + 1);
        self.mean * (1.0 + shift + self.sigmas[4] * self.noise.draw())
    }
}

/// The sentence `field` that the JSON of `value` carries beside its numbers (the model
/// holds none: its words are built as the wire is written).
pub fn words(value: &impl serde::Serialize, field: &str) -> String {
    let json = serde_json::to_value(value).expect("the model serialises");
    match json[field].as_str() {
        Some(text) => text.to_string(),
        None => panic!("no sentence `{field}` in {json}"),
    }
}

/// [`words`] of a field that is null when there is nothing to say.
pub fn optional_words(value: &impl serde::Serialize, field: &str) -> Option<String> {
    let json = serde_json::to_value(value).expect("the model serialises");
    json[field].as_str().map(str::to_string)
}

/// [`words`] of a list of sentences.
pub fn word_list(value: &impl serde::Serialize, field: &str) -> Vec<String> {
    let json = serde_json::to_value(value).expect("the model serialises");
    match json[field].as_array() {
        Some(list) => list
            .iter()
            .filter_map(|w| w.as_str())
            .map(str::to_string)
            .collect(),
        None => panic!("no list `{field}` in {json}"),
    }
}
