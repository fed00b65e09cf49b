//! Rows' texts through zstd (`spec/CODING.md` 5.4): free text and
//! near-unique codes, where a dictionary stores every text once anyway and
//! adds an index per row, compress better as one stream of the rows' texts.
//!
//! Each text ends with the byte `0xff`, which UTF-8 never uses: no escape,
//! and no length bytes between the texts to break zstd's matches (varint
//! lengths made a free-text column 13% larger).

use std::io::Read;

use super::super::CodecError;
use super::super::bytes::{ByteReader, put_varint};
use super::super::cells::{ColumnRows, Purpose};
use crate::dictionary::Dictionary;

/// zstd's level: on 1M rows of free text or codes, level 9 packs within a
/// few percent of level 19 at a fraction of its time (`spec/CODING.md`
/// 5.4 has the figures).
const LEVEL: i32 = 9;

/// Ends each text in the stream; never a byte of UTF-8.
const END: u8 = 0xff;

/// The fields after the layout byte: the stream's length, then the zstd
/// frame of each row's text followed by [`END`].
pub(super) fn encode(texts: &[&str], rows: &[u32]) -> Vec<u8> {
    let mut stream = Vec::new();
    for &t in rows {
        stream.extend_from_slice(texts[t as usize].as_bytes());
        stream.push(END);
    }
    let frame = zstd::bulk::compress(&stream, LEVEL).expect("zstd compresses to memory");
    let mut out = Vec::with_capacity(frame.len() + 10);
    put_varint(&mut out, stream.len() as u64);
    out.extend_from_slice(&frame);
    out
}

/// Decodes what [`encode`] wrote (the rest of `r`) into `rows` rows. The
/// frame is decompressed as a stream, never past the length stated, so a
/// forged length costs no more memory than the frame really holds.
pub(super) fn decode(
    r: &mut ByteReader<'_>,
    rows: usize,
    purpose: Purpose,
) -> Result<(Dictionary, Vec<u32>), CodecError> {
    let len = r.varint("text stream length")?;
    if len < rows as u64 {
        return Err(CodecError::Invalid {
            what: "text stream length",
            detail: format!("{len} bytes cannot hold {rows} rows' ends"),
        });
    }
    let frame = r.rest();
    let invalid = |detail: String| CodecError::Invalid {
        what: "zstd text stream",
        detail,
    };
    // The frame must fill the rest: nothing left over after it.
    match zstd::zstd_safe::find_frame_compressed_size(frame) {
        Ok(size) if size == frame.len() => {}
        Ok(size) => {
            return Err(CodecError::TrailingBytes {
                what: "zstd text stream",
                count: (frame.len() - size.min(frame.len())) as u64,
            });
        }
        Err(code) => return Err(invalid(zstd::zstd_safe::get_error_name(code).to_owned())),
    }
    let mut stream = Vec::new();
    zstd::stream::read::Decoder::with_buffer(frame)
        .map_err(|e| invalid(e.to_string()))?
        .single_frame()
        .take(len.saturating_add(1))
        .read_to_end(&mut stream)
        .map_err(|e| invalid(e.to_string()))?;
    if stream.len() as u64 != len {
        return Err(CodecError::CountMismatch {
            what: "zstd text stream length",
            expected: len,
            found: stream.len() as u64,
        });
    }
    let Some(body) = stream.strip_suffix(&[END]) else {
        return Err(invalid(
            "the stream does not end with a text's end (0xff)".to_owned(),
        ));
    };
    let mut column = ColumnRows::new(rows, purpose);
    let mut offset = 0usize;
    for text in body.split(|&b| b == END) {
        if column.len() == rows {
            return Err(CodecError::CountMismatch {
                what: "zstd text stream's texts (rows)",
                expected: rows as u64,
                found: body.split(|&b| b == END).count() as u64,
            });
        }
        let text = std::str::from_utf8(text).map_err(|e| CodecError::InvalidUtf8 {
            what: "zstd text stream",
            offset: (offset + e.valid_up_to()) as u64,
        })?;
        column.push(text, |s| s.push_str(text));
        offset += text.len() + 1;
    }
    if column.len() != rows {
        return Err(CodecError::CountMismatch {
            what: "zstd text stream's texts (rows)",
            expected: rows as u64,
            found: column.len() as u64,
        });
    }
    Ok(column.finish())
}
