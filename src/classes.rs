//! Equivalence classes: the rows that share one generalized QI tuple.

use rustc_hash::FxHashMap;

/// Marks a row that belongs to no class (an exempt suppressed row).
pub const NO_CLASS: u32 = u32::MAX;

/// A sensitive cell that holds no value (a missing-value token): counted
/// in no distribution and no diversity (`privacy::sensitive`).
pub const MISSING_VALUE: u32 = u32::MAX;

/// A partition of the rows into equivalence classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    /// The class of each row, or [`NO_CLASS`].
    pub class_of: Vec<u32>,
    /// The size of each class.
    pub sizes: Vec<u32>,
}

impl Partition {
    /// Groups rows by their codes in `columns` (each one code per row),
    /// leaving out the rows where `exclude` is true.
    ///
    /// One pass per column refines the classes: the pair (class so far, code)
    /// names the new class. O(rows x columns) hash lookups on integers, no
    /// allocation per row.
    pub fn new(columns: &[&[u32]], rows: usize, exclude: Option<&[bool]>) -> Partition {
        Partition::build(columns, rows, exclude, None)
    }

    /// [`Partition::new`] of columns made one at a time, each dropped once
    /// it refined the classes: a release's QI columns, held all at once,
    /// were a tenth of a ten-million-row pack's peak memory.
    pub fn of_columns<C: AsRef<[u32]>>(
        columns: impl IntoIterator<Item = C>,
        rows: usize,
        exclude: Option<&[bool]>,
    ) -> Partition {
        Partition::build(columns, rows, exclude, None)
    }

    /// Groups weighted entries, each standing for `weights[e]` rows (the
    /// equivalence classes of a release coded by class): a class's size
    /// counts rows, not entries, so the partition of a release's class
    /// table has the sizes of the partition of its rows, and costs the
    /// number of classes instead of the number of rows.
    pub fn weighted(columns: &[&[u32]], weights: &[u32], exclude: Option<&[bool]>) -> Partition {
        Partition::build(columns, weights.len(), exclude, Some(weights))
    }

    fn build<C: AsRef<[u32]>>(
        columns: impl IntoIterator<Item = C>,
        rows: usize,
        exclude: Option<&[bool]>,
        weights: Option<&[u32]>,
    ) -> Partition {
        let mut class_of = vec![0u32; rows];
        if let Some(ex) = exclude {
            for (c, &e) in class_of.iter_mut().zip(ex) {
                if e {
                    *c = NO_CLASS;
                }
            }
        }
        let mut count = u32::from(class_of.iter().any(|&c| c != NO_CLASS));
        // A column refines the classes so far by its codes: each (class,
        // code) pair numbered on first sight. The pairs are looked up in a
        // table indexed by both when it is at most a few times the rows
        // (the first columns, few classes, and tables of classes: the
        // claim check of a file with 4,126 classes spent 8 % of its
        // restore hashing them), else in a hash map reserved once (up to a
        // size that stays in cache), so that the passes do not grow and
        // rehash it again and again.
        let mut ids: FxHashMap<u64, u32> = FxHashMap::default();
        let mut dense: Vec<u32> = Vec::new();
        for column in columns {
            let column = column.as_ref();
            let mut next = 0u32;
            let mut number = |slot: &mut u32| {
                if *slot == NO_CLASS {
                    *slot = next;
                    next += 1;
                }
                *slot
            };
            let bound = column.iter().copied().max().map_or(0, |m| u64::from(m) + 1);
            let pairs = u64::from(count) * bound;
            if pairs <= 4 * rows.max(256) as u64 {
                dense.clear();
                dense.resize(pairs as usize, NO_CLASS);
                for (c, &code) in class_of.iter_mut().zip(column.iter()) {
                    if *c != NO_CLASS {
                        *c = number(&mut dense[(u64::from(*c) * bound + u64::from(code)) as usize]);
                    }
                }
            } else {
                ids.clear();
                ids.reserve(rows.min(1 << 16));
                for (c, &code) in class_of.iter_mut().zip(column.iter()) {
                    if *c != NO_CLASS {
                        let key = (u64::from(*c) << 32) | u64::from(code);
                        *c = number(ids.entry(key).or_insert(NO_CLASS));
                    }
                }
            }
            count = next;
        }
        let mut sizes = vec![0u32; count as usize];
        for (e, &c) in class_of.iter().enumerate() {
            if c != NO_CLASS {
                sizes[c as usize] += weights.map_or(1, |w| w[e]);
            }
        }
        Partition { class_of, sizes }
    }

    /// The number of classes.
    pub fn classes(&self) -> usize {
        self.sizes.len()
    }

    /// How many distinct `codes` (a sensitive column's, one per entry) each
    /// class holds: what distinct l-diversity counts. Entries outside every
    /// class, and [`MISSING_VALUE`] cells, are left out.
    pub fn distinct_per_class(&self, codes: &[u32]) -> Vec<usize> {
        let mut pairs: Vec<(u32, u32)> = self
            .class_of
            .iter()
            .zip(codes)
            .filter(|&(&c, &v)| c != NO_CLASS && v != MISSING_VALUE)
            .map(|(&c, &v)| (c, v))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let mut distinct = vec![0usize; self.classes()];
        for (c, _) in pairs {
            distinct[c as usize] += 1;
        }
        distinct
    }

    /// The smallest class, `None` when every row is exempt.
    pub fn min_class(&self) -> Option<u32> {
        self.sizes.iter().copied().min()
    }

    /// Whether row `row` sits in a class smaller than `k` (exempt rows never do).
    #[inline]
    pub fn is_small(&self, row: usize, k: usize) -> bool {
        let c = self.class_of[row];
        c != NO_CLASS && (self.sizes[c as usize] as usize) < k
    }

    /// Rows in classes smaller than `k`.
    pub fn rows_below(&self, k: usize) -> usize {
        self.sizes
            .iter()
            .filter(|&&s| (s as usize) < k)
            .map(|&s| s as usize)
            .sum()
    }

    /// Class sizes and how many classes have each, ascending by size.
    pub fn histogram(&self) -> Vec<(u32, u32)> {
        let mut counts: FxHashMap<u32, u32> = FxHashMap::default();
        for &s in &self.sizes {
            *counts.entry(s).or_default() += 1;
        }
        let mut h: Vec<(u32, u32)> = counts.into_iter().collect();
        h.sort_unstable();
        h
    }

    /// One representative row of each class.
    pub fn representatives(&self) -> Vec<usize> {
        let mut rep = vec![usize::MAX; self.sizes.len()];
        for (row, &c) in self.class_of.iter().enumerate() {
            if c != NO_CLASS && rep[c as usize] == usize::MAX {
                rep[c as usize] = row;
            }
        }
        rep
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::Just;

    #[test]
    fn groups_by_tuple_and_excludes() {
        let a = [0, 0, 1, 1, 0];
        let b = [5, 5, 5, 6, 5];
        let p = Partition::new(&[&a, &b], 5, None);
        assert_eq!(p.classes(), 3);
        let mut sizes = p.sizes.clone();
        sizes.sort();
        assert_eq!(sizes, vec![1, 1, 3]);
        assert_eq!(p.rows_below(2), 2);
        assert_eq!(p.histogram(), vec![(1, 2), (3, 1)]);
        let ex = [false, false, false, false, true];
        let q = Partition::new(&[&a, &b], 5, Some(&ex));
        assert_eq!(q.class_of[4], NO_CLASS);
        assert_eq!(q.min_class(), Some(1));
        assert!(!q.is_small(4, 10));
    }

    /// Numbering each distinct tuple on first sight, row by row.
    fn reference(columns: &[Vec<u32>], rows: usize, exclude: &[bool]) -> Partition {
        let mut ids: std::collections::HashMap<Vec<u32>, u32> = Default::default();
        let mut sizes = Vec::new();
        let class_of = (0..rows)
            .map(|r| {
                if exclude[r] {
                    return NO_CLASS;
                }
                let tuple: Vec<u32> = columns.iter().map(|c| c[r]).collect();
                let next = ids.len() as u32;
                let id = *ids.entry(tuple).or_insert(next);
                if id == next {
                    sizes.push(0);
                }
                sizes[id as usize] += 1;
                id
            })
            .collect();
        Partition { class_of, sizes }
    }

    proptest::proptest! {
        /// Small codes take the table, large ones the hash map; both
        /// number the classes as the reference does.
        #[test]
        fn refinement_numbers_tuples_on_first_sight(
            rows in 0usize..400,
            widths in proptest::collection::vec(proptest::prop_oneof![Just(3u32), Just(40), Just(1 << 20)], 0..4),
            seed in 0u64..1000,
        ) {
            let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut next = |m: u32| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % u64::from(m)) as u32
            };
            let columns: Vec<Vec<u32>> = widths.iter().map(|&w| (0..rows).map(|_| next(w)).collect()).collect();
            let exclude: Vec<bool> = (0..rows).map(|_| next(7) == 0).collect();
            let refs: Vec<&[u32]> = columns.iter().map(Vec::as_slice).collect();
            let p = Partition::new(&refs, rows, Some(&exclude));
            let expected = reference(&columns, rows, &exclude);
            proptest::prop_assert_eq!(&p.class_of, &expected.class_of);
            proptest::prop_assert_eq!(&p.sizes, &expected.sizes);
        }
    }

    #[test]
    fn no_columns_is_one_class() {
        let p = Partition::new(&[], 3, None);
        assert_eq!(p.sizes, vec![3]);
        let all = Partition::new(&[], 2, Some(&[true, true]));
        assert_eq!(all.classes(), 0);
        assert_eq!(all.min_class(), None);
    }
}
