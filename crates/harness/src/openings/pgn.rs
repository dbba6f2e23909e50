//! PGN suites: each game's main line is an opening. The splitter (`pgn_split`) collects each
//! game's tags and main-line move tokens in one pass; the games are then replayed in parallel,
//! each token read as SAN (LAN included) or else UCI.

use super::error::BadLineReason;
use super::pgn_split::{split_games, RawGame};
use crate::board::{Color, Move, Position};
use rayon::prelude::*;

/// A game replayed: its start position and main-line moves, or why it cannot be an opening (with
/// the line to report).
pub(crate) type GameResult = Result<(Position, Vec<Move>), (usize, BadLineReason)>;

/// Replays every game of a PGN file, keeping at most `plies` moves of each.
pub(crate) fn parse(bytes: &[u8], plies: Option<usize>) -> Vec<GameResult> {
    let games = split_games(bytes, plies.unwrap_or(usize::MAX));
    games.par_iter().map(replay).collect()
}

fn replay(game: &RawGame<'_>) -> GameResult {
    if let Some((line, msg)) = game.error {
        return Err((line, BadLineReason::Syntax(msg)));
    }
    if let Some(variant) = &game.variant {
        let v = variant.value.to_ascii_lowercase();
        if !matches!(
            v.as_str(),
            "standard" | "chess" | "normal" | "from position"
        ) {
            return Err((
                game.first_line,
                BadLineReason::Variant(variant.value.clone()),
            ));
        }
    }
    let setup = game.setup.as_ref().map(|t| t.value.as_str());
    let mut pos = match &game.fen {
        Some(fen) if setup != Some("0") => {
            Position::from_fen_lenient(&fen.value).map_err(|e| (fen.line, BadLineReason::Fen(e)))?
        }
        _ => Position::startpos(),
    };
    let start = pos.clone();
    let mut moves = Vec::with_capacity(game.moves.len());
    for (i, token) in game.moves.iter().enumerate() {
        let text = String::from_utf8_lossy(token.text);
        // A PGN written with fastchess's `notation=uci` (sparring's `pgn_notation = "uci"`)
        // spells moves as UCI does: read them when SAN names no legal move.
        let parsed = pos
            .parse_san(&text)
            .or_else(|e| pos.parse_uci_move(&text).map_err(|_| e));
        match parsed {
            Ok(mv) => {
                pos.make_move(mv);
                moves.push(mv);
            }
            Err(error) => {
                let dots = if pos.side_to_move() == Color::White {
                    "."
                } else {
                    "..."
                };
                return Err((
                    token.line,
                    BadLineReason::Move {
                        ply: i + 1,
                        number: format!("{}{dots}", pos.fullmove_number()),
                        text: text.into_owned(),
                        error,
                    },
                ));
            }
        }
    }
    if !pos.has_legal_moves() {
        return Err((game.first_line, BadLineReason::NoLegalMoves));
    }
    Ok((start, moves))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SAN, fastchess's LAN and UCI movetext (`pgn_notation`) give the same opening.
    #[test]
    fn san_lan_and_uci_movetext_replay_alike() {
        let games = parse(
            b"1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O Nxe4 *\n\n\
              1. e2e4 e7e5 2. Ng1f3 Nb8c6 3. Bf1c4 Ng8f6 4. O-O Nf6xe4 *\n\n\
              1. e2e4 e7e5 2. g1f3 b8c6 3. f1c4 g8f6 4. e1g1 f6e4 *\n",
            None,
        );
        let lines: Vec<_> = games.into_iter().map(Result::unwrap).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].1.len(), 8);
        assert!(lines.iter().all(|l| *l == lines[0]));
    }
}
