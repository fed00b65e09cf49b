//! Mondrian (LeFevre, DeWitt and Ramakrishnan 2006), strict
//! multidimensional partitioning with median cuts.
//!
//! Recursively cut a partition at the median of the QI with the widest
//! normalized range (numbers: value span over the column's span;
//! categories: leaf-order span over the hierarchy's), trying the next widest
//! when that QI allows no cut; stop when no QI does. Each partition is then
//! one class: numeric QIs released as the interval `lo~hi` of its values,
//! categorical QIs as the lowest common ancestor of its values. Ties between
//! equally wide QIs go to the earlier column. Cuts, missing values,
//! constraint sets and l-diversity follow [`super::partitioning`].
//!
//! Cost: O(n log n · q) expected. The rows live as fixed-width records (the
//! active QIs' ranks, then the row index) that the cuts permute in place, so
//! every partition is contiguous in memory and each scan is sequential; the
//! median comes from a three-way quickselect. Nothing is allocated per row.

use crate::Result;
use crate::anonymize::Outcome;
use crate::anonymize::partitioning::{Admission, Frame};
use crate::dataset::Dataset;
use crate::privacy::PrivacyModel;

/// Rows as records of `width` u32: the rank on each active QI (by slot),
/// then the row index.
struct Records {
    width: usize,
    data: Vec<u32>,
}

impl Records {
    fn new(frame: &Frame) -> Records {
        let stride = frame.ranks.stride;
        let width = stride + 1;
        let rows = frame.data.rows();
        let mut data = Vec::with_capacity(rows * width);
        for row in 0..rows {
            data.extend_from_slice(&frame.ranks.values[row * stride..(row + 1) * stride]);
            data.push(row as u32);
        }
        Records { width, data }
    }

    #[inline]
    fn key(&self, i: usize, slot: usize) -> u32 {
        self.data[i * self.width + slot]
    }

    #[inline]
    fn row(&self, i: usize) -> u32 {
        self.data[i * self.width + self.width - 1]
    }

    #[inline]
    fn swap(&mut self, i: usize, j: usize) {
        if i != j {
            let w = self.width;
            let (a, b) = (i.min(j), i.max(j));
            let (left, right) = self.data.split_at_mut(b * w);
            left[a * w..a * w + w].swap_with_slice(&mut right[..w]);
        }
    }

    /// The smallest and largest key of records `range` on every slot.
    fn ranges(&self, range: std::ops::Range<usize>, out: &mut Vec<(u32, u32)>) {
        let stride = self.width - 1;
        out.clear();
        out.resize(stride, (u32::MAX, 0));
        let w = self.width;
        for rec in self.data[range.start * w..range.end * w].chunks_exact(w) {
            for (r, &x) in out.iter_mut().zip(&rec[..stride]) {
                r.0 = r.0.min(x);
                r.1 = r.1.max(x);
            }
        }
    }

    /// Three-way partition of records `lo..hi` around `pivot` on `slot`:
    /// returns `(lt, gt)` with `[lo, lt)` below, `[lt, gt)` equal and
    /// `[gt, hi)` above the pivot.
    fn partition3(&mut self, lo: usize, hi: usize, slot: usize, pivot: u32) -> (usize, usize) {
        let (mut lt, mut i, mut gt) = (lo, lo, hi);
        while i < gt {
            let x = self.key(i, slot);
            if x < pivot {
                self.swap(lt, i);
                lt += 1;
                i += 1;
            } else if x > pivot {
                gt -= 1;
                self.swap(i, gt);
            } else {
                i += 1;
            }
        }
        (lt, gt)
    }

    /// Arranges records `range` as `[< m][= m][> m]` around the median key m
    /// on `slot`; returns the bounds `(below, after)` of the `= m` block,
    /// relative to `range.start`. Quickselect with median-of-three pivots:
    /// everything left of the working window is smaller than all in it and
    /// everything right of it larger, so the final block is the global one.
    fn median_blocks(&mut self, range: std::ops::Range<usize>, slot: usize) -> (usize, usize) {
        let mid = range.start + range.len() / 2;
        let (mut lo, mut hi) = (range.start, range.end);
        loop {
            let (a, b, c) = (
                self.key(lo, slot),
                self.key(lo + (hi - lo) / 2, slot),
                self.key(hi - 1, slot),
            );
            let pivot = a.max(b).min(a.min(b).max(c));
            let (lt, gt) = self.partition3(lo, hi, slot, pivot);
            if mid < lt {
                hi = lt;
            } else if mid >= gt {
                lo = gt;
            } else {
                return (lt - range.start, gt - range.start);
            }
        }
    }

    fn admits(&self, admission: &mut Admission, range: std::ops::Range<usize>) -> bool {
        let len = range.len();
        admission.admits_rows(len, range.map(|i| self.row(i)))
    }
}

/// The strict median cut of records `range` on `slot` (see
/// [`super::partitioning::median_cut`], the same rule on a row-index array):
/// the cut position relative to `range.start`, or `None`.
fn median_cut(
    records: &mut Records,
    range: std::ops::Range<usize>,
    slot: usize,
    admission: &mut Admission,
) -> Option<usize> {
    let len = range.len();
    if len < 2 * admission.k.max(1) {
        return None;
    }
    let (below, after) = records.median_blocks(range.clone(), slot);
    let balance = |at: usize| at.min(len - at);
    let mut best: Option<usize> = None;
    for at in [after, below] {
        if at == 0 || at == len || best.is_some_and(|b| balance(b) >= balance(at)) {
            continue;
        }
        let split = range.start + at;
        if records.admits(admission, range.start..split)
            && records.admits(admission, split..range.end)
        {
            best = Some(at);
        }
    }
    best
}

pub fn mondrian(data: &Dataset, model: &PrivacyModel) -> Result<Outcome> {
    let mut frame = Frame::new(data, model);
    let mut records = Records::new(&frame);
    let mut stack = vec![0..data.rows()];
    let mut done = Vec::new();
    let mut widths: Vec<(f64, usize)> = Vec::with_capacity(frame.active.len());
    let mut ranges = Vec::with_capacity(frame.active.len());
    while let Some(part) = stack.pop() {
        if part.len() < 2 * frame.admission.k {
            done.push(part);
            continue;
        }
        widths.clear();
        records.ranges(part.clone(), &mut ranges);
        for (slot, (&q, &(lo, hi))) in frame.active.iter().zip(&ranges).enumerate() {
            let w = frame.axes[q].width(lo, hi);
            if w > 0.0 {
                widths.push((w, slot));
            }
        }
        // Widest first; the sort is stable, so ties keep column order.
        widths.sort_by(|a, b| b.0.total_cmp(&a.0));
        let cut = widths.iter().find_map(|&(_, slot)| {
            median_cut(&mut records, part.clone(), slot, &mut frame.admission)
        });
        match cut {
            Some(at) => {
                stack.push(part.start + at..part.end);
                stack.push(part.start..part.start + at);
            }
            None => done.push(part),
        }
    }
    let rows: Vec<u32> = (0..data.rows()).map(|i| records.row(i)).collect();
    drop(records);
    Ok(Outcome {
        release: frame.release(&rows, &done),
        levels: None,
        minimal_levels: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_blocks_bracket_the_median_value() {
        // A deterministic scramble of keys with many repeats.
        for len in [1usize, 2, 3, 10, 57, 200] {
            for modulus in [1u32, 2, 5, 50] {
                let keys: Vec<u32> = (0..len as u32)
                    .map(|i| (i * 7919 + 13) % 101 % modulus)
                    .collect();
                let mut data = Vec::new();
                for (row, &k) in keys.iter().enumerate() {
                    data.extend_from_slice(&[k, row as u32]);
                }
                let mut r = Records { width: 2, data };
                let (below, after) = r.median_blocks(0..len, 0);
                let mut sorted = keys.clone();
                sorted.sort_unstable();
                let m = sorted[len / 2];
                assert_eq!(
                    below,
                    sorted.partition_point(|&x| x < m),
                    "len {len} mod {modulus}"
                );
                assert_eq!(
                    after,
                    sorted.partition_point(|&x| x <= m),
                    "len {len} mod {modulus}"
                );
                for i in 0..len {
                    let k = r.key(i, 0);
                    assert_eq!(keys[r.row(i) as usize], k, "records move whole");
                    assert!(if i < below {
                        k < m
                    } else if i < after {
                        k == m
                    } else {
                        k > m
                    });
                }
            }
        }
    }
}
