//! A driver's link run as the linker it would call: `cc ... -o out` costs the driver and, for
//! gcc, `collect2` on top of the linker, about 4 ms of a 24 ms link on a small program
//! (brotli: `cc` 24.2 ms, `collect2` 22.1 ms, `ld` 19.9 ms, the same bytes out), paid once
//! per seed. The driver is asked once per program what it runs (`-###`); the first binary
//! linked through the driver is then linked again that way into a scratch file, and only
//! when the two outputs are the same bytes are the program's other links run directly.
//! Anything else (an LTO link, a `collect2` that would call a `real-ld`, a command line
//! whose paths cannot be mapped, other bytes) keeps the driver: the check makes the
//! shortcut safe by construction, never by trust in the parse.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::super::link_command::tool_command;
use crate::wrap::record::{LinkRecord, LinkTool};

/// The linker a driver runs for a link and its arguments, for the driver's arguments
/// `driver_args` (another binary's link maps onto it, [`DirectLink::args_for`]).
#[derive(Debug, Clone)]
pub(crate) struct DirectLink {
    /// The linker's path.
    pub(crate) linker: PathBuf,
    /// Its arguments for `driver_args`.
    args: Vec<String>,
    /// The driver's arguments these were found for.
    driver_args: Vec<String>,
}

impl DirectLink {
    /// What the recorded driver runs for `driver_args` (the relink's command line), or
    /// `None` when it cannot be told or is better left to the driver (see the module doc).
    pub(crate) fn find(
        record: &LinkRecord,
        driver: &Path,
        driver_args: &[String],
    ) -> Option<DirectLink> {
        if record.tool != LinkTool::Driver || record.lto {
            return None;
        }
        let shown = tool_command(record, driver)
            .arg("-###")
            .args(driver_args)
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        let stderr = String::from_utf8(shown.stderr).ok()?;
        // The commands are the lines indented by one space; the link is the last.
        let line = stderr.lines().rev().find(|l| l.starts_with(' '))?;
        let words = shell_words::split(line).ok()?;
        let (program, rest) = words.split_first()?;
        let linker = match Path::new(program).file_name()?.to_str()? {
            "collect2" => collect2_linker(record, driver, driver_args)?,
            name if name == "ld" || name.starts_with("ld.") => PathBuf::from(program),
            _ => return None,
        };
        Some(DirectLink {
            linker,
            args: without_plugin(rest),
            driver_args: driver_args.to_vec(),
        })
    }

    /// The linker's arguments for another binary's driver arguments `driver_args`, of the
    /// same shape as those it was found for (the same length, differing in whole paths):
    /// each argument that differs is replaced wherever it appears whole. `None` when the
    /// shapes differ, one argument maps to two, or a differing argument does not appear
    /// whole (the driver made something else of it).
    pub(crate) fn args_for(&self, driver_args: &[String]) -> Option<Vec<String>> {
        if driver_args.len() != self.driver_args.len() {
            return None;
        }
        let mut map: HashMap<&str, &str> = HashMap::new();
        for (from, to) in self.driver_args.iter().zip(driver_args) {
            if from != to && *map.entry(from).or_insert(to) != to.as_str() {
                return None;
            }
        }
        for from in map.keys() {
            let whole = self.args.iter().any(|a| a == from);
            let within = self.args.iter().any(|a| a != from && a.contains(from));
            if !whole || within {
                return None;
            }
        }
        Some(
            self.args
                .iter()
                .map(|a| {
                    map.get(a.as_str())
                        .map_or_else(|| a.clone(), |to| to.to_string())
                })
                .collect(),
        )
    }
}

/// The linker gcc's `collect2` runs for `driver_args`: `ld.NAME` for the `-fuse-ld=NAME`
/// the relink passes, where the driver finds its programs (`-print-prog-name`, with the
/// link's `-B` directories) or on PATH; `None` when a `real-ld` would take precedence
/// (collect2 looks for it first).
fn collect2_linker(record: &LinkRecord, driver: &Path, driver_args: &[String]) -> Option<PathBuf> {
    let prefixes = prefix_options(driver_args);
    let prog_name = |name: &str| -> Option<String> {
        let out = tool_command(record, driver)
            .args(&prefixes)
            .arg(format!("-print-prog-name={name}"))
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
    };
    if Path::new(&prog_name("real-ld")?).is_absolute() {
        return None;
    }
    let fuse = driver_args
        .iter()
        .rev()
        .find_map(|a| a.strip_prefix("-fuse-ld="))?;
    let name = format!("ld.{fuse}");
    let found = prog_name(&name)?;
    if Path::new(&found).is_absolute() {
        return Some(PathBuf::from(found));
    }
    match record.env.get("PATH") {
        Some(path) => crate::child::which_on(&name, path.as_ref()),
        None => crate::child::which(&name),
    }
}

/// The driver's program search options among `args`: `-B DIR` and `-BDIR`.
fn prefix_options(args: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    let mut args = args.iter();
    while let Some(a) = args.next() {
        if a == "-B" {
            found.push(a.clone());
            found.extend(args.next().cloned());
        } else if a.starts_with("-B") {
            found.push(a.clone());
        }
    }
    found
}

/// `args` without the LTO plugin's options (`-plugin FILE`, `-plugin-opt=...`): a link of no
/// LTO object does not use it, and its `-fresolution=` file is a new temporary name per
/// driver run.
fn without_plugin(args: &[String]) -> Vec<String> {
    let mut kept = Vec::with_capacity(args.len());
    let mut skip_next = false;
    for a in args {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if a == "-plugin" {
            skip_next = true;
        } else if !a.starts_with("-plugin-opt=") {
            kept.push(a.clone());
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn found() -> DirectLink {
        DirectLink {
            linker: "/usr/bin/ld.bfd".into(),
            args: strings(&["-pie", "-o", "/o/base", "crt1.o", "/m/merged.o", "-lm"]),
            driver_args: strings(&["/m/merged.o", "-lm", "-o", "/o/base", "-fuse-ld=bfd"]),
        }
    }

    #[test]
    fn another_binary_maps_its_paths_whole() {
        let args = found().args_for(&strings(&[
            "/w/1/merged.o",
            "-lm",
            "-o",
            "/o/seed-1",
            "-fuse-ld=bfd",
        ]));
        assert_eq!(
            args,
            Some(strings(&[
                "-pie",
                "-o",
                "/o/seed-1",
                "crt1.o",
                "/w/1/merged.o",
                "-lm"
            ]))
        );
    }

    #[test]
    fn what_cannot_be_mapped_keeps_the_driver() {
        let d = found();
        // Another shape.
        assert_eq!(d.args_for(&strings(&["/w/1/merged.o", "-o", "/o/s"])), None);
        // A differing argument the driver turned into something else (`-fuse-ld=`).
        assert_eq!(
            d.args_for(&strings(&[
                "/m/merged.o",
                "-lm",
                "-o",
                "/o/base",
                "-fuse-ld=lld"
            ])),
            None
        );
        // One argument becoming two others.
        let twice = DirectLink {
            driver_args: strings(&["/m/merged.o", "/m/merged.o", "-o", "/o/base", "-x"]),
            ..found()
        };
        assert_eq!(
            twice.args_for(&strings(&["/w/a.o", "/w/b.o", "-o", "/o/base", "-x"])),
            None
        );
        // A path the linker's command also holds inside another argument.
        let within = DirectLink {
            args: strings(&["-o", "/o/base", "--Map=/o/base.map"]),
            ..found()
        };
        assert_eq!(
            within.args_for(&strings(&[
                "/m/merged.o",
                "-lm",
                "-o",
                "/o/s",
                "-fuse-ld=bfd"
            ])),
            None
        );
    }

    #[test]
    fn the_program_search_options_are_found() {
        let args = strings(&["-O2", "-B", "/a", "x.o", "-B/b", "-Bc", "-o", "out"]);
        assert_eq!(prefix_options(&args), strings(&["-B", "/a", "-B/b", "-Bc"]));
    }

    #[test]
    fn the_plugin_options_are_left_out() {
        let args = strings(&[
            "-plugin",
            "/usr/lib/gcc/liblto_plugin.so",
            "-plugin-opt=-fresolution=/tmp/cc1.res",
            "--build-id",
            "-o",
            "out",
        ]);
        assert_eq!(without_plugin(&args), strings(&["--build-id", "-o", "out"]));
    }
}
