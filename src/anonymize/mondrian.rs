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
//! active QIs' ranks in the narrowest integer type that holds them, beside
//! the row index) that the cuts permute in place, so every partition is
//! contiguous in memory and each scan is sequential; the median comes from
//! a three-way quickselect. A class's cells are computed when it is final,
//! from its records, and the release columns are then written in row order
//! from the per-class cells: no pass gathers or scatters cells by row index
//! across a table larger than the cache. Nothing is allocated per row.

use std::ops::Range;
use std::sync::Arc;

use crate::Result;
use crate::anonymize::Outcome;
use crate::anonymize::partitioning::{Admission, Axis, class_cell};
use crate::cell::Cell;
use crate::dataset::Dataset;
use crate::privacy::PrivacyModel;
use crate::release::{QiCells, Release};

/// The type of the records' ranks: the narrowest of u8, u16 and u32 that
/// holds every rank of the active QIs (Adult's all fit in a byte), and the
/// 16-byte lane of such ranks that a record is made of. The top levels of
/// the recursion stream the whole table through memory, so narrower ranks
/// move fewer bytes; and whole lanes let the range scan, which runs on
/// every partition, take a couple of SIMD min/max steps per record instead
/// of two scalar steps per QI.
trait Key: Copy + Ord + Into<u32> + TryFrom<u32> {
    type Lane: Copy + Default;
    /// Ranks per lane.
    const LANE: usize;
    fn get(lane: &Self::Lane, j: usize) -> Self;
    fn set(lane: &mut Self::Lane, j: usize, x: Self);
    /// Element-wise minimum and maximum.
    fn min_max(lo: &mut Self::Lane, hi: &mut Self::Lane, x: &Self::Lane);
}

macro_rules! key {
    ($t:ty, $n:expr) => {
        impl Key for $t {
            type Lane = [$t; $n];
            const LANE: usize = $n;
            #[inline(always)]
            fn get(lane: &Self::Lane, j: usize) -> $t {
                lane[j]
            }
            #[inline(always)]
            fn set(lane: &mut Self::Lane, j: usize, x: $t) {
                lane[j] = x;
            }
            #[inline(always)]
            fn min_max(lo: &mut Self::Lane, hi: &mut Self::Lane, x: &Self::Lane) {
                for j in 0..$n {
                    lo[j] = lo[j].min(x[j]);
                    hi[j] = hi[j].max(x[j]);
                }
            }
        }
    };
}

key!(u8, 16);
key!(u16, 8);
key!(u32, 4);

/// The rows as records: the ranks on the active QIs (slot `s` at element
/// `s % LANE` of lane `s / LANE`, the tail of the last lane unused), and
/// beside them the row index. Cuts permute records (both arrays alike) in
/// place, so every partition is a contiguous range and each scan is
/// sequential.
struct Records<K: Key> {
    /// Active QIs per record.
    stride: usize,
    /// Lanes per record.
    lanes: usize,
    /// The lanes of record `i` are `keys[i * lanes..][..lanes]`.
    keys: Vec<K::Lane>,
    /// The row index of each record.
    rows: Vec<u32>,
    /// Scratch of [`Records::ranges`].
    lo: Vec<K::Lane>,
    hi: Vec<K::Lane>,
}

impl<K: Key> Records<K> {
    /// One record per row, in row order. `K` must hold every rank of the
    /// `active` QIs.
    fn new(data: &Dataset, axes: &[Axis], active: &[usize]) -> Records<K> {
        let stride = active.len();
        let lanes = stride.div_ceil(K::LANE);
        let columns: Vec<(&[u32], &[u32])> = active
            .iter()
            .map(|&q| (data.qi_codes(q), &axes[q].rank_of[..]))
            .collect();
        let mut keys = vec![K::Lane::default(); data.rows() * lanes];
        for (row, record) in keys.chunks_exact_mut(lanes.max(1)).enumerate() {
            for (slot, &(codes, rank_of)) in columns.iter().enumerate() {
                let rank = K::try_from(rank_of[codes[row] as usize])
                    .ok()
                    .expect("the key type holds every rank");
                K::set(&mut record[slot / K::LANE], slot % K::LANE, rank);
            }
        }
        Records {
            stride,
            lanes,
            keys,
            rows: (0..data.rows() as u32).collect(),
            lo: Vec::with_capacity(lanes),
            hi: Vec::with_capacity(lanes),
        }
    }

    #[inline(always)]
    fn key(&self, i: usize, slot: usize) -> K {
        K::get(&self.keys[i * self.lanes + slot / K::LANE], slot % K::LANE)
    }

    /// The ranks on `slot` of records `range`.
    fn keys_on(&self, range: Range<usize>, slot: usize) -> impl Iterator<Item = u32> + '_ {
        range.map(move |i| self.key(i, slot).into())
    }

    #[inline(always)]
    fn swap(&mut self, i: usize, j: usize) {
        for l in 0..self.lanes {
            self.keys.swap(i * self.lanes + l, j * self.lanes + l);
        }
        self.rows.swap(i, j);
    }

    /// The smallest and largest rank of records `range` (not empty) on every
    /// slot.
    fn ranges(&mut self, range: Range<usize>, out: &mut Vec<(u32, u32)>) {
        let l = self.lanes;
        let records = &self.keys[range.start * l..range.end * l];
        self.lo.clear();
        self.lo.extend_from_slice(&records[..l]);
        self.hi.clear();
        self.hi.extend_from_slice(&records[..l]);
        match l {
            0 => {}
            1 => {
                // One lane, the common case: kept in registers.
                let (mut lo, mut hi) = (self.lo[0], self.hi[0]);
                for x in records {
                    K::min_max(&mut lo, &mut hi, x);
                }
                (self.lo[0], self.hi[0]) = (lo, hi);
            }
            _ => {
                for record in records.chunks_exact(l) {
                    for ((lo, hi), x) in self.lo.iter_mut().zip(&mut self.hi).zip(record) {
                        K::min_max(lo, hi, x);
                    }
                }
            }
        }
        out.clear();
        out.extend((0..self.stride).map(|s| {
            let (lane, j) = (s / K::LANE, s % K::LANE);
            (
                K::get(&self.lo[lane], j).into(),
                K::get(&self.hi[lane], j).into(),
            )
        }));
    }

    /// Three-way partition of records `lo..hi` around `pivot` on `slot`:
    /// returns `(lt, gt)` with `[lo, lt)` below, `[lt, gt)` equal and
    /// `[gt, hi)` above the pivot.
    fn partition3(&mut self, lo: usize, hi: usize, slot: usize, pivot: K) -> (usize, usize) {
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
    fn median_blocks(&mut self, range: Range<usize>, slot: usize) -> (usize, usize) {
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

    fn admits(&self, admission: &mut Admission, range: Range<usize>) -> bool {
        admission.admits(&self.rows[range])
    }
}

/// The strict median cut of records `range` on `slot` (see
/// [`super::partitioning::median_cut`], the same rule on a row-index array):
/// the cut position relative to `range.start`, or `None`.
fn median_cut<K: Key>(
    records: &mut Records<K>,
    range: Range<usize>,
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

/// The equivalence classes Mondrian makes: each row's class and each
/// class's released cells.
struct Classes {
    /// The class of each row.
    class_of: Vec<u32>,
    /// `cells[slot][class]`: the cell of each class on each active QI.
    cells: Vec<Vec<Cell>>,
}

impl Classes {
    /// Generalized cells for the `active` QIs, raw values for the others:
    /// the active QIs share the rows' classes, each with its classes'
    /// cells as its palette.
    fn release(self, data: &Dataset, active: &[usize]) -> Release {
        let class_of = Arc::new(self.class_of);
        let mut qis: Vec<Option<QiCells>> = vec![None; data.qis.len()];
        for (&q, palette) in active.iter().zip(self.cells) {
            qis[q] = Some(QiCells {
                palette,
                rows: Arc::clone(&class_of),
            });
        }
        let qis = (qis.into_iter().enumerate())
            .map(|(q, cells)| {
                cells.unwrap_or_else(|| QiCells::raw(data.qi_codes(q), data.qis[q].leaf_of.len()))
            })
            .collect();
        Release { qis }
    }
}

/// Cuts the rows into classes, with the active QIs' ranks held as `K`. A
/// class's cells are computed as soon as it is final, while its records
/// are still in the cache from the scan that found no cut.
fn cut<K: Key>(
    data: &Dataset,
    axes: &[Axis],
    active: &[usize],
    admission: &mut Admission,
) -> Classes {
    let mut records = Records::<K>::new(data, axes, active);
    let mut class_of = vec![0u32; data.rows()];
    let mut cells: Vec<Vec<Cell>> = vec![Vec::new(); active.len()];
    let mut classes = 0u32;
    #[allow(
        clippy::single_range_in_vec_init,
        reason = "a stack of row ranges, the whole table first"
    )]
    let mut stack = vec![0..data.rows()];
    let mut widths: Vec<(f64, usize)> = Vec::with_capacity(active.len());
    let mut ranges = Vec::with_capacity(active.len());
    while let Some(part) = stack.pop() {
        if part.is_empty() {
            continue;
        }
        records.ranges(part.clone(), &mut ranges);
        if part.len() >= 2 * admission.k {
            widths.clear();
            for (slot, (&q, &(lo, hi))) in active.iter().zip(&ranges).enumerate() {
                let w = axes[q].width(lo, hi);
                if w > 0.0 {
                    widths.push((w, slot));
                }
            }
            // Widest first; the sort is stable, so ties keep column order.
            widths.sort_by(|a, b| b.0.total_cmp(&a.0));
            let cut = widths
                .iter()
                .find_map(|&(_, slot)| median_cut(&mut records, part.clone(), slot, admission));
            if let Some(at) = cut {
                stack.push(part.start + at..part.end);
                stack.push(part.start..part.start + at);
                continue;
            }
        }
        // No cut: the partition is a class.
        for (slot, (&q, &lohi)) in active.iter().zip(&ranges).enumerate() {
            let axis = &axes[q];
            let codes = records
                .keys_on(part.clone(), slot)
                .map(|rank| axis.code_at[rank as usize]);
            cells[slot].push(class_cell(data, axis, q, lohi, codes));
        }
        for &r in &records.rows[part] {
            class_of[r as usize] = classes;
        }
        classes += 1;
    }
    Classes { class_of, cells }
}

/// Mondrian: strict multidimensional partitioning with median cuts.
pub fn mondrian(data: &Dataset, model: &PrivacyModel) -> Result<Outcome> {
    let axes: Vec<Axis> = (0..data.qis.len()).map(|q| Axis::new(data, q)).collect();
    let active = model.constrained_qis(data.qis.len());
    let mut admission = Admission::new(data, model);
    let top = active
        .iter()
        .filter_map(|&q| axes[q].rank_of.iter().max())
        .max()
        .map_or(0, |&r| r);
    let classes = if top <= u32::from(u8::MAX) {
        cut::<u8>(data, &axes, &active, &mut admission)
    } else if top <= u32::from(u16::MAX) {
        cut::<u16>(data, &axes, &active, &mut admission)
    } else {
        cut::<u32>(data, &axes, &active, &mut admission)
    };
    Ok(Outcome {
        release: classes.release(data, &active),
        levels: None,
        minimal_levels: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anonymize::partitioning::{self, Frame};
    use crate::config::Config;
    use crate::table::Table;
    use proptest::prelude::*;

    const EDUCATION: [&str; 9] = [
        "Bachelors",
        "HS-grad",
        "11th",
        "Masters",
        "9th",
        "Some-college",
        "Assoc-acdm",
        "Doctorate",
        "Preschool",
    ];

    /// A table of two numeric QIs (`a` small with missing tokens, `b` of up
    /// to `b_max + 1` values), two categorical QIs on Adult's hierarchies
    /// and a sensitive column, with k and, when `l > 0`, l-diversity.
    fn dataset(
        rows: &[(Option<u8>, u32, u8, u8, u8)],
        k: usize,
        l: usize,
    ) -> (Dataset, PrivacyModel) {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/adult");
        let mut text = String::from("[input]\ndelimiter = \",\"\n");
        for (name, role, kind, hierarchy) in [
            ("a", "quasi", "integer", ""),
            ("b", "quasi", "integer", ""),
            ("sex", "quasi", "categorical", "sex"),
            ("education", "quasi", "categorical", "education"),
            ("s", "sensitive", "categorical", ""),
        ] {
            text +=
                &format!("[[columns]]\nname = \"{name}\"\nrole = \"{role}\"\ntype = \"{kind}\"\n");
            if !hierarchy.is_empty() {
                text += &format!("hierarchy = \"hierarchies/adult_hierarchy_{hierarchy}.csv\"\n");
            }
        }
        text += &format!("[privacy]\nk = {k}\nsuppression_limit = 0.0\n");
        if l > 0 {
            text += &format!("sensitive = \"s\"\nl = {l}\n");
        }
        let config = Config::parse(&std::path::Path::new(dir).join("t.toml"), &text).unwrap();
        let mut csv = String::from("a,b,sex,education,s\n");
        for &(a, b, sex, edu, s) in rows {
            let a = a.map_or("?".to_owned(), |a| a.to_string());
            let sex = ["Male", "Female"][usize::from(sex)];
            let edu = EDUCATION[usize::from(edu)];
            csv += &format!("{a},{b},{sex},{edu},s{s}\n");
        }
        let table = Table::from_bytes(
            "t.csv".as_ref(),
            csv.as_bytes(),
            &config.csv_options().unwrap(),
        )
        .unwrap();
        let data = Dataset::bind(&config, table).unwrap();
        let model = PrivacyModel::from_config(&config, &data).unwrap();
        (data, model)
    }

    /// Mondrian as rules, on a row-index array with the shared
    /// [`partitioning::median_cut`] and [`Frame::release`]: what the records
    /// must reproduce.
    fn by_row_indices(data: &Dataset, model: &PrivacyModel) -> Release {
        let mut frame = Frame::new(data, model);
        let mut rows = frame.all_rows();
        #[allow(
            clippy::single_range_in_vec_init,
            reason = "a stack of row ranges, the whole table first"
        )]
        let (mut stack, mut done) = (vec![0..rows.len()], Vec::new());
        let mut ranges = Vec::new();
        while let Some(part) = stack.pop() {
            let members = &mut rows[part.clone()];
            if members.len() < 2 * frame.admission.k {
                done.push(part);
                continue;
            }
            frame.ranks.ranges(members, &mut ranges);
            let mut widths: Vec<(f64, usize)> = frame
                .active
                .iter()
                .zip(&ranges)
                .enumerate()
                .map(|(slot, (&q, &(lo, hi)))| (frame.axes[q].width(lo, hi), slot))
                .filter(|&(w, _)| w > 0.0)
                .collect();
            widths.sort_by(|a, b| b.0.total_cmp(&a.0));
            let (ranks, admission) = (&frame.ranks, &mut frame.admission);
            let cut = widths.iter().find_map(|&(_, slot)| {
                partitioning::median_cut(members, |r| ranks.at_slot(slot, r), admission)
            });
            match cut {
                Some(at) => {
                    stack.push(part.start + at..part.end);
                    stack.push(part.start..part.start + at);
                }
                None => done.push(part),
            }
        }
        frame.release(&rows, &done)
    }

    /// The release from records of ranks as `K`.
    fn with_keys<K: Key>(data: &Dataset, model: &PrivacyModel) -> Release {
        let axes: Vec<Axis> = (0..data.qis.len()).map(|q| Axis::new(data, q)).collect();
        let active = model.constrained_qis(data.qis.len());
        let mut admission = Admission::new(data, model);
        cut::<K>(data, &axes, &active, &mut admission).release(data, &active)
    }

    proptest! {
        /// Every rank width (one lane or, for u32 ranks of 4 QIs and more,
        /// two) gives the release of the row-index rules; u8 only where
        /// every rank fits a byte.
        #[test]
        fn records_give_the_row_index_release(
            rows in proptest::collection::vec(
                (proptest::option::weighted(0.9, 0u8..6), 0u32..400, 0u8..2, 0u8..9, 0u8..4),
                1..400,
            ),
            k in 1usize..8,
            l in 0usize..3,
        ) {
            let (data, model) = dataset(&rows, k.min(rows.len()), l);
            let expected = by_row_indices(&data, &model);
            prop_assert_eq!(&mondrian(&data, &model).unwrap().release, &expected);
            prop_assert_eq!(&with_keys::<u32>(&data, &model), &expected);
            prop_assert_eq!(&with_keys::<u16>(&data, &model), &expected);
            let b = data.qi_index("b").unwrap();
            if data.table.columns[data.qis[b].column].dict.len() <= 256 {
                prop_assert_eq!(&with_keys::<u8>(&data, &model), &expected);
            }
        }
    }

    #[test]
    fn median_blocks_bracket_the_median_value() {
        // A deterministic scramble of keys with many repeats.
        for len in [1usize, 2, 3, 10, 57, 200] {
            for modulus in [1u32, 2, 5, 50] {
                let keys: Vec<u32> = (0..len as u32)
                    .map(|i| (i * 7919 + 13) % 101 % modulus)
                    .collect();
                let mut r = Records::<u32> {
                    stride: 1,
                    lanes: 1,
                    keys: keys.iter().map(|&k| [k, 0, 0, 0]).collect(),
                    rows: (0..len as u32).collect(),
                    lo: Vec::new(),
                    hi: Vec::new(),
                };
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
                    assert_eq!(keys[r.rows[i] as usize], k, "records move whole");
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
