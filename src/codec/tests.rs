//! Round trips of every blob on generated columns, and decoders fed random
//! and corrupted bytes (an error or a value, never a panic).

// Long: test file: round trips and corruption tests of every blob, sharing one set of column
// generators

use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::cell::Cell;
use crate::config::ValueType;
use crate::dataset::QuasiIdentifier;
use crate::dictionary::Dictionary;
use crate::hierarchy::Hierarchy;
use crate::table::Column;

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

#[test]
fn single_value_column_is_value_and_count() {
    let col = ReleasedColumn {
        symbols: vec![ReleasedSymbol::Suppressed],
        rows: vec![0; 30162],
    };
    let bytes = encode_released(&col);
    // Layout 0, tag 3 (`*`), varint 30162.
    assert_eq!(bytes, vec![0, 3, 0xd2, 0xeb, 0x01]);
    assert_eq!(decode_released(&bytes, 30162).unwrap(), col);
    assert!(matches!(
        decode_released(&bytes, 5),
        Err(CodecError::CountMismatch { .. })
    ));
}

#[test]
fn unknown_mode_is_unsupported() {
    let err = decode_originals(&[9, 0], &[], &[]).unwrap_err();
    assert!(
        matches!(err, CodecError::UnsupportedMode { id: 9, .. }),
        "{err}"
    );
}

#[test]
fn interval_labels() {
    assert_eq!(originals::parse_interval_label("20-24"), Some(20));
    assert_eq!(originals::parse_interval_label("0~4"), Some(0));
    assert_eq!(originals::parse_interval_label("-10--5"), Some(-10));
    assert_eq!(originals::parse_interval_label("-10~-5"), Some(-10));
    assert_eq!(originals::parse_interval_label("*"), None);
    assert_eq!(originals::parse_interval_label("<50"), None);
    assert_eq!(originals::parse_interval_label("20-"), None);
}

#[test]
fn plain_integers_cost_less_than_their_texts() {
    // 300 distinct six-digit numbers over 2,000 rows: the sorted integer
    // dictionary and 8-bit indices take this much; the chooser may find
    // smaller.
    let values: Vec<String> = (0..2000)
        .map(|i: u64| {
            (100_000 + 3_037 * ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) % 300)).to_string()
        })
        .collect();
    let col = column("fnlwgt", &values);
    let bytes = encode_plain(&col);
    assert!(bytes.len() < 300 * 2 + 2000 * 9 / 8 + 64, "{}", bytes.len());
    assert_eq!(
        texts(&decode_plain(&bytes, "fnlwgt", 2000).unwrap()),
        texts(&col)
    );
}

proptest! {
    #[test]
    fn released_round_trip(g in generated()) {
        let bytes = encode_released(&g.released);
        let back = decode_released(&bytes, g.released.rows.len()).unwrap();
        prop_assert_eq!(&back, &g.released);
        let a = back.to_column("q", g.hierarchy.as_ref()).unwrap();
        let b = g.released.to_column("q", g.hierarchy.as_ref()).unwrap();
        prop_assert_eq!(texts(&a), texts(&b));
    }

    #[test]
    fn originals_round_trip(g in prop::collection::vec(generated(), 1..4)) {
        // All QIs of one table have the same rows.
        let rows = g.iter().map(|g| g.original.codes.len()).min().unwrap();
        let g: Vec<Generated> = g.into_iter().map(|mut g| {
            g.original.codes.truncate(rows);
            g.released.rows.truncate(rows);
            g
        }).collect();
        for &mode in DiffMode::ALL {
            let enc = encode_all(mode, &g);
            prop_assert_eq!(enc.bytes[0], mode.id());
            prop_assert_eq!(enc.column_bytes.iter().map(|c| c.1).sum::<u64>() as usize + 2, enc.bytes.len());
            // What inspect reads from the frame is what the encoder counted,
            // and a blob cut short has no frame.
            let sizes = super::originals_column_bytes(&enc.bytes).unwrap();
            prop_assert_eq!(sizes, enc.column_bytes.iter().map(|c| c.1).collect::<Vec<_>>());
            prop_assert!(super::originals_column_bytes(&enc.bytes[..enc.bytes.len() - 1]).is_err());
            let back = decode_all(&enc.bytes, &g).unwrap();
            for (b, g) in back.iter().zip(&g) {
                prop_assert_eq!(texts(b), texts(&g.original));
            }
            // Read by class, as a restore does, the same columns come out.
            let (classes, table) = by_class(&g);
            let by_class = decode_all_by_class(&enc.bytes, &g, &classes, &table).unwrap();
            for (b, g) in by_class.iter().zip(&g) {
                prop_assert_eq!(texts(b), texts(&g.original));
            }
            // A class out of range, or a class's symbol, is an error.
            if let Some(&last) = classes.last() {
                let mut bad = classes.clone();
                *bad.last_mut().unwrap() = table[0].len() as u32;
                let err = decode_all_by_class(&enc.bytes, &g, &bad, &table).unwrap_err();
                prop_assert!(matches!(err, CodecError::IndexOutOfRange { what: "released row's class", .. }), "{}", err);
                let mut bad_table = table.clone();
                bad_table[0][last as usize] = g[0].released.symbols.len() as u32;
                let err = decode_all_by_class(&enc.bytes, &g, &classes, &bad_table).unwrap_err();
                prop_assert!(matches!(err, CodecError::IndexOutOfRange { what: "released class", .. }), "{}", err);
            }
        }
    }

    #[test]
    fn plain_round_trip(
        values in prop::collection::vec(
            prop_oneof![
                (-1000i64..1000).prop_map(|v| v.to_string()),
                "0[0-9]{1,3}",
                "[a-zé,\" \n]{0,6}",
            ],
            0..300,
        ),
        distinct in 1usize..400,
    ) {
        let values: Vec<String> = values.iter().enumerate().map(|(i, v)| if i % distinct == 0 { v.clone() } else { values[i % distinct.min(values.len())].clone() }).collect();
        let col = column("c", &values);
        let bytes = encode_plain(&col);
        let back = decode_plain(&bytes, "c", values.len()).unwrap();
        prop_assert_eq!(back.name.as_str(), "c");
        prop_assert_eq!(texts(&back), texts(&col));
    }

    /// QI columns coded by class come back with the same labels per row,
    /// one class per distinct tuple; a cut-short blob is refused.
    #[test]
    fn classes_round_trip(g in prop::collection::vec(generated(), 1..4), at in any::<prop::sample::Index>(), xor in 1u8..=255) {
        let rows = g.iter().map(|g| g.released.rows.len()).min().unwrap();
        let columns: Vec<ReleasedColumn> = g.iter().map(|g| {
            let mut c = g.released.clone();
            c.rows.truncate(rows);
            ReleasedClasses::from_columns(std::slice::from_ref(&c)).to_columns().remove(0)
        }).collect();
        let classes = ReleasedClasses::from_columns(&columns);
        // Columns whose symbols are numbered in order of first use (as
        // `ReleasedColumn::from_cells` numbers them) come back unchanged:
        // `pack` codes the originals against them directly.
        prop_assert_eq!(&classes.to_columns(), &columns);
        let tuples: std::collections::HashSet<Vec<u32>> = (0..rows)
            .map(|r| columns.iter().map(|c| c.rows[r]).collect())
            .collect();
        prop_assert_eq!(classes.classes(), tuples.len());
        // Every coding of the rows that can code them decodes alike.
        for coding in [RowsCoding::Huffman, RowsCoding::Range, RowsCoding::Rans] {
            let Some(bytes) = encode_classes_as(&classes, coding) else {
                prop_assert!(coding == RowsCoding::Rans && rows == 0);
                continue;
            };
            prop_assert_eq!(&decode_classes(&bytes, columns.len(), rows).unwrap().0, &classes);
        }
        let bytes = encode_classes(&classes);
        let (back, sizes) = decode_classes(&bytes, columns.len(), rows).unwrap();
        prop_assert_eq!(&back, &classes);
        prop_assert!(sizes.columns.iter().sum::<u64>() + sizes.rows < bytes.len() as u64 + 1);
        for ((b, c), g) in back.to_columns().iter().zip(&columns).zip(&g) {
            let a = b.to_column("q", g.hierarchy.as_ref()).unwrap();
            let e = c.to_column("q", g.hierarchy.as_ref()).unwrap();
            prop_assert_eq!(texts(&a), texts(&e));
        }
        let i = at.index(bytes.len());
        prop_assert!(decode_classes(&bytes[..i], columns.len(), rows).is_err());
        let mut flipped = bytes.clone();
        flipped[i] ^= xor;
        let _ = decode_classes(&flipped, columns.len(), rows);
    }

    /// Every decoder on random bytes: an error or a value, never a panic.
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..120), rows in 0usize..50, g in generated()) {
        let _ = decode_released(&bytes, rows);
        let _ = decode_classes(&bytes, 2, rows);
        let _ = decode_plain(&bytes, "c", rows);
        let _ = decode_all(&bytes, std::slice::from_ref(&g));
        let mut with_mode = bytes.clone();
        for &mode in DiffMode::ALL {
            if let Some(b) = with_mode.first_mut() {
                *b = mode.id();
            }
            let _ = decode_all(&with_mode, std::slice::from_ref(&g));
        }
    }

    /// Paper mode's table of pair codes, and per-value mode's tables,
    /// decode as row by row does: the same columns from a valid blob
    /// (dictionary order included), the same
    /// columns or the same first error from one with a byte changed (deltas
    /// for unchanged cells, ranks out of range, other texts).
    #[test]
    fn tables_decode_as_row_by_row(
        g in prop::collection::vec(generated(), 1..3),
        at in any::<prop::sample::Index>(),
        xor in 1u8..=255,
    ) {
        use originals::PaperRows::{PairTable, RowByRow};
        for mode in [DiffMode::Paper, DiffMode::PerValue] {
            let bytes = encode_all(mode, &g).bytes;
            let table = decode_all_with(&bytes, &g, PairTable);
            prop_assert!(table.is_ok());
            prop_assert_eq!(table, decode_all_with(&bytes, &g, RowByRow));
            let mut flipped = bytes.clone();
            flipped[at.index(bytes.len())] ^= xor;
            prop_assert_eq!(
                decode_all_with(&flipped, &g, PairTable),
                decode_all_with(&flipped, &g, RowByRow)
            );
        }
    }

    /// Long, skewed columns (multi-symbol Huffman entries, codes longer
    /// than the tables, one released symbol or several): paper and
    /// per-value mode round-trip, and decode as row by row does, from a
    /// valid blob, one with a byte changed, and one cut short (the same
    /// columns or the same first error).
    #[test]
    fn skewed_columns_decode_as_row_by_row(
        g in skewed(),
        at in any::<prop::sample::Index>(),
        xor in 1u8..=255,
    ) {
        use originals::PaperRows::{PairTable, RowByRow};
        let g = std::slice::from_ref(&g);
        for mode in [DiffMode::Paper, DiffMode::PerValue] {
            let bytes = encode_all(mode, g).bytes;
            let back = decode_all_with(&bytes, g, PairTable).unwrap();
            prop_assert_eq!(texts(&back[0]), texts(&g[0].original));
            prop_assert_eq!(&back, &decode_all_with(&bytes, g, RowByRow).unwrap());
            let i = at.index(bytes.len());
            let mut flipped = bytes.clone();
            flipped[i] ^= xor;
            prop_assert_eq!(
                decode_all_with(&flipped, g, PairTable),
                decode_all_with(&flipped, g, RowByRow)
            );
            let cut = decode_all_with(&bytes[..i], g, PairTable);
            prop_assert!(cut.is_err());
            prop_assert_eq!(cut, decode_all_with(&bytes[..i], g, RowByRow));
        }
    }

    /// Long, skewed columns in per-value-rans mode (large frequency
    /// tables, scales up to 12, states renormalized often): the originals
    /// come back, and a blob cut short is refused.
    #[test]
    fn skewed_columns_round_trip_in_rans(g in skewed(), at in any::<prop::sample::Index>()) {
        let g = std::slice::from_ref(&g);
        let bytes = encode_all(DiffMode::PerValueRans, g).bytes;
        prop_assert_eq!(bytes[0], DiffMode::PerValueRans.id());
        let back = decode_all(&bytes, g).unwrap();
        prop_assert_eq!(texts(&back[0]), texts(&g[0].original));
        prop_assert!(decode_all(&bytes[..at.index(bytes.len())], g).is_err());
    }

    /// Valid blobs with one byte changed or cut short: never a panic, and a
    /// cut-short blob is always refused.
    #[test]
    fn corrupted_blobs_never_panic(g in generated(), at in any::<prop::sample::Index>(), xor in 1u8..=255) {
        let rows = g.released.rows.len();
        let plain = encode_plain(&g.original);
        let released = encode_released(&g.released);
        let originals: Vec<Vec<u8>> = DiffMode::ALL.iter().map(|&m| encode_all(m, std::slice::from_ref(&g)).bytes).collect();
        let check = |bytes: &[u8], decode: &dyn Fn(&[u8]) -> bool| {
            let i = at.index(bytes.len());
            let mut flipped = bytes.to_vec();
            flipped[i] ^= xor;
            let _ = decode(&flipped);
            assert!(!decode(&bytes[..i]), "a blob cut at {i} of {} decoded", bytes.len());
        };
        check(&plain, &|b| decode_plain(b, "c", rows).is_ok());
        check(&released, &|b| decode_released(b, rows).is_ok());
        for o in &originals {
            check(o, &|b| decode_all(b, std::slice::from_ref(&g)).is_ok());
        }
    }
}

/// A numeric QI without a hierarchy over `original`.
fn numeric_qi(original: &Column, value_type: ValueType) -> QuasiIdentifier {
    QuasiIdentifier {
        column: 0,
        name: "q".into(),
        value_type,
        leaf_of: Vec::new(),
        numbers: original.dict.values().map(|v| v.parse().ok()).collect(),
        hierarchy: None,
    }
}

/// `original` as a numeric QI without a hierarchy, released as `cells`.
fn numbers_released(original: Column, value_type: ValueType, cells: &[Cell]) -> Generated {
    let qi = numeric_qi(&original, value_type);
    Generated {
        value_type,
        hierarchy: None,
        released: ReleasedColumn::from_cells(&qi, &original.dict, cells),
        original,
    }
}

/// A column of distinct numbers released as three wide intervals (each
/// row's value among a thousand): every mode round-trips, and
/// per-value-rans, whose tables are uniform here, stores no table.
#[test]
fn distinct_numbers_under_wide_intervals() {
    let n = 3000usize;
    // Values 100000 + 7 i in a shuffled row order.
    let values: Vec<String> = (0..n)
        .map(|r| (100_000 + 7 * ((r * 1103) % n) as i64).to_string())
        .collect();
    let original = column("q", &values);
    let third = |x: i64| ((x - 100_000) / 7) as usize * 3 / n;
    let code_of = |x: i64| original.dict.code(&x.to_string()).unwrap();
    let cells: Vec<Cell> = values
        .iter()
        .map(|v| {
            let t = third(v.parse().unwrap()) as i64;
            let lo = 100_000 + 7 * (t * n as i64 / 3);
            let hi = 100_000 + 7 * ((t + 1) * n as i64 / 3 - 1);
            Cell::interval(code_of(lo), code_of(hi))
        })
        .collect();
    let g = numbers_released(original, ValueType::Integer, &cells);
    let g = std::slice::from_ref(&g);
    let mut sizes = std::collections::HashMap::new();
    for &mode in DiffMode::ALL {
        let bytes = encode_all(mode, g).bytes;
        let back = decode_all(&bytes, g).unwrap();
        assert_eq!(texts(&back[0]), texts(&g[0].original), "{mode}");
        sizes.insert(mode, bytes.len());
    }
    // Per-value mode's Huffman table holds a length for each of the 3,000
    // values (at least a bit each, 375 B); per-value-rans's uniform tables
    // hold nothing, and code a row in no more bits.
    assert!(
        sizes[&DiffMode::PerValueRans] + 375 <= sizes[&DiffMode::PerValue],
        "{sizes:?}"
    );
    assert!(
        sizes[&DiffMode::PerValueRans] < sizes[&DiffMode::Context],
        "{sizes:?}"
    );
}

#[test]
fn dictionary_in_first_use_order_survives_duplicate_texts() {
    // A hand-made dictionary with an unused entry.
    let mut dict = Dictionary::new();
    dict.intern("unused");
    let a = dict.intern("a");
    let b = dict.intern("b");
    let col = Column {
        name: "c".into(),
        dict,
        codes: vec![b, a, b, b],
    };
    let back = decode_plain(&encode_plain(&col), "c", 4).unwrap();
    assert_eq!(texts(&back), vec!["b", "a", "b", "b"]);
}

/// Numbers as real columns spell them (two decimals, negative, and a few
/// cells that are not canonical numbers: empty, `NA`, `007`, `1.5`, `-0`,
/// `1e3`, `+4`), released as intervals from each row's number to a larger
/// one, the odd cells unchanged or suppressed: per-value-rans restores
/// every text, and codes such a column of near-distinct numbers as
/// offsets (value-table kind 2), not as a table of values.
fn awkward_numbers() -> impl Strategy<Value = Generated> {
    (
        prop::collection::vec((-500_000i64..500_000, 0u8..40, 0usize..6), 1..400),
        any::<bool>(),
    )
        .prop_map(|(rows, decimal)| {
            const ODD: [&str; 7] = ["", "NA", "007", "1.5", "-0", "1e3", "+4"];
            let scale = if decimal { 2 } else { 0 };
            let render = |v: i64| {
                if decimal {
                    let sign = if v < 0 { "-" } else { "" };
                    format!("{sign}{}.{:02}", v.abs() / 100, v.abs() % 100)
                } else {
                    v.to_string()
                }
            };
            let values: Vec<String> = rows
                .iter()
                .map(|&(v, odd, _)| match odd {
                    0..=2 => ODD[(v.unsigned_abs() % 7) as usize].to_owned(),
                    _ => render(v),
                })
                .collect();
            let original = column("q", &values);
            let value_type = if scale > 0 {
                ValueType::Decimal
            } else {
                ValueType::Integer
            };
            let qi = numeric_qi(&original, value_type);
            let mut numbers: Vec<(f64, u32)> = qi
                .numbers
                .iter()
                .enumerate()
                .filter_map(|(c, n)| Some(((*n)?, c as u32)))
                .filter(|&(_, c)| !ODD.contains(&original.dict.value(c)))
                .collect();
            numbers.sort_by(|a, b| a.0.total_cmp(&b.0));
            let cells: Vec<Cell> = rows
                .iter()
                .zip(&original.codes)
                .map(|(&(_, odd, up), &code)| match odd {
                    0 => Cell::Suppressed,
                    1..=2 => Cell::Value(code),
                    _ => {
                        let at = numbers.iter().position(|&(_, c)| c == code).unwrap();
                        let hi = numbers[(at + up).min(numbers.len() - 1)].1;
                        Cell::interval(code, hi)
                    }
                })
                .collect();
            numbers_released(original, value_type, &cells)
        })
}

proptest! {
    #[test]
    fn awkward_numbers_round_trip(g in awkward_numbers()) {
        let g = std::slice::from_ref(&g);
        for &mode in DiffMode::ALL {
            let bytes = encode_all(mode, g).bytes;
            let back = decode_all(&bytes, g).unwrap();
            prop_assert_eq!(texts(&back[0]), texts(&g[0].original), "{}", mode);
            let (classes, tables) = by_class(g);
            let back = decode_all_by_class(&bytes, g, &classes, &tables).unwrap();
            prop_assert_eq!(texts(&back[0]), texts(&g[0].original), "{} by class", mode);
        }
    }
}

/// `n` distinct 9-decimal numbers released as Mondrian would with k = 10:
/// classes of ten neighbours in value order, each the interval from its
/// smallest to its largest.
fn ten_neighbours(n: usize) -> Generated {
    let values: Vec<String> = (0..n)
        .map(|r| format!("0.{:09}", (r * 7_919_993 + 12345) % 1_000_000_000))
        .collect();
    let original = column("q", &values);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| values[a].cmp(&values[b]));
    let mut cells = vec![Cell::Suppressed; n];
    for class in order.chunks(10) {
        let code = |r: usize| original.dict.code(&values[r]).unwrap();
        for &r in class {
            cells[r] = Cell::interval(code(class[0]), code(class[class.len() - 1]));
        }
    }
    numbers_released(original, ValueType::Decimal, &cells)
}

/// A column of distinct decimals under narrow intervals: per-value-rans
/// codes it as offsets (kind byte 2 after the frame), in fewer bytes than
/// the numbers' text.
#[test]
fn distinct_decimals_are_coded_as_offsets() {
    let n = 5000usize;
    let g = ten_neighbours(n);
    let g = std::slice::from_ref(&g);
    let bytes = encode_all(DiffMode::PerValueRans, g).bytes;
    // Mode id, QI count, section length (a varint), then the kind byte.
    let mut r = ByteReader::new(&bytes[2..]);
    let len = r.varint("length").unwrap();
    assert_eq!(r.byte("kind").unwrap(), 2, "offsets");
    // A class of ten spans about 2 million billionths: about 21 bits a row.
    assert!(len < (n * 23 / 8) as u64, "{len} bytes for {n} rows");
    let back = decode_all(&bytes, g).unwrap();
    assert_eq!(texts(&back[0]), texts(&g[0].original));
}

/// Past the size where a decoded column stops looking its values up:
/// 60,000 near-distinct decimals as offsets, with exceptions (empty, `NA`,
/// `007`, suppressed) and rows released unchanged, restore every text, and
/// the column holds a text per row (none hashed).
#[test]
fn near_distinct_offsets_decode_row_by_row() {
    let n = 60_000usize;
    const ODD: [&str; 3] = ["", "NA", "007"];
    let values: Vec<String> = (0..n)
        .map(|r| match r % 40 {
            0 => ODD[r / 40 % 3].to_owned(),
            _ => format!("{}.{:04}", (r * 7_919) % 50_000, (r * 31) % 10_000),
        })
        .collect();
    let original = column("q", &values);
    let number = |r: usize| {
        values[r]
            .parse::<f64>()
            .ok()
            .filter(|_| !r.is_multiple_of(40))
    };
    let mut order: Vec<usize> = (0..n).filter(|&r| number(r).is_some()).collect();
    order.sort_by(|&a, &b| number(a).unwrap().total_cmp(&number(b).unwrap()));
    let code = |r: usize| original.dict.code(&values[r]).unwrap();
    let mut cells = vec![Cell::Suppressed; n];
    for class in order.chunks(10) {
        for &r in class {
            cells[r] = match r % 41 {
                0 => Cell::Value(code(r)),
                _ => Cell::interval(code(class[0]), code(class[class.len() - 1])),
            };
        }
    }
    let g = numbers_released(original, ValueType::Decimal, &cells);
    let g = std::slice::from_ref(&g);
    let bytes = encode_all(DiffMode::PerValueRans, g).bytes;
    let mut r = ByteReader::new(&bytes[2..]);
    r.varint("length").unwrap();
    assert_eq!(r.byte("kind").unwrap(), 2, "offsets");
    let back = decode_all(&bytes, g).unwrap();
    assert_eq!(texts(&back[0]), texts(&g[0].original));
    assert!(
        back[0].dict.len() > n * 9 / 10,
        "{} texts",
        back[0].dict.len()
    );
}

/// Mondrian's releases: each class an interval from its smallest to its
/// largest number (ends often held twice, odd texts inside classes, lone
/// rows released as they are): the intervals whose rows hold both ends
/// take offsets rule 4 (`spec/CODING.md` 6.6), and every text comes back,
/// row by row and by class.
fn tight_classes() -> impl Strategy<Value = Generated> {
    (
        prop::collection::vec((0i64..3_000, 0u8..30), 2..400),
        prop::collection::vec(1usize..12, 1..80),
    )
        .prop_map(|(rows, sizes)| {
            const ODD: [&str; 3] = ["", "NA", "007"];
            let values: Vec<String> = rows
                .iter()
                .map(|&(v, odd)| match odd {
                    0 => ODD[(v % 3) as usize].to_owned(),
                    _ => format!("{}.{:02}", v / 100, v % 100),
                })
                .collect();
            let original = column("q", &values);
            let qi = numeric_qi(&original, ValueType::Decimal);
            let number =
                |r: usize| qi.numbers[original.codes[r] as usize].filter(|_| rows[r].1 > 0);
            let mut order: Vec<usize> =
                (0..values.len()).filter(|&r| number(r).is_some()).collect();
            order.sort_by(|&a, &b| number(a).unwrap().total_cmp(&number(b).unwrap()));
            let mut cells = vec![Cell::Suppressed; values.len()];
            let mut at = 0;
            for &size in sizes.iter().cycle() {
                if at >= order.len() {
                    break;
                }
                let class = &order[at..(at + size).min(order.len())];
                let (lo, hi) = (
                    original.codes[class[0]],
                    original.codes[class[class.len() - 1]],
                );
                for &r in class {
                    cells[r] = if class.len() == 1 {
                        Cell::Value(lo)
                    } else {
                        Cell::interval(lo, hi)
                    };
                }
                at += size;
            }
            // An odd text inside the first class: an exception of rule 4.
            if let (Some(&first), Some(odd)) =
                (order.first(), (0..values.len()).find(|&r| rows[r].1 == 0))
            {
                cells[odd] = cells[first];
            }
            numbers_released(original, ValueType::Decimal, &cells)
        })
}

proptest! {
    #[test]
    fn tight_intervals_round_trip(g in tight_classes()) {
        let g = std::slice::from_ref(&g);
        let bytes = encode_all(DiffMode::PerValueRans, g).bytes;
        let back = decode_all(&bytes, g).unwrap();
        prop_assert_eq!(texts(&back[0]), texts(&g[0].original));
        let (classes, tables) = by_class(g);
        let back = decode_all_by_class(&bytes, g, &classes, &tables).unwrap();
        prop_assert_eq!(texts(&back[0]), texts(&g[0].original), "by class");
        // A blob cut anywhere is refused, never a panic.
        for cut in 0..bytes.len() {
            prop_assert!(decode_all(&bytes[..cut], g).is_err(), "cut at {}", cut);
        }
    }
}

/// Rule 4 pays: classes of ten neighbours over a 9-decimal column name
/// their two ends in about 7 bits instead of two 21-bit offsets (every
/// symbol takes rule 4), and rule 4 on an interval of one value is
/// refused.
#[test]
fn intervals_holding_their_ends_name_them_instead_of_coding_them() {
    let n = 5000usize;
    let g = ten_neighbours(n);
    let g = std::slice::from_ref(&g);
    let bytes = encode_all(DiffMode::PerValueRans, g).bytes;
    assert_eq!(
        texts(&decode_all(&bytes, g).unwrap()[0]),
        texts(&g[0].original)
    );
    // About 21 bits for 8 rows of 10 and 7 bits for the ends' positions.
    assert!(
        bytes.len() < n * 8 * 22 / 80 + n / 10 + 200,
        "{} bytes",
        bytes.len()
    );
    // Mode, QI count, section length, kind, scale, min, span, then a rule a
    // symbol: every one 4.
    let mut r = ByteReader::new(&bytes[2..]);
    let len = r.varint("length").unwrap() as usize;
    let section_start = bytes.len() - len;
    let mut r = ByteReader::new(&bytes[section_start..]);
    assert_eq!(r.byte("kind").unwrap(), 2);
    r.varint("scale").unwrap();
    r.varint("min").unwrap();
    r.varint("span").unwrap();
    let rules_at = section_start + r.position();
    let m = g[0].released.symbols.len();
    assert!(bytes[rules_at..rules_at + m].iter().all(|&b| b == 4));
    // The same section read against a release whose first interval is one
    // value: rule 4 there is refused.
    let mut lone = g[0].clone();
    let ReleasedSymbol::Interval { lo, hi } = &mut lone.released.symbols[0] else {
        panic!("an interval")
    };
    *hi = lo.clone();
    let e = decode_all(&bytes, std::slice::from_ref(&lone)).unwrap_err();
    assert!(e.to_string().contains("single value"), "{e}");
}

/// Numbers near both ends of the 64-bit range, whose span leaves 64 bits:
/// the offsets section declines them and the blob still round-trips.
#[test]
fn numbers_spanning_the_64_bit_range_round_trip() {
    let values: Vec<String> = ["-9000000000000000000", "9000000000000000000", "0", "5"]
        .iter()
        .cycle()
        .take(40)
        .map(|s| s.to_string())
        .collect();
    let original = column("q", &values);
    let lo = original.dict.code("-9000000000000000000").unwrap();
    let hi = original.dict.code("9000000000000000000").unwrap();
    let cells = vec![Cell::interval(lo, hi); values.len()];
    let g = numbers_released(original, ValueType::Integer, &cells);
    let g = std::slice::from_ref(&g);
    for &mode in DiffMode::ALL {
        let bytes = encode_all(mode, g).bytes;
        assert_eq!(
            texts(&decode_all(&bytes, g).unwrap()[0]),
            texts(&g[0].original),
            "{mode}"
        );
    }
}

// ---------------------------------------------------------------------------
// Per-value-rans context parents (`spec/CODING.md` 6.5)

use originals::contexts::Parent;

/// `g` cut to the same rows (QIs of one table).
fn same_rows(g: Vec<Generated>) -> Vec<Generated> {
    let rows = g.iter().map(|g| g.original.codes.len()).min().unwrap_or(0);
    g.into_iter()
        .map(|mut g| {
            g.original.codes.truncate(rows);
            g.released.rows.truncate(rows);
            g
        })
        .collect()
}

fn originals_of(g: &[Generated]) -> Vec<QiOriginal<'_>> {
    g.iter()
        .map(|g| QiOriginal {
            name: "q",
            value_type: g.value_type,
            hierarchy: g.hierarchy.as_ref(),
            column: &g.original,
        })
        .collect()
}

/// The blob of `g` in per-value-rans mode with `parents` forced.
fn forced(g: &[Generated], parents: &[Vec<Parent>]) -> Vec<u8> {
    let released: Vec<ReleasedColumn> = g.iter().map(|g| g.released.clone()).collect();
    originals::encode_with_parents(&originals_of(g), &released, parents)
}

/// Decodes `bytes` listed and by class, and checks both give `g`'s
/// originals.
fn assert_restores(bytes: &[u8], g: &[Generated]) {
    let back = decode_all(bytes, g).unwrap();
    for (b, g) in back.iter().zip(g) {
        assert_eq!(texts(b), texts(&g.original));
    }
    let (classes, table) = by_class(g);
    let back = decode_all_by_class(bytes, g, &classes, &table).unwrap();
    for (b, g) in back.iter().zip(g) {
        assert_eq!(texts(b), texts(&g.original));
    }
}

/// Every parent set a section of three QIs can have without a cycle: QI 2
/// takes QI 0 and 1's originals or released values (alone or paired), QI 1
/// takes QI 0's.
fn parent_sets() -> Vec<Vec<Vec<Parent>>> {
    use Parent::{Original as O, Released as R};
    vec![
        vec![vec![], vec![O(0)], vec![O(1)]],
        vec![vec![], vec![R(0)], vec![R(1), O(0)]],
        vec![vec![R(2)], vec![O(0)], vec![O(0), O(1)]],
        vec![vec![O(2)], vec![R(2), O(0)], vec![R(0), R(1)]],
    ]
}

/// A QI over `n_leaves` leaves whose row `r` holds `value(r)`, released
/// by `kind(r)` (0 value, 1 node, 2 `*`).
fn qi_of(
    n_leaves: usize,
    rows: usize,
    value: impl Fn(usize) -> usize,
    kind: impl Fn(usize) -> u8,
) -> Generated {
    let rows: Vec<(usize, u8, usize)> = (0..rows).map(|r| (value(r), kind(r), r)).collect();
    build(false, true, n_leaves, 3, &rows, 0)
}

proptest! {
    #[test]
    fn forced_parents_round_trip(g in prop::collection::vec(generated(), 3..4)) {
        let g = same_rows(g);
        for parents in parent_sets() {
            let bytes = forced(&g, &parents);
            assert_restores(&bytes, &g);
        }
    }

    #[test]
    fn parents_chosen_by_the_encoder_round_trip(
        n_leaves in 2usize..40,
        rows in 0usize..400,
        noise in 1usize..20,
        seed in any::<u64>(),
    ) {
        // QI 1 mostly follows QI 0; QI 2 follows QI 1's release; all
        // released as `*` or nodes.
        let mix = |r: usize| (r as u64).wrapping_mul(seed | 1).rotate_left(17) as usize;
        let g = vec![
            qi_of(n_leaves, rows, mix, |r| (r % 2) as u8),
            qi_of(n_leaves, rows, |r| if mix(r) % noise == 0 { r } else { mix(r) * 7 }, |_| 2),
            qi_of(5, rows, |r| mix(r) % 3, |r| if mix(r) % 2 == 0 { 2 } else { 1 }),
        ];
        let enc = encode_all(DiffMode::PerValueRans, &g);
        assert_restores(&enc.bytes, &g);
    }

    /// A corrupted section with parents is an error or other columns,
    /// never a panic.
    #[test]
    fn corrupted_parents_never_panic(
        g in prop::collection::vec(generated(), 3..4),
        set in 0usize..4,
        at in any::<prop::sample::Index>(),
        xor in 1u8..=255,
    ) {
        let g = same_rows(g);
        let mut bytes = forced(&g, &parent_sets()[set]);
        let i = at.index(bytes.len());
        bytes[i] ^= xor;
        let _ = decode_all(&bytes, &g);
    }
}

/// Correlated columns: the encoder gives one QI the other as a parent,
/// and the blob is smaller than without parents.
#[test]
fn a_dependent_qi_takes_a_parent_and_shrinks() {
    let rows = 4000;
    let mix = |r: usize| {
        (r as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(23) as usize
    };
    let g = vec![
        qi_of(30, rows, mix, |_| 2),
        qi_of(
            30,
            rows,
            |r| if mix(r) % 16 == 0 { r } else { mix(r) + 1 },
            |_| 2,
        ),
    ];
    let chosen = encode_all(DiffMode::PerValueRans, &g);
    let none = forced(&g, &[vec![], vec![]]);
    assert!(
        chosen.bytes.len() + 1000 < none.len(),
        "{} vs {}",
        chosen.bytes.len(),
        none.len()
    );
    assert_restores(&chosen.bytes, &g);
    // The sections: leaves (kind 0), then the parents: one of the two QIs
    // takes the other's original values (either way round).
    let sections = split_sections(&chosen.bytes);
    let firsts: Vec<&[u8]> = sections.iter().map(|s| &s[..3]).collect();
    assert!(
        firsts == [&[0, 0, 2][..], &[0, 1, 0][..]] || firsts[0][..3] == [0, 1, 2],
        "{firsts:?}"
    );
}

/// Parents that are constant, all distinct (a radix as large as the rows),
/// one row, no row, and many released values.
#[test]
fn edge_parents_round_trip() {
    use Parent::{Original as O, Released as R};
    for rows in [0usize, 1, 2, 7, 300] {
        let g = vec![
            qi_of(1, rows, |_| 0, |_| 0),
            qi_of(rows.max(1), rows, |r| r, |r| (r % 3) as u8),
            qi_of(40, rows, |r| r * 7 % 40, |r| (r % 2) as u8),
        ];
        for parents in [
            vec![vec![], vec![O(0)], vec![O(0), O(1)]],
            vec![vec![R(1)], vec![], vec![O(1), R(0)]],
            vec![vec![], vec![R(2)], vec![O(1)]],
        ] {
            assert_restores(&forced(&g, &parents), &g);
        }
        assert_restores(&encode_all(DiffMode::PerValueRans, &g).bytes, &g);
    }
}

/// A blob's sections (without their lengths).
fn split_sections(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut r = bytes::ByteReader::new(&bytes[1..]);
    let q = r.varint("q").unwrap();
    (0..q)
        .map(|_| {
            let len = r.varint("len").unwrap();
            r.take(len, "section").unwrap().to_vec()
        })
        .collect()
}

fn join_sections(sections: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![DiffMode::PerValueRans.id()];
    bytes::put_varint(&mut out, sections.len() as u64);
    for s in sections {
        bytes::put_varint(&mut out, s.len() as u64);
        out.extend_from_slice(s);
    }
    out
}

/// A corrupted model description is refused with its own error: a parent
/// that is the QI itself, a cycle of original parents, an original parent
/// without a value table's index, three parents, a refined context beyond
/// the context space.
#[test]
fn corrupted_parents_are_refused() {
    let rows = 500;
    let g = vec![
        qi_of(12, rows, |r| r % 12, |_| 2),
        qi_of(12, rows, |r| (r % 12 + r / 100) % 12, |_| 2),
    ];
    let good = forced(&g, &[vec![], vec![Parent::Original(0)]]);
    assert_restores(&good, &g);
    let sections = split_sections(&good);
    // Both sections are leaves (kind 0), then the parents.
    assert_eq!(&sections[0][..2], &[0, 0]);
    assert_eq!(&sections[1][..3], &[0, 1, 0]);
    let with_parents = |first: &[u8], second: &[u8]| {
        let mut a = vec![0u8];
        a.extend_from_slice(first);
        a.extend_from_slice(&sections[0][2..]);
        let mut b = vec![0u8];
        b.extend_from_slice(second);
        b.extend_from_slice(&sections[1][3..]);
        join_sections(&[a, b])
    };
    let refused = |bytes: &[u8], what: &str| {
        let err = decode_all(bytes, &g).unwrap_err().to_string();
        assert!(err.contains(what), "{err}");
    };
    // Itself.
    refused(&with_parents(&[0], &[1, 2]), "is not another QI's");
    // QI 2 of 2.
    refused(&with_parents(&[0], &[1, 4]), "is not another QI's");
    // The same parent twice.
    refused(&with_parents(&[0], &[2, 0, 0]), "is not another QI's");
    // A cycle: QI 0 takes QI 1's original, which takes QI 0's.
    refused(&with_parents(&[1, 2], &[1, 0]), "closes a cycle");
    // Three parents.
    refused(&with_parents(&[0], &[3, 0, 1, 3]), "context parent count");
    // A refined context beyond the space: QI 1 has one released value and
    // 12 parent values, so 12 contexts; its rules byte, then `R`.
    let mut b = sections[1].clone();
    let refined_at = 3 + 1;
    assert!(b[refined_at] >= 1, "QI 1 refines a context");
    b[refined_at + 1] = 12;
    refused(
        &join_sections(&[sections[0].clone(), b]),
        "beyond the 12 contexts",
    );
}
