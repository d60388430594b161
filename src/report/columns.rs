//! Plain-text tables: the first column left-aligned, the others (numbers) right-aligned.

/// Formats `rows` as aligned columns, each line indented by `indent`, columns separated by
/// `gap`. Rows may have different lengths; missing cells are empty.
pub(crate) fn aligned<R: AsRef<[String]>>(rows: &[R], indent: &str, gap: &str) -> String {
    let widths = widths(rows);
    let mut out = String::new();
    for row in rows {
        out.push_str(indent);
        for (c, cell) in row.as_ref().iter().enumerate() {
            let pad = " ".repeat(widths[c] - cell.chars().count());
            if c == 0 {
                out.push_str(cell);
                out.push_str(&pad);
            } else {
                out.push_str(gap);
                out.push_str(&pad);
                out.push_str(cell);
            }
        }
        out.push('\n');
    }
    out
}

/// Formats `rows` of words as columns all left-aligned (the last cell of a row unpadded),
/// each line indented by `indent`, columns separated by `gap`.
pub(crate) fn left_aligned<R: AsRef<[String]>>(rows: &[R], indent: &str, gap: &str) -> String {
    let widths = widths(rows);
    let mut out = String::new();
    for row in rows {
        let row = row.as_ref();
        out.push_str(indent);
        for (c, cell) in row.iter().enumerate() {
            if c > 0 {
                out.push_str(gap);
            }
            out.push_str(cell);
            if c + 1 < row.len() {
                out.push_str(&" ".repeat(widths[c] - cell.chars().count()));
            }
        }
        out.push('\n');
    }
    out
}

/// The widest cell of each column, in characters.
fn widths<R: AsRef<[String]>>(rows: &[R]) -> Vec<usize> {
    let columns = rows.iter().map(|r| r.as_ref().len()).max().unwrap_or(0);
    (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.as_ref().get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{aligned, left_aligned};

    #[test]
    fn words_left_aligned_last_cell_unpadded() {
        let rows = vec![
            vec!["a".to_string(), "long".to_string(), "x".to_string()],
            vec!["bbb".to_string(), "s".to_string(), "yy".to_string()],
        ];
        assert_eq!(
            left_aligned(&rows, " ", "  "),
            " a    long  x\n bbb  s     yy\n"
        );
    }

    #[test]
    fn first_column_left_others_right_ragged_rows_allowed() {
        let rows = vec![
            vec!["level".to_string(), "r".to_string()],
            vec!["iteration".to_string(), "12".to_string()],
            vec!["x".to_string()],
        ];
        assert_eq!(
            aligned(&rows, "  ", "   "),
            "  level        r\n  iteration   12\n  x        \n"
        );
    }
}
