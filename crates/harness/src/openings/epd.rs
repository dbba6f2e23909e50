//! EPD suites: one position per line, a FEN of 4 or 6 fields and optional EPD opcodes. The file is
//! cut into chunks at line ends and the chunks are parsed in parallel, then joined in order.

use super::error::BadLineReason;
use super::store::{Store, TooLarge};
use crate::board::Position;
use crate::error::{ErrorClass, Failure};
use rayon::prelude::*;
use std::borrow::Cow;
use thiserror::Error;

/// A chunk's openings and its rejected lines (line numbers relative to the chunk, 1-based).
pub(crate) struct Chunk {
    pub store: Store,
    pub rejected: Vec<(usize, BadLineReason)>,
    pub lines: usize,
}

/// Parses a whole EPD file. Rejected lines carry absolute 1-based line numbers.
pub(crate) fn parse(bytes: &[u8]) -> Result<(Store, Vec<(usize, BadLineReason)>), TooLarge> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let chunks: Vec<Chunk> = split_at_lines(bytes, 1 << 18)
        .par_iter()
        .map(|chunk| parse_chunk(chunk))
        .collect::<Result<_, _>>()?;
    let mut store = Store::default();
    let mut rejected = Vec::new();
    let mut offset = 0;
    for chunk in &chunks {
        store.append(&chunk.store)?;
        rejected.extend(
            chunk
                .rejected
                .iter()
                .map(|(line, reason)| (offset + line, reason.clone())),
        );
        offset += chunk.lines;
    }
    store.shrink_to_fit();
    Ok((store, rejected))
}

/// Cuts `bytes` into pieces of about `size` bytes, each ending just after a newline (or at the end).
pub(crate) fn split_at_lines(bytes: &[u8], size: usize) -> Vec<&[u8]> {
    let mut chunks = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let cut = if rest.len() <= size {
            rest.len()
        } else {
            rest[size..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len(), |i| size + i + 1)
        };
        chunks.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    chunks
}

fn parse_chunk(bytes: &[u8]) -> Result<Chunk, TooLarge> {
    let mut chunk = Chunk {
        store: Store::default(),
        rejected: Vec::new(),
        lines: 0,
    };
    for raw in bytes.split_inclusive(|&b| b == b'\n') {
        chunk.lines += 1;
        let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let Ok(line) = std::str::from_utf8(raw) else {
            chunk.rejected.push((chunk.lines, BadLineReason::NotUtf8));
            continue;
        };
        match parse_line(line) {
            Ok(None) => {}
            Ok(Some(pos)) => chunk.store.push(&pos, &[])?,
            Err(reason) => chunk.rejected.push((chunk.lines, reason)),
        }
    }
    Ok(chunk)
}

/// One EPD line: `None` for a blank or comment line (`#`, `;` or `%` first), the position
/// otherwise. `hmvc` and `fmvn` set the clocks of a four-field FEN; other opcodes are checked for
/// syntax and ignored.
pub fn parse_line(line: &str) -> Result<Option<Position>, BadLineReason> {
    let line = line.trim();
    if line.is_empty() || line.starts_with(['#', ';', '%']) {
        return Ok(None);
    }
    // The FEN is the first four fields plus up to two numeric clock fields.
    let mut fields = 0;
    let mut fen_end = 0;
    let mut rest = line;
    while let Some(word) = next_word(rest) {
        let is_clock = word.bytes().all(|b| b.is_ascii_digit());
        if fields >= 6 || (fields >= 4 && !is_clock) {
            break;
        }
        fields += 1;
        let end = word.as_ptr() as usize - line.as_ptr() as usize + word.len();
        fen_end = end;
        rest = &line[end..];
    }
    let fen = &line[..fen_end];
    let (hmvc, fmvn) = parse_opcodes(&line[fen_end..])?;
    let pos = if fields == 4 && (hmvc.is_some() || fmvn.is_some()) {
        let with_clocks = format!("{fen} {} {}", hmvc.unwrap_or(0), fmvn.unwrap_or(1));
        Position::from_fen_lenient(&with_clocks)?
    } else {
        Position::from_fen_lenient(fen)?
    };
    if !pos.has_legal_moves() {
        return Err(BadLineReason::NoLegalMoves);
    }
    Ok(Some(pos))
}

fn next_word(text: &str) -> Option<&str> {
    text.split_ascii_whitespace().next()
}

/// Checks the opcode syntax and returns the `hmvc` and `fmvn` operands.
fn parse_opcodes(text: &str) -> Result<(Option<u16>, Option<u16>), BadLineReason> {
    let (mut hmvc, mut fmvn) = (None, None);
    for op in epd_operations(text) {
        let op = op.map_err(|e| BadLineReason::Opcode(e.to_string()))?;
        let name = op.opcode;
        let number = |max_ok: fn(u16) -> bool| -> Result<u16, BadLineReason> {
            match &op.operands[..] {
                [n] => n.parse::<u16>().ok().filter(|&n| max_ok(n)).ok_or_else(|| {
                    BadLineReason::Opcode(format!("{name}: '{n}' is not a valid count"))
                }),
                operands => Err(BadLineReason::Opcode(format!(
                    "{name}: expected one number, found {} operands",
                    operands.len()
                ))),
            }
        };
        match name {
            "hmvc" => hmvc = Some(number(|_| true)?),
            "fmvn" => fmvn = Some(number(|n| n >= 1)?),
            _ => {}
        }
    }
    Ok((hmvc, fmvn))
}

/// One EPD operation, `opcode operand* ;`: the opcode and its operands, string operands without
/// their quotes and with `\` escapes resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EpdOperation<'a> {
    /// The opcode (`ce`, `c9`, `id`, `bm`, ...): a letter, then letters, digits or `_`.
    pub opcode: &'a str,
    /// The operands in order; borrowed unless a string operand held an escape.
    pub(crate) operands: Vec<Cow<'a, str>>,
}

/// Why the operations part of an EPD line cannot be read.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EpdOperationError {
    /// Something other than an opcode name where an operation should start.
    #[error("expected an opcode name, found '{found}'")]
    ExpectedOpcode {
        /// The word found instead.
        found: String,
    },
    /// A string operand without its closing quote.
    #[error("{opcode}: unterminated string")]
    UnterminatedString {
        /// The operation's opcode.
        opcode: String,
    },
}

impl ErrorClass for EpdOperationError {
    fn class(&self) -> Failure {
        match self {
            EpdOperationError::ExpectedOpcode { .. }
            | EpdOperationError::UnterminatedString { .. } => Failure::BadInput,
        }
    }
}

/// The operations of an EPD line's text after the position fields, in order. Operations end at
/// `;` outside quotes; a missing `;` after the last one is tolerated. After an error the
/// iterator ends. This is the one EPD-operations reader: opening suites and training positions
/// (`record::TrainingPosition`) both use it.
pub(crate) fn epd_operations(text: &str) -> EpdOperations<'_> {
    EpdOperations {
        text,
        at: 0,
        failed: false,
    }
}

/// The iterator of [`epd_operations`].
#[derive(Clone, Debug)]
pub(crate) struct EpdOperations<'a> {
    text: &'a str,
    /// Byte offset of the next unread character.
    at: usize,
    failed: bool,
}

impl<'a> EpdOperations<'a> {
    fn skip_spaces(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    fn next_operation(&mut self) -> Result<Option<EpdOperation<'a>>, EpdOperationError> {
        let text = self.text;
        self.skip_spaces();
        let rest = &text[self.at..];
        let Some(first) = rest.chars().next() else {
            return Ok(None);
        };
        if !first.is_ascii_alphabetic() {
            let found = rest.split_whitespace().next().unwrap_or("").to_string();
            return Err(EpdOperationError::ExpectedOpcode { found });
        }
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let opcode = &rest[..name_len];
        self.at += name_len;
        let mut operands = Vec::new();
        loop {
            self.skip_spaces();
            let rest = &text[self.at..];
            let Some(c) = rest.chars().next() else {
                break;
            };
            if c == ';' {
                self.at += 1;
                break;
            }
            if c == '"' {
                let body = &rest[1..];
                let Some(close) = body.find(['"', '\\']) else {
                    return Err(EpdOperationError::UnterminatedString {
                        opcode: opcode.to_string(),
                    });
                };
                if body.as_bytes()[close] == b'"' {
                    operands.push(Cow::Borrowed(&body[..close]));
                    self.at += 1 + close + 1;
                    continue;
                }
                // An escape: build the operand character by character.
                let mut operand = String::from(&body[..close]);
                let mut chars = body[close..].char_indices();
                let end = loop {
                    match chars.next() {
                        None => {
                            return Err(EpdOperationError::UnterminatedString {
                                opcode: opcode.to_string(),
                            })
                        }
                        Some((i, '"')) => break close + i + 1,
                        Some((_, '\\')) => {
                            if let Some((_, c)) = chars.next() {
                                operand.push(c);
                            }
                        }
                        Some((_, c)) => operand.push(c),
                    }
                };
                operands.push(Cow::Owned(operand));
                self.at += 1 + end;
            } else {
                let len = rest
                    .find(|c: char| c.is_whitespace() || c == ';')
                    .unwrap_or(rest.len());
                operands.push(Cow::Borrowed(&rest[..len]));
                self.at += len;
            }
        }
        Ok(Some(EpdOperation { opcode, operands }))
    }
}

impl<'a> Iterator for EpdOperations<'a> {
    type Item = Result<EpdOperation<'a>, EpdOperationError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let next = self.next_operation();
        self.failed = next.is_err();
        next.transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_fields_clocks_and_opcodes() {
        let pos = parse_line(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - hmvc 0; fmvn 1; id \"a;b\";",
        )
        .unwrap()
        .unwrap();
        assert_eq!(pos.fullmove_number(), 1);
        let pos = parse_line("8/8/8/8/8/8/8/K6k w - - hmvc 7; fmvn 40;")
            .unwrap()
            .unwrap();
        assert_eq!((pos.halfmove_clock(), pos.fullmove_number()), (7, 40));
        // Six fields win over the opcodes.
        let pos = parse_line("8/8/8/8/8/8/8/K6k w - - 3 9 hmvc 7; fmvn 40;")
            .unwrap()
            .unwrap();
        assert_eq!((pos.halfmove_clock(), pos.fullmove_number()), (3, 9));
        let pos = parse_line("8/8/8/8/8/8/8/K6k w - - bm Kb2; c0 \"x\"")
            .unwrap()
            .unwrap();
        assert_eq!(pos.fullmove_number(), 1);
        assert!(parse_line("   # comment").unwrap().is_none());
        assert!(parse_line("").unwrap().is_none());
        assert!(matches!(
            parse_line("8/8/8/8/8/8/8/K6k w - - hmvc x;"),
            Err(BadLineReason::Opcode(_))
        ));
        assert!(matches!(
            parse_line("8/8/8/8/8/8/8/K6k w - - id \"x;"),
            Err(BadLineReason::Opcode(_))
        ));
        assert!(matches!(
            parse_line("8/8/8/8/8/8/8/K6k w - - 3 9 10"),
            Err(BadLineReason::Opcode(_))
        ));
        assert!(matches!(
            parse_line("8/8/8/8/8/8/8/K6X w - -"),
            Err(BadLineReason::Fen(_))
        ));
        assert_eq!(
            parse_line("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"),
            Err(BadLineReason::NoLegalMoves)
        );
    }

    #[test]
    fn operations_are_tokenized_with_quotes_and_escapes() {
        let ops: Vec<EpdOperation> = epd_operations(
            r#" ce -35; c9 "1/2-1/2";id "a;b" ;bm Nf3 e4 ; c0 "say \"hi\"\\";noop; last 1"#,
        )
        .collect::<Result<_, _>>()
        .unwrap();
        let flat: Vec<(&str, Vec<&str>)> = ops
            .iter()
            .map(|op| (op.opcode, op.operands.iter().map(|o| o.as_ref()).collect()))
            .collect();
        assert_eq!(
            flat,
            vec![
                ("ce", vec!["-35"]),
                ("c9", vec!["1/2-1/2"]),
                ("id", vec!["a;b"]),
                ("bm", vec!["Nf3", "e4"]),
                ("c0", vec!["say \"hi\"\\"]),
                ("noop", vec![]),
                ("last", vec!["1"]),
            ]
        );
        assert!(matches!(ops[1].operands[0], Cow::Borrowed(_)));
        assert!(epd_operations("   ").next().is_none());
        let mut bad = epd_operations("ce 1; 5 x;");
        assert!(bad.next().unwrap().is_ok());
        assert_eq!(
            bad.next(),
            Some(Err(EpdOperationError::ExpectedOpcode {
                found: "5".to_string()
            }))
        );
        assert_eq!(bad.next(), None);
        assert_eq!(
            epd_operations("id \"x\\\"").last(),
            Some(Err(EpdOperationError::UnterminatedString {
                opcode: "id".to_string()
            }))
        );
    }

    #[test]
    fn splits_at_line_ends() {
        let text = b"aaaa\nbb\ncccccc\nd";
        let chunks = split_at_lines(text, 3);
        assert_eq!(chunks, vec![&b"aaaa\n"[..], b"bb\ncccccc\n", b"d"]);
        assert_eq!(chunks.concat(), text);
    }
}
