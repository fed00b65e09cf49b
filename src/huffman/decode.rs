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
    /// The alphabet size (symbols `0..alphabet`).
    alphabet: usize,
}

impl Decoder {
    /// Builds the canonical-code decoding tables for `code`.
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
            alphabet: lengths.len(),
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
        self.decode_as(bytes, bit_offset, n, out, |s| s)
    }

    /// [`Decoder::decode`] appending `values[s]` for each symbol `s` (one
    /// value per symbol of the alphabet): a caller that maps symbols to
    /// its own codes does it in the decoding loop, and when every value of
    /// a short code fits a byte, the multi-symbol table holds the values
    /// themselves (no pass over the symbols after).
    pub fn decode_mapped(
        &self,
        bytes: &[u8],
        bit_offset: u64,
        n: usize,
        values: &[u32],
        out: &mut Vec<u32>,
    ) -> Result<u64, HuffmanError> {
        assert_eq!(values.len(), self.alphabet, "one value per symbol");
        self.decode_as(bytes, bit_offset, n, out, |s| values[s as usize])
    }

    /// [`Decoder::decode`] with each symbol `s` written as `value(s)`.
    #[inline(always)]
    fn decode_as(
        &self,
        bytes: &[u8],
        bit_offset: u64,
        n: usize,
        out: &mut Vec<u32>,
        value: impl Fn(u32) -> u32,
    ) -> Result<u64, HuffmanError> {
        if let Some(s) = self.single {
            out.extend(std::iter::repeat_n(value(s), n));
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
        let mut w = BitWindow::new(bytes, bit_offset);
        match self.multi_table(n, &value) {
            Some(multi) => self.decode_multi(&multi, &mut w, n, out, &value),
            None => {
                out.reserve(n);
                // `single` and `empty` are settled above: the loop is one
                // table step per symbol, inlined.
                out.extend((0..n).map(|_| value(self.step(&mut w))));
            }
        }
        let end = w.position();
        if end > available {
            return Err(HuffmanError::Truncated {
                needed: end,
                available,
            });
        }
        Ok(end)
    }

    /// The multi-symbol table for decoding `n` symbols, when it pays: an
    /// alphabet of at most 256 symbols (each fits a byte of an entry) and
    /// enough symbols to repay building it (about as many writes as the
    /// table has entries, a few per entry).
    ///
    /// Entry `i` describes the [`MULTI_BITS`]-bit window `i`: every whole
    /// code it starts with, in order, up to [`MULTI_SYMBOLS`]; bits 0..8
    /// hold their total length, bits 8..16 their number (0 when the window
    /// starts with a code longer than the table, which the per-length
    /// search decodes), then one byte per symbol from bit 16 up. One lookup
    /// then yields several symbols of a short code: the loop's latency is
    /// one lookup per entry, not per symbol.
    ///
    /// The bytes hold `value(s)` of each symbol `s`: no table when a short
    /// code's value does not fit a byte.
    fn multi_table(&self, n: usize, value: impl Fn(u32) -> u32) -> Option<Vec<u64>> {
        if self.alphabet > 256 || n < MULTI_MIN_SYMBOLS {
            return None;
        }
        // The codes within the table's reach, by length: (code, length,
        // value).
        let mut short = Vec::new();
        for l in 1..=MULTI_BITS.min(self.max_length) {
            let (first, index) = (self.first_code[l as usize], self.first_index[l as usize]);
            for i in 0..self.count[l as usize] {
                let v = value(self.sorted[(index + i) as usize]);
                if v > 0xff {
                    return None;
                }
                short.push((first + i, l, v));
            }
        }
        let mut table = vec![0u64; 1 << MULTI_BITS];
        fill_multi(&mut table, &short, 0, 0, 0, 0);
        Some(table)
    }

    /// Decodes `n` symbols through `multi` (see [`Decoder::multi_table`]),
    /// the last few (fewer than a top-up's entries can hold) one at a time
    /// so that the window stops right after the `n`-th code.
    fn decode_multi(
        &self,
        multi: &[u64],
        w: &mut BitWindow<'_>,
        n: usize,
        out: &mut Vec<u32>,
        value: impl Fn(u32) -> u32,
    ) {
        let start = out.len();
        out.resize(start + n, 0);
        let dst = &mut out[start..];
        let mut i = 0;
        // `ENTRIES_PER_TOP_UP` entries per top-up of the window (each takes
        // at most `MULTI_BITS` of its 56 bits; a code longer than the table
        // tops up around itself), so that no branch depends on the bits
        // left. An entry writes all its lanes (the next entry overwrites
        // those past its count): at least `MULTI_SYMBOLS` must remain.
        while i + ENTRIES_PER_TOP_UP * MULTI_SYMBOLS <= n {
            w.top_up();
            for _ in 0..ENTRIES_PER_TOP_UP {
                i += self.multi_step(multi, w, &mut dst[i..], &value);
            }
        }
        for slot in &mut dst[i..] {
            *slot = value(self.step(w));
        }
    }

    /// One entry of `multi` at the window's position (at least
    /// `MULTI_BITS` bits valid): its symbols' values written to the first
    /// `MULTI_SYMBOLS` lanes of `dst` (those past its count are left for
    /// the next entry to overwrite); returns its count.
    #[inline(always)]
    fn multi_step(
        &self,
        multi: &[u64],
        w: &mut BitWindow<'_>,
        dst: &mut [u32],
        value: &impl Fn(u32) -> u32,
    ) -> usize {
        let e = multi[(w.bits >> (64 - u32::from(MULTI_BITS))) as usize];
        let count = ((e >> 8) & 0xff) as usize;
        if count == 0 {
            w.top_up();
            dst[0] = value(self.decode_long(w));
            w.top_up();
            return 1;
        }
        w.consume((e & 0xff) as u32);
        let lanes: &mut [u32; MULTI_SYMBOLS] = (&mut dst[..MULTI_SYMBOLS])
            .try_into()
            .expect("MULTI_SYMBOLS lanes");
        for (k, lane) in lanes.iter_mut().enumerate() {
            *lane = ((e >> (16 + 8 * k)) & 0xff) as u32;
        }
        count
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

/// What [`TableSet::lookup_topped`] returns where its table cannot tell: the
/// window starts with a code longer than the table, or the caller left the
/// value to be worked out at first use.
pub const MISS: u32 = u32::MAX;

/// One-lookup tables of several codes in one vector, each symbol replaced
/// by a value of the caller's: for a stream where each row's code is chosen
/// by something known before it (per-value mode's released symbol), so one
/// lookup yields the row's value, with no per-code indirection.
#[derive(Debug, Clone, Default)]
pub struct TableSet {
    /// Value in the low 32 bits, code length above.
    entries: Vec<u64>,
    /// Per table: its first entry and its width in bits (at most
    /// [`DECODE_TABLE_BITS`]).
    tables: Vec<(usize, u8)>,
}

impl TableSet {
    /// Appends the table of `decoder`'s code, symbol `s` yielding
    /// `value_of(s)`, and returns its index. A single-symbol code is a
    /// table of no bits; an empty code, and the windows that start a code
    /// longer than the table, yield [`MISS`] (decode those with
    /// [`Decoder::next`]).
    pub fn push_code(&mut self, decoder: &Decoder, value_of: impl Fn(u32) -> u32) -> usize {
        if let Some(s) = decoder.single {
            return self.push_fixed(value_of(s));
        }
        if decoder.empty {
            return self.push_fixed(MISS);
        }
        self.tables.push((self.entries.len(), decoder.table_bits));
        self.entries.extend(decoder.table.iter().map(|e| {
            if e.length == 0 {
                u64::from(MISS)
            } else {
                u64::from(value_of(e.symbol)) | (u64::from(e.length) << 32)
            }
        }));
        self.tables.len() - 1
    }

    /// Appends a table of no bits yielding `value` (which may be [`MISS`])
    /// and returns its index.
    pub fn push_fixed(&mut self, value: u32) -> usize {
        self.tables.push((self.entries.len(), 0));
        self.entries.push(u64::from(value));
        self.tables.len() - 1
    }

    /// Sets the value of table `t`, a table of no bits.
    pub fn set_fixed(&mut self, t: usize, value: u32) {
        let (start, bits) = self.tables[t];
        assert_eq!(bits, 0, "table {t} is not a table of no bits");
        self.entries[start] = u64::from(value);
    }

    /// The value of the code at the window's position in table `t`, its
    /// bits consumed; [`MISS`] consumes nothing. Past the end of the bytes
    /// the window reads zero bits: the caller checks the position. The
    /// window is not refilled: at most [`LOOKUPS_PER_TOP_UP`] lookups may
    /// follow a [`BitWindow::top_up`] (each takes at most
    /// [`DECODE_TABLE_BITS`] bits), which spares the loop a branch on the
    /// bits left (mispredicted, as they depend on the codes).
    #[inline(always)]
    pub fn lookup_topped(&self, t: usize, w: &mut BitWindow<'_>) -> u32 {
        let (start, bits) = self.tables[t];
        if bits == 0 {
            // No bits: no dependence on the window (a row released
            // unchanged does not wait for the previous row's code).
            return self.entries[start] as u32;
        }
        let e = self.entries[start + (w.bits >> (64 - u32::from(bits))) as usize];
        w.consume((e >> 32) as u32);
        e as u32
    }
}

/// Width of the multi-symbol table's window (as the one-symbol table's).
const MULTI_BITS: u8 = DECODE_TABLE_BITS;
/// At most this many symbols per multi-symbol entry (one byte each after
/// the two bytes of length and count).
const MULTI_SYMBOLS: usize = 6;
/// One-symbol table lookups a [`BitWindow::top_up`] (56 bits) backs: each
/// takes at most [`DECODE_TABLE_BITS`] bits, so up to 5; per-value mode's
/// loop takes 4 (measured faster than 2 on Adult).
pub const LOOKUPS_PER_TOP_UP: usize = 4;
const _: () = assert!(LOOKUPS_PER_TOP_UP * DECODE_TABLE_BITS as usize <= 56);

/// Multi-symbol entries per top-up in [`Decoder::decode`]: 2 of the
/// [`LOOKUPS_PER_TOP_UP`] allowed (measured faster than 4 on Adult's
/// columns).
const ENTRIES_PER_TOP_UP: usize = 2;
const _: () = assert!(ENTRIES_PER_TOP_UP <= LOOKUPS_PER_TOP_UP);

/// Below this many symbols, building the multi-symbol table costs more
/// than it saves.
const MULTI_MIN_SYMBOLS: usize = 4096;

/// Fills the multi-symbol entries of the windows that start with the code
/// sequence `prefix` (`bits` long, `count` codes, `entry` so far): all of
/// them get `entry`, then those whose next whole code fits get a longer one.
/// Every window is written once per code of its sequence (at most
/// `MULTI_SYMBOLS + 1` times).
fn fill_multi(
    table: &mut [u64],
    short: &[(u32, u8, u32)],
    prefix: usize,
    bits: u8,
    count: usize,
    entry: u64,
) {
    if count > 0 {
        let shift = MULTI_BITS - bits;
        table[prefix << shift..(prefix + 1) << shift].fill(entry);
    }
    if count == MULTI_SYMBOLS {
        return;
    }
    for &(code, length, symbol) in short {
        if bits + length > MULTI_BITS {
            break;
        }
        let next = entry & !0xffff
            | u64::from(bits + length)
            | ((count as u64 + 1) << 8)
            | (u64::from(symbol) << (16 + 8 * count));
        fill_multi(
            table,
            short,
            (prefix << length) | code as usize,
            bits + length,
            count + 1,
            next,
        );
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

    /// Makes at least [`MAX_CODE_LENGTH`] bits valid.
    #[inline]
    fn refill(&mut self) {
        if self.count >= u32::from(MAX_CODE_LENGTH) {
            return;
        }
        self.top_up();
    }

    /// Makes at least 56 bits valid, whatever is valid already: a branch
    /// on the position in the bytes only (taken until the last 8), none on
    /// the bits left, which depend on the codes and would be mispredicted.
    #[inline]
    pub fn top_up(&mut self) {
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
        for &of_length in &count[1..] {
            let bit = r.read_bit().map_err(|_| HuffmanError::Truncated {
                needed: i as u64 + 1,
                available: i as u64,
            })?;
            code_so_far = (code_so_far << 1) | u64::from(bit);
            let c = u64::from(of_length);
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
