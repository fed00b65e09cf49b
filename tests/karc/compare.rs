//! `karc compare`: the JSON rows carry every key, and their numbers agree
//! with each other (totals add up, ratios match the bytes and times).

use crate::common::{fixture, karc, outcome};

const KEYS: [&str; 14] = [
    "algorithm",
    "k",
    "mode",
    "original_bytes",
    "zip_original_bytes",
    "zip_release_bytes",
    "public_bytes",
    "private_bytes",
    "reduction_original_vs_zip",
    "reduction_release_vs_zip",
    "karc_pack_ms",
    "zip_ms",
    "karc_restore_ms",
    "unzip_ms",
];

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn json_rows_are_complete_and_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("sizes.svg");
    let config = fixture("adult/adult.toml");
    let input = fixture("adult/adult.csv");
    let o = karc(&[
        "compare",
        "-c",
        config.to_str().unwrap(),
        input.to_str().unwrap(),
        "--algorithms",
        "datafly,mondrian",
        "--ks",
        "5,50",
        "--repeats",
        "1",
        "--format",
        "json",
        "--chart",
        chart.to_str().unwrap(),
    ]);
    let (code, stdout, stderr) = outcome(&o);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["schema"], "karc.compare/1");
    let rows = doc["rows"].as_array().unwrap();
    let modes = rows
        .iter()
        .map(|r| r["mode"].as_str().unwrap().to_owned())
        .collect::<std::collections::BTreeSet<_>>();
    assert!(modes.len() >= 2, "every mode by default: {modes:?}");
    assert!(
        modes.contains(karc::codec::DiffMode::default().name()),
        "{modes:?}"
    );
    assert_eq!(rows.len(), 2 * 2 * modes.len());
    let original = std::fs::metadata(&input).unwrap().len();
    for r in rows {
        for key in KEYS {
            assert!(!r[key].is_null(), "{key} missing in {r}");
        }
        let f = |key: &str| r[key].as_f64().unwrap();
        assert_eq!(f("original_bytes"), original as f64);
        assert_eq!(f("total_bytes"), f("public_bytes") + f("private_bytes"));
        assert!(
            f("file_bytes") >= f("public_bytes") + f("sealed_bytes"),
            "{r}"
        );
        assert!(close(
            f("reduction_original_vs_zip"),
            1.0 - f("private_bytes") / f("zip_original_bytes")
        ));
        assert!(close(
            f("reduction_release_vs_zip"),
            1.0 - f("public_bytes") / f("zip_release_bytes")
        ));
        assert!(close(
            f("rate_original"),
            f("private_bytes") / f("original_bytes")
        ));
        assert!(close(
            f("rate_release"),
            f("public_bytes") / f("release_csv_bytes")
        ));
        assert!(close(f("pack_vs_zip"), f("karc_pack_ms") / f("zip_ms")));
        assert!(close(
            f("restore_vs_unzip"),
            f("karc_restore_ms") / f("unzip_ms")
        ));
        // The private part restores the original, so it cannot beat its entropy:
        // it is never empty, and it is smaller than zip's copy of the original.
        assert!(f("private_bytes") > 0.0 && f("private_bytes") < f("zip_original_bytes"));
    }
    // Issue 5's targets for the default mode: at least 60 % below zip on
    // the original and 55 % on the release, and below the paper's mode.
    for r in rows
        .iter()
        .filter(|r| r["mode"] == karc::codec::DiffMode::default().name())
    {
        let f = |key: &str| r[key].as_f64().unwrap();
        assert!(f("reduction_original_vs_zip") >= 0.60, "{r}");
        assert!(f("reduction_release_vs_zip") >= 0.55, "{r}");
        let paper = rows
            .iter()
            .find(|p| p["mode"] == "paper" && p["algorithm"] == r["algorithm"] && p["k"] == r["k"])
            .unwrap();
        assert!(
            f("total_bytes") < paper["total_bytes"].as_f64().unwrap(),
            "{r}"
        );
    }
    let svg = std::fs::read_to_string(&chart).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("datafly") && svg.contains("k=50"));
}

#[test]
fn unknown_mode_and_algorithm_are_bad_usage() {
    let config = fixture("adult/adult.toml");
    let input = fixture("adult/adult.csv");
    for (flag, value) in [("--mode", "gzip"), ("--algorithms", "magic")] {
        let o = karc(&[
            "compare",
            "-c",
            config.to_str().unwrap(),
            input.to_str().unwrap(),
            flag,
            value,
        ]);
        let (code, _, stderr) = outcome(&o);
        assert_eq!(code, 2, "{flag} {value}: {stderr}");
        assert!(stderr.contains(value), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
}

/// `karc compare --models t=0.2 --models l=3` of Mondrian on Adult (8 QIs,
/// salary-class sensitive) at `ks`, `more` arguments after, with `--json`:
/// its JSON document (the command must succeed).
fn compare_models(ks: &str, more: &[&str]) -> serde_json::Value {
    let config = fixture("adult/adult8.toml");
    let input = fixture("adult/adult.csv");
    let mut args = vec![
        "compare",
        "-c",
        config.to_str().unwrap(),
        input.to_str().unwrap(),
        "--algorithms",
        "mondrian",
        "--ks",
        ks,
        "--mode",
        "per-value-rans",
        "--repeats",
        "1",
        "--models",
        "t=0.2",
        "--models",
        "l=3",
        "--sensitive",
        "salary-class",
    ];
    args.extend(more);
    args.push("--json");
    let (code, stdout, stderr) = outcome(&karc(&args));
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// `--models`: per algorithm and k, k alone first, then each set; t=0.2
/// costs Mondrian information on Adult; a set no algorithm can meet (three
/// distinct values of a two-valued column) is a row with the refusal.
#[test]
fn models_rows_show_each_models_cost_beside_k_alone() {
    let doc = compare_models("5", &[]);
    assert_eq!(doc["rows"].as_array().unwrap().len(), 1);
    let rows = doc["models"].as_array().unwrap();
    let sets: Vec<&str> = rows.iter().map(|r| r["models"].as_str().unwrap()).collect();
    assert_eq!(sets, ["k", "t=0.2", "l=3"]);
    let ncp = |r: &serde_json::Value| r["metrics"]["ncp"].as_f64().unwrap();
    assert!(rows[0]["refused"].is_null() && rows[0]["ncp_increase"] == 0.0);
    assert!(ncp(&rows[1]) > ncp(&rows[0]) + 0.1, "{rows:?}");
    assert!(close(
        rows[1]["ncp_increase"].as_f64().unwrap(),
        ncp(&rows[1]) - ncp(&rows[0])
    ));
    let refused = rows[2]["refused"].as_str().unwrap();
    assert!(refused.contains("l = 3"), "{refused}");
    assert!(rows[2]["metrics"].is_null() && rows[2]["ncp_increase"].is_null());
}

/// `--models --format csv`: the model rows, one per algorithm, k and set,
/// the same as the JSON document of the same run.
#[test]
fn models_rows_as_csv_are_the_json_rows() {
    let dir = tempfile::tempdir().unwrap();
    let csv_path = dir.path().join("models.csv");
    let doc = compare_models(
        "5,10",
        &["--format", "csv", "-o", csv_path.to_str().unwrap()],
    );
    let rows = doc["models"].as_array().unwrap();
    assert_eq!(rows.len(), 6, "1 algorithm x 2 k x (k alone + 2 sets)");
    let mut reader = csv::Reader::from_path(&csv_path).unwrap();
    let header = reader.headers().unwrap().clone();
    let first: Vec<&str> = header.iter().take(4).collect();
    assert_eq!(first, ["algorithm", "k", "models", "refused"]);
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), rows.len());
    let field = |r: &csv::StringRecord, name: &str| {
        r[header.iter().position(|h| h == name).unwrap()].to_owned()
    };
    for (r, j) in records.iter().zip(rows) {
        assert_eq!(field(r, "algorithm"), j["algorithm"].as_str().unwrap());
        assert_eq!(field(r, "k"), j["k"].to_string());
        assert_eq!(field(r, "models"), j["models"].as_str().unwrap());
        assert_eq!(field(r, "refused"), j["refused"].as_str().unwrap_or(""));
        for (name, value) in [
            ("ncp", &j["metrics"]["ncp"]),
            ("glm", &j["metrics"]["glm"]),
            ("cavg", &j["metrics"]["cavg"]),
            ("ncp_increase", &j["ncp_increase"]),
            ("glm_increase", &j["glm_increase"]),
        ] {
            match value.as_f64() {
                // Six decimals in the CSV.
                Some(x) => {
                    let shown: f64 = field(r, name).parse().unwrap();
                    assert!(
                        (shown - x).abs() <= 1e-6 * x.abs().max(1.0),
                        "{name}: {r:?}"
                    );
                }
                None => assert_eq!(field(r, name), "", "{name}: {r:?}"),
            }
        }
        assert_eq!(
            field(r, "suppressed"),
            j["suppressed"]
                .as_u64()
                .map_or(String::new(), |s| s.to_string())
        );
    }
    assert!(field(&records[5], "refused").contains("l = 3"));
}

/// Bad model text, or models without a sensitive column: one line, exit 2.
#[test]
fn bad_models_exit_2_with_one_line() {
    let config = fixture("adult/adult8.toml");
    let input = fixture("adult/adult.csv");
    for (models, sensitive, says) in [
        ("t=0.2,q=1", "salary-class", "unknown model \"q\""),
        ("t=x", "salary-class", "t: expected a number"),
        ("recursive_cl=3", "salary-class", "expected C:L"),
        ("t=0.2", "age", "not a sensitive column"),
    ] {
        let o = karc(&[
            "compare",
            "-c",
            config.to_str().unwrap(),
            input.to_str().unwrap(),
            "--ks",
            "5",
            "--models",
            models,
            "--sensitive",
            sensitive,
        ]);
        let (code, stdout, stderr) = outcome(&o);
        assert_eq!(code, 2, "{models}: {stderr}");
        assert!(stdout.is_empty(), "{models}: {stdout}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{models}: {stderr}");
        assert!(stderr.contains(says), "{models}: {stderr}");
    }
}
