//! The dialect's parser, option by option.

use super::engine::{parse_tc, shell_words};
use super::tokens::is_option;
use super::*;
use sparring::arena::config::{
    DrawAdjudication, EngineKind, MatchConfig, OpeningOrder, ResignAdjudication, ResultsFormat,
    TimeControl, TournamentKind,
};
use sparring::record::{PgnNotation, PgnStyle};
use sparring::stats::SprtModel;
use std::time::Duration;

mod engine_keys;
mod engines;
mod matches;
mod output;
mod refusals;
mod syntax;

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

fn config(line: &str) -> MatchConfig {
    match parse(&args(line), Flavor::Fastchess).expect("parses") {
        Request::Match(m) => m.config,
        other => panic!("expected a match, got {other:?}"),
    }
}

fn error(line: &str) -> String {
    parse(&args(line), Flavor::Fastchess).unwrap_err().0
}

const TWO: &str = "-engine builtin name=a nodes=100 -engine builtin name=b nodes=100";

fn parsed(line: &str, flavor: Flavor) -> DialectMatch {
    match parse(&args(line), flavor).expect("parses") {
        Request::Match(m) => *m,
        other => panic!("expected a match, got {other:?}"),
    }
}
