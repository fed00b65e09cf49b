//! The public part holds only what the release shows (`spec/FORMAT.md` §6,
//! "What the public part may hold"; issue 30): published copies made by
//! every algorithm, batch, stream and a merge of distributed parts, on the
//! fixtures, a generated mixed table and a table of exact coordinates
//! configured by `karc init` (the airports case), are scanned for the QI
//! values their release hides. No hidden value may appear as a token of
//! any public byte: the decoded hierarchy labels and metadata strings, the
//! Brotli-decompressed `META` and `HIERARCHIES` and the other metadata
//! sections, and the whole file (the scan: `public_scan`).

use std::path::{Path, PathBuf};

use karc::api::distributed;
use karc::archive::seal::Seal;

use crate::common::{fixture, karc, outcome};
use crate::public_scan::scan_published;

/// Publishes `packed` into `dir` and scans the published copy for the
/// values of `original`'s QIs its release hides; returns the case's
/// findings (empty when nothing leaks) and how many values were hidden.
fn scan(dir: &Path, case: &str, packed: &Path, original: &Path) -> (Vec<String>, usize) {
    let published = dir.join(format!("{case}.pub.karc"));
    let (code, _, err) = outcome(&karc(&[
        "publish",
        packed.to_str().unwrap(),
        "-o",
        published.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{case}: publish: {err}");
    let bytes = std::fs::read(&published).unwrap();
    scan_published(case, packed, &published, bytes, original)
}

/// Packs `input` with `config` and `args` (unsealed), then [`scan`]s it.
fn pack_and_scan(
    dir: &Path,
    case: &str,
    config: &Path,
    input: &Path,
    args: &[&str],
) -> (Vec<String>, usize) {
    let out = dir.join(format!("{case}.karc"));
    let mut all = vec![
        "pack",
        "-c",
        config.to_str().unwrap(),
        input.to_str().unwrap(),
        "--no-encryption",
        "-o",
        out.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let (code, _, err) = outcome(&karc(&all));
    assert_eq!(code, 0, "{case}: pack {args:?}: {err}");
    scan(dir, case, &out, input)
}

/// Every batch algorithm.
const ALGORITHMS: &[&str] = &[
    "datafly",
    "ma-datafly",
    "incognito",
    "mondrian",
    "basic-mondrian",
    "topdown",
    "classfly",
    "classfly-plus-naive",
    "classfly-plus-complete",
    "classfly-plus-partial",
];

/// A generated table of `rows` rows: demographics (age, sex, a zip code,
/// education), an income with cents, and a diagnosis; deterministic.
fn mixed_table(rows: u64) -> String {
    let educations = [
        "Bachelors",
        "Masters",
        "HS-grad",
        "Doctorate",
        "Some-college",
    ];
    let diseases = ["flu", "asthma", "diabetes", "none"];
    let mut out = String::from("age,sex,zip,education,income,diagnosis\n");
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..rows {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out += &format!(
            "{},{},{:05},{},{}.{:02},{}\n",
            18 + x % 73,
            ["F", "M"][(x >> 8) as usize % 2],
            10_000 + (x >> 12) % 900 * 7,
            educations[(x >> 24) as usize % educations.len()],
            12_000 + (x >> 28) % 90_000,
            (x >> 40) % 100,
            diseases[(x >> 48) as usize % diseases.len()],
        );
    }
    out
}

/// A table of airports: exact coordinates with 8 decimals, as published
/// lists give them, an elevation and a name.
pub(crate) fn airports_table(rows: u64) -> String {
    let mut out = String::from("name,latitude,longitude,elevation\n");
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    for i in 0..rows {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let lat = (x % 13_000_000_000) as f64 / 1e8 - 60.0;
        let lon = ((x >> 20) % 36_000_000_000) as f64 / 1e8 - 180.0;
        out += &format!("Airport {i},{lat:.8},{lon:.8},{}\n", (x >> 50) % 3000);
    }
    out
}

/// `karc init`'s config of `input` (`qi`: the QIs), written beside it
/// with its hierarchies as files (which a stream needs).
pub(crate) fn init(input: &Path, qi: &str, sensitive: Option<&str>) -> PathBuf {
    let config = input.with_extension("toml");
    let hierarchies = input.with_extension("hierarchies");
    let mut args = vec![
        "init",
        input.to_str().unwrap(),
        "--qi",
        qi,
        "--hierarchies-dir",
        hierarchies.to_str().unwrap(),
        "-o",
        config.to_str().unwrap(),
    ];
    if let Some(s) = sensitive {
        args.extend(["--sensitive", s]);
    }
    let (code, _, err) = outcome(&karc(&args));
    assert_eq!(code, 0, "init {input:?}: {err}");
    config
}

/// Collects the findings of many cases and fails with all of them.
#[derive(Default)]
struct Findings {
    all: Vec<String>,
    cases: usize,
    hidden: usize,
}

impl Findings {
    fn add(&mut self, (findings, hidden): (Vec<String>, usize)) {
        self.all.extend(findings);
        self.cases += 1;
        self.hidden += hidden;
    }

    fn assert_none(&self) {
        assert!(self.hidden > 0, "the cases hide values: the scan can fail");
        assert!(
            self.all.is_empty(),
            "{} hidden values in the public bytes of {} published copies, e.g.:\n{}",
            self.all.len(),
            self.cases,
            self.all
                .iter()
                .take(20)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn small_tables_publish_no_hidden_value_by_any_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mixed = d.join("mixed.csv");
    std::fs::write(&mixed, mixed_table(600)).unwrap();
    let mixed_config = init(&mixed, "age,sex,zip,education,income", Some("diagnosis"));
    let airports = d.join("airports.csv");
    std::fs::write(&airports, airports_table(800)).unwrap();
    let airports_config = init(&airports, "latitude,longitude", None);
    let tables: [(&str, PathBuf, PathBuf, &str); 5] = [
        (
            "toy",
            fixture("arx-toy/test.toml"),
            fixture("arx-toy/test.csv"),
            "2",
        ),
        (
            "toy2",
            fixture("arx-toy/test2.toml"),
            fixture("arx-toy/test2.csv"),
            "2",
        ),
        (
            "italia",
            fixture("italia/italia.toml"),
            fixture("italia/italia.csv"),
            "2",
        ),
        ("mixed", mixed_config, mixed.clone(), "5"),
        ("airports", airports_config, airports.clone(), "5"),
    ];
    let mut findings = Findings::default();
    for (name, config, input, k) in &tables {
        if !config.exists() {
            // italia has hierarchies but no config of its own: karc init's.
            let input_copy = d.join(format!("{name}.csv"));
            std::fs::copy(input, &input_copy).unwrap();
            let made = init(&input_copy, "age,city_birth,zip_code", Some("disease"));
            for algorithm in ALGORITHMS {
                let case = format!("{name}-{algorithm}");
                findings.add(pack_and_scan(
                    d,
                    &case,
                    &made,
                    &input_copy,
                    &["-a", algorithm, "-k", k],
                ));
            }
            continue;
        }
        for algorithm in ALGORITHMS {
            let case = format!("{name}-{algorithm}");
            findings.add(pack_and_scan(
                d,
                &case,
                config,
                input,
                &["-a", algorithm, "-k", k],
            ));
        }
    }
    for (name, config, input) in [
        ("mixed", &tables[3].1, &mixed),
        ("airports", &tables[4].1, &airports),
    ] {
        for algorithm in ["fads", "castle"] {
            let case = format!("{name}-stream-{algorithm}");
            let args = [
                "--stream",
                "-a",
                algorithm,
                "-k",
                "5",
                "--delay",
                "50",
                "--group-rows",
                "200",
            ];
            findings.add(pack_and_scan(d, &case, config, input, &args));
        }
    }
    findings.assert_none();
}

#[test]
fn adult_publishes_no_hidden_value_batch_stream_or_merged() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (config, input) = (fixture("adult/adult.toml"), fixture("adult/adult.csv"));
    let mut findings = Findings::default();
    for algorithm in ["datafly", "incognito", "mondrian", "topdown", "classfly"] {
        let args = ["-a", algorithm, "-k", "5"];
        findings.add(pack_and_scan(
            d,
            &format!("adult-{algorithm}"),
            &config,
            &input,
            &args,
        ));
    }
    for algorithm in ["fads", "castle"] {
        let args = [
            "--stream",
            "-a",
            algorithm,
            "-k",
            "5",
            "--delay",
            "100",
            "--group-rows",
            "5000",
        ];
        findings.add(pack_and_scan(
            d,
            &format!("adult-stream-{algorithm}"),
            &config,
            &input,
            &args,
        ));
    }
    // A distributed pack (karc.spark.pack's path): parts merged into one
    // file, whose public hierarchies are the closure of the parts' nodes.
    let (parts, identity, expected) = crate::parts::parts(d, 10, 3);
    let merged = d.join("adult-merged.karc");
    distributed::merge_parts(&parts, &identity, Seal::None, &merged, "{}").unwrap();
    let canonical = d.join("adult-merged.csv");
    std::fs::write(&canonical, &expected).unwrap();
    findings.add(scan(d, "adult-merged", &merged, &canonical));
    findings.assert_none();
}

/// The scan finds what a 1.0 file publishes: its hierarchies whole, every
/// leaf (the ages Datafly generalizes) among them.
#[test]
fn the_scan_finds_the_leaves_of_a_whole_hierarchy() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = fixture("archive/compat/v1.0_plain_small.karc");
    let (findings, hidden) = scan(
        dir.path(),
        "v1.0",
        &v1,
        &fixture("archive/source/small.csv"),
    );
    assert!(hidden > 0);
    assert!(
        findings.iter().any(|f| f.contains("age value \"21\"")),
        "{findings:?}"
    );
    let v2 = fixture("archive/valid/plain_small.karc");
    let (findings, _) = scan(dir.path(), "2.0", &v2, &fixture("archive/source/small.csv"));
    assert!(findings.is_empty(), "{findings:?}");
}
