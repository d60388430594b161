//! Reading nested measurements from a CSV file into a [`Hierarchy`].
//!
//! The file has a header; the caller names the columns that identify the unit at each level
//! (highest level first) and the numeric value column. Rows may come in any order. Every
//! problem is reported with the file and, where there is one, the line: a missing column is
//! named, a value that is not a number or not finite points at its line, unbalanced data
//! names the unit and the counts. This I/O lives outside `stats`, which stays pure.

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::stats::hierarchy::{Hierarchy, HierarchyBuilder};

/// What to read from a measurements CSV.
#[derive(Debug, Clone)]
pub struct CsvSpec<'a> {
    /// Columns identifying the unit at each level, highest level first.
    pub levels: &'a [String],
    /// The numeric column.
    pub value: &'a str,
    /// Refuse values ≤ 0 (a ratio of means needs positive times).
    pub require_positive: bool,
}

/// The column `layoutrand export` writes to mark each row's code layout: `random` for a
/// randomised binary, `default` for the baseline built with the linker's own order,
/// `as_built` for the binary the user's build made. Rows marked `default` or `as_built`
/// are left out of an analysis of random layouts, as `report` leaves out these fixed
/// layouts, so that `export` → `analyze` gives `report`'s mean.
pub(crate) const LAYOUT_COLUMN: &str = "layout";

/// The value of [`LAYOUT_COLUMN`] that marks the default-layout baseline.
pub(crate) const DEFAULT_LAYOUT: &str = "default";

/// The value of [`LAYOUT_COLUMN`] that marks the binary the user's build made (`as-built`).
pub(crate) const AS_BUILT_LAYOUT: &str = "as_built";

/// A hierarchy read from a CSV and what was left out of it.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The measurements.
    pub hierarchy: Hierarchy,
    /// Rows marked as the default-layout baseline ([`LAYOUT_COLUMN`]) and left out.
    pub default_layout_rows: usize,
    /// Rows marked as the build's own binary ([`AS_BUILT_LAYOUT`]) and left out.
    pub as_built_rows: usize,
}

/// Reads `path` as described by `spec`, leaving out the default-layout rows.
pub fn load_measurements(path: &Path, spec: &CsvSpec<'_>) -> Result<Loaded> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    read_measurements(file, &path.display().to_string(), spec)
}

/// Reads CSV text from `input` (named `name` in messages) into a balanced hierarchy.
pub fn read_hierarchy<R: std::io::Read>(
    input: R,
    name: &str,
    spec: &CsvSpec<'_>,
) -> Result<Hierarchy> {
    Ok(read_measurements(input, name, spec)?.hierarchy)
}

/// Reads CSV text from `input` (named `name` in messages), leaving out rows whose
/// [`LAYOUT_COLUMN`] is [`DEFAULT_LAYOUT`] or [`AS_BUILT_LAYOUT`] unless that column is one
/// of the levels.
pub(crate) fn read_measurements<R: std::io::Read>(
    input: R,
    name: &str,
    spec: &CsvSpec<'_>,
) -> Result<Loaded> {
    if spec.levels.is_empty() {
        bail!("no levels given: name at least one column with --levels");
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(input);
    let columns = header_columns(&mut reader, name, spec)?;
    let mut default_layout_rows = 0;
    let mut as_built_rows = 0;

    let mut builder = HierarchyBuilder::new(spec.levels)?;
    let mut record = csv::ByteRecord::new();
    let mut rows = 0usize;
    loop {
        let more = reader
            .read_byte_record(&mut record)
            .with_context(|| format!("{name}: malformed CSV"))?;
        if !more {
            break;
        }
        if let Some(col) = columns.layout {
            match record.get(col) {
                Some(v) if v == DEFAULT_LAYOUT.as_bytes() => {
                    default_layout_rows += 1;
                    continue;
                }
                Some(v) if v == AS_BUILT_LAYOUT.as_bytes() => {
                    as_built_rows += 1;
                    continue;
                }
                _ => {}
            }
        }
        push_row(&mut builder, &record, &columns, name, spec)?;
        rows += 1;
    }
    if rows == 0 {
        let fixed = default_layout_rows + as_built_rows;
        if fixed == 0 {
            bail!("{name} has no measurement rows, only its header");
        }
        let rows = if fixed == 1 {
            "one row is of a fixed layout".to_string()
        } else {
            format!("{fixed} rows are all of fixed layouts")
        };
        bail!(
            "{name} has no measurement rows of random layouts: its {rows} (column \
             \"{LAYOUT_COLUMN}\" = \"{DEFAULT_LAYOUT}\" or \"{AS_BUILT_LAYOUT}\"), which an \
             analysis of random layouts leaves out"
        );
    }
    let hierarchy = builder
        .finish()
        .with_context(|| format!("{name}: the measurements are not balanced nested data"))?;
    Ok(Loaded {
        hierarchy,
        default_layout_rows,
        as_built_rows,
    })
}

/// Reads the header of the CSV file `name` and finds the columns `spec` names in it.
fn header_columns<R: std::io::Read>(
    reader: &mut csv::Reader<R>,
    name: &str,
    spec: &CsvSpec<'_>,
) -> Result<Columns> {
    let headers = reader
        .byte_headers()
        .with_context(|| format!("{name}: cannot read the CSV header"))?;
    if headers.is_empty() || (headers.len() == 1 && headers[0].is_empty()) {
        bail!("{name} is empty: expected a CSV header naming the columns");
    }
    columns(headers, name, spec)
}

/// Adds the row `record` of the file `name` to `builder`: its value and its unit's id at
/// each level, from `columns`.
fn push_row(
    builder: &mut HierarchyBuilder,
    record: &csv::ByteRecord,
    columns: &Columns,
    name: &str,
    spec: &CsvSpec<'_>,
) -> Result<()> {
    let line = record.position().map_or(0, |p| p.line());
    let field = |col: usize, what: &str| -> Result<&str> {
        let raw = record
            .get(col)
            .with_context(|| format!("{name}:{line}: the row has no {what} field"))?;
        std::str::from_utf8(raw)
            .with_context(|| format!("{name}:{line}: the {what} field is not UTF-8"))
    };
    let value = parse_value(field(columns.value, spec.value)?, name, line, spec)?;
    // A stack array for the usual few levels: no allocation per row.
    let mut small: [&str; 8] = [""; 8];
    let mut large: Vec<&str> = Vec::new();
    let level_cols = &columns.levels;
    let ids: &mut [&str] = if level_cols.len() <= small.len() {
        &mut small[..level_cols.len()]
    } else {
        large.resize(level_cols.len(), "");
        &mut large
    };
    for ((slot, &col), level) in ids.iter_mut().zip(level_cols).zip(spec.levels) {
        *slot = field(col, level)?;
    }
    builder
        .push(ids, value)
        .with_context(|| format!("{name}:{line}"))
}

/// The columns of a CSV file that [`read_measurements`] reads, by index.
struct Columns {
    /// One per level, in `spec.levels` order.
    levels: Vec<usize>,
    value: usize,
    /// The [`LAYOUT_COLUMN`] when it is not a level (its default rows are left out).
    layout: Option<usize>,
}

/// Finds the columns `spec` names in `headers` (of the file `name`): a missing one is an
/// error listing the header.
fn columns(headers: &csv::ByteRecord, name: &str, spec: &CsvSpec<'_>) -> Result<Columns> {
    let column = |wanted: &str, role: &str| -> Result<usize> {
        headers
            .iter()
            .position(|h| h == wanted.as_bytes())
            .with_context(|| {
                let have: Vec<String> = headers
                    .iter()
                    .map(|h| String::from_utf8_lossy(h).into_owned())
                    .collect();
                format!(
                    "{name}: no column named \"{wanted}\" ({role}); the header has: {}",
                    have.join(", ")
                )
            })
    };
    let level_cols: Vec<usize> = spec
        .levels
        .iter()
        .map(|l| column(l, "given in --levels"))
        .collect::<Result<_>>()?;
    let value_col = column(spec.value, "given in --value")?;
    let layout_col = if spec.levels.iter().any(|l| l == LAYOUT_COLUMN) {
        None
    } else {
        headers.iter().position(|h| h == LAYOUT_COLUMN.as_bytes())
    };
    Ok(Columns {
        levels: level_cols,
        value: value_col,
        layout: layout_col,
    })
}

/// The value `text` of line `line` of `name`: a finite number, positive when `spec` needs it.
fn parse_value(text: &str, name: &str, line: u64, spec: &CsvSpec<'_>) -> Result<f64> {
    let value: f64 = text.parse().map_err(|_| {
        anyhow::anyhow!(
            "{name}:{line}: value \"{text}\" in column \"{}\" is not a number",
            spec.value
        )
    })?;
    if !value.is_finite() {
        bail!(
            "{name}:{line}: value \"{text}\" in column \"{}\" is not a finite number",
            spec.value
        );
    }
    if spec.require_positive && value <= 0.0 {
        bail!(
            "{name}:{line}: value {text} in column \"{}\" is not positive; a ratio of \
             means needs positive measurements (times)",
            spec.value
        );
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec<'a>(levels: &'a [String], value: &'a str) -> CsvSpec<'a> {
        CsvSpec {
            levels,
            value,
            require_positive: true,
        }
    }

    fn levels(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn reads_rows_in_any_order() {
        let csv = "b,e,t\nx,2,4\nx,1,1\ny,1,3\ny,2,5\n";
        let l = levels(&["b", "e"]);
        let h = read_hierarchy(csv.as_bytes(), "m.csv", &spec(&l, "t")).unwrap();
        assert_eq!(h.repetitions(), &[2, 2]);
        assert_eq!(h.top_means(), vec![2.5, 4.0]);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let l = levels(&["b"]);
        let err = |csv: &str| {
            format!(
                "{:#}",
                read_hierarchy(csv.as_bytes(), "m.csv", &spec(&l, "t")).unwrap_err()
            )
        };
        let messages: Vec<String> = [
            "",
            "b,x\n1,2\n",
            "b,t\n1,2\n2,abc\n",
            "b,t\n1,NaN\n",
            "b,t\n1,0\n",
        ]
        .iter()
        .map(|csv| format!("{csv:?}: {}", err(csv)))
        .collect();
        insta::assert_snapshot!(messages.join("\n"));
        assert_eq!(
            err("b,t\n"),
            "m.csv has no measurement rows, only its header"
        );
        assert!(err("b,layout,t\nx,default,1\n").contains(
            "m.csv has no measurement rows of random layouts: its one row is of a fixed layout"
        ));
        assert!(err("b,t\n1,2\n1,3\n").contains(
            "m.csv: the measurements are not balanced nested data: b 1 appears more than once"
        ));
    }

    /// `export`'s two fixed layouts are left out of the random layouts and counted apart,
    /// so `analyze` of an export gives `report`'s mean over the seeds alone.
    #[test]
    fn the_fixed_layouts_rows_are_left_out_and_counted() {
        let csv = "binary,layout,execution,value\n\
                   baseline,default,0,100\nas-built,as_built,0,200\nas-built,as_built,1,200\n\
                   seed-1,random,0,2\nseed-1,random,1,4\nseed-2,random,0,6\nseed-2,random,1,8\n";
        let l = levels(&["binary", "execution"]);
        let loaded = read_measurements(csv.as_bytes(), "e.csv", &spec(&l, "value")).unwrap();
        assert_eq!((loaded.default_layout_rows, loaded.as_built_rows), (1, 2));
        assert_eq!(loaded.hierarchy.top_ids(), ["seed-1", "seed-2"]);
        assert_eq!(loaded.hierarchy.top_means(), vec![3.0, 7.0]);
    }
}
