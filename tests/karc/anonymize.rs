//! Anonymizers on real data: every release passes the verifier, keeps every
//! row in order, and every released cell covers its original value.

use karc::anonymize::{self, Algorithm};
use karc::privacy::verify_release;

use crate::common::adult;

/// Checks the properties every release must have.
pub fn assert_sound(
    data: &karc::dataset::Dataset,
    model: &karc::privacy::PrivacyModel,
    outcome: &anonymize::Outcome,
    label: &str,
) {
    let release = &outcome.release;
    assert_eq!(release.rows(), data.rows(), "{label}: row count");
    let report = verify_release(data, release, model);
    assert!(report.holds(), "{label}: {:?}", report.failures());
    for (q, qi) in data.qis.iter().enumerate() {
        let codes = data.qi_codes(q);
        for (row, cell) in release.qis[q].iter().enumerate() {
            assert!(
                cell.covers(qi, codes[row]),
                "{label}: row {row} column {}: {cell:?} does not cover {:?}",
                qi.name,
                data.table.columns[qi.column].text(row)
            );
        }
    }
}

#[test]
fn every_algorithm_on_adult_is_sound() {
    for config in ["adult", "adult8"] {
        for k in [2, 5, 10, 50, 100] {
            let (mut c, data, model) = adult(config, k);
            for a in Algorithm::ALL {
                c.algorithm.name = a.name().to_owned();
                let outcome = anonymize::run(&data, &model, &c.algorithm).unwrap();
                assert_sound(
                    &data,
                    &model,
                    &outcome,
                    &format!("{config} {} k={k}", a.name()),
                );
            }
        }
    }
}

/// Adult under a constraint set with three independent subsets (sex links
/// the first two constraints), under each suppression setting: no limit
/// (Classfly's leftovers suppressed), a limit of 0 and a tiny one (leftovers
/// absorbed by generalization), and the strict policy.
#[test]
fn every_algorithm_on_adult_constraint_sets_is_sound() {
    use karc::config::{ConstraintConfig, SuppressionPolicy};
    let set = [
        (vec!["age", "sex", "race"], 5),
        (vec!["sex", "marital-status", "education"], 10),
        (vec!["workclass", "occupation"], 3),
        (vec!["native-country"], 20),
    ];
    for (limit, policy) in [
        (None, SuppressionPolicy::Mask),
        (Some(0.0), SuppressionPolicy::Mask),
        (Some(0.0002), SuppressionPolicy::Mask),
        (None, SuppressionPolicy::Strict),
    ] {
        let (mut c, data, _) = adult("adult", 10);
        c.privacy.k = None;
        c.privacy.suppression_limit = limit;
        c.privacy.suppressed = policy;
        c.privacy.constraints = set
            .iter()
            .map(|(qi, k)| ConstraintConfig {
                qi: qi.iter().map(|s| s.to_string()).collect(),
                k: *k,
            })
            .collect();
        let model = karc::privacy::PrivacyModel::from_config(&c, &data).unwrap();
        for a in Algorithm::ALL {
            c.algorithm.name = a.name().to_owned();
            let label = format!("{} limit {limit:?} {policy:?}", a.name());
            let outcome = anonymize::run(&data, &model, &c.algorithm)
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_sound(&data, &model, &outcome, &label);
            let suppressed = outcome.release.star_rows();
            if a.suppresses_leftovers() && (limit.is_some() || policy == SuppressionPolicy::Strict)
            {
                assert_eq!(suppressed, 0, "{label}: leftovers must be absorbed");
            }
            // QIs in no constraint (salary-class) stay raw in kept rows.
            let q = data.qi_index("salary-class").unwrap();
            if a.suppresses_leftovers() {
                for (row, cell) in outcome.release.qis[q].iter().enumerate() {
                    assert!(
                        outcome.release.is_star(row)
                            || cell == karc::cell::Cell::Value(data.qi_codes(q)[row]),
                        "{label}: row {row} salary-class {cell:?}"
                    );
                }
            }
        }
    }
}

/// Regression: under `strict`, Datafly and MA-Datafly suppressed fewer than
/// k rows, which then formed a class of all-`*` rows below k.
#[test]
fn datafly_strict_never_leaves_a_small_suppressed_class() {
    for a in ["datafly", "ma-datafly"] {
        let (mut c, _, _) = adult("adult8", 50);
        c.privacy.suppressed = karc::config::SuppressionPolicy::Strict;
        c.privacy.suppression_limit = Some(0.01);
        c.algorithm.name = a.to_owned();
        let data =
            karc::dataset::Dataset::load(&c, &crate::common::fixture("adult/adult.csv")).unwrap();
        let model = karc::privacy::PrivacyModel::from_config(&c, &data).unwrap();
        let outcome = anonymize::run(&data, &model, &c.algorithm).unwrap();
        assert_sound(&data, &model, &outcome, a);
        let suppressed = outcome.release.star_rows();
        assert!(
            suppressed == 0 || suppressed >= 50,
            "{a}: {suppressed} suppressed rows"
        );
    }
}
