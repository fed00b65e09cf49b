//! Mode 3, `per-value-rans` (`spec/CODING.md` 6.5), karc's default: per
//! released value, the same alphabet as per-value mode (nothing for a value
//! released unchanged), but a static frequency table instead of a Huffman
//! code, and the rows coded with rANS (four interleaved states).
//!
//! A Huffman code spends at least one bit on a value: sex, race or
//! salary-class under `*` carry less. rANS codes each value at its
//! quantized frequency, so a section comes within its table of the order-0
//! entropy H(x | g), and decoding stays one table lookup per coded row:
//! near context mode's size at a fraction of its decoding time
//! (`spec/CODING.md` 6.5 gives Adult's figures).

// Long: one coding mode (CODING.md 6.5): encoder, decoder and the table layout they share, kept
// together so the stored order is read as written

use super::contexts::{self, Parent, context_limit};
use super::frequencies;
use super::{
    ColumnBuilder, QiOriginal, QiSchema, ReleasedColumn, ReleasedRows, ValueTable, coded_alphabets,
    symbol_alphabets, value_counts,
};
use crate::codec::CodecError;
use crate::codec::bytes::{ByteReader, put_coded, put_varint};
use crate::codec::parents::ContextKeys;
use crate::codec::rans::{LOW, check_end, encode_step, put_stream, quantize, read_stream};
use crate::table::Column;

/// Interleaved rANS states: the `k`-th coded row takes state `k mod 4`, so
/// four rows' steps, each waiting on a lookup and a multiply, overlap.
const STATES: usize = 4;
/// The largest scale: frequencies sum to `2^scale`, and a state step stays
/// within 32 bits with 16-bit renormalization up to `2^16`.
const MAX_SCALE: u32 = 16;
/// The largest scale the encoder prefers: a released value's decoding
/// table of `2^12` slots (8 bytes each) stays in cache.
const PREFERRED_SCALE: u32 = 12;
/// Width symbols: 0 for a frequency 0, else `1 + floor(log2 f)`.
const WIDTHS: usize = MAX_SCALE as usize + 2;
/// Scale symbols: a stored table's scale, or [`UNIFORM`].
const SCALES: usize = MAX_SCALE as usize + 2;
/// The scale symbol of a released value whose table is not stored: every
/// value of its alphabet equally likely (a wide interval over a column of
/// distinct numbers, whose stored table would list thousands of zeros).
const UNIFORM: u32 = MAX_SCALE + 1;

/// The uniform table of an alphabet of `size` values (`1..=2^16`): scale
/// `ceil(log2 size)`, value `p` from slot `ceil(p 2^s / size)`, so that a
/// slot's value is `slot * size >> s`, computed rather than looked up.
fn uniform_start(p: u64, size: u64, scale: u32) -> u32 {
    ((p << scale).div_ceil(size)) as u32
}

/// `ceil(log2 n)`, 0 for `n <= 1`.
fn ceil_log2(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        u64::BITS - (n - 1).leading_zeros()
    }
}

/// The estimated bits of a stored table's present frequencies: about two
/// for each width symbol, and the low bits of all but the largest, which is
/// implied ([`frequencies`]).
fn table_bits(q: &[u32]) -> f64 {
    let low: u32 = q.iter().map(|&f| f.ilog2()).sum();
    let largest = q.iter().max().map_or(0, |&f| f.ilog2());
    f64::from(low - largest) + 2.0 * q.len() as f64
}

/// A coded value's frequency table: its scale and a frequency per position
/// of its alphabet (0 for values none of its rows hold); uniform tables are
/// not stored.
struct Table {
    scale: u32,
    freqs: Vec<u32>,
    uniform: bool,
}

impl Table {
    /// The table for counts `present` (position, rows) of a value released
    /// in `rows` rows over an alphabet of `size`: the scale, between the
    /// fewest bits that give every present position a slot and
    /// `ceil(log2 rows)`, that minimizes the estimated section bits (rows
    /// coded at their quantized frequencies, plus the low bits of each
    /// frequency but the largest, which is implied, and about two bits for
    /// each width symbol); or the uniform table, when
    /// its rows' bits are fewer than that plus a bit for each absent
    /// value's width symbol.
    fn choose(present: &[(usize, u64)], size: usize, rows: u64) -> Table {
        let counts: Vec<u64> = present.iter().map(|&(_, n)| n).collect();
        let bits = |scale: u32, q: &[u32]| -> f64 {
            counts
                .iter()
                .zip(q)
                .map(|(&n, &f)| n as f64 * (f64::from(scale) - f64::from(f).log2()))
                .sum()
        };
        // Scale 0 for one value (the first of the alphabet when no row
        // holds one): no bits a row. Else the scale with the fewest bits.
        let (scale, q) = if present.len() <= 1 {
            (0, vec![1])
        } else {
            let lowest = ceil_log2(present.len() as u64);
            let highest = lowest.max(ceil_log2(rows).min(PREFERRED_SCALE));
            let table = |q: &[u32]| -> f64 { table_bits(q) };
            (lowest..=highest)
                .map(|s| (s, quantize(&counts, s as u8)))
                .min_by(|a, b| {
                    (bits(a.0, &a.1) + table(&a.1)).total_cmp(&(bits(b.0, &b.1) + table(&b.1)))
                })
                .expect("at least one scale")
        };
        // A stored table also costs a width symbol for every value of the
        // alphabet, present or not: about a bit each at the least.
        let stored = bits(scale, &q) + table_bits(&q) + size as f64;
        let uniform_scale = ceil_log2(size as u64);
        if (2..=1 << MAX_SCALE).contains(&size) {
            let uniform: Vec<u32> = (0..size as u64)
                .map(|p| {
                    uniform_start(p + 1, size as u64, uniform_scale)
                        - uniform_start(p, size as u64, uniform_scale)
                })
                .collect();
            let cost: f64 = present
                .iter()
                .map(|&(p, n)| n as f64 * (f64::from(uniform_scale) - f64::from(uniform[p]).log2()))
                .sum();
            if cost < stored {
                return Table {
                    scale: uniform_scale,
                    freqs: uniform,
                    uniform: true,
                };
            }
        }
        let mut freqs = vec![0u32; size];
        let first = [(0, 0)];
        let positions = if present.is_empty() {
            &first[..]
        } else {
            present
        };
        for (&(p, _), f) in positions.iter().zip(q) {
            if let Some(slot) = freqs.get_mut(p) {
                *slot = f;
            }
        }
        Table {
            scale,
            freqs,
            uniform: false,
        }
    }
}

/// A coded released value: its alphabet (value-table indices, ascending),
/// its table and each position's cumulative frequency.
struct Coded<'a> {
    /// Borrowed from the symbol's alphabet (a refined context shares its
    /// symbol's): ten million rows make 650,000 tables.
    alphabet: &'a [u32],
    table: Table,
    cum: Vec<u32>,
}

impl<'a> Coded<'a> {
    /// `counts`: the (value, rows) of the value's rows, values ascending,
    /// each in `alphabet`.
    fn new(alphabet: &'a [u32], counts: &[(u32, u64)]) -> Coded<'a> {
        let position = |x: u32| alphabet.binary_search(&x).expect("in the alphabet");
        let present: Vec<(usize, u64)> = counts.iter().map(|&(x, n)| (position(x), n)).collect();
        let rows = counts.iter().map(|&(_, n)| n).sum();
        let table = Table::choose(&present, alphabet.len(), rows);
        let cum = table
            .freqs
            .iter()
            .scan(0, |acc, &f| {
                let c = *acc;
                *acc += f;
                Some(c)
            })
            .collect();
        Coded {
            alphabet,
            table,
            cum,
        }
    }

    /// Value `x`'s position in the alphabet.
    fn position(&self, x: u32) -> usize {
        self.alphabet
            .binary_search(&x)
            .expect("a coded row's value is in its alphabet")
    }
}

// Long: builds the tables and codes the rows in the order decode reads them; split, that stored
// order would be spread over helpers
/// Appends the section's parents, rules, tables and rows; `false` (and a
/// partial section) when a released value's rows hold more than
/// `2^MAX_SCALE` distinct originals, which no table of this mode can give
/// a slot each. `keys` numbers each row's context from its released value
/// and its `parents`' values (none: the released value alone); the
/// contexts that pay for a table of their own get one
/// ([`contexts::CodedRows::refine`]).
pub(super) fn encode(
    qi: &QiOriginal<'_>,
    rel: &ReleasedColumn,
    values: &ValueTable,
    parents: &[Parent],
    keys: &ContextKeys<'_>,
    out: &mut Vec<u8>,
) -> bool {
    let mut counts = value_counts(rel, values);
    if counts.iter().any(|c| c.len() > 1 << MAX_SCALE) {
        return false;
    }
    let (rules, alphabets) = coded_alphabets(qi, rel, values, &counts);
    out.push(parents.len() as u8);
    for p in parents {
        put_varint(out, p.id());
    }
    out.extend_from_slice(&rules);
    let refined = match parents {
        [] => Vec::new(),
        _ => {
            let sizes: Vec<u32> = alphabets
                .iter()
                .map(|a| a.as_ref().map_or(0, |a| a.len() as u32))
                .collect();
            let (_, refined) =
                contexts::CodedRows::new(&rel.rows, &values.rows, values.texts.len(), &sizes, 1)
                    .refine(keys, true)
                    .expect("the caller checked the context space");
            put_varint(out, refined.len() as u64);
            let mut next = 0;
            for r in &refined {
                put_varint(out, r.context - next);
                next = r.context + 1;
            }
            // A refined context's rows leave its released value's table.
            let per_symbol = keys.per_symbol();
            for r in &refined {
                let base = &mut counts[(r.context / per_symbol) as usize];
                for &(x, n) in &r.counts {
                    let i = base.binary_search_by_key(&x, |&(y, _)| y).expect("counted");
                    base[i].1 -= n;
                }
            }
            for base in &mut counts {
                base.retain(|&(_, n)| n > 0);
            }
            refined
        }
    };
    let per_symbol = keys.per_symbol();
    let mut coded: Vec<Coded> = Vec::new();
    // Each symbol's table in `coded` (`u32::MAX` when it codes nothing).
    let mut table_of = vec![u32::MAX; alphabets.len()];
    for (g, alphabet) in alphabets.iter().enumerate() {
        if let Some(alphabet) = alphabet {
            table_of[g] = coded.len() as u32;
            coded.push(Coded::new(alphabet, &counts[g]));
        }
    }
    for r in &refined {
        let g = (r.context / per_symbol) as usize;
        let alphabet = alphabets[g]
            .as_deref()
            .expect("a refined context's symbol is coded");
        coded.push(Coded::new(alphabet, &r.counts));
    }
    let tables: Vec<&Table> = coded.iter().map(|c| &c.table).collect();
    let scales: Vec<u32> = tables
        .iter()
        .map(|t| if t.uniform { UNIFORM } else { t.scale })
        .collect();
    put_coded(out, SCALES, &scales);
    let stored: Vec<&[u32]> = tables
        .iter()
        .filter(|t| !t.uniform)
        .map(|t| &t.freqs[..])
        .collect();
    frequencies::put_frequencies(out, WIDTHS as u32, &stored);

    // rANS codes last to first; the `k`-th coded row (rows released
    // unchanged are not) takes state `k mod STATES`.
    let base_tables = table_of.iter().filter(|&&t| t != u32::MAX).count();
    let table_of_row = |r: usize, g: u32| -> usize {
        let own = match refined.is_empty() {
            true => None,
            false => {
                let context = keys.key(g, r);
                refined.binary_search_by_key(&context, |c| c.context).ok()
            }
        };
        own.map_or(table_of[g as usize] as usize, |i| base_tables + i)
    };
    let coded_rows: Vec<(u32, u32)> = rel
        .rows
        .iter()
        .zip(&values.rows)
        .enumerate()
        .filter(|&(_, (&g, _))| table_of[g as usize] != u32::MAX)
        .map(|(r, (&g, &x))| (table_of_row(r, g) as u32, x))
        .collect();
    let mut states = [LOW; STATES];
    let mut words: Vec<u16> = Vec::new();
    for (k, &(t, x)) in coded_rows.iter().enumerate().rev() {
        let coded = &coded[t as usize];
        let p = coded.position(x);
        let (f, c, scale) = (coded.table.freqs[p], coded.cum[p], coded.table.scale);
        encode_step(&mut states[k % STATES], f, c, scale, &mut words);
    }
    // No coded row: no stream (the section ends with the tables).
    if !coded_rows.is_empty() {
        put_stream(out, &states, &words);
    }
    true
}

/// One slot of a released value's decoding table: the column code of the
/// value it stands for, and what the state step needs.
#[derive(Clone, Copy)]
struct Slot {
    code: u32,
    /// The value's frequency less one (a frequency is 1 to `2^16`).
    freq_less_one: u16,
    /// The slot's offset from the value's first slot.
    offset: u16,
}

/// The code of a row not decoded yet.
const MISS: u32 = u32::MAX;

/// Where a released value's slots start in the shared table, and its scale.
#[derive(Clone, Copy)]
struct Head {
    base: u32,
    scale: u32,
    /// `2^scale - 1`.
    mask: u32,
    /// A uniform table's alphabet size (its slots hold one entry per
    /// value, the step computes the rest); 0 for a stored table.
    uniform: u32,
}

/// The decoding tables, the stream's words (with one zero word after
/// them) and the states.
struct Rows<'a> {
    heads: &'a [Head],
    /// Each class's symbol, when the rows are read by class.
    class_symbols: Option<&'a [u32]>,
    slots: &'a [Slot],
    words: Vec<u16>,
    /// Words read so far; beyond the stream's when it ran out.
    read: usize,
    states: [u32; STATES],
}

impl Rows<'_> {
    /// Decodes the coded rows into `codes`: all rows in order when
    /// `coded_rows` is `None`, else the rows it lists. `ids` holds each
    /// row's symbol, or its class when the rows are read by class.
    fn decode(&mut self, codes: &mut [u32], ids: &[u32], coded_rows: Option<&[u32]>) {
        let heads = self.heads;
        match (self.class_symbols, heads) {
            // One released value for every row (a QI generalized to its
            // top): its head once, not a lookup a row.
            (_, &[head]) => self.decode_by(codes, ids, coded_rows, |_| head),
            // By class: the class's symbol, then its head (two lookups in
            // small tables; a head per class would not stay in the cache).
            (Some(of), _) => {
                self.decode_by(codes, ids, coded_rows, |c| heads[of[c as usize] as usize])
            }
            (None, _) => self.decode_by(codes, ids, coded_rows, |g| heads[g as usize]),
        }
    }

    /// [`Rows::decode`] with each row's head found by `head_of`, in one
    /// monomorphized loop per case.
    #[inline(always)]
    fn decode_by(
        &mut self,
        codes: &mut [u32],
        ids: &[u32],
        coded_rows: Option<&[u32]>,
        head_of: impl Fn(u32) -> Head + Copy,
    ) {
        if self.heads.iter().any(|h| h.uniform > 0) {
            // Uniform tables (wide intervals over distinct numbers): the
            // step checks each row's kind.
            let n = coded_rows.map_or(codes.len(), <[u32]>::len);
            let row_of = |j| coded_rows.map_or(j, |rows| rows[j] as usize);
            return self.run::<true>(codes, ids, n, row_of, head_of);
        }
        match coded_rows {
            None => self.run::<false>(codes, ids, codes.len(), |j| j, head_of),
            Some(rows) => self.run::<false>(codes, ids, rows.len(), |j| rows[j] as usize, head_of),
        }
    }

    /// Decodes the `n` coded rows `row_of(0..n)` into `codes` (all rows
    /// in order when `n` is their number), four at a time on the four
    /// states, the rows of symbol `g` by `head_of(g)`'s table. A state step
    /// is a lookup, a multiply, and a 16-bit read; a read past the end takes
    /// the zero word and shows as `read` beyond the stream. A value whose
    /// rows hold one original (scale 0, one slot of frequency 1) leaves the
    /// state as it is.
    #[inline(always)]
    fn run<const UNIFORM_TABLES: bool>(
        &mut self,
        codes: &mut [u32],
        symbols: &[u32],
        n: usize,
        row_of: impl Fn(usize) -> usize,
        head_of: impl Fn(u32) -> Head,
    ) {
        let (slots, words) = (self.slots, &self.words[..]);
        let last = words.len() - 1;
        let mut read = self.read;
        macro_rules! step {
            ($x:expr, $g:expr) => {{
                let head = head_of($g);
                let (y, slot) = if UNIFORM_TABLES && head.uniform > 0 {
                    // Value `p` holds slots `ceil(p 2^s / size)` on.
                    let t = $x & head.mask;
                    let size = u64::from(head.uniform);
                    let p = (u64::from(t) * size) >> head.scale;
                    let start = uniform_start(p, size, head.scale);
                    let f = uniform_start(p + 1, size, head.scale) - start;
                    (
                        f * ($x >> head.scale) + t - start,
                        slots[head.base as usize + p as usize],
                    )
                } else {
                    let slot = slots[head.base as usize + ($x & head.mask) as usize];
                    let y = (u32::from(slot.freq_less_one) + 1) * ($x >> head.scale)
                        + u32::from(slot.offset);
                    (y, slot)
                };
                let word = u32::from(words[read.min(last)]);
                let refill = y < LOW;
                $x = if refill { y << 16 | word } else { y };
                read += usize::from(refill);
                slot.code
            }};
        }
        let [mut x0, mut x1, mut x2, mut x3] = self.states;
        let quads = n - n % STATES;
        if n == codes.len() {
            // Every row coded: the rows in order, without an index each.
            let rows = codes[..quads]
                .chunks_exact_mut(STATES)
                .zip(symbols.chunks_exact(STATES));
            for (out, g) in rows {
                out[0] = step!(x0, g[0]);
                out[1] = step!(x1, g[1]);
                out[2] = step!(x2, g[2]);
                out[3] = step!(x3, g[3]);
            }
        } else {
            for j in (0..quads).step_by(STATES) {
                let r = [row_of(j), row_of(j + 1), row_of(j + 2), row_of(j + 3)];
                codes[r[0]] = step!(x0, symbols[r[0]]);
                codes[r[1]] = step!(x1, symbols[r[1]]);
                codes[r[2]] = step!(x2, symbols[r[2]]);
                codes[r[3]] = step!(x3, symbols[r[3]]);
            }
        }
        let mut states = [x0, x1, x2, x3];
        for (j, x) in (quads..n).zip(&mut states) {
            let r = row_of(j);
            codes[r] = step!(*x, symbols[r]);
        }
        self.states = states;
        self.read = read;
    }
}

fn invalid(detail: String) -> CodecError {
    CodecError::Invalid {
        what: "per-value-rans section",
        detail,
    }
}

/// Reads the refined contexts of a section with parents: their count, then
/// the first context's number and each next one's gap less one. Each must
/// be below the context space (itself within [`context_limit`]) and
/// belong to a symbol that codes values.
fn read_refined(
    s: &mut ByteReader<'_>,
    keys: &ContextKeys<'_>,
    alphabets: &[Option<Vec<u32>>],
    rows: usize,
) -> Result<Vec<u64>, CodecError> {
    let space = keys
        .space
        .filter(|&space| space <= context_limit(rows))
        .ok_or_else(|| {
            invalid(format!(
                "{} released values times the parents' values exceed the {} contexts of {rows} rows",
                alphabets.len(),
                context_limit(rows)
            ))
        })?;
    let count = s.count("per-value-rans refined contexts", 1)?;
    let mut contexts = Vec::with_capacity(count);
    let mut next = 0u64;
    for _ in 0..count {
        let context = next
            .checked_add(s.varint("per-value-rans refined context")?)
            .filter(|&c| c < space)
            .ok_or_else(|| invalid(format!("a refined context beyond the {space} contexts")))?;
        let g = (context / keys.per_symbol()) as usize;
        if alphabets[g].as_ref().is_none_or(Vec::is_empty) {
            return Err(invalid(format!(
                "refined context {context}: released value {g} codes no value"
            )));
        }
        contexts.push(context);
        next = context + 1;
    }
    Ok(contexts)
}

// Long: mirrors encode step by step in the stored order (refined contexts, tables, slots, rANS
// states); split, that order would be spread over helpers
/// Decodes a section (its parents read already: each one's value per row
/// and radix, in the section's order).
pub(super) fn decode(
    qi: &QiSchema<'_>,
    rel: &ReleasedRows<'_>,
    texts: Vec<String>,
    leaves: bool,
    parents: &[(&[u32], u64)],
    s: &mut ByteReader<'_>,
) -> Result<Column, CodecError> {
    let m = rel.symbols.len();
    let alphabets = symbol_alphabets(
        "per-value-rans rules",
        s,
        rel.symbols,
        qi.hierarchy,
        leaves,
        &texts,
    )?;
    let keys = ContextKeys::new(m, parents.to_vec());
    let per_symbol = keys.per_symbol();
    let refined = match parents {
        [] => Vec::new(),
        _ => read_refined(s, &keys, &alphabets, rel.rows.len())?,
    };
    // The tables in stored order: each coded symbol's, then each refined
    // context's (over its symbol's alphabet).
    let entries: Vec<(usize, Option<&Vec<u32>>, bool)> = alphabets
        .iter()
        .enumerate()
        .map(|(g, a)| (g, a.as_ref(), false))
        .chain(refined.iter().map(|&c| {
            let g = (c / per_symbol) as usize;
            (g, alphabets[g].as_ref(), true)
        }))
        .collect();
    let mut b = ColumnBuilder::new(qi.name, &texts, rel.rows.len(), m);
    let coded = entries.iter().filter(|e| e.1.is_some()).count();
    let scales = s.coded("per-value-rans scales", SCALES, coded)?;
    let (sizes, stored_scales): (Vec<usize>, Vec<u32>) = entries
        .iter()
        .filter_map(|e| e.1)
        .zip(&scales)
        .filter(|&(_, &scale)| scale != UNIFORM)
        .map(|(a, &scale)| (a.len(), scale))
        .unzip();
    let freqs = frequencies::read_frequencies(s, WIDTHS as u32, &sizes, &stored_scales)?;
    // The stored tables' slots: at most two per row (a scale is at most
    // `ceil(log2 rows)` of its table's rows) and one per table. A uniform
    // table takes one slot per value of its alphabet, which is in memory
    // already.
    let limit = 2 * rel.rows.len() as u64 + m as u64 + refined.len() as u64;
    let mut slots: Vec<Slot> = Vec::new();
    let mut heads = Vec::with_capacity(entries.len());
    let (mut scales, mut freqs) = (scales.into_iter(), freqs.into_iter());
    let mut empty = Vec::new();
    // The stored tables' slots so far.
    let mut stored = 0u64;
    // Each symbol's code when it is released unchanged, else `MISS`.
    let mut fixed = Vec::with_capacity(m);
    for &(g, alphabet, context) in &entries {
        let base = slots.len() as u32;
        let Some(alphabet) = alphabet else {
            fixed.push(b.unchanged_symbol_code(rel.symbols, g));
            heads.push(Head {
                base,
                scale: 0,
                mask: 0,
                uniform: 0,
            });
            continue;
        };
        if !context {
            fixed.push(MISS);
        }
        let scale = scales.next().expect("one scale per coded value");
        if scale == UNIFORM {
            let size = alphabet.len();
            if !(2..=1 << MAX_SCALE).contains(&size) {
                return Err(invalid(format!(
                    "released value {g}: a uniform table over {size} values (expected 2 to {})",
                    1 << MAX_SCALE
                )));
            }
            // One slot per value, holding its code: bounded by the
            // alphabet, which is in memory already.
            slots.extend(alphabet.iter().map(|&x| Slot {
                code: b.codes_of_values[x as usize],
                freq_less_one: 0,
                offset: 0,
            }));
            let scale = ceil_log2(size as u64);
            heads.push(Head {
                base,
                scale,
                mask: (1 << scale) - 1,
                uniform: size as u32,
            });
            continue;
        }
        let total = 1u64 << scale;
        if stored + total > limit {
            return Err(invalid(format!(
                "released value {g}: {total} slots exceed the {limit} of {} rows and {m} values",
                rel.rows.len()
            )));
        }
        let mut sum = 0u64;
        for &x in alphabet {
            let f = u64::from(freqs.next().expect("one frequency per position"));
            if f == 0 {
                continue;
            }
            if sum + f > total {
                return Err(invalid(format!(
                    "released value {g}: frequencies above its scale's {total}"
                )));
            }
            let code = b.codes_of_values[x as usize];
            slots.extend((0..f).map(|o| Slot {
                code,
                freq_less_one: (f - 1) as u16,
                offset: o as u16,
            }));
            sum += f;
        }
        if alphabet.is_empty() {
            // No value to stand for: no row may be released as it.
            empty.push(g as u32);
            slots.push(Slot {
                code: u32::MAX,
                freq_less_one: 0,
                offset: 0,
            });
        } else if sum != total {
            return Err(invalid(format!(
                "released value {g}: frequencies sum to {sum}, expected {total}"
            )));
        }
        heads.push(Head {
            base,
            scale,
            mask: (1 << scale) - 1,
            uniform: 0,
        });
        stored += total;
    }
    let symbol_of = |id: u32| rel.class_symbols.map_or(id, |of| of[id as usize]);
    if !empty.is_empty()
        && let Some(g) = rel
            .rows
            .iter()
            .map(|&id| symbol_of(id))
            .find(|g| empty.contains(g))
    {
        return Err(invalid(format!("released value {g} covers no value")));
    }
    // Rows given by class: each class's unchanged code.
    let fixed: Vec<u32> = match rel.class_symbols {
        None => fixed,
        Some(of) => of.iter().map(|&g| fixed[g as usize]).collect(),
    };
    // With parents, each row's table: its context's when refined, else its
    // symbol's.
    let tables_of_rows;
    let (ids, class_symbols) = match parents {
        [] => (rel.rows, rel.class_symbols),
        _ => {
            let mut table_of: Vec<u32> = (0..keys.space.expect("checked by read_refined"))
                .map(|c| (c / per_symbol) as u32)
                .collect();
            for (j, &c) in refined.iter().enumerate() {
                table_of[c as usize] = (m + j) as u32;
            }
            tables_of_rows = rel
                .rows
                .iter()
                .enumerate()
                .map(|(r, &id)| table_of[keys.key(symbol_of(id), r) as usize])
                .collect::<Vec<u32>>();
            (&tables_of_rows[..], None)
        }
    };
    // All rows in order when no symbol is unchanged; else the unchanged
    // rows first, a lookup each (a pass the compiler vectorizes), then the
    // rows whose code is still `MISS`.
    let all_coded = fixed.iter().all(|&c| c == MISS);
    let mut codes: Vec<u32> = if all_coded {
        vec![0; rel.rows.len()]
    } else {
        rel.rows.iter().map(|&g| fixed[g as usize]).collect()
    };
    let any_coded = match all_coded {
        true => !codes.is_empty(),
        false => codes.contains(&MISS),
    };
    if !any_coded {
        // No coded row: the section ends with its tables.
        s.finish("per-value-rans section")?;
        b.column.codes = codes;
        return Ok(b.column);
    }
    let (states, words) = read_stream::<STATES>(s, "per-value-rans stream")?;
    let mut rows = Rows {
        heads: &heads,
        class_symbols,
        slots: &slots,
        words: words
            .chunks_exact(2)
            .map(|w| u16::from_le_bytes([w[0], w[1]]))
            .chain([0])
            .collect(),
        read: 0,
        states,
    };
    if all_coded {
        rows.decode(&mut codes, ids, None);
    } else {
        let mut coded_rows = vec![0u32; rel.rows.len()];
        let mut n = 0;
        for (i, &c) in codes.iter().enumerate() {
            coded_rows[n] = i as u32;
            n += usize::from(c == MISS);
        }
        coded_rows.truncate(n);
        rows.decode(&mut codes, ids, Some(&coded_rows));
    }
    check_end(
        &rows.states,
        2 * rows.read,
        words.len(),
        rel.rows.len(),
        "per-value-rans stream",
    )?;
    b.column.codes = codes;
    Ok(b.column)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct values under one wide released value (an interval over a
    /// column of distinct numbers): the uniform table, which stores no
    /// width per value, beats a stored one; skewed counts keep a stored
    /// table.
    #[test]
    fn wide_alphabets_of_distinct_values_get_a_uniform_table() {
        let present: Vec<(usize, u64)> = (0..2000).map(|p| (p * 3, 1)).collect();
        let table = Table::choose(&present, 6000, 2000);
        assert!(table.uniform);
        assert_eq!(table.scale, 13);
        assert_eq!(table.freqs.iter().sum::<u32>(), 1 << 13);
        assert!(table.freqs.iter().all(|&f| f == 1 || f == 2));

        let skewed: Vec<(usize, u64)> = (0..8).map(|p| (p, 1 << (10 - p))).collect();
        let table = Table::choose(&skewed, 8, skewed.iter().map(|&(_, n)| n).sum());
        assert!(!table.uniform);
    }

    /// The uniform layout: value `p` starts at `ceil(p 2^s / size)`, and a
    /// slot's value is `slot * size >> s`, for every slot.
    #[test]
    fn uniform_slots_map_back_to_their_value() {
        for size in [2u64, 3, 5, 7, 100, 1000, 65535, 65536] {
            let scale = ceil_log2(size);
            for slot in (0..1u64 << scale).step_by(((1 << scale) / 512).max(1)) {
                let p = (slot * size) >> scale;
                assert!(p < size);
                let (start, end) = (
                    uniform_start(p, size, scale),
                    uniform_start(p + 1, size, scale),
                );
                assert!(
                    u64::from(start) <= slot && slot < u64::from(end),
                    "size {size} slot {slot}"
                );
            }
        }
    }
}
