//! t-closeness (Li, Li & Venkatasubramanian 2007): every class's sensitive
//! distribution q lies within Earth Mover's Distance t of the table's p,
//! under the ground distance the column's declaration gives
//! ([`Distance`]). Categories are all one apart (equal distance: half the
//! L1 distance); numbers are ordered, i apart for ranks i apart, normalized
//! by m − 1 (ordered distance: the sum of the cumulative differences'
//! magnitudes); leaves of a hierarchy are the level of their lowest common
//! ancestor over its height apart (hierarchical distance: the paper's
//! bottom-up flow of extras, as ARX's `HierarchicalDistanceTCloseness`).

use super::distribution::Distribution;
use super::sensitive::Distance;

/// The largest EMD of a class under the attribute's distance.
pub fn t_closeness(d: &Distribution) -> Option<f64> {
    let mut emd = Emd::new(d);
    (0..d.classes()).map(|c| emd.of(d, c)).reduce(f64::max)
}

/// The EMD of one class after another, with what each distance prepares
/// once per attribute.
pub enum Emd {
    Equal,
    Ordered(Prefix),
    Hierarchical(Extras),
}

impl Emd {
    pub fn new(d: &Distribution) -> Emd {
        match d.distance {
            Distance::Equal => Emd::Equal,
            Distance::Ordered => Emd::Ordered(Prefix::new(d)),
            Distance::Hierarchical => Emd::Hierarchical(Extras::default()),
        }
    }

    /// Class `c`'s EMD to the table.
    pub fn of(&mut self, d: &Distribution, c: usize) -> f64 {
        match self {
            Emd::Equal => equal_emd(d, c),
            Emd::Ordered(prefix) => ordered_emd(d, prefix, c),
            Emd::Hierarchical(extras) => hierarchical_emd(d, extras, c),
        }
    }
}

/// Scratch of [`hierarchical_emd`]: each node's extra at the current level
/// and the next.
#[derive(Default)]
pub struct Extras {
    below: Vec<f64>,
    pos: Vec<f64>,
    neg: Vec<f64>,
}

/// The paper's EMD over a hierarchy of height H: every leaf starts with
/// the extra p − q; each node of level l passes up the net extra of its
/// children and moves min(positive, negative) of it between them at cost
/// l / H. (ARX computes the same on row counts.)
pub fn hierarchical_emd(d: &Distribution, x: &mut Extras, c: usize) -> f64 {
    let Some((tree, leaf)) = &d.tree else {
        return equal_emd(d, c);
    };
    let height = tree.height();
    if height == 0 {
        return 0.0;
    }
    let (ranks, counts) = d.class(c);
    let size = d.sizes[c] as f64;
    x.below.clear();
    x.below.resize(tree.nodes(0), 0.0);
    for (v, &l) in leaf.iter().enumerate() {
        x.below[l as usize] = d.p(v as u32);
    }
    for (&v, &n) in ranks.iter().zip(counts) {
        x.below[leaf[v as usize] as usize] -= n as f64 / size;
    }
    let mut cost = 0.0;
    for (level, parents) in tree.parents.iter().enumerate() {
        let nodes = tree.nodes(level + 1);
        x.pos.clear();
        x.pos.resize(nodes, 0.0);
        x.neg.clear();
        x.neg.resize(nodes, 0.0);
        for (&e, &parent) in x.below.iter().zip(parents) {
            if e > 0.0 {
                x.pos[parent as usize] += e;
            } else {
                x.neg[parent as usize] -= e;
            }
        }
        let moved: f64 = x.pos.iter().zip(&x.neg).map(|(p, n)| p.min(*n)).sum();
        cost += (level + 1) as f64 / height as f64 * moved;
        x.below.clear();
        x.below.extend(x.pos.iter().zip(&x.neg).map(|(p, n)| p - n));
    }
    cost
}

/// ½ Σ |q − p| over every value: the values the class lacks add their p,
/// which is 1 minus the held values' p.
pub fn equal_emd(d: &Distribution, c: usize) -> f64 {
    let (ranks, counts) = d.class(c);
    let size = d.sizes[c] as f64;
    let mut held_p = 0.0;
    let mut sum = 0.0;
    for (&v, &n) in ranks.iter().zip(counts) {
        let p = d.p(v);
        held_p += p;
        sum += (n as f64 / size - p).abs();
    }
    0.5 * (sum + (1.0 - held_p).max(0.0))
}

/// Cumulative sums of p: `cum[i] = p_0 + … + p_i` and
/// `cum2[i] = cum[0] + … + cum[i - 1]`, to sum runs of them at once.
pub struct Prefix {
    cum: Vec<f64>,
    cum2: Vec<f64>,
}

impl Prefix {
    pub fn new(d: &Distribution) -> Prefix {
        let mut cum = Vec::with_capacity(d.values());
        let mut acc = 0.0;
        for v in 0..d.values() as u32 {
            acc += d.p(v);
            cum.push(acc);
        }
        let mut cum2 = Vec::with_capacity(cum.len() + 1);
        let mut acc = 0.0;
        cum2.push(0.0);
        for &x in &cum {
            acc += x;
            cum2.push(acc);
        }
        Prefix { cum, cum2 }
    }

    /// Σ |Q − cum[i]| for i in `from..to`, where cum is non-decreasing: the
    /// run splits where cum passes Q.
    fn run(&self, q: f64, from: usize, to: usize) -> f64 {
        if from >= to {
            return 0.0;
        }
        let split = from + self.cum[from..to].partition_point(|&x| x < q);
        let below = (split - from) as f64 * q - (self.cum2[split] - self.cum2[from]);
        let above = (self.cum2[to] - self.cum2[split]) - (to - split) as f64 * q;
        below + above
    }
}

/// Σ_i |Q_i − P_i| / (m − 1), Q and P the cumulative class and table
/// frequencies: Q only changes at the values the class holds, so the sum
/// runs over those stretches (a class costs its values times log m).
pub fn ordered_emd(d: &Distribution, prefix: &Prefix, c: usize) -> f64 {
    let m = d.values();
    if m < 2 {
        return 0.0;
    }
    let (ranks, counts) = d.class(c);
    let size = d.sizes[c] as f64;
    let mut q = 0.0;
    let mut from = 0usize;
    let mut sum = 0.0;
    for (&v, &n) in ranks.iter().zip(counts) {
        let v = v as usize;
        sum += prefix.run(q, from, v);
        q += n as f64 / size;
        from = v;
    }
    sum += prefix.run(q, from, m);
    sum / (m - 1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classes::Partition;
    use crate::hierarchy::Hierarchy;
    use crate::privacy::sensitive::{Declared, Reference, Sensitive};
    use crate::table::Column;
    use proptest::prelude::*;

    /// Classes numbered densely from each row's class draw.
    fn classes(rows: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
        let mut sizes = vec![0u32; 4];
        for &(c, _) in rows {
            sizes[c as usize] += 1;
        }
        let ids: Vec<u32> = sizes
            .iter()
            .scan(0u32, |n, &s| {
                let id = *n;
                *n += u32::from(s > 0);
                Some(id)
            })
            .collect();
        let class_of = rows.iter().map(|&(c, _)| ids[c as usize]).collect();
        sizes.retain(|&s| s > 0);
        (class_of, sizes)
    }

    /// pyCANON's loops, value by value.
    fn reference(d: &Distribution, c: usize) -> f64 {
        let (ranks, counts) = d.class(c);
        let m = d.values();
        let mut q = vec![0.0; m];
        for (&v, &n) in ranks.iter().zip(counts) {
            q[v as usize] = n as f64 / d.sizes[c] as f64;
        }
        let r: Vec<f64> = (0..m).map(|i| q[i] - d.p(i as u32)).collect();
        if d.distance == Distance::Ordered {
            let (mut acc, mut emd) = (0.0, 0.0);
            for x in r {
                acc += x;
                emd += f64::abs(acc);
            }
            emd / (m - 1) as f64
        } else {
            0.5 * r.iter().map(|x| x.abs()).sum::<f64>()
        }
    }

    proptest! {
        /// A fragment (the rows of draw 0) given the whole table's
        /// distribution as its reference measures its one class exactly as
        /// the whole table measures that class: the same p, over the same
        /// values (those the fragment lacks too), the same EMD.
        #[test]
        fn a_fragment_with_the_tables_reference_measures_as_the_table(
            rows in proptest::collection::vec((0u32..3, 0u32..9), 2..60),
            text in any::<bool>(),
        ) {
            prop_assume!(rows.iter().any(|&(c, _)| c == 0));
            let value = |v: u32| if text { format!("v{v:02}") } else { v.to_string() };
            let mut whole = Column::new("s");
            let mut fragment = Column::new("s");
            let mut counts = std::collections::BTreeMap::new();
            for &(c, v) in &rows {
                whole.push(&value(v));
                if c == 0 {
                    fragment.push(&value(v));
                }
                *counts.entry(value(v)).or_insert(0u64) += 1;
            }
            let reference = Reference { values: counts.into_iter().collect() };
            let (class_of, sizes) = classes(&rows.iter().map(|&(c, v)| (u32::from(c != 0), v)).collect::<Vec<_>>());
            let s = Sensitive::new(&whole, &[], Declared::Inferred).unwrap();
            let d = Distribution::new(&s, &Partition { class_of, sizes }, true);
            let f = Sensitive::with_reference(&fragment, &[], Declared::Inferred, Some(&reference)).unwrap();
            let one = Partition { class_of: vec![0; fragment.codes.len()], sizes: vec![fragment.codes.len() as u32] };
            let e = Distribution::new(&f, &one, true);
            prop_assert_eq!(e.distance, d.distance);
            prop_assert_eq!((&e.global, e.total), (&d.global, d.total));
            prop_assert_eq!(e.class(0), d.class(0));
            prop_assert!((Emd::new(&e).of(&e, 0) - Emd::new(&d).of(&d, 0)).abs() < 1e-12);
        }

        #[test]
        fn emd_is_pycanons_loop(
            rows in proptest::collection::vec((0u32..4, 0u32..12), 2..80),
            text in any::<bool>(),
        ) {
            let mut s = Column::new("s");
            for &(_, v) in &rows {
                s.push(&if text { format!("v{v:02}") } else { v.to_string() });
            }
            let class_of: Vec<u32> = rows.iter().map(|&(c, _)| c).collect();
            let mut sizes = vec![0u32; 4];
            for &c in &class_of {
                sizes[c as usize] += 1;
            }
            // Renumber to the classes present.
            let ids: Vec<u32> = sizes.iter().scan(0u32, |n, &s| {
                let id = *n;
                *n += u32::from(s > 0);
                Some(id)
            }).collect();
            let class_of = class_of.iter().map(|&c| ids[c as usize]).collect();
            sizes.retain(|&s| s > 0);
            let s = Sensitive::new(&s, &[], Declared::Inferred).unwrap();
            let d = Distribution::new(&s, &Partition { class_of, sizes }, true);
            prop_assume!(d.values() >= 2);
            let prefix = Prefix::new(&d);
            for c in 0..d.classes() {
                let got = if d.distance == Distance::Ordered { ordered_emd(&d, &prefix, c) } else { equal_emd(&d, c) };
                prop_assert!((got - reference(&d, c)).abs() < 1e-12);
            }
        }

        /// The hierarchical EMD is the tree metric's closed form, computed
        /// independently on the whole hierarchy: the LCA-level / H ground
        /// distance is the path metric of a tree whose every edge weighs
        /// 1 / (2H), and an EMD under a tree metric is the sum over edges of
        /// the weight times the mass that must cross it, |Σ (p − q)| over
        /// the leaves below (missing cells and unheld leaves count nothing).
        #[test]
        fn hierarchical_emd_is_the_tree_formula(
            height in 1usize..5,
            fanout in proptest::collection::vec(1u32..4, 4),
            leaves in 2u32..16,
            rows in proptest::collection::vec((0u32..4, 0u32..18), 2..80),
        ) {
            // Leaf i's node at level l: i / (fanout product up to l), the root at H.
            let mut lines = String::new();
            for i in 0..leaves {
                let mut row = vec![format!("v{i}")];
                let mut div = 1;
                for l in 1..height {
                    div *= fanout[l - 1] + 1;
                    row.push(format!("n{l}_{}", i / div));
                }
                row.push("*".to_owned());
                lines.push_str(&row.join(";"));
                lines.push('\n');
            }
            let h = Hierarchy::from_bytes(std::path::Path::new("h"), lines.as_bytes()).unwrap();
            // Values 0..leaves are leaves; the rest are missing cells.
            let mut s = Column::new("s");
            for &(_, v) in &rows {
                s.push(&if v < leaves { format!("v{v}") } else { "?".to_owned() });
            }
            let (class_of, sizes) = classes(&rows);
            let missing = ["?".to_owned()];
            let attribute = Sensitive::new(&s, &missing, Declared::Hierarchy(&h)).unwrap();
            let d = Distribution::new(&attribute, &Partition { class_of: class_of.clone(), sizes }, true);
            let mut extras = Extras::default();
            // The reference: p and q per leaf from the rows themselves.
            let known: Vec<(u32, u32)> = rows.iter().zip(&class_of)
                .filter(|((_, v), _)| *v < leaves)
                .map(|((_, v), &c)| (c, *v))
                .collect();
            let mut c = 0;
            for class in 0..class_of.iter().max().map_or(0, |m| m + 1) {
                let held: Vec<u32> = known.iter().filter(|k| k.0 == class).map(|k| k.1).collect();
                if held.is_empty() {
                    continue;
                }
                let p = |leaf: u32| known.iter().filter(|k| k.1 == leaf).count() as f64 / known.len() as f64;
                let q = |leaf: u32| held.iter().filter(|&&v| v == leaf).count() as f64 / held.len() as f64;
                let mut want = 0.0;
                for level in 0..height {
                    for node in 0..h.nodes(level) as u32 {
                        let under: f64 = (0..leaves)
                            .filter(|&i| h.node_of(level, h.leaf(&format!("v{i}")).unwrap()) == node)
                            .map(|i| p(i) - q(i))
                            .sum();
                        want += under.abs() / (2.0 * height as f64);
                    }
                }
                let got = hierarchical_emd(&d, &mut extras, c);
                prop_assert!((got - want).abs() < 1e-9, "class {}: {} vs {}", class, got, want);
                c += 1;
            }
            prop_assert_eq!(c, d.classes());
        }
    }
}
