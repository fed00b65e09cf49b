//! ℓ-diversity (Machanavajjhala et al. 2007) in its three instances:
//! distinct (every class holds ℓ sensitive values), entropy (every class's
//! entropy is at least ln ℓ) and recursive (c,ℓ) (the most frequent value
//! is rarer than c times the sum of the ℓ-th most frequent and rarer ones).

use super::Definitions;
use super::distribution::{Distribution, numpy_sum};

/// The fewest distinct sensitive values in a class.
pub fn distinct_l(d: &Distribution) -> Option<usize> {
    (0..d.classes()).map(|c| d.class(c).0.len()).min()
}

/// The smallest class entropy −Σ q ln q (natural log, values in rank order
/// summed as numpy sums).
pub fn min_entropy(d: &Distribution) -> Option<f64> {
    let mut terms = Vec::new();
    (0..d.classes())
        .map(|c| {
            let size = d.sizes[c] as f64;
            terms.clear();
            terms.extend(d.class(c).1.iter().map(|&n| {
                let q = n as f64 / size;
                q * q.ln()
            }));
            -numpy_sum(&terms)
        })
        .reduce(f64::min)
}

/// Entropy ℓ from the smallest entropy: pyCANON floors e^H to a whole ℓ
/// (`int(e ** H)`); the literature's ℓ is e^H itself.
pub fn entropy_l(min_entropy: f64, definitions: Definitions) -> f64 {
    let l = std::f64::consts::E.powf(min_entropy);
    match definitions {
        Definitions::PyCanon => l.floor(),
        Definitions::Literature => l,
    }
}

/// Class counts sorted descending (r1 ≥ r2 ≥ …).
fn sorted_counts(d: &Distribution, c: usize, out: &mut Vec<u32>) {
    out.clear();
    out.extend_from_slice(d.class(c).1);
    out.sort_unstable_by(|a, b| b.cmp(a));
}

/// The c of recursive (c,ℓ)-diversity at `l`, `None` when l < 2 or
/// without classes (pyCANON's NaN).
///
/// pyCANON sorts the counts ascending and takes ⌊r_min / (r_ℓ + … + r_m) + 1⌋
/// over that order (a whole c, 1 or 2 in practice). The literature sorts
/// them descending and needs r1 < c (r_ℓ + … + r_m): the value is the
/// largest r1 / (r_ℓ + … + r_m), which a claimed c must exceed.
pub fn recursive_c(d: &Distribution, l: usize, definitions: Definitions) -> Option<f64> {
    if l < 2 {
        return None;
    }
    let mut r = Vec::new();
    (0..d.classes())
        .map(|c| {
            sorted_counts(d, c, &mut r);
            match definitions {
                Definitions::PyCanon => {
                    r.reverse();
                    let tail: u64 = r.iter().skip(l - 1).map(|&n| n as u64).sum();
                    (r[0] as f64 / tail as f64 + 1.0).floor()
                }
                Definitions::Literature => recursive_ratio(&r, l),
            }
        })
        .reduce(f64::max)
}

/// r1 / (r_ℓ + … + r_m) for counts sorted descending; unbounded when the
/// class holds fewer than ℓ values.
pub fn recursive_ratio(descending: &[u32], l: usize) -> f64 {
    let tail: u64 = descending.iter().skip(l - 1).map(|&n| n as u64).sum();
    if tail == 0 {
        return f64::INFINITY;
    }
    descending[0] as f64 / tail as f64
}

/// Whether every class is recursive (c,ℓ)-diverse: r1 < c (r_ℓ + … + r_m).
pub fn recursive_holds(d: &Distribution, c: f64, l: usize) -> bool {
    let mut r = Vec::new();
    (0..d.classes()).all(|k| {
        sorted_counts(d, k, &mut r);
        let tail: u64 = r.iter().skip(l.max(1) - 1).map(|&n| n as u64).sum();
        (r[0] as f64) < c * tail as f64
    })
}
