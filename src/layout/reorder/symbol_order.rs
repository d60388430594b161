//! lld's `--symbol-ordering-file`: a global function order by symbol name.
//!
//! lld places the sections defining the listed symbols first, in list order. It names
//! symbols only, so same-named `static` functions of different modules cannot be told apart
//! (they are placed together, docs/design.md); prefer [`super::text_order_script`], which names
//! each object, when statics matter. Neither bfd, gold nor mold reads this file.

use anyhow::{bail, Result};

/// The contents of a `--symbol-ordering-file` listing `symbols` in order, one per line,
/// each once (at its first place). Errors on a name lld would misread (empty, or containing
/// whitespace or a `#`, which starts a comment).
pub fn symbol_ordering_file(symbols: &[String]) -> Result<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = String::new();
    for symbol in symbols {
        if symbol.is_empty() || symbol.contains(|c: char| c.is_whitespace() || c == '#') {
            bail!("symbol {symbol:?} cannot be written in a symbol ordering file");
        }
        if seen.insert(symbol.as_str()) {
            out.push_str(symbol);
            out.push('\n');
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_symbol_per_line_each_once() {
        let list: Vec<String> = ["b", "a", "b", "_Z1fv"].map(String::from).to_vec();
        assert_eq!(symbol_ordering_file(&list).unwrap(), "b\na\n_Z1fv\n");
        assert!(symbol_ordering_file(&["a b".to_string()]).is_err());
        assert!(symbol_ordering_file(&["#x".to_string()]).is_err());
    }
}
