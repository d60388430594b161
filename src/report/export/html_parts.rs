//! The pieces every section of the HTML report is made of (verdict boxes, tables,
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
