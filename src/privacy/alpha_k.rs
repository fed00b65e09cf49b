//! (α,k)-anonymity (Wong et al. 2006): every class of at least k rows, and
//! no sensitive value above a fraction α of its class. k is the partition's
//! smallest class; this file gives α.

use super::distribution::Distribution;

/// The largest share of one sensitive value in a class (pyCANON's α),
/// `None` without classes.
pub fn alpha(d: &Distribution) -> Option<f64> {
    (0..d.classes())
        .map(|c| {
            let top = d.class(c).1.iter().copied().max().unwrap_or(0);
            top as f64 / d.sizes[c] as f64
        })
        .reduce(f64::max)
}
