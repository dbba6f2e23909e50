//! A histogram as inline SVG: the values of several groups (engines) counted in shared bins,
//! the groups' bars side by side in each bin, told apart by colour and by fill pattern (solid,
//! hatched, dotted), so the chart survives greyscale.

use super::chart::ticks;
use super::{escape, label, PALETTE};
use std::fmt::Write as _;

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 46.0;

/// A histogram with its text alternative.
#[derive(Clone, Debug, Default)]
pub(crate) struct Histogram {
    /// A name unique on the page (the fill patterns' ids are made from it).
    pub id: String,
    /// The chart's title (shown, and the SVG's `<title>`).
    pub title: String,
    /// What the chart says, in words (the SVG's `<desc>`).
    pub description: String,
    /// The x axis' name (the values' unit).
    pub x_label: String,
    /// (group name, its values); non-finite values are left out.
    pub groups: Vec<(String, Vec<f64>)>,
    /// What is counted (the y axis' name; empty: games).
    pub y_label: String,
    /// How many bins.
    pub(crate) bins: usize,
    /// Counts already binned: (the bins' labels, each group's count per bin); `groups`' names
    /// name the groups and their values are not used.
    pub(crate) binned: Option<(Vec<String>, Vec<Vec<u64>>)>,
}

impl Histogram {
    /// The bins' edges and each group's counts per bin; None without values.
    pub(crate) fn counts(&self) -> Option<(Vec<f64>, Vec<Vec<u64>>)> {
        if let Some((labels, counts)) = &self.binned {
            let any = counts.iter().flatten().any(|&c| c > 0);
            return any.then(|| {
                (
                    (0..=labels.len()).map(|i| i as f64).collect(),
                    counts.clone(),
                )
            });
        }
        let values = self.groups.iter().flat_map(|(_, v)| v).copied();
        let (lo, hi) =
            values
                .filter(|v| v.is_finite())
                .fold(None, |acc: Option<(f64, f64)>, v| {
                    Some(acc.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
                })?;
        let bins = self.bins.max(1);
        let hi = if hi > lo { hi } else { lo + 1.0 };
        let width = (hi - lo) / bins as f64;
        let edges: Vec<f64> = (0..=bins).map(|i| lo + width * i as f64).collect();
        let counts = self
            .groups
            .iter()
            .map(|(_, values)| {
                let mut c = vec![0u64; bins];
                for v in values.iter().filter(|v| v.is_finite()) {
                    let b = (((v - lo) / width) as usize).min(bins - 1);
                    c[b] += 1;
                }
                c
            })
            .collect();
        Some((edges, counts))
    }

    /// The chart as an `<svg role="img">` element; None when no group has a value.
    pub(crate) fn svg(&self) -> Option<String> {
        let (edges, counts) = self.counts()?;
        let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        let max = counts.iter().flatten().copied().max().unwrap_or(1).max(1) as f64;
        let bins = edges.len() - 1;
        let slot = pw / bins as f64;
        let bar = (slot - 2.0) / counts.len().max(1) as f64;
        let sy = |c: f64| TOP + ph * (1.0 - c / max);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
             role=\"img\" font-family=\"sans-serif\" font-size=\"11\">\n<title>{}</title>\n\
             <desc>{}</desc>\n{}<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#fff\"/>\n\
             <text x=\"{LEFT}\" y=\"20\" font-size=\"14\">{}</text>",
            escape(&self.title),
            escape(&self.description),
            self.patterns(),
            escape(&self.title)
        );
        for t in ticks(0.0, max, 4) {
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
        for (g, group) in counts.iter().enumerate() {
            for (b, &c) in group.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                let x = LEFT + slot * b as f64 + 1.0 + bar * g as f64;
                let y = sy(c as f64);
                let _ = write!(
                    s,
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" \
                     fill=\"{}\" stroke=\"{}\" stroke-width=\"0.8\"><title>{}: {c} in {}</title></rect>",
                    bar.max(0.5),
                    TOP + ph - y,
                    self.fill(g),
                    PALETTE[g % PALETTE.len()],
                    escape(&self.groups[g].0),
                    self.bin_text(&edges, b)
                );
            }
        }
        s.push('\n');
        self.axes_and_legend(&mut s, &edges);
        s.push_str("</svg>\n");
        Some(s)
    }

    /// Bin `b` in words: its label, or its edges.
    fn bin_text(&self, edges: &[f64], b: usize) -> String {
        match &self.binned {
            Some((labels, _)) => escape(&labels[b]),
            None => format!("[{}, {})", label(edges[b]), label(edges[b + 1])),
        }
    }

    /// Group `g`'s fill: solid for the first, a pattern for the others.
    fn fill(&self, g: usize) -> String {
        if g == 0 {
            PALETTE[0].to_string()
        } else {
            format!("url(#{}-p{g})", self.id)
        }
    }

    /// The fill patterns of groups after the first: hatched one way, the other, dotted.
    fn patterns(&self) -> String {
        let mut s = String::from("<defs>");
        for g in 1..self.groups.len() {
            let colour = PALETTE[g % PALETTE.len()];
            let shape = match g % 3 {
                1 => format!("<path d=\"M0 6L6 0\" stroke=\"{colour}\" stroke-width=\"2\"/>"),
                2 => format!("<path d=\"M0 0L6 6\" stroke=\"{colour}\" stroke-width=\"2\"/>"),
                _ => format!("<circle cx=\"3\" cy=\"3\" r=\"1.6\" fill=\"{colour}\"/>"),
            };
            let _ = write!(
                s,
                "<pattern id=\"{}-p{g}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">\
                 <rect width=\"6\" height=\"6\" fill=\"#fff\"/>{shape}</pattern>",
                self.id
            );
        }
        s.push_str("</defs>\n");
        s
    }

    fn axes_and_legend(&self, s: &mut String, edges: &[f64]) {
        let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        let bins = edges.len() - 1;
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#888\"/>",
            TOP + ph,
            LEFT + pw,
            TOP + ph
        );
        if let Some((labels, _)) = &self.binned {
            let every = bins.div_ceil(17).max(1);
            for (i, text) in labels.iter().enumerate().step_by(every) {
                let x = LEFT + pw * (i as f64 + 0.5) / bins as f64;
                let _ = write!(
                    s,
                    "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                    TOP + ph + 16.0,
                    escape(text)
                );
            }
        } else {
            let every = bins.div_ceil(8).max(1);
            for (i, e) in edges.iter().enumerate().step_by(every) {
                let x = LEFT + pw * i as f64 / bins as f64;
                let _ = write!(
                    s,
                    "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                    TOP + ph + 16.0,
                    label(*e)
                );
            }
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
            if self.y_label.is_empty() { "games" } else { &self.y_label }
        );
        let mut x = (LEFT + 280.0).max(LEFT + 20.0 + 7.8 * self.title.chars().count() as f64);
        for (g, (name, _)) in self.groups.iter().enumerate() {
            let _ = write!(
                s,
                "<rect x=\"{x:.1}\" y=\"9\" width=\"14\" height=\"12\" fill=\"{}\" stroke=\"{}\"/>\
                 <text x=\"{:.1}\" y=\"20\">{}</text>",
                self.fill(g),
                PALETTE[g % PALETTE.len()],
                x + 18.0,
                escape(name)
            );
            x += 30.0 + 6.5 * name.chars().count() as f64;
        }
        s.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_fall_in_shared_bins_and_the_top_edge_counts() {
        let h = Histogram {
            id: "h".into(),
            bins: 4,
            groups: vec![
                ("a".into(), vec![0.0, 1.0, 2.0, 4.0]),
                ("b".into(), vec![4.0, f64::NAN]),
            ],
            ..Histogram::default()
        };
        let (edges, counts) = h.counts().unwrap();
        assert_eq!(edges, vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(counts, vec![vec![1, 1, 1, 1], vec![0, 0, 0, 1]]);
        let svg = h.svg().unwrap();
        assert!(svg.contains("url(#h-p1)") && svg.contains("<desc>"));
        let empty = Histogram {
            groups: vec![("a".into(), vec![])],
            ..Histogram::default()
        };
        assert!(empty.svg().is_none());
    }
}
