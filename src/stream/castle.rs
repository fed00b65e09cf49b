//! CASTLE (Cao, Carminati, Ferrari, Tan: "CASTLE: Continuously Anonymizing
//! Data Streams", IEEE TDSC 2011), the baseline of paper 003.
//!
//! Every arriving tuple joins a cluster under construction (the set Gamma):
//! the one whose loss grows least, if its loss then stays within the
//! adaptive tau; otherwise a new cluster, unless Gamma already holds beta
//! clusters, in which case the least-enlarged one. When the oldest waiting
//! tuple is about to exceed the delay (`delay_constraint`):
//! - its cluster holds k persons: the cluster is published (`output_cluster`);
//! - otherwise a published cluster of Omega covering it, picked at random,
//!   releases it alone;
//! - otherwise, if more than half of Gamma's clusters are smaller than its
//!   own, or Gamma holds fewer than k persons in all, it is suppressed;
//! - otherwise its cluster absorbs the clusters that enlarge it least until
//!   it holds k persons (`merge_clusters`) and is published.
//!
//! `output_cluster` splits a cluster of at least 2k persons (`split`:
//! per-person buckets, a random seed and its k-1 nearest persons, the
//! remaining buckets joining the nearest new cluster) and publishes each
//! part. tau is the mean loss of the last mu published clusters; a published
//! cluster below tau joins Omega for reuse. As in the original, Omega is not
//! bounded: this is what makes CASTLE's time grow with the stream (paper
//! 003, section 3.1.2) and what FADS bounds.
//!
//! Choices made here: "any cluster" picks are random (seeded); a tuple
//! released alone leaves its cluster, whose generalization then shrinks to
//! its remaining members; split measures a bucket by its tuple nearest to
//! the seed.

use std::collections::{BTreeMap, VecDeque};

use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;

use super::{
    Counters, Generalization, Published, Schema, StreamParams, Tuple, pick, publish, suppress,
};

#[derive(Debug)]
struct Cluster {
    id: u64,
    generalization: Generalization,
    tuples: Vec<Tuple>,
    /// Tuples of each person in the cluster.
    persons: FxHashMap<u64, u32>,
}

impl Cluster {
    fn new(schema: &Schema, id: u64, t: Tuple) -> Cluster {
        let mut persons = FxHashMap::default();
        persons.insert(t.pid, 1);
        Cluster {
            id,
            generalization: schema.point(&t),
            tuples: vec![t],
            persons,
        }
    }

    fn add(&mut self, schema: &Schema, t: Tuple) {
        schema.extend(&mut self.generalization, &t);
        *self.persons.entry(t.pid).or_default() += 1;
        self.tuples.push(t);
    }

    fn absorb(&mut self, schema: &Schema, other: Cluster) {
        schema.merge(&mut self.generalization, &other.generalization);
        for t in other.tuples {
            *self.persons.entry(t.pid).or_default() += 1;
            self.tuples.push(t);
        }
    }

    /// Takes out the tuple of `row` and shrinks the generalization.
    fn remove(&mut self, schema: &Schema, row: u64) -> Tuple {
        let i = self
            .tuples
            .iter()
            .position(|t| t.row == row)
            .expect("the tuple is in its cluster");
        let t = self.tuples.swap_remove(i);
        let n = self.persons.get_mut(&t.pid).expect("counted");
        *n -= 1;
        if *n == 0 {
            self.persons.remove(&t.pid);
        }
        if let Some(first) = self.tuples.first() {
            let mut g = schema.point(first);
            for u in &self.tuples[1..] {
                schema.extend(&mut g, u);
            }
            self.generalization = g;
        }
        t
    }

    fn persons(&self) -> usize {
        self.persons.len()
    }
}

/// CASTLE's state.
#[derive(Debug)]
pub struct Castle {
    k: usize,
    delta: usize,
    beta: usize,
    mu: usize,
    rng: ChaCha8Rng,
    tau: f64,
    recent: VecDeque<f64>,
    /// Gamma: clusters under construction.
    gamma: Vec<Cluster>,
    /// Omega: published clusters kept for reuse.
    omega: Vec<Generalization>,
    /// Waiting rows in arrival order, with their cluster's id.
    waiting: BTreeMap<u64, u64>,
    next_id: u64,
    arrivals: u64,
}

impl Castle {
    pub(crate) fn new(p: &StreamParams, rng: ChaCha8Rng) -> Castle {
        Castle {
            k: p.k,
            delta: p.delta,
            beta: p.beta,
            mu: p.mu,
            rng,
            tau: 0.0,
            recent: VecDeque::new(),
            gamma: Vec::new(),
            omega: Vec::new(),
            waiting: BTreeMap::new(),
            next_id: 0,
            arrivals: 0,
        }
    }

    pub(crate) fn push(
        &mut self,
        schema: &Schema,
        t: Tuple,
        out: &mut Vec<Published>,
        counters: &mut Counters,
    ) {
        self.arrivals = t.row;
        let row = t.row;
        let id = match self.best_selection(schema, &t) {
            Some(c) => {
                self.gamma[c].add(schema, t);
                self.gamma[c].id
            }
            None => {
                let id = self.next_id;
                self.next_id += 1;
                self.gamma.push(Cluster::new(schema, id, t));
                id
            }
        };
        self.waiting.insert(row, id);
        // A tuple leaves before `delta` further tuples arrive.
        while let Some((&oldest, _)) = self.waiting.first_key_value() {
            if oldest + self.delta as u64 > self.arrivals + 1 {
                break;
            }
            self.delay_constraint(schema, oldest, out, counters);
        }
    }

    pub(crate) fn finish(
        &mut self,
        schema: &Schema,
        out: &mut Vec<Published>,
        counters: &mut Counters,
    ) {
        while let Some((&oldest, _)) = self.waiting.first_key_value() {
            self.delay_constraint(schema, oldest, out, counters);
        }
    }

    /// The cluster `t` joins, or `None` for a new one.
    fn best_selection(&mut self, schema: &Schema, t: &Tuple) -> Option<usize> {
        if self.gamma.is_empty() {
            return None;
        }
        let scored: Vec<(f64, f64)> = self
            .gamma
            .iter()
            .map(|c| {
                let after = schema.loss_with(&c.generalization, t);
                (after - schema.loss(&c.generalization), after)
            })
            .collect();
        let min = scored.iter().map(|s| s.0).fold(f64::INFINITY, f64::min);
        let least: Vec<usize> = (0..scored.len()).filter(|&i| scored[i].0 == min).collect();
        let ok: Vec<usize> = least
            .iter()
            .copied()
            .filter(|&i| scored[i].1 <= self.tau)
            .collect();
        if !ok.is_empty() {
            Some(ok[pick(&mut self.rng, ok.len())])
        } else if self.gamma.len() >= self.beta {
            Some(least[pick(&mut self.rng, least.len())])
        } else {
            None
        }
    }

    fn cluster_of(&self, row: u64) -> usize {
        let id = self.waiting[&row];
        self.gamma
            .iter()
            .position(|c| c.id == id)
            .expect("a waiting tuple is in a cluster")
    }

    /// Takes the tuple of `row` out of its cluster (dropping an emptied one).
    fn take(&mut self, schema: &Schema, row: u64) -> Tuple {
        let c = self.cluster_of(row);
        let t = self.gamma[c].remove(schema, row);
        if self.gamma[c].tuples.is_empty() {
            self.gamma.swap_remove(c);
        }
        self.waiting.remove(&row);
        t
    }

    fn delay_constraint(
        &mut self,
        schema: &Schema,
        row: u64,
        out: &mut Vec<Published>,
        counters: &mut Counters,
    ) {
        let c = self.cluster_of(row);
        if self.gamma[c].persons() >= self.k {
            self.output_cluster(schema, c, out, counters);
            return;
        }
        let t = self.gamma[c]
            .tuples
            .iter()
            .find(|t| t.row == row)
            .expect("in its cluster");
        let covering: Vec<usize> = (0..self.omega.len())
            .filter(|&i| schema.covers(&self.omega[i], t))
            .collect();
        if !covering.is_empty() {
            let i = covering[pick(&mut self.rng, covering.len())];
            let t = self.take(schema, row);
            publish(schema, &self.omega[i], t, out);
            counters.reused += 1;
            return;
        }
        let size = self.gamma[c].tuples.len();
        let smaller = self.gamma.iter().filter(|d| d.tuples.len() < size).count();
        let persons: rustc_hash::FxHashSet<u64> = self
            .gamma
            .iter()
            .flat_map(|d| d.persons.keys().copied())
            .collect();
        if 2 * smaller > self.gamma.len() || persons.len() < self.k {
            let t = self.take(schema, row);
            suppress(schema, t, out);
            return;
        }
        let c = self.merge_clusters(schema, c);
        self.output_cluster(schema, c, out, counters);
    }

    /// Grows cluster `c` with the clusters that enlarge it least until it
    /// holds k persons; returns its new position.
    fn merge_clusters(&mut self, schema: &Schema, c: usize) -> usize {
        let mut cluster = self.gamma.swap_remove(c);
        while cluster.persons() < self.k {
            let base = schema.loss(&cluster.generalization);
            let best = (0..self.gamma.len())
                .map(|j| {
                    let mut g = cluster.generalization.clone();
                    schema.merge(&mut g, &self.gamma[j].generalization);
                    (schema.loss(&g) - base, j)
                })
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                .expect("Gamma holds k persons in all")
                .1;
            let other = self.gamma.swap_remove(best);
            for t in &other.tuples {
                self.waiting.insert(t.row, cluster.id);
            }
            cluster.absorb(schema, other);
        }
        self.gamma.push(cluster);
        self.gamma.len() - 1
    }

    /// Publishes cluster `c` (split first when it holds 2k persons or more).
    fn output_cluster(
        &mut self,
        schema: &Schema,
        c: usize,
        out: &mut Vec<Published>,
        counters: &mut Counters,
    ) {
        let cluster = self.gamma.swap_remove(c);
        let parts = if cluster.persons() >= 2 * self.k {
            self.split(schema, cluster)
        } else {
            vec![(cluster.generalization, cluster.tuples)]
        };
        for (g, tuples) in parts {
            for t in tuples {
                self.waiting.remove(&t.row);
                publish(schema, &g, t, out);
            }
            counters.clusters += 1;
            let loss = schema.loss(&g);
            if self.recent.len() == self.mu {
                self.recent.pop_front();
            }
            self.recent.push_back(loss);
            self.tau = self.recent.iter().sum::<f64>() / self.recent.len() as f64;
            if loss < self.tau {
                self.omega.push(g);
            }
        }
    }

    /// Splits a cluster of at least 2k persons into clusters of k persons
    /// or more (kNN over per-person buckets).
    fn split(&mut self, schema: &Schema, cluster: Cluster) -> Vec<(Generalization, Vec<Tuple>)> {
        let mut index: FxHashMap<u64, usize> = FxHashMap::default();
        let mut buckets: Vec<Vec<Tuple>> = Vec::new();
        for t in cluster.tuples {
            let next = buckets.len();
            let b = *index.entry(t.pid).or_insert(next);
            if b == next {
                buckets.push(Vec::new());
            }
            buckets[b].push(t);
        }
        let mut parts: Vec<Vec<Tuple>> = Vec::new();
        while buckets.len() >= self.k {
            let b = pick(&mut self.rng, buckets.len());
            let seed = buckets[b].pop().expect("buckets are never empty");
            // Each other bucket's tuple nearest to the seed.
            let mut near: Vec<(f64, usize, usize)> = buckets
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != b)
                .map(|(j, bucket)| {
                    let (d, i) = bucket
                        .iter()
                        .enumerate()
                        .map(|(i, u)| (schema.distance(&seed, u), i))
                        .min_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)))
                        .expect("non-empty");
                    (d, j, i)
                })
                .collect();
            let need = self.k - 1;
            let cmp = |x: &(f64, usize, usize), y: &(f64, usize, usize)| {
                x.0.total_cmp(&y.0).then(x.1.cmp(&y.1))
            };
            if need < near.len() {
                near.select_nth_unstable_by(need, cmp);
                near.truncate(need);
            }
            let mut part = vec![seed];
            for &(_, j, i) in &near {
                part.push(buckets[j].swap_remove(i));
            }
            parts.push(part);
            buckets.retain(|bucket| !bucket.is_empty());
        }
        let mut gens: Vec<Generalization> = parts
            .iter()
            .map(|p| {
                let mut g = schema.point(&p[0]);
                for u in &p[1..] {
                    schema.extend(&mut g, u);
                }
                g
            })
            .collect();
        // The remaining persons join, all their tuples together, the part
        // whose loss grows least with their first tuple.
        for bucket in buckets {
            let first = &bucket[0];
            let best = (0..parts.len())
                .map(|p| (schema.loss_with(&gens[p], first) - schema.loss(&gens[p]), p))
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                .expect("a split makes at least one part")
                .1;
            for t in bucket {
                schema.extend(&mut gens[best], &t);
                parts[best].push(t);
            }
        }
        gens.into_iter().zip(parts).collect()
    }
}
