//! Round trips of every blob on generated columns, and decoders fed random
//! and corrupted bytes (an error or a value, never a panic): the column
//! generators shared by the tests of each blob kind (`blobs`, `numeric`,
//! `parents`).

use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::cell::Cell;
use crate::config::ValueType;
use crate::dataset::QuasiIdentifier;
use crate::dictionary::Dictionary;
use crate::hierarchy::Hierarchy;
use crate::table::Column;

mod blobs;
mod numeric;
mod parents;

fn texts(col: &Column) -> Vec<&str> {
    (0..col.codes.len()).map(|r| col.text(r)).collect()
}

fn column(name: &str, values: &[String]) -> Column {
    let mut c = Column::new(name);
    for v in values {
        c.push(v);
    }
    c
}

/// A three-level hierarchy over `leaves`: groups of `group` leaves, then `*`.
/// Numeric leaves get interval labels `a-b` (ARX style) on level 1.
fn hierarchy(leaves: &[String], group: usize, numeric: bool) -> Hierarchy {
    let rows = leaves
        .iter()
        .enumerate()
        .map(|(i, leaf)| {
            let g = i / group;
            let label = if numeric {
                let a: i64 = leaves[g * group].parse().unwrap();
                let b: i64 = leaves[((g + 1) * group).min(leaves.len()) - 1]
                    .parse()
                    .unwrap();
                format!("{a}-{b}")
            } else {
                format!("group{g}")
            };
            (i as u64 + 1, vec![leaf.clone(), label, "*".to_owned()])
        })
        .collect();
    Hierarchy::from_rows(Path::new("generated.csv"), rows).unwrap()
}

/// A generated QI: original column, its hierarchy, and a release of it.
#[derive(Debug, Clone)]
struct Generated {
    value_type: ValueType,
    hierarchy: Option<Hierarchy>,
    original: Column,
    released: ReleasedColumn,
}

/// Per row a cell kind: 0 value, 1 node, 2 suppressed, 3 interval (numeric).
fn generated() -> impl Strategy<Value = Generated> {
    (
        any::<bool>(),
        any::<bool>(),
        2usize..30,
        1usize..6,
        prop::collection::vec((0usize..1000, 0u8..4, 0usize..1000), 0..300),
        -50i64..50,
    )
        .prop_map(|(numeric, with_hierarchy, n_leaves, group, rows, base)| {
            build(numeric, with_hierarchy, n_leaves, group, &rows, base)
        })
}

/// Long columns whose values follow Fibonacci weights (the most skewed
/// Huffman codes, past the decoders' 11-bit tables) and whose cells are all
/// suppressed (one released symbol, one coded stream), all released as
/// nodes or values, mixed, or all released unchanged (no bits): the paths of paper and per-value mode that
/// short columns of evenly drawn values do not reach.
fn skewed() -> impl Strategy<Value = Generated> {
    (
        any::<bool>(),
        any::<bool>(),
        2usize..26,
        1usize..6,
        4096usize..6000,
        0u8..4,
        any::<u64>(),
    )
        .prop_map(
            |(numeric, with_hierarchy, n_leaves, group, n, kinds, seed)| {
                let mut fib = vec![1usize, 1];
                while fib.len() < n_leaves {
                    fib.push(fib[fib.len() - 1] + fib[fib.len() - 2]);
                }
                let total: usize = fib.iter().sum();
                let mut x = seed;
                let mut next = move || {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (x >> 33) as usize
                };
                let rows: Vec<(usize, u8, usize)> = (0..n)
                    .map(|_| {
                        let mut r = next() % total;
                        let leaf = fib.iter().position(|&w| {
                            let hit = r < w;
                            r = r.saturating_sub(w);
                            hit
                        });
                        let kind = match kinds {
                            0 => 2,
                            1 => (next() % 2) as u8,
                            2 => (next() % 4) as u8,
                            _ => 0,
                        };
                        (leaf.unwrap_or(0), kind, next())
                    })
                    .collect();
                build(numeric, with_hierarchy, n_leaves, group, &rows, -20)
            },
        )
}

/// A generated QI over `n_leaves` leaves (integers from `base` when
/// `numeric`), each row `(value, cell kind, other)` as [`generated`] draws.
fn build(
    numeric: bool,
    with_hierarchy: bool,
    n_leaves: usize,
    group: usize,
    rows: &[(usize, u8, usize)],
    base: i64,
) -> Generated {
    let leaves: Vec<String> = (0..n_leaves)
        .map(|i| {
            if numeric {
                (base + 3 * i as i64).to_string()
            } else {
                format!("v{i}")
            }
        })
        .collect();
    let with_hierarchy = with_hierarchy || !numeric;
    let h = with_hierarchy.then(|| hierarchy(&leaves, group, numeric));
    let values: Vec<String> = rows
        .iter()
        .map(|&(x, _, _)| leaves[x % n_leaves].clone())
        .collect();
    let original = column("q", &values);
    let qi = QuasiIdentifier {
        column: 0,
        name: "q".into(),
        value_type: if numeric {
            ValueType::Integer
        } else {
            ValueType::Categorical
        },
        leaf_of: match &h {
            Some(h) => original.dict.values().map(|v| h.leaf(v).unwrap()).collect(),
            None => Vec::new(),
        },
        numbers: original.dict.values().map(|v| v.parse().ok()).collect(),
        hierarchy: h.clone(),
    };
    let cells: Vec<Cell> = rows
        .iter()
        .zip(&original.codes)
        .map(|(&(_, kind, other), &code)| match kind {
            1 if h.is_some() => Cell::at_level(&qi, 1, code),
            2 => Cell::Suppressed,
            3 if numeric => {
                // An interval from the value to a larger one.
                let x: i64 = original.dict.value(code).parse().unwrap();
                let hi = original
                    .dict
                    .values()
                    .enumerate()
                    .filter(|(_, v)| v.parse::<i64>().unwrap() >= x)
                    .map(|(c, _)| c as u32)
                    .nth(other % 3)
                    .unwrap_or(code);
                Cell::interval(code, hi)
            }
            _ => Cell::Value(code),
        })
        .collect();
    let released = ReleasedColumn::from_cells(&qi, &original.dict, &cells);
    Generated {
        value_type: qi.value_type,
        hierarchy: h,
        original,
        released,
    }
}

fn encode_all(mode: DiffMode, g: &[Generated]) -> EncodedOriginals {
    let qis: Vec<QiOriginal<'_>> = g
        .iter()
        .map(|g| QiOriginal {
            name: "q",
            value_type: g.value_type,
            hierarchy: g.hierarchy.as_ref(),
            column: &g.original,
        })
        .collect();
    let released: Vec<ReleasedColumn> = g.iter().map(|g| g.released.clone()).collect();
    encode_originals(mode, &qis, &released)
}

fn decode_all(bytes: &[u8], g: &[Generated]) -> Result<Vec<Column>, CodecError> {
    decode_all_with(bytes, g, originals::PaperRows::PairTable)
}

/// The QI schemas of `g`, as a reader has them.
fn schemas(g: &[Generated]) -> Vec<QiSchema<'_>> {
    g.iter()
        .map(|g| QiSchema {
            name: "q",
            value_type: g.value_type,
            hierarchy: g.hierarchy.as_ref(),
        })
        .collect()
}

fn decode_all_with(
    bytes: &[u8],
    g: &[Generated],
    paper_rows: originals::PaperRows,
) -> Result<Vec<Column>, CodecError> {
    let qis = schemas(g);
    let released: Vec<ReleasedRows<'_>> = g.iter().map(|g| g.released.rows_view()).collect();
    originals::decode_originals_with(bytes, &qis, &released, paper_rows)
}

/// The rows of `g` by class, as a restore hands them to the decoders: each
/// row's class (classes by first appearance of their tuple) and each QI's
/// symbol per class, symbols numbered as in `g`.
fn by_class(g: &[Generated]) -> (Vec<u32>, Vec<Vec<u32>>) {
    let rows = g.first().map_or(0, |g| g.released.rows.len());
    let mut ids: std::collections::HashMap<Vec<u32>, u32> = Default::default();
    let mut table: Vec<Vec<u32>> = vec![Vec::new(); g.len()];
    let classes = (0..rows)
        .map(|r| {
            let tuple: Vec<u32> = g.iter().map(|g| g.released.rows[r]).collect();
            let next = ids.len() as u32;
            *ids.entry(tuple.clone()).or_insert_with(|| {
                for (column, &s) in table.iter_mut().zip(&tuple) {
                    column.push(s);
                }
                next
            })
        })
        .collect();
    (classes, table)
}

fn decode_all_by_class(
    bytes: &[u8],
    g: &[Generated],
    classes: &[u32],
    table: &[Vec<u32>],
) -> Result<Vec<Column>, CodecError> {
    let qis = schemas(g);
    let released: Vec<ReleasedRows<'_>> = g
        .iter()
        .zip(table)
        .map(|(g, of)| ReleasedRows {
            symbols: &g.released.symbols,
            rows: classes,
            class_symbols: Some(of),
        })
        .collect();
    decode_originals_of(bytes, &qis, &released)
}
