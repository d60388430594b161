//! The HTML report in headless Chromium: it renders (a non-empty screenshot), its sections
//! are in the DOM, and nothing goes wrong on the page — no script error, no failed or
//! attempted network load (a Content-Security-Policy that forbids every fetch is added to
//! a copy of the page, and violations are written into the DOM).

use crate::report_support;

use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::Command;

use layoutrand::report::export::svg::escape;
use report_support::{report_stdout as report, store_on_machines, write_dir, Design, ThreeLevel};

fn chromium() -> PathBuf {
    [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
    .expect("Chromium is needed for this test (scripts/setup.sh installs it)")
}

/// Catches errors and CSP violations into attributes of <html>, which --dump-dom shows.
const PROBE: &str = r#"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<script>
(function(){var r=document.documentElement;function note(k,m){r.setAttribute(k,(r.getAttribute(k)||'')+m+' | ');}
window.addEventListener('error',function(e){note('data-page-errors',e.message||('failed to load '+(e.target&&(e.target.src||e.target.href))));},true);
document.addEventListener('securitypolicyviolation',function(e){note('data-csp-violations',e.blockedURI+' '+e.violatedDirective);});
var ce=console.error;console.error=function(){note('data-console-errors',Array.prototype.join.call(arguments,' '));ce.apply(console,arguments);};
r.setAttribute('data-probe','ready');})();
</script>"#;

fn headless(profile: &Path) -> Command {
    let mut c = Command::new(chromium());
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

/// The page at `url` drawn by headless Chromium in a window of `size` (`W,H`), with its
/// profile in `dir/profile`: the screenshot's bytes (Chromium must succeed).
fn screenshot(dir: &Path, profile: &str, size: &str, url: &str) -> Vec<u8> {
    let shot = dir.join(format!("{profile}.png"));
    let run = headless(&dir.join(profile))
        .arg(format!("--window-size={size}"))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(url)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read(&shot).unwrap()
}

#[test]
fn html_report_renders_in_headless_chromium_without_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("exp");
    std::fs::create_dir(&dir).unwrap();
    let mut design = Design::new(10, 2, 12);
    design.warmup = 2;
    let mut gen = ThreeLevel::new(3, 4e6, 0.02, 0.003, 0.01, -0.03);
    write_dir(&dir, &design, &mut |_, seed, e, i, _| {
        gen.value(seed, e) * if i < 3 { 1.25 } else { 1.0 }
    });
    let out = assert_cmd::Command::cargo_bin("layoutrand")
        .unwrap()
        .args(["report", "--format", "html"])
        .arg(&dir)
        .assert()
        .success();
    let html = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(!html.contains("<script"), "the report itself has no script");
    assert!(
        !html.contains("id=\"machines\""),
        "no machine section without recorded machines"
    );
    for forbidden in ["https://", "src=\"http", "href=\"http", "@import", "url("] {
        assert!(
            !html.contains(forbidden),
            "no external resource: found {forbidden}"
        );
    }

    let page = tmp.path().join("report.html");
    std::fs::write(&page, html.replacen("<head>", &format!("<head>{PROBE}"), 1)).unwrap();
    let url = format!("file://{}", page.display());

    let dom = headless(&tmp.path().join("profile1"))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .unwrap();
    assert!(
        dom.status.success(),
        "{}",
        String::from_utf8_lossy(&dom.stderr)
    );
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    // The probe writes into the attributes of <html>: look at that tag only (the script's
    // own text names the attributes too).
    let start = dom_text.find("<html").expect("an <html> element");
    let html_tag = &dom_text[start..start + dom_text[start..].find('>').unwrap()];
    assert!(
        html_tag.contains("data-probe=\"ready\""),
        "the probe ran: {html_tag}"
    );
    for attr in [
        "data-page-errors",
        "data-csp-violations",
        "data-console-errors",
    ] {
        assert!(!html_tag.contains(attr), "{html_tag}");
    }
    for id in [
        "glance",
        "contents",
        "summary",
        "series-0",
        "levels-0",
        "sensitivity-0",
        "shift-0",
        "binaries-0",
        "variance-0",
        "runseq-0",
        "lags-0",
        "acf-0",
        "diagnostics-0",
    ] {
        assert!(
            dom_text.contains(&format!("id=\"{id}\"")),
            "section {id} missing"
        );
    }
    // Four lag pairs and one ACF pair, each real beside reordered: two plots a pair (their
    // titles are in the snapshots, tests/report/snapshot.rs).
    let lags = &dom_text[dom_text.find("id=\"lags-0\"").unwrap()..];
    let (lags, acf) = lags.split_at(lags.find("id=\"acf-0\"").unwrap());
    let acf = &acf[..acf.find("</div></div>").unwrap()];
    assert_eq!(lags.matches("<div class=\"pair\">").count(), 4, "{lags}");
    assert_eq!(lags.matches("<svg").count(), 8, "{lags}");
    assert_eq!(acf.matches("<div class=\"pair\">").count(), 1, "{acf}");
    assert_eq!(acf.matches("<svg").count(), 2, "{acf}");
    let stderr = String::from_utf8_lossy(&dom.stderr);
    assert!(!stderr.contains("Uncaught"), "{stderr}");

    // Control: the probe does catch a page that tries to fetch something.
    let control = tmp.path().join("control.html");
    std::fs::write(
        &control,
        html.replacen("<head>", &format!("<head>{PROBE}"), 1)
            .replacen(
                "</body>",
                "<img src=\"https://example.invalid/x.png\"></body>",
                1,
            ),
    )
    .unwrap();
    let dom = headless(&tmp.path().join("profile3"))
        .arg("--dump-dom")
        .arg(format!("file://{}", control.display()))
        .output()
        .unwrap();
    let control_dom = String::from_utf8_lossy(&dom.stdout);
    let start = control_dom.find("<html").unwrap();
    let tag = &control_dom[start..start + control_dom[start..].find('>').unwrap()];
    assert!(
        tag.contains("data-csp-violations"),
        "the probe missed a fetch: {tag}"
    );

    let png = screenshot(tmp.path(), "profile2", "1200,2400", &url);
    assert!(png.len() > 20_000, "screenshot of {} bytes", png.len());
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

/// The text report's rows of its Machines section: (machine, executions, mean, offset),
/// read back from the aligned table (cells two or more spaces apart) under its header.
fn text_machine_rows(text: &str) -> Vec<[String; 4]> {
    let section = &text[text.find("Machines (").expect("a Machines section")..];
    let split = Regex::new(r"\s{2,}").unwrap();
    section
        .lines()
        .skip_while(|l| !l.starts_with("machine "))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            let cells: Vec<&str> = split.split(l.trim()).collect();
            assert_eq!(cells.len(), 4, "{l}");
            [0, 1, 2, 3].map(|i| cells[i].to_string())
        })
        .collect()
}

#[test]
fn html_report_has_the_machine_section_of_the_text_report() {
    let tmp = tempfile::tempdir().unwrap();
    // Rounds 0–1 on n1, rounds 2–3 on n2, and n2 5 % slower: the machines differ.
    let dir = tmp.path().join("two");
    std::fs::create_dir(&dir).unwrap();
    store_on_machines(&dir, &|e| if e < 2 { "n1" } else { "n2" }, 0.05);
    let html = report(&dir, &["--format", "html"]);
    let text = report(&dir, &[]);
    let json: serde_json::Value =
        serde_json::from_str(&report(&dir, &["--format", "json"])).unwrap();
    let m = &json["machines"][0];
    assert_eq!(m["differ"], true, "{m}");
    for id in ["machines", "machines-0"] {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id} missing");
    }
    let section = machine_section(&html);
    // The section, pinned whole: its heading, the verdict (machines account for a share of
    // the variance; they differ detectably), the table, the interval's treatment.
    insta::assert_snapshot!("machines_differ_section", section);
    assert_eq!(
        section.matches("<div class=\"verdict detected\">").count(),
        1,
        "{section}"
    );
    // The same rows as the text report, in a table (9 binaries × 2 rounds per machine).
    let rows = text_machine_rows(&text);
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!((rows[0][0].as_str(), rows[0][1].as_str()), ("n1", "18"));
    assert_eq!((rows[1][0].as_str(), rows[1][1].as_str()), ("n2", "18"));
    for row in &rows {
        let cells: String = row.iter().map(|c| format!("<td>{c}</td>")).collect();
        assert!(section.contains(&cells), "{cells} missing from {section}");
    }
    // The share of variance, the warning and the interval's treatment, as in the text.
    let finding = m["text"].as_str().unwrap();
    assert!(text.contains(finding) && section.contains(&escape(&finding[1..])));
    let warning = json["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .find(|w| w.starts_with("demo wall: the machines differ detectably"))
        .expect("the machine warning");
    // The warning closes the page, as it closes the text report.
    let warnings = &html[html.find("<section id=\"warnings\">").unwrap()..];
    assert!(warnings.contains(&format!("<li>{}</li>", escape(warning))));
    assert!(text[text.find("Warnings:").unwrap()..].contains(warning));
    let treatment = layoutrand::report::words::machines::INTERVAL_TREATMENT;
    assert!(text.contains(treatment));
    assert!(section.contains(&format!("<p>{}</p>", escape(treatment))));
    assert!(!html.contains("NaN"));

    // One machine: the section says so, without a verdict or a warning.
    let one = tmp.path().join("one");
    std::fs::create_dir(&one).unwrap();
    store_on_machines(&one, &|_| "n1", 0.0);
    let html = report(&one, &["--format", "html"]);
    // The section, pinned whole: one machine ran every execution (n1, 36), no offset.
    let section = machine_section(&html);
    insta::assert_snapshot!("one_machine_section", section);
    assert_eq!(
        section.matches("<div class=\"verdict\">").count(),
        1,
        "{section}"
    );
    assert!(!html.contains("machines-warning"));
}

/// The `<section id="machines">` of an HTML report, up to its end.
fn machine_section(html: &str) -> &str {
    let section = &html[html.find("<section id=\"machines\">").unwrap()..];
    &section[..section.find("</section>").unwrap()]
}

/// Measures the glance on the page, once laid out: its bottom edge, into an attribute of
/// <html> (which --dump-dom shows).
const GLANCE_PROBE: &str = r#"<script>
(function(){var r=document.documentElement,g=document.getElementById('glance');
r.setAttribute('data-glance-bottom',String(Math.ceil(g.getBoundingClientRect().bottom)));})();
</script>"#;

/// Issue 55: the glance of a cachegrind-like store with two variants (twelve counters, one
/// of them moved by the layout) fits one 1280 × 800 screen in headless Chromium — the
/// variants' answer first, the counters that answer nothing folded under one line — where it
/// was 24 rows and a figure of 24 before the first comparison. The page is measured in the
/// browser and its screenshot drawn.
#[test]
fn the_glance_of_many_counters_and_two_variants_fits_one_screen() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("exp");
    std::fs::create_dir(&dir).unwrap();
    let mut design = Design::new(10, 2, 1);
    let counters = [
        "estimated_cycles",
        "I1_misses",
        "D1_misses",
        "D1mr",
        "D1mw",
        "DLmr",
        "DLmw",
        "Dr",
        "Dw",
        "ILmr",
        "Ir",
        "LL_misses",
    ];
    design.metrics = counters
        .iter()
        .map(|m| (m.to_string(), String::new()))
        .collect();
    design.variants = vec![("O2".into(), 1.0), ("O3".into(), 0.98)];
    let mut noise = report_support::Normal::new(55, "glance-screen");
    write_dir(&dir, &design, &mut |_, seed, _, _, m| {
        let layout = (seed.unwrap_or(0) * 7 % 5) as f64 - 2.0;
        let base = 1e6 * (1.0 + 0.01 * m as f64);
        match m {
            // The layout moves the instruction-cache misses by about 8 %.
            1 => base * (1.0 + 0.04 * layout + 0.002 * noise.draw()),
            // The others by nothing but a little run noise.
            _ => base * (1.0 + 0.0005 * noise.draw()),
        }
    });
    let html = report(&dir, &["--format", "html"]);
    assert_eq!(
        html.matches("id=\"glance-folded\"").count(),
        1,
        "the quiet counters are folded"
    );
    let page = tmp.path().join("report.html");
    std::fs::write(
        &page,
        html.replacen("</body>", &format!("{GLANCE_PROBE}</body>"), 1),
    )
    .unwrap();
    let url = format!("file://{}", page.display());
    let dom = headless(&tmp.path().join("profile"))
        .args(["--window-size=1280,800", "--dump-dom"])
        .arg(&url)
        .output()
        .unwrap();
    assert!(
        dom.status.success(),
        "{}",
        String::from_utf8_lossy(&dom.stderr)
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    let attribute = |name: &str| -> f64 {
        let at = dom
            .find(&format!("{name}=\""))
            .unwrap_or_else(|| panic!("{name} missing"));
        let rest = &dom[at + name.len() + 2..];
        rest[..rest.find('"').unwrap()].parse().unwrap()
    };
    // The page laid out 1280 pixels wide (--dump-dom's window is less high than the
    // screenshot's; the glance is held to the screenshot's 800).
    let bottom = attribute("data-glance-bottom");
    assert!(
        bottom <= 800.0,
        "the glance ends at {bottom} px of an 800 px screen"
    );
    // The variants' answer leads the glance.
    let glance = &dom[dom.find("id=\"glance\"").unwrap()..];
    assert!(
        glance.find("O3 vs O2").unwrap() < glance.find("demo [O2] estimated_cycles").unwrap(),
        "the comparisons come first"
    );
    let png = screenshot(tmp.path(), "profile-shot", "1280,800", &url);
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
}
