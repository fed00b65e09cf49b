//! Re-identification risk of a release, from its class sizes alone: ARX's
//! prosecutor, journalist and marketer risk (sample-based, the release's own
//! rows as the population) and pyCANON's average and maximum risk.

use serde::Serialize;

use crate::classes::Partition;

/// The risk an attacker model gives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttackerRisk {
    /// 1 / the smallest class: the most exposed row's risk.
    pub highest_risk: f64,
    /// Share of rows in a class of the smallest size (at the highest risk).
    pub records_at_highest_risk: f64,
    /// Expected share of rows re-identified: classes / rows.
    pub success_rate: f64,
}

/// ARX's three attacker models and pyCANON's two metrics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Risk {
    /// The attacker knows the target is in the release.
    pub prosecutor: AttackerRisk,
    /// The attacker knows the target is in a population; without a
    /// population table ARX takes the release's rows, which makes it the
    /// prosecutor's risk.
    pub journalist: AttackerRisk,
    /// The attacker re-identifies as many rows as he can: classes / rows.
    pub marketer: f64,
    /// pyCANON `average_rir`: the mean of 1 / size over the classes.
    pub average_rir: f64,
    /// pyCANON `max_rir`: 1 / the smallest class.
    pub max_rir: f64,
}

/// The risk of a partition's classes (the exempt suppressed rows left out),
/// `None` without classes.
pub fn risk(p: &Partition) -> Option<Risk> {
    risk_of_sizes(&p.sizes)
}

/// The risk of classes of these sizes, `None` without classes: it depends
/// on nothing else (a report reads the sizes from a claim's histogram).
pub fn risk_of_sizes(sizes: &[u32]) -> Option<Risk> {
    let min = f64::from(*sizes.iter().min()?);
    let rows: u64 = sizes.iter().map(|&s| s as u64).sum();
    let at_min: u64 = sizes
        .iter()
        .filter(|&&s| s as f64 == min)
        .map(|&s| s as u64)
        .sum();
    let classes = sizes.len() as f64;
    let attacker = AttackerRisk {
        highest_risk: 1.0 / min,
        records_at_highest_risk: at_min as f64 / rows as f64,
        success_rate: classes / rows as f64,
    };
    let inverse: Vec<f64> = sizes.iter().map(|&s| 1.0 / s as f64).collect();
    Some(Risk {
        prosecutor: attacker.clone(),
        journalist: attacker,
        marketer: classes / rows as f64,
        average_rir: super::distribution::numpy_sum(&inverse) / classes,
        max_rir: 1.0 / min,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn risk_of_two_classes() {
        let p = Partition {
            class_of: vec![0, 0, 1, 1, 1],
            sizes: vec![2, 3],
        };
        let r = risk(&p).unwrap();
        assert_eq!(r.max_rir, 0.5);
        assert_eq!(r.prosecutor.records_at_highest_risk, 0.4);
        assert_eq!(r.marketer, 0.4);
        assert!((r.average_rir - (0.5 + 1.0 / 3.0) / 2.0).abs() < 1e-15);
    }
}
