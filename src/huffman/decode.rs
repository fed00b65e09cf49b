//! Decoding: a table-driven decoder for speed, and the textbook bit-by-bit
//! canonical decoder (over bitstream-io) as its reference and benchmark
//! baseline.
//!
//! bitstream-io has no "peek", which a table lookup needs, so the hot loop
//! keeps its own 64-bit window over the byte slice; it reads the same bit
//! order (most significant bit first) as bitstream-io's `BigEndian`.

use bitstream_io::BitRead;

use super::{HuffmanCode, HuffmanError, MAX_CODE_LENGTH};

/// Bits resolved by one table lookup: codes up to this length decode in one
/// step; longer ones continue with a per-length search. 11 bits (2048 entries
/// of 8 bytes, 16 KiB) stays within a first-level data cache, as zstd's
/// literal decoder (also 11 bits) does.
pub const DECODE_TABLE_BITS: u8 = 11;

#[derive(Debug, Clone, Copy)]
struct Entry {
    symbol: u32,
    /// Code length; 0 marks a prefix of a longer code.
    length: u8,
}

/// A table-driven decoder of one [`HuffmanCode`].
#[derive(Debug, Clone)]
pub struct Decoder {
    table: Vec<Entry>,
    table_bits: u8,
    max_length: u8,
    /// Per length: the first canonical code, how many codes, and where they
    /// start in `sorted`.
    first_code: [u32; MAX_CODE_LENGTH as usize + 1],
    count: [u32; MAX_CODE_LENGTH as usize + 1],
    first_index: [u32; MAX_CODE_LENGTH as usize + 1],
    /// Symbols ordered by (length, symbol): canonical order.
    sorted: Vec<u32>,
    single: Option<u32>,
    empty: bool,
}

impl Decoder {
    pub fn new(code: &HuffmanCode) -> Decoder {
        let lengths = code.lengths();
        let max_length = lengths.iter().copied().max().unwrap_or(0);
        let mut count = [0u32; MAX_CODE_LENGTH as usize + 1];
        for &l in lengths {
            if l > 0 {
                count[l as usize] += 1;
            }
        }
        let mut first_index = [0u32; MAX_CODE_LENGTH as usize + 1];
        let mut first_code = [0u32; MAX_CODE_LENGTH as usize + 1];
        let mut code_acc = 0u64;
        let mut index = 0u32;
        for l in 1..=MAX_CODE_LENGTH as usize {
            code_acc = (code_acc + u64::from(count[l - 1]) * u64::from(l > 1)) << 1;
            first_code[l] = code_acc as u32;
            first_index[l] = index;
            index += count[l];
        }
        let mut sorted: Vec<u32> = (0..lengths.len() as u32)
            .filter(|&s| lengths[s as usize] > 0)
            .collect();
        sorted.sort_by_key(|&s| (lengths[s as usize], s));
        let single = code.single();
        let table_bits = max_length.min(DECODE_TABLE_BITS);
        let mut table = Vec::new();
        if single.is_none() && max_length > 0 {
            table = vec![
                Entry {
                    symbol: 0,
                    length: 0
                };
                1usize << table_bits
            ];
            for (s, &l) in lengths.iter().enumerate() {
                if l == 0 || l > table_bits {
                    continue;
                }
                let (c, _) = code.code(s as u32);
                let shift = table_bits - l;
                let start = (c as usize) << shift;
                for e in &mut table[start..start + (1usize << shift)] {
                    *e = Entry {
                        symbol: s as u32,
                        length: l,
                    };
                }
            }
        }
        Decoder {
            table,
            table_bits,
            max_length,
            first_code,
            count,
            first_index,
            sorted,
            single,
            empty: max_length == 0,
        }
    }

    /// Decodes `n` symbols from `bytes` starting at bit `bit_offset`,
    /// appending them to `out`; returns the bit position after the last one.
    pub fn decode(
        &self,
        bytes: &[u8],
        bit_offset: u64,
        n: usize,
        out: &mut Vec<u32>,
    ) -> Result<u64, HuffmanError> {
        if let Some(s) = self.single {
            out.extend(std::iter::repeat_n(s, n));
            return Ok(bit_offset);
        }
        if n == 0 {
            return Ok(bit_offset);
        }
        if self.empty {
            return Err(HuffmanError::EmptyCode { count: n });
        }
        let available = bytes.len() as u64 * 8;
        if bit_offset > available {
            return Err(HuffmanError::Truncated {
                needed: bit_offset,
                available,
            });
        }
        // Each symbol takes at least one bit: refuse early instead of
        // reserving memory for a count the input cannot back.
        if n as u64 > available - bit_offset {
            return Err(HuffmanError::Truncated {
                needed: bit_offset + n as u64,
                available,
            });
        }
        out.reserve(n);
        let mut w = BitWindow::new(bytes, bit_offset);
        // `single` and `empty` are settled above: the loop is one table
        // step per symbol, inlined.
        out.extend((0..n).map(|_| self.step(&mut w)));
        let end = w.position();
        if end > available {
            return Err(HuffmanError::Truncated {
                needed: end,
                available,
            });
        }
        Ok(end)
    }

    /// Decodes one symbol at the window's position (several codes can share
    /// one window, symbol by symbol). Past the end of the bytes the window
    /// reads zero bits: the caller checks [`BitWindow::position`] against the
    /// input length once at the end.
    #[inline]
    pub fn next(&self, w: &mut BitWindow<'_>) -> Result<u32, HuffmanError> {
        if let Some(s) = self.single {
            return Ok(s);
        }
        if self.empty {
            return Err(HuffmanError::EmptyCode { count: 1 });
        }
        Ok(self.step(w))
    }

    /// One symbol of a code with at least two symbols.
    #[inline(always)]
    fn step(&self, w: &mut BitWindow<'_>) -> u32 {
        w.refill();
        let e = self.table[(w.bits >> (64 - u32::from(self.table_bits))) as usize];
        if e.length > 0 {
            w.consume(u32::from(e.length));
            return e.symbol;
        }
        self.decode_long(w)
    }

    /// A code longer than the table: search length by length.
    #[cold]
    fn decode_long(&self, w: &mut BitWindow<'_>) -> u32 {
        for l in self.table_bits + 1..=self.max_length {
            let code = (w.bits >> (64 - u32::from(l))) as u32;
            let offset = code.wrapping_sub(self.first_code[l as usize]);
            if offset < self.count[l as usize] {
                w.consume(u32::from(l));
                return self.sorted[(self.first_index[l as usize] + offset) as usize];
            }
        }
        // A complete code always matches; only a validated code reaches here.
        unreachable!("a complete canonical code decodes every bit string")
    }
}

/// A 64-bit window over a byte slice, most significant bit first; reads
/// past the end as zero bits (the caller checks the final position).
pub struct BitWindow<'a> {
    bytes: &'a [u8],
    /// The next byte to load.
    next: usize,
    /// Valid bits, left-aligned.
    bits: u64,
    count: u32,
    /// Bits consumed since the start of `bytes`.
    consumed: u64,
}

impl<'a> BitWindow<'a> {
    /// A window at bit `bit_offset` of `bytes`.
    pub fn new(bytes: &'a [u8], bit_offset: u64) -> Self {
        let mut w = BitWindow {
            bytes,
            next: (bit_offset / 8) as usize,
            bits: 0,
            count: 0,
            consumed: bit_offset - bit_offset % 8,
        };
        w.refill();
        w.consume((bit_offset % 8) as u32);
        w
    }

    #[inline]
    fn refill(&mut self) {
        if self.count >= u32::from(MAX_CODE_LENGTH) {
            return;
        }
        if self.next + 8 <= self.bytes.len() {
            let v = u64::from_be_bytes(self.bytes[self.next..self.next + 8].try_into().unwrap());
            self.bits |= v >> self.count;
            let take = (63 - self.count) / 8;
            self.next += take as usize;
            self.count += take * 8;
        } else {
            while self.count <= 56 {
                let b = self.bytes.get(self.next).copied().unwrap_or(0);
                self.bits |= u64::from(b) << (56 - self.count);
                self.count += 8;
                self.next += 1;
            }
        }
    }

    #[inline]
    fn consume(&mut self, n: u32) {
        self.bits <<= n;
        self.count -= n;
        self.consumed += u64::from(n);
    }

    /// Bits consumed from the start of the bytes (may exceed their length
    /// when a corrupt stream ran past the end).
    pub fn position(&self) -> u64 {
        self.consumed
    }
}

/// The textbook canonical decoder: one bit at a time through bitstream-io,
/// comparing the code so far with each length's range. The reference the
/// table-driven [`Decoder`] is tested against, and its benchmark baseline.
pub fn decode_bitwise<R: BitRead + ?Sized>(
    code: &HuffmanCode,
    r: &mut R,
    n: usize,
    out: &mut Vec<u32>,
) -> Result<(), HuffmanError> {
    if let Some(s) = code.single() {
        out.extend(std::iter::repeat_n(s, n));
        return Ok(());
    }
    if n > 0 && code.lengths().iter().all(|&l| l == 0) {
        return Err(HuffmanError::EmptyCode { count: n });
    }
    let lengths = code.lengths();
    let mut count = [0u32; MAX_CODE_LENGTH as usize + 1];
    for &l in lengths {
        count[l as usize] += 1;
    }
    let mut sorted: Vec<u32> = (0..lengths.len() as u32)
        .filter(|&s| lengths[s as usize] > 0)
        .collect();
    sorted.sort_by_key(|&s| (lengths[s as usize], s));
    for i in 0..n {
        let (mut code_so_far, mut first, mut index) = (0u64, 0u64, 0u64);
        let mut found = None;
        for l in 1..=MAX_CODE_LENGTH as usize {
            let bit = r.read_bit().map_err(|_| HuffmanError::Truncated {
                needed: i as u64 + 1,
                available: i as u64,
            })?;
            code_so_far = (code_so_far << 1) | u64::from(bit);
            let c = u64::from(count[l]);
            if code_so_far < first + c {
                found = Some(sorted[(index + code_so_far - first) as usize]);
                break;
            }
            index += c;
            first = (first + c) << 1;
        }
        out.push(found.expect("a complete canonical code decodes every bit string"));
    }
    Ok(())
}
