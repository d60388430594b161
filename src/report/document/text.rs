//! The text backend: a [`Document`] for a terminal. Parts are underlined, topics are
//! `Title:` lines with their body indented under them, tables are aligned columns (numbers to
//! the right), and a group of paragraphs is set off by a blank line unless it opens its part
//! or follows a verdict (whose lines it continues). Figures, the contents and HTML fragments
//! are the page's only; a group's blocks stand in its place.

use super::{Block, CellKind, Document, SectionKind, Span, Table, Text};

/// The blocks a format without a page shows, in order: a group's blocks in its place, and
/// nothing of figures, contents and HTML fragments. The Markdown backend shares it.
pub(super) fn shown(blocks: &[Block]) -> Vec<&Block> {
    let mut out = Vec::new();
    for block in blocks {
        match block {
            Block::Group { blocks, .. } => out.extend(shown(blocks)),
            Block::Figure(_) | Block::Contents | Block::Markup { .. } | Block::PageOnly { .. } => {}
            other => out.push(other),
        }
    }
    out
}

/// The document as plain text.
/// An empty title is no title line (a command's answer that has no heading).
pub(crate) fn render(doc: &Document) -> String {
    let mut out = plain(&doc.title);
    if !out.is_empty() {
        out.push('\n');
    }
    blocks(&mut out, &doc.blocks, "");
    out
}

/// The words of `text`, without styles.
pub(crate) fn plain(text: &Text) -> String {
    text.0
        .iter()
        .map(|s| match s {
            Span::Plain(w) | Span::Strong(w) | Span::Code(w) => w.as_str(),
        })
        .collect()
}

/// `blocks` in order, each line indented by `indent`.
fn blocks(out: &mut String, blocks: &[Block], indent: &str) {
    let blocks = shown(blocks);
    for (at, block) in blocks.iter().copied().enumerate() {
        let first = at == 0;
        let previous = at.checked_sub(1).map(|p| blocks[p]);
        match block {
            Block::Paragraphs(paragraphs) => {
                if !first && !matches!(previous, Some(Block::Verdict(_))) {
                    out.push('\n');
                }
                for p in paragraphs {
                    line(out, indent, &plain(p));
                }
            }
            Block::Section {
                title,
                kind: SectionKind::Part,
                blocks: body,
                ..
            } => {
                out.push_str(&format!(
                    "\n{title}\n{}\n",
                    "=".repeat(title.chars().count())
                ));
                self::blocks(out, body, indent);
            }
            Block::Section {
                title,
                kind: SectionKind::Topic,
                blocks: body,
                ..
            } => {
                out.push_str(&format!("\n{indent}{title}:\n"));
                self::blocks(out, body, &format!("{indent}  "));
            }
            Block::Table(t) => {
                if !first {
                    out.push('\n');
                }
                out.push_str(&table(t, indent));
            }
            Block::List { bullets, items } => {
                let mark = if *bullets { "- " } else { "" };
                for item in items {
                    line(out, indent, &format!("{mark}{}", plain(item)));
                }
            }
            Block::Preformatted(lines) => {
                for l in lines {
                    line(out, indent, l);
                }
            }
            Block::Verdict(v) => {
                // An answer continues the lines before it, but not a section or a table.
                if matches!(previous, Some(Block::Section { .. } | Block::Table(_))) {
                    out.push('\n');
                }
                line(out, indent, &plain(&v.line));
            }
            Block::Figure(_)
            | Block::Contents
            | Block::Group { .. }
            | Block::Markup { .. }
            | Block::PageOnly { .. } => {}
        }
    }
}

fn line(out: &mut String, indent: &str, words: &str) {
    out.push_str(indent);
    out.push_str(words);
    out.push('\n');
}

/// A table as columns: with a column of numbers, the first column left and the others right
/// (two spaces apart); a table of words all left-aligned (three spaces apart, so that the
/// words of two columns do not read as one phrase).
fn table(t: &Table, indent: &str) -> String {
    let mut rows: Vec<Vec<String>> = vec![t.headers.clone()];
    rows.extend(t.rows.iter().map(|r| r.iter().map(plain).collect()));
    if t.kinds.contains(&CellKind::Number) {
        crate::report::columns::aligned(&rows, indent, "  ")
    } else {
        crate::report::columns::left_aligned(&rows, indent, "   ")
    }
}
