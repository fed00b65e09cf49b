//! A hierarchy pruned to what a release shows (`spec/FORMAT.md` §6): the
//! nodes its released cells use and the nodes above them, nothing else.
//!
//! A hierarchy's leaves are the exact values of its QI and its lower
//! levels narrow them down; a release that shows `20-29` must not publish
//! the leaves `21`, `23` and `27` it hides, nor the sibling `30-39` it never
//! shows (which would tell that some row is in its thirties, or not). The
//! public part therefore holds a [`Pruned`] tree: for each level, the kept
//! nodes in the order of the full hierarchy, each with its parent among the
//! kept nodes of the level above. Node numbers in the public part are
//! positions among the kept nodes, so that no number tells how many nodes
//! were pruned. The full tree goes into the private part, where a restore
//! finds each kept node again by its label ([`Pruned::full_numbers`]).

use rustc_hash::FxHashSet;

use super::{Hierarchy, NodeLabels};

/// The public part of a hierarchy: the kept nodes of every level (level 0
/// the leaves, the last the root; any level may be empty) and each kept
/// node's parent among the kept nodes of the next level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    labels: Vec<Vec<Box<str>>>,
    parents: Vec<Vec<u32>>,
}

impl NodeLabels for Pruned {
    fn height(&self) -> usize {
        self.labels.len() - 1
    }

    fn nodes(&self, level: usize) -> usize {
        self.labels[level].len()
    }

    fn label(&self, level: usize, node: u32) -> &str {
        &self.labels[level][node as usize]
    }
}

impl Pruned {
    /// The tree as an archive stores it (each level's labels, each node's
    /// parent), checked: the levels' count matches the parent lists', the
    /// top level has at most one node, each parent is a kept node of the
    /// level above, and the labels of a level are distinct. (Whether the
    /// kept nodes are in the whole hierarchy's order needs the whole
    /// hierarchy: [`Pruned::full_numbers`].) The error says which rule
    /// broke where.
    pub fn from_tree(levels: Vec<Vec<String>>, parents: Vec<Vec<u32>>) -> Result<Pruned, String> {
        let height = levels.len().checked_sub(1).ok_or("no levels")?;
        if parents.len() != height {
            return Err(format!(
                "expected {height} parent lists, found {}",
                parents.len()
            ));
        }
        if levels[height].len() > 1 {
            return Err(format!(
                "expected at most one root, found {} nodes on the top level",
                levels[height].len()
            ));
        }
        for (l, up) in parents.iter().enumerate() {
            if up.len() != levels[l].len() {
                return Err(format!(
                    "level {l}: {} nodes but {} parents",
                    levels[l].len(),
                    up.len()
                ));
            }
            let above = levels[l + 1].len();
            if let Some((n, &p)) = up.iter().enumerate().find(|(_, p)| **p as usize >= above) {
                return Err(format!(
                    "level {l}: node {n}'s parent {p} is not a kept node of level {} ({above} kept)",
                    l + 1
                ));
            }
        }
        for (l, labels) in levels.iter().enumerate() {
            let mut distinct = FxHashSet::default();
            if let Some(label) = labels.iter().find(|label| !distinct.insert(label.as_str())) {
                return Err(format!("level {l}: label {label:?} names two nodes"));
            }
        }
        Ok(Pruned {
            labels: levels
                .into_iter()
                .map(|l| l.into_iter().map(String::into_boxed_str).collect())
                .collect(),
            parents,
        })
    }

    /// Every node of `h` kept (a format 1.0 file stores hierarchies whole).
    pub fn whole(h: &Hierarchy) -> Pruned {
        let (levels, parents) = h.to_tree();
        Pruned::from_tree(levels, parents).expect("a hierarchy is a valid tree")
    }

    /// `h` pruned to the nodes `used` names (`used[l]`: the nodes of level
    /// `l` a released cell shows, in `h`'s numbering; a short or missing
    /// list uses none) and their ancestors; with, per level, each node's
    /// number in the pruned tree (`u32::MAX` for a pruned node).
    pub fn prune(h: &Hierarchy, used: &[Vec<bool>]) -> (Pruned, Vec<Vec<u32>>) {
        let height = h.height();
        let mut kept: Vec<Vec<bool>> = (0..=height).map(|l| vec![false; h.nodes(l)]).collect();
        for l in 0..=height {
            for n in 0..h.nodes(l) {
                let is_used = used.get(l).and_then(|u| u.get(n)).copied() == Some(true);
                let below = kept[l][n];
                if (is_used || below) && l < height {
                    let p = h.parent(l, n as u32) as usize;
                    kept[l + 1][p] = true;
                }
                kept[l][n] = is_used || below;
            }
        }
        let numbers: Vec<Vec<u32>> = kept
            .iter()
            .map(|k| {
                let mut next = 0u32;
                k.iter()
                    .map(|&k| match k {
                        true => {
                            next += 1;
                            next - 1
                        }
                        false => u32::MAX,
                    })
                    .collect()
            })
            .collect();
        let labels = (0..=height)
            .map(|l| {
                (0..h.nodes(l) as u32)
                    .filter(|&n| kept[l][n as usize])
                    .map(|n| Box::from(h.label(l, n)))
                    .collect()
            })
            .collect();
        let parents = (0..height)
            .map(|l| {
                (0..h.nodes(l) as u32)
                    .filter(|&n| kept[l][n as usize])
                    .map(|n| numbers[l + 1][h.parent(l, n) as usize])
                    .collect()
            })
            .collect();
        (Pruned { labels, parents }, numbers)
    }

    /// The tree as [`Pruned::from_tree`] takes it.
    pub fn to_tree(&self) -> (Vec<Vec<String>>, Vec<Vec<u32>>) {
        let levels = self
            .labels
            .iter()
            .map(|l| l.iter().map(|s| s.to_string()).collect())
            .collect();
        (levels, self.parents.clone())
    }

    /// The parent (among the kept nodes of `level + 1`) of kept `node`.
    pub fn parent(&self, level: usize, node: u32) -> u32 {
        self.parents[level][node as usize]
    }

    /// How many nodes are kept, over every level.
    pub fn node_count(&self) -> usize {
        self.labels.iter().map(Vec::len).sum()
    }

    /// The first kept node that `used` (per level, in this tree's
    /// numbering) does not name and that is above no kept node: the
    /// public part would hold a node the release does not need.
    pub fn unneeded_node(&self, used: &[Vec<bool>]) -> Option<(usize, u32)> {
        let mut needed: Vec<Vec<bool>> = (0..=self.height())
            .map(|l| {
                (0..self.nodes(l))
                    .map(|n| used.get(l).and_then(|u| u.get(n)).copied() == Some(true))
                    .collect()
            })
            .collect();
        for (l, up) in self.parents.iter().enumerate() {
            for &p in up {
                needed[l + 1][p as usize] = true;
            }
        }
        needed
            .iter()
            .enumerate()
            .find_map(|(l, level)| level.iter().position(|&n| !n).map(|n| (l, n as u32)))
    }

    /// Each kept node's number in `full`, the whole hierarchy it was
    /// pruned from, found by its label (labels are distinct within a
    /// level). `full` must have the same height, every kept label, in the
    /// same order, and the same parents; the error says what differs.
    pub fn full_numbers(&self, full: &Hierarchy) -> Result<Vec<Vec<u32>>, String> {
        if full.height() != self.height() {
            return Err(format!(
                "the public hierarchy has {} levels, the full one {}",
                self.height() + 1,
                full.height() + 1
            ));
        }
        let mut numbers: Vec<Vec<u32>> = Vec::with_capacity(self.labels.len());
        for (l, labels) in self.labels.iter().enumerate() {
            let mut level = Vec::with_capacity(labels.len());
            for label in labels {
                let n = full.node(l, label).ok_or_else(|| {
                    format!("level {l}: the public node {label:?} is not in the full hierarchy")
                })?;
                if level.last().is_some_and(|&last| last >= n) {
                    return Err(format!(
                        "level {l}: the public nodes are not in the full hierarchy's order at {label:?}"
                    ));
                }
                level.push(n);
            }
            numbers.push(level);
        }
        for (l, up) in self.parents.iter().enumerate() {
            for (n, &p) in up.iter().enumerate() {
                if full.parent(l, numbers[l][n]) != numbers[l + 1][p as usize] {
                    return Err(format!(
                        "level {l}: the public node {:?} has another parent in the full hierarchy",
                        &*self.labels[l][n]
                    ));
                }
            }
        }
        Ok(numbers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn tree() -> Hierarchy {
        // Leaves 21, 23, 35, 37, 52; decades; halves; the root.
        Hierarchy::from_bytes(
            Path::new("h.csv"),
            b"21;20-29;0-49;*\n23;20-29;0-49;*\n35;30-39;0-49;*\n37;30-39;0-49;*\n52;50-59;50-99;*\n",
        )
        .unwrap()
    }

    fn used(levels: &[&[u32]], h: &Hierarchy) -> Vec<Vec<bool>> {
        (0..=h.height())
            .map(|l| {
                let mut u = vec![false; h.nodes(l)];
                for &n in levels.get(l).copied().unwrap_or_default() {
                    u[n as usize] = true;
                }
                u
            })
            .collect()
    }

    #[test]
    fn pruning_keeps_the_used_nodes_and_their_ancestors_only() {
        let h = tree();
        // The release shows 30-39 (level 1, node 1) and 50-99 (level 2, node 1).
        let (p, numbers) = Pruned::prune(&h, &used(&[&[], &[1], &[1]], &h));
        let (levels, parents) = p.to_tree();
        assert_eq!(
            levels,
            vec![vec![], vec!["30-39"], vec!["0-49", "50-99"], vec!["*"]]
        );
        assert_eq!(parents, vec![vec![], vec![0], vec![0, 0]]);
        assert_eq!(numbers[1], vec![u32::MAX, 0, u32::MAX]);
        assert_eq!(numbers[2], vec![0, 1]);
        assert_eq!(
            p.full_numbers(&h).unwrap(),
            vec![vec![], vec![1], vec![0, 1], vec![0]]
        );
        assert_eq!(p.unneeded_node(&used(&[&[], &[0], &[0, 1]], &h)), None);
        assert_eq!(Pruned::from_tree(levels, parents).unwrap(), p);
        // Nothing used: nothing kept, not even the root.
        let (empty, _) = Pruned::prune(&h, &[]);
        assert_eq!(empty.node_count(), 0);
        assert_eq!(empty.height(), 3);
    }

    #[test]
    fn kept_nodes_may_meet_their_parents_out_of_order() {
        // x and z are under P, y under Q; pruning x leaves y (Q) before z (P).
        let h = Hierarchy::from_bytes(Path::new("h.csv"), b"a;x;P;*\nb;y;Q;*\nc;z;P;*\n").unwrap();
        let (p, _) = Pruned::prune(&h, &used(&[&[], &[1, 2]], &h));
        let (levels, parents) = p.to_tree();
        assert_eq!(parents[1], vec![1, 0]);
        let back = Pruned::from_tree(levels, parents).unwrap();
        assert_eq!(back.full_numbers(&h).unwrap()[1], vec![1, 2]);
    }

    #[test]
    fn a_node_nothing_needs_is_found() {
        let h = tree();
        let whole = Pruned::whole(&h);
        assert_eq!(whole.node_count(), 5 + 3 + 2 + 1);
        // A leaf is never a released node: the first leaf is not needed.
        assert_eq!(
            whole.unneeded_node(&used(&[&[], &[0, 1, 2]], &h)),
            Some((0, 0))
        );
    }

    #[test]
    fn bad_trees_are_refused() {
        let bad = |levels: Vec<Vec<&str>>, parents: Vec<Vec<u32>>| {
            let levels = levels
                .into_iter()
                .map(|l| l.into_iter().map(str::to_owned).collect())
                .collect();
            Pruned::from_tree(levels, parents).unwrap_err()
        };
        assert!(bad(vec![vec!["a"], vec!["*"]], vec![vec![1]]).contains("not a kept node"));
        assert!(bad(vec![vec!["a", "a"], vec!["*"]], vec![vec![0, 0]]).contains("names two"));
        assert!(bad(vec![vec![], vec!["*", "+"]], vec![vec![]]).contains("at most one root"));
        assert!(bad(vec![vec!["a"], vec!["*"]], vec![]).contains("parent lists"));
        // Public labels out of the full hierarchy's order are caught on restore.
        let h = tree();
        let swapped = Pruned::from_tree(
            vec![
                vec![],
                vec!["30-39".into(), "20-29".into()],
                vec!["0-49".into()],
                vec!["*".into()],
            ],
            vec![vec![], vec![0, 0], vec![0]],
        )
        .unwrap();
        assert!(swapped.full_numbers(&h).unwrap_err().contains("order"));
    }
}
