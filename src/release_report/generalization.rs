//! The generalization a release applied to each quasi-identifier, told in
//! words ("intervals 10 wide", "last 2 characters masked", "7 groups") with
//! how many cells each level holds. It reads only what the release shows:
//! an archive's released symbols (which say the hierarchy level of each
//! label), or a third party's labels, whose form is all there is to read.

use serde::Serialize;

/// What a released label is, as far as the release tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "level")]
pub enum LabelKind {
    /// A value released as it is (level 0).
    Exact,
    /// A hierarchy node at this level (an archive's symbols say which).
    Level(u32),
    /// A numeric interval (Mondrian's `lo~hi`, or a label such as `20-29`).
    Interval,
    /// Trailing characters replaced by `*` (`130**`).
    Masked,
    /// A label whose form tells nothing: a third party's category, which
    /// may be a value or a group of values.
    Label,
    /// `*`: the whole cell suppressed.
    Suppressed,
}

/// One distinct released label of a QI, its kind and its rows.
#[derive(Debug, Clone)]
pub struct Labelled {
    /// The label the release shows.
    pub label: String,
    /// What the label is.
    pub kind: LabelKind,
    /// Rows that carry it.
    pub rows: u64,
}

/// One level (or form) of a QI's generalization: its cells and a phrase.
#[derive(Debug, Clone, Serialize)]
pub struct LevelUse {
    /// The level or form.
    #[serde(flatten)]
    pub kind: LabelKind,
    /// Cells released at it.
    pub cells: u64,
    /// Its share of the column's cells.
    pub share: f64,
    /// Distinct labels at it.
    pub labels: usize,
    /// What it is, in words ("intervals 10 wide, such as 20-29").
    pub words: String,
}

/// A QI's generalization: a sentence and each level's use.
#[derive(Debug, Clone, Serialize)]
pub struct QiGeneralization {
    /// The QI's name.
    pub name: String,
    /// The height of its hierarchy (`None`: no hierarchy, or unknown).
    pub height: Option<u32>,
    /// The generalization in words: its most used level's phrase.
    pub words: String,
    /// Each level or form used, most cells first.
    pub levels: Vec<LevelUse>,
}

/// The kind a third party's label has by its form alone.
pub fn kind_of_label(label: &str) -> LabelKind {
    if label == crate::cell::SUPPRESSED {
        LabelKind::Suppressed
    } else if range_of(label).is_some() {
        LabelKind::Interval
    } else if masked_count(label).is_some() {
        LabelKind::Masked
    } else {
        LabelKind::Label
    }
}

/// The numeric range a label spells: `lo~hi` (karc's intervals), `lo-hi`,
/// `[lo-hi]`, `[lo, hi)`, `lo..hi`; `None` for anything else.
pub fn range_of(label: &str) -> Option<(f64, f64)> {
    let inner = label
        .trim()
        .trim_start_matches(['[', '('])
        .trim_end_matches([']', ')']);
    let number = |t: &str| t.trim().parse::<f64>().ok().filter(|x| x.is_finite());
    for sep in ["~", "..", ",", " - ", "-"] {
        // Split at the separator after the first character, so that a
        // negative lower end (`-5-0`) keeps its sign.
        let at = inner.get(1..)?.find(sep).map(|i| i + 1);
        if let Some(at) = at {
            let (lo, hi) = (number(&inner[..at]), number(&inner[at + sep.len()..]));
            if let (Some(lo), Some(hi)) = (lo, hi)
                && lo <= hi
            {
                return Some((lo, hi));
            }
        }
    }
    None
}

/// Trailing `*` characters after at least one other character (`130**`: 2).
fn masked_count(label: &str) -> Option<usize> {
    let kept = label.trim_end_matches('*');
    let stars = label.len() - kept.len();
    (stars > 0 && !kept.is_empty()).then_some(stars)
}

/// A QI's generalization from its labels (`height`: its hierarchy's).
pub fn describe(name: &str, height: Option<u32>, labels: &[Labelled]) -> QiGeneralization {
    let total: u64 = labels.iter().map(|l| l.rows).sum();
    let mut kinds: Vec<LabelKind> = labels.iter().map(|l| l.kind).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let mut levels: Vec<LevelUse> = kinds
        .into_iter()
        .map(|kind| {
            let of: Vec<&Labelled> = labels.iter().filter(|l| l.kind == kind).collect();
            let cells: u64 = of.iter().map(|l| l.rows).sum();
            LevelUse {
                kind,
                cells,
                share: if total == 0 {
                    0.0
                } else {
                    cells as f64 / total as f64
                },
                labels: of.len(),
                words: level_words(kind, height, &of),
            }
        })
        .collect();
    levels.sort_by(|a, b| b.cells.cmp(&a.cells).then(a.kind.cmp(&b.kind)));
    let words = match &levels[..] {
        [] => "no rows".to_owned(),
        [one] => one.words.clone(),
        [first, ..] => format!(
            "mostly {} ({:.0} % of cells); {} forms in all",
            first.words,
            first.share * 100.0,
            levels.len()
        ),
    };
    QiGeneralization {
        name: name.to_owned(),
        height,
        words,
        levels,
    }
}

/// The phrase of one level: what its labels look like.
fn level_words(kind: LabelKind, height: Option<u32>, of: &[&Labelled]) -> String {
    let level = match (kind, height) {
        (LabelKind::Level(l), Some(h)) => format!("level {l} of {h}: "),
        (LabelKind::Level(l), None) => format!("level {l}: "),
        _ => String::new(),
    };
    let ranges: Vec<(f64, f64)> = of.iter().filter_map(|l| range_of(&l.label)).collect();
    let shape = if kind == LabelKind::Suppressed {
        return "suppressed (*)".to_owned();
    } else if kind == LabelKind::Exact {
        return "released as it is".to_owned();
    } else if !ranges.is_empty() && ranges.len() == of.len() {
        interval_words(&ranges, of.iter().all(|l| l.label.contains('~')))
    } else if let Some(stars) = common_mask(of) {
        stars
    } else if kind == LabelKind::Label {
        format!("{} distinct labels, as released", of.len())
    } else {
        format!(
            "{} group{}{}",
            of.len(),
            if of.len() == 1 { "" } else { "s" },
            examples(of)
        )
    };
    format!("{level}{shape}")
}

/// Up to three labels of the most rows, as ", such as A, B, C".
fn examples(of: &[&Labelled]) -> String {
    let mut by_rows: Vec<&&Labelled> = of.iter().collect();
    by_rows.sort_by(|a, b| b.rows.cmp(&a.rows).then(a.label.cmp(&b.label)));
    let shown: Vec<&str> = by_rows.iter().take(3).map(|l| l.label.as_str()).collect();
    format!(", such as {}", shown.join(", "))
}

/// Interval widths in words: one width, or their spread. Integer ranges
/// spelled `20-29` cover hi - lo + 1 values; karc's `lo~hi` intervals are
/// the smallest and largest value of a class, so their width is hi - lo.
fn interval_words(ranges: &[(f64, f64)], measured: bool) -> String {
    let integral = ranges
        .iter()
        .all(|&(a, b)| a.fract() == 0.0 && b.fract() == 0.0);
    let extra = if integral && !measured { 1.0 } else { 0.0 };
    let mut widths: Vec<f64> = ranges.iter().map(|&(a, b)| b - a + extra).collect();
    widths.sort_by(f64::total_cmp);
    let (lo, hi) = (widths[0], widths[widths.len() - 1]);
    if measured {
        let median = widths[widths.len() / 2];
        return format!(
            "{} intervals fitted to the classes, {} to {} wide (median {})",
            ranges.len(),
            number(lo),
            number(hi),
            number(median)
        );
    }
    if lo == hi {
        format!("intervals {} wide ({} of them)", number(lo), ranges.len())
    } else {
        format!(
            "intervals {} to {} wide ({} of them)",
            number(lo),
            number(hi),
            ranges.len()
        )
    }
}

/// "last N characters masked" when every label ends in `*`s.
fn common_mask(of: &[&Labelled]) -> Option<String> {
    let counts: Vec<usize> = of
        .iter()
        .map(|l| masked_count(&l.label))
        .collect::<Option<_>>()?;
    let (lo, hi) = (*counts.iter().min()?, *counts.iter().max()?);
    let chars = |n: usize| if n == 1 { "character" } else { "characters" };
    Some(if lo == hi {
        format!("last {lo} {} masked", chars(lo))
    } else {
        format!("last {lo} to {hi} characters masked")
    })
}

/// A number without a needless fraction.
fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labelled(label: &str, kind: LabelKind, rows: u64) -> Labelled {
        Labelled {
            label: label.to_owned(),
            kind,
            rows,
        }
    }

    #[test]
    fn ranges_in_their_spellings() {
        assert_eq!(range_of("20-29"), Some((20.0, 29.0)));
        assert_eq!(range_of("[20, 30)"), Some((20.0, 30.0)));
        assert_eq!(range_of("17~90"), Some((17.0, 90.0)));
        assert_eq!(range_of("-5-0"), Some((-5.0, 0.0)));
        assert_eq!(range_of("Married-civ-spouse"), None);
        assert_eq!(range_of("30-20"), None);
    }

    #[test]
    fn ten_year_intervals_and_masks_in_words() {
        let ages = [
            labelled("20-29", LabelKind::Level(2), 5),
            labelled("30-39", LabelKind::Level(2), 5),
        ];
        let g = describe("age", Some(4), &ages);
        assert_eq!(g.words, "level 2 of 4: intervals 10 wide (2 of them)");
        let zips = [
            labelled("130**", LabelKind::Masked, 3),
            labelled("148**", LabelKind::Masked, 1),
            labelled("*", LabelKind::Suppressed, 1),
        ];
        let g = describe("zip", None, &zips);
        assert_eq!(g.levels[0].words, "last 2 characters masked");
        assert_eq!(g.levels[0].cells, 4);
        assert_eq!(g.levels[1].words, "suppressed (*)");
        assert!(
            g.words
                .starts_with("mostly last 2 characters masked (80 % of cells)")
        );
    }

    #[test]
    fn labels_by_their_form() {
        assert_eq!(kind_of_label("*"), LabelKind::Suppressed);
        assert_eq!(kind_of_label("1**"), LabelKind::Masked);
        assert_eq!(kind_of_label("[1-5]"), LabelKind::Interval);
        assert_eq!(kind_of_label("Europe"), LabelKind::Label);
    }
}
