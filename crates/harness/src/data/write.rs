//! The writers: [`ViriWriter`] keeps whole games, [`PositionWriter`] one record per position
//! (marlinformat, bulletformat, text). A game's positions are every position a move was played
//! from, each with that move's score: the position after the last move has no score and is not
//! written. Nothing is filtered here; filters are `sparring data convert`'s.

use super::packed::{pack_bullet, pack_marlin, RECORD};
use super::viri::encode_move;
use super::{centipawns, DataFormat, DataGame, DataPosition, GameWriter, MATE_CP};
use crate::record::bullet::BulletPosition;
use std::io::{self, BufWriter, Write};

fn too_many_pieces(fen: String) -> io::Error {
    let message = format!("{fen}: more than 32 pieces cannot be written");
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// Writes whole games as viriformat: the start position's `PackedBoard` (score 0, the game's
/// result), then `(move, White-relative score)` pairs, then four zero bytes.
pub(crate) struct ViriWriter<W: Write> {
    out: BufWriter<W>,
}

impl<W: Write> ViriWriter<W> {
    /// A writer appending games to `out` (buffered here).
    pub(super) fn new(out: W) -> ViriWriter<W> {
        ViriWriter {
            out: BufWriter::with_capacity(1 << 16, out),
        }
    }

    /// Appends a game already in the file's form: its bytes, as [`super::DataReader`] read them.
    pub(super) fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }
}

impl<W: Write + Send> GameWriter for ViriWriter<W> {
    fn write_game(&mut self, game: &DataGame) -> io::Result<()> {
        let header = pack_marlin(&game.start, 0, game.result)
            .ok_or_else(|| too_many_pieces(game.start.to_fen()))?;
        let mut bytes = Vec::with_capacity(RECORD + 4 * game.moves.len() + 4);
        bytes.extend_from_slice(&header);
        let mut pos = game.start.clone();
        for &(mv, score) in &game.moves {
            bytes.extend_from_slice(&encode_move(&pos, mv).to_le_bytes());
            bytes.extend_from_slice(&centipawns(score).to_le_bytes());
            pos.make_move(mv);
        }
        bytes.extend_from_slice(&[0; 4]);
        self.out.write_all(&bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Writes one record per position: marlinformat, bulletformat or text.
pub(crate) struct PositionWriter<W: Write> {
    format: DataFormat,
    out: BufWriter<W>,
}

impl<W: Write> PositionWriter<W> {
    /// A writer of `format` (not viriformat, which holds games: `None`) appending to `out`.
    pub(super) fn new(format: DataFormat, out: W) -> Option<PositionWriter<W>> {
        (format != DataFormat::Viriformat).then(|| PositionWriter {
            format,
            out: BufWriter::with_capacity(1 << 16, out),
        })
    }

    /// Appends one position.
    pub(crate) fn write_position(&mut self, p: &DataPosition) -> io::Result<()> {
        let packed = match self.format {
            DataFormat::Marlinformat => pack_marlin(&p.position, p.white_score, p.result),
            DataFormat::Bulletformat => pack_bullet(&p.position, p.white_score, p.result),
            DataFormat::Text | DataFormat::Viriformat => {
                let line = BulletPosition {
                    fen: p.position.to_fen(),
                    // sparring's line parser stops at ±32000 (mate now): beyond it, every
                    // score is a mate score to every filter anyway.
                    white_score: i32::from(p.white_score).clamp(-MATE_CP, MATE_CP),
                    result: p.result,
                };
                return writeln!(self.out, "{line}");
            }
        };
        let bytes = packed.ok_or_else(|| too_many_pieces(p.position.to_fen()))?;
        self.out.write_all(&bytes)
    }
}

impl<W: Write + Send> GameWriter for PositionWriter<W> {
    fn write_game(&mut self, game: &DataGame) -> io::Result<()> {
        let mut position = game.start.clone();
        for &(mv, score) in &game.moves {
            let sample = DataPosition {
                position,
                white_score: centipawns(score),
                result: game.result,
            };
            self.write_position(&sample)?;
            position = sample.position;
            position.make_move(mv);
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The writer of `format` over `out` (buffered inside; call [`GameWriter::flush`] at the end).
pub fn game_writer<W: Write + Send + 'static>(format: DataFormat, out: W) -> Box<dyn GameWriter> {
    match format {
        DataFormat::Viriformat => Box::new(ViriWriter::new(out)),
        DataFormat::Marlinformat | DataFormat::Bulletformat | DataFormat::Text => {
            Box::new(PositionWriter::new(format, out).expect("a position format"))
        }
    }
}
