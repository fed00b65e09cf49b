//! A QI's *value table* `V` (`spec/CODING.md`, "Original QI columns"):
//! the original distinct texts every mode's section starts with, either the
//! hierarchy's leaves or a dictionary, and each row's index into them.

use super::{
    ByteReader, CodecError, FxHashMap, Hierarchy, QiOriginal, QiSchema, ReleasedColumn,
    ReleasedSymbol, ValueType, node_label, put_dictionary, read_dictionary,
};

/// Value-table kind: the hierarchy's leaves, in file order.
const VALUES_LEAVES: u8 = 0;
/// Value-table kind: a dictionary (`put_dictionary`).
const VALUES_DICTIONARY: u8 = 1;
/// Value-table kind of a per-value-rans section that has none: a numeric
/// QI's rows as offsets inside their intervals (`offsets`).
pub(super) const VALUES_OFFSETS: u8 = 2;

/// The original distinct texts of one QI and each row's index into them.
pub(super) struct ValueTable {
    pub(super) texts: Vec<String>,
    /// Each row's index into `texts`.
    pub(super) rows: Vec<u32>,
    /// Whether `texts` are the hierarchy's leaves.
    pub(super) leaves: bool,
}

impl ValueTable {
    /// Builds `V` for an original column and writes it.
    pub(super) fn build(qi: &QiOriginal<'_>, out: &mut Vec<u8>) -> ValueTable {
        let col = qi.column;
        let leaves: Option<Vec<u32>> = qi
            .hierarchy
            .and_then(|h| col.dict.values().map(|v| h.leaf(v)).collect());
        let (texts, index_of_code): (Vec<String>, Vec<u32>) = match (qi.hierarchy, leaves) {
            (Some(h), Some(leaves)) => {
                out.push(VALUES_LEAVES);
                let texts = (0..h.leaf_count() as u32)
                    .map(|l| h.label(0, l).to_owned())
                    .collect();
                (texts, leaves)
            }
            _ => {
                out.push(VALUES_DICTIONARY);
                // The values rows use; numbers ascending (then text) for a
                // numeric QI, first use otherwise.
                let mut used = vec![false; col.dict.len()];
                for &c in &col.codes {
                    used[c as usize] = true;
                }
                let mut codes: Vec<u32> = (0..col.dict.len() as u32)
                    .filter(|&c| used[c as usize])
                    .collect();
                if qi.value_type.is_numeric() {
                    codes.sort_by(|&a, &b| {
                        let (ta, tb) = (col.dict.value(a), col.dict.value(b));
                        number(ta)
                            .partial_cmp(&number(tb))
                            .unwrap_or(std::cmp::Ordering::Equal)
                            .then_with(|| ta.cmp(tb))
                    });
                }
                let texts_in_order: Vec<&str> = codes.iter().map(|&c| col.dict.value(c)).collect();
                let stored = put_dictionary(out, &texts_in_order, true);
                let mut index_of_code = vec![u32::MAX; col.dict.len()];
                for (pos, &i) in stored.iter().enumerate() {
                    index_of_code[codes[i as usize] as usize] = pos as u32;
                }
                let texts = stored
                    .iter()
                    .map(|&i| texts_in_order[i as usize].to_owned())
                    .collect();
                (texts, index_of_code)
            }
        };
        let rows = col
            .codes
            .iter()
            .map(|&c| index_of_code[c as usize])
            .collect();
        let leaves = out.first() == Some(&VALUES_LEAVES);
        ValueTable {
            texts,
            rows,
            leaves,
        }
    }

    /// Reads `V`: its texts, and whether they are the hierarchy's leaves;
    /// `None` for a section of offsets, which has no value table.
    pub(super) fn read(
        r: &mut ByteReader<'_>,
        qi: &QiSchema<'_>,
    ) -> Result<Option<(Vec<String>, bool)>, CodecError> {
        Ok(Some(match r.byte("value table kind")? {
            VALUES_LEAVES => {
                let h = qi.hierarchy.ok_or_else(|| CodecError::Invalid {
                    what: "value table",
                    detail: format!(
                        "QI {:?} refers to hierarchy leaves but has no hierarchy",
                        qi.name
                    ),
                })?;
                (
                    (0..h.leaf_count() as u32)
                        .map(|l| h.label(0, l).to_owned())
                        .collect(),
                    true,
                )
            }
            VALUES_DICTIONARY => (read_dictionary(r)?, false),
            VALUES_OFFSETS => return Ok(None),
            id => {
                return Err(CodecError::UnknownLayout {
                    what: "value table kind",
                    id,
                    known: "0 hierarchy leaves, 1 dictionary, 2 offsets",
                });
            }
        }))
    }
}

pub(super) fn number(t: &str) -> Option<f64> {
    t.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The start `a` of a released symbol read as an integer interval `[a, b]`:
/// an interval cell, or (numeric QI) a hierarchy node labelled `a-b` or
/// `a~b` (ARX's `20-24`, `0~4`).
pub(super) fn interval_start(
    symbol: &ReleasedSymbol,
    value_type: ValueType,
    hierarchy: Option<&Hierarchy>,
) -> Option<i64> {
    match symbol {
        ReleasedSymbol::Interval { lo, .. } => lo.trim().parse().ok(),
        ReleasedSymbol::Node { level, node } if value_type.is_numeric() => {
            parse_interval_label(node_label(hierarchy, *level, *node).ok()?)
        }
        _ => None,
    }
}

/// `a` of a label `a-b` / `a~b` (each end an optionally negative integer).
pub(in crate::codec) fn parse_interval_label(label: &str) -> Option<i64> {
    let s = label.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let split = body.find(['-', '~'])?;
    let (a, rest) = body.split_at(split);
    let b = rest[1..].trim();
    let a = a.trim();
    if a.is_empty() || !a.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let b_digits = b.strip_prefix('-').unwrap_or(b);
    if b_digits.is_empty() || !b_digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let a: i64 = a.parse().ok()?;
    Some(if neg { -a } else { a })
}

/// Per released symbol: the original values its rows carry and how many
/// rows carry each, values ascending.
pub(super) fn value_counts(released: &ReleasedColumn, values: &ValueTable) -> Vec<Vec<(u32, u64)>> {
    let (m, v) = (released.symbols.len(), values.texts.len());
    let pairs = released.rows.iter().zip(&values.rows);
    let dense = (released.rows.len() * 4).max(1 << 16);
    if m.checked_mul(v).is_some_and(|cells| cells <= dense) {
        // A symbols x values count matrix: no hashing per row.
        let mut matrix = vec![0u64; m * v];
        for (&g, &x) in pairs {
            matrix[g as usize * v + x as usize] += 1;
        }
        return (0..m)
            .map(|g| {
                (0..v as u32)
                    .zip(&matrix[g * v..(g + 1) * v])
                    .filter(|&(_, &n)| n > 0)
                    .map(|(x, &n)| (x, n))
                    .collect()
            })
            .collect();
    }
    let mut counts: Vec<FxHashMap<u32, u64>> = vec![FxHashMap::default(); m];
    for (&g, &x) in pairs {
        *counts[g as usize].entry(x).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|c| {
            let mut c: Vec<(u32, u64)> = c.into_iter().collect();
            c.sort_unstable();
            c
        })
        .collect()
}

/// Values by descending count, ties by value-table order (the hierarchy's
/// leaf order, or ascending numbers).
pub(super) fn ranked(counts: &[(u32, u64)]) -> Vec<u32> {
    let mut v = counts.to_vec();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.into_iter().map(|(x, _)| x).collect()
}
