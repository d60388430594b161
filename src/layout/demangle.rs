//! Readable function names for `layoutrand layout`: C++ (Itanium ABI, `_Z...`) and Rust
//! (legacy `_ZN...E` and v0 `_R...`) symbols demangled; anything else, or a name a demangler
//! refuses, printed as it is; valgrind's `???` in words. Only for display: identities, fingerprints and the manifest
//! keep the symbol names as in `.symtab`.

/// What cachegrind and callgrind call code they found no symbol for.
const VALGRIND_UNNAMED: &str = "???";

/// The demangled form of a symbol name, or the name itself; valgrind's `???` (code it found
/// no symbol for, as a stripped library's local functions) said as such.
pub(crate) fn demangle(name: &str) -> String {
    if name == VALGRIND_UNNAMED {
        return "code without a symbol".to_string();
    }
    // Rust first: a legacy Rust name is also a valid Itanium C++ name, whose C++ reading
    // keeps the hash (`::h0123456789abcdef`).
    if let Ok(d) = rustc_demangle::try_demangle(name) {
        return format!("{d:#}");
    }
    if name.starts_with("_Z") {
        if let Ok(symbol) = cpp_demangle::Symbol::new(name) {
            if let Ok(d) = symbol.demangle() {
                return d;
            }
        }
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::demangle;

    /// References: binutils 2.40's `c++filt` on the C++ names (`echo NAME | c++filt`); for
    /// Rust, its reading without the hash (`c++filt` prints `core::fmt::Formatter::pad::h0123456789abcdef`).
    #[test]
    fn cxx_and_rust_names_are_demangled_and_others_kept() {
        assert_eq!(demangle("_Z6pickedl"), "picked(long)");
        assert_eq!(
            demangle("_ZNSt6vectorIiSaIiEE9push_backERKi"),
            "std::vector<int, std::allocator<int> >::push_back(int const&)"
        );
        assert_eq!(
            demangle("_ZN4core3fmt9Formatter3pad17h0123456789abcdefE"),
            "core::fmt::Formatter::pad"
        );
        assert_eq!(demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
        assert_eq!(demangle("main"), "main");
        assert_eq!(demangle("t1_step.cold"), "t1_step.cold");
        assert_eq!(demangle("_Znot-a-name"), "_Znot-a-name");
        // A profile's code without a symbol (xz 5.4.1's run, in a shared library of the system)
        // was printed as a name, "C. ??? (13.9 % of the variance …)".
        assert_eq!(demangle("???"), "code without a symbol");
    }
}
