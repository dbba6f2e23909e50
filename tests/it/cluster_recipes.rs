//! The recipes of configs/cluster/ run as their schedulers would run them, on this machine:
//! the Slurm scripts submitted to a real single-node Slurm that the test starts (munged,
//! slurmctld and slurmd: tests/cluster_recipes/slurm.rs), or, where none can be started, to the
//! stand-in tests/fixtures/cluster/sbatch and srun (the test prints why; SPARRING_REQUIRE_TOOLS=1
//! makes that a failure): the array recipes with their merge, slurm-spsa.sh as one job of N tasks
//! and the slurm-loop.sh driver compared with the one-machine SPSA run and loop; the GNU
//! parallel / xargs script; and the Kubernetes Indexed Job's container
//! command through `sh -c` once per completion index. Each is followed by its merge step and
//! compared with the unsharded concurrency-1 run of the same configuration
//! (tests/fixtures/cluster/run.toml), as tests/it/shards.rs compares: byte for byte outside the
//! wall-clock fields. The Kubernetes manifests are parsed (python3 with PyYAML) and their fields
//! checked against the command; every script passes `bash -n`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::run_files;
use run_files::{assert_ok, assert_same_results, csv_without, out_dir, text};
mod slurm;
use crate::common::tables;
use slurm::Scheduler;

const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");
const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// The variables the recipes read: cleared so the developer's environment cannot leak in.
const RECIPE_VARIABLES: &[&str] = &[
    "SLURM_JOB_ID",
    "SLURM_ARRAY_JOB_ID",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_CPUS_PER_TASK",
    "JOB_COMPLETION_INDEX",
    "SPARRING",
    "CONFIG",
    "OUT",
    "SHARDS",
    "MERGED",
    "PARTIAL",
    "JOBS",
    "USE_XARGS",
    "WAVE",
    "WAVE_PAIRS",
    "SLURM_CONF",
    "SBATCH_OUTPUT",
    "MOCK_SBATCH_DIR",
    "SHARED",
    "SLURM_NTASKS",
    "SLURM_PROCID",
    "GENERATIONS",
    "NEXT_CONFIG",
    "NEXT_ARGS",
    "NEXT_OUT",
];

fn recipe(name: &str) -> PathBuf {
    Path::new(REPO).join("configs/cluster").join(name)
}

/// The test configuration, named relative to the repository (as the shipped configs are).
const CONFIG: &str = "tests/fixtures/cluster/run.toml";

/// `program args` in the repository's directory (where a user starts the recipes), with the
/// recipes' variables cleared and then `env` set.
fn run(program: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(program);
    command.args(args).current_dir(REPO);
    for var in RECIPE_VARIABLES {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    command
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

/// The unsharded run at concurrency 1 (game-id order, as merged files are) into `dir/single`.
fn single_run(dir: &Path) -> PathBuf {
    let single = dir.join("single");
    let out = run(
        SPARRING,
        &[
            "match",
            CONFIG,
            "--concurrency",
            "1",
            "--out",
            single.to_str().unwrap(),
            "--progress",
            "lines",
        ],
        &[],
    );
    assert_ok(&out, "single run");
    single
}

/// Asserts a recipe's merged directory equals the unsharded run, byte for byte outside the
/// clock: all 16 games of the fixture, with their positions.
fn assert_same_recipe_results(single: &Path, merged: &Path) {
    let games = csv_without(&single.join("games.csv"), &["duration_ms"]);
    assert_eq!(games.len(), 1 + 16, "the fixture plays 16 games");
    assert_same_results(single, merged, true);
    assert!(
        text(&merged.join("positions.epd")).lines().count() > 16,
        "positions were recorded"
    );
}

/// The game ids in a shard directory's games.csv.
fn game_ids(dir: &Path) -> Vec<u64> {
    csv_without(&dir.join("games.csv"), &[])[1..]
        .iter()
        .map(|row| row[0].parse().unwrap())
        .collect()
}

/// What a task killed on another node leaves in its shard: its lock (which this host cannot
/// check, so the binary alone would refuse the directory) and its last game's row missing.
fn kill_on_another_node(shard: &Path) {
    std::fs::write(
        shard.join("sparring.lock"),
        "pid=4242\nhost=node-17.cluster.invalid\n",
    )
    .unwrap();
    let csv_path = shard.join("games.csv");
    let csv = text(&csv_path);
    let mut lines: Vec<&str> = csv.lines().collect();
    lines.pop();
    std::fs::write(&csv_path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn every_recipe_script_passes_bash_n() {
    let mut scripts: Vec<String> = std::fs::read_dir(recipe(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".sh"))
        .collect();
    scripts.sort();
    assert_eq!(
        scripts,
        [
            "parallel.sh",
            "slurm-loop.sh",
            "slurm-match.sh",
            "slurm-merge.sh",
            "slurm-spsa.sh",
            "slurm-submit.sh",
            "slurm-waves.sh"
        ]
    );
    scripts.push("../../tests/fixtures/cluster/sbatch".to_string());
    for script in &scripts {
        let out = run("bash", &["-n", recipe(script).to_str().unwrap()], &[]);
        assert_ok(&out, &format!("bash -n {script}"));
    }
}

/// The variables that name the run for the Slurm scripts.
fn slurm_env<'a>(out: &'a str, merged: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("SPARRING", SPARRING),
        ("CONFIG", CONFIG),
        ("OUT", out),
        ("SHARDS", "4"),
        ("MERGED", merged),
    ]
}

/// Every Slurm recipe, submitted to a real single-node Slurm started for this test (or, when
/// none can be started, to the stand-in sbatch, with the reason printed): one test, so only one
/// owns the daemons of this process.
#[test]
fn slurm_recipes_submitted_to_slurm_equal_the_single_run() {
    let scheduler = Scheduler::start(tables::skip);
    slurm_array_tasks_then_the_merge_job(&scheduler);
    slurm_submit_queues_the_array_and_a_dependent_merge(&scheduler);
    slurm_waves_submits_waves_until_the_merged_sprt_decides(&scheduler);
    slurm_spsa_runs_every_shard_in_one_job(&scheduler);
    slurm_loop_plays_every_stage_as_an_array_and_gives_the_one_machine_ladder(&scheduler);
}

/// `env` with the scheduler's variables (owned) appended, as `run` takes them.
fn with_scheduler<'a>(
    env: &[(&'a str, &'a str)],
    scheduler_env: &'a [(String, String)],
) -> Vec<(&'a str, &'a str)> {
    let mut env = env.to_vec();
    env.retain(|(k, _)| !scheduler_env.iter().any(|(s, _)| s == k));
    env.extend(scheduler_env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    env
}

/// `bash script` (a recipe that submits), bounded in time: a queue that never drains fails.
fn run_bounded(script: &Path, env: &[(&str, &str)]) -> Output {
    let limit = slurm::JOB_TIMEOUT.as_secs().to_string();
    run(
        "timeout",
        &["-k", "5", &limit, "bash", script.to_str().unwrap()],
        env,
    )
}

/// `sbatch --parsable ARGS` (bounded in time), waiting for the job: its id and exit status
/// (the highest of its tasks'), as `sbatch --wait` gives it (which the stand-in runs; with a
/// real Slurm the test polls faster than `--wait` does).
fn sbatch(scheduler: &Scheduler, args: &[&str], env: &[(&str, &str)]) -> (String, i32) {
    let limit = slurm::JOB_TIMEOUT.as_secs().to_string();
    let mut full = vec!["-k", "5", &limit, "sbatch", "--parsable"];
    if !scheduler.is_real() {
        full.push("--wait");
    }
    full.extend(args);
    let out = run("timeout", &full, env);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let id = stdout
        .lines()
        .next()
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap();
    assert!(
        !id.is_empty(),
        "sbatch {args:?} submitted nothing: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let status = scheduler
        .wait_for_job(id)
        .unwrap_or_else(|| out.status.code().unwrap_or(-1));
    (id.to_string(), status)
}

/// Asserts job `id` succeeded, with its logs in the message if not.
fn assert_job_ok(state: &Path, id: &str, status: i32, what: &str) {
    assert_eq!(status, 0, "{what}: {:#?}", slurm::job_logs(state, id));
}

/// The job id a driver printed on its line starting with `prefix` (`shards: job 1001 ...`).
fn job_id_after(stdout: &str, prefix: &str) -> String {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting {prefix:?} in {stdout}"));
    line[prefix.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

/// The log of job `id`'s task `task` in `state`.
fn task_log(state: &Path, id: &str, task: &str) -> String {
    slurm::job_logs(state, id)
        .into_iter()
        .find(|(t, _)| t == task)
        .unwrap_or_else(|| panic!("no log of job {id} task {task} in {}", state.display()))
        .1
}

/// The files an unsharded SPSA run writes that its shards must reproduce byte for byte.
const SPSA_FILES: [&str; 5] = [
    "trajectory.csv",
    "tuned.toml",
    "state.toml",
    "pairs.csv",
    "trajectory.svg",
];

/// slurm-spsa.sh submitted as one job of 2 tasks (`sbatch --ntasks=2`): its one srun step plays
/// both shards at once, and they write the unsharded run's files.
fn slurm_spsa_runs_every_shard_in_one_job(scheduler: &Scheduler) {
    let dir = out_dir("cluster_slurm_spsa");
    // The SPSA run of tests/it/spsa_shards.rs: 3 iterations of 4 pairs, gains large enough that θ
    // moves visibly; 2 pairs per shard and iteration.
    let config = dir.join("spsa.toml");
    let spsa = format!(
        "[spsa]\niterations = 3\npairs_per_iteration = 4\nseed = 3\nconcurrency = 1\n\
         lines = \"\"\"\nsearch.lmr.base, float, 0.75, 0.25, 1.5, 0.1, 0.05\n\
         search.nmp.base, int, 3, 1, 6, 1, 0.05\n\"\"\"\n\
         [engine]\nhash_mb = 1\n[time_control]\nnodes = 300\n\
         [openings]\nfile = {:?}\nrandom_plies = 2\n[adjudication]\nmax_moves = 80\n\
         [output]\ndir = \"results/cluster-test\"\n",
        format!("{REPO}/openings/balanced-8ply.epd")
    );
    std::fs::write(&config, spsa).unwrap();
    let single = dir.join("single");
    let out = run(
        SPARRING,
        &[
            "spsa",
            config.to_str().unwrap(),
            "--out",
            single.to_str().unwrap(),
        ],
        &[],
    );
    assert_ok(&out, "single SPSA run");
    let trajectory = text(&single.join("trajectory.csv"));
    let rows: Vec<&str> = trajectory.lines().collect();
    assert_ne!(rows[1], rows[3], "θ moved, so equal files say something");
    let state = dir.join("sbatch");
    let scheduler_env = scheduler.env(&state);
    let shared = dir.join("shared");
    let env = [
        ("SPARRING", SPARRING),
        ("CONFIG", config.to_str().unwrap()),
        ("SHARED", shared.to_str().unwrap()),
    ];
    let env = with_scheduler(&env, &scheduler_env);
    let script = recipe("slurm-spsa.sh");
    let (id, status) = sbatch(scheduler, &["--ntasks=2", script.to_str().unwrap()], &env);
    assert_job_ok(&state, &id, status, "sbatch --ntasks=2 slurm-spsa.sh");
    for file in SPSA_FILES {
        assert_eq!(
            text(&shared.join(file)),
            text(&single.join(file)),
            "{file} of {}",
            shared.display()
        );
    }
    for shard in ["shard-0-of-2", "shard-1-of-2"] {
        assert!(shared.join(shard).is_dir(), "{shard}");
    }
}

/// A loop of one generation at tiny sizes (self-play, tune, gate waves of 2 pairs).
fn tiny_loop_config(path: &Path) {
    let book = format!("{REPO}/openings/balanced-8ply.epd");
    let text = format!(
        r#"seed = 7
generations = 1
[champion]
weights = "{REPO}/configs/weights/handset.toml"
hash_mb = 1
[selfplay.tournament]
rounds = 4
concurrency = 1
[selfplay.time_control]
nodes = 300
[selfplay.openings]
file = {book:?}
order = "random"
per_game = true
random_plies = 4
[selfplay.adjudication]
max_moves = 60
[selfplay.output]
positions_per_game = 10
[tune]
window = 1
[tune.data]
validation_fraction = 0.0
[tune.optimizer]
learning_rate = 1.0
epochs = 5
l2 = 0.0
threads = 1
[gate]
wave_pairs = 2
[gate.tournament]
rounds = 4
concurrency = 1
[gate.time_control]
nodes = 300
[gate.openings]
file = {book:?}
order = "random"
[gate.adjudication]
max_moves = 60
[gate.sprt]
elo0 = 0.0
elo1 = 30.0
alpha = 0.1
beta = 0.1
model = "logistic"
"#
    );
    std::fs::write(path, text).unwrap();
}

/// generations.csv of a loop directory without its wall-clock column.
fn ladder_without_time(dir: &Path) -> Vec<sparring::ladder::GenerationRow> {
    sparring::ladder::read_rows(&dir.join("generations.csv"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .into_iter()
        .map(|row| sparring::ladder::GenerationRow {
            seconds: 0.0,
            ..row
        })
        .collect()
}

/// slurm-loop.sh as the driver, each stage submitted as an array of 2 tasks and waited for
/// (`sbatch --wait`): the ladder and the champion equal the one-machine loop's.
fn slurm_loop_plays_every_stage_as_an_array_and_gives_the_one_machine_ladder(
    scheduler: &Scheduler,
) {
    let dir = out_dir("cluster_slurm_loop");
    let config = dir.join("loop.toml");
    tiny_loop_config(&config);
    let single = dir.join("single");
    let out = run(
        SPARRING,
        &[
            "loop",
            config.to_str().unwrap(),
            "--out",
            single.to_str().unwrap(),
        ],
        &[],
    );
    assert_ok(&out, "the one-machine loop");
    let expected = ladder_without_time(&single);
    assert_eq!(expected.len(), 1, "{expected:?}");

    let state = dir.join("sbatch");
    let scheduler_env = scheduler.env(&state);
    let slurm_out = dir.join("slurm");
    let env = [
        ("SPARRING", SPARRING),
        ("CONFIG", config.to_str().unwrap()),
        ("OUT", slurm_out.to_str().unwrap()),
        ("SHARDS", "2"),
    ];
    let env = with_scheduler(&env, &scheduler_env);
    // Each stage waits for its array: bounded as a whole, more loosely than one job.
    let limit = (slurm::JOB_TIMEOUT * 5).as_secs().to_string();
    let script = recipe("slurm-loop.sh");
    let driver = run(
        "timeout",
        &["-k", "5", &limit, "bash", script.to_str().unwrap()],
        &env,
    );
    assert_ok(&driver, "slurm-loop.sh");
    let stdout = String::from_utf8_lossy(&driver.stdout);
    let stages: Vec<&str> = stdout
        .lines()
        .filter(|l| l.ends_with(": 2 tasks"))
        .collect();
    assert_eq!(
        stages.first().copied(),
        Some("gen 1 selfplay: 2 tasks"),
        "{stdout}"
    );
    assert!(stdout.contains("done: the ladder is in"), "{stdout}");
    assert_eq!(ladder_without_time(&slurm_out), expected, "{stdout}");
    let champion = |out: &Path| {
        text(&out.join("champion.weights.toml")).replace(&out.display().to_string(), "OUT")
    };
    assert_eq!(champion(&slurm_out), champion(&single));
}

fn slurm_array_tasks_then_the_merge_job(scheduler: &Scheduler) {
    let dir = out_dir("cluster_slurm");
    let single = single_run(&dir);
    // The header submits 64 shards, the default SHARDS: the array ids are the shard indexes.
    let header = text(&recipe("slurm-match.sh"));
    assert!(header.contains("\n#SBATCH --array=0-63\n"), "{header}");
    assert!(header.contains("SHARDS=${SHARDS:-64}"), "{header}");
    assert!(
        header.contains("--shard env --shards \"$SHARDS\""),
        "{header}"
    );

    let out = dir.join("run");
    let merged = dir.join("merged");
    let (out_s, merged_s) = (out.to_str().unwrap(), merged.to_str().unwrap());
    let state = dir.join("sbatch");
    let scheduler_env = scheduler.env(&state);
    let env = with_scheduler(&slurm_env(out_s, merged_s), &scheduler_env);
    let match_script = recipe("slurm-match.sh");
    let match_s = match_script.to_str().unwrap();
    let (array, status) = sbatch(scheduler, &["--array=0-3", match_s], &env);
    assert_job_ok(&state, &array, status, "sbatch --array=0-3 slurm-match.sh");
    let tasks: Vec<String> = slurm::job_logs(&state, &array)
        .into_iter()
        .map(|(task, _)| task)
        .collect();
    assert_eq!(tasks, ["0", "1", "2", "3"]);
    for id in 0..4u64 {
        let shard = out.join(format!("shard-{id}-of-4"));
        assert_eq!(
            game_ids(&shard),
            (4 * id + 1..=4 * id + 4).collect::<Vec<_>>()
        );
        assert!(!shard.join("sparring.lock").exists(), "lock released");
    }
    let merge_script = recipe("slurm-merge.sh");
    let merge_s = merge_script.to_str().unwrap();
    let (merge, status) = sbatch(scheduler, &[merge_s], &env);
    assert_job_ok(&state, &merge, status, "merge job");
    assert!(task_log(&state, &merge, "4294967294").contains("Merged 16 of 16 games"));
    assert_same_recipe_results(&single, &merged);

    // Task 2 killed on another node and requeued: it resumes its shard (its lock is removed,
    // its unfinished game played again), and the merge is the same.
    let shard2 = out.join("shard-2-of-4");
    kill_on_another_node(&shard2);
    let remerged = dir.join("merged-after-requeue");
    let env = with_scheduler(
        &slurm_env(out_s, remerged.to_str().unwrap()),
        &scheduler_env,
    );
    let (refused, status) = sbatch(scheduler, &[merge_s], &env);
    assert_eq!(status, 2, "a game is missing");
    let log = task_log(&state, &refused, "4294967294");
    assert!(
        log.contains("shard 2/4 is missing games 12; rerun with --shard 2/4 --resume"),
        "{log}"
    );
    let (requeued, status) = sbatch(scheduler, &["--array=2", match_s], &env);
    assert_job_ok(&state, &requeued, status, "requeued task 2");
    let log = task_log(&state, &requeued, "2");
    assert!(
        log.contains("Finished game 12 ") && log.matches("Finished game ").count() == 1,
        "the requeued task plays only game 12: {log}"
    );
    let (merge, status) = sbatch(scheduler, &[merge_s], &env);
    assert_job_ok(&state, &merge, status, "merge after requeue");
    assert_same_recipe_results(&single, &remerged);

    // Outside an array the script says how to submit it.
    let bare = run("bash", &[match_s], &slurm_env(out_s, merged_s));
    assert!(!bare.status.success());
    assert!(
        String::from_utf8_lossy(&bare.stderr).contains("sbatch --array=0-3"),
        "{}",
        String::from_utf8_lossy(&bare.stderr)
    );
}

fn slurm_submit_queues_the_array_and_a_dependent_merge(scheduler: &Scheduler) {
    let dir = out_dir("cluster_slurm_submit");
    let single = single_run(&dir);
    let state = dir.join("sbatch");
    let scheduler_env = scheduler.env(&state);
    let out = dir.join("run");
    let merged = dir.join("merged");
    let env = with_scheduler(
        &slurm_env(out.to_str().unwrap(), merged.to_str().unwrap()),
        &scheduler_env,
    );
    let submit = run_bounded(&recipe("slurm-submit.sh"), &env);
    assert_ok(&submit, "slurm-submit.sh");
    let stdout = String::from_utf8_lossy(&submit.stdout);
    let array = job_id_after(&stdout, "shards: job ");
    let merge = job_id_after(&stdout, "merge: job ");
    assert!(
        stdout.contains(&format!("shards: job {array} (array 0-3)"))
            && stdout.contains(&format!("merge: job {merge} (after {array})")),
        "{stdout}"
    );
    scheduler.wait_until_settled();
    if !scheduler.is_real() {
        assert_eq!(
            text(&state.join("calls")),
            "sbatch --array=0-3 slurm-match.sh\n\
             sbatch --dependency=afterok:1001 slurm-merge.sh\n"
        );
    }
    let tasks: Vec<String> = slurm::job_logs(&state, &array)
        .into_iter()
        .map(|(task, _)| task)
        .collect();
    assert_eq!(tasks, ["0", "1", "2", "3"]);
    assert!(task_log(&state, &merge, "4294967294").contains("Merged 16 of 16 games"));
    assert_same_recipe_results(&single, &merged);

    // A failing shard (here: a configuration that does not exist) leaves the merge pending.
    let state = dir.join("sbatch-failing");
    let scheduler_env = scheduler.env(&state);
    let out = dir.join("run-failing");
    let merged = dir.join("merged-failing");
    let mut env = slurm_env(out.to_str().unwrap(), merged.to_str().unwrap());
    env.retain(|(k, _)| *k != "CONFIG");
    env.push(("CONFIG", "tests/fixtures/cluster/no-such.toml"));
    let env = with_scheduler(&env, &scheduler_env);
    let submit = run_bounded(&recipe("slurm-submit.sh"), &env);
    assert_ok(&submit, "submit");
    let stdout = String::from_utf8_lossy(&submit.stdout);
    let array = job_id_after(&stdout, "shards: job ");
    let merge = job_id_after(&stdout, "merge: job ");
    scheduler.wait_until_settled();
    for (task, log) in slurm::job_logs(&state, &array) {
        assert!(log.contains("no-such.toml"), "task {task}: {log}");
    }
    assert!(scheduler.waits_on_a_failed_dependency(&state, &merge));
    assert!(!merged.exists());
}

fn slurm_waves_submits_waves_until_the_merged_sprt_decides(scheduler: &Scheduler) {
    let dir = out_dir("cluster_slurm_waves");
    let config = dir.join("sprt.toml");
    // The lopsided SPRT of tests/it/waves.rs, with paths relative to the repository (the recipe's
    // working directory).
    run_files::lopsided_from(Path::new(""))
        .out("results/cluster-test")
        .write(&config);
    let state = dir.join("sbatch");
    let scheduler_env = scheduler.env(&state);
    let out = dir.join("run");
    let merged = dir.join("merged");
    let env = [
        ("SPARRING", SPARRING),
        ("CONFIG", config.to_str().unwrap()),
        ("OUT", out.to_str().unwrap()),
        ("MERGED", merged.to_str().unwrap()),
        ("WAVE_PAIRS", "4"),
        ("SHARDS", "2"),
    ];
    let env = with_scheduler(&env, &scheduler_env);
    let waves = |stdout: &str| {
        stdout
            .lines()
            .filter(|l| l.starts_with("wave ") && l.ends_with(": 2 tasks of 4 pairs in all"))
            .count()
    };
    let driver = run_bounded(&recipe("slurm-waves.sh"), &env);
    assert_ok(&driver, "slurm-waves.sh");
    // Waves 0 to 4, each an array of 2 tasks; then the verdict ends the driver.
    let stdout = String::from_utf8_lossy(&driver.stdout);
    assert_eq!(waves(&stdout), 5, "{stdout}");
    if !scheduler.is_real() {
        assert_eq!(
            text(&state.join("calls")),
            "sbatch --array=0-1 slurm-waves.sh\n".repeat(5)
        );
    }
    assert!(
        stdout.contains("verdict: continue with wave 4")
            && stdout.contains("done: H1 accepted (stopped by SPRT after wave 4)"),
        "{stdout}"
    );
    assert_eq!(game_ids(&merged), (1..=40).collect::<Vec<u64>>());
    assert_eq!(
        game_ids(&out.join("wave-3-shard-1-of-2")),
        (29..=32).collect::<Vec<u64>>()
    );

    // Run again, the driver merges first and stops without submitting anything.
    let again = run_bounded(&recipe("slurm-waves.sh"), &env);
    assert_ok(&again, "slurm-waves.sh again");
    assert_eq!(waves(&String::from_utf8_lossy(&again.stdout)), 0);
    // Submitted by sbatch directly (no WAVE), a task says how to start it.
    let task = run(
        "bash",
        &[recipe("slurm-waves.sh").to_str().unwrap()],
        &[("SLURM_ARRAY_TASK_ID", "0")],
    );
    assert!(!task.status.success());
    assert!(String::from_utf8_lossy(&task.stderr).contains("run this script with bash"));
}

/// Runs parallel.sh for 4 shards, 2 at a time, and compares its merge with the single run.
fn parallel_recipe(name: &str, use_xargs: bool) {
    let dir = out_dir(name);
    let single = single_run(&dir);
    let out = dir.join("run");
    let merged = dir.join("merged");
    let mut env = slurm_env(out.to_str().unwrap(), merged.to_str().unwrap());
    env.push(("JOBS", "2"));
    if use_xargs {
        env.push(("USE_XARGS", "1"));
    }
    let script = recipe("parallel.sh");
    let first = run("bash", &[script.to_str().unwrap()], &env);
    assert_ok(&first, "parallel.sh");
    assert!(String::from_utf8_lossy(&first.stdout).contains("Merged 16 of 16 games"));
    assert_same_recipe_results(&single, &merged);
    for index in 0..4u64 {
        let shard = out.join(format!("shard-{index}-of-4"));
        assert_eq!(
            game_ids(&shard),
            (4 * index + 1..=4 * index + 4).collect::<Vec<_>>()
        );
    }
    // Rerun after shard 3 lost its last game: only that game is played again, then the merge
    // (into the same directory) gives the same files.
    let shard3 = out.join("shard-3-of-4");
    let csv_path = shard3.join("games.csv");
    let csv = text(&csv_path);
    let kept: Vec<&str> = csv.lines().filter(|l| !l.starts_with("16,")).collect();
    std::fs::write(&csv_path, kept.join("\n") + "\n").unwrap();
    let again = run("bash", &[script.to_str().unwrap()], &env);
    assert_ok(&again, "parallel.sh again");
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert_eq!(stdout.matches("Finished game ").count(), 1, "{stdout}");
    assert!(stdout.contains("Finished game 16 "), "{stdout}");
    assert_same_recipe_results(&single, &merged);
}

#[test]
fn parallel_sh_with_xargs_equals_the_single_run() {
    parallel_recipe("cluster_xargs", true);
}

#[test]
fn parallel_sh_with_gnu_parallel_equals_the_single_run() {
    let has_parallel = Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"GNU parallel"));
    if !has_parallel {
        println!("skipped: GNU parallel is not installed (parallel.sh falls back to xargs, tested by parallel_sh_with_xargs_equals_the_single_run)");
        return;
    }
    parallel_recipe("cluster_gnu_parallel", false);
}

/// A manifest flattened by python3 with PyYAML into `path -> value` (`spec.completions`,
/// `spec.template.spec.containers.0.args.0`), or None when python3 or PyYAML is missing.
fn flattened_yaml(file: &str) -> Option<BTreeMap<String, String>> {
    const FLATTEN: &str = r#"
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
assert len(docs) == 1, "one document per manifest"
def walk(prefix, node):
    if isinstance(node, dict):
        for k, v in node.items():
            walk(prefix + [str(k)], v)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            walk(prefix + [str(i)], v)
    else:
        value = str(node)
        assert "\n" not in value and "\t" not in value, prefix
        print(".".join(prefix) + "\t" + value)
walk([], docs[0])
"#;
    let probe = Command::new("python3").args(["-c", "import yaml"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return None;
    }
    let out = run(
        "python3",
        &["-c", FLATTEN, recipe(file).to_str().unwrap()],
        &[],
    );
    assert_ok(&out, &format!("parse {file}"));
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|line| {
                let (key, value) = line.split_once('\t').unwrap();
                (key.to_string(), value.to_string())
            })
            .collect(),
    )
}

fn field<'a>(doc: &'a BTreeMap<String, String>, key: &str) -> &'a str {
    doc.get(key)
        .unwrap_or_else(|| panic!("no {key} in {doc:#?}"))
        .as_str()
}

const POD: &str = "spec.template.spec";
const CONTAINER: &str = "spec.template.spec.containers.0";

/// The volume mounts of the first container: mount path -> claim or config map it mounts.
fn mounts(doc: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut mounts = BTreeMap::new();
    for m in 0.. {
        let Some(path) = doc.get(&format!("{CONTAINER}.volumeMounts.{m}.mountPath")) else {
            break;
        };
        let name = field(doc, &format!("{CONTAINER}.volumeMounts.{m}.name"));
        let volume = (0..)
            .map_while(|v| doc.get(&format!("{POD}.volumes.{v}.name")).map(|n| (v, n)))
            .find(|(_, n)| n.as_str() == name)
            .map(|(v, _)| v)
            .unwrap_or_else(|| panic!("volume {name} is mounted but not declared"));
        let source = doc
            .get(&format!(
                "{POD}.volumes.{volume}.persistentVolumeClaim.claimName"
            ))
            .map(|c| format!("claim {c}"))
            .or_else(|| {
                doc.get(&format!("{POD}.volumes.{volume}.configMap.name"))
                    .map(|c| format!("configmap {c}"))
            })
            .unwrap_or_else(|| panic!("volume {name}: neither a claim nor a config map"));
        mounts.insert(path.clone(), source);
    }
    mounts
}

/// The manifests (match, merge, claim), or None (with the reason printed) without PyYAML.
fn manifests() -> Option<[BTreeMap<String, String>; 3]> {
    let files = [
        "kubernetes-match.yaml",
        "kubernetes-merge.yaml",
        "kubernetes-pvc.yaml",
    ];
    let parsed: Option<Vec<_>> = files.iter().map(|f| flattened_yaml(f)).collect();
    match parsed {
        Some(docs) => Some(docs.try_into().unwrap()),
        None => {
            println!("skipped: python3 with PyYAML (`python3 -c 'import yaml'`) is not available to parse the manifests");
            None
        }
    }
}

#[test]
fn kubernetes_manifests_describe_one_indexed_split_and_its_merge() {
    let Some([job, merge, claim]) = manifests() else {
        return;
    };
    assert_eq!(field(&job, "apiVersion"), "batch/v1");
    assert_eq!(field(&job, "kind"), "Job");
    assert_eq!(field(&job, "spec.completionMode"), "Indexed");
    let completions: u64 = field(&job, "spec.completions").parse().unwrap();
    let parallelism: u64 = field(&job, "spec.parallelism").parse().unwrap();
    assert!(parallelism >= 1 && parallelism <= completions);
    assert_eq!(field(&job, &format!("{POD}.restartPolicy")), "Never");

    let command = field(&job, &format!("{CONTAINER}.args.0"));
    assert_eq!(field(&job, &format!("{CONTAINER}.command.0")), "/bin/sh");
    assert_eq!(field(&job, &format!("{CONTAINER}.command.1")), "-c");
    // The count in the command is the Job's completions, in --shards and in the directory.
    assert!(
        command.contains(&format!("--shard env --shards {completions} ")),
        "{command}"
    );
    let shard_dir = format!("/data/run/shard-${{JOB_COMPLETION_INDEX}}-of-{completions}");
    assert!(
        command.contains(&format!("--out \"{shard_dir}\"")),
        "{command}"
    );
    assert!(command.contains("--resume"), "{command}");
    // Kubernetes' own `$(VAR)` expansion is not used: sh expands ${JOB_COMPLETION_INDEX}.
    assert!(!command.contains("$("), "{command}");

    let job_mounts = mounts(&job);
    assert_eq!(
        job_mounts.get("/data").map(String::as_str),
        Some("claim sparring-data")
    );
    assert_eq!(
        job_mounts.get("/config").map(String::as_str),
        Some("configmap sparring-config")
    );
    assert!(command.contains("sparring match /config/run.toml "));

    // The merge: one pod, the same claim at the same path, every shard of the same split.
    assert_eq!(field(&merge, "kind"), "Job");
    assert!(!merge.contains_key("spec.completionMode"));
    assert_eq!(field(&merge, "spec.completions"), "1");
    assert_eq!(
        mounts(&merge).get("/data").map(String::as_str),
        Some("claim sparring-data")
    );
    let merge_command = field(&merge, &format!("{CONTAINER}.args.0"));
    assert_eq!(
        merge_command,
        format!("exec sparring merge /data/merged /data/run/shard-*-of-{completions}")
    );
    assert_eq!(
        field(&job, &format!("{CONTAINER}.image")),
        field(&merge, &format!("{CONTAINER}.image"))
    );
    assert_eq!(
        field(&job, &format!("{CONTAINER}.workingDir")),
        "/opt/sparring"
    );

    // The claim the Jobs mount, writable from many nodes.
    assert_eq!(field(&claim, "kind"), "PersistentVolumeClaim");
    assert_eq!(field(&claim, "metadata.name"), "sparring-data");
    assert_eq!(field(&claim, "spec.accessModes.0"), "ReadWriteMany");
}

#[test]
fn kubernetes_manifests_pass_kubectl_client_dry_run_when_a_cluster_answers() {
    let files = [
        "kubernetes-pvc.yaml",
        "kubernetes-match.yaml",
        "kubernetes-merge.yaml",
    ];
    let Ok(version) = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
    else {
        println!("skipped: kubectl is not installed");
        return;
    };
    assert!(version.status.success());
    for file in files {
        let out = run(
            "kubectl",
            &[
                "apply",
                "--dry-run=client",
                "--request-timeout=10s",
                "-f",
                recipe(file).to_str().unwrap(),
            ],
            &[],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        // A client dry run still reads the API server's schemas (discovery, openapi).
        let no_server = [
            "connection refused",
            "failed to download openapi",
            "unable to recognize",
            "no such host",
            "i/o timeout",
            "context deadline exceeded",
        ]
        .iter()
        .any(|m| stderr.contains(m));
        if !out.status.success() && no_server {
            println!("skipped: kubectl apply --dry-run=client needs an API server for the schemas, and none answers: {}", stderr.lines().last().unwrap_or(""));
            return;
        }
        assert_ok(&out, &format!("kubectl apply --dry-run=client -f {file}"));
    }
}

#[test]
fn the_indexed_job_command_run_through_sh_then_the_merge_job_equal_the_single_run() {
    let Some([job, merge, _]) = manifests() else {
        return;
    };
    let dir = out_dir("cluster_kubernetes");
    let single = single_run(&dir);
    // The image's PATH holds `sparring`; here a directory with a link to the test binary.
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(SPARRING, bin.join("sparring")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // The volumes: the claim is a local directory, the config map the fixture's directory
    // (its run.toml is what `kubectl create configmap --from-file=run.toml=...` would hold);
    // the working directory, /opt/sparring in the image, is the repository (as `run` does).
    let data = dir.join("data");
    let local_mount = |mount: &str| -> String {
        match mount {
            "/data" => data.display().to_string(),
            "/config" => format!("{REPO}/tests/fixtures/cluster"),
            other => panic!("unexpected mount {other}"),
        }
    };
    let localize = |command: &str, doc: &BTreeMap<String, String>| -> String {
        let mut command = command.to_string();
        for mount in mounts(doc).keys() {
            command = command.replace(&format!(" {mount}/"), &format!(" {}/", local_mount(mount)));
            command = command.replace(
                &format!("\"{mount}/"),
                &format!("\"{}/", local_mount(mount)),
            );
        }
        assert!(!command.contains(" /data/") && !command.contains("\"/data/"));
        command
    };
    let command = localize(field(&job, &format!("{CONTAINER}.args.0")), &job);
    let completions: u64 = field(&job, "spec.completions").parse().unwrap();
    assert_eq!(completions, 8);
    for index in 0..completions {
        let index_text = index.to_string();
        if index == 5 {
            // A pod of index 5 was evicted before: its lock (on another node) and its last
            // game's row are what it left; the retried pod resumes.
            let shard = data.join("run/shard-5-of-8");
            let out = run(
                "sh",
                &["-c", &command],
                &[("PATH", path.as_str()), ("JOB_COMPLETION_INDEX", "5")],
            );
            assert_ok(&out, "index 5, first pod");
            kill_on_another_node(&shard);
        }
        let out = run(
            "sh",
            &["-c", &command],
            &[
                ("PATH", path.as_str()),
                ("JOB_COMPLETION_INDEX", index_text.as_str()),
            ],
        );
        assert_ok(&out, &format!("completion index {index}"));
        let shard = data.join(format!("run/shard-{index}-of-8"));
        assert_eq!(
            game_ids(&shard),
            (2 * index + 1..=2 * index + 2).collect::<Vec<_>>(),
            "pod {index} plays its pair"
        );
    }
    let merge_command = localize(field(&merge, &format!("{CONTAINER}.args.0")), &merge);
    let out = run("sh", &["-c", &merge_command], &[("PATH", path.as_str())]);
    assert_ok(&out, "merge job");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Merged 16 of 16 games"));
    assert_same_recipe_results(&single, &data.join("merged"));
}
