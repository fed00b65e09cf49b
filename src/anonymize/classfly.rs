//! Classfly (Liu, Yang, Yu 2005; the base of paper 000) and the
//! local-recoding working-set machinery Classfly+ shares.
//!
//! A working set W starts with every row. While |W| >= K: the rows of W that
//! already satisfy the constraint, counted inside W, leave W for good at the
//! current levels (a *batch*); then the QI with the most distinct values
//! among the rows still in W is raised one level, for those rows only. Rows
//! of one value can thus end at different levels: local recoding.
//!
//! Choices the papers leave open, made here (see also `ALGORITHMS.md`):
//! - ties between QIs with equally many distinct values go to the earlier
//!   column, as in Datafly;
//! - `classfly` given a constraint set runs on the union constraint (all
//!   constrained QIs, the largest K): Theorem 3 of paper 000 makes that
//!   sufficient, and it is what a single-constraint method can do;
//! - a working set may climb to `*` in every QI: at least K rows there are
//!   an ordinary class (`spec/FORMAT.md` §5), so they leave W as any other;
//! - with l-diversity the component spans every QI and W keeps the rows
//!   whose class, among the leaving rows, holds fewer than l sensitive
//!   values ([`TupleFilter::stays`]);
//! - leftovers (fewer than K rows, or rows at `*` in every QI whose class
//!   holds fewer than l values) are suppressed,
//!   whole rows (every QI cell `*`), as the papers do, when the privacy
//!   policy is `mask` and the suppression budget allows it. A suppressed row
//!   also leaves every other independent constraint subset, so the subsets
//!   where it sat in a batch are recomputed without it (a fixed point: the
//!   suppressed set only grows). Without a configured `suppression_limit`
//!   the budget is Classfly's own rule (every leftover); with one, or under
//!   the `strict` policy (where fewer than K suppressed rows would form a
//!   too-small class), leftovers that do not fit are never suppressed but
//!   *absorbed*: each joins the anonymous block of done rows it costs least
//!   to join, the block raised (coarsened) to a common level vector until
//!   the row's projection on every constraint is one the block releases.
//!   Blocks are the connected components of "shares a class of some
//!   constraint" inside one batch; each is anonymous on its own and stays
//!   so when coarsened, a row matching released projections joins classes
//!   that already reach K, and a union of anonymous sets is anonymous: the
//!   release always satisfies the constraint set.

use crate::Result;
use crate::anonymize::Outcome;
use crate::cell::Cell;
use crate::classes::Partition;
use crate::config::SuppressionPolicy;
use crate::dataset::{DataError, Dataset};
use crate::privacy::PrivacyModel;
use crate::release::Release;

/// A constraint of a component on the component's attribute positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LocalConstraint {
    pub attrs: Vec<usize>,
    pub k: usize,
}

/// A set of constraints anonymized together over its own QIs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Component {
    /// Dataset QI positions, ascending.
    pub qis: Vec<usize>,
    /// Constraints by K ascending (ties keep their configured order).
    pub constraints: Vec<LocalConstraint>,
    pub max_k: usize,
}

impl Component {
    /// The component of `constraints` (dataset QI positions), sorted by K.
    pub fn new(constraints: &[&crate::privacy::Constraint]) -> Component {
        let mut qis: Vec<usize> = constraints.iter().flat_map(|c| c.qis.clone()).collect();
        qis.sort_unstable();
        qis.dedup();
        let mut local: Vec<LocalConstraint> = constraints
            .iter()
            .map(|c| LocalConstraint {
                attrs: c
                    .qis
                    .iter()
                    .map(|q| qis.binary_search(q).expect("constraint QI in component"))
                    .collect(),
                k: c.k,
            })
            .collect();
        local.sort_by_key(|c| c.k);
        let max_k = local.iter().map(|c| c.k).max().unwrap_or(1);
        Component {
            qis,
            constraints: local,
            max_k,
        }
    }

    /// The union constraint (paper 000, Definition 5): every QI, the largest K.
    pub fn union(&self) -> LocalConstraint {
        LocalConstraint {
            attrs: (0..self.qis.len()).collect(),
            k: self.max_k,
        }
    }
}

/// Picks, among the candidates (the rows of W), the rows that may leave W.
pub(crate) trait TupleFilter {
    /// `columns[a][i]`: the generalized node of W's `i`-th row in attribute
    /// `a`; `out[i]`: whether W's `i`-th row stays in W, which the filter
    /// sets for every row whose class on some constraint, counted among
    /// the rows not yet staying, is too small (to a fixed point).
    fn refine(&self, component: &Component, columns: &[Vec<u32>], out: &mut [bool]);

    /// Per row of W, whether it stays in W: the fixed point of the filter
    /// and, with l-diversity (`sensitive`: the sensitive code of each row
    /// of W, and l), of keeping in W the rows whose class on every
    /// attribute holds fewer than l values among the leaving rows.
    fn stays(
        &self,
        component: &Component,
        columns: &[Vec<u32>],
        sensitive: Option<(&[u32], usize)>,
    ) -> Vec<bool> {
        let len = columns.first().map_or(0, Vec::len);
        let mut out = vec![false; len];
        loop {
            self.refine(component, columns, &mut out);
            let Some((codes, l)) = sensitive else {
                return out;
            };
            if !move_out_undiverse(columns, codes, l, &mut out) {
                return out;
            }
        }
    }
}

/// Marks (in `out`) the candidates, not yet out, whose class on every
/// attribute, counted among the candidates, holds fewer than `l` distinct
/// `codes`. Returns whether any row moved.
fn move_out_undiverse(columns: &[Vec<u32>], codes: &[u32], l: usize, out: &mut [bool]) -> bool {
    let cols: Vec<&[u32]> = columns.iter().map(Vec::as_slice).collect();
    let p = Partition::new(&cols, out.len(), Some(out));
    let distinct = p.distinct_per_class(&codes[..out.len()]);
    let mut moved = false;
    for (i, o) in out.iter_mut().enumerate() {
        let c = p.class_of[i];
        // A class of missing cells alone (no distinct value) discloses none.
        if c != crate::classes::NO_CLASS && (1..l).contains(&distinct[c as usize]) {
            *o = true;
            moved = true;
        }
    }
    moved
}

/// Marks (in `out`) the candidates, not yet out, whose class on `c`
/// counted among the candidates is smaller than `c.k`. Returns whether any
/// row moved.
pub(crate) fn move_out_violators(
    c: &LocalConstraint,
    columns: &[Vec<u32>],
    out: &mut [bool],
) -> bool {
    let cols: Vec<&[u32]> = c.attrs.iter().map(|&a| &columns[a][..]).collect();
    let p = Partition::new(&cols, out.len(), Some(out));
    let mut moved = false;
    for (row, o) in out.iter_mut().enumerate() {
        if p.is_small(row, c.k) {
            *o = true;
            moved = true;
        }
    }
    moved
}

/// Classfly's filter: one pass on a single constraint (for a component of
/// several constraints, their union constraint: the naive Classfly+ filter).
pub(crate) struct UnionFilter;

impl TupleFilter for UnionFilter {
    fn refine(&self, component: &Component, columns: &[Vec<u32>], out: &mut [bool]) {
        // With one constraint, moving out whole classes changes no other
        // class: one pass reaches the fixed point.
        move_out_violators(&component.union(), columns, out);
    }
}

/// Rows that left W together, all at one level vector.
#[derive(Debug, Clone)]
struct Batch {
    levels: Vec<usize>,
    rows: Vec<u32>,
}

/// The result of the working-set loop on one component.
#[derive(Debug, Clone)]
struct ComponentRun {
    batches: Vec<Batch>,
    leftovers: Vec<u32>,
}

// Long: the working-set loop of one component as the paper gives it: pick the QI with the most
// distinct values in W, raise it, regenerate its level map, collect the rows done
/// Per QI of a component: the hierarchy height and the current level map
/// (dictionary code -> node), regenerated on each raise.
fn run_component(
    data: &Dataset,
    component: &Component,
    suppressed: &[bool],
    filter: &dyn TupleFilter,
    l_diversity: Option<(&[u32], usize)>,
) -> ComponentRun {
    let m = component.qis.len();
    let heights: Vec<usize> = component
        .qis
        .iter()
        .map(|&q| data.qis[q].height().expect("checked by require"))
        .collect();
    let codes: Vec<&[u32]> = component.qis.iter().map(|&q| data.qi_codes(q)).collect();
    let mut w: Vec<u32> = (0..data.rows() as u32)
        .filter(|&r| !suppressed[r as usize])
        .collect();
    let mut levels = vec![0usize; m];
    let mut columns: Vec<Vec<u32>> = codes
        .iter()
        .map(|c| w.iter().map(|&r| c[r as usize]).collect())
        .collect();
    let mut sensitive: Vec<u32> = l_diversity.map_or(Vec::new(), |(s, _)| {
        w.iter().map(|&r| s[r as usize]).collect()
    });
    let mut batches = Vec::new();
    let mut seen: Vec<u32> = Vec::new();
    let mut stamp = 0u32;
    while w.len() >= component.max_k {
        let stays = filter.stays(
            component,
            &columns,
            l_diversity.map(|(_, l)| (&sensitive[..], l)),
        );
        if stays.iter().any(|&s| !s) {
            let rows = w
                .iter()
                .zip(&stays)
                .filter(|&(_, &s)| !s)
                .map(|(&r, _)| r)
                .collect();
            batches.push(Batch {
                levels: levels.clone(),
                rows,
            });
            retain(&mut w, &stays);
            if l_diversity.is_some() {
                retain(&mut sensitive, &stays);
            }
            for col in &mut columns {
                retain(col, &stays);
            }
            if w.len() < component.max_k {
                break;
            }
        }
        // The QI with the most distinct values among W, ties to the earlier.
        let mut best: Option<(usize, usize)> = None;
        for a in 0..m {
            if levels[a] >= heights[a] {
                continue;
            }
            let nodes = data.qis[component.qis[a]]
                .hierarchy
                .as_ref()
                .expect("checked")
                .nodes(levels[a]);
            if seen.len() < nodes {
                seen.resize(nodes, 0);
            }
            stamp = stamp.wrapping_add(1);
            if stamp == 0 {
                seen.iter_mut().for_each(|s| *s = 0);
                stamp = 1;
            }
            let mut distinct = 0;
            for &g in &columns[a] {
                let s = &mut seen[g as usize];
                if *s != stamp {
                    *s = stamp;
                    distinct += 1;
                }
            }
            if best.is_none_or(|(_, d)| distinct > d) {
                best = Some((a, distinct));
            }
        }
        let Some((a, _)) = best else { break };
        levels[a] += 1;
        let map = data.qis[component.qis[a]].level_map(levels[a]);
        for (g, &r) in columns[a].iter_mut().zip(&w) {
            *g = map[codes[a][r as usize] as usize];
        }
    }
    ComponentRun {
        batches,
        leftovers: w,
    }
}

/// Keeps the items whose flag is true.
fn retain<T: Copy>(items: &mut Vec<T>, keep: &[bool]) {
    let mut i = 0;
    items.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

/// An anonymous set of done rows that share one level vector.
#[derive(Debug, Clone)]
struct Block {
    rows: Vec<u32>,
    levels: Vec<usize>,
}

/// Splits a batch into blocks: connected components of "shares a class of
/// some constraint" (each is anonymous on its own).
fn blocks_of(data: &Dataset, component: &Component, batch: &Batch) -> Vec<Block> {
    let n = batch.rows.len();
    let columns: Vec<Vec<u32>> = component
        .qis
        .iter()
        .enumerate()
        .map(|(a, &q)| {
            let map = data.qis[q].level_map(batch.levels[a]);
            let codes = data.qi_codes(q);
            batch
                .rows
                .iter()
                .map(|&r| map[codes[r as usize] as usize])
                .collect()
        })
        .collect();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for c in &component.constraints {
        let cols: Vec<&[u32]> = c.attrs.iter().map(|&a| &columns[a][..]).collect();
        let p = Partition::new(&cols, n, None);
        let mut first = vec![usize::MAX; p.classes()];
        for (i, &class) in p.class_of.iter().enumerate() {
            let f = &mut first[class as usize];
            if *f == usize::MAX {
                *f = i;
            } else {
                let (x, y) = (find(&mut parent, *f), find(&mut parent, i));
                parent[x] = y;
            }
        }
    }
    let mut index = vec![usize::MAX; n];
    let mut members: Vec<Vec<u32>> = Vec::new();
    for i in 0..n {
        let root = find(&mut parent, i);
        if index[root] == usize::MAX {
            index[root] = members.len();
            members.push(Vec::new());
        }
        members[index[root]].push(batch.rows[i]);
    }
    members
        .into_iter()
        .map(|rows| Block {
            rows,
            levels: batch.levels.clone(),
        })
        .collect()
}

// Long: the absorption of leftover rows into blocks as the paper gives it, with the suppression
// fallback beside it
/// Places every leftover row into the block it costs least to join. The
/// block's rows and the row are raised to a common level vector, from the
/// block's own levels up, until for every constraint the row's projection is
/// one the block's rows release: the row then joins classes that reach K,
/// and the coarsened block stays anonymous. The raise is greedy (among the
/// QIs of the constraints not yet met, the one where the fewest block rows
/// share the row's value, ties to the earlier); often nothing needs raising
/// (the row adopts released cells). The cost is the Precision lost by the
/// block's rows and the row; a result of `*` in every QI of the table (a
/// suppressed row) is taken only when no block allows less. `None` when
/// there are leftovers but no block (every row of the component left over).
fn absorb(data: &Dataset, component: &Component, run: &ComponentRun) -> Option<Vec<Block>> {
    let mut blocks: Vec<Block> = run
        .batches
        .iter()
        .flat_map(|b| blocks_of(data, component, b))
        .collect();
    let spans_table = component.qis.len() == data.qis.len();
    let qis: Vec<_> = component.qis.iter().map(|&q| &data.qis[q]).collect();
    let hierarchies: Vec<_> = qis
        .iter()
        .map(|q| q.hierarchy.as_ref().expect("checked"))
        .collect();
    let heights: Vec<usize> = hierarchies.iter().map(|h| h.height()).collect();
    let leaves: Vec<Vec<u32>> = (0..qis.len())
        .map(|a| {
            data.qi_codes(component.qis[a])
                .iter()
                .map(|&c| qis[a].leaf_of[c as usize])
                .collect()
        })
        .collect();
    let node =
        |a: usize, level: usize, r: u32| hierarchies[a].node_of(level, leaves[a][r as usize]);
    for &r in &run.leftovers {
        // (suppressed, cost, block, levels)
        let mut best: Option<(bool, f64, usize, Vec<usize>)> = None;
        for (b, block) in blocks.iter().enumerate() {
            let size = block.rows.len() as f64;
            let cost_of = |levels: &[usize]| -> f64 {
                levels
                    .iter()
                    .zip(&block.levels)
                    .zip(&heights)
                    .map(|((&l, &l0), &h)| ((l - l0) as f64 * size + l as f64) / h as f64)
                    .sum()
            };
            let mut levels = block.levels.clone();
            let mut pruned = false;
            loop {
                if best
                    .as_ref()
                    .is_some_and(|(root, c, _, _)| !*root && cost_of(&levels) >= *c)
                {
                    pruned = true;
                    break;
                }
                let unmet: Vec<&LocalConstraint> = component
                    .constraints
                    .iter()
                    .filter(|c| {
                        !block.rows.iter().any(|&s| {
                            c.attrs
                                .iter()
                                .all(|&a| node(a, levels[a], s) == node(a, levels[a], r))
                        })
                    })
                    .collect();
                if unmet.is_empty() {
                    break;
                }
                let mut raise: Option<(usize, usize)> = None;
                for a in 0..qis.len() {
                    if levels[a] >= heights[a] || !unmet.iter().any(|c| c.attrs.contains(&a)) {
                        continue;
                    }
                    let mine = node(a, levels[a], r);
                    let agree = block
                        .rows
                        .iter()
                        .filter(|&&s| node(a, levels[a], s) == mine)
                        .count();
                    if raise.is_none_or(|(_, fewest)| agree < fewest) {
                        raise = Some((a, agree));
                    }
                }
                // An unmet constraint with every QI at `*` is met: some QI
                // of it is below the root.
                let (a, _) = raise.expect("an unmet constraint has a QI below the root");
                levels[a] += 1;
            }
            if pruned {
                continue;
            }
            let suppressed = spans_table && levels.iter().zip(&heights).all(|(l, h)| l >= h);
            let cost = cost_of(&levels);
            let better = best
                .as_ref()
                .is_none_or(|(root, c, _, _)| (suppressed, cost) < (*root, *c));
            if better {
                best = Some((suppressed, cost, b, levels));
            }
        }
        let (_, _, b, levels) = best?;
        let block = &mut blocks[b];
        block.rows.push(r);
        block.levels = levels;
    }
    Some(blocks)
}

/// Runs the working-set loop on every component and turns the runs into a
/// release, suppressing or absorbing leftovers (see the module doc).
pub(crate) fn local_recoding(
    data: &Dataset,
    model: &PrivacyModel,
    budget: usize,
    algorithm: &str,
    components: &[Component],
    filter: &dyn TupleFilter,
) -> Result<Outcome> {
    for c in components {
        if let Some(&q) = c.qis.iter().find(|&&q| data.qis[q].hierarchy.is_none()) {
            return Err(DataError::NeedsHierarchy {
                algorithm: algorithm.to_owned(),
                column: data.qis[q].name.clone(),
            }
            .into());
        }
    }
    let may_suppress = model.policy == SuppressionPolicy::Mask;
    // Suppressing one component's leftovers can leave another fewer rows
    // than its K, with no done rows to absorb them: then recode without
    // suppressing, where W starts with every row (n >= K).
    recode(data, model, budget, components, filter, may_suppress)
        .or_else(|| {
            may_suppress
                .then(|| recode(data, model, budget, components, filter, false))
                .flatten()
        })
        .ok_or_else(|| crate::Error::ReleaseCheck {
            algorithm: algorithm.to_owned(),
            detail: "leftover rows and no done rows to absorb them".to_owned(),
        })
}

// Long: runs every component, settles its leftovers (suppressed within the budget, else absorbed),
// then writes raw cells, each component's levels and the `*` rows, in that order
/// The working-set loop of every component, its leftovers suppressed when
/// `may_suppress` and the budget allows, else absorbed; `None` when some
/// component has leftovers and no done rows.
fn recode(
    data: &Dataset,
    model: &PrivacyModel,
    budget: usize,
    components: &[Component],
    filter: &dyn TupleFilter,
    may_suppress: bool,
) -> Option<Outcome> {
    let n = data.rows();
    let known = model.l_codes(data);
    let sensitive = known.as_ref().map(|(c, l)| (&c[..], *l));
    let mut suppressed = vec![false; n];
    let mut suppressed_count = 0usize;
    let mut runs: Vec<ComponentRun> = components
        .iter()
        .map(|c| run_component(data, c, &suppressed, filter, sensitive))
        .collect();
    let mut absorbed: Option<Vec<Vec<Block>>> = None;
    loop {
        let mut leftovers: Vec<u32> = runs.iter().flat_map(|r| r.leftovers.clone()).collect();
        leftovers.sort_unstable();
        leftovers.dedup();
        if leftovers.is_empty() {
            break;
        }
        if !(may_suppress && suppressed_count + leftovers.len() <= budget) {
            absorbed = Some(
                components
                    .iter()
                    .zip(&runs)
                    .map(|(c, run)| absorb(data, c, run))
                    .collect::<Option<Vec<_>>>()?,
            );
            break;
        }
        for &r in &leftovers {
            suppressed[r as usize] = true;
        }
        suppressed_count += leftovers.len();
        // A suppressed row that sat in a batch of some component leaves it:
        // recompute that component without it.
        for (c, run) in components.iter().zip(runs.iter_mut()) {
            let hit = run
                .batches
                .iter()
                .any(|b| b.rows.iter().any(|&r| suppressed[r as usize]));
            if hit {
                *run = run_component(data, c, &suppressed, filter, sensitive);
            } else {
                run.leftovers.clear();
            }
        }
    }

    // Raw cells everywhere, then each component's levels, then `*` rows.
    let mut cells: Vec<Vec<Cell>> = (0..data.qis.len())
        .map(|q| data.qi_codes(q).iter().map(|&c| Cell::Value(c)).collect())
        .collect();
    let mut place = |component: &Component, rows: &[u32], levels: &[usize]| {
        for (a, &q) in component.qis.iter().enumerate() {
            let qi = &data.qis[q];
            let codes = data.qi_codes(q);
            for &r in rows {
                cells[q][r as usize] = Cell::at_level(qi, levels[a], codes[r as usize]);
            }
        }
    };
    match &absorbed {
        Some(absorbed) => {
            for (c, blocks) in components.iter().zip(absorbed) {
                for b in blocks {
                    place(c, &b.rows, &b.levels);
                }
            }
        }
        None => {
            for (c, run) in components.iter().zip(&runs) {
                for b in &run.batches {
                    place(c, &b.rows, &b.levels);
                }
            }
        }
    }
    for column in &mut cells {
        for (cell, &s) in column.iter_mut().zip(&suppressed) {
            if s {
                *cell = Cell::Suppressed;
            }
        }
    }
    Some(Outcome {
        release: Release::from_cells(&cells),
        levels: None,
        minimal_levels: None,
    })
}

/// Classfly on the union constraint of the model (one constraint when the
/// model is a single k).
pub fn classfly(data: &Dataset, model: &PrivacyModel, budget: usize) -> Result<Outcome> {
    let constraints = with_l_diversity(model, data.qis.len());
    let all: Vec<&crate::privacy::Constraint> = constraints.iter().collect();
    let mut component = Component::new(&all);
    component.constraints = vec![component.union()];
    local_recoding(data, model, budget, "classfly", &[component], &UnionFilter)
}

/// The model's constraints, and under l-diversity one more, every QI with
/// k = 1: l is counted on the classes of every QI, so the working set must
/// span them all, and a leftover row absorbed into a block must then join
/// one of its classes on every QI (which holds l values already).
pub(crate) fn with_l_diversity(
    model: &PrivacyModel,
    qis: usize,
) -> Vec<crate::privacy::Constraint> {
    let mut constraints = model.constraints.clone();
    if model.l_diversity.is_some() {
        constraints.push(crate::privacy::Constraint {
            qis: (0..qis).collect(),
            k: 1,
        });
    }
    constraints
}
