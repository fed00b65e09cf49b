//! A sensitive attribute's distribution: over the table (p) and in each
//! equivalence class (q), the input of every model beyond k.
//!
//! Values are ranked by number for the ordered distance (equal numbers
//! sharing a rank), else by text, as pyCANON ranks them (`np.unique`).
//! Missing cells hold no value (`sensitive`): they are counted nowhere, a
//! class's size is its known cells, and a class without one is left out.
//! The classes' counts are kept sparse (only the values a class holds), so
//! a class costs its distinct values, not the table's.

use super::sensitive::{Distance, Key, Sensitive, Tree};
use crate::classes::{NO_CLASS, Partition};

/// One sensitive attribute over a partition.
#[derive(Debug, Clone)]
pub struct Distribution {
    /// The column's name.
    pub name: String,
    /// The ground distance of t-closeness.
    pub distance: Distance,
    /// Hierarchical distance: the tree, and the leaf of each rank.
    pub tree: Option<(Tree, Vec<u32>)>,
    /// Rows of the global distribution.
    pub total: u64,
    /// The rank of each dictionary code (`u32::MAX`: no counted row).
    pub rank: Vec<u32>,
    /// Rows holding each ranked value, in value order.
    pub global: Vec<u64>,
    /// Class `c`'s values are `ranks[offsets[c]..offsets[c + 1]]`
    /// (ascending) with `counts` rows each.
    pub offsets: Vec<usize>,
    pub ranks: Vec<u32>,
    pub counts: Vec<u32>,
    /// Known cells of each class (classes without one left out).
    pub sizes: Vec<u32>,
}

/// Marks a code no counted row holds.
pub(crate) const UNRANKED: u32 = u32::MAX;

/// The rank of each code among the values held by a row of `in_p`, in
/// `np.unique` order, equal numbers sharing a rank; and how many ranks.
/// With a whole-table reference, the values held are the table's (every
/// entry of the reference), whichever rows the column holds.
fn rank_codes(s: &Sensitive, in_p: impl Fn(usize) -> bool) -> (Vec<u32>, usize) {
    let mut held = vec![false; s.keys.len()];
    match &s.reference {
        Some(rows) => {
            for (c, &n) in rows.iter().enumerate() {
                held[c] = n > 0 && s.known(c as u32);
            }
        }
        None => {
            for (r, &c) in s.column.codes.iter().enumerate() {
                if in_p(r) && s.known(c) {
                    held[c as usize] = true;
                }
            }
        }
    }
    let codes: Vec<u32> = (0..held.len() as u32)
        .filter(|&c| held[c as usize])
        .collect();
    let mut rank = vec![UNRANKED; held.len()];
    if s.distance == Distance::Ordered {
        let number = |c: u32| match s.keys[c as usize] {
            Key::Number(x) => x,
            _ => unreachable!("an ordered column's known values are numbers"),
        };
        let mut order: Vec<(f64, u32)> = codes.iter().map(|&c| (number(c), c)).collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut next = 0u32;
        for (i, &(v, c)) in order.iter().enumerate() {
            if i > 0 && v != order[i - 1].0 {
                next += 1;
            }
            rank[c as usize] = next;
        }
        return (rank, order.len().min(next as usize + 1));
    }
    let mut order = codes;
    order.sort_by(|&a, &b| s.text(a).cmp(s.text(b)));
    for (i, &c) in order.iter().enumerate() {
        rank[c as usize] = i as u32;
    }
    (rank, order.len())
}

/// The table's distribution p (rows of each rank) and its rows: the
/// whole table's from the column's reference when it holds a fragment,
/// else its own rows of `in_p`.
fn global_counts(
    s: &Sensitive,
    rank: &[u32],
    distinct: usize,
    in_p: impl Fn(usize) -> bool,
) -> (Vec<u64>, u64) {
    let mut global = vec![0u64; distinct];
    let mut total = 0u64;
    match &s.reference {
        Some(rows) => {
            for (c, &n) in rows.iter().enumerate() {
                if rank[c] != UNRANKED {
                    global[rank[c] as usize] += n;
                    total += n;
                }
            }
        }
        None => {
            for (r, &c) in s.column.codes.iter().enumerate() {
                if in_p(r) && rank[c as usize] != UNRANKED {
                    global[rank[c as usize] as usize] += 1;
                    total += 1;
                }
            }
        }
    }
    (global, total)
}

/// The rows of `partition` grouped by class (a counting sort): class `c`'s
/// rows are `grouped[start[c]..start[c + 1]]`, ascending.
fn rows_by_class(partition: &Partition) -> (Vec<usize>, Vec<u32>) {
    let classes = partition.classes();
    let mut start = vec![0usize; classes + 1];
    for (c, &s) in partition.sizes.iter().enumerate() {
        start[c + 1] = start[c] + s as usize;
    }
    let mut fill = start.clone();
    let mut grouped = vec![0u32; start[classes]];
    for (r, &c) in partition.class_of.iter().enumerate() {
        if c != NO_CLASS {
            grouped[fill[c as usize]] = r as u32;
            fill[c as usize] += 1;
        }
    }
    (start, grouped)
}

impl Distribution {
    /// The distribution of `sensitive` over the classes of `partition`.
    /// The global distribution counts the rows of a class and, when
    /// `exempt_in_p`, also the rows outside every class (pyCANON counts the
    /// rows whose QI is missing in p; the literature drops suppressed rows).
    pub fn new(sensitive: &Sensitive, partition: &Partition, exempt_in_p: bool) -> Distribution {
        let column = sensitive.column;
        let class_of = &partition.class_of;
        let in_p = |r: usize| exempt_in_p || class_of[r] != NO_CLASS;
        let (rank, distinct) = rank_codes(sensitive, in_p);
        let (global, total) = global_counts(sensitive, &rank, distinct, in_p);
        let tree = sensitive.tree.as_ref().map(|t| {
            let mut leaf = vec![0u32; distinct];
            for (c, &r) in rank.iter().enumerate() {
                if let (true, Key::Leaf(l)) = (r != UNRANKED, sensitive.keys[c]) {
                    leaf[r as usize] = l;
                }
            }
            (t.clone(), leaf)
        });
        // Each class's values counted in one scratch array reset after it.
        let classes = partition.classes();
        let (start, grouped) = rows_by_class(partition);
        let mut scratch = vec![0u32; distinct];
        let mut touched: Vec<u32> = Vec::new();
        let mut offsets = Vec::with_capacity(classes + 1);
        let mut ranks = Vec::new();
        let mut counts = Vec::new();
        let mut sizes = Vec::with_capacity(classes);
        offsets.push(0);
        for c in 0..classes {
            for &r in &grouped[start[c]..start[c + 1]] {
                let v = rank[column.codes[r as usize] as usize];
                if v == UNRANKED {
                    continue;
                }
                if scratch[v as usize] == 0 {
                    touched.push(v);
                }
                scratch[v as usize] += 1;
            }
            if touched.is_empty() {
                continue;
            }
            touched.sort_unstable();
            let mut size = 0u32;
            for &v in &touched {
                ranks.push(v);
                counts.push(scratch[v as usize]);
                size += scratch[v as usize];
                scratch[v as usize] = 0;
            }
            touched.clear();
            offsets.push(ranks.len());
            sizes.push(size);
        }
        Distribution {
            name: column.name.clone(),
            distance: sensitive.distance,
            tree,
            total,
            rank,
            global,
            offsets,
            ranks,
            counts,
            sizes,
        }
    }

    pub fn classes(&self) -> usize {
        self.sizes.len()
    }

    /// Class `c`'s (value ranks, row counts).
    pub fn class(&self, c: usize) -> (&[u32], &[u32]) {
        let span = self.offsets[c]..self.offsets[c + 1];
        (&self.ranks[span.clone()], &self.counts[span])
    }

    /// The global frequency of the value of rank `v`, as pyCANON computes
    /// it (rows holding it / rows).
    pub fn p(&self, v: u32) -> f64 {
        self.global[v as usize] as f64 / self.total as f64
    }

    /// Distinct values of the global distribution (pyCANON's m).
    pub fn values(&self) -> usize {
        self.global.len()
    }
}

/// `np.sum` of `terms`: numpy's pairwise summation (8 partial sums in
/// blocks of up to 128, halves above), so that a value floored afterwards
/// (entropy l) lands on the same side as pyCANON's.
pub fn numpy_sum(terms: &[f64]) -> f64 {
    let n = terms.len();
    if n < 8 {
        return terms.iter().fold(-0.0, |s, &t| s + t);
    }
    if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&terms[..8]);
        let mut i = 8;
        while i + 8 <= n {
            for j in 0..8 {
                r[j] += terms[i + j];
            }
            i += 8;
        }
        let mut s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &t in &terms[i..] {
            s += t;
        }
        return s;
    }
    let half = n / 2;
    let half = half - half % 8;
    numpy_sum(&terms[..half]) + numpy_sum(&terms[half..])
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::privacy::sensitive::Declared;
    use crate::table::Column;

    fn column(values: &[&str]) -> Column {
        let mut c = Column::new("s");
        for v in values {
            c.push(v);
        }
        c
    }

    fn inferred(c: &Column) -> Sensitive<'_> {
        Sensitive::new(c, &["?".to_owned()], Declared::Inferred).unwrap()
    }

    #[test]
    fn numbers_rank_by_value_and_texts_by_text() {
        let c = column(&["10", "9", "1.0", "1", "-2", "?"]);
        let s = inferred(&c);
        assert_eq!(s.distance, Distance::Ordered);
        let (rank, distinct) = rank_codes(&s, |_| true);
        assert_eq!(distinct, 4);
        // 10, 9, 1.0 (= 1), -2, and the missing cell unranked
        assert_eq!(rank, vec![3, 2, 1, 1, 0, UNRANKED]);
        let c = column(&["b", "10", "9", "a"]);
        let s = inferred(&c);
        assert_eq!(s.distance, Distance::Equal);
        let (rank, distinct) = rank_codes(&s, |_| true);
        assert_eq!((distinct, rank), (4, vec![3, 0, 1, 2]));
    }

    /// Missing cells count nowhere: not in p, not in a class's size, and a
    /// class of missing cells alone is left out.
    #[test]
    fn missing_cells_are_in_no_distribution() {
        let c = column(&["x", "?", "y", "?", "?", "x"]);
        let p = Partition {
            class_of: vec![0, 0, 1, 2, 2, 1],
            sizes: vec![2, 2, 2],
        };
        let d = Distribution::new(&inferred(&c), &p, true);
        assert_eq!((d.total, d.global.clone()), (3, vec![2, 1]));
        assert_eq!(d.sizes, vec![1, 2]);
        assert_eq!(d.class(0), (&[0u32][..], &[1u32][..]));
        assert_eq!(d.class(1), (&[0u32, 1][..], &[1u32, 1][..]));
    }

    #[test]
    fn classes_count_their_values_and_p_the_table() {
        let s = column(&["x", "y", "x", "z", "x"]);
        let p = Partition {
            class_of: vec![0, 0, 1, NO_CLASS, 1],
            sizes: vec![2, 2],
        };
        let s = inferred(&s);
        let d = Distribution::new(&s, &p, true);
        assert_eq!((d.total, d.global.clone()), (5, vec![3, 1, 1]));
        assert_eq!(d.class(0), (&[0u32, 1][..], &[1u32, 1][..]));
        assert_eq!(d.class(1), (&[0u32][..], &[2u32][..]));
        let d = Distribution::new(&s, &p, false);
        assert_eq!((d.total, d.global.clone()), (4, vec![3, 1]));
    }

    #[test]
    fn pairwise_sum_matches_a_plain_sum_closely() {
        let terms: Vec<f64> = (1..300).map(|i| 1.0 / i as f64).collect();
        let plain: f64 = terms.iter().sum();
        assert!((numpy_sum(&terms) - plain).abs() < 1e-12);
        assert_eq!(numpy_sum(&[1.0, 2.0]), 3.0);
    }
}
