//! The glance that opens every report (issue 37): one row per program and metric whose words
//! agree with the JSON report's verdicts and numbers, a row per variant comparison, the same
//! rows in text, Markdown and HTML, and in HTML a figure with one dot per randomised binary,
//! all before the contents and the paragraphs.

use crate::report_support;

use report_support::{report_stdout as report, write_dir, Design, ThreeLevel};

/// 10 seeds × 3 executions × 5 iterations of `demo`, variants A and B (B 8 % slower), the
/// layout moving the mean by `layout` (relative sd) against 0.4 % execution noise, with an
/// as-built binary.
fn store(dir: &std::path::Path, layout: f64) {
    let mut design = Design::new(10, 3, 5);
    design.variants = vec![("A".into(), 1.0), ("B".into(), 1.08)];
    design.as_built = Some(1.0);
    let mut gen = ThreeLevel::new(11, 4e6, layout, 0.004, 0.01, 0.0);
    write_dir(dir, &design, &mut |_, seed, e, _, _| gen.value(seed, e));
}

/// The first number of `cell` (`sensitive: ± 3.1 % per layout` → 3.1).
fn first_number(cell: &str) -> f64 {
    let re = regex::Regex::new(r"([0-9]+(?:\.[0-9]+)?)").unwrap();
    re.captures(cell).unwrap()[1].parse().unwrap()
}

/// The text glance: its title and its tables (indented rows, an empty line between them).
fn text_glance(text: &str) -> String {
    let glance = &text[text.find("At a glance:").expect("no glance")..];
    let mut lines = vec!["At a glance:"];
    lines.extend(
        glance
            .lines()
            .skip(1)
            .take_while(|l| l.is_empty() || l.starts_with("  ")),
    );
    lines.join("\n").trim_end().to_string()
}

/// The text glance's row that starts with `name`.
fn text_row<'a>(text: &'a str, name: &str) -> &'a str {
    let glance = &text[text.find("At a glance:").expect("no glance")..];
    glance
        .lines()
        .find(|l| l.trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("no glance row {name}:\n{glance}"))
}

#[test]
fn the_glance_says_what_the_json_says_and_comes_first() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path(), 0.04);
    let text = report(dir.path(), &[]);
    let json: serde_json::Value =
        serde_json::from_str(&report(dir.path(), &["--format", "json"])).unwrap();
    let glance_at = text.find("At a glance:").unwrap();
    let first_series = text.find("demo [A] — wall").unwrap();
    assert!(glance_at < first_series, "the glance must open the report");
    // The glance's words, pinned whole (sensitive: ± … per layout; B vs A slower: + …);
    // here their verdicts and numbers against the JSON's.
    insta::assert_snapshot!("sensitive_glance", text_glance(&text));
    for s in json["series"].as_array().unwrap() {
        let variant = s["variant"].as_str().unwrap();
        let row = text_row(&text, &format!("demo [{variant}] wall"));
        let sens = &s["sensitivity"];
        match sens["verdict"].as_str().unwrap() {
            "detected" => {
                let shown = first_number(&row[row.find("sensitive").unwrap()..]);
                let truth = 100.0 * sens["layout_variation"].as_f64().unwrap();
                assert!(
                    (shown - truth).abs() <= 0.05 * truth,
                    "{row}: {shown} against the JSON's {truth}"
                );
            }
            other => panic!("a 4 % layout effect against 0.4 % noise must be detected: {other}"),
        }
        let default = s["default_layout"]["verdict"].as_str().unwrap();
        let word = if default == "not_detected" {
            "ordinary"
        } else {
            "unusual"
        };
        assert!(row.contains(word), "{row} ({default})");
        assert!(
            s["as_built"].is_object(),
            "the store has an as-built binary"
        );
    }
    let comparison = text_row(&text, "B vs A");
    let ratio = json["comparisons"][0]["effect"]["ratio"].as_f64().unwrap();
    let shown = first_number(&comparison[comparison.find("slower").unwrap()..]);
    assert!(
        (shown - 100.0 * (ratio - 1.0)).abs() < 0.05 * 100.0 * (ratio - 1.0),
        "{comparison}: ratio {ratio}"
    );
    // Markdown carries the same rows as a table.
    let markdown = report(dir.path(), &["--format", "markdown"]);
    let md_at = markdown.find("## At a glance").unwrap();
    assert!(md_at < markdown.find("## demo [A]").unwrap());
    assert!(markdown.contains(&format!(
        "| demo [A] wall | {} |",
        text_row(&text, "demo [A] wall")
            .trim()
            .trim_start_matches("demo [A] wall")
            .split("   ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect::<Vec<_>>()
            .join(" | ")
    )));
    // HTML: the glance, then the contents, then the paragraphs; one dot per seed per series.
    let html = report(dir.path(), &["--format", "html"]);
    let glance = html.find("<section id=\"glance\">").unwrap();
    let contents = html.find("<nav id=\"contents\">").unwrap();
    let summary = html.find("<div id=\"summary\">").unwrap();
    assert!(glance < contents && contents < summary);
    let section = &html[glance..contents];
    let svgs: Vec<&str> = section
        .match_indices("<svg")
        .map(|(at, _)| &section[at..at + section[at..].find("</svg>").unwrap() + 6])
        .collect();
    for svg in &svgs {
        roxmltree::Document::parse(svg).unwrap();
    }
    // The comparisons' forest plot first (one estimate per comparison), then the binaries.
    assert_eq!(svgs.len(), 2, "{section}");
    // Its title (B against A: each change and its interval) with it: pinned whole.
    insta::assert_snapshot!("forest_svg", svgs[0]);
    assert_eq!(svgs[0].matches("<circle").count(), 1, "{}", svgs[0]);
    assert_eq!(
        svgs[1].matches("<circle").count(),
        2 * 10,
        "one dot per seed and variant"
    );
}

#[test]
fn without_a_layout_effect_the_glance_does_not_claim_one() {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path(), 0.0);
    let text = report(dir.path(), &[]);
    let json: serde_json::Value =
        serde_json::from_str(&report(dir.path(), &["--format", "json"])).unwrap();
    for s in json["series"].as_array().unwrap() {
        let variant = s["variant"].as_str().unwrap();
        let row = text_row(&text, &format!("demo [{variant}] wall"));
        let expected = match s["sensitivity"]["verdict"].as_str().unwrap() {
            "detected" => "sensitive",
            "negligible" => "negligible",
            "not_detected" => "not detected",
            _ => "cannot tell",
        };
        assert!(row.contains(expected), "{row}");
    }
    // The glance, pinned whole: no "sensitive: ±" where nothing was detected.
    insta::assert_snapshot!("insensitive_glance", text_glance(&text));
}

/// Issue 55: with data seeds the glance carries the variance split's bar (code, data, run
/// noise) of the first series that has one, before the table; without data seeds it has
/// none.
#[test]
fn the_glance_carries_the_variance_split_bar_with_data_seeds() {
    use report_support::Crossed;
    let dir = tempfile::tempdir().unwrap();
    let mut design = Design::new(10, 12, 5);
    design.data_seeds = 4;
    // The data layout moves the metric by 5 %, the code by 2 %, a little run noise.
    let mut gen = Crossed::new(1e6, [0.02, 0.05, 0.0, 0.002, 0.001], 35);
    write_dir(dir.path(), &design, &mut |_, seed, e, _, _| {
        gen.value(&design, seed, e)
    });
    let html = report(dir.path(), &["--format", "html"]);
    let glance = html.split("id=\"glance\"").nth(1).expect("a glance");
    let glance = glance.split("</section>").next().unwrap();
    let bar = glance
        .find("Where the variation of demo wall comes from")
        .expect("the split's bar in the glance");
    assert!(
        bar < glance.find("<table").unwrap(),
        "the bar comes before the table"
    );
    // The bar, pinned whole: its parts code, data, run noise.
    let svg = &glance[glance[..bar].rfind("<svg").expect("the bar's figure")..];
    let svg = &svg[..svg.find("</svg>").unwrap() + 6];
    roxmltree::Document::parse(svg).unwrap();
    insta::assert_snapshot!("variance_split_bar", svg);
    // One data seed: no split, no bar.
    let plain = tempfile::tempdir().unwrap();
    let design = Design::new(10, 3, 5);
    let mut gen = Crossed::new(1e6, [0.02, 0.0, 0.0, 0.002, 0.001], 35);
    write_dir(plain.path(), &design, &mut |_, seed, e, _, _| {
        gen.value(&design, seed, e)
    });
    let html = report(plain.path(), &["--format", "html"]);
    let glance = html.split("id=\"glance\"").nth(1).expect("a glance");
    let glance = glance.split("</section>").next().unwrap();
    assert!(
        !glance[..glance.find("<table").unwrap()].contains("<svg"),
        "no figure before the table: {glance}"
    );
}
