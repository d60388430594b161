//! The `build` driver: run the user's build once under the shim, then relink every recorded
//! program once for the baseline and once per seed, verify each binary, write the manifest.

pub mod manifest;
