//! The models beyond k as a constraint on one candidate class: what the
//! anonymizers ask before they allow a cut or a node ("may these rows stand
//! as a class?"). The table's distribution p is the input table's (every
//! row), the class's q its rows'; each model is then the one `verify`
//! measures, on a partition of one class.

use super::definitions::Definitions;
use super::distribution::Distribution;
use super::distribution::UNRANKED;
use super::models::Models;
use super::sensitive::Sensitive;
use super::t_closeness::Emd;
use super::{alpha_k, beta_likeness, delta_disclosure, l_diversity};
use crate::classes::{NO_CLASS, Partition};

/// One sensitive attribute: its codes, p, and the class being checked.
struct Attribute<'a> {
    codes: &'a [u32],
    /// The table's distribution; its one class is the candidate.
    dist: Distribution,
    emd: Emd,
    scratch: Vec<u32>,
    touched: Vec<u32>,
}

/// Checks the claimed models on candidate classes.
pub struct ClassConstraint<'a> {
    claim: Models,
    attributes: Vec<Attribute<'a>>,
}

impl<'a> ClassConstraint<'a> {
    /// The constraint of `claim` on `sensitive` (whole-table columns).
    pub fn new(sensitive: &[Sensitive<'a>], claim: &Models) -> ClassConstraint<'a> {
        let attributes = sensitive
            .iter()
            .map(|s| {
                let none = Partition {
                    class_of: vec![NO_CLASS; s.column.codes.len()],
                    sizes: Vec::new(),
                };
                let dist = Distribution::new(s, &none, true);
                Attribute {
                    codes: &s.column.codes,
                    scratch: vec![0; dist.values()],
                    touched: Vec::new(),
                    emd: Emd::new(&dist),
                    dist,
                }
            })
            .collect();
        ClassConstraint {
            claim: claim.clone(),
            attributes,
        }
    }

    /// Whether `rows` may stand as one class under every claimed model,
    /// on every sensitive attribute.
    pub fn holds(&mut self, rows: &[u32]) -> bool {
        let claim = &self.claim;
        self.attributes.iter_mut().all(|a| {
            a.load(rows);
            class_holds(a, claim)
        })
    }
}

/// Whether each of `classes` (rows per entry of `sensitive`: its
/// dictionary's codes, then its reference's absent values) may stand as
/// one class under every claimed model, measured against the table's
/// distribution (`sensitive`'s reference when it has one): how the driver
/// of a distributed run checks a whole fragment before it is anonymized.
pub fn classes_hold(sensitive: &Sensitive<'_>, claim: &Models, classes: &[Vec<u64>]) -> Vec<bool> {
    let none = Partition {
        class_of: vec![NO_CLASS; sensitive.column.codes.len()],
        sizes: Vec::new(),
    };
    let dist = Distribution::new(sensitive, &none, true);
    let mut a = Attribute {
        codes: &[],
        scratch: Vec::new(),
        touched: Vec::new(),
        emd: Emd::new(&dist),
        dist,
    };
    classes
        .iter()
        .map(|counts| {
            a.load_counts(counts);
            class_holds(&mut a, claim)
        })
        .collect()
}

impl Attribute<'_> {
    /// Makes a class of `counts` rows per entry the distribution's one class.
    fn load_counts(&mut self, counts: &[u64]) {
        let d = &mut self.dist;
        let mut held: Vec<(u32, u32)> = (counts.iter().enumerate())
            .filter_map(|(c, &n)| {
                let v = *d.rank.get(c)?;
                (n > 0 && v != UNRANKED).then(|| (v, u32::try_from(n).unwrap_or(u32::MAX)))
            })
            .collect();
        held.sort_unstable();
        d.ranks.clear();
        d.counts.clear();
        d.offsets.clear();
        d.sizes.clear();
        d.offsets.push(0);
        let size: u32 = held.iter().fold(0u32, |s, &(_, n)| s.saturating_add(n));
        for (v, n) in held {
            d.ranks.push(v);
            d.counts.push(n);
        }
        if size > 0 {
            d.offsets.push(d.ranks.len());
            d.sizes.push(size);
        }
    }

    /// Makes `rows` the distribution's one class (none when no row holds
    /// a value).
    fn load(&mut self, rows: &[u32]) {
        let d = &mut self.dist;
        let mut size = 0u32;
        for &r in rows {
            let v = d.rank[self.codes[r as usize] as usize];
            if v == UNRANKED {
                continue;
            }
            size += 1;
            if self.scratch[v as usize] == 0 {
                self.touched.push(v);
            }
            self.scratch[v as usize] += 1;
        }
        self.touched.sort_unstable();
        d.ranks.clear();
        d.counts.clear();
        for &v in &self.touched {
            d.ranks.push(v);
            d.counts.push(self.scratch[v as usize]);
            self.scratch[v as usize] = 0;
        }
        self.touched.clear();
        d.offsets.clear();
        d.sizes.clear();
        d.offsets.push(0);
        if size > 0 {
            d.offsets.push(d.ranks.len());
            d.sizes.push(size);
        }
    }
}

/// Whether the loaded class meets every claimed model: vacuously when it
/// holds no value (its rows' cells are all missing: nothing to disclose).
fn class_holds(a: &mut Attribute, claim: &Models) -> bool {
    if a.dist.classes() == 0 {
        return true;
    }
    let d = &a.dist;
    // A claimed entropy l is checked on e^H (see `models::checks`).
    let defs = Definitions::Literature;
    let le = |v: Option<f64>, x: f64| v.is_some_and(|v| v <= x);
    claim.l.is_none_or(|l| d.ranks.len() >= l)
        && claim.entropy_l.is_none_or(|l| {
            l_diversity::min_entropy(d).is_some_and(|h| l_diversity::entropy_l(h, defs) >= l)
        })
        && claim
            .recursive_cl
            .is_none_or(|(c, l)| l_diversity::recursive_holds(d, c, l))
        && claim.t.is_none_or(|t| a.emd.of(d, 0) <= t)
        && claim.alpha.is_none_or(|x| le(alpha_k::alpha(d), x))
        // The papers' δ (every value held): pyCANON's skips a value a class
        // lacks, so two classes within δ whose released tuples coincide
        // could merge into one beyond it; the papers' bound is kept by a
        // union (its ratios are averages of the parts').
        && claim
            .delta
            .is_none_or(|x| le(delta_disclosure::delta(d, Definitions::Literature), x))
        && claim.beta.is_none_or(|x| {
            let v = if claim.enhanced_beta {
                beta_likeness::enhanced_beta(d, claim.definitions)
            } else {
                beta_likeness::basic_beta(d)
            };
            le(v, x)
        })
}
