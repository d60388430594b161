//! Issue 24: every number of the text, markdown and HTML reports goes through one formatter.
//! On a synthetic store with a large time (seconds in ns), a memory metric in KiB and a
//! count in the hundreds of millions, under three variants (Tukey's family), the outputs
//! must show grouped digits, no exponent, headings whose unit is the values' unit, and
//! p-values in one style; `report --format csv` carries one row per comparison whose
//! numbers are the JSON report's.

use crate::report_support;

use regex::Regex;
use report_support::{report_stdout as report, write_dir, Design, ThreeLevel};

/// Three variants of `demo`, 6 seeds × 3 executions × 5 iterations; wall ≈ 7.2 s in ns,
/// maxrss ≈ 2 GiB in KiB, instructions ≈ 106 million (a count).
fn store(dir: &std::path::Path) {
    let mut design = Design::new(6, 3, 5);
    design.metrics = vec![
        ("wall".into(), "ns".into()),
        ("maxrss".into(), "KiB".into()),
        ("instructions".into(), "count".into()),
    ];
    design.variants = vec![("O2".into(), 1.0), ("O3".into(), 0.9), ("O1".into(), 1.2)];
    let mut gen = ThreeLevel::new(11, 1.0, 0.03, 0.004, 0.01, 0.0);
    let scale = [7.244e9, 2.1e6, 1.06456e8];
    write_dir(dir, &design, &mut |_, seed, e, _, m| {
        (scale[m] * gen.value(seed, e)).round()
    });
}

/// The reader's text of an HTML report: style and plots dropped (an SVG's coordinates are
/// not numbers for a reader; its tick labels are checked by the SVG tests), every tag a line
/// break, the few entities the exporter writes decoded.
fn html_text(html: &str) -> String {
    let blocks = Regex::new(r"(?s)<style.*?</style>|<svg.*?</svg>").unwrap();
    let tags = Regex::new(r"<[^>]*>").unwrap();
    let text = tags
        .replace_all(&blocks.replace_all(html, ""), "\n")
        .to_string();
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// (a) Digits are grouped: no run of 4 or more digits before a decimal point. The rule's
/// exceptions are identifiers, not quantities: digits glued to a word, a path or a label
/// (`seed-1234`, `#x2014`, `O3`) and a seed named as such (`seed 1234`).
fn ungrouped_numbers(text: &str) -> Vec<String> {
    let number = Regex::new(r"(^|[^\w.,#/_-])(\d{4,})(\b|\.)").unwrap();
    number
        .captures_iter(text)
        .filter(|c| {
            let at = c.get(2).unwrap().start();
            !text[..at].ends_with("seed ")
        })
        .map(|c| c[2].to_string())
        .collect()
}

/// (b) No exponent notation (`1.26e12`, `5.70e-4`).
fn exponents(text: &str) -> Vec<String> {
    let e = Regex::new(r"\b\d+(\.\d+)?[eE][-+]?\d+\b").unwrap();
    e.find_iter(text).map(|m| m.as_str().to_string()).collect()
}

/// (d) Every p-value as `p = 0.54` (plain digits) or `p < 0.0001`; percentages as `10.7 %`.
fn off_style(text: &str) -> Vec<String> {
    let p = Regex::new(r"\bp ?[=<>≤≥] ?[^\s,;:)]*").unwrap();
    let good = Regex::new(r"^(p = [0-9]+(\.[0-9]+)?|p < 0\.0001)$").unwrap();
    let mut bad: Vec<String> = p
        .find_iter(text)
        .map(|m| m.as_str().trim_end_matches('.').to_string())
        .filter(|m| !good.is_match(m))
        .collect();
    let glued = Regex::new(r"\d%").unwrap();
    bad.extend(glued.find_iter(text).map(|m| m.as_str().to_string()));
    bad
}

/// (c) Every section titled `program — metric (unit)` prints its quantities in that unit:
/// each number followed by a unit of time or memory (or its square, in the variance table)
/// names the title's unit; under `(count)` no number carries a unit. Returns the number of
/// distinct titles checked (HTML lists them again in its contents) and the mismatches.
fn unit_mismatches(text: &str) -> (usize, Vec<String>) {
    let title = Regex::new(r"^#*\s*(\S.*) — (\w+) \(([^)]+)\)$").unwrap();
    let quantity = Regex::new(r"\d (ns|µs|ms|s|min|h|KiB|MiB|GiB)(²)?\b").unwrap();
    let titled = Regex::new(r"^\S.* — \w+ \(([^)]+)\):").unwrap();
    let (mut titles, mut bad) = (std::collections::BTreeSet::new(), Vec::new());
    let mut unit: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if let Some(c) = title.captures(line) {
            titles.insert(line.trim_start_matches('#').trim().to_string());
            unit = Some(c[3].to_string());
            continue;
        }
        if line.starts_with("Variants (") || line.starts_with("Machines") {
            unit = None;
        }
        // A line led by its own title ("demo — wall (s): Over random layouts …", the HTML
        // summary's items, which follow the contents) is in that title's unit.
        if let Some(c) = titled.captures(line) {
            unit = Some(c[1].to_string());
        }
        let Some(u) = &unit else { continue };
        for c in quantity.captures_iter(line) {
            if u == "count" || &c[1] != u {
                bad.push(format!("({u}): {line}"));
            }
        }
    }
    (titles.len(), bad)
}

/// The four rules on one rendering.
fn check_rendering(name: &str, text: &str) {
    let ungrouped = ungrouped_numbers(text);
    assert!(ungrouped.is_empty(), "{name}: ungrouped {ungrouped:?}");
    let e = exponents(text);
    assert!(e.is_empty(), "{name}: exponents {e:?}");
    let (titles, mismatched) = unit_mismatches(text);
    assert_eq!(titles, 9, "{name}: a title per program, variant and metric");
    assert!(mismatched.is_empty(), "{name}: {mismatched:#?}");
    let styles = off_style(text);
    assert!(styles.is_empty(), "{name}: {styles:?}");
}

#[test]
fn text_markdown_and_html_write_numbers_one_way() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path());
    let text = report(tmp.path(), &[]);
    // The fixture does exercise the rules: large counts, variances of counts and of
    // seconds, KiB, p-values below 0.0001 and ordinary ones.
    for needle in [
        "106,",
        ",000,000,000",
        " s²",
        " KiB²",
        "p < 0.0001",
        "p = 0.",
        "(s)",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    check_rendering("text", &text);
    check_rendering("markdown", &report(tmp.path(), &["--format", "markdown"]));
    let html = report(tmp.path(), &["--format", "html"]);
    check_rendering("html", &html_text(&html));
}

#[test]
fn the_rules_catch_what_issue_24_found() {
    assert_eq!(ungrouped_numbers("mean=7244099917 ns"), ["7244099917"]);
    assert!(ungrouped_numbers("7,244,099,917 ns; seed-12345, seed 12345").is_empty());
    assert_eq!(
        exponents("T² -4.55e-13 KiB², p 5.32e-12"),
        ["4.55e-13", "5.32e-12"]
    );
    let (_, bad) = unit_mismatches("demo — cpu (ns)\nMean over random layouts: 7.2 ms\n");
    assert_eq!(bad.len(), 1);
    assert_eq!(off_style("p=0.0022, p = 0.0022, CV=10.74%").len(), 2);
}

/// The CSV's comparison rows against the JSON report's numbers, cell by cell.
#[test]
fn csv_rows_for_every_comparison_carry_the_json_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path());
    let json: serde_json::Value =
        serde_json::from_str(&report(tmp.path(), &["--format", "json"])).unwrap();
    let csv = report(tmp.path(), &["--format", "csv"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let of_kind = |kind: &str| -> Vec<&csv::StringRecord> {
        rows.iter().filter(|r| &r[col("kind")] == kind).collect()
    };
    assert_eq!(of_kind("series").len(), 9);
    let find = |kind: &str, program: &str, metric: &str, new: &str, base: &str| {
        let found: Vec<_> = of_kind(kind)
            .into_iter()
            .filter(|r| {
                (
                    &r[col("program")],
                    &r[col("metric")],
                    &r[col("variant")],
                    &r[col("base")],
                ) == (program, metric, new, base)
            })
            .collect();
        assert_eq!(found.len(), 1, "{kind} {program} {metric} {new}/{base}");
        found[0].clone()
    };
    let num = |r: &csv::StringRecord, c: &str| r[col(c)].parse::<f64>().unwrap();
    // The JSON and the CSV come from two runs of the analysis, which may sum in another
    // order (the last bit of a bound can differ): equal to 1e-12, relatively.
    let same = |csv: f64, json: &serde_json::Value| {
        let json = json.as_f64().unwrap();
        assert!(csv == json, "csv {csv} json {json}");
    };
    let comparisons = json["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), 6);
    assert_eq!(of_kind("comparison").len(), 6);
    for c in comparisons {
        let s = |k: &str| c[k].as_str().unwrap();
        let r = find("comparison", s("program"), s("metric"), s("new"), s("base"));
        let effect = &c["effect"];
        same(num(&r, "ratio"), &effect["ratio"]);
        same(num(&r, "ratio_lower"), &effect["ci"]["lower"]);
        same(num(&r, "ratio_upper"), &effect["ci"]["upper"]);
        same(num(&r, "confidence"), &c["adjustment"]["confidence"]);
        assert_eq!(&r[col("verdict")], effect["verdict"].as_str().unwrap());
        assert_eq!(&r[col("direction")], s("direction"));
        assert_eq!(&r[col("p_value")], "");
        assert_eq!(&r[col("mean")], "", "a comparison row has no series cells");
    }
    let families = json["multiple"].as_array().unwrap();
    assert_eq!(families.len(), 3);
    assert_eq!(of_kind("tukey_pair").len(), 9);
    for m in families {
        for p in m["pairs"].as_array().unwrap() {
            let s = |k: &str| p[k].as_str().unwrap();
            let (program, metric) = (
                m["program"].as_str().unwrap(),
                m["metric"].as_str().unwrap(),
            );
            let r = find("tukey_pair", program, metric, s("new"), s("base"));
            same(num(&r, "ratio"), &p["ratio"]);
            same(num(&r, "ratio_lower"), &p["ratio_ci"]["lower"]);
            same(num(&r, "ratio_upper"), &p["ratio_ci"]["upper"]);
            same(num(&r, "p_value"), &p["p_value"]);
            same(num(&r, "confidence"), &json["confidence"]);
            assert_eq!(&r[col("verdict")], s("verdict"));
            assert_eq!(&r[col("direction")], s("direction"));
        }
    }
}
