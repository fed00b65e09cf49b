//! The originals blob on numeric QIs: intervals over distinct and awkward
//! numbers, decimals coded as offsets inside their intervals, interval ends
//! named instead of coded, the whole 64-bit range.

use super::*;

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
