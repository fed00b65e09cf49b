//! A grouped bar chart as standalone SVG, readable at a glance: one group per
//! (algorithm, k), one bar per series, values printed on the bars.
//!
//! SVG is plain text; a chart of rectangles and labels needs no plotting
//! library and no font files.

use std::fmt::Write as _;

/// Colours of the series, chosen to stay distinct for colour-blind readers
/// (Okabe-Ito palette).
const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000",
];

#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    pub title: String,
    /// The unit of the values, shown on the axis ("bytes").
    pub unit: String,
    pub series: Vec<String>,
    /// Each group: its label and one value per series (`None`: no bar).
    pub groups: Vec<(String, Vec<Option<f64>>)>,
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A short human number: 183486 -> "183.5k".
fn short(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if v.abs() >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

impl BarChart {
    /// Renders the chart as an SVG document (horizontal bars).
    pub fn to_svg(&self) -> String {
        let bar_h = 14.0;
        let gap = 10.0;
        let label_w = 170.0;
        let plot_w = 560.0;
        let top = 60.0 + 18.0 * self.series.len().div_ceil(3) as f64;
        let group_h = bar_h * self.series.len() as f64 + gap;
        let height = top + group_h * self.groups.len() as f64 + 30.0;
        let width = label_w + plot_w + 80.0;
        let max = self
            .groups
            .iter()
            .flat_map(|(_, v)| v.iter().flatten())
            .fold(0.0f64, |a, &b| a.max(b))
            .max(f64::MIN_POSITIVE);
        let mut s = String::new();
        let _ = write!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
        );
        let _ = write!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = write!(
            s,
            r#"<text x="10" y="22" font-size="15" font-weight="bold">{}</text>"#,
            escape(&self.title)
        );
        for (i, name) in self.series.iter().enumerate() {
            let x = 10.0 + (i % 3) as f64 * 260.0;
            let y = 40.0 + (i / 3) as f64 * 18.0;
            let _ = write!(
                s,
                r#"<rect x="{x}" y="{}" width="12" height="12" fill="{}"/><text x="{}" y="{}">{}</text>"#,
                y - 10.0,
                PALETTE[i % PALETTE.len()],
                x + 16.0,
                y,
                escape(name)
            );
        }
        for (g, (label, values)) in self.groups.iter().enumerate() {
            let y0 = top + g as f64 * group_h;
            let _ = write!(
                s,
                r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
                label_w - 8.0,
                y0 + group_h / 2.0,
                escape(label)
            );
            for (i, v) in values.iter().enumerate() {
                let Some(v) = v else { continue };
                let w = (v / max * plot_w).max(1.0);
                let y = y0 + i as f64 * bar_h;
                let _ = write!(
                    s,
                    r#"<rect x="{label_w}" y="{y}" width="{w:.1}" height="{}" fill="{}"><title>{}: {v}</title></rect><text x="{:.1}" y="{}">{}</text>"#,
                    bar_h - 2.0,
                    PALETTE[i % PALETTE.len()],
                    escape(&self.series[i]),
                    label_w + w + 4.0,
                    y + bar_h - 4.0,
                    short(*v)
                );
            }
        }
        let axis_y = height - 20.0;
        let _ = write!(
            s,
            r#"<line x1="{label_w}" y1="{top}" x2="{label_w}" y2="{axis_y}" stroke="black"/><text x="{}" y="{}" text-anchor="end">{} {}</text>"#,
            label_w + plot_w,
            axis_y + 14.0,
            short(max),
            escape(&self.unit)
        );
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_value_and_text_is_escaped() {
        let chart = BarChart {
            title: "a < b".into(),
            unit: "bytes".into(),
            series: vec!["zip".into(), "karc".into()],
            groups: vec![("datafly k=5".into(), vec![Some(200.0), Some(50.0)])],
        };
        let svg = chart.to_svg();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("a &lt; b"));
        assert!(
            svg.contains(r#"width="560.0""#),
            "largest bar spans the plot"
        );
        assert!(svg.contains(r#"width="140.0""#), "a quarter of it");
    }
}
