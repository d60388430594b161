//! Plain-text tables: the first column left-aligned, the others (numbers) right-aligned.

/// Formats `rows` as aligned columns, each line indented by `indent`, columns separated by
/// `gap`. Rows may have different lengths; missing cells are empty.
pub fn aligned<R: AsRef<[String]>>(rows: &[R], indent: &str, gap: &str) -> String {
    let columns = rows.iter().map(|r| r.as_ref().len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.as_ref().get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
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

#[cfg(test)]
mod tests {
    use super::aligned;

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
