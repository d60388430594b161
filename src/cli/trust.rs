//! Own versus received, at the commands: the check every command that would run, relink or
//! submit from an experiment directory makes first, and `layoutrand trust DIR`, which shows
//! what the directory would make layoutrand run and adopts it.
//!
//! The MACs themselves are [`layoutrand::files::trust`]'s. A directory whose parts verify is
//! the user's own and nothing changes; anything else is refused with what would run, and
//! proceeds only with `--trust` (which adopts it, so its Slurm tasks and later resumes verify).

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use layoutrand::files::manifest::{Manifest, MANIFEST_FILE};
use layoutrand::files::results::Record;
use layoutrand::files::store::RESULTS_FILE;
use layoutrand::files::trust::{read_part, read_signed_part, verify, Kind, Ownership};
use layoutrand::run::slurm::plan::{slurm_path, SlurmPlan, PLAN_FILE};
use layoutrand::wrap::record::LinkRecord;

/// Arguments of `layoutrand trust`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub dir: super::common::ExperimentDirArgs,
    /// Show what the directory would make layoutrand run, and whose its parts are, without
    /// adopting it (nothing is signed).
    #[arg(long)]
    pub show: bool,
}

/// Which of a directory's executable parts a command uses.
#[derive(Debug, Clone, Copy, Default)]
pub struct Uses {
    /// `manifest.json` (the binaries' hashes, the build command).
    pub manifest: bool,
    /// The store's header (the run's command, cwd, environment).
    pub header: bool,
    /// The recorded links (tools, arguments, cwd, environment, objects).
    pub links: bool,
    /// The Slurm plan (program, partition, token, node folder, command).
    pub plan: bool,
}

impl Uses {
    /// Every part.
    pub const ALL: Uses = Uses {
        manifest: true,
        header: true,
        links: true,
        plan: true,
    };
}

/// One executable part of a directory, checked.
struct Part {
    /// The experiment directory it lies in: read and signed through the confined directory,
    /// never through a link planted below it.
    dir: PathBuf,
    /// Its path below `dir`.
    rel: PathBuf,
    kind: Kind,
    ownership: Ownership,
    /// What layoutrand would run from it, one line each, every string escaped.
    shows: Vec<String>,
    /// Why it does not read as layoutrand wrote it (then it is never adopted).
    problem: Option<String>,
}

/// Refuses `action` on `dir` unless every part it `uses` is this user's own, or `trust` is
/// given: then the parts are adopted (signed with the user's key) and the action goes on.
pub fn require_own(dir: &Path, action: &str, uses: Uses, trust: bool) -> Result<()> {
    let parts = parts_of(dir, uses)?;
    let strangers: Vec<&Part> = parts
        .iter()
        .filter(|p| p.ownership != Ownership::Own)
        .collect();
    if strangers.is_empty() {
        return Ok(());
    }
    if trust {
        layoutrand::diagnostic!(
            "layoutrand: --trust: adopting {} as your own; it will run:\n{}",
            dir.display(),
            what_would_run(&parts).trim_end_matches('\n')
        );
        return adopt(&parts);
    }
    bail!(
        "{action} refused: {} is not your own experiment directory (its files were not all \
         written by your layoutrand):\n{}it would run:\n{}if that is what you mean to run, \
         adopt the directory with `layoutrand trust {}` (or pass --trust to this command); \
         the report commands read it as it is",
        dir.display(),
        why_not_own(&strangers),
        what_would_run(&parts),
        shell_words::quote(&dir.display().to_string())
    )
}

/// Runs `layoutrand trust DIR`: prints what the directory would make layoutrand run and
/// adopts it.
pub fn run(args: Args) -> Result<i32> {
    let dir = args.dir.path();
    if !dir.join(MANIFEST_FILE).exists() && !dir.join(RESULTS_FILE).exists() {
        bail!(
            "{} holds no manifest.json or results.jsonl: not a layoutrand experiment directory",
            dir.display()
        );
    }
    let parts = parts_of(&dir, Uses::ALL)?;
    let strangers: Vec<&Part> = parts
        .iter()
        .filter(|p| p.ownership != Ownership::Own)
        .collect();
    layoutrand::out!("{}", what_would_run(&parts));
    if strangers.is_empty() {
        layoutrand::outln!("layoutrand trust: {} is already your own", dir.display());
        return Ok(0);
    }
    layoutrand::out!("{}", why_not_own(&strangers));
    if args.show {
        layoutrand::outln!(
            "layoutrand trust --show: {} is not your own; nothing was signed (`layoutrand \
             trust {}` adopts it)",
            dir.display(),
            shell_words::quote(&dir.display().to_string())
        );
        return Ok(0);
    }
    adopt(&parts)?;
    layoutrand::outln!(
        "layoutrand trust: {} is now your own: resume, extend, Slurm resume and explain \
         --confirm run what is listed above",
        dir.display()
    );
    Ok(0)
}

/// Signs every part with the user's key, after checking that each reads as layoutrand
/// wrote it: a part that does not is never adopted (nor any other, so a directory is adopted
/// whole or not at all).
fn adopt(parts: &[Part]) -> Result<()> {
    let broken: Vec<String> = parts
        .iter()
        .filter_map(|p| {
            let why = p.problem.as_ref()?;
            Some(format!("  {}: {why}\n", shown(&p.dir.join(&p.rel))))
        })
        .collect();
    if !broken.is_empty() {
        bail!(
            "not adopted, nothing signed: these parts do not read as layoutrand wrote them:\n{}\
             repair the store (`layoutrand repair`) or remove what does not belong, then trust \
             it again",
            broken.concat()
        );
    }
    for p in parts {
        let bytes = read_signed_part(&p.dir, &p.rel, p.kind)?;
        layoutrand::files::trust::sign(&p.dir, &p.rel, p.kind, &bytes)?;
    }
    Ok(())
}

/// One line per part that is not the user's own, with why (no MAC, or one that does not verify).
fn why_not_own(strangers: &[&Part]) -> String {
    let mut out = String::new();
    for p in strangers {
        let why = match p.ownership {
            Ownership::Unsigned => {
                "has no MAC: written by someone else, or by a layoutrand older than its MACs"
            }
            Ownership::Mismatch => {
                "does not match its MAC: edited since, or signed by another user's key"
            }
            Ownership::Own => continue,
        };
        out.push_str(&format!("  {} {why}\n", shown(&p.dir.join(&p.rel))));
    }
    out
}

fn what_would_run(parts: &[Part]) -> String {
    let mut out = String::new();
    for p in parts {
        for line in &p.shows {
            out.push_str(&format!("  {}: {line}\n", shown(&p.dir.join(&p.rel))));
        }
    }
    out
}

/// A path from the directory, printable.
fn shown(path: &Path) -> String {
    let s = path.display().to_string();
    if s.chars().any(char::is_control) {
        format!("{s:?}")
    } else {
        s
    }
}

/// The parts of `dir` that `uses` names and that exist, checked.
fn parts_of(dir: &Path, uses: Uses) -> Result<Vec<Part>> {
    let mut parts = Vec::new();
    if uses.manifest {
        parts.extend(part(dir, MANIFEST_FILE, Kind::Manifest, manifest_shows)?);
    }
    if uses.header {
        parts.extend(part(dir, RESULTS_FILE, Kind::StoreHeader, header_shows)?);
    }
    if uses.plan {
        let plan = slurm_path(Path::new(""), PLAN_FILE);
        parts.extend(part(dir, plan, Kind::SlurmPlan, plan_shows)?);
    }
    if uses.links {
        let links = Path::new(layoutrand::relink::driver::RECORD_DIR)
            .join(layoutrand::wrap::record::LINKS_DIR);
        // Listed and read below `dir` without following a link: a planted `.record` or
        // `.record/links` link is refused, naming it.
        let listed = match layoutrand::files::confined::ExperimentDir::open(dir)?.list(&links) {
            Ok(listed) => listed,
            Err(e) if layoutrand::files::confined::is_missing(&e) => Vec::new(),
            Err(e) => return Err(e),
        };
        let names = listed
            .into_iter()
            .map(|(name, _)| name)
            .filter(|n| Path::new(n).extension().is_some_and(|e| e == "json"));
        for name in names {
            parts.extend(part(dir, links.join(name), Kind::LinkRecord, link_shows)?);
        }
    }
    Ok(parts)
}

fn part(
    dir: &Path,
    rel: impl AsRef<Path>,
    kind: Kind,
    shows: fn(&[u8]) -> Result<Vec<String>, String>,
) -> Result<Option<Part>> {
    let rel = rel.as_ref();
    let Some(bytes) = read_part(dir, rel, kind)? else {
        return Ok(None);
    };
    if kind == Kind::StoreHeader && bytes.is_empty() {
        return Ok(None);
    }
    Ok(Some(Part {
        dir: dir.to_path_buf(),
        rel: rel.to_path_buf(),
        kind,
        ownership: verify(dir, rel, kind, &bytes)?,
        shows: shows(&bytes).unwrap_or_else(|why| unreadable(&why)),
        problem: shows(&bytes).err(),
    }))
}

fn unreadable(e: impl std::fmt::Display) -> Vec<String> {
    vec![format!("(not readable as layoutrand wrote it: {e})")]
}

fn manifest_shows(bytes: &[u8]) -> Result<Vec<String>, String> {
    match serde_json::from_slice::<Manifest>(bytes) {
        Ok(m) => Ok(vec![
            format!(
                "the binaries it lists ({} sets), after checking their SHA-256",
                m.binary_sets().count()
            ),
            format!(
                "the build command it records: {:?} in {:?}",
                m.build_command, m.build_dir
            ),
        ]),
        Err(e) => Err(e.to_string()),
    }
}

fn header_shows(bytes: &[u8]) -> Result<Vec<String>, String> {
    match serde_json::from_slice::<Record>(bytes) {
        Ok(Record::Header(h)) => Ok(vec![format!(
            "command {:?} in {:?} with environment {:?}",
            h.command,
            h.cwd
                .as_deref()
                .unwrap_or("(the directory run is started in)"),
            h.environment
        )]),
        Ok(_) => Err("its first line is not a header".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

fn plan_shows(bytes: &[u8]) -> Result<Vec<String>, String> {
    match serde_json::from_slice::<SlurmPlan>(bytes) {
        Ok(p) => Ok(vec![
            format!(
                "sbatch of {:?} on every node, partition {}, options {:?}, token {:?}, node \
                 folder {:?}",
                p.layoutrand,
                // The name escaped as every shown string is; not Rust's `Some("…")`.
                p.partition.as_ref().map_or_else(
                    || "(the cluster's default)".to_string(),
                    |p| format!("{p:?}")
                ),
                p.slurm_args,
                p.token,
                p.node_dir
            ),
            format!(
                "command {:?} in {:?} with environment {:?}",
                p.header.command,
                p.header
                    .cwd
                    .as_deref()
                    .unwrap_or("(the directory run is started in)"),
                p.header.environment
            ),
        ]),
        Err(e) => Err(e.to_string()),
    }
}

fn link_shows(bytes: &[u8]) -> Result<Vec<String>, String> {
    match serde_json::from_slice::<LinkRecord>(bytes) {
        Ok(l) => Ok(vec![format!(
            "{:?} {:?} in {:?} with environment {:?} ({} recorded objects)",
            l.real_tool,
            l.args,
            l.cwd,
            l.env,
            l.inputs.len()
        )]),
        Err(e) => Err(e.to_string()),
    }
}
