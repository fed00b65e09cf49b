//! `inspect`: every section's size and what it holds, public and, with
//! the key, private.

use super::restore::age_plaintext_len;
use super::*;

impl Archive {
    // Long: gathers every size and field of the inspection in one place, public sections then the
    // private part when it can be read
    /// Sizes and contents, for `karc inspect`. Private per-column sizes
    /// need the plaintext (`key`, or an unencrypted private part).
    pub fn inspect(&self, key: Option<&Key>) -> Result<Inspection> {
        let entries = &self.container.entries;
        let len = |i: usize| entries[i].length;
        let sections = entries
            .iter()
            .enumerate()
            .map(|(i, e)| SectionInfo {
                index: i,
                kind: e.kind().map_or("unknown", SectionKind::name).to_owned(),
                code: e.code,
                offset: e.offset,
                length: e.length,
                crc: format!("{:08x}", e.crc),
                column: self
                    .groups
                    .iter()
                    .find_map(|g| g.column_section.iter().position(|&s| s == Some(i)))
                    .map(|c| self.meta.columns[c].name.clone()),
            })
            .collect();
        let public_bytes: u64 = entries
            .iter()
            .filter(|e| e.kind().is_some_and(|k| !k.is_private()))
            .map(|e| e.length)
            .sum();
        let private_stored = self.private_section.map_or(0, len);
        let sealed = self.private_kind() == Some(SectionKind::PrivateSealed);
        let part = match (self.private_kind(), key) {
            (Some(SectionKind::PrivatePlain), _) | (Some(_), Some(_)) => {
                Some(self.private_parts(key)?)
            }
            _ => None,
        };

        // The whole hierarchies' node counts, when the private part is read.
        let whole_nodes: Option<Vec<usize>> = match (&part, &self.whole_v1[..]) {
            (
                Some(PrivateParts {
                    sealed: Some(s), ..
                }),
                _,
            ) => Some(
                meta::hierarchies_from_bytes(&s.hierarchies)
                    .map(|records| {
                        let count = |r: &HierarchyRecord| r.levels.iter().map(Vec::len).sum();
                        records.iter().map(count).collect()
                    })
                    .unwrap_or_default(),
            ),
            (_, whole) if self.container.major == crate::archive::compat::MAJOR => Some(
                whole
                    .iter()
                    .map(|h| (0..=h.height()).map(|l| h.nodes(l)).sum())
                    .collect(),
            ),
            _ => None,
        };
        let sealed_metrics = match &part {
            Some(PrivateParts {
                sealed: Some(s), ..
            }) => Some(s.metrics),
            _ => self.v1_metrics,
        };
        let private_bytes = match (&part, self.private_section) {
            (Some(_), _) if !sealed => Some(private_stored),
            (_, Some(i)) if sealed => age_plaintext_len(&self.bytes[entries[i].range()]),
            _ => None,
        };
        let columns = self
            .meta
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let q = self.meta.qis.iter().position(|&x| x as usize == i);
                let private = part.as_ref().and_then(|p| {
                    p.groups
                        .iter()
                        .map(|p| match c.role {
                            Role::Identifier => p
                                .identifiers
                                .iter()
                                .find(|id| id.column as usize == i)
                                .map(|id| id.bytes.len() as u64),
                            Role::Quasi => q.and_then(|q| {
                                codec::originals_column_bytes(&p.originals)
                                    .ok()?
                                    .get(q)
                                    .copied()
                            }),
                            _ => Some(0),
                        })
                        .sum::<Option<u64>>()
                });
                let table_wide = (self.table_wide.as_ref().zip(q))
                    .map_or(0, |(w, q)| w.bytes.columns.get(q).copied().unwrap_or(0));
                let public = table_wide
                    + self
                        .groups
                        .iter()
                        .map(|g| match (&g.classes_bytes, q) {
                            (Some(b), Some(q)) => b.columns.get(q).copied().unwrap_or(0),
                            _ => g.column_section[i].map_or(0, len),
                        })
                        .sum::<u64>();
                let h = c.hierarchy.map(|h| h as usize);
                let public_nodes = h
                    .and_then(|h| self.hierarchies.get(h))
                    .map(Pruned::node_count);
                let all_nodes = h.and_then(|h| whole_nodes.as_ref()?.get(h).copied());
                ColumnInfo {
                    name: c.name.clone(),
                    role: c.role,
                    pseudonym: c.pseudonym,
                    public_bytes: public,
                    private_bytes: private,
                    hierarchy_public_nodes: public_nodes.map(|n| n as u64),
                    hierarchy_sealed_nodes: public_nodes
                        .zip(all_nodes)
                        .map(|(p, a)| a.saturating_sub(p) as u64),
                }
            })
            .collect();
        Ok(Inspection {
            file: self.path.display().to_string(),
            version: format!("{}.{}", self.container.major, self.container.minor),
            rows: self.meta.rows,
            file_bytes: self.bytes.len() as u64,
            container_bytes: format::EntryLayout::of(self.container.major).at(entries.len()) as u64,
            public_bytes,
            metadata_bytes: len(0),
            hierarchies_bytes: len(1),
            class_rows_bytes: self
                .groups
                .iter()
                .map(|g| g.classes_bytes.as_ref().map(|b| b.rows))
                .sum(),
            row_groups: self.groups.len(),
            private_bytes,
            sealed_bytes: if sealed { Some(private_stored) } else { None },
            private: match self.private_kind() {
                None => "absent (published copy)",
                Some(SectionKind::PrivatePlain) => "unencrypted",
                Some(_) => "sealed (age)",
            }
            .to_owned(),
            layout_verbatim_bytes: part.as_ref().map(|p| {
                p.groups
                    .iter()
                    .map(|g| g.layout.verbatim_bytes() as u64)
                    .sum()
            }),
            difference_mode: part
                .as_ref()
                .and_then(|p| p.groups[0].originals.first())
                .map(|&id| {
                    codec::DiffMode::from_id(id).map_or(format!("id {id}"), |m| m.to_string())
                }),
            original_bytes: part.as_ref().map(|p| p.original_len),
            original_digest: part.as_ref().map(|p| crc32_hex(p.digest)),
            digest: digest::CHECKSUM,
            public_digest: part.as_ref().map(|p| hex(&p.public_digest)),
            columns,
            sections,
            claim: self.claim_report.clone(),
            meta: self.meta.clone(),
            sealed_metrics,
            models: self.models.clone(),
            column_checks: self.column_checks.as_ref().map(|c| c.named(&self.meta)),
            risk: self.risk()?,
            signature: self.signature.as_ref().map(Embedded::status),
        })
    }
}

/// What `karc inspect --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    /// The archive's path.
    pub file: String,
    /// Its format version, `major.minor`.
    pub version: String,
    /// Data rows.
    pub rows: u64,
    /// Size of the file.
    pub file_bytes: u64,
    /// Header and section table.
    pub container_bytes: u64,
    /// The whole public part: metadata, hierarchies, column blobs (code
    /// tables included).
    pub public_bytes: u64,
    /// The `META` section.
    pub metadata_bytes: u64,
    /// The `HIERARCHIES` section.
    pub hierarchies_bytes: u64,
    /// The rows' equivalence classes, shared by the QIs (each QI's symbols
    /// and class-table column count as its public bytes).
    pub class_rows_bytes: Option<u64>,
    /// Row groups (1 unless the file was packed from a stream).
    pub row_groups: usize,
    /// The private part before encryption (`None` for a published copy).
    pub private_bytes: Option<u64>,
    /// The private part after encryption (`None` unless sealed).
    pub sealed_bytes: Option<u64>,
    /// The private part's state: `sealed (age)`, `unencrypted` or `absent (published copy)`.
    pub private: String,
    /// Original bytes kept verbatim by the layout (fields and records that do not re-render).
    pub layout_verbatim_bytes: Option<u64>,
    /// The difference coding of the QI columns.
    pub difference_mode: Option<String>,
    /// Size of the original file.
    pub original_bytes: Option<u64>,
    /// The original's checksum (hex), of the kind `digest` names.
    pub original_digest: Option<String>,
    /// `CRC-32`.
    pub digest: &'static str,
    /// The BLAKE3 hash of the public part that the private part holds
    /// (hex), which matched this file's when it was read.
    pub public_digest: Option<String>,
    /// Each column's share of the file.
    pub columns: Vec<ColumnInfo>,
    /// The section table.
    pub sections: Vec<SectionInfo>,
    /// The privacy claim as checked on open.
    pub claim: Option<ClaimReport>,
    /// The public part's metadata.
    pub meta: PublicMeta,
    /// The metrics measured against the original's domain: a 2.0 file
    /// seals them (`None` without the private part), a 1.0 file shows them.
    pub sealed_metrics: Option<SealedMetrics>,
    /// The models beyond k the file claims (`PRIVACY_MODELS`), if any.
    pub models: Option<ModelsClaim>,
    /// The derived-column check the release passed (`COLUMN_CHECKS`), if any.
    pub column_checks: Option<NamedChecks>,
    /// The release's re-identification risk ([`Archive::risk`]).
    pub risk: Option<Risk>,
    /// The `SIGNATURE` section's key id and trusted comment, not checked
    /// against a key (`None`: unsigned).
    pub signature: Option<signature::Status>,
}

/// One column of [`Inspection`].
#[derive(Debug, Clone, Serialize)]
pub struct ColumnInfo {
    /// The column's name.
    pub name: String,
    /// Its role.
    pub role: Role,
    /// An identifier released as keyed pseudonyms (its `COLUMN` section
    /// holds them; the originals are in the private part).
    pub pseudonym: bool,
    /// Bytes in the public part (its blob, or its share of the classes).
    pub public_bytes: u64,
    /// Bytes in the private part (needs the key when sealed).
    pub private_bytes: Option<u64>,
    /// A QI with a hierarchy: the nodes its public part holds (those the
    /// release uses and their ancestors).
    pub hierarchy_public_nodes: Option<u64>,
    /// A QI with a hierarchy: the nodes only its private part holds
    /// (`None` when the private part was not read).
    pub hierarchy_sealed_nodes: Option<u64>,
}

/// One section-table entry of [`Inspection`].
#[derive(Debug, Clone, Serialize)]
pub struct SectionInfo {
    /// Position in the table.
    pub index: usize,
    /// What it holds (`unknown` for a skipped newer section).
    pub kind: String,
    /// Its type code.
    pub code: u16,
    /// Byte offset in the file.
    pub offset: u64,
    /// Length in bytes.
    pub length: u64,
    /// CRC-32, hex.
    pub crc: String,
    /// The column a `COLUMN` section holds.
    pub column: Option<String>,
}
