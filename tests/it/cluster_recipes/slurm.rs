//! The scheduler the Slurm recipes of tests/it/cluster_recipes.rs are submitted to: a real
//! single-node Slurm (munged, slurmctld and slurmd of Debian's `slurm-wlm` and `munge`, started
//! here with their own key, ports and directories, a two-CPU node) when one can be started, else
//! the stand-in tests/fixtures/cluster/sbatch, which says it is one. Everything started here is
//! stopped when the [`Slurm`] is dropped, also when a test fails.

use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// How long the daemons may take to start and the node to come up.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long any one submission or wait may take before the test fails (a hang is a failure).
pub const JOB_TIMEOUT: Duration = Duration::from_secs(120);
/// The daemons, in the order they are started (and stopped in reverse).
const DAEMONS: [&str; 3] = ["munged", "slurmctld", "slurmd"];

/// Where the recipes' jobs go.
pub enum Scheduler {
    /// A real single-node Slurm started for the test.
    Real(Slurm),
    /// The stand-in sbatch of tests/fixtures/cluster, which runs each job at once.
    StandIn,
}

impl Scheduler {
    /// A real Slurm if one starts, else the stand-in (and `why` printed through `skip`, which
    /// fails instead under SPARRING_REQUIRE_TOOLS=1).
    pub fn start(skip: fn(&str)) -> Scheduler {
        match Slurm::start() {
            Ok(slurm) => {
                println!(
                    "the Slurm recipes run against a real single-node Slurm (slurm.conf in {})",
                    slurm.dir.display()
                );
                Scheduler::Real(slurm)
            }
            Err(why) => {
                skip(&format!(
                    "the real single-node Slurm ({why}); the Slurm recipes run against the \
                     stand-in sbatch (tests/fixtures/cluster/sbatch) instead"
                ));
                Scheduler::StandIn
            }
        }
    }

    pub fn is_real(&self) -> bool {
        matches!(self, Scheduler::Real(_))
    }

    /// The variables that send a recipe's `sbatch` to this scheduler, with the job logs (and
    /// the stand-in's state) in `state`, created here.
    pub fn env(&self, state: &Path) -> Vec<(String, String)> {
        std::fs::create_dir_all(state).unwrap();
        match self {
            Scheduler::Real(slurm) => vec![
                ("SLURM_CONF".into(), slurm.conf().display().to_string()),
                (
                    "SBATCH_OUTPUT".into(),
                    state.join("%x-%A_%a.log").display().to_string(),
                ),
            ],
            Scheduler::StandIn => {
                let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cluster");
                let path = std::env::var("PATH").unwrap_or_default();
                vec![
                    ("PATH".into(), format!("{}:{path}", fixtures.display())),
                    ("MOCK_SBATCH_DIR".into(), state.display().to_string()),
                ]
            }
        }
    }

    /// Waits (bounded) for job `id` of a real Slurm, every task of it, to end, polling
    /// faster than `sbatch --wait` does: its exit status (the highest of its tasks', 128 + the
    /// signal if one was killed). None for the stand-in, whose `sbatch --wait` ran the job.
    pub fn wait_for_job(&self, id: &str) -> Option<i32> {
        let Scheduler::Real(slurm) = self else {
            return None;
        };
        let deadline = Instant::now() + JOB_TIMEOUT;
        // squeue lists pending and running jobs (and refuses an id already forgotten).
        while slurm
            .try_command("squeue", &["-h", "-j", id])
            .is_ok_and(|queue| !queue.trim().is_empty())
        {
            assert!(
                Instant::now() < deadline,
                "job {id} did not end in {JOB_TIMEOUT:?}"
            );
            sleep(Duration::from_millis(100));
        }
        // Ended jobs stay known for MinJobAge (4 s): read their exit codes now.
        let jobs = slurm
            .try_command("scontrol", &["show", "job", "-o", id])
            .unwrap_or_else(|e| panic!("job {id} ended and its exit code is gone: {e}"));
        let codes = jobs.split_whitespace().filter_map(|field| {
            let (code, signal) = field.strip_prefix("ExitCode=")?.split_once(':')?;
            let (code, signal): (i32, i32) = (code.parse().ok()?, signal.parse().ok()?);
            Some(if signal != 0 { 128 + signal } else { code })
        });
        Some(
            codes
                .max()
                .unwrap_or_else(|| panic!("no exit code for job {id}: {jobs}")),
        )
    }

    /// Waits until no job can run any more: the queue is empty or holds only jobs whose
    /// dependency can never be satisfied. The stand-in runs jobs at once.
    pub fn wait_until_settled(&self) {
        let Scheduler::Real(slurm) = self else {
            return;
        };
        let deadline = Instant::now() + JOB_TIMEOUT;
        loop {
            let queue = slurm.command("squeue", &["-h", "-o", "%i %T %r"]);
            let settled = queue
                .lines()
                .all(|line| line.ends_with(" PENDING DependencyNeverSatisfied"));
            if settled {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the Slurm queue did not settle in {JOB_TIMEOUT:?}:\n{queue}"
            );
            sleep(Duration::from_millis(250));
        }
    }

    /// Whether job `id` waits for ever on a failed dependency (and is cancelled here, so the
    /// queue is clean; the stand-in's job stays "pending" in its state directory).
    pub fn waits_on_a_failed_dependency(&self, state: &Path, id: &str) -> bool {
        match self {
            Scheduler::Real(slurm) => {
                let status = slurm.command("squeue", &["-h", "-j", id, "-o", "%T %r"]);
                slurm.command("scancel", &[id]);
                status.trim() == "PENDING DependencyNeverSatisfied"
            }
            Scheduler::StandIn => {
                std::fs::read_to_string(state.join(format!("job-{id}"))).unwrap_or_default()
                    == "pending\n"
            }
        }
    }
}

/// The logs of job `id` in `state`, one per array task in task order (`%x-%A_%a.log`, as the
/// stand-in names them too).
pub fn job_logs(state: &Path, id: &str) -> Vec<(String, String)> {
    let prefix = format!("-{id}_");
    let mut logs: Vec<(String, String)> = std::fs::read_dir(state)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_string();
            let task = name
                .split_once(&prefix)?
                .1
                .strip_suffix(".log")?
                .to_string();
            Some((task, std::fs::read_to_string(&path).unwrap()))
        })
        .collect();
    logs.sort_by_key(|(task, _)| task.parse::<u64>().unwrap_or(u64::MAX));
    logs
}

/// A running single-node Slurm: its directory (under the system's temporary directory: munged
/// insists on a short, world-searchable socket path) and its daemons.
pub struct Slurm {
    dir: PathBuf,
    daemons: Vec<(&'static str, Child)>,
}

impl Slurm {
    /// Starts munged, slurmctld and slurmd, and waits (bounded) for the node to be idle.
    pub fn start() -> Result<Slurm, String> {
        let binaries: Vec<PathBuf> = DAEMONS
            .iter()
            .map(|name| find_binary(name).ok_or(format!("{name} is not installed")))
            .collect::<Result<_, _>>()?;
        for client in [
            "sbatch", "squeue", "scontrol", "scancel", "sinfo", "mungekey",
        ] {
            find_binary(client).ok_or(format!("{client} is not installed"))?;
        }
        let uid = output_of("id", &["-u"]).map_err(|e| format!("id -u: {e}"))?;
        if uid.trim() != "0" {
            return Err("slurmd must run as root here and this test does not".into());
        }
        let dir = std::env::temp_dir().join(format!("sparring-slurm-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["munge", "state", "spool", "log"] {
            std::fs::create_dir_all(dir.join(sub))
                .map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        set_mode(&dir, 0o755)?;
        let mut slurm = Slurm {
            dir,
            daemons: Vec::new(),
        };
        // From here on, dropping `slurm` stops whatever was started.
        slurm.write_config()?;
        let key = slurm.dir.join("munge/munge.key");
        output_of(
            "mungekey",
            &["--create", "--keyfile", &key.display().to_string()],
        )?;
        let d = slurm.dir.display().to_string();
        let munged_args = [
            "--foreground".to_string(),
            format!("--key-file={d}/munge/munge.key"),
            format!("--socket={d}/munge/munge.sock"),
            format!("--pid-file={d}/munge/munged.pid"),
            format!("--seed-file={d}/munge/munged.seed"),
            format!("--log-file={d}/log/munged.log"),
        ];
        slurm.spawn(&binaries[0], "munged", &munged_args)?;
        slurm.wait_for("munged's socket", |s| {
            s.dir.join("munge/munge.sock").exists()
        })?;
        let conf = slurm.conf().display().to_string();
        slurm.spawn(
            &binaries[1],
            "slurmctld",
            &["-D".into(), "-i".into(), "-f".into(), conf.clone()],
        )?;
        slurm.spawn(&binaries[2], "slurmd", &["-D".into(), "-f".into(), conf])?;
        slurm.wait_for("the node to be idle", |s| {
            s.try_command("sinfo", &["-h", "-o", "%t"])
                .is_ok_and(|state| state.trim() == "idle")
        })?;
        Ok(slurm)
    }

    fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }

    /// One node of two CPUs named as this host, free ports, everything under `dir`, no
    /// cgroups and no accounting; MinJobAge 4 s keeps `sbatch --wait` polling every 2 s, and
    /// the scheduler looks at pending jobs (dependencies) every second instead of every minute.
    fn write_config(&self) -> Result<(), String> {
        let host = output_of("hostname", &["-s"])?.trim().to_string();
        // Two ports the system hands out now (held together so they differ).
        let (ctld, slurmd) = (free_port()?, free_port()?);
        let ports = (
            ctld.local_addr().unwrap().port(),
            slurmd.local_addr().unwrap().port(),
        );
        drop((ctld, slurmd));
        let d = self.dir.display();
        let text = format!(
            "ClusterName=sparring\n\
             SlurmctldHost={host}(127.0.0.1)\n\
             SlurmctldPort={ctld}\nSlurmdPort={slurmd}\n\
             SlurmUser=root\nSlurmdUser=root\n\
             AuthType=auth/munge\nCredType=cred/munge\n\
             AuthInfo=socket={d}/munge/munge.sock\n\
             StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
             SlurmctldLogFile={d}/log/slurmctld.log\nSlurmdLogFile={d}/log/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
             JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n\
             JobCompType=jobcomp/none\nSwitchType=switch/none\nMpiDefault=none\n\
             SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n\
             SchedulerType=sched/builtin\nReturnToService=2\n\
             SchedulerParameters=sched_interval=1\n\
             FirstJobId=1001\nMinJobAge=4\n\
             NodeName={host} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN\n\
             PartitionName=sparring Nodes={host} Default=YES DefaultTime=5 MaxTime=10 State=UP\n",
            ctld = ports.0,
            slurmd = ports.1,
        );
        std::fs::write(self.conf(), text).map_err(|e| format!("slurm.conf: {e}"))
    }

    /// Starts daemon `name` in the foreground (a child of the test), its output in log/.
    fn spawn(&mut self, binary: &Path, name: &'static str, args: &[String]) -> Result<(), String> {
        let log = File::create(self.dir.join(format!("log/{name}.out")))
            .map_err(|e| format!("{name}: {e}"))?;
        let child = Command::new(binary)
            .args(args)
            .env("SLURM_CONF", self.conf())
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("{name}: {e}"))?;
        self.daemons.push((name, child));
        Ok(())
    }

    /// Polls `ready` until it holds, every daemon still running, for at most START_TIMEOUT.
    fn wait_for(&mut self, what: &str, ready: impl Fn(&Slurm) -> bool) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if ready(self) {
                return Ok(());
            }
            let exited = self
                .daemons
                .iter_mut()
                .find_map(|(name, child)| Some((*name, child.try_wait().ok()??)));
            if let Some((name, status)) = exited {
                return Err(format!("{name} exited ({status}): {}", self.log_tail(name)));
            }
            if Instant::now() > deadline {
                return Err(format!("waited {START_TIMEOUT:?} for {what}"));
            }
            sleep(Duration::from_millis(200));
        }
    }

    /// The last lines a daemon wrote, for an error message.
    fn log_tail(&self, name: &str) -> String {
        let text =
            std::fs::read_to_string(self.dir.join(format!("log/{name}.out"))).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(5)..].join(" / ")
    }

    /// A Slurm client command against this cluster: its standard output, or why it failed.
    fn try_command(&self, program: &str, args: &[&str]) -> Result<String, String> {
        let out = Command::new(find_binary(program).unwrap_or(program.into()))
            .args(args)
            .env("SLURM_CONF", self.conf())
            .output()
            .map_err(|e| format!("{program}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{program} {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn command(&self, program: &str, args: &[&str]) -> String {
        self.try_command(program, args)
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Drop for Slurm {
    /// Cancels every job (and waits, bounded, for their processes to end), then stops the
    /// daemons in reverse order: SIGTERM, and SIGKILL after 10 s.
    fn drop(&mut self) {
        if self.daemons.iter().any(|(name, _)| *name == "slurmd") {
            let _ = self.try_command("scancel", &["--partition=sparring"]);
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline
                && !self
                    .try_command("squeue", &["-h"])
                    .is_ok_and(|q| q.trim().is_empty())
            {
                sleep(Duration::from_millis(200));
            }
        }
        while let Some((_, mut child)) = self.daemons.pop() {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while !matches!(child.try_wait(), Ok(Some(_))) {
                if Instant::now() > deadline {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                sleep(Duration::from_millis(100));
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `name` on PATH or in the system directories root's PATH adds (/usr/sbin for the daemons).
fn find_binary(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    let found = path
        .split(':')
        .chain([
            "/usr/local/sbin",
            "/usr/local/bin",
            "/usr/sbin",
            "/usr/bin",
            "/sbin",
            "/bin",
        ])
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file());
    found
}

fn output_of(program: &str, args: &[&str]) -> Result<String, String> {
    let out: Output = Command::new(find_binary(program).unwrap_or(program.into()))
        .args(args)
        .output()
        .map_err(|e| format!("{program}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{program} {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn set_mode(path: &Path, mode: u32) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn free_port() -> Result<TcpListener, String> {
    TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))
}
