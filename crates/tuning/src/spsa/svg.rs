//! `trajectory.svg`: one small chart per parameter, its value against the iteration, drawn
//! over the parameter's tuning range with the start value dashed.

use super::plan::SpsaPlan;
use crate::page::{escape, label};
use std::fmt::Write as _;

const PANEL_W: f64 = 260.0;
const PANEL_H: f64 = 130.0;
const COLUMNS: usize = 4;
/// More points than this per line are thinned (evenly), to keep the file small.
const MAX_POINTS: usize = 600;

/// The chart of every parameter's path; `trajectory[k]` is θ after k iterations.
pub(crate) fn trajectory_svg(plan: &SpsaPlan, trajectory: &[Vec<f64>]) -> String {
    let n = plan.params.len();
    let columns = COLUMNS.min(n.max(1));
    let rows = n.div_ceil(columns).max(1);
    let (width, height) = (PANEL_W * columns as f64, PANEL_H * rows as f64 + 30.0);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"11\">"
    );
    let _ = writeln!(
        out,
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"8\" y=\"18\" \
         font-size=\"14\">SPSA: {} iterations of {} ({} pairs each)</text>",
        trajectory.len().saturating_sub(1),
        plan.schedule.iterations,
        plan.pairs_per_iteration
    );
    let last = trajectory.len().saturating_sub(1).max(1) as f64;
    let step = trajectory.len().div_ceil(MAX_POINTS).max(1);
    for (i, param) in plan.params.iter().enumerate() {
        let x0 = PANEL_W * (i % columns) as f64 + 40.0;
        let y0 = PANEL_H * (i / columns) as f64 + 40.0;
        let (w, h) = (PANEL_W - 55.0, PANEL_H - 45.0);
        let span = (param.max - param.min).max(1e-12);
        let x = |k: usize| x0 + w * k as f64 / last;
        let y = |v: f64| y0 + h * (1.0 - (v - param.min) / span);
        let current = trajectory.last().map_or(param.start, |row| row[i]);
        let _ = writeln!(
            out,
            "<text x=\"{x0}\" y=\"{}\">{} = {}</text>",
            y0 - 6.0,
            escape(&param.name),
            label(current)
        );
        let _ = writeln!(
            out,
            "<rect x=\"{x0}\" y=\"{y0}\" width=\"{w}\" height=\"{h}\" fill=\"none\" \
             stroke=\"#bbb\"/>"
        );
        for (v, anchor_y) in [(param.max, y0 + 4.0), (param.min, y0 + h)] {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{anchor_y}\" text-anchor=\"end\" fill=\"#666\">{}</text>",
                x0 - 3.0,
                label(v)
            );
        }
        let _ = writeln!(
            out,
            "<line x1=\"{x0}\" y1=\"{sy:.1}\" x2=\"{:.1}\" y2=\"{sy:.1}\" stroke=\"#999\" \
             stroke-dasharray=\"4 3\"/>",
            x0 + w,
            sy = y(param.start)
        );
        let mut points: Vec<String> = trajectory
            .iter()
            .enumerate()
            .step_by(step)
            .map(|(k, row)| format!("{:.1},{:.1}", x(k), y(row[i])))
            .collect();
        if let Some(row) = trajectory.last() {
            points.push(format!("{:.1},{:.1}", x(trajectory.len() - 1), y(row[i])));
        }
        let _ = writeln!(
            out,
            "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.3\" points=\"{}\"/>",
            points.join(" ")
        );
    }
    out.push_str("</svg>\n");
    out
}
