//! δ-disclosure privacy (Brickell & Shmatikov 2008): in every class, every
//! sensitive value's frequency q stays within a factor e^δ of its table
//! frequency p, |ln(q/p)| < δ.

use super::Definitions;
use super::distribution::Distribution;

/// The largest |ln(q/p)| over classes and values. pyCANON skips the values
/// a class does not hold (q = 0, an infinite ratio); the literature counts
/// them, so a class missing a value of the table is unbounded (`INFINITY`).
pub fn delta(d: &Distribution, definitions: Definitions) -> Option<f64> {
    (0..d.classes())
        .map(|c| {
            let (ranks, counts) = d.class(c);
            if definitions == Definitions::Literature && ranks.len() < d.values() {
                return f64::INFINITY;
            }
            let size = d.sizes[c] as f64;
            ranks
                .iter()
                .zip(counts)
                .map(|(&v, &n)| ((n as f64 / size) / d.p(v)).ln().abs())
                .fold(f64::NEG_INFINITY, f64::max)
        })
        .reduce(f64::max)
}
