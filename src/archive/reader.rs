//! Opening an archive: integrity, then the privacy claim, every time
//! (`spec/FORMAT.md` §9); then export, restore, publish and inspection.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::ArchiveError;
use super::format::{self, Container, SectionEntry, SectionKind};
use super::layout::Texts;
use super::meta::{self, HierarchyRecord, PrivatePart, PublicMeta};
use super::seal::{self, Key};
use crate::Result;
use crate::codec::{self, QiSchema, ReleasedColumn};
use crate::config::Role;
use crate::hierarchy::Hierarchy;
use crate::io::Input;
use crate::privacy::{ClaimReport, Constraint, verify_columns};
use crate::release::write_columns_csv;
use crate::table::{Column, LineEnding};

/// Whether opening re-checks the privacy claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimCheck {
    /// Refuse a file whose release breaks its claim (the default).
    Enforce,
    /// Skip the check: for forensics on a refused file only.
    Skip,
}

/// An opened, checked archive over a memory map.
pub struct Archive {
    path: PathBuf,
    bytes: Input,
    container: Container,
    pub meta: PublicMeta,
    /// One per `HIERARCHIES` record.
    pub hierarchies: Vec<Hierarchy>,
    /// Table-entry index of each released column's section, by column index
    /// (`None` for identifiers).
    column_section: Vec<Option<usize>>,
    /// Table-entry index of the QI classes section (format 2).
    classes_section: Option<usize>,
    /// Where the QI classes section's bytes go (format 2).
    classes_bytes: Option<codec::ClassesBytes>,
    /// Table-entry index of the private section.
    private_section: Option<usize>,
    /// The released QI columns, in claim order.
    pub released: Vec<ReleasedColumn>,
    /// The claim as re-checked on open (`None` when skipped).
    pub claim_report: Option<ClaimReport>,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("path", &self.path)
            .field("version", &self.version())
            .field("rows", &self.meta.rows)
            .field("sections", &self.container.entries.len())
            .finish()
    }
}

impl Archive {
    /// Opens and checks `path` (memory-mapped).
    pub fn open(path: &Path, check: ClaimCheck) -> Result<Archive> {
        let bytes = Input::open(path)?;
        Archive::from_input(path, bytes, check)
    }

    /// Checks bytes already in memory; `path` names the file in messages.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>, check: ClaimCheck) -> Result<Archive> {
        Archive::from_input(path, Input::Owned(bytes), check)
    }

    fn from_input(path: &Path, bytes: Input, check: ClaimCheck) -> Result<Archive> {
        let container = format::parse(path, &bytes)?;
        let corrupt = |section: String, detail: String| ArchiveError::Corrupt {
            path: path.to_owned(),
            section,
            detail,
        };
        let entries = &container.entries;
        let kinds: Vec<Option<SectionKind>> = entries.iter().map(SectionEntry::kind).collect();
        if kinds.first() != Some(&Some(SectionKind::Meta))
            || kinds.get(1) != Some(&Some(SectionKind::Hierarchies))
        {
            return Err(corrupt(
                "section table".to_owned(),
                "expected the metadata section first and the hierarchies second".to_owned(),
            )
            .into());
        }
        let meta_body = format::check_section(path, &bytes, 0, &entries[0], None)?;
        let meta: PublicMeta = meta::from_bytes(meta_body)
            .map_err(|e| corrupt(format::section_label(0, &entries[0], None), e))?;
        validate_meta(&meta)
            .map_err(|e| corrupt(format::section_label(0, &entries[0], None), e))?;
        let h_body = format::check_section(path, &bytes, 1, &entries[1], None)?;
        let records: Vec<HierarchyRecord> =
            meta::hierarchies_from_bytes(h_body, container.major)
                .map_err(|e| corrupt(format::section_label(1, &entries[1], None), e))?;
        let hierarchies = records
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let source = PathBuf::from(format!("{}#hierarchy{i}", path.display()));
                r.to_hierarchy(&source).map_err(|e| {
                    corrupt(
                        format!(
                            "{} (hierarchy {i})",
                            format::section_label(1, &entries[1], None)
                        ),
                        e,
                    )
                })
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        if let Some(c) = meta
            .columns
            .iter()
            .find(|c| c.hierarchy.is_some_and(|h| h as usize >= hierarchies.len()))
        {
            return Err(corrupt(
                format::section_label(0, &entries[0], None),
                format!(
                    "column {:?} names hierarchy {:?}, the file has {}",
                    c.name,
                    c.hierarchy,
                    hierarchies.len()
                ),
            )
            .into());
        }

        // Format 2: the QI classes third. Column sections follow the
        // non-identifier columns (format 2: but the QIs); then at most one
        // private section, last; unknown skippable sections anywhere after.
        let by_classes = container.major >= 2;
        let classes_section = by_classes.then_some(2);
        if by_classes && kinds.get(2) != Some(&Some(SectionKind::QiClasses)) {
            return Err(corrupt(
                "section table".to_owned(),
                "expected the QI classes section third".to_owned(),
            )
            .into());
        }
        let released_columns: Vec<usize> = (0..meta.columns.len())
            .filter(|&i| {
                meta.columns[i].role != Role::Identifier
                    && !(by_classes && meta.columns[i].role == Role::Quasi)
            })
            .collect();
        let mut column_section = vec![None; meta.columns.len()];
        let mut private_section = None;
        let mut next_column = 0;
        for (i, kind) in kinds.iter().enumerate().skip(2 + usize::from(by_classes)) {
            match kind {
                Some(SectionKind::Column) => {
                    let Some(&col) = released_columns.get(next_column) else {
                        return Err(corrupt(
                            format::section_label(i, &entries[i], None),
                            format!(
                                "more column sections than the {} released columns",
                                released_columns.len()
                            ),
                        )
                        .into());
                    };
                    if private_section.is_some() {
                        return Err(corrupt(
                            format::section_label(i, &entries[i], None),
                            "a column section after the private part".to_owned(),
                        )
                        .into());
                    }
                    column_section[col] = Some(i);
                    next_column += 1;
                }
                Some(k) if k.is_private() => {
                    if private_section.is_some() {
                        return Err(corrupt(
                            format::section_label(i, &entries[i], None),
                            "a second private part".to_owned(),
                        )
                        .into());
                    }
                    private_section = Some(i);
                }
                Some(k) => {
                    return Err(corrupt(
                        format::section_label(i, &entries[i], None),
                        format!("a second {} section", k.name()),
                    )
                    .into());
                }
                None => {} // unknown and skippable (checked by format::parse)
            }
        }
        if next_column != released_columns.len() {
            return Err(corrupt(
                "section table".to_owned(),
                format!(
                    "expected {} column sections, found {next_column}",
                    released_columns.len()
                ),
            )
            .into());
        }
        for (i, e) in entries.iter().enumerate().skip(2) {
            let column = column_section
                .iter()
                .position(|&s| s == Some(i))
                .map(|c| meta.columns[c].name.as_str());
            format::check_section(path, &bytes, i, e, column)?;
        }

        let mut archive = Archive {
            path: path.to_owned(),
            bytes,
            container,
            meta,
            hierarchies,
            column_section,
            classes_section,
            classes_bytes: None,
            private_section,
            released: Vec::new(),
            claim_report: None,
        };
        match classes_section {
            Some(i) => {
                let body = &archive.bytes[archive.container.entries[i].range()];
                let (classes, bytes) =
                    codec::decode_classes(body, archive.meta.qis.len(), archive.rows()).map_err(
                        |e| {
                            corrupt(
                                format::section_label(i, &archive.container.entries[i], None),
                                e.to_string(),
                            )
                        },
                    )?;
                archive.released = classes.to_columns();
                archive.classes_bytes = Some(bytes);
            }
            None => {
                archive.released = archive
                    .meta
                    .qis
                    .iter()
                    .map(|&c| {
                        let blob = archive.column_blob(c as usize);
                        codec::decode_released(blob, archive.rows())
                            .map_err(|e| archive.column_corrupt(c as usize, e.to_string()).into())
                    })
                    .collect::<Result<Vec<_>>>()?;
            }
        }
        if check == ClaimCheck::Enforce {
            let report = archive.check_claim()?;
            let over_budget = report.suppressed_rows as u64 > archive.meta.claim.suppression_budget;
            if !report.holds() || over_budget {
                let mut failures = report.failures();
                if over_budget {
                    failures.push(format!(
                        "{} rows suppressed, the claim allows {}",
                        report.suppressed_rows, archive.meta.claim.suppression_budget
                    ));
                }
                return Err(ArchiveError::ClaimBroken {
                    path: archive.path.clone(),
                    failures: failures.join("; "),
                }
                .into());
            }
            archive.claim_report = Some(report);
        }
        Ok(archive)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn rows(&self) -> usize {
        self.meta.rows as usize
    }

    pub fn version(&self) -> (u16, u16) {
        (self.container.major, self.container.minor)
    }

    fn column_blob(&self, column: usize) -> &[u8] {
        let i = self.column_section[column].expect("released column has a section");
        &self.bytes[self.container.entries[i].range()]
    }

    fn column_corrupt(&self, column: usize, detail: String) -> ArchiveError {
        let i = self.column_section[column]
            .or(self.classes_section)
            .unwrap_or(0);
        ArchiveError::Corrupt {
            path: self.path.clone(),
            section: format::section_label(
                i,
                &self.container.entries[i],
                Some(&self.meta.columns[column].name),
            ),
            detail,
        }
    }

    fn hierarchy_of(&self, column: usize) -> Option<&Hierarchy> {
        self.meta.columns[column]
            .hierarchy
            .map(|h| &self.hierarchies[h as usize])
    }

    /// Released QI `q` (claim order) as a column of labels.
    pub fn qi_labels(&self, q: usize) -> Result<Column> {
        let c = self.meta.qis[q] as usize;
        self.released[q]
            .to_column(&self.meta.columns[c].name, self.hierarchy_of(c))
            .map_err(|e| self.column_corrupt(c, e.to_string()).into())
    }

    /// A sensitive or insensitive column's texts.
    pub fn plain_column(&self, column: usize) -> Result<Column> {
        codec::decode_plain(
            self.column_blob(column),
            &self.meta.columns[column].name,
            self.rows(),
        )
        .map_err(|e| self.column_corrupt(column, e.to_string()).into())
    }

    /// Recomputes the privacy claim from the released QI columns.
    pub fn check_claim(&self) -> Result<ClaimReport> {
        let labels: Vec<Column> = (0..self.meta.qis.len())
            .map(|q| self.qi_labels(q))
            .collect::<Result<_>>()?;
        let refs: Vec<&Column> = labels.iter().collect();
        let constraints: Vec<Constraint> = self
            .meta
            .claim
            .constraints
            .iter()
            .map(|c| Constraint {
                qis: c.qis.iter().map(|&q| q as usize).collect(),
                k: c.k as usize,
            })
            .collect();
        let sensitive = match self.meta.claim.l_diversity {
            Some((col, l)) => Some((self.plain_column(col as usize)?, l as usize)),
            None => None,
        };
        Ok(verify_columns(
            &refs,
            &constraints,
            self.meta.claim.policy,
            sensitive.as_ref().map(|(c, l)| (c, *l)),
        ))
    }

    /// Every released column (identifiers left out), in file order.
    pub fn release_columns(&self) -> Result<Vec<Column>> {
        (0..self.meta.columns.len())
            .filter(|&i| self.meta.columns[i].role != Role::Identifier)
            .map(
                |i| match self.meta.qis.iter().position(|&c| c as usize == i) {
                    Some(q) => self.qi_labels(q),
                    None => self.plain_column(i),
                },
            )
            .collect()
    }

    /// Writes the release as CSV, byte-equal to `karc anonymize`'s output.
    pub fn export_csv(&self, out: &mut dyn std::io::Write) -> Result<()> {
        let columns = self.release_columns()?;
        let d = self.meta.dialect;
        let ending = if d.crlf {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        };
        write_columns_csv(&columns, self.rows(), d.delimiter, ending, d.header, out)
            .map_err(|e| crate::Error::io(&self.path, e))
    }

    /// Whether the file has a private part, and whether it is sealed.
    pub fn private_kind(&self) -> Option<SectionKind> {
        self.private_section
            .and_then(|i| self.container.entries[i].kind())
    }

    fn private_label(&self) -> String {
        let i = self.private_section.unwrap_or(0);
        format::section_label(i, &self.container.entries[i], None)
    }

    /// The private part's plaintext (unsealed with `key` when sealed).
    pub fn private_plaintext(&self, key: Option<&Key>) -> Result<Vec<u8>> {
        let Some(i) = self.private_section else {
            return Err(ArchiveError::NoPrivatePart {
                path: self.path.clone(),
            }
            .into());
        };
        let body = &self.bytes[self.container.entries[i].range()];
        match (self.private_kind(), key) {
            (Some(SectionKind::PrivatePlain), _) => Ok(body.to_vec()),
            (_, Some(key)) => Ok(seal::unseal(&self.path, body, key)?),
            (_, None) => Err(ArchiveError::Key {
                path: self.path.clone(),
                message: "the private part is sealed: give --identity or --passphrase-file"
                    .to_owned(),
            }
            .into()),
        }
    }

    /// The decoded private part.
    pub fn private_part(&self, key: Option<&Key>) -> Result<PrivatePart> {
        let plain = self.private_plaintext(key)?;
        let part: PrivatePart = meta::from_bytes(&plain).map_err(|e| ArchiveError::Corrupt {
            path: self.path.clone(),
            section: self.private_label(),
            detail: e,
        })?;
        part.layout
            .validate(self.meta.columns.len(), self.rows())
            .map_err(|e| ArchiveError::Corrupt {
                path: self.path.clone(),
                section: format!("{} (layout)", self.private_label()),
                detail: e,
            })?;
        Ok(part)
    }

    /// Restores the original file's bytes, checked against its SHA-256.
    pub fn restore(&self, key: Option<&Key>) -> Result<Vec<u8>> {
        let part = self.private_part(key)?;
        let corrupt = |detail: String| ArchiveError::Corrupt {
            path: self.path.clone(),
            section: self.private_label(),
            detail,
        };
        let schemas: Vec<QiSchema<'_>> = self
            .meta
            .qis
            .iter()
            .map(|&c| {
                let c = c as usize;
                QiSchema {
                    name: &self.meta.columns[c].name,
                    value_type: self.meta.columns[c].value_type,
                    hierarchy: self.hierarchy_of(c),
                }
            })
            .collect();
        let originals = codec::decode_originals(&part.originals, &schemas, &self.released)
            .map_err(|e| corrupt(format!("quasi-identifier originals: {e}")))?;
        let mut identifiers = part.identifiers.iter();
        let mut owned: Vec<Option<Column>> = Vec::with_capacity(self.meta.columns.len());
        for (i, c) in self.meta.columns.iter().enumerate() {
            owned.push(match c.role {
                Role::Quasi => None,
                Role::Identifier => {
                    let id = identifiers
                        .next()
                        .filter(|id| id.column as usize == i)
                        .ok_or_else(|| {
                            corrupt(format!("identifier column {:?} is missing", c.name))
                        })?;
                    Some(
                        codec::decode_plain(&id.bytes, &c.name, self.rows())
                            .map_err(|e| corrupt(format!("identifier column {:?}: {e}", c.name)))?,
                    )
                }
                _ => Some(self.plain_column(i)?),
            });
        }
        if identifiers.next().is_some() {
            return Err(
                corrupt("more identifier columns than the metadata lists".to_owned()).into(),
            );
        }
        let columns: Vec<&Column> = owned
            .iter()
            .enumerate()
            .map(|(i, c)| match c {
                Some(c) => c,
                None => {
                    let q = self
                        .meta
                        .qis
                        .iter()
                        .position(|&x| x as usize == i)
                        .expect("QI");
                    &originals[q]
                }
            })
            .collect();
        if let Some((c, col)) = columns
            .iter()
            .enumerate()
            .find(|(_, c)| c.codes.len() != self.rows())
        {
            return Err(corrupt(format!(
                "column {:?} has {} rows, expected {}",
                self.meta.columns[c].name,
                col.codes.len(),
                self.rows()
            ))
            .into());
        }
        let texts = RestoreTexts {
            names: self.meta.columns.iter().map(|c| c.name.as_str()).collect(),
            columns,
            rows: self.rows(),
        };
        let (out, digest) = part
            .layout
            .render_hashed(&texts, part.original_len.min(1 << 32) as usize);
        if digest != part.sha256 || out.len() as u64 != part.original_len {
            return Err(ArchiveError::RestoreChecksum {
                path: self.path.clone(),
                expected: hex(&part.sha256),
                found: hex(&digest),
                expected_len: part.original_len,
                found_len: out.len() as u64,
            }
            .into());
        }
        Ok(out)
    }

    /// The same file without its private part (sections copied as they are).
    pub fn published(&self) -> Vec<u8> {
        let sections: Vec<(SectionKind, &[u8])> = self
            .container
            .entries
            .iter()
            .filter_map(|e| e.kind().map(|k| (k, e)))
            .filter(|(k, _)| !k.is_private())
            .map(|(k, e)| (k, &self.bytes[e.range()]))
            .collect();
        format::assemble(&sections)
    }

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
                    .column_section
                    .iter()
                    .position(|&s| s == Some(i))
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
                Some(self.private_part(key)?)
            }
            _ => None,
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
                let private = part.as_ref().and_then(|p| match c.role {
                    Role::Identifier => p
                        .identifiers
                        .iter()
                        .find(|id| id.column as usize == i)
                        .map(|id| id.bytes.len() as u64),
                    Role::Quasi => q.and_then(|q| p.originals_columns.get(q).copied()),
                    _ => Some(0),
                });
                let classes_bytes = self
                    .classes_bytes
                    .as_ref()
                    .and_then(|b| q.and_then(|q| b.columns.get(q).copied()));
                ColumnInfo {
                    name: c.name.clone(),
                    role: c.role,
                    public_bytes: classes_bytes
                        .unwrap_or_else(|| self.column_section[i].map_or(0, len)),
                    private_bytes: private,
                }
            })
            .collect();
        Ok(Inspection {
            file: self.path.display().to_string(),
            version: format!("{}.{}", self.container.major, self.container.minor),
            rows: self.meta.rows,
            file_bytes: self.bytes.len() as u64,
            container_bytes: (format::HEADER_LEN + format::ENTRY_LEN * entries.len()) as u64,
            public_bytes,
            metadata_bytes: len(0),
            hierarchies_bytes: len(1),
            class_rows_bytes: self.classes_bytes.as_ref().map(|b| b.rows),
            private_bytes,
            sealed_bytes: if sealed { Some(private_stored) } else { None },
            private: match self.private_kind() {
                None => "absent (published copy)",
                Some(SectionKind::PrivatePlain) => "unencrypted",
                Some(_) => "sealed (age)",
            }
            .to_owned(),
            layout_verbatim_bytes: part.as_ref().map(|p| p.layout.verbatim_bytes() as u64),
            difference_mode: part.as_ref().and_then(|p| p.originals.first()).map(|&id| {
                codec::DiffMode::from_id(id).map_or(format!("id {id}"), |m| m.to_string())
            }),
            original_bytes: part.as_ref().map(|p| p.original_len),
            original_sha256: part.as_ref().map(|p| hex(&p.sha256)),
            columns,
            sections,
            claim: self.claim_report.clone(),
            meta: self.meta.clone(),
        })
    }
}

/// What `karc inspect --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    pub file: String,
    pub version: String,
    pub rows: u64,
    pub file_bytes: u64,
    /// Header and section table.
    pub container_bytes: u64,
    /// The whole public part: metadata, hierarchies, column blobs (code
    /// tables included).
    pub public_bytes: u64,
    pub metadata_bytes: u64,
    pub hierarchies_bytes: u64,
    /// Format 2: the rows' equivalence classes, shared by the QIs (each
    /// QI's symbols and class-table column count as its public bytes).
    pub class_rows_bytes: Option<u64>,
    /// The private part before encryption (`None` for a published copy).
    pub private_bytes: Option<u64>,
    /// The private part after encryption (`None` unless sealed).
    pub sealed_bytes: Option<u64>,
    pub private: String,
    pub layout_verbatim_bytes: Option<u64>,
    pub difference_mode: Option<String>,
    pub original_bytes: Option<u64>,
    pub original_sha256: Option<String>,
    pub columns: Vec<ColumnInfo>,
    pub sections: Vec<SectionInfo>,
    pub claim: Option<ClaimReport>,
    pub meta: PublicMeta,
}

#[derive(Debug, Clone, Serialize)]
pub struct ColumnInfo {
    pub name: String,
    pub role: Role,
    pub public_bytes: u64,
    /// Bytes in the private part (needs the key when sealed).
    pub private_bytes: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SectionInfo {
    pub index: usize,
    pub kind: String,
    pub code: u16,
    pub offset: u64,
    pub length: u64,
    pub crc: String,
    pub column: Option<String>,
}

/// The plaintext length of a binary age file, from its framing: the header
/// ends with the `---` MAC line, a 16-byte nonce follows, then chunks of up
/// to 64 KiB each with a 16-byte tag.
fn age_plaintext_len(sealed: &[u8]) -> Option<u64> {
    let mac = sealed.windows(4).position(|w| w == b"\n---")?;
    let header_end = mac + 1 + sealed[mac + 1..].iter().position(|&b| b == b'\n')? + 1;
    let payload = sealed.len().checked_sub(header_end + 16)? as u64;
    const CHUNK: u64 = 64 * 1024 + 16;
    let chunks = payload.div_ceil(CHUNK).max(1);
    payload.checked_sub(16 * chunks)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The restore's view of the columns: names from the metadata.
struct RestoreTexts<'a> {
    names: Vec<&'a str>,
    columns: Vec<&'a Column>,
    rows: usize,
}

impl Texts for RestoreTexts<'_> {
    fn columns(&self) -> usize {
        self.columns.len()
    }
    fn rows(&self) -> usize {
        self.rows
    }
    fn name(&self, column: usize) -> &str {
        self.names[column]
    }
    fn column(&self, column: usize) -> &Column {
        self.columns[column]
    }
}

/// The structural rules of `META` (`spec/FORMAT.md` §5).
fn validate_meta(m: &PublicMeta) -> std::result::Result<(), String> {
    let n = m.columns.len();
    if n == 0 {
        return Err("no columns".to_owned());
    }
    let quasi: Vec<u32> = (0..n as u32)
        .filter(|&i| m.columns[i as usize].role == Role::Quasi)
        .collect();
    let mut listed = m.qis.clone();
    listed.sort_unstable();
    if listed != quasi {
        return Err(format!(
            "the QI list {:?} does not match the quasi columns {:?}",
            m.qis, quasi
        ));
    }
    if let Some(c) = m
        .columns
        .iter()
        .find(|c| c.hierarchy.is_some() && c.role != Role::Quasi)
    {
        return Err(format!(
            "column {:?} has a hierarchy but is not a QI",
            c.name
        ));
    }
    if m.claim.constraints.is_empty() {
        return Err("the claim has no constraint".to_owned());
    }
    for (i, c) in m.claim.constraints.iter().enumerate() {
        if c.k == 0 {
            return Err(format!("constraint {}: k = 0", i + 1));
        }
        if c.qis.is_empty()
            || c.qis.windows(2).any(|w| w[0] >= w[1])
            || c.qis.iter().any(|&q| q as usize >= m.qis.len())
        {
            return Err(format!(
                "constraint {}: QI positions {:?} are empty, unsorted or out of range ({} QIs)",
                i + 1,
                c.qis,
                m.qis.len()
            ));
        }
    }
    if let Some((col, l)) = m.claim.l_diversity {
        let ok = (col as usize) < n
            && matches!(
                m.columns[col as usize].role,
                Role::Sensitive | Role::Insensitive
            );
        if !ok || l == 0 {
            return Err(format!(
                "l-diversity names column {col} with l = {l}: expected a released non-QI column and l >= 1"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_framing_gives_the_plaintext_length() {
        for len in [0usize, 1, 65_536, 65_537, 200_000] {
            let plain = vec![7u8; len];
            let id = age::x25519::Identity::generate();
            let sealed = seal::seal(&plain, &seal::Seal::Recipients(vec![id.to_public()]))
                .unwrap()
                .unwrap();
            assert_eq!(age_plaintext_len(&sealed), Some(len as u64), "{len}");
        }
    }
}
