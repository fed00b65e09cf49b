//! What a file's public part may hold of its hierarchies (`spec/FORMAT.md`
//! §6): the nodes its release uses and the nodes above them.
//!
//! A writer codes each row group's released QI columns with the nodes
//! numbered as in the whole hierarchy, and notes which nodes they use
//! ([`UsedNodes`]). When every group is known, [`PublicHierarchies`] prunes
//! each hierarchy to the used nodes and their ancestors and numbers the
//! kept nodes of each level in order; the groups' `QI_CLASSES` are then
//! renumbered to match (`codec::renumber_classes`). A batch pack has one
//! group; a stream and a merge of parts learn the kept set only at the end.

use rustc_hash::FxHashSet;

use super::meta::{HierarchyRecord, PublicMeta};
use crate::codec::ReleasedSymbol;
use crate::hierarchy::{Hierarchy, Pruned};

/// The hierarchy nodes the released QI columns use, per QI (claim order),
/// numbered as in the whole hierarchy.
#[derive(Debug, Clone, Default)]
pub struct UsedNodes {
    qis: Vec<FxHashSet<(u32, u32)>>,
}

impl UsedNodes {
    /// Notes the nodes among QI `q`'s released `symbols`.
    pub fn add(&mut self, q: usize, symbols: &[ReleasedSymbol]) {
        if self.qis.len() <= q {
            self.qis.resize_with(q + 1, FxHashSet::default);
        }
        for s in symbols {
            if let ReleasedSymbol::Node { level, node } = *s {
                self.qis[q].insert((level, node));
            }
        }
    }

    /// QI `q`'s used nodes as one flag per node of each level of `h`
    /// (a node beyond `h` is an error: the release names a node it has not).
    fn flags(&self, q: usize, h: &Hierarchy) -> Result<Vec<Vec<bool>>, String> {
        let mut flags: Vec<Vec<bool>> = (0..=h.height()).map(|l| vec![false; h.nodes(l)]).collect();
        for &(level, node) in self.qis.get(q).into_iter().flatten() {
            let slot = flags
                .get_mut(level as usize)
                .and_then(|l| l.get_mut(node as usize))
                .ok_or_else(|| {
                    format!(
                        "QI {q} releases node {node} of level {level}, which its hierarchy has not"
                    )
                })?;
            *slot = true;
        }
        Ok(flags)
    }
}

/// A file's public hierarchies: the pruned records `HIERARCHIES` holds,
/// and for each QI how its nodes are numbered there.
#[derive(Debug, Clone)]
pub struct PublicHierarchies {
    /// The pruned records, in the order of the whole ones.
    pub records: Vec<HierarchyRecord>,
    /// Per QI (claim order), per level: each node's public number
    /// (`u32::MAX`: pruned); `None` for a QI without a hierarchy.
    numbers: Vec<Option<Vec<Vec<u32>>>>,
    /// Whether some used node's public number differs from its whole one.
    renumbered: bool,
}

impl PublicHierarchies {
    /// Prunes `whole` (the records `public.columns` index) to the nodes
    /// `used` names and their ancestors.
    pub fn prune(
        public: &PublicMeta,
        whole: &[HierarchyRecord],
        used: &UsedNodes,
    ) -> Result<PublicHierarchies, String> {
        let mut records: Vec<Option<HierarchyRecord>> = vec![None; whole.len()];
        let mut numbers = Vec::with_capacity(public.qis.len());
        let mut renumbered = false;
        for (q, &c) in public.qis.iter().enumerate() {
            let Some(i) = public.columns[c as usize].hierarchy else {
                numbers.push(None);
                continue;
            };
            let record = whole
                .get(i as usize)
                .ok_or("a column names a missing hierarchy")?;
            let h = record
                .clone()
                .into_hierarchy(std::path::Path::new("hierarchy"))?;
            let (pruned, n) = Pruned::prune(&h, &used.flags(q, &h)?);
            renumbered |= used
                .qis
                .get(q)
                .into_iter()
                .flatten()
                .any(|&(l, node)| n[l as usize][node as usize] != node);
            let (levels, parents) = pruned.to_tree();
            records[i as usize] = Some(HierarchyRecord { levels, parents });
            numbers.push(Some(n));
        }
        // A hierarchy no QI names (none is written yet) is kept whole.
        let records = records
            .into_iter()
            .zip(whole)
            .map(|(r, w)| r.unwrap_or_else(|| w.clone()))
            .collect();
        Ok(PublicHierarchies {
            records,
            numbers,
            renumbered,
        })
    }

    /// Whether the groups' classes need renumbering (some used node's
    /// public number is not its whole one).
    pub fn renumbered(&self) -> bool {
        self.renumbered
    }

    /// QI `q`'s node `(level, node)` (whole numbering) in the public part.
    pub fn number(&self, q: usize, level: u32, node: u32) -> Option<u32> {
        let n = *self
            .numbers
            .get(q)?
            .as_ref()?
            .get(level as usize)?
            .get(node as usize)?;
        (n != u32::MAX).then_some(n)
    }
}
