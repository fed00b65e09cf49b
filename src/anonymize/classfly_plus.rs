//! Classfly+ (paper 000: Yang, Liu, Wang, Yu 2006): Classfly for a set of
//! constraints.
//!
//! The constraint set splits into independent constraint subsets, the
//! connected components of "shares a QI" (Definition 4; the split is unique,
//! Theorem 2). Each component is anonymized over its own QIs by the
//! working-set loop of [`super::classfly`]; QIs in no constraint stay raw.
//! Inside a component the constraints are ordered by K ascending, and the
//! rows that may leave W each round are chosen by one of three filters:
//!
//! - naive: the rows satisfying the union constraint (all the component's
//!   QIs, the largest K; Definition 5), which suffices by Theorem 3 but
//!   keeps generalizing rows that already satisfy the set;
//! - complete IndepCSet: the maximal anonymous subset of W (Definition 7):
//!   move out of the candidates every row whose class on some constraint,
//!   counted among the candidates, is below that constraint's K, over all
//!   constraints, until nothing moves;
//! - partial IndepCSet: the same fixed point reached by growing prefixes of
//!   the sorted constraints: {C1} until stable, then {C1, C2}, and so on.
//!
//! The maximal anonymous subset is unique (Theorem 4), so complete and
//! partial release identical tables; they differ only in work done.

use crate::Result;
use crate::anonymize::Outcome;
use crate::anonymize::classfly::{
    Component, TupleFilter, UnionFilter, local_recoding, move_out_violators, with_l_diversity,
};
use crate::dataset::Dataset;
use crate::privacy::{Constraint, PrivacyModel};

/// Splits the constraint set into independent constraint subsets, in the
/// order of their first constraint.
pub(crate) fn independent_subsets(constraints: &[Constraint]) -> Vec<Component> {
    let n = constraints.len();
    let mut group: Vec<usize> = (0..n).collect();
    // Constraints are few (the paper uses up to 8): relabel until stable.
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            for j in i + 1..n {
                let intersect = constraints[i]
                    .qis
                    .iter()
                    .any(|q| constraints[j].qis.contains(q));
                if intersect && group[i] != group[j] {
                    let (lo, hi) = (group[i].min(group[j]), group[i].max(group[j]));
                    for g in &mut group {
                        if *g == hi {
                            *g = lo;
                        }
                    }
                    changed = true;
                }
            }
        }
    }
    let mut firsts: Vec<usize> = group.clone();
    firsts.sort_unstable();
    firsts.dedup();
    firsts
        .into_iter()
        .map(|g| {
            let members: Vec<&Constraint> = constraints
                .iter()
                .zip(&group)
                .filter(|&(_, &h)| h == g)
                .map(|(c, _)| c)
                .collect();
            Component::new(&members)
        })
        .collect()
}

/// Which Classfly+ method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassflyPlus {
    Naive,
    Complete,
    Partial,
}

/// The complete IndepCSet filter: all constraints, until nothing moves.
struct CompleteFilter;

impl TupleFilter for CompleteFilter {
    fn refine(&self, component: &Component, columns: &[Vec<u32>], out: &mut [bool]) {
        loop {
            let mut moved = false;
            for c in &component.constraints {
                moved |= move_out_violators(c, columns, out);
            }
            if !moved {
                return;
            }
        }
    }
}

/// The partial IndepCSet filter: prefixes {C1}, {C1, C2}, ... each until
/// nothing moves.
struct PartialFilter;

impl TupleFilter for PartialFilter {
    fn refine(&self, component: &Component, columns: &[Vec<u32>], out: &mut [bool]) {
        for i in 1..=component.constraints.len() {
            loop {
                let mut moved = false;
                for c in &component.constraints[..i] {
                    moved |= move_out_violators(c, columns, out);
                }
                if !moved {
                    break;
                }
            }
        }
    }
}

/// Classfly+ with the given filter.
pub fn classfly_plus(
    data: &Dataset,
    model: &PrivacyModel,
    budget: usize,
    method: ClassflyPlus,
) -> Result<Outcome> {
    let components = independent_subsets(&with_l_diversity(model, data.qis.len()));
    let (name, filter): (&str, &dyn TupleFilter) = match method {
        ClassflyPlus::Naive => ("classfly-plus-naive", &UnionFilter),
        ClassflyPlus::Complete => ("classfly-plus-complete", &CompleteFilter),
        ClassflyPlus::Partial => ("classfly-plus-partial", &PartialFilter),
    };
    local_recoding(data, model, budget, name, &components, filter)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(qis: &[usize], k: usize) -> Constraint {
        Constraint {
            qis: qis.to_vec(),
            k,
        }
    }

    #[test]
    fn splits_into_components_of_shared_qis() {
        // Paper 000's Figure 1: {C1, C2} on Race, Birth, ZIP; {C3, C4} on
        // Salary, Height, Edu; {C5} on Sex, Work_Hrs.
        let set = [
            c(&[0, 1], 3),
            c(&[1, 2], 2),
            c(&[3, 4], 4),
            c(&[4, 5], 3),
            c(&[6, 7], 2),
        ];
        let parts = independent_subsets(&set);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0].qis, vec![0, 1, 2]);
        // K ascending: C2 (K=2) before C1 (K=3).
        assert_eq!(parts[0].constraints[0].k, 2);
        assert_eq!(parts[0].constraints[0].attrs, vec![1, 2]);
        assert_eq!(parts[0].max_k, 3);
        assert_eq!(parts[1].qis, vec![3, 4, 5]);
        assert_eq!(parts[2].qis, vec![6, 7]);
        assert_eq!(parts[2].constraints.len(), 1);
    }

    #[test]
    fn a_bridge_joins_components_transitively() {
        let set = [c(&[0], 2), c(&[1], 2), c(&[2], 2), c(&[2, 0], 5)];
        let parts = independent_subsets(&set);
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].qis, vec![0, 2]);
        assert_eq!(parts[1].qis, vec![1]);
    }

    /// The complete filter keeps exactly the maximal anonymous subset: on
    /// small tables, compare with a brute force over every subset.
    #[test]
    fn filters_find_the_maximal_anonymous_subset() {
        use rand_chacha::ChaCha8Rng;
        use rand_core::{Rng, SeedableRng};
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let len = 1 + (rng.next_u32() % 10) as usize;
            let columns: Vec<Vec<u32>> = (0..3)
                .map(|_| (0..len).map(|_| rng.next_u32() % 2).collect())
                .collect();
            let component = Component::new(&[&c(&[0, 1], 2), &c(&[1, 2], 3)]);
            let complete = CompleteFilter.stays(&component, &columns, None);
            let partial = PartialFilter.stays(&component, &columns, None);
            assert_eq!(complete, partial);
            // Brute force: the largest subset satisfying both constraints.
            let anonymous = |mask: u32| {
                component.constraints.iter().all(|c| {
                    (0..len).filter(|&i| mask >> i & 1 == 1).all(|i| {
                        (0..len)
                            .filter(|&j| mask >> j & 1 == 1)
                            .filter(|&j| c.attrs.iter().all(|&a| columns[a][i] == columns[a][j]))
                            .count()
                            >= c.k
                    })
                })
            };
            let best = (0u32..1 << len)
                .filter(|&m| anonymous(m))
                .max_by_key(|m| m.count_ones())
                .unwrap();
            let kept: u32 = (0..len).filter(|&i| !complete[i]).map(|i| 1 << i).sum();
            assert_eq!(kept, best, "columns {columns:?}");
        }
    }
}
