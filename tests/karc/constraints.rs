//! Constraint sets (issue 2's acceptance set): every algorithm's release
//! satisfies each constraint counted on its own QI set.

use karc::anonymize::{self, Algorithm};
use karc::config::ConstraintConfig;
use karc::dataset::Dataset;
use karc::privacy::{PrivacyModel, verify_release};

use crate::anonymize::assert_sound;
use crate::common::{adult, fixture};

#[test]
fn every_algorithm_satisfies_each_constraint_on_its_own() {
    let (mut c, _, _) = adult("adult", 5);
    c.privacy.k = None;
    c.privacy.constraints = vec![
        ConstraintConfig {
            qi: vec!["sex".into(), "age".into(), "race".into()],
            k: 5,
        },
        ConstraintConfig {
            qi: vec!["age".into(), "marital-status".into()],
            k: 10,
        },
    ];
    let data = Dataset::load(&c, &fixture("adult/adult.csv")).unwrap();
    let model = PrivacyModel::from_config(&c, &data).unwrap();
    // Each constraint alone, as a model of its own for the verifier.
    let alone: Vec<PrivacyModel> = model
        .constraints
        .iter()
        .map(|constraint| PrivacyModel {
            constraints: vec![constraint.clone()],
            ..model.clone()
        })
        .collect();
    assert_eq!(alone.len(), 2);
    for a in Algorithm::ALL {
        c.algorithm.name = a.name().to_owned();
        let outcome = anonymize::run(&data, &model, &c.algorithm).unwrap();
        assert_sound(&data, &model, &outcome, a.name());
        for single in &alone {
            let report = verify_release(&data, &outcome.release, single);
            let r = &report.constraints[0];
            assert!(
                r.holds,
                "{}: k={} on {:?}: {:?}",
                a.name(),
                r.k,
                r.qi,
                report.failures()
            );
            assert!(r.min_class.unwrap_or(usize::MAX) >= single.constraints[0].k);
        }
        // QIs outside every constraint are released raw by global recoding.
        if let Some(levels) = &outcome.levels {
            for (q, qi) in data.qis.iter().enumerate() {
                if !["sex", "age", "race", "marital-status"].contains(&qi.name.as_str()) {
                    assert_eq!(levels[q], 0, "{}: {} raised", a.name(), qi.name);
                }
            }
        }
    }
}
