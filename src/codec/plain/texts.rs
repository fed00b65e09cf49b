//! Rows' texts through zstd, LZMA2 or PPMd (`spec/CODING.md` 5.4, 5.6,
//! 5.8): free text and near-unique codes, where a dictionary stores every
//! text once anyway and adds an index per row, compress better as one
//! stream of the rows' texts. zstd decodes fast; LZMA2 (xz's coder) finds
//! the long repeats of structured identifiers; PPMd, a context model, makes
//! free text, names and e-mail addresses 20 to 40 % smaller than xz -9 at
//! zstd -9's speed.
//!
//! Each text ends with the byte `0xff`, which UTF-8 never uses: no escape,
//! and no length bytes between the texts to break zstd's matches (varint
//! lengths made a free-text column 13% larger).

use std::io::{Read, Write};

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
    let left = input.len() - decoder.total_in() as usize;
    let names = ("LZMA2 text stream", "LZMA2 text stream length");
    rows_of_stream(&stream, len, left, rows, purpose, names)
}

/// PPMd's model orders karc tries on a stream of at most [`PPMD_SMALL`]
/// bytes (on names and e-mail addresses the best of them is up to 3 %
/// smaller than order 4 alone), and the one order of a larger stream.
const PPMD_ORDERS_SMALL: [u8; 3] = [3, 4, 6];
const PPMD_ORDER: u8 = 4;
const PPMD_SMALL: usize = 1 << 20;

/// The model orders a reader accepts: PPMd's decoding time per byte grows
/// with the order, and karc writes 3 to 6.
const PPMD_ORDERS: std::ops::RangeInclusive<u8> = 2..=16;

/// log2 of PPMd's model memory: the smallest karc writes and the largest a
/// reader allocates.
const PPMD_MEM_LOG: std::ops::RangeInclusive<u8> = 16..=26;

/// log2 of the largest model memory karc writes: 16 MiB codes the 55 MB
/// free-text column of `gen-table mixed` to the byte as 64 MiB does, and
/// a pack holds it beside the column.
const PPMD_WRITTEN_MEM_LOG: u8 = 24;

/// At most this many text bytes per byte of PPMd stream: a context model
/// codes no symbol in less than about 1/100 of a bit, so only a forged
/// stream could claim more, and the decoding work stays bounded by the
/// blob's size.
const PPMD_MAX_RATIO: u64 = 1024;

/// PPMd's model memory for a stream of `len` bytes: twice the smallest
/// power of two that holds it (the model of a stream outgrows the stream;
/// more memory changes nothing below that), within [`PPMD_MEM_LOG`].
fn ppmd_mem_log(len: u64) -> u8 {
    let log = (u64::BITS - len.saturating_sub(1).leading_zeros()) as u8;
    (log + 1).clamp(*PPMD_MEM_LOG.start(), *PPMD_MEM_LOG.end())
}

/// The fields after the layout byte of layout 7: the stream's length, the
/// model order, log2 of the model memory, then the PPMd (var. H) stream of
/// each row's text followed by [`END`], with PPMd's end marker. `None`
/// when the stream is more than [`PPMD_MAX_RATIO`] times its code (a
/// reader would refuse it; a dictionary codes such a column better).
pub(super) fn encode_ppmd(texts: &[&str], rows: &[u32]) -> Option<Vec<u8>> {
    let stream = text_stream(texts, rows);
    let orders: &[u8] = if stream.len() <= PPMD_SMALL {
        &PPMD_ORDERS_SMALL
    } else {
        &[PPMD_ORDER]
    };
    ppmd_fields(&stream, orders)
}

/// The size of PPMd's code (order 4 alone) of rows `rows`: what a sample of
/// a large column, which [`encode_ppmd`] codes in order 4, says of it.
pub(super) fn ppmd_size(texts: &[&str], rows: &[u32]) -> usize {
    encode_ppmd_large(texts, rows).map_or(usize::MAX, |f| f.len())
}

/// Layout 7's fields for rows `rows` in order 4 alone, as a large stream is
/// coded (a block of layout 8 too).
pub(super) fn encode_ppmd_large(texts: &[&str], rows: &[u32]) -> Option<Vec<u8>> {
    ppmd_fields(&text_stream(texts, rows), &[PPMD_ORDER])
}

/// The fields of layout 7 for `stream`, in the best of `orders`.
fn ppmd_fields(stream: &[u8], orders: &[u8]) -> Option<Vec<u8>> {
    let mem_log = ppmd_mem_log(stream.len() as u64).min(PPMD_WRITTEN_MEM_LOG);
    let (order, code) = orders
        .iter()
        .map(|&order| (order, ppmd_code(stream, order, mem_log)))
        .min_by_key(|(_, code)| code.len())
        .expect("at least one order");
    if stream.len() as u64 > PPMD_MAX_RATIO * code.len() as u64 {
        return None;
    }
    let mut out = Vec::with_capacity(code.len() + 12);
    put_varint(&mut out, stream.len() as u64);
    out.extend_from_slice(&[order, mem_log]);
    out.extend_from_slice(&code);
    Some(out)
}

fn ppmd_code(stream: &[u8], order: u8, mem_log: u8) -> Vec<u8> {
    let out = Vec::with_capacity(stream.len() / 4 + 16);
    let mut encoder = ppmd_rust::Ppmd7Encoder::new(out, order.into(), 1 << mem_log)
        .expect("an order and a memory size within PPMd's bounds");
    encoder.write_all(stream).expect("PPMd encodes to memory");
    encoder.finish(true).expect("PPMd encodes to memory")
}

/// The rest of a blob, as PPMd's decoder reads it: notes a read past the
/// end, which the decoder would otherwise take for the end of the stream.
struct PpmdInput<'a> {
    rest: &'a [u8],
    overrun: bool,
}

impl Read for PpmdInput<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.rest.is_empty() && !buf.is_empty() {
            self.overrun = true;
        }
        self.rest.read(buf)
    }
}

/// Decodes what [`encode_ppmd`] wrote (the rest of `r`) into `rows` rows.
pub(super) fn decode_ppmd(
    r: &mut ByteReader<'_>,
    rows: usize,
    purpose: Purpose,
) -> Result<(Dictionary, Vec<u32>), CodecError> {
    let stream = ppmd_stream(r, rows)?;
    split_rows(&stream, rows, purpose, "PPMd text stream")
}

/// The text stream of layout 7's fields (the rest of `r`), for `rows`
/// rows: a model memory no larger than the stated length needs, never
/// decoded past that length, and the stream must end with its end marker
/// in its last byte and come to its stated length.
pub(super) fn ppmd_stream(r: &mut ByteReader<'_>, rows: usize) -> Result<Vec<u8>, CodecError> {
    let len = stream_length(r, rows)?;
    let order = r.byte("PPMd model order")?;
    let mem_log = r.byte("PPMd model memory")?;
    let input = r.rest();
    let invalid = |what: &'static str, detail: String| CodecError::Invalid { what, detail };
    if !PPMD_ORDERS.contains(&order) {
        return Err(invalid("PPMd model order", format!("{order} (2 to 16)")));
    }
    if !PPMD_MEM_LOG.contains(&mem_log) || mem_log > ppmd_mem_log(len) {
        let most = ppmd_mem_log(len);
        let detail = format!("2^{mem_log} bytes for a stream of {len} bytes (2^16 to 2^{most})");
        return Err(invalid("PPMd model memory", detail));
    }
    if len > PPMD_MAX_RATIO * input.len() as u64 {
        let detail = format!("{len} bytes from {} bytes of code", input.len());
        return Err(invalid("PPMd text stream length", detail));
    }
    let mut source = PpmdInput {
        rest: input,
        overrun: false,
    };
    let mut decoder = ppmd_rust::Ppmd7Decoder::new(&mut source, order.into(), 1 << mem_log)
        .map_err(|e| invalid("PPMd text stream", e.to_string()))?;
    let mut stream: Vec<u8> = Vec::new();
    loop {
        // Grows as the decoder fills it: at most 64 KiB past the length.
        if stream.len() as u64 > len {
            break;
        }
        let start = stream.len();
        stream.resize(start + (64 << 10), 0);
        let read = decoder
            .read(&mut stream[start..])
            .map_err(|e| invalid("PPMd text stream", e.to_string()))?;
        stream.truncate(start + read);
        if read == 0 {
            break;
        }
    }
    drop(decoder);
    if source.overrun {
        let detail = "the stream ends before its end marker".to_owned();
        return Err(invalid("PPMd text stream", detail));
    }
    let names = ("PPMd text stream", "PPMd text stream length");
    check_stream(&stream, len, source.rest.len(), names)?;
    Ok(stream)
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
    let names = ("zstd text stream", "zstd text stream length");
    rows_of_stream(&stream, len, 0, rows, purpose, names)
}

/// The rows of a decoded text stream that read its blob to the end (`left`
/// bytes were not read) and came to its stated length `len`; `names` are
/// the stream's and its length's in errors.
fn rows_of_stream(
    stream: &[u8],
    len: u64,
    left: usize,
    rows: usize,
    purpose: Purpose,
    names: (&'static str, &'static str),
) -> Result<(Dictionary, Vec<u32>), CodecError> {
    check_stream(stream, len, left, names)?;
    split_rows(stream, rows, purpose, names.0)
}

/// That a decoded text stream read its blob to the end (`left` bytes were
/// not read) and came to its stated length `len`.
fn check_stream(
    stream: &[u8],
    len: u64,
    left: usize,
    (what, length): (&'static str, &'static str),
) -> Result<(), CodecError> {
    if left != 0 {
        return Err(CodecError::TrailingBytes {
            what,
            count: left as u64,
        });
    }
    if stream.len() as u64 != len {
        return Err(CodecError::CountMismatch {
            what: length,
            expected: len,
            found: stream.len() as u64,
        });
    }
    Ok(())
}

/// The rows of a decoded text stream: exactly `rows` valid UTF-8 texts,
/// each ended by [`END`].
fn split_rows(
    stream: &[u8],
    rows: usize,
    purpose: Purpose,
    what: &'static str,
) -> Result<(Dictionary, Vec<u32>), CodecError> {
    let mut column = ColumnRows::new(rows, purpose);
    push_rows(&mut column, stream, rows, what)?;
    Ok(column.finish())
}

/// Appends the texts of a decoded text stream to `column`: exactly `rows`
/// valid UTF-8 texts, each ended by [`END`].
pub(super) fn push_rows<'a>(
    column: &mut ColumnRows<&'a str>,
    stream: &'a [u8],
    rows: usize,
    what: &'static str,
) -> Result<(), CodecError> {
    let Some(body) = stream.strip_suffix(&[END]) else {
        return Err(CodecError::Invalid {
            what,
            detail: "the stream does not end with a text's end (0xff)".to_owned(),
        });
    };
    let (start, mut offset) = (column.len(), 0usize);
    for text in body.split(|&b| b == END) {
        if column.len() - start == rows {
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
    if column.len() - start != rows {
        return Err(CodecError::CountMismatch {
            what: "text stream's texts (rows)",
            expected: rows as u64,
            found: (column.len() - start) as u64,
        });
    }
    Ok(())
}
