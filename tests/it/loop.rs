//! `sparring loop` end to end at tiny node counts: the loop is deterministic whatever the
//! concurrency and however often it is killed and resumed; a worse challenger is rejected and a
//! better one promoted; the tune reads exactly the last `window` generations' data; a changed
//! configuration is refused on resume; and a loop staged as shards (`--staged`, the cluster
//! driver's path) gives the one-machine ladder and champion.

use sparring::eval::{EvalParams, ParamGroup};
use sparring::ladder::read_rows;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::binary;
use crate::common::loop_run::{kill_after, rows_without_time, run_loop};
use binary::{sparring, text};

fn scratch(name: &str) -> PathBuf {
    binary::scratch_in("loop", name)
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

/// Settings a test varies.
struct Setup {
    /// The starting champion's weights file (an absolute path).
    weights: String,
    concurrency: u32,
    learning_rate: f64,
    selfplay_rounds: u32,
    gate_rounds: u32,
    /// 0 keeps the last epoch's weights instead of the best on held-out positions.
    validation_fraction: f64,
    /// `tune.model.tune`, the groups tuned (None: the tuner's default).
    tune_groups: Option<&'static str>,
    /// The run's seed.
    seed: u64,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup {
            weights: repo("configs/weights/handset.toml"),
            concurrency: 2,
            learning_rate: 1.0,
            selfplay_rounds: 8,
            gate_rounds: 30,
            validation_fraction: 0.1,
            tune_groups: None,
            seed: 7,
        }
    }
}

/// A loop configuration at tiny sizes, written into `dir`.
fn write_config(dir: &Path, setup: &Setup) -> PathBuf {
    let mut text = format!(
        r#"seed = {seed}
generations = 3
[champion]
weights = {weights:?}
hash_mb = 1
[selfplay.tournament]
rounds = {rounds}
concurrency = {concurrency}
[selfplay.time_control]
nodes = 600
[selfplay.openings]
file = {openings:?}
order = "random"
per_game = true
random_plies = 4
[selfplay.adjudication]
max_moves = 120
[selfplay.output]
positions_per_game = 10
[tune]
window = 2
[tune.data]
validation_fraction = {validation:?}
[tune.optimizer]
learning_rate = {lr}
epochs = 15
l2 = 0.0
threads = {concurrency}
[gate]
wave_pairs = 5
[gate.tournament]
rounds = {gate_rounds}
concurrency = {concurrency}
[gate.time_control]
nodes = 600
[gate.openings]
file = {openings:?}
order = "random"
[gate.adjudication]
resign = {{ move_count = 3, score_cp = 600 }}
max_moves = 120
[gate.sprt]
elo0 = 0.0
elo1 = 30.0
alpha = 0.1
beta = 0.1
model = "logistic"
"#,
        seed = setup.seed,
        weights = setup.weights,
        rounds = setup.selfplay_rounds,
        gate_rounds = setup.gate_rounds,
        concurrency = setup.concurrency,
        openings = repo("openings/balanced-8ply.epd"),
        lr = setup.learning_rate,
        validation = setup.validation_fraction,
    );
    // Last, so the line numbers above stay what the error test expects.
    if let Some(groups) = setup.tune_groups {
        text.push_str(&format!("[tune.model]\ntune = {groups}\n"));
    }
    let path = dir.join("loop.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_loop_gives_the_same_ladder_at_any_concurrency_and_after_kills_in_every_stage() {
    let dir = scratch("deterministic");
    // Without held-out positions the last epoch's weights are the challenger, so every
    // generation differs from its champion and plays a gate (160 positions with 16 held out
    // pick epoch 0: identical engines, no gate).
    let setup = || Setup {
        validation_fraction: 0.0,
        ..Setup::default()
    };
    let config = write_config(&dir, &setup());
    let reference = dir.join("reference");
    let run = run_loop(&config, &reference, &[]);
    assert!(run.stdout.contains("Generation 3:"), "{}", run.stdout);
    let expected = rows_without_time(&reference);
    assert_eq!(expected.len(), 3);
    assert!(expected.iter().all(|r| r.games == 16 && r.positions > 0));
    assert!(expected.iter().all(|r| r.gate_games > 0), "{expected:?}");

    // The data window: generation g reads generations g-1 and g.
    let tune = std::fs::read_to_string(reference.join("gen-003/tune.toml")).unwrap();
    let files = tune
        .lines()
        .find(|l| l.starts_with("files"))
        .expect("data.files");
    assert!(
        files.contains("gen-002/data.epd") && files.contains("gen-003/data.epd"),
        "{files}"
    );
    assert!(!files.contains("gen-001"), "{files}");
    let first = std::fs::read_to_string(reference.join("gen-001/tune.toml")).unwrap();
    assert_eq!(first.matches("data.epd").count(), 1, "{first}");

    let serial_dir = scratch("deterministic-serial");
    let serial = write_config(
        &serial_dir,
        &Setup {
            concurrency: 1,
            ..setup()
        },
    );
    let one = serial_dir.join("out");
    run_loop(&serial, &one, &[]);
    assert_eq!(
        rows_without_time(&one),
        expected,
        "concurrency 1 and 2 agree"
    );

    // Killed in each stage, then resumed to the end.
    let killed = dir.join("killed");
    let stages = [
        "gen 1 selfplay: started",
        "gen 1 tune: started",
        "gen 1 gate: started",
        "gen 2 selfplay: started",
        "gen 2 gate: started",
    ];
    for (i, line) in stages.iter().enumerate() {
        kill_after(&config, &killed, line, i > 0, Duration::from_millis(300));
    }
    run_loop(&config, &killed, &["--resume"]);
    assert_eq!(rows_without_time(&killed), expected, "killed and resumed");
    assert_eq!(
        std::fs::read(killed.join("champion.weights.toml")).unwrap(),
        std::fs::read(reference.join("champion.weights.toml")).unwrap()
    );

    // A finished loop extended by --generations plays only the new generation.
    let run = run_loop(&config, &killed, &["--resume", "--generations", "4"]);
    assert!(
        run.stdout.contains("Resuming after generation 3"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("gen 3 "), "{}", run.stdout);
    assert_eq!(rows_without_time(&killed).len(), 4);
}

#[test]
fn a_worse_challenger_is_rejected_and_the_champion_kept() {
    let dir = scratch("worse");
    // 1.5 centipawns a step over every group on 160 positions, with neither a penalty nor
    // held-out positions (the last epoch's weights are the challenger), overfits the whole
    // evaluation to noise. The rate is 1.5 since session 19's tuned search constants; it was 2,
    // but at 2 the self-play games of 8 of seeds 1-10 (the default 7 among them) made the tune
    // end inside the mate range, an `unusable` generation as the next test wants at 300. At 1.5
    // the challenger lost H0 by 300-500 Elo for seeds 1-4 and 6-10 (seed 5 ran out of games at
    // -280, seed 7 lost every game, an infinite Elo). Seed 2: H0 at -382 +/- 177.
    let config = write_config(
        &dir,
        &Setup {
            learning_rate: 1.5,
            validation_fraction: 0.0,
            seed: 2,
            ..Setup::default()
        },
    );
    let out = dir.join("out");
    run_loop(&config, &out, &["--generations", "1"]);
    let rows = rows_without_time(&out);
    assert_eq!(rows[0].sprt, "H0", "{:?}", rows[0]);
    assert!(!rows[0].promoted);
    assert!(rows[0].elo.unwrap() < -100.0, "{:?}", rows[0]);
    assert_eq!(rows[0].cumulative_elo, 0.0);
    assert_ne!(
        std::fs::read(out.join("gen-001/challenger.weights.toml")).unwrap(),
        std::fs::read(repo("configs/weights/handset.toml")).unwrap(),
        "the challenger was tuned"
    );
    assert_eq!(
        std::fs::read(out.join("champion.weights.toml")).unwrap(),
        std::fs::read(repo("configs/weights/handset.toml")).unwrap(),
        "the starting champion is kept"
    );
}

#[test]
fn a_tune_that_wrecks_the_weights_gives_no_challenger_and_the_loop_goes_on() {
    let dir = scratch("unusable");
    // 300 centipawns a step: weights the engine refuses (evaluations inside the mate range),
    // kept as the epoch with the best training error without held-out positions. When every
    // step is worse than the start, the tune keeps the start (an identical challenger): with
    // session 13's search that is so for seed 7 and for none of seeds 1-6 and 8, hence seed 1.
    let config = write_config(
        &dir,
        &Setup {
            learning_rate: 300.0,
            validation_fraction: 0.0,
            seed: 1,
            ..Setup::default()
        },
    );
    let out = dir.join("out");
    let run = run_loop(&config, &out, &["--generations", "2"]);
    assert!(
        run.stdout.contains("no usable challenger"),
        "{}",
        run.stdout
    );
    let rows = rows_without_time(&out);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].sprt, "unusable", "{:?}", rows[0]);
    assert_eq!((rows[0].gate_games, rows[0].elo), (0, None));
    // The refused tune still reports what it fitted on.
    assert!(rows[0].tune_positions > 0, "{:?}", rows[0]);
    assert!(
        rows[0].k.is_finite() && rows[0].train_mse.is_finite(),
        "{:?}",
        rows[0]
    );
    assert!(out.join("gen-001/tune/weights.unusable.toml").exists());
    assert!(!out.join("gen-001/tune/weights.toml").exists());
    assert!(!out.join("gen-001/gate").exists());
    assert_eq!(
        std::fs::read(out.join("champion.weights.toml")).unwrap(),
        std::fs::read(repo("configs/weights/handset.toml")).unwrap()
    );
}

#[test]
fn a_tune_that_keeps_the_champions_values_plays_no_gate() {
    let dir = scratch("identical");
    // 300 centipawns a step wrecks the first epoch, so the held-out positions pick epoch 0: the
    // champion's own weights, which no gate can tell apart from themselves.
    let config = write_config(
        &dir,
        &Setup {
            learning_rate: 300.0,
            ..Setup::default()
        },
    );
    let out = dir.join("out");
    let run = run_loop(&config, &out, &["--generations", "1"]);
    assert!(run.stdout.contains("not played"), "{}", run.stdout);
    let rows = read_rows(&out.join("generations.csv")).unwrap();
    assert_eq!(rows[0].sprt, "identical", "{:?}", rows[0]);
    assert_eq!((rows[0].gate_games, rows[0].elo), (0, None));
    assert!(!rows[0].promoted);
    assert!(!out.join("gen-001/gate").exists());
    // The generation's clock is kept beside it (unit tests in src/tune/ladder/run.rs).
    let clock: f64 = std::fs::read_to_string(out.join("gen-001/elapsed.seconds"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The file keeps milliseconds, so it may round the row's time up by half of one.
    assert!(
        rows[0].seconds + 0.0005 >= clock && clock > 0.0,
        "{clock} {:?}",
        rows[0]
    );
    assert_eq!(
        std::fs::read(out.join("gen-001/challenger.weights.toml")).unwrap(),
        std::fs::read(out.join("gen-001/tune/weights.toml")).unwrap(),
    );
}

/// The hand-set weights with the material values scrambled (a pawn worth a queen, a knight a
/// rook and back): an engine that gives its queen for a pawn.
fn scrambled_material(dir: &Path) -> PathBuf {
    let handset = std::fs::read_to_string(repo("configs/weights/handset.toml")).unwrap();
    let scrambled = handset
        .replace(
            "mg = [    100,    320,    330,    500,    900]",
            "mg = [    900,    500,    330,    320,    100]",
        )
        .replace(
            "eg = [    120,    300,    320,    540,    960]",
            "eg = [    960,    540,    320,    300,    120]",
        );
    assert_ne!(
        scrambled, handset,
        "configs/weights/handset.toml's material lines changed"
    );
    let path = dir.join("scrambled.weights.toml");
    std::fs::write(&path, scrambled).unwrap();
    path
}

#[test]
fn a_better_challenger_is_promoted_and_becomes_the_champion() {
    let dir = scratch("better");
    // A champion whose material values are scrambled, and a tune of the material group alone
    // with large steps: any 400 positions of its games say a queen is worth more than a pawn,
    // so the tuned material beats it by hundreds of Elo (H1 at the first wave the SPRT can stop,
    // for every seed tried, 1-5 and 7). The last epoch's weights are the challenger.
    let config = write_config(
        &dir,
        &Setup {
            weights: scrambled_material(&dir).display().to_string(),
            learning_rate: 30.0,
            validation_fraction: 0.0,
            selfplay_rounds: 20,
            gate_rounds: 60,
            tune_groups: Some(r#"["material"]"#),
            ..Setup::default()
        },
    );
    let out = dir.join("out");
    let run = run_loop(&config, &out, &["--generations", "1"]);
    let rows = rows_without_time(&out);
    assert_eq!(rows[0].sprt, "H1", "{:?}\n{}", rows[0], run.stdout);
    assert!(rows[0].promoted);
    assert!(rows[0].elo.unwrap() > 100.0, "{:?}", rows[0]);
    assert_eq!(Some(rows[0].cumulative_elo), rows[0].elo);
    let challenger = std::fs::read(out.join("gen-001/challenger.weights.toml")).unwrap();
    assert_eq!(
        std::fs::read(out.join("champion.weights.toml")).unwrap(),
        challenger,
        "the challenger is the champion"
    );
    // Only the material moved. (Which values it reached is not asserted: 160 positions at 30 cp
    // a step leave them far apart from seed to seed, and whether the queen ends above the pawn
    // changed with session 13's search; the gate is what shows the challenger is better.)
    let tuned = EvalParams::load(out.join("champion.weights.toml")).unwrap();
    let start = EvalParams::load(dir.join("scrambled.weights.toml")).unwrap();
    let value = |params: &EvalParams, name: &str| params.get(params.index_of(name).unwrap());
    assert_ne!(
        value(&tuned, "material.pawn"),
        value(&start, "material.pawn"),
        "the material was tuned"
    );
    for i in 0..tuned.len() {
        if tuned.group(i) != ParamGroup::Material {
            assert_eq!(tuned.get(i), start.get(i), "{}", tuned.name(i));
        }
    }
    let svg = std::fs::read_to_string(out.join("ladder.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
}

#[test]
fn a_changed_configuration_or_a_used_directory_is_refused() {
    let dir = scratch("refused");
    let weights = dir.join("champion.toml");
    std::fs::copy(repo("configs/weights/handset.toml"), &weights).unwrap();
    let setup = Setup {
        weights: text(&weights).to_string(),
        ..Setup::default()
    };
    let config = write_config(&dir, &setup);
    let out = dir.join("out");
    run_loop(&config, &out, &["--generations", "1"]);

    // Without --resume, the directory is not the loop's to start in.
    let run = sparring(&["loop", text(&config), "--out", text(&out)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--resume"), "{}", run.stderr);

    // A comment in the champion's weights changes no game: the run resumes (and has nothing to do).
    let commented = format!("# a note\n{}", std::fs::read_to_string(&weights).unwrap());
    std::fs::write(&weights, &commented).unwrap();
    run_loop(&config, &out, &["--generations", "1", "--resume"]);
    // A changed weight does.
    std::fs::write(
        &weights,
        commented.replacen("mg = [    100,", "mg = [    101,", 1),
    )
    .unwrap();
    let run = sparring(&["loop", text(&config), "--out", text(&out), "--resume"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("champion.weights_hash was"),
        "{}",
        run.stderr
    );
    std::fs::write(&weights, commented).unwrap();

    // A setting that changes games is refused on resume, naming the key; concurrency may change.
    let changed = std::fs::read_to_string(&config).unwrap().replace(
        "nodes = 600\n[selfplay.openings]",
        "nodes = 700\n[selfplay.openings]",
    );
    std::fs::write(&config, changed).unwrap();
    let run = sparring(&["loop", text(&config), "--out", text(&out), "--resume"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("selfplay.time_control.nodes was 600 and is now 700"),
        "{}",
        run.stderr
    );

    // A bad key is reported at its line before anything runs.
    let bad = dir.join("bad.toml");
    let text_ = std::fs::read_to_string(&config)
        .unwrap()
        .replace("epochs = 15", "epochs = -1");
    std::fs::write(&bad, text_).unwrap();
    let fresh = dir.join("fresh");
    let run = sparring(&["loop", text(&bad), "--out", text(&fresh)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("bad.toml:26:10:") && run.stderr.contains("tune.optimizer.epochs"),
        "{}",
        run.stderr
    );
    assert!(!fresh.exists(), "nothing was written");
}

/// The `[spsa]` stage of a tiny loop: two iterations over two search constants.
const SPSA_STAGE: &str = r#"
[spsa]
every = 1
iterations = 2
pairs_per_iteration = 2
[spsa.time_control]
nodes = 600
[spsa.openings]
file = "OPENINGS"
[spsa.adjudication]
max_moves = 120
[[spsa.param]]
name = "search.lmr.base"
min = 0.0
max = 2.0
c_end = 0.1
[[spsa.param]]
name = "search.rfp.margin"
min = 30
max = 160
c_end = 6
"#;

#[test]
fn an_spsa_stage_tunes_the_challengers_search_constants_and_resumes_to_the_same_files() {
    let dir = scratch("spsa");
    let config = write_config(&dir, &Setup::default());
    let mut text = std::fs::read_to_string(&config).unwrap();
    text = text.replace("generations = 3", "generations = 1");
    text.push_str(&SPSA_STAGE.replace("OPENINGS", &repo("openings/balanced-8ply.epd")));
    std::fs::write(&config, text).unwrap();

    let reference = dir.join("reference");
    let run = run_loop(&config, &reference, &[]);
    assert!(run.stdout.contains("gen 1 spsa: started"), "{}", run.stdout);
    let gen = reference.join("gen-001");
    let trajectory = std::fs::read_to_string(gen.join("spsa/trajectory.csv")).unwrap();
    // A header, the starting point and two iterations.
    assert_eq!(trajectory.lines().count(), 4, "{trajectory}");
    assert!(
        gen.join("spsa.toml").exists(),
        "the stage's configuration is kept"
    );
    // The challenger's search file holds the SPSA result, not the compiled-in constants.
    let search = sparring::search::SearchParams::load(gen.join("challenger.search.toml")).unwrap();
    assert_ne!(search, sparring::search::SearchParams::default());
    let gate = std::fs::read_to_string(gen.join("gate.toml")).unwrap();
    assert!(gate.contains("challenger.search.toml"), "{gate}");

    // Killed during the SPSA stage and resumed: the same generation.
    let killed = dir.join("killed");
    kill_after(
        &config,
        &killed,
        "gen 1 spsa: started",
        false,
        Duration::from_millis(300),
    );
    run_loop(&config, &killed, &["--resume"]);
    assert_eq!(rows_without_time(&killed), rows_without_time(&reference));
    assert_eq!(
        std::fs::read(killed.join("gen-001/challenger.search.toml")).unwrap(),
        std::fs::read(gen.join("challenger.search.toml")).unwrap()
    );
}

/// One `sparring loop --staged` step: its `next` lines (stage, config, args, shards directory).
fn staged_step(config: &Path, out: &Path) -> (String, String, String, String) {
    let run = run_loop(config, out, &["--resume", "--staged"]);
    let field = |key: &str| {
        run.stdout
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("no `{key}` line:\n{}", run.stdout))
            .to_string()
    };
    let next = field("next: ");
    if next == "done" {
        return (next, String::new(), String::new(), String::new());
    }
    (
        next,
        field("next-config: "),
        field("next-args: "),
        field("next-out: "),
    )
}

/// Shard `index` of 2 of a staged stage, as a cluster task plays it.
fn play_shard(config: &str, args: &str, shards: &str, index: u32) {
    let out = format!("{shards}/shard-{index}-of-2");
    let shard = format!("{index}/2");
    let mut argv = vec!["match", config];
    argv.extend(args.split_whitespace());
    argv.extend(["--shard", &shard, "--out", &out, "--resume"]);
    let run = sparring(&argv);
    assert_eq!(run.code, 0, "{argv:?}\n{}\n{}", run.stdout, run.stderr);
}

/// A champion file's text with its run directory named `OUT` (the tuner's header names the
/// data files it read).
fn champion_text(out: &Path, file: &str) -> String {
    std::fs::read_to_string(out.join(file))
        .unwrap()
        .replace(&out.display().to_string(), "OUT")
}

#[test]
fn a_loop_staged_as_shards_gives_the_one_machine_ladder_and_champion() {
    let dir = scratch("staged");
    // The better-challenger loop over two generations: the champion changes after the first.
    let config = write_config(
        &dir,
        &Setup {
            weights: scrambled_material(&dir).display().to_string(),
            learning_rate: 30.0,
            validation_fraction: 0.0,
            selfplay_rounds: 20,
            gate_rounds: 60,
            tune_groups: Some(r#"["material"]"#),
            ..Setup::default()
        },
    );
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("generations = 3", "generations = 2");
    std::fs::write(&config, text).unwrap();
    let single = dir.join("single");
    run_loop(&config, &single, &[]);
    let expected = rows_without_time(&single);
    assert_eq!(expected.len(), 2);
    assert!(expected[0].promoted, "{:?}", expected[0]);

    // Each stage as 2 shards played one after the other between --staged steps.
    let staged = dir.join("staged");
    let (next, config_file, args, shards) = staged_step(&config, &staged);
    assert_eq!(next, "gen 1 selfplay");
    assert!(
        config_file.ends_with("gen-001/selfplay.toml"),
        "{config_file}"
    );
    assert_eq!(args, "");
    // With a shard missing, the stage is still the one to play.
    play_shard(&config_file, &args, &shards, 0);
    assert_eq!(staged_step(&config, &staged).0, "gen 1 selfplay");
    play_shard(&config_file, &args, &shards, 1);
    let mut steps = vec![next];
    loop {
        let (next, config_file, args, shards) = staged_step(&config, &staged);
        if next == "done" {
            break;
        }
        assert!(steps.len() < 40, "{steps:?}");
        assert!(!steps.contains(&next), "{next} twice: {steps:?}");
        if next.contains("gate") {
            assert!(args.starts_with("--wave "), "{args}");
        }
        play_shard(&config_file, &args, &shards, 0);
        play_shard(&config_file, &args, &shards, 1);
        steps.push(next);
    }
    assert_eq!(steps[1], "gen 1 gate wave 0", "{steps:?}");
    assert!(steps.contains(&"gen 2 selfplay".to_string()), "{steps:?}");
    assert_eq!(
        rows_without_time(&staged),
        expected,
        "staged and one machine agree"
    );
    for file in ["champion.weights.toml", "champion.search.toml"] {
        assert_eq!(champion_text(&staged, file), champion_text(&single, file));
    }

    // The Slurm driver, against a stand-in sbatch that runs each array's tasks in turn.
    let slurm = dir.join("slurm");
    let state = dir.join("sbatch");
    std::fs::create_dir_all(&state).unwrap();
    let path = format!(
        "{}:{}",
        repo("tests/fixtures/cluster"),
        std::env::var("PATH").unwrap_or_default()
    );
    let driver = Command::new("bash")
        .arg(repo("configs/cluster/slurm-loop.sh"))
        .env("SPARRING", env!("CARGO_BIN_EXE_sparring"))
        .env("CONFIG", &config)
        .env("OUT", &slurm)
        .env("SHARDS", "2")
        .env("MOCK_SBATCH_DIR", &state)
        .env("PATH", path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&driver.stdout);
    assert!(
        driver.status.success() && stdout.contains("done: the ladder is in"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&driver.stderr)
    );
    let calls = std::fs::read_to_string(state.join("calls")).unwrap();
    assert_eq!(calls.lines().count(), steps.len(), "{calls}");
    assert!(
        calls
            .lines()
            .all(|l| l == "sbatch --array=0-1 slurm-loop.sh"),
        "{calls}"
    );
    assert_eq!(
        rows_without_time(&slurm),
        expected,
        "the Slurm driver agrees"
    );
    for file in ["champion.weights.toml", "champion.search.toml"] {
        assert_eq!(champion_text(&slurm, file), champion_text(&single, file));
    }
}

/// An `[anchor]` table whose panel is `panel` (`[[anchor.engine]]` tables), every generation.
fn with_anchor(config: &Path, panel: &str) {
    let mut text = std::fs::read_to_string(config).unwrap();
    text.push_str(&format!(
        "[anchor]\nevery = 1\n[anchor.tournament]\nrounds = 2\nconcurrency = 2\n\
         [anchor.time_control]\nnodes = 600\n[anchor.openings]\nfile = {:?}\n\
         [anchor.adjudication]\nmax_moves = 120\n{panel}",
        repo("openings/balanced-8ply.epd")
    ));
    std::fs::write(config, text).unwrap();
}

/// A small loop: few games a stage, `generations` generations.
fn small_config(dir: &Path, generations: u32) -> PathBuf {
    let config = write_config(
        dir,
        &Setup {
            selfplay_rounds: 4,
            gate_rounds: 10,
            ..Setup::default()
        },
    );
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("generations = 3", &format!("generations = {generations}"));
    std::fs::write(&config, text).unwrap();
    config
}

/// The names in `dir` with their contents, in name order.
fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut entries: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap_or_default())
        })
        .collect();
    entries.sort();
    entries
}

#[test]
fn a_loop_with_a_missing_anchor_engine_fails_before_the_first_game() {
    let dir = scratch("anchor-missing");
    let config = small_config(&dir, 1);
    let good = std::fs::read_to_string(&config).unwrap();
    for (name, command) in [
        ("ghost", "/no/such/dir/ghost-engine"),
        // It starts, but says nothing and exits: not a UCI engine.
        ("mute", "true"),
    ] {
        std::fs::write(&config, &good).unwrap();
        with_anchor(
            &config,
            &format!("[[anchor.engine]]\nname = {name:?}\nuci = {{ command = {command:?} }}\n"),
        );
        let out = dir.join(format!("out-{name}"));
        let run = sparring(&["loop", text(&config), "--out", text(&out)]);
        // An engine that cannot start is a failed run, as in `sparring match`.
        assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
        assert!(
            run.stderr.contains(&format!("`{name}`")) && run.stderr.contains(command),
            "the engine and its command are named: {}",
            run.stderr
        );
        assert!(!run.stdout.contains("selfplay: started"), "{}", run.stdout);
        assert!(!out.join("gen-001").exists(), "no game was played");
        assert!(!out.exists(), "nothing was written");
    }
    // Fixed, the loop runs (no --resume needed: nothing was written).
    std::fs::write(&config, &good).unwrap();
    with_anchor(
        &config,
        &format!(
            "[[anchor.engine]]\nname = \"ghost\"\nuci = {{ command = {:?}, args = [\"uci\"] }}\n",
            env!("CARGO_BIN_EXE_sparring")
        ),
    );
    let out = dir.join("out-ghost");
    run_loop(&config, &out, &[]);
    let rows = rows_without_time(&out);
    assert_eq!(rows.len(), 1);
    assert!(rows[0].anchor_games.is_some_and(|g| g > 0), "{rows:?}");
}

#[test]
fn an_anchor_changed_on_resume_is_accepted() {
    let dir = scratch("anchor-changed");
    let config = small_config(&dir, 2);
    let plain = std::fs::read_to_string(&config).unwrap();
    let handset = repo("configs/weights/handset.toml");
    let one = format!(
        "[[anchor.engine]]\nname = \"a\"\nbuiltin = {{ weights = {handset:?}, hash_mb = 1 }}\n"
    );
    with_anchor(&config, &one);
    let out = dir.join("out");
    run_loop(&config, &out, &["--generations", "1"]);
    let first = rows_without_time(&out);
    let one_engine = first[0].anchor_games.unwrap();

    // A second panel engine and a rating: the finished generation stays, the next uses them.
    std::fs::write(&config, &plain).unwrap();
    with_anchor(
        &config,
        &format!(
            "{one}rating = 100\n[[anchor.engine]]\nname = \"b\"\nbuiltin = {{ hash_mb = 1 }}\n"
        ),
    );
    let run = run_loop(&config, &out, &["--resume"]);
    assert!(
        run.stdout.contains("Resuming after generation 1"),
        "{}",
        run.stdout
    );
    let rows = rows_without_time(&out);
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0], first[0],
        "the finished generation is kept as it was"
    );
    assert_eq!(rows[1].anchor_games, Some(2 * one_engine), "{rows:?}");

    // Changed again while generation 3's anchor is being played (slowly: its games cannot end
    // before the kill): that stage starts over with the new panel, the old panel's games set
    // aside, not lost.
    let plain = plain.replace("generations = 2", "generations = 3");
    let slow = std::fs::read_to_string(&config)
        .unwrap()
        .replace("generations = 2", "generations = 3")
        .replace(
            "[anchor.time_control]\nnodes = 600",
            "[anchor.time_control]\nnodes = 50000",
        );
    std::fs::write(&config, slow).unwrap();
    kill_after(
        &config,
        &out,
        "gen 3 anchor: started",
        true,
        Duration::from_millis(300),
    );
    std::fs::write(&config, &plain).unwrap();
    with_anchor(&config, &one);
    run_loop(&config, &out, &["--resume"]);
    let rows = rows_without_time(&out);
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[2].anchor_games, Some(one_engine), "{rows:?}");
    let aside = out.join("gen-003/anchor-replaced-1");
    assert!(aside.join("run.toml").exists(), "the cut-off stage is kept");
    // Anything else that decides generations is still refused.
    let changed = std::fs::read_to_string(&config).unwrap().replace(
        "nodes = 600\n[selfplay.openings]",
        "nodes = 700\n[selfplay.openings]",
    );
    std::fs::write(&config, changed).unwrap();
    let run = sparring(&["loop", text(&config), "--out", text(&out), "--resume"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("selfplay.time_control.nodes was 600"),
        "{}",
        run.stderr
    );
}

#[test]
fn loop_out_naming_a_file_is_status_2() {
    let dir = scratch("out-file");
    let config = small_config(&dir, 1);
    let file = dir.join("notes.txt");
    std::fs::write(&file, "mine\n").unwrap();
    for extra in [&[][..], &["--resume"][..]] {
        let mut args = vec!["loop", text(&config), "--out", text(&file)];
        args.extend_from_slice(extra);
        let run = sparring(&args);
        binary::assert_bad_input(&run, &["notes.txt", "is a file, not a directory"]);
        assert!(!run.stderr.contains("os error"), "{}", run.stderr);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");
    }
}

#[test]
fn resume_into_a_directory_without_a_loop_touches_nothing() {
    let dir = scratch("resume-foreign");
    let config = small_config(&dir, 1);
    let foreign = dir.join("foreign");
    std::fs::create_dir_all(foreign.join("sub")).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine\n").unwrap();
    let before = listing(&foreign);
    let run = sparring(&["loop", text(&config), "--out", text(&foreign), "--resume"]);
    binary::assert_bad_input(&run, &["foreign", "holds no loop to resume"]);
    assert!(!run.stderr.contains("pass --resume"), "{}", run.stderr);
    assert_eq!(listing(&foreign), before, "nothing in it was touched");
    assert_eq!(listing(&foreign.join("sub")), Vec::new());
}

#[test]
fn tune_engine_in_a_loop_file_is_refused() {
    let dir = scratch("tune-engine");
    let config = small_config(&dir, 1);
    let mut text_ = std::fs::read_to_string(&config).unwrap();
    let line = text_.lines().count() + 1;
    text_.push_str("[tune.engine]\ncommand = \"./myengine\"\n");
    std::fs::write(&config, text_).unwrap();
    let out = dir.join("out");
    let run = sparring(&["loop", text(&config), "--out", text(&out)]);
    binary::assert_bad_input(&run, &[&format!("loop.toml:{line}:"), "tune.engine"]);
    assert_eq!(
        run.stderr
            .lines()
            .filter(|l| l.starts_with("error:"))
            .count(),
        1,
        "{}",
        run.stderr
    );
    assert!(!out.exists(), "nothing was written");
}

#[test]
fn two_loops_started_together_the_loser_gets_the_lock_message() {
    let dir = scratch("two-loops");
    let config = small_config(&dir, 1);

    // A run holding the directory, caught between taking its lock and writing its fingerprint.
    let held = dir.join("held");
    std::fs::create_dir_all(&held).unwrap();
    let lock = sparring::arena::OutputLock::acquire(&held).unwrap();
    for extra in [&[][..], &["--resume"][..]] {
        let mut args = vec!["loop", text(&config), "--out", text(&held)];
        args.extend_from_slice(extra);
        let run = sparring(&args);
        binary::assert_bad_input(&run, &[&format!("another run (pid {}", std::process::id())]);
        assert_eq!(
            listing(&held)
                .into_iter()
                .map(|(n, _)| n)
                .collect::<Vec<_>>(),
            ["sparring.lock"]
        );
    }
    drop(lock);

    // Two started at the same instant into a new directory: one plays, the other is refused.
    let out = dir.join("out");
    let start = || {
        Command::new(env!("CARGO_BIN_EXE_sparring"))
            .args(["loop", text(&config), "--out", text(&out)])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (start(), start());
    let mut codes = Vec::new();
    let mut loser = String::new();
    for child in [a, b] {
        let output = child.wait_with_output().unwrap();
        let code = output.status.code().unwrap_or(-1);
        if code != 0 {
            loser = String::from_utf8_lossy(&output.stderr).into_owned();
        }
        codes.push(code);
    }
    codes.sort();
    assert_eq!(codes, [0, 2], "{loser}");
    assert!(loser.contains("another run (pid"), "{loser}");
    assert_eq!(rows_without_time(&out).len(), 1);
}

#[test]
fn staged_shards_from_mixed_splits_are_status_2() {
    let dir = scratch("staged-mixed");
    let config = small_config(&dir, 1);
    let out = dir.join("out");
    let (next, config_file, _, shards) = staged_step(&config, &out);
    assert_eq!(next, "gen 1 selfplay");
    // Shard 0 of a 2-way split and shard 1 of a 3-way split.
    for (shard, name) in [("0/2", "shard-0-of-2"), ("1/3", "shard-1-of-3")] {
        let dest = format!("{shards}/{name}");
        let run = sparring(&["match", &config_file, "--shard", shard, "--out", &dest]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let run = sparring(&[
        "loop",
        text(&config),
        "--out",
        text(&out),
        "--resume",
        "--staged",
    ]);
    binary::assert_bad_input(&run, &["all shards must come from one split"]);
    // `sparring merge` says the same of the same shards, with the same status.
    let merged = dir.join("merged");
    let merge = sparring(&[
        "merge",
        text(&merged),
        &format!("{shards}/shard-0-of-2"),
        &format!("{shards}/shard-1-of-3"),
    ]);
    binary::assert_bad_input(&merge, &["all shards must come from one split"]);
}

#[test]
fn resuming_with_fewer_generations_than_played_says_there_is_nothing_to_do() {
    let dir = scratch("fewer");
    let config = small_config(&dir, 2);
    let out = dir.join("out");
    run_loop(&config, &out, &[]);
    let rows = rows_without_time(&out);
    assert_eq!(rows.len(), 2);
    let run = run_loop(&config, &out, &["--resume", "--generations", "1"]);
    assert!(
        run.stdout.contains("already has 2 generations") && run.stdout.contains("nothing to play"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("playing up to"), "{}", run.stdout);
    assert!(!run.stdout.contains("started"), "{}", run.stdout);
    assert_eq!(rows_without_time(&out), rows, "the run is as it was");
}
