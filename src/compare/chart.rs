//! `karc compare --chart`: the sizes as grouped, stacked bars on one screen
//! (1200 × 700), drawn with plotters as SVG or PNG.
//!
//! Groups are the (algorithm, k) pairs, labelled by k under each group and
//! by algorithm under its groups; each group has one bar per karc mode and
//! one per general-purpose compressor. A bar stacks what restores the
//! original (karc's private part, a compressor's copy of the original CSV)
//! under what is released (karc's public part, a copy of the release CSV),
//! so its height is what one keeps for both; its total is printed on top
//! when it fits. Under each k, karc's total as a ratio to xz's (to zip's
//! when xz was not run), in red with "larger" when karc loses: a saving
//! printed as a signed percentage (-2 %, +5 %) hid that karc was larger.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::{Error, Result};

/// The chart's size in pixels: one screen.
pub const SIZE: (u32, u32) = (1200, 700);

/// Colours of the bars (Okabe-Ito palette, distinct for colour-blind
/// readers): karc's modes first, then the compressors.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0x99, 0x99, 0x99),
    RGBColor(0x44, 0x44, 0x44),
];

/// The file format of a chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartFormat {
    /// Scalable text (any browser shows it).
    Svg,
    /// A bitmap, for documents and chats.
    Png,
}

impl ChartFormat {
    /// PNG for a `.png` path, SVG otherwise.
    pub fn from_path(path: &Path) -> ChartFormat {
        match path.extension() {
            Some(e) if e.eq_ignore_ascii_case("png") => ChartFormat::Png,
            _ => ChartFormat::Svg,
        }
    }
}

/// One bar: what restores the original under what is released.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stack {
    /// karc's private part, or a compressor's copy of the original.
    pub original: u64,
    /// karc's public part, or a compressor's copy of the release.
    pub release: u64,
}

impl Stack {
    /// Both parts.
    pub fn total(&self) -> u64 {
        self.original + self.release
    }
}

/// One (algorithm, k) pair and its bars, one per series (`None`: not measured).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The algorithm's name.
    pub algorithm: String,
    /// Its k.
    pub k: usize,
    /// One bar per series of the chart.
    pub bars: Vec<Option<Stack>>,
}

/// A chart of the sizes of karc and of general-purpose compressors.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeChart {
    /// The line above the chart.
    pub title: String,
    /// The bars' names, in group order ("karc per-value-rans", "zip").
    pub series: Vec<String>,
    /// Which series the saving under each group compares with zip.
    pub karc_series: usize,
    /// Which series is zip.
    pub zip_series: usize,
    /// Which series is xz, when it was run: the ratio under each k is to it.
    pub xz_series: Option<usize>,
    /// The groups, left to right; consecutive groups of one algorithm share its label.
    pub groups: Vec<Group>,
}

/// A short human number of bytes: 183486 -> "183 kB", 2480 -> "2.5 kB"
/// (below 10 kB a decimal, else the ticks of a small table's axis, 1500,
/// 2000 and 2500 bytes, would all read "2 kB").
fn short(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.1} MB", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.0} kB", v / 1e3)
    } else if v >= 1e3 {
        format!("{:.1} kB", v / 1e3)
    } else {
        format!("{v:.0} B")
    }
}

/// `c` mixed halfway with white: the released part of a bar.
fn light(c: RGBColor) -> RGBColor {
    let mix = |x: u8| ((u16::from(x) + 255) / 2) as u8;
    RGBColor(mix(c.0), mix(c.1), mix(c.2))
}

/// plotters' bitmap backend draws text with a registered font: DejaVu
/// Sans (its Latin subset, assets/fonts/LICENSE), registered once.
fn register_font() -> Result<()> {
    static ONCE: Once = Once::new();
    static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Latin.ttf");
    let mut ok = true;
    ONCE.call_once(|| {
        ok = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).is_ok()
    });
    ok.then_some(())
        .ok_or_else(|| Error::Options("the chart's font does not load".to_owned()))
}

impl SizeChart {
    /// The chart as a file's bytes (`name` names it in messages).
    pub fn render(&self, format: ChartFormat, name: &Path) -> Result<Vec<u8>> {
        register_font()?;
        let failed =
            |e: String| Error::Options(format!("{}: drawing the chart: {e}", name.display()));
        match format {
            ChartFormat::Svg => {
                let mut svg = String::new();
                {
                    let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
                    self.draw(&root).map_err(failed)?;
                    root.present().map_err(|e| failed(e.to_string()))?;
                }
                Ok(svg.into_bytes())
            }
            ChartFormat::Png => {
                let (w, h) = SIZE;
                let mut rgb = vec![0u8; (w * h * 3) as usize];
                {
                    let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
                    self.draw(&root).map_err(failed)?;
                    root.present().map_err(|e| failed(e.to_string()))?;
                }
                encode_png(&rgb, SIZE).map_err(|e| failed(e.to_string()))
            }
        }
    }

    /// The tallest bar.
    fn max_total(&self) -> u64 {
        self.groups
            .iter()
            .flat_map(|g| g.bars.iter().flatten())
            .map(Stack::total)
            .max()
            .unwrap_or(0)
            .max(1)
    }

    /// Draws the whole chart on `root`.
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let title = ("sans-serif", 22)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        root.draw(&Text::new(
            self.title.clone(),
            (SIZE.0 as i32 / 2, 10),
            title,
        ))
        .map_err(e)?;
        let below_legend = self.draw_legend(root, 46).map_err(e)?;
        let (_, body) = root.split_vertically(below_legend + 10);
        let groups = self.groups.len().max(1);
        let y_max = self.max_total() as f64 * 1.15;
        let mut chart = ChartBuilder::on(&body)
            .margin_left(10)
            .margin_right(20)
            .margin_bottom(10)
            .x_label_area_size(70)
            .y_label_area_size(80)
            .build_cartesian_2d(0f64..groups as f64, 0f64..y_max)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .disable_x_axis()
            .x_labels(0)
            .y_labels(8)
            .y_desc("bytes kept (original + release)")
            .y_label_formatter(&|v| short(*v))
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 15))
            .light_line_style(WHITE.mix(0.0))
            .bold_line_style(BLACK.mix(0.12))
            .draw()
            .map_err(e)?;
        self.draw_bars(&mut chart).map_err(e)?;
        self.draw_axis_labels(root, &chart).map_err(e)?;
        Ok(())
    }

    /// The bars and, where they fit, their totals.
    fn draw_bars<DB: DrawingBackend>(
        &self,
        chart: &mut ChartContext<
            DB,
            Cartesian2d<
                plotters::coord::types::RangedCoordf64,
                plotters::coord::types::RangedCoordf64,
            >,
        >,
    ) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let n = self.series.len().max(1) as f64;
        let width = 0.8 / n;
        let pixels = |x: f64| {
            let (a, _) = chart.backend_coord(&(0.0, 0.0));
            let (b, _) = chart.backend_coord(&(x, 0.0));
            b - a
        };
        let bar_px = pixels(width);
        // Totals as large as the bars are wide, from 8 to 12 px.
        let label = ("sans-serif", f64::from((bar_px + 2).clamp(8, 12))).into_font();
        let lift = chart.y_range().end / 200.0;
        for (g, group) in self.groups.iter().enumerate() {
            for (s, bar) in group.bars.iter().enumerate() {
                let Some(bar) = bar else { continue };
                let x0 = g as f64 + 0.1 + s as f64 * width;
                let x1 = x0 + width * 0.9;
                let colour = PALETTE[s % PALETTE.len()];
                let (lo, hi) = (bar.original as f64, bar.total() as f64);
                chart.draw_series([
                    Rectangle::new([(x0, 0.0), (x1, lo)], colour.filled()),
                    Rectangle::new([(x0, lo), (x1, hi)], light(colour).filled()),
                ])?;
                let text = short(hi);
                let along = label
                    .box_size(&text)
                    .is_ok_and(|(w, _)| (w as i32) <= bar_px + 4);
                let (style, at) = if along {
                    let pos = Pos::new(HPos::Center, VPos::Bottom);
                    (label.clone().color(&BLACK).pos(pos), ((x0 + x1) / 2.0, hi))
                } else {
                    // Upright text would not fit the bar: it stands on it.
                    let pos = Pos::new(HPos::Left, VPos::Center);
                    let up = label.clone().transform(FontTransform::Rotate270);
                    (up.color(&BLACK).pos(pos), ((x0 + x1) / 2.0, hi + lift))
                };
                chart.draw_series([Text::new(text, at, style)])?;
            }
        }
        Ok(())
    }

    /// Under the plot: each group's k and saving against zip, and each
    /// algorithm's name under its groups.
    fn draw_axis_labels<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        chart: &ChartContext<
            DB,
            Cartesian2d<
                plotters::coord::types::RangedCoordf64,
                plotters::coord::types::RangedCoordf64,
            >,
        >,
    ) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let at = |x: f64| chart.backend_coord(&(x, 0.0));
        let centre = Pos::new(HPos::Center, VPos::Top);
        let k_style = ("sans-serif", 13).into_font().color(&BLACK).pos(centre);
        let ratio_style = ("sans-serif", 12)
            .into_font()
            .color(&RGBColor(0x1b, 0x78, 0x37))
            .pos(centre);
        let larger_style = ("sans-serif", 12)
            .into_font()
            .color(&RGBColor(0xb2, 0x18, 0x2b))
            .pos(centre);
        let name_style = ("sans-serif", 15).into_font().color(&BLACK).pos(centre);
        let mut g = 0;
        while g < self.groups.len() {
            let algorithm = &self.groups[g].algorithm;
            let end = (g..self.groups.len())
                .find(|&i| &self.groups[i].algorithm != algorithm)
                .unwrap_or(self.groups.len());
            for i in g..end {
                let (x, y) = at(i as f64 + 0.5);
                root.draw(&Text::new(
                    format!("k={}", self.groups[i].k),
                    (x, y + 6),
                    k_style.clone(),
                ))?;
                if let Some((ratio, to)) = self.ratio(&self.groups[i]) {
                    let (text, style) = if ratio > 1.0 {
                        (format!("{ratio:.2}× {to}, larger"), larger_style.clone())
                    } else {
                        (format!("{ratio:.2}× {to}"), ratio_style.clone())
                    };
                    root.draw(&Text::new(text, (x, y + 22), style))?;
                }
            }
            let (x, y) = at((g + end) as f64 / 2.0);
            root.draw(&Text::new(
                algorithm.clone(),
                (x, y + 42),
                name_style.clone(),
            ))?;
            let (left, _) = at(g as f64);
            if g > 0 {
                root.draw(&PathElement::new(
                    [(left, y + 2), (left, y + 60)],
                    BLACK.mix(0.3),
                ))?;
            }
            g = end;
        }
        Ok(())
    }

    /// The karc series' total over xz's (zip's without xz) in `group`, and
    /// the name of that compressor.
    fn ratio(&self, group: &Group) -> Option<(f64, &'static str)> {
        let (series, name) = match self.xz_series {
            Some(xz) => (xz, "xz"),
            None => (self.zip_series, "zip"),
        };
        let karc = group.bars.get(self.karc_series).copied().flatten()?;
        let other = group.bars.get(series).copied().flatten()?;
        (other.total() > 0).then(|| (karc.total() as f64 / other.total() as f64, name))
    }

    /// The series' colours, and what the dark and light parts mean, from
    /// `y` down; returns the height used.
    fn draw_legend<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        y: i32,
    ) -> std::result::Result<u32, DrawingAreaErrorKind<DB::ErrorType>> {
        let style = ("sans-serif", 14).into_font().color(&BLACK);
        for (i, name) in self.series.iter().enumerate() {
            let x = 100 + (i % 4) as i32 * 270;
            let y = y + (i / 4) as i32 * 20;
            let colour = PALETTE[i % PALETTE.len()];
            root.draw(&Rectangle::new([(x, y), (x + 12, y + 12)], colour.filled()))?;
            root.draw(&Rectangle::new(
                [(x + 12, y), (x + 24, y + 12)],
                light(colour).filled(),
            ))?;
            root.draw(&Text::new(name.clone(), (x + 30, y - 1), style.clone()))?;
        }
        let y = y + self.series.len().div_ceil(4) as i32 * 20;
        let note = format!(
            "dark: restores the original (karc's private part, or the compressed original CSV); \
             light: the release (public part, or compressed release CSV); under each k: {} / {} (red: karc larger)",
            self.series
                .get(self.karc_series)
                .map_or("karc", String::as_str),
            if self.xz_series.is_some() {
                "xz"
            } else {
                "zip"
            }
        );
        root.draw(&Text::new(
            note,
            (100, y),
            ("sans-serif", 13).into_font().color(&BLACK.mix(0.75)),
        ))?;
        Ok((y + 16) as u32)
    }
}

/// RGB pixels as a PNG file.
fn encode_png(rgb: &[u8], (w, h): (u32, u32)) -> std::result::Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> SizeChart {
        SizeChart {
            title: "a < b".into(),
            series: vec!["karc per-value-rans".into(), "zip".into()],
            karc_series: 0,
            zip_series: 1,
            xz_series: None,
            groups: vec![
                Group {
                    algorithm: "datafly".into(),
                    k: 5,
                    bars: vec![
                        Some(Stack {
                            original: 40_000,
                            release: 10_000,
                        }),
                        Some(Stack {
                            original: 150_000,
                            release: 50_000,
                        }),
                    ],
                },
                Group {
                    algorithm: "mondrian".into(),
                    k: 5,
                    bars: vec![
                        None,
                        Some(Stack {
                            original: 150_000,
                            release: 40_000,
                        }),
                    ],
                },
            ],
        }
    }

    #[test]
    fn svg_has_the_title_escaped_labels_totals_and_one_screen_size() {
        let svg = String::from_utf8(
            chart()
                .render(ChartFormat::Svg, Path::new("c.svg"))
                .unwrap(),
        )
        .unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(
            svg.contains(r#"width="1200""#) && svg.contains(r#"height="700""#),
            "{}",
            &svg[..200]
        );
        assert!(svg.contains("a &lt; b"));
        for text in [
            "datafly",
            "mondrian",
            "k=5",
            "200 kB",
            "50 kB",
            "0.25× zip",
            "bytes kept",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        // A group without karc's bar has no ratio.
        assert_eq!(svg.matches("× zip").count(), 1);
    }

    #[test]
    fn a_karc_larger_than_xz_says_so() {
        let mut c = chart();
        c.series.push("xz-9e".into());
        c.xz_series = Some(2);
        for g in &mut c.groups {
            g.bars.push(Some(Stack {
                original: 30_000,
                release: 10_000,
            }));
        }
        let svg =
            String::from_utf8(c.render(ChartFormat::Svg, Path::new("c.svg")).unwrap()).unwrap();
        assert!(
            svg.contains("1.25× xz, larger"),
            "karc 50 kB against xz 40 kB"
        );
        assert!(svg.contains("karc larger"));
    }

    #[test]
    fn byte_labels_tell_a_small_table_s_ticks_apart() {
        let ticks: Vec<String> = [500.0, 1000.0, 1500.0, 2000.0, 2500.0, 3000.0]
            .into_iter()
            .map(short)
            .collect();
        let distinct: std::collections::HashSet<&String> = ticks.iter().collect();
        assert_eq!(distinct.len(), ticks.len(), "{ticks:?}");
        assert_eq!(ticks[2], "1.5 kB");
        assert_eq!(short(183_486.0), "183 kB");
        assert_eq!(short(2_516_935.0), "2.5 MB");
        assert_eq!(short(999.0), "999 B");
    }

    #[test]
    fn png_is_a_one_screen_bitmap_with_ink() {
        let png = chart()
            .render(ChartFormat::Png, Path::new("c.png"))
            .unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        assert_eq!((info.width, info.height), SIZE);
        let dark = pixels
            .chunks(3)
            .filter(|p| p.iter().all(|&c| c < 80))
            .count();
        assert!(dark > 2_000, "text and axes drawn: {dark} dark pixels");
        let blue = pixels
            .chunks(3)
            .filter(|p| p == &[0x00, 0x72, 0xB2])
            .count();
        assert!(blue > 1_000, "karc's bar drawn: {blue} pixels");
    }

    #[test]
    fn format_follows_the_extension() {
        assert_eq!(ChartFormat::from_path(Path::new("a.PNG")), ChartFormat::Png);
        assert_eq!(ChartFormat::from_path(Path::new("a.svg")), ChartFormat::Svg);
        assert_eq!(ChartFormat::from_path(Path::new("a")), ChartFormat::Svg);
    }
}
