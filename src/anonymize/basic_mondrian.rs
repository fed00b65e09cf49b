//! Basic Mondrian: Mondrian whose categorical QIs are cut along their
//! hierarchy, as the Python peers' "Basic Mondrian" does.
//!
//! A partition carries, per categorical QI, the hierarchy node its values lie
//! under (the root at first). Cutting such a QI splits the partition into the
//! groups of that node's children, allowed only when every non-empty group
//! is an admissible class; when a single child holds every row the node just
//! moves down to it. Numeric QIs are cut at the median as in Mondrian. The
//! QI to cut is the one with the largest normalized width (numbers: value
//! span over the column's; categories: leaves(node) / leaves(root), 0 at a
//! leaf), ties to the earlier column; when its cut is refused the next widest
//! is tried. The release is Mondrian's (intervals, lowest common ancestors).

use crate::Result;
use crate::anonymize::Outcome;
use crate::anonymize::partitioning::{Frame, median_cut};
use crate::dataset::Dataset;
use crate::privacy::PrivacyModel;

/// A hierarchy node: (level, node).
type Node = (u32, u32);

// Long: the paper's partitioning (widest allowed QI, median cut, split or keep the part) as one
// loop over an explicit stack of parts, kept whole as the paper gives it
/// Basic Mondrian: median cuts on numbers, hierarchy cuts on categories.
pub fn basic_mondrian(data: &Dataset, model: &PrivacyModel) -> Result<Outcome> {
    let mut frame = Frame::new(data, model);
    let mut rows = frame.all_rows();
    let q_count = data.qis.len();
    // The root of every categorical QI (unused entries for numeric QIs).
    let roots: Vec<Node> = data
        .qis
        .iter()
        .map(|qi| match (&qi.hierarchy, qi.value_type.is_numeric()) {
            (Some(h), false) => (h.height() as u32, 0),
            _ => (0, 0),
        })
        .collect();
    let mut stack = vec![(0..rows.len(), roots)];
    let mut done = Vec::new();
    let mut allowed = vec![false; q_count];
    let mut groups: Vec<usize> = Vec::new();
    let mut ranges = Vec::with_capacity(frame.active.len());
    while let Some((part, mut nodes)) = stack.pop() {
        let members = &mut rows[part.clone()];
        if members.len() < 2 * frame.admission.k {
            done.push(part);
            continue;
        }
        frame.ranks.ranges(members, &mut ranges);
        allowed.iter_mut().for_each(|a| *a = false);
        for &q in &frame.active {
            allowed[q] = true;
        }
        let cut = loop {
            // The widest allowed QI.
            let mut best: Option<(f64, usize)> = None;
            for &q in &frame.active {
                if !allowed[q] {
                    continue;
                }
                let w = if frame.axes[q].numeric {
                    let (lo, hi) = ranges[frame.ranks.slot(q)];
                    frame.axes[q].width(lo, hi)
                } else {
                    let h = data.qis[q].hierarchy.as_ref().expect("categorical");
                    let (level, node) = nodes[q];
                    if level == 0 {
                        0.0
                    } else {
                        f64::from(h.leaves_under(level as usize, node)) / h.leaf_count() as f64
                    }
                };
                if w <= 0.0 {
                    allowed[q] = false;
                } else if best.is_none_or(|(bw, _)| w > bw) {
                    best = Some((w, q));
                }
            }
            let Some((_, q)) = best else {
                break None;
            };
            if frame.axes[q].numeric {
                let (ranks, slot) = (&frame.ranks, frame.ranks.slot(q));
                match median_cut(members, |r| ranks.at_slot(slot, r), &mut frame.admission) {
                    Some(at) => break Some((q, vec![0, at, members.len()])),
                    None => allowed[q] = false,
                }
                continue;
            }
            // Group the rows by the child of the node that holds their value.
            let qi = &data.qis[q];
            let h = qi.hierarchy.as_ref().expect("categorical");
            let child_level = nodes[q].0 as usize - 1;
            let codes = data.qi_codes(q);
            let child = |r: u32| h.node_of(child_level, qi.leaf_of[codes[r as usize] as usize]);
            members.sort_unstable_by_key(|&r| child(r));
            groups.clear();
            groups.push(0);
            for i in 1..members.len() {
                if child(members[i]) != child(members[i - 1]) {
                    groups.push(i);
                }
            }
            groups.push(members.len());
            if groups.len() == 2 {
                // One child holds every row: the node moves down, no cut.
                nodes[q] = (child_level as u32, child(members[0]));
                continue;
            }
            let admissible = groups
                .windows(2)
                .all(|g| frame.admission.admits(&members[g[0]..g[1]]));
            if admissible {
                break Some((q, groups.clone()));
            }
            allowed[q] = false;
        };
        match cut {
            Some((q, bounds)) => {
                for g in bounds.windows(2).rev() {
                    let range = part.start + g[0]..part.start + g[1];
                    let mut child_nodes = nodes.clone();
                    if !frame.axes[q].numeric {
                        // A hierarchy cut: each group sits under one child.
                        let qi = &data.qis[q];
                        let h = qi.hierarchy.as_ref().expect("categorical");
                        let level = nodes[q].0 as usize - 1;
                        let code = data.qi_codes(q)[rows[range.start] as usize];
                        child_nodes[q] =
                            (level as u32, h.node_of(level, qi.leaf_of[code as usize]));
                    }
                    stack.push((range, child_nodes));
                }
            }
            None => done.push(part),
        }
    }
    Ok(Outcome {
        release: frame.release(&rows, &done),
        levels: None,
        minimal_levels: None,
    })
}
