//! Canonical, length-limited Huffman codes (`spec/CODING.md`, "Huffman codes").
//!
//! A code is fully described by one length per symbol of a dense alphabet
//! `0..n` (0 = the symbol has no code). Codes are assigned canonically, as
//! DEFLATE does: by increasing length, ties by increasing symbol, each code
//! one more than the previous one shifted to the new length; bits are written
//! most significant first (bitstream-io's `BigEndian`).
//!
//! Two special cases keep the format total and cheap:
//! - the **single-symbol code** (exactly one symbol has a non-zero length,
//!   which must be 1): that symbol costs no bits at all, so a column with one
//!   distinct value costs nothing per row;
//! - the **empty code** (every length zero): nothing can be coded; used for an
//!   empty sequence only.
//!
//! Any other code must be complete: the Kraft sum of `2^-length` is exactly 1.
//! Huffman's construction always yields a complete code, so a stored table
//! that is not complete is corrupt, and [`HuffmanCode::from_lengths`] refuses
//! it.

mod decode;

use std::io;

use bitstream_io::{BigEndian, BitRead, BitReader, BitWrite, BitWriter};

pub use decode::{
    BitWindow, DECODE_TABLE_BITS, Decoder, LOOKUPS_PER_TOP_UP, MISS, TableSet, decode_bitwise,
};

/// The longest code, in bits.
///
/// 32, because then every alphabet a `u32` dictionary code can address (up to
/// 2^32 symbols) has a length-limited code, so [`HuffmanCode::from_frequencies`]
/// never fails, while a code still fits the 64-bit window of the table-driven
/// [`Decoder`] after one refill, and a length fits the 6-bit field of the
/// stored code table. The limit only binds on very skewed frequencies over
/// millions of rows (a Fibonacci-like distribution needs ~5.7 million rows to
/// reach depth 33); there the lengths are flattened as JPEG's `Adjust_BITS`
/// does, at a negligible cost.
pub const MAX_CODE_LENGTH: u8 = 32;

/// Width in bits of the field giving the width of each stored code length.
const LENGTH_WIDTH_BITS: u32 = 3;

/// Errors of the Huffman layer: invalid code tables and truncated streams.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HuffmanError {
    #[error("code length {length} of symbol {symbol} exceeds the maximum {MAX_CODE_LENGTH}")]
    /// A symbol's code length exceeds [`MAX_CODE_LENGTH`].
    LengthTooLong {
        /// The symbol.
        symbol: usize,
        /// Its code length in bits.
        length: u8,
    },
    #[error(
        "the code lengths are not a complete prefix code: their Kraft sum is {sum_scaled}/2^32, expected exactly 2^32"
    )]
    /// The lengths do not form a complete prefix code (Kraft sum not 1).
    NotComplete {
        /// The Kraft sum times 2^32.
        sum_scaled: u128,
    },
    #[error("single-symbol code: symbol {symbol} has length {length}, expected 1")]
    /// A one-symbol code whose length is not 1.
    SingleSymbolLength {
        /// The only symbol.
        symbol: usize,
        /// Its code length in bits.
        length: u8,
    },
    #[error("code table: code lengths are {width} bits wide, expected 1 to 6")]
    /// A stored code table's length width outside 1 to 6 bits.
    LengthWidth {
        /// The width read.
        width: u32,
    },
    #[error("truncated bit stream: {needed} bits needed, {available} available")]
    /// The bit stream ends before the data it should hold.
    Truncated {
        /// Bits the reader needed.
        needed: u64,
        /// Bits left in the stream.
        available: u64,
    },
    #[error("the code is empty (no symbol has a code) but {count} symbols were to be decoded")]
    /// Symbols to decode with a code that has none.
    EmptyCode {
        /// How many symbols were to be decoded.
        count: usize,
    },
}

impl HuffmanError {
    /// Maps a bitstream-io read error (only end of input is possible on a
    /// slice) to [`HuffmanError::Truncated`].
    pub(crate) fn from_read(_: io::Error, needed: u64, available: u64) -> Self {
        HuffmanError::Truncated { needed, available }
    }
}

/// A canonical prefix code over the alphabet `0..lengths.len()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HuffmanCode {
    lengths: Vec<u8>,
    /// Each symbol's code, right-aligned (meaningless where the length is 0).
    codes: Vec<u32>,
    /// The symbol of a single-symbol code.
    single: Option<u32>,
}

impl HuffmanCode {
    /// The optimal code with lengths at most [`MAX_CODE_LENGTH`] for these
    /// frequencies; zero-frequency symbols get no code.
    pub fn from_frequencies(freqs: &[u64]) -> HuffmanCode {
        let used: Vec<u32> = (0..freqs.len() as u32)
            .filter(|&s| freqs[s as usize] > 0)
            .collect();
        let mut lengths = vec![0u8; freqs.len()];
        match used.len() {
            0 => {}
            1 => lengths[used[0] as usize] = 1,
            _ => {
                let mut bl_count = huffman_depth_counts(freqs, &used);
                limit_lengths(&mut bl_count, MAX_CODE_LENGTH as usize);
                // The most frequent symbols take the shortest lengths; ties
                // by symbol, so the result is deterministic.
                let mut by_freq = used;
                by_freq.sort_by(|&a, &b| freqs[b as usize].cmp(&freqs[a as usize]).then(a.cmp(&b)));
                let mut it = by_freq.into_iter();
                for (len, &count) in bl_count.iter().enumerate().skip(1) {
                    for _ in 0..count {
                        lengths[it.next().expect("counts match symbols") as usize] = len as u8;
                    }
                }
            }
        }
        HuffmanCode::from_lengths(&lengths).expect("Huffman lengths form a complete code")
    }

    /// The canonical code with these lengths, validated: no length above
    /// [`MAX_CODE_LENGTH`], and a complete code (or the single-symbol or
    /// empty code).
    pub fn from_lengths(lengths: &[u8]) -> Result<HuffmanCode, HuffmanError> {
        let mut used = 0usize;
        let mut last_used = 0usize;
        let mut sum: u128 = 0;
        for (symbol, &length) in lengths.iter().enumerate() {
            if length > MAX_CODE_LENGTH {
                return Err(HuffmanError::LengthTooLong { symbol, length });
            }
            if length > 0 {
                used += 1;
                last_used = symbol;
                sum += 1u128 << (MAX_CODE_LENGTH - length);
            }
        }
        let single = match used {
            0 => None,
            1 => {
                if lengths[last_used] != 1 {
                    return Err(HuffmanError::SingleSymbolLength {
                        symbol: last_used,
                        length: lengths[last_used],
                    });
                }
                Some(last_used as u32)
            }
            _ => {
                if sum != 1u128 << MAX_CODE_LENGTH {
                    return Err(HuffmanError::NotComplete { sum_scaled: sum });
                }
                None
            }
        };
        let codes = canonical_codes(lengths);
        Ok(HuffmanCode {
            lengths: lengths.to_vec(),
            codes,
            single,
        })
    }

    /// Each symbol's code length (0: no code).
    pub fn lengths(&self) -> &[u8] {
        &self.lengths
    }

    /// The alphabet size.
    pub fn alphabet(&self) -> usize {
        self.lengths.len()
    }

    /// Symbol `s`'s code, right-aligned, and its length in bits as written
    /// (0 for the symbol of a single-symbol code).
    pub fn code(&self, s: u32) -> (u32, u8) {
        if self.single.is_some() {
            (0, 0)
        } else {
            (self.codes[s as usize], self.lengths[s as usize])
        }
    }

    /// The symbol of a single-symbol code.
    pub fn single(&self) -> Option<u32> {
        self.single
    }

    /// The number of bits `symbols` take with this code.
    pub fn cost(&self, freqs: &[u64]) -> u64 {
        if self.single.is_some() {
            return 0;
        }
        freqs
            .iter()
            .zip(&self.lengths)
            .map(|(&f, &l)| f * u64::from(l))
            .sum()
    }

    /// Writes each symbol's code. Every symbol must have a code (a
    /// frequency above zero when the code was built): a symbol without one is
    /// a bug of the caller, not bad input.
    pub fn write_symbols<W: BitWrite + ?Sized>(
        &self,
        w: &mut W,
        symbols: impl IntoIterator<Item = u32>,
    ) -> io::Result<()> {
        if self.single.is_some() {
            return Ok(());
        }
        for s in symbols {
            let len = self.lengths[s as usize];
            assert!(len > 0, "symbol {s} has no code");
            w.write_var::<u32>(u32::from(len), self.codes[s as usize])?;
        }
        Ok(())
    }

    /// Writes the code table: a 3-bit width `W` (1..=6), then each symbol's
    /// length in `W` bits. The alphabet size is known to the reader.
    pub fn write_table<W: BitWrite + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        let max = self.lengths.iter().copied().max().unwrap_or(0);
        let width = bit_width(u64::from(max)).max(1);
        w.write_var::<u32>(LENGTH_WIDTH_BITS, width)?;
        for &l in &self.lengths {
            w.write_var::<u32>(width, u32::from(l))?;
        }
        Ok(())
    }

    /// Reads a table written by [`HuffmanCode::write_table`] for an alphabet
    /// of `alphabet` symbols.
    pub fn read_table<R: BitRead + ?Sized>(
        r: &mut R,
        alphabet: usize,
        available_bits: u64,
    ) -> Result<HuffmanCode, HuffmanError> {
        let width: u32 = r.read_var(LENGTH_WIDTH_BITS).map_err(|e| {
            HuffmanError::from_read(e, u64::from(LENGTH_WIDTH_BITS), available_bits)
        })?;
        if !(1..=6).contains(&width) {
            return Err(HuffmanError::LengthWidth { width });
        }
        let needed = u64::from(width) * alphabet as u64;
        if needed > available_bits.saturating_sub(u64::from(LENGTH_WIDTH_BITS)) {
            // Checked before allocating: a corrupt alphabet size must not
            // reserve memory the input cannot back.
            return Err(HuffmanError::Truncated {
                needed: needed + u64::from(LENGTH_WIDTH_BITS),
                available: available_bits,
            });
        }
        let mut lengths = Vec::with_capacity(alphabet);
        for _ in 0..alphabet {
            let l: u32 = r
                .read_var(width)
                .map_err(|e| HuffmanError::from_read(e, needed, available_bits))?;
            lengths.push(l as u8);
        }
        HuffmanCode::from_lengths(&lengths)
    }

    /// The table-driven decoder of this code.
    pub fn decoder(&self) -> Decoder {
        Decoder::new(self)
    }
}

/// Bits needed to write `v` (0 for 0).
pub fn bit_width(v: u64) -> u32 {
    64 - v.leading_zeros()
}

/// Canonical code assignment (RFC 1951, 3.2.2).
fn canonical_codes(lengths: &[u8]) -> Vec<u32> {
    let mut bl_count = [0u64; MAX_CODE_LENGTH as usize + 1];
    for &l in lengths {
        bl_count[l as usize] += 1;
    }
    bl_count[0] = 0;
    let mut next = [0u64; MAX_CODE_LENGTH as usize + 2];
    let mut code = 0u64;
    for bits in 1..=MAX_CODE_LENGTH as usize {
        code = (code + bl_count[bits - 1]) << 1;
        next[bits] = code;
    }
    lengths
        .iter()
        .map(|&l| {
            if l == 0 {
                0
            } else {
                let c = next[l as usize];
                next[l as usize] += 1;
                c as u32
            }
        })
        .collect()
}

/// Huffman's construction (two queues over the symbols sorted by frequency):
/// how many symbols end at each depth, `counts[depth]`.
fn huffman_depth_counts(freqs: &[u64], used: &[u32]) -> Vec<u64> {
    let mut leaves: Vec<u32> = used.to_vec();
    leaves.sort_by(|&a, &b| freqs[a as usize].cmp(&freqs[b as usize]).then(a.cmp(&b)));
    let m = leaves.len();
    // Nodes 0..m are the leaves in sorted order, m.. the merged nodes.
    let mut weight: Vec<u64> = leaves.iter().map(|&s| freqs[s as usize]).collect();
    let mut parent = vec![0usize; 2 * m - 1];
    let (mut next_leaf, mut next_inner) = (0usize, m);
    for _ in 0..m - 1 {
        let mut pick = || {
            let inner_ready = next_inner < weight.len();
            if next_leaf < m && (!inner_ready || weight[next_leaf] <= weight[next_inner]) {
                next_leaf += 1;
                next_leaf - 1
            } else {
                next_inner += 1;
                next_inner - 1
            }
        };
        let a = pick();
        let b = pick();
        let id = weight.len();
        weight.push(weight[a].saturating_add(weight[b]));
        parent[a] = id;
        parent[b] = id;
    }
    // Depths top-down: a merged node is created after its children.
    let root = 2 * m - 2;
    let mut depth = vec![0usize; 2 * m - 1];
    for node in (0..root).rev() {
        depth[node] = depth[parent[node]] + 1;
    }
    let max = depth[..m].iter().copied().max().unwrap_or(0);
    let mut counts = vec![0u64; max.max(MAX_CODE_LENGTH as usize) + 1];
    for &d in &depth[..m] {
        counts[d] += 1;
    }
    counts
}

/// Limits code lengths to `max` keeping the Kraft sum at 1 (JPEG, ITU T.81
/// Annex K.3, `Adjust_BITS`): two symbols at a too-long depth `i` become one
/// at `i - 1` plus a leaf split at the deepest shorter level `j`.
fn limit_lengths(counts: &mut Vec<u64>, max: usize) {
    let mut i = counts.len() - 1;
    while i > max {
        while counts[i] > 0 {
            let mut j = i - 2;
            while counts[j] == 0 {
                j -= 1;
            }
            counts[i] -= 2;
            counts[i - 1] += 1;
            counts[j + 1] += 2;
            counts[j] -= 1;
        }
        i -= 1;
    }
    counts.truncate(max + 1);
}

/// A bit writer over a byte vector, most significant bit first.
pub type Writer = BitWriter<Vec<u8>, BigEndian>;

/// A new [`Writer`].
pub fn writer() -> Writer {
    BitWriter::endian(Vec::new(), BigEndian)
}

/// A bit reader over a byte slice, most significant bit first.
pub type Reader<'a> = BitReader<io::Cursor<&'a [u8]>, BigEndian>;

/// A new [`Reader`] over `bytes`.
pub fn reader(bytes: &[u8]) -> Reader<'_> {
    BitReader::endian(io::Cursor::new(bytes), BigEndian)
}

#[cfg(test)]
mod tests;
