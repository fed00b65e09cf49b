//! Index coding 2 of the dictionary layout (`spec/CODING.md` 5): each
//! row's index coded under the previous row's, with the binary adaptive
//! range coder of the `context` mode (`codec::range`, 6.4).
//!
//! A short code or category (sex, race, a status) is often not independent
//! of the row before it: tables are written in runs (by date, by site, by
//! household), and a generated stream resamples rows in blocks. Huffman's
//! order-0 code cannot see that and spends at least a bit a row; PPMd sees
//! it through the texts, at a tenth of the decoding speed. Conditioning on
//! the previous index codes a run's rows at a fraction of a bit and decodes
//! at the range coder's pace.

use super::super::CodecError;
use super::super::bytes::ByteReader;
use super::super::range::{self, Models, RangeDecoder, RangeEncoder};

/// The most texts a dictionary coded this way may hold: the models are
/// `(d + 1) * 2^bitwidth(d - 1)` counts, at most 257 * 256.
pub(super) const MAX_TEXTS: usize = 256;

/// The range-coded indices of `stored` (each below `texts`, which is 2 to
/// [`MAX_TEXTS`]), row `r` under the context of row `r - 1`'s index
/// (`texts` for row 0).
pub(super) fn encode(texts: usize, stored: &[u32]) -> Vec<u8> {
    debug_assert!((2..=MAX_TEXTS).contains(&texts));
    let size = texts as u32;
    let width = range::width(size);
    let mut models = Models::new(texts as u64 + 1);
    let mut enc = RangeEncoder::default();
    let mut previous = size;
    for &i in stored {
        let mut block = models.block(u64::from(previous), width);
        range::encode_symbol(&mut enc, &mut block, i, size);
        previous = i;
    }
    enc.finish()
}

/// Decodes `rows` indices coded by [`encode`] from the rest of `r`, which
/// the stream must fill exactly.
pub(super) fn decode(
    r: &mut ByteReader<'_>,
    texts: usize,
    rows: usize,
) -> Result<Vec<u32>, CodecError> {
    if !(2..=MAX_TEXTS).contains(&texts) {
        return Err(CodecError::Invalid {
            what: "plain row indices (previous-row coding)",
            detail: format!("a dictionary of {texts} texts, where it needs 2 to {MAX_TEXTS}"),
        });
    }
    let bytes = r.rest();
    let size = texts as u32;
    let width = range::width(size);
    let mut models = Models::new(texts as u64 + 1);
    let mut dec = RangeDecoder::new(bytes);
    // A row costs at least a few thousandths of a bit (the models' counts
    // are halved at 1024): room for what the bytes can hold, not for what
    // a forged count says.
    let mut out = Vec::with_capacity(rows.min(bytes.len().saturating_mul(64).max(1024)));
    let mut previous = size;
    for _ in 0..rows {
        if dec.overrun() {
            break;
        }
        let mut block = models.block(u64::from(previous), width);
        let i = range::decode_symbol(&mut dec, &mut block, size);
        out.push(i);
        previous = i;
    }
    dec.finish("plain row indices (previous-row coding)")?;
    if out.len() != rows {
        return Err(CodecError::CountMismatch {
            what: "plain row indices (previous-row coding)",
            expected: rows as u64,
            found: out.len() as u64,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn indices_round_trip(texts in 2usize..=MAX_TEXTS, picks in prop::collection::vec(any::<u32>(), 0..2000)) {
            let stored: Vec<u32> = picks.iter().map(|p| p % texts as u32).collect();
            let bytes = encode(texts, &stored);
            let mut r = ByteReader::new(&bytes);
            prop_assert_eq!(decode(&mut r, texts, stored.len()).unwrap(), stored);
        }
    }

    proptest! {
        /// A stream with a byte changed never panics: it is refused, or
        /// gives as many indices as asked, each below the dictionary's size.
        #[test]
        fn changed_streams_fail_or_stay_in_range(at in any::<usize>(), xor in 1u8..=255, texts in 2usize..40) {
            let stored: Vec<u32> = (0..3000u32).map(|r| (r / 17 + r % 3) % texts as u32).collect();
            let mut bytes = encode(texts, &stored);
            let at = at % bytes.len();
            bytes[at] ^= xor;
            let mut r = ByteReader::new(&bytes);
            if let Ok(back) = decode(&mut r, texts, stored.len()) {
                prop_assert_eq!(back.len(), stored.len());
                prop_assert!(back.iter().all(|&i| (i as usize) < texts));
            }
        }
    }

    /// Runs cost a fraction of a bit a row, well under Huffman's one.
    #[test]
    fn runs_cost_less_than_a_bit_a_row() {
        let stored: Vec<u32> = (0..100_000u32).map(|r| (r / 1000) % 3).collect();
        assert!(encode(3, &stored).len() < 100_000 / 8 / 20);
    }

    /// A count the stream cannot hold, a dictionary too large or too small,
    /// bytes left after the stream and a cut stream are refused.
    #[test]
    fn forged_streams_are_refused() {
        let stored: Vec<u32> = (0..5000u32).map(|r| r * 7 % 5).collect();
        let bytes = encode(5, &stored);
        let decode_of = |b: &[u8], texts: usize, rows: usize| {
            let mut r = ByteReader::new(b);
            decode(&mut r, texts, rows)
        };
        assert!(decode_of(&bytes, 5, 5000).is_ok());
        assert!(decode_of(&bytes, 5, 1 << 30).is_err());
        assert!(decode_of(&bytes, 1, 5000).is_err());
        assert!(decode_of(&bytes, 257, 5000).is_err());
        assert!(decode_of(&[&bytes[..], &[0]].concat(), 5, 5000).is_err());
        assert!(decode_of(&bytes[..bytes.len() / 2], 5, 5000).is_err());
    }
}
