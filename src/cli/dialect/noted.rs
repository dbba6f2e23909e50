//! The options sparring accepts with a one-line note because they change nothing it does
//! (`-scoreinterval`, `-resultformat`, ...), and the refusal of unknown options.

use super::options::Settings;
use super::tokens::{usage_error, Group};
use crate::cli::UsageError;

/// The options accepted with a note (sparring has no use for them), and the refusals.
pub(super) fn noted(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    let option = g.option.as_str();
    match option {
        "-scoreinterval" => {
            let _: u32 = g.number("a number of games")?;
            s.notes.push(
                "-scoreinterval: sparring has no separate score-line interval; accepted and not used"
                    .to_string(),
            );
        }
        "-autosaveinterval" => {
            let _: u32 = g.number("a number of games")?;
            s.notes.push(
                "-autosaveinterval: sparring records every finished game in games.csv (continue a run with --resume); accepted and not used"
                    .to_string(),
            );
        }
        "-resultformat" => {
            g.one()?;
            s.notes.push(
                "-resultformat: sparring's results lines have the fields fastchess and cutechess-cli print by default; accepted and not used"
                    .to_string(),
            );
        }
        "-outcomeinterval" => {
            let _: u32 = g.number("a number of games")?;
            s.notes.push(
                "-outcomeinterval: sparring prints no outcome tables (games.csv has every game's result and reason); accepted and not used"
                    .to_string(),
            );
        }
        "-bookmode" => {
            if !matches!(g.one()?, "ram" | "disk") {
                return Err(usage_error(format!(
                    "-bookmode {}: expected ram or disk",
                    g.one()?
                )));
            }
            s.notes.push(
                "-bookmode: sparring reads an engine's Polyglot book (book=) into memory whatever the mode; accepted and not used"
                    .to_string(),
            );
        }
        _ => {
            return Err(usage_error(format!(
                "{option}: unknown option (see `sparring match -help`)"
            )))
        }
    }
    Ok(())
}
