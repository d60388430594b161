//! Answers from an experiment: text, Markdown, JSON, CSV and HTML, one exporter per format.
