//! The Markdown backend (GitHub-flavoured): a [`Document`] as headings, paragraphs, pipe
//! tables (numbers right-aligned), lists and `text` code blocks, each block set off by one
//! blank line. The CI summary is a document rendered here too. What is the page's only is
//! passed over as in text ([`super::text`]).

use super::{Block, CellKind, Document, Span, Table, Text};

/// The document as Markdown.
pub(crate) fn render(doc: &Document) -> String {
    let mut out = format!(
        "{} {}\n",
        "#".repeat(usize::from(doc.title_level.max(1))),
        inline(&doc.title)
    );
    blocks(&mut out, &doc.blocks, 2);
    out
}

/// `text` with its styles: `**strong**`, `` `code` ``.
pub(crate) fn inline(text: &Text) -> String {
    text.0
        .iter()
        .map(|s| match s {
            Span::Plain(w) => w.clone(),
            Span::Strong(w) => format!("**{w}**"),
            Span::Code(w) => format!("`{w}`"),
        })
        .collect()
}

/// `blocks` in order, their sections' headings at `level`.
fn blocks(out: &mut String, blocks: &[Block], level: usize) {
    for block in super::text::shown(blocks) {
        match block {
            Block::Paragraphs(paragraphs) => {
                for p in paragraphs {
                    out.push_str(&format!("\n{}\n", inline(p)));
                }
            }
            Block::Section {
                title,
                blocks: body,
                ..
            } => {
                out.push_str(&format!("\n{} {title}\n", "#".repeat(level)));
                self::blocks(out, body, level + 1);
            }
            Block::Table(t) => table(out, t),
            Block::List { items, .. } => {
                out.push('\n');
                for item in items {
                    out.push_str(&format!("- {}\n", inline(item)));
                }
            }
            Block::Preformatted(lines) => {
                out.push_str("\n```text\n");
                for l in lines {
                    out.push_str(l);
                    out.push('\n');
                }
                out.push_str("```\n");
            }
            Block::Verdict(v) => out.push_str(&format!("\n{}\n", inline(&v.line))),
            Block::Figure(_)
            | Block::Contents
            | Block::Group { .. }
            | Block::Markup { .. }
            | Block::PageOnly { .. } => {}
        }
    }
}

/// A pipe table; `|` inside a cell is escaped.
fn table(out: &mut String, t: &Table) {
    let cell = |text: String| text.replace('|', "\\|");
    let row = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    out.push('\n');
    out.push_str(&row(t.headers.iter().cloned().map(cell).collect()));
    let align: Vec<&str> = t
        .kinds
        .iter()
        .map(|k| match k {
            CellKind::Words => ":---",
            CellKind::Number => "---:",
        })
        .collect();
    out.push_str(&format!("|{}|\n", align.join("|")));
    for r in &t.rows {
        out.push_str(&row(r.iter().map(|c| cell(inline(c))).collect()));
    }
}
