//! A line chart as inline SVG: series of (x, y) points, each with an optional band (a
//! confidence interval drawn as a shaded area), horizontal rules (bounds, a start value) and
//! vertical marks (a chosen epoch). Long series are thinned evenly so a chart of 100,000 games
//! stays a few kilobytes. The same drawing makes the tuners' standalone SVG files.

use super::{escape, label, DASHES, PALETTE};
use std::fmt::Write as _;

/// More points than this per series are thinned (evenly, the last kept).
const MAX_POINTS: usize = 500;
const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 320.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 46.0;

/// One line of a chart.
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// The legend's text.
    pub label: String,
    /// (x, y) in order of x; non-finite values are left out.
    pub points: Vec<(f64, f64)>,
    /// (x, lower, upper): the band drawn around the line, if any.
    pub band: Vec<(f64, f64, f64)>,
}

/// A horizontal line across the chart at `y`, labelled.
#[derive(Clone, Debug)]
pub struct Rule {
    /// What the line is (shown at its right end).
    pub label: String,
    /// Where.
    pub y: f64,
}

/// A vertical line across the chart at `x`, labelled (at its top).
#[derive(Clone, Debug)]
pub struct Mark {
    /// What the line is.
    pub label: String,
    /// Where.
    pub x: f64,
}

/// A line chart with its text alternative.
#[derive(Clone, Debug, Default)]
pub struct LineChart {
    /// The chart's title (shown, and the SVG's `<title>`).
    pub title: String,
    /// What the chart says, in words (the SVG's `<desc>`), for screen readers and text browsers.
    pub description: String,
    /// The x axis' name.
    pub x_label: String,
    /// The y axis' name.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
    /// Vertical marks.
    pub marks: Vec<Mark>,
    /// Horizontal rules.
    pub rules: Vec<Rule>,
}

/// Every `step`-th element and the last, so at most about `max` remain.
pub(crate) fn thin<T: Copy>(items: &[T], max: usize) -> Vec<T> {
    let step = items.len().div_ceil(max.max(1)).max(1);
    let mut kept: Vec<T> = items.iter().copied().step_by(step).collect();
    if items.len() > 1 && (items.len() - 1) % step != 0 {
        kept.push(items[items.len() - 1]);
    }
    kept
}

/// Round tick values covering [lo, hi], about `count` of them (1, 2, 2.5 or 5 × 10^n apart).
pub fn ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    let span = (hi - lo).max(1e-12);
    let raw = span / count.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// A marker shape for series `index` centred on (x, y).
pub(crate) fn marker(index: usize, x: f64, y: f64, colour: &str) -> String {
    match index % 4 {
        0 => format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3\" fill=\"{colour}\"/>"),
        1 => format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"6\" height=\"6\" fill=\"{colour}\"/>",
            x - 3.0,
            y - 3.0
        ),
        2 => format!(
            "<path d=\"M{x:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z\" fill=\"{colour}\"/>",
            y - 4.0,
            x + 4.0,
            y + 3.0,
            x - 4.0,
            y + 3.0
        ),
        _ => format!(
            "<path d=\"M{x:.1} {:.1}L{:.1} {y:.1}L{x:.1} {:.1}L{:.1} {y:.1}Z\" fill=\"none\" \
             stroke=\"{colour}\" stroke-width=\"1.5\"/>",
            y - 4.0,
            x + 4.0,
            y + 4.0,
            x - 4.0
        ),
    }
}

impl LineChart {
    /// The x and y ranges of everything drawn (finite values only), y padded a little.
    fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        let mut see_y = |y: f64| {
            if y.is_finite() {
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
        };
        for m in &self.marks {
            if m.x.is_finite() {
                x0 = x0.min(m.x);
                x1 = x1.max(m.x);
            }
        }
        for s in &self.series {
            for &(x, y) in &s.points {
                if x.is_finite() && y.is_finite() {
                    x0 = x0.min(x);
                    x1 = x1.max(x);
                    see_y(y);
                }
            }
            for &(_, lo, hi) in &s.band {
                see_y(lo);
                see_y(hi);
            }
        }
        for r in &self.rules {
            see_y(r.y);
        }
        if x0 > x1 {
            (x0, x1) = (0.0, 1.0);
        }
        if y0 > y1 {
            (y0, y1) = (0.0, 1.0);
        }
        if x1 - x0 < 1e-12 {
            x1 = x0 + 1.0;
        }
        let pad = ((y1 - y0) * 0.05).max(1e-9);
        ((x0, x1), (y0 - pad, y1 + pad))
    }

    /// The chart as an `<svg role="img">` element with `<title>` and `<desc>`, for a page.
    pub fn svg(&self) -> String {
        self.draw("")
    }

    /// The chart as a standalone SVG file (with its namespace), as the tuners write them.
    pub fn standalone_svg(&self) -> String {
        self.draw("xmlns=\"http://www.w3.org/2000/svg\" ")
    }

    fn draw(&self, namespace: &str) -> String {
        let ((x0, x1), (y0, y1)) = self.ranges();
        let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        let sx = |x: f64| LEFT + pw * (x - x0) / (x1 - x0);
        let sy = |y: f64| TOP + ph * (1.0 - (y.clamp(y0, y1) - y0) / (y1 - y0));
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg {namespace}viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
             role=\"img\" font-family=\"sans-serif\" font-size=\"11\">\n<title>{}</title>\n\
             <desc>{}</desc>\n<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#fff\"/>\n\
             <text x=\"{LEFT}\" y=\"20\" font-size=\"14\">{}</text>",
            escape(&self.title),
            escape(&self.description),
            escape(&self.title)
        );
        self.axes(&mut s, (x0, x1), (y0, y1), &sx, &sy);
        for (i, series) in self.series.iter().enumerate() {
            draw_series(&mut s, i, series, &sx, &sy);
        }
        for r in &self.rules {
            let y = sy(r.y);
            let _ = writeln!(
                s,
                "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#555\" \
                 stroke-dasharray=\"5 4\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" \
                 fill=\"#333\">{}</text>",
                LEFT + pw,
                LEFT + pw - 4.0,
                y - 4.0,
                escape(&r.label)
            );
        }
        for m in &self.marks {
            let x = sx(m.x);
            let _ = writeln!(
                s,
                "<line x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#555\" \
                 stroke-dasharray=\"5 4\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#333\">{}</text>",
                TOP + ph,
                x + 4.0,
                TOP + 14.0,
                escape(&m.label)
            );
        }
        self.legend(&mut s);
        s.push_str("</svg>\n");
        s
    }

    fn axes(
        &self,
        s: &mut String,
        (x0, x1): (f64, f64),
        (y0, y1): (f64, f64),
        sx: &dyn Fn(f64) -> f64,
        sy: &dyn Fn(f64) -> f64,
    ) {
        let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        let _ = writeln!(
            s,
            "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" \
             stroke=\"#888\"/>"
        );
        for t in ticks(y0, y1, 5) {
            let y = sy(t);
            let _ = writeln!(
                s,
                "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#e4e4e4\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                LEFT + pw,
                LEFT - 4.0,
                y + 4.0,
                label(t)
            );
        }
        for t in ticks(x0, x1, 6) {
            let x = sx(t);
            let _ = writeln!(
                s,
                "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#888\"/>\
                 <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                TOP + ph,
                TOP + ph + 4.0,
                TOP + ph + 16.0,
                label(t)
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\
             <text x=\"14\" y=\"{:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {:.1})\">{}</text>",
            LEFT + pw / 2.0,
            HEIGHT - 8.0,
            escape(&self.x_label),
            TOP + ph / 2.0,
            TOP + ph / 2.0,
            escape(&self.y_label)
        );
    }

    fn legend(&self, s: &mut String) {
        let mut x = (LEFT + 240.0).max(LEFT + 20.0 + 7.8 * self.title.chars().count() as f64);
        for (i, series) in self.series.iter().enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            let _ = writeln!(
                s,
                "<line x1=\"{x:.1}\" y1=\"16\" x2=\"{:.1}\" y2=\"16\" stroke=\"{colour}\" \
                 stroke-width=\"2\" stroke-dasharray=\"{}\"/>{}<text x=\"{:.1}\" y=\"20\">{}</text>",
                x + 28.0,
                DASHES[i % DASHES.len()],
                marker(i, x + 14.0, 16.0, colour),
                x + 32.0,
                escape(&series.label)
            );
            x += 40.0 + 6.5 * series.label.chars().count() as f64;
        }
    }
}

/// One series: its band, its line and a few markers.
fn draw_series(
    s: &mut String,
    index: usize,
    series: &Series,
    sx: &dyn Fn(f64) -> f64,
    sy: &dyn Fn(f64) -> f64,
) {
    let colour = PALETTE[index % PALETTE.len()];
    let band: Vec<(f64, f64, f64)> = series
        .band
        .iter()
        .copied()
        .filter(|(x, lo, hi)| x.is_finite() && lo.is_finite() && hi.is_finite())
        .collect();
    let band = thin(&band, MAX_POINTS);
    if band.len() > 1 {
        let upper = band
            .iter()
            .map(|&(x, _, hi)| format!("{:.1},{:.1}", sx(x), sy(hi)));
        let lower = band
            .iter()
            .rev()
            .map(|&(x, lo, _)| format!("{:.1},{:.1}", sx(x), sy(lo)));
        let points: Vec<String> = upper.chain(lower).collect();
        let _ = writeln!(
            s,
            "<polygon points=\"{}\" fill=\"{colour}\" fill-opacity=\"0.15\" stroke=\"{colour}\" \
             stroke-opacity=\"0.5\" stroke-width=\"0.6\" stroke-dasharray=\"2 2\"/>",
            points.join(" ")
        );
    }
    let finite: Vec<(f64, f64)> = series
        .points
        .iter()
        .copied()
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    let points = thin(&finite, MAX_POINTS);
    let text: Vec<String> = points
        .iter()
        .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
        .collect();
    let _ = writeln!(
        s,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.8\" \
         stroke-dasharray=\"{}\"/>",
        text.join(" "),
        DASHES[index % DASHES.len()]
    );
    for &(x, y) in thin(&points, 8).iter() {
        s.push_str(&marker(index, sx(x), sy(y), colour));
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_the_ends_and_bounds_the_count() {
        let items: Vec<usize> = (0..10_001).collect();
        let kept = thin(&items, 500);
        assert!(kept.len() <= 502, "{}", kept.len());
        assert_eq!(kept[0], 0);
        assert_eq!(*kept.last().unwrap(), 10_000);
        assert_eq!(thin(&[1, 2, 3], 500), vec![1, 2, 3]);
    }

    #[test]
    fn ticks_are_round_and_inside() {
        assert_eq!(
            ticks(0.0, 100.0, 5),
            vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        let t = ticks(-2.94, 2.94, 5);
        assert!(t.iter().all(|v| (-2.94..=2.94).contains(v)) && t.len() >= 3);
    }

    #[test]
    fn a_chart_has_its_text_alternative_rules_and_no_infinite_coordinates() {
        let chart = LineChart {
            title: "LLR".into(),
            description: "The LLR rises to 3.1".into(),
            x_label: "games".into(),
            y_label: "LLR".into(),
            series: vec![Series {
                label: "LLR".into(),
                points: vec![(2.0, 0.1), (4.0, f64::INFINITY), (6.0, 3.1)],
                band: vec![(2.0, -1.0, 1.0), (6.0, 2.0, 4.0)],
            }],
            marks: Vec::new(),
            rules: vec![Rule {
                label: "upper bound 2.94".into(),
                y: 2.94,
            }],
        };
        let svg = chart.svg();
        assert!(svg.contains("role=\"img\"") && svg.contains("<title>LLR</title>"));
        assert!(svg.contains("<desc>The LLR rises to 3.1</desc>"));
        assert!(svg.contains("upper bound 2.94") && svg.contains("<polygon"));
        assert!(!svg.contains("inf") && !svg.contains("NaN"), "{svg}");
    }
}
