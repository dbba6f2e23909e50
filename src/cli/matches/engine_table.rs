//! The per-engine figures table that ends every run, whatever the results format: depth,
//! speed, time per move, time left, failures.

use sparring::arena::EngineFigures;

/// The table's lines; none when no engine finished a game.
pub(super) fn engine_table(names: &[String], figures: &[EngineFigures]) -> Vec<String> {
    if figures.iter().all(|f| f.games == 0) {
        return Vec::new();
    }
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(25);
    let mut lines = vec![format!(
        "{:<width$} {:>7} {:>7} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8}",
        "Engine",
        "Games",
        "Depth",
        "NPS",
        "ms/move",
        "Left ms",
        "Timeout",
        "Crashed",
        "Stalled",
        "Illegal"
    )];
    let ms = |d: Option<std::time::Duration>| {
        d.map_or("-".to_string(), |d| {
            format!("{:.1}", d.as_secs_f64() * 1000.0)
        })
    };
    for (name, f) in names.iter().zip(figures) {
        lines.push(format!(
            "{:<width$} {:>7} {:>7} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8}",
            name,
            f.games,
            f.average_depth()
                .map_or("-".to_string(), |d| format!("{d:.2}")),
            f.nodes_per_second()
                .map_or("-".to_string(), |n| format!("{n:.0}")),
            ms(f.average_move_time()),
            ms(f.average_time_left()),
            f.time_forfeits,
            f.disconnects,
            f.stalls,
            f.illegal_moves
        ));
    }
    lines
}

/// The compliance warnings per engine (fastchess's `Warning; ...` checks, written to the
/// engine log and, in the fastchess dialect, to the console); nothing when there were none.
pub(super) fn warning_counts(names: &[String], figures: &[EngineFigures]) -> Vec<String> {
    if figures.iter().all(|f| f.compliance_warnings == 0) {
        return Vec::new();
    }
    let counts: Vec<String> = names
        .iter()
        .zip(figures)
        .map(|(name, f)| format!("{name} {}", f.compliance_warnings))
        .collect();
    vec![format!(
        "Compliance warnings (the engine log has each): {}",
        counts.join(", ")
    )]
}
