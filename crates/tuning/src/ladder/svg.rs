//! `ladder.svg`: the climb by generation. The upper panel is the self-play ladder (the sum of the
//! promoted challengers' gate Elo, with its 95 % interval); the lower one the champion's Elo
//! against the anchor panel where it was measured. Plain SVG 1.1, like the tuner's pictures.

use super::record::GenerationRow;
use crate::page::{label, ticks};
use crate::texel::svg::{escape, FONT};
use std::fmt::Write as _;

const LADDER_COLOUR: &str = "#1f77b4";
const ANCHOR_COLOUR: &str = "#e6550d";
const WIDTH: f64 = 820.0;
const PANEL_HEIGHT: f64 = 300.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 50.0;

/// One point with its 95 % half-width; `promoted` draws it filled.
struct Point {
    generation: f64,
    value: f64,
    error: f64,
    filled: bool,
}

/// The picture of a ladder's rows.
pub(crate) fn ladder_svg(rows: &[GenerationRow]) -> String {
    let mut ladder = vec![Point {
        generation: 0.0,
        value: 0.0,
        error: 0.0,
        filled: true,
    }];
    ladder.extend(rows.iter().map(|r| Point {
        generation: f64::from(r.generation),
        value: r.cumulative_elo,
        error: r.cumulative_error,
        filled: r.promoted,
    }));
    let anchors: Vec<Point> = rows
        .iter()
        .filter_map(|r| {
            Some(Point {
                generation: f64::from(r.generation),
                value: r.anchor_elo?,
                error: r.anchor_error.unwrap_or(0.0),
                filled: true,
            })
        })
        .collect();
    let last = rows.last().map_or(1, |r| r.generation).max(1);
    let height = 2.0 * PANEL_HEIGHT;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    panel(
        &mut s,
        0.0,
        "Self-play ladder: summed Elo of promoted challengers (filled: promoted)",
        &ladder,
        last,
        LADDER_COLOUR,
    );
    panel(
        &mut s,
        PANEL_HEIGHT,
        "Champion against the anchor panel (Elo)",
        &anchors,
        last,
        ANCHOR_COLOUR,
    );
    s.push_str("</svg>\n");
    s
}

/// One panel at vertical offset `y0`: axes, ticks, error bars and the line through the points.
fn panel(s: &mut String, y0: f64, title: &str, points: &[Point], last: u32, colour: &str) {
    let (pw, ph) = (WIDTH - LEFT - RIGHT, PANEL_HEIGHT - TOP - BOTTOM);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" {FONT} font-size="15" text-anchor="middle">{}</text>"#,
        WIDTH / 2.0,
        y0 + 28.0,
        escape(title)
    );
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    let (mut lo, mut hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            let e = finite(p.error).min(1000.0);
            (lo.min(p.value - e), hi.max(p.value + e))
        });
    if !lo.is_finite() {
        (lo, hi) = (-10.0, 10.0);
    }
    let pad = ((hi - lo) * 0.08).max(5.0);
    let (lo, hi) = (lo - pad, hi + pad);
    let x = |g: f64| LEFT + pw * g / f64::from(last);
    let y = |v: f64| y0 + TOP + ph * (1.0 - (v - lo) / (hi - lo));
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>"##,
        y0 + TOP
    );
    for v in ticks(lo, hi, 6) {
        let (line_y, text) = (y(v), label(v));
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" x2="{}" y1="{line_y:.1}" y2="{line_y:.1}" stroke="#eee"/><text x="{}" y="{:.1}" {FONT} font-size="11" text-anchor="end">{text}</text>"##,
            LEFT + pw,
            LEFT - 6.0,
            line_y + 4.0,
        );
    }
    for g in ticks(0.0, f64::from(last), 10)
        .into_iter()
        .filter(|g| g.fract() == 0.0)
    {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" {FONT} font-size="11" text-anchor="middle">{}</text>"#,
            x(g),
            y0 + TOP + ph + 16.0,
            label(g)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" {FONT} font-size="12" text-anchor="middle">generation</text>"#,
        LEFT + pw / 2.0,
        y0 + TOP + ph + 34.0
    );
    if points.is_empty() {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" {FONT} font-size="13" fill="#888" text-anchor="middle">not measured yet</text>"##,
            LEFT + pw / 2.0,
            y0 + TOP + ph / 2.0
        );
        return;
    }
    let path: Vec<String> = points
        .iter()
        .map(|p| format!("{:.1},{:.1}", x(p.generation), y(p.value)))
        .collect();
    let _ = writeln!(
        s,
        r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
        path.join(" ")
    );
    for p in points {
        let e = finite(p.error).min(1000.0);
        let (px, top, bottom) = (x(p.generation), y(p.value + e), y(p.value - e));
        let _ = writeln!(
            s,
            r#"<line x1="{px:.1}" x2="{px:.1}" y1="{top:.1}" y2="{bottom:.1}" stroke="{colour}"/><circle cx="{px:.1}" cy="{:.1}" r="4" fill="{}" stroke="{colour}"/>"#,
            y(p.value),
            if p.filled { colour } else { "white" }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(generation: u32, promoted: bool, anchor: Option<f64>) -> GenerationRow {
        GenerationRow {
            generation,
            games: 10,
            positions: 50,
            tune_positions: 50,
            k: 1.0,
            train_mse: 0.1,
            validation_mse: None,
            gate_games: 20,
            sprt: if promoted { "H1" } else { "H0" }.into(),
            llr: Some(3.0),
            elo: Some(30.0),
            elo_error: Some(20.0),
            promoted,
            cumulative_elo: 30.0 * f64::from(generation),
            cumulative_error: 20.0,
            anchor_elo: anchor,
            anchor_error: anchor.map(|_| 40.0),
            anchor_games: anchor.map(|_| 100),
            seconds: 1.0,
        }
    }

    #[test]
    fn every_generation_and_anchor_measurement_is_drawn() {
        let rows = [
            row(1, true, None),
            row(2, false, Some(1500.0)),
            row(3, true, None),
        ];
        let svg = ladder_svg(&rows);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        // The start, three generations and one anchor point.
        assert_eq!(svg.matches("<circle").count(), 5);
        assert_eq!(
            svg.matches("fill=\"white\" stroke").count(),
            1,
            "one rejected challenger"
        );
        assert!(ladder_svg(&[]).contains("not measured yet"));
    }
}
