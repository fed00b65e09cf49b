//! The report's charts as small hand-written SVG, inline in the page: a
//! horizontal bar chart (one bar per category and series, its value
//! written at its end) and a 100 % stacked bar per category. Horizontal
//! bars keep every label level and readable however many categories there
//! are; each chart carries one message, its legend and its axis.

use std::fmt::Write;

use super::escape::escape;

/// Width of every chart, in CSS pixels (it scales down with the page).
const WIDTH: f64 = 720.0;
/// Room for the category labels on the left.
const LABEL_WIDTH: f64 = 180.0;
/// Room for the value written after the longest bar.
const VALUE_WIDTH: f64 = 230.0;
/// Height of one bar.
const BAR: f64 = 16.0;
/// Space between categories.
const GAP: f64 = 10.0;
/// Height of the legend line.
const LEGEND: f64 = 26.0;
/// The longest category label drawn in full (its whole text is the bar's
/// tooltip).
const LABEL_CHARS: usize = 28;

/// The series colours: colour-blind safe (Okabe and Ito), distinct in
/// greyscale print as well.
pub const COLOURS: [&str; 6] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
];

/// One series of a bar chart: a name for the legend, a colour, one value
/// per category (`None`: not known, drawn as "n/a").
pub struct Series<'a> {
    /// The legend's name.
    pub name: &'a str,
    /// The bar colour.
    pub colour: &'a str,
    /// One value per category.
    pub values: Vec<Option<f64>>,
}

/// A horizontal bar chart of `series` over `categories`, `value` writing
/// the text of a bar (its category's index, its value), `axis` naming the
/// value axis.
pub fn bars(
    title: &str,
    categories: &[String],
    series: &[Series],
    value: &dyn Fn(usize, f64) -> String,
    axis: &str,
) -> String {
    let per = series.len().max(1) as f64;
    let top = if series.len() > 1 { LEGEND } else { 4.0 };
    let height = top + categories.len() as f64 * (per * BAR + GAP) + 30.0;
    let max = (series.iter())
        .flat_map(|s| s.values.iter().flatten())
        .fold(0.0f64, |a, &b| a.max(b));
    let plot = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
    let scale = |v: f64| if max > 0.0 { v / max * plot } else { 0.0 };
    let mut out = open(title, height);
    if series.len() > 1 {
        legend(&mut out, series.iter().map(|s| (s.name, s.colour)));
    }
    for (i, category) in categories.iter().enumerate() {
        let y0 = top + i as f64 * (per * BAR + GAP);
        category_label(&mut out, category, y0 + per * BAR / 2.0);
        for (j, s) in series.iter().enumerate() {
            let y = y0 + j as f64 * BAR;
            let v = s.values.get(i).copied().flatten();
            let w = v.map_or(0.0, scale);
            let text = v.map_or_else(|| "n/a".to_owned(), |v| value(i, v));
            let _ = write!(
                out,
                r#"<rect x="{LABEL_WIDTH}" y="{y:.1}" width="{w:.1}" height="{:.1}" fill="{}"><title>{}: {}</title></rect><text x="{:.1}" y="{:.1}" class="v">{}</text>"#,
                BAR - 2.0,
                s.colour,
                escape(category),
                escape(&text),
                LABEL_WIDTH + w + 4.0,
                y + BAR - 5.0,
                escape(&text)
            );
        }
    }
    axis_line(&mut out, top, height - 30.0, axis);
    out.push_str("</svg>");
    out
}

/// One 100 % stacked bar per category: `segments[i]` are category `i`'s
/// (key, share) parts, `keys` every key in legend order with its colour.
pub fn stacked(
    title: &str,
    categories: &[String],
    keys: &[(String, &str)],
    segments: &[Vec<(usize, f64)>],
) -> String {
    let legend_rows = keys.len().div_ceil(4).max(1) as f64;
    let top = legend_rows * LEGEND;
    let height = top + categories.len() as f64 * (BAR + GAP) + 30.0;
    let plot = WIDTH - LABEL_WIDTH - 20.0;
    let mut out = open(title, height);
    for (row, chunk) in keys.chunks(4).enumerate() {
        let mut x = 0.0;
        for (name, colour) in chunk {
            let y = row as f64 * LEGEND;
            let _ = write!(
                out,
                r#"<rect x="{x:.1}" y="{:.1}" width="12" height="12" fill="{colour}"/><text x="{:.1}" y="{:.1}" class="l">{}</text>"#,
                y + 4.0,
                x + 16.0,
                y + 14.0,
                escape(&shorten(name, 26))
            );
            x += WIDTH / 4.0;
        }
    }
    for (i, category) in categories.iter().enumerate() {
        let y = top + i as f64 * (BAR + GAP);
        category_label(&mut out, category, y + BAR / 2.0);
        let mut x = LABEL_WIDTH;
        for &(key, share) in &segments[i] {
            let w = share * plot;
            let _ = write!(
                out,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{:.1}" fill="{}"><title>{}: {} ({:.1} %)</title></rect>"#,
                BAR - 2.0,
                keys[key].1,
                escape(category),
                escape(&keys[key].0),
                share * 100.0
            );
            if w > 34.0 {
                let _ = write!(
                    out,
                    r#"<text x="{:.1}" y="{:.1}" class="in">{:.0} %</text>"#,
                    x + 3.0,
                    y + BAR - 5.0,
                    share * 100.0
                );
            }
            x += w;
        }
    }
    axis_line(
        &mut out,
        top,
        height - 30.0,
        "share of the column's cells (0 to 100 %)",
    );
    out.push_str("</svg>");
    out
}

fn open(title: &str, height: f64) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {height:.0}" width="{WIDTH}" height="{height:.0}" role="img" aria-label="{t}"><title>{t}</title>"#,
        t = escape(title)
    )
}

fn legend<'a>(out: &mut String, items: impl Iterator<Item = (&'a str, &'a str)>) {
    let mut x = LABEL_WIDTH;
    for (name, colour) in items {
        let _ = write!(
            out,
            r#"<rect x="{x:.1}" y="4" width="12" height="12" fill="{colour}"/><text x="{:.1}" y="14" class="l">{}</text>"#,
            x + 16.0,
            escape(name)
        );
        x += 24.0 + 7.0 * name.chars().count() as f64;
    }
}

fn category_label(out: &mut String, category: &str, mid: f64) {
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{:.1}" class="c"><title>{}</title>{}</text>"#,
        LABEL_WIDTH - 6.0,
        mid + 4.0,
        escape(category),
        escape(&shorten(category, LABEL_CHARS))
    );
}

fn axis_line(out: &mut String, top: f64, bottom: f64, axis: &str) {
    let _ = write!(
        out,
        r#"<line x1="{LABEL_WIDTH}" y1="{top:.1}" x2="{LABEL_WIDTH}" y2="{bottom:.1}" class="ax"/><text x="{LABEL_WIDTH}" y="{:.1}" class="ax">{}</text>"#,
        bottom + 20.0,
        escape(axis)
    );
}

/// `text` cut to `chars` characters, with an ellipsis.
fn shorten(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_owned();
    }
    let mut s: String = text.chars().take(chars - 1).collect();
    s.push('…');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped_and_shortened() {
        let svg = bars(
            "t",
            &["<script>alert(1)</script> and a very long name indeed".to_owned()],
            &[Series {
                name: "rows",
                colour: COLOURS[0],
                values: vec![Some(3.0)],
            }],
            &|_, v| format!("{v}"),
            "rows",
        );
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;"));
        assert!(svg.contains('…'));
    }
}
