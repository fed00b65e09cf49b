//! A binary adaptive range coder (`spec/CODING.md`, 6.4): LZMA's range
//! coder (32-bit range, carry through a cached byte) driven by counting
//! models, for the `context` difference mode, where Huffman's floor of one
//! bit per symbol would cost more than the information (sex or salary-class
//! given the rest of the row carry a fraction of a bit).

use rustc_hash::FxHashMap;

use super::CodecError;

/// Probabilities are `p / 2^PROB_BITS`.
pub const PROB_BITS: u32 = 12;
/// A model's counts are halved when their sum reaches this, so a model
/// follows drifting statistics while staying precise on stationary ones.
pub const COUNT_LIMIT: u32 = 1024;
const TOP: u32 = 1 << 24;

/// `ceil(2^34 / (2 n + 2))` for every count sum `n` a model can hold: the
/// dividends of `p0` are below `2^23` and the divisors at most `2^11`, so
/// `a * r >> 34` is exactly `a / d` (Granlund and Montgomery, "Division by
/// invariant integers using multiplication", 1994, theorem 4.2), and a
/// multiply costs a fraction of a division.
const RECIPROCALS: [u64; COUNT_LIMIT as usize] = {
    let mut r = [0u64; COUNT_LIMIT as usize];
    let mut n = 0;
    while n < COUNT_LIMIT as usize {
        let d = 2 * n as u64 + 2;
        r[n] = (1u64 << RECIPROCAL_SHIFT).div_ceil(d);
        n += 1;
    }
    r
};
const RECIPROCAL_SHIFT: u32 = 34;

/// An adaptive bit model: the counts of zeros and ones seen, and the
/// Krichevsky-Trofimov estimate `(n0 + 1/2) / (n0 + n1 + 1)` of a zero,
/// kept up to date on each update so that coding a bit does not wait for
/// its computation.
#[derive(Debug, Clone, Copy)]
pub struct BitModel {
    n0: u16,
    n1: u16,
    p0: u16,
}

impl Default for BitModel {
    fn default() -> Self {
        BitModel {
            n0: 0,
            n1: 0,
            p0: Self::estimate(0, 0) as u16,
        }
    }
}

impl BitModel {
    /// `p0` of the counts: `((2 n0 + 1) << 12) / (2 n + 2)`, by a multiply
    /// (see `RECIPROCALS`). It lies in `2 ..= 2^PROB_BITS - 1` for every
    /// count sum below `COUNT_LIMIT` (`4096 / 2048` at the least, and below
    /// `4096` since `2 n0 + 1 < 2 n + 2`), so no clamp is needed
    /// (`reciprocals_divide_exactly` checks every pair).
    #[inline(always)]
    fn estimate(n0: u32, n1: u32) -> u32 {
        let a = u64::from(2 * n0 + 1) << PROB_BITS;
        ((a * RECIPROCALS[(n0 + n1) as usize]) >> RECIPROCAL_SHIFT) as u32
    }

    /// The probability of a zero, in `1 ..= 2^PROB_BITS - 1`.
    #[inline]
    pub fn p0(&self) -> u32 {
        u32::from(self.p0)
    }

    #[inline(always)]
    pub fn update(&mut self, bit: bool) {
        let (mut n0, mut n1) = (u32::from(self.n0), u32::from(self.n1));
        // No branch on the bit: the data decides it.
        n1 += u32::from(bit);
        n0 += u32::from(!bit);
        if n0 + n1 >= COUNT_LIMIT {
            n0 = n0.div_ceil(2);
            n1 = n1.div_ceil(2);
        }
        // Counts stay below COUNT_LIMIT (1024): they fit in 16 bits.
        self.n0 = n0 as u16;
        self.n1 = n1 as u16;
        self.p0 = Self::estimate(n0, n1) as u16;
    }
}

pub struct RangeEncoder {
    low: u64,
    range: u32,
    cache: u8,
    cache_size: u64,
    out: Vec<u8>,
}

impl Default for RangeEncoder {
    fn default() -> Self {
        RangeEncoder {
            low: 0,
            range: u32::MAX,
            cache: 0,
            cache_size: 1,
            out: Vec::new(),
        }
    }
}

impl RangeEncoder {
    #[inline(always)]
    pub fn encode(&mut self, model: &mut BitModel, bit: bool) {
        let bound = (self.range >> PROB_BITS) * model.p0();
        // Without a branch on the bit (which the data decides, so a
        // branch would often be mispredicted).
        let one = 0u32.wrapping_sub(u32::from(bit));
        self.low += u64::from(bound & one);
        self.range = (bound & !one) | (self.range.wrapping_sub(bound) & one);
        model.update(bit);
        while self.range < TOP {
            self.range <<= 8;
            self.shift_low();
        }
    }

    #[inline(always)]
    fn shift_low(&mut self) {
        if (self.low as u32) < 0xFF00_0000 || (self.low >> 32) != 0 {
            self.flush_cache();
        }
        self.cache_size += 1;
        self.low = (self.low & 0x00FF_FFFF) << 8;
    }

    /// Writes the cached byte (plus the carry) and the pending 0xFF bytes.
    fn flush_cache(&mut self) {
        let carry = (self.low >> 32) as u8;
        let mut temp = self.cache;
        loop {
            self.out.push(temp.wrapping_add(carry));
            temp = 0xFF;
            self.cache_size -= 1;
            if self.cache_size == 0 {
                break;
            }
        }
        self.cache = (self.low >> 24) as u8;
    }

    pub fn finish(mut self) -> Vec<u8> {
        for _ in 0..5 {
            self.shift_low();
        }
        self.out
    }
}

pub struct RangeDecoder<'a> {
    bytes: &'a [u8],
    next: usize,
    code: u32,
    range: u32,
}

impl<'a> RangeDecoder<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        let mut d = RangeDecoder {
            bytes,
            next: 0,
            code: 0,
            range: u32::MAX,
        };
        for _ in 0..5 {
            d.code = (d.code << 8) | u32::from(d.byte());
        }
        d
    }

    /// The next byte; zero past the end (checked by [`RangeDecoder::finish`]).
    #[inline]
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        b
    }

    #[inline]
    pub fn decode(&mut self, model: &mut BitModel) -> bool {
        let bound = (self.range >> PROB_BITS) * model.p0();
        // Without a branch on the bit, as the encoder.
        let bit = self.code >= bound;
        let one = 0u32.wrapping_sub(u32::from(bit));
        self.code -= bound & one;
        self.range = (bound & !one) | (self.range.wrapping_sub(bound) & one);
        model.update(bit);
        while self.range < TOP {
            self.range <<= 8;
            self.code = (self.code << 8) | u32::from(self.byte());
        }
        bit
    }

    /// Whether decoding has read well past the end (a corrupt stream: stop
    /// before decoding more symbols than the input can hold).
    pub fn overrun(&self) -> bool {
        self.next > self.bytes.len() + 8
    }

    /// The stream must end exactly where the decoder stopped reading.
    pub fn finish(&self, what: &'static str) -> Result<(), CodecError> {
        if self.next > self.bytes.len() {
            return Err(CodecError::Truncated {
                what,
                offset: self.bytes.len() as u64,
                needed: self.next as u64,
                available: self.bytes.len() as u64,
            });
        }
        if self.next < self.bytes.len() {
            return Err(CodecError::TrailingBytes {
                what,
                count: (self.bytes.len() - self.next) as u64,
            });
        }
        Ok(())
    }
}

/// Contexts are numbered this densely (an index array over the whole key
/// space) when the space has at most this many keys; beyond, a hash map.
const DENSE_CONTEXTS: u64 = 1 << 20;

/// Bit models addressed by a context key and a node of the binary tree:
/// each context owns one contiguous block of `2^width` models (node ids
/// `1 .. 2^width`), allocated when the context is first seen, so coding a
/// bit indexes an array instead of hashing (`(context, node)` models start
/// at zero counts either way, as the spec says).
pub struct Models {
    index: ContextIndex,
    models: Vec<BitModel>,
    /// Models of the contexts whose alphabets are wider than
    /// [`DENSE_WIDTH`] bits, by (context, node): a high-cardinality numeric
    /// QI (fnlwgt) has covers of tens of thousands of values, whose full
    /// trees per context would take gigabytes while few nodes are used.
    wide: FxHashMap<(u64, u32), BitModel>,
}

/// Alphabets of at most this many bits get a dense block per context.
const DENSE_WIDTH: u32 = 12;

/// The tree-node models of one context.
pub trait NodeModels {
    fn node(&mut self, node: usize) -> &mut BitModel;
}

impl NodeModels for [BitModel] {
    #[inline]
    fn node(&mut self, node: usize) -> &mut BitModel {
        &mut self[node]
    }
}

/// One context's models: a dense block, or nodes of the shared map.
pub enum Block<'a> {
    Dense(&'a mut [BitModel]),
    Wide {
        map: &'a mut FxHashMap<(u64, u32), BitModel>,
        key: u64,
    },
}

impl NodeModels for Block<'_> {
    #[inline]
    fn node(&mut self, node: usize) -> &mut BitModel {
        match self {
            Block::Dense(b) => &mut b[node],
            Block::Wide { map, key } => map.entry((*key, node as u32)).or_default(),
        }
    }
}

enum ContextIndex {
    /// `base + 1` of each key's block, 0 when not seen yet.
    Dense(Vec<u32>),
    Sparse(FxHashMap<u64, u32>),
}

impl Models {
    /// Models for context keys below `space`.
    pub fn new(space: u64) -> Models {
        let index = if space <= DENSE_CONTEXTS {
            ContextIndex::Dense(vec![0; space as usize])
        } else {
            ContextIndex::Sparse(FxHashMap::default())
        };
        Models {
            index,
            models: Vec::new(),
            wide: FxHashMap::default(),
        }
    }

    /// The block of context `key` (below the `space` given to `new`), whose
    /// symbols have `width` bits.
    #[inline]
    pub fn block(&mut self, key: u64, width: u32) -> Block<'_> {
        if width > DENSE_WIDTH {
            return Block::Wide {
                map: &mut self.wide,
                key,
            };
        }
        let next = self.models.len() as u32 + 1;
        let slot = match &mut self.index {
            ContextIndex::Dense(v) => &mut v[key as usize],
            ContextIndex::Sparse(m) => m.entry(key).or_insert(0),
        };
        if *slot == 0 {
            *slot = next;
            self.models
                .resize(self.models.len() + (1usize << width), BitModel::default());
        }
        let base = *slot as usize - 1;
        Block::Dense(&mut self.models[base..base + (1usize << width)])
    }
}

/// The number of bits of a position in an alphabet of `size`.
#[inline]
pub fn width(size: u32) -> u32 {
    32 - (size.saturating_sub(1)).leading_zeros()
}

/// Whether bit `b` (from the top) after `prefix` can be one in an alphabet
/// of `size`: some completion stays below `size`.
#[inline]
pub fn one_possible(prefix: u32, b: u32, size: u32) -> bool {
    let smallest_with_one = (u64::from(prefix) << 1 | 1) << b;
    smallest_with_one < u64::from(size)
}

/// Codes `symbol < size` as its bits from the most significant, each under
/// its tree node's model in `block` (of at least `2^width(size)` models); a
/// bit that cannot be one is not coded.
#[inline(always)]
pub fn encode_symbol<B: NodeModels + ?Sized>(
    enc: &mut RangeEncoder,
    block: &mut B,
    symbol: u32,
    size: u32,
) {
    // `one_possible` without the arithmetic: while the bits so far are
    // those of `size - 1` ("tight"), a one is possible only where `size -
    // 1` has one; once below it, always (the same test, as `symbol < size`).
    let last = size.wrapping_sub(1);
    let (mut node, mut tight) = (1usize, true);
    for b in (0..width(size)).rev() {
        let bit = (symbol >> b) & 1;
        let top = (last >> b) & 1;
        if !tight || top == 1 {
            enc.encode(block.node(node), bit == 1);
        }
        tight &= bit == top;
        node = 2 * node + bit as usize;
    }
}

/// Decodes what [`encode_symbol`] coded; always below `size`.
#[inline]
pub fn decode_symbol<B: NodeModels + ?Sized>(
    dec: &mut RangeDecoder<'_>,
    block: &mut B,
    size: u32,
) -> u32 {
    // As `encode_symbol`: a bit is decoded unless the bits so far are
    // those of `size - 1` and its bit here is zero.
    let last = size.wrapping_sub(1);
    let w = width(size);
    let (mut node, mut tight) = (1usize, true);
    for b in (0..w).rev() {
        let top = (last >> b) & 1 == 1;
        let bit = (!tight || top) && dec.decode(block.node(node));
        tight &= bit == top;
        node = 2 * node + usize::from(bit);
    }
    // After `w` steps the node is `2^w + symbol`.
    (node - (1usize << w)) as u32
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn symbols_round_trip(symbols in prop::collection::vec((0u32..1000, 1u32..1000, 0u64..4), 0..400)) {
            let symbols: Vec<(u32, u32, u64)> = symbols.into_iter().map(|(s, n, c)| (s % n, n, c)).collect();
            let mut enc = RangeEncoder::default();
            let mut models = Models::new(4 * 1000);
            for &(s, n, c) in &symbols {
                encode_symbol(&mut enc, &mut models.block(c * 1000 + u64::from(n), width(n)), s, n);
            }
            let bytes = enc.finish();
            // The dense index and the hash map give the same stream.
            for space in [4 * 1000, u64::MAX] {
                let mut dec = RangeDecoder::new(&bytes);
                let mut models = Models::new(space);
                for &(s, n, c) in &symbols {
                    prop_assert_eq!(decode_symbol(&mut dec, &mut models.block(c * 1000 + u64::from(n), width(n)), n), s);
                }
                prop_assert!(dec.finish("test").is_ok());
            }
        }
    }

    #[test]
    fn reciprocals_divide_exactly() {
        for n in 0..COUNT_LIMIT {
            for n0 in 0..=n {
                let m = BitModel {
                    n0: n0 as u16,
                    n1: (n - n0) as u16,
                    p0: BitModel::estimate(n0, n - n0) as u16,
                };
                let exact = ((u64::from(2 * n0 + 1) << PROB_BITS) / u64::from(2 * n + 2)) as u32;
                assert_eq!(m.p0(), exact, "n0 {n0} n {n}");
                assert!((1..1 << PROB_BITS).contains(&exact), "n0 {n0} n {n}");
            }
        }
    }

    #[test]
    fn skewed_bits_cost_a_fraction_of_a_bit() {
        let mut enc = RangeEncoder::default();
        let mut m = BitModel::default();
        for i in 0..10_000 {
            enc.encode(&mut m, i % 20 == 0);
        }
        // Entropy of p = 0.05: 0.286 bits, 358 bytes for 10,000 bits.
        let len = enc.finish().len();
        assert!(len < 420, "{len}");
    }
}
