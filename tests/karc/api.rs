//! The library facade (`karc::api`): what the CLI and the Python package
//! call, checked without either.

use karc::api::{
    self, ClaimCheck, ConfigSource, ConstraintSpec, KeyOptions, Overrides, PackOptions,
    SealOptions, VerifyOptions,
};
use karc::codec::DiffMode;
use karc::config::SuppressionPolicy;

use crate::common::fixture;

fn adult_config(overrides: &Overrides) -> karc::config::Config {
    api::load_config(&ConfigSource::File(fixture("adult/adult.toml")), overrides).unwrap()
}

#[test]
fn config_text_file_and_parsed_agree_and_overrides_apply() {
    let path = fixture("adult/adult.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let overrides = Overrides {
        algorithm: Some("mondrian".into()),
        k: Some(7),
        seed: Some(3),
        suppression_limit: Some(0.25),
    };
    let from_file = adult_config(&overrides);
    let from_text = api::load_config(&ConfigSource::Text { path, text }, &overrides).unwrap();
    let from_parsed = api::load_config(
        &ConfigSource::Parsed(Box::new(adult_config(&Overrides::default()))),
        &overrides,
    )
    .unwrap();
    assert_eq!(from_file, from_text);
    assert_eq!(from_file, from_parsed);
    assert_eq!(from_file.algorithm.name, "mondrian");
    assert_eq!(from_file.algorithm.seed, 3);
    assert_eq!(from_file.privacy.k, Some(7));
    assert!(from_file.privacy.constraints.is_empty());
    assert_eq!(from_file.privacy.suppression_limit, Some(0.25));
    // Files the config reads: itself and its nine hierarchies.
    assert_eq!(api::config_files(&from_file).len(), 10);
}

#[test]
fn out_of_range_overrides_are_bad_usage() {
    for overrides in [
        Overrides {
            k: Some(0),
            ..Overrides::default()
        },
        Overrides {
            suppression_limit: Some(1.5),
            ..Overrides::default()
        },
    ] {
        let err = api::load_config(&ConfigSource::File(fixture("adult/adult.toml")), &overrides)
            .unwrap_err();
        assert!(matches!(err, karc::Error::Options(_)), "{err}");
        assert_eq!(err.exit_code(), 2);
    }
}

#[test]
fn pack_open_restore_verify_inspect_round_trip() {
    let config = adult_config(&Overrides {
        k: Some(10),
        ..Overrides::default()
    });
    let name = fixture("adult/adult.csv");
    let original = std::fs::read(&name).unwrap();
    let input = api::TableInput::open(&name).unwrap();
    let packed = api::pack_input(
        &config,
        &name,
        &input,
        &PackOptions {
            mode: DiffMode::default(),
            group_rows: None,
            seal: SealOptions {
                passphrase: Some("facade".into()),
                work_factor: Some(4),
                ..SealOptions::default()
            }
            .seal()
            .unwrap(),
        },
    )
    .unwrap();
    assert_eq!(packed.report.k, 10);
    let archive = api::open("a.karc".as_ref(), packed.bytes.clone(), ClaimCheck::Enforce).unwrap();
    let key = KeyOptions {
        passphrase: Some("facade".into()),
        ..KeyOptions::default()
    }
    .key()
    .unwrap();
    assert_eq!(archive.restore(key.as_ref()).unwrap(), original);
    assert!(archive.arrow_schema().is_none());
    let batch = archive.release_batch().unwrap();
    assert_eq!((batch.num_rows(), batch.num_columns()), (30162, 9));
    let check = archive.verify().unwrap();
    assert!(check.holds && check.within_budget);
    assert_eq!(check.claim.constraints[0].k, 10);
    assert_eq!(archive.inspect(None).unwrap().rows, 30162);
    // The release as columns equals the release exported as CSV.
    let release = archive.release().unwrap();
    let mut csv = Vec::new();
    archive.export_csv(&mut csv).unwrap();
    let first_row: Vec<&str> = release.iter().map(|c| c.text(0)).collect();
    let second_line = csv.split(|&b| b == b'\n').nth(1).unwrap().trim_ascii_end();
    assert_eq!(first_row.join(";").as_bytes(), second_line);
    // A wrong passphrase is the archive's own error.
    let wrong = KeyOptions {
        passphrase: Some("nope".into()),
        ..KeyOptions::default()
    }
    .key()
    .unwrap();
    let err = archive.restore(wrong.as_ref()).unwrap_err();
    assert!(err.to_string().contains("wrong passphrase"), "{err}");
    // Opening and restoring in one call gives the same bytes.
    let bytes = api::open_and_restore_bytes(
        "a.karc".as_ref(),
        packed.bytes,
        ClaimCheck::Enforce,
        key.as_ref(),
    )
    .unwrap();
    assert_eq!(bytes, original);
}

#[test]
fn a_seal_is_said_exactly_once() {
    let none = SealOptions::default();
    let two = SealOptions {
        passphrase: Some("p".into()),
        no_encryption: true,
        ..SealOptions::default()
    };
    for options in [none, two] {
        let err = options.seal().err().unwrap();
        assert!(err.to_string().contains("exactly one"), "{err}");
    }
    let bad_recipient = SealOptions {
        recipients: vec!["age1nope".into()],
        ..SealOptions::default()
    };
    let err = bad_recipient.seal().err().unwrap().to_string();
    assert!(err.starts_with("--recipient 1: "), "{err}");
    assert!(!err.contains("age1nope"), "the text is never shown: {err}");
}

#[test]
fn model_errors_name_their_place() {
    // A k beyond the table's rows: the table is named, and it is a failed
    // check (no release can meet it), not bad input.
    let config = adult_config(&Overrides {
        k: Some(1_000_000),
        ..Overrides::default()
    });
    let name = fixture("adult/adult.csv");
    let err = api::anonymize(&config, &name, &api::TableInput::open(&name).unwrap())
        .err()
        .unwrap();
    let message = karc::error::message(&err);
    assert!(
        message.starts_with(&name.display().to_string()),
        "{message}"
    );
    assert_eq!(err.exit_code(), 1);
}

/// Every model by hand on two classes of a table with two sensitive
/// columns: class 1 (a=1) holds s = p, q, r and n = 1, 2, 3; class 2 (a=2)
/// holds s = p, p and n = 1, 1. p: s p 3/5, q 1/5, r 1/5; n 1 3/5, 2 1/5, 3 1/5.
#[test]
fn verify_table_measures_every_model_on_each_sensitive_column() {
    let csv = b"a,s,n\n1,p,1\n1,q,2\n1,r,3\n2,p,1\n2,p,1\n";
    let table = api::read_release("r.csv".as_ref(), csv.to_vec(), None).unwrap();
    let options = |models| VerifyOptions {
        qi: vec!["a".into()],
        k: None,
        constraints: Vec::new(),
        suppressed: SuppressionPolicy::Mask,
        sensitive: vec!["s".into(), "n".into()],
        models,
        missing: api::default_missing(),
    };
    let r = api::verify_table(&table, &options(Default::default())).unwrap();
    let m = r.models.as_ref().unwrap();
    assert_eq!((m.k_anonymity, m.l_diversity), (Some(2), Some(1)));
    assert_eq!(m.alpha_k_anonymity.alpha, Some(1.0));
    assert_eq!(m.entropy_l_diversity, Some(1.0));
    let s = &m.sensitive;
    assert_eq!((s[0].numeric, s[1].numeric), (false, true));
    // Class 2 against p: categories 1/2 (|1 - 3/5| + 1/5 + 1/5) = 2/5;
    // numbers (|2/5| + |1/5| + 0) / 2 = 3/10 (class 1: 4/15 and 1/5).
    assert!((s[0].t_closeness.unwrap() - 0.4).abs() < 1e-12);
    assert!((s[1].t_closeness.unwrap() - 0.3).abs() < 1e-12);
    // Class 1 raises q and r from 1/5 to 1/3: (1/3 - 1/5) / (1/5) = 2/3.
    assert!((m.basic_beta_likeness.unwrap() - 2.0 / 3.0).abs() < 1e-12);
    // ln((1/3) / (3/5)) and ln(1 / (3/5)): the first is larger in magnitude.
    assert!((m.delta_disclosure.unwrap() - (5.0f64 / 9.0).ln().abs()).abs() < 1e-12);
    let risk = m.risk.as_ref().unwrap();
    assert!((risk.average_rir - (1.0 / 3.0 + 0.5) / 2.0).abs() < 1e-12);
    assert!(r.holds(), "no model claimed");
    let claim = karc::privacy::Models {
        t: Some(0.35),
        beta: Some(1.0),
        ..Default::default()
    };
    let r = api::verify_table(&table, &options(claim)).unwrap();
    let failed: Vec<_> = r
        .models
        .as_ref()
        .unwrap()
        .checks
        .iter()
        .filter(|c| !c.holds)
        .collect();
    assert_eq!(failed.len(), 1, "t fails on s only, beta holds");
    assert_eq!(
        (failed[0].model, failed[0].sensitive.as_str()),
        ("t_closeness", "s")
    );
    assert!(!r.holds());
    let bad = api::verify_table(
        &table,
        &VerifyOptions {
            sensitive: Vec::new(),
            ..options(karc::privacy::Models {
                t: Some(0.5),
                ..Default::default()
            })
        },
    );
    assert!(bad.unwrap_err().to_string().contains("--sensitive"));
}

#[test]
fn verify_table_checks_k_constraints_and_l() {
    let csv = b"a,b,s\n1,x,p\n1,x,q\n1,x,r\n2,y,p\n2,y,q\n";
    let table = api::read_release("r.csv".as_ref(), csv.to_vec(), None).unwrap();
    let options = |k, sensitive: Option<(String, usize)>| VerifyOptions {
        qi: vec!["a".into(), "b".into()],
        k: Some(k),
        constraints: vec!["a:2".parse().unwrap()],
        suppressed: SuppressionPolicy::Mask,
        sensitive: sensitive.iter().map(|s| s.0.clone()).collect(),
        models: karc::privacy::Models {
            l: sensitive.map(|s| s.1),
            ..Default::default()
        },
        missing: api::default_missing(),
    };
    let holds = api::verify_table(&table, &options(2, None)).unwrap();
    assert!(holds.holds());
    assert_eq!(holds.constraints.len(), 2);
    let fails = api::verify_table(&table, &options(3, None)).unwrap();
    assert!(!fails.holds());
    assert_eq!(fails.constraints[0].violating_rows, 2);
    let l3 = api::verify_table(&table, &options(2, Some(("s".into(), 3)))).unwrap();
    assert!(!l3.holds());
    let l2 = api::verify_table(&table, &options(2, Some(("s".into(), 2)))).unwrap();
    assert!(l2.holds());
    assert_eq!(l2.models.as_ref().unwrap().l_diversity, Some(2));
    let err = api::verify_table(
        &table,
        &VerifyOptions {
            qi: vec!["zz".into()],
            ..options(2, None)
        },
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "r.csv: no column \"zz\" (columns: a, b, s)"
    );
    assert_eq!(
        "a, b:5".parse::<ConstraintSpec>().unwrap(),
        ConstraintSpec {
            columns: vec!["a".into(), "b".into()],
            k: 5
        }
    );
    assert!("a,:5".parse::<ConstraintSpec>().is_err());
    assert!("a,b".parse::<ConstraintSpec>().is_err());
}

#[test]
fn compare_counts_and_checks_its_lists() {
    let options = api::CompareOptions {
        algorithms: vec!["datafly".into(), "mondrian".into()],
        ks: vec![5, 10, 50],
        modes: vec!["per-value-rans".into()],
        baselines: false,
        repeats: 1,
        models: Vec::new(),
        sensitive: Vec::new(),
    };
    assert_eq!(api::compare_rows(&options).unwrap(), 6);
    let bad = api::CompareOptions {
        modes: vec!["zip".into()],
        ..options
    };
    let err = api::compare_rows(&bad).unwrap_err().to_string();
    assert!(err.starts_with("--mode: unknown mode \"zip\""), "{err}");
}
