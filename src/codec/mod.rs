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
mod row_classes;
mod runs;

pub use bytes::{ByteReader, put_varint};
pub use cells::Purpose;
pub use classes::{
    ClassesBytes, OwnClasses, ReleasedClasses, classes_symbols, decode_class_table, decode_classes,
    decode_classes_lazily, encode_class_table, encode_classes, encode_classes_as, first_use,
    renumber_classes,
};
pub use originals::{
    DiffMode, EncodedOriginals, OriginalsDecoding, QiOriginal, QiSchema, decode_originals,
    decode_originals_of, encode_originals, originals_column_bytes,
};
pub(crate) use plain::calendar;
pub use plain::{decode_cost, decode_plain, decode_plain_for, encode_plain};
pub use released::{
    ReleasedColumn, ReleasedRows, ReleasedSymbol, decode_released, encode_released,
};
pub use row_classes::{
    GroupClasses, RowClasses, RowsCoding, decode_row_classes, encode_row_classes,
};

#[cfg(test)]
mod tests;

use crate::huffman::HuffmanError;

/// Why a column blob cannot be decoded. `what` names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// The blob ends inside a field.
    #[error("{what}: truncated at byte {offset}: {needed} bytes needed, {available} available")]
    Truncated {
        /// The field being decoded.
        what: &'static str,
        /// Byte offset in the blob.
        offset: u64,
        /// Bytes the field needs.
        needed: u64,
        /// Bytes left in the blob.
        available: u64,
    },
    /// A Huffman code table or code stream is malformed.
    #[error("{what}: {source}")]
    Huffman {
        /// The field being decoded.
        what: &'static str,
        /// The Huffman decoder's error.
        #[source]
        source: HuffmanError,
    },
    /// A stored index points past the table it indexes.
    #[error("{what}: index {index} out of range (expected below {len})")]
    IndexOutOfRange {
        /// The field being decoded.
        what: &'static str,
        /// The stored index.
        index: u64,
        /// The length of the table it indexes.
        len: u64,
    },
    /// A layout id this version does not know.
    #[error("{what}: unknown layout id {id} (known: {known})")]
    UnknownLayout {
        /// The field being decoded.
        what: &'static str,
        /// The stored id.
        id: u8,
        /// The ids this version reads.
        known: &'static str,
    },
    /// A difference-coding mode id this version does not know (a newer writer).
    #[error(
        "unsupported difference mode id {id} (this version reads {known}); the file was written by a newer karc"
    )]
    UnsupportedMode {
        /// The stored id.
        id: u8,
        /// The ids this version reads.
        known: &'static str,
    },
    /// A text field is not UTF-8.
    #[error("{what}: invalid UTF-8 at byte {offset}")]
    InvalidUtf8 {
        /// The field being decoded.
        what: &'static str,
        /// Byte offset in the blob.
        offset: u64,
    },
    /// A varint runs past 64 bits (corrupt or hostile input).
    #[error("{what}: varint longer than 64 bits at byte {offset}")]
    VarintOverflow {
        /// The field being decoded.
        what: &'static str,
        /// Byte offset in the blob.
        offset: u64,
    },
    /// Bytes remain after the last field: blobs are exact.
    #[error("{what}: {count} bytes left over after the last field")]
    TrailingBytes {
        /// The field being decoded.
        what: &'static str,
        /// Number of bytes left over.
        count: u64,
    },
    /// A count disagrees with the one the schema or header fixed.
    #[error("{what}: expected {expected}, found {found}")]
    CountMismatch {
        /// The field being decoded.
        what: &'static str,
        /// The count fixed beforehand.
        expected: u64,
        /// The count found.
        found: u64,
    },
    /// Any other violated invariant of the blob.
    #[error("{what}: {detail}")]
    Invalid {
        /// The field being decoded.
        what: &'static str,
        /// What is wrong.
        detail: String,
    },
}
