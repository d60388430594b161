//! Replaying one recorded link for the baseline or one seed: the inputs in a seeded order,
//! archives rewritten with shuffled members, the function order imposed by the chosen
//! [`Mechanism`], and the real tool run again in the recorded directory and environment.
//!
//! Every random decision draws from its own stream, `SeededRng::new(seed, purpose)`, with the
//! purpose naming the decision and the program (`link-order:demo`,
//! `archive-members:demo:0`, ...), so a seed means the same layout of a program forever.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};

use super::linker::{Linker, Mechanism};
use super::lto_order;
use crate::layout::archive;
use crate::layout::binary::Function;
use crate::layout::object_file::{self, TextGroup, TextSection};
use crate::layout::reorder::{self, ScriptInput};
use crate::seeded::SeededRng;
use crate::wrap::record::{self, InputKind, LinkRecord, LinkTool};

/// One program to relink: its recording and how to randomise it.
#[derive(Debug, Clone)]
pub struct Program {
    /// Name used for the output file and in messages.
    pub name: String,
    /// The recorded link.
    pub record: LinkRecord,
    /// The linker to use.
    pub linker: Linker,
    /// The randomisation mechanism.
    pub mechanism: Mechanism,
    /// The record directory holding the input blobs.
    pub record_dir: PathBuf,
}

/// A finished link.
#[derive(Debug)]
pub struct Linked {
    /// Wall time of the whole relink (reordering included), seconds.
    pub seconds: f64,
}

impl Program {
    fn blob(&self, name: &str) -> PathBuf {
        self.record_dir.join(record::BLOBS_DIR).join(name)
    }

    fn rng(&self, seed: u64, purpose: &str) -> SeededRng {
        SeededRng::new(seed, &format!("{purpose}:{}", self.name))
    }

    /// Links the program for `seed` (`None`: the baseline, recorded order) into `out`, using
    /// `work` (emptied first) for intermediate files. `baseline` is the baseline binary's
    /// function list, needed by the LTO mechanisms.
    pub fn link(
        &self,
        seed: Option<u64>,
        out: &Path,
        work: &Path,
        baseline: Option<&[Function]>,
    ) -> Result<Linked> {
        let start = Instant::now();
        if work.exists() {
            std::fs::remove_dir_all(work)?;
        }
        std::fs::create_dir_all(work)?;
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let _ = std::fs::remove_file(out);

        let inputs = &self.record.inputs;
        for input in inputs {
            let blob = self.blob(&input.blob);
            if !blob.is_file() {
                bail!(
                    "the recorded copy of {} ({}) is missing from {}",
                    input.written,
                    input.blob,
                    self.record_dir.display()
                );
            }
        }
        // Input paths on the new link line, per recorded input (same index).
        let mut paths: Vec<PathBuf> = inputs.iter().map(|i| self.blob(&i.blob)).collect();
        let object_slots: Vec<usize> = (0..inputs.len())
            .filter(|&i| inputs[i].kind == InputKind::Object)
            .collect();
        let mut object_order = object_slots.clone();
        let mut extra: Vec<String> = Vec::new();

        if let Some(seed) = seed {
            let archives: Vec<usize> = (0..inputs.len())
                .filter(|&i| inputs[i].kind == InputKind::Archive)
                .collect();
            let mut counts = Vec::new();
            for &i in &archives {
                counts.push(archive::members(&paths[i])?.len());
            }
            let mut object_rng = self.rng(seed, "link-order");
            let mut member_rngs: Vec<SeededRng> = (0..archives.len())
                .map(|k| self.rng(seed, &format!("archive-members:{k}")))
                .collect();
            // The recorded order is the baseline's: a seed draws again (from the same
            // streams, so still determined by the seed) until its link order differs, so that
            // programs of few modules do not give seeds identical to the baseline.
            let movable = object_slots.len() > 1 || counts.iter().any(|&c| c > 1);
            let member_orders = loop {
                object_order = object_slots.clone();
                object_rng.shuffle(&mut object_order);
                let orders: Vec<Vec<usize>> = member_rngs
                    .iter_mut()
                    .zip(&counts)
                    .map(|(rng, &n)| rng.permutation(n))
                    .collect();
                let identity = object_order == object_slots
                    && orders
                        .iter()
                        .all(|o| o.iter().enumerate().all(|(a, &b)| a == b));
                if !identity || !movable {
                    break orders;
                }
            };
            for ((k, &i), order) in archives.iter().enumerate().zip(&member_orders) {
                let shuffled = work.join(format!("archive-{k}.a"));
                archive::write_reordered(&paths[i], &shuffled, order)?;
                paths[i] = shuffled;
            }
            extra = self.order_functions(seed, &mut paths, &object_order, work, baseline)?;
        }

        let args = self.link_args(&paths, &object_order, out, &extra);
        let (program, args) = self.command_for(args)?;
        let mut cmd = Command::new(&program);
        cmd.args(&args).current_dir(&self.record.cwd);
        for var in [
            crate::wrap::ENV_RECORD_DIR,
            crate::wrap::ENV_REAL_PATH,
            crate::wrap::ENV_SHIM_DIR,
            crate::wrap::ENV_NESTED,
        ] {
            cmd.env_remove(var);
        }
        for (k, v) in &self.record.env {
            cmd.env(k, v);
        }
        let output = cmd
            .output()
            .with_context(|| format!("cannot run {}", program.display()))?;
        if !output.status.success() {
            let _ = std::fs::remove_file(out);
            let stderr = String::from_utf8_lossy(&output.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(12).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            bail!(
                "relinking {} failed ({}): {}",
                self.name,
                output.status,
                tail.join("\n    ")
            );
        }
        if !out.is_file() {
            bail!("relinking {} produced no {}", self.name, out.display());
        }
        Ok(Linked {
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// Applies the mechanism's function order; returns extra linker arguments (as they go on
    /// the linker's command line, without `-Wl,`). May replace input paths by reordered
    /// copies.
    fn order_functions(
        &self,
        seed: u64,
        paths: &mut [PathBuf],
        object_order: &[usize],
        work: &Path,
        baseline: Option<&[Function]>,
    ) -> Result<Vec<String>> {
        let script = work.join("order.ld");
        match self.mechanism {
            Mechanism::LinkOrder => Ok(Vec::new()),
            Mechanism::ModuleScript => {
                let modules = self.modules(paths, object_order)?;
                let mut per_module: Vec<(ScriptInput, Vec<TextSection>)> = Vec::new();
                for (k, (input, sections)) in modules.into_iter().enumerate() {
                    let mut rng = self.rng(seed, &format!("module-order:{k}"));
                    per_module.push((input, reorder::shuffle_within_groups(&sections, &mut rng)));
                }
                let entries = module_entries(&per_module, self.linker);
                std::fs::write(&script, reorder::text_order_script(&entries)?)?;
                Ok(vec!["-T".into(), script.display().to_string()])
            }
            Mechanism::GlobalScript => {
                let modules = self.modules(paths, object_order)?;
                let entries =
                    reorder::shuffle_global(&modules, &mut self.rng(seed, "global-order"));
                std::fs::write(&script, reorder::text_order_script(&entries)?)?;
                Ok(vec!["-T".into(), script.display().to_string()])
            }
            Mechanism::GlobalSectionOrderingFile => {
                let modules = self.modules(paths, object_order)?;
                let entries =
                    reorder::shuffle_global(&modules, &mut self.rng(seed, "global-order"));
                let mut seen = std::collections::HashSet::new();
                let names: Vec<&str> = entries
                    .iter()
                    .map(|(_, s)| s.as_str())
                    .filter(|s| seen.insert(*s))
                    .collect();
                let file = work.join("order.txt");
                std::fs::write(&file, names.join("\n") + "\n")?;
                Ok(vec![format!("--section-ordering-file={}", file.display())])
            }
            Mechanism::GlobalMoldShuffle => {
                let mold_seed = self.rng(seed, "mold-shuffle").below(1 << 31);
                Ok(vec![format!("--shuffle-sections={mold_seed}")])
            }
            Mechanism::ModuleRelocatable => {
                self.reorder_modules_relocatable(seed, paths, work)?;
                Ok(Vec::new())
            }
            Mechanism::LtoScript | Mechanism::LtoSectionOrderingFile => {
                let functions = baseline.ok_or_else(|| {
                    anyhow!(
                        "internal: the LTO order of {} needs the baseline",
                        self.name
                    )
                })?;
                let order = lto_order::shuffled_sections(
                    functions,
                    &mut self.rng(seed, "lto-global-order"),
                );
                if self.mechanism == Mechanism::LtoScript {
                    std::fs::write(&script, lto_order::script(&order))?;
                    Ok(vec!["-T".into(), script.display().to_string()])
                } else {
                    let file = work.join("order.txt");
                    std::fs::write(&file, order.join("\n") + "\n")?;
                    Ok(vec![format!("--section-ordering-file={}", file.display())])
                }
            }
        }
    }

    /// The program's modules as a script names them: the objects in link order, then each
    /// archive's members in archive order, with their code sections.
    fn modules(
        &self,
        paths: &[PathBuf],
        object_order: &[usize],
    ) -> Result<Vec<(ScriptInput, Vec<TextSection>)>> {
        let mut modules = Vec::new();
        for &i in object_order {
            let sections = object_file::text_sections(&paths[i])
                .with_context(|| format!("module {}", self.record.inputs[i].written))?;
            modules.push((ScriptInput::Object(paths[i].clone()), sections));
        }
        for (i, input) in self.record.inputs.iter().enumerate() {
            if input.kind != InputKind::Archive {
                continue;
            }
            for (member, bytes) in archive_member_bytes(&paths[i])? {
                let Ok(sections) = object_file::text_sections_from_bytes(&bytes) else {
                    continue; // not an ELF object (e.g. LLVM bitcode): left in place
                };
                modules.push((
                    ScriptInput::Member {
                        archive: paths[i].clone(),
                        member,
                    },
                    sections,
                ));
            }
        }
        Ok(modules)
    }

    /// Replaces every object (and every archive member) by a copy relinked with `ld -r` in a
    /// random function order.
    fn reorder_modules_relocatable(
        &self,
        seed: u64,
        paths: &mut [PathBuf],
        work: &Path,
    ) -> Result<()> {
        let ld = which("ld.bfd")?;
        for (i, input) in self.record.inputs.iter().enumerate() {
            match input.kind {
                InputKind::Object => {
                    let out = work.join(format!("module-{i}.o"));
                    let mut rng = self.rng(seed, &format!("module-order:{i}"));
                    if reorder_object(&paths[i], &out, &mut rng, &ld)? {
                        paths[i] = out;
                    }
                }
                InputKind::Archive => {
                    let dir = work.join(format!("archive-{i}-members"));
                    std::fs::create_dir_all(&dir)?;
                    let mut files = Vec::new();
                    for (k, (name, bytes)) in
                        archive_member_bytes(&paths[i])?.into_iter().enumerate()
                    {
                        let file_name = Path::new(&name)
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_else(|| format!("member{k}.o"));
                        let original = dir.join(format!("in-{k}-{file_name}"));
                        std::fs::write(&original, &bytes)?;
                        let member_dir = dir.join(format!("{k}"));
                        std::fs::create_dir_all(&member_dir)?;
                        let reordered = member_dir.join(&file_name);
                        let mut rng = self.rng(seed, &format!("member-order:{i}:{k}"));
                        if !reorder_object(&original, &reordered, &mut rng, &ld)? {
                            std::fs::copy(&original, &reordered)?;
                        }
                        files.push(reordered);
                    }
                    let rebuilt = work.join(format!("archive-{i}-modules.a"));
                    let status = Command::new(which("ar")?)
                        .arg("rcsD")
                        .arg(&rebuilt)
                        .args(&files)
                        .status()?;
                    if !status.success() {
                        bail!(
                            "ar could not rebuild {} with reordered members",
                            input.written
                        );
                    }
                    paths[i] = rebuilt;
                }
            }
        }
        Ok(())
    }

    /// The new command line: recorded arguments with the output, the inputs (objects in
    /// `object_order`, all at the first object's place) and the linker replaced.
    fn link_args(
        &self,
        paths: &[PathBuf],
        object_order: &[usize],
        out: &Path,
        extra_linker_args: &[String],
    ) -> Vec<String> {
        let r = &self.record;
        let driver = r.tool == LinkTool::Driver;
        let mut starts = std::collections::HashMap::new();
        for (i, input) in r.inputs.iter().enumerate() {
            starts.insert(input.span.start, i);
        }
        let first_object = r.inputs.iter().position(|i| i.kind == InputKind::Object);
        let mut args = Vec::new();
        let mut k = 0;
        while k < r.args.len() {
            if let Some(span) = r.output_span.filter(|s| s.start == k) {
                args.push("-o".to_string());
                args.push(out.display().to_string());
                k += span.len;
                continue;
            }
            if let Some(&i) = starts.get(&k) {
                let input = &r.inputs[i];
                match input.kind {
                    InputKind::Object if Some(i) == first_object => {
                        args.extend(object_order.iter().map(|&j| paths[j].display().to_string()));
                    }
                    InputKind::Object => {}
                    InputKind::Archive => args.push(paths[i].display().to_string()),
                }
                k += input.span.len;
                continue;
            }
            let a = &r.args[k];
            if driver && (a.starts_with("-fuse-ld=") || a.starts_with("--ld-path=")) {
                k += 1;
                continue;
            }
            args.push(a.clone());
            k += 1;
        }
        if r.output_span.is_none() {
            args.push("-o".to_string());
            args.push(out.display().to_string());
        }
        if driver {
            args.push(format!("-fuse-ld={}", self.linker.name()));
            if !extra_linker_args.is_empty() {
                args.push(format!("-Wl,{}", extra_linker_args.join(",")));
            }
        } else {
            args.extend(extra_linker_args.iter().cloned());
        }
        args
    }

    /// The program to run: the recorded driver, or for a direct linker call the chosen
    /// linker.
    fn command_for(&self, args: Vec<String>) -> Result<(PathBuf, Vec<String>)> {
        match self.record.tool {
            LinkTool::Driver => Ok((self.record.real_tool.clone(), args)),
            LinkTool::Linker => Ok((which(&self.linker.program())?, args)),
        }
    }
}

/// The entries of a module-granularity script. bfd gathers gcc's groups across modules
/// (all cold code first, ...), lld keeps each module's code together: the script follows
/// each linker's own default so that only the order inside modules and of modules changes.
fn module_entries(
    per_module: &[(ScriptInput, Vec<TextSection>)],
    linker: Linker,
) -> Vec<(ScriptInput, String)> {
    let mut entries = Vec::new();
    if linker == Linker::Bfd {
        for group in TextGroup::REORDERABLE {
            for (input, sections) in per_module {
                for s in sections.iter().filter(|s| s.group == group) {
                    entries.push((input.clone(), s.name.clone()));
                }
            }
        }
    } else {
        for (input, sections) in per_module {
            for s in sections {
                entries.push((input.clone(), s.name.clone()));
            }
        }
    }
    entries
}

/// Relinks `input` with its movable sections shuffled within groups; `false` (and nothing
/// written) when it has fewer than two movable sections or is not a relinkable ELF object.
fn reorder_object(input: &Path, out: &Path, rng: &mut SeededRng, ld: &Path) -> Result<bool> {
    let Ok(sections) = object_file::text_sections(input) else {
        return Ok(false);
    };
    let shuffled = reorder::shuffle_within_groups(&sections, rng);
    if shuffled.len() < 2 {
        return Ok(false);
    }
    let order: Vec<String> = shuffled.into_iter().map(|s| s.name).collect();
    reorder::relocatable_reorder(input, out, &order, ld)?;
    Ok(true)
}

/// The members of a static archive with their bytes, in archive order.
pub fn archive_member_bytes(path: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let file = object::read::archive::ArchiveFile::parse(&*data)
        .with_context(|| format!("{} is not a static archive", path.display()))?;
    let mut members = Vec::new();
    for member in file.members() {
        let member = member.with_context(|| format!("reading a member of {}", path.display()))?;
        let name = String::from_utf8_lossy(member.name()).into_owned();
        let bytes = member
            .data(&*data)
            .with_context(|| format!("member {name} of {}", path.display()))?;
        members.push((name, bytes.to_vec()));
    }
    Ok(members)
}

/// Finds `program` on PATH.
pub fn which(program: &str) -> Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .ok_or_else(|| anyhow!("`{program}` is not installed (not found on PATH)"))
}
