//! Datafly and Incognito on a frequency set (`karc.spark_global`): the
//! search on the distinct QI tuples with their counts picks exactly the
//! levels, the minimal vectors and the suppressed rows that the algorithm
//! picks on the rows, and labels each tuple as the release labels its rows.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use karc::api::global;
use karc::config::{ConstraintConfig, SuppressionPolicy};
use karc::dataset::Dataset;
use karc::privacy::PrivacyModel;

use crate::common::adult;

/// The frequency set of `data`'s QIs: one batch row per distinct tuple
/// (texts, in order of first appearance), its count, and each row's tuple.
fn frequency_set(data: &Dataset) -> (Schema, RecordBatch, Vec<u32>, Vec<usize>) {
    let mut index: HashMap<Vec<u32>, usize> = HashMap::new();
    let mut firsts = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    let tuple_of: Vec<usize> = (0..data.rows())
        .map(|r| {
            let key: Vec<u32> = (0..data.qis.len()).map(|q| data.qi_codes(q)[r]).collect();
            let t = *index.entry(key).or_insert_with(|| {
                firsts.push(r);
                counts.push(0);
                counts.len() - 1
            });
            counts[t] += 1;
            t
        })
        .collect();
    let fields: Vec<Field> = data
        .qis
        .iter()
        .map(|q| Field::new(&q.name, DataType::Utf8, false))
        .collect();
    let columns: Vec<ArrayRef> = data
        .qis
        .iter()
        .map(|q| {
            let column = &data.table.columns[q.column];
            Arc::new(StringArray::from_iter_values(
                firsts.iter().map(|&r| column.text(r)),
            )) as ArrayRef
        })
        .collect();
    let schema = Schema::new(fields);
    let batch = RecordBatch::try_new(Arc::new(schema.clone()), columns).unwrap();
    (schema, batch, counts, tuple_of)
}

/// Runs `algorithm` on the rows and on the frequency set and compares.
fn same_choice(config: &karc::config::Config, data: &Dataset, algorithm: &str) {
    let mut config = config.clone();
    config.algorithm.name = algorithm.to_owned();
    let model = PrivacyModel::from_config(&config, data).unwrap();
    let outcome = karc::anonymize::run(data, &model, &config.algorithm).unwrap();
    let (schema, batch, counts, tuple_of) = frequency_set(data);
    let (found, labels, suppressed) =
        global::search_frequencies(&config, &schema, &[batch], &counts).unwrap();
    assert_eq!(Some(found.levels.clone()), outcome.levels, "{algorithm}");
    assert_eq!(found.minimal_levels, outcome.minimal_levels, "{algorithm}");
    assert_eq!(found.rows as usize, data.rows());
    assert_eq!(found.tuples as usize, counts.len());
    let release = &outcome.release;
    let stars = (0..data.rows()).filter(|&r| release.is_star(r)).count();
    assert_eq!(found.suppressed_rows as usize, stars, "{algorithm}");
    let texts: Vec<_> = (0..data.qis.len())
        .map(|q| release.qi_column(data, q))
        .collect();
    for (r, &t) in tuple_of.iter().enumerate().take(data.rows()) {
        assert_eq!(release.is_star(r), suppressed[t], "{algorithm}: row {r}");
        if suppressed[t] {
            continue;
        }
        for (q, column) in texts.iter().enumerate() {
            let label = labels
                .column(q)
                .as_any()
                .downcast_ref::<StringArray>()
                .unwrap()
                .value(t);
            assert_eq!(column.text(r), label, "{algorithm}: row {r}, QI {q}");
        }
    }
}

#[test]
fn frequency_search_matches_the_rows_on_adult() {
    for (name, k) in [("adult", 5), ("adult", 50), ("adult8", 10)] {
        let (config, data, _) = adult(name, k);
        same_choice(&config, &data, "datafly");
        same_choice(&config, &data, "incognito");
    }
}

#[test]
fn frequency_search_matches_with_a_budget_strict_and_constraint_sets() {
    let (mut config, data, _) = adult("adult8", 20);
    config.privacy.suppression_limit = Some(0.02);
    same_choice(&config, &data, "datafly");
    same_choice(&config, &data, "incognito");
    config.privacy.suppressed = SuppressionPolicy::Strict;
    same_choice(&config, &data, "datafly");
    same_choice(&config, &data, "incognito");
    config.privacy.suppressed = SuppressionPolicy::Mask;
    config.privacy.suppression_limit = None;
    config.privacy.k = None;
    config.privacy.constraints = vec![
        ConstraintConfig {
            qi: vec!["age".to_owned(), "sex".to_owned()],
            k: 30,
        },
        ConstraintConfig {
            qi: vec![
                "race".to_owned(),
                "marital-status".to_owned(),
                "age".to_owned(),
            ],
            k: 10,
        },
    ];
    same_choice(&config, &data, "datafly");
    same_choice(&config, &data, "incognito");
}

#[test]
fn frequency_search_refuses_l_and_other_algorithms() {
    let (config, data, _) = adult("adult8", 5);
    let (schema, batch, counts, _) = frequency_set(&data);
    let mut mondrian = config.clone();
    mondrian.algorithm.name = "mondrian".to_owned();
    let err = global::search_frequencies(&mondrian, &schema, std::slice::from_ref(&batch), &counts)
        .err()
        .unwrap();
    assert!(
        karc::error::message(&err).contains("datafly and incognito"),
        "{}",
        karc::error::message(&err)
    );
    let mut short = config.clone();
    short.algorithm.name = "datafly".to_owned();
    let err = global::search_frequencies(&short, &schema, &[batch], &counts[1..])
        .err()
        .unwrap();
    assert!(
        karc::error::message(&err).contains("one count per tuple"),
        "{}",
        karc::error::message(&err)
    );
}
