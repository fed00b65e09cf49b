//! The width symbols of mode 3's stored tables (`spec/CODING.md` 6.5):
//! order-0 Huffman, or range-coded under the previous width of the same
//! table, whichever is smaller.
//!
//! A numeric QI's frequencies change little from one value to the next
//! (age 37's count is near age 36's), so its widths are mostly the
//! previous one again: on Adult (Datafly, k = 5) age's six tables of 100
//! widths take 101 bytes so against 207 as Huffman. A categorical QI's
//! alphabet has no such order, and Huffman stays.

use crate::codec::CodecError;
use crate::codec::bytes::{ByteReader, put_coded, put_varint};
use crate::codec::range::{Models, RangeDecoder, RangeEncoder, decode_symbol, encode_symbol};

/// Layout byte: a Huffman coded stream (2.3).
const HUFFMAN: u8 = 0;
/// Layout byte: a length, then a range-coded stream (6.4).
const BY_PREVIOUS: u8 = 1;

/// The widths of the tables of `sizes` positions each, range-coded: each
/// under the context of the width before it in its table (`alphabet` for
/// a table's first).
fn range_coded(alphabet: u32, sizes: &[usize], widths: &[u32]) -> Vec<u8> {
    let mut models = Models::new(u64::from(alphabet) + 1);
    let bits = crate::codec::range::width(alphabet);
    let mut enc = RangeEncoder::default();
    let mut rest = widths;
    for &size in sizes {
        let (table, after) = rest.split_at(size);
        let mut previous = alphabet;
        for &w in table {
            let mut block = models.block(u64::from(previous), bits);
            encode_symbol(&mut enc, &mut block, w, alphabet);
            previous = w;
        }
        rest = after;
    }
    enc.finish()
}

/// Appends `widths` (each below `alphabet`), the tables' in order (`sizes`
/// positions each), in the smaller layout.
pub(super) fn put_widths(out: &mut Vec<u8>, alphabet: u32, sizes: &[usize], widths: &[u32]) {
    let mut huffman = Vec::new();
    put_coded(&mut huffman, alphabet as usize, widths);
    let ranged = range_coded(alphabet, sizes, widths);
    let mut by_previous = Vec::with_capacity(ranged.len() + 4);
    put_varint(&mut by_previous, ranged.len() as u64);
    by_previous.extend_from_slice(&ranged);
    if by_previous.len() < huffman.len() {
        out.push(BY_PREVIOUS);
        out.extend_from_slice(&by_previous);
    } else {
        out.push(HUFFMAN);
        out.extend_from_slice(&huffman);
    }
}

/// Reads what [`put_widths`] wrote for tables of `sizes` positions.
pub(super) fn read_widths(
    s: &mut ByteReader<'_>,
    alphabet: u32,
    sizes: &[usize],
) -> Result<Vec<u32>, CodecError> {
    const WHAT: &str = "per-value-rans frequency widths";
    let total: usize = sizes.iter().sum();
    match s.byte(WHAT)? {
        HUFFMAN => s.coded(WHAT, alphabet as usize, total),
        BY_PREVIOUS => {
            let len = s.varint(WHAT)?;
            let bytes = s.take(len, WHAT)?;
            let mut dec = RangeDecoder::new(bytes);
            let mut models = Models::new(u64::from(alphabet) + 1);
            let bits = crate::codec::range::width(alphabet);
            let mut widths = Vec::with_capacity(total.min(bytes.len() * 8 + 64));
            for &size in sizes {
                let mut previous = alphabet;
                for _ in 0..size {
                    // A symbol takes at least a fraction of a bit: a stream
                    // read far past its end is corrupt.
                    if dec.overrun() {
                        return Err(CodecError::Truncated {
                            what: WHAT,
                            offset: bytes.len() as u64,
                            needed: bytes.len() as u64 + 8,
                            available: bytes.len() as u64,
                        });
                    }
                    let mut block = models.block(u64::from(previous), bits);
                    let w = decode_symbol(&mut dec, &mut block, alphabet);
                    widths.push(w);
                    previous = w;
                }
            }
            dec.finish(WHAT)?;
            Ok(widths)
        }
        other => Err(CodecError::Invalid {
            what: WHAT,
            detail: format!("layout {other} (expected 0 or 1)"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(sizes: &[usize], widths: &[u32]) -> (u8, Vec<u32>) {
        let mut out = Vec::new();
        put_widths(&mut out, 18, sizes, widths);
        let mut s = ByteReader::new(&out);
        let back = read_widths(&mut s, 18, sizes).unwrap();
        s.finish("widths").unwrap();
        (out[0], back)
    }

    /// Smooth tables (a numeric QI's) take the range-coded layout, others
    /// Huffman; both give the widths back.
    #[test]
    fn widths_round_trip_in_the_smaller_layout() {
        let smooth: Vec<u32> = (0..400).map(|i| 4 + (i % 100) / 30).collect();
        let (layout, back) = round_trip(&[100, 100, 100, 100], &smooth);
        assert_eq!((layout, back), (BY_PREVIOUS, smooth));
        let jumpy: Vec<u32> = [3u32, 9, 1, 12, 0, 7, 5, 2].to_vec();
        let (layout, back) = round_trip(&[5, 3], &jumpy);
        assert_eq!((layout, back), (HUFFMAN, jumpy));
        assert_eq!(round_trip(&[], &[]).1, Vec::<u32>::new());
        assert_eq!(round_trip(&[0, 0], &[]).1, Vec::<u32>::new());
    }

    /// A range-coded stream cut short, with a byte too many, or of an
    /// unknown layout is refused.
    #[test]
    fn damaged_widths_are_refused() {
        let smooth: Vec<u32> = (0..400).map(|i| 4 + (i % 100) / 30).collect();
        let mut out = Vec::new();
        put_widths(&mut out, 18, &[400], &smooth);
        assert_eq!(out[0], BY_PREVIOUS);
        let sizes = [400];
        let mut longer = out.clone();
        longer[1] += 1;
        longer.push(0);
        assert!(read_widths(&mut ByteReader::new(&longer), 18, &sizes).is_err());
        let mut shorter = out.clone();
        shorter[1] -= 1;
        shorter.pop();
        assert!(read_widths(&mut ByteReader::new(&shorter), 18, &sizes).is_err());
        let mut unknown = out.clone();
        unknown[0] = 2;
        assert!(read_widths(&mut ByteReader::new(&unknown), 18, &sizes).is_err());
        // Far more widths than the bytes can hold.
        assert!(read_widths(&mut ByteReader::new(&out), 18, &[1 << 24]).is_err());
    }
}
