//! Random tables with the awkward columns of real life, packed and
//! restored byte for byte: ids in and out of order, integer and decimal
//! QIs with missing and oddly spelled cells, a categorical QI with a
//! hierarchy, amounts spelled every way a number can be, free text with
//! delimiters, quotes, newlines and non-ASCII letters; LF or CRLF, with or
//! without a final newline.

use std::fmt::Write as _;
use std::path::Path;

use karc::archive::reader::{Archive, ClaimCheck};
use karc::archive::seal::Seal;
use karc::archive::writer::{self, PackOptions};
use karc::codec::DiffMode;
use karc::config::Config;
use proptest::prelude::*;

/// Cells that are not canonical numbers, mixed into numeric columns.
const ODD_NUMBERS: [&str; 9] = ["", "NA", "007", "+4", "1e5", "1,000", "-0", ".5", "3."];
/// Free-text cells: delimiters, quotes, line breaks, non-ASCII, empty.
const TEXTS: [&str; 8] = [
    "plain",
    "with, comma",
    "say \"hi\"",
    "two\nlines",
    "café ☕",
    "",
    " padded ",
    "x;y",
];

#[derive(Debug, Clone)]
struct Row {
    id: u32,
    age: Option<u8>,
    ratio: (i64, u8),
    city: u8,
    amount: (i64, u8),
    text: u8,
    odd: u8,
}

fn row() -> impl Strategy<Value = Row> {
    (
        any::<u32>(),
        prop::option::weighted(0.9, 18u8..90),
        (-2_000_000i64..2_000_000, 0u8..4),
        0u8..6,
        (0i64..10_000_000, 0u8..12),
        0u8..8,
        0u8..30,
    )
        .prop_map(|(id, age, ratio, city, amount, text, odd)| Row {
            id,
            age,
            ratio,
            city,
            amount,
            text,
            odd,
        })
}

/// A decimal text of `v / 10^d`.
fn decimal(v: i64, d: u8) -> String {
    let unit = 10i64.pow(u32::from(d));
    let sign = if v < 0 { "-" } else { "" };
    match d {
        0 => v.to_string(),
        _ => format!(
            "{sign}{}.{:0w$}",
            v.abs() / unit,
            v.abs() % unit,
            w = d as usize
        ),
    }
}

/// A CSV field, quoted when it must be.
fn field(s: &str, out: &mut String) {
    if s.contains([',', '"', '\n', '\r']) {
        write!(out, "\"{}\"", s.replace('"', "\"\"")).unwrap();
    } else {
        out.push_str(s);
    }
}

fn table(rows: &[Row], sequential: bool, crlf: bool, final_newline: bool) -> String {
    let eol = if crlf { "\r\n" } else { "\n" };
    let mut out = String::from("id,age,ratio,city,amount,note");
    for (i, r) in rows.iter().enumerate() {
        out.push_str(eol);
        let id = if sequential { i as u32 } else { r.id };
        let age = match r.age {
            Some(a) if r.odd != 1 => a.to_string(),
            _ => String::new(),
        };
        let ratio = match r.odd {
            2 => "?".to_owned(),
            _ => decimal(r.ratio.0, 2 + r.ratio.1 % 2 * 4),
        };
        let amount = match r.odd as usize {
            o @ 3..=11 => ODD_NUMBERS[o - 3].to_owned(),
            _ => decimal(r.amount.0, r.amount.1 % 4),
        };
        let cells = [
            id.to_string(),
            age,
            ratio,
            format!("c{}", r.city),
            amount,
            TEXTS[r.text as usize].to_owned(),
        ];
        for (j, c) in cells.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            field(c, &mut out);
        }
    }
    if final_newline {
        out.push_str(eol);
    }
    out
}

const CONFIG: &str = r#"
[input]
delimiter = ","
header = true

[[columns]]
name = "id"
role = "identifier"

[[columns]]
name = "age"
role = "quasi"
type = "integer"

[[columns]]
name = "ratio"
role = "quasi"
type = "decimal"

[[columns]]
name = "city"
role = "quasi"
type = "categorical"
hierarchy = "city.csv"

[[columns]]
name = "amount"
role = "insensitive"

[[columns]]
name = "note"
role = "sensitive"

[privacy]
k = 2
suppression_limit = 0.5

[algorithm]
name = "mondrian"
"#;

/// Packs `csv` with the config above (k and algorithm given) in `dir`.
fn pack(dir: &Path, csv: &str, k: usize, algorithm: &str, mode: DiffMode) -> Vec<u8> {
    std::fs::write(dir.join("t.csv"), csv).unwrap();
    std::fs::write(dir.join("t.toml"), CONFIG).unwrap();
    let hierarchy: String = (0..6).map(|c| format!("c{c};g{};*\n", c / 3)).collect();
    std::fs::write(dir.join("city.csv"), hierarchy).unwrap();
    let mut config = Config::load(&dir.join("t.toml")).unwrap();
    config.privacy.k = Some(k);
    config.algorithm.name = algorithm.to_owned();
    let options = PackOptions {
        groups: Default::default(),
        mode,
        seal: &Seal::None,
    };
    writer::pack_file(&config, &dir.join("t.csv"), &options).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn mixed_tables_restore_byte_for_byte(
        rows in prop::collection::vec(row(), 2..150),
        sequential in any::<bool>(),
        crlf in any::<bool>(),
        final_newline in any::<bool>(),
        k in 1usize..4,
        algorithm in prop::sample::select(vec!["mondrian", "topdown", "basic-mondrian"]),
        mode in prop::sample::select(DiffMode::ALL.to_vec()),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let csv = table(&rows, sequential, crlf, final_newline);
        let k = k.min(rows.len());
        let bytes = pack(dir.path(), &csv, k, algorithm, mode);
        let archive = Archive::from_bytes(Path::new("t.karc"), bytes, ClaimCheck::Enforce).unwrap();
        let restored = archive.restore(None).unwrap();
        prop_assert!(restored == csv.as_bytes(), "{} rows, {algorithm}, k = {k}, {mode}", rows.len());
    }
}

/// The same generator at a few thousand rows: long enough for the coders'
/// large-table paths (many classes, row blocks, threads).
#[test]
fn a_long_mixed_table_restores_byte_for_byte() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let rows: Vec<Row> = (0..6000)
        .map(|_| Row {
            id: next(1 << 31) as u32,
            age: (next(20) > 0).then(|| 18 + next(70) as u8),
            ratio: (next(4_000_000) as i64 - 2_000_000, next(4) as u8),
            city: next(6) as u8,
            amount: (next(10_000_000) as i64, next(12) as u8),
            text: next(8) as u8,
            odd: next(30) as u8,
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    for sequential in [true, false] {
        let csv = table(&rows, sequential, sequential, true);
        for mode in [DiffMode::PerValueRans, DiffMode::Paper] {
            let bytes = pack(dir.path(), &csv, 10, "mondrian", mode);
            let archive =
                Archive::from_bytes(Path::new("t.karc"), bytes, ClaimCheck::Enforce).unwrap();
            assert!(archive.restore(None).unwrap() == csv.as_bytes(), "{mode}");
        }
    }
}
