//! The pieces `explain --format html` (and the explain section of the report's page) is
//! made of: verdict boxes, tables, the style sheet, capitalised sentences. The report's page
//! itself is the document's HTML backend ([`crate::report::document::html`]), whose colours
//! and style sheet these are.

use std::fmt::Write;

use super::svg::escape;
use crate::analysis::answers::model::Verdict;
use crate::report::document::Tone;

/// `text` with its first letter in upper case (the verdicts stand alone in their box).
pub(crate) use crate::report::numfmt::capitalised;

/// The CSS class of a verdict box (one place for the colours every section uses).
pub(crate) fn verdict_class(v: Verdict) -> &'static str {
    crate::report::document::html::tone_class(tone(v))
}

/// The colour of a verdict's box, on the report's page and explain's.
pub(crate) fn tone(v: Verdict) -> Tone {
    match v {
        Verdict::Detected => Tone::Found,
        Verdict::Negligible => Tone::Negligible,
        Verdict::NotDetected => Tone::NotFound,
        Verdict::Undetermined => Tone::Neutral,
    }
}

/// A table: a header row of `headers`, then `rows`, every cell escaped.
pub(crate) fn table<R: AsRef<[String]>>(
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
