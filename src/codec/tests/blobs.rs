//! Round trips of every blob (released, originals in each mode, plain,
//! classes) on generated columns, and decoders fed random and corrupted
//! bytes: an error or a value, never a panic.

use super::*;

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
        for coding in RowsCoding::ALL {
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
