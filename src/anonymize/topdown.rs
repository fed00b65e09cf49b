//! Top-down greedy anonymization (Xu, Wang, Pei, Wang, Shi and Fu 2006,
//! "Utility-based anonymization using local recoding"), guided by NCP.
//!
//! A partition of at least 2k rows is split in two: pick a random row u
//! (seeded), take the row v farthest from u, then the row farthest from v
//! as the new u, for [`SEED_ROUNDS`] rounds; u and v seed two groups and
//! every other row (in partition order) joins the group whose total penalty
//! `|G| · NCP(G)` grows least (ties to the smaller group, then u's). A group
//! left below k takes, from the other group, the rows that would cost it
//! least (against its generalization at that moment). Both halves are split
//! again; a split whose halves are not admissible classes (l-diversity) is
//! not made. The release is Mondrian's: intervals and lowest common
//! ancestors of each final partition.
//!
//! The distance of two rows is the NCP of the smallest generalization
//! covering both: numbers by value span over the column's span (a missing
//! value beside another value costs 1), categories by leaves(LCA) /
//! leaves(root), 0 at a leaf. Cuts, missing values and constraint sets
//! follow [`super::partitioning`].

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::Result;
use crate::anonymize::Outcome;
use crate::anonymize::partitioning::{Frame, Ranks};
use crate::dataset::Dataset;
use crate::hierarchy::Hierarchy;
use crate::privacy::PrivacyModel;

/// How many times the seed pair is refined (u <- farthest from v).
pub const SEED_ROUNDS: usize = 3;

/// The generalization of a group on one QI: a rank range `(lo, hi)` for
/// numbers; a hierarchy node `(level, node)` for categories.
type Bound = (u32, u32);

struct Greedy<'f, 'a> {
    frame: &'f Frame<'a>,
    /// The hierarchy of each active categorical QI, `None` for numbers.
    hierarchies: Vec<Option<&'a Hierarchy>>,
    /// The per-row ranks of the active QIs (the leaf, for categories).
    ranks: &'f Ranks,
}

impl<'f, 'a> Greedy<'f, 'a> {
    fn new(frame: &'f Frame<'a>) -> Self {
        let hierarchies = frame
            .active
            .iter()
            .map(|&q| {
                if frame.axes[q].numeric {
                    None
                } else {
                    frame.data.qis[q].hierarchy.as_ref()
                }
            })
            .collect();
        let ranks = &frame.ranks;
        Greedy {
            frame,
            hierarchies,
            ranks,
        }
    }

    /// The bounds of the single row `row`.
    fn seed(&self, row: u32, out: &mut Vec<Bound>) {
        out.clear();
        out.extend(self.hierarchies.iter().enumerate().map(|(slot, h)| {
            let x = self.ranks.at_slot(slot, row);
            // A number's range is (x, x); a category sits at (level 0, leaf).
            if h.is_some() { (0, x) } else { (x, x) }
        }));
    }

    /// Bound `b` of active QI `i` widened to cover `row`.
    #[inline]
    fn widen(&self, i: usize, b: Bound, row: u32) -> Bound {
        let x = self.ranks.at_slot(i, row);
        match self.hierarchies[i] {
            None => (b.0.min(x), b.1.max(x)),
            Some(h) => {
                let (mut level, mut node) = (b.0 as usize, b.1);
                while h.node_of(level, x) != node {
                    node = h.parent(level, node);
                    level += 1;
                }
                (level as u32, node)
            }
        }
    }

    /// The NCP of bound `b` of active QI `i`.
    #[inline]
    fn ncp(&self, i: usize, b: Bound) -> f64 {
        match self.hierarchies[i] {
            None => self.frame.axes[self.frame.active[i]].width(b.0, b.1),
            Some(h) => {
                if b.0 == 0 {
                    0.0
                } else {
                    f64::from(h.leaves_under(b.0 as usize, b.1)) / h.leaf_count() as f64
                }
            }
        }
    }

    fn cost(&self, bounds: &[Bound]) -> f64 {
        bounds
            .iter()
            .enumerate()
            .map(|(i, &b)| self.ncp(i, b))
            .sum()
    }

    /// The NCP of `bounds` widened to cover `row`.
    fn cost_with(&self, bounds: &[Bound], row: u32) -> f64 {
        bounds
            .iter()
            .enumerate()
            .map(|(i, &b)| self.ncp(i, self.widen(i, b, row)))
            .sum()
    }

    fn grow(&self, bounds: &mut [Bound], row: u32) {
        for (i, b) in bounds.iter_mut().enumerate() {
            *b = self.widen(i, *b, row);
        }
    }

    /// The row of `members` (other than `from`) farthest from `from`; ties
    /// to the earlier.
    fn farthest(&self, members: &[u32], from: u32, scratch: &mut Vec<Bound>) -> u32 {
        self.seed(from, scratch);
        let mut best = (f64::NEG_INFINITY, from);
        for &r in members {
            if r == from {
                continue;
            }
            let d = self.cost_with(scratch, r);
            if d > best.0 {
                best = (d, r);
            }
        }
        best.1
    }
}

/// Reusable buffers of one split.
#[derive(Default)]
struct Scratch {
    bu: Vec<Bound>,
    bv: Vec<Bound>,
    probe: Vec<Bound>,
    left: Vec<u32>,
    right: Vec<u32>,
    keyed: Vec<(f64, u32)>,
}

/// Splits `members` in two groups of at least k rows: reorders it and
/// returns the size of the first group.
fn split(
    g: &Greedy,
    k: usize,
    members: &mut [u32],
    rng: &mut ChaCha8Rng,
    s: &mut Scratch,
) -> usize {
    let len = members.len();
    let mut u = members[(rng.next_u64() % len as u64) as usize];
    let mut v = u;
    for _ in 0..SEED_ROUNDS {
        v = g.farthest(members, u, &mut s.probe);
        let w = g.farthest(members, v, &mut s.probe);
        if w == u {
            break;
        }
        u = w;
    }
    g.seed(u, &mut s.bu);
    g.seed(v, &mut s.bv);
    let (mut cost_u, mut cost_v) = (g.cost(&s.bu), g.cost(&s.bv));
    s.left.clear();
    s.right.clear();
    s.left.push(u);
    s.right.push(v);
    for &r in members.iter() {
        if r == u || r == v {
            continue;
        }
        let (nu, nv) = (s.left.len() as f64, s.right.len() as f64);
        let with_u = g.cost_with(&s.bu, r);
        let with_v = g.cost_with(&s.bv, r);
        let grow_u = (nu + 1.0) * with_u - nu * cost_u;
        let grow_v = (nv + 1.0) * with_v - nv * cost_v;
        let to_u = grow_u < grow_v || (grow_u == grow_v && s.left.len() <= s.right.len());
        if to_u {
            g.grow(&mut s.bu, r);
            cost_u = with_u;
            s.left.push(r);
        } else {
            g.grow(&mut s.bv, r);
            cost_v = with_v;
            s.right.push(r);
        }
    }
    // The short group (if any) takes the rows that cost it least.
    let (short, long, bounds) = if s.left.len() < k {
        (&mut s.left, &mut s.right, &s.bu)
    } else {
        (&mut s.right, &mut s.left, &s.bv)
    };
    if short.len() < k {
        let need = k - short.len();
        s.keyed.clear();
        s.keyed
            .extend(long.iter().map(|&r| (g.cost_with(bounds, r), r)));
        s.keyed
            .select_nth_unstable_by(need - 1, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut taken: Vec<u32> = s.keyed[..need].iter().map(|&(_, r)| r).collect();
        taken.sort_unstable();
        long.retain(|r| taken.binary_search(r).is_err());
        short.extend_from_slice(&taken);
    }
    let at = s.left.len();
    members[..at].copy_from_slice(&s.left);
    members[at..].copy_from_slice(&s.right);
    at
}

/// Top-down greedy local recoding; `seed` makes the seed-row choice
/// reproducible.
pub fn topdown(data: &Dataset, model: &PrivacyModel, seed: u64) -> Result<Outcome> {
    let mut frame = Frame::new(data, model);
    let mut rows = frame.all_rows();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut scratch = Scratch::default();
    let k = frame.admission.k;
    #[allow(
        clippy::single_range_in_vec_init,
        reason = "a stack of row ranges, the whole table first"
    )]
    let mut stack = vec![0..rows.len()];
    let mut done = Vec::new();
    while let Some(part) = stack.pop() {
        let members = &mut rows[part.clone()];
        if members.len() < 2 * k {
            done.push(part);
            continue;
        }
        let at = {
            let g = Greedy::new(&frame);
            split(&g, k, members, &mut rng, &mut scratch)
        };
        if frame.admission.admits_cut(members, at) {
            stack.push(part.start + at..part.end);
            stack.push(part.start..part.start + at);
        } else {
            done.push(part);
        }
    }
    Ok(Outcome {
        release: frame.release(&rows, &done),
        levels: None,
        minimal_levels: None,
    })
}
