//! The toolchain versions written into the manifest: the first line of `--version` of every
//! compiler driver a recorded link used and of every linker the relinks used.

use std::collections::BTreeMap;
use std::path::Path;

use super::link_command::which;
use super::replay::Program;

/// Tool name → first line of its `--version`.
pub(crate) fn versions(programs: &[Program]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for p in programs {
        let tool = &p.record.real_tool;
        let name = tool
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.entry(name).or_insert_with(|| version_line(tool));
        let linker = p.linker.program();
        if let Ok(path) = which(&linker) {
            out.entry(linker).or_insert_with(|| version_line(&path));
        }
    }
    out
}

/// The first line of `tool --version`, or `unknown (REASON)` when it cannot be run.
pub(crate) fn version_line(tool: &Path) -> String {
    match crate::child::command(tool).arg("--version").output() {
        Ok(o) => String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string(),
        Err(e) => format!("unknown ({e})"),
    }
}
