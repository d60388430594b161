//! The text of `layoutrand layout`: one binary's function order, or two binaries' distances
//! ([`crate::layout::shown`] holds the documents, shared with the JSON form).

use std::fmt::Write as _;

use crate::layout::shown::{DistanceReport, LayoutReport};

/// The binary, its fingerprint and one line per function (address, size, demangled name,
/// source file when known).
pub fn render_layout(r: &LayoutReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "binary       {}", r.path.display());
    let _ = writeln!(out, "fingerprint  {}", r.fingerprint);
    let _ = writeln!(out, "functions    {}", r.functions.len());
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<18}  {:>8}  name, demangled  (file)",
        "address", "size"
    );
    for f in &r.functions {
        let file = f
            .file
            .as_deref()
            .map(|s| format!("  ({s})"))
            .unwrap_or_default();
        let name = crate::layout::demangle::demangle(&f.name);
        let _ = writeln!(out, "{:#018x}  {:>8}  {name}{file}", f.address, f.size);
    }
    out
}

/// Both binaries with their fingerprints, the function counts and the four distances (six
/// decimals: they are shares and a rank correlation, between −1 and 1).
pub fn render_distance(r: &DistanceReport) -> String {
    let d = &r.comparison.distance;
    let c = &r.comparison;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "base                   {} ({})",
        r.base.display(),
        r.base_fingerprint
    );
    let _ = writeln!(
        out,
        "other                  {} ({})",
        r.other.display(),
        r.other_fingerprint
    );
    let _ = writeln!(
        out,
        "functions              {} common, {} only in base, {} only in other",
        c.common, c.only_in_base, c.only_in_other
    );
    let _ = writeln!(out, "kendall_tau            {:.6}", d.kendall_tau);
    let _ = writeln!(out, "share_moved            {:.6}", d.share_moved);
    let _ = writeln!(out, "share_mod64_changed    {:.6}", d.share_mod64_changed);
    let _ = writeln!(out, "share_mod4096_changed  {:.6}", d.share_mod4096_changed);
    out
}
