//! The git side of `layoutrand watch`: the repository the user stands in, its commits named
//! by refs, and detached worktrees of them in which the base and the head are built.
//!
//! Every git command runs with the user's own repository and refs, named on the command
//! line: nothing read from an experiment directory reaches git.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The repository the current directory belongs to.
#[derive(Debug, Clone)]
pub(crate) struct Repo {
    /// Its working tree's top level.
    top: PathBuf,
    /// The current directory below the top level (empty at the top): the base and head are
    /// built and run in the same place of their own worktrees.
    prefix: PathBuf,
}

impl Repo {
    /// The repository of `cwd`, or an error saying that `watch` needs one.
    pub(crate) fn discover(cwd: &Path) -> Result<Repo> {
        let top = git(cwd, &["rev-parse", "--show-toplevel"]).with_context(|| {
            format!(
                "layoutrand watch compares two commits of a git repository, and {} is not in one",
                cwd.display()
            )
        })?;
        let prefix = git(cwd, &["rev-parse", "--show-prefix"])?;
        Ok(Repo {
            top: PathBuf::from(top),
            prefix: PathBuf::from(prefix),
        })
    }

    /// The full commit name `reference` stands for (a branch, a tag, `HEAD~1`, a hash).
    pub(crate) fn commit(&self, reference: &str) -> Result<String> {
        if reference.starts_with('-') {
            bail!("{reference:?} is not a git revision (it starts with `-`)");
        }
        let spec = format!("{reference}^{{commit}}");
        // git says nothing with --quiet: the message is ours alone.
        git(&self.top, &["rev-parse", "--verify", "--quiet", &spec]).map_err(|_| {
            let shallow = git(&self.top, &["rev-parse", "--is-shallow-repository"])
                .is_ok_and(|answer| answer == "true");
            let hint = if shallow {
                " (it is a shallow clone: fetch the history, `git fetch --unshallow`, or \
                 check out with `fetch-depth: 0` in GitHub Actions)"
            } else {
                ""
            };
            anyhow::anyhow!(
                "{reference:?} names no commit of the repository at {}{hint}",
                self.top.display()
            )
        })
    }

    /// Whether the working tree has changes to tracked files that no commit holds: a watch
    /// builds commits, so they are not measured.
    pub(crate) fn has_uncommitted_changes(&self) -> bool {
        git(
            &self.top,
            &["status", "--porcelain", "--untracked-files=no"],
        )
        .is_ok_and(|changes| !changes.is_empty())
    }

    /// A detached worktree of `commit` at `path` (kept when it is already there at that
    /// commit), and the directory in it that corresponds to the current one.
    pub(crate) fn worktree(&self, path: &Path, commit: &str) -> Result<PathBuf> {
        if path.join(".git").exists() {
            let at = git(path, &["rev-parse", "HEAD"])?;
            if at != commit {
                bail!(
                    "{} is a worktree of commit {at}, not of {commit}; remove it (git worktree \
                     remove --force {}) or give another output directory",
                    path.display(),
                    path.display()
                );
            }
        } else {
            // A worktree that was deleted without git knowing is still registered; prune
            // forgets it so that the path can be added again.
            git(&self.top, &["worktree", "prune"])?;
            let target = path.to_string_lossy();
            git(
                &self.top,
                &["worktree", "add", "--quiet", "--detach", &target, commit],
            )?;
        }
        Ok(path.join(&self.prefix))
    }

    /// Removes the worktree at `path` (and git's record of it), if there is one.
    pub(crate) fn remove_worktree(&self, path: &Path) -> Result<()> {
        if path.exists() {
            let target = path.to_string_lossy();
            git(&self.top, &["worktree", "remove", "--force", &target])?;
        }
        Ok(())
    }
}

/// `git ARGS` in `dir`: its standard output, trimmed, or an error with git's message.
fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let output = crate::child::command("git")
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .context("cannot run git (is it installed?)")?;
    if !output.status.success() {
        bail!(
            "git {} failed in {}: {}",
            crate::child::display_args(args),
            dir.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(dir: &Path, script: &str) {
        let status = crate::child::command("sh")
            .current_dir(dir)
            .args(["-c", script])
            .status()
            .unwrap();
        assert!(status.success(), "{script}");
    }

    /// Refs resolve to commits; a worktree is made once, kept at its commit, refused at
    /// another, and removed; a name that is no commit or looks like a flag is refused.
    #[test]
    fn refs_name_commits_and_worktrees_follow_them() {
        let tmp = tempfile::tempdir().unwrap();
        let repo_dir = tmp.path().join("repo");
        std::fs::create_dir_all(repo_dir.join("sub")).unwrap();
        sh(
            &repo_dir,
            "git init -q && echo a > sub/f && git add -A && \
             git -c user.email=t@example.org -c user.name=t commit -qm one && \
             echo b > sub/f && git -c user.email=t@example.org -c user.name=t commit -qam two",
        );
        let repo = Repo::discover(&repo_dir.join("sub")).unwrap();
        assert_eq!(repo.prefix, Path::new("sub/"));
        let head = repo.commit("HEAD").unwrap();
        let base = repo.commit("HEAD~1").unwrap();
        assert_eq!(head.len(), 40);
        assert_ne!(head, base);
        let err = repo.commit("no-such-branch").unwrap_err();
        assert!(format!("{err:#}").starts_with("\"no-such-branch\" names no commit"));
        assert!(repo.commit("--output=x").is_err());
        assert!(!repo.has_uncommitted_changes());
        std::fs::write(repo_dir.join("sub/f"), "c\n").unwrap();
        assert!(repo.has_uncommitted_changes());
        sh(&repo_dir, "git checkout -q -- sub/f");

        let tree = tmp.path().join("trees/base");
        let dir = repo.worktree(&tree, &base).unwrap();
        assert_eq!(dir, tree.join("sub/"));
        assert_eq!(std::fs::read_to_string(dir.join("f")).unwrap(), "a\n");
        // Again at the same commit: kept; at another: refused.
        repo.worktree(&tree, &base).unwrap();
        let err = repo.worktree(&tree, &head).unwrap_err();
        assert!(format!("{err:#}").contains("is a worktree of commit"));
        repo.remove_worktree(&tree).unwrap();
        assert!(!tree.exists());
        // Deleted behind git's back: made again.
        repo.worktree(&tree, &head).unwrap();
        std::fs::remove_dir_all(&tree).unwrap();
        let dir = repo.worktree(&tree, &head).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("f")).unwrap(), "b\n");
    }
}
