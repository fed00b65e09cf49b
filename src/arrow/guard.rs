//! Arrow IPC sizes checked before arrow-ipc allocates from them. A
//! compressed buffer starts with its uncompressed length, which arrow-ipc
//! reserves at once: one changed byte asked for 2^56 bytes and aborted the
//! process (issue 32), which no `catch_unwind` can stop. Every message a
//! reader will decode (the footer's blocks of a file, each message of a
//! stream) is walked here first, with the flatbuffer readers arrow-ipc
//! itself uses; what is malformed in other ways is left to arrow-ipc,
//! whose errors (or panics, `crate::contain`) name it.

use arrow_ipc::{Block, Message, MessageHeader};

/// The most one buffer may declare uncompressed: 4 GiB, above any buffer
/// a karc table holds (a column's texts take i32 offsets) and below what
/// an allocation can fail on.
const MAX_BUFFER_BYTES: i64 = 1 << 32;

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
        return Ok(());
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

fn check_block(bytes: &[u8], block: &Block) -> Result<(), String> {
    let (Ok(at), Ok(meta)) = (
        usize::try_from(block.offset()),
        usize::try_from(block.metaDataLength()),
    ) else {
        return Err(negative("block"));
    };
    if let Some((message, body)) = message_at(bytes, at, Some(meta)) {
        check_message(&message, bytes, body)?;
    }
    Ok(())
}

/// The message at `at` (continuation marker, length, flatbuffer) and where
/// its body starts; `None` where arrow-ipc will find no message either.
fn message_at(bytes: &[u8], at: usize, meta: Option<usize>) -> Option<(Message<'_>, usize)> {
    let word = |i: usize| -> Option<[u8; 4]> { bytes.get(i..i.checked_add(4)?)?.try_into().ok() };
    let (len, start) = match word(at)? {
        [0xFF, 0xFF, 0xFF, 0xFF] => (i32::from_le_bytes(word(at + 4)?), at + 8),
        w => (i32::from_le_bytes(w), at + 4),
    };
    let len = usize::try_from(len).ok().filter(|&l| l > 0)?;
    let flatbuffer = bytes.get(start..start.checked_add(len)?)?;
    let message = arrow_ipc::root_as_message(flatbuffer).ok()?;
    let body = match meta {
        Some(m) => at.checked_add(m)?,
        None => start + len,
    };
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
    let Some(batch) = batch.filter(|b| b.compression().is_some()) else {
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
        if declared != -1 && !(0..=MAX_BUFFER_BYTES).contains(&declared) {
            return Err(format!(
                "a compressed buffer declares {declared} bytes uncompressed: expected at most \
                 {MAX_BUFFER_BYTES}"
            ));
        }
    }
    Ok(())
}

fn negative(what: &str) -> String {
    format!("a {what} offset or length is negative")
}
