//! The benchmark process's surroundings: a clean fixed environment, one padding variable,
//! one fixed path for the binary under test, and ASLR off.
//!
//! Everything the kernel copies onto the initial stack (argv, envp, the executable's path)
//! shifts the stack's alignment and so the program's speed (Mytkowicz et al. 2009). The
//! runner holds all of it fixed except the padding, which is drawn per execution so that
//! its effect becomes execution-level noise instead of a hidden bias.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use nix::sys::personality::{self, Persona};

/// Name of the padding variable; its value is `env_pad` bytes of `x`.
pub(crate) const PAD_VARIABLE: &str = "LAYOUTRAND_PAD";

/// Directory inside the output directory where binaries are staged and outputs captured.
pub(crate) const STAGING_DIR: &str = ".run";

/// The fixed environment every benchmark process gets (besides the padding variable):
/// the runner's `PATH` and `HOME` (so commands resolve as the user expects, and stay fixed for
/// the whole run), `LANG=C`, `LC_ALL=C` and `PWD` set to the working directory.
pub(crate) fn clean_environment(cwd: &Path) -> Vec<(String, String)> {
    let mut env = Vec::new();
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
    env.push(("PATH".to_string(), path));
    if let Ok(home) = std::env::var("HOME") {
        env.push(("HOME".to_string(), home));
    }
    env.push(("LANG".to_string(), "C".to_string()));
    env.push(("LC_ALL".to_string(), "C".to_string()));
    env.push(("PWD".to_string(), cwd.display().to_string()));
    env
}

/// The names [`clean_environment`] sets: the only ones a recorded environment may hold.
pub(crate) const FIXED_VARIABLES: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "PWD"];

/// Checks an environment read back from a store header or a Slurm plan: only the
/// [`FIXED_VARIABLES`], each once. Anything else (an added `LD_PRELOAD=`) was never written
/// by layoutrand and would be loaded by every execution.
pub(crate) fn check_recorded_environment(pairs: &[(String, String)]) -> Result<()> {
    let mut seen = std::collections::BTreeSet::new();
    for (name, _) in pairs {
        if !FIXED_VARIABLES.contains(&name.as_str()) {
            anyhow::bail!(
                "the recorded environment sets {name:?}, which layoutrand never records (only \
                 {}): refused, the file was edited",
                FIXED_VARIABLES.join(", ")
            );
        }
        if !seen.insert(name.as_str()) {
            anyhow::bail!(
                "the recorded environment sets {name:?} twice: refused, the file was edited"
            );
        }
    }
    Ok(())
}

/// The padding variable's value for a padding of `bytes` bytes.
pub(crate) fn padding_value(bytes: u32) -> String {
    "x".repeat(bytes as usize)
}

/// The fixed path at which program `name` is run: `DIR/.run/bin/<name>`.
pub fn fixed_binary_path(out_dir: &Path, name: &str) -> PathBuf {
    staged_binary_path(&out_dir.join(STAGING_DIR), name)
}

/// The path at which program `name` is run from the staging directory `staging`.
pub(crate) fn staged_binary_path(staging: &Path, name: &str) -> PathBuf {
    staging.join("bin").join(name)
}

/// Most parallel executions a run may have (`run --jobs`): worker directories keep the
/// length of [`STAGING_DIR`] up to this many.
pub(crate) const MAX_JOBS: usize = 100;

/// The staging directory of parallel worker `worker` (`run --jobs`): `DIR/.run` for the
/// first, `DIR/.r01`, `DIR/.r02`, … for the others. Every name has the length of `.run`, so
/// the binary's path, which the kernel copies onto the initial stack, has the same length
/// whichever worker runs an execution, and the stack sits at the same address.
pub(crate) fn worker_staging_dir(out_dir: &Path, worker: usize) -> PathBuf {
    assert!(worker < MAX_JOBS, "worker {worker} >= MAX_JOBS");
    if worker == 0 {
        out_dir.join(STAGING_DIR)
    } else {
        out_dir.join(format!(".r{worker:02}"))
    }
}

/// Puts `source` at `fixed` (hard link, or a copy when a link is impossible), replacing what
/// was there, so every binary runs from the same path. Nothing is done when `fixed` already
/// is a hard link to `source`.
pub(crate) fn stage_binary(source: &Path, fixed: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    if let (Ok(a), Ok(b)) = (std::fs::metadata(source), std::fs::symlink_metadata(fixed)) {
        if a.dev() == b.dev() && a.ino() == b.ino() {
            return Ok(());
        }
    }
    // The staging directory is checked real before any execution (preflight); its `bin`
    // or `lib` is made here without following a link.
    let (dir, name) = crate::files::confined::make_parent_of(fixed)?;
    // The link and the unlink of the binary it replaces change both files' ctime: the
    // hashes kept for them are carried across (a copy is a new file, hashed anew).
    // The source's hash is kept before its first link (built earlier, it has settled): the
    // check after staging then reads it from the cache.
    let _ = crate::files::hash_cache::sha256(source);
    crate::files::hash_cache::own_change(&[source, fixed], || {
        dir.link_or_copy_in(source, name)
            .with_context(|| format!("cannot stage {} as {}", source.display(), fixed.display()))
    })
}

/// Sets `personality(ADDR_NO_RANDOMIZE)` on the calling process (what `setarch -R` does).
///
/// Meant for `pre_exec`: it makes one system call and allocates nothing.
pub(crate) fn disable_aslr_in_this_process() -> std::io::Result<()> {
    let current = personality::get()?;
    personality::set(current | Persona::ADDR_NO_RANDOMIZE)?;
    Ok(())
}

/// Whether ASLR can be (or already is) off for our children, found by starting one probe
/// process (`cat /proc/self/personality`) with the persona set and reading its persona.
///
/// `Err` carries the reason to show in a warning: the probe could not be started (no `cat`
/// on PATH), or the persona did not take effect in it (the call refused or ignored).
pub(crate) fn probe_aslr_off() -> std::result::Result<(), String> {
    use std::os::unix::process::CommandExt;
    if std::fs::read_to_string("/proc/sys/kernel/randomize_va_space")
        .map(|s| s.trim() == "0")
        .unwrap_or(false)
    {
        return Ok(());
    }
    let cat = crate::child::which("cat").ok_or_else(|| {
        "cannot start the ASLR probe `cat /proc/self/personality`: no `cat` on PATH".to_string()
    })?;
    let mut probe = crate::child::command(&cat);
    probe.arg("/proc/self/personality");
    // A refused personality(2) does not stop the probe: its persona then lacks the flag, and
    // a failed start is a failed start. SAFETY: the closure only calls personality(2), which
    // is async-signal-safe.
    unsafe {
        probe.pre_exec(|| {
            let _ = disable_aslr_in_this_process();
            Ok(())
        });
    }
    let shown = crate::child::display_args(&[cat.as_os_str(), "/proc/self/personality".as_ref()]);
    let out = probe
        .output()
        .map_err(|e| format!("cannot start the ASLR probe `{shown}`: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let persona = u64::from_str_radix(text.trim(), 16)
        .map_err(|_| format!("cannot read the probe's /proc/self/personality ({text:?})"))?;
    if persona & Persona::ADDR_NO_RANDOMIZE.bits() as u64 == 0 {
        return Err(format!(
            "personality(ADDR_NO_RANDOMIZE) did not take effect: the probe ran with persona \
             {persona:#x} (the host refused or ignored the call)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_replaces_the_fixed_binary() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&a, "A").unwrap();
        std::fs::write(&b, "B").unwrap();
        let fixed = fixed_binary_path(dir.path(), "prog");
        // The staging directory exists before any binary is staged (preflight makes it).
        std::fs::create_dir(dir.path().join(STAGING_DIR)).unwrap();
        stage_binary(&a, &fixed).unwrap();
        assert_eq!(std::fs::read_to_string(&fixed).unwrap(), "A");
        stage_binary(&b, &fixed).unwrap();
        assert_eq!(std::fs::read_to_string(&fixed).unwrap(), "B");
        assert_eq!(
            std::fs::read_to_string(&a).unwrap(),
            "A",
            "source left intact"
        );
    }

    /// Two binaries staged in turn at one fixed path, as an interleaved run does before each
    /// execution: once each has been hashed, checking the staged file reads no file again,
    /// although every staging links one and unlinks the other (both files' ctime changes).
    /// A binary rewritten after its staging (same size, same inode) is hashed anew and
    /// found to be another.
    #[test]
    fn staging_keeps_the_hashes_and_a_later_change_is_hashed_anew() {
        use crate::files::hash_cache::files_hashed_by_this_thread as hashed;
        use crate::files::manifest::{sha256_of_file, sha256_of_file_cached};
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "binary A").unwrap();
        std::fs::write(&b, "binary B").unwrap();
        let (hash_a, hash_b) = (sha256_of_file(&a).unwrap(), sha256_of_file(&b).unwrap());
        std::fs::create_dir(dir.path().join(STAGING_DIR)).unwrap();
        let fixed = fixed_binary_path(dir.path(), "prog");
        // As a build's binaries are by the time a run stages them: settled.
        std::thread::sleep(crate::files::hash_cache::SETTLED * 2);
        let start = hashed();
        for (source, hash) in [(&a, &hash_a), (&b, &hash_b)] {
            stage_binary(source, &fixed).unwrap();
            assert_eq!(&sha256_of_file_cached(&fixed).unwrap(), hash);
        }
        assert_eq!(
            hashed() - start,
            2,
            "each binary read once, at its first staging"
        );
        for _ in 0..3 {
            for (source, hash) in [(&a, &hash_a), (&b, &hash_b)] {
                stage_binary(source, &fixed).unwrap();
                assert_eq!(&sha256_of_file_cached(&fixed).unwrap(), hash);
            }
        }
        assert_eq!(hashed() - start, 2, "later stagings read from the cache");
        stage_binary(&a, &fixed).unwrap();
        // Rewritten in place by someone else: same inode, same size, other contents.
        std::fs::write(&fixed, "binary C").unwrap();
        let now = sha256_of_file_cached(&fixed).unwrap();
        assert_eq!(hashed() - start, 3, "the changed file is read again");
        assert_ne!(now, hash_a, "and found to be another binary");
        assert_eq!(now, sha256_of_file(&a).unwrap());
    }

    #[test]
    fn worker_directories_keep_the_paths_length() {
        let out = Path::new("/x/out");
        let len = |w| worker_staging_dir(out, w).as_os_str().len();
        assert_eq!(worker_staging_dir(out, 0), out.join(STAGING_DIR));
        assert!((0..MAX_JOBS).all(|w| len(w) == len(0)));
        assert_ne!(worker_staging_dir(out, 1), worker_staging_dir(out, 2));
    }

    #[test]
    fn clean_environment_is_small_and_fixed() {
        let env = clean_environment(Path::new("/tmp"));
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert!(names.contains(&"PATH") && names.contains(&"LANG") && names.contains(&"PWD"));
        assert!(env.len() <= 5);
        assert_eq!(padding_value(32).len(), 32);
    }
}
