//! A two-node Slurm cluster emulated on this machine, for the `--slurm` tests: munged with
//! its own key and socket, slurmctld and two slurmd (`-N n1`, `-N n2`), all as root under a
//! temporary directory, no systemd, no cgroups. [`Cluster`]'s `Drop` always shuts it down.
//!
//! Needs root and Debian's `slurm-wlm` and `munge` (scripts/setup.sh installs them). A
//! machine without them fails the test with the reason: it never passes silently.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running emulated cluster.
pub struct Cluster {
    /// Its temporary directory (configuration, state, logs).
    pub root: tempfile::TempDir,
    /// `SLURM_CONF` for every client command.
    pub conf: PathBuf,
    daemons: Vec<Child>,
    munged_pid: Option<i32>,
}

/// A free TCP port on 127.0.0.1 (bound, then released for the daemon to take).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port");
    l.local_addr().unwrap().port()
}

fn require(program: &str) {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
        || Path::new("/usr/sbin").join(program).is_file();
    assert!(
        found,
        "`{program}` is missing: this test needs Debian's slurm-wlm and munge (run scripts/setup.sh)"
    );
}

impl Cluster {
    /// Starts munged, slurmctld and slurmd n1 and n2, and waits until both nodes are idle.
    pub fn start() -> Cluster {
        assert!(
            // SAFETY: geteuid has no preconditions.
            unsafe { libc::geteuid() } == 0,
            "the emulated Slurm cluster runs as root: run this test as root"
        );
        for p in [
            "munged",
            "slurmctld",
            "slurmd",
            "sbatch",
            "squeue",
            "scontrol",
            "sinfo",
        ] {
            require(p);
        }
        let root = tempfile::Builder::new()
            .prefix("lr-slurm")
            .tempdir()
            .unwrap();
        let r = root.path();
        for d in ["munge", "state", "spool/n1", "spool/n2", "log", "run"] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(r, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(r.join("munge"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let key: Vec<u8> = (0..1024u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8 ^ std::process::id() as u8)
            .collect();
        std::fs::write(r.join("munge/key"), key).unwrap();
        std::fs::set_permissions(r.join("munge/key"), std::fs::Permissions::from_mode(0o600))
            .unwrap();
        let mut cluster = Cluster {
            conf: r.join("slurm.conf"),
            root,
            daemons: Vec::new(),
            munged_pid: None,
        };
        let r = cluster.root.path().to_path_buf();
        let status = Command::new("munged")
            .arg(format!("--key-file={}", r.join("munge/key").display()))
            .arg(format!("--socket={}", r.join("munge/sock").display()))
            .arg(format!("--pid-file={}", r.join("munge/pid").display()))
            .arg(format!("--log-file={}", r.join("munge/log").display()))
            .arg(format!("--seed-file={}", r.join("munge/seed").display()))
            .arg("--force")
            .status()
            .expect("munged starts");
        assert!(status.success(), "munged failed to start");
        cluster.munged_pid = std::fs::read_to_string(r.join("munge/pid"))
            .ok()
            .and_then(|p| p.trim().parse().ok());
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap()
            .trim()
            .to_string();
        let (ctld, slurmd, p1, p2) = (free_port(), free_port(), free_port(), free_port());
        let d = r.display();
        let conf = format!(
            "ClusterName=lrtest\n\
             SlurmctldHost={host}(127.0.0.1)\n\
             SlurmctldPort={ctld}\n\
             SlurmdPort={slurmd}\n\
             SlurmUser=root\n\
             SlurmdUser=root\n\
             AuthType=auth/munge\n\
             AuthInfo=socket={d}/munge/sock\n\
             CredType=cred/munge\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_Core\n\
             SchedulerParameters=batch_sched_delay=0\n\
             ReturnToService=2\n\
             StateSaveLocation={d}/state\n\
             SlurmdSpoolDir={d}/spool/%n\n\
             SlurmctldPidFile={d}/run/slurmctld.pid\n\
             SlurmdPidFile={d}/run/slurmd-%n.pid\n\
             SlurmctldLogFile={d}/log/slurmctld.log\n\
             SlurmdLogFile={d}/log/slurmd-%n.log\n\
             JobCompType=jobcomp/none\n\
             AccountingStorageType=accounting_storage/none\n\
             MpiDefault=none\n\
             NodeName=n1 NodeHostname={host} NodeAddr=127.0.0.1 Port={p1} CPUs=1 State=UNKNOWN\n\
             NodeName=n2 NodeHostname={host} NodeAddr=127.0.0.1 Port={p2} CPUs=1 State=UNKNOWN\n\
             PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP\n"
        );
        std::fs::write(&cluster.conf, conf).unwrap();
        let spawn = |args: &[&str], log: &str| {
            Command::new(args[0])
                .args(&args[1..])
                .env("SLURM_CONF", &cluster.conf)
                .stdin(Stdio::null())
                .stdout(std::fs::File::create(r.join("log").join(log)).unwrap())
                .stderr(Stdio::inherit())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}", args[0]))
        };
        let conf_s = cluster.conf.display().to_string();
        let ctld_child = spawn(&["slurmctld", "-D", "-i", "-f", &conf_s], "ctld.out");
        cluster.daemons.push(ctld_child);
        for n in ["n1", "n2"] {
            let c = spawn(
                &["slurmd", "-D", "-N", n, "-f", &conf_s],
                &format!("{n}.out"),
            );
            cluster.daemons.push(c);
        }
        let started = Instant::now();
        loop {
            let out = cluster.client("sinfo", &["--noheader", "--Node", "--format=%N %T"]);
            let idle = out.lines().filter(|l| l.ends_with(" idle")).count();
            if idle == 2 {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the emulated cluster did not come up (sinfo: {out:?}); logs in {}",
                r.join("log").display()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        cluster
    }

    /// Runs a client command (with `SLURM_CONF`) under a 20 s timeout; its stdout.
    pub fn client(&self, program: &str, args: &[&str]) -> String {
        let out = Command::new("timeout")
            .arg("20")
            .arg(program)
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The states of the tasks of `job` that squeue lists.
    pub fn task_states(&self, job: &str) -> Vec<String> {
        self.client(
            "squeue",
            &[
                "--noheader",
                "--array",
                "--states=all",
                &format!("--jobs={job}"),
                "--format=%T",
            ],
        )
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("timeout")
            .args(["10", "scontrol", "shutdown"])
            .env("SLURM_CONF", &self.conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        for child in &mut self.daemons {
            loop {
                match child.try_wait() {
                    Ok(Some(_)) | Err(_) => break,
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(100))
                    }
                    Ok(None) => {
                        let _ = child.kill();
                        let _ = child.wait();
                        break;
                    }
                }
            }
        }
        if let Some(pid) = self.munged_pid {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
    }
}
