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
    Component, LocalConstraint, TupleFilter, UnionFilter, local_recoding, move_out_violators,
    with_l_diversity,
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
    /// Rows satisfying the union constraint leave (Definition 5).
    Naive,
    /// The maximal anonymous subset over all constraints at once (Definition 7).
    Complete,
    /// The same subset, reached over growing prefixes of the sorted constraints.
    Partial,
}

/// Moves out of the candidates the violators of `constraints` until none
/// moves. A constraint is checked again only when some row moved since its
/// last check (`checked[c] == moves` means it holds among the candidates):
/// the same fixed point as checking every constraint on every pass, with
/// no pass that cannot move a row. `checked` and `moves` persist across
/// calls, so the partial filter's growing prefixes skip the constraints
/// already stable.
fn until_stable(
    constraints: &[LocalConstraint],
    columns: &[Vec<u32>],
    out: &mut [bool],
    checked: &mut [u64],
    moves: &mut u64,
) {
    loop {
        let mut any = false;
        for (c, at) in constraints.iter().zip(checked.iter_mut()) {
            if *at == *moves {
                continue;
            }
            if move_out_violators(c, columns, out) {
                *moves += 1;
                any = true;
            }
            *at = *moves;
        }
        if !any {
            return;
        }
    }
}

/// The complete IndepCSet filter (Algorithm 3): all constraints, until
/// nothing moves.
struct CompleteFilter;

impl TupleFilter for CompleteFilter {
    fn refine(&self, component: &Component, columns: &[Vec<u32>], out: &mut [bool]) {
        // u64::MAX: never checked.
        let mut checked = vec![u64::MAX; component.constraints.len()];
        until_stable(&component.constraints, columns, out, &mut checked, &mut 0);
    }
}

/// The partial IndepCSet filter (Algorithm 4): prefixes {C1}, {C1, C2},
/// ... each until nothing moves.
struct PartialFilter;

impl TupleFilter for PartialFilter {
    fn refine(&self, component: &Component, columns: &[Vec<u32>], out: &mut [bool]) {
        let mut checked = vec![u64::MAX; component.constraints.len()];
        let mut moves = 0;
        for i in 1..=component.constraints.len() {
            until_stable(
                &component.constraints[..i],
                columns,
                out,
                &mut checked[..i],
                &mut moves,
            );
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

    /// Paper 000's Figures 1 and 2: sub-table T1 (Race, Birth, ZIP) under
    /// C1 = <{Race, Birth}, 3> and C2 = <{Birth, ZIP}, 2>. t1..t4 satisfy
    /// the set but not its union constraint <{Race, Birth, ZIP}, 3>, so the
    /// naive method raises their ZIP (Table T_a), while complete and partial
    /// release them raw (Table T_b); t8, t9 are suppressed by all three.
    /// Returns each row's (Race, Birth, ZIP) levels.
    fn figure2(method: ClassflyPlus) -> Vec<[usize; 3]> {
        use crate::config::Config;
        use crate::table::Table;
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write("race.csv", "White;*\nBlack;*\nAsian;*\nOther;*\n");
        write(
            "birth.csv",
            "8/25/65;1965;*\n6/20/66;1966;*\n1/2/70;1970;*\n3/4/71;1971;*\n",
        );
        write(
            "zip.csv",
            "02138;0213*;*\n02135;0213*;*\n02137;0213*;*\n02141;0214*;*\n02142;0214*;*\n",
        );
        let mut text = String::from("[input]\ndelimiter = \",\"\n");
        for name in ["race", "birth", "zip"] {
            text += &format!(
                "[[columns]]\nname = \"{name}\"\nrole = \"quasi\"\ntype = \"categorical\"\nhierarchy = \"{name}.csv\"\n"
            );
        }
        text += "[privacy]\n[[privacy.constraints]]\nqi = [\"race\", \"birth\"]\nk = 3\n";
        text += "[[privacy.constraints]]\nqi = [\"birth\", \"zip\"]\nk = 2\n";
        let config = Config::parse(&dir.path().join("t.toml"), &text).unwrap();
        let csv = "race,birth,zip\n\
                   White,8/25/65,02138\nWhite,8/25/65,02138\nWhite,8/25/65,02135\n\
                   White,8/25/65,02135\nBlack,6/20/66,02137\nBlack,6/20/66,02137\n\
                   Black,6/20/66,02137\nAsian,1/2/70,02141\nOther,3/4/71,02142\n";
        let table = Table::from_bytes(
            "t.csv".as_ref(),
            csv.as_bytes(),
            &config.csv_options().unwrap(),
        )
        .unwrap();
        let data = Dataset::bind(&config, table).unwrap();
        let model = PrivacyModel::from_config(&config, &data).unwrap();
        let budget = data.rows();
        let outcome = classfly_plus(&data, &model, budget, method).unwrap();
        let report = crate::privacy::verify_release(&data, &outcome.release, &model);
        assert!(report.holds(), "{method:?}: {:?}", report.failures());
        (0..data.rows())
            .map(|r| {
                let level = |q: usize| outcome.release.cell(q, r).level(&data.qis[q]).unwrap();
                [level(0), level(1), level(2)]
            })
            .collect()
    }

    #[test]
    fn naive_raises_what_complete_and_partial_release_raw_as_in_figure_2() {
        let star = [1, 2, 2];
        let mut t_a = vec![[0, 0, 1]; 4];
        t_a.extend([[0, 0, 0]; 3]);
        t_a.extend([star; 2]);
        assert_eq!(figure2(ClassflyPlus::Naive), t_a);
        let mut t_b = vec![[0, 0, 0]; 7];
        t_b.extend([star; 2]);
        assert_eq!(figure2(ClassflyPlus::Complete), t_b);
        assert_eq!(figure2(ClassflyPlus::Partial), t_b);
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
