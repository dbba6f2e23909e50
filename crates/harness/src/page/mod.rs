//! The building blocks of a run's `report.html`: one self-contained page (inline CSS and SVG,
//! no script, no network), made of headings, notes, real `<table>`s and charts that carry their
//! own text alternatives. The palette is Okabe and Ito's (distinct under the common colour
//! blindnesses), and every series also differs by dash pattern and marker, so a greyscale print
//! still tells them apart. The pages themselves (a match's, a tune's) are built by the layers
//! that know the run's files.

mod chart;
mod error;
mod histogram;

pub use chart::{ticks, LineChart, Mark, Rule, Series};
pub use error::{read_optional, ReportError};
pub(crate) use histogram::Histogram;

use std::fmt::Write as _;
use std::path::Path;

/// The report's file name inside a run directory.
pub const REPORT_FILE: &str = "report.html";

/// Okabe–Ito colours, darkest-first so neighbours also differ in lightness.
pub const PALETTE: [&str; 6] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000", "#E69F00",
];
/// Dash patterns paired with the palette (solid first).
pub(crate) const DASHES: [&str; 6] = ["", "7 3", "2 3", "9 3 2 3", "4 4", "1 2"];

/// Text made safe inside HTML or SVG content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A table: a caption, column headings and rows of cell texts (shown as given, escaped).
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// The `id` of the `<table>` element (tests and links find it by this), if any.
    pub id: Option<String>,
    /// What the table shows.
    pub caption: String,
    /// The column headings.
    pub headers: Vec<String>,
    /// The rows, each as long as `headers`.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table as HTML: numbers right-aligned (a cell that parses as a number).
    pub fn html(&self) -> String {
        let mut s = String::new();
        let id = self
            .id
            .as_ref()
            .map_or(String::new(), |id| format!(" id=\"{}\"", escape(id)));
        let _ = write!(
            s,
            "<div class=\"scroll\"><table{id}>\n<caption>{}</caption>\n<thead><tr>",
            escape(&self.caption)
        );
        for h in &self.headers {
            let _ = write!(s, "<th scope=\"col\">{}</th>", escape(h));
        }
        s.push_str("</tr></thead>\n<tbody>\n");
        for row in &self.rows {
            s.push_str("<tr>");
            for cell in row {
                let numeric = cell.parse::<f64>().is_ok() || cell == "n/a";
                let class = if numeric { " class=\"n\"" } else { "" };
                let _ = write!(s, "<td{class}>{}</td>", escape(cell));
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</tbody></table></div>\n");
        s
    }

    /// A table from CSV text: its header row and records, cells kept exactly as written.
    pub fn from_csv(id: &str, caption: &str, text: &str) -> Result<Table, csv::Error> {
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .from_reader(text.as_bytes());
        let headers = reader.headers()?.iter().map(String::from).collect();
        let mut rows = Vec::new();
        for record in reader.records() {
            rows.push(record?.iter().map(String::from).collect());
        }
        Ok(Table {
            id: Some(id.to_string()),
            caption: caption.to_string(),
            headers,
            rows,
        })
    }
}

/// A page under construction: sections appended in reading order.
#[derive(Clone, Debug)]
pub struct Page {
    title: String,
    refresh_seconds: Option<u32>,
    body: String,
}

const STYLE: &str = "\
:root{color-scheme:light;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;\
line-height:1.4;color:#111;background:#fff}\
body{max-width:1100px;margin:1em auto;padding:0 1em}\
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.6em;\
border-bottom:1px solid #bbb}h3{font-size:1.05em}\
.status{color:#333}.note{color:#444;font-style:italic}\
.scroll{overflow-x:auto}\
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}\
caption{text-align:left;font-weight:600;padding:.2em 0}\
th,td{border:1px solid #999;padding:.15em .45em;vertical-align:top}\
th{background:#eee;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}\
tbody tr:nth-child(even){background:#f6f6f6}\
figure{margin:.8em 0}figcaption{font-size:.9em;color:#333}\
svg{max-width:100%;height:auto}\
dl.facts{display:grid;grid-template-columns:max-content auto;gap:.1em 1em}dl.facts dt{font-weight:600}\
dl.facts dd{margin:0}\
@media print{body{max-width:none;margin:0}h2{break-after:avoid}\
figure,table{break-inside:avoid}.scroll{overflow:visible}a{color:inherit}}";

impl Page {
    /// An empty page with this `<title>` (also its first heading).
    pub fn new(title: &str) -> Page {
        Page {
            title: title.to_string(),
            refresh_seconds: None,
            body: String::new(),
        }
    }

    /// Asks the browser to reload the page every `seconds` (a run still writing it).
    pub fn refresh_every(&mut self, seconds: u32) {
        self.refresh_seconds = Some(seconds);
    }

    /// A section heading (`level` 2 or 3).
    pub fn heading(&mut self, level: u8, text: &str) {
        let level = level.clamp(2, 4);
        let _ = writeln!(self.body, "<h{level}>{}</h{level}>", escape(text));
    }

    /// A paragraph of plain text.
    pub fn paragraph(&mut self, text: &str) {
        let _ = writeln!(self.body, "<p>{}</p>", escape(text));
    }

    /// A paragraph in the status style (what the run is doing).
    pub fn status(&mut self, text: &str) {
        let _ = writeln!(self.body, "<p class=\"status\">{}</p>", escape(text));
    }

    /// A remark about what the page cannot show (something the run did not record).
    pub fn note(&mut self, text: &str) {
        let _ = writeln!(self.body, "<p class=\"note\">{}</p>", escape(text));
    }

    /// A list of facts: term and value pairs.
    pub fn facts(&mut self, facts: &[(String, String)]) {
        self.body.push_str("<dl class=\"facts\">\n");
        for (term, value) in facts {
            let _ = writeln!(
                self.body,
                "<dt>{}</dt><dd>{}</dd>",
                escape(term),
                escape(value)
            );
        }
        self.body.push_str("</dl>\n");
    }

    /// A table.
    pub fn table(&mut self, table: &Table) {
        self.body.push_str(&table.html());
    }

    /// A chart (an SVG that carries its own title and description) with a visible caption.
    pub fn figure(&mut self, svg: &str, caption: &str) {
        let _ = writeln!(
            self.body,
            "<figure>\n{svg}<figcaption>{}</figcaption>\n</figure>",
            escape(caption)
        );
    }

    /// A chart drawn elsewhere (a tuner's .svg file): put inline, its root element given
    /// `role="img"` and `alt` as its label, the XML prolog dropped.
    pub fn svg_file(&mut self, svg: &str, alt: &str, caption: &str) {
        let Some(start) = svg.find("<svg") else {
            self.note(&format!("{caption}: not an SVG drawing."));
            return;
        };
        let svg = &svg[start..];
        let labelled = format!(
            "<svg role=\"img\" aria-label=\"{}\"{}",
            escape(alt),
            &svg["<svg".len()..]
        );
        self.figure(&labelled, caption);
    }

    /// The whole document.
    pub fn finish(self) -> String {
        let refresh = self.refresh_seconds.map_or(String::new(), |s| {
            format!("<meta http-equiv=\"refresh\" content=\"{s}\">\n")
        });
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             {refresh}<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
             <h1>{title}</h1>\n{body}<footer><p class=\"note\">Written by sparring; \
             rebuild with <code>sparring report DIR</code>.</p></footer>\n</body>\n</html>\n",
            title = escape(&self.title),
            body = self.body
        )
    }
}

/// Writes `html` as `dir/report.html` through a temporary file, so a browser reloading it
/// never sees half a page.
pub fn write_report(dir: &Path, html: &str) -> std::io::Result<()> {
    crate::files::write_atomic(&dir.join(REPORT_FILE), html.as_bytes())
}

/// A short label for an axis tick or a value: integers plainly, others with up to four
/// significant digits.
pub fn label(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v.fract() == 0.0 && v.abs() < 1e12 {
        return format!("{}", v as i64);
    }
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = (3 - magnitude).clamp(0, 6) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    }

    #[test]
    fn a_csv_table_keeps_its_cells_verbatim() {
        let t = Table::from_csv("r", "Ranking", "engine,elo\n\"a,b\",1.50\nc,n/a\n").unwrap();
        assert_eq!(t.headers, ["engine", "elo"]);
        assert_eq!(t.rows[0], ["a,b", "1.50"]);
        let html = t.html();
        assert!(html.contains("<td class=\"n\">1.50</td>"), "{html}");
        assert!(html.contains("<table id=\"r\">"));
    }

    #[test]
    fn a_page_is_one_document_with_title_style_and_no_script() {
        let mut page = Page::new("A <match>");
        page.note("not recorded");
        let html = page.finish();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<title>A &lt;match&gt;</title>"));
        assert!(html.contains("@media print"));
        assert!(
            !html.contains("<script") && !html.contains("http://") && !html.contains("https://")
        );
    }

    #[test]
    fn labels_are_short() {
        assert_eq!(label(3.0), "3");
        assert_eq!(label(2.944_4), "2.944");
        assert_eq!(label(0.012_345), "0.01235");
        assert_eq!(label(-1234.4), "-1234");
    }
}
