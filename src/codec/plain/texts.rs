//! Rows' texts through zstd (`spec/CODING.md` 5.4): free text and
//! near-unique codes, where a dictionary stores every text once anyway and
//! adds an index per row, compress better as one stream of the rows' texts.

use std::io::Read;

use super::super::CodecError;
use super::super::bytes::{ByteReader, put_string, put_varint};
use crate::dictionary::Dictionary;

/// zstd's level: on 1M rows of free text or codes, level 9 packs within a
/// few percent of level 19 at a fraction of its time (`spec/CODING.md`
/// 5.4 has the figures).
const LEVEL: i32 = 9;

/// The fields after the layout byte: the stream's length, then the zstd
/// frame of each row's text as a string.
pub(super) fn encode(texts: &[&str], rows: &[u32]) -> Vec<u8> {
    let mut stream = Vec::new();
    for &t in rows {
        put_string(&mut stream, texts[t as usize]);
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
pub(super) fn decode(r: &mut ByteReader<'_>, rows: usize) -> Result<(Dictionary, Vec<u32>), CodecError> {
    let len = r.varint("text stream length")?;
    if len < rows as u64 {
        return Err(CodecError::Invalid {
            what: "text stream length",
            detail: format!("{len} bytes cannot hold {rows} rows' lengths"),
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
        Ok(size) => return Err(CodecError::TrailingBytes { what: "zstd text stream", count: (frame.len() - size.min(frame.len())) as u64 }),
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
    let mut s = ByteReader::new(&stream);
    let mut dict = Dictionary::new();
    let mut codes = Vec::with_capacity(rows);
    for _ in 0..rows {
        codes.push(dict.intern(s.string("row text")?));
    }
    s.finish("zstd text stream")?;
    Ok((dict, codes))
}
