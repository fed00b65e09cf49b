//! The archive's structured metadata, serialized with postcard
//! (`spec/FORMAT.md` §5, §6 and §7 tabulate every field in this order).
//!
//! Field order is the wire order: never reorder, only append in a new minor
//! version inside new sections.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::layout::Layout;
use crate::arrow::ColumnExtras;
use crate::config::{Role, SuppressionPolicy, ValueType};
use crate::hierarchy::Hierarchy;
use crate::metrics::Metrics;

/// The `META` section: everything public except the column blobs and the
/// hierarchies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublicMeta {
    /// The program that wrote the file (`karc 0.1.0`), for diagnosis only.
    pub writer: String,
    /// Data rows (the header not counted).
    pub rows: u64,
    /// Every column of the original table, in file order.
    pub columns: Vec<ColumnMeta>,
    /// The quasi-identifiers in claim order: indices into `columns`.
    pub qis: Vec<u32>,
    pub claim: Claim,
    pub algorithm: AlgorithmMeta,
    pub metrics: MetricsMeta,
    /// How `karc export` writes the release.
    pub dialect: Dialect,
    /// Tokens that stand for a missing value.
    pub missing: Vec<String>,
}

/// What `PublicMeta::writer` says of this program.
pub const WRITER: &str = concat!("karc ", env!("CARGO_PKG_VERSION"));

/// The `META` column list of a table and its `HIERARCHIES` records (one per
/// column that has a hierarchy, numbered in column order), from each
/// column's name, role, type and hierarchy.
pub fn columns_and_hierarchies<'a>(
    columns: impl Iterator<Item = (String, Role, ValueType, Option<&'a Hierarchy>)>,
) -> (Vec<ColumnMeta>, Vec<HierarchyRecord>) {
    let mut hierarchies = Vec::new();
    let columns = columns
        .map(|(name, role, value_type, hierarchy)| ColumnMeta {
            name,
            role,
            value_type,
            hierarchy: hierarchy.map(|h| {
                hierarchies.push(HierarchyRecord::from_hierarchy(h));
                hierarchies.len() as u32 - 1
            }),
        })
        .collect();
    (columns, hierarchies)
}

/// One column of the original table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnMeta {
    pub name: String,
    pub role: Role,
    pub value_type: ValueType,
    /// Index into the `HIERARCHIES` section, for QIs that have one.
    pub hierarchy: Option<u32>,
}

/// One k-anonymity constraint: classes over `qis` (positions in
/// [`PublicMeta::qis`]) have at least `k` rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstraintMeta {
    pub qis: Vec<u32>,
    pub k: u64,
}

/// The privacy claim the release was made under, re-checked on every open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub constraints: Vec<ConstraintMeta>,
    pub policy: SuppressionPolicy,
    /// Configured fraction of rows that may be suppressed.
    pub suppression_limit: Option<f64>,
    /// Rows the release may suppress (checked on open).
    pub suppression_budget: u64,
    /// Distinct l-diversity: (column index of the sensitive column, l).
    pub l_diversity: Option<(u32, u64)>,
}

/// How the release was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlgorithmMeta {
    pub name: String,
    pub seed: u64,
    /// Further parameters, as the TOML text of the `[algorithm]` table's
    /// extra keys (empty when none).
    pub params: String,
    /// Global recoding: one level per QI, in claim order.
    pub levels: Option<Vec<u32>>,
    /// Incognito: every minimal k-anonymous level vector.
    pub minimal_levels: Option<Vec<Vec<u32>>>,
}

/// The utility metrics of the release (`ALGORITHMS.md`), as measured when
/// it was made. A copy of [`Metrics`] kept apart so that the wire format
/// does not change when the report grows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MetricsMeta {
    pub precision: Option<f64>,
    pub ncp: f64,
    pub ncp_kaylode: f64,
    pub glm: f64,
    pub dm: f64,
    pub cavg: f64,
}

impl From<&Metrics> for MetricsMeta {
    fn from(m: &Metrics) -> Self {
        MetricsMeta {
            precision: m.precision,
            ncp: m.ncp,
            ncp_kaylode: m.ncp_kaylode,
            glm: m.glm,
            dm: m.dm,
            cavg: m.cavg,
        }
    }
}

/// The CSV dialect the release is exported in (as `karc anonymize` writes
/// it): delimiter, header row, line ending; quoting only where needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dialect {
    pub delimiter: u8,
    pub header: bool,
    pub crlf: bool,
}

/// One hierarchy: the labels of each level (level 0 = the leaves, in leaf
/// order; the last level = the root) and the parent of each node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HierarchyRecord {
    pub levels: Vec<Vec<String>>,
    /// `parents[l][n]`: the node at level `l + 1` above node `n` of level `l`.
    pub parents: Vec<Vec<u32>>,
}

impl HierarchyRecord {
    pub fn from_hierarchy(h: &Hierarchy) -> HierarchyRecord {
        let (levels, parents) = h.to_tree();
        HierarchyRecord { levels, parents }
    }

    /// Rebuilds the hierarchy (node numbers as in the original, since both
    /// number nodes by first appearance in leaf order). `source` names it
    /// in messages.
    pub fn into_hierarchy(self, source: &Path) -> Result<Hierarchy, String> {
        Hierarchy::from_tree(source, self.levels, &self.parents)
    }
}

/// The plaintext of the private part (of one row group).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrivatePart {
    /// The original file's CRC-32.
    pub digest: u32,
    /// Length of the original file in bytes.
    pub original_len: u64,
    pub layout: Layout,
    /// `codec::encode_originals` of the QI columns (`spec/CODING.md`).
    #[serde(with = "serde_bytes")]
    pub originals: Vec<u8>,
    /// Bytes of `originals` attributed to each QI, in claim order.
    pub originals_columns: Vec<u64>,
    /// The identifier columns (`codec::encode_plain`), in column order.
    pub identifiers: Vec<IdentifierColumn>,
}

/// The end of a private part of several row groups: the whole original
/// file's CRC-32 (each group's [`PrivatePart`] has its own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrivateTrailer {
    pub digest: u32,
    pub original_len: u64,
}

/// A decoded private part: one [`PrivatePart`] per row group, the whole
/// file's CRC-32 and length, the hash of the public part it was made for,
/// and (an Arrow input) the columns' null rows and NaN bits.
#[derive(Debug, Clone, PartialEq)]
pub struct PrivateParts {
    pub groups: Vec<PrivatePart>,
    pub digest: u32,
    pub original_len: u64,
    pub public_digest: [u8; 32],
    pub arrow: Option<Vec<ColumnExtras>>,
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
    /// Index into [`PublicMeta::columns`].
    pub column: u32,
    #[serde(with = "serde_bytes")]
    pub bytes: Vec<u8>,
}

/// Serializes with postcard (infallible for these types: no maps with
/// non-string keys, no unsized sequences).
pub fn to_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    postcard::to_allocvec(value).expect("postcard serializes the metadata types")
}

/// Deserializes from the front of `bytes`; returns the bytes after.
pub fn split_from_bytes<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<(T, &'a [u8]), String> {
    postcard::take_from_bytes(bytes).map_err(|e| e.to_string())
}

/// Deserializes and requires every byte to be used.
pub fn from_bytes<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, String> {
    let (value, rest) = postcard::take_from_bytes(bytes).map_err(|e| e.to_string())?;
    if !rest.is_empty() {
        return Err(format!("{} bytes left after the structure", rest.len()));
    }
    Ok(value)
}

/// The `HIERARCHIES` section: the postcard records, raw
/// DEFLATE-compressed (the labels are repetitive text; Adult's nine
/// hierarchies shrink from 2,091 to about 1,340 bytes).
pub fn hierarchies_to_bytes(records: &[HierarchyRecord]) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&to_bytes(&records))
        .and_then(|()| z.finish())
        .expect("deflating to memory")
}

/// The largest inflated hierarchies section read: far above any real
/// hierarchy set, and a bound on what a corrupt stream can make us allocate.
const MAX_HIERARCHIES_BYTES: u64 = 1 << 30;

/// Reads a `HIERARCHIES` section.
pub fn hierarchies_from_bytes(bytes: &[u8]) -> Result<Vec<HierarchyRecord>, String> {
    use std::io::Read;
    let mut plain = Vec::new();
    let mut inflate = flate2::read::DeflateDecoder::new(bytes);
    (&mut inflate)
        .take(MAX_HIERARCHIES_BYTES + 1)
        .read_to_end(&mut plain)
        .map_err(|e| format!("DEFLATE stream: {e}"))?;
    if inflate.total_in() != bytes.len() as u64 {
        return Err(format!(
            "{} bytes after the DEFLATE stream",
            bytes.len() as u64 - inflate.total_in()
        ));
    }
    if plain.len() as u64 > MAX_HIERARCHIES_BYTES {
        return Err(format!(
            "inflates to more than {MAX_HIERARCHIES_BYTES} bytes"
        ));
    }
    from_bytes(&plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hierarchy_round_trip_keeps_node_numbers() {
        let h = Hierarchy::from_bytes(Path::new("h.csv"), b"b;x;*\na;y;*\nc;x;*\nd;z;*\n").unwrap();
        let r = HierarchyRecord::from_hierarchy(&h);
        assert_eq!(r.levels[1], vec!["x", "y", "z"]);
        let back = r.clone().into_hierarchy(Path::new("h.csv")).unwrap();
        assert_eq!(
            back.rows().collect::<Vec<_>>(),
            h.rows().collect::<Vec<_>>()
        );
        let again = from_bytes::<HierarchyRecord>(&to_bytes(&r)).unwrap();
        assert_eq!(again, r);
    }

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

    #[test]
    fn postcard_wire_of_a_constraint() {
        // varint length 2, varints 0 and 3, varint k = 300 (0xAC 0x02).
        let c = ConstraintMeta {
            qis: vec![0, 3],
            k: 300,
        };
        assert_eq!(to_bytes(&c), vec![2, 0, 3, 0xAC, 0x02]);
        assert!(from_bytes::<ConstraintMeta>(&[2, 0, 3, 0xAC, 0x02, 9]).is_err());
    }

    #[test]
    fn enum_discriminants_are_pinned() {
        // The spec tabulates these numbers: reordering the enums would change the format.
        let roles = [
            Role::Identifier,
            Role::Quasi,
            Role::Sensitive,
            Role::Insensitive,
        ];
        let types = [
            ValueType::Integer,
            ValueType::Decimal,
            ValueType::Categorical,
        ];
        let policies = [SuppressionPolicy::Mask, SuppressionPolicy::Strict];
        assert_eq!(roles.map(|r| to_bytes(&r)[0]), [0, 1, 2, 3]);
        assert_eq!(types.map(|t| to_bytes(&t)[0]), [0, 1, 2]);
        assert_eq!(policies.map(|p| to_bytes(&p)[0]), [0, 1]);
    }
}
