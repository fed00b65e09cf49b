//! Streams (FADS, CASTLE) on `gen-table --kind mixed` tables, whose numeric
//! quasi-identifiers (age, and amount made one here) have empty cells: a
//! missing value is a value of its own, as in the batch anonymizers. Checked
//! independently of karc's verifier: every released class holds k rows,
//! every released cell covers its original (an empty cell is never inside
//! an interval), the reported loss is `metrics`' GLM, and `pack --stream`
//! restores the table byte for byte.

use std::collections::HashMap;
use std::path::Path;

use karc::archive::reader::{Archive, ClaimCheck};
use karc::archive::seal::Seal;
use karc::archive::stream_pack::{StreamPackOptions, pack_stream};
use karc::cell::Cell;
use karc::codec::DiffMode;
use karc::config::Config;
use karc::dataset::Dataset;
use karc::io::{Access, Output};
use karc::privacy::PrivacyModel;
use karc::release::Release;
use karc::stream::{Published, Schema, StreamAlgorithm, StreamParams, run_csv};
use karc::table::Table;
use karc_tools::realistic::{Kind, write_config, write_csv};

/// The mixed kind's config (its hierarchies beside it) with `amount`, a
/// decimal with empty cells, as a fourth quasi-identifier.
fn config(dir: &Path) -> Config {
    let path = dir.join("mixed.toml");
    write_config(Kind::Mixed, &path, &dir.join("hierarchies")).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replace(
        "name = \"amount\"\nrole = \"insensitive\"",
        "name = \"amount\"\nrole = \"quasi\"",
    );
    assert!(text.contains("name = \"amount\"\nrole = \"quasi\""));
    std::fs::write(&path, text).unwrap();
    Config::load(&path).unwrap()
}

fn table(rows: u64, seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    write_csv(Kind::Mixed, rows, seed, &mut out).unwrap();
    out
}

/// One released row: its number, QI cells, released QI texts and the
/// original QI texts.
struct Out {
    row: u64,
    cells: Vec<Cell>,
    released: Vec<String>,
    original: Vec<String>,
}

fn run(config: &Config, csv: &[u8], algorithm: StreamAlgorithm, k: usize) -> Vec<Out> {
    let (outs, _) = run_with_summary(config, csv, algorithm, k);
    outs
}

fn run_with_summary(
    config: &Config,
    csv: &[u8],
    algorithm: StreamAlgorithm,
    k: usize,
) -> (Vec<Out>, karc::stream::Summary) {
    let mut outs = Vec::new();
    let mut params = StreamParams::new(k, 40 * k);
    params.beta = 20;
    let summary = run_csv(
        config,
        csv,
        algorithm,
        params,
        None,
        |schema: &Schema, p: Published, _| {
            let columns: Vec<usize> = schema.qis.iter().map(|q| q.qi.column).collect();
            outs.push(Out {
                row: p.row,
                released: columns
                    .iter()
                    .map(|&c| schema.released_text(&p, c).into_owned())
                    .collect(),
                original: columns.iter().map(|&c| p.record[c].to_owned()).collect(),
                cells: p.cells,
            });
        },
    )
    .unwrap();
    (outs, summary)
}

/// Whether released text `shown` of a numeric QI covers `original`: the
/// value itself, `*`, or an interval `lo~hi` of numbers holding it.
fn covers_number(shown: &str, original: &str) -> bool {
    if shown == original || shown == "*" {
        return true;
    }
    let (Some((lo, hi)), Ok(x)) = (shown.split_once('~'), original.parse::<f64>()) else {
        return false;
    };
    let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
    lo <= x && x <= hi
}

/// The QIs in config order are age, sex, zip, amount; age and amount are
/// numeric.
const NUMERIC: [usize; 2] = [0, 3];

/// Every row once; every class of released texts (rows not all `*`) at
/// least k rows; every numeric cell covering its original.
fn check(outs: &[Out], rows: usize, k: usize, label: &str) {
    let mut seen = vec![false; rows + 1];
    for o in outs {
        assert!(!seen[o.row as usize], "{label}: row {} twice", o.row);
        seen[o.row as usize] = true;
    }
    assert_eq!(outs.len(), rows, "{label}");
    let mut classes: HashMap<&[String], usize> = HashMap::new();
    for o in outs {
        if !o.released.iter().all(|t| t == "*") {
            *classes.entry(&o.released).or_default() += 1;
        }
        for q in NUMERIC {
            assert!(
                covers_number(&o.released[q], &o.original[q]),
                "{label}: row {}: {:?} released as {:?}",
                o.row,
                o.original[q],
                o.released[q]
            );
        }
    }
    for (class, &n) in &classes {
        assert!(n >= k, "{label}: class {class:?} of {n} rows, k = {k}");
    }
}

#[test]
fn streams_release_missing_numbers_as_values_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let csv = table(3_000, 11);
    for (algorithm, rows, k) in [
        (StreamAlgorithm::Fads, 3_000, 10),
        (StreamAlgorithm::Castle, 1_500, 5),
    ] {
        let csv: Vec<u8> = prefix(&csv, rows);
        let label = algorithm.name();
        let (outs, summary) = run_with_summary(&config, &csv, algorithm, k);
        check(&outs, rows, k, label);
        // The table has empty ages and amounts; some stay empty in the
        // release (a cluster of them), none is dropped or refused.
        let empty = |q: usize| outs.iter().filter(|o| o.original[q].is_empty()).count();
        let (ages, amounts) = (empty(0), empty(3));
        assert!(
            ages >= 3 && amounts >= 10,
            "{label}: {ages} ages, {amounts} amounts"
        );
        let kept = outs
            .iter()
            .filter(|o| NUMERIC.iter().any(|&q| o.released[q].is_empty()))
            .count();
        let starred = outs
            .iter()
            .filter(|o| NUMERIC.iter().any(|&q| o.released[q] == "*"))
            .count();
        assert!(
            kept + starred > 0,
            "{label}: {kept} kept, {starred} starred"
        );

        // The reported loss is metrics' GLM of the same release, `*` cells
        // of numeric QIs at a full width.
        let options = config.csv_options().unwrap();
        let table = Table::from_bytes("mixed.csv".as_ref(), &csv, &options).unwrap();
        let data = Dataset::bind(&config, table).unwrap();
        let mut cells = vec![vec![Cell::Suppressed; rows]; 4];
        for o in &outs {
            for (q, c) in o.cells.iter().enumerate() {
                cells[q][o.row as usize - 1] = *c;
            }
        }
        let model = PrivacyModel::from_config(&config, &data).unwrap();
        let metrics = karc::metrics::measure(&data, &Release::from_cells(&cells), &model);
        assert!(
            (metrics.glm - summary.avg_infoloss).abs() < 1e-9,
            "{label}: GLM {} vs stream {}",
            metrics.glm,
            summary.avg_infoloss
        );
    }
}

/// The smallest case, by hand: amounts `""` (three), `?` (one, two tokens in
/// all) and two numbers; with k = 2 every released amount is an interval,
/// a token of its own or `*`, covers its original, and the lone `?` can only
/// be `*`.
#[test]
fn tokens_and_numbers_in_one_cluster_release_a_star() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.toml");
    std::fs::write(
        &path,
        "[input]\nheader = true\n\n[[columns]]\nname = \"id\"\nrole = \"identifier\"\n\n\
         [[columns]]\nname = \"amount\"\nrole = \"quasi\"\ntype = \"decimal\"\n\n\
         [privacy]\nk = 2\n",
    )
    .unwrap();
    let config = Config::load(&path).unwrap();
    let csv = b"id,amount\n1,1.5\n2,\n3,?\n4,2.5\n5,\n6,\n";
    for algorithm in StreamAlgorithm::ALL {
        let mut outs = Vec::new();
        run_csv(
            &config,
            csv,
            algorithm,
            StreamParams::new(2, 6),
            None,
            |schema: &Schema, p: Published, _| {
                outs.push((
                    p.record[1].to_owned(),
                    schema.released_text(&p, 1).into_owned(),
                ));
            },
        )
        .unwrap();
        assert_eq!(outs.len(), 6, "{}", algorithm.name());
        let mut classes: HashMap<&str, usize> = HashMap::new();
        for (original, shown) in &outs {
            assert!(covers_number(shown, original), "{original:?} as {shown:?}");
            *classes.entry(shown).or_default() += 1;
        }
        // `?` is alone of its kind: it cannot keep its own text.
        let lone = outs.iter().find(|(o, _)| o == "?").unwrap();
        assert_eq!(lone.1, "*", "{}: {outs:?}", algorithm.name());
        for (class, n) in classes {
            assert!(
                class == "*" || n >= 2,
                "{}: {class:?} x {n}",
                algorithm.name()
            );
        }
    }
}

/// The first `rows` data rows of a generated table (header kept).
fn prefix(csv: &[u8], rows: usize) -> Vec<u8> {
    let text = std::str::from_utf8(csv).unwrap();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(csv);
    let end = reader.records().nth(rows + 1).map_or(text.len(), |r| {
        r.unwrap().position().unwrap().byte() as usize
    });
    csv[..end].to_vec()
}

#[test]
fn pack_stream_restores_missing_numbers_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let input = dir.path().join("mixed.csv");
    let csv = table(5_000, 4);
    std::fs::write(&input, &csv).unwrap();
    let archive = dir.path().join("mixed.karc");
    let output = Output::new(&archive, Access::Private).unwrap();
    let options = StreamPackOptions {
        mode: DiffMode::default(),
        seal: &Seal::None,
        algorithm: StreamAlgorithm::Fads,
        params: StreamParams::new(10, 400),
        pid: None,
        group_rows: 1_500,
        sign: None,
    };
    let report = pack_stream(&config, &input, &output, &options).unwrap();
    assert_eq!(report.groups, 4);
    assert_eq!(report.summary.rows, 5_000);
    let a = Archive::open(&archive, ClaimCheck::Enforce).unwrap();
    assert!(a.claim_report.as_ref().unwrap().holds());
    assert!(
        a.restore(None).unwrap() == csv,
        "the streamed archive restores another table"
    );
    // The archive's release is the stream's, row for row: so its classes
    // pass the independent check too.
    let mut outs = run(&config, &csv, StreamAlgorithm::Fads, 10);
    check(&outs, 5_000, 10, "fads");
    outs.sort_by_key(|o| o.row);
    let mut exported = Vec::new();
    a.export_csv(&mut exported).unwrap();
    let mut reader = csv::Reader::from_reader(&exported[..]);
    let header = reader.headers().unwrap().clone();
    let at: Vec<usize> = ["age", "sex", "zip", "amount"]
        .iter()
        .map(|n| header.iter().position(|h| h == *n).unwrap())
        .collect();
    let released: Vec<Vec<String>> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            at.iter().map(|&i| r[i].to_owned()).collect()
        })
        .collect();
    assert_eq!(released.len(), 5_000);
    for (o, r) in outs.iter().zip(&released) {
        assert_eq!(&o.released, r, "row {}", o.row);
    }
}
