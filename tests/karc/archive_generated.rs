//! Generated CSV files (delimiters, quotes, padding, blank lines, line
//! endings) restore byte-identical from their archives.

use std::path::{Path, PathBuf};

use karc::archive::seal::Seal;
use karc::codec::DiffMode;
use proptest::prelude::*;

use crate::archive::{pack, restore};

/// One generated CSV file: its bytes, the delimiter and whether to trim.
#[derive(Debug, Clone)]
struct Generated {
    bytes: Vec<u8>,
    delimiter: u8,
    trim: bool,
}

fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-c]{1,2}",
        1 => Just(String::new()),
        1 => "[ a,;\"é東\r\n]{1,5}",
        1 => Just("?".to_owned()),
        1 => " ?[x-z] ?",
    ]
}

fn generated() -> impl Strategy<Value = Generated> {
    (2usize..5, 1usize..25).prop_flat_map(|(cols, rows)| {
        (
            proptest::collection::vec(proptest::collection::vec(cell(), cols), rows),
            proptest::collection::vec(any::<bool>(), rows * cols),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(
                move |(table, quote_anyway, semicolon, crlf, final_eol, trim)| {
                    let delimiter = if semicolon { b';' } else { b',' };
                    let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
                    let mut bytes = Vec::new();
                    let header: Vec<String> = (0..cols).map(|c| format!("c{c}")).collect();
                    let mut records = vec![header];
                    records.extend(table);
                    for (r, record) in records.iter().enumerate() {
                        for (c, text) in record.iter().enumerate() {
                            if c > 0 {
                                bytes.push(delimiter);
                            }
                            let special = text
                                .bytes()
                                .any(|b| b == delimiter || b == b'"' || b == b'\r' || b == b'\n');
                            let extra = r > 0 && quote_anyway[(r - 1) * cols + c];
                            if special || extra {
                                bytes.push(b'"');
                                bytes.extend_from_slice(text.replace('"', "\"\"").as_bytes());
                                bytes.push(b'"');
                            } else {
                                bytes.extend_from_slice(text.as_bytes());
                            }
                        }
                        if r + 1 < records.len() || final_eol {
                            bytes.extend_from_slice(eol);
                        }
                    }
                    Generated {
                        bytes,
                        delimiter,
                        trim,
                    }
                },
            )
    })
}

/// Writes the generated file with a config: column c0 a QI with a
/// one-level hierarchy over its values, c1 an identifier, the rest
/// insensitive.
fn write_generated(dir: &Path, g: &Generated) -> Option<(PathBuf, PathBuf)> {
    let csv = dir.join("g.csv");
    std::fs::write(&csv, &g.bytes).unwrap();
    let opts = karc::table::CsvOptions {
        delimiter: Some(g.delimiter),
        header: true,
        trim: g.trim,
    };
    // Files the CSV reader itself refuses (e.g. a row that is one empty
    // line) are outside this property.
    let table = karc::table::Table::from_bytes(&csv, &g.bytes, &opts).ok()?;
    let mut w = csv::WriterBuilder::new()
        .delimiter(b';')
        .from_path(dir.join("h.csv"))
        .unwrap();
    for v in table.columns[0].dict.values() {
        w.write_record([v, "*"]).unwrap();
    }
    w.flush().unwrap();
    let mut toml = format!(
        "[input]\ndelimiter = \"{}\"\ntrim = {}\n\
         [[columns]]\nname = \"c0\"\nrole = \"quasi\"\nhierarchy = \"h.csv\"\n\
         [[columns]]\nname = \"c1\"\nrole = \"identifier\"\n",
        g.delimiter as char, g.trim
    );
    for c in 2..table.columns.len() {
        toml.push_str(&format!(
            "[[columns]]\nname = \"c{c}\"\nrole = \"insensitive\"\n"
        ));
    }
    toml.push_str(&format!(
        "[privacy]\nk = {}\nsuppression_limit = 1.0\n",
        table.rows.min(2)
    ));
    let config = dir.join("g.toml");
    std::fs::write(&config, toml).unwrap();
    Some((config, csv))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn generated_tables_restore_byte_identical(g in generated(), paper in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        if let Some((config, csv)) = write_generated(dir.path(), &g) {
            let mode = if paper { DiffMode::Paper } else { DiffMode::default() };
            let bytes = pack(&config, &csv, None, None, mode, &Seal::None);
            let restored = restore(&bytes, None).unwrap();
            prop_assert_eq!(restored, g.bytes);
        }
    }
}
