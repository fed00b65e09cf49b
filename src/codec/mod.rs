//! Column blobs (`spec/CODING.md`): the released QI columns of the public
//! part (coded by equivalence class), plain text columns, and the difference
//! coding that turns a release back into the original QI columns (paper
//! 004's Algorithm 1 as `ALGORITHMS.md` states it, and karc's default mode).
//!
//! Every blob is self-describing (layout and mode ids inside), decodes
//! without panicking on any byte string, and refuses trailing bytes.

mod bytes;
mod cells;
mod classes;
mod numbers;
mod originals;
mod parents;
mod plain;
mod range;
mod rans;
mod released;

pub use bytes::{ByteReader, put_varint};
pub use cells::Purpose;
pub use classes::{
    ClassesBytes, ReleasedClasses, RowsCoding, decode_classes, decode_classes_lazily,
    encode_classes, encode_classes_as,
};
pub use originals::{
    DiffMode, EncodedOriginals, OriginalsDecoding, QiOriginal, QiSchema, decode_originals,
    decode_originals_of, encode_originals,
};
pub use plain::{decode_plain, decode_plain_for, encode_plain};
pub use released::{
    ReleasedColumn, ReleasedRows, ReleasedSymbol, decode_released, encode_released,
};

#[cfg(test)]
mod tests;

use crate::huffman::HuffmanError;

/// Why a column blob cannot be decoded. `what` names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    #[error("{what}: truncated at byte {offset}: {needed} bytes needed, {available} available")]
    Truncated {
        what: &'static str,
        offset: u64,
        needed: u64,
        available: u64,
    },
    #[error("{what}: {source}")]
    Huffman {
        what: &'static str,
        #[source]
        source: HuffmanError,
    },
    #[error("{what}: index {index} out of range (expected below {len})")]
    IndexOutOfRange {
        what: &'static str,
        index: u64,
        len: u64,
    },
    #[error("{what}: unknown layout id {id} (known: {known})")]
    UnknownLayout {
        what: &'static str,
        id: u8,
        known: &'static str,
    },
    #[error(
        "unsupported difference mode id {id} (this version reads {known}); the file was written by a newer karc"
    )]
    UnsupportedMode { id: u8, known: &'static str },
    #[error("{what}: invalid UTF-8 at byte {offset}")]
    InvalidUtf8 { what: &'static str, offset: u64 },
    #[error("{what}: varint longer than 64 bits at byte {offset}")]
    VarintOverflow { what: &'static str, offset: u64 },
    #[error("{what}: {count} bytes left over after the last field")]
    TrailingBytes { what: &'static str, count: u64 },
    #[error("{what}: expected {expected}, found {found}")]
    CountMismatch {
        what: &'static str,
        expected: u64,
        found: u64,
    },
    #[error("{what}: {detail}")]
    Invalid { what: &'static str, detail: String },
}
