//! How the `context` mode's encoder chooses a QI's parents
//! (`spec/CODING.md`, 6.4, leaves the choice to the encoder: decoding reads
//! the parents from the section).
//!
//! Coding the rows once per candidate to measure it is exact but costs a
//! full range-coding pass per candidate (about fifteen per QI on Adult).
//! Instead each candidate's stream length is *estimated from counts*: every
//! bit model of 6.4 is a Krichevsky-Trofimov estimator, whose code length
//! for a sequence with `n0` zeros and `n1` ones does not depend on their
//! order, `log2 (n0 + n1)! - log2 [Γ(n0 + 1/2) / Γ(1/2)] - log2 [Γ(n1 + 1/2)
//! / Γ(1/2)]` bits. Summed over the tree nodes of every context, that is the
//! stream's length up to the count halving and the 12-bit probabilities,
//! which move it by a few bytes. One sort of the coded rows' (context,
//! position) keys gives all the counts of a candidate (or, when the key
//! space is small, one pass counting them in an array).
//!
//! The logarithms are integer fixed point, so the choice (and so the
//! archive's bytes) is the same on every platform.

use std::sync::OnceLock;

use super::range::{one_possible, width};

/// The parents of a QI with the radix of each one's values: a row's
/// context `(g, v1, v2)` is numbered `(g * n1 + v1) * n2 + v2`, injective
/// as long as every value is below its radix.
pub(super) struct ContextKeys<'a> {
    parents: Vec<(&'a [u32], u64)>,
    /// The number of keys: `m * n1 * n2`; `None` when it exceeds 64 bits.
    pub(super) space: Option<u64>,
}

impl<'a> ContextKeys<'a> {
    pub(super) fn new(symbols: usize, parents: Vec<(&'a [u32], u64)>) -> ContextKeys<'a> {
        let space = parents
            .iter()
            .try_fold(symbols as u64, |acc, &(_, n)| acc.checked_mul(n));
        ContextKeys { parents, space }
    }

    /// The parents' values (by row) and radices.
    pub(super) fn parents(&self) -> &[(&'a [u32], u64)] {
        &self.parents
    }

    /// How many keys each released symbol spans: `n1 * n2`.
    pub(super) fn per_symbol(&self) -> u64 {
        self.parents.iter().map(|&(_, n)| n).product()
    }

    #[inline]
    pub(super) fn key(&self, g: u32, row: usize) -> u64 {
        self.parents
            .iter()
            .fold(u64::from(g), |k, &(p, n)| k * n + u64::from(p[row]))
    }

    /// Calls `f(i, key)` with the key of each coded row `i` (as
    /// [`ContextKeys::key`], unrolled for the usual zero to two parents:
    /// the encoder computes keys for every candidate's estimate).
    #[inline]
    pub(super) fn each_key(&self, coded: &CodedRows, mut f: impl FnMut(usize, u64)) {
        let rows = coded.rows.iter().zip(&coded.symbols).enumerate();
        match self.parents[..] {
            [] => rows.for_each(|(i, (_, &g))| f(i, u64::from(g))),
            [(p1, n1)] => rows
                .for_each(|(i, (&row, &g))| f(i, u64::from(g) * n1 + u64::from(p1[row as usize]))),
            [(p1, n1), (p2, n2)] => rows.for_each(|(i, (&row, &g))| {
                let k = u64::from(g) * n1 + u64::from(p1[row as usize]);
                f(i, k * n2 + u64::from(p2[row as usize]))
            }),
            _ => rows.for_each(|(i, (&row, &g))| f(i, self.key(g, row as usize))),
        }
    }
}

/// A QI's rows that carry bits in context mode: each one's row, released
/// symbol and position in that symbol's alphabet; and each symbol's
/// alphabet size (0 for unchanged symbols).
pub(super) struct CodedRows {
    pub(super) rows: Vec<u32>,
    pub(super) symbols: Vec<u32>,
    pub(super) positions: Vec<u32>,
    pub(super) sizes: Vec<u32>,
}

/// Fixed-point logarithms carry this many fractional bits.
const FRACTION_BITS: u32 = 16;
/// `log2` of a mantissa is looked up with this many bits after the leading one.
const MANTISSA_BITS: u32 = 12;

/// `log2(1 + i / 2^MANTISSA_BITS)` in fixed point, for `i` in `0 ..= 2^MANTISSA_BITS`,
/// computed by repeated squaring (integer arithmetic only).
fn mantissa_logs() -> &'static [u32] {
    static TABLE: OnceLock<Vec<u32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..=1u64 << MANTISSA_BITS)
            .map(|i| {
                // x in [1, 2] with 32 fractional bits.
                let mut x = (1u64 << 32) + (i << (32 - MANTISSA_BITS));
                let mut log = 0u32;
                for bit in (0..FRACTION_BITS).rev() {
                    x = ((u128::from(x) * u128::from(x)) >> 32) as u64;
                    if x >= 2 << 32 {
                        log |= 1 << bit;
                        x >>= 1;
                    }
                }
                // log2(2) squares to exactly 2 at every step: all ones, one
                // unit short of 1.0; round the top entry up.
                if i == 1 << MANTISSA_BITS {
                    1 << FRACTION_BITS
                } else {
                    log
                }
            })
            .collect()
    })
}

/// `log2(x)` for `x >= 1`, in fixed point (about 2^-12 bits of error).
pub(super) fn log2_fixed(x: u64) -> i64 {
    let table = mantissa_logs();
    let e = 63 - x.leading_zeros();
    let index = if e > MANTISSA_BITS {
        // The mantissa's top bits, rounded to nearest.
        ((x >> (e - MANTISSA_BITS - 1)) + 1) >> 1
    } else {
        x << (MANTISSA_BITS - e)
    } - (1 << MANTISSA_BITS);
    (i64::from(e) << FRACTION_BITS) + i64::from(table[index as usize])
}

/// Prefix sums of the logarithms a Krichevsky-Trofimov code length needs.
struct LogSums {
    /// `log2 n!`.
    factorial: Vec<i64>,
    /// `log2 Γ(n + 1/2) / Γ(1/2)` = sum of `log2 (k + 1/2)` for `k < n`.
    half: Vec<i64>,
}

/// The [`LogSums`] of one table, computed once for all its QIs (by the
/// first whose parents are chosen; a table with no coded row needs none).
pub(super) struct SharedLogs {
    rows: usize,
    logs: OnceLock<LogSums>,
}

impl SharedLogs {
    /// For QIs of at most `rows` coded rows.
    pub(super) fn new(rows: usize) -> SharedLogs {
        SharedLogs {
            rows,
            logs: OnceLock::new(),
        }
    }

    fn get(&self) -> &LogSums {
        self.logs.get_or_init(|| LogSums::up_to(self.rows))
    }
}

impl LogSums {
    fn up_to(n: usize) -> LogSums {
        let mut factorial = Vec::with_capacity(n + 1);
        let mut half = Vec::with_capacity(n + 1);
        let (mut f, mut h) = (0i64, 0i64);
        for k in 0..=n as u64 {
            factorial.push(f);
            half.push(h);
            f += log2_fixed(k + 1);
            h += log2_fixed(2 * k + 1) - (1 << FRACTION_BITS);
        }
        LogSums { factorial, half }
    }

    /// The code length of `n0` zeros and `n1` ones under one bit model.
    #[inline]
    fn bits(&self, n0: u64, n1: u64) -> i64 {
        self.factorial[(n0 + n1) as usize] - self.half[n0 as usize] - self.half[n1 as usize]
    }
}

/// Reusable buffers of [`estimate`].
#[derive(Default)]
struct Scratch {
    keys: Vec<u64>,
    counts: Vec<u32>,
    level: Vec<u64>,
    /// Each coded row's `g << bits | position` (the same for every
    /// candidate of a QI).
    symbol_positions: Vec<usize>,
}

/// Key spaces of at most this many (context, position) slots per coded
/// row (and at least [`DENSE_MIN`]) are counted in an array instead of
/// sorted.
const DENSE_PER_ROW: u64 = 4;
const DENSE_MIN: u64 = 1 << 16;
const DENSE_MAX: u64 = 1 << 24;

/// The estimated stream length of `coded` under `keys`, in fixed-point
/// bits; `None` when (context, position) keys do not fit in 64 bits (the
/// candidate is then not considered).
fn estimate(
    coded: &CodedRows,
    keys: &ContextKeys<'_>,
    logs: &LogSums,
    scratch: &mut Scratch,
) -> Option<i64> {
    let alphabet = u64::from(coded.sizes.iter().copied().max().unwrap_or(0)).max(1);
    let bits = width(alphabet as u32);
    let space = keys.space?;
    let bound = space.checked_mul(1 << bits)?;
    let dense = (coded.rows.len() as u64 * DENSE_PER_ROW).clamp(DENSE_MIN, DENSE_MAX);
    if bound <= dense {
        return Some(estimate_dense(coded, keys, logs, scratch, bits, space));
    }
    Some(estimate_sorted(
        coded,
        keys,
        logs,
        &mut scratch.keys,
        bits,
        bound,
        keys.per_symbol(),
    ))
}

/// [`estimate`] by sorting the rows' (context, position) keys: each run of
/// equal contexts is one context's rows, positions ascending.
fn estimate_sorted(
    coded: &CodedRows,
    keys: &ContextKeys<'_>,
    logs: &LogSums,
    scratch: &mut Vec<u64>,
    bits: u32,
    bound: u64,
    per_symbol: u64,
) -> i64 {
    scratch.clear();
    scratch.resize(coded.rows.len(), 0);
    keys.each_key(coded, |i, k| {
        scratch[i] = k << bits | u64::from(coded.positions[i]);
    });
    sort_keys(scratch, bound);
    let mut total = 0i64;
    // One context's (position, count) pairs, positions ascending.
    let mut group: Vec<(u32, u64)> = Vec::new();
    let mut i = 0;
    while i < scratch.len() {
        let context = scratch[i] >> bits;
        group.clear();
        while i < scratch.len() && scratch[i] >> bits == context {
            let key = scratch[i];
            let start = i;
            while i < scratch.len() && scratch[i] == key {
                i += 1;
            }
            group.push(((key & ((1 << bits) - 1)) as u32, (i - start) as u64));
        }
        let size = coded.sizes[(context / per_symbol) as usize];
        for b in (0..width(size)).rev() {
            let mut j = 0;
            while j < group.len() {
                let prefix = group[j].0 >> (b + 1);
                let (mut n0, mut n1) = (0, 0);
                while j < group.len() && group[j].0 >> (b + 1) == prefix {
                    if (group[j].0 >> b) & 1 == 1 {
                        n1 += group[j].1;
                    } else {
                        n0 += group[j].1;
                    }
                    j += 1;
                }
                if one_possible(prefix, b, size) {
                    total += logs.bits(n0, n1);
                }
            }
        }
    }
    total
}

// Long: counts per (context, position) and sums each context's tree bottom-up in one pass over a
// dense array
/// [`estimate`] over a small key space: the rows are counted per (context,
/// position) in an array, and each context's tree nodes summed bottom-up
/// (the same terms as the sorted path: an empty node costs nothing).
fn estimate_dense(
    coded: &CodedRows,
    keys: &ContextKeys<'_>,
    logs: &LogSums,
    scratch: &mut Scratch,
    bits: u32,
    space: u64,
) -> i64 {
    let Scratch {
        counts,
        level,
        symbol_positions,
        ..
    } = scratch;
    // Here a context is numbered with the parents' values first, `(v1 *
    // n2 + v2) * m + g` (the sum over contexts does not depend on their
    // numbering): a row's slot is then its parents' part times `m << bits`
    // plus `g << bits | position`, computed once for all candidates.
    let n = coded.rows.len();
    if symbol_positions.len() != n {
        symbol_positions.clear();
        symbol_positions.extend(
            coded
                .symbols
                .iter()
                .zip(&coded.positions)
                .map(|(&g, &s)| (g << bits | s) as usize),
        );
    }
    let m = coded.sizes.len() as u64;
    let stride = (m << bits) as usize;
    counts.clear();
    counts.resize((space << bits) as usize, 0);
    // Every row is coded when the rows are all the table's (no gather).
    let all_rows = |p: &[u32]| p.len() == n;
    match *keys.parents() {
        [] => symbol_positions.iter().for_each(|&gs| counts[gs] += 1),
        [(p1, _)] if all_rows(p1) => {
            for (&gs, &v1) in symbol_positions.iter().zip(p1) {
                counts[v1 as usize * stride + gs] += 1;
            }
        }
        [(p1, _), (p2, n2)] if all_rows(p1) => {
            for ((&gs, &v1), &v2) in symbol_positions.iter().zip(p1).zip(p2) {
                counts[(u64::from(v1) * n2 + u64::from(v2)) as usize * stride + gs] += 1;
            }
        }
        ref parents => {
            for (&gs, &row) in symbol_positions.iter().zip(&coded.rows) {
                let v = parents
                    .iter()
                    .fold(0, |k, &(p, r)| k * r + u64::from(p[row as usize]));
                counts[v as usize * stride + gs] += 1;
            }
        }
    }
    let mut total = 0i64;
    for context in 0..space {
        let size = coded.sizes[(context % m) as usize];
        let w = width(size);
        if w == 0 {
            continue;
        }
        let base = (context << bits) as usize;
        let leaves = &counts[base..base + (1 << w)];
        if leaves.iter().all(|&n| n == 0) {
            continue;
        }
        level.clear();
        level.extend(leaves.iter().map(|&n| u64::from(n)));
        // Level b's nodes: the prefixes above bit b, children by bit b.
        let mut len = level.len();
        for b in 0..w {
            len /= 2;
            for prefix in 0..len {
                let (n0, n1) = (level[2 * prefix], level[2 * prefix + 1]);
                if n0 + n1 > 0 && one_possible(prefix as u32, b, size) {
                    total += logs.bits(n0, n1);
                }
                level[prefix] = n0 + n1;
            }
        }
    }
    total
}

/// Sorts `keys`, all below `bound`: least-significant-digit radix sort
/// (11-bit digits) when the keys need few digits, else a comparison sort.
pub(super) fn sort_keys(keys: &mut Vec<u64>, bound: u64) {
    const DIGIT: u32 = 11;
    let bits = 64 - bound.saturating_sub(1).leading_zeros();
    let passes = bits.div_ceil(DIGIT);
    if passes > 3 || keys.len() < 256 {
        keys.sort_unstable();
        return;
    }
    let mut other = vec![0u64; keys.len()];
    let mut counts = vec![0usize; 1 << DIGIT];
    for pass in 0..passes {
        let shift = pass * DIGIT;
        let digit = |k: u64| ((k >> shift) & ((1 << DIGIT) - 1)) as usize;
        counts.fill(0);
        for &k in keys.iter() {
            counts[digit(k)] += 1;
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        for &k in keys.iter() {
            let d = digit(k);
            other[counts[d]] = k;
            counts[d] += 1;
        }
        std::mem::swap(keys, &mut other);
    }
}

/// The best single parent is paired with each of the next `PAIRED - 1`.
const PAIRED: usize = 4;

/// The parents for a QI with `symbols` released symbols and `earlier`
/// earlier QIs (`parent(p)`: QI `p`'s rows as value indices, and their
/// radix): no parent, each earlier QI alone, and the best single parent
/// paired with each of the next `PAIRED - 1` (on Adult the best pair always
/// holds the best single); the smallest estimate wins (ties: fewer parents,
/// then earlier QIs).
pub(super) fn choose<'a>(
    logs: &SharedLogs,
    coded: &CodedRows,
    symbols: usize,
    earlier: u32,
    parent: &impl Fn(u32) -> (&'a [u32], u64),
) -> Vec<u32> {
    if coded.rows.is_empty() {
        return Vec::new();
    }
    let logs = logs.get();
    debug_assert!(coded.rows.len() < logs.factorial.len());
    let mut scratch = Scratch::default();
    let mut measure = |parents: &[u32]| {
        let keys = ContextKeys::new(symbols, parents.iter().map(|&p| parent(p)).collect());
        estimate(coded, &keys, logs, &mut scratch)
    };
    let mut candidates: Vec<(i64, usize, Vec<u32>)> = Vec::new();
    if let Some(c) = measure(&[]) {
        candidates.push((c, 0, Vec::new()));
    }
    let mut singles: Vec<(i64, u32)> = (0..earlier)
        .filter_map(|p| measure(&[p]).map(|c| (c, p)))
        .collect();
    singles.sort_unstable();
    candidates.extend(singles.iter().map(|&(c, p)| (c, 1, vec![p])));
    if let Some(&(_, a)) = singles.first() {
        for &(_, b) in singles.iter().skip(1).take(PAIRED - 1) {
            let pair = [a.min(b), a.max(b)];
            if let Some(c) = measure(&pair) {
                candidates.push((c, 2, pair.to_vec()));
            }
        }
    }
    candidates
        .into_iter()
        .min()
        .map(|(_, _, parents)| parents)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn radix_sort_sorts(mut keys in prop::collection::vec(0u64..1 << 30, 0..2000)) {
            let mut expected = keys.clone();
            expected.sort_unstable();
            sort_keys(&mut keys, 1 << 30);
            prop_assert_eq!(keys, expected);
        }
    }

    proptest! {
        /// The array count and the sort give the same estimate.
        #[test]
        fn dense_estimate_is_the_sorted_one(
            sizes in prop::collection::vec(1u32..40, 1..5),
            radices in prop::collection::vec(1u64..6, 0..3),
            rows in prop::collection::vec((any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()), 0..400),
            skipped in prop::collection::vec(any::<bool>(), 0..4),
        ) {
            // Rows with `skipped` set are not coded (unchanged cells); the
            // parents' values cover every row of the table.
            let coded_rows: Vec<u32> = (0..rows.len() as u32)
                .filter(|&i| !skipped.get(i as usize % 7).copied().unwrap_or(false))
                .collect();
            let n = coded_rows.len();
            let coded = CodedRows {
                symbols: coded_rows.iter().map(|&i| rows[i as usize].0 % sizes.len() as u32).collect(),
                positions: coded_rows.iter().map(|&i| {
                    let r = rows[i as usize];
                    r.1 % sizes[(r.0 % sizes.len() as u32) as usize]
                }).collect(),
                rows: coded_rows,
                sizes: sizes.clone(),
            };
            let values: Vec<Vec<u32>> = radices
                .iter()
                .enumerate()
                .map(|(j, &radix)| rows.iter().map(|r| [r.2, r.3][j] % radix as u32).collect())
                .collect();
            let keys = ContextKeys::new(
                sizes.len(),
                values.iter().zip(&radices).map(|(v, &radix)| (&v[..], radix)).collect(),
            );
            let logs = LogSums::up_to(n);
            let bits = width(sizes.iter().copied().max().unwrap_or(1));
            let space = keys.space.unwrap();
            let mut scratch = Scratch::default();
            let dense = estimate_dense(&coded, &keys, &logs, &mut scratch, bits, space);
            let sorted = estimate_sorted(&coded, &keys, &logs, &mut scratch.keys, bits, space << bits, keys.per_symbol());
            prop_assert_eq!(dense, sorted);
        }
    }

    #[test]
    fn fixed_point_logarithms() {
        let one = 1i64 << FRACTION_BITS;
        for (x, exact) in [
            (1u64, 0.0),
            (2, 1.0),
            (3, 3f64.log2()),
            (1000, 1000f64.log2()),
        ] {
            let got = log2_fixed(x) as f64 / one as f64;
            assert!(
                (got - exact).abs() < 1e-3,
                "log2({x}) = {got}, expected {exact}"
            );
        }
        assert_eq!(log2_fixed(1 << 40), 40 * one);
        assert!(log2_fixed(4095) < log2_fixed(4096) && log2_fixed(4096) < log2_fixed(4097));
        // KT: one zero costs one bit; two zeros cost log2(8/3) bits.
        let logs = LogSums::up_to(4);
        assert!((logs.bits(1, 0) - one).abs() < 16);
        let two = logs.bits(2, 0) as f64 / one as f64;
        assert!((two - (8.0f64 / 3.0).log2()).abs() < 1e-3, "{two}");
    }
}
