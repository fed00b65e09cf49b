//! The benchmark runner's quick path on a small generated table: the report
//! has a row for every algorithm, every difference mode and every (size,
//! stage), and its figures are numbers (times positive, peak memory above
//! the idle floor). Speed itself is the runner's business, not the test's.

use std::process::Command;

use karc::anonymize::Algorithm;
use karc::codec::DiffMode;
use karc::config::Config;
use karc::dataset::Dataset;
use karc_tools::adult_gen::{adult_fixture, generate};

/// The cells of the Markdown table row starting with `| first |`.
fn row<'a>(report: &'a str, first: &str) -> Vec<&'a str> {
    let prefix = format!("| {first} |");
    let line = report
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no row {prefix:?} in\n{report}"));
    line.trim_matches('|').split('|').map(str::trim).collect()
}

fn number(cell: &str) -> f64 {
    cell.parse()
        .unwrap_or_else(|_| panic!("{cell:?} is not a number"))
}

#[test]
fn quick_report_has_every_row_and_its_numbers_parse() {
    let dir = tempfile::tempdir().unwrap();
    let config_path = adult_fixture("adult.toml");
    let source = Dataset::load(
        &Config::load(&config_path).unwrap(),
        &adult_fixture("adult.csv"),
    )
    .unwrap();
    let csv = dir.path().join("small.csv");
    let mut bytes = Vec::new();
    generate(&source, 1500, 7, &mut bytes).unwrap();
    std::fs::write(&csv, &bytes).unwrap();

    let out = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(["--quick", "--runs", "1", "--sizes", "400,1200"])
        .arg("--config")
        .arg(&config_path)
        .arg("--input")
        .arg(&csv)
        .output()
        .unwrap();
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{}\n{report}",
        String::from_utf8_lossy(&out.stderr)
    );

    // 1. Every algorithm, and the yardstick: wall ms, CPU ms, ratio.
    for first in Algorithm::ALL
        .iter()
        .map(|a| a.name())
        .chain(["read + dictionary-encode the CSV (yardstick)"])
    {
        let cells = row(&report, first);
        assert_eq!(cells.len(), 4, "{cells:?}");
        assert!(cells[1..].iter().all(|c| number(c) >= 0.0), "{cells:?}");
    }

    // 2. Every difference mode: sizes are bytes, ratios match their times.
    for mode in DiffMode::ALL {
        let cells = row(&report, &mode.to_string());
        assert_eq!(cells.len(), 11, "{cells:?}");
        let n: Vec<f64> = cells[1..].iter().map(|c| number(c)).collect();
        let (csv_b, zip_b, karc_b) = (n[0], n[1], n[2]);
        assert_eq!(csv_b, bytes.len() as f64);
        assert!(zip_b > 0.0 && zip_b < csv_b && karc_b > 0.0, "{cells:?}");
        let (zip_ms, pack_ms, pack_ratio) = (n[3], n[4], n[5]);
        let (unzip_ms, restore_ms, restore_ratio) = (n[7], n[8], n[9]);
        assert!(zip_ms > 0.0 && unzip_ms > 0.0, "{cells:?}");
        // Times are printed with 2 decimals, ratios (of the unrounded
        // times) with 3: the ratio lies within what the rounded times allow.
        let close = |ratio: f64, a: f64, b: f64| {
            let (lo, hi) = (
                (a - 0.005).max(0.0) / (b + 0.005),
                (a + 0.005) / (b - 0.005),
            );
            ratio >= lo - 0.0005 && (b <= 0.005 || ratio <= hi + 0.0005)
        };
        assert!(close(pack_ratio, pack_ms, zip_ms), "{cells:?}");
        assert!(close(restore_ratio, restore_ms, unzip_ms), "{cells:?}");
    }

    // 4. Huffman decoding: every stream and the total, speeds and ratios.
    for first in ["adult `fnlwgt`", "Zipf(1.1), 4096 symbols", "all streams"] {
        let cells = row(&report, first);
        assert_eq!(cells.len(), 11, "{cells:?}");
        let n: Vec<f64> = cells[3..].iter().map(|c| number(c)).collect();
        assert!(n.iter().all(|&x| x > 0.0), "{cells:?}");
        let ratio = n[1] / n[3];
        assert!((n[5] - ratio).abs() <= 0.02 * ratio + 0.01, "{cells:?}");
        let ratio = n[2] / n[6];
        assert!((n[7] - ratio).abs() <= 0.02 * ratio + 0.01, "{cells:?}");
    }

    // 3. Every size and stage, with its own peak memory.
    let floor: f64 = report
        .split("A child that only starts peaks at ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .map(number)
        .expect("the idle floor is stated");
    let stages = [
        ("-", "load"),
        ("mondrian", "anonymize"),
        ("mondrian", "pack"),
        ("mondrian", "restore"),
        ("datafly", "anonymize"),
        ("datafly", "pack"),
        ("datafly", "restore"),
    ];
    for rows in ["400", "1200"] {
        for (algorithm, stage) in stages {
            let line = report
                .lines()
                .find(|l| {
                    let c: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
                    c.len() == 8 && c[0] == rows && c[2] == algorithm && c[3] == stage
                })
                .unwrap_or_else(|| panic!("no scaling row {rows} {algorithm} {stage}\n{report}"));
            let c: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            assert!(number(c[1]) > 0.0 && number(c[4]) > 0.0, "{line}");
            assert!(number(c[5]) >= 0.0, "{line}");
            assert!(number(c[6]) >= floor, "{line}");
        }
    }
    // The growth table: one row per stage, verdicts yes/no.
    assert!(
        report.contains("### Growth from 400 to 1200 rows"),
        "{report}"
    );
    let growth = report.split("### Growth").nth(1).unwrap();
    for (algorithm, stage) in stages {
        let prefix = format!("| {algorithm} | {stage} |");
        let line = growth
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no growth row {prefix}\n{growth}"));
        let c: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(c.len(), 8, "{line}");
        for i in [2, 3, 4, 6] {
            number(c[i]);
        }
        assert!(["yes", "no"].contains(&c[5]) && c[7] == "yes", "{line}");
    }
}
