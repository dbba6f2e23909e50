//! What cutechess-cli's per-engine keys add to an external engine, beyond its command and
//! options: how it is started and driven (pondering, start-up lines, timeouts, ...). Every
//! field's default is the behaviour without the key.

use crate::board::Color;
use crate::score::Score;
use std::path::PathBuf;
use std::time::Duration;

/// The smallest and largest `tscale` factor cutechess-cli accepts.
pub const TIMEOUT_SCALE_RANGE: (f64, f64) = (0.2, 120.0);

/// The per-engine settings of an external engine (UCI or xboard).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExternalSettings {
    /// cutechess's `ponder`: the engine thinks on the opponent's time (UCI `go ponder` on its
    /// predicted reply, then `ponderhit` or `stop`; xboard `hard`).
    pub ponder: bool,
    /// The run's Syzygy tables (`adjudication.tablebase.path`), told to an xboard engine
    /// that reads them (`egtpath syzygy PATH`). Set by the runner, not a configuration key.
    pub syzygy_path: Option<PathBuf>,
    /// cutechess's `initstr`: lines written to the engine's standard input as it starts,
    /// before the protocol's first word (`uci`, `xboard`).
    pub init_strings: Vec<String>,
    /// cutechess's `stderr`: the engine's standard error is appended to this file (every
    /// process of the engine appends, so none loses another's lines).
    pub stderr_file: Option<PathBuf>,
    /// cutechess's `trust`: an xboard engine's result claims stand without being checked
    /// against the board.
    pub trust_claims: bool,
    /// cutechess's `whitepov`: the engine reports scores from White's point of view, so they
    /// are negated when it plays Black.
    pub white_pov: bool,
    /// cutechess's `tscale`: the factor on the engine's protocol timeouts (start-up, `isready`
    /// and `ping`, the wait after `stop`, the grace after `quit`); None is 1.
    pub timeout_scale: Option<f64>,
    /// cutechess's `debug`: a UCI engine is sent `debug on` before each game.
    pub debug: bool,
    /// cutechess's `book`: the engine's own Polyglot book, from which the runner plays its
    /// moves while the book has one (within `book_depth`).
    pub book: Option<PathBuf>,
    /// cutechess's `bookdepth`: the book is used within this many full moves of the game's
    /// start; None is cutechess's 1000.
    pub book_depth: Option<u32>,
}

impl ExternalSettings {
    /// The book depth in full moves when none is given (cutechess-cli's).
    pub(crate) const DEFAULT_BOOK_DEPTH: u32 = 1000;

    /// A protocol timeout scaled by `timeout_scale`.
    pub fn scaled(&self, timeout: Duration) -> Duration {
        match self.timeout_scale {
            Some(factor) => timeout.mul_f64(factor),
            None => timeout,
        }
    }

    /// `score` as the runner reads scores (the mover's point of view), given that the engine
    /// played `mover`: negated for Black with `white_pov`.
    pub(crate) fn mover_score(&self, score: Option<Score>, mover: Color) -> Option<Score> {
        match score {
            Some(score) if self.white_pov && mover == Color::Black => Some(match score {
                Score::Cp(cp) => Score::Cp(cp.saturating_neg()),
                Score::Mate(n) => Score::Mate(n.saturating_neg()),
            }),
            other => other,
        }
    }

    /// The names of the keys set that only an external engine takes (for the built-in
    /// engine's refusal), as the TOML names them.
    pub(crate) fn external_only_keys(&self) -> Vec<&'static str> {
        let set = [
            ("ponder", self.ponder),
            ("init_strings", !self.init_strings.is_empty()),
            ("stderr_file", self.stderr_file.is_some()),
            ("trust_claims", self.trust_claims),
            ("white_pov", self.white_pov),
            ("timeout_scale", self.timeout_scale.is_some()),
            ("debug", self.debug),
            ("book", self.book.is_some()),
            ("book_depth", self.book_depth.is_some()),
        ];
        set.into_iter()
            .filter(|(_, on)| *on)
            .map(|(k, _)| k)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn white_pov_negates_black_scores_only_and_tscale_scales() {
        let s = ExternalSettings {
            white_pov: true,
            timeout_scale: Some(2.5),
            ..ExternalSettings::default()
        };
        assert_eq!(
            s.mover_score(Some(Score::Cp(30)), Color::Black),
            Some(Score::Cp(-30))
        );
        assert_eq!(
            s.mover_score(Some(Score::Mate(3)), Color::Black),
            Some(Score::Mate(-3))
        );
        assert_eq!(
            s.mover_score(Some(Score::Cp(30)), Color::White),
            Some(Score::Cp(30))
        );
        let plain = ExternalSettings::default();
        assert_eq!(
            plain.mover_score(Some(Score::Cp(30)), Color::Black),
            Some(Score::Cp(30))
        );
        assert_eq!(s.scaled(Duration::from_secs(2)), Duration::from_secs(5));
        assert_eq!(plain.scaled(Duration::from_secs(2)), Duration::from_secs(2));
        assert_eq!(s.external_only_keys(), ["white_pov", "timeout_scale"]);
    }
}
