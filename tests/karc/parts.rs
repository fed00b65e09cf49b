//! A distributed pack's parts (`karc.spark.pack`): fragments of Adult coded
//! as parts and merged give one file that opens with its claim checked,
//! exports the fragments' releases and restores the fragments' canonical
//! CSV in fragment order; a damaged or foreign part is refused.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use karc::api::distributed::{self, PartFile, Whole};
use karc::api::{self, ClaimCheck, ConfigSource, Overrides};
use karc::archive::seal::Seal;
use karc::codec::DiffMode;
use karc::config::Config;

use crate::common::{fixture, karc};

/// Adult's rows (text), split into `n` fragments of consecutive rows.
fn adult_fragments(n: usize) -> (Vec<String>, Vec<Vec<Vec<String>>>) {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b';')
        .from_path(fixture("adult/adult.csv"))
        .unwrap();
    let names: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect();
    let size = rows.len().div_ceil(n);
    let fragments = rows.chunks(size).map(<[_]>::to_vec).collect();
    (names, fragments)
}

fn batch(names: &[String], rows: &[Vec<String>]) -> (Schema, RecordBatch) {
    let schema = Schema::new(
        names
            .iter()
            .map(|n| Field::new(n, DataType::Utf8, false))
            .collect::<Vec<_>>(),
    );
    let columns: Vec<ArrayRef> = (0..names.len())
        .map(|c| Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r[c]))) as ArrayRef)
        .collect();
    let batch = RecordBatch::try_new(Arc::new(schema.clone()), columns).unwrap();
    (schema, batch)
}

fn config(k: usize) -> Config {
    let overrides = Overrides {
        algorithm: Some("mondrian".to_owned()),
        k: Some(k),
        seed: None,
        suppression_limit: None,
    };
    api::load_config(&ConfigSource::File(fixture("adult/adult.toml")), &overrides).unwrap()
}

/// Codes each fragment as a part in `dir`; returns the parts, the key
/// that opens them and the canonical CSV a restore gives.
pub(crate) fn parts(dir: &Path, k: usize, fragments: usize) -> (Vec<PartFile>, String, Vec<u8>) {
    let (identity, recipient) = distributed::part_key();
    let (parts, expected) = parts_for(dir, k, fragments, &recipient);
    (parts, identity, expected)
}

/// What a fragment is told of the whole table: the numeric QIs' ranges only.
fn whole(domains: &[distributed::Domain]) -> Whole {
    Whole {
        domains: domains.to_vec(),
        sensitive: Vec::new(),
    }
}

fn parts_for(dir: &Path, k: usize, fragments: usize, recipient: &str) -> (Vec<PartFile>, Vec<u8>) {
    let (names, fragments) = adult_fragments(fragments);
    let config = config(k);
    let mut expected = format!("{}\n", names.join(",")).into_bytes();
    let mut parts = Vec::new();
    for (i, rows) in fragments.iter().enumerate() {
        let (schema, batch) = batch(&names, rows);
        let (bytes, report) = distributed::encode_part(
            &config,
            &schema,
            &[batch],
            i == 0,
            &Whole::default(),
            DiffMode::default(),
            recipient,
        )
        .unwrap();
        assert_eq!(report.rows, rows.len());
        let path = dir.join(format!("part-{i}.karc"));
        std::fs::write(&path, bytes).unwrap();
        parts.push(PartFile {
            path,
            suppressed: report.suppressed as u64,
            classes: report.classes as u64,
        });
        for r in rows {
            assert!(r.iter().all(|f| !f.contains([',', '"', '\n', '\r'])));
            expected.extend_from_slice(r.join(",").as_bytes());
            expected.push(b'\n');
        }
    }
    (parts, expected)
}

#[test]
fn merged_parts_open_verify_and_restore_in_fragment_order() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, identity, expected) = parts(dir.path(), 10, 3);
    let out = dir.path().join("adult.karc");
    let merged = distributed::merge_parts(&parts, &identity, Seal::None, &out, "{}").unwrap();
    assert_eq!((merged.groups, merged.rows), (3, 30162));
    let archive = api::open(&out, std::fs::read(&out).unwrap(), ClaimCheck::Enforce).unwrap();
    assert!(archive.verify().unwrap().holds);
    assert_eq!(archive.restore(None).unwrap(), expected);
    // Each row group is its fragment's release: 10-anonymous on its own, so
    // the whole is; the command line reads the file like any other.
    let o = karc(&["verify", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let restored = dir.path().join("restored.csv");
    let o = karc(&[
        "restore",
        out.to_str().unwrap(),
        "-o",
        restored.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&restored).unwrap(), expected);
    // The metrics are the parts', weighted by rows.
    assert!(merged.metrics.ncp > 0.0 && merged.metrics.ncp < 1.0);
    assert_eq!(merged.classes, parts.iter().map(|p| p.classes).sum::<u64>());
}

#[test]
fn merged_parts_seal_for_the_recipient() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, identity, expected) = parts(dir.path(), 5, 2);
    let out = dir.path().join("sealed.karc");
    let recipient = crate::common::TEST_RECIPIENT;
    let seal = Seal::Recipients(vec![recipient.parse().unwrap()]);
    distributed::merge_parts(&parts, &identity, seal, &out, "{}").unwrap();
    let restored = dir.path().join("restored.csv");
    let key = fixture("archive/keys/identity.txt");
    let args = [
        "restore",
        out.to_str().unwrap(),
        "-i",
        key.to_str().unwrap(),
    ];
    let o = karc(&[&args[..], &["-o", restored.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&restored).unwrap(), expected);
}

#[test]
fn damaged_or_foreign_parts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (parts, identity, _) = parts(dir.path(), 10, 2);
    let out: PathBuf = dir.path().join("out.karc");
    // Another key: the parts' private parts do not open.
    let (other, _) = distributed::part_key();
    let e = distributed::merge_parts(&parts, &other, Seal::None, &out, "{}").unwrap_err();
    assert!(
        karc::error::message(&e).contains("none of the given identities"),
        "{}",
        karc::error::message(&e)
    );
    // A part of another claim (k = 5 beside k = 10), sealed for the same key.
    let sub = dir.path().join("k5");
    std::fs::create_dir(&sub).unwrap();
    let recipient = recipient_of(&identity);
    let (foreign, _) = parts_for(&sub, 5, 2, &recipient);
    let mixed = vec![parts[0].clone(), foreign[1].clone()];
    let e = distributed::merge_parts(&mixed, &identity, Seal::None, &out, "{}").unwrap_err();
    assert!(
        karc::error::message(&e).contains("privacy claim differ"),
        "{}",
        karc::error::message(&e)
    );
    // A damaged byte in a part's body.
    let mut bytes = std::fs::read(&parts[1].path).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x40;
    std::fs::write(&parts[1].path, bytes).unwrap();
    let e = distributed::merge_parts(&parts, &identity, Seal::None, &out, "{}").unwrap_err();
    assert!(
        karc::error::message(&e).contains("part-1"),
        "{}",
        karc::error::message(&e)
    );
    assert!(!out.exists(), "nothing written on a refused merge");
}

/// The recipient of an `AGE-SECRET-KEY-1...` identity.
fn recipient_of(identity: &str) -> String {
    let id: age::x25519::Identity = identity.parse().unwrap();
    id.to_public().to_string()
}

#[test]
fn a_fragment_is_measured_against_the_whole_tables_range() {
    let (names, fragments) = adult_fragments(4);
    let (schema, batch) = batch(&names, &fragments[1]);
    let config = config(10);
    let run = |domains: &[distributed::Domain]| {
        let (a, _) = distributed::anonymize_fragment(
            &config,
            &schema,
            std::slice::from_ref(&batch),
            &whole(domains),
        )
        .unwrap();
        assert!(a.report.min_class.unwrap() >= 10);
        assert_eq!(a.report.rows, fragments[1].len());
        a.report.metrics.ncp
    };
    let own = run(&[]);
    // A range twice the fragment's: every age interval costs less.
    let wide = run(&[distributed::Domain {
        qi: "age".to_owned(),
        min: 0.0,
        max: 200.0,
    }]);
    assert!(wide < own, "{wide} < {own}");
}

/// Adult with two QIs, an l-diverse sensitive column, an identifier and the
/// rest released as they are.
fn mixed_config() -> Config {
    let text = r#"
[[columns]]
name = "age"
role = "quasi"
type = "integer"
[[columns]]
name = "sex"
role = "quasi"
type = "categorical"
hierarchy = "hierarchies/adult_hierarchy_sex.csv"
[[columns]]
name = "salary-class"
role = "sensitive"
[[columns]]
name = "race"
role = "identifier"
[[columns]]
name = "marital-status"
role = "insensitive"
[[columns]]
name = "education"
role = "insensitive"
[[columns]]
name = "native-country"
role = "insensitive"
[[columns]]
name = "workclass"
role = "insensitive"
[[columns]]
name = "occupation"
role = "insensitive"
[privacy]
k = 5
l = 2
sensitive = ["salary-class"]
[algorithm]
name = "mondrian"
"#;
    Config::parse(&fixture("adult/mixed.toml"), text).unwrap()
}

#[test]
fn generalizing_reads_only_the_qis_and_matches_the_whole_fragments_release() {
    let (names, fragments) = adult_fragments(3);
    let (schema, batch) = batch(&names, &fragments[2]);
    let config = mixed_config();
    let domains = [distributed::Domain {
        qi: "age".to_owned(),
        min: 17.0,
        max: 90.0,
    }];
    let (labels, report) = distributed::generalize_fragment(
        &config,
        &schema,
        std::slice::from_ref(&batch),
        &whole(&domains),
    )
    .unwrap();
    let labels_schema = labels.schema();
    let names: Vec<&str> = labels_schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["sex", "age"], "the QIs only, in the table's order");
    assert_eq!(labels.num_rows(), fragments[2].len());
    assert!(report.min_class.unwrap() >= 5);
    // The same labels, row for row, as anonymizing every column.
    let (a, layout) =
        distributed::anonymize_fragment(&config, &schema, &[batch], &whole(&domains)).unwrap();
    let whole = a.release_batch(Some(&layout)).unwrap();
    for name in names {
        assert_eq!(
            labels.column_by_name(name),
            whole.column_by_name(name),
            "{name}"
        );
    }
    let generalized = labels.column_by_name("age").unwrap();
    let ages = generalized.as_any().downcast_ref::<StringArray>().unwrap();
    assert!(
        ages.iter().any(|a| a.unwrap().contains('~')),
        "ages are generalized"
    );
}

#[test]
fn generalizing_a_fragment_without_a_qi_is_refused_in_one_line() {
    let (names, fragments) = adult_fragments(3);
    let (_, batch) = batch(&names, &fragments[0]);
    let keep: Vec<usize> = (0..names.len()).filter(|&i| names[i] != "age").collect();
    let batch = batch.project(&keep).unwrap();
    let schema = batch.schema();
    let err =
        distributed::generalize_fragment(&mixed_config(), &schema, &[batch], &Whole::default())
            .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("age") && !message.contains('\n'),
        "{message}"
    );
}

#[test]
fn merged_parts_keep_the_distinct_l_they_enforce() {
    // Adult with salary-class sensitive and distinct l = 2: each part's
    // release holds l class by class, and the merged file claims it in its
    // PRIVACY_MODELS section, which every open re-checks.
    let dir = tempfile::tempdir().unwrap();
    let (names, fragments) = adult_fragments(3);
    let mut config = config(10);
    for c in &mut config.columns {
        if c.name == "salary-class" {
            c.role = Some(karc::config::Role::Sensitive);
        }
    }
    config.privacy.sensitive = vec!["salary-class".to_owned()];
    config.privacy.l = Some(2);
    let (identity, recipient) = distributed::part_key();
    let mut parts = Vec::new();
    for (i, rows) in fragments.iter().enumerate() {
        let (schema, batch) = batch(&names, rows);
        let (bytes, report) = distributed::encode_part(
            &config,
            &schema,
            &[batch],
            i == 0,
            &Whole::default(),
            DiffMode::default(),
            &recipient,
        )
        .unwrap();
        let path = dir.path().join(format!("part-{i}.karc"));
        std::fs::write(&path, bytes).unwrap();
        parts.push(PartFile {
            path,
            suppressed: report.suppressed as u64,
            classes: report.classes as u64,
        });
    }
    let out = dir.path().join("adult-l.karc");
    distributed::merge_parts(&parts, &identity, Seal::None, &out, "{}").unwrap();
    let archive = api::open(&out, std::fs::read(&out).unwrap(), ClaimCheck::Enforce).unwrap();
    let report = archive.verify().unwrap();
    assert!(report.holds);
    let models = report
        .claim
        .models
        .expect("the merged file claims its models");
    assert!(models.holds());
    let o = karc(&["inspect", "--json", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("privacy models") || text.contains("PRIVACY_MODELS"),
        "{text}"
    );
    // A part whose models differ from the first part's is refused.
    let mut k_only = config.clone();
    k_only.privacy.l = None;
    k_only.privacy.sensitive.clear();
    let (schema, batch) = batch(&names, &fragments[1]);
    let (bytes, _) = distributed::encode_part(
        &k_only,
        &schema,
        &[batch],
        false,
        &Whole::default(),
        DiffMode::default(),
        &recipient,
    )
    .unwrap();
    std::fs::write(&parts[1].path, bytes).unwrap();
    let e = distributed::merge_parts(
        &parts,
        &identity,
        Seal::None,
        &dir.path().join("bad.karc"),
        "{}",
    )
    .unwrap_err();
    assert!(
        karc::error::message(&e).contains("not a karc part"),
        "{}",
        karc::error::message(&e)
    );
}
