//! "What differs between the baseline and the binary your build made?" in words: the
//! function lists ([`FunctionsDifference`]), then the allocated sections of other sizes and
//! the kinds of byte differences of the functions ([`BytesDifference`]), as `build` measured
//! them and the manifest keeps them.

use crate::files::manifest::{FunctionsDifference, VersusBaseline};
use crate::layout::image::{BytesDifference, CodeDifferences, SectionDifference};

// The as-built answer's `versus_baseline` on the wire: the sentence.
super::said_as!(VersusBaseline = sentence);

/// The whole difference: the function lists, then sections and bytes (an older manifest's
/// own words when it has no figures).
pub(crate) fn sentence(v: &VersusBaseline) -> String {
    let Some(functions) = &v.functions else {
        return v.recorded.clone().unwrap_or_default();
    };
    let rest = match (&v.bytes, &v.bytes_not_compared) {
        (Some(d), _) => clause(d),
        (None, Some(e)) => format!("; sections and code bytes not compared ({e})"),
        (None, None) => String::new(),
    };
    functions_words(functions) + &rest
}

/// The function lists compared, e.g. `the build's own functions in another order (first
/// difference at rank 3 of 40)`.
fn functions_words(d: &FunctionsDifference) -> String {
    match *d {
        FunctionsDifference::OtherFunctions {
            only_own,
            only_baseline,
        } => format!(
            "other functions than the build's own binary: {only_own} (name, size) only in the \
             build's, {only_baseline} only in the baseline's"
        ),
        FunctionsDifference::OtherOrder {
            first_difference,
            functions,
        } => format!(
            "the build's own functions in another order (first difference at rank \
             {first_difference} of {functions})"
        ),
        FunctionsDifference::Same { functions } => format!(
            "the build's own binary's layout: same {}, order and addresses",
            crate::units::counted(functions, "function", "functions")
        ),
        FunctionsDifference::Shifted { functions: _, by } => format!(
            "the build's own functions and order, every function {} bytes {} (the start-up \
             code before them takes another size in the relink)",
            by.unsigned_abs(),
            if by < 0 { "lower" } else { "higher" }
        ),
        FunctionsDifference::OtherGaps { moved, functions } => format!(
            "the build's own functions and order; {moved} of {functions} at other addresses \
             (other gaps between sections: each function keeps its alignment, the relink's \
             section padding differs)"
        ),
    }
}

/// How many names of functions that differ in code the sentence quotes.
const NAMES_QUOTED: usize = 8;

/// The clause, starting with `"; "`: the sections, then the functions' bytes by kind;
/// `"; the same section sizes and code bytes"` when nothing differs (`"; the same section
/// sizes"` when the bytes were not compared).
fn clause(d: &BytesDifference) -> String {
    let mut words = String::new();
    if !d.sections.is_empty() {
        words.push_str("; sections: ");
        words.push_str(&sections(&d.sections));
        if d.sections
            .iter()
            .all(|s| PACKED_BY_THE_MERGE.contains(&s.name.as_str()))
        {
            words.push_str(PACKED_OTHERWISE);
        }
    }
    if let Some(code) = d.code.as_ref().filter(|c| c.differ > 0) {
        words.push_str("; ");
        words.push_str(&code_words(code));
    }
    if words.is_empty() {
        return match d.code {
            Some(_) => "; the same section sizes and code bytes".to_string(),
            None => "; the same section sizes".to_string(),
        };
    }
    words
}

/// Sections whose size a relink may change without other code: the relinks link one
/// object merged by `ld -r` (docs/build.md), which merges the objects' strings and
/// constants and their unwind entries before the final link does (on gawk, .rodata's
/// strings come in another order and 64 bytes fewer, .eh_frame 48 bytes fewer).
const PACKED_BY_THE_MERGE: [&str; 7] = [
    ".rodata",
    ".eh_frame",
    ".eh_frame_hdr",
    ".gcc_except_table",
    ".data",
    ".data.rel.ro",
    ".bss",
];

/// Why only [`PACKED_BY_THE_MERGE`] sections differ.
const PACKED_OTHERWISE: &str = " (the relinks link one object merged by ld -r, whose strings, \
constants and unwind entries are packed otherwise than by the build's own link: data packed \
otherwise, not other code)";

/// `the baseline's .rodata 76 bytes smaller, .foo only in the build's`: each section
/// difference, the baseline's size against the build's.
fn sections(differences: &[SectionDifference]) -> String {
    let words: Vec<String> = differences
        .iter()
        .map(|d| match (d.baseline, d.as_built) {
            (Some(base), Some(own)) if base < own => {
                format!("the baseline's {} {} bytes smaller", d.name, own - base)
            }
            (Some(base), Some(own)) => {
                format!("the baseline's {} {} bytes larger", d.name, base - own)
            }
            (Some(_), None) => format!("{} only in the baseline", d.name),
            _ => format!("{} only in the build's", d.name),
        })
        .collect();
    words.join(", ")
}

/// `the bytes of 4 of 201 functions differ: 3 only in PC-relative displacements (same
/// instructions, other targets), 1 in their instructions (main)`: each kind with a count.
fn code_words(code: &CodeDifferences) -> String {
    let mut kinds = Vec::new();
    if code.displacements_only > 0 {
        kinds.push(format!(
            "{} only in PC-relative displacements (same instructions, other targets)",
            code.displacements_only
        ));
    }
    if code.padding_only > 0 {
        kinds.push(format!("{} only in no-op padding", code.padding_only));
    }
    if !code.other.is_empty() {
        let shown: Vec<&str> = code
            .other
            .iter()
            .take(NAMES_QUOTED)
            .map(String::as_str)
            .collect();
        let more = if code.other.len() > shown.len() {
            ", ..."
        } else {
            ""
        };
        kinds.push(format!(
            "{} in their instructions ({}{more})",
            code.other.len(),
            shown.join(", ")
        ));
    }
    format!(
        "the bytes of {} of {} functions differ: {}",
        code.differ,
        code.compared,
        kinds.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_function_is_one() {
        assert_eq!(
            functions_words(&FunctionsDifference::Same { functions: 1 }),
            "the build's own binary's layout: same 1 function, order and addresses"
        );
    }

    #[test]
    fn each_kind_is_counted_and_code_differences_are_named() {
        let d = BytesDifference {
            sections: vec![SectionDifference {
                name: ".rodata".into(),
                baseline: Some(924),
                as_built: Some(1000),
            }],
            code: Some(CodeDifferences {
                compared: 201,
                differ: 4,
                padding_only: 1,
                displacements_only: 2,
                other: vec!["main".into()],
            }),
        };
        assert_eq!(
            clause(&d),
            "; sections: the baseline's .rodata 76 bytes smaller (the relinks link one object \
             merged by ld -r, whose strings, constants and unwind entries are packed otherwise \
             than by the build's own link: data packed otherwise, not other code); the bytes \
             of 4 of 201 functions differ: 2 only in PC-relative displacements (same instructions, other \
             targets), 1 only in no-op padding, 1 in their instructions (main)"
        );
        let same = BytesDifference {
            sections: vec![],
            code: Some(CodeDifferences {
                compared: 5,
                ..Default::default()
            }),
        };
        assert_eq!(clause(&same), "; the same section sizes and code bytes");
        let unplaced = BytesDifference::default();
        assert_eq!(clause(&unplaced), "; the same section sizes");
    }
}
