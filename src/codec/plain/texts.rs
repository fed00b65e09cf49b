//! Rows' texts through zstd or LZMA2 (`spec/CODING.md` 5.4, 5.6): free text
//! and near-unique codes, where a dictionary stores every text once anyway
//! and adds an index per row, compress better as one stream of the rows'
//! texts. zstd decodes fast; LZMA2 (xz's coder) makes names and codes 10 to
//! 25 % smaller, so that such a column is no larger than xz makes of it.
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
    let stream = text_stream(texts, rows);
    let frame = zstd::bulk::compress(&stream, LEVEL).expect("zstd compresses to memory");
    let mut out = Vec::with_capacity(frame.len() + 10);
    put_varint(&mut out, stream.len() as u64);
    out.extend_from_slice(&frame);
    out
}

/// Each row's text followed by [`END`].
fn text_stream(texts: &[&str], rows: &[u32]) -> Vec<u8> {
    let mut stream = Vec::new();
    for &t in rows {
        stream.extend_from_slice(texts[t as usize].as_bytes());
        stream.push(END);
    }
    stream
}

/// The smallest LZMA2 dictionary karc writes, and the largest a reader
/// accepts (xz -9's): the decoder allocates the whole dictionary.
const LZMA_DICT_LOG: std::ops::RangeInclusive<u8> = 12..=26;

/// The dictionary for a stream of `len` bytes: the smallest power of two
/// that holds it, within [`LZMA_DICT_LOG`]. A reader refuses a larger one,
/// so a blob cannot make it allocate more than its stated length asks.
fn lzma_dict_log(len: u64) -> u8 {
    let log = (u64::BITS - len.saturating_sub(1).leading_zeros()) as u8;
    log.clamp(*LZMA_DICT_LOG.start(), *LZMA_DICT_LOG.end())
}

fn lzma_filters(dict_log: u8) -> liblzma::stream::Filters {
    let mut options =
        liblzma::stream::LzmaOptions::new_preset(LZMA_PRESET).expect("a valid LZMA preset");
    options.dict_size(1 << dict_log);
    let mut filters = liblzma::stream::Filters::new();
    filters.lzma2(&options);
    filters
}

/// xz -9's settings (without `--extreme`, which took 3 times as long for
/// under 1 % on names and codes).
const LZMA_PRESET: u32 = 9;

/// The fields after the layout byte of layout 5: the stream's length, the
/// dictionary's log2, then the raw LZMA2 stream (no xz container) of each
/// row's text followed by [`END`].
pub(super) fn encode_lzma(texts: &[&str], rows: &[u32]) -> Vec<u8> {
    let stream = text_stream(texts, rows);
    let dict_log = lzma_dict_log(stream.len() as u64);
    let mut encoder =
        liblzma::stream::Stream::new_raw_encoder(&lzma_filters(dict_log)).expect("LZMA2 encoder");
    let mut out = Vec::with_capacity(stream.len() / 3 + 64);
    put_varint(&mut out, stream.len() as u64);
    out.push(dict_log);
    loop {
        out.reserve(stream.len() / 4 + 4096);
        let consumed = encoder.total_in() as usize;
        match encoder.process_vec(
            &stream[consumed..],
            &mut out,
            liblzma::stream::Action::Finish,
        ) {
            Ok(liblzma::stream::Status::StreamEnd) => break,
            Ok(_) => {}
            Err(e) => panic!("LZMA2 encoding to memory failed: {e}"),
        }
    }
    out
}

/// Decodes what [`encode_lzma`] wrote (the rest of `r`) into `rows` rows,
/// never past the length stated and with a dictionary no larger than it
/// needs.
pub(super) fn decode_lzma(
    r: &mut ByteReader<'_>,
    rows: usize,
    purpose: Purpose,
) -> Result<(Dictionary, Vec<u32>), CodecError> {
    let len = stream_length(r, rows)?;
    let dict_log = r.byte("LZMA2 dictionary size")?;
    if !LZMA_DICT_LOG.contains(&dict_log) || dict_log > lzma_dict_log(len) {
        return Err(CodecError::Invalid {
            what: "LZMA2 dictionary size",
            detail: format!(
                "2^{dict_log} bytes for a stream of {len} bytes (at most 2^{})",
                lzma_dict_log(len)
            ),
        });
    }
    let input = r.rest();
    let invalid = |detail: String| CodecError::Invalid {
        what: "LZMA2 text stream",
        detail,
    };
    let mut decoder = liblzma::stream::Stream::new_raw_decoder(&lzma_filters(dict_log))
        .map_err(|e| invalid(e.to_string()))?;
    let mut stream: Vec<u8> = Vec::new();
    loop {
        // Grows as the input backs it: at most 64 KiB past what was decoded.
        if stream.len() as u64 > len {
            return Err(CodecError::CountMismatch {
                what: "LZMA2 text stream length",
                expected: len,
                found: stream.len() as u64,
            });
        }
        stream.reserve(64 << 10);
        let consumed = decoder.total_in() as usize;
        let before = (consumed, stream.len());
        let status = decoder
            .process_vec(
                &input[consumed..],
                &mut stream,
                liblzma::stream::Action::Run,
            )
            .map_err(|e| invalid(e.to_string()))?;
        if status == liblzma::stream::Status::StreamEnd {
            break;
        }
        if (decoder.total_in() as usize, stream.len()) == before {
            return Err(invalid("the stream ends before its end marker".to_owned()));
        }
    }
    let consumed = decoder.total_in() as usize;
    if consumed != input.len() {
        return Err(CodecError::TrailingBytes {
            what: "LZMA2 text stream",
            count: (input.len() - consumed) as u64,
        });
    }
    if stream.len() as u64 != len {
        return Err(CodecError::CountMismatch {
            what: "LZMA2 text stream length",
            expected: len,
            found: stream.len() as u64,
        });
    }
    split_rows(&stream, rows, purpose, "LZMA2 text stream")
}

/// The text stream's stated length: at least one end byte a row.
fn stream_length(r: &mut ByteReader<'_>, rows: usize) -> Result<u64, CodecError> {
    let len = r.varint("text stream length")?;
    if len < rows as u64 {
        return Err(CodecError::Invalid {
            what: "text stream length",
            detail: format!("{len} bytes cannot hold {rows} rows' ends"),
        });
    }
    Ok(len)
}

/// Decodes what [`encode`] wrote (the rest of `r`) into `rows` rows. The
/// frame is decompressed as a stream, never past the length stated, so a
/// forged length costs no more memory than the frame really holds.
pub(super) fn decode(
    r: &mut ByteReader<'_>,
    rows: usize,
    purpose: Purpose,
) -> Result<(Dictionary, Vec<u32>), CodecError> {
    let len = stream_length(r, rows)?;
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
    split_rows(&stream, rows, purpose, "zstd text stream")
}

/// The rows of a decoded text stream: exactly `rows` valid UTF-8 texts,
/// each ended by [`END`].
fn split_rows(
    stream: &[u8],
    rows: usize,
    purpose: Purpose,
    what: &'static str,
) -> Result<(Dictionary, Vec<u32>), CodecError> {
    let Some(body) = stream.strip_suffix(&[END]) else {
        return Err(CodecError::Invalid {
            what,
            detail: "the stream does not end with a text's end (0xff)".to_owned(),
        });
    };
    let mut column = ColumnRows::new(rows, purpose);
    let mut offset = 0usize;
    for text in body.split(|&b| b == END) {
        if column.len() == rows {
            return Err(CodecError::CountMismatch {
                what: "text stream's texts (rows)",
                expected: rows as u64,
                found: body.split(|&b| b == END).count() as u64,
            });
        }
        let text = std::str::from_utf8(text).map_err(|e| CodecError::InvalidUtf8 {
            what,
            offset: (offset + e.valid_up_to()) as u64,
        })?;
        column.push(text, |s| s.push_str(text));
        offset += text.len() + 1;
    }
    if column.len() != rows {
        return Err(CodecError::CountMismatch {
            what: "text stream's texts (rows)",
            expected: rows as u64,
            found: column.len() as u64,
        });
    }
    Ok(column.finish())
}
