//! β-likeness (Cao & Karras 2012): a class may raise a sensitive value's
//! frequency from p to q by a relative gain (q − p)/p of at most β (basic);
//! enhanced β-likeness bounds the gain by min(β, −ln p), so rare values may
//! not gain more than a common value's bound allows.

use super::Definitions;
use super::distribution::Distribution;

/// The largest relative gain (q − p)/p over classes and every value of the
/// table (a value a class lacks gains −1): pyCANON's basic β.
pub fn basic_beta(d: &Distribution) -> Option<f64> {
    (0..d.classes()).map(|c| class_gain(d, c)).reduce(f64::max)
}

fn class_gain(d: &Distribution, c: usize) -> f64 {
    let (ranks, counts) = d.class(c);
    let size = d.sizes[c] as f64;
    let held = ranks
        .iter()
        .zip(counts)
        .map(|(&v, &n)| (n as f64 / size - d.p(v)) / d.p(v))
        .fold(f64::NEG_INFINITY, f64::max);
    if ranks.len() < d.values() {
        held.max(-1.0)
    } else {
        held
    }
}

/// Enhanced β. pyCANON: min(basic β, max over values of −ln p), the largest
/// of min(β, −ln p_i). Literature: the least β for which every gain is at
/// most min(β, −ln p) — the basic β when every gain is within −ln p of its
/// value, else unbounded (`INFINITY`: no β is enough).
pub fn enhanced_beta(d: &Distribution, definitions: Definitions) -> Option<f64> {
    let basic = basic_beta(d)?;
    match definitions {
        Definitions::PyCanon => {
            let rarest = (0..d.values() as u32)
                .map(|v| -d.p(v).ln())
                .fold(f64::NEG_INFINITY, f64::max);
            Some(basic.min(rarest))
        }
        Definitions::Literature => {
            let beyond = (0..d.classes()).any(|c| {
                let (ranks, counts) = d.class(c);
                let size = d.sizes[c] as f64;
                ranks.iter().zip(counts).any(|(&v, &n)| {
                    let p = d.p(v);
                    (n as f64 / size - p) / p > -p.ln()
                })
            });
            Some(if beyond { f64::INFINITY } else { basic })
        }
    }
}
