//! t-closeness (Li, Li & Venkatasubramanian 2007): every class's sensitive
//! distribution q lies within Earth Mover's Distance t of the table's p.
//! Categories are all one apart (equal distance: half the L1 distance);
//! numbers are ordered, i apart for ranks i apart, normalized by m − 1
//! (ordered distance: the sum of the cumulative differences' magnitudes).

use super::distribution::Distribution;

/// The largest EMD of a class: ordered distance for a numeric attribute,
/// equal distance for a categorical one (as pyCANON chooses).
pub fn t_closeness(d: &Distribution) -> Option<f64> {
    let prefix = d.numeric.then(|| Prefix::new(d));
    (0..d.classes())
        .map(|c| match &prefix {
            Some(prefix) => ordered_emd(d, prefix, c),
            None => equal_emd(d, c),
        })
        .reduce(f64::max)
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
    use crate::table::Column;
    use proptest::prelude::*;

    /// pyCANON's loops, value by value.
    fn reference(d: &Distribution, c: usize) -> f64 {
        let (ranks, counts) = d.class(c);
        let m = d.values();
        let mut q = vec![0.0; m];
        for (&v, &n) in ranks.iter().zip(counts) {
            q[v as usize] = n as f64 / d.sizes[c] as f64;
        }
        let r: Vec<f64> = (0..m).map(|i| q[i] - d.p(i as u32)).collect();
        if d.numeric {
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
            let d = Distribution::new(&s, &Partition { class_of, sizes }, true);
            prop_assume!(d.values() >= 2);
            let prefix = Prefix::new(&d);
            for c in 0..d.classes() {
                let got = if d.numeric { ordered_emd(&d, &prefix, c) } else { equal_emd(&d, c) };
                prop_assert!((got - reference(&d, c)).abs() < 1e-12);
            }
        }
    }
}
