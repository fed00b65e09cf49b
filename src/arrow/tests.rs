//! Arrow → karc → Arrow round trips of every flat type, with nulls, empty
//! strings, odd floats and dictionaries; and corrupt or forged Arrow IPC
//! and Parquet files (issue 32, the fuzz campaign of 2026-11-28).

// Long: the round trips and the corrupt-file tests share the sample batch
// and the file writers and readers above them; split, each half would
// rebuild them.

use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::StringDictionaryBuilder;
use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::i256;
use arrow_schema::{DataType, Field, Schema};

use super::*;

// Long: test data: one column per Arrow type with nulls and edge values, a flat list read top to
// bottom
/// A batch with a column of each kind, nulls in each, and a row each of
/// the edge values.
pub fn sample() -> RecordBatch {
    let odd_nan = f64::from_bits(0x7ff8_0000_0000_0001);
    let neg_nan = f64::from_bits(0xfff8_0000_0000_0000);
    let mut dict = StringDictionaryBuilder::<Int32Type>::new();
    for v in [
        Some("red"),
        None,
        Some(""),
        Some("red"),
        Some("blue"),
        Some("x"),
        Some("y"),
    ] {
        dict.append_option(v);
    }
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "i64",
            Arc::new(Int64Array::from(vec![
                Some(i64::MIN),
                None,
                Some(0),
                Some(-7),
                Some(i64::MAX),
                Some(1),
                Some(2),
            ])),
        ),
        (
            "u8",
            Arc::new(UInt8Array::from(vec![
                Some(255),
                Some(0),
                None,
                Some(1),
                Some(2),
                Some(3),
                Some(4),
            ])),
        ),
        (
            "f64",
            Arc::new(Float64Array::from(vec![
                Some(f64::NAN),
                Some(-0.0),
                Some(f64::INFINITY),
                Some(f64::NEG_INFINITY),
                Some(1e300),
                Some(odd_nan),
                Some(neg_nan),
            ])),
        ),
        (
            "f32",
            Arc::new(Float32Array::from(vec![
                Some(0.1),
                None,
                Some(-0.0),
                Some(f32::NAN),
                Some(3.4e38),
                Some(1e-45),
                Some(2.5),
            ])),
        ),
        (
            "f16",
            Arc::new(Float16Array::from(vec![
                Some(half::f16::from_f32(0.1)),
                None,
                Some(half::f16::NAN),
                Some(half::f16::MAX),
                Some(half::f16::MIN_POSITIVE_SUBNORMAL),
                Some(half::f16::NEG_ZERO),
                Some(half::f16::from_bits(0x7e01)),
            ])),
        ),
        (
            "dec",
            Arc::new(
                Decimal128Array::from(vec![
                    Some(12345),
                    Some(-5),
                    None,
                    Some(0),
                    Some(i128::from(i64::MAX)),
                    Some(-99999),
                    Some(1),
                ])
                .with_precision_and_scale(38, 3)
                .unwrap(),
            ),
        ),
        (
            "dec_neg",
            Arc::new(
                Decimal64Array::from(vec![
                    Some(12),
                    Some(-5),
                    None,
                    Some(0),
                    Some(7),
                    Some(1),
                    Some(1),
                ])
                .with_precision_and_scale(10, -2)
                .unwrap(),
            ),
        ),
        (
            "dec256",
            Arc::new(
                Decimal256Array::from(vec![
                    Some(i256::from_i128(-12345)),
                    None,
                    Some(i256::MAX),
                    Some(i256::ZERO),
                    Some(i256::ONE),
                    Some(i256::MINUS_ONE),
                    Some(i256::from_i128(7)),
                ])
                .with_precision_and_scale(76, 10)
                .unwrap(),
            ),
        ),
        (
            "s",
            Arc::new(StringArray::from(vec![
                Some("a"),
                Some(""),
                None,
                Some("é,\"q\"\n"),
                Some(""),
                None,
                Some("z"),
            ])),
        ),
        (
            "ls",
            Arc::new(LargeStringArray::from(vec![
                None,
                Some(""),
                None,
                Some("x"),
                Some("y"),
                Some("z"),
                Some(""),
            ])),
        ),
        (
            "sv",
            Arc::new(StringViewArray::from(vec![
                Some("a long string past twelve bytes"),
                Some(""),
                None,
                Some("b"),
                Some("c"),
                Some("d"),
                Some("e"),
            ])),
        ),
        (
            "b",
            Arc::new(BooleanArray::from(vec![
                Some(true),
                Some(false),
                None,
                Some(true),
                Some(true),
                Some(false),
                None,
            ])),
        ),
        (
            "d32",
            Arc::new(Date32Array::from(vec![
                Some(0),
                Some(-719_529),
                None,
                Some(19_000),
                Some(2_932_896),
                Some(1),
                Some(-1),
            ])),
        ),
        (
            "d64",
            Arc::new(Date64Array::from(vec![
                Some(0),
                Some(86_400_000),
                Some(1_500),
                None,
                Some(-1),
                Some(2),
                Some(3),
            ])),
        ),
        (
            "ts_utc",
            Arc::new(
                TimestampMicrosecondArray::from(vec![
                    Some(0),
                    Some(1_700_000_000_123_456),
                    None,
                    Some(-1),
                    Some(i64::MAX),
                    Some(i64::MIN),
                    Some(5),
                ])
                .with_timezone("Europe/Paris"),
            ),
        ),
        (
            "ts_ns",
            Arc::new(TimestampNanosecondArray::from(vec![
                Some(1),
                None,
                Some(0),
                Some(-1_000_000_001),
                Some(2),
                Some(3),
                Some(4),
            ])),
        ),
        (
            "ts_s",
            Arc::new(
                TimestampSecondArray::from(vec![
                    Some(1),
                    None,
                    Some(0),
                    Some(-1),
                    Some(2),
                    Some(3),
                    Some(4),
                ])
                .with_timezone("+02:00"),
            ),
        ),
        (
            "t32",
            Arc::new(Time32MillisecondArray::from(vec![
                Some(0),
                Some(86_399_999),
                None,
                Some(-5),
                Some(90_000_000),
                Some(1),
                Some(2),
            ])),
        ),
        (
            "t64",
            Arc::new(Time64NanosecondArray::from(vec![
                Some(0),
                Some(1),
                None,
                Some(86_399_999_999_999),
                Some(3),
                Some(4),
                Some(5),
            ])),
        ),
        (
            "dur",
            Arc::new(DurationMillisecondArray::from(vec![
                Some(-3),
                Some(0),
                None,
                Some(i64::MAX),
                Some(1),
                Some(2),
                Some(3),
            ])),
        ),
        (
            "bin",
            Arc::new(BinaryArray::from(vec![
                Some(&b""[..]),
                None,
                Some(&b"\x00\xff"[..]),
                Some(&b"ab"[..]),
                Some(&b""[..]),
                None,
                Some(&b"z"[..]),
            ])),
        ),
        (
            "fsb",
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    vec![
                        Some([1u8, 2]),
                        None,
                        Some([0, 0]),
                        Some([255, 255]),
                        Some([1, 2]),
                        Some([3, 4]),
                        None,
                    ]
                    .into_iter(),
                    2,
                )
                .unwrap(),
            ),
        ),
        ("dict", Arc::new(dict.finish())),
        ("nulls", Arc::new(NullArray::new(7))),
        (
            "all_null_int",
            Arc::new(Int32Array::from(vec![None::<i32>; 7])),
        ),
    ];
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, a)| Field::new(*name, a.data_type().clone(), true))
        .collect();
    let mut metadata = std::collections::HashMap::new();
    metadata.insert("origin".to_owned(), "test".to_owned());
    let schema = Arc::new(Schema::new_with_metadata(fields, metadata));
    RecordBatch::try_new(schema, columns.into_iter().map(|(_, a)| a).collect()).unwrap()
}

/// Bit-exact equality of two batches: `RecordBatch`'s `==` compares floats
/// by value (NaN is never equal, -0.0 equals 0.0), so floats are compared
/// by their bits as well.
pub fn assert_same(a: &RecordBatch, b: &RecordBatch) {
    assert_eq!(a.schema(), b.schema());
    assert_eq!(a.num_rows(), b.num_rows());
    for (i, (x, y)) in a.columns().iter().zip(b.columns()).enumerate() {
        let name = a.schema().field(i).name().clone();
        assert_eq!(null_rows(x), null_rows(y), "nulls of {name}");
        match x.data_type() {
            DataType::Float16 | DataType::Float32 | DataType::Float64 => {
                assert_eq!(float_bits(x), float_bits(y), "{name}")
            }
            _ => assert_eq!(x.to_data(), y.to_data(), "{name}"),
        }
    }
}

fn null_rows(a: &ArrayRef) -> Vec<bool> {
    let nulls = a.logical_nulls();
    (0..a.len())
        .map(|i| nulls.as_ref().is_some_and(|n| n.is_null(i)))
        .collect()
}

/// The bits of each valid float (the values under nulls are undefined).
fn float_bits(a: &ArrayRef) -> Vec<Option<u64>> {
    (0..a.len())
        .map(|i| {
            a.is_valid(i).then(|| match a.data_type() {
                DataType::Float16 => a.as_primitive::<Float16Type>().value(i).to_bits().into(),
                DataType::Float32 => a.as_primitive::<Float32Type>().value(i).to_bits().into(),
                _ => a.as_primitive::<Float64Type>().value(i).to_bits(),
            })
        })
        .collect()
}

#[test]
fn every_flat_type_round_trips_exactly() {
    let batch = sample();
    let (table, layout) = table_from_arrow(&batch.schema(), std::slice::from_ref(&batch)).unwrap();
    assert_eq!(table.rows, 7);
    let back = to_arrow(&table.columns, Some(&layout)).unwrap();
    assert_same(&batch, &back);
}

#[test]
fn texts_are_the_documented_renderings() {
    let batch = sample();
    let (table, layout) = table_from_arrow(&batch.schema(), &[batch]).unwrap();
    let col = |name: &str| table.column(name).unwrap();
    let texts = |name: &str| {
        (0..7)
            .map(|r| col(name).text(r).to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        texts("f64"),
        ["NaN", "-0", "inf", "-inf", "1e300", "NaN", "NaN"]
    );
    assert_eq!(texts("dec")[..3], ["12.345", "-0.005", ""]);
    assert_eq!(texts("dec_neg")[..4], ["1200", "-500", "", "0"]);
    assert_eq!(texts("ts_utc")[1], "2023-11-14T22:13:20.123456Z");
    assert_eq!(
        texts("d64")[..3],
        ["1970-01-01", "1970-01-02", "1970-01-01T00:00:01.5"]
    );
    assert_eq!(
        texts("t32")[..5],
        ["00:00:00", "23:59:59.999", "", "-5", "90000000"]
    );
    assert_eq!(texts("bin")[..3], ["", "", "00ff"]);
    assert_eq!(texts("dict"), ["red", "", "", "red", "blue", "x", "y"]);
    let extras = layout.extras.as_ref().unwrap();
    let index = |name| layout.schema.index_of(name).unwrap();
    assert_eq!(extras[index("s")].null_rows, [2, 5]);
    assert_eq!(extras[index("dict")].null_rows, [1]);
    // Without empty values, the empty texts are the nulls.
    assert!(extras[index("fsb")].empty_is_null && extras[index("fsb")].null_rows.is_empty());
    assert!(!extras[index("s")].empty_is_null);
    assert_eq!(extras[index("i64")].null_rows, [] as [u32; 0]);
    assert_eq!(
        extras[index("f64")].nan_bits,
        [(5, 0x7ff8_0000_0000_0001), (6, 0xfff8_0000_0000_0000)]
    );
    assert_eq!(extras[index("f16")].nan_bits, [(6, 0x7e01)]);
}

#[test]
fn batches_zero_rows_and_dictionaries_of_numbers() {
    let batch = sample();
    let (table, layout) = table_from_arrow(
        &batch.schema(),
        &[batch.slice(0, 3), batch.slice(3, 0), batch.slice(3, 4)],
    )
    .unwrap();
    assert_same(&batch, &to_arrow(&table.columns, Some(&layout)).unwrap());

    let empty = batch.slice(0, 0);
    let (table, layout) = table_from_arrow(&empty.schema(), std::slice::from_ref(&empty)).unwrap();
    assert_eq!(table.rows, 0);
    assert_same(&empty, &to_arrow(&table.columns, Some(&layout)).unwrap());

    let keys = Int8Array::from(vec![Some(0), Some(1), None, Some(0), Some(2)]);
    let values = Arc::new(Float64Array::from(vec![
        Some(1.5),
        Some(f64::from_bits(0x7ff8_0000_0000_0002)),
        None,
    ]));
    let dict: ArrayRef = Arc::new(DictionaryArray::<Int8Type>::try_new(keys, values).unwrap());
    let schema = Schema::new(vec![Field::new("d", dict.data_type().clone(), true)]);
    let batch = RecordBatch::try_new(Arc::new(schema), vec![dict]).unwrap();
    let (table, layout) = table_from_arrow(&batch.schema(), std::slice::from_ref(&batch)).unwrap();
    let back = to_arrow(&table.columns, Some(&layout)).unwrap();
    assert_eq!(back.schema(), batch.schema());
    let d = back.column(0).as_dictionary::<Int8Type>();
    let v = d.values().as_primitive::<Float64Type>();
    let rows: Vec<Option<u64>> = (0..5)
        .map(|r| {
            d.is_valid(r)
                .then(|| v.value(d.keys().value(r) as usize).to_bits())
        })
        .collect();
    assert_eq!(
        rows,
        [
            Some(1.5f64.to_bits()),
            Some(0x7ff8_0000_0000_0002),
            None,
            Some(1.5f64.to_bits()),
            None
        ]
    );
}

#[test]
fn nested_types_are_refused_naming_the_column() {
    let list =
        arrow_array::ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1)])]);
    let schema = Schema::new(vec![
        Field::new("a", DataType::Int32, false),
        Field::new("tags", list.data_type().clone(), true),
    ]);
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        vec![Arc::new(Int32Array::from(vec![1])), Arc::new(list)],
    )
    .unwrap();
    let err = table_from_arrow(&batch.schema(), &[batch]).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    let message = err.to_string();
    assert!(
        message.starts_with("Arrow table: column tags: type List("),
        "{message}"
    );
    assert!(!message.contains('\n'));
}

#[test]
fn releases_keep_types_where_the_texts_still_parse() {
    let batch = sample();
    let (mut table, layout) =
        table_from_arrow(&batch.schema(), std::slice::from_ref(&batch)).unwrap();
    // A generalized integer column and a suppressed date.
    let i = table.column_index("u8").unwrap();
    let mut generalized = table.columns[i].clone();
    generalized.codes.clear();
    for t in ["[0-10)", "*", "", "[0-10)", "[0-10)", "[0-10)", "[0-10)"] {
        generalized.push(t);
    }
    table.columns[i] = generalized;
    let public = layout.release(&["d32"]);
    assert!(public.extras.is_none());
    let release = to_arrow(&table.columns, Some(&public)).unwrap();
    let schema = release.schema();
    assert_eq!(
        schema.field_with_name("u8").unwrap().data_type(),
        &DataType::Utf8
    );
    assert_eq!(
        schema.field_with_name("d32").unwrap().data_type(),
        &DataType::Utf8
    );
    assert_eq!(
        schema.field_with_name("i64").unwrap().data_type(),
        &DataType::Int64
    );
    assert_eq!(
        schema.field_with_name("ts_utc").unwrap().data_type(),
        batch
            .schema()
            .field_with_name("ts_utc")
            .unwrap()
            .data_type()
    );
    let i64s = release.column_by_name("i64").unwrap();
    assert_eq!(
        i64s.to_data(),
        batch.column_by_name("i64").unwrap().to_data()
    );
    let u8s = release.column_by_name("u8").unwrap().as_string::<i32>();
    assert_eq!(u8s.value(1), "*");

    let plain = to_arrow(&table.columns, None).unwrap();
    assert!(
        plain
            .schema()
            .fields()
            .iter()
            .all(|f| f.data_type() == &DataType::Utf8)
    );
    assert_eq!(
        plain
            .column_by_name("f64")
            .unwrap()
            .as_string::<i32>()
            .value(4),
        "1e300"
    );
}

#[test]
fn schema_bytes_round_trip_and_bad_layouts_are_errors() {
    let batch = sample();
    let (table, layout) = table_from_arrow(&batch.schema(), std::slice::from_ref(&batch)).unwrap();
    let schema = ArrowLayout::schema_from_bytes(&layout.schema_bytes()).unwrap();
    assert_eq!(&schema, layout.schema.as_ref());
    assert!(ArrowLayout::schema_from_bytes(b"not a schema").is_err());

    let mut extras = layout.extras.clone().unwrap();
    extras[0].null_rows.push(99);
    let s = layout.schema.index_of("s").unwrap();
    extras[s].null_rows.push(99);
    let bad = ArrowLayout {
        schema: layout.schema.clone(),
        extras: Some(extras),
    };
    assert!(to_arrow(&table.columns, Some(&bad)).is_err());

    // A cell that is not of its column's type names column, row and text.
    let mut columns = table.columns.clone();
    let i = table.column_index("i64").unwrap();
    columns[i].codes[3] = columns[i].dict.intern("seven");
    let err = to_arrow(&columns, Some(&layout)).unwrap_err().to_string();
    assert_eq!(
        err,
        "column i64, row 4: expected a Int64 value, found \"seven\""
    );
}

/// The batches of a Parquet or IPC file in memory, as Arrow's readers give them.
fn read_back(bytes: &[u8], format: TableFormat) -> RecordBatch {
    let batches: Vec<RecordBatch> = match format {
        TableFormat::Parquet => parquet::arrow::arrow_reader::ParquetRecordBatchReader::try_new(
            bytes::Bytes::from(bytes.to_vec()),
            1024,
        )
        .unwrap()
        .collect::<std::result::Result<_, _>>()
        .unwrap(),
        _ => arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(bytes), None)
            .unwrap()
            .collect::<std::result::Result<_, _>>()
            .unwrap(),
    };
    arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap()
}

#[test]
fn parquet_and_ipc_files_round_trip() {
    let all = sample();
    for format in [TableFormat::Parquet, TableFormat::Ipc] {
        // Parquet has no negative decimal scales.
        let batch = match format {
            TableFormat::Parquet => {
                let skip = all.schema().index_of("dec_neg").unwrap();
                let keep: Vec<usize> = (0..all.num_columns()).filter(|&i| i != skip).collect();
                all.project(&keep).unwrap()
            }
            _ => all.clone(),
        };
        let mut file = Vec::new();
        write_batch(&mut file, std::path::Path::new("t"), format, &batch).unwrap();
        assert!(file.starts_with(if format == TableFormat::Parquet {
            b"PAR1"
        } else {
            b"ARROW1"
        }));
        assert_eq!(TableFormat::sniff(&file), format);
        // What the file holds, as Arrow reads it (Parquet has no type for
        // some of Arrow's, and reads them back as the nearest).
        let held = read_back(&file, format);
        let (table, layout) = read_table_bytes(std::path::Path::new("t"), file, format).unwrap();
        assert_eq!(table.rows, 7);
        assert_same(&held, &to_arrow(&table.columns, Some(&layout)).unwrap());
        if format == TableFormat::Ipc {
            assert_same(&batch, &held);
        }
    }
}

proptest::proptest! {
    /// Random string, integer and float columns with nulls and empty
    /// strings, cut into random batches, come back equal.
    #[test]
    fn random_columns_round_trip(
        rows in proptest::collection::vec(
            (
                proptest::option::of("[a-c]{0,2}"),
                proptest::option::of(proptest::num::i64::ANY),
                proptest::option::of(proptest::num::f64::ANY),
            ),
            0..40,
        ),
        cut in 0usize..40,
    ) {
        let strings: ArrayRef = Arc::new(rows.iter().map(|r| r.0.as_deref()).collect::<StringArray>());
        let ints: ArrayRef = Arc::new(rows.iter().map(|r| r.1).collect::<Int64Array>());
        let floats: ArrayRef = Arc::new(rows.iter().map(|r| r.2).collect::<Float64Array>());
        let batch = RecordBatch::try_from_iter([("s", strings), ("i", ints), ("f", floats)]).unwrap();
        let cut = cut.min(batch.num_rows());
        let parts = [batch.slice(0, cut), batch.slice(cut, batch.num_rows() - cut)];
        let (table, layout) = table_from_arrow(&batch.schema(), &parts).unwrap();
        assert_same(&batch, &to_arrow(&table.columns, Some(&layout)).unwrap());
    }
}

#[test]
fn files_without_a_table_extension_are_read_by_their_magic() {
    let dir = tempfile::tempdir().unwrap();
    let batch = sample();
    let mut ipc = Vec::new();
    write_batch(
        &mut ipc,
        std::path::Path::new("t"),
        TableFormat::Ipc,
        &batch,
    )
    .unwrap();
    let unnamed = dir.path().join("table");
    std::fs::write(&unnamed, &ipc).unwrap();
    let (table, _) = read_table(&unnamed).unwrap();
    assert_eq!(table.rows, 7);
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, "a\n1\n").unwrap();
    let err = read_table(&csv).unwrap_err().to_string();
    assert!(
        err.ends_with("not a Parquet or Arrow IPC file: expected PAR1 or ARROW1 at its start"),
        "{err}"
    );
    assert!(err.contains("t.csv"), "{err}");
}

/// Issue 32: one changed byte of an Arrow IPC file made the readers panic
/// inside arrow-buffer (42 of 1,100 mutated files). Every mutation of a
/// small file, compressed or not, IPC or Parquet, ends as a value or an
/// error, never as a panic out of `read_table_bytes`.
#[test]
fn mutated_arrow_files_are_errors_not_panics() {
    let batch = sample();
    let mut plain = Vec::new();
    {
        let mut w = arrow_ipc::writer::FileWriter::try_new(&mut plain, &batch.schema()).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
    }
    let mut lz4 = Vec::new();
    write_batch(
        &mut lz4,
        std::path::Path::new("t"),
        TableFormat::Ipc,
        &batch,
    )
    .unwrap();
    let skip = batch.schema().index_of("dec_neg").unwrap();
    let keep: Vec<usize> = (0..batch.num_columns()).filter(|&i| i != skip).collect();
    let mut parquet = Vec::new();
    let projected = batch.project(&keep).unwrap();
    write_batch(
        &mut parquet,
        std::path::Path::new("t"),
        TableFormat::Parquet,
        &projected,
    )
    .unwrap();
    let mut errors = 0;
    for (file, format) in [
        (&plain, TableFormat::Ipc),
        (&lz4, TableFormat::Ipc),
        (&parquet, TableFormat::Parquet),
    ] {
        for at in (0..file.len()).step_by(3) {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut bytes = file.clone();
                bytes[at] ^= flip;
                let read = std::panic::catch_unwind(|| {
                    read_table_bytes(std::path::Path::new("m"), bytes, format).is_err()
                });
                match read {
                    Ok(is_err) => errors += usize::from(is_err),
                    Err(_) => panic!("{format:?}: byte {at} ^ {flip:#04x} panicked"),
                }
            }
        }
    }
    assert!(
        errors > 0,
        "no mutation was refused: the test mutates nothing"
    );
}

/// The fuzz campaign of 2026-11-28: arrow-ipc reserves what a file's
/// footer, a footer block and a compressed buffer declare before it reads
/// them (a fuzzed block asked for gigabytes, past libFuzzer's 2 GB limit).
/// Forged from small pyarrow files (`fuzz/regressions/arrow_table/`, whose
/// first byte is the fuzz target's format choice), each is refused by
/// `guard.rs`, naming the count, before anything is reserved.
#[test]
fn sizes_the_file_cannot_back_are_refused_before_reserving() {
    let cases: [(&[u8], &str); 4] = [
        (
            include_bytes!("../../fuzz/regressions/arrow_table/ipc_block_body_2_40.arrow"),
            "declares 208 + 1099511627776 bytes",
        ),
        (
            include_bytes!("../../fuzz/regressions/arrow_table/ipc_footer_2_31.arrow"),
            "the footer declares 2147483647 bytes",
        ),
        (
            include_bytes!("../../fuzz/regressions/arrow_table/ipc_lz4_buffer_3_gib.arrow"),
            "declares 3221225472 bytes uncompressed",
        ),
        (
            // Its message's length field ends the flatbuffer early, which
            // arrow-ipc ignores (it reads to the block's end): the guard
            // skipped the message and arrow-ipc reserved 4 EB.
            include_bytes!(
                "../../fuzz/regressions/arrow_table/crash_ipc_block_message_past_its_length.arrow"
            ),
            "bytes uncompressed: expected at most",
        ),
    ];
    for (file, expected) in cases {
        let err = read_error("f.arrow", &file[1..], TableFormat::Ipc);
        assert!(
            err.starts_with("f.arrow: corrupt Arrow data: ") && err.contains(expected),
            "{err}"
        );
    }
}

/// The fuzz campaign of 2026-11-28: a Parquet dictionary page whose header
/// counted 1.7 billion values in a few bytes made parquet's dictionary
/// decoder zero-fill 14 GB before decoding one; `guard.rs` refuses the
/// count its bytes cannot code, naming the column. The fuzzed file
/// (`oom_parquet_dictionary_values.parquet`) is now refused earlier, by
/// the walk of its forged page headers; here a file of 10,000 distinct
/// texts is written, and its dictionary page's count raised in place to
/// 1,048,575 (a varint of the same 3 bytes) with every header still valid.
#[test]
fn a_dictionary_page_counting_more_values_than_its_bytes_is_refused() {
    let fuzzed =
        include_bytes!("../../fuzz/regressions/arrow_table/oom_parquet_dictionary_values.parquet");
    let err = read_error("f.parquet", &fuzzed[1..], TableFormat::Parquet);
    assert!(
        err.starts_with("f.parquet: corrupt Parquet data: column "),
        "{err}"
    );
    let texts: Vec<String> = (0..10_000).map(|i| format!("v{i}")).collect();
    let column: ArrayRef = Arc::new(StringArray::from(texts));
    let batch = RecordBatch::try_from_iter([("a", column)]).unwrap();
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    let mut file = writer.into_inner().unwrap();
    let metadata = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&bytes::Bytes::from(file.clone()))
        .unwrap();
    let at = metadata
        .row_group(0)
        .column(0)
        .dictionary_page_offset()
        .unwrap() as usize;
    // `dictionary_page_header` (field 7, a struct), then its `num_values`
    // (field 1, an i32): 10,000 as a zigzag varint of 3 bytes.
    let field = (at..at + 64)
        .find(|&i| file[i] == 0x4c && file[i + 1] == 0x15)
        .expect("a dictionary page header");
    assert_eq!(&file[field + 2..field + 5], &[0xa0, 0x9c, 0x01]);
    file[field + 2..field + 5].copy_from_slice(&[0xfe, 0xff, 0x7f]);
    let err = read_error("f.parquet", &file, TableFormat::Parquet);
    assert!(
        err.starts_with(
            "f.parquet: corrupt Parquet data: a dictionary page of column 0 counts 1048575"
        ) && err.contains("expected at most"),
        "{err}"
    );
}

/// The slow units of the fuzz campaign of 2026-11-28 (48 s to 232 s each
/// under libFuzzer, seconds in a release build, and more the larger the
/// file): footers and page headers whose fields parquet skips hold lists
/// of up to 2^31 booleans, which parquet 60 skips without reading a byte
/// each. `thrift.rs` walks them first and refuses them, at once.
#[test]
fn thrift_parquet_would_loop_on_is_refused_at_once() {
    let cases: [(&[u8], &str); 4] = [
        (
            include_bytes!(
                "../../fuzz/regressions/arrow_table/slow_parquet_header_past_chunk.parquet"
            ),
            "a page header at byte 145: field 6 is a List",
        ),
        (
            include_bytes!("../../fuzz/regressions/arrow_table/slow_parquet_footer_48s.parquet"),
            "the footer: ",
        ),
        (
            include_bytes!("../../fuzz/regressions/arrow_table/slow_parquet_footer_130s.parquet"),
            "the footer: ",
        ),
        (
            include_bytes!("../../fuzz/regressions/arrow_table/slow_parquet_page_header.parquet"),
            "a page header at byte ",
        ),
    ];
    for (file, expected) in cases {
        let start = std::time::Instant::now();
        let err = read_error("f.parquet", &file[1..], TableFormat::Parquet);
        assert!(
            err.starts_with("f.parquet: corrupt Parquet data: ") && err.contains(expected),
            "{err}"
        );
        assert!(
            start.elapsed().as_secs() < 5,
            "{err}: {:?}",
            start.elapsed()
        );
    }
    // A list of booleans where parquet skips, in a footer that is
    // otherwise valid; a known field of the wrong type; a list longer
    // than its bytes.
    assert_eq!(
        thrift_check(&[0x29, 0x0c, 0x00]),
        Ok(()),
        "an empty list of SchemaElement"
    );
    for (bytes, reason) in [
        (&[0xf9, 0x31, 1, 1, 1, 0x00][..], "a list of 3 booleans"),
        (
            &[0x17, 0, 0, 0, 0, 0, 0, 0, 0, 0x00][..],
            "field 1 is a Double",
        ),
        (
            &[0x29, 0xfc, 0x7f, 0x00][..],
            "a list of 127 elements in 1 bytes",
        ),
    ] {
        let got = thrift_check(bytes);
        assert!(
            matches!(&got, Err(m) if m.contains(reason)),
            "{bytes:x?}: {got:?}"
        );
    }
}

/// The error of reading `bytes` as `format` from a file named `name`.
fn read_error(name: &str, bytes: &[u8], format: TableFormat) -> String {
    read_table_bytes(Path::new(name), bytes.to_vec(), format)
        .unwrap_err()
        .to_string()
}

/// [`super::thrift::check_footer`], its refusal as text.
fn thrift_check(bytes: &[u8]) -> Result<(), String> {
    match super::thrift::check_footer(bytes) {
        Ok(()) => Ok(()),
        Err(super::thrift::Stop::Refused(m)) => Err(m),
        Err(super::thrift::Stop::Short) => Err("short".to_owned()),
    }
}
