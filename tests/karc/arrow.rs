//! Parquet and Arrow IPC tables through the binary: pack and restore give
//! the input table back (schema, types, nulls, values, NaN bits), a
//! release written as Parquet holds the release's cells, and what karc
//! cannot hold is refused in one line.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type};
use arrow_array::*;
use arrow_schema::{DataType, TimeUnit};
use karc::arrow::{TableFormat, read_table, to_arrow, write_table};
use karc::io::Access;
use karc::table::{CsvOptions, Table};

use crate::common::{fixture, karc, outcome};

const ODD_NAN: u64 = 0x7ff8_0000_0000_0001;

/// `small.csv`'s six rows with typed columns, and a column of each other
/// kind beside them: NaN, -0.0, infinities and 1e300; decimals; dates;
/// timestamps with a time zone; booleans; strings with both nulls and
/// empty values; a column of nulls only.
fn typed_table(rows: usize) -> RecordBatch {
    let cities = ["Ulm", "Bonn", "Kiel", "Hof", "Ulm", "Bonn"];
    let ages = [21, 25, 33, 37, 29, 22];
    let scores = [
        f64::NAN,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e300,
        f64::from_bits(ODD_NAN),
    ];
    let notes = [
        Some("a, b"),
        None,
        Some(""),
        Some("é"),
        Some("y"),
        Some("q\"q"),
    ];
    let cycle = |r: usize| r % 6;
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "id",
            Arc::new(Int64Array::from_iter_values(
                (0..rows).map(|r| r as i64 + 1),
            )),
        ),
        (
            "city",
            Arc::new(
                (0..rows)
                    .map(|r| cities[cycle(r)])
                    .collect::<DictionaryArray<Int32Type>>(),
            ),
        ),
        (
            "age",
            Arc::new(Int32Array::from_iter_values(
                (0..rows).map(|r| ages[cycle(r)]),
            )),
        ),
        (
            "note",
            Arc::new((0..rows).map(|r| notes[cycle(r)]).collect::<StringArray>()),
        ),
        (
            "score",
            Arc::new(Float64Array::from_iter_values(
                (0..rows).map(|r| scores[cycle(r)]),
            )),
        ),
        (
            "price",
            Arc::new(
                Decimal128Array::from_iter(
                    (0..rows).map(|r| (r % 7 != 1).then_some(r as i128 * 125 - 300)),
                )
                .with_precision_and_scale(12, 2)
                .unwrap(),
            ),
        ),
        (
            "day",
            Arc::new(Date32Array::from_iter(
                (0..rows).map(|r| (r % 5 != 2).then_some(r as i32 * 37 - 800)),
            )),
        ),
        (
            "at",
            Arc::new(
                TimestampMicrosecondArray::from_iter(
                    (0..rows).map(|r| (r % 4 != 1).then_some(r as i64 * 1_234_567_891)),
                )
                .with_timezone("Europe/Berlin"),
            ),
        ),
        (
            "ok",
            Arc::new(
                (0..rows)
                    .map(|r| (r % 3 != 2).then_some(r % 2 == 0))
                    .collect::<BooleanArray>(),
            ),
        ),
        ("nothing", Arc::new(Int32Array::from(vec![None; rows]))),
    ];
    RecordBatch::try_from_iter_with_nullable(columns.into_iter().map(|(n, a)| (n, a, true)))
        .unwrap()
}

/// The config of [`typed_table`]: `small.toml`'s roles (absolute
/// hierarchy paths) and the other columns insensitive.
fn typed_config(dir: &Path) -> PathBuf {
    let h = |name: &str| {
        fixture(&format!("archive/source/{name}"))
            .display()
            .to_string()
    };
    let mut toml = format!(
        "[[columns]]\nname = \"id\"\nrole = \"identifier\"\n\
         [[columns]]\nname = \"city\"\nrole = \"quasi\"\nhierarchy = {:?}\n\
         [[columns]]\nname = \"age\"\nrole = \"quasi\"\ntype = \"integer\"\nhierarchy = {:?}\n\
         [[columns]]\nname = \"note\"\nrole = \"sensitive\"\n",
        h("h_city.csv"),
        h("h_age.csv")
    );
    for name in ["score", "price", "day", "at", "ok", "nothing"] {
        toml += &format!("[[columns]]\nname = \"{name}\"\nrole = \"insensitive\"\n");
    }
    toml += "[privacy]\nk = 2\n[algorithm]\nname = \"datafly\"\nseed = 0\n";
    let path = dir.join("typed.toml");
    std::fs::write(&path, toml).unwrap();
    path
}

/// A temporary folder holding [`typed_config`], and the config's path.
fn typed_setup() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let config = typed_config(dir.path()).display().to_string();
    (dir, config)
}

/// The table a Parquet or IPC file holds, as Arrow's readers give it.
fn read_arrow(path: &Path) -> RecordBatch {
    let (table, layout) = read_table(path).unwrap();
    to_arrow(&table.columns, Some(&layout)).unwrap()
}

/// Equal tables: schema (metadata too), nulls and values, floats by bits.
fn assert_same_table(a: &RecordBatch, b: &RecordBatch) {
    assert_tables(a, b, false);
}

/// The release of a table in hand (`karc anonymize`) and its archive's
/// (`karc export`) are equal tables but for what the public part does not
/// hold (`spec/FORMAT.md` §7.6): null rows, which the export shows in a
/// string column as empty strings, and NaN payloads (one NaN).
fn assert_same_release(release: &RecordBatch, export: &RecordBatch) {
    assert_tables(release, export, true);
}

/// [`assert_same_table`], or with `public` [`assert_same_release`].
fn assert_tables(a: &RecordBatch, b: &RecordBatch, public: bool) {
    assert_eq!(a.schema(), b.schema());
    assert_eq!(a.num_rows(), b.num_rows());
    for (i, f) in a.schema().fields().iter().enumerate() {
        let (x, y) = (a.column(i), b.column(i));
        match f.data_type() {
            DataType::Float64 => {
                let bits = |c: &ArrayRef| {
                    let p = c.as_primitive::<Float64Type>();
                    (0..p.len())
                        .map(|r| p.is_valid(r).then(|| p.value(r)))
                        .map(|v| v.map(|v| if public && v.is_nan() { f64::NAN } else { v }))
                        .map(|v| v.map(f64::to_bits))
                        .collect::<Vec<_>>()
                };
                assert_eq!(bits(x), bits(y), "{}", f.name());
            }
            DataType::Utf8 if public => {
                let texts = |c: &ArrayRef| {
                    let c = c.as_string::<i32>();
                    (0..c.len())
                        .map(|r| if c.is_valid(r) { c.value(r) } else { "" }.to_owned())
                        .collect::<Vec<_>>()
                };
                assert_eq!(texts(x), texts(y), "{}", f.name());
                assert_eq!(y.null_count(), 0, "{}", f.name());
            }
            _ => assert_eq!(x.to_data(), y.to_data(), "{}", f.name()),
        }
    }
}

/// The arguments of an unencrypted `karc pack` of `input` into `archive`.
fn pack<'a>(config: &'a str, input: &'a str, archive: &'a str) -> Vec<&'a str> {
    vec![
        "pack",
        "-c",
        config,
        input,
        "-o",
        archive,
        "--no-encryption",
    ]
}

/// Asserts a refusal: exit 2, nothing on stdout, one line on stderr
/// naming `expected`.
fn refused(args: &[&str], expected: &str) {
    let (code, stdout, err) = outcome(&karc(args));
    assert_eq!((code, err.trim_end().lines().count()), (2, 1), "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(err.contains(expected), "{err}");
}

fn ok(args: &[&str]) -> String {
    let o = karc(args);
    let (code, _, err) = outcome(&o);
    assert_eq!(code, 0, "karc {args:?}: {err}");
    err
}

#[test]
fn parquet_and_ipc_inputs_restore_to_equal_tables() {
    let (dir, config) = typed_setup();
    let config = config.as_str();
    let table = typed_table(12);
    for input in ["in.parquet", "in.arrow", "in.feather"] {
        let input = dir.path().join(input);
        write_table(&input, &table, Access::Public).unwrap();
        let held = read_arrow(&input);
        let archive = dir.path().join("a.karc");
        let (i, a) = (input.to_str().unwrap(), archive.to_str().unwrap());
        ok(&pack(config, i, a));
        for output in ["out.parquet", "out.arrow", "out.ipc"] {
            let out = dir.path().join(output);
            // Each input of the loop restores to the same names.
            ok(&["restore", a, "-o", out.to_str().unwrap(), "--force"]);
            assert_same_table(&held, &read_arrow(&out));
        }
        // The NaN that is not the canonical one keeps its bits.
        let score = read_arrow(&dir.path().join("out.parquet"));
        let score = score
            .column_by_name("score")
            .unwrap()
            .as_primitive::<Float64Type>();
        assert_eq!(score.value(5).to_bits(), ODD_NAN);
        // To CSV: the canonical CSV of the texts, which reads back as them.
        let csv = dir.path().join("out.csv");
        ok(&["restore", a, "-o", csv.to_str().unwrap(), "--force"]);
        let text = std::fs::read_to_string(&csv).unwrap();
        assert!(
            text.starts_with(
                "id,city,age,note,score,price,day,at,ok,nothing\n1,Ulm,21,\"a, b\",NaN,-3.00,"
            ),
            "{text}"
        );
        let restored = Table::read(&csv, &CsvOptions::default()).unwrap();
        let (texts, _) =
            karc::arrow::table_from_arrow(&held.schema(), std::slice::from_ref(&held)).unwrap();
        assert_eq!(restored.columns, texts.columns);
    }
}

#[test]
fn zero_rows_and_parquet_on_standard_input() {
    let (dir, config) = typed_setup();
    let config = config.as_str();
    let empty = dir.path().join("empty.parquet");
    write_table(&empty, &typed_table(0), Access::Public).unwrap();
    let (a, out) = (dir.path().join("e.karc"), dir.path().join("e.parquet"));
    // karc refuses a table without rows, whatever its format; the library
    // round-trips one (src/arrow/tests.rs).
    let args = pack(config, empty.to_str().unwrap(), a.to_str().unwrap());
    refused(&args, "empty.parquet has no rows");
    assert!(!a.exists());
    // `-` is recognized by the PAR1 magic.
    let input = dir.path().join("in.parquet");
    write_table(&input, &typed_table(6), Access::Public).unwrap();
    let stdin = std::fs::File::open(&input).unwrap();
    let a = dir.path().join("s.karc");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_karc"))
        .args(pack(config, "-", a.to_str().unwrap()))
        .stdin(stdin)
        .output()
        .unwrap();
    assert_eq!(outcome(&o).0, 0, "{}", outcome(&o).2);
    ok(&["restore", a.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_same_table(&read_arrow(&input), &read_arrow(&out));
}

#[test]
fn parquet_releases_hold_the_release_cells() {
    let (dir, config) = typed_setup();
    let config = config.as_str();
    let input = dir.path().join("in.parquet");
    write_table(&input, &typed_table(12), Access::Public).unwrap();
    let path = |n: &str| dir.path().join(n).display().to_string();
    let i = input.to_str().unwrap();
    // k = 3: each (city, age) of the table occurs twice, so the QIs are
    // generalized.
    let anonymize =
        |output: &str| ok(&["anonymize", "-c", config, "-k", "3", i, "-o", &path(output)]);
    anonymize("release.csv");
    anonymize("release.parquet");
    let a = path("a.karc");
    ok(&[pack(config, i, &a), vec!["-k", "3"]].concat());
    ok(&["export", &path("a.karc"), "-o", &path("export.parquet")]);
    ok(&["export", &path("a.karc"), "-o", &path("export.csv")]);
    let csv = Table::read(Path::new(&path("release.csv")), &CsvOptions::default()).unwrap();
    assert_eq!(
        std::fs::read(path("release.csv")).unwrap(),
        std::fs::read(path("export.csv")).unwrap()
    );
    let release = read_arrow(Path::new(&path("release.parquet")));
    assert_same_release(&release, &read_arrow(Path::new(&path("export.parquet"))));
    // The identifier is not released; the QIs are generalized labels
    // (strings); the other columns keep their types.
    let schema = release.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(
        names,
        [
            "city", "age", "note", "score", "price", "day", "at", "ok", "nothing"
        ]
    );
    assert_eq!(schema.field(0).data_type(), &DataType::Utf8);
    assert_eq!(schema.field(1).data_type(), &DataType::Utf8);
    assert_eq!(schema.field(4).data_type(), &DataType::Decimal128(12, 2));
    assert_eq!(
        schema.field(6).data_type(),
        &DataType::Timestamp(TimeUnit::Microsecond, Some("Europe/Berlin".into()))
    );
    // Every cell is the release CSV's (a null as the empty cell).
    let (texts, _) =
        karc::arrow::table_from_arrow(&schema, std::slice::from_ref(&release)).unwrap();
    assert_eq!(texts.columns, csv.columns);
    let age = csv.column("age").unwrap();
    assert!(
        age.dict.values().all(|v| v.parse::<i32>().is_err()),
        "{age:?}"
    );

    // `verify` reads a Parquet release as it reads a CSV one.
    let o = karc(&[
        "verify",
        &path("release.parquet"),
        "--qi",
        "city,age",
        "-k",
        "3",
    ]);
    assert_eq!(outcome(&o).0, 0, "{}", outcome(&o).2);
    let o = karc(&[
        "verify",
        &path("release.parquet"),
        "--qi",
        "city,age",
        "-k",
        "13",
    ]);
    assert_eq!(outcome(&o).0, 1, "{}", outcome(&o).2);
}

#[test]
fn a_csv_input_still_restores_byte_exact_and_to_parquet_as_strings() {
    let dir = tempfile::tempdir().unwrap();
    let config = fixture("archive/source/small.toml");
    let csv = fixture("archive/source/small.csv");
    let a = dir.path().join("a.karc");
    ok(&pack(
        config.to_str().unwrap(),
        csv.to_str().unwrap(),
        a.to_str().unwrap(),
    ));
    let (back, table) = (dir.path().join("back.csv"), dir.path().join("back.parquet"));
    ok(&["restore", a.to_str().unwrap(), "-o", back.to_str().unwrap()]);
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&csv).unwrap());
    ok(&[
        "restore",
        a.to_str().unwrap(),
        "-o",
        table.to_str().unwrap(),
    ]);
    let batch = read_arrow(&table);
    assert!(
        batch
            .schema()
            .fields()
            .iter()
            .all(|f| f.data_type() == &DataType::Utf8)
    );
    let (texts, _) =
        karc::arrow::table_from_arrow(&batch.schema(), std::slice::from_ref(&batch)).unwrap();
    let original = Table::read(&csv, &CsvOptions::default()).unwrap();
    assert_eq!(texts.columns, original.columns);
}

#[test]
fn nested_columns_and_streams_of_parquet_are_refused_in_one_line() {
    let (dir, config) = typed_setup();
    let config = config.as_str();
    let typed = typed_table(6);
    let list =
        ListArray::from_iter_primitive::<Int32Type, _, _>((0..6).map(|r| Some(vec![Some(r)])));
    let mut columns: Vec<(String, ArrayRef)> = typed
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .zip(typed.columns().iter().cloned())
        .collect();
    columns[9] = ("nothing".to_owned(), Arc::new(list));
    let nested = RecordBatch::try_from_iter(columns).unwrap();
    let input = dir.path().join("nested.parquet");
    write_table(&input, &nested, Access::Public).unwrap();
    let out = dir.path().join("a.karc");
    for args in [
        pack(config, input.to_str().unwrap(), out.to_str().unwrap()),
        vec![
            "anonymize",
            "-c",
            config,
            input.to_str().unwrap(),
            "-o",
            "-",
        ],
    ] {
        refused(&args, "column nothing: type List(");
    }
    assert!(!out.exists());
    let flat = dir.path().join("flat.parquet");
    write_table(&flat, &typed, Access::Public).unwrap();
    let (f, o) = (flat.to_str().unwrap(), out.to_str().unwrap());
    refused(
        &[pack(config, f, o), vec!["--stream"]].concat(),
        "--stream reads CSV files",
    );
    // A file named .parquet that is not one.
    std::fs::write(&flat, b"id\n1\n").unwrap();
    refused(&pack(config, f, o), "flat.parquet");
}

#[test]
fn the_parquet_vector_restores_to_its_table() {
    let path = fixture("archive/valid/arrow_small_parquet.karc");
    let bytes = std::fs::read(&path).unwrap();
    let (archive, batch) = karc::archive::reader::Archive::from_bytes_and_restore_batch(
        &path,
        bytes,
        karc::archive::reader::ClaimCheck::Enforce,
        None,
    )
    .unwrap();
    assert!(archive.arrow_schema().is_some());
    let source = read_arrow(&fixture("archive/source/small.parquet"));
    assert_same_table(&source, &batch);
    assert_eq!(batch.column_by_name("note").unwrap().null_count(), 1);
    assert_eq!(TableFormat::from_path(&path), TableFormat::Csv);
}

/// Adult (30,162 rows, `fixtures/adult`) as a Parquet user has it: `age`
/// 64-bit integers, the rest dictionary-encoded strings; packed with
/// Adult's config (whose `;` delimiter a Parquet input does not use) and
/// restored to the same table, and to CSV as the original's cells.
#[test]
fn adult_as_parquet_packs_and_restores() {
    use karc::archive::reader::{Archive, ClaimCheck};
    use karc::archive::seal::Seal;
    use karc::archive::writer::{PackOptions, pack_file};
    let csv = fixture("adult/adult.csv");
    let config = karc::config::Config::load(&fixture("adult/adult.toml")).unwrap();
    let table = Table::read(&csv, &config.csv_options().unwrap()).unwrap();
    let columns: Vec<(String, ArrayRef)> = table
        .columns
        .iter()
        .map(|c| {
            let texts = c.codes.iter().map(|&code| c.dict.value(code));
            let array: ArrayRef = match c.name.as_str() {
                "age" => Arc::new(
                    texts
                        .map(|t| t.parse::<i64>().unwrap())
                        .collect::<Int64Array>(),
                ),
                _ => Arc::new(texts.collect::<DictionaryArray<Int32Type>>()),
            };
            (c.name.clone(), array)
        })
        .collect();
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("adult.parquet");
    write_table(&parquet, &batch, Access::Public).unwrap();
    let options = PackOptions {
        groups: Default::default(),
        mode: karc::codec::DiffMode::default(),
        seal: &Seal::None,
    };
    let packed = pack_file(&config, &parquet, &options).unwrap();
    let (archive, restored) =
        Archive::from_bytes_and_restore_batch(&parquet, packed.clone(), ClaimCheck::Enforce, None)
            .unwrap();
    assert_same_table(&read_arrow(&parquet), &restored);
    assert_eq!(archive.rows(), 30_162);
    let canonical = Archive::from_bytes(&parquet, packed, ClaimCheck::Enforce)
        .unwrap()
        .restore(None)
        .unwrap();
    let back = Table::from_bytes(&parquet, &canonical, &CsvOptions::default()).unwrap();
    assert_eq!(back.columns, table.columns);
}
