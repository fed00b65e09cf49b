//! Frequency sets: the distinct tuples of some columns, each with the number
//! of rows that carry it (LeFevre et al. 2005 call this the frequency set of
//! a generalization).
//!
//! Global-recoding algorithms never need the rows themselves: every row with
//! the same QI tuple is generalized, counted and suppressed alike. Adult's
//! 30,162 rows collapse to 19,502 distinct tuples over its 9 QIs, and every
//! generalization of a frequency set is computed from a smaller one by
//! "rollup" (map each tuple, merge the equal results), never from the rows.

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Distinct tuples of `width` values with their row counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrequencySet {
    width: usize,
    /// Tuple `g` is `tuples[g * width..(g + 1) * width]`.
    tuples: Vec<u32>,
    counts: Vec<u32>,
}

impl FrequencySet {
    /// The frequency set of `rows` rows over `columns` (one code per row
    /// each); `radices[j]` bounds the codes of `columns[j]`. Also returns
    /// the group of every row.
    pub fn of_columns(
        columns: &[&[u32]],
        radices: &[u32],
        rows: usize,
    ) -> (FrequencySet, Vec<u32>) {
        Self::of_rows(columns, radices, rows, |_| 1)
    }

    /// The frequency set of `rows` distinct tuples given with their row
    /// counts (`weights[row]`), as a distributed engine aggregates them:
    /// equal tuples are merged, their counts added.
    pub fn of_weighted(
        columns: &[&[u32]],
        weights: &[u32],
        radices: &[u32],
        rows: usize,
    ) -> (FrequencySet, Vec<u32>) {
        Self::of_rows(columns, radices, rows, |row| weights[row])
    }

    /// Rows of `columns` merged into tuples, each row counting `weight(row)`.
    fn of_rows(
        columns: &[&[u32]],
        radices: &[u32],
        rows: usize,
        weight: impl Fn(usize) -> u32,
    ) -> (FrequencySet, Vec<u32>) {
        let mut group_of = Vec::with_capacity(rows);
        let set = merge(
            rows,
            columns.len(),
            radices,
            |row, out| {
                for (o, c) in out.iter_mut().zip(columns) {
                    *o = c[row];
                }
            },
            weight,
            Some(&mut group_of),
        );
        (set, group_of)
    }

    /// Number of distinct tuples.
    pub fn groups(&self) -> usize {
        self.counts.len()
    }

    /// The number of distinct tuples (groups).
    pub fn width(&self) -> usize {
        self.width
    }

    #[inline]
    /// Attributes per tuple.
    pub fn tuple(&self, g: usize) -> &[u32] {
        &self.tuples[g * self.width..(g + 1) * self.width]
    }

    /// Group `g`'s tuple of codes.
    pub fn counts(&self) -> &[u32] {
        &self.counts
    }

    /// Total number of rows.
    pub fn rows(&self) -> usize {
        self.counts.iter().map(|&c| c as usize).sum()
    }

    /// Rows in groups of fewer than `k` rows.
    pub fn rows_below(&self, k: usize) -> usize {
        self.counts
            .iter()
            .filter(|&&c| (c as usize) < k)
            .map(|&c| c as usize)
            .sum()
    }

    /// Maps every tuple with `map` (which writes a tuple of `width` values,
    /// the j-th below `radices[j]`) and merges the equal results, adding
    /// their counts. When `assign` is given it receives the new group of
    /// every old one.
    pub fn rollup(
        &self,
        width: usize,
        radices: &[u32],
        map: impl Fn(&[u32], &mut [u32]),
        assign: Option<&mut Vec<u32>>,
    ) -> FrequencySet {
        merge(
            self.groups(),
            width,
            radices,
            |g, out| map(self.tuple(g), out),
            |g| self.counts[g],
            assign,
        )
    }

    /// The frequency set over the columns `keep` (positions in the tuple).
    pub fn project(
        &self,
        keep: &[usize],
        radices: &[u32],
        assign: Option<&mut Vec<u32>>,
    ) -> FrequencySet {
        self.rollup(
            keep.len(),
            radices,
            |t, out| {
                for (o, &j) in out.iter_mut().zip(keep) {
                    *o = t[j];
                }
            },
            assign,
        )
    }
}

/// One constraint as seen on a frequency set over some attributes: the
/// positions of its QIs among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The constraint's QIs' positions among the set's attributes.
    pub positions: Vec<usize>,
    /// Rows each of its classes must hold.
    pub k: usize,
    /// The constraint covers the whole subset (no projection needed).
    pub whole: bool,
}

/// The checks of `constraints` (attribute sets with their k) on a frequency
/// set over `attrs`; a constraint none of whose attributes is there puts
/// every row in one class and checks nothing.
pub fn checks_for(attrs: &[usize], constraints: &[(Vec<usize>, usize)]) -> Vec<Check> {
    constraints
        .iter()
        .filter_map(|(qis, k)| {
            let positions: Vec<usize> = (0..attrs.len())
                .filter(|&j| qis.contains(&attrs[j]))
                .collect();
            (!positions.is_empty()).then_some(Check {
                whole: positions.len() == attrs.len(),
                positions,
                k: *k,
            })
        })
        .collect()
}

/// Which groups of `fs` (radices `radices`) sit in a class too small for
/// some check.
pub fn violating_groups(fs: &FrequencySet, checks: &[Check], radices: &[u32]) -> Vec<bool> {
    let mut bad = vec![false; fs.groups()];
    let mut assign = Vec::new();
    for c in checks {
        if c.whole {
            for (b, &n) in bad.iter_mut().zip(fs.counts()) {
                *b |= (n as usize) < c.k;
            }
        } else {
            let r: Vec<u32> = c.positions.iter().map(|&j| radices[j]).collect();
            let p = fs.project(&c.positions, &r, Some(&mut assign));
            for (b, &g) in bad.iter_mut().zip(&assign) {
                *b |= (p.counts()[g as usize] as usize) < c.k;
            }
        }
    }
    bad
}

/// Rows of `fs` that violate some check.
pub fn violating_rows(fs: &FrequencySet, checks: &[Check], radices: &[u32]) -> usize {
    if let [c] = checks
        && c.whole
    {
        return fs.rows_below(c.k);
    }
    violating_groups(fs, checks, radices)
        .iter()
        .zip(fs.counts())
        .filter(|&(&b, _)| b)
        .map(|(_, &n)| n as usize)
        .sum()
}

/// Key spaces of at most this many cells per source tuple (plus a little)
/// are indexed directly: clearing such a table costs about what the
/// grouping does. Larger key spaces are hashed.
const DENSE_PER_TUPLE: u64 = 4;

/// Groups `n` source tuples, each written by `fill` and weighted by
/// `count`, by equal value.
///
/// The key of a tuple is its mixed-radix number over `radices`: a direct
/// index when the key space is small, a hashed `u64` when it fits, and the
/// tuple itself otherwise (very wide tuples of large domains).
fn merge(
    n: usize,
    width: usize,
    radices: &[u32],
    fill: impl Fn(usize, &mut [u32]),
    count: impl Fn(usize) -> u32,
    assign: Option<&mut Vec<u32>>,
) -> FrequencySet {
    debug_assert_eq!(radices.len(), width);
    let space = radices
        .iter()
        .try_fold(1u64, |acc, &r| acc.checked_mul(u64::from(r.max(1))));
    let mixed = |t: &[u32]| {
        t.iter().zip(radices).fold(0u64, |acc, (&v, &r)| {
            acc * u64::from(r.max(1)) + u64::from(v)
        })
    };
    match space {
        Some(space) if space <= DENSE_PER_TUPLE * n as u64 + 256 => {
            let mut index = vec![u32::MAX; space as usize];
            merge_by(
                n,
                width,
                fill,
                count,
                assign,
                |t| mixed(t) as usize,
                |k, next| {
                    let slot = &mut index[k];
                    if *slot == u32::MAX {
                        *slot = next;
                    }
                    *slot
                },
            )
        }
        Some(_) => {
            // Grown as groups appear, not reserved per row: a table of
            // millions of rows has far fewer distinct tuples, and a map
            // sized for every row outgrows the caches (3M-row profile).
            let mut index: FxHashMap<u64, u32> = FxHashMap::default();
            merge_by(n, width, fill, count, assign, mixed, |k, next| {
                *index.entry(k).or_insert(next)
            })
        }
        None => {
            let mut index: FxHashMap<Box<[u32]>, u32> = FxHashMap::default();
            merge_by(
                n,
                width,
                fill,
                count,
                assign,
                |t| Box::<[u32]>::from(t),
                |k, next| *index.entry(k).or_insert(next),
            )
        }
    }
}

/// The grouping loop shared by every key kind: `lookup(key, next)` returns
/// the group of `key`, giving it `next` when it is new.
fn merge_by<K: Hash + Eq>(
    n: usize,
    width: usize,
    fill: impl Fn(usize, &mut [u32]),
    count: impl Fn(usize) -> u32,
    mut assign: Option<&mut Vec<u32>>,
    key: impl Fn(&[u32]) -> K,
    mut lookup: impl FnMut(K, u32) -> u32,
) -> FrequencySet {
    let mut tuples: Vec<u32> = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    let mut scratch = vec![0u32; width];
    if let Some(a) = assign.as_deref_mut() {
        a.clear();
        a.reserve(n);
    }
    for i in 0..n {
        fill(i, &mut scratch);
        let next = counts.len() as u32;
        let g = lookup(key(&scratch), next);
        if g == next {
            tuples.extend_from_slice(&scratch);
            counts.push(count(i));
        } else {
            counts[g as usize] += count(i);
        }
        if let Some(a) = assign.as_deref_mut() {
            a.push(g);
        }
    }
    FrequencySet {
        width,
        tuples,
        counts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapses_rows_and_rolls_up() {
        let a = [0, 1, 0, 2, 1];
        let b = [3, 3, 3, 0, 1];
        let (fs, group_of) = FrequencySet::of_columns(&[&a, &b], &[3, 4], 5);
        assert_eq!(fs.groups(), 4);
        assert_eq!(group_of, vec![0, 1, 0, 2, 3]);
        assert_eq!(fs.counts(), &[2, 1, 1, 1]);
        assert_eq!(fs.tuple(2), &[2, 0]);
        assert_eq!(fs.rows_below(2), 3);
        // Generalize a: {0, 1} -> 0, {2} -> 1; drop nothing.
        let up = [0u32, 0, 1];
        let mut assign = Vec::new();
        let g = fs.rollup(
            2,
            &[2, 4],
            |t, out| {
                out[0] = up[t[0] as usize];
                out[1] = t[1];
            },
            Some(&mut assign),
        );
        assert_eq!(g.groups(), 3);
        assert_eq!(g.counts(), &[3, 1, 1]);
        assert_eq!(assign, vec![0, 0, 1, 2]);
        let p = fs.project(&[1], &[4], None);
        assert_eq!(p.counts(), &[3, 1, 1]);
        assert_eq!(p.rows(), 5);
    }

    #[test]
    fn every_key_kind_groups_alike() {
        // Same data under a small, a hashed and an overflowing key space.
        let a: Vec<u32> = (0..200).map(|i| (i * 7) % 13).collect();
        let b: Vec<u32> = (0..200).map(|i| (i * 3) % 5).collect();
        let small = FrequencySet::of_columns(&[&a, &b], &[13, 5], 200).0;
        let hashed = FrequencySet::of_columns(&[&a, &b], &[1 << 30, 1 << 20], 200).0;
        let c = vec![0u32; 200];
        let wide = FrequencySet::of_columns(&[&a, &b, &c, &c], &[u32::MAX; 4], 200).0;
        assert_eq!(small, hashed);
        assert_eq!(small.counts(), wide.counts());
        assert_eq!(small.groups(), 65);
    }
}
