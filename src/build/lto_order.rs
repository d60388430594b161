//! The function order of a gcc `-flto` program: its code only exists after LTO code
//! generation, in temporary objects no script can name, so the order is expressed by section
//! name. With `-ffunction-sections` given at link time (the shim adds it), the LTO code
//! generator emits each function `f` in `.text.f`; the baseline binary lists which functions
//! exist, and a seed shuffles them.
//!
//! (The layout module's `text_order_script` names input files, which do not exist here, hence
//! this small variant with a `*` file pattern.)

use crate::layout::binary::Function;
use crate::seeded::SeededRng;

/// The `.text.NAME` section of every function of the baseline that a script can name, in a
/// random order. Cold parts (`f.cold`, in `.text.unlikely.*`) and names a script cannot
/// spell are left where the linker puts them.
pub fn shuffled_sections(baseline: &[Function], rng: &mut SeededRng) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut sections: Vec<String> = baseline
        .iter()
        .map(|f| f.name.as_str())
        .filter(|name| !name.ends_with(".cold") && !name.contains(".cold."))
        .filter(|name| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$'))
        })
        .filter(|name| seen.insert(*name))
        .map(|name| format!(".text.{name}"))
        .collect();
    sections.sort();
    rng.shuffle(&mut sections);
    sections
}

/// An `INSERT BEFORE .text` script placing `sections` (from any input file) in that order.
pub fn script(sections: &[String]) -> String {
    let mut text = String::from(
        "/* Written by layoutrand: a randomised post-LTO function order. */\nSECTIONS\n{\n  .text.rand :\n  {\n",
    );
    for s in sections {
        text.push_str(&format!("    *({s})\n"));
    }
    text.push_str("  }\n}\nINSERT BEFORE .text;\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str) -> Function {
        Function::named(name, 0, 1)
    }

    #[test]
    fn keeps_scriptable_names_once_and_is_a_permutation() {
        let fs = [
            f("main"),
            f("b"),
            f("a.cold"),
            f("x.lto_priv.0"),
            f("b"),
            f("op<>"),
        ];
        let got = shuffled_sections(&fs, &mut SeededRng::new(1, "t"));
        let mut sorted = got.clone();
        sorted.sort();
        assert_eq!(sorted, [".text.b", ".text.main", ".text.x.lto_priv.0"]);
        // Same seed, same order; the order does not depend on the input order.
        let again = shuffled_sections(
            &[f("x.lto_priv.0"), f("b"), f("main")],
            &mut SeededRng::new(1, "t"),
        );
        assert_eq!(got, again);
    }

    #[test]
    fn script_lists_patterns_in_order() {
        let s = script(&[".text.b".into(), ".text.a".into()]);
        let b = s.find("*(.text.b)").unwrap();
        let a = s.find("*(.text.a)").unwrap();
        assert!(b < a);
        assert!(s.ends_with("INSERT BEFORE .text;\n"));
    }
}
