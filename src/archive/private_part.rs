//! The private part's plaintext (`spec/FORMAT.md` §7.4, §7.6): one
//! [`PrivatePart`] per row group, its frames, the trailer, and an Arrow
//! input's null rows and NaN bits. Postcard, like [`super::meta`].

use serde::{Deserialize, Serialize};

use super::layout::Layout;
use super::sealed::SealedMeta;
use super::wire::{from_bytes, to_bytes};
use crate::arrow::ColumnExtras;

/// The plaintext of the private part (of one row group).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrivatePart {
    /// The original file's CRC-32.
    pub digest: u32,
    /// Length of the original file in bytes.
    pub original_len: u64,
    /// What re-renders this group's bytes beside its texts.
    pub layout: Layout,
    /// `codec::encode_originals` of the QI columns (`spec/CODING.md`).
    #[serde(with = "serde_bytes")]
    pub originals: Vec<u8>,
    /// The identifier columns (`codec::encode_plain`), in column order.
    pub identifiers: Vec<IdentifierColumn>,
}

/// The end of a private part of several row groups: the whole original
/// file's CRC-32 (each group's [`PrivatePart`] has its own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrivateTrailer {
    /// The whole original file's CRC-32.
    pub digest: u32,
    /// Length of the whole original file in bytes.
    pub original_len: u64,
}

/// A decoded private part: one [`PrivatePart`] per row group, the whole
/// file's CRC-32 and length, the hash of the public part it was made for,
/// and (an Arrow input) the columns' null rows and NaN bits.
#[derive(Debug, Clone, PartialEq)]
pub struct PrivateParts {
    /// One per row group, in file order.
    pub groups: Vec<PrivatePart>,
    /// The whole original file's CRC-32.
    pub digest: u32,
    /// Length of the whole original file in bytes.
    pub original_len: u64,
    /// BLAKE3 of the public part it was sealed with (a changed release is refused).
    pub public_digest: [u8; 32],
    /// An Arrow input's null rows and NaN bits, per column.
    pub arrow: Option<Vec<ColumnExtras>>,
    /// The whole hierarchies and sealed metrics (`None`: a 1.0 file).
    pub sealed: Option<SealedMeta>,
}

/// The private part's `ArrowExtras` (`spec/FORMAT.md` §7.6): one record
/// per column, rows as gaps (the first row, then each row minus the one
/// before), which keeps dense lists at a byte a row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct ColumnExtrasWire {
    empty_is_null: bool,
    null_rows: Vec<u32>,
    nan_bits: Vec<(u32, u64)>,
}

/// Rows as gaps, and back (`None` when the rows overflow: a corrupt list).
fn gaps(rows: impl Iterator<Item = u32>) -> Vec<u32> {
    let mut last = 0;
    rows.map(|r| {
        std::mem::replace(&mut last, r)
            .wrapping_neg()
            .wrapping_add(r)
    })
    .collect()
}

fn ungap(gaps: impl Iterator<Item = u32>) -> Option<Vec<u32>> {
    let mut row = 0u32;
    gaps.enumerate()
        .map(|(i, g)| {
            row = if i == 0 {
                g
            } else {
                row.checked_add(g).filter(|_| g > 0)?
            };
            Some(row)
        })
        .collect()
}

/// The `ArrowExtras` bytes of an Arrow input's columns.
pub fn arrow_extras_to_bytes(extras: &[ColumnExtras]) -> Vec<u8> {
    let wire: Vec<ColumnExtrasWire> = extras
        .iter()
        .map(|e| {
            let nan_rows = gaps(e.nan_bits.iter().map(|&(r, _)| r));
            ColumnExtrasWire {
                empty_is_null: e.empty_is_null,
                null_rows: gaps(e.null_rows.iter().copied()),
                nan_bits: nan_rows
                    .into_iter()
                    .zip(e.nan_bits.iter().map(|&(_, b)| b))
                    .collect(),
            }
        })
        .collect();
    to_bytes(&wire)
}

/// Reads `ArrowExtras`: rows must ascend strictly.
pub fn arrow_extras_from_bytes(bytes: &[u8]) -> Result<Vec<ColumnExtras>, String> {
    let wire: Vec<ColumnExtrasWire> = from_bytes(bytes)?;
    wire.into_iter()
        .enumerate()
        .map(|(c, w)| {
            let bad = || format!("Arrow extras of column {c}: rows do not ascend");
            let null_rows = ungap(w.null_rows.into_iter()).ok_or_else(bad)?;
            let nan_rows = ungap(w.nan_bits.iter().map(|&(g, _)| g)).ok_or_else(bad)?;
            Ok(ColumnExtras {
                empty_is_null: w.empty_is_null,
                null_rows,
                nan_bits: nan_rows
                    .into_iter()
                    .zip(w.nan_bits.iter().map(|&(_, b)| b))
                    .collect(),
            })
        })
        .collect()
}

/// Takes one frame (a varint length, then that many bytes: a row group's
/// `PrivatePart`, `spec/FORMAT.md` §7.4) from the front of `rest`.
pub fn take_frame<'a>(rest: &mut &'a [u8]) -> Result<&'a [u8], String> {
    let mut r = crate::codec::ByteReader::new(rest);
    let n = r.varint("frame length").map_err(|e| e.to_string())?;
    let frame = r.take(n, "frame").map_err(|e| e.to_string())?;
    *rest = &rest[r.position()..];
    Ok(frame)
}

/// One identifier column, never released.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdentifierColumn {
    /// Index into [`super::meta::PublicMeta::columns`].
    pub column: u32,
    /// The column coded with `codec::encode_plain`.
    #[serde(with = "serde_bytes")]
    pub bytes: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrow_extras_round_trip_as_gaps() {
        let extras = vec![
            ColumnExtras {
                empty_is_null: false,
                null_rows: vec![0, 1, 5, 300],
                nan_bits: vec![(2, 0x7ff8_0000_0000_0001), (u32::MAX, 1)],
            },
            ColumnExtras::default(),
        ];
        let bytes = arrow_extras_to_bytes(&extras);
        assert_eq!(arrow_extras_from_bytes(&bytes).unwrap(), extras);
        // Column 0's null rows as gaps: 0, 1, 4, 295 (0xA7 0x02).
        assert_eq!(bytes[..8], [2, 0, 4, 0, 1, 4, 0xA7, 0x02]);
        let repeated = ColumnExtrasWire {
            empty_is_null: false,
            null_rows: vec![3, 0],
            nan_bits: vec![],
        };
        assert!(arrow_extras_from_bytes(&to_bytes(&vec![repeated])).is_err());
    }
}
