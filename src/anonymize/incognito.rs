//! Incognito (LeFevre, DeWitt and Ramakrishnan, SIGMOD 2005): every minimal
//! full-domain generalization that satisfies the privacy model.
//!
//! The search runs over the generalization lattices of the QI subsets of
//! growing size. For a subset S, the candidates are the level vectors whose
//! projections on every subset of S one smaller satisfy the model (subset
//! property: dropping a QI only merges classes). The candidates are visited
//! bottom-up, by total height; a candidate above a satisfying node
//! satisfies too and is marked without being counted (generalization
//! property). Any other candidate is counted on its frequency set, rolled up
//! from the frequency set of a direct predecessor that failed (the smallest
//! one), or, at the bottom of the candidates, from the table's frequency set
//! of distinct QI tuples; rows are never read again after that first pass.
//! Frequency sets are kept only while the next height may roll up from them.
//!
//! Choices the paper leaves open, made here (`ALGORITHMS.md`):
//! - a node satisfies the model when the rows in classes too small for some
//!   constraint (each constraint counted on its own QIs, restricted to the
//!   subset) fit in the suppression budget; both pruning properties hold
//!   for that count, since generalizing or dropping a QI only merges
//!   classes;
//! - the lattice spans the QIs of the constraints (every QI under
//!   l-diversity); other QIs stay raw;
//! - under `strict` the suppressed rows must reach max k, so a node with 1
//!   to max k - 1 violating rows is not valid and the valid nodes are not
//!   closed upwards: the minimal valid ones are the minimal nodes within the
//!   budget with 0 or at least max k violating rows, and the minimal nodes
//!   with none (a second search, budget 0) above none of those;
//! - the counts do not see l-diversity: under it the minimal vectors whose
//!   release fails l are dropped, and when none is left the release is
//!   Datafly's climb from the best one (the root at the latest);
//! - the release is the minimal vector with the highest Precision (its
//!   suppressed rows count as `*` in every QI), then the lowest total
//!   height, then the lexicographically smallest; `minimal_levels` lists
//!   every minimal vector in that order, the release's first.

use std::cmp::Ordering;

use rustc_hash::FxHashMap;

use crate::Result;
use crate::anonymize::datafly::{GlobalState, climb, most_distinct};
use crate::anonymize::{AnonymizeError, Outcome, weighted_failures};
use crate::config::SuppressionPolicy;
use crate::dataset::Dataset;
use crate::frequency::{FrequencySet, checks_for, violating_groups, violating_rows};
use crate::privacy::PrivacyModel;
use crate::release::Release;

/// The largest search space taken on: the nodes of the lattices of every
/// subset of the constrained QIs, prod(height + 2) - 1. Adult's 9 QIs make
/// 207,359; 2^25 keeps the per-subset tables in memory and the run in
/// seconds on the widest lattices a user is likely to try.
pub const MAX_SEARCH_SPACE: u64 = 1 << 25;

/// One QI of the lattice with its generalization tables.
struct Attribute {
    height: usize,
    /// The level-0 node (leaf) of each dictionary code.
    leaf_of: Vec<u32>,
    /// `up[from][to][node]`: the node at level `to` above `node` at level
    /// `from` (`to >= from`).
    up: Vec<Vec<Vec<u32>>>,
    /// How many nodes each level has.
    nodes: Vec<u32>,
}

impl Attribute {
    fn new(data: &Dataset, q: usize) -> Attribute {
        let qi = &data.qis[q];
        let h = qi
            .hierarchy
            .as_ref()
            .expect("checked by require_hierarchies");
        let height = h.height();
        Attribute {
            height,
            leaf_of: qi.level_map(0),
            up: (0..=height)
                .map(|from| {
                    let mut maps: Vec<Vec<u32>> = vec![Vec::new(); from];
                    maps.push((0..h.nodes(from) as u32).collect());
                    for to in from + 1..=height {
                        let next = maps[to - 1].iter().map(|&n| h.parent(to - 1, n)).collect();
                        maps.push(next);
                    }
                    maps
                })
                .collect(),
            nodes: (0..=height).map(|l| h.nodes(l) as u32).collect(),
        }
    }
}

/// The generalization lattice of one subset of the attributes. A node is
/// the mixed-radix number of its level vector, the first attribute
/// counting fastest, so a direct generalization on attribute `j` is
/// `node + strides[j]`.
struct Sublattice {
    /// Attribute positions, ascending.
    attrs: Vec<usize>,
    strides: Vec<usize>,
    /// `height + 1` of each attribute.
    radix: Vec<usize>,
    /// Whether each node satisfies the model within the budget.
    satisfied: Vec<bool>,
    /// Violating rows of the nodes that were counted and satisfied.
    violations: FxHashMap<usize, usize>,
}

impl Sublattice {
    fn new(attrs: Vec<usize>, attributes: &[Attribute]) -> Sublattice {
        let radix: Vec<usize> = attrs.iter().map(|&a| attributes[a].height + 1).collect();
        let mut strides = Vec::with_capacity(radix.len());
        let mut size = 1;
        for &r in &radix {
            strides.push(size);
            size *= r;
        }
        Sublattice {
            attrs,
            strides,
            radix,
            satisfied: vec![false; size],
            violations: FxHashMap::default(),
        }
    }

    fn size(&self) -> usize {
        self.satisfied.len()
    }

    #[inline]
    fn level(&self, node: usize, j: usize) -> usize {
        node / self.strides[j] % self.radix[j]
    }

    fn levels(&self, node: usize) -> Vec<usize> {
        (0..self.attrs.len()).map(|j| self.level(node, j)).collect()
    }

    /// The node of the lattice without attribute `j` that `node` projects to.
    #[inline]
    fn project(&self, node: usize, j: usize) -> usize {
        let low = node % self.strides[j];
        let high = node / (self.strides[j] * self.radix[j]);
        low + high * self.strides[j]
    }

    /// Node counts of each attribute at the levels of `node` (the radices of
    /// its frequency set).
    fn radices(&self, node: usize, attributes: &[Attribute]) -> Vec<u32> {
        (0..self.attrs.len())
            .map(|j| attributes[self.attrs[j]].nodes[self.level(node, j)])
            .collect()
    }
}

/// The search state shared by every subset.
struct Search<'a> {
    attributes: &'a [Attribute],
    constraints: &'a [(Vec<usize>, usize)],
    /// The table's frequency set over every attribute, at the levels
    /// `floor`.
    base: FrequencySet,
    /// The lowest level of each attribute a candidate can have: 0 at
    /// first, then the lowest satisfying level of the attribute alone (a
    /// candidate's projection on one attribute satisfies). Raising the
    /// floor shrinks the base every subset's roots are counted from.
    floor: Vec<usize>,
    budget: usize,
}

impl Search<'_> {
    /// The frequency set of `node` computed from the table's frequency set.
    fn frequencies_from_base(&self, lat: &Sublattice, node: usize) -> FrequencySet {
        let maps: Vec<&[u32]> = (0..lat.attrs.len())
            .map(|j| {
                let a = lat.attrs[j];
                &self.attributes[a].up[self.floor[a]][lat.level(node, j)][..]
            })
            .collect();
        let attrs = &lat.attrs;
        self.base.rollup(
            attrs.len(),
            &lat.radices(node, self.attributes),
            |t, out| {
                for ((o, &a), map) in out.iter_mut().zip(attrs).zip(&maps) {
                    *o = map[t[a] as usize];
                }
            },
            None,
        )
    }

    /// The frequency set of `node` rolled up from `fs`, that of `from`, a
    /// node below it.
    fn raise(&self, lat: &Sublattice, fs: &FrequencySet, from: usize, node: usize) -> FrequencySet {
        let maps: Vec<&[u32]> = (0..lat.attrs.len())
            .map(|j| &self.attributes[lat.attrs[j]].up[lat.level(from, j)][lat.level(node, j)][..])
            .collect();
        fs.rollup(
            lat.attrs.len(),
            &lat.radices(node, self.attributes),
            |t, out| {
                for ((o, &v), map) in out.iter_mut().zip(t).zip(&maps) {
                    *o = map[v as usize];
                }
            },
            None,
        )
    }

    // Long: the sublattice search of one QI subset as Incognito gives it: candidates from the
    // smaller subsets, then nodes checked bottom-up by height from frequency sets
    /// Searches the lattice of the subset `attrs`, given the results of its
    /// subsets one smaller.
    fn subset(&self, attrs: Vec<usize>, smaller: &FxHashMap<u64, Sublattice>) -> Sublattice {
        let mut lat = Sublattice::new(attrs, self.attributes);
        let width = lat.attrs.len();
        let checks = checks_for(&lat.attrs, self.constraints);
        let mask = lat.attrs.iter().fold(0u64, |m, &a| m | 1 << a);
        let subs: Vec<&Sublattice> = if width == 1 {
            Vec::new()
        } else {
            lat.attrs
                .iter()
                .map(|&a| &smaller[&(mask & !(1 << a))])
                .collect()
        };
        let candidate = |lat: &Sublattice, node: usize| {
            subs.iter()
                .enumerate()
                .all(|(j, sub)| sub.satisfied[lat.project(node, j)])
        };

        // Bottom-up: nodes by total height (counting sort).
        let heights: Vec<usize> = (0..lat.size())
            .map(|n| lat.levels(n).iter().sum())
            .collect();
        let top = heights.iter().copied().max().unwrap_or(0);
        let mut order: Vec<Vec<usize>> = vec![Vec::new(); top + 1];
        for (n, &h) in heights.iter().enumerate() {
            order[h].push(n);
        }

        // The roots of the candidates (no candidate below them) roll up from
        // the paper's "super-root", the meet of the roots, counted once
        // from the table's frequency set.
        let is_candidate: Vec<bool> = (0..lat.size()).map(|n| candidate(&lat, n)).collect();
        let roots: Vec<usize> = (0..lat.size())
            .filter(|&n| {
                is_candidate[n]
                    && (0..width).all(|j| lat.level(n, j) == 0 || !is_candidate[n - lat.strides[j]])
            })
            .collect();
        let super_root = (roots.len() > 1).then(|| {
            let meet = (0..width).fold(0, |node, j| {
                let l = roots.iter().map(|&r| lat.level(r, j)).min().unwrap_or(0);
                node + l * lat.strides[j]
            });
            (meet, self.frequencies_from_base(&lat, meet))
        });

        // Frequency sets of the nodes that failed, one height below and at
        // the current height.
        let mut below: FxHashMap<usize, FrequencySet> = FxHashMap::default();
        for nodes in order {
            let mut here: FxHashMap<usize, FrequencySet> = FxHashMap::default();
            for node in nodes {
                if !is_candidate[node] {
                    continue;
                }
                let mut inherited = false;
                let mut source: Option<(usize, &FrequencySet)> = None;
                for j in 0..width {
                    if lat.level(node, j) == 0 {
                        continue;
                    }
                    let p = node - lat.strides[j];
                    if lat.satisfied[p] {
                        inherited = true;
                        break;
                    }
                    if let Some(fs) = below.get(&p)
                        && source.is_none_or(|(_, s)| fs.groups() < s.groups())
                    {
                        source = Some((j, fs));
                    }
                }
                if inherited {
                    lat.satisfied[node] = true;
                    continue;
                }
                let radices = lat.radices(node, self.attributes);
                let fs = match source {
                    Some((j, parent_fs)) => {
                        let l = lat.level(node, j);
                        let up = &self.attributes[lat.attrs[j]].up[l - 1][l];
                        parent_fs.rollup(
                            width,
                            &radices,
                            |t, out| {
                                out.copy_from_slice(t);
                                out[j] = up[t[j] as usize];
                            },
                            None,
                        )
                    }
                    None => match &super_root {
                        Some((meet, fs)) => self.raise(&lat, fs, *meet, node),
                        None => self.frequencies_from_base(&lat, node),
                    },
                };
                let v = violating_rows(&fs, &checks, &radices);
                if v <= self.budget {
                    lat.satisfied[node] = true;
                    lat.violations.insert(node, v);
                } else {
                    here.insert(node, fs);
                }
            }
            below = here;
        }
        lat
    }
}

/// Runs Incognito: `Outcome::minimal_levels` holds every minimal vector
/// (one level per QI, QIs outside the constraints at 0), best first; the
/// release is the first.
pub fn incognito(data: &Dataset, model: &PrivacyModel, budget: usize) -> Result<Outcome> {
    search(data, None, model, budget)
}

/// Incognito over a frequency set: `data` holds one row per distinct QI
/// tuple, standing for `weights[row]` rows of the table.
pub(crate) fn incognito_weighted(
    data: &Dataset,
    weights: &[u32],
    model: &PrivacyModel,
    budget: usize,
) -> Result<Outcome> {
    search(data, Some(weights), model, budget)
}

// Long: one pass over the rows, the searches with and without the budget, the choice of minimal
// vectors and the fallback when none holds l, in that order
/// [`incognito`] on the rows of `data`, each standing for `weights[row]`
/// rows when given (a frequency set).
fn search(
    data: &Dataset,
    weights: Option<&[u32]>,
    model: &PrivacyModel,
    budget: usize,
) -> Result<Outcome> {
    data.require_hierarchies("incognito")?;
    let rows = weights.map_or(data.rows(), |w| w.iter().map(|&n| n as usize).sum());
    let qis = model.constrained_qis(data.qis.len());
    let attributes: Vec<Attribute> = qis.iter().map(|&q| Attribute::new(data, q)).collect();
    let m = attributes.len();
    let space = attributes
        .iter()
        .try_fold(1u64, |acc, a| acc.checked_mul(a.height as u64 + 2))
        .map(|s| s - 1);
    if space.is_none_or(|s| s > MAX_SEARCH_SPACE) {
        return Err(AnonymizeError::SearchSpaceTooLarge {
            algorithm: "incognito".to_owned(),
            qis: m,
            nodes: space.map_or_else(|| "more than 2^64".to_owned(), |s| s.to_string()),
            limit: MAX_SEARCH_SPACE,
        }
        .into());
    }
    let constraints = model.constraints_within(&qis);
    // The one pass over the rows: their distinct tuples of leaves.
    let leaves: Vec<Vec<u32>> = qis
        .iter()
        .zip(&attributes)
        .map(|(&q, a)| {
            data.qi_codes(q)
                .iter()
                .map(|&c| a.leaf_of[c as usize])
                .collect()
        })
        .collect();
    let columns: Vec<&[u32]> = leaves.iter().map(Vec::as_slice).collect();
    let radices: Vec<u32> = attributes.iter().map(|a| a.nodes[0]).collect();
    let (base, group_of) = match weights {
        Some(w) => FrequencySet::of_weighted(&columns, w, &radices, data.rows()),
        None => FrequencySet::of_columns(&columns, &radices, data.rows()),
    };
    drop(leaves);
    let search =
        |budget: usize| minimal_choices(data, rows, &qis, &attributes, &constraints, &base, budget);
    let mut choices = search(budget);
    choices.sort_by(Choice::order);
    let first = choices[0].levels.clone();
    let max_k = model.max_k();
    if model.policy == SuppressionPolicy::Strict && budget > 0 {
        // Suppressed rows must form a class of max k: a node whose
        // violating rows number 1 to max k - 1 is not valid, so the valid
        // nodes are not closed upwards. The minimal ones are those of this
        // search with 0 or at least max k violating rows, and the minimal
        // nodes with none (the search with no budget) above none of those.
        choices.retain(|c| c.suppressed == 0 || c.suppressed >= max_k);
        for exact in search(0) {
            let dominated = choices
                .iter()
                .any(|c| c.levels.iter().zip(&exact.levels).all(|(a, b)| a <= b));
            if !dominated {
                choices.push(exact);
            }
        }
    }
    let checks = checks_for(&(0..m).collect::<Vec<_>>(), &constraints);
    // The release at `levels`: rows in violating groups suppressed.
    let release_at = |levels: &[usize]| {
        let radices: Vec<u32> = (0..m)
            .map(|j| attributes[j].nodes[levels[qis[j]]])
            .collect();
        let maps: Vec<&[u32]> = (0..m)
            .map(|j| &attributes[j].up[0][levels[qis[j]]][..])
            .collect();
        let mut assign = Vec::new();
        let chosen = base.rollup(
            m,
            &radices,
            |t, out| {
                for ((o, &v), map) in out.iter_mut().zip(t).zip(&maps) {
                    *o = map[v as usize];
                }
            },
            Some(&mut assign),
        );
        let bad = violating_groups(&chosen, &checks, &radices);
        let suppressed: Vec<bool> = group_of
            .iter()
            .map(|&g| bad[assign[g as usize] as usize])
            .collect();
        Release::from_levels(data, levels, &suppressed)
    };
    if model.l_diversity.is_some() || model.models.any() {
        // The counts ignore l and the models beyond k: keep the vectors whose release holds it.
        choices.retain(|c| {
            weighted_failures(data, weights, model, &release_at(&c.levels), budget).is_empty()
        });
    }
    choices.sort_by(Choice::order);
    if choices.is_empty() {
        // No minimal vector holds l: Datafly's climb from the best of them
        // ends where one does, at the root at the latest.
        let mut state = GlobalState::weighted(data, weights, model);
        for (q, &l) in first.iter().enumerate() {
            for _ in 0..l {
                state.raise(q);
            }
        }
        let mut outcome = climb(data, model, budget, state, most_distinct);
        outcome.minimal_levels = outcome.levels.clone().map(|l| vec![l]);
        return Ok(outcome);
    }
    let release = release_at(&choices[0].levels);
    Ok(Outcome {
        release,
        levels: Some(choices[0].levels.clone()),
        minimal_levels: Some(choices.into_iter().map(|c| c.levels).collect()),
    })
}

/// Every minimal vector (one level per QI, QIs outside `qis` at 0) whose
/// violating rows fit in `budget`, unsorted.
fn minimal_choices(
    data: &Dataset,
    rows: usize,
    qis: &[usize],
    attributes: &[Attribute],
    constraints: &[(Vec<usize>, usize)],
    base: &FrequencySet,
    budget: usize,
) -> Vec<Choice> {
    let m = attributes.len();
    let mut search = Search {
        attributes,
        constraints,
        base: base.clone(),
        floor: vec![0; m],
        budget,
    };

    let mut smaller: FxHashMap<u64, Sublattice> = FxHashMap::default();
    for size in 1..=m {
        let mut current = FxHashMap::default();
        for mask in subsets(m, size) {
            let attrs: Vec<usize> = (0..m).filter(|&a| mask & (1 << a) != 0).collect();
            current.insert(mask, search.subset(attrs, &smaller));
        }
        if size == 1 && m > 1 {
            let floor: Vec<usize> = (0..m)
                .map(|a| {
                    let lat = &current[&(1u64 << a)];
                    lat.satisfied.iter().position(|&s| s).unwrap_or(0)
                })
                .collect();
            let maps: Vec<&[u32]> = (0..m).map(|a| &attributes[a].up[0][floor[a]][..]).collect();
            let radices: Vec<u32> = (0..m).map(|a| attributes[a].nodes[floor[a]]).collect();
            search.base = base.rollup(
                m,
                &radices,
                |t, out| {
                    for ((o, &v), map) in out.iter_mut().zip(t).zip(&maps) {
                        *o = map[v as usize];
                    }
                },
                None,
            );
            search.floor = floor;
        }
        smaller = current;
    }
    let full = smaller
        .remove(&((1u64 << m) - 1))
        .expect("the whole set is the last subset");

    // Minimal: satisfied, with no satisfied direct predecessor.
    let minimal: Vec<usize> = (0..full.size())
        .filter(|&n| {
            full.satisfied[n]
                && (0..m).all(|j| full.level(n, j) == 0 || !full.satisfied[n - full.strides[j]])
        })
        .collect();
    let checks = checks_for(&full.attrs, constraints);
    minimal
        .iter()
        .map(|&n| {
            // A minimal node was counted (a marked one lies above a
            // satisfying node); count it again if the table lacks it.
            let suppressed = full.violations.get(&n).copied().unwrap_or_else(|| {
                let fs = search.frequencies_from_base(&full, n);
                violating_rows(&fs, &checks, &full.radices(n, attributes))
            });
            let mut levels = vec![0; data.qis.len()];
            for (j, &q) in qis.iter().enumerate() {
                levels[q] = full.level(n, j);
            }
            Choice::new(data, rows, levels, suppressed)
        })
        .collect()
}

/// A minimal vector with what ranks it.
struct Choice {
    levels: Vec<usize>,
    /// Rows in classes too small.
    suppressed: usize,
    /// Precision's loss, sum over cells of level / height, scaled by the
    /// lcm of the heights so that equal Precisions compare equal.
    loss: u128,
    total_height: usize,
}

impl Choice {
    fn new(data: &Dataset, rows: usize, levels: Vec<usize>, suppressed: usize) -> Choice {
        let heights: Vec<u128> = data
            .qis
            .iter()
            .map(|q| q.height().unwrap_or(1).max(1) as u128)
            .collect();
        let lcm = heights.iter().fold(1u128, |l, &h| l / gcd(l, h) * h);
        let kept = (rows - suppressed) as u128;
        let per_row: u128 = levels
            .iter()
            .zip(&heights)
            .map(|(&l, &h)| l as u128 * (lcm / h))
            .sum();
        let loss = kept * per_row + suppressed as u128 * lcm * heights.len() as u128;
        Choice {
            suppressed,
            total_height: levels.iter().sum(),
            levels,
            loss,
        }
    }

    /// Highest Precision (lowest loss), then lowest total height, then
    /// lexicographic.
    fn order(a: &Choice, b: &Choice) -> Ordering {
        a.loss
            .cmp(&b.loss)
            .then(a.total_height.cmp(&b.total_height))
            .then_with(|| a.levels.cmp(&b.levels))
    }
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The subsets of `size` of `0..m` as bit masks, in increasing order
/// (Gosper's hack).
fn subsets(m: usize, size: usize) -> impl Iterator<Item = u64> {
    let end = 1u64 << m;
    let mut mask = (1u64 << size) - 1;
    std::iter::from_fn(move || {
        if mask >= end {
            return None;
        }
        let current = mask;
        let c = mask & mask.wrapping_neg();
        let r = mask + c;
        mask = (((r ^ mask) >> 2) / c) | r;
        Some(current)
    })
}

#[cfg(test)]
mod tests {
    use super::subsets;

    #[test]
    fn subsets_enumerates_combinations() {
        let all: Vec<u64> = subsets(4, 2).collect();
        assert_eq!(all, vec![0b0011, 0b0101, 0b0110, 0b1001, 0b1010, 0b1100]);
        assert_eq!(subsets(3, 3).collect::<Vec<_>>(), vec![0b111]);
        assert_eq!(subsets(5, 1).count(), 5);
    }
}
