//! Hierarchies built from a column's own values, so a config needs no
//! hand-written hierarchy file: digit masking for codes (zip codes), interval
//! ladders for numbers, day → month → year for dates, and value → `*` for
//! any other category. A config declares one inline
//! (`hierarchy = { mask = 3 }`); `karc init` writes them for new tables.
//!
//! Every builder keeps a missing-value token (`[input] missing`) as its own
//! node up to the root, as ARX's builders do, and every hierarchy ends in the
//! single root `*`.

use std::fmt::Write as _;
use std::path::Path;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::{Hierarchy, HierarchyError};
use crate::civil::days_from_civil;
use crate::number::NumberFormat;
use crate::table::ValueType;
use crate::{Error, Result};

/// The root label of every built hierarchy.
pub const ROOT: &str = "*";

/// A builder as a config writes it: exactly one of its keys.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BuilderSpec {
    /// Mask up to this many trailing characters, one more per level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mask: Option<usize>,
    /// Interval widths, finest first, each a multiple of the one before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intervals: Option<Vec<f64>>,
    /// Date levels, comma-separated, from `day` (or `time`, then `day`) up:
    /// month, quarter, year, decade.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dates: Option<String>,
    /// `true`: every value directly under the root `*`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flat: Option<bool>,
}

/// A coarser date level above the day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateLevel {
    /// The date of a timestamp (`2023-05-17T08:30:00Z` → `2023-05-17`).
    Day,
    /// `2023-05`.
    Month,
    /// `2023-Q2`.
    Quarter,
    /// `2023`.
    Year,
    /// `2020-2029`.
    Decade,
}

/// A checked builder.
#[derive(Debug, Clone, PartialEq)]
pub enum Builder {
    /// Levels 1..=n mask 1..=n trailing characters with `*`.
    Mask(usize),
    /// Level i groups the numbers into intervals of width `widths[i - 1]`
    /// aligned on its multiples.
    Intervals(Vec<f64>),
    /// ISO dates (`YYYY-MM-DD`) generalized to these levels in turn.
    Dates(Vec<DateLevel>),
    /// Value → `*`.
    Flat,
}

impl BuilderSpec {
    /// The builder this spec names, or what is wrong with it.
    pub fn builder(&self) -> std::result::Result<Builder, String> {
        let given = usize::from(self.mask.is_some())
            + usize::from(self.intervals.is_some())
            + usize::from(self.dates.is_some())
            + usize::from(self.flat.is_some());
        if given != 1 {
            return Err(format!(
                "expected exactly one of mask, intervals, dates, flat; found {given}"
            ));
        }
        if let Some(n) = self.mask {
            if n == 0 {
                return Err("mask: expected a number of characters from 1 up, found 0".into());
            }
            return Ok(Builder::Mask(n));
        }
        if let Some(widths) = &self.intervals {
            return check_widths(widths).map(|()| Builder::Intervals(widths.clone()));
        }
        if let Some(levels) = &self.dates {
            return parse_date_levels(levels).map(Builder::Dates);
        }
        match self.flat {
            Some(true) => Ok(Builder::Flat),
            _ => Err("flat: expected true (value -> *)".into()),
        }
    }
}

/// Widths must be positive, finite, increasing and each a whole multiple
/// of the one before (so every interval has one parent).
fn check_widths(widths: &[f64]) -> std::result::Result<(), String> {
    if widths.is_empty() {
        return Err("intervals: expected at least one width, found none".into());
    }
    for (i, &w) in widths.iter().enumerate() {
        if !(w.is_finite() && w > 0.0) {
            return Err(format!(
                "intervals: expected widths above 0, found {w} (width {})",
                i + 1
            ));
        }
        if i > 0 {
            let ratio = w / widths[i - 1];
            if ratio < 1.5 || (ratio - ratio.round()).abs() > 1e-9 * ratio {
                return Err(format!(
                    "intervals: width {w} is not a multiple (2x or more) of the width before it, {}: \
                     each interval must lie inside one interval of the next level",
                    widths[i - 1]
                ));
            }
        }
    }
    Ok(())
}

fn parse_date_levels(text: &str) -> std::result::Result<Vec<DateLevel>, String> {
    let mut names = text.split(',').map(str::trim);
    if !matches!(names.next(), Some("day" | "time")) {
        return Err(format!(
            "dates: expected levels starting with \"day\" (dates, e.g. \"day,month,year\") or \
             \"time\" (timestamps, e.g. \"time,day,month,year\"), found {text:?}"
        ));
    }
    let mut levels: Vec<DateLevel> = Vec::new();
    for name in names {
        let level = match name {
            "day" if text.trim_start().starts_with("time") => DateLevel::Day,
            "month" => DateLevel::Month,
            "quarter" => DateLevel::Quarter,
            "year" => DateLevel::Year,
            "decade" => DateLevel::Decade,
            _ => {
                return Err(format!(
                    "dates: unknown level {name:?}: expected month, quarter, year or decade (day after time)"
                ));
            }
        };
        if levels.last().is_some_and(|&l| level as u8 <= l as u8) {
            return Err(format!(
                "dates: levels must go from fine to coarse (day, month, quarter, year, decade), found {text:?}"
            ));
        }
        levels.push(level);
    }
    Ok(levels)
}

impl Builder {
    /// The hierarchy over `values` (a column's distinct texts, numbers
    /// spelled as `format` says); `what` names it in messages and as its
    /// source, `missing` are the tokens kept as their own node.
    pub fn build(
        &self,
        what: &str,
        values: &[&str],
        value_type: ValueType,
        format: NumberFormat,
        missing: &[String],
    ) -> Result<Hierarchy> {
        let fail = |message: String| -> Error {
            HierarchyError::Build {
                what: what.to_owned(),
                message,
            }
            .into()
        };
        let height = self.height_over(values);
        // Dates in calendar order (the texts that are not dates, such as
        // missing-value tokens, after them): the leaves and each level's
        // nodes are then numbered by time, and the whole hierarchy, which
        // the private part stores, lists near-equal texts next to each
        // other, which spec/FORMAT.md §6's calendar labels store as small
        // differences.
        let mut sorted;
        let values = match self {
            Builder::Dates(_) => {
                sorted = values.to_vec();
                sorted.sort_by_cached_key(|v| (parse_date(v).is_none(), parse_date(v), *v));
                &sorted[..]
            }
            _ => values,
        };
        let mut rows = Vec::with_capacity(values.len());
        let mut intervals = vec![FxHashMap::default(); height];
        for (i, &value) in values.iter().enumerate() {
            let mut row = Vec::with_capacity(height + 1);
            row.push(value.to_owned());
            if missing.iter().any(|m| m == value) {
                row.extend(std::iter::repeat_n(
                    value.to_owned(),
                    height.saturating_sub(1),
                ));
            } else if let Builder::Intervals(widths) = self {
                let x = number(value, format).map_err(fail)?;
                for (w, labels) in widths.iter().zip(&mut intervals) {
                    row.push(interval_of(x, *w, value_type, labels).to_owned());
                }
            } else {
                for level in 1..height {
                    let mut label = String::new();
                    self.label(value, level, value_type, format, &mut label)
                        .map_err(fail)?;
                    row.push(label);
                }
            }
            row.push(ROOT.to_owned());
            rows.push((i as u64 + 1, row));
        }
        if rows.is_empty() {
            return Err(fail("the column has no values".to_owned()));
        }
        Hierarchy::from_rows(Path::new(what), rows)
    }

    /// The root's level.
    pub fn height(&self) -> usize {
        match self {
            Builder::Mask(n) => n + 1,
            Builder::Intervals(w) => w.len() + 1,
            Builder::Dates(levels) => levels.len() + 1,
            Builder::Flat => 1,
        }
    }

    /// The root's level over `values`: a mask's levels stop where every
    /// value is down to its one kept character, since further levels would
    /// repeat the last (so `{ mask = 1000000 }` costs what the data holds,
    /// not a million copies of each value; issue 32).
    fn height_over(&self, values: &[&str]) -> usize {
        match self {
            Builder::Mask(n) => {
                let longest = values.iter().map(|v| v.chars().count()).max().unwrap_or(0);
                (*n).min(longest.saturating_sub(1).max(1)) + 1
            }
            _ => self.height(),
        }
    }

    /// Writes the label of `value` at `level` (1..height) into `out`.
    fn label(
        &self,
        value: &str,
        level: usize,
        value_type: ValueType,
        format: NumberFormat,
        out: &mut String,
    ) -> std::result::Result<(), String> {
        match self {
            Builder::Mask(_) => {
                let chars = value.chars().count();
                // One character stays, so no node reads as the root `*`.
                let masked = level.min(chars.saturating_sub(1));
                out.extend(value.chars().take(chars - masked));
                out.extend(std::iter::repeat_n('*', masked));
            }
            Builder::Intervals(widths) => {
                let x = number(value, format)?;
                interval_label(x, widths[level - 1], value_type, out);
            }
            Builder::Dates(levels) => {
                let (y, m, _) = parse_date(value).ok_or_else(|| {
                    format!("expected a date YYYY-MM-DD or DD.MM.YYYY, found {value:?} (list missing-value tokens in [input] missing)")
                })?;
                let _ = match levels[level - 1] {
                    DateLevel::Day => write!(
                        out,
                        "{y:04}-{m:02}-{:02}",
                        parse_date(value).map_or(0, |d| d.2)
                    ),
                    DateLevel::Month => write!(out, "{y:04}-{m:02}"),
                    DateLevel::Quarter => write!(out, "{y:04}-Q{}", (m - 1) / 3 + 1),
                    DateLevel::Year => write!(out, "{y:04}"),
                    DateLevel::Decade => {
                        let d = y.div_euclid(10) * 10;
                        write!(out, "{d}-{}", d + 9)
                    }
                };
            }
            Builder::Flat => unreachable!("a flat hierarchy has no level between leaf and root"),
        }
        Ok(())
    }
}

/// The number a value of an interval hierarchy's column spells.
fn number(value: &str, format: NumberFormat) -> std::result::Result<f64, String> {
    format.decimal(value.trim()).ok_or_else(|| {
        format!("expected a number, found {value:?} (list missing-value tokens in [input] missing)")
    })
}

/// The label of the interval of width `w` holding `x`, written once per
/// interval into `labels` (keyed by the interval's number, `floor(x / w)`,
/// which is all the label depends on): a column of a million distinct
/// coordinates meets a few dozen intervals a level, and a label costs two
/// float formattings.
fn interval_of(x: f64, w: f64, value_type: ValueType, labels: &mut FxHashMap<u64, String>) -> &str {
    labels.entry((x / w).floor().to_bits()).or_insert_with(|| {
        let mut label = String::new();
        interval_label(x, w, value_type, &mut label);
        label
    })
}

/// `lo-hi` (whole numbers, both ends included, as ARX's age hierarchy) or
/// `[lo, hi)` (decimals) of the interval of width `w` holding `x`.
fn interval_label(x: f64, w: f64, value_type: ValueType, out: &mut String) {
    let lo = (x / w).floor() * w;
    let whole = value_type == ValueType::Integer && w.fract() == 0.0 && lo.abs() < 9.0e15;
    let _ = if whole {
        write!(out, "{}-{}", lo as i64, (lo + w) as i64 - 1)
    } else {
        write!(out, "[{}, {})", tidy(lo), tidy(lo + w))
    };
}

/// A float without the noise of repeated sums (0.30000000000000004 → 0.3).
fn tidy(x: f64) -> f64 {
    let rounded: f64 = format!("{x:.10}").parse().unwrap_or(x);
    if rounded == 0.0 { 0.0 } else { rounded }
}

/// `(year, month, day)` of an ISO date `YYYY-MM-DD` (or `YYYY/MM/DD`), or
/// of `DD.MM.YYYY` as German, Swiss, Polish or Russian tables write dates
/// (the dots make it unambiguous, unlike `01/02/2020`); a time after it
/// (`T...` or ` ...`) ignored; `None` when it is not a real day.
pub fn parse_date(text: &str) -> Option<(i64, i64, i64)> {
    let t = text.trim();
    let date = t.get(..10)?;
    let rest = &t[10..];
    if !(rest.is_empty() || rest.starts_with('T') || rest.starts_with(' ')) {
        return None;
    }
    let b = date.as_bytes();
    let digits = |s: &str| -> Option<i64> {
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let sep = b[4];
    let (y, m, d) = if (sep == b'-' || sep == b'/') && b[7] == sep {
        (
            digits(&date[..4])?,
            digits(&date[5..7])?,
            digits(&date[8..])?,
        )
    } else if b[2] == b'.' && b[5] == b'.' {
        (
            digits(&date[6..])?,
            digits(&date[3..5])?,
            digits(&date[..2])?,
        )
    } else {
        return None;
    };
    if !(1..=12).contains(&m) || d < 1 {
        return None;
    }
    // The day exists when it survives a round trip through the day count.
    let days = days_from_civil(y, m, d);
    (crate::civil::civil_from_days(days) == (y, m, d)).then_some((y, m, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(b: Builder, values: &[&str], t: ValueType) -> Hierarchy {
        b.build(
            "test",
            values,
            t,
            NumberFormat::default(),
            &["?".to_owned(), String::new()],
        )
        .unwrap()
    }

    fn path_of(h: &Hierarchy, value: &str) -> Vec<String> {
        let leaf = h.leaf(value).unwrap();
        (0..=h.height())
            .map(|l| h.label(l, h.node_of(l, leaf)).to_owned())
            .collect()
    }

    #[test]
    fn masking_keeps_one_character_and_missing_values() {
        let h = build(
            Builder::Mask(5),
            &["02139", "02141", "7", "?"],
            ValueType::Categorical,
        );
        // Five characters keep one: four levels mask, the fifth would repeat.
        assert_eq!(h.height(), 5);
        assert_eq!(
            path_of(&h, "02139"),
            ["02139", "0213*", "021**", "02***", "0****", "*"]
        );
        assert_eq!(path_of(&h, "7"), ["7", "7", "7", "7", "7", "*"]);
        assert_eq!(path_of(&h, "?"), ["?", "?", "?", "?", "?", "*"]);
        let leaf = h.leaf("02141").unwrap();
        assert_eq!(h.node_of(2, leaf), h.node_of(2, h.leaf("02139").unwrap()));
    }

    /// Labels written once per interval are the labels of each value:
    /// negative, zero, signed zero, many-digit and integer values, widths
    /// of whole and fractional numbers.
    #[test]
    fn interval_labels_are_each_values_own() {
        let values: Vec<String> = (0..4000)
            .map(|i| match i % 5 {
                0 => format!("{:.6}", (i as f64 * 0.37).sin() * 180.0),
                1 => format!("{}", i as i64 - 2000),
                2 => "-0".to_owned(),
                3 => format!("{:.9}", i as f64 / 4000.0),
                _ => format!("{}", i * 7919 % 100_000),
            })
            .collect();
        let texts: Vec<&str> = values.iter().map(String::as_str).collect();
        for value_type in [ValueType::Decimal, ValueType::Integer] {
            let widths = vec![0.5, 2.0, 10.0, 1000.0];
            let h = build(Builder::Intervals(widths.clone()), &texts, value_type);
            for v in &texts {
                let x: f64 = v.parse().unwrap();
                let path = path_of(&h, v);
                for (level, w) in widths.iter().enumerate() {
                    let mut own = String::new();
                    interval_label(x, *w, value_type, &mut own);
                    assert_eq!(path[level + 1], own, "{v} at width {w}");
                }
            }
        }
    }

    #[test]
    fn a_huge_mask_costs_what_the_values_hold() {
        // Issue 32: `{ mask = 1000000 }` on 40 rows took 7.3 s and 1.5 GB.
        let h = build(
            Builder::Mask(1_000_000),
            &["ab", "abc", "z"],
            ValueType::Categorical,
        );
        assert_eq!(h.height(), 3);
        assert_eq!(path_of(&h, "abc"), ["abc", "ab*", "a**", "*"]);
        assert_eq!(path_of(&h, "z"), ["z", "z", "z", "*"]);
    }

    #[test]
    fn intervals_nest_and_label_like_arx() {
        let b = BuilderSpec {
            intervals: Some(vec![5.0, 10.0, 50.0]),
            ..Default::default()
        }
        .builder()
        .unwrap();
        let h = build(b, &["17", "24", "25", "-3", "?"], ValueType::Integer);
        assert_eq!(path_of(&h, "24"), ["24", "20-24", "20-29", "0-49", "*"]);
        assert_eq!(path_of(&h, "25"), ["25", "25-29", "20-29", "0-49", "*"]);
        assert_eq!(path_of(&h, "-3"), ["-3", "-5--1", "-10--1", "-50--1", "*"]);
        let h = build(
            Builder::Intervals(vec![0.1, 0.5]),
            &["0.25", "1.05"],
            ValueType::Decimal,
        );
        assert_eq!(path_of(&h, "0.25"), ["0.25", "[0.2, 0.3)", "[0, 0.5)", "*"]);
        assert_eq!(path_of(&h, "1.05"), ["1.05", "[1, 1.1)", "[1, 1.5)", "*"]);
    }

    #[test]
    fn dotted_dates_read_day_first_and_must_be_real_days() {
        assert_eq!(parse_date("17.05.2023"), Some((2023, 5, 17)));
        assert_eq!(parse_date("01.02.1975 08:30"), Some((1975, 2, 1)));
        assert_eq!(parse_date("31.02.2023"), None);
        assert_eq!(parse_date("17.13.2023"), None);
        assert_eq!(parse_date("17.5.2023"), None);
        assert_eq!(parse_date("1a.05.2023"), None);
        let b = BuilderSpec {
            dates: Some("day,month,year".into()),
            ..Default::default()
        }
        .builder()
        .unwrap();
        let h = build(b, &["17.05.2023", "2023-05-18"], ValueType::Categorical);
        assert_eq!(
            path_of(&h, "17.05.2023"),
            ["17.05.2023", "2023-05", "2023", "*"]
        );
    }

    #[test]
    fn dates_go_up_by_calendar() {
        let b = BuilderSpec {
            dates: Some("day, month,quarter,year,decade".into()),
            ..Default::default()
        }
        .builder()
        .unwrap();
        let h = build(b, &["2023-05-17", "2023/06/01", ""], ValueType::Categorical);
        assert_eq!(
            path_of(&h, "2023-05-17"),
            ["2023-05-17", "2023-05", "2023-Q2", "2023", "2020-2029", "*"]
        );
        assert_eq!(path_of(&h, "")[4], "");
        let b = BuilderSpec {
            dates: Some("time,day,month,year".into()),
            ..Default::default()
        }
        .builder()
        .unwrap();
        let h = build(b, &["2023-01-01T00:00:43Z"], ValueType::Categorical);
        assert_eq!(
            path_of(&h, "2023-01-01T00:00:43Z"),
            ["2023-01-01T00:00:43Z", "2023-01-01", "2023-01", "2023", "*"]
        );
        let err = Builder::Dates(vec![DateLevel::Year])
            .build(
                "c.toml: column \"d\"",
                &["2023-02-30"],
                ValueType::Categorical,
                NumberFormat::default(),
                &[],
            )
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "c.toml: column \"d\": expected a date YYYY-MM-DD or DD.MM.YYYY, found \"2023-02-30\" (list missing-value tokens in [input] missing)"
        );
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let spec = |s: BuilderSpec| s.builder().unwrap_err();
        assert!(spec(BuilderSpec::default()).contains("exactly one of"));
        assert!(
            spec(BuilderSpec {
                intervals: Some(vec![5.0, 12.0]),
                ..Default::default()
            })
            .contains("not a multiple")
        );
        assert!(
            spec(BuilderSpec {
                dates: Some("day,year,month".into()),
                ..Default::default()
            })
            .contains("fine to coarse")
        );
        assert!(
            spec(BuilderSpec {
                mask: Some(0),
                ..Default::default()
            })
            .contains("from 1 up")
        );
    }

    #[test]
    fn flat_is_value_then_root() {
        let h = build(Builder::Flat, &["a", "b"], ValueType::Categorical);
        assert_eq!(h.height(), 1);
        assert_eq!(path_of(&h, "b"), ["b", "*"]);
    }
}
