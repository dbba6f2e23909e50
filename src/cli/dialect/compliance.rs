//! fastchess's compliance options: `-check-mate-pvs`, `-testEnv`, `-crc32 pgn=true`,
//! `-use-affinity [CPUS]` and `-show-latency`, read into the configuration's `[compliance]`
//! table (docs/command-line-dialect.md says what each does).

use super::options::Settings;
use super::tokens::{bad, boolean, usage_error, Group};
use crate::cli::UsageError;
use sparring::arena::config::{parse_cpu_list, Affinity};

/// Reads `g` when it is one of the compliance options; false when it is not.
pub(super) fn compliance_option(g: &Group, s: &mut Settings) -> Result<bool, UsageError> {
    let option = g.option.as_str();
    let c = &mut s.compliance;
    match option {
        "-check-mate-pvs" => {
            g.none()?;
            c.mate_pvs = true;
        }
        "-testEnv" => {
            g.none()?;
            c.one_line = true;
        }
        "-show-latency" => {
            g.none()?;
            c.latency = true;
        }
        "-crc32" => {
            for (k, v) in g.pairs()? {
                match k.as_str() {
                    "pgn" => c.crc32 = boolean(option, &k, &v)?,
                    _ => return Err(bad(option, &k, &v, "the key pgn")),
                }
            }
        }
        "-use-affinity" => {
            // fastchess reads the first token only.
            c.affinity = Some(match g.params.first() {
                None => Affinity::Auto,
                Some(list) => Affinity::Cpus(parse_cpu_list(list).ok_or_else(|| {
                    usage_error(format!(
                        "-use-affinity {list}: bad CPU list (expected numbers and ranges low-high, comma-separated, e.g. 0-3,5; at most 4096 CPUs)"
                    ))
                })?),
            });
        }
        _ => return Ok(false),
    }
    Ok(true)
}
