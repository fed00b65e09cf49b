//! The hierarchies a reader holds (`spec/FORMAT.md` §6, §7.1): the pruned
//! trees of the public part, which label the release and which every
//! reader checks hold nothing the release does not use, and the whole
//! trees of the private part, which a restore decodes the originals with.
//! A 1.0 file's public hierarchies are whole, its node numbers the whole
//! trees' ([`super::compat`]).

use std::borrow::Cow;
use std::path::Path;

use super::meta::{self, HierarchyRecord, PublicMeta};
use crate::codec::{ReleasedColumn, ReleasedSymbol};
use crate::hierarchy::{Hierarchy, NodeLabels, Pruned};

/// The public part's hierarchies of a file of major `major`: each record's
/// pruned tree, and (1.0) the whole trees. The error names the record.
pub fn public(
    records: Vec<HierarchyRecord>,
    major: u16,
    source: &Path,
) -> Result<(Vec<Pruned>, Vec<Hierarchy>), (usize, String)> {
    let mut pruned = Vec::with_capacity(records.len());
    let mut whole = Vec::new();
    for (i, r) in records.into_iter().enumerate() {
        if major == super::compat::MAJOR {
            let source = source.with_extension(format!("hierarchy{i}"));
            let h = r.into_hierarchy(&source).map_err(|e| (i, e))?;
            pruned.push(Pruned::whole(&h));
            whole.push(h);
        } else {
            pruned.push(Pruned::from_tree(r.levels, r.parents).map_err(|e| (i, e))?);
        }
    }
    Ok((pruned, whole))
}

/// Refuses a public hierarchy node that no released cell uses and that
/// is above no such node (the public part may hold only what the release
/// shows): `tables` are the row groups' class tables (per QI, claim
/// order). The error names the record and the node.
pub fn check_needed<'a>(
    meta: &PublicMeta,
    pruned: &[Pruned],
    tables: impl Iterator<Item = &'a [ReleasedColumn]>,
) -> Result<(), (usize, String)> {
    let mut used: Vec<Vec<Vec<bool>>> = pruned
        .iter()
        .map(|p| (0..=p.height()).map(|l| vec![false; p.nodes(l)]).collect())
        .collect();
    let of_qi: Vec<Option<usize>> = (meta.qis.iter())
        .map(|&c| meta.columns[c as usize].hierarchy.map(|h| h as usize))
        .collect();
    for table in tables {
        for (q, column) in table.iter().enumerate() {
            let Some(flags) = of_qi
                .get(q)
                .copied()
                .flatten()
                .and_then(|h| used.get_mut(h))
            else {
                continue;
            };
            for s in &column.symbols {
                if let ReleasedSymbol::Node { level, node } = *s {
                    let h = of_qi[q].expect("a QI with a hierarchy");
                    let Some(level_flags) = flags.get_mut(level as usize) else {
                        continue; // Refused with the labels, as in 1.0.
                    };
                    let kept = level_flags.len();
                    *level_flags.get_mut(node as usize).ok_or_else(|| {
                        (
                            h,
                            format!(
                                "QI {q} releases node {node} of level {level}, beyond the {kept} public nodes of that level"
                            ),
                        )
                    })? = true;
                }
            }
        }
    }
    for (i, p) in pruned.iter().enumerate() {
        if !of_qi.contains(&Some(i)) {
            continue;
        }
        if let Some((level, node)) = p.unneeded_node(&used[i]) {
            return Err((
                i,
                format!(
                    "node {:?} of level {level} is neither released nor above a released node (the public part holds only what the release shows)",
                    p.label(level, node)
                ),
            ));
        }
    }
    Ok(())
}

/// The whole hierarchies a restore decodes the originals against, and
/// how the public part's node numbers map to theirs.
pub struct Whole<'a> {
    /// One per `HIERARCHIES` record.
    pub hierarchies: Cow<'a, [Hierarchy]>,
    /// Per record, per level: each public node's whole number (`None`:
    /// the same numbers, a 1.0 file).
    numbers: Vec<Option<Vec<Vec<u32>>>>,
}

impl<'a> Whole<'a> {
    /// A 1.0 file's: its public hierarchies are whole.
    pub fn same(hierarchies: &'a [Hierarchy]) -> Whole<'a> {
        Whole {
            numbers: vec![None; hierarchies.len()],
            hierarchies: Cow::Borrowed(hierarchies),
        }
    }

    /// A 2.0 file's: the private part's whole hierarchies (`sealed`, a
    /// `HIERARCHIES`-coded stream), which must be the trees `pruned` were
    /// pruned from (same count, every public label, order and parent).
    pub fn sealed(sealed: &[u8], pruned: &[Pruned], source: &Path) -> Result<Whole<'a>, String> {
        let records = meta::hierarchies_from_bytes(sealed)?;
        if records.len() != pruned.len() {
            return Err(format!(
                "{} whole hierarchies for {} public ones",
                records.len(),
                pruned.len()
            ));
        }
        let mut hierarchies = Vec::with_capacity(records.len());
        let mut numbers = Vec::with_capacity(records.len());
        for (i, (r, p)) in records.into_iter().zip(pruned).enumerate() {
            let h = r
                .into_hierarchy(&source.with_extension(format!("hierarchy{i}")))
                .map_err(|e| format!("hierarchy {i}: {e}"))?;
            numbers.push(Some(
                p.full_numbers(&h)
                    .map_err(|e| format!("hierarchy {i}: {e}"))?,
            ));
            hierarchies.push(h);
        }
        Ok(Whole {
            hierarchies: Cow::Owned(hierarchies),
            numbers,
        })
    }

    /// `symbols` of a QI whose hierarchy is record `h`, nodes numbered as
    /// in the whole hierarchy (borrowed when nothing changes).
    pub fn symbols<'s>(
        &self,
        h: Option<usize>,
        symbols: &'s [ReleasedSymbol],
    ) -> Cow<'s, [ReleasedSymbol]> {
        let Some(Some(numbers)) = h.and_then(|h| self.numbers.get(h)) else {
            return Cow::Borrowed(symbols);
        };
        Cow::Owned(
            symbols
                .iter()
                .map(|s| match *s {
                    ReleasedSymbol::Node { level, node } => ReleasedSymbol::Node {
                        level,
                        // Checked against the public tree on open; a
                        // number past it stays out of range.
                        node: numbers
                            .get(level as usize)
                            .and_then(|l| l.get(node as usize))
                            .copied()
                            .unwrap_or(u32::MAX),
                    },
                    _ => s.clone(),
                })
                .collect(),
        )
    }
}
