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
        for (row, cell) in release.cells[q].iter().enumerate() {
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
