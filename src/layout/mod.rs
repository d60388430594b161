//! ELF reading with `object`: the functions of objects, archives and binaries, a binary's
//! function order and fingerprint, and distances between two layouts.

pub mod distance;
