//! EPD suites: one position per line, a FEN of 4 or 6 fields and optional EPD opcodes. The file is
//! cut into chunks at line ends and the chunks are parsed in parallel, then joined in order.

use super::error::BadLineReason;
use super::store::{Store, TooLarge};
use crate::board::Position;
use rayon::prelude::*;

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

/// Checks the opcode syntax (`name operand* ;`, with quoted operands that may hold `;`) and
/// returns the `hmvc` and `fmvn` operands. A missing `;` after the last opcode is tolerated.
fn parse_opcodes(text: &str) -> Result<(Option<u16>, Option<u16>), BadLineReason> {
    let bad = |msg: String| Err(BadLineReason::Opcode(msg));
    let (mut hmvc, mut fmvn) = (None, None);
    let mut chars = text.char_indices().peekable();
    loop {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let Some(&(start, first)) = chars.peek() else {
            break;
        };
        if !first.is_ascii_alphabetic() {
            let word = text[start..].split_whitespace().next().unwrap_or("");
            return bad(format!("expected an opcode name, found '{word}'"));
        }
        let mut end = start;
        while let Some((i, c)) = chars.next_if(|(_, c)| c.is_ascii_alphanumeric() || *c == '_') {
            end = i + c.len_utf8();
        }
        let name = &text[start..end];
        let mut operands: Vec<String> = Vec::new();
        loop {
            while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
            match chars.next() {
                None | Some((_, ';')) => break,
                Some((_, '"')) => {
                    let mut operand = String::new();
                    loop {
                        match chars.next() {
                            None => return bad(format!("{name}: unterminated string")),
                            Some((_, '"')) => break,
                            Some((_, '\\')) => {
                                if let Some((_, c)) = chars.next() {
                                    operand.push(c);
                                }
                            }
                            Some((_, c)) => operand.push(c),
                        }
                    }
                    operands.push(operand);
                }
                Some((_, c)) => {
                    let mut operand = c.to_string();
                    while let Some((_, c)) = chars.next_if(|(_, c)| !c.is_whitespace() && *c != ';')
                    {
                        operand.push(c);
                    }
                    operands.push(operand);
                }
            }
        }
        let number = |max_ok: fn(u16) -> bool| -> Result<u16, BadLineReason> {
            match &operands[..] {
                [n] => n.parse::<u16>().ok().filter(|&n| max_ok(n)).ok_or_else(|| {
                    BadLineReason::Opcode(format!("{name}: '{n}' is not a valid count"))
                }),
                _ => Err(BadLineReason::Opcode(format!(
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
    fn splits_at_line_ends() {
        let text = b"aaaa\nbb\ncccccc\nd";
        let chunks = split_at_lines(text, 3);
        assert_eq!(chunks, vec![&b"aaaa\n"[..], b"bb\ncccccc\n", b"d"]);
        assert_eq!(chunks.concat(), text);
    }
}
