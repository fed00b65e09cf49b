//! The archive's structured metadata, serialized with postcard
//! (`spec/FORMAT.md` §5, §6 and §7 tabulate every field in this order).
//!
//! Field order is the wire order: never reorder, only append in a new minor
//! version inside new sections.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::compressed;
pub use super::private_part::{
    IdentifierColumn, PrivatePart, PrivateParts, PrivateTrailer, arrow_extras_from_bytes,
    arrow_extras_to_bytes, take_frame,
};
pub use super::sealed::{SealedMeta, SealedMetrics};
pub use super::wire::{from_bytes, split_from_bytes, to_bytes};
use crate::codec::calendar;
use crate::config::{Role, SuppressionPolicy, ValueType};
use crate::hierarchy::Hierarchy;
use crate::metrics::Metrics;

/// The `META` section: everything public except the column blobs and the
/// hierarchies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublicMeta {
    /// The program that wrote the file (`karc 0.1.0`), for diagnosis only.
    pub writer: String,
    /// Data rows (the header not counted).
    pub rows: u64,
    /// Every column of the original table, in file order.
    pub columns: Vec<ColumnMeta>,
    /// The quasi-identifiers in claim order: indices into `columns`.
    pub qis: Vec<u32>,
    /// The privacy claim every reader checks again.
    pub claim: Claim,
    /// How the release was made.
    pub algorithm: AlgorithmMeta,
    /// Utility measured when it was made.
    pub metrics: MetricsMeta,
    /// How `karc export` writes the release.
    pub dialect: Dialect,
    /// Tokens that stand for a missing value.
    pub missing: Vec<String>,
}

/// What `PublicMeta::writer` says of this program.
pub const WRITER: &str = concat!("karc ", env!("CARGO_PKG_VERSION"));

/// The `META` column list of a table and its `HIERARCHIES` records (one per
/// column that has a hierarchy, numbered in column order), from each
/// column's name, role, type and hierarchy.
pub fn columns_and_hierarchies<'a>(
    columns: impl Iterator<Item = (String, Role, ValueType, Option<&'a Hierarchy>)>,
) -> (Vec<ColumnMeta>, Vec<HierarchyRecord>) {
    let mut hierarchies = Vec::new();
    let columns = columns
        .map(|(name, role, value_type, hierarchy)| ColumnMeta {
            name,
            role,
            value_type,
            pseudonym: false,
            hierarchy: hierarchy.map(|h| {
                hierarchies.push(HierarchyRecord::from_hierarchy(h));
                hierarchies.len() as u32 - 1
            }),
        })
        .collect();
    (columns, hierarchies)
}

/// One column of the original table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnMeta {
    /// The column's name in the original.
    pub name: String,
    /// What the column is for.
    pub role: Role,
    /// How its values are read.
    pub value_type: ValueType,
    /// Index into the `HIERARCHIES` section, for QIs that have one.
    pub hierarchy: Option<u32>,
    /// An identifier released as keyed pseudonyms (a `COLUMN` section of
    /// them; the originals stay in the private part): `spec/FORMAT.md` §5.
    pub pseudonym: bool,
}

impl ColumnMeta {
    /// Whether the release shows this column as a `COLUMN` section: every
    /// column but a QI (its classes) and an identifier that is not
    /// pseudonymized.
    pub fn has_column_section(&self) -> bool {
        match self.role {
            Role::Quasi => false,
            Role::Identifier => self.pseudonym,
            Role::Sensitive | Role::Insensitive => true,
        }
    }

    /// Whether the release shows this column at all (a QI's classes or a
    /// `COLUMN` section).
    pub fn is_released(&self) -> bool {
        self.role != Role::Identifier || self.pseudonym
    }
}

/// One k-anonymity constraint: classes over `qis` (positions in
/// [`PublicMeta::qis`]) have at least `k` rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstraintMeta {
    /// Positions in [`PublicMeta::qis`].
    pub qis: Vec<u32>,
    /// The smallest class allowed.
    pub k: u64,
}

/// The privacy claim the release was made under, re-checked on every open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// k on each QI subset.
    pub constraints: Vec<ConstraintMeta>,
    /// How suppressed rows count.
    pub policy: SuppressionPolicy,
    /// Configured fraction of rows that may be suppressed.
    pub suppression_limit: Option<f64>,
    /// Rows the release may suppress (checked on open).
    pub suppression_budget: u64,
    /// Distinct l-diversity: (column index of the sensitive column, l).
    pub l_diversity: Option<(u32, u64)>,
}

/// How the release was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlgorithmMeta {
    /// The anonymizer, as configs name it.
    pub name: String,
    /// The seed of its randomized steps.
    pub seed: u64,
    /// Further parameters, as the TOML text of the `[algorithm]` table's
    /// extra keys (empty when none).
    pub params: String,
    /// Global recoding: one level per QI, in claim order (the release
    /// shows it: every label of a QI is at its level).
    pub levels: Option<Vec<u32>>,
}

/// The utility metrics the release alone determines (`ALGORITHMS.md`), as
/// measured when it was made: anyone can compute them again from the
/// release and its public hierarchies. A copy of [`Metrics`] kept apart so
/// that the wire format does not change when the report grows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MetricsMeta {
    /// Sweeney's precision (global recodings only): levels over heights.
    pub precision: Option<f64>,
    /// Discernibility metric: the classes' sizes squared.
    pub dm: f64,
    /// Normalized average class size.
    pub cavg: f64,
}

impl From<&Metrics> for MetricsMeta {
    fn from(m: &Metrics) -> Self {
        MetricsMeta {
            precision: m.precision,
            dm: m.dm,
            cavg: m.cavg,
        }
    }
}

/// The CSV dialect the release is exported in (as `karc anonymize` writes
/// it): delimiter, header row, line ending; quoting only where needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dialect {
    /// The field separator.
    pub delimiter: u8,
    /// Whether a header row names the columns.
    pub header: bool,
    /// Whether records end with `\r\n` rather than `\n`.
    pub crlf: bool,
}

/// One hierarchy: the labels of each level (level 0 = the leaves, in leaf
/// order; the last level = the root) and the parent of each node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HierarchyRecord {
    /// `levels[l]`: the labels of level `l`'s nodes.
    pub levels: Vec<Vec<String>>,
    /// `parents[l][n]`: the node at level `l + 1` above node `n` of level `l`.
    pub parents: Vec<Vec<u32>>,
}

impl HierarchyRecord {
    /// The record of `h`, as the `HIERARCHIES` section stores it.
    pub fn from_hierarchy(h: &Hierarchy) -> HierarchyRecord {
        let (levels, parents) = h.to_tree();
        HierarchyRecord { levels, parents }
    }

    /// The record of `h` over the given leaves (ascending leaf numbers) and
    /// their ancestors alone, the height kept: what a sensitive column's
    /// release shows of its hierarchy (`spec/FORMAT.md` §6). Levels between
    /// keep their nodes that are above a kept leaf, each level numbered by
    /// first appearance in leaf order, as `Hierarchy::from_tree` requires.
    pub fn over_leaves(h: &Hierarchy, leaves: &[u32]) -> HierarchyRecord {
        let mut levels = vec![
            leaves
                .iter()
                .map(|&l| h.label(0, l).to_owned())
                .collect::<Vec<_>>(),
        ];
        let mut parents = Vec::with_capacity(h.height());
        let mut nodes: Vec<u32> = leaves.to_vec();
        for level in 0..h.height() {
            let mut renumbered: rustc_hash::FxHashMap<u32, u32> = Default::default();
            let mut above = Vec::new();
            let list = nodes
                .iter()
                .map(|&n| {
                    let p = h.parent(level, n);
                    *renumbered.entry(p).or_insert_with(|| {
                        above.push(p);
                        above.len() as u32 - 1
                    })
                })
                .collect();
            parents.push(list);
            levels.push(
                above
                    .iter()
                    .map(|&n| h.label(level + 1, n).to_owned())
                    .collect(),
            );
            nodes = above;
        }
        HierarchyRecord { levels, parents }
    }

    /// Rebuilds the hierarchy (node numbers as in the original, since both
    /// number nodes by first appearance in leaf order). `source` names it
    /// in messages.
    pub fn into_hierarchy(self, source: &Path) -> Result<Hierarchy, String> {
        Hierarchy::from_tree(source, self.levels, &self.parents)
    }
}

/// One hierarchy level's labels as `HIERARCHIES` stores them (FORMAT §6):
/// a numeric QI's levels (`17`, `18`, ...; `15-19`, `20-24`, ...) as
/// differences, which Brotli finds repeated where the texts are not; other
/// labels as one text of lines, which it models as the text they are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum LevelLabels {
    /// The labels as they are.
    Texts(Vec<String>),
    /// Each label the decimal text of an integer (`-` for a negative one,
    /// no leading zero): each one less the previous (the first less 0),
    /// modulo 2^64.
    Integers(Vec<i64>),
    /// Each label `a-b`, `a` and `b` integer texts as above: `a` less the
    /// previous label's `a`, and `b - a`, modulo 2^64.
    Intervals(Vec<(i64, i64)>),
    /// The labels joined by `\n`, none of them holding one (a level of
    /// one empty label is the empty text): no length prefix between the
    /// words, which Brotli would code as noise (Adult's hierarchies: 55
    /// bytes fewer than with `Texts`).
    Lines(String),
    /// (2.0) Each label a date or a date and time as `spec/CODING.md` 5.5
    /// writes them in its format (0 `YYYY-MM-DD`, 1 and 2 with ` hh:mm:ss`
    /// or `Thh:mm:ss`): its value (days, or seconds) less the previous
    /// label's (the first less 0), modulo 2^64. A date hierarchy's leaves
    /// in calendar order differ by a few bits where their texts take 19
    /// bytes: with 4,000 patient records' visit times and birth dates as
    /// QIs, the private part falls from 118,753 to 83,149 bytes.
    Calendar(u8, Vec<i64>),
}

impl LevelLabels {
    /// The shortest kind that gives back `labels` exactly.
    fn of(labels: &[String]) -> LevelLabels {
        let integer = |s: &str| s.parse::<i64>().ok().filter(|v| v.to_string() == s);
        let interval = |s: &str| {
            let cut = s.get(1..)?.find('-')? + 1;
            let (a, b) = (integer(&s[..cut])?, integer(&s[cut + 1..])?);
            Some((a, b))
        };
        let deltas = |values: &mut dyn Iterator<Item = Option<i64>>| {
            let mut previous = 0i64;
            values
                .map(|v| {
                    let v = v?;
                    let d = v.wrapping_sub(previous);
                    previous = v;
                    Some(d)
                })
                .collect::<Option<Vec<i64>>>()
        };
        if labels.is_empty() {
            return LevelLabels::Texts(Vec::new());
        }
        if let Some(d) = deltas(&mut labels.iter().map(|s| integer(s))) {
            return LevelLabels::Integers(d);
        }
        let ends: Option<Vec<(i64, i64)>> = labels.iter().map(|s| interval(s)).collect();
        if let Some(ends) = ends {
            let starts = deltas(&mut ends.iter().map(|&(a, _)| Some(a))).expect("all some");
            let pairs = starts
                .into_iter()
                .zip(&ends)
                .map(|(d, &(a, b))| (d, b.wrapping_sub(a)))
                .collect();
            return LevelLabels::Intervals(pairs);
        }
        for id in 0..=3 {
            let format = calendar::Format::from_id(id).expect("ids 0 to 3");
            if let Some(d) = deltas(&mut labels.iter().map(|s| calendar::parse(format, s))) {
                return LevelLabels::Calendar(id, d);
            }
        }
        if labels.iter().any(|l| l.contains('\n')) {
            LevelLabels::Texts(labels.to_vec())
        } else {
            LevelLabels::Lines(labels.join("\n"))
        }
    }

    /// The labels; an error for a calendar label outside the years 0000
    /// to 9999 or an unknown calendar format.
    fn into_texts(self) -> Result<Vec<String>, String> {
        Ok(match self {
            LevelLabels::Calendar(id, deltas) => {
                let format = calendar::Format::from_id(id)
                    .ok_or_else(|| format!("unknown calendar label format {id} (0 to 3)"))?;
                let mut value = 0i64;
                let mut labels = Vec::with_capacity(deltas.len());
                for d in deltas {
                    value = value.wrapping_add(d);
                    let mut label = String::new();
                    calendar::render(&mut label, format, value).ok_or_else(|| {
                        format!("calendar label {value} is outside the years 0000 to 9999")
                    })?;
                    labels.push(label);
                }
                labels
            }
            LevelLabels::Texts(texts) => texts,
            LevelLabels::Lines(lines) => lines.split('\n').map(str::to_owned).collect(),
            LevelLabels::Integers(deltas) => deltas
                .into_iter()
                .scan(0i64, |v, d| {
                    *v = v.wrapping_add(d);
                    Some(v.to_string())
                })
                .collect(),
            LevelLabels::Intervals(pairs) => pairs
                .into_iter()
                .scan(0i64, |a, (d, width)| {
                    *a = a.wrapping_add(d);
                    Some(format!("{}-{}", *a, a.wrapping_add(width)))
                })
                .collect(),
        })
    }
}

/// A [`HierarchyRecord`] as `HIERARCHIES` stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct HierarchyWire {
    levels: Vec<LevelLabels>,
    parents: Vec<Vec<u32>>,
}

/// The largest `META` a reader decompresses (and a writer writes): far
/// above the metadata of any real table (5,000 columns take about
/// 100 KB), and a bound on what a corrupt stream can make us allocate.
pub const MAX_META_BYTES: usize = 1 << 26;

/// The largest `HIERARCHIES` a reader decompresses (and a writer writes):
/// far above any real hierarchy set (a million text leaves take about
/// 26 MB).
pub const MAX_HIERARCHIES_BYTES: usize = 1 << 30;

/// The `META` section: the postcard `PublicMeta` as one Brotli stream
/// (FORMAT §5; Adult's: 250 -> 195 bytes). Refused when it is larger than
/// a reader accepts.
pub fn meta_to_bytes(public: &PublicMeta) -> Result<Vec<u8>, String> {
    section_to_bytes("metadata", &to_bytes(public), MAX_META_BYTES)
}

/// Reads a `META` section: one Brotli stream ending at the section's end,
/// that decompresses to one postcard `PublicMeta` and nothing after it.
pub fn meta_from_bytes(bytes: &[u8]) -> Result<PublicMeta, String> {
    let meta: PublicMeta = from_bytes(&compressed::decompress(bytes, MAX_META_BYTES)?)?;
    let d = meta.dialect.delimiter;
    if !crate::table::is_delimiter(d) {
        return Err(format!(
            "dialect: expected a delimiter that is one ASCII character other than a quote, CR, LF \
             or NUL, found byte {d:#04x}"
        ));
    }
    Ok(meta)
}

/// The `HIERARCHIES` section: the records with numeric levels as
/// differences and text levels as lines (`LevelLabels`), in postcard, as
/// one Brotli stream (FORMAT §6; Adult's nine hierarchies: 1,773 bytes of
/// postcard, 819 compressed; 1,031 as raw DEFLATE before). Refused when it
/// is larger than a reader accepts.
pub fn hierarchies_to_bytes(records: &[HierarchyRecord]) -> Result<Vec<u8>, String> {
    let plain = hierarchies_postcard(records);
    section_to_bytes("hierarchies", &plain, MAX_HIERARCHIES_BYTES)
}

/// The postcard `HIERARCHIES` compresses (what `bench_sections` times).
pub fn hierarchies_postcard(records: &[HierarchyRecord]) -> Vec<u8> {
    let wire: Vec<HierarchyWire> = records
        .iter()
        .map(|r| HierarchyWire {
            levels: r.levels.iter().map(|l| LevelLabels::of(l)).collect(),
            parents: r.parents.clone(),
        })
        .collect();
    to_bytes(&wire)
}

/// Reads a `HIERARCHIES` section (the stream as for `META`).
pub fn hierarchies_from_bytes(bytes: &[u8]) -> Result<Vec<HierarchyRecord>, String> {
    let wire: Vec<HierarchyWire> =
        from_bytes(&compressed::decompress(bytes, MAX_HIERARCHIES_BYTES)?)?;
    wire.into_iter()
        .map(|w| {
            Ok(HierarchyRecord {
                levels: (w.levels.into_iter())
                    .map(LevelLabels::into_texts)
                    .collect::<Result<_, String>>()?,
                parents: w.parents,
            })
        })
        .collect()
}

/// `plain` compressed, unless it is above `limit` (the reader's bound).
fn section_to_bytes(what: &str, plain: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    if plain.len() > limit {
        return Err(format!(
            "the {what} take {} bytes, above the {limit} bytes the format allows",
            plain.len()
        ));
    }
    Ok(compressed::compress(plain))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hierarchy_round_trip_keeps_node_numbers() {
        let h = Hierarchy::from_bytes(Path::new("h.csv"), b"b;x;*\na;y;*\nc;x;*\nd;z;*\n").unwrap();
        let r = HierarchyRecord::from_hierarchy(&h);
        assert_eq!(r.levels[1], vec!["x", "y", "z"]);
        let back = r.clone().into_hierarchy(Path::new("h.csv")).unwrap();
        assert_eq!(
            back.rows().collect::<Vec<_>>(),
            h.rows().collect::<Vec<_>>()
        );
        let again = from_bytes::<HierarchyRecord>(&to_bytes(&r)).unwrap();
        assert_eq!(again, r);
    }

    #[test]
    fn levels_are_stored_as_differences_or_lines() {
        let texts = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases = [
            (texts(&["17", "18", "20", "-3", "0"]), "Integers"),
            (
                texts(&["15-19", "20-24", "-10--5", "0-0", "9-2"]),
                "Intervals",
            ),
            (texts(&["007", "8"]), "Lines"),
            (texts(&["-0", "1"]), "Lines"),
            (texts(&["+4-5"]), "Lines"),
            (texts(&["1-", "2-3"]), "Lines"),
            (texts(&["1~4"]), "Lines"),
            (texts(&["*"]), "Lines"),
            (texts(&[""]), "Lines"),
            (texts(&["", "", "a;b", "\"q\"", "Zürich", ""]), "Lines"),
            (texts(&["a\nb", "c"]), "Texts"),
            (texts(&["\n"]), "Texts"),
            (texts(&["a\r", "b"]), "Lines"),
            (Vec::new(), "Texts"),
            (
                texts(&["9223372036854775807", "-9223372036854775808"]),
                "Integers",
            ),
            (
                texts(&["-9223372036854775808-9223372036854775807"]),
                "Intervals",
            ),
            (texts(&["99999999999999999999"]), "Lines"),
        ];
        for (labels, kind) in cases {
            let wire = LevelLabels::of(&labels);
            assert!(
                format!("{wire:?}").starts_with(kind),
                "{labels:?}: {wire:?}"
            );
            let bytes = to_bytes(&wire);
            assert_eq!(from_bytes::<LevelLabels>(&bytes).unwrap(), wire);
            assert_eq!(wire.into_texts(), Ok(labels));
        }
        // Postcard: variant 1, 3 values, zigzag 17, 1, 2.
        let wire = LevelLabels::of(&texts(&["17", "18", "20"]));
        assert_eq!(to_bytes(&wire), vec![1, 3, 34, 2, 4]);
        // Variant 2, 2 pairs: (15, 4), (5, 4).
        let wire = LevelLabels::of(&texts(&["15-19", "20-24"]));
        assert_eq!(to_bytes(&wire), vec![2, 2, 30, 8, 10, 8]);
        // Variant 3, one string of 5 bytes; variant 0, an empty list.
        let wire = LevelLabels::of(&texts(&["ab", "", "c"]));
        assert_eq!(to_bytes(&wire), b"\x03\x05ab\n\nc");
        assert_eq!(to_bytes(&LevelLabels::of(&[])), vec![0, 0]);
    }

    #[test]
    fn calendar_levels_are_stored_as_value_differences() {
        let texts = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases = [
            (
                texts(&["2024-03-01", "2024-03-02", "1969-12-31"]),
                "Calendar(0",
            ),
            (
                texts(&["2024-03-01 10:00:00", "0000-01-01 00:00:00"]),
                "Calendar(1",
            ),
            (
                texts(&["9999-12-31T23:59:59", "2024-02-29T00:00:00"]),
                "Calendar(2",
            ),
            // Not dates in one format: a day that does not exist, a mix.
            (texts(&["2023-02-29", "2023-03-01"]), "Lines"),
            (texts(&["2024-03-01", "2024-03-01T10:00:00"]), "Lines"),
            (
                texts(&["2024-03-01T10:00:00Z", "2024-03-01T10:00:30Z"]),
                "Calendar(3",
            ),
            (
                texts(&["2024-03-01T10:00:00Z", "2024-03-01T10:00:30"]),
                "Lines",
            ),
        ];
        for (labels, kind) in cases {
            let wire = LevelLabels::of(&labels);
            assert!(
                format!("{wire:?}").starts_with(kind),
                "{labels:?}: {wire:?}"
            );
            let bytes = to_bytes(&wire);
            assert_eq!(from_bytes::<LevelLabels>(&bytes).unwrap(), wire);
            assert_eq!(wire.into_texts(), Ok(labels));
        }
        // Variant 4, format 0, 2 days: zigzag 19,783 (2024-03-01), then 1.
        let wire = LevelLabels::of(&texts(&["2024-03-01", "2024-03-02"]));
        assert_eq!(to_bytes(&wire), vec![4, 0, 2, 0x8e, 0xb5, 0x02, 2]);
        // A forged value past 9999-12-31 or an unknown format is an error.
        assert!(
            LevelLabels::Calendar(0, vec![3_000_000])
                .into_texts()
                .is_err()
        );
        assert!(LevelLabels::Calendar(4, vec![0]).into_texts().is_err());
        assert!(
            LevelLabels::Calendar(1, vec![i64::MIN])
                .into_texts()
                .is_err()
        );
    }

    fn hierarchy(name: &str, csv: &[u8]) -> HierarchyRecord {
        HierarchyRecord::from_hierarchy(&Hierarchy::from_bytes(Path::new(name), csv).unwrap())
    }

    fn adult_records() -> Vec<HierarchyRecord> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/adult/hierarchies");
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        assert_eq!(names.len(), 9, "{names:?}");
        names
            .iter()
            .map(|p| hierarchy("adult", &std::fs::read(p).unwrap()))
            .collect()
    }

    #[test]
    fn hierarchies_section_round_trips() {
        let odd = hierarchy(
            "h.csv",
            "1;0-4;*\n2;0-4;*\n7;5-9;*\n-3;-5--1;*\nx;other;*\n\
             \"a\nb\";\"multi\nline\";*\n\"x;y\";\"\"\"q\"\"\";*\n\
             Zürich;Schweiz €;*\n;;*\n\"\n\";\"\";*\n"
                .as_bytes(),
        );
        assert!(odd.levels[0].iter().any(|l| l == "a\nb"));
        assert!(odd.levels[0].iter().any(|l| l.is_empty()));
        let ages = hierarchy(
            "age.csv",
            &std::fs::read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/fixtures/adult/hierarchies/adult_hierarchy_age.csv"
            ))
            .unwrap(),
        );
        let bytes = hierarchies_to_bytes(std::slice::from_ref(&ages)).unwrap();
        assert!(bytes.len() < 200, "{} bytes", bytes.len());
        let records = [vec![odd], vec![ages], adult_records(), Vec::new()];
        for records in records {
            let back = hierarchies_from_bytes(&hierarchies_to_bytes(&records).unwrap()).unwrap();
            assert_eq!(back, records);
            for r in back {
                let h = r.clone().into_hierarchy(Path::new("back")).unwrap();
                assert_eq!(HierarchyRecord::from_hierarchy(&h), r);
            }
        }
    }

    #[test]
    fn adult_hierarchies_are_smaller_as_lines() {
        // Adult's nine hierarchies: Brotli of the lines beats Brotli of the
        // length-prefixed texts, and the old raw DEFLATE (1,031 bytes).
        let records = adult_records();
        let lines = hierarchies_to_bytes(&records).unwrap();
        let as_texts: Vec<HierarchyWire> = records
            .iter()
            .map(|r| HierarchyWire {
                levels: (r.levels.iter())
                    .map(|l| match LevelLabels::of(l) {
                        LevelLabels::Lines(_) => LevelLabels::Texts(l.clone()),
                        numbers => numbers,
                    })
                    .collect(),
                parents: r.parents.clone(),
            })
            .collect();
        let texts = compressed::compress(&to_bytes(&as_texts));
        assert!(
            lines.len() + 40 < texts.len(),
            "{} {}",
            lines.len(),
            texts.len()
        );
        assert!(lines.len() < 900, "{}", lines.len());
    }

    #[test]
    fn a_hundred_thousand_leaves_round_trip() {
        // Leaves of text ids, two levels of groups, and the root.
        let mut csv = String::new();
        for i in 0..100_000u32 {
            let id = i.wrapping_mul(2_654_435_761);
            csv += &format!("id-{id:08x};group {};block {};*\n", i / 100, i / 10_000);
        }
        let record = hierarchy("big.csv", csv.as_bytes());
        let records = [record];
        let bytes = hierarchies_to_bytes(&records).unwrap();
        assert!(bytes.len() < 1_000_000, "{}", bytes.len());
        assert_eq!(hierarchies_from_bytes(&bytes).unwrap(), records);
    }

    #[test]
    fn sections_must_reject_bad_streams() {
        let records = adult_records();
        let h = hierarchies_to_bytes(&records).unwrap();
        let mut trailing = h.clone();
        trailing.push(0);
        let e = hierarchies_from_bytes(&trailing).unwrap_err();
        assert_eq!(e, "1 byte after the Brotli stream");
        let e = hierarchies_from_bytes(&h[..h.len() - 3]).unwrap_err();
        assert!(e.contains("truncated") || e.contains("not a valid"), "{e}");
        // A META whose stream is whole but holds bytes after the postcard.
        let public = PublicMeta {
            writer: WRITER.to_owned(),
            rows: 3,
            columns: Vec::new(),
            qis: Vec::new(),
            claim: Claim {
                constraints: Vec::new(),
                policy: SuppressionPolicy::Mask,
                suppression_limit: None,
                suppression_budget: 0,
                l_diversity: None,
            },
            algorithm: AlgorithmMeta {
                name: "datafly".to_owned(),
                seed: 0,
                params: String::new(),
                levels: None,
            },
            metrics: MetricsMeta {
                precision: None,
                dm: 0.0,
                cavg: 1.0,
            },
            dialect: Dialect {
                delimiter: b',',
                header: true,
                crlf: false,
            },
            missing: vec!["?".to_owned()],
        };
        let m = meta_to_bytes(&public).unwrap();
        assert_eq!(meta_from_bytes(&m).unwrap(), public);
        let e = meta_from_bytes(&m[..m.len() - 1]).unwrap_err();
        assert!(e.contains("truncated") || e.contains("not a valid"), "{e}");
        let mut plain = to_bytes(&public);
        plain.push(0);
        let e = meta_from_bytes(&compressed::compress(&plain)).unwrap_err();
        assert_eq!(e, "1 bytes left after the structure");
        // Raw postcard (a development file's META) is not a Brotli stream.
        assert!(meta_from_bytes(&to_bytes(&public)).is_err());
        // A writer refuses what a reader would: past the bound.
        let e = section_to_bytes("hierarchies", &[0; 11], 10).unwrap_err();
        assert_eq!(
            e,
            "the hierarchies take 11 bytes, above the 10 bytes the format allows"
        );
    }

    #[test]
    fn postcard_wire_of_a_constraint() {
        // varint length 2, varints 0 and 3, varint k = 300 (0xAC 0x02).
        let c = ConstraintMeta {
            qis: vec![0, 3],
            k: 300,
        };
        assert_eq!(to_bytes(&c), vec![2, 0, 3, 0xAC, 0x02]);
        assert!(from_bytes::<ConstraintMeta>(&[2, 0, 3, 0xAC, 0x02, 9]).is_err());
    }

    #[test]
    fn enum_discriminants_are_pinned() {
        // The spec tabulates these numbers: reordering the enums would change the format.
        let roles = [
            Role::Identifier,
            Role::Quasi,
            Role::Sensitive,
            Role::Insensitive,
        ];
        let types = [
            ValueType::Integer,
            ValueType::Decimal,
            ValueType::Categorical,
        ];
        let policies = [SuppressionPolicy::Mask, SuppressionPolicy::Strict];
        assert_eq!(roles.map(|r| to_bytes(&r)[0]), [0, 1, 2, 3]);
        assert_eq!(types.map(|t| to_bytes(&t)[0]), [0, 1, 2]);
        assert_eq!(policies.map(|p| to_bytes(&p)[0]), [0, 1]);
    }
}
