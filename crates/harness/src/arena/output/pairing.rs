//! The running statistics of one pairing, counted by complete game pairs; what each engine did
//! over its games (depth, speed, time, failures); and each engine's standing against the field.

use crate::board::Color;
use crate::record::{GameRecord, Termination};
use crate::stats::{EloEstimate, Outcome, PairBucket, Pentanomial, Wdl};
use std::collections::HashMap;
use std::time::Duration;

/// Results of one pairing, from the first engine's point of view, counted by complete pairs.
#[derive(Clone, Debug, Default)]
pub struct PairingStats {
    /// The first engine's name (the gauntlet's engine, or the earlier one in the list).
    pub first: String,
    /// Its opponent's name.
    pub second: String,
    /// Games of complete pairs only, so that W/D/L and the pentanomial agree.
    pub wdl: Wdl,
    /// Pair results by the first engine's points (0 to 2).
    pub ptnml: Pentanomial,
    /// Pairs of two draws and pairs of a win and a loss (both are the pentanomial's middle bucket).
    pub dd_pairs: u64,
    /// Pairs of a win and a loss.
    pub wl_pairs: u64,
    /// Every finished game, complete pair or not (what cutechess-style lines count).
    pub games_wdl: Wdl,
    /// The first engine's score in pairs of which one game is finished.
    pending: HashMap<u64, f64>,
}

/// What one engine did in the games of this run: the figures tuners and engine authors ask for
/// and that fastchess and cutechess do not report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineFigures {
    /// Games it played.
    pub games: u64,
    /// Moves it chose (book moves not counted).
    pub moves: u64,
    /// Sum of the depths it reported, and the moves that reported one.
    pub depth_sum: u64,
    /// Moves with a reported depth.
    pub depth_moves: u64,
    /// Nodes it reported, and the thinking time of the moves that reported them.
    pub nodes: u64,
    /// Thinking time of the moves that reported nodes.
    pub(crate) nodes_time: Duration,
    /// Thinking time of all its moves, as the arbiter measured.
    pub(crate) think_time: Duration,
    /// Games it played on a clock, and the time left on its clock at their ends.
    pub clock_games: u64,
    /// Sum of the time left at the end of its clock games.
    pub time_left: Duration,
    /// Games it lost on time.
    pub time_forfeits: u64,
    /// Games it lost by crashing or closing its pipe (`disconnects`).
    pub disconnects: u64,
    /// Games it lost by not answering (`connection stalls`).
    pub stalls: u64,
    /// Games it lost by an illegal or unreadable move.
    pub illegal_moves: u64,
    /// fastchess's compliance warnings about it (`game::compliance`): about its moves, in
    /// every game of the run (figures.csv keeps them, so a resumed run counts all), and about
    /// its configured options, once per run.
    pub compliance_warnings: u64,
}

impl EngineFigures {
    /// Adds a finished game in which this engine played `color`.
    pub fn add_game(&mut self, record: &GameRecord, color: Color) {
        self.games += 1;
        // The engines alternate from the first engine move; book moves come before.
        let first_mover = if record.book_moves.len() % 2 == 0 {
            record.start.side_to_move()
        } else {
            !record.start.side_to_move()
        };
        let skip = usize::from(first_mover != color);
        for played in record.moves.iter().skip(skip).step_by(2) {
            self.moves += 1;
            self.think_time += played.time;
            if let Some(d) = played.depth {
                self.depth_sum += u64::from(d);
                self.depth_moves += 1;
            }
            if let Some(n) = played.nodes {
                self.nodes += n;
                self.nodes_time += played.time;
            }
        }
        if let Some(left) = record.clock_left[color.index()] {
            self.clock_games += 1;
            self.time_left += left;
        }
        if record.at_fault == Some(color) {
            match record.termination {
                Termination::TimeForfeit => self.time_forfeits += 1,
                Termination::Abandoned => self.disconnects += 1,
                Termination::StalledConnection => self.stalls += 1,
                Termination::IllegalMove => self.illegal_moves += 1,
                Termination::Normal | Termination::Adjudication(_) => {}
            }
        }
    }

    /// Adds another tally (the same engine's figures from other games).
    pub fn add(&mut self, other: &EngineFigures) {
        self.games += other.games;
        self.moves += other.moves;
        self.depth_sum += other.depth_sum;
        self.depth_moves += other.depth_moves;
        self.nodes += other.nodes;
        self.nodes_time += other.nodes_time;
        self.think_time += other.think_time;
        self.clock_games += other.clock_games;
        self.time_left += other.time_left;
        self.time_forfeits += other.time_forfeits;
        self.disconnects += other.disconnects;
        self.stalls += other.stalls;
        self.illegal_moves += other.illegal_moves;
        self.compliance_warnings += other.compliance_warnings;
    }

    /// Mean reported depth per move.
    pub fn average_depth(&self) -> Option<f64> {
        (self.depth_moves > 0).then(|| self.depth_sum as f64 / self.depth_moves as f64)
    }

    /// Reported nodes per second of thinking time.
    pub fn nodes_per_second(&self) -> Option<f64> {
        let secs = self.nodes_time.as_secs_f64();
        (self.nodes > 0 && secs > 0.0).then(|| self.nodes as f64 / secs)
    }

    /// Mean thinking time per move.
    pub fn average_move_time(&self) -> Option<Duration> {
        u32::try_from(self.moves)
            .ok()
            .filter(|&m| m > 0)
            .map(|m| self.think_time / m)
    }

    /// Mean time left on its clock at the end of its clock games.
    pub fn average_time_left(&self) -> Option<Duration> {
        u32::try_from(self.clock_games)
            .ok()
            .filter(|&g| g > 0)
            .map(|g| self.time_left / g)
    }

    /// Games lost by a crash, a disconnect or a stall.
    pub fn crashes(&self) -> u64 {
        self.disconnects + self.stalls
    }
}

/// One engine's results against every opponent it met, from its own point of view.
#[derive(Clone, Debug, Default)]
pub struct Standing {
    /// The engine's configured name.
    pub name: String,
    /// Games of complete pairs (by pairs), or every finished game (by games).
    pub wdl: Wdl,
    /// Pair results by this engine's points (0 to 2).
    pub ptnml: Pentanomial,
    /// By pairs: games whose pair is not complete (not in `wdl`); by games: 0.
    pub unpaired_games: u64,
    /// What it did over its games.
    pub figures: EngineFigures,
}

impl Standing {
    /// Its Elo against the field: by pairs (pentanomial) or by games (W/D/L).
    pub fn estimate(&self, by_pairs: bool) -> Option<EloEstimate> {
        if by_pairs {
            self.ptnml.estimate()
        } else {
            self.wdl.estimate()
        }
    }

    /// The draw ratio the ranking table shows: pairs in the middle bucket (penta) or drawn games.
    pub fn draw_ratio(&self, by_pairs: bool) -> Option<f64> {
        if by_pairs {
            let pairs = self.ptnml.pairs();
            (pairs > 0).then(|| self.ptnml.dd as f64 / pairs as f64)
        } else {
            let games = self.wdl.games();
            (games > 0).then(|| self.wdl.draws as f64 / games as f64)
        }
    }
}

/// Each engine's standing against the field, best first by Elo (engines without an Elo last),
/// from the pairings' statistics and the engines' figures (indexed as `names`).
pub fn ranking(
    names: &[String],
    pairings: &[PairingStats],
    figures: &[EngineFigures],
    by_pairs: bool,
) -> Vec<Standing> {
    let mut standings: Vec<Standing> = names
        .iter()
        .enumerate()
        .map(|(i, name)| Standing {
            name: name.clone(),
            figures: figures.get(i).cloned().unwrap_or_default(),
            ..Default::default()
        })
        .collect();
    for p in pairings {
        // By pairs, games of incomplete pairs wait outside the counts; by games, all count.
        let (wdl, unpaired) = if by_pairs {
            (p.wdl, p.unpaired_games())
        } else {
            (p.games_wdl, 0)
        };
        for (name, wdl, ptnml) in [
            (&p.first, wdl, p.ptnml),
            (&p.second, wdl.flipped(), p.ptnml.flipped()),
        ] {
            if let Some(s) = standings.iter_mut().find(|s| &s.name == name) {
                s.wdl = add_wdl(s.wdl, wdl);
                s.ptnml = add_ptnml(s.ptnml, ptnml);
                s.unpaired_games += unpaired;
            }
        }
    }
    let elo = |s: &Standing| s.estimate(by_pairs).map_or(f64::NAN, |e| e.elo);
    // Stable: equal Elo keeps the configuration's order.
    standings.sort_by(|a, b| {
        let (x, y) = (elo(a), elo(b));
        match (x.is_nan(), y.is_nan()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            (false, false) => y.total_cmp(&x),
        }
    });
    standings
}

fn add_wdl(a: Wdl, b: Wdl) -> Wdl {
    Wdl::new(a.wins + b.wins, a.draws + b.draws, a.losses + b.losses)
}

fn add_ptnml(a: Pentanomial, b: Pentanomial) -> Pentanomial {
    Pentanomial::new(
        a.ll + b.ll,
        a.ld + b.ld,
        a.dd + b.dd,
        a.wd + b.wd,
        a.ww + b.ww,
    )
}

impl PairingStats {
    /// Empty statistics for `first` against `second`.
    pub fn new(first: &str, second: &str) -> PairingStats {
        PairingStats {
            first: first.to_string(),
            second: second.to_string(),
            ..Default::default()
        }
    }

    /// Games finished whose pair partner is not (yet): recorded, but not in `wdl`.
    pub fn unpaired_games(&self) -> u64 {
        self.pending.len() as u64
    }

    /// Adds a finished game of pair `pair_id`, scored from the first engine's point of view.
    pub fn add_game(&mut self, pair_id: u64, first_score: f64) {
        self.games_wdl
            .record(Outcome::from_score(first_score).unwrap_or(Outcome::Draw));
        let Some(other) = self.pending.remove(&pair_id) else {
            self.pending.insert(pair_id, first_score);
            return;
        };
        let outcome = |s: f64| Outcome::from_score(s).unwrap_or(Outcome::Draw);
        for s in [other, first_score] {
            self.wdl.record(outcome(s));
        }
        if other + first_score == 1.0 {
            if other == 0.5 {
                self.dd_pairs += 1;
            } else {
                self.wl_pairs += 1;
            }
        }
        self.ptnml.record(PairBucket::from_outcomes(
            outcome(other),
            outcome(first_score),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_count_each_sides_moves_time_and_failures() {
        use crate::board::{GameResult, Position};
        use crate::record::PlayedMove;
        let start = Position::startpos();
        let mut pos = start.clone();
        let book = pos.parse_uci_move("e2e4").unwrap();
        pos.make_move(book);
        let mut moves = Vec::new();
        // Black moves first after the book move: depths 10, 11 (Black), 20 (White).
        for (uci, depth, ms) in [("e7e5", 10, 100), ("g1f3", 20, 40), ("b8c6", 11, 300)] {
            let mv = pos.parse_uci_move(uci).unwrap();
            pos.make_move(mv);
            moves.push(PlayedMove {
                mv,
                score: None,
                depth: Some(depth),
                nodes: Some(1000),
                time: Duration::from_millis(ms),
                details: Default::default(),
            });
        }
        let record = GameRecord {
            game_id: 1,
            pair_id: 1,
            round: 1,
            event: String::new(),
            site: "?".to_string(),
            white: "w".to_string(),
            black: "b".to_string(),
            white_engine: 0,
            black_engine: 1,
            opening_id: 0,
            start,
            chess960: false,
            book_moves: vec![book],
            moves,
            result: GameResult::BlackWins,
            termination: Termination::TimeForfeit,
            reason: String::new(),
            time_control: String::new(),
            started: std::time::SystemTime::UNIX_EPOCH,
            duration: Duration::ZERO,
            clock_left: [Some(Duration::ZERO), Some(Duration::from_secs(2))],
            at_fault: Some(Color::White),
        };
        let (mut white, mut black) = (EngineFigures::default(), EngineFigures::default());
        white.add_game(&record, Color::White);
        black.add_game(&record, Color::Black);
        assert_eq!((white.moves, black.moves), (1, 2));
        assert_eq!(black.average_depth(), Some(10.5));
        assert_eq!(white.average_depth(), Some(20.0));
        assert_eq!(black.average_move_time(), Some(Duration::from_millis(200)));
        assert_eq!(black.nodes_per_second(), Some(5000.0));
        assert_eq!(black.average_time_left(), Some(Duration::from_secs(2)));
        assert_eq!((white.time_forfeits, black.time_forfeits), (1, 0));
        assert_eq!(white.crashes() + white.illegal_moves, 0);
    }

    #[test]
    fn the_ranking_sees_each_engine_against_the_field() {
        let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let mut ab = PairingStats::new("a", "b");
        let mut bc = PairingStats::new("b", "c");
        ab.add_game(1, 0.0);
        ab.add_game(1, 0.5);
        ab.add_game(2, 1.0); // its pair partner is not in yet
        bc.add_game(1, 1.0);
        bc.add_game(1, 1.0);
        let by_pairs = ranking(&names, &[ab.clone(), bc.clone()], &[], true);
        let order: Vec<&str> = by_pairs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(order, ["b", "a", "c"]);
        let b = &by_pairs[0];
        assert_eq!((b.wdl.wins, b.wdl.draws, b.wdl.losses), (3, 1, 0));
        assert_eq!(b.ptnml, Pentanomial::new(0, 0, 0, 1, 1));
        assert_eq!(b.unpaired_games, 1);
        assert_eq!(by_pairs[2].unpaired_games, 0, "c played no unpaired game");
        let by_games = ranking(&names, &[ab, bc], &[], false);
        let a = by_games.iter().find(|s| s.name == "a").unwrap();
        assert_eq!((a.wdl.wins, a.wdl.draws, a.wdl.losses), (1, 1, 1));
        assert_eq!(a.unpaired_games, 0);
    }

    #[test]
    fn pairs_count_when_both_games_are_in() {
        let mut stats = PairingStats::new("a", "b");
        stats.add_game(1, 1.0);
        assert_eq!(stats.wdl.games(), 0);
        assert_eq!(stats.pending.len(), 1, "the first game waits for its pair");
        stats.add_game(1, 0.0);
        stats.add_game(2, 0.5);
        stats.add_game(2, 0.5);
        assert_eq!(
            (stats.wdl.wins, stats.wdl.draws, stats.wdl.losses),
            (1, 2, 1)
        );
        assert_eq!((stats.wl_pairs, stats.dd_pairs), (1, 1));
        assert_eq!(stats.ptnml.pairs(), 2);
    }
}
