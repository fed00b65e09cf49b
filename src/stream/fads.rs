//! FADS (paper 003, Algorithm 1): waiting tuples are released as a batch
//! once `delta` of them wait. Each goes out with the least-loss reusable
//! published cluster that covers it (`outputWithWorkCluster`); the rest are
//! grouped greedily into clusters of K persons (`greedyCondense`) and
//! published, and those with loss below tau are kept for reuse, at most
//! `c0 * delta / K` of them, the oldest evicted first.
//!
//! Persons, not rows, count toward K: a cluster's seed takes its K-1 nearest
//! tuples whose pids differ from the seed's and from each other; the batch is
//! condensed while it still holds K distinct pids. Leftovers join the new
//! cluster whose loss grows least; when no cluster could be formed they are
//! suppressed. Ties among covering reusable clusters are broken by the seeded
//! random generator, as the paper picks one at random.
//!
//! tau is fixed (the paper's Table 3: 0.5, whatever K). Reuse comes before
//! condensation, so a tuple some kept cluster covers takes that cluster's
//! loss even when a new cluster would cost less: at small K (fresh clusters
//! far below tau) this is why FADS can lose more than CASTLE, whose tau is
//! the mean of its recent clusters (measured in `tools/REPRODUCTION.md`).

use std::collections::VecDeque;

use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;

use super::{
    Counters, Generalization, Published, Schema, StreamParams, Tuple, pick, publish, suppress,
};

/// FADS' state: the waiting tuples and the reusable published clusters.
#[derive(Debug)]
pub struct Fads {
    k: usize,
    delta: usize,
    tau: f64,
    capacity: usize,
    rng: ChaCha8Rng,
    waiting: Vec<Tuple>,
    /// `Set_wc`, oldest first.
    reusable: VecDeque<Generalization>,
}

impl Fads {
    pub(crate) fn new(p: &StreamParams, rng: ChaCha8Rng) -> Fads {
        Fads {
            k: p.k,
            delta: p.delta,
            tau: p.tau,
            capacity: p.reusable_clusters(),
            rng,
            waiting: Vec::with_capacity(p.delta),
            reusable: VecDeque::new(),
        }
    }

    pub(crate) fn push(
        &mut self,
        schema: &Schema,
        t: Tuple,
        out: &mut Vec<Published>,
        counters: &mut Counters,
    ) {
        self.waiting.push(t);
        if self.waiting.len() >= self.delta {
            self.release(schema, out, counters);
        }
    }

    pub(crate) fn finish(
        &mut self,
        schema: &Schema,
        out: &mut Vec<Published>,
        counters: &mut Counters,
    ) {
        if !self.waiting.is_empty() {
            self.release(schema, out, counters);
        }
    }

    /// Publishes every waiting tuple.
    fn release(&mut self, schema: &Schema, out: &mut Vec<Published>, counters: &mut Counters) {
        let batch = std::mem::replace(&mut self.waiting, Vec::with_capacity(self.delta));
        let rest = self.with_reusable(schema, batch, out, counters);
        self.condense(schema, rest, out, counters);
    }

    /// `outputWithWorkCluster`: releases the tuples some reusable cluster
    /// covers, each with the least-loss one; returns the others.
    fn with_reusable(
        &mut self,
        schema: &Schema,
        batch: Vec<Tuple>,
        out: &mut Vec<Published>,
        counters: &mut Counters,
    ) -> Vec<Tuple> {
        if self.reusable.is_empty() {
            return batch;
        }
        // Losses change as the domains grow: rank the clusters per batch.
        let mut ranked: Vec<(f64, usize)> = self
            .reusable
            .iter()
            .enumerate()
            .map(|(i, g)| (schema.loss(g), i))
            .collect();
        ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut rest = Vec::new();
        let mut ties: Vec<usize> = Vec::new();
        for t in batch {
            ties.clear();
            let mut best = f64::INFINITY;
            for &(loss, i) in &ranked {
                if loss > best {
                    break;
                }
                if schema.covers(&self.reusable[i], &t) {
                    best = loss;
                    ties.push(i);
                }
            }
            if ties.is_empty() {
                rest.push(t);
            } else {
                let i = ties[pick(&mut self.rng, ties.len())];
                publish(schema, &self.reusable[i], t, out);
                counters.reused += 1;
            }
        }
        rest
    }

    /// `outputWithCondensation`: clusters the tuples, publishes them, keeps
    /// the clusters below tau for reuse. A batch of more than
    /// [`CONDENSE_MAX`] tuples is condensed in near-equal consecutive
    /// chunks; a chunk of fewer than K persons waits for the next one, and
    /// only the last such remainder is suppressed.
    fn condense(
        &mut self,
        schema: &Schema,
        tuples: Vec<Tuple>,
        out: &mut Vec<Published>,
        counters: &mut Counters,
    ) {
        let chunks = tuples.len().div_ceil(CONDENSE_MAX.max(self.k)).max(1);
        let size = tuples.len().div_ceil(chunks);
        let mut tuples = tuples.into_iter();
        let mut carry: Vec<Tuple> = Vec::new();
        for _ in 0..chunks {
            carry.extend(tuples.by_ref().take(size));
            let clusters = greedy_condense(schema, &carry, self.k, &mut self.rng);
            if !clusters.is_empty() {
                self.publish_clusters(schema, std::mem::take(&mut carry), clusters, out, counters);
            }
        }
        for t in carry {
            suppress(schema, t, out);
        }
    }

    /// Publishes each tuple with its cluster's generalization and keeps the
    /// clusters below tau for reuse.
    fn publish_clusters(
        &mut self,
        schema: &Schema,
        tuples: Vec<Tuple>,
        clusters: Vec<(Generalization, Vec<u32>)>,
        out: &mut Vec<Published>,
        counters: &mut Counters,
    ) {
        let mut slots: Vec<Option<Tuple>> = tuples.into_iter().map(Some).collect();
        for (g, members) in clusters {
            for m in members {
                let t = slots[m as usize].take().expect("a tuple joins one cluster");
                publish(schema, &g, t, out);
            }
            counters.clusters += 1;
            if schema.loss(&g) < self.tau {
                while self.reusable.len() >= self.capacity {
                    self.reusable.pop_front();
                }
                self.reusable.push_back(g);
            }
        }
    }
}

/// The most tuples one `greedyCondense` takes: its cost grows with the
/// square of its input (each cluster measures every waiting tuple), so a
/// delay of the stream's length made FADS quadratic in the stream (issue
/// 32: 200,000 rows did not end in 120 s). 10,000 is the paper's default
/// delta (its Table 3), so every setting of the paper condenses as it says;
/// a longer delay costs O(rows × 10,000 / K).
pub const CONDENSE_MAX: usize = 10_000;

/// `greedyCondense`: clusters of K persons around random seeds, then the
/// leftovers join the cluster whose loss grows least. Returns each cluster's
/// generalization and members (indices into `tuples`); empty when the tuples
/// hold fewer than K persons.
pub(crate) fn greedy_condense(
    schema: &Schema,
    tuples: &[Tuple],
    k: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<(Generalization, Vec<u32>)> {
    // Dense person ids and how many alive tuples each person has.
    let mut ids: FxHashMap<u64, u32> = FxHashMap::default();
    let pid: Vec<u32> = tuples
        .iter()
        .map(|t| {
            let next = ids.len() as u32;
            *ids.entry(t.pid).or_insert(next)
        })
        .collect();
    let mut alive_of = vec![0u32; ids.len()];
    for &p in &pid {
        alive_of[p as usize] += 1;
    }
    let mut persons = ids.len();
    let mut alive: Vec<u32> = (0..tuples.len() as u32).collect();
    let mut taken = vec![false; tuples.len()];
    let mut stamp = vec![u32::MAX; ids.len()];
    let mut dist: Vec<(f64, u32)> = Vec::with_capacity(tuples.len());
    let mut clusters: Vec<Vec<u32>> = Vec::new();

    while alive.len() >= k && persons >= k {
        let seed = alive[pick(rng, alive.len())];
        let st = &tuples[seed as usize];
        dist.clear();
        dist.extend(
            alive
                .iter()
                .filter(|&&j| j != seed)
                .map(|&j| (schema.distance(st, &tuples[j as usize]), j)),
        );
        let round = clusters.len() as u32;
        stamp[pid[seed as usize] as usize] = round;
        let mut members = nearest_persons(&mut dist, k - 1, &pid, &mut stamp, round);
        members.push(seed);
        for &m in &members {
            taken[m as usize] = true;
            let p = pid[m as usize] as usize;
            alive_of[p] -= 1;
            if alive_of[p] == 0 {
                persons -= 1;
            }
        }
        alive.retain(|&j| !taken[j as usize]);
        clusters.push(members);
    }
    if clusters.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<(Generalization, Vec<u32>, f64)> = clusters
        .into_iter()
        .map(|members| {
            let mut g = schema.point(&tuples[members[0] as usize]);
            for &m in &members[1..] {
                schema.extend(&mut g, &tuples[m as usize]);
            }
            let loss = schema.loss(&g);
            (g, members, loss)
        })
        .collect();
    for j in alive {
        let t = &tuples[j as usize];
        let (best, _) = out
            .iter()
            .enumerate()
            .map(|(c, (g, _, loss))| (c, schema.loss_with(g, t) - loss))
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
            .expect("at least one cluster");
        let (g, members, loss) = &mut out[best];
        schema.extend(g, t);
        *loss = schema.loss(g);
        members.push(j);
    }
    out.into_iter().map(|(g, m, _)| (g, m)).collect()
}

/// The `need` nearest tuples of `dist` (distance, index) whose persons are
/// unstamped in this `round` and differ from each other; stamps them.
/// Sorts only as much of `dist` as it has to.
fn nearest_persons(
    dist: &mut [(f64, u32)],
    need: usize,
    pid: &[u32],
    stamp: &mut [u32],
    round: u32,
) -> Vec<u32> {
    if need == 0 {
        return Vec::new();
    }
    let cmp = |a: &(f64, u32), b: &(f64, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    let mut upto = need;
    loop {
        let full = upto >= dist.len();
        let upto_now = upto.min(dist.len());
        if !full {
            dist.select_nth_unstable_by(upto_now, cmp);
        }
        dist[..upto_now].sort_unstable_by(cmp);
        let mut picked = Vec::with_capacity(need + 1);
        let mut stamped = Vec::new();
        for &(_, j) in &dist[..upto_now] {
            let p = pid[j as usize] as usize;
            if stamp[p] != round {
                stamp[p] = round;
                stamped.push(p);
                picked.push(j);
                if picked.len() == need {
                    return picked;
                }
            }
        }
        if full {
            return picked;
        }
        // Too many repeated persons among the nearest: look further.
        for p in stamped {
            stamp[p] = u32::MAX;
        }
        upto *= 2;
    }
}
