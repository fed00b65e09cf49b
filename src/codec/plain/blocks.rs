//! Layout 8 (`spec/CODING.md` 5.9): a long text stream in PPMd blocks of
//! about [`BLOCK`] bytes of text, each a layout 7 body of its own rows that
//! decodes alone, so that a reader decodes them on all its threads. PPMd
//! decodes at 40 to 90 MB/s on one thread: the 55 MB free-text column of
//! `gen-table mixed` took 1.3 s, the longest part of its restore.

use super::super::CodecError;
use super::super::bytes::{ByteReader, put_varint};
use super::super::cells::{ColumnRows, Purpose};
use super::texts;
use crate::dictionary::Dictionary;

/// About this many bytes of text a block (each row whole in one block):
/// each restart of the model costs about half a percent of the column.
pub(super) const BLOCK: usize = 8 << 20;

/// Layout 8's fields for rows `rows` of `texts`, cut into blocks of about
/// `block` bytes of text, each coded as layout 7 codes a large stream.
/// `None` when there would be one block, or when a block's PPMd code is
/// refused as layout 7's would be.
pub(super) fn encode(texts: &[&str], rows: &[u32], block: usize) -> Option<Vec<u8>> {
    let mut cuts = vec![0usize];
    let mut bytes = 0usize;
    for (i, &t) in rows.iter().enumerate() {
        bytes += texts[t as usize].len() + 1;
        if bytes >= block && i + 1 < rows.len() {
            cuts.push(i + 1);
            bytes = 0;
        }
    }
    cuts.push(rows.len());
    if cuts.len() < 3 {
        return None;
    }
    let bodies: Vec<Vec<u8>> = cuts
        .windows(2)
        .map(|w| texts::encode_ppmd_large(texts, &rows[w[0]..w[1]]))
        .collect::<Option<_>>()?;
    let mut out = Vec::with_capacity(bodies.iter().map(|b| b.len() + 10).sum());
    put_varint(&mut out, bodies.len() as u64);
    for (w, body) in cuts.windows(2).zip(&bodies) {
        put_varint(&mut out, (w[1] - w[0]) as u64);
        put_varint(&mut out, body.len() as u64);
    }
    for body in &bodies {
        out.extend_from_slice(body);
    }
    Some(out)
}

/// Decodes what [`encode`] wrote (the rest of `r`) into `rows` rows: the
/// blocks' rows must add up to `rows` and their bodies fill the rest
/// exactly; the blocks are decoded on the machine's threads (two at
/// most), their errors told in block order.
pub(super) fn decode(
    r: &mut ByteReader<'_>,
    rows: usize,
    purpose: Purpose,
) -> Result<(Dictionary, Vec<u32>), CodecError> {
    let count = r.count("PPMd blocks", 2)?;
    if count < 2 {
        return Err(CodecError::Invalid {
            what: "PPMd blocks",
            detail: format!("{count} (at least 2)"),
        });
    }
    let mut blocks = Vec::with_capacity(count);
    let (mut total_rows, mut total_bytes) = (0u64, 0u64);
    for _ in 0..count {
        let block_rows = r.varint("PPMd block rows")?;
        let len = r.varint("PPMd block length")?;
        if block_rows == 0 {
            return Err(CodecError::Invalid {
                what: "PPMd block rows",
                detail: "0 (at least 1)".to_owned(),
            });
        }
        total_rows = total_rows.saturating_add(block_rows);
        total_bytes = total_bytes.saturating_add(len);
        blocks.push((block_rows as usize, len as usize));
    }
    if total_rows != rows as u64 {
        return Err(CodecError::CountMismatch {
            what: "PPMd blocks' rows",
            expected: rows as u64,
            found: total_rows,
        });
    }
    let rest = r.rest();
    if total_bytes != rest.len() as u64 {
        return Err(CodecError::CountMismatch {
            what: "PPMd blocks' bytes",
            expected: rest.len() as u64,
            found: total_bytes,
        });
    }
    let mut bodies = Vec::with_capacity(count);
    let mut at = 0usize;
    for &(block_rows, len) in &blocks {
        bodies.push((block_rows, &rest[at..at + len]));
        at += len;
    }
    let streams = decode_blocks(&bodies)?;
    let mut column = ColumnRows::new(rows, purpose);
    for (stream, &(block_rows, _)) in streams.iter().zip(&bodies) {
        texts::push_rows(&mut column, stream, block_rows, "PPMd text stream")?;
    }
    Ok(column.finish())
}

/// Each block's text stream, in order; the first error in block order.
fn decode_blocks(bodies: &[(usize, &[u8])]) -> Result<Vec<Vec<u8>>, CodecError> {
    let decode = |b: usize| {
        let (rows, body) = bodies[b];
        let mut r = ByteReader::new(body);
        texts::ppmd_stream(&mut r, rows)
    };
    let jobs = crate::jobs::Jobs::new(bodies.len());
    std::thread::scope(|scope| {
        if crate::jobs::cores() >= 2 {
            scope.spawn(|| jobs.work(decode));
        }
        jobs.work(decode);
    });
    jobs.results().into_iter().collect()
}

#[cfg(test)]
mod tests {
    use rand_chacha::ChaCha8Rng;
    use rand_core::{Rng, SeedableRng};

    use super::super::tests::{column, hex, rows_of, strings};
    use super::super::*;

    /// Layout 8: blocks of a few rows each decode alone, on two threads, to
    /// the rows of the column, through the chooser's dispatch.
    #[test]
    fn ppmd_blocks_round_trip() {
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let words = ["north", "quiet", "stone", "light", "é", ""];
        let values: Vec<String> = (0..3000)
            .map(|i| {
                let n = rng.next_u32() % 5;
                let w: Vec<&str> = (0..n)
                    .map(|_| words[(rng.next_u32() % 6) as usize])
                    .collect();
                format!("{} {i}", w.join(" "))
            })
            .collect();
        let col = column(&values);
        let (texts, rows) = rows_of(&col);
        for block in [1, 100, 4000, 30_000] {
            let fields = blocks::encode(&texts, &rows, block).unwrap();
            let b = [&[LAYOUT_TEXTS_PPMD_BLOCKS][..], &fields].concat();
            for purpose in [Purpose::Values, Purpose::Rendering] {
                let back = decode_plain_for(&b, "c", values.len(), purpose).unwrap();
                assert!((0..values.len()).all(|r| back.text(r) == values[r]));
            }
        }
        // One block is layout 7's business.
        assert!(blocks::encode(&texts, &rows, 1 << 30).is_none());
    }

    /// Forged block tables are refused: fewer than two blocks, a block of no
    /// rows, rows or bytes that do not add up, a damaged block.
    #[test]
    fn forged_ppmd_blocks_are_refused() {
        let col = column(&strings(&["a", "bc", "def"]));
        let (texts, rows) = rows_of(&col);
        let bodies: Vec<Vec<u8>> = [0..1, 1..3]
            .into_iter()
            .map(|r| texts::encode_ppmd_large(&texts, &rows[r]).unwrap())
            .collect();
        let blob = |table: &[(u64, u64)], bodies: &[&[u8]]| {
            let mut b = vec![LAYOUT_TEXTS_PPMD_BLOCKS];
            put_varint(&mut b, table.len() as u64);
            for &(r, l) in table {
                put_varint(&mut b, r);
                put_varint(&mut b, l);
            }
            for body in bodies {
                b.extend_from_slice(body);
            }
            b
        };
        let (a, b) = (&bodies[0][..], &bodies[1][..]);
        let (la, lb) = (a.len() as u64, b.len() as u64);
        assert!(decode_plain(&blob(&[(1, la), (2, lb)], &[a, b]), "c", 3).is_ok());
        for (table, parts) in [
            (vec![(3, la + lb)], vec![a, b]),
            (vec![(0, la), (3, lb)], vec![a, b]),
            (vec![(1, la), (1, lb)], vec![a, b]),
            (vec![(2, la), (1, lb)], vec![a, b]),
            (vec![(1, la), (2, lb + 1)], vec![a, b]),
            (vec![(1, la), (2, lb)], vec![a, b, &[0][..]]),
            (vec![(1, la), (2, lb - 1)], vec![a, &b[..b.len() - 1]]),
            (vec![(1, lb), (2, la)], vec![b, a]),
        ] {
            let forged = blob(&table, &parts);
            assert!(decode_plain(&forged, "c", 3).is_err(), "{table:?}");
        }
        // A count the blob cannot hold.
        let mut huge = vec![LAYOUT_TEXTS_PPMD_BLOCKS];
        put_varint(&mut huge, 1 << 40);
        assert!(decode_plain(&huge, "c", 3).is_err());
    }

    /// The worked example of `spec/CODING.md` 5.9, byte for byte.
    #[test]
    fn spec_vector() {
        let col = column(&strings(&["a", "bc"]));
        let (texts, rows) = rows_of(&col);
        let b = [
            &[LAYOUT_TEXTS_PPMD_BLOCKS][..],
            &blocks::encode(&texts, &rows, 1).unwrap(),
        ]
        .concat();
        let back = decode_plain(&b, "c", 2).unwrap();
        assert!((0..2).all(|r| back.text(r) == ["a", "bc"][r]));
        assert_eq!(
            hex(&b),
            "08 02 01 0b 01 0c 02 04 10 00 61 9d 66 8c f7 38 00 03 04 10 00 62 03 fd 04 e9 44 88 00"
        );
    }
}
