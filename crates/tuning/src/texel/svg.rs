//! Hand-written SVG pictures of a run: the loss curves and the tuned piece-square tables. Plain
//! SVG 1.1 with no scripts or external fonts, so any browser or `rsvg-convert` shows them.

use super::train::EpochStats;
use crate::eval::{layout, EvalParams};
pub(crate) use crate::page::escape;
use std::fmt::Write as _;

const TRAIN_COLOUR: &str = "#1f77b4";
const VALIDATION_COLOUR: &str = "#e6550d";
pub(crate) const FONT: &str = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\"";

/// About `target` round tick values (1, 2 or 5 × 10^n apart) covering [lo, hi].
pub(crate) fn ticks(lo: f64, hi: f64, target: usize) -> (Vec<f64>, f64) {
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let raw = span / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    ((first..=last).map(|i| i as f64 * step).collect(), step)
}

/// A tick label with as many decimals as the step needs.
pub(crate) fn tick_label(v: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    format!("{v:.decimals$}")
}

/// Where the loss plot's data goes: the plotting area and the value range it shows.
struct LossFrame {
    width: f64,
    height: f64,
    left: f64,
    top: f64,
    pw: f64,
    ph: f64,
    last_epoch: f64,
    lo: f64,
    hi: f64,
}

impl LossFrame {
    /// A frame fitting every training and validation error of `history`.
    fn new(history: &[EpochStats]) -> LossFrame {
        let (width, height) = (820.0, 500.0);
        let (left, right, top, bottom) = (90.0, 30.0, 50.0, 60.0);
        let last_epoch = history.last().map_or(1, |h| h.epoch).max(1) as f64;
        let values = history
            .iter()
            .flat_map(|h| std::iter::once(h.train_mse).chain(h.validation_mse));
        let (mut lo, mut hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        if !lo.is_finite() {
            (lo, hi) = (0.0, 1.0);
        }
        let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-4).max(1e-9);
        LossFrame {
            width,
            height,
            left,
            top,
            pw: width - left - right,
            ph: height - top - bottom,
            last_epoch,
            lo: lo - pad,
            hi: hi + pad,
        }
    }

    fn x(&self, epoch: f64) -> f64 {
        self.left + self.pw * epoch / self.last_epoch
    }

    fn y(&self, v: f64) -> f64 {
        self.top + self.ph * (1.0 - (v - self.lo) / (self.hi - self.lo))
    }

    /// The grid with its tick labels, the frame and the axis titles.
    fn axes(&self, s: &mut String) {
        let (left, top, pw, ph) = (self.left, self.top, self.pw, self.ph);
        let (yticks, ystep) = ticks(self.lo, self.hi, 6);
        for v in &yticks {
            let yy = self.y(*v);
            let _ = writeln!(
                s,
                "<line x1=\"{left}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" stroke=\"#e5e5e5\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                left + pw,
                left - 8.0,
                yy + 4.0,
                tick_label(*v, ystep)
            );
        }
        let (xticks, _) = ticks(0.0, self.last_epoch, 8);
        for v in &xticks {
            let xx = self.x(*v);
            let _ = writeln!(
                s,
                "<line x1=\"{xx:.1}\" y1=\"{top}\" x2=\"{xx:.1}\" y2=\"{:.1}\" stroke=\"#e5e5e5\"/>\
                 <text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                top + ph,
                top + ph + 20.0,
                *v as u64
            );
        }
        let _ = writeln!(
            s,
            "<rect x=\"{left}\" y=\"{top}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#333\"/>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">epoch</text>\n\
             <text x=\"20\" y=\"{:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 20 {:.1})\">mean squared error</text>",
            left + pw / 2.0,
            self.height - 15.0,
            top + ph / 2.0,
            top + ph / 2.0
        );
    }

    /// One series as a polyline (nothing when `pick` gives no point).
    fn curve(
        &self,
        s: &mut String,
        history: &[EpochStats],
        colour: &str,
        pick: &dyn Fn(&EpochStats) -> Option<f64>,
    ) {
        let points: Vec<String> = history
            .iter()
            .filter_map(|h| {
                pick(h).map(|v| format!("{:.2},{:.2}", self.x(h.epoch as f64), self.y(v)))
            })
            .collect();
        if !points.is_empty() {
            let _ = writeln!(
                s,
                "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>",
                points.join(" ")
            );
        }
    }

    /// The legend: a line of each series' colour and its label.
    fn legend(&self, s: &mut String, rows: &[(&str, String)]) {
        let lx = self.left + self.pw - 230.0;
        let _ = writeln!(
            s,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"220\" height=\"{}\" fill=\"white\" \
             fill-opacity=\"0.9\" stroke=\"#999\"/>",
            lx,
            self.top + 24.0,
            10 + 20 * rows.len()
        );
        for (i, (colour, label)) in rows.iter().enumerate() {
            let ly = self.top + 40.0 + 20.0 * i as f64;
            let _ = writeln!(
                s,
                "<line x1=\"{:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" stroke=\"{colour}\" \
                 stroke-width=\"3\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                lx + 10.0,
                lx + 34.0,
                lx + 42.0,
                ly + 4.0,
                escape(label)
            );
        }
    }
}

/// The training and validation error per epoch in one plot (the validation curve when the
/// history has one), with the chosen (best) epoch marked.
pub fn loss_svg(history: &[EpochStats], best_epoch: usize, title: &str) -> String {
    let f = LossFrame::new(history);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" {FONT} font-size=\"13\">",
        w = f.width,
        h = f.height
    );
    let _ = writeln!(
        s,
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"28\" text-anchor=\"middle\" font-size=\"17\">{}</text>",
        f.width / 2.0,
        escape(title)
    );
    f.axes(&mut s);
    // The chosen epoch.
    let bx = f.x(best_epoch as f64);
    let _ = writeln!(
        s,
        "<line x1=\"{bx:.1}\" y1=\"{top}\" x2=\"{bx:.1}\" y2=\"{:.1}\" stroke=\"#555\" \
         stroke-dasharray=\"5,4\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" fill=\"#555\">best epoch {best_epoch}</text>",
        f.top + f.ph,
        bx + 5.0,
        f.top + 16.0,
        top = f.top
    );
    f.curve(&mut s, history, TRAIN_COLOUR, &|h| Some(h.train_mse));
    f.curve(&mut s, history, VALIDATION_COLOUR, &|h| h.validation_mse);
    // Legend with the values at the chosen epoch.
    let best = history.iter().find(|h| h.epoch == best_epoch);
    let mut rows = vec![(
        TRAIN_COLOUR,
        format!(
            "training{}",
            best.map_or(String::new(), |b| format!(" ({:.6})", b.train_mse))
        ),
    )];
    if history.iter().any(|h| h.validation_mse.is_some()) {
        rows.push((
            VALIDATION_COLOUR,
            format!(
                "validation{}",
                best.and_then(|b| b.validation_mse)
                    .map_or(String::new(), |v| format!(" ({v:.6})"))
            ),
        ));
    }
    f.legend(&mut s, &rows);
    s.push_str("</svg>\n");
    s
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
pub fn pst_svg(params: &EvalParams, title: &str) -> String {
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
    fn ticks_are_round_and_cover_the_range() {
        let (t, step) = ticks(0.0712, 0.0831, 6);
        assert_eq!(step, 0.002);
        assert!(t.first().unwrap() >= &0.0712 && t.last().unwrap() <= &0.0831);
        assert_eq!(tick_label(0.072, step), "0.072");
        let (t, step) = ticks(0.0, 2000.0, 8);
        assert_eq!(step, 500.0);
        assert_eq!(t, vec![0.0, 500.0, 1000.0, 1500.0, 2000.0]);
    }

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
