//! Texts of one byte length coded position by position (`spec/CODING.md`
//! 5.7): codes, phone numbers, national ids and other fixed-shape texts,
//! whose bytes at each position follow their own distribution (a constant
//! dash, a digit, a capital letter). Each position is a symbol stream over
//! the bytes it holds, so a random digit costs its 3.3 bits and a constant
//! byte nothing: three-letter codes and phone numbers come below what LZMA2
//! and xz make of them, which find no repeated strings in random codes.

use super::super::CodecError;
use super::super::bytes::{ByteReader, put_varint};
use super::super::cells::{ColumnRows, Purpose};
use super::ints::{put_symbols, read_symbols};
use crate::dictionary::Dictionary;

/// The longest texts coded this way: longer texts of one length are rare
/// and better served by the dictionary or LZMA2, and the bound keeps the
/// decoder's row buffer at most 64 bytes a row.
pub(super) const MAX_WIDTH: usize = 64;

/// The fields after the layout byte, or `None` when the texts are not all
/// of one byte length between 1 and [`MAX_WIDTH`]. Every text of `texts`
/// must be used by a row.
pub(super) fn encode(texts: &[&str], rows: &[u32]) -> Option<Vec<u8>> {
    let width = texts.first()?.len();
    if width == 0 || width > MAX_WIDTH || texts.iter().any(|t| t.len() != width) {
        return None;
    }
    let mut out = Vec::new();
    put_varint(&mut out, width as u64);
    let mut symbols = Vec::with_capacity(rows.len());
    for p in 0..width {
        let mut present = [false; 256];
        for t in texts {
            present[t.as_bytes()[p] as usize] = true;
        }
        let bytes: Vec<u8> = (0..=255u8).filter(|&b| present[b as usize]).collect();
        let mut dense = [0u32; 256];
        for (i, &b) in bytes.iter().enumerate() {
            dense[b as usize] = i as u32;
        }
        out.push((bytes.len() - 1) as u8);
        out.extend_from_slice(&bytes);
        if bytes.len() > 1 {
            symbols.clear();
            symbols.extend(
                rows.iter()
                    .map(|&r| dense[texts[r as usize].as_bytes()[p] as usize]),
            );
            put_symbols(&mut out, bytes.len(), &symbols);
        }
    }
    Some(out)
}

/// Decodes what [`encode`] wrote (the rest of `r`) into `rows` rows of
/// valid UTF-8.
pub(super) fn decode(
    r: &mut ByteReader<'_>,
    rows: usize,
    purpose: Purpose,
) -> Result<(Dictionary, Vec<u32>), CodecError> {
    let width = r.varint("fixed text width")?;
    if width == 0 || width > MAX_WIDTH as u64 {
        return Err(CodecError::Invalid {
            what: "fixed text width",
            detail: format!("{width} bytes (1 to {MAX_WIDTH})"),
        });
    }
    let width = width as usize;
    // At most 64 bytes a row: the row count bounds it, as it bounds a
    // single-value column (spec/FORMAT.md §4, "Untrusted counts").
    let mut buf = vec![0u8; rows * width];
    for p in 0..width {
        let count = usize::from(r.byte("position byte count")?) + 1;
        let bytes = r.take(count as u64, "position bytes")?;
        if bytes.windows(2).any(|w| w[0] >= w[1]) {
            return Err(CodecError::Invalid {
                what: "position bytes",
                detail: format!("position {p}'s bytes are not strictly ascending"),
            });
        }
        if count == 1 {
            buf.iter_mut()
                .skip(p)
                .step_by(width)
                .for_each(|b| *b = bytes[0]);
        } else {
            let symbols = read_symbols(r, "position symbols", count, rows)?;
            for (b, &s) in buf.iter_mut().skip(p).step_by(width).zip(&symbols) {
                *b = bytes[s as usize];
            }
        }
    }
    let mut column = ColumnRows::new(rows, purpose);
    for (row, chunk) in buf.chunks_exact(width).enumerate() {
        let text = std::str::from_utf8(chunk).map_err(|e| CodecError::InvalidUtf8 {
            what: "fixed-width text",
            offset: (row * width + e.valid_up_to()) as u64,
        })?;
        column.push(text, |s| s.push_str(text));
    }
    Ok(column.finish())
}
