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
//! Cost: O(n log n · q) with nth-element median selection on a row-index
//! array; nothing is allocated per row.

use crate::Result;
use crate::anonymize::Outcome;
use crate::anonymize::partitioning::{Frame, median_cut};
use crate::dataset::Dataset;
use crate::privacy::PrivacyModel;

pub fn mondrian(data: &Dataset, model: &PrivacyModel) -> Result<Outcome> {
    let mut frame = Frame::new(data, model);
    let mut rows = frame.all_rows();
    let mut stack = vec![0..rows.len()];
    let mut done = Vec::new();
    let mut widths: Vec<(f64, usize)> = Vec::with_capacity(frame.active.len());
    while let Some(part) = stack.pop() {
        let members = &mut rows[part.clone()];
        if members.len() < 2 * frame.admission.k {
            done.push(part);
            continue;
        }
        widths.clear();
        for &q in &frame.active {
            let (lo, hi) = frame.rank_range(q, members);
            let w = frame.axes[q].width(lo, hi);
            if w > 0.0 {
                widths.push((w, q));
            }
        }
        // Widest first; the sort is stable, so ties keep column order.
        widths.sort_by(|a, b| b.0.total_cmp(&a.0));
        let cut = widths
            .iter()
            .find_map(|&(_, q)| median_cut(members, &frame.ranks[q], &mut frame.admission));
        match cut {
            Some(at) => {
                stack.push(part.start + at..part.end);
                stack.push(part.start..part.start + at);
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
