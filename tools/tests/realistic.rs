//! `gen-table`'s tables (`karc_tools::realistic`): deterministic, with the
//! columns they promise, loadable with their configs, and packed and
//! restored byte for byte.

use std::path::Path;
use std::process::Command;

use karc::archive::reader::{Archive, ClaimCheck};
use karc::archive::seal::Seal;
use karc::archive::writer::{self, PackOptions};
use karc::codec::DiffMode;
use karc::config::Config;
use karc::dataset::Dataset;
use karc_tools::bench::Prepared;
use karc_tools::realistic::{Kind, config_toml, hierarchies, write_config, write_csv};

fn table(kind: Kind, rows: u64, seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    write_csv(kind, rows, seed, &mut out).unwrap();
    out
}

/// The records of a generated table, header first.
fn records(bytes: &[u8]) -> Vec<csv::StringRecord> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(bytes)
        .records()
        .map(Result::unwrap)
        .collect()
}

fn column(records: &[csv::StringRecord], name: &str) -> Vec<String> {
    let at = records[0].iter().position(|h| h == name).unwrap();
    records[1..].iter().map(|r| r[at].to_owned()).collect()
}

/// `text` is `[-]digits.digits` with exactly `decimals` digits after the point.
fn has_decimals(text: &str, decimals: usize) -> bool {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    matches!(unsigned.split_once('.'), Some((whole, frac))
        if !whole.is_empty() && whole.bytes().all(|b| b.is_ascii_digit())
            && frac.len() == decimals && frac.bytes().all(|b| b.is_ascii_digit()))
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_a_longer_table_extends_a_shorter_one() {
    for kind in Kind::ALL {
        let a = table(kind, 700, 7);
        assert_eq!(a, table(kind, 700, 7), "{kind:?}");
        assert_ne!(a, table(kind, 700, 8), "{kind:?}: another seed, other rows");
        let short = table(kind, 300, 7);
        assert!(
            a.starts_with(&short),
            "{kind:?}: rows do not depend on the row count"
        );
        assert_eq!(records(&a).len(), 701, "{kind:?}: header and 700 rows");
    }
}

#[test]
fn every_promised_column_is_there_with_its_spelling_and_its_empty_cells() {
    for kind in Kind::ALL {
        let rows = 4000;
        let records = records(&table(kind, rows, 1));
        let names: Vec<&str> = kind.columns().iter().map(|c| c.name).collect();
        assert_eq!(records[0].iter().collect::<Vec<_>>(), names, "{kind:?}");
        assert!(
            records.iter().all(|r| r.len() == names.len()),
            "{kind:?}: ragged rows"
        );

        // The identifier counts the rows from 0.
        let ids = column(&records, kind.columns()[0].name);
        assert!(
            ids.iter().enumerate().all(|(i, id)| *id == i.to_string()),
            "{kind:?}"
        );

        for c in kind.columns() {
            let cells = column(&records, c.name);
            let empty = cells.iter().filter(|v| v.is_empty()).count();
            if c.missing_per_mille == 0 {
                assert_eq!(empty, 0, "{kind:?} {}: never empty", c.name);
            } else {
                // Expected rows * per_mille / 1000; at least a third of it.
                let expected = rows as usize * c.missing_per_mille as usize / 1000;
                assert!(
                    (expected / 3..expected * 3).contains(&empty),
                    "{kind:?} {}: {empty} empty cells, about {expected} expected",
                    c.name
                );
            }
        }
        let lat = column(&records, "latitude");
        let lon = column(&records, "longitude");
        assert!(
            lat.iter()
                .zip(&lon)
                .all(|(a, o)| a.is_empty() == o.is_empty())
        );
        for v in lat.iter().chain(&lon).filter(|v| !v.is_empty()) {
            assert!(has_decimals(v, 6), "{kind:?}: coordinate {v:?}");
        }
        assert!(
            lon.iter().any(|v| v.starts_with('-')),
            "{kind:?}: western longitudes"
        );
        let ages = column(&records, "age");
        for a in ages.iter().filter(|v| !v.is_empty()) {
            assert!(
                (18..=90).contains(&a.parse::<u32>().unwrap()),
                "{kind:?}: age {a}"
            );
        }
    }
}

#[test]
fn the_mixed_table_has_zip_codes_timestamps_decimals_and_quoted_text() {
    let rows = 5000;
    let bytes = table(Kind::Mixed, rows, 2);
    let records = records(&bytes);

    let zips = column(&records, "zip");
    let mut distinct = zips.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(
        (100..=480).contains(&distinct.len()),
        "{} zip codes",
        distinct.len()
    );
    assert!(
        zips.iter()
            .all(|z| z.len() == 5 && z.bytes().all(|b| b.is_ascii_digit()))
    );
    assert!(zips.iter().any(|z| z.starts_with('0')), "leading zeros");
    // Skewed: the most frequent code is far above the mean share.
    let top = distinct
        .iter()
        .map(|d| zips.iter().filter(|z| *z == d).count())
        .max()
        .unwrap();
    assert!(
        top > 10 * rows as usize / distinct.len(),
        "top zip {top} times"
    );

    // ISO timestamps, mostly but not always in order.
    let stamps = column(&records, "filed_at");
    assert!(
        stamps
            .iter()
            .all(|s| s.len() == 20 && s.as_bytes()[10] == b'T' && s.ends_with('Z'))
    );
    assert_eq!(stamps[0].get(..4), Some("2023"));
    let backwards = stamps.windows(2).filter(|w| w[1] < w[0]).count();
    assert!(
        backwards > 0 && backwards < rows as usize / 10,
        "{backwards} out of order"
    );

    for v in column(&records, "amount").iter().filter(|v| !v.is_empty()) {
        assert!(has_decimals(v, 2), "amount {v:?}");
    }
    let ratios = column(&records, "coverage_ratio");
    for v in ratios.iter().filter(|v| !v.is_empty()) {
        assert!(has_decimals(v, 9) && v.starts_with("0."), "ratio {v:?}");
    }
    assert!(
        ratios.iter().any(|v| v.ends_with("00000000")),
        "round ratios keep their zeros"
    );

    for (name, low, high) in [
        ("procedure", 10, 50),
        ("payer", 5, 20),
        ("diagnosis", 10, 50),
    ] {
        let mut values = column(&records, name);
        values.retain(|v| !v.is_empty());
        values.sort_unstable();
        values.dedup();
        assert!(
            (low..=high).contains(&values.len()),
            "{name}: {} values",
            values.len()
        );
    }

    // Free text: commas and quotes inside fields, so the CSV quotes them.
    let notes = column(&records, "note");
    assert!(notes.iter().any(|n| n.contains(',')));
    assert!(notes.iter().any(|n| n.contains('"')));
    assert!(
        bytes.windows(2).any(|w| w == b"\"\""),
        "an escaped quote in the CSV"
    );
}

#[test]
fn the_bundled_configs_are_what_the_generator_writes() {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR"));
    for kind in Kind::ALL {
        let bundled = std::fs::read_to_string(kind.bundled_config()).unwrap();
        assert_eq!(
            bundled,
            config_toml(kind, "hierarchies"),
            "{kind:?}: regenerate it"
        );
        for (name, text) in hierarchies(kind) {
            let file = tools.join("hierarchies").join(name);
            assert_eq!(
                std::fs::read_to_string(&file).unwrap(),
                text,
                "{}",
                file.display()
            );
        }
    }
}

/// Loads `csv` with `config`, anonymizes it with the config's algorithm
/// (Mondrian, k = 10), packs it unsealed and restores it: the same bytes.
fn round_trip(config: &Path, csv: &Path, rows: usize) {
    let config = Config::load(config).unwrap();
    let data = Dataset::load(&config, csv).unwrap();
    assert_eq!(data.rows(), rows);
    let p = Prepared::of(config, data).unwrap();
    assert!(p.released.iter().all(|c| c.rows.len() == rows));
    let original = std::fs::read(csv).unwrap();
    let options = PackOptions {
        groups: Default::default(),
        mode: DiffMode::default(),
        seal: &Seal::None,
    };
    let packed = writer::pack(&p.anonymization(), &original, &options).unwrap();
    let (_, restored) =
        Archive::from_bytes_and_restore(csv, packed, ClaimCheck::Enforce, None).unwrap();
    assert!(restored == original, "{}: restore differs", csv.display());
}

#[test]
fn each_table_loads_with_its_bundled_config_and_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    for kind in Kind::ALL {
        let csv = dir.path().join(format!("{}.csv", kind.name()));
        std::fs::write(&csv, table(kind, 2000, 3)).unwrap();
        round_trip(&kind.bundled_config(), &csv, 2000);
    }
}

#[test]
fn gen_table_writes_a_config_that_loads_with_hierarchies_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("claims.csv");
    let inside = dir.path().join("conf/claims.toml");
    std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
    // Hierarchies outside the config's directory: named by absolute path.
    let outside = dir.path().join("h");
    let status = Command::new(env!("CARGO_BIN_EXE_gen-table"))
        .args(["--rows", "2000", "--seed", "5", "--out"])
        .arg(&csv)
        .arg("--config")
        .arg(&inside)
        .arg("--hierarchies")
        .arg(&outside)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read(&csv).unwrap(), table(Kind::Mixed, 2000, 5));
    assert!(
        std::fs::read_to_string(&inside)
            .unwrap()
            .contains(outside.to_str().unwrap())
    );
    round_trip(&inside, &csv, 2000);

    // The library call with hierarchies beside the config: named relatively.
    let beside = dir.path().join("numeric.toml");
    write_config(Kind::Numeric, &beside, dir.path()).unwrap();
    let text = std::fs::read_to_string(&beside).unwrap();
    assert!(!text.contains("hierarchy"), "numeric QIs need no hierarchy");
    let numeric = dir.path().join("numeric.csv");
    std::fs::write(&numeric, table(Kind::Numeric, 2000, 5)).unwrap();
    round_trip(&beside, &numeric, 2000);

    write_config(Kind::Mixed, &beside, &dir.path().join("hier")).unwrap();
    let text = std::fs::read_to_string(&beside).unwrap();
    assert!(
        text.contains("hierarchy = \"hier/realistic_zip.csv\""),
        "{text}"
    );
}

#[test]
fn gen_table_streams_to_standard_output_and_rejects_bad_flags() {
    let out = Command::new(env!("CARGO_BIN_EXE_gen-table"))
        .args(["--kind", "numeric", "--rows", "50", "--seed", "9"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, table(Kind::Numeric, 50, 9));

    let bad = Command::new(env!("CARGO_BIN_EXE_gen-table"))
        .args(["--kind", "wide"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("wide"));

    let dir = tempfile::tempdir().unwrap();
    let unwritable = dir.path().join("missing/dir/t.csv");
    let failed = Command::new(env!("CARGO_BIN_EXE_gen-table"))
        .args(["--rows", "5", "--out"])
        .arg(&unwritable)
        .output()
        .unwrap();
    assert_eq!(failed.status.code(), Some(2));
    let err = String::from_utf8_lossy(&failed.stderr);
    assert!(
        err.contains("gen-table: error:") && err.contains("t.csv"),
        "{err}"
    );
}
