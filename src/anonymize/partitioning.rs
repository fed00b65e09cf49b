//! What the partitioning anonymizers (Mondrian, Basic Mondrian, Top-down
//! greedy) share: a total order on every QI, the test a cut must pass, and
//! the release of a set of partitions.
//!
//! A partition is a range of one row-index array that the algorithms reorder
//! in place, so cutting never allocates per row.
//!
//! Choices the papers leave open, made here:
//! - **Order.** Numeric QIs are ordered by value; categorical QIs by the leaf
//!   order of their hierarchy file (`ALGORITHMS.md`). A numeric QI needs no
//!   hierarchy: its range is the span of the column's values.
//! - **Missing values** in a numeric column (`numbers[code] == None`) are
//!   ordered after every number, so a median cut separates them from the
//!   numbers as from any other value. A partition that holds a missing token
//!   beside a number (or two different tokens) cannot be shown as an
//!   interval: its cell generalizes further, to the lowest common ancestor
//!   in the QI's hierarchy when it has one, else to `*`; such a cell costs
//!   a full width (1) when the methods choose where to cut.
//! - **Constraint sets.** A cut is allowed only when every constraint still
//!   holds on both sides, each side counted as one class: so each side keeps
//!   at least the largest k of the set. Every released class of every
//!   constraint is then a union of partitions and large enough. QIs that
//!   appear in no constraint are never cut and are released raw.
//! - **l-diversity** (when configured): a cut is also allowed only when both
//!   sides keep at least l distinct sensitive values.
//! - **The models beyond k** (t-closeness, (α,k), entropy and recursive ℓ,
//!   δ-disclosure, β-likeness): a cut is allowed only when both sides
//!   satisfy each on every sensitive column (`privacy::constraint`).
//! - A partition whose every cell reaches `*` reads as star rows to the
//!   verifier; every partition keeps the largest k (and l), so together
//!   they are an ordinary class, never suppressed rows (`spec/FORMAT.md`
//!   §5).

use std::ops::Range;
use std::sync::Arc;

use crate::cell::Cell;
use crate::classes::MISSING_VALUE;
use crate::dataset::{Dataset, QuasiIdentifier};
use crate::privacy::constraint::ClassConstraint;
use crate::privacy::{PrivacyModel, sensitive};
use crate::release::{QiCells, Release};

/// One QI's total order.
pub(crate) struct Axis {
    /// The rank of each dictionary code.
    pub rank_of: Vec<u32>,
    /// The dictionary code at each rank (`u32::MAX` for a hierarchy leaf
    /// absent from the data).
    pub code_at: Vec<u32>,
    /// Numeric QIs: the number at each rank below `missing_from`.
    pub number_at: Vec<f64>,
    /// Numeric QIs: the first rank that is a missing-value token.
    pub missing_from: u32,
    /// Numeric QIs: max - min of the column's numbers; categorical QIs: the
    /// hierarchy's leaf count - 1 (the widest rank span).
    pub span: f64,
    pub numeric: bool,
}

impl Axis {
    pub fn new(data: &Dataset, q: usize) -> Axis {
        let qi = &data.qis[q];
        if qi.value_type.is_numeric() {
            let mut order: Vec<u32> = (0..qi.numbers.len() as u32).collect();
            // Numbers ascending, then the missing tokens; ties by code, so the
            // order does not depend on the sort.
            order.sort_by(|&a, &b| {
                let key = |c: u32| qi.numbers[c as usize];
                match (key(a), key(b)) {
                    (Some(x), Some(y)) => x.total_cmp(&y).then(a.cmp(&b)),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => a.cmp(&b),
                }
            });
            let mut rank_of = vec![0u32; order.len()];
            for (rank, &code) in order.iter().enumerate() {
                rank_of[code as usize] = rank as u32;
            }
            let number_at: Vec<f64> = order
                .iter()
                .map_while(|&c| qi.numbers[c as usize])
                .collect();
            let missing_from = number_at.len() as u32;
            let span = match (number_at.first(), number_at.last()) {
                (Some(lo), Some(hi)) => hi - lo,
                _ => 0.0,
            };
            Axis {
                rank_of,
                code_at: order,
                number_at,
                missing_from,
                span,
                numeric: true,
            }
        } else {
            let h = qi
                .hierarchy
                .as_ref()
                .expect("the loader gives every categorical QI a hierarchy");
            let mut code_at = vec![u32::MAX; h.leaf_count()];
            for (code, &leaf) in qi.leaf_of.iter().enumerate() {
                code_at[leaf as usize] = code as u32;
            }
            Axis {
                rank_of: qi.leaf_of.clone(),
                code_at,
                number_at: Vec::new(),
                missing_from: u32::MAX,
                span: (h.leaf_count().saturating_sub(1)) as f64,
                numeric: false,
            }
        }
    }

    /// The normalized width of the rank range `lo..=hi`, in [0, 1].
    #[inline]
    pub fn width(&self, lo: u32, hi: u32) -> f64 {
        if lo == hi || self.span <= 0.0 {
            return if lo == hi { 0.0 } else { 1.0 };
        }
        if self.numeric {
            if hi >= self.missing_from {
                return 1.0;
            }
            (self.number_at[hi as usize] - self.number_at[lo as usize]) / self.span
        } else {
            f64::from(hi - lo) / self.span
        }
    }
}

/// Whether a set of rows may stand as one class: at least `k` rows and,
/// with l-diversity, at least `l` distinct sensitive values.
pub(crate) struct Admission<'a> {
    pub k: usize,
    /// Distinct l's codes ([`MISSING_VALUE`] for a missing cell) and l.
    sensitive: Option<(Vec<u32>, usize)>,
    /// Per sensitive code, the epoch it was last seen in (no clearing).
    seen: Vec<u32>,
    epoch: u32,
    /// The models beyond k, when claimed.
    models: Option<ClassConstraint<'a>>,
}

impl<'a> Admission<'a> {
    pub fn new(data: &'a Dataset, model: &PrivacyModel) -> Self {
        let sensitive = model.l_codes(data);
        let seen = model.l_diversity.map_or(Vec::new(), |(col, _)| {
            vec![0; data.table.columns[col].dict.len()]
        });
        let models = model.models.any().then(|| {
            let columns: Vec<_> = model
                .sensitive
                .iter()
                .map(|&c| sensitive::of_dataset(data, c))
                .collect();
            ClassConstraint::new(&columns, &model.models)
        });
        Admission {
            k: model.max_k(),
            sensitive,
            seen,
            epoch: 0,
            models,
        }
    }

    /// Whether `rows` may form a class.
    pub fn admits(&mut self, rows: &[u32]) -> bool {
        self.admits_rows(rows.len(), rows.iter().copied())
            && self.models.as_mut().is_none_or(|m| m.holds(rows))
    }

    /// Whether the `len` rows of `rows` may form a class.
    pub fn admits_rows(&mut self, len: usize, rows: impl Iterator<Item = u32>) -> bool {
        if len < self.k {
            return false;
        }
        let Some((codes, l)) = &self.sensitive else {
            return true;
        };
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        let mut distinct = 0;
        for r in rows {
            let code = codes[r as usize];
            if code == MISSING_VALUE {
                continue;
            }
            let s = &mut self.seen[code as usize];
            if *s != self.epoch {
                *s = self.epoch;
                distinct += 1;
                if distinct >= *l {
                    return true;
                }
            }
        }
        // A class of missing cells alone discloses no value (vacuous).
        distinct == 0
    }

    /// Whether `rows` may be cut at `at` into two classes.
    pub fn admits_cut(&mut self, rows: &[u32], at: usize) -> bool {
        self.admits(&rows[..at]) && self.admits(&rows[at..])
    }
}

/// Every row's rank on every active QI, row-major: the ranks of one row sit
/// together, so a scan over a partition (whose row indices are scattered)
/// touches one cache line per row instead of one per QI.
pub(crate) struct Ranks {
    /// Active QIs per row.
    pub stride: usize,
    /// The slot of each QI within a row, `usize::MAX` when inactive.
    slot_of: Vec<usize>,
    pub values: Vec<u32>,
}

impl Ranks {
    /// The rank of `row` on the active QI in slot `slot`.
    #[inline]
    pub fn at_slot(&self, slot: usize, row: u32) -> u32 {
        self.values[row as usize * self.stride + slot]
    }

    /// The slot of QI `q` (active).
    pub fn slot(&self, q: usize) -> usize {
        self.slot_of[q]
    }

    /// The smallest and largest rank of `rows` on every active QI, by slot,
    /// in one pass.
    pub fn ranges(&self, rows: &[u32], out: &mut Vec<(u32, u32)>) {
        out.clear();
        out.resize(self.stride, (u32::MAX, 0));
        for &r in rows {
            let base = r as usize * self.stride;
            let row = &self.values[base..base + self.stride];
            for (range, &x) in out.iter_mut().zip(row) {
                range.0 = range.0.min(x);
                range.1 = range.1.max(x);
            }
        }
    }
}

/// The data a partitioning method works on.
pub(crate) struct Frame<'a> {
    pub data: &'a Dataset,
    pub axes: Vec<Axis>,
    pub ranks: Ranks,
    /// QIs in some constraint, in QI order (their slot order in `ranks`):
    /// the only ones cut and generalized.
    pub active: Vec<usize>,
    pub admission: Admission<'a>,
}

impl<'a> Frame<'a> {
    pub fn new(data: &'a Dataset, model: &PrivacyModel) -> Frame<'a> {
        let axes: Vec<Axis> = (0..data.qis.len()).map(|q| Axis::new(data, q)).collect();
        let active = model.constrained_qis(data.qis.len());
        let stride = active.len();
        let mut slot_of = vec![usize::MAX; data.qis.len()];
        let mut values = vec![0u32; data.rows() * stride];
        for (slot, &q) in active.iter().enumerate() {
            slot_of[q] = slot;
            let rank_of = &axes[q].rank_of;
            for (row, &c) in data.qi_codes(q).iter().enumerate() {
                values[row * stride + slot] = rank_of[c as usize];
            }
        }
        let ranks = Ranks {
            stride,
            slot_of,
            values,
        };
        Frame {
            data,
            axes,
            ranks,
            active,
            admission: Admission::new(data, model),
        }
    }

    /// The row-index array every partition is a range of.
    pub fn all_rows(&self) -> Vec<u32> {
        (0..self.data.rows() as u32).collect()
    }

    /// The smallest and largest rank of `rows` on QI `q`.
    #[inline]
    pub fn rank_range(&self, q: usize, rows: &[u32]) -> (u32, u32) {
        let slot = self.ranks.slot(q);
        rows.iter().fold((u32::MAX, 0), |(lo, hi), &r| {
            let x = self.ranks.at_slot(slot, r);
            (lo.min(x), hi.max(x))
        })
    }

    /// The released cell of QI `q` for the partition `rows`.
    pub fn cell(&self, q: usize, rows: &[u32]) -> Cell {
        let codes = self.data.qi_codes(q);
        class_cell(
            self.data,
            &self.axes[q],
            q,
            self.rank_range(q, rows),
            rows.iter().map(|&r| codes[r as usize]),
        )
    }

    /// The release of the partitions `parts` of `rows`: generalized cells for
    /// the active QIs, raw values for the others.
    pub fn release(&self, rows: &[u32], parts: &[Range<usize>]) -> Release {
        // Each row's part, the rows in no part after the parts (`*`).
        let outside = parts.len() as u32;
        let mut part_of = vec![outside; self.data.rows()];
        for (i, part) in parts.iter().enumerate() {
            for &r in &rows[part.clone()] {
                part_of[r as usize] = i as u32;
            }
        }
        let part_of = Arc::new(part_of);
        let qis = (0..self.data.qis.len())
            .map(|q| {
                if !self.active.contains(&q) {
                    let qi = &self.data.qis[q];
                    return QiCells::raw(self.data.qi_codes(q), qi.leaf_of.len());
                }
                let mut palette: Vec<Cell> = (parts.iter())
                    .map(|part| self.cell(q, &rows[part.clone()]))
                    .collect();
                palette.push(Cell::Suppressed);
                QiCells {
                    palette,
                    rows: Arc::clone(&part_of),
                }
            })
            .collect();
        Release { qis }
    }
}

/// The released cell of QI `q` (ordered by `axis`) for a class whose ranks
/// on `q` span `lo..=hi` and whose rows hold the dictionary codes `codes`:
/// an interval for numbers, the lowest common ancestor for categories. Any
/// order of `codes` gives the same cell.
pub(crate) fn class_cell(
    data: &Dataset,
    axis: &Axis,
    q: usize,
    (lo, hi): (u32, u32),
    codes: impl Iterator<Item = u32>,
) -> Cell {
    let qi = &data.qis[q];
    // One rank is one value (ranks and the codes present correspond one to
    // one): the cell is that value, without a look at the rows.
    if lo == hi {
        return Cell::Value(axis.code_at[lo as usize]);
    }
    if axis.numeric {
        if hi < axis.missing_from {
            return Cell::interval(axis.code_at[lo as usize], axis.code_at[hi as usize]);
        }
        // A missing token beside another value: no interval shows it.
        if qi.hierarchy.is_some() {
            common_ancestor(qi, codes)
        } else {
            Cell::Suppressed
        }
    } else {
        common_ancestor(qi, codes)
    }
}

/// The lowest common ancestor of the values `codes` (at least one) of `qi`,
/// which has a hierarchy, as a canonical cell.
fn common_ancestor(qi: &QuasiIdentifier, mut codes: impl Iterator<Item = u32>) -> Cell {
    let h = qi.hierarchy.as_ref().expect("caller checked the hierarchy");
    let first_code = codes.next().expect("a class has rows");
    let first = qi.leaf_of[first_code as usize];
    let mut level = 0;
    let mut node = first;
    for code in codes {
        let leaf = qi.leaf_of[code as usize];
        while h.node_of(level, leaf) != node {
            level += 1;
            node = h.node_of(level, first);
        }
    }
    Cell::at_level(qi, level, first_code)
}

/// Reorders `slice` so the elements satisfying `pred` come first; returns
/// how many do. Not stable; O(len), no allocation.
pub(crate) fn partition_in_place<T>(slice: &mut [T], mut pred: impl FnMut(&T) -> bool) -> usize {
    let mut front = 0;
    for i in 0..slice.len() {
        if pred(&slice[i]) {
            slice.swap(front, i);
            front += 1;
        }
    }
    front
}

/// The strict median cut of `rows` on the ranks `ranks` (LeFevre et al.
/// 2006): reorders `rows` and returns the cut position, or `None` when no
/// cut on this QI leaves an admissible class on both sides.
///
/// With m the median rank, rows split into `< m`, `= m`, `> m`; a strict cut
/// keeps all rows of one value on one side, so the candidates are just
/// before and just after the `= m` block. When both fail, every other cut
/// fails too (it leaves fewer rows on the short side), so the QI is done.
/// Of two admissible cuts the more balanced one wins, ties to `<= m | > m`.
pub(crate) fn median_cut(
    rows: &mut [u32],
    rank: impl Fn(u32) -> u32,
    admission: &mut Admission,
) -> Option<usize> {
    let len = rows.len();
    if len < 2 * admission.k.max(1) {
        return None;
    }
    let mid = len / 2;
    rows.select_nth_unstable_by_key(mid, |&r| rank(r));
    let m = rank(rows[mid]);
    let below = partition_in_place(&mut rows[..mid], |&r| rank(r) < m);
    let equal_right = partition_in_place(&mut rows[mid + 1..], |&r| rank(r) == m);
    let after = mid + 1 + equal_right;
    // rows = [< m][= m ... = m][> m], the equal block is [below, after).
    let balance = |at: usize| at.min(len - at);
    let mut best: Option<usize> = None;
    for at in [after, below] {
        if at == 0 || at == len {
            continue;
        }
        if best.is_some_and(|b| balance(b) >= balance(at)) {
            continue;
        }
        if admission.admits_cut(rows, at) {
            best = Some(at);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(k: usize) -> Admission<'static> {
        Admission {
            k,
            sensitive: None,
            seen: Vec::new(),
            epoch: 0,
            models: None,
        }
    }

    #[test]
    fn median_cut_keeps_equal_values_together() {
        let check = |ranks: [u32; 10], k: usize, expect: Option<usize>| {
            let mut rows: Vec<u32> = (0..10).rev().collect();
            let at = median_cut(&mut rows, |r| ranks[r as usize], &mut sizes(k));
            assert_eq!(at, expect, "{ranks:?} k={k}");
            if let Some(at) = at {
                let left = rows[..at].iter().map(|&r| ranks[r as usize]).max().unwrap();
                let right = rows[at..].iter().map(|&r| ranks[r as usize]).min().unwrap();
                assert!(left < right, "k={k}: a value on both sides");
            }
        };
        // Median value 1: `<= 1 | > 1` is 7|3, `< 1 | >= 1` is 2|8.
        let a = [0, 0, 1, 1, 1, 1, 1, 2, 3, 3];
        check(a, 1, Some(7));
        check(a, 3, Some(7));
        check(a, 4, None);
        // Median value 1: `<= 1 | > 1` is 9|1, `< 1 | >= 1` is 4|6.
        let b = [0, 0, 0, 0, 1, 1, 1, 1, 1, 2];
        check(b, 1, Some(4));
        check(b, 4, Some(4));
        check(b, 5, None);
    }

    #[test]
    fn partition_in_place_counts_and_orders() {
        let mut v = [5, 1, 4, 2, 3];
        let n = partition_in_place(&mut v, |&x| x < 3);
        assert_eq!(n, 2);
        assert!(v[..2].iter().all(|&x| x < 3));
        assert!(v[2..].iter().all(|&x| x >= 3));
    }
}
