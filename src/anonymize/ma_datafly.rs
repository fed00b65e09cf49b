//! MA-Datafly (paper 001, "multi-attribute generalization"): Datafly whose
//! choice of QI breaks ties between the QIs with the most distinct values by
//! the "approximation degree", the population standard deviation of the
//! frequency counts of the QI's current values: the more uneven
//! distribution generalizes first. Remaining ties go to the earlier column.
//! The choice is redone after every single-level step.

use crate::Result;
use crate::anonymize::Outcome;
use crate::anonymize::datafly::datafly_loop;
use crate::dataset::Dataset;
use crate::privacy::PrivacyModel;

/// Population standard deviation of the non-zero counts.
fn approximation_degree(counts: &[u32]) -> f64 {
    let present: Vec<f64> = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| c as f64)
        .collect();
    if present.is_empty() {
        return 0.0;
    }
    let n = present.len() as f64;
    let mean = present.iter().sum::<f64>() / n;
    (present.iter().map(|c| (c - mean) * (c - mean)).sum::<f64>() / n).sqrt()
}

/// MA-Datafly: Datafly choosing among the widest QIs by approximation
/// degree; `budget` is the suppression budget in rows.
pub fn ma_datafly(data: &Dataset, model: &PrivacyModel, budget: usize) -> Result<Outcome> {
    datafly_loop(data, model, budget, "ma-datafly", |state, candidates| {
        let mut best = candidates[0];
        let mut best_key = {
            let f = state.frequencies(best);
            (
                f.iter().filter(|&&c| c > 0).count(),
                approximation_degree(&f),
            )
        };
        for &q in &candidates[1..] {
            let f = state.frequencies(q);
            let key = (
                f.iter().filter(|&&c| c > 0).count(),
                approximation_degree(&f),
            );
            if key.0 > best_key.0 || (key.0 == best_key.0 && key.1 > best_key.1) {
                best = q;
                best_key = key;
            }
        }
        best
    })
}

#[cfg(test)]
mod tests {
    use super::approximation_degree;

    #[test]
    fn uneven_counts_have_a_higher_degree() {
        assert_eq!(approximation_degree(&[5, 5, 0]), 0.0);
        assert!((approximation_degree(&[1, 3]) - 1.0).abs() < 1e-12);
        assert!(approximation_degree(&[9, 1]) > approximation_degree(&[6, 4]));
    }
}
