//! Live relinking for `--rebuild`: inside a full build, the shim relinks each final link for
//! the binary at once, in place, so the build itself goes on with the randomised program
//! (its own tests run on it) and the tree needs no replay afterwards.
//!
//! The settings travel in the environment of the build; the shim calls [`relink_in_place`]
//! right after it recorded a link. In the baseline's build it first keeps a copy of the
//! link's own output ([`own_output_copy`]): the binary the user's build made, kept as the
//! `as-built` layout ([`super::as_built`]). A failure is written to [`LIVE_FAILURES_LOG`] (the build
//! goes on with the ordinary link: the shim never breaks a build) and the driver marks the
//! binary failed.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::linker::Linker;
use super::replay::Program;
use crate::files::manifest::Granularity;
use crate::wrap::record::{self, LinkRecord};

/// `baseline`, or the seed as a decimal number.
pub const ENV_LIVE_BINARY: &str = "LAYOUTRAND_LIVE_BINARY";
/// `link`, `module` or `global`.
pub(crate) const ENV_LIVE_GRANULARITY: &str = "LAYOUTRAND_LIVE_GRANULARITY";
/// `auto`, `bfd`, `gold`, `lld` or `mold`.
pub(crate) const ENV_LIVE_LINKER: &str = "LAYOUTRAND_LIVE_LINKER";
/// Log (in the record directory) of live relinks that failed: `output<TAB>message` lines.
pub(crate) const LIVE_FAILURES_LOG: &str = "live-failures.log";
/// Directory (in the record directory) of the baseline's links' own outputs
/// ([`own_output_copy`]).
pub(crate) const OWN_OUTPUTS_DIR: &str = "own-outputs";

/// The live settings for one binary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LiveSettings {
    /// `None`: the baseline.
    pub(crate) seed: Option<u64>,
    /// What to randomise.
    pub(crate) granularity: Granularity,
    /// `None`: each link's own linker.
    pub(crate) linker: Option<Linker>,
}

impl LiveSettings {
    /// The environment variables that carry these settings.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        vec![
            (
                ENV_LIVE_BINARY.to_string(),
                self.seed.map_or("baseline".to_string(), |s| s.to_string()),
            ),
            (
                ENV_LIVE_GRANULARITY.to_string(),
                self.granularity.name().to_string(),
            ),
            (
                ENV_LIVE_LINKER.to_string(),
                self.linker.map_or("auto", |l| l.name()).to_string(),
            ),
        ]
    }

    /// The settings in this process's environment, if any (an error for malformed values).
    pub(crate) fn from_env() -> Result<Option<LiveSettings>> {
        let Ok(binary) = std::env::var(ENV_LIVE_BINARY) else {
            return Ok(None);
        };
        let seed = match binary.as_str() {
            "baseline" => None,
            s => Some(
                s.parse()
                    .with_context(|| format!("{ENV_LIVE_BINARY}={s} is not a seed"))?,
            ),
        };
        let granularity = match std::env::var(ENV_LIVE_GRANULARITY).as_deref() {
            Ok("link") => Granularity::Link,
            Ok("module") | Err(_) => Granularity::Module,
            Ok("global") => Granularity::Global,
            Ok(other) => bail!("{ENV_LIVE_GRANULARITY}={other} is not a granularity"),
        };
        let linker = match std::env::var(ENV_LIVE_LINKER).as_deref() {
            Ok("auto") | Err(_) => None,
            Ok(name) => Some(
                Linker::parse(name)
                    .with_context(|| format!("{ENV_LIVE_LINKER}={name} is not a linker"))?,
            ),
        };
        Ok(Some(LiveSettings {
            seed,
            granularity,
            linker,
        }))
    }
}

/// The shim's hook after each recorded final link (see [`crate::wrap::AfterLink`]): under
/// `--rebuild`, relinks `link` for the binary its environment names; elsewhere nothing. A
/// failure is also written to [`LIVE_FAILURES_LOG`] for the driver, which marks the binary
/// failed.
pub fn after_link(link: &LinkRecord, record_dir: &Path) -> Result<()> {
    let result = LiveSettings::from_env().and_then(|settings| match settings {
        Some(settings) => relink_in_place(&settings, link, record_dir),
        None => Ok(()),
    });
    if let Err(err) = &result {
        // The error is returned to the shim, which says so once when its record fails.
        let _ = record::append_line(
            record_dir,
            LIVE_FAILURES_LOG,
            &format!("{}\t{err:#}", link.output.display()),
        );
    }
    result
}

/// Relinks the just-recorded `link` for the binary, replacing its output; for the baseline,
/// keeps a copy of the output the link itself wrote first ([`own_output_copy`]).
pub(crate) fn relink_in_place(
    settings: &LiveSettings,
    link: &LinkRecord,
    record_dir: &Path,
) -> Result<()> {
    if settings.seed.is_none() {
        keep_own_output(link, record_dir);
    }
    let linker = settings.linker.unwrap_or_else(|| Linker::of_record(link));
    let name = super::programs::program_name(&link.output);
    let program = Program::new(name, link, linker, settings.granularity, record_dir)?;
    let work = record_dir.join("live").join(format!(
        "{}-{}",
        std::process::id(),
        link.started_unix_nanos
    ));
    let relinked = work.join("out").join(&program.name);
    program.link(settings.seed, &relinked, &work.join("tmp"))?;
    replace_output(&relinked, &link.output)?;
    if let Ok(root) = crate::files::confined::ExperimentDir::open(record_dir) {
        let _ = root.remove_dir_all(root.rel(&work)?);
    }
    Ok(())
}

/// Where the baseline's build keeps the output `link` itself wrote, before its live relink
/// replaces it: in the record directory, by the link's start and the output's file name (a
/// later link of the same output has its own copy, as it has its own record).
pub(crate) fn own_output_copy(record_dir: &Path, link: &LinkRecord) -> PathBuf {
    let name = link
        .output
        .file_name()
        .map_or_else(|| "a.out".into(), |n| n.to_string_lossy());
    record_dir
        .join(OWN_OUTPUTS_DIR)
        .join(format!("{}-{name}", link.started_unix_nanos))
}

/// Copies the output `link` wrote to [`own_output_copy`]. A copy that fails only costs the
/// as-built layout (its absence is stated when the set is kept, as for a binary gone from a
/// relink build's tree), never the baseline: nothing is reported here.
fn keep_own_output(link: &LinkRecord, record_dir: &Path) {
    let copy = own_output_copy(record_dir, link);
    if let Ok(root) = crate::files::confined::ExperimentDir::open(record_dir) {
        if let Ok(rel) = root.rel(&copy) {
            let _ = root.copy_in(&link.output, rel, None);
        }
    }
}

/// Puts `relinked` in place of `output`, which must be a regular file (the link's own
/// output): never a device such as `/dev/null`, a FIFO or a symbolic link. Across file
/// systems the new file is first copied next to `output`, so the final step is always a
/// rename within one directory.
fn replace_output(relinked: &Path, output: &Path) -> Result<()> {
    if !crate::wrap::shim::is_regular_file(output) {
        bail!(
            "{} is not a regular file: it is left alone, not replaced",
            output.display()
        );
    }
    if std::fs::rename(relinked, output).is_ok() {
        return Ok(());
    }
    let dir = output.parent().unwrap_or(Path::new("."));
    let tmp = tempfile::Builder::new()
        .prefix(".layoutrand-relinked")
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    std::fs::copy(relinked, tmp.path())
        .with_context(|| format!("copying the relinked program next to {}", output.display()))?;
    tmp.persist(output)
        .with_context(|| format!("replacing {}", output.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_through_the_environment_form() {
        let s = LiveSettings {
            seed: Some(17),
            granularity: Granularity::Global,
            linker: Some(Linker::Gold),
        };
        let env = s.env();
        assert_eq!(env[0], (ENV_LIVE_BINARY.into(), "17".into()));
        assert_eq!(env[1].1, "global");
        assert_eq!(env[2].1, "gold");
        let b = LiveSettings {
            seed: None,
            granularity: Granularity::Module,
            linker: None,
        };
        assert_eq!(b.env()[0].1, "baseline");
        assert_eq!(b.env()[2].1, "auto");
    }
}
