//! The board, notation and protocol errors: FEN, moves, SAN, EPD operations, training lines, UCI.

use super::*;

#[test]
fn every_epd_operation_error_variant_has_its_class() {
    check(vec![
        (EpdOperationError::ExpectedOpcode { found: s() }, BadInput),
        (
            EpdOperationError::UnterminatedString { opcode: s() },
            BadInput,
        ),
    ]);
}

#[test]
fn every_position_line_error_variant_has_its_class() {
    check(vec![
        (PositionLineError::Fen(fen()), BadInput),
        (PositionLineError::MissingLabel, BadInput),
        (PositionLineError::BadLabel { found: s() }, BadInput),
        (PositionLineError::Duplicate { opcode: s() }, BadInput),
        (PositionLineError::TrailingText { found: s() }, BadInput),
        (
            PositionLineError::Operation(EpdOperationError::ExpectedOpcode { found: s() }),
            BadInput,
        ),
        (PositionLineError::BadScore { found: s() }, BadInput),
        (PositionLineError::NotUtf8, BadInput),
    ]);
}

#[test]
fn every_uci_error_variant_has_its_class() {
    check(vec![
        (UciError::Weights(weights()), BadInput),
        (UciError::Weights(weights_write()), FailedRun),
        (UciError::Input(io()), FailedRun),
    ]);
}

#[test]
fn every_fen_error_variant_has_its_class() {
    check(vec![
        (FenError::FieldCount { found: 1 }, BadInput),
        (FenError::RankCount { found: 1 }, BadInput),
        (FenError::BadPiece { rank: 'x', ch: 'x' }, BadInput),
        (FenError::RankTooLong { rank: 'x' }, BadInput),
        (
            FenError::RankTooShort {
                rank: 'x',
                squares: 1,
            },
            BadInput,
        ),
        (
            FenError::MissingKing {
                color: Color::White,
            },
            BadInput,
        ),
        (
            FenError::ExtraKing {
                color: Color::White,
                count: 1,
            },
            BadInput,
        ),
        (
            FenError::PawnOnBackRank {
                square: Square::from_index(0),
            },
            BadInput,
        ),
        (
            FenError::TooManyPieces {
                color: Color::White,
                count: 1,
                what: "x",
            },
            BadInput,
        ),
        (FenError::BadSideToMove { found: s() }, BadInput),
        (
            FenError::OpponentInCheck {
                color: Color::White,
            },
            BadInput,
        ),
        (
            FenError::ImpossibleCheck {
                color: Color::White,
                checkers: 1,
            },
            BadInput,
        ),
        (FenError::BadCastling { found: s() }, BadInput),
        (
            FenError::CastlingMismatch {
                right: 'x',
                color: Color::White,
                needs: s(),
            },
            BadInput,
        ),
        (FenError::BadEnPassant { found: s() }, BadInput),
        (
            FenError::ImpossibleEnPassant {
                square: Square::from_index(0),
                reason: "x",
            },
            BadInput,
        ),
        (FenError::BadHalfmoveClock { found: s() }, BadInput),
        (FenError::BadFullmoveNumber { found: s() }, BadInput),
    ]);
}

#[test]
fn every_move_parse_error_variant_has_its_class() {
    check(vec![
        (MoveParseError::Malformed { text: s() }, BadInput),
        (
            MoveParseError::Illegal {
                text: s(),
                reason: "x",
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_san_error_variant_has_its_class() {
    check(vec![
        (
            SanError::Malformed {
                text: s(),
                reason: "x",
            },
            BadInput,
        ),
        (
            SanError::Illegal {
                text: s(),
                reason: "x",
            },
            BadInput,
        ),
        (
            SanError::Ambiguous {
                text: s(),
                candidates: Vec::new(),
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_position_error_variant_has_its_class() {
    check(vec![
        (PositionError::MissingSetup, BadInput),
        (PositionError::MissingFen, BadInput),
        (PositionError::BadFen(fen()), BadInput),
        (
            PositionError::BadMove {
                number: 1,
                source: MoveParseError::Malformed { text: s() },
            },
            BadInput,
        ),
    ]);
}
