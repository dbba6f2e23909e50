//! Hand-written SVG pictures of a run: the loss curves and the tuned piece-square tables. Plain
//! SVG 1.1 with no scripts or external fonts, so any browser or `rsvg-convert` shows them.

use super::train::EpochStats;
use crate::eval::{layout, EvalParams};
pub(crate) use crate::page::escape;
use crate::page::{LineChart, Mark, Series};
use std::fmt::Write as _;

/// The loss plot's training and validation colours: the page's first two series colours.
#[cfg(test)]
const TRAIN_COLOUR: &str = crate::page::PALETTE[0];
#[cfg(test)]
const VALIDATION_COLOUR: &str = crate::page::PALETTE[1];
pub(crate) const FONT: &str = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\"";

/// The training and validation error per epoch in one plot (the validation curve when the
/// history has one), with the chosen (best) epoch marked: a `page` line chart, the same drawing
/// as the report's charts, written as a standalone file.
pub(crate) fn loss_svg(history: &[EpochStats], best_epoch: usize, title: &str) -> String {
    let best = history.iter().find(|h| h.epoch == best_epoch);
    let at_best = |v: Option<f64>| v.map_or(String::new(), |v| format!(" ({v:.6})"));
    let mut series = vec![Series {
        label: format!("training{}", at_best(best.map(|b| b.train_mse))),
        points: history
            .iter()
            .map(|h| (h.epoch as f64, h.train_mse))
            .collect(),
        band: Vec::new(),
    }];
    let validation = history.iter().any(|h| h.validation_mse.is_some());
    if validation {
        series.push(Series {
            label: format!("validation{}", at_best(best.and_then(|b| b.validation_mse))),
            points: history
                .iter()
                .filter_map(|h| Some((h.epoch as f64, h.validation_mse?)))
                .collect(),
            band: Vec::new(),
        });
    }
    let chart = LineChart {
        title: title.to_string(),
        description: format!(
            "Mean squared error per epoch{}; epoch {best_epoch} is kept.",
            if validation {
                " on the training and the held-out positions"
            } else {
                " on the training positions"
            }
        ),
        x_label: "epoch".into(),
        y_label: "mean squared error".into(),
        series,
        marks: vec![Mark {
            label: format!("best epoch {best_epoch}"),
            x: best_epoch as f64,
        }],
        rules: Vec::new(),
    };
    chart.standalone_svg()
}

/// A diverging colour for `v` in [−max, max]: blue below zero, white at zero, red above.
fn diverging(v: f64, max: f64) -> (u8, u8, u8) {
    let t = (v / max).clamp(-1.0, 1.0);
    let (end, white) = if t < 0.0 {
        ((33.0, 102.0, 172.0), -t)
    } else {
        ((178.0, 24.0, 43.0), t)
    };
    let mix = |e: f64| (255.0 + (e - 255.0) * white).round() as u8;
    (mix(end.0), mix(end.1), mix(end.2))
}

const PIECES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];

/// Side of one square of a piece-square board, in pixels.
const CELL: f64 = 28.0;

/// The middlegame (`phase` 0) or endgame value of `kind`'s table on `sq`.
fn pst_value(params: &EvalParams, kind: usize, sq: usize, phase: usize) -> i32 {
    let (mg, eg) = params.get(layout::PST + 64 * kind + sq);
    if phase == 0 {
        mg
    } else {
        eg
    }
}

/// Pawns never stand on the first or last rank: those squares are shown blank.
fn pst_used(kind: usize, sq: usize) -> bool {
    kind != 0 || (8..56).contains(&sq)
}

/// The 12 piece-square tables of `params` (middlegame and endgame for each piece) as heat maps
/// on one shared colour scale, each square labelled with its value.
pub(crate) fn pst_svg(params: &EvalParams, title: &str) -> String {
    let board = 8.0 * CELL;
    let gap = 34.0;
    let (left, top) = (70.0, 70.0);
    let row_height = board + 56.0;
    let width = left + 6.0 * (board + gap);
    let height = top + 2.0 * row_height + 70.0;
    // One scale for all boards, saturating at the 95th percentile of the magnitudes so that one
    // extreme table (usually the king's) does not wash out the others.
    let mut magnitudes: Vec<i32> = (0..6)
        .flat_map(|k| (0..64).map(move |sq| (k, sq)))
        .filter(|&(k, sq)| pst_used(k, sq))
        .flat_map(|(k, sq)| {
            [
                pst_value(params, k, sq, 0).abs(),
                pst_value(params, k, sq, 1).abs(),
            ]
        })
        .collect();
    magnitudes.sort_unstable();
    let max = magnitudes[(magnitudes.len() - 1) * 95 / 100].max(1) as f64;

    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" {FONT} font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{:.1}\" y=\"30\" text-anchor=\"middle\" font-size=\"18\">{}</text>\n\
         <text x=\"{:.1}\" y=\"50\" text-anchor=\"middle\" fill=\"#555\">Piece-square tables \
         from White's side (rank 8 at the top), centipawns (colours saturate at the 95th percentile); material not included</text>",
        width / 2.0,
        escape(title),
        width / 2.0
    );
    for (phase, phase_name) in ["middlegame", "endgame"].iter().enumerate() {
        let by = top + phase as f64 * row_height + 20.0;
        let _ = writeln!(
            s,
            "<text x=\"18\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"15\" \
             transform=\"rotate(-90 18 {:.1})\">{phase_name}</text>",
            by + board / 2.0,
            by + board / 2.0
        );
        for (kind, piece) in PIECES.iter().enumerate() {
            let bx = left + kind as f64 * (board + gap);
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"14\">{piece} {}</text>",
                bx + board / 2.0,
                by - 8.0,
                if phase == 0 { "mg" } else { "eg" }
            );
            pst_board(&mut s, params, kind, phase, (bx, by), max);
        }
    }
    colour_scale(&mut s, width, height, max);
    s.push_str("</svg>\n");
    s
}

/// One table at (`bx`, `by`): its squares coloured and labelled, rank and file names, a frame.
fn pst_board(
    s: &mut String,
    params: &EvalParams,
    kind: usize,
    phase: usize,
    (bx, by): (f64, f64),
    max: f64,
) {
    let (cell, board) = (CELL, 8.0 * CELL);
    for row in 0..8 {
        let rank = 7 - row;
        for file in 0..8 {
            let sq = rank * 8 + file;
            let (cx, cy) = (bx + file as f64 * cell, by + row as f64 * cell);
            if !pst_used(kind, sq) {
                let _ = writeln!(
                    s,
                    "<rect x=\"{cx:.1}\" y=\"{cy:.1}\" width=\"{cell}\" height=\"{cell}\" fill=\"#d9d9d9\"/>"
                );
                continue;
            }
            let v = pst_value(params, kind, sq, phase);
            let (r, g, b) = diverging(v as f64, max);
            let ink = if (v.abs() as f64) > 0.6 * max {
                "white"
            } else {
                "#222"
            };
            let _ = writeln!(
                s,
                "<rect x=\"{cx:.1}\" y=\"{cy:.1}\" width=\"{cell}\" height=\"{cell}\" \
                 fill=\"rgb({r},{g},{b})\"/><text x=\"{:.1}\" y=\"{:.1}\" \
                 text-anchor=\"middle\" font-size=\"9\" fill=\"{ink}\">{v}</text>",
                cx + cell / 2.0,
                cy + cell / 2.0 + 3.0
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"10\" fill=\"#555\">{}</text>",
            bx - 4.0,
            by + row as f64 * cell + cell / 2.0 + 4.0,
            rank + 1
        );
    }
    for file in 0..8 {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\" fill=\"#555\">{}</text>",
            bx + file as f64 * cell + cell / 2.0,
            by + board + 13.0,
            (b'a' + file as u8) as char
        );
    }
    let _ = writeln!(
        s,
        "<rect x=\"{bx:.1}\" y=\"{by:.1}\" width=\"{board}\" height=\"{board}\" fill=\"none\" stroke=\"#333\"/>"
    );
}

/// The shared colour scale under the boards, from −`max` to `max` centipawns.
fn colour_scale(s: &mut String, width: f64, height: f64, max: f64) {
    let (sx, sy, sw, sh) = (width / 2.0 - 200.0, height - 50.0, 400.0, 14.0);
    let _ = writeln!(
        s,
        "<defs><linearGradient id=\"scale\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">"
    );
    for i in 0..=10 {
        let t = i as f64 / 10.0;
        let (r, g, b) = diverging((2.0 * t - 1.0) * max, max);
        let _ = writeln!(
            s,
            "<stop offset=\"{t:.1}\" stop-color=\"rgb({r},{g},{b})\"/>"
        );
    }
    let _ = writeln!(
        s,
        "</linearGradient></defs>\n\
         <rect x=\"{sx:.1}\" y=\"{sy:.1}\" width=\"{sw}\" height=\"{sh}\" fill=\"url(#scale)\" stroke=\"#333\"/>"
    );
    for i in 0..=4 {
        let t = i as f64 / 4.0;
        let v = ((2.0 * t - 1.0) * max).round() as i64;
        // The ends saturate: larger magnitudes get the end colours.
        let v = match i {
            0 => format!("≤ {v}"),
            4 => format!("≥ {v}"),
            _ => v.to_string(),
        };
        let tx = sx + t * sw;
        let _ = writeln!(
            s,
            "<line x1=\"{tx:.1}\" y1=\"{:.1}\" x2=\"{tx:.1}\" y2=\"{:.1}\" stroke=\"#333\"/>\
             <text x=\"{tx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{v}</text>",
            sy + sh,
            sy + sh + 5.0,
            sy + sh + 18.0
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">centipawns</text>",
        sx - 10.0,
        sy + 12.0
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_run_blue_white_red() {
        assert_eq!(diverging(0.0, 10.0), (255, 255, 255));
        assert_eq!(diverging(10.0, 10.0), (178, 24, 43));
        assert_eq!(diverging(-20.0, 10.0), (33, 102, 172));
    }

    /// Training and validation errors share one plot: two polylines in their colours, both in
    /// the legend with their values at the kept epoch.
    #[test]
    fn the_loss_plot_holds_both_curves() {
        let history: Vec<EpochStats> = (0..=4)
            .map(|epoch| EpochStats {
                epoch,
                train_mse: 0.1 - 0.01 * epoch as f64,
                validation_mse: Some(0.11 - 0.005 * epoch as f64),
                best_epoch: epoch,
                seconds: 0.0,
            })
            .collect();
        let svg = loss_svg(&history, 4, "t");
        let lines: Vec<&str> = svg.lines().filter(|l| l.contains("<polyline")).collect();
        assert_eq!(lines.len(), 2, "{svg}");
        assert!(lines[0].contains(TRAIN_COLOUR) && lines[1].contains(VALIDATION_COLOUR));
        assert!(
            lines.iter().all(|l| l.matches(',').count() == 5),
            "five points each"
        );
        assert!(svg.contains("training (0.060000)") && svg.contains("validation (0.090000)"));
        let no_validation: Vec<EpochStats> = history
            .iter()
            .map(|h| EpochStats {
                validation_mse: None,
                ..h.clone()
            })
            .collect();
        let svg = loss_svg(&no_validation, 4, "t");
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert!(!svg.contains("validation"));
    }
}
