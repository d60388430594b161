//! The text backend: a [`Document`] for a terminal. Parts are underlined, topics are
//! `Title:` lines with their body indented under them, tables are aligned columns (numbers to
//! the right), and a group of paragraphs is set off by a blank line unless it opens its part.

use super::{Block, CellKind, Document, SectionKind, Span, Table, Text};

/// The document as plain text.
pub fn render(doc: &Document) -> String {
    let mut out = plain(&doc.title);
    out.push('\n');
    blocks(&mut out, &doc.blocks, "");
    out
}

/// The words of `text`, without styles.
pub fn plain(text: &Text) -> String {
    text.0
        .iter()
        .map(|s| match s {
            Span::Plain(w) | Span::Strong(w) | Span::Code(w) => w.as_str(),
        })
        .collect()
}

/// `blocks` in order, each line indented by `indent`.
fn blocks(out: &mut String, blocks: &[Block], indent: &str) {
    for (at, block) in blocks.iter().enumerate() {
        let first = at == 0;
        match block {
            Block::Paragraphs(paragraphs) => {
                if !first {
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
