//! A static rANS coder (Duda's asymmetric numeral systems, range variant;
//! `spec/CODING.md` 4.3) with two interleaved states, for a symbol stream
//! whose frequencies are stored beside it.
//!
//! Decoding a symbol is a table lookup, a multiply and an occasional
//! 16-bit read, and the two states' steps do not wait for each other: several
//! times faster than the adaptive binary range coder (one model update and a
//! dependent multiply per *bit*), at the price of the frequency table. The
//! rows' classes of a release are read by every reader on open, so their
//! decoding speed is the opening speed.

use bitstream_io::{BitRead, BitWrite};

use super::CodecError;
use super::bytes::{ByteReader, put_coded};
use crate::huffman;

/// Frequencies are at most `2^MAX_SCALE`: their bit widths less one are
/// symbols of this alphabet.
const WIDTHS: usize = MAX_SCALE as usize + 1;

/// States lie in `LOW..LOW << 16` between symbols.
pub(super) const LOW: u32 = 1 << 16;
/// The largest scale: frequencies sum to at most `2^MAX_SCALE`, so that a
/// state step stays within 32 bits with 16-bit renormalization.
pub const MAX_SCALE: u8 = 15;
/// The smallest scale the encoder picks: a decoding table of `2^12` slots
/// (4 bytes each) stays in the first-level cache.
const MIN_SCALE: u8 = 12;

/// The scale the encoder uses for `alphabet` symbols: the frequency table
/// small enough to sit in cache, fine enough for the rarest symbols.
/// `None` for no symbols or more than `2^MAX_SCALE`.
fn scale_for(alphabet: usize) -> Option<u8> {
    let bits = usize::BITS - alphabet.saturating_sub(1).leading_zeros();
    (1..=1 << MAX_SCALE)
        .contains(&alphabet)
        .then(|| (bits as u8 + 7).clamp(MIN_SCALE, MAX_SCALE))
}

/// Frequencies summing to `2^scale`, each at least 1, proportional to
/// `counts` (each at least 1) up to rounding: the floors, then the deficit
/// to the largest remainders, or the excess taken from the largest.
pub(super) fn quantize(counts: &[u64], scale: u8) -> Vec<u32> {
    let total: u64 = counts.iter().sum();
    let target = 1u64 << scale;
    let mut freqs: Vec<u64> = counts
        .iter()
        .map(|&c| (c * target / total).max(1))
        .collect();
    let sum: u64 = freqs.iter().sum();
    let mut order: Vec<usize> = (0..counts.len()).collect();
    if sum < target {
        // The deficit is below the symbol count: one more for each of the
        // largest remainders.
        order.sort_by_key(|&i| std::cmp::Reverse((counts[i] * target) % total));
        for &i in order.iter().take((target - sum) as usize) {
            freqs[i] += 1;
        }
    } else {
        // Raised to 1 by the floor: taken back from the most frequent,
        // which lose least by it (the alphabet is at most 2^scale, so the
        // frequencies above 1 cover the excess).
        order.sort_by_key(|&i| std::cmp::Reverse(counts[i]));
        let mut excess = sum - target;
        while excess > 0 {
            for &i in &order {
                if excess > 0 && freqs[i] > 1 {
                    freqs[i] -= 1;
                    excess -= 1;
                }
            }
        }
    }
    freqs.into_iter().map(|f| f as u32).collect()
}

/// Appends `symbols` (each below `alphabet`, every one of `0..alphabet`
/// occurring) in the layout of `spec/CODING.md` 4.3. `None` when the
/// alphabet is empty or larger than `2^MAX_SCALE`.
pub fn encode(symbols: &[u32], alphabet: usize, out: &mut Vec<u8>) -> Option<()> {
    let scale = scale_for(alphabet)?;
    let mut counts = vec![0u64; alphabet];
    for &s in symbols {
        counts[s as usize] += 1;
    }
    if counts.contains(&0) {
        return None;
    }
    let freqs = quantize(&counts, scale);
    let mut cum = Vec::with_capacity(alphabet);
    let mut acc = 0u32;
    for &f in &freqs {
        cum.push(acc);
        acc += f;
    }
    let mut states = [LOW; 2];
    let mut words: Vec<u16> = Vec::new();
    for (i, &s) in symbols.iter().enumerate().rev() {
        let (f, c) = (freqs[s as usize], cum[s as usize]);
        encode_step(&mut states[i & 1], f, c, u32::from(scale), &mut words);
    }
    out.push(scale);
    put_frequencies(out, &freqs);
    put_stream(out, &states, &words);
    Some(())
}

/// Codes a symbol of frequency `f` whose slots start at `c` (of
/// `2^scale`) into state `x`, emitting the low words that keep the state
/// below `LOW << 16`. Symbols are coded from the last to the first.
pub(super) fn encode_step(x: &mut u32, f: u32, c: u32, scale: u32, words: &mut Vec<u16>) {
    let limit = u64::from(f) << (32 - scale);
    while u64::from(*x) >= limit {
        words.push(*x as u16);
        *x >>= 16;
    }
    *x = ((*x / f) << scale) + (*x % f) + c;
}

/// Appends the final states, then the words in the order the decoder
/// reads them (the reverse of their emission).
pub(super) fn put_stream(out: &mut Vec<u8>, states: &[u32], words: &[u16]) {
    for x in states {
        out.extend_from_slice(&x.to_le_bytes());
    }
    for &w in words.iter().rev() {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// Reads a stream's `N` initial states, each at least `LOW` (every step
/// keeps a state in `LOW..2^32`, so only a corrupt start is below), and
/// its words: the rest of `r`, an even number of bytes.
pub(super) fn read_stream<'a, const N: usize>(
    r: &mut ByteReader<'a>,
    what: &'static str,
) -> Result<([u32; N], &'a [u8]), CodecError> {
    let mut states = [0u32; N];
    for x in &mut states {
        let b = r.take(4, what)?;
        *x = u32::from_le_bytes(b.try_into().expect("4 bytes"));
    }
    let invalid = |detail: String| CodecError::Invalid { what, detail };
    if let Some(x) = states.iter().find(|&&x| x < LOW) {
        return Err(invalid(format!("initial state {x} below {LOW}")));
    }
    let words = r.rest();
    if !words.len().is_multiple_of(2) {
        return Err(invalid("an odd number of stream bytes".to_owned()));
    }
    Ok((states, words))
}

/// Refuses a stream whose `n` symbols read `read` of its `available`
/// bytes of words: past its end, short of it, or with a state not back at
/// `LOW` (where the encoder started).
pub(super) fn check_end(
    states: &[u32],
    read: usize,
    available: usize,
    n: usize,
    what: &'static str,
) -> Result<(), CodecError> {
    let invalid = |detail: String| CodecError::Invalid { what, detail };
    if read > available {
        return Err(invalid(format!(
            "the stream ends before its {n} symbols do ({available} bytes)"
        )));
    }
    if states.iter().any(|&x| x != LOW) || read != available {
        return Err(invalid(format!(
            "the stream does not end where its {n} symbols do ({read} of {available} bytes read, final states {states:?})"
        )));
    }
    Ok(())
}

/// Appends the frequencies (each in `1..=2^MAX_SCALE`): their bit widths
/// less one as a coded stream over [`WIDTHS`], then each one's bits below
/// its top bit, padded to a byte. A release's classes hold between k and a
/// few times k rows each: the widths take a bit or two, where a varint
/// would take a byte.
fn put_frequencies(out: &mut Vec<u8>, freqs: &[u32]) {
    let widths: Vec<u32> = freqs.iter().map(|&f| f.ilog2()).collect();
    put_coded(out, WIDTHS, &widths);
    put_low_bits(out, freqs);
}

/// Reads what [`put_frequencies`] wrote for `alphabet` symbols.
fn read_frequencies(r: &mut ByteReader<'_>, alphabet: usize) -> Result<Vec<u32>, CodecError> {
    let widths = r.coded("rANS frequency widths", WIDTHS, alphabet)?;
    let tops: Vec<Option<u32>> = widths.into_iter().map(Some).collect();
    read_low_bits(r, &tops, "rANS frequency bits")
}

/// Appends each frequency's bits below its top bit (none for 0 and 1),
/// most significant first, padded to a byte: with the top bits coded
/// apart, a frequency costs its information, not a byte.
pub(super) fn put_low_bits(out: &mut Vec<u8>, freqs: &[u32]) {
    let mut w = huffman::writer();
    for &f in freqs.iter().filter(|&&f| f > 1) {
        let top = f.ilog2();
        w.write_var::<u32>(top, f & ((1 << top) - 1))
            .expect("writing to memory");
    }
    w.byte_align().expect("writing to memory");
    out.extend_from_slice(&w.into_writer());
}

/// Reads the frequencies [`put_low_bits`] wrote, given each one's top bit
/// (`None` for a frequency 0).
pub(super) fn read_low_bits(
    r: &mut ByteReader<'_>,
    tops: &[Option<u32>],
    what: &'static str,
) -> Result<Vec<u32>, CodecError> {
    let bits: u64 = tops.iter().flatten().map(|&t| u64::from(t)).sum();
    let mut bits = huffman::reader(r.take(bits.div_ceil(8), what)?);
    Ok(tops
        .iter()
        .map(|top| {
            top.map_or(0, |top| {
                let low: u32 = if top > 0 {
                    bits.read_var(top)
                        .expect("the field holds every frequency's bits")
                } else {
                    0
                };
                1 << top | low
            })
        })
        .collect())
}

/// Decodes `n` symbols over `alphabet` from the rest of `r` (which must end
/// exactly where the stream does, with both states back at their start).
pub fn decode(r: &mut ByteReader<'_>, alphabet: usize, n: usize) -> Result<Vec<u32>, CodecError> {
    let invalid = |detail: String| CodecError::Invalid {
        what: "rANS row classes",
        detail,
    };
    let scale = r.byte("rANS scale")?;
    if !(1..=MAX_SCALE).contains(&scale) {
        return Err(invalid(format!(
            "scale {scale} (expected 1 to {MAX_SCALE})"
        )));
    }
    let total = 1u64 << scale;
    if alphabet as u64 > total {
        return Err(invalid(format!(
            "{alphabet} symbols do not fit {total} slots"
        )));
    }
    let freqs = read_frequencies(r, alphabet)?;
    let mut cum = Vec::with_capacity(alphabet);
    let mut acc = 0u64;
    for (s, &f) in freqs.iter().enumerate() {
        let f = u64::from(f);
        if acc + f > total {
            return Err(invalid(format!(
                "frequency {f} of symbol {s} (each at least 1, all summing to {total})"
            )));
        }
        cum.push(acc as u32);
        acc += f;
    }
    if acc != total {
        return Err(invalid(format!(
            "frequencies sum to {acc}, expected {total}"
        )));
    }
    // Each slot's symbol, and the slot's offset within it: one lookup per
    // symbol decoded.
    let mut slots = vec![0u32; total as usize];
    for (s, (&f, &c)) in freqs.iter().zip(&cum).enumerate() {
        for (o, slot) in slots[c as usize..(c + f) as usize].iter_mut().enumerate() {
            *slot = (s as u32) << MAX_SCALE | o as u32;
        }
    }
    let (states, words) = read_stream::<2>(r, "rANS row classes")?;
    let mask = (total - 1) as u32;
    let offset_mask = (1u32 << MAX_SCALE) - 1;
    // One step of a state, without a branch on whether it reads a word
    // (about every other step: a branch would be mispredicted half the
    // time). A read past the end takes 0 and shows as `pos` beyond it.
    let mut pos = 0usize;
    let step = |x: &mut u32, pos: &mut usize| -> u32 {
        let entry = slots[(*x & mask) as usize];
        let s = entry >> MAX_SCALE;
        let y = freqs[s as usize] * (*x >> scale) + (entry & offset_mask);
        let word = words
            .get(*pos..*pos + 2)
            .map_or(0, |w| u32::from(u16::from_le_bytes([w[0], w[1]])));
        let read = y < LOW;
        *x = if read { y << 16 | word } else { y };
        *pos += 2 * usize::from(read);
        s
    };
    // `n` is a count from the file: the output grows as the stream backs
    // it (a symbol can take far less than a bit, so its bytes do not bound
    // `n`), and decoding stops as soon as a step reads past the words.
    let mut out = Vec::with_capacity(n.min(8 * words.len() + 2));
    let [mut x0, mut x1] = states;
    while out.len() + 2 <= n && pos <= words.len() {
        let a = step(&mut x0, &mut pos);
        let b = step(&mut x1, &mut pos);
        out.extend_from_slice(&[a, b]);
    }
    if out.len() < n && pos <= words.len() {
        out.push(step(&mut x0, &mut pos));
    }
    check_end(&[x0, x1], pos, words.len(), n, "rANS row classes")?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(symbols: &[u32], alphabet: usize) -> Vec<u8> {
        let mut out = Vec::new();
        encode(symbols, alphabet, &mut out).expect("codable");
        let mut r = ByteReader::new(&out);
        assert_eq!(decode(&mut r, alphabet, symbols.len()).unwrap(), symbols);
        out
    }

    /// A count past the stream's symbols (issue 17: 2^30 rows of a 71 KB
    /// file took 7.6 s and 4.2 GB) stops where the stream runs out, at
    /// once and holding about what the stream backs, for a skewed alphabet
    /// (symbols of a fraction of a bit) as for any.
    #[test]
    fn a_forged_count_stops_at_the_end_of_the_stream() {
        let skewed: Vec<u32> = (0..5000).map(|i| u32::from(i % 1000 == 0)).collect();
        let even: Vec<u32> = (0..5000).map(|i| i % 7).collect();
        for (symbols, alphabet) in [(skewed, 2), (even, 7)] {
            let bytes = round_trip(&symbols, alphabet);
            for n in [symbols.len() + 1, symbols.len() * 2, 1 << 30, usize::MAX] {
                let started = std::time::Instant::now();
                assert!(
                    decode(&mut ByteReader::new(&bytes), alphabet, n).is_err(),
                    "{n}"
                );
                assert!(
                    started.elapsed().as_millis() < 200,
                    "{n}: {:?}",
                    started.elapsed()
                );
            }
        }
    }

    proptest! {
        /// Any stream in which every symbol occurs decodes to itself.
        #[test]
        fn streams_round_trip(
            alphabet in 1usize..300,
            extra in proptest::collection::vec(0u32..1000, 0..3000),
        ) {
            let mut symbols: Vec<u32> = (0..alphabet as u32).collect();
            symbols.extend(extra.iter().map(|&s| s % alphabet as u32));
            // Skewed too: most rows in symbol 0.
            symbols.extend(std::iter::repeat_n(0, extra.len() * 3));
            round_trip(&symbols, alphabet);
        }

        /// Quantized frequencies sum to the scale's total and keep every
        /// symbol codable.
        #[test]
        fn quantized_frequencies_sum_to_the_total(
            counts in proptest::collection::vec(1u64..100_000, 1..5000),
        ) {
            let scale = scale_for(counts.len()).unwrap();
            let f = quantize(&counts, scale);
            prop_assert_eq!(f.iter().map(|&f| u64::from(f)).sum::<u64>(), 1u64 << scale);
            prop_assert!(f.iter().all(|&f| f >= 1));
        }
    }

    #[test]
    fn a_skewed_stream_costs_about_its_entropy() {
        // 30,000 symbols, p = 0.9, 0.09, 0.01: entropy 0.516 bits each.
        let symbols: Vec<u32> = (0..30_000u32)
            .map(|i| match i % 100 {
                0 => 2,
                1..=9 => 1,
                _ => 0,
            })
            .collect();
        let bytes = round_trip(&symbols, 3).len() as f64;
        let entropy = 30_000.0 * 0.516 / 8.0;
        assert!(
            bytes < entropy * 1.01 + 20.0,
            "{bytes} bytes for {entropy:.0}"
        );
    }

    #[test]
    fn the_largest_alphabet_and_one_symbol_round_trip() {
        let big: Vec<u32> = (0..1u32 << MAX_SCALE).chain(0..100).collect();
        round_trip(&big, 1 << MAX_SCALE);
        round_trip(&[0; 1000], 1);
        let mut out = Vec::new();
        assert!(encode(&[0, 1], (1 << MAX_SCALE) + 1, &mut out).is_none());
    }

    #[test]
    fn damaged_streams_are_refused() {
        let symbols: Vec<u32> = (0..5000u32).map(|i| (i * 7919) % 13).collect();
        let good = round_trip(&symbols, 13);
        let decode_all = |bytes: &[u8]| decode(&mut ByteReader::new(bytes), 13, symbols.len());
        // A byte of the states or the stream flipped: refused, or another
        // stream of symbols. rANS maps streams to symbols one to one, so a
        // change of a state by a symbol's frequency is a change of symbol
        // (with near-equal frequencies, often of one symbol only), which
        // the end check cannot catch: the section's CRC-32 is the integrity
        // check. What must hold is that no two streams decode to the same
        // symbols (the coding of a release is unique). The frequency
        // table's padding bits are not checked (as no coded stream's are):
        // there a flip must only not panic.
        let mut r = ByteReader::new(&good);
        r.byte("scale").unwrap();
        read_frequencies(&mut r, 13).unwrap();
        let states = r.position();
        let mut refused = 0;
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x10;
            match decode_all(&bad) {
                Ok(decoded) if i >= states => {
                    assert!(decoded != symbols, "byte {i}: two codings of one stream")
                }
                Ok(_) => {}
                Err(_) => refused += 1,
            }
        }
        assert!(
            refused > states,
            "{refused} of {} flips refused",
            good.len()
        );
        assert!(decode_all(&good[..good.len() - 2]).is_err(), "truncated");
        let mut longer = good.clone();
        longer.extend_from_slice(&[0, 0]);
        assert!(decode_all(&longer).is_err(), "trailing words");
        assert!(decode(&mut ByteReader::new(&good), 13, symbols.len() - 1).is_err());
    }
}
