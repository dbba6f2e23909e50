//! `sparring spsa --shard I/N --shared DIR` (issue 15): N shard processes, started at once as a
//! scheduler starts them, give byte for byte the files of the unsharded run at fixed nodes; a
//! killed shard resumes; bad splits and mismatched shards are refused with status 2; a waiting
//! shard names the missing files and ends on Ctrl-C; the cluster recipes run.

use crate::common::tools;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

const BIN: &str = env!("CARGO_BIN_EXE_sparring");
const REPO: &str = env!("CARGO_MANIFEST_DIR");

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("spsa-shards")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The configuration every run here plays: 3 iterations of 4 pairs at 300 nodes, with gains
/// large enough that θ moves visibly in 3 iterations. Seed 7 (it was 3): with the search
/// constants the session-19 SPSA made the defaults, seed 3's openings gave every pair one win
/// for each side and θ never moved; seed 7's pairs are decisive and θ moves in each iteration
/// (not seed 4, which `mismatched_shards_are_refused...` passes as the other seed).
fn config() -> &'static Path {
    static CONFIG: OnceLock<PathBuf> = OnceLock::new();
    CONFIG.get_or_init(|| {
        let dir = scratch("config");
        let text = format!(
            "[spsa]\niterations = 3\npairs_per_iteration = 4\nseed = 7\nconcurrency = 1\n\
             lines = \"\"\"\nsearch.lmr.base, float, 0.75, 0.25, 1.5, 0.1, 0.05\n\
             search.nmp.base, int, 3, 1, 6, 1, 0.05\n\"\"\"\n\
             [engine]\nhash_mb = 1\n[time_control]\nnodes = 300\n\
             [openings]\nfile = {:?}\nrandom_plies = 2\n\
             [adjudication]\nmax_moves = 80\n[output]\ndir = {:?}\n",
            format!("{REPO}/openings/balanced-8ply.epd"),
            dir.join("never-used").display().to_string()
        );
        let path = dir.join("spsa.toml");
        std::fs::write(&path, text).unwrap();
        path
    })
}

fn config_arg() -> &'static str {
    config().to_str().unwrap()
}

/// The files the unsharded run writes that N shards must reproduce byte for byte.
const SAME_FILES: [&str; 5] = [
    "trajectory.csv",
    "tuned.toml",
    "state.toml",
    "pairs.csv",
    "trajectory.svg",
];

/// The unsharded run's directory (played once for all tests).
fn single_run() -> &'static Path {
    static SINGLE: OnceLock<PathBuf> = OnceLock::new();
    SINGLE.get_or_init(|| {
        let dir = scratch("single");
        let out = sparring(&["spsa", config_arg(), "--out", dir.to_str().unwrap()], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let trajectory = read(&dir.join("trajectory.csv"));
        let rows: Vec<&str> = trajectory.lines().collect();
        assert_eq!(rows.len(), 5, "{trajectory}");
        // θ moved, so equal trajectories say something.
        assert_ne!(
            rows[1].split_once(',').unwrap().1,
            rows[4].split_once(',').unwrap().1,
            "{trajectory}"
        );
        dir
    })
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A command without the scheduler variables of the environment the tests run in.
fn command(program: &str) -> Command {
    let mut command = Command::new(program);
    command.current_dir(REPO);
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_COUNT",
        "JOB_COMPLETION_INDEX",
        "SLURM_PROCID",
        "SLURM_NTASKS",
    ] {
        command.env_remove(var);
    }
    command
}

fn sparring(args: &[&str], env: &[(&str, &str)]) -> Output {
    command(BIN)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn spawn(args: &[&str], env: &[(&str, &str)]) -> Child {
    command(BIN)
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `sparring spsa CONFIG --shard I/N --shared DIR` plus `extra`.
fn shard_args<'a>(shard: &'a str, shared: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["spsa", config_arg(), "--shard", shard, "--shared", shared];
    args.extend_from_slice(extra);
    args
}

fn assert_ok(out: &Output, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what}\nstdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

fn assert_refused(out: &Output, needles: &[&str], what: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{what}: `{needle}` not in: {stderr}"
        );
    }
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
}

/// The run files in `shared` equal the unsharded run's, byte for byte.
fn assert_same_as_single(shared: &Path) {
    for file in SAME_FILES {
        assert_eq!(
            read(&shared.join(file)),
            read(&single_run().join(file)),
            "{file} of {}",
            shared.display()
        );
    }
}

/// Reads a running shard's output until a line containing `needle`, which it returns.
fn read_until(child: &mut Child, needle: &str) -> String {
    let stdout = child.stdout.as_mut().unwrap();
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).unwrap();
        assert!(n > 0, "the shard ended before printing `{needle}`");
        if line.contains(needle) {
            return line;
        }
    }
}

#[test]
fn two_and_three_shards_at_once_give_the_single_runs_files() {
    single_run();
    // Two shards by explicit index, one of them playing two games at once.
    let two = scratch("two");
    let shared = two.to_str().unwrap();
    let children: Vec<Child> = [("0/2", "1"), ("1/2", "2")]
        .iter()
        .map(|(s, c)| spawn(&shard_args(s, shared, &["--concurrency", c]), &[]))
        .collect();
    for child in children {
        assert_ok(&child.wait_with_output().unwrap(), "a shard of 2");
    }
    assert_same_as_single(&two);
    // Three shards (blocks of 1, 1 and 2 pairs), the index from a Kubernetes Indexed Job.
    let three = scratch("three");
    let shared = three.to_str().unwrap();
    let children: Vec<Child> = ["0", "1", "2"]
        .iter()
        .map(|i| {
            spawn(
                &shard_args("env", shared, &["--shards", "3"]),
                &[("JOB_COMPLETION_INDEX", i)],
            )
        })
        .collect();
    let outputs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for (i, out) in outputs.iter().enumerate() {
        assert_ok(out, &format!("shard {i} of 3"));
    }
    assert!(text(&outputs[2].stdout).contains("shard 2/3: pairs 2-3 of every iteration's 4"));
    assert_same_as_single(&three);
    // Every iteration's pair files carry the fingerprint; a finished run resumed plays nothing.
    let first = read(&three.join("iterations/1/pairs-2-of-3.csv"));
    assert!(
        first.starts_with("# sparring spsa shard: fingerprint ")
            && first.contains("shards 3, shard 2, iteration 1, theta "),
        "{first}"
    );
    let again = sparring(&shard_args("0/3", shared, &["--resume"]), &[]);
    assert_ok(&again, "a finished shard resumed");
    assert!(text(&again.stdout).contains("0 games this run"));
    assert_same_as_single(&three);
}

#[test]
fn a_killed_shard_resumes_and_the_result_equals_the_single_run() {
    single_run();
    let dir = scratch("killed");
    let shared = dir.to_str().unwrap();
    // Shard 1 alone plays its pairs of iteration 0, then waits for shard 0 and says so.
    let mut alone = spawn(
        &shard_args("1/2", shared, &["--wait-report-seconds", "0"]),
        &[],
    );
    let waiting = read_until(&mut alone, "waiting");
    assert!(
        waiting.contains("for iteration 0: 1 pair file(s) missing")
            && waiting.contains("pairs-0-of-2.csv"),
        "{waiting}"
    );
    alone.kill().unwrap();
    alone.wait().unwrap();
    assert!(dir.join("iterations/0/pairs-1-of-2.csv").exists());
    // Its directory is not taken over by a new start without --resume.
    let refused = sparring(&shard_args("1/2", shared, &[]), &[]);
    assert_refused(&refused, &["shard-1-of-2", "--resume"], "a used shard");
    // As if the kill had come in the middle of the shard's last pair (pair 3), after pair 2
    // was logged and before the pair file was written.
    std::fs::remove_file(dir.join("iterations/0/pairs-1-of-2.csv")).unwrap();
    let log = dir.join("shard-1-of-2/pairs.csv");
    let logged = read(&log);
    let lines: Vec<&str> = logged.lines().collect();
    assert_eq!(lines.len(), 3, "{logged}");
    assert!(lines[1].starts_with("0,2,") && lines[2].starts_with("0,3,"));
    std::fs::write(&log, format!("{}\n{}\n0,3,1,", lines[0], lines[1])).unwrap();
    // Shard 0 starts; shard 1 is restarted with --resume.
    let zero = spawn(&shard_args("0/2", shared, &[]), &[]);
    let one = spawn(&shard_args("1/2", shared, &["--resume"]), &[]);
    let (zero, one) = (
        zero.wait_with_output().unwrap(),
        one.wait_with_output().unwrap(),
    );
    assert_ok(&zero, "shard 0");
    assert_ok(&one, "shard 1 resumed");
    let stdout = text(&one.stdout);
    assert!(
        stdout.contains("resuming after iteration 0 (1 pairs of the next already played)"),
        "{stdout}"
    );
    // Pair 3 of iteration 0, then both pairs of iterations 1 and 2.
    assert!(stdout.contains("10 games this run"), "{stdout}");
    assert_same_as_single(&dir);
}

#[test]
fn mismatched_shards_are_refused_and_a_waiting_shard_ends_on_ctrl_c() {
    let dir = scratch("mismatch");
    let shared = dir.to_str().unwrap();
    let mut zero = spawn(
        &shard_args("0/2", shared, &["--wait-report-seconds", "0"]),
        &[],
    );
    read_until(&mut zero, "waiting");
    // Shard 0 recorded the run: another seed, or another split, is refused.
    let other_seed = sparring(&shard_args("1/2", shared, &["--seed", "4"]), &[]);
    assert_refused(&other_seed, &["run.txt", "(seed differ)"], "another seed");
    let other_split = sparring(&shard_args("1/3", shared, &[]), &[]);
    assert_refused(
        &other_split,
        &["run.txt", "(shards differ)"],
        "another shard count",
    );
    // Ctrl-C ends the waiting shard at once.
    // SAFETY: sends SIGINT to the child this test started.
    unsafe { libc::kill(zero.id() as libc::pid_t, libc::SIGINT) };
    let status = zero.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
}

#[test]
fn bad_shard_arguments_and_foreign_files_exit_with_status_2() {
    let dir = scratch("bad");
    let shared = dir.join("shared");
    let shared_text = shared.to_str().unwrap();
    let cases: [(&[&str], &[&str]); 6] = [
        (&["--shard", "0/2"], &["--shard needs --shared"]),
        (&["--shared", shared_text], &["--shared goes with --shard"]),
        (
            &["--shard", "2/2", "--shared", shared_text],
            &["out of range"],
        ),
        (
            &["--shard", "0/5", "--shared", shared_text],
            &["5 shards for 4 pairs per iteration"],
        ),
        (
            &["--shard", "env", "--shared", shared_text],
            // Named as typed (issue 21, 7): it said --shard-from-env.
            &["--shard env: neither SLURM_ARRAY_TASK_ID"],
        ),
        (
            &["--shard", "0/2", "--shards", "2", "--shared", shared_text],
            &["--shards goes with --shard env"],
        ),
    ];
    for (extra, needles) in cases {
        let mut args = vec!["spsa", config_arg()];
        args.extend_from_slice(extra);
        let run = sparring(&args, &[]);
        assert_refused(&run, needles, &args.join(" "));
        // Refused before anything starts: no header, no shared directory.
        assert!(
            run.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&run.stdout)
        );
    }
    assert!(
        !shared.exists(),
        "a refused shard created {}",
        shared.display()
    );
    let both = sparring(
        &shard_args("0/2", shared_text, &["--out", shared_text]),
        &[],
    );
    assert_eq!(both.status.code(), Some(2), "{}", text(&both.stderr));

    // Another configuration's pair file: shard 0 plays its pairs, then refuses the barrier.
    let foreign = dir.join("foreign");
    std::fs::create_dir_all(foreign.join("iterations/0")).unwrap();
    std::fs::write(
        foreign.join("iterations/0/pairs-1-of-2.csv"),
        "# sparring spsa shard: fingerprint 0123456789abcdef, shards 2, shard 1, iteration 0\n\
         iteration,pair,plus_wins,draws,minus_wins\n0,2,1,1,0\n0,3,0,2,0\n",
    )
    .unwrap();
    let out = sparring(&shard_args("0/2", foreign.to_str().unwrap(), &[]), &[]);
    assert_refused(
        &out,
        &["pairs-1-of-2.csv", "another configuration"],
        "a foreign pair file",
    );
    // A pair file of another split in the same directory.
    let split = dir.join("split");
    std::fs::create_dir_all(split.join("iterations/0")).unwrap();
    std::fs::write(split.join("iterations/0/pairs-2-of-3.csv"), "").unwrap();
    let out = sparring(&shard_args("0/2", split.to_str().unwrap(), &[]), &[]);
    assert_refused(
        &out,
        &["pairs-2-of-3.csv", "split into 3 shards"],
        "another split's file",
    );
}

fn recipe(name: &str) -> PathBuf {
    Path::new(REPO).join("configs/cluster").join(name)
}

#[test]
fn the_slurm_recipe_runs_every_shard_in_one_job() {
    let script = recipe("slurm-spsa.sh");
    let syntax = command("bash")
        .args(["-n", script.to_str().unwrap()])
        .output()
        .unwrap();
    assert_ok(&syntax, "bash -n slurm-spsa.sh");
    let header = read(&script);
    assert!(header.contains("#SBATCH --ntasks=8"), "{header}");
    // The shipped configuration suits the script's default of 8 tasks.
    let shipped = sparring_config(&recipe("spsa-shards.toml"));
    assert!(shipped.plan.pairs_per_iteration % 8 == 0);

    single_run();
    let dir = scratch("slurm");
    // The stand-in srun of tests/fixtures/cluster: every task at once, SLURM_PROCID set.
    let shared = dir.join("run");
    let path = format!(
        "{REPO}/tests/fixtures/cluster:{}",
        std::env::var("PATH").unwrap_or_default()
    );
    let out = command("bash")
        .arg(&script)
        .envs([
            ("PATH", path.as_str()),
            ("SPARRING", BIN),
            ("CONFIG", config_arg()),
            ("SHARED", shared.to_str().unwrap()),
            ("SLURM_NTASKS", "2"),
            ("SLURM_JOB_ID", "77"),
        ])
        .output()
        .unwrap();
    assert_ok(&out, "slurm-spsa.sh with 2 tasks");
    assert_same_as_single(&shared);
}

fn sparring_config(path: &Path) -> sparring::spsa::SpsaConfig {
    sparring::spsa::SpsaConfig::load(path).unwrap_or_else(|e| panic!("{e}"))
}

/// The Indexed Job's fields, from python3 with PyYAML (None when either is missing).
fn kubernetes_job() -> Option<Vec<String>> {
    let program = "import sys, yaml\n\
        job = yaml.safe_load(open(sys.argv[1]))\n\
        spec = job['spec']\n\
        c = spec['template']['spec']['containers'][0]\n\
        print(job['kind']); print(spec['completionMode']); print(spec['completions'])\n\
        print(spec['parallelism']); print(' '.join(c['command']))\n\
        print(c['args'][0])\n";
    if !tools::present(
        tools::python_imports("yaml"),
        "python3 with PyYAML is not available to parse the manifest",
    ) {
        return None;
    }
    let out = command("python3")
        .args(["-c", program])
        .arg(recipe("kubernetes-spsa.yaml"))
        .output()
        .unwrap();
    assert_ok(&out, "parsing kubernetes-spsa.yaml");
    Some(text(&out.stdout).lines().map(String::from).collect())
}

#[test]
fn the_kubernetes_recipe_is_an_indexed_job_whose_pods_run_at_once() {
    let Some(fields) = kubernetes_job() else {
        return;
    };
    assert_eq!(fields[0], "Job");
    assert_eq!(fields[1], "Indexed");
    let completions: u64 = fields[2].parse().unwrap();
    assert_eq!(fields[3], fields[2], "parallelism must equal completions");
    assert_eq!(fields[4], "/bin/sh -c");
    let args = &fields[5];
    assert!(
        args.contains(&format!("--shard env --shards {completions} ")),
        "{args}"
    );
    assert!(args.contains("--shared /data/spsa") && args.contains("--resume"));

    // Every pod's command, all at once, with /data and /config mapped to local directories.
    single_run();
    let dir = scratch("kubernetes");
    let bin_dir = dir.join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::os::unix::fs::symlink(BIN, bin_dir.join("sparring")).unwrap();
    let data = dir.join("data");
    let local = args
        .replace("/config/spsa.toml", config_arg())
        .replace("/data", data.to_str().unwrap());
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let pods: Vec<Child> = (0..completions)
        .map(|i| {
            command("/bin/sh")
                .args(["-c", &local])
                .env("PATH", &path)
                .env("JOB_COMPLETION_INDEX", i.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, pod) in pods.into_iter().enumerate() {
        assert_ok(&pod.wait_with_output().unwrap(), &format!("pod {i}"));
    }
    assert_same_as_single(&data.join("spsa"));
}

/// Issue 21's sweep: a shard whose partners never start gives up after --barrier-timeout,
/// naming the pair files that did not come, with status 1 (a failed run, resumable later).
#[test]
fn a_shard_whose_partners_never_start_gives_up_after_the_barrier_timeout() {
    let shared = scratch("barrier-timeout");
    let shared_text = shared.to_str().unwrap();
    let out = sparring(
        &shard_args("0/2", shared_text, &["--barrier-timeout", "1"]),
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("waited") && stderr.contains("pairs-1-of-2.csv"),
        "{stderr}"
    );
    // Without --shared the option means nothing: refused.
    let out = sparring(&["spsa", config_arg(), "--barrier-timeout", "1"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}
