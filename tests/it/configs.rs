//! Every shipped configuration parses.

use sparring::arena::MatchConfig;

#[test]
fn shipped_match_configurations_parse() {
    // Every shipped configuration parses as what it is: a tune file, a loop (a `[champion]`
    // table), an SPSA run (a `[spsa]` table) or a match.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/configs");
    let (mut matches, mut spsa, mut loops) = (0, 0, 0);
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !path.extension().is_some_and(|e| e == "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if name == "tune.toml" {
            TuneConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
        } else if name == "train.toml" {
            sparring::train::TrainConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
        } else if text.lines().any(|l| l.trim() == "[champion]") {
            sparring::ladder::LoopConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            loops += 1;
        } else if text.lines().any(|l| l.trim() == "[datagen]") {
            let overrides = sparring::datagen::Overrides::default();
            sparring::datagen::DatagenConfig::load(Some(&path), &overrides)
                .unwrap_or_else(|e| panic!("{e}"));
        } else if text.lines().any(|l| l.trim() == "[spsa]") {
            sparring::spsa::SpsaConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            spsa += 1;
        } else {
            MatchConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            matches += 1;
        }
    }
    assert!(matches >= 5, "{matches} match configurations");
    assert!(spsa >= 1, "{spsa} SPSA configurations");
    assert!(loops >= 2, "{loops} loop configurations");
}

use sparring::arena::EngineKind;
use sparring::texel::TuneConfig;

/// A valid match configuration with `extra` spliced in after the `[tournament]` keys and
/// `engines` as the engine tables.
#[test]
fn the_variant_is_standard_chess960_or_fischerandom() {
    use sparring::arena::Variant;
    let parse = |t: &str| MatchConfig::parse(&match_config(t, ""), "my.toml");
    assert_eq!(parse("").unwrap().variant, Variant::Standard);
    assert_eq!(
        parse("variant = \"standard\"").unwrap().variant,
        Variant::Standard
    );
    for name in ["chess960", "fischerandom"] {
        let config = parse(&format!("variant = \"{name}\"")).unwrap();
        assert_eq!(config.variant, Variant::Chess960);
        // --dump-config writes it and reads back the same.
        let dumped = config.to_toml();
        assert!(dumped.contains("variant = \"chess960\""), "{dumped}");
        let mut again = MatchConfig::parse(&dumped, "my.toml").unwrap();
        again.source = config.source.clone();
        assert_eq!(again, config);
    }
    let error = parse("variant = \"atomic\"").unwrap_err().to_string();
    assert!(error.contains("tournament.variant"), "{error}");
}

fn match_config(tournament: &str, rest: &str) -> String {
    format!(
        "[tournament]\nrounds = 1\n{tournament}\n[time_control]\nnodes = 100\n{rest}\n\
         [output]\ndir = \"target/configs-test-out\"\n\
         [[engine]]\nname = \"a\"\nbuiltin = {{}}\n\
         [[engine]]\nname = \"b\"\nbuiltin = {{}}\n"
    )
}

fn match_error(text: &str) -> String {
    sparring::arena::MatchConfig::parse(text, "my.toml")
        .expect_err(text)
        .to_string()
}

#[test]
fn match_errors_give_file_line_column_key_and_expectation() {
    let cases = [
        (
            "[tournament]\nrounds = \"x\"\n",
            "my.toml:2:10: `tournament.rounds` is the string \"x\", expected an integer",
        ),
        (
            "[tournament]\nrounds = 0\n",
            "my.toml:2:10: `tournament.rounds` is the integer 0, expected an integer from 1 to 100000000",
        ),
        (
            "[tournament]\nkind = \"swiss\"\n",
            "my.toml:2:8: `tournament.kind` is the string \"swiss\", expected one of \"gauntlet\", \"round-robin\"",
        ),
        (
            "[tournament]\nfrobnicate = 1\n",
            "my.toml:2:1: unknown key `tournament.frobnicate` (expected one of `tournament.kind`, `tournament.rounds`,",
        ),
        (
            "[tournament]\n[time_control]\nnodes = 1\ndepth = 2\n",
            "my.toml:2:1: `time_control` is a table with 2 of them, expected exactly one of nodes, depth, movetime_ms, clock",
        ),
        (
            "[tournament]\n[time_control]\nclock = \"fast\"\n",
            "my.toml:3:9: `time_control.clock` is the string \"fast\", expected \"base+increment\"",
        ),
        (
            "[tournament]\n[time_control]\nnodes = 1\n[output]\ndir = \"x\"\n[[engine]]\nname = \"a\"\n",
            "my.toml:6:1: `engine[0].builtin` is a table with both or neither, expected exactly one of",
        ),
        (
            "[tournament]\n[time_control]\nnodes = 1\n[output]\n",
            "my.toml:4:1: missing key `output.dir` (expected the output directory)",
        ),
        ("[tournament]\n", "my.toml:1:1: missing key `time_control`"),
        ("tournament = 5\n", "my.toml:1:14: `tournament` is the integer 5, expected a table"),
        ("[tournament\n", "my.toml:1:12: TOML syntax error"),
    ];
    for (text, expected) in cases {
        let err = match_error(text);
        assert!(err.starts_with(expected), "{err}\n(wanted {expected})");
    }
}

/// Regression (issue 10): an option holding a newline injected a UCI command into the engine.
#[test]
fn engine_options_with_control_characters_are_refused() {
    let uci = |options: &str| {
        format!(
            "[tournament]\n[time_control]\nnodes = 1\n[output]\ndir = \"x\"\n\
             [[engine]]\nname = \"ext\"\nuci = {{ command = \"engine\", options = {{ {options} }} }}\n\
             [[engine]]\nname = \"b\"\nbuiltin = {{}}\n"
        )
    };
    let err = match_error(&uci("Hash = \"16\\nquit\""));
    assert!(
        err.starts_with("my.toml:8:48: `engine[0].uci.options.Hash` is the string \"16\\nquit\", expected a value without control characters"),
        "{err}"
    );
    let err = match_error(&uci("\"Bad\\rName\" = 1"));
    assert!(
        err.contains("`engine[0].uci.options.Bad\rName` is the name \"Bad\\rName\", expected an option name without control characters"),
        "{err}"
    );
    let err = match_error(&uci("Hash = [1]"));
    assert!(
        err.contains("is an array of 1 entries, expected a string, number or boolean"),
        "{err}"
    );
    // Ordinary options, with spaces in names, still load (sorted by name).
    let config = sparring::arena::MatchConfig::parse(
        &uci("Threads = 1, \"Move Overhead\" = 10, Ponder = false"),
        "my.toml",
    )
    .unwrap();
    let EngineKind::Uci { options, .. } = &config.engines[0].kind else {
        panic!("a UCI engine");
    };
    let names: Vec<&str> = options.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Move Overhead", "Ponder", "Threads"]);
}

#[test]
fn engine_names_may_hold_spaces_but_no_control_characters() {
    let named = |name: &str| {
        format!(
            "[tournament]\n[time_control]\nnodes = 1\n[output]\ndir = \"x\"\n\
             [[engine]]\nname = {name}\nbuiltin = {{}}\n[[engine]]\nname = \"b\"\nbuiltin = {{}}\n"
        )
    };
    let config =
        sparring::arena::MatchConfig::parse(&named("\"Stock fish 16\""), "my.toml").unwrap();
    assert_eq!(config.engines[0].name, "Stock fish 16");
    let err = match_error(&named("\"a\\u0007b\""));
    assert!(
        err.starts_with("my.toml:7:8: `engine[0].name` is the string \"a\\u{7}b\", expected a non-blank name without control characters"),
        "{err}"
    );
    let err = match_error(&named("\"  \""));
    assert!(err.contains("`engine[0].name`"), "{err}");
    let err = match_error(&named("\"b\""));
    assert!(err.contains("expected a name no other engine has"), "{err}");
}

/// Regression (issue 10): thread counts beyond the machine stalled it.
#[test]
fn concurrency_is_bounded_by_the_machine() {
    let cores = std::thread::available_parallelism().unwrap().get();
    let err = match_error(&match_config(&format!("concurrency = {}", cores + 1), ""));
    assert!(
        err.starts_with(&format!(
            "my.toml:3:15: `tournament.concurrency` is the integer {}, expected an integer from 1 to {cores} (the threads this machine runs at once)",
            cores + 1
        )),
        "{err}"
    );
    let config = sparring::arena::MatchConfig::parse(
        &match_config(&format!("concurrency = {cores}"), ""),
        "m",
    )
    .unwrap();
    assert_eq!(config.concurrency, cores);
    let err = match_error(&match_config("concurrency = 0", ""));
    assert!(
        err.contains("`tournament.concurrency` is the integer 0"),
        "{err}"
    );
}

#[test]
fn max_restarts_defaults_to_three() {
    let config = sparring::arena::MatchConfig::parse(&match_config("", ""), "m").unwrap();
    assert_eq!(config.max_restarts, 3);
    let config =
        sparring::arena::MatchConfig::parse(&match_config("max_restarts = 1", ""), "m").unwrap();
    assert_eq!(config.max_restarts, 1);
    let err = match_error(&match_config("max_restarts = 0", ""));
    assert!(err.contains("`tournament.max_restarts`"), "{err}");
    let err = match_error(&match_config("max_restarts = -1", ""));
    assert!(
        err.contains("`tournament.max_restarts` is the integer -1"),
        "{err}"
    );
}

/// Regression (issue 10): every SPRT bound error named `sprt.elo0`.
#[test]
fn sprt_bound_errors_name_their_key() {
    let cases = [
        (
            "elo0 = 5\nelo1 = 5",
            "my.toml:8:8: `sprt.elo1` is 5, expected a finite number greater than elo0 (5)",
        ),
        (
            "elo0 = nan",
            "my.toml:7:8: `sprt.elo0` is NaN, expected a finite number",
        ),
        (
            "alpha = 0",
            "my.toml:7:9: `sprt.alpha` is 0, expected an error rate above 0 and below 0.5",
        ),
        (
            "beta = 1.5",
            "my.toml:7:8: `sprt.beta` is 1.5, expected an error rate above 0 and below 0.5",
        ),
        (
            "beta = 0.5",
            "my.toml:7:8: `sprt.beta` is 0.5, expected an error rate above 0 and below 0.5",
        ),
        (
            "model = \"elo\"",
            "my.toml:7:9: `sprt.model` is the string \"elo\", expected \"normalized\"",
        ),
    ];
    for (sprt, expected) in cases {
        let err = match_error(&match_config("", &format!("[sprt]\n{sprt}\n")));
        assert!(err.starts_with(expected), "{err}\n(wanted {expected})");
    }
    let config =
        sparring::arena::MatchConfig::parse(&match_config("", "[sprt]\nelo1 = 10\n"), "m").unwrap();
    assert_eq!(config.sprt.unwrap().elo1(), 10.0);
}

/// Regression (issue 10): an output.dir naming a file failed late with an I/O error.
#[test]
fn output_dir_that_is_a_file_is_refused() {
    let text = "[tournament]\n[time_control]\nnodes = 1\n[output]\ndir = \"Cargo.toml\"\n";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let err = match_error(&text.replace("Cargo.toml", path));
    assert_eq!(
        err,
        format!("my.toml:5:7: `output.dir`: {path} is a file, not a directory")
    );
    let tune = format!("[data]\nfiles = [\"a.epd\"]\n[output]\ndir = \"{path}\"\n");
    let err = TuneConfig::from_toml_str(&tune, "t.toml")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!("t.toml:4:7: `output.dir`: {path} is a file, not a directory")
    );
}

fn tune_error(text: &str) -> String {
    let text = format!("[data]\nfiles = [\"a.epd\"]\n{text}");
    TuneConfig::from_toml_str(&text, "t.toml")
        .expect_err(&text)
        .to_string()
}

/// Regression (issue 10): `optimizer.threads = 100000` spawned threads until the machine stalled.
#[test]
fn tuner_threads_are_bounded_by_the_machine() {
    let cores = std::thread::available_parallelism().unwrap().get();
    let err = tune_error(&format!("[optimizer]\nthreads = {}\n", cores + 1));
    assert_eq!(
        err,
        format!(
            "t.toml:4:11: `optimizer.threads` is the integer {}, expected 0 (one per core) or an integer up to {cores} (the threads this machine runs at once)",
            cores + 1
        )
    );
    for threads in [0, cores] {
        let text = format!("[data]\nfiles = [\"a\"]\n[optimizer]\nthreads = {threads}\n");
        let config = TuneConfig::from_toml_str(&text, "t").unwrap();
        assert_eq!(config.optimizer.threads, threads);
    }
}

/// Regression (issue 10): a validation fraction of 1 left nothing to train on.
#[test]
fn validation_fraction_that_leaves_no_training_data_says_so() {
    for fraction in ["1.0", "1", "2.5"] {
        let err = tune_error(&format!("validation_fraction = {fraction}\n"));
        assert!(
            err.starts_with("t.toml:3:23: `data.validation_fraction` is ")
                && err.contains("which leaves no training data"),
            "{err}"
        );
    }
    let err = tune_error("validation_fraction = -0.1\n");
    assert!(!err.contains("training data"), "{err}");
}

#[test]
fn tune_errors_give_line_and_column() {
    assert_eq!(
        tune_error("[optimizer]\nepochs = \"many\"\n"),
        "t.toml:4:10: `optimizer.epochs` is the string \"many\", expected a non-negative integer"
    );
    assert_eq!(
        tune_error("[model]\ntune = [\"pst\", \"pst\"]\n"),
        "t.toml:4:16: `model.tune[1]` is a second \"pst\", expected each group at most once"
    );
    assert!(tune_error("[dta]\nx = 1\n").starts_with(
        "t.toml:3:2: unknown key `dta` (expected one of `data`, `model`, `optimizer`, `output`, `engine`)"
    ));
}

/// SplitMix64: deterministic mutations without a dependency.
struct Mutator(u64);

impl Mutator {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// A char boundary of `text`, uniformly among bytes then moved back to a boundary.
    fn boundary(&mut self, text: &str) -> usize {
        let mut i = self.below(text.len() + 1);
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    }

    /// `text` with one random edit: a cut, a deletion, an inserted TOML-ish fragment, or a
    /// repeated line.
    fn mutate(&mut self, text: &str) -> String {
        const SNIPPETS: [&str; 16] = [
            "=",
            "[",
            "]",
            "\"",
            "\n",
            "[[engine]]\n",
            "x = 1\n",
            "1e999",
            "-",
            "{",
            "}",
            ",",
            "nan",
            "\u{7}",
            "é",
            "9223372036854775807",
        ];
        let at = self.boundary(text);
        match self.below(4) {
            0 => text[..at].to_string(),
            1 => {
                let end = self.boundary(&text[at..]) + at;
                format!("{}{}", &text[..at], &text[end..])
            }
            2 => {
                let snippet = SNIPPETS[self.below(SNIPPETS.len())];
                format!("{}{snippet}{}", &text[..at], &text[at..])
            }
            _ => {
                let lines: Vec<&str> = text.lines().collect();
                let i = self.below(lines.len());
                let mut out: Vec<&str> = lines.clone();
                if let Some(line) = lines.get(i) {
                    out.insert(i, line);
                }
                out.join("\n")
            }
        }
    }
}

/// `message` starts with `file:line:column: ` (both numbers at least 1).
fn has_position(message: &str, file: &str) -> bool {
    let Some(rest) = message.strip_prefix(file).and_then(|r| r.strip_prefix(':')) else {
        return false;
    };
    let mut parts = rest.splitn(3, ':');
    let number = |p: Option<&str>| {
        p.and_then(|p| p.parse::<usize>().ok())
            .is_some_and(|n| n >= 1)
    };
    number(parts.next()) && number(parts.next())
}

/// Mutated shipped files never make a reader panic, and every error they give has a position.
#[test]
fn mutated_files_give_positioned_errors_and_never_panic() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut cases = 0;
    let mut errors = 0;
    let mut rng = Mutator(0x5EED_C0F1);
    let mut inputs: Vec<(String, &str)> = Vec::new();
    for entry in std::fs::read_dir(format!("{root}/configs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let kind = if path.ends_with("tune.toml") {
                "tune"
            } else if path.ends_with("train.toml") {
                "train"
            } else {
                "match"
            };
            inputs.push((std::fs::read_to_string(&path).unwrap(), kind));
        }
    }
    for name in ["default", "handset", "material-only"] {
        let path = format!("{root}/configs/weights/{name}.toml");
        inputs.push((std::fs::read_to_string(path).unwrap(), "weights"));
    }
    for (text, kind) in &inputs {
        let rounds = if *kind == "weights" { 60 } else { 150 };
        for _ in 0..rounds {
            let mut mutated = rng.mutate(text);
            if rng.below(3) == 0 {
                mutated = rng.mutate(&mutated);
            }
            let result = match *kind {
                "match" => sparring::arena::MatchConfig::parse(&mutated, "m.toml")
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                "tune" => TuneConfig::from_toml_str(&mutated, "m.toml")
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                "train" => sparring::train::TrainConfig::from_toml_str(&mutated, "m.toml")
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                _ => sparring::eval::EvalParams::from_toml_str(&mutated, "m.toml")
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
            };
            cases += 1;
            if let Err(message) = result {
                errors += 1;
                assert!(
                    has_position(&message, "m.toml"),
                    "{message}\n--- from:\n{mutated}"
                );
            }
        }
    }
    assert!(
        cases >= 1000 && errors > cases / 3,
        "{cases} cases, {errors} errors"
    );
}

/// The TOML form of what the fastchess command line has: `[each]` defaults under every engine's
/// own values, per-engine time controls (the match-wide table may then be left out), the PGN
/// name, engine log, results format, pentanomial switch, site, strict options and 64-bit seeds.
#[test]
fn each_table_and_per_engine_limits_fill_the_engines() {
    use sparring::arena::{ResultsFormat, TimeControl};
    use std::time::Duration;
    let text =
        "[tournament]\nseed = \"18446744073709551615\"\nsite = \"lab\"\nstrict_options = true\n\
                [each]\ntime_control = { clock = \"40/12.5+0.125\" }\n\
                uci = { options = { Hash = 8, Threads = 1 }, working_dir = \"engines\" }\n\
                builtin = { hash_mb = 4 }\n\
                [output]\ndir = \"target/configs-test-out\"\npgn_name = \"run.pgn\"\n\
                engine_log = \"engines.log\"\nformat = \"cutechess\"\nreport_penta = false\n\
                [[engine]]\nname = \"a\"\nbuiltin = {}\n\
                [[engine]]\nname = \"b\"\ntime_control = { nodes = 500 }\n\
                uci = { command = \"x\", options = { Hash = 64 } }\n";
    let c = MatchConfig::parse(text, "my.toml").unwrap();
    let clock = TimeControl::Clock {
        moves: Some(40),
        base: Duration::from_millis(12_500),
        increment: Duration::from_millis(125),
    };
    // No [time_control]: the first engine's limit stands for the match.
    assert_eq!(c.time_control, clock);
    assert_eq!(c.engines[0].time_control, Some(clock));
    assert_eq!(c.engines[1].time_control, Some(TimeControl::Nodes(500)));
    assert_eq!(
        c.engines[0].kind,
        EngineKind::Builtin {
            weights: None,
            net: None,
            hash_mb: 4,
            search: None,
            syzygy: None,
        }
    );
    let EngineKind::Uci {
        options,
        working_dir,
        ..
    } = &c.engines[1].kind
    else {
        panic!("a UCI engine")
    };
    assert_eq!(
        options,
        &vec![
            ("Hash".to_string(), "64".to_string()),
            ("Threads".to_string(), "1".to_string())
        ]
    );
    assert_eq!(
        working_dir.as_deref(),
        Some(std::path::Path::new("engines"))
    );
    assert_eq!(c.seed, u64::MAX);
    assert_eq!(c.site, "lab");
    assert!(c.strict_options);
    assert_eq!(c.output.pgn_name, "run.pgn");
    assert_eq!(
        c.output.engine_log.as_deref(),
        Some(std::path::Path::new("engines.log"))
    );
    assert_eq!(c.output.format, ResultsFormat::Cutechess);
    assert!(!c.output.report_penta);
    // The dump reads back as the same configuration.
    let mut again = MatchConfig::parse(&c.to_toml(), "again.toml").unwrap();
    again.source = c.source.clone();
    assert_eq!(again, c);
}

#[test]
fn each_and_per_engine_limit_errors_name_their_key() {
    let engines = "[output]\ndir = \"target/configs-test-out\"\n\
                   [[engine]]\nname = \"a\"\nbuiltin = {}\n\
                   [[engine]]\nname = \"b\"\nbuiltin = {}\n";
    let err = match_error(&format!(
        "[tournament]\n[each]\ntime_control = {{ nodes = 0 }}\n{engines}"
    ));
    assert!(err.contains("`each.time_control.nodes`"), "{err}");
    let err = match_error(&format!(
        "[tournament]\n[time_control]\nnodes = 5\n[each]\ntime_control = {{ nodes = 1, depth = 2 }}\n{engines}"
    ));
    assert!(
        err.contains("`each.time_control`") && err.contains("exactly one"),
        "{err}"
    );
    // Without [time_control] every engine needs a limit of its own.
    let err = match_error(&format!("[tournament]\n{engines}"));
    assert!(err.contains("`time_control`"), "{err}");
    let err = match_error(&match_config("seed = \"-3\"", ""));
    assert!(err.contains("`tournament.seed`"), "{err}");
    let err =
        match_error(&match_config("", "").replace("[output]\n", "[output]\nformat = \"xml\"\n"));
    assert!(err.contains("output.format"), "{err}");
}

use crate::common::config as config_file;

/// Every setter of the tests' configuration builder (tests/common/config.rs) writes a key the
/// match file has: the runner refuses unknown keys, so each configuration here parses, and the
/// values arrive where the builder says.
#[test]
fn the_test_configuration_builder_writes_only_keys_the_match_file_has() {
    use config_file::{balanced_book, weights, Engine, MatchToml, Tablebase};
    use sparring::arena::{EngineKind, TimeControl};
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("configs-builder");
    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/syzygy");
    let full = MatchToml::gauntlet()
        .rounds(3)
        .concurrency(1)
        .seed(9)
        .timeout_ms(4000)
        .max_restarts(2)
        .variant("standard")
        .strict_options(true)
        .single_last_game(false)
        .seeds(1)
        .reverse_sides(false)
        .event("builder")
        .depth(4)
        .movetime_ms(50)
        .clock("10+0.1")
        .margin_ms(20)
        .nodes(500)
        .openings(balanced_book())
        .openings_format("epd")
        .openings_order("sequential")
        .openings_plies(6)
        .openings_start(2)
        .random_plies_per_game(2)
        .max_moves(40)
        .resign(3, 600)
        .draw(30, 6, 10)
        .tablebase(
            Tablebase::at(tables)
                .pieces(3)
                .results("both")
                .ignore_50(false),
        )
        .sprt(0.0, 10.0)
        .sprt_errors(0.1, 0.1)
        .out(&dir)
        .positions(true)
        .positions_per_game(5)
        .positions_format("both")
        .pgn_name("all.pgn")
        .engine_log(dir.join("engines.log"))
        .report_penta(false)
        .engine(
            Engine::builtin("own")
                .weights(weights("material-only.toml"))
                .hash_mb(2)
                .search(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/configs/search/default.toml"
                ))
                .syzygy(tables)
                .syzygy_probe_limit(3)
                .depth(3)
                .movetime_ms(40)
                .clock("5+0.05")
                .nodes(700)
                .restart(true),
        )
        .engine(
            Engine::uci("external", "/usr/bin/true")
                .args(&["--flag"])
                .option("Hash", 16)
                .option("Style", "solid")
                .working_dir(env!("CARGO_MANIFEST_DIR"))
                .protocol("uci"),
        );
    let config = full.parse();
    assert_eq!(config.rounds, 3);
    assert_eq!(
        config.time_control,
        TimeControl::Nodes(500),
        "the last limit set"
    );
    assert_eq!(
        config.engines[0].time_control,
        Some(TimeControl::Nodes(700))
    );
    assert!(matches!(
        &config.engines[0].kind,
        EngineKind::Builtin {
            hash_mb: 2,
            syzygy: Some(_),
            ..
        }
    ));
    assert_eq!(config.output.pgn_name, "all.pgn");
    assert!(!config.output.report_penta);
    // The text names every table it set.
    let text = full.text();
    for key in [
        "[tournament]",
        "[time_control]",
        "[openings]",
        "[adjudication]",
        "[sprt]",
    ] {
        assert!(text.contains(key), "{key} in\n{text}");
    }
    assert_eq!(text.matches("[[engine]]").count(), 2, "{text}");
    // A round robin with one other limit and no optional table parses too.
    for limit in [
        MatchToml::round_robin().depth(2),
        MatchToml::round_robin().movetime_ms(30),
        MatchToml::round_robin().clock("40/2+0.05"),
    ] {
        limit
            .out(&dir)
            .engine(Engine::builtin("a"))
            .engine(Engine::builtin("b"))
            .parse();
    }
}
