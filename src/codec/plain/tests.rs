//! Plain columns: every layout round-trips awkward columns, the chooser
//! picks the expected layout, and corrupt blobs are refused cleanly.

use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use std::io::Read;

use super::*;
use crate::codec::cells::Purpose;

pub(super) fn column(values: &[String]) -> Column {
    let mut c = Column::new("c");
    for v in values {
        c.push(v);
    }
    c
}

pub(super) fn strings(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| v.to_string()).collect()
}

/// The column's distinct texts in order of first use and each row's index.
pub(super) fn rows_of(col: &Column) -> (Vec<&str>, Vec<u32>) {
    let texts: Vec<&str> = col.dict.values().collect();
    (texts, col.codes.clone())
}

/// Each layout that can hold `values`, as a whole blob.
fn every_layout(values: &[String]) -> Vec<(u8, Vec<u8>)> {
    let col = column(values);
    let (texts, rows) = rows_of(&col);
    let mut blobs = vec![(LAYOUT_DICTIONARY, encode_dictionary(&texts, &rows))];
    let nested = |t: &[&str], r: &[u32]| encode_rows(t, r, Nesting::Exceptions);
    for format in formats(&texts) {
        if let Some(fields) = numbers::encode(format, &texts, &rows, nested) {
            blobs.push(match format.id() {
                None => (LAYOUT_NUMBERS, [&[LAYOUT_NUMBERS][..], &fields].concat()),
                Some(id) => (LAYOUT_DATES, [&[LAYOUT_DATES, id][..], &fields].concat()),
            });
        }
    }
    if !texts.is_empty() {
        blobs.push((
            LAYOUT_TEXTS,
            [&[LAYOUT_TEXTS][..], &texts::encode(&texts, &rows)].concat(),
        ));
        blobs.push((
            LAYOUT_TEXTS_LZMA,
            [&[LAYOUT_TEXTS_LZMA][..], &texts::encode_lzma(&texts, &rows)].concat(),
        ));
        if let Some(fields) = texts::encode_ppmd(&texts, &rows) {
            blobs.push((
                LAYOUT_TEXTS_PPMD,
                [&[LAYOUT_TEXTS_PPMD][..], &fields].concat(),
            ));
        }
    }
    if let Some(fields) = positions::encode(&texts, &rows) {
        blobs.push((
            LAYOUT_POSITIONS,
            [&[LAYOUT_POSITIONS][..], &fields].concat(),
        ));
    }
    blobs.push((255, encode_plain(&col)));
    blobs
}

/// Every layout of `values` decodes to `values`; returns the chosen blob.
fn round_trip(values: &[String]) -> Vec<u8> {
    let blobs = every_layout(values);
    for (layout, blob) in &blobs {
        for purpose in [Purpose::Values, Purpose::Rendering] {
            let back = decode_plain_for(blob, "c", values.len(), purpose)
                .unwrap_or_else(|e| panic!("layout {layout} {purpose:?}: {e} on {values:?}"));
            let texts: Vec<&str> = (0..values.len()).map(|r| back.text(r)).collect();
            assert_eq!(texts, values, "layout {layout} {purpose:?}");
            if purpose == Purpose::Values {
                let distinct: std::collections::HashSet<&str> = back.dict.values().collect();
                assert_eq!(
                    distinct.len(),
                    back.dict.len(),
                    "layout {layout}: a text twice"
                );
            }
        }
    }
    let (_, chosen) = blobs.last().unwrap();
    let sizes: Vec<(u8, usize)> = blobs.iter().map(|(l, b)| (*l, b.len())).collect();
    assert!(
        blobs.iter().all(|(_, b)| chosen.len() <= b.len()),
        "{sizes:?} on {values:?}"
    );
    chosen.clone()
}

#[test]
fn awkward_columns_round_trip_in_every_layout() {
    let columns: Vec<Vec<String>> = vec![
        strings(&["0", "1", "2", "3", "4"]),
        strings(&["-5", "-0", "0", "-0.0", "0.0", "7", "-12"]),
        strings(&["0.10", "0.1", "0.100", "1", "10", "-0.01"]),
        strings(&["1e5", "1E5", "+5", "1,000", "007", "5.", ".5", "12"]),
        strings(&[
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "123456789012345678901234567890",
            "1",
        ]),
        strings(&["", "NA", "3", "", "4", "5", "", "6"]),
        strings(&["é", "日本語", "", "a\nb", "\"q\"", "x,y"]),
        strings(&["42"]),
        strings(&[]),
        strings(&["00501", "02134", "90210", "10001", "00501"]),
        strings(&["0.000000000000000001", "1", "2.5"]),
        strings(&["2024-03-01 12:34:56", "2024-03-01", "1", "2"]),
        strings(&[
            "2024-03-01",
            "1999-12-31",
            "",
            "2024-02-30",
            "0000-01-01",
            "9999-12-31",
        ]),
        strings(&[
            "2024-03-01 12:34:56",
            "2024-03-01T12:34:56",
            "1969-12-31 23:59:59",
            "NA",
            "2024-03-01 12:34:56",
        ]),
    ];
    for values in &columns {
        round_trip(values);
    }
}

/// Near-distinct columns past the size where a column to render stops
/// looking its values up (numbers with exceptions, timestamps, free text
/// with quotes, delimiters and line breaks): every layout gives the same
/// texts for both purposes, and the chosen layout's rendering holds a text
/// per row while its values hold each once.
#[test]
fn near_distinct_columns_render_row_by_row() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let rows = 60_000;
    let exception = |i: usize| match i % 5 {
        0 => "",
        1 => "NA",
        2 => "007",
        3 => "1e5",
        _ => "-0",
    };
    let amounts: Vec<String> = (0..rows)
        .map(|i| match i % 97 {
            0 => exception(i / 97).to_owned(),
            _ => format!("{}.{:02}", rng.next_u32() % 1_000_000, rng.next_u32() % 100),
        })
        .collect();
    let start = calendar::parse(Format::DateTime(b'T'), "2023-01-01T00:00:00").unwrap();
    let stamps: Vec<String> = (0..rows)
        .map(|i| {
            let mut s = String::new();
            if i % 101 == 0 {
                s.push_str(exception(i / 101));
            } else {
                let t = start + (rng.next_u64() % (366 * 86_400 * 10)) as i64;
                calendar::render(&mut s, Format::DateTime(b'T'), t).unwrap();
            }
            s
        })
        .collect();
    let notes: Vec<String> = (0..rows)
        .map(|i| match i % 53 {
            0 => String::new(),
            1 => format!("\"quoted\", with a comma {i}"),
            2 => format!("two\r\nlines {i}"),
            _ => format!("note {} é {i}", rng.next_u32() % 1000),
        })
        .collect();
    for (values, layout) in [
        (&amounts, LAYOUT_NUMBERS),
        (&stamps, LAYOUT_DATES),
        (&notes, LAYOUT_TEXTS_LZMA),
    ] {
        let blob = round_trip(values);
        assert_eq!(blob[0], layout);
        let rendered = decode_plain_for(&blob, "c", rows, Purpose::Rendering).unwrap();
        assert!(
            rendered.dict.len() > rows * 9 / 10,
            "{layout}: {}",
            rendered.dict.len()
        );
        let distinct: std::collections::HashSet<&String> = values.iter().collect();
        let counted = decode_plain(&blob, "c", rows).unwrap();
        assert_eq!(counted.dict.len(), distinct.len(), "{layout}");
    }
}

#[test]
fn a_sequential_id_costs_a_few_bytes() {
    let ids: Vec<String> = (0..100_000).map(|i| i.to_string()).collect();
    let blob = round_trip(&ids);
    assert_eq!(blob[0], LAYOUT_NUMBERS);
    assert!(blob.len() < 40, "{} bytes", blob.len());
    // Row numbers from 1000 down, with a few missing cells.
    let mut down: Vec<String> = (0..50_000).map(|i| (1000 - i).to_string()).collect();
    for i in (0..down.len()).step_by(997) {
        down[i].clear();
    }
    let blob = round_trip(&down);
    assert_eq!(blob[0], LAYOUT_NUMBERS);
    assert!(blob.len() < 300, "{} bytes", blob.len());
}

/// Uniform 9-decimal ratios in [0, 1): within 3% of their entropy
/// (log2(10^9) bits a row) and below xz -6 of their text.
#[test]
fn nine_decimal_ratios_cost_their_entropy() {
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let n = 50_000;
    let ratios: Vec<String> = (0..n)
        .map(|_| format!("0.{:09}", rng.next_u64() % 1_000_000_000))
        .collect();
    let blob = round_trip(&ratios);
    // All of one length: position by position they cost the same entropy.
    assert!(matches!(blob[0], LAYOUT_NUMBERS | LAYOUT_POSITIONS));
    let entropy = n as f64 * 9.0 * 10f64.log2() / 8.0;
    assert!(
        (blob.len() as f64) < entropy * 1.03,
        "{} bytes, entropy {entropy}",
        blob.len()
    );
    let text = ratios.join("\n");
    let mut xz = Vec::new();
    liblzma::read::XzEncoder::new(text.as_bytes(), 6)
        .read_to_end(&mut xz)
        .unwrap();
    assert!(
        blob.len() < xz.len(),
        "{} against xz's {}",
        blob.len(),
        xz.len()
    );
}

#[test]
fn the_chooser_keeps_dictionaries_and_takes_ppmd_for_free_text() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let few = ["Private", "Self-emp", "State-gov", "?"];
    let cats: Vec<String> = (0..20_000)
        .map(|_| few[(rng.next_u32() % 4) as usize].to_string())
        .collect();
    assert_eq!(round_trip(&cats)[0], LAYOUT_DICTIONARY);
    let words = [
        "the", "of", "and", "river", "north", "quiet", "stone", "light",
    ];
    let notes: Vec<String> = (0..20_000)
        .map(|i| {
            let n = 3 + rng.next_u32() % 6;
            let w: Vec<&str> = (0..n)
                .map(|_| words[(rng.next_u32() % 8) as usize])
                .collect();
            format!("{} #{i}", w.join(" "))
        })
        .collect();
    let blob = round_trip(&notes);
    assert_eq!(blob[0], LAYOUT_TEXTS_PPMD);
    // A context model: well below xz -9 of the same lines.
    let mut xz = Vec::new();
    liblzma::read::XzEncoder::new(notes.join("\n").as_bytes(), 9)
        .read_to_end(&mut xz)
        .unwrap();
    assert!(
        blob.len() * 10 < xz.len() * 9,
        "{} against xz's {}",
        blob.len(),
        xz.len()
    );
}

/// On a large column, PPMd and LZMA2 (slow to decode) must save more than
/// a sixteenth to replace a fast layout; on a small one, any byte.
#[test]
fn slow_layouts_must_save_a_sixteenth_on_a_large_column() {
    let fast = |rows| Best {
        blob: vec![LAYOUT_NUMBERS; 1000],
        weight: 1000,
        rows,
    };
    let large = 2 * SAMPLE_ROWS + 1;
    for slow in [LAYOUT_TEXTS_PPMD, LAYOUT_TEXTS_LZMA] {
        // 950 bytes (5 % smaller): kept on a small column only.
        let mut best = fast(2 * SAMPLE_ROWS);
        best.keep(slow, vec![0; 949]);
        assert_eq!((best.blob[0], best.blob.len()), (slow, 950));
        let mut best = fast(large);
        best.keep(slow, vec![0; 949]);
        assert_eq!((best.blob[0], best.blob.len()), (LAYOUT_NUMBERS, 1000));
        // 900 bytes (10 % smaller): kept, weighing 956.
        best.keep(slow, vec![0; 899]);
        assert_eq!((best.blob[0], best.weight), (slow, 956));
        // A fast layout then needs to be lighter than that weight.
        best.keep(LAYOUT_POSITIONS, vec![0; 955]);
        assert_eq!(best.blob[0], slow);
        best.keep(LAYOUT_POSITIONS, vec![0; 954]);
        assert_eq!((best.blob[0], best.weight), (LAYOUT_POSITIONS, 955));
    }
}

/// Names and three-letter codes: PPMd or fixed widths win, and the column
/// is no larger than xz -9 makes of its lines (issue 33: names 1.07x and
/// codes 2.6x xz before).
#[test]
fn names_and_codes_are_no_larger_than_xz() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let last = [
        "Smith", "Nguyen", "Rossi", "Khan", "Garcia", "Müller", "O'Brien",
    ];
    let names: Vec<String> = (0..3000)
        .map(|i| format!("{} Field {i}", last[(rng.next_u32() % 7) as usize]))
        .collect();
    let codes: Vec<String> = (0..3000)
        .map(|_| {
            (0..3)
                .map(|_| char::from(b'A' + (rng.next_u32() % 26) as u8))
                .collect()
        })
        .collect();
    let phones: Vec<String> = (0..3000)
        .map(|_| {
            format!(
                "+1-555-{}-{:04}",
                100 + rng.next_u32() % 900,
                rng.next_u32() % 10_000
            )
        })
        .collect();
    assert_eq!(round_trip(&codes)[0], LAYOUT_POSITIONS);
    assert_eq!(round_trip(&phones)[0], LAYOUT_POSITIONS);
    for values in [names, codes, phones] {
        let blob = round_trip(&values);
        let mut xz = Vec::new();
        liblzma::read::XzEncoder::new(values.join("\n").as_bytes(), 9)
            .read_to_end(&mut xz)
            .unwrap();
        assert!(
            blob.len() <= xz.len(),
            "layout {}: {} bytes against xz's {}",
            blob[0],
            blob.len(),
            xz.len()
        );
    }
}

/// Random seconds of a year cost about their 25 bits, far below their
/// 20 bytes of text.
#[test]
fn timestamps_cost_their_bits() {
    // Each format of layout 4 with a time, RFC 3339's UTC one among them.
    for (format, id) in [
        (Format::DateTime(b' '), 1),
        (Format::DateTime(b'T'), 2),
        (Format::Zulu, 3),
    ] {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let start = calendar::parse(Format::DateTime(b' '), "2024-01-01 00:00:00").unwrap();
        let stamps: Vec<String> = (0..20_000)
            .map(|_| {
                let mut s = String::new();
                let t = start + (rng.next_u64() % (366 * 86_400)) as i64;
                calendar::render(&mut s, format, t).unwrap();
                s
            })
            .collect();
        let blob = round_trip(&stamps);
        assert_eq!(blob[..2], [LAYOUT_DATES, id], "{}", stamps[0]);
        assert!(blob.len() < 20_000 * 26 / 8, "{} bytes", blob.len());
    }
}

/// Zip-code-like codes keep their leading zeros exactly.
#[test]
fn zero_padded_codes_round_trip() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let zips: Vec<String> = (0..20_000)
        .map(|_| format!("{:05}", rng.next_u32() % 100_000))
        .collect();
    let blob = round_trip(&zips);
    // Below the texts' 6 bytes a row (with their newline), whatever layout.
    assert!(blob.len() < 20_000 * 3, "{} bytes", blob.len());
}

/// Blobs of every layout: every cut is refused, every byte changed (a few
/// ways) decodes or is refused without a panic.
#[test]
fn corrupt_blobs_are_refused_without_panic() {
    let mut columns = vec![
        strings(&["3", "", "4", "5", "007", "6", "-0.5", "NA"]),
        strings(&["free text", "more free text", "é", ""]),
        (0..40).map(|i| (i * 3).to_string()).collect(),
        (0..40)
            .map(|i| format!("{}.{:02}", i * 37 % 11, i % 7))
            .collect(),
    ];
    columns.push(columns[0].iter().chain(&columns[3]).cloned().collect());
    columns.push(strings(&[
        "2024-03-01 12:34:56",
        "",
        "1999-12-31 00:00:00",
        "2024-02-30 01:00:00",
        "2024-03-01 12:34:57",
    ]));
    let dates = every_layout(columns.last().unwrap());
    assert!(dates.iter().any(|(layout, _)| *layout == LAYOUT_DATES));
    for values in &columns {
        for (layout, blob) in every_layout(values) {
            for cut in 0..blob.len() {
                assert!(
                    decode_plain(&blob[..cut], "c", values.len()).is_err(),
                    "layout {layout} cut at {cut} of {} decoded",
                    blob.len()
                );
            }
            for at in 0..blob.len() {
                for xor in [1u8, 0x80, 0xff, 0x55] {
                    let mut b = blob.clone();
                    b[at] ^= xor;
                    let _ = decode_plain(&b, "c", values.len());
                }
            }
            // A wrong row count is refused, never a panic or a huge allocation.
            let _ = decode_plain(&blob, "c", values.len() + 1);
            let _ = decode_plain(&blob, "c", values.len().saturating_sub(1));
        }
    }
}

#[test]
fn forged_counts_are_refused_in_bounded_memory() {
    // Layout 2 claiming 2^40 exceptions in 3 rows.
    let mut b = vec![LAYOUT_NUMBERS];
    put_varint(&mut b, 1 << 40);
    assert!(decode_plain(&b, "c", 3).is_err());
    // Layout 3 claiming a 2^60-byte stream: the frame holds a few bytes.
    let col = column(&strings(&["a", "b", "c"]));
    let (texts, rows) = rows_of(&col);
    let fields = texts::encode(&texts, &rows);
    let frame = &fields[1..];
    let mut b = vec![LAYOUT_TEXTS];
    put_varint(&mut b, 1 << 60);
    b.extend_from_slice(frame);
    assert!(matches!(
        decode_plain(&b, "c", 3),
        Err(CodecError::CountMismatch { .. })
    ));
    // A stream shorter than the rows' lengths.
    let mut b = vec![LAYOUT_TEXTS];
    put_varint(&mut b, 2);
    b.extend_from_slice(frame);
    assert!(decode_plain(&b, "c", 3).is_err());
    // Trailing bytes after the zstd frame.
    let mut b = [&[LAYOUT_TEXTS][..], &fields].concat();
    b.push(0);
    assert!(matches!(
        decode_plain(&b, "c", 3),
        Err(CodecError::TrailingBytes { .. })
    ));
    // Numbers nested in a numeric column's exceptions are refused.
    let mut b = vec![LAYOUT_NUMBERS];
    put_varint(&mut b, 1);
    b.extend_from_slice(&[0, 0, 0, 0]); // one exception at row 0 (offsets, base 0, packed, width 0)
    b.extend_from_slice(&[1, LAYOUT_NUMBERS]);
    assert!(matches!(
        decode_plain(&b, "c", 1),
        Err(CodecError::UnknownLayout {
            id: LAYOUT_NUMBERS,
            ..
        })
    ));
}

#[test]
fn forged_lzma_and_fixed_width_blobs_are_refused() {
    let col = column(&strings(&["a", "b", "c"]));
    let (texts, rows) = rows_of(&col);
    // Layout 5: a forged length, a dictionary larger than the stream needs
    // or beyond 2^26, a stream cut short, bytes after its end marker.
    let lzma = texts::encode_lzma(&texts, &rows);
    let (head, stream) = (lzma[0], &lzma[2..]);
    assert_eq!(
        (head, lzma[1]),
        (6, 12),
        "6 bytes of stream, a 4 KiB dictionary"
    );
    for (len, dict) in [(1u64 << 60, 12u8), (6, 13), (6, 11), (1 << 40, 27), (2, 12)] {
        let mut b = vec![LAYOUT_TEXTS_LZMA];
        put_varint(&mut b, len);
        b.push(dict);
        b.extend_from_slice(stream);
        assert!(decode_plain(&b, "c", 3).is_err(), "length {len}, 2^{dict}");
    }
    let whole = [&[LAYOUT_TEXTS_LZMA][..], &lzma].concat();
    assert!(decode_plain(&whole, "c", 3).is_ok());
    assert!(decode_plain(&whole[..whole.len() - 1], "c", 3).is_err());
    let mut b = whole.clone();
    b.push(0);
    assert!(matches!(
        decode_plain(&b, "c", 3),
        Err(CodecError::TrailingBytes { .. })
    ));
    // Layout 6: a width of 0 or above 64, bytes not ascending, a text that
    // is not UTF-8 (a lone continuation byte), a stream cut short.
    for forged in [
        vec![LAYOUT_POSITIONS, 0],
        vec![LAYOUT_POSITIONS, 65],
        vec![LAYOUT_POSITIONS, 1, 1, b'b', b'a', 0],
        vec![LAYOUT_POSITIONS, 1, 0, 0x80],
        vec![LAYOUT_POSITIONS, 2, 0, b'a'],
    ] {
        assert!(decode_plain(&forged, "c", 3).is_err(), "{forged:?}");
    }
    let fixed = column(&strings(&["AB", "AC", "AB"]));
    let (texts, rows) = rows_of(&fixed);
    let blob = [
        &[LAYOUT_POSITIONS][..],
        &positions::encode(&texts, &rows).unwrap(),
    ]
    .concat();
    assert_eq!(blob[..6], [LAYOUT_POSITIONS, 2, 0, b'A', 1, b'B']);
    assert!(decode_plain(&blob, "c", 3).is_ok());
    assert!(decode_plain(&[&blob[..], &[0]].concat(), "c", 3).is_err());
}

#[test]
fn forged_ppmd_blobs_are_refused() {
    let col = column(&strings(&["a", "b", "c"]));
    let (texts, rows) = rows_of(&col);
    let ppmd = texts::encode_ppmd(&texts, &rows).unwrap();
    let (len, order, mem, code) = (ppmd[0], ppmd[1], ppmd[2], &ppmd[3..]);
    assert_eq!((len, mem), (6, 16), "6 bytes of stream, 64 KiB of model");
    let blob = |len: u64, order: u8, mem: u8, code: &[u8]| {
        let mut b = vec![LAYOUT_TEXTS_PPMD];
        put_varint(&mut b, len);
        b.extend_from_slice(&[order, mem]);
        b.extend_from_slice(code);
        b
    };
    assert!(decode_plain(&blob(6, order, mem, code), "c", 3).is_ok());
    // An order outside 2..=16, a memory beyond the length's or outside
    // 2^16..=2^26, a length the code cannot hold (1024 bytes a byte) or
    // other than decoded, a stream cut short or followed by a byte.
    for (len, order, mem) in [
        (6u64, 1u8, 16u8),
        (6, 17, 16),
        (6, order, 15),
        (6, order, 17),
        (1 << 40, order, 27),
        (1 << 40, order, 26),
        (5, order, 16),
        (7, order, 16),
    ] {
        let b = blob(len, order, mem, code);
        assert!(decode_plain(&b, "c", 3).is_err(), "{len} {order} {mem}");
    }
    let cut = blob(6, order, mem, &code[..code.len() - 1]);
    assert!(decode_plain(&cut, "c", 3).is_err());
    let long = blob(6, order, mem, &[code, &[0]].concat());
    assert!(matches!(
        decode_plain(&long, "c", 3),
        Err(CodecError::TrailingBytes { .. })
    ));
    // Random code after a valid head: refused or decoded, never a panic,
    // and never more than the stated length.
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    for _ in 0..2000 {
        let n = 1 + (rng.next_u32() % 64) as usize;
        let code: Vec<u8> = (0..n).map(|_| rng.next_u32() as u8).collect();
        let _ = decode_plain(&blob(n as u64 * 4, 4, 16, &code), "c", 3);
    }
}

fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        (-1000i64..1000).prop_map(|v| v.to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        (any::<i32>(), 0u32..6, any::<bool>()).prop_map(|(m, d, comma)| {
            let mut s = String::new();
            numbers::render(&mut s, i64::from(m), d as u8, comma);
            s
        }),
        "0[0-9]{1,4}",
        "-0(\\.0+)?",
        "[0-9]{1,3}(e|E|,)[0-9]{1,3}",
        "[0-9]{20,25}",
        Just(String::new()),
        "[a-zé日,\" \n]{0,6}",
        "[A-Z]{3}",
        "[0-9]{3}-[0-9]{2}-[0-9]{4}",
        "(19|20)[0-9]{2}-[01][0-9]-[0-3][0-9]( [0-2][0-9]:[0-6][0-9]:[0-6][0-9])?",
    ]
}

proptest! {
    #[test]
    fn mixed_columns_round_trip(values in prop::collection::vec(cell(), 0..200), repeat in 1usize..50) {
        // Repeat a prefix so that some columns have few distinct texts.
        let values: Vec<String> = (0..values.len()).map(|i| values[i % repeat.min(values.len())].clone()).collect();
        round_trip(&values);
        // Mostly numbers with some odd cells.
        let mostly: Vec<String> = values.iter().enumerate().map(|(i, v)| if i % 5 == 0 { v.clone() } else { (i as i64 * 7 - 300).to_string() }).collect();
        round_trip(&mostly);
    }

    #[test]
    fn fixed_width_columns_round_trip(values in prop::collection::vec("[A-C0-9]{4}|é[a-b]{2}|日x", 1..200)) {
        // Four bytes each, some of two- or three-byte characters: every
        // position's bytes reassemble into the same UTF-8 texts.
        let blobs = every_layout(&values);
        prop_assert!(blobs.iter().any(|(l, _)| *l == LAYOUT_POSITIONS));
        round_trip(&values);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200), rows in 0usize..40, layout in 0u8..9) {
        let mut b = bytes;
        if let Some(first) = b.first_mut() {
            *first = layout;
        }
        let _ = decode_plain(&b, "c", rows);
    }
}

/// Sizes of each layout for every column of a CSV file (`KARC_PLAIN_CSV`,
/// `KARC_PLAIN_TRIM=1` to strip spaces): the figures of `spec/CODING.md` 5.
#[test]
#[ignore = "a measurement: cargo test --release --lib plain::tests::measure -- --ignored --nocapture"]
fn measure() {
    use std::time::Instant;
    let path = std::env::var("KARC_PLAIN_CSV").expect("KARC_PLAIN_CSV");
    let options = crate::table::CsvOptions {
        trim: std::env::var("KARC_PLAIN_TRIM").is_ok(),
        ..Default::default()
    };
    let table = crate::table::Table::read(std::path::Path::new(&path), &options).unwrap();
    println!("column\trows\ttext\tdictionary\tnumbers\ttexts\tchosen\tencode MB/s\tdecode MB/s");
    for col in &table.columns {
        let text: usize = col.codes.iter().map(|&c| col.dict.value(c).len() + 1).sum();
        let (texts, rows) = rows_of(col);
        let t = Instant::now();
        let dictionary = encode_dictionary(&texts, &rows).len();
        let t_dict = t.elapsed();
        let t = Instant::now();
        let nested = |t: &[&str], r: &[u32]| encode_rows(t, r, Nesting::Exceptions);
        let numbers = formats(&texts)
            .into_iter()
            .filter_map(|f| {
                numbers::encode(f, &texts, &rows, nested)
                    .map(|b| b.len() + 1 + usize::from(f.id().is_some()))
            })
            .min();
        let t_num = t.elapsed();
        let t = Instant::now();
        let zstd = texts::encode(&texts, &rows).len() + 1;
        let t_zstd = t.elapsed();
        let t = Instant::now();
        let blob = encode_plain(col);
        let encode = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let back = decode_plain(&blob, &col.name, col.codes.len()).unwrap();
        let decode = t.elapsed().as_secs_f64();
        assert!((0..col.codes.len()).all(|r| back.text(r) == col.text(r)));
        let mb = text as f64 / 1e6;
        println!(
            "{}\t{}\t{text}\t{dictionary} ({:.0} ms)\t{} ({:.0} ms)\t{zstd} ({:.0} ms)\t{} layout {}\t{:.0}\t{:.0}",
            col.name,
            col.codes.len(),
            t_dict.as_secs_f64() * 1e3,
            numbers.map_or("-".into(), |n| n.to_string()),
            t_num.as_secs_f64() * 1e3,
            t_zstd.as_secs_f64() * 1e3,
            blob.len(),
            blob[0],
            mb / encode,
            mb / decode,
        );
    }
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The worked examples of `spec/CODING.md` 5.2 and 5.3, byte for byte.
#[test]
fn spec_vectors() {
    let blob = |values: &[&str], layout: u8| {
        let blobs = every_layout(&strings(values));
        let (_, b) = blobs.into_iter().find(|(l, _)| *l == layout).unwrap();
        let back = decode_plain(&b, "c", values.len()).unwrap();
        assert!((0..values.len()).all(|r| back.text(r) == values[r]));
        hex(&b)
    };
    let cases = [
        (
            blob(&["7", "8", "9", "10"], LAYOUT_NUMBERS),
            "02 00 00 00 00 00 0e 00 02 1b",
        ),
        (
            blob(&["1.5", "", "-0.25", "2"], LAYOUT_NUMBERS),
            "02 01 00 02 00 00 03 00 00 01 02 01 00 4d 58 00 31 00 08 af 00 e1",
        ),
        (
            blob(
                &["1970-01-01 00:00:01", "1969-12-31 23:59:59"],
                LAYOUT_DATES,
            ),
            "04 01 00 00 00 00 00 01 00 02 80",
        ),
        (
            blob(&["a", "bc"], LAYOUT_TEXTS),
            "03 05 28 b5 2f fd 20 05 29 00 00 61 ff 62 63 ff",
        ),
        (
            blob(&["a", "bc"], LAYOUT_TEXTS_PPMD),
            "07 05 03 10 00 61 9c ce 06 db e2 69 21 00",
        ),
    ];
    for (found, expected) in &cases {
        assert_eq!(found, expected);
    }
    // Layout 1, index coding 2: x, x, y, x, each index under the previous.
    let mut b = vec![LAYOUT_DICTIONARY];
    put_dictionary(&mut b, &["x", "y"], false);
    b.push(INDEX_PREVIOUS);
    b.extend_from_slice(&previous::encode(2, &[0, 0, 1, 0]));
    let back = decode_plain(&b, "c", 4).unwrap();
    assert!((0..4).all(|r| back.text(r) == ["x", "x", "y", "x"][r]));
    assert_eq!(hex(&b), "01 00 02 01 78 01 79 02 00 2f ff f4 00");
    // The integers 0..1000: deltas of 1 (zigzag 2) in a single-symbol
    // code, no bit per row.
    let mut ids = Vec::new();
    ints::put_integers(&mut ids, &(0..1000).collect::<Vec<i64>>());
    assert_eq!(hex(&ids), format!("01 00 01 00 24{}", " 00".repeat(16)));
}
