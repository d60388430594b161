//! The one title of a section about a program's metric (`report`, `compare`, `dimension`):
//! `demo [O3] — wall (ms)`, its unit the one the section's numbers are printed in.

use crate::analysis::answers::series::program_label;
use crate::report::numfmt::Scale;

/// The unit a heading names for values printed in `scale`: the scaled unit (`ms` for a time
/// stored in ns), or the stored one (`count`) for plain counts, which print without a unit.
pub(crate) fn heading_unit(stored: &str, scale: &Scale) -> String {
    if scale.name.is_empty() {
        stored.to_string()
    } else {
        scale.name.clone()
    }
}

/// `program [variant] — metric (unit)`, the unit that of `scale` (see [`heading_unit`]);
/// without the parentheses for a value that has no unit.
pub(crate) fn section_title(
    program: &str,
    variant: Option<&str>,
    metric: &str,
    stored_unit: &str,
    scale: &Scale,
) -> String {
    let label = program_label(program, variant);
    match heading_unit(stored_unit, scale) {
        // A value the program reported without a unit (`regex:` with no `unit` group).
        unit if unit.is_empty() => format!("{label} — {metric}"),
        unit => format!("{label} — {metric} ({unit})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_names_the_unit_of_the_values() {
        let s = Scale::for_values("ns", 7.2e9);
        assert_eq!(
            section_title("demo", None, "wall", "ns", &s),
            "demo — wall (s)"
        );
        let c = Scale::for_values("count", 1e8);
        assert_eq!(
            section_title("demo", Some("O3"), "instructions", "count", &c),
            "demo [O3] — instructions (count)"
        );
        let bare = Scale::for_values("", 354.9);
        assert_eq!(
            section_title("nettle-benchmark", None, "reported", "", &bare),
            "nettle-benchmark — reported"
        );
    }
}
