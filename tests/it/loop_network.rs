//! `sparring loop` with `model = "network"` at tiny sizes: data runs, training and gates give
//! the same ladder and the same networks however often the loop is killed and resumed; a
//! promoted network plays the next generation's data and seeds its training; the built-in
//! engine plays a network in a match; and bad network-loop configurations are status 2.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::binary;
use crate::common::loop_run::{kill_after, rows_without_time, run_loop};
use binary::{assert_bad_input, sparring, text};

fn scratch(name: &str) -> PathBuf {
    binary::scratch_in("loop-network", name)
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

/// A network loop at tiny sizes; `champion` is the `[champion]` table's extra lines and
/// `sprt` the gate's bounds.
fn network_config(dir: &Path, champion: &str, sprt: (i32, i32)) -> PathBuf {
    let text = format!(
        r#"model = "network"
seed = 5
generations = 2
[champion]
weights = {weights:?}
hash_mb = 2
{champion}
[datagen]
games = 12
nodes = 800
random_plies = 8
concurrency = 2
[datagen.verify]
nodes = 300
[datagen.adjudication]
win_score_cp = 2500
draw_score_cp = 10
max_moves = 120
[train]
window = 2
init = "champion"
[train.data]
validation_fraction = 0.1
[train.model]
hidden = 16
[train.training]
superbatches = 6
batch_size = 256
threads = 2
[train.optimizer]
lr = 0.01
[gate]
wave_pairs = 5
[gate.tournament]
rounds = 20
concurrency = 2
[gate.time_control]
nodes = 800
[gate.openings]
file = {openings:?}
order = "random"
[gate.adjudication]
resign = {{ move_count = 3, score_cp = 600 }}
max_moves = 120
[gate.sprt]
elo0 = {elo0}.0
elo1 = {elo1}.0
alpha = 0.1
beta = 0.1
model = "logistic"
"#,
        weights = repo("configs/weights/default.toml"),
        openings = repo("openings/balanced-8ply.epd"),
        elo0 = sprt.0,
        elo1 = sprt.1,
    );
    let path = dir.join("loop.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The bytes of every generation's challenger network.
fn nets(out: &Path) -> Vec<Vec<u8>> {
    (1..=2)
        .map(|g| std::fs::read(out.join(format!("gen-00{g}/challenger.net.bin"))).unwrap())
        .collect()
}

#[test]
fn a_network_loop_gives_the_same_ladder_and_nets_after_kills_in_every_stage() {
    let dir = scratch("resume");
    let config = network_config(&dir, "", (0, 20));
    let whole = dir.join("whole");
    let run = run_loop(&config, &whole, &[]);
    assert!(run.stdout.contains("gen 2 train:"), "{}", run.stdout);
    let rows = rows_without_time(&whole);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row.games, 12, "{row:?}");
        assert!(row.positions > 200, "{row:?}");
        assert!(row.gate_games > 0, "{row:?}");
        assert_eq!(
            row.k, 400.0,
            "a network generation's k is the target's scale"
        );
    }
    // Generation 2 trains on both generations' data (window 2), less the mate scores the
    // trainer's default filter drops.
    assert!(rows[1].tune_positions > rows[1].positions, "{rows:?}");
    assert!(rows[1].tune_positions <= rows[0].positions + rows[1].positions);
    let train = std::fs::read_to_string(whole.join("gen-002/train.toml")).unwrap();
    assert!(
        train.contains("gen-001/datagen/data.viriformat")
            && train.contains("gen-002/datagen/data.viriformat"),
        "{train}"
    );

    let killed = dir.join("killed");
    kill_after(
        &config,
        &killed,
        "gen 1 datagen: started",
        false,
        Duration::from_millis(150),
    );
    for line in [
        "gen 1 train: started",
        "gen 1 gate: started",
        "gen 2 datagen: started",
        "gen 2 train: started",
    ] {
        kill_after(&config, &killed, line, true, Duration::from_millis(150));
    }
    run_loop(&config, &killed, &["--resume"]);
    assert_eq!(rows_without_time(&killed), rows);
    assert_eq!(nets(&killed), nets(&whole));
}

#[test]
fn a_promoted_network_plays_the_next_generations_data_and_seeds_its_training() {
    let dir = scratch("promoted");
    // Generation 1 trains on a data run made before the loop (`champion.data`). The gate's
    // bounds are wide open below zero, so the mechanics of a promotion are tested whatever the
    // strength of a net trained on a few thousand positions (that is the clock test's job).
    let data = dir.join("before");
    let made = sparring(&[
        "datagen",
        "--games",
        "12",
        "--nodes",
        "800",
        "--seed",
        "9",
        "--out",
        text(&data),
        "--progress",
        "lines",
    ]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let data_file = data.join("data.viriformat");
    // The champion is a net as weak as the challengers (one trained by a first loop), so the
    // open bounds accept H1 at once.
    let first = dir.join("first");
    run_loop(
        &network_config(&dir, "", (0, 20)),
        &first,
        &["--generations", "1"],
    );
    let start = dir.join("start.bin");
    std::fs::copy(first.join("gen-001/challenger.net.bin"), &start).unwrap();
    let champion = format!(
        "net = {:?}\ndata = [{:?}]",
        start.display().to_string(),
        data_file.display().to_string()
    );
    let config = network_config(&dir, &champion, (-800, -700));
    let out = dir.join("out");
    let run = run_loop(&config, &out, &[]);
    assert!(
        run.stdout
            .contains("gen 1 datagen: not played: generation 1 trains on champion.data"),
        "{}",
        run.stdout
    );
    assert!(!out.join("gen-001/datagen").exists());
    // The starting champion came from elsewhere (no float weights beside it): generation 1
    // fine-tunes its quantised file, which the trainer dequantises.
    let train = std::fs::read_to_string(out.join("gen-001/train.toml")).unwrap();
    assert!(train.contains(&start.display().to_string()), "{train}");
    let rows = rows_without_time(&out);
    assert_eq!((rows[0].games, rows[0].positions), (0, 0));
    assert!(rows[0].tune_positions > 200, "{:?}", rows[0]);
    assert!(rows[0].promoted, "{:?}\n{}", rows[0], run.stdout);
    // The promoted net is the champion: it plays generation 2's data run and gate, and its
    // float weights start generation 2's training.
    let gen1_net = out.join("gen-001/challenger.net.bin");
    let datagen = std::fs::read_to_string(out.join("gen-002/datagen.toml")).unwrap();
    assert!(
        datagen.contains(&gen1_net.display().to_string()),
        "{datagen}"
    );
    let gate = std::fs::read_to_string(out.join("gen-002/gate.toml")).unwrap();
    assert!(gate.contains(&gen1_net.display().to_string()), "{gate}");
    let train = std::fs::read_to_string(out.join("gen-002/train.toml")).unwrap();
    assert!(train.contains("gen-001/challenger.raw.bin"), "{train}");
    assert!(train.contains(&data_file.display().to_string()), "{train}");
    let champion_net = std::fs::read(out.join("champion.net.bin")).unwrap();
    let last_promoted = if rows[1].promoted { 2 } else { 1 };
    let expected = out.join(format!("gen-00{last_promoted}/challenger.net.bin"));
    assert_eq!(champion_net, std::fs::read(expected).unwrap());
}

#[test]
fn bad_network_loop_configurations_are_status_2_naming_the_key() {
    let dir = scratch("errors");
    let config = network_config(&dir, "", (0, 20));
    let good = std::fs::read_to_string(&config).unwrap();
    let case = |name: &str, contents: String, needles: &[&str]| {
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, contents).unwrap();
        let out = dir.join(format!("{name}-out"));
        let run = sparring(&["loop", text(&path), "--out", text(&out)]);
        assert_bad_input(&run, needles);
        assert!(!out.exists(), "{name}: nothing is made for a refused run");
    };
    let (head, rest) = good.split_once("[datagen]\n").unwrap();
    let (_, tail) = rest.split_once("[train]\n").unwrap();
    case(
        "no-datagen",
        format!("{head}[train]\n{tail}"),
        &["datagen", "configs/datagen.toml"],
    );
    case(
        "selfplay",
        format!("{good}[selfplay.tournament]\nrounds = 2\n"),
        &["selfplay", "network loop"],
    );
    case(
        "seed-set",
        good.replace("games = 12\n", "games = 12\nseed = 3\n"),
        &["seed-set.toml:10:", "datagen.seed", "set by the loop"],
    );
    case(
        "bad-init",
        good.replace("init = \"champion\"", "init = \"best\""),
        &["bad-init.toml:21:", "train.init"],
    );
    case(
        "bad-hidden",
        good.replace("hidden = 16", "hidden = 0"),
        &["bad-hidden.toml:", "train.model.hidden"],
    );
    case(
        "bad-nodes",
        good.replace("nodes = 800\nrandom", "nodes = \"many\"\nrandom"),
        &["bad-nodes.toml:10:", "datagen.nodes"],
    );
    case(
        "net-in-texel-loop",
        good.replace("model = \"network\"\n", "")
            .replace("hash_mb = 2\n", "hash_mb = 2\nnet = \"x.bin\"\n"),
        &["champion.net", "model = \"network\""],
    );
    case(
        "missing-net",
        good.replace("hash_mb = 2\n", "hash_mb = 2\nnet = \"no-such.bin\"\n"),
        &["champion.net", "no-such.bin"],
    );
    case(
        "missing-data",
        good.replace(
            "hash_mb = 2\n",
            "hash_mb = 2\ndata = [\"no-such.viriformat\"]\n",
        ),
        &["champion.data", "no-such.viriformat"],
    );
    let staged = sparring(&[
        "loop",
        text(&config),
        "--out",
        text(&dir.join("staged")),
        "--staged",
    ]);
    assert_bad_input(&staged, &["--staged", "network loop"]);
}

/// A match of the built-in engine with a network against it with the hand-crafted evaluation,
/// from a TOML file and from a fastchess command line, and a damaged network refused.
#[test]
fn the_builtin_engine_plays_a_network_in_a_match() {
    let dir = scratch("match");
    let config = network_config(&dir, "", (0, 20));
    let out = dir.join("loop");
    run_loop(&config, &out, &["--generations", "1"]);
    let net = out.join("gen-001/challenger.net.bin");
    let toml = format!(
        r#"[tournament]
rounds = 2
concurrency = 1
seed = 3
[time_control]
nodes = 500
[output]
dir = {dir:?}
[[engine]]
name = "net"
builtin = {{ net = {net:?}, hash_mb = 2 }}
[[engine]]
name = "hce"
builtin = {{ hash_mb = 2 }}
"#,
        dir = dir.join("match").display().to_string(),
        net = net.display().to_string(),
    );
    let file = dir.join("match.toml");
    std::fs::write(&file, &toml).unwrap();
    let run = sparring(&["match", text(&file)]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let manifest = std::fs::read_to_string(dir.join("match/run.toml")).unwrap();
    assert!(
        manifest.contains("engine[0].builtin.net_hash"),
        "{manifest}"
    );

    let fastchess = sparring(&[
        "match",
        "-engine",
        "cmd=builtin",
        "name=net",
        &format!("option.EvalFile={}", net.display()),
        "-engine",
        "cmd=builtin",
        "name=hce",
        "-each",
        "nodes=500",
        "-rounds",
        "1",
        "-games",
        "2",
        "-pgnout",
        &format!("file={}", dir.join("fc.pgn").display()),
    ]);
    assert_eq!(
        fastchess.code, 0,
        "{}\n{}",
        fastchess.stdout, fastchess.stderr
    );

    let damaged = dir.join("damaged.bin");
    std::fs::write(&damaged, &std::fs::read(&net).unwrap()[..100]).unwrap();
    std::fs::write(
        &file,
        toml.replace(&net.display().to_string(), &damaged.display().to_string()),
    )
    .unwrap();
    std::fs::remove_dir_all(dir.join("match")).unwrap();
    let refused = sparring(&["match", text(&file)]);
    assert_bad_input(&refused, &["engine `net`", "damaged.bin"]);
}
