//! The pieces every section of the HTML report is made of (verdict boxes, tables, the style sheet,
//! capitalised sentences): a leaf module, so that the main page and its Machines and
//! Variants sections share them without importing each other.

use std::fmt::Write;

use super::svg::escape;
use crate::analysis::report::model::Verdict;

/// `text` with its first letter in upper case (the verdicts stand alone in their box).
pub use crate::analysis::numfmt::capitalised;

/// The CSS class of a verdict box (one place for the colours every section uses).
pub fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Detected => "verdict detected",
        Verdict::Negligible => "verdict negligible",
        Verdict::NotDetected => "verdict not_detected",
        Verdict::Undetermined => "verdict",
    }
}

/// A table: a header row of `headers`, then `rows`, every cell escaped.
pub fn table<R: AsRef<[String]>>(
    out: &mut String,
    headers: &[&str],
    rows: &[R],
) -> std::fmt::Result {
    out.push_str("<table><tr>");
    for h in headers {
        write!(out, "<th>{}</th>", escape(h))?;
    }
    writeln!(out, "</tr>")?;
    for row in rows {
        out.push_str("<tr>");
        for cell in row.as_ref() {
            write!(out, "<td>{}</td>", escape(cell))?;
        }
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</table>")
}

/// The style sheet of every HTML page (the report and `explain --format html`).
pub const STYLE: &str = r#"
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2430;max-width:1150px;margin:1.5em auto;padding:0 1em;background:#fff}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.25em;border-bottom:2px solid #d5dbe5;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.05em;margin:1.4em 0 .4em}
table{border-collapse:collapse;margin:.5em 0}#glance td,#glance th{text-align:left}th,td{padding:.25em .8em;border-bottom:1px solid #e2e6ee}
td{text-align:right;font-variant-numeric:tabular-nums}td:first-child,th:first-child{text-align:left}
.verdict{padding:.6em .9em;border-left:5px solid #9aa5b4;background:#f5f7fa;margin:.6em 0}
.detected{border-color:#d9822b;background:#fdf4ea}.not_detected{border-color:#3f8f5a;background:#eef7f1}
.plots{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}
.pair{display:flex;gap:4px;border:1px solid #e2e6ee;padding:4px;border-radius:4px}
svg{background:#fff}svg .ttl{font-size:11px;font-weight:600;fill:#1d2430}
svg .tick{font-size:9px;fill:#5b6676}svg .lbl{font-size:10px;fill:#3a4452}
svg .axis{stroke:#5b6676;fill:none}svg .grid{stroke:#eef0f4}
svg .pt{fill:#2f6db5;stroke:#2f6db5}svg .base{fill:#e07b00;stroke:#e07b00}svg .basetick{fill:#e07b00;font-weight:700}
svg .box{fill-opacity:.12}svg .whisker{fill:none;stroke-width:1}svg .median{stroke:#1d2430;stroke-width:1.5}
svg .baseline-line{stroke:#e07b00;stroke-dasharray:5 3}
svg .line{fill:none;stroke:#2f6db5;stroke-width:1;stroke-opacity:.6}
svg .cp{stroke:#c0392b;stroke-dasharray:4 3}svg .band{fill:#9aa5b4;fill-opacity:.18}
svg .acf{stroke:#2f6db5;stroke-width:3}svg .bar{fill:#2f6db5}
.note{color:#5b6676;font-size:.92em}ul{padding-left:1.3em}
.warning{color:#8a3b00;font-weight:600}
nav#contents{background:#f5f7fa;padding:.5em 1em;border-radius:4px;font-size:.92em}nav#contents ul{margin:.3em 0}
figure{margin:0}figcaption{max-width:520px}
svg .seedline{fill:none;stroke:#9aa5b4;stroke-width:1.2}svg .seedline.lower{stroke:#3f8f5a}svg .seedline.higher{stroke:#c0392b}
svg .vline{fill:none;stroke-width:1.5}svg .legend{font-weight:600;stroke:none}
svg .ci{stroke:#2f6db5;stroke-width:2;fill:none}svg .ci.strong{stroke:#1d2430;stroke-width:3}svg .strong{font-weight:700}
svg .nochange{stroke:#1d2430;stroke-dasharray:3 3}
"#;
