//! One document model for the reports (issue 37): a report is built once as a [`Document`] —
//! paragraphs, sections, tables of typed cells, lists, preformatted blocks, figures — by one
//! builder per report kind (under [`crate::report::export`]), and rendered by the backends
//! here: [`text`] for a terminal, [`markdown`] (also the CI summary's) and [`html`] (one
//! self-contained page). A builder says what the report holds and in which order; a backend
//! says only how each kind of block looks, so the formats cannot drift apart.
//!
//! Some blocks exist for the page only (figures, the contents, anchors, collapsible groups,
//! a fragment already in HTML): the text and Markdown backends pass over them and render a
//! [`Block::Group`]'s blocks in place, so a builder adds them without changing those formats.
//!
//! A leaf: nothing here reads the analysis model or formats a number.

pub mod html;
pub(crate) mod markdown;
pub(crate) mod text;

/// A run of words with one style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Span {
    /// Words as they are.
    Plain(String),
    /// Words that stand out (a label, a verdict): bold where the format has it.
    Strong(String),
    /// A name to type or copy (a directory, a command): code where the format has it.
    Code(String),
}

/// A sentence or line: spans in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Text(pub Vec<Span>);

impl Text {
    /// Plain words.
    pub(crate) fn plain(words: impl Into<String>) -> Text {
        Text(vec![Span::Plain(words.into())])
    }

    /// `label` standing out, then `words`: `**Across metrics:** …`.
    pub(crate) fn labelled(label: &str, words: impl Into<String>) -> Text {
        Text(vec![
            Span::Strong(format!("{label}:")),
            Span::Plain(format!(" {}", words.into())),
        ])
    }

    /// Appends a span.
    pub(crate) fn then(mut self, span: Span) -> Text {
        self.0.push(span);
        self
    }
}

impl From<&str> for Text {
    fn from(words: &str) -> Text {
        Text::plain(words)
    }
}

impl From<String> for Text {
    fn from(words: String) -> Text {
        Text::plain(words)
    }
}

/// What a table cell holds, which decides how it is aligned: words to the left, numbers (a
/// quantity with its unit, a count, a share) to the right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CellKind {
    /// Words, or a number with words around it (`sensitive: ± 3.1 % per layout`).
    Words,
    /// A number, with its unit if it has one.
    Number,
}

/// A table: a header row and rows of cells; each column's kind is that of its header cell's
/// column (`kinds`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    pub(crate) headers: Vec<String>,
    pub(crate) kinds: Vec<CellKind>,
    pub(crate) rows: Vec<Vec<Text>>,
}

impl Table {
    /// A table of words (every column left-aligned).
    pub(crate) fn words<R: AsRef<[String]>>(headers: &[&str], rows: &[R]) -> Table {
        Table::new(headers, vec![CellKind::Words; headers.len()], rows)
    }

    /// A table whose first column names the row and whose others are numbers.
    pub(crate) fn numbers<R: AsRef<[String]>>(headers: &[&str], rows: &[R]) -> Table {
        let mut kinds = vec![CellKind::Number; headers.len()];
        if let Some(first) = kinds.first_mut() {
            *first = CellKind::Words;
        }
        Table::new(headers, kinds, rows)
    }

    fn new<R: AsRef<[String]>>(headers: &[&str], kinds: Vec<CellKind>, rows: &[R]) -> Table {
        Table {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            kinds,
            rows: rows
                .iter()
                .map(|r| r.as_ref().iter().map(|c| Text::plain(c.clone())).collect())
                .collect(),
        }
    }
}

/// How a section stands in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SectionKind {
    /// A part of the report (one program and metric, the machines): underlined in text,
    /// its body at the margin.
    Part,
    /// A topic (the glance, the diagnostics, the warnings): `Title:` in text with its body
    /// indented under it.
    Topic,
}

/// How a verdict's box looks on the page: the colour of its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    /// Something was found that matters (a detected effect, a difference): orange.
    Found,
    /// Something was found too small to matter: grey with its own class.
    Negligible,
    /// Nothing that matters was found, and the data could have shown it: green.
    NotFound,
    /// The data cannot tell, or the finding is no alarm: grey.
    Neutral,
}

/// An answer: the line the text and Markdown reports give it and, on the page, a heading
/// (an anchor of the contents) over a box coloured by its `tone` holding `boxed`, or the line
/// as a paragraph when it has no tone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// The anchor of its heading (or of its paragraph, without a heading).
    pub(crate) id: Option<String>,
    /// The heading over it on the page.
    pub(crate) heading: Option<String>,
    /// The line as the text and Markdown reports give it (and the page, without a tone).
    pub(crate) line: Text,
    /// The words in the page's box: the answer standing alone, capitalised.
    pub(crate) boxed: String,
    /// The box's colour; none for a line of numbers that goes with the answers.
    pub(crate) tone: Option<Tone>,
}

/// One graphic of a figure: inline SVG made by [`crate::report::export::svg`], which escapes
/// its own text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Graphic {
    /// A plot.
    Svg(String),
    /// Two plots side by side (a series beside its reordered twin).
    Pair(String, String),
    /// A plot with a caption under it (the caption's anchor, its words).
    Captioned {
        svg: String,
        id: String,
        caption: String,
    },
}

/// Plots, on the page only: a heading (with the anchor) when `title` is given, a note in
/// small print, then the graphics side by side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Figure {
    /// The anchor of its heading, or of its row of graphics without a heading.
    pub(crate) id: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) note: Option<String>,
    pub(crate) graphics: Vec<Graphic>,
}

/// A block of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Block {
    /// Sentences that belong together, one paragraph each (in text, consecutive lines).
    Paragraphs(Vec<Text>),
    /// A titled section and its blocks; `id` is its anchor on the page (and a line of the
    /// page's contents).
    Section {
        title: String,
        kind: SectionKind,
        id: Option<String>,
        blocks: Vec<Block>,
    },
    /// An answer (see [`Verdict`]): in text a line that continues the lines around it.
    Verdict(Verdict),
    /// Plots (the page only).
    Figure(Figure),
    /// The page's table of contents: a line per top-level section with an anchor after it,
    /// with links to the anchored headings inside (the page only).
    Contents,
    /// Blocks that belong together: on the page under an anchor (`id`), folded under a
    /// summary line when `details` gives one; elsewhere the blocks in place.
    Group {
        id: Option<String>,
        details: Option<String>,
        blocks: Vec<Block>,
    },
    /// A fragment of the page made elsewhere in HTML (escaped by its maker), with its anchor
    /// and name for the contents (the page only).
    Markup {
        contents: Option<(String, String)>,
        html: String,
    },
    /// Another view of what the blocks before it say (the same rows in other orders), for
    /// the page only: folded under `summary` there, left out elsewhere.
    PageOnly { summary: String, blocks: Vec<Block> },
    /// A table.
    Table(Table),
    /// Items, each marked as an item of a list (`bullets`) or as a line of its own.
    List { bullets: bool, items: Vec<Text> },
    /// Lines whose own indentation carries meaning (sub-lines of a comparison): kept as they
    /// are, in a code block where the format has one.
    Preformatted(Vec<String>),
}

/// A whole report: its title, at `title_level` (1 for a report, smaller headings for a
/// summary pasted into another page), and its blocks in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Document {
    pub(crate) title: Text,
    pub(crate) title_level: u8,
    pub(crate) blocks: Vec<Block>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part holding a paragraph group, a topic with a table of numbers and a bulleted
    /// list, then a second paragraph group.
    fn sample() -> Document {
        Document {
            title: Text::plain("report of ").then(Span::Code("out".into())),
            title_level: 1,
            blocks: vec![
                Block::Paragraphs(vec!["Every interval is 95 %.".into()]),
                Block::Section {
                    title: "demo — wall (ms)".into(),
                    kind: SectionKind::Part,
                    id: None,
                    blocks: vec![
                        Block::Paragraphs(vec!["Mean: 4.0 ms.".into()]),
                        Block::Section {
                            title: "Levels".into(),
                            kind: SectionKind::Topic,
                            id: None,
                            blocks: vec![Block::Table(Table::numbers(
                                &["level", "S²"],
                                &[["binary".to_string(), "12.5".to_string()]],
                            ))],
                        },
                        Block::Section {
                            title: "Diagnostics".into(),
                            kind: SectionKind::Topic,
                            id: None,
                            blocks: vec![Block::List {
                                bullets: true,
                                items: vec!["no drift | none".into()],
                            }],
                        },
                        Block::Paragraphs(vec![Text::labelled("In short", "sensitive")]),
                    ],
                },
            ],
        }
    }

    #[test]
    fn text_underlines_parts_indents_topics_and_right_aligns_numbers() {
        assert_eq!(
            text::render(&sample()),
            "report of out\nEvery interval is 95 %.\n\ndemo — wall (ms)\n================\n\
             Mean: 4.0 ms.\n\nLevels:\n  level     S²\n  binary  12.5\n\nDiagnostics:\n  \
             - no drift | none\n\nIn short: sensitive\n"
        );
    }

    #[test]
    fn markdown_nests_headings_aligns_number_columns_and_escapes_pipes_in_cells_only() {
        assert_eq!(
            markdown::render(&sample()),
            "# report of `out`\n\nEvery interval is 95 %.\n\n## demo — wall (ms)\n\n\
             Mean: 4.0 ms.\n\n### Levels\n\n| level | S² |\n|:---|---:|\n| binary | 12.5 |\n\n\
             ### Diagnostics\n\n- no drift | none\n\n**In short:** sensitive\n"
        );
    }

    #[test]
    fn a_table_of_words_is_left_aligned_three_spaces_apart() {
        let doc = Document {
            title: "t".into(),
            title_level: 3,
            blocks: vec![Block::Table(Table::words(
                &["a", "bb"],
                &[["long".to_string(), "x|y".to_string()]],
            ))],
        };
        assert_eq!(text::render(&doc), "t\na      bb\nlong   x|y\n");
        assert_eq!(
            markdown::render(&doc),
            "### t\n\n| a | bb |\n|:---|:---|\n| long | x\\|y |\n"
        );
    }

    /// A page-only document: a glance section, the contents, a folded figure and a verdict.
    fn page() -> Document {
        Document {
            title: Text::plain("report of ").then(Span::Code("a<b".into())),
            title_level: 1,
            blocks: vec![
                Block::Section {
                    title: "At a glance".into(),
                    kind: SectionKind::Topic,
                    id: Some("glance".into()),
                    blocks: vec![Block::Table(Table::words(
                        &["metric"],
                        &[["wall & <cpu>".to_string()]],
                    ))],
                },
                Block::Contents,
                Block::Section {
                    title: "demo".into(),
                    kind: SectionKind::Part,
                    id: Some("series-0".into()),
                    blocks: vec![
                        Block::Verdict(Verdict {
                            id: Some("sensitivity-0".into()),
                            heading: Some("Layout sensitivity".into()),
                            line: Text::labelled("Layout sensitivity", "detected"),
                            boxed: "Detected".into(),
                            tone: Some(Tone::Found),
                        }),
                        Block::Group {
                            id: None,
                            details: Some("Plots".into()),
                            blocks: vec![Block::Figure(Figure {
                                id: Some("binaries-0".into()),
                                title: Some("Binaries".into()),
                                note: None,
                                graphics: vec![Graphic::Svg("<svg></svg>".into())],
                            })],
                        },
                    ],
                },
            ],
        }
    }

    #[test]
    fn the_page_escapes_words_links_anchored_headings_and_keeps_svg_as_drawn() {
        let html = html::render(&page());
        assert!(
            html.contains("<h1>report of <code>a&lt;b</code></h1>"),
            "{html}"
        );
        assert!(html.contains("<td>wall &amp; &lt;cpu&gt;</td>"), "{html}");
        let nav = &html[html.find("<nav id=\"contents\">").unwrap()..html.find("</nav>").unwrap()];
        assert_eq!(
            nav,
            "<nav id=\"contents\"><strong>Contents</strong><ul>\n<li><a href=\"#series-0\">demo</a>: \
             <a href=\"#sensitivity-0\">Layout sensitivity</a> · <a href=\"#binaries-0\">Binaries</a></li>\n</ul>"
        );
        assert!(html.find("id=\"glance\"").unwrap() < html.find("<nav").unwrap());
        assert!(html.contains(
            "<h3 id=\"sensitivity-0\">Layout sensitivity</h3>\n<div class=\"verdict detected\">Detected</div>"
        ));
        assert!(html.contains("<details><summary>Plots</summary>\n<h3 id=\"binaries-0\">Binaries</h3>\n<div class=\"plots\"><svg></svg></div>\n</details>"), "{html}");
        assert!(!html.contains("<script"));
    }

    #[test]
    fn text_and_markdown_pass_over_what_is_the_pages_only() {
        assert_eq!(
            text::render(&page()),
            "report of a<b\n\nAt a glance:\n  metric\n  wall & <cpu>\n\ndemo\n====\n\
             Layout sensitivity: detected\n"
        );
        assert_eq!(
            markdown::render(&page()),
            "# report of `a<b`\n\n## At a glance\n\n| metric |\n|:---|\n| wall & <cpu> |\n\n\
             ## demo\n\n**Layout sensitivity:** detected\n"
        );
    }

    #[test]
    fn an_empty_title_is_no_line_in_text() {
        let doc = Document {
            title: Text::default(),
            title_level: 1,
            blocks: vec![
                Block::Paragraphs(vec!["a".into()]),
                Block::Paragraphs(vec!["b".into()]),
            ],
        };
        assert_eq!(text::render(&doc), "a\n\nb\n");
    }
}
