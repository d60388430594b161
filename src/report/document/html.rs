//! The HTML backend: a [`Document`] as one self-contained page — no script, no external
//! style sheet, no font or image fetched, so it opens offline and can be attached to an
//! e-mail or a CI artefact as it is. Every word is escaped here ([`escape`]); the only markup
//! taken as it is comes from the plots ([`Graphic`], drawn by the SVG module, which escapes
//! its own text) and from [`Block::Markup`].
//!
//! Top-level sections are `<section>`s with their anchor and an `<h2>`; sections inside them
//! are headings one level down (no nested `<section>`), so a part reads as one element.

use std::fmt::Write;

use super::{Block, CellKind, Document, Figure, Graphic, Span, Table, Text, Tone, Verdict};

/// Escapes text for HTML and SVG.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page's head and the opening of its body: `title` (plain words) in the tab, the style
/// sheet inline.
pub(crate) fn head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(title)
    )
}

/// The document as a page.
pub(crate) fn render(doc: &Document) -> String {
    let mut out = head(&super::text::plain(&doc.title));
    let level = usize::from(doc.title_level.clamp(1, 6));
    let _ = writeln!(out, "<h{level}>{}</h{level}>", inline(&doc.title));
    blocks(&mut out, &doc.blocks, &doc.blocks, 0);
    out.push_str("</body></html>\n");
    out
}

/// `text` escaped, with its styles: `<strong>`, `<code>`.
pub(crate) fn inline(text: &Text) -> String {
    text.0
        .iter()
        .map(|s| match s {
            Span::Plain(w) => escape(w),
            Span::Strong(w) => format!("<strong>{}</strong>", escape(w)),
            Span::Code(w) => format!("<code>{}</code>", escape(w)),
        })
        .collect()
}

/// ` id="…"` for an anchor, or nothing.
fn id_attribute(id: Option<&str>) -> String {
    id.map(|i| format!(" id=\"{}\"", escape(i)))
        .unwrap_or_default()
}

/// The heading level of a section `depth` sections down (`<h2>` at the top).
fn heading_level(depth: usize) -> usize {
    (depth + 2).min(6)
}

/// `blocks` in order, `depth` sections down; `root` is the whole document (for the contents).
fn blocks(out: &mut String, root: &[Block], blocks: &[Block], depth: usize) {
    for block in blocks {
        match block {
            Block::Paragraphs(paragraphs) => {
                for p in paragraphs {
                    let _ = writeln!(out, "<p>{}</p>", inline(p));
                }
            }
            Block::Section {
                title,
                id,
                blocks: body,
                ..
            } => section(out, root, title, id.as_deref(), body, depth),
            Block::Table(t) => table(out, t),
            Block::List { bullets, items } => {
                out.push_str(if *bullets {
                    "<ul>"
                } else {
                    "<ul class=\"lines\">"
                });
                for item in items {
                    let _ = write!(out, "<li>{}</li>", inline(item));
                }
                out.push_str("</ul>\n");
            }
            Block::Preformatted(lines) => {
                let _ = writeln!(out, "<pre>{}</pre>", escape(&lines.join("\n")));
            }
            Block::Verdict(v) => verdict(out, v, depth),
            Block::Figure(f) => figure(out, f, depth),
            Block::Contents => contents(out, root),
            Block::Group {
                id,
                details,
                blocks: body,
            } => group(out, root, id.as_deref(), details.as_deref(), body, depth),
            Block::Markup { html, .. } => out.push_str(html),
            Block::PageOnly {
                summary,
                blocks: body,
            } => group(out, root, None, Some(summary), body, depth),
        }
    }
}

/// A group: folded under its summary line when it has one, under its anchor when it has
/// one, else its blocks as they are.
fn group(
    out: &mut String,
    root: &[Block],
    id: Option<&str>,
    details: Option<&str>,
    body: &[Block],
    depth: usize,
) {
    let attribute = id_attribute(id);
    let close = match (details, id) {
        (Some(summary), _) => {
            let _ = writeln!(
                out,
                "<details{attribute}><summary>{}</summary>",
                escape(summary)
            );
            "</details>\n"
        }
        (None, Some(_)) => {
            let _ = writeln!(out, "<div{attribute}>");
            "</div>\n"
        }
        (None, None) => "",
    };
    blocks(out, root, body, depth);
    out.push_str(close);
}

/// A section: at the top a `<section>` with its anchor and an `<h2>`; further down a
/// heading with the anchor, its blocks after it.
fn section(
    out: &mut String,
    root: &[Block],
    title: &str,
    id: Option<&str>,
    body: &[Block],
    depth: usize,
) {
    let h = heading_level(depth);
    if depth == 0 {
        let _ = writeln!(
            out,
            "<section{}><h2>{}</h2>",
            id_attribute(id),
            escape(title)
        );
        blocks(out, root, body, 1);
        out.push_str("</section>\n");
    } else {
        let _ = writeln!(out, "<h{h}{}>{}</h{h}>", id_attribute(id), escape(title));
        blocks(out, root, body, depth + 1);
    }
}

/// A table, every cell escaped; a table of words is left-aligned throughout.
fn table(out: &mut String, t: &Table) {
    out.push_str(if t.kinds.contains(&CellKind::Number) {
        "<table><tr>"
    } else {
        "<table class=\"words\"><tr>"
    });
    for h in &t.headers {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr>\n");
    for row in &t.rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{}</td>", inline(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

/// The CSS classes of a verdict's box (one place for the colours every page uses).
pub(crate) fn tone_class(tone: Tone) -> &'static str {
    match tone {
        Tone::Found => "verdict detected",
        Tone::Negligible => "verdict negligible",
        Tone::NotFound => "verdict not_detected",
        Tone::Neutral => "verdict",
    }
}

/// A block's heading with its anchor, when it has a heading; returns the anchor attribute
/// the block's own element takes (the anchor, when there was no heading to take it).
fn heading(out: &mut String, title: Option<&str>, id: Option<&str>, depth: usize) -> String {
    let Some(title) = title else {
        return id_attribute(id);
    };
    let h = heading_level(depth);
    let _ = writeln!(out, "<h{h}{}>{}</h{h}>", id_attribute(id), escape(title));
    String::new()
}

/// An answer: its heading, then its box (or its line as a paragraph, without a tone).
fn verdict(out: &mut String, v: &Verdict, depth: usize) {
    let own_id = heading(out, v.heading.as_deref(), v.id.as_deref(), depth);
    match v.tone {
        Some(tone) => {
            let _ = writeln!(
                out,
                "<div class=\"{}\"{own_id}>{}</div>",
                tone_class(tone),
                escape(&v.boxed)
            );
        }
        None => {
            let _ = writeln!(out, "<p{own_id}>{}</p>", inline(&v.line));
        }
    }
}

/// Plots: the heading with the anchor, the note, then the graphics side by side.
fn figure(out: &mut String, f: &Figure, depth: usize) {
    let own_id = heading(out, f.title.as_deref(), f.id.as_deref(), depth);
    if let Some(note) = &f.note {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(note));
    }
    let _ = write!(out, "<div class=\"plots\"{own_id}>");
    for g in &f.graphics {
        match g {
            Graphic::Svg(svg) => out.push_str(svg),
            Graphic::Pair(a, b) => {
                let _ = write!(out, "<div class=\"pair\">{a}{b}</div>");
            }
            Graphic::Captioned { svg, id, caption } => {
                let _ = write!(
                    out,
                    "<figure>{svg}<figcaption id=\"{}\" class=\"note\">{}</figcaption></figure>",
                    escape(id),
                    escape(caption)
                );
            }
        }
    }
    out.push_str("</div>\n");
}

/// The anchors a top-level section's line of the contents links to: its anchored headings
/// (sections, answers, figures), in page order, inside groups too.
fn anchors<'a>(blocks: &'a [Block], out: &mut Vec<(&'a str, &'a str)>) {
    for block in blocks {
        match block {
            Block::Section {
                title,
                id: Some(id),
                ..
            } => out.push((id, title)),
            Block::Verdict(Verdict {
                id: Some(id),
                heading: Some(heading),
                ..
            }) => out.push((id, heading)),
            Block::Figure(Figure {
                id: Some(id),
                title: Some(title),
                ..
            }) => out.push((id, title)),
            Block::Group { blocks, .. } => anchors(blocks, out),
            _ => {}
        }
    }
}

/// `<nav id="contents">`: a line per anchored top-level section after the contents (and per
/// fragment that names itself), each with links to the anchored headings inside it.
fn contents(out: &mut String, root: &[Block]) {
    out.push_str("<nav id=\"contents\"><strong>Contents</strong><ul>\n");
    let after = root
        .iter()
        .position(|b| matches!(b, Block::Contents))
        .map_or(0, |p| p + 1);
    let mut top = Vec::new();
    for block in &root[after..] {
        match block {
            Block::Group { blocks, .. } => top.extend(blocks.iter()),
            other => top.push(other),
        }
    }
    for block in top {
        match block {
            Block::Section {
                title,
                id: Some(id),
                blocks,
                ..
            } => {
                let _ = write!(out, "<li><a href=\"#{}\">{}</a>", escape(id), escape(title));
                let mut inner = Vec::new();
                anchors(blocks, &mut inner);
                let links: Vec<String> = inner
                    .iter()
                    .map(|(id, name)| format!("<a href=\"#{}\">{}</a>", escape(id), escape(name)))
                    .collect();
                if !links.is_empty() {
                    let _ = write!(out, ": {}", links.join(" · "));
                }
                out.push_str("</li>\n");
            }
            Block::Markup {
                contents: Some((id, name)),
                ..
            } => {
                let _ = writeln!(
                    out,
                    "<li><a href=\"#{}\">{}</a></li>",
                    escape(id),
                    escape(name)
                );
            }
            _ => {}
        }
    }
    out.push_str("</ul></nav>\n");
}

/// The style sheet of every HTML page (the report and `explain --format html`).
pub(crate) const STYLE: &str = r#"
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2430;max-width:1150px;margin:1.5em auto;padding:0 1em;background:#fff}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.25em;border-bottom:2px solid #d5dbe5;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.05em;margin:1.4em 0 .4em}
table{border-collapse:collapse;margin:.5em 0}th,td{padding:.25em .8em;border-bottom:1px solid #e2e6ee}
td{text-align:right;font-variant-numeric:tabular-nums}td:first-child,th:first-child{text-align:left}table.words td,table.words th{text-align:left}
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
.note{color:#5b6676;font-size:.92em}ul{padding-left:1.3em}ul.lines{list-style:none;padding-left:0}
pre{background:#f5f7fa;padding:.5em .8em;overflow-x:auto;font-size:.92em}details{margin:1em 0}summary{cursor:pointer;font-weight:600}
.warning{color:#8a3b00;font-weight:600}
nav#contents{background:#f5f7fa;padding:.5em 1em;border-radius:4px;font-size:.92em}nav#contents ul{margin:.3em 0}
figure{margin:0}figcaption{max-width:520px}
svg .seedline{fill:none;stroke:#9aa5b4;stroke-width:1.2}svg .seedline.lower{stroke:#3f8f5a}svg .seedline.higher{stroke:#c0392b}
svg .vline{fill:none;stroke-width:1.5}svg .legend{font-weight:600;stroke:none}
svg .ci{stroke:#2f6db5;stroke-width:2;fill:none}svg .ci.strong{stroke:#1d2430;stroke-width:3}svg .strong{font-weight:700}
svg .nochange{stroke:#1d2430;stroke-dasharray:3 3}
"#;
