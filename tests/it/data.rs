//! Training-data formats and `sparring data`: each writer against the notes' byte layouts and
//! the reference crates (viriformat, bulletformat) reading what we write, round trips between
//! formats, Chess960 castling through viriformat, shuffle and interleave, damaged files.

use crate::common::binary::{assert_bad_input, scratch_in, sparring, text};
use sparring::board::{GameResult, Position};
use sparring::data::{game_writer, DataFormat, DataGame, DataReader, Record, Sample, Samples};
use sparring::rng::Rng;
use sparring::score::Score;
use std::path::{Path, PathBuf};

/// A game from `fen` through UCI moves (either castling form), each with its White-relative score.
fn game(fen: &str, moves: &[(&str, Score)], result: GameResult) -> DataGame {
    let start = Position::from_fen(fen).unwrap();
    let mut pos = start.clone();
    let moves = moves
        .iter()
        .map(|&(uci, score)| {
            let mv = pos.parse_uci_move(uci).unwrap();
            pos.make_move(mv);
            (mv, score)
        })
        .collect();
    DataGame {
        start,
        moves,
        result,
    }
}

/// The notes' README game: 1.e4 +10 e5 +20 2.Qh5 −30 Ke7 +32767 3.Qxe5# +32767, White wins.
pub(crate) fn readme_game() -> DataGame {
    let moves = [
        ("e2e4", Score::Cp(10)),
        ("e7e5", Score::Cp(20)),
        ("d1h5", Score::Cp(-30)),
        ("e8e7", Score::Cp(32767)),
        ("h5e5", Score::Cp(32767)),
    ];
    game(Position::START_FEN, &moves, GameResult::WhiteWins)
}

/// A game with captures, en passant, both castlings, a promotion and a mate score.
pub(crate) fn busy_game() -> DataGame {
    let ucis = [
        "e2e4", "d7d5", "e4e5", "f7f5", "e5f6", "g8f6", "g1f3", "c8g4", "f1e2", "b8c6", "e1g1",
        "d8d6", "d2d4", "e8c8", "b1c3", "g7g5", "c1g5", "h7h5", "g5f6", "e7f6", "a2a4", "h5h4",
        "a4a5", "h4h3", "a5a6", "h3g2", "a6b7", "c8b8", "d1d3", "g2f1q",
    ];
    let moves: Vec<(&str, Score)> = ucis
        .iter()
        .enumerate()
        .map(|(i, &uci)| (uci, Score::Cp(i as i32 * 37 - 400)))
        .chain([("g1f1", Score::Mate(-3))])
        .collect();
    game(Position::START_FEN, &moves, GameResult::BlackWins)
}

/// A Chess960 game (rooks on b and g): both sides castle, written as king takes rook.
pub(crate) fn chess960_game() -> DataGame {
    let moves = [
        ("e1g1", Score::Cp(5)),
        ("e8b8", Score::Cp(-7)),
        ("a2a4", Score::Cp(120)),
        ("h7h5", Score::Cp(80)),
    ];
    game(
        "1r2k1r1/pp3ppp/8/8/8/8/PP3PPP/1R2K1R1 w GBgb - 0 1",
        &moves,
        GameResult::Draw,
    )
}

fn write(dir: &Path, name: &str, format: DataFormat, games: &[DataGame]) -> PathBuf {
    let path = dir.join(name);
    let mut writer = game_writer(format, std::fs::File::create(&path).unwrap());
    for g in games {
        writer.write_game(g).unwrap();
    }
    writer.flush().unwrap();
    path
}

fn samples(path: &Path) -> Vec<Sample> {
    let mut samples = Samples::new(DataReader::open(path, None).unwrap());
    std::iter::from_fn(|| samples.next_sample().unwrap()).collect()
}

fn hex(bytes: &str) -> Vec<u8> {
    bytes
        .split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

fn viriformat_games(path: &Path) -> Vec<viriformat::dataformat::Game> {
    let bytes = std::fs::read(path).unwrap();
    let mut input = std::io::BufReader::new(&bytes[..]);
    let mut games = Vec::new();
    while !input.buffer().is_empty() || games.is_empty() {
        games.push(viriformat::dataformat::Game::deserialise_from(&mut input, Vec::new()).unwrap());
        if std::io::BufRead::fill_buf(&mut input).unwrap().is_empty() {
            break;
        }
    }
    games
}

#[test]
fn viriformat_writes_the_notes_readme_game_byte_for_byte_and_viriformat_reads_it() {
    let dir = scratch_in("data", "readme");
    let path = write(
        &dir,
        "g.viriformat",
        DataFormat::Viriformat,
        &[readme_game()],
    );
    let expected = hex(
        "ff ff 00 00 00 00 ff ff 16 42 25 61 00 00 00 00 88 88 88 88 9e ca ad e9 40 00 01 00 00 00 02 00
         0c 07 0a 00 34 09 14 00 c3 09 e2 ff 3c 0d ff 7f 27 09 ff 7f 00 00 00 00",
    );
    assert_eq!(std::fs::read(&path).unwrap(), expected);
    let games = viriformat_games(&path);
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].len(), 5);
    assert!(matches!(
        games[0].outcome(),
        viriformat::dataformat::WDL::Win
    ));
    let mut theirs = Vec::new();
    games[0].visit_positions(|board, eval| theirs.push((board.to_string(), eval)));
    let ours: Vec<(String, i32)> = samples(&path)
        .iter()
        .map(|s| (s.data.position.to_fen(), i32::from(s.data.white_score)))
        .collect();
    assert_eq!(ours.len(), theirs.len());
    for ((our_fen, our_eval), (their_fen, their_eval)) in ours.iter().zip(&theirs) {
        let fields = |fen: &str| fen.split(' ').take(2).collect::<Vec<_>>().join(" ");
        assert_eq!((fields(our_fen), our_eval), (fields(their_fen), their_eval));
    }
}

#[test]
fn marlinformat_and_bulletformat_match_viriformats_own_splats() {
    let dir = scratch_in("data", "splats");
    let games = [busy_game(), readme_game(), chess960_game()];
    let viri = write(&dir, "g.viriformat", DataFormat::Viriformat, &games);
    let marlin = write(&dir, "g.marlinformat", DataFormat::Marlinformat, &games);
    let bullet = write(&dir, "g.bulletformat", DataFormat::Bulletformat, &games);
    let (mut their_marlin, mut their_bullet) = (Vec::new(), Vec::new());
    let unrestricted = viriformat::dataformat::Filter::UNRESTRICTED;
    for g in viriformat_games(&viri) {
        g.splat_to_marlinformat(
            |b| {
                their_marlin.extend_from_slice(&b.as_bytes());
                Ok(())
            },
            &unrestricted,
        )
        .unwrap();
        let push = |b: bulletformat::ChessBoard| {
            their_bullet.extend_from_slice(
                <bulletformat::ChessBoard as bulletformat::BulletFormat>::as_bytes_slice(&[b]),
            );
            Ok(())
        };
        g.splat_to_bulletformat(push, &unrestricted).unwrap();
    }
    let positions: usize = games.iter().map(|g| g.moves.len()).sum();
    assert_eq!(their_marlin.len(), 32 * positions);
    assert_eq!(
        std::fs::read(&marlin).unwrap(),
        their_marlin,
        "marlinformat"
    );
    assert_eq!(
        std::fs::read(&bullet).unwrap(),
        their_bullet,
        "bulletformat"
    );
}

#[test]
fn text_lines_parse_in_bulletformat_to_our_bulletformat_records() {
    let dir = scratch_in("data", "text");
    let games = [busy_game()];
    let txt = write(&dir, "g.txt", DataFormat::Text, &games);
    let bullet = write(&dir, "g.bulletformat", DataFormat::Bulletformat, &games);
    let mut theirs = Vec::new();
    for line in std::fs::read_to_string(&txt).unwrap().lines() {
        let board: bulletformat::ChessBoard = line.parse().unwrap();
        theirs.extend_from_slice(
            <bulletformat::ChessBoard as bulletformat::BulletFormat>::as_bytes_slice(&[board]),
        );
    }
    assert_eq!(std::fs::read(&bullet).unwrap(), theirs);
    let first = std::fs::read_to_string(&txt).unwrap();
    assert!(first
        .starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | -400 | 0.0\n"));
    // Mate in 3 for Black, 6 plies: −(32000 − 6), the one mate convention.
    assert!(first.trim_end().ends_with("| -31994 | 0.0"), "{first}");
    // The README game's +32767 is beyond the text reader's ±32000: written as 32000.
    let readme = write(&dir, "r.txt", DataFormat::Text, &[readme_game()]);
    let readme = std::fs::read_to_string(readme).unwrap();
    assert!(readme.trim_end().ends_with("| 32000 | 1.0"), "{readme}");
}

#[test]
fn a_chess960_game_castles_through_viriformat_and_reads_back() {
    let dir = scratch_in("data", "chess960");
    let original = chess960_game();
    let path = write(
        &dir,
        "g.viriformat",
        DataFormat::Viriformat,
        std::slice::from_ref(&original),
    );
    let bytes = std::fs::read(&path).unwrap();
    // e1 takes its g1 rook: 4 | 6 << 6 | castling; e8 takes b8: 60 | 57 << 6 | castling.
    assert_eq!(&bytes[32..34], &(4u16 | 6 << 6 | 0x8000).to_le_bytes());
    assert_eq!(&bytes[36..38], &(60u16 | 57 << 6 | 0x8000).to_le_bytes());
    let mut reader = DataReader::open(&path, None).unwrap();
    let Some(Record::Game(game)) = reader.next_record().unwrap() else {
        panic!("a game")
    };
    assert_eq!(game.start, original.start);
    assert_eq!(game.result, original.result);
    let moves: Vec<_> = game.moves.iter().map(|m| m.0).collect();
    let expected: Vec<_> = original.moves.iter().map(|m| m.0).collect();
    assert_eq!(moves, expected);
    assert!(moves[0].is_castle() && moves[1].is_castle());
    // viriformat (debug build: checks every move's legality) reads it too.
    assert_eq!(viriformat_games(&path)[0].len(), 4);
}

#[test]
fn conversions_keep_positions_scores_and_results() {
    let dir = scratch_in("data", "round_trips");
    // (Not the README game: its +32767 becomes +32000 in text, the text reader's limit.)
    let games = [busy_game(), chess960_game()];
    let viri = write(&dir, "g.viriformat", DataFormat::Viriformat, &games);
    let marlin = write(
        &dir,
        "direct.marlinformat",
        DataFormat::Marlinformat,
        &games,
    );
    let bullet = write(
        &dir,
        "direct.bulletformat",
        DataFormat::Bulletformat,
        &games,
    );
    let convert = |input: &Path, to: &str, out: &str| {
        let out = dir.join(out);
        let run = sparring(&["data", "convert", text(input), "--to", to, "-o", text(&out)]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        out
    };
    let m = convert(&viri, "marlinformat", "m.marlinformat");
    let t = convert(&m, "text", "t.txt");
    let m2 = convert(&t, "marlinformat", "m2.marlinformat");
    let b = convert(&m2, "bulletformat", "b.bulletformat");
    let v2 = convert(&viri, "viriformat", "v2.viriformat");
    assert_eq!(std::fs::read(&m).unwrap(), std::fs::read(&marlin).unwrap());
    assert_eq!(
        std::fs::read(&m2).unwrap(),
        std::fs::read(&marlin).unwrap(),
        "through text"
    );
    assert_eq!(std::fs::read(&b).unwrap(), std::fs::read(&bullet).unwrap());
    assert_eq!(std::fs::read(&v2).unwrap(), std::fs::read(&viri).unwrap());
    let key = |s: &Sample| (s.data.position.to_fen(), s.data.white_score, s.data.result);
    let from_viri: Vec<_> = samples(&viri).iter().map(key).collect();
    assert_eq!(samples(&t).iter().map(key).collect::<Vec<_>>(), from_viri);
    assert_eq!(
        from_viri.len(),
        games.iter().map(|g| g.moves.len()).sum::<usize>()
    );
    let run = sparring(&[
        "data",
        "convert",
        text(&m),
        "--to",
        "viriformat",
        "-o",
        text(&dir.join("x")),
    ]);
    assert_bad_input(&run, &["marlinformat holds positions, not games"]);
}

#[test]
fn convert_filters_drop_what_they_name() {
    let dir = scratch_in("data", "filters");
    let viri = write(
        &dir,
        "g.viriformat",
        DataFormat::Viriformat,
        &[busy_game(), chess960_game()],
    );
    let out = dir.join("f.txt");
    let run = sparring(&[
        "data",
        "convert",
        text(&viri),
        "--to",
        "text",
        "-o",
        text(&out),
        "--min-ply",
        "4",
        "--filter-tactical",
        "--filter-castling",
        "--max-eval",
        "31339",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("read 35\n"), "{}", run.stdout);
    assert!(
        run.stdout.contains("dropped by min-ply 8\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("dropped by filter-castling"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("dropped by max-eval 1\n"),
        "{}",
        run.stdout
    );
    for sample in samples(&out) {
        let pos = &sample.data.position;
        assert!(pos.fullmove_number() >= 3);
        assert!(sample.data.white_score.unsigned_abs() < 31339);
    }
    let run = sparring(&[
        "data",
        "convert",
        text(&out),
        "--to",
        "marlinformat",
        "-o",
        text(&dir.join("m")),
        "--filter-tactical",
    ]);
    assert_bad_input(&run, &["--filter-tactical needs the move played", "f.txt"]);
}

fn records(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.chunks(32).collect()
}

#[test]
fn shuffle_is_a_permutation_fixed_by_the_seed_in_memory_and_in_buckets() {
    let dir = scratch_in("data", "shuffle");
    // 700 games × 31 positions × 32 bytes ≈ 0.66 MiB: two buckets under --memory-mb 1.
    let games: Vec<DataGame> = (0..700).map(|_| busy_game()).collect();
    let marlin = write(&dir, "g.marlinformat", DataFormat::Marlinformat, &games);
    let txt = write(&dir, "g.txt", DataFormat::Text, &games[..3]);
    let shuffle = |input: &Path, out: &str, seed: &str| {
        let out = dir.join(out);
        let args = [
            "data",
            "shuffle",
            text(input),
            "-o",
            text(&out),
            "--seed",
            seed,
            "--memory-mb",
            "1",
        ];
        let run = sparring(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        std::fs::read(out).unwrap()
    };
    let original = std::fs::read(&marlin).unwrap();
    let a = shuffle(&marlin, "a.marlinformat", "7");
    let again = shuffle(&marlin, "b.marlinformat", "7");
    let other = shuffle(&marlin, "c.marlinformat", "8");
    assert_eq!(a, again, "the seed fixes the order");
    assert_ne!(a, other);
    assert_ne!(a, original);
    let sorted = |bytes: &[u8]| {
        let mut r: Vec<Vec<u8>> = records(bytes).iter().map(|r| r.to_vec()).collect();
        r.sort();
        r
    };
    assert_eq!(sorted(&a), sorted(&original), "a permutation");
    let t = shuffle(&txt, "t.txt", "3");
    let lines = |bytes: &[u8]| {
        let mut l: Vec<String> = String::from_utf8(bytes.to_vec())
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        l.sort();
        l
    };
    assert_eq!(lines(&t), lines(&std::fs::read(&txt).unwrap()));
    let viri = write(&dir, "g.viriformat", DataFormat::Viriformat, &games[..1]);
    let run = sparring(&["data", "shuffle", text(&viri), "-o", text(&dir.join("v"))]);
    assert_bad_input(&run, &["shuffle needs a position format"]);
}

#[test]
fn interleave_keeps_every_record_and_each_files_order() {
    let dir = scratch_in("data", "interleave");
    let a = write(
        &dir,
        "a.bulletformat",
        DataFormat::Bulletformat,
        &[busy_game()],
    );
    let b = write(
        &dir,
        "b.bulletformat",
        DataFormat::Bulletformat,
        &[readme_game(), chess960_game()],
    );
    let out = dir.join("o.bulletformat");
    let run = sparring(&[
        "data",
        "interleave",
        text(&a),
        text(&b),
        "-o",
        text(&out),
        "--seed",
        "5",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let merged = std::fs::read(&out).unwrap();
    let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(merged.len(), a.len() + b.len());
    // Each file's records appear in its own order: walk both as subsequences.
    let (mut i, mut j) = (0, 0);
    let (ra, rb) = (records(&a), records(&b));
    for r in records(&merged) {
        if i < ra.len() && r == ra[i] {
            i += 1;
        } else {
            assert_eq!(r, rb[j]);
            j += 1;
        }
    }
    assert_eq!((i, j), (ra.len(), rb.len()));
    let mixed = write(&dir, "m.txt", DataFormat::Text, &[readme_game()]);
    let run = sparring(&[
        "data",
        "interleave",
        text(&out),
        text(&mixed),
        "-o",
        text(&dir.join("x")),
    ]);
    assert_bad_input(&run, &["m.txt is text: interleave needs one format"]);
}

#[test]
fn info_counts_games_positions_results_and_histograms() {
    let dir = scratch_in("data", "info");
    let viri = write(
        &dir,
        "g.viriformat",
        DataFormat::Viriformat,
        &[busy_game(), readme_game()],
    );
    let run = sparring(&["data", "info", text(&viri)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for line in [
        "format viriformat\n",
        "games 2\n",
        "positions 36\n",
        "results white 5 draw 0 black 31\n",
        "pieces\n",
        "  32 ",
    ] {
        assert!(run.stdout.contains(line), "{line:?} in {}", run.stdout);
    }
    let same = dir.join("g.data");
    std::fs::copy(&viri, &same).unwrap();
    let run = sparring(&["data", "info", text(&same), "--format", "viriformat"]);
    assert!(run.stdout.contains("positions 36\n"), "{}", run.stderr);
    assert_bad_input(
        &sparring(&["data", "info", text(&same)]),
        &["cannot tell the format"],
    );
}

#[test]
fn damaged_files_are_refused_with_their_offset_and_never_panic() {
    let dir = scratch_in("data", "damaged");
    let games = [readme_game()];
    for format in DataFormat::ALL {
        let name = DataFormat::file_name(format);
        let good = std::fs::read(write(&dir, name, format, &games)).unwrap();
        let path = dir.join(name);
        // A text file cut by one byte loses only its last newline, which is no damage: cut two.
        let cut = if format == DataFormat::Text { 2 } else { 1 };
        std::fs::write(&path, &good[..good.len() - cut]).unwrap();
        let run = sparring(&["data", "info", text(&path)]);
        let expected = match format {
            DataFormat::Viriformat => format!("byte {}: truncated", good.len() - 4),
            DataFormat::Marlinformat | DataFormat::Bulletformat => {
                format!("byte {}: truncated", good.len() - 32)
            }
            // A cut last line loses its newline and the result's last digit.
            DataFormat::Text => "data.txt:5: bad result `1.`".to_string(),
        };
        assert_bad_input(&run, &[text(&path), &expected]);
        std::fs::write(&path, b"").unwrap();
        assert_bad_input(
            &sparring(&["data", "info", text(&path)]),
            &["byte 0: the file is empty"],
        );
        let mut rng = Rng::new(format as u64 + 1);
        for size in [1, 31, 32, 33, 64, 100, 1000] {
            let bytes: Vec<u8> = (0..size).map(|_| rng.next_u64() as u8).collect();
            std::fs::write(&path, &bytes).unwrap();
            let run = sparring(&["data", "info", text(&path)]);
            assert_bad_input(&run, &[text(&path)]);
            assert!(
                run.stderr.contains("byte ") || run.stderr.contains("data.txt:"),
                "{}",
                run.stderr
            );
        }
    }
}

#[test]
fn mutated_files_read_to_an_answer_never_a_panic() {
    let dir = scratch_in("data", "mutated");
    let games = [busy_game(), chess960_game()];
    let mut rng = Rng::new(47);
    for format in DataFormat::ALL {
        let good = std::fs::read(write(&dir, format.file_name(), format, &games)).unwrap();
        for _ in 0..200 {
            let mut bytes = good.clone();
            for _ in 0..=rng.below(3) {
                let at = rng.below(bytes.len() as u64) as usize;
                bytes[at] = rng.next_u64() as u8;
            }
            bytes.truncate(bytes.len() - rng.below(40) as usize);
            let reader = DataReader::new(Box::new(std::io::Cursor::new(bytes)), "m", format);
            let mut samples = Samples::new(reader);
            while let Ok(Some(_)) = samples.next_sample() {}
        }
    }
}

#[test]
fn convert_random_skip_is_seeded_and_max_eval_incorrectness_drops_wrong_scores() {
    use sparring::data::RandomSkip;
    let dir = scratch_in("data", "skip");
    // 300 positions with scores from -300 to +299 cp in steps of 2, results in turn.
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let results = ["1.0", "0.5", "0.0"];
    let lines: Vec<(i32, &str)> = (0..300)
        .map(|i| (2 * i - 300, results[i as usize % 3]))
        .collect();
    let input = dir.join("in.txt");
    let body: String = lines
        .iter()
        .map(|(score, result)| format!("{fen} | {score} | {result}\n"))
        .collect();
    std::fs::write(&input, body).unwrap();
    let convert = |out: &str, extra: &[&str]| {
        let out = dir.join(out);
        let mut args = vec![
            "data",
            "convert",
            text(&input),
            "--to",
            "text",
            "-o",
            text(&out),
        ];
        args.extend_from_slice(extra);
        (sparring(&args), out)
    };
    // Wrong by more than 100 cp: a draw's |score| > 100, a White win below -100, a Black win
    // above +100 (White-relative).
    let wrong = |&(score, result): &(i32, &str)| match result {
        "0.5" => score.abs() > 100,
        "1.0" => score < -100,
        _ => score > 100,
    };
    let right: Vec<(i32, &str)> = lines.iter().copied().filter(|l| !wrong(l)).collect();
    let (run, out) = convert("incorrect.txt", &["--max-eval-incorrectness", "100"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let dropped = lines.len() - right.len();
    assert!(dropped > 50, "{dropped}");
    assert!(
        run.stdout
            .contains(&format!("dropped by max-eval-incorrectness {dropped}\n")),
        "{}",
        run.stdout
    );
    let scores = |path: &Path| -> Vec<i32> {
        samples(path)
            .iter()
            .map(|s| i32::from(s.data.white_score))
            .collect()
    };
    assert_eq!(scores(&out), right.iter().map(|l| l.0).collect::<Vec<_>>());

    // The random skip draws once per position the filters kept, from the seed's generator:
    // the kept ones are those the data layer's `RandomSkip` (the trainer's too) keeps.
    let args = [
        "--max-eval-incorrectness",
        "100",
        "--random-skip",
        "0.4",
        "--seed",
        "3",
    ];
    let (run, skipped) = convert("skipped.txt", &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut rng = RandomSkip {
        probability: 0.4,
        seed: 3,
    }
    .rng();
    let kept: Vec<i32> = right
        .iter()
        .filter(|_| !RandomSkip::skips(0.4, &mut rng))
        .map(|l| l.0)
        .collect();
    assert_eq!(scores(&skipped), kept);
    let share = 1.0 - kept.len() as f64 / right.len() as f64;
    assert!((0.25..0.55).contains(&share), "{share}");
    assert!(
        run.stdout.contains(&format!("written {}\n", kept.len()))
            && run
                .stdout
                .contains(&format!("skipped at random {}\n", right.len() - kept.len())),
        "{}",
        run.stdout
    );
    // The same seed gives the same bytes; another seed other positions.
    let (_, again) = convert("again.txt", &args);
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&skipped).unwrap()
    );
    let (_, other) = convert("other.txt", &["--random-skip", "0.4", "--seed", "4"]);
    assert_ne!(scores(&other), scores(&skipped));

    // A probability outside [0, 1) and a skip of whole games are refused.
    let (run, _) = convert("bad.txt", &["--random-skip", "1"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("not a probability"), "{}", run.stderr);
    let viri = write(&dir, "g.viriformat", DataFormat::Viriformat, &[busy_game()]);
    let run = sparring(&[
        "data",
        "convert",
        text(&viri),
        "--to",
        "viriformat",
        "-o",
        text(&dir.join("v.viriformat")),
        "--random-skip",
        "0.5",
    ]);
    assert_bad_input(&run, &["viriformat keeps whole games"]);
}
