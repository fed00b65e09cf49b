//! Mode 3's stored frequency tables (`spec/CODING.md` 6.5): each position's
//! width symbol ([`widths`]), then the bits below each frequency's top bit,
//! except for each table's *implied* position, whose frequency is what the
//! others leave of `2^scale`.
//!
//! A table's frequencies sum to `2^scale`, so one of them is redundant: the
//! first position of the largest width (the most frequent value, or one
//! as wide), which has the most low bits, is the one left out. On Adult
//! (Datafly, k = 5) that is 47 of the section's 262 bytes of low bits.

use super::widths;
use crate::codec::CodecError;
use crate::codec::bytes::ByteReader;
use crate::huffman;
use bitstream_io::{BitRead, BitWrite};

/// The position whose frequency is implied: the first of the largest width
/// (`None` for an empty table).
fn implied<T: Copy + Ord>(widths: &[T]) -> Option<usize> {
    let largest = *widths.iter().max()?;
    widths.iter().position(|&w| w == largest)
}

/// The width symbol of a frequency: 0 for 0, else `1 + floor(log2 f)`.
fn width_of(f: u32) -> u32 {
    if f == 0 { 0 } else { f.ilog2() + 1 }
}

/// Appends the stored tables `tables` (each a frequency per position,
/// summing to a power of two): their widths (over `alphabet` symbols),
/// then the low bits of every frequency above 1 but each table's implied
/// one, padded to a byte.
pub(super) fn put_frequencies(out: &mut Vec<u8>, alphabet: u32, tables: &[&[u32]]) {
    let widths: Vec<u32> = tables
        .iter()
        .flat_map(|t| t.iter().map(|&f| width_of(f)))
        .collect();
    let sizes: Vec<usize> = tables.iter().map(|t| t.len()).collect();
    widths::put_widths(out, alphabet, &sizes, &widths);
    let mut w = huffman::writer();
    for table in tables {
        let table_widths: Vec<u32> = table.iter().map(|&f| width_of(f)).collect();
        let skip = implied(&table_widths);
        for (p, &f) in table.iter().enumerate() {
            if f > 1 && Some(p) != skip {
                let top = f.ilog2();
                w.write_var::<u32>(top, f & ((1 << top) - 1))
                    .expect("writing to memory");
            }
        }
    }
    w.byte_align().expect("writing to memory");
    out.extend_from_slice(&w.into_writer());
}

/// Reads what [`put_frequencies`] wrote for tables of `sizes` positions
/// and `scales`: every frequency, table after table. A table's implied
/// frequency must be what the others leave of `2^scale` and have its
/// width (so that the table sums to `2^scale`).
pub(super) fn read_frequencies(
    s: &mut ByteReader<'_>,
    alphabet: u32,
    sizes: &[usize],
    scales: &[u32],
) -> Result<Vec<u32>, CodecError> {
    const WHAT: &str = "per-value-rans frequency bits";
    let widths = widths::read_widths(s, alphabet, sizes)?;
    let mut skips = Vec::with_capacity(sizes.len());
    let mut bits = 0u64;
    let mut start = 0;
    for &size in sizes {
        let table = &widths[start..start + size];
        let skip = implied(table);
        bits += table
            .iter()
            .enumerate()
            .filter(|&(p, &w)| w > 1 && Some(p) != skip)
            .map(|(_, &w)| u64::from(w - 1))
            .sum::<u64>();
        skips.push(skip);
        start += size;
    }
    let mut reader = huffman::reader(s.take(bits.div_ceil(8), WHAT)?);
    let mut freqs = Vec::with_capacity(widths.len());
    let mut start = 0;
    for ((&size, &scale), skip) in sizes.iter().zip(scales).zip(skips) {
        let table = &widths[start..start + size];
        let first = freqs.len();
        for (p, &w) in table.iter().enumerate() {
            let f = match w {
                0 => 0,
                _ if Some(p) == skip => 0,
                1 => 1,
                _ => {
                    let low: u32 = reader
                        .read_var(w - 1)
                        .expect("the field holds every frequency's bits");
                    1 << (w - 1) | low
                }
            };
            freqs.push(f);
        }
        if let Some(p) = skip {
            let others: u64 = freqs[first..].iter().map(|&f| u64::from(f)).sum();
            let rest = (1u64 << scale).saturating_sub(others);
            let w = table[p];
            if w == 0 || rest >> (w - 1) != 1 {
                return Err(CodecError::Invalid {
                    what: WHAT,
                    detail: format!(
                        "a table of scale {scale}: the implied frequency {rest} (2^{scale} less \
                         the others' {others}) does not have its width {w}"
                    ),
                });
            }
            freqs[first + p] = rest as u32;
        }
        start += size;
    }
    Ok(freqs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(tables: &[&[u32]], scales: &[u32]) -> Vec<u32> {
        let mut out = Vec::new();
        put_frequencies(&mut out, 18, tables);
        let sizes: Vec<usize> = tables.iter().map(|t| t.len()).collect();
        let mut s = ByteReader::new(&out);
        let back = read_frequencies(&mut s, 18, &sizes, scales).unwrap();
        s.finish("frequencies").unwrap();
        back
    }

    /// Tables of any shape come back: ties of the largest width (the
    /// first is implied), one value holding the whole scale, scale 0, an
    /// empty table, zeros before the largest.
    #[test]
    fn frequencies_round_trip_with_the_largest_implied() {
        let tables: [&[u32]; 6] = [
            &[3, 9, 12, 0, 8],
            &[0, 0, 4096, 0],
            &[1],
            &[],
            &[0, 1, 1, 2],
            &[5, 1, 5, 5],
        ];
        let scales = [5, 12, 0, 0, 2, 4];
        let all: Vec<u32> = tables.iter().flat_map(|t| t.iter().copied()).collect();
        assert_eq!(round_trip(&tables, &scales), all);
    }

    /// The implied frequency is not stored: the low bits are those of the
    /// other frequencies only (of 3, 9, 12, 8, the first of width 4, 9, is
    /// implied: 3, 12 and 8 take 1 + 3 + 3 bits, one byte).
    #[test]
    fn the_implied_frequency_costs_no_low_bits() {
        let mut with = Vec::new();
        put_frequencies(&mut with, 18, &[&[3, 9, 12, 0, 8]]);
        let mut widths = Vec::new();
        widths::put_widths(&mut widths, 18, &[5], &[2, 4, 4, 0, 4]);
        assert_eq!(with.len(), widths.len() + 1);
    }

    /// Must reject: the others leave the implied position less than its
    /// width's least value, more than its largest, or nothing at all.
    #[test]
    fn an_implied_frequency_outside_its_width_is_refused() {
        let mut out = Vec::new();
        put_frequencies(&mut out, 18, &[&[3, 9, 12, 0, 8]]);
        for scale in [4, 6, 3, 0] {
            let mut s = ByteReader::new(&out);
            let e = read_frequencies(&mut s, 18, &[5], &[scale]).unwrap_err();
            assert!(e.to_string().contains("implied frequency"), "{e}");
        }
        // A table of zeros: its implied position has width 0.
        let mut out = Vec::new();
        put_frequencies(&mut out, 18, &[&[0, 0]]);
        let mut s = ByteReader::new(&out);
        assert!(read_frequencies(&mut s, 18, &[2], &[1]).is_err());
    }
}
