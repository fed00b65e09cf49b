//! Arrow IPC and Parquet sizes checked before arrow-ipc and parquet
//! allocate from them. A compressed buffer starts with its uncompressed
//! length, which arrow-ipc reserves at once: one changed byte asked for
//! 2^56 bytes and aborted the process (issue 32), which no `catch_unwind`
//! can stop. Every message a reader will decode (the footer's blocks of a
//! file, each message of a stream) is walked here first, with the
//! flatbuffer readers arrow-ipc itself uses; what is malformed in other
//! ways is left to arrow-ipc, whose errors (or panics, `crate::contain`)
//! name it. A file's footer length and each of its blocks' lengths must
//! also lie inside the file: arrow-ipc reserves (zeroed) what they declare
//! before it reads, so a forged block length asked for gigabytes. A
//! Parquet dictionary page's value count is checked the same way (the fuzz
//! campaign of 2026-11-28, `fuzz/regressions/arrow_table/`).

use arrow_ipc::{Block, CompressionType, Message, MessageHeader};
use parquet::basic::{Compression, Type as PhysicalType};
use parquet::column::page::Page;
use parquet::file::metadata::ParquetMetaDataReader;
use parquet::file::reader::{ChunkReader, FileReader, SerializedFileReader};

use super::thrift::{self, Stop};
use parquet::schema::types::ColumnDescriptor;

/// The most one buffer may declare uncompressed: 4 GiB, above any buffer
/// a karc table holds (a column's texts take i32 offsets) and below what
/// an allocation can fail on.
const MAX_BUFFER_BYTES: i64 = 1 << 32;

/// The most one compressed byte can expand to, per codec, with room to
/// spare: an LZ4 sequence's length bytes add 255 each, and a zstd block
/// of at most 128 KiB costs at least 3 bytes (an RLE block 4). A buffer
/// that declares more than its bytes can code is refused before
/// arrow-ipc reserves the declared size (a 1 KiB file asked for 3 GiB).
fn max_ratio(codec: CompressionType) -> i64 {
    if codec == CompressionType::ZSTD {
        1 << 16
    } else {
        1 << 8
    }
}

/// Room for a codec's frame and block headers beside [`max_ratio`].
const RATIO_SLACK: i64 = 1 << 16;

/// Checks the compressed buffers of every message of an IPC file
/// (`ARROW1` at its start) or stream.
pub fn check_ipc(bytes: &[u8]) -> Result<(), String> {
    if bytes.starts_with(b"ARROW1") {
        return check_file(bytes);
    }
    let mut at = 0usize;
    while let Some((message, body)) = message_at(bytes, at, None) {
        let body_len = usize::try_from(message.bodyLength()).map_err(|_| negative("body"))?;
        check_message(&message, bytes, body)?;
        at = body.saturating_add(body_len);
    }
    Ok(())
}

fn check_file(bytes: &[u8]) -> Result<(), String> {
    let n = bytes.len();
    if n < 16 {
        return Ok(());
    }
    let len = i32::from_le_bytes(bytes[n - 10..n - 6].try_into().expect("4 bytes"));
    let Some(start) = usize::try_from(len)
        .ok()
        .and_then(|l| (n - 10).checked_sub(l))
    else {
        return Err(format!(
            "the footer declares {len} bytes: expected at most the {} before its end",
            n - 10
        ));
    };
    let Ok(footer) = arrow_ipc::root_as_footer(&bytes[start..n - 10]) else {
        return Ok(());
    };
    let blocks = footer.recordBatches().into_iter().flatten();
    for block in blocks.chain(footer.dictionaries().into_iter().flatten()) {
        check_block(bytes, block)?;
    }
    Ok(())
}

/// A footer block: its message and body lie inside the file (arrow-ipc
/// reserves their length before reading them), and its compressed
/// buffers declare sizes it may reserve.
fn check_block(bytes: &[u8], block: &Block) -> Result<(), String> {
    let (Ok(at), Ok(meta), Ok(body)) = (
        usize::try_from(block.offset()),
        usize::try_from(block.metaDataLength()),
        usize::try_from(block.bodyLength()),
    ) else {
        return Err(negative("block"));
    };
    let end = at.checked_add(meta).and_then(|e| e.checked_add(body));
    if end.is_none_or(|e| e > bytes.len()) {
        return Err(format!(
            "a block at byte {at} declares {meta} + {body} bytes: expected them inside the \
             file's {} bytes",
            bytes.len()
        ));
    }
    if let Some((message, body)) = message_at(bytes, at, Some((meta, body))) {
        check_message(&message, bytes, body)?;
    }
    Ok(())
}

/// The message at `at` (continuation marker, length, flatbuffer) and where
/// its body starts; `None` where arrow-ipc will find no message either.
/// In a stream the length bounds the flatbuffer; a file's block is read as
/// arrow-ipc reads it, whose flatbuffer runs from after the length to the
/// end of the block (`block`: its metadata and body lengths), whatever the
/// length says.
fn message_at(
    bytes: &[u8],
    at: usize,
    block: Option<(usize, usize)>,
) -> Option<(Message<'_>, usize)> {
    let word = |i: usize| -> Option<[u8; 4]> { bytes.get(i..i.checked_add(4)?)?.try_into().ok() };
    let (len, start) = match word(at)? {
        [0xFF, 0xFF, 0xFF, 0xFF] => (i32::from_le_bytes(word(at + 4)?), at + 8),
        w => (i32::from_le_bytes(w), at + 4),
    };
    let (flatbuffer, body) = match block {
        Some((meta, body)) => (
            bytes.get(start..at.checked_add(meta)?.checked_add(body)?)?,
            at.checked_add(meta)?,
        ),
        None => {
            let len = usize::try_from(len).ok().filter(|&l| l > 0)?;
            (bytes.get(start..start.checked_add(len)?)?, start + len)
        }
    };
    let message = arrow_ipc::root_as_message(flatbuffer).ok()?;
    Some((message, body))
}

fn check_message(message: &Message<'_>, bytes: &[u8], body: usize) -> Result<(), String> {
    let batch = match message.header_type() {
        MessageHeader::RecordBatch => message.header_as_record_batch(),
        MessageHeader::DictionaryBatch => {
            message.header_as_dictionary_batch().and_then(|d| d.data())
        }
        _ => None,
    };
    let Some((batch, codec)) = batch.and_then(|b| Some((b, b.compression()?.codec()))) else {
        return Ok(());
    };
    for buffer in batch.buffers().into_iter().flatten() {
        let Some(start) = usize::try_from(buffer.offset())
            .ok()
            .and_then(|o| body.checked_add(o))
        else {
            return Err(negative("buffer"));
        };
        let Some(prefix) = start.checked_add(8).and_then(|end| bytes.get(start..end)) else {
            continue;
        };
        let declared = i64::from_le_bytes(prefix.try_into().expect("8 bytes"));
        let coded = buffer.length().saturating_sub(8).max(0);
        let backed = coded
            .saturating_mul(max_ratio(codec))
            .saturating_add(RATIO_SLACK);
        let most = MAX_BUFFER_BYTES.min(backed);
        if declared != -1 && !(0..=most).contains(&declared) {
            return Err(format!(
                "a compressed buffer of {coded} bytes declares {declared} bytes uncompressed: \
                 expected at most {most}"
            ));
        }
    }
    Ok(())
}

fn negative(what: &str) -> String {
    format!("a {what} offset or length is negative")
}

/// Checks the dictionary pages of a Parquet file before the column
/// readers decode them: parquet's dictionary decoder sizes the dictionary
/// by the page header's value count (a zero-filled `resize`) before it
/// decodes a value, so a forged count asked for 14 GB (the fuzz campaign
/// of 2026-11-28). A dictionary page may count only the values its bytes
/// can code (PLAIN: a type's width each, 4 bytes of length for texts, a
/// bit for booleans). Data pages are skipped undecoded; what the reader
/// cannot open here is left to the reader, which names it.
pub fn check_parquet<R: ChunkReader + 'static>(reader: R) -> Result<(), ParquetRefusal> {
    check_thrift(&reader)?;
    let Ok(file) = SerializedFileReader::new(reader) else {
        return Ok(());
    };
    for g in 0..file.num_row_groups() {
        let Ok(group) = file.get_row_group(g) else {
            return Ok(());
        };
        for c in 0..group.num_columns() {
            let bits = value_bits(group.metadata().column(c).column_descr());
            let Ok(mut pages) = group.get_column_page_reader(c) else {
                continue;
            };
            while let Ok(Some(page)) = pages.peek_next_page() {
                if !page.is_dict {
                    if pages.skip_next_page().is_err() {
                        break;
                    }
                    continue;
                }
                let Ok(Some(Page::DictionaryPage {
                    buf, num_values, ..
                })) = pages.get_next_page()
                else {
                    break;
                };
                let backed = (buf.len() as u64).saturating_mul(8) / bits;
                if u64::from(num_values) > backed {
                    return Err(ParquetRefusal::Corrupt(format!(
                        "a dictionary page of column {c} counts {num_values} values in {} \
                         bytes: expected at most {backed}",
                        buf.len()
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Why a Parquet file is refused before parquet reads it.
#[derive(Debug)]
pub enum ParquetRefusal {
    /// Its bytes would make parquet misread, loop or over-allocate.
    Corrupt(String),
    /// A column's codec is one karc is built without (Cargo.toml's
    /// `parquet` features): parquet's own error said only "Disabled
    /// feature at compile time: brotli".
    Codec(String),
}

/// Whether karc's `parquet` is built with the codec (Cargo.toml's
/// features); the name parquet.thrift gives one it is not.
fn unread_codec(codec: Compression) -> Option<&'static str> {
    match codec {
        Compression::UNCOMPRESSED
        | Compression::SNAPPY
        | Compression::GZIP(_)
        | Compression::LZ4
        | Compression::LZ4_RAW
        | Compression::ZSTD(_) => None,
        Compression::BROTLI(_) => Some("BROTLI"),
        Compression::LZO => Some("LZO"),
    }
}

/// Walks the footer, then every page header of every column chunk
/// ([`super::thrift`]) before parquet decodes them. A footer or chunk that
/// parquet cannot locate is left to parquet, which names it.
fn check_thrift<R: ChunkReader>(reader: &R) -> Result<(), ParquetRefusal> {
    let len = reader.len();
    let Ok(tail) = reader.get_bytes(len.saturating_sub(8), 8) else {
        return Ok(());
    };
    if len < 12 || &tail[4..] != b"PAR1" {
        return Ok(());
    }
    let footer = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if footer > len - 8 {
        return Ok(());
    }
    let Ok(bytes) = reader.get_bytes(len - 8 - footer, footer as usize) else {
        return Ok(());
    };
    match thrift::check_footer(&bytes) {
        Err(Stop::Refused(why)) => {
            return Err(ParquetRefusal::Corrupt(format!("the footer: {why}")));
        }
        Err(Stop::Short) | Ok(()) => {}
    }
    let Ok(metadata) = ParquetMetaDataReader::new().parse_and_finish(reader) else {
        return Ok(());
    };
    for group in metadata.row_groups() {
        for (c, chunk) in group.columns().iter().enumerate() {
            if let Some(codec) = unread_codec(chunk.compression()) {
                return Err(ParquetRefusal::Codec(format!(
                    "column {:?} is compressed with {codec}, which karc does not read: expected \
                     uncompressed, SNAPPY, GZIP, LZ4, LZ4_RAW or ZSTD (pyarrow: \
                     `write_table(..., compression=\"zstd\")`)",
                    chunk.column_descr().name(),
                )));
            }
            let start = chunk
                .dictionary_page_offset()
                .unwrap_or(chunk.data_page_offset());
            let (Ok(start), Ok(size)) =
                (u64::try_from(start), u64::try_from(chunk.compressed_size()))
            else {
                continue;
            };
            check_pages(reader, start, start.saturating_add(size).min(len), len)
                .map_err(|why| ParquetRefusal::Corrupt(format!("column {c}: {why}")))?;
        }
    }
    Ok(())
}

/// The page headers from `at` to `end`, each read in a window that grows
/// from 4 KiB until it holds the header. parquet reads a header from a
/// stream over the rest of the file, not the chunk alone (and skips past
/// its end without noticing: a header that began in the chunk and declared
/// 100 million doubles after it skipped 8 bytes at the file's end 100
/// million times, the campaign's slow unit `slow_parquet_header_past_chunk.parquet`),
/// so the window may reach the end of the file (`file_end`).
fn check_pages<R: ChunkReader>(
    reader: &R,
    mut at: u64,
    end: u64,
    file_end: u64,
) -> Result<(), String> {
    while at < end {
        let mut window = 4096u64;
        let (header, page) = loop {
            let take = window.min(file_end - at);
            let Ok(bytes) = reader.get_bytes(at, take as usize) else {
                return Ok(());
            };
            match thrift::check_page_header(&bytes) {
                Ok(found) => break found,
                Err(Stop::Refused(why)) => {
                    return Err(format!("a page header at byte {at}: {why}"));
                }
                Err(Stop::Short) if take < file_end - at => window = window.saturating_mul(4),
                Err(Stop::Short) => return Ok(()),
            }
        };
        let Ok(page) = u64::try_from(page) else {
            return Ok(());
        };
        at = at.saturating_add(header as u64).saturating_add(page);
    }
    Ok(())
}

/// The fewest bits a PLAIN-coded value of a column's physical type takes.
fn value_bits(column: &ColumnDescriptor) -> u64 {
    match column.physical_type() {
        PhysicalType::BOOLEAN => 1,
        PhysicalType::INT32 | PhysicalType::FLOAT | PhysicalType::BYTE_ARRAY => 32,
        PhysicalType::INT64 | PhysicalType::DOUBLE => 64,
        PhysicalType::INT96 => 96,
        PhysicalType::FIXED_LEN_BYTE_ARRAY => {
            8 * u64::try_from(column.type_length()).unwrap_or(0).max(1)
        }
    }
}
