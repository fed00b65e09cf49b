//! Mode 3's context parents (`spec/CODING.md` 6.5): a QI's rows may be
//! coded under their released value *and* the values of up to two other
//! columns of the row (another QI's decoded original, or another QI's
//! released value), each such context that pays for its own frequency
//! table getting one, the others falling back to the released value's.
//!
//! The encoder measures a candidate from counts, not by coding it: each
//! context's rows cost their empirical entropy plus an estimate of its
//! table, against their cost under the released value's table; the gain is
//! what the contexts that pay save. The logarithms are integer fixed point
//! (`parents::log2_fixed`), so the choice and the bytes are the same on
//! every platform.

use super::super::parents::{ContextKeys, log2_fixed, sort_keys};

/// A parent of a QI's section, as stored: varint `2 i` for QI `i`'s
/// original values, `2 i + 1` for its released values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(in crate::codec) enum Parent {
    /// QI `i`'s original values (indices in its value table): its section
    /// is decoded first.
    Original(usize),
    /// QI `i`'s released symbols: public, decoded before any section.
    Released(usize),
}

impl Parent {
    pub(in crate::codec) fn id(self) -> u64 {
        match self {
            Parent::Original(i) => 2 * i as u64,
            Parent::Released(i) => 2 * i as u64 + 1,
        }
    }

    pub(in crate::codec) fn from_id(id: u64) -> Parent {
        let i = (id / 2) as usize;
        if id.is_multiple_of(2) {
            Parent::Original(i)
        } else {
            Parent::Released(i)
        }
    }

    pub(in crate::codec) fn qi(self) -> usize {
        match self {
            Parent::Original(i) | Parent::Released(i) => i,
        }
    }
}

/// The most contexts (released values times the parents' radices) a
/// section of `rows` rows may have: its decoder holds a head index per
/// context, so the bound keeps memory linear in the rows.
pub(in crate::codec) fn context_limit(rows: usize) -> u64 {
    4 * rows as u64 + (1 << 16)
}

/// A context that gets its own table: its number (`g * K + key`, as
/// [`ContextKeys::key`]) and its rows' (value, count), values ascending.
pub(super) struct Refined {
    pub(super) context: u64,
    pub(super) counts: Vec<(u32, u64)>,
}

/// One fixed-point bit.
const BIT: i64 = 1 << 16;
/// A refined context's own cost beyond its frequencies, in bits: its
/// number's varint and its scale symbol.
const CONTEXT_BITS: i64 = 16;

/// A QI's rows as [`CodedRows::refine`] measures them: the rows `0,
/// stride, 2 stride ...` whose symbol is coded, and each (symbol, value)
/// count of those rows, computed once for all candidates.
pub(super) struct CodedRows<'a> {
    /// Each row's released symbol.
    symbols: &'a [u32],
    /// Each row's value-table index, below `value_count`.
    values: &'a [u32],
    value_count: u64,
    /// Each symbol's alphabet size, 0 for a symbol that codes nothing.
    sizes: &'a [u32],
    stride: usize,
    /// (symbol * value_count + value, rows), ascending.
    base: Vec<(u64, u64)>,
    /// Each symbol's rows.
    totals: Vec<u64>,
}

impl<'a> CodedRows<'a> {
    pub(super) fn new(
        symbols: &'a [u32],
        values: &'a [u32],
        value_count: usize,
        sizes: &'a [u32],
        stride: usize,
    ) -> CodedRows<'a> {
        let mut rows = CodedRows {
            symbols,
            values,
            value_count: value_count.max(1) as u64,
            sizes,
            stride: stride.max(1),
            base: Vec::new(),
            totals: vec![0; sizes.len()],
        };
        let v = rows.value_count;
        let bound = (sizes.len() as u64).max(1).saturating_mul(v);
        rows.base = counted(
            rows.rows()
                .map(|r| u64::from(symbols[r]) * v + u64::from(values[r])),
            bound,
        );
        for &(k, n) in &rows.base {
            rows.totals[(k / v) as usize] += n;
        }
        rows
    }

    /// The rows measured.
    fn rows(&self) -> impl Iterator<Item = usize> + Clone + '_ {
        (0..self.symbols.len())
            .step_by(self.stride)
            .filter(|&r| self.sizes[self.symbols[r] as usize] > 0)
    }

    /// The contexts of `keys` that pay for their own table, and what they
    /// save (fixed-point bits, before the parents' bytes). `keep`: whether
    /// to list the contexts (the gain alone otherwise). `None` when the
    /// keys do not fit 64 bits.
    pub(super) fn refine(&self, keys: &ContextKeys<'_>, keep: bool) -> Option<(i64, Vec<Refined>)> {
        let (symbols, values, sizes, v) = (self.symbols, self.values, self.sizes, self.value_count);
        let bound = keys.space?.checked_mul(v)?;
        let per_symbol = keys.per_symbol();
        let contexts = counted(
            self.rows()
                .map(|r| keys.key(symbols[r], r) * v + u64::from(values[r])),
            bound,
        );
        let (base, totals) = (&self.base, &self.totals);
        let base_count = |g: u64, x: u64| {
            let i = base
                .binary_search_by_key(&(g * v + x), |&(k, _)| k)
                .expect("a context's value is its symbol's");
            base[i].1
        };
        let mut gain = 0i64;
        let mut refined = Vec::new();
        let mut i = 0;
        while i < contexts.len() {
            let context = contexts[i].0 / v;
            let start = i;
            while i < contexts.len() && contexts[i].0 / v == context {
                i += 1;
            }
            let group = &contexts[start..i];
            let g = context / per_symbol;
            let rows: u64 = group.iter().map(|&(_, n)| n).sum();
            let (log_rows, log_g) = (log2_fixed(rows), log2_fixed(totals[g as usize]));
            let (mut own, mut under, mut table) = (0i64, 0i64, CONTEXT_BITS * BIT);
            for &(k, n) in group {
                let n_fixed = n as i64;
                own += n_fixed * (log_rows - log2_fixed(n));
                under += n_fixed * (log_g - log2_fixed(base_count(g, k % v)));
                // A present value's width symbol and low bits.
                table += log2_fixed(n) + 2 * BIT;
            }
            // Every absent value of the alphabet: a width symbol.
            table += i64::from(sizes[g as usize]).saturating_sub(group.len() as i64) * BIT;
            let saved = under - own - table;
            if saved > 0 {
                gain += saved;
                if keep {
                    refined.push(Refined {
                        context,
                        counts: group.iter().map(|&(k, n)| ((k % v) as u32, n)).collect(),
                    });
                }
            }
        }
        Some((gain, refined))
    }
}

/// The (key, count) of `keys`, all below `bound`, ascending: counted in
/// an array when `bound` is small beside the keys, else sorted.
fn counted(keys: impl Iterator<Item = u64> + Clone, bound: u64) -> Vec<(u64, u64)> {
    let len = keys.clone().count() as u64;
    if bound <= (4 * len).max(1 << 16) {
        let mut counts = vec![0u64; bound as usize];
        for k in keys {
            counts[k as usize] += 1;
        }
        return (0..bound).zip(counts).filter(|&(_, n)| n > 0).collect();
    }
    let mut sorted: Vec<u64> = keys.collect();
    sort_keys(&mut sorted, bound);
    runs(&sorted)
}

/// The runs of equal keys of a sorted list: (key, count).
fn runs(sorted: &[u64]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &k in sorted {
        match out.last_mut() {
            Some((last, n)) if *last == k => *n += 1,
            _ => out.push((k, 1)),
        }
    }
    out
}

/// What choosing a QI's parents needs of every QI.
pub(super) struct Column<'a> {
    /// Each row's released symbol and how many symbols there are.
    pub(super) symbols: &'a [u32],
    pub(super) symbol_count: usize,
    /// Each row's value-table index and the table's size; `None` when the
    /// QI's section holds no value table (offsets), so that it cannot be
    /// an original parent, nor take parents.
    pub(super) values: Option<(&'a [u32], usize)>,
    /// Each symbol's alphabet size, 0 when it codes nothing.
    pub(super) sizes: Vec<u32>,
}

/// Rows a candidate is measured on, at most: larger tables are sampled
/// with a stride (the final coding counts every row).
const SAMPLE_ROWS: usize = 1 << 16;
/// The best single parent is paired with each of the next `PAIRED - 1`.
const PAIRED: usize = 8;

/// The parents of each QI: every other QI's original (when its section
/// has a value table) and released values are measured alone; then, by
/// decreasing gain, each QI takes its best single parent that keeps the
/// original parents acyclic (a QI's section is decoded after its original
/// parents'); then the pairs of that parent with each of the next
/// `PAIRED - 1` are measured, and a pair that gains more is kept. A QI
/// whose best candidate gains nothing gets none.
pub(super) fn choose(columns: &[Column<'_>]) -> Vec<Vec<Parent>> {
    let q = columns.len();
    let rows = columns.first().map_or(0, |c| c.symbols.len());
    let stride = rows.div_ceil(SAMPLE_ROWS).max(1);
    let limit = context_limit(rows);
    let radix = |p: Parent| -> Option<(&[u32], u64)> {
        match p {
            Parent::Original(i) => columns[i].values.map(|(v, n)| (v, n as u64)),
            Parent::Released(i) => Some((columns[i].symbols, columns[i].symbol_count as u64)),
        }
    };
    let measured: Vec<Option<CodedRows<'_>>> = columns
        .iter()
        .map(|c| {
            c.values
                .map(|(values, n)| CodedRows::new(c.symbols, values, n, &c.sizes, stride))
        })
        .collect();
    let measure = |j: usize, parents: &[Parent]| -> Option<i64> {
        let rows = measured[j].as_ref()?;
        let sources: Vec<(&[u32], u64)> =
            parents.iter().map(|&p| radix(p)).collect::<Option<_>>()?;
        let keys = ContextKeys::new(columns[j].symbol_count, sources);
        if keys.space? > limit {
            return None;
        }
        rows.refine(&keys, false).map(|(gain, _)| gain)
    };
    // Every single candidate's gain, best first (ties: lower QI, then
    // original before released).
    let mut singles: Vec<Vec<(i64, Parent)>> = (0..q)
        .map(|j| {
            let mut gains: Vec<(i64, Parent)> = (0..q)
                .filter(|&i| i != j && columns[j].sizes.iter().any(|&s| s > 0))
                .flat_map(|i| [Parent::Original(i), Parent::Released(i)])
                .filter_map(|p| measure(j, &[p]).filter(|&g| g > 0).map(|g| (g, p)))
                .collect();
            gains.sort_by_key(|&(g, p)| (std::cmp::Reverse(g), p));
            gains
        })
        .collect();
    let mut edges: Vec<(i64, usize, Parent)> = singles
        .iter()
        .enumerate()
        .flat_map(|(j, s)| s.iter().map(move |&(g, p)| (g, j, p)))
        .collect();
    edges.sort_by_key(|&(g, j, p)| (std::cmp::Reverse(g), j, p));
    let mut chosen: Vec<Vec<Parent>> = vec![Vec::new(); q];
    let mut gains = vec![0i64; q];
    for (g, j, p) in edges {
        if chosen[j].is_empty() && !cyclic(&chosen, j, p) {
            chosen[j] = vec![p];
            gains[j] = g;
        }
    }
    for j in 0..q {
        let Some(&a) = chosen[j].first() else {
            continue;
        };
        let others: Vec<Parent> = std::mem::take(&mut singles[j])
            .into_iter()
            .map(|(_, p)| p)
            .filter(|&p| p != a)
            .take(PAIRED - 1)
            .collect();
        for b in others {
            if cyclic(&chosen, j, b) {
                continue;
            }
            if let Some(g) = measure(j, &[a, b]).filter(|&g| g > gains[j]) {
                chosen[j] = vec![a, b];
                gains[j] = g;
            }
        }
    }
    chosen
}

/// Whether giving QI `j` the parent `p` closes a cycle of original
/// parents (`p` is QI `j`'s original, or descends from it).
pub(in crate::codec) fn cyclic(parents: &[Vec<Parent>], j: usize, p: Parent) -> bool {
    let Parent::Original(start) = p else {
        return false;
    };
    let mut seen = vec![false; parents.len()];
    let mut stack = vec![start];
    while let Some(i) = stack.pop() {
        if i == j {
            return true;
        }
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        stack.extend(parents[i].iter().filter_map(|&p| match p {
            Parent::Original(k) => Some(k),
            Parent::Released(_) => None,
        }));
    }
    false
}
