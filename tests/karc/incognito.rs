//! Incognito against ARX's reference optima, and the minimality of what it
//! returns.

use karc::anonymize::{self, Algorithm};
use karc::classes::Partition;
use karc::privacy::PrivacyModel;

use crate::common::adult;

/// ARX's own test suite: on Adult with all 9 columns as QIs in file order and
/// 0 % suppression, the optimum is `[1,2,1,1,3,2,2,1,1]` for k=5 and
/// `[0,4,1,1,3,2,2,1,1]` for k=100; each must be among the minimal vectors.
#[test]
fn minimal_levels_contain_arx_optima_on_adult() {
    for (k, optimum) in [
        (5, vec![1, 2, 1, 1, 3, 2, 2, 1, 1]),
        (100, vec![0, 4, 1, 1, 3, 2, 2, 1, 1]),
    ] {
        let (mut c, data, model) = adult("adult", k);
        assert_eq!(model.suppression_limit, Some(0.0));
        c.algorithm.name = Algorithm::Incognito.name().to_owned();
        let outcome = anonymize::run(&data, &model, &c.algorithm).unwrap();
        let minimal = outcome.minimal_levels.as_ref().unwrap();
        assert!(minimal.contains(&optimum), "k={k}: {minimal:?}");
        assert_eq!(outcome.levels.as_ref(), minimal.first(), "k={k}");
        assert_minimal(&data, &model, minimal, &format!("k={k}"));
    }
}

/// Every returned vector satisfies k, no direct predecessor of it does, and
/// none lies above another.
fn assert_minimal(
    data: &karc::dataset::Dataset,
    model: &PrivacyModel,
    minimal: &[Vec<usize>],
    label: &str,
) {
    // Counted on the rows with `Partition`, apart from the frequency sets
    // Incognito counts on.
    let k = model.max_k();
    let holds = |levels: &[usize]| {
        let columns: Vec<Vec<u32>> = (0..levels.len())
            .map(|q| {
                let map = data.qis[q].level_map(levels[q]);
                data.qi_codes(q).iter().map(|&c| map[c as usize]).collect()
            })
            .collect();
        let refs: Vec<&[u32]> = columns.iter().map(Vec::as_slice).collect();
        Partition::new(&refs, data.rows(), None).rows_below(k) == 0
    };
    for v in minimal {
        assert!(holds(v), "{label}: {v:?} is not k-anonymous");
        for q in 0..v.len() {
            if v[q] > 0 {
                let mut lower = v.clone();
                lower[q] -= 1;
                assert!(
                    !holds(&lower),
                    "{label}: {v:?} is not minimal ({lower:?} holds)"
                );
            }
        }
        for w in minimal {
            assert!(
                w == v || !w.iter().zip(v).all(|(a, b)| a <= b),
                "{label}: {v:?} lies above {w:?}"
            );
        }
    }
}
