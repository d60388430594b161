//! One JSON vocabulary (docs/formats.md): every command's `--format json` output, run on small
//! synthetic stores and the CSV fixtures, is walked object by object. No interval bound is
//! named `low`/`high`/`ci_lower`/`ci_upper`, no p-value `p`; every `lower` has its `upper`;
//! `df` is one number (two degrees of freedom are `df_numerator`/`df_denominator`); every
//! `verdict` is a word of the one verdict vocabulary (or null: no verdict); no count is named
//! after a speed a rate reverses (`share_faster`'s `k` and `slower`, schema 4); the top level
//! carries `schema` 4 and `tool_version`. Main before schema 3 failed every one of these rules
//! somewhere. Each output
//! also validates against its JSON Schema (docs/schemas/).

use crate::{report_support, schemas_support};

use std::path::Path;

use layoutrand::analysis::vocabulary::VERDICT_WORDS;
use report_support::{
    store_on_machines, write_dir, write_dir_with_status, Crossed, Design, ThreeLevel,
};
use serde_json::Value;

/// Keys the one vocabulary replaced: interval bounds are `lower`/`upper`, a p-value is
/// `p_value`; the share of layouts on which new is lower is `share_below` (schema 4).
const RETIRED_KEYS: [&str; 7] = [
    "low",
    "high",
    "p",
    "ci_lower",
    "ci_upper",
    "share_faster",
    "slower",
];

/// Every rule broken somewhere under `value` (at JSON path `path`), one line each.
fn violations(value: &Value, path: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for key in RETIRED_KEYS.iter().filter(|k| map.contains_key(**k)) {
                out.push(format!("{path}: retired key `{key}`"));
            }
            if map.contains_key("lower") != map.contains_key("upper") {
                out.push(format!("{path}: `lower` without `upper` or the reverse"));
            }
            if let Some(df) = map.get("df").filter(|d| !(d.is_number() || d.is_null())) {
                out.push(format!("{path}: `df` is {df}, not one number"));
            }
            // A null verdict is an object with no verdict (a series' `sequential`).
            if let Some(verdict) = map.get("verdict").filter(|v| !v.is_null()) {
                let known = verdict.as_str().is_some_and(|w| VERDICT_WORDS.contains(&w));
                if !known {
                    out.push(format!(
                        "{path}: verdict {verdict} is not a vocabulary word"
                    ));
                }
            }
            for (key, child) in map {
                violations(child, &format!("{path}.{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                violations(child, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The rules of the top level plus [`violations`] of everything under it.
fn check(name: &str, json: &Value, out: &mut Vec<String>) {
    if json["schema"] != 4 {
        out.push(format!(
            "{name}: top-level schema is {}, not 4",
            json["schema"]
        ));
    }
    if !json["tool_version"].is_string() {
        out.push(format!("{name}: no top-level tool_version"));
    }
    violations(json, name, out);
}

/// The words of `sensitivity.test` (issue 36).
const SENSITIVITY_TESTS: [&str; 3] = ["one_way_f", "blocked_f", "iteration_f"];

/// Every series' `sensitivity` of a report carries issue 36's fields: `test` (a word of
/// [`SENSITIVITY_TESTS`] or null), `permutations`, `set_aside` (a list of binary, seed,
/// execution, deviation) and `rests_on`.
fn sensitivity_fields(name: &str, json: &Value, out: &mut Vec<String>) {
    for (i, series) in json["series"].as_array().into_iter().flatten().enumerate() {
        let s = &series["sensitivity"];
        let path = format!("{name}.series[{i}].sensitivity");
        let test_ok = s["test"].is_null()
            || s["test"]
                .as_str()
                .is_some_and(|t| SENSITIVITY_TESTS.contains(&t));
        if !test_ok || s.get("test").is_none() {
            out.push(format!("{path}: test {} is not a known test", s["test"]));
        }
        for key in ["permutations", "rests_on"] {
            if s.get(key).is_none() {
                out.push(format!("{path}: no `{key}`"));
            }
        }
        let set_aside_ok = s["set_aside"].as_array().is_some_and(|a| {
            a.iter().all(|x| {
                x["binary"].is_string() && x["execution"].is_u64() && x["deviation"].is_number()
            })
        });
        if !set_aside_ok {
            out.push(format!("{path}: `set_aside` is not a list of executions"));
        }
    }
}

/// A store of 6 binaries × 3 data seeds × 2 executions whose data layout matters.
fn data_seeds_store(dir: &Path) {
    let mut design = Design::new(6, 6, 3);
    design.data_seeds = 3;
    let mut gen = Crossed::new(2e6, [0.005, 0.03, 0.002, 0.004, 0.01], 12);
    write_dir(dir, &design.clone(), &mut |_, seed, e, _, _| {
        gen.value(&design, seed, e)
    });
}

/// The components of `variance_split` (issue 35); `machine` only in stores that ran on
/// several machines.
const SPLIT_COMPONENTS: [&str; 5] = ["code", "data", "code_x_data", "machine", "run"];

/// A store with data seeds gives each series a `variance_split` with one entry per
/// component, each `{share, interval: {lower, upper}}` in [0, 1], the shares summing to 1.
fn split_fields(name: &str, json: &Value, out: &mut Vec<String>) {
    for (i, series) in json["series"].as_array().into_iter().flatten().enumerate() {
        let split = &series["variance_split"];
        let path = format!("{name}.series[{i}].variance_split");
        let mut total = 0.0;
        for c in SPLIT_COMPONENTS {
            let part = &split[c];
            if c == "machine" && part.is_null() {
                continue;
            }
            let (share, lower, upper) = (
                part["share"].as_f64(),
                part["interval"]["lower"].as_f64(),
                part["interval"]["upper"].as_f64(),
            );
            match (share, lower, upper) {
                (Some(s), Some(l), Some(u))
                    if 0.0 <= l && l <= u && u <= 1.0 && (0.0..=1.0).contains(&s) =>
                {
                    total += s
                }
                _ => out.push(format!(
                    "{path}.{c}: {part} is not a share with an interval in [0, 1]"
                )),
            }
        }
        if (total - 1.0).abs() > 1e-9 {
            out.push(format!("{path}: the shares sum to {total}"));
        }
    }
}

/// The verdicts of `data_sensitivity` (the layout sensitivity's words).
const VERDICTS: [&str; 4] = ["detected", "negligible", "not_detected", "undetermined"];

/// A store with data seeds gives each series a `data_sensitivity` — a verdict, the
/// variation from data layout to data layout inside its interval, never below 0, and the
/// test's p-value — and a `crossed_mean` with the design behind the mean's interval.
fn crossed_fields(name: &str, json: &Value, out: &mut Vec<String>) {
    for (i, series) in json["series"].as_array().into_iter().flatten().enumerate() {
        let d = &series["data_sensitivity"];
        let path = format!("{name}.series[{i}].data_sensitivity");
        if !d["verdict"].as_str().is_some_and(|v| VERDICTS.contains(&v)) {
            out.push(format!("{path}.verdict: {}", d["verdict"]));
        }
        let (v, l, u) = (
            d["variation"].as_f64(),
            d["variation_ci"]["lower"].as_f64(),
            d["variation_ci"]["upper"].as_f64(),
        );
        if !matches!((v, l, u), (Some(v), Some(l), Some(u)) if 0.0 <= l && l <= v && v <= u) {
            out.push(format!(
                "{path}: {d} is not a variation inside its interval above 0"
            ));
        }
        if !d["p_value"]
            .as_f64()
            .is_some_and(|p| (0.0..=1.0).contains(&p))
        {
            out.push(format!("{path}.p_value: {}", d["p_value"]));
        }
        let c = &series["crossed_mean"];
        if c["data_seeds"].as_u64() != Some(3) || !c["df"].as_f64().is_some_and(|d| d > 0.0) {
            out.push(format!("{name}.series[{i}].crossed_mean: {c}"));
        }
    }
}

/// `layoutrand ARGS…`'s standard output as JSON (the command may exit non-zero, as `doctor`
/// does on a noisy machine, but must print JSON).
fn run_json(args: &[&str]) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_layoutrand"))
        .args(args)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "layoutrand {args:?} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A store of two programs with `variants` (name, factor) or none, `factor` on every value.
/// With `failing`, seed-3 of program `b` fails in every execution and variant O2's
/// execution 1 fails, so the report lists failures; without, the variants are balanced, so
/// that three of them get Tukey's family (`multiple`).
fn store(dir: &Path, variants: &[(&str, f64)], factor: f64, failing: bool) {
    let mut design = Design::new(6, 3, 4);
    design.programs = vec!["a".into(), "b".into()];
    design.variants = variants.iter().map(|(n, f)| (n.to_string(), *f)).collect();
    if failing && !variants.is_empty() {
        design.failed_in = vec![("O2".into(), 1)];
    }
    let mut gen = ThreeLevel::new(11, 2e6, 0.02, 0.004, 0.01, 0.01);
    write_dir_with_status(
        dir,
        &design,
        &mut |_, seed, e, _, _| factor * gen.value(seed, e),
        &|program, seed, _| {
            if failing && program == "b" && seed == Some(3) {
                layoutrand::files::store::ExecutionStatus::Exit
            } else {
                layoutrand::files::store::ExecutionStatus::Ok
            }
        },
    );
}

/// Two tiny C programs differing in optimisation level, for `layout`.
fn two_binaries(dir: &Path) -> (String, String) {
    let source = dir.join("v.c");
    std::fs::write(
        &source,
        "int f(int x){return x+1;} int g(int x){return f(x)*2;} int main(){return g(1)-4;}\n",
    )
    .unwrap();
    let build = |opt: &str, name: &str| {
        let out = dir.join(name);
        let ok = std::process::Command::new("cc")
            .arg(opt)
            .arg("-o")
            .arg(&out)
            .arg(&source)
            .status()
            .unwrap()
            .success();
        assert!(ok, "cc {opt} failed");
        out.to_str().unwrap().to_string()
    };
    (build("-O0", "v0"), build("-O1", "v1"))
}

/// The checked-in JSON Schema (docs/schemas/NAME.schema.json) of the run named `name` below.
fn schema_of(name: &str) -> &'static str {
    match name.split(' ').next().unwrap_or_default() {
        "report" => "report",
        "compare" if name == "compare CSV" => "compare-files",
        "compare" => "compare-directories",
        "analyze" => "analyze",
        "dimension" => "dimension",
        "layout" if name == "layout two" => "layout-distance",
        "layout" => "layout",
        "doctor" => "doctor",
        "export" => "export",
        other => panic!("no schema for the run {other:?}"),
    }
}

/// Every command's JSON also validates against its checked-in JSON Schema.
#[test]
fn every_command_speaks_the_one_json_vocabulary() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| {
        let d = tmp.path().join(name);
        std::fs::create_dir(&d).unwrap();
        d.to_str().unwrap().to_string()
    };
    let (var, three, base, new, machines, data) = (
        dir("var"),
        dir("three"),
        dir("base"),
        dir("new"),
        dir("machines"),
        dir("data"),
    );
    data_seeds_store(Path::new(&data));
    store(Path::new(&var), &[("O1", 1.0), ("O2", 1.08)], 1.0, true);
    let three_variants = [("O1", 1.0), ("O2", 1.08), ("O3", 0.97)];
    store(Path::new(&three), &three_variants, 1.0, false);
    store(Path::new(&base), &[], 1.0, true);
    store(Path::new(&new), &[], 1.03, true);
    // Two machines, the second 2 % slower: the report's machine component.
    store_on_machines(
        Path::new(&machines),
        &|e| if e % 2 == 0 { "n1" } else { "n2" },
        0.02,
    );
    let (bin0, bin1) = two_binaries(tmp.path());
    let csv = ["fixtures/csv/base.csv", "fixtures/csv/new.csv"];
    let levels = ["--levels", "binary,execution,iteration", "--value", "time"];
    let json = ["--format", "json"];
    let boot = ["--bootstrap", "200", "--seed", "7"];
    let runs: Vec<(&str, Vec<&str>)> = vec![
        ("report variants", [&["report", &var], &json[..]].concat()),
        (
            "report variants bootstrap",
            [&["report", &var], &json[..], &boot[..]].concat(),
        ),
        (
            "report three variants",
            [&["report", &three], &json[..]].concat(),
        ),
        (
            "report machines",
            [&["report", &machines], &json[..]].concat(),
        ),
        ("report", [&["report", &base], &json[..]].concat()),
        (
            "report data seeds",
            [&["report", &data], &json[..]].concat(),
        ),
        (
            "report sequential",
            [&["report", &base], &json[..], &["--sequential"][..]].concat(),
        ),
        (
            "report variants sequential",
            [&["report", &var], &json[..], &["--sequential"][..]].concat(),
        ),
        (
            "report bootstrap",
            [&["report", &base], &json[..], &boot[..]].concat(),
        ),
        (
            "compare DIR DIR",
            [&["compare", &base, &new], &json[..], &boot[..]].concat(),
        ),
        (
            "compare CSV",
            [
                &["compare", csv[0], csv[1]],
                &levels[..],
                &json[..],
                &boot[..],
            ]
            .concat(),
        ),
        (
            "analyze",
            [&["analyze", csv[0]], &levels[..], &json[..], &boot[..]].concat(),
        ),
        (
            "analyze costs",
            [&["analyze", csv[0]], &levels[..], &json[..]]
                .concat()
                .into_iter()
                .chain(["--costs", "binary=20s,execution=2s,iteration=0.5s"])
                .collect(),
        ),
        ("dimension", [&["dimension", &var], &json[..]].concat()),
        ("layout one", [&["layout", &bin0], &json[..]].concat()),
        (
            "layout two",
            [&["layout", &bin0, &bin1], &json[..]].concat(),
        ),
        (
            "doctor",
            [
                &["doctor", "--executions", "3", "--iterations", "2"],
                &json[..],
            ]
            .concat(),
        ),
        ("export", [&["export", &base], &json[..]].concat()),
    ];
    let mut found = Vec::new();
    for (name, args) in &runs {
        let json = run_json(args);
        if *name == "report three variants" {
            // The walk must see Tukey's pairs, whose verdict was a second vocabulary's.
            let pairs = &json["multiple"][0]["pairs"];
            assert!(pairs.as_array().is_some_and(|p| !p.is_empty()), "{json:#}");
        }
        if name.ends_with("sequential") {
            // The walk must see the sequential objects, whose verdict was a second
            // vocabulary's ("faster", "no significant difference").
            let seq = match *name {
                "report sequential" => &json["series"][0]["sequential"],
                _ => &json["comparisons"][0]["sequential"],
            };
            assert!(seq.is_object(), "{name}: {json:#}");
        }
        check(name, &json, &mut found);
        found.extend(schemas_support::schema_violations(
            schema_of(name),
            name,
            &json,
        ));
        if name.starts_with("report") {
            sensitivity_fields(name, &json, &mut found);
        }
        if *name == "report data seeds" {
            split_fields(name, &json, &mut found);
            crossed_fields(name, &json, &mut found);
        }
    }
    assert!(
        found.is_empty(),
        "{} violations:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The report's failures are a list keyed by what identifies the executions counted
/// (program and variant), the display label kept as a field, so a reader need not parse
/// "a [O2]".
#[test]
fn report_failures_are_keyed_by_ids() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path(), &[("O1", 1.0), ("O2", 1.08)], 1.0, true);
    let json = run_json(&["report", tmp.path().to_str().unwrap(), "--format", "json"]);
    let failures = json["failures"]
        .as_array()
        .unwrap_or_else(|| panic!("{json:#}"));
    assert!(!failures.is_empty(), "{json:#}");
    let b_o2 = failures
        .iter()
        .find(|f| f["program"] == "b" && f["variant"] == "O2")
        .unwrap_or_else(|| panic!("{json:#}"));
    assert_eq!(b_o2["label"], "b [O2]");
    // Program b's seed-3 fails in all 3 executions of both variants, and O2's execution 1
    // fails for its 7 binaries (baseline and six seeds), seed-3's already counted.
    assert_eq!(b_o2["exit"], 3 + 6, "{b_o2:#}");
    assert_eq!(failures.len(), 4, "{json:#}");
}
