//! The HTML report's Variants section on synthetic variant stores: it shows what the text
//! report says (the same interval bounds, the same interaction test, Tukey's family), one
//! line per seed in the paired plot, well-formed SVG, and no NaN or infinity — also on
//! degenerate data (one seed, constant values).

use crate::report_support;
use crate::snapshot_support::in_dir;

use regex::Regex;
use report_support::{report_stdout as report, write_dir, Design, ThreeLevel};

/// A store of `seeds` seeds × 3 executions × 5 iterations of `demo` under `variants`
/// (name, factor on every value), with a layout effect shared by the variants.
fn store(dir: &std::path::Path, seeds: u64, variants: &[(&str, f64)], constant: bool) {
    let mut design = Design::new(seeds, 3, 5);
    design.variants = variants.iter().map(|(n, f)| (n.to_string(), *f)).collect();
    let mut gen = ThreeLevel::new(7, 4e6, 0.03, 0.004, 0.01, 0.0);
    write_dir(dir, &design, &mut |_, seed, e, _, _| {
        if constant {
            4e6
        } else {
            gen.value(seed, e)
        }
    });
}

/// Every `<svg>…</svg>` of `html`, each checked to parse as XML.
fn svgs(html: &str) -> Vec<&str> {
    let found: Vec<&str> = html
        .match_indices("<svg")
        .map(|(at, _)| {
            let rest = &html[at..];
            &rest[..rest.find("</svg>").expect("a closed svg") + "</svg>".len()]
        })
        .collect();
    for svg in &found {
        roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}: {svg}"));
    }
    found
}

/// `html` from `start` to the next `end` (exclusive).
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let from = html
        .find(start)
        .unwrap_or_else(|| panic!("{start} missing"));
    let rest = &html[from..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

fn no_nan_or_infinity(html: &str) {
    let bad = Regex::new(r"NaN|\binf\b|\binfinity\b").unwrap();
    assert!(!bad.is_match(html), "{:?}", bad.find(html));
}

/// Every `a to b` of `s`, as numbers.
fn bounds(s: &str) -> Vec<(f64, f64)> {
    Regex::new(r"(-?[0-9.]+) to (-?[0-9.]+)")
        .unwrap()
        .captures_iter(s)
        .map(|c| (c[1].parse().unwrap(), c[2].parse().unwrap()))
        .collect()
}

#[test]
fn three_variants_section_matches_the_text_report() {
    let tmp = tempfile::tempdir().unwrap();
    let seeds = 6;
    store(
        tmp.path(),
        seeds,
        &[("O2", 1.0), ("O3", 0.9), ("O1", 1.2)],
        false,
    );
    let html = report(tmp.path(), &["--format", "html"]);
    let text = report(tmp.path(), &[]);
    // The text, pinned whole (its interaction tests once said "p = p =").
    insta::assert_snapshot!("three_variants_text", in_dir(&text, tmp.path()));
    no_nan_or_infinity(&html);
    svgs(&html);
    // One Variants section, opening with its heading (its words: the snapshots,
    // tests/report/snapshot.rs).
    assert_eq!(
        html.matches("<section id=\"variants\"><h2>").count(),
        1,
        "{html}"
    );
    for v in ["O2", "O3", "O1"] {
        assert!(
            html.contains(&format!("<h2>demo [{v}] — wall (ms)</h2>")),
            "series of {v}"
        );
    }
    let text_lines: Vec<&str> = text.lines().map(str::trim).collect();
    let ci_title = Regex::new(r#"<path class="ci[^"]*" d="[^"]*"><title>([^<]*)</title>"#).unwrap();
    for (k, new) in ["O3", "O1"].iter().enumerate() {
        let part = between(&html, &format!("<h3 id=\"comparison-{k}\">"), "</figure>");
        assert!(part.contains(&format!("demo wall: {new} against O2</h3>")));
        // Paired plot: one line per seed.
        let paired = between(part, "<svg", "</svg>");
        assert_eq!(
            paired.matches("<path class=\"seedline").count(),
            seeds as usize
        );
        // Ratio intervals: the bounds the text prints, on the bars and at their right, in the
        // plot's order (eq. 5, paired, bootstrap): the text gives the paired one on its
        // "decided by" line, eq. 5 and the bootstrap on the checks line below it.
        let decided = text_lines
            .iter()
            .position(|l| l.starts_with("decided by") && l.contains(&format!(": {new}/O2 = ")))
            .expect("the line of the verdict's interval in the text");
        let paired = bounds(text_lines[decided]);
        let checks = bounds(text_lines[decided + 1]);
        assert!(
            text_lines[decided + 1].starts_with("checks (they do not decide): eq. 5"),
            "{}",
            text_lines[decided + 1]
        );
        assert_eq!(
            (paired.len(), checks.len()),
            (1, 2),
            "{}",
            text_lines[decided + 1]
        );
        let expected = vec![checks[0], paired[0], checks[1]];
        let forest = between(part, "Ratio ", "</svg>");
        let titles: Vec<(f64, f64)> = ci_title
            .captures_iter(forest)
            .flat_map(|c| bounds(&c[1]))
            .collect();
        assert_eq!(titles, expected, "{forest}");
        assert_eq!(forest.matches("class=\"nochange\"").count(), 1);
        assert_eq!(forest.matches("class=\"band\"").count(), 1, "the 1 % band");
        // The band is labelled as the text report says it (before: "within ± 0.0100"): the
        // plot pinned whole.
        insta::assert_snapshot!(format!("forest_{new}"), forest);
        assert_eq!(
            forest.matches("class=\"ci strong\"").count(),
            1,
            "the basis"
        );
        // Interaction plot: one line per variant, and the text's F test beside it.
        let interaction = &part[part.rfind("<svg").unwrap()..];
        assert_eq!(interaction.matches("class=\"vline").count(), 2);
        let f_test = text_lines
            .iter()
            .find(|l| l.contains(&format!("favour {new}")))
            .and_then(|l| {
                l.split("; ")
                    .find(|p| p.starts_with("variant × binary interaction F("))
            })
            .expect("the interaction test in the text");
        let caption = between(
            &html,
            &format!("<figcaption id=\"interaction-{k}\""),
            "</figcaption>",
        );
        assert!(caption.contains(&f_test[1..]), "{caption} lacks {f_test}");
    }
    // Tukey's table: k(k−1)/2 = 3 rows, each the text's pair with its interval.
    let tukey = between(&html, "<h3 id=\"tukey-0\">", "</table>");
    assert_eq!(tukey.matches("<tr>").count(), 1 + 3, "{tukey}");
    let rows: Vec<&&str> = text_lines
        .iter()
        .filter(|l| l.contains("simultaneous CI") && l.contains(" vs "))
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    for line in rows {
        let pair = &line[..line.find("   ").unwrap()];
        let (lo, hi) = bounds(line)[0];
        assert!(
            tukey.contains(&format!("<td>{pair}</td>"))
                && tukey.contains(&format!("simultaneous CI {lo:.4} to {hi:.4}</td>")),
            "{line} not in {tukey}"
        );
    }
}

/// One seed per variant (no interval, no pairs to speak of) and constant values (a tie):
/// the section is still there, with well-formed plots and no NaN or infinity.
#[test]
fn degenerate_variant_stores_give_well_formed_html() {
    for (seeds, constant) in [(1, false), (2, true), (3, true)] {
        let tmp = tempfile::tempdir().unwrap();
        store(tmp.path(), seeds, &[("A", 1.0), ("B", 1.0)], constant);
        let html = report(tmp.path(), &["--format", "html"]);
        no_nan_or_infinity(&html);
        assert_eq!(
            html.matches("<section id=\"variants\">").count(),
            1,
            "{seeds} seeds"
        );
        assert!(!svgs(between(&html, "<section id=\"variants\">", "</section>")).is_empty());
    }
}

#[test]
fn the_page_opens_with_the_answers_and_contents_that_link_to_every_section() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path(), 6, &[("O2", 1.0), ("O3", 0.9)], false);
    let html = report(tmp.path(), &["--format", "html"]);
    // The variant answer is the summary's first line, after the contents and before any
    // single series, as in the text report; the intervals behind it close the report.
    let summary = between(&html, "<div id=\"summary\">", "</div>");
    let first = between(summary, "<li>", "</li>").trim_start_matches("<li>");
    assert!(
        first.starts_with("demo wall: ") && first.contains("O3"),
        "{first}"
    );
    let text = report(tmp.path(), &[]);
    let lead = &text[text.find("In short, the variants:").unwrap()..];
    assert_eq!(
        lead.lines().nth(1).unwrap().trim(),
        first.replace("&lt;", "<")
    );
    let summary_at = html.find("<div id=\"summary\">").unwrap();
    let variants = html.find("<section id=\"variants\">").unwrap();
    let contents = html.find("<nav id=\"contents\">").unwrap();
    let series = html.find("<section id=\"series-0\"").unwrap();
    assert!(contents < summary_at && summary_at < series && series < variants);
    // Every link of the contents leads to an element of the page, and every series is
    // listed.
    let nav = between(&html, "<nav id=\"contents\">", "</nav>");
    let links: Vec<&str> = Regex::new("href=\"#([^\"]+)\"")
        .unwrap()
        .captures_iter(nav)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    assert!(links.contains(&"variants"), "{nav}");
    let series_count = html.matches("<section id=\"series-").count();
    assert!(series_count >= 2);
    for i in 0..series_count {
        assert!(links.contains(&format!("series-{i}").as_str()), "{nav}");
    }
    for id in links {
        assert!(
            html.contains(&format!("id=\"{id}\"")),
            "#{id} leads nowhere"
        );
    }
}

/// The variants' plots are drawn in the unit of the base variant's section (its title and
/// every number of its text), not in one chosen from the plotted values: before, the unit came
/// from the first seed's mean, so a base averaging 1.04 ms whose first seeds ran in 0.99 ms
/// was plotted in µs beside a section in ms.
#[test]
fn variant_plots_are_in_the_unit_of_the_base_variants_section() {
    let tmp = tempfile::tempdir().unwrap();
    let mut design = Design::new(4, 3, 5);
    design.variants = vec![("O2".to_string(), 1.0), ("O3".to_string(), 0.98)];
    // Every binary but seed-4 below a millisecond; the mean over layouts above one.
    write_dir(tmp.path(), &design, &mut |_, seed, e, i, _| {
        let mean = if seed == Some(4) { 1.2e6 } else { 0.99e6 };
        mean * (1.0 + 1e-4 * f64::from(e * 5 + i))
    });
    let html = report(tmp.path(), &["--format", "html"]);
    assert_eq!(
        html.matches("<h2>demo [O2] — wall (ms)</h2>").count(),
        1,
        "{html}"
    );
    let plots = between(
        &html,
        "<div class=\"plots\" id=\"comparison-plots-0\">",
        "</figure>",
    );
    assert_eq!(svgs(plots).len(), 3, "{plots}");
    assert!(plots.contains("wall (ms)"), "{plots}");
    assert!(!plots.contains("µs"), "{plots}");
}
