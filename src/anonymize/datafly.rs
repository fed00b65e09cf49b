//! Datafly (Sweeney): full-domain generalization, one QI level at a time.
//!
//! Repeat: count the rows in classes smaller than k; when they fit in the
//! suppression budget (and the release, those rows suppressed, passes the
//! verifier: l-diversity, and under `strict` a suppressed class of k),
//! suppress them and stop; otherwise raise by one level the QI with the most
//! distinct values (ties to the earlier column). With a constraint set a row
//! violates when any constraint is violated, and only QIs of some
//! constraint (every QI under l-diversity) are candidates. Every candidate
//! at the root is one class of every row: the loop always ends.

use crate::Result;
use crate::anonymize::Outcome;
use crate::dataset::Dataset;
use crate::frequency::{Check, FrequencySet, checks_for, violating_groups, violating_rows};
use crate::hierarchy::Hierarchy;
use crate::privacy::PrivacyModel;
use crate::release::Release;

/// The state of a full-domain generalization, kept as the frequency set of
/// the constrained QIs at their current levels: raising a QI rolls the set
/// up (each distinct tuple once, never the rows), and every count Datafly
/// needs (violating rows, distinct values, value frequencies) is read off
/// it. Adult's 30,162 rows are 19,502 tuples at level 0 and fewer after
/// every step.
pub(crate) struct GlobalState<'a> {
    data: &'a Dataset,
    /// The rows each row of `data` stands for, when `data` is a frequency
    /// set (one row per distinct QI tuple, see [`crate::anonymize::run_weighted`]).
    pub weights: Option<&'a [u32]>,
    /// The level of every QI (those in no constraint stay at 0).
    pub levels: Vec<usize>,
    pub heights: Vec<usize>,
    /// The QIs of the constraints, ascending: the attributes of `current`.
    constrained: Vec<usize>,
    /// The constraints as checks on `current`.
    checks: Vec<Check>,
    /// The table's frequency set over `constrained`, leaves, and each row's
    /// group in it.
    base: FrequencySet,
    group_of: Vec<u32>,
    /// The frequency set at `levels` (hierarchy nodes).
    current: FrequencySet,
}

impl<'a> GlobalState<'a> {
    /// Needs a hierarchy on every constrained QI.
    pub fn new(data: &'a Dataset, model: &PrivacyModel) -> Self {
        Self::weighted(data, None, model)
    }

    /// As [`GlobalState::new`], each row of `data` standing for
    /// `weights[row]` rows when given.
    pub fn weighted(data: &'a Dataset, weights: Option<&'a [u32]>, model: &PrivacyModel) -> Self {
        let heights = data.qis.iter().map(|q| q.height().unwrap_or(0)).collect();
        let levels = vec![0; data.qis.len()];
        let constrained = model.constrained_qis(data.qis.len());
        let constraints = model.constraints_within(&constrained);
        let positions: Vec<usize> = (0..constrained.len()).collect();
        let checks = checks_for(&positions, &constraints);
        let leaves: Vec<Vec<u32>> = constrained
            .iter()
            .map(|&q| {
                let map = data.qis[q].level_map(0);
                data.qi_codes(q).iter().map(|&c| map[c as usize]).collect()
            })
            .collect();
        let columns: Vec<&[u32]> = leaves.iter().map(Vec::as_slice).collect();
        let mut state = GlobalState {
            data,
            weights,
            levels,
            heights,
            constrained,
            checks,
            base: FrequencySet::of_columns(&[], &[], 0).0,
            group_of: Vec::new(),
            current: FrequencySet::of_columns(&[], &[], 0).0,
        };
        let radices = state.radices();
        let (base, group_of) = match weights {
            Some(w) => FrequencySet::of_weighted(&columns, w, &radices, data.rows()),
            None => FrequencySet::of_columns(&columns, &radices, data.rows()),
        };
        state.current = base.clone();
        state.base = base;
        state.group_of = group_of;
        state
    }

    fn hierarchy(&self, q: usize) -> &Hierarchy {
        self.data.qis[q]
            .hierarchy
            .as_ref()
            .expect("checked by require_hierarchies")
    }

    /// Node counts of the constrained QIs at their levels.
    fn radices(&self) -> Vec<u32> {
        self.constrained
            .iter()
            .map(|&q| self.hierarchy(q).nodes(self.levels[q]) as u32)
            .collect()
    }

    /// Raises QI `q` (a constrained one) one level: one rollup of the
    /// current frequency set.
    pub fn raise(&mut self, q: usize) {
        let j = self
            .constrained
            .binary_search(&q)
            .expect("only constrained QIs are raised");
        let from = self.levels[q];
        let h = self.hierarchy(q);
        let parent: Vec<u32> = (0..h.nodes(from) as u32)
            .map(|n| h.parent(from, n))
            .collect();
        self.levels[q] += 1;
        let radices = self.radices();
        self.current = self.current.rollup(
            radices.len(),
            &radices,
            |t, out| {
                out.copy_from_slice(t);
                out[j] = parent[t[j] as usize];
            },
            None,
        );
    }

    /// Rows that violate some constraint.
    pub fn violating_rows(&self) -> usize {
        violating_rows(&self.current, &self.checks, &self.radices())
    }

    /// The rows that violate some constraint, as a mask over the rows.
    pub fn violating(&self) -> Vec<bool> {
        let radices = self.radices();
        // The current frequency set once more, from the table's, to learn
        // each table tuple's group in it.
        let maps: Vec<Vec<u32>> = self
            .constrained
            .iter()
            .map(|&q| {
                let h = self.hierarchy(q);
                (0..h.nodes(0) as u32)
                    .map(|leaf| h.node_of(self.levels[q], leaf))
                    .collect()
            })
            .collect();
        let mut assign = Vec::new();
        let fresh = self.base.rollup(
            radices.len(),
            &radices,
            |t, out| {
                for ((o, &v), map) in out.iter_mut().zip(t).zip(&maps) {
                    *o = map[v as usize];
                }
            },
            Some(&mut assign),
        );
        let bad = violating_groups(&fresh, &self.checks, &radices);
        self.group_of
            .iter()
            .map(|&g| bad[assign[g as usize] as usize])
            .collect()
    }

    /// How often each node of QI `q` (a constrained one) occurs at its
    /// current level.
    pub fn frequencies(&self, q: usize) -> Vec<u32> {
        let j = self.constrained.binary_search(&q).expect("constrained QI");
        let mut counts = vec![0u32; self.hierarchy(q).nodes(self.levels[q])];
        for (g, &n) in self.current.counts().iter().enumerate() {
            counts[self.current.tuple(g)[j] as usize] += n;
        }
        counts
    }

    /// Number of distinct values QI `q` has at its current level.
    pub fn distinct(&self, q: usize) -> usize {
        self.frequencies(q).iter().filter(|&&c| c > 0).count()
    }

    /// QIs that may still be raised: in some constraint, below the root.
    pub fn candidates(&self) -> Vec<usize> {
        self.constrained
            .iter()
            .copied()
            .filter(|&q| self.levels[q] < self.heights[q])
            .collect()
    }
}

/// Runs the Datafly loop with `choose` picking the QI to raise among the
/// candidates (never empty when called).
pub(crate) fn datafly_loop(
    data: &Dataset,
    model: &PrivacyModel,
    budget: usize,
    algorithm: &str,
    choose: impl Fn(&GlobalState, &[usize]) -> usize,
) -> Result<Outcome> {
    data.require_hierarchies(algorithm)?;
    let state = GlobalState::new(data, model);
    Ok(climb(data, model, budget, state, choose))
}

/// Datafly over a frequency set: `data` holds one row per distinct QI
/// tuple, standing for `weights[row]` rows of the table.
pub(crate) fn datafly_weighted(
    data: &Dataset,
    weights: &[u32],
    model: &PrivacyModel,
    budget: usize,
) -> Result<Outcome> {
    data.require_hierarchies("datafly")?;
    let state = GlobalState::weighted(data, Some(weights), model);
    Ok(climb(data, model, budget, state, most_distinct))
}

/// Datafly's loop from the levels of `state` up: stops at the first levels
/// whose violating rows fit in the budget and whose release, those rows
/// suppressed, the verifier accepts (under `strict` the suppressed rows
/// must form a class of their own; with l-diversity every class must hold
/// l values, which the row counts do not tell). Every candidate QI at the
/// root is one class of every row, which holds when the model is reachable
/// (`PrivacyModel::check_reachable`).
pub(crate) fn climb(
    data: &Dataset,
    model: &PrivacyModel,
    budget: usize,
    mut state: GlobalState,
    choose: impl Fn(&GlobalState, &[usize]) -> usize,
) -> Outcome {
    loop {
        let candidates = state.candidates();
        if state.violating_rows() <= budget || candidates.is_empty() {
            let release = Release::from_levels(data, &state.levels, &state.violating());
            if candidates.is_empty()
                || crate::anonymize::weighted_failures(data, state.weights, model, &release, budget)
                    .is_empty()
            {
                return Outcome {
                    release,
                    levels: Some(state.levels),
                    minimal_levels: None,
                };
            }
        }
        let q = choose(&state, &candidates);
        state.raise(q);
    }
}

/// Datafly's choice: the candidate QI with the most distinct values, ties
/// to the earlier.
pub(crate) fn most_distinct(state: &GlobalState, candidates: &[usize]) -> usize {
    let mut best = candidates[0];
    let mut most = state.distinct(best);
    for &q in &candidates[1..] {
        let d = state.distinct(q);
        if d > most {
            best = q;
            most = d;
        }
    }
    best
}

/// Datafly: raise the QI with the most distinct values, ties to the earlier.
pub fn datafly(data: &Dataset, model: &PrivacyModel, budget: usize) -> Result<Outcome> {
    datafly_loop(data, model, budget, "datafly", most_distinct)
}
