//! Datafly (Sweeney): full-domain generalization, one QI level at a time.
//!
//! Repeat: count the rows in classes smaller than k; when they fit in the
//! suppression budget, suppress them and stop; otherwise raise by one level
//! the QI with the most distinct values (ties to the earlier column). With a
//! constraint set a row violates when any constraint is violated, and only
//! QIs of some constraint are candidates.

use crate::Result;
use crate::anonymize::Outcome;
use crate::classes::Partition;
use crate::dataset::Dataset;
use crate::privacy::PrivacyModel;
use crate::release::Release;

/// The state of a full-domain generalization: each QI's level and its
/// generalized codes (node ids) per row.
pub(crate) struct GlobalState<'a> {
    data: &'a Dataset,
    pub levels: Vec<usize>,
    pub heights: Vec<usize>,
    /// `columns[q][row]`: the node of the row's value at `levels[q]`.
    pub columns: Vec<Vec<u32>>,
}

impl<'a> GlobalState<'a> {
    pub fn new(data: &'a Dataset) -> Self {
        let heights = data.qis.iter().map(|q| q.height().unwrap_or(0)).collect();
        let levels = vec![0; data.qis.len()];
        let columns = (0..data.qis.len())
            .map(|q| data.qi_codes(q).to_vec())
            .collect();
        GlobalState {
            data,
            levels,
            heights,
            columns,
        }
    }

    /// Raises QI `q` one level and regenerates its column.
    pub fn raise(&mut self, q: usize) {
        self.levels[q] += 1;
        let map = self.data.qis[q].level_map(self.levels[q]);
        for (g, &code) in self.columns[q].iter_mut().zip(self.data.qi_codes(q)) {
            *g = map[code as usize];
        }
    }

    /// Rows that violate some constraint.
    pub fn violating(&self, model: &PrivacyModel) -> Vec<bool> {
        let rows = self.data.rows();
        let mut bad = vec![false; rows];
        for c in &model.constraints {
            let cols: Vec<&[u32]> = c.qis.iter().map(|&q| &self.columns[q][..]).collect();
            let p = Partition::new(&cols, rows, None);
            for (row, b) in bad.iter_mut().enumerate() {
                *b |= p.is_small(row, c.k);
            }
        }
        bad
    }

    /// How often each node of QI `q` occurs at its current level.
    pub fn frequencies(&self, q: usize) -> Vec<u32> {
        let nodes = match &self.data.qis[q].hierarchy {
            Some(h) => h.nodes(self.levels[q]),
            None => 0,
        };
        let mut counts = vec![0u32; nodes];
        for &g in &self.columns[q] {
            counts[g as usize] += 1;
        }
        counts
    }

    /// Number of distinct values QI `q` has at its current level.
    pub fn distinct(&self, q: usize) -> usize {
        self.frequencies(q).iter().filter(|&&c| c > 0).count()
    }

    /// QIs that may still be raised: in some constraint, below the root.
    pub fn candidates(&self, model: &PrivacyModel) -> Vec<usize> {
        model
            .constrained_qis(self.data.qis.len())
            .into_iter()
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
    let mut state = GlobalState::new(data);
    let suppressed = loop {
        let bad = state.violating(model);
        let count = bad.iter().filter(|&&b| b).count();
        let candidates = state.candidates(model);
        // Every constrained QI at the root puts each constraint's rows in one
        // class of n >= k rows, so `count` is 0 by then.
        if count <= budget || candidates.is_empty() {
            break bad;
        }
        let q = choose(&state, &candidates);
        state.raise(q);
    };
    let release = Release::from_levels(data, &state.levels, &suppressed);
    Ok(Outcome {
        release,
        levels: Some(state.levels),
        minimal_levels: None,
    })
}

/// Datafly: raise the QI with the most distinct values, ties to the earlier.
pub fn datafly(data: &Dataset, model: &PrivacyModel, budget: usize) -> Result<Outcome> {
    datafly_loop(data, model, budget, "datafly", |state, candidates| {
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
    })
}
