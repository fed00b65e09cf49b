//! Sequences of 64-bit integers (`spec/CODING.md` 5.2): the mantissas of a
//! numeric column and the rows of its exceptions.
//!
//! Each sequence is turned into unsigned numbers (offsets from the minimum,
//! or differences from the previous value) and these are either bit-packed
//! in one width or split into a Huffman-coded bucket (bit length and the bit
//! below the top) and the raw bits under it: uniform values cost their
//! width, skewed ones less, and a constant step (ids 0..n) nothing per row.
//! The encoder computes every candidate's exact size and writes the smallest.

use bitstream_io::{BitRead, BitWrite};

use super::super::CodecError;
use super::super::bytes::{ByteReader, put_coded, put_varint, unzigzag, zigzag};
use super::super::rans;
use crate::huffman::{self, bit_width};

/// Offsets from the minimum (the base).
const OFFSETS: u8 = 0;
/// Zigzag differences from the previous value (the base is the first).
const DELTAS: u8 = 1;
/// Differences from the previous value of a non-decreasing sequence.
const STEPS: u8 = 2;

/// Every number in `w` bits.
const PACKED: u8 = 0;
/// A Huffman-coded bucket per number, then the bits under each bucket.
const BUCKETS: u8 = 1;

/// Bucket symbols: 0..=3 for the numbers 0..=3, then two per bit length
/// 3..=64 (the bit below the top one).
const BUCKET_SYMBOLS: usize = 4 + 2 * 62;

/// A number's bucket symbol and how many raw bits follow it.
fn bucket(u: u64) -> (u32, u32) {
    if u < 4 {
        return (u as u32, 0);
    }
    let len = bit_width(u);
    let below_top = ((u >> (len - 2)) & 1) as u32;
    (4 + 2 * (len - 3) + below_top, len - 2)
}

/// The number of bucket `symbol` whose raw bits are `low`, and how many
/// raw bits the bucket has.
fn raw_bits(symbol: u32) -> u32 {
    if symbol < 4 { 0 } else { (symbol - 4) / 2 + 1 }
}

fn from_bucket(symbol: u32, low: u64) -> u64 {
    if symbol < 4 {
        return u64::from(symbol);
    }
    let len = (symbol - 4) / 2 + 3;
    let top = (2 | u64::from(symbol & 1)) << (len - 2);
    top | low
}

/// The unsigned numbers of a transform, or `None` when it does not apply.
fn transformed(values: &[i64], transform: u8) -> Option<(i64, Vec<u64>)> {
    let first = *values.first()?;
    let pairs = values.windows(2).map(|w| (w[0], w[1]));
    match transform {
        OFFSETS => {
            let min = *values.iter().min()?;
            Some((
                min,
                values.iter().map(|&v| v.wrapping_sub(min) as u64).collect(),
            ))
        }
        DELTAS => Some((
            first,
            pairs.map(|(a, b)| zigzag(b.wrapping_sub(a))).collect(),
        )),
        _ => {
            let steps: Option<Vec<u64>> = pairs
                .map(|(a, b)| (b >= a).then(|| b.wrapping_sub(a) as u64))
                .collect();
            Some((first, steps?))
        }
    }
}

/// Symbols coded by a Huffman code (2.3).
const SYMBOLS_HUFFMAN: u8 = 0;
/// Symbols coded by static rANS (4.3) over the symbols that occur: a
/// dominant symbol costs a fraction of a bit, not Huffman's whole bit.
const SYMBOLS_RANS: u8 = 1;

/// Appends `symbols` (each below `alphabet`) in the smaller of the two
/// entropy codings.
pub(super) fn put_symbols(out: &mut Vec<u8>, alphabet: usize, symbols: &[u32]) {
    let mut huffman = vec![SYMBOLS_HUFFMAN];
    put_coded(&mut huffman, alphabet, symbols);
    let mut used = vec![false; alphabet];
    for &s in symbols {
        used[s as usize] = true;
    }
    let mut dense = vec![u32::MAX; alphabet];
    let mut mask = vec![0u8; alphabet.div_ceil(8)];
    let mut count = 0u32;
    for s in 0..alphabet {
        if used[s] {
            dense[s] = count;
            count += 1;
            mask[s / 8] |= 0x80 >> (s % 8);
        }
    }
    let dense_symbols: Vec<u32> = symbols.iter().map(|&s| dense[s as usize]).collect();
    let mut stream = Vec::new();
    if rans::encode(&dense_symbols, count as usize, &mut stream).is_some()
        && mask.len() + stream.len() + 2 + varint_len(stream.len() as u64) as usize <= huffman.len()
    {
        out.push(SYMBOLS_RANS);
        out.extend_from_slice(&mask);
        put_varint(out, stream.len() as u64);
        out.extend_from_slice(&stream);
    } else {
        out.extend_from_slice(&huffman);
    }
}

/// Reads `n` symbols over `alphabet` written by [`put_symbols`].
pub(super) fn read_symbols(
    r: &mut ByteReader<'_>,
    what: &'static str,
    alphabet: usize,
    n: usize,
) -> Result<Vec<u32>, CodecError> {
    match r.byte(what)? {
        SYMBOLS_HUFFMAN => r.coded(what, alphabet, n),
        SYMBOLS_RANS => {
            let mask = r.take(alphabet.div_ceil(8) as u64, what)?;
            let used: Vec<u32> = (0..alphabet as u32)
                .filter(|&s| mask[s as usize / 8] & (0x80 >> (s % 8)) != 0)
                .collect();
            let len = r.varint(what)?;
            let mut stream = ByteReader::new(r.take(len, what)?);
            if used.is_empty() {
                return Err(CodecError::Invalid {
                    what,
                    detail: "no symbol in the rANS alphabet".to_owned(),
                });
            }
            let dense = rans::decode(&mut stream, used.len(), n)?;
            Ok(dense.into_iter().map(|d| used[d as usize]).collect())
        }
        id => Err(CodecError::UnknownLayout {
            what,
            id,
            known: "0 Huffman, 1 rANS",
        }),
    }
}

/// The coded form of `numbers`, after the transform's fields: the smaller
/// of bit-packing and buckets.
fn coded(numbers: &[u64]) -> Vec<u8> {
    let width = numbers.iter().map(|&u| bit_width(u)).max().unwrap_or(0);
    let packed = 2 + (numbers.len() as u64 * u64::from(width)).div_ceil(8);
    let mut symbols = Vec::with_capacity(numbers.len());
    let mut raw = 0u64;
    for &u in numbers {
        let (s, bits) = bucket(u);
        symbols.push(s);
        raw += u64::from(bits);
    }
    let mut out = vec![BUCKETS];
    put_symbols(&mut out, BUCKET_SYMBOLS, &symbols);
    let mut w = huffman::writer();
    if out.len() as u64 + raw.div_ceil(8) < packed {
        for (&u, &s) in numbers.iter().zip(&symbols) {
            let bits = raw_bits(s);
            if bits > 0 {
                w.write_var::<u64>(bits, u & ((1u64 << bits) - 1))
                    .expect("writing to memory");
            }
        }
    } else {
        out = vec![PACKED, width as u8];
        if width > 0 {
            for &u in numbers {
                w.write_var::<u64>(width, u).expect("writing to memory");
            }
        }
    }
    w.byte_align().expect("writing to memory");
    out.extend_from_slice(&w.into_writer());
    out
}

/// Appends `values` (their count is known to the reader): nothing for none.
pub(super) fn put_integers(out: &mut Vec<u8>, values: &[i64]) {
    let mut best: Option<Vec<u8>> = None;
    for transform in [OFFSETS, DELTAS, STEPS] {
        let Some((base, numbers)) = transformed(values, transform) else {
            continue;
        };
        let mut candidate = vec![transform];
        put_varint(&mut candidate, zigzag(base));
        candidate.extend_from_slice(&coded(&numbers));
        if best.as_ref().is_none_or(|b| candidate.len() < b.len()) {
            best = Some(candidate);
        }
    }
    if let Some(best) = best {
        out.extend_from_slice(&best);
    }
}

fn varint_len(v: u64) -> u64 {
    u64::from(bit_width(v).max(1).div_ceil(7))
}

// Long: two matches in stored order: the integer coding by its id, then the transform that turns
// the codes back into values
/// Reads `n` values written by [`put_integers`].
pub(super) fn read_integers(r: &mut ByteReader<'_>, n: usize) -> Result<Vec<i64>, CodecError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let transform = r.byte("integer transform")?;
    if transform > STEPS {
        return Err(CodecError::UnknownLayout {
            what: "integer transform",
            id: transform,
            known: "0 offsets, 1 deltas, 2 steps",
        });
    }
    let base = unzigzag(r.varint("integer base")?);
    let count = if transform == OFFSETS { n } else { n - 1 };
    let truncated = |what| CodecError::Truncated {
        what,
        offset: 0,
        needed: 1,
        available: 0,
    };
    let numbers: Vec<u64> = match r.byte("integer coding")? {
        PACKED => {
            let width = u32::from(r.byte("packed width")?);
            if width > 64 {
                return Err(CodecError::Invalid {
                    what: "packed width",
                    detail: format!("{width} bits (expected at most 64)"),
                });
            }
            let bytes = r.take(
                (count as u64 * u64::from(width)).div_ceil(8),
                "packed integers",
            )?;
            if width == 0 {
                vec![0; count]
            } else {
                let mut br = huffman::reader(bytes);
                (0..count)
                    .map(|_| {
                        br.read_var::<u64>(width)
                            .map_err(|_| truncated("packed integers"))
                    })
                    .collect::<Result<_, _>>()?
            }
        }
        BUCKETS => {
            let symbols = read_symbols(r, "integer buckets", BUCKET_SYMBOLS, count)?;
            let bits: u64 = symbols.iter().map(|&s| u64::from(raw_bits(s))).sum();
            let bytes = r.take(bits.div_ceil(8), "integer raw bits")?;
            let mut br = huffman::reader(bytes);
            symbols
                .iter()
                .map(|&s| {
                    let bits = raw_bits(s);
                    let low = if bits == 0 {
                        0
                    } else {
                        br.read_var::<u64>(bits)
                            .map_err(|_| truncated("integer raw bits"))?
                    };
                    Ok(from_bucket(s, low))
                })
                .collect::<Result<_, CodecError>>()?
        }
        id => {
            return Err(CodecError::UnknownLayout {
                what: "integer coding",
                id,
                known: "0 packed, 1 buckets",
            });
        }
    };
    let mut values = Vec::with_capacity(n);
    match transform {
        OFFSETS => values.extend(numbers.iter().map(|&u| base.wrapping_add(u as i64))),
        _ => {
            let mut v = base;
            values.push(v);
            for &u in &numbers {
                v = v.wrapping_add(if transform == DELTAS {
                    unzigzag(u)
                } else {
                    u as i64
                });
                values.push(v);
            }
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn round_trip(values: &[i64]) -> usize {
        let mut out = Vec::new();
        put_integers(&mut out, values);
        let mut r = ByteReader::new(&out);
        assert_eq!(read_integers(&mut r, values.len()).unwrap(), values);
        r.finish("integers").unwrap();
        out.len()
    }

    #[test]
    fn buckets_round_trip_every_bit_length() {
        for len in 0..=64u32 {
            for u in [
                if len == 0 { 0 } else { 1u64 << (len - 1) },
                if len == 0 { 0 } else { u64::MAX >> (64 - len) },
            ] {
                let (s, bits) = bucket(u);
                assert!((s as usize) < BUCKET_SYMBOLS);
                assert_eq!(raw_bits(s), bits);
                let low = if bits == 0 {
                    0
                } else {
                    u & ((1u64 << bits) - 1)
                };
                assert_eq!(from_bucket(s, low), u, "{u}");
            }
        }
    }

    #[test]
    fn a_constant_step_costs_a_few_bytes() {
        let ids: Vec<i64> = (0..100_000).collect();
        assert!(round_trip(&ids) < 24, "{}", round_trip(&ids));
        let extremes = [i64::MIN, i64::MAX, 0, -1, i64::MIN, 1];
        round_trip(&extremes);
        round_trip(&[]);
        round_trip(&[i64::MIN]);
    }

    proptest! {
        #[test]
        fn integers_round_trip(values in prop::collection::vec(prop_oneof![any::<i64>(), -50i64..50, 0i64..1_000_000_000], 0..200)) {
            round_trip(&values);
        }
    }
}
